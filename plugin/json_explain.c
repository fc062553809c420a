/*
 * Why the strict reader (json_stream.c) refused a text: mg_json__explain,
 * in the words and at the place the project has always given, without
 * building a tree.  See plugin/json.h.
 *
 * Three passes, each of which names the first problem it meets:
 *  1. the bytes (json_lex.c): NUL bytes, invalid UTF-8, nesting depth;
 *  2. cJSON's reading, followed here step by step (cjson_*): where
 *     cJSON_ParseWithLengthOpts would stop on a text and its terminating
 *     NUL, explained by mg_json__explain_failure;
 *  3. what cJSON lets through and RFC 8259 does not, in text order
 *     (walk_*): whitespace other than RFC 8259's, leading zeros, "1.",
 *     raw control characters and bad escapes in strings, '\u0000', then
 *     text after the document; and duplicate keys, each found when its
 *     object closes, the earliest second occurrence winning over a later
 *     fault.
 * Pass 3 runs only on texts cJSON reads, so their structure is what cJSON
 * saw: the walk follows it with cJSON's whitespace and checks with RFC
 * 8259's.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>   /* only to probe its number reading */

#include "json.h"
#include "json_lex.h"
#include "memgate/buf.h"

/* ---- pass 2: cJSON's reading ------------------------------------- */

/* cJSON's nesting limit (CJSON_NESTING_LIMIT), never reached after pass 1. */
#define CJSON_DEPTH 1000

/* cJSON reading a text of len bytes and its NUL: a buffer of len + 1. */
struct cj {
	const unsigned char *s;
	size_t len;        /* the text's length; the buffer has one byte more */
	size_t off;
	size_t depth;
	bool long_numbers; /* the linked cJSON reads numbers past 63 characters */
};

static unsigned char cj_at(const struct cj *c, size_t i)
{
	return i < c->len ? c->s[i] : 0;
}

/* buffer_skip_whitespace: every byte up to ' ' (the final NUL too). */
static void cj_skip(struct cj *c)
{
	if (c->off > c->len)
		return;
	while (c->off <= c->len && cj_at(c, c->off) <= ' ')
		c->off++;
	if (c->off == c->len + 1)
		c->off--;
}

/* parse_hex4: 0 for a non-hex digit. */
static unsigned cj_hex4(const struct cj *c, size_t p)
{
	long v = p + 4 <= c->len ? mg_json__hex4((const char *)c->s + p, 4) : -1;

	return v < 0 ? 0 : (unsigned)v;
}

/* utf16_literal_to_utf8: the length of the \u escape at p, or 0. */
static size_t cj_utf16(const struct cj *c, size_t p, size_t end)
{
	unsigned first, second;

	if (end - p < 6)
		return 0;
	first = cj_hex4(c, p + 2);
	if (first >= 0xdc00 && first <= 0xdfff)
		return 0;
	if (first < 0xd800 || first > 0xdbff)
		return 6;
	if (end - (p + 6) < 6 || cj_at(c, p + 6) != '\\' || cj_at(c, p + 7) != 'u')
		return 0;
	second = cj_hex4(c, p + 8);
	return second >= 0xdc00 && second <= 0xdfff ? 12 : 0;
}

/* parse_string: on failure cJSON stands after the opening quote, or at the
 * escape it could not read. */
static bool cj_string(struct cj *c)
{
	size_t start = c->off, end = start + 1, p, n;

	c->off = start + 1;
	if (cj_at(c, start) != '"')
		return false;
	for (; end <= c->len && cj_at(c, end) != '"'; end++)
		if (cj_at(c, end) == '\\' && ++end > c->len)
			return false;
	if (end > c->len)
		return false;
	for (p = start + 1; p < end; p += n) {
		n = 1;
		if (cj_at(c, p) != '\\')
			continue;
		c->off = p;
		n = cj_at(c, p + 1) == 'u' ? cj_utf16(c, p, end) :
		    strchr("bfnrt\"\\/", cj_at(c, p + 1)) && cj_at(c, p + 1) ? 2 : 0;
		if (!n)
			return false;
	}
	c->off = end + 1;
	return true;
}

static bool cj_number_char(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' ||
	       ch == '.';
}

/*
 * Does the linked cJSON read a number of more than 63 characters?
 * Upstream cJSON 1.7.15 copies 63 and reads those; Debian's patched build
 * copies any length.
 */
static bool cjson_reads_long_numbers(void)
{
	static const char probe[] =
		"[1234567890123456789012345678901234567890123456789012345678901234567890]";
	cJSON *root = cJSON_ParseWithLength(probe, sizeof(probe) - 1);
	bool ok = root != NULL;

	cJSON_Delete(root);
	return ok;
}

/* parse_number: the characters a number may hold, read by strtod. */
static bool cj_number(struct cj *c)
{
	char small[64], *copy = small, *after;
	size_t n = 0;

	while (c->off + n <= c->len && cj_number_char(cj_at(c, c->off + n)) &&
	       (c->long_numbers || n < sizeof(small) - 1))
		n++;
	if (n >= sizeof(small))
		copy = mg_xmalloc(n + 1);
	memcpy(copy, c->s + c->off, n);
	copy[n] = '\0';
	strtod(copy, &after);
	n = (size_t)(after - copy);
	if (copy != small)
		free(copy);
	c->off += n;
	return n > 0;
}

static bool cj_value(struct cj *c);

/* parse_array and parse_object: the elements (or members) after the
 * bracket, each then cj_skip, separated by ','; false where cJSON fails. */
static bool cj_container(struct cj *c, char close)
{
	if (c->depth >= CJSON_DEPTH)
		return false;
	c->depth++;
	c->off++;
	cj_skip(c);
	if (cj_at(c, c->off) == close)
		goto done;
	for (;;) {
		cj_skip(c);
		if (close == '}') {
			if (!cj_string(c))
				return false;
			cj_skip(c);
			if (c->off > c->len || cj_at(c, c->off) != ':')
				return false;
			c->off++;
			cj_skip(c);
		}
		if (!cj_value(c))
			return false;
		cj_skip(c);
		if (c->off > c->len || cj_at(c, c->off) != ',')
			break;
		c->off++;
	}
	if (c->off > c->len || cj_at(c, c->off) != close)
		return false;
done:
	c->depth--;
	c->off++;
	return true;
}

static bool cj_word(struct cj *c, const char *word)
{
	size_t n = strlen(word);

	if (c->off + n > c->len || memcmp(c->s + c->off, word, n))
		return false;
	c->off += n;
	return true;
}

/* parse_value. */
static bool cj_value(struct cj *c)
{
	unsigned char ch = cj_at(c, c->off);

	if (c->off > c->len)
		return false;
	if (cj_word(c, "null") || cj_word(c, "false") || cj_word(c, "true"))
		return true;
	if (ch == '"')
		return cj_string(c);
	if (ch == '-' || (ch >= '0' && ch <= '9'))
		return cj_number(c);
	if (ch == '[')
		return cj_container(c, ']');
	if (ch == '{')
		return cj_container(c, '}');
	return false;
}

/* Does cJSON read text?  When it does not, *stop is where it stopped (as
 * cJSON_ParseWithLengthOpts's return_parse_end, at most len). */
static bool cjson_reads(size_t *stop, const char *text, size_t len)
{
	struct cj c;

	memset(&c, 0, sizeof(c));
	c.s = (const unsigned char *)text;
	c.len = len;
	c.long_numbers = cjson_reads_long_numbers();
	if (len + 1 > 4 && !memcmp(text, "\xef\xbb\xbf", 3))
		c.off = 3;
	cj_skip(&c);
	if (cj_value(&c))
		return true;
	*stop = c.off < len ? c.off : len;
	return false;
}

/* ---- pass 3: the walk --------------------------------------------- */

struct wkey {
	const char *p;     /* the raw key in the text (decoded, when escaped,
			      once its object is closed) */
	size_t len;
	size_t doff;       /* an escaped key's offset in walk.names */
	size_t off;        /* its opening quote */
	bool escaped;
};

struct walk {
	const char *s;
	size_t len, off;
	struct fault fault;
	struct fault dup;    /* the earliest duplicate key of a closed object */
	struct wkey *keys;   /* a stack: the keys of the open objects */
	size_t nkeys, kcap;
	mg_buf names;        /* scratch: the escaped keys of an object, decoded */
};

static void walk_ws(struct walk *w)
{
	while (w->off < w->len && mg_json__is_ws(w->s[w->off]))
		w->off++;
}

/* The next byte cJSON sees: past its whitespace (every byte up to ' '). */
static char walk_peek(const struct walk *w)
{
	size_t p = w->off;

	while (p < w->len && (unsigned char)w->s[p] <= ' ')
		p++;
	return p < w->len ? w->s[p] : '\0';
}

static int walk_unexpected(struct walk *w)
{
	mg_json__explain_failure(&w->fault, w->s, w->len, w->off);
	return -1;
}

static int walk_expect(struct walk *w, char c)
{
	walk_ws(w);
	if (w->off >= w->len || w->s[w->off] != c)
		return walk_unexpected(w);
	w->off++;
	return 0;
}

/* By name, then by place in the text. */
static int wkey_cmp(const void *a, const void *b)
{
	const struct wkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->p, y->p, n);

	if (c)
		return c;
	c = (x->len > y->len) - (x->len < y->len);
	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* The object whose keys are keys[base..] closed: note its earliest second
 * occurrence of a key (names compared decoded), and pop its keys. */
static void walk_close_object(struct walk *w, size_t base)
{
	struct wkey *k = w->keys + base;
	size_t n = w->nkeys - base, i;

	w->nkeys = base;
	if (n < 2)
		return;
	w->names.len = 0;
	for (i = 0; i < n; i++) {
		if (!k[i].escaped)
			continue;
		k[i].doff = w->names.len;
		mg_json__decode_string(&w->names, k[i].p, k[i].len);
		k[i].len = w->names.len - k[i].doff;
	}
	for (i = 0; i < n; i++)
		if (k[i].escaped)
			k[i].p = w->names.ptr + k[i].doff;
	qsort(k, n, sizeof(*k), wkey_cmp);
	for (i = 1; i < n; i++)
		if (k[i].len == k[i - 1].len && !memcmp(k[i].p, k[i - 1].p, k[i].len) &&
		    (!w->dup.what[0] || k[i].off < w->dup.off))
			mg_json__fault_set(&w->dup, k[i].off, "duplicate key '%.*s'", (int)k[i].len,
					   k[i].p);
}

/* The key whose opening quote is at q and closing one at end - 1. */
static void push_key(struct walk *w, size_t q, size_t end)
{
	struct wkey *k;

	if (w->nkeys == w->kcap) {
		w->kcap = w->kcap ? 2 * w->kcap : 64;
		w->keys = mg_xrealloc(w->keys, w->kcap * sizeof(*w->keys));
	}
	k = &w->keys[w->nkeys++];
	k->p = w->s + q + 1;
	k->len = end - q - 2;
	k->off = q;
	k->escaped = memchr(k->p, '\\', k->len) != NULL;
}

static int walk_value(struct walk *w);

static int walk_member(struct walk *w)
{
	size_t q, end;

	walk_ws(w);
	q = w->off;
	if (q >= w->len || w->s[q] != '"')
		return walk_unexpected(w);
	if (!(end = mg_json__scan_string(&w->fault, w->s, w->len, q)))
		return -1;
	w->off = end;
	push_key(w, q, end);
	if (walk_expect(w, ':') < 0)
		return -1;
	return walk_value(w);
}

/* An object or array whose bracket is at w->off: its members or elements
 * as cJSON found them (as many as ',' after each, in cJSON's whitespace). */
static int walk_container(struct walk *w, char close)
{
	size_t base = w->nkeys;

	w->off++;
	if (walk_peek(w) != close)
		for (;;) {
			if ((close == '}' ? walk_member(w) : walk_value(w)) < 0)
				return -1;
			if (walk_peek(w) != ',')
				break;
			if (walk_expect(w, ',') < 0)
				return -1;
		}
	if (walk_expect(w, close) < 0)
		return -1;
	if (close == '}')
		walk_close_object(w, base);
	return 0;
}

static int walk_value(struct walk *w)
{
	size_t end;
	char c;

	walk_ws(w);
	if (w->off >= w->len || (unsigned char)w->s[w->off] <= ' ')
		return walk_unexpected(w);
	c = w->s[w->off];
	if (c == '{' || c == '[')
		return walk_container(w, c == '{' ? '}' : ']');
	if (c == 't' || c == 'f' || c == 'n') {
		w->off += c == 'f' ? 5 : 4;
		return 0;
	}
	end = c == '"' ? mg_json__scan_string(&w->fault, w->s, w->len, w->off) :
			 mg_json__scan_number(&w->fault, w->s, w->len, w->off);
	if (!end)
		return -1;
	w->off = end;
	return 0;
}

/* Walk a text cJSON reads; false with *f set when RFC 8259 refuses it. */
static bool walk_text(struct fault *f, const char *text, size_t len)
{
	struct walk w;
	bool walked;

	memset(&w, 0, sizeof(w));
	w.s = text;
	w.len = len;
	w.off = mg_json__skip_bom(text, len);
	mg_buf_init(&w.names);
	walked = walk_value(&w) == 0;
	if (walked) {
		walk_ws(&w);
		if (w.off < len)
			mg_json__fault_set(&w.fault, w.off, "trailing text after the JSON document");
	}
	free(w.keys);
	mg_buf_free(&w.names);
	if (w.dup.what[0] && (!w.fault.what[0] || w.dup.off < w.fault.off))
		*f = w.dup;
	else if (w.fault.what[0])
		*f = w.fault;
	return !f->what[0];
}

/* ---- the explanation ---------------------------------------------- */

int mg_json__explain(const char *path, const char *text, size_t len, mg_error *err)
{
	struct fault f;
	size_t stop;

	assert(text || !len);
	text = text ? text : "";
	memset(&f, 0, sizeof(f));
	if (mg_json__prescan(&f, text, len, MG_JSON_MAX_DEPTH) < 0)
		goto fault;
	if (!cjson_reads(&stop, text, len)) {
		mg_json__explain_failure(&f, text, len, stop);
		goto fault;
	}
	if (!walk_text(&f, text, len))
		goto fault;
	return mg_error_set(err, path, 0, 0, "internal error: cannot say why this JSON text "
			    "was refused");
fault:
	return mg_error_at(err, path, mg_json__pos_at(text, len, f.off), "%s", f.what);
}
