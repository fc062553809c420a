#ifndef MEMGATE_SCREENING_H
#define MEMGATE_SCREENING_H
/*
 * Screening (screening.c): steps 1-7 of memgate(1), HOW MEMGATE DECIDES for
 * every candidate under one budget, and the rank order.  What the
 * sensitivity and the decision share of it.  Internal to the decision core.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/decision.h"

/* One budget's screening: its inputs and the baseline. */
struct screen_ctx {
	const mg_rules *rules;
	const unsigned *waive;  /* per candidate: the reasons waived for it */
	const mg_evidence *ev;
	const mg_budget *b;
	bool scenario;          /* a missing baseline value makes a candidate invalid */
	bool has_base;          /* some candidate is named rules->baseline */
	size_t base;            /* the first such */
	const mg_candidate *measured; /* the baseline when it reached step 7, else NULL */
};

/* A malloc'd array: each candidate's step 1-4 reason, or -1. */
int *mg_screening__early_reasons(const mg_evidence *ev);

/* Whether c's metric m is a finite number. */
bool mg_screening__has_number(const mg_candidate *c, enum mg_metric_id m);

/* The reason of the first of steps 1-6 that applies, or -1 (step 7). */
int mg_screening__stop_reason(const mg_rules *rules, const mg_candidate *c,
			      const mg_budget *b, int early);

/* Fills e's own and paired numbers, then the derived values that can be had. */
void mg_screening__fill_values(const struct screen_ctx *x, mg_evaluation *e, bool is_base);

/* True when a non-baseline candidate at step 7 needs a value that the
 * baseline cannot give. */
bool mg_screening__needs_missing_base(const struct screen_ctx *x, const mg_candidate *c);

/* Stable merge sort of evaluation indices idx[0..n) into rank order, using tmp[0..n). */
void mg_screening__rank_sort(size_t *idx, size_t *tmp, size_t n, const mg_evaluation *evs,
			     enum mg_rank_by by);

/* A malloc'd list of the evaluations with `status`, in rank order; sets *n. */
size_t *mg_screening__ranked(size_t *n, const mg_screening *s, enum mg_status status,
			     enum mg_rank_by by);

/* Screens every candidate; `early` holds each candidate's step 1-4 reason,
 * `waive` the reasons waived for it. */
void mg_screening__screen(mg_screening *s, const mg_rules *rules, const mg_evidence *ev,
			  const mg_budget *b, bool scenario, const int *early,
			  const unsigned *waive);

/* Do a and b set the same thresholds to the same values, bit for bit?
 * (Then a screening under one is the screening under the other.) */
bool mg_screening__budget_same(const mg_budget *a, const mg_budget *b);

/* A malloc'd array, one per waiver: the candidate it names, or SIZE_MAX. */
size_t *mg_screening__waiver_targets(const mg_rules *rules, const mg_evidence *ev);

/* A malloc'd array, one per candidate: the step-7 reasons waived for it. */
unsigned *mg_screening__waived_reasons(const mg_rules *rules, const mg_evidence *ev,
				       const size_t *target);

/* The name of the first feasible candidate by rank, or NULL. */
const char *mg_screening__winner(const mg_screening *s);

#endif
