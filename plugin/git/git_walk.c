/*
 * A path's versions on a first-parent line (see plugin/git/git.h,
 * mg_repo_path_versions): a bounded revwalk that notes each commit whose
 * first parent holds another blob at the path.
 */
#include <assert.h>
#include <string.h>

#include "git_repo.h"

/* The blob id of the regular file `path` in commit's tree; false when the
 * tree has no regular file there (absent, a directory, a symlink). */
static bool path_blob(git_oid *id, git_commit *commit, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_filemode_t mode;
	bool found = false;

	if (git_commit_tree(&tree, commit) == 0 &&
	    git_tree_entry_bypath(&entry, tree, path) == 0) {
		mode = git_tree_entry_filemode(entry);
		found = mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
		if (found)
			git_oid_cpy(id, git_tree_entry_id(entry));
	}
	git_tree_entry_free(entry);
	git_tree_free(tree);
	mg_git__error_clear();
	return found;
}

/* Whether commit's own header names a parent (a shallow clone's boundary
 * does, though the clone lacks it). */
static bool names_parent(const git_commit *commit)
{
	const char *h = git_commit_raw_header(commit);

	return h && (strstr(h, "\nparent ") != NULL || !strncmp(h, "parent ", 7));
}

static void add_version(mg_repo_version **list, size_t *n, const git_oid *commit,
			const git_oid *blob)
{
	*list = mg_xrealloc(*list, (*n + 1) * sizeof(**list));
	git_oid_tostr((*list)[*n].commit, sizeof((*list)[*n].commit), commit);
	git_oid_tostr((*list)[*n].blob, sizeof((*list)[*n].blob), blob);
	(*n)++;
}

/* Start a first-parent walk from commit `hex`.  No sorting: on a
 * first-parent line the walk's order is the line's, and libgit2 then walks
 * lazily (a topological sort would read the whole history before the first
 * commit, past any bound, and stop at a shallow clone's boundary). */
static int start_walk(git_revwalk **walk, mg_repo *repo, const char *hex, mg_error *err)
{
	git_oid oid;

	*walk = NULL;
	if (mg_git__parse_oid(&oid, hex) < 0)
		return mg_error_set(err, NULL, 0, 0, "invalid commit id '%s'", hex);
	if (git_revwalk_new(walk, repo->git) < 0)
		goto fail;
	/* statements: libgit2 made these two return int in 1.0, and they
	 * cannot fail on a new walk */
	git_revwalk_sorting(*walk, GIT_SORT_NONE);
	git_revwalk_simplify_first_parent(*walk);
	if (git_revwalk_push(*walk, &oid) < 0)
		goto fail;
	return 0;
fail:
	return mg_error_set(err, NULL, 0, 0, "cannot walk the history of %.*s: %s",
			    SHORT_ID_LEN, hex, mg_git__message());
}

int mg_repo_path_versions(mg_repo_version **out, size_t *count, mg_repo_walk *how,
			  mg_repo *repo, const char *from_hex, const char *path,
			  size_t want, size_t max_commits, mg_error *err)
{
	git_revwalk *walk = NULL;
	git_commit *commit = NULL;
	git_oid oid, blob, pend_commit, pend_blob;
	bool pending = false, has, parented = false;
	int rc;

	assert(out && count && how && repo && from_hex && path && max_commits > 0);
	*out = NULL;
	*count = 0;
	memset(how, 0, sizeof(*how));
	memset(&blob, 0, sizeof(blob));
	if ((rc = start_walk(&walk, repo, from_hex, err)) < 0)
		goto done;
	while (*count < want) {
		if ((rc = git_revwalk_next(&oid, walk)) == 0 &&
		    git_commit_lookup(&commit, repo->git, &oid) < 0)
			rc = GIT_ENOTFOUND;
		if (rc < 0) {
			/* the line's first commit, or a shallow clone's boundary:
			 * libgit2 before 1.7 fails on its missing parent, later
			 * ones end there; the boundary's own header still names
			 * a parent.  The first commit introduced the path; at a
			 * boundary, whether the pending commit changed it is not
			 * known (its parent is not here): it is no version, so
			 * that a deeper fetch finds what a full clone does. */
			how->ended = true;
			how->shallow = repo->shallow && (rc != GIT_ITEROVER || parented);
			mg_git__error_clear();
			if (pending && !how->shallow)
				add_version(out, count, &pend_commit, &pend_blob);
			break;
		}
		has = path_blob(&blob, commit, path);
		parented = names_parent(commit);
		git_commit_free(commit);
		commit = NULL;
		/* the pending commit changed the path when its first parent
		 * (this commit) does not hold the same blob */
		if (pending && (!has || !git_oid_equal(&blob, &pend_blob)))
			add_version(out, count, &pend_commit, &pend_blob);
		if (how->visited == max_commits) {
			how->bounded = *count < want;
			break;
		}
		how->visited++;
		pending = has;
		git_oid_cpy(&pend_commit, &oid);
		git_oid_cpy(&pend_blob, &blob);
	}
	rc = 0;
done:
	git_revwalk_free(walk);
	return rc;
}
