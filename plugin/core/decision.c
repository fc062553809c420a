/* The decision core (memgate(1), HOW MEMGATE DECIDES): see
 * include/memgate/decision.h. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/noise.h"
#include "byname.h"
#include "decision_memo.h"
#include "screening.h"
#include "sensitivity.h"
#include "tables.h"

/* ---- evidence issues (memgate(1), HOW MEMGATE DECIDES, 1.) ---- */

static bool value_equal(const mg_value *a, const mg_value *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == MG_VALUE_STRING)
		return a->string && b->string && !strcmp(a->string, b->string);
	if (a->kind == MG_VALUE_NUMBER)
		return a->number == b->number;
	return false;
}

/* The issues of the pinned identity fields (workload and hardware always). */
static void identity_issues(bool *issue, const mg_rules *rules, const mg_evidence *ev)
{
	static const enum mg_issue mismatch[MG_ID_COUNT] = {
		MG_ISSUE_WORKLOAD_MISMATCH, MG_ISSUE_HARDWARE_MISMATCH,
		MG_ISSUE_MODEL_MISMATCH, MG_ISSUE_DTYPE_MISMATCH,
		MG_ISSUE_AMP_DTYPE_MISMATCH, MG_ISSUE_BATCH_SIZE_MISMATCH,
		MG_ISSUE_SEQ_LEN_MISMATCH, MG_ISSUE_OPTIMIZER_MISMATCH,
	};
	static const enum mg_issue missing[MG_ID_COUNT] = {
		MG_ISSUE_WORKLOAD_MISSING, MG_ISSUE_HARDWARE_MISSING,
		MG_ISSUE_COUNT, MG_ISSUE_COUNT, MG_ISSUE_COUNT,
		MG_ISSUE_COUNT, MG_ISSUE_COUNT, MG_ISSUE_COUNT,
	};
	size_t id;

	for (id = 0; id < MG_ID_COUNT; id++) {
		const mg_value *have = &ev->identity[id], *pin = &rules->pin[id];

		if (missing[id] == MG_ISSUE_COUNT && pin->kind == MG_VALUE_ABSENT)
			continue;
		if (missing[id] != MG_ISSUE_COUNT && have->kind == MG_VALUE_ABSENT)
			issue[missing[id]] = true;
		else if (!value_equal(have, pin))
			issue[mismatch[id]] = true;
	}
}

bool mg_identity_matches(const mg_rules *rules, const mg_evidence *ev)
{
	bool issue[MG_ISSUE_COUNT] = { false };
	size_t i;

	identity_issues(issue, rules, ev);
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (issue[i])
			return false;
	return true;
}

static bool handoff_ready(const mg_value *status)
{
	return status->kind == MG_VALUE_ABSENT ||
	       (status->kind == MG_VALUE_STRING && status->string &&
		!strcmp(status->string, "ready_for_budget_review"));
}

static void find_issues(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			const bool *pre_issues)
{
	size_t i;

	for (i = 0; pre_issues && i <= MG_ISSUE_PRE_LAST; i++)
		d->issue[i] = pre_issues[i];
	for (i = MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE; pre_issues && i < MG_ISSUE_COUNT; i++)
		d->issue[i] = pre_issues[i];   /* the appended ones, all passed in */
	d->issue[MG_ISSUE_HANDOFF_NOT_READY] = !handoff_ready(&ev->handoff_status);
	identity_issues(d->issue, rules, ev);
	d->issue[MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING] = ev->handoff && !ev->eligible_count;
	d->issue[MG_ISSUE_CANDIDATES_MISSING] = !ev->candidates_present || !ev->candidate_count;
	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].aggregate_outside_runs)
			d->issue[MG_ISSUE_AGGREGATE_OUTSIDE_RUNS] = true;
	d->applicable = true;
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			d->applicable = false;
}

/* ---- the base decision (memgate(1), HOW MEMGATE DECIDES, 3.) ---- */

/* 2.3 step 4: the first non-baseline candidate by rank that passes every
 * hard limit, or NULL. */
static const mg_evaluation *near_miss(const mg_decision *d, const mg_rules *rules,
				      const mg_evidence *ev)
{
	const mg_evaluation *found = NULL;
	size_t n, i, base = 0;
	bool has_base = mg_find_baseline(&base, rules, ev);
	size_t *idx = mg_screening__ranked(&n, &d->base, MG_STATUS_REJECTED, rules->rank_by);
	const unsigned hard = mg_tables__hard_reasons();

	for (i = 0; i < n && !found; i++) {
		const mg_evaluation *e = &d->base.evaluations[idx[i]];

		if (!(e->reasons & hard) && !(has_base && e->index == base))
			found = e;
	}
	free(idx);
	return found;
}

/* 2.3 steps 4 and 5. */
static void decide_without_feasible(mg_decision *d, const mg_rules *rules,
				    const mg_evidence *ev)
{
	const mg_evaluation *e = near_miss(d, rules, ev);

	if (!e)
		mg_tables__conclude(d, MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET);
	else if (e->reasons & BIT(MG_R_QUALITY_DELTA_OVER_LIMIT))
		mg_tables__conclude(d, MG_O_COMPRESSION_NEEDS_QUALITY_RECOVERY);
	else if (e->reasons & BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR))
		mg_tables__conclude(d, MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD);
	else if (e->reasons & BIT(MG_R_THROUGHPUT_BELOW_FLOOR))
		mg_tables__conclude(d, MG_O_THROUGHPUT_LOSS_EXCEEDS_BUDGET);
	else
		mg_tables__conclude(d, MG_O_TRADE_OFF_BELOW_FLOOR);
	d->selected = e ? e->name : NULL;
}

/* Decides 2.3 steps 1-5; returns the step that decided, and 3 with
 * *sensitive set when sensitivity (2.5) makes the decision. */
static int decide_base(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
		       bool *sensitive)
{
	size_t base;

	*sensitive = false;
	if (!d->applicable) {
		mg_tables__conclude(d, MG_O_EVIDENCE_NOT_APPLICABLE);
		return 1;
	}
	if (d->base.needs_missing_baseline) {
		mg_tables__conclude(d, MG_O_BASELINE_MISSING_OR_INVALID);
		return 2;
	}
	if (!d->base.feasible_count) {
		decide_without_feasible(d, rules, ev);
		return 4;
	}
	if (mg_find_baseline(&base, rules, ev) && d->base.feasible[0] == base)
		mg_tables__conclude(d, MG_O_BASELINE_STILL_BEST_UNDER_CURRENT_BUDGET);
	else
		*sensitive = true;
	return 3;
}

/* Which waivers let their candidate pass in the base screening (the
 * scenarios mark theirs as they run). */
static void mark_used_waivers(mg_decision *d, const mg_rules *rules, const size_t *target)
{
	size_t w;

	d->waiver_count = rules->waiver_count;
	d->waiver_used = mg_xcalloc(d->waiver_count ? d->waiver_count : 1,
				    sizeof(*d->waiver_used));
	for (w = 0; w < rules->waiver_count; w++) {
		size_t i = target[w];

		if (i != SIZE_MAX && mg_reason_waivable(rules->waivers[w].reason))
			d->waiver_used[w] = (d->base.evaluations[i].waived &
					     BIT(rules->waivers[w].reason)) != 0;
	}
}

/* ---- regressions against the base (memgate(1), REGRESSIONS AND HISTORY) ---- */

/*
 * For each candidate of ev (by its index): its namesake at the base, the
 * first of that name there, when it is itself the first of its name in ev;
 * else NULL.  Both reports sorted by name (mg_byname_candidates), then
 * joined in one pass, so that covers: all costs n log n, not n^2, per
 * decision.  The caller frees the array.
 */
static const mg_candidate **match_base(const mg_evidence *ev, const mg_evidence *base)
{
	const mg_candidate **match = mg_xcalloc(ev->candidate_count + 1, sizeof(*match));
	size_t hn, bn, i = 0, j = 0;
	mg_named *h = mg_byname_candidates(&hn, ev), *b = mg_byname_candidates(&bn, base);
	int c;

	while (i < hn && j < bn) {
		c = strcmp(h[i].name, b[j].name);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			/* the first of the name on each side, then past it on ours */
			match[h[i].index] = &base->candidates[b[j].index];
			for (i++; i < hn && !strcmp(h[i].name, b[j].name); i++)
				;
		}
	}
	free(h);
	free(b);
	return match;
}

/* The change of def's metric from b (the base) to h in def's unit, and with
 * runs on both sides its band (interval arithmetic over the runs' ranges,
 * as evidence.noise derives its bands); false when it cannot be had. */
static bool change_of(double *v, mg_band *band, const mg_threshold_def *def,
		      const mg_candidate *b, const mg_candidate *h)
{
	enum mg_metric_id m = def->metric;
	double bv, hv, bmin, bmax, hmin, hmax;

	if (!mg_screening__has_number(b, m) || !mg_screening__has_number(h, m))
		return false;
	bv = b->metric[m].value;
	hv = h->metric[m].value;
	if (def->vs_base != MG_VS_RISE && !(bv > 0))
		return false;
	bmin = b->run_min[m];
	bmax = b->run_max[m];
	hmin = h->run_min[m];
	hmax = h->run_max[m];
	band->known = b->run_band[m] && h->run_band[m] && (def->vs_base == MG_VS_RISE || bmin > 0);
	switch (def->vs_base) {
	case MG_VS_RISE:
		*v = hv - bv;
		band->min = hmin - bmax;
		band->max = hmax - bmin;
		break;
	case MG_VS_RISE_PCT:
		*v = (hv - bv) / bv * 100.0;
		band->min = (hmin / bmax - 1.0) * 100.0;
		band->max = (hmax / bmin - 1.0) * 100.0;
		break;
	default:
		*v = (bv - hv) / bv * 100.0;
		band->min = (1.0 - hmax / bmin) * 100.0;
		band->max = (1.0 - hmin / bmax) * 100.0;
		break;
	}
	*v = mg_tables__as_written(*v);   /* equality passes, as written */
	return isfinite(*v);
}

/*
 * regression.noise_test: mann_whitney: the p-value of the one-sided exact
 * Mann-Whitney test that the head's runs of def's metric lie beyond the
 * base's runs moved by the allowance `limit` (b + limit, b (1 + limit/100),
 * or for a drop b (1 - limit/100), the values then negated so that "beyond"
 * is "above").  Both candidates have the metric's run values.
 */
static double rank_test(const mg_threshold_def *def, const mg_candidate *b,
			const mg_candidate *h, double limit)
{
	enum mg_metric_id m = def->metric;
	size_t nb = (size_t)b->repeats, nh = (size_t)h->repeats, i;
	double *x = mg_xmalloc((nb + nh) * sizeof(*x)), *y = x + nb, p;
	double sign = def->vs_base == MG_VS_RISE || def->vs_base == MG_VS_RISE_PCT ? 1 : -1;

	for (i = 0; i < nb; i++) {
		double bv = b->run_value[m][i];

		x[i] = def->vs_base == MG_VS_RISE ? bv + limit :
		       def->vs_base == MG_VS_RISE_PCT ? bv * (1.0 + limit / 100.0) :
		       bv * (1.0 - limit / 100.0);
		x[i] *= sign;
	}
	for (i = 0; i < nh; i++)
		y[i] = sign * h->run_value[m][i];
	p = mg_noise_mann_whitney(x, nb, y, nh);
	free(x);
	return p;
}

/* The change of def's metric from b to h in percent of b's value, worse
 * positive (as written), or NAN when b's value is not > 0. */
static double change_pct(const mg_threshold_def *def, const mg_candidate *b,
			 const mg_candidate *h)
{
	double bv = b->metric[def->metric].value, hv = h->metric[def->metric].value;

	if (!(bv > 0))
		return NAN;
	return mg_tables__as_written(def->vs_base == MG_VS_DROP_PCT ? (bv - hv) / bv * 100.0
								    : (hv - bv) / bv * 100.0);
}

/* The waiver of rules that accepts a change of `pct` % of candidate
 * `name`'s reason r (within its up_to_pct), or SIZE_MAX. */
static size_t accepting_waiver(const mg_rules *rules, const char *name, enum mg_reason r,
			       double pct)
{
	size_t w;

	for (w = 0; w < rules->waiver_count; w++)
		if (rules->waivers[w].reason == r && rules->waivers[w].candidate &&
		    !strcmp(rules->waivers[w].candidate, name) && pct <= rules->waivers[w].up_to_pct)
			return w;
	return SIZE_MAX;
}

/* What def's change from b to h is under rg: not beyond its limit, beyond
 * it but within the runs' noise (regression.noise_test), or a regression.
 * *v and *band get the change and its band (band->known: the runs decided),
 * *p the rank test's p-value (else NAN). */
enum judged { NOT_BEYOND, WITHIN_NOISE, COUNTS };
static enum judged judge(double *v, mg_band *band, double *p, const mg_regression *rg, int t,
			 const mg_candidate *b, const mg_candidate *h)
{
	const mg_threshold_def *def = &mg_tables__thresholds[t];

	*p = NAN;
	if (!rg->limits.set[t] || !change_of(v, band, def, b, h) ||
	    !mg_tables__fails(def, *v, rg->limits.value[t]))
		return NOT_BEYOND;
	if (band->known && (rg->noise_test == MG_NOISE_TEST_RANGE ||
			    !b->run_value[def->metric] || !h->run_value[def->metric])) {
		if (rg->noise_test != MG_NOISE_TEST_RANGE)
			band->known = false;   /* no values to rank: the point values decide */
		else if (mg_band_within(band, rg->limits.value[t], def->ceiling))
			return WITHIN_NOISE;
	} else if (band->known) {
		*p = rank_test(def, b, h, rg->limits.value[t]);
		if (!(*p <= (rg->alpha > 0 ? rg->alpha : MG_REGRESSION_DEFAULT_ALPHA)))
			return WITHIN_NOISE;
	}
	return COUNTS;
}

bool mg_regression_step(double *pct, const mg_regression *rg, enum mg_reason reason,
			const mg_candidate *b, const mg_candidate *h)
{
	mg_band band;
	double v, p;
	int t;

	assert(pct && rg && b && h);
	*pct = NAN;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (mg_tables__thresholds[t].reason == reason &&
		    judge(&v, &band, &p, rg, t, b, h) == COUNTS) {
			*pct = change_pct(&mg_tables__thresholds[t], b, h);
			return true;
		}
	return false;
}

/* One judgment of a candidate's change under a regression threshold: what
 * judge() and change_pct() make of it, kept by a memo (the candidates, the
 * base and regression: are the same in every decision through one). */
struct judgment {
	bool known;
	enum judged judged;
	double v, p, pct, limit;
	mg_band band;
};

/* What a memo keeps of the regression (decide_regression): the base's
 * namesakes, the judgments (ev's candidates x thresholds) and the
 * candidates without a namesake, each made by the first decision. */
struct regress_memo {
	const mg_candidate **match;
	struct judgment *judged;
	bool unmatched_made;
	const char **unmatched, **lookalike, *unmatched_selected;
	size_t unmatched_count;
};

/* judge() and change_pct() of def's change from b to h, through the memo's
 * judgment of candidate c when there is a memo. */
static enum judged judge_kept(double *v, mg_band *band, double *p, double *pct,
			      const mg_regression *rg, int t, const mg_candidate *b,
			      const mg_candidate *h, struct regress_memo *rm, size_t c)
{
	struct judgment *j = rm ? &rm->judged[c * MG_THRESHOLD_COUNT + t] : NULL;
	enum judged judged;

	if (j && j->known && j->limit == rg->limits.value[t]) {
		*v = j->v;
		*band = j->band;
		*p = j->p;
		*pct = j->pct;
		return j->judged;
	}
	judged = judge(v, band, p, rg, t, b, h);
	*pct = judged == NOT_BEYOND ? NAN : change_pct(&mg_tables__thresholds[t], b, h);
	if (j)
		*j = (struct judgment){ true, judged, *v, *p, *pct, rg->limits.value[t], *band };
	return judged;
}

/* Compares evaluation i with its namesake at the base, adding what counts. */
static void regress_candidate(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			      const mg_candidate *const *match, size_t i, struct regress_memo *rm)
{
	const mg_regression *rg = &rules->regression;
	const mg_evaluation *e = &d->base.evaluations[i];
	const mg_candidate *h = &ev->candidates[e->index], *b;
	mg_band band;
	double v, p;
	int t;

	if (!e->name || !*e->name || !(b = match[e->index]))
		return;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = &mg_tables__thresholds[t];
		mg_regressed *r, **list;
		size_t *count, w;
		enum judged judged;
		double pct;

		if (!rg->limits.set[t])
			continue;
		judged = judge_kept(&v, &band, &p, &pct, rg, t, b, h, rm, e->index);
		if (judged == NOT_BEYOND)
			continue;
		w = judged == COUNTS ? accepting_waiver(rules, e->name, def->reason, pct) : SIZE_MAX;
		list = judged == WITHIN_NOISE ? &d->within_noise :
		       w == SIZE_MAX ? &d->regressed : &d->waived;
		count = judged == WITHIN_NOISE ? &d->regression_within_noise :
			w == SIZE_MAX ? &d->regressed_count : &d->waived_count;
		if (w != SIZE_MAX)
			d->waiver_used[w] = true;
		*list = mg_xrealloc(*list, (*count + 1) * sizeof(**list));
		r = &(*list)[(*count)++];
		r->index = i;
		r->name = e->name;
		r->threshold = (enum mg_threshold)t;
		r->base = b->metric[def->metric].value;
		r->head = h->metric[def->metric].value;
		r->change = v;
		r->limit = rg->limits.value[t];
		r->runs = band.known;
		r->pct = pct;
		r->waiver = w;
		r->p = p;
		r->band_min = band.known ? band.min : NAN;
		r->band_max = band.known ? band.max : NAN;
	}
}

/* Whether a and b differ only in white space or ASCII case. */
static bool looks_like(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || (*a >= '\t' && *a <= '\r'))
			a++;
		while (*b == ' ' || (*b >= '\t' && *b <= '\r'))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if ((*a | (*a >= 'A' && *a <= 'Z' ? 0x20 : 0)) !=
		    (*b | (*b >= 'A' && *b <= 'Z' ? 0x20 : 0)))
			return false;
		a++;
		b++;
	}
}

/* The look-alikes searched for: the first unmatched names only, so that a
 * report of many renamed candidates costs no more than this many passes. */
#define LOOKALIKE_MAX 16

/*
 * The covered candidates of the base with no candidate of exactly their
 * name now (d->unmatched): the one the base selected and, with covers:
 * all, each other (the first of each name), each with a look-alike now.
 */
static void find_unmatched(mg_decision *d, const mg_regression *rg, const mg_evidence *ev,
			   struct regress_memo *rm)
{
	const mg_evidence *base = rg->base;
	size_t hn, j, k, n, bytes;
	mg_named *h, *b;
	const char *name;

	if (rm && rm->unmatched_made) {
		bytes = rm->unmatched_count * sizeof(char *);
		d->unmatched = bytes ? memcpy(mg_xmalloc(bytes), rm->unmatched, bytes) : NULL;
		d->unmatched_lookalike = bytes ? memcpy(mg_xmalloc(bytes), rm->lookalike, bytes)
					       : NULL;
		d->unmatched_count = rm->unmatched_count;
		d->unmatched_selected = rm->unmatched_selected;
		return;
	}
	h = mg_byname_candidates(&hn, ev);
	b = mg_byname_candidates(&n, base);

	for (j = 0; j < base->candidate_count; j++) {
		name = base->candidates[j].name;
		if (!name || !*name || mg_byname_find(b, n, name)->index != j ||
		    mg_byname_find(h, hn, name))
			continue;
		if (rg->covers != MG_COVERS_ALL &&
		    !(rg->base_selected && !strcmp(rg->base_selected, name)))
			continue;
		d->unmatched = mg_xrealloc(d->unmatched, (d->unmatched_count + 1) * sizeof(char *));
		d->unmatched_lookalike = mg_xrealloc(d->unmatched_lookalike,
						     (d->unmatched_count + 1) * sizeof(char *));
		d->unmatched[d->unmatched_count] = name;
		d->unmatched_lookalike[d->unmatched_count] = NULL;
		for (k = 0; d->unmatched_count < LOOKALIKE_MAX && k < ev->candidate_count; k++)
			if (ev->candidates[k].name && looks_like(ev->candidates[k].name, name)) {
				d->unmatched_lookalike[d->unmatched_count] = ev->candidates[k].name;
				break;
			}
		if (rg->base_selected && !strcmp(rg->base_selected, name))
			d->unmatched_selected = name;
		d->unmatched_count++;
	}
	free(h);
	free(b);
	if (rm) {
		bytes = d->unmatched_count * sizeof(char *);
		rm->unmatched = bytes ? memcpy(mg_xmalloc(bytes), d->unmatched, bytes) : NULL;
		rm->lookalike = bytes ? memcpy(mg_xmalloc(bytes), d->unmatched_lookalike, bytes)
				      : NULL;
		rm->unmatched_count = d->unmatched_count;
		rm->unmatched_selected = d->unmatched_selected;
		rm->unmatched_made = true;
	}
}

/* The evaluation named `name` (by pointer, else by text), or SIZE_MAX. */
static size_t evaluation_named(const mg_decision *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name == name)
			return i;
	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name && !strcmp(d->base.evaluations[i].name, name))
			return i;
	return SIZE_MAX;
}

/*
 * After the budget has decided: compare the covered candidates with the
 * base (the one selected now, the one the base selected, then with covers:
 * all every other in report order).  A regression that counts decides
 * (tune, or reject with regression.decision: reject) unless the budget
 * already decided more strictly; it names the candidate that regressed.
 * Else the base's selected candidate having no namesake now decides the
 * same way (regression_not_compared): a rename must not escape the budget.
 */
static void decide_regression(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			      struct regress_memo *rm)
{
	const mg_regression *rg = &rules->regression;
	size_t first[2], i, k;
	bool *seen;
	const mg_candidate **match;
	enum mg_verdict verdict = rg->reject ? MG_REJECT : MG_TUNE;

	if (!mg_regression_active(rg) || !rg->base || !d->applicable ||
	    d->reason == MG_O_BASELINE_MISSING_OR_INVALID)
		return;
	d->regression_checked = true;
	if (rm && !rm->match) {
		rm->match = match_base(ev, rg->base);
		rm->judged = mg_xcalloc(ev->candidate_count * MG_THRESHOLD_COUNT + 1,
					sizeof(*rm->judged));
	}
	match = rm ? rm->match : match_base(ev, rg->base);
	seen = mg_xcalloc(d->base.count + 1, sizeof(*seen));
	first[0] = evaluation_named(d, d->selected);
	first[1] = evaluation_named(d, rg->base_selected);
	for (k = 0; k < 2; k++)
		if (first[k] != SIZE_MAX && !seen[first[k]]) {
			seen[first[k]] = true;
			regress_candidate(d, rules, ev, match, first[k], rm);
		}
	for (i = 0; rg->covers == MG_COVERS_ALL && i < d->base.count; i++)
		if (!seen[i])
			regress_candidate(d, rules, ev, match, i, rm);
	free(seen);
	if (!rm)
		free(match);
	find_unmatched(d, rg, ev, rm);
	if (!d->regressed_count && d->unmatched_selected && verdict >= d->verdict) {
		mg_tables__conclude(d, MG_O_REGRESSION_NOT_COMPARED);
		d->verdict = verdict;
		return;
	}
	if (!d->regressed_count || verdict < d->verdict)
		return;
	mg_tables__conclude(d, (enum mg_outcome)(MG_O_PEAK_MEMORY_REGRESSED +
		(mg_tables__thresholds[d->regressed[0].threshold].reason -
		 MG_R_PEAK_MEMORY_REGRESSED)));
	d->verdict = verdict;
	d->selected = d->regressed[0].name;
}

/* ---- mg_decide ---- */

/* Whether issue i is about the approval record (missing, changed, made
 * for other evidence, or its signature not an approver's) rather than the
 * evidence itself. */
static bool approval_issue(int i)
{
	return i == MG_ISSUE_APPROVED_RESULT_MISSING || i == MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH ||
	       i == MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE || i == MG_ISSUE_APPROVAL_UNVERIFIED;
}

/* Whether every issue but `but` is about the approval record or the
 * signature: nothing else is wrong with the evidence itself. */
static bool only_record_or_signature_besides(const mg_decision *d, int but)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && i != but && !approval_issue(i) && !MG_ISSUE_IS_SIGNATURE(i))
			return false;
	return true;
}

/*
 * The next action of an evidence issue that says more than "rebuild": stale
 * evidence (evidence_stale) is measured again, whatever else is wrong; a
 * measured commit the clone lacks (measured_commit_unknown, a squash-merged
 * pull request's commit, say) is fetched first when nothing else is wrong
 * with the evidence (the approval record and the signature aside: the
 * fetch may show the evidence stale, which a new signature or approval
 * would not mend); when the approved result is the only evidence issue,
 * the evidence itself is fine: the next action points at the approval
 * record, not at the GPU.  The decision and reason stay reject /
 * evidence_not_applicable.
 */
static void issue_next_action(mg_decision *d)
{
	int i;

	if (d->applicable)
		return;
	if (d->issue[MG_ISSUE_EVIDENCE_STALE] || d->issue[MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE]) {
		d->next_action = MG_N_MEASURE_AGAIN;  /* whatever else: measure today's code */
		return;
	}
	if (d->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] &&
	    only_record_or_signature_besides(d, MG_ISSUE_MEASURED_COMMIT_UNKNOWN)) {
		d->next_action = MG_N_FETCH_MEASURED_COMMIT;
		return;
	}
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && !approval_issue(i))
			return;
	if (d->issue[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH])
		d->next_action = MG_N_RESTORE_OR_REAPPROVE_APPROVED_RESULT;
	else if (d->issue[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] ||
		 d->issue[MG_ISSUE_APPROVAL_UNVERIFIED])
		d->next_action = MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE;   /* approve (again), signed */
	else
		d->next_action = MG_N_RECORD_AND_PIN_APPROVED_RESULT;
}

/* Signature issues, with or without the approved result's, and no other:
 * the evidence may be fine, it is its provenance that is not shown, so the
 * next action is to sign on the trusted runner.  Otherwise unchanged. */
static void signature_next_action(mg_decision *d)
{
	bool signature = false;
	int i;

	if (d->applicable)
		return;
	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!d->issue[i])
			continue;
		if (MG_ISSUE_IS_SIGNATURE(i))
			signature = true;
		else if (!approval_issue(i))
			return;
	}
	if (signature)
		d->next_action = MG_N_SIGN_ON_TRUSTED_RUNNER;
}

/* The approved decision must agree with the one computed from applicable
 * evidence: its verdict and selected candidate. */
static void check_drift(mg_decision *d, const mg_approved *a)
{
	if (!a->decision || !d->applicable)
		return;
	d->approved_checked = true;
	d->computed_verdict = d->verdict;
	d->computed_reason = d->reason;
	d->computed_selected = d->selected;
	if (!strcmp(a->decision, mg_verdict_name(d->verdict)) &&
	    !strcmp(a->selected ? a->selected : "", d->selected ? d->selected : ""))
		return;
	d->drift = true;
	mg_tables__conclude(d, MG_O_DECISION_DRIFT);
	d->selected = NULL;
}

struct mg_decision__memo {
	const mg_evidence *ev;
	int *early;
	size_t *target;
	unsigned *waive;
	struct sens sens;
	mg_budget budget;          /* the memo's rules' budget, which `base` screened */
	mg_screening base;         /* lent to a decision whose budget is the same */
	struct regress_memo regress;
};

/*
 * The base screening of a decision: the screening depends on the rules'
 * budget and, fixed in a memo, on the evidence, waivers, rank order and
 * baseline; so a decision through the memo whose budget is the memo's own
 * (a grid value's tipping point) is lent the memo's screening, which no
 * step of the decision changes.
 */
static void screen_base(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			const int *early, const unsigned *waive, mg_decision__memo *memo)
{
	if (memo && mg_screening__budget_same(&rules->budget, &memo->budget)) {
		d->base = memo->base;
		d->base_lent = true;
		return;
	}
	mg_screening__screen(&d->base, rules, ev, &rules->budget, false,
			     memo ? memo->early : early, memo ? memo->waive : waive);
}

/* mg_decide, through `memo` when not NULL (mg_decision__decide). */
static int decide_with(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
		       const bool pre_issues[MG_ISSUE_COUNT], const mg_approved *approved,
		       size_t max_scenarios, mg_decision__memo *memo, mg_error *err)
{
	mg_decision *d = NULL;
	int *early = NULL;
	size_t *target = NULL;
	unsigned *waive = NULL;
	size_t count;
	bool sensitive;
	int error, step;

	assert(out && rules && ev && (rules->waivers || !rules->waiver_count));
	*out = NULL;
	if ((error = mg_sensitivity__count_scenarios(&count, rules, max_scenarios, err)) < 0 ||
	    (error = mg_sensitivity__check_evaluations(count, ev, err)) < 0)
		goto done;
	d = mg_xcalloc(1, sizeof(*d));
	d->budget = rules->budget;
	find_issues(d, rules, ev, pre_issues);
	if (!memo) {
		early = mg_screening__early_reasons(ev);
		target = mg_screening__waiver_targets(rules, ev);
		waive = mg_screening__waived_reasons(rules, ev, target);
	}
	screen_base(d, rules, ev, early, waive, memo);
	d->best = mg_screening__winner(&d->base);
	step = decide_base(d, rules, ev, &sensitive);
	d->sensitivity_evaluated = step >= 3;
	mark_used_waivers(d, rules, memo ? memo->target : target);
	if (d->sensitivity_evaluated && memo) {
		memo->sens.rules = rules;
		mg_sensitivity__run(d, &memo->sens, count, true);
	} else if (d->sensitivity_evaluated) {
		struct sens s;

		mg_sensitivity__init(&s, rules, ev, early, waive, target);
		mg_sensitivity__run(d, &s, count, false);
	}
	mg_sensitivity__summarize(d);
	if (sensitive)
		mg_sensitivity__decide(d);
	if (d->verdict == MG_ACCEPT && rules->noise == MG_NOISE_TUNE && d->base.feasible_count &&
	    mg_noise_of(NULL, rules, ev, &d->base, d->base.feasible[0]))
		mg_tables__conclude(d, MG_O_MARGIN_WITHIN_MEASUREMENT_NOISE);
	decide_regression(d, rules, ev, memo ? &memo->regress : NULL);
	issue_next_action(d);
	signature_next_action(d);
	if (approved)
		check_drift(d, approved);
	*out = d;
	d = NULL;
done:
	free(early);
	free(target);
	free(waive);
	mg_decision_free(d);
	return error;
}

int mg_decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
	      const bool pre_issues[MG_ISSUE_COUNT], const mg_approved *approved,
	      size_t max_scenarios, mg_error *err)
{
	return decide_with(out, rules, ev, pre_issues, approved, max_scenarios, NULL, err);
}

mg_decision__memo *mg_decision__memo_new(const mg_rules *rules, const mg_evidence *ev)
{
	mg_decision__memo *m = mg_xcalloc(1, sizeof(*m));

	assert(rules && ev);
	m->ev = ev;
	m->early = mg_screening__early_reasons(ev);
	m->target = mg_screening__waiver_targets(rules, ev);
	m->waive = mg_screening__waived_reasons(rules, ev, m->target);
	mg_sensitivity__init(&m->sens, rules, ev, m->early, m->waive, m->target);
	m->budget = rules->budget;
	mg_screening__screen(&m->base, rules, ev, &rules->budget, false, m->early, m->waive);
	return m;
}

int mg_decision__decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
			const bool pre_issues[MG_ISSUE_COUNT], mg_decision__memo *memo,
			mg_error *err)
{
	assert(memo && ev == memo->ev);
	return decide_with(out, rules, ev, pre_issues, NULL, 0, memo, err);
}

void mg_decision__memo_free(mg_decision__memo *memo)
{
	if (!memo)
		return;
	mg_sensitivity__release(&memo->sens);
	mg_screening_release(&memo->base);
	free(memo->sens.rank[0]);
	free(memo->sens.rank[1]);
	free(memo->early);
	free(memo->target);
	free(memo->waive);
	free(memo->regress.match);
	free(memo->regress.judged);
	free(memo->regress.unmatched);
	free(memo->regress.lookalike);
	free(memo);
}

size_t mg_decision_best(const mg_decision *d, size_t *out, size_t max)
{
	const mg_screening *s = &d->base;
	const unsigned hard = mg_tables__hard_reasons();
	size_t n = 0, i, pass;

	assert(d && (out || !max));
	for (i = 0; i < s->feasible_count && n < max; i++)
		out[n++] = s->feasible[i];
	for (pass = 0; pass < 3 && n < max; pass++)
		for (i = 0; i < s->count && n < max; i++) {
			const mg_evaluation *e = &s->evaluations[i];
			bool rejected = e->status == MG_STATUS_REJECTED;

			if ((pass == 0 && rejected && !(e->reasons & hard)) ||
			    (pass == 1 && rejected && (e->reasons & hard)) ||
			    (pass == 2 && !rejected && e->status != MG_STATUS_FEASIBLE))
				out[n++] = i;
		}
	return n;
}

void mg_decision_free(mg_decision *d)
{
	struct storage *st;
	bool lent;

	if (!d)
		return;
	if (!d->base_lent)
		mg_screening_release(&d->base);
	st = d->sensitivity_storage;
	lent = st && st->lent;   /* then the scenarios and their storage are a memo's */
	if (st && !lent) {
		free(st->rank[0]);
		free(st->rank[1]);
		free(st->bits);
		free(st);
	}
	if (!lent)
		free(d->scenarios);
	free(d->waiver_used);
	free(d->regressed);
	free(d->within_noise);
	free(d->waived);
	free(d->unmatched);
	free(d->unmatched_lookalike);
	free(d);
}

