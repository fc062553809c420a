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

/* An approval signature problem: approval_unverified when the policy
 * requires signatures or names approvers, else a warning. */
static void approval_problem(struct run *run, bool at_signers, mg_pos at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void approval_problem(struct run *run, bool at_signers, mg_pos at, const char *fmt, ...)
{
	mg_check_signature *s = &run->res->approval_sig;
	mg_buf b = MG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s->issue = MG_ISSUE_APPROVAL_UNVERIFIED;
	s->at_signers = at_signers;
	s->at = at;
	s->problem = mg_buf_detach(&b, NULL);
	if (s->required)
		run->pre[MG_ISSUE_APPROVAL_UNVERIFIED] = true;
	else
		mg_check__add_warning(run->res, "%s: %s (provenance.require is false and the "
				      "policy names no provenance.approvers)",
				      mg_issue_name(MG_ISSUE_APPROVAL_UNVERIFIED), s->problem);
}

/* Who approved: the allowed signers' verdict on the approval's key, in
 * namespace memgate-approve, for provenance.approvers. */
static int judge_approver(struct run *run, const mg_signers *signers, const mg_sshsig *sig,
			  mg_error *err)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = &res->approval_sig;
	const mg_policy *p = res->policy;
	const char *file = s->signers_ref.path;
	const unsigned char *key;
	mg_buf who = MG_BUF_INIT;
	mg_signers_match m;
	long long now = 0;
	size_t i, len;

	if (mg_signers_day_start(&now, res->today) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read the day '%s'", res->today);
	key = mg_sshsig_key(sig, &len);
	m = mg_signers_find_for(signers, key, len, MG_APPROVED_NAMESPACE, now,
				(const char *const *)p->approvers, p->approver_count);
	if (m.principals)
		s->principals = mg_xstrdup(m.principals);
	for (i = 0; i < p->approver_count; i++)
		mg_buf_printf(&who, "%s%s", i ? ", " : "", p->approvers[i]);
	switch (m.verdict) {
	case MG_SIGNERS_ALLOWED:
		s->verified = true;
		break;
	case MG_SIGNERS_PRINCIPAL:
		approval_problem(run, true, m.pos, "the approval is signed by %s, which '%s' lists "
				 "for '%s' only, none of the principals provenance.approvers names "
				 "(%s): a runner's key cannot approve", s->key, file, m.principals,
				 who.ptr);
		break;
	case MG_SIGNERS_UNKNOWN_KEY:
		approval_problem(run, true, (mg_pos){ 1, 1 }, "the approval is signed by %s, which "
				 "'%s' (at %s) does not list", s->key, file,
				 mg_check__short_id(run->trust_rev ? run->trust_rev
							       : res->policy_rev).hex);
		break;
	case MG_SIGNERS_NAMESPACE:
		approval_problem(run, true, m.pos, "the approval's key %s is listed for '%s' only "
				 "for other namespaces than '%s'", s->key, m.principals,
				 MG_APPROVED_NAMESPACE);
		break;
	default:
		approval_problem(run, true, m.pos, "the approval's key of '%s' is %s on %s "
				 "(%s=\"%s\")", m.principals, m.verdict == MG_SIGNERS_EXPIRED ?
				 "expired" : "not yet valid", res->today, m.verdict ==
				 MG_SIGNERS_EXPIRED ? "valid-before" : "valid-after", m.when);
		break;
	}
	mg_buf_free(&who);
	return MG_OK;
}

/* Check the approval's signature text against its bytes and the signers. */
static int judge_approval_signature(struct run *run, const mg_signers *signers,
				    const mg_blob *sigblob, const mg_blob *approval, mg_error *err)
{
	mg_check_signature *s = &run->res->approval_sig;
	mg_sshsig *sig = NULL;
	mg_buf key = MG_BUF_INIT;
	mg_error why;
	int rc, error = MG_OK;

	mg_error_clear(&why);
	if (mg_sshsig_parse(&sig, s->sig_ref.path, sigblob->data, sigblob->len, &why) < 0) {
		approval_problem(run, false, (mg_pos){ why.line, why.column }, "the approval's "
				 "signature cannot be read: %s", why.message);
		goto done;
	}
	mg_buf_printf(&key, "%s %s", mg_sshsig_key_type(sig), mg_sshsig_fingerprint(sig));
	s->key = mg_buf_detach(&key, NULL);
	rc = mg_sshsig_verify(sig, approval->data, approval->len, MG_APPROVED_NAMESPACE, &why);
	if (rc == MG_SSHSIG_ENAMESPACE)
		approval_problem(run, false, (mg_pos){ 1, 1 }, "the approval is %s (a manifest's "
				 "signature is not an approval)", why.message);
	else if (rc == MG_SSHSIG_EBADSIG)
		approval_problem(run, false, (mg_pos){ 1, 1 }, "%s: the approval changed after it "
				 "was signed, or the signature was made for another one",
				 why.message);
	else if (rc < 0)
		error = mg_error_set(err, s->sig_ref.path, 0, 0, "%s", why.message);
	else
		error = judge_approver(run, signers, sig, err);
done:
	mg_sshsig_free(sig);
	return error;
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
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_check_signature *s = &res->approval_sig;
	mg_blob signers_blob = { 0 }, sigblob = { 0 };
	mg_signers *signers = NULL;
	mg_buf path = MG_BUF_INIT;
	const char *hint;
	int error;

	if (!p->provenance_set)
		return MG_OK;
	s->checked = true;
	s->required = p->sig_required || p->approver_count;
	error = mg_check__read_input(&signers_blob, run, &s->signers_ref,
				     run->trust_rev ? run->trust_rev : res->policy_rev,
				     p->allowed_signers, p->path, p->allowed_signers_pos, false, err);
	if (error < 0 ||
	    (error = mg_signers_parse(&signers, p->allowed_signers, signers_blob.data,
				      signers_blob.len, err)) < 0)
		goto done;
	mg_buf_printf(&path, "%s.sig", res->approval_path);
	error = mg_check__read_input(&sigblob, run, &s->sig_ref, res->rev, path.ptr,
				     res->approval_path, (mg_pos){ 0, 0 }, true, err);
	if (error == MG_ENOTFOUND) {
		mg_error_clear(err);
		free(s->sig_ref.path);
		s->sig_ref.path = mg_buf_detach(&path, NULL);
		hint = res->worktree ? NULL : mg_repo_uncommitted_hint(run->repo, s->sig_ref.path);
		approval_problem(run, false, (mg_pos){ 0, 0 }, "no signature '%s' at %s for the "
				 "approval%s%s", s->sig_ref.path, res->worktree ? "the working tree"
				 : mg_check__short_id(res->rev).hex, hint ? "; " : "",
				 hint ? hint : "");
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	error = judge_approval_signature(run, signers, &sigblob, approval, err);
done:
	mg_buf_free(&path);
	mg_signers_free(signers);
	mg_blob_release(&sigblob);
	mg_blob_release(&signers_blob);
	return error;
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

