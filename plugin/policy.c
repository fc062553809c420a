/*
 * The budget policy (memgate(1), POLICY): see include/memgate/policy.h.
 *
 * plugin/yaml.c loads the text into a tree, refusing what must never reach
 * a walk (aliases, anchors, foreign tags, a second document, deep nesting).
 * Here the walk_*() functions map that tree to rules: they check every key
 * and value in document order and fill the mg_policy; each error names
 * path:line:column of the offending node.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/policy.h"
#include "yaml.h"

/* ------------------------------------------------------------------ */
/* Keys: sections, suggestions, duplicates                            */

enum section { SEC_ROOT, SEC_IDENTITY, SEC_BUDGET, SEC_QUALITY, SEC_EVIDENCE,
	       SEC_SENSITIVITY, SEC_GATE, SEC_REGRESSION, SEC_OVERRIDE, SEC_WAIVER, SEC_PROVENANCE, SEC_COUNT };

enum { K_VERSION, K_MANIFEST, K_REPORT, K_IDENTITY, K_BUDGET, K_QUALITY,
       K_EVIDENCE, K_RANK_BY, K_SENSITIVITY, K_GATE, K_WAIVERS, K_WAIVERS_WARN_DAYS,
       K_PROVENANCE, K_REGRESSION, K_COUNT };

static const char *const root_keys[] = {
	"version", "manifest", "report", "identity", "budget", "quality",
	"evidence", "rank_by", "sensitivity", "gate", "waivers", "waivers_warn_days",
	"provenance", "regression", NULL
};
/* In the order of enum mg_ident. */
static const char *const identity_keys[] = {
	"workload_id", "hardware_id", "model_id", "dtype", "amp_dtype",
	"batch_size", "seq_len", "optimizer", NULL
};
static const char *const evidence_keys[] = { "baseline", "min_repeats", "noise", "inputs", NULL };
static const char *const sensitivity_keys[] = { "stricter", "grid", NULL };
static const char *const gate_keys[] = { "fail_on", NULL };
enum { P_ALLOWED_SIGNERS, P_NAMESPACE, P_REQUIRE };
static const char *const provenance_keys[] = { "allowed_signers", "namespace", "require", NULL };
enum { W_CANDIDATE, W_REASON, W_JUSTIFICATION, W_OWNER, W_EXPIRES, W_COUNT };
/* regression's keys besides its thresholds, in this order after them */
enum { R_COVERS, R_DECISION, R_HISTORY, R_HISTORY_MAX_COMMITS, R_COUNT };
static const char *const regression_keys[] = {
	"covers", "decision", "history", "history_max_commits", NULL
};
static const char *const waiver_keys[] = {
	"candidate", "reason", "justification", "owner", "expires", NULL
};

_Static_assert(MG_ID_COUNT == 8 && MG_ID_OPTIMIZER == 7,
	       "identity_keys follows enum mg_ident");

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
	[SEC_IDENTITY] = { "identity", identity_keys, NULL, NULL },
	[SEC_BUDGET] = { "budget", NULL, "budget", NULL },
	[SEC_QUALITY] = { "quality", NULL, "quality", NULL },
	[SEC_EVIDENCE] = { "evidence", evidence_keys, NULL, NULL },
	[SEC_SENSITIVITY] = { "sensitivity", sensitivity_keys, NULL, NULL },
	[SEC_GATE] = { "gate", gate_keys, NULL, NULL },
	[SEC_REGRESSION] = { "regression", NULL, "regression", regression_keys },
	[SEC_OVERRIDE] = { "", NULL, "", NULL },
	[SEC_WAIVER] = { "waivers[]", waiver_keys, NULL, NULL },
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
static int key_find(const char *const *keys, const char *key, size_t n)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], key, n))
			return i;
	return -1;
}

/* Levenshtein distance between a[0..alen) and b (strlen(b) < 64). */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
	size_t row[64], blen = strlen(b), i, j, diag, up, best;

	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[blen];
}

/* The known word nearest to `word`, when near enough to be a typo; or NULL. */
static const char *nearest(const char *const *words, const char *word, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, d, limit;
	int i;

	if (n > 48)
		return NULL;
	for (i = 0; words[i]; i++) {
		d = edit_distance(word, n, words[i]);
		limit = strlen(words[i]) / 2 > 2 ? strlen(words[i]) / 2 : 2;
		if (d < best_d && d <= limit && d < n) {
			best = words[i];
			best_d = d;
		}
	}
	return best;
}

static void list_words(mg_buf *b, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		mg_buf_printf(b, "%s%s", i ? ", " : "", words[i]);
}

/* The section (other than `here`) that knows `key`, or -1. */
static int home_section(const char *key, size_t n, enum section here)
{
	const char *buf[KEYS_MAX + 1];
	int s, t[KEYS_MAX];

	for (s = SEC_ROOT; s < SEC_OVERRIDE; s++)
		if (s != (int)here && key_find(section_keys((enum section)s, buf, t), key, n) >= 0)
			return s;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The walk                                                           */

typedef struct walk {
	const char *path;
	mg_error *err;
	mg_policy *p;
} walk;

/* "where.key", or "key" at the top level. */
static const char *join(char *buf, size_t n, const char *where, const char *key)
{
	snprintf(buf, n, "%s%s%s", where, *where ? "." : "", key);
	return buf;
}

static const char *describe(const mg_yaml_node *n)
{
	switch (n->kind) {
	case MG_YAML_MAP: return "a mapping";
	case MG_YAML_SEQ: return "a sequence";
	case MG_YAML_NULL: return "null";
	case MG_YAML_BOOL: return "a boolean";
	case MG_YAML_INT:
	case MG_YAML_FLOAT: return "a number";
	default: return "a string";
	}
}

/* "'where': expected <what>, got <kind of n>".  Always MG_ERROR. */
static int type_error(walk *w, const mg_yaml_node *n, const char *where, const char *what)
{
	if (n->kind == MG_YAML_FLOAT && !strcmp(what, "an integer"))
		return mg_error_at(w->err, w->path, n->pos, "'%s': expected an integer, got '%.40s'",
				   where, n->text);
	return mg_error_at(w->err, w->path, n->pos, "'%s': expected %s, got %s",
			   where, what, describe(n));
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
	} else if ((near = nearest(section_keys(sec, buf, t), key->text, key->len))) {
		mg_buf_printf(&b, "unknown key '%.64s' (did you mean '%s'?)", key->text, near);
	} else {
		mg_buf_printf(&b, "unknown key '%.64s' (expected one of: ", key->text);
		list_words(&b, section_keys(sec, buf, t));
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
static int pair_key(int *idx, walk *w, const mg_yaml_node *map, size_t i, enum section sec,
		    const char *where)
{
	const mg_yaml_node *key = map->kids[i], *prev;
	const char *buf[KEYS_MAX + 1];
	int t[KEYS_MAX];
	size_t j;

	if (key->kind == MG_YAML_MAP || key->kind == MG_YAML_SEQ)
		return mg_error_at(w->err, w->path, key->pos,
				   "expected a string key, got %s", describe(key));
	for (j = 0; j < i; j += 2) {
		prev = map->kids[j];
		if (prev->len == key->len && !memcmp(prev->text, key->text, key->len))
			return mg_error_at(w->err, w->path, key->pos,
					   "duplicate key '%.64s' (first at %d:%d)",
					   key->text, prev->pos.line, prev->pos.column);
	}
	*idx = key_find(section_keys(sec, buf, t), key->text, key->len);
	if (*idx < 0)
		return unknown_key(w, key, sec, where);
	if (!sections[sec].keys)
		*idx = t[*idx];     /* a threshold: its enum */
	return 0;
}

static int expect_map(walk *w, const mg_yaml_node *n, const char *where)
{
	return n->kind == MG_YAML_MAP ? 0 : type_error(w, n, where, "a mapping");
}

/* A non-empty string without NUL bytes, copied into *out (the caller's). */
static int get_string(char **out, walk *w, const mg_yaml_node *n, const char *where)
{
	if (n->kind != MG_YAML_STR)
		return type_error(w, n, where, "a string");
	if (!n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must not be empty", where);
	if (strlen(n->text) != n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' contains a NUL byte", where);
	*out = mg_xstrdup(n->text);
	return 0;
}

/* An integer in [min, INT_MAX].  0 or MG_ERROR. */
static int get_int(double *out, walk *w, const mg_yaml_node *n, const char *where, int min)
{
	if (n->kind != MG_YAML_INT)
		return type_error(w, n, where, "an integer");
	if (n->num < min)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at least %d, got '%.40s'",
				   where, min, n->text);
	if (n->num > INT_MAX)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at most %d, got '%.40s'",
				   where, INT_MAX, n->text);
	*out = n->num;
	return 0;
}

/* How a message says each range of enum mg_range. */
static const char *const range_words[] = {
	[MG_RANGE_POSITIVE] = "greater than 0",
	[MG_RANGE_FRACTION] = "between 0 and 1",
	[MG_RANGE_NON_NEGATIVE] = "at least 0",
};

/* A threshold's value: a finite number in the threshold's range. */
static int get_threshold(double *out, walk *w, const mg_yaml_node *n, enum mg_threshold t,
			 const char *where)
{
	const char *range = NULL;

	if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT) {
		if (n->kind == MG_YAML_STR && n->quoted_number)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s': expected a number, got a string (numbers are written without quotes)",
					   where);
		return type_error(w, n, where, "a number");
	}
	if (!isfinite(n->num))
		return mg_error_at(w->err, w->path, n->pos,
				   "'%s' must be a finite number, got '%.40s'", where, n->text);
	if (!mg_threshold_accepts(t, n->num))
		range = range_words[mg_threshold_def_of(t)->range];
	if (range)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be %s, got '%.40s'",
				   where, range, n->text);
	*out = n->num;
	return 0;
}

/* budget, quality and stricter entries: thresholds keyed by name. */
static int walk_thresholds(walk *w, const mg_yaml_node *map, enum section sec, const char *where,
			   mg_budget *b, mg_pos *pos)
{
	int idx, error = 0;
	char sub[96];
	size_t i;

	if ((error = expect_map(w, map, where)) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, sec, where)) < 0)
			goto done;
		join(sub, sizeof(sub), where, mg_threshold_name((enum mg_threshold)idx));
		if ((error = get_threshold(&b->value[idx], w, map->kids[i + 1],
					   (enum mg_threshold)idx, sub)) < 0)
			goto done;
		b->set[idx] = true;
		if (pos)
			pos[idx] = map->kids[i + 1]->pos;
	}
done:
	return error;
}

static int walk_budget(walk *w, const mg_yaml_node *map)
{
	int error;

	error = walk_thresholds(w, map, SEC_BUDGET, "budget", &w->p->rules.budget,
				w->p->threshold_pos);
	if (error == 0 && !w->p->rules.budget.set[MG_MEMORY_CAP_MB])
		error = mg_error_at(w->err, w->path, map->pos,
				    "missing required key 'memory_cap_mb' in 'budget'");
	return error;
}

/* An identity value: a finite number or a non-empty string; a count
 * (batch_size, seq_len) is a number of at least 1. */
static int get_pin(mg_value *v, walk *w, const mg_yaml_node *n, const char *where, bool counts)
{
	int error;

	if (counts) {
		/* A count compares as a number: 1.0 pins what a report's 1 is. */
		if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT)
			return type_error(w, n, where, "a number");
		if (!isfinite(n->num) || n->num < 1)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number of at least 1, got '%.40s'",
					   where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == MG_YAML_INT || n->kind == MG_YAML_FLOAT) {
		if (!isfinite(n->num))
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number, got '%.40s'", where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == MG_YAML_STR) {
		if ((error = get_string(&v->string, w, n, where)) < 0)
			return error;
		v->kind = MG_VALUE_STRING;
	} else {
		return type_error(w, n, where, "a string or a number");
	}
	v->pos = n->pos;
	return 0;
}

static int walk_identity(walk *w, const mg_yaml_node *map)
{
	mg_value *pin = w->p->rules.pin;
	char sub[64];
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "identity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_IDENTITY, "identity")) < 0)
			goto done;
		join(sub, sizeof(sub), "identity", identity_keys[idx]);
		if ((error = get_pin(&pin[idx], w, map->kids[i + 1], sub,
				     idx == MG_ID_BATCH_SIZE || idx == MG_ID_SEQ_LEN)) < 0)
			goto done;
	}
	for (idx = MG_ID_WORKLOAD; idx <= MG_ID_HARDWARE && error == 0; idx++)
		if (pin[idx].kind == MG_VALUE_ABSENT)
			error = mg_error_at(w->err, w->path, map->pos,
					    "missing required key '%s' in 'identity'",
					    identity_keys[idx]);
done:
	return error;
}

/* evidence.noise: warn | tune. */
static int walk_noise(walk *w, const mg_yaml_node *n)
{
	int mode;

	w->p->noise_pos = n->pos;
	if (n->kind != MG_YAML_STR)
		return type_error(w, n, "evidence.noise", "a string");
	if ((mode = mg_noise_mode_from_name(n->text)) < 0)
		return mg_error_at(w->err, w->path, n->pos,
				   "'evidence.noise' must be '%s' or '%s', got '%.40s'",
				   mg_noise_mode_name(MG_NOISE_WARN),
				   mg_noise_mode_name(MG_NOISE_TUNE), n->text);
	w->p->rules.noise = (enum mg_noise_mode)mode;
	return 0;
}

/* evidence.inputs: a non-empty list of non-empty pathspecs (checked as
 * pathspecs when they are used, by the git layer). */
static int walk_inputs(walk *w, const mg_yaml_node *seq)
{
	mg_policy *p = w->p;
	char where[64];
	size_t i;
	int error = 0;

	p->inputs_pos = seq->pos;
	if (seq->kind != MG_YAML_SEQ)
		return type_error(w, seq, "evidence.inputs", "a sequence");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos,
				   "'evidence.inputs' is empty: list at least one pathspec, "
				   "or remove the key");
	if (seq->count > MG_POLICY_MAX_INPUTS)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_INPUTS]->pos,
				   "'evidence.inputs' has more than %d entries", MG_POLICY_MAX_INPUTS);
	p->inputs = mg_xcalloc(seq->count, sizeof(*p->inputs));
	p->input_pos = mg_xcalloc(seq->count, sizeof(*p->input_pos));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(where, sizeof(where), "evidence.inputs[%zu]", i);
		p->input_pos[i] = seq->kids[i]->pos;
		if ((error = get_string(&p->inputs[i], w, seq->kids[i], where)) == 0)
			p->input_count++;
	}
	return error;
}

static int walk_evidence(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	double repeats = 0;
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "evidence")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		if ((error = pair_key(&idx, w, map, i, SEC_EVIDENCE, "evidence")) < 0)
			goto done;
		if (idx == 0) {
			free(p->rules.baseline);
			p->rules.baseline = NULL;
			error = get_string(&p->rules.baseline, w, v, "evidence.baseline");
			p->baseline_pos = v->pos;
		} else if (idx == 2) {
			error = walk_noise(w, v);
		} else if (idx == 3) {
			error = walk_inputs(w, v);
		} else {
			/* repeats is only set on success: never convert it otherwise */
			if ((error = get_int(&repeats, w, v, "evidence.min_repeats", 1)) == 0)
				p->rules.min_repeats = (int)repeats;
			p->min_repeats_pos = v->pos;
		}
		if (error < 0)
			goto done;
	}
done:
	return error;
}

static int walk_stricter(walk *w, const mg_yaml_node *seq)
{
	mg_rules *r = &w->p->rules;
	char where[64];
	size_t i;
	int error = 0;

	if (seq->kind != MG_YAML_SEQ)
		return type_error(w, seq, "sensitivity.stricter", "a sequence");
	if (seq->count > MG_POLICY_MAX_STRICTER)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_STRICTER]->pos,
				   "'sensitivity.stricter' has more than %d entries",
				   MG_POLICY_MAX_STRICTER);
	r->stricter = mg_xcalloc(seq->count, sizeof(*r->stricter));
	w->p->stricter_pos = mg_xcalloc(seq->count, sizeof(mg_pos));
	for (i = 0; i < seq->count && error == 0; i++) {
		const mg_yaml_node *entry = seq->kids[i];

		r->stricter_count++;
		w->p->stricter_pos[i] = entry->pos;
		snprintf(where, sizeof(where), "sensitivity.stricter[%zu]", i);
		error = walk_thresholds(w, entry, SEC_OVERRIDE, where, &r->stricter[i], NULL);
		if (error == 0 && entry->count == 0)
			error = mg_error_at(w->err, w->path, entry->pos,
					    "'%s' is empty: override at least one threshold", where);
	}
	return error;
}

/* One grid axis: a non-empty list of valid values for threshold t. */
static int walk_axis(walk *w, mg_grid_axis *axis, const mg_yaml_node *seq, enum mg_threshold t)
{
	char where[64], item[96];
	size_t i;
	int error = 0;

	join(where, sizeof(where), "sensitivity.grid", mg_threshold_name(t));
	axis->threshold = t;
	if (seq->kind != MG_YAML_SEQ)
		return type_error(w, seq, where, "a sequence");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos,
				   "'%s' is empty: give at least one value", where);
	if (seq->count > MG_POLICY_MAX_AXIS_VALUES)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_AXIS_VALUES]->pos,
				   "'%s' has more than %d values", where,
				   MG_POLICY_MAX_AXIS_VALUES);
	axis->values = mg_xcalloc(seq->count, sizeof(double));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(item, sizeof(item), "%s[%zu]", where, i);
		error = get_threshold(&axis->values[axis->count++], w, seq->kids[i], t, item);
	}
	return error;
}

static int walk_grid(walk *w, const mg_yaml_node *map)
{
	mg_rules *r = &w->p->rules;
	size_t i, axes;
	int idx, error = 0;

	if ((error = expect_map(w, map, "sensitivity.grid")) < 0)
		return error;
	axes = map->count / 2;
	r->grid = mg_xcalloc(axes, sizeof(*r->grid));
	w->p->grid_pos = mg_xcalloc(axes, sizeof(mg_pos));
	for (i = 0; i < map->count && error == 0; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_OVERRIDE, "sensitivity.grid")) < 0)
			break;
		w->p->grid_pos[r->grid_count] = map->kids[i]->pos;
		error = walk_axis(w, &r->grid[r->grid_count++], map->kids[i + 1],
				  (enum mg_threshold)idx);
	}
	return error;
}

/* Refuse more scenarios than the decision core evaluates.  0 or MG_ERROR. */
static int check_scenarios(walk *w, const mg_yaml_node *grid)
{
	const mg_rules *r = &w->p->rules;
	unsigned long long cells = 1;
	size_t i;

	if (!grid || r->grid_count == 0)
		return 0;
	/* one axis per threshold of up to MG_POLICY_MAX_AXIS_VALUES values:
	 * the product may not fit, and then it is far over any limit */
	for (i = 0; i < r->grid_count; i++)
		if (__builtin_mul_overflow(cells, (unsigned long long)r->grid[i].count, &cells))
			return mg_error_at(w->err, w->path, grid->pos,
					   "'sensitivity.grid' makes more than %llu scenarios, more than the limit of %d",
					   ULLONG_MAX, MG_DECISION_MAX_SCENARIOS);
	if (cells + r->stricter_count <= MG_DECISION_MAX_SCENARIOS)
		return 0;
	return mg_error_at(w->err, w->path, grid->pos,
			   "'sensitivity.grid' makes %llu scenarios (%llu cells + %zu stricter), more than the limit of %d",
			   cells + r->stricter_count, cells, r->stricter_count,
			   MG_DECISION_MAX_SCENARIOS);
}

static int walk_sensitivity(walk *w, const mg_yaml_node *map)
{
	const mg_yaml_node *grid = NULL;
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "sensitivity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_SENSITIVITY, "sensitivity")) < 0)
			goto done;
		if (idx == 0) {
			error = walk_stricter(w, map->kids[i + 1]);
		} else {
			grid = map->kids[i + 1];
			error = walk_grid(w, grid);
		}
		if (error < 0)
			goto done;
	}
	error = check_scenarios(w, grid);
done:
	return error;
}

/* One gate.fail_on word.  0 or MG_ERROR. */
static int fail_on_word(walk *w, const mg_yaml_node *n, size_t i)
{
	char where[48];
	const char *near;
	const char *verdict_words[MG_VERDICT_COUNT + 1];
	int v;

	snprintf(where, sizeof(where), "gate.fail_on[%zu]", i);
	if (n->kind != MG_YAML_STR)
		return type_error(w, n, where, "a string");
	for (v = 0; v < MG_VERDICT_COUNT; v++)
		verdict_words[v] = mg_verdict_name((enum mg_verdict)v);
	verdict_words[MG_VERDICT_COUNT] = NULL;
	v = key_find(verdict_words, n->text, n->len);
	if (v >= 0) {
		w->p->fail_on[v] = true;
		return 0;
	}
	near = nearest(verdict_words, n->text, n->len);
	if (near)
		return mg_error_at(w->err, w->path, n->pos,
				   "unknown decision '%.40s' in 'gate.fail_on' (did you mean '%s'?)",
				   n->text, near);
	return mg_error_at(w->err, w->path, n->pos,
			   "unknown decision '%.40s' in 'gate.fail_on' (expected %s, %s or %s)",
			   n->text, verdict_words[MG_ACCEPT], verdict_words[MG_TUNE],
			   verdict_words[MG_REJECT]);
}

/* gate.fail_on: a list of decisions (maybe empty: never fail). */
static int walk_fail_on(walk *w, const mg_yaml_node *seq)
{
	size_t i;
	int error = 0;

	w->p->fail_on_pos = seq->pos;
	if (seq->kind != MG_YAML_SEQ)
		return type_error(w, seq, "gate.fail_on", "a sequence");
	memset(w->p->fail_on, 0, sizeof(w->p->fail_on));
	w->p->fail_on_set = true;
	for (i = 0; i < seq->count && error == 0; i++)
		error = fail_on_word(w, seq->kids[i], i);
	return error;
}

static int walk_gate(walk *w, const mg_yaml_node *map)
{
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "gate")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_GATE, "gate")) < 0)
			goto done;
		if ((error = walk_fail_on(w, map->kids[i + 1])) < 0)
			goto done;
	}
done:
	return error;
}

static int walk_rank_by(walk *w, const mg_yaml_node *n)
{
	w->p->rank_by_pos = n->pos;
	if (n->kind != MG_YAML_STR)
		return type_error(w, n, "rank_by", "a string");
	if (!strcmp(n->text, "peak_memory"))
		w->p->rules.rank_by = MG_RANK_PEAK_MEMORY;
	else if (!strcmp(n->text, "throughput"))
		w->p->rules.rank_by = MG_RANK_THROUGHPUT;
	else
		return mg_error_at(w->err, w->path, n->pos,
				   "'rank_by' must be 'peak_memory' or 'throughput', got '%.40s'",
				   n->text);
	return 0;
}

static int walk_version(walk *w, const mg_yaml_node *n)
{
	if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT)
		return type_error(w, n, "version", "the integer 1");
	if (n->kind != MG_YAML_INT || n->num != 1)
		return mg_error_at(w->err, w->path, n->pos,
				   "'version' must be the integer 1, got '%.40s'", n->text);
	w->p->version = 1;
	return 0;
}

/* manifest: or report:, exactly one of them.  0 or MG_ERROR. */
static int walk_source(walk *w, const mg_yaml_node *n, int key)
{
	mg_policy *p = w->p;

	if (p->manifest || p->report)
		return mg_error_at(w->err, w->path, n->pos,
				   "give only one of 'manifest' and 'report'");
	if (key == K_MANIFEST) {
		p->manifest_pos = n->pos;
		return get_string(&p->manifest, w, n, "manifest");
	}
	p->report_pos = n->pos;
	return get_string(&p->report, w, n, "report");
}

/* ------------------------------------------------------------------ */
/* Waivers                                                            */

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int mg_policy_parse_date(int *ymd, const char *text, size_t n)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d, i;

	if (n != 10 || text[4] != '-' || text[7] != '-')
		return MG_ERROR;
	for (i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9'))
			return MG_ERROR;
	y = (text[0] - '0') * 1000 + (text[1] - '0') * 100 + (text[2] - '0') * 10 + (text[3] - '0');
	m = (text[5] - '0') * 10 + (text[6] - '0');
	d = (text[8] - '0') * 10 + (text[9] - '0');
	if (y < 1 || m < 1 || m > 12 || d < 1 ||
	    d > days[m - 1] + (m == 2 && leap_year(y)))
		return MG_ERROR;
	*ymd = y * 10000 + m * 100 + d;
	return MG_OK;
}

/*
 * A waiver's reason: a step-7 reason.  Evidence problems (issues, steps 1-6,
 * evidence_not_applicable) and the decision's own codes are refused with a
 * message that says why.  0 or MG_ERROR.
 */
static int get_reason(enum mg_reason *out, walk *w, const mg_yaml_node *n, const char *where)
{
	const char *waivable[MG_REASON_COUNT + 1];
	const mg_code *code;
	const char *near = NULL;
	mg_buf b = MG_BUF_INIT;
	size_t k = 0;
	int r;

	if (n->kind != MG_YAML_STR)
		return type_error(w, n, where, "a reason such as 'memory_over_budget'");
	r = strlen(n->text) == n->len ? mg_reason_from_name(n->text) : -1;
	if (r >= 0 && mg_reason_waivable((enum mg_reason)r)) {
		*out = (enum mg_reason)r;
		return 0;
	}
	code = mg_code_find(n->text);
	if ((code && code->kind == MG_KIND_EVIDENCE) || !strcmp(n->text, "evidence_not_applicable"))
		mg_buf_printf(&b, "'%s': '%.64s' is an evidence problem and cannot be waived: "
			      "fix the evidence instead (a waiver names one of: ", where, n->text);
	else if (code)
		mg_buf_printf(&b, "'%s': '%.64s' is not a threshold's reason and cannot be waived "
			      "(a waiver names one of: ", where, n->text);
	for (r = 0; r < MG_REASON_COUNT; r++)
		if (mg_reason_waivable((enum mg_reason)r))
			waivable[k++] = mg_reason_name((enum mg_reason)r);
	waivable[k] = NULL;
	if (!b.len && (near = nearest(waivable, n->text, n->len)))
		mg_buf_printf(&b, "'%s': unknown reason '%.64s' (did you mean '%s'?", where,
			      n->text, near);
	else if (!b.len)
		mg_buf_printf(&b, "'%s': unknown reason '%.64s' (a waiver names one of: ", where,
			      n->text);
	if (!near || code)
		list_words(&b, waivable);
	mg_buf_putc(&b, ')');
	mg_error_at(w->err, w->path, n->pos, "%s", b.ptr);
	mg_buf_free(&b);
	return MG_ERROR;
}

static int get_date(mg_policy_waiver *wv, walk *w, const mg_yaml_node *n, const char *where)
{
	if (n->kind != MG_YAML_STR)
		return type_error(w, n, where, "a date YYYY-MM-DD");
	if (mg_policy_parse_date(&wv->expires_ymd, n->text, n->len) < 0)
		return mg_error_at(w->err, w->path, n->pos,
				   "'%s': expected a date YYYY-MM-DD, got '%.40s'", where, n->text);
	memcpy(wv->expires, n->text, 10);
	wv->expires[10] = '\0';
	return 0;
}

/* One field of a waiver entry.  0 or MG_ERROR. */
static int waiver_field(mg_policy_waiver *wv, walk *w, int key, const mg_yaml_node *n,
			const char *where)
{
	switch (key) {
	case W_CANDIDATE:
		wv->candidate_pos = n->pos;
		return get_string(&wv->candidate, w, n, where);
	case W_REASON:
		wv->reason_pos = n->pos;
		return get_reason(&wv->reason, w, n, where);
	case W_JUSTIFICATION:
		return get_string(&wv->justification, w, n, where);
	case W_OWNER:
		return get_string(&wv->owner, w, n, where);
	default:
		wv->expires_pos = n->pos;
		return get_date(wv, w, n, where);
	}
}

/* One waiver: a mapping with every field.  0 or MG_ERROR. */
static int walk_waiver(walk *w, mg_policy_waiver *wv, const mg_yaml_node *map, size_t index)
{
	bool seen[W_COUNT] = { false };
	char where[48], sub[80];
	int key, error = 0;
	size_t i;

	snprintf(where, sizeof(where), "waivers[%zu]", index);
	wv->pos = map->pos;
	if ((error = expect_map(w, map, where)) < 0)
		return error;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&key, w, map, i, SEC_WAIVER, where)) < 0)
			return error;
		seen[key] = true;
		join(sub, sizeof(sub), where, waiver_keys[key]);
		if ((error = waiver_field(wv, w, key, map->kids[i + 1], sub)) < 0)
			return error;
	}
	for (key = 0; key < W_COUNT; key++)
		if (!seen[key])
			return mg_error_at(w->err, w->path, map->pos,
					   "missing required key '%s' in '%s' (a waiver needs candidate, "
					   "reason, justification, owner and expires)",
					   waiver_keys[key], where);
	return 0;
}

/* A second waiver of the same candidate and reason.  0 or MG_ERROR. */
static int check_duplicate_waiver(walk *w, size_t k)
{
	const mg_policy_waiver *v = w->p->waivers, *x = &v[k];
	size_t j;

	for (j = 0; j < k; j++)
		if (v[j].reason == x->reason && !strcmp(v[j].candidate, x->candidate))
			return mg_error_at(w->err, w->path, x->pos,
					   "'waivers[%zu]' waives %s for this candidate again "
					   "(first at %d:%d): give one waiver per candidate and reason",
					   k, mg_reason_name(x->reason), v[j].pos.line, v[j].pos.column);
	return 0;
}

static int walk_waivers(walk *w, const mg_yaml_node *seq)
{
	mg_policy *p = w->p;
	size_t i;
	int error = 0;

	p->waivers_set = true;
	if (seq->kind != MG_YAML_SEQ)
		return type_error(w, seq, "waivers", "a sequence");
	if (seq->count > MG_POLICY_MAX_WAIVERS)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_WAIVERS]->pos,
				   "'waivers' has more than %d entries", MG_POLICY_MAX_WAIVERS);
	p->waivers = mg_xcalloc(seq->count ? seq->count : 1, sizeof(*p->waivers));
	for (i = 0; i < seq->count && error == 0; i++) {
		p->waiver_count++;
		if ((error = walk_waiver(w, &p->waivers[i], seq->kids[i], i)) == 0)
			error = check_duplicate_waiver(w, i);
	}
	return error;
}

/* provenance.namespace: what ssh-keygen -Y sign -n was given. */
static int get_namespace(walk *w, const mg_yaml_node *n)
{
	size_t i;

	w->p->sig_namespace_pos = n->pos;
	free(w->p->sig_namespace);
	w->p->sig_namespace = NULL;
	if (get_string(&w->p->sig_namespace, w, n, "provenance.namespace") < 0)
		return MG_ERROR;
	for (i = 0; i < n->len; i++)
		if ((unsigned char)n->text[i] <= 0x20 || (unsigned char)n->text[i] >= 0x7f)
			break;
	if (!n->len || i < n->len)
		return mg_error_at(w->err, w->path, n->pos, "'provenance.namespace' must be a "
				   "word of printable characters without spaces, as ssh-keygen -Y "
				   "sign -n takes it");
	return 0;
}

/* provenance: who may sign the manifest (memgate(1), SIGNED EVIDENCE). */
static int walk_provenance(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	int idx, error = 0;
	size_t i;

	p->provenance_pos = map->pos;
	if ((error = expect_map(w, map, "provenance")) < 0)
		goto done;
	p->provenance_set = true;
	for (i = 0; i < map->count && error == 0; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		if ((error = pair_key(&idx, w, map, i, SEC_PROVENANCE, "provenance")) < 0)
			goto done;
		if (idx == P_ALLOWED_SIGNERS) {
			p->allowed_signers_pos = v->pos;
			error = get_string(&p->allowed_signers, w, v, "provenance.allowed_signers");
		} else if (idx == P_NAMESPACE) {
			error = get_namespace(w, v);
		} else {
			p->sig_required_pos = v->pos;
			if (v->kind != MG_YAML_BOOL)
				error = type_error(w, v, "provenance.require", "true or false");
			else
				p->sig_required = v->text[0] == 't' || v->text[0] == 'T';
		}
	}
	if (error == 0 && !p->allowed_signers)
		error = mg_error_at(w->err, w->path, map->pos,
				    "missing required key 'allowed_signers' in 'provenance'");
done:
	return error;
}

/* waivers_warn_days: an integer from 0 to MG_POLICY_MAX_WARN_DAYS. */
static int walk_warn_days(walk *w, const mg_yaml_node *n)
{
	double days = 0;
	int error;

	w->p->waivers_warn_days_pos = n->pos;
	if ((error = get_int(&days, w, n, "waivers_warn_days", 0)) < 0)
		return error;
	if (days > MG_POLICY_MAX_WARN_DAYS)
		return mg_error_at(w->err, w->path, n->pos, "'waivers_warn_days' must be at most %d, "
				   "got '%.40s'", MG_POLICY_MAX_WARN_DAYS, n->text);
	w->p->waivers_warn_days = (int)days;
	return 0;
}

/* regression.covers (selected | all) and regression.decision (tune | reject). */
static int walk_regression_word(walk *w, const mg_yaml_node *n, int key)
{
	mg_policy *p = w->p;
	const char *where = key == R_COVERS ? "regression.covers" : "regression.decision";
	int c;

	if (n->kind != MG_YAML_STR)
		return type_error(w, n, where, "a string");
	if (key == R_COVERS) {
		p->regression_covers_pos = n->pos;
		if ((c = mg_covers_from_name(n->text)) < 0)
			return mg_error_at(w->err, w->path, n->pos, "'%s' must be '%s' or '%s', "
					   "got '%.40s'", where, mg_covers_name(MG_COVERS_SELECTED),
					   mg_covers_name(MG_COVERS_ALL), n->text);
		p->rules.regression.covers = (enum mg_covers)c;
		return 0;
	}
	p->regression_decision_pos = n->pos;
	c = mg_verdict_from_name(n->text);
	if (c != MG_TUNE && c != MG_REJECT)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be '%s' or '%s', got '%.40s'",
				   where, mg_verdict_name(MG_TUNE), mg_verdict_name(MG_REJECT),
				   n->text);
	p->rules.regression.reject = c == MG_REJECT;
	return 0;
}

/* regression.history (1 to MG_HISTORY_MAX) and regression.history_max_commits
 * (1 to MG_HISTORY_MAX_COMMITS). */
static int walk_regression_history(walk *w, const mg_yaml_node *n, int key)
{
	mg_regression *rg = &w->p->rules.regression;
	const char *where = key == R_HISTORY ? "regression.history"
					     : "regression.history_max_commits";
	long max = key == R_HISTORY ? MG_HISTORY_MAX : MG_HISTORY_MAX_COMMITS;
	double v = 0;
	int error;

	if (key == R_HISTORY)
		w->p->regression_history_pos = n->pos;
	else
		w->p->regression_history_max_commits_pos = n->pos;
	if ((error = get_int(&v, w, n, where, 1)) < 0)
		return error;
	if (v > max)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at most %ld, got '%.40s'",
				   where, max, n->text);
	if (key == R_HISTORY)
		rg->history = (int)v;
	else
		rg->history_max_commits = (int)v;
	return 0;
}

/* regression: how much worse than the base each covered candidate may get. */
static int walk_regression(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	mg_regression *rg = &p->rules.regression;
	int idx, error = 0;
	char sub[96];
	size_t i;

	p->regression_pos = map->pos;
	if ((error = expect_map(w, map, "regression")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		if ((error = pair_key(&idx, w, map, i, SEC_REGRESSION, "regression")) < 0)
			goto done;
		if (idx >= MG_THRESHOLD_COUNT + R_HISTORY) {
			error = walk_regression_history(w, v, idx - MG_THRESHOLD_COUNT);
		} else if (idx >= MG_THRESHOLD_COUNT) {
			error = walk_regression_word(w, v, idx - MG_THRESHOLD_COUNT);
		} else {
			join(sub, sizeof(sub), "regression", mg_threshold_name((enum mg_threshold)idx));
			error = get_threshold(&rg->limits.value[idx], w, v, (enum mg_threshold)idx, sub);
			rg->limits.set[idx] = error == 0;
			p->threshold_pos[idx] = v->pos;
		}
		if (error < 0)
			goto done;
	}
	if (!mg_regression_active(rg))
		error = mg_error_at(w->err, w->path, map->pos, "'regression' sets no threshold: "
				    "set max_peak_increase_mb, max_peak_increase_pct, "
				    "max_throughput_drop_pct or max_eval_loss_increase");
done:
	return error;
}

/* Dispatch one top-level key's value.  0 or MG_ERROR. */
static int walk_top(walk *w, int key, const mg_yaml_node *v)
{
	switch (key) {
	case K_VERSION: return walk_version(w, v);
	case K_MANIFEST:
	case K_REPORT: return walk_source(w, v, key);
	case K_IDENTITY: return walk_identity(w, v);
	case K_BUDGET: return walk_budget(w, v);
	case K_QUALITY:
		return walk_thresholds(w, v, SEC_QUALITY, "quality", &w->p->rules.budget,
				       w->p->threshold_pos);
	case K_EVIDENCE: return walk_evidence(w, v);
	case K_RANK_BY: return walk_rank_by(w, v);
	case K_SENSITIVITY: return walk_sensitivity(w, v);
	case K_WAIVERS: return walk_waivers(w, v);
	case K_PROVENANCE: return walk_provenance(w, v);
	case K_WAIVERS_WARN_DAYS: return walk_warn_days(w, v);
	case K_REGRESSION: return walk_regression(w, v);
	default: return walk_gate(w, v);
	}
}

/* The keys the top level must have, checked after its walk. */
static int check_required(walk *w, const mg_yaml_node *root, const bool seen[])
{
	const char *missing = NULL;

	if (!seen[K_VERSION])
		missing = "'version'";
	else if (!seen[K_MANIFEST] && !seen[K_REPORT])
		missing = "'manifest' or 'report'";
	else if (!seen[K_IDENTITY])
		missing = "'identity'";
	else if (!seen[K_BUDGET])
		missing = "'budget'";
	if (!missing && w->p->provenance_set && !w->p->manifest)
		return mg_error_at(w->err, w->path, w->p->provenance_pos, "'provenance' signs the "
				   "manifest: name one with 'manifest:', not 'report:'");
	if (!missing)
		return 0;
	return mg_error_at(w->err, w->path, root->pos, "missing required key %s", missing);
}

static int walk_root(walk *w, const mg_yaml_node *root)
{
	bool seen[K_COUNT] = { false };
	int key, error = 0;
	size_t i;

	if (!root || (root->kind == MG_YAML_NULL && root->len == 0)) {
		error = mg_error_set(w->err, w->path, 1, 1, "policy is empty");
		goto done;
	}
	if (root->kind != MG_YAML_MAP) {
		error = mg_error_at(w->err, w->path, root->pos,
				    "expected a mapping at the top level, got %s", describe(root));
		goto done;
	}
	for (i = 0; i < root->count; i += 2) {
		if ((error = pair_key(&key, w, root, i, SEC_ROOT, "")) < 0)
			goto done;
		seen[key] = true;
		if ((error = walk_top(w, key, root->kids[i + 1])) < 0)
			goto done;
	}
	error = check_required(w, root, seen);
done:
	return error;
}

static mg_policy *policy_new(const char *path)
{
	mg_policy *p = mg_xcalloc(1, sizeof(*p));

	p->path = mg_xstrdup(path);
	p->rules.baseline = mg_xstrdup("baseline");
	p->rules.min_repeats = 1;
	p->rules.rank_by = MG_RANK_PEAK_MEMORY;
	p->fail_on[MG_REJECT] = true;
	p->fail_on[MG_TUNE] = true;
	p->sig_namespace = mg_xstrdup("memgate");
	p->sig_required = true;
	p->waivers_warn_days = MG_POLICY_WARN_DAYS;
	return p;
}

int mg_policy_parse(mg_policy **out, const char *path, const char *text,
		    size_t len, mg_error *err)
{
	mg_yaml_node *root = NULL;
	mg_policy *p = NULL;
	walk w;
	int error;

	assert(out && path && (text || !len));
	*out = NULL;
	if ((error = mg_yaml__load(&root, path, text ? text : "", len, err)) < 0)
		goto done;
	p = policy_new(path);
	w.path = path;
	w.err = err;
	w.p = p;
	if ((error = walk_root(&w, root)) < 0)
		goto done;
	*out = p;
	p = NULL;
done:
	mg_yaml__free(root);
	mg_policy_free(p);
	return error;
}

void mg_policy_free(mg_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MG_ID_COUNT; i++)
		free(p->rules.pin[i].string);
	for (i = 0; i < p->rules.grid_count; i++)
		free(p->rules.grid[i].values);
	free(p->rules.grid);
	free(p->grid_pos);
	free(p->rules.stricter);
	free(p->stricter_pos);
	free(p->rules.baseline);
	for (i = 0; i < p->waiver_count; i++) {
		free(p->waivers[i].candidate);
		free(p->waivers[i].justification);
		free(p->waivers[i].owner);
	}
	free(p->waivers);
	for (i = 0; i < p->input_count; i++)
		free(p->inputs[i]);
	free(p->inputs);
	free(p->input_pos);
	free(p->allowed_signers);
	free(p->sig_namespace);
	free(p->manifest);
	free(p->report);
	free(p->path);
	free(p);
}
