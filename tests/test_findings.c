/*
 * The findings behind a decision: plugin/result/findings.h.
 *
 * On the demo repository (tests/demo-repo.h, built with the real git):
 * which findings there are, in which order, with what weight, rank, code,
 * subject, message and input line; the baseline's comparisons with itself
 * left out; evidence issues, sensitivity, waivers and policy changes as
 * findings; fingerprints stable, distinct and unique; and the place a
 * file-based report (SARIF, Code Quality) gives each.
 */
#include <stdint.h>
#include <string.h>

#include "demo-repo.h"
#include "helpers.h"
#include "findings.h"
#include "memgate/check.h"
#include "memgate/codequality.h"
#include "memgate/comment.h"
#include "memgate/github.h"
#include "memgate/junit.h"
#include "memgate/sarif.h"
#include "memgate/summary.h"

#define WAIVER \
	"waivers:\n" \
	"  - candidate: checkpoint\n" \
	"    reason: memory_saving_below_floor\n" \
	"    justification: saves what it can\n" \
	"    owner: perf\n" \
	"    expires: 2027-01-31\n"

/* What a test expects of one finding. */
struct want {
	enum mg_finding_weight weight;
	enum mg_finding_rank rank;
	const char *code;
	int line, column;
	size_t candidate;
	const char *subject;
	const char *message;
};

static void expect_findings(const mg_check_result *r, const struct want *want, size_t count)
{
	mg_finding *f = NULL;
	size_t n = 0, i;

	mg_findings(&f, &n, r);
	cr_assert_eq(n, count, "%zu findings, expected %zu", n, count);
	for (i = 0; i < n; i++) {
		cr_expect_eq(f[i].weight, want[i].weight, "finding %zu: weight %d", i, f[i].weight);
		cr_expect_eq(f[i].rank, want[i].rank, "finding %zu: rank %d", i, f[i].rank);
		cr_expect_str_eq(f[i].code->name, want[i].code, "finding %zu", i);
		cr_expect_str_eq(f[i].file, ".memgate.yml", "finding %zu", i);
		cr_expect_eq(f[i].pos.line, want[i].line, "finding %zu: line %d", i, f[i].pos.line);
		cr_expect_eq(f[i].pos.column, want[i].column, "finding %zu: column %d", i,
			     f[i].pos.column);
		cr_expect_eq(f[i].candidate, want[i].candidate, "finding %zu", i);
		cr_expect_eq(f[i].issue, -1, "finding %zu", i);
		cr_expect_str_eq(f[i].subject, want[i].subject, "finding %zu", i);
		cr_expect_str_eq(f[i].message, want[i].message, "finding %zu", i);
	}
	mg_findings_free(f, n);
}

#define SAVING(cand, i, rank, mb) \
	{ MG_FINDING_SOFT, rank, "memory_saving_below_floor", 14, 25, i, cand, \
	  cand ": memory saving " mb " MB < min_memory_saving_mb 512" }
#define RATIO(cand, i, ratio) \
	{ MG_FINDING_SOFT, MG_FINDING_RANK_TARGET, "throughput_below_floor", 15, 25, i, cand, \
	  cand ": throughput ratio " ratio " < min_throughput_ratio 0.7" }
#define OFFLOAD_SAMPLES \
	{ MG_FINDING_HARD, MG_FINDING_RANK_HARD, "samples_per_s_below_floor", 13, 22, 2, \
	  "offload", "offload: samples/s 0.533 < min_samples_per_s 1" }

/* The demo: the selected candidate's reasons first, then the other hard
 * ones, then targets; the baseline missing its own saving floor is none. */
Test(findings, demo_findings_in_order_of_importance)
{
	static const struct want want[] = {
		SAVING("checkpoint", 1, MG_FINDING_RANK_SELECTED, "331.98"),
		OFFLOAD_SAMPLES,
		SAVING("offload", 2, MG_FINDING_RANK_TARGET, "334.41"),
		RATIO("offload", 2, "0.265306"),
		SAVING("hybrid", 3, MG_FINDING_RANK_TARGET, "328.1"),
		RATIO("hybrid", 3, "0.635142"),
	};
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	expect_findings(r, want, sizeof(want) / sizeof(want[0]));
	cr_expect(mg_finding_self_comparison(r, &r->decision->base.evaluations[0],
					     MG_R_MEMORY_SAVING_BELOW_FLOOR),
		  "the baseline's saving of 0 against itself");
	cr_expect_not(mg_finding_self_comparison(r, &r->decision->base.evaluations[1],
						 MG_R_MEMORY_SAVING_BELOW_FLOOR));
	cr_expect_str_eq(mg_findings_policy_file(r), ".memgate.yml");
	cr_expect_eq(mg_findings_lines_policy(r), r->policy);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A waiver in force: checkpoint is feasible, the grid's scenario that
 * changes the winner is a finding at the grid, the waiver a note. */
Test(findings, sensitivity_and_an_applied_waiver)
{
	static const struct want want[] = {
		OFFLOAD_SAMPLES,
		{ MG_FINDING_SOFT, MG_FINDING_RANK_SENSITIVITY, "selection_is_threshold_sensitive",
		  25, 5, SIZE_MAX, "grid[2]",
		  "grid[2] (min_samples_per_s 2): the winner is none, not checkpoint" },
		SAVING("offload", 2, MG_FINDING_RANK_TARGET, "334.41"),
		RATIO("offload", 2, "0.265306"),
		SAVING("hybrid", 3, MG_FINDING_RANK_TARGET, "328.1"),
		RATIO("hybrid", 3, "0.635142"),
		{ MG_FINDING_NOTE, MG_FINDING_RANK_WAIVER, "waiver_applied", 29, 5, 1,
		  "checkpoint\nmemory_saving_below_floor",
		  "waiver: 'checkpoint' passes memory_saving_below_floor until 2027-01-31 "
		  "(owner perf): saves what it can" },
	};
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;

	mg_demo_repo(dir);
	mg_demo_commit(dir, ".memgate.yml", WAIVER, 1);
	r = mg_demo_check(dir, (mg_check_options){ .today = "2026-06-01" });
	expect_findings(r, want, sizeof(want) / sizeof(want[0]));
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A pull request's policy changes, judged against the base's policy: each
 * is a warning at its key in the proposed policy (whose lines annotations
 * use), after the hard findings. */
Test(findings, policy_changes_are_warnings_at_the_proposed_lines)
{
	static const struct want want[] = {
		SAVING("checkpoint", 1, MG_FINDING_RANK_SELECTED, "331.98"),
		OFFLOAD_SAMPLES,
		{ MG_FINDING_WARNING, MG_FINDING_RANK_WARNING, "policy_change", 12, 18, SIZE_MAX,
		  "budget.memory_cap_mb",
		  "budget.memory_cap_mb is 11200 in the policy that decides (the policy revision), "
		  "91200 in this change: it loosens the budget once merged" },
		{ MG_FINDING_WARNING, MG_FINDING_RANK_WARNING, "policy_change", 29, 5, SIZE_MAX,
		  "waivers[checkpoint].memory_saving_below_floor",
		  "waivers[checkpoint].memory_saving_below_floor is unset in the policy that "
		  "decides (the policy revision), '2027-01-31' in this change: it loosens the "
		  "budget once merged" },
		SAVING("offload", 2, MG_FINDING_RANK_TARGET, "334.41"),
		RATIO("offload", 2, "0.265306"),
		SAVING("hybrid", 3, MG_FINDING_RANK_TARGET, "328.1"),
		RATIO("hybrid", 3, "0.635142"),
	};
	char dir[MG_DEMO_DIR_SIZE], base[41], *text;
	size_t len;
	mg_check_result *r;

	mg_demo_repo(dir);
	mg_demo_rev(base, dir, "HEAD");
	text = mg_test_read("fixtures/demo/memgate.yml", &len);
	*strstr(text, "11200") = '9';   /* memory_cap_mb 91200 */
	mg_demo_commit(dir, ".memgate.yml", text, 0);
	mg_demo_commit(dir, ".memgate.yml", WAIVER, 1);
	free(text);
	r = mg_demo_check(dir, (mg_check_options){ .policy_rev = base, .today = "2026-06-01" });
	expect_findings(r, want, sizeof(want) / sizeof(want[0]));
	cr_expect_eq(mg_findings_lines_policy(r), r->head_policy);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Report bytes that differ from the pin: the evidence issue comes first,
 * hard, and carries its issue. */
Test(findings, an_evidence_issue_comes_first)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;
	mg_finding *f = NULL;
	size_t n = 0;

	mg_demo_repo(dir);
	mg_demo_commit(dir, MG_DEMO_REPORT, "\n", 1);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	mg_findings(&f, &n, r);
	cr_assert_gt(n, 0);
	cr_expect_str_eq(f[0].code->name, "report_hash_mismatch");
	cr_expect_eq(f[0].weight, MG_FINDING_HARD);
	cr_expect_eq(f[0].rank, MG_FINDING_RANK_EVIDENCE);
	cr_expect_eq(f[0].issue, MG_ISSUE_REPORT_HASH_MISMATCH);
	cr_expect_eq(f[0].candidate, SIZE_MAX);
	cr_expect_str_eq(f[0].file, MG_DEMO_MANIFEST, "the pin is in the manifest");
	cr_expect_gt(f[0].pos.line, 0);
	mg_findings_free(f, n);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A measured commit the repository lacks (a squash-merged pull request's,
 * whose branch is gone): the finding, at measured.commit, says to fetch it
 * by its full id or by the pull request's ref, and to measure again only
 * if that fails; the next action is the fetch. */
Test(findings, an_unknown_measured_commit_says_to_fetch_it_before_measuring_again)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;
	mg_finding *f = NULL;
	size_t n = 0;

	mg_demo_repo(dir);
	mg_demo_sh("cd '%s' && sed -i 's|^  baseline: baseline$|&\\n  inputs: [\"model.py\"]|' "
		   ".memgate.yml && sed -i 's|^  }$|  },\\n  \"measured\": { \"commit\": \"%s\" }|' "
		   MG_DEMO_MANIFEST, dir, "0123456789abcdef0123456789abcdef01234567");
	mg_demo_commit(dir, "model.py", "attention = 'flash'\n", 0);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	cr_assert_str_eq(mg_next_action_name(r->decision->next_action), "fetch_measured_commit");
	mg_findings(&f, &n, r);
	cr_assert_gt(n, 0);
	cr_expect_str_eq(f[0].code->name, "measured_commit_unknown");
	cr_expect_str_eq(f[0].file, MG_DEMO_MANIFEST);
	cr_expect_eq(f[0].pos.line, 6, "at measured.commit");
	cr_expect_eq(f[0].pos.column, 27, "column %d", f[0].pos.column);
	cr_expect_str_eq(f[0].message,
		"the measured commit 0123456 is not in this repository: fetch it (git fetch origin "
		"0123456789abcdef0123456789abcdef01234567; after a squash merge on GitHub, its pull "
		"request's ref: git fetch origin refs/pull/NUMBER/head), or push it if it was never "
		"pushed; measure again only if it cannot be fetched");
	mg_findings_free(f, n);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Fingerprints: 64 hex digits, the same for the same finding of another
 * check, different between candidates and reasons, unique in a list even
 * for findings that share policy, code and subject. */
Test(findings, fingerprints_are_stable_distinct_and_unique)
{
	mg_finding f[4] = {
		{ .code = mg_code_of(MG_CODE_MEMORY_SAVING_BELOW_FLOOR), .subject = "offload" },
		{ .code = mg_code_of(MG_CODE_THROUGHPUT_BELOW_FLOOR), .subject = "offload" },
		{ .code = mg_code_of(MG_CODE_MEMORY_SAVING_BELOW_FLOOR), .subject = "hybrid" },
		{ .code = mg_code_of(MG_CODE_MEMORY_SAVING_BELOW_FLOOR), .subject = "offload" },
	};
	char fp[4][MG_FINDING_FINGERPRINT_SIZE], again[1][MG_FINDING_FINGERPRINT_SIZE];
	char other[1][MG_FINDING_FINGERPRINT_SIZE];
	size_t i, j;

	mg_finding_fingerprints(fp, ".memgate.yml", f, 4);
	for (i = 0; i < 4; i++) {
		cr_expect_eq(strlen(fp[i]), 64);
		cr_expect_eq(strspn(fp[i], "0123456789abcdef"), 64, "%s", fp[i]);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(fp[i], fp[j], "findings %zu and %zu", j, i);
	}
	mg_finding_fingerprints(again, ".memgate.yml", f, 1);
	cr_expect_str_eq(again[0], fp[0], "the same finding, the same fingerprint");
	mg_finding_fingerprints(other, "svc/.memgate.yml", f, 1);
	cr_expect_str_neq(other[0], fp[0], "another policy, another fingerprint");
}

/* A finding without a file is placed on the policy's first line; one with
 * a position keeps it. */
Test(findings, place_falls_back_to_the_policy_first_line)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;
	mg_finding warning = { .code = mg_code_of(MG_CODE_WARNING) };
	mg_finding at = { .code = mg_code_of(MG_CODE_NOTE), .file = "a.json", .pos = { 7, 3 } };
	const char *file;
	mg_pos pos;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	mg_finding_place(&file, &pos, r, &warning);
	cr_expect_str_eq(file, ".memgate.yml");
	cr_expect_eq(pos.line, 1);
	cr_expect_eq(pos.column, 1);
	mg_finding_place(&file, &pos, r, &at);
	cr_expect_str_eq(file, "a.json");
	cr_expect_eq(pos.line, 7);
	cr_expect_eq(pos.column, 3);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* The check computes the findings once (mg_findings_fill), with their
 * fingerprints, and every renderer that shows findings reads those:
 * reading computes nothing, and a message changed in the result shows in
 * each of them. */
Test(findings, the_check_computes_them_once_and_renderers_read_them)
{
	static const char marker[] = "marker0from0the0result";
	char dir[MG_DEMO_DIR_SIZE], (*fp)[MG_FINDING_FINGERPRINT_SIZE], *out[6];
	mg_check_item item = { .policy = ".memgate.yml" };
	const mg_finding *stored;
	mg_finding *fresh = NULL;
	size_t n = 0, count, i;

	mg_demo_repo(dir);
	item.result = mg_demo_check(dir, (mg_check_options){ 0 });
	cr_expect(item.result->findings_filled, "the check computed them");
	stored = mg_result_findings(item.result, &count);
	cr_expect_eq(stored, item.result->findings, "reading returns what the check stored");
	cr_expect_eq(mg_result_findings(item.result, &i), stored, "the second reading computes none");
	cr_expect_eq(i, count);
	mg_findings(&fresh, &n, item.result);
	cr_assert_eq(count, n);
	cr_assert_gt(n, 0);
	fp = calloc(n, sizeof(*fp));
	mg_finding_fingerprints(fp, ".memgate.yml", fresh, n);
	for (i = 0; i < n; i++) {
		cr_expect_eq(stored[i].code, fresh[i].code, "finding %zu", i);
		cr_expect_str_eq(stored[i].message, fresh[i].message, "finding %zu", i);
		cr_expect_str_eq(stored[i].fingerprint, fp[i], "finding %zu", i);
		cr_expect_str_eq(fresh[i].fingerprint, "", "mg_findings sets none");
	}
	free(fp);
	mg_findings_free(fresh, n);

	free(item.result->findings[0].message);
	item.result->findings[0].message = strdup(marker);
	out[0] = mg_github_render(item.result, "t0k3n");
	out[1] = mg_summary_render(item.result);
	out[2] = mg_junit_render(item.result);
	out[3] = mg_sarif_render(&item, 1, "1.0");
	out[4] = mg_codequality_render(&item, 1);
	out[5] = mg_comment_render(item.result, NULL);
	for (i = 0; i < 6; i++) {
		cr_expect_not_null(strstr(out[i], marker), "renderer %zu:\n%s", i, out[i]);
		free(out[i]);
	}
	mg_check_result_free(item.result);
	mg_demo_remove(dir);
}

/* The policy_change_fails_its_evidence finding of r, or NULL. */
static const mg_finding *proposed_finding(mg_check_result *r)
{
	size_t n, i;
	const mg_finding *f;

	mg_findings_fill(r);
	f = mg_result_findings(r, &n);
	for (i = 0; i < n; i++)
		if (f[i].code == mg_code_of(MG_CODE_POLICY_CHANGE_FAILS_ITS_EVIDENCE))
			return &f[i];
	return NULL;
}

/* A change of `key`, tightening, at line:column of the proposed policy. */
static void add_change(mg_check_result *r, const char *key, int line, int column)
{
	mg_policy_change *c;

	r->changes = realloc(r->changes, (r->change_count + 1) * sizeof(*c));
	cr_assert_not_null(r->changes);
	c = &r->changes[r->change_count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->effect = MG_CHANGE_TIGHTENS;
	c->pos = (mg_pos){ line, column };
}

/*
 * policy_change_fails_its_evidence: one hard finding that leads, at the
 * changed key its failure is about (provenance for a signature,
 * evidence.inputs for a measured commit, else the first key tightened),
 * saying what to add; none when the proposed policy passes.  Built by hand
 * on a decided result: the finding reads only the result.
 */
Test(findings, a_policy_change_that_fails_its_evidence_says_what_to_add)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r, *p;
	const mg_finding *f;
	mg_decision *d;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	p = mg_demo_check(dir, (mg_check_options){ 0 });
	snprintf(r->rev, sizeof(r->rev), "%s", "0123456789abcdef0123456789abcdef01234567");
	add_change(r, "budget.memory_cap_mb", 12, 18);
	add_change(r, "evidence.inputs", 19, 11);
	add_change(r, "provenance.allowed_signers", 27, 20);
	d = p->decision;
	d->verdict = MG_REJECT;
	d->reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	d->issue[MG_ISSUE_SIGNATURE_MISSING] = true;
	p->signature.sig_ref.path = strdup("bench/75.json.sig\n::error::x");
	r->proposed = calloc(1, sizeof(*r->proposed));
	r->proposed->result = p;

	cr_expect_null(proposed_finding(r), "not failing: no finding");

	r->proposed->fails = true;
	f = proposed_finding(r);
	cr_assert_not_null(f);
	cr_expect_eq(f, &r->findings[0], "it leads");
	cr_expect_eq(f->weight, MG_FINDING_HARD);
	cr_expect_eq(f->rank, MG_FINDING_RANK_EVIDENCE);
	cr_expect_str_eq(f->file, ".memgate.yml");
	cr_expect_eq(f->pos.line, 27);
	cr_expect_eq(f->pos.column, 20);
	cr_expect_eq(f->candidate, SIZE_MAX);
	cr_expect_str_eq(f->message,
		"the policy this change proposes fails its own evidence: at 0123456 it decides "
		"reject (evidence_not_applicable: signature_missing) where the policy that decides "
		"passes, and once merged it decides every later change; sign the manifest "
		"('bench/75.json.sig\\n::error::x') on the trusted runner and commit the signature "
		"in this change");

	d->issue[MG_ISSUE_SIGNATURE_MISSING] = false;
	d->issue[MG_ISSUE_MEASURED_COMMIT_MISSING] = true;
	f = proposed_finding(r);
	cr_assert_not_null(f);
	cr_expect_eq(f->pos.line, 19, "at evidence.inputs");
	cr_expect(strstr(f->message, "(evidence_not_applicable: measured_commit_missing)"));
	cr_expect(strstr(f->message, "; pin measured.commit in the manifest (memgate manifest "
			 "--measured-commit REV) in this change"), "%s", f->message);

	d->issue[MG_ISSUE_MEASURED_COMMIT_MISSING] = false;
	d->reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	f = proposed_finding(r);
	cr_assert_not_null(f);
	cr_expect_eq(f->pos.line, 12, "at the first key tightened");
	cr_expect(strstr(f->message, "decides reject (no_candidate_meets_base_budget) where"));
	cr_expect(strstr(f->message, "; re-measure the evidence so that it meets the new policy"));

	r->proposed->result = NULL;
	r->proposed->error = strdup(".memgate.yml:3:11: cannot read 'x.json' at 0123456: not found");
	mg_check_result_free(p);
	f = proposed_finding(r);
	cr_assert_not_null(f);
	cr_expect(strstr(f->message, "at 0123456 it cannot decide (.memgate.yml:3:11: cannot "
			 "read 'x.json' at 0123456: not found) where"), "%s", f->message);
	cr_expect(strstr(f->message, "; fix the policy or its evidence in this change"));
	mg_check_result_free(r);
	mg_demo_remove(dir);
}
