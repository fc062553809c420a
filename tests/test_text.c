/* The text rendering for people: include/memgate/text.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "helpers.h"
#include "memgate/text.h"

#define BIT(r) (1u << (r))
#define REV "1111111111111111111111111111111111111111"
#define POLICY_REV "3333333333333333333333333333333333333333"
#define MAX_SCENARIOS 8

/* A hand-built result: the real flat report's four candidates screened
 * against memory_cap_mb 11200, min_samples_per_s 1, min_memory_saving_mb
 * 256 and max_eval_loss 12.6, with two stricter scenarios that keep the
 * winner (accept). */
static struct {
	mg_check_result r;
	mg_decision d;
	mg_evaluation ev[4];
	size_t feasible[2];
	mg_scenario sc[MAX_SCENARIOS];
	size_t sc_feasible[MAX_SCENARIOS];
	unsigned long long sc_bits[MAX_SCENARIOS];
	mg_report report;
	char *warnings[2];
	mg_policy_change changes[2];
} fx;

/* Scenario i: its id, one override, and its winner (the only feasible
 * candidate), or none. */
static void set_scenario(size_t i, const char *id, enum mg_threshold t, double v,
			 size_t winner, bool has_winner)
{
	mg_scenario *sc = &fx.sc[i];

	snprintf(sc->id, sizeof(sc->id), "%s", id);
	memset(&sc->overrides, 0, sizeof(sc->overrides));
	mg_fx_threshold(&sc->overrides, t, v);
	sc->budget = fx.d.budget;
	sc->budget.value[t] = v;
	fx.sc_feasible[i] = winner;   /* a rank of one: the winner */
	fx.sc_bits[i] = has_winner;
	sc->rank = &fx.sc_feasible[i];
	sc->count = 1;
	sc->feasible = &fx.sc_bits[i];
	sc->feasible_count = has_winner;
	sc->best_index = winner;
	if (has_winner && winner == 1) {   /* the base's feasible set: checkpoint, hybrid */
		sc->rank = fx.feasible;
		sc->count = 2;
		fx.sc_bits[i] = 3;
		sc->feasible_count = 2;
	}
	sc->best = has_winner ? fx.ev[winner].name : NULL;
	fx.d.scenario_count = i + 1;
}

static void build_decision(void)
{
	mg_decision *d = &fx.d;

	d->base = mg_fx_seed_screening(fx.ev, fx.feasible);
	mg_fx_ceiling(&d->base, MG_MAX_EVAL_LOSS, 12.6);

	d->verdict = MG_ACCEPT;
	d->reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	d->next_action = MG_N_SEND_TO_REGRESSION_ACCEPTANCE;
	d->selected = "checkpoint";
	d->best = "checkpoint";
	d->applicable = true;
	mg_fx_threshold(&d->budget, MG_MEMORY_CAP_MB, 11200);
	mg_fx_threshold(&d->budget, MG_MIN_SAMPLES_PER_S, 1.0);
	mg_fx_threshold(&d->budget, MG_MIN_MEMORY_SAVING_MB, 256);
	mg_fx_threshold(&d->budget, MG_MAX_EVAL_LOSS, 12.6);

	d->sensitivity_evaluated = true;
	d->scenarios = fx.sc;
	set_scenario(0, "stricter[0]", MG_MEMORY_CAP_MB, 9452, 1, true);
	set_scenario(1, "stricter[1]", MG_MIN_SAMPLES_PER_S, 1.5, 1, true);
	d->best_candidate_stable = true;
	d->feasible_set_stable = true;
	d->stability_tested = true;
	d->interpretation = "stable";
}

static void set_ref(mg_input_ref *ref, const char *path, const char *commit, char blob_digit)
{
	ref->path = (char *)path;
	snprintf(ref->commit, sizeof(ref->commit), "%s", commit);
	memset(ref->blob, blob_digit, 40);
	memset(ref->sha256, 'e', 64);
	ref->read = true;
}

static mg_check_result *build(void)
{
	mg_check_result *r = &fx.r;

	mg_findings_free(fx.r.findings, fx.r.finding_count);   /* the last test's */
	memset(&fx, 0, sizeof(fx));
	build_decision();
	snprintf(r->rev, sizeof(r->rev), REV);
	snprintf(r->policy_rev, sizeof(r->policy_rev), REV);
	set_ref(&r->policy_ref, ".memgate.yml", REV, 'a');
	set_ref(&r->manifest_ref, "bench/75_manifest.json", REV, 'b');
	set_ref(&r->report_ref, "bench/76_real_gpu_memory.json", REV, 'c');
	r->report = &fx.report;
	r->decision = &fx.d;
	r->fail_on[MG_REJECT] = true;
	r->fail_on[MG_TUNE] = true;
	r->passed = true;
	return r;
}

/* Render r and compare with the golden text. */
static void expect_text(mg_check_result *r, const char *want)
{
	char *text = mg_text_render(mg_fx_filled(r));

	cr_assert_str_eq(text, want, "\n--- got ---\n%s--- want ---\n%s", text, want);
	free(text);
}

/* Render r and check that line number `n` (from 1) is `want`. */
static void expect_line(mg_check_result *r, int n, const char *want)
{
	char *text = mg_text_render(mg_fx_filled(r)), *line = text, *end;
	int i;

	for (i = 1; i < n && line; i++)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	cr_assert(line && *line, "no line %d in:\n%s", n, text);
	end = strchr(line, '\n');
	cr_assert_not_null(end);
	*end = '\0';
	cr_assert_str_eq(line, want, "line %d", n);
	free(text);
}

/* Render r and check that it holds `want` (a run of whole lines). */
static void expect_lines(mg_check_result *r, const char *want)
{
	char *text = mg_text_render(mg_fx_filled(r));
	const char *at = strstr(text, want);

	cr_assert(at && (at == text || at[-1] == '\n'), "no\n%sin\n%s", want, text);
	free(text);
}

Test(text, accepted_decision_reads_as_golden)
{
	expect_text(build(),
"memgate: accept (selection_stable_across_thresholds)\n"
"next action: send_to_regression_acceptance\n"
"selected: checkpoint\n"
"inputs: commit 111111111111: policy '.memgate.yml', manifest 'bench/75_manifest.json', report 'bench/76_real_gpu_memory.json'\n"
"evidence: applicable\n"
"checks: memory_cap_mb 11200, min_samples_per_s 1, min_memory_saving_mb 256, max_eval_loss 12.6; "
	"not set: min_throughput_ratio, max_relative_eval_loss, max_quality_delta, min_mb_saved_per_pct_throughput\n"
"candidates:\n"
"  1  baseline    rejected  peak 9782.74 MB <= 11200  samples/s 2.009 >= 1      eval_loss 12.356503 <= 12.6  saving 0 MB < 256 FAIL   memory_saving_below_floor\n"
"  2  checkpoint  feasible  peak 9450.76 MB <= 11200  samples/s 1.761 >= 1      eval_loss 12.356503 <= 12.6  saving 331.98 MB >= 256  -\n"
"  3  offload     rejected  peak 9448.33 MB <= 11200  samples/s 0.533 < 1 FAIL  eval_loss 12.356503 <= 12.6  saving 334.41 MB >= 256  samples_per_s_below_floor\n"
"  4  hybrid      feasible  peak 9454.64 MB <= 11200  samples/s 1.276 >= 1      eval_loss 12.356503 <= 12.6  saving 328.1 MB >= 256   -\n"
"sensitivity: selection stable: checkpoint wins all 2 scenarios\n"
"  winner checkpoint (base winner): stricter[0], stricter[1]\n"
"  stricter[0]: memory_cap_mb 9452\n"
"  stricter[1]: min_samples_per_s 1.5\n"
"gate: passed (fails on: tune, reject)\n");
}

/* The real flat report under its own budget plus a 512 MB saving target:
 * every strategy misses the target (2.3 step 4), as in the real records. */
Test(text, tune_on_missed_target_reads_as_golden)
{
	mg_check_result *r = build();
	mg_decision *d = &fx.d;
	int i;

	d->verdict = MG_TUNE;
	d->reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	d->next_action = MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION;
	d->best = NULL;
	d->base.feasible_count = 0;
	d->budget.value[MG_MIN_MEMORY_SAVING_MB] = 512;
	d->budget.set[MG_MAX_EVAL_LOSS] = false;
	for (i = 1; i < 4; i++) {
		fx.ev[i].status = MG_STATUS_REJECTED;
		fx.ev[i].reasons |= BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	}
	d->scenario_count = 0;
	d->stability_tested = false;
	fx.report.producer_decision = "tune";
	fx.report.producer_reason = "memory_saving_below_meaningful_threshold";
	r->passed = false;
	expect_text(r,
"memgate: tune (memory_saving_below_meaningful_threshold)\n"
"next action: test_larger_pressure_or_optimizer_compression\n"
"selected: checkpoint\n"
"inputs: commit 111111111111: policy '.memgate.yml', manifest 'bench/75_manifest.json', report 'bench/76_real_gpu_memory.json'\n"
"evidence: applicable\n"
"checks: memory_cap_mb 11200, min_samples_per_s 1, min_memory_saving_mb 512; "
	"not set: min_throughput_ratio, max_eval_loss, max_relative_eval_loss, max_quality_delta, min_mb_saved_per_pct_throughput\n"
"candidates:\n"
"  1  baseline    rejected  peak 9782.74 MB <= 11200  samples/s 2.009 >= 1      saving 0 MB < 512 FAIL       memory_saving_below_floor\n"
"  2  checkpoint  rejected  peak 9450.76 MB <= 11200  samples/s 1.761 >= 1      saving 331.98 MB < 512 FAIL  memory_saving_below_floor\n"
"  3  offload     rejected  peak 9448.33 MB <= 11200  samples/s 0.533 < 1 FAIL  saving 334.41 MB < 512 FAIL  samples_per_s_below_floor, memory_saving_below_floor\n"
"  4  hybrid      rejected  peak 9454.64 MB <= 11200  samples/s 1.276 >= 1      saving 328.1 MB < 512 FAIL   memory_saving_below_floor\n"
"sensitivity: not tested: the policy has no sensitivity scenarios\n"
"gate: failed (fails on: tune, reject)\n");
}

Test(text, evidence_reject_reads_as_golden)
{
	mg_check_result *r = build();
	mg_decision *d = &fx.d;

	d->verdict = MG_REJECT;
	d->reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	d->next_action = MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE;
	d->selected = NULL;
	d->applicable = false;
	d->issue[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	d->issue[MG_ISSUE_HARDWARE_MISMATCH] = true;
	d->sensitivity_evaluated = false;
	d->scenario_count = 0;
	d->budget.set[MG_MIN_SAMPLES_PER_S] = false;
	d->budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	d->budget.set[MG_MAX_EVAL_LOSS] = false;
	fx.ev[0].status = MG_STATUS_FEASIBLE;
	fx.ev[0].reasons = 0;
	fx.ev[2].status = MG_STATUS_FEASIBLE;
	fx.ev[2].reasons = 0;
	r->passed = false;
	expect_text(r,
"memgate: reject (evidence_not_applicable)\n"
"next action: rebuild_same_workload_evidence\n"
"selected: (none)\n"
"inputs: commit 111111111111: policy '.memgate.yml', manifest 'bench/75_manifest.json', report 'bench/76_real_gpu_memory.json'\n"
"evidence: not applicable: report_hash_mismatch, hardware_mismatch\n"
"  bench/76_real_gpu_memory.json: the report has no hardware_id (read from hardware_id or config.device) [hardware_mismatch]\n"
"checks: memory_cap_mb 11200; not set: min_samples_per_s, min_memory_saving_mb, min_throughput_ratio, "
	"max_eval_loss, max_relative_eval_loss, max_quality_delta, min_mb_saved_per_pct_throughput\n"
"candidates:\n"
"  1  baseline    feasible  peak 9782.74 MB <= 11200  -\n"
"  2  checkpoint  feasible  peak 9450.76 MB <= 11200  -\n"
"  3  offload     feasible  peak 9448.33 MB <= 11200  -\n"
"  4  hybrid      feasible  peak 9454.64 MB <= 11200  -\n"
"sensitivity: not evaluated: the decision stopped at the evidence or the baseline\n"
"gate: failed (fails on: tune, reject)\n");
}

/* An issue that several candidates raise lists each of them. */
Test(text, an_issue_of_several_candidates_lists_each)
{
	static const char want[] =
"evidence: not applicable: aggregate_outside_runs\n"
"  bench/76_real_gpu_memory.json:7:5: checkpoint: an aggregate value lies outside the [min, max] of its runs [aggregate_outside_runs]\n"
"  bench/76_real_gpu_memory.json:19:5: offload: an aggregate value lies outside the [min, max] of its runs [aggregate_outside_runs]\n";
	mg_check_result *r = build();
	mg_candidate cands[2] = { { 0 }, { 0 } };
	char *text;

	cands[0].name = "checkpoint";
	cands[0].aggregate_outside_runs = true;
	cands[0].pos = (mg_pos){ 7, 5 };
	cands[1].name = "offload";
	cands[1].aggregate_outside_runs = true;
	cands[1].pos = (mg_pos){ 19, 5 };
	fx.report.evidence.candidates = cands;
	fx.report.evidence.candidate_count = 2;
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_AGGREGATE_OUTSIDE_RUNS] = true;
	text = mg_text_render(mg_fx_filled(r));
	cr_expect(strstr(text, want), "\n--- got ---\n%s--- want within ---\n%s", text, want);
	free(text);
}

/* Winners grouped by candidate, consecutive grid cells as ranges. */
Test(text, sensitive_selection_groups_scenarios_by_winner)
{
	mg_check_result *r = build();
	mg_decision *d = &fx.d;

	d->verdict = MG_TUNE;
	d->reason = MG_O_SELECTION_IS_THRESHOLD_SENSITIVE;
	d->next_action = MG_N_COLLECT_BOUNDARY_EVIDENCE;
	set_scenario(1, "stricter[1]", MG_MEMORY_CAP_MB, 9449, 0, false);
	set_scenario(2, "grid[0]", MG_MIN_SAMPLES_PER_S, 1.0, 1, true);
	set_scenario(3, "grid[1]", MG_MIN_SAMPLES_PER_S, 1.1, 1, true);
	set_scenario(4, "grid[2]", MG_MIN_SAMPLES_PER_S, 1.2, 1, true);
	set_scenario(5, "grid[3]", MG_MIN_SAMPLES_PER_S, 1.3, 3, true);
	set_scenario(6, "grid[4]", MG_MIN_SAMPLES_PER_S, 1.9, 0, false);
	set_scenario(7, "grid[5]", MG_MIN_SAMPLES_PER_S, 1.4, 1, true);
	d->best_candidate_stable = false;
	d->feasible_set_stable = false;
	d->interpretation = "sensitive_to_thresholds";
	r->passed = false;
	expect_line(r, 1, "memgate: tune (selection_is_threshold_sensitive)");
	expect_line(r, 3, "selected: checkpoint");
	expect_lines(r,
"sensitivity: selection sensitive: checkpoint wins 5 of 8 scenarios\n"
"  winner checkpoint (base winner): stricter[0], grid[0-2], grid[5]\n"
"  winner (none): stricter[1], grid[4]\n"
"  winner hybrid: grid[3]\n"
"  stricter[0]: memory_cap_mb 9452\n"
"  stricter[1]: memory_cap_mb 9449\n"
"gate: failed (fails on: tune, reject)\n");
}

/* The decision compares winners: the same winner everywhere is a stable
 * selection (accept), even when the feasible set changes. */
Test(text, same_winner_with_changing_feasible_set_is_a_stable_selection)
{
	mg_check_result *r = build();

	fx.sc[1].feasible_count = 1;   /* checkpoint only */
	fx.sc_bits[1] = 1;
	fx.d.feasible_set_stable = false;
	fx.d.interpretation = "sensitive_to_thresholds";
	expect_line(r, 1, "memgate: accept (selection_stable_across_thresholds)");
	expect_lines(r,
"sensitivity: selection stable: checkpoint wins all 2 scenarios; the feasible set changes in 1 "
	"of them, the selection does not\n"
"  winner checkpoint (base winner): stricter[0], stricter[1]\n");
}

Test(text, a_single_scenario_is_singular)
{
	mg_check_result *r = build();

	fx.d.scenario_count = 1;
	expect_lines(r, "sensitivity: selection stable: checkpoint wins the only scenario\n"
			"  winner checkpoint (base winner): stricter[0]\n"
			"  stricter[0]: memory_cap_mb 9452\n");
}

/* No base winner (2.3 step 4 or 5): nothing is called stable. */
Test(text, no_winner_is_not_called_stable)
{
	mg_check_result *r = build();

	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	fx.d.best = NULL;
	fx.d.base.feasible_count = 0;
	set_scenario(0, "stricter[0]", MG_MEMORY_CAP_MB, 9452, 0, false);
	set_scenario(1, "stricter[1]", MG_MIN_SAMPLES_PER_S, 1.5, 0, false);
	expect_lines(r,
"sensitivity: no winner to be stable: no candidate is feasible under the base budget or in any "
	"of the 2 scenarios\n"
"  winner (none): stricter[0], stricter[1]\n");
	set_scenario(1, "stricter[1]", MG_MIN_SAMPLES_PER_S, 1.5, 3, true);
	expect_lines(r,
"sensitivity: no winner under the base budget; 1 of 2 scenarios has one (they do not change "
	"this decision)\n"
"  winner (none): stricter[0]\n"
"  winner hybrid: stricter[1]\n");
}

Test(text, worktree_inputs_say_so)
{
	mg_check_result *r = build();

	r->worktree = true;
	r->rev[0] = r->policy_rev[0] = '\0';
	r->policy_ref.commit[0] = r->manifest_ref.commit[0] = r->report_ref.commit[0] = '\0';
	memset(&r->manifest_ref, 0, sizeof(r->manifest_ref));
	expect_line(r, 4, "inputs: working tree (--worktree), not a commit: "
			  "policy '.memgate.yml', report 'bench/76_real_gpu_memory.json'");
}

Test(text, policy_from_another_commit_is_named)
{
	mg_check_result *r = build();

	snprintf(r->policy_rev, sizeof(r->policy_rev), POLICY_REV);
	snprintf(r->policy_ref.commit, sizeof(r->policy_ref.commit), POLICY_REV);
	set_ref(&r->approved_ref, "bench/75_decision.json", REV, 'd');
	expect_line(r, 4, "inputs: commit 111111111111: policy '.memgate.yml' at 333333333333, "
			  "manifest 'bench/75_manifest.json', report 'bench/76_real_gpu_memory.json', "
			  "approved result 'bench/75_decision.json'");
}

Test(text, notes_when_the_report_decided_otherwise)
{
	mg_check_result *r = build();

	fx.report.producer_decision = "tune";
	fx.report.producer_reason = "memory_saving_below_meaningful_threshold";
	expect_lines(r,
"note: the report's own decision was 'tune' (memory_saving_below_meaningful_threshold); "
	"memgate decided from the evidence\n"
"gate: passed (fails on: tune, reject)\n");
}

Test(text, note_without_a_producer_reason)
{
	mg_check_result *r = build();

	fx.report.producer_decision = "reject";
	expect_lines(r, "note: the report's own decision was 'reject'; memgate decided from the evidence\n");
}

Test(text, no_note_when_the_report_agrees)
{
	mg_check_result *r = build();
	char *text;

	fx.report.producer_decision = "accept";
	fx.report.producer_reason = "selection_stable_across_thresholds";
	text = mg_text_render(mg_fx_filled(r));
	cr_assert_null(strstr(text, "note:"), "%s", text);
	free(text);
}

Test(text, approved_changes_and_warnings_close_the_output)
{
	mg_check_result *r = build();

	r->decision->approved_checked = true;
	r->approved_decision = "tune";
	r->approved_selected = "checkpoint";
	snprintf(fx.changes[0].key, sizeof(fx.changes[0].key), "budget.memory_cap_mb");
	fx.changes[0].before = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 9600 };
	fx.changes[0].after = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 11200 };
	fx.changes[0].effect = MG_CHANGE_LOOSENS;
	snprintf(fx.changes[1].key, sizeof(fx.changes[1].key), "quality.max_eval_loss");
	fx.changes[1].before = (mg_change_value){ .kind = MG_CHANGE_UNSET };
	fx.changes[1].after = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 12.6 };
	fx.changes[1].effect = MG_CHANGE_TIGHTENS;
	r->changes = fx.changes;
	r->change_count = 2;
	fx.warnings[0] = "'.memgate.yml' differs from the working tree";
	fx.warnings[1] = "the policy names report: directly: no hash was checked";
	r->warnings = fx.warnings;
	r->warning_count = 2;
	expect_lines(r,
"  winner checkpoint (base winner): stricter[0], stricter[1]\n"
"  stricter[0]: memory_cap_mb 9452\n"
"  stricter[1]: min_samples_per_s 1.5\n"
"approved record: tune, selected checkpoint (the evidence still decides this)\n"
"policy change: budget.memory_cap_mb was 9600 at the policy revision, is 11200 at the evidence revision (loosens the budget)\n"
"policy change: quality.max_eval_loss was unset at the policy revision, is 12.6 at the evidence revision (tightens the budget)\n"
"warning: '.memgate.yml' differs from the working tree\n"
"warning: the policy names report: directly: no hash was checked\n"
"gate: passed (fails on: tune, reject)\n");
}

Test(text, approved_record_without_selection)
{
	mg_check_result *r = build();

	r->decision->approved_checked = true;
	r->approved_decision = "reject";
	expect_lines(r, "approved record: reject, selected (none) (the evidence still decides this)\n");
}

Test(text, decision_drift_says_what_the_evidence_decides_now)
{
	mg_check_result *r = build();

	r->decision->approved_checked = true;
	r->approved_decision = "tune";
	r->approved_selected = "checkpoint";
	r->decision->computed_verdict = MG_ACCEPT;
	r->decision->computed_reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	r->decision->computed_selected = "hybrid";
	r->decision->verdict = MG_REJECT;
	r->decision->drift = true;
	r->decision->reason = MG_O_DECISION_DRIFT;
	r->decision->next_action = MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE;
	r->decision->selected = NULL;
	expect_lines(r, "approved record: tune, selected checkpoint; the evidence now decides "
			"accept (selection_stable_across_thresholds), selected hybrid\n");
}

Test(text, empty_fail_on_fails_on_nothing)
{
	mg_check_result *r = build();

	r->fail_on[MG_TUNE] = r->fail_on[MG_REJECT] = false;
	expect_lines(r, "gate: passed (fails on: nothing)\n");
}

Test(text, no_candidates_says_none)
{
	mg_check_result *r = build();

	fx.d.base.count = 0;
	expect_lines(r, "candidates: none\nsensitivity:");
}

/* Candidates stopped before the thresholds show their values without a
 * comparison; unknown values say so. */
Test(text, screened_out_candidates_show_values_only)
{
	mg_check_result *r = build();

	fx.ev[0].status = MG_STATUS_OOM;
	fx.ev[0].reasons = BIT(MG_R_OOM);
	fx.ev[0].known[MG_M_SAMPLES] = false;
	fx.ev[0].known[MG_M_SAVING] = false;
	fx.ev[2].status = MG_STATUS_INVALID;
	fx.ev[2].reasons = BIT(MG_R_MISSING_OR_NON_NUMERIC_METRIC);
	fx.ev[2].known[MG_M_EVAL_LOSS] = false;
	fx.ev[3].value[MG_M_PEAK] = NAN;
	expect_lines(r,
"candidates:\n"
"  1  baseline    oom       peak 9782.74 MB           samples/s unknown     eval_loss 12.356503          saving unknown           oom\n"
"  2  checkpoint  feasible  peak 9450.76 MB <= 11200  samples/s 1.761 >= 1  eval_loss 12.356503 <= 12.6  saving 331.98 MB >= 256  -\n"
"  3  offload     invalid   peak 9448.33 MB           samples/s 0.533       eval_loss unknown            saving 334.41 MB         missing_or_non_numeric_metric\n"
"  4  hybrid      feasible  peak unknown              samples/s 1.276 >= 1  eval_loss 12.356503 <= 12.6  saving 328.1 MB >= 256   -\n");
}

/* A relative ceiling with no measured baseline is not known. */
Test(text, unknown_quality_ceiling_shows_a_question_mark)
{
	mg_check_result *r = build();

	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	mg_fx_threshold(&fx.d.budget, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	fx.d.base.quality_ceiling_known = false;
	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	expect_lines(r,
"  1  baseline    rejected  peak 9782.74 MB <= 11200  eval_loss 12.356503 <= ?  memory_saving_below_floor\n");
}

Test(text, relative_quality_ceiling_shows_the_effective_value)
{
	mg_check_result *r = build();

	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	mg_fx_threshold(&fx.d.budget, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	fx.d.base.quality_ceiling = 12.356503 * (1 + 0.02);
	fx.d.base.quality_ceiling_from = MG_MAX_RELATIVE_EVAL_LOSS;
	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.ev[1].value[MG_M_EVAL_LOSS] = 12.7;
	fx.ev[1].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = BIT(MG_R_QUALITY_OVER_FLOOR);
	expect_lines(r,
"  2  checkpoint  rejected  peak 9450.76 MB <= 11200  eval_loss 12.7 > 12.60363306 FAIL   quality_over_floor\n");
}

/* Derived ratios print with 6 significant digits, unless that would make
 * the value look equal to the threshold it fails. */
Test(text, long_numbers_are_shortened_only_when_the_comparison_survives)
{
	mg_check_result *r = build();

	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	mg_fx_threshold(&fx.d.budget, MG_MIN_THROUGHPUT_RATIO, 0.7);
	mg_fx_threshold(&fx.d.budget, MG_MAX_QUALITY_DELTA, 0.001);
	fx.ev[3].value[MG_M_RATIO] = 0.69999999999;
	fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[3].reasons = BIT(MG_R_THROUGHPUT_BELOW_FLOOR);
	fx.ev[1].value[MG_M_DELTA] = 12.202565 - 12.202896;
	fx.ev[0].status = MG_STATUS_FEASIBLE;
	fx.ev[0].reasons = 0;
	fx.ev[2].reasons = BIT(MG_R_THROUGHPUT_BELOW_FLOOR);
	fx.ev[2].value[MG_M_DELTA] = -0.0;
	expect_lines(r,
"candidates:\n"
"  1  baseline    feasible  peak 9782.74 MB <= 11200  ratio 1 >= 0.7                  delta 0 <= 0.001          -\n"
"  2  checkpoint  feasible  peak 9450.76 MB <= 11200  ratio 0.876556 >= 0.7           delta -0.000331 <= 0.001  -\n"
"  3  offload     rejected  peak 9448.33 MB <= 11200  ratio 0.265306 < 0.7 FAIL       delta 0 <= 0.001          throughput_below_floor\n"
"  4  hybrid      rejected  peak 9454.64 MB <= 11200  ratio 0.69999999999 < 0.7 FAIL  delta 0 <= 0.001          throughput_below_floor\n");
}

Test(text, missing_and_empty_names_get_placeholders)
{
	mg_check_result *r = build();

	fx.ev[0].name = NULL;
	fx.ev[0].status = MG_STATUS_INVALID;
	fx.ev[0].reasons = BIT(MG_R_MISSING_OR_DUPLICATE_NAME);
	fx.ev[2].name = "";
	fx.ev[2].status = MG_STATUS_INVALID;
	fx.ev[2].reasons = BIT(MG_R_MISSING_OR_DUPLICATE_NAME);
	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	expect_lines(r,
"  1  (no name)     invalid   peak 9782.74 MB           missing_or_duplicate_name\n"
"  2  checkpoint    feasible  peak 9450.76 MB <= 11200  -\n"
"  3  (empty name)  invalid   peak 9448.33 MB           missing_or_duplicate_name\n");
}

/* No line may start with text from the report (a CI log would run
 * "::error::..." as a workflow command), and no control character or
 * invalid UTF-8 may reach the terminal. */
Test(text, hostile_names_are_escaped_and_never_start_a_line)
{
	mg_check_result *r = build();
	char *text;
	const char *line;
	size_t i;

	fx.ev[0].name = "base\nline";
	fx.ev[1].name = "\x1b[31mcheckpoint";
	fx.ev[2].name = "off\xffload";
	fx.ev[3].name = "::error::x";
	fx.d.selected = fx.d.best = fx.ev[1].name;
	fx.sc[0].best = fx.sc[1].best = fx.ev[1].name;
	set_scenario(1, "stricter[1]", MG_MIN_SAMPLES_PER_S, 1.5, 3, true);
	fx.d.best_candidate_stable = false;
	fx.report.producer_decision = "\x1b]0;owned\x07";
	fx.warnings[0] = "candidate '::warning::y\n::error::z' is odd";
	r->warnings = fx.warnings;
	r->warning_count = 1;
	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	expect_line(r, 3, "selected: \\x1b[31mcheckpoint");
	expect_lines(r,
"candidates:\n"
"  1  base\\nline          rejected  peak 9782.74 MB <= 11200  memory_saving_below_floor\n"
"  2  \\x1b[31mcheckpoint  feasible  peak 9450.76 MB <= 11200  -\n"
"  3  off\\xffload         rejected  peak 9448.33 MB <= 11200  samples_per_s_below_floor\n"
"  4  \\x3a:error::x       feasible  peak 9454.64 MB <= 11200  -\n"
"sensitivity: selection sensitive: \\x1b[31mcheckpoint wins 1 of 2 scenarios\n"
"  winner \\x1b[31mcheckpoint (base winner): stricter[0]\n"
"  winner \\x3a:error::x: stricter[1]\n"
"  stricter[0]: memory_cap_mb 9452\n"
"  stricter[1]: min_samples_per_s 1.5\n"
"note: the report's own decision was '\\x1b]0;owned\\x07'; memgate decided from the evidence\n"
"warning: candidate '::warning::y\\n::error::z' is odd\n");
	text = mg_text_render(mg_fx_filled(r));
	for (i = 0; text[i]; i++)
		cr_assert(((unsigned char)text[i] >= 0x20 && text[i] != 0x7f) || text[i] == '\n',
			  "control byte 0x%02x at %zu", (unsigned char)text[i], i);
	cr_assert_null(strchr(text, '\xff'));
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		size_t lead = strspn(line, " \t");

		cr_assert(strncmp(line + lead, "::", 2) != 0, "a line starts with '::': %s", line);
	}
	free(text);
}

Test(text, non_ascii_names_align_by_character)
{
	mg_check_result *r = build();

	fx.ev[0].name = "r\xc3\xa9sum\xc3\xa9";
	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	expect_lines(r,
"  1  r\xc3\xa9sum\xc3\xa9      rejected  peak 9782.74 MB <= 11200  memory_saving_below_floor\n"
"  2  checkpoint  feasible  peak 9450.76 MB <= 11200  -\n");
}

/* Thresholds are what people wrote: never shortened. */
Test(text, thresholds_print_in_full)
{
	mg_check_result *r = build();

	fx.d.budget.set[MG_MIN_SAMPLES_PER_S] = false;
	fx.d.budget.set[MG_MIN_MEMORY_SAVING_MB] = false;
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	fx.d.budget.value[MG_MEMORY_CAP_MB] = 11200.123456789;
	expect_line(r, 6, "checks: memory_cap_mb 11200.123456789; not set: min_samples_per_s, "
			  "min_memory_saving_mb, min_throughput_ratio, max_eval_loss, "
			  "max_relative_eval_loss, max_quality_delta, min_mb_saved_per_pct_throughput");
	expect_line(r, 8, "  1  baseline    rejected  peak 9782.74 MB <= 11200.123456789  "
			  "memory_saving_below_floor");
}

Test(text, base_comparison_and_notes_close_the_output)
{
	static mg_check_result base;
	static mg_evaluation bev[2];
	static mg_decision bd;
	static mg_check_base cb;
	char *notes[1] = { "adopting memgate" };
	mg_check_result *r = build();

	memset(&base, 0, sizeof(base));
	memset(&bd, 0, sizeof(bd));
	bev[0] = fx.ev[1];
	bev[0].value[MG_M_PEAK] = 9500.25;
	bev[0].value[MG_M_SAMPLES] = 1.7;
	bev[1] = fx.ev[0];
	bev[1].name = "gone";
	bd.verdict = MG_TUNE;
	bd.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	bd.selected = "checkpoint";
	bd.base.evaluations = bev;
	bd.base.count = 2;
	base.decision = &bd;
	memset(&cb, 0, sizeof(cb));
	memset(cb.rev, 'f', 40);
	cb.result = &base;
	r->base = &cb;
	r->notes = notes;
	r->note_count = 1;
	expect_lines(r,
"base: ffffffffffff decided tune (memory_saving_below_meaningful_threshold), selected checkpoint, gate failed; this commit: accept, selected checkpoint\n"
"changed against the base:\n"
"  baseline    peak 9782.74 MB                      samples/s 2.009                  eval_loss 12.356503         new candidate\n"
"  checkpoint  peak 9500.25 -> 9450.76 MB (-49.49)  samples/s 1.7 -> 1.761 (+0.061)  eval_loss 12.356503 (same)  -\n"
"  offload     peak 9448.33 MB                      samples/s 0.533                  eval_loss 12.356503         new candidate\n"
"  hybrid      peak 9454.64 MB                      samples/s 1.276                  eval_loss 12.356503         new candidate\n"
"  gone        peak 9782.74 MB                      samples/s 2.009                  eval_loss 12.356503         removed\n");
	expect_lines(r, "note: adopting memgate\ngate: passed");
	cb.result = NULL;
	cb.error = "cannot read 'x' at fffffff: not found";
	expect_lines(r, "base: ffffffffffff could not be decided: cannot read 'x' at fffffff: not found\n");
}

Test(text, a_change_that_is_neither_looser_nor_stricter_changes_the_policy)
{
	mg_check_result *r = build();

	snprintf(fx.changes[0].key, sizeof(fx.changes[0].key), "rank_by");
	fx.changes[0].before = (mg_change_value){ .kind = MG_CHANGE_STRING, .string = "peak_memory" };
	fx.changes[0].after = (mg_change_value){ .kind = MG_CHANGE_STRING, .string = "throughput\x1b[31m" };
	fx.changes[0].effect = MG_CHANGE_ALTERS;
	r->changes = fx.changes;
	r->change_count = 1;
	expect_lines(r, "policy change: rank_by was 'peak_memory' at the policy revision, is "
			"'throughput\\x1b[31m' at the evidence revision (changes the policy)\n");
}
