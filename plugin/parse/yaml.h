#ifndef MEMGATE_PLUGIN_YAML_H
#define MEMGATE_PLUGIN_YAML_H
/*
 * Strict YAML loading for the policy (private: the policy module's reader,
 * as json.h is the report's).
 *
 * Runs libyaml's event parser and builds a small tree of memgate's own,
 * refusing on the way what must never reach a walk: aliases (at the alias),
 * anchors, tags outside the YAML core schema, a second document, nesting
 * deeper than MG_POLICY_MAX_DEPTH (checked per event, so a pathological
 * input stops after a few bytes), over-long scalars and more than
 * MG_POLICY_MAX_NODES values.  Plain scalars are resolved with the YAML 1.2
 * core schema (null, bool, int in base 10, 8 and 16, float, .inf, .nan);
 * every node keeps its 1-based position.
 */
#include <stdbool.h>
#include <stddef.h>

#include "memgate/error.h"

enum mg_yaml_kind { MG_YAML_MAP, MG_YAML_SEQ, MG_YAML_NULL, MG_YAML_BOOL, MG_YAML_INT, MG_YAML_FLOAT, MG_YAML_STR };

typedef struct mg_yaml_node {
	enum mg_yaml_kind kind;
	mg_pos pos;          /* start of the node (its anchor or tag included) */
	char *text;          /* scalars: the content, NUL-terminated */
	size_t len;          /* scalars: bytes in text (may hold a NUL) */
	bool quoted_number;  /* quoted, but its text reads as a number */
	double num;          /* MG_YAML_INT, MG_YAML_FLOAT */
	struct mg_yaml_node **kids; /* MG_YAML_SEQ: items; MG_YAML_MAP: key, value, key, value... */
	size_t count;
	size_t cap;
} mg_yaml_node;

/*
 * Load len bytes of YAML read from `path` into *out (NULL for a stream with
 * no document).  Errors name path:line:column.  *out is the caller's: free
 * it with mg_yaml__free, which accepts NULL.
 */
int mg_yaml__load(mg_yaml_node **out, const char *path, const char *text, size_t len,
		  mg_error *err);
void mg_yaml__free(mg_yaml_node *n);

#endif
