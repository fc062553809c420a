/* The decision core (memgate(1), HOW MEMGATE DECIDES): inputs built by
 * hand, no files. */
#include <stdint.h>

#include "helpers.h"
#include "decision_memo.h"
#include "memgate/decision.h"
#include "memgate/noise.h"

/* ---- building inputs ---- */

#define MAX_CANDS 16

typedef struct fixture {
	mg_candidate cand[MAX_CANDS];
	char *eligible[MAX_CANDS];
	mg_budget stricter[8];
	mg_grid_axis grid[4];
	double axis_values[4][70];
	mg_waiver waivers[3];
	mg_evidence ev;
	mg_rules rules;
	bool pre[MG_ISSUE_COUNT];
} fixture;

static mg_value str_value(const char *s)
{
	mg_value v = { MG_VALUE_STRING, 0.0, (char *)s, { 0, 0 } };

	return v;
}

static mg_value num_value(double n)
{
	mg_value v = { MG_VALUE_NUMBER, n, NULL, { 0, 0 } };

	return v;
}

/* Evidence measured on workload/hardware, and rules pinning the same, with
 * budget memory_cap_mb = 10000 and nothing else. */
static void fx_init(fixture *f, const char *workload, const char *hardware)
{
	memset(f, 0, sizeof(*f));
	f->ev.identity[MG_ID_WORKLOAD] = str_value(workload);
	f->ev.identity[MG_ID_HARDWARE] = str_value(hardware);
	f->ev.candidates_present = true;
	f->ev.candidates = f->cand;
	f->rules.pin[MG_ID_WORKLOAD] = str_value(workload);
	f->rules.pin[MG_ID_HARDWARE] = str_value(hardware);
	f->rules.baseline = "baseline";
	f->rules.min_repeats = 1;
	f->rules.rank_by = MG_RANK_PEAK_MEMORY;
	f->rules.budget.set[MG_MEMORY_CAP_MB] = true;
	f->rules.budget.value[MG_MEMORY_CAP_MB] = 10000;
	f->rules.stricter = f->stricter;
	f->rules.grid = f->grid;
}

static void fx_default(fixture *f)
{
	fx_init(f, "train-b2-s1024", "gpu-a");
}

static void set_metric(mg_candidate *c, enum mg_metric_id m, double v)
{
	c->metric[m].state = MG_METRIC_NUMBER;
	c->metric[m].value = v;
}

static void bad_metric(mg_candidate *c, enum mg_metric_id m)
{
	c->metric[m].state = MG_METRIC_INVALID;
	c->metric[m].value = 0.0;
}

/* Append a candidate with status "ok", one repeat and no metrics. */
static mg_candidate *add(fixture *f, const char *name)
{
	mg_candidate *c;

	cr_assert_lt(f->ev.candidate_count, MAX_CANDS);
	c = &f->cand[f->ev.candidate_count++];
	memset(c, 0, sizeof(*c));
	c->name = (char *)name;
	c->status = "ok";
	c->repeats = 1;
	return c;
}

/* A candidate with its own peak, samples/s and eval loss. */
static mg_candidate *measured(fixture *f, const char *name, double peak,
			      double samples, double loss)
{
	mg_candidate *c = add(f, name);

	set_metric(c, MG_M_PEAK, peak);
	set_metric(c, MG_M_SAMPLES, samples);
	set_metric(c, MG_M_EVAL_LOSS, loss);
	return c;
}

/* A seed handoff candidate: status comparable, peak and paired values. */
static mg_candidate *paired(fixture *f, const char *name, double peak,
			    double saving, double ratio, double delta)
{
	mg_candidate *c = add(f, name);

	c->status = "comparable";
	set_metric(c, MG_M_PEAK, peak);
	set_metric(c, MG_M_SAVING, saving);
	set_metric(c, MG_M_RATIO, ratio);
	set_metric(c, MG_M_DELTA, delta);
	return c;
}

/* The neighbouring double of a positive x: one step up (dir 1) or down (-1). */
static double step(double x, int dir)
{
	uint64_t bits;

	cr_assert_gt(x, 0);
	memcpy(&bits, &x, sizeof(bits));
	bits = dir > 0 ? bits + 1 : bits - 1;
	memcpy(&x, &bits, sizeof(x));
	return x;
}

static void set_t(mg_budget *b, enum mg_threshold t, double v)
{
	b->set[t] = true;
	b->value[t] = v;
}

static void base_t(fixture *f, enum mg_threshold t, double v)
{
	set_t(&f->rules.budget, t, v);
}

/* Append a stricter entry with one override; returns it for more. */
static mg_budget *stricter(fixture *f, enum mg_threshold t, double v)
{
	mg_budget *b = &f->stricter[f->rules.stricter_count++];

	memset(b, 0, sizeof(*b));
	set_t(b, t, v);
	return b;
}

static void axis(fixture *f, enum mg_threshold t, const double *values, size_t n)
{
	size_t a = f->rules.grid_count++;

	if (n)
		memcpy(f->axis_values[a], values, n * sizeof(*values));
	f->grid[a].threshold = t;
	f->grid[a].values = f->axis_values[a];
	f->grid[a].count = n;
}

static mg_decision *decide(fixture *f)
{
	mg_decision *d = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_decide(&d, &f->rules, &f->ev, f->pre, NULL, 0, &err), 0,
		     "mg_decide failed: %s", err.message);
	cr_assert_not_null(d);
	return d;
}

/* ---- reading outputs ---- */

static const char *reasons_of(unsigned reasons)
{
	static char buf[1024];
	size_t r;

	buf[0] = '\0';
	for (r = 0; r < MG_REASON_COUNT; r++)
		if (reasons & (1u << r)) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, mg_reason_name((enum mg_reason)r));
		}
	return buf;
}

static const char *issues_of(const mg_decision *d)
{
	static char buf[1024];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i]) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, mg_issue_name((enum mg_issue)i));
		}
	return buf;
}

static const char *feasible_of(const mg_screening *s)
{
	static char buf[1024];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < s->feasible_count; i++) {
		if (i)
			strcat(buf, ",");
		strcat(buf, s->evaluations[s->feasible[i]].name);
	}
	return buf;
}

static const mg_evaluation *eval_of(const mg_screening *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].name && !strcmp(s->evaluations[i].name, name))
			return &s->evaluations[i];
	cr_assert_fail("no evaluation named '%s'", name);
	return NULL;
}

static const char *reasons_named(const mg_screening *s, const char *name)
{
	return reasons_of(eval_of(s, name)->reasons);
}

static const char *status_named(const mg_screening *s, const char *name)
{
	return mg_status_name(eval_of(s, name)->status);
}


/* ---- one scenario in full ---- */

/* Scenario k of d screened in full (mg_scenario_screen), after checking
 * that its feasible list is the one the decision keeps as bits.  Stays
 * valid until the next call; released by sc_done. */
static mg_screening sc_full;

static void sc_done(void)
{
	mg_screening_release(&sc_full);
}

static const mg_screening *sc_screen(const fixture *f, const mg_decision *d, size_t k)
{
	const mg_scenario *sc = &d->scenarios[k];
	size_t cursor = 0, index, i = 0;

	cr_assert_lt(k, d->scenario_count);
	sc_done();
	mg_scenario_screen(&sc_full, &f->rules, &f->ev, sc);
	while (mg_scenario_next_feasible(sc, &cursor, &index)) {
		cr_assert_lt(i, sc_full.feasible_count, "%s: more feasible bits than in full", sc->id);
		cr_assert_eq(index, sc_full.feasible[i], "%s: feasible[%zu] differs", sc->id, i);
		i++;
	}
	cr_assert_eq(i, sc_full.feasible_count, "%s: fewer feasible bits than in full", sc->id);
	cr_assert_eq(sc->feasible_count, sc_full.feasible_count);
	if (i)
		cr_assert_eq(sc->best_index, sc_full.feasible[0]);
	else
		cr_assert_null(sc->best);
	return &sc_full;
}

static void expect_decision(const mg_decision *d, const char *verdict,
			    const char *reason, const char *next_action,
			    const char *selected)
{
	cr_assert_str_eq(mg_verdict_name(d->verdict), verdict);
	cr_assert_str_eq(mg_outcome_name(d->reason), reason);
	cr_assert_str_eq(mg_next_action_name(d->next_action), next_action);
	if (selected)
		cr_assert_str_eq(d->selected, selected);
	else
		cr_assert_null(d->selected, "selected is '%s'", d->selected);
}

/* Screen under the base budget; the caller releases. */
static mg_screening screen(fixture *f)
{
	mg_screening s;

	mg_screen(&s, &f->rules, &f->ev, &f->rules.budget);
	return s;
}

/* ---- (a) the seed's test_memory_budget_project ---- */

static void seed_fixture(fixture *f)
{
	static char *eligible[] = { "checkpoint", "offload" };

	fx_default(f);
	f->ev.handoff = true;
	f->ev.handoff_status = str_value("ready_for_budget_review");
	f->ev.eligible_present = true;
	f->ev.eligible = eligible;
	f->ev.eligible_count = 2;
	paired(f, "checkpoint", 8200, 2800, 0.85, 0.02);
	paired(f, "offload", 7600, 3400, 0.62, 0.01);
	base_t(f, MG_MEMORY_CAP_MB, 9000);
	base_t(f, MG_MIN_MEMORY_SAVING_MB, 2000);
	base_t(f, MG_MIN_THROUGHPUT_RATIO, 0.75);
	base_t(f, MG_MAX_QUALITY_DELTA, 0.03);
}

Test(decision, seed_base_budget_picks_checkpoint_and_rejects_offload_on_throughput)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	d = decide(&f);
	cr_assert(d->applicable);
	cr_assert_str_eq(issues_of(d), "");
	cr_assert_str_eq(d->best, "checkpoint");
	cr_assert_str_eq(feasible_of(&d->base), "checkpoint");
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"), "");
	cr_assert_str_eq(reasons_named(&d->base, "offload"), "throughput_below_floor");
	cr_assert_str_eq(status_named(&d->base, "offload"), "rejected");
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	cr_assert_not(d->stability_tested);
	mg_decision_free(d);
}

Test(decision, seed_stricter_cap_keeps_checkpoint_and_accepts)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	d = decide(&f);
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	cr_assert_eq(d->scenario_count, 1);
	cr_assert_str_eq(d->scenarios[0].id, "stricter[0]");
	cr_assert_str_eq(d->scenarios[0].best, "checkpoint");
	cr_assert(d->stability_tested);
	mg_decision_free(d);
}

Test(decision, seed_stricter_throughput_ratio_makes_selection_sensitive)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MIN_THROUGHPUT_RATIO, 0.90);
	d = decide(&f);
	expect_decision(d, "tune", "selection_is_threshold_sensitive",
			"collect_boundary_evidence", "checkpoint");
	cr_assert_null(d->scenarios[0].best);
	cr_assert_str_eq(reasons_named(sc_screen(&f, d, 0), "checkpoint"),
			 "throughput_below_floor");
	mg_decision_free(d);
}

Test(decision, seed_cap_7000_rejects_with_no_candidate)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	base_t(&f, MG_MEMORY_CAP_MB, 7000);
	d = decide(&f);
	expect_decision(d, "reject", "no_candidate_meets_base_budget",
			"rework_strategy_or_budget", NULL);
	cr_assert_null(d->best);
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"), "memory_over_budget");
	cr_assert_str_eq(reasons_named(&d->base, "offload"),
			 "memory_over_budget,throughput_below_floor");
	cr_assert(d->sensitivity_evaluated);
	mg_decision_free(d);
}

Test(decision, seed_other_workload_pin_is_not_applicable)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	f.rules.pin[MG_ID_WORKLOAD] = str_value("train-b4-s1024");
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable",
			"rebuild_same_workload_evidence", NULL);
	cr_assert_not(d->applicable);
	cr_assert_str_eq(issues_of(d), "workload_mismatch");
	/* the evaluations are still there for the record, sensitivity is not */
	cr_assert_eq(d->base.count, 2);
	cr_assert_str_eq(reasons_named(&d->base, "offload"), "throughput_below_floor");
	cr_assert_not(d->sensitivity_evaluated);
	cr_assert_eq(d->scenario_count, 0);
	mg_decision_free(d);
}

/* ---- (b) the real reports' numbers ---- */

static void real_budget(fixture *f, double cap)
{
	base_t(f, MG_MEMORY_CAP_MB, cap);
	base_t(f, MG_MIN_SAMPLES_PER_S, 1.0);
	base_t(f, MG_MIN_MEMORY_SAVING_MB, 512);
	base_t(f, MG_MIN_THROUGHPUT_RATIO, 0.70);
	base_t(f, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
}

/* real-reports/76_real_gpu_memory.flat.json */
static void real_flat(fixture *f, double cap)
{
	fx_init(f, "pressure", "NVIDIA GeForce RTX 5070 Ti Laptop GPU");
	measured(f, "baseline", 9782.74, 2.009, 12.356503);
	measured(f, "checkpoint", 9450.76, 1.761, 12.356503);
	measured(f, "offload", 9448.33, 0.533, 12.356503);
	measured(f, "hybrid", 9454.64, 1.276, 12.356503);
	real_budget(f, cap);
}

/* real-reports/76_real_gpu_memory_bf16_seq1024.flat.json */
static void real_bf16(fixture *f, double cap)
{
	fx_init(f, "pressure_1024", "NVIDIA GeForce RTX 5070 Ti Laptop GPU");
	measured(f, "baseline", 10037.52, 3.366, 12.202896);
	measured(f, "checkpoint", 10010.36, 2.919, 12.202565);
	real_budget(f, cap);
}

/* real-reports/76_real_gpu_memory_v1.nested.json: its metrics.memory_saving_mb
 * and metrics.throughput_ratio are the producer's and are not paired values. */
static void real_nested(fixture *f, double cap)
{
	fx_init(f, "pressure", "NVIDIA GeForce RTX 5070 Ti Laptop GPU");
	measured(f, "baseline", 9782.74, 2.097, 12.356503);
	measured(f, "checkpoint", 9450.76, 1.687, 12.356503);
	measured(f, "offload", 9448.33, 0.528, 12.356503);
	measured(f, "hybrid", 9454.64, 1.305, 12.356503);
	real_budget(f, cap);
}

static void expect_real_tune(fixture *f)
{
	mg_decision *d = decide(f);

	expect_decision(d, "tune", "memory_saving_below_meaningful_threshold",
			"test_larger_pressure_or_optimizer_compression", "checkpoint");
	cr_assert_null(d->best);
	cr_assert_eq(d->base.feasible_count, 0);
	cr_assert(d->base.baseline_measured);
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"), "memory_saving_below_floor");
	mg_decision_free(d);
}

static void expect_baseline_reasons(fixture *f, const char *reasons)
{
	mg_decision *d = decide(f);

	cr_assert_str_eq(reasons_named(&d->base, "baseline"), reasons);
	mg_decision_free(d);
}

Test(decision, real_flat_report_tunes_for_small_saving)
{
	fixture f;
	mg_decision *d;

	real_flat(&f, 11200);
	expect_real_tune(&f);
	expect_baseline_reasons(&f, "memory_saving_below_floor");
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "offload"),
			 "samples_per_s_below_floor,memory_saving_below_floor,throughput_below_floor");
	cr_assert_str_eq(reasons_named(&d->base, "hybrid"),
			 "memory_saving_below_floor,throughput_below_floor");
	cr_assert_float_eq(eval_of(&d->base, "checkpoint")->value[MG_M_SAVING],
			   9782.74 - 9450.76, 1e-9);
	cr_assert_float_eq(eval_of(&d->base, "checkpoint")->value[MG_M_RATIO],
			   1.761 / 2.009, 1e-12);
	cr_assert_eq(d->base.quality_ceiling, 12.356503 * (1.0 + 0.02));
	mg_decision_free(d);
}

Test(decision, real_bf16_report_tunes_for_small_saving)
{
	fixture f;

	real_bf16(&f, 11200);
	expect_real_tune(&f);
	expect_baseline_reasons(&f, "memory_saving_below_floor");
}

Test(decision, real_nested_report_tunes_for_small_saving)
{
	fixture f;
	mg_decision *d;

	real_nested(&f, 11200);
	expect_real_tune(&f);
	expect_baseline_reasons(&f, "memory_saving_below_floor");
	d = decide(&f);
	cr_assert_float_eq(eval_of(&d->base, "hybrid")->value[MG_M_RATIO],
			   1.305 / 2.097, 1e-12);
	cr_assert_str_eq(reasons_named(&d->base, "hybrid"),
			 "memory_saving_below_floor,throughput_below_floor");
	mg_decision_free(d);
}

Test(decision, real_reports_with_cap_9600_reject_the_baseline_on_memory)
{
	fixture f[3];
	size_t i;

	real_flat(&f[0], 9600);
	real_bf16(&f[1], 9600);
	real_nested(&f[2], 9600);
	for (i = 0; i < 3; i++)
		expect_baseline_reasons(&f[i], "memory_over_budget,memory_saving_below_floor");
	/* the flat and nested checkpoints still fit: the same tune as the
	 * stage-75 record 75_memory_budget_decision_9600.json */
	expect_real_tune(&f[0]);
	expect_real_tune(&f[2]);
}

Test(decision, real_report_with_the_seed_grid_records_18_scenarios)
{
	static const double caps[] = { 9600, 11200 };
	static const double floors[] = { 1.0, 1.5, 2.0 };
	static const double losses[] = { 12.20, 12.45, 12.80 };
	fixture f;
	mg_decision *d;

	real_flat(&f, 11200);
	axis(&f, MG_MEMORY_CAP_MB, caps, 2);
	axis(&f, MG_MIN_SAMPLES_PER_S, floors, 3);
	axis(&f, MG_MAX_EVAL_LOSS, losses, 3);
	d = decide(&f);
	expect_decision(d, "tune", "memory_saving_below_meaningful_threshold",
			"test_larger_pressure_or_optimizer_compression", "checkpoint");
	cr_assert(d->sensitivity_evaluated);
	cr_assert_eq(d->scenario_count, 18);
	cr_assert_str_eq(d->scenarios[17].id, "grid[17]");
	/* grid[0]: ceiling 12.20 replaces the relative one, every loss is over it */
	cr_assert_str_eq(reasons_named(sc_screen(&f, d, 0), "checkpoint"),
			 "quality_over_floor,memory_saving_below_floor");
	cr_assert_not(d->scenarios[0].budget.set[MG_MAX_RELATIVE_EVAL_LOSS]);
	mg_decision_free(d);
}

/* ---- screening steps 1-6 ---- */

Test(decision, step1_flags_missing_empty_and_duplicate_names)
{
	fixture f;
	mg_screening s;
	mg_candidate *dup;

	fx_default(&f);
	measured(&f, NULL, 5000, 1, 1);
	measured(&f, "", 5000, 1, 1);
	measured(&f, "a", 5000, 1, 1);
	dup = measured(&f, "a", 4000, 1, 1);
	dup->oom = true;   /* step 1 comes first and is the only reason */
	s = screen(&f);
	cr_assert_eq(s.evaluations[0].status, MG_STATUS_INVALID);
	cr_assert_str_eq(reasons_of(s.evaluations[0].reasons), "missing_or_duplicate_name");
	cr_assert_null(s.evaluations[0].name);
	cr_assert_str_eq(reasons_of(s.evaluations[1].reasons), "missing_or_duplicate_name");
	cr_assert_str_eq(reasons_of(s.evaluations[2].reasons), "");
	cr_assert_eq(s.evaluations[2].status, MG_STATUS_FEASIBLE);
	cr_assert_str_eq(reasons_of(s.evaluations[3].reasons), "missing_or_duplicate_name");
	cr_assert_str_eq(mg_status_name(s.evaluations[3].status), "invalid");
	cr_assert_str_eq(feasible_of(&s), "a");
	mg_screening_release(&s);
}

Test(decision, step2_oom_comes_before_status_and_metrics)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	c = add(&f, "offload");
	c->oom = true;
	c->status = "oom";
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "offload"), "oom");
	cr_assert_str_eq(reasons_named(&s, "offload"), "oom");
	mg_screening_release(&s);
}

Test(decision, step3_excludes_status_other_than_ok_or_comparable)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	measured(&f, "failed", 5000, 1, 1)->status = "failed";
	measured(&f, "nonstring", 5000, 1, 1)->status = NULL;
	measured(&f, "ok", 4000, 1, 1);
	paired(&f, "comparable", 5000, 1, 1, 0);
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "failed"), "excluded");
	cr_assert_str_eq(reasons_named(&s, "failed"), "evidence_not_comparable");
	cr_assert_str_eq(reasons_named(&s, "nonstring"), "evidence_not_comparable");
	cr_assert_str_eq(feasible_of(&s), "ok,comparable");
	mg_screening_release(&s);
}

Test(decision, step4_excludes_names_outside_the_eligible_list)
{
	static char *eligible[] = { "checkpoint" };
	fixture f;
	mg_screening s;

	fx_default(&f);
	f.ev.eligible_present = true;
	f.ev.eligible = eligible;
	f.ev.eligible_count = 1;
	measured(&f, "checkpoint", 5000, 1, 1);
	measured(&f, "offload", 4000, 1, 1);
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "offload"), "excluded");
	cr_assert_str_eq(reasons_named(&s, "offload"), "not_in_eligible_candidates");
	cr_assert_str_eq(feasible_of(&s), "checkpoint");
	mg_screening_release(&s);
}

/* Found while fuzzing (fuzz/fuzz_decide): step 4 scanned the whole eligible
 * list for every candidate, so 1024 candidates and a list of a million
 * names (10 MB of report) took 10^9 string compares.  The list is now
 * sorted once and searched.  Here, the answers on such a list; its cost is
 * make bench's (case h, "a long eligible list"), never a timed test. */
Test(decision, step4_decides_a_long_eligible_list)
{
	enum { NCAND = 4096, NELIG = 250000, NAME = 32 };
	char *pool = mg_xcalloc(NCAND + NELIG, NAME);
	char **eligible = mg_xcalloc(NELIG, sizeof(*eligible));
	mg_candidate *cands = mg_xcalloc(NCAND, sizeof(*cands));
	fixture f;
	mg_screening s;
	size_t i;

	fx_default(&f);
	for (i = 0; i < NELIG; i++) {
		eligible[i] = pool + i * NAME;
		snprintf(eligible[i], NAME, "strategy-e%zu", i);
	}
	for (i = 0; i < NCAND; i++) {
		cands[i].name = pool + (NELIG + i) * NAME;
		snprintf(cands[i].name, NAME, "strategy-c%zu", i);
		cands[i].status = "ok";
		cands[i].repeats = 1;
		set_metric(&cands[i], MG_M_PEAK, 1000);
	}
	snprintf(cands[NCAND - 1].name, NAME, "strategy-e%d", NELIG - 1);
	f.ev.candidates = cands;
	f.ev.candidate_count = NCAND;
	f.ev.eligible_present = true;
	f.ev.eligible = eligible;
	f.ev.eligible_count = NELIG;
	s = screen(&f);
	cr_expect_str_eq(reasons_named(&s, "strategy-c0"), "not_in_eligible_candidates");
	cr_expect_str_eq(reasons_named(&s, "strategy-c4094"), "not_in_eligible_candidates");
	cr_expect_str_eq(feasible_of(&s), "strategy-e249999");
	mg_screening_release(&s);
	free(cands);
	free(eligible);
	free(pool);
}

Test(decision, step5_needs_peak_always)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	add(&f, "nopeak");
	bad_metric(add(&f, "infpeak"), MG_M_PEAK);  /* 1e999 parses to infinity */
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "nopeak"), "invalid");
	cr_assert_str_eq(reasons_named(&s, "nopeak"), "missing_or_non_numeric_metric");
	cr_assert_str_eq(reasons_named(&s, "infpeak"), "missing_or_non_numeric_metric");
	mg_screening_release(&s);
}

Test(decision, step5_needs_samples_only_for_an_active_speed_check)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	set_metric(add(&f, "peak_only"), MG_M_PEAK, 5000);
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "peak_only"), "feasible");
	mg_screening_release(&s);

	base_t(&f, MG_MIN_SAMPLES_PER_S, 1.0);
	s = screen(&f);
	cr_assert_str_eq(reasons_named(&s, "peak_only"), "missing_or_non_numeric_metric");
	mg_screening_release(&s);

	/* a throughput-ratio check needs samples unless the ratio is paired */
	f.rules.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	base_t(&f, MG_MIN_THROUGHPUT_RATIO, 0.5);
	c = add(&f, "paired_ratio");
	set_metric(c, MG_M_PEAK, 5000);
	set_metric(c, MG_M_RATIO, 0.9);
	s = screen(&f);
	cr_assert_str_eq(reasons_named(&s, "peak_only"), "missing_or_non_numeric_metric");
	cr_assert_str_eq(status_named(&s, "paired_ratio"), "feasible");
	mg_screening_release(&s);
}

Test(decision, step5_needs_eval_loss_only_for_an_active_quality_check)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	set_metric(add(&f, "no_loss"), MG_M_PEAK, 5000);
	c = add(&f, "paired_delta");
	set_metric(c, MG_M_PEAK, 5000);
	set_metric(c, MG_M_DELTA, 0.01);
	base_t(&f, MG_MAX_QUALITY_DELTA, 0.02);
	s = screen(&f);
	cr_assert_str_eq(reasons_named(&s, "no_loss"), "missing_or_non_numeric_metric");
	cr_assert_str_eq(status_named(&s, "paired_delta"), "feasible");
	mg_screening_release(&s);

	f.rules.budget.set[MG_MAX_QUALITY_DELTA] = false;
	base_t(&f, MG_MAX_EVAL_LOSS, 12.0);
	s = screen(&f);
	cr_assert_str_eq(reasons_named(&s, "paired_delta"), "missing_or_non_numeric_metric");
	mg_screening_release(&s);
}

Test(decision, step5_rejects_an_invalid_paired_value_only_when_its_check_is_active)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	bad_metric(measured(&f, "c", 5000, 1, 1), MG_M_SAVING);
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "c"), "feasible");
	mg_screening_release(&s);
	base_t(&f, MG_MIN_MEMORY_SAVING_MB, 0);
	s = screen(&f);
	cr_assert_str_eq(reasons_named(&s, "c"), "missing_or_non_numeric_metric");
	mg_screening_release(&s);
}

Test(decision, step6_flags_insufficient_repeats_after_metrics)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	f.rules.min_repeats = 3;
	measured(&f, "two", 5000, 1, 1)->repeats = 2;
	measured(&f, "three", 5000, 1, 1)->repeats = 3;
	add(&f, "nometric")->repeats = 1;
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "two"), "invalid");
	cr_assert_str_eq(reasons_named(&s, "two"), "insufficient_repeats");
	cr_assert_str_eq(status_named(&s, "three"), "feasible");
	cr_assert_str_eq(reasons_named(&s, "nometric"), "missing_or_non_numeric_metric");
	cr_assert_eq(eval_of(&s, "two")->repeats, 2);
	mg_screening_release(&s);
}

/* ---- step 7 ---- */

static void all_thresholds(fixture *f)
{
	base_t(f, MG_MEMORY_CAP_MB, 9000);
	base_t(f, MG_MIN_SAMPLES_PER_S, 1.0);
	base_t(f, MG_MIN_MEMORY_SAVING_MB, 500);
	base_t(f, MG_MIN_THROUGHPUT_RATIO, 0.7);
	base_t(f, MG_MAX_EVAL_LOSS, 12.0);
	base_t(f, MG_MAX_QUALITY_DELTA, 0.03);
}

Test(decision, step7_lists_every_failing_threshold_in_table_order)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	all_thresholds(&f);
	measured(&f, "baseline", 9000, 2.0, 11.9);
	measured(&f, "bad", 9001, 0.5, 12.5);
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "bad"), "rejected");
	cr_assert_str_eq(reasons_named(&s, "bad"),
			 "memory_over_budget,samples_per_s_below_floor,quality_over_floor,"
			 "memory_saving_below_floor,throughput_below_floor,quality_delta_over_limit");
	mg_screening_release(&s);
}

Test(decision, step7_equality_passes_at_every_threshold)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	all_thresholds(&f);
	base_t(&f, MG_MIN_SAMPLES_PER_S, 1.4);
	base_t(&f, MG_MAX_QUALITY_DELTA, 0.25);
	/* derived: saving 9500-9000 = 500, ratio 1.4/2 = 0.7, delta 12-11.75 = 0.25 */
	measured(&f, "baseline", 9500, 2.0, 11.75);
	measured(&f, "edge", 9000, 1.4, 12.0);
	s = screen(&f);
	cr_assert_eq(eval_of(&s, "edge")->value[MG_M_SAVING], 500);
	cr_assert_eq(eval_of(&s, "edge")->value[MG_M_RATIO], 0.7);
	cr_assert_eq(eval_of(&s, "edge")->value[MG_M_DELTA], 0.25);
	cr_assert_str_eq(status_named(&s, "edge"), "feasible");
	mg_screening_release(&s);
}

Test(decision, step7_equality_passes_for_paired_values_and_one_step_over_fails)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	all_thresholds(&f);
	f.rules.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	f.rules.budget.set[MG_MAX_EVAL_LOSS] = false;
	paired(&f, "edge", 9000, 500, 0.7, 0.03);
	paired(&f, "over", step(9000, 1), step(500, -1), step(0.7, -1), step(0.03, 1));
	s = screen(&f);
	cr_assert_str_eq(status_named(&s, "edge"), "feasible");
	cr_assert_str_eq(reasons_named(&s, "over"),
			 "memory_over_budget,memory_saving_below_floor,"
			 "throughput_below_floor,quality_delta_over_limit");
	mg_screening_release(&s);
}

Test(decision, relative_ceiling_is_baseline_loss_times_one_plus_x_and_equality_passes)
{
	fixture f;
	mg_screening s;
	double ceiling = 12.356503 * (1.0 + 0.02);

	fx_default(&f);
	base_t(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	measured(&f, "baseline", 9000, 2, 12.356503);
	measured(&f, "at", 8000, 2, ceiling);
	measured(&f, "above", 8000, 2, step(ceiling, 1));
	s = screen(&f);
	cr_assert(s.quality_ceiling_known);
	cr_assert_eq(s.quality_ceiling_from, MG_MAX_RELATIVE_EVAL_LOSS);
	cr_assert_eq(s.quality_ceiling, ceiling);
	cr_assert_str_eq(status_named(&s, "at"), "feasible");
	cr_assert_str_eq(reasons_named(&s, "above"), "quality_over_floor");
	mg_screening_release(&s);
}

Test(decision, the_lower_of_absolute_and_relative_ceilings_applies)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	base_t(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.10);  /* ceiling 11.0 */
	base_t(&f, MG_MAX_EVAL_LOSS, 10.5);
	measured(&f, "baseline", 9000, 2, 10.0);
	measured(&f, "c", 8000, 2, 10.8);
	s = screen(&f);
	cr_assert_eq(s.quality_ceiling_from, MG_MAX_EVAL_LOSS);
	cr_assert_eq(s.quality_ceiling, 10.5);
	cr_assert_str_eq(reasons_named(&s, "c"), "quality_over_floor");
	mg_screening_release(&s);

	base_t(&f, MG_MAX_EVAL_LOSS, 11.5);
	s = screen(&f);
	cr_assert_eq(s.quality_ceiling_from, MG_MAX_RELATIVE_EVAL_LOSS);
	cr_assert_eq(s.quality_ceiling, 10.0 * (1.0 + 0.10));
	cr_assert_str_eq(status_named(&s, "c"), "feasible");
	mg_screening_release(&s);
}

Test(decision, baseline_derived_values_are_zero_one_zero_and_others_are_derived)
{
	fixture f;
	mg_screening s;
	const mg_evaluation *b, *c;

	fx_default(&f);
	measured(&f, "checkpoint", 8000, 1.5, 10.5);
	measured(&f, "baseline", 9000, 2.0, 10.0);
	s = screen(&f);
	b = eval_of(&s, "baseline");
	c = eval_of(&s, "checkpoint");
	cr_assert(s.baseline_measured);
	cr_assert(b->known[MG_M_SAVING] && b->known[MG_M_RATIO] && b->known[MG_M_DELTA]);
	cr_assert_eq(b->value[MG_M_SAVING], 0.0);
	cr_assert_eq(b->value[MG_M_RATIO], 1.0);
	cr_assert_eq(b->value[MG_M_DELTA], 0.0);
	cr_assert_eq(c->value[MG_M_SAVING], 1000.0);
	cr_assert_eq(c->value[MG_M_RATIO], 0.75);
	cr_assert_eq(c->value[MG_M_DELTA], 0.5);
	cr_assert_eq(c->value[MG_M_PEAK], 8000.0);
	mg_screening_release(&s);
}

Test(decision, measured_baseline_has_ratio_one_without_its_own_samples)
{
	fixture f;
	mg_screening s;
	const mg_evaluation *b;

	fx_default(&f);
	set_metric(add(&f, "baseline"), MG_M_PEAK, 9000);
	s = screen(&f);
	b = eval_of(&s, "baseline");
	cr_assert(s.baseline_measured);
	cr_assert_not(b->known[MG_M_SAMPLES]);
	cr_assert(b->known[MG_M_RATIO]);
	cr_assert_eq(b->value[MG_M_RATIO], 1.0);
	mg_screening_release(&s);
}

Test(decision, paired_values_are_used_as_given_even_with_a_baseline)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	base_t(&f, MG_MIN_MEMORY_SAVING_MB, 1500);
	measured(&f, "baseline", 9000, 2.0, 10.0);
	c = measured(&f, "checkpoint", 8000, 1.5, 10.5);
	set_metric(c, MG_M_SAVING, 2000);
	s = screen(&f);
	cr_assert_eq(eval_of(&s, "checkpoint")->value[MG_M_SAVING], 2000.0);
	cr_assert_str_eq(status_named(&s, "checkpoint"), "feasible");
	mg_screening_release(&s);
}

Test(decision, values_are_filled_for_candidates_that_stop_early)
{
	fixture f;
	mg_screening s;
	const mg_evaluation *e;

	fx_default(&f);
	f.rules.min_repeats = 2;
	measured(&f, "once", 5000, 1.5, 10.0);
	s = screen(&f);
	e = eval_of(&s, "once");
	cr_assert_str_eq(reasons_of(e->reasons), "insufficient_repeats");
	cr_assert(e->known[MG_M_PEAK] && e->known[MG_M_SAMPLES] && e->known[MG_M_EVAL_LOSS]);
	cr_assert_eq(e->value[MG_M_SAMPLES], 1.5);
	cr_assert_not(e->known[MG_M_SAVING]);
	mg_screening_release(&s);
}

/* ---- ranking ---- */

Test(decision, ranking_ties_keep_report_order)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	paired(&f, "a", 2, 0, 1, 0);
	paired(&f, "b", 1, 0, 1, 0);
	paired(&f, "c", 2, 0, 1, 0);
	paired(&f, "d", 1, 0, 1, 0);
	paired(&f, "e", 2, 0, 1, 0);
	paired(&f, "f", 1, 0, 1, 0);
	s = screen(&f);
	cr_assert_str_eq(feasible_of(&s), "b,d,f,a,c,e");
	mg_screening_release(&s);
}

Test(decision, peak_memory_ranking_breaks_ties_by_ratio_then_delta)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	paired(&f, "high_peak", 9000, 0, 0.99, 0);
	paired(&f, "slow", 8000, 0, 0.80, 0);
	paired(&f, "fast_worse", 8000, 0, 0.90, 0.02);
	paired(&f, "fast_better", 8000, 0, 0.90, 0.01);
	s = screen(&f);
	cr_assert_str_eq(feasible_of(&s), "fast_better,fast_worse,slow,high_peak");
	mg_screening_release(&s);
}

Test(decision, unknown_values_sort_last)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	/* no baseline and no paired ratio/delta: unknown, and no check needs them */
	set_metric(add(&f, "no_ratio"), MG_M_PEAK, 8000);
	c = add(&f, "ratio_no_delta");
	set_metric(c, MG_M_PEAK, 8000);
	set_metric(c, MG_M_RATIO, 0.5);
	paired(&f, "all_known", 8000, 0, 0.5, 0.1);
	s = screen(&f);
	cr_assert_not(eval_of(&s, "no_ratio")->known[MG_M_RATIO]);
	cr_assert_str_eq(feasible_of(&s), "all_known,ratio_no_delta,no_ratio");
	mg_screening_release(&s);
}

Test(decision, throughput_ranking_puts_ratio_first_and_unknown_last)
{
	fixture f;
	mg_screening s;
	mg_candidate *c;

	fx_default(&f);
	f.rules.rank_by = MG_RANK_THROUGHPUT;
	measured(&f, "baseline", 9000, 2.0, 10.0);
	measured(&f, "low_peak_slow", 6000, 1.0, 10.0);
	measured(&f, "fast", 8500, 1.8, 10.0);
	measured(&f, "fast_low_peak", 8000, 1.8, 10.0);
	c = add(&f, "no_samples");   /* its ratio cannot be derived */
	set_metric(c, MG_M_PEAK, 1000);
	s = screen(&f);
	cr_assert_not(s.needs_missing_baseline);
	cr_assert_str_eq(feasible_of(&s),
			 "baseline,fast_low_peak,fast,low_peak_slow,no_samples");
	mg_screening_release(&s);
}

Test(decision, throughput_ranking_without_a_baseline_rejects_as_baseline_missing)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	f.rules.rank_by = MG_RANK_THROUGHPUT;
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	d = decide(&f);
	expect_decision(d, "reject", "baseline_missing_or_invalid",
			"rerun_baseline_before_comparing_candidates", NULL);
	mg_decision_free(d);

	/* paired ratios need no baseline */
	f.ev.candidate_count = 0;
	paired(&f, "checkpoint", 8000, 100, 0.9, 0);
	d = decide(&f);
	cr_assert_str_eq(mg_verdict_name(d->verdict), "accept");
	mg_decision_free(d);
}

/* ---- evidence issues ---- */

Test(decision, pre_issues_are_copied_in_order)
{
	fixture f;
	mg_decision *d;
	size_t i;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	for (i = 0; i <= MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH; i++)
		f.pre[i] = true;
	f.pre[MG_ISSUE_WORKLOAD_MISMATCH] = true;   /* not a pre-issue: ignored */
	d = decide(&f);
	cr_assert_str_eq(issues_of(d),
			 "report_hash_mismatch,schema_version_mismatch,semantic_id_mismatch,"
			 "approved_result_missing,approved_result_hash_mismatch");
	expect_decision(d, "reject", "evidence_not_applicable",
			"rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);
}

Test(decision, measured_commit_issues_are_copied_and_stale_evidence_is_measured_again)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.pre[MG_ISSUE_MEASURED_COMMIT_MISSING] = true;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "measured_commit_missing");
	expect_decision(d, "reject", "evidence_not_applicable",
			"rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);
	f.pre[MG_ISSUE_MEASURED_COMMIT_MISSING] = false;
	f.pre[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = true;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "measured_commit_unknown");
	expect_decision(d, "reject", "evidence_not_applicable", "fetch_measured_commit", NULL);
	mg_decision_free(d);
	f.pre[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = false;
	f.pre[MG_ISSUE_EVIDENCE_STALE] = true;
	f.pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;   /* stale wins the next action */
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "approved_result_missing,evidence_stale");
	expect_decision(d, "reject", "evidence_not_applicable", "measure_again", NULL);
	mg_decision_free(d);
}

Test(decision, no_pre_issues_may_be_null)
{
	fixture f;
	mg_decision *d = NULL;
	mg_error err;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 0, &err), 0);
	cr_assert(d->applicable);
	cr_assert_str_eq(d->best, "a");
	mg_decision_free(d);
}

Test(decision, handoff_status_other_than_ready_is_not_ready)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.ev.handoff = true;
	f.ev.eligible_present = true;
	f.ev.eligible = f.eligible;
	f.eligible[0] = "a";
	f.ev.eligible_count = 1;
	f.ev.handoff_status = str_value("draft");
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "handoff_not_ready");
	mg_decision_free(d);
	f.ev.handoff_status = num_value(1);
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "handoff_not_ready");
	mg_decision_free(d);
	f.ev.handoff_status.kind = MG_VALUE_ABSENT;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "");
	mg_decision_free(d);
}

Test(decision, missing_workload_and_hardware_are_their_own_issues)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.ev.identity[MG_ID_WORKLOAD].kind = MG_VALUE_ABSENT;
	f.ev.identity[MG_ID_HARDWARE].kind = MG_VALUE_ABSENT;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "workload_missing,hardware_missing");
	mg_decision_free(d);
}

Test(decision, different_workload_and_hardware_mismatch_exactly)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.ev.identity[MG_ID_WORKLOAD] = str_value("train-b2-s1024 ");
	f.ev.identity[MG_ID_HARDWARE] = str_value("GPU-A");
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "workload_mismatch,hardware_mismatch");
	mg_decision_free(d);
}

Test(decision, optional_pins_mismatch_when_absent_or_different)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.rules.pin[MG_ID_MODEL] = str_value("Qwen/Qwen2.5-0.5B-Instruct");
	f.rules.pin[MG_ID_DTYPE] = str_value("float32");
	f.rules.pin[MG_ID_AMP_DTYPE] = str_value("torch.bfloat16");
	f.rules.pin[MG_ID_BATCH_SIZE] = num_value(1);
	f.rules.pin[MG_ID_SEQ_LEN] = num_value(1024);
	f.rules.pin[MG_ID_OPTIMIZER] = str_value("AdamW");
	/* model absent, dtype null, amp_dtype other, batch 1 as a string,
	 * seq_len another number, optimizer matching */
	f.ev.identity[MG_ID_AMP_DTYPE] = str_value("torch.float16");
	f.ev.identity[MG_ID_BATCH_SIZE] = str_value("1");
	f.ev.identity[MG_ID_SEQ_LEN] = num_value(768);
	f.ev.identity[MG_ID_OPTIMIZER] = str_value("AdamW");
	d = decide(&f);
	cr_assert_str_eq(issues_of(d),
			 "model_mismatch,dtype_mismatch,amp_dtype_mismatch,"
			 "batch_size_mismatch,seq_len_mismatch");
	mg_decision_free(d);
}

Test(decision, a_different_optimizer_is_a_mismatch)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.rules.pin[MG_ID_OPTIMIZER] = str_value("AdamW");
	f.ev.identity[MG_ID_OPTIMIZER] = str_value("SGD");
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "optimizer_mismatch");
	mg_decision_free(d);
}

Test(decision, matching_optional_pins_and_unpinned_fields_raise_nothing)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.rules.pin[MG_ID_MODEL] = str_value("m");
	f.ev.identity[MG_ID_MODEL] = str_value("m");
	f.rules.pin[MG_ID_SEQ_LEN] = num_value(1024);
	f.ev.identity[MG_ID_SEQ_LEN] = num_value(1024.0);
	f.ev.identity[MG_ID_DTYPE] = str_value("float32");   /* not pinned */
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "");
	cr_assert(d->applicable);
	mg_decision_free(d);
}

Test(decision, handoff_without_eligible_names_is_an_issue)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1);
	f.ev.handoff = true;
	f.ev.handoff_status = str_value("ready_for_budget_review");
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "eligible_candidates_missing");
	mg_decision_free(d);
}

Test(decision, no_candidates_is_an_issue)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "candidates_missing");
	cr_assert_eq(d->base.count, 0);
	mg_decision_free(d);
	f.ev.candidates_present = false;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "candidates_missing");
	mg_decision_free(d);
}

Test(decision, aggregate_outside_runs_is_raised_once)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "a", 5000, 1, 1)->aggregate_outside_runs = true;
	measured(&f, "b", 5000, 1, 1)->aggregate_outside_runs = true;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d), "aggregate_outside_runs");
	expect_decision(d, "reject", "evidence_not_applicable",
			"rebuild_same_workload_evidence", NULL);
	cr_assert_str_eq(feasible_of(&d->base), "a,b");
	cr_assert_str_eq(d->best, "a");
	mg_decision_free(d);
}

/* ---- the base decision ---- */

Test(decision, missing_baseline_skips_derived_checks_and_rejects)
{
	fixture f;
	mg_decision *d;
	const mg_evaluation *e;

	fx_default(&f);
	base_t(&f, MG_MIN_MEMORY_SAVING_MB, 512);
	measured(&f, "checkpoint", 12000, 1.5, 10.0);
	stricter(&f, MG_MEMORY_CAP_MB, 8000);
	d = decide(&f);
	expect_decision(d, "reject", "baseline_missing_or_invalid",
			"rerun_baseline_before_comparing_candidates", NULL);
	cr_assert(d->base.needs_missing_baseline);
	cr_assert_not(d->base.baseline_measured);
	e = eval_of(&d->base, "checkpoint");
	cr_assert_not(e->known[MG_M_SAVING]);
	cr_assert_str_eq(reasons_of(e->reasons), "memory_over_budget");
	cr_assert_not(d->sensitivity_evaluated);
	cr_assert_eq(d->scenario_count, 0);
	mg_decision_free(d);
}

Test(decision, baseline_that_is_not_measured_cannot_give_derived_values)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MIN_THROUGHPUT_RATIO, 0.5);
	measured(&f, "baseline", 9000, 2.0, 10.0)->oom = true;
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	d = decide(&f);
	cr_assert_not(d->base.baseline_measured);
	cr_assert_str_eq(reasons_named(&d->base, "baseline"), "oom");
	cr_assert_not(eval_of(&d->base, "baseline")->known[MG_M_SAVING]);
	cr_assert_not(eval_of(&d->base, "checkpoint")->known[MG_M_RATIO]);
	cr_assert_str_eq(mg_outcome_name(d->reason), "baseline_missing_or_invalid");
	mg_decision_free(d);
}

Test(decision, baseline_with_zero_throughput_cannot_give_a_ratio)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MIN_THROUGHPUT_RATIO, 0.5);
	measured(&f, "baseline", 9000, 0.0, 10.0);
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	d = decide(&f);
	cr_assert(d->base.baseline_measured);
	cr_assert_str_eq(mg_outcome_name(d->reason), "baseline_missing_or_invalid");
	mg_decision_free(d);
}

Test(decision, relative_ceiling_without_a_baseline_rejects_as_baseline_missing)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	d = decide(&f);
	cr_assert_not(d->base.quality_ceiling_known);
	cr_assert_str_eq(mg_outcome_name(d->reason), "baseline_missing_or_invalid");
	mg_decision_free(d);
}

Test(decision, the_baseline_named_in_the_rules_is_the_reference)
{
	fixture f;
	mg_screening s;

	fx_default(&f);
	f.rules.baseline = "eager";
	base_t(&f, MG_MIN_MEMORY_SAVING_MB, 500);
	measured(&f, "baseline", 8500, 2.0, 10.0);
	measured(&f, "eager", 9000, 2.0, 10.0);
	s = screen(&f);
	cr_assert_eq(eval_of(&s, "baseline")->value[MG_M_SAVING], 500.0);
	cr_assert_eq(eval_of(&s, "eager")->value[MG_M_SAVING], 0.0);
	cr_assert_str_eq(reasons_named(&s, "eager"), "memory_saving_below_floor");
	cr_assert_str_eq(feasible_of(&s), "baseline");
	mg_screening_release(&s);
}

Test(decision, baseline_winning_is_tune_with_no_selection)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "baseline", 7000, 2.0, 10.0);
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	stricter(&f, MG_MEMORY_CAP_MB, 7500);
	d = decide(&f);
	expect_decision(d, "tune", "baseline_still_best_under_current_budget",
			"revisit_memory_strategy_mix", NULL);
	cr_assert_str_eq(d->best, "baseline");
	cr_assert(d->sensitivity_evaluated);
	cr_assert_eq(d->scenario_count, 1);
	cr_assert_str_eq(d->scenarios[0].best, "baseline");
	mg_decision_free(d);
}

static void near_miss_fixture(fixture *f)
{
	fx_default(f);
	base_t(f, MG_MEMORY_CAP_MB, 9000);
	base_t(f, MG_MIN_MEMORY_SAVING_MB, 1000);
	base_t(f, MG_MIN_THROUGHPUT_RATIO, 0.8);
	base_t(f, MG_MAX_QUALITY_DELTA, 0.05);
}

Test(decision, near_miss_on_quality_delta_comes_first)
{
	fixture f;
	mg_decision *d;

	near_miss_fixture(&f);
	paired(&f, "checkpoint", 8000, 500, 0.5, 0.1);
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"),
			 "memory_saving_below_floor,throughput_below_floor,quality_delta_over_limit");
	expect_decision(d, "tune", "compression_needs_quality_recovery",
			"adjust_checkpoint_scope_or_batch_plan", "checkpoint");
	mg_decision_free(d);
}

Test(decision, near_miss_on_saving_comes_before_throughput)
{
	fixture f;
	mg_decision *d;

	near_miss_fixture(&f);
	paired(&f, "checkpoint", 8000, 500, 0.5, 0.0);
	d = decide(&f);
	expect_decision(d, "tune", "memory_saving_below_meaningful_threshold",
			"test_larger_pressure_or_optimizer_compression", "checkpoint");
	mg_decision_free(d);
}

Test(decision, near_miss_on_throughput_alone)
{
	fixture f;
	mg_decision *d;

	near_miss_fixture(&f);
	paired(&f, "checkpoint", 8000, 1500, 0.5, 0.0);
	d = decide(&f);
	expect_decision(d, "tune", "throughput_loss_exceeds_budget",
			"reduce_compression_scope", "checkpoint");
	mg_decision_free(d);
}

Test(decision, near_miss_takes_the_first_by_rank_that_passes_hard_limits)
{
	fixture f;
	mg_decision *d;

	near_miss_fixture(&f);
	paired(&f, "hybrid", 8500, 1500, 0.5, 0.0);       /* throughput only */
	paired(&f, "offload", 5000, 4000, 0.5, 0.0)->oom = true;
	paired(&f, "checkpoint", 8000, 500, 0.9, 0.0);    /* saving only */
	paired(&f, "too_big", 9500, 0, 0.1, 1.0);         /* hard limit */
	d = decide(&f);
	expect_decision(d, "tune", "memory_saving_below_meaningful_threshold",
			"test_larger_pressure_or_optimizer_compression", "checkpoint");
	cr_assert_null(d->best);
	mg_decision_free(d);
}

Test(decision, near_miss_never_names_the_baseline)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MIN_MEMORY_SAVING_MB, 100);
	measured(&f, "baseline", 9000, 2.0, 10.0);
	measured(&f, "checkpoint", 11000, 2.0, 10.0);
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "baseline"), "memory_saving_below_floor");
	expect_decision(d, "reject", "no_candidate_meets_base_budget",
			"rework_strategy_or_budget", NULL);
	mg_decision_free(d);
}

/* ---- sensitivity ---- */

Test(decision, scenario_ids_and_grid_order_put_the_last_axis_fastest)
{
	static const double caps[] = { 9000, 9500 };
	static const double floors[] = { 1.0, 1.5, 2.0 };
	fixture f;
	mg_decision *d;
	size_t k;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 1, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	stricter(&f, MG_MIN_THROUGHPUT_RATIO, 0.5);
	axis(&f, MG_MEMORY_CAP_MB, caps, 2);
	axis(&f, MG_MIN_SAMPLES_PER_S, floors, 3);
	f.rules.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	set_metric(&f.cand[0], MG_M_SAMPLES, 5.0);
	d = decide(&f);
	cr_assert_eq(d->scenario_count, 8);
	cr_assert_str_eq(d->scenarios[0].id, "stricter[0]");
	cr_assert_str_eq(d->scenarios[1].id, "stricter[1]");
	for (k = 0; k < 6; k++) {
		const mg_scenario *sc = &d->scenarios[2 + k];
		char id[40];

		snprintf(id, sizeof(id), "grid[%zu]", k);
		cr_assert_str_eq(sc->id, id);
		cr_assert_eq(sc->overrides.value[MG_MEMORY_CAP_MB], caps[k / 3]);
		cr_assert_eq(sc->overrides.value[MG_MIN_SAMPLES_PER_S], floors[k % 3]);
		cr_assert(sc->overrides.set[MG_MEMORY_CAP_MB] && sc->overrides.set[MG_MIN_SAMPLES_PER_S]);
		cr_assert_not(sc->overrides.set[MG_MIN_THROUGHPUT_RATIO]);
		cr_assert_eq(sc->budget.value[MG_MIN_SAMPLES_PER_S], floors[k % 3]);
	}
	/* stricter[1] keeps the base cap and adds its own ratio floor */
	cr_assert_eq(d->scenarios[1].budget.value[MG_MEMORY_CAP_MB], 10000);
	cr_assert(d->scenarios[1].budget.set[MG_MIN_THROUGHPUT_RATIO]);
	cr_assert_not(d->scenarios[1].overrides.set[MG_MEMORY_CAP_MB]);
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	mg_decision_free(d);
}

Test(decision, a_scenario_quality_ceiling_replaces_both_base_ceilings)
{
	fixture f;
	mg_decision *d;
	const mg_scenario *abs_sc, *rel_sc;

	fx_default(&f);
	base_t(&f, MG_MAX_EVAL_LOSS, 10.2);
	base_t(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.01);   /* 10.1: the lower */
	measured(&f, "baseline", 9000, 2.0, 10.0);
	measured(&f, "checkpoint", 8000, 2.0, 10.15);
	stricter(&f, MG_MAX_EVAL_LOSS, 10.3);           /* looser than the base */
	stricter(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.001); /* 10.01 */
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"), "quality_over_floor");
	cr_assert_str_eq(d->best, "baseline");
	abs_sc = &d->scenarios[0];
	cr_assert_not(abs_sc->budget.set[MG_MAX_RELATIVE_EVAL_LOSS]);
	cr_assert_eq(abs_sc->budget.value[MG_MAX_EVAL_LOSS], 10.3);
	cr_assert_eq(sc_screen(&f, d, 0)->quality_ceiling, 10.3);
	cr_assert_str_eq(abs_sc->best, "checkpoint");
	rel_sc = &d->scenarios[1];
	cr_assert_not(rel_sc->budget.set[MG_MAX_EVAL_LOSS]);
	cr_assert_eq(sc_screen(&f, d, 1)->quality_ceiling, 10.0 * (1.0 + 0.001));
	cr_assert_str_eq(feasible_of(sc_screen(&f, d, 1)), "baseline");
	mg_decision_free(d);
}

Test(decision, a_scenario_without_quality_overrides_keeps_both_ceilings)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MAX_EVAL_LOSS, 10.2);
	base_t(&f, MG_MAX_RELATIVE_EVAL_LOSS, 0.01);
	measured(&f, "baseline", 9000, 2.0, 10.0);
	stricter(&f, MG_MEMORY_CAP_MB, 9500);
	d = decide(&f);
	cr_assert(d->scenarios[0].budget.set[MG_MAX_EVAL_LOSS]);
	cr_assert(d->scenarios[0].budget.set[MG_MAX_RELATIVE_EVAL_LOSS]);
	cr_assert_eq(sc_screen(&f, d, 0)->quality_ceiling_from, MG_MAX_RELATIVE_EVAL_LOSS);
	mg_decision_free(d);
}

Test(decision, a_scenario_makes_candidates_needing_a_missing_baseline_invalid)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	measured(&f, "checkpoint", 8000, 1.5, 10.0);
	stricter(&f, MG_MIN_MEMORY_SAVING_MB, 100);
	d = decide(&f);
	cr_assert_str_eq(status_named(sc_screen(&f, d, 0), "checkpoint"), "invalid");
	cr_assert_str_eq(reasons_named(sc_screen(&f, d, 0), "checkpoint"),
			 "missing_or_non_numeric_metric");
	cr_assert_null(d->scenarios[0].best);
	expect_decision(d, "tune", "selection_is_threshold_sensitive",
			"collect_boundary_evidence", "checkpoint");
	mg_decision_free(d);
}

Test(decision, scenarios_are_recorded_but_do_not_change_a_base_reject)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	base_t(&f, MG_MEMORY_CAP_MB, 5000);
	paired(&f, "checkpoint", 8000, 0, 1, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 9000);   /* looser: would admit it */
	d = decide(&f);
	expect_decision(d, "reject", "no_candidate_meets_base_budget",
			"rework_strategy_or_budget", NULL);
	cr_assert(d->sensitivity_evaluated);
	cr_assert_str_eq(d->scenarios[0].best, "checkpoint");
	mg_decision_free(d);
}

Test(decision, stability_counts_distinct_winners_and_feasible_lists)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	paired(&f, "offload", 8500, 0, 0.6, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 9000);         /* checkpoint,offload */
	stricter(&f, MG_MIN_THROUGHPUT_RATIO, 0.7);   /* checkpoint */
	d = decide(&f);
	cr_assert_str_eq(feasible_of(sc_screen(&f, d, 0)), "checkpoint,offload");
	cr_assert_str_eq(feasible_of(sc_screen(&f, d, 1)), "checkpoint");
	cr_assert(d->best_candidate_stable);
	cr_assert_not(d->feasible_set_stable);
	cr_assert_str_eq(d->interpretation, "sensitive_to_thresholds");
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	mg_decision_free(d);

	stricter(&f, MG_MEMORY_CAP_MB, 7000);          /* none */
	d = decide(&f);
	cr_assert_not(d->best_candidate_stable);
	cr_assert_str_eq(d->interpretation, "sensitive_to_thresholds");
	cr_assert_str_eq(mg_outcome_name(d->reason), "selection_is_threshold_sensitive");
	mg_decision_free(d);
}

Test(decision, stability_is_stable_when_every_scenario_agrees)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	paired(&f, "offload", 8500, 0, 0.6, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 9000);
	stricter(&f, MG_MEMORY_CAP_MB, 8800);
	d = decide(&f);
	cr_assert(d->best_candidate_stable);
	cr_assert(d->feasible_set_stable);
	cr_assert(d->stability_tested);
	cr_assert_str_eq(d->interpretation, "stable");
	mg_decision_free(d);
}

Test(decision, stability_with_only_none_winners_is_stable)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 7000);
	stricter(&f, MG_MEMORY_CAP_MB, 6000);
	d = decide(&f);
	cr_assert(d->best_candidate_stable);
	cr_assert(d->feasible_set_stable);
	cr_assert_str_eq(d->interpretation, "stable");
	cr_assert_str_eq(mg_outcome_name(d->reason), "selection_is_threshold_sensitive");
	mg_decision_free(d);
}

Test(decision, no_scenarios_accepts_without_testing_stability)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	d = decide(&f);
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	cr_assert_not(d->stability_tested);
	cr_assert(d->sensitivity_evaluated);
	cr_assert_eq(d->scenario_count, 0);
	cr_assert(d->best_candidate_stable && d->feasible_set_stable);
	mg_decision_free(d);
}

Test(decision, too_many_scenarios_is_an_error_before_evaluating)
{
	static const double four[] = { 1, 2, 3, 4 };
	fixture f;
	mg_decision *d = NULL;
	mg_error err;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	stricter(&f, MG_MEMORY_CAP_MB, 9000);
	axis(&f, MG_MIN_SAMPLES_PER_S, four, 4);
	axis(&f, MG_MAX_EVAL_LOSS, four, 4);
	axis(&f, MG_MAX_QUALITY_DELTA, four, 4);
	mg_error_clear(&err);
	cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 64, &err), MG_ERROR);
	cr_assert_null(d);
	cr_assert_str_eq(err.message, "sensitivity has 65 scenarios, more than the limit of 64");
	cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 65, &err), 0);
	cr_assert_eq(d->scenario_count, 65);
	mg_decision_free(d);
}

Test(decision, the_default_scenario_limit_is_4096)
{
	double values[64];
	fixture f;
	mg_decision *d = NULL;
	mg_error err;
	size_t i;

	for (i = 0; i < 64; i++)
		values[i] = 8000 + (double)i;
	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	axis(&f, MG_MEMORY_CAP_MB, values, 64);
	axis(&f, MG_MIN_MEMORY_SAVING_MB, values, 64);
	cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 0, &err), 0);
	cr_assert_eq(d->scenario_count, 4096);
	mg_decision_free(d);
	d = NULL;
	stricter(&f, MG_MEMORY_CAP_MB, 9000);
	cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 0, &err), MG_ERROR);
	cr_assert_str_eq(err.message, "sensitivity has 4097 scenarios, more than the limit of 4096");
}

/* Found with fuzz/fuzz_decide: 1024 scenarios of 1024 candidates with long
 * names (a 300 KB policy and report) kept a million evaluations and
 * rendered a 260 MB record with 1 GB of memory.  The product of scenarios
 * and candidates is now limited up front. */
static mg_candidate *many_candidates(fixture *f, char **pool, size_t n)
{
	enum { NAME = 24 };
	mg_candidate *cands = mg_xcalloc(n, sizeof(*cands));
	size_t i;

	*pool = mg_xcalloc(n, NAME);
	for (i = 0; i < n; i++) {
		cands[i].name = *pool + i * NAME;
		snprintf(cands[i].name, NAME, "c%zu", i);
		cands[i].status = "ok";
		cands[i].repeats = 1;
		set_metric(&cands[i], MG_M_PEAK, 1000 + (double)i);
	}
	f->ev.candidates = cands;
	f->ev.candidate_count = n;
	return cands;
}

Test(decision, scenarios_times_candidates_is_limited)
{
	double values[64];
	fixture f;
	mg_candidate *cands;
	mg_decision *d = NULL;
	mg_error err;
	char *pool;
	size_t i;

	for (i = 0; i < 64; i++)
		values[i] = 8000 + (double)i;
	fx_default(&f);
	axis(&f, MG_MEMORY_CAP_MB, values, 64);
	axis(&f, MG_MIN_MEMORY_SAVING_MB, values, 64);
	cands = many_candidates(&f, &pool, 16);
	d = decide(&f);
	cr_expect_eq(d->scenario_count * d->base.count, 65536);
	mg_decision_free(d);
	d = NULL;
	/* the product is checked before any candidate is looked at: a count
	 * past the limit needs no candidates behind it */
	f.ev.candidate_count = (size_t)(MG_DECISION_MAX_EVALUATIONS / 4096) + 1;
	mg_error_clear(&err);
	cr_expect_eq(mg_decide(&d, &f.rules, &f.ev, NULL, NULL, 0, &err), MG_ERROR);
	cr_expect_null(d);
	cr_expect_str_eq(err.message, "sensitivity has 4096 scenarios of 524289 candidates "
			 "(2147487744 evaluations), more than the limit of 2147483648 evaluations "
			 "(raise it with make EXTRA_CFLAGS=-DMG_DECISION_MAX_EVALUATIONS=N)");
	free(cands);
	free(pool);
}

Test(decision, an_empty_grid_axis_has_no_cells)
{
	fixture f;
	mg_decision *d;

	fx_default(&f);
	paired(&f, "checkpoint", 8000, 0, 0.9, 0);
	axis(&f, MG_MEMORY_CAP_MB, NULL, 0);
	d = decide(&f);
	cr_assert_eq(d->scenario_count, 0);
	mg_decision_free(d);
}

/* ---- name tables ---- */

Test(decision, threshold_names_round_trip)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		cr_assert_eq(mg_threshold_from_name(mg_threshold_name((enum mg_threshold)t)), t);
	cr_assert_str_eq(mg_threshold_name(MG_MAX_RELATIVE_EVAL_LOSS), "max_relative_eval_loss");
	cr_assert_eq(mg_threshold_from_name("memory_cap"), -1);
	cr_assert_eq(mg_threshold_from_name(NULL), -1);
	cr_assert_null(mg_threshold_name(MG_THRESHOLD_COUNT));
}

Test(decision, verdict_names_round_trip)
{
	cr_assert_str_eq(mg_verdict_name(MG_ACCEPT), "accept");
	cr_assert_str_eq(mg_verdict_name(MG_TUNE), "tune");
	cr_assert_str_eq(mg_verdict_name(MG_REJECT), "reject");
	cr_assert_eq(mg_verdict_from_name("tune"), MG_TUNE);
	cr_assert_eq(mg_verdict_from_name("Tune"), -1);
	cr_assert_null(mg_verdict_name(MG_VERDICT_COUNT));
}

Test(decision, other_names_follow_the_spec)
{
	cr_assert_str_eq(mg_ident_name(MG_ID_WORKLOAD), "workload_id");
	cr_assert_str_eq(mg_ident_name(MG_ID_AMP_DTYPE), "amp_dtype");
	cr_assert_str_eq(mg_ident_name(MG_ID_OPTIMIZER), "optimizer");
	cr_assert_str_eq(mg_metric_name(MG_M_PEAK), "peak_memory_mb");
	cr_assert_str_eq(mg_metric_name(MG_M_DELTA), "quality_delta");
	cr_assert_str_eq(mg_issue_name(MG_ISSUE_AGGREGATE_OUTSIDE_RUNS), "aggregate_outside_runs");
	cr_assert_str_eq(mg_status_name(MG_STATUS_EXCLUDED), "excluded");
	cr_assert_str_eq(mg_reason_name(MG_R_QUALITY_DELTA_OVER_LIMIT), "quality_delta_over_limit");
	cr_assert_null(mg_reason_name(MG_REASON_COUNT));
	cr_assert_null(mg_issue_name(MG_ISSUE_COUNT));
	cr_assert_null(mg_metric_name(MG_METRIC_COUNT));
	cr_assert_null(mg_ident_name(MG_ID_COUNT));
}

Test(decision, reason_thresholds_point_at_step7_thresholds_only)
{
	cr_assert_eq(mg_reason_threshold(MG_R_INSUFFICIENT_REPEATS), -1);
	cr_assert_eq(mg_reason_threshold(MG_R_MISSING_OR_DUPLICATE_NAME), -1);
	cr_assert_eq(mg_reason_threshold(MG_R_MEMORY_OVER_BUDGET), MG_MEMORY_CAP_MB);
	cr_assert_eq(mg_reason_threshold(MG_R_SAMPLES_PER_S_BELOW_FLOOR), MG_MIN_SAMPLES_PER_S);
	cr_assert_eq(mg_reason_threshold(MG_R_QUALITY_OVER_FLOOR), MG_MAX_EVAL_LOSS);
	cr_assert_eq(mg_reason_threshold(MG_R_MEMORY_SAVING_BELOW_FLOOR), MG_MIN_MEMORY_SAVING_MB);
	cr_assert_eq(mg_reason_threshold(MG_R_THROUGHPUT_BELOW_FLOOR), MG_MIN_THROUGHPUT_RATIO);
	cr_assert_eq(mg_reason_threshold(MG_R_QUALITY_DELTA_OVER_LIMIT), MG_MAX_QUALITY_DELTA);
}

Test(decision, free_accepts_null)
{
	mg_decision_free(NULL);
	mg_screening_release(NULL);
}

/* ---- the codes table and waivers ---- */

Test(decision, code_table_kinds_follow_the_reasons_table)
{
	int r;

	for (r = 0; r < MG_REASON_COUNT; r++) {
		const mg_code *c = mg_reason_code((enum mg_reason)r);
		enum mg_kind want = r <= MG_R_INSUFFICIENT_REPEATS ?
			(r == MG_R_EVIDENCE_NOT_COMPARABLE || r == MG_R_NOT_IN_ELIGIBLE_CANDIDATES ?
			 MG_KIND_SOFT : MG_KIND_EVIDENCE) :
			r <= MG_R_QUALITY_OVER_FLOOR ? MG_KIND_HARD : MG_KIND_TARGET;

		cr_assert_str_eq(c->name, mg_reason_name((enum mg_reason)r));
		cr_assert_eq(c->kind, want, "%s", c->name);
		cr_assert_eq(mg_reason_from_name(c->name), r);
		cr_assert_eq(mg_reason_waivable((enum mg_reason)r),
			     r >= MG_R_MEMORY_OVER_BUDGET && r <= MG_R_CHECK_LAST);
		cr_assert(c->summary[0] && c->help[0]);
	}
	for (r = 0; r < MG_ISSUE_COUNT; r++)
		cr_assert_eq(mg_issue_code((enum mg_issue)r)->kind, MG_KIND_EVIDENCE);
	cr_assert_eq(mg_code_find("waiver_applied")->kind, MG_KIND_NOTICE);
	cr_assert_eq(mg_code_find("decision_drift")->kind, MG_KIND_EVIDENCE);
	cr_assert_null(mg_code_find("no_such_code"));
	cr_assert_eq(mg_reason_from_name("evidence_not_applicable"), -1);
}

Test(decision, every_code_name_is_unique)
{
	size_t n, i, j;
	const mg_code *c = mg_codes(&n);

	cr_assert_eq(n, MG_REASON_COUNT + MG_ISSUE_COUNT + 15);   /* + margin_within_measurement_noise, waiver_expiring,
								     policy_change_fails_its_evidence,
								     regression_not_compared, waiver_spent,
								     changed_within_noise */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			cr_assert_str_neq(c[i].name, c[j].name);
}

/* Code names its codes by enum mg_code_id (a misspelt one does not
 * compile): each id is its row's index, and a reason's or an issue's code
 * is the row of the same name. */
Test(decision, every_code_id_is_its_row)
{
	size_t n, i;
	const mg_code *c = mg_codes(&n);
	int r;

	cr_assert_eq(n, MG_CODE_COUNT);
	for (i = 0; i < n; i++) {
		cr_assert_eq(mg_code_of((enum mg_code_id)i), &c[i], "code %zu", i);
		cr_assert(c[i].name && c[i].summary && c[i].help, "code %zu has its row", i);
	}
	cr_assert_str_eq(mg_code_of(MG_CODE_MISSING_OR_DUPLICATE_NAME)->name, "missing_or_duplicate_name");
	cr_assert_str_eq(mg_code_of(MG_CODE_WARNING)->name, "warning");
	cr_assert_str_eq(mg_code_of(MG_CODE_WAIVER_EXPIRING)->name, "waiver_expiring");
	cr_assert_str_eq(mg_code_of(MG_CODE_REGRESSION_NOT_COMPARED)->name, "regression_not_compared");
	cr_assert_str_eq(mg_code_of(MG_CODE_APPROVAL_OF_OTHER_EVIDENCE)->name,
			 "approval_of_other_evidence");
	cr_assert_eq(mg_reason_code(MG_R_MEMORY_OVER_BUDGET), mg_code_of(MG_CODE_MEMORY_OVER_BUDGET));
	cr_assert_eq(mg_reason_code(MG_R_EVAL_LOSS_REGRESSED), mg_code_of(MG_CODE_EVAL_LOSS_REGRESSED));
	cr_assert_eq(mg_issue_code(MG_ISSUE_REPORT_HASH_MISMATCH),
		     mg_code_of(MG_CODE_REPORT_HASH_MISMATCH));
	for (r = 0; r < MG_REASON_COUNT; r++)
		cr_assert_eq(mg_code_reason(mg_reason_code((enum mg_reason)r)), r);
	cr_assert_eq(mg_code_reason(mg_code_of(MG_CODE_WARNING)), -1);
	cr_assert_eq(mg_code_reason(mg_issue_code(MG_ISSUE_EVIDENCE_STALE)), -1);
	cr_assert_eq(mg_code_reason(NULL), -1);
}

Test(decision, waived_reason_no_longer_counts_and_candidate_becomes_feasible)
{
	fixture f;
	mg_decision *d;
	mg_waiver w[] = { { "offload", MG_R_THROUGHPUT_BELOW_FLOOR, 0 } };

	seed_fixture(&f);
	f.rules.waivers = w;
	f.rules.waiver_count = 1;
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "offload"), "");
	cr_assert_str_eq(status_named(&d->base, "offload"), "feasible");
	cr_assert_eq(d->base.evaluations[1].waived, 1u << MG_R_THROUGHPUT_BELOW_FLOOR);
	cr_assert_eq(d->waiver_count, 1);
	cr_assert(d->waiver_used[0]);
	mg_decision_free(d);
}

Test(decision, waiver_applies_in_sensitivity_scenarios)
{
	fixture f;
	mg_decision *d;
	mg_waiver w[] = { { "checkpoint", MG_R_MEMORY_OVER_BUDGET, 0 } };

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 7000);   /* every candidate is over it */
	d = decide(&f);
	expect_decision(d, "tune", "selection_is_threshold_sensitive",
			"collect_boundary_evidence", "checkpoint");
	mg_decision_free(d);
	f.rules.waivers = w;
	f.rules.waiver_count = 1;
	d = decide(&f);
	cr_assert_str_eq(d->scenarios[0].best, "checkpoint");
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	cr_assert_eq(d->base.evaluations[0].waived, 0);   /* not needed in the base */
	cr_assert(d->waiver_used[0]);
	mg_decision_free(d);
}

Test(decision, waiver_of_unknown_candidate_or_unfailed_reason_is_unused)
{
	fixture f;
	mg_decision *d;
	mg_waiver w[] = {
		{ "ghost", MG_R_MEMORY_OVER_BUDGET, 0 },
		{ "checkpoint", MG_R_QUALITY_DELTA_OVER_LIMIT, 0 },
	};

	seed_fixture(&f);
	f.rules.waivers = w;
	f.rules.waiver_count = 2;
	d = decide(&f);
	cr_assert_not(d->waiver_used[0]);
	cr_assert_not(d->waiver_used[1]);
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	mg_decision_free(d);
}

Test(decision, waiver_does_not_reach_steps_1_to_6)
{
	fixture f;
	mg_decision *d;
	mg_waiver w[] = { { "offload", MG_R_THROUGHPUT_BELOW_FLOOR, 0 } };

	seed_fixture(&f);
	f.cand[1].oom = true;
	f.rules.waivers = w;
	f.rules.waiver_count = 1;
	d = decide(&f);
	cr_assert_str_eq(status_named(&d->base, "offload"), "oom");
	cr_assert_str_eq(reasons_named(&d->base, "offload"), "oom");
	cr_assert_not(d->waiver_used[0]);
	mg_decision_free(d);
}

/* ---- sensitivity at scale: the bit sets against full screening ---- */

static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005u + 1442695040888963407u;
	return (unsigned)((rnd_state >> 33) % n);
}

/* A value near `center`: often exactly one of a few, so that ties and
 * thresholds met with equality are common. */
static double near_value(double center)
{
	static const double steps[] = { -0.2, -0.1, 0, 0, 0.05, 0.1, 0.3 };

	return center * (1 + steps[rnd(7)]);
}

/* The thresholds a budget may set: all but the regression's (mg_regression). */
#define BUDGET_THRESHOLDS MG_MAX_PEAK_INCREASE_MB

static void random_threshold(mg_budget *b, enum mg_threshold t)
{
	static const double center[MG_THRESHOLD_COUNT] = { 9000, 1.5, 500, 0.8, 10.5, 0.02, 0.2 };

	set_t(b, t, t == MG_MIN_THROUGHPUT_RATIO ? (double)rnd(11) / 10 : near_value(center[t]));
}

static void random_fixture(fixture *f)
{
	static const char *const names[] = { "baseline", "a", "b", "c", "d", "e", "f", "g" };
	static const double center[MG_METRIC_COUNT] = { 9000, 1.5, 10.5, 500, 0.8, 0.2 };
	unsigned n = 1 + rnd(MAX_CANDS), i, m, t, k, a;

	fx_default(f);
	f->rules.rank_by = rnd(3) ? MG_RANK_PEAK_MEMORY : MG_RANK_THROUGHPUT;
	f->rules.min_repeats = 1 + (int)rnd(2);
	f->rules.budget.set[MG_MEMORY_CAP_MB] = false;
	for (t = 0; t < BUDGET_THRESHOLDS; t++)
		if (rnd(3) == 0)
			random_threshold(&f->rules.budget, (enum mg_threshold)t);
	for (i = 0; i < n; i++) {
		mg_candidate *c = add(f, names[rnd(8)]);

		c->status = rnd(8) ? "ok" : rnd(2) ? "comparable" : "failed";
		c->oom = rnd(20) == 0;
		c->repeats = 1 + (int)rnd(2);
		for (m = 0; m < MG_METRIC_COUNT; m++) {
			unsigned kind = rnd(m < MG_M_SAVING ? 12 : 4);

			if (kind == 0)
				bad_metric(c, (enum mg_metric_id)m);
			else if (kind < (m < MG_M_SAVING ? 11u : 2u))
				set_metric(c, (enum mg_metric_id)m, near_value(center[m]));
		}
	}
	if (rnd(6) == 0) {
		f->ev.eligible_present = true;
		for (i = 0; i < 3; i++)
			f->eligible[f->ev.eligible_count++] = (char *)names[rnd(8)];
		f->ev.eligible = f->eligible;
	}
	for (k = rnd(5); k > 0; k--) {
		mg_budget *b = &f->stricter[f->rules.stricter_count++];

		memset(b, 0, sizeof(*b));
		for (t = 0; t < BUDGET_THRESHOLDS; t++)
			if (rnd(3) == 0)
				random_threshold(b, (enum mg_threshold)t);
	}
	for (a = rnd(4); a > 0; a--) {
		double values[4];
		mg_budget one = { 0 };
		unsigned count = 1 + rnd(4), v;

		t = rnd(BUDGET_THRESHOLDS);
		for (v = 0; v < count; v++) {
			random_threshold(&one, (enum mg_threshold)t);
			values[v] = one.value[t];
		}
		axis(f, (enum mg_threshold)t, values, count);
	}
	for (k = rnd(7); k > 0 && k < 4; k--) {
		mg_waiver *w = &f->waivers[f->rules.waiver_count++];

		w->candidate = rnd(4) && f->ev.candidate_count && f->ev.candidates[0].name ?
			       f->ev.candidates[rnd((unsigned)f->ev.candidate_count)].name :
			       names[rnd(8)];
		w->reason = (enum mg_reason)(MG_R_MEMORY_OVER_BUDGET +
					     (int)rnd(MG_R_CHECK_LAST + 1 - MG_R_MEMORY_OVER_BUDGET));
	}
	f->rules.waivers = f->waivers;
}

/* Did waiver w let its candidate (the first of its name) pass in s? */
static bool waiver_used_in(const mg_screening *s, const fixture *f, size_t w)
{
	size_t i;

	for (i = 0; i < f->ev.candidate_count; i++)
		if (f->ev.candidates[i].name && !strcmp(f->ev.candidates[i].name, f->waivers[w].candidate))
			return (s->evaluations[i].waived & (1u << f->waivers[w].reason)) != 0;
	return false;
}

Test(decision, scenario_bit_sets_match_screening_every_scenario_in_full)
{
	fixture f;
	mg_decision *d;
	mg_error err;
	size_t k, w, scenarios = 0, waived = 0;
	bool used[3];
	int round;

	for (round = 0; round < 3000; round++) {
		rnd_state = (uint64_t)round * 2654435761u + 1;
		random_fixture(&f);
		mg_error_clear(&err);
		cr_assert_eq(mg_decide(&d, &f.rules, &f.ev, f.pre, NULL, 0, &err), 0, "%s", err.message);
		for (w = 0; w < f.rules.waiver_count; w++)
			used[w] = waiver_used_in(&d->base, &f, w);
		for (k = 0; k < d->scenario_count; k++) {
			const mg_screening *full = sc_screen(&f, d, k);

			cr_assert_eq(d->scenarios[k].best ? 1 : 0, full->feasible_count ? 1 : 0);
			for (w = 0; w < f.rules.waiver_count; w++)
				used[w] |= waiver_used_in(full, &f, w);
			scenarios++;
		}
		for (w = 0; w < f.rules.waiver_count; w++) {
			cr_assert_eq(d->waiver_used[w], used[w], "round %d: waiver %zu", round, w);
			waived += used[w];
		}
		mg_decision_free(d);
	}
	sc_done();
	cr_assert_gt(scenarios, 3000);
	cr_assert_gt(waived, 50, "%zu waivers used", waived);
}

/* ---- the approved decision (--require-approved) ---- */

static mg_decision *decide_approved(fixture *f, const char *decision, const char *selected)
{
	mg_approved a = { decision, selected };
	mg_decision *d = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_decide(&d, &f->rules, &f->ev, f->pre, &a, 0, &err), 0, "%s", err.message);
	return d;
}

Test(decision, approved_decision_that_agrees_keeps_the_computed_one)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	d = decide_approved(&f, "accept", "checkpoint");
	expect_decision(d, "accept", "selection_stable_across_thresholds",
			"send_to_regression_acceptance", "checkpoint");
	cr_assert(d->approved_checked);
	cr_assert_not(d->drift);
	mg_decision_free(d);
}

Test(decision, approved_decision_that_differs_is_drift_with_the_computed_one_kept)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	d = decide_approved(&f, "accept", "offload");
	expect_decision(d, "reject", "decision_drift", "re_approve_or_restore_evidence", NULL);
	cr_assert(d->approved_checked && d->drift);
	cr_assert_eq(d->computed_verdict, MG_ACCEPT);
	cr_assert_str_eq(mg_outcome_name(d->computed_reason), "selection_stable_across_thresholds");
	cr_assert_str_eq(d->computed_selected, "checkpoint");
	mg_decision_free(d);

	d = decide_approved(&f, "tune", "checkpoint");
	cr_assert(d->drift, "the verdict differs");
	mg_decision_free(d);
}

Test(decision, approved_decision_is_not_compared_with_evidence_that_does_not_apply)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	f.rules.pin[MG_ID_WORKLOAD] = str_value("train-b4-s1024");
	d = decide_approved(&f, "accept", "checkpoint");
	expect_decision(d, "reject", "evidence_not_applicable", "rebuild_same_workload_evidence", NULL);
	cr_assert_not(d->approved_checked);
	cr_assert_not(d->drift);
	mg_decision_free(d);
}

Test(decision, approval_issues_alone_point_the_next_action_at_the_record)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	f.pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "record_and_pin_approved_result", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable",
			"restore_or_reapprove_approved_result", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);
}

Test(decision, approval_of_other_evidence_is_an_issue_that_points_at_approving_again)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	f.pre[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] = true;
	d = decide_approved(&f, "accept", "checkpoint");
	expect_decision(d, "reject", "evidence_not_applicable", "re_approve_or_restore_evidence",
			NULL);
	cr_assert(d->issue[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE]);
	cr_assert_not(d->approved_checked, "never 'as approved'");
	mg_decision_free(d);

	f.pre[MG_ISSUE_SIGNATURE_MISSING] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "sign_on_trusted_runner", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_SIGNATURE_MISSING] = false;
	f.pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);
}

/* An approval whose signature is not an approver's is refused: never "as
 * approved"; the next action is to approve again, signed. */
Test(decision, approval_unverified_is_an_issue_that_points_at_approving_again)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	stricter(&f, MG_MEMORY_CAP_MB, 8500);
	f.pre[MG_ISSUE_APPROVAL_UNVERIFIED] = true;
	d = decide_approved(&f, "tune", "checkpoint");
	expect_decision(d, "reject", "evidence_not_applicable", "re_approve_or_restore_evidence",
			NULL);
	cr_assert(d->issue[MG_ISSUE_APPROVAL_UNVERIFIED]);
	cr_assert_not(d->approved_checked, "never 'as approved'");
	mg_decision_free(d);

	f.pre[MG_ISSUE_SIGNER_UNKNOWN] = true;   /* the manifest's signer too: sign first */
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "sign_on_trusted_runner", NULL);
	mg_decision_free(d);
}

/* A measured commit the clone lacks (a squash-merged pull request's) is
 * fetched first, before a signature or an approval is made again; evidence
 * wrong otherwise is rebuilt, stale evidence measured again. */
Test(decision, an_unknown_measured_commit_is_fetched_unless_the_evidence_is_wrong_otherwise)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	f.pre[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = true;
	f.pre[MG_ISSUE_SIGNATURE_MISSING] = true;
	f.pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	d = decide(&f);
	cr_assert_str_eq(issues_of(d),
			 "approved_result_missing,measured_commit_unknown,signature_missing");
	expect_decision(d, "reject", "evidence_not_applicable", "fetch_measured_commit", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_REPORT_HASH_MISMATCH] = false;
	f.pre[MG_ISSUE_EVIDENCE_STALE] = true;
	d = decide(&f);
	expect_decision(d, "reject", "evidence_not_applicable", "measure_again", NULL);
	mg_decision_free(d);

	f.pre[MG_ISSUE_EVIDENCE_STALE] = false;
	f.rules.pin[MG_ID_WORKLOAD] = str_value("train-b4-s1024");
	d = decide(&f);
	cr_assert(d->issue[MG_ISSUE_WORKLOAD_MISMATCH]);
	expect_decision(d, "reject", "evidence_not_applicable", "rebuild_same_workload_evidence", NULL);
	mg_decision_free(d);
}

Test(decision, every_outcome_and_next_action_has_a_name)
{
	int i;

	for (i = 0; i < MG_OUTCOME_COUNT; i++)
		cr_assert_not_null(mg_outcome_name((enum mg_outcome)i), "outcome %d", i);
	for (i = 0; i < MG_NEXT_ACTION_COUNT; i++)
		cr_assert_not_null(mg_next_action_name((enum mg_next_action)i), "next action %d", i);
	cr_assert_null(mg_outcome_name(MG_OUTCOME_COUNT));
	cr_assert_null(mg_next_action_name(MG_NEXT_ACTION_COUNT));
}

/* ---- the tables ---- */

Test(decision, step_5_says_which_metric_is_missing)
{
	fixture f;
	mg_decision *d;

	seed_fixture(&f);
	bad_metric(&f.cand[0], MG_M_SAVING);
	f.cand[1].metric[MG_M_PEAK].state = MG_METRIC_ABSENT;
	d = decide(&f);
	cr_assert_str_eq(reasons_named(&d->base, "checkpoint"), "missing_or_non_numeric_metric");
	cr_assert_eq(eval_of(&d->base, "checkpoint")->missing_metric, MG_M_SAVING);
	cr_assert_eq(eval_of(&d->base, "offload")->missing_metric, MG_M_PEAK);
	mg_decision_free(d);

	seed_fixture(&f);
	d = decide(&f);
	cr_assert_eq(eval_of(&d->base, "checkpoint")->missing_metric, -1);
	mg_decision_free(d);
}

Test(decision, threshold_table_agrees_with_names_reasons_and_codes)
{
	size_t k;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = mg_threshold_def_of((enum mg_threshold)t);
		const mg_code *code = mg_reason_code(def->reason);

		cr_assert_eq(mg_threshold_from_name(def->key), t);
		cr_assert_eq(code->kind, def->hard ? MG_KIND_HARD : MG_KIND_TARGET,
			     "%s: its reason's kind", def->key);
		if (t >= BUDGET_THRESHOLDS) {
			/* a regression: its own section and reasons, compared with the base */
			cr_assert_str_eq(def->section, "regression");
			cr_assert_neq(def->vs_base, MG_VS_NONE, "%s", def->key);
			cr_assert(MG_REASON_IS_REGRESSION(def->reason), "%s", def->key);
			cr_assert_not(mg_reason_waivable(def->reason), "%s", def->key);
			continue;
		}
		cr_assert_eq(def->vs_base, MG_VS_NONE, "%s", def->key);
		cr_assert(mg_reason_waivable(def->reason), "%s", def->key);
		cr_assert(!strcmp(def->section, "budget") || !strcmp(def->section, "quality"));
	}
	cr_assert_null(mg_threshold_def_of(MG_THRESHOLD_COUNT));
	/* one check per step-7 reason, in reason order */
	for (k = 0; k < MG_CHECK_COUNT; k++) {
		cr_assert_eq(mg_check(k)->reason, (enum mg_reason)(MG_R_MEMORY_OVER_BUDGET + (int)k));
		cr_assert_eq(mg_reason_threshold(mg_check(k)->reason), (int)mg_check_threshold(mg_check(k)));
	}
}

/* evidence.noise's words, both ways, from the core's one table. */
Test(decision, noise_mode_names)
{
	cr_expect_str_eq(mg_noise_mode_name(MG_NOISE_WARN), "warn");
	cr_expect_str_eq(mg_noise_mode_name(MG_NOISE_TUNE), "tune");
	cr_expect_null(mg_noise_mode_name(MG_NOISE_MODE_COUNT));
	cr_expect_eq(mg_noise_mode_from_name("tune"), MG_NOISE_TUNE);
	cr_expect_eq(mg_noise_mode_from_name("warn"), MG_NOISE_WARN);
	cr_expect_eq(mg_noise_mode_from_name("Tune"), -1);
	cr_expect_eq(mg_noise_mode_from_name(NULL), -1);
}

/* How a value compares with a ceiling and a floor, failing or passing,
 * in ASCII and as the job summary's symbols. */
Test(decision, comparison_operators)
{
	const mg_threshold_def *cap = mg_threshold_def_of(MG_MEMORY_CAP_MB);
	const mg_threshold_def *floor = mg_threshold_def_of(MG_MIN_SAMPLES_PER_S);

	cr_expect_str_eq(mg_check_operator(cap, true, false), ">");
	cr_expect_str_eq(mg_check_operator(cap, false, false), "<=");
	cr_expect_str_eq(mg_check_operator(floor, true, false), "<");
	cr_expect_str_eq(mg_check_operator(floor, false, false), ">=");
	cr_expect_str_eq(mg_check_operator(cap, false, true), "\xe2\x89\xa4");
	cr_expect_str_eq(mg_check_operator(floor, false, true), "\xe2\x89\xa5");
	cr_expect_str_eq(mg_check_operator(cap, true, true), ">");
}

/* ---- regressions against the base (memgate(1), REGRESSIONS AND HISTORY) ---- */

/* head: baseline 12000 MB, checkpoint (winner) at `peak`, hybrid at
 * `hybrid`; base: the same with checkpoint at 8000 and hybrid at 9000;
 * regression.max_peak_increase_pct = pct. */
static void regress_fixture(fixture *head, fixture *base, double peak, double hybrid,
			    double pct)
{
	fx_default(head);
	fx_default(base);
	head->rules.budget.value[MG_MEMORY_CAP_MB] = 20000;
	measured(base, "baseline", 12000, 10, 2.0);
	measured(base, "checkpoint", 8000, 8, 2.0);
	measured(base, "hybrid", 9000, 9, 2.0);
	measured(head, "baseline", 12000, 10, 2.0);
	measured(head, "checkpoint", peak, 8, 2.0);
	measured(head, "hybrid", hybrid, 9, 2.0);
	head->rules.regression.limits.set[MG_MAX_PEAK_INCREASE_PCT] = true;
	head->rules.regression.limits.value[MG_MAX_PEAK_INCREASE_PCT] = pct;
	head->rules.regression.base = &base->ev;
	head->rules.regression.base_selected = "checkpoint";
}

static void set_runs(mg_candidate *c, enum mg_metric_id m, double lo, double hi)
{
	c->run_band[m] = true;
	c->run_min[m] = lo;
	c->run_max[m] = hi;
	c->repeats = 3;
}

/* Two regressions' lists agree entry by entry. */
static void expect_same_regressed(const mg_regressed *a, size_t an, const mg_regressed *b,
				  size_t bn)
{
	size_t i;

	cr_assert_eq(an, bn);
	for (i = 0; i < an; i++) {
		cr_expect_str_eq(a[i].name, b[i].name);
		cr_expect_eq(a[i].threshold, b[i].threshold);
		cr_expect(a[i].change == b[i].change && a[i].limit == b[i].limit);
		cr_expect(a[i].pct == b[i].pct || (a[i].pct != a[i].pct && b[i].pct != b[i].pct));
		cr_expect(a[i].p == b[i].p || (a[i].p != a[i].p && b[i].p != b[i].p));
		cr_expect_eq(a[i].waiver, b[i].waiver);
	}
}

/* The tipping-point search decides many budgets through one memo, which
 * keeps the regression's judgments from the first decision: each decision
 * through it is the one mg_decide makes, whatever the budget selects (the
 * regressed, within the noise, and a base candidate without a namesake). */
Test(decision, a_memo_keeps_the_regression_as_mg_decide_makes_it)
{
	static const double caps[] = { 20000, 8700, 8559, 12000, 20000, 9100, 7000 };
	fixture head, base;
	mg_decision__memo *memo;
	mg_decision *plain, *kept, *first;
	mg_error err;
	size_t i;

	regress_fixture(&head, &base, 8560, 9700, 5);   /* +7 %, +7.8 % */
	measured(&base, "offload", 9500, 7, 2.0);
	measured(&head, "offload", 10400, 7, 2.0);       /* +9.5 %, within its runs' noise */
	set_runs(&base.cand[3], MG_M_PEAK, 9000, 10500);
	set_runs(&head.cand[3], MG_M_PEAK, 9400, 11000);
	measured(&base, "gone", 9900, 7, 2.0);            /* no namesake now */
	head.rules.regression.covers = MG_COVERS_ALL;
	head.rules.regression.noise_test = MG_NOISE_TEST_RANGE;
	mg_error_clear(&err);
	/* the memo borrows the first decision's screening, as tipping points do */
	first = decide(&head);
	memo = mg_decision__memo_new(&head.rules, &head.ev, first);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		head.rules.budget.value[MG_MEMORY_CAP_MB] = caps[i];
		plain = decide(&head);
		cr_assert_eq(mg_decision__decide(&kept, &head.rules, &head.ev, head.pre, memo, &err), 0,
			     "%s", err.message);
		cr_expect_eq(kept->verdict, plain->verdict, "cap %g", caps[i]);
		cr_expect_eq(kept->reason, plain->reason, "cap %g", caps[i]);
		cr_expect(kept->selected == plain->selected ||
			  (kept->selected && plain->selected &&
			   !strcmp(kept->selected, plain->selected)), "cap %g", caps[i]);
		expect_same_regressed(kept->regressed, kept->regressed_count, plain->regressed,
				      plain->regressed_count);
		expect_same_regressed(kept->within_noise, kept->regression_within_noise,
				      plain->within_noise, plain->regression_within_noise);
		cr_assert_eq(kept->unmatched_count, plain->unmatched_count);
		cr_expect(kept->unmatched_count == 1 && !strcmp(kept->unmatched[0], "gone"));
		cr_expect(plain->regressed_count == 0 || i != 0 || plain->regressed_count == 2,
			  "cap %g: %zu regressed", caps[i], plain->regressed_count);
		if (i == 0)
			cr_expect_eq(plain->regression_within_noise, 1);
		mg_decision_free(plain);
		mg_decision_free(kept);
	}
	mg_decision__memo_free(memo);
	mg_decision_free(first);
}

Test(decision, regression_of_the_selected_candidate_decides_tune)
{
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 8560, 9000, 5);   /* +7 % */
	d = decide(&head);
	cr_assert(d->regression_checked);
	cr_assert_eq(d->verdict, MG_TUNE);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_eq(d->next_action, MG_N_FIX_REGRESSION_AGAINST_BASE);
	cr_assert_str_eq(d->selected, "checkpoint");
	cr_assert_eq(d->regressed_count, 1);
	cr_assert_eq(d->regressed[0].threshold, MG_MAX_PEAK_INCREASE_PCT);
	cr_assert_float_eq(d->regressed[0].change, 7.0, 1e-9);
	cr_assert_eq(d->regressed[0].base, 8000);
	cr_assert_eq(d->regressed[0].head, 8560);
	mg_decision_free(d);

	regress_fixture(&head, &base, 8560, 9000, 10);
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regressed_count, 0);
	mg_decision_free(d);

	regress_fixture(&head, &base, 8400, 9000, 5);   /* exactly +5 %: equality passes */
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);
}

/* A waiver of a regression's reason accepts a change up to its up_to_pct
 * (as written, equality accepted): not counted, the waiver marked used;
 * beyond it, or of another candidate or reason, the regression counts. */
Test(decision, regression_waiver_accepts_up_to_its_allowance)
{
	fixture head, base;
	mg_decision *d;
	mg_waiver w[] = { { "checkpoint", MG_R_PEAK_MEMORY_REGRESSED, 7 } };

	regress_fixture(&head, &base, 8560, 9000, 5);   /* +7 %: exactly the waiver's */
	head.rules.waivers = w;
	head.rules.waiver_count = 1;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regressed_count, 0);
	cr_assert_eq(d->waived_count, 1);
	cr_assert_eq(d->waived[0].waiver, 0);
	cr_assert_float_eq(d->waived[0].pct, 7.0, 1e-12);
	cr_assert(d->waiver_used[0]);
	mg_decision_free(d);

	regress_fixture(&head, &base, 8561, 9000, 5);   /* +7.0125 % */
	head.rules.waivers = w;
	head.rules.waiver_count = 1;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_eq(d->waived_count, 0);
	cr_assert_not(d->waiver_used[0]);
	mg_decision_free(d);

	w[0].reason = MG_R_THROUGHPUT_REGRESSED;        /* another reason */
	regress_fixture(&head, &base, 8560, 9000, 5);
	head.rules.waivers = w;
	head.rules.waiver_count = 1;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_not(d->waiver_used[0]);
	mg_decision_free(d);
}

/* The step a report version took, as the regression decides it: what
 * spends a regression's waiver. */
Test(decision, regression_step_is_the_regressions_rule)
{
	fixture head, base;
	double pct;

	regress_fixture(&head, &base, 8560, 9000, 5);
	cr_assert(mg_regression_step(&pct, &head.rules.regression, MG_R_PEAK_MEMORY_REGRESSED,
				     &base.cand[1], &head.cand[1]));
	cr_assert_float_eq(pct, 7.0, 1e-12);
	cr_assert_not(mg_regression_step(&pct, &head.rules.regression, MG_R_THROUGHPUT_REGRESSED,
					 &base.cand[1], &head.cand[1]));
	regress_fixture(&head, &base, 8400, 9000, 5);   /* +5 %: within */
	cr_assert_not(mg_regression_step(&pct, &head.rules.regression, MG_R_PEAK_MEMORY_REGRESSED,
					 &base.cand[1], &head.cand[1]));
}

Test(decision, regression_decision_reject_and_stricter_budget)
{
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 8560, 9000, 5);
	head.rules.regression.reject = true;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_REJECT);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	mg_decision_free(d);

	/* the budget rejects: a tune regression does not soften it */
	regress_fixture(&head, &base, 8560, 9000, 5);
	head.rules.budget.value[MG_MEMORY_CAP_MB] = 8000;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_REJECT);
	cr_assert_eq(d->reason, MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET);
	mg_decision_free(d);

	/* evidence issues come first: nothing compared */
	regress_fixture(&head, &base, 8560, 9000, 5);
	head.pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_EVIDENCE_NOT_APPLICABLE);
	cr_assert_not(d->regression_checked);
	mg_decision_free(d);

	/* no base: nothing compared */
	regress_fixture(&head, &base, 8560, 9000, 5);
	head.rules.regression.base = NULL;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_not(d->regression_checked);
	mg_decision_free(d);
}

Test(decision, regression_covers_selected_or_all)
{
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 8000, 9900, 5);    /* hybrid +10 %, not selected */
	head.rules.regression.base_selected = NULL;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);

	head.rules.regression.covers = MG_COVERS_ALL;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_str_eq(d->selected, "hybrid");
	mg_decision_free(d);

	/* the base's selected candidate is covered even when another wins now */
	regress_fixture(&head, &base, 9500, 9000, 5);
	head.rules.regression.base_selected = "checkpoint";
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_str_eq(d->selected, "checkpoint");
	mg_decision_free(d);

	/* a candidate the base does not have is not compared */
	regress_fixture(&head, &base, 8560, 9000, 5);
	base.cand[1].name = "other";
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);
}

Test(decision, regression_compares_the_first_of_each_name)
{
	fixture head, base;
	mg_decision *d;

	/* the base's second "hybrid" (9900) is not the one compared: +0 % */
	regress_fixture(&head, &base, 8000, 9000, 5);
	measured(&base, "hybrid", 5000, 9, 2.0);
	head.rules.regression.covers = MG_COVERS_ALL;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	mg_decision_free(d);

	/* the head's second "hybrid" is not compared; its first is */
	regress_fixture(&head, &base, 8000, 9000, 5);
	measured(&head, "hybrid", 19000, 9, 2.0);
	head.rules.regression.covers = MG_COVERS_ALL;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regressed_count, 0);
	mg_decision_free(d);

	regress_fixture(&head, &base, 8000, 9900, 5);   /* the first hybrid +10 % */
	measured(&head, "hybrid", 9000, 9, 2.0);
	head.rules.regression.covers = MG_COVERS_ALL;
	d = decide(&head);
	cr_assert_eq(d->regressed_count, 1);
	cr_assert_eq(d->regressed[0].head, 9900);
	mg_decision_free(d);
}

Test(decision, regression_within_run_noise_does_not_count)
{
	fixture head, base;
	mg_decision *d;

	/* base runs 7900..8100, head 8300..8800 (point 8560, +7 %): the change's
	 * band (8300/8100 - 1 = 2.5 % .. 8800/7900 - 1 = 11.4 %) holds 5 % */
	regress_fixture(&head, &base, 8560, 9000, 5);
	head.rules.regression.noise_test = MG_NOISE_TEST_RANGE;
	set_runs(&base.cand[1], MG_M_PEAK, 7900, 8100);
	set_runs(&head.cand[1], MG_M_PEAK, 8300, 8800);
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regression_within_noise, 1);
	mg_decision_free(d);

	/* head 8550..8600: 8550/8100 - 1 = 5.6 % > 5: counts */
	set_runs(&head.cand[1], MG_M_PEAK, 8550, 8600);
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert(d->regressed[0].runs);
	mg_decision_free(d);

	/* runs on one side only: the point values decide */
	base.cand[1].run_band[MG_M_PEAK] = false;
	set_runs(&head.cand[1], MG_M_PEAK, 8300, 8800);
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_not(d->regressed[0].runs);
	mg_decision_free(d);
}

/* The exact one-sided test's p-values, counted by hand: 3 and 3 runs apart
 * is 1 way in C(6,3) = 20, 4 and 4 is 1 in 70; one swap adds a way. */
Test(decision, mann_whitney_exact_p_values)
{
	const double x3[] = { 1, 2, 3 }, y3[] = { 4, 5, 6 }, y3b[] = { 2.5, 5, 6 };
	const double x4[] = { 1, 2, 3, 4 }, y4[] = { 5, 6, 7, 8 }, same[] = { 1, 1, 1 };

	cr_assert_float_eq(mg_noise_mann_whitney(x3, 3, y3, 3), 1.0 / 20, 1e-15);
	cr_assert_float_eq(mg_noise_mann_whitney(x3, 3, y3b, 3), 2.0 / 20, 1e-15);
	cr_assert_float_eq(mg_noise_mann_whitney(y3, 3, x3, 3), 1.0, 1e-15);
	cr_assert_float_eq(mg_noise_mann_whitney(x4, 4, y4, 4), 1.0 / 70, 1e-15);
	/* all tied: every split has the same rank sum */
	cr_assert_float_eq(mg_noise_mann_whitney(same, 3, same, 3), 1.0, 1e-15);
	/* ties at the top: y = {3, 4, 5} against {1, 2, 3}: S >= observed in
	 * the 1 + 1 ways that put 4, 5 and one of the two 3s in y: 2/20 */
	cr_assert_float_eq(mg_noise_mann_whitney(x3, 3, (const double[]){ 3, 4, 5 }, 3),
			   2.0 / 20, 1e-15);
	cr_assert_eq(mg_noise_mann_whitney(x3, 0, y3, 3), 1.0);
}

static void set_run_values(mg_candidate *c, enum mg_metric_id m, const double *v, int n)
{
	c->run_band[m] = true;
	c->run_min[m] = v[0];
	c->run_max[m] = v[n - 1];
	c->run_value[m] = v;
	c->repeats = n;
}

Test(decision, regression_counts_only_beyond_the_rank_test)
{
	static const double base_runs[] = { 7900, 8000, 8100 };
	static const double apart[] = { 8550, 8560, 8600 };      /* all > 8100 * 1.05 = 8505 */
	static const double mixed[] = { 8300, 8560, 8800 };      /* 8300 < 7900 * 1.05 */
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 8560, 9000, 5);            /* +7 % on the points */
	set_run_values(&base.cand[1], MG_M_PEAK, base_runs, 3);
	set_run_values(&head.cand[1], MG_M_PEAK, apart, 3);
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert(d->regressed[0].runs);
	cr_assert_float_eq(d->regressed[0].p, 0.05, 1e-15);      /* 1/20 <= alpha 0.05 */
	mg_decision_free(d);

	/* a stricter level: 1/20 is no longer beyond the noise */
	head.rules.regression.alpha = 0.01;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regression_within_noise, 1);
	mg_decision_free(d);

	head.rules.regression.alpha = 0;                         /* the default, 0.05 */
	set_run_values(&head.cand[1], MG_M_PEAK, mixed, 3);
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->regressed_count, 0);
	cr_assert_eq(d->regression_within_noise, 1);
	mg_decision_free(d);

	/* a band without values (built by hand): the point values decide */
	set_runs(&head.cand[1], MG_M_PEAK, 8300, 8800);
	head.cand[1].run_value[MG_M_PEAK] = NULL;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_PEAK_MEMORY_REGRESSED);
	cr_assert_not(d->regressed[0].runs);
	mg_decision_free(d);
}

Test(decision, regression_throughput_and_eval_loss)
{
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 8000, 9000, 5);
	head.rules.regression.limits.set[MG_MAX_PEAK_INCREASE_PCT] = false;
	head.rules.regression.limits.set[MG_MAX_THROUGHPUT_DROP_PCT] = true;
	head.rules.regression.limits.value[MG_MAX_THROUGHPUT_DROP_PCT] = 10;
	head.rules.regression.limits.set[MG_MAX_EVAL_LOSS_INCREASE] = true;
	head.rules.regression.limits.value[MG_MAX_EVAL_LOSS_INCREASE] = 0.05;
	set_metric(&head.cand[1], MG_M_SAMPLES, 7.0);   /* 8 -> 7: -12.5 % */
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_THROUGHPUT_REGRESSED);
	cr_assert_float_eq(d->regressed[0].change, 12.5, 1e-9);
	mg_decision_free(d);

	set_metric(&head.cand[1], MG_M_SAMPLES, 8.0);
	set_metric(&head.cand[1], MG_M_EVAL_LOSS, 2.1);
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_EVAL_LOSS_REGRESSED);
	cr_assert_eq(d->regressed[0].threshold, MG_MAX_EVAL_LOSS_INCREASE);
	mg_decision_free(d);
}

Test(decision, covers_names_round_trip)
{
	cr_expect_str_eq(mg_covers_name(MG_COVERS_SELECTED), "selected");
	cr_expect_str_eq(mg_covers_name(MG_COVERS_ALL), "all");
	cr_expect_null(mg_covers_name(MG_COVERS_COUNT));
	cr_expect_eq(mg_covers_from_name("all"), MG_COVERS_ALL);
	cr_expect_eq(mg_covers_from_name("none"), -1);
}

Test(decision, rank_by_names_round_trip)
{
	cr_expect_str_eq(mg_rank_by_name(MG_RANK_PEAK_MEMORY), "peak_memory");
	cr_expect_str_eq(mg_rank_by_name(MG_RANK_THROUGHPUT), "throughput");
	cr_expect_null(mg_rank_by_name(MG_RANK_BY_COUNT));
	cr_expect_eq(mg_rank_by_from_name("throughput"), MG_RANK_THROUGHPUT);
	cr_expect_eq(mg_rank_by_from_name("memory"), -1);
}

/* The regression reasons' codes follow waiver_expiring, and the codes
 * added since follow them: every earlier code keeps its index (SARIF's
 * ruleIndex). */
Test(decision, regression_codes_are_appended)
{
	/* policy_change_fails_its_evidence, regression_not_compared,
	 * approval_of_other_evidence, waiver_spent, evidence_out_of_place,
	 * measured_commit_behind_base, changed_within_noise,
	 * approval_unverified */
	size_t n, r, after = 8;
	const mg_code *c = mg_codes(&n);

	cr_assert_str_eq(c[MG_R_CHECK_LAST + 1].name, "report_hash_mismatch");
	cr_assert_str_eq(c[n - after - 4].name, "waiver_expiring");
	cr_assert_str_eq(c[n - 8].name, "policy_change_fails_its_evidence");
	cr_assert_str_eq(c[n - 7].name, "regression_not_compared");
	cr_assert_str_eq(c[n - 6].name, "approval_of_other_evidence");
	cr_assert_str_eq(c[n - 5].name, "waiver_spent");
	cr_assert_str_eq(c[n - 4].name, "evidence_out_of_place");
	cr_assert_str_eq(c[n - 3].name, "measured_commit_behind_base");
	cr_assert_str_eq(c[n - 2].name, "changed_within_noise");
	cr_assert_str_eq(c[n - 1].name, "approval_unverified");
	cr_assert_eq(mg_issue_code(MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE), &c[n - 6]);
	cr_assert_eq(mg_issue_code(MG_ISSUE_EVIDENCE_OUT_OF_PLACE), &c[n - 4]);
	cr_assert_eq(mg_issue_code(MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE), &c[n - 3]);
	cr_assert_eq(mg_issue_code(MG_ISSUE_APPROVAL_UNVERIFIED), &c[n - 1]);
	cr_assert_eq(mg_issue_code(MG_ISSUE_AGGREGATE_OUTSIDE_RUNS),
		     &c[MG_R_CHECK_LAST + 1 + MG_ISSUE_AGGREGATE_OUTSIDE_RUNS]);
	for (r = MG_R_CHECK_LAST + 1; r < MG_REASON_COUNT; r++) {
		cr_assert_eq(mg_reason_code((enum mg_reason)r), &c[n - after - (MG_REASON_COUNT - r)]);
		cr_assert_eq(mg_reason_from_name(c[n - after - (MG_REASON_COUNT - r)].name), (int)r);
	}
	cr_assert_eq(mg_issue_code(MG_ISSUE_REPORT_HASH_MISMATCH), &c[MG_R_CHECK_LAST + 1]);
}

/* A rename cannot escape the regression: the base's selected candidate
 * with no namesake now decides as a regression would (names compared
 * exactly; a look-alike in white space or case is named). */
Test(decision, regression_selected_candidate_renamed_is_not_compared)
{
	fixture head, base;
	mg_decision *d;

	regress_fixture(&head, &base, 9200, 9000, 5);   /* checkpoint +15 % */
	head.cand[1].name = "checkpoint ";
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_REGRESSION_NOT_COMPARED);
	cr_assert_eq(d->verdict, MG_TUNE);
	cr_assert_eq(d->regressed_count, 0);
	cr_assert_eq(d->unmatched_count, 1);
	cr_assert_str_eq(d->unmatched[0], "checkpoint");
	cr_assert_eq(d->unmatched_selected, d->unmatched[0]);
	cr_assert_str_eq(d->unmatched_lookalike[0], "checkpoint ");
	mg_decision_free(d);

	head.cand[1].name = "checkpoint-v2";
	head.rules.regression.reject = true;
	d = decide(&head);
	cr_assert_eq(d->reason, MG_O_REGRESSION_NOT_COMPARED);
	cr_assert_eq(d->verdict, MG_REJECT);
	cr_assert_null(d->unmatched_lookalike[0]);
	mg_decision_free(d);

	/* covers: all: another candidate renamed is listed, but does not decide */
	regress_fixture(&head, &base, 8000, 9000, 5);
	head.cand[2].name = "HYBRID";
	head.rules.regression.covers = MG_COVERS_ALL;
	d = decide(&head);
	cr_assert_eq(d->verdict, MG_ACCEPT);
	cr_assert_eq(d->unmatched_count, 1);
	cr_assert_str_eq(d->unmatched[0], "hybrid");
	cr_assert_null(d->unmatched_selected);
	cr_assert_str_eq(d->unmatched_lookalike[0], "HYBRID");
	mg_decision_free(d);

	/* covers: selected: another candidate renamed is not covered */
	head.rules.regression.covers = MG_COVERS_SELECTED;
	d = decide(&head);
	cr_assert_eq(d->unmatched_count, 0);
	mg_decision_free(d);
}
