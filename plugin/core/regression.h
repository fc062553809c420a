#ifndef MEMGATE_REGRESSION_H
#define MEMGATE_REGRESSION_H
/*
 * Regressions against the base (memgate(1), REGRESSIONS AND HISTORY): the
 * covered candidates compared with their namesakes in the base's report
 * (or the history's medians), after the budget has decided.  Internal to
 * the decision core.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/decision.h"

struct mg_regression__judgment;   /* regression.c's */

/*
 * What a decision memo (decision_memo.h) keeps of the regression: the
 * base's namesakes, the judgments (ev's candidates x thresholds) and the
 * candidates without a namesake, each made by the first decision through
 * it; none depends on the budget the memo's decisions vary.  Zeroed to
 * start; mg_regression__memo_release frees what it holds.
 */
struct mg_regression__memo {
	const mg_candidate **match;
	struct mg_regression__judgment *judged;
	bool unmatched_made;
	const char **unmatched, **lookalike, *unmatched_selected;
	size_t unmatched_count;
};

/*
 * After the budget has decided d: compare the covered candidates with the
 * base and decide as a regression decides (tune, or reject with
 * regression.decision: reject) unless the budget already decided more
 * strictly.  Through rm when not NULL (the same decision, byte for byte).
 */
void mg_regression__decide(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			   struct mg_regression__memo *rm);

void mg_regression__memo_release(struct mg_regression__memo *rm);

#endif
