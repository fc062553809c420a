/*
 * The policy's waivers on a day: in force, expired, spent, expiring,
 * applied or matching nothing (their messages: result.c).  See waivers.h and
 * include/memgate/check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "date.h"
#include "waivers.h"

/* The policy's waivers in force today (not expired, not spent: see
 * res->waiver_spent), for the decision core; sets res->waivers (replacing
 * those of an earlier decision of the same run) and their expired and
 * spent ones.  A malloc'd array of *n. */
mg_waiver *mg_waivers__in_force(size_t *n, mg_check_result *res)
{
	const mg_policy *p = res->policy;
	mg_waiver *active = mg_xcalloc(p->waiver_count ? p->waiver_count : 1, sizeof(*active));
	char why[MG_DATE_WHY];
	int today = 0;
	size_t i;

	mg_date_parse(&today, res->today, strlen(res->today), why);   /* checked: check.c */
	free(res->waivers);   /* a run may decide twice (check.c, select_on_numbers) */
	res->waivers = mg_xcalloc(p->waiver_count ? p->waiver_count : 1, sizeof(*res->waivers));
	res->waiver_count = p->waiver_count;
	*n = 0;
	for (i = 0; i < p->waiver_count; i++) {
		res->waivers[i].waiver = &p->waivers[i];
		if (p->waivers[i].expires_ymd < today) {
			res->waivers[i].status = MG_WAIVER_EXPIRED;
			continue;
		}
		if (res->waiver_spent && res->waiver_spent[i].spent) {
			res->waivers[i].status = MG_WAIVER_SPENT;
			res->waivers[i].spent_pct = res->waiver_spent[i].pct;
			memcpy(res->waivers[i].spent_at, res->waiver_spent[i].commit,
			       sizeof(res->waivers[i].spent_at));
			continue;
		}
		res->waivers[i].days_left = (int)(mg_date_days(p->waivers[i].expires_ymd) -
						  mg_date_days(today));
		res->waivers[i].expiring = p->waivers_warn_days > 0 &&
			res->waivers[i].days_left <= p->waivers_warn_days;
		active[*n].candidate = p->waivers[i].candidate;
		active[*n].up_to_pct = p->waivers[i].up_to_pct;
		active[(*n)++].reason = p->waivers[i].reason;
	}
	return active;
}

/* After the decision: which waivers in force applied to something, and
 * the change a regression's waiver accepted. */
void mg_waivers__judge(mg_check_result *res)
{
	const mg_evidence *ev = &res->report->evidence;
	size_t i, j, k = 0;

	for (i = 0; i < res->waiver_count; i++) {
		mg_waiver_state *w = &res->waivers[i];

		for (j = 0; j < ev->candidate_count && !w->candidate_found; j++)
			w->candidate_found = ev->candidates[j].name &&
				!strcmp(ev->candidates[j].name, w->waiver->candidate);
		if (w->status == MG_WAIVER_EXPIRED || w->status == MG_WAIVER_SPENT)
			continue;
		w->status = k < res->decision->waiver_count && res->decision->waiver_used[k] ?
			MG_WAIVER_APPLIED : MG_WAIVER_UNMATCHED;
		for (j = 0; j < res->decision->waived_count; j++)
			if (res->decision->waived[j].waiver == k) {
				w->accepted_pct = res->decision->waived[j].pct;
				break;
			}
		k++;
	}
}
