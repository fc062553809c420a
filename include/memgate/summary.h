#ifndef MEMGATE_SUMMARY_H
#define MEMGATE_SUMMARY_H
/*
 * The job summary: GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY.
 * Input text is escaped so that it cannot break a table or inject HTML;
 * the result stays under MG_SUMMARY_MAX bytes (rows are dropped, with a
 * note, to fit).
 *
 * Sections: the decision, gate and checks run; a table of candidates by
 * active checks (value, pass or fail, headroom = signed margin to the
 * threshold, negative when it fails), status and reasons; every finding
 * with its file:line:col; the sensitivity scenarios (overrides, winner,
 * feasible set); the comparison with the base commit (--base); policy
 * changes; notes; warnings; the evidence (commits, paths,
 * blobs, SHA-256).  Returns a malloc'd string to append.
 */
#include "result.h"

#include "limits.h"   /* memgate's (this directory): MG_SUMMARY_MAX */

/* Rows of the "Against the base" table at most (fewer when the summary
 * needs the room); the rest are counted in a line under it. */
#ifndef MG_SUMMARY_BASE_ROWS
#define MG_SUMMARY_BASE_ROWS 1000
#endif

/* Times a summary has been rendered (in this process), counting the
 * passes that drop rows to fit MG_SUMMARY_MAX: for tests that count work. */
extern size_t mg_summary_render_passes;

char *mg_summary_render(const mg_check_result *r);

/* When memgate could not decide (exit 2): a short summary that says so and
 * names the error with its file, line and column.  Malloc'd. */
char *mg_summary_render_error(const mg_error *err);

/* Several policies (check --all): a table with a row per policy (decision,
 * reason, selected candidate, gate), then each decided policy's summary,
 * all of it within MG_SUMMARY_MAX bytes. */
char *mg_summary_render_set(const mg_check_item *items, size_t count);

/* check --all: the policies --changed left unchanged (one line), then a
 * quoted warning line per policy the change retires (mg_plan), to go
 * before the set's summary.  Malloc'd, "" when none. */
char *mg_summary_render_plan(const mg_plan *plan);

#endif
