/*
 * One value of the policy (see policy_walk.h): a mapping, a string, an
 * integer, a threshold in its range, and the message when it is of the
 * wrong kind.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memgate/escape.h"
#include "policy_walk.h"

/* "where.key", or "key" at the top level. */
const char *mg_policy__join(char *buf, size_t n, const char *where, const char *key)
{
	snprintf(buf, n, "%s%s%s", where, *where ? "." : "", key);
	return buf;
}

const char *mg_policy__quote(mg_buf *tmp, const char *s, size_t len, size_t max)
{
	mg_escape_text_max(tmp, s, len, max);
	return tmp->ptr ? tmp->ptr : "";
}

const char *mg_policy__describe(const mg_yaml_node *n)
{
	switch (n->kind) {
	case MG_YAML_MAP: return "a mapping";
	case MG_YAML_SEQ: return "a sequence";
	case MG_YAML_NULL: return "null";
	case MG_YAML_BOOL: return "a boolean";
	case MG_YAML_INT:
	case MG_YAML_FLOAT: return "a number";
	default: return "a string";
	}
}

/* "'where': expected <what>, got <kind of n>".  Always MG_ERROR. */
int mg_policy__type_error(walk *w, const mg_yaml_node *n, const char *where, const char *what)
{
	if (n->kind == MG_YAML_FLOAT && !strcmp(what, "an integer"))
		return mg_error_at(w->err, w->path, n->pos, "'%s': expected an integer, got '%.40s'",
				   where, n->text);
	return mg_error_at(w->err, w->path, n->pos, "'%s': expected %s, got %s",
			   where, what, mg_policy__describe(n));
}

int mg_policy__expect_map(walk *w, const mg_yaml_node *n, const char *where)
{
	return n->kind == MG_YAML_MAP ? 0 : mg_policy__type_error(w, n, where, "a mapping");
}

/* A non-empty string without NUL bytes, copied into *out (the caller's). */
int mg_policy__get_string(char **out, walk *w, const mg_yaml_node *n, const char *where)
{
	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a string");
	if (!n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must not be empty", where);
	if (strlen(n->text) != n->len)
		return mg_error_at(w->err, w->path, n->pos, "'%s' contains a NUL byte", where);
	*out = mg_xstrdup(n->text);
	return 0;
}

/* An integer in [min, INT_MAX].  0 or MG_ERROR. */
int mg_policy__get_int(double *out, walk *w, const mg_yaml_node *n, const char *where, int min)
{
	if (n->kind != MG_YAML_INT)
		return mg_policy__type_error(w, n, where, "an integer");
	if (n->num < min)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at least %d, got '%.40s'",
				   where, min, n->text);
	if (n->num > INT_MAX)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at most %d, got '%.40s'",
				   where, INT_MAX, n->text);
	*out = n->num;
	return 0;
}

/* How a message says each range of enum mg_range. */
static const char *const range_words[] = {
	[MG_RANGE_POSITIVE] = "greater than 0",
	[MG_RANGE_FRACTION] = "between 0 and 1",
	[MG_RANGE_NON_NEGATIVE] = "at least 0",
};

/* A threshold's value: a finite number in the threshold's range. */
int mg_policy__get_threshold(double *out, walk *w, const mg_yaml_node *n, enum mg_threshold t,
			     const char *where)
{
	const char *range = NULL;

	if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT) {
		if (n->kind == MG_YAML_STR && n->quoted_number)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s': expected a number, got a string (numbers are written without quotes)",
					   where);
		return mg_policy__type_error(w, n, where, "a number");
	}
	if (!isfinite(n->num))
		return mg_error_at(w->err, w->path, n->pos,
				   "'%s' must be a finite number, got '%.40s'", where, n->text);
	if (!mg_threshold_accepts(t, n->num))
		range = range_words[mg_threshold_def_of(t)->range];
	if (range)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be %s, got '%.40s'",
				   where, range, n->text);
	*out = n->num;
	return 0;
}
