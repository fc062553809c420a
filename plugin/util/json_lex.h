#ifndef MEMGATE_JSON_LEX_H
#define MEMGATE_JSON_LEX_H
/*
 * What the JSON reader (json_stream.c) and the explanation of its
 * refusals (json_explain.c) share, in json_lex.c: positions, the byte
 * checks of pass 1 (NUL bytes, UTF-8, depth), the lexical checks of
 * strings and numbers, and the explanation of where and why a text cJSON
 * stopped reading is not JSON.  Internal to the json module.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/buf.h"
#include "memgate/error.h"

/* A problem found at a byte offset; what[0] == '\0' means none. */
struct fault {
	size_t off;
	char what[160];
};

/* Where a forward walk over a text is: byte offset and 1-based position. */
struct cursor {
	const char *text;
	size_t len;
	size_t off;
	mg_pos pos;
};

/* The length of a UTF-8 BOM at the start of text: 3 or 0. */
size_t mg_json__skip_bom(const char *text, size_t len);

/* A cursor at the start of text (after a BOM), at 1:1. */
void mg_json__cursor_init(struct cursor *c, const char *text, size_t len);

/* Move forward to `target` (never backwards) and return its position. */
mg_pos mg_json__cursor_to(struct cursor *c, size_t target);

/* Sets f: the problem at `off`, in printf words. */
void mg_json__fault_set(struct fault *f, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The 1-based position of byte offset `off` in text. */
mg_pos mg_json__pos_at(const char *text, size_t len, size_t off);

/*
 * Length of the valid UTF-8 sequence at s[0..n), or 0 with *why set.
 */
size_t mg_json__utf8_seq(const unsigned char *s, size_t n, const char **why);

/* NUL bytes, invalid UTF-8, UTF-16 and nesting depth; 0 or -1 with f set. */
int mg_json__prescan(struct fault *f, const char *text, size_t len, size_t max_depth);

/* RFC 8259 whitespace (not \f nor \v, which cJSON also skips). */
bool mg_json__is_ws(char c);

/* An ASCII digit. */
bool mg_json__is_digit(char c);

/* The value of 4 hex digits at s[0..4) within n bytes, or -1. */
long mg_json__hex4(const char *s, size_t n);

/* Check the escape at text[p] ('\\'); returns its length or 0 with f set. */
size_t mg_json__check_escape(struct fault *f, const char *text, size_t len, size_t p);

/* Scan the string whose opening quote is at text[q].  Returns the offset after
 * the closing quote, or 0 with f set. */
size_t mg_json__scan_string(struct fault *f, const char *text, size_t len, size_t q);

/* The end of the RFC 8259 number at text[p], or 0 when there is none. */
size_t mg_json__number_end(const char *text, size_t len, size_t p);

/* Check the number at text[start] (cJSON takes "01", "1." and "-.5");
 * returns the offset after it, or 0 with f set. */
size_t mg_json__scan_number(struct fault *f, const char *text, size_t len, size_t start);

/*
 * cJSON stopped at `off` (clamped to len).  It reports a bad object key one
 * byte late and a bad string at its first character: find the real place
 * and say what is wrong there.
 */
void mg_json__explain_failure(struct fault *f, const char *text, size_t len, size_t off);

/* Append the raw string s[0..len) (valid: checked, inside its quotes) to
 * out, decoded.  In json_stream.c. */
void mg_json__decode_string(mg_buf *out, const char *s, size_t len);

/* A key of an object, as the reader and the explanation keep it to find
 * duplicates when the object closes. */
struct mg_json__key {
	const char *p;    /* the raw key in the text (decoded, when escaped,
			     once its object is closed) */
	size_t len;
	size_t doff;      /* an escaped key's offset in the scratch buffer */
	size_t off;       /* its opening quote's offset in the text */
	bool escaped;
};

/* Order two keys by name (bytes, then length), as both sort them. */
int mg_json__key_name_cmp(const struct mg_json__key *x, const struct mg_json__key *y);

/* Decode the escaped keys among k[0..n) into scratch (emptied first) and
 * point them there, so that keys compare by their decoded names.  In
 * json_stream.c. */
void mg_json__decode_keys(mg_buf *scratch, struct mg_json__key *k, size_t n);

/*
 * Why the reader refuses a text that passed mg_json__prescan, keeping no
 * node: the first duplicate key it meets (found when its object closes),
 * the place where it stops, or text after the document.  True with f set;
 * false when it reads the text.  In json_stream.c.
 */
bool mg_json__stream_fault(struct fault *f, const char *text, size_t len);

#endif
