/* The decision core's tables: thresholds, metrics, codes, outcomes and
 * every name of the vocabulary, with their accessors (include/memgate/
 * decision.h); tables.h for the rest of the core. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/decision.h"
#include "tables.h"

/* ---- name tables ---- */

#define CEILING true
#define FLOOR false
#define HARD true
#define TARGET false
const mg_threshold_def mg_tables__thresholds[MG_THRESHOLD_COUNT] = {
	[MG_MEMORY_CAP_MB] = { "memory_cap_mb", "budget", MG_M_PEAK,
		MG_R_MEMORY_OVER_BUDGET, HARD, CEILING, MG_RANGE_POSITIVE,
		"peak", "peak", " MB", MG_VS_NONE },
	[MG_MIN_SAMPLES_PER_S] = { "min_samples_per_s", "budget", MG_M_SAMPLES,
		MG_R_SAMPLES_PER_S_BELOW_FLOOR, HARD, FLOOR, MG_RANGE_NON_NEGATIVE,
		"samples/s", "samples/s", "", MG_VS_NONE },
	[MG_MIN_MEMORY_SAVING_MB] = { "min_memory_saving_mb", "budget", MG_M_SAVING,
		MG_R_MEMORY_SAVING_BELOW_FLOOR, TARGET, FLOOR, MG_RANGE_NON_NEGATIVE,
		"memory saving", "saving", " MB", MG_VS_NONE },
	[MG_MIN_THROUGHPUT_RATIO] = { "min_throughput_ratio", "budget", MG_M_RATIO,
		MG_R_THROUGHPUT_BELOW_FLOOR, TARGET, FLOOR, MG_RANGE_FRACTION,
		"throughput ratio", "ratio", "", MG_VS_NONE },
	[MG_MAX_EVAL_LOSS] = { "max_eval_loss", "quality", MG_M_EVAL_LOSS,
		MG_R_QUALITY_OVER_FLOOR, HARD, CEILING, MG_RANGE_NON_NEGATIVE,
		"eval_loss", "eval_loss", "", MG_VS_NONE },
	[MG_MAX_RELATIVE_EVAL_LOSS] = { "max_relative_eval_loss", "quality", MG_M_EVAL_LOSS,
		MG_R_QUALITY_OVER_FLOOR, HARD, CEILING, MG_RANGE_NON_NEGATIVE,
		"eval_loss", "eval_loss", "", MG_VS_NONE },
	[MG_MAX_QUALITY_DELTA] = { "max_quality_delta", "quality", MG_M_DELTA,
		MG_R_QUALITY_DELTA_OVER_LIMIT, TARGET, CEILING, MG_RANGE_NON_NEGATIVE,
		"quality delta", "delta", "", MG_VS_NONE },
	[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT] = { "min_mb_saved_per_pct_throughput", "budget",
		MG_M_RATE, MG_R_TRADE_OFF_BELOW_FLOOR, TARGET, FLOOR, MG_RANGE_NON_NEGATIVE,
		"MB saved per 1% throughput lost", "MB/%", "", MG_VS_NONE },
	/* regression: the change from the same candidate at the base */
	[MG_MAX_PEAK_INCREASE_MB] = { "max_peak_increase_mb", "regression", MG_M_PEAK,
		MG_R_PEAK_MEMORY_REGRESSED, TARGET, CEILING, MG_RANGE_NON_NEGATIVE,
		"peak increase", "peak +", " MB", MG_VS_RISE },
	[MG_MAX_PEAK_INCREASE_PCT] = { "max_peak_increase_pct", "regression", MG_M_PEAK,
		MG_R_PEAK_MEMORY_REGRESSED, TARGET, CEILING, MG_RANGE_NON_NEGATIVE,
		"peak increase", "peak +%", " %", MG_VS_RISE_PCT },
	[MG_MAX_THROUGHPUT_DROP_PCT] = { "max_throughput_drop_pct", "regression", MG_M_SAMPLES,
		MG_R_THROUGHPUT_REGRESSED, TARGET, CEILING, MG_RANGE_NON_NEGATIVE,
		"samples/s drop", "samples/s -%", " %", MG_VS_DROP_PCT },
	[MG_MAX_EVAL_LOSS_INCREASE] = { "max_eval_loss_increase", "regression", MG_M_EVAL_LOSS,
		MG_R_EVAL_LOSS_REGRESSED, TARGET, CEILING, MG_RANGE_NON_NEGATIVE,
		"eval_loss increase", "eval_loss +", "", MG_VS_RISE },
};
#undef CEILING
#undef FLOOR
#undef HARD
#undef TARGET

static const char *const ident_names[MG_ID_COUNT] = {
	"workload_id", "hardware_id", "model_id", "dtype", "amp_dtype",
	"batch_size", "seq_len", "optimizer",
};

static const char *const metric_names[MG_METRIC_COUNT] = {
	"peak_memory_mb", "samples_per_s", "eval_loss", "memory_saving_mb",
	"throughput_ratio", "quality_delta", "mb_saved_per_pct_throughput",
};

/* The values a measured metric can have (memgate(1), REPORTS):
 * 0 for any finite number. */
static const enum mg_metric_range metric_ranges[MG_METRIC_COUNT] = {
	[MG_M_PEAK] = MG_METRIC_POSITIVE,
	[MG_M_SAMPLES] = MG_METRIC_POSITIVE,
	[MG_M_EVAL_LOSS] = MG_METRIC_NON_NEGATIVE,
};

static const char *const status_names[] = {
	"feasible", "rejected", "invalid", "oom", "excluded",
};

/*
 * Every code a finding carries (mg_codes): the screening reasons in enum
 * mg_reason order, the evidence issues in enum mg_issue order, then the
 * decision's and the check's own codes.  The one table of their names,
 * kinds and words.
 */
#define E MG_KIND_EVIDENCE
#define H MG_KIND_HARD
#define G MG_KIND_TARGET
#define S MG_KIND_SOFT
#define W MG_KIND_WARNING
#define N MG_KIND_NOTICE
static const mg_code codes[MG_CODE_COUNT] = {
	/* screening reasons, steps 1-6 */
	[MG_CODE_MISSING_OR_DUPLICATE_NAME] = { "missing_or_duplicate_name", E,
	  "A candidate's name is missing, empty, not a string, or already used by an earlier candidate.",
	  "Give every candidate of the report a unique, non-empty name." },
	[MG_CODE_OOM] = { "oom", E,
	  "The candidate ran out of memory (status oom or metrics.oom).",
	  "The strategy does not fit the GPU: change it until it fits and measure it again, or leave it out of the report." },
	[MG_CODE_EVIDENCE_NOT_COMPARABLE] = { "evidence_not_comparable", S,
	  "The candidate's status is neither 'ok' nor 'comparable', so it is excluded from the comparison.",
	  "Rerun the measurement until it completes, or leave the candidate out of the report." },
	[MG_CODE_NOT_IN_ELIGIBLE_CANDIDATES] = { "not_in_eligible_candidates", S,
	  "The handoff report's eligible_candidates does not list the candidate, so it is excluded.",
	  "List the candidate in eligible_candidates when it should be compared." },
	[MG_CODE_MISSING_OR_NON_NUMERIC_METRIC] = { "missing_or_non_numeric_metric", E,
	  "A number that an active check needs (peak memory, samples/s or eval loss) is missing or not a finite number.",
	  "Record the metric in the report as a JSON number." },
	[MG_CODE_INSUFFICIENT_REPEATS] = { "insufficient_repeats", E,
	  "The candidate has fewer repeats (entries of runs[]) than evidence.min_repeats.",
	  "Repeat the measurement and record every run in runs[]." },
	/* screening reasons, step 7 */
	[MG_CODE_MEMORY_OVER_BUDGET] = { "memory_over_budget", H,
	  "Peak memory is above the hard limit budget.memory_cap_mb.",
	  "Choose or tune a strategy that needs less memory; the cap itself is changed only in the policy of the base branch." },
	[MG_CODE_SAMPLES_PER_S_BELOW_FLOOR] = { "samples_per_s_below_floor", H,
	  "Throughput (samples per second) is below the hard limit budget.min_samples_per_s.",
	  "Choose or tune a strategy that trains faster; the floor itself is changed only in the policy of the base branch." },
	[MG_CODE_QUALITY_OVER_FLOOR] = { "quality_over_floor", H,
	  "Eval loss is above the hard quality ceiling: quality.max_eval_loss, or the baseline's eval loss times (1 + quality.max_relative_eval_loss), whichever is lower.",
	  "Recover the model quality of the strategy (e.g. less aggressive compression) and measure it again." },
	[MG_CODE_MEMORY_SAVING_BELOW_FLOOR] = { "memory_saving_below_floor", G,
	  "The memory saved against the baseline is below the target budget.min_memory_saving_mb.",
	  "Test under more memory pressure or add optimizer compression, so that the strategy saves more against the baseline." },
	[MG_CODE_THROUGHPUT_BELOW_FLOOR] = { "throughput_below_floor", G,
	  "Throughput relative to the baseline is below the target budget.min_throughput_ratio.",
	  "Reduce the scope of the compression so that the strategy keeps more of the baseline's throughput." },
	[MG_CODE_QUALITY_DELTA_OVER_LIMIT] = { "quality_delta_over_limit", G,
	  "Eval loss minus the baseline's eval loss is above the target quality.max_quality_delta.",
	  "Adjust the checkpoint scope or the batch plan to recover quality against the baseline." },
	[MG_CODE_TRADE_OFF_BELOW_FLOOR] = { "trade_off_below_floor", G,
	  "The candidate loses throughput and saves fewer MB per 1% of it than the target budget.min_mb_saved_per_pct_throughput.",
	  "Rebalance the strategy: save more memory for the throughput it costs, or cost less throughput." },
	/* evidence issues */
	[MG_CODE_REPORT_HASH_MISMATCH] = { "report_hash_mismatch", E,
	  "The committed report's SHA-256 differs from the one the manifest pins.",
	  "Regenerate the manifest for the report (memgate manifest --report PATH, with --measured-commit when the manifest had one; then memgate sign under provenance), or restore the report that was measured." },
	[MG_CODE_SCHEMA_VERSION_MISMATCH] = { "schema_version_mismatch", E,
	  "The report's schema_version differs from the one the manifest pins.",
	  "Regenerate the report with the pinned schema, or pin the report's schema_version in the manifest." },
	[MG_CODE_SEMANTIC_ID_MISMATCH] = { "semantic_id_mismatch", E,
	  "The report's semantic_id differs from the one the manifest pins.",
	  "Commit the report the manifest was made for, or regenerate the manifest." },
	[MG_CODE_APPROVED_RESULT_MISSING] = { "approved_result_missing", E,
	  "The manifest names no approved result, or the approved result is not committed.",
	  "Record the decision (memgate record --out PATH), pin it as approved_result in the manifest and commit both." },
	[MG_CODE_APPROVED_RESULT_HASH_MISMATCH] = { "approved_result_hash_mismatch", E,
	  "The approved result's SHA-256 differs from the one the manifest pins.",
	  "Restore the approved record, or pin its current SHA-256 in the manifest." },
	[MG_CODE_MEASURED_COMMIT_MISSING] = { "measured_commit_missing", E,
	  "The policy lists evidence.inputs, but the manifest does not say which commit was measured (measured.commit).",
	  "Write the manifest with the commit whose code was measured: memgate manifest --report PATH --measured-commit REV." },
	[MG_CODE_MEASURED_COMMIT_UNKNOWN] = { "measured_commit_unknown", E,
	  "The manifest's measured.commit is not in the repository: a shallow clone, a squash-merged pull request's commit whose branch was deleted, or a commit that was never pushed.",
	  "Fetch it (git fetch origin COMMIT; after a squash merge on GitHub, git fetch origin refs/pull/NUMBER/head; or a deeper clone such as fetch-depth: 0), or push the measured commit; measure again only if it cannot be fetched." },
	[MG_CODE_EVIDENCE_STALE] = { "evidence_stale", E,
	  "A path of evidence.inputs changed between the measured commit and the gated one: the report measured other code.",
	  "Measure again at the gated commit, then write the manifest with --measured-commit and commit both." },
	[MG_CODE_SIGNATURE_MISSING] = { "signature_missing", E,
	  "The policy requires signed evidence (provenance) and the manifest has no signature (MANIFEST.sig) at the commit.",
	  "Sign the manifest on the trusted runner that measured it (memgate sign --key KEY) and commit MANIFEST.sig." },
	[MG_CODE_SIGNATURE_MALFORMED] = { "signature_malformed", E,
	  "The manifest's signature cannot be read, or is of a kind memgate refuses (ssh-rsa SHA-1, security keys, certificates, RSA under 2048 bits).",
	  "Sign the manifest again on the trusted runner (memgate sign --key KEY) and commit the .sig file as it wrote it." },
	[MG_CODE_SIGNATURE_INVALID] = { "signature_invalid", E,
	  "The manifest's signature was not made over this manifest by the key it names: the manifest or the signature changed after signing.",
	  "Measure again on the trusted runner, write the manifest there, sign it and commit both; evidence edited after signing is not accepted." },
	[MG_CODE_SIGNATURE_NAMESPACE_MISMATCH] = { "signature_namespace_mismatch", E,
	  "The signature was made for another namespace than provenance.namespace, or its key is listed only for other namespaces.",
	  "Sign on the trusted runner with memgate sign, which signs in the policy's provenance.namespace (memgate by default)." },
	[MG_CODE_SIGNER_UNKNOWN] = { "signer_unknown", E,
	  "The key that signed the manifest is not in the allowed-signers file of the policy that decides, or is listed only for principals its provenance.signers does not name.",
	  "Sign on a trusted runner whose key the base branch's allowed-signers file lists; a key added by the change itself is not trusted." },
	[MG_CODE_SIGNER_OUTSIDE_VALIDITY] = { "signer_outside_validity", E,
	  "The signing key is listed, but its valid-after/valid-before window does not include the day judged (--today, else today in UTC).",
	  "Sign on the trusted runner with a current key, or extend the key's window in the allowed-signers file of the base branch." },
	[MG_CODE_HANDOFF_NOT_READY] = { "handoff_not_ready", E,
	  "The handoff report's top-level status is not 'ready_for_budget_review'.",
	  "Finish the measurement stage so that the report is ready for budget review." },
	[MG_CODE_WORKLOAD_MISSING] = { "workload_missing", E,
	  "The report names no workload (workload_id, nor config.workload).",
	  "Record the workload the evidence was measured on in the report." },
	[MG_CODE_WORKLOAD_MISMATCH] = { "workload_mismatch", E,
	  "The report's workload differs from identity.workload_id of the policy.",
	  "Measure the evidence on the workload the policy names." },
	[MG_CODE_HARDWARE_MISSING] = { "hardware_missing", E,
	  "The report names no hardware (hardware_id, nor config.device).",
	  "Record the hardware the evidence was measured on in the report." },
	[MG_CODE_HARDWARE_MISMATCH] = { "hardware_mismatch", E,
	  "The report's hardware differs from identity.hardware_id of the policy.",
	  "Measure the evidence on the hardware the policy names." },
	[MG_CODE_MODEL_MISMATCH] = { "model_mismatch", E,
	  "The report's model differs from identity.model_id of the policy.",
	  "Measure the evidence with the model the policy pins." },
	[MG_CODE_DTYPE_MISMATCH] = { "dtype_mismatch", E,
	  "The report's dtype differs from identity.dtype of the policy.",
	  "Measure the evidence with the dtype the policy pins." },
	[MG_CODE_AMP_DTYPE_MISMATCH] = { "amp_dtype_mismatch", E,
	  "The report's amp_dtype differs from identity.amp_dtype of the policy.",
	  "Measure the evidence with the amp_dtype the policy pins." },
	[MG_CODE_BATCH_SIZE_MISMATCH] = { "batch_size_mismatch", E,
	  "The report's batch_size differs from identity.batch_size of the policy.",
	  "Measure the evidence with the batch size the policy pins." },
	[MG_CODE_SEQ_LEN_MISMATCH] = { "seq_len_mismatch", E,
	  "The report's seq_len differs from identity.seq_len of the policy.",
	  "Measure the evidence with the sequence length the policy pins." },
	[MG_CODE_OPTIMIZER_MISMATCH] = { "optimizer_mismatch", E,
	  "The report's optimizer differs from identity.optimizer of the policy.",
	  "Measure the evidence with the optimizer the policy pins." },
	[MG_CODE_ELIGIBLE_CANDIDATES_MISSING] = { "eligible_candidates_missing", E,
	  "The handoff report has no non-empty eligible_candidates list.",
	  "List the candidates ready for comparison in eligible_candidates." },
	[MG_CODE_CANDIDATES_MISSING] = { "candidates_missing", E,
	  "The report has no candidates.",
	  "Commit a report with at least the baseline and one strategy under candidates." },
	[MG_CODE_AGGREGATE_OUTSIDE_RUNS] = { "aggregate_outside_runs", E,
	  "A candidate's aggregate value lies outside the [min, max] of its runs.",
	  "Recompute the aggregate from the runs, or record the runs that produced it." },
	/* the decision's own */
	[MG_CODE_BASELINE_MISSING_OR_INVALID] = { "baseline_missing_or_invalid", E,
	  "A value must be derived from the baseline candidate (evidence.baseline), which is absent or was not measured.",
	  "Rerun the baseline and record it in the report before comparing candidates." },
	[MG_CODE_SELECTION_IS_THRESHOLD_SENSITIVE] = { "selection_is_threshold_sensitive", S,
	  "A stricter or grid scenario of sensitivity selects another winner than the base budget.",
	  "Collect evidence near the thresholds that change the winner." },
	[MG_CODE_DECISION_DRIFT] = { "decision_drift", E,
	  "The approved record's decision or selected candidate differs from the one computed now (--require-approved).",
	  "Re-approve the new decision (memgate record), or restore the evidence that was approved." },
	/* the check's own */
	[MG_CODE_WARNING] = { "warning", W,
	  "memgate warns about its inputs: an uncommitted change, a report named without a manifest, no sensitivity scenarios.",
	  "Read the warning; it does not change the decision." },
	[MG_CODE_WAIVER_APPLIED] = { "waiver_applied", N,
	  "A waiver of the policy lets the candidate pass a check it fails.",
	  "Fix the cause before the waiver expires; its owner and justification are in the policy." },
	[MG_CODE_WAIVER_UNMATCHED] = { "waiver_unmatched", W,
	  "A waiver names a candidate that is not in the report, or a reason its candidate does not fail.",
	  "Remove the waiver from the policy, or correct its candidate or reason." },
	[MG_CODE_NOTE] = { "note", N,
	  "memgate notes something about its inputs that needs no action (a policy adopted by this change, ...).",
	  "Nothing to do; it is there so that nobody is surprised." },
	[MG_CODE_POLICY_CHANGE] = { "policy_change", W,
	  "The change's own policy differs from the policy that decides (the policy revision); it takes effect once merged.",
	  "Review a change that loosens the budget like any budget change, by the budget's owners." },
	[MG_CODE_WAIVER_EXPIRED] = { "waiver_expired", W,
	  "A waiver's expiry date has passed, so it is ignored.",
	  "Fix the cause, or renew the waiver (a new expiry date) in the policy of the base branch." },
	/* the decision's own, added later */
	[MG_CODE_MARGIN_WITHIN_MEASUREMENT_NOISE] = { "margin_within_measurement_noise", S,
	  "With evidence.noise: tune, a check of the selected candidate is within the noise of its runs: some runs pass it and some fail.",
	  "Collect more repeats of the selected candidate so that its margin is larger than the noise between runs." },
	/* the check's own, added later */
	[MG_CODE_WAIVER_EXPIRING] = { "waiver_expiring", N,
	  "A waiver in force expires within the policy's waivers_warn_days.",
	  "Fix the cause before the expiry date, or renew the waiver (a new expiry date) in the policy of the base branch." },
	/* the regressions' reasons, added later (appended: SARIF's ruleIndex is this
	 * order, and the codes before them keep theirs) */
	[MG_CODE_PEAK_MEMORY_REGRESSED] = { "peak_memory_regressed", G,
	  "The candidate's peak memory rose above the base revision's by more than regression.max_peak_increase_mb or regression.max_peak_increase_pct allows.",
	  "Find the change that raised the peak and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
	[MG_CODE_THROUGHPUT_REGRESSED] = { "throughput_regressed", G,
	  "The candidate's samples/s fell below the base revision's by more than regression.max_throughput_drop_pct allows.",
	  "Find the change that slowed the candidate and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
	[MG_CODE_EVAL_LOSS_REGRESSED] = { "eval_loss_regressed", G,
	  "The candidate's eval loss rose above the base revision's by more than regression.max_eval_loss_increase allows.",
	  "Find the change that cost quality and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
	/* the check's own, added after the regressions' (appended, as they were) */
	[MG_CODE_POLICY_CHANGE_FAILS_ITS_EVIDENCE] = { "policy_change_fails_its_evidence", E,
	  "The change's own policy, which decides every later change once merged, fails the change's evidence where the policy that decides passes: merged, it would fail them all until the evidence is fixed.",
	  "Add what the new policy asks for in the same change (sign the manifest, pin measured.commit, measure again), or leave that part of the policy to a change that brings its evidence." },
	[MG_CODE_REGRESSION_NOT_COMPARED] = { "regression_not_compared", G,
	  "A candidate the regression covers at the base (the one the base selected, or with regression.covers: all any) has no candidate of exactly its name now, so it was not compared: a rename escapes the comparison.",
	  "Keep the candidate's name (a look-alike differing in white space or case is named in the message), or rename it in a change of its own whose evidence the base's policy accepts." },
	/* an evidence issue appended after them (mg_issue_code) */
	[MG_CODE_APPROVAL_OF_OTHER_EVIDENCE] = { "approval_of_other_evidence", E,
	  "The approved record was made for other evidence than the manifest pins now: another report (its SHA-256) or another measured commit (--require-approved).",
	  "Approve the evidence the manifest pins now (memgate approve), or restore the evidence that was approved." },
	/* the check's own, appended after the issue above */
	[MG_CODE_WAIVER_SPENT] = { "waiver_spent", W,
	  "A waiver of a regression is spent: the base's report already took the step it accepts, so it no longer applies and later changes compare with the new level.",
	  "Remove the waiver from the policy of the base branch." },
	/* evidence issues appended after it (mg_issue_code) */
	[MG_CODE_EVIDENCE_OUT_OF_PLACE] = { "evidence_out_of_place", E,
	  "The manifest names another report than the base's while the base's is still there (the change did not move it): evidence of another model or place, such as another model's signed manifest copied over this one's.",
	  "Pin this policy's own report (memgate manifest --report PATH); to move a report, move the file (git mv) in the same change." },
	[MG_CODE_MEASURED_COMMIT_BEHIND_BASE] = { "measured_commit_behind_base", E,
	  "The manifest's measured.commit is neither the base's measured commit nor a descendant of it, and no evidence.inputs show that it measured the code being merged: older evidence restored, or it cannot be told in a shallow clone.",
	  "Measure again at the gated commit, or list the measured code in evidence.inputs; in a shallow clone fetch the history between the two measured commits (fetch-depth: 0)." },
	/* the decision's own, appended after them */
	[MG_CODE_CHANGED_WITHIN_NOISE] = { "changed_within_noise", N,
	  "A covered candidate's change from the base is past a regression allowance, but the runs of both revisions do not show it beyond their noise (regression.noise_test), so it changed without regressing and does not count.",
	  "Nothing to do; to settle whether the change is real, record more runs of the candidate in both revisions." },
	/* an evidence issue appended after it (mg_issue_code) */
	[MG_CODE_APPROVAL_UNVERIFIED] = { "approval_unverified", E,
	  "With provenance required or provenance.approvers named: the approval beside the manifest (MANIFEST.approved.json) has no signature in namespace memgate-approve that verifies under the base's allowed signers by a principal provenance.approvers names (--require-approved).",
	  "Approve with an approver's key (memgate approve --sign KEY) and commit the approval and its .sig; a runner's key cannot approve." },
};
#undef E
#undef H
#undef G
#undef S
#undef W
#undef N

#define CODE_COUNT (sizeof(codes) / sizeof(codes[0]))
/* The regression reasons' codes, one after the other. */
#define REGRESSION_CODES (MG_REASON_COUNT - 1 - MG_R_CHECK_LAST)
/* The issues appended after the regression reasons' codes, in enum order:
 * each one's code. */
#define ISSUE_FIRST_APPENDED MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE
static const enum mg_code_id appended_issue_codes[] = {
	MG_CODE_APPROVAL_OF_OTHER_EVIDENCE,
	MG_CODE_EVIDENCE_OUT_OF_PLACE,
	MG_CODE_MEASURED_COMMIT_BEHIND_BASE,
	MG_CODE_APPROVAL_UNVERIFIED,
};
_Static_assert(MG_REASON_COUNT == 16 && CODE_COUNT == MG_CODE_COUNT &&
	       sizeof(appended_issue_codes) / sizeof(appended_issue_codes[0]) ==
	       MG_ISSUE_COUNT - ISSUE_FIRST_APPENDED,
	       "codes[] holds a row per enum mg_code_id, and every appended issue has its code");
_Static_assert(MG_CODE_REPORT_HASH_MISMATCH == MG_R_CHECK_LAST + 1 &&
	       MG_CODE_REPORT_HASH_MISMATCH + ISSUE_FIRST_APPENDED - 1 == MG_CODE_AGGREGATE_OUTSIDE_RUNS &&
	       MG_CODE_EVAL_LOSS_REGRESSED - MG_CODE_PEAK_MEMORY_REGRESSED == REGRESSION_CODES - 1,
	       "enum mg_code_id follows codes[]: mg_reason_code and mg_issue_code index it");

static const char *const outcome_names[MG_OUTCOME_COUNT] = {
	"evidence_not_applicable", "baseline_missing_or_invalid",
	"no_candidate_meets_base_budget", "compression_needs_quality_recovery",
	"memory_saving_below_meaningful_threshold", "throughput_loss_exceeds_budget",
	"baseline_still_best_under_current_budget", "selection_is_threshold_sensitive",
	"selection_stable_across_thresholds", "decision_drift", "trade_off_below_floor",
	"margin_within_measurement_noise", "peak_memory_regressed", "throughput_regressed",
	"eval_loss_regressed", "regression_not_compared",
};

static const char *const next_action_names[MG_NEXT_ACTION_COUNT] = {
	"rebuild_same_workload_evidence", "rerun_baseline_before_comparing_candidates",
	"rework_strategy_or_budget", "adjust_checkpoint_scope_or_batch_plan",
	"test_larger_pressure_or_optimizer_compression", "reduce_compression_scope",
	"revisit_memory_strategy_mix", "collect_boundary_evidence",
	"send_to_regression_acceptance", "re_approve_or_restore_evidence",
	"record_and_pin_approved_result", "restore_or_reapprove_approved_result",
	"rebalance_memory_and_throughput", "collect_more_repeats", "measure_again",
	"sign_on_trusted_runner", "fix_regression_against_base", "fetch_measured_commit",
};

/* Each outcome's verdict and next action: the decision table of memgate(1),
 * HOW MEMGATE DECIDES. */
static const struct {
	enum mg_verdict verdict;
	enum mg_next_action next;
} outcomes[MG_OUTCOME_COUNT] = {
	[MG_O_EVIDENCE_NOT_APPLICABLE] = { MG_REJECT, MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE },
	[MG_O_BASELINE_MISSING_OR_INVALID] =
		{ MG_REJECT, MG_N_RERUN_BASELINE_BEFORE_COMPARING_CANDIDATES },
	[MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET] = { MG_REJECT, MG_N_REWORK_STRATEGY_OR_BUDGET },
	[MG_O_COMPRESSION_NEEDS_QUALITY_RECOVERY] =
		{ MG_TUNE, MG_N_ADJUST_CHECKPOINT_SCOPE_OR_BATCH_PLAN },
	[MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD] =
		{ MG_TUNE, MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION },
	[MG_O_THROUGHPUT_LOSS_EXCEEDS_BUDGET] = { MG_TUNE, MG_N_REDUCE_COMPRESSION_SCOPE },
	[MG_O_BASELINE_STILL_BEST_UNDER_CURRENT_BUDGET] =
		{ MG_TUNE, MG_N_REVISIT_MEMORY_STRATEGY_MIX },
	[MG_O_SELECTION_IS_THRESHOLD_SENSITIVE] = { MG_TUNE, MG_N_COLLECT_BOUNDARY_EVIDENCE },
	[MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS] =
		{ MG_ACCEPT, MG_N_SEND_TO_REGRESSION_ACCEPTANCE },
	[MG_O_DECISION_DRIFT] = { MG_REJECT, MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE },
	[MG_O_TRADE_OFF_BELOW_FLOOR] = { MG_TUNE, MG_N_REBALANCE_MEMORY_AND_THROUGHPUT },
	[MG_O_MARGIN_WITHIN_MEASUREMENT_NOISE] = { MG_TUNE, MG_N_COLLECT_MORE_REPEATS },
	/* tune, or reject with regression.decision: reject */
	[MG_O_PEAK_MEMORY_REGRESSED] = { MG_TUNE, MG_N_FIX_REGRESSION_AGAINST_BASE },
	[MG_O_THROUGHPUT_REGRESSED] = { MG_TUNE, MG_N_FIX_REGRESSION_AGAINST_BASE },
	[MG_O_EVAL_LOSS_REGRESSED] = { MG_TUNE, MG_N_FIX_REGRESSION_AGAINST_BASE },
	[MG_O_REGRESSION_NOT_COMPARED] = { MG_TUNE, MG_N_FIX_REGRESSION_AGAINST_BASE },
};

static const char *const rank_by_names[MG_RANK_BY_COUNT] = {
	[MG_RANK_PEAK_MEMORY] = "peak_memory",
	[MG_RANK_THROUGHPUT] = "throughput",
};

static const char *const covers_names[MG_COVERS_COUNT] = {
	[MG_COVERS_SELECTED] = "selected",
	[MG_COVERS_ALL] = "all",
};

static const char *const noise_test_names[MG_NOISE_TEST_COUNT] = {
	[MG_NOISE_TEST_MANN_WHITNEY] = "mann_whitney",
	[MG_NOISE_TEST_RANGE] = "range",
};

static const char *const verdict_names[MG_VERDICT_COUNT] = {
	"accept", "tune", "reject",
};

static const char *const noise_mode_names[MG_NOISE_MODE_COUNT] = {
	[MG_NOISE_WARN] = "warn",
	[MG_NOISE_TUNE] = "tune",
};

/* The entry `i` of a table of `n`, or NULL when out of range. */
static const char *table_get(const char *const *table, size_t n, int i)
{
	return i >= 0 && (size_t)i < n ? table[i] : NULL;
}

/* The index of `name` in a table of `n`, or -1. */
static int table_find(const char *const *table, size_t n, const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(table[i], name))
			return (int)i;
	return -1;
}

const mg_threshold_def *mg_threshold_def_of(enum mg_threshold t)
{
	return (int)t >= 0 && t < MG_THRESHOLD_COUNT ? &mg_tables__thresholds[t] : NULL;
}

bool mg_threshold_accepts(enum mg_threshold t, double x)
{
	if (!isfinite(x))
		return false;
	switch (mg_tables__thresholds[t].range) {
	case MG_RANGE_POSITIVE: return x > 0;
	case MG_RANGE_FRACTION: return x >= 0 && x <= 1;
	default: return x >= 0;
	}
}

const char *mg_threshold_name(enum mg_threshold t)
{
	const mg_threshold_def *def = mg_threshold_def_of(t);

	return def ? def->key : NULL;
}

int mg_threshold_from_name(const char *name)
{
	int t;

	for (t = 0; name && t < MG_THRESHOLD_COUNT; t++)
		if (!strcmp(mg_tables__thresholds[t].key, name))
			return t;
	return -1;
}

const mg_threshold_def *mg_check(size_t k)
{
	assert(k < MG_CHECK_COUNT);
	return &mg_tables__thresholds[mg_reason_threshold(
		(enum mg_reason)(MG_R_MEMORY_OVER_BUDGET + (int)k))];
}

bool mg_reason_against_baseline(enum mg_reason r)
{
	int t = mg_reason_threshold(r);

	return t >= 0 && mg_tables__thresholds[t].metric >= MG_M_SAVING;
}

enum mg_threshold mg_check_threshold(const mg_threshold_def *c)
{
	return (enum mg_threshold)mg_reason_threshold(c->reason);
}

bool mg_check_active(const mg_threshold_def *c, const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (mg_tables__thresholds[t].reason == c->reason && b->set[t])
			return true;
	return false;
}

bool mg_check_limit(double *limit, const mg_threshold_def *c, const mg_decision *d)
{
	enum mg_threshold t = mg_check_threshold(c);

	if (c->reason != MG_R_QUALITY_OVER_FLOOR) {
		*limit = d->budget.value[t];
		return true;
	}
	if (d->base.quality_ceiling_known) {
		*limit = d->base.quality_ceiling;
		return true;
	}
	*limit = d->budget.value[MG_MAX_EVAL_LOSS];
	return !d->budget.set[MG_MAX_RELATIVE_EVAL_LOSS];
}

const char *mg_ident_name(enum mg_ident id)
{
	return table_get(ident_names, MG_ID_COUNT, (int)id);
}

const char *mg_metric_name(enum mg_metric_id m)
{
	return table_get(metric_names, MG_METRIC_COUNT, (int)m);
}

enum mg_metric_range mg_metric_range(enum mg_metric_id m)
{
	return (int)m >= 0 && m < MG_METRIC_COUNT ? metric_ranges[m] : MG_METRIC_ANY;
}

bool mg_metric_measured(enum mg_metric_id m)
{
	return m == MG_M_PEAK || m == MG_M_SAMPLES || m == MG_M_EVAL_LOSS;
}

bool mg_metric_in_range(enum mg_metric_id m, double x)
{
	switch (mg_metric_range(m)) {
	case MG_METRIC_POSITIVE:
		return x > 0;
	case MG_METRIC_NON_NEGATIVE:
		return x >= 0;
	default:
		return true;
	}
}

const mg_code *mg_codes(size_t *count)
{
	*count = CODE_COUNT;
	return codes;
}

const mg_code *mg_code_of(enum mg_code_id id)
{
	assert((int)id >= 0 && id < MG_CODE_COUNT && codes[id].name);
	return &codes[id];
}

int mg_code_reason(const mg_code *c)
{
	int r;

	for (r = 0; c && r < MG_REASON_COUNT; r++)
		if (mg_reason_code((enum mg_reason)r) == c)
			return r;
	return -1;
}

const mg_code *mg_code_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < CODE_COUNT; i++)
		if (!strcmp(codes[i].name, name))
			return &codes[i];
	return NULL;
}

const mg_code *mg_reason_code(enum mg_reason r)
{
	if ((int)r < 0 || r >= MG_REASON_COUNT)
		return NULL;
	if (MG_REASON_IS_REGRESSION(r))
		return &codes[MG_CODE_PEAK_MEMORY_REGRESSED + (r - MG_R_CHECK_LAST - 1)];
	return &codes[r];
}

const mg_code *mg_issue_code(enum mg_issue i)
{
	if ((int)i < 0 || i >= MG_ISSUE_COUNT)
		return NULL;
	if (i >= ISSUE_FIRST_APPENDED)
		return &codes[appended_issue_codes[i - ISSUE_FIRST_APPENDED]];
	return &codes[MG_CODE_REPORT_HASH_MISMATCH + i];
}

const char *mg_issue_name(enum mg_issue i)
{
	const mg_code *c = mg_issue_code(i);

	return c ? c->name : NULL;
}

const char *mg_status_name(enum mg_status s)
{
	return table_get(status_names, sizeof(status_names) / sizeof(*status_names), (int)s);
}

const char *mg_reason_name(enum mg_reason r)
{
	const mg_code *c = mg_reason_code(r);

	return c ? c->name : NULL;
}

int mg_reason_from_name(const char *name)
{
	int r;

	for (r = 0; name && r < MG_REASON_COUNT; r++)
		if (!strcmp(mg_reason_code((enum mg_reason)r)->name, name))
			return r;
	return -1;
}

bool mg_reason_waivable(enum mg_reason r)
{
	return r >= MG_R_MEMORY_OVER_BUDGET && r <= MG_R_CHECK_LAST;
}

bool mg_reason_waiver_may_name(enum mg_reason r)
{
	return mg_reason_waivable(r) || MG_REASON_IS_REGRESSION(r);
}

/* Does value v fail threshold def at `limit` (NaN never does)? */
bool mg_tables__fails(const mg_threshold_def *def, double v, double limit)
{
	return def->ceiling ? v > limit : v < limit;
}

double mg_tables__as_written(double v)
{
	char text[32];

	if (!isfinite(v) || v == 0)
		return v;
	snprintf(text, sizeof(text), "%.*g", MG_AS_WRITTEN_DIGITS, v);
	return strtod(text, NULL);
}

/* The reasons of the hard limits. */
unsigned mg_tables__hard_reasons(void)
{
	unsigned r = 0;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (mg_tables__thresholds[t].hard)
			r |= BIT(mg_tables__thresholds[t].reason);
	return r;
}

/* The reason a failed threshold gives. */
enum mg_reason mg_tables__threshold_reason(enum mg_threshold t)
{
	return mg_tables__thresholds[t].reason;
}

int mg_reason_threshold(enum mg_reason r)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (mg_tables__thresholds[t].reason == r)
			return t;
	return -1;
}

const char *mg_outcome_name(enum mg_outcome o)
{
	return table_get(outcome_names, MG_OUTCOME_COUNT, (int)o);
}

const char *mg_next_action_name(enum mg_next_action n)
{
	return table_get(next_action_names, MG_NEXT_ACTION_COUNT, (int)n);
}

const char *mg_verdict_name(enum mg_verdict v)
{
	return table_get(verdict_names, MG_VERDICT_COUNT, (int)v);
}

int mg_verdict_from_name(const char *name)
{
	return table_find(verdict_names, MG_VERDICT_COUNT, name);
}

const char *mg_noise_mode_name(enum mg_noise_mode m)
{
	return table_get(noise_mode_names, MG_NOISE_MODE_COUNT, (int)m);
}

int mg_noise_mode_from_name(const char *name)
{
	return table_find(noise_mode_names, MG_NOISE_MODE_COUNT, name);
}

const char *mg_rank_by_name(enum mg_rank_by r)
{
	return table_get(rank_by_names, MG_RANK_BY_COUNT, (int)r);
}

int mg_rank_by_from_name(const char *name)
{
	return table_find(rank_by_names, MG_RANK_BY_COUNT, name);
}

const char *mg_covers_name(enum mg_covers c)
{
	return table_get(covers_names, MG_COVERS_COUNT, (int)c);
}

int mg_covers_from_name(const char *name)
{
	return table_find(covers_names, MG_COVERS_COUNT, name);
}

const char *mg_noise_test_name(enum mg_noise_test t)
{
	return table_get(noise_test_names, MG_NOISE_TEST_COUNT, (int)t);
}

int mg_noise_test_from_name(const char *name)
{
	return table_find(noise_test_names, MG_NOISE_TEST_COUNT, name);
}

bool mg_regression_active(const mg_regression *r)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (r->limits.set[t])
			return true;
	return false;
}

const char *mg_check_operator(const mg_threshold_def *c, bool fails, bool math)
{
	if (fails)
		return c->ceiling ? ">" : "<";
	if (math)
		return c->ceiling ? "\xe2\x89\xa4" : "\xe2\x89\xa5";
	return c->ceiling ? "<=" : ">=";
}

void mg_tables__conclude(mg_decision *d, enum mg_outcome o)
{
	d->verdict = outcomes[o].verdict;
	d->reason = o;
	d->next_action = outcomes[o].next;
}
