/* The decision record (memgate(1), DECISION RECORD): see
 * include/memgate/record.h.  Its evaluations and scenarios are written by
 * record_stream.c. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "compare.h"
#include "format.h"
#include "memgate/approved.h"
#include "memgate/insight.h"
#include "memgate/record.h"
#include "memgate/version.h"
#include "record_stream.h"

static bool has_waivers(const mg_check_result *r)
{
	return r->policy && r->policy->waivers_set;
}

/* An object id: null when empty (not computed). */
static void id(mg_jw *w, const char *key, const char *hex)
{
	mg_jw_key_string(w, key, hex[0] ? hex : NULL);
}

static void render_gate(mg_jw *w, const mg_check_result *r)
{
	int v;

	mg_jw_key_object(w, "gate");
	mg_jw_key_array(w, "fail_on");
	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (r->fail_on[v])
			mg_jw_string(w, mg_verdict_name((enum mg_verdict)v));
	mg_jw_end(w);
	mg_jw_key_bool(w, "passed", r->passed);
	if (r->proposed && r->proposed->fails)
		mg_jw_key_string(w, "reason", "policy_change_fails_its_evidence");
	mg_jw_end(w);
}

/* {path, [rev,] blob[, sha256]}; commit ids only outside --worktree. */
static void render_ref(mg_jw *w, const char *key, const mg_input_ref *ref, const char *rev,
		       bool with_sha256)
{
	mg_jw_key_object(w, key);
	mg_jw_key_string(w, "path", ref->path);
	if (rev)
		id(w, "rev", rev);
	id(w, "blob", ref->blob);
	if (with_sha256)
		id(w, "sha256", ref->sha256);
	mg_jw_end(w);
}

static void render_inputs(mg_jw *w, const mg_check_result *r)
{
	const char *policy_rev = NULL;

	mg_jw_key_object(w, "inputs");
	if (r->worktree) {
		mg_jw_key_string(w, "source", "worktree");
	} else {
		id(w, "rev", r->rev);
		policy_rev = r->policy_ref.commit[0] ? r->policy_ref.commit : r->policy_rev;
	}
	render_ref(w, "policy", &r->policy_ref, policy_rev, false);
	if (r->manifest_ref.read)
		render_ref(w, "manifest", &r->manifest_ref, NULL, false);
	render_ref(w, "report", &r->report_ref, NULL, true);
	if (r->approved_ref.read)
		render_ref(w, "approved_result", &r->approved_ref, NULL, true);
	if (r->signature.sig_ref.read)
		render_ref(w, "signature", &r->signature.sig_ref, NULL, false);
	if (r->signature.signers_ref.read)
		render_ref(w, "allowed_signers", &r->signature.signers_ref, policy_rev, false);
	mg_jw_end(w);
}

/* provenance: who signed the manifest (memgate(1), SIGNED EVIDENCE), and
 * who approved it when the approval was read; only when the policy that
 * decides has a provenance section. */
static void render_provenance(mg_jw *w, const mg_check_result *r)
{
	const mg_check_signature *s = &r->signature;

	if (!s->checked)
		return;
	mg_jw_key_object(w, "provenance");
	mg_jw_key_string(w, "namespace", r->policy->sig_namespace);
	mg_jw_key_bool(w, "required", s->required);
	mg_jw_key_bool(w, "verified", s->verified);
	mg_jw_key_string(w, "signer", s->principals);
	mg_jw_key_string(w, "key", s->key);
	mg_jw_key_string(w, "issue", s->problem ? mg_issue_name(s->issue) : NULL);
	mg_jw_key_string(w, "problem", s->problem);
	if (r->approval_sig.checked) {   /* the approval's signature, by an approver */
		s = &r->approval_sig;
		mg_jw_key_object(w, "approval");
		mg_jw_key_string(w, "namespace", MG_APPROVED_NAMESPACE);
		mg_jw_key_bool(w, "required", s->required);
		mg_jw_key_bool(w, "verified", s->verified);
		mg_jw_key_string(w, "signer", s->principals);
		mg_jw_key_string(w, "key", s->key);
		mg_jw_key_string(w, "problem", s->problem);
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

/* With evidence.inputs: the measured commit (null when the manifest names
 * none), the changed paths and how many changed in all. */
static void render_freshness(mg_jw *w, const mg_check_result *r)
{
	size_t i;

	if (!r->policy || !r->policy->input_count)
		return;
	mg_jw_key_string(w, "measured_commit", r->manifest ? r->manifest->measured_commit : NULL);
	mg_jw_key_array(w, "stale_inputs");
	for (i = 0; i < r->stale_count; i++)
		mg_jw_string(w, r->stale_paths[i]);
	mg_jw_end(w);
	mg_jw_key_exact(w, "stale_input_count", (double)r->stale_total);
}

/* measured_commit_behind_base: the two measured commits, and whether the
 * repository could tell their ancestry (the Action deepens a shallow
 * checkout until it can: actions/action-fetch-measured). */
static void render_behind_base(mg_jw *w, const mg_check_result *r)
{
	if (!r->behind_base_commit || !r->manifest)
		return;
	mg_jw_key_object(w, "behind_base");
	mg_jw_key_string(w, "measured_commit", r->manifest->measured_commit);
	mg_jw_key_string(w, "base_measured_commit", r->behind_base_commit);
	mg_jw_key_bool(w, "ancestry_known", !r->behind_unknown);
	mg_jw_end(w);
}

static void render_evidence(mg_jw *w, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	int i;

	mg_jw_key_object(w, "evidence");
	mg_jw_key_bool(w, "is_applicable", d->applicable);
	mg_jw_key_array(w, "issues");
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			mg_jw_string(w, mg_issue_name((enum mg_issue)i));
	mg_jw_end(w);
	render_freshness(w, r);
	render_behind_base(w, r);
	mg_jw_end(w);
}

/* {threshold name: value} for the thresholds set in b, in enum order. */
static void render_budget(mg_jw *w, const mg_budget *b)
{
	int t;

	mg_jw_object(w);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			mg_jw_key_exact(w, mg_threshold_name((enum mg_threshold)t), b->value[t]);
	mg_jw_end(w);
}

static void render_checks_run(mg_jw *w, const mg_budget *b)
{
	int t;

	mg_jw_key_array(w, "checks_run");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			mg_jw_string(w, mg_threshold_name((enum mg_threshold)t));
	mg_jw_end(w);
}

/* The evaluations (streamed), the feasible set's names in rank order and
 * the best candidate. */
static void render_screening(mg_jw *w, struct stream *st, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	size_t i;

	mg_jw_key(w, "evaluations");
	mg_record__write_evaluations(w, st, d, has_waivers(r), r->insight);
	mg_jw_key_array(w, "feasible_names");
	for (i = 0; i < d->base.feasible_count; i++)
		mg_jw_string(w, d->base.evaluations[d->base.feasible[i]].name);
	mg_jw_end(w);
	mg_jw_key_string(w, "best_candidate", d->best);
}

static void render_sensitivity(mg_jw *w, struct stream *st, const mg_check_result *r)
{
	const mg_decision *d = r->decision;

	mg_jw_key_object(w, "sensitivity");
	mg_jw_key_bool(w, "evaluated", d->sensitivity_evaluated);
	mg_jw_key(w, "scenarios");
	mg_record__write_scenarios(w, st, d, r->feasible_sets);
	mg_jw_key_object(w, "summary");
	mg_jw_key_number(w, "scenario_count", (double)d->scenario_count);
	mg_jw_key_bool(w, "best_candidate_stable", d->best_candidate_stable);
	mg_jw_key_bool(w, "feasible_set_stable", d->feasible_set_stable);
	mg_jw_key_string(w, "interpretation", d->interpretation);
	mg_jw_key_bool(w, "stability_tested", d->stability_tested);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* key: [the strings], or nothing when `only_some` and there are none. */
static void render_strings(mg_jw *w, const char *key, char *const *s, size_t n, bool only_some)
{
	size_t i;

	if (only_some && !n)
		return;
	mg_jw_key_array(w, key);
	for (i = 0; i < n; i++)
		mg_jw_string(w, s[i]);
	mg_jw_end(w);
}

/* A side of a policy change as typed JSON: a number, a string, null when
 * unset, ["reject", "tune"], [{overrides}], {axis: [values]}. */
static void render_change_value(mg_jw *w, const mg_change_value *v)
{
	size_t i, k;
	int x;

	switch (v->kind) {
	case MG_CHANGE_UNSET: mg_jw_null(w); return;
	case MG_CHANGE_NUMBER: mg_jw_exact(w, v->number); return;
	case MG_CHANGE_STRING: mg_jw_string(w, v->string); return;
	case MG_CHANGE_VERDICTS:
		mg_jw_array(w);
		for (x = 0; x < MG_VERDICT_COUNT; x++)
			if (v->verdicts[x])
				mg_jw_string(w, mg_verdict_name((enum mg_verdict)x));
		break;
	case MG_CHANGE_STRICTER:
		mg_jw_array(w);
		for (i = 0; i < v->count; i++)
			render_budget(w, &v->stricter[i]);
		break;
	case MG_CHANGE_STRINGS:
		mg_jw_array(w);
		for (i = 0; i < v->count; i++)
			mg_jw_string(w, v->strings[i]);
		break;
	default:
		mg_jw_object(w);
		for (i = 0; i < v->count; i++) {
			mg_jw_key_array(w, mg_threshold_name(v->grid[i].threshold));
			for (k = 0; k < v->grid[i].count; k++)
				mg_jw_exact(w, v->grid[i].values[k]);
			mg_jw_end(w);
		}
	}
	mg_jw_end(w);
}

static void render_changes(mg_jw *w, const mg_check_result *r)
{
	size_t i;

	if (!r->change_count)
		return;
	mg_jw_key_array(w, "policy_changes");
	for (i = 0; i < r->change_count; i++) {
		const mg_policy_change *c = &r->changes[i];

		mg_jw_object(w);
		mg_jw_key_string(w, "key", c->key);
		mg_jw_key(w, "before");
		render_change_value(w, &c->before);
		mg_jw_key(w, "after");
		render_change_value(w, &c->after);
		mg_jw_key_string(w, "effect", mg_check_effect_name(c->effect));
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

/* policy_change_fails_its_evidence: what the change's own policy decides
 * of its evidence (null values when it could not decide, and why). */
static void render_proposed(mg_jw *w, const mg_check_result *r)
{
	const mg_check_proposed *p = r->proposed;
	const mg_decision *d;
	int v;

	if (!p || !p->fails)
		return;
	d = p->result ? p->result->decision : NULL;
	mg_jw_key_object(w, "proposed_policy");
	id(w, "rev", r->rev);
	mg_jw_key_string(w, "decision", d ? mg_verdict_name(d->verdict) : NULL);
	mg_jw_key_string(w, "reason", d ? mg_outcome_name(d->reason) : NULL);
	mg_jw_key_string(w, "next_action", d ? mg_next_action_name(d->next_action) : NULL);
	mg_jw_key_string(w, "selected_candidate", d ? d->selected : NULL);
	mg_jw_key_array(w, "issues");
	for (v = 0; d && v < MG_ISSUE_COUNT; v++)
		if (d->issue[v])
			mg_jw_string(w, mg_issue_name((enum mg_issue)v));
	mg_jw_end(w);
	mg_jw_key_array(w, "fail_on");
	for (v = 0; p->result && v < MG_VERDICT_COUNT; v++)
		if (p->result->fail_on[v])
			mg_jw_string(w, mg_verdict_name((enum mg_verdict)v));
	mg_jw_end(w);
	mg_jw_key_string(w, "error", p->error);
	mg_jw_end(w);
}

/* {"base": x, "head": y, "delta": y - x}, each null when unknown. */
static void render_compare_value(mg_jw *w, const char *key, const mg_compare_value *v,
				 const mg_compare_row *row)
{
	bool base = row->in_base && v->base_known, head = row->in_head && v->head_known;

	mg_jw_key_object(w, key);
	mg_jw_key_exact(w, "base", base ? v->base : NAN);
	mg_jw_key_exact(w, "head", head ? v->head : NAN);
	mg_jw_key_exact(w, "delta", base && head ? v->head - v->base : NAN);
	mg_jw_end(w);
}

static void render_compare_row(mg_jw *w, const mg_compare_row *row)
{
	size_t k;

	mg_jw_object(w);
	mg_jw_key_string(w, "name", row->name);
	mg_jw_key_string(w, "change", !row->in_base ? "new" : !row->in_head ? "removed" :
			 mg_compare_row_changed(row) ? "changed" : "unchanged");
	mg_jw_key_string(w, "base_status", row->in_base ? mg_status_name(row->base_status) : NULL);
	mg_jw_key_string(w, "head_status", row->in_head ? mg_status_name(row->head_status) : NULL);
	for (k = 0; k < MG_COMPARE_METRICS; k++)
		render_compare_value(w, mg_metric_name(mg_compare_metrics[k]), &row->value[k], row);
	mg_jw_end(w);
}

static void render_compare_rows(mg_jw *w, const mg_decision *base, const mg_decision *head)
{
	mg_compare_row *rows = NULL;
	size_t n = 0, i;

	mg_compare_rows(&rows, &n, base, head);
	mg_jw_key_array(w, "candidates");
	for (i = 0; i < n; i++)
		render_compare_row(w, &rows[i]);
	mg_jw_end(w);
	free(rows);
}

/* --base: the base commit's decision under the same policy, and per
 * candidate what changed. */
static void render_base(mg_jw *w, const mg_check_result *r)
{
	const mg_check_base *b = r->base;
	const mg_decision *bd;

	if (!b)
		return;
	mg_jw_key_object(w, "base");
	id(w, "rev", b->rev);
	if (!b->result) {
		mg_jw_key_string(w, "error", b->error ? b->error : "unknown error");
		mg_jw_end(w);
		return;
	}
	bd = b->result->decision;
	mg_jw_key_string(w, "decision", mg_verdict_name(bd->verdict));
	mg_jw_key_string(w, "reason", mg_outcome_name(bd->reason));
	mg_jw_key_string(w, "selected_candidate", bd->selected);
	mg_jw_key_bool(w, "passed", b->result->passed);
	id(w, "report_sha256", b->result->report_ref.sha256);
	render_compare_rows(w, bd, r->decision);
	mg_jw_end(w);
}

/* "waivers": the date they were judged on, and each with what became of it. */
static void render_waivers(mg_jw *w, const mg_check_result *r)
{
	size_t i;

	if (!has_waivers(r))
		return;
	mg_jw_key_object(w, "waivers");
	mg_jw_key_string(w, "today", r->today);
	mg_jw_key_string(w, "today_from", r->today_given ? "--today" : "clock (UTC)");
	mg_jw_key_array(w, "entries");
	for (i = 0; i < r->waiver_count; i++) {
		const mg_policy_waiver *v = r->waivers[i].waiver;

		mg_jw_object(w);
		mg_jw_key_string(w, "candidate", v->candidate);
		mg_jw_key_string(w, "reason", mg_reason_name(v->reason));
		mg_jw_key_string(w, "justification", v->justification);
		mg_jw_key_string(w, "owner", v->owner);
		mg_jw_key_string(w, "expires", v->expires);
		mg_jw_key_string(w, "status", mg_check_waiver_status_name(r->waivers[i].status));
		if (r->waivers[i].expiring)
			mg_jw_key_number(w, "expires_in_days", r->waivers[i].days_left);
		if (v->up_to_set)
			mg_jw_key_number(w, "up_to_pct", v->up_to_pct);
		if (v->up_to_set && r->waivers[i].status == MG_WAIVER_APPLIED)
			mg_jw_key_number(w, "accepted_pct", r->waivers[i].accepted_pct);
		if (r->waivers[i].status == MG_WAIVER_SPENT) {
			mg_jw_key_string(w, "spent_at", r->waivers[i].spent_at);
			mg_jw_key_number(w, "spent_pct", r->waivers[i].spent_pct);
		}
		mg_jw_end(w);
	}
	mg_jw_end(w);
	mg_jw_end(w);
}

static void render_approved(mg_jw *w, const mg_check_result *r)
{
	const mg_decision *d = r->decision;

	if (!d->approved_checked)
		return;
	mg_jw_key_object(w, "approved");
	mg_jw_key_string(w, "decision", r->approved_decision);
	mg_jw_key_string(w, "selected_candidate", r->approved_selected);
	mg_jw_key_object(w, "computed");
	mg_jw_key_string(w, "decision", mg_verdict_name(d->computed_verdict));
	mg_jw_key_string(w, "reason", mg_outcome_name(d->computed_reason));
	mg_jw_key_string(w, "selected_candidate", d->computed_selected);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* A value exactly and rounded for people (as the text output writes it). */
static void render_exact_and_rounded(mg_jw *w, double v)
{
	mg_buf b = MG_BUF_INIT;

	mg_jw_key_exact(w, "value", v);
	mg_format_value(&b, v, NULL);
	mg_jw_key_exact(w, "rounded", strtod(b.ptr, NULL));
	mg_buf_free(&b);
}

static void render_tip(mg_jw *w, const char *key, const mg_tip *t)
{
	mg_jw_key_object(w, key);
	mg_jw_key_bool(w, "found", t->found);
	if (!t->found) {
		mg_jw_key_bool(w, "limit_reached", t->limit_reached);
		if (t->limit_reached)
			mg_jw_key_number(w, "decisions_limit", (double)t->probe_limit);
	} else {
		render_exact_and_rounded(w, t->value);
		mg_jw_key_string(w, "decision", mg_verdict_name(t->verdict));
		mg_jw_key_string(w, "reason", t->reason);
		mg_jw_key_string(w, "next_action", t->next_action);
		mg_jw_key_string(w, "selected_candidate", t->selected);
	}
	mg_jw_key_number(w, "decisions_run", (double)t->probes);
	mg_jw_end(w);
}

static void render_tips(mg_jw *w, const mg_insight *in)
{
	size_t i;

	mg_jw_key_array(w, "tipping_points");
	for (i = 0; i < in->tip_count; i++) {
		const mg_tipping *tp = &in->tips[i];

		mg_jw_object(w);
		mg_jw_key_string(w, "threshold", mg_threshold_name(tp->threshold));
		mg_jw_key_string(w, "scope", tp->axis < 0 ? "budget" : "sensitivity.grid");
		if (tp->axis >= 0)
			mg_jw_key_number(w, "axis_value_index", (double)tp->value_index);
		mg_jw_key_exact(w, "current", tp->value);
		render_tip(w, "lower", &tp->down);
		render_tip(w, "higher", &tp->up);
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

static void render_insight(mg_jw *w, const mg_check_result *r)
{
	const mg_insight *in = r->insight;
	const mg_decision *d = r->decision;
	size_t i;

	if (!in)
		return;
	mg_jw_key_object(w, "insight");
	mg_jw_key_bool(w, "tipping_points_evaluated", in->tips_evaluated);
	render_tips(w, in);
	mg_jw_key_object(w, "noise");
	mg_jw_key_string(w, "mode", mg_noise_mode_name(r->policy ? r->policy->rules.noise :
							 MG_NOISE_WARN));
	mg_jw_key_number(w, "candidates_with_runs", (double)in->with_runs);
	mg_jw_key_number(w, "candidates_without_runs", (double)(in->count - in->with_runs));
	mg_jw_end(w);
	mg_jw_key_object(w, "front");
	mg_jw_key_bool(w, "complete", in->front_complete);
	mg_jw_key_number(w, "compared", (double)in->compared);
	mg_jw_key_array(w, "names");
	for (i = 0; i < in->count && in->front_complete; i++)
		if (in->on_front[i])
			mg_jw_string(w, d->base.evaluations[i].name);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* regression.history (with the key): what was asked, and what the walk of
 * the base's first-parent line found (memgate(1), REGRESSIONS AND HISTORY). */
static void render_history(mg_jw *w, const mg_check_result *r, const mg_regression *rg)
{
	const mg_history *h = r->history;
	size_t i, k;

	if (!rg->history)
		return;
	mg_jw_key_object(w, "history");
	mg_jw_key_number(w, "asked", rg->history);
	mg_jw_key_number(w, "max_commits", rg->history_max_commits ? rg->history_max_commits
				 : MG_HISTORY_DEFAULT_MAX_COMMITS);
	mg_jw_key_bool(w, "read", h != NULL);
	if (h) {
		mg_jw_key_string(w, "path", h->path);
		id(w, "base_commit", h->base);
		mg_jw_key_number(w, "used", (double)h->used);
		mg_jw_key_number(w, "skipped", (double)h->skipped);
		mg_jw_key_number(w, "commits_visited", (double)h->visited);
		mg_jw_key_bool(w, "bounded", h->bounded);
		mg_jw_key_bool(w, "shallow", h->shallow && !h->bounded && h->used < (size_t)h->asked);
		mg_jw_key_array(w, "commits");
		for (i = 0; i < h->used; i++)
			mg_jw_string(w, h->versions[i].commit[0] ? h->versions[i].commit : NULL);
		mg_jw_end(w);
		/* after the keys the Action's history_wants matches, in order */
		mg_jw_key_object(w, "skipped_for");
		for (k = MG_HISTORY_SKIP_NOT_PINNED; k < MG_HISTORY_SKIP_COUNT; k++)
			mg_jw_key_number(w, mg_history_skip_key((enum mg_history_skip)k),
					 (double)h->skipped_for[k]);
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

static void render_regressed(mg_jw *w, const mg_check_result *r, const mg_regressed *g)
{
	const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
	const char *commit;
	size_t ago;
	double pct;

	mg_jw_object(w);
	mg_jw_key_string(w, "candidate", g->name);
	mg_jw_key_number(w, "index", (double)g->index);
	mg_jw_key_string(w, "threshold", def->key);
	mg_jw_key_string(w, "reason", mg_reason_name(def->reason));
	mg_jw_key_string(w, "metric", mg_metric_name(def->metric));
	mg_jw_key_exact(w, "base", g->base);
	mg_jw_key_exact(w, "head", g->head);
	mg_jw_key_exact(w, "change", g->change);
	mg_jw_key_exact(w, "limit", g->limit);
	mg_jw_key_bool(w, "beyond_run_noise", g->runs);
	if (r->history && r->history->used && def->metric == MG_M_PEAK) {
		/* where the series stepped (regression.history), or null */
		mg_jw_key(w, "stepped");
		if (mg_check_step(&commit, &ago, &pct, r, g)) {
			mg_jw_object(w);
			if (commit)
				mg_jw_key_string(w, "commit", commit);
			else
				mg_jw_key_null(w, "commit");
			mg_jw_key_number(w, "measurements_ago", (double)ago);
			mg_jw_key_exact(w, "change_pct", pct);
			mg_jw_end(w);
		} else {
			mg_jw_null(w);
		}
	}
	mg_jw_end(w);
}

/* The members a waived change and one within the noise share, in order:
 * candidate, threshold, reason, the values, the change in percent. */
static void render_change(mg_jw *w, const mg_regressed *g)
{
	const mg_threshold_def *def = mg_threshold_def_of(g->threshold);

	mg_jw_key_string(w, "candidate", g->name);
	mg_jw_key_string(w, "threshold", def->key);
	mg_jw_key_string(w, "reason", mg_reason_name(def->reason));
	mg_jw_key_exact(w, "base", g->base);
	mg_jw_key_exact(w, "head", g->head);
	mg_jw_key_exact(w, "change", g->change);
	mg_jw_key_exact(w, "limit", g->limit);
	mg_jw_key_exact(w, "change_pct", g->pct);
}

/* A change a regression's waiver accepted (d->waived), with its allowance:
 * the waiver is the in-force one, counted among the result's in order. */
static void render_waived(mg_jw *w, const mg_check_result *r, const mg_regressed *g)
{
	size_t i, k = 0;
	double up_to = 0;

	for (i = 0; i < r->waiver_count; i++) {
		if (r->waivers[i].status == MG_WAIVER_EXPIRED || r->waivers[i].status == MG_WAIVER_SPENT)
			continue;
		if (k++ == g->waiver)
			up_to = r->waivers[i].waiver->up_to_pct;
	}
	mg_jw_object(w);
	render_change(w, g);
	mg_jw_key_exact(w, "up_to_pct", up_to);
	mg_jw_end(w);
}

/* A change past a threshold that the runs' noise covers (d->within_noise). */
static void render_within_noise(mg_jw *w, const mg_regressed *g)
{
	mg_jw_object(w);
	render_change(w, g);
	mg_jw_key_exact(w, "p", g->p);
	mg_jw_key_object(w, "band");
	mg_jw_key_exact(w, "min", g->band_min);
	mg_jw_key_exact(w, "max", g->band_max);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* regression (only with a regression: section): the policy's allowances,
 * whether the base was compared, and each regression that counts. */
static void render_regression(mg_jw *w, const mg_check_result *r)
{
	const mg_regression *rg;
	const mg_decision *d = r->decision;
	size_t i;

	if (!r->policy || !mg_regression_active(&r->policy->rules.regression))
		return;
	rg = &r->policy->rules.regression;
	mg_jw_key_object(w, "regression");
	mg_jw_key(w, "thresholds");
	render_budget(w, &rg->limits);
	mg_jw_key_string(w, "covers", mg_covers_name(rg->covers));
	mg_jw_key_string(w, "decision", mg_verdict_name(rg->reject ? MG_REJECT : MG_TUNE));
	mg_jw_key_bool(w, "compared", d->regression_checked);
	mg_jw_key_number(w, "within_noise", (double)d->regression_within_noise);
	mg_jw_key_array(w, "regressed");
	for (i = 0; i < d->regressed_count; i++)
		render_regressed(w, r, &d->regressed[i]);
	mg_jw_end(w);
	if (d->regression_within_noise) {
		mg_jw_key_array(w, "changed_within_noise");
		for (i = 0; i < d->regression_within_noise; i++)
			render_within_noise(w, &d->within_noise[i]);
		mg_jw_end(w);
	}
	if (d->waived_count) {
		mg_jw_key_array(w, "waived");
		for (i = 0; i < d->waived_count; i++)
			render_waived(w, r, &d->waived[i]);
		mg_jw_end(w);
	}
	mg_jw_key_array(w, "not_compared");
	for (i = 0; i < d->unmatched_count; i++) {
		mg_jw_object(w);
		mg_jw_key_string(w, "candidate", d->unmatched[i]);
		mg_jw_key_bool(w, "selected_at_base", d->unmatched[i] == d->unmatched_selected);
		mg_jw_key_string(w, "looks_like", d->unmatched_lookalike[i]);
		mg_jw_end(w);
	}
	mg_jw_end(w);
	render_history(w, r, rg);
	mg_jw_end(w);
}

/* One decision record, as the next value of w (the evaluations and
 * scenarios handed to the sink as they are written). */
static void render(mg_jw *w, struct stream *st, const mg_check_result *r)
{
	const mg_decision *d = r->decision;

	mg_jw_object(w);
	mg_jw_key_string(w, "schema_version", MG_RECORD_SCHEMA);
	mg_jw_key_string(w, "memgate_version", MG_VERSION);
	mg_jw_key_string(w, "decision", mg_verdict_name(d->verdict));
	mg_jw_key_string(w, "reason", mg_outcome_name(d->reason));
	mg_jw_key_string(w, "next_action", mg_next_action_name(d->next_action));
	mg_jw_key_string(w, "selected_candidate", d->selected);
	render_gate(w, r);
	render_inputs(w, r);
	render_provenance(w, r);
	render_evidence(w, r);
	mg_jw_key(w, "budget");
	render_budget(w, &d->budget);
	render_checks_run(w, &d->budget);
	render_screening(w, st, r);
	render_sensitivity(w, st, r);
	render_insight(w, r);
	render_strings(w, "warnings", r->warnings, r->warning_count, false);
	render_strings(w, "notes", r->notes, r->note_count, true);
	render_changes(w, r);
	render_proposed(w, r);
	render_waivers(w, r);
	render_approved(w, r);
	render_base(w, r);
	render_regression(w, r);
	mg_jw_end(w);
}

static void put_input(mg_buf *out, const mg_input_ref *ref)
{
	if (ref->read && ref->path) {
		mg_buf_puts(out, ref->path);
		mg_buf_putc(out, '\n');
	}
}

/* Whether s holds a control character (a newline would split its line). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

char *mg_record_render_inputs(const mg_check_result *r)
{
	mg_buf out = MG_BUF_INIT;
	size_t i;

	assert(r);
	mg_buf_puts(&out, "");
	put_input(&out, &r->policy_ref);
	put_input(&out, &r->manifest_ref);
	put_input(&out, &r->report_ref);
	put_input(&out, &r->approved_ref);
	for (i = 0; i < r->stale_count; i++)
		if (!has_control(r->stale_paths[i])) {
			mg_buf_puts(&out, r->stale_paths[i]);
			mg_buf_putc(&out, '\n');
		}
	return mg_buf_detach(&out, NULL);
}

/* A stream onto sink, its buffer ready for a chunk. */
static void stream_init(struct stream *st, mg_sink sink, void *ctx)
{
	mg_buf_init(&st->buf);
	mg_buf_grow(&st->buf, STREAM_CHUNK + 64 * 1024);
	st->sink = sink;
	st->ctx = ctx;
	st->error = MG_OK;
}

/* The final newline, the rest to the sink; MG_OK or the sink's MG_ERROR. */
static int stream_finish(struct stream *st)
{
	mg_buf_putc(&st->buf, '\n');
	mg_record__flush(st);
	mg_buf_free(&st->buf);
	return st->error;
}

int mg_record_write_set(const mg_check_item *items, size_t count, mg_sink sink, void *ctx)
{
	struct stream st;
	char buf[2048];
	int status = 0, s;
	size_t i;
	mg_jw w;

	assert(items && sink);
	for (i = 0; i < count; i++)
		if ((s = mg_check_item_status(&items[i])) > status)
			status = s;
	stream_init(&st, sink, ctx);
	mg_jw_init(&w, &st.buf, MG_JW_TABS, 0);
	mg_jw_object(&w);
	mg_jw_key_string(&w, "schema_version", MG_RECORD_SET_SCHEMA);
	mg_jw_key_bool(&w, "passed", status == 0);
	mg_jw_key_number(&w, "exit_status", status);
	mg_jw_key_array(&w, "policies");
	for (i = 0; i < count; i++) {
		mg_jw_object(&w);
		mg_jw_key_string(&w, "policy", items[i].policy);
		mg_jw_key_number(&w, "exit_status", mg_check_item_status(&items[i]));
		mg_jw_key_string(&w, "error", items[i].result ? NULL :
				 mg_error_format(&items[i].error, buf, sizeof(buf)));
		mg_jw_key(&w, "record");
		if (items[i].result)
			render(&w, &st, items[i].result);
		else
			mg_jw_null(&w);
		mg_jw_end(&w);
	}
	mg_jw_end(&w);
	mg_jw_end(&w);
	return stream_finish(&st);
}

int mg_record_write(const mg_check_result *r, mg_sink sink, void *ctx)
{
	struct stream st;
	mg_jw w;

	assert(r && r->decision && sink);
	stream_init(&st, sink, ctx);
	mg_jw_init(&w, &st.buf, MG_JW_TABS, 0);
	render(&w, &st, r);
	return stream_finish(&st);
}

/* A sink that keeps the record in memory: ctx is an mg_buf. */
static int to_buf(void *ctx, const char *data, size_t len)
{
	mg_buf_put(ctx, data, len);
	return MG_OK;
}

char *mg_record_render(const mg_check_result *r)
{
	mg_buf out = MG_BUF_INIT;

	mg_record_write(r, to_buf, &out);
	return mg_buf_detach(&out, NULL);
}
