/*
 * Measurement noise and the exchange rate: see include/memgate/noise.h.
 * Below both the decision (which applies evidence.noise and the
 * exchange-rate floor) and the insight (which reports them).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
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
	for (m = 0; m < MG_METRIC_COUNT; m++)
		if (mg_metric_measured((enum mg_metric_id)m) && c->run_band[m]) {
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

/* ---- the rank test ---- */

/* A pooled value and its side. */
struct ranked {
	double v;
	bool y;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *p = a, *q = b;

	return (p->v > q->v) - (p->v < q->v);
}

/* Binomial coefficient C(n, k) as a double (exact below 2^53). */
static double choose(size_t n, size_t k)
{
	double c = 1;
	size_t i;

	if (k > n)
		return 0;
	for (i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

/*
 * The exact upper tail P(S >= s_obs) of S, the sum of y's doubled mean
 * ranks, over the N pooled values in `g` runs of equal values (sizes
 * size[], doubled mean ranks twice[]): counted by taking k of each run in
 * turn, each way weighted by C(size, k).
 */
static double exact_tail(const size_t *size, const size_t *twice, size_t groups, size_t N,
			 size_t n, size_t s_obs)
{
	size_t top = 2 * N * n + 1, g, k, c, s;
	double *cnt = mg_xcalloc((n + 1) * top, sizeof(*cnt)), hit = 0, all = 0;

	cnt[0] = 1;
	for (g = 0; g < groups; g++)
		for (k = n; k >= 1; k--)
			for (c = 1; c <= k && c <= size[g]; c++) {
				double w = choose(size[g], c);
				size_t shift = c * twice[g];

				for (s = shift; s < top; s++)
					if (cnt[(k - c) * top + s - shift] != 0)
						cnt[k * top + s] += w * cnt[(k - c) * top + s - shift];
			}
	for (s = 0; s < top; s++) {
		all += cnt[n * top + s];
		if (s >= s_obs)
			hit += cnt[n * top + s];
	}
	free(cnt);
	return all > 0 ? hit / all : 1.0;
}

double mg_noise_mann_whitney(const double *x, size_t m, const double *y, size_t n)
{
	size_t N = m + n, i, j, groups = 0, s_obs = 0, *size, *twice;
	struct ranked *r;
	double ties = 0, u, var, z, p;

	assert((x || !m) && (y || !n));
	if (!m || !n)
		return 1.0;
	r = mg_xmalloc(N * sizeof(*r));
	size = mg_xmalloc(N * sizeof(*size));
	twice = mg_xmalloc(N * sizeof(*twice));
	for (i = 0; i < m; i++)
		r[i] = (struct ranked){ x[i], false };
	for (j = 0; j < n; j++)
		r[m + j] = (struct ranked){ y[j], true };
	qsort(r, N, sizeof(*r), ranked_cmp);
	for (i = 0; i < N; i = j) {   /* runs of equal values: ranks i+1 .. j */
		size_t k, t;

		for (j = i + 1; j < N && r[j].v == r[i].v; j++)
			;
		t = j - i;
		size[groups] = t;
		twice[groups] = (i + 1) + j;
		ties += (double)t * (double)t * (double)t - (double)t;
		for (k = i; k < j; k++)
			if (r[k].y)
				s_obs += twice[groups];
		groups++;
	}
	if (N <= MG_NOISE_EXACT_MAX) {
		p = exact_tail(size, twice, groups, N, n, s_obs);
	} else {
		u = (double)s_obs / 2.0 - (double)n * (double)(n + 1) / 2.0;
		var = (double)m * (double)n / 12.0 *
		      ((double)(N + 1) - ties / ((double)N * (double)(N - 1)));
		z = var > 0 ? (u - (double)m * (double)n / 2.0 - 0.5) / sqrt(var) : 0;
		p = var > 0 ? 0.5 * erfc(z / sqrt(2.0)) : 1.0;
	}
	free(r);
	free(size);
	free(twice);
	return p;
}

/* ---- where a series stepped ---- */

/* The mean of x[lo..hi) and the sum of squared deviations from it. */
static double segment(double *ss, const double *x, size_t lo, size_t hi)
{
	double sum = 0, mean, d;
	size_t i;

	for (i = lo; i < hi; i++)
		sum += x[i];
	mean = sum / (double)(hi - lo);
	*ss = 0;
	for (i = lo; i < hi; i++) {
		d = x[i] - mean;
		*ss += d * d;
	}
	return mean;
}

void mg_step_find(mg_step *out, const double *x, size_t n)
{
	size_t at;

	assert(out && (x || !n));
	memset(out, 0, sizeof(*out));
	if (n < MG_STEP_MIN_POINTS)
		return;
	for (at = 2; at < n; at++) {
		double ssb, ssa, mb = segment(&ssb, x, 0, at), ma = segment(&ssa, x, at, n);
		double diff = fabs(ma - mb), s2 = (ssb + ssa) / (double)(n - 2), t;

		if (s2 > 0)
			t = diff / sqrt(s2 * (1.0 / (double)at + 1.0 / (double)(n - at)));
		else
			t = diff > 0 ? INFINITY : 0;
		if (!out->at || t > out->t) {
			out->at = at;
			out->t = t;
			out->before = mb;
			out->after = ma;
		}
	}
	out->found = out->t >= MG_STEP_THRESHOLD;
}
