#ifndef MEMGATE_POLICY_WALK_H
#define MEMGATE_POLICY_WALK_H
/*
 * What the files of the policy share: the walk that maps the YAML tree of
 * plugin/parse/yaml.c to an mg_policy, checking every key and value in document
 * order; each error names path:line:column of the offending node.
 *
 *   policy.c             the top level (its own small keys and gate:), parse, free
 *   policy_keys.c        each section's keys: unknown, misplaced, duplicate ones
 *   policy_value.c       one value: a string, an integer, a threshold, a type error
 *   policy_screening.c   identity:, budget:, quality: (and a scenario's thresholds)
 *   policy_evidence.c    evidence:, provenance:
 *   policy_sensitivity.c sensitivity: (stricter, grid, the scenario limit)
 *   policy_regression.c  regression:
 *   policy_waivers.c     waivers:, waivers_warn_days:, the date format
 *
 * Every function here returns 0 or MG_ERROR (with w->err filled) unless it
 * says otherwise.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/buf.h"
#include "memgate/policy.h"
#include "yaml.h"

/* The mappings whose keys are checked (policy_keys.c's table lists each
 * one's: mg_policy_key.section). */
enum section { SEC_ROOT, SEC_IDENTITY, SEC_BUDGET, SEC_QUALITY, SEC_EVIDENCE,
	       SEC_SENSITIVITY, SEC_GATE, SEC_REGRESSION, SEC_OVERRIDE, SEC_WAIVER, SEC_PROVENANCE, SEC_COUNT };

/* The indexes of the keys of the top level, provenance, a waiver and
 * regression (besides its thresholds, in this order after them), in the
 * order of their rows in policy_keys.c's table (a test holds them to it). */
enum { K_VERSION, K_MANIFEST, K_REPORT, K_IDENTITY, K_BUDGET, K_QUALITY,
       K_EVIDENCE, K_RANK_BY, K_SENSITIVITY, K_GATE, K_WAIVERS, K_WAIVERS_WARN_DAYS,
       K_PROVENANCE, K_REGRESSION, K_COUNT };
enum { P_ALLOWED_SIGNERS, P_NAMESPACE, P_REQUIRE, P_SIGNERS, P_APPROVERS };
enum { W_CANDIDATE, W_REASON, W_JUSTIFICATION, W_OWNER, W_EXPIRES, W_UP_TO_PCT, W_COUNT };
enum { R_COVERS, R_DECISION, R_HISTORY, R_HISTORY_MAX_COMMITS, R_NOISE_TEST, R_ALPHA, R_COUNT };


/* One walk: the policy's path (for messages), the error, the policy filled. */
typedef struct walk {
	const char *path;
	mg_error *err;
	mg_policy *p;
} walk;

/* ---- keys (policy_keys.c) ---- */

/* The name of key idx (as mg_policy__pair_key gives it) of section sec. */
const char *mg_policy__key_name(enum section sec, int idx);

/* Index of the n-byte `key` in a NULL-terminated list, or -1. */
int mg_policy__key_find(const char *const *keys, const char *key, size_t n);

/*
 * Check the key of the pair at kids[i] of `map`: a scalar, not given earlier
 * in the mapping, known in `sec`.  Sets *idx to its index in the section's
 * key list (a threshold section's: the threshold's enum, or
 * MG_THRESHOLD_COUNT + j for its j-th other key).
 */
int mg_policy__pair_key(int *idx, walk *w, const mg_yaml_node *map, size_t i,
			enum section sec, const char *where);

/* ---- values (policy_value.c) ---- */

/* "where.key", or "key" at the top level, in buf; returns buf. */
const char *mg_policy__join(char *buf, size_t n, const char *where, const char *key);

/* Untrusted text of len bytes (a key, a scalar) for a message: escaped,
 * its first `max` bytes cut on a character's boundary and "..."
 * (mg_escape_text_max), into tmp, which the caller frees; returns tmp's
 * text. */
const char *mg_policy__quote(mg_buf *tmp, const char *s, size_t len, size_t max);

/* What n is, for messages: "a mapping", "a number", ... */
const char *mg_policy__describe(const mg_yaml_node *n);

/* "'where': expected <what>, got <kind of n>".  Always MG_ERROR. */
int mg_policy__type_error(walk *w, const mg_yaml_node *n, const char *where, const char *what);

int mg_policy__expect_map(walk *w, const mg_yaml_node *n, const char *where);

/* A non-empty string without NUL bytes, copied into *out (the caller's). */
int mg_policy__get_string(char **out, walk *w, const mg_yaml_node *n, const char *where);

/* An integer in [min, INT_MAX]. */
int mg_policy__get_int(double *out, walk *w, const mg_yaml_node *n, const char *where, int min);

/* A threshold's value: a finite number in the threshold's range. */
int mg_policy__get_threshold(double *out, walk *w, const mg_yaml_node *n, enum mg_threshold t,
			     const char *where);

/* ---- the sections (a file each, named above) ---- */

/* budget, quality and stricter entries: thresholds keyed by name; pos, when
 * not NULL, gets each value's position. */
int mg_policy__walk_thresholds(walk *w, const mg_yaml_node *map, enum section sec,
			       const char *where, mg_budget *b, mg_pos *pos);
int mg_policy__walk_budget(walk *w, const mg_yaml_node *map);
int mg_policy__walk_identity(walk *w, const mg_yaml_node *map);
int mg_policy__walk_evidence(walk *w, const mg_yaml_node *map);
int mg_policy__walk_provenance(walk *w, const mg_yaml_node *map);
int mg_policy__walk_sensitivity(walk *w, const mg_yaml_node *map);
int mg_policy__walk_regression(walk *w, const mg_yaml_node *map);
int mg_policy__walk_waivers(walk *w, const mg_yaml_node *seq);
int mg_policy__walk_warn_days(walk *w, const mg_yaml_node *n);

#endif
