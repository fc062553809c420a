/* The text rendering for people: see include/memgate/text.h. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "compare.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/insight.h"
#include "memgate/text.h"

#define MAX_COLS (3 + MG_CHECK_COUNT + 1)   /* #, name, status, checks, reasons */

/* Beyond these a log gets a summary instead of every row: the whole list is
 * in the decision record (--format json). */
#define TEXT_MAX_ROWS 20         /* candidates listed one a row */
#define TEXT_BEST 5              /* in a summary: the selected and this many more */
#define TEXT_MAX_SCENARIOS 20    /* scenarios always listed by winner in full */
#define TEXT_MAX_GROUPS 6        /* in a summary: winners listed */
#define TEXT_MAX_RANGES 4        /* in a summary: scenario ranges of a winner */

/* Append untrusted text escaped for a terminal. */
static void put_safe(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

/* A winner or selection: "(none)" for NULL. */
static void put_winner(mg_buf *out, const char *name)
{
	if (name)
		mg_format_name(out, name);
	else
		mg_buf_puts(out, "(none)");
}

/* Display width of escaped (valid UTF-8) text: one column per character. */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* " <= 11200", " < 512 FAIL", " < 512 WAIVED": how a screened value compares. */
static void put_comparison(mg_buf *out, const mg_threshold_def *c, bool fail, bool waived,
			   const double *limit)
{
	mg_buf_printf(out, " %s ", mg_check_operator(c, fail, false));
	if (limit)
		mg_format_threshold(out, *limit);
	else
		mg_buf_putc(out, '?');
	if (fail)
		mg_buf_puts(out, waived ? " WAIVED" : " FAIL");
}

/* "peak 9450.76 MB <= 11200", "saving 331.98 MB < 512 FAIL"; the value
 * alone for a candidate that stopped before the thresholds (steps 1-6). */
static void put_check(mg_buf *out, const mg_threshold_def *c, const mg_evaluation *e,
		      const mg_decision *d)
{
	bool waived = e->waived & (1u << c->reason);
	bool fail = (e->reasons & (1u << c->reason)) || waived;
	bool screened = e->status == MG_STATUS_FEASIBLE || e->status == MG_STATUS_REJECTED;
	double v = e->value[c->metric], limit;
	const double *shown = mg_check_limit(&limit, c, d) ? &limit : NULL;

	mg_buf_printf(out, "%s ", c->column);
	if (!e->known[c->metric] || !isfinite(v)) {
		mg_buf_puts(out, "unknown");
	} else {
		mg_format_value(out, v, screened ? shown : NULL);
		mg_buf_puts(out, c->unit);
		if (screened)
			put_comparison(out, c, fail, waived, shown);
	}
}

static void put_reason_list(mg_buf *out, unsigned reasons)
{
	const char *sep = "";
	int i;

	for (i = 0; i < MG_REASON_COUNT; i++) {
		if (reasons & (1u << i)) {
			mg_buf_printf(out, "%s%s", sep, mg_reason_name((enum mg_reason)i));
			sep = ", ";
		}
	}
}

/* "memory_saving_below_floor", "-", "- (waived: samples_per_s_below_floor)" */
static void put_reasons(mg_buf *out, unsigned reasons, unsigned waived)
{
	if (!reasons)
		mg_buf_putc(out, '-');
	put_reason_list(out, reasons);
	if (waived) {
		mg_buf_puts(out, " (waived: ");
		put_reason_list(out, waived);
		mg_buf_putc(out, ')');
	}
}

/* Columns of the table: #, name, status, one per active check, reasons. */
static size_t column_count(const mg_budget *b)
{
	size_t n = 4, i;

	for (i = 0; i < MG_CHECK_COUNT; i++)
		if (mg_check_active(mg_check(i), b))
			n++;
	return n;
}

/* Fill one row of cells (column_count of them) for an evaluation. */
static void fill_row(char **cells, size_t row, const mg_evaluation *e,
		     const mg_decision *d)
{
	mg_buf cell = MG_BUF_INIT;
	size_t n = 0, i;

	mg_buf_printf(&cell, "%zu", row + 1);
	cells[n++] = mg_buf_detach(&cell, NULL);
	mg_format_name(&cell, e->name);
	cells[n++] = mg_buf_detach(&cell, NULL);
	mg_buf_puts(&cell, mg_status_name(e->status));
	cells[n++] = mg_buf_detach(&cell, NULL);
	for (i = 0; i < MG_CHECK_COUNT; i++) {
		if (!mg_check_active(mg_check(i), &d->budget))
			continue;
		put_check(&cell, mg_check(i), e, d);
		cells[n++] = mg_buf_detach(&cell, NULL);
	}
	put_reasons(&cell, e->reasons, e->waived);
	cells[n] = mg_buf_detach(&cell, NULL);
}

/* Print rows of cells with columns aligned (the first right-aligned when
 * `index`, the last column unpadded), two spaces between columns. */
static void put_table(mg_buf *out, char **cells, size_t rows, size_t cols, bool index)
{
	size_t widths[MAX_COLS] = { 0 };
	size_t r, c, w;

	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			if ((w = width(cells[r * cols + c])) > widths[c])
				widths[c] = w;
	for (r = 0; r < rows; r++) {
		mg_buf_puts(out, "  ");
		for (c = 0; c < cols; c++) {
			const char *s = cells[r * cols + c];
			int pad = (int)(widths[c] - width(s));

			if (c == 0 && index)
				mg_buf_printf(out, "%*s%s", pad, "", s);
			else if (c == 0)
				mg_buf_printf(out, "%s%*s", s, pad, "");
			else if (c + 1 < cols)
				mg_buf_printf(out, "  %s%*s", s, pad, "");
			else
				mg_buf_printf(out, "  %s\n", s);
		}
	}
}

/* Rows of the candidate table for evaluations idx[0..n) (report numbers). */
static void put_rows(mg_buf *out, const mg_decision *d, const size_t *idx, size_t n)
{
	size_t cols = column_count(&d->budget), i;
	char **cells = mg_xcalloc(n * cols, sizeof(*cells));

	for (i = 0; i < n; i++)
		fill_row(cells + i * cols, idx[i], &d->base.evaluations[idx[i]], d);
	put_table(out, cells, n, cols, true);
	for (i = 0; i < n * cols; i++)
		free(cells[i]);
	free(cells);
}

/* "  status: 3 feasible, 2 rejected" and "  reasons: 2 memory_over_budget"
 * (counts in the order of the statuses and reasons). */
static void put_counts(mg_buf *out, const mg_screening *s)
{
	size_t status[MG_STATUS_EXCLUDED + 1] = { 0 }, reason[MG_REASON_COUNT] = { 0 }, i;
	const char *sep = "";
	int k;

	for (i = 0; i < s->count; i++) {
		status[s->evaluations[i].status]++;
		for (k = 0; k < MG_REASON_COUNT; k++)
			reason[k] += (s->evaluations[i].reasons >> k) & 1u;
	}
	mg_buf_puts(out, "  status: ");
	for (k = 0; k <= MG_STATUS_EXCLUDED; k++)
		if (status[k]) {
			mg_buf_printf(out, "%s%zu %s", sep, status[k], mg_status_name((enum mg_status)k));
			sep = ", ";
		}
	mg_buf_puts(out, "\n  reasons: ");
	for (sep = "", k = 0; k < MG_REASON_COUNT; k++)
		if (reason[k]) {
			mg_buf_printf(out, "%s%zu %s", sep, reason[k], mg_reason_name((enum mg_reason)k));
			sep = ", ";
		}
	mg_buf_puts(out, *sep ? "\n" : "none\n");
}

/* The index of the evaluation named `name`, or SIZE_MAX. */
static size_t index_of(const mg_screening *s, const char *name)
{
	size_t i;

	for (i = 0; name && i < s->count; i++)
		if (s->evaluations[i].name && !strcmp(s->evaluations[i].name, name))
			return i;
	return SIZE_MAX;
}

/* More candidates than a log can show: the selected one, the next best few,
 * and counts of every status and reason. */
static void put_candidates_summary(mg_buf *out, const mg_decision *d)
{
	const mg_screening *s = &d->base;
	size_t idx[TEXT_BEST + 1], best[TEXT_BEST + 1], n = 0, k, m;
	size_t sel = index_of(s, d->selected);

	if (sel != SIZE_MAX)
		idx[n++] = sel;
	m = mg_decision_best(d, best, TEXT_BEST + 1);
	for (k = 0; k < m && n < TEXT_BEST + (sel != SIZE_MAX); k++)
		if (best[k] != sel)
			idx[n++] = best[k];
	mg_buf_printf(out, "candidates: %zu; shown: %s%zu best by rank "
		      "(memgate check --format json lists every one)\n", s->count,
		      sel != SIZE_MAX ? "the selected one and the next " : "the ",
		      n - (sel != SIZE_MAX));
	put_rows(out, d, idx, n);
	put_counts(out, s);
}

static void put_candidates(mg_buf *out, const mg_decision *d)
{
	const mg_screening *s = &d->base;
	size_t *idx, i;

	if (!s->count) {
		mg_buf_puts(out, "candidates: none\n");
		return;
	}
	if (s->count > TEXT_MAX_ROWS) {
		put_candidates_summary(out, d);
		return;
	}
	mg_buf_puts(out, "candidates:\n");
	idx = mg_xcalloc(s->count, sizeof(*idx));
	for (i = 0; i < s->count; i++)
		idx[i] = i;
	put_rows(out, d, idx, s->count);
	free(idx);
}

static void put_list(mg_buf *out, const char *name, const char **sep)
{
	mg_buf_printf(out, "%s%s", *sep, name);
	*sep = ", ";
}

/* "checks: memory_cap_mb 11200, ...; not set: ..." */
static void put_checks_line(mg_buf *out, const mg_budget *b)
{
	const char *sep = "";
	int t, unset = 0;

	mg_buf_puts(out, "checks: ");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (mg_threshold_def_of((enum mg_threshold)t)->vs_base != MG_VS_NONE)
			continue;   /* regression: its own line */
		if (!b->set[t]) {
			unset++;
			continue;
		}
		put_list(out, mg_threshold_name((enum mg_threshold)t), &sep);
		mg_buf_putc(out, ' ');
		mg_format_threshold(out, b->value[t]);
	}
	if (!*sep)
		mg_buf_puts(out, "none");
	if (unset)
		mg_buf_puts(out, "; not set: ");
	for (sep = "", t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (!b->set[t] && mg_threshold_def_of((enum mg_threshold)t)->vs_base == MG_VS_NONE)
			put_list(out, mg_threshold_name((enum mg_threshold)t), &sep);
	mg_buf_putc(out, '\n');
}

/* "  benchmarks/76.json:4:18: the report's hardware_id is 'a'; the policy
 * pins 'b' [hardware_mismatch]": what each evidence issue is about. */
static void put_issue_details(mg_buf *out, const mg_finding *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].issue < 0)
			continue;
		mg_buf_puts(out, "  ");
		mg_format_location(out, f[i].file, f[i].pos, put_safe);
		mg_buf_printf(out, "%s [%s]\n", f[i].message, f[i].code);
	}
}

static void put_evidence_line(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	mg_finding *findings = NULL;
	const char *sep = "";
	size_t n = 0;
	int i;

	if (d->applicable) {
		mg_buf_puts(out, "evidence: applicable\n");
		return;
	}
	mg_buf_puts(out, "evidence: not applicable: ");
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			put_list(out, mg_issue_name((enum mg_issue)i), &sep);
	mg_buf_putc(out, '\n');
	mg_findings(&findings, &n, r);
	put_issue_details(out, findings, n);
	mg_findings_free(findings, n);
}

/*
 * With regression: "regression against the base 0123456789ab: 1 beyond
 * max_peak_increase_pct 5 (covers selected; decision tune)", then each
 * regression at its line of the report (README, "Regressions").
 */
static void put_regression(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_regression *rg;
	mg_finding *findings = NULL;
	const char *sep = "";
	size_t n = 0, i;
	int t;

	if (!r->policy || !mg_regression_active(&r->policy->rules.regression))
		return;
	rg = &r->policy->rules.regression;
	if (!d->regression_checked) {
		mg_buf_puts(out, "regression: not compared\n");
		return;
	}
	if (r->history && r->history->used)
		mg_buf_printf(out, "regression against the median of the last %zu measurements "
			      "(%d asked) on the first-parent line of the base %.12s: ",
			      r->history->used, r->history->asked, r->history->base);
	else
		mg_buf_printf(out, "regression against the base %.12s: ",
			      r->base ? r->base->rev : "");
	if (d->regressed_count)
		mg_buf_printf(out, "%zu beyond ", d->regressed_count);
	else
		mg_buf_puts(out, "none beyond ");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (rg->limits.set[t]) {
			mg_buf_printf(out, "%s%s ", sep, mg_threshold_name((enum mg_threshold)t));
			mg_format_threshold(out, rg->limits.value[t]);
			sep = ", ";
		}
	mg_buf_printf(out, " (covers %s; decision %s", mg_covers_name(rg->covers),
		      rg->reject ? "reject" : "tune");
	if (d->regression_within_noise)
		mg_buf_printf(out, "; %zu within the runs' noise", d->regression_within_noise);
	mg_buf_puts(out, ")\n");
	mg_findings(&findings, &n, r);
	for (i = 0; i < n; i++) {
		int reason = mg_reason_from_name(findings[i].code);

		if (reason < 0 || !MG_REASON_IS_REGRESSION(reason))
			continue;
		mg_buf_puts(out, "  ");
		mg_format_location(out, findings[i].file, findings[i].pos, put_safe);
		mg_buf_printf(out, "%s [%s]\n", findings[i].message, findings[i].code);
	}
	mg_findings_free(findings, n);
}

/* ", manifest 'path'" (with " at <commit>" when it differs from rev). */
static void put_input(mg_buf *out, const char *what, const mg_input_ref *ref,
		      const char *rev)
{
	if (!ref->path)
		return;
	mg_buf_printf(out, ", %s '", what);
	put_safe(out, ref->path);
	mg_buf_putc(out, '\'');
	if (ref->commit[0] && strcmp(ref->commit, rev) != 0)
		mg_buf_printf(out, " at %.12s", ref->commit);
}

/* "inputs: commit 0123456789ab: policy '.memgate.yml', report '...'" */
static void put_inputs_line(mg_buf *out, const mg_check_result *r)
{
	mg_buf list = MG_BUF_INIT;
	mg_input_ref policy = r->policy_ref;

	if (!policy.commit[0] && !r->worktree)
		memcpy(policy.commit, r->policy_rev, sizeof(policy.commit));
	put_input(&list, "policy", &policy, r->rev);
	if (r->manifest_ref.read)
		put_input(&list, "manifest", &r->manifest_ref, r->rev);
	put_input(&list, "report", &r->report_ref, r->rev);
	if (r->approved_ref.read)
		put_input(&list, "approved result", &r->approved_ref, r->rev);
	if (r->worktree)
		mg_buf_puts(out, "inputs: working tree (--worktree), not a commit");
	else
		mg_buf_printf(out, "inputs: commit %.12s", r->rev[0] ? r->rev : "(unknown)");
	if (list.len)
		mg_buf_printf(out, ":%s", list.ptr + 1);
	mg_buf_putc(out, '\n');
	mg_buf_free(&list);
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *sc_best(const mg_decision *d, size_t i)
{
	return d->scenarios[i].best;
}

/* Split "grid[12]" into its prefix length (5) and number (12). */
static bool split_id(const char *id, size_t *prefix, long *number)
{
	const char *open = strchr(id, '[');
	char *end;

	if (!open || open[1] < '0' || open[1] > '9')
		return false;
	*number = strtol(open + 1, &end, 10);
	*prefix = (size_t)(open - id + 1);
	return end[0] == ']' && end[1] == '\0';
}

/* Does scenario id b directly follow id a ("grid[3]" -> "grid[4]")? */
static bool follows(const char *a, const char *b)
{
	size_t pa, pb;
	long na, nb;

	return split_id(a, &pa, &na) && split_id(b, &pb, &nb) && pa == pb &&
	       !strncmp(a, b, pa) && nb - 1 == na;
}

/* "grid[0]" alone, "grid[0], grid[1]", or the range "grid[0-5]" from a to b. */
static void put_range(mg_buf *out, const char *a, const char *b)
{
	if (a == b || follows(a, b)) {
		put_safe(out, a);
		if (a != b) {
			mg_buf_puts(out, ", ");
			put_safe(out, b);
		}
		return;
	}
	mg_escape_text(out, a, strlen(a) - 1);
	mg_buf_putc(out, '-');
	put_safe(out, strchr(b, '[') + 1);
}

/* "  winner checkpoint (base winner): stricter[0], grid[0-5]" for the
 * scenarios whose winner is that of scenario `first`, the first to have it. */
static void put_winner_group(mg_buf *out, const mg_decision *d, size_t first)
{
	const mg_scenario *sc = d->scenarios;
	const char *best = sc[first].best, *sep = " ";
	size_t i, start = first, last = first;

	mg_buf_puts(out, "  winner ");
	put_winner(out, best);
	if (best && same_name(best, d->best))
		mg_buf_puts(out, " (base winner)");
	mg_buf_putc(out, ':');
	for (i = first + 1; i <= d->scenario_count; i++) {
		bool end = i == d->scenario_count;

		if (!end && !same_name(sc[i].best, best))
			continue;
		if (!end && follows(sc[last].id, sc[i].id)) {
			last = i;
			continue;
		}
		mg_buf_puts(out, sep);
		put_range(out, sc[start].id, sc[last].id);
		sep = ", ";
		start = last = i;
	}
	mg_buf_putc(out, '\n');
}

/* A scenario and the index of its winner (SIZE_MAX for none). */
struct sc_winner {
	size_t winner, scenario;
};

static int sc_winner_cmp(const void *a, const void *b)
{
	const struct sc_winner *x = a, *y = b;

	if (x->winner != y->winner)
		return x->winner < y->winner ? -1 : 1;
	return (x->scenario > y->scenario) - (x->scenario < y->scenario);
}

/* A winner's scenarios: list[start..end) of the sorted pairs. */
struct sc_group {
	size_t start, end;
};

static int sc_group_cmp(const void *a, const void *b)
{
	const struct sc_group *x = a, *y = b;
	size_t nx = x->end - x->start, ny = y->end - y->start;

	if (nx != ny)
		return nx > ny ? -1 : 1;   /* most scenarios first */
	return (x->start > y->start) - (x->start < y->start);
}

/* "  winner X (base winner): 360 scenarios: grid[0-9], grid[20-29] and 34
 * more ranges" */
static void put_group_summary(mg_buf *out, const mg_decision *d, const struct sc_winner *list,
			      const struct sc_group *g)
{
	const mg_scenario *sc = d->scenarios;
	const char *best = sc[list[g->start].scenario].best, *sep = " ";
	size_t i, start = g->start, ranges = 0;

	mg_buf_puts(out, "  winner ");
	put_winner(out, best);
	if (best && same_name(best, d->best))
		mg_buf_puts(out, " (base winner)");
	mg_buf_printf(out, ": %zu scenario%s:", g->end - g->start, g->end - g->start == 1 ? "" : "s");
	for (i = g->start + 1; i <= g->end; i++) {
		if (i < g->end && follows(sc[list[i - 1].scenario].id, sc[list[i].scenario].id))
			continue;
		if (ranges++ < TEXT_MAX_RANGES) {
			mg_buf_puts(out, sep);
			put_range(out, sc[list[start].scenario].id, sc[list[i - 1].scenario].id);
			sep = ", ";
		}
		start = i;
	}
	if (ranges > TEXT_MAX_RANGES)
		mg_buf_printf(out, " and %zu more range%s", ranges - TEXT_MAX_RANGES,
			      ranges - TEXT_MAX_RANGES == 1 ? "" : "s");
	mg_buf_putc(out, '\n');
}

/* The number of id ranges ("grid[0-5]") in a group. */
static size_t group_ranges(const mg_decision *d, const struct sc_winner *list,
			   const struct sc_group *g)
{
	size_t i, ranges = 1;

	for (i = g->start + 1; i < g->end; i++)
		ranges += !follows(d->scenarios[list[i - 1].scenario].id,
				   d->scenarios[list[i].scenario].id);
	return ranges;
}

/* More scenarios than a log can show (more winners, or more id ranges,
 * than a few lines hold): how often the winner changes, and the winners
 * with the most scenarios.  False, printing nothing, when every winner's
 * line fits. */
static bool put_sensitivity_summary(mg_buf *out, const mg_decision *d)
{
	size_t n = d->scenario_count, i, groups = 0, same = 0, none = 0, rest = 0, ranges = 0;
	struct sc_winner *list = mg_xcalloc(n, sizeof(*list));
	struct sc_group *g = mg_xcalloc(n, sizeof(*g));
	bool summary;

	for (i = 0; i < n; i++) {
		list[i].winner = d->scenarios[i].best ? d->scenarios[i].best_index : SIZE_MAX;
		list[i].scenario = i;
		same += d->scenarios[i].best && same_name(d->scenarios[i].best, d->best);
		none += !d->scenarios[i].best;
	}
	qsort(list, n, sizeof(*list), sc_winner_cmp);
	for (i = 0; i < n; i++) {
		if (!i || list[i].winner != list[i - 1].winner)
			g[groups++].start = i;
		g[groups - 1].end = i + 1;
	}
	for (i = 0; i < groups; i++)
		ranges += group_ranges(d, list, &g[i]);
	summary = groups > TEXT_MAX_GROUPS || ranges > TEXT_MAX_GROUPS * TEXT_MAX_RANGES;
	if (!summary)
		goto done;
	mg_buf_printf(out, "  the winner is the base winner in %zu, another candidate in %zu, "
		      "none in %zu\n", same, n - same - none, none);
	qsort(g, groups, sizeof(*g), sc_group_cmp);
	for (i = 0; i < groups && i < TEXT_MAX_GROUPS; i++)
		put_group_summary(out, d, list, &g[i]);
	for (; i < groups; i++)
		rest += g[i].end - g[i].start;
	if (groups > TEXT_MAX_GROUPS)
		mg_buf_printf(out, "  and %zu more winners in %zu scenarios "
			      "(memgate check --format json lists every scenario)\n",
			      groups - TEXT_MAX_GROUPS, rest);
done:
	free(list);
	free(g);
	return summary;
}

/* "memory_cap_mb 8500, min_samples_per_s 1.5", or "no override". */
static void put_overrides_or_none(mg_buf *out, const mg_budget *ov)
{
	size_t before = out->len;

	mg_format_overrides(out, ov);
	if (out->len == before)
		mg_buf_puts(out, "no override");
}
/* What each scenario id stands for: "  stricter[0]: memory_cap_mb 8500",
 * and one line for the grid: "  grid[0-5]: memory_cap_mb 9600, 11200 x
 * min_samples_per_s 1, 1.5, 2 (last axis fastest)". */
static void put_scenario_ids(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_rules *rules = r->policy ? &r->policy->rules : NULL;
	size_t i, k, first_grid = d->scenario_count;

	for (i = 0; i < d->scenario_count; i++) {
		if (strncmp(d->scenarios[i].id, "stricter[", 9)) {
			if (first_grid == d->scenario_count)
				first_grid = i;
			continue;
		}
		mg_buf_printf(out, "  %s: ", d->scenarios[i].id);
		put_overrides_or_none(out, &d->scenarios[i].overrides);
		mg_buf_putc(out, '\n');
	}
	if (first_grid == d->scenario_count || !rules || !rules->grid_count || !rules->grid)
		return;
	mg_buf_puts(out, "  ");
	put_range(out, d->scenarios[first_grid].id, d->scenarios[d->scenario_count - 1].id);
	mg_buf_puts(out, ": ");
	for (i = 0; i < rules->grid_count; i++) {
		const mg_grid_axis *axis = &rules->grid[i];

		mg_buf_printf(out, "%s%s ", i ? " x " : "", mg_threshold_name(axis->threshold));
		for (k = 0; k < axis->count; k++) {
			if (k)
				mg_buf_puts(out, ", ");
			mg_format_threshold(out, axis->values[k]);
		}
	}
	mg_buf_puts(out, rules->grid_count > 1 ? " (last axis fastest)\n" : "\n");
}

static void put_sensitivity(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	size_t i, j;

	mg_buf_puts(out, "sensitivity: ");
	mg_format_stability(out, d, mg_format_name);
	mg_buf_putc(out, '\n');
	if (!d->sensitivity_evaluated)
		return;
	if (d->scenario_count > TEXT_MAX_SCENARIOS && put_sensitivity_summary(out, d)) {
		put_scenario_ids(out, r);
		return;
	}
	for (i = 0; i < d->scenario_count; i++) {
		for (j = 0; j < i && !same_name(sc_best(d, j), sc_best(d, i)); j++)
			;
		if (j == i)
			put_winner_group(out, d, i);
	}
	put_scenario_ids(out, r);
}

/* "note: the report's own decision was 'tune' (reason); ..." when the
 * producer decided otherwise. */
static void put_producer_note(mg_buf *out, const mg_check_result *r)
{
	const mg_report *rep = r->report;

	if (!rep || !rep->producer_decision ||
	    !strcmp(rep->producer_decision, mg_verdict_name(r->decision->verdict)))
		return;
	mg_buf_puts(out, "note: the report's own decision was '");
	put_safe(out, rep->producer_decision);
	mg_buf_putc(out, '\'');
	if (rep->producer_reason) {
		mg_buf_puts(out, " (");
		put_safe(out, rep->producer_reason);
		mg_buf_putc(out, ')');
	}
	mg_buf_puts(out, "; memgate decided from the evidence\n");
}

/* "approved record: tune, selected checkpoint (the evidence still decides
 * this)", or on decision_drift "...; the evidence now decides reject
 * (no_candidate_meets_base_budget), selected (none)". */
static void put_approved(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;

	if (!d->approved_checked)
		return;
	mg_buf_puts(out, "approved record: ");
	put_winner(out, r->approved_decision);
	mg_buf_puts(out, ", selected ");
	put_winner(out, r->approved_selected);
	if (!d->drift) {
		mg_buf_puts(out, " (the evidence still decides this)\n");
		return;
	}
	mg_buf_printf(out, "; the evidence now decides %s (%s), selected ",
		      mg_verdict_name(d->computed_verdict), mg_outcome_name(d->computed_reason));
	put_winner(out, d->computed_selected);
	mg_buf_putc(out, '\n');
}

/* A side of a policy change, escaped. */
static void put_change_value(mg_buf *out, const mg_change_value *v)
{
	mg_buf raw = MG_BUF_INIT;

	mg_check_change_text(&raw, v);
	put_safe(out, raw.ptr);
	mg_buf_free(&raw);
}

static void put_changes(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->change_count; i++) {
		const mg_policy_change *c = &r->changes[i];

		mg_buf_puts(out, "policy change: ");
		put_safe(out, c->key);
		mg_buf_puts(out, " was ");
		put_change_value(out, &c->before);
		mg_buf_puts(out, " at the policy revision, is ");
		put_change_value(out, &c->after);
		if (c->effect == MG_CHANGE_EXPIRED)
			mg_buf_printf(out, " at the evidence revision (expired: that date has "
				      "passed, today is %s; it waives nothing)\n", r->today);
		else
			mg_buf_printf(out, " at the evidence revision (%s the %s)\n",
				      mg_check_effect_name(c->effect),
				      c->effect == MG_CHANGE_ALTERS ? "policy" : "budget");
	}
}

static void put_notes(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->note_count; i++) {
		mg_buf_puts(out, "note: ");
		put_safe(out, r->notes[i]);
		mg_buf_putc(out, '\n');
	}
}

/* ---- the base comparison ---- */

/* "9450.76 -> 9000 MB (-450.76)", "1.761 (same)", "new 9000 MB", "gone". */
static void put_compare_cell(mg_buf *out, const mg_compare_value *v, const char *unit)
{
	double delta, zero = 0;

	if (!v->base_known && !v->head_known) {
		mg_buf_puts(out, "unknown");
		return;
	}
	if (v->base_known && v->head_known && v->base == v->head) {
		mg_format_value(out, v->head, NULL);
		mg_buf_printf(out, "%s (same)", unit);
		return;
	}
	if (v->base_known)
		mg_format_value(out, v->base, NULL);
	else
		mg_buf_puts(out, "unknown");
	mg_buf_puts(out, " -> ");
	if (v->head_known)
		mg_format_value(out, v->head, NULL);
	else
		mg_buf_puts(out, "unknown");
	mg_buf_puts(out, unit);
	if (v->base_known && v->head_known) {
		delta = v->head - v->base;
		mg_buf_puts(out, delta >= 0 ? " (+" : " (");
		mg_format_value(out, delta, &zero);
		mg_buf_putc(out, ')');
	}
}

static const char *const compare_labels[MG_COMPARE_METRICS] = { "peak", "samples/s", "eval_loss" };
static const char *const compare_units[MG_COMPARE_METRICS] = { " MB", "", "" };

/* One row: name, then each metric, or "new"/"removed" with the values. */
static void fill_compare_row(char **cells, const mg_compare_row *row)
{
	mg_buf cell = MG_BUF_INIT;
	size_t k, n = 0;

	mg_format_name(&cell, row->name);
	cells[n++] = mg_buf_detach(&cell, NULL);
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		const mg_compare_value *v = &row->value[k];
		bool known = row->in_head ? v->head_known : v->base_known;

		mg_buf_printf(&cell, "%s ", compare_labels[k]);
		if (row->in_base && row->in_head) {
			put_compare_cell(&cell, v, compare_units[k]);
		} else if (known) {
			mg_format_value(&cell, row->in_head ? v->head : v->base, NULL);
			mg_buf_puts(&cell, compare_units[k]);
		} else {
			mg_buf_puts(&cell, "unknown");
		}
		cells[n++] = mg_buf_detach(&cell, NULL);
	}
	mg_buf_puts(&cell, !row->in_base ? "new candidate" : !row->in_head ? "removed" :
		    row->base_status != row->head_status ? "" : "-");
	if (row->in_base && row->in_head && row->base_status != row->head_status)
		mg_buf_printf(&cell, "%s -> %s", mg_status_name(row->base_status),
			      mg_status_name(row->head_status));
	cells[n] = mg_buf_detach(&cell, NULL);
}

static void put_base_rows(mg_buf *out, const mg_decision *base, const mg_decision *head)
{
	mg_compare_row *rows = NULL;
	size_t n = 0, cols = MG_COMPARE_METRICS + 2, i, shown = 0;
	char **cells;

	mg_compare_rows(&rows, &n, base, head);
	cells = mg_xcalloc(n * cols + 1, sizeof(*cells));
	for (i = 0; i < n; i++)
		if (mg_compare_row_changed(&rows[i]))
			fill_compare_row(cells + shown++ * cols, &rows[i]);
	if (shown) {
		mg_buf_puts(out, "changed against the base:\n");
		put_table(out, cells, shown, cols, false);
	} else {
		mg_buf_puts(out, "changed against the base: nothing (same candidates and values)\n");
	}
	for (i = 0; i < shown * cols; i++)
		free(cells[i]);
	free(cells);
	free(rows);
}

/* "base: 1a2b3c4d5e6f decided tune (reason), selected checkpoint, gate failed" */
static void put_base(mg_buf *out, const mg_check_result *r)
{
	const mg_check_base *b = r->base;
	const mg_decision *bd;

	if (!b)
		return;
	mg_buf_printf(out, "base: %.12s ", b->rev);
	if (!b->result) {
		mg_buf_puts(out, "could not be decided: ");
		put_safe(out, b->error ? b->error : "unknown error");
		mg_buf_putc(out, '\n');
		return;
	}
	bd = b->result->decision;
	mg_buf_printf(out, "decided %s (%s), selected ", mg_verdict_name(bd->verdict),
		      mg_outcome_name(bd->reason));
	put_winner(out, bd->selected);
	mg_buf_printf(out, ", gate %s; this commit: %s, selected ",
		      b->result->passed ? "passed" : "failed", mg_verdict_name(r->decision->verdict));
	put_winner(out, r->decision->selected);
	mg_buf_putc(out, '\n');
	put_base_rows(out, bd, r->decision);
}

/* "waivers (today 2026-05-02, the clock's date in UTC):" and one line each. */
static void put_waivers(mg_buf *out, const mg_check_result *r)
{
	mg_buf line = MG_BUF_INIT;
	size_t i;

	if (!r->policy || !r->policy->waivers_set)
		return;
	mg_buf_printf(out, "waivers (today %s, %s):%s\n", r->today,
		      r->today_given ? "from --today" : "the clock's date in UTC",
		      r->waiver_count ? "" : " none");
	for (i = 0; i < r->waiver_count; i++) {
		mg_check_waiver_message(&line, r, i);
		mg_buf_puts(out, r->waivers[i].status == MG_WAIVER_APPLIED ? "  " : "  warning: ");
		put_safe(out, line.ptr);
		mg_buf_putc(out, '\n');
		mg_buf_free(&line);
		if (!r->waivers[i].expiring)
			continue;
		mg_check_waiver_expiring_message(&line, r, i);
		mg_buf_puts(out, "  notice: ");
		put_safe(out, line.ptr);
		mg_buf_putc(out, '\n');
		mg_buf_free(&line);
	}
}

/* ---- insight: tipping points, noise, the trade-off front ---- */

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
		mg_format_tip(out, &in->tips[i].down, put_winner);
		mg_buf_puts(out, "; higher: ");
		mg_format_tip(out, &in->tips[i].up, put_winner);
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
		put_winner(out, d->base.evaluations[i].name);
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
			put_winner(out, d->base.evaluations[i].name);
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
		put_winner(out, d->base.evaluations[i].name);
		mg_buf_puts(out, " dominated by ");
		put_winner(out, d->base.evaluations[in->dominated_by[i]].name);
	}
	mg_buf_putc(out, '\n');
}

static void put_exchange(mg_buf *out, const mg_decision *d)
{
	size_t idx[TEXT_MAX_ROWS], n = mg_decision_best(d, idx, TEXT_MAX_ROWS), i, shown = 0;
	double rate;

	for (i = 0; i < n; i++) {
		const mg_evaluation *e = &d->base.evaluations[idx[i]];

		if (mg_insight_exchange(&rate, e) == MG_EXCHANGE_UNKNOWN)
			continue;
		mg_buf_puts(out, shown++ ? "; " : "exchange rate vs the baseline (MB saved per "
			    "1% of throughput lost): ");
		put_winner(out, e->name);
		mg_buf_putc(out, ' ');
		mg_format_exchange(out, e);
	}
	if (shown)
		mg_buf_putc(out, '\n');
}

static void put_insight(mg_buf *out, const mg_check_result *r)
{
	if (!r->insight)
		return;
	put_tips(out, r->insight);
	put_noise(out, r->decision, r->insight);
	put_front(out, r->decision, r->insight);
	put_exchange(out, r->decision);
}

static void put_warnings(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->warning_count; i++) {
		mg_buf_puts(out, "warning: ");
		put_safe(out, r->warnings[i]);
		mg_buf_putc(out, '\n');
	}
}

/* "gate: failed (fails on: reject, tune)" */
static void put_gate(mg_buf *out, const mg_check_result *r)
{
	const char *sep = "";
	int v;

	mg_buf_printf(out, "gate: %s (fails on: ", r->passed ? "passed" : "failed");
	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (r->fail_on[v])
			put_list(out, mg_verdict_name((enum mg_verdict)v), &sep);
	mg_buf_puts(out, *sep ? ")\n" : "nothing)\n");
}

char *mg_text_render(const mg_check_result *r)
{
	const mg_decision *d;
	mg_buf out = MG_BUF_INIT;

	assert(r && r->decision);
	d = r->decision;
	mg_buf_printf(&out, "memgate: %s (%s)\n", mg_verdict_name(d->verdict),
		      mg_outcome_name(d->reason));
	mg_buf_printf(&out, "next action: %s\n", mg_next_action_name(d->next_action));
	mg_buf_puts(&out, "selected: ");
	put_winner(&out, d->selected);
	mg_buf_putc(&out, '\n');
	put_inputs_line(&out, r);
	put_evidence_line(&out, r);
	put_regression(&out, r);
	put_checks_line(&out, &d->budget);
	put_candidates(&out, d);
	put_sensitivity(&out, r);
	put_insight(&out, r);
	put_approved(&out, r);
	put_producer_note(&out, r);
	put_base(&out, r);
	put_changes(&out, r);
	put_notes(&out, r);
	put_waivers(&out, r);
	put_warnings(&out, r);
	put_gate(&out, r);
	return mg_buf_detach(&out, NULL);
}

/* ---- several policies ---- */

/* "memgate: 3 policies: 1 passed, 1 failed, 1 could not be decided" and a
 * row per policy: decision, reason, selected candidate, gate. */
static void put_set_table(mg_buf *out, const mg_check_item *items, size_t count)
{
	enum { COLS = 6 };
	char **cells = mg_xcalloc(count * COLS, sizeof(*cells));
	size_t n[3] = { 0 }, i, k;
	mg_buf cell = MG_BUF_INIT;
	char buf[2048];

	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;
		char **row = cells + i * COLS;

		n[mg_check_item_status(&items[i])]++;
		mg_buf_printf(&cell, "%zu", i + 1);
		row[0] = mg_buf_detach(&cell, NULL);
		put_safe(&cell, items[i].policy);
		row[1] = mg_buf_detach(&cell, NULL);
		if (r) {
			mg_buf_puts(&cell, mg_verdict_name(r->decision->verdict));
			row[2] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, mg_outcome_name(r->decision->reason));
			row[3] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, "selected ");
			put_winner(&cell, r->decision->selected);
			row[4] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, r->passed ? "passed" : "failed");
		} else {
			row[2] = mg_xstrdup("error");
			row[3] = mg_xstrdup("could not decide");
			row[4] = mg_xstrdup("-");
			put_safe(&cell, mg_error_format(&items[i].error, buf, sizeof(buf)));
		}
		row[5] = mg_buf_detach(&cell, NULL);
	}
	mg_buf_printf(out, "memgate: %zu polic%s: %zu passed, %zu failed, %zu could not be decided\n",
		      count, count == 1 ? "y" : "ies", n[0], n[1], n[2]);
	put_table(out, cells, count, COLS, true);
	for (k = 0; k < count * COLS; k++)
		free(cells[k]);
	free(cells);
}

char *mg_text_render_set(const mg_check_item *items, size_t count)
{
	mg_buf out = MG_BUF_INIT;
	char buf[2048];
	char *text;
	size_t i;

	assert(items);
	for (i = 0; i < count; i++) {
		mg_buf_puts(&out, "policy ");
		put_safe(&out, items[i].policy);
		mg_buf_putc(&out, '\n');
		if (items[i].result) {
			text = mg_text_render(items[i].result);
			mg_buf_puts(&out, text);
			free(text);
		} else {
			mg_buf_puts(&out, "memgate: error: ");
			put_safe(&out, mg_error_format(&items[i].error, buf, sizeof(buf)));
			mg_buf_putc(&out, '\n');
		}
		mg_buf_putc(&out, '\n');
	}
	put_set_table(&out, items, count);
	return mg_buf_detach(&out, NULL);
}
