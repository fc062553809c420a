#ifndef MEMGATE_CHECK_EVIDENCE_H
#define MEMGATE_CHECK_EVIDENCE_H
/*
 * The evidence of a run (check_evidence.c): the manifest, its signature,
 * the report, the approved result, and whether evidence.inputs changed
 * since the measurement.  What is wrong with them is an issue in run->pre.
 */
#include "memgate/error.h"
#include "check_run.h"

/* Read the report named by `path` at --rev into res->report (a Git LFS
 * pointer through the local store); `from`/`pos` name where it was named. */
int mg_check__load_report(struct run *run, mg_blob *blob, const char *path,
			  const char *from, mg_pos pos, mg_error *err);

/* Read the policy's manifest and everything it pins, or its report. */
int mg_check__load_evidence(struct run *run, mg_error *err);

/* evidence.inputs: compare its paths between the manifest's
 * measured.commit and the gated commit. */
int mg_check__check_measured(struct run *run, mg_error *err);

#endif
