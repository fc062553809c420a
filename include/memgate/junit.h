#ifndef MEMGATE_JUNIT_H
#define MEMGATE_JUNIT_H
/*
 * JUnit XML for GitLab (artifacts:reports:junit) and Jenkins: one test case
 * for the evidence, one per candidate, one for sensitivity; failures carry
 * the reasons.  Always at least one test case; XML-escaped, free of
 * characters XML 1.0 cannot carry.
 *
 * One suite "memgate"; cases, in order: memgate.evidence/evidence (fails
 * when the evidence is not applicable), memgate.candidates/<name> per
 * candidate (fails unless feasible: message = reasons, type = status, text =
 * the findings with file:line:col; system-out = each check's value against
 * its threshold, and "selected candidate" for the selected one),
 * memgate.sensitivity/sensitivity (fails on
 * selection_is_threshold_sensitive) and memgate.decision/decision (fails
 * when the gate fails; text = every finding and warning).  A candidate
 * without a name is "(unnamed #i)"; a name already used gets " #i" (i =
 * its place in the report) so that GitLab keeps every case.  Returns a
 * malloc'd string.
 */
#include "check.h"

char *mg_junit_render(const mg_check_result *r);

#endif
