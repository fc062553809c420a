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
 * skipped and takes no column.  Passes 1 and 2 and the lexical checks are
 * json_lex.c's, shared with the streaming reader (json_stream.c).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_lex.h"
#include "json_write.h"
#include "memgate/buf.h"

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

struct key {
	const char *name;
	size_t off;
};

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

/* ---- pass 3: the walk --------------------------------------------- */

static void walk_ws(struct walk *w)
{
	while (w->off < w->len && mg_json__is_ws(w->text[w->off]))
		w->off++;
}

/* The text disagrees with the tree: only what cJSON accepts and RFC 8259
 * does not (such as \f as whitespace) gets here. */
static int walk_unexpected(struct walk *w)
{
	mg_json__explain_failure(&w->fault, w->text, w->len, w->off);
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
	w->idx[w->count].key_pos = mg_json__cursor_to(&w->at,
						       key_off == SIZE_MAX ? w->off : key_off);
	w->idx[w->count].pos = mg_json__cursor_to(&w->at, w->off);
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
			mg_json__fault_set(&w->dup, k[i].off, "duplicate key '%s'", k[i].name);
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
	if (!(end = mg_json__scan_string(&w->fault, w->text, w->len, key_off)))
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
		end = mg_json__scan_string(&w->fault, w->text, w->len, w->off);
	} else if (cJSON_IsNumber(node)) {
		end = mg_json__scan_number(&w->fault, w->text, w->len, w->off);
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
	if (want == '0' ? !(c == '-' || mg_json__is_digit(c)) : c != want)
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
			mg_json__fault_set(&w->fault, w->off,
					   "trailing text after the JSON document");
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
	w.off = mg_json__skip_bom(text, len);
	mg_json__cursor_init(&w.at, text, len);
	f = walk_verdict(&w, walk_value(&w, j->root, SIZE_MAX) == 0);
	if (f)
		error = mg_error_at(err, path, mg_json__pos_at(text, len, f->off), "%s", f->what);
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
	if (mg_json__prescan(&f, text, len, max_depth ? max_depth : MG_JSON_MAX_DEPTH) < 0) {
		error = mg_error_at(err, path, mg_json__pos_at(text, len, f.off), "%s", f.what);
		goto done;
	}
	j = mg_xcalloc(1, sizeof(*j));
	if (!(j->root = parse_copy(&end, text, len))) {
		mg_json__explain_failure(&f, text, len, end);
		error = mg_error_at(err, path, mg_json__pos_at(text, len, f.off), "%s", f.what);
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

void mg_json__write(mg_jw *w, const cJSON *v)
{
	const cJSON *c;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		if (cJSON_IsObject(v))
			mg_jw_object(w);
		else
			mg_jw_array(w);
		cJSON_ArrayForEach(c, v) {
			if (cJSON_IsObject(v))
				mg_jw_key(w, c->string);
			mg_json__write(w, c);
		}
		mg_jw_end(w);
	} else if (cJSON_IsString(v)) {
		mg_jw_string(w, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		mg_jw_number(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		mg_jw_bool(w, cJSON_IsTrue(v));
	} else if (cJSON_IsRaw(v)) {
		mg_jw_raw(w, v->valuestring, strlen(v->valuestring));
	} else {
		assert(cJSON_IsNull(v));
		mg_jw_null(w);
	}
}

/* ---- the streaming reader ----------------------------------------- */
