/* The decision core (memgate(1), HOW MEMGATE DECIDES): see
 * include/memgate/decision.h. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/noise.h"
#include "byname.h"
#include "decision_memo.h"
#include "regression.h"
#include "screening.h"
#include "sensitivity.h"
#include "tables.h"

/* ---- evidence issues (memgate(1), HOW MEMGATE DECIDES, 1.) ---- */

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

bool mg_identity_matches(const mg_rules *rules, const mg_evidence *ev)
{
	bool issue[MG_ISSUE_COUNT] = { false };
	size_t i;

	identity_issues(issue, rules, ev);
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (issue[i])
			return false;
	return true;
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
	for (i = MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE; pre_issues && i < MG_ISSUE_COUNT; i++)
		d->issue[i] = pre_issues[i];   /* the appended ones, all passed in */
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

/* ---- the base decision (memgate(1), HOW MEMGATE DECIDES, 3.) ---- */

/* 2.3 step 4: the first non-baseline candidate by rank that passes every
 * hard limit, or NULL. */
static const mg_evaluation *near_miss(const mg_decision *d, const mg_rules *rules,
				      const mg_evidence *ev)
{
	const mg_evaluation *found = NULL;
	size_t n, i, base = 0;
	bool has_base = mg_find_baseline(&base, rules, ev);
	size_t *idx = mg_screening__ranked(&n, &d->base, MG_STATUS_REJECTED, rules->rank_by);
	const unsigned hard = mg_tables__hard_reasons();

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
		mg_tables__conclude(d, MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET);
	else if (e->reasons & BIT(MG_R_QUALITY_DELTA_OVER_LIMIT))
		mg_tables__conclude(d, MG_O_COMPRESSION_NEEDS_QUALITY_RECOVERY);
	else if (e->reasons & BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR))
		mg_tables__conclude(d, MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD);
	else if (e->reasons & BIT(MG_R_THROUGHPUT_BELOW_FLOOR))
		mg_tables__conclude(d, MG_O_THROUGHPUT_LOSS_EXCEEDS_BUDGET);
	else
		mg_tables__conclude(d, MG_O_TRADE_OFF_BELOW_FLOOR);
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
		mg_tables__conclude(d, MG_O_EVIDENCE_NOT_APPLICABLE);
		return 1;
	}
	if (d->base.needs_missing_baseline) {
		mg_tables__conclude(d, MG_O_BASELINE_MISSING_OR_INVALID);
		return 2;
	}
	if (!d->base.feasible_count) {
		decide_without_feasible(d, rules, ev);
		return 4;
	}
	if (mg_find_baseline(&base, rules, ev) && d->base.feasible[0] == base)
		mg_tables__conclude(d, MG_O_BASELINE_STILL_BEST_UNDER_CURRENT_BUDGET);
	else
		*sensitive = true;
	return 3;
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

/* ---- mg_decide ---- */

/* Whether issue i is about the approval record (missing, changed, made
 * for other evidence, or its signature not an approver's) rather than the
 * evidence itself. */
static bool approval_issue(int i)
{
	return i == MG_ISSUE_APPROVED_RESULT_MISSING || i == MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH ||
	       i == MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE || i == MG_ISSUE_APPROVAL_UNVERIFIED;
}

/* Whether every issue but `but` is about the approval record or the
 * signature: nothing else is wrong with the evidence itself. */
static bool only_record_or_signature_besides(const mg_decision *d, int but)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && i != but && !approval_issue(i) && !MG_ISSUE_IS_SIGNATURE(i))
			return false;
	return true;
}

/*
 * The next action of an evidence issue that says more than "rebuild": stale
 * evidence (evidence_stale) is measured again, whatever else is wrong; a
 * measured commit the clone lacks (measured_commit_unknown, a squash-merged
 * pull request's commit, say) is fetched first when nothing else is wrong
 * with the evidence (the approval record and the signature aside: the
 * fetch may show the evidence stale, which a new signature or approval
 * would not mend); when the approved result is the only evidence issue,
 * the evidence itself is fine: the next action points at the approval
 * record, not at the GPU.  The decision and reason stay reject /
 * evidence_not_applicable.
 */
static void issue_next_action(mg_decision *d)
{
	int i;

	if (d->applicable)
		return;
	if (d->issue[MG_ISSUE_EVIDENCE_STALE] || d->issue[MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE]) {
		d->next_action = MG_N_MEASURE_AGAIN;  /* whatever else: measure today's code */
		return;
	}
	if (d->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] &&
	    only_record_or_signature_besides(d, MG_ISSUE_MEASURED_COMMIT_UNKNOWN)) {
		d->next_action = MG_N_FETCH_MEASURED_COMMIT;
		return;
	}
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && !approval_issue(i))
			return;
	if (d->issue[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH])
		d->next_action = MG_N_RESTORE_OR_REAPPROVE_APPROVED_RESULT;
	else if (d->issue[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] ||
		 d->issue[MG_ISSUE_APPROVAL_UNVERIFIED])
		d->next_action = MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE;   /* approve (again), signed */
	else
		d->next_action = MG_N_RECORD_AND_PIN_APPROVED_RESULT;
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
		else if (!approval_issue(i))
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
	mg_tables__conclude(d, MG_O_DECISION_DRIFT);
	d->selected = NULL;
}

struct mg_decision__memo {
	const mg_evidence *ev;
	int *early;
	size_t *target;
	unsigned *waive;
	struct sens sens;
	mg_budget budget;          /* the memo's rules' budget, which `base` screened */
	mg_screening base;         /* lent to a decision whose budget is the same */
	bool base_borrowed;        /* `base` is the decision's given to memo_new */
	struct mg_regression__memo regress;
};

/*
 * The base screening of a decision: the screening depends on the rules'
 * budget and, fixed in a memo, on the evidence, waivers, rank order and
 * baseline; so a decision through the memo whose budget is the memo's own
 * (a grid value's tipping point) is lent the memo's screening, which no
 * step of the decision changes.
 */
static void screen_base(mg_decision *d, const mg_rules *rules, const mg_evidence *ev,
			const int *early, const unsigned *waive, mg_decision__memo *memo)
{
	if (memo && mg_screening__budget_same(&rules->budget, &memo->budget)) {
		d->base = memo->base;
		d->base_lent = true;
		return;
	}
	mg_screening__screen(&d->base, rules, ev, &rules->budget, false,
			     memo ? memo->early : early, memo ? memo->waive : waive);
}

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
	if ((error = mg_sensitivity__count_scenarios(&count, rules, max_scenarios, err)) < 0 ||
	    (error = mg_sensitivity__check_evaluations(count, ev, err)) < 0)
		goto done;
	d = mg_xcalloc(1, sizeof(*d));
	d->budget = rules->budget;
	find_issues(d, rules, ev, pre_issues);
	if (!memo) {
		early = mg_screening__early_reasons(ev);
		target = mg_screening__waiver_targets(rules, ev);
		waive = mg_screening__waived_reasons(rules, ev, target);
	}
	screen_base(d, rules, ev, early, waive, memo);
	d->best = mg_screening__winner(&d->base);
	step = decide_base(d, rules, ev, &sensitive);
	d->sensitivity_evaluated = step >= 3;
	mark_used_waivers(d, rules, memo ? memo->target : target);
	if (d->sensitivity_evaluated && memo) {
		memo->sens.rules = rules;
		mg_sensitivity__run(d, &memo->sens, count, true);
	} else if (d->sensitivity_evaluated) {
		struct sens s;

		mg_sensitivity__init(&s, rules, ev, early, waive, target);
		mg_sensitivity__run(d, &s, count, false);
	}
	mg_sensitivity__summarize(d);
	if (sensitive)
		mg_sensitivity__decide(d);
	if (d->verdict == MG_ACCEPT && rules->noise == MG_NOISE_TUNE && d->base.feasible_count &&
	    mg_noise_of(NULL, rules, ev, &d->base, d->base.feasible[0]))
		mg_tables__conclude(d, MG_O_MARGIN_WITHIN_MEASUREMENT_NOISE);
	mg_regression__decide(d, rules, ev, memo ? &memo->regress : NULL);
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

mg_decision__memo *mg_decision__memo_new(const mg_rules *rules, const mg_evidence *ev,
					 const mg_decision *d)
{
	mg_decision__memo *m = mg_xcalloc(1, sizeof(*m));

	assert(rules && ev);
	m->ev = ev;
	m->early = mg_screening__early_reasons(ev);
	m->target = mg_screening__waiver_targets(rules, ev);
	m->waive = mg_screening__waived_reasons(rules, ev, m->target);
	mg_sensitivity__init(&m->sens, rules, ev, m->early, m->waive, m->target);
	m->budget = rules->budget;
	if (d && !d->base_lent && mg_screening__budget_same(&d->budget, &rules->budget)) {
		m->base = d->base;           /* the same screening: borrowed */
		m->base_borrowed = true;
	} else {
		mg_screening__screen(&m->base, rules, ev, &rules->budget, false, m->early,
				     m->waive);
	}
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
	mg_sensitivity__release(&memo->sens);
	if (!memo->base_borrowed)
		mg_screening_release(&memo->base);
	free(memo->sens.rank[0]);
	free(memo->sens.rank[1]);
	free(memo->early);
	free(memo->target);
	free(memo->waive);
	mg_regression__memo_release(&memo->regress);
	free(memo);
}

size_t mg_decision_best(const mg_decision *d, size_t *out, size_t max)
{
	const mg_screening *s = &d->base;
	const unsigned hard = mg_tables__hard_reasons();
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
	bool lent;

	if (!d)
		return;
	if (!d->base_lent)
		mg_screening_release(&d->base);
	st = d->sensitivity_storage;
	lent = st && st->lent;   /* then the scenarios and their storage are a memo's */
	if (st && !lent) {
		free(st->rank[0]);
		free(st->rank[1]);
		free(st->bits);
		free(st);
	}
	if (!lent)
		free(d->scenarios);
	free(d->waiver_used);
	free(d->regressed);
	free(d->within_noise);
	free(d->waived);
	free(d->unmatched);
	free(d->unmatched_lookalike);
	free(d);
}

