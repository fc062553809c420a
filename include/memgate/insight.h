#ifndef MEMGATE_INSIGHT_H
#define MEMGATE_INSIGHT_H
/*
 * Beyond pass/fail (pure core, no I/O), a layer above the decision: exact
 * tipping points of each threshold, each candidate's measurement-noise
 * bands (noise.h) and the trade-off (Pareto) front.  It calls mg_decide;
 * the decision never calls it.
 *
 * An mg_insight belongs to the caller (mg_insight_free).  Names and reason
 * strings in it are borrowed from the evidence and from static tables: keep
 * the evidence alive while you use it.  Index fields are indices into the
 * decision's base evaluations (report order).
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "noise.h"
#include "error.h"
#include "limits.h"   /* memgate's, in this directory */

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
