#ifndef MEMGATE_GIT_REPO_H
#define MEMGATE_GIT_REPO_H
/*
 * What the files of the git source layer (see plugin/git/git.h) share, defined
 * in git.c unless said otherwise:
 *
 *   git.c          opening the repository, and the differences between
 *                  libgit2 versions: every test of the version is there
 *   git_rev.c      resolving a revision to a commit
 *   git_blob.c     reading a path's blob at a commit, within the input limit
 *   git_worktree.c the working tree: reading a file, whether it differs from
 *                  a blob, why a missing path is missing, where a directory is
 *   git_diff.c     which paths: a tree's files, those two trees differ in
 *   git_pathspec.c evidence.inputs entries matched as git diff matches them
 *   git_walk.c     a path's versions on a first-parent line
 *   git_lfs.c      Git LFS pointers and the local LFS store
 *
 * Only these files include git2.h.  libgit2 errors are translated into
 * mg_error messages in git's wording ("cannot read 'x' at 3f2a1c0: ...");
 * the messages name the repository path and the short commit id in the
 * message itself and leave err->file empty: the caller knows which policy
 * or manifest line named the path and may fill file, line and column.
 */
#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

#include "memgate/buf.h"
#include "git.h"

/*
 * The blobs read last, by id: check --all reads each policy, and each
 * unchanged manifest and report, at the base commit and the head (the same
 * blob), so the second read is served from here instead of the object
 * store (a loose object is opened, inflated and hashed on every read).
 * Small blobs only, in a few slots replaced in turn: bounded memory.
 */
#define BLOB_MEMO_SLOTS 16
#define BLOB_MEMO_MAX ((size_t)256 << 10)
#define RESOLVED_SLOTS 8   /* check --all resolves HEAD and --rev for every policy */

struct mg_repo {
	git_repository *git;
	bool shallow;
	git_blob *memo[BLOB_MEMO_SLOTS];
	size_t memo_next;
	struct {                   /* revisions resolved (refs do not move during a run) */
		char *rev;
		char oid[MG_GIT_OID_HEX];
	} resolved[RESOLVED_SLOTS];
	size_t resolved_next;
};

#define SHORT_ID_LEN 7
#define LIMIT_HINT "(raise it with --max-input-mb)"
#define REGULAR_ONLY "(memgate reads regular files only)"

/* libgit2's last error message, never NULL. */
const char *mg_git__message(void);

/* Forget libgit2's last error: git_error_clear, declared where the linked
 * libgit2 declares it. */
void mg_git__error_clear(void);

/* Parse a full hex object id; 0, or -1 when it is not 40 hex digits. */
int mg_git__parse_oid(git_oid *oid, const char *hex);

/* max_bytes, or MG_GIT_DEFAULT_MAX_INPUT for 0. */
size_t mg_git__effective_limit(size_t max_bytes);

/* Cut b back to its first len bytes. */
void mg_git__buf_truncate(mg_buf *b, size_t len);

/* The tree of commit `commit_hex` into *tree (the caller's); messages name
 * `path`.  0 or MG_ERROR. */
int mg_git__lookup_tree(git_tree **tree, mg_repo *repo, const char *commit_hex,
			const char *path, mg_error *err);

/* Bytes read from a file (data, emptied), as a blob's data (git_worktree.c,
 * which reads files; git_lfs.c too). */
void mg_git__take_buf(mg_blob *out, mg_buf *data);

/* Append what the open file fd holds to b, stopping once b is over limit
 * bytes (git_worktree.c): 0, MG_GIT__READ_FAILED with errno set, or
 * MG_GIT__READ_TOO_BIG.  The caller closes fd and words the error. */
#define MG_GIT__READ_FAILED (-1)
#define MG_GIT__READ_TOO_BIG 1
int mg_git__read_fd(mg_buf *b, int fd, size_t limit);

/*
 * evidence.inputs entries matched as `git diff A B -- ENTRY` matches them
 * (git_pathspec.c): libgit2 is given mg_git__inputs_patterns to look with
 * (every path an entry matches is among those they match, not the
 * reverse), and each path it finds is kept when mg_git__inputs_match (the
 * entry at index i) or mg_git__inputs_match_any says so.
 */
typedef struct mg_git__inputs mg_git__inputs;
int mg_git__inputs_new(mg_git__inputs **out, char *const *entries, size_t n, mg_error *err);
const git_strarray *mg_git__inputs_patterns(const mg_git__inputs *in);
bool mg_git__inputs_match(const mg_git__inputs *in, size_t i, const char *path);
bool mg_git__inputs_match_any(const mg_git__inputs *in, const char *path);
void mg_git__inputs_free(mg_git__inputs *in);

#endif
