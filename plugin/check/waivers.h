#ifndef MEMGATE_WAIVERS_H
#define MEMGATE_WAIVERS_H
/*
 * The policy's waivers on the day res->today (waivers.c): which are in
 * force, and after the decision which applied.  Pure: no I/O, no clock.
 */
#include <stddef.h>
#include "memgate/check.h"

/* The policy's waivers in force on res->today (not expired), for the
 * decision core; fills res->waivers.  A malloc'd array of *n. */
mg_waiver *mg_waivers__in_force(size_t *n, mg_check_result *res);

/* After the decision: which waivers in force applied to something. */
void mg_waivers__judge(mg_check_result *res);

#endif
