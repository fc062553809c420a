#ifndef MEMGATE_NOISE_H
#define MEMGATE_NOISE_H
/*
 * Measurement noise and the exchange rate of memory for throughput (pure
 * core, no I/O): the measures that the decision applies (evidence.noise,
 * min_mb_saved_per_pct_throughput) and the insight reports (insight.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"

/* ---- exchange rate ---- */

enum mg_exchange {
	MG_EXCHANGE_UNKNOWN,   /* saving or throughput ratio unknown */
	MG_EXCHANGE_FREE,      /* throughput ratio >= 1: no throughput lost */
	MG_EXCHANGE_RATE       /* MB saved per 1 % of throughput lost */
};

/* The exchange rate of e against the baseline:
 * memory_saving_mb / ((1 - throughput_ratio) * 100), computed in that
 * order, when the ratio is below 1. */
enum mg_exchange mg_exchange_rate(double *rate, const mg_evaluation *e);

/* Does e pass min_mb_saved_per_pct_throughput at `floor`?  A free candidate
 * and one whose rate cannot be known pass (the check is skipped). */
bool mg_trade_passes(const mg_evaluation *e, double floor);

/* ---- measurement noise ---- */

typedef struct mg_band {
	bool known;
	double min, max;
} mg_band;

typedef struct mg_noise {
	bool has_runs;                  /* some metric has a band from runs */
	mg_band band[MG_METRIC_COUNT];  /* peak, samples, eval_loss from the runs;
					   saving, ratio, delta by interval
					   arithmetic with the baseline */
	unsigned within;                /* bit (1u << mg_threshold) per set check
					   whose threshold lies inside the band */
} mg_noise;

/* The rule of evidence.noise: does threshold value x lie inside band b, so
 * that some runs pass it and some fail (ceiling: min <= x < max; floor:
 * min < x <= max)?  False for a band not known. */
bool mg_band_within(const mg_band *b, double x, bool ceiling);

/*
 * The noise of evaluation i of screening s (under rules->budget): fills
 * *out when out is not NULL and returns the `within` bits.  A derived band
 * takes the baseline's band from its runs, or its single value when it has
 * none.  A check is within noise when some runs pass it and some fail:
 * floor f with min < f <= max, ceiling c with min <= c < max.
 */
unsigned mg_noise_of(mg_noise *out, const mg_rules *rules, const mg_evidence *ev,
		 const mg_screening *s, size_t i);

/* ---- the rank test of regression.noise_test: mann_whitney ---- */

/* Pooled run counts up to which the test's distribution is exact; above, the
 * normal approximation (a method parameter, memgate(1)). */
#define MG_NOISE_EXACT_MAX 40

/*
 * The one-sided Mann-Whitney test that y (n values) lies above x (m
 * values): the probability, when all C(m+n, n) ways of taking n of the
 * pooled values as y are equally likely, of a sum of y's ranks (tied
 * values sharing their mean rank) at least the one observed.  Exact for
 * m + n <= MG_NOISE_EXACT_MAX (counted, tie-aware); above, the normal
 * approximation of U = R - n(n+1)/2 with the tie-corrected variance and a
 * continuity correction of 1/2: p = erfc(z / sqrt 2) / 2, z = (U - mn/2 -
 * 1/2) / sd (1 when sd is 0).  No random numbers; 1 when m or n is 0.
 */
double mg_noise_mann_whitney(const double *x, size_t m, const double *y, size_t n);

/* ---- where a series stepped (regression.history) ---- */

/* The change-point method's parameters (memgate(1), REGRESSIONS AND
 * HISTORY): the fewest points looked at, and the statistic a step needs. */
#define MG_STEP_MIN_POINTS 5
#define MG_STEP_THRESHOLD 5.0

typedef struct mg_step {
	bool found;       /* the best split's statistic is at least MG_STEP_THRESHOLD */
	size_t at;        /* the best split: the first point after it (2 <= at < n) */
	double t;         /* its statistic (0 without a split; INFINITY when both
			     segments are constant and differ) */
	double before, after;   /* the two segments' means */
} mg_step;

/*
 * The single best split of x[0..n) (oldest first) into a before of at
 * least two points and an after of at least one: for each `at`, the
 * two-sample t statistic with pooled variance,
 *   t = |mean(after) - mean(before)| / sqrt(s2 (1/at + 1/(n - at))),
 *   s2 = (sum of squared deviations from each segment's mean) / (n - 2),
 * each mean and sum taken in index order; the largest t wins (the earliest
 * on a tie; a t of 0/0 counts as 0).  Nothing is looked at below
 * MG_STEP_MIN_POINTS points.  No random numbers, no permutations: the
 * threshold is fixed.
 */
void mg_step_find(mg_step *out, const double *x, size_t n);

#endif
