/* format: how every renderer for people writes numbers and names. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "memgate/buf.h"
#include "format.h"

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

/* ---- exact numbers (the decision record) ---- */

static uint64_t state = 0x243f6a8885a308d3u;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* mg_format_exact(v) must be byte for byte what the snprintf path writes. */
static void expect_same(double v)
{
	mg_buf fast = MG_BUF_INIT, slow = MG_BUF_INIT;

	mg_format_exact(&fast, v);
	mg_format__exact_slow(&slow, v);
	cr_assert_str_eq(fast.ptr, slow.ptr, "%.17g: fast '%s', snprintf '%s'", v, fast.ptr,
			 slow.ptr);
	cr_assert_eq(strtod(fast.ptr, NULL), v, "'%s' does not read back as %.17g", fast.ptr, v);
	mg_buf_free(&fast);
	mg_buf_free(&slow);
}

static void expect_text(double v, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_format_exact(&b, v);
	cr_assert_str_eq(b.ptr, want);
	mg_buf_free(&b);
}

Test(format, exact_numbers_are_the_shortest_that_read_back)
{
	expect_text(9450.76, "9450.76");
	expect_text(9782.74 - 9450.76, "331.97999999999956");
	expect_text(1.761 / 2.009, "0.8765555002488801");
	expect_text(0.1, "0.1");
	expect_text(0.3, "0.3");
	expect_text(0.1 + 0.2, "0.30000000000000004");
	expect_text(11200, "11200");
	expect_text(-0.0, "-0");
	expect_text(0, "0");
	expect_text(1e300, "1e+300");
	expect_text(9007199254740993.0, "9007199254740992");
	expect_text(1e15, "1e+15");
	expect_text(123456789012345.0, "123456789012345");
	expect_text(0.0001, "0.0001");
	expect_text(0.00001, "1e-05");
	expect_text(5e-324, "4.94065645841247e-324");
}

/* Values as reports write them: a few decimals, and what arithmetic on them
 * gives (savings, ratios, deltas, relative ceilings). */
Test(format, exact_matches_snprintf_on_report_like_values)
{
	long i;

	for (i = 0; i < 100000; i++) {
		double a = (double)(next() % 2000000) / 100.0;
		double b = (double)(next() % 3000) / 1000.0 + 0.001;
		double c = (double)(next() % 20000000) / 1000000.0;

		expect_same(a);
		expect_same(b);
		expect_same(c);
		expect_same(9782.74 - a);
		expect_same(b / 2.009);
		expect_same(c - 12.356503);
		expect_same(c * (1.0 + b / 100));
		expect_same(-a);
	}
}

/* Every double with a random bit pattern, and powers of ten and two and
 * their neighbours (where the exponent and the gaps change). */
Test(format, exact_matches_snprintf_on_any_double)
{
	long i;
	int k;

	for (i = 0; i < 100000; i++) {
		uint64_t bits = next();
		double v;

		memcpy(&v, &bits, sizeof(v));
		if (isfinite(v))
			expect_same(v);
		/* magnitudes around the fast path's range */
		v = ldexp((double)(next() >> 11), (int)(next() % 120) - 120);
		expect_same(v);
	}
	for (k = -30; k <= 30; k++) {
		double p = pow(10, k), q = ldexp(1, k);

		expect_same(p);
		expect_same(nextafter(p, 0));
		expect_same(nextafter(p, INFINITY));
		expect_same(q);
		expect_same(nextafter(q, 0));
		expect_same(nextafter(q, INFINITY));
		expect_same(9.5 * p);
		expect_same(0.5 * p);
	}
}

/* ---- locations ---------------------------------------------------- */

static void put_upper(mg_buf *out, const char *s)
{
	for (; *s; s++)
		mg_buf_putc(out, (char)(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s));
}

static void expect_location(const char *file, int line, int column, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_buf_puts(&b, "");
	mg_format_location(&b, file, (mg_pos){ line, column }, put_upper);
	cr_expect_str_eq(b.ptr, want, "%s %d %d", file ? file : "(null)", line, column);
	mg_buf_free(&b);
}

Test(format, location_names_file_line_and_column_when_known)
{
	expect_location("bench/r.json", 12, 5, "BENCH/R.JSON:12:5: ");
	expect_location("bench/r.json", 12, 0, "BENCH/R.JSON:12: ");
	expect_location("bench/r.json", 0, 5, "BENCH/R.JSON: ");
	expect_location(NULL, 12, 5, "");
}
