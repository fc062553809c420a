/* Tipping points, noise, the trade-off front: inputs built by hand. */
#include <math.h>

#include "helpers.h"
#include "memgate/decision.h"
#include "memgate/insight.h"
#include "decision_memo.h"
#include "format.h"

#define MAX_CANDS 8

typedef struct fixture {
	mg_candidate cand[MAX_CANDS];
	mg_budget stricter[4];
	mg_grid_axis grid[2];
	double axis_values[2][8];
	mg_evidence ev;
	mg_rules rules;
} fixture;

static fixture fx;

static mg_value str_value(const char *s)
{
	mg_value v = { MG_VALUE_STRING, 0.0, (char *)s, { 0, 0 } };

	return v;
}

static void fx_init(void)
{
	memset(&fx, 0, sizeof(fx));
	fx.ev.identity[MG_ID_WORKLOAD] = str_value("w");
	fx.ev.identity[MG_ID_HARDWARE] = str_value("h");
	fx.ev.candidates_present = true;
	fx.ev.candidates = fx.cand;
	fx.rules.pin[MG_ID_WORKLOAD] = str_value("w");
	fx.rules.pin[MG_ID_HARDWARE] = str_value("h");
	fx.rules.baseline = "baseline";
	fx.rules.min_repeats = 1;
	fx.rules.stricter = fx.stricter;
	fx.rules.grid = fx.grid;
}

static void budget(enum mg_threshold t, double v)
{
	fx.rules.budget.set[t] = true;
	fx.rules.budget.value[t] = v;
}

static mg_candidate *measured(const char *name, double peak, double samples, double loss)
{
	mg_candidate *c = &fx.cand[fx.ev.candidate_count++];

	c->name = (char *)name;
	c->status = "ok";
	c->repeats = 1;
	c->metric[MG_M_PEAK].state = c->metric[MG_M_SAMPLES].state =
		c->metric[MG_M_EVAL_LOSS].state = MG_METRIC_NUMBER;
	c->metric[MG_M_PEAK].value = peak;
	c->metric[MG_M_SAMPLES].value = samples;
	c->metric[MG_M_EVAL_LOSS].value = loss;
	return c;
}

static void runs(mg_candidate *c, enum mg_metric_id m, double lo, double hi)
{
	c->run_band[m] = true;
	c->run_min[m] = lo;
	c->run_max[m] = hi;
	c->repeats = 3;
}

/* The real flat report's four candidates (fixtures/reports/76_real_gpu_memory.flat.json). */
static void real_report(void)
{
	fx_init();
	measured("baseline", 9782.74, 2.009, 12.356503);
	measured("checkpoint", 9450.76, 1.761, 12.356503);
	measured("offload", 9448.33, 0.533, 12.356503);
	measured("hybrid", 9454.64, 1.276, 12.356503);
	budget(MG_MEMORY_CAP_MB, 11200);
	budget(MG_MIN_SAMPLES_PER_S, 1.0);
	budget(MG_MIN_MEMORY_SAVING_MB, 512);
	budget(MG_MIN_THROUGHPUT_RATIO, 0.70);
	budget(MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
}

static mg_decision *decide(void)
{
	mg_decision *d = NULL;
	mg_error err;

	cr_assert_eq(mg_decide(&d, &fx.rules, &fx.ev, NULL, NULL, 0, &err), 0, "%s", err.message);
	return d;
}

static mg_insight *insight(const mg_decision *d)
{
	mg_insight *in = NULL;
	mg_error err;

	cr_assert_eq(mg_insight_compute(&in, &fx.rules, &fx.ev, NULL, d, &err), 0, "%s",
		     err.message);
	return in;
}

static const mg_tipping *tip_of(const mg_insight *in, enum mg_threshold t, int axis, size_t j)
{
	size_t i;

	for (i = 0; i < in->tip_count; i++)
		if (in->tips[i].threshold == t && in->tips[i].axis == axis &&
		    (axis < 0 || in->tips[i].value_index == j))
			return &in->tips[i];
	cr_assert_fail("no tipping point for %s", mg_threshold_name(t));
	return NULL;
}

Test(insight, worked_example_tips_at_the_exact_derived_saving)
{
	mg_decision *d;
	mg_insight *in;
	const mg_tipping *tp;

	real_report();
	d = decide();
	cr_assert_str_eq(mg_outcome_name(d->reason), "memory_saving_below_meaningful_threshold");
	in = insight(d);
	tp = tip_of(in, MG_MIN_MEMORY_SAVING_MB, -1, 0);
	cr_assert(tp->down.found);
	cr_assert_eq(tp->down.value, 9782.74 - 9450.76);
	cr_assert_eq(tp->down.value, 331.97999999999956);
	cr_assert_neq(tp->down.value, 331.98);
	cr_assert_eq(tp->down.verdict, MG_ACCEPT);
	cr_assert_str_eq(tp->down.reason, "selection_stable_across_thresholds");
	cr_assert_str_eq(tp->down.selected, "checkpoint");
	cr_assert_not(tp->up.found);
	cr_assert_not(tp->up.limit_reached);
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, at_the_rounded_value_checkpoint_still_fails)
{
	mg_decision *d;

	real_report();
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 331.98;
	d = decide();
	cr_assert_eq(d->verdict, MG_TUNE);
	mg_decision_free(d);
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 331.97999999999956;
	d = decide();
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);
}

Test(insight, a_scenario_overriding_the_key_keeps_its_override)
{
	mg_decision *d;
	mg_insight *in;
	const mg_tipping *tp;

	real_report();
	/* stricter: saving 600 always leaves no winner; at the tipping value the
	 * base has a winner, so the scenario makes it threshold-sensitive */
	fx.stricter[0].set[MG_MIN_MEMORY_SAVING_MB] = true;
	fx.stricter[0].value[MG_MIN_MEMORY_SAVING_MB] = 600;
	fx.rules.stricter_count = 1;
	d = decide();
	in = insight(d);
	tp = tip_of(in, MG_MIN_MEMORY_SAVING_MB, -1, 0);
	cr_assert_eq(tp->down.value, 331.97999999999956);
	cr_assert_eq(tp->down.verdict, MG_TUNE);
	cr_assert_str_eq(tp->down.reason, "selection_is_threshold_sensitive");
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, ceilings_tip_just_below_a_value_floors_just_above)
{
	mg_decision *d;
	mg_insight *in;
	const mg_tipping *tp;

	real_report();
	d = decide();
	in = insight(d);
	tp = tip_of(in, MG_MEMORY_CAP_MB, -1, 0);
	cr_assert_eq(tp->down.value, nextafter(9450.76, 0));   /* checkpoint fails the cap */
	cr_assert_eq(tp->down.verdict, MG_REJECT);
	cr_assert_null(tp->down.selected);
	tp = tip_of(in, MG_MIN_SAMPLES_PER_S, -1, 0);
	cr_assert_eq(tp->up.value, nextafter(1.761, 10));      /* checkpoint fails the floor */
	cr_assert_eq(tp->up.verdict, MG_REJECT);
	cr_assert_eq(tp->down.value, 0.533);                   /* offload passes it */
	cr_assert_str_eq(tp->down.selected, "offload");
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, grid_axis_values_have_their_own_tipping_points)
{
	mg_decision *d;
	mg_insight *in;
	const mg_tipping *tp;

	real_report();
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 300;
	fx.grid[0].threshold = MG_MIN_SAMPLES_PER_S;
	fx.grid[0].values = fx.axis_values[0];
	fx.axis_values[0][0] = 1.0;
	fx.axis_values[0][1] = 1.5;
	fx.grid[0].count = 2;
	fx.rules.grid_count = 1;
	d = decide();
	cr_assert_eq(d->verdict, MG_ACCEPT);   /* checkpoint wins at 1.0 and 1.5 */
	in = insight(d);
	tp = tip_of(in, MG_MIN_SAMPLES_PER_S, 0, 1);
	cr_assert_eq(tp->value, 1.5);
	cr_assert_eq(tp->up.value, nextafter(1.761, 10));
	cr_assert_str_eq(tp->up.reason, "selection_is_threshold_sensitive");
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, relative_ceiling_tips_at_the_exact_ratio)
{
	mg_decision *d;
	mg_insight *in;
	const mg_tipping *tp;
	double x;

	fx_init();
	measured("baseline", 10000, 2.0, 10.0);
	measured("a", 9000, 2.0, 10.3);
	budget(MG_MEMORY_CAP_MB, 20000);
	budget(MG_MAX_RELATIVE_EVAL_LOSS, 0.05);
	d = decide();
	cr_assert_str_eq(d->selected, "a");
	in = insight(d);
	tp = tip_of(in, MG_MAX_RELATIVE_EVAL_LOSS, -1, 0);
	x = tp->down.value;
	/* lower: the largest value whose ceiling no longer admits a's 10.3 */
	cr_assert(!(10.0 * (1.0 + x) >= 10.3) && 10.0 * (1.0 + nextafter(x, 1)) >= 10.3,
		  "x %.17g is just under the smallest that admits 10.3", x);
	cr_assert_str_eq(tp->down.reason, "baseline_still_best_under_current_budget");
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, noise_band_of_a_derived_value_is_interval_arithmetic)
{
	mg_decision *d;
	mg_insight *in;
	mg_candidate *b, *c;

	fx_init();
	b = measured("baseline", 9800, 2.0, 12.3);
	c = measured("checkpoint", 9300, 1.8, 12.3);
	measured("single", 9900, 1.0, 12.3);
	runs(b, MG_M_PEAK, 9700, 9900);
	runs(c, MG_M_PEAK, 9150, 9450);
	runs(c, MG_M_SAMPLES, 1.7, 1.9);
	budget(MG_MEMORY_CAP_MB, 11200);
	budget(MG_MIN_MEMORY_SAVING_MB, 400);
	budget(MG_MIN_THROUGHPUT_RATIO, 0.95);
	budget(MG_MAX_QUALITY_DELTA, 0.1);
	d = decide();
	in = insight(d);
	cr_assert(in->noise[1].has_runs);
	cr_assert_eq(in->noise[1].band[MG_M_SAVING].min, 9700 - 9450.0);
	cr_assert_eq(in->noise[1].band[MG_M_SAVING].max, 9900 - 9150.0);
	/* the baseline has no samples/s runs: its single value */
	cr_assert_eq(in->noise[1].band[MG_M_RATIO].min, 1.7 / 2.0);
	cr_assert_eq(in->noise[1].band[MG_M_RATIO].max, 1.9 / 2.0);
	cr_assert_eq(in->noise[1].within, (1u << MG_MIN_MEMORY_SAVING_MB) |
		     (1u << MG_MIN_THROUGHPUT_RATIO), "within %x", in->noise[1].within);
	cr_assert_not(in->noise[2].has_runs);
	cr_assert_not(in->noise[2].band[MG_M_PEAK].known);
	cr_assert_eq(in->with_runs, 2);
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, band_edges_follow_the_comparison)
{
	mg_decision *d;
	mg_candidate *b, *c;

	fx_init();
	b = measured("baseline", 9800, 2.0, 12.3);
	c = measured("checkpoint", 9300, 2.0, 12.3);
	runs(c, MG_M_PEAK, 9000, 9500);
	(void)b;
	budget(MG_MEMORY_CAP_MB, 9500);    /* every run passes at cap = max */
	d = decide();
	cr_assert_eq(mg_noise_of(NULL, &fx.rules, &fx.ev, &d->base, 1), 0);
	mg_decision_free(d);
	fx.rules.budget.value[MG_MEMORY_CAP_MB] = 9000;   /* only the min passes */
	d = decide();
	cr_assert_eq(mg_noise_of(NULL, &fx.rules, &fx.ev, &d->base, 1),
		     1u << MG_MEMORY_CAP_MB);
	mg_decision_free(d);
}

Test(insight, noise_tune_turns_only_an_accept_into_tune)
{
	mg_decision *d;
	mg_candidate *c;

	fx_init();
	measured("baseline", 9800, 2.0, 12.3);
	c = measured("checkpoint", 9300, 1.8, 12.3);
	runs(c, MG_M_PEAK, 9150, 9450);
	budget(MG_MEMORY_CAP_MB, 11200);
	budget(MG_MIN_MEMORY_SAVING_MB, 400);
	d = decide();
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);
	fx.rules.noise = MG_NOISE_TUNE;
	d = decide();
	cr_assert_eq(d->verdict, MG_TUNE);
	cr_assert_str_eq(mg_outcome_name(d->reason), "margin_within_measurement_noise");
	cr_assert_str_eq(mg_next_action_name(d->next_action), "collect_more_repeats");
	cr_assert_str_eq(d->selected, "checkpoint");
	mg_decision_free(d);
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 600;   /* already tune: unchanged */
	d = decide();
	cr_assert_str_eq(mg_outcome_name(d->reason), "memory_saving_below_meaningful_threshold");
	mg_decision_free(d);
}

Test(insight, front_names_a_dominator)
{
	mg_decision *d;
	mg_insight *in;

	real_report();
	d = decide();
	in = insight(d);
	cr_assert(in->front_complete);
	cr_assert_eq(in->compared, 4);
	cr_assert_eq(in->front_count, 3);
	cr_assert(in->on_front[0] && in->on_front[1] && in->on_front[2]);
	cr_assert_not(in->on_front[3]);
	cr_assert_eq(in->dominated_by[3], 1);   /* hybrid: checkpoint is lower, faster, equal loss */
	cr_assert_eq(in->dominated_by[1], MG_INSIGHT_NONE);
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, equal_candidates_are_both_on_the_front)
{
	mg_decision *d;
	mg_insight *in;

	fx_init();
	measured("baseline", 9000, 2.0, 12.0);
	measured("twin", 9000, 2.0, 12.0);
	budget(MG_MEMORY_CAP_MB, 11200);
	d = decide();
	in = insight(d);
	cr_assert_eq(in->front_count, 2);
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, exchange_rate_and_free)
{
	mg_evaluation e;
	double rate;

	memset(&e, 0, sizeof(e));
	cr_assert_eq(mg_exchange_rate(&rate, &e), MG_EXCHANGE_UNKNOWN);
	e.known[MG_M_SAVING] = e.known[MG_M_RATIO] = true;
	e.value[MG_M_SAVING] = 331.97999999999956;
	e.value[MG_M_RATIO] = 1.761 / 2.009;
	cr_assert_eq(mg_exchange_rate(&rate, &e), MG_EXCHANGE_RATE);
	cr_assert_eq(rate, 331.97999999999956 / ((1.0 - 1.761 / 2.009) * 100.0));
	cr_assert(mg_trade_passes(&e, 26.0));
	cr_assert_not(mg_trade_passes(&e, 27.0));
	e.value[MG_M_RATIO] = 1.0;
	cr_assert_eq(mg_exchange_rate(&rate, &e), MG_EXCHANGE_FREE);
	cr_assert(mg_trade_passes(&e, 1e9));
}

Test(insight, trade_off_floor_is_a_target)
{
	mg_decision *d;

	real_report();
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 300;
	budget(MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT, 30);
	d = decide();
	cr_assert_eq(d->verdict, MG_TUNE);
	cr_assert_str_eq(mg_outcome_name(d->reason), "trade_off_below_floor");
	cr_assert_str_eq(d->selected, "checkpoint");
	cr_assert_eq(d->base.evaluations[1].reasons, 1u << MG_R_TRADE_OFF_BELOW_FLOOR);
	cr_assert_eq(d->base.evaluations[0].status, MG_STATUS_REJECTED);  /* saving 0 < 300 */
	cr_assert_eq(d->base.evaluations[0].reasons, 1u << MG_R_MEMORY_SAVING_BELOW_FLOOR);
	mg_decision_free(d);
}

Test(insight, evidence_that_does_not_apply_has_no_tipping_points)
{
	mg_decision *d;
	mg_insight *in;

	real_report();
	fx.ev.identity[MG_ID_HARDWARE] = str_value("other");
	d = decide();
	in = insight(d);
	cr_assert_not(in->tips_evaluated);
	cr_assert_eq(in->tip_count, 0);
	mg_insight_free(in);
	mg_decision_free(d);
}

/* ---- the words of a tipping point against the decision itself ---- */

static void put_raw_name(mg_buf *out, const char *name)
{
	mg_buf_puts(out, name);
}

/* Decide with the tipping point's knob at x; restores the knob. */
static mg_decision *decide_at(const mg_tipping *tp, double x)
{
	double *slot = tp->axis < 0 ? &fx.rules.budget.value[tp->threshold] :
		&((double *)fx.grid[tp->axis].values)[tp->value_index];
	double saved = *slot;
	mg_decision *d;

	*slot = x;
	d = decide();
	*slot = saved;
	return d;
}

static bool same_outcome(const mg_decision *a, const mg_decision *b)
{
	return a->verdict == b->verdict && a->reason == b->reason &&
		!a->selected == !b->selected &&
		(!a->selected || !strcmp(a->selected, b->selected));
}

/* Reads "WORD X (exact Y): ..." as the word and the exact value. */
static void parse_tip(const char *text, char word[8], double *x)
{
	const char *exact = strstr(text, "(exact ");
	int n = 0;

	cr_assert_eq(sscanf(text, "%7s %n", word, &n), 1, "%s", text);
	*x = strtod(exact ? exact + 7 : text + n, NULL);
}

/*
 * Every found tip, as written: "at X" -- X changes the outcome, the double
 * next to it on the current side does not; "below X" / "above X" -- X keeps
 * the outcome, the next double beyond it changes it, to the outcome written.
 */
static void expect_words_agree(const mg_decision *now, const mg_insight *in)
{
	size_t i, dir, checked = 0;

	for (i = 0; i < in->tip_count; i++)
		for (dir = 0; dir < 2; dir++) {
			const mg_tipping *tp = &in->tips[i];
			const mg_tip *t = dir ? &tp->up : &tp->down;
			mg_buf text = MG_BUF_INIT;
			mg_decision *inside, *outside;
			double x, in_x, out_x;
			char word[8];

			if (!t->found)
				continue;
			mg_format_tip(&text, t, put_raw_name);
			parse_tip(text.ptr, word, &x);
			if (!strcmp(word, "at")) {
				in_x = nextafter(x, dir ? -INFINITY : INFINITY);
				out_x = x;
			} else {
				cr_assert_str_eq(word, dir ? "above" : "below", "%s", text.ptr);
				in_x = x;
				out_x = nextafter(x, dir ? INFINITY : -INFINITY);
			}
			inside = decide_at(tp, in_x);
			outside = decide_at(tp, out_x);
			cr_expect(same_outcome(inside, now), "%s %s: %.17g keeps the outcome",
				  mg_threshold_name(tp->threshold), text.ptr, in_x);
			cr_expect_not(same_outcome(outside, now), "%s %s: %.17g changes it",
				      mg_threshold_name(tp->threshold), text.ptr, out_x);
			cr_expect_eq(outside->verdict, t->verdict, "%s", text.ptr);
			cr_expect_str_eq(mg_outcome_name(outside->reason), t->reason, "%s", text.ptr);
			mg_decision_free(inside);
			mg_decision_free(outside);
			mg_buf_free(&text);
			checked++;
		}
	cr_assert_gt(checked, 0);
}

static void expect_words_agree_here(void)
{
	mg_decision *d = decide();
	mg_insight *in = insight(d);

	expect_words_agree(d, in);
	mg_insight_free(in);
	mg_decision_free(d);
}

Test(insight, tipping_words_agree_with_the_decision_on_the_real_report)
{
	real_report();
	expect_words_agree_here();
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 300;   /* accept: other tips */
	expect_words_agree_here();
	budget(MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT, 30);
	expect_words_agree_here();
}

Test(insight, tipping_words_agree_on_grid_values_and_the_relative_ceiling)
{
	real_report();
	fx.rules.budget.value[MG_MIN_MEMORY_SAVING_MB] = 300;
	fx.grid[0].threshold = MG_MIN_SAMPLES_PER_S;
	fx.grid[0].values = fx.axis_values[0];
	fx.axis_values[0][0] = 1.0;
	fx.axis_values[0][1] = 1.5;
	fx.grid[0].count = 2;
	fx.grid[1].threshold = MG_MEMORY_CAP_MB;
	fx.grid[1].values = fx.axis_values[1];
	fx.axis_values[1][0] = 9500;
	fx.axis_values[1][1] = 9452;
	fx.grid[1].count = 2;
	fx.rules.grid_count = 2;
	expect_words_agree_here();

	fx_init();
	measured("baseline", 10000, 2.0, 10.0);
	measured("a", 9000, 2.0, 10.3);
	budget(MG_MEMORY_CAP_MB, 20000);
	budget(MG_MAX_RELATIVE_EVAL_LOSS, 0.05);
	expect_words_agree_here();
}

Test(insight, tipping_words_agree_on_noise_band_ends)
{
	mg_candidate *c;

	fx_init();
	measured("baseline", 9800, 2.0, 12.3);
	c = measured("checkpoint", 9300, 1.8, 12.3);
	runs(c, MG_M_PEAK, 9150, 9450);
	runs(c, MG_M_SAMPLES, 1.7, 1.9);
	budget(MG_MEMORY_CAP_MB, 11200);
	budget(MG_MIN_SAMPLES_PER_S, 1.0);
	budget(MG_MIN_MEMORY_SAVING_MB, 400);
	fx.rules.noise = MG_NOISE_TUNE;
	expect_words_agree_here();
}

/* ---- the tipping-point search's shared work ---- */

/* d and e agree on everything a decision says, scenario by scenario. */
static void expect_same_decision(const mg_decision *d, const mg_decision *e, double x)
{
	size_t i, k;

	cr_expect(same_outcome(d, e), "at %.17g", x);
	cr_expect_eq(d->next_action, e->next_action, "at %.17g", x);
	cr_assert_eq(d->base.count, e->base.count);
	cr_assert_eq(d->base.feasible_count, e->base.feasible_count, "at %.17g", x);
	for (i = 0; i < d->base.feasible_count; i++)
		cr_expect_eq(d->base.feasible[i], e->base.feasible[i], "feasible %zu at %.17g", i, x);
	for (i = 0; i < d->base.count; i++) {
		const mg_evaluation *a = &d->base.evaluations[i], *b = &e->base.evaluations[i];

		cr_expect_eq(a->status, b->status, "candidate %zu at %.17g", i, x);
		cr_expect_eq(a->reasons, b->reasons, "candidate %zu at %.17g", i, x);
		cr_expect_eq(a->waived, b->waived, "candidate %zu at %.17g", i, x);
		cr_expect_eq(a->missing_metric, b->missing_metric, "candidate %zu at %.17g", i, x);
		for (k = 0; k < MG_METRIC_COUNT; k++)
			cr_expect(a->known[k] == b->known[k] &&
				  (!a->known[k] || a->value[k] == b->value[k]),
				  "candidate %zu metric %zu at %.17g", i, k, x);
	}
	cr_expect_eq(d->base.quality_ceiling_known, e->base.quality_ceiling_known);
	cr_expect(!d->base.quality_ceiling_known ||
		  d->base.quality_ceiling == e->base.quality_ceiling, "at %.17g", x);
	cr_expect_eq(d->base.quality_ceiling_from, e->base.quality_ceiling_from);
	cr_expect_eq(d->base.baseline_measured, e->base.baseline_measured);
	cr_expect_eq(d->base.needs_missing_baseline, e->base.needs_missing_baseline);
	cr_assert_eq(d->scenario_count, e->scenario_count, "at %.17g", x);
	cr_expect_eq(d->waiver_count, e->waiver_count);
	for (i = 0; i < d->waiver_count; i++)
		cr_expect_eq(d->waiver_used[i], e->waiver_used[i], "waiver %zu at %.17g", i, x);
	for (i = 0; i < d->scenario_count; i++) {
		const mg_scenario *a = &d->scenarios[i], *b = &e->scenarios[i];

		cr_expect_str_eq(a->id, b->id);
		cr_expect(!a->best == !b->best && (!a->best || !strcmp(a->best, b->best)),
			  "%s at %.17g", a->id, x);
		cr_expect_eq(a->feasible_count, b->feasible_count, "%s at %.17g", a->id, x);
		cr_assert_eq(a->count, b->count);
		for (k = 0; k < a->count; k++)
			cr_expect_eq(a->rank[k], b->rank[k], "%s rank %zu at %.17g", a->id, k, x);
		for (k = 0; k < (a->count + 63) / 64; k++)
			cr_expect_eq(a->feasible[k], b->feasible[k], "%s at %.17g", a->id, x);
	}
}

Test(insight, decisions_through_a_memo_equal_mg_decide)
{
	static const enum mg_threshold ts[] = {
		MG_MEMORY_CAP_MB, MG_MIN_SAMPLES_PER_S, MG_MIN_MEMORY_SAVING_MB,
		MG_MIN_THROUGHPUT_RATIO, MG_MAX_RELATIVE_EVAL_LOSS,
	};
	static const double xs[][6] = {
		{ 9000, 9449, 9451, 9500, 11200, 20000 },
		{ 0.5, 0.533, 1.0, 1.276, 1.761, 3 },
		{ 0, 300, 328, 332, 512, 2000 },
		{ 0.2, 0.27, 0.6, 0.70, 0.9, 1.1 },
		{ 0, 0.001, 0.02, 0.5, 1, 2 },
	};
	mg_waiver w[] = { { "offload", MG_R_THROUGHPUT_BELOW_FLOOR, 0 } };
	mg_decision__memo *memo;
	size_t t, j, with_scenarios = 0;

	real_report();
	fx.rules.waivers = w;
	fx.rules.waiver_count = 1;
	fx.stricter[0].set[MG_MIN_MEMORY_SAVING_MB] = true;
	fx.stricter[0].value[MG_MIN_MEMORY_SAVING_MB] = 320;
	fx.rules.stricter_count = 1;
	fx.grid[0].threshold = MG_MIN_SAMPLES_PER_S;
	fx.grid[0].values = fx.axis_values[0];
	fx.axis_values[0][0] = 1.0;
	fx.axis_values[0][1] = 1.5;
	fx.grid[0].count = 2;
	fx.grid[1].threshold = MG_MEMORY_CAP_MB;
	fx.grid[1].values = fx.axis_values[1];
	fx.axis_values[1][0] = 9500;
	fx.axis_values[1][1] = 9452;
	fx.grid[1].count = 2;
	fx.rules.grid_count = 2;
	memo = mg_decision__memo_new(&fx.rules, &fx.ev, NULL);
	/* t == count: the budget as the memo has it, only the grid knob moves
	 * (the base screening is then the memo's, copied) */
	for (t = 0; t <= sizeof(ts) / sizeof(ts[0]); t++)
		for (j = 0; j < 6; j++) {
			bool grid_only = t == sizeof(ts) / sizeof(ts[0]);
			double saved = grid_only ? 0 : fx.rules.budget.value[ts[t]];
			double axis = fx.axis_values[1][1];
			mg_decision *d, *e = NULL;
			mg_error err;

			if (!grid_only)
				fx.rules.budget.value[ts[t]] = xs[t][j];
			fx.axis_values[1][1] = 9440 + 2 * (double)j;   /* a grid knob too */
			d = decide();
			cr_assert_eq(mg_decision__decide(&e, &fx.rules, &fx.ev, NULL, memo, &err), 0,
				     "%s", err.message);
			expect_same_decision(d, e, fx.axis_values[1][1]);
			with_scenarios += d->scenario_count > 0;
			mg_decision_free(d);
			mg_decision_free(e);
			if (!grid_only)
				fx.rules.budget.value[ts[t]] = saved;
			fx.axis_values[1][1] = axis;
		}
	mg_decision__memo_free(memo);
	cr_assert_gt(with_scenarios, 10);
}
