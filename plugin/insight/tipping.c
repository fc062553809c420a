/*
 * Tipping points: the nearest value of each threshold (and grid axis
 * value) at which the decision changes, found by re-running mg_decide.
 * See include/memgate/insight.h ("tipping points") and tipping.h.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/insight.h"
#include "memgate/noise.h"
#include "decision_memo.h"
#include "tipping.h"

/* ---- tipping points ---- */


/* The smallest x >= 0 with base * (1 + x) >= v: where the relative
 * ceiling starts to admit eval loss v (base > 0).  The test is monotone in
 * x, and so in the bits of a non-negative double: bisect on them. */
static double relative_root(double base, double v)
{
	uint64_t lo = 0, hi, mid;
	double x = INFINITY;

	if (base * 1.0 >= v)
		return 0.0;
	memcpy(&hi, &x, sizeof(hi));     /* +inf passes whenever v is finite */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		memcpy(&x, &mid, sizeof(x));
		if (base * (1.0 + x) >= v)
			hi = mid;
		else
			lo = mid;
	}
	memcpy(&x, &hi, sizeof(x));
	return x;
}

struct points {
	double *v;
	size_t n, cap;
};

static void points_add(struct points *p, double x)
{
	if (!isfinite(x))
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->v = mg_xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	p->v[p->n++] = x;
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A value where threshold t may change a candidate's result: v in the
 * metric's space (mapped for the relative ceiling). */
static void add_point(struct points *p, enum mg_threshold t, double v, const double *rel_base)
{
	if (t == MG_MAX_RELATIVE_EVAL_LOSS) {
		if (rel_base)
			points_add(p, relative_root(*rel_base, v));
	} else {
		points_add(p, v);
	}
}

/*
 * The breakpoints of threshold t, in candidate order: the candidates'
 * values (own and derived, under `all`, a screening where the baseline is
 * measured whenever any budget lets it be) and, with evidence.noise: tune,
 * the ends of their noise bands.
 */
static void breakpoints(struct points *p, enum mg_threshold t, const mg_rules *rules,
			const mg_evidence *ev, const mg_screening *all)
{
	enum mg_metric_id m = mg_threshold_def_of(t)->metric;
	const double *rel_base = NULL;
	size_t base = 0, i;
	double rate;
	mg_noise n;

	if (mg_find_baseline(&base, rules, ev) &&
	    ev->candidates[base].metric[MG_M_EVAL_LOSS].state == MG_METRIC_NUMBER &&
	    ev->candidates[base].metric[MG_M_EVAL_LOSS].value > 0)
		rel_base = &ev->candidates[base].metric[MG_M_EVAL_LOSS].value;
	for (i = 0; i < all->count; i++) {
		const mg_evaluation *e = &all->evaluations[i];

		if (t == MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT) {
			if (mg_exchange_rate(&rate, e) == MG_EXCHANGE_RATE)
				points_add(p, rate);
			continue;
		}
		if (e->known[m])
			add_point(p, t, e->value[m], rel_base);
		if (rules->noise != MG_NOISE_TUNE)
			continue;
		mg_noise_of(&n, rules, ev, all, i);
		if (n.band[m].known) {
			add_point(p, t, n.band[m].min, rel_base);
			add_point(p, t, n.band[m].max, rel_base);
		}
	}
}

/* Sort the breakpoints and drop repeats. */
static void sort_points(struct points *p)
{
	size_t i, k;

	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), double_cmp);
	for (i = k = 0; i < p->n; i++)
		if (!k || p->v[k - 1] != p->v[i])
			p->v[k++] = p->v[i];
	p->n = k;
}

/* What a knob changes: the base budget's threshold, or one grid value. */
struct knob {
	enum mg_threshold t;
	int axis;
	size_t value_index;
};

struct tipper {
	const mg_rules *rules;
	const mg_evidence *ev;
	const bool *pre;
	mg_decision__memo *memo;   /* what every probe's decision shares */
	mg_grid_axis *grid;        /* a copy of the axes, for grid knobs */
	double *values;            /* a copy of one axis's values */
	size_t probe_limit;        /* decisions per direction */
	enum mg_verdict verdict;   /* the outcome now (before an approved record's drift) */
	enum mg_outcome reason;
	const char *selected;
	struct points points[MG_THRESHOLD_COUNT];    /* see points_of */
	bool have_points[MG_THRESHOLD_COUNT];
};

/* Decides with the knob at x; fills the tip when the outcome differs. */
static int probe(bool *changed, mg_tip *tip, struct tipper *tp, const struct knob *k,
		 double x, mg_error *err)
{
	mg_rules r = *tp->rules;
	mg_decision *d = NULL;
	const mg_grid_axis *axis;
	int error;

	*changed = false;
	if (k->axis < 0) {
		r.budget.value[k->t] = x;
	} else {
		axis = &tp->rules->grid[k->axis];
		memcpy(tp->grid, tp->rules->grid, tp->rules->grid_count * sizeof(*tp->grid));
		memcpy(tp->values, axis->values, axis->count * sizeof(*tp->values));
		tp->values[k->value_index] = x;
		tp->grid[k->axis].values = tp->values;
		r.grid = tp->grid;
	}
	if ((error = mg_decision__decide(&d, &r, tp->ev, tp->pre, tp->memo, err)) < 0)
		return error;
	tip->probes++;
	if (d->verdict != tp->verdict || d->reason != tp->reason ||
	    !d->selected != !tp->selected ||
	    (d->selected && strcmp(d->selected, tp->selected))) {
		*changed = true;
		tip->found = true;
		tip->value = x;
		tip->verdict = d->verdict;
		tip->reason = mg_outcome_name(d->reason);
		tip->next_action = mg_next_action_name(d->next_action);
		tip->selected = d->selected;
	}
	mg_decision_free(d);
	return MG_OK;
}

/* Is breakpoint b beyond x0 in the direction searched (up or down)?  A
 * ceiling passes a value v from v up, a floor passes it up to v. */
static bool beyond(double b, double x0, bool up, bool ceiling)
{
	if (up)
		return ceiling ? b > x0 : b >= x0;
	return ceiling ? b <= x0 : b < x0;
}

/* The knob's value that first decides breakpoint b the other way: just
 * under b for a ceiling searched down, just over it for a floor searched
 * up, b itself otherwise. */
static double probe_at(double b, bool up, bool ceiling)
{
	if (ceiling && !up)
		return nextafter(b, -INFINITY);
	if (!ceiling && up)
		return nextafter(b, INFINITY);
	return b;
}

/*
 * One direction when no decision may be re-run (sweeps past the work
 * limit): only whether a breakpoint in range lies beyond x0, so the points
 * need no sorting.  The nearest one decides: the range is an interval
 * holding x0, so when the nearest is out of it, so is every further one.
 */
static void search_none(mg_tip *tip, const struct knob *k, double x0,
			const struct points *p, bool up)
{
	bool ceiling = mg_threshold_def_of(k->t)->ceiling, any = false;
	double nearest = 0;
	size_t i;

	for (i = 0; i < p->n; i++) {
		double b = p->v[i];

		if (beyond(b, x0, up, ceiling) && (!any || (up ? b < nearest : b > nearest))) {
			nearest = b;
			any = true;
		}
	}
	tip->probe_limit = 0;
	tip->limit_reached = any && mg_threshold_accepts(k->t, probe_at(nearest, up, ceiling));
}

/* One direction: walk the sorted breakpoints away from x0. */
static int search(mg_tip *tip, struct tipper *tp, const struct knob *k, double x0,
		  const struct points *p, bool up, mg_error *err)
{
	bool ceiling = mg_threshold_def_of(k->t)->ceiling, changed = false;
	size_t i;
	int error = MG_OK;
	double x;

	for (i = 0; i < p->n && !changed; i++) {
		double b = up ? p->v[i] : p->v[p->n - 1 - i];

		if (!beyond(b, x0, up, ceiling))
			continue;
		x = probe_at(b, up, ceiling);
		if (!mg_threshold_accepts(k->t, x))
			break;
		tip->probe_limit = tp->probe_limit;
		if (tip->probes >= tp->probe_limit) {
			tip->limit_reached = true;
			break;
		}
		if ((error = probe(&changed, tip, tp, k, x, err)) < 0)
			break;
		if (changed) {
			tip->bound = b;
			tip->side = x == b ? MG_TIP_AT : up ? MG_TIP_ABOVE : MG_TIP_BELOW;
		}
	}
	return error;
}

/* The breakpoints of threshold t, computed once per threshold (the base
 * budget's knob and every grid value of it share them); sorted only when
 * decisions are re-run. */
static const struct points *points_of(struct tipper *tp, enum mg_threshold t,
				      const mg_screening *all)
{
	struct points *p = &tp->points[t];

	if (!tp->have_points[t]) {
		breakpoints(p, t, tp->rules, tp->ev, all);
		if (tp->probe_limit)
			sort_points(p);
		tp->have_points[t] = true;
	}
	return p;
}

static int tip_knob(mg_tipping *out, struct tipper *tp, const struct knob *k,
		    const mg_screening *all, mg_error *err)
{
	const struct points *p = points_of(tp, k->t, all);
	int error = MG_OK;

	memset(out, 0, sizeof(*out));
	out->threshold = k->t;
	out->axis = k->axis;
	out->value_index = k->value_index;
	out->value = k->axis < 0 ? tp->rules->budget.value[k->t] :
		tp->rules->grid[k->axis].values[k->value_index];
	if (!tp->probe_limit) {
		search_none(&out->down, k, out->value, p, false);
		search_none(&out->up, k, out->value, p, true);
	} else if ((error = search(&out->down, tp, k, out->value, p, false, err)) == 0) {
		error = search(&out->up, tp, k, out->value, p, true, err);
	}
	return error;
}

/* The knobs: each base threshold set, then each grid axis value. */
static size_t list_knobs(struct knob *k, const mg_rules *rules)
{
	size_t n = 0, a, j;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (rules->budget.set[t]) {
			k[n].t = (enum mg_threshold)t;
			k[n].axis = -1;
			k[n++].value_index = 0;
		}
	for (a = 0; a < rules->grid_count; a++)
		for (j = 0; j < rules->grid[a].count; j++) {
			k[n].t = rules->grid[a].threshold;
			k[n].axis = (int)a;
			k[n++].value_index = j;
		}
	return n;
}

/* The breakpoints search() may try in one direction: those beyond x0 at
 * which the threshold still accepts the value probed. */
static size_t count_tries(const struct knob *k, double x0, const struct points *p, bool up)
{
	bool ceiling = mg_threshold_def_of(k->t)->ceiling;
	size_t i, n = 0;

	for (i = 0; i < p->n; i++)
		if (beyond(p->v[i], x0, up, ceiling) &&
		    mg_threshold_accepts(k->t, probe_at(p->v[i], up, ceiling)))
			n++;
	return n;
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/*
 * Decisions each direction may re-run: the highest level L such that every
 * direction re-running min(its breakpoints, L) decisions, each costing
 * `cost` candidate evaluations, stays within MG_INSIGHT_MAX_WORK (and L at
 * most MG_INSIGHT_MAX_PROBES).  A direction with no more breakpoints than L
 * is searched exactly, so when they all fit every one is.  0 when one
 * decision per direction does not fit.
 */
static size_t probe_level(struct tipper *tp, const struct knob *knobs, size_t n,
			  const mg_screening *all, unsigned long long cost)
{
	unsigned long long budget = MG_INSIGHT_MAX_WORK / cost, step, left;
	size_t *need = mg_xcalloc(n ? 2 * n : 1, sizeof(*need));
	size_t i, level = 0;

	for (i = 0; i < n; i++) {
		const struct points *p = points_of(tp, knobs[i].t, all);
		double x0 = knobs[i].axis < 0 ? tp->rules->budget.value[knobs[i].t] :
			tp->rules->grid[knobs[i].axis].values[knobs[i].value_index];

		need[2 * i] = count_tries(&knobs[i], x0, p, false);
		need[2 * i + 1] = count_tries(&knobs[i], x0, p, true);
	}
	qsort(need, 2 * n, sizeof(*need), size_cmp);
	for (i = 0; i < 2 * n && level < MG_INSIGHT_MAX_PROBES; i++) {
		left = 2 * n - i;               /* directions needing more than level */
		step = need[i] - level;
		if (step > budget / left) {
			level += (size_t)(budget / left);
			break;
		}
		budget -= step * left;
		level = need[i];
	}
	free(need);
	return level > MG_INSIGHT_MAX_PROBES ? MG_INSIGHT_MAX_PROBES : level;
}

int mg_tipping__find(mg_insight *in, const mg_rules *rules, const mg_evidence *ev,
		     const bool *pre, const mg_decision *d, mg_error *err)
{
	struct tipper tp = {
		.rules = rules, .ev = ev, .pre = pre,
		.verdict = d->verdict, .reason = d->reason, .selected = d->selected,
	};
	mg_budget open;
	mg_screening all;
	struct knob *knobs;
	size_t n = MG_THRESHOLD_COUNT, a, max_values = 1, i;
	unsigned long long cost;
	int error = MG_OK;

	for (a = 0; a < rules->grid_count; a++) {
		n += rules->grid[a].count;
		if (rules->grid[a].count > max_values)
			max_values = rules->grid[a].count;
	}
	if (d->approved_checked) {
		tp.verdict = d->computed_verdict;
		tp.reason = d->computed_reason;
		tp.selected = d->computed_selected;
	}
	knobs = mg_xcalloc(n, sizeof(*knobs));
	n = list_knobs(knobs, rules);
	cost = (unsigned long long)(ev->candidate_count ? ev->candidate_count : 1) *
		((unsigned long long)d->scenario_count + 1);
	tp.probe_limit = cost <= MG_INSIGHT_MAX_WORK;     /* sorts the points */
	tp.grid = mg_xcalloc(rules->grid_count ? rules->grid_count : 1, sizeof(*tp.grid));
	tp.values = mg_xcalloc(max_values, sizeof(*tp.values));
	memset(&open, 0, sizeof(open));
	mg_screen(&all, rules, ev, &open);
	if (tp.probe_limit)
		tp.probe_limit = probe_level(&tp, knobs, n, &all, cost);
	in->tips = mg_xcalloc(n ? n : 1, sizeof(*in->tips));
	tp.memo = mg_decision__memo_new(rules, ev, d);
	for (i = 0; i < n && error == MG_OK; i++)
		error = tip_knob(&in->tips[in->tip_count++], &tp, &knobs[i], &all, err);
	mg_decision__memo_free(tp.memo);
	mg_screening_release(&all);
	for (i = 0; i < MG_THRESHOLD_COUNT; i++)
		free(tp.points[i].v);
	free(tp.values);
	free(tp.grid);
	free(knobs);
	return error;
}
