/*
 * The insight of a decision: each candidate's noise (noise.c), the
 * trade-off front (here) and the tipping points (tipping.c).  See
 * include/memgate/insight.h.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/insight.h"
#include "memgate/noise.h"
#include "tipping.h"

/* ---- the trade-off front ---- */

static const mg_evaluation *sort_evals;   /* qsort has no context argument */

static int front_cmp(const void *pa, const void *pb)
{
	const mg_evaluation *a = &sort_evals[*(const size_t *)pa];
	const mg_evaluation *b = &sort_evals[*(const size_t *)pb];
	const double *x = a->value, *y = b->value;

	if (x[MG_M_PEAK] != y[MG_M_PEAK])
		return x[MG_M_PEAK] < y[MG_M_PEAK] ? -1 : 1;
	if (x[MG_M_SAMPLES] != y[MG_M_SAMPLES])
		return x[MG_M_SAMPLES] > y[MG_M_SAMPLES] ? -1 : 1;
	if (x[MG_M_EVAL_LOSS] != y[MG_M_EVAL_LOSS])
		return x[MG_M_EVAL_LOSS] < y[MG_M_EVAL_LOSS] ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Does a dominate b: no worse in all three, better in one? */
static bool dominates(const mg_evaluation *a, const mg_evaluation *b)
{
	const double *x = a->value, *y = b->value;

	if (x[MG_M_PEAK] > y[MG_M_PEAK] || x[MG_M_SAMPLES] < y[MG_M_SAMPLES] ||
	    x[MG_M_EVAL_LOSS] > y[MG_M_EVAL_LOSS])
		return false;
	return x[MG_M_PEAK] < y[MG_M_PEAK] || x[MG_M_SAMPLES] > y[MG_M_SAMPLES] ||
	       x[MG_M_EVAL_LOSS] < y[MG_M_EVAL_LOSS];
}

static bool front_member(const mg_evaluation *e)
{
	return (e->status == MG_STATUS_FEASIBLE || e->status == MG_STATUS_REJECTED) &&
	       e->known[MG_M_PEAK] && e->known[MG_M_SAMPLES] && e->known[MG_M_EVAL_LOSS];
}

/*
 * Sorted by peak ascending (then samples/s descending, eval loss
 * ascending), a candidate's dominators all come before it, and whoever
 * dominates it is dominated by, or is, a front member found so far: so each
 * candidate is compared with the front only.
 */
static void find_front(mg_insight *in, const mg_screening *s)
{
	size_t *order = mg_xcalloc(s->count ? s->count : 1, sizeof(*order));
	size_t *front = mg_xcalloc(s->count ? s->count : 1, sizeof(*front));
	unsigned long long work = 0;
	size_t n = 0, i, k;

	for (i = 0; i < s->count; i++) {
		in->dominated_by[i] = MG_INSIGHT_NONE;
		if (front_member(&s->evaluations[i]))
			order[n++] = i;
	}
	in->compared = n;
	sort_evals = s->evaluations;
	qsort(order, n, sizeof(*order), front_cmp);
	sort_evals = NULL;
	in->front_complete = true;
	for (i = 0; i < n && in->front_complete; i++) {
		const mg_evaluation *e = &s->evaluations[order[i]];

		for (k = 0; k < in->front_count; k++)
			if (dominates(&s->evaluations[front[k]], e)) {
				in->dominated_by[order[i]] = front[k];
				break;
			}
		work += k + 1;
		if (work > MG_INSIGHT_MAX_FRONT_WORK)
			in->front_complete = false;
		if (k == in->front_count) {
			front[in->front_count++] = order[i];
			in->on_front[order[i]] = true;
		}
	}
	if (!in->front_complete) {
		memset(in->on_front, 0, s->count * sizeof(*in->on_front));
		for (i = 0; i < s->count; i++)
			in->dominated_by[i] = MG_INSIGHT_NONE;
		in->front_count = 0;
	}
	free(front);
	free(order);
}

int mg_insight_compute(mg_insight **out, const mg_rules *rules, const mg_evidence *ev,
		       const bool pre_issues[MG_ISSUE_COUNT], const mg_decision *d,
		       mg_error *err)
{
	mg_insight *in;
	size_t i, n;
	int error = MG_OK;

	assert(out && rules && ev && d);
	*out = NULL;
	in = mg_xcalloc(1, sizeof(*in));
	n = in->count = d->base.count;
	in->noise = mg_xcalloc(n ? n : 1, sizeof(*in->noise));
	in->on_front = mg_xcalloc(n ? n : 1, sizeof(*in->on_front));
	in->dominated_by = mg_xcalloc(n ? n : 1, sizeof(*in->dominated_by));
	for (i = 0; i < n; i++) {
		mg_noise_of(&in->noise[i], rules, ev, &d->base, i);
		in->with_runs += in->noise[i].has_runs;
	}
	find_front(in, &d->base);
	in->tips_evaluated = d->applicable;
	if (d->applicable)
		error = mg_tipping__find(in, rules, ev, pre_issues, d, err);
	if (error < 0)
		mg_insight_free(in);
	else
		*out = in;
	return error;
}

void mg_insight_free(mg_insight *in)
{
	if (!in)
		return;
	free(in->noise);
	free(in->on_front);
	free(in->dominated_by);
	free(in->tips);
	free(in);
}
