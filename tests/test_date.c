/* Dates and times (plugin/util/date.h): the one reader and its messages. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "date.h"
#include "memgate/error.h"

static void expect_date(const char *text, int want)
{
	char why[MG_DATE_WHY] = "";
	int ymd = 0;

	cr_expect_eq(mg_date_parse(&ymd, text, strlen(text), why), MG_OK, "%s: %s", text, why);
	cr_expect_eq(ymd, want, "%s", text);
}

static void expect_refused(const char *text, const char *message)
{
	char why[MG_DATE_WHY] = "";
	int ymd = 0;

	cr_expect_eq(mg_date_parse(&ymd, text, strlen(text), why), MG_ERROR, "%s", text);
	cr_expect_str_eq(why, message);
}

Test(date, reads_leap_days_of_leap_years_only)
{
	expect_date("2024-02-29", 20240229);
	expect_date("2000-02-29", 20000229);
	expect_refused("1900-02-29", "no such day '1900-02-29' (February 1900 has 28 days)");
	expect_refused("2025-02-29", "no such day '2025-02-29' (February 2025 has 28 days)");
}

Test(date, refuses_days_past_the_end_of_their_month)
{
	expect_refused("2026-02-30", "no such day '2026-02-30' (February 2026 has 28 days)");
	expect_refused("2024-02-30", "no such day '2024-02-30' (February 2024 has 29 days)");
	expect_refused("2027-04-31", "no such day '2027-04-31' (April 2027 has 30 days)");
	expect_refused("2027-01-00", "no such day '2027-01-00' (January 2027 has 31 days)");
	expect_refused("2027-13-01", "no such day '2027-13-01' (a month is 01 to 12)");
	expect_date("2027-12-31", 20271231);
}

Test(date, refuses_other_forms)
{
	static const char *const bad[] = { "2027-1-01", "2027/01/01", "+027-01-01", "0000-01-01",
					   "2027-01-01x", "20270101", "", "2027-01-0a" };
	char want[MG_DATE_WHY];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "expected a date YYYY-MM-DD, got '%s'", bad[i]);
		expect_refused(bad[i], want);
	}
}

Test(date, counts_days_across_leap_years)
{
	cr_expect_eq(mg_date_days(19700101), 0);
	cr_expect_eq(mg_date_days(19700102), 1);
	cr_expect_eq(mg_date_days(20240301) - mg_date_days(20240228), 2);
	cr_expect_eq(mg_date_days(20250301) - mg_date_days(20250228), 1);
	cr_expect_eq(mg_date_days(20261204), 20791);   /* 1796342400 s */
}

Test(date, reads_times_of_the_allowed_signers)
{
	char why[MG_DATE_WHY] = "";
	long long t = -1;

	cr_expect_eq(mg_date_parse_time(&t, "19700102", 8, why), MG_OK, "%s", why);
	cr_expect_eq(t, 86400);
	cr_expect_eq(mg_date_parse_time(&t, "197001020001Z", 13, why), MG_OK, "%s", why);
	cr_expect_eq(t, 86460);
	cr_expect_eq(mg_date_parse_time(&t, "19700102000001UTC", 17, why), MG_OK, "%s", why);
	cr_expect_eq(t, 86401);
	cr_expect_eq(mg_date_parse_time(&t, "20240229", 8, why), MG_OK, "%s", why);
	cr_expect_eq(mg_date_parse_time(&t, "20260229", 8, why), MG_ERROR);
	cr_expect_str_eq(why, "no such day '20260229' (February 2026 has 28 days)");
	cr_expect_eq(mg_date_parse_time(&t, "2026-02-03", 10, why), MG_ERROR);
	cr_expect_str_eq(why, "expected a time YYYYMMDD[HHMM[SS]][Z] from 1970, got '2026-02-03'");
	cr_expect_eq(mg_date_parse_time(&t, "19691231", 8, why), MG_ERROR);
	cr_expect_str_eq(why, "expected a time YYYYMMDD[HHMM[SS]][Z] from 1970, got '19691231'");
}
