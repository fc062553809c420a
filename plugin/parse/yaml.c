/* Strict YAML loading for the policy: see plugin/parse/yaml.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "memgate/buf.h"
#include "memgate/policy.h"
#include "yaml.h"

void mg_yaml__free(mg_yaml_node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->count; i++)
		mg_yaml__free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static void node_add(mg_yaml_node *parent, mg_yaml_node *kid)
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

enum { CORE_NULL, CORE_BOOL, CORE_INT10, CORE_INT8, CORE_INT16, CORE_FLOAT,
       CORE_INF, CORE_NAN, CORE_COUNT };

/* How many of s's leading bytes are in `set`. */
static size_t span(const char *s, const char *set)
{
	return strspn(s, set);
}

#define DIGITS "0123456789"

/* Is s one of the words of a NULL-terminated list? */
static bool one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static bool is_core_float(const char *s)
{
	size_t n;

	s += *s == '-' || *s == '+';
	if (*s == '.') {
		if (!(n = span(++s, DIGITS)))
			return false;
		s += n;
	} else {
		if (!(n = span(s, DIGITS)))
			return false;
		s += n;
		if (*s == '.')
			s += 1 + span(s + 1, DIGITS);
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '-' || *s == '+';
		if (!(n = span(s, DIGITS)))
			return false;
		s += n;
	}
	return !*s;
}

/* Which core-schema form s matches (YAML 1.2, 10.3.2), or -1 (a string). */
static int core_form(const char *s)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const bools[] = { "true", "True", "TRUE", "false", "False",
					     "FALSE", NULL };
	static const char *const infs[] = { ".inf", ".Inf", ".INF", NULL };
	static const char *const nans[] = { ".nan", ".NaN", ".NAN", NULL };
	const char *unsigned_part = s + (*s == '-' || *s == '+');

	if (one_of(s, nulls))
		return CORE_NULL;
	if (one_of(s, bools))
		return CORE_BOOL;
	if (*unsigned_part && !unsigned_part[span(unsigned_part, DIGITS)])
		return CORE_INT10;
	if (!strncmp(s, "0o", 2) && s[2] && !s[2 + span(s + 2, "01234567")])
		return CORE_INT8;
	if (!strncmp(s, "0x", 2) && s[2] && !s[2 + span(s + 2, DIGITS "abcdefABCDEF")])
		return CORE_INT16;
	if (is_core_float(s))
		return CORE_FLOAT;
	if (one_of(unsigned_part, infs))
		return CORE_INF;
	if (one_of(s, nans))
		return CORE_NAN;
	return -1;
}

/* Digits in `base` after a 2-byte prefix, as a double (exact up to 2^53). */
static double radix_value(const char *s, int base)
{
	double v = 0;

	for (s += 2; *s; s++)
		v = v * base + (double)(*s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10);
	return v;
}

/* Resolve a plain (or core-tagged) scalar's kind and number. */
static void core_resolve(mg_yaml_node *n)
{
	switch (strlen(n->text) == n->len ? core_form(n->text) : -1) {
	case CORE_NULL: n->kind = MG_YAML_NULL; break;
	case CORE_BOOL: n->kind = MG_YAML_BOOL; break;
	case CORE_INT10: n->kind = MG_YAML_INT; n->num = strtod(n->text, NULL); break;
	case CORE_INT8: n->kind = MG_YAML_INT; n->num = radix_value(n->text, 8); break;
	case CORE_INT16: n->kind = MG_YAML_INT; n->num = radix_value(n->text, 16); break;
	case CORE_FLOAT: n->kind = MG_YAML_FLOAT; n->num = strtod(n->text, NULL); break;
	case CORE_INF:
		n->kind = MG_YAML_FLOAT;
		n->num = n->text[0] == '-' ? -INFINITY : INFINITY;
		break;
	case CORE_NAN: n->kind = MG_YAML_FLOAT; n->num = NAN; break;
	default: n->kind = MG_YAML_STR; break;
	}
}

/* ------------------------------------------------------------------ */
/* Loading: libyaml events -> tree, with the structural refusals       */

#define CORE_TAG "tag:yaml.org,2002:"
#define SHOWN_ANCHOR 64   /* bytes of an anchor name a message quotes */

typedef struct loader {
	const char *path;
	const char *text;
	size_t len;
	mg_error *err;
	yaml_parser_t parser;
	mg_yaml_node *root;
	mg_yaml_node *stack[MG_POLICY_MAX_DEPTH];
	int depth;
	int documents;
	size_t nodes;
	bool anchored;       /* an anchor was seen: refused at the end, unless */
	mg_pos anchor_pos;   /* an alias comes first (then at the alias)       */
	char anchor[SHOWN_ANCHOR + 1];
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
static int node_new(mg_yaml_node **out, loader *ld, enum mg_yaml_kind kind, yaml_mark_t mark)
{
	mg_yaml_node *n;

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
static int scalar_kind(loader *ld, mg_yaml_node *n, const char *tag, bool plain)
{
	static const struct { const char *name; enum mg_yaml_kind kind; } want[] = {
		{ "null", MG_YAML_NULL }, { "bool", MG_YAML_BOOL }, { "int", MG_YAML_INT },
		{ "float", MG_YAML_FLOAT },
	};
	char shown[64];
	size_t i;

	if (!tag) {
		if (plain)
			core_resolve(n);
		else
			n->quoted_number = strlen(n->text) == n->len &&
					   core_form(n->text) >= CORE_INT10;
		return 0;
	}
	if (!strcmp(tag, CORE_TAG "str"))
		return 0;
	tag_show(shown, sizeof(shown), tag);
	core_resolve(n);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strcmp(tag + strlen(CORE_TAG), want[i].name))
			continue;
		if (want[i].kind == MG_YAML_FLOAT && n->kind == MG_YAML_INT)
			n->kind = MG_YAML_FLOAT;
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
	mg_yaml_node *n;
	int error;

	if ((error = check_properties(ld, ev->data.scalar.anchor, ev->data.scalar.tag,
				      ev->start_mark)) < 0)
		return error;
	if (ev->data.scalar.length > MG_POLICY_MAX_SCALAR)
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "value is longer than %d bytes", MG_POLICY_MAX_SCALAR);
	if ((error = node_new(&n, ld, MG_YAML_STR, ev->start_mark)) < 0)
		return error;
	n->text = mg_xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	n->len = ev->data.scalar.length;
	return scalar_kind(ld, n, (const char *)ev->data.scalar.tag,
			   ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
}

/* A mapping or sequence starts: check depth, tag and anchor, then open it. */
static int on_collection(loader *ld, const yaml_event_t *ev, enum mg_yaml_kind kind)
{
	const yaml_char_t *anchor, *tag;
	const char *want = kind == MG_YAML_MAP ? CORE_TAG "map" : CORE_TAG "seq";
	char shown[64];
	mg_yaml_node *n;
	int error;

	anchor = kind == MG_YAML_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	tag = kind == MG_YAML_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	if (ld->depth == MG_POLICY_MAX_DEPTH)
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "nesting is deeper than %d levels", MG_POLICY_MAX_DEPTH);
	if ((error = check_properties(ld, anchor, tag, ev->start_mark)) < 0)
		return error;
	if (tag && strcmp((const char *)tag, want)) {
		tag_show(shown, sizeof(shown), (const char *)tag);
		return mg_error_at(ld->err, ld->path, mark_pos(ev->start_mark),
				   "tag '%s' cannot be used on a %s", shown,
				   kind == MG_YAML_MAP ? "mapping" : "sequence");
	}
	if ((error = node_new(&n, ld, kind, ev->start_mark)) < 0)
		return error;
	ld->stack[ld->depth++] = n;
	return 0;
}

/* Translate libyaml's failure into err.  Always MG_ERROR. */
static int syntax_error(loader *ld)
{
	const yaml_parser_t *p = &ld->parser;
	const char *problem = p->problem ? p->problem : "out of memory";
	mg_pos pos = mark_pos(p->problem_mark);

	if (p->error == YAML_READER_ERROR)
		pos = mg_pos_of(ld->text, ld->len, p->problem_offset);
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
		return on_collection(ld, ev, MG_YAML_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_collection(ld, ev, MG_YAML_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		ld->depth--;
		return 0;
	default:
		return 0;
	}
}

int mg_yaml__load(mg_yaml_node **out, const char *path, const char *text, size_t len,
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
	mg_yaml__free(ld.root);
	yaml_parser_delete(&ld.parser);
	return error;
}
