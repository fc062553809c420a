#ifndef MEMGATE_INSIGHT_H
#define MEMGATE_INSIGHT_H
/*
 * Beyond pass/fail (pure core, no I/O): exact tipping points of each
 * threshold, measurement-noise bands, the trade-off (Pareto) front and the
 * exchange rate of memory for throughput.
 *
 * An mg_insight belongs to the caller (mg_insight_free).  Names and reason
 * strings in it are borrowed from the evidence and from static tables: keep
 * the evidence alive while you use it.  Index fields are indices into the
 * decision's base evaluations (report order).
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "error.h"
#include "limits.h"   /* memgate's, in this directory */

/* ---- exchange rate ---- */

enum mg_exchange {
	MG_EXCHANGE_UNKNOWN,   /* saving or throughput ratio unknown */
	MG_EXCHANGE_FREE,      /* throughput ratio >= 1: no throughput lost */
	MG_EXCHANGE_RATE       /* MB saved per 1 % of throughput lost */
};

/* The exchange rate of e against the baseline:
 * memory_saving_mb / ((1 - throughput_ratio) * 100), computed in that
 * order, when the ratio is below 1. */
enum mg_exchange mg_insight_exchange(double *rate, const mg_evaluation *e);

/* Does e pass min_mb_saved_per_pct_throughput at `floor`?  A free candidate
 * and one whose rate cannot be known pass (the check is skipped). */
bool mg_insight_trade_passes(const mg_evaluation *e, double floor);

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
bool mg_insight_within(const mg_band *b, double x, bool ceiling);

/*
 * The noise of evaluation i of screening s (under rules->budget): fills
 * *out when out is not NULL and returns the `within` bits.  A derived band
 * takes the baseline's band from its runs, or its single value when it has
 * none.  A check is within noise when some runs pass it and some fail:
 * floor f with min < f <= max, ceiling c with min <= c < max.
 */
unsigned mg_insight_noise(mg_noise *out, const mg_rules *rules, const mg_evidence *ev,
			  const mg_screening *s, size_t i);

/* ---- tipping points ---- */

/* The searches' bounds, MG_INSIGHT_MAX_PROBES, MG_INSIGHT_MAX_WORK and
 * MG_INSIGHT_MAX_FRONT_WORK: limits.h. */

/* Where a tip's outcome starts, relative to its breakpoint `bound`: at it
 * (the bound itself changes the outcome), or only strictly below or above
 * it (the bound itself still keeps the current outcome). */
enum mg_tip_side {
	MG_TIP_AT,
	MG_TIP_BELOW,
	MG_TIP_ABOVE
};

typedef struct mg_tip {
	bool found;                  /* the outcome changes at `value` */
	bool limit_reached;          /* not found within `probe_limit` decisions */
	size_t probe_limit;          /* decisions this direction could re-run */
	size_t probes;               /* decisions re-run in this direction */
	double value;                /* the nearest value with another outcome */
	double bound;                /* the breakpoint: value, or its neighbour double */
	enum mg_tip_side side;       /* at, below or above bound */
	enum mg_verdict verdict;     /* the outcome there */
	const char *reason;
	const char *next_action;
	const char *selected;        /* borrowed, or NULL */
} mg_tip;

typedef struct mg_tipping {
	enum mg_threshold threshold;
	int axis;                    /* -1: the base budget; else the grid axis */
	size_t value_index;          /* the axis value (when axis >= 0) */
	double value;                /* the value as written */
	mg_tip down, up;             /* lower and higher values */
} mg_tipping;

/* ---- the trade-off front ---- */

#define MG_INSIGHT_NONE ((size_t)-1)

typedef struct mg_insight {
	size_t count;                /* the base evaluations */
	mg_noise *noise;             /* count entries */
	size_t with_runs;            /* candidates with a band */
	bool front_complete;         /* false when MG_INSIGHT_MAX_FRONT_WORK ran out */
	bool *on_front;              /* count entries */
	size_t *dominated_by;        /* count entries; MG_INSIGHT_NONE when not dominated
					or not compared */
	size_t front_count;
	size_t compared;             /* candidates with peak, samples/s and eval_loss */
	mg_tipping *tips;
	size_t tip_count;
	bool tips_evaluated;         /* false when the evidence does not apply */
} mg_insight;

/*
 * Compute the insight for decision d (made by mg_decide from rules, ev and
 * pre_issues).  Each tipping point re-runs the whole decision (sensitivity
 * included) with one threshold -- or one grid axis value -- changed, at
 * the candidates' own and derived values (and the noise bands' ends with
 * evidence.noise: tune), nearest first, up to the level MG_INSIGHT_MAX_WORK
 * allows per direction.  Values outside the threshold's valid range are not tried.
 * On success *out is the caller's.
 */
int mg_insight_compute(mg_insight **out, const mg_rules *rules, const mg_evidence *ev,
		       const bool pre_issues[MG_ISSUE_COUNT], const mg_decision *d,
		       mg_error *err);

void mg_insight_free(mg_insight *in);

#endif
