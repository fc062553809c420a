/*
 * Why the strict reader (json_stream.c) refused a text: mg_json__explain,
 * in the words and at the place the project has always given.  See
 * plugin/util/json.h.
 *
 * A text of at most MG_JSON_EXPLAIN_TREE_MAX bytes goes through three
 * passes, each of which names the first problem it meets:
 *  1. the bytes (json_lex.c): NUL bytes, invalid UTF-8, nesting depth;
 *  2. cJSON itself (cJSON_ParseWithLengthOpts on the text and its
 *     terminating NUL): where it stops, explained by
 *     mg_json__explain_failure; its tree is deleted at once;
 *  3. what cJSON lets through and RFC 8259 does not, in text order
 *     (walk_*): whitespace other than RFC 8259's, leading zeros, "1.",
 *     raw control characters and bad escapes in strings, '\u0000', then
 *     text after the document; and duplicate keys, each found when its
 *     object closes, the earliest second occurrence winning over a later
 *     fault.
 * Pass 3 runs only on texts cJSON reads, so their structure is what cJSON
 * saw: the walk follows it with cJSON's whitespace and checks with RFC
 * 8259's.
 *
 * A longer text builds no tree: pass 1, then the reader's own fault
 * (mg_json__stream_fault), so that an error costs no more than the read
 * it explains.
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

/*
 * Does cJSON read text?  When it does not, *stop is where it stopped
 * (`end`, never the racy cJSON_GetErrorPtr), at most len.  cJSON is given
 * the text and a NUL after it, so that it reports an unexpected end where
 * the text ends, not at its last byte; the tree it builds is deleted at
 * once.
 */
static bool cjson_reads(size_t *stop, const char *text, size_t len)
{
	char *copy = mg_xmalloc(len + 1);
	const char *end = NULL;
	cJSON *root;

	memcpy(copy, text, len);
	copy[len] = '\0';
	root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 0);
	*stop = end && end >= copy ? (size_t)(end - copy) : 0;
	if (*stop > len)
		*stop = len;
	cJSON_Delete(root);
	free(copy);
	return root != NULL;
}

/* ---- pass 3: the walk --------------------------------------------- */

struct walk {
	const char *s;
	size_t len, off;
	struct fault fault;
	struct fault dup;    /* the earliest duplicate key of a closed object */
	struct mg_json__key *keys;   /* a stack: the keys of the open objects */
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
	const struct mg_json__key *x = a, *y = b;
	int c = mg_json__key_name_cmp(x, y);

	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* The object whose keys are keys[base..] closed: note its earliest second
 * occurrence of a key (names compared decoded), and pop its keys. */
static void walk_close_object(struct walk *w, size_t base)
{
	size_t n = w->nkeys - base, i;
	struct mg_json__key *k;

	w->nkeys = base;
	if (n < 2)
		return;     /* keys may still be NULL: no arithmetic on it */
	k = w->keys + base;
	mg_json__decode_keys(&w->names, k, n);
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
	struct mg_json__key *k;

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

/* A text of at most MG_JSON_EXPLAIN_TREE_MAX bytes: passes 2 and 3. */
static bool explain_short(struct fault *f, const char *text, size_t len)
{
	size_t stop;

	if (!cjson_reads(&stop, text, len)) {
		mg_json__explain_failure(f, text, len, stop);
		return true;
	}
	return !walk_text(f, text, len);
}

int mg_json__explain(const char *path, const char *text, size_t len, mg_error *err)
{
	struct fault f;
	bool found;

	assert(text || !len);
	text = text ? text : "";
	memset(&f, 0, sizeof(f));
	found = mg_json__prescan(&f, text, len, MG_JSON_MAX_DEPTH) < 0 ||
		(len <= MG_JSON_EXPLAIN_TREE_MAX ? explain_short(&f, text, len) :
						   mg_json__stream_fault(&f, text, len));
	if (!found)
		return mg_error_set(err, path, 0, 0, "internal error: cannot say why this JSON "
				    "text was refused");
	return mg_error_at(err, path, mg_json__pos_at(text, len, f.off), "%s", f.what);
}
