/* Comparing a pull request's screening with its base's: see plugin/compare.h. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "compare.h"

const enum mg_metric_id mg_compare_metrics[MG_COMPARE_METRICS] = {
	MG_M_PEAK, MG_M_SAMPLES, MG_M_EVAL_LOSS,
};

size_t mg_compare_name_compares;

/* The named evaluations of one screening sorted by name, then by position
 * (they lie in one array): the first of a name is the first of its run. */
struct byname {
	const mg_evaluation **e;
	size_t count;
};

static int cmp_names(const char *x, const char *y)
{
	mg_compare_name_compares++;
	return strcmp(x, y);
}

static int by_name(const void *a, const void *b)
{
	const mg_evaluation *x = *(const mg_evaluation *const *)a;
	const mg_evaluation *y = *(const mg_evaluation *const *)b;
	int c = cmp_names(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

static void byname_init(struct byname *n, const mg_screening *s)
{
	size_t i;

	n->count = 0;
	n->e = mg_xcalloc(s->count + 1, sizeof(*n->e));
	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].name)
			n->e[n->count++] = &s->evaluations[i];
	qsort(n->e, n->count, sizeof(*n->e), by_name);
}

/* The first evaluation named `name`, or NULL: a binary search. */
static const mg_evaluation *find(const struct byname *n, const char *name)
{
	size_t lo = 0, hi = n->count, mid;

	if (!name)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cmp_names(n->e[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n->count && !cmp_names(n->e[lo]->name, name))
		return n->e[lo];
	return NULL;
}

/* Is e the first evaluation of its name (so that a duplicate is its own row)? */
static bool first_of_name(const struct byname *n, const mg_evaluation *e)
{
	return e->name && find(n, e->name) == e;
}

static void fill(mg_compare_row *row, const mg_evaluation *base, const mg_evaluation *head)
{
	size_t k;

	memset(row, 0, sizeof(*row));
	row->name = head ? head->name : base->name;
	row->in_base = base != NULL;
	row->in_head = head != NULL;
	if (base)
		row->base_status = base->status;
	if (head)
		row->head_status = head->status;
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		enum mg_metric_id m = mg_compare_metrics[k];

		if (base && base->known[m]) {
			row->value[k].base_known = true;
			row->value[k].base = base->value[m];
		}
		if (head && head->known[m]) {
			row->value[k].head_known = true;
			row->value[k].head = head->value[m];
		}
	}
}

void mg_compare_rows(mg_compare_row **rows, size_t *count, const mg_decision *base,
		     const mg_decision *head)
{
	const mg_screening *b = &base->base, *h = &head->base;
	struct byname nb, nh;
	size_t i, n = 0;

	assert(rows && count && base && head);
	byname_init(&nb, b);
	byname_init(&nh, h);
	*rows = mg_xcalloc(b->count + h->count + 1, sizeof(**rows));
	for (i = 0; i < h->count; i++) {
		const mg_evaluation *e = &h->evaluations[i];

		fill(&(*rows)[n++], first_of_name(&nh, e) ? find(&nb, e->name) : NULL, e);
	}
	for (i = 0; i < b->count; i++) {
		const mg_evaluation *e = &b->evaluations[i];

		if (!first_of_name(&nb, e) || !find(&nh, e->name))
			fill(&(*rows)[n++], e, NULL);
	}
	*count = n;
	free(nb.e);
	free(nh.e);
}

bool mg_compare_row_changed(const mg_compare_row *row)
{
	size_t k;

	if (!row->in_base || !row->in_head || row->base_status != row->head_status)
		return true;
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		const mg_compare_value *v = &row->value[k];

		if (v->base_known != v->head_known || (v->base_known && v->base != v->head))
			return true;
	}
	return false;
}
