#ifndef MEMGATE_APPROVE_H
#define MEMGATE_APPROVE_H
/*
 * memgate approve (memgate(1), CI, "Release gates"): decide the evidence committed
 * at HEAD, write its decision record and pin it as the manifest's
 * approved_result (path and SHA-256), in one output transaction: both
 * files or neither.  Refused (nothing written) unless the record is one
 * that `memgate check --require-approved` with the same --fail-on accepts
 * once both are committed: the evidence applies, the decision is not
 * reject and not in the gate's fail_on.  A front end above check, record,
 * manifest and output; it does not print.
 */
#include <stdbool.h>
#include "check.h"
#include "error.h"
#include "output.h"

typedef struct mg_approve_options {
	mg_check_options check;    /* -C, --policy, --fail-on, --today, --max-input-mb;
				      rev, policy_rev and worktree are ignored: the
				      evidence and policy are HEAD's */
	const char *out_path;      /* the record's file, relative to the current directory */
} mg_approve_options;

typedef struct mg_approval {
	mg_check_result *result;   /* the decision approved (its record is the file) */
	char *record_path;         /* the record as a repository path (approved_result.path) */
	char record_sha256[MG_CHECK_SHA256_SIZE];
	char *manifest_file;       /* the manifest, as a path from the current directory */
	char *record_file;         /* the record, as a path from the current directory */
	bool record_unchanged;     /* the file already held this record */
	bool manifest_unchanged;   /* the working-tree manifest already pinned it */
} mg_approval;

/*
 * Approve.  Returns 0 with *out the caller's (mg_approve_free) once both
 * files are in place, or MG_ERROR (exit 2) with err saying why nothing was
 * written: the check's own errors, a policy without a manifest, a bare
 * repository, evidence that does not apply, a reject, a decision the gate
 * fails on, an --out outside the working tree or naming an input, an --out
 * holding another record (records are write-once), a working-tree manifest
 * with uncommitted edits, or an output that could not be written.
 */
int mg_approve_run(mg_approval **out, const mg_approve_options *opt, mg_error *err);
void mg_approve_free(mg_approval *a);

/*
 * memgate approve --all: approve every policy committed at HEAD (memgate
 * list) as mg_approve_run approves one, each with its own record: the file
 * named opt->out_path (a file name, no directory) in the directory of that
 * policy's manifest.  One output transaction for every record and
 * manifest: all are written, or none.  opt->check.policy_path is ignored.
 * Returns 0 with *out (*count approvals in the order memgate list gives,
 * the caller's: mg_approve_free_all), or MG_ERROR with nothing written and
 * err saying why: a bad file name, no policy at HEAD, or how many policies
 * were refused; then *refused (the caller's, free()) holds each refused
 * policy's error (its file is the policy when the error names no other
 * input), *refused_count of them.  Refused also: two policies whose
 * records would be the same file (manifests in one directory), and a
 * record that is another policy's input.
 */
int mg_approve_run_all(mg_approval ***out, size_t *count, mg_error **refused,
		       size_t *refused_count, const mg_approve_options *opt, mg_error *err);
void mg_approve_free_all(mg_approval **a, size_t count);

/*
 * Records are write-once (memgate record --out, memgate approve --out):
 * queue the decision record `fresh` for path in outs, unless the file
 * already holds the same record (mg_record_same); then *kept is the file's
 * bytes (the caller's), else NULL.  MG_ERROR, naming path, when the file
 * holds a different record or one that cannot be compared.
 */
int mg_record_queue_once(char **kept, mg_outputs *outs, const char *path, const char *fresh,
			 mg_error *err);

#endif
