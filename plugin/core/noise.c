/*
 * Measurement noise and the exchange rate: see include/memgate/noise.h.
 * Below both the decision (which applies evidence.noise and the
 * exchange-rate floor) and the insight (which reports them).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "memgate/noise.h"

/* ---- exchange rate ---- */

enum mg_exchange mg_exchange_rate(double *rate, const mg_evaluation *e)
{
	double r;

	assert(rate && e);
	*rate = 0;
	if (!e->known[MG_M_SAVING] || !e->known[MG_M_RATIO])
		return MG_EXCHANGE_UNKNOWN;
	if (e->value[MG_M_RATIO] >= 1.0)
		return MG_EXCHANGE_FREE;
	r = e->value[MG_M_SAVING] / ((1.0 - e->value[MG_M_RATIO]) * 100.0);
	if (!isfinite(r))
		return MG_EXCHANGE_UNKNOWN;
	*rate = r;
	return MG_EXCHANGE_RATE;
}

bool mg_trade_passes(const mg_evaluation *e, double floor)
{
	double rate;

	return mg_exchange_rate(&rate, e) != MG_EXCHANGE_RATE || !(rate < floor);
}

/* ---- noise ---- */

/* The baseline's band of metric m: its runs' range, else its single value. */
static bool base_band(mg_band *out, const mg_candidate *bl, enum mg_metric_id m)
{
	out->known = false;
	if (bl->run_band[m]) {
		out->min = bl->run_min[m];
		out->max = bl->run_max[m];
	} else if (bl->metric[m].state == MG_METRIC_NUMBER) {
		out->min = out->max = bl->metric[m].value;
	} else {
		return false;
	}
	out->known = true;
	return true;
}

/* The derived bands (interval arithmetic) of a candidate that is not the
 * baseline, for the values it does not carry as paired values. */
static void derived_bands(mg_noise *n, const mg_candidate *c, const mg_candidate *bl)
{
	const mg_band *b = n->band;
	mg_band base;

	if (b[MG_M_PEAK].known && c->metric[MG_M_SAVING].state != MG_METRIC_NUMBER &&
	    base_band(&base, bl, MG_M_PEAK)) {
		n->band[MG_M_SAVING].known = true;
		n->band[MG_M_SAVING].min = base.min - b[MG_M_PEAK].max;
		n->band[MG_M_SAVING].max = base.max - b[MG_M_PEAK].min;
	}
	if (b[MG_M_SAMPLES].known && c->metric[MG_M_RATIO].state != MG_METRIC_NUMBER &&
	    base_band(&base, bl, MG_M_SAMPLES) && base.min > 0) {
		n->band[MG_M_RATIO].known = true;
		n->band[MG_M_RATIO].min = b[MG_M_SAMPLES].min / base.max;
		n->band[MG_M_RATIO].max = b[MG_M_SAMPLES].max / base.min;
	}
	if (b[MG_M_EVAL_LOSS].known && c->metric[MG_M_DELTA].state != MG_METRIC_NUMBER &&
	    base_band(&base, bl, MG_M_EVAL_LOSS)) {
		n->band[MG_M_DELTA].known = true;
		n->band[MG_M_DELTA].min = b[MG_M_EVAL_LOSS].min - base.max;
		n->band[MG_M_DELTA].max = b[MG_M_EVAL_LOSS].max - base.min;
	}
}

bool mg_band_within(const mg_band *b, double x, bool ceiling)
{
	if (!b->known)
		return false;
	return ceiling ? (b->min <= x && x < b->max) : (b->min < x && x <= b->max);
}

unsigned mg_noise_of(mg_noise *out, const mg_rules *rules, const mg_evidence *ev,
		 const mg_screening *s, size_t i)
{
	const mg_budget *b = &rules->budget;
	const mg_candidate *c = &ev->candidates[s->evaluations[i].index];
	mg_noise n;
	size_t base = 0;
	int m, t;

	assert(rules && ev && s && i < s->count);
	memset(&n, 0, sizeof(n));
	for (m = 0; m <= MG_M_EVAL_LOSS; m++)
		if (c->run_band[m]) {
			n.has_runs = true;
			n.band[m].known = true;
			n.band[m].min = c->run_min[m];
			n.band[m].max = c->run_max[m];
		}
	if (n.has_runs && s->baseline_measured && mg_find_baseline(&base, rules, ev) &&
	    base != s->evaluations[i].index)
		derived_bands(&n, c, &ev->candidates[base]);
	/* each threshold against its metric's band; both quality ceilings as
	 * the effective one, below */
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = mg_threshold_def_of((enum mg_threshold)t);

		if (def->reason != MG_R_QUALITY_OVER_FLOOR && b->set[t] &&
		    mg_band_within(&n.band[def->metric], b->value[t], def->ceiling))
			n.within |= 1u << t;
	}
	if (s->quality_ceiling_from >= 0 && s->quality_ceiling_known &&
	    mg_band_within(&n.band[MG_M_EVAL_LOSS], s->quality_ceiling, true))
		n.within |= 1u << s->quality_ceiling_from;
	if (out)
		*out = n;
	return n.within;
}
