/* Comparing a pull request's screening with its base's: see plugin/core/compare.h. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "byname.h"
#include "compare.h"

const enum mg_metric_id mg_compare_metrics[MG_COMPARE_METRICS] = {
	MG_M_PEAK, MG_M_SAMPLES, MG_M_EVAL_LOSS,
};

size_t mg_compare_name_compares;

/* The named evaluations of one screening sorted by name, then by position
 * (mg_byname_evaluations): the first of a name is the first of its run. */
struct byname {
	const mg_screening *s;
	mg_named *v;
	size_t count;
};

static void byname_init(struct byname *n, const mg_screening *s)
{
	n->s = s;
	n->v = mg_byname_evaluations(&n->count, s);
}

/* The first evaluation named `name`, or NULL: a binary search. */
static const mg_evaluation *find(const struct byname *n, const char *name)
{
	const mg_named *f = mg_byname_find(n->v, n->count, name);

	return f ? &n->s->evaluations[f->index] : NULL;
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
	size_t i, n = 0, compares = mg_byname_compares;

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
	free(nb.v);
	free(nh.v);
	mg_compare_name_compares += mg_byname_compares - compares;
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
