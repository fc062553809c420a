#ifndef MEMGATE_BYNAME_H
#define MEMGATE_BYNAME_H
/*
 * Candidates by name: one sorted index of a report's candidates or of a
 * screening's evaluations, for every module that matches, counts or finds
 * them by name (duplicates, the base's namesakes, the history's names, the
 * comparison with the base).  Sorting, not hashing: the names come from
 * reports anyone could once have committed, and a sort has no inputs that
 * make it slow.  (The baseline, the first candidate of its name, is found
 * here too: mg_find_baseline, include/memgate/decision.h.)
 */
#include <stddef.h>
#include "memgate/decision.h"

/* One named item of a list: its name (borrowed) and its place in the list. */
typedef struct mg_named {
	const char *name;
	size_t index;
} mg_named;

/*
 * The candidates of ev that have a name (NULL names left out, "" kept),
 * sorted by name, then by place: the first of a name leads its run.
 * *count is their number; the array is the caller's (free()), never NULL.
 */
mg_named *mg_byname_candidates(size_t *count, const mg_evidence *ev);

/* The same, of the evaluations of s. */
mg_named *mg_byname_evaluations(size_t *count, const mg_screening *s);

/* The first entry of `index` (`count` entries, sorted as above) named
 * `name`, or NULL (also for a NULL name): a binary search. */
const mg_named *mg_byname_find(const mg_named *index, size_t count, const char *name);

/* The name comparisons those have made in this process: for tests that
 * count their work (n log n in the names), instead of timing it. */
extern size_t mg_byname_compares;

#endif
