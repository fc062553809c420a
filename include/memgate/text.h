#ifndef MEMGATE_TEXT_H
#define MEMGATE_TEXT_H
/* The text rendering for people. */
#include "result.h"

/* The decision and its reason, the winner, one row per candidate with each
 * active check's value against its threshold, the reasons, sensitivity and
 * warnings.  Untrusted text (names, paths) has control characters escaped.
 * Returns a malloc'd string; the caller frees. */
char *mg_text_render(const mg_check_result *r);

/* Does mg_text_render(r) list findings (findings.h)?  Only then must r's be
 * computed (mg_check_options.no_findings): the evidence issues of a
 * decision that is not applicable, the regressions when they were
 * compared, a proposed policy that fails its evidence. */
bool mg_text_reads_findings(const mg_check_result *r);

/* Several policies (check --all): "policy <path>" and its rendering (or
 * its error) for each, then a table with a row per policy: decision,
 * reason, selected candidate and gate (or the error). */
char *mg_text_render_set(const mg_check_item *items, size_t count);

#endif
