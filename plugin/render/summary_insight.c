/* The job summary's insight section: tipping points, noise, the trade-off
 * front and its charts.  See summary_put.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/insight.h"
#include "format.h"
#include "summary_put.h"

/* ---- insight: tipping points, noise, the front, a chart ---- */

#define SUMMARY_TIPS 16        /* tipping-point rows */
#define SUMMARY_ROWS 10        /* candidates in the trade-off table and the chart */
#define CHART_LABEL 24         /* bytes of a chart label */

static void put_tip_cell(mg_buf *out, const mg_tip *t)
{
	mg_buf cell = MG_BUF_INIT;

	mg_format_tip(&cell, t, mg_format_name);
	mg_escape_markdown_cell(out, cell.ptr, cell.len);
	mg_buf_free(&cell);
}

static void put_tips(struct render *x)
{
	const mg_insight *in = x->r->insight;
	size_t i;

	mg_buf_puts(&x->out, "\n### Tipping points\n\n");
	if (!in->tips_evaluated) {
		mg_buf_puts(&x->out, "Not evaluated: the evidence does not apply.\n");
		return;
	}
	mg_buf_puts(&x->out, "The nearest value of each threshold at which the decision changes, "
		    "the others held (exact values in the decision record).\n\n"
		    "| threshold | lower | higher |\n|---|---|---|\n");
	for (i = 0; i < in->tip_count && i < SUMMARY_TIPS; i++) {
		mg_buf knob = MG_BUF_INIT;

		mg_format_knob(&knob, &in->tips[i]);
		mg_buf_puts(&x->out, "| ");
		mg_escape_markdown_cell(&x->out, knob.ptr, knob.len);
		mg_buf_free(&knob);
		mg_buf_puts(&x->out, " | ");
		put_tip_cell(&x->out, &in->tips[i].down);
		mg_buf_puts(&x->out, " | ");
		put_tip_cell(&x->out, &in->tips[i].up);
		mg_buf_puts(&x->out, " |\n");
	}
	if (in->tip_count > SUMMARY_TIPS)
		mg_buf_printf(&x->out, "\n%zu more tipping points omitted; see the decision record\n",
			      in->tip_count - SUMMARY_TIPS);
}

/* The candidates to show: the best few (mg_decision_best), then the
 * selected candidate and the baseline when they are not among them. */
static size_t pick(const struct render *x, size_t *idx)
{
	const mg_decision *d = x->d;
	const char *bl = mg_rules_baseline(x->r->policy ? &x->r->policy->rules : NULL);
	size_t n = mg_decision_best(d, idx, SUMMARY_ROWS - 2), i, k;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d->base.count; i++) {
			const char *name = d->base.evaluations[i].name;

			if (!name || (pass ? strcmp(name, bl) : name != d->selected))
				continue;
			for (k = 0; k < n && idx[k] != i; k++)
				;
			if (k == n)
				idx[n++] = i;
			break;
		}
	return n;
}

static void put_noise(struct render *x)
{
	const mg_insight *in = x->r->insight;
	size_t i, shown = 0;
	int t;

	mg_buf_puts(&x->out, "\n### Measurement noise\n\n");
	if (!in->with_runs) {
		mg_buf_puts(&x->out, "No candidate has runs (each is a single measurement), so there "
			    "are no noise bands.\n");
		return;
	}
	mg_buf_printf(&x->out, "%zu of %zu candidates have runs; bands are [min, max] over them",
		      in->with_runs, in->count);
	if (in->count > in->with_runs)
		mg_buf_puts(&x->out, " (the others are single measurements: no band)");
	mg_buf_puts(&x->out, ".\n\n");
	for (i = 0; i < in->count && shown < SUMMARY_ROWS; i++) {
		if (!in->noise[i].within)
			continue;
		if (!shown++)
			mg_buf_puts(&x->out, "| candidate | checks within noise |\n|---|---|\n");
		mg_buf_puts(&x->out, "| ");
		mg_summary__put_name(&x->out, x->d->base.evaluations[i].name);
		mg_buf_puts(&x->out, " |");
		for (t = 0; t < MG_THRESHOLD_COUNT; t++)
			if (in->noise[i].within & (1u << t))
				mg_buf_printf(&x->out, " `%s`", mg_threshold_name((enum mg_threshold)t));
		mg_buf_puts(&x->out, " |\n");
	}
	if (!shown)
		mg_buf_puts(&x->out, "No check's threshold lies within a candidate's noise band.\n");
}

static void put_front(struct render *x)
{
	const mg_insight *in = x->r->insight;
	size_t idx[SUMMARY_ROWS], n = pick(x, idx), i;

	mg_buf_puts(&x->out, "\n### Trade-off front\n\n");
	if (!in->front_complete)
		mg_buf_puts(&x->out, "The front was not computed (search limit).\n\n");
	else
		mg_buf_printf(&x->out, "%zu of %zu candidates with peak memory, samples/s and "
			      "eval_loss are on the front (lower peak, higher samples/s, lower "
			      "eval_loss).\n\n", in->front_count, in->compared);
	mg_buf_puts(&x->out, "| candidate | front | MB saved per 1% throughput lost |\n"
		    "|---|---|---|\n");
	for (i = 0; i < n; i++) {
		const mg_evaluation *e = &x->d->base.evaluations[idx[i]];

		mg_buf_puts(&x->out, "| ");
		mg_summary__put_name(&x->out, e->name);
		mg_buf_puts(&x->out, " | ");
		if (in->on_front[idx[i]]) {
			mg_buf_puts(&x->out, "on the front");
		} else if (in->dominated_by[idx[i]] != MG_INSIGHT_NONE) {
			mg_buf_puts(&x->out, "dominated by ");
			mg_summary__put_name(&x->out,
					     x->d->base.evaluations[in->dominated_by[idx[i]]].name);
		} else {
			mg_buf_puts(&x->out, "not compared");
		}
		mg_buf_puts(&x->out, " | ");
		mg_format_exchange(&x->out, e);
		mg_buf_puts(&x->out, " |\n");
	}
}

/* A number as Mermaid reads it: fixed point, no exponent. */
static void put_chart_number(mg_buf *out, double v)
{
	mg_buf_printf(out, "%.3f", v);
}

/* The y-axis of a chart: the range of the values and the threshold, a
 * tenth of it added on each side (never below 0), so that a difference of
 * 332 MB between 9,448 and 9,782 MB shows as one. */
static void chart_range(double *lo, double *hi, double min, double max)
{
	double pad = (max - min) / 10;

	if (!(pad > 0))
		pad = max > 0 ? max / 10 : 1;
	*lo = min - pad < 0 ? 0 : min - pad;
	*hi = max + pad;
}

/* A y-axis titled "NAME, LO to HI" that spans LO to HI (the range shown). */
static void put_y_axis(mg_buf *out, const char *name, double lo, double hi)
{
	mg_buf_printf(out, "    y-axis \"%s, ", name);
	put_chart_number(out, lo);
	mg_buf_puts(out, " to ");
	put_chart_number(out, hi);
	mg_buf_puts(out, "\" ");
	put_chart_number(out, lo);
	mg_buf_puts(out, " --> ");
	put_chart_number(out, hi);
}

/* regression.history: candidate i of the head's evaluations' peak over the
 * history's versions (oldest first), then this change's, as a line; the
 * median as a second line; the axis spans them, not from 0. */
static void put_history_chart(mg_buf *out, const struct render *x, size_t i)
{
	const mg_history *h = x->r->history;
	const mg_evaluation *e = &x->d->base.evaluations[i];
	long c = mg_history_find(h, e->name);
	const mg_history_series *s;
	double lo, hi, min, max, median;
	const char *sep = "";
	size_t k;

	if (c < 0 || !(s = &h->peaks[c])->count || !e->known[MG_M_PEAK])
		return;
	median = h->evidence.candidates[c].metric[MG_M_PEAK].value;
	min = max = e->value[MG_M_PEAK];
	for (k = 0; k < s->count; k++) {
		min = s->value[k] < min ? s->value[k] : min;
		max = s->value[k] > max ? s->value[k] : max;
	}
	if (!(min >= 0) || !(max < 1e12))
		return;
	chart_range(&lo, &hi, min, max);
	mg_buf_puts(out, "\n```mermaid\nxychart-beta\n    title \"");
	mg_escape_mermaid_label(out, e->name, strlen(e->name), CHART_LABEL);
	mg_buf_printf(out, ": peak memory (MB), last %zu measurements and this change\"\n"
		      "    x-axis [", s->count);
	for (k = s->count; k-- > 0; sep = ", ")
		mg_buf_printf(out, "%s\"%.7s\"", sep, h->versions[s->version[k]].commit);
	mg_buf_puts(out, ", \"this change\"]\n");
	put_y_axis(out, mg_metric_name(MG_M_PEAK), lo, hi);
	mg_buf_puts(out, "\n    line [");
	for (k = s->count; k-- > 0;) {
		put_chart_number(out, s->value[k]);
		mg_buf_puts(out, ", ");
	}
	put_chart_number(out, e->value[MG_M_PEAK]);
	mg_buf_puts(out, "]\n    line [");
	for (k = 0; k <= s->count; k++) {
		mg_buf_puts(out, k ? ", " : "");
		put_chart_number(out, median);
	}
	mg_buf_puts(out, "]\n```\n");
}

/* Whether evaluation i was compared with the history (memgate(1), REGRESSIONS AND HISTORY):
 * covers all, or the candidate selected now or by the base. */
static bool history_compared(const struct render *x, size_t i)
{
	const mg_regression *rg = &x->r->policy->rules.regression;
	const mg_check_result *b = x->r->base ? x->r->base->result : NULL;
	const char *name = x->d->base.evaluations[i].name;

	if (!name || !*name)
		return false;
	return rg->covers == MG_COVERS_ALL || (x->d->selected && !strcmp(name, x->d->selected)) ||
		(b && b->compare_selected && !strcmp(name, b->compare_selected));
}

/* With regression.history: what the medians are over, and a chart of each
 * compared candidate's peak (those that regressed first), at most
 * MG_SUMMARY_HISTORY_CHARTS of them. */
void mg_summary__put_history(struct render *x)
{
	const mg_history *h = x->r->history;
	const mg_decision *d = x->d;
	mg_buf *out = &x->out;
	bool *done;
	size_t i, k, shown = 0, total = 0;

	if (!h || !h->used || !d->regression_checked)
		return;
	mg_buf_printf(out, "\nCompared with the median of the last %zu measurement%s of ", h->used,
		      h->used == 1 ? "" : "s");
	mg_summary__put_code(out, h->path);
	mg_buf_printf(out, " on the first-parent line of %.7s (%d asked; %zu commits looked "
		      "at). Lines: each measurement's peak and this change's; the median. The "
		      "axis spans the values, not from 0.\n", h->base, h->asked, h->visited);
	done = mg_xcalloc(d->base.count + 1, sizeof(*done));
	for (k = 0; k < d->regressed_count && shown < MG_SUMMARY_HISTORY_CHARTS; k++)
		if (!done[d->regressed[k].index]) {
			done[d->regressed[k].index] = true;
			put_history_chart(out, x, d->regressed[k].index);
			shown++;
		}
	for (i = 0; i < d->base.count; i++)
		if (history_compared(x, i)) {
			total++;
			if (!done[i] && shown < MG_SUMMARY_HISTORY_CHARTS) {
				done[i] = true;
				put_history_chart(out, x, i);
				shown++;
			}
		}
	if (total > shown)
		mg_buf_printf(out, "\n%zu more compared candidates not charted; see the decision "
			      "record.\n", total - shown);
	free(done);
}

/* One xychart: bars of metric m per candidate, labelled with the
 * candidate's number in the candidates table, the threshold as a line. */
static void put_chart(mg_buf *out, const struct render *x, const size_t *idx, size_t n,
		      enum mg_metric_id m, const char *title, bool has_limit, double limit)
{
	const mg_screening *s = &x->d->base;
	size_t i, k = 0, shown[SUMMARY_ROWS];
	double top = has_limit ? limit : 0, bottom = has_limit ? limit : INFINITY, lo, hi;
	const char *sep = "";

	for (i = 0; i < n; i++) {
		const mg_evaluation *e = &s->evaluations[idx[i]];

		if (e->known[m] && fabs(e->value[m]) < 1e12 && e->value[m] >= 0) {
			shown[k++] = idx[i];
			if (e->value[m] > top)
				top = e->value[m];
			if (e->value[m] < bottom)
				bottom = e->value[m];
		}
	}
	if (!k || !(top > 0) || !(top < 1e12))
		return;
	chart_range(&lo, &hi, bottom, top);
	mg_buf_printf(out, "\n```mermaid\nxychart-beta\n    title \"%s\"\n    x-axis [", title);
	for (i = 0; i < k; i++) {
		const char *name = s->evaluations[shown[i]].name;

		mg_buf_printf(out, "%s\"%zu ", sep, shown[i] + 1);
		if (name)
			mg_escape_mermaid_label(out, name, strlen(name), CHART_LABEL);
		mg_buf_putc(out, '"');
		sep = ", ";
	}
	mg_buf_puts(out, "]\n");
	put_y_axis(out, mg_metric_name(m), lo, hi);
	mg_buf_puts(out, "\n    bar [");
	for (sep = "", i = 0; i < k; i++, sep = ", ") {
		mg_buf_puts(out, sep);
		put_chart_number(out, s->evaluations[shown[i]].value[m]);
	}
	mg_buf_puts(out, "]\n");
	if (has_limit) {
		mg_buf_puts(out, "    line [");
		for (sep = "", i = 0; i < k; i++, sep = ", ") {
			mg_buf_puts(out, sep);
			put_chart_number(out, limit);
		}
		mg_buf_puts(out, "]\n");
	}
	mg_buf_puts(out, "```\n");
}

static void put_charts(struct render *x)
{
	const mg_budget *b = &x->d->budget;
	size_t idx[SUMMARY_ROWS], n = pick(x, idx);

	mg_buf_puts(&x->out, "\n### Chart\n\nBars: each candidate's value, numbered as in the "
		    "candidates table; line: the threshold. The axis spans the values and the "
		    "threshold (its range is in the axis title), not from 0.\n");
	put_chart(&x->out, x, idx, n, MG_M_PEAK, "Peak memory (MB) against memory_cap_mb",
		  true, b->value[MG_MEMORY_CAP_MB]);
	put_chart(&x->out, x, idx, n, MG_M_SAMPLES, "Samples per second against min_samples_per_s",
		  b->set[MG_MIN_SAMPLES_PER_S], b->value[MG_MIN_SAMPLES_PER_S]);
}

void mg_summary__put_insight(struct render *x)
{
	if (!x->r->insight)
		return;
	put_tips(x);
	put_noise(x);
	put_front(x);
	put_charts(x);
}
