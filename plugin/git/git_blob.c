/*
 * Reading a path's blob at a commit (see plugin/git/git.h, mg_repo_read):
 * the path must be a regular file in the commit's tree, and the blob within
 * the input limit, checked from the object's header before it is inflated.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git_repo.h"
#include "path.h"

/* What a tree entry is, for messages; NULL for a regular file. */
static const char *entry_problem(git_filemode_t mode)
{
	switch (mode) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return NULL;
	case GIT_FILEMODE_LINK:
		return "a symlink " REGULAR_ONLY;
	case GIT_FILEMODE_COMMIT:
		return "a submodule";
	case GIT_FILEMODE_TREE:
		return "a directory";
	default:
		return "not a regular file";
	}
}

/* A leading directory of path that is not a directory in the tree: sets
 * *len and returns what it is, or NULL when every leading part is a tree
 * (or missing). */
static const char *bad_parent(size_t *len, git_tree *tree, const char *path)
{
	git_tree_entry *entry = NULL;
	const char *slash, *what = NULL;
	char *prefix;

	for (slash = strchr(path, '/'); slash && !what; slash = strchr(slash + 1, '/')) {
		prefix = mg_xstrndup(path, (size_t)(slash - path));
		if (git_tree_entry_bypath(&entry, tree, prefix) == 0 &&
		    git_tree_entry_filemode(entry) != GIT_FILEMODE_TREE) {
			*len = (size_t)(slash - path);
			what = entry_problem(git_tree_entry_filemode(entry));
			what = what ? what : "a file";
		}
		git_tree_entry_free(entry);
		entry = NULL;
		free(prefix);
	}
	return what;
}

/* Explain why path is not in tree; returns MG_ENOTFOUND or MG_ERROR. */
static int not_found_error(mg_repo *repo, git_tree *tree, const char *path,
			   const char *at, mg_error *err)
{
	size_t len = 0;
	const char *what = bad_parent(&len, tree, path);
	const char *hint;

	if (what)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: '%.*s' is %s",
				    path, at, (int)len, path, what);
	hint = mg_repo_uncommitted_hint(repo, path);
	mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: not found%s%s", path, at,
		     hint ? "; " : "", hint ? hint : "");
	return MG_ENOTFOUND;
}

/* Find path's entry in tree and check that it is a regular file. */
static int find_entry(git_tree_entry **entry, mg_repo *repo, git_tree *tree,
		      const char *path, const char *at, mg_error *err)
{
	const char *what;
	int rc;

	rc = git_tree_entry_bypath(entry, tree, path);
	if (rc == GIT_ENOTFOUND)
		return not_found_error(repo, tree, path, at, err);
	if (rc < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s",
				    path, at, mg_git__message());
	if ((what = entry_problem(git_tree_entry_filemode(*entry))))
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: it is %s",
				    path, at, what);
	return 0;
}

/* The size of object oid, read from its header (without loading it). */
static int blob_size(size_t *size, mg_repo *repo, const git_oid *oid)
{
	git_odb *odb = NULL;
	git_object_t type;
	int rc;

	if ((rc = git_repository_odb(&odb, repo->git)) == 0)
		rc = git_odb_read_header(size, &type, odb, oid);
	git_odb_free(odb);
	return rc;
}

static void free_git_blob(void *blob)
{
	git_blob_free(blob);
}

/* A blob of the memo by id: a new handle (the caller frees it), or NULL. */
static git_blob *memo_find(mg_repo *repo, const git_oid *oid)
{
	git_blob *copy = NULL;
	size_t i;

	for (i = 0; i < BLOB_MEMO_SLOTS && repo->memo[i]; i++)
		if (git_oid_equal(git_blob_id(repo->memo[i]), oid)) {
			if (git_blob_dup(&copy, repo->memo[i]) < 0)
				return NULL;
			return copy;
		}
	return NULL;
}

/* Keep a handle on blob in the memo when it is small enough. */
static void memo_keep(mg_repo *repo, git_blob *blob)
{
	git_blob *copy = NULL;

	if ((size_t)git_blob_rawsize(blob) > BLOB_MEMO_MAX || git_blob_dup(&copy, blob) < 0)
		return;
	git_blob_free(repo->memo[repo->memo_next]);
	repo->memo[repo->memo_next] = copy;
	repo->memo_next = (repo->memo_next + 1) % BLOB_MEMO_SLOTS;
}

/* The blob oid, refused when larger than limit: from the memo, else from
 * the object store, its size read from the object's header first (a blob
 * over the limit is refused before a byte of it is inflated: a few MB of
 * zlib can hold gigabytes of zeros). */
static int lookup_blob(git_blob **out, mg_repo *repo, const git_oid *oid,
		       const char *path, const char *at, size_t limit, mg_error *err)
{
	size_t size = 0;

	if ((*out = memo_find(repo, oid))) {
		size = (size_t)git_blob_rawsize(*out);
	} else if (blob_size(&size, repo, oid) < 0) {
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s", path, at,
				    mg_git__message());
	}
	if (size > limit) {
		git_blob_free(*out);
		*out = NULL;
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: blob is %zu bytes, "
				    "more than the limit of %zu " LIMIT_HINT, path, at, size, limit);
	}
	if (*out)
		return 0;
	if (git_blob_lookup(out, repo->git, oid) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s", path, at,
				    mg_git__message());
	memo_keep(repo, *out);
	return 0;
}

/* Read the blob of entry into out (its bytes stay where libgit2 holds
 * them), refusing one larger than limit. */
static int read_blob_id(mg_blob *out, mg_repo *repo, const git_oid *oid,
			const char *path, const char *at, size_t limit, mg_error *err)
{
	git_blob *blob = NULL;
	int rc;

	if ((rc = lookup_blob(&blob, repo, oid, path, at, limit, err)) < 0)
		return rc;
	out->len = (size_t)git_blob_rawsize(blob);
	out->data = out->len ? git_blob_rawcontent(blob) : "";
	out->owner = blob;
	out->owner_free = free_git_blob;
	git_oid_tostr(out->oid, sizeof(out->oid), oid);
	return 0;
}

static int read_blob(mg_blob *out, mg_repo *repo, const git_tree_entry *entry,
		     const char *path, const char *at, size_t limit, mg_error *err)
{
	return read_blob_id(out, repo, git_tree_entry_id(entry), path, at, limit, err);
}

int mg_repo_read(mg_blob *blob, mg_repo *repo, const char *commit_hex,
		 const char *path, size_t max_bytes, mg_error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	char at[SHORT_ID_LEN + 1];
	int rc;

	assert(blob && repo && commit_hex && path);
	memset(blob, 0, sizeof(*blob));
	snprintf(at, sizeof(at), "%.7s", commit_hex);
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if ((rc = mg_git__lookup_tree(&tree, repo, commit_hex, path, err)) < 0)
		goto done;
	if ((rc = find_entry(&entry, repo, tree, path, at, err)) < 0)
		goto done;
	rc = read_blob(blob, repo, entry, path, at, mg_git__effective_limit(max_bytes), err);
done:
	git_tree_entry_free(entry);
	git_tree_free(tree);
	return rc;
}

int mg_repo_read_blob(mg_blob *blob, mg_repo *repo, const char *blob_hex, const char *path,
		      const char *commit_hex, size_t max_bytes, mg_error *err)
{
	char at[SHORT_ID_LEN + 1];
	git_oid oid;

	assert(blob && repo && blob_hex && path && commit_hex);
	memset(blob, 0, sizeof(*blob));
	snprintf(at, sizeof(at), "%.7s", commit_hex);
	if (mg_git__parse_oid(&oid, blob_hex) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: invalid blob id "
				    "'%s'", path, at, blob_hex);
	return read_blob_id(blob, repo, &oid, path, at, mg_git__effective_limit(max_bytes), err);
}

void mg_blob_release(mg_blob *blob)
{
	if (!blob)
		return;
	if (blob->owner)
		blob->owner_free(blob->owner);
	memset(blob, 0, sizeof(*blob));
}
