/*
 * The stage-76 report (memgate(1), REPORTS): see
 * include/memgate/report.h.
 *
 * The report is read in one pass (mg_json__stream): each candidate is read
 * as soon as its closing brace is, then dropped, so that a report of 10^5
 * candidates never exists as one tree.  Every string in the report is a
 * copy owned by it.  When the text is not valid JSON, the reader says
 * where and why, at the fault it stopped at.
 *
 * Metric lookup: for the measured metrics (peak memory, throughput, eval
 * loss) the places are tried in order -- the candidate's own keys, then its
 * `metrics` (or `quality`) object, then its runs[] -- and in each place the
 * key list is tried in order; the first place that has any of the keys (with
 * a non-null value) wins, whatever that value is.  So a string "9000" under
 * the candidate's own `peak_memory_mb` makes the metric invalid even when
 * `metrics.peak_memory_mb` holds a number: memgate never guesses which of
 * two disagreeing values the producer meant.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memgate/buf.h"
#include "memgate/report.h"

#define NONE MG_J_NONE

/* Where a measured metric is looked up. */
struct metric_place {
	const char *const *keys;
	const char *sub;          /* "metrics" or "quality" */
};

static const char *const peak_keys[] = {
	"peak_memory_mb", "peak_mem_mb", "candidate_peak_memory_mb", NULL
};
static const char *const samples_keys[] = { "samples_per_s", NULL };
static const char *const loss_keys[] = { "eval_loss", "val_loss", NULL };
static const char *const saving_keys[] = { "memory_saving_mb", NULL };
static const char *const ratio_keys[] = { "throughput_ratio", NULL };
static const char *const delta_keys[] = { "quality_delta", NULL };
static const char *const no_keys[] = { NULL };   /* derived only, never read */

/* Indexed by enum mg_metric_id; paired values have no sub-object. */
static const struct metric_place places[MG_METRIC_COUNT] = {
	[MG_M_PEAK] = { peak_keys, "metrics" },
	[MG_M_SAMPLES] = { samples_keys, "metrics" },
	[MG_M_EVAL_LOSS] = { loss_keys, "quality" },
	[MG_M_SAVING] = { saving_keys, NULL },
	[MG_M_RATIO] = { ratio_keys, NULL },
	[MG_M_DELTA] = { delta_keys, NULL },
	[MG_M_RATE] = { no_keys, NULL },
};

/*
 * Candidate names and statuses, 10^5 of them, come from a few large blocks
 * the report owns rather than one malloc each.
 */
struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

/* The runs' values (mg_candidate.run_value), in blocks of doubles likewise. */
struct values_block {
	struct values_block *next;
	size_t used, size;
	double data[];
};

struct mg_report_strings {
	struct block *head;
	struct values_block *values;
};

#define STRINGS_BLOCK_MIN ((size_t)1024)
#define STRINGS_BLOCK_MAX ((size_t)65536)

/* A copy of s[0..len) with a NUL, owned by the report's string blocks. */
static char *strings_add(mg_report *r, const char *s, size_t len)
{
	struct mg_report_strings *st = r->strings;
	struct block *b = st->head;
	char *p;

	if (!b || b->size - b->used < len + 1) {
		/* from 1 KiB, doubling up to 64 KiB: a report of a few candidates
		 * holds a few hundred bytes of names, and check --all keeps
		 * hundreds of reports */
		size_t size = b ? (b->size < STRINGS_BLOCK_MAX ? 2 * b->size : STRINGS_BLOCK_MAX)
			        : STRINGS_BLOCK_MIN;

		size = len + 1 > size ? len + 1 : size;

		b = mg_xmalloc(sizeof(*b) + size);
		b->next = st->head;
		b->used = 0;
		b->size = size;
		st->head = b;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

/* A copy of v[0..n) owned by the report's value blocks (n > 0). */
static const double *values_add(mg_report *r, const double *v, size_t n)
{
	struct mg_report_strings *st = r->strings;
	struct values_block *b = st->values;
	double *p;

	if (!b || b->size - b->used < n) {
		size_t size = b ? (b->size < STRINGS_BLOCK_MAX ? 2 * b->size : STRINGS_BLOCK_MAX)
				: STRINGS_BLOCK_MIN / sizeof(double);

		size = n > size ? n : size;
		b = mg_xmalloc(sizeof(*b) + size * sizeof(double));
		b->next = st->values;
		b->used = 0;
		b->size = size;
		st->values = b;
	}
	p = b->data + b->used;
	memcpy(p, v, n * sizeof(*v));
	b->used += n;
	return p;
}

static void strings_free(struct mg_report_strings *st)
{
	struct block *b, *next;
	struct values_block *v, *vnext;

	if (!st)
		return;
	for (b = st->head; b; b = next) {
		next = b->next;
		free(b);
	}
	for (v = st->values; v; v = vnext) {
		vnext = v->next;
		free(v);
	}
	free(st);
}

/* What reading one report needs at hand. */
struct parse {
	const mg_json_tape *t;
	const char *path;
	mg_error *err;
	mg_report *r;
	size_t cap;               /* room in r->evidence.candidates */
	size_t seen;              /* candidates in the text */
	int candidate_error;      /* the first error about a candidate */
	double *scratch;          /* one metric of every run */
	size_t scratch_cap;
};

/* A string node's text, decoded, in the report's string blocks. */
static char *string_of(const struct parse *p, size_t node)
{
	char *s = mg_json__tape_strdup(p->t, node), *kept = strings_add(p->r, s, strlen(s));

	free(s);
	return kept;
}

static mg_pos pos_of(const struct parse *p, size_t node)
{
	return mg_json__tape_pos(p->t, node);
}

static enum mg_jtype type_of(const struct parse *p, size_t node)
{
	return node == NONE ? (enum mg_jtype)0 : mg_json__tape_type(p->t, node);
}

static size_t get(const struct parse *p, size_t object, const char *key)
{
	return object == NONE ? NONE : mg_json__tape_get(p->t, object, key);
}

/* ---- scalars ------------------------------------------------------ */

/* A present value as an mg_value (strings copied). */
static mg_value value_of(const struct parse *p, size_t v)
{
	mg_value out = { MG_VALUE_OTHER, 0, NULL, pos_of(p, v) };

	if (type_of(p, v) == MG_J_STRING) {
		out.kind = MG_VALUE_STRING;
		out.string = mg_json__tape_strdup(p->t, v);
	} else if (type_of(p, v) == MG_J_NUMBER) {
		out.kind = MG_VALUE_NUMBER;
		out.number = mg_json__tape_number(p->t, v);
	}
	return out;
}

/* object[key] as an mg_value; absent (at the object) when missing or null. */
static mg_value member_value(const struct parse *p, size_t object, const char *key)
{
	size_t v = get(p, object, key);
	mg_value absent = { MG_VALUE_ABSENT, 0, NULL, pos_of(p, object) };

	return v != NONE ? value_of(p, v) : absent;
}

static char *member_string(const struct parse *p, size_t object, const char *key)
{
	size_t v = get(p, object, key);

	return type_of(p, v) == MG_J_STRING ? mg_json__tape_strdup(p->t, v) : NULL;
}

static void value_release(mg_value *v)
{
	if (v->kind == MG_VALUE_STRING)
		free(v->string);
	v->string = NULL;
}

/* ---- identity ----------------------------------------------------- */

/* `top` at the top level, else config.k1, else config.k2 (k1/k2 may be NULL). */
static mg_value identity_value(const struct parse *p, size_t root, const char *top,
			       const char *k1, const char *k2)
{
	size_t config = get(p, root, "config");
	size_t where = type_of(p, config) == MG_J_OBJECT ? config : root;
	mg_value v = { MG_VALUE_ABSENT, 0, NULL, pos_of(p, where) };

	if (top && get(p, root, top) != NONE)
		return member_value(p, root, top);
	if (k1 && get(p, config, k1) != NONE)
		return member_value(p, config, k1);
	if (k2 && get(p, config, k2) != NONE)
		return member_value(p, config, k2);
	return v;
}

static void read_identity(mg_evidence *ev, const struct parse *p, size_t root)
{
	ev->identity[MG_ID_WORKLOAD] = identity_value(p, root, "workload_id", "workload", NULL);
	ev->identity[MG_ID_HARDWARE] = identity_value(p, root, "hardware_id", "device", NULL);
	ev->identity[MG_ID_MODEL] = identity_value(p, root, NULL, "model_id", "model");
	ev->identity[MG_ID_DTYPE] = identity_value(p, root, NULL, "dtype", NULL);
	ev->identity[MG_ID_AMP_DTYPE] = identity_value(p, root, NULL, "amp_dtype", NULL);
	ev->identity[MG_ID_BATCH_SIZE] = identity_value(p, root, NULL, "batch_size", NULL);
	ev->identity[MG_ID_SEQ_LEN] = identity_value(p, root, NULL, "seq_len", NULL);
	ev->identity[MG_ID_OPTIMIZER] = identity_value(p, root, NULL, "optimizer", NULL);
}

/* ---- the handoff shape -------------------------------------------- */

static void read_handoff(mg_evidence *ev, const struct parse *p, size_t root)
{
	size_t list = get(p, root, "eligible_candidates"), item;

	ev->handoff_status = member_value(p, root, "status");
	ev->eligible_present = list != NONE;
	ev->handoff = ev->eligible_present || ev->handoff_status.kind != MG_VALUE_ABSENT;
	ev->eligible_pos = pos_of(p, list != NONE ? list : root);
	if (type_of(p, list) != MG_J_ARRAY)
		return;
	ev->eligible = mg_xcalloc(mg_json__tape_count(p->t, list), sizeof(*ev->eligible));
	for (item = mg_json__tape_first(p->t, list); item != NONE;
	     item = mg_json__tape_next(p->t, list, item))
		if (type_of(p, item) == MG_J_STRING)   /* not one allocation each */
			ev->eligible[ev->eligible_count++] = string_of(p, item);
}

/* ---- metrics ------------------------------------------------------ */

/* The first of `keys` that object has (non-null), or NONE. */
static size_t first_key(const struct parse *p, size_t object, const char *const *keys)
{
	size_t v = NONE;

	for (; *keys && v == NONE; keys++)
		v = get(p, object, *keys);
	return v;
}

/* A present value as metric id: a finite number in its range
 * (mg_metric_in_range), or invalid (out_of_range when it is a finite
 * number outside it). */
static mg_metric metric_of(const struct parse *p, size_t v, enum mg_metric_id id)
{
	mg_metric m = { .state = MG_METRIC_INVALID, .pos = pos_of(p, v) };
	double x;

	if (type_of(p, v) == MG_J_NUMBER && isfinite(x = mg_json__tape_number(p->t, v))) {
		m.value = x;
		if (mg_metric_in_range(id, x))
			m.state = MG_METRIC_NUMBER;
		else
			m.out_of_range = true;
	}
	return m;
}

/* Sort a few doubles (a candidate's runs: usually three). */
static void sort_doubles(double *v, size_t n)
{
	size_t i, j;
	double x;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The runs' values of one metric, summarised. */
struct run_stats {
	enum mg_metric_state state;  /* ABSENT: no run has the metric */
	double median, min, max;
	const double *sorted;        /* NUMBER: the values, sorted (scratch) */
	size_t count;
	bool out_of_range;           /* INVALID: a run's finite value `bad` is
					outside the metric's range */
	double bad;
	mg_pos bad_pos;
};

static void runs_summarise(struct run_stats *s, double *v, size_t n)
{
	if (n <= 16)
		sort_doubles(v, n);
	else
		qsort(v, n, sizeof(*v), double_cmp);
	s->state = MG_METRIC_NUMBER;
	s->min = v[0];
	s->max = v[n - 1];
	s->sorted = v;
	s->count = n;
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Look a metric up in every run: absent when no run has it, invalid when
 * some run lacks it or holds a non-number. */
static void runs_metric(struct run_stats *s, struct parse *p, size_t runs,
			const char *const *keys, enum mg_metric_id id)
{
	size_t n = mg_json__tape_count(p->t, runs), have = 0, numeric = 0, run, x;
	double v;

	memset(s, 0, sizeof(*s));
	if (n > p->scratch_cap) {
		p->scratch_cap = n;
		p->scratch = mg_xrealloc(p->scratch, n * sizeof(*p->scratch));
	}
	for (run = mg_json__tape_first(p->t, runs); run != NONE;
	     run = mg_json__tape_next(p->t, runs, run)) {
		if ((x = first_key(p, run, keys)) == NONE)
			continue;
		have++;
		if (type_of(p, x) != MG_J_NUMBER || !isfinite(v = mg_json__tape_number(p->t, x)))
			continue;
		if (mg_metric_in_range(id, v)) {
			p->scratch[numeric++] = v;
		} else if (!s->out_of_range) {
			s->out_of_range = true;
			s->bad = v;
			s->bad_pos = pos_of(p, x);
		}
	}
	if (have)
		s->state = MG_METRIC_INVALID;
	if (numeric == n)
		runs_summarise(s, p->scratch, n);
}

/*
 * One metric: own keys, then the sub-object (measured metrics only), then
 * the runs (NONE when the candidate has none, and for paired values).  Sets
 * *outside when an aggregate value lies outside the runs' range.
 */
static mg_metric read_metric(struct parse *p, size_t cand, size_t runs,
			     enum mg_metric_id id, mg_candidate *c)
{
	const struct metric_place *pl = &places[id];
	size_t v = first_key(p, cand, pl->keys);
	mg_metric m = { .state = MG_METRIC_ABSENT };
	struct run_stats s = { MG_METRIC_ABSENT, 0, 0, 0, NULL, 0, false, 0, { 0, 0 } };

	if (v == NONE && pl->sub)
		v = first_key(p, get(p, cand, pl->sub), pl->keys);
	if (runs != NONE)
		runs_metric(&s, p, runs, pl->keys, id);
	if (s.state == MG_METRIC_NUMBER) {
		c->run_band[id] = true;
		c->run_min[id] = s.min;
		c->run_max[id] = s.max;
		c->run_value[id] = values_add(p->r, s.sorted, s.count);
	}
	if (v != NONE) {
		m = metric_of(p, v, id);
		if (m.state == MG_METRIC_NUMBER && s.state == MG_METRIC_NUMBER &&
		    (m.value < s.min || m.value > s.max))
			c->aggregate_outside_runs = true;
	} else if (s.state != MG_METRIC_ABSENT) {
		m.state = s.state;
		m.value = s.state == MG_METRIC_NUMBER ? s.median : 0;
		m.pos = pos_of(p, runs);
		if (s.state == MG_METRIC_INVALID && s.out_of_range) {
			m.out_of_range = true;
			m.value = s.bad;
			m.pos = s.bad_pos;
		}
	}
	return m;
}

/* ---- candidates --------------------------------------------------- */

/* runs[] when it is a non-empty array (else NONE); errors past the limit. */
static int read_runs(size_t *out, const struct parse *p, size_t cand)
{
	size_t runs = get(p, cand, "runs");
	size_t n = type_of(p, runs) == MG_J_ARRAY ? mg_json__tape_count(p->t, runs) : 0;

	*out = NONE;
	if (n > MG_REPORT_MAX_RUNS)
		return mg_error_at(p->err, p->path, pos_of(p, runs),
				   "too many runs (%zu; the limit is %d; raise it with make "
				   "EXTRA_CFLAGS=-DMG_REPORT_MAX_RUNS=N)", n, MG_REPORT_MAX_RUNS);
	if (n > 0)
		*out = runs;
	return MG_OK;
}

static int read_name(mg_candidate *c, const struct parse *p, size_t cand)
{
	size_t name = get(p, cand, "name"), n;
	char *s;
	int error = MG_OK;

	if (type_of(p, name) != MG_J_STRING)
		return MG_OK;
	s = string_of(p, name);
	if ((n = strlen(s)) > MG_REPORT_MAX_NAME)
		error = mg_error_at(p->err, p->path, pos_of(p, name),
				    "candidate name too long (%zu bytes; the limit is %d)",
				    n, MG_REPORT_MAX_NAME);
	else
		c->name = s;
	return error;
}

static void read_status(mg_candidate *c, const struct parse *p, size_t cand)
{
	size_t status = get(p, cand, "status");
	size_t oom = get(p, get(p, cand, "metrics"), "oom");

	if (status == NONE) {
		c->status = strings_add(p->r, "ok", 2);
	} else if (type_of(p, status) == MG_J_STRING) {
		c->status = string_of(p, status);
	}
	c->oom = (c->status && !strcmp(c->status, "oom")) || type_of(p, oom) == MG_J_TRUE;
}

static int read_candidate(mg_candidate *c, struct parse *p, size_t cand)
{
	size_t runs = NONE;
	int error, m;

	c->pos = pos_of(p, cand);
	c->repeats = 1;
	if (type_of(p, cand) != MG_J_OBJECT) {
		c->status = strings_add(p->r, "ok", 2);
		return MG_OK;
	}
	if ((error = read_name(c, p, cand)) < 0 || (error = read_runs(&runs, p, cand)) < 0)
		return error;
	read_status(c, p, cand);
	if (runs != NONE)
		c->repeats = (int)mg_json__tape_count(p->t, runs);
	for (m = 0; m < MG_METRIC_COUNT; m++)
		c->metric[m] = read_metric(p, cand, places[m].sub ? runs : NONE, m, c);
	return MG_OK;
}

/* Called for each element of "candidates" while its nodes are on the tape. */
static int take_candidate(void *ctx, const mg_json_tape *t, size_t node, size_t index)
{
	struct parse *p = ctx;
	mg_evidence *ev = &p->r->evidence;

	(void)index;
	p->seen++;
	if (p->candidate_error || ev->candidate_count >= MG_REPORT_MAX_CANDIDATES)
		return MG_OK;     /* refused once the count is known */
	if (ev->candidate_count == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		ev->candidates = mg_xrealloc(ev->candidates, p->cap * sizeof(*ev->candidates));
	}
	memset(&ev->candidates[ev->candidate_count], 0, sizeof(*ev->candidates));
	p->t = t;
	p->candidate_error = read_candidate(&ev->candidates[ev->candidate_count++], p, node);
	return MG_OK;
}

/* ---- the report --------------------------------------------------- */

static void read_producer(mg_report *r, const struct parse *p, size_t root)
{
	size_t d = get(p, root, "decision");

	if (type_of(p, d) == MG_J_STRING) {
		r->producer_decision = mg_json__tape_strdup(p->t, d);
		return;
	}
	r->producer_decision = member_string(p, d, "decision");
	r->producer_reason = member_string(p, d, "reason");
}

static const char *type_name(enum mg_jtype type)
{
	switch (type) {
	case MG_J_TRUE:
	case MG_J_FALSE: return "a boolean";
	case MG_J_NUMBER: return "a number";
	case MG_J_STRING: return "a string";
	case MG_J_ARRAY: return "an array";
	case MG_J_OBJECT: return "an object";
	default: return "null";
	}
}

/* Everything but the candidates, once the text is read; then the errors
 * about candidates in the order memgate(1)'s REPORTS reads them: their count first. */
static int read_report(mg_report *r, struct parse *p)
{
	mg_evidence *ev = &r->evidence;
	size_t root = 0, list;

	if (type_of(p, root) != MG_J_OBJECT)
		return mg_error_at(p->err, p->path, pos_of(p, root),
				   "report must be a JSON object, not %s",
				   type_name(type_of(p, root)));
	read_identity(ev, p, root);
	read_handoff(ev, p, root);
	r->schema_version = member_value(p, root, "schema_version");
	r->semantic_id = member_value(p, root, "semantic_id");
	read_producer(r, p, root);
	list = get(p, root, "candidates");
	ev->candidates_pos = pos_of(p, list != NONE ? list : root);
	if (type_of(p, list) != MG_J_ARRAY)
		return MG_OK;
	ev->candidates_present = true;
	if (p->seen > MG_REPORT_MAX_CANDIDATES)
		return mg_error_at(p->err, p->path, ev->candidates_pos,
				   "too many candidates (%zu; the limit is %d; raise it with make "
				   "EXTRA_CFLAGS=-DMG_REPORT_MAX_CANDIDATES=N)",
				   p->seen, MG_REPORT_MAX_CANDIDATES);
	return p->candidate_error;
}

/* Every member of the report object that read_report reads: the others
 * are checked but not kept. */
static const char *const root_keys[] = {
	"candidates", "config", "workload_id", "hardware_id", "eligible_candidates", "status",
	"decision", "schema_version", "semantic_id", NULL,
};

int mg_report_parse(mg_report **out, const char *path, const char *text,
		    size_t len, mg_error *err)
{
	mg_json_tape *t = NULL;
	mg_report *r = NULL;
	struct parse p;
	int error;

	assert(out);
	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.path = path;
	p.err = err;
	r = mg_xcalloc(1, sizeof(*r));
	r->path = mg_xstrdup(path ? path : "");
	r->strings = mg_xcalloc(1, sizeof(*r->strings));
	p.r = r;
	if ((error = mg_json__stream(&t, path, text, len, "candidates", root_keys, take_candidate,
				     &p, NULL, err)) < 0)
		goto done;
	/* The doubling's spare room, given back: the evidence lives as long as
	 * the check's result, and check --all keeps every policy's. */
	if (r->evidence.candidate_count && r->evidence.candidate_count < p.cap)
		r->evidence.candidates = mg_xrealloc(r->evidence.candidates,
			r->evidence.candidate_count * sizeof(*r->evidence.candidates));
	p.cap = r->evidence.candidate_count;
	p.t = t;
	if ((error = read_report(r, &p)) < 0)
		goto done;
	*out = r;
	r = NULL;
done:
	free(p.scratch);
	mg_report_free(r);
	mg_json__tape_free(t);
	return error;
}

static void evidence_release(mg_evidence *ev)
{
	int k;

	for (k = 0; k < MG_ID_COUNT; k++)
		value_release(&ev->identity[k]);
	value_release(&ev->handoff_status);
	free(ev->eligible);   /* the names are the string blocks' */
	free(ev->candidates);
}

void mg_report_free(mg_report *r)
{
	if (!r)
		return;
	evidence_release(&r->evidence);
	strings_free(r->strings);
	value_release(&r->schema_version);
	value_release(&r->semantic_id);
	free(r->producer_decision);
	free(r->producer_reason);
	free(r->path);
	free(r);
}
