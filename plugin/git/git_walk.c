/*
 * A path's versions on a first-parent line (see plugin/git/git.h,
 * mg_repo_path_versions): a bounded revwalk that notes each commit whose
 * first parent holds another blob at the path.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "git_repo.h"

/* The message of a walk from `from` that cannot read object `what` (kind
 * "commit" or "tree"); MG_ERROR. */
static int unreadable(mg_error *err, const char *kind, const git_oid *what, const char *from,
		      bool missing)
{
	char hex[MG_GIT_OID_HEX];

	git_oid_tostr(hex, sizeof(hex), what);
	return mg_error_set(err, NULL, 0, 0, "cannot read the %s %.12s on the first-parent line "
			    "of %.12s: %s", kind, hex, from,
			    missing ? "not in the repository" : mg_git__message());
}

/* Set *found and the blob id of the regular file `path` in commit's tree;
 * *found false when the tree has no regular file there (absent, a
 * directory, a symlink).  0, or MG_ERROR when the tree (or a tree on the
 * path) cannot be read: a missing object is no absent file. */
static int path_blob(bool *found, git_oid *id, git_commit *commit, const char *path,
		     const char *from, mg_error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	const git_error *e;
	git_filemode_t mode;
	int rc;

	*found = false;
	if ((rc = git_commit_tree(&tree, commit)) < 0) {
		rc = unreadable(err, "tree", git_commit_tree_id(commit), from, false);
		goto done;
	}
	if ((rc = git_tree_entry_bypath(&entry, tree, path)) < 0) {
		/* not there is GIT_ENOTFOUND from the tree code; a tree on the
		 * path that the object database lacks is not */
		e = git_error_last();
		if (rc == GIT_ENOTFOUND && e && e->klass == GIT_ERROR_TREE)
			rc = 0;
		else
			rc = unreadable(err, "tree", git_commit_tree_id(commit), from, false);
		goto done;
	}
	mode = git_tree_entry_filemode(entry);
	*found = mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
	if (*found)
		git_oid_cpy(id, git_tree_entry_id(entry));
done:
	git_tree_entry_free(entry);
	git_tree_free(tree);
	mg_git__error_clear();
	return rc;
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

/* The first commit from `id` on its first-parent line that the repository
 * cannot read (into *id), looking a few commits on: libgit2's revwalk
 * fails on a commit's parents before it returns the commit. */
static void first_unreadable(git_oid *id, git_repository *repo)
{
	git_commit *c = NULL;
	bool more;
	int steps;

	for (steps = 0; steps < 16 && git_commit_lookup(&c, repo, id) == 0; steps++) {
		more = git_commit_parentcount(c) > 0;
		if (more)
			git_oid_cpy(id, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
		if (!more)
			break;
	}
}

int mg_repo_path_versions(mg_repo_version **out, size_t *count, mg_repo_walk *how,
			  mg_repo *repo, const char *from_hex, const char *path,
			  size_t want, size_t max_commits, mg_error *err)
{
	git_revwalk *walk = NULL;
	git_commit *commit = NULL;
	git_oid oid, blob, pend_commit, pend_blob, parent;
	bool pending = false, has, parented = false, lost = false;
	int rc;

	assert(out && count && how && repo && from_hex && path && max_commits > 0);
	*out = NULL;
	*count = 0;
	memset(how, 0, sizeof(*how));
	memset(&blob, 0, sizeof(blob));
	memset(&parent, 0, sizeof(parent));
	if ((rc = start_walk(&walk, repo, from_hex, err)) < 0)
		goto done;
	while (*count < want) {
		if ((rc = git_revwalk_next(&oid, walk)) == 0 &&
		    git_commit_lookup(&commit, repo->git, &oid) < 0) {
			rc = GIT_ENOTFOUND;
			lost = true;
		}
		if (rc < 0 && !repo->shallow && (rc != GIT_ITEROVER || parented)) {
			/* a full clone lacks a commit of the line (the one the
			 * walk returned, or the parent it could not read): the
			 * history is not there to end, it cannot be read */
			if (!lost)
				git_oid_cpy(&oid, &parent);
			if (rc != GIT_ITEROVER)
				first_unreadable(&oid, repo->git);
			rc = unreadable(err, "commit", &oid, from_hex, rc == GIT_ITEROVER);
			goto done;
		}
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
		rc = path_blob(&has, &blob, commit, path, from_hex, err);
		parented = names_parent(commit);
		if (git_commit_parentcount(commit))
			git_oid_cpy(&parent, git_commit_parent_id(commit, 0));
		git_commit_free(commit);
		commit = NULL;
		if (rc < 0)
			goto done;
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
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*count = 0;
	}
	git_revwalk_free(walk);
	return rc;
}
