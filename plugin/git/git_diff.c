/*
 * Which paths (see plugin/git/git.h): the files of a commit's tree
 * (mg_repo_list), the paths two trees, or a tree and the working tree,
 * differ in (mg_repo_changed_paths), and what changed between two commits
 * with renames paired (mg_repo_diff).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "git_repo.h"

struct list_ctx {
	bool (*match)(const char *name);
	char **paths;
	size_t count, cap;
};

static int list_entry(const char *root, const git_tree_entry *entry, void *payload)
{
	struct list_ctx *x = payload;
	git_filemode_t mode = git_tree_entry_filemode(entry);
	const char *name = git_tree_entry_name(entry);
	mg_buf path = MG_BUF_INIT;

	if (mode == GIT_FILEMODE_TREE)
		return 0;   /* walk into it */
	if ((mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) || !x->match(name))
		return 0;
	if (x->count == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 8;
		x->paths = mg_xrealloc(x->paths, x->cap * sizeof(*x->paths));
	}
	mg_buf_printf(&path, "%s%s", root, name);
	x->paths[x->count++] = mg_buf_detach(&path, NULL);
	return 0;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int mg_repo_list(char ***paths, size_t *count, mg_repo *repo, const char *commit_hex,
		 bool (*match)(const char *name), mg_error *err)
{
	struct list_ctx x = { match, NULL, 0, 0 };
	git_tree *tree = NULL;
	size_t i;
	int rc;

	assert(paths && count && repo && commit_hex && match);
	*paths = NULL;
	*count = 0;
	if ((rc = mg_git__lookup_tree(&tree, repo, commit_hex, "the tree", err)) < 0)
		goto done;
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, list_entry, &x) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot list the tree of %.*s: %s",
				  SHORT_ID_LEN, commit_hex, mg_git__message());
		goto done;
	}
	if (x.count > 1)
		qsort(x.paths, x.count, sizeof(*x.paths), path_cmp);
	*paths = x.paths;
	*count = x.count;
	x.paths = NULL;
	x.count = 0;
done:
	for (i = 0; i < x.count; i++)
		free(x.paths[i]);
	free(x.paths);
	git_tree_free(tree);
	return rc;
}

/* The tree of commit `hex`; MG_ENOTFOUND when the repository lacks it. */
static int commit_tree(git_tree **tree, mg_repo *repo, const char *hex, mg_error *err)
{
	git_commit *commit = NULL;
	git_oid oid;
	int rc = MG_ERROR;

	*tree = NULL;
	if (mg_git__parse_oid(&oid, hex) < 0) {
		mg_error_set(err, NULL, 0, 0, "invalid commit id '%s'", hex);
		goto done;
	}
	if ((rc = git_commit_lookup(&commit, repo->git, &oid)) < 0) {
		rc = rc == GIT_ENOTFOUND ? MG_ENOTFOUND : MG_ERROR;
		mg_error_set(err, NULL, 0, 0, "commit %.*s is not in this repository%s",
			     SHORT_ID_LEN, hex, repo->shallow ? " (a shallow clone)" : "");
		goto done;
	}
	if (git_commit_tree(tree, commit) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot read the tree of %.*s: %s",
				  SHORT_ID_LEN, hex, mg_git__message());
		goto done;
	}
	rc = 0;
done:
	git_commit_free(commit);
	return rc;
}

/* Add the delta's path(s) that `in` matches to x (the old one too when it
 * differs), keeping the first `max`; *total counts them all. */
static void changed_delta(struct list_ctx *x, size_t *total, size_t max,
			  const mg_git__inputs *in, const git_diff_delta *delta)
{
	const char *names[2];
	size_t i, k = 0;

	names[k++] = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
	if (delta->old_file.path && names[0] && strcmp(delta->old_file.path, names[0]))
		names[k++] = delta->old_file.path;
	for (i = 0; i < k; i++) {
		if (!names[i] || !mg_git__inputs_match_any(in, names[i]) || (*total)++ >= max)
			continue;
		if (x->count == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 8;
			x->paths = mg_xrealloc(x->paths, x->cap * sizeof(*x->paths));
		}
		x->paths[x->count++] = mg_xstrdup(names[i]);
	}
}

int mg_repo_changed_paths(char ***paths, size_t *count, size_t *total, mg_repo *repo,
			  const char *from_hex, const char *to_hex,
			  char *const *pathspecs, size_t n, size_t max, mg_error *err)
{
	struct list_ctx x = { NULL, NULL, 0, 0 };
	mg_git__inputs *in = NULL;
	git_diff_options opts;
	git_tree *from = NULL, *to = NULL;
	git_diff *diff = NULL;
	size_t i, deltas;
	int rc;

	assert(paths && count && total && repo && from_hex && (pathspecs || !n));
	*paths = NULL;
	*count = *total = 0;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if ((rc = commit_tree(&from, repo, from_hex, err)) < 0 ||
	    (to_hex && (rc = commit_tree(&to, repo, to_hex, err)) < 0))
		goto done;
	if ((rc = mg_git__inputs_new(&in, pathspecs, n, err)) < 0)
		goto done;
	opts.pathspec = *mg_git__inputs_patterns(in);
	if (!to_hex)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	rc = to_hex ? git_diff_tree_to_tree(&diff, repo->git, from, to, &opts)
		    : git_diff_tree_to_workdir_with_index(&diff, repo->git, from, &opts);
	if (rc < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot compare %.*s with %.*s: %s",
				  SHORT_ID_LEN, from_hex, to_hex ? SHORT_ID_LEN : 16,
				  to_hex ? to_hex : "the working tree",
				  mg_git__message());
		goto done;
	}
	/* deltas come in path order: the first `max` are the first in byte order */
	deltas = git_diff_num_deltas(diff);
	for (i = 0; i < deltas; i++)
		changed_delta(&x, total, max, in, git_diff_get_delta(diff, i));
	if (x.count > 1)
		qsort(x.paths, x.count, sizeof(*x.paths), path_cmp);
	*paths = x.paths;
	*count = x.count;
	x.paths = NULL;
	x.count = 0;
	rc = 0;
done:
	for (i = 0; i < x.count; i++)
		free(x.paths[i]);
	free(x.paths);
	mg_git__inputs_free(in);
	git_diff_free(diff);
	git_tree_free(from);
	git_tree_free(to);
	return rc;
}

/* Does entry i of `in` match a file of `tree` (NULL: the working tree)?
 * libgit2 lists the files the entry's patterns match; one must pass
 * mg_git__inputs_match.  1, 0, or MG_ERROR with the message set. */
static int matches_any(mg_repo *repo, git_tree *tree, const mg_git__inputs *in, size_t i,
		       const char *entry, mg_error *err)
{
	git_pathspec_match_list *list = NULL;
	git_pathspec *ps = NULL;
	size_t k, count;
	int rc;

	if (git_pathspec_new(&ps, mg_git__inputs_patterns(in)) < 0 ||
	    (tree ? git_pathspec_match_tree(&list, tree, GIT_PATHSPEC_USE_CASE, ps)
		  : git_pathspec_match_workdir(&list, repo->git, 0, ps)) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot match '%s': %s", entry,
				  mg_git__message());
		goto done;
	}
	count = git_pathspec_match_list_entrycount(list);
	for (k = 0; k < count; k++)
		if (mg_git__inputs_match(in, i, git_pathspec_match_list_entry(list, k)))
			break;
	rc = k < count;
done:
	git_pathspec_match_list_free(list);
	git_pathspec_free(ps);
	return rc;
}

int mg_repo_unmatched_inputs(size_t **which, size_t *count, mg_repo *repo,
			     const char *from_hex, const char *to_hex,
			     char *const *pathspecs, size_t n, mg_error *err)
{
	git_tree *from = NULL, *to = NULL;
	mg_git__inputs *in = NULL;
	size_t i, *list = NULL, k = 0;
	int rc;

	assert(which && count && repo && from_hex && (pathspecs || !n));
	*which = NULL;
	*count = 0;
	if ((rc = commit_tree(&from, repo, from_hex, err)) < 0 ||
	    (to_hex && (rc = commit_tree(&to, repo, to_hex, err)) < 0))
		goto done;
	for (i = 0; i < n; i++) {
		mg_git__inputs_free(in);
		if ((rc = mg_git__inputs_new(&in, &pathspecs[i], 1, err)) < 0)
			goto done;
		if ((rc = matches_any(repo, from, in, 0, pathspecs[i], err)) == 0)
			rc = matches_any(repo, to, in, 0, pathspecs[i], err);
		if (rc < 0)
			goto done;
		if (rc == 0) {
			list = mg_xrealloc(list, (k + 1) * sizeof(*list));
			list[k++] = i;
		}
	}
	*which = list;
	*count = k;
	list = NULL;
	rc = 0;
done:
	free(list);
	mg_git__inputs_free(in);
	git_tree_free(from);
	git_tree_free(to);
	return rc;
}

static void add_change(mg_repo_change **list, size_t *n, const git_diff_delta *d)
{
	mg_repo_change *c;

	*list = mg_xrealloc(*list, (*n + 1) * sizeof(**list));
	c = &(*list)[(*n)++];
	c->old_path = d->status == GIT_DELTA_ADDED ? NULL : mg_xstrdup(d->old_file.path);
	c->new_path = d->status == GIT_DELTA_DELETED ? NULL : mg_xstrdup(d->new_file.path);
}

int mg_repo_diff(mg_repo_change **out, size_t *count, mg_repo *repo, const char *from_hex,
		 const char *to_hex, mg_error *err)
{
	git_diff_options opts;
	git_diff_find_options find;
	git_tree *from = NULL, *to = NULL;
	git_diff *diff = NULL;
	mg_repo_change *list = NULL;
	size_t i, n = 0;
	int rc;

	assert(out && count && repo && from_hex && to_hex);
	*out = NULL;
	*count = 0;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	if ((rc = mg_git__lookup_tree(&from, repo, from_hex, "the tree", err)) < 0 ||
	    (rc = mg_git__lookup_tree(&to, repo, to_hex, "the tree", err)) < 0)
		goto done;
	/* renames come from libgit2's similarity detection, as git's own */
	find.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_tree_to_tree(&diff, repo->git, from, to, &opts) < 0 ||
	    git_diff_find_similar(diff, &find) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot compare %.*s with %.*s: %s",
				  SHORT_ID_LEN, from_hex, SHORT_ID_LEN, to_hex, mg_git__message());
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++)
		add_change(&list, &n, git_diff_get_delta(diff, i));
	*out = list;
	*count = n;
	list = NULL;
	rc = MG_OK;
done:
	git_diff_free(diff);
	git_tree_free(from);
	git_tree_free(to);
	mg_repo_changes_free(list, n);
	return rc;
}

int mg_repo_changes_match(bool *hit, const mg_repo_change *changes, size_t count,
			  char *const *pathspecs, size_t n, mg_error *err)
{
	mg_git__inputs *in = NULL;
	size_t i;
	int rc;

	assert(hit && (changes || !count) && (pathspecs || !n));
	*hit = false;
	if (!n || !count)
		return MG_OK;
	if ((rc = mg_git__inputs_new(&in, pathspecs, n, err)) < 0)
		return rc;
	/* both sides of every change, as mg_repo_changed_paths keeps each
	 * side's path (a rename is a deletion and an addition) */
	for (i = 0; i < count && !*hit; i++)
		*hit = (changes[i].old_path && mg_git__inputs_match_any(in, changes[i].old_path)) ||
		       (changes[i].new_path && mg_git__inputs_match_any(in, changes[i].new_path));
	mg_git__inputs_free(in);
	return MG_OK;
}

void mg_repo_changes_free(mg_repo_change *list, size_t count)
{
	size_t i;

	for (i = 0; list && i < count; i++) {
		free(list[i].old_path);
		free(list[i].new_path);
	}
	free(list);
}
