/*
 * The stage-76 report (SPEC 1.3): see include/memgate/report.h.
 *
 * Every string in the report is a copy owned by it, so the cJSON tree is
 * freed before mg_report_parse returns.
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

/* Indexed by enum mg_metric_id; paired values have no sub-object. */
static const struct metric_place places[MG_METRIC_COUNT] = {
	[MG_M_PEAK] = { peak_keys, "metrics" },
	[MG_M_SAMPLES] = { samples_keys, "metrics" },
	[MG_M_EVAL_LOSS] = { loss_keys, "quality" },
	[MG_M_SAVING] = { saving_keys, NULL },
	[MG_M_RATIO] = { ratio_keys, NULL },
	[MG_M_DELTA] = { delta_keys, NULL },
};

/* What parsing one report needs at hand. */
struct parse {
	const mg_json *j;
	const char *path;
	mg_error *err;
};

static mg_pos pos_of(const struct parse *p, const cJSON *node)
{
	return mg_json__pos(p->j, node);
}

/* ---- scalars ------------------------------------------------------ */

/* A present value as an mg_value (strings copied). */
static mg_value value_of(const struct parse *p, const cJSON *v)
{
	mg_value out = { MG_VALUE_OTHER, 0, NULL, pos_of(p, v) };

	if (cJSON_IsString(v)) {
		out.kind = MG_VALUE_STRING;
		out.string = mg_xstrdup(v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		out.kind = MG_VALUE_NUMBER;
		out.number = v->valuedouble;
	}
	return out;
}

/* object[key] as an mg_value; absent (at the object) when missing or null. */
static mg_value member_value(const struct parse *p, const cJSON *object, const char *key)
{
	const cJSON *v = mg_json__get(object, key);
	mg_value absent = { MG_VALUE_ABSENT, 0, NULL, pos_of(p, object) };

	return v ? value_of(p, v) : absent;
}

static char *member_string(const cJSON *object, const char *key)
{
	const cJSON *v = mg_json__get(object, key);

	return cJSON_IsString(v) ? mg_xstrdup(v->valuestring) : NULL;
}

static void value_release(mg_value *v)
{
	if (v->kind == MG_VALUE_STRING)
		free(v->string);
	v->string = NULL;
}

/* ---- identity ----------------------------------------------------- */

/* `top` at the top level, else config.k1, else config.k2 (k1/k2 may be NULL). */
static mg_value identity_value(const struct parse *p, const cJSON *root, const char *top,
			       const char *k1, const char *k2)
{
	const cJSON *config = mg_json__get(root, "config");
	const cJSON *where = cJSON_IsObject(config) ? config : root;
	mg_value v = { MG_VALUE_ABSENT, 0, NULL, pos_of(p, where) };

	if (top && mg_json__get(root, top))
		return member_value(p, root, top);
	if (k1 && mg_json__get(config, k1))
		return member_value(p, config, k1);
	if (k2 && mg_json__get(config, k2))
		return member_value(p, config, k2);
	return v;
}

static void read_identity(mg_evidence *ev, const struct parse *p, const cJSON *root)
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

static void read_handoff(mg_evidence *ev, const struct parse *p, const cJSON *root)
{
	const cJSON *list = mg_json__get(root, "eligible_candidates");
	const cJSON *item;

	ev->handoff_status = member_value(p, root, "status");
	ev->eligible_present = list != NULL;
	ev->handoff = ev->eligible_present || ev->handoff_status.kind != MG_VALUE_ABSENT;
	ev->eligible_pos = pos_of(p, list ? list : root);
	if (!cJSON_IsArray(list))
		return;
	ev->eligible = mg_xcalloc((size_t)cJSON_GetArraySize(list), sizeof(*ev->eligible));
	cJSON_ArrayForEach(item, list) {
		if (cJSON_IsString(item))
			ev->eligible[ev->eligible_count++] = mg_xstrdup(item->valuestring);
	}
}

/* ---- metrics ------------------------------------------------------ */

/* The first of `keys` that object has (non-null), or NULL. */
static const cJSON *first_key(const cJSON *object, const char *const *keys)
{
	const cJSON *v = NULL;

	for (; *keys && !v; keys++)
		v = mg_json__get(object, *keys);
	return v;
}

/* A present value as a metric: a finite number, or invalid. */
static mg_metric metric_of(const struct parse *p, const cJSON *v)
{
	mg_metric m = { MG_METRIC_INVALID, 0, pos_of(p, v) };

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		m.state = MG_METRIC_NUMBER;
		m.value = v->valuedouble;
	}
	return m;
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
};

static void runs_summarise(struct run_stats *s, double *v, size_t n)
{
	qsort(v, n, sizeof(*v), double_cmp);
	s->state = MG_METRIC_NUMBER;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Look a metric up in every run: absent when no run has it, invalid when
 * some run lacks it or holds a non-number. */
static void runs_metric(struct run_stats *s, const cJSON *runs, const char *const *keys)
{
	size_t n = (size_t)cJSON_GetArraySize(runs), have = 0, numeric = 0;
	double *v = mg_xcalloc(n, sizeof(*v));
	const cJSON *run, *x;

	memset(s, 0, sizeof(*s));
	cJSON_ArrayForEach(run, runs) {
		if (!(x = first_key(run, keys)))
			continue;
		have++;
		if (cJSON_IsNumber(x) && isfinite(x->valuedouble))
			v[numeric++] = x->valuedouble;
	}
	if (have)
		s->state = MG_METRIC_INVALID;
	if (numeric == n)
		runs_summarise(s, v, n);
	free(v);
}

/*
 * One metric: own keys, then the sub-object (measured metrics only), then
 * the runs (NULL when the candidate has none, and for paired values).  Sets
 * *outside when an aggregate value lies outside the runs' range.
 */
static mg_metric read_metric(const struct parse *p, const cJSON *cand,
				 const cJSON *runs, enum mg_metric_id id, bool *outside)
{
	const struct metric_place *pl = &places[id];
	const cJSON *v = first_key(cand, pl->keys);
	mg_metric m = { MG_METRIC_ABSENT, 0, { 0, 0 } };
	struct run_stats s = { MG_METRIC_ABSENT, 0, 0, 0 };

	if (!v && pl->sub)
		v = first_key(mg_json__get(cand, pl->sub), pl->keys);
	if (runs)
		runs_metric(&s, runs, pl->keys);
	if (v) {
		m = metric_of(p, v);
		if (m.state == MG_METRIC_NUMBER && s.state == MG_METRIC_NUMBER &&
		    (m.value < s.min || m.value > s.max))
			*outside = true;
	} else if (s.state != MG_METRIC_ABSENT) {
		m.state = s.state;
		m.value = s.state == MG_METRIC_NUMBER ? s.median : 0;
		m.pos = pos_of(p, runs);
	}
	return m;
}

/* ---- candidates --------------------------------------------------- */

/* runs[] when it is a non-empty array (else NULL); errors past the limit. */
static int read_runs(const cJSON **out, const struct parse *p, const cJSON *cand)
{
	const cJSON *runs = mg_json__get(cand, "runs");
	int n = cJSON_IsArray(runs) ? cJSON_GetArraySize(runs) : 0;

	*out = NULL;
	if (n > MG_REPORT_MAX_RUNS)
		return mg_error_at(p->err, p->path, pos_of(p, runs),
				   "too many runs (%d; the limit is %d)", n, MG_REPORT_MAX_RUNS);
	if (n > 0)
		*out = runs;
	return MG_OK;
}

static int read_name(mg_candidate *c, const struct parse *p, const cJSON *cand)
{
	const cJSON *name = mg_json__get(cand, "name");
	size_t n;

	if (!cJSON_IsString(name))
		return MG_OK;
	if ((n = strlen(name->valuestring)) > MG_REPORT_MAX_NAME)
		return mg_error_at(p->err, p->path, pos_of(p, name),
				   "candidate name too long (%zu bytes; the limit is %d)",
				   n, MG_REPORT_MAX_NAME);
	c->name = mg_xstrdup(name->valuestring);
	return MG_OK;
}

static void read_status(mg_candidate *c, const cJSON *cand)
{
	const cJSON *status = mg_json__get(cand, "status");
	const cJSON *oom = mg_json__get(mg_json__get(cand, "metrics"), "oom");

	if (!status)
		c->status = mg_xstrdup("ok");
	else if (cJSON_IsString(status))
		c->status = mg_xstrdup(status->valuestring);
	c->oom = (c->status && !strcmp(c->status, "oom")) || cJSON_IsTrue(oom);
}

static int read_candidate(mg_candidate *c, const struct parse *p, const cJSON *cand)
{
	const cJSON *runs = NULL;
	int error, m;

	c->pos = pos_of(p, cand);
	c->repeats = 1;
	if (!cJSON_IsObject(cand)) {
		c->status = mg_xstrdup("ok");
		return MG_OK;
	}
	if ((error = read_name(c, p, cand)) < 0 || (error = read_runs(&runs, p, cand)) < 0)
		return error;
	read_status(c, cand);
	if (runs)
		c->repeats = cJSON_GetArraySize(runs);
	for (m = 0; m < MG_METRIC_COUNT; m++)
		c->metric[m] = read_metric(p, cand, places[m].sub ? runs : NULL, m,
					   &c->aggregate_outside_runs);
	return MG_OK;
}

static int read_candidates(mg_evidence *ev, const struct parse *p, const cJSON *root)
{
	const cJSON *list = mg_json__get(root, "candidates");
	const cJSON *item;
	int n, error = MG_OK;

	ev->candidates_pos = pos_of(p, list ? list : root);
	if (!cJSON_IsArray(list))
		return MG_OK;
	ev->candidates_present = true;
	if ((n = cJSON_GetArraySize(list)) > MG_REPORT_MAX_CANDIDATES)
		return mg_error_at(p->err, p->path, ev->candidates_pos,
				   "too many candidates (%d; the limit is %d)",
				   n, MG_REPORT_MAX_CANDIDATES);
	ev->candidates = mg_xcalloc((size_t)n, sizeof(*ev->candidates));
	cJSON_ArrayForEach(item, list) {
		error = read_candidate(&ev->candidates[ev->candidate_count++], p, item);
		if (error < 0)
			break;
	}
	return error;
}

/* ---- the report --------------------------------------------------- */

static void read_producer(mg_report *r, const cJSON *root)
{
	const cJSON *d = mg_json__get(root, "decision");

	if (cJSON_IsString(d)) {
		r->producer_decision = mg_xstrdup(d->valuestring);
		return;
	}
	r->producer_decision = member_string(d, "decision");
	r->producer_reason = member_string(d, "reason");
}

static int read_report(mg_report *r, const struct parse *p)
{
	const cJSON *root = mg_json__root(p->j);

	if (!cJSON_IsObject(root))
		return mg_error_at(p->err, p->path, pos_of(p, root),
				   "report must be a JSON object, not %s",
				   mg_json__type_name(root));
	read_identity(&r->evidence, p, root);
	read_handoff(&r->evidence, p, root);
	r->schema_version = member_value(p, root, "schema_version");
	r->semantic_id = member_value(p, root, "semantic_id");
	read_producer(r, root);
	return read_candidates(&r->evidence, p, root);
}

int mg_report_parse(mg_report **out, const char *path, const char *text,
		    size_t len, mg_error *err)
{
	mg_json *j = NULL;
	mg_report *r = NULL;
	struct parse p;
	int error;

	assert(out);
	*out = NULL;
	if ((error = mg_json__parse(&j, path, text, len, 0, err)) < 0)
		goto done;
	p.j = j;
	p.path = path;
	p.err = err;
	r = mg_xcalloc(1, sizeof(*r));
	r->path = mg_xstrdup(path ? path : "");
	if ((error = read_report(r, &p)) < 0)
		goto done;
	*out = r;
	r = NULL;
done:
	mg_report_free(r);
	mg_json__free(j);
	return error;
}

static void evidence_release(mg_evidence *ev)
{
	size_t i;
	int k;

	for (k = 0; k < MG_ID_COUNT; k++)
		value_release(&ev->identity[k]);
	value_release(&ev->handoff_status);
	for (i = 0; i < ev->eligible_count; i++)
		free(ev->eligible[i]);
	free(ev->eligible);
	for (i = 0; i < ev->candidate_count; i++) {
		free(ev->candidates[i].name);
		free(ev->candidates[i].status);
	}
	free(ev->candidates);
}

void mg_report_free(mg_report *r)
{
	if (!r)
		return;
	evidence_release(&r->evidence);
	value_release(&r->schema_version);
	value_release(&r->semantic_id);
	free(r->producer_decision);
	free(r->producer_reason);
	free(r->path);
	free(r);
}
