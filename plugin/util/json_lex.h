#ifndef MEMGATE_JSON_LEX_H
#define MEMGATE_JSON_LEX_H
/*
 * The JSON reader's (json_stream.c) lexical pieces, in json_lex.c:
 * positions, UTF-8, escapes and numbers, and the words of each fault it
 * refuses a text for (json.h, enum mg_json_fault_kind).  Internal to the
 * json module.
 */
#include <stdbool.h>
#include <stddef.h>
#include "json.h"
#include "memgate/buf.h"
#include "memgate/error.h"

/* The length of a UTF-8 BOM at the start of text: 3 or 0. */
size_t mg_json__skip_bom(const char *text, size_t len);

/* Sets f: a fault of `kind` at `off`, in printf words. */
void mg_json__fault_set(struct mg_json_fault *f, enum mg_json_fault_kind kind, size_t off,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The 1-based position of byte offset `off` in text (past a BOM; columns
 * count characters). */
mg_pos mg_json__pos_at(const char *text, size_t len, size_t off);

/* Length of the valid UTF-8 sequence at s[0..n), or 0 with *why set. */
size_t mg_json__utf8_seq(const unsigned char *s, size_t n, const char **why);

/* The value of 4 hex digits at s[0..4) within n bytes, or -1. */
long mg_json__hex4(const char *s, size_t n);

/* Check the escape at text[p] ('\\'); returns its length or 0 with f set. */
size_t mg_json__check_escape(struct mg_json_fault *f, const char *text, size_t len, size_t p);

/* The end of the RFC 8259 number at text[p], or 0 when there is none. */
size_t mg_json__number_end(const char *text, size_t len, size_t p);

/* Sets f: the text at `start` ('-' or a digit) is not an RFC 8259 number. */
void mg_json__number_fault(struct mg_json_fault *f, const char *text, size_t len, size_t start);

/* Is the RFC 8259 number s[0..n) a finite double?  False with f set (at
 * `off`) when its magnitude is beyond DBL_MAX: memgate's rule. */
bool mg_json__number_finite(struct mg_json_fault *f, const char *s, size_t n, size_t off);

/* Sets f: the reader wanted something else at text[off] (the end of the
 * text when off >= len), named as memgate(1) says: the end of input, a
 * NUL byte, invalid UTF-8, UTF-16, or the character found. */
void mg_json__unexpected(struct mg_json_fault *f, const char *text, size_t len, size_t off);

/* Append the raw string s[0..len) (valid: checked, inside its quotes) to
 * out, decoded.  In json_stream.c. */
void mg_json__decode_string(mg_buf *out, const char *s, size_t len);

#endif
