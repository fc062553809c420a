/* Screening (memgate(1), HOW MEMGATE DECIDES, 2.): steps 1-7 for every
 * candidate under one budget, the rank order and the waivers' part: see
 * include/memgate/decision.h and screening.h. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/noise.h"
#include "byname.h"
#include "screening.h"
#include "tables.h"

/* ---- screening: steps 1-4 (independent of the budget) ---- */

/* A malloc'd flag per candidate: its name equals an earlier candidate's
 * (mg_byname_candidates: sorted once). */
static bool *find_duplicates(const mg_evidence *ev)
{
	bool *dup = mg_xcalloc(ev->candidate_count, sizeof(*dup));
	size_t i, n;
	mg_named *v = mg_byname_candidates(&n, ev);

	for (i = 1; i < n; i++)
		if (!strcmp(v[i - 1].name, v[i].name))
			dup[v[i].index] = true;
	free(v);
	return dup;
}

/* The handoff's eligible names, sorted once so that each candidate's step 4
 * is a binary search, not a scan of a list as long as the report allows. */
struct eligible {
	const char **names;
	size_t count;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void eligible_init(struct eligible *el, const mg_evidence *ev)
{
	size_t i;

	el->names = mg_xcalloc(ev->eligible_count, sizeof(*el->names));
	el->count = 0;
	for (i = 0; i < ev->eligible_count; i++)
		if (ev->eligible[i])
			el->names[el->count++] = ev->eligible[i];
	if (el->count > 1)
		qsort(el->names, el->count, sizeof(*el->names), name_cmp);
}

static bool is_eligible(const struct eligible *el, const char *name)
{
	return el->count &&
	       bsearch(&name, el->names, el->count, sizeof(*el->names), name_cmp);
}

static bool status_comparable(const char *status)
{
	return status && (!strcmp(status, "ok") || !strcmp(status, "comparable"));
}

/* The reason of the first of steps 1-4 that applies to candidate i, or -1. */
static int early_reason(const mg_evidence *ev, size_t i, const bool *dup,
			const struct eligible *el)
{
	const mg_candidate *c = &ev->candidates[i];

	if (!c->name || !*c->name || dup[i])
		return MG_R_MISSING_OR_DUPLICATE_NAME;
	if (c->oom)
		return MG_R_OOM;
	if (!status_comparable(c->status))
		return MG_R_EVIDENCE_NOT_COMPARABLE;
	if (ev->eligible_present && !is_eligible(el, c->name))
		return MG_R_NOT_IN_ELIGIBLE_CANDIDATES;
	return -1;
}

/* A malloc'd array: each candidate's step 1-4 reason, or -1. */
int *mg_screening__early_reasons(const mg_evidence *ev)
{
	int *early = mg_xcalloc(ev->candidate_count, sizeof(*early));
	bool *dup = find_duplicates(ev);
	struct eligible el;
	size_t i;

	eligible_init(&el, ev);
	for (i = 0; i < ev->candidate_count; i++)
		early[i] = early_reason(ev, i, dup, &el);
	free(el.names);
	free(dup);
	return early;
}

/* ---- screening: steps 5-6 ---- */

bool mg_screening__has_number(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_NUMBER;
}

static bool is_invalid(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_INVALID;
}

/*
 * Step 5: the first own number an active check of b needs that c lacks, or
 * -1.  Peak memory always; samples/s and eval loss for their thresholds and
 * to derive a ratio or delta the report does not give; a paired value the
 * report gives must be a finite number.
 */
static int missing_metric(const mg_candidate *c, const mg_budget *b)
{
	bool trade = b->set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT];
	bool need_samples = b->set[MG_MIN_SAMPLES_PER_S] ||
		((b->set[MG_MIN_THROUGHPUT_RATIO] || trade) &&
		 !mg_screening__has_number(c, MG_M_RATIO));
	bool need_loss = b->set[MG_MAX_EVAL_LOSS] || b->set[MG_MAX_RELATIVE_EVAL_LOSS] ||
		(b->set[MG_MAX_QUALITY_DELTA] && !mg_screening__has_number(c, MG_M_DELTA));
	int t;

	if (!mg_screening__has_number(c, MG_M_PEAK))
		return MG_M_PEAK;
	if (trade && is_invalid(c, MG_M_SAVING))
		return MG_M_SAVING;
	if (trade && is_invalid(c, MG_M_RATIO))
		return MG_M_RATIO;
	if (need_samples && !mg_screening__has_number(c, MG_M_SAMPLES))
		return MG_M_SAMPLES;
	if (need_loss && !mg_screening__has_number(c, MG_M_EVAL_LOSS))
		return MG_M_EVAL_LOSS;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t] && mg_tables__thresholds[t].metric >= MG_M_SAVING &&
		    is_invalid(c, mg_tables__thresholds[t].metric))
			return (int)mg_tables__thresholds[t].metric;
	return -1;
}

/* The reason of the first of steps 1-6 that applies, or -1 (step 7). */
int mg_screening__stop_reason(const mg_rules *rules, const mg_candidate *c,
			      const mg_budget *b, int early)
{
	if (early >= 0)
		return early;
	if (missing_metric(c, b) >= 0)
		return MG_R_MISSING_OR_NON_NUMERIC_METRIC;
	if (c->repeats < rules->min_repeats)
		return MG_R_INSUFFICIENT_REPEATS;
	return -1;
}

/* ---- screening: values and step 7 ---- */

/* Whether the measured baseline can give the value that metric m derives from. */
static bool base_gives(const struct screen_ctx *x, enum mg_metric_id m)
{
	const mg_candidate *bl = x->measured;

	if (!bl)
		return false;
	switch (m) {
	case MG_M_SAVING: return mg_screening__has_number(bl, MG_M_PEAK);
	case MG_M_RATIO:
		return mg_screening__has_number(bl, MG_M_SAMPLES) &&
		       bl->metric[MG_M_SAMPLES].value > 0;
	case MG_M_DELTA: return mg_screening__has_number(bl, MG_M_EVAL_LOSS);
	default: return false;
	}
}

static void set_value(mg_evaluation *e, enum mg_metric_id m, double v)
{
	e->known[m] = true;
	e->value[m] = v;
}

/* Derives metric d of e from the measured baseline; false when it cannot. */
static bool derive(double *v, const struct screen_ctx *x, const mg_evaluation *e,
		   enum mg_metric_id d)
{
	const mg_metric *bl = x->measured ? x->measured->metric : NULL;

	if (!base_gives(x, d))
		return false;
	if (d == MG_M_SAVING && e->known[MG_M_PEAK])
		*v = bl[MG_M_PEAK].value - e->value[MG_M_PEAK];
	else if (d == MG_M_RATIO && e->known[MG_M_SAMPLES])
		*v = e->value[MG_M_SAMPLES] / bl[MG_M_SAMPLES].value;
	else if (d == MG_M_DELTA && e->known[MG_M_EVAL_LOSS])
		*v = e->value[MG_M_EVAL_LOSS] - bl[MG_M_EVAL_LOSS].value;
	else
		return false;
	return true;
}

/* Fills the own and paired numbers, then the derived values that can be
 * had: the measured baseline's own are saving 0, ratio 1, delta 0. */
void mg_screening__fill_values(const struct screen_ctx *x, mg_evaluation *e, bool is_base)
{
	static const enum mg_metric_id derived[] = { MG_M_SAVING, MG_M_RATIO, MG_M_DELTA };
	static const double base_value[] = { 0.0, 1.0, 0.0 };
	const mg_candidate *c = &x->ev->candidates[e->index];
	size_t k;
	double v;

	for (k = 0; k < MG_METRIC_COUNT; k++)
		if (mg_screening__has_number(c, (enum mg_metric_id)k))
			set_value(e, (enum mg_metric_id)k, c->metric[k].value);
	for (k = 0; k < 3; k++) {
		if (e->known[derived[k]])
			continue;
		if (is_base && x->measured)
			set_value(e, derived[k], base_value[k]);
		else if (derive(&v, x, e, derived[k]))
			set_value(e, derived[k], v);
	}
	if (mg_exchange_rate(&v, e) == MG_EXCHANGE_RATE)
		set_value(e, MG_M_RATE, v);
}

/* True when a non-baseline candidate at step 7 needs a value that the
 * baseline cannot give (memgate(1), HOW MEMGATE DECIDES, 3.: baseline_missing_or_invalid). */
bool mg_screening__needs_missing_base(const struct screen_ctx *x, const mg_candidate *c)
{
	const mg_budget *b = x->b;
	bool trade = b->set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT];
	bool need_ratio = b->set[MG_MIN_THROUGHPUT_RATIO] || trade ||
		x->rules->rank_by == MG_RANK_THROUGHPUT;

	if ((b->set[MG_MIN_MEMORY_SAVING_MB] || trade) &&
	    !mg_screening__has_number(c, MG_M_SAVING) && !base_gives(x, MG_M_SAVING))
		return true;
	if (need_ratio && !mg_screening__has_number(c, MG_M_RATIO) && !base_gives(x, MG_M_RATIO))
		return true;
	if (b->set[MG_MAX_QUALITY_DELTA] && !mg_screening__has_number(c, MG_M_DELTA) &&
	    !base_gives(x, MG_M_DELTA))
		return true;
	return b->set[MG_MAX_RELATIVE_EVAL_LOSS] && !base_gives(x, MG_M_DELTA);
}

/* Sets the screening's effective quality ceiling (memgate(1), HOW MEMGATE DECIDES, 2.: quality_over_floor). */
static void find_ceiling(mg_screening *s, const struct screen_ctx *x)
{
	const mg_budget *b = x->b;
	bool rel = b->set[MG_MAX_RELATIVE_EVAL_LOSS] && base_gives(x, MG_M_DELTA);
	double rel_ceiling = 0.0;

	s->quality_ceiling_from = -1;
	if (rel) {
		rel_ceiling = x->measured->metric[MG_M_EVAL_LOSS].value *
			(1.0 + b->value[MG_MAX_RELATIVE_EVAL_LOSS]);
		s->quality_ceiling = rel_ceiling;
		s->quality_ceiling_from = MG_MAX_RELATIVE_EVAL_LOSS;
	}
	if (b->set[MG_MAX_EVAL_LOSS] && (!rel || b->value[MG_MAX_EVAL_LOSS] <= rel_ceiling)) {
		s->quality_ceiling = b->value[MG_MAX_EVAL_LOSS];
		s->quality_ceiling_from = MG_MAX_EVAL_LOSS;
	}
	s->quality_ceiling_known = s->quality_ceiling_from >= 0 &&
		(rel || !b->set[MG_MAX_RELATIVE_EVAL_LOSS]);
}

/* The step-7 reasons of e under budget b; checks on unknown values are skipped. */
static unsigned threshold_reasons(const mg_screening *s, const mg_evaluation *e,
				  const mg_budget *b)
{
	unsigned r = 0;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = &mg_tables__thresholds[t];

		/* both quality ceilings: the effective one, below */
		if (def->reason == MG_R_QUALITY_OVER_FLOOR || !b->set[t])
			continue;
		if (e->known[def->metric] &&
		    mg_tables__fails(def, e->value[def->metric], b->value[t]))
			r |= BIT(def->reason);
	}
	if (s->quality_ceiling_from >= 0 &&
	    mg_tables__fails(&mg_tables__thresholds[MG_MAX_EVAL_LOSS], e->value[MG_M_EVAL_LOSS],
			     s->quality_ceiling))
		r |= BIT(MG_R_QUALITY_OVER_FLOOR);
	return r;
}

static void stop_at(mg_evaluation *e, int reason)
{
	static const enum mg_status status[] = {
		MG_STATUS_INVALID, MG_STATUS_OOM, MG_STATUS_EXCLUDED,
		MG_STATUS_EXCLUDED, MG_STATUS_INVALID, MG_STATUS_INVALID,
	};

	e->status = status[reason];
	e->reasons = BIT(reason);
}

/* Step 7 for a candidate that passed steps 1-6. */
static void check_candidate(mg_screening *s, const struct screen_ctx *x,
			    mg_evaluation *e, bool is_base)
{
	const mg_candidate *c = &x->ev->candidates[e->index];
	bool missing = !is_base && mg_screening__needs_missing_base(x, c);

	if (missing && x->scenario) {
		stop_at(e, MG_R_MISSING_OR_NON_NUMERIC_METRIC);
	} else {
		s->needs_missing_baseline |= missing;
		e->reasons = threshold_reasons(s, e, x->b);
		e->waived = e->reasons & x->waive[e->index];
		e->reasons &= ~e->waived;
		e->status = e->reasons ? MG_STATUS_REJECTED : MG_STATUS_FEASIBLE;
	}
}

/* ---- ranking (memgate(1), HOW MEMGATE DECIDES: Ranking) ---- */

/* Compares one key; a value that is not known sorts last. */
static int key_cmp(const mg_evaluation *a, const mg_evaluation *b,
		   enum mg_metric_id m, bool descending)
{
	int c;

	if (a->known[m] != b->known[m])
		return a->known[m] ? -1 : 1;
	if (!a->known[m])
		return 0;
	c = (a->value[m] > b->value[m]) - (a->value[m] < b->value[m]);
	return descending ? -c : c;
}

static int rank_cmp(const mg_evaluation *a, const mg_evaluation *b, enum mg_rank_by by)
{
	int c;

	if (by == MG_RANK_THROUGHPUT) {
		if ((c = key_cmp(a, b, MG_M_RATIO, true)) != 0 ||
		    (c = key_cmp(a, b, MG_M_PEAK, false)) != 0)
			return c;
	} else {
		if ((c = key_cmp(a, b, MG_M_PEAK, false)) != 0 ||
		    (c = key_cmp(a, b, MG_M_RATIO, true)) != 0)
			return c;
	}
	return key_cmp(a, b, MG_M_DELTA, false);
}

/* Stable merge sort of evaluation indices idx[0..n) using tmp[0..n). */
void mg_screening__rank_sort(size_t *idx, size_t *tmp, size_t n, const mg_evaluation *evs,
			     enum mg_rank_by by)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	mg_screening__rank_sort(idx, tmp, mid, evs, by);
	mg_screening__rank_sort(idx + mid, tmp, n - mid, evs, by);
	while (i < mid && j < n) {
		if (rank_cmp(&evs[idx[j]], &evs[idx[i]], by) < 0)
			tmp[k++] = idx[j++];
		else
			tmp[k++] = idx[i++];
	}
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

/* A malloc'd list of the evaluations with `status`, in rank order; sets *n. */
size_t *mg_screening__ranked(size_t *n, const mg_screening *s, enum mg_status status,
			     enum mg_rank_by by)
{
	size_t *idx = mg_xcalloc(s->count, sizeof(*idx));
	size_t *tmp = mg_xcalloc(s->count, sizeof(*tmp));
	size_t i;

	*n = 0;
	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].status == status)
			idx[(*n)++] = i;
	mg_screening__rank_sort(idx, tmp, *n, s->evaluations, by);
	free(tmp);
	return idx;
}

/* ---- screening: the whole budget ---- */

/* Screens every candidate; `early` holds each candidate's step 1-4 reason,
 * `waive` the reasons waived for it. */
void mg_screening__screen(mg_screening *s, const mg_rules *rules, const mg_evidence *ev,
			  const mg_budget *b, bool scenario, const int *early,
			  const unsigned *waive)
{
	struct screen_ctx x = {
		.rules = rules, .waive = waive, .ev = ev, .b = b, .scenario = scenario,
	};
	int *stop = mg_xcalloc(ev->candidate_count, sizeof(*stop));
	size_t i;

	memset(s, 0, sizeof(*s));
	s->count = ev->candidate_count;
	s->evaluations = mg_xcalloc(s->count, sizeof(*s->evaluations));
	for (i = 0; i < s->count; i++)
		stop[i] = mg_screening__stop_reason(rules, &ev->candidates[i], b, early[i]);
	x.has_base = mg_find_baseline(&x.base, rules, ev);
	if (x.has_base && stop[x.base] < 0)
		x.measured = &ev->candidates[x.base];
	s->baseline_measured = x.measured != NULL;
	find_ceiling(s, &x);
	for (i = 0; i < s->count; i++) {
		mg_evaluation *e = &s->evaluations[i];
		bool is_base = x.has_base && i == x.base;

		e->index = i;
		e->name = ev->candidates[i].name;
		e->repeats = ev->candidates[i].repeats;
		e->missing_metric = stop[i] == MG_R_MISSING_OR_NON_NUMERIC_METRIC ?
			missing_metric(&ev->candidates[i], b) : -1;
		mg_screening__fill_values(&x, e, is_base);
		if (stop[i] >= 0)
			stop_at(e, stop[i]);
		else
			check_candidate(s, &x, e, is_base);
	}
	s->feasible = mg_screening__ranked(&s->feasible_count, s, MG_STATUS_FEASIBLE,
					   rules->rank_by);
	free(stop);
}

bool mg_screening__budget_same(const mg_budget *a, const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (a->set[t] != b->set[t] ||
		    (a->set[t] && memcmp(&a->value[t], &b->value[t], sizeof(a->value[t]))))
			return false;
	return true;
}

/* ---- waivers ---- */

/*
 * A malloc'd array, one per waiver: the candidate it names (the first of
 * that name: a later one is a duplicate, stopped at step 1), or SIZE_MAX.
 */
size_t *mg_screening__waiver_targets(const mg_rules *rules, const mg_evidence *ev)
{
	size_t *target = mg_xcalloc(rules->waiver_count ? rules->waiver_count : 1,
				    sizeof(*target));
	size_t w, i;

	for (w = 0; w < rules->waiver_count; w++) {
		target[w] = SIZE_MAX;
		for (i = 0; i < ev->candidate_count && target[w] == SIZE_MAX; i++)
			if (ev->candidates[i].name && rules->waivers[w].candidate &&
			    !strcmp(ev->candidates[i].name, rules->waivers[w].candidate))
				target[w] = i;
	}
	return target;
}

/* A malloc'd array, one per candidate: the step-7 reasons waived for it. */
unsigned *mg_screening__waived_reasons(const mg_rules *rules, const mg_evidence *ev,
				       const size_t *target)
{
	unsigned *waive = mg_xcalloc(ev->candidate_count ? ev->candidate_count : 1,
				     sizeof(*waive));
	size_t w;

	for (w = 0; w < rules->waiver_count; w++)
		if (target[w] != SIZE_MAX && mg_reason_waivable(rules->waivers[w].reason))
			waive[target[w]] |= BIT(rules->waivers[w].reason);
	return waive;
}

/* mg_screening__screen() with its per-candidate inputs computed here: mg_screen and
 * mg_scenario_screen. */
static void screen_alone(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
			 const mg_budget *budget, bool scenario)
{
	int *early = mg_screening__early_reasons(ev);
	size_t *target = mg_screening__waiver_targets(rules, ev);
	unsigned *waive = mg_screening__waived_reasons(rules, ev, target);

	mg_screening__screen(out, rules, ev, budget, scenario, early, waive);
	free(waive);
	free(target);
	free(early);
}

void mg_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
	       const mg_budget *budget)
{
	assert(out && rules && ev && budget);
	screen_alone(out, rules, ev, budget, false);
}

void mg_screening_release(mg_screening *s)
{
	if (!s)
		return;
	free(s->evaluations);
	free(s->feasible);
	memset(s, 0, sizeof(*s));
}

/* The name of the first feasible candidate by rank, or NULL. */
const char *mg_screening__winner(const mg_screening *s)
{
	return s->feasible_count ? s->evaluations[s->feasible[0]].name : NULL;
}

void mg_scenario_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
			const mg_scenario *sc)
{
	assert(out && rules && ev && sc);
	screen_alone(out, rules, ev, &sc->budget, true);
}
