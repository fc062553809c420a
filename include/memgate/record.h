#ifndef MEMGATE_RECORD_H
#define MEMGATE_RECORD_H
/* The decision record (memgate(1), DECISION RECORD): JSON, its small
 * parts built with cJSON, its evaluations and scenarios streamed. */
#include <stdbool.h>
#include "buf.h"
#include "result.h"
#include "error.h"

#define MG_RECORD_SCHEMA "memgate-decision/v3"

#define MG_RECORD_SET_SCHEMA "memgate-decisions/v1"

/*
 * Write the record as JSON ending in a newline to `sink` (a tab per level,
 * but a line per evaluation and per scenario), in pieces of a few hundred
 * kilobytes: a record of 10^5 evaluations is tens of megabytes, and is
 * never held whole.  Returns MG_OK, or MG_ERROR
 * when the sink failed (errno is the sink's).
 */
int mg_record_write(const mg_check_result *r, mg_sink sink, void *ctx);

/* The same record, held whole; the caller frees. */
char *mg_record_render(const mg_check_result *r);

/*
 * The repository paths of the inputs the record names (inputs.policy,
 * .manifest, .report, .approved_result: those that were read), then the
 * paths of evidence.inputs that changed since the measured commit
 * (evidence.stale_inputs), one per line in that order, each ending in a
 * newline (memgate check --inputs).  The first obey the repository path
 * rules; a changed path holding a control character is left out; so none
 * holds a newline.  They are written as they are, unescaped.  The caller
 * frees.
 */
char *mg_record_render_inputs(const mg_check_result *r);

/*
 * Several policies (check --all, a repeated --policy) in one record:
 * {"schema_version": "memgate-decisions/v1", "passed", "exit_status" (the
 * worst of the policies': 2 > 1 > 0), "policies": [{"policy", "exit_status",
 * "error" (null, or the message when it could not be decided), "record"
 * (the policy's decision record, or null)}]}, streamed as mg_record_write.
 */
int mg_record_write_set(const mg_check_item *items, size_t count, mg_sink sink, void *ctx);

/*
 * Compare two records' texts ignoring commit ids (inputs.rev,
 * inputs.*.rev), the manifest and approved-result inputs, the approved
 * check, warnings, notes, the --base comparison, memgate_version and the
 * date waivers were judged on: for `memgate record`'s write-once rule, so that
 * re-recording the same evidence and decision (even after the record was
 * pinned in the manifest) is a no-op.  A memgate-decision/v1 or v2 record
 * equals its v3 form: scenarios' feasible sets compare by size, and by
 * their indices only when both list them; noise bands only for the
 * measured metrics (the others are derived); the layout never counts.
 * Sets *same.
 * Returns MG_ERROR when `existing` is not a JSON object.
 */
int mg_record_same(bool *same, const char *existing, size_t existing_len,
		   const char *fresh, mg_error *err);

#endif
