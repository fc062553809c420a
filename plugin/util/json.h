#ifndef MEMGATE_PLUGIN_JSON_H
#define MEMGATE_PLUGIN_JSON_H
/*
 * JSON for the parsers and renderers (private).
 *
 * Reading: one strict reader (json_stream.c), which refuses what cJSON
 * would let through: NUL bytes, invalid UTF-8, trailing text, duplicate
 * keys (cJSON keeps both and returns the first), nesting deeper than
 * MG_JSON_MAX_DEPTH, and what RFC 8259 does not allow; and records the
 * 1-based line:column position of every value (cJSON keeps none), so that
 * later errors and annotations can point at the exact line.  When it
 * refuses a text, mg_json__explain says why and where (json_explain.c).
 *
 * Writing: json_write.h, the one writer; here only a tape node written
 * again through it (mg_json__write_tape).
 */
#include <stddef.h>

#include "memgate/error.h"
#include "memgate/limits.h"   /* MG_JSON_MAX_DEPTH, MG_JSON_EXPLAIN_TREE_MAX */

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
 * bytes, duplicate keys or \u0000, with long numbers as the linked cJSON
 * reads them and nesting of at most MG_JSON_MAX_DEPTH; it records the
 * values in a tape: a flat array of nodes in text order, each with its
 * 1-based position.  Without `stream_key` the tape holds the whole
 * document.  With it, the elements of the root object's member
 * `stream_key` (when it is an array) are handed to `element` one at a
 * time, each while its nodes are on the tape, and then dropped: a report
 * of 10^5 candidates never exists as one tree.
 *
 * Returns 0 with *out the tape of everything else (the streamed array's
 * node stays, with its element count), or MG_ERROR when the text is not
 * such JSON: the caller asks mg_json__explain for the message.  An error
 * returned by `element` stops further calls and is returned in
 * *element_error (the text is still read to its end).
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
int mg_json__stream(mg_json_tape **out, const char *text, size_t len, const char *stream_key,
		    const char *const *keep, mg_json_element_fn element, void *ctx,
		    int *element_error);
void mg_json__tape_free(mg_json_tape *t);

/*
 * Say why mg_json__stream refused `text`: MG_ERROR, err filled with
 * path:line:column and the first fault.  A text of at most
 * MG_JSON_EXPLAIN_TREE_MAX bytes (limits.h) is explained in the order the
 * project has always named faults: bytes (NUL, UTF-8, UTF-16, depth); then
 * where cJSON stops reading it (cJSON builds its tree, deleted at once);
 * then, in text order, what cJSON reads but RFC 8259 refuses, duplicate
 * keys and trailing text.  A longer text is explained without a tree, so
 * that the error costs no more than the read it explains: the same checks
 * of bytes, UTF-8 and depth, then the reader again, keeping no node, for
 * the first duplicate key it meets, the place where it stops, or trailing
 * text.  (Where a long text has several faults, the one named may then
 * differ from the one a shorter text's explanation would choose.)
 */
int mg_json__explain(const char *path, const char *text, size_t len, mg_error *err);

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
 * node's value as cJSON reads it (strtod: 1e999 is infinity). */
char *mg_json__tape_strdup(const mg_json_tape *t, size_t node);

/* An object member's key, decoded (malloc'd; the caller frees). */
char *mg_json__tape_key(const mg_json_tape *t, size_t node);
double mg_json__tape_number(const mg_json_tape *t, size_t node);

#endif
