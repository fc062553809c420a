#ifndef MEMGATE_APPROVED_H
#define MEMGATE_APPROVED_H
/*
 * The approved decision record a manifest pins (approved_result), read for
 * --require-approved: a parser, so that check reads it without depending on
 * the record renderer (record.c), which renders check's result.
 */
#include <stddef.h>
#include "error.h"

/*
 * Read an approved decision record (a memgate record, or the seed's stage-75
 * record where "decision" is an object and the candidate is
 * summary.best_candidate) of `len` bytes read from `path`.  Returns 0 with
 * *decision and *selected malloc'd (selected may be NULL), or MG_ERROR with
 * err at the position (both NULL).
 */
int mg_approved_read(char **decision, char **selected, const char *path, const char *text,
		     size_t len, mg_error *err);

/*
 * The evidence a memgate record names: *report_sha256 its
 * inputs.report.sha256, *measured_commit its evidence.measured_commit, each
 * malloc'd, or NULL where the record has none (a seed record, a policy
 * without evidence.inputs, text that is not a record).  Returns nothing to
 * fail on: a record mg_approved_read refused names nothing.
 */
void mg_approved_evidence(char **report_sha256, char **measured_commit, const char *text,
			  size_t len);

#endif
