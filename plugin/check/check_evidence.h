#ifndef MEMGATE_CHECK_EVIDENCE_H
#define MEMGATE_CHECK_EVIDENCE_H
/*
 * The evidence of a run (check_evidence.c): the manifest, its signature,
 * the report, and whether evidence.inputs changed since the measurement;
 * the approval (check_approval.c).  What is wrong with them is an issue in
 * run->pre.
 */
#include "memgate/error.h"
#include "check_run.h"
#include "history_read.h"

/* Read the report named by `path` at --rev into res->report (a Git LFS
 * pointer through the local store); `from`/`pos` name where it was named. */
int mg_check__load_report(struct run *run, mg_blob *blob, const char *path,
			  const char *from, mg_pos pos, mg_error *err);

/* Read the policy's manifest and everything it pins, or its report. */
int mg_check__load_evidence(struct run *run, mg_error *err);

/*
 * The approval, once the manifest (res->manifest, its SHA-256 in
 * res->manifest_ref) is read: with --require-approved the approval beside
 * the manifest and its approver's signature (approved_result_missing,
 * approval_of_other_evidence, approval_unverified), else or without one the
 * manifest's legacy approved_result.  0, or MG_ERROR for an approval or
 * record that cannot be read (at its position).
 */
int mg_check__load_approved(struct run *run, mg_error *err);

/* evidence.inputs: compare its paths between the manifest's
 * measured.commit and the gated commit. */
int mg_check__check_measured(struct run *run, mg_error *err);

/* Place and time of the evidence against the base's (evidence_out_of_place,
 * measured_commit_behind_base), and the warning for provenance without
 * evidence.inputs. */
int mg_check__check_custody(struct run *run, mg_error *err);

/*
 * What a check of a policy reads, written once, beside its readers: a
 * check reads nothing else.  check --all --changed (plan.c) calls a policy
 * unchanged only when none of these differs between --policy-rev and
 * --rev, so an input a later feature reads is added here, or --changed
 * would skip a change that decides.
 *
 * `paths`: the repository paths read (the policy, its manifest or report,
 * the report and approved result the manifest names, the signature and
 * the allowed signers with provenance).  `specs`: pathspecs whose trees
 * the check compares (evidence.inputs).  `moving`: when not NULL, the
 * decision also reads what moves without the change (the base's history),
 * so the policy is never unchanged; it says why.
 */
#define MG_CHECK_INPUT_PATHS 9
typedef struct mg_check_inputs {
	const char *paths[MG_CHECK_INPUT_PATHS];
	size_t path_count;
	char *const *specs;
	size_t spec_count;
	const char *moving;
	char *sig_path;              /* owned: paths[] may point at it */
	char *approval_path;         /* owned, as sig_path: MANIFEST.approved.json */
	char *approval_sig_path;     /* owned, as sig_path: its .sig */
} mg_check_inputs;

/*
 * The inputs of a check of the policy `p` whose manifest, read at --rev, is
 * `m` (NULL when p names its report, or the manifest does not parse: then
 * what it would name is unknown and the caller gates the policy).  Borrows
 * from p and m; free with mg_check__inputs_free.
 */
void mg_check__inputs(mg_check_inputs *out, const mg_policy *p, const mg_manifest *m);
void mg_check__inputs_free(mg_check_inputs *in);

/*
 * regression.history (memgate(1), REGRESSIONS AND HISTORY): a version of
 * the base's report counts only when, at its commit, the deciding policy's
 * manifest pins its bytes (a policy naming its report has none to pin),
 * its identity is the one the policy pins (mg_identity_matches), and, when
 * the policy requires provenance, the manifest's signature there verifies
 * under the allowed signers the check reads.  The gate borrows the run.
 * mg_check__history_gate: 0, or MG_ERROR when the allowed signers cannot
 * be read; free with mg_check__history_gate_free (accepts NULL).
 * mg_check__history_accept is its mg_history_accept_fn (history_read.h).
 */
typedef struct mg_check_history_gate mg_check_history_gate;
int mg_check__history_gate(mg_check_history_gate **out, struct run *run, mg_error *err);
void mg_check__history_gate_free(mg_check_history_gate *g);
int mg_check__history_accept(void *ctx, const mg_repo_version *v, const void *data,
			     size_t len, const mg_report *r, mg_error *err);

#endif
