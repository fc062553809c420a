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

/* The reasons of the hard limits. */
unsigned mg_tables__hard_reasons(void);

/* The reason a failed threshold gives. */
enum mg_reason mg_tables__threshold_reason(enum mg_threshold t);

/* Sets d's verdict, reason and next action to outcome o's. */
void mg_tables__conclude(mg_decision *d, enum mg_outcome o);

#endif
