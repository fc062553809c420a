/*
 * One run of memgate check: its warnings and notes, its inputs, its
 * revisions and the freeing of its result.  See check_run.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "digest.h"
#include "git.h"
#include "path.h"
#include "memgate/insight.h"
#include "check_run.h"
#include "findings.h"

static void add_warning_v(mg_check_result *res, const char *file, mg_pos pos,
			  const char *fmt, va_list ap)
{
	mg_buf b = MG_BUF_INIT;
	size_t n = res->warning_count;

	mg_buf_vprintf(&b, fmt, ap);
	res->warnings = mg_xrealloc(res->warnings, (n + 1) * sizeof(*res->warnings));
	res->warning_files = mg_xrealloc(res->warning_files, (n + 1) * sizeof(*res->warning_files));
	res->warning_pos = mg_xrealloc(res->warning_pos, (n + 1) * sizeof(*res->warning_pos));
	res->warnings[n] = mg_buf_detach(&b, NULL);
	res->warning_files[n] = file ? mg_xstrdup(file) : NULL;
	res->warning_pos[n] = pos;
	res->warning_count++;
}

void mg_check__add_warning(mg_check_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_warning_v(res, NULL, (mg_pos){ 0, 0 }, fmt, ap);
	va_end(ap);
}

void mg_check__add_warning_at(mg_check_result *res, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_warning_v(res, file, (mg_pos){ 0, 0 }, fmt, ap);
	va_end(ap);
}

void mg_check__add_warning_pos(mg_check_result *res, const char *file, mg_pos pos,
			       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_warning_v(res, file, pos, fmt, ap);
	va_end(ap);
}

void mg_check__add_note(mg_check_result *res, const char *fmt, ...)
{
	mg_buf b = MG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	res->notes = mg_xrealloc(res->notes, (res->note_count + 1) * sizeof(*res->notes));
	res->notes[res->note_count++] = mg_buf_detach(&b, NULL);
}

struct short_id mg_check__short_id(const char *hex)
{
	struct short_id s;

	snprintf(s.hex, sizeof(s.hex), "%.7s", hex);
	return s;
}

/*
 * Warn when the working-tree copy of `path` differs from HEAD's (an
 * uncommitted edit).  `oid` is the blob just read at `commit`, reused when
 * that commit is HEAD.  Failures only mean there is nothing to warn about.
 * Not in the --base comparison: its warnings are never shown.
 */
void mg_check__warn_uncommitted(struct run *run, const char *path, const char *commit,
				const char *oid)
{
	mg_blob head = { 0 };
	bool differs = false;
	mg_error ignored;

	if (!run->head[0] || run->base_run)
		return;
	if (strcmp(run->head, commit)) {
		if (mg_repo_read(&head, run->repo, run->head, path, run->max_bytes, &ignored) < 0)
			return;
		oid = head.oid;
	}
	if (mg_repo_worktree_differs(&differs, run->repo, path, oid, run->max_bytes,
				     &ignored) == 0 && differs)
		mg_check__add_warning(run->res, "'%s' has uncommitted changes in the working tree; "
				      "the decision uses the version committed at %s", path,
				      mg_check__short_id(commit).hex);
	mg_blob_release(&head);
}

/*
 * `path`, named in the file `from` and missing at `commit`, may have been
 * written relative to from's folder: when that path exists, a sentence that
 * says so in hint (n bytes), else "".  Returns hint.
 */
static const char *relative_hint(char *hint, size_t n, struct run *run, const char *commit,
				 const char *path, const char *from)
{
	const char *slash = strrchr(from, '/');
	mg_buf joined = MG_BUF_INIT;
	mg_blob blob = { 0 };
	mg_error ignored;
	int rc;

	hint[0] = '\0';
	if (!slash)
		return hint;
	mg_buf_printf(&joined, "%.*s/%s", (int)(slash - from), from, path);
	if (run->res->worktree)
		rc = mg_repo_read_worktree(&blob, run->repo, joined.ptr, run->max_bytes, &ignored);
	else
		rc = mg_repo_read(&blob, run->repo, commit, joined.ptr, run->max_bytes, &ignored);
	if (rc == 0)
		snprintf(hint, n, "; paths in '%s' are relative to the repository root, "
			 "not to its folder: did you mean '%s'? (that file exists)", from, joined.ptr);
	mg_blob_release(&blob);
	mg_buf_free(&joined);
	return hint;
}

/*
 * Read one input at `commit` (or from the working tree), filling `ref`.
 * `from`/`pos` say where the path was named (the policy's manifest: key, the
 * manifest's source.path), so that a refusal points at that line.
 */
int mg_check__read_input(mg_blob *blob, struct run *run, mg_input_ref *ref,
			 const char *commit, const char *path, const char *from,
			 mg_pos pos, bool warn, mg_error *err)
{
	char msg[sizeof(err->message)], hint[sizeof(err->message)];
	int error;

	if (mg_path_check(path, err) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, from, pos, "invalid path '%s': %s", path, msg);
	}
	if (run->res->worktree)
		error = mg_repo_read_worktree(blob, run->repo, path, run->max_bytes, err);
	else
		error = mg_repo_read(blob, run->repo, commit, path, run->max_bytes, err);
	if (error < 0) {
		if (from && !err->file[0]) {
			snprintf(msg, sizeof(msg), "%s", err->message);
			mg_error_at(err, from, pos, "%s%s", msg,
				    relative_hint(hint, sizeof(hint), run, commit, path, from));
		}
		return error;
	}
	free(ref->path);
	ref->path = mg_xstrdup(path);
	ref->read = true;
	snprintf(ref->blob, sizeof(ref->blob), "%s", blob->oid);
	snprintf(ref->commit, sizeof(ref->commit), "%s", run->res->worktree ? "" : commit);
	if (!run->res->worktree && warn)
		mg_check__warn_uncommitted(run, path, commit, blob->oid);
	return MG_OK;
}

/* Where a commit's input is, for messages: its short id or the working tree. */
static const char *where(struct short_id *buf, const char *commit)
{
	*buf = mg_check__short_id(commit);
	return *commit ? buf->hex : "the working tree";
}

/*
 * A Git LFS pointer stands for the report: replace blob->data by the object
 * from the local LFS store, checked against the pointer's size and SHA-256
 * oid (blob->oid stays the pointer's blob id).  Sets *lfs.  An object
 * missing from the store is an error that says how to fetch it.
 */
int mg_check__resolve_lfs(mg_blob *blob, bool *lfs, struct run *run, const char *path,
			  const char *commit, mg_error *err)
{
	char oid[MG_GIT_LFS_OID_HEX], sha[MG_DIGEST_HEX_SIZE] = "";
	unsigned long long size;
	mg_blob content = { 0 };
	struct short_id at;
	int error;

	*lfs = false;
	if (!mg_blob_is_lfs_pointer(blob->data, blob->len, oid, &size))
		return MG_OK;
	*lfs = true;
	error = mg_repo_read_lfs(&content, run->repo, oid, path, run->max_bytes, err);
	if (error == MG_ENOTFOUND) {
		error = mg_error_set(err, path, 0, 0,
				     "is a Git LFS pointer at %s (oid sha256:%.12s..., %llu bytes) "
				     "and the object is not in the local LFS store; fetch it with "
				     "'git lfs pull' (actions/checkout: lfs: true)",
				     where(&at, commit), oid, size);
		goto done;
	}
	if (error < 0)
		goto done;
	if ((unsigned long long)content.len != size) {
		error = mg_error_set(err, path, 0, 0, "the local Git LFS object (oid sha256:%.12s...) "
				     "is %zu bytes, but the pointer at %s says %llu: fetch it again "
				     "with 'git lfs pull'", oid, content.len, where(&at, commit), size);
		goto done;
	}
	if (mg_digest_sha256_hex(sha, content.data, content.len) < 0 || strcmp(sha, oid)) {
		error = mg_error_set(err, path, 0, 0, "the local Git LFS object (oid sha256:%.12s...) "
				     "is corrupt: its SHA-256 is %s; fetch it again with 'git lfs pull'",
				     oid, sha);
		goto done;
	}
	memcpy(content.oid, blob->oid, sizeof(content.oid));  /* the pointer's blob */
	mg_blob_release(blob);
	*blob = content;
	memset(&content, 0, sizeof(content));
done:
	mg_blob_release(&content);
	return error;
}

/* The SHA-256 of the working-tree copy of path (an LFS pointer there
 * resolved through the store); false when there is none to compare. */
bool mg_check__worktree_sha256(char out[MG_DIGEST_HEX_SIZE], struct run *run, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool lfs, ok;

	ok = mg_repo_read_worktree(&blob, run->repo, path, run->max_bytes, &ignored) == 0 &&
	     mg_check__resolve_lfs(&blob, &lfs, run, path, "", &ignored) == 0 &&
	     mg_digest_sha256_hex(out, blob.data, blob.len) == 0;
	mg_blob_release(&blob);
	return ok;
}

/* Resolve one revision option; the message names the option it came from
 * ("--policy-rev: unknown revision 'deadbeef'"). */
int mg_check__resolve_option(char out[MG_GIT_OID_HEX], mg_repo *repo, const char *option,
			     const char *rev, mg_error *err)
{
	char msg[sizeof(err->message)];
	int error;

	if ((error = mg_repo_resolve(out, repo, rev, err)) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		mg_error_set(err, NULL, 0, 0, "%s: %s", option, msg);
	}
	return error;
}

int mg_check__resolve_revs(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if (res->worktree)
		return MG_OK;
	if (opt->rev)
		error = mg_check__resolve_option(res->rev, run->repo, "--rev", opt->rev, err);
	else
		error = mg_repo_resolve(res->rev, run->repo, "HEAD", err);
	if (error < 0)
		return error;
	if (!opt->policy_rev) {
		memcpy(res->policy_rev, res->rev, sizeof(res->rev));
		return MG_OK;
	}
	return mg_check__resolve_option(res->policy_rev, run->repo, "--policy-rev", opt->policy_rev,
					err);
}

/*
 * `path` as typed on the command line, relative to `prefix` (where memgate
 * runs in the working tree, "" or "models/a/"), as a repository path: '.'
 * and '..' segments and repeated slashes resolved.  An absolute path is
 * kept as it is (its path check refuses it).  0 or MG_ERROR.
 */
int mg_check__repository_path(char **out, const char *prefix, const char *path, mg_error *err)
{
	mg_buf joined = MG_BUF_INIT, result = MG_BUF_INIT;
	char *save = NULL, *seg;
	int error = MG_OK;

	*out = NULL;
	if (path[0] == '/') {
		*out = mg_xstrdup(path);
		return MG_OK;
	}
	mg_buf_printf(&joined, "%s%s", prefix, path);
	for (seg = strtok_r(joined.ptr, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		char *slash;

		if (!strcmp(seg, "."))
			continue;
		if (strcmp(seg, "..")) {
			mg_buf_printf(&result, "%s%s", result.len ? "/" : "", seg);
			continue;
		}
		if (!result.len) {
			error = mg_error_set(err, NULL, 0, 0,
					     "'%s' is outside the repository (a path on the command line "
					     "is relative to the directory memgate runs in, '%s')",
					     path, *prefix ? prefix : "the repository's root");
			goto done;
		}
		slash = strrchr(result.ptr, '/');
		result.len = slash ? (size_t)(slash - result.ptr) : 0;
		result.ptr[result.len] = '\0';
	}
	*out = mg_buf_detach(&result, NULL);
done:
	mg_buf_free(&joined);
	mg_buf_free(&result);
	return error;
}

static void release_ref(mg_input_ref *ref)
{
	free(ref->path);
}

void mg_check__free_strings(char **list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(list[i]);
	free(list);
}

/* Free what r holds, not r itself. */
void mg_check__release_result(mg_check_result *r)
{
	release_ref(&r->policy_ref);
	release_ref(&r->manifest_ref);
	release_ref(&r->report_ref);
	release_ref(&r->approved_ref);
	release_ref(&r->signature.sig_ref);
	release_ref(&r->signature.signers_ref);
	free(r->signature.principals);
	free(r->signature.key);
	free(r->signature.problem);
	mg_decision_free(r->decision);
	mg_insight_free(r->insight);
	mg_history_free(r->history);
	mg_report_free(r->report);
	mg_manifest_free(r->manifest);
	mg_policy_free(r->policy);
	mg_policy_free(r->head_policy);
	mg_check__free_strings(r->warning_files, r->warning_count);
	free(r->warning_pos);
	mg_check__free_strings(r->warnings, r->warning_count);
	mg_check__free_strings(r->notes, r->note_count);
	mg_check__free_strings(r->stale_paths, r->stale_count);
	free(r->stale_on_base);
	free(r->changes);
	free(r->approved_decision);
	free(r->approved_selected);
	free(r->approved_report_sha256);
	free(r->approved_measured_commit);
	free(r->approval_path);
	free(r->approved_manifest_sha256);
	release_ref(&r->approval_sig.sig_ref);
	release_ref(&r->approval_sig.signers_ref);
	free(r->approval_sig.principals);
	free(r->approval_sig.key);
	free(r->approval_sig.problem);
	free(r->place_base_path);
	free(r->behind_base_commit);
	free(r->cwd_prefix);
	free(r->root);
	if (r->base) {
		mg_check_result_free(r->base->result);
		free(r->base->error);
		free(r->base);
	}
	if (r->proposed) {
		mg_check_result_free(r->proposed->result);
		free(r->proposed->error);
		free(r->proposed);
	}
	free(r->waivers);
	free(r->waiver_spent);
	mg_findings_free(r->findings, r->finding_count);
}

void mg_check_result_free(mg_check_result *r)
{
	if (!r)
		return;
	mg_check__release_result(r);
	free(r);
}

void mg_check__run_release(struct run *run)
{
	free(run->policy_path);
	mg_repo_changes_free(run->moves, run->move_count);
	free(run->moved_from);
	free(run->moved_to);
	run->policy_path = run->moved_from = run->moved_to = NULL;
	run->moves = NULL;
	run->move_count = 0;
	mg_signers_free(run->signers);
	free(run->signers_ref.path);
	run->signers = NULL;
	memset(&run->signers_ref, 0, sizeof(run->signers_ref));
}

bool mg_check__follow_rename(char **path, const mg_repo_change *renames, size_t count)
{
	size_t i;

	for (i = 0; *path && i < count; i++)
		if (renames[i].old_path && renames[i].new_path &&
		    !strcmp(renames[i].old_path, *path)) {
			free(*path);
			*path = mg_xstrdup(renames[i].new_path);
			return true;
		}
	return false;
}
