/*
 * The approval of memgate check --require-approved: the approval beside
 * the manifest (MANIFEST.approved.json, memgate approve) and its signature
 * by an approver, or the manifest's legacy approved_result.  See
 * check_evidence.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "digest.h"
#include "git.h"
#include "check_run.h"
#include "check_evidence.h"

/* Whether the approved record names other evidence than the manifest pins
 * now: another report's SHA-256, or (where the record names one) another
 * measured commit.  A record that names neither is judged on its decision only. */
static bool other_evidence(const mg_check_result *res)
{
	const mg_manifest *m = res->manifest;
	const char *mine = res->approved_measured_commit;

	if (res->approved_report_sha256 && strcmp(res->approved_report_sha256, m->source_sha256))
		return true;
	return mine && (!m->measured_commit || strcmp(mine, m->measured_commit));
}

/* The manifest's legacy approved_result (memgate approve before approvals
 * had a file of their own): missing is an issue, not an error; a
 * mismatching hash is an issue.  With --require-approved, also read its
 * decision. */
static int load_legacy_approved(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;
	mg_blob blob = { 0 };
	int error;

	error = mg_check__read_input(&blob, run, &res->approved_ref, res->rev, m->approved_path,
				     m->path, m->approved_path_pos, true, err);
	if (error == MG_ENOTFOUND) {
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		if (!res->worktree)
			res->approved_hint = mg_repo_uncommitted_hint(run->repo, m->approved_path);
		mg_check__add_warning(res, "approved result '%s' is not in %s%s%s", m->approved_path,
				      res->worktree ? "the working tree"
						    : mg_check__short_id(res->rev).hex,
				      res->approved_hint ? "; " : "",
				      res->approved_hint ? res->approved_hint : "");
		mg_error_clear(err);
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	if (mg_digest_sha256_hex(res->approved_ref.sha256, blob.data, blob.len) < 0) {
		error = mg_error_set(err, m->approved_path, 0, 0,
				     "cannot compute SHA-256 (OpenSSL failed)");
		goto done;
	}
	if (strcmp(res->approved_ref.sha256, m->approved_sha256)) {
		run->pre[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH] = true;
		goto done;
	}
	if (!run->opt->require_approved)
		goto done;
	error = mg_approved_read(&res->approved_decision, &res->approved_selected,
				 m->approved_path, blob.data, blob.len, err);
	if (error < 0)
		goto done;
	mg_approved_evidence(&res->approved_report_sha256, &res->approved_measured_commit,
			     blob.data, blob.len);
	run->pre[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] = other_evidence(res);
done:
	mg_blob_release(&blob);
	return error;
}

/* ---- the approval's signature ---- */

/* The approval as a signed link (check_evidence.h): a person's signature in
 * memgate-approve, by a principal of provenance.approvers. */
mg_check_link mg_check__approval_link(struct run *run)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_check_link l = {
		.s = &res->approval_sig,
		.signed_path = res->approval_path,
		.namespace = MG_APPROVED_NAMESPACE,
		.principals = (const char *const *)p->approvers,
		.principal_count = p->approver_count,
		.issue = {
			[MG_LINK_MISSING] = MG_ISSUE_APPROVAL_UNVERIFIED,
			[MG_LINK_MALFORMED] = MG_ISSUE_APPROVAL_UNVERIFIED,
			[MG_LINK_INVALID] = MG_ISSUE_APPROVAL_UNVERIFIED,
			[MG_LINK_NAMESPACE] = MG_ISSUE_APPROVAL_UNVERIFIED,
			[MG_LINK_SIGNER_UNKNOWN] = MG_ISSUE_APPROVAL_UNVERIFIED,
			[MG_LINK_OUTSIDE_VALIDITY] = MG_ISSUE_APPROVAL_UNVERIFIED,
		},
		.required = p->sig_required || p->approver_count,
		.warn_uncommitted_signers = false,   /* the manifest's link warns */
		.noun = "approval",
		.key_noun = "the approval's key",
		.principals_key = "provenance.approvers",
		.principal_why = ": a runner's key cannot approve",
		.namespace_why = " (a manifest's signature is not an approval)",
		.unreadable = "the approval's signature cannot be read: ",
		.optional = "provenance.require is false and the policy names no "
			    "provenance.approvers",
		.signer = "an approver's key",
	};

	return l;
}

/*
 * The approval's signature, when the policy that decides has a provenance
 * section: MANIFEST.approved.json.sig at --rev, verified in namespace
 * memgate-approve against the allowed signers at the policy revision (the
 * base's: trust never comes from the change gated), by a principal
 * provenance.approvers names.  A problem is approval_unverified when the
 * policy requires signatures or names approvers, else a warning.
 */
static int load_approval_signature(struct run *run, const mg_blob *approval, mg_error *err)
{
	mg_check_link l;

	if (!run->res->policy->provenance_set)
		return MG_OK;
	l = mg_check__approval_link(run);
	return mg_check__load_link(run, &l, approval, err);
}

/*
 * The approval, with --require-approved: MANIFEST.approved.json at --rev
 * (memgate approve), bound to the manifest by its SHA-256 and signed in its
 * own namespace.  A manifest without one that pins a legacy
 * approved_result is read as before, with a warning saying how to move;
 * without either, approved_result_missing.  Without --require-approved
 * only a legacy approved_result is checked (its hash), as it always was.
 * 0 or MG_ERROR (a malformed approval, at its position).
 */
int mg_check__load_approved(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;
	mg_approved_file *a = NULL;
	mg_blob blob = { 0 };
	const char *path;
	int error;

	if (run->opt->ignore_approved)
		return MG_OK;
	if (!run->opt->require_approved)
		return m->has_approved ? load_legacy_approved(run, err) : MG_OK;
	path = res->approval_path = mg_approved_file_path(res->policy->manifest);
	error = mg_check__read_input(&blob, run, &res->approved_ref, res->rev, path, m->path,
				     (mg_pos){ 0, 0 }, true, err);
	if (error == MG_ENOTFOUND && m->has_approved) {
		mg_error_clear(err);
		free(res->approved_ref.path);
		res->approved_ref.path = NULL;
		mg_check__add_warning_pos(res, m->path, m->approved_path_pos, "the manifest pins a "
					  "legacy approved_result, read as before; to move, run "
					  "memgate approve, which writes the approval to '%s' beside "
					  "the manifest and never touches it, and drop approved_result "
					  "from the manifest when it is next measured and signed", path);
		free(res->approval_path);
		res->approval_path = NULL;
		return load_legacy_approved(run, err);
	}
	if (error == MG_ENOTFOUND) {
		mg_error_clear(err);
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		if (!res->worktree)
			res->approved_hint = mg_repo_uncommitted_hint(run->repo, path);
		return MG_OK;
	}
	if (error < 0)
		goto done;
	if (m->has_approved)
		mg_check__add_warning_pos(res, m->path, m->approved_path_pos, "the manifest's "
					  "legacy approved_result '%s' is not read: the approval is "
					  "'%s'; drop approved_result from the manifest when it is "
					  "next measured and signed", m->approved_path, path);
	if (mg_digest_sha256_hex(res->approved_ref.sha256, blob.data, blob.len) < 0) {
		error = mg_error_set(err, path, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
		goto done;
	}
	if ((error = mg_approved_file_parse(&a, path, blob.data, blob.len, err)) < 0)
		goto done;
	res->approved_decision = a->decision;
	res->approved_selected = a->selected;
	res->approved_manifest_sha256 = a->manifest_sha256;
	res->approved_manifest_sha256_pos = a->manifest_sha256_pos;
	a->decision = a->selected = a->manifest_sha256 = NULL;
	run->pre[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] =
		strcmp(res->approved_manifest_sha256, res->manifest_ref.sha256) != 0;
	error = load_approval_signature(run, &blob, err);
done:
	mg_approved_file_free(a);
	mg_blob_release(&blob);
	return error;
}

