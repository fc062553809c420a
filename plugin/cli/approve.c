/*
 * memgate approve: include/memgate/approve.h.
 *
 * The check runs as `memgate record` would at HEAD, except that the
 * manifest's current approved_result is not read (it is what gets
 * replaced).  Then every refusal is decided before anything is written, and
 * the record and the manifest go through one output transaction.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "git.h"
#include "memgate/approve.h"
#include "memgate/buf.h"
#include "memgate/manifest.h"
#include "memgate/output.h"
#include "memgate/record.h"
#include "path.h"

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

/*
 * --out as a repository path: joined to the current directory's place in
 * the working tree (an absolute path must lie inside it), "." and ".."
 * resolved, then held to the repository path rules.  *out is the caller's.
 */
static int record_repo_path(char **out, const mg_check_result *res, const char *arg,
			    mg_error *err)
{
	mg_buf joined = MG_BUF_INIT, path = MG_BUF_INIT;
	size_t rootlen = strlen(res->root);
	char *seg, *save = NULL, *slash;
	mg_error perr;
	int error = MG_OK;

	*out = NULL;
	if (arg[0] == '/') {
		if (strncmp(arg, res->root, rootlen) || arg[rootlen] != '/') {
			error = mg_error_set(err, NULL, 0, 0, "--out '%s' is outside the working "
					     "tree '%s': the record must be committed with the manifest",
					     arg, res->root);
			goto done;
		}
		mg_buf_puts(&joined, arg + rootlen + 1);
	} else if (!res->cwd_prefix) {
		error = mg_error_set(err, NULL, 0, 0, "--out '%s': the current directory is outside "
				     "the working tree '%s': give a path inside it", arg, res->root);
		goto done;
	} else {
		mg_buf_printf(&joined, "%s%s", res->cwd_prefix, arg);
	}
	mg_buf_puts(&path, "");
	for (seg = strtok_r(joined.ptr, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, "."))
			continue;
		if (strcmp(seg, "..")) {
			mg_buf_printf(&path, "%s%s", path.len ? "/" : "", seg);
			continue;
		}
		if (!path.len) {
			error = mg_error_set(err, NULL, 0, 0, "--out '%s' is above the working tree "
					     "'%s': the record must be committed with the manifest",
					     arg, res->root);
			goto done;
		}
		slash = strrchr(path.ptr, '/');
		path.len = slash ? (size_t)(slash - path.ptr) : 0;
		path.ptr[path.len] = '\0';
	}
	mg_error_clear(&perr);
	if (mg_path_check(path.ptr, &perr) < 0) {
		error = mg_error_set(err, NULL, 0, 0, "invalid --out path '%s': %s", arg,
				     perr.message);
		goto done;
	}
	*out = mg_buf_detach(&path, NULL);
done:
	mg_buf_free(&joined);
	mg_buf_free(&path);
	return error;
}

/* --out must not name one of the inputs the record is about. */
static int refuse_input(const mg_check_result *res, const char *record_path, const char *arg,
			mg_error *err)
{
	const mg_input_ref *refs[] = { &res->policy_ref, &res->manifest_ref, &res->report_ref,
				       &res->signature.sig_ref, &res->signature.signers_ref };
	const char *names[] = { "the policy", "the manifest", "the report",
				"the manifest's signature", "the allowed signers" };
	size_t i;

	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (refs[i]->path && !strcmp(refs[i]->path, record_path))
			return mg_error_set(err, NULL, 0, 0, "--out '%s' is %s: choose a new file "
					    "for the record", arg, names[i]);
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

/*
 * The record's bytes: the file's own when it already holds this record,
 * else the fresh one, queued (mg_record_queue_once).  *bytes is the
 * caller's.
 */
static int prepare_record(char **bytes, mg_approval *a, mg_outputs *outs, const char *path,
			  mg_error *err)
{
	char *fresh = mg_record_render(a->result), *kept;
	int error = mg_record_queue_once(&kept, outs, path, fresh, err);

	*bytes = NULL;
	if (error < 0) {
		free(fresh);
		return error;
	}
	a->record_unchanged = kept != NULL;
	if (kept)
		free(fresh);
	*bytes = kept ? kept : fresh;
	return MG_OK;
}

/*
 * The manifest committed at HEAD with approved_result set, queued for its
 * working-tree file unless that already holds it.  A working-tree manifest
 * that differs from both is somebody's uncommitted edit: refused.
 */
static int prepare_manifest(mg_approval *a, mg_outputs *outs, const mg_approve_options *opt,
			    mg_error *err)
{
	const mg_check_result *res = a->result;
	const char *path = res->manifest_ref.path;
	mg_repo *repo = NULL;
	mg_blob blob = { 0 };
	char *text = NULL, *wt = NULL;
	size_t wtlen = 0;
	int error;

	if ((error = mg_repo_open(&repo, opt->check.dir, err)) < 0 ||
	    (error = mg_repo_read(&blob, repo, res->rev, path, opt->check.max_input_bytes,
				  err)) < 0)
		goto done;
	if (!(text = mg_manifest_set_approved(blob.data, blob.len, a->record_path,
					      a->record_sha256))) {
		error = mg_error_set(err, path, 0, 0, "cannot read the manifest as a JSON object");
		goto done;
	}
	if ((error = mg_outputs_read_existing(&wt, &wtlen, outs, a->manifest_file, err)) < 0)
		goto done;
	if (wt && wtlen == strlen(text) && !memcmp(wt, text, wtlen)) {
		a->manifest_unchanged = true;
		goto done;
	}
	if (wt && (wtlen != blob.len || memcmp(wt, blob.data, wtlen))) {
		error = mg_error_set(err, a->manifest_file, 0, 0, "has uncommitted changes in the "
				     "working tree; approve pins the manifest committed at HEAD: "
				     "commit or restore them first");
		goto done;
	}
	mg_outputs_add(outs, a->manifest_file, text, strlen(text), MG_OUTPUT_REPLACE);
done:
	free(text);
	free(wt);
	mg_blob_release(&blob);
	mg_repo_free(repo);
	return error;
}

/* What can be approved at all: a manifest to pin it in, a working tree. */
static int judge_layout(const mg_check_result *res, mg_error *err)
{
	if (!res->manifest)
		return mg_error_set(err, res->policy_ref.path, 0, 0, "the policy names the report "
				    "directly ('report:'), so there is no manifest to pin an approved "
				    "result in: name a manifest ('manifest:') in the policy");
	if (!res->root)
		return mg_error_set(err, NULL, 0, 0, "a bare repository has no working tree to "
				    "write the record and the manifest in");
	return MG_OK;
}

/* The check approve runs: HEAD's evidence and policy, the approved result
 * not read (it is about to be replaced). */
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

/*
 * Queue a's record at a->record_file and its manifest with approved_result
 * in outs (a->record_path set).  MG_ERROR when the record is an input, the
 * file holds another record or the manifest has uncommitted edits.
 */
static int queue_approval(mg_approval *a, mg_outputs *outs, const mg_approve_options *opt,
			  mg_error *err)
{
	mg_buf file = MG_BUF_INIT;
	char *record = NULL;
	int error;

	if ((error = refuse_input(a->result, a->record_path, a->record_file, err)) < 0)
		return error;
	mg_outputs_guard(outs, a->result->root);
	mg_check_cli_path(&file, a->result, a->result->manifest_ref.path);
	a->manifest_file = mg_buf_detach(&file, NULL);
	if ((error = prepare_record(&record, a, outs, a->record_file, err)) < 0)
		goto done;
	if (mg_digest_sha256_hex(a->record_sha256, record, strlen(record)) < 0) {
		error = mg_error_set(err, a->record_file, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
		goto done;
	}
	error = prepare_manifest(a, outs, opt, err);
done:
	free(record);
	mg_buf_free(&file);
	return error;
}

int mg_approve_run(mg_approval **out, const mg_approve_options *opt, mg_error *err)
{
	mg_check_options copt;
	mg_approval *a = mg_xcalloc(1, sizeof(*a));
	mg_outputs *outs = mg_outputs_new();
	int error;

	assert(out && opt && opt->out_path);
	*out = NULL;
	approve_check_options(&copt, opt);
	a->record_file = mg_xstrdup(opt->out_path);
	if ((error = check_and_judge(a, &copt, err)) < 0 ||
	    (error = record_repo_path(&a->record_path, a->result, opt->out_path, err)) < 0 ||
	    (error = queue_approval(a, outs, opt, err)) < 0 ||
	    (error = mg_outputs_commit(outs, err)) < 0)
		goto done;
	*out = a;
	a = NULL;
done:
	mg_outputs_free(outs);
	mg_approve_free(a);
	return error;
}

/* --all's --out: a file name, neither a path nor "." or "..". */
static int judge_all_name(const char *name, mg_error *err)
{
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return mg_error_set(err, NULL, 0, 0, "--out '%s': with --all, --out is a file "
				    "name, written in each policy's manifest directory "
				    "(e.g. --out 75_approved.json)", name);
	return MG_OK;
}

/* --all: a->record_path, the file `name` in the directory of a's manifest;
 * a->record_file, that path from the current directory. */
static int all_record_path(mg_approval *a, const char *name, mg_error *err)
{
	const char *manifest = a->result->manifest_ref.path, *slash = strrchr(manifest, '/');
	mg_buf path = MG_BUF_INIT, file = MG_BUF_INIT;
	mg_error perr;
	int error = MG_OK;

	if (slash)
		mg_buf_printf(&path, "%.*s/", (int)(slash - manifest), manifest);
	mg_buf_puts(&path, name);
	mg_error_clear(&perr);
	if (mg_path_check(path.ptr, &perr) < 0) {
		error = mg_error_set(err, NULL, 0, 0, "invalid record path '%s': %s", path.ptr,
				     perr.message);
		goto done;
	}
	mg_check_cli_path(&file, a->result, path.ptr);
	a->record_file = mg_buf_detach(&file, NULL);
	a->record_path = mg_buf_detach(&path, NULL);
done:
	mg_buf_free(&path);
	mg_buf_free(&file);
	return error;
}

/* --all: a's record is neither an earlier policy's record nor one of the
 * other policies' inputs. */
static int refuse_shared(mg_approval *const *as, size_t n, size_t self, mg_error *err)
{
	const mg_approval *a = as[self];
	size_t j;
	int error;

	for (j = 0; j < n; j++) {
		if (j == self || !as[j]->result)
			continue;
		if (j < self && as[j]->record_path && !strcmp(as[j]->record_path, a->record_path))
			return mg_error_set(err, NULL, 0, 0, "its record '%s' would also be the "
					    "record of '%s' (their manifests share a directory): "
					    "approve them one at a time with --policy and --out",
					    a->record_path, as[j]->result->policy_ref.path);
		if ((error = refuse_input(as[j]->result, a->record_path, a->record_file, err)) < 0)
			return error;
	}
	return MG_OK;
}

/* --all, first pass: check and judge `policy` into a, with its record's
 * path; MG_ERROR with err when it is refused. */
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
	return all_record_path(a, opt->out_path, err);
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

	assert(out && count && refused && refused_count && opt && opt->out_path);
	*out = NULL;
	*count = 0;
	*refused = NULL;
	*refused_count = 0;
	if ((error = judge_all_name(opt->out_path, err)) < 0 ||
	    (error = mg_check_begin(err)) < 0)
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
	free(a->record_path);
	free(a->manifest_file);
	free(a->record_file);
	free(a);
}
