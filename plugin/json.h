#ifndef MEMGATE_PLUGIN_JSON_H
#define MEMGATE_PLUGIN_JSON_H
/*
 * Strict JSON reading shared by the report, manifest and record modules
 * (private: includes cJSON.h).
 *
 * cJSON parses; this adds what it lacks: refusing NUL bytes, invalid UTF-8,
 * trailing text and duplicate keys (cJSON keeps both and returns the first),
 * a nesting limit, and 1-based line:column positions for every value and
 * key (cJSON keeps none), so that later errors and annotations can point at
 * the exact line.
 */
#include <cjson/cJSON.h>
#include <stddef.h>

#include "memgate/error.h"

typedef struct mg_json mg_json;   /* opaque: the cJSON tree and its positions */

#ifndef MG_JSON_MAX_DEPTH   /* raise: make EXTRA_CFLAGS=-DMG_JSON_MAX_DEPTH=N */
#define MG_JSON_MAX_DEPTH 64
#endif

/*
 * Parse len bytes of text read from `path`.  Errors name path:line:column:
 * malformed JSON (where cJSON stopped), NUL byte, invalid UTF-8, trailing
 * text, a duplicate key (at its second occurrence), nesting deeper than
 * max_depth (0 = MG_JSON_MAX_DEPTH).  On success *out is the caller's.
 */
int mg_json__parse(mg_json **out, const char *path, const char *text,
		   size_t len, size_t max_depth, mg_error *err);

/* The root value; borrowed for the life of j. */
const cJSON *mg_json__root(const mg_json *j);

/* Where a value starts (the '{' of an object); {0,0} for a node not in j. */
mg_pos mg_json__pos(const mg_json *j, const cJSON *node);

/* Where an object member's key starts; its value position when the node is
 * not an object member. */
mg_pos mg_json__key_pos(const mg_json *j, const cJSON *node);

/* Case-sensitive member lookup that treats a null value as absent. */
const cJSON *mg_json__get(const cJSON *object, const char *key);

/* "a string", "a number", "an object", "an array", "a boolean" or "null":
 * for messages such as "'source' must be an object, not a string". */
const char *mg_json__type_name(const cJSON *v);

void mg_json__free(mg_json *j);

/*
 * Writing (the SARIF and Code Quality renderers).  Allocation failure
 * aborts, as mg_xmalloc does.
 */

/* A JSON string holding s as valid UTF-8 (mg_escape_utf8); null for NULL. */
cJSON *mg_json__new_string(const char *s);
/* Add item to an object under key, or to an array when key is NULL;
 * returns the item. */
cJSON *mg_json__add(cJSON *parent, const char *key, cJSON *item);
/* The tree as pretty JSON and a newline, each "##[" written "##\u005b"
 * (no legacy GitHub command when the file is shown in a log); deletes the
 * tree; malloc'd. */
char *mg_json__print(cJSON *root);
/* The same on one line. */
char *mg_json__print_line(cJSON *root);

#endif
