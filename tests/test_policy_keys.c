/*
 * The policy's key table (memgate/policy.h, plugin/parse/policy_keys.c): every
 * row with a value, changed each way between two policies, is listed by
 * the policy diff with the way it moves the gate; the reader's key enums
 * and the decision core's thresholds agree with the rows.  A row added
 * without a sample here fails, naming it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/policy.h"
#include "policy_diff.h"
#include "policy_walk.h"

#define IDENT "identity:\n  workload_id: w\n  hardware_id: h\n"
#define PROV "provenance:\n  allowed_signers: s\n"
#define REG "regression:\n  max_peak_increase_pct: 5\n"
#define WAIVER "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, " \
	"owner: o, expires: 2099-01-01 }\n"

/* A change of one key: from policy a to b moves the gate `ab`, back `ba`;
 * `change` is the key listed when it is not the row's own. */
static const struct sample {
	const char *key, *a, *b, *ab, *ba, *change;
} samples[] = {
	{ "manifest", "manifest: a.json\n", "manifest: b.json\n", "changes", "changes", NULL },
	{ "report", "report: a.json\n", "report: b.json\n", "changes", "changes", NULL },
	{ "identity.workload_id", IDENT, "identity:\n  workload_id: v\n  hardware_id: h\n",
	  "changes", "changes", NULL },
	{ "identity.hardware_id", IDENT, "identity:\n  workload_id: w\n  hardware_id: g\n",
	  "changes", "changes", NULL },
	{ "identity.model_id", IDENT, IDENT "  model_id: m\n", "tightens", "loosens", NULL },
	{ "identity.dtype", IDENT, IDENT "  dtype: bf16\n", "tightens", "loosens", NULL },
	{ "identity.amp_dtype", IDENT, IDENT "  amp_dtype: bf16\n", "tightens", "loosens", NULL },
	{ "identity.batch_size", IDENT, IDENT "  batch_size: 8\n", "tightens", "loosens", NULL },
	{ "identity.seq_len", IDENT, IDENT "  seq_len: 512\n", "tightens", "loosens", NULL },
	{ "identity.optimizer", IDENT, IDENT "  optimizer: adam\n", "tightens", "loosens", NULL },
	{ "budget.memory_cap_mb", "budget:\n  memory_cap_mb: 100\n", "budget:\n  memory_cap_mb: 200\n",
	  "loosens", "tightens", NULL },
	{ "budget.min_samples_per_s", "budget:\n  memory_cap_mb: 100\n  min_samples_per_s: 1\n",
	  "budget:\n  memory_cap_mb: 100\n  min_samples_per_s: 2\n", "tightens", "loosens", NULL },
	{ "budget.min_memory_saving_mb", "budget:\n  memory_cap_mb: 100\n  min_memory_saving_mb: 1\n",
	  "budget:\n  memory_cap_mb: 100\n  min_memory_saving_mb: 2\n", "tightens", "loosens", NULL },
	{ "budget.min_throughput_ratio", "budget:\n  memory_cap_mb: 100\n  min_throughput_ratio: 0.5\n",
	  "budget:\n  memory_cap_mb: 100\n  min_throughput_ratio: 0.6\n", "tightens", "loosens", NULL },
	{ "budget.min_mb_saved_per_pct_throughput", "budget:\n  memory_cap_mb: 100\n",
	  "budget:\n  memory_cap_mb: 100\n  min_mb_saved_per_pct_throughput: 2\n",
	  "tightens", "loosens", NULL },
	{ "quality.max_eval_loss", "quality:\n  max_eval_loss: 1\n", "quality:\n  max_eval_loss: 2\n",
	  "loosens", "tightens", NULL },
	{ "quality.max_relative_eval_loss", "quality:\n  max_relative_eval_loss: 0.1\n",
	  "quality:\n  max_relative_eval_loss: 0.2\n", "loosens", "tightens", NULL },
	{ "quality.max_quality_delta", "quality:\n  max_quality_delta: 0.1\n",
	  "quality:\n  max_quality_delta: 0.2\n", "loosens", "tightens", NULL },
	{ "evidence.baseline", "evidence:\n  baseline: a\n", "evidence:\n  baseline: b\n",
	  "changes", "changes", NULL },
	{ "evidence.min_repeats", "evidence:\n  min_repeats: 1\n", "evidence:\n  min_repeats: 3\n",
	  "tightens", "loosens", NULL },
	{ "evidence.noise", "evidence:\n  noise: warn\n", "evidence:\n  noise: tune\n",
	  "tightens", "loosens", NULL },
	{ "evidence.inputs", "", "evidence:\n  inputs: [src]\n", "tightens", "loosens", NULL },
	{ "rank_by", "rank_by: peak_memory\n", "rank_by: throughput\n", "changes", "changes", NULL },
	{ "sensitivity.stricter", "", "sensitivity:\n  stricter:\n    - { memory_cap_mb: 90 }\n",
	  "tightens", "loosens", NULL },
	{ "sensitivity.grid", "", "sensitivity:\n  grid:\n    memory_cap_mb: [90]\n",
	  "tightens", "loosens", NULL },
	{ "gate.fail_on", "gate:\n  fail_on: [reject]\n", "gate:\n  fail_on: [reject, tune]\n",
	  "tightens", "loosens", NULL },
	{ "waivers", "", WAIVER, "loosens", "tightens", "waivers[c].memory_over_budget" },
	{ "waivers_warn_days", "waivers_warn_days: 14\n", "waivers_warn_days: 7\n",
	  "changes", "changes", NULL },
	{ "provenance.allowed_signers", "", PROV, "tightens", "loosens", NULL },
	{ "provenance.namespace", PROV "  namespace: a\n", PROV "  namespace: b\n",
	  "changes", "changes", NULL },
	{ "provenance.require", PROV "  require: false\n", PROV "  require: true\n",
	  "tightens", "loosens", NULL },
	{ "provenance.signers", PROV, PROV "  signers: [gpu-runner@ci]\n",
	  "tightens", "loosens", NULL },
	{ "provenance.approvers", PROV, PROV "  approvers: [lead@example.com]\n",
	  "tightens", "loosens", NULL },
	{ "regression.max_peak_increase_mb", "regression:\n  max_peak_increase_mb: 1\n",
	  "regression:\n  max_peak_increase_mb: 2\n", "loosens", "tightens", NULL },
	{ "regression.max_peak_increase_pct", REG, "regression:\n  max_peak_increase_pct: 50\n",
	  "loosens", "tightens", NULL },
	{ "regression.max_throughput_drop_pct", "regression:\n  max_throughput_drop_pct: 1\n",
	  "regression:\n  max_throughput_drop_pct: 2\n", "loosens", "tightens", NULL },
	{ "regression.max_eval_loss_increase", "regression:\n  max_eval_loss_increase: 0.1\n",
	  "regression:\n  max_eval_loss_increase: 0.2\n", "loosens", "tightens", NULL },
	{ "regression.covers", REG "  covers: selected\n", REG "  covers: all\n",
	  "tightens", "loosens", NULL },
	{ "regression.decision", REG "  decision: tune\n", REG "  decision: reject\n",
	  "tightens", "loosens", NULL },
	{ "regression.history", REG, REG "  history: 3\n", "changes", "changes", NULL },
	{ "regression.history_max_commits", REG "  history_max_commits: 5\n",
	  REG "  history_max_commits: 6\n", "changes", "changes", NULL },
	{ "regression.noise_test", REG "  noise_test: mann_whitney\n", REG "  noise_test: range\n",
	  "changes", "changes", NULL },
	{ "regression.alpha", REG "  alpha: 0.05\n", REG "  alpha: 0.1\n", "tightens", "loosens", NULL },
};

/* A valid policy around `fragment`: the required keys it does not give. */
static mg_policy *policy_with(const char *fragment)
{
	mg_buf b = MG_BUF_INIT;
	mg_policy *p = NULL;
	mg_error err;
	int rc;

	mg_buf_puts(&b, "version: 1\n");
	if (!strstr(fragment, "manifest:") && !strstr(fragment, "report:"))
		mg_buf_puts(&b, "manifest: m.json\n");
	if (!strstr(fragment, "identity:"))
		mg_buf_puts(&b, IDENT);
	if (!strstr(fragment, "budget:"))
		mg_buf_puts(&b, "budget:\n  memory_cap_mb: 100\n");
	mg_buf_puts(&b, fragment);
	mg_error_clear(&err);
	rc = mg_policy_parse(&p, "p.yml", b.ptr, b.len, &err);
	cr_assert_eq(rc, 0, "%s\n%d:%d: %s", b.ptr, err.line, err.column, err.message);
	mg_buf_free(&b);
	return p;
}

/* The change of `key` from a to b: its effect's name, or "not listed". */
static const char *effect_of(const char *key, const char *a, const char *b)
{
	mg_check_result res;
	mg_policy *pa = policy_with(a), *pb = policy_with(b);
	const char *effect = "not listed";
	size_t i;

	memset(&res, 0, sizeof(res));
	snprintf(res.today, sizeof(res.today), "2026-01-01");
	mg_policy_diff__keys(&res, pa, pb);
	for (i = 0; i < res.change_count; i++)
		if (!strcmp(res.changes[i].key, key))
			effect = mg_check_effect_name(res.changes[i].effect);
	free(res.changes);
	mg_policy_free(pa);
	mg_policy_free(pb);
	return effect;
}

/* The row's path: "section.key", "key" at the top level. */
static void row_path(char *buf, size_t n, const mg_policy_key *k)
{
	const char *sec = mg_policy_section_name(k->section);

	snprintf(buf, n, "%s%s%s", sec, *sec ? "." : "",
		 k->key ? k->key : mg_threshold_name((enum mg_threshold)k->arg));
}

Test(policy_keys, every_row_changed_each_way_is_listed)
{
	const mg_policy_key *rows;
	char path[96];
	size_t n, i, j, walked = 0;

	rows = mg_policy_keys(&n);
	for (i = 0; i < n; i++) {
		const struct sample *s = NULL;

		if (rows[i].value == MG_KV_NONE)
			continue;
		row_path(path, sizeof(path), &rows[i]);
		for (j = 0; j < sizeof(samples) / sizeof(samples[0]); j++)
			if (!strcmp(samples[j].key, path))
				s = &samples[j];
		cr_assert_not_null(s, "row %s has no sample in tests/test_policy_keys.c", path);
		cr_expect_str_eq(effect_of(s->change ? s->change : path, s->a, s->b), s->ab,
				 "%s, one way", path);
		cr_expect_str_eq(effect_of(s->change ? s->change : path, s->b, s->a), s->ba,
				 "%s, the other way", path);
		walked++;
	}
	cr_expect_eq(walked, sizeof(samples) / sizeof(samples[0]), "a sample without a row");
}

Test(policy_keys, a_regression_section_added_tightens_removed_loosens)
{
	cr_expect_str_eq(effect_of("regression.max_peak_increase_pct", "", REG), "tightens");
	cr_expect_str_eq(effect_of("regression.max_peak_increase_pct", REG, ""), "loosens");
	cr_expect_str_eq(effect_of("regression.decision", REG "  decision: reject\n", ""), "loosens");
	cr_expect_str_eq(effect_of("regression.covers", REG, ""), "loosens");
	cr_expect_str_eq(effect_of("regression.history", REG, REG "  history: 2\n"), "changes");
}

/* The reader's key enums (policy_walk.h) name the table's rows. */
Test(policy_keys, the_reader_enums_follow_the_rows)
{
	static const struct { enum section sec; int idx; const char *key; } named[] = {
		{ SEC_ROOT, K_VERSION, "version" }, { SEC_ROOT, K_MANIFEST, "manifest" },
		{ SEC_ROOT, K_REPORT, "report" }, { SEC_ROOT, K_IDENTITY, "identity" },
		{ SEC_ROOT, K_BUDGET, "budget" }, { SEC_ROOT, K_QUALITY, "quality" },
		{ SEC_ROOT, K_EVIDENCE, "evidence" }, { SEC_ROOT, K_RANK_BY, "rank_by" },
		{ SEC_ROOT, K_SENSITIVITY, "sensitivity" }, { SEC_ROOT, K_GATE, "gate" },
		{ SEC_ROOT, K_WAIVERS, "waivers" }, { SEC_ROOT, K_WAIVERS_WARN_DAYS, "waivers_warn_days" },
		{ SEC_ROOT, K_PROVENANCE, "provenance" }, { SEC_ROOT, K_REGRESSION, "regression" },
		{ SEC_ROOT, K_COUNT, "" },
		{ SEC_PROVENANCE, P_ALLOWED_SIGNERS, "allowed_signers" },
		{ SEC_PROVENANCE, P_NAMESPACE, "namespace" }, { SEC_PROVENANCE, P_REQUIRE, "require" },
		{ SEC_PROVENANCE, P_SIGNERS, "signers" }, { SEC_PROVENANCE, P_APPROVERS, "approvers" },
		{ SEC_PROVENANCE, P_APPROVERS + 1, "" },
		{ SEC_WAIVER, W_CANDIDATE, "candidate" }, { SEC_WAIVER, W_REASON, "reason" },
		{ SEC_WAIVER, W_JUSTIFICATION, "justification" }, { SEC_WAIVER, W_OWNER, "owner" },
		{ SEC_WAIVER, W_EXPIRES, "expires" }, { SEC_WAIVER, W_COUNT, "" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_COVERS, "covers" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_DECISION, "decision" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_HISTORY, "history" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_HISTORY_MAX_COMMITS, "history_max_commits" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_NOISE_TEST, "noise_test" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_ALPHA, "alpha" },
		{ SEC_REGRESSION, MG_THRESHOLD_COUNT + R_COUNT, "" },
		{ SEC_EVIDENCE, 0, "baseline" }, { SEC_EVIDENCE, 1, "min_repeats" },
		{ SEC_EVIDENCE, 2, "noise" }, { SEC_EVIDENCE, 3, "inputs" }, { SEC_EVIDENCE, 4, "" },
		{ SEC_SENSITIVITY, 0, "stricter" }, { SEC_SENSITIVITY, 1, "grid" },
		{ SEC_SENSITIVITY, 2, "" },
	};
	size_t i;
	int id;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		cr_expect_str_eq(mg_policy__key_name(named[i].sec, named[i].idx), named[i].key,
				 "section %d, key %d", named[i].sec, named[i].idx);
	for (id = 0; id < MG_ID_COUNT; id++)
		cr_expect_str_eq(mg_policy__key_name(SEC_IDENTITY, id), mg_ident_name((enum mg_ident)id));
	cr_expect_str_eq(mg_policy__key_name(SEC_IDENTITY, MG_ID_COUNT), "");
}

/* Each threshold has one row in its section and, unless a regression's,
 * one among a scenario's keys; each threshold row is the core's. */
Test(policy_keys, the_thresholds_are_the_cores)
{
	const mg_policy_key *rows;
	size_t n, i;
	int t;

	rows = mg_policy_keys(&n);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		const mg_threshold_def *def = mg_threshold_def_of((enum mg_threshold)t);
		int own = 0, scenario = 0;

		for (i = 0; i < n; i++) {
			if (rows[i].arg != t || rows[i].key)
				continue;
			if (rows[i].section == SEC_OVERRIDE)
				scenario++;
			else if (!strcmp(mg_policy_section_name(rows[i].section), def->section) &&
				 rows[i].value == MG_KV_THRESHOLD)
				own++;
		}
		cr_expect_eq(own, 1, "%s: rows in %s", def->key, def->section);
		cr_expect_eq(scenario, def->vs_base == MG_VS_NONE, "%s: rows in a scenario", def->key);
	}
	for (i = 0; i < n; i++)
		if (!rows[i].key)
			cr_expect(rows[i].arg >= 0 && rows[i].arg < MG_THRESHOLD_COUNT, "row %zu", i);
}
