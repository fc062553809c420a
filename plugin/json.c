/*
 * Strict JSON reading: see plugin/json.h.
 *
 * Three passes over the text:
 *  1. prescan: NUL bytes, invalid UTF-8 and nesting depth, before cJSON
 *     sees the text (cJSON accepts NULs in \u escapes only, never checks
 *     UTF-8, and nests 1000 levels deep);
 *  2. cJSON_ParseWithLengthOpts builds the tree; on failure `end` (never the
 *     racy cJSON_GetErrorPtr) says where it stopped;
 *  3. walk: the text again, in step with the tree, recording where every
 *     value and key starts, refusing duplicate keys and what cJSON lets
 *     through but RFC 8259 does not (leading zeros, "1.", raw control
 *     characters in strings, \f or \v as whitespace, malformed \u escapes,
 *     \u0000 which would truncate the C string).
 *
 * Columns count characters (UTF-8 code points), not bytes; a UTF-8 BOM is
 * skipped and takes no column.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memgate/buf.h"
#include "memgate/escape.h"

struct entry {
	const cJSON *node;
	mg_pos pos;        /* where the value starts */
	mg_pos key_pos;    /* where its key starts; `pos` when not a member */
};

struct mg_json {
	cJSON *root;
	struct entry *idx; /* in text order */
	size_t count;
	size_t *slots;     /* hash of node -> 1 + index into idx; 0 = empty */
	size_t mask;       /* slots has mask + 1 entries, a power of two */
};

/* A problem found at a byte offset; what[0] == '\0' means none. */
struct fault {
	size_t off;
	char what[160];
};

struct key {
	const char *name;
	size_t off;
};

static const char *const bom = "\xef\xbb\xbf";

static size_t skip_bom(const char *text, size_t len)
{
	return len >= 3 && !memcmp(text, bom, 3) ? 3 : 0;
}

/* ---- positions ---------------------------------------------------- */

struct cursor {
	const char *text;
	size_t len;
	size_t off;
	mg_pos pos;
};

static void cursor_init(struct cursor *c, const char *text, size_t len)
{
	c->text = text;
	c->len = len;
	c->off = skip_bom(text, len);
	c->pos.line = 1;
	c->pos.column = 1;
}

/* Move forward to `target` (never backwards) and return its position. */
static mg_pos cursor_to(struct cursor *c, size_t target)
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

struct walk {
	const char *text;
	size_t len;
	size_t off;
	struct cursor at;  /* positions, converted as the walk goes forward */
	struct entry *idx;
	size_t count, cap;
	struct key *keys;  /* a stack: the members of the open objects */
	size_t nkeys, kcap;
	struct fault fault;
	struct fault dup;
};

static void fault_set(struct fault *f, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fault_set(struct fault *f, size_t off, const char *fmt, ...)
{
	va_list ap;

	f->off = off;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

static mg_pos pos_at(const char *text, size_t len, size_t off)
{
	struct cursor c;

	cursor_init(&c, text, len);
	return cursor_to(&c, off > len ? len : off);
}

/* ---- pass 1: bytes ------------------------------------------------ */

/*
 * Length of the valid UTF-8 sequence at s[0..n), or 0 with *why set.
 */
static size_t utf8_seq(const unsigned char *s, size_t n, const char **why)
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
static int prescan(struct fault *f, const char *text, size_t len, size_t max_depth)
{
	const unsigned char *s = (const unsigned char *)text;
	struct nest n = { false, false, 0 };
	const char *why = NULL;
	size_t off, step;

	if (len >= 2 && ((s[0] == 0xff && s[1] == 0xfe) || (s[0] == 0xfe && s[1] == 0xff))) {
		fault_set(f, 0, "text is UTF-16 encoded: JSON must be UTF-8");
		return -1;
	}
	for (off = skip_bom(text, len); off < len; off += step) {
		if (!s[off]) {
			fault_set(f, off, "unexpected NUL byte");
			return -1;
		}
		if (!(step = utf8_seq(s + off, len - off, &why))) {
			fault_set(f, off, "invalid UTF-8: %s (byte 0x%02x)", why, s[off]);
			return -1;
		}
		if (step == 1 && nest_step(&n, text[off]) && n.depth > max_depth) {
			fault_set(f, off, "nesting deeper than %zu levels", max_depth);
			return -1;
		}
	}
	return 0;
}

/* ---- shared lexical checks ---------------------------------------- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of 4 hex digits at s[0..4) within n bytes, or -1. */
static long hex4(const char *s, size_t n)
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
	long hi = hex4(text + p + 2, len - p - 2), lo;

	if (hi < 0) {
		fault_set(f, p, "malformed JSON: invalid unicode escape (want '\\u' and 4 hex digits)");
		return 0;
	}
	if (hi == 0) {
		fault_set(f, p, "escaped NUL character '\\u0000' is not supported");
		return 0;
	}
	if (hi < 0xd800 || hi > 0xdfff)
		return 6;
	lo = hi <= 0xdbff && p + 7 < len && text[p + 6] == '\\' && text[p + 7] == 'u' ?
	     hex4(text + p + 8, len - p - 8) : -1;
	if (lo < 0xdc00 || lo > 0xdfff) {
		fault_set(f, p, "malformed JSON: unpaired surrogate in unicode escape");
		return 0;
	}
	return 12;
}

/* Check the escape at text[p] ('\\'); returns its length or 0 with f set. */
static size_t check_escape(struct fault *f, const char *text, size_t len, size_t p)
{
	char e = p + 1 < len ? text[p + 1] : '\0';

	if (e == 'u')
		return check_u_escape(f, text, len, p);
	if (e && strchr("\"\\/bfnrt", e))
		return 2;
	if (e > 0x20 && e < 0x7f)
		fault_set(f, p, "malformed JSON: invalid escape sequence '\\%c' in string", e);
	else
		fault_set(f, p, "malformed JSON: invalid escape sequence in string");
	return 0;
}

/* Scan the string whose opening quote is at text[q].  Returns the offset after
 * the closing quote, or 0 with f set. */
static size_t scan_string(struct fault *f, const char *text, size_t len, size_t q)
{
	size_t p = q + 1, step;

	while (p < len) {
		unsigned char c = (unsigned char)text[p];

		if (c == '"')
			return p + 1;
		if (c < 0x20) {
			fault_set(f, p, "malformed JSON: unescaped control character U+%04X in string", c);
			return 0;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		if (!(step = check_escape(f, text, len, p)))
			return 0;
		p += step;
	}
	fault_set(f, q, "malformed JSON: unterminated string");
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
static size_t number_end(const char *text, size_t len, size_t p)
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

/* Check the number at text[start] (cJSON takes "01", "1." and "-.5");
 * returns the offset after it, or 0 with f set. */
static size_t scan_number(struct fault *f, const char *text, size_t len, size_t start)
{
	size_t end = number_end(text, len, start), span;

	if (end)
		return end;
	for (span = start; span < len && numberish(text[span]); span++)
		;
	fault_set(f, start, "malformed JSON: invalid number '%.*s'",
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
	k = utf8_seq((const unsigned char *)text + off, len - off, &why);
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
		if (!n.in_string && !is_ws(c))
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
	if (text[start] != '-' && !is_digit(text[start]))
		return false;
	return !scan_number(f, text, len, start);
}

/* Is text[off - 1] where an object key should start (after '{' or ',') but
 * no string does?  cJSON then stops one byte late. */
static bool bad_key_before(const struct context *ctx, const char *text, size_t off)
{
	char c = off > 0 ? text[off - 1] : '"';

	if (ctx->in_string || ctx->open_before != '{' || is_ws(c) || c == '"')
		return false;
	return ctx->last_before == ',' || (ctx->last_before == '{' && c != '}');
}

/*
 * cJSON stopped at `off` (clamped to len).  It reports a bad object key one
 * byte late and a bad string at its first character: find the real place
 * and say what is wrong there.
 */
static void explain_failure(struct fault *f, const char *text, size_t len, size_t off)
{
	struct context ctx;
	char what[16];

	scan_context(&ctx, text, skip_bom(text, len), off);
	if (ctx.in_string && !scan_string(f, text, len, ctx.string_start))
		return;
	if (bad_key_before(&ctx, text, off))
		off--;
	if (off >= len) {
		fault_set(f, len, "malformed JSON: unexpected end of input");
		return;
	}
	if (!ctx.in_string && bad_number(f, text, len, off))
		return;
	describe_char(what, sizeof(what), text, len, off);
	fault_set(f, off, "malformed JSON: unexpected character %s", what);
}

/* ---- pass 3: the walk --------------------------------------------- */

static void walk_ws(struct walk *w)
{
	while (w->off < w->len && is_ws(w->text[w->off]))
		w->off++;
}

/* The text disagrees with the tree: only what cJSON accepts and RFC 8259
 * does not (such as \f as whitespace) gets here. */
static int walk_unexpected(struct walk *w)
{
	explain_failure(&w->fault, w->text, w->len, w->off);
	return -1;
}

static int walk_expect(struct walk *w, char c)
{
	walk_ws(w);
	if (w->off >= w->len || w->text[w->off] != c)
		return walk_unexpected(w);
	w->off++;
	return 0;
}

static void walk_record(struct walk *w, const cJSON *node, size_t key_off)
{
	if (w->count == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->idx = mg_xrealloc(w->idx, w->cap * sizeof(*w->idx));
	}
	w->idx[w->count].node = node;
	w->idx[w->count].key_pos = cursor_to(&w->at, key_off == SIZE_MAX ? w->off : key_off);
	w->idx[w->count].pos = cursor_to(&w->at, w->off);
	w->count++;
}

static int walk_value(struct walk *w, const cJSON *node, size_t key_off);

static int walk_array(struct walk *w, const cJSON *node)
{
	const cJSON *child;

	w->off++;
	for (child = node->child; child; child = child->next) {
		if (child != node->child && walk_expect(w, ',') < 0)
			return -1;
		if (walk_value(w, child, SIZE_MAX) < 0)
			return -1;
	}
	return walk_expect(w, ']');
}

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* Find the earliest second occurrence among keys[base..nkeys) and pop them. */
static void check_duplicates(struct walk *w, size_t base)
{
	size_t n = w->nkeys - base, i;
	struct key *k;

	/* An empty object before any key leaves w->keys NULL: no pointer
	 * arithmetic on it, not even + 0. */
	if (n < 2) {
		w->nkeys = base;
		return;
	}
	k = w->keys + base;
	qsort(k, n, sizeof(*k), key_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(k[i - 1].name, k[i].name))
			continue;
		if (!w->dup.what[0] || k[i].off < w->dup.off)
			fault_set(&w->dup, k[i].off, "duplicate key '%s'", k[i].name);
	}
	w->nkeys = base;
}

static void push_key(struct walk *w, const char *name, size_t off)
{
	if (w->nkeys == w->kcap) {
		w->kcap = w->kcap ? 2 * w->kcap : 64;
		w->keys = mg_xrealloc(w->keys, w->kcap * sizeof(*w->keys));
	}
	w->keys[w->nkeys].name = name;
	w->keys[w->nkeys].off = off;
	w->nkeys++;
}

static int walk_member(struct walk *w, const cJSON *child)
{
	size_t key_off, end;

	walk_ws(w);
	key_off = w->off;
	if (key_off >= w->len || w->text[key_off] != '"')
		return walk_unexpected(w);
	if (!(end = scan_string(&w->fault, w->text, w->len, key_off)))
		return -1;
	w->off = end;
	push_key(w, child->string, key_off);
	if (walk_expect(w, ':') < 0)
		return -1;
	return walk_value(w, child, key_off);
}

static int walk_object(struct walk *w, const cJSON *node)
{
	size_t base = w->nkeys;
	const cJSON *child;

	w->off++;
	for (child = node->child; child; child = child->next) {
		if (child != node->child && walk_expect(w, ',') < 0)
			return -1;
		if (walk_member(w, child) < 0)
			return -1;
	}
	if (walk_expect(w, '}') < 0)
		return -1;
	check_duplicates(w, base);
	return 0;
}

static int walk_literal(struct walk *w, const char *word)
{
	size_t n = strlen(word);

	if (w->len - w->off < n || memcmp(w->text + w->off, word, n))
		return walk_unexpected(w);
	w->off += n;
	return 0;
}

static int walk_scalar(struct walk *w, const cJSON *node)
{
	size_t end;

	if (cJSON_IsString(node)) {
		end = scan_string(&w->fault, w->text, w->len, w->off);
	} else if (cJSON_IsNumber(node)) {
		end = scan_number(&w->fault, w->text, w->len, w->off);
	} else {
		return walk_literal(w, cJSON_IsNull(node) ? "null" :
				       cJSON_IsTrue(node) ? "true" : "false");
	}
	if (!end)
		return -1;
	w->off = end;
	return 0;
}

/* The character a value of node's type starts with. */
static char first_char(const cJSON *node)
{
	if (cJSON_IsObject(node))
		return '{';
	if (cJSON_IsArray(node))
		return '[';
	if (cJSON_IsString(node))
		return '"';
	if (cJSON_IsNull(node))
		return 'n';
	if (cJSON_IsBool(node))
		return cJSON_IsTrue(node) ? 't' : 'f';
	return '0';
}

static int walk_value(struct walk *w, const cJSON *node, size_t key_off)
{
	char want = first_char(node), c;

	walk_ws(w);
	c = w->off < w->len ? w->text[w->off] : '\0';
	if (want == '0' ? !(c == '-' || is_digit(c)) : c != want)
		return walk_unexpected(w);
	walk_record(w, node, key_off);
	if (want == '{')
		return walk_object(w, node);
	if (want == '[')
		return walk_array(w, node);
	return walk_scalar(w, node);
}

/* ---- the index ---------------------------------------------------- */

static size_t slot_of(const cJSON *node, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)node * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(h >> 29) & mask;
}

/* Take the entries (recorded in text order) and hash them by node: a sort
 * by pointer cost more than the rest of the walk on large documents. */
static void index_finish(mg_json *j, struct walk *w)
{
	size_t n = 16, i, k;

	while (n < 2 * w->count)
		n *= 2;
	j->slots = mg_xcalloc(n, sizeof(*j->slots));
	j->mask = n - 1;
	for (i = 0; i < w->count; i++) {
		for (k = slot_of(w->idx[i].node, j->mask); j->slots[k]; k = (k + 1) & j->mask)
			;
		j->slots[k] = i + 1;
	}
	j->idx = w->idx;
	j->count = w->count;
	w->idx = NULL;
}

static const struct entry *index_find(const mg_json *j, const cJSON *node)
{
	size_t k;

	if (!j || !node || !j->slots)
		return NULL;
	for (k = slot_of(node, j->mask); j->slots[k]; k = (k + 1) & j->mask)
		if (j->idx[j->slots[k] - 1].node == node)
			return &j->idx[j->slots[k] - 1];
	return NULL;
}

/* The earliest of the walk's findings, then text after the document. */
static const struct fault *walk_verdict(struct walk *w, bool walked)
{
	if (walked) {
		walk_ws(w);
		if (w->off < w->len)
			fault_set(&w->fault, w->off, "trailing text after the JSON document");
	}
	if (w->dup.what[0] && (!w->fault.what[0] || w->dup.off < w->fault.off))
		return &w->dup;
	return w->fault.what[0] ? &w->fault : NULL;
}

/* Walk the parsed tree over the text; 0, or MG_ERROR with err set. */
static int walk_tree(mg_json *j, const char *path, const char *text, size_t len,
		     mg_error *err)
{
	struct walk w;
	const struct fault *f;
	int error = MG_OK;

	memset(&w, 0, sizeof(w));
	w.text = text;
	w.len = len;
	w.off = skip_bom(text, len);
	cursor_init(&w.at, text, len);
	f = walk_verdict(&w, walk_value(&w, j->root, SIZE_MAX) == 0);
	if (f)
		error = mg_error_at(err, path, pos_at(text, len, f->off), "%s", f->what);
	else
		index_finish(j, &w);
	free(w.idx);
	free(w.keys);
	return error;
}

/* ---- the API ------------------------------------------------------ */

/* cJSON wants a NUL after the text to report an unexpected end where it
 * happens, not at the last byte. */
static cJSON *parse_copy(size_t *end_off, const char *text, size_t len)
{
	char *copy = mg_xmalloc(len + 1);
	const char *end = NULL;
	cJSON *root;

	memcpy(copy, text, len);
	copy[len] = '\0';
	root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 0);
	*end_off = end && end >= copy ? (size_t)(end - copy) : 0;
	if (*end_off > len)
		*end_off = len;
	free(copy);
	return root;
}

int mg_json__parse(mg_json **out, const char *path, const char *text,
		   size_t len, size_t max_depth, mg_error *err)
{
	mg_json *j = NULL;
	struct fault f;
	size_t end = 0;
	int error = MG_OK;

	assert(out && (text || !len));
	*out = NULL;
	text = text ? text : "";
	if (prescan(&f, text, len, max_depth ? max_depth : MG_JSON_MAX_DEPTH) < 0) {
		error = mg_error_at(err, path, pos_at(text, len, f.off), "%s", f.what);
		goto done;
	}
	j = mg_xcalloc(1, sizeof(*j));
	if (!(j->root = parse_copy(&end, text, len))) {
		explain_failure(&f, text, len, end);
		error = mg_error_at(err, path, pos_at(text, len, f.off), "%s", f.what);
		goto done;
	}
	if ((error = walk_tree(j, path, text, len, err)) < 0)
		goto done;
	*out = j;
	j = NULL;
done:
	mg_json__free(j);
	return error;
}

const cJSON *mg_json__root(const mg_json *j)
{
	return j ? j->root : NULL;
}

mg_pos mg_json__pos(const mg_json *j, const cJSON *node)
{
	const struct entry *e = index_find(j, node);

	return e ? e->pos : (mg_pos){ 0, 0 };
}

mg_pos mg_json__key_pos(const mg_json *j, const cJSON *node)
{
	const struct entry *e = index_find(j, node);

	return e ? e->key_pos : (mg_pos){ 0, 0 };
}

const cJSON *mg_json__get(const cJSON *object, const char *key)
{
	const cJSON *v;

	if (!cJSON_IsObject(object))
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(object, key);
	return cJSON_IsNull(v) ? NULL : v;
}

const char *mg_json__type_name(const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	return cJSON_IsObject(v) ? "an object" : "an unknown value";
}

void mg_json__free(mg_json *j)
{
	if (!j)
		return;
	cJSON_Delete(j->root);
	free(j->idx);
	free(j->slots);
	free(j);
}

/* ---- writing ---- */

cJSON *mg_json__new_string(const char *s)
{
	mg_buf b = MG_BUF_INIT;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	mg_escape_utf8(&b, s, strlen(s));
	item = cJSON_CreateString(b.ptr);
	mg_buf_free(&b);
	return item;
}

cJSON *mg_json__add(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (!item)
		abort();
	ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
	if (!ok)
		abort();
	return item;
}

/* The tree printed (pretty or not) and a newline, safe for a log
 * (mg_escape_json_log: these files end up in logs); deletes the tree. */
static char *print_tree(cJSON *root, bool pretty)
{
	mg_buf out = MG_BUF_INIT;
	char *text = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);

	if (!text)
		abort();
	mg_escape_json_log(&out, text);
	mg_buf_putc(&out, '\n');
	cJSON_free(text);
	cJSON_Delete(root);
	return mg_buf_detach(&out, NULL);
}

char *mg_json__print(cJSON *root)
{
	return print_tree(root, true);
}

char *mg_json__print_line(cJSON *root)
{
	return print_tree(root, false);
}

/* ---- the streaming reader ----------------------------------------- */

struct jnode {
	size_t off, len;      /* string: raw bytes inside the quotes; number: its
				 text; container: its number of children */
	size_t end;           /* the index after its last descendant */
	size_t key_off, key_len;  /* an object member's raw key, else 0 */
	mg_pos pos;
	unsigned char type;
	unsigned char escaped;    /* 1: the value has backslash escapes; 2: the key */
};

struct mg_json_tape {
	const char *text;
	struct jnode *n;
	size_t count, cap;
};

struct rkey {
	const char *p;    /* the raw key in the text (decoded, when escaped,
			     once its object is closed) */
	size_t len;
	size_t doff;      /* an escaped key's offset in the scratch buffer */
	size_t off;       /* its opening quote's offset in the text */
	bool escaped;
};

struct scan {
	const char *s;
	size_t len, off;
	int line;
	size_t line_start, cont;  /* columns: bytes since the line's start, less
				     the UTF-8 continuation bytes among them */
	size_t depth;
	mg_json_tape *t;
	struct rkey *keys;
	size_t nkeys, kcap;
	const char *stream_key;
	const char *const *keep;  /* the root members to record (NULL: all) */
	mg_json_element_fn element;
	void *ctx;
	int element_error;
	mg_buf a;                 /* scratch for decoding escaped keys */
	bool validate;            /* keep no node once its value is read */
	struct fault dup;         /* the first duplicate key found, when any */
};

static mg_pos scan_pos(const struct scan *sc)
{
	mg_pos p;

	p.line = sc->line;
	p.column = (int)(sc->off - sc->line_start - sc->cont + 1);
	return p;
}

static void skip_space(struct scan *sc)
{
	const char *s = sc->s;

	while (sc->off < sc->len) {
		char c = s[sc->off];

		if (c == ' ' || c == '\t') {
			sc->off++;
		} else if (c == '\n' || (c == '\r' && (sc->off + 1 >= sc->len || s[sc->off + 1] != '\n'))) {
			sc->off++;
			sc->line++;
			sc->line_start = sc->off;
			sc->cont = 0;
		} else if (c == '\r') {
			sc->off++;
		} else {
			break;
		}
	}
}

static size_t node_push(struct scan *sc, unsigned char type, size_t key_off, size_t key_len,
			bool key_escaped)
{
	mg_json_tape *t = sc->t;
	struct jnode *n;

	if (t->count == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->n = mg_xrealloc(t->n, t->cap * sizeof(*t->n));
	}
	n = &t->n[t->count];
	n->off = sc->off;
	n->len = 0;
	n->end = t->count + 1;
	n->key_off = key_off;
	n->key_len = key_len;
	n->pos = scan_pos(sc);
	n->type = type;
	n->escaped = key_escaped ? 2 : 0;
	return t->count++;
}

/* A string whose opening quote is at sc->off: moves past the closing quote.
 * Sets *escaped when it holds a backslash escape.  False when invalid. */
static bool read_string(struct scan *sc, bool *escaped)
{
	const unsigned char *s = (const unsigned char *)sc->s;
	size_t p = sc->off + 1, n, len = sc->len;
	struct fault f;
	const char *why;

	*escaped = false;
	for (;;) {
		while (p < len && s[p] >= 0x20 && s[p] < 0x80 && s[p] != '"' && s[p] != '\\')
			p++;
		if (p >= len || s[p] < 0x20)
			return false;
		if (s[p] == '"')
			break;
		if (s[p] == '\\') {
			if (!(n = check_escape(&f, sc->s, len, p)))
				return false;
			*escaped = true;
			p += n;
			continue;
		}
		if (!(n = utf8_seq(s + p, len - p, &why)))
			return false;
		sc->cont += n - 1;
		p += n;
	}
	sc->off = p + 1;
	return true;
}

/* Decode the raw string s[0..len) (valid, inside its quotes) into out. */
static void decode_string(mg_buf *out, const char *s, size_t len)
{
	size_t p = 0, run = 0;
	unsigned long cp, lo;
	char u[4];
	int n;

	mg_buf_grow(out, len);
	while (p < len) {
		if (s[p] != '\\') {
			p++;
			continue;
		}
		mg_buf_put(out, s + run, p - run);
		switch (s[p + 1]) {
		case 'b': mg_buf_putc(out, '\b'); p += 2; break;
		case 'f': mg_buf_putc(out, '\f'); p += 2; break;
		case 'n': mg_buf_putc(out, '\n'); p += 2; break;
		case 'r': mg_buf_putc(out, '\r'); p += 2; break;
		case 't': mg_buf_putc(out, '\t'); p += 2; break;
		case 'u':
			cp = (unsigned long)hex4(s + p + 2, 4);
			p += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				lo = (unsigned long)hex4(s + p + 2, 4);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			if (cp < 0x80) {
				u[0] = (char)cp;
				n = 1;
			} else if (cp < 0x800) {
				u[0] = (char)(0xc0 | (cp >> 6));
				u[1] = (char)(0x80 | (cp & 0x3f));
				n = 2;
			} else if (cp < 0x10000) {
				u[0] = (char)(0xe0 | (cp >> 12));
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[2] = (char)(0x80 | (cp & 0x3f));
				n = 3;
			} else {
				u[0] = (char)(0xf0 | (cp >> 18));
				u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
				u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
				u[3] = (char)(0x80 | (cp & 0x3f));
				n = 4;
			}
			mg_buf_put(out, u, (size_t)n);
			break;
		default:   /* \" \\ \/ */
			mg_buf_putc(out, s[p + 1]);
			p += 2;
		}
		run = p;
	}
	mg_buf_put(out, s + run, len - run);
}

size_t mg_json__key_compares;

static int rkey_cmp(const void *a, const void *b)
{
	const struct rkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c;

	mg_json__key_compares++;
	c = memcmp(x->p, y->p, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Remember two equal keys x and y: the later one is the duplicate (what the
 * strict reader says, "duplicate key 'name'", at its opening quote). */
static void note_duplicate(struct scan *sc, const struct rkey *x, const struct rkey *y)
{
	const struct rkey *second = x->off > y->off ? x : y;

	if (sc->dup.what[0])
		return;
	fault_set(&sc->dup, second->off, "duplicate key '%.*s'",
		  (int)(second->len < 200 ? second->len : 200), second->p);
}

/*
 * True when the keys of the object just closed (keys[base..]) are unique.
 * Escaped keys are decoded once, each into the scratch buffer, so that
 * every key is compared as bytes: a sort and one pass, n log n in the
 * number of keys, however many of them are escaped.
 */
static bool keys_unique(struct scan *sc, size_t base)
{
	struct rkey *k = sc->keys + base;
	size_t n = sc->nkeys - base, i, j, x = 0, y = 0;
	bool ok = true;

	if (n < 2)
		goto done;
	sc->a.len = 0;
	for (i = 0; i < n; i++) {
		if (!k[i].escaped)
			continue;
		k[i].doff = sc->a.len;
		decode_string(&sc->a, k[i].p, k[i].len);
		k[i].len = sc->a.len - k[i].doff;
	}
	for (i = 0; i < n; i++)
		if (k[i].escaped)
			k[i].p = sc->a.ptr + k[i].doff;
	if (n <= 16) {
		for (i = 1; i < n && ok; i++)
			for (j = 0; j < i && ok; j++)
				if (!(ok = rkey_cmp(&k[i], &k[j]) != 0)) {
					x = i;
					y = j;
				}
		goto done;
	}
	qsort(k, n, sizeof(*k), rkey_cmp);
	for (i = 1; i < n && ok; i++)
		if (!(ok = rkey_cmp(&k[i], &k[i - 1]) != 0)) {
			x = i;
			y = i - 1;
		}
done:
	if (!ok)
		note_duplicate(sc, &k[x], &k[y]);
	sc->nkeys = base;
	return ok;
}

static bool read_value(struct scan *sc, size_t key_off, size_t key_len, bool key_escaped,
		       bool stream);

/* Is the raw key at key_off (escaped or not) `want`? */
static bool key_is(struct scan *sc, size_t key_off, size_t key_len, bool escaped,
		   const char *want)
{
	size_t n = strlen(want);

	if (!escaped)
		return key_len == n && !memcmp(sc->s + key_off, want, n);
	sc->a.len = 0;
	decode_string(&sc->a, sc->s + key_off, key_len);
	return sc->a.len == n && !memcmp(sc->a.ptr, want, n);
}

static bool key_listed(struct scan *sc, size_t key_off, size_t key_len, bool escaped,
		       const char *const *list)
{
	for (; *list; list++)
		if (key_is(sc, key_off, key_len, escaped, *list))
			return true;
	return false;
}

static bool read_members(struct scan *sc, size_t node, bool root)
{
	size_t base = sc->nkeys, key_off, key_len, count = 0, mark;
	bool escaped, stream, skip;

	sc->off++;
	skip_space(sc);
	if (sc->off < sc->len && sc->s[sc->off] == '}') {
		sc->off++;
		return true;
	}
	for (;;) {
		skip_space(sc);
		if (sc->off >= sc->len || sc->s[sc->off] != '"')
			return false;
		key_off = sc->off + 1;
		if (!read_string(sc, &escaped))
			return false;
		key_len = sc->off - 1 - key_off;
		if (sc->nkeys == sc->kcap) {
			sc->kcap = sc->kcap ? 2 * sc->kcap : 64;
			sc->keys = mg_xrealloc(sc->keys, sc->kcap * sizeof(*sc->keys));
		}
		sc->keys[sc->nkeys].p = sc->s + key_off;
		sc->keys[sc->nkeys].off = key_off - 1;
		sc->keys[sc->nkeys].len = key_len;
		sc->keys[sc->nkeys++].escaped = escaped;
		skip_space(sc);
		if (sc->off >= sc->len || sc->s[sc->off] != ':')
			return false;
		sc->off++;
		stream = root && sc->stream_key &&
			 key_is(sc, key_off, key_len, escaped, sc->stream_key);
		skip = root && sc->keep && !sc->validate &&
		       !key_listed(sc, key_off, key_len, escaped, sc->keep);
		mark = sc->t->count;
		sc->validate = sc->validate || skip;
		if (!read_value(sc, key_off, key_len, escaped, stream))
			return false;
		if (skip)
			sc->validate = false;
		if (sc->validate || skip)
			sc->t->count = mark;
		else
			count++;
		skip_space(sc);
		if (sc->off < sc->len && sc->s[sc->off] == ',') {
			sc->off++;
			continue;
		}
		if (sc->off < sc->len && sc->s[sc->off] == '}') {
			sc->off++;
			break;
		}
		return false;
	}
	sc->t->n[node].len = count;
	return keys_unique(sc, base);
}

static bool read_elements(struct scan *sc, size_t node, bool stream)
{
	size_t count = 0, mark;
	int rc;

	sc->off++;
	skip_space(sc);
	if (sc->off < sc->len && sc->s[sc->off] == ']') {
		sc->off++;
		return true;
	}
	for (;;) {
		mark = sc->t->count;
		if (!read_value(sc, 0, 0, false, false))
			return false;
		if (stream) {
			if (!sc->element_error &&
			    (rc = sc->element(sc->ctx, sc->t, mark, count)) < 0)
				sc->element_error = rc;
			sc->t->count = mark;
		}
		if (sc->validate)
			sc->t->count = mark;
		count++;
		skip_space(sc);
		if (sc->off < sc->len && sc->s[sc->off] == ',') {
			sc->off++;
			continue;
		}
		if (sc->off < sc->len && sc->s[sc->off] == ']') {
			sc->off++;
			break;
		}
		return false;
	}
	sc->t->n[node].len = count;
	return true;
}

/*
 * Does the linked cJSON read this number of more than 63 characters inside
 * an array?  Upstream cJSON 1.7.15 reads 63 and then fails on the rest;
 * Debian's patched build reads any length.  A lone number is read either
 * way (the strict reader allows text after it and walks the rest).
 */
static bool cjson_reads_long_number(const char *num, size_t len)
{
	char *text = mg_xmalloc(len + 3);
	cJSON *root;
	bool ok;

	text[0] = '[';
	memcpy(text + 1, num, len);
	text[len + 1] = ']';
	text[len + 2] = '\0';
	root = cJSON_ParseWithLength(text, len + 2);
	ok = root != NULL;
	cJSON_Delete(root);
	free(text);
	return ok;
}

static bool read_value(struct scan *sc, size_t key_off, size_t key_len, bool key_escaped,
		       bool stream)
{
	size_t node, end;
	bool escaped, ok;
	char c;

	skip_space(sc);
	if (sc->off >= sc->len)
		return false;
	c = sc->s[sc->off];
	switch (c) {
	case '{':
	case '[':
		if (++sc->depth > MG_JSON_MAX_DEPTH)
			return false;
		node = node_push(sc, c == '{' ? MG_J_OBJECT : MG_J_ARRAY, key_off, key_len, key_escaped);
		ok = c == '{' ? read_members(sc, node, sc->depth == 1)
			      : read_elements(sc, node, stream && sc->element);
		sc->depth--;
		sc->t->n[node].end = sc->t->count;
		return ok;
	case '"':
		node = node_push(sc, MG_J_STRING, key_off, key_len, key_escaped);
		if (!read_string(sc, &escaped))
			return false;
		sc->t->n[node].off++;
		sc->t->n[node].len = sc->off - 1 - sc->t->n[node].off;
		sc->t->n[node].escaped |= escaped;
		return true;
	case 't':
	case 'f':
	case 'n': {
		const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
		size_t n = strlen(word);

		if (sc->len - sc->off < n || memcmp(sc->s + sc->off, word, n))
			return false;
		node_push(sc, c == 't' ? MG_J_TRUE : c == 'f' ? MG_J_FALSE : MG_J_NULL,
			  key_off, key_len, key_escaped);
		sc->off += n;
		return true;
	}
	default:
		if (!(end = number_end(sc->s, sc->len, sc->off)) ||
		    (sc->depth && end - sc->off > 63 && !cjson_reads_long_number(sc->s + sc->off,
										 end - sc->off)))
			return false;
		node = node_push(sc, MG_J_NUMBER, key_off, key_len, key_escaped);
		sc->t->n[node].len = end - sc->off;
		sc->off = end;
		return true;
	}
}

int mg_json__stream(mg_json_tape **out, const char *text, size_t len, const char *stream_key,
		    const char *const *keep, mg_json_element_fn element, void *ctx,
		    int *element_error)
{
	struct scan sc;
	bool ok;

	assert(out && (text || !len));
	memset(&sc, 0, sizeof(sc));
	sc.s = text ? text : "";
	sc.len = len;
	sc.off = sc.line_start = skip_bom(sc.s, len);
	sc.line = 1;
	sc.t = mg_xcalloc(1, sizeof(*sc.t));
	sc.t->text = sc.s;
	sc.stream_key = stream_key;
	sc.keep = keep;
	sc.element = element;
	sc.ctx = ctx;
	mg_buf_init(&sc.a);
	ok = read_value(&sc, 0, 0, false, false);
	if (ok) {
		skip_space(&sc);
		ok = sc.off == sc.len;
	}
	free(sc.keys);
	mg_buf_free(&sc.a);
	if (element_error)
		*element_error = sc.element_error;
	if (!ok) {
		mg_json__tape_free(sc.t);
		*out = NULL;
		return MG_ERROR;
	}
	*out = sc.t;
	return MG_OK;
}

int mg_json__explain(const char *path, const char *text, size_t len, mg_error *err)
{
	mg_json *j = NULL;
	struct scan sc;
	struct fault f;
	bool ok;
	int error;

	assert(text || !len);
	text = text ? text : "";
	if (len <= MG_JSON_EXPLAIN_TREE_MAX) {
		error = mg_json__parse(&j, path, text, len, 0, err);
		mg_json__free(j);
		goto done;
	}
	if (prescan(&f, text, len, MG_JSON_MAX_DEPTH) < 0)
		goto fault;
	memset(&sc, 0, sizeof(sc));
	sc.s = text;
	sc.len = len;
	sc.off = sc.line_start = skip_bom(text, len);
	sc.line = 1;
	sc.t = mg_xcalloc(1, sizeof(*sc.t));
	sc.t->text = text;
	sc.validate = true;
	mg_buf_init(&sc.a);
	ok = read_value(&sc, 0, 0, false, false);
	if (ok) {
		skip_space(&sc);
		if (sc.off < len)
			fault_set(&f, sc.off, "trailing text after the JSON document");
	} else if (sc.dup.what[0]) {
		f = sc.dup;
	} else {
		explain_failure(&f, text, len, sc.off);
	}
	free(sc.keys);
	mg_buf_free(&sc.a);
	mg_json__tape_free(sc.t);
	if (ok && sc.off >= len) {
		error = mg_error_set(err, path, 0, 0, "internal error: the JSON readers disagree "
				     "on this text");
		goto done;
	}
fault:
	error = mg_error_at(err, path, pos_at(text, len, f.off), "%s", f.what);
done:
	return error < 0 ? error : mg_error_set(err, path, 0, 0, "internal error: the JSON "
						"readers disagree on this text");
}

void mg_json__tape_free(mg_json_tape *t)
{
	if (!t)
		return;
	free(t->n);
	free(t);
}

enum mg_jtype mg_json__tape_type(const mg_json_tape *t, size_t node)
{
	return node < t->count ? (enum mg_jtype)t->n[node].type : (enum mg_jtype)0;
}

mg_pos mg_json__tape_pos(const mg_json_tape *t, size_t node)
{
	return node < t->count ? t->n[node].pos : (mg_pos){ 0, 0 };
}

size_t mg_json__tape_count(const mg_json_tape *t, size_t node)
{
	unsigned char type = node < t->count ? t->n[node].type : 0;

	return type == MG_J_OBJECT || type == MG_J_ARRAY ? t->n[node].len : 0;
}

size_t mg_json__tape_first(const mg_json_tape *t, size_t node)
{
	unsigned char type = node < t->count ? t->n[node].type : 0;

	if ((type != MG_J_OBJECT && type != MG_J_ARRAY) || t->n[node].end == node + 1)
		return MG_J_NONE;
	return node + 1;
}

size_t mg_json__tape_next(const mg_json_tape *t, size_t parent, size_t node)
{
	size_t next = t->n[node].end;

	return next < t->n[parent].end ? next : MG_J_NONE;
}

/* Does member's key equal `key` once decoded? */
static bool key_equals(const mg_json_tape *t, const struct jnode *m, const char *key, size_t len)
{
	mg_buf b = MG_BUF_INIT;
	bool same;

	if (!(m->escaped & 2))
		return m->key_len == len && !memcmp(t->text + m->key_off, key, len);
	decode_string(&b, t->text + m->key_off, m->key_len);
	same = b.len == len && !memcmp(b.ptr, key, len);
	mg_buf_free(&b);
	return same;
}

size_t mg_json__tape_get(const mg_json_tape *t, size_t object, const char *key)
{
	size_t c, len = strlen(key);

	if (object >= t->count || t->n[object].type != MG_J_OBJECT)
		return MG_J_NONE;
	for (c = object + 1; c < t->n[object].end; c = t->n[c].end)
		if (key_equals(t, &t->n[c], key, len))
			return t->n[c].type == MG_J_NULL ? MG_J_NONE : c;
	return MG_J_NONE;
}

char *mg_json__tape_strdup(const mg_json_tape *t, size_t node)
{
	const struct jnode *n = &t->n[node];
	mg_buf b = MG_BUF_INIT;

	assert(n->type == MG_J_STRING);
	if (!(n->escaped & 1))
		return mg_xstrndup(t->text + n->off, n->len);
	decode_string(&b, t->text + n->off, n->len);
	return mg_buf_detach(&b, NULL);
}

static const double exact_pow10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * As strtod reads it, correctly rounded: digits d (at most 19 of them, no
 * more than 2^53) times 10^e for |e| <= 22 is one exact operand times (or
 * over) another, one rounding (Clinger's fast path); the rest goes to
 * strtod, as cJSON does (the C locale's '.', which memgate never changes).
 */
double mg_json__tape_number(const mg_json_tape *t, size_t node)
{
	const struct jnode *n = &t->n[node];
	const char *s = t->text + n->off, *end = s + n->len, *p = s;
	char buf[64];
	uint64_t d = 0;
	int digits = 0, e = 0, ex = 0, exsign = 1;
	bool neg = false;

	assert(n->type == MG_J_NUMBER);
	if (n->len >= sizeof(buf))   /* only a lone number: nothing reads its value */
		goto slow;
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		if (digits < 19 && (d || *p != '0')) {
			d = d * 10 + (uint64_t)(*p - '0');
			digits++;
		} else if (d || *p != '0') {
			goto slow;
		}
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (digits >= 19)
				goto slow;
			if (d || *p != '0') {
				d = d * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			e--;
		}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '-' || *p == '+')
			exsign = *p++ == '-' ? -1 : 1;
		for (; p < end; p++) {
			if (ex > 1000)
				goto slow;
			ex = ex * 10 + (*p - '0');
		}
		e += exsign * ex;
	}
	if (d > (UINT64_C(1) << 53))
		goto slow;
	if (!d)
		return neg ? -0.0 : 0.0;
	if (e >= 0 && e <= 22)
		return neg ? -((double)d * exact_pow10[e]) : (double)d * exact_pow10[e];
	if (e < 0 && e >= -22)
		return neg ? -((double)d / exact_pow10[-e]) : (double)d / exact_pow10[-e];
slow:
	if (n->len >= sizeof(buf)) {
		char *copy = mg_xstrndup(s, n->len);
		double v = strtod(copy, NULL);

		free(copy);
		return v;
	}
	memcpy(buf, s, n->len);
	buf[n->len] = '\0';
	return strtod(buf, NULL);
}
