/*
 * The policy of memgate check: find it, read it at the policy revision
 * and at --rev, adopt, follow or repair it.  See check_policy.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "git.h"
#include "check_run.h"
#include "check_policy.h"
#include "policy_diff.h"

#define DEFAULT_POLICY ".memgate.yml"

/* Text inputs (YAML) must not hold NUL bytes; JSON is checked by its parser. */
static int check_text(const mg_blob *blob, const char *path, mg_error *err)
{
	const char *nul = memchr(blob->data, '\0', blob->len);
	int line = 1, col = 1;
	const char *p;

	if (!nul)
		return MG_OK;
	for (p = blob->data; p < nul; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return mg_error_set(err, path, line, col,
			    "contains a NUL byte: not a text file");
}

/* Is there a policy at `path` to read (at the policy commit, or in the working tree)? */
static bool policy_exists(struct run *run, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	int rc;

	if (run->res->worktree)
		rc = mg_repo_read_worktree(&blob, run->repo, path, run->max_bytes, &ignored);
	else
		rc = mg_repo_read(&blob, run->repo, run->res->policy_rev, path, run->max_bytes,
				  &ignored);
	mg_blob_release(&blob);
	return rc != MG_ENOTFOUND;
}

/*
 * Find the policy: --policy relative to where memgate runs (or as a
 * repository path for --all); else the nearest .memgate.yml in that
 * directory or one above it, the repository root's last, a committed one
 * or one the working tree has uncommitted (an error names it).  Sets
 * run->policy_path.  0 or MG_ERROR.
 */
static int find_policy(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	char *prefix = NULL, *slash;
	mg_buf path = MG_BUF_INIT;
	int error;

	if (opt->policy_path && opt->policy_from_root) {
		run->policy_path = mg_xstrdup(opt->policy_path);
		return MG_OK;
	}
	if ((error = mg_repo_prefix(&prefix, run->repo, opt->dir, err)) < 0)
		return error;
	if (opt->policy_path) {
		error = mg_check__repository_path(&run->policy_path, prefix, opt->policy_path, err);
		goto done;
	}
	while (*prefix) {
		mg_buf_printf(&path, "%s%s", prefix, DEFAULT_POLICY);
		/* the nearest policy decides, committed or not: one the user
		 * wrote but did not commit is named (policy_missing says how
		 * to commit it), never passed over for one further up */
		if (policy_exists(run, path.ptr) ||
		    (!run->res->worktree && mg_repo_uncommitted_hint(run->repo, path.ptr))) {
			run->policy_path = mg_buf_detach(&path, NULL);
			goto done;
		}
		mg_buf_free(&path);
		prefix[strlen(prefix) - 1] = '\0';   /* "models/a/" -> "models/" */
		slash = strrchr(prefix, '/');
		if (slash)
			slash[1] = '\0';
		else
			prefix[0] = '\0';
	}
	run->policy_path = mg_xstrdup(DEFAULT_POLICY);
done:
	mg_buf_free(&path);
	free(prefix);
	return error;
}

static int load_policy_from(mg_policy **out, struct run *run, const char *commit,
			    const char *path, mg_input_ref *ref, mg_error *err)
{
	mg_blob blob = { 0 };
	int error;

	if ((error = mg_check__read_input(&blob, run, ref, commit, path, NULL, (mg_pos){ 0, 0 },
					  true, err)) < 0)
		goto done;
	if ((error = check_text(&blob, path, err)) < 0)
		goto done;
	error = mg_policy_parse(out, path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

static int load_policy_at(mg_policy **out, struct run *run, const char *commit,
			  mg_input_ref *ref, mg_error *err)
{
	return load_policy_from(out, run, commit, run->policy_path, ref, err);
}

/* ---- the policy ---- */

static const char *policy_path_of(const struct run *run)
{
	if (run->policy_path)
		return run->policy_path;
	return run->opt->policy_path ? run->opt->policy_path : DEFAULT_POLICY;
}

/* Is `path` in the tree of `commit`? */
static bool commit_has(struct run *run, const char *commit, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool has = mg_repo_read(&blob, run->repo, commit, path, run->max_bytes, &ignored) == 0;

	mg_blob_release(&blob);
	return has;
}

/* Add to err's message which policy it is about (the revision's role). */
static int policy_context(mg_error *err, const char *what, const char *commit)
{
	mg_buf msg = MG_BUF_INIT;

	mg_buf_printf(&msg, "%s (in the policy %s, at %.7s)", err->message, what, commit);
	snprintf(err->message, sizeof(err->message), "%s", msg.ptr);
	mg_buf_free(&msg);
	return MG_ERROR;
}

/*
 * A file where memgate looked for a .memgate.yml (the directory it runs in,
 * and that of `path`) whose name is a policy's misspelt (memgate.yml,
 * .memgate.yaml, memgate.yaml), at --rev or in the working tree: a
 * sentence saying so, appended to `hint`.
 */
static void misnamed_hint(mg_buf *hint, struct run *run, const char *path)
{
	static const char *const misnamed[] = { "memgate.yml", ".memgate.yaml", "memgate.yaml" };
	const char *slash = strrchr(path, '/');
	const char *dirs[2];
	int lens[2];
	mg_buf near = MG_BUF_INIT;
	mg_blob blob = { 0 };
	mg_error ignored;
	size_t i, d;
	bool found = false;

	dirs[0] = run->res->cwd_prefix ? run->res->cwd_prefix : "";
	lens[0] = (int)strlen(dirs[0]);
	dirs[1] = path;
	lens[1] = slash ? (int)(slash - path + 1) : 0;
	for (d = 0; d < 2 && !found; d++)
		for (i = 0; i < sizeof(misnamed) / sizeof(misnamed[0]) && !found; i++) {
			near.len = 0;
			mg_buf_printf(&near, "%.*s%s", lens[d], dirs[d], misnamed[i]);
			found = commit_has(run, run->res->rev, near.ptr) ||
				mg_repo_read_worktree(&blob, run->repo, near.ptr, run->max_bytes,
						      &ignored) == 0;
			mg_blob_release(&blob);
		}
	if (found)
		mg_buf_printf(hint, "; '%s' is not a policy's name (did you mean '%.*s%s'? "
			      "memgate reads .memgate.yml and NAME.memgate.yml: rename it with "
			      "'git mv')", near.ptr, lens[d - 1], dirs[d - 1], DEFAULT_POLICY);
	mg_buf_free(&near);
}

/*
 * The policy is missing at the policy revision (and, when it differs from
 * --rev, at --rev too): say which revision that is and whether HEAD has it.
 */
static int policy_missing(struct run *run, mg_error *err)
{
	const mg_check_result *res = run->res;
	const char *path = policy_path_of(run);
	struct short_id pol = mg_check__short_id(res->policy_rev), ev = mg_check__short_id(res->rev);
	struct short_id head = mg_check__short_id(run->head);
	const char *uncommitted = mg_repo_uncommitted_hint(run->repo, path);
	mg_buf hint = MG_BUF_INIT, cli = MG_BUF_INIT;

	if (!res->cwd_prefix && res->root)
		mg_buf_puts(&cli, path);   /* for git -C <root> */
	else
		mg_check_cli_path(&cli, res, path);

	if (strcmp(res->rev, res->policy_rev))
		mg_buf_printf(&hint, "; the evidence revision %s has none either", ev.hex);
	if (run->head[0] && strcmp(run->head, res->policy_rev) && strcmp(run->head, res->rev))
		mg_buf_printf(&hint, commit_has(run, run->head, path) ? "; HEAD (%s) has it"
					: "; HEAD (%s) has none either", head.hex);
	if (uncommitted && strstr(uncommitted, "git add")) {
		/* "it is untracked[ and ignored by .gitignore]: git add[ -f] it, ..." */
		mg_buf_printf(&hint, "; %.*s: run 'git ", (int)strcspn(uncommitted, ":"), uncommitted);
		if (!res->cwd_prefix && res->root)
			mg_buf_printf(&hint, "-C %s ", res->root);
		mg_buf_printf(&hint, "add %s%s', then commit", strstr(uncommitted, "add -f") ? "-f " : "",
			      cli.ptr);
	} else if (uncommitted) {
		mg_buf_printf(&hint, "; %s", uncommitted);
	} else if (strstr(err->message, "exists in the working tree")) {
		mg_buf_puts(&hint, "; it exists in the working tree but is not committed");
	}
	if (!run->opt->policy_path && !uncommitted)
		misnamed_hint(&hint, run, path);
	if (!run->opt->policy_path && !uncommitted)
		mg_buf_puts(&hint, "; no .memgate.yml here or above: 'memgate list' shows the "
			    "repository's policies, 'memgate check --all' gates them all");
	else
		mg_buf_puts(&hint, "; 'memgate list' shows the repository's committed policies, "
			    "'memgate check --all' gates them all");
	mg_error_set(err, NULL, 0, 0, "no policy '%s' at %s, the policy revision%s%s%s", path,
		     pol.hex, run->opt->policy_rev ? " (--policy-rev)" : "",
		     run->head[0] && !strcmp(run->head, res->policy_rev) ? " (HEAD)" : "", hint.ptr);
	mg_buf_free(&hint);
	mg_buf_free(&cli);
	return MG_ERROR;
}

static int adopt_new_policy(struct run *run, mg_error *err);

/*
 * The path the change moved the policy from, when git's rename detection
 * (mg_repo_diff) pairs the policy at --rev with a policy file of the policy
 * revision: *from is the caller's, NULL when the policy was not moved.
 * The change's renames are kept in *renames (*count of them) to follow the
 * policy's evidence.
 */
static int moved_from(char **from, mg_repo_change **renames, size_t *count, struct run *run,
		      mg_error *err)
{
	const char *path = run->policy_path, *slash;
	size_t i;
	int error;

	*from = NULL;
	if ((error = mg_repo_diff(renames, count, run->repo, run->res->policy_rev,
				  run->res->rev, err)) < 0)
		return error;
	for (i = 0; i < *count; i++) {
		const mg_repo_change *c = &(*renames)[i];

		if (!c->old_path || !c->new_path || strcmp(c->new_path, path) ||
		    !strcmp(c->old_path, path))
			continue;
		slash = strrchr(c->old_path, '/');
		if (mg_check_is_policy_name(slash ? slash + 1 : c->old_path))
			*from = mg_xstrdup(c->old_path);
	}
	return MG_OK;
}


/* The folder of `path` with its '/' ("models/a/"), or NULL at the root. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	mg_buf b = MG_BUF_INIT;

	if (!slash)
		return NULL;
	mg_buf_put(&b, path, (size_t)(slash - path + 1));
	return mg_buf_detach(&b, NULL);
}

/*
 * The policy moved from `from` to run->policy_path with its folder: keep
 * both folders (the evidence is followed through them, check_evidence.c)
 * and read p's evidence.inputs entries under the old folder as they read
 * under the new one, where the code now is (the policy this change
 * proposes names them so: moving a model is not a change of its policy).
 */
static void follow_folder(struct run *run, mg_policy *p, const char *from)
{
	char *old_dir = folder_of(from), *new_dir = folder_of(run->policy_path);
	size_t i, k = old_dir ? strlen(old_dir) : 0;
	mg_buf mapped = MG_BUF_INIT;

	if (!old_dir || !new_dir || !strcmp(old_dir, new_dir)) {
		free(old_dir);
		free(new_dir);
		return;
	}
	run->moved_from = old_dir;
	run->moved_to = new_dir;
	for (i = 0; i < p->input_count; i++) {
		if (strncmp(p->inputs[i], old_dir, k))
			continue;
		mapped.len = 0;
		mg_buf_printf(&mapped, "%s%s", new_dir, p->inputs[i] + k);
		free(p->inputs[i]);
		p->inputs[i] = mg_buf_detach(&mapped, NULL);
	}
	mg_buf_free(&mapped);
}

/*
 * The change moved the policy from `from` (a model folder renamed, say):
 * the base's policy at its old place decides, its evidence paths followed
 * through the change's renames, so moving a model neither escapes its
 * budget nor loses its base comparison.
 */
static int follow_policy(struct run *run, const char *from, const mg_repo_change *renames,
			 size_t count, mg_error *err)
{
	mg_check_result *res = run->res;
	int error;

	mg_error_clear(err);
	error = load_policy_from(&res->policy, run, res->policy_rev, from, &res->policy_ref, err);
	if (error < 0)
		return policy_context(err, "that decides (the policy revision)", res->policy_rev);
	mg_check__follow_rename(&res->policy->manifest, renames, count);
	mg_check__follow_rename(&res->policy->report, renames, count);
	follow_folder(run, res->policy, from);
	mg_check__add_note(res, "the change moves '%s' to '%s' (git's rename detection): the "
			   "policy at %s decides at its new place", from, run->policy_path,
			   mg_check__short_id(res->policy_rev).hex);
	return MG_OK;
}

/* A policy file of the policy revision that the change deletes, not
 * moved to another policy file (a retirement): the first, or NULL. */
static const char *retired_in(const mg_repo_change *changes, size_t count)
{
	const char *slash, *name;
	size_t i;

	for (i = 0; i < count; i++) {
		if (!changes[i].old_path)
			continue;
		slash = strrchr(changes[i].old_path, '/');
		if (!mg_check_is_policy_name(slash ? slash + 1 : changes[i].old_path))
			continue;
		name = changes[i].new_path ? strrchr(changes[i].new_path, '/') : NULL;
		if (!changes[i].new_path ||
		    !mg_check_is_policy_name(name ? name + 1 : changes[i].new_path))
			return changes[i].old_path;
	}
	return NULL;
}

static bool same_pin(const mg_value *a, const mg_value *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == MG_VALUE_STRING)
		return !strcmp(a->string, b->string);
	return a->kind != MG_VALUE_NUMBER || a->number == b->number;
}

/* Do two policies gate the same evidence: workload, hardware and model? */
static bool same_identity(const mg_policy *a, const mg_policy *b)
{
	static const enum mg_ident ids[] = { MG_ID_WORKLOAD, MG_ID_HARDWARE, MG_ID_MODEL };
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!same_pin(&a->rules.pin[ids[i]], &b->rules.pin[ids[i]]))
			return false;
	return true;
}

/*
 * A policy of the policy revision with the identity of `added`: *twin is
 * its path (the caller's), or NULL.  A policy that cannot be read there is
 * passed over (it decides nothing here).  0 or MG_ERROR.
 */
static int twin_of(char **twin, struct run *run, const mg_policy *added, mg_error *err)
{
	char **paths = NULL;
	size_t i, n = 0;
	mg_policy *p;
	mg_input_ref ref = { 0 };
	mg_error ignored;
	int error;

	*twin = NULL;
	if ((error = mg_repo_list(&paths, &n, run->repo, run->res->policy_rev,
				  mg_check_is_policy_name, err)) < 0)
		goto done;
	for (i = 0; i < n && !*twin; i++) {
		p = NULL;
		if (load_policy_from(&p, run, run->res->policy_rev, paths[i], &ref, &ignored) == 0 &&
		    same_identity(p, added))
			*twin = mg_xstrdup(paths[i]);
		mg_policy_free(p);
	}
done:
	free(ref.path);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return error;
}

/*
 * A policy the change adds judges its own evidence by its own budget only
 * when it is truly new: not while the change retires another policy (the
 * retired one's evidence would escape to a looser budget: an error that
 * says what to do).  A policy of the policy revision that pins the same
 * workload, hardware and model is named in a warning for the reviewers.
 */
static int refuse_false_adoption(struct run *run, const mg_repo_change *changes, size_t count,
				 mg_error *err)
{
	const char *path = policy_path_of(run), *retired = retired_in(changes, count);
	struct short_id pol = mg_check__short_id(run->res->policy_rev);
	char *twin = NULL;
	int error;

	if (retired)
		return mg_error_set(err, path, 0, 0, "the change adds this policy while it retires "
				    "'%s' (at %s, the policy revision): a policy cannot adopt its "
				    "own evidence in the change that retires another, or the retired "
				    "budget could be escaped; retire and adopt in separate pull "
				    "requests, or move the policy with its model ('git mv') so that "
				    "its rules follow it", retired, pol.hex);
	if ((error = twin_of(&twin, run, run->res->policy, err)) < 0)
		return error;
	if (twin)
		mg_check__add_warning_at(run->res, path, "this policy, which the change adds, pins "
					 "the identity (workload_id, hardware_id, model_id) of '%s' "
					 "at %s, the policy revision: reviewers, check that it gates "
					 "other evidence than '%s' does, or change '%s' instead",
					 twin, pol.hex, twin, twin);
	free(twin);
	return error;
}

/* Adoption: the policy revision has no policy at all, so the one this
 * change adds decides, and a note says so.  A policy the change moved is
 * not adopted: the base's decides (follow_policy); nor is one added while
 * another retires or beside its twin (refuse_false_adoption). */
static int adopt_policy(struct run *run, mg_error *err)
{
	mg_repo_change *renames = NULL;
	size_t count = 0;
	char *from = NULL;
	int error;

	if ((error = moved_from(&from, &renames, &count, run, err)) < 0)
		goto done;
	if (from) {
		if ((error = follow_policy(run, from, renames, count, err)) == MG_OK) {
			run->moves = renames;   /* the evidence follows them */
			run->move_count = count;
			renames = NULL;
			count = 0;
		}
		goto done;
	}
	if ((error = adopt_new_policy(run, err)) < 0)
		goto done;
	error = refuse_false_adoption(run, renames, count, err);
done:
	free(from);
	mg_repo_changes_free(renames, count);
	return error;
}

static int adopt_new_policy(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	int error;

	mg_error_clear(err);
	error = load_policy_at(&res->policy, run, res->rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND)
		return policy_missing(run, err);
	if (error < 0)
		return policy_context(err, "this change adds", res->rev);
	res->adopted = true;
	mg_check__add_note(res, "adopting memgate: the policy revision %s has no '%s', so the "
			   "policy this change adds (at %s) decides; once it is merged, changes "
			   "are gated by the policy of their base",
			   mg_check__short_id(res->policy_rev).hex, policy_path_of(run),
			   mg_check__short_id(res->rev).hex);
	return MG_OK;
}

/*
 * The policy at the policy revision was read but does not parse (err says
 * why; one that cannot be read at all, too large say, stays an error).  It
 * cannot decide anything, and it must not lock the repository: every
 * change, the one that fixes it included, would fail.  So the policy this
 * change proposes decides, loudly (a warning at the policy, in the log and
 * the job summary).  When that one does not parse either, the error names
 * both.
 */
static int repair_policy(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	char base_msg[sizeof(err->file) + sizeof(err->message) + 64];
	struct short_id pol = mg_check__short_id(res->policy_rev), ev = mg_check__short_id(res->rev);
	char head_msg[sizeof(base_msg)];
	int error;

	mg_error_format(err, base_msg, sizeof(base_msg));
	mg_error_clear(err);
	error = load_policy_at(&res->policy, run, res->rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND)
		return mg_error_set(err, policy_path_of(run), 0, 0,
				    "the policy at %s (the policy revision) cannot be read: %s; "
				    "and the change deletes it", pol.hex, base_msg);
	if (error < 0) {
		mg_error_format(err, head_msg, sizeof(head_msg));
		return mg_error_set(err, err->file[0] ? err->file : policy_path_of(run),
				    err->line, err->column,
				    "neither policy can be read: at %s (the policy revision): %s; "
				    "at %s (this change): %s", pol.hex, base_msg, ev.hex, head_msg);
	}
	mg_check__add_warning_at(res, policy_path_of(run),
				 "the policy at %s (the policy revision) cannot be read (%s), so "
				 "the policy this change proposes (at %s) decides: reviewers, check "
				 "it as you would a new policy", pol.hex, base_msg, ev.hex);
	return MG_OK;
}

/*
 * Read the policy at --policy-rev; when that is another commit than --rev,
 * also read the policy at --rev, which the change proposes: it must be a
 * valid policy too (after the merge it decides), and what it alters is
 * listed.  When the policy revision has no policy, the change adopts
 * memgate and its own policy decides.
 */
/*
 * The policy at --rev into res->head_policy, read as any input; not parsed
 * again when it is the very blob of the policy that decides, at the same
 * path: head_policy then stays NULL, and the one that decides stands for it.
 */
static int load_head_policy(struct run *run, mg_input_ref *ref, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_blob blob = { 0 };
	int error;

	if ((error = mg_check__read_input(&blob, run, ref, res->rev, run->policy_path, NULL,
					  (mg_pos){ 0, 0 }, true, err)) < 0 ||
	    (error = check_text(&blob, run->policy_path, err)) < 0)
		goto done;
	if (res->policy_ref.path && !strcmp(res->policy_ref.path, run->policy_path) &&
	    !strcmp(res->policy_ref.blob, blob.oid))
		goto done;
	error = mg_policy_parse(&res->head_policy, run->policy_path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

int mg_check__load_policies(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_input_ref head_ref = { 0 };
	bool two = !res->worktree && strcmp(res->rev, res->policy_rev) && !run->base_run;
	int error;

	if ((error = find_policy(run, err)) < 0)
		return error;
	error = load_policy_at(&res->policy, run, res->policy_rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND && two) {
		if ((error = adopt_policy(run, err)) < 0)
			return error;
		if (!strcmp(res->policy_ref.path, run->policy_path))
			return MG_OK;   /* adopted: the change's own policy decides */
		/* moved: the proposed policy at its new place is read as any */
	}
	if (error == MG_ENOTFOUND && !run->base_run && !res->worktree)
		return policy_missing(run, err);
	if (error < 0 && two && res->policy_ref.read)
		return repair_policy(run, err);   /* read, but it does not parse */
	if (error < 0)
		return two ? policy_context(err, "that decides (the policy revision)", res->policy_rev)
			   : error;
	if (!two)
		return MG_OK;
	error = load_head_policy(run, &head_ref, err);
	free(head_ref.path);
	if (error == MG_ENOTFOUND)
		return mg_error_set(err, policy_path_of(run), 0, 0,
				    "the change deletes the policy: it is at %s (the policy "
				    "revision) but not at %s; once merged, the gate could not run",
				    mg_check__short_id(res->policy_rev).hex,
				    mg_check__short_id(res->rev).hex);
	if (error < 0)
		return policy_context(err, "this change proposes", res->rev);
	mg_policy_diff__compare(run, res->policy, res->head_policy ? res->head_policy : res->policy);
	return MG_OK;
}

bool mg_check_is_policy_name(const char *name)
{
	size_t n = strlen(name), k = strlen(DEFAULT_POLICY);

	return n >= k && !strcmp(name + n - k, DEFAULT_POLICY);
}
