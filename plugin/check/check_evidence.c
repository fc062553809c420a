/*
 * The evidence of memgate check: the manifest, its signature, the report
 * and evidence.inputs (the approval: check_approval.c).  See
 * check_evidence.h.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "digest.h"
#include "git.h"
#include "memgate/approved.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "check_run.h"
#include "check_evidence.h"

/* schema_version / semantic_id: when the manifest names one, the report
 * must carry the same string. */
static bool value_differs(const char *want, const mg_value *got)
{
	return want && (got->kind != MG_VALUE_STRING || strcmp(want, got->string));
}

/* Read the report named by `path` at --rev; a Git LFS pointer is read
 * through the local LFS store (mg_check__resolve_lfs). */
int mg_check__load_report(struct run *run, mg_blob *blob, const char *path,
			  const char *from, mg_pos pos, mg_error *err)
{
	mg_check_result *res = run->res;
	char wt[MG_DIGEST_HEX_SIZE];
	bool lfs;
	int error;

	if ((error = mg_check__read_input(blob, run, &res->report_ref, res->rev, path, from, pos,
					  false, err)) < 0)
		return error;
	if ((error = mg_check__resolve_lfs(blob, &lfs, run, path, res->report_ref.commit, err)) < 0)
		return error;
	if (mg_digest_sha256_hex(res->report_ref.sha256, blob->data, blob->len) < 0)
		return mg_error_set(err, path, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
	if (lfs)
		mg_check__add_note(res, "'%s' is stored with Git LFS: its content was read from the "
				   "local LFS store and checked against the pointer's oid", path);
	if (!res->worktree && !lfs)
		mg_check__warn_uncommitted(run, path, res->rev, blob->oid);
	else if (!res->worktree && !run->base_run && run->head[0] &&
		 !strcmp(run->head, res->rev) && mg_check__worktree_sha256(wt, run, path) &&
		 strcmp(wt, res->report_ref.sha256))
		mg_check__add_warning(res, "'%s' has uncommitted changes in the working tree; "
				      "the decision uses the version committed at %s", path,
				      mg_check__short_id(res->rev).hex);
	return mg_report_parse(&res->report, path, blob->data, blob->len, err);
}

/* The manifest as a signed link (check_evidence.h): a runner's signature in
 * the deciding policy's namespace, by a principal of provenance.signers. */
mg_check_link mg_check__manifest_link(struct run *run)
{
	const mg_policy *p = run->res->policy;
	mg_check_link l = {
		.s = &run->res->signature,
		.signed_path = p->manifest,
		.namespace = p->sig_namespace,
		.principals = (const char *const *)p->signers,
		.principal_count = p->signer_count,
		.issue = {
			[MG_LINK_MISSING] = MG_ISSUE_SIGNATURE_MISSING,
			[MG_LINK_MALFORMED] = MG_ISSUE_SIGNATURE_MALFORMED,
			[MG_LINK_INVALID] = MG_ISSUE_SIGNATURE_INVALID,
			[MG_LINK_NAMESPACE] = MG_ISSUE_SIGNATURE_NAMESPACE_MISMATCH,
			[MG_LINK_SIGNER_UNKNOWN] = MG_ISSUE_SIGNER_UNKNOWN,
			[MG_LINK_OUTSIDE_VALIDITY] = MG_ISSUE_SIGNER_OUTSIDE_VALIDITY,
		},
		.required = p->sig_required,
		.warn_uncommitted_signers = true,
		.noun = "manifest",
		.key_noun = "the signing key",
		.principals_key = "provenance.signers",
		.principal_why = "",
		.namespace_why = "",
		.unreadable = "",
		.optional = "provenance.require is false",
		.signer = "a runner's key",
	};

	return l;
}

/*
 * The manifest's signature, when the policy that decides has a provenance
 * section: the allowed signers at the policy revision (at run->trust_rev
 * when set: the change's own policy is judged with the base's file; a missing or
 * malformed file is an error: the policy is wrong), MANIFEST.sig at --rev
 * (missing, malformed or invalid is an issue).  0 or MG_ERROR.
 */
static int load_signature(struct run *run, const mg_blob *manifest, mg_error *err)
{
	mg_check_link l;

	if (!run->res->policy->provenance_set)
		return MG_OK;
	l = mg_check__manifest_link(run);
	return mg_check__load_link(run, &l, manifest, err);
}

/* The policy moved with its folder (run->moves): the paths the manifest
 * names, when the change moved them with it, are read where they are now,
 * and a note says so (the manifest need not be written again). */
static void follow_moves(struct run *run, mg_manifest *m)
{
	char *was = mg_xstrdup(m->source_path);

	if (mg_check__follow_rename(&m->source_path, run->moves, run->move_count))
		mg_check__add_note(run->res, "the manifest names '%s', which the change moves to "
				   "'%s' with its policy: read there", was, m->source_path);
	free(was);
	if (m->has_approved) {
		was = mg_xstrdup(m->approved_path);
		if (mg_check__follow_rename(&m->approved_path, run->moves, run->move_count))
			mg_check__add_note(run->res, "the manifest names '%s', which the change "
					   "moves to '%s' with its policy: read there", was,
					   m->approved_path);
		free(was);
	}
}

static int load_manifest(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	error = mg_check__read_input(&blob, run, &res->manifest_ref, res->rev, p->manifest,
				     p->path, p->manifest_pos, true, err);
	if (error < 0)
		goto done;
	if ((error = mg_manifest_parse(&res->manifest, p->manifest, blob.data, blob.len, err)) < 0)
		goto done;
	if (mg_digest_sha256_hex(res->manifest_ref.sha256, blob.data, blob.len) < 0) {
		error = mg_error_set(err, p->manifest, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
		goto done;
	}
	follow_moves(run, res->manifest);
	if ((error = load_signature(run, &blob, err)) < 0)
		goto done;
	mg_blob_release(&blob);
	error = mg_check__load_report(run, &blob, res->manifest->source_path, res->manifest->path,
				      res->manifest->source_path_pos, err);
	if (error < 0)
		goto done;
	if (strcmp(res->report_ref.sha256, res->manifest->source_sha256))
		run->pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	run->pre[MG_ISSUE_SCHEMA_VERSION_MISMATCH] =
		value_differs(res->manifest->schema_version, &res->report->schema_version);
	run->pre[MG_ISSUE_SEMANTIC_ID_MISMATCH] =
		value_differs(res->manifest->semantic_id, &res->report->semantic_id);
	error = mg_check__load_approved(run, err);
done:
	mg_blob_release(&blob);
	return error;
}

int mg_check__load_evidence(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	if (p->manifest)
		return load_manifest(run, err);
	mg_check__add_warning(res, "the policy names the report directly ('report:'): "
			      "no manifest, so no SHA-256 is checked");
	if (run->opt->require_approved)
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	error = mg_check__load_report(run, &blob, p->report, p->path, p->report_pos, err);
	mg_blob_release(&blob);
	return error;
}

/*
 * Warn about each entry of evidence.inputs that matches no path at the
 * measured commit nor at the gated one: no change to it can make the
 * evidence stale, so it guards nothing (a typo in a directory's name).
 * The warning points at the entry in the policy whose lines annotations
 * point at.
 */
static int warn_unmatched(struct run *run, const char *measured, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy, *lines = res->head_policy ? res->head_policy : p;
	const char *file = lines->path ? lines->path :
			   res->policy_ref.path ? res->policy_ref.path : p->path;
	struct short_id at = mg_check__short_id(measured), rev = mg_check__short_id(res->rev);
	size_t *which = NULL, count = 0, i, j;
	mg_pos pos;
	int error;

	error = mg_repo_unmatched_inputs(&which, &count, run->repo, measured,
					 res->worktree ? NULL : res->rev, p->inputs,
					 p->input_count, err);
	for (i = 0; i < count && error == 0; i++) {
		const char *entry = p->inputs[which[i]];

		pos = lines->inputs_pos;
		for (j = 0; j < lines->input_count; j++)
			if (!strcmp(lines->inputs[j], entry))
				pos = lines->input_pos[j];
		mg_check__add_warning_pos(res, file, pos, "evidence.inputs entry '%s' (%s:%d:%d) "
					  "matches no path at the measured commit %s nor %s%s: a "
					  "change to it cannot make the evidence stale; correct it "
					  "or remove it", entry, file, pos.line, pos.column, at.hex,
					  res->worktree ? "in the working tree" : "at ",
					  res->worktree ? "" : rev.hex);
	}
	free(which);
	return error;
}

/*
 * evidence.inputs: compare its paths between the manifest's measured.commit
 * and the gated commit (the working tree with --worktree).  A missing or
 * unknown measured commit and any change are issues; a pathspec libgit2
 * refuses is an error at the policy's evidence.inputs.
 */
/* Do `a` at commit `ca` and `b` at commit `cb` hold the same blob? */
static bool same_blob(struct run *run, const char *ca, const char *a, const char *cb,
		      const char *b)
{
	mg_blob x = { 0 }, y = { 0 };
	mg_error ignored;
	bool same = mg_repo_read(&x, run->repo, ca, a, run->max_bytes, &ignored) == 0 &&
		    mg_repo_read(&y, run->repo, cb, b, run->max_bytes, &ignored) == 0 &&
		    !strcmp(x.oid, y.oid);

	mg_blob_release(&x);
	mg_blob_release(&y);
	return same;
}

/*
 * The policy moved with its folder: a path of the old folder at the
 * measured commit `mc` and its namesake in the new folder at --rev, the
 * same blob, are the same code moved, not a change; both leave the stale
 * paths.  Every changed path was listed for it (check_measured), then
 * the first MG_CHECK_MAX_STALE are kept.
 */
/*
 * The entries staleness compares: p's, and when the policy moved with its
 * folder (its entries then read under the new one) each such entry under
 * the old folder too, where the measured commit had the code.  p->inputs
 * itself when nothing moved; else a new array whose entries past
 * p->input_count the caller frees.
 */
static char **moved_specs(size_t *n, const struct run *run, const mg_policy *p)
{
	size_t i, k, to;
	char **all;
	mg_buf b = MG_BUF_INIT;

	*n = p->input_count;
	if (!run->moved_from)
		return p->inputs;
	to = strlen(run->moved_to);
	all = mg_xcalloc(2 * p->input_count + 1, sizeof(*all));
	memcpy(all, p->inputs, p->input_count * sizeof(*all));
	for (i = 0, k = p->input_count; i < p->input_count; i++) {
		if (strncmp(p->inputs[i], run->moved_to, to))
			continue;
		b.len = 0;
		mg_buf_printf(&b, "%s%s", run->moved_from, p->inputs[i] + to);
		all[k++] = mg_buf_detach(&b, NULL);
	}
	mg_buf_free(&b);
	*n = k;
	return all;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void unstale_moves(struct run *run, const char *mc)
{
	mg_check_result *res = run->res;
	size_t to = strlen(run->moved_to), i, n = 0;
	bool *moved = mg_xcalloc(res->stale_count + 1, sizeof(*moved));
	mg_buf old = MG_BUF_INIT;
	const char *key;
	char **hit;

	/* the paths come sorted (mg_repo_changed_paths): each new one's old
	 * namesake is found by a binary search */
	for (i = 0; i < res->stale_count; i++) {
		const char *p = res->stale_paths[i];

		if (strncmp(p, run->moved_to, to))
			continue;
		old.len = 0;
		mg_buf_printf(&old, "%s%s", run->moved_from, p + to);
		key = old.ptr;
		hit = bsearch(&key, res->stale_paths, res->stale_count, sizeof(*res->stale_paths),
			      path_cmp);
		if (hit && !moved[hit - res->stale_paths] && same_blob(run, mc, old.ptr, res->rev, p))
			moved[i] = moved[hit - res->stale_paths] = true;
	}
	for (i = 0; i < res->stale_count; i++) {
		if (moved[i])
			free(res->stale_paths[i]);
		else
			res->stale_paths[n++] = res->stale_paths[i];
	}
	res->stale_total = n;
	for (i = MG_CHECK_MAX_STALE; i < n; i++)   /* kept: the first, as always */
		free(res->stale_paths[i]);
	res->stale_count = n < MG_CHECK_MAX_STALE ? n : MG_CHECK_MAX_STALE;
	free(moved);
	mg_buf_free(&old);
}

/*
 * Which stale paths the change itself did not touch (the same blob, or
 * none, at --policy-rev and --rev): the base branch moved them since the
 * measurement, and the message says so (res->stale_on_base).  Nothing
 * when there is no base to tell by.
 */
static void stale_on_base(struct run *run)
{
	mg_check_result *res = run->res;
	mg_blob a = { 0 }, b = { 0 };
	mg_error ignored;
	size_t i;
	int ra, rb;

	if (!res->stale_count || res->worktree || run->base_run || !res->policy_rev[0] ||
	    !strcmp(res->policy_rev, res->rev))
		return;
	res->stale_on_base = mg_xcalloc(res->stale_count, sizeof(*res->stale_on_base));
	for (i = 0; i < res->stale_count; i++) {
		ra = mg_repo_read(&a, run->repo, res->policy_rev, res->stale_paths[i],
				  run->max_bytes, &ignored);
		rb = mg_repo_read(&b, run->repo, res->rev, res->stale_paths[i],
				  run->max_bytes, &ignored);
		res->stale_on_base[i] = (ra == MG_ENOTFOUND && rb == MG_ENOTFOUND) ||
					(ra == 0 && rb == 0 && !strcmp(a.oid, b.oid));
		mg_blob_release(&a);
		mg_blob_release(&b);
	}
}

int mg_check__check_measured(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	const mg_manifest *m = res->manifest;
	char msg[sizeof(err->message)], **specs;
	size_t nspecs, i;
	int error;

	if (!p->input_count)
		return MG_OK;
	if (!m || !m->measured_commit) {
		run->pre[MG_ISSUE_MEASURED_COMMIT_MISSING] = true;
		return MG_OK;
	}
	/* a moved policy compares its entries under the new folder and, as
	 * the measured commit had them, under the old one, and lists every
	 * changed path first, to pair the moved ones (unstale_moves) */
	specs = moved_specs(&nspecs, run, p);
	error = mg_repo_changed_paths(&res->stale_paths, &res->stale_count, &res->stale_total,
				      run->repo, m->measured_commit,
				      res->worktree ? NULL : res->rev, specs, nspecs,
				      run->moved_from ? SIZE_MAX : MG_CHECK_MAX_STALE, err);
	if (specs != p->inputs) {
		for (i = p->input_count; i < nspecs; i++)
			free(specs[i]);
		free(specs);
	}
	if (error == MG_ENOTFOUND) {
		run->pre[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = true;
		res->measured_shallow = mg_repo_is_shallow(run->repo);
		mg_error_clear(err);
		return MG_OK;
	}
	if (error < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, p->path, p->inputs_pos, "'evidence.inputs': %s", msg);
	}
	if (run->moved_from)
		unstale_moves(run, m->measured_commit);
	stale_on_base(run);
	run->pre[MG_ISSUE_EVIDENCE_STALE] = res->stale_total > 0;
	if ((error = warn_unmatched(run, m->measured_commit, err)) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, p->path, p->inputs_pos, "'evidence.inputs': %s", msg);
	}
	return MG_OK;
}

static void add_input(mg_check_inputs *in, const char *path)
{
	assert(in->path_count < MG_CHECK_INPUT_PATHS);
	if (path)
		in->paths[in->path_count++] = path;
}

/* Mirrors the readers above: mg_check__load_policies (the policy),
 * load_manifest, load_signature, mg_check__load_report, mg_check__load_approved (the
 * approval beside the manifest and its signature, read with
 * --require-approved; the legacy approved_result), mg_check__check_measured
 * and read_history (check.c). */
void mg_check__inputs(mg_check_inputs *out, const mg_policy *p, const mg_manifest *m)
{
	mg_buf sig = MG_BUF_INIT;

	memset(out, 0, sizeof(*out));
	add_input(out, p->path);
	add_input(out, p->manifest ? p->manifest : p->report);
	if (p->provenance_set) {
		add_input(out, p->allowed_signers);
		if (p->manifest) {
			mg_buf_printf(&sig, "%s.sig", p->manifest);
			out->sig_path = mg_buf_detach(&sig, NULL);
			add_input(out, out->sig_path);
		}
	}
	if (p->manifest) {   /* the approval beside it (memgate approve), and its signature */
		out->approval_path = mg_approved_file_path(p->manifest);
		add_input(out, out->approval_path);
		mg_buf_printf(&sig, "%s.sig", out->approval_path);
		out->approval_sig_path = mg_buf_detach(&sig, NULL);
		add_input(out, out->approval_sig_path);
	}
	if (m) {
		add_input(out, m->source_path);
		if (m->has_approved)
			add_input(out, m->approved_path);
	}
	out->specs = p->inputs;
	out->spec_count = p->input_count;
	if (p->rules.regression.history)
		out->moving = "regression.history compares with the base's history";
}

void mg_check__inputs_free(mg_check_inputs *in)
{
	free(in->sig_path);
	free(in->approval_path);
	free(in->approval_sig_path);
	in->sig_path = in->approval_path = in->approval_sig_path = NULL;
}

/* The manifest at the base (the policy revision) at the deciding policy's
 * manifest path, its paths followed through a move; NULL when there is
 * none to compare with (another run, no base, adoption, unreadable). */
static mg_manifest *base_manifest(struct run *run)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_manifest *bm = NULL;
	mg_blob blob = { 0 };
	mg_error ignored;

	if (run->base_run || run->proposed_run || !p->manifest || !res->policy_rev[0] ||
	    !strcmp(res->policy_rev, res->rev) || res->adopted)
		return NULL;
	if (mg_repo_read(&blob, run->repo, res->policy_rev, p->manifest, run->max_bytes,
			 &ignored) == 0 &&
	    mg_manifest_parse(&bm, p->manifest, blob.data, blob.len, &ignored) == 0)
		mg_check__follow_rename(&bm->source_path, run->moves, run->move_count);
	mg_blob_release(&blob);
	return bm;
}

/* Whether `path` exists at commit `commit` ("": the working tree). */
static bool exists_at(struct run *run, const char *commit, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool found = (*commit ? mg_repo_read(&blob, run->repo, commit, path, run->max_bytes,
					      &ignored)
			      : mg_repo_read_worktree(&blob, run->repo, path, run->max_bytes,
						      &ignored)) != MG_ENOTFOUND;

	mg_blob_release(&blob);
	return found;
}

/*
 * Place (evidence_out_of_place, refused): the manifest names the base's
 * report, or another path only when the change moved the file: the base's
 * path is gone at --rev and the new one was not at the base (what git
 * pairs as a rename; the content is pinned by its SHA-256 anyway).  Model
 * A's signed manifest copied over model B's names A's report while B's is
 * still there.  Not a folder rule: a policy may sit apart from its
 * evidence (ci/memgate.yml, benchmarks/...), and existing repositories
 * keep their verdicts.  A report named by the policy itself (report:) is
 * the policy's own choice.
 */
static void judge_place(struct run *run, const mg_manifest *bm)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;

	if (!m || !bm || !strcmp(bm->source_path, m->source_path))
		return;
	if (exists_at(run, res->rev, bm->source_path) ||
	    exists_at(run, res->policy_rev, m->source_path)) {
		res->place_base_path = mg_xstrdup(bm->source_path);
		run->pre[MG_ISSUE_EVIDENCE_OUT_OF_PLACE] = true;
	}
}

/*
 * Time (measured_commit_behind_base, refused): the head's measured commit
 * is the base's or a descendant of it; else, with evidence.inputs, the
 * comparison of those paths (mg_check__check_measured) has already shown
 * whether it measured the code being merged (a revert of both code and
 * evidence stays green); without them an older measured commit is
 * refused, and so is one whose ancestry a shallow clone cannot tell (fail
 * closed: the message says to fetch).
 */
static int judge_time(struct run *run, const mg_manifest *bm, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;
	bool yes = false;
	int rc;

	if (!m || !bm || !m->measured_commit || !bm->measured_commit ||
	    res->policy->input_count)
		return MG_OK;
	rc = mg_repo_descends(&yes, run->repo, m->measured_commit, bm->measured_commit, err);
	if (rc < 0 && rc != MG_ENOTFOUND)
		return rc;
	mg_error_clear(err);
	if (yes)
		return MG_OK;
	res->behind_base_commit = mg_xstrdup(bm->measured_commit);
	res->behind_unknown = rc == MG_ENOTFOUND;
	run->pre[MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE] = true;
	return MG_OK;
}

int mg_check__check_custody(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_manifest *bm;
	int error;

	if (!p->manifest)
		return MG_OK;
	if (p->provenance_set && !p->input_count && !run->base_run && !run->proposed_run)
		mg_check__add_warning_at(res, p->path, "provenance without evidence.inputs: a "
				    "signature shows who measured, not which code; signed evidence "
				    "measured on other code passes unless its measured commit is "
				    "older than the base's; list the measured code in "
				    "evidence.inputs");
	bm = base_manifest(run);
	judge_place(run, bm);
	error = judge_time(run, bm, err);
	mg_manifest_free(bm);
	return error;
}

/* ---- regression.history: the versions that count ---- */

struct mg_check_history_gate {
	struct run *run;
	const mg_signers *signers;   /* the run's allowed signers, when provenance is
					required; borrowed */
};

int mg_check__history_gate(mg_check_history_gate **out, struct run *run, mg_error *err)
{
	const mg_policy *p = run->res->policy;
	mg_check_history_gate *g = mg_xcalloc(1, sizeof(*g));

	*out = NULL;
	g->run = run;
	/* where the check reads them: the base's, the change's own policy
	 * judged with the base's file */
	if (p->manifest && p->provenance_set && p->sig_required &&
	    mg_check__allowed_signers(&g->signers, run, NULL, false, err) < 0) {
		mg_check__history_gate_free(g);
		return MG_ERROR;
	}
	*out = g;
	return MG_OK;
}

void mg_check__history_gate_free(mg_check_history_gate *g)
{
	free(g);
}

/* Whether the manifest's bytes at `commit` carry a signature there that
 * verifies under the allowed signers, as the check verifies (*ok).  A
 * signature that is missing, malformed or made by no allowed signer is
 * none.  0 or MG_ERROR (the day cannot be read). */
static int signed_at(bool *ok, struct run *run, const mg_signers *signers, const char *commit,
		     const mg_blob *manifest, mg_error *err)
{
	const mg_policy *p = run->res->policy;
	mg_check_link l = mg_check__manifest_link(run);
	mg_blob sigblob = { 0 };
	mg_sshsig *sig = NULL;
	mg_buf path = MG_BUF_INIT;
	mg_signers_match m;
	mg_error why;
	int error = MG_OK;

	*ok = false;
	mg_error_clear(&why);
	mg_buf_printf(&path, "%s.sig", p->manifest);
	if (mg_repo_read(&sigblob, run->repo, commit, path.ptr, run->max_bytes, &why) < 0 ||
	    mg_sshsig_parse(&sig, path.ptr, sigblob.data, sigblob.len, &why) < 0 ||
	    mg_sshsig_verify(sig, manifest->data, manifest->len, p->sig_namespace, &why) != 0)
		goto done;
	if ((error = mg_check__link_signer(&m, run, &l, signers, sig, err)) < 0)
		goto done;
	*ok = m.verdict == MG_SIGNERS_ALLOWED;
done:
	mg_sshsig_free(sig);
	mg_blob_release(&sigblob);
	mg_buf_free(&path);
	return error;
}

int mg_check__history_accept(void *ctx, const mg_repo_version *v, const void *data,
			     size_t len, const mg_report *r, mg_error *err)
{
	mg_check_history_gate *g = ctx;
	struct run *run = g->run;
	const mg_policy *p = run->res->policy;
	mg_blob blob = { 0 };
	mg_manifest *m = NULL;
	mg_error why;
	char sha256[MG_DIGEST_HEX_SIZE];
	bool ok = false;
	int verdict = MG_HISTORY_SKIP_NOT_PINNED;

	/* hashed only when a manifest pins: a policy naming its report pays
	 * nothing for it */
	mg_error_clear(&why);
	if (p->manifest && mg_digest_sha256_hex(sha256, data, len) < 0)
		return mg_error_set(err, p->manifest, 0, 0, "cannot hash the version of '%s' at "
				    "%.7s", r->path ? r->path : "the report", v->commit);
	if (p->manifest &&
	    (mg_repo_read(&blob, run->repo, v->commit, p->manifest, run->max_bytes, &why) < 0 ||
	     mg_manifest_parse(&m, p->manifest, blob.data, blob.len, &why) < 0 ||
	     strcmp(m->source_sha256, sha256)))
		goto done;
	verdict = MG_HISTORY_SKIP_IDENTITY;
	if (!mg_identity_matches(&p->rules, &r->evidence))
		goto done;
	verdict = 0;
	if (g->signers) {
		if (signed_at(&ok, run, g->signers, v->commit, &blob, err) < 0)
			verdict = MG_ERROR;
		else if (!ok)
			verdict = MG_HISTORY_SKIP_UNSIGNED;
	}
done:
	mg_manifest_free(m);
	mg_blob_release(&blob);
	return verdict;
}
