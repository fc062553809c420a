#ifndef MEMGATE_APPROVE_H
#define MEMGATE_APPROVE_H
/*
 * memgate approve (memgate(1), CI, "Release gates"): decide the evidence
 * committed at HEAD and write the approval beside the manifest,
 * MANIFEST.approved.json (approved.h): the decision record and the
 * manifest's SHA-256, which binds the exact evidence approved (the report
 * and the measured commit with it).  The runner-signed manifest is never
 * touched.  With a key, the approval is signed by a person in namespace
 * memgate-approve into MANIFEST.approved.json.sig, verified as memgate
 * check verifies it (provenance.approvers) before anything is written.
 * One output transaction: every file or none.  Refused (nothing written)
 * unless the approval is one that `memgate check --require-approved` with
 * the same --fail-on accepts once committed: the evidence applies, the
 * decision is not reject and not in the gate's fail_on.  A front end above
 * check, sign, record and output; it does not print.
 */
#include <stdbool.h>
#include "check.h"
#include "error.h"
#include "output.h"

typedef struct mg_approve_options {
	mg_check_options check;      /* -C, --policy, --fail-on, --today, --max-input-mb;
					rev, policy_rev and worktree are ignored: the
					evidence and policy are HEAD's */
	const char *sign_key;        /* --sign KEY: memgate sign's --key; NULL: unsigned */
	const char *allowed_signers; /* --allowed-signers FILE (memgate sign's) */
	const char *ssh_keygen;      /* --ssh-keygen PROGRAM (memgate sign's) */
} mg_approve_options;

typedef struct mg_approval {
	mg_check_result *result;   /* the decision approved (its record is in the file) */
	char *approval_path;       /* MANIFEST.approved.json, a repository path */
	char *approval_file;       /* the same file, as a path from the current directory */
	char *manifest_file;       /* the manifest, as a path from the current directory */
	char approval_sha256[MG_CHECK_SHA256_SIZE];
	bool unchanged;            /* the file already approved this manifest (its SHA-256)
				      with this decision: kept byte for byte */
	char *sig_file;            /* MANIFEST.approved.json.sig from the current directory */
	bool sig_written;          /* signed now (--sign): signer and key set */
	char *signer;              /* the allowed-signers line's principals */
	char *signer_key;          /* "ssh-ed25519 SHA256:..." */
	char *signers_file;        /* the allowed signers it was verified against */
	bool sig_stale;            /* unsigned now, and a .sig is there for an earlier approval */
	bool sig_kept;             /* unsigned now, the approval unchanged and a .sig beside it */
} mg_approval;

/*
 * Approve.  Returns 0 with *out the caller's (mg_approve_free) once the
 * files are in place, or MG_ERROR (exit 2) with err saying why nothing was
 * written: the check's own errors, a policy without a manifest, a bare
 * repository, evidence that does not apply, a reject, a decision the gate
 * fails on, an approval path that is an input, a signature memgate check
 * would refuse (another namespace, a key not listed, a principal
 * provenance.approvers does not name), or an output that could not be
 * written.
 */
int mg_approve_run(mg_approval **out, const mg_approve_options *opt, mg_error *err);
void mg_approve_free(mg_approval *a);

/*
 * memgate approve --all: approve every policy committed at HEAD (memgate
 * list) as mg_approve_run approves one, each approval beside its policy's
 * manifest.  One output transaction for every approval and signature: all
 * are written, or none.  opt->check.policy_path is ignored.  Returns 0 with
 * *out (*count approvals in the order memgate list gives, the caller's:
 * mg_approve_free_all), or MG_ERROR with nothing written and err saying
 * why: no policy at HEAD, or how many policies were refused; then
 * *refused (the caller's, free()) holds each refused policy's error (its
 * file is the policy when the error names no other input),
 * *refused_count of them.  Refused also: two policies sharing a manifest
 * (their approvals would be one file), and an approval that is another
 * policy's input.
 */
int mg_approve_run_all(mg_approval ***out, size_t *count, mg_error **refused,
		       size_t *refused_count, const mg_approve_options *opt, mg_error *err);
void mg_approve_free_all(mg_approval **a, size_t count);

/*
 * Records are write-once (memgate record --out): queue the decision record
 * `fresh` for path in outs, unless the file already holds the same record
 * (mg_record_same); then *kept is the file's bytes (the caller's), else
 * NULL.  MG_ERROR, naming path, when the file holds a different record or
 * one that cannot be compared.
 */
int mg_record_queue_once(char **kept, mg_outputs *outs, const char *path, const char *fresh,
			 mg_error *err);

#endif
