/* Whether two decision records decide the same (mg_record_same,
 * include/memgate/record.h): record.c writes them. */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memgate/record.h"

/*
 * What changes between two runs on the same evidence, and so is left out
 * when a record is compared with an existing one: the commit ids
 * (inputs.rev, inputs.<x>.rev), the manifest and approved result (pinning a
 * record into the manifest changes both, and a later release check would
 * otherwise never re-record the same decision), the approved-record check,
 * the warnings (about the working tree, not the evidence), the base and the
 * regressions against it (another base, another comparison), the waivers'
 * judging date and days to expiry, and the version of memgate that wrote it
 * (an upgrade that decides the same is no change).  Where a value stands
 * decides which of its keys are left out.
 *
 * Records of the three forms compare too (memgate(1), "Record format
 * history"): schema_version memgate-decision/v1, v2 and v3 are equal; a
 * scenario's feasible set is compared by its size (feasible_count since
 * v2, or the length of v1's feasible_indices), its indices only when both
 * records list them (--record-feasible-sets): the same inputs give the same
 * set; and an evaluation's noise bands only for the measured metrics
 * (mg_metric_measured), which v3 alone lists: the others follow from them.
 * The layout (v3 writes a candidate a line) never counts.
 */
enum where { W_ANY, W_ROOT, W_INPUTS, W_INPUT, W_WAIVERS, W_ENTRIES, W_ENTRY, W_SENSITIVITY,
	     W_SCENARIOS, W_SCENARIO, W_EVALUATIONS, W_EVALUATION, W_NOISE, W_BANDS };

static const char *const *ignored(enum where w)
{
	static const char *const root[] = { "schema_version", "memgate_version", "warnings",
					     "notes", "approved", "base", "regression",
					     "proposed_policy", NULL };
	static const char *const inputs[] = { "rev", "manifest", "approved_result", NULL };
	static const char *const input[] = { "rev", NULL };
	static const char *const waivers[] = { "today", "today_from", NULL };
	static const char *const entry[] = { "expires_in_days", NULL };
	static const char *const scenario[] = { "feasible_count", "feasible_indices", NULL };
	static const char *const none[] = { NULL };

	switch (w) {
	case W_ROOT: return root;
	case W_INPUTS: return inputs;
	case W_INPUT: return input;
	case W_WAIVERS: return waivers;
	case W_ENTRY: return entry;
	case W_SCENARIO: return scenario;
	default: return none;
	}
}

/* Where a child stands: under key (NULL for an array's element) of a
 * container at w.  A member of inputs loses its rev only when inputs is an
 * object; a member or element of waivers.entries its expires_in_days. */
static enum where child_where(enum where w, const char *key)
{
	switch (w) {
	case W_ROOT:
		if (!key)
			return W_ANY;
		return !strcmp(key, "inputs") ? W_INPUTS : !strcmp(key, "waivers") ? W_WAIVERS :
		       !strcmp(key, "sensitivity") ? W_SENSITIVITY :
		       !strcmp(key, "evaluations") ? W_EVALUATIONS : W_ANY;
	case W_INPUTS: return key ? W_INPUT : W_ANY;
	case W_WAIVERS: return key && !strcmp(key, "entries") ? W_ENTRIES : W_ANY;
	case W_ENTRIES: return W_ENTRY;
	case W_SENSITIVITY: return key && !strcmp(key, "scenarios") ? W_SCENARIOS : W_ANY;
	case W_SCENARIOS: return key ? W_ANY : W_SCENARIO;
	case W_EVALUATIONS: return key ? W_ANY : W_EVALUATION;
	case W_EVALUATION: return key && !strcmp(key, "noise") ? W_NOISE : W_ANY;
	case W_NOISE: return key && !strcmp(key, "bands") ? W_BANDS : W_ANY;
	default: return W_ANY;
	}
}

/* A band of a metric that is not measured (v1 and v2 list them). */
static bool derived_band(const char *key)
{
	int m;

	for (m = 0; m < MG_METRIC_COUNT; m++)
		if (!mg_metric_measured((enum mg_metric_id)m) &&
		    !strcmp(key, mg_metric_name((enum mg_metric_id)m)))
			return true;
	return false;
}

static bool is_ignored(enum where w, const char *key)
{
	const char *const *k;

	if (w == W_BANDS)
		return derived_band(key);
	for (k = ignored(w); *k; k++)
		if (!strcmp(*k, key))
			return true;
	return false;
}

static bool same_value(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y,
		       enum where w);

/* How many members of object x count. */
static size_t counted(const mg_json_tape *t, size_t x, enum where w)
{
	size_t c, n = 0;

	for (c = mg_json__tape_first(t, x); c != MG_J_NONE; c = mg_json__tape_next(t, x, c)) {
		char *key = mg_json__tape_key(t, c);

		n += !is_ignored(w, key);
		free(key);
	}
	return n;
}

/* A string member of object x: its text (the caller frees), or NULL. */
static char *string_member(const mg_json_tape *t, size_t x, const char *key)
{
	size_t c = mg_json__tape_get(t, x, key);

	return c != MG_J_NONE && mg_json__tape_type(t, c) == MG_J_STRING ?
	       mg_json__tape_strdup(t, c) : NULL;
}

/* The record's form: 1, 2 or 3 for memgate-decision/v1, v2 or v3, else 0. */
static int record_form(const char *version)
{
	return !version ? 0 : !strcmp(version, "memgate-decision/v1") ? 1 :
	       !strcmp(version, "memgate-decision/v2") ? 2 :
	       !strcmp(version, "memgate-decision/v3") ? 3 : 0;
}

/* The roots' schema versions: equal, or the two forms of the record. */
static bool same_version(const mg_json_tape *a, const mg_json_tape *b)
{
	char *s = string_member(a, 0, "schema_version"), *t = string_member(b, 0, "schema_version");
	bool same = (!s && !t && mg_json__tape_get(a, 0, "schema_version") == MG_J_NONE &&
		     mg_json__tape_get(b, 0, "schema_version") == MG_J_NONE) ||
		    (s && t && (!strcmp(s, t) || (record_form(s) && record_form(t))));

	free(s);
	free(t);
	return same;
}

/* A scenario's feasible set size: feasible_count (v2), else the length of
 * feasible_indices (v1); SIZE_MAX when it has neither. */
static size_t feasible_size(const mg_json_tape *t, size_t x)
{
	size_t c = mg_json__tape_get(t, x, "feasible_count");

	double n;

	if (c != MG_J_NONE && mg_json__tape_type(t, c) == MG_J_NUMBER) {
		n = mg_json__tape_number(t, c);
		return n >= 0 && n < 9007199254740992.0 ? (size_t)n : SIZE_MAX;
	}
	c = mg_json__tape_get(t, x, "feasible_indices");
	if (c != MG_J_NONE && mg_json__tape_type(t, c) == MG_J_ARRAY)
		return mg_json__tape_count(t, c);
	return SIZE_MAX;
}

/* Two scenarios' feasible sets: the same size, and the same indices when
 * both list them. */
static bool same_feasible(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y)
{
	size_t c = mg_json__tape_get(a, x, "feasible_indices");
	size_t d = mg_json__tape_get(b, y, "feasible_indices");

	if (feasible_size(a, x) != feasible_size(b, y))
		return false;
	return c == MG_J_NONE || d == MG_J_NONE || same_value(a, c, b, d, W_ANY);
}

/* Every member of x that counts has its equal in y, and y has no more.
 * (Keys are unique: the reader refuses duplicates.) */
static bool same_object(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y,
			enum where w)
{
	bool ok = w != W_SCENARIO || same_feasible(a, x, b, y);
	size_t c, d, n = 0;

	for (c = mg_json__tape_first(a, x); ok && c != MG_J_NONE; c = mg_json__tape_next(a, x, c)) {
		char *key = mg_json__tape_key(a, c);

		if (!is_ignored(w, key)) {
			n++;
			d = mg_json__tape_member(b, y, key);
			ok = d != MG_J_NONE && same_value(a, c, b, d, child_where(w, key));
		}
		free(key);
	}
	return ok && n == counted(b, y, w);
}

static bool same_array(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y,
		       enum where w)
{
	size_t c = mg_json__tape_first(a, x), d = mg_json__tape_first(b, y);

	for (; c != MG_J_NONE && d != MG_J_NONE;
	     c = mg_json__tape_next(a, x, c), d = mg_json__tape_next(b, y, d))
		if (!same_value(a, c, b, d, child_where(w, NULL)))
			return false;
	return c == MG_J_NONE && d == MG_J_NONE;
}

/* Numbers as cJSON_Compare compares them (its compare_double): equal
 * within a relative DBL_EPSILON. */
static bool same_number(double a, double b)
{
	double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= max * DBL_EPSILON;
}

static bool same_string(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y)
{
	char *s = mg_json__tape_strdup(a, x), *t = mg_json__tape_strdup(b, y);
	bool same = !strcmp(s, t);

	free(s);
	free(t);
	return same;
}

/* As cJSON_Compare (case-sensitive) on the two values, with what changes
 * between runs left out: same types, members in any order. */
static bool same_value(const mg_json_tape *a, size_t x, const mg_json_tape *b, size_t y,
		       enum where w)
{
	enum mg_jtype type = mg_json__tape_type(a, x);

	if (type != mg_json__tape_type(b, y))
		return false;
	switch (type) {
	case MG_J_OBJECT: return same_object(a, x, b, y, w);
	case MG_J_ARRAY: return same_array(a, x, b, y, w);
	case MG_J_STRING: return same_string(a, x, b, y);
	case MG_J_NUMBER: return same_number(mg_json__tape_number(a, x), mg_json__tape_number(b, y));
	default: return true;
	}
}

/* len bytes read by the strict reader as one JSON object; NULL when they
 * are anything else. */
static mg_json_tape *read_object(const char *text, size_t len)
{
	mg_json_tape *t = NULL;

	if (mg_json__stream(&t, NULL, text, len, NULL, NULL, NULL, NULL, NULL, NULL) == MG_OK &&
	    mg_json__tape_type(t, 0) == MG_J_OBJECT)
		return t;
	mg_json__tape_free(t);
	return NULL;
}

int mg_record_same(bool *same, const char *existing, size_t existing_len,
		   const char *fresh, mg_error *err)
{
	mg_json_tape *old = NULL, *now = NULL;
	int error = MG_ERROR;

	assert(same && existing && fresh);
	*same = false;
	if (!(old = read_object(existing, existing_len))) {
		mg_error_set(err, NULL, 0, 0, "existing record is not a JSON object");
		goto done;
	}
	if (!(now = read_object(fresh, strlen(fresh)))) {
		mg_error_set(err, NULL, 0, 0, "new record is not a JSON object");
		goto done;
	}
	*same = same_version(old, now) && same_value(old, 0, now, 0, W_ROOT);
	error = MG_OK;
done:
	mg_json__tape_free(old);
	mg_json__tape_free(now);
	return error;
}
