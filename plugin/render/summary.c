/* The job summary in GitHub-flavoured Markdown: see include/memgate/summary.h.
 * The base comparison and insight sections are summary_base.c and
 * summary_insight.c; summary_put.h is what the three share. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "severity.h"
#include "compare.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/insight.h"
#include "memgate/summary.h"
#include "summary_put.h"

#define BIT(r) (1u << (r))
#define FEASIBLE_NAMES 5   /* names listed in a scenario's feasible-set cell */

size_t mg_summary_render_passes;

/* ---- the decision ---- */

static void put_checks_run(mg_buf *out, const mg_budget *b)
{
	const char *sep = "";
	int t, unset = 0;

	mg_buf_puts(out, "- **Checks run:** ");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (mg_threshold_def_of((enum mg_threshold)t)->vs_base != MG_VS_NONE)
			continue;   /* regression: its own section */
		if (!b->set[t]) {
			unset++;
			continue;
		}
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_threshold_name((enum mg_threshold)t));
		mg_buf_putc(out, ' ');
		mg_format_threshold(out, b->value[t]);
		sep = ", ";
	}
	if (!*sep)
		mg_buf_puts(out, "none");
	if (unset)
		mg_buf_puts(out, "; **not set:** ");
	for (sep = "", t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (b->set[t] || mg_threshold_def_of((enum mg_threshold)t)->vs_base != MG_VS_NONE)
			continue;
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_threshold_name((enum mg_threshold)t));
		sep = ", ";
	}
	mg_buf_putc(out, '\n');
}

static void put_gate(mg_buf *out, const mg_check_result *r)
{
	const char *sep = "";
	int v;

	mg_buf_printf(out, "- **Gate:** %s; fails on ", r->passed ? "passed" : "failed");
	for (v = 0; v < MG_VERDICT_COUNT; v++) {
		if (!r->fail_on[v])
			continue;
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_verdict_name((enum mg_verdict)v));
		sep = ", ";
	}
	mg_buf_puts(out, *sep ? "\n" : "nothing\n");
}

static void put_heading(struct render *x)
{
	const mg_decision *d = x->d;
	mg_buf *out = &x->out;

	mg_buf_printf(out, "## memgate: %s \xe2\x80\x94 %s\n\n", mg_verdict_name(d->verdict),
		      x->r->passed ? "\xe2\x9c\x85 passed" : "\xe2\x9d\x8c failed");
	mg_buf_puts(out, "- **Reason:** ");
	mg_summary__put_code(out, mg_outcome_name(d->reason));
	mg_buf_puts(out, "\n- **Next action:** ");
	mg_summary__put_code(out, mg_next_action_name(d->next_action));
	mg_buf_puts(out, "\n- **Selected candidate:** ");
	if (d->selected)
		mg_summary__put_name(out, d->selected);
	else
		mg_buf_puts(out, "none");
	mg_buf_putc(out, '\n');
	put_gate(out, x->r);
	put_checks_run(out, &d->budget);
}

/* ---- candidates ---- */

static void put_candidate_header(mg_buf *out, const mg_decision *d)
{
	size_t i;
	double limit;

	mg_buf_puts(out, "| # | candidate | status |");
	for (i = 0; i < MG_CHECK_COUNT; i++) {
		const mg_threshold_def *c = mg_check(i);

		if (!mg_check_active(c, &d->budget))
			continue;
		mg_buf_printf(out, " %s%s %s ", c->label, c->unit, mg_check_operator(c, false, true));
		if (mg_check_limit(&limit, c, d))
			mg_format_threshold(out, limit);
		else
			mg_buf_puts(out, "?");
		mg_buf_puts(out, " |");
	}
	mg_buf_puts(out, " reasons |\n|---:|---|---|");
	for (i = 0; i < MG_CHECK_COUNT; i++)
		if (mg_check_active(mg_check(i), &d->budget))
			mg_buf_puts(out, "---:|");
	mg_buf_puts(out, "---|\n");
}

/* "9450.76 ✅ +1749.24": the value, pass or fail, and the headroom (the
 * signed margin to the threshold, negative when it fails); the value alone
 * for a candidate stopped before the thresholds; "n/a" when unknown. */
static void put_check_cell(mg_buf *out, const mg_threshold_def *c, const mg_evaluation *e,
			   const mg_decision *d)
{
	bool screened = e->status == MG_STATUS_FEASIBLE || e->status == MG_STATUS_REJECTED;
	double v = e->value[c->metric], limit, headroom, zero = 0;
	bool known = mg_check_limit(&limit, c, d);

	if (!e->known[c->metric] || !isfinite(v)) {
		mg_buf_puts(out, "n/a");
		return;
	}
	mg_format_value(out, v, screened && known ? &limit : NULL);
	if (!screened || !known)
		return;
	headroom = c->ceiling ? limit - v : v - limit;
	if (e->waived & BIT(c->reason))
		mg_buf_puts(out, " \xe2\x9a\xa0\xef\xb8\x8f waived ");
	else
		mg_buf_puts(out, e->reasons & BIT(c->reason) ? " \xe2\x9d\x8c " : " \xe2\x9c\x85 ");
	if (headroom >= 0)
		mg_buf_putc(out, '+');
	mg_format_value(out, headroom, &zero);
}

static void put_reason_codes(mg_buf *out, unsigned reasons)
{
	const char *sep = "";
	int i;

	if (!reasons)
		mg_buf_puts(out, "\xe2\x80\x94");
	for (i = 0; i < MG_REASON_COUNT; i++) {
		if (!(reasons & BIT(i)))
			continue;
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_reason_name((enum mg_reason)i));
		sep = ", ";
	}
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void put_candidate_row(struct render *x, size_t i)
{
	const mg_evaluation *e = &x->d->base.evaluations[i];
	const char *baseline = mg_rules_baseline(x->r->policy ? &x->r->policy->rules : NULL);
	mg_buf *out = &x->out;
	size_t k;

	mg_buf_printf(out, "| %zu | ", i + 1);
	mg_summary__put_name(out, e->name);
	if (e->name && same_name(e->name, x->d->selected))
		mg_buf_puts(out, " (selected)");
	if (e->name && same_name(e->name, baseline))
		mg_buf_puts(out, " (baseline)");
	mg_buf_printf(out, " | %s |", mg_status_name(e->status));
	for (k = 0; k < MG_CHECK_COUNT; k++) {
		if (!mg_check_active(mg_check(k), &x->d->budget))
			continue;
		mg_buf_putc(out, ' ');
		put_check_cell(out, mg_check(k), e, x->d);
		mg_buf_puts(out, " |");
	}
	mg_buf_putc(out, ' ');
	put_reason_codes(out, e->reasons);
	mg_buf_puts(out, " |\n");
}

static void put_candidates(struct render *x)
{
	const mg_screening *s = &x->d->base;
	size_t i;

	mg_buf_puts(&x->out, "\n### Candidates\n\n");
	if (!s->count) {
		mg_buf_puts(&x->out, "The report has no candidates.\n");
		return;
	}
	put_candidate_header(&x->out, x->d);
	for (i = 0; i < s->count && mg_summary__room_for_row(x, T_CANDIDATES); i++) {
		put_candidate_row(x, i);
		x->shown[T_CANDIDATES]++;
	}
	mg_buf_puts(&x->out, "\nA value passes (\xe2\x9c\x85) or fails (\xe2\x9d\x8c) its check; "
		    "the signed number after it is the headroom to the threshold.\n");
	mg_summary__put_omitted(x, T_CANDIDATES, "candidates", "the decision record");
}

/* ---- findings ---- */

/* The marker of a finding's annotation level (severity.h's rule). */
static const char *marker(const mg_finding *f, bool passed)
{
	return mg_severity_marker(mg_severity_annotation(f->weight, passed));
}

/* "- ❌ .memgate.yml:12:25: checkpoint: ... (`memory_saving_below_floor`)" */
static void put_finding(mg_buf *out, const mg_finding *f, bool passed)
{
	mg_buf_printf(out, "- %s ", marker(f, passed));
	mg_format_location(out, f->file, f->pos, mg_summary__put_md);
	mg_summary__put_md(out, f->message);
	mg_buf_puts(out, " (");
	mg_summary__put_code(out, f->code->name);
	mg_buf_puts(out, ")\n");
}

static void put_findings(struct render *x)
{
	size_t i;

	if (!x->total[T_FINDINGS])
		return;
	mg_buf_puts(&x->out, "\n### Reasons\n\n");
	for (i = 0; i < x->finding_count && mg_summary__room_for_row(x, T_FINDINGS); i++) {
		if (!mg_severity_is_reason(x->findings[i].weight))
			continue;
		put_finding(&x->out, &x->findings[i], x->r->passed);
		x->shown[T_FINDINGS]++;
	}
	mg_summary__put_omitted(x, T_FINDINGS, "reasons", "the log of this step");
}

/* ---- sensitivity ---- */

static void put_overrides(mg_buf *out, const mg_budget *ov)
{
	const char *sep = "";
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (!ov->set[t])
			continue;
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_threshold_name((enum mg_threshold)t));
		mg_buf_putc(out, ' ');
		mg_format_threshold(out, ov->value[t]);
		sep = ", ";
	}
	if (!*sep)
		mg_buf_puts(out, "none");
}

/* The first FEASIBLE_NAMES of a scenario's feasible set, in rank order. */
static void put_feasible(mg_buf *out, const mg_decision *d, const mg_scenario *sc)
{
	size_t k = 0, cursor = 0, index;

	if (!sc->feasible_count)
		mg_buf_puts(out, "none");
	for (; k < FEASIBLE_NAMES && mg_scenario_next_feasible(sc, &cursor, &index); k++) {
		if (k)
			mg_buf_puts(out, ", ");
		mg_summary__put_name(out, d->base.evaluations[index].name);
	}
	if (sc->feasible_count > FEASIBLE_NAMES)
		mg_buf_printf(out, " and %zu more", sc->feasible_count - FEASIBLE_NAMES);
}

static void put_scenario_row(struct render *x, const mg_scenario *sc)
{
	mg_buf *out = &x->out;

	mg_buf_puts(out, "| ");
	mg_summary__put_md(out, sc->id);
	mg_buf_puts(out, " | ");
	put_overrides(out, &sc->overrides);
	mg_buf_puts(out, " | ");
	if (sc->best)
		mg_summary__put_name(out, sc->best);
	else
		mg_buf_puts(out, "none");
	if (!same_name(sc->best, x->d->best))
		mg_buf_puts(out, " \xe2\x9a\xa0\xef\xb8\x8f changed");
	mg_buf_puts(out, " | ");
	put_feasible(out, x->d, sc);
	mg_buf_puts(out, " |\n");
}

static void put_stability(mg_buf *out, const mg_decision *d)
{
	mg_buf_puts(out, "Sensitivity: ");
	mg_format_stability(out, d, mg_summary__put_name);
	mg_buf_puts(out, ".\n\n");
}

static void put_sensitivity(struct render *x)
{
	const mg_decision *d = x->d;
	size_t i;

	mg_buf_puts(&x->out, "\n### Sensitivity\n\n");
	if (!d->sensitivity_evaluated) {
		mg_buf_puts(&x->out, "Not evaluated: the decision stopped at the evidence or the "
			    "baseline.\n");
		return;
	}
	if (!d->scenario_count) {
		mg_buf_puts(&x->out, "\xe2\x9a\xa0\xef\xb8\x8f Stability was not tested: "
			    "the policy has no sensitivity scenarios.\n");
		return;
	}
	put_stability(&x->out, d);
	mg_buf_puts(&x->out, "| scenario | overrides | winner | feasible set |\n|---|---|---|---|\n");
	for (i = 0; i < d->scenario_count && mg_summary__room_for_row(x, T_SCENARIOS); i++) {
		put_scenario_row(x, &d->scenarios[i]);
		x->shown[T_SCENARIOS]++;
	}
	mg_summary__put_omitted(x, T_SCENARIOS, "scenarios", "the decision record");
}

/* ---- evidence, policy changes, warnings ---- */

/* "- **Report:** path, SHA-256 `hex`, blob `hex`" */
static void put_input(mg_buf *out, const char *what, const mg_input_ref *ref, bool sha256)
{
	if (!ref->path)
		return;
	mg_buf_printf(out, "- **%s:** ", what);
	mg_summary__put_md(out, ref->path);
	if (sha256) {
		mg_buf_puts(out, ", SHA-256 ");
		mg_summary__put_hex(out, ref->sha256);
	}
	if (ref->blob[0]) {
		mg_buf_puts(out, ", blob ");
		mg_summary__put_hex(out, ref->blob);
	}
	mg_buf_putc(out, '\n');
}

static void put_applicable(mg_buf *out, const mg_decision *d)
{
	const char *sep = "";
	int i;

	mg_buf_puts(out, "- **Applicable:** ");
	if (d->applicable) {
		mg_buf_puts(out, "yes\n");
		return;
	}
	mg_buf_puts(out, "no: ");
	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!d->issue[i])
			continue;
		mg_buf_puts(out, sep);
		mg_summary__put_code(out, mg_issue_name((enum mg_issue)i));
		sep = ", ";
	}
	mg_buf_putc(out, '\n');
}

static void put_revisions(mg_buf *out, const mg_check_result *r)
{
	const char *policy_rev = r->policy_ref.commit[0] ? r->policy_ref.commit : r->policy_rev;

	if (r->worktree) {
		mg_buf_puts(out, "- **Inputs:** the working tree (--worktree), not a commit\n");
		return;
	}
	mg_buf_puts(out, "- **Evidence commit:** ");
	mg_summary__put_hex(out, r->rev);
	mg_buf_puts(out, "\n- **Policy commit:** ");
	mg_summary__put_hex(out, policy_rev);
	mg_buf_putc(out, '\n');
}

static void put_producer(mg_buf *out, const mg_check_result *r)
{
	const mg_report *rep = r->report;

	if (!rep || !rep->producer_decision ||
	    !strcmp(rep->producer_decision, mg_verdict_name(r->decision->verdict)))
		return;
	mg_buf_puts(out, "- **The report's own decision:** ");
	mg_summary__put_md(out, rep->producer_decision);
	if (rep->producer_reason) {
		mg_buf_puts(out, " (");
		mg_summary__put_md(out, rep->producer_reason);
		mg_buf_putc(out, ')');
	}
	mg_buf_puts(out, "; memgate decided from the evidence\n");
}

/* "- **Signature:** signed by `gpu-runner@ci`, key `ssh-ed25519 SHA256:...`"
 * for the manifest, "- **Approval:** approved by ..." for the approval
 * (--require-approved), or the key and why it does not count. */
static void put_signer(mg_buf *out, const mg_check_signature *s, const char *label,
		       const char *verb)
{
	if (!s->checked || !s->key)
		return;
	mg_buf_printf(out, "- **%s:** ", label);
	if (s->verified) {
		mg_buf_printf(out, "%s by ", verb);
		mg_summary__put_md(out, s->principals);
		mg_buf_puts(out, ", key ");
	} else {
		mg_buf_puts(out, "not verified (");
		mg_summary__put_code(out, mg_issue_name(s->issue));
		mg_buf_puts(out, "), key ");
	}
	mg_summary__put_md(out, s->key);
	mg_buf_putc(out, '\n');
}

static void put_evidence(struct render *x)
{
	const mg_check_result *r = x->r;
	mg_buf *out = &x->out;

	mg_buf_puts(out, "\n### Evidence\n\n");
	put_applicable(out, x->d);
	put_revisions(out, r);
	put_input(out, "Policy", &r->policy_ref, false);
	if (r->manifest_ref.read)
		put_input(out, "Manifest", &r->manifest_ref, false);
	put_input(out, "Report", &r->report_ref, true);
	if (r->approved_ref.read)
		put_input(out, "Approved result", &r->approved_ref, true);
	put_signer(out, &r->signature, "Signature", "signed");
	put_signer(out, &r->approval_sig, "Approval", "approved");
	if (r->decision->approved_checked) {
		mg_buf_puts(out, "- **Approved record:** ");
		mg_summary__put_md(out, r->approved_decision ? r->approved_decision : "none");
		mg_buf_puts(out, ", selected ");
		mg_summary__put_name(out, r->approved_selected);
		mg_buf_putc(out, '\n');
	}
	put_producer(out, r);
}

/* A side of a policy change, escaped for a table cell. */
static void put_change_value(mg_buf *out, const mg_change_value *v)
{
	mg_buf raw = MG_BUF_INIT;

	mg_check_change_text(&raw, v);
	mg_summary__put_md(out, raw.ptr);
	mg_buf_free(&raw);
}

static void put_changes(struct render *x)
{
	mg_buf *out = &x->out;
	size_t i;

	if (!x->r->change_count)
		return;
	mg_buf_puts(out, "\n### Policy changes\n\nThe policy at the evidence revision differs "
		    "from the one that decided:\n\n| key | decided with | proposed | effect |\n"
		    "|---|---|---|---|\n");
	for (i = 0; i < x->r->change_count; i++) {
		const mg_policy_change *c = &x->r->changes[i];

		mg_buf_puts(out, "| ");
		mg_summary__put_md(out, c->key);
		mg_buf_puts(out, " | ");
		put_change_value(out, &c->before);
		mg_buf_puts(out, " | ");
		put_change_value(out, &c->after);
		mg_buf_printf(out, " | %s%s |\n", c->effect == MG_CHANGE_LOOSENS ||
			      c->effect == MG_CHANGE_EXPIRED ?
			      "\xe2\x9a\xa0\xef\xb8\x8f " : "", mg_check_effect_name(c->effect));
	}
}

static void put_notes(struct render *x)
{
	size_t i;

	if (!x->r->note_count)
		return;
	mg_buf_puts(&x->out, "\n### Notes\n\n");
	for (i = 0; i < x->r->note_count; i++) {
		mg_buf_puts(&x->out, "- ");
		mg_summary__put_md(&x->out, x->r->notes[i]);
		mg_buf_putc(&x->out, '\n');
	}
}

/* One row per waiver: candidate, reason, owner, expiry, what became of it. */
static void put_waivers(struct render *x)
{
	static const char *const status[] = {
		"\xe2\x84\xb9\xef\xb8\x8f applied", "\xe2\x9a\xa0\xef\xb8\x8f matches nothing",
		"\xe2\x9a\xa0\xef\xb8\x8f expired, ignored",
	};
	const mg_check_result *r = x->r;
	mg_buf *out = &x->out;
	size_t i;

	if (!r->policy || !r->policy->waivers_set)
		return;
	mg_buf_printf(out, "\n### Waivers\n\nJudged on %s (%s).", r->today,
		      r->today_given ? "from --today" : "the clock's date in UTC");
	if (!r->waiver_count) {
		mg_buf_puts(out, " The policy lists none.\n");
		return;
	}
	mg_buf_puts(out, "\n\n| candidate | reason | owner | expires | status | "
		    "justification |\n|---|---|---|---|---|---|\n");
	for (i = 0; i < r->waiver_count; i++) {
		const mg_policy_waiver *v = r->waivers[i].waiver;

		mg_buf_puts(out, "| ");
		mg_summary__put_name(out, v->candidate);
		mg_buf_puts(out, " | ");
		mg_summary__put_code(out, mg_reason_name(v->reason));
		mg_buf_puts(out, " | ");
		mg_summary__put_md(out, v->owner);
		mg_buf_printf(out, " | %s | %s", v->expires, status[r->waivers[i].status]);
		if (r->waivers[i].expiring && !r->waivers[i].days_left)
			mg_buf_puts(out, ", expires today");
		else if (r->waivers[i].expiring)
			mg_buf_printf(out, ", expires in %d day%s", r->waivers[i].days_left,
				      r->waivers[i].days_left == 1 ? "" : "s");
		mg_buf_puts(out, " | ");
		mg_summary__put_md(out, v->justification);
		mg_buf_puts(out, " |\n");
	}
}

static void put_warnings(struct render *x)
{
	size_t i;

	if (!x->r->warning_count)
		return;
	mg_buf_puts(&x->out, "\n### Warnings\n\n");
	for (i = 0; i < x->r->warning_count; i++) {
		mg_buf_puts(&x->out, "- ");
		mg_summary__put_md(&x->out, x->r->warnings[i]);
		mg_buf_putc(&x->out, '\n');
	}
}

/* ---- fitting under MG_SUMMARY_MAX ---- */

/* Run one table's renderer, counting its rows and bytes. */
static void run_table(struct render *x, enum table t, void (*put)(struct render *))
{
	size_t before = x->out.len;

	x->shown[t] = 0;
	put(x);
	x->used[t] = x->out.len - before;
}

static void render(struct render *x)
{
	/* with regression: what changed against the base leads, the detail follows */
	bool lead = x->r->policy && mg_regression_active(&x->r->policy->rules.regression);

	mg_summary_render_passes++;
	mg_buf_init(&x->out);
	put_heading(x);
	if (lead) {
		mg_summary__put_regression(x);
		mg_summary__put_history(x);
		run_table(x, T_BASE, mg_summary__put_base);
	}
	run_table(x, T_CANDIDATES, put_candidates);
	run_table(x, T_FINDINGS, put_findings);
	run_table(x, T_SCENARIOS, put_sensitivity);
	mg_summary__put_insight(x);
	if (!lead)
		run_table(x, T_BASE, mg_summary__put_base);
	put_changes(x);
	put_notes(x);
	put_waivers(x);
	put_warnings(x);
	put_evidence(x);
}

/* Halve the rows of the table that took the most bytes; false when no
 * table has rows left to drop. */
static bool shrink(struct render *x)
{
	int t, big = -1;

	for (t = 0; t < T_COUNT; t++)
		if (x->shown[t] && (big < 0 || x->used[t] > x->used[big]))
			big = t;
	if (big < 0)
		return false;
	x->limit[big] = x->shown[big] / 2;
	return true;
}

/* Last resort (huge warnings or paths): cut at a line end and say so. */
static void truncate_summary(mg_buf *out, size_t max)
{
	static const char note[] = "\n(summary truncated; see the decision record)\n";
	size_t cut = max > sizeof(note) ? max - sizeof(note) : 0;

	while (cut && out->ptr[cut] != '\n')
		cut--;
	out->len = cut;
	out->ptr[cut] = '\0';
	mg_buf_puts(out, note);
}

static size_t count_reasons(const mg_finding *f, size_t n)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		count += mg_severity_is_reason(f[i].weight);
	return count;
}

/* The summary of r in at most `max` bytes. */
static char *render_summary(const mg_check_result *r, size_t max)
{
	mg_compare_row *rows = NULL;
	struct render x = { 0 };
	int t;

	x.max = max;
	x.findings = mg_result_findings(r, &x.finding_count);
	x.r = r;
	x.d = r->decision;
	x.total[T_CANDIDATES] = x.d->base.count;
	x.total[T_FINDINGS] = count_reasons(x.findings, x.finding_count);
	x.total[T_SCENARIOS] = x.d->sensitivity_evaluated ? x.d->scenario_count : 0;
	if (r->base && r->base->result)
		mg_compare_rows(&rows, &x.row_count, r->base->result->decision, x.d);
	x.rows = rows;
	x.total[T_BASE] = x.row_count;
	for (t = 0; t < T_COUNT; t++)
		x.limit[t] = x.total[t];
	if (x.limit[T_BASE] > MG_SUMMARY_BASE_ROWS)
		x.limit[T_BASE] = MG_SUMMARY_BASE_ROWS;
	for (;;) {
		render(&x);
		if (x.out.len <= x.max || !shrink(&x))
			break;
		mg_buf_free(&x.out);
	}
	if (x.out.len > x.max)
		truncate_summary(&x.out, x.max);
	free(rows);
	return mg_buf_detach(&x.out, NULL);
}

char *mg_summary_render_error(const mg_error *err)
{
	mg_buf out = MG_BUF_INIT, where = MG_BUF_INIT;

	assert(err);
	mg_buf_puts(&out, "## memgate: could not decide \xe2\x80\x94 \xe2\x9d\x8c failed\n\n"
		    "- **Error:** ");
	if (err->file[0]) {
		mg_buf_puts(&where, err->file);
		if (err->line > 0)
			mg_buf_printf(&where, ":%d", err->line);
		if (err->line > 0 && err->column > 0)
			mg_buf_printf(&where, ":%d", err->column);
		mg_summary__put_md(&out, where.ptr);
		mg_buf_puts(&out, ": ");
		mg_buf_free(&where);
	}
	mg_summary__put_md(&out, err->message);
	mg_buf_puts(&out, "\n- **Exit status:** 2: memgate could not decide, so nothing was "
		    "decided and the check fails; fix the input named above\n");
	return mg_buf_detach(&out, NULL);
}

char *mg_summary_render(const mg_check_result *r)
{
	assert(r && r->decision);
	return render_summary(r, MG_SUMMARY_MAX);
}

/* "## memgate: 2 policies — ❌ failed" and a row per policy. */
static void put_set_table(mg_buf *out, const mg_check_item *items, size_t count)
{
	size_t i, failed = 0;

	for (i = 0; i < count; i++)
		failed += mg_check_item_status(&items[i]) != 0;
	mg_buf_printf(out, "## memgate: %zu polic%s \xe2\x80\x94 %s\n\n", count,
		      count == 1 ? "y" : "ies",
		      failed ? "\xe2\x9d\x8c failed" : "\xe2\x9c\x85 passed");
	mg_buf_puts(out, "| policy | decision | reason | selected candidate | gate |\n"
		    "|---|---|---|---|---|\n");
	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		mg_buf_puts(out, "| ");
		mg_summary__put_md(out, items[i].policy);
		if (!r) {
			mg_buf_puts(out, " | error | could not decide | \xe2\x80\x94 | \xe2\x9d\x8c |\n");
			continue;
		}
		mg_buf_puts(out, " | ");
		mg_summary__put_code(out, mg_verdict_name(r->decision->verdict));
		mg_buf_puts(out, " | ");
		mg_summary__put_code(out, mg_outcome_name(r->decision->reason));
		mg_buf_puts(out, " | ");
		if (r->decision->selected)
			mg_summary__put_name(out, r->decision->selected);
		else
			mg_buf_puts(out, "none");
		mg_buf_puts(out, r->passed ? " | \xe2\x9c\x85 passed |\n" : " | \xe2\x9d\x8c failed |\n");
	}
}

char *mg_summary_render_set(const mg_check_item *items, size_t count)
{
	mg_buf out = MG_BUF_INIT;
	size_t i, decided = 0, share;
	char *one;

	assert(items);
	put_set_table(&out, items, count);
	for (i = 0; i < count; i++)
		decided += items[i].result != NULL;
	/* every policy's summary gets an equal share of what is left */
	share = out.len < MG_SUMMARY_MAX && decided ?
		(MG_SUMMARY_MAX - out.len) / decided : 0;
	for (i = 0; i < count; i++) {
		if (!items[i].result)
			continue;
		mg_buf_puts(&out, "\n---\n\n**Policy** ");
		mg_summary__put_md(&out, items[i].policy);
		mg_buf_puts(&out, "\n\n");
		one = render_summary(items[i].result, share > 256 ? share - 256 : share);
		mg_buf_puts(&out, one);
		free(one);
	}
	return mg_buf_detach(&out, NULL);
}

char *mg_summary_render_plan(const mg_plan *plan)
{
	mg_buf out = MG_BUF_INIT;
	size_t i, unchanged = 0;

	assert(plan);
	mg_buf_puts(&out, "");
	for (i = 0; i < plan->count; i++)
		if (plan->entries[i].kind == MG_PLAN_UNCHANGED)
			unchanged++;
	if (unchanged)
		mg_buf_printf(&out, "**Unchanged, not gated (%zu):** ", unchanged);
	for (i = 0; unchanged && i < plan->count; i++) {
		if (plan->entries[i].kind != MG_PLAN_UNCHANGED)
			continue;
		mg_summary__put_md(&out, plan->entries[i].policy);
		mg_buf_puts(&out, --unchanged ? ", " : "\n\n");
	}
	for (i = 0; i < plan->count; i++) {
		if (plan->entries[i].kind != MG_PLAN_RETIRED)
			continue;
		mg_buf_puts(&out, "> \xe2\x9a\xa0\xef\xb8\x8f **Retired:** ");
		mg_summary__put_md(&out, plan->entries[i].message);
		mg_buf_puts(&out, "\n\n");
	}
	return mg_buf_detach(&out, NULL);
}
