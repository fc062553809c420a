#ifndef MEMGATE_DECISION_MEMO_H
#define MEMGATE_DECISION_MEMO_H
/*
 * Many decisions of one evidence under rules that differ only in their
 * threshold values (the tipping-point search of insight.c): what mg_decide
 * derives from the evidence, the waivers and the rank order alone, kept
 * from one decision to the next.  Internal to the decision core.
 */
#include <stdbool.h>
#include "memgate/decision.h"
#include "memgate/error.h"

typedef struct mg_decision__memo mg_decision__memo;

/* A memo for `rules` (their waivers, rank order and baseline) and `ev`,
 * both borrowed for its life; the caller's: mg_decision__memo_free.  `d`,
 * when not NULL, is mg_decide's decision of the same rules and evidence:
 * the memo borrows its base screening (at 10^5 candidates, 10 MB not made
 * twice), so d must outlive the memo. */
mg_decision__memo *mg_decision__memo_new(const mg_rules *rules, const mg_evidence *ev,
					 const mg_decision *d);

/*
 * mg_decide(out, rules, ev, pre_issues, NULL, 0, err) through the memo:
 * the same decision, byte for byte.  `rules` may differ from the memo's
 * in threshold values only (the budget's and the grid axes'), not in
 * which are set, nor in waivers, rank order, baseline or grid sizes.
 * The decision's scenarios, and its base screening when its budget is
 * the memo's, are the memo's, lent: free the decision (mg_decision_free)
 * before the next one through the memo, and before the memo.
 */
int mg_decision__decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
			const bool pre_issues[MG_ISSUE_COUNT], mg_decision__memo *memo,
			mg_error *err);

void mg_decision__memo_free(mg_decision__memo *memo);

#endif
