/*
 * Candidates by name: see plugin/core/byname.h.  Below screening, noise,
 * sensitivity and the decision, which all find the baseline, so that none
 * of them calls another for it (tests/layers --cycles).
 */
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "byname.h"

size_t mg_byname_compares;

static int by_name(const void *a, const void *b)
{
	const mg_named *x = a, *y = b;
	int c;

	mg_byname_compares++;
	c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

mg_named *mg_byname_candidates(size_t *count, const mg_evidence *ev)
{
	mg_named *v = mg_xcalloc(ev->candidate_count ? ev->candidate_count : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name) {
			v[n].name = ev->candidates[i].name;
			v[n++].index = i;
		}
	qsort(v, n, sizeof(*v), by_name);
	*count = n;
	return v;
}

mg_named *mg_byname_evaluations(size_t *count, const mg_screening *s)
{
	mg_named *v = mg_xcalloc(s->count ? s->count : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].name) {
			v[n].name = s->evaluations[i].name;
			v[n++].index = i;
		}
	qsort(v, n, sizeof(*v), by_name);
	*count = n;
	return v;
}

const mg_named *mg_byname_find(const mg_named *index, size_t count, const char *name)
{
	size_t lo = 0, hi = count, mid;

	if (!name)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		mg_byname_compares++;
		if (strcmp(index[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < count) {
		mg_byname_compares++;
		if (!strcmp(index[lo].name, name))
			return &index[lo];
	}
	return NULL;
}

const char *mg_rules_baseline(const mg_rules *rules)
{
	return rules && rules->baseline ? rules->baseline : "baseline";
}

bool mg_find_baseline(size_t *index, const mg_rules *rules, const mg_evidence *ev)
{
	const char *want = mg_rules_baseline(rules);
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name && !strcmp(ev->candidates[i].name, want)) {
			*index = i;
			return true;
		}
	return false;
}
