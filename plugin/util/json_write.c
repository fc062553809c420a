/* The one JSON writer: see plugin/util/json_write.h. */
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "number.h"
#include "json_write.h"
#include "memgate/escape.h"

void mg_jw_init(mg_jw *w, mg_buf *out, enum mg_jw_style style, int depth)
{
	assert(w && out && depth >= 0 && depth < MG_JW_MAX_DEPTH);
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->style = style;
	w->depth = depth;
}

/* mg_buf_put, mg_buf_putc and mg_buf_puts with the usual case inline:
 * the room is there (a record writes tens of millions of pieces). */
static inline void out_put(mg_buf *b, const char *s, size_t n)
{
	if (b->cap && n < b->cap - b->len) {
		memcpy(b->ptr + b->len, s, n);
		b->len += n;
		b->ptr[b->len] = '\0';
	} else {
		mg_buf_put(b, s, n);
	}
}

static inline void out_putc(mg_buf *b, char c)
{
	if (b->cap && b->len + 1 < b->cap) {
		b->ptr[b->len++] = c;
		b->ptr[b->len] = '\0';
	} else {
		mg_buf_putc(b, c);
	}
}

static inline void out_puts(mg_buf *b, const char *s)
{
	out_put(b, s, strlen(s));
}

static void indent(mg_jw *w, int n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	static const char spaces[] = "                                ";
	const char *unit = w->style == MG_JW_TABS ? tabs : spaces;
	size_t per = w->style == MG_JW_TABS ? 1 : 2, max = 16;

	while (n > 0) {
		size_t k = (size_t)n < max ? (size_t)n : max;

		out_put(w->out, unit, k * per);
		n -= (int)k;
	}
}

bool mg_jw_flat(const mg_jw *w)
{
	return w->style == MG_JW_LINE || (w->lines && w->depth > w->lines);
}

/* Before a value: the separator of its array (and a line of its own in an
 * array of lines), nothing after a key. */
static void value_start(mg_jw *w)
{
	if (w->key_written) {
		w->key_written = false;
		return;
	}
	assert(!w->any[w->depth] || w->array[w->depth]);
	if (w->lines && w->depth == w->lines) {
		if (w->any[w->depth])
			out_putc(w->out, ',');
		out_putc(w->out, '\n');
		indent(w, w->depth);
	} else if (w->any[w->depth]) {
		out_puts(w->out, mg_jw_flat(w) ? "," : ", ");
	}
	w->any[w->depth] = true;
}

/* Whether s[i] is written as it is in a JSON string. */
static inline bool plain(const char *s, size_t i)
{
	/* 1: escaped; 2: '[', escaped after "##" */
	static const unsigned char special[256] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		['"'] = 1, ['\\'] = 1, ['['] = 2,
	};
	unsigned char k = special[(unsigned char)s[i]];

	return !k || (k == 2 && !mg_escape_is_command(s, i));
}

/* The escape of c, a byte that is not plain. */
static void put_escape(mg_buf *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 0, 0, 0, 0, 0 };
	size_t n = 2;

	switch (c) {
	case '"': esc[1] = '"'; break;
	case '\\': esc[1] = '\\'; break;
	case '\b': esc[1] = 'b'; break;
	case '\f': esc[1] = 'f'; break;
	case '\n': esc[1] = 'n'; break;
	case '\r': esc[1] = 'r'; break;
	case '\t': esc[1] = 't'; break;
	default:   /* a control character, or the '[' of "##[" */
		esc[1] = 'u';
		esc[2] = '0';
		esc[3] = '0';
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 15];
		n = 6;
	}
	out_put(out, esc, n);
}

/* s (valid UTF-8) quoted and escaped as cJSON escapes it, the '[' of each
 * "##[" as \u005b: runs of plain bytes are copied whole (a record writes
 * millions of keys and names). */
static void put_quoted(mg_buf *out, const char *s, size_t len)
{
	size_t i = 0, run;
	char *d;

	while (i < len && plain(s, i))
		i++;
	mg_buf_grow(out, len + 2);
	if (i == len) {   /* nothing to escape: one copy */
		d = out->ptr + out->len;
		d[0] = '"';
		memcpy(d + 1, s, len);
		d[len + 1] = '"';
		d[len + 2] = '\0';
		out->len += len + 2;
		return;
	}
	out_putc(out, '"');
	i = 0;
	for (;;) {
		for (run = i; i < len && plain(s, i); i++)
			;
		out_put(out, s + run, i - run);
		if (i == len)
			break;
		put_escape(out, (unsigned char)s[i++]);
	}
	out_putc(out, '"');
}

/* s as a JSON string of valid UTF-8 (mg_escape_utf8 when it holds a byte
 * above ASCII). */
static void put_string(mg_buf *out, const char *s)
{
	mg_buf valid = MG_BUF_INIT;
	size_t len = strlen(s), i;

	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	if (i == len) {
		put_quoted(out, s, len);
		return;
	}
	mg_escape_utf8(&valid, s, len);
	put_quoted(out, valid.ptr, valid.len);
	mg_buf_free(&valid);
}

static void open_level(mg_jw *w, bool array)
{
	value_start(w);
	out_putc(w->out, array ? '[' : '{');
	w->depth++;
	assert(w->depth < MG_JW_MAX_DEPTH);
	w->array[w->depth] = array;
	w->any[w->depth] = false;
	if (!array && !mg_jw_flat(w))
		out_putc(w->out, '\n');
}

void mg_jw_object(mg_jw *w)
{
	open_level(w, false);
}

void mg_jw_array(mg_jw *w)
{
	open_level(w, true);
}

void mg_jw_array_lines(mg_jw *w)
{
	assert(!w->lines && w->style != MG_JW_LINE);
	open_level(w, true);
	w->lines = w->depth;
}

/* cJSON_Print ends each member with ",\n" or "\n", and then indents the
 * '}' one level less: "{\n}" when empty. */
void mg_jw_end(mg_jw *w)
{
	bool array = w->array[w->depth], any = w->any[w->depth], flat = mg_jw_flat(w);

	assert(w->depth > 0 && !w->key_written);
	if (w->lines && w->depth == w->lines) {
		w->lines = 0;
		w->depth--;
		if (any) {
			out_putc(w->out, '\n');
			indent(w, w->depth);
		}
		out_putc(w->out, ']');
		return;
	}
	w->depth--;
	if (array || flat) {
		out_putc(w->out, array ? ']' : '}');
		return;
	}
	if (any)
		out_putc(w->out, '\n');
	indent(w, w->depth);
	out_putc(w->out, '}');
}

void mg_jw_key(mg_jw *w, const char *key)
{
	bool flat = mg_jw_flat(w);

	assert(key && !w->key_written && w->depth > 0 && !w->array[w->depth]);
	if (w->any[w->depth])
		out_puts(w->out, flat ? "," : ",\n");
	w->any[w->depth] = true;
	if (!flat)
		indent(w, w->depth);
	put_string(w->out, key);
	out_puts(w->out, flat ? ":" : w->style == MG_JW_TABS ? ":\t" : ": ");
	w->key_written = true;
}

void mg_jw_string(mg_jw *w, const char *s)
{
	value_start(w);
	if (s)
		put_string(w->out, s);
	else
		out_puts(w->out, "null");
}

/* Whether a and b are equal within a unit of the larger's last place:
 * cJSON's test that %1.15g reads back (compare_double). */
static bool near(double a, double b)
{
	double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= max * DBL_EPSILON;
}

static void put_digits(mg_buf *out, bool minus, unsigned long long n)
{
	char digits[24];
	size_t k = sizeof(digits);

	do {
		digits[--k] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	if (minus)
		digits[--k] = '-';
	out_put(out, digits + k, sizeof(digits) - k);
}

/*
 * cJSON's print_number: NaN and infinities as null, else %1.15g, or %1.17g
 * when that does not read back (within a unit of the last place).  A whole
 * number in int's range prints the same digits in every cJSON build,
 * written here without printf; zero is "0" whatever its sign (memgate's
 * rule, memgate(1) "JSON": cJSON 1.7.16 and later print -0 so, earlier
 * ones "-0"), so that nothing memgate writes depends on the cJSON build.
 */

void mg_jw_number(mg_jw *w, double v)
{
	char text[32];

	value_start(w);
	if (isnan(v) || isinf(v)) {
		out_puts(w->out, "null");
		return;
	}
	if (v >= INT_MIN && v <= INT_MAX && v == (double)(int)v) {
		int i = (int)v;

		put_digits(w->out, i < 0,
			   i < 0 ? 0ULL - (unsigned long long)(long long)i : (unsigned long long)i);
		return;
	}
	snprintf(text, sizeof(text), "%1.15g", v);
	if (!near(strtod(text, NULL), v))
		snprintf(text, sizeof(text), "%1.17g", v);
	out_puts(w->out, text);
}

void mg_jw_exact(mg_jw *w, double v)
{
	value_start(w);
	if (v == 0)
		out_putc(w->out, '0');   /* -0 too: memgate's rule */
	else if (isfinite(v))
		mg_format_exact(w->out, v);
	else
		out_puts(w->out, "null");
}

void mg_jw_uint(mg_jw *w, size_t n)
{
	value_start(w);
	put_digits(w->out, false, n);
}

void mg_jw_bool(mg_jw *w, bool v)
{
	value_start(w);
	out_puts(w->out, v ? "true" : "false");
}

void mg_jw_null(mg_jw *w)
{
	value_start(w);
	out_puts(w->out, "null");
}

void mg_jw_raw(mg_jw *w, const char *text, size_t len)
{
	value_start(w);
	out_put(w->out, text, len);
}

void mg_jw_key_string(mg_jw *w, const char *key, const char *s)
{
	mg_jw_key(w, key);
	mg_jw_string(w, s);
}

void mg_jw_key_number(mg_jw *w, const char *key, double v)
{
	mg_jw_key(w, key);
	mg_jw_number(w, v);
}

void mg_jw_key_exact(mg_jw *w, const char *key, double v)
{
	mg_jw_key(w, key);
	mg_jw_exact(w, v);
}

void mg_jw_key_bool(mg_jw *w, const char *key, bool v)
{
	mg_jw_key(w, key);
	mg_jw_bool(w, v);
}

void mg_jw_key_null(mg_jw *w, const char *key)
{
	mg_jw_key(w, key);
	mg_jw_null(w);
}

void mg_jw_key_object(mg_jw *w, const char *key)
{
	mg_jw_key(w, key);
	mg_jw_object(w);
}

void mg_jw_key_array(mg_jw *w, const char *key)
{
	mg_jw_key(w, key);
	mg_jw_array(w);
}
