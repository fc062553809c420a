/* The stage-76 report (memgate(1), REPORTS): every real shape, the lookup order, runs[],
 * and every way a report is refused. */
#include <cjson/cJSON.h>
#include <math.h>
#include <unistd.h>

#include "helpers.h"
#include "memgate/report.h"

static mg_report *load(const char *fixture)
{
	mg_report *r = NULL;
	mg_error err;
	size_t len;
	char *text = mg_test_read(fixture, &len);

	mg_error_clear(&err);
	cr_assert_eq(mg_report_parse(&r, fixture, text, len, &err), MG_OK,
		     "%s: %s at %d:%d", fixture, err.message, err.line, err.column);
	free(text);
	cr_assert_not_null(r);
	return r;
}

static mg_error refuse_text(const char *path, const char *text, size_t len)
{
	mg_report *r = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_report_parse(&r, path, text, len, &err), MG_ERROR, "accepted %s", path);
	cr_assert_null(r);
	return err;
}

static mg_error refuse(const char *fixture)
{
	size_t len;
	char *text = mg_test_read(fixture, &len);
	mg_error err = refuse_text(fixture, text, len);

	free(text);
	return err;
}

#define expect_error(e, file_, l, c, msg) do { \
	mg_error e_ = (e); \
	cr_expect_str_eq(e_.file, (file_)); \
	cr_expect_str_eq(e_.message, (msg)); \
	cr_expect_eq(e_.line, (l), "line %d, want %d (%s)", e_.line, (l), e_.message); \
	cr_expect_eq(e_.column, (c), "column %d, want %d (%s)", e_.column, (c), e_.message); \
} while (0)

#define expect_pos(p, l, c) do { \
	mg_pos p_ = (p); \
	cr_expect_eq(p_.line, (l), "line %d, want %d", p_.line, (l)); \
	cr_expect_eq(p_.column, (c), "column %d, want %d", p_.column, (c)); \
} while (0)

#define expect_number(m, v) do { \
	mg_metric m_ = (m); \
	cr_expect_eq(m_.state, MG_METRIC_NUMBER, "state %d, want a number", m_.state); \
	cr_expect_eq(m_.value, (v), "value %.17g, want %.17g", m_.value, (double)(v)); \
} while (0)

#define expect_state(m, s) cr_expect_eq((m).state, (s), "state %d, want %d", (m).state, (s))

#define expect_string_value(val, s) do { \
	mg_value v_ = (val); \
	cr_expect_eq(v_.kind, MG_VALUE_STRING, "kind %d, want a string", v_.kind); \
	if (v_.kind == MG_VALUE_STRING) \
		cr_expect_str_eq(v_.string, (s)); \
} while (0)

static const mg_candidate *find(const mg_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->evidence.candidate_count; i++) {
		const mg_candidate *c = &r->evidence.candidates[i];

		if (c->name && !strcmp(c->name, name))
			return c;
	}
	cr_assert_fail("no candidate '%s'", name);
	return NULL;
}

/* ---- the real reports --------------------------------------------- */

Test(report, reads_the_flat_real_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory.flat.json");
	const mg_evidence *ev = &r->evidence;
	const mg_candidate *c;

	cr_assert_eq(ev->candidate_count, 4);
	cr_expect(ev->candidates_present);
	cr_expect_str_eq(ev->candidates[0].name, "baseline");
	cr_expect_str_eq(ev->candidates[3].name, "hybrid");
	c = find(r, "checkpoint");
	cr_expect_str_eq(c->status, "ok");
	cr_expect_not(c->oom);
	expect_number(c->metric[MG_M_PEAK], 9450.76);
	expect_number(c->metric[MG_M_SAMPLES], 1.761);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.356503);
	expect_state(c->metric[MG_M_SAVING], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_RATIO], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_DELTA], MG_METRIC_ABSENT);
	cr_expect_eq(c->repeats, 1);
	cr_expect_not(c->aggregate_outside_runs);
	expect_pos(c->pos, 57, 5);
	expect_pos(c->metric[MG_M_PEAK].pos, 64, 25);
	expect_pos(ev->candidates_pos, 46, 17);
	mg_report_free(r);
}

Test(report, reads_identity_from_config_in_the_flat_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory.flat.json");
	const mg_value *id = r->evidence.identity;

	expect_string_value(id[MG_ID_WORKLOAD], "pressure");
	expect_pos(id[MG_ID_WORKLOAD].pos, 21, 17);
	expect_string_value(id[MG_ID_HARDWARE], "NVIDIA GeForce RTX 5070 Ti Laptop GPU");
	expect_pos(id[MG_ID_HARDWARE].pos, 36, 15);
	expect_string_value(id[MG_ID_MODEL], "Qwen/Qwen2.5-0.5B-Instruct");
	expect_string_value(id[MG_ID_DTYPE], "float32");
	expect_string_value(id[MG_ID_OPTIMIZER], "AdamW");
	cr_expect_eq(id[MG_ID_BATCH_SIZE].kind, MG_VALUE_NUMBER);
	cr_expect_eq(id[MG_ID_BATCH_SIZE].number, 1);
	cr_expect_eq(id[MG_ID_SEQ_LEN].number, 768);
	cr_expect_eq(id[MG_ID_AMP_DTYPE].kind, MG_VALUE_ABSENT);
	expect_pos(id[MG_ID_AMP_DTYPE].pos, 19, 13);  /* the config object */
	mg_report_free(r);
}

Test(report, flat_report_is_not_in_handoff_shape_and_keeps_the_producer_decision)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory.flat.json");

	cr_expect_not(r->evidence.handoff);
	cr_expect_not(r->evidence.eligible_present);
	cr_expect_eq(r->evidence.handoff_status.kind, MG_VALUE_ABSENT);
	cr_expect_eq(r->schema_version.kind, MG_VALUE_ABSENT);
	cr_expect_eq(r->semantic_id.kind, MG_VALUE_ABSENT);
	cr_expect_str_eq(r->producer_decision, "tune");
	cr_expect_str_eq(r->producer_reason, "memory_saving_below_meaningful_threshold");
	cr_expect_str_eq(r->path, "fixtures/reports/76_real_gpu_memory.flat.json");
	mg_report_free(r);
}

Test(report, reads_the_bf16_real_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory_bf16_seq1024.flat.json");
	const mg_value *id = r->evidence.identity;
	const mg_candidate *c;

	cr_assert_eq(r->evidence.candidate_count, 2);
	expect_string_value(id[MG_ID_WORKLOAD], "pressure_1024");
	expect_string_value(id[MG_ID_AMP_DTYPE], "torch.bfloat16");
	cr_expect_eq(id[MG_ID_SEQ_LEN].number, 1024);
	c = find(r, "checkpoint");
	expect_number(c->metric[MG_M_PEAK], 10010.36);
	expect_number(c->metric[MG_M_SAMPLES], 2.919);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.202565);
	expect_number(find(r, "baseline")->metric[MG_M_PEAK], 10037.52);
	mg_report_free(r);
}

Test(report, reads_metrics_and_quality_of_the_nested_real_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory_v1.nested.json");
	const mg_candidate *c;

	cr_assert_eq(r->evidence.candidate_count, 4);
	c = find(r, "checkpoint");
	expect_number(c->metric[MG_M_PEAK], 9450.76);
	expect_pos(c->metric[MG_M_PEAK].pos, 60, 27);
	expect_number(c->metric[MG_M_SAMPLES], 1.687);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.356503);
	cr_expect_not(c->oom, "metrics.oom is null");
	expect_pos(c->pos, 54, 5);
	expect_number(find(r, "offload")->metric[MG_M_SAMPLES], 0.528);
	mg_report_free(r);
}

Test(report, ignores_paired_values_under_metrics_in_the_nested_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory_v1.nested.json");
	size_t i;

	for (i = 0; i < r->evidence.candidate_count; i++) {
		const mg_candidate *c = &r->evidence.candidates[i];

		expect_state(c->metric[MG_M_SAVING], MG_METRIC_ABSENT);
		expect_state(c->metric[MG_M_RATIO], MG_METRIC_ABSENT);
		expect_state(c->metric[MG_M_DELTA], MG_METRIC_ABSENT);
	}
	mg_report_free(r);
}

Test(report, reads_identity_of_the_nested_report)
{
	mg_report *r = load("fixtures/reports/76_real_gpu_memory_v1.nested.json");
	const mg_value *id = r->evidence.identity;

	expect_string_value(r->schema_version, "training-memory-benchmark/v1");
	expect_string_value(id[MG_ID_MODEL], "Qwen/Qwen2.5-0.5B-Instruct");
	expect_pos(id[MG_ID_MODEL].pos, 6, 14);
	expect_string_value(id[MG_ID_WORKLOAD], "pressure");
	expect_string_value(id[MG_ID_HARDWARE], "NVIDIA GeForce RTX 5070 Ti Laptop GPU");
	cr_expect_eq(id[MG_ID_DTYPE].kind, MG_VALUE_ABSENT, "dtype is null");
	expect_pos(id[MG_ID_DTYPE].pos, 5, 13);
	cr_expect_eq(id[MG_ID_OPTIMIZER].kind, MG_VALUE_ABSENT);
	mg_report_free(r);
}

Test(report, reads_a_stage75_decision_record_as_a_report)
{
	mg_report *r = load("fixtures/reports/75_memory_budget_decision_9600.json");

	cr_expect_eq(r->evidence.candidate_count, 4);
	expect_number(find(r, "offload")->metric[MG_M_PEAK], 9448.33);
	cr_expect_eq(r->evidence.identity[MG_ID_WORKLOAD].kind, MG_VALUE_ABSENT);
	expect_pos(r->evidence.identity[MG_ID_WORKLOAD].pos, 1, 1);
	cr_expect_str_eq(r->producer_decision, "tune");
	mg_report_free(r);
}

/* ---- the handoff shape -------------------------------------------- */

Test(report, reads_the_seed_handoff)
{
	mg_report *r = load("fixtures/reports/handoff.json");
	const mg_evidence *ev = &r->evidence;
	const mg_candidate *c;

	cr_expect(ev->handoff);
	expect_string_value(ev->handoff_status, "ready_for_budget_review");
	expect_string_value(ev->identity[MG_ID_WORKLOAD], "train-b2-s1024");
	expect_pos(ev->identity[MG_ID_WORKLOAD].pos, 3, 18);
	expect_string_value(ev->identity[MG_ID_HARDWARE], "gpu-a");
	cr_expect(ev->eligible_present);
	cr_assert_eq(ev->eligible_count, 2);
	cr_expect_str_eq(ev->eligible[0], "checkpoint");
	cr_expect_str_eq(ev->eligible[1], "offload");
	expect_pos(ev->eligible_pos, 5, 26);
	cr_assert_eq(ev->candidate_count, 2);
	c = find(r, "checkpoint");
	cr_expect_str_eq(c->status, "comparable");
	expect_number(c->metric[MG_M_PEAK], 8200.0);
	expect_number(c->metric[MG_M_SAVING], 2800.0);
	expect_number(c->metric[MG_M_RATIO], 0.85);
	expect_number(c->metric[MG_M_DELTA], 0.02);
	expect_pos(c->metric[MG_M_RATIO].pos, 15, 27);
	expect_state(c->metric[MG_M_SAMPLES], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_EVAL_LOSS], MG_METRIC_ABSENT);
	expect_number(find(r, "offload")->metric[MG_M_RATIO], 0.62);
	mg_report_free(r);
}

Test(report, handoff_keeps_only_string_entries_of_eligible_candidates)
{
	mg_report *r = load("fixtures/reports/handoff-not-ready.json");

	cr_expect(r->evidence.handoff);
	expect_string_value(r->evidence.handoff_status, "draft");
	cr_expect(r->evidence.eligible_present);
	cr_assert_eq(r->evidence.eligible_count, 1);
	cr_expect_str_eq(r->evidence.eligible[0], "checkpoint");
	mg_report_free(r);
}

Test(report, eligible_candidates_alone_makes_a_handoff)
{
	const char *text = "{\"eligible_candidates\": [], \"candidates\": []}";
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "r.json", text, strlen(text), &err), MG_OK);
	cr_expect(r->evidence.handoff);
	cr_expect(r->evidence.eligible_present);
	cr_expect_eq(r->evidence.eligible_count, 0);
	cr_expect_eq(r->evidence.handoff_status.kind, MG_VALUE_ABSENT);
	mg_report_free(r);
}

Test(report, null_status_and_eligible_candidates_are_not_a_handoff)
{
	const char *text = "{\"status\": null, \"eligible_candidates\": null, \"candidates\": []}";
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "r.json", text, strlen(text), &err), MG_OK);
	cr_expect_not(r->evidence.handoff);
	cr_expect_not(r->evidence.eligible_present);
	mg_report_free(r);
}

/* ---- lookup order ------------------------------------------------- */

Test(report, own_key_wins_over_the_metrics_object)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "own-beats-metrics");

	expect_number(c->metric[MG_M_PEAK], 9000.0);
	expect_pos(c->metric[MG_M_PEAK].pos, 7, 25);
	expect_number(c->metric[MG_M_SAMPLES], 2.0);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.5);
	mg_report_free(r);
}

Test(report, reads_peak_mem_mb_and_val_loss_aliases)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "aliases");

	expect_number(c->metric[MG_M_PEAK], 9100.0);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.4);
	mg_report_free(r);
}

Test(report, first_key_of_the_list_wins_whatever_the_order_in_the_file)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "first-key-wins");

	expect_number(c->metric[MG_M_PEAK], 9200.0);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.3);
	mg_report_free(r);
}

Test(report, null_own_key_falls_through_to_the_sub_object)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "null-falls-through");

	expect_number(c->metric[MG_M_PEAK], 9300.0);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.2);
	mg_report_free(r);
}

Test(report, non_numeric_own_key_is_invalid_even_when_metrics_has_a_number)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "own-string-is-not-skipped");

	expect_state(c->metric[MG_M_PEAK], MG_METRIC_INVALID);
	expect_pos(c->metric[MG_M_PEAK].pos, 33, 25);
	mg_report_free(r);
}

Test(report, losses_are_read_from_quality_and_memory_from_metrics_only)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "wrong-sub-object");

	expect_state(c->metric[MG_M_PEAK], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_SAMPLES], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_EVAL_LOSS], MG_METRIC_ABSENT);
	mg_report_free(r);
}

Test(report, paired_values_come_from_own_keys_only)
{
	mg_report *r = load("fixtures/reports/lookup-order.json");
	const mg_candidate *c = find(r, "paired-own-keys-only");

	expect_number(c->metric[MG_M_SAVING], 500.0);
	expect_number(c->metric[MG_M_RATIO], 0.9);
	expect_number(c->metric[MG_M_DELTA], -0.01);
	mg_report_free(r);
}

Test(report, paired_values_are_not_taken_from_runs)
{
	const char *text = "{\"candidates\": [{\"name\": \"a\", \"runs\": [{\"memory_saving_mb\": 2}]}]}";
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "r.json", text, strlen(text), &err), MG_OK);
	expect_state(r->evidence.candidates[0].metric[MG_M_SAVING], MG_METRIC_ABSENT);
	mg_report_free(r);
}

Test(report, legacy_fields_are_never_read)
{
	mg_report *r = load("fixtures/reports/legacy-fields-only.json");
	const mg_candidate *c = find(r, "baseline");

	expect_state(c->metric[MG_M_PEAK], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_SAMPLES], MG_METRIC_ABSENT);
	expect_state(c->metric[MG_M_EVAL_LOSS], MG_METRIC_ABSENT);
	expect_pos(c->metric[MG_M_PEAK].pos, 0, 0);
	mg_report_free(r);
}

/* ---- metric values ------------------------------------------------ */

/* memgate's number rule (memgate(1), JSON): a number beyond a double is
 * refused where it stands (it was read as infinity, an invalid metric). */
Test(report, a_number_beyond_a_double_refuses_the_report_at_the_number)
{
	expect_error(refuse("fixtures/reports/number-out-of-range.json"),
		     "fixtures/reports/number-out-of-range.json", 5, 41,
		     "number '1e999' is out of range (a double holds at most 1.7976931348623157e+308)");
}

Test(report, string_bool_and_object_metrics_are_invalid)
{
	mg_report *r = load("fixtures/reports/metric-values.json");

	expect_state(find(r, "string")->metric[MG_M_PEAK], MG_METRIC_INVALID);
	expect_state(find(r, "bool")->metric[MG_M_PEAK], MG_METRIC_INVALID);
	expect_state(find(r, "object")->metric[MG_M_PEAK], MG_METRIC_INVALID);
	mg_report_free(r);
}

/* A peak of 0 (-0, or 1e-999 read as 0) is no peak (issue 19): out of
 * range, the value kept for the message; -0 reads as 0 (memgate(1), JSON). */
Test(report, zero_peaks_are_out_of_range_and_big_integers_are_numbers)
{
	mg_report *r = load("fixtures/reports/metric-values.json");
	const mg_metric *z = &find(r, "negative-zero")->metric[MG_M_PEAK];

	expect_state(*z, MG_METRIC_INVALID);
	cr_expect(z->out_of_range);
	cr_expect_eq(z->value, 0.0);
	cr_expect(!signbit(z->value), "-0 reads as 0");
	expect_number(find(r, "big-integer")->metric[MG_M_PEAK], 9007199254740992.0);
	expect_state(find(r, "tiny")->metric[MG_M_PEAK], MG_METRIC_INVALID);
	cr_expect(find(r, "tiny")->metric[MG_M_PEAK].out_of_range);
	cr_expect_not(find(r, "string")->metric[MG_M_PEAK].out_of_range);
	mg_report_free(r);
}

/* Issue 19: peak memory and samples/s above 0, eval loss 0 or above; the
 * paired values may be negative (a saving can be). */
Test(report, metrics_outside_their_range_are_invalid_at_their_position)
{
	mg_report *r = load("fixtures/reports/metric-ranges.json");
	const mg_metric *m;

	m = &find(r, "negative-peak")->metric[MG_M_PEAK];
	expect_state(*m, MG_METRIC_INVALID);
	cr_expect(m->out_of_range);
	cr_expect_eq(m->value, -5000.0);
	expect_pos(m->pos, 5, 50);
	expect_number(find(r, "negative-peak")->metric[MG_M_SAMPLES], 2.0);
	m = &find(r, "zero-samples")->metric[MG_M_SAMPLES];
	expect_state(*m, MG_METRIC_INVALID);
	cr_expect(m->out_of_range);
	m = &find(r, "negative-samples")->metric[MG_M_SAMPLES];
	expect_state(*m, MG_METRIC_INVALID);
	cr_expect_eq(m->value, -2.0);
	m = &find(r, "negative-loss")->metric[MG_M_EVAL_LOSS];
	expect_state(*m, MG_METRIC_INVALID);
	cr_expect_eq(m->value, -0.5);
	expect_number(find(r, "zero-loss")->metric[MG_M_EVAL_LOSS], 0.0);
	m = &find(r, "negative-run")->metric[MG_M_PEAK];
	expect_state(*m, MG_METRIC_INVALID);
	cr_expect(m->out_of_range);
	cr_expect_eq(m->value, -1.0);
	expect_pos(m->pos, 12, 27);
	cr_expect_not(find(r, "negative-run")->run_band[MG_M_PEAK]);
	expect_number(find(r, "negative-run")->metric[MG_M_SAMPLES], 2.0);
	expect_number(find(r, "negative-paired")->metric[MG_M_SAVING], -700.0);
	expect_number(find(r, "negative-paired")->metric[MG_M_DELTA], -0.1);
	mg_report_free(r);
}

Test(report, null_metric_is_absent)
{
	mg_report *r = load("fixtures/reports/metric-values.json");

	expect_state(find(r, "null")->metric[MG_M_PEAK], MG_METRIC_ABSENT);
	mg_report_free(r);
}

/* ---- runs --------------------------------------------------------- */

Test(report, odd_number_of_runs_gives_the_middle_value)
{
	mg_report *r = load("fixtures/reports/runs-odd-median.json");
	const mg_candidate *c = find(r, "checkpoint");

	cr_expect_eq(c->repeats, 3);
	expect_number(c->metric[MG_M_PEAK], 9100.0);
	expect_number(c->metric[MG_M_SAMPLES], 2.0);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.2);
	expect_pos(c->metric[MG_M_PEAK].pos, 7, 15);  /* the runs array */
	cr_expect_not(c->aggregate_outside_runs);
	mg_report_free(r);
}

Test(report, even_number_of_runs_gives_the_mean_of_the_middle_two)
{
	mg_report *r = load("fixtures/reports/runs-even-median.json");
	const mg_candidate *c = find(r, "checkpoint");

	cr_expect_eq(c->repeats, 4);
	expect_number(c->metric[MG_M_PEAK], 9200.0);
	expect_number(c->metric[MG_M_SAMPLES], 2.5);
	expect_state(c->metric[MG_M_EVAL_LOSS], MG_METRIC_ABSENT);
	mg_report_free(r);
}

Test(report, metric_missing_from_one_run_is_invalid)
{
	mg_report *r = load("fixtures/reports/runs-missing-metric.json");
	const mg_candidate *c = find(r, "checkpoint");

	expect_number(c->metric[MG_M_PEAK], 9100.0);
	expect_state(c->metric[MG_M_SAMPLES], MG_METRIC_INVALID);
	expect_state(c->metric[MG_M_EVAL_LOSS], MG_METRIC_ABSENT);
	mg_report_free(r);
}

Test(report, non_numeric_metric_in_one_run_is_invalid)
{
	mg_report *r = load("fixtures/reports/runs-non-numeric-metric.json");
	const mg_candidate *c = find(r, "checkpoint");

	expect_state(c->metric[MG_M_PEAK], MG_METRIC_INVALID);
	expect_number(c->metric[MG_M_EVAL_LOSS], 12.2);
	mg_report_free(r);
}

Test(report, aggregate_within_the_runs_range_wins_over_the_median)
{
	mg_report *r = load("fixtures/reports/runs-aggregate-inside.json");
	const mg_candidate *c = find(r, "checkpoint");

	expect_number(c->metric[MG_M_PEAK], 9050.0);
	expect_number(c->metric[MG_M_SAMPLES], 2.1);  /* metrics: equal to the max */
	cr_expect_not(c->aggregate_outside_runs);
	cr_expect_eq(c->repeats, 3);
	mg_report_free(r);
}

Test(report, aggregate_outside_the_runs_range_is_flagged)
{
	mg_report *r = load("fixtures/reports/runs-aggregate-outside.json");
	const mg_candidate *own = find(r, "own-key-below-runs");
	const mg_candidate *sub = find(r, "metrics-above-runs");

	cr_expect(own->aggregate_outside_runs);
	expect_number(own->metric[MG_M_PEAK], 8000.0);
	cr_expect(sub->aggregate_outside_runs);
	expect_number(sub->metric[MG_M_SAMPLES], 2.5);
	mg_report_free(r);
}

Test(report, aggregate_is_not_compared_with_runs_that_do_not_all_carry_it)
{
	mg_report *r = load("fixtures/reports/runs-aggregate-outside.json");
	const mg_candidate *c = find(r, "runs-do-not-all-carry-it");

	cr_expect_not(c->aggregate_outside_runs);
	expect_number(c->metric[MG_M_EVAL_LOSS], 99.0);
	cr_expect_eq(c->repeats, 2);
	mg_report_free(r);
}

Test(report, empty_or_non_array_runs_count_as_one_repeat)
{
	const char *text = "{\"candidates\": [{\"name\": \"a\", \"runs\": []}, "
			   "{\"name\": \"b\", \"runs\": {\"peak_memory_mb\": 1}}]}";
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "r.json", text, strlen(text), &err), MG_OK);
	cr_expect_eq(r->evidence.candidates[0].repeats, 1);
	cr_expect_eq(r->evidence.candidates[1].repeats, 1);
	expect_state(r->evidence.candidates[1].metric[MG_M_PEAK], MG_METRIC_ABSENT);
	mg_report_free(r);
}

Test(report, run_that_is_not_an_object_makes_carried_metrics_invalid)
{
	const char *text = "{\"candidates\": [{\"name\": \"a\", \"runs\": "
			   "[{\"peak_memory_mb\": 1}, 2, {\"peak_memory_mb\": 3}]}]}";
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "r.json", text, strlen(text), &err), MG_OK);
	expect_state(r->evidence.candidates[0].metric[MG_M_PEAK], MG_METRIC_INVALID);
	cr_expect_eq(r->evidence.candidates[0].repeats, 3);
	mg_report_free(r);
}

/* ---- status and names --------------------------------------------- */

Test(report, status_defaults_to_ok_and_oom_comes_from_status_or_metrics)
{
	mg_report *r = load("fixtures/reports/candidate-status.json");

	cr_expect_str_eq(find(r, "no-status")->status, "ok");
	cr_expect_str_eq(find(r, "null-status")->status, "ok");
	cr_expect(find(r, "oom-status")->oom);
	cr_expect(find(r, "oom-flag")->oom);
	cr_expect_str_eq(find(r, "oom-flag")->status, "ok");
	cr_expect_not(find(r, "oom-flag-false")->oom);
	cr_expect_not(find(r, "no-status")->oom);
	cr_expect_null(find(r, "numeric-status")->status);
	cr_expect_str_eq(find(r, "skipped")->status, "skipped");
	mg_report_free(r);
}

Test(report, names_that_are_not_strings_are_null)
{
	mg_report *r = load("fixtures/reports/candidate-names.json");
	const mg_candidate *c = r->evidence.candidates;

	cr_assert_eq(r->evidence.candidate_count, 6);
	cr_expect_str_eq(c[0].name, "baseline");
	cr_expect_str_eq(c[1].name, "");
	cr_expect_null(c[2].name);
	expect_number(c[2].metric[MG_M_PEAK], 9000.0);
	cr_expect_null(c[3].name);
	cr_expect_null(c[4].name, "a string entry is a candidate without a name");
	expect_pos(c[4].pos, 9, 5);
	cr_expect_eq(c[4].repeats, 1);
	cr_expect_str_eq(c[5].name, "baseline", "duplicates are the decision core's business");
	mg_report_free(r);
}

/* ---- identity ----------------------------------------------------- */

Test(report, top_level_identity_wins_over_config)
{
	mg_report *r = load("fixtures/reports/identity-top-level.json");
	const mg_value *id = r->evidence.identity;

	expect_string_value(id[MG_ID_WORKLOAD], "train-b2-s1024");
	expect_string_value(id[MG_ID_HARDWARE], "gpu-a");
	expect_string_value(id[MG_ID_MODEL], "Qwen/Qwen2.5-0.5B-Instruct");
	cr_expect_eq(id[MG_ID_BATCH_SIZE].number, 2);
	expect_string_value(id[MG_ID_SEQ_LEN], "1024");
	cr_expect_eq(id[MG_ID_OPTIMIZER].kind, MG_VALUE_OTHER);
	expect_pos(id[MG_ID_OPTIMIZER].pos, 11, 18);
	cr_expect(r->evidence.candidates_present);
	cr_expect_eq(r->evidence.candidate_count, 0);
	mg_report_free(r);
}

Test(report, missing_identity_is_absent_at_the_enclosing_object)
{
	mg_report *r = load("fixtures/reports/identity-missing.json");
	const mg_value *id = r->evidence.identity;

	cr_expect_eq(id[MG_ID_WORKLOAD].kind, MG_VALUE_ABSENT, "null counts as absent");
	cr_expect_eq(id[MG_ID_HARDWARE].kind, MG_VALUE_ABSENT);
	expect_pos(id[MG_ID_HARDWARE].pos, 1, 1);
	cr_expect_eq(id[MG_ID_MODEL].kind, MG_VALUE_ABSENT);
	mg_report_free(r);
}

Test(report, schema_version_and_semantic_id_are_top_level_values)
{
	mg_report *r = load("fixtures/reports/producer-decision-string.json");

	expect_string_value(r->schema_version, "training-memory-benchmark/v1");
	expect_pos(r->schema_version.pos, 4, 21);
	expect_string_value(r->semantic_id, "PERF-MEMORY-STRATEGY");
	cr_expect_str_eq(r->producer_decision, "accept");
	cr_expect_null(r->producer_reason);
	mg_report_free(r);
}

/* ---- candidates present or not ------------------------------------ */

Test(report, missing_candidates_are_not_present)
{
	mg_report *r = load("fixtures/reports/candidates-missing.json");

	cr_expect_not(r->evidence.candidates_present);
	cr_expect_eq(r->evidence.candidate_count, 0);
	expect_pos(r->evidence.candidates_pos, 1, 1);
	mg_report_free(r);
}

Test(report, candidates_that_are_not_an_array_are_not_present)
{
	mg_report *r = load("fixtures/reports/candidates-not-array.json");

	cr_expect_not(r->evidence.candidates_present);
	expect_pos(r->evidence.candidates_pos, 4, 17);
	mg_report_free(r);
}

/* ---- refused reports ---------------------------------------------- */

Test(report, refuses_a_report_that_is_not_an_object)
{
	expect_error(refuse("fixtures/reports/not-an-object.json"),
		     "fixtures/reports/not-an-object.json", 1, 1,
		     "report must be a JSON object, not an array");
	expect_error(refuse_text("r.json", "  3", 3), "r.json", 1, 3,
		     "report must be a JSON object, not a number");
}

Test(report, refuses_malformed_json)
{
	expect_error(refuse("fixtures/reports/malformed-missing-comma.json"),
		     "fixtures/reports/malformed-missing-comma.json", 4, 3,
		     "malformed JSON: unexpected character '\"'");
}

Test(report, refuses_nan_written_by_python)
{
	expect_error(refuse("fixtures/reports/nan-literal.json"),
		     "fixtures/reports/nan-literal.json", 5, 66,
		     "malformed JSON: unexpected character 'N'");
}

Test(report, refuses_a_nested_duplicate_key_at_its_second_occurrence)
{
	expect_error(refuse("fixtures/reports/duplicate-key-nested.json"),
		     "fixtures/reports/duplicate-key-nested.json", 10, 9,
		     "duplicate key 'peak_memory_mb'");
}

Test(report, refuses_a_top_level_duplicate_key)
{
	expect_error(refuse("fixtures/reports/duplicate-key-top-level.json"),
		     "fixtures/reports/duplicate-key-top-level.json", 5, 3,
		     "duplicate key 'workload_id'");
}

Test(report, refuses_a_second_document_after_the_report)
{
	expect_error(refuse("fixtures/reports/trailing-text.json"),
		     "fixtures/reports/trailing-text.json", 6, 1,
		     "trailing text after the JSON document");
}

Test(report, refuses_nul_bytes)
{
	expect_error(refuse("fixtures/reports/nul-padding.json"),
		     "fixtures/reports/nul-padding.json", 6, 1, "unexpected NUL byte");
}

Test(report, refuses_latin1_text)
{
	expect_error(refuse("fixtures/reports/latin1-name.json"),
		     "fixtures/reports/latin1-name.json", 5, 19,
		     "invalid UTF-8: truncated sequence (byte 0xe9)");
}

Test(report, refuses_nesting_deeper_than_64_levels)
{
	mg_buf b = MG_BUF_INIT;
	int i;

	mg_buf_puts(&b, "{\"candidates\": ");
	for (i = 0; i < 64; i++)
		mg_buf_putc(&b, '[');
	expect_error(refuse_text("deep.json", b.ptr, b.len), "deep.json", 1, 79,
		     "nesting deeper than 64 levels");
	mg_buf_free(&b);
}

/* A report with n candidates named c0.., each with `runs` runs, built with cJSON. */
/* A report of n candidates, one a line after the first: each "{}", or,
 * with runs or a name, {"name": "nnn", "runs": [{}, ...]}. */
static char *generated(size_t n, size_t runs, size_t name_len)
{
	mg_buf b = MG_BUF_INIT;
	size_t i, k;

	mg_buf_puts(&b, "{\"candidates\": [\n");
	for (i = 0; i < n; i++) {
		if (i)
			mg_buf_puts(&b, ",\n");
		if (!runs && !name_len) {
			mg_buf_puts(&b, "{}");
			continue;
		}
		mg_buf_puts(&b, "{\"name\": \"");
		for (k = 0; k < (name_len ? name_len : 1); k++)
			mg_buf_putc(&b, name_len ? 'n' : 'c');
		mg_buf_puts(&b, "\", \"runs\": [");
		for (k = 0; k < runs; k++)
			mg_buf_puts(&b, k ? ",{}" : "{}");
		mg_buf_puts(&b, "]}");
	}
	mg_buf_puts(&b, "\n]}\n");
	return mg_buf_detach(&b, NULL);
}

static void expect_parsed(char *text, size_t candidates, int repeats, size_t name_len)
{
	mg_report *r;
	mg_error err;

	cr_assert_eq(mg_report_parse(&r, "big.json", text, strlen(text), &err), MG_OK,
		     "%s", err.message);
	cr_expect_eq(r->evidence.candidate_count, candidates);
	cr_expect_eq(r->evidence.candidates[0].repeats, repeats);
	if (name_len)
		cr_expect_eq(strlen(r->evidence.candidates[0].name), name_len);
	mg_report_free(r);
	free(text);
}

Test(report, accepts_the_most_candidates_allowed)
{
	expect_parsed(generated(MG_REPORT_MAX_CANDIDATES, 0, 0), MG_REPORT_MAX_CANDIDATES, 1, 0);
}

Test(report, refuses_too_many_candidates)
{
	char *text = generated(MG_REPORT_MAX_CANDIDATES + 1, 0, 0);

	expect_error(refuse_text("big.json", text, strlen(text)), "big.json", 1, 16,
		     "too many candidates (2097153; the limit is 2097152; raise it with "
		     "make EXTRA_CFLAGS=-DMG_REPORT_MAX_CANDIDATES=N)");
	free(text);
}

Test(report, refuses_too_many_runs)
{
	char *text = generated(1, MG_REPORT_MAX_RUNS + 1, 0);

	expect_error(refuse_text("big.json", text, strlen(text)), "big.json", 2, 23,
		     "too many runs (2097153; the limit is 2097152; raise it with "
		     "make EXTRA_CFLAGS=-DMG_REPORT_MAX_RUNS=N)");
	free(text);
}

Test(report, accepts_the_most_runs_allowed)
{
	expect_parsed(generated(1, MG_REPORT_MAX_RUNS, 0), 1, MG_REPORT_MAX_RUNS, 0);
}

Test(report, accepts_a_name_at_the_limit)
{
	expect_parsed(generated(1, 1, MG_REPORT_MAX_NAME), 1, 1, MG_REPORT_MAX_NAME);
}

Test(report, refuses_a_name_longer_than_the_limit)
{
	char *text = generated(1, 0, MG_REPORT_MAX_NAME + 1);

	expect_error(refuse_text("big.json", text, strlen(text)), "big.json", 2, 10,
		     "candidate name too long (257 bytes; the limit is 256)");
	free(text);
}
