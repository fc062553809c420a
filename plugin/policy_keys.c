/*
 * The policy's keys (see policy_walk.h): the keys of each section, the
 * thresholds' from the decision core's table, and the message for a key
 * given twice, unknown ("did you mean") or in the wrong section.
 */
#include <stdio.h>
#include <string.h>

#include "hint.h"
#include "policy_walk.h"

/* The lists with an enum in policy_walk.h (K_, P_, W_, R_) are in its order. */
static const char *const root_keys[] = {
	"version", "manifest", "report", "identity", "budget", "quality",
	"evidence", "rank_by", "sensitivity", "gate", "waivers", "waivers_warn_days",
	"provenance", "regression", NULL
};
/* In the order of enum mg_ident. */
const char *const mg_policy__identity_keys[] = {
	"workload_id", "hardware_id", "model_id", "dtype", "amp_dtype",
	"batch_size", "seq_len", "optimizer", NULL
};
static const char *const evidence_keys[] = { "baseline", "min_repeats", "noise", "inputs", NULL };
static const char *const sensitivity_keys[] = { "stricter", "grid", NULL };
static const char *const gate_keys[] = { "fail_on", NULL };
static const char *const provenance_keys[] = {
	"allowed_signers", "namespace", "require", "signers", "approvers", NULL
};
/* regression's keys besides its thresholds, in this order after them */
static const char *const regression_keys[] = {
	"covers", "decision", "history", "history_max_commits", NULL
};
const char *const mg_policy__waiver_keys[] = {
	"candidate", "reason", "justification", "owner", "expires", NULL
};

_Static_assert(MG_ID_COUNT == 8 && MG_ID_OPTIMIZER == 7,
	       "mg_policy__identity_keys follows enum mg_ident");

/* The keys of each section; the thresholds' come from the decision core's
 * table (mg_threshold_def: budget, quality, or all of them in a scenario). */
static const struct {
	const char *name;            /* how a message names the section */
	const char *const *keys;     /* NULL-terminated, or NULL for thresholds */
	const char *thresholds;      /* with keys NULL: their section, "" for all
					but the regression's (a scenario's) */
	const char *const *extra;    /* with keys NULL: keys after the thresholds */
} sections[SEC_COUNT] = {
	[SEC_ROOT] = { "", root_keys, NULL, NULL },
	[SEC_IDENTITY] = { "identity", mg_policy__identity_keys, NULL, NULL },
	[SEC_BUDGET] = { "budget", NULL, "budget", NULL },
	[SEC_QUALITY] = { "quality", NULL, "quality", NULL },
	[SEC_EVIDENCE] = { "evidence", evidence_keys, NULL, NULL },
	[SEC_SENSITIVITY] = { "sensitivity", sensitivity_keys, NULL, NULL },
	[SEC_GATE] = { "gate", gate_keys, NULL, NULL },
	[SEC_REGRESSION] = { "regression", NULL, "regression", regression_keys },
	[SEC_OVERRIDE] = { "", NULL, "", NULL },
	[SEC_WAIVER] = { "waivers[]", mg_policy__waiver_keys, NULL, NULL },
	[SEC_PROVENANCE] = { "provenance", provenance_keys, NULL, NULL },
};

/* Room for a threshold section's keys: its thresholds and extra keys. */
#define KEYS_MAX (MG_THRESHOLD_COUNT + R_COUNT)

/* A section's keys, NULL-terminated; a threshold section's listed in buf
 * (in enum mg_threshold order, then its extra keys), with thresholds[k] the
 * enum of the k-th (MG_THRESHOLD_COUNT + j for the j-th extra key). */
static const char *const *section_keys(enum section sec, const char *buf[KEYS_MAX + 1],
				       int thresholds[KEYS_MAX])
{
	size_t n = 0, j;
	int t;

	if (sections[sec].keys)
		return sections[sec].keys;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = mg_threshold_def_of((enum mg_threshold)t);

		if (*sections[sec].thresholds ? !strcmp(def->section, sections[sec].thresholds)
					      : def->vs_base == MG_VS_NONE) {
			thresholds[n] = t;
			buf[n++] = def->key;
		}
	}
	for (j = 0; sections[sec].extra && sections[sec].extra[j]; j++) {
		thresholds[n] = MG_THRESHOLD_COUNT + (int)j;
		buf[n++] = sections[sec].extra[j];
	}
	buf[n] = NULL;
	return buf;
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
	mg_buf b = MG_BUF_INIT;

	if (home >= 0) {
		mg_buf_printf(&b, "'%s' belongs %s%s%s, not ", key->text,
			      home == SEC_ROOT ? "at the top level" : "under '",
			      sections[home].name, home == SEC_ROOT ? "" : "'");
		if (*where)
			mg_buf_printf(&b, "under '%s'", where);
		else
			mg_buf_puts(&b, "at the top level");
	} else if ((near = mg_hint_nearest(section_keys(sec, buf, t), key->text, key->len))) {
		mg_buf_printf(&b, "unknown key '%.64s' (did you mean '%s'?)", key->text, near);
	} else {
		mg_buf_printf(&b, "unknown key '%.64s' (expected one of: ", key->text);
		mg_hint_list(&b, section_keys(sec, buf, t));
		mg_buf_putc(&b, ')');
	}
	mg_error_at(w->err, w->path, key->pos, "%s", b.ptr);
	mg_buf_free(&b);
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
		if (prev->len == key->len && !memcmp(prev->text, key->text, key->len))
			return mg_error_at(w->err, w->path, key->pos,
					   "duplicate key '%.64s' (first at %d:%d)",
					   key->text, prev->pos.line, prev->pos.column);
	}
	*idx = mg_policy__key_find(section_keys(sec, buf, t), key->text, key->len);
	if (*idx < 0)
		return unknown_key(w, key, sec, where);
	if (!sections[sec].keys)
		*idx = t[*idx];     /* a threshold: its enum */
	return 0;
}
