/* The text rendering for people: see include/memgate/text.h.  The
 * sensitivity and insight sections are text_sensitivity.c and
 * text_insight.c; text_put.h is what the three share. */
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
#include "text_put.h"

#define MAX_COLS (3 + MG_CHECK_COUNT + 1)   /* #, name, status, checks, reasons */

/* Beyond these (and TEXT_MAX_ROWS) a log gets a summary instead of every
 * row: the whole list is in the decision record (--format json). */
#define TEXT_BEST 5              /* in a summary: the selected and this many more */

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

	mg_buf_puts(out, c->column);
	mg_buf_putc(out, ' ');
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
			mg_buf_puts(out, sep);
			mg_buf_puts(out, mg_reason_name((enum mg_reason)i));
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

static void put_spaces(mg_buf *out, size_t n)
{
	while (n--)
		mg_buf_putc(out, ' ');
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
			size_t pad = widths[c] - width(s);

			if (c == 0 && index) {
				put_spaces(out, pad);
				mg_buf_puts(out, s);
			} else if (c == 0) {
				mg_buf_puts(out, s);
				put_spaces(out, pad);
			} else if (c + 1 < cols) {
				mg_buf_puts(out, "  ");
				mg_buf_puts(out, s);
				put_spaces(out, pad);
			} else {
				mg_buf_puts(out, "  ");
				mg_buf_puts(out, s);
				mg_buf_putc(out, '\n');
			}
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
		mg_format_location(out, f[i].file, f[i].pos, mg_text__put_safe);
		mg_buf_printf(out, "%s [%s]\n", f[i].message, f[i].code->name);
	}
}

/* The three parts of the text that list findings (mg_text_reads_findings):
 * the evidence issues' details, the regressions, and the proposed policy
 * failing its evidence. */
static bool shows_issue_details(const mg_check_result *r)
{
	return !r->decision->applicable;
}

static bool shows_regressions(const mg_check_result *r)
{
	return r->policy && mg_regression_active(&r->policy->rules.regression) &&
	       r->decision->regression_checked;
}

static bool shows_proposed(const mg_check_result *r)
{
	return r->proposed && r->proposed->fails;
}

bool mg_text_reads_findings(const mg_check_result *r)
{
	assert(r && r->decision);
	return shows_issue_details(r) || shows_regressions(r) || shows_proposed(r);
}

static void put_evidence_line(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_finding *findings;
	const char *sep = "";
	size_t n;
	int i;

	if (!shows_issue_details(r)) {
		mg_buf_puts(out, "evidence: applicable\n");
		return;
	}
	mg_buf_puts(out, "evidence: not applicable: ");
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			put_list(out, mg_issue_name((enum mg_issue)i), &sep);
	mg_buf_putc(out, '\n');
	findings = mg_result_findings(r, &n);
	put_issue_details(out, findings, n);
}

/*
 * With regression: "regression against the base 0123456789ab: 1 beyond
 * max_peak_increase_pct 5 (covers selected; decision tune)", then each
 * regression at its line of the report (memgate(1), REGRESSIONS AND HISTORY).
 */
static void put_regression(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_regression *rg;
	const mg_finding *findings;
	const char *sep = "";
	size_t n, i;
	int t;

	if (!r->policy || !mg_regression_active(&r->policy->rules.regression))
		return;
	rg = &r->policy->rules.regression;
	if (!shows_regressions(r)) {
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
		mg_buf_printf(out, "; %zu changed within the runs' noise", d->regression_within_noise);
	if (d->waived_count)
		mg_buf_printf(out, "; %zu accepted by a waiver", d->waived_count);
	if (d->unmatched_count)
		mg_buf_printf(out, "; %zu not compared: no candidate of that name now",
			      d->unmatched_count);
	mg_buf_puts(out, ")\n");
	findings = mg_result_findings(r, &n);
	for (i = 0; i < n; i++) {
		int reason = mg_code_reason(findings[i].code);

		if ((reason < 0 || !MG_REASON_IS_REGRESSION(reason)) &&
		    findings[i].code != mg_code_of(MG_CODE_REGRESSION_NOT_COMPARED) &&
		    findings[i].code != mg_code_of(MG_CODE_CHANGED_WITHIN_NOISE))
			continue;
		mg_buf_puts(out, "  ");
		mg_format_location(out, findings[i].file, findings[i].pos, mg_text__put_safe);
		mg_buf_printf(out, "%s [%s]\n", findings[i].message, findings[i].code->name);
	}
}

/* ", manifest 'path'" (with " at <commit>" when it differs from rev). */
static void put_input(mg_buf *out, const char *what, const mg_input_ref *ref,
		      const char *rev)
{
	if (!ref->path)
		return;
	mg_buf_printf(out, ", %s '", what);
	mg_text__put_safe(out, ref->path);
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

/* With provenance, who signed: "signature: signed by gpu-runner@ci, key
 * ssh-ed25519 SHA256:..." for the manifest, "approval: approved by
 * alice@example.com, key ..." for the approval (--require-approved), or
 * the key and why it does not count: "..., not verified (signer_unknown)". */
static void put_signer_line(mg_buf *out, const mg_check_signature *s, const char *label,
			    const char *verb)
{
	if (!s->checked || !s->key)
		return;
	mg_buf_printf(out, "%s: ", label);
	if (s->verified) {
		mg_buf_printf(out, "%s by ", verb);
		mg_text__put_safe(out, s->principals);
		mg_buf_puts(out, ", key ");
		mg_text__put_safe(out, s->key);
	} else {
		mg_buf_puts(out, "key ");
		mg_text__put_safe(out, s->key);
		mg_buf_printf(out, ", not verified (%s)", mg_issue_name(s->issue));
	}
	mg_buf_putc(out, '\n');
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
	mg_text__put_safe(out, rep->producer_decision);
	mg_buf_putc(out, '\'');
	if (rep->producer_reason) {
		mg_buf_puts(out, " (");
		mg_text__put_safe(out, rep->producer_reason);
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
	mg_text__put_winner(out, r->approved_decision);
	mg_buf_puts(out, ", selected ");
	mg_text__put_winner(out, r->approved_selected);
	if (!d->drift) {
		mg_buf_puts(out, " (the evidence still decides this)\n");
		return;
	}
	mg_buf_printf(out, "; the evidence now decides %s (%s), selected ",
		      mg_verdict_name(d->computed_verdict), mg_outcome_name(d->computed_reason));
	mg_text__put_winner(out, d->computed_selected);
	mg_buf_putc(out, '\n');
}

/* A side of a policy change, escaped. */
static void put_change_value(mg_buf *out, const mg_change_value *v)
{
	mg_buf raw = MG_BUF_INIT;

	mg_check_change_text(&raw, v);
	mg_text__put_safe(out, raw.ptr);
	mg_buf_free(&raw);
}

static void put_changes(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->change_count; i++) {
		const mg_policy_change *c = &r->changes[i];

		mg_buf_puts(out, "policy change: ");
		mg_text__put_safe(out, c->key);
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

/* "policy: .memgate.yml:9:3: the policy this change proposes fails its own
 * evidence: ... [policy_change_fails_its_evidence]" (findings.h) */
static void put_proposed(mg_buf *out, const mg_check_result *r)
{
	const mg_finding *f;
	size_t n, i;

	if (!shows_proposed(r))
		return;
	f = mg_result_findings(r, &n);
	for (i = 0; i < n; i++) {
		if (f[i].code != mg_code_of(MG_CODE_POLICY_CHANGE_FAILS_ITS_EVIDENCE))
			continue;
		mg_buf_puts(out, "policy: ");
		mg_format_location(out, f[i].file, f[i].pos, mg_text__put_safe);
		mg_buf_printf(out, "%s [%s]\n", f[i].message, f[i].code->name);
	}
}

static void put_notes(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->note_count; i++) {
		mg_buf_puts(out, "note: ");
		mg_text__put_safe(out, r->notes[i]);
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

/* One row: name, then each metric, or "new"/"removed" with the values;
 * under regression.history the peak's median the regressions compare
 * with, when r has one: "(+2000; median of the last 5: 52000)". */
static void fill_compare_row(char **cells, const mg_check_result *r, const mg_compare_row *row)
{
	double median;
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
		if (mg_compare_metrics[k] == MG_M_PEAK && row->in_head &&
		    mg_check_history_median(&median, r, row->name)) {
			mg_buf_printf(&cell, "; median of the last %zu: ", r->history->used);
			mg_format_value(&cell, median, NULL);
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

/* Whether the row's peak now differs from the median its regressions
 * compare with (regression.history). */
static bool off_median(const mg_check_result *r, const mg_compare_row *row)
{
	double median;

	return row->in_head && row->value[0].head_known &&
	       mg_check_history_median(&median, r, row->name) && median != row->value[0].head;
}

static void put_base_rows(mg_buf *out, const mg_check_result *r, const mg_decision *base)
{
	mg_compare_row *rows = NULL;
	size_t n = 0, cols = MG_COMPARE_METRICS + 2, i, shown = 0;
	char **cells;

	mg_compare_rows(&rows, &n, base, r->decision);
	cells = mg_xcalloc(n * cols + 1, sizeof(*cells));
	for (i = 0; i < n; i++)
		if (mg_compare_row_changed(&rows[i]) || off_median(r, &rows[i]))
			fill_compare_row(cells + shown++ * cols, r, &rows[i]);
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
		mg_text__put_safe(out, b->error ? b->error : "unknown error");
		mg_buf_putc(out, '\n');
		return;
	}
	bd = b->result->decision;
	/* its measured commit is not here: its own verdict is not known */
	if (bd->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN]) {
		mg_buf_puts(out, "decision not known here (its measured commit is not in this "
			    "clone), its numbers select ");
		mg_text__put_winner(out, b->result->compare_selected);
		mg_buf_printf(out, "; this commit: %s, selected ",
			      mg_verdict_name(r->decision->verdict));
		mg_text__put_winner(out, r->decision->selected);
		mg_buf_putc(out, '\n');
		put_base_rows(out, r, bd);
		return;
	}
	mg_buf_printf(out, "decided %s (%s), selected ", mg_verdict_name(bd->verdict),
		      mg_outcome_name(bd->reason));
	mg_text__put_winner(out, bd->selected);
	mg_buf_printf(out, ", gate %s; this commit: %s, selected ",
		      b->result->passed ? "passed" : "failed", mg_verdict_name(r->decision->verdict));
	mg_text__put_winner(out, r->decision->selected);
	mg_buf_putc(out, '\n');
	put_base_rows(out, r, bd);
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
		mg_text__put_safe(out, line.ptr);
		mg_buf_putc(out, '\n');
		mg_buf_free(&line);
		if (!r->waivers[i].expiring)
			continue;
		mg_check_waiver_expiring_message(&line, r, i);
		mg_buf_puts(out, "  notice: ");
		mg_text__put_safe(out, line.ptr);
		mg_buf_putc(out, '\n');
		mg_buf_free(&line);
	}
}

/* ---- insight: tipping points, noise, the trade-off front ---- */

static void put_warnings(mg_buf *out, const mg_check_result *r)
{
	size_t i;

	for (i = 0; i < r->warning_count; i++) {
		mg_buf_puts(out, "warning: ");
		mg_text__put_safe(out, r->warnings[i]);
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
	mg_text__put_winner(&out, d->selected);
	mg_buf_putc(&out, '\n');
	put_inputs_line(&out, r);
	put_signer_line(&out, &r->signature, "signature", "signed");
	put_signer_line(&out, &r->approval_sig, "approval", "approved");
	put_evidence_line(&out, r);
	put_regression(&out, r);
	put_checks_line(&out, &d->budget);
	put_candidates(&out, d);
	mg_text__put_sensitivity(&out, r);
	mg_text__put_insight(&out, r);
	put_approved(&out, r);
	put_producer_note(&out, r);
	put_base(&out, r);
	put_changes(&out, r);
	put_proposed(&out, r);
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
		mg_text__put_safe(&cell, items[i].policy);
		row[1] = mg_buf_detach(&cell, NULL);
		if (r) {
			mg_buf_puts(&cell, mg_verdict_name(r->decision->verdict));
			row[2] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, mg_outcome_name(r->decision->reason));
			row[3] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, "selected ");
			mg_text__put_winner(&cell, r->decision->selected);
			row[4] = mg_buf_detach(&cell, NULL);
			mg_buf_puts(&cell, r->passed ? "passed" : "failed");
		} else {
			row[2] = mg_xstrdup("error");
			row[3] = mg_xstrdup("could not decide");
			row[4] = mg_xstrdup("-");
			mg_text__put_safe(&cell,
					  mg_error_format(&items[i].error, buf, sizeof(buf)));
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
	char *text;
	size_t i;

	assert(items);
	for (i = 0; i < count; i++) {
		mg_buf_puts(&out, "policy ");
		mg_text__put_safe(&out, items[i].policy);
		mg_buf_putc(&out, '\n');
		if (items[i].result) {
			text = mg_text_render(items[i].result);
			mg_buf_puts(&out, text);
			free(text);
		} else {
			/* the error itself is on stderr and in the table: once each */
			mg_buf_puts(&out, "memgate: could not decide (the error: in the table "
				    "below)\n");
		}
		mg_buf_putc(&out, '\n');
	}
	put_set_table(&out, items, count);
	return mg_buf_detach(&out, NULL);
}
