/* The decision core (README, "How memgate decides"): see
 * include/memgate/decision.h. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/insight.h"
#include "decision_memo.h"

#define BIT(r) (1u << (r))

/* ---- name tables ---- */

#define CEILING true
#define FLOOR false
#define HARD true
#define TARGET false
static const mg_threshold_def thresholds[MG_THRESHOLD_COUNT] = {
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

/* The values a measured metric can have (README, "Report reference"):
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
static const mg_code codes[] = {
	/* screening reasons, steps 1-6 */
	{ "missing_or_duplicate_name", E,
	  "A candidate's name is missing, empty, not a string, or already used by an earlier candidate.",
	  "Give every candidate of the report a unique, non-empty name." },
	{ "oom", E,
	  "The candidate ran out of memory (status oom or metrics.oom).",
	  "The strategy does not fit the GPU: change it until it fits and measure it again, or leave it out of the report." },
	{ "evidence_not_comparable", S,
	  "The candidate's status is neither 'ok' nor 'comparable', so it is excluded from the comparison.",
	  "Rerun the measurement until it completes, or leave the candidate out of the report." },
	{ "not_in_eligible_candidates", S,
	  "The handoff report's eligible_candidates does not list the candidate, so it is excluded.",
	  "List the candidate in eligible_candidates when it should be compared." },
	{ "missing_or_non_numeric_metric", E,
	  "A number that an active check needs (peak memory, samples/s or eval loss) is missing or not a finite number.",
	  "Record the metric in the report as a JSON number." },
	{ "insufficient_repeats", E,
	  "The candidate has fewer repeats (entries of runs[]) than evidence.min_repeats.",
	  "Repeat the measurement and record every run in runs[]." },
	/* screening reasons, step 7 */
	{ "memory_over_budget", H,
	  "Peak memory is above the hard limit budget.memory_cap_mb.",
	  "Choose or tune a strategy that needs less memory; the cap itself is changed only in the policy of the base branch." },
	{ "samples_per_s_below_floor", H,
	  "Throughput (samples per second) is below the hard limit budget.min_samples_per_s.",
	  "Choose or tune a strategy that trains faster; the floor itself is changed only in the policy of the base branch." },
	{ "quality_over_floor", H,
	  "Eval loss is above the hard quality ceiling: quality.max_eval_loss, or the baseline's eval loss times (1 + quality.max_relative_eval_loss), whichever is lower.",
	  "Recover the model quality of the strategy (e.g. less aggressive compression) and measure it again." },
	{ "memory_saving_below_floor", G,
	  "The memory saved against the baseline is below the target budget.min_memory_saving_mb.",
	  "Test under more memory pressure or add optimizer compression, so that the strategy saves more against the baseline." },
	{ "throughput_below_floor", G,
	  "Throughput relative to the baseline is below the target budget.min_throughput_ratio.",
	  "Reduce the scope of the compression so that the strategy keeps more of the baseline's throughput." },
	{ "quality_delta_over_limit", G,
	  "Eval loss minus the baseline's eval loss is above the target quality.max_quality_delta.",
	  "Adjust the checkpoint scope or the batch plan to recover quality against the baseline." },
	{ "trade_off_below_floor", G,
	  "The candidate loses throughput and saves fewer MB per 1% of it than the target budget.min_mb_saved_per_pct_throughput.",
	  "Rebalance the strategy: save more memory for the throughput it costs, or cost less throughput." },
	/* evidence issues */
	{ "report_hash_mismatch", E,
	  "The committed report's SHA-256 differs from the one the manifest pins.",
	  "Regenerate the manifest for the report (memgate manifest --report PATH), or restore the report that was measured." },
	{ "schema_version_mismatch", E,
	  "The report's schema_version differs from the one the manifest pins.",
	  "Regenerate the report with the pinned schema, or pin the report's schema_version in the manifest." },
	{ "semantic_id_mismatch", E,
	  "The report's semantic_id differs from the one the manifest pins.",
	  "Commit the report the manifest was made for, or regenerate the manifest." },
	{ "approved_result_missing", E,
	  "The manifest names no approved result, or the approved result is not committed.",
	  "Record the decision (memgate record --out PATH), pin it as approved_result in the manifest and commit both." },
	{ "approved_result_hash_mismatch", E,
	  "The approved result's SHA-256 differs from the one the manifest pins.",
	  "Restore the approved record, or pin its current SHA-256 in the manifest." },
	{ "measured_commit_missing", E,
	  "The policy lists evidence.inputs, but the manifest does not say which commit was measured (measured.commit).",
	  "Write the manifest with the commit whose code was measured: memgate manifest --report PATH --measured-commit REV." },
	{ "measured_commit_unknown", E,
	  "The manifest's measured.commit is not in the repository: a shallow clone, or a commit that was never pushed.",
	  "Fetch it (git fetch origin COMMIT, or a deeper clone such as fetch-depth: 0), or push the measured commit." },
	{ "evidence_stale", E,
	  "A path of evidence.inputs changed between the measured commit and the gated one: the report measured other code.",
	  "Measure again at the gated commit, then write the manifest with --measured-commit and commit both." },
	{ "signature_missing", E,
	  "The policy requires signed evidence (provenance) and the manifest has no signature (MANIFEST.sig) at the commit.",
	  "Sign the manifest on the trusted runner that measured it (ssh-keygen -Y sign -n NAMESPACE -f KEY MANIFEST) and commit MANIFEST.sig." },
	{ "signature_malformed", E,
	  "The manifest's signature cannot be read, or is of a kind memgate refuses (ssh-rsa SHA-1, security keys, certificates, RSA under 2048 bits).",
	  "Sign the manifest again on the trusted runner with ssh-keygen -Y sign and commit the .sig file as it wrote it." },
	{ "signature_invalid", E,
	  "The manifest's signature was not made over this manifest by the key it names: the manifest or the signature changed after signing.",
	  "Measure again on the trusted runner, write the manifest there, sign it and commit both; evidence edited after signing is not accepted." },
	{ "signature_namespace_mismatch", E,
	  "The signature was made for another namespace than provenance.namespace, or its key is listed only for other namespaces.",
	  "Sign on the trusted runner with ssh-keygen -Y sign -n and the policy's provenance.namespace (memgate by default)." },
	{ "signer_unknown", E,
	  "The key that signed the manifest is not in the allowed-signers file of the policy that decides.",
	  "Sign on a trusted runner whose key the base branch's allowed-signers file lists; a key added by the change itself is not trusted." },
	{ "signer_outside_validity", E,
	  "The signing key is listed, but its valid-after/valid-before window does not include the day judged (--today, else today in UTC).",
	  "Sign on the trusted runner with a current key, or extend the key's window in the allowed-signers file of the base branch." },
	{ "handoff_not_ready", E,
	  "The handoff report's top-level status is not 'ready_for_budget_review'.",
	  "Finish the measurement stage so that the report is ready for budget review." },
	{ "workload_missing", E,
	  "The report names no workload (workload_id, nor config.workload).",
	  "Record the workload the evidence was measured on in the report." },
	{ "workload_mismatch", E,
	  "The report's workload differs from identity.workload_id of the policy.",
	  "Measure the evidence on the workload the policy names." },
	{ "hardware_missing", E,
	  "The report names no hardware (hardware_id, nor config.device).",
	  "Record the hardware the evidence was measured on in the report." },
	{ "hardware_mismatch", E,
	  "The report's hardware differs from identity.hardware_id of the policy.",
	  "Measure the evidence on the hardware the policy names." },
	{ "model_mismatch", E,
	  "The report's model differs from identity.model_id of the policy.",
	  "Measure the evidence with the model the policy pins." },
	{ "dtype_mismatch", E,
	  "The report's dtype differs from identity.dtype of the policy.",
	  "Measure the evidence with the dtype the policy pins." },
	{ "amp_dtype_mismatch", E,
	  "The report's amp_dtype differs from identity.amp_dtype of the policy.",
	  "Measure the evidence with the amp_dtype the policy pins." },
	{ "batch_size_mismatch", E,
	  "The report's batch_size differs from identity.batch_size of the policy.",
	  "Measure the evidence with the batch size the policy pins." },
	{ "seq_len_mismatch", E,
	  "The report's seq_len differs from identity.seq_len of the policy.",
	  "Measure the evidence with the sequence length the policy pins." },
	{ "optimizer_mismatch", E,
	  "The report's optimizer differs from identity.optimizer of the policy.",
	  "Measure the evidence with the optimizer the policy pins." },
	{ "eligible_candidates_missing", E,
	  "The handoff report has no non-empty eligible_candidates list.",
	  "List the candidates ready for comparison in eligible_candidates." },
	{ "candidates_missing", E,
	  "The report has no candidates.",
	  "Commit a report with at least the baseline and one strategy under candidates." },
	{ "aggregate_outside_runs", E,
	  "A candidate's aggregate value lies outside the [min, max] of its runs.",
	  "Recompute the aggregate from the runs, or record the runs that produced it." },
	/* the decision's own */
	{ "baseline_missing_or_invalid", E,
	  "A value must be derived from the baseline candidate (evidence.baseline), which is absent or was not measured.",
	  "Rerun the baseline and record it in the report before comparing candidates." },
	{ "selection_is_threshold_sensitive", S,
	  "A stricter or grid scenario of sensitivity selects another winner than the base budget.",
	  "Collect evidence near the thresholds that change the winner." },
	{ "decision_drift", E,
	  "The approved record's decision or selected candidate differs from the one computed now (--require-approved).",
	  "Re-approve the new decision (memgate record), or restore the evidence that was approved." },
	/* the check's own */
	{ "warning", W,
	  "memgate warns about its inputs: an uncommitted change, a report named without a manifest, no sensitivity scenarios.",
	  "Read the warning; it does not change the decision." },
	{ "waiver_applied", N,
	  "A waiver of the policy lets the candidate pass a check it fails.",
	  "Fix the cause before the waiver expires; its owner and justification are in the policy." },
	{ "waiver_unmatched", W,
	  "A waiver names a candidate that is not in the report, or a reason its candidate does not fail.",
	  "Remove the waiver from the policy, or correct its candidate or reason." },
	{ "note", N,
	  "memgate notes something about its inputs that needs no action (a policy adopted by this change, ...).",
	  "Nothing to do; it is there so that nobody is surprised." },
	{ "policy_change", W,
	  "The change's own policy differs from the policy that decides (the policy revision); it takes effect once merged.",
	  "Review a change that loosens the budget like any budget change, by the budget's owners." },
	{ "waiver_expired", W,
	  "A waiver's expiry date has passed, so it is ignored.",
	  "Fix the cause, or renew the waiver (a new expiry date) in the policy of the base branch." },
	/* the decision's own, added later */
	{ "margin_within_measurement_noise", S,
	  "With evidence.noise: tune, a check of the selected candidate is within the noise of its runs: some runs pass it and some fail.",
	  "Collect more repeats of the selected candidate so that its margin is larger than the noise between runs." },
	/* the check's own, added later */
	{ "waiver_expiring", N,
	  "A waiver in force expires within the policy's waivers_warn_days.",
	  "Fix the cause before the expiry date, or renew the waiver (a new expiry date) in the policy of the base branch." },
	/* the regressions' reasons, added later (appended: SARIF's ruleIndex is this
	 * order, and the codes before them keep theirs) */
	{ "peak_memory_regressed", G,
	  "The candidate's peak memory rose above the base revision's by more than regression.max_peak_increase_mb or regression.max_peak_increase_pct allows.",
	  "Find the change that raised the peak and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
	{ "throughput_regressed", G,
	  "The candidate's samples/s fell below the base revision's by more than regression.max_throughput_drop_pct allows.",
	  "Find the change that slowed the candidate and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
	{ "eval_loss_regressed", G,
	  "The candidate's eval loss rose above the base revision's by more than regression.max_eval_loss_increase allows.",
	  "Find the change that cost quality and undo or rework it; the allowance itself is changed only in the policy of the base branch." },
};
#undef E
#undef H
#undef G
#undef S
#undef W
#undef N

#define CODE_COUNT (sizeof(codes) / sizeof(codes[0]))
/* The regression reasons' codes close the table. */
#define REGRESSION_CODES (MG_REASON_COUNT - 1 - MG_R_CHECK_LAST)
_Static_assert(MG_REASON_COUNT == 16 && MG_ISSUE_COUNT == 28 && CODE_COUNT == 16 + 28 + 11,
	       "codes[] holds the reasons up to the step-7 ones, the issues, in enum order, "
	       "then the others, the regression reasons last");

static const char *const outcome_names[MG_OUTCOME_COUNT] = {
	"evidence_not_applicable", "baseline_missing_or_invalid",
	"no_candidate_meets_base_budget", "compression_needs_quality_recovery",
	"memory_saving_below_meaningful_threshold", "throughput_loss_exceeds_budget",
	"baseline_still_best_under_current_budget", "selection_is_threshold_sensitive",
	"selection_stable_across_thresholds", "decision_drift", "trade_off_below_floor",
	"margin_within_measurement_noise", "peak_memory_regressed", "throughput_regressed",
	"eval_loss_regressed",
};

static const char *const next_action_names[MG_NEXT_ACTION_COUNT] = {
	"rebuild_same_workload_evidence", "rerun_baseline_before_comparing_candidates",
	"rework_strategy_or_budget", "adjust_checkpoint_scope_or_batch_plan",
	"test_larger_pressure_or_optimizer_compression", "reduce_compression_scope",
	"revisit_memory_strategy_mix", "collect_boundary_evidence",
	"send_to_regression_acceptance", "re_approve_or_restore_evidence",
	"record_and_pin_approved_result", "restore_or_reapprove_approved_result",
	"rebalance_memory_and_throughput", "collect_more_repeats", "measure_again",
	"sign_on_trusted_runner", "fix_regression_against_base",
};

/* Each outcome's verdict and next action: the decision table of README
 * "How memgate decides". */
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
};

static const char *const covers_names[MG_COVERS_COUNT] = {
	[MG_COVERS_SELECTED] = "selected",
	[MG_COVERS_ALL] = "all",
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
	return (int)t >= 0 && t < MG_THRESHOLD_COUNT ? &thresholds[t] : NULL;
}

bool mg_threshold_accepts(enum mg_threshold t, double x)
{
	if (!isfinite(x))
		return false;
	switch (thresholds[t].range) {
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
		if (!strcmp(thresholds[t].key, name))
			return t;
	return -1;
}

const mg_threshold_def *mg_check(size_t k)
{
	assert(k < MG_CHECK_COUNT);
	return &thresholds[mg_reason_threshold((enum mg_reason)(MG_R_MEMORY_OVER_BUDGET + (int)k))];
}

bool mg_reason_against_baseline(enum mg_reason r)
{
	int t = mg_reason_threshold(r);

	return t >= 0 && thresholds[t].metric >= MG_M_SAVING;
}

enum mg_threshold mg_check_threshold(const mg_threshold_def *c)
{
	return (enum mg_threshold)mg_reason_threshold(c->reason);
}

bool mg_check_active(const mg_threshold_def *c, const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (thresholds[t].reason == c->reason && b->set[t])
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
		return &codes[CODE_COUNT - REGRESSION_CODES + (size_t)(r - MG_R_CHECK_LAST - 1)];
	return &codes[r];
}

const mg_code *mg_issue_code(enum mg_issue i)
{
	return (int)i >= 0 && i < MG_ISSUE_COUNT ? &codes[MG_R_CHECK_LAST + 1 + i] : NULL;
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

/* Does value v fail threshold def at `limit` (NaN never does)? */
static bool fails(const mg_threshold_def *def, double v, double limit)
{
	return def->ceiling ? v > limit : v < limit;
}

/* The reasons of the hard limits. */
static unsigned hard_reasons(void)
{
	unsigned r = 0;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (thresholds[t].hard)
			r |= BIT(thresholds[t].reason);
	return r;
}

/* The reason a failed threshold gives. */
static enum mg_reason threshold_reason(enum mg_threshold t)
{
	return thresholds[t].reason;
}

int mg_reason_threshold(enum mg_reason r)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (thresholds[t].reason == r)
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

const char *mg_covers_name(enum mg_covers c)
{
	return table_get(covers_names, MG_COVERS_COUNT, (int)c);
}

int mg_covers_from_name(const char *name)
{
	return table_find(covers_names, MG_COVERS_COUNT, name);
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

/* ---- screening: steps 1-4 (independent of the budget) ---- */

struct named { const char *name; size_t index; };

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* A malloc'd flag per candidate: its name equals an earlier candidate's. */
static bool *find_duplicates(const mg_evidence *ev)
{
	bool *dup = mg_xcalloc(ev->candidate_count, sizeof(*dup));
	struct named *v = mg_xcalloc(ev->candidate_count, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name) {
			v[n].name = ev->candidates[i].name;
			v[n++].index = i;
		}
	if (n)
		qsort(v, n, sizeof(*v), named_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(v[i - 1].name, v[i].name))
			dup[v[i].index] = true;
	free(v);
	return dup;
}

/* The handoff's eligible names, sorted once so that each candidate's step 4
 * is a binary search, not a scan of a list as long as the report allows. */
struct eligible {
	const char **names;
	size_t count;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void eligible_init(struct eligible *el, const mg_evidence *ev)
{
	size_t i;

	el->names = mg_xcalloc(ev->eligible_count, sizeof(*el->names));
	el->count = 0;
	for (i = 0; i < ev->eligible_count; i++)
		if (ev->eligible[i])
			el->names[el->count++] = ev->eligible[i];
	if (el->count > 1)
		qsort(el->names, el->count, sizeof(*el->names), name_cmp);
}

static bool is_eligible(const struct eligible *el, const char *name)
{
	return el->count &&
	       bsearch(&name, el->names, el->count, sizeof(*el->names), name_cmp);
}

static bool status_comparable(const char *status)
{
	return status && (!strcmp(status, "ok") || !strcmp(status, "comparable"));
}

/* The reason of the first of steps 1-4 that applies to candidate i, or -1. */
static int early_reason(const mg_evidence *ev, size_t i, const bool *dup,
			const struct eligible *el)
{
	const mg_candidate *c = &ev->candidates[i];

	if (!c->name || !*c->name || dup[i])
		return MG_R_MISSING_OR_DUPLICATE_NAME;
	if (c->oom)
		return MG_R_OOM;
	if (!status_comparable(c->status))
		return MG_R_EVIDENCE_NOT_COMPARABLE;
	if (ev->eligible_present && !is_eligible(el, c->name))
		return MG_R_NOT_IN_ELIGIBLE_CANDIDATES;
	return -1;
}

/* A malloc'd array: each candidate's step 1-4 reason, or -1. */
static int *early_reasons(const mg_evidence *ev)
{
	int *early = mg_xcalloc(ev->candidate_count, sizeof(*early));
	bool *dup = find_duplicates(ev);
	struct eligible el;
	size_t i;

	eligible_init(&el, ev);
	for (i = 0; i < ev->candidate_count; i++)
		early[i] = early_reason(ev, i, dup, &el);
	free(el.names);
	free(dup);
	return early;
}

/* ---- screening: steps 5-6 ---- */

static bool has_number(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_NUMBER;
}

static bool is_invalid(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_INVALID;
}

/*
 * Step 5: the first own number an active check of b needs that c lacks, or
 * -1.  Peak memory always; samples/s and eval loss for their thresholds and
 * to derive a ratio or delta the report does not give; a paired value the
 * report gives must be a finite number.
 */
static int missing_metric(const mg_candidate *c, const mg_budget *b)
{
	bool trade = b->set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT];
	bool need_samples = b->set[MG_MIN_SAMPLES_PER_S] ||
		((b->set[MG_MIN_THROUGHPUT_RATIO] || trade) && !has_number(c, MG_M_RATIO));
	bool need_loss = b->set[MG_MAX_EVAL_LOSS] || b->set[MG_MAX_RELATIVE_EVAL_LOSS] ||
		(b->set[MG_MAX_QUALITY_DELTA] && !has_number(c, MG_M_DELTA));
	int t;

	if (!has_number(c, MG_M_PEAK))
		return MG_M_PEAK;
	if (trade && is_invalid(c, MG_M_SAVING))
		return MG_M_SAVING;
	if (trade && is_invalid(c, MG_M_RATIO))
		return MG_M_RATIO;
	if (need_samples && !has_number(c, MG_M_SAMPLES))
		return MG_M_SAMPLES;
	if (need_loss && !has_number(c, MG_M_EVAL_LOSS))
		return MG_M_EVAL_LOSS;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t] && thresholds[t].metric >= MG_M_SAVING &&
		    is_invalid(c, thresholds[t].metric))
			return (int)thresholds[t].metric;
	return -1;
}

/* The reason of the first of steps 1-6 that applies, or -1 (step 7). */
static int stop_reason(const mg_rules *rules, const mg_candidate *c,
		       const mg_budget *b, int early)
{
	if (early >= 0)
		return early;
	if (missing_metric(c, b) >= 0)
		return MG_R_MISSING_OR_NON_NUMERIC_METRIC;
	if (c->repeats < rules->min_repeats)
		return MG_R_INSUFFICIENT_REPEATS;
	return -1;
}

/* ---- screening: values and step 7 ---- */

struct screen_ctx {
	const mg_rules *rules;
	const unsigned *waive;  /* per candidate: the reasons waived for it */
	const mg_evidence *ev;
	const mg_budget *b;
	bool scenario;          /* a missing baseline value makes a candidate invalid */
	bool has_base;          /* some candidate is named rules->baseline */
	size_t base;            /* the first such */
	const mg_candidate *measured; /* the baseline when it reached step 7, else NULL */
};

const char *mg_rules_baseline(const mg_rules *rules)
{
	return rules && rules->baseline ? rules->baseline : "baseline";
}

bool mg_find_baseline(size_t *index, const mg_rules *rules, const mg_evidence *ev)
{
	const char *want = mg_rules_baseline(rules);
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name && !strcmp(ev->candidates[i].name, want)) {
			*index = i;
			return true;
		}
	return false;
}

/* Whether the measured baseline can give the value that metric m derives from. */
static bool base_gives(const struct screen_ctx *x, enum mg_metric_id m)
{
	const mg_candidate *bl = x->measured;

	if (!bl)
		return false;
	switch (m) {
	case MG_M_SAVING: return has_number(bl, MG_M_PEAK);
	case MG_M_RATIO:
		return has_number(bl, MG_M_SAMPLES) && bl->metric[MG_M_SAMPLES].value > 0;
	case MG_M_DELTA: return has_number(bl, MG_M_EVAL_LOSS);
	default: return false;
	}
}

static void set_value(mg_evaluation *e, enum mg_metric_id m, double v)
{
	e->known[m] = true;
	e->value[m] = v;
}

/* Derives metric d of e from the measured baseline; false when it cannot. */
static bool derive(double *v, const struct screen_ctx *x, const mg_evaluation *e,
		   enum mg_metric_id d)
{
	const mg_metric *bl = x->measured ? x->measured->metric : NULL;

	if (!base_gives(x, d))
		return false;
	if (d == MG_M_SAVING && e->known[MG_M_PEAK])
		*v = bl[MG_M_PEAK].value - e->value[MG_M_PEAK];
	else if (d == MG_M_RATIO && e->known[MG_M_SAMPLES])
		*v = e->value[MG_M_SAMPLES] / bl[MG_M_SAMPLES].value;
	else if (d == MG_M_DELTA && e->known[MG_M_EVAL_LOSS])
		*v = e->value[MG_M_EVAL_LOSS] - bl[MG_M_EVAL_LOSS].value;
	else
		return false;
	return true;
}

/* Fills the own and paired numbers, then the derived values that can be
 * had: the measured baseline's own are saving 0, ratio 1, delta 0. */
static void fill_values(const struct screen_ctx *x, mg_evaluation *e, bool is_base)
{
	static const enum mg_metric_id derived[] = { MG_M_SAVING, MG_M_RATIO, MG_M_DELTA };
	static const double base_value[] = { 0.0, 1.0, 0.0 };
	const mg_candidate *c = &x->ev->candidates[e->index];
	size_t k;
	double v;

	for (k = 0; k < MG_METRIC_COUNT; k++)
		if (has_number(c, (enum mg_metric_id)k))
			set_value(e, (enum mg_metric_id)k, c->metric[k].value);
	for (k = 0; k < 3; k++) {
		if (e->known[derived[k]])
			continue;
		if (is_base && x->measured)
			set_value(e, derived[k], base_value[k]);
		else if (derive(&v, x, e, derived[k]))
			set_value(e, derived[k], v);
	}
	if (mg_insight_exchange(&v, e) == MG_EXCHANGE_RATE)
		set_value(e, MG_M_RATE, v);
}

/* True when a non-baseline candidate at step 7 needs a value that the
 * baseline cannot give (README, "How memgate decides", 3.: baseline_missing_or_invalid). */
static bool needs_missing_base(const struct screen_ctx *x, const mg_candidate *c)
{
	const mg_budget *b = x->b;
	bool trade = b->set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT];
	bool need_ratio = b->set[MG_MIN_THROUGHPUT_RATIO] || trade ||
		x->rules->rank_by == MG_RANK_THROUGHPUT;

	if ((b->set[MG_MIN_MEMORY_SAVING_MB] || trade) && !has_number(c, MG_M_SAVING) &&
	    !base_gives(x, MG_M_SAVING))
		return true;
	if (need_ratio && !has_number(c, MG_M_RATIO) && !base_gives(x, MG_M_RATIO))
		return true;
	if (b->set[MG_MAX_QUALITY_DELTA] && !has_number(c, MG_M_DELTA) &&
	    !base_gives(x, MG_M_DELTA))
		return true;
	return b->set[MG_MAX_RELATIVE_EVAL_LOSS] && !base_gives(x, MG_M_DELTA);
}

/* Sets the screening's effective quality ceiling (README, "How memgate
 * decides", 2.: quality_over_floor). */
static void find_ceiling(mg_screening *s, const struct screen_ctx *x)
{
	const mg_budget *b = x->b;
	bool rel = b->set[MG_MAX_RELATIVE_EVAL_LOSS] && base_gives(x, MG_M_DELTA);
	double rel_ceiling = 0.0;

	s->quality_ceiling_from = -1;
	if (rel) {
		rel_ceiling = x->measured->metric[MG_M_EVAL_LOSS].value *
			(1.0 + b->value[MG_MAX_RELATIVE_EVAL_LOSS]);
		s->quality_ceiling = rel_ceiling;
		s->quality_ceiling_from = MG_MAX_RELATIVE_EVAL_LOSS;
	}
	if (b->set[MG_MAX_EVAL_LOSS] && (!rel || b->value[MG_MAX_EVAL_LOSS] <= rel_ceiling)) {
		s->quality_ceiling = b->value[MG_MAX_EVAL_LOSS];
		s->quality_ceiling_from = MG_MAX_EVAL_LOSS;
	}
	s->quality_ceiling_known = s->quality_ceiling_from >= 0 &&
		(rel || !b->set[MG_MAX_RELATIVE_EVAL_LOSS]);
}

/* The step-7 reasons of e under budget b; checks on unknown values are skipped. */
static unsigned threshold_reasons(const mg_screening *s, const mg_evaluation *e,
				  const mg_budget *b)
{
	unsigned r = 0;
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = &thresholds[t];

		/* both quality ceilings: the effective one, below */
		if (def->reason == MG_R_QUALITY_OVER_FLOOR || !b->set[t])
			continue;
		if (e->known[def->metric] && fails(def, e->value[def->metric], b->value[t]))
			r |= BIT(def->reason);
	}
	if (s->quality_ceiling_from >= 0 &&
	    fails(&thresholds[MG_MAX_EVAL_LOSS], e->value[MG_M_EVAL_LOSS], s->quality_ceiling))
		r |= BIT(MG_R_QUALITY_OVER_FLOOR);
	return r;
}

static void stop_at(mg_evaluation *e, int reason)
{
	static const enum mg_status status[] = {
		MG_STATUS_INVALID, MG_STATUS_OOM, MG_STATUS_EXCLUDED,
		MG_STATUS_EXCLUDED, MG_STATUS_INVALID, MG_STATUS_INVALID,
	};

	e->status = status[reason];
	e->reasons = BIT(reason);
}

/* Step 7 for a candidate that passed steps 1-6. */
static void check_candidate(mg_screening *s, const struct screen_ctx *x,
			    mg_evaluation *e, bool is_base)
{
	const mg_candidate *c = &x->ev->candidates[e->index];
	bool missing = !is_base && needs_missing_base(x, c);

	if (missing && x->scenario) {
		stop_at(e, MG_R_MISSING_OR_NON_NUMERIC_METRIC);
	} else {
		s->needs_missing_baseline |= missing;
		e->reasons = threshold_reasons(s, e, x->b);
		e->waived = e->reasons & x->waive[e->index];
		e->reasons &= ~e->waived;
		e->status = e->reasons ? MG_STATUS_REJECTED : MG_STATUS_FEASIBLE;
	}
}

/* ---- ranking (README, "How memgate decides": Ranking) ---- */

/* Compares one key; a value that is not known sorts last. */
static int key_cmp(const mg_evaluation *a, const mg_evaluation *b,
		   enum mg_metric_id m, bool descending)
{
	int c;

	if (a->known[m] != b->known[m])
		return a->known[m] ? -1 : 1;
	if (!a->known[m])
		return 0;
	c = (a->value[m] > b->value[m]) - (a->value[m] < b->value[m]);
	return descending ? -c : c;
}

static int rank_cmp(const mg_evaluation *a, const mg_evaluation *b, enum mg_rank_by by)
{
	int c;

	if (by == MG_RANK_THROUGHPUT) {
		if ((c = key_cmp(a, b, MG_M_RATIO, true)) != 0 ||
		    (c = key_cmp(a, b, MG_M_PEAK, false)) != 0)
			return c;
	} else {
		if ((c = key_cmp(a, b, MG_M_PEAK, false)) != 0 ||
		    (c = key_cmp(a, b, MG_M_RATIO, true)) != 0)
			return c;
	}
	return key_cmp(a, b, MG_M_DELTA, false);
}

/* Stable merge sort of evaluation indices idx[0..n) using tmp[0..n). */
static void rank_sort(size_t *idx, size_t *tmp, size_t n, const mg_evaluation *evs,
		      enum mg_rank_by by)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	rank_sort(idx, tmp, mid, evs, by);
	rank_sort(idx + mid, tmp, n - mid, evs, by);
	while (i < mid && j < n) {
		if (rank_cmp(&evs[idx[j]], &evs[idx[i]], by) < 0)
			tmp[k++] = idx[j++];
		else
			tmp[k++] = idx[i++];
	}
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

/* A malloc'd list of the evaluations with `status`, in rank order; sets *n. */
static size_t *ranked(size_t *n, const mg_screening *s, enum mg_status status,
		      enum mg_rank_by by)
{
	size_t *idx = mg_xcalloc(s->count, sizeof(*idx));
	size_t *tmp = mg_xcalloc(s->count, sizeof(*tmp));
	size_t i;

	*n = 0;
	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].status == status)
			idx[(*n)++] = i;
	rank_sort(idx, tmp, *n, s->evaluations, by);
	free(tmp);
	return idx;
}

/* ---- screening: the whole budget ---- */

/* Screens every candidate; `early` holds each candidate's step 1-4 reason,
 * `waive` the reasons waived for it. */
static void screen(mg_screening *s, const mg_rules *rules, const mg_evidence *ev,
		   const mg_budget *b, bool scenario, const int *early,
		   const unsigned *waive)
{
	struct screen_ctx x = {
		.rules = rules, .waive = waive, .ev = ev, .b = b, .scenario = scenario,
	};
	int *stop = mg_xcalloc(ev->candidate_count, sizeof(*stop));
	size_t i;

	memset(s, 0, sizeof(*s));
	s->count = ev->candidate_count;
	s->evaluations = mg_xcalloc(s->count, sizeof(*s->evaluations));
	for (i = 0; i < s->count; i++)
		stop[i] = stop_reason(rules, &ev->candidates[i], b, early[i]);
	x.has_base = mg_find_baseline(&x.base, rules, ev);
	if (x.has_base && stop[x.base] < 0)
		x.measured = &ev->candidates[x.base];
	s->baseline_measured = x.measured != NULL;
	find_ceiling(s, &x);
	for (i = 0; i < s->count; i++) {
		mg_evaluation *e = &s->evaluations[i];
		bool is_base = x.has_base && i == x.base;

		e->index = i;
		e->name = ev->candidates[i].name;
		e->repeats = ev->candidates[i].repeats;
		e->missing_metric = stop[i] == MG_R_MISSING_OR_NON_NUMERIC_METRIC ?
			missing_metric(&ev->candidates[i], b) : -1;
		fill_values(&x, e, is_base);
		if (stop[i] >= 0)
			stop_at(e, stop[i]);
		else
			check_candidate(s, &x, e, is_base);
	}
	s->feasible = ranked(&s->feasible_count, s, MG_STATUS_FEASIBLE, rules->rank_by);
	free(stop);
}

/* ---- waivers ---- */

/*
 * A malloc'd array, one per waiver: the candidate it names (the first of
 * that name: a later one is a duplicate, stopped at step 1), or SIZE_MAX.
 */
static size_t *waiver_targets(const mg_rules *rules, const mg_evidence *ev)
{
	size_t *target = mg_xcalloc(rules->waiver_count ? rules->waiver_count : 1,
				    sizeof(*target));
	size_t w, i;

	for (w = 0; w < rules->waiver_count; w++) {
		target[w] = SIZE_MAX;
		for (i = 0; i < ev->candidate_count && target[w] == SIZE_MAX; i++)
			if (ev->candidates[i].name && rules->waivers[w].candidate &&
			    !strcmp(ev->candidates[i].name, rules->waivers[w].candidate))
				target[w] = i;
	}
	return target;
}

/* A malloc'd array, one per candidate: the step-7 reasons waived for it. */
static unsigned *waived_reasons(const mg_rules *rules, const mg_evidence *ev,
				const size_t *target)
{
	unsigned *waive = mg_xcalloc(ev->candidate_count ? ev->candidate_count : 1,
				     sizeof(*waive));
	size_t w;

	for (w = 0; w < rules->waiver_count; w++)
		if (target[w] != SIZE_MAX && mg_reason_waivable(rules->waivers[w].reason))
			waive[target[w]] |= BIT(rules->waivers[w].reason);
	return waive;
}

/* screen() with its per-candidate inputs computed here: mg_screen and
 * mg_scenario_screen. */
static void screen_alone(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
			 const mg_budget *budget, bool scenario)
{
	int *early = early_reasons(ev);
	size_t *target = waiver_targets(rules, ev);
	unsigned *waive = waived_reasons(rules, ev, target);

	screen(out, rules, ev, budget, scenario, early, waive);
	free(waive);
	free(target);
	free(early);
}

void mg_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
	       const mg_budget *budget)
{
	assert(out && rules && ev && budget);
	screen_alone(out, rules, ev, budget, false);
}

void mg_screening_release(mg_screening *s)
{
	if (!s)
		return;
	free(s->evaluations);
	free(s->feasible);
	memset(s, 0, sizeof(*s));
}

/* The name of the first feasible candidate by rank, or NULL. */
static const char *winner(const mg_screening *s)
{
	return s->feasible_count ? s->evaluations[s->feasible[0]].name : NULL;
}

/* ---- evidence issues (README, "How memgate decides", 1.) ---- */

static bool value_equal(const mg_value *a, const mg_value *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == MG_VALUE_STRING)
		return a->string && b->string && !strcmp(a->string, b->string);
	if (a->kind == MG_VALUE_NUMBER)
		return a->number == b->number;
	return false;
}

/* The issues of the pinned identity fields (workload and hardware always). */
static void identity_issues(bool *issue, const mg_rules *rules, const mg_evidence *ev)
{
	static const enum mg_issue mismatch[MG_ID_COUNT] = {
		MG_ISSUE_WORKLOAD_MISMATCH, MG_ISSUE_HARDWARE_MISMATCH,
		MG_ISSUE_MODEL_MISMATCH, MG_ISSUE_DTYPE_MISMATCH,
		MG_ISSUE_AMP_DTYPE_MISMATCH, MG_ISSUE_BATCH_SIZE_MISMATCH,
		MG_ISSUE_SEQ_LEN_MISMATCH, MG_ISSUE_OPTIMIZER_MISMATCH,
	};
	static const enum mg_issue missing[MG_ID_COUNT] = {
		MG_ISSUE_WORKLOAD_MISSING, MG_ISSUE_HARDWARE_MISSING,
		MG_ISSUE_COUNT, MG_ISSUE_COUNT, MG_ISSUE_COUNT,
		MG_ISSUE_COUNT, MG_ISSUE_COUNT, MG_ISSUE_COUNT,
	};
	size_t id;

	for (id = 0; id < MG_ID_COUNT; id++) {
		const mg_value *have = &ev->identity[id], *pin = &rules->pin[id];

		if (missing[id] == MG_ISSUE_COUNT && pin->kind == MG_VALUE_ABSENT)
			continue;
		if (missing[id] != MG_ISSUE_COUNT && have->kind == MG_VALUE_ABSENT)
			issue[missing[id]] = true;
		else if (!value_equal(have, pin))
			issue[mismatch[id]] = true;
	}
}

static bool handoff_ready(const mg_value *status)
{
	return status->kind == MG_VALUE_ABSENT ||
	       (status->kind == MG_VALUE_STRING && status->string &&
		!strcmp(status->string, "ready_for_budget_review"));
}

static void find_issues(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			const bool *pre_issues)
{
	size_t i;

	for (i = 0; pre_issues && i <= MG_ISSUE_PRE_LAST; i++)
		d->issue[i] = pre_issues[i];
	d->issue[MG_ISSUE_HANDOFF_NOT_READY] = !handoff_ready(&ev->handoff_status);
	identity_issues(d->issue, rules, ev);
	d->issue[MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING] = ev->handoff && !ev->eligible_count;
	d->issue[MG_ISSUE_CANDIDATES_MISSING] = !ev->candidates_present || !ev->candidate_count;
	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].aggregate_outside_runs)
			d->issue[MG_ISSUE_AGGREGATE_OUTSIDE_RUNS] = true;
	d->applicable = true;
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			d->applicable = false;
}

/* ---- the base decision (README, "How memgate decides", 3.) ---- */

static void conclude(mg_decision *d, enum mg_outcome o)
{
	d->verdict = outcomes[o].verdict;
	d->reason = o;
	d->next_action = outcomes[o].next;
}

/* 2.3 step 4: the first non-baseline candidate by rank that passes every
 * hard limit, or NULL. */
static const mg_evaluation *near_miss(const mg_decision *d, const mg_rules *rules,
				      const mg_evidence *ev)
{
	const mg_evaluation *found = NULL;
	size_t n, i, base = 0;
	bool has_base = mg_find_baseline(&base, rules, ev);
	size_t *idx = ranked(&n, &d->base, MG_STATUS_REJECTED, rules->rank_by);
	const unsigned hard = hard_reasons();

	for (i = 0; i < n && !found; i++) {
		const mg_evaluation *e = &d->base.evaluations[idx[i]];

		if (!(e->reasons & hard) && !(has_base && e->index == base))
			found = e;
	}
	free(idx);
	return found;
}

/* 2.3 steps 4 and 5. */
static void decide_without_feasible(mg_decision *d, const mg_rules *rules,
				    const mg_evidence *ev)
{
	const mg_evaluation *e = near_miss(d, rules, ev);

	if (!e)
		conclude(d, MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET);
	else if (e->reasons & BIT(MG_R_QUALITY_DELTA_OVER_LIMIT))
		conclude(d, MG_O_COMPRESSION_NEEDS_QUALITY_RECOVERY);
	else if (e->reasons & BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR))
		conclude(d, MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD);
	else if (e->reasons & BIT(MG_R_THROUGHPUT_BELOW_FLOOR))
		conclude(d, MG_O_THROUGHPUT_LOSS_EXCEEDS_BUDGET);
	else
		conclude(d, MG_O_TRADE_OFF_BELOW_FLOOR);
	d->selected = e ? e->name : NULL;
}

/* Decides 2.3 steps 1-5; returns the step that decided, and 3 with
 * *sensitive set when sensitivity (2.5) makes the decision. */
static int decide_base(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
		       bool *sensitive)
{
	size_t base;

	*sensitive = false;
	if (!d->applicable) {
		conclude(d, MG_O_EVIDENCE_NOT_APPLICABLE);
		return 1;
	}
	if (d->base.needs_missing_baseline) {
		conclude(d, MG_O_BASELINE_MISSING_OR_INVALID);
		return 2;
	}
	if (!d->base.feasible_count) {
		decide_without_feasible(d, rules, ev);
		return 4;
	}
	if (mg_find_baseline(&base, rules, ev) && d->base.feasible[0] == base)
		conclude(d, MG_O_BASELINE_STILL_BEST_UNDER_CURRENT_BUDGET);
	else
		*sensitive = true;
	return 3;
}

/* ---- sensitivity (README, "How memgate decides": Sensitivity) ---- */

static size_t grid_cells(const mg_rules *rules, bool *overflow)
{
	size_t product = 1, a;

	*overflow = false;
	if (!rules->grid_count)
		return 0;
	for (a = 0; a < rules->grid_count; a++)
		if (!rules->grid[a].count)
			return 0;
	for (a = 0; a < rules->grid_count; a++) {
		if (product > SIZE_MAX / rules->grid[a].count) {
			*overflow = true;
			return SIZE_MAX;
		}
		product *= rules->grid[a].count;
	}
	return product;
}

/* Sets *count to the number of scenarios; fails above the limit. */
static int count_scenarios(size_t *count, const mg_rules *rules, size_t max,
			   mg_error *err)
{
	bool overflow;
	size_t cells = grid_cells(rules, &overflow);
	size_t limit = max ? max : MG_DECISION_MAX_SCENARIOS;

	*count = 0;
	if (overflow || cells > SIZE_MAX - rules->stricter_count)
		return mg_error_set(err, NULL, 0, 0,
				    "sensitivity has more than %zu scenarios, more than the limit of %zu",
				    (size_t)SIZE_MAX, limit);
	*count = rules->stricter_count + cells;
	if (*count > limit)
		return mg_error_set(err, NULL, 0, 0,
				    "sensitivity has %zu scenarios, more than the limit of %zu",
				    *count, limit);
	return MG_OK;
}

/* Fails when the scenarios would screen more evaluations than the limit
 * (each scenario keeps a bit per candidate, and the record lists them). */
static int check_evaluations(size_t scenarios, const mg_evidence *ev, mg_error *err)
{
	unsigned long long limit = MG_DECISION_MAX_EVALUATIONS;
	unsigned long long n = ev->candidate_count;

	if (!scenarios || n <= limit / scenarios)
		return MG_OK;
	return mg_error_set(err, NULL, 0, 0,
			    "sensitivity has %zu scenarios of %zu candidates (%llu evaluations), "
			    "more than the limit of %llu evaluations (raise it with make "
			    "EXTRA_CFLAGS=-DMG_DECISION_MAX_EVALUATIONS=N)",
			    scenarios, ev->candidate_count, n * scenarios, limit);
}

/* The base budget with a scenario's overrides (2.5 quality rule). */
static void apply_overrides(mg_budget *out, const mg_budget *base, const mg_budget *ov)
{
	size_t t;

	*out = *base;
	if (ov->set[MG_MAX_EVAL_LOSS] || ov->set[MG_MAX_RELATIVE_EVAL_LOSS]) {
		out->set[MG_MAX_EVAL_LOSS] = false;
		out->set[MG_MAX_RELATIVE_EVAL_LOSS] = false;
	}
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (ov->set[t]) {
			out->set[t] = true;
			out->value[t] = ov->value[t];
		}
}

/* The overrides of grid cell k: last axis fastest. */
static void grid_overrides(mg_budget *ov, const mg_rules *rules, size_t k)
{
	size_t a = rules->grid_count;

	memset(ov, 0, sizeof(*ov));
	while (a-- > 0) {
		const mg_grid_axis *axis = &rules->grid[a];

		ov->set[axis->threshold] = true;
		ov->value[axis->threshold] = axis->values[k % axis->count];
		k /= axis->count;
	}
}

/*
 * Sensitivity at scale.  A scenario's screening differs from another's only
 * in which thresholds are set (that decides steps 5-6, whether the baseline
 * is measured and which candidates lack a baseline value: the scenario's
 * "class") and in the thresholds' values.  Each threshold is a test of one
 * candidate value against one number (the quality ceiling, the lower of the
 * two, fails when either fails), so a scenario's feasible set is the bitwise
 * AND of its class's candidates that reach step 7 and one bit set per
 * threshold it sets, each computed once per distinct value.  The bits are
 * laid out in rank order, so the winner is the first bit set.  The values
 * (and so the rank) depend only on whether the baseline is measured: two
 * variants.  Same results as screening every scenario in full
 * (mg_scenario_screen), which tests/test_decision.c checks.
 */
typedef unsigned long long word_t;
#define WORD_BITS 64
#define CACHE_BYTES ((size_t)32 << 20)   /* threshold bit sets kept for reuse */

struct storage {               /* what the scenarios point into */
	size_t *rank[2];           /* candidates in rank order, baseline not measured / measured */
	word_t *bits;              /* scenario_count * words */
};

struct pred {                  /* one threshold at one value */
	int variant;
	enum mg_threshold t;
	double value;
	word_t *bits;
};

struct sens {
	const mg_rules *rules;
	const mg_evidence *ev;
	const int *early;
	const unsigned *waive;     /* per candidate: the reasons waived for it */
	const size_t *target;      /* per waiver: its candidate, or SIZE_MAX */
	bool *waiver_used;         /* per waiver: it let its candidate pass */
	size_t n, words;
	bool has_base;
	size_t base;
	mg_evaluation *evals[2];   /* values per variant, report order */
	size_t *rank[2];
	size_t *pos[2];            /* inverse of rank: a candidate's place in it */
	word_t *eligible[1u << MG_THRESHOLD_COUNT];  /* per class; NULL until needed */
	bool measured[1u << MG_THRESHOLD_COUNT];
	struct pred *cache;
	size_t cached, cache_cap;
	size_t allocated;          /* cache entries whose bits are allocated */
};

static bool bit_get(const word_t *bits, size_t k)
{
	return (bits[k / WORD_BITS] >> (k % WORD_BITS)) & 1u;
}

static void bit_set(word_t *bits, size_t k)
{
	bits[k / WORD_BITS] |= (word_t)1 << (k % WORD_BITS);
}

static unsigned set_mask(const mg_budget *b)
{
	unsigned mask = 0, t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			mask |= 1u << t;
	return mask;
}

/* The candidates' values with the baseline measured (variant 1) or not,
 * and their rank order. */
static void variant_build(struct sens *s, int v)
{
	struct screen_ctx x = {
		.rules = s->rules, .waive = s->waive, .ev = s->ev, .scenario = true,
		.has_base = s->has_base, .base = s->base,
		.measured = v ? &s->ev->candidates[s->base] : NULL,
	};
	mg_screening all = { 0 };
	size_t *tmp, i;

	if (s->evals[v])
		return;
	s->evals[v] = mg_xcalloc(s->n, sizeof(*s->evals[v]));
	for (i = 0; i < s->n; i++) {
		s->evals[v][i].index = i;
		fill_values(&x, &s->evals[v][i], s->has_base && i == s->base);
	}
	s->rank[v] = mg_xcalloc(s->n, sizeof(*s->rank[v]));
	tmp = mg_xcalloc(s->n, sizeof(*tmp));
	for (i = 0; i < s->n; i++)
		s->rank[v][i] = i;
	all.evaluations = s->evals[v];
	rank_sort(s->rank[v], tmp, s->n, all.evaluations, s->rules->rank_by);
	free(tmp);
	s->pos[v] = mg_xcalloc(s->n, sizeof(*s->pos[v]));
	for (i = 0; i < s->n; i++)
		s->pos[v][s->rank[v][i]] = i;
}

/* The candidates of a class that reach step 7 in a scenario, in rank order;
 * `b` is any budget of the class (only which thresholds are set counts). */
static const word_t *class_eligible(struct sens *s, const mg_budget *b, bool *measured)
{
	unsigned mask = set_mask(b);
	struct screen_ctx x = {
		.rules = s->rules, .waive = s->waive, .ev = s->ev, .b = b, .scenario = true,
		.has_base = s->has_base, .base = s->base,
	};
	int *stop;
	size_t i, k;
	int v;

	if (s->eligible[mask]) {
		*measured = s->measured[mask];
		return s->eligible[mask];
	}
	stop = mg_xcalloc(s->n, sizeof(*stop));
	for (i = 0; i < s->n; i++)
		stop[i] = stop_reason(s->rules, &s->ev->candidates[i], b, s->early[i]);
	if (s->has_base && stop[s->base] < 0)
		x.measured = &s->ev->candidates[s->base];
	v = x.measured != NULL;
	variant_build(s, v);
	s->eligible[mask] = mg_xcalloc(s->words, sizeof(word_t));
	for (k = 0; k < s->n; k++) {
		i = s->rank[v][k];
		if (stop[i] < 0 && ((s->has_base && i == s->base) ||
				    !needs_missing_base(&x, &s->ev->candidates[i])))
			bit_set(s->eligible[mask], k);
	}
	free(stop);
	s->measured[mask] = v;
	*measured = v;
	return s->eligible[mask];
}

/* Does e pass threshold t at `value`?  `ceiling_base` is the measured
 * baseline's eval loss for the relative ceiling, NULL when there is none. */
static bool passes(const mg_evaluation *e, enum mg_threshold t, double value,
		   const double *ceiling_base)
{
	if (t == MG_MAX_RELATIVE_EVAL_LOSS)
		return !ceiling_base || !fails(&thresholds[t], e->value[MG_M_EVAL_LOSS],
					       *ceiling_base * (1.0 + value));
	return !e->known[thresholds[t].metric] ||
	       !fails(&thresholds[t], e->value[thresholds[t].metric], value);
}

/* Empties the cache; its entries' bit sets stay allocated for reuse. */
static void cache_flush(struct sens *s)
{
	s->cached = 0;
}

/* The measured baseline's eval loss, which the relative ceiling scales, in
 * variant v (1: the baseline is measured); NULL when there is none. */
static const double *ceiling_base_of(const struct sens *s, int v)
{
	const mg_candidate *bl = s->has_base ? &s->ev->candidates[s->base] : NULL;

	return v && bl && has_number(bl, MG_M_EVAL_LOSS) ? &bl->metric[MG_M_EVAL_LOSS].value
							   : NULL;
}

/* The candidates (in variant v's rank order) that pass threshold t at value. */
static const word_t *threshold_bits(struct sens *s, int v, enum mg_threshold t, double value)
{
	const double *ceiling_base = ceiling_base_of(s, v);
	struct pred *p;
	size_t i, k;

	for (i = 0; i < s->cached; i++)
		if (s->cache[i].variant == v && s->cache[i].t == t && s->cache[i].value == value)
			return s->cache[i].bits;
	if ((s->cached + 1) * s->words * sizeof(word_t) > CACHE_BYTES)
		cache_flush(s);
	if (s->cached == s->cache_cap) {
		s->cache_cap = s->cache_cap ? 2 * s->cache_cap : 16;
		s->cache = mg_xrealloc(s->cache, s->cache_cap * sizeof(*s->cache));
	}
	if (s->cached == s->allocated)
		s->cache[s->allocated++].bits = mg_xcalloc(s->words, sizeof(word_t));
	p = &s->cache[s->cached++];
	p->variant = v;
	p->t = t;
	p->value = value;
	memset(p->bits, 0, s->words * sizeof(word_t));
	for (k = 0; k < s->n; k++) {
		size_t c = s->rank[v][k];

		if (passes(&s->evals[v][c], t, value, ceiling_base) ||
		    (s->waive[c] & BIT(threshold_reason(t))))
			bit_set(p->bits, k);
	}
	return p->bits;
}

/* Marks the waivers that let their candidate pass in scenario sc: the
 * candidate reaches step 7 (`eligible`) and fails the waived check. */
static void mark_scenario_waivers(struct sens *s, const mg_scenario *sc, int v,
				  const word_t *eligible)
{
	const double *ceiling_base = ceiling_base_of(s, v);
	size_t w, i;
	int t;

	for (w = 0; w < s->rules->waiver_count; w++) {
		enum mg_reason r = s->rules->waivers[w].reason;

		if ((i = s->target[w]) == SIZE_MAX || s->waiver_used[w] ||
		    !mg_reason_waivable(r) || !bit_get(eligible, s->pos[v][i]))
			continue;
		for (t = 0; t < MG_THRESHOLD_COUNT; t++)
			if (sc->budget.set[t] && threshold_reason((enum mg_threshold)t) == r &&
			    !passes(&s->evals[v][i], (enum mg_threshold)t, sc->budget.value[t],
				    ceiling_base))
				s->waiver_used[w] = true;
	}
}

static size_t popcount(const word_t *bits, size_t words)
{
	size_t n = 0, w;

	for (w = 0; w < words; w++)
		n += (size_t)__builtin_popcountll(bits[w]);
	return n;
}

/* Screens scenario sc into `bits`: its class, then each threshold it sets. */
static void run_scenario(mg_scenario *sc, struct sens *s, word_t *bits)
{
	bool measured;
	const word_t *in = class_eligible(s, &sc->budget, &measured);
	int v = measured;
	size_t w, k;
	int t;

	memcpy(bits, in, s->words * sizeof(word_t));
	mark_scenario_waivers(s, sc, v, in);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (!sc->budget.set[t])
			continue;
		in = threshold_bits(s, v, (enum mg_threshold)t, sc->budget.value[t]);
		for (w = 0; w < s->words; w++)
			bits[w] &= in[w];
	}
	sc->count = s->n;
	sc->rank = s->rank[v];
	sc->feasible = bits;
	sc->feasible_count = popcount(bits, s->words);
	k = 0;
	if (sc->feasible_count && mg_scenario_next_feasible(sc, &k, &sc->best_index))
		sc->best = s->ev->candidates[sc->best_index].name;
}

static void sens_release(struct sens *s)
{
	unsigned m;
	size_t i;

	for (i = 0; i < s->allocated; i++)
		free(s->cache[i].bits);
	free(s->cache);
	for (m = 0; m < (1u << MG_THRESHOLD_COUNT); m++)
		free(s->eligible[m]);
	free(s->evals[0]);
	free(s->evals[1]);
	free(s->pos[0]);
	free(s->pos[1]);
}

/* s, fresh or kept by a memo: the evidence's, the waivers' and the
 * baseline's parts; the caches start empty. */
static void sens_init(struct sens *s, const mg_rules *rules, const mg_evidence *ev,
		      const int *early, const unsigned *waive, const size_t *target)
{
	memset(s, 0, sizeof(*s));
	s->rules = rules;
	s->ev = ev;
	s->early = early;
	s->waive = waive;
	s->target = target;
	s->n = ev->candidate_count;
	s->words = (s->n + WORD_BITS - 1) / WORD_BITS;
	s->words = s->words ? s->words : 1;
	s->has_base = mg_find_baseline(&s->base, rules, ev);
}

/* "PREFIX[i]" into id (40 bytes): snprintf's output, at a fraction of its
 * cost (the tipping-point search builds thousands of scenarios). */
static void scenario_id(char *id, const char *prefix, size_t i)
{
	char digits[24];
	size_t n = 0, len = strlen(prefix);

	do {
		digits[n++] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	memcpy(id, prefix, len);
	id[len++] = '[';
	while (n)
		id[len++] = digits[--n];
	id[len++] = ']';
	id[len] = '\0';
}

/* A malloc'd copy of a rank order of n candidates, NULL for none. */
static size_t *rank_copy(const size_t *rank, size_t n)
{
	size_t *copy;

	if (!rank)
		return NULL;
	copy = mg_xcalloc(n ? n : 1, sizeof(*copy));
	memcpy(copy, rank, n * sizeof(*copy));
	return copy;
}

/* The scenarios of d, screened with s (its caches filled as they go, kept
 * when `kept`: a memo's, whose rank orders the decision copies). */
static void run_scenarios(mg_decision *d, struct sens *s, size_t count, bool kept)
{
	const mg_rules *rules = s->rules;
	struct storage *st = mg_xcalloc(1, sizeof(*st));
	size_t i;
	int v;

	s->waiver_used = d->waiver_used;
	cache_flush(s);   /* a memo's last values would only lengthen the lookups */
	d->sensitivity_storage = st;
	d->scenarios = mg_xcalloc(count, sizeof(*d->scenarios));
	d->scenario_count = count;
	st->bits = mg_xcalloc(count ? count * s->words : 1, sizeof(word_t));
	for (i = 0; i < count; i++) {
		mg_scenario *sc = &d->scenarios[i];

		if (i < rules->stricter_count) {
			scenario_id(sc->id, "stricter", i);
			sc->overrides = rules->stricter[i];
		} else {
			scenario_id(sc->id, "grid", i - rules->stricter_count);
			grid_overrides(&sc->overrides, rules, i - rules->stricter_count);
		}
		apply_overrides(&sc->budget, &rules->budget, &sc->overrides);
		run_scenario(sc, s, st->bits + i * s->words);
	}
	for (v = 0; v < 2; v++)
		st->rank[v] = kept ? rank_copy(s->rank[v], s->n) : s->rank[v];
	for (i = 0; kept && i < count; i++)
		d->scenarios[i].rank = st->rank[d->scenarios[i].rank == s->rank[1]];
	s->waiver_used = NULL;
	if (!kept) {
		s->rank[0] = s->rank[1] = NULL;   /* the decision's now */
		sens_release(s);
	}
}

bool mg_scenario_next_feasible(const mg_scenario *sc, size_t *cursor, size_t *index)
{
	size_t k = *cursor, w;
	word_t bits;

	assert(sc && cursor && index);
	while (k < sc->count) {
		w = k / WORD_BITS;
		bits = sc->feasible[w] >> (k % WORD_BITS);
		if (bits) {
			k += (size_t)__builtin_ctzll(bits);
			if (k >= sc->count)
				break;
			*index = sc->rank[k];
			*cursor = k + 1;
			return true;
		}
		k = (w + 1) * WORD_BITS;
	}
	*cursor = sc->count;
	return false;
}

void mg_scenario_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
			const mg_scenario *sc)
{
	assert(out && rules && ev && sc);
	screen_alone(out, rules, ev, &sc->budget, true);
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Do two scenarios have the same feasible list (the same candidates in the
 * same order)? */
static bool same_feasible(const mg_scenario *a, const mg_scenario *b)
{
	size_t ca = 0, cb = 0, ia, ib;
	bool more;

	if (a->feasible_count != b->feasible_count)
		return false;
	if (a->rank == b->rank && a->count == b->count)
		return !memcmp(a->feasible, b->feasible,
			       (a->count + WORD_BITS - 1) / WORD_BITS * sizeof(word_t));
	while ((more = mg_scenario_next_feasible(a, &ca, &ia)) &&
	       mg_scenario_next_feasible(b, &cb, &ib))
		if (ia != ib)
			return false;
	return !more;
}

/* The summary counters: one distinct winner and one distinct feasible list. */
static void summarize(mg_decision *d)
{
	size_t i;

	d->best_candidate_stable = true;
	d->feasible_set_stable = true;
	d->stability_tested = d->scenario_count > 0;
	for (i = 1; i < d->scenario_count; i++) {
		if (!same_name(d->scenarios[i].best, d->scenarios[0].best))
			d->best_candidate_stable = false;
		if (d->feasible_set_stable && !same_feasible(&d->scenarios[i], &d->scenarios[0]))
			d->feasible_set_stable = false;
	}
	d->interpretation = d->best_candidate_stable && d->feasible_set_stable ?
		"stable" : "sensitive_to_thresholds";
}

/* 2.5: the decision for a non-baseline base winner. */
static void decide_sensitivity(mg_decision *d)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < d->scenario_count; i++)
		if (!same_name(d->scenarios[i].best, d->best))
			changed = true;
	if (changed)
		conclude(d, MG_O_SELECTION_IS_THRESHOLD_SENSITIVE);
	else
		conclude(d, MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS);
	d->selected = d->best;
}

/* Which waivers let their candidate pass in the base screening (the
 * scenarios mark theirs as they run). */
static void mark_used_waivers(mg_decision *d, const mg_rules *rules, const size_t *target)
{
	size_t w;

	d->waiver_count = rules->waiver_count;
	d->waiver_used = mg_xcalloc(d->waiver_count ? d->waiver_count : 1,
				    sizeof(*d->waiver_used));
	for (w = 0; w < rules->waiver_count; w++) {
		size_t i = target[w];

		if (i != SIZE_MAX && mg_reason_waivable(rules->waivers[w].reason))
			d->waiver_used[w] = (d->base.evaluations[i].waived &
					     BIT(rules->waivers[w].reason)) != 0;
	}
}

/* ---- regressions against the base (README, "Regressions") ---- */

/* A report's named candidates sorted by name, then by place (their
 * addresses, in one array), so that covers: all costs n log n, not n^2,
 * per decision. */
typedef struct by_name {
	const mg_candidate **list;
	size_t count;
} by_name;

static int cmp_by_name(const void *a, const void *b)
{
	const mg_candidate *x = *(const mg_candidate *const *)a;
	const mg_candidate *y = *(const mg_candidate *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

static by_name index_by_name(const mg_evidence *ev)
{
	by_name ix = { mg_xcalloc(ev->candidate_count + 1, sizeof(*ix.list)), 0 };
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name)
			ix.list[ix.count++] = &ev->candidates[i];
	qsort(ix.list, ix.count, sizeof(*ix.list), cmp_by_name);
	return ix;
}

/*
 * For each candidate of ev (by its index): its namesake at the base, the
 * first of that name there, when it is itself the first of its name in ev;
 * else NULL.  Both reports sorted by name, then joined in one pass.  The
 * caller frees the array.
 */
static const mg_candidate **match_base(const mg_evidence *ev, const mg_evidence *base)
{
	const mg_candidate **match = mg_xcalloc(ev->candidate_count + 1, sizeof(*match));
	by_name h = index_by_name(ev), b = index_by_name(base);
	size_t i = 0, j = 0;
	int c;

	while (i < h.count && j < b.count) {
		c = strcmp(h.list[i]->name, b.list[j]->name);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			/* the first of the name on each side, then past it on ours */
			match[h.list[i] - ev->candidates] = b.list[j];
			for (i++; i < h.count && !strcmp(h.list[i]->name, b.list[j]->name); i++)
				;
		}
	}
	free(h.list);
	free(b.list);
	return match;
}

/* The change of def's metric from b (the base) to h in def's unit, and with
 * runs on both sides its band (interval arithmetic over the runs' ranges,
 * as evidence.noise derives its bands); false when it cannot be had. */
static bool change_of(double *v, mg_band *band, const mg_threshold_def *def,
		      const mg_candidate *b, const mg_candidate *h)
{
	enum mg_metric_id m = def->metric;
	double bv, hv, bmin, bmax, hmin, hmax;

	if (!has_number(b, m) || !has_number(h, m))
		return false;
	bv = b->metric[m].value;
	hv = h->metric[m].value;
	if (def->vs_base != MG_VS_RISE && !(bv > 0))
		return false;
	bmin = b->run_min[m];
	bmax = b->run_max[m];
	hmin = h->run_min[m];
	hmax = h->run_max[m];
	band->known = b->run_band[m] && h->run_band[m] && (def->vs_base == MG_VS_RISE || bmin > 0);
	switch (def->vs_base) {
	case MG_VS_RISE:
		*v = hv - bv;
		band->min = hmin - bmax;
		band->max = hmax - bmin;
		break;
	case MG_VS_RISE_PCT:
		*v = (hv - bv) / bv * 100.0;
		band->min = (hmin / bmax - 1.0) * 100.0;
		band->max = (hmax / bmin - 1.0) * 100.0;
		break;
	default:
		*v = (bv - hv) / bv * 100.0;
		band->min = (1.0 - hmax / bmin) * 100.0;
		band->max = (1.0 - hmin / bmax) * 100.0;
		break;
	}
	return isfinite(*v);
}

/* Compares evaluation i with its namesake at the base, adding what counts. */
static void regress_candidate(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			      const mg_candidate *const *match, size_t i)
{
	const mg_regression *rg = &rules->regression;
	const mg_evaluation *e = &d->base.evaluations[i];
	const mg_candidate *h = &ev->candidates[e->index], *b;
	mg_band band;
	double v;
	int t;

	if (!e->name || !*e->name || !(b = match[e->index]))
		return;
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = &thresholds[t];
		mg_regressed *r;

		if (!rg->limits.set[t] || !change_of(&v, &band, def, b, h) ||
		    !fails(def, v, rg->limits.value[t]))
			continue;
		if (band.known && mg_insight_within(&band, rg->limits.value[t], def->ceiling)) {
			d->regression_within_noise++;
			continue;
		}
		d->regressed = mg_xrealloc(d->regressed,
					   (d->regressed_count + 1) * sizeof(*d->regressed));
		r = &d->regressed[d->regressed_count++];
		r->index = i;
		r->name = e->name;
		r->threshold = (enum mg_threshold)t;
		r->base = b->metric[def->metric].value;
		r->head = h->metric[def->metric].value;
		r->change = v;
		r->limit = rg->limits.value[t];
		r->runs = band.known;
	}
}

/* The evaluation named `name` (by pointer, else by text), or SIZE_MAX. */
static size_t evaluation_named(const mg_decision *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name == name)
			return i;
	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name && !strcmp(d->base.evaluations[i].name, name))
			return i;
	return SIZE_MAX;
}

/*
 * After the budget has decided: compare the covered candidates with the
 * base (the one selected now, the one the base selected, then with covers:
 * all every other in report order).  A regression that counts decides
 * (tune, or reject with regression.decision: reject) unless the budget
 * already decided more strictly; it names the candidate that regressed.
 */
static void decide_regression(mg_decision *d, const mg_rules *rules, const mg_evidence *ev)
{
	const mg_regression *rg = &rules->regression;
	size_t first[2], i, k;
	bool *seen;
	const mg_candidate **match;
	enum mg_verdict verdict = rg->reject ? MG_REJECT : MG_TUNE;

	if (!mg_regression_active(rg) || !rg->base || !d->applicable ||
	    d->reason == MG_O_BASELINE_MISSING_OR_INVALID)
		return;
	d->regression_checked = true;
	match = match_base(ev, rg->base);
	seen = mg_xcalloc(d->base.count + 1, sizeof(*seen));
	first[0] = evaluation_named(d, d->selected);
	first[1] = evaluation_named(d, rg->base_selected);
	for (k = 0; k < 2; k++)
		if (first[k] != SIZE_MAX && !seen[first[k]]) {
			seen[first[k]] = true;
			regress_candidate(d, rules, ev, match, first[k]);
		}
	for (i = 0; rg->covers == MG_COVERS_ALL && i < d->base.count; i++)
		if (!seen[i])
			regress_candidate(d, rules, ev, match, i);
	free(seen);
	free(match);
	if (!d->regressed_count || verdict < d->verdict)
		return;
	conclude(d, (enum mg_outcome)(MG_O_PEAK_MEMORY_REGRESSED +
				      (thresholds[d->regressed[0].threshold].reason -
				       MG_R_PEAK_MEMORY_REGRESSED)));
	d->verdict = verdict;
	d->selected = d->regressed[0].name;
}

/* ---- mg_decide ---- */

/*
 * The next action of an evidence issue that says more than "rebuild": stale
 * evidence (evidence_stale) is measured again, whatever else is wrong; when
 * the approved result is the only evidence issue, the evidence itself is
 * fine: the next action points at the approval record, not at the GPU.
 * The decision and reason stay reject / evidence_not_applicable.
 */
static void issue_next_action(mg_decision *d)
{
	int i;

	if (d->applicable)
		return;
	if (d->issue[MG_ISSUE_EVIDENCE_STALE]) {
		d->next_action = MG_N_MEASURE_AGAIN;  /* whatever else: measure today's code */
		return;
	}
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && i != MG_ISSUE_APPROVED_RESULT_MISSING &&
		    i != MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH)
			return;
	d->next_action = d->issue[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH]
		? MG_N_RESTORE_OR_REAPPROVE_APPROVED_RESULT
		: MG_N_RECORD_AND_PIN_APPROVED_RESULT;
}

/* Signature issues, with or without the approved result's, and no other:
 * the evidence may be fine, it is its provenance that is not shown, so the
 * next action is to sign on the trusted runner.  Otherwise unchanged. */
static void signature_next_action(mg_decision *d)
{
	bool signature = false;
	int i;

	if (d->applicable)
		return;
	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!d->issue[i])
			continue;
		if (MG_ISSUE_IS_SIGNATURE(i))
			signature = true;
		else if (i != MG_ISSUE_APPROVED_RESULT_MISSING &&
			 i != MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH)
			return;
	}
	if (signature)
		d->next_action = MG_N_SIGN_ON_TRUSTED_RUNNER;
}

/* The approved decision must agree with the one computed from applicable
 * evidence: its verdict and selected candidate. */
static void check_drift(mg_decision *d, const mg_approved *a)
{
	if (!a->decision || !d->applicable)
		return;
	d->approved_checked = true;
	d->computed_verdict = d->verdict;
	d->computed_reason = d->reason;
	d->computed_selected = d->selected;
	if (!strcmp(a->decision, mg_verdict_name(d->verdict)) &&
	    !strcmp(a->selected ? a->selected : "", d->selected ? d->selected : ""))
		return;
	d->drift = true;
	conclude(d, MG_O_DECISION_DRIFT);
	d->selected = NULL;
}

struct mg_decision__memo {
	const mg_evidence *ev;
	int *early;
	size_t *target;
	unsigned *waive;
	struct sens sens;
};

/* mg_decide, through `memo` when not NULL (mg_decision__decide). */
static int decide_with(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
		       const bool pre_issues[MG_ISSUE_COUNT], const mg_approved *approved,
		       size_t max_scenarios, mg_decision__memo *memo, mg_error *err)
{
	mg_decision *d = NULL;
	int *early = NULL;
	size_t *target = NULL;
	unsigned *waive = NULL;
	size_t count;
	bool sensitive;
	int error, step;

	assert(out && rules && ev && (rules->waivers || !rules->waiver_count));
	*out = NULL;
	if ((error = count_scenarios(&count, rules, max_scenarios, err)) < 0 ||
	    (error = check_evaluations(count, ev, err)) < 0)
		goto done;
	d = mg_xcalloc(1, sizeof(*d));
	d->budget = rules->budget;
	find_issues(d, rules, ev, pre_issues);
	if (!memo) {
		early = early_reasons(ev);
		target = waiver_targets(rules, ev);
		waive = waived_reasons(rules, ev, target);
	}
	screen(&d->base, rules, ev, &rules->budget, false, memo ? memo->early : early,
	       memo ? memo->waive : waive);
	d->best = winner(&d->base);
	step = decide_base(d, rules, ev, &sensitive);
	d->sensitivity_evaluated = step >= 3;
	mark_used_waivers(d, rules, memo ? memo->target : target);
	if (d->sensitivity_evaluated && memo) {
		memo->sens.rules = rules;
		run_scenarios(d, &memo->sens, count, true);
	} else if (d->sensitivity_evaluated) {
		struct sens s;

		sens_init(&s, rules, ev, early, waive, target);
		run_scenarios(d, &s, count, false);
	}
	summarize(d);
	if (sensitive)
		decide_sensitivity(d);
	if (d->verdict == MG_ACCEPT && rules->noise == MG_NOISE_TUNE && d->base.feasible_count &&
	    mg_insight_noise(NULL, rules, ev, &d->base, d->base.feasible[0]))
		conclude(d, MG_O_MARGIN_WITHIN_MEASUREMENT_NOISE);
	decide_regression(d, rules, ev);
	issue_next_action(d);
	signature_next_action(d);
	if (approved)
		check_drift(d, approved);
	*out = d;
	d = NULL;
done:
	free(early);
	free(target);
	free(waive);
	mg_decision_free(d);
	return error;
}

int mg_decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
	      const bool pre_issues[MG_ISSUE_COUNT], const mg_approved *approved,
	      size_t max_scenarios, mg_error *err)
{
	return decide_with(out, rules, ev, pre_issues, approved, max_scenarios, NULL, err);
}

mg_decision__memo *mg_decision__memo_new(const mg_rules *rules, const mg_evidence *ev)
{
	mg_decision__memo *m = mg_xcalloc(1, sizeof(*m));

	assert(rules && ev);
	m->ev = ev;
	m->early = early_reasons(ev);
	m->target = waiver_targets(rules, ev);
	m->waive = waived_reasons(rules, ev, m->target);
	sens_init(&m->sens, rules, ev, m->early, m->waive, m->target);
	return m;
}

int mg_decision__decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
			const bool pre_issues[MG_ISSUE_COUNT], mg_decision__memo *memo,
			mg_error *err)
{
	assert(memo && ev == memo->ev);
	return decide_with(out, rules, ev, pre_issues, NULL, 0, memo, err);
}

void mg_decision__memo_free(mg_decision__memo *memo)
{
	if (!memo)
		return;
	sens_release(&memo->sens);
	free(memo->sens.rank[0]);
	free(memo->sens.rank[1]);
	free(memo->early);
	free(memo->target);
	free(memo->waive);
	free(memo);
}

size_t mg_decision_best(const mg_decision *d, size_t *out, size_t max)
{
	const mg_screening *s = &d->base;
	const unsigned hard = hard_reasons();
	size_t n = 0, i, pass;

	assert(d && (out || !max));
	for (i = 0; i < s->feasible_count && n < max; i++)
		out[n++] = s->feasible[i];
	for (pass = 0; pass < 3 && n < max; pass++)
		for (i = 0; i < s->count && n < max; i++) {
			const mg_evaluation *e = &s->evaluations[i];
			bool rejected = e->status == MG_STATUS_REJECTED;

			if ((pass == 0 && rejected && !(e->reasons & hard)) ||
			    (pass == 1 && rejected && (e->reasons & hard)) ||
			    (pass == 2 && !rejected && e->status != MG_STATUS_FEASIBLE))
				out[n++] = i;
		}
	return n;
}

void mg_decision_free(mg_decision *d)
{
	struct storage *st;

	if (!d)
		return;
	mg_screening_release(&d->base);
	if ((st = d->sensitivity_storage)) {
		free(st->rank[0]);
		free(st->rank[1]);
		free(st->bits);
		free(st);
	}
	free(d->scenarios);
	free(d->waiver_used);
	free(d->regressed);
	free(d);
}
