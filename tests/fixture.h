#ifndef MG_TEST_FIXTURE_H
#define MG_TEST_FIXTURE_H
/*
 * Plain data shared by the renderer tests (text, record, github, summary,
 * junit): a candidate's evaluation, a budget's thresholds and the seed
 * chapter's screening of four candidates.  Everything is built with
 * designated initializers, so that a field added to a struct never shifts
 * the others.
 */
#include <stdbool.h>
#include <stddef.h>

#include "memgate/decision.h"
#include "memgate/result.h"
#include "findings.h"

/* The seed baseline's measured metrics: derived values are against these. */
#define MG_FX_BASELINE_PEAK 9782.74
#define MG_FX_BASELINE_SAMPLES 2.009
#define MG_FX_BASELINE_LOSS 12.356503

/* Set threshold t of budget b to v. */
static inline void mg_fx_threshold(mg_budget *b, enum mg_threshold t, double v)
{
	b->set[t] = true;
	b->value[t] = v;
}

/* What a test says about one candidate. */
typedef struct mg_fx_candidate {
	const char *name;
	enum mg_status status;
	unsigned reasons;          /* bit (1u << mg_reason) */
	double peak, samples, loss;
} mg_fx_candidate;

/*
 * The evaluation of candidate `index`: its measured metrics as given, the
 * derived ones against the seed baseline (saving = baseline peak - peak,
 * ratio = samples / baseline samples, delta = loss - baseline loss), every
 * metric known, one repeat.
 */
static inline mg_evaluation mg_fx_evaluation(size_t index, mg_fx_candidate c)
{
	mg_evaluation e = {
		.index = index,
		.name = c.name,
		.status = c.status,
		.reasons = c.reasons,
		.repeats = 1,
	};
	int m;

	e.value[MG_M_PEAK] = c.peak;
	e.value[MG_M_SAMPLES] = c.samples;
	e.value[MG_M_EVAL_LOSS] = c.loss;
	e.value[MG_M_SAVING] = MG_FX_BASELINE_PEAK - c.peak;
	e.value[MG_M_RATIO] = c.samples / MG_FX_BASELINE_SAMPLES;
	e.value[MG_M_DELTA] = c.loss - MG_FX_BASELINE_LOSS;
	for (m = 0; m < MG_METRIC_COUNT; m++)
		e.known[m] = true;
	return e;
}

#define MG_FX_SEED_COUNT 4

/* Seed candidate i (0-3) under memory_cap_mb 11200, min_samples_per_s 1 and
 * min_memory_saving_mb 256: baseline, checkpoint (feasible), offload,
 * hybrid (feasible). */
static inline mg_fx_candidate mg_fx_seed(size_t i)
{
	static const mg_fx_candidate seed[MG_FX_SEED_COUNT] = {
		{ .name = "baseline", .status = MG_STATUS_REJECTED,
		  .reasons = 1u << MG_R_MEMORY_SAVING_BELOW_FLOOR,
		  .peak = 9782.74, .samples = 2.009, .loss = 12.356503 },
		{ .name = "checkpoint", .status = MG_STATUS_FEASIBLE,
		  .peak = 9450.76, .samples = 1.761, .loss = 12.356503 },
		{ .name = "offload", .status = MG_STATUS_REJECTED,
		  .reasons = 1u << MG_R_SAMPLES_PER_S_BELOW_FLOOR,
		  .peak = 9448.33, .samples = 0.533, .loss = 12.356503 },
		{ .name = "hybrid", .status = MG_STATUS_FEASIBLE,
		  .peak = 9454.64, .samples = 1.276, .loss = 12.356503 },
	};

	return seed[i];
}

/*
 * The seed screening: ev[] gets the four evaluations, feasible[] the
 * feasible set in rank order (checkpoint, hybrid).  No quality ceiling:
 * set one with mg_fx_ceiling.  The screening borrows both arrays.
 */
static inline mg_screening mg_fx_seed_screening(mg_evaluation ev[MG_FX_SEED_COUNT],
						size_t feasible[2])
{
	size_t i;

	for (i = 0; i < MG_FX_SEED_COUNT; i++)
		ev[i] = mg_fx_evaluation(i, mg_fx_seed(i));
	feasible[0] = 1;
	feasible[1] = 3;
	return (mg_screening){
		.evaluations = ev,
		.count = MG_FX_SEED_COUNT,
		.feasible = feasible,
		.feasible_count = 2,
		.quality_ceiling_from = -1,
		.baseline_measured = true,
	};
}

/* The screening's effective eval_loss ceiling v, set by threshold `from`. */
static inline void mg_fx_ceiling(mg_screening *s, enum mg_threshold from, double v)
{
	s->quality_ceiling = v;
	s->quality_ceiling_known = true;
	s->quality_ceiling_from = (int)from;
}

/* r as the check leaves it, its findings computed (mg_findings_fill) from
 * what the test built or changed: what renderers read.  Returns r. */
static inline mg_check_result *mg_fx_filled(mg_check_result *r)
{
	mg_findings_fill(r);
	return r;
}

/* The same for every result of a check --all's items. */
static inline const mg_check_item *mg_fx_filled_items(mg_check_item *items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (items[i].result)
			mg_findings_fill(items[i].result);
	return items;
}

#endif
