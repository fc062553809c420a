/* The strict JSON reader (plugin/util/json_stream.c) against cJSON, the
 * project's reference JSON implementation: on random and mutated texts
 * (a fixed seed, printed), the reader accepts exactly what cJSON reads,
 * apart from the strictness memgate(1) lists under JSON, each class
 * checked where the reader stopped and counted (tests/json-agree.h). */
#include <stdint.h>
#include <stdio.h>

#include "helpers.h"
#include "json-agree.h"

#define SEED UINT64_C(31)      /* issue 31 */
#define TEXTS 20000

static uint64_t rng = SEED;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t pick(size_t n)
{
	return (size_t)(next() % n);
}

static void space(mg_buf *b)
{
	static const char *const ws[] = { "", "", "", " ", "\n  ", "\t", "\r\n", " \f", "\x01" };
	size_t i = pick(40);

	mg_buf_puts(b, i < sizeof(ws) / sizeof(ws[0]) ? ws[i] : "");
}

static void number(mg_buf *b)
{
	static const char *const shapes[] = {
		"0", "-0", "1", "-1", "12.5", "-0.25e-3", "1E+2", "9007199254740993",
		"1e308", "1.7976931348623157e308", "1e400", "-1e999", "1e-400", "0e99999",
		"01", "1.", "-.5", "1.e5", "-", "1e", "+1", ".5", "0x10", "-0.0",
	};
	size_t i, n;

	if (pick(8)) {
		mg_buf_puts(b, shapes[pick(sizeof(shapes) / sizeof(shapes[0]))]);
		return;
	}
	n = 50 + pick(200);   /* a long number: 50 to 250 digits */
	if (pick(2))
		mg_buf_putc(b, '-');
	mg_buf_putc(b, (char)('1' + pick(9)));
	for (i = 0; i < n; i++)
		mg_buf_putc(b, (char)('0' + pick(10)));
	if (pick(2))
		mg_buf_printf(b, "e-%zu", pick(400));
}

static void string(mg_buf *b)
{
	static const char *const parts[] = {
		"a", "name", " ", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9",
		"\xe2\x82\xac", "\\u0000", "\\ud800", "\\udc00", "\\u12x4", "\\q", "\t", "\xff",
		"\xed\xa0\x80", "##[", "\\u0061",
	};
	size_t i, n = pick(4);

	mg_buf_putc(b, '"');
	for (i = 0; i < n; i++)
		mg_buf_puts(b, parts[pick(12) ? pick(11) : pick(sizeof(parts) / sizeof(parts[0]))]);
	mg_buf_putc(b, '"');
}

static void value(mg_buf *b, int depth)
{
	static const char *const keys[] = { "\"a\"", "\"b\"", "\"name\"", "\"n\\u0061me\"", "\"c\"" };
	size_t i, n, kind = depth > 5 ? 3 + pick(5) : pick(8);

	space(b);
	switch (kind) {
	case 0:
	case 1:
		n = pick(5);
		mg_buf_putc(b, '{');
		for (i = 0; i < n; i++) {
			if (i)
				mg_buf_putc(b, ',');
			space(b);
			if (pick(3))
				mg_buf_puts(b, keys[pick(5)]);
			else
				string(b);
			space(b);
			mg_buf_putc(b, ':');
			value(b, depth + 1);
		}
		space(b);
		mg_buf_putc(b, '}');
		break;
	case 2:
		n = pick(5);
		mg_buf_putc(b, '[');
		for (i = 0; i < n; i++) {
			if (i)
				mg_buf_putc(b, ',');
			value(b, depth + 1);
		}
		space(b);
		mg_buf_putc(b, ']');
		break;
	case 3:
	case 4:
		number(b);
		break;
	case 5:
		string(b);
		break;
	default:
		mg_buf_puts(b, pick(3) == 0 ? "true" : pick(2) ? "null" : "false");
	}
	space(b);
}

/* One to three byte-level changes: delete, insert, replace, repeat a
 * stretch, cut the end. */
static void mutate(mg_buf *b)
{
	static const char bytes[] = "{}[],:\"\\0123456789-+.eEtrufalsn \t\n\r\x01\x0c\xff\xc3\xa9u";
	size_t k, n = 1 + pick(3), at, len;

	for (k = 0; k < n && b->len; k++) {
		at = pick(b->len);
		switch (pick(5)) {
		case 0:
			memmove(b->ptr + at, b->ptr + at + 1, b->len - at - 1);
			b->len--;
			break;
		case 1:
			mg_buf_putc(b, 0);
			memmove(b->ptr + at + 1, b->ptr + at, b->len - at - 1);
			b->ptr[at] = bytes[pick(sizeof(bytes))];   /* the NUL too */
			break;
		case 2:
			b->ptr[at] = bytes[pick(sizeof(bytes))];
			break;
		case 3:
			len = pick(b->len - at) + 1;
			if (len > 64)
				len = 64;
			{
				char *copy = mg_xstrndup(b->ptr + at, len);

				mg_buf_put(b, copy, len);
				free(copy);
			}
			break;
		default:
			b->len = at;
		}
	}
}

Test(json_cjson, the_reader_accepts_what_cjson_reads_but_the_listed_strictness)
{
	size_t count[AGREE_CLASSES] = { 0 }, accepted = 0, refused = 0, i, k;
	struct mg_json_fault f;
	mg_buf b = MG_BUF_INIT;
	enum agree_class c;

	fprintf(stderr, "json_cjson: seed %llu, %d texts\n", (unsigned long long)SEED, TEXTS);
	for (i = 0; i < TEXTS; i++) {
		b.len = 0;
		if (i % 50 == 0) {     /* deeper than the limit, sometimes */
			for (k = 0; k < 60 + pick(10); k++)
				mg_buf_putc(&b, '[');
			value(&b, 0);
			for (; k > 0; k--)
				mg_buf_putc(&b, ']');
		} else {
			value(&b, 0);
		}
		if (i % 3)
			mutate(&b);
		c = json_agree(b.ptr ? b.ptr : "", b.len);
		cr_assert_neq(c, AGREE_DISAGREE, "text %zu (seed %llu): the reader %s, cJSON %s: %.*s",
			      i, (unsigned long long)SEED,
			      mg_json__check(&f, b.ptr ? b.ptr : "", b.len) ? f.what : "accepts",
			      mg_json__check(&f, b.ptr ? b.ptr : "", b.len) ? "reads it" : "refuses it",
			      (int)b.len, b.ptr);
		count[c]++;
		if (mg_json__check(&f, b.ptr ? b.ptr : "", b.len) == MG_OK)
			accepted++;
		else
			refused++;
	}
	for (k = 0; k < AGREE_CLASSES; k++)
		fprintf(stderr, "json_cjson: %6zu %s\n", count[k], agree_class_names[k]);
	fprintf(stderr, "json_cjson: the reader accepted %zu, refused %zu\n", accepted, refused);
	cr_expect_gt(accepted, TEXTS / 10, "too few valid texts to mean anything");
	cr_expect_gt(refused, TEXTS / 10);
	for (k = AGREE_DUPLICATE_KEY; k < AGREE_LONG_NUMBER; k++)
		cr_expect_gt(count[k], 0, "no text of the class '%s'", agree_class_names[k]);
	mg_buf_free(&b);
}

/* The check can fail: a reader that took 01 would disagree on it. */
Test(json_cjson, a_disagreement_is_found)
{
	cr_expect_eq(json_agree("[01]", 4), AGREE_NUMBER_GRAMMAR);
	cr_expect_eq(json_agree("[1", 2), AGREE_SAME);
	cr_expect_eq(json_agree("{\"a\":1,\"a\":2}", 13), AGREE_DUPLICATE_KEY);
	cr_expect_eq(json_agree("[1e400]", 7), AGREE_RANGE);
	cr_expect_eq(json_agree("[\"\\u12x4\"]", 10), AGREE_ESCAPED_NUL);
	cr_expect_eq(json_agree("\x01[1]", 4), AGREE_CONTROL);
}
