/*
 * memgate approve: include/memgate/approve.h.
 *
 * The check runs as `memgate record` would at HEAD, except that no
 * approval is read (it is what gets written).  Then every refusal is
 * decided, and the approval signed and verified, before anything is
 * written; the approval and its signature go through one output
 * transaction.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "memgate/approve.h"
#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/output.h"
#include "memgate/record.h"
#include "sign.h"

/* " (reason), selected NAME" of the decision, raw text. */
static void put_verdict(mg_buf *b, const mg_decision *d)
{
	mg_buf_printf(b, "%s (%s)", mg_verdict_name(d->verdict), mg_outcome_name(d->reason));
	if (d->selected)
		mg_buf_printf(b, ", selected %s", d->selected);
}

/*
 * Refuse a decision a release gate would not pass with the same --fail-on:
 * evidence that does not apply, a reject, a verdict in fail_on.  Returns 0
 * or MG_ERROR with err saying so and what to do.
 */
static int judge_decision(const mg_check_result *res, const mg_check_options *opt,
			  mg_error *err)
{
	const mg_decision *d = res->decision;
	mg_buf msg = MG_BUF_INIT, list = MG_BUF_INIT;
	const char *rev = res->rev;
	int i, error = MG_ERROR;

	if (!d->applicable) {
		for (i = 0; i < MG_ISSUE_COUNT; i++)
			if (d->issue[i])
				mg_buf_printf(&list, "%s%s", list.len ? ", " : "",
					      mg_issue_name((enum mg_issue)i));
		mg_buf_printf(&msg, "cannot approve: the evidence at %.7s does not apply (%s): a "
			      "release gate rejects it; next action %s", rev, list.ptr,
			      mg_next_action_name(d->next_action));
	} else if (d->verdict == MG_REJECT) {
		mg_buf_printf(&msg, "cannot approve a reject: the evidence at %.7s decides ", rev);
		put_verdict(&msg, d);
		mg_buf_printf(&msg, "; a release gate rejects it; next action %s",
			      mg_next_action_name(d->next_action));
	} else if (!res->passed) {
		for (i = 0; i < MG_VERDICT_COUNT; i++)
			if (res->fail_on[i])
				mg_buf_printf(&list, "%s%s", list.len ? ", " : "",
					      mg_verdict_name((enum mg_verdict)i));
		mg_buf_printf(&msg, "cannot approve: the evidence at %.7s decides ", rev);
		put_verdict(&msg, d);
		mg_buf_printf(&msg, ", which %s fails on (%s), so a release gate with that rule "
			      "refuses it; to release a %s on purpose, approve with the rule the "
			      "release gate uses, e.g. --fail-on reject",
			      opt->fail_on_set ? "--fail-on" : "the policy's gate.fail_on",
			      list.ptr, mg_verdict_name(d->verdict));
	} else {
		error = MG_OK;
	}
	if (error < 0)
		mg_error_set(err, NULL, 0, 0, "%s", msg.ptr);
	mg_buf_free(&msg);
	mg_buf_free(&list);
	return error;
}

/* The approval must not be one of the inputs it is about. */
static int refuse_input(const mg_check_result *res, const char *path, mg_error *err)
{
	const mg_input_ref *refs[] = { &res->policy_ref, &res->manifest_ref, &res->report_ref,
				       &res->signature.sig_ref, &res->signature.signers_ref };
	const char *names[] = { "the policy", "the manifest", "the report",
				"the manifest's signature", "the allowed signers" };
	size_t i;

	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (refs[i]->path && !strcmp(refs[i]->path, path))
			return mg_error_set(err, NULL, 0, 0, "the approval '%s' would overwrite %s "
					    "of '%s': name the manifest otherwise", path, names[i],
					    res->policy_ref.path);
	return MG_OK;
}

int mg_record_queue_once(char **kept, mg_outputs *outs, const char *path, const char *fresh,
			 mg_error *err)
{
	char *existing = NULL;
	size_t len = 0;
	bool same = false;
	int error;

	*kept = NULL;
	if ((error = mg_outputs_read_existing(&existing, &len, outs, path, err)) < 0)
		return error;
	if (!existing) {
		mg_outputs_add(outs, path, fresh, strlen(fresh), MG_OUTPUT_REPLACE);
		return MG_OK;
	}
	if ((error = mg_record_same(&same, existing, len, fresh, err)) < 0) {
		char msg[sizeof(err->message)];

		snprintf(msg, sizeof(msg), "%s", err->message);
		error = mg_error_set(err, path, 0, 0, "%s", msg);
	} else if (!same) {
		error = mg_error_set(err, path, 0, 0, "already holds a different decision record; "
				     "records are write-once: choose a new file name");
	} else {
		*kept = existing;
		existing = NULL;
	}
	free(existing);
	return error;
}

/* Whether the approval `existing` approves what `fresh` does: the same
 * manifest (its SHA-256) with the same decision and candidate.  Then the
 * file, and a signature of it, are kept. */
static bool same_approval(const char *existing, size_t len, const char *fresh)
{
	mg_approved_file *a = NULL, *b = NULL;
	mg_error ignored;
	bool same = mg_approved_file_parse(&a, "existing", existing, len, &ignored) == 0 &&
		    mg_approved_file_parse(&b, "fresh", fresh, strlen(fresh), &ignored) == 0 &&
		    !strcmp(a->manifest_sha256, b->manifest_sha256) &&
		    !strcmp(a->decision, b->decision) &&
		    !strcmp(a->selected ? a->selected : "", b->selected ? b->selected : "");

	mg_approved_file_free(a);
	mg_approved_file_free(b);
	return same;
}

/*
 * The approval's bytes: the file's own when it already approves the same
 * evidence with the same decision (a->unchanged), else the fresh one,
 * queued.  *bytes is the caller's.
 */
static int prepare_approval(char **bytes, mg_approval *a, mg_outputs *outs, mg_error *err)
{
	const mg_check_result *res = a->result;
	char *record = mg_record_render(res), *existing = NULL;
	char *fresh = mg_approved_file_render(res->manifest_ref.path, res->manifest_ref.sha256,
					      record);
	size_t len = 0;
	int error;

	*bytes = NULL;
	free(record);
	if ((error = mg_outputs_read_existing(&existing, &len, outs, a->approval_file, err)) < 0)
		goto done;
	if (existing && same_approval(existing, len, fresh)) {
		a->unchanged = true;
		*bytes = existing;
		existing = NULL;
		goto done;
	}
	mg_outputs_add(outs, a->approval_file, fresh, strlen(fresh), MG_OUTPUT_REPLACE);
	*bytes = fresh;
	fresh = NULL;
done:
	free(existing);
	free(fresh);
	return error;
}

/*
 * --sign KEY: sign the approval's bytes as a person, verified as memgate
 * check verifies approvals, and queue the signature; without a key, note
 * a signature beside it, which signs an earlier approval (a->sig_stale) or
 * this one, kept (a->sig_kept).
 */
static int prepare_signature(mg_approval *a, mg_outputs *outs, const char *bytes,
			     const mg_approve_options *opt, mg_error *err)
{
	mg_sign_options so = { 0 };
	mg_signed *s = NULL;
	char *old = NULL;
	size_t len = 0;
	int error;

	if (!opt->sign_key) {
		error = mg_outputs_read_existing(&old, &len, outs, a->sig_file, err);
		a->sig_stale = error == MG_OK && old && !a->unchanged;
		a->sig_kept = error == MG_OK && old && a->unchanged;
		free(old);
		return error;
	}
	so.dir = opt->check.dir;
	so.policy_path = a->result->policy_ref.path;
	so.policy_from_root = true;
	so.key = opt->sign_key;
	so.allowed_signers = opt->allowed_signers;
	so.ssh_keygen = opt->ssh_keygen;
	so.max_input_bytes = opt->check.max_input_bytes;
	if ((error = mg_sign_approval(&s, &so, a->approval_path, bytes, strlen(bytes), err)) < 0)
		return error;
	mg_outputs_guard(outs, s->workdir);
	mg_outputs_add(outs, a->sig_file, s->signature, s->signature_len, MG_OUTPUT_REPLACE);
	a->sig_written = true;
	a->signer = s->principals;
	a->signer_key = s->key;
	a->signers_file = s->signers;
	s->principals = s->key = s->signers = NULL;
	mg_signed_free(s);
	return MG_OK;
}

/* Where a's approval goes: beside its manifest, as a repository path and
 * from the current directory, with its signature and the manifest. */
static void approval_paths(mg_approval *a)
{
	const mg_check_result *res = a->result;
	mg_buf file = MG_BUF_INIT;

	a->approval_path = mg_approved_file_path(res->manifest_ref.path);
	mg_check_cli_path(&file, res, a->approval_path);
	a->approval_file = mg_buf_detach(&file, NULL);
	mg_buf_printf(&file, "%s.sig", a->approval_file);
	a->sig_file = mg_buf_detach(&file, NULL);
	mg_check_cli_path(&file, res, res->manifest_ref.path);
	a->manifest_file = mg_buf_detach(&file, NULL);
}

/* Queue a's approval (and its signature, with --sign) in outs.  MG_ERROR
 * when the approval is an input or the signature is refused. */
static int queue_approval(mg_approval *a, mg_outputs *outs, const mg_approve_options *opt,
			  mg_error *err)
{
	char *bytes = NULL;
	int error;

	if ((error = refuse_input(a->result, a->approval_path, err)) < 0)
		return error;
	mg_outputs_guard(outs, a->result->root);
	if ((error = prepare_approval(&bytes, a, outs, err)) < 0)
		goto done;
	if (mg_digest_sha256_hex(a->approval_sha256, bytes, strlen(bytes)) < 0) {
		error = mg_error_set(err, a->approval_file, 0, 0, "cannot compute SHA-256 (OpenSSL "
				     "failed)");
		goto done;
	}
	error = prepare_signature(a, outs, bytes, opt, err);
done:
	free(bytes);
	return error;
}

/* What can be approved at all: a manifest to pin it in, a working tree. */
static int judge_layout(const mg_check_result *res, mg_error *err)
{
	if (!res->manifest)
		return mg_error_set(err, res->policy_ref.path, 0, 0, "the policy names the report "
				    "directly ('report:'), so there is no manifest for an approval to "
				    "bind: name a manifest ('manifest:') in the policy");
	if (!res->root)
		return mg_error_set(err, NULL, 0, 0, "a bare repository has no working tree to "
				    "write the approval in");
	return MG_OK;
}

/* The check approve runs: HEAD's evidence and policy, no approval read
 * (it is about to be written). */
static void approve_check_options(mg_check_options *copt, const mg_approve_options *opt)
{
	*copt = opt->check;
	copt->rev = NULL;
	copt->policy_rev = NULL;
	copt->base = NULL;
	copt->worktree = false;
	copt->require_approved = false;
	copt->ignore_approved = true;
}

/* Check and judge one policy: a->result, once it may be approved. */
static int check_and_judge(mg_approval *a, const mg_check_options *copt, mg_error *err)
{
	int error;

	if ((error = mg_check_run(&a->result, copt, err)) < 0 ||
	    (error = judge_layout(a->result, err)) < 0)
		return error;
	return judge_decision(a->result, copt, err);
}

int mg_approve_run(mg_approval **out, const mg_approve_options *opt, mg_error *err)
{
	mg_check_options copt;
	mg_approval *a = mg_xcalloc(1, sizeof(*a));
	mg_outputs *outs = mg_outputs_new();
	int error;

	assert(out && opt);
	*out = NULL;
	approve_check_options(&copt, opt);
	if ((error = check_and_judge(a, &copt, err)) < 0)
		goto done;
	approval_paths(a);
	if ((error = queue_approval(a, outs, opt, err)) < 0 ||
	    (error = mg_outputs_commit(outs, err)) < 0)
		goto done;
	*out = a;
	a = NULL;
done:
	mg_outputs_free(outs);
	mg_approve_free(a);
	return error;
}

/* --all: a's approval is neither an earlier policy's approval nor one of
 * the other policies' inputs. */
static int refuse_shared(mg_approval *const *as, size_t n, size_t self, mg_error *err)
{
	const mg_approval *a = as[self];
	size_t j;
	int error;

	for (j = 0; j < n; j++) {
		if (j == self || !as[j]->result)
			continue;
		if (j < self && as[j]->approval_path &&
		    !strcmp(as[j]->approval_path, a->approval_path))
			return mg_error_set(err, NULL, 0, 0, "its approval '%s' would also be the "
					    "approval of '%s' (they share a manifest): give each "
					    "policy a manifest of its own", a->approval_path,
					    as[j]->result->policy_ref.path);
		if ((error = refuse_input(as[j]->result, a->approval_path, err)) < 0)
			return error;
	}
	return MG_OK;
}

/* --all, first pass: check and judge `policy` into a, with its approval's
 * paths; MG_ERROR with err when it is refused. */
static int judge_one_of_all(mg_approval *a, const char *policy, const mg_approve_options *opt,
			    mg_error *err)
{
	mg_check_options copt;
	int error;

	approve_check_options(&copt, opt);
	copt.policy_path = policy;
	copt.policy_from_root = true;
	if ((error = check_and_judge(a, &copt, err)) < 0)
		return error;
	approval_paths(a);
	return MG_OK;
}

/* A refusal that names no input names its policy. */
static void blame(mg_error *e, const char *policy)
{
	if (!e->file[0])
		snprintf(e->file, sizeof(e->file), "%s", policy);
}

/*
 * --all: each of the n policies judged, then (when every one may be
 * approved so far) queued; each refusal in errs.  Returns how many were
 * refused.
 */
static size_t approve_each(mg_approval **as, char **policies, size_t n, mg_outputs *outs,
			   mg_error *errs, const mg_approve_options *opt)
{
	size_t nref = 0, i;
	bool *ok = mg_xcalloc(n, sizeof(*ok));

	for (i = 0; i < n; i++) {
		as[i] = mg_xcalloc(1, sizeof(**as));
		mg_error_clear(&errs[nref]);
		if (judge_one_of_all(as[i], policies[i], opt, &errs[nref]) < 0)
			blame(&errs[nref++], policies[i]);
		else
			ok[i] = true;
	}
	for (i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		mg_error_clear(&errs[nref]);
		if (refuse_shared(as, n, i, &errs[nref]) < 0 ||
		    queue_approval(as[i], outs, opt, &errs[nref]) < 0)
			blame(&errs[nref++], policies[i]);
	}
	free(ok);
	return nref;
}

int mg_approve_run_all(mg_approval ***out, size_t *count, mg_error **refused,
		       size_t *refused_count, const mg_approve_options *opt, mg_error *err)
{
	mg_outputs *outs = mg_outputs_new();
	mg_approval **as = NULL;
	mg_error *errs = NULL;
	char **policies = NULL;
	size_t n = 0, nref = 0;
	bool began = false;
	int error;

	assert(out && count && refused && refused_count && opt);
	*out = NULL;
	*count = 0;
	*refused = NULL;
	*refused_count = 0;
	if ((error = mg_check_begin(err)) < 0)
		goto done;
	began = true;
	if ((error = mg_check_list(&policies, &n, opt->check.dir, NULL, err)) < 0)
		goto done;
	if (!n) {
		error = mg_error_set(err, NULL, 0, 0, "no policy file (.memgate.yml, "
				     "*.memgate.yml) is committed at HEAD: nothing to approve");
		goto done;
	}
	as = mg_xcalloc(n, sizeof(*as));
	errs = mg_xcalloc(n, sizeof(*errs));
	if ((nref = approve_each(as, policies, n, outs, errs, opt))) {
		error = mg_error_set(err, NULL, 0, 0, "approve --all: %zu of %zu polic%s cannot be "
				     "approved, so none is: nothing was written", nref, n,
				     n == 1 ? "y" : "ies");
		goto done;
	}
	if ((error = mg_outputs_commit(outs, err)) < 0)
		goto done;
	*out = as;
	*count = n;
	as = NULL;
done:
	if (error < 0 && nref) {
		*refused = errs;
		*refused_count = nref;
		errs = NULL;
	}
	free(errs);
	mg_approve_free_all(as, n);
	mg_check_list_free(policies, n);
	mg_outputs_free(outs);
	if (began)
		mg_check_end();
	return error;
}

void mg_approve_free_all(mg_approval **a, size_t count)
{
	size_t i;

	for (i = 0; a && i < count; i++)
		mg_approve_free(a[i]);
	free(a);
}

void mg_approve_free(mg_approval *a)
{
	if (!a)
		return;
	mg_check_result_free(a->result);
	free(a->approval_path);
	free(a->approval_file);
	free(a->manifest_file);
	free(a->sig_file);
	free(a->signer);
	free(a->signer_key);
	free(a->signers_file);
	free(a);
}
