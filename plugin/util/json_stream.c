/*
 * The streaming reader: one pass over the text into a tape, the elements
 * of one array handed over one at a time.  See plugin/util/json.h ("the
 * reader").  Where it refuses a text it records why, once, at the byte it
 * stopped at (struct mg_json_fault, in the words json_lex.c gives each
 * kind): the message memgate prints, whatever the text's size.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_lex.h"
#include "memgate/buf.h"
#include "memgate/escape.h"

struct jnode {
	size_t off, len;      /* string: raw bytes inside the quotes; number: its
				 text; container: its number of children */
	size_t end;           /* the index after its last descendant */
	size_t key_off, key_len;  /* an object member's raw key, else 0 */
	mg_pos pos;
	unsigned char type;
	unsigned char escaped;    /* 1: the value has backslash escapes; 2: the key */
};

/* A key of an object, kept until its object closes to find duplicates. */
struct key {
	const char *p;    /* the raw key in the text (decoded, when escaped,
			     once its object is closed) */
	size_t len;
	size_t doff;      /* an escaped key's offset in the scratch buffer */
	size_t off;       /* its opening quote's offset in the text */
	bool escaped;
};

struct mg_json_tape {
	const char *text;
	size_t len;
	struct jnode *n;
	size_t count, cap;
};

struct scan {
	const char *s;
	size_t len, off;
	int line;
	size_t line_start, cont;  /* columns: bytes since the line's start, less
				     the UTF-8 continuation bytes among them */
	size_t depth;
	mg_json_tape *t;
	struct key *keys;
	size_t nkeys, kcap;
	const char *stream_key;
	const char *const *keep;  /* the root members to record (NULL: all) */
	mg_json_element_fn element;
	void *ctx;
	int element_error;
	mg_buf a;                 /* scratch for decoding escaped keys */
	bool validate;            /* keep no node once its value is read */
	struct mg_json_fault fault;   /* why it stopped, when it refused */
};

/* Refuse the text at sc->s[off]: something else was wanted there. */
static bool unexpected(struct scan *sc, size_t off)
{
	mg_json__unexpected(&sc->fault, sc->s, sc->len, off);
	return false;
}

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
 * Sets *escaped when it holds a backslash escape.  False with sc->fault
 * set when it is not a valid string. */
static bool read_string(struct scan *sc, bool *escaped)
{
	const unsigned char *s = (const unsigned char *)sc->s;
	size_t p = sc->off + 1, n, len = sc->len;
	const char *why;

	*escaped = false;
	for (;;) {
		while (p < len && s[p] >= 0x20 && s[p] < 0x80 && s[p] != '"' && s[p] != '\\')
			p++;
		if (p >= len) {
			mg_json__fault_set(&sc->fault, MG_JF_UNTERMINATED, sc->off,
					   "malformed JSON: unterminated string");
			return false;
		}
		if (!s[p])
			return unexpected(sc, p);
		if (s[p] < 0x20) {
			mg_json__fault_set(&sc->fault, MG_JF_CONTROL, p, "malformed JSON: unescaped "
					   "control character U+%04X in string", s[p]);
			return false;
		}
		if (s[p] == '"')
			break;
		if (s[p] == '\\') {
			if (!(n = mg_json__check_escape(&sc->fault, sc->s, len, p)))
				return false;
			*escaped = true;
			p += n;
			continue;
		}
		if (!(n = mg_json__utf8_seq(s + p, len - p, &why)))
			return unexpected(sc, p);
		sc->cont += n - 1;
		p += n;
	}
	sc->off = p + 1;
	return true;
}

void mg_json__decode_string(mg_buf *out, const char *s, size_t len)
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
			cp = (unsigned long)mg_json__hex4(s + p + 2, 4);
			p += 6;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				lo = (unsigned long)mg_json__hex4(s + p + 2, 4);
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

/* Decode the escaped keys among k[0..n) into scratch (emptied first) and
 * point them there, so that keys compare by their decoded names. */
static void decode_keys(mg_buf *scratch, struct key *k, size_t n)
{
	size_t i;

	scratch->len = 0;
	for (i = 0; i < n; i++) {
		if (!k[i].escaped)
			continue;
		k[i].doff = scratch->len;
		mg_json__decode_string(scratch, k[i].p, k[i].len);
		k[i].len = scratch->len - k[i].doff;
	}
	for (i = 0; i < n; i++)   /* after every decode: scratch may have moved */
		if (k[i].escaped)
			k[i].p = scratch->ptr + k[i].doff;
}

/* Order two keys by name (bytes, then length), counted. */
static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->p, y->p, n);

	mg_json__key_compares++;
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* "duplicate key '<name>'": the decoded name, escaped, since it may hold
 * any character JSON can escape, its first 100 bytes (at most 400
 * escaped, \xNN): the message fits f->what. */
static void duplicate_fault(struct mg_json_fault *f, const struct key *k)
{
	mg_buf safe = MG_BUF_INIT;

	mg_escape_text_max(&safe, k->p, k->len, 100);
	mg_json__fault_set(f, MG_JF_DUPLICATE, k->off, "duplicate key '%s'", safe.ptr);
	mg_buf_free(&safe);
}

/*
 * True when the keys of the object just closed (keys[base..]) are unique;
 * else false with sc->fault the duplicate key: the earliest second
 * occurrence of a name in the object, at its opening quote.  Escaped keys
 * are decoded once, each into the scratch buffer, so that every key is
 * compared as bytes: pairs for a few keys, else a sort and one pass, n log
 * n in the number of keys, however many of them are escaped.
 */
static bool keys_unique(struct scan *sc, size_t base)
{
	struct key *k = sc->keys + base;
	size_t n = sc->nkeys - base, i, j, dup = SIZE_MAX;

	sc->nkeys = base;
	if (n < 2)
		return true;    /* keys may still be NULL: no arithmetic on it */
	decode_keys(&sc->a, k, n);
	if (n <= 16) {
		for (i = 1; i < n && dup == SIZE_MAX; i++)
			for (j = 0; j < i && dup == SIZE_MAX; j++)
				if (!key_cmp(&k[i], &k[j]))
					dup = i;
	} else {
		qsort(k, n, sizeof(*k), key_cmp);
		for (i = 0; i < n; i = j) {   /* a run of equal names: its second in the text */
			size_t lo = i, second = SIZE_MAX;

			for (j = i + 1; j < n && !key_cmp(&k[j], &k[i]); j++)
				if (k[j].off < k[lo].off) {
					second = lo;
					lo = j;
				} else if (second == SIZE_MAX || k[j].off < k[second].off) {
					second = j;
				}
			if (second != SIZE_MAX && (dup == SIZE_MAX || k[second].off < k[dup].off))
				dup = second;
		}
	}
	if (dup == SIZE_MAX)
		return true;
	duplicate_fault(&sc->fault, &k[dup]);
	return false;
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
	mg_json__decode_string(&sc->a, sc->s + key_off, key_len);
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
			return unexpected(sc, sc->off);
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
			return unexpected(sc, sc->off);
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
		return unexpected(sc, sc->off);
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
		return unexpected(sc, sc->off);
	}
	sc->t->n[node].len = count;
	return true;
}

static bool read_value(struct scan *sc, size_t key_off, size_t key_len, bool key_escaped,
		       bool stream)
{
	size_t node, end;
	bool escaped, ok;
	char c;

	skip_space(sc);
	if (sc->off >= sc->len)
		return unexpected(sc, sc->off);
	c = sc->s[sc->off];
	switch (c) {
	case '{':
	case '[':
		if (++sc->depth > MG_JSON_MAX_DEPTH) {
			mg_json__fault_set(&sc->fault, MG_JF_DEPTH, sc->off, "nesting deeper than %d "
					   "levels", (int)MG_JSON_MAX_DEPTH);
			return false;
		}
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
			return unexpected(sc, sc->off);
		node_push(sc, c == 't' ? MG_J_TRUE : c == 'f' ? MG_J_FALSE : MG_J_NULL,
			  key_off, key_len, key_escaped);
		sc->off += n;
		return true;
	}
	default:
		if (c != '-' && (c < '0' || c > '9'))
			return unexpected(sc, sc->off);
		if (!(end = mg_json__number_end(sc->s, sc->len, sc->off))) {
			mg_json__number_fault(&sc->fault, sc->s, sc->len, sc->off);
			return false;
		}
		if (!mg_json__number_finite(&sc->fault, sc->s + sc->off, end - sc->off, sc->off))
			return false;
		node = node_push(sc, MG_J_NUMBER, key_off, key_len, key_escaped);
		sc->t->n[node].len = end - sc->off;
		sc->off = end;
		return true;
	}
}

/* Read the whole text (after scan_start): false with sc->fault set when
 * it is refused. */
static bool read_text(struct scan *sc)
{
	if (!read_value(sc, 0, 0, false, false))
		return false;
	skip_space(sc);
	if (sc->off == sc->len)
		return true;
	unexpected(sc, sc->off);
	if (sc->fault.kind == MG_JF_CHAR)   /* not a NUL byte nor invalid UTF-8 */
		mg_json__fault_set(&sc->fault, MG_JF_TRAILING, sc->off,
				   "trailing text after the JSON document");
	return false;
}

static void scan_start(struct scan *sc, const char *text, size_t len)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = text ? text : "";
	sc->len = len;
	sc->off = sc->line_start = mg_json__skip_bom(sc->s, len);
	sc->line = 1;
	sc->t = mg_xcalloc(1, sizeof(*sc->t));
	sc->t->text = sc->s;
	sc->t->len = len;
	mg_buf_init(&sc->a);
}

static void scan_end(struct scan *sc)
{
	free(sc->keys);
	mg_buf_free(&sc->a);
}

int mg_json__stream(mg_json_tape **out, const char *path, const char *text, size_t len,
		    const char *stream_key, const char *const *keep, mg_json_element_fn element,
		    void *ctx, int *element_error, mg_error *err)
{
	struct scan sc;
	bool ok;

	assert(out && (text || !len));
	scan_start(&sc, text, len);
	sc.stream_key = stream_key;
	sc.keep = keep;
	sc.element = element;
	sc.ctx = ctx;
	ok = read_text(&sc);
	scan_end(&sc);
	if (element_error)
		*element_error = sc.element_error;
	if (!ok) {
		assert(sc.fault.kind != MG_JF_NONE);
		mg_json__tape_free(sc.t);
		*out = NULL;
		return mg_error_at(err, path, mg_json__pos_at(sc.s, len, sc.fault.off), "%s",
				   sc.fault.what);
	}
	*out = sc.t;
	return MG_OK;
}

int mg_json__check(struct mg_json_fault *f, const char *text, size_t len)
{
	struct scan sc;
	bool ok;

	assert(f && (text || !len));
	scan_start(&sc, text, len);
	sc.validate = true;
	ok = read_text(&sc);
	scan_end(&sc);
	mg_json__tape_free(sc.t);
	*f = sc.fault;
	return ok ? MG_OK : MG_ERROR;
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
	mg_json__decode_string(&b, t->text + m->key_off, m->key_len);
	same = b.len == len && !memcmp(b.ptr, key, len);
	mg_buf_free(&b);
	return same;
}

size_t mg_json__tape_member(const mg_json_tape *t, size_t object, const char *key)
{
	size_t c, len = strlen(key);

	if (object >= t->count || t->n[object].type != MG_J_OBJECT)
		return MG_J_NONE;
	for (c = object + 1; c < t->n[object].end; c = t->n[c].end)
		if (key_equals(t, &t->n[c], key, len))
			return c;
	return MG_J_NONE;
}

size_t mg_json__tape_get(const mg_json_tape *t, size_t object, const char *key)
{
	size_t c = mg_json__tape_member(t, object, key);

	return c != MG_J_NONE && t->n[c].type == MG_J_NULL ? MG_J_NONE : c;
}

mg_pos mg_json__tape_key_pos(const mg_json_tape *t, size_t node)
{
	if (node >= t->count)
		return (mg_pos){ 0, 0 };
	if (!t->n[node].key_off)
		return t->n[node].pos;
	return mg_json__pos_at(t->text, t->len, t->n[node].key_off - 1);
}

const char *mg_json__tape_type_name(const mg_json_tape *t, size_t node)
{
	switch (node < t->count ? t->n[node].type : MG_J_NULL) {
	case MG_J_OBJECT: return "an object";
	case MG_J_ARRAY: return "an array";
	case MG_J_STRING: return "a string";
	case MG_J_NUMBER: return "a number";
	case MG_J_TRUE:
	case MG_J_FALSE: return "a boolean";
	default: return "null";
	}
}

char *mg_json__tape_strdup(const mg_json_tape *t, size_t node)
{
	const struct jnode *n = &t->n[node];
	mg_buf b = MG_BUF_INIT;

	assert(n->type == MG_J_STRING);
	if (!(n->escaped & 1))
		return mg_xstrndup(t->text + n->off, n->len);
	mg_json__decode_string(&b, t->text + n->off, n->len);
	return mg_buf_detach(&b, NULL);
}

char *mg_json__tape_key(const mg_json_tape *t, size_t node)
{
	const struct jnode *n = &t->n[node];
	mg_buf b = MG_BUF_INIT;

	assert(n->key_off);
	if (!(n->escaped & 2))
		return mg_xstrndup(t->text + n->key_off, n->key_len);
	mg_json__decode_string(&b, t->text + n->key_off, n->key_len);
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
 * Zero has no sign: -0 reads as 0 (memgate(1), "JSON").
 */
double mg_json__tape_number(const mg_json_tape *t, size_t node)
{
	const struct jnode *n = &t->n[node];
	const char *s = t->text + n->off, *end = s + n->len, *p = s;
	char buf[64];
	double v;
	uint64_t d = 0;
	int digits = 0, e = 0, ex = 0, exsign = 1;
	bool neg = false;

	assert(n->type == MG_J_NUMBER);
	if (n->len >= sizeof(buf))
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
		return 0.0;   /* -0 too: memgate's rule */
	if (e >= 0 && e <= 22)
		return neg ? -((double)d * exact_pow10[e]) : (double)d * exact_pow10[e];
	if (e < 0 && e >= -22)
		return neg ? -((double)d / exact_pow10[-e]) : (double)d / exact_pow10[-e];
slow:
	if (n->len >= sizeof(buf)) {
		char *copy = mg_xstrndup(s, n->len);

		v = strtod(copy, NULL);
		free(copy);
	} else {
		memcpy(buf, s, n->len);
		buf[n->len] = '\0';
		v = strtod(buf, NULL);
	}
	return v == 0 ? 0.0 : v;   /* -0 and -1e-999 as 0: memgate's rule */
}
