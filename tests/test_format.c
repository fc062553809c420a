/* format: how every renderer for people writes numbers and names. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "memgate/buf.h"
#include "memgate/format.h"

static void expect_value(double v, const double *limit, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_format_value(&b, v, limit);
	cr_expect_str_eq(b.ptr, want, "value %.17g", v);
	mg_buf_free(&b);
}

static void expect_threshold(double v, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_format_threshold(&b, v);
	cr_expect_str_eq(b.ptr, want, "threshold %.17g", v);
	mg_buf_free(&b);
}

static void expect_name(const char *name, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_format_name(&b, name);
	cr_expect_str_eq(b.ptr, want);
	mg_buf_free(&b);
}

Test(format, writes_values_in_their_shortest_natural_form)
{
	expect_value(9450.76, NULL, "9450.76");
	expect_value(11200, NULL, "11200");
	expect_value(0.7, NULL, "0.7");
	expect_value(1e300, NULL, "1e+300");
}

Test(format, never_writes_negative_zero)
{
	expect_value(-0.0, NULL, "0");
	expect_threshold(-0.0, "0");
}

Test(format, rounds_float_noise_to_six_digits)
{
	expect_value(9782.74 - 9450.76, NULL, "331.98");  /* 331.97999999999956 */
	expect_value(1.761 / 2.009, NULL, "0.876556");
}

Test(format, keeps_digits_that_decide_a_comparison)
{
	double limit = 0.7, v = 0.69999999999;

	/* Rounded, it would read "0.7 < 0.7". */
	expect_value(v, &limit, "0.69999999999");
	limit = 0.5;
	expect_value(v, &limit, "0.7");
}

Test(format, writes_thresholds_as_written)
{
	expect_threshold(512, "512");
	expect_threshold(0.02, "0.02");
	expect_threshold(12.60363306, "12.60363306");
}

Test(format, names_missing_and_empty_names)
{
	expect_name(NULL, "(no name)");
	expect_name("", "(empty name)");
	expect_name("checkpoint", "checkpoint");
}

Test(format, escapes_names)
{
	mg_buf b = MG_BUF_INIT;

	mg_format_name(&b, "evil\n::error::x");
	cr_expect_null(strchr(b.ptr, '\n'), "a newline survived: %s", b.ptr);
	mg_buf_free(&b);
}

Test(format, writes_overrides_in_threshold_order)
{
	mg_budget ov;
	mg_buf b = MG_BUF_INIT;

	memset(&ov, 0, sizeof(ov));
	mg_format_overrides(&b, &ov);
	cr_expect_str_eq(b.ptr, "", "no override writes nothing");
	ov.set[MG_MIN_SAMPLES_PER_S] = ov.set[MG_MEMORY_CAP_MB] = true;
	ov.value[MG_MIN_SAMPLES_PER_S] = 1.5;
	ov.value[MG_MEMORY_CAP_MB] = 8500;
	mg_format_overrides(&b, &ov);
	cr_expect_str_eq(b.ptr, "memory_cap_mb 8500, min_samples_per_s 1.5");
	mg_buf_free(&b);
}
