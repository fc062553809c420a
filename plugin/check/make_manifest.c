/*
 * memgate manifest: a manifest that pins the report at --rev.  See
 * include/memgate/check.h.
 */
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "digest.h"
#include "git.h"
#include "check_run.h"
#include "check_evidence.h"

/* ---- memgate manifest ---- */

static const char *string_value(const mg_value *v)
{
	return v->kind == MG_VALUE_STRING ? v->string : NULL;
}

/* --semantic-id must be the report's own, or the next check would fail
 * with semantic_id_mismatch. */
static int check_semantic_id(const char *want, const mg_report *rep, mg_error *err)
{
	const mg_value *have = &rep->semantic_id;

	if (!want || (have->kind == MG_VALUE_STRING && !strcmp(want, have->string)))
		return MG_OK;
	if (have->kind == MG_VALUE_STRING)
		return mg_error_at(err, rep->path, have->pos, "--semantic-id '%s' differs from the "
				   "report's semantic_id '%s': a manifest pinning it would fail "
				   "with semantic_id_mismatch (leave --semantic-id out to pin the "
				   "report's own)", want, have->string);
	return mg_error_set(err, rep->path, 1, 1, "--semantic-id '%s': the report has no "
			    "semantic_id, so a manifest pinning one would fail with "
			    "semantic_id_mismatch", want);
}

/* The working-tree report differs from the committed one: the manifest
 * pins the committed bytes, so say so. */
static void warn_worktree_report(struct run *run, const char *path)
{
	mg_check_result *res = run->res;
	char wt[MG_DIGEST_HEX_SIZE];

	if (res->worktree || !mg_repo_workdir(run->repo) ||
	    !mg_check__worktree_sha256(wt, run, path) || !strcmp(wt, res->report_ref.sha256))
		return;
	mg_check__add_warning(res, "'%s' in the working tree differs from the version committed "
			      "at %s; this manifest pins the committed one (SHA-256 %.12s...), "
			      "not the working tree's (%.12s...); use --worktree to pin the "
			      "working-tree file, then commit both", path,
			      mg_check__short_id(res->rev).hex, res->report_ref.sha256, wt);
}

/* The approved_result of the manifest being replaced, kept in the new one. */
static void keep_approved(mg_manifest **old, struct run *run, const mg_manifest_options *mo)
{
	mg_error perr;

	*old = NULL;
	if (!mo->existing)
		return;
	if (mg_manifest_parse(old, mo->out_path ? mo->out_path : "the existing manifest",
			      mo->existing, mo->existing_len, &perr) < 0) {
		char msg[sizeof(perr.message) + 600];

		mg_error_format(&perr, msg, sizeof(msg));
		mg_check__add_warning(run->res, "the existing manifest cannot be read, so no "
				      "approved_result is kept from it: %s", msg);
		return;
	}
	if ((*old)->has_approved)
		mg_check__add_note(run->res, "kept approved_result '%s' from the existing manifest",
				   (*old)->approved_path);
	if ((*old)->measured_commit && !mo->measured_commit)
		mg_check__add_warning(run->res, "the existing manifest's measured.commit %.7s is not "
				      "kept: a new manifest is a new measurement; name the commit "
				      "measured with --measured-commit REV", (*old)->measured_commit);
}

int mg_check_make_manifest(char **text, char ***warnings, size_t *warning_count,
			   char ***notes, size_t *note_count,
			   const mg_manifest_options *mo, mg_error *err)
{
	mg_check_options opt = { 0 };
	mg_check_result res = { 0 };
	struct run run = { 0 };
	mg_manifest *old = NULL;
	mg_blob blob = { 0 };
	char *prefix = NULL, *path = NULL, measured[MG_GIT_OID_HEX];
	int error;

	*text = NULL;
	opt.dir = mo->dir;
	opt.rev = mo->rev;
	opt.worktree = mo->worktree;
	run.opt = &opt;
	run.res = &res;
	res.worktree = mo->worktree;
	run.max_bytes = mo->max_input_bytes ? mo->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	if ((error = mg_repo_open(&run.repo, mo->dir, err)) < 0)
		goto done;
	if ((error = mg_check__resolve_revs(&run, err)) < 0)
		goto done;
	if ((error = mg_repo_prefix(&prefix, run.repo, mo->dir, err)) < 0 ||
	    (error = mg_check__repository_path(&path, prefix, mo->report_path, err)) < 0)
		goto done;
	if ((error = mg_check__load_report(&run, &blob, path, NULL, (mg_pos){ 0, 0 }, err)) < 0)
		goto done;
	if ((error = check_semantic_id(mo->semantic_id, res.report, err)) < 0)
		goto done;
	warn_worktree_report(&run, path);
	if (mo->measured_commit &&
	    (error = mg_check__resolve_option(measured, run.repo, "--measured-commit",
					      mo->measured_commit, err)) < 0)
		goto done;
	keep_approved(&old, &run, mo);
	*text = mg_manifest_render_approved(path, res.report_ref.sha256,
					    string_value(&res.report->schema_version),
					    string_value(&res.report->semantic_id),
					    old && old->has_approved ? old->approved_path : NULL,
					    old && old->has_approved ? old->approved_sha256 : NULL,
					    mo->measured_commit ? measured : NULL);
done:
	free(prefix);
	free(path);
	/* the warnings and notes are the caller's; the rest goes with res */
	mg_check__free_strings(res.warning_files, res.warning_count);
	res.warning_files = NULL;
	free(res.warning_pos);
	res.warning_pos = NULL;
	*warnings = res.warnings;
	*warning_count = res.warning_count;
	*notes = res.notes;
	*note_count = res.note_count;
	res.warnings = res.notes = NULL;
	res.warning_count = res.note_count = 0;
	mg_manifest_free(old);
	mg_blob_release(&blob);
	mg_check__release_result(&res);
	mg_repo_free(run.repo);
	return error;
}
