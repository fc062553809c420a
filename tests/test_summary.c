/*
 * The job summary: include/memgate/summary.h.  Tables are checked the way
 * GitHub splits them (a '|' not preceded by a backslash ends a cell), and
 * no input text may write HTML, a link or a line break.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "helpers.h"
#include "compare.h"
#include "digest.h"
#include "memgate/manifest.h"
#include "memgate/summary.h"
#include "memgate/check.h"

#define BIT(r) (1u << (r))
#define REV "1111111111111111111111111111111111111111"
#define POLICY_REV "3333333333333333333333333333333333333333"
#define MAX_CANDIDATES 1100
#define MAX_SCENARIOS 4096

/* The real flat report's four candidates against memory_cap_mb 11200,
 * min_samples_per_s 1, min_memory_saving_mb 256 and max_eval_loss 12.6,
 * checkpoint accepted across two stricter scenarios. */
static struct {
	mg_check_result r;
	mg_decision d;
	mg_evaluation ev[MAX_CANDIDATES];
	size_t feasible[MAX_CANDIDATES];
	mg_scenario sc[MAX_SCENARIOS];
	unsigned long long sc_bits[MAX_SCENARIOS];
	unsigned long long all_bits[(MAX_CANDIDATES + 63) / 64];
	size_t rank[MAX_CANDIDATES];
	size_t sc_rank[4];
	mg_policy policy;
	mg_report report;
	char *warnings[2];
	mg_policy_change changes[1];
} fx;

static void set_scenario(size_t i, const char *id, enum mg_threshold t, double v,
			 const char *best)
{
	mg_scenario *sc = &fx.sc[i];

	snprintf(sc->id, sizeof(sc->id), "%s", id);
	mg_fx_threshold(&sc->overrides, t, v);
	fx.sc_bits[i] = 3;   /* checkpoint and hybrid, first in rank */
	sc->rank = fx.sc_rank;
	sc->feasible = &fx.sc_bits[i];
	sc->count = 4;
	sc->feasible_count = 2;
	sc->best_index = 1;
	sc->best = best;
	fx.d.scenario_count = i + 1;
}

static void set_ref(mg_input_ref *ref, const char *path, char blob)
{
	ref->path = (char *)path;
	memcpy(ref->commit, REV, 41);
	memset(ref->blob, blob, 40);
	memset(ref->sha256, 'e', 64);
	ref->read = true;
}

static mg_check_result *build(void)
{
	mg_check_result *r = &fx.r;
	mg_decision *d = &fx.d;

	mg_findings_free(fx.r.findings, fx.r.finding_count);   /* the last test's */
	memset(&fx, 0, sizeof(fx));
	d->base = mg_fx_seed_screening(fx.ev, fx.feasible);
	fx.sc_rank[0] = 1;   /* rank order: checkpoint, hybrid, baseline, offload */
	fx.sc_rank[1] = 3;
	fx.sc_rank[2] = 0;
	fx.sc_rank[3] = 2;
	d->verdict = MG_ACCEPT;
	d->reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	d->next_action = MG_N_SEND_TO_REGRESSION_ACCEPTANCE;
	d->selected = d->best = "checkpoint";
	d->applicable = true;
	mg_fx_threshold(&d->budget, MG_MEMORY_CAP_MB, 11200);
	mg_fx_threshold(&d->budget, MG_MIN_SAMPLES_PER_S, 1.0);
	mg_fx_threshold(&d->budget, MG_MIN_MEMORY_SAVING_MB, 256);
	mg_fx_threshold(&d->budget, MG_MAX_EVAL_LOSS, 12.6);
	mg_fx_ceiling(&d->base, MG_MAX_EVAL_LOSS, 12.6);
	d->sensitivity_evaluated = d->best_candidate_stable = d->feasible_set_stable = true;
	d->stability_tested = true;
	d->interpretation = "stable";
	d->scenarios = fx.sc;
	set_scenario(0, "stricter[0]", MG_MEMORY_CAP_MB, 9452, "checkpoint");
	set_scenario(1, "stricter[1]", MG_MIN_SAMPLES_PER_S, 1.5, "checkpoint");
	fx.sc[1].feasible_count = 1;
	fx.sc_bits[1] = 1;
	fx.policy.path = ".memgate.yml";
	fx.policy.rules.baseline = "baseline";
	fx.policy.threshold_pos[MG_MIN_SAMPLES_PER_S] = (mg_pos){ 11, 22 };
	fx.policy.threshold_pos[MG_MIN_MEMORY_SAVING_MB] = (mg_pos){ 12, 25 };
	fx.report.path = "bench/76_report.json";
	memcpy(r->rev, REV, 41);
	memcpy(r->policy_rev, REV, 41);
	set_ref(&r->policy_ref, ".memgate.yml", 'a');
	set_ref(&r->manifest_ref, "bench/75_manifest.json", 'b');
	set_ref(&r->report_ref, "bench/76_report.json", 'c');
	r->policy = &fx.policy;
	r->report = &fx.report;
	r->decision = d;
	r->fail_on[MG_REJECT] = r->fail_on[MG_TUNE] = true;
	r->passed = true;
	return r;
}

/* ---- reading Markdown back ---- */

/* The cells of a table row as GitHub splits it: a '|' not preceded by a
 * backslash separates cells; the row starts and ends with one. */
static int count_cells(const char *line, size_t len)
{
	int pipes = 0;
	size_t i;

	for (i = 0; i < len; i++)
		if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
			pipes++;
	return pipes - 1;
}

static bool is_delimiter_row(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr("|-: ", line[i]))
			return false;
	return len > 2;
}

/* Every table: a header, a delimiter row with as many cells, and rows with
 * as many cells, each starting and ending with '|'.  Returns the number of
 * tables. */
static int expect_tables(const char *md)
{
	const char *line = md, *end;
	int cells = -1, tables = 0, row = 0;

	for (; *line; line = end + 1) {
		size_t len;

		end = strchr(line, '\n');
		cr_assert_not_null(end, "the summary does not end with a newline");
		len = (size_t)(end - line);
		if (!len || line[0] != '|') {
			cells = -1;
			continue;
		}
		cr_assert_eq(line[len - 1], '|', "row does not end with '|': %.*s", (int)len, line);
		if (cells < 0) {
			cells = count_cells(line, len);
			tables++;
			row = 0;
			cr_assert(is_delimiter_row(end + 1, strcspn(end + 1, "\n")),
				  "no delimiter row after %.*s", (int)len, line);
		}
		cr_assert_eq(count_cells(line, len), cells, "row %d has %d cells, the header %d: %.*s",
			     row, count_cells(line, len), cells, (int)len, line);
		row++;
	}
	return tables;
}

/* The summary holds no HTML, no link and no autolink, whatever the input. */
static void expect_inert(const char *md)
{
	const char *p;

	const char *fence;

	cr_assert_null(strchr(md, '<'), "raw '<' in the summary");
	cr_assert_null(strstr(md, "://"), "an autolink in the summary");
	cr_assert_null(strstr(md, "www."), "an autolink in the summary");
	cr_assert_null(strstr(md, "%%"), "a Mermaid directive or comment in the summary");
	for (p = md; (p = strpbrk(p, "[]@`")); p++) {
		if (*p == '`' && !strncmp(p, "```mermaid\n", 11)) {
			/* a chart: Markdown is inert in it; it must close on its own line */
			fence = strstr(p + 11, "\n```\n");
			cr_assert_not_null(fence, "an unclosed mermaid block at %zu", (size_t)(p - md));
			cr_assert_null(memchr(p + 11, '`', (size_t)(fence + 1 - (p + 11))),
				       "a backquote inside a mermaid block");
			p = fence + 4;
			continue;
		}
		if (*p == '`')
			continue;
		cr_assert(p > md && p[-1] == '\\', "unescaped '%c' at %zu", *p, (size_t)(p - md));
	}
}

static char *render(mg_check_result *r)
{
	char *md = mg_summary_render(mg_fx_filled(r));

	cr_assert_leq(strlen(md), MG_SUMMARY_MAX);
	expect_tables(md);
	expect_inert(md);
	return md;
}

static void expect_has(const char *md, const char *want)
{
	cr_assert_not_null(strstr(md, want), "no\n%s\nin\n%s", want, md);
}

/* ---- tests ---- */

Test(summary, heading_states_decision_gate_and_selection)
{
	static const char want[] =
"## memgate: accept \xe2\x80\x94 \xe2\x9c\x85 passed\n"
"\n"
"- **Reason:** `selection_stable_across_thresholds`\n"
"- **Next action:** `send_to_regression_acceptance`\n"
"- **Selected candidate:** checkpoint\n"
"- **Gate:** passed; fails on `tune`, `reject`\n"
"- **Checks run:** `memory_cap_mb` 11200, `min_samples_per_s` 1, `min_memory_saving_mb` 256, "
"`max_eval_loss` 12.6; **not set:** `min_throughput_ratio`, `max_relative_eval_loss`, "
"`max_quality_delta`, `min_mb_saved_per_pct_throughput`\n"
"\n### Candidates\n\n";
	char *md = render(build());

	cr_assert(!strncmp(md, want, strlen(want)), "%s", md);
	free(md);
}

Test(summary, failed_gate_says_so)
{
	char *md;

	build();
	fx.r.passed = false;
	fx.r.fail_on[MG_ACCEPT] = true;
	fx.r.fail_on[MG_TUNE] = fx.r.fail_on[MG_REJECT] = false;
	md = render(&fx.r);
	expect_has(md, "## memgate: accept \xe2\x80\x94 \xe2\x9d\x8c failed\n");
	expect_has(md, "- **Gate:** failed; fails on `accept`\n");
	free(md);
}

/* One row per candidate, one column per active check with the threshold in
 * its header; each value with pass or fail and the signed headroom. */
Test(summary, candidate_table_shows_values_against_thresholds_with_headroom)
{
	char *md = render(build());

	expect_has(md,
"| # | candidate | status | peak MB \xe2\x89\xa4 11200 | samples/s \xe2\x89\xa5 1 | eval_loss \xe2\x89\xa4 12.6 "
"| memory saving MB \xe2\x89\xa5 256 | reasons |\n"
"|---:|---|---|---:|---:|---:|---:|---|\n"
"| 1 | baseline (baseline) | rejected | 9782.74 \xe2\x9c\x85 +1417.26 | 2.009 \xe2\x9c\x85 +1.009 "
"| 12.356503 \xe2\x9c\x85 +0.243497 | 0 \xe2\x9d\x8c -256 | `memory_saving_below_floor` |\n"
"| 2 | checkpoint (selected) | feasible | 9450.76 \xe2\x9c\x85 +1749.24 | 1.761 \xe2\x9c\x85 +0.761 "
"| 12.356503 \xe2\x9c\x85 +0.243497 | 331.98 \xe2\x9c\x85 +75.98 | \xe2\x80\x94 |\n"
"| 3 | offload | rejected | 9448.33 \xe2\x9c\x85 +1751.67 | 0.533 \xe2\x9d\x8c -0.467 "
"| 12.356503 \xe2\x9c\x85 +0.243497 | 334.41 \xe2\x9c\x85 +78.41 | `samples_per_s_below_floor` |\n"
"| 4 | hybrid | feasible | 9454.64 \xe2\x9c\x85 +1745.36 | 1.276 \xe2\x9c\x85 +0.276 "
"| 12.356503 \xe2\x9c\x85 +0.243497 | 328.1 \xe2\x9c\x85 +72.1 | \xe2\x80\x94 |\n");
	free(md);
}

/* A value exactly at the threshold passes with zero headroom. */
Test(summary, value_at_the_threshold_passes_with_zero_headroom)
{
	char *md;

	build();
	fx.d.budget.value[MG_MEMORY_CAP_MB] = 9450.76;
	fx.ev[0].status = fx.ev[2].status = MG_STATUS_INVALID;
	md = render(&fx.r);
	expect_has(md, "| 2 | checkpoint (selected) | feasible | 9450.76 \xe2\x9c\x85 +0 |");
	expect_has(md, "| 1 | baseline (baseline) | invalid | 9782.74 | 2.009 | 12.356503 | 0 |");
	free(md);
}

Test(summary, unknown_values_and_ceilings_are_marked)
{
	char *md;

	build();
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	mg_fx_threshold(&fx.d.budget, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	fx.d.base.quality_ceiling_known = false;
	fx.ev[3].known[MG_M_SAVING] = false;
	md = render(&fx.r);
	expect_has(md, "| eval_loss \xe2\x89\xa4 ? |");
	expect_has(md, "| 4 | hybrid | feasible | 9454.64 \xe2\x9c\x85 +1745.36 | 1.276 \xe2\x9c\x85 +0.276 "
		   "| 12.356503 | n/a | \xe2\x80\x94 |\n");
	free(md);
}

Test(summary, reasons_list_every_finding_with_its_line)
{
	char *md = render(build());

	expect_has(md, "### Reasons\n\n"
		   "- \xe2\x9a\xa0\xef\xb8\x8f \\.memgate\\.yml:11:22: offload\\: samples\\/s 0\\.533 &lt; "
		   "min\\_samples\\_per\\_s 1 (`samples_per_s_below_floor`)\n\n");
	/* the baseline's own 0 MB saving is in the table, not among the reasons */
	cr_assert_null(strstr(md, "baseline\\: memory saving"), "%s", md);
	free(md);
}

Test(summary, sensitivity_table_lists_scenarios_winners_and_feasible_sets)
{
	char *md;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_SELECTION_IS_THRESHOLD_SENSITIVE;
	set_scenario(2, "grid[0]", MG_MIN_SAMPLES_PER_S, 2.5, NULL);
	fx.sc[2].feasible_count = 0;
	fx.sc_bits[2] = 0;
	fx.d.best_candidate_stable = fx.d.feasible_set_stable = false;
	fx.d.interpretation = "sensitive_to_thresholds";
	md = render(&fx.r);
	expect_has(md, "### Sensitivity\n\nSensitivity: selection sensitive: checkpoint wins 2 of 3 "
		   "scenarios.\n\n"
		   "| scenario | overrides | winner | feasible set |\n|---|---|---|---|\n"
		   "| stricter\\[0\\] | `memory_cap_mb` 9452 | checkpoint | checkpoint, hybrid |\n"
		   "| stricter\\[1\\] | `min_samples_per_s` 1.5 | checkpoint | checkpoint |\n"
		   "| grid\\[0\\] | `min_samples_per_s` 2.5 | none \xe2\x9a\xa0\xef\xb8\x8f changed | none |\n");
	free(md);
}

Test(summary, sensitivity_not_evaluated_or_untested_says_so)
{
	char *md;

	build();
	fx.d.scenario_count = 0;
	md = render(&fx.r);
	expect_has(md, "### Sensitivity\n\n\xe2\x9a\xa0\xef\xb8\x8f Stability was not tested: "
		   "the policy has no sensitivity scenarios.\n");
	free(md);
	fx.d.sensitivity_evaluated = false;
	md = render(&fx.r);
	expect_has(md, "### Sensitivity\n\nNot evaluated: the decision stopped at the evidence or the "
		   "baseline.\n");
	free(md);
}

Test(summary, evidence_names_commits_paths_and_hashes)
{
	char *md;

	build();
	memcpy(fx.r.policy_rev, POLICY_REV, 41);
	memcpy(fx.r.policy_ref.commit, POLICY_REV, 41);
	md = render(&fx.r);
	expect_has(md, "### Evidence\n\n"
		   "- **Applicable:** yes\n"
		   "- **Evidence commit:** `" REV "`\n"
		   "- **Policy commit:** `" POLICY_REV "`\n"
		   "- **Policy:** \\.memgate\\.yml, blob `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`\n"
		   "- **Manifest:** bench\\/75\\_manifest\\.json, blob `bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb`\n"
		   "- **Report:** bench\\/76\\_report\\.json, SHA-256 "
		   "`eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee`, "
		   "blob `cccccccccccccccccccccccccccccccccccccccc`\n");
	free(md);
}

Test(summary, evidence_issues_and_worktree_inputs_are_named)
{
	char *md;

	build();
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_REPORT_HASH_MISMATCH] = fx.d.issue[MG_ISSUE_DTYPE_MISMATCH] = true;
	fx.r.worktree = true;
	fx.r.report_ref.sha256[0] = '\0';
	md = render(&fx.r);
	expect_has(md, "- **Applicable:** no: `report_hash_mismatch`, `dtype_mismatch`\n"
		   "- **Inputs:** the working tree (--worktree), not a commit\n");
	expect_has(md, "SHA-256 not computed");
	free(md);
}

Test(summary, policy_changes_and_warnings_are_listed)
{
	char *md;

	build();
	snprintf(fx.changes[0].key, sizeof(fx.changes[0].key), "budget.memory_cap_mb");
	fx.changes[0].before = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 9600 };
	fx.changes[0].after = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 11200 };
	fx.changes[0].effect = MG_CHANGE_LOOSENS;
	fx.r.changes = fx.changes;
	fx.r.change_count = 1;
	fx.warnings[0] = "'.memgate.yml' has uncommitted changes";
	fx.warnings[1] = "a <b>bold</b>\n| claim |";
	fx.r.warnings = fx.warnings;
	fx.r.warning_count = 2;
	md = render(&fx.r);
	expect_has(md, "### Policy changes\n\nThe policy at the evidence revision differs from the one "
		   "that decided:\n\n| key | decided with | proposed | effect |\n|---|---|---|---|\n"
		   "| budget\\.memory\\_cap\\_mb | 9600 | 11200 | \xe2\x9a\xa0\xef\xb8\x8f loosens |\n");
	expect_has(md, "### Warnings\n\n- \\'\\.memgate\\.yml\\' has uncommitted changes\n"
		   "- a &lt;b&gt;bold&lt;\\/b&gt; \\| claim \\|\n");
	free(md);
}

/* Names that try to end a cell, a row or the table, or to write HTML, a
 * link, an image, emphasis or code: the tables keep their shape. */
Test(summary, hostile_names_cannot_break_a_table_or_inject_markup)
{
	static const char *const names[] = {
		"a|b", "x\n| injected | row |", "<script>alert(1)</script>", "[x](http://e.com)",
		"![i](https://e.com/i.png)", "`code` *em* _em_", "back\\", "\\|", "\x1b[31mred\xff",
		"@octocat www.e.com", "&lt;b&gt;",
	};
	size_t i, n = sizeof(names) / sizeof(names[0]);
	char *md;

	build();
	for (i = 0; i < n; i++)
		fx.ev[i] = mg_fx_evaluation(i, (mg_fx_candidate){
			.name = names[i], .status = MG_STATUS_REJECTED,
			.reasons = BIT(MG_R_SAMPLES_PER_S_BELOW_FLOOR),
			.peak = 9000, .samples = 0.5, .loss = MG_FX_BASELINE_LOSS });
	fx.d.base.count = n;
	fx.d.base.feasible_count = 0;
	fx.d.selected = fx.d.best = names[1];
	set_scenario(0, "stricter[0]", MG_MEMORY_CAP_MB, 9452, names[2]);
	/* feasible: names[0] and names[7], in that rank order */
	for (i = 0; i < n; i++)
		fx.rank[i] = i;
	fx.sc[0].rank = fx.rank;
	fx.sc[0].count = n;
	fx.sc_bits[0] = 1u | 1u << 7;
	fx.sc[0].feasible_count = 2;
	fx.r.report_ref.path = "a|b\n<i>.json";
	md = render(&fx.r);
	cr_assert_eq(expect_tables(md), 2);
	expect_has(md, "| 1 | a\\|b | rejected |");
	expect_has(md, "| 2 | x\\\\n\\| injected \\| row \\| (selected) | rejected |");
	expect_has(md, "| 3 | &lt;script&gt;alert\\(1\\)&lt;\\/script&gt; | rejected |");
	expect_has(md, "| 4 | \\[x\\]\\(http\\:\\/\\/e\\.com\\) | rejected |");
	expect_has(md, "| 6 | \\`code\\` \\*em\\* \\_em\\_ | rejected |");
	expect_has(md, "| 7 | back\\\\\\\\ | rejected |");
	expect_has(md, "| 8 | \\\\\\\\\\| | rejected |");
	expect_has(md, "| 9 | \\\\x1b\\[31mred\\\\xff | rejected |");
	expect_has(md, "| &lt;script&gt;alert\\(1\\)&lt;\\/script&gt; \xe2\x9a\xa0\xef\xb8\x8f changed | "
		   "a\\|b, \\\\\\\\\\| |");
	expect_has(md, "- **Report:** a\\|b &lt;i&gt;\\.json, SHA-256");
	free(md);
}

/* Far too many rows for 1 MB: rows are dropped with a note, the tables stay
 * well formed, and the summary fits. */
Test(summary, oversized_summary_drops_rows_with_a_note)
{
	static char names[MAX_CANDIDATES][257];
	char *md;
	size_t i;

	build();
	memset(fx.all_bits, 0xff, sizeof(fx.all_bits));
	for (i = 0; i < MAX_CANDIDATES; i++) {
		memset(names[i], '\xff', 250);
		snprintf(names[i] + 250, 7, "%06zu", i);
		fx.ev[i] = mg_fx_evaluation(i, (mg_fx_candidate){
			.name = names[i], .status = MG_STATUS_REJECTED,
			.reasons = BIT(MG_R_MEMORY_OVER_BUDGET) | BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR) | BIT(MG_R_SAMPLES_PER_S_BELOW_FLOOR),
			.peak = 12000, .samples = 0.5, .loss = MG_FX_BASELINE_LOSS });
		fx.feasible[i] = i;
	}
	fx.d.base.count = MAX_CANDIDATES;
	for (i = 0; i < MAX_SCENARIOS; i++) {
		set_scenario(i, "grid[0]", MG_MEMORY_CAP_MB, 9000 + (double)i, names[i % MAX_CANDIDATES]);
		fx.sc[i].rank = fx.feasible;
		fx.sc[i].count = MAX_CANDIDATES;
		fx.sc[i].feasible = fx.all_bits;
		fx.sc[i].feasible_count = MAX_CANDIDATES;
	}
	md = render(&fx.r);
	cr_assert_gt(strlen(md), MG_SUMMARY_MAX / 2);
	expect_has(md, "more candidates omitted; see the decision record\n");
	expect_has(md, "more reasons omitted; see the log of this step\n");
	expect_has(md, "more scenarios omitted; see the decision record\n");
	expect_has(md, "### Evidence\n");
	expect_has(md, "| 1 | ");
	free(md);
}

/* Issue 19, finding 3: n candidates at the base, all changed and with long
 * names, so that the "Against the base" table alone would pass the limit.
 * Returns the summary; *passes and *compares count the work it took. */
static char *render_against_base(size_t n, size_t *passes, size_t *compares)
{
	static mg_check_result base;
	static mg_decision bd;
	static mg_check_base cb;
	mg_evaluation *bev = calloc(n, sizeof(*bev));
	char (*names)[160] = calloc(n, sizeof(*names));
	size_t i, p0, c0;
	char *md;

	build();
	memset(&base, 0, sizeof(base));
	memset(&bd, 0, sizeof(bd));
	for (i = 0; i < n; i++) {
		memset(names[i], 'n', 150);
		snprintf(names[i] + 150, 10, "%07zu", i);
		bev[i] = fx.ev[i % 4];
		bev[i].name = names[i];
	}
	bd.verdict = MG_TUNE;
	bd.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	bd.base.evaluations = bev;
	bd.base.count = n;
	base.decision = &bd;
	memset(&cb, 0, sizeof(cb));
	memset(cb.rev, 'f', 40);
	cb.result = &base;
	fx.r.base = &cb;
	p0 = mg_summary_render_passes;
	c0 = mg_compare_name_compares;
	md = render(&fx.r);
	*passes = mg_summary_render_passes - p0;
	*compares = mg_compare_name_compares - c0;
	fx.r.base = NULL;
	free(names);
	free(bev);
	return md;
}

/* The comparison is computed once per summary, the table holds at most
 * MG_SUMMARY_BASE_ROWS rows and says how many it left out, and the
 * summary is rendered once: doubling the candidates neither adds passes
 * nor more than 2.5x the name comparisons. */
Test(summary, base_table_is_bounded_and_computed_once)
{
	size_t p1, c1, p2, c2;
	char *md1 = render_against_base(40000, &p1, &c1);
	char *md2 = render_against_base(80000, &p2, &c2);

	cr_expect_eq(p1, 1, "%zu render passes for 40000 candidates", p1);
	cr_expect_eq(p2, 1, "%zu render passes for 80000 candidates", p2);
	cr_expect_lt(c2, c1 * 5 / 2, "%zu name comparisons for 80000, %zu for 40000", c2, c1);
	expect_has(md1, "\n39004 more candidates omitted; see the decision record\n");
	expect_has(md2, "\n79004 more candidates omitted; see the decision record\n");
	expect_has(md2, "0000995 | removed |");
	cr_expect_null(strstr(md2, "0000996 | removed |"));
	free(md1);
	free(md2);
}

/* ---- a real run ---- */

#define GIT "git -c init.defaultBranch=main -c commit.gpgsign=false " \
	    "-c user.name=memgate-test -c user.email=test@memgate.invalid"

static void write_file(const char *dir, const char *path, const char *data, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	f = fopen(full, "wb");
	cr_assert_not_null(f, "cannot write %s", full);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* The real flat report and the chapter's budget, committed; checked. */
static mg_check_result *check_real(char *dir)
{
	static const char report_path[] = "benchmarks/results/76_real_gpu_memory.json";
	char hex[MG_DIGEST_HEX_SIZE], cmd[1024], *text;
	mg_check_options opt = { 0 };
	mg_check_result *r = NULL;
	mg_error err;
	size_t len;

	strcpy(dir, "/tmp/memgate-summary.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/benchmarks/results'", dir);
	cr_assert_eq(system(cmd), 0);
	text = mg_test_read("fixtures/e2e/real-flat-11200.yml", &len);
	write_file(dir, ".memgate.yml", text, len);
	free(text);
	text = mg_test_read("fixtures/reports/76_real_gpu_memory.flat.json", &len);
	write_file(dir, report_path, text, len);
	cr_assert_eq(mg_digest_sha256_hex(hex, text, len), MG_OK);
	free(text);
	text = mg_manifest_render(report_path, hex, NULL, NULL);
	write_file(dir, "benchmarks/results/75_input_manifest.json", text, strlen(text));
	free(text);
	snprintf(cmd, sizeof(cmd), "cd '%s' && " GIT " init -q . && " GIT " add -A && "
		 GIT " commit -q -m evidence", dir);
	cr_assert_eq(system(cmd), 0);
	opt.dir = dir;
	cr_assert_eq(mg_check_run(&r, &opt, &err), 0, "%s", err.message);
	return r;
}

Test(summary, real_report_gives_a_well_formed_summary)
{
	char dir[64], cmd[128], *md;
	mg_check_result *r = check_real(dir);

	md = render(r);
	cr_assert_eq(expect_tables(md), 4);   /* candidates, scenarios, tipping points, front */
	expect_has(md, "| min\\_memory\\_saving\\_mb 512 | at 331\\.98 \\(exact 331\\.97999999999956\\)\\: "
		   "tune \\(selection\\_is\\_threshold\\_sensitive\\)\\, selected checkpoint | no change |\n");
	expect_has(md, "```mermaid\nxychart-beta\n    title \"Peak memory (MB) against memory_cap_mb\"\n"
		   "    x-axis [\"1 baseline\", \"2 checkpoint\", \"4 hybrid\", \"3 offload\"]\n"
		   /* the table's numbers; the axis spans the values and the cap, not from 0 */
		   "    y-axis \"peak_memory_mb, 9273.163 to 11375.167\" 9273.163 --> 11375.167\n");
	expect_has(md, "| 3 | offload | rejected |");
	expect_has(md, "| 4 | hybrid | rejected |");
	expect_has(md, "    y-axis \"samples_per_s, 0.385 to 2.157\" 0.385 --> 2.157\n");
	expect_has(md, "## memgate: tune \xe2\x80\x94 \xe2\x9d\x8c failed\n");
	expect_has(md, "| 2 | checkpoint (selected) | rejected | 9450.76 \xe2\x9c\x85 +1749.24 | "
		   "1.761 \xe2\x9c\x85 +0.761 | 12.356503 \xe2\x9c\x85 +0.24713006 | "
		   "331.98 \xe2\x9d\x8c -180.02 | 0.876556 \xe2\x9c\x85 +0.176556 | "
		   "`memory_saving_below_floor` |\n");
	expect_has(md, "| grid\\[5\\] | `memory_cap_mb` 11200, `min_samples_per_s` 2 | none | none |\n");
	free(md);
	mg_check_result_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(summary, could_not_decide_names_the_error)
{
	mg_error err;
	char *md;

	mg_error_set(&err, ".memgate.yml", 9, 1, "unknown key 'budgt' (did you mean 'budget'?) <b>|");
	md = mg_summary_render_error(&err);
	expect_inert(md);
	expect_has(md, "## memgate: could not decide \xe2\x80\x94 \xe2\x9d\x8c failed\n\n"
		   "- **Error:** \\.memgate\\.yml\\:9\\:1: unknown key \\'budgt\\' \\(did you mean "
		   "\\'budget\\'\\?\\) &lt;b&gt;\\|\n- **Exit status:** 2");
	free(md);
}

Test(summary, base_comparison_and_notes_have_sections)
{
	static mg_check_result base;
	static mg_evaluation bev[2];
	static mg_decision bd;
	static mg_check_base cb;
	char *notes[1] = { "adopting memgate: <the> policy" };
	char *md;

	build();
	memset(&base, 0, sizeof(base));
	memset(&bd, 0, sizeof(bd));
	bev[0] = fx.ev[1];
	bev[0].value[MG_M_PEAK] = 9500.25;
	bev[1] = fx.ev[0];
	bev[1].name = "gone";
	bd.verdict = MG_TUNE;
	bd.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	bd.selected = "checkpoint";
	bd.base.evaluations = bev;
	bd.base.count = 2;
	base.decision = &bd;
	base.passed = false;
	memset(&cb, 0, sizeof(cb));
	memset(cb.rev, 'f', 40);
	cb.result = &base;
	fx.r.base = &cb;
	fx.r.notes = notes;
	fx.r.note_count = 1;
	md = render(&fx.r);
	expect_has(md, "### Against the base\n\n| | commit | decision | reason | selected | gate |\n"
		   "|---|---|---|---|---|---|\n| base | `ffffffffffffffffffffffffffffffffffffffff` | "
		   "tune | `memory_saving_below_meaningful_threshold` | checkpoint | failed |\n");
	expect_has(md, "| checkpoint | changed | 9500.25 \xe2\x86\x92 9450.76 (-49.49) | 1.761 (same) |");
	expect_has(md, "| gone | removed | 9782.74 |");
	expect_has(md, "### Notes\n\n- adopting memgate\\: &lt;the&gt; policy\n");
	cb.result = NULL;
	cb.error = "cannot read 'x' at fffffff: not found";
	free(md);
	md = render(&fx.r);
	expect_has(md, "The base commit `ffffffffffffffffffffffffffffffffffffffff` could not be decided: "
		   "cannot read \\'x\\' at fffffff\\: not found\n");
	free(md);
}
