#ifndef MEMGATE_TABLES_H
#define MEMGATE_TABLES_H
/*
 * The decision core's tables (tables.c): what the screening, the
 * sensitivity and the decision read beyond the accessors of
 * include/memgate/decision.h.  Internal to the decision core.
 */
#include <stdbool.h>
#include "memgate/decision.h"

/* The bit of reason r in a set of reasons (mg_evaluation.reasons). */
#define BIT(r) (1u << (r))

/* Every threshold's definition, in enum mg_threshold order. */
extern const mg_threshold_def mg_tables__thresholds[MG_THRESHOLD_COUNT];

/* Does value v fail threshold def at `limit` (NaN never does)? */
bool mg_tables__fails(const mg_threshold_def *def, double v, double limit);

/*
 * A value memgate computed from written decimals (a regression's change,
 * "(10 - 9.7) / 10 * 100"), as a person computes it: rounded to
 * MG_AS_WRITTEN_DIGITS significant digits, so that a change equal to its
 * allowance on the numbers as written is equal in doubles too (3, not
 * 3.0000000000000027).  Infinite, NaN and zero are returned as they are.
 * Reads and writes numbers in the C locale's format.
 */
#define MG_AS_WRITTEN_DIGITS 12
double mg_tables__as_written(double v);

/* The reasons of the hard limits. */
unsigned mg_tables__hard_reasons(void);

/* The reason a failed threshold gives. */
enum mg_reason mg_tables__threshold_reason(enum mg_threshold t);

/* Sets d's verdict, reason and next action to outcome o's. */
void mg_tables__conclude(mg_decision *d, enum mg_outcome o);

#endif
