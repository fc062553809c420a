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

/*
 * The approval memgate approve writes beside the manifest (memgate(1),
 * "Release gates"): MANIFEST.approved.json, signed by a person in its own
 * namespace into MANIFEST.approved.json.sig.  It never touches the
 * runner-signed manifest; it binds the exact evidence it approves by the
 * manifest's SHA-256 (hence the report's and the measured commit):
 *
 *   { "memgate_approval": 1,
 *     "manifest": { "path": "results/75_input_manifest.json", "sha256": "<64 hex>" },
 *     "record": { the decision record, as memgate record writes it } }
 */
#define MG_APPROVED_NAMESPACE "memgate-approve"   /* the approval's SSHSIG namespace */
#define MG_APPROVED_VERSION 1                      /* memgate_approval */

typedef struct mg_approved_file {
	char *manifest_path;      /* manifest.path, as approved */
	char *manifest_sha256;    /* manifest.sha256: the evidence approved */
	mg_pos manifest_sha256_pos;
	char *decision;           /* record.decision: accept, tune or reject */
	char *selected;           /* record.selected_candidate, NULL for null */
	mg_pos record_pos;        /* where the record starts */
} mg_approved_file;

/*
 * Read an approval of `len` bytes read from `path`.  Returns 0 with *out the
 * caller's (mg_approved_file_free), or MG_ERROR with err at the position of
 * what is wrong (*out NULL): not a JSON object, an unknown key, a missing or
 * mistyped member, another memgate_approval than 1, a sha256 that is not 64
 * lowercase hex digits, a record mg_approved_read refuses.
 */
int mg_approved_file_parse(mg_approved_file **out, const char *path, const char *text,
			   size_t len, mg_error *err);
void mg_approved_file_free(mg_approved_file *a);

/*
 * The approval's text (above) for the manifest at `manifest_path` with
 * SHA-256 `manifest_sha256` (hex) and the decision record `record` (a JSON
 * object as mg_record_render writes it), ending in a newline.  The caller
 * frees it.
 */
char *mg_approved_file_render(const char *manifest_path, const char *manifest_sha256,
			      const char *record);

/* The approval's path for the manifest at `manifest`: its name without a
 * final ".json", then ".approved.json" (results/75_input_manifest.json ->
 * results/75_input_manifest.approved.json).  The caller frees it. */
char *mg_approved_file_path(const char *manifest);

#endif
