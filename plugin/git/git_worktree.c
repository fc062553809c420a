/*
 * The working tree (see plugin/git/git.h): reading a file for --worktree,
 * whether a file differs from a committed blob, why a path missing at a
 * commit may be missing, and where a directory lies in the working tree.
 * Every path is looked at without following a symlink.
 */
/* realpath() is an X/Open (XSI) function in POSIX.1-2008: ask for it by its
 * standard's name (every Unix has it), not by _DEFAULT_SOURCE. */
#define _XOPEN_SOURCE 700
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_repo.h"
#include "path.h"

/* What a working-tree path is, looked at without following symlinks. */
enum wt_kind {
	WT_MISSING,
	WT_FILE,
	WT_SYMLINK,
	WT_DIR,
	WT_OTHER,
	WT_PARENT_SYMLINK  /* a leading directory is a symlink */
};

/* Look at workdir/path without following any symlink on the way; *prefix
 * gets the length of the leading part that is a symlink (WT_PARENT_SYMLINK). */
static enum wt_kind wt_inspect(struct stat *st, size_t *prefix, const char *workdir,
			       const char *path)
{
	mg_buf full = MG_BUF_INIT;
	enum wt_kind kind = WT_MISSING;
	const char *slash;

	*prefix = 0;
	mg_buf_puts(&full, workdir);
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		mg_git__buf_truncate(&full, strlen(workdir));
		mg_buf_put(&full, path, (size_t)(slash - path));
		if (lstat(full.ptr, st) < 0 || !(S_ISDIR(st->st_mode) || S_ISLNK(st->st_mode)))
			goto done;
		if (S_ISLNK(st->st_mode)) {
			*prefix = (size_t)(slash - path);
			kind = WT_PARENT_SYMLINK;
			goto done;
		}
	}
	mg_git__buf_truncate(&full, strlen(workdir));
	mg_buf_puts(&full, path);
	if (lstat(full.ptr, st) < 0)
		goto done;
	kind = S_ISREG(st->st_mode) ? WT_FILE : S_ISLNK(st->st_mode) ? WT_SYMLINK
		: S_ISDIR(st->st_mode) ? WT_DIR : WT_OTHER;
done:
	mg_buf_free(&full);
	return kind;
}

/* Does the working tree have something at path (a hint for "not found")? */
static bool wt_has(mg_repo *repo, const char *path)
{
	const char *workdir = mg_repo_workdir(repo);
	struct stat st;
	size_t prefix;

	return workdir && wt_inspect(&st, &prefix, workdir, path) != WT_MISSING;
}

/* Is path in HEAD's tree?  (Then a missing path is not an uncommitted one.) */
static bool head_has(mg_repo *repo, const char *path)
{
	git_object *tree = NULL;
	git_tree_entry *entry = NULL;
	bool has;

	has = git_revparse_single(&tree, repo->git, "HEAD^{tree}") == 0 &&
	      git_tree_entry_bypath(&entry, (git_tree *)tree, path) == 0;
	git_tree_entry_free(entry);
	git_object_free(tree);
	mg_git__error_clear();
	return has;
}

const char *mg_repo_uncommitted_hint(mg_repo *repo, const char *path)
{
	unsigned int flags = 0;
	const char *hint = NULL;

	if (!wt_has(repo, path) || head_has(repo, path))
		return NULL;
	if (git_status_file(&flags, repo->git, path) < 0)
		hint = "it exists in the working tree but is not committed";
	else if (flags & GIT_STATUS_INDEX_NEW)
		hint = "it is staged but not committed: commit it";
	else if (flags & GIT_STATUS_IGNORED)
		hint = "it is untracked and ignored by .gitignore: git add -f it, then commit";
	else if (flags & GIT_STATUS_WT_NEW)
		hint = "it is untracked: git add it, then commit";
	else
		hint = "it exists in the working tree but is not committed";
	mg_git__error_clear();
	return hint;
}

/* Refuse what is not a regular file at workdir/path; 0 when it is one. */
static int wt_check(struct stat *st, const char *workdir, const char *path,
		    mg_error *err)
{
	size_t prefix;

	switch (wt_inspect(st, &prefix, workdir, path)) {
	case WT_FILE:
		return 0;
	case WT_MISSING:
		mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: not found",
			     path);
		return MG_ENOTFOUND;
	case WT_SYMLINK:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is a symlink " REGULAR_ONLY, path);
	case WT_PARENT_SYMLINK:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "'%.*s' is a symlink " REGULAR_ONLY, path, (int)prefix, path);
	case WT_DIR:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is a directory", path);
	default:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is not a regular file", path);
	}
}

static int too_big(const char *path, size_t size, size_t limit, mg_error *err)
{
	return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: file is "
			    "%zu bytes, more than the limit of %zu " LIMIT_HINT, path, size, limit);
}

int mg_git__read_fd(mg_buf *b, int fd, size_t limit)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return MG_GIT__READ_FAILED;
		mg_buf_put(b, chunk, (size_t)n);
		if (b->len > limit)
			return MG_GIT__READ_TOO_BIG;
	}
	return 0;
}

/* Bytes read from a file, as a blob's data. */
void mg_git__take_buf(mg_blob *out, mg_buf *data)
{
	char *p = mg_buf_detach(data, &out->len);

	out->data = p;
	out->owner = p;
	out->owner_free = free;
}

/* Read at most limit bytes of the regular file full into b. */
static int slurp(mg_buf *b, const char *full, const char *path, size_t limit,
		 mg_error *err)
{
	int fd, rc = 0;

	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: %s",
				    path, strerror(errno));
	switch (mg_git__read_fd(b, fd, limit)) {
	case MG_GIT__READ_FAILED:
		rc = mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: %s",
				  path, strerror(errno));
		break;
	case MG_GIT__READ_TOO_BIG:   /* it grew since we looked */
		rc = too_big(path, b->len, limit, err);
		break;
	}
	close(fd);
	return rc;
}

/* The id git would give the working-tree file path (filters applied). */
static int wt_hash(git_oid *oid, mg_repo *repo, const char *path, mg_error *err)
{
	if (git_repository_hashfile(oid, repo->git, path, GIT_OBJECT_BLOB, NULL) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot hash '%s' in the working tree: %s",
				    path, mg_git__message());
	return 0;
}

int mg_repo_read_worktree(mg_blob *blob, mg_repo *repo, const char *path,
			  size_t max_bytes, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	mg_buf full = MG_BUF_INIT, data = MG_BUF_INIT;
	size_t limit = mg_git__effective_limit(max_bytes);
	struct stat st;
	git_oid oid;
	int rc;

	assert(blob && repo && path);
	memset(blob, 0, sizeof(*blob));
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if (!workdir) {
		rc = mg_error_set(err, NULL, 0, 0, "repository has no working tree");
		goto done;
	}
	if ((rc = wt_check(&st, workdir, path, err)) < 0)
		goto done;
	if ((size_t)st.st_size > limit) {
		rc = too_big(path, (size_t)st.st_size, limit, err);
		goto done;
	}
	mg_buf_printf(&full, "%s%s", workdir, path);
	if ((rc = slurp(&data, full.ptr, path, limit, err)) < 0 ||
	    (rc = wt_hash(&oid, repo, path, err)) < 0)
		goto done;
	git_oid_tostr(blob->oid, sizeof(blob->oid), &oid);
	mg_git__take_buf(blob, &data);
done:
	mg_buf_free(&full);
	mg_buf_free(&data);
	return rc;
}

/* Same second and nanosecond (a stat time against an index time). */
static bool same_time(const struct timespec *t, const git_index_time *it)
{
	return (int32_t)t->tv_sec == it->seconds && (uint32_t)t->tv_nsec == it->nanoseconds;
}

/*
 * Is the working-tree file (stat data st) blob `want` by the index alone?
 * True when the index's entry for path records that blob and the file's
 * size, times and inode are those the entry recorded when it was added, and
 * the entry is not "racily clean" (changed in the second the index was
 * written): git's own test, so that a 64 MB report is not hashed again on
 * every run.  False means "hash it to know".
 */
static bool wt_clean_by_index(mg_repo *repo, const char *path, const git_oid *want,
			      const struct stat *st)
{
	git_index *index = NULL;
	const git_index_entry *e;
	struct stat ist;
	bool clean = false;

	if (git_repository_index(&index, repo->git) < 0 || !git_index_path(index) ||
	    stat(git_index_path(index), &ist) < 0)
		goto done;
	e = git_index_get_bypath(index, path, 0);
	clean = e && git_oid_equal(&e->id, want) &&
		e->file_size == (uint32_t)st->st_size && e->ino == (uint32_t)st->st_ino &&
		same_time(&st->st_mtim, &e->mtime) && same_time(&st->st_ctim, &e->ctime) &&
		(st->st_mtim.tv_sec < ist.st_mtim.tv_sec ||
		 (st->st_mtim.tv_sec == ist.st_mtim.tv_sec && st->st_mtim.tv_nsec < ist.st_mtim.tv_nsec));
done:
	git_index_free(index);
	mg_git__error_clear();
	return clean;
}

int mg_repo_worktree_differs(bool *differs, mg_repo *repo, const char *path,
			     const char *blob_oid, size_t max_bytes, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	git_oid want, have;
	struct stat st;
	size_t prefix;
	enum wt_kind kind = WT_MISSING;
	int rc;

	assert(differs && repo && path && blob_oid);
	*differs = false;
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if (mg_git__parse_oid(&want, blob_oid) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "invalid blob id '%s'", blob_oid);
		goto done;
	}
	if (workdir)
		kind = wt_inspect(&st, &prefix, workdir, path);
	/* a symlink or directory where the commit has a file is a change */
	*differs = kind != WT_MISSING && kind != WT_FILE;
	/* Hashing applies the checkout's filters, which may load the whole
	 * file: one larger than the input limit is not hashed, and it cannot
	 * be the committed blob, which is within the limit. */
	if (kind == WT_FILE && (size_t)st.st_size > mg_git__effective_limit(max_bytes))
		*differs = true;
	else if (kind == WT_FILE && !wt_clean_by_index(repo, path, &want, &st) &&
		 (rc = wt_hash(&have, repo, path, err)) == 0)
		*differs = !git_oid_equal(&want, &have);
done:
	return rc;
}

int mg_repo_prefix(char **out, mg_repo *repo, const char *dir, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	char *real_dir = NULL, *real_top = NULL;
	size_t n;
	int rc = MG_OK;

	assert(out && repo);
	*out = NULL;
	if (!workdir) {
		*out = mg_xstrdup("");
		return MG_OK;
	}
	real_dir = realpath(dir ? dir : ".", NULL);
	real_top = realpath(workdir, NULL);
	if (!real_dir || !real_top) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot resolve '%s': %s", real_dir ? workdir :
				  dir ? dir : ".", strerror(errno));
		goto done;
	}
	n = strlen(real_top);
	if (!strcmp(real_dir, real_top) || strncmp(real_dir, real_top, n) ||
	    (real_dir[n] != '/' && n > 1)) {
		*out = mg_xstrdup("");
	} else {
		mg_buf b = MG_BUF_INIT;

		mg_buf_printf(&b, "%s/", real_dir + n + (n > 1));
		*out = mg_buf_detach(&b, NULL);
	}
	/* The git directory inside the working tree is not a place of it. */
	if (!strcmp(*out, ".git/") || !strncmp(*out, ".git/", 5)) {
		free(*out);
		*out = mg_xstrdup("");
	}
done:
	free(real_dir);
	free(real_top);
	return rc;
}
