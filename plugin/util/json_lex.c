/*
 * The JSON reader's lexical pieces and the words of its faults: see
 * json_lex.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_lex.h"

static const char *const bom = "\xef\xbb\xbf";

size_t mg_json__skip_bom(const char *text, size_t len)
{
	return len >= 3 && !memcmp(text, bom, 3) ? 3 : 0;
}

/* ---- positions ---------------------------------------------------- */

void mg_json__fault_set(struct mg_json_fault *f, enum mg_json_fault_kind kind, size_t off,
			const char *fmt, ...)
{
	va_list ap;

	f->kind = kind;
	f->off = off;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

mg_pos mg_json__pos_at(const char *text, size_t len, size_t off)
{
	mg_pos pos = { 1, 1 };
	size_t p;

	if (off > len)
		off = len;
	for (p = mg_json__skip_bom(text, len); p < off; p++) {
		unsigned char ch = (unsigned char)text[p];

		if (ch == '\n' || (ch == '\r' && (p + 1 >= len || text[p + 1] != '\n'))) {
			pos.line++;
			pos.column = 1;
		} else if ((ch & 0xc0) != 0x80) {
			pos.column++;
		}
	}
	return pos;
}

/* ---- UTF-8 -------------------------------------------------------- */

/*
 * Length of the valid UTF-8 sequence at s[0..n), or 0 with *why set.
 */
size_t mg_json__utf8_seq(const unsigned char *s, size_t n, const char **why)
{
	size_t want, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4) {
		*why = s[0] < 0xc0 ? "unexpected continuation byte" :
		       s[0] < 0xc2 ? "overlong encoding" : "invalid lead byte";
		return 0;
	}
	want = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x7f >> want);
	for (i = 1; i < want; i++) {
		if (i >= n || (s[i] & 0xc0) != 0x80) {
			*why = "truncated sequence";
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*why = (want == 3 && cp < 0x800) || (want == 4 && cp < 0x10000) ?
	       "overlong encoding" : cp >= 0xd800 && cp <= 0xdfff ?
	       "encoded surrogate" : cp > 0x10ffff ? "code point above U+10FFFF" : NULL;
	return *why ? 0 : want;
}

/* ---- escapes and numbers ------------------------------------------ */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of 4 hex digits at s[0..4) within n bytes, or -1. */
long mg_json__hex4(const char *s, size_t n)
{
	char buf[5];
	int i;

	if (n < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if (!is_hex(s[i]))
			return -1;
		buf[i] = s[i];
	}
	buf[4] = '\0';
	return strtol(buf, NULL, 16);
}

/* Check the \u escape at text[p] ('\\'); returns its length or 0 with f set. */
static size_t check_u_escape(struct mg_json_fault *f, const char *text, size_t len, size_t p)
{
	long hi = mg_json__hex4(text + p + 2, len - p - 2), lo;

	if (hi < 0) {
		mg_json__fault_set(f, MG_JF_HEX, p, "malformed JSON: invalid unicode escape (want '\\u' and "
				   "4 hex digits)");
		return 0;
	}
	if (hi == 0) {
		mg_json__fault_set(f, MG_JF_ESCAPED_NUL, p, "escaped NUL character '\\u0000' is not supported");
		return 0;
	}
	if (hi < 0xd800 || hi > 0xdfff)
		return 6;
	lo = hi <= 0xdbff && p + 7 < len && text[p + 6] == '\\' && text[p + 7] == 'u' ?
	     mg_json__hex4(text + p + 8, len - p - 8) : -1;
	if (lo < 0xdc00 || lo > 0xdfff) {
		mg_json__fault_set(f, MG_JF_SURROGATE, p, "malformed JSON: unpaired surrogate in unicode escape");
		return 0;
	}
	return 12;
}

/* Check the escape at text[p] ('\\'); returns its length or 0 with f set. */
size_t mg_json__check_escape(struct mg_json_fault *f, const char *text, size_t len, size_t p)
{
	char e = p + 1 < len ? text[p + 1] : '\0';

	if (e == 'u')
		return check_u_escape(f, text, len, p);
	if (e && strchr("\"\\/bfnrt", e))
		return 2;
	if (e > 0x20 && e < 0x7f)
		mg_json__fault_set(f, MG_JF_ESCAPE, p, "malformed JSON: invalid escape sequence '\\%c' in string",
				   e);
	else
		mg_json__fault_set(f, MG_JF_ESCAPE, p, "malformed JSON: invalid escape sequence in string");
	return 0;
}

static bool numberish(char c)
{
	return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static size_t digits(const char *text, size_t len, size_t p)
{
	while (p < len && is_digit(text[p]))
		p++;
	return p;
}

/* The end of the RFC 8259 number at text[p], or 0 when there is none. */
size_t mg_json__number_end(const char *text, size_t len, size_t p)
{
	size_t q;

	p += p < len && text[p] == '-';
	if (p < len && text[p] == '0')
		p++;
	else if (p < len && is_digit(text[p]))
		p = digits(text, len, p);
	else
		return 0;
	if (p < len && text[p] == '.') {
		if ((q = digits(text, len, p + 1)) == p + 1)
			return 0;
		p = q;
	}
	if (p < len && (text[p] == 'e' || text[p] == 'E')) {
		p++;
		p += p < len && (text[p] == '+' || text[p] == '-');
		if ((q = digits(text, len, p)) == p)
			return 0;
		p = q;
	}
	return p < len && numberish(text[p]) ? 0 : p;
}

void mg_json__number_fault(struct mg_json_fault *f, const char *text, size_t len, size_t start)
{
	size_t span;

	for (span = start; span < len && numberish(text[span]); span++)
		;
	mg_json__fault_set(f, MG_JF_NUMBER, start, "malformed JSON: invalid number '%.*s'",
			   (int)(span - start > 40 ? 40 : span - start), text + start);
}

/*
 * memgate's rule (memgate(1), "JSON"): a number is the double nearest to
 * it, so any number of digits is read (rounded as strtod rounds them), one
 * too small for a double reads as 0 (or a subnormal), and one whose
 * magnitude is beyond DBL_MAX is refused.  A number below 10^308 cannot
 * be: its integer digits (without leading zeros) plus its exponent say so
 * without strtod, which runs only on the rare number that may be.
 */
bool mg_json__number_finite(struct mg_json_fault *f, const char *s, size_t n, size_t off)
{
	size_t p = 0, int_digits = 0;
	long ex = 0;
	int sign = 1;
	char *copy;
	double v;

	p += p < n && s[p] == '-';
	while (p < n && s[p] == '0')
		p++;
	for (; p < n && is_digit(s[p]); p++)
		int_digits++;
	while (p < n && s[p] != 'e' && s[p] != 'E')
		p++;
	if (p < n) {
		p++;
		if (p < n && (s[p] == '-' || s[p] == '+'))
			sign = s[p++] == '-' ? -1 : 1;
		for (; p < n; p++)
			if (ex < 100000)
				ex = ex * 10 + (s[p] - '0');
	}
	if ((long)(int_digits < 100000 ? int_digits : 100000) + sign * ex <= 308)
		return true;
	copy = mg_xstrndup(s, n);
	v = strtod(copy, NULL);
	free(copy);
	if (isfinite(v))
		return true;
	mg_json__fault_set(f, MG_JF_RANGE, off, "number '%.*s%s' is out of range (a double holds at "
			   "most %.17g)", (int)(n > 40 ? 40 : n), s, n > 40 ? "..." : "", DBL_MAX);
	return false;
}

/* ---- the character the reader stopped at --------------------------- */

void mg_json__unexpected(struct mg_json_fault *f, const char *text, size_t len, size_t off)
{
	const unsigned char *s = (const unsigned char *)text;
	const char *why = NULL;
	uint32_t cp;
	size_t k, i;

	if (off >= len) {
		mg_json__fault_set(f, MG_JF_END, len, "malformed JSON: unexpected end of input");
		return;
	}
	if (off == 0 && len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff))) {
		mg_json__fault_set(f, MG_JF_UTF16, 0, "text is UTF-16 encoded: JSON must be UTF-8");
		return;
	}
	if (!s[off]) {
		mg_json__fault_set(f, MG_JF_NUL, off, "unexpected NUL byte");
		return;
	}
	if (s[off] > 0x20 && s[off] < 0x7f) {
		mg_json__fault_set(f, MG_JF_CHAR, off, "malformed JSON: unexpected character '%c'",
				   s[off]);
		return;
	}
	if (!(k = mg_json__utf8_seq(s + off, len - off, &why))) {
		mg_json__fault_set(f, MG_JF_UTF8, off, "invalid UTF-8: %s (byte 0x%02x)", why, s[off]);
		return;
	}
	cp = k == 1 ? s[off] : (uint32_t)(s[off] & (0x7f >> k));
	for (i = 1; i < k; i++)
		cp = cp << 6 | (s[off + i] & 0x3f);
	mg_json__fault_set(f, MG_JF_CHAR, off, "malformed JSON: unexpected character U+%04X",
			   (unsigned)cp);
}
