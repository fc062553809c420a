/*
 * The policy's waivers on a given day (plugin/check/waivers.c): in force or
 * expired, expiring, applied or matching nothing, and their messages.
 * Pure: the day is the result's `today`, never the clock.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "waivers.h"
#include "memgate/buf.h"

#define N 4

static struct {
	mg_policy policy;
	mg_policy_waiver w[N];
	mg_report report;
	mg_candidate cand[2];
	mg_decision decision;
	bool used[N];
	mg_check_result res;
} fx;

static void waiver(size_t i, const char *candidate, enum mg_reason reason, const char *expires)
{
	mg_policy_waiver *w = &fx.w[i];

	w->candidate = (char *)candidate;
	w->reason = reason;
	w->owner = (char *)"ml-infra";
	w->justification = (char *)"fixed in #42";
	strcpy(w->expires, expires);
	w->expires_ymd = atoi(expires) * 10000 + atoi(expires + 5) * 100 + atoi(expires + 8);
	fx.policy.waiver_count = i + 1;
}

static void setup(const char *today, int warn_days)
{
	memset(&fx, 0, sizeof(fx));
	fx.policy.waivers = fx.w;
	fx.policy.waivers_warn_days = warn_days;
	fx.cand[0].name = "baseline";
	fx.cand[1].name = "checkpoint";
	fx.report.evidence.candidates = fx.cand;
	fx.report.evidence.candidate_count = 2;
	fx.decision.waiver_used = fx.used;
	fx.res.policy = &fx.policy;
	fx.res.report = &fx.report;
	fx.res.decision = &fx.decision;
	strcpy(fx.res.today, today);
}

static mg_waiver *in_force(size_t *n)
{
	mg_waiver *active = mg_waivers__in_force(n, &fx.res);

	fx.decision.waiver_count = *n;
	return active;
}

static void expect_message(size_t i, const char *want, bool expiring)
{
	mg_buf b = MG_BUF_INIT;

	if (expiring)
		mg_check_waiver_expiring_message(&b, &fx.res, i);
	else
		mg_check_waiver_message(&b, &fx.res, i);
	cr_expect_str_eq(b.ptr, want);
	mg_buf_free(&b);
}

static void teardown_result(mg_waiver *active)
{
	free(active);
	free(fx.res.waivers);
}

Test(waivers, a_waiver_is_in_force_through_its_expiry_day_and_expired_the_day_after)
{
	mg_waiver *active;
	size_t n;

	setup("2027-01-31", 0);
	waiver(0, "checkpoint", MG_R_MEMORY_SAVING_BELOW_FLOOR, "2027-01-31");
	waiver(1, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2027-01-30");
	active = in_force(&n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(active[0].candidate, "checkpoint");
	cr_expect_eq(active[0].reason, MG_R_MEMORY_SAVING_BELOW_FLOOR);
	cr_expect_eq(fx.res.waiver_count, 2);
	cr_expect_eq(fx.res.waivers[0].days_left, 0);
	cr_expect_eq(fx.res.waivers[1].status, MG_WAIVER_EXPIRED);
	expect_message(1, "waiver for 'checkpoint' (memory_over_budget, owner ml-infra) expired "
		       "on 2027-01-30 and is ignored (today is 2027-01-31)", false);
	teardown_result(active);
}

Test(waivers, days_left_count_calendar_days_across_leap_days_and_years)
{
	mg_waiver *active;
	size_t n;

	setup("2028-02-27", 0);
	waiver(0, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2028-03-01");  /* 2028: a leap year */
	waiver(1, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2029-02-27");
	waiver(2, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2100-03-01");  /* 2100: none */
	active = in_force(&n);
	cr_assert_eq(n, 3);
	cr_expect_eq(fx.res.waivers[0].days_left, 3);
	cr_expect_eq(fx.res.waivers[1].days_left, 366);
	/* Python: (date(2100, 3, 1) - date(2028, 2, 27)).days */
	cr_expect_eq(fx.res.waivers[2].days_left, 26300);
	cr_expect_not(fx.res.waivers[0].expiring, "waivers_warn_days 0 warns never");
	teardown_result(active);
}

Test(waivers, expiring_means_within_waivers_warn_days_inclusive)
{
	mg_waiver *active;
	size_t n;

	setup("2027-01-01", 14);
	waiver(0, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2027-01-15");
	waiver(1, "checkpoint", MG_R_QUALITY_OVER_FLOOR, "2027-01-16");
	waiver(2, "baseline", MG_R_MEMORY_OVER_BUDGET, "2027-01-01");
	waiver(3, "baseline", MG_R_QUALITY_OVER_FLOOR, "2027-01-02");
	active = in_force(&n);
	cr_assert_eq(n, 4);
	cr_expect(fx.res.waivers[0].expiring);
	cr_expect_not(fx.res.waivers[1].expiring);
	cr_expect(fx.res.waivers[2].expiring);
	expect_message(0, "waiver for 'checkpoint' (memory_over_budget, owner ml-infra) expires "
		       "on 2027-01-15, in 14 days (waivers_warn_days 14; today is 2027-01-01): fix "
		       "the cause, or renew it in the policy of the base branch", true);
	expect_message(2, "waiver for 'baseline' (memory_over_budget, owner ml-infra) expires "
		       "on 2027-01-01, today (waivers_warn_days 14; today is 2027-01-01): fix the "
		       "cause, or renew it in the policy of the base branch", true);
	expect_message(3, "waiver for 'baseline' (quality_over_floor, owner ml-infra) expires "
		       "on 2027-01-02, in 1 day (waivers_warn_days 14; today is 2027-01-01): fix "
		       "the cause, or renew it in the policy of the base branch", true);
	teardown_result(active);
}

Test(waivers, judged_after_the_decision_in_the_order_of_those_in_force)
{
	mg_waiver *active;
	size_t n;

	setup("2027-01-01", 0);
	waiver(0, "checkpoint", MG_R_MEMORY_OVER_BUDGET, "2026-12-31");  /* expired */
	waiver(1, "checkpoint", MG_R_MEMORY_SAVING_BELOW_FLOOR, "2027-06-30");
	waiver(2, "ghost", MG_R_MEMORY_OVER_BUDGET, "2027-06-30");
	waiver(3, "baseline", MG_R_QUALITY_OVER_FLOOR, "2027-06-30");
	active = in_force(&n);
	cr_assert_eq(n, 3);
	fx.used[0] = true;   /* the decision's first waiver in force: waiver 1 */
	mg_waivers__judge(&fx.res);
	cr_expect_eq(fx.res.waivers[0].status, MG_WAIVER_EXPIRED);
	cr_expect(fx.res.waivers[0].candidate_found);
	cr_expect_eq(fx.res.waivers[1].status, MG_WAIVER_APPLIED);
	cr_expect_eq(fx.res.waivers[2].status, MG_WAIVER_UNMATCHED);
	cr_expect_not(fx.res.waivers[2].candidate_found);
	cr_expect_eq(fx.res.waivers[3].status, MG_WAIVER_UNMATCHED);
	expect_message(1, "waiver: 'checkpoint' passes memory_saving_below_floor until "
		       "2027-06-30 (owner ml-infra): fixed in #42", false);
	expect_message(2, "waiver for 'ghost' (memory_over_budget) matches nothing: the report "
		       "has no candidate 'ghost'; remove it or correct it", false);
	expect_message(3, "waiver for 'baseline' (quality_over_floor) matches nothing: "
		       "'baseline' does not fail quality_over_floor under the base budget nor in "
		       "any scenario; remove it or correct it", false);
	teardown_result(active);
}

Test(waivers, status_names_are_the_records_words)
{
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_APPLIED), "applied");
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_UNMATCHED), "unmatched");
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_EXPIRED), "expired");
	cr_expect_null(mg_check_waiver_status_name(MG_WAIVER_STATUS_COUNT));
}
