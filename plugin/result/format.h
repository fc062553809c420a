#ifndef MEMGATE_FORMAT_H
#define MEMGATE_FORMAT_H
/*
 * How every renderer for people writes numbers and candidate names (text,
 * GitHub annotations, job summary, JUnit), so that they all agree.
 */
#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/error.h"
#include "memgate/insight.h"
#include "number.h"   /* mg_format_exact */

/* A value in its shortest natural form: %.15g (9450.76, not 9450.760000),
 * never "-0".  When that takes more than 10 significant digits (derived
 * ratios, float noise such as 331.97999999999956), 6 digits, unless with
 * `limit` they would compare with *limit differently from the exact value
 * (0.69999999999 stays, not "0.7 < 0.7"). */
void mg_format_value(mg_buf *out, double v, const double *limit);

/* A threshold as written: %.15g, never "-0". */
void mg_format_threshold(mg_buf *out, double v);

/* A candidate name escaped with mg_escape_text; "(no name)" for NULL and
 * "(empty name)" for "". */
void mg_format_name(mg_buf *out, const char *name);

/*
 * What sensitivity says, in words that agree with the decision: the base
 * winner against each scenario's winner (what the decision compares), not
 * the seed's scenario-to-scenario counters.  One of:
 *   "not evaluated: the decision stopped at the evidence or the baseline"
 *   "not tested: the policy has no sensitivity scenarios"
 *   "selection stable: checkpoint wins all 6 scenarios" (or "the only
 *    scenario")[; the feasible set changes in 2 of them, the selection does
 *    not]"
 *   "selection sensitive: checkpoint wins 4 of 6 scenarios"
 *   "no winner to be stable: no candidate is feasible under the base budget
 *    or in any of the 6 scenarios"
 *   "no winner under the base budget; 2 of 6 scenarios have one (they do
 *    not change this decision)"
 * Names are written with `put_name` (the renderer's own escaping).
 */
void mg_format_stability(mg_buf *out, const mg_decision *d,
			 void (*put_name)(mg_buf *out, const char *name));

/* Where a finding points, before its message: "file:line:col: ", "file:line: "
 * without a column, "file: " without a line, nothing without a file.  The
 * file is written with `put_file` (the renderer's own escaping). */
void mg_format_location(mg_buf *out, const char *file, mg_pos pos,
			void (*put_file)(mg_buf *out, const char *file));

/* A scenario's overrides: "memory_cap_mb 8500, min_samples_per_s 1.5";
 * nothing when it sets none. */
void mg_format_overrides(mg_buf *out, const mg_budget *ov);

/* A tipping point's knob: "min_memory_saving_mb 512" or
 * "sensitivity.grid memory_cap_mb[1] 11200". */
void mg_format_knob(mg_buf *out, const mg_tipping *tp);

/* One direction of a tipping point: "at 331.98 (exact 331.97999999999956):
 * accept (selection_stable_across_thresholds), selected checkpoint" when
 * the value itself changes the outcome, "below 9450.76: ..." / "above
 * 1.761: ..." when only values strictly beyond it do (the value itself
 * keeps the current outcome), or "no change" / "no change within the
 * nearest 32 values (search limit)".  Names are written with `put_name`. */
void mg_format_tip(mg_buf *out, const mg_tip *t,
		   void (*put_name)(mg_buf *out, const char *name));

/* An exchange rate: "26.8931 MB per 1% throughput", "free" or "unknown". */
void mg_format_exchange(mg_buf *out, const mg_evaluation *e);

#endif
