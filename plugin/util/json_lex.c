/*
 * The JSON reader's shared checks: positions, pass 1 (bytes), the lexical
 * checks, pass 2 (cJSON's failure, explained).  See json_lex.h and, for
 * the passes, json_explain.c.
 */
#include <stdarg.h>
#include <stdbool.h>
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

void mg_json__cursor_init(struct cursor *c, const char *text, size_t len)
{
	c->text = text;
	c->len = len;
	c->off = mg_json__skip_bom(text, len);
	c->pos.line = 1;
	c->pos.column = 1;
}

/* Move forward to `target` (never backwards) and return its position. */
mg_pos mg_json__cursor_to(struct cursor *c, size_t target)
{
	for (; c->off < target; c->off++) {
		unsigned char ch = (unsigned char)c->text[c->off];

		if (ch == '\n' || (ch == '\r' && (c->off + 1 >= c->len ||
						   c->text[c->off + 1] != '\n'))) {
			c->pos.line++;
			c->pos.column = 1;
		} else if ((ch & 0xc0) != 0x80) {
			c->pos.column++;
		}
	}
	return c->pos;
}

void mg_json__fault_set(struct fault *f, size_t off, const char *fmt, ...)
{
	va_list ap;

	f->off = off;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

mg_pos mg_json__pos_at(const char *text, size_t len, size_t off)
{
	struct cursor c;

	mg_json__cursor_init(&c, text, len);
	return mg_json__cursor_to(&c, off > len ? len : off);
}

/* ---- pass 1: bytes ------------------------------------------------ */

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

/* Track strings and brackets for the depth limit. */
struct nest {
	bool in_string, escaped;
	size_t depth;
};

static bool nest_step(struct nest *n, char c)
{
	if (n->in_string) {
		if (n->escaped)
			n->escaped = false;
		else if (c == '\\')
			n->escaped = true;
		else if (c == '"')
			n->in_string = false;
	} else if (c == '"') {
		n->in_string = true;
	} else if (c == '[' || c == '{') {
		n->depth++;
		return true;
	} else if ((c == ']' || c == '}') && n->depth) {
		n->depth--;
	}
	return false;
}

/* NUL bytes, invalid UTF-8, UTF-16 and nesting depth; 0 or -1 with f set. */
int mg_json__prescan(struct fault *f, const char *text, size_t len, size_t max_depth)
{
	const unsigned char *s = (const unsigned char *)text;
	struct nest n = { false, false, 0 };
	const char *why = NULL;
	size_t off, step;

	if (len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff))) {
		mg_json__fault_set(f, 0, "text is UTF-16 encoded: JSON must be UTF-8");
		return -1;
	}
	for (off = mg_json__skip_bom(text, len); off < len; off += step) {
		if (!s[off]) {
			mg_json__fault_set(f, off, "unexpected NUL byte");
			return -1;
		}
		if (!(step = mg_json__utf8_seq(s + off, len - off, &why))) {
			mg_json__fault_set(f, off, "invalid UTF-8: %s (byte 0x%02x)", why, s[off]);
			return -1;
		}
		if (step == 1 && nest_step(&n, text[off]) && n.depth > max_depth) {
			mg_json__fault_set(f, off, "nesting deeper than %zu levels", max_depth);
			return -1;
		}
	}
	return 0;
}

/* ---- shared lexical checks ---------------------------------------- */

bool mg_json__is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool mg_json__is_digit(char c)
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
static size_t check_u_escape(struct fault *f, const char *text, size_t len, size_t p)
{
	long hi = mg_json__hex4(text + p + 2, len - p - 2), lo;

	if (hi < 0) {
		mg_json__fault_set(f, p, "malformed JSON: invalid unicode escape (want '\\u' and "
				   "4 hex digits)");
		return 0;
	}
	if (hi == 0) {
		mg_json__fault_set(f, p, "escaped NUL character '\\u0000' is not supported");
		return 0;
	}
	if (hi < 0xd800 || hi > 0xdfff)
		return 6;
	lo = hi <= 0xdbff && p + 7 < len && text[p + 6] == '\\' && text[p + 7] == 'u' ?
	     mg_json__hex4(text + p + 8, len - p - 8) : -1;
	if (lo < 0xdc00 || lo > 0xdfff) {
		mg_json__fault_set(f, p, "malformed JSON: unpaired surrogate in unicode escape");
		return 0;
	}
	return 12;
}

/* Check the escape at text[p] ('\\'); returns its length or 0 with f set. */
size_t mg_json__check_escape(struct fault *f, const char *text, size_t len, size_t p)
{
	char e = p + 1 < len ? text[p + 1] : '\0';

	if (e == 'u')
		return check_u_escape(f, text, len, p);
	if (e && strchr("\"\\/bfnrt", e))
		return 2;
	if (e > 0x20 && e < 0x7f)
		mg_json__fault_set(f, p, "malformed JSON: invalid escape sequence '\\%c' in string",
				   e);
	else
		mg_json__fault_set(f, p, "malformed JSON: invalid escape sequence in string");
	return 0;
}

/* Scan the string whose opening quote is at text[q].  Returns the offset after
 * the closing quote, or 0 with f set. */
size_t mg_json__scan_string(struct fault *f, const char *text, size_t len, size_t q)
{
	size_t p = q + 1, step;

	while (p < len) {
		unsigned char c = (unsigned char)text[p];

		if (c == '"')
			return p + 1;
		if (c < 0x20) {
			mg_json__fault_set(f, p, "malformed JSON: unescaped control character U+%04X "
					   "in string", c);
			return 0;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		if (!(step = mg_json__check_escape(f, text, len, p)))
			return 0;
		p += step;
	}
	mg_json__fault_set(f, q, "malformed JSON: unterminated string");
	return 0;
}

static bool numberish(char c)
{
	return mg_json__is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static size_t digits(const char *text, size_t len, size_t p)
{
	while (p < len && mg_json__is_digit(text[p]))
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
	else if (p < len && mg_json__is_digit(text[p]))
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

/* Check the number at text[start] (cJSON takes "01", "1." and "-.5");
 * returns the offset after it, or 0 with f set. */
size_t mg_json__scan_number(struct fault *f, const char *text, size_t len, size_t start)
{
	size_t end = mg_json__number_end(text, len, start), span;

	if (end)
		return end;
	for (span = start; span < len && numberish(text[span]); span++)
		;
	mg_json__fault_set(f, start, "malformed JSON: invalid number '%.*s'",
			   (int)(span - start > 40 ? 40 : span - start), text + start);
	return 0;
}

/* ---- pass 2: cJSON's failure, explained --------------------------- */

static void describe_char(char *out, size_t n, const char *text, size_t len, size_t off)
{
	unsigned char c = (unsigned char)text[off];
	const char *why;
	size_t k, i;
	uint32_t cp;

	if (c > 0x20 && c < 0x7f) {
		snprintf(out, n, "'%c'", c);
		return;
	}
	k = mg_json__utf8_seq((const unsigned char *)text + off, len - off, &why);
	cp = k <= 1 ? c : (uint32_t)(c & (0x7f >> k));
	for (i = 1; i < k; i++)
		cp = cp << 6 | ((unsigned char)text[off + i] & 0x3f);
	snprintf(out, n, "U+%04X", (unsigned)cp);
}

/* Where the text stood just before `off`: inside a string (and where it
 * opened), the innermost bracket at off - 1 and the last token before it. */
struct context {
	bool in_string;
	size_t string_start;
	char open_before, last_before;
};

static void scan_context(struct context *ctx, const char *text, size_t start, size_t off)
{
	struct nest n = { false, false, 0 };
	char stack[MG_JSON_MAX_DEPTH * 4 + 2] = { 0 }, last = 0;
	size_t p;

	memset(ctx, 0, sizeof(*ctx));
	for (p = start; p < off; p++) {
		char c = text[p];

		if (p + 1 == off) {
			ctx->open_before = n.depth && n.depth < sizeof(stack) ? stack[n.depth] : 0;
			ctx->last_before = last;
		}
		if (!n.in_string && c == '"')
			ctx->string_start = p;
		if (!n.in_string && !mg_json__is_ws(c))
			last = c;
		if (nest_step(&n, c) && n.depth < sizeof(stack))
			stack[n.depth] = c;
	}
	ctx->in_string = n.in_string;
}

/* Is text[off] inside (or the start of) something that looks like a number
 * but is not one, such as "1e", "-" or "1e5.3"?  Sets f when it is. */
static bool bad_number(struct fault *f, const char *text, size_t len, size_t off)
{
	size_t start = off;

	while (start > 0 && numberish(text[start - 1]))
		start--;
	if (!numberish(text[off]) && start == off)
		return false;
	if (text[start] != '-' && !mg_json__is_digit(text[start]))
		return false;
	return !mg_json__scan_number(f, text, len, start);
}

/* Is text[off - 1] where an object key should start (after '{' or ',') but
 * no string does?  cJSON then stops one byte late. */
static bool bad_key_before(const struct context *ctx, const char *text, size_t off)
{
	char c = off > 0 ? text[off - 1] : '"';

	if (ctx->in_string || ctx->open_before != '{' || mg_json__is_ws(c) || c == '"')
		return false;
	return ctx->last_before == ',' || (ctx->last_before == '{' && c != '}');
}

/*
 * cJSON stopped at `off` (clamped to len).  It reports a bad object key one
 * byte late and a bad string at its first character: find the real place
 * and say what is wrong there.
 */
void mg_json__explain_failure(struct fault *f, const char *text, size_t len, size_t off)
{
	struct context ctx;
	char what[16];

	scan_context(&ctx, text, mg_json__skip_bom(text, len), off);
	if (ctx.in_string && !mg_json__scan_string(f, text, len, ctx.string_start))
		return;
	if (bad_key_before(&ctx, text, off))
		off--;
	if (off >= len) {
		mg_json__fault_set(f, len, "malformed JSON: unexpected end of input");
		return;
	}
	if (!ctx.in_string && bad_number(f, text, len, off))
		return;
	describe_char(what, sizeof(what), text, len, off);
	mg_json__fault_set(f, off, "malformed JSON: unexpected character %s", what);
}
