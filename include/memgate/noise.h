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

#endif
