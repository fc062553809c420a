/*
 * The budget policy (SPEC 1.1): see include/memgate/policy.h.
 *
 * Two stages.  load() runs libyaml's event parser and builds a small tree
 * of our own, refusing on the way what must never reach a walk: aliases,
 * anchors, tags outside the YAML core schema, a second document, nesting
 * deeper than MG_POLICY_MAX_DEPTH (checked per event, so a pathological
 * input stops after a few bytes), over-long scalars and too many values.
 * Plain scalars are resolved there with the YAML 1.2 core schema.  Then the
 * walk_*() functions check every key and value in document order and fill
 * the mg_policy; each error names path:line:column of the offending node.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "memgate/buf.h"
#include "memgate/policy.h"

/* ------------------------------------------------------------------ */
/* The tree built from libyaml events                                 */

enum ykind { Y_MAP, Y_SEQ, Y_NULL, Y_BOOL, Y_INT, Y_FLOAT, Y_STR };

typedef struct ynode {
	enum ykind kind;
	mg_pos pos;          /* start of the node (its anchor or tag included) */
	char *text;          /* scalars: the content, NUL-terminated */
	size_t len;          /* scalars: bytes in text (may hold a NUL) */
	bool quoted_number;  /* quoted, but its text reads as a number */
	double num;          /* Y_INT, Y_FLOAT */
	struct ynode **kids; /* Y_SEQ: items; Y_MAP: key, value, key, value... */
	size_t count;
	size_t cap;
} ynode;

static void node_free(ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->count; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static void node_add(ynode *parent, ynode *kid)
{
	if (parent->count == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 8;
		parent->kids = mg_xrealloc(parent->kids, parent->cap * sizeof(*parent->kids));
	}
	parent->kids[parent->count++] = kid;
}

static mg_pos mark_pos(yaml_mark_t m)
{
	mg_pos pos = { (int)m.line + 1, (int)m.column + 1 };

	return pos;
}

/* ------------------------------------------------------------------ */
/* The YAML 1.2 core schema (spec 10.3.2)                             */

#define RE_NULL  "^(null|Null|NULL|~)?$"
#define RE_BOOL  "^(true|True|TRUE|false|False|FALSE)$"
#define RE_INT10 "^[-+]?[0-9]+$"
#define RE_INT8  "^0o[0-7]+$"
#define RE_INT16 "^0x[0-9a-fA-F]+$"
#define RE_FLOAT "^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"
#define RE_INF   "^[-+]?(\\.inf|\\.Inf|\\.INF)$"
#define RE_NAN   "^(\\.nan|\\.NaN|\\.NAN)$"

enum { CORE_NULL, CORE_BOOL, CORE_INT10, CORE_INT8, CORE_INT16, CORE_FLOAT,
       CORE_INF, CORE_NAN, CORE_COUNT };

typedef struct core_schema {
	regex_t re[CORE_COUNT];
	int compiled;
} core_schema;

static void core_init(core_schema *cs)
{
	static const char *const pattern[CORE_COUNT] = {
		RE_NULL, RE_BOOL, RE_INT10, RE_INT8, RE_INT16, RE_FLOAT, RE_INF, RE_NAN
	};

	for (cs->compiled = 0; cs->compiled < CORE_COUNT; cs->compiled++)
		if (regcomp(&cs->re[cs->compiled], pattern[cs->compiled],
			    REG_EXTENDED | REG_NOSUB) != 0)
			abort(); /* the patterns are constants: cannot fail */
}

static void core_release(core_schema *cs)
{
	while (cs->compiled > 0)
		regfree(&cs->re[--cs->compiled]);
}

/* Digits in `base` after a 2-byte prefix, as a double (exact up to 2^53). */
static double radix_value(const char *s, int base)
{
	double v = 0;

	for (s += 2; *s; s++)
		v = v * base + (double)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	return v;
}

/* Which core-schema form the content matches, or -1 (a string). */
static int core_match(const core_schema *cs, const ynode *n)
{
	int i;

	if (strlen(n->text) != n->len)
		return -1;
	for (i = 0; i < CORE_COUNT; i++)
		if (regexec(&cs->re[i], n->text, 0, NULL, 0) == 0)
			return i;
	return -1;
}

/* Resolve a plain (or core-tagged) scalar's kind and number. */
static void core_resolve(const core_schema *cs, ynode *n)
{
	switch (core_match(cs, n)) {
	case CORE_NULL: n->kind = Y_NULL; break;
	case CORE_BOOL: n->kind = Y_BOOL; break;
	case CORE_INT10: n->kind = Y_INT; n->num = strtod(n->text, NULL); break;
	case CORE_INT8: n->kind = Y_INT; n->num = radix_value(n->text, 8); break;
	case CORE_INT16: n->kind = Y_INT; n->num = radix_value(n->text, 16); break;
	case CORE_FLOAT: n->kind = Y_FLOAT; n->num = strtod(n->text, NULL); break;
	case CORE_INF:
		n->kind = Y_FLOAT;
		n->num = n->text[0] == '-' ? -INFINITY : INFINITY;
		break;
	case CORE_NAN: n->kind = Y_FLOAT; n->num = NAN; break;
	default: n->kind = Y_STR; break;
	}
}

/* ------------------------------------------------------------------ */
/* Loading: libyaml events -> tree, with the structural refusals       */

#define CORE_TAG "tag:yaml.org,2002:"

typedef struct loader {
	const char *path;
	const char *text;
	size_t len;
	mg_error *err;
	yaml_parser_t parser;
	core_schema schema;
	ynode *root;
	ynode *stack[MG_POLICY_MAX_DEPTH];
	int depth;
	int documents;
	size_t nodes;
	bool anchored;       /* an anchor was seen: refused at the end, unless */
	mg_pos anchor_pos;   /* an alias comes first (then at the alias)       */
	char anchor[65];
} loader;

/* "!!int" for the core tags, the tag as resolved otherwise. */
static void tag_show(char *buf, size_t n, const char *tag)
{
	size_t k = strlen(CORE_TAG);

	if (!strncmp(tag, CORE_TAG, k))
		snprintf(buf, n, "!!%s", tag + k);
	else
		snprintf(buf, n, "%s", tag);
}

/* Is `tag` NULL or one of the core schema tags? */
static bool tag_is_core(const char *tag)
{
	static const char *const core[] = { "str", "int", "float", "bool", "null",
					    "map", "seq" };
	size_t i, k = strlen(CORE_TAG);

	if (!tag)
		return true;
	if (strncmp(tag, CORE_TAG, k))
		return false;
	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (!strcmp(tag + k, core[i]))
			return true;
	return false;
}

/*
 * Refuse a non-core tag on a node, and note its anchor.  An anchor is
 * refused once the stream ends, or at the first alias if one comes first:
 * the alias is what a reader must write out.  0 or MG_ERROR.
 */
static int check_properties(loader *ld, const yaml_char_t *anchor,
			    const yaml_char_t *tag, yaml_mark_t mark)
{
	char shown[128];

	if (anchor && !ld->anchored) {
		ld->anchored = true;
		ld->anchor_pos = mark_pos(mark);
		snprintf(ld->anchor, sizeof(ld->anchor), "%s", (const char *)anchor);
	}
	if (!tag_is_core((const char *)tag)) {
		tag_show(shown, sizeof(shown), (const char *)tag);
		return mg_error_at(ld->err, ld->path, mark_pos(mark),
				   "tag '%s' is not allowed: only yaml core schema tags are",
				   shown);
	}
	return 0;
}

/* Make a node, hang it under the open collection (or make it the root). */
static int node_new(ynode **out, loader *ld, enum ykind kind, yaml_mark_t mark)
{
	ynode *n;

	if (++ld->nodes > MG_POLICY_MAX_NODES)
		return mg_error_at(ld->err, ld->path, mark_pos(mark),
				   "policy has more than %d values", MG_POLICY_MAX_NODES);
	n = mg_xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->pos = mark_pos(mark);
	if (ld->depth > 0)
		node_add(ld->stack[ld->depth - 1], n);
	else
		ld->root = n;
	*out = n;
	return 0;
}

/* Kind of a scalar from its tag and style.  0 or MG_ERROR. */
static int scalar_kind(loader *ld, ynode *n, const char *tag, bool plain)
{
	static const struct { const char *name; enum ykind kind; } want[] = {
		{ "null", Y_NULL }, { "bool", Y_BOOL }, { "int", Y_INT },
		{ "float", Y_FLOAT },
	};
	char shown[64];
	size_t i;

	if (!tag) {
		if (plain)
			core_resolve(&ld->schema, n);
		else
			n->quoted_number = core_match(&ld->schema, n) >= CORE_INT10;
		return 0;
	}
	if (!strcmp(tag, CORE_TAG "str"))
		return 0;
	tag_show(shown, sizeof(shown), tag);
	core_resolve(&ld->schema, n);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strcmp(tag + strlen(CORE_TAG), want[i].name))
			continue;
		if (want[i].kind == Y_FLOAT && n->kind == Y_INT)
			n->kind = Y_FLOAT;
		if (n->kind == want[i].kind)
			return 0;
		return mg_error_at(ld->err, ld->path, n->pos,
				   "'%.40s' is not a valid '%s'", n->text, shown);
	}
	return mg_error_at(ld->err, ld->path, n->pos,
			   "tag '%s' cannot be used on a scalar", shown);
}

static int on_scalar(loader *ld, const yaml_event_t *ev)
{
	ynode *n;
	int error;

	if ((error = check_properties(ld, ev->data.scalar.anchor, ev->data.scalar.tag,
				      ev->start_mark)) < 0)
		return error;
	if (ev->data.scalar.length > MG_POLICY_MAX_SCALAR)
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "value is longer than %d bytes", MG_POLICY_MAX_SCALAR);
	if ((error = node_new(&n, ld, Y_STR, ev->start_mark)) < 0)
		return error;
	n->text = mg_xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	n->len = ev->data.scalar.length;
	return scalar_kind(ld, n, (const char *)ev->data.scalar.tag,
			   ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
}

/* A mapping or sequence starts: check depth, tag and anchor, then open it. */
static int on_collection(loader *ld, const yaml_event_t *ev, enum ykind kind)
{
	const yaml_char_t *anchor, *tag;
	const char *want = kind == Y_MAP ? CORE_TAG "map" : CORE_TAG "seq";
	char shown[64];
	ynode *n;
	int error;

	anchor = kind == Y_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	tag = kind == Y_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	if (ld->depth == MG_POLICY_MAX_DEPTH)
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "nesting is deeper than %d levels", MG_POLICY_MAX_DEPTH);
	if ((error = check_properties(ld, anchor, tag, ev->start_mark)) < 0)
		return error;
	if (tag && strcmp((const char *)tag, want)) {
		tag_show(shown, sizeof(shown), (const char *)tag);
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "tag '%s' cannot be used on a %s", shown,
				   kind == Y_MAP ? "mapping" : "sequence");
	}
	if ((error = node_new(&n, ld, kind, ev->start_mark)) < 0)
		return error;
	ld->stack[ld->depth++] = n;
	return 0;
}

/* 1-based line and column of a byte offset (columns count characters). */
static mg_pos offset_pos(const char *text, size_t len, size_t offset)
{
	mg_pos pos = { 1, 1 };
	size_t i;

	for (i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			pos.line++;
			pos.column = 1;
		} else if ((text[i] & 0xC0) != 0x80) {
			pos.column++;
		}
	}
	return pos;
}

/* Translate libyaml's failure into err.  Always MG_ERROR. */
static int syntax_error(loader *ld)
{
	const yaml_parser_t *p = &ld->parser;
	const char *problem = p->problem ? p->problem : "out of memory";
	mg_pos pos = mark_pos(p->problem_mark);

	if (p->error == YAML_READER_ERROR)
		pos = offset_pos(ld->text, ld->len, p->problem_offset);
	if (p->context)
		return mg_error_at(ld->err, ld->path, pos, "invalid yaml: %s (%s at %d:%d)",
				   problem, p->context, (int)p->context_mark.line + 1,
				   (int)p->context_mark.column + 1);
	return mg_error_at(ld->err, ld->path, pos, "invalid yaml: %s", problem);
}

/* Handle one event; sets *end at the end of the stream.  0 or MG_ERROR. */
static int on_event(loader *ld, const yaml_event_t *ev, bool *end)
{
	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
		*end = true;
		if (ld->anchored)
			return mg_error_at(ld->err, ld->path, ld->anchor_pos,
					   "anchor '&%s' is not allowed", ld->anchor);
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		if (ld->documents++ > 0)
			return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
					   "a second yaml document is not allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "alias '*%.64s' is not allowed: write the value out",
				   (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return on_scalar(ld, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_collection(ld, ev, Y_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_collection(ld, ev, Y_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		ld->depth--;
		return 0;
	default:
		return 0;
	}
}

/* Parse the whole stream into *out (NULL for a stream with no document). */
static int load(ynode **out, const char *path, const char *text, size_t len,
		mg_error *err)
{
	loader ld;
	yaml_event_t ev;
	bool end = false;
	int error = 0;

	memset(&ld, 0, sizeof(ld));
	ld.path = path;
	ld.text = text;
	ld.len = len;
	ld.err = err;
	if (!yaml_parser_initialize(&ld.parser))
		return mg_error_set(err, path, 0, 0, "cannot start the yaml parser");
	core_init(&ld.schema);
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);
	while (!end && error == 0) {
		if (!yaml_parser_parse(&ld.parser, &ev)) {
			error = syntax_error(&ld);
			break;
		}
		error = on_event(&ld, &ev, &end);
		yaml_event_delete(&ev);
	}
	if (error == 0) {
		*out = ld.root;
		ld.root = NULL;
	}
	node_free(ld.root);
	core_release(&ld.schema);
	yaml_parser_delete(&ld.parser);
	return error;
}

/* ------------------------------------------------------------------ */
/* Keys: sections, suggestions, duplicates                            */

enum section { SEC_ROOT, SEC_IDENTITY, SEC_BUDGET, SEC_QUALITY, SEC_EVIDENCE,
	       SEC_SENSITIVITY, SEC_GATE, SEC_OVERRIDE, SEC_COUNT };

enum { K_VERSION, K_MANIFEST, K_REPORT, K_IDENTITY, K_BUDGET, K_QUALITY,
       K_EVIDENCE, K_RANK_BY, K_SENSITIVITY, K_GATE };

static const char *const root_keys[] = {
	"version", "manifest", "report", "identity", "budget", "quality",
	"evidence", "rank_by", "sensitivity", "gate", NULL
};
/* In the order of enum mg_ident. */
static const char *const identity_keys[] = {
	"workload_id", "hardware_id", "model_id", "dtype", "amp_dtype",
	"batch_size", "seq_len", "optimizer", NULL
};
/* The thresholds, in the order of enum mg_threshold: budget, then quality. */
static const char *const threshold_keys[] = {
	"memory_cap_mb", "min_samples_per_s", "min_memory_saving_mb",
	"min_throughput_ratio", "max_eval_loss", "max_relative_eval_loss",
	"max_quality_delta", NULL
};
static const char *const budget_keys[] = {
	"memory_cap_mb", "min_samples_per_s", "min_memory_saving_mb",
	"min_throughput_ratio", NULL
};
static const char *const quality_keys[] = {
	"max_eval_loss", "max_relative_eval_loss", "max_quality_delta", NULL
};
static const char *const evidence_keys[] = { "baseline", "min_repeats", NULL };
static const char *const sensitivity_keys[] = { "stricter", "grid", NULL };
static const char *const gate_keys[] = { "fail_on", NULL };
static const char *const verdict_words[] = { "accept", "tune", "reject", NULL };

_Static_assert(MG_THRESHOLD_COUNT == 7 && MG_MAX_EVAL_LOSS == 4,
	       "threshold_keys, budget_keys and quality_keys follow enum mg_threshold");
_Static_assert(MG_ID_COUNT == 8 && MG_ID_OPTIMIZER == 7,
	       "identity_keys follows enum mg_ident");
_Static_assert(MG_ACCEPT == 0 && MG_TUNE == 1 && MG_REJECT == 2,
	       "verdict_words follows enum mg_verdict");

static const struct {
	const char *name;            /* how a message names the section */
	const char *const *keys;
} sections[SEC_COUNT] = {
	[SEC_ROOT] = { "", root_keys },
	[SEC_IDENTITY] = { "identity", identity_keys },
	[SEC_BUDGET] = { "budget", budget_keys },
	[SEC_QUALITY] = { "quality", quality_keys },
	[SEC_EVIDENCE] = { "evidence", evidence_keys },
	[SEC_SENSITIVITY] = { "sensitivity", sensitivity_keys },
	[SEC_GATE] = { "gate", gate_keys },
	[SEC_OVERRIDE] = { "", threshold_keys },
};

/* Index of the n-byte `key` in a NULL-terminated list, or -1. */
static int key_find(const char *const *keys, const char *key, size_t n)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == n && !memcmp(keys[i], key, n))
			return i;
	return -1;
}

/* Levenshtein distance between a[0..alen) and b (strlen(b) < 64). */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
	size_t row[64], blen = strlen(b), i, j, diag, up, best;

	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[blen];
}

/* The known word nearest to `word`, when near enough to be a typo; or NULL. */
static const char *nearest(const char *const *words, const char *word, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, d, limit;
	int i;

	if (n > 48)
		return NULL;
	for (i = 0; words[i]; i++) {
		d = edit_distance(word, n, words[i]);
		limit = strlen(words[i]) / 2 > 2 ? strlen(words[i]) / 2 : 2;
		if (d < best_d && d <= limit && d < n) {
			best = words[i];
			best_d = d;
		}
	}
	return best;
}

static void list_words(mg_buf *b, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		mg_buf_printf(b, "%s%s", i ? ", " : "", words[i]);
}

/* The section (other than `here`) that knows `key`, or -1. */
static int home_section(const char *key, size_t n, enum section here)
{
	int s;

	for (s = SEC_ROOT; s < SEC_OVERRIDE; s++)
		if (s != (int)here && key_find(sections[s].keys, key, n) >= 0)
			return s;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The walk                                                           */

typedef struct walk {
	const char *path;
	mg_error *err;
	mg_policy *p;
} walk;

/* "where.key", or "key" at the top level. */
static const char *join(char *buf, size_t n, const char *where, const char *key)
{
	snprintf(buf, n, "%s%s%s", where, *where ? "." : "", key);
	return buf;
}

static const char *describe(const ynode *n)
{
	switch (n->kind) {
	case Y_MAP: return "a mapping";
	case Y_SEQ: return "a sequence";
	case Y_NULL: return "null";
	case Y_BOOL: return "a boolean";
	case Y_INT:
	case Y_FLOAT: return "a number";
	default: return "a string";
	}
}

/* "'where': expected <what>, got <kind of n>".  Always MG_ERROR. */
static int type_error(walk *w, const ynode *n, const char *where, const char *what)
{
	if (n->kind == Y_FLOAT && !strcmp(what, "an integer"))
		return mg_error_at(w->err, w->path, n->pos, "'%s': expected an integer, got '%.40s'",
				   where, n->text);
	return mg_error_at(w->err, w->path, n->pos, "'%s': expected %s, got %s",
			   where, what, describe(n));
}

/* Report an unknown or misplaced key.  Always MG_ERROR. */
static int unknown_key(walk *w, const ynode *key, enum section sec, const char *where)
{
	int home = home_section(key->text, key->len, sec);
	const char *near;
	mg_buf b = MG_BUF_INIT;

	if (home >= 0) {
		mg_buf_printf(&b, "'%s' belongs %s%s%s, not ", key->text,
			      home == SEC_ROOT ? "at the top level" : "under '",
			      sections[home].name, home == SEC_ROOT ? "" : "'");
		if (*where)
			mg_buf_printf(&b, "under '%s'", where);
		else
			mg_buf_puts(&b, "at the top level");
	} else if ((near = nearest(sections[sec].keys, key->text, key->len))) {
		mg_buf_printf(&b, "unknown key '%.64s' (did you mean '%s'?)", key->text, near);
	} else {
		mg_buf_printf(&b, "unknown key '%.64s' (expected one of: ", key->text);
		list_words(&b, sections[sec].keys);
		mg_buf_putc(&b, ')');
	}
	mg_error_at(w->err, w->path, key->pos, "%s", b.ptr);
	mg_buf_free(&b);
	return MG_ERROR;
}

/*
 * Check the key of the pair at kids[i] of `map`: a scalar, not given earlier
 * in the mapping, known in `sec`.  Sets *idx to its index in the section's
 * key list.  0 or MG_ERROR.
 */
static int pair_key(int *idx, walk *w, const ynode *map, size_t i, enum section sec,
		    const char *where)
{
	const ynode *key = map->kids[i], *prev;
	size_t j;

	if (key->kind == Y_MAP || key->kind == Y_SEQ)
		return mg_error_at(w->err, w->path, key->pos,
				   "expected a string key, got %s", describe(key));
	for (j = 0; j < i; j += 2) {
		prev = map->kids[j];
		if (prev->len == key->len && !memcmp(prev->text, key->text, key->len))
			return mg_error_at(w->err, w->path, key->pos,
					   "duplicate key '%.64s' (first at %d:%d)",
					   key->text, prev->pos.line, prev->pos.column);
	}
	*idx = key_find(sections[sec].keys, key->text, key->len);
	if (*idx < 0)
		return unknown_key(w, key, sec, where);
	return 0;
}

static int expect_map(walk *w, const ynode *n, const char *where)
{
	return n->kind == Y_MAP ? 0 : type_error(w, n, where, "a mapping");
}

/* A non-empty string without NUL bytes, copied into *out (the caller's). */
static int get_string(char **out, walk *w, const ynode *n, const char *where)
{
	if (n->kind != Y_STR)
		return type_error(w, n, where, "a string");
	if (!n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must not be empty", where);
	if (strlen(n->text) != n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' contains a NUL byte", where);
	*out = mg_xstrdup(n->text);
	return 0;
}

/* An integer in [min, INT_MAX].  0 or MG_ERROR. */
static int get_int(double *out, walk *w, const ynode *n, const char *where, int min)
{
	if (n->kind != Y_INT)
		return type_error(w, n, where, "an integer");
	if (n->num < min)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at least %d, got '%.40s'",
				   where, min, n->text);
	if (n->num > INT_MAX)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at most %d, got '%.40s'",
				   where, INT_MAX, n->text);
	*out = n->num;
	return 0;
}

/* A threshold's value: a finite number in the threshold's range. */
static int get_threshold(double *out, walk *w, const ynode *n, enum mg_threshold t,
			 const char *where)
{
	const char *range = NULL;

	if (n->kind != Y_INT && n->kind != Y_FLOAT) {
		if (n->kind == Y_STR && n->quoted_number)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s': expected a number, got a string (numbers are written without quotes)",
					   where);
		return type_error(w, n, where, "a number");
	}
	if (!isfinite(n->num))
		return mg_error_at(w->err, w->path, n->pos,
				   "'%s' must be a finite number, got '%.40s'", where, n->text);
	if (t == MG_MEMORY_CAP_MB && !(n->num > 0))
		range = "greater than 0";
	else if (t == MG_MIN_THROUGHPUT_RATIO && !(n->num >= 0 && n->num <= 1))
		range = "between 0 and 1";
	else if (!(n->num >= 0))
		range = "at least 0";
	if (range)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be %s, got '%.40s'",
				   where, range, n->text);
	*out = n->num;
	return 0;
}

/* budget, quality and stricter entries: thresholds keyed by name. */
static int walk_thresholds(walk *w, const ynode *map, enum section sec, const char *where,
			   mg_budget *b, mg_pos *pos)
{
	int first = sec == SEC_QUALITY ? MG_MAX_EVAL_LOSS : 0, idx, error = 0;
	char sub[96];
	size_t i;

	if ((error = expect_map(w, map, where)) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, sec, where)) < 0)
			goto done;
		idx += first;
		join(sub, sizeof(sub), where, threshold_keys[idx]);
		if ((error = get_threshold(&b->value[idx], w, map->kids[i + 1],
					   (enum mg_threshold)idx, sub)) < 0)
			goto done;
		b->set[idx] = true;
		if (pos)
			pos[idx] = map->kids[i + 1]->pos;
	}
done:
	return error;
}

static int walk_budget(walk *w, const ynode *map)
{
	int error;

	error = walk_thresholds(w, map, SEC_BUDGET, "budget", &w->p->rules.budget,
				w->p->threshold_pos);
	if (error == 0 && !w->p->rules.budget.set[MG_MEMORY_CAP_MB])
		error = mg_error_at(w->err, w->path, map->pos,
				    "missing required key 'memory_cap_mb' in 'budget'");
	return error;
}

/* An identity value: a finite number or a non-empty string; a count
 * (batch_size, seq_len) is a number of at least 1. */
static int get_pin(mg_value *v, walk *w, const ynode *n, const char *where, bool counts)
{
	int error;

	if (counts) {
		/* A count compares as a number: 1.0 pins what a report's 1 is. */
		if (n->kind != Y_INT && n->kind != Y_FLOAT)
			return type_error(w, n, where, "a number");
		if (!isfinite(n->num) || n->num < 1)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number of at least 1, got '%.40s'",
					   where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == Y_INT || n->kind == Y_FLOAT) {
		if (!isfinite(n->num))
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number, got '%.40s'", where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == Y_STR) {
		if ((error = get_string(&v->string, w, n, where)) < 0)
			return error;
		v->kind = MG_VALUE_STRING;
	} else {
		return type_error(w, n, where, "a string or a number");
	}
	v->pos = n->pos;
	return 0;
}

static int walk_identity(walk *w, const ynode *map)
{
	mg_value *pin = w->p->rules.pin;
	char sub[64];
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "identity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_IDENTITY, "identity")) < 0)
			goto done;
		join(sub, sizeof(sub), "identity", identity_keys[idx]);
		if ((error = get_pin(&pin[idx], w, map->kids[i + 1], sub,
				     idx == MG_ID_BATCH_SIZE || idx == MG_ID_SEQ_LEN)) < 0)
			goto done;
	}
	for (idx = MG_ID_WORKLOAD; idx <= MG_ID_HARDWARE && error == 0; idx++)
		if (pin[idx].kind == MG_VALUE_ABSENT)
			error = mg_error_at(w->err, w->path, map->pos,
					    "missing required key '%s' in 'identity'",
					    identity_keys[idx]);
done:
	return error;
}

static int walk_evidence(walk *w, const ynode *map)
{
	mg_policy *p = w->p;
	double repeats = 0;
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "evidence")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		const ynode *v = map->kids[i + 1];

		if ((error = pair_key(&idx, w, map, i, SEC_EVIDENCE, "evidence")) < 0)
			goto done;
		if (idx == 0) {
			free(p->rules.baseline);
			p->rules.baseline = NULL;
			error = get_string(&p->rules.baseline, w, v, "evidence.baseline");
			p->baseline_pos = v->pos;
		} else {
			/* repeats is only set on success: never convert it otherwise */
			if ((error = get_int(&repeats, w, v, "evidence.min_repeats", 1)) == 0)
				p->rules.min_repeats = (int)repeats;
			p->min_repeats_pos = v->pos;
		}
		if (error < 0)
			goto done;
	}
done:
	return error;
}

static int walk_stricter(walk *w, const ynode *seq)
{
	mg_rules *r = &w->p->rules;
	char where[64];
	size_t i;
	int error = 0;

	if (seq->kind != Y_SEQ)
		return type_error(w, seq, "sensitivity.stricter", "a sequence");
	if (seq->count > MG_POLICY_MAX_STRICTER)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_STRICTER]->pos,
				   "'sensitivity.stricter' has more than %d entries",
				   MG_POLICY_MAX_STRICTER);
	r->stricter = mg_xcalloc(seq->count, sizeof(*r->stricter));
	w->p->stricter_pos = mg_xcalloc(seq->count, sizeof(mg_pos));
	for (i = 0; i < seq->count && error == 0; i++) {
		const ynode *entry = seq->kids[i];

		r->stricter_count++;
		w->p->stricter_pos[i] = entry->pos;
		snprintf(where, sizeof(where), "sensitivity.stricter[%zu]", i);
		error = walk_thresholds(w, entry, SEC_OVERRIDE, where, &r->stricter[i], NULL);
		if (error == 0 && entry->count == 0)
			error = mg_error_at(w->err, w->path, entry->pos,
					    "'%s' is empty: override at least one threshold", where);
	}
	return error;
}

/* One grid axis: a non-empty list of valid values for threshold t. */
static int walk_axis(walk *w, mg_grid_axis *axis, const ynode *seq, enum mg_threshold t)
{
	char where[64], item[96];
	size_t i;
	int error = 0;

	join(where, sizeof(where), "sensitivity.grid", threshold_keys[t]);
	axis->threshold = t;
	if (seq->kind != Y_SEQ)
		return type_error(w, seq, where, "a sequence");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos,
				   "'%s' is empty: give at least one value", where);
	if (seq->count > MG_POLICY_MAX_AXIS_VALUES)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_AXIS_VALUES]->pos,
				   "'%s' has more than %d values", where,
				   MG_POLICY_MAX_AXIS_VALUES);
	axis->values = mg_xcalloc(seq->count, sizeof(double));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(item, sizeof(item), "%s[%zu]", where, i);
		error = get_threshold(&axis->values[axis->count++], w, seq->kids[i], t, item);
	}
	return error;
}

static int walk_grid(walk *w, const ynode *map)
{
	mg_rules *r = &w->p->rules;
	size_t i, axes;
	int idx, error = 0;

	if ((error = expect_map(w, map, "sensitivity.grid")) < 0)
		return error;
	axes = map->count / 2;
	r->grid = mg_xcalloc(axes, sizeof(*r->grid));
	w->p->grid_pos = mg_xcalloc(axes, sizeof(mg_pos));
	for (i = 0; i < map->count && error == 0; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_OVERRIDE, "sensitivity.grid")) < 0)
			break;
		w->p->grid_pos[r->grid_count] = map->kids[i]->pos;
		error = walk_axis(w, &r->grid[r->grid_count++], map->kids[i + 1],
				  (enum mg_threshold)idx);
	}
	return error;
}

/* Refuse more scenarios than the decision core evaluates.  0 or MG_ERROR. */
static int check_scenarios(walk *w, const ynode *grid)
{
	const mg_rules *r = &w->p->rules;
	unsigned long long cells = 1;
	size_t i;

	if (!grid || r->grid_count == 0)
		return 0;
	for (i = 0; i < r->grid_count; i++)
		cells *= r->grid[i].count; /* at most 256^7: no overflow */
	if (cells + r->stricter_count <= MG_DECISION_MAX_SCENARIOS)
		return 0;
	return mg_error_at(w->err, w->path, grid->pos,
			   "'sensitivity.grid' makes %llu scenarios (%llu cells + %zu stricter), more than the limit of %d",
			   cells + r->stricter_count, cells, r->stricter_count,
			   MG_DECISION_MAX_SCENARIOS);
}

static int walk_sensitivity(walk *w, const ynode *map)
{
	const ynode *grid = NULL;
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "sensitivity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_SENSITIVITY, "sensitivity")) < 0)
			goto done;
		if (idx == 0) {
			error = walk_stricter(w, map->kids[i + 1]);
		} else {
			grid = map->kids[i + 1];
			error = walk_grid(w, grid);
		}
		if (error < 0)
			goto done;
	}
	error = check_scenarios(w, grid);
done:
	return error;
}

/* One gate.fail_on word.  0 or MG_ERROR. */
static int fail_on_word(walk *w, const ynode *n, size_t i)
{
	char where[48];
	const char *near;
	int v;

	snprintf(where, sizeof(where), "gate.fail_on[%zu]", i);
	if (n->kind != Y_STR)
		return type_error(w, n, where, "a string");
	v = key_find(verdict_words, n->text, n->len);
	if (v >= 0) {
		w->p->fail_on[v] = true;
		return 0;
	}
	near = nearest(verdict_words, n->text, n->len);
	if (near)
		return mg_error_at(w->err, w->path, n->pos,
				   "unknown decision '%.40s' in 'gate.fail_on' (did you mean '%s'?)",
				   n->text, near);
	return mg_error_at(w->err, w->path, n->pos,
			   "unknown decision '%.40s' in 'gate.fail_on' (expected accept, tune or reject)",
			   n->text);
}

/* gate.fail_on: a list of decisions (maybe empty: never fail). */
static int walk_fail_on(walk *w, const ynode *seq)
{
	size_t i;
	int error = 0;

	w->p->fail_on_pos = seq->pos;
	if (seq->kind != Y_SEQ)
		return type_error(w, seq, "gate.fail_on", "a sequence");
	memset(w->p->fail_on, 0, sizeof(w->p->fail_on));
	w->p->fail_on_set = true;
	for (i = 0; i < seq->count && error == 0; i++)
		error = fail_on_word(w, seq->kids[i], i);
	return error;
}

static int walk_gate(walk *w, const ynode *map)
{
	int idx, error = 0;
	size_t i;

	if ((error = expect_map(w, map, "gate")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = pair_key(&idx, w, map, i, SEC_GATE, "gate")) < 0)
			goto done;
		if ((error = walk_fail_on(w, map->kids[i + 1])) < 0)
			goto done;
	}
done:
	return error;
}

static int walk_rank_by(walk *w, const ynode *n)
{
	w->p->rank_by_pos = n->pos;
	if (n->kind != Y_STR)
		return type_error(w, n, "rank_by", "a string");
	if (!strcmp(n->text, "peak_memory"))
		w->p->rules.rank_by = MG_RANK_PEAK_MEMORY;
	else if (!strcmp(n->text, "throughput"))
		w->p->rules.rank_by = MG_RANK_THROUGHPUT;
	else
		return mg_error_at(w->err, w->path, n->pos,
				   "'rank_by' must be 'peak_memory' or 'throughput', got '%.40s'",
				   n->text);
	return 0;
}

static int walk_version(walk *w, const ynode *n)
{
	if (n->kind != Y_INT && n->kind != Y_FLOAT)
		return type_error(w, n, "version", "the integer 1");
	if (n->kind != Y_INT || n->num != 1)
		return mg_error_at(w->err, w->path, n->pos,
				   "'version' must be the integer 1, got '%.40s'", n->text);
	w->p->version = 1;
	return 0;
}

/* manifest: or report:, exactly one of them.  0 or MG_ERROR. */
static int walk_source(walk *w, const ynode *n, int key)
{
	mg_policy *p = w->p;

	if (p->manifest || p->report)
		return mg_error_at(w->err, w->path, n->pos,
				   "give only one of 'manifest' and 'report'");
	if (key == K_MANIFEST) {
		p->manifest_pos = n->pos;
		return get_string(&p->manifest, w, n, "manifest");
	}
	p->report_pos = n->pos;
	return get_string(&p->report, w, n, "report");
}

/* Dispatch one top-level key's value.  0 or MG_ERROR. */
static int walk_top(walk *w, int key, const ynode *v)
{
	switch (key) {
	case K_VERSION: return walk_version(w, v);
	case K_MANIFEST:
	case K_REPORT: return walk_source(w, v, key);
	case K_IDENTITY: return walk_identity(w, v);
	case K_BUDGET: return walk_budget(w, v);
	case K_QUALITY:
		return walk_thresholds(w, v, SEC_QUALITY, "quality", &w->p->rules.budget,
				       w->p->threshold_pos);
	case K_EVIDENCE: return walk_evidence(w, v);
	case K_RANK_BY: return walk_rank_by(w, v);
	case K_SENSITIVITY: return walk_sensitivity(w, v);
	default: return walk_gate(w, v);
	}
}

/* The keys the top level must have, checked after its walk. */
static int check_required(walk *w, const ynode *root, const bool seen[])
{
	const char *missing = NULL;

	if (!seen[K_VERSION])
		missing = "'version'";
	else if (!seen[K_MANIFEST] && !seen[K_REPORT])
		missing = "'manifest' or 'report'";
	else if (!seen[K_IDENTITY])
		missing = "'identity'";
	else if (!seen[K_BUDGET])
		missing = "'budget'";
	if (!missing)
		return 0;
	return mg_error_at(w->err, w->path, root->pos, "missing required key %s", missing);
}

static int walk_root(walk *w, const ynode *root)
{
	bool seen[K_GATE + 1] = { false };
	int key, error = 0;
	size_t i;

	if (!root || (root->kind == Y_NULL && root->len == 0)) {
		error = mg_error_set(w->err, w->path, 1, 1, "policy is empty");
		goto done;
	}
	if (root->kind != Y_MAP) {
		error = mg_error_at(w->err, w->path, root->pos,
				    "expected a mapping at the top level, got %s", describe(root));
		goto done;
	}
	for (i = 0; i < root->count; i += 2) {
		if ((error = pair_key(&key, w, root, i, SEC_ROOT, "")) < 0)
			goto done;
		seen[key] = true;
		if ((error = walk_top(w, key, root->kids[i + 1])) < 0)
			goto done;
	}
	error = check_required(w, root, seen);
done:
	return error;
}

static mg_policy *policy_new(const char *path)
{
	mg_policy *p = mg_xcalloc(1, sizeof(*p));

	p->path = mg_xstrdup(path);
	p->rules.baseline = mg_xstrdup("baseline");
	p->rules.min_repeats = 1;
	p->rules.rank_by = MG_RANK_PEAK_MEMORY;
	p->fail_on[MG_REJECT] = true;
	p->fail_on[MG_TUNE] = true;
	return p;
}

int mg_policy_parse(mg_policy **out, const char *path, const char *text,
		    size_t len, mg_error *err)
{
	ynode *root = NULL;
	mg_policy *p = NULL;
	walk w;
	int error;

	assert(out && path && (text || !len));
	*out = NULL;
	if ((error = load(&root, path, text ? text : "", len, err)) < 0)
		goto done;
	p = policy_new(path);
	w.path = path;
	w.err = err;
	w.p = p;
	if ((error = walk_root(&w, root)) < 0)
		goto done;
	*out = p;
	p = NULL;
done:
	node_free(root);
	mg_policy_free(p);
	return error;
}

void mg_policy_free(mg_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MG_ID_COUNT; i++)
		free(p->rules.pin[i].string);
	for (i = 0; i < p->rules.grid_count; i++)
		free(p->rules.grid[i].values);
	free(p->rules.grid);
	free(p->grid_pos);
	free(p->rules.stricter);
	free(p->stricter_pos);
	free(p->rules.baseline);
	free(p->manifest);
	free(p->report);
	free(p->path);
	free(p);
}
