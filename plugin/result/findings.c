/*
 * The findings behind a decision, shared by every CI renderer: see
 * findings.h.  The evidence issues' findings are findings_issues.c's;
 * findings_put.c holds what both add findings with.
 */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "byname.h"
#include "digest.h"
#include "memgate/escape.h"
#include "format.h"
#include "findings_put.h"

#define BIT(r) (1u << (r))

/* ---- checks and values ---- */

/* The check a step-7 reason comes from, or NULL for steps 1-6. */
static const mg_threshold_def *check_of(enum mg_reason reason)
{
	int t = mg_reason_threshold(reason);

	return t < 0 ? NULL : mg_threshold_def_of((enum mg_threshold)t);
}

/* ---- findings ---- */

const char *mg_findings_policy_file(const mg_check_result *r)
{
	return mg_findings__policy_file(r);
}

void mg_finding_place(const char **file, mg_pos *pos, const mg_check_result *r,
		     const mg_finding *f)
{
	*file = f->file ? f->file : mg_findings__policy_file(r);
	pos->line = f->file && f->pos.line > 0 ? f->pos.line : 1;
	pos->column = f->file && f->pos.line > 0 && f->pos.column > 0 ? f->pos.column : 1;
}

/* The policy line of threshold t. */
static mg_pos threshold_pos(const struct findings *f, int t)
{
	const mg_policy *p = mg_findings_lines_policy(f->r);

	return p && t >= 0 ? p->threshold_pos[t] : mg_findings__no_pos();
}

/* The report's candidate behind an evaluation, or NULL. */
static const mg_candidate *candidate_of(const struct findings *f, const mg_evaluation *e)
{
	return f->ev && e->index < f->ev->candidate_count ? &f->ev->candidates[e->index] : NULL;
}

/* A candidate's finding: first for the selected one, else hard or target. */
static enum mg_finding_rank candidate_rank(const struct findings *f, size_t i, bool hard)
{
	if (i == f->selected)
		return MG_FINDING_RANK_SELECTED;
	return hard ? MG_FINDING_RANK_HARD : MG_FINDING_RANK_TARGET;
}

/* "checkpoint: peak 9450.76 MB > memory_cap_mb 9000"; the effective
 * quality ceiling for quality_over_floor.  At the threshold's policy line. */
static void threshold_finding(struct findings *f, const mg_evaluation *e, size_t i,
			      const mg_threshold_def *c)
{
	const mg_budget *b = &f->d->budget;
	int t = (int)mg_check_threshold(c);
	double limit;
	bool known = mg_check_limit(&limit, c, f->d);

	if (c->reason == MG_R_QUALITY_OVER_FLOOR && f->d->base.quality_ceiling_from >= 0)
		t = f->d->base.quality_ceiling_from;
	f->subject = e->name;
	mg_format_name(&f->msg, e->name);
	mg_buf_printf(&f->msg, ": %s ", c->label);
	mg_format_value(&f->msg, e->value[c->metric], known ? &limit : NULL);
	mg_buf_printf(&f->msg, "%s %s ", c->unit, mg_check_operator(c, true, false));
	if (t == MG_MAX_RELATIVE_EVAL_LOSS) {
		mg_format_threshold(&f->msg, limit);
		mg_buf_puts(&f->msg, ", the ceiling of max_relative_eval_loss ");
		mg_format_threshold(&f->msg, b->value[t]);
	} else {
		mg_buf_printf(&f->msg, "%s ", mg_threshold_name((enum mg_threshold)t));
		mg_format_threshold(&f->msg, b->value[t]);
	}
	mg_findings__add(f, candidate_rank(f, i, c->hard),
			 mg_reason_code(c->reason), mg_findings__policy_file(f->r),
			 threshold_pos(f, t), i);
}

/* "samples_per_s is missing"; returns where: the metric, else the candidate. */
static mg_pos metric_message(struct findings *f, const mg_evaluation *e,
			     const mg_candidate *c, mg_pos pos)
{
	int m = c ? e->missing_metric : -1;

	if (m < 0) {
		mg_buf_puts(&f->msg, "a number that an active check needs is missing or not finite");
		return pos;
	}
	if (c->metric[m].out_of_range) {
		mg_buf_printf(&f->msg, "%s is ", mg_metric_name((enum mg_metric_id)m));
		mg_format_value(&f->msg, c->metric[m].value, NULL);
		mg_buf_puts(&f->msg, mg_metric_range((enum mg_metric_id)m) == MG_METRIC_POSITIVE ?
			    ", not a positive number" : ", not a non-negative number");
	} else {
		mg_buf_printf(&f->msg, "%s is %s", mg_metric_name((enum mg_metric_id)m),
			      c->metric[m].state == MG_METRIC_INVALID ? "not a finite number" : "missing");
	}
	return c->metric[m].pos.line > 0 ? c->metric[m].pos : pos;
}

/* For each evaluation, the first evaluation with the same name (itself when
 * none comes before): sorted once (mg_byname_evaluations), not searched per
 * duplicate. */
static size_t *first_uses(const mg_screening *s)
{
	size_t *first = mg_xcalloc(s->count ? s->count : 1, sizeof(*first));
	size_t i, n;
	mg_named *v = mg_byname_evaluations(&n, s);

	for (i = 0; i < s->count; i++)
		first[i] = i;
	for (i = 1; i < n; i++)
		if (!strcmp(v[i].name, v[i - 1].name))
			first[v[i].index] = first[v[i - 1].index];
	free(v);
	return first;
}

/* Why a candidate's name disqualifies it (step 1). */
static void name_message(struct findings *f, const mg_evaluation *e, size_t i)
{
	size_t j;

	if (!e->name) {
		mg_buf_puts(&f->msg, "the name is missing or not a string");
		return;
	}
	if (!e->name[0]) {
		mg_buf_puts(&f->msg, "the name is empty");
		return;
	}
	if (!f->first_use)
		f->first_use = first_uses(&f->d->base);
	j = f->first_use[i];
	if (j < i)
		mg_buf_printf(&f->msg, "the name is already used by candidate #%zu", j + 1);
	else
		mg_buf_puts(&f->msg, "the name is used twice");
}

/* Steps 1-6: at the candidate object (or the metric) in the report. */
static void early_finding(struct findings *f, const mg_evaluation *e, size_t i,
			  enum mg_reason reason)
{
	const mg_candidate *c = candidate_of(f, e);
	mg_pos pos = c ? c->pos : mg_findings__no_pos();
	bool hard = mg_reason_code(reason)->kind != MG_KIND_SOFT;

	mg_format_name(&f->msg, e->name);
	mg_buf_puts(&f->msg, ": ");
	f->subject = e->name;
	if (reason == MG_R_MISSING_OR_DUPLICATE_NAME) {
		name_message(f, e, i);
	} else if (reason == MG_R_OOM) {
		mg_buf_puts(&f->msg, "ran out of memory (status oom or metrics.oom)");
	} else if (reason == MG_R_EVIDENCE_NOT_COMPARABLE) {
		if (c && c->status) {
			mg_buf_puts(&f->msg, "status ");
			mg_findings__put_quoted(&f->msg, c->status);
			mg_buf_puts(&f->msg, " is neither 'ok' nor 'comparable'");
		} else {
			mg_buf_puts(&f->msg, "status is not a string ('ok' or 'comparable')");
		}
	} else if (reason == MG_R_NOT_IN_ELIGIBLE_CANDIDATES) {
		mg_buf_puts(&f->msg, "not listed in eligible_candidates");
	} else if (reason == MG_R_MISSING_OR_NON_NUMERIC_METRIC) {
		pos = metric_message(f, e, c, pos);
	} else {
		mg_buf_printf(&f->msg, "%d repeat%s, fewer than evidence.min_repeats %d", e->repeats,
			      e->repeats == 1 ? "" : "s",
			      f->r->policy ? f->r->policy->rules.min_repeats : 1);
	}
	mg_findings__add(f, candidate_rank(f, i, hard),
			 mg_reason_code(reason), mg_findings__report_file(f->r), pos, i);
}

bool mg_finding_self_comparison(const mg_check_result *r, const mg_evaluation *e,
			       enum mg_reason reason)
{
	const char *baseline = mg_rules_baseline(r->policy ? &r->policy->rules : NULL);

	return mg_reason_against_baseline(reason) && e->name && !strcmp(e->name, baseline);
}

static void candidate_findings(struct findings *f)
{
	const mg_screening *s = &f->d->base;
	const mg_threshold_def *c;
	size_t i;
	int reason;

	for (i = 0; i < s->count; i++) {
		for (reason = 0; reason < MG_REASON_COUNT; reason++) {
			if (!(s->evaluations[i].reasons & BIT(reason)) ||
			    mg_finding_self_comparison(f->r, &s->evaluations[i], (enum mg_reason)reason))
				continue;
			if ((c = check_of((enum mg_reason)reason)))
				threshold_finding(f, &s->evaluations[i], i, c);
			else
				early_finding(f, &s->evaluations[i], i, (enum mg_reason)reason);
		}
	}
}

/* baseline_missing_or_invalid with no candidate of that name at all (an
 * unmeasured baseline has its own step 1-6 finding). */
/* The evaluation named `name` in the base screening, or NO_CANDIDATE. */
static size_t evaluation_named(const mg_decision *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name && !strcmp(d->base.evaluations[i].name, name))
			return i;
	return NO_CANDIDATE;
}

static void baseline_finding(struct findings *f)
{
	const char *name;

	if (!f->r->policy || f->d->reason != MG_O_BASELINE_MISSING_OR_INVALID)
		return;
	name = mg_rules_baseline(&f->r->policy->rules);
	if (evaluation_named(f->d, name) != NO_CANDIDATE)
		return;
	mg_buf_puts(&f->msg, "no candidate is named ");
	mg_findings__put_quoted(&f->msg, name);
	mg_buf_puts(&f->msg, " (evidence.baseline), so no value can be derived from it");
	mg_findings__add(f, MG_FINDING_RANK_HARD, mg_code_of(MG_CODE_BASELINE_MISSING_OR_INVALID),
			 mg_findings__report_file(f->r),
			 f->ev ? f->ev->candidates_pos : mg_findings__no_pos(), NO_CANDIDATE);
}

/* The policy line of scenario i: its stricter entry, or the grid's first
 * axis (in the policy whose lines annotations point at). */
static mg_pos scenario_pos(const struct findings *f, size_t i)
{
	const mg_policy *p = f->r->policy, *lines = mg_findings_lines_policy(f->r);

	if (!p)
		return mg_findings__no_pos();
	if (i < p->rules.stricter_count)
		return lines->stricter_pos && i < lines->rules.stricter_count
		       ? lines->stricter_pos[i] : mg_findings__no_pos();
	return lines->rules.grid_count && lines->grid_pos ? lines->grid_pos[0] : mg_findings__no_pos();
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* selection_is_threshold_sensitive: each scenario whose winner differs. */
static void sensitivity_findings(struct findings *f)
{
	size_t i;

	if (f->d->reason != MG_O_SELECTION_IS_THRESHOLD_SENSITIVE)
		return;
	for (i = 0; i < f->d->scenario_count; i++) {
		const mg_scenario *sc = &f->d->scenarios[i];

		if (same_name(sc->best, f->d->best))
			continue;
		mg_buf_printf(&f->msg, "%s (", sc->id);
		mg_format_overrides(&f->msg, &sc->overrides);
		mg_buf_puts(&f->msg, "): the winner is ");
		if (sc->best)
			mg_format_name(&f->msg, sc->best);
		else
			mg_buf_puts(&f->msg, "none");
		mg_buf_puts(&f->msg, ", not ");
		mg_format_name(&f->msg, f->d->best);
		f->subject = sc->id;
		mg_findings__add(f, MG_FINDING_RANK_SENSITIVITY,
				 mg_code_of(MG_CODE_SELECTION_IS_THRESHOLD_SENSITIVE),
				 mg_findings__policy_file(f->r), scenario_pos(f, i), NO_CANDIDATE);
	}
}

static void warning_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->warning_count; i++) {
		mg_findings__put_safe(&f->msg, f->r->warnings[i]);
		f->subject = f->r->warnings[i];
		mg_findings__add(f, MG_FINDING_RANK_WARNING, mg_code_of(MG_CODE_WARNING),
				 f->r->warning_files ? f->r->warning_files[i] : NULL,
				 f->r->warning_pos ? f->r->warning_pos[i] : mg_findings__no_pos(),
				 NO_CANDIDATE);
	}
}

static void note_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->note_count; i++) {
		mg_findings__put_safe(&f->msg, f->r->notes[i]);
		mg_findings__add(f, MG_FINDING_RANK_WARNING, mg_code_of(MG_CODE_NOTE), NULL,
				 mg_findings__no_pos(), NO_CANDIDATE);
	}
}

/* "budget.memory_cap_mb: 11200 at the policy revision, 20000 in this change
 * (loosens the budget; ...)" at the key's line in the proposed policy. */
static void change_findings(struct findings *f)
{
	mg_buf value = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < f->r->change_count; i++) {
		const mg_policy_change *c = &f->r->changes[i];

		mg_findings__put_safe(&f->msg, c->key);
		mg_buf_puts(&f->msg, " is ");
		mg_check_change_text(&value, &c->before);
		mg_findings__put_safe(&f->msg, value.ptr);
		mg_buf_free(&value);
		mg_buf_puts(&f->msg, " in the policy that decides (the policy revision), ");
		mg_check_change_text(&value, &c->after);
		mg_findings__put_safe(&f->msg, value.ptr);
		mg_buf_free(&value);
		if (c->effect == MG_CHANGE_EXPIRED)
			mg_buf_printf(&f->msg, " in this change: that date has passed (today is %s), "
				      "so the waiver is expired and waives nothing once merged",
				      f->r->today);
		else
			mg_buf_printf(&f->msg, " in this change: it %s the %s once merged",
				      mg_check_effect_name(c->effect),
				      c->effect == MG_CHANGE_ALTERS ? "policy" : "budget");
		f->subject = c->key;
		mg_findings__add_weighted(f,
					  c->effect == MG_CHANGE_LOOSENS || c->effect == MG_CHANGE_EXPIRED ?
					  MG_FINDING_WARNING : MG_FINDING_NOTE,
					  MG_FINDING_RANK_WARNING, mg_code_of(MG_CODE_POLICY_CHANGE),
					  mg_findings__policy_file(f->r), c->pos, NO_CANDIDATE);
	}
	mg_buf_free(&value);
}

/* Each waiver of the policy: a notice when it applied, a warning at its
 * line when it matches nothing, at its expires: when it expired; and a
 * notice at its expires: when it expires within waivers_warn_days. */
static void waiver_findings(struct findings *f)
{
	/* "waiver_" and mg_check_waiver_status_name */
	static const enum mg_code_id codes[MG_WAIVER_STATUS_COUNT] = {
		[MG_WAIVER_APPLIED] = MG_CODE_WAIVER_APPLIED,
		[MG_WAIVER_UNMATCHED] = MG_CODE_WAIVER_UNMATCHED,
		[MG_WAIVER_EXPIRED] = MG_CODE_WAIVER_EXPIRED,
		[MG_WAIVER_SPENT] = MG_CODE_WAIVER_SPENT,
	};
	const mg_check_result *r = f->r;
	mg_buf line = MG_BUF_INIT, subject = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < r->waiver_count; i++) {
		const mg_waiver_state *w = &r->waivers[i];
		const mg_policy_waiver *v = w->waiver;
		mg_pos pos = w->status == MG_WAIVER_EXPIRED ? v->expires_pos :
			     w->status == MG_WAIVER_UNMATCHED && w->candidate_found ? v->reason_pos :
			     w->status == MG_WAIVER_UNMATCHED ? v->candidate_pos : v->pos;

		mg_check_waiver_message(&line, r, i);
		mg_findings__put_safe(&f->msg, line.ptr);
		mg_buf_printf(&subject, "%s\n%s", v->candidate, mg_reason_name(v->reason));
		f->subject = subject.ptr;
		mg_findings__add(f, w->status == MG_WAIVER_APPLIED ? MG_FINDING_RANK_WAIVER
								   : MG_FINDING_RANK_WARNING,
				 mg_code_of(codes[w->status]), mg_findings__policy_file(r), pos,
				 w->status == MG_WAIVER_APPLIED ? evaluation_named(f->d, v->candidate)
								: NO_CANDIDATE);
		mg_buf_free(&line);
		if (w->expiring) {
			mg_check_waiver_expiring_message(&line, r, i);
			mg_findings__put_safe(&f->msg, line.ptr);
			f->subject = subject.ptr;
			mg_findings__add(f, MG_FINDING_RANK_WAIVER, mg_code_of(MG_CODE_WAIVER_EXPIRING),
					 mg_findings__policy_file(r), v->expires_pos,
					 NO_CANDIDATE);
			mg_buf_free(&line);
		}
		mg_buf_free(&subject);
	}
}

/* The unit a metric's values are written in. */
static const char *metric_unit(enum mg_metric_id m)
{
	return m == MG_M_PEAK ? " MB" : "";
}

/* "checkpoint: peak increase 7.08 % (52110 -> 55800 MB) > max_peak_increase_pct 5"
 * into f->msg for change g, with f->subject; its position: the value's line
 * in the head's report, else the candidate's. */
static mg_pos put_change(struct findings *f, const mg_regressed *g)
{
	const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
	const mg_evaluation *e = &f->d->base.evaluations[g->index];
	const mg_candidate *c = candidate_of(f, e);

	f->subject = e->name;
	mg_format_name(&f->msg, e->name);
	mg_buf_printf(&f->msg, ": %s ", def->label);
	mg_format_value(&f->msg, g->change, &g->limit);
	mg_buf_printf(&f->msg, "%s (", def->unit);
	mg_format_value(&f->msg, g->base, NULL);
	mg_buf_puts(&f->msg, " -> ");
	mg_format_value(&f->msg, g->head, NULL);
	mg_buf_printf(&f->msg, "%s) > %s ", metric_unit(def->metric), def->key);
	mg_format_threshold(&f->msg, g->limit);
	if (c && c->metric[def->metric].pos.line > 0)
		return c->metric[def->metric].pos;
	return c ? c->pos : mg_findings__no_pos();
}

/*
 * "checkpoint: peak increase 7.08 % (52110 -> 55800 MB) > max_peak_increase_pct 5
 * against the base": one per regression that counts (memgate(1), REGRESSIONS AND HISTORY),
 * at the regressed value's line in the head's report.  The first names the
 * selected candidate, so it leads.
 */
static void regression_findings(struct findings *f)
{
	const mg_decision *d = f->d;
	const mg_policy *p = f->r->policy;
	size_t k;

	for (k = 0; k < d->regressed_count; k++) {
		const mg_regressed *g = &d->regressed[k];
		const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
		mg_pos pos = put_change(f, g);

		if (f->r->history && f->r->history->used) {
			const char *commit;
			size_t ago;
			double pct;

			mg_buf_printf(&f->msg, " against the median of the base's last %zu "
				      "measurements", f->r->history->used);
			if (mg_check_step(&commit, &ago, &pct, f->r, g) && commit)
				mg_buf_printf(&f->msg, "; the peak stepped %+.1f %% at %.7s (%zu %s "
					      "ago)", pct, commit, ago,
					      ago == 1 ? "measurement" : "measurements");
			else if (commit == NULL && pct != 0)
				mg_buf_printf(&f->msg, "; the peak stepped %+.1f %% at this change",
					      pct);
		} else
			mg_buf_puts(&f->msg, g->runs ? " against the base, beyond both runs' "
				    "noise" : " against the base");
		mg_findings__add_weighted(f,
					  p && p->rules.regression.reject ? MG_FINDING_HARD : MG_FINDING_SOFT,
					  g->index == f->selected ? MG_FINDING_RANK_SELECTED : MG_FINDING_RANK_HARD,
					  mg_reason_code(def->reason),
					  mg_findings__report_file(f->r), pos, g->index);
	}
}

/*
 * "checkpoint: peak increase 7.08 % (52110 -> 55800 MB) > max_peak_increase_pct 5
 * against the base, but within both runs' noise (Mann-Whitney p = 0.35 >
 * alpha 0.05): changed, not regressed": one note per change the runs' noise
 * covers (changed_within_noise), at the value's line in the head's report.
 */
static void within_noise_findings(struct findings *f)
{
	const mg_decision *d = f->d;
	const mg_regression *rg = f->r->policy ? &f->r->policy->rules.regression : NULL;
	size_t k;

	for (k = 0; rg && k < d->regression_within_noise; k++) {
		const mg_regressed *g = &d->within_noise[k];
		const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
		mg_pos pos = put_change(f, g);

		mg_buf_puts(&f->msg, " against the base, but within both runs' noise (");
		if (isfinite(g->p)) {
			mg_buf_printf(&f->msg, "Mann-Whitney p = %.3g > alpha ", g->p);
			mg_format_threshold(&f->msg, rg->alpha > 0 ? rg->alpha
								   : MG_REGRESSION_DEFAULT_ALPHA);
		} else {
			mg_buf_printf(&f->msg, "the change over the runs spans %+.1f to %+.1f%s",
				      g->band_min, g->band_max, def->unit);
		}
		mg_buf_puts(&f->msg, "): changed, not regressed");
		mg_findings__add_weighted(f, MG_FINDING_NOTE, MG_FINDING_RANK_WAIVER,
					  mg_code_of(MG_CODE_CHANGED_WITHIN_NOISE),
					  mg_findings__report_file(f->r), pos, g->index);
	}
}

/*
 * "'checkpoint' (selected at the base) has no candidate of that name now:
 * not compared against the base ('checkpoint ' looks like 'checkpoint')":
 * one per covered base candidate without a namesake (regression_not_compared),
 * at the head's report.  The base's selected one weighs as a regression
 * does; another (covers: all) is a warning.
 */
static void unmatched_findings(struct findings *f)
{
	const mg_decision *d = f->d;
	const mg_policy *p = f->r->policy;
	const mg_regression *rg = p ? &p->rules.regression : NULL;
	size_t k;

	for (k = 0; rg && k < d->unmatched_count; k++) {
		bool selected = d->unmatched[k] == d->unmatched_selected;

		f->subject = d->unmatched[k];
		mg_buf_putc(&f->msg, '\'');
		mg_format_name(&f->msg, d->unmatched[k]);
		mg_buf_printf(&f->msg, "'%s has no candidate of exactly that name now: not compared "
			      "against the base", selected ? " (selected at the base)" : "");
		if (d->unmatched_lookalike[k]) {
			mg_buf_puts(&f->msg, " ('");
			mg_format_name(&f->msg, d->unmatched_lookalike[k]);
			mg_buf_puts(&f->msg, "' looks like '");
			mg_format_name(&f->msg, d->unmatched[k]);
			mg_buf_puts(&f->msg, "')");
		}
		mg_findings__add_weighted(f, !selected ? MG_FINDING_WARNING :
					  rg->reject ? MG_FINDING_HARD : MG_FINDING_SOFT,
					  selected ? MG_FINDING_RANK_SELECTED : MG_FINDING_RANK_WARNING,
					  mg_code_of(MG_CODE_REGRESSION_NOT_COMPARED),
					  mg_findings__report_file(f->r),
					  mg_findings__no_pos(), NO_CANDIDATE);
	}
}

/* The evaluation of the selected candidate (else the base winner), or NO_CANDIDATE. */
static size_t selected_index(const mg_decision *d)
{
	return evaluation_named(d, d->selected ? d->selected : d->best);
}

bool mg_finding_quiet(const mg_check_result *r, const mg_finding *f)
{
	return r->evidence_unchanged && f->candidate < r->decision->base.count &&
		f->candidate != selected_index(r->decision);
}

/* Reorder f->list by rank, keeping the order within a rank, in place:
 * each finding's place is counted (a size_t each) and the list follows
 * its cycles, so that a second list (a finding per candidate at most)
 * is never held beside the first; then the list is cut to its length. */
static void sort_by_rank(struct findings *f)
{
	size_t start[MG_FINDING_RANK_COUNT] = { 0 }, *place, i, j;
	mg_finding held;
	int rank;

	for (i = 0; i < f->count; i++) {
		assert(f->list[i].rank < MG_FINDING_RANK_COUNT);
		if (f->list[i].rank + 1 < MG_FINDING_RANK_COUNT)
			start[f->list[i].rank + 1]++;
	}
	for (rank = 1; rank < MG_FINDING_RANK_COUNT; rank++)
		start[rank] += start[rank - 1];
	place = mg_xcalloc(f->count ? f->count : 1, sizeof(*place));
	for (i = 0; i < f->count; i++)
		place[i] = start[f->list[i].rank]++;
	for (i = 0; i < f->count; i++)
		while (place[i] != i) {
			j = place[i];
			held = f->list[j];
			f->list[j] = f->list[i];
			f->list[i] = held;
			place[i] = place[j];
			place[j] = j;
		}
	free(place);
	if (f->count && f->count < f->cap) {
		f->list = mg_xrealloc(f->list, f->count * sizeof(*f->list));
		f->cap = f->count;
	}
}

void mg_findings(mg_finding **out, size_t *count, const mg_check_result *r)
{
	struct findings f = { 0 };

	assert(out && count && r && r->decision);
	f.r = r;
	f.d = r->decision;
	f.ev = r->report ? &r->report->evidence : NULL;
	f.selected = selected_index(f.d);
	f.issue = -1;
	mg_buf_init(&f.msg);
	mg_findings__issues(&f);
	mg_findings__drift(&f);
	mg_findings__proposed(&f);
	regression_findings(&f);
	unmatched_findings(&f);
	within_noise_findings(&f);
	candidate_findings(&f);
	baseline_finding(&f);
	sensitivity_findings(&f);
	warning_findings(&f);
	note_findings(&f);
	change_findings(&f);
	waiver_findings(&f);
	sort_by_rank(&f);
	mg_buf_free(&f.msg);
	free(f.first_use);
	*out = f.list;
	*count = f.count;
}

void mg_findings_free(mg_finding *findings, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(findings[i].message);
		free(findings[i].subject);
	}
	free(findings);
}

/* The SHA-256 of policy, code, subject and occurrence, NUL-separated. */
static void fingerprint(char out[MG_FINDING_FINGERPRINT_SIZE], const char *policy,
			const mg_finding *f, size_t occurrence)
{
	mg_buf key = MG_BUF_INIT;

	mg_buf_puts(&key, "memgate-finding/v1");
	mg_buf_put(&key, "", 1);
	mg_buf_puts(&key, policy ? policy : "");
	mg_buf_put(&key, "", 1);
	mg_buf_puts(&key, f->code->name);
	mg_buf_put(&key, "", 1);
	if (f->subject)
		mg_buf_puts(&key, f->subject);
	if (occurrence)
		mg_buf_printf(&key, "%c#%zu", '\0', occurrence + 1);
	if (mg_digest_sha256_hex(out, key.ptr, key.len) < 0)
		abort();   /* OpenSSL cannot fail on a digest of memory */
	mg_buf_free(&key);
}

/* A fingerprint's place: by fingerprint, then by place in the list. */
struct slot {
	const char *hash;
	size_t index;
	bool twin;     /* the same fingerprint as the slot before */
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c = strcmp(x->hash, y->hash);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The fingerprints of `findings`, the i-th at out + i * stride (a list of
 * its own, or the findings' own fingerprint members). */
static void fingerprints(char *out, size_t stride, const char *policy,
			 const mg_finding *findings, size_t count)
{
	struct slot *slots = mg_xcalloc(count ? count : 1, sizeof(*slots));
	size_t i, occurrence = 0;

	for (i = 0; i < count; i++) {
		fingerprint(out + i * stride, policy, &findings[i], 0);
		slots[i].hash = out + i * stride;
		slots[i].index = i;
	}
	qsort(slots, count, sizeof(*slots), slot_cmp);
	for (i = 1; i < count; i++)
		slots[i].twin = !strcmp(slots[i].hash, slots[i - 1].hash);
	/* the second and later findings of one fingerprint get their number */
	for (i = 1; i < count; i++) {
		occurrence = slots[i].twin ? occurrence + 1 : 0;
		if (occurrence)
			fingerprint(out + slots[i].index * stride, policy,
				    &findings[slots[i].index], occurrence);
	}
	free(slots);
}

void mg_finding_fingerprints(char (*out)[MG_FINDING_FINGERPRINT_SIZE], const char *policy,
			    const mg_finding *findings, size_t count)
{
	if (count)
		fingerprints(out[0], sizeof(*out), policy, findings, count);
}

void mg_findings_fill(mg_check_result *r)
{
	assert(r);
	mg_findings_free(r->findings, r->finding_count);
	mg_findings(&r->findings, &r->finding_count, r);
	/* written into each finding, addressed from the list's start:
	 * fingerprint() reads a finding's code and subject, never its
	 * fingerprint */
	if (r->finding_count)
		fingerprints((char *)r->findings + offsetof(mg_finding, fingerprint),
			     sizeof(*r->findings), mg_findings_policy_file(r), r->findings,
			     r->finding_count);
	r->findings_filled = true;
}

const mg_finding *mg_result_findings(const mg_check_result *r, size_t *count)
{
	assert(r && count && r->findings_filled);
	*count = r->finding_count;
	return r->findings;
}

void mg_findings_each(const mg_check_result *r,
		      void (*fn)(void *ctx, const mg_check_result *r, const mg_finding *f,
				 const char *fingerprint),
		      void *ctx)
{
	size_t n, i;
	const mg_finding *findings = mg_result_findings(r, &n);

	assert(fn);
	for (i = 0; i < n; i++)
		fn(ctx, r, &findings[i], findings[i].fingerprint);
}
