/* The decision record (memgate(1), DECISION RECORD): see
 * include/memgate/record.h.  Its evaluations and scenarios are written by
 * record_stream.c. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "compare.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/insight.h"
#include "memgate/record.h"
#include "memgate/version.h"
#include "record_stream.h"

/* cJSON reports allocation failure as NULL; like mg_xmalloc, give up. */
static cJSON *must(cJSON *item)
{
	if (!item)
		abort();
	return item;
}

/* Add item to an object under key, or to an array when key is NULL.
 * Returns the item. */
static cJSON *add(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	must(item);
	ok = key ? cJSON_AddItemToObject(parent, key, item)
		 : cJSON_AddItemToArray(parent, item);
	if (!ok)
		abort();
	return item;
}

/* A JSON string holding s as valid UTF-8; null for NULL. */
static cJSON *new_string(const char *s)
{
	return mg_json__new_string(s);
}

/* An object id: null when empty (not computed). */
static cJSON *new_id(const char *hex)
{
	return hex[0] ? new_string(hex) : cJSON_CreateNull();
}

/*
 * A number written exactly: the shortest of %.15g, %.16g and %.17g that
 * reads back as the same double (cJSON prints at most 15 digits, so a value
 * one unit in the last place over a threshold could print equal to it).
 * Non-finite numbers are written as null.
 */
static cJSON *new_number(double v)
{
	mg_buf b = MG_BUF_INIT;
	cJSON *item;

	if (!isfinite(v))
		return cJSON_CreateNull();
	mg_format_exact(&b, v);
	item = cJSON_CreateRaw(b.ptr);
	mg_buf_free(&b);
	return item;
}

static cJSON *new_bool(bool v)
{
	return cJSON_CreateBool(v);
}

static void render_gate(cJSON *root, const mg_check_result *r)
{
	cJSON *gate = add(root, "gate", cJSON_CreateObject());
	cJSON *fail_on = add(gate, "fail_on", cJSON_CreateArray());
	int v;

	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (r->fail_on[v])
			add(fail_on, NULL, new_string(mg_verdict_name((enum mg_verdict)v)));
	add(gate, "passed", new_bool(r->passed));
}

/* {path, [rev,] blob[, sha256]}; commit ids only outside --worktree. */
static void render_ref(cJSON *inputs, const char *key, const mg_input_ref *ref,
		       const char *rev, bool with_sha256)
{
	cJSON *o = add(inputs, key, cJSON_CreateObject());

	add(o, "path", new_string(ref->path));
	if (rev)
		add(o, "rev", new_id(rev));
	add(o, "blob", new_id(ref->blob));
	if (with_sha256)
		add(o, "sha256", new_id(ref->sha256));
}

static void render_inputs(cJSON *root, const mg_check_result *r)
{
	cJSON *inputs = add(root, "inputs", cJSON_CreateObject());
	const char *policy_rev = NULL;

	if (r->worktree) {
		add(inputs, "source", new_string("worktree"));
	} else {
		add(inputs, "rev", new_id(r->rev));
		policy_rev = r->policy_ref.commit[0] ? r->policy_ref.commit : r->policy_rev;
	}
	render_ref(inputs, "policy", &r->policy_ref, policy_rev, false);
	if (r->manifest_ref.read)
		render_ref(inputs, "manifest", &r->manifest_ref, NULL, false);
	render_ref(inputs, "report", &r->report_ref, NULL, true);
	if (r->approved_ref.read)
		render_ref(inputs, "approved_result", &r->approved_ref, NULL, true);
	if (r->signature.sig_ref.read)
		render_ref(inputs, "signature", &r->signature.sig_ref, NULL, false);
	if (r->signature.signers_ref.read)
		render_ref(inputs, "allowed_signers", &r->signature.signers_ref, policy_rev, false);
}

/* provenance: who signed the manifest (memgate(1), SIGNED EVIDENCE); only
 * when the policy that decides has a provenance section. */
static void render_provenance(cJSON *root, const mg_check_result *r)
{
	const mg_check_signature *s = &r->signature;
	cJSON *o;

	if (!s->checked)
		return;
	o = add(root, "provenance", cJSON_CreateObject());
	add(o, "namespace", new_string(r->policy->sig_namespace));
	add(o, "required", new_bool(s->required));
	add(o, "verified", new_bool(s->verified));
	add(o, "signer", new_string(s->principals));
	add(o, "key", new_string(s->key));
	add(o, "issue", new_string(s->problem ? mg_issue_name(s->issue) : NULL));
	add(o, "problem", new_string(s->problem));
}

/* With evidence.inputs: the measured commit (null when the manifest names
 * none), the changed paths and how many changed in all. */
static void render_freshness(cJSON *ev, const mg_check_result *r)
{
	const char *at = r->manifest ? r->manifest->measured_commit : NULL;
	cJSON *paths;
	size_t i;

	if (!r->policy || !r->policy->input_count)
		return;
	add(ev, "measured_commit", new_string(at));
	paths = add(ev, "stale_inputs", cJSON_CreateArray());
	for (i = 0; i < r->stale_count; i++)
		add(paths, NULL, new_string(r->stale_paths[i]));
	add(ev, "stale_input_count", new_number((double)r->stale_total));
}

static void render_evidence(cJSON *root, const mg_check_result *r)
{
	cJSON *ev = add(root, "evidence", cJSON_CreateObject());
	const mg_decision *d = r->decision;
	cJSON *issues;
	int i;

	add(ev, "is_applicable", new_bool(d->applicable));
	issues = add(ev, "issues", cJSON_CreateArray());
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			add(issues, NULL, new_string(mg_issue_name((enum mg_issue)i)));
	render_freshness(ev, r);
}

/* {threshold name: value} for the thresholds set in b, in enum order. */
static void render_budget(cJSON *parent, const char *key, const mg_budget *b)
{
	cJSON *o = add(parent, key, cJSON_CreateObject());
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			add(o, mg_threshold_name((enum mg_threshold)t), new_number(b->value[t]));
}

static void render_checks_run(cJSON *root, const mg_budget *b)
{
	cJSON *a = add(root, "checks_run", cJSON_CreateArray());
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			add(a, NULL, new_string(mg_threshold_name((enum mg_threshold)t)));
}

/* The feasible set's names in rank order. */
static void render_feasible(cJSON *parent, const mg_screening *s)
{
	cJSON *a = add(parent, "feasible_names", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < s->feasible_count; i++)
		add(a, NULL, new_string(s->evaluations[s->feasible[i]].name));
}

static void render_screening(cJSON *root, const mg_decision *d)
{
	add(root, "evaluations", cJSON_CreateRaw(EVALUATIONS_MARK));
	render_feasible(root, &d->base);
	add(root, "best_candidate", new_string(d->best));
}

static void render_sensitivity(cJSON *root, const mg_decision *d)
{
	cJSON *sens = add(root, "sensitivity", cJSON_CreateObject());
	cJSON *sum;

	add(sens, "evaluated", new_bool(d->sensitivity_evaluated));
	add(sens, "scenarios", cJSON_CreateRaw(SCENARIOS_MARK));
	sum = add(sens, "summary", cJSON_CreateObject());
	add(sum, "scenario_count", cJSON_CreateNumber((double)d->scenario_count));
	add(sum, "best_candidate_stable", new_bool(d->best_candidate_stable));
	add(sum, "feasible_set_stable", new_bool(d->feasible_set_stable));
	add(sum, "interpretation", new_string(d->interpretation));
	add(sum, "stability_tested", new_bool(d->stability_tested));
}

static void render_warnings(cJSON *root, const mg_check_result *r)
{
	cJSON *a = add(root, "warnings", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < r->warning_count; i++)
		add(a, NULL, new_string(r->warnings[i]));
}

/* A side of a policy change as typed JSON: a number, a string, null when
 * unset, ["reject", "tune"], [{overrides}], {axis: [values]}. */
static cJSON *new_change_value(const mg_change_value *v)
{
	cJSON *item, *axis;
	size_t i, k;
	int x;

	switch (v->kind) {
	case MG_CHANGE_UNSET:
		return cJSON_CreateNull();
	case MG_CHANGE_NUMBER:
		return new_number(v->number);
	case MG_CHANGE_STRING:
		return new_string(v->string);
	case MG_CHANGE_VERDICTS:
		item = must(cJSON_CreateArray());
		for (x = 0; x < MG_VERDICT_COUNT; x++)
			if (v->verdicts[x])
				add(item, NULL, new_string(mg_verdict_name((enum mg_verdict)x)));
		return item;
	case MG_CHANGE_STRICTER:
		item = must(cJSON_CreateArray());
		for (i = 0; i < v->count; i++)
			render_budget(item, NULL, &v->stricter[i]);
		return item;
	case MG_CHANGE_STRINGS:
		item = must(cJSON_CreateArray());
		for (i = 0; i < v->count; i++)
			add(item, NULL, new_string(v->strings[i]));
		return item;
	default:
		item = must(cJSON_CreateObject());
		for (i = 0; i < v->count; i++) {
			axis = add(item, mg_threshold_name(v->grid[i].threshold), cJSON_CreateArray());
			for (k = 0; k < v->grid[i].count; k++)
				add(axis, NULL, new_number(v->grid[i].values[k]));
		}
		return item;
	}
}

static void render_changes(cJSON *root, const mg_check_result *r)
{
	cJSON *a, *o;
	size_t i;

	if (!r->change_count)
		return;
	a = add(root, "policy_changes", cJSON_CreateArray());
	for (i = 0; i < r->change_count; i++) {
		const mg_policy_change *c = &r->changes[i];

		o = add(a, NULL, cJSON_CreateObject());
		add(o, "key", new_string(c->key));
		add(o, "before", new_change_value(&c->before));
		add(o, "after", new_change_value(&c->after));
		add(o, "effect", new_string(mg_check_effect_name(c->effect)));
	}
}

static void render_notes(cJSON *root, const mg_check_result *r)
{
	cJSON *a;
	size_t i;

	if (!r->note_count)
		return;
	a = add(root, "notes", cJSON_CreateArray());
	for (i = 0; i < r->note_count; i++)
		add(a, NULL, new_string(r->notes[i]));
}

/* {"base": x, "head": y, "delta": y - x}, each null when unknown. */
static void render_compare_value(cJSON *o, const char *key, const mg_compare_value *v,
				 const mg_compare_row *row)
{
	cJSON *m = add(o, key, cJSON_CreateObject());
	bool base = row->in_base && v->base_known, head = row->in_head && v->head_known;

	add(m, "base", base ? new_number(v->base) : cJSON_CreateNull());
	add(m, "head", head ? new_number(v->head) : cJSON_CreateNull());
	add(m, "delta", base && head ? new_number(v->head - v->base) : cJSON_CreateNull());
}

static void render_compare_rows(cJSON *parent, const mg_decision *base, const mg_decision *head)
{
	cJSON *list = add(parent, "candidates", cJSON_CreateArray()), *o;
	mg_compare_row *rows = NULL;
	size_t n = 0, i, k;

	mg_compare_rows(&rows, &n, base, head);
	for (i = 0; i < n; i++) {
		const mg_compare_row *row = &rows[i];

		o = add(list, NULL, cJSON_CreateObject());
		add(o, "name", new_string(row->name));
		add(o, "change", new_string(!row->in_base ? "new" : !row->in_head ? "removed" :
					     mg_compare_row_changed(row) ? "changed" : "unchanged"));
		add(o, "base_status", row->in_base ? new_string(mg_status_name(row->base_status))
						   : cJSON_CreateNull());
		add(o, "head_status", row->in_head ? new_string(mg_status_name(row->head_status))
						   : cJSON_CreateNull());
		for (k = 0; k < MG_COMPARE_METRICS; k++)
			render_compare_value(o, mg_metric_name(mg_compare_metrics[k]), &row->value[k],
					     row);
	}
	free(rows);
}

/* --base: the base commit's decision under the same policy, and per
 * candidate what changed. */
static void render_base(cJSON *root, const mg_check_result *r)
{
	const mg_check_base *b = r->base;
	const mg_decision *bd;
	cJSON *o;

	if (!b)
		return;
	o = add(root, "base", cJSON_CreateObject());
	add(o, "rev", new_id(b->rev));
	if (!b->result) {
		add(o, "error", new_string(b->error ? b->error : "unknown error"));
		return;
	}
	bd = b->result->decision;
	add(o, "decision", new_string(mg_verdict_name(bd->verdict)));
	add(o, "reason", new_string(mg_outcome_name(bd->reason)));
	add(o, "selected_candidate", new_string(bd->selected));
	add(o, "passed", new_bool(b->result->passed));
	add(o, "report_sha256", new_id(b->result->report_ref.sha256));
	render_compare_rows(o, bd, r->decision);
}

static bool has_waivers(const mg_check_result *r)
{
	return r->policy && r->policy->waivers_set;
}

/* "waivers": the date they were judged on, and each with what became of it. */
static void render_waivers(cJSON *root, const mg_check_result *r)
{
	cJSON *o, *list, *w;
	size_t i;

	if (!has_waivers(r))
		return;
	o = add(root, "waivers", cJSON_CreateObject());
	add(o, "today", new_string(r->today));
	add(o, "today_from", new_string(r->today_given ? "--today" : "clock (UTC)"));
	list = add(o, "entries", cJSON_CreateArray());
	for (i = 0; i < r->waiver_count; i++) {
		const mg_policy_waiver *v = r->waivers[i].waiver;

		w = add(list, NULL, cJSON_CreateObject());
		add(w, "candidate", new_string(v->candidate));
		add(w, "reason", new_string(mg_reason_name(v->reason)));
		add(w, "justification", new_string(v->justification));
		add(w, "owner", new_string(v->owner));
		add(w, "expires", new_string(v->expires));
		add(w, "status", new_string(mg_check_waiver_status_name(r->waivers[i].status)));
		if (r->waivers[i].expiring)
			add(w, "expires_in_days", cJSON_CreateNumber(r->waivers[i].days_left));
	}
}

static void render_approved(cJSON *root, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	cJSON *o;

	if (!d->approved_checked)
		return;
	o = add(root, "approved", cJSON_CreateObject());
	add(o, "decision", new_string(r->approved_decision));
	add(o, "selected_candidate", new_string(r->approved_selected));
	o = add(o, "computed", cJSON_CreateObject());
	add(o, "decision", new_string(mg_verdict_name(d->computed_verdict)));
	add(o, "reason", new_string(mg_outcome_name(d->computed_reason)));
	add(o, "selected_candidate", new_string(d->computed_selected));
}

/* A value exactly and rounded for people (as the text output writes it). */
static void add_exact_and_rounded(cJSON *o, double v)
{
	mg_buf b = MG_BUF_INIT;

	add(o, "value", new_number(v));
	mg_format_value(&b, v, NULL);
	add(o, "rounded", new_number(strtod(b.ptr, NULL)));
	mg_buf_free(&b);
}

static cJSON *new_tip(const mg_tip *t)
{
	cJSON *o;

	if (!t->found) {
		o = cJSON_CreateObject();
		add(o, "found", new_bool(false));
		add(o, "limit_reached", new_bool(t->limit_reached));
		if (t->limit_reached)
			add(o, "decisions_limit", cJSON_CreateNumber((double)t->probe_limit));
		add(o, "decisions_run", cJSON_CreateNumber((double)t->probes));
		return must(o);
	}
	o = must(cJSON_CreateObject());
	add(o, "found", new_bool(true));
	add_exact_and_rounded(o, t->value);
	add(o, "decision", new_string(mg_verdict_name(t->verdict)));
	add(o, "reason", new_string(t->reason));
	add(o, "next_action", new_string(t->next_action));
	add(o, "selected_candidate", new_string(t->selected));
	add(o, "decisions_run", cJSON_CreateNumber((double)t->probes));
	return o;
}

static void render_tips(cJSON *parent, const mg_insight *in)
{
	cJSON *a = add(parent, "tipping_points", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < in->tip_count; i++) {
		const mg_tipping *tp = &in->tips[i];
		cJSON *o = add(a, NULL, cJSON_CreateObject());

		add(o, "threshold", new_string(mg_threshold_name(tp->threshold)));
		add(o, "scope", new_string(tp->axis < 0 ? "budget" : "sensitivity.grid"));
		if (tp->axis >= 0)
			add(o, "axis_value_index", cJSON_CreateNumber((double)tp->value_index));
		add(o, "current", new_number(tp->value));
		add(o, "lower", new_tip(&tp->down));
		add(o, "higher", new_tip(&tp->up));
	}
}

static void render_insight(cJSON *root, const mg_check_result *r)
{
	const mg_insight *in = r->insight;
	const mg_decision *d = r->decision;
	cJSON *o, *noise, *front, *a;
	size_t i;

	if (!in)
		return;
	o = add(root, "insight", cJSON_CreateObject());
	add(o, "tipping_points_evaluated", new_bool(in->tips_evaluated));
	render_tips(o, in);
	noise = add(o, "noise", cJSON_CreateObject());
	add(noise, "mode", new_string(mg_noise_mode_name(r->policy ? r->policy->rules.noise :
								    MG_NOISE_WARN)));
	add(noise, "candidates_with_runs", cJSON_CreateNumber((double)in->with_runs));
	add(noise, "candidates_without_runs",
	    cJSON_CreateNumber((double)(in->count - in->with_runs)));
	front = add(o, "front", cJSON_CreateObject());
	add(front, "complete", new_bool(in->front_complete));
	add(front, "compared", cJSON_CreateNumber((double)in->compared));
	a = add(front, "names", cJSON_CreateArray());
	for (i = 0; i < in->count && in->front_complete; i++)
		if (in->on_front[i])
			add(a, NULL, new_string(d->base.evaluations[i].name));
}

/* regression.history (with the key): what was asked, and what the walk of
 * the base's first-parent line found (memgate(1), REGRESSIONS AND HISTORY). */
static void render_history(cJSON *o, const mg_check_result *r, const mg_regression *rg)
{
	const mg_history *h = r->history;
	cJSON *x, *a;
	size_t i;

	if (!rg->history)
		return;
	x = add(o, "history", cJSON_CreateObject());
	add(x, "asked", cJSON_CreateNumber(rg->history));
	add(x, "max_commits", cJSON_CreateNumber(rg->history_max_commits ? rg->history_max_commits
						 : MG_HISTORY_DEFAULT_MAX_COMMITS));
	add(x, "read", new_bool(h != NULL));
	if (!h)
		return;
	add(x, "path", new_string(h->path));
	add(x, "base_commit", new_id(h->base));
	add(x, "used", cJSON_CreateNumber((double)h->used));
	add(x, "skipped", cJSON_CreateNumber((double)h->skipped));
	add(x, "commits_visited", cJSON_CreateNumber((double)h->visited));
	add(x, "bounded", new_bool(h->bounded));
	add(x, "shallow", new_bool(h->shallow && !h->bounded && h->used < (size_t)h->asked));
	a = add(x, "commits", cJSON_CreateArray());
	for (i = 0; i < h->used; i++)
		add(a, NULL, new_id(h->versions[i].commit));
}

/* regression (only with a regression: section): the policy's allowances,
 * whether the base was compared, and each regression that counts. */
static void render_regression(cJSON *root, const mg_check_result *r)
{
	const mg_regression *rg;
	const mg_decision *d = r->decision;
	cJSON *o, *a, *e;
	size_t i;

	if (!r->policy || !mg_regression_active(&r->policy->rules.regression))
		return;
	rg = &r->policy->rules.regression;
	o = add(root, "regression", cJSON_CreateObject());
	render_budget(o, "thresholds", &rg->limits);
	add(o, "covers", new_string(mg_covers_name(rg->covers)));
	add(o, "decision", new_string(mg_verdict_name(rg->reject ? MG_REJECT : MG_TUNE)));
	add(o, "compared", new_bool(d->regression_checked));
	add(o, "within_noise", cJSON_CreateNumber((double)d->regression_within_noise));
	a = add(o, "regressed", cJSON_CreateArray());
	for (i = 0; i < d->regressed_count; i++) {
		const mg_regressed *g = &d->regressed[i];
		const mg_threshold_def *def = mg_threshold_def_of(g->threshold);

		e = add(a, NULL, cJSON_CreateObject());
		add(e, "candidate", new_string(g->name));
		add(e, "index", cJSON_CreateNumber((double)g->index));
		add(e, "threshold", new_string(def->key));
		add(e, "reason", new_string(mg_reason_name(def->reason)));
		add(e, "metric", new_string(mg_metric_name(def->metric)));
		add(e, "base", new_number(g->base));
		add(e, "head", new_number(g->head));
		add(e, "change", new_number(g->change));
		add(e, "limit", new_number(g->limit));
		add(e, "beyond_run_noise", new_bool(g->runs));
	}
	render_history(o, r, rg);
}

static cJSON *build(const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	cJSON *root = must(cJSON_CreateObject());

	add(root, "schema_version", new_string(MG_RECORD_SCHEMA));
	add(root, "memgate_version", new_string(MG_VERSION));
	add(root, "decision", new_string(mg_verdict_name(d->verdict)));
	add(root, "reason", new_string(mg_outcome_name(d->reason)));
	add(root, "next_action", new_string(mg_next_action_name(d->next_action)));
	add(root, "selected_candidate", new_string(d->selected));
	render_gate(root, r);
	render_inputs(root, r);
	render_provenance(root, r);
	render_evidence(root, r);
	render_budget(root, "budget", &d->budget);
	render_checks_run(root, &d->budget);
	render_screening(root, d);
	render_sensitivity(root, d);
	render_insight(root, r);
	render_warnings(root, r);
	render_notes(root, r);
	render_changes(root, r);
	render_waivers(root, r);
	render_approved(root, r);
	render_base(root, r);
	render_regression(root, r);
	return root;
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

/*
 * Writes the printed tree `text` up to the next record's two placeholders,
 * that record's evaluations and scenarios in their place (the record's root
 * at `depth`), and returns the text after them.
 */
static char *splice(struct stream *st, char *text, const mg_check_result *r, int depth)
{
	const mg_decision *d = r->decision;
	char *eval = strstr(text, EVALUATIONS_MARK), *sens;

	assert(eval);
	sens = strstr(eval, SCENARIOS_MARK);
	assert(sens);
	*eval = *sens = '\0';
	mg_escape_json_log(&st->buf, text);
	mg_record__write_evaluations(st, d, has_waivers(r), r->insight, depth);
	mg_escape_json_log(&st->buf, eval + strlen(EVALUATIONS_MARK));
	mg_record__write_scenarios(st, d, depth);
	return sens + strlen(SCENARIOS_MARK);
}

/* The printed tree with every record's large parts spliced in, and the
 * final newline; returns MG_OK or the sink's MG_ERROR. */
static int stream_tree(cJSON *root, const mg_check_item *items, size_t count,
		       const mg_check_result *one, mg_sink sink, void *ctx)
{
	struct stream st = { MG_BUF_INIT, sink, ctx, MG_OK };
	char *text, *rest;
	size_t i;

	if (!(text = cJSON_Print(root)))
		abort();
	mg_buf_grow(&st.buf, STREAM_CHUNK + 64 * 1024);
	rest = text;
	if (one)
		rest = splice(&st, rest, one, 0);
	for (i = 0; i < count; i++)
		if (items[i].result)
			rest = splice(&st, rest, items[i].result, 3);
	mg_escape_json_log(&st.buf, rest);
	mg_buf_putc(&st.buf, '\n');
	mg_record__flush(&st);
	cJSON_free(text);
	mg_buf_free(&st.buf);
	return st.error;
}

int mg_record_write_set(const mg_check_item *items, size_t count, mg_sink sink, void *ctx)
{
	cJSON *root = must(cJSON_CreateObject()), *list, *o;
	char buf[2048];
	int status = 0, st, error;
	size_t i;

	assert(items && sink);
	for (i = 0; i < count; i++)
		if ((st = mg_check_item_status(&items[i])) > status)
			status = st;
	add(root, "schema_version", new_string(MG_RECORD_SET_SCHEMA));
	add(root, "passed", new_bool(status == 0));
	add(root, "exit_status", cJSON_CreateNumber(status));
	list = add(root, "policies", cJSON_CreateArray());
	for (i = 0; i < count; i++) {
		o = add(list, NULL, cJSON_CreateObject());
		add(o, "policy", new_string(items[i].policy));
		add(o, "exit_status", cJSON_CreateNumber(mg_check_item_status(&items[i])));
		if (items[i].result) {
			add(o, "error", cJSON_CreateNull());
			add(o, "record", build(items[i].result));
		} else {
			add(o, "error", new_string(mg_error_format(&items[i].error, buf, sizeof(buf))));
			add(o, "record", cJSON_CreateNull());
		}
	}
	error = stream_tree(root, items, count, NULL, sink, ctx);
	cJSON_Delete(root);
	return error;
}

int mg_record_write(const mg_check_result *r, mg_sink sink, void *ctx)
{
	cJSON *root;
	int error;

	assert(r && r->decision && sink);
	root = build(r);
	error = stream_tree(root, NULL, 0, r, sink, ctx);
	cJSON_Delete(root);
	return error;
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

/* Parse len bytes as one JSON object with nothing but whitespace after it;
 * NULL when they are anything else. */
static cJSON *parse_object(const char *text, size_t len)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);

	if (root && cJSON_IsObject(root) && end) {
		while (end < text + len && *end && strchr(" \t\r\n", *end))
			end++;
		if (end == text + len)
			return root;
	}
	cJSON_Delete(root);
	return NULL;
}

static void drop_key(cJSON *object, const char *key)
{
	while (cJSON_GetObjectItemCaseSensitive(object, key))
		cJSON_DeleteItemFromObjectCaseSensitive(object, key);
}

/*
 * Remove what changes between two runs on the same evidence: the commit ids
 * (inputs.rev, inputs.<x>.rev), the manifest and approved result (pinning a
 * record into the manifest changes both, and a later release check would
 * otherwise never re-record the same decision), the approved-record check
 * the warnings (about the working tree, not the evidence), the base and the
 * regressions against it (another base, another comparison), the waivers'
 * judging date and days to expiry, and the version
 * of memgate that wrote it (an upgrade that decides the same is no change).
 */
static void drop_revs(cJSON *root)
{
	cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
	cJSON *child, *waivers, *entries, *entry;

	drop_key(root, "memgate_version");
	drop_key(root, "warnings");
	drop_key(root, "notes");
	drop_key(root, "approved");
	drop_key(root, "base");
	drop_key(root, "regression");   /* like base: what the base was */
	waivers = cJSON_GetObjectItemCaseSensitive(root, "waivers");
	if (cJSON_IsObject(waivers)) {
		drop_key(waivers, "today");
		drop_key(waivers, "today_from");
		entries = cJSON_GetObjectItemCaseSensitive(waivers, "entries");
		cJSON_ArrayForEach(entry, entries)
			if (cJSON_IsObject(entry))
				drop_key(entry, "expires_in_days");
	}
	if (!cJSON_IsObject(inputs))
		return;
	drop_key(inputs, "rev");
	drop_key(inputs, "manifest");
	drop_key(inputs, "approved_result");
	cJSON_ArrayForEach(child, inputs)
		if (cJSON_IsObject(child))
			drop_key(child, "rev");
}

int mg_record_same(bool *same, const char *existing, size_t existing_len,
		   const char *fresh, mg_error *err)
{
	cJSON *old = NULL, *now = NULL;
	int error = MG_ERROR;

	assert(same && existing && fresh);
	*same = false;
	if (!(old = parse_object(existing, existing_len))) {
		mg_error_set(err, NULL, 0, 0, "existing record is not a JSON object");
		goto done;
	}
	if (!(now = parse_object(fresh, strlen(fresh)))) {
		mg_error_set(err, NULL, 0, 0, "new record is not a JSON object");
		goto done;
	}
	drop_revs(old);
	drop_revs(now);
	*same = cJSON_Compare(old, now, 1);
	error = MG_OK;
done:
	cJSON_Delete(old);
	cJSON_Delete(now);
	return error;
}
