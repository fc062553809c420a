#ifndef MEMGATE_PLUGIN_JSON_H
#define MEMGATE_PLUGIN_JSON_H
/*
 * JSON for the parsers and renderers (private).
 *
 * Reading: one strict reader (json_stream.c), which refuses what cJSON
 * would let through: NUL bytes, invalid UTF-8, trailing text, duplicate
 * keys (cJSON keeps both and returns the first), nesting deeper than
 * MG_JSON_MAX_DEPTH, numbers beyond a double, and what RFC 8259 does not
 * allow; and records the 1-based line:column position of every value
 * (cJSON keeps none), so that later errors and annotations can point at
 * the exact line.  When it refuses a text it says why itself: the first
 * fault it meets, at the place it stops, whatever the text's size
 * (memgate(1), "JSON").
 *
 * Writing: json_write.h, the one writer; here only a tape node written
 * again through it (mg_json__write_tape).
 */
#include <stddef.h>

#include "memgate/error.h"
#include "memgate/limits.h"   /* MG_JSON_MAX_DEPTH */

/*
 * Writing: a tape's node (json_stream.c) written again by the one JSON
 * writer (json_write.h), as cJSON_Print (MG_JW_TABS) or
 * cJSON_PrintUnformatted (MG_JW_LINE) prints what cJSON parses from the
 * same text: strings decoded, numbers as strtod reads them, "##[" escaped
 * (the manifest rewritten with its approved result).
 */
struct mg_jw;
struct mg_json_tape;
void mg_json__write_tape(struct mg_jw *w, const struct mg_json_tape *t, size_t node);

/*
 * ---- the reader ----
 *
 * One pass over the text that accepts RFC 8259 JSON in UTF-8 without NUL
 * bytes, duplicate keys or \u0000, with numbers that are finite doubles
 * and nesting of at most MG_JSON_MAX_DEPTH; it records the values in a
 * tape: a flat array of nodes in text order, each with its 1-based
 * position.  Without `stream_key` the tape holds the whole document.
 * With it, the elements of the root object's member `stream_key` (when it
 * is an array) are handed to `element` one at a time, each while its
 * nodes are on the tape, and then dropped: a report of 10^5 candidates
 * never exists as one tree.
 *
 * Returns 0 with *out the tape of everything else (the streamed array's
 * node stays, with its element count), or MG_ERROR when the text is not
 * such JSON, with err (may be NULL) filled: `path`:line:column and the
 * fault the reader stopped at.  An error returned by `element` stops
 * further calls and is returned in *element_error (the text is still
 * read to its end).
 */
typedef struct mg_json_tape mg_json_tape;   /* opaque: mg_json__tape_free */

enum mg_jtype {
	MG_J_OBJECT = 1, MG_J_ARRAY, MG_J_STRING, MG_J_NUMBER, MG_J_TRUE, MG_J_FALSE, MG_J_NULL
};
#define MG_J_NONE ((size_t)-1)      /* "no node" */

typedef int (*mg_json_element_fn)(void *ctx, const mg_json_tape *t, size_t node, size_t index);

/* Key comparisons the duplicate-key check of the streaming reader has made
 * (in this process): for tests that count work instead of timing it. */
extern size_t mg_json__key_compares;

/* keep: when not NULL, the NULL-terminated names of the root object's
 * members to record; the others are read and checked as strictly, but
 * leave no node on the tape (a large array under a key nobody reads costs
 * no memory). */
int mg_json__stream(mg_json_tape **out, const char *path, const char *text, size_t len,
		    const char *stream_key, const char *const *keep, mg_json_element_fn element,
		    void *ctx, int *element_error, mg_error *err);
void mg_json__tape_free(mg_json_tape *t);

/*
 * The faults the reader refuses a text for, one message each (memgate(1),
 * "JSON"): for tests and fuzz targets that hold the reader to cJSON.
 */
enum mg_json_fault_kind {
	MG_JF_NONE = 0,
	MG_JF_END,          /* malformed JSON: unexpected end of input */
	MG_JF_CHAR,         /* malformed JSON: unexpected character 'x' (or U+XXXX) */
	MG_JF_NUMBER,       /* malformed JSON: invalid number '01' */
	MG_JF_RANGE,        /* number '1e999' is out of range ... */
	MG_JF_UNTERMINATED, /* malformed JSON: unterminated string */
	MG_JF_CONTROL,      /* malformed JSON: unescaped control character U+0009 in string */
	MG_JF_ESCAPE,       /* malformed JSON: invalid escape sequence ... */
	MG_JF_HEX,          /* malformed JSON: invalid unicode escape ... */
	MG_JF_SURROGATE,    /* malformed JSON: unpaired surrogate in unicode escape */
	MG_JF_ESCAPED_NUL,  /* escaped NUL character '\u0000' is not supported */
	MG_JF_DUPLICATE,    /* duplicate key 'name' */
	MG_JF_TRAILING,     /* trailing text after the JSON document */
	MG_JF_DEPTH,        /* nesting deeper than 64 levels */
	MG_JF_NUL,          /* unexpected NUL byte */
	MG_JF_UTF8,         /* invalid UTF-8: ... */
	MG_JF_UTF16         /* text is UTF-16 encoded: JSON must be UTF-8 */
};

struct mg_json_fault {
	enum mg_json_fault_kind kind;
	size_t off;        /* the byte it is at */
	char what[512];    /* the message: a quoted name, escaped, fits whole */
};

/* Read text as mg_json__stream does, keeping no node: 0, or MG_ERROR with
 * *f the fault it stopped at (the one mg_json__stream reports). */
int mg_json__check(struct mg_json_fault *f, const char *text, size_t len);

/* The root node (0), a node's type, its position, its number of children
 * (members, elements; for the streamed array, the elements streamed). */
enum mg_jtype mg_json__tape_type(const mg_json_tape *t, size_t node);
mg_pos mg_json__tape_pos(const mg_json_tape *t, size_t node);
size_t mg_json__tape_count(const mg_json_tape *t, size_t node);

/* Children of an object or array: the first, then the next; MG_J_NONE at
 * the end. */
size_t mg_json__tape_first(const mg_json_tape *t, size_t node);
size_t mg_json__tape_next(const mg_json_tape *t, size_t parent, size_t node);

/* object[key], MG_J_NONE when absent, null, or `object` is not an object. */
size_t mg_json__tape_get(const mg_json_tape *t, size_t object, const char *key);

/* object[key] as mg_json__tape_get, but a null value is returned (for
 * "'key' must be a string, not null"). */
size_t mg_json__tape_member(const mg_json_tape *t, size_t object, const char *key);

/* Where an object member's key starts (its opening quote); the value's
 * position when the node is not a member; {0,0} for no node.  Counted
 * from the start of the text: for messages, not for loops. */
mg_pos mg_json__tape_key_pos(const mg_json_tape *t, size_t node);

/* "a string", "a number", "an object", "an array", "a boolean" or "null"
 * (also for MG_J_NONE): for messages such as "'source' must be an object,
 * not a string". */
const char *mg_json__tape_type_name(const mg_json_tape *t, size_t node);

/* A string node's text, decoded (malloc'd; the caller frees), and a number
 * node's value: the double nearest to it (as strtod reads it; the reader
 * refused any beyond a double), -0 as 0. */
char *mg_json__tape_strdup(const mg_json_tape *t, size_t node);

/* An object member's key, decoded (malloc'd; the caller frees). */
char *mg_json__tape_key(const mg_json_tape *t, size_t node);
double mg_json__tape_number(const mg_json_tape *t, size_t node);

#endif
