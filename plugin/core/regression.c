/*
 * Regressions against the base (memgate(1), REGRESSIONS AND HISTORY): the
 * decision's last step, after the budget has decided.  See regression.h.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/noise.h"
#include "byname.h"
#include "regression.h"
#include "screening.h"
#include "tables.h"

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
struct mg_regression__judgment {
	bool known;
	enum judged judged;
	double v, p, pct, limit;
	mg_band band;
};

/* judge() and change_pct() of def's change from b to h, through the memo's
 * judgment of candidate c when there is a memo. */
static enum judged judge_kept(double *v, mg_band *band, double *p, double *pct,
			      const mg_regression *rg, int t, const mg_candidate *b,
			      const mg_candidate *h, struct mg_regression__memo *rm, size_t c)
{
	struct mg_regression__judgment *j = rm ? &rm->judged[c * MG_THRESHOLD_COUNT + t] : NULL;
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
		*j = (struct mg_regression__judgment){ true, judged, *v, *p, *pct,
						       rg->limits.value[t], *band };
	return judged;
}

/* Compares evaluation i with its namesake at the base, adding what counts. */
static void regress_candidate(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			      const mg_candidate *const *match, size_t i, struct mg_regression__memo *rm)
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

/* A copy of n borrowed names (the caller frees the array), or NULL for none. */
static const char **copy_names(const char *const *src, size_t n)
{
	return n ? memcpy(mg_xmalloc(n * sizeof(*src)), src, n * sizeof(*src)) : NULL;
}

/*
 * The covered candidates of the base with no candidate of exactly their
 * name now (d->unmatched): the one the base selected and, with covers:
 * all, each other (the first of each name), each with a look-alike now.
 */
static void find_unmatched(mg_decision *d, const mg_regression *rg, const mg_evidence *ev,
			   struct mg_regression__memo *rm)
{
	const mg_evidence *base = rg->base;
	size_t hn, j, k, n;
	mg_named *h, *b;
	const char *name;

	if (rm && rm->unmatched_made) {
		d->unmatched = copy_names(rm->unmatched, rm->unmatched_count);
		d->unmatched_lookalike = copy_names(rm->lookalike, rm->unmatched_count);
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
		rm->unmatched = copy_names(d->unmatched, d->unmatched_count);
		rm->lookalike = copy_names(d->unmatched_lookalike, d->unmatched_count);
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
void mg_regression__decide(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			   struct mg_regression__memo *rm)
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

void mg_regression__memo_release(struct mg_regression__memo *rm)
{
	free(rm->match);
	free(rm->judged);
	free(rm->unmatched);
	free(rm->lookalike);
}
