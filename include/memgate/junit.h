#ifndef MEMGATE_JUNIT_H
#define MEMGATE_JUNIT_H
/*
 * JUnit XML for GitLab (artifacts:reports:junit) and Jenkins: one test case
 * for the evidence, one per candidate, one for sensitivity and one for the
 * decision.  Always at least one test case; XML-escaped, free of characters
 * XML 1.0 cannot carry.
 *
 * The rule: a passing gate writes no <failure>.  A failing gate fails the
 * decision case and the case behind its reason: the evidence
 * (evidence_not_applicable), sensitivity (selection_is_threshold_sensitive),
 * the candidate a `tune` diagnosis names, every screened-out candidate when
 * none meets the base budget, the baseline when it is what is missing.
 * Every other candidate passes when it is selected or feasible (system-out
 * says which, and its rank) and is otherwise <skipped message="not
 * selected: <reasons>">, the findings in system-out.  The baseline's
 * comparisons with itself (mg_finding_self_comparison) are never reasons
 * here.  Evidence that is not applicable on a passing gate, and sensitivity
 * that was not evaluated, are skipped.
 *
 * One suite "memgate"; cases, in order: memgate.evidence/evidence,
 * memgate.candidates/<name> (a failure's message = the reasons, type = the
 * status, text = the findings with file:line:col; system-out = each check's
 * value against its threshold), memgate.sensitivity/sensitivity and
 * memgate.decision/decision (text = every finding and warning).  A
 * candidate without a name is "(unnamed #i)"; a name already used gets
 * " #i" (i = its place in the report) so that GitLab keeps every case.
 * Returns a malloc'd string.
 */
#include "result.h"

/* Bounded like the record: at most MG_JUNIT_MAX_ITEMS candidate cases (in
 * the report's order; past them one skipped case, memgate.candidates/
 * omitted, says how many were left out) and at most as many finding lines
 * in one case's text (then a line says how many more), so the file stays
 * within a constant size whatever the report holds. */
#include "limits.h"  /* memgate's: MG_JUNIT_MAX_ITEMS */
/* The limit in force (tests lower it). */
extern size_t mg_junit_max_items;

char *mg_junit_render(const mg_check_result *r);

/* Several policies (check --all): one suite "memgate: <policy>" per
 * decided item, each case's classname prefixed with "<policy>/" so that
 * GitLab keeps the cases of every policy.  With no item (check --all
 * --changed found every policy unchanged, or the change only retires
 * policies) one suite "memgate" with one passing case, memgate.plan/nothing
 * gated, whose system-out names the policies of `plan` (NULL: none) that
 * were not gated and why, so that the file still holds a test case. */
char *mg_junit_render_set(const mg_check_item *items, size_t count, const mg_plan *plan);

#endif
