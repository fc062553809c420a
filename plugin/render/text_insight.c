/* The text rendering's insight section: tipping points, noise, the
 * trade-off front, the exchange rate.  See text_put.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/result.h"
#include "memgate/insight.h"
#include "format.h"
#include "text_put.h"

#define TEXT_MAX_TIPS 12         /* tipping points listed; the rest are in the record */

static void put_tips(mg_buf *out, const mg_insight *in)
{
	size_t i;

	if (!in->tips_evaluated) {
		mg_buf_puts(out, "tipping points: not evaluated: the evidence does not apply\n");
		return;
	}
	if (!in->tip_count)
		return;
	mg_buf_puts(out, "tipping points (the nearest value of each threshold where the "
		    "decision changes, others held):\n");
	for (i = 0; i < in->tip_count && i < TEXT_MAX_TIPS; i++) {
		mg_buf_puts(out, "  ");
		mg_format_knob(out, &in->tips[i]);
		mg_buf_puts(out, ": lower: ");
		mg_format_tip(out, &in->tips[i].down, mg_text__put_winner);
		mg_buf_puts(out, "; higher: ");
		mg_format_tip(out, &in->tips[i].up, mg_text__put_winner);
		mg_buf_putc(out, '\n');
	}
	if (in->tip_count > TEXT_MAX_TIPS)
		mg_buf_printf(out, "  ... %zu more in the decision record (--json)\n",
			      in->tip_count - TEXT_MAX_TIPS);
}

static void put_band(mg_buf *out, const mg_band *b)
{
	mg_format_value(out, b->min, NULL);
	mg_buf_puts(out, "..");
	mg_format_value(out, b->max, NULL);
}

static void put_noise(mg_buf *out, const mg_decision *d, const mg_insight *in)
{
	size_t i, shown = 0;
	int t;

	if (!in->with_runs) {
		mg_buf_puts(out, "noise: no candidate has runs (single measurements): no noise bands\n");
		return;
	}
	mg_buf_printf(out, "noise: %zu of %zu candidates have runs (bands are [min, max] over "
		      "their runs)", in->with_runs, in->count);
	for (i = 0; i < in->count; i++) {
		const mg_noise *n = &in->noise[i];

		if (!n->within)
			continue;
		if (shown++ == TEXT_MAX_ROWS) {
			mg_buf_puts(out, "; ... (more in the decision record)");
			break;
		}
		mg_buf_puts(out, shown == 1 ? "; within noise: " : "; ");
		mg_text__put_winner(out, d->base.evaluations[i].name);
		for (t = 0; t < MG_THRESHOLD_COUNT; t++)
			if (n->within & (1u << t)) {
				enum mg_metric_id m = t == MG_MEMORY_CAP_MB ? MG_M_PEAK :
					t == MG_MIN_SAMPLES_PER_S ? MG_M_SAMPLES :
					t == MG_MIN_MEMORY_SAVING_MB ? MG_M_SAVING :
					t == MG_MIN_THROUGHPUT_RATIO ? MG_M_RATIO :
					t == MG_MAX_QUALITY_DELTA ? MG_M_DELTA : MG_M_EVAL_LOSS;

				mg_buf_printf(out, " %s (%s ", mg_threshold_name((enum mg_threshold)t),
					      mg_metric_name(m));
				put_band(out, &n->band[m]);
				mg_buf_putc(out, ')');
			}
	}
	mg_buf_putc(out, '\n');
}

static void put_front(mg_buf *out, const mg_decision *d, const mg_insight *in)
{
	const char *sep = "";
	size_t i, shown = 0, dominated = 0;

	if (!in->compared) {
		mg_buf_puts(out, "trade-off front: no candidate has peak memory, samples/s and eval_loss\n");
		return;
	}
	if (!in->front_complete) {
		mg_buf_puts(out, "trade-off front: not computed (search limit)\n");
		return;
	}
	mg_buf_printf(out, "trade-off front (lower peak, higher samples/s, lower eval_loss; "
		      "%zu of %zu): ", in->front_count, in->compared);
	for (i = 0; i < in->count && shown < TEXT_MAX_ROWS; i++)
		if (in->on_front[i]) {
			mg_buf_puts(out, sep);
			mg_text__put_winner(out, d->base.evaluations[i].name);
			sep = ", ";
			shown++;
		}
	if (in->front_count > shown)
		mg_buf_printf(out, ", ... %zu more", in->front_count - shown);
	for (i = 0; i < in->count; i++) {
		if (in->dominated_by[i] == MG_INSIGHT_NONE)
			continue;
		if (dominated++ == TEXT_MAX_ROWS) {
			mg_buf_puts(out, "; ... (more in the decision record)");
			break;
		}
		mg_buf_puts(out, "; ");
		mg_text__put_winner(out, d->base.evaluations[i].name);
		mg_buf_puts(out, " dominated by ");
		mg_text__put_winner(out, d->base.evaluations[in->dominated_by[i]].name);
	}
	mg_buf_putc(out, '\n');
}

static void put_exchange(mg_buf *out, const mg_decision *d)
{
	size_t idx[TEXT_MAX_ROWS], n = mg_decision_best(d, idx, TEXT_MAX_ROWS), i, shown = 0;
	double rate;

	for (i = 0; i < n; i++) {
		const mg_evaluation *e = &d->base.evaluations[idx[i]];

		if (mg_exchange_rate(&rate, e) == MG_EXCHANGE_UNKNOWN)
			continue;
		mg_buf_puts(out, shown++ ? "; " : "exchange rate vs the baseline (MB saved per "
			    "1% of throughput lost): ");
		mg_text__put_winner(out, e->name);
		mg_buf_putc(out, ' ');
		mg_format_exchange(out, e);
	}
	if (shown)
		mg_buf_putc(out, '\n');
}

void mg_text__put_insight(mg_buf *out, const mg_check_result *r)
{
	if (!r->insight)
		return;
	put_tips(out, r->insight);
	put_noise(out, r->decision, r->insight);
	put_front(out, r->decision, r->insight);
	put_exchange(out, r->decision);
}
