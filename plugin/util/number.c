/*
 * Exact numbers for machines: mg_format_exact (number.h).
 *
 * The shortest of %.15g, %.16g and %.17g that reads back as the same double
 * is what the record has always written; snprintf and strtod cost a
 * microsecond a number, too much for the 600,000 numbers of a record of
 * 10^5 candidates.  For normal doubles whose digits fit the arithmetic below
 * (about 1e-5 to 4e15: every metric), the digits are computed exactly in
 * 128-bit integers: v = m * 2^-s, so v * 10^k = m * 10^k / 2^s, rounded to
 * nearest with ties to even as glibc's printf does; a P-digit decimal reads
 * back as v when it lies within half the gap to v's neighbours (ties going
 * to the even mantissa, as strtod does).  Anything else takes the snprintf
 * path.  tests/test_format.c compares both on millions of values.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "number.h"


#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
	1000000000000ull, 10000000000000ull, 100000000000000ull,
	1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

static u128 pow10_u128(int k)
{
	return k < 20 ? (u128)pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

/*
 * The P-digit decimal nearest to v = m * 2^-s (m in [2^52, 2^53)), as
 * digits * 10^(x - P + 1): sets *digits and *x (the exponent of the rounded
 * value, as %g chooses it; on entry, a guess at most one off).  Returns 1
 * when it reads back as v, 0 when it does not, -1 when the arithmetic does
 * not fit in 128 bits.
 */
static int nearest_digits(uint64_t *digits, int *x, uint64_t m, int s, int p)
{
	int k = 0, tries;
	u128 a = 0, q = 0, r, half, diff;
	bool found = false;

	for (tries = 0; tries < 3 && !found; tries++) {
		k = p - 1 - *x;
		if (k < 0 || k > 22 || s < 1 || s > 120)
			return -1;
		a = (u128)m * pow10_u128(k);          /* v * 10^k * 2^s, exactly */
		q = a >> s;                           /* truncated: decides the exponent */
		if (q >= pow10_u128(p))
			(*x)++;
		else if (q < pow10_u128(p - 1))
			(*x)--;
		else
			found = true;
	}
	if (!found)
		return -1;
	r = a - (q << s);
	half = (u128)1 << (s - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	if (q > ((u128)1 << (126 - s)))
		return -1;
	/* 9.99..95 rounds up to 10.0..0: one digit fewer, one exponent more */
	*digits = q == pow10_u128(p) ? (uint64_t)pow10_u128(p - 1) : (uint64_t)q;
	if (q == pow10_u128(p))
		(*x)++;
	/* |q * 2^s - a| against half the gap to the neighbour on that side,
	 * scaled by 10^k * 2^s: the gap is 2^-s, below v half that when m is
	 * 2^52 (the next power of two down). */
	q <<= s;
	diff = q > a ? q - a : a - q;
	if (m == (1ull << 52) && q < a)
		diff *= 2;
	diff *= 2;
	half = pow10_u128(k);
	return diff < half || (diff == half && !(m & 1));
}

/* %.<p>g of digits * 10^(x - p + 1) (p digits, trailing zeros dropped). */
static void put_g(mg_buf *out, bool negative, uint64_t digits, int x, int p)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char d[24], buf[48];
	int n, i, len = 0;

	/* two digits a division: a record writes a million numbers */
	for (n = p; n > 1; n -= 2) {
		memcpy(d + n - 2, pairs + 2 * (digits % 100), 2);
		digits /= 100;
	}
	if (n == 1)
		d[0] = (char)('0' + digits);
	for (n = p; n > 1 && d[n - 1] == '0'; n--)
		;
	if (negative)
		buf[len++] = '-';
	if (x < -4 || x >= p) {
		buf[len++] = d[0];
		if (n > 1) {
			buf[len++] = '.';
			for (i = 1; i < n; i++)
				buf[len++] = d[i];
		}
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, "e%c%02d",
				x < 0 ? '-' : '+', x < 0 ? -x : x);
	} else if (x < 0) {
		buf[len++] = '0';
		buf[len++] = '.';
		for (i = -1; i > x; i--)
			buf[len++] = '0';
		for (i = 0; i < n; i++)
			buf[len++] = d[i];
	} else {
		for (i = 0; i <= x; i++)
			buf[len++] = i < n ? d[i] : '0';
		if (n > x + 1) {
			buf[len++] = '.';
			for (i = x + 1; i < n; i++)
				buf[len++] = d[i];
		}
	}
	mg_buf_put(out, buf, (size_t)len);
}

/* The fast path; false when v is outside it. */
static bool format_exact_fast(mg_buf *out, double v)
{
	double a = fabs(v);
	uint64_t bits, m, digits;
	int be, s, p, x, ok;

	if (!(a >= 1e-5 && a < 4e15))
		return false;
	memcpy(&bits, &a, sizeof(bits));           /* a normal double: 1.f * 2^(be - 1023) */
	be = (int)(bits >> 52) & 0x7ff;
	m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
	s = 1075 - be;                              /* a = m * 2^-s */
	if (s <= 0)
		return false;
	/* floor(log10(2^(be - 1023))): log10(a) is that or up to 0.302 more,
	 * so x is floor(log10(a)) or one less (78913 / 2^18 is log10(2) to
	 * within 2^-21, exact over this range) */
	x = ((be - 1023) * 78913) >> 18;
	for (p = 15; p <= 17; p++) {
		if ((ok = nearest_digits(&digits, &x, m, s, p)) < 0)
			return false;
		if (ok || p == 17) {
			if (!ok)
				return false;
			put_g(out, v < 0, digits, x, p);
			return true;
		}
	}
	return false;
}
#endif

/* The snprintf path: the shortest of %.15g, %.16g and %.17g that round-trips. */
static void format_exact_slow(mg_buf *out, double v)
{
	char buf[40];
	int digits;

	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (digits == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	mg_buf_puts(out, buf);
}

void mg_format_exact(mg_buf *out, double v)
{
#ifdef __SIZEOF_INT128__
	if (v != 0 && format_exact_fast(out, v))
		return;
#endif
	format_exact_slow(out, v);
}

/* The reference path, for tests. */
void mg_format__exact_slow(mg_buf *out, double v)
{
	format_exact_slow(out, v);
}
