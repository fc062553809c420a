#ifndef MEMGATE_COMPARE_H
#define MEMGATE_COMPARE_H
/*
 * Comparing two screenings of the same candidates: a pull request's
 * evidence against its base's (memgate check --base).  Plain data: the
 * rows borrow the names of the decisions they come from.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/decision.h"

/* The metrics compared, in this order: peak memory (MB), samples/s, eval loss. */
#define MG_COMPARE_METRICS 3
extern const enum mg_metric_id mg_compare_metrics[MG_COMPARE_METRICS];

/* One metric at the base and now; delta = now - base when both are known. */
typedef struct mg_compare_value {
	bool base_known, head_known;
	double base, head;
} mg_compare_value;

/* A candidate by name: in the head's order, then those only the base has. */
typedef struct mg_compare_row {
	const char *name;          /* borrowed from a decision; NULL for a nameless one */
	bool in_base, in_head;
	enum mg_status base_status, head_status;   /* meaningful when in_base / in_head */
	mg_compare_value value[MG_COMPARE_METRICS];
} mg_compare_row;

/*
 * Match the base screenings' candidates by name (the first of a name; a
 * candidate without a name is never matched), in n log n name comparisons.
 * *rows is the caller's (free()); valid while both decisions live.
 */
void mg_compare_rows(mg_compare_row **rows, size_t *count, const mg_decision *base,
		     const mg_decision *head);

/* Name comparisons mg_compare_rows has made (in this process): for tests
 * that count its work, n log n in the candidates, instead of timing it. */
extern size_t mg_compare_name_compares;

/* Whether any compared value of the row differs or the row is new or gone. */
bool mg_compare_row_changed(const mg_compare_row *row);

#endif
