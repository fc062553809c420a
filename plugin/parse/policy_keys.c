/*
 * The policy's keys (see policy_walk.h and memgate/policy.h): the table of
 * every key, which gives each section's keys (a threshold's name from the
 * decision core's table), and the message for a key given twice, unknown
 * ("did you mean") or in the wrong section.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hint.h"
#include "policy_walk.h"

/* Enum words for the rows (MG_KV_ENUM). */
static const char *noise_word(int i) { return mg_noise_mode_name((enum mg_noise_mode)i); }
static const char *rank_by_word(int i) { return mg_rank_by_name((enum mg_rank_by)i); }
static const char *covers_word(int i) { return mg_covers_name((enum mg_covers)i); }
static const char *noise_test_word(int i) { return mg_noise_test_name((enum mg_noise_test)i); }

_Static_assert(sizeof(enum mg_noise_mode) == sizeof(int) && sizeof(enum mg_rank_by) == sizeof(int) &&
	       sizeof(enum mg_covers) == sizeof(int) && sizeof(enum mg_noise_test) == sizeof(int),
	       "an MG_KV_ENUM field is read as an int");

#define AT(f) offsetof(mg_policy, f)
#define ROW(sec, key, kv, field, pos, move, schema) \
	{ sec, key, kv, AT(field), AT(pos), -1, NULL, { NULL, NULL }, move, schema }
/* a section, or a key compared with its section or entry */
#define PART(sec, key, schema) { sec, key, MG_KV_NONE, 0, 0, -1, NULL, { NULL, NULL }, MG_MOVE_NONE, schema }
#define PIN(key, id, schema) { SEC_IDENTITY, key, MG_KV_PIN, AT(rules.pin[id]), \
	AT(rules.pin[id].pos), id, NULL, { NULL, NULL }, MG_MOVE_PRESENCE, schema }
#define THRESHOLD(sec, t, limits) { sec, NULL, MG_KV_THRESHOLD, AT(limits), AT(threshold_pos[t]), \
	t, NULL, { NULL, NULL }, MG_MOVE_BOUND, "number" }
#define OVERRIDE(t) { SEC_OVERRIDE, NULL, MG_KV_NONE, 0, 0, t, NULL, { NULL, NULL }, \
	MG_MOVE_NONE, "number" }
#define ENUM(sec, key, field, pos, word, move) \
	{ sec, key, MG_KV_ENUM, AT(field), AT(pos), -1, word, { NULL, NULL }, move, "string" }
/* a list of strings and its count: who may sign, who may approve (adding
 * one where there was none narrows who may: presence) */
#define STRINGS(sec, key, field, count, pos) { sec, key, MG_KV_STRINGS, AT(field), AT(pos), \
	(int)AT(count), NULL, { NULL, NULL }, MG_MOVE_PRESENCE, "array" }
#define BOOL(sec, key, field, pos, no, yes, schema) \
	{ sec, key, MG_KV_BOOL, AT(field), AT(pos), -1, NULL, { no, yes }, MG_MOVE_ORDER, schema }

/*
 * Every key of the policy, in the order of the policy reference: a
 * section's row, then its keys (the order the reader lists them in; the
 * enums of policy_walk.h follow it).  A threshold's key (NULL here) is the
 * decision core's (mg_threshold_def); a threshold section lists them in
 * enum mg_threshold order, before its other keys.
 */
static const mg_policy_key rows[] = {
	PART(SEC_ROOT, "version", "integer"),
	ROW(SEC_ROOT, "manifest", MG_KV_STRING, manifest, manifest_pos, MG_MOVE_CHANGES, "string"),
	ROW(SEC_ROOT, "report", MG_KV_STRING, report, report_pos, MG_MOVE_CHANGES, "string"),
	PART(SEC_ROOT, "identity", "object"),
	PIN("workload_id", MG_ID_WORKLOAD, "number|string"),
	PIN("hardware_id", MG_ID_HARDWARE, "number|string"),
	PIN("model_id", MG_ID_MODEL, "number|string"),
	PIN("dtype", MG_ID_DTYPE, "number|string"),
	PIN("amp_dtype", MG_ID_AMP_DTYPE, "number|string"),
	PIN("batch_size", MG_ID_BATCH_SIZE, "number"),
	PIN("seq_len", MG_ID_SEQ_LEN, "number"),
	PIN("optimizer", MG_ID_OPTIMIZER, "number|string"),
	PART(SEC_ROOT, "budget", "object"),
	THRESHOLD(SEC_BUDGET, MG_MEMORY_CAP_MB, rules.budget),
	THRESHOLD(SEC_BUDGET, MG_MIN_SAMPLES_PER_S, rules.budget),
	THRESHOLD(SEC_BUDGET, MG_MIN_MEMORY_SAVING_MB, rules.budget),
	THRESHOLD(SEC_BUDGET, MG_MIN_THROUGHPUT_RATIO, rules.budget),
	THRESHOLD(SEC_BUDGET, MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT, rules.budget),
	PART(SEC_ROOT, "quality", "object"),
	THRESHOLD(SEC_QUALITY, MG_MAX_EVAL_LOSS, rules.budget),
	THRESHOLD(SEC_QUALITY, MG_MAX_RELATIVE_EVAL_LOSS, rules.budget),
	THRESHOLD(SEC_QUALITY, MG_MAX_QUALITY_DELTA, rules.budget),
	PART(SEC_ROOT, "evidence", "object"),
	ROW(SEC_EVIDENCE, "baseline", MG_KV_STRING, rules.baseline, baseline_pos,
	    MG_MOVE_CHANGES, "string"),
	ROW(SEC_EVIDENCE, "min_repeats", MG_KV_INT, rules.min_repeats, min_repeats_pos,
	    MG_MOVE_MORE, "integer"),
	ENUM(SEC_EVIDENCE, "noise", rules.noise, noise_pos, noise_word, MG_MOVE_ORDER),
	ROW(SEC_EVIDENCE, "inputs", MG_KV_INPUTS, inputs, inputs_pos, MG_MOVE_PRESENCE, "array"),
	ENUM(SEC_ROOT, "rank_by", rules.rank_by, rank_by_pos, rank_by_word, MG_MOVE_CHANGES),
	PART(SEC_ROOT, "sensitivity", "object"),
	ROW(SEC_SENSITIVITY, "stricter", MG_KV_STRICTER, rules.stricter, stricter_pos,
	    MG_MOVE_PRESENCE, "array"),
	ROW(SEC_SENSITIVITY, "grid", MG_KV_GRID, rules.grid, grid_pos, MG_MOVE_PRESENCE, "object"),
	OVERRIDE(MG_MEMORY_CAP_MB),
	OVERRIDE(MG_MIN_SAMPLES_PER_S),
	OVERRIDE(MG_MIN_MEMORY_SAVING_MB),
	OVERRIDE(MG_MIN_THROUGHPUT_RATIO),
	OVERRIDE(MG_MAX_EVAL_LOSS),
	OVERRIDE(MG_MAX_RELATIVE_EVAL_LOSS),
	OVERRIDE(MG_MAX_QUALITY_DELTA),
	OVERRIDE(MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT),
	PART(SEC_ROOT, "gate", "object"),
	ROW(SEC_GATE, "fail_on", MG_KV_VERDICTS, fail_on, fail_on_pos, MG_MOVE_SUBSET, "array"),
	ROW(SEC_ROOT, "waivers", MG_KV_WAIVERS, waivers, waivers, MG_MOVE_ENTRIES, "array"),
	PART(SEC_WAIVER, "candidate", "string"),
	PART(SEC_WAIVER, "reason", "string"),
	PART(SEC_WAIVER, "justification", "string"),
	PART(SEC_WAIVER, "owner", "string"),
	PART(SEC_WAIVER, "expires", "string"),
	PART(SEC_WAIVER, "up_to_pct", "number"),
	ROW(SEC_ROOT, "waivers_warn_days", MG_KV_INT, waivers_warn_days, waivers_warn_days_pos,
	    MG_MOVE_CHANGES, "integer"),
	PART(SEC_ROOT, "provenance", "object"),
	ROW(SEC_PROVENANCE, "allowed_signers", MG_KV_STRING, allowed_signers,
	    allowed_signers_pos, MG_MOVE_PRESENCE, "string"),
	ROW(SEC_PROVENANCE, "namespace", MG_KV_STRING, sig_namespace, sig_namespace_pos,
	    MG_MOVE_CHANGES, "string"),
	BOOL(SEC_PROVENANCE, "require", sig_required, sig_required_pos, "false", "true", "boolean"),
	STRINGS(SEC_PROVENANCE, "signers", signers, signer_count, signers_pos),
	STRINGS(SEC_PROVENANCE, "approvers", approvers, approver_count, approvers_pos),
	PART(SEC_ROOT, "regression", "object"),
	THRESHOLD(SEC_REGRESSION, MG_MAX_PEAK_INCREASE_MB, rules.regression.limits),
	THRESHOLD(SEC_REGRESSION, MG_MAX_PEAK_INCREASE_PCT, rules.regression.limits),
	THRESHOLD(SEC_REGRESSION, MG_MAX_THROUGHPUT_DROP_PCT, rules.regression.limits),
	THRESHOLD(SEC_REGRESSION, MG_MAX_EVAL_LOSS_INCREASE, rules.regression.limits),
	ENUM(SEC_REGRESSION, "covers", rules.regression.covers, regression_covers_pos,
	     covers_word, MG_MOVE_ORDER),
	BOOL(SEC_REGRESSION, "decision", rules.regression.reject, regression_decision_pos,
	     "tune", "reject", "string"),
	ROW(SEC_REGRESSION, "history", MG_KV_COUNT, rules.regression.history,
	    regression_history_pos, MG_MOVE_CHANGES, "integer"),
	ROW(SEC_REGRESSION, "history_max_commits", MG_KV_COUNT,
	    rules.regression.history_max_commits, regression_history_max_commits_pos,
	    MG_MOVE_CHANGES, "integer"),
	ENUM(SEC_REGRESSION, "noise_test", rules.regression.noise_test, regression_noise_test_pos,
	     noise_test_word, MG_MOVE_CHANGES),
	ROW(SEC_REGRESSION, "alpha", MG_KV_NUMBER, rules.regression.alpha, regression_alpha_pos,
	    MG_MOVE_MORE, "number"),
};
#undef AT
#undef ROW
#undef PART
#undef PIN
#undef THRESHOLD
#undef OVERRIDE
#undef ENUM
#undef BOOL
#undef STRINGS

#define KEY_COUNT (sizeof(rows) / sizeof(rows[0]))

/* How a message and a key's path name each section. */
static const char *const section_names[SEC_COUNT] = {
	[SEC_ROOT] = "", [SEC_IDENTITY] = "identity", [SEC_BUDGET] = "budget",
	[SEC_QUALITY] = "quality", [SEC_EVIDENCE] = "evidence",
	[SEC_SENSITIVITY] = "sensitivity", [SEC_GATE] = "gate", [SEC_REGRESSION] = "regression",
	[SEC_OVERRIDE] = "sensitivity.stricter[]", [SEC_WAIVER] = "waivers[]",
	[SEC_PROVENANCE] = "provenance",
};

const mg_policy_key *mg_policy_keys(size_t *n)
{
	*n = KEY_COUNT;
	return rows;
}

const char *mg_policy_section_name(int section)
{
	return section >= 0 && section < SEC_COUNT ? section_names[section] : NULL;
}

bool mg_policy_has_section(const mg_policy *p, int section)
{
	if (section == SEC_PROVENANCE)
		return p->provenance_set;
	if (section == SEC_REGRESSION)
		return mg_regression_active(&p->rules.regression);
	return true;
}

/* The key of row k: its own, or its threshold's. */
static const char *row_key(const mg_policy_key *k)
{
	return k->key ? k->key : mg_threshold_def_of((enum mg_threshold)k->arg)->key;
}

/* Room for the keys of the largest section (the top level's). */
#define KEYS_MAX 32

/* Whether a section's keys are thresholds (and its other keys after them). */
static bool has_thresholds(enum section sec)
{
	return sec == SEC_BUDGET || sec == SEC_QUALITY || sec == SEC_REGRESSION ||
	       sec == SEC_OVERRIDE;
}

/* A section's keys from the table, NULL-terminated, in buf, with idx[k] what
 * mg_policy__pair_key gives for the k-th: a threshold's enum, else the
 * index among the section's other keys (after MG_THRESHOLD_COUNT in a
 * threshold section). */
static const char *const *section_keys(enum section sec, const char *buf[KEYS_MAX + 1],
				       int idx[KEYS_MAX])
{
	size_t n = 0, i;
	int other = has_thresholds(sec) ? MG_THRESHOLD_COUNT : 0;

	for (i = 0; i < KEY_COUNT && n < KEYS_MAX; i++) {
		if (rows[i].section != (int)sec)
			continue;
		idx[n] = rows[i].key ? other++ : rows[i].arg;
		buf[n++] = row_key(&rows[i]);
	}
	buf[n] = NULL;
	return buf;
}

/* The name of key idx (as mg_policy__pair_key gives it) of section sec. */
const char *mg_policy__key_name(enum section sec, int idx)
{
	const char *buf[KEYS_MAX + 1];
	int t[KEYS_MAX];
	size_t k;

	section_keys(sec, buf, t);
	for (k = 0; buf[k]; k++)
		if (t[k] == idx)
			return buf[k];
	return "";
}

/* Index of the n-byte `key` in a NULL-terminated list, or -1. */
int mg_policy__key_find(const char *const *keys, const char *key, size_t n)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], key, n))
			return i;
	return -1;
}

/* The section (other than `here`) that knows `key`, or -1. */
static int home_section(const char *key, size_t n, enum section here)
{
	const char *buf[KEYS_MAX + 1];
	int s, t[KEYS_MAX];

	for (s = SEC_ROOT; s < SEC_OVERRIDE; s++)
		if (s != (int)here &&
		    mg_policy__key_find(section_keys((enum section)s, buf, t), key, n) >= 0)
			return s;
	return -1;
}

/* Report an unknown or misplaced key.  Always MG_ERROR. */
static int unknown_key(walk *w, const mg_yaml_node *key, enum section sec, const char *where)
{
	int home = home_section(key->text, key->len, sec), t[KEYS_MAX];
	const char *near, *buf[KEYS_MAX + 1];
	mg_buf b = MG_BUF_INIT, q = MG_BUF_INIT;

	if (home >= 0) {
		mg_buf_printf(&b, "'%s' belongs %s%s%s, not ", key->text,
			      home == SEC_ROOT ? "at the top level" : "under '",
			      section_names[home], home == SEC_ROOT ? "" : "'");
		if (*where)
			mg_buf_printf(&b, "under '%s'", where);
		else
			mg_buf_puts(&b, "at the top level");
	} else if ((near = mg_hint_nearest(section_keys(sec, buf, t), key->text, key->len))) {
		mg_buf_printf(&b, "unknown key '%s' (did you mean '%s'?)",
			      mg_policy__quote(&q, key->text, key->len, 64), near);
	} else {
		mg_buf_printf(&b, "unknown key '%s' (expected one of: ",
			      mg_policy__quote(&q, key->text, key->len, 64));
		mg_hint_list(&b, section_keys(sec, buf, t));
		mg_buf_putc(&b, ')');
	}
	mg_error_at(w->err, w->path, key->pos, "%s", b.ptr);
	mg_buf_free(&b);
	mg_buf_free(&q);
	return MG_ERROR;
}

/*
 * Check the key of the pair at kids[i] of `map`: a scalar, not given earlier
 * in the mapping, known in `sec`.  Sets *idx to its index in the section's
 * key list.  0 or MG_ERROR.
 */
int mg_policy__pair_key(int *idx, walk *w, const mg_yaml_node *map, size_t i,
			enum section sec, const char *where)
{
	const mg_yaml_node *key = map->kids[i], *prev;
	const char *buf[KEYS_MAX + 1];
	int t[KEYS_MAX];
	size_t j;

	if (key->kind == MG_YAML_MAP || key->kind == MG_YAML_SEQ)
		return mg_error_at(w->err, w->path, key->pos,
				   "expected a string key, got %s", mg_policy__describe(key));
	for (j = 0; j < i; j += 2) {
		prev = map->kids[j];
		if (prev->len == key->len && !memcmp(prev->text, key->text, key->len)) {
			mg_buf q = MG_BUF_INIT;

			mg_error_at(w->err, w->path, key->pos, "duplicate key '%s' (first at %d:%d)",
				    mg_policy__quote(&q, key->text, key->len, 64), prev->pos.line,
				    prev->pos.column);
			mg_buf_free(&q);
			return MG_ERROR;
		}
	}
	*idx = mg_policy__key_find(section_keys(sec, buf, t), key->text, key->len);
	if (*idx < 0)
		return unknown_key(w, key, sec, where);
	*idx = t[*idx];
	return 0;
}
