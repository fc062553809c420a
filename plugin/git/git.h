#ifndef MEMGATE_GIT_H
#define MEMGATE_GIT_H
/*
 * The git source layer: the only module that includes git2.h.
 *
 * Opens a repository (discovered from any subdirectory; linked worktrees and
 * bare repositories too), resolves revisions and reads a path's blob bytes
 * from a commit's tree, refusing symlinks, submodules and directories by
 * their tree-entry mode.  Also reads working-tree files for --worktree and
 * for the "uncommitted edit" warning.  Its files, a job each, are listed
 * in plugin/git/git_repo.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/error.h"

typedef struct mg_repo mg_repo;   /* opaque; mg_repo_free */

#define MG_GIT_OID_HEX 65         /* 40 (sha1) hex digits + NUL, room for 64 */
#define MG_GIT_LFS_OID_HEX 65     /* a Git LFS oid: a SHA-256, 64 hex digits + NUL */
#include "memgate/limits.h"   /* MG_GIT_DEFAULT_MAX_INPUT, MG_LFS_MAX_POINTER */

/*
 * A blob read from a commit (or a file read from the working tree).  `data`
 * is len bytes, read by length: a blob's bytes are libgit2's own (a 64 MB
 * report is not copied), which promise no NUL after them.
 */
typedef struct mg_blob {
	const char *data;
	size_t len;
	char oid[MG_GIT_OID_HEX];  /* blob id; for worktree files, the id git would give it */
	void *owner;               /* what data lies in (mg_blob_release frees it) */
	void (*owner_free)(void *owner);
} mg_blob;

/*
 * Open the repository containing `dir` (NULL = the current directory),
 * searching upwards.  Repository ownership checks are turned off (see
 * memgate(1), READING FROM GIT): memgate only reads.  A SHA-256 object-format repository is
 * refused with a clear message, and so is a repository whose git directory
 * lies inside another repository's working tree (committed there as plain
 * files: a planted repository).
 */
int mg_repo_open(mg_repo **out, const char *dir, mg_error *err);
void mg_repo_free(mg_repo *repo);

/* The working directory with a trailing '/', or NULL for a bare repository. */
const char *mg_repo_workdir(const mg_repo *repo);
bool mg_repo_is_shallow(const mg_repo *repo);

/*
 * Resolve `rev` (branch, tag, full or short id, HEAD~2, ...) to a commit and
 * write its hex id into out.  A revision that does not name a commit is
 * MG_ENOTFOUND with a message naming it; in a shallow clone, a revision past
 * the shallow boundary says so.
 */
int mg_repo_resolve(char out[MG_GIT_OID_HEX], mg_repo *repo, const char *rev,
		    mg_error *err);

/*
 * Whether commit `commit_hex` is `ancestor_hex` or descends from it (*yes).
 * 0, or MG_ENOTFOUND when the repository lacks commits the answer needs
 * (a shallow clone; in a shallow clone a "no" is not known either), with a
 * message naming both.
 */
int mg_repo_descends(bool *yes, mg_repo *repo, const char *commit_hex, const char *ancestor_hex,
		     mg_error *err);

/*
 * Read `path` from the tree of commit `commit_hex` (as resolved above).
 * The repository path rules (memgate(1), READING FROM GIT) are enforced
 * first.  Errors (exit 2), each naming path and short commit id:
 *   missing at that commit (MG_ENOTFOUND; with mg_repo_uncommitted_hint's
 *   sentence when the working tree has it), symlink, submodule, directory,
 *   larger than `max_bytes` (0 = MG_GIT_DEFAULT_MAX_INPUT; the size comes
 *   from the object's header, before any of the blob is inflated).
 * On success the blob is the caller's; release it with mg_blob_release
 * before mg_repo_free.
 */
int mg_repo_read(mg_blob *blob, mg_repo *repo, const char *commit_hex,
		 const char *path, size_t max_bytes, mg_error *err);

/* Read `path` from the working tree (for --worktree).  Same path rules and
 * size limit; a missing file is MG_ENOTFOUND; a symlink or directory refused.
 * blob->oid is the id the file would have when added (filters applied). */
int mg_repo_read_worktree(mg_blob *blob, mg_repo *repo, const char *path,
			  size_t max_bytes, mg_error *err);

/*
 * Does the working-tree copy of `path` differ from the blob `blob_oid`?
 * Sets *differs; false when there is no working tree or the file is missing
 * (a missing file is not an edit we warn about).  A file larger than
 * `max_bytes` (0 = MG_GIT_DEFAULT_MAX_INPUT) differs without being read.
 * Returns 0 or MG_ERROR.
 */
int mg_repo_worktree_differs(bool *differs, mg_repo *repo, const char *path,
			     const char *blob_oid, size_t max_bytes, mg_error *err);

/*
 * Why `path`, missing at a commit, may be missing: a static sentence such as
 * "it is untracked: git add it, then commit" or "it is staged but not
 * committed: commit it" when the working tree has it and HEAD does not;
 * NULL otherwise (no working tree, no such file, or HEAD has it).
 */
const char *mg_repo_uncommitted_hint(mg_repo *repo, const char *path);

void mg_blob_release(mg_blob *blob);

/*
 * Read the Git LFS object `lfs_oid` (64 lowercase hex) from the repository's
 * local LFS store, <common git dir>/lfs/objects/<oid[0:2]>/<oid[2:4]>/<oid>,
 * where `git lfs pull` (or a checkout with LFS) leaves it; linked worktrees
 * share their main repository's store.  Reads bytes only: the caller checks
 * them against the pointer's oid and size.  MG_ENOTFOUND when the object is
 * not in the store; MG_ERROR when it is not a regular file or larger than
 * `max_bytes` (0 = MG_GIT_DEFAULT_MAX_INPUT).  Messages name `path`, the
 * file the pointer stands for.  blob->oid is left empty.
 */
int mg_repo_read_lfs(mg_blob *blob, mg_repo *repo, const char *lfs_oid,
		     const char *path, size_t max_bytes, mg_error *err);

/*
 * Every regular file (mode 100644 or 100755) in the tree of commit
 * `commit_hex` whose base name satisfies `match`, as repository paths in
 * byte order; submodules, symlinks and their contents are skipped.  *paths
 * (an array of *count malloc'd strings) is the caller's: free each and the
 * array.  Returns 0 or MG_ERROR.
 */
int mg_repo_list(char ***paths, size_t *count, mg_repo *repo, const char *commit_hex,
		 bool (*match)(const char *name), mg_error *err);

/*
 * Where `dir` (NULL = the current directory) lies in the working tree: its
 * path from the working tree's root with a trailing '/' ("models/a/"), ""
 * at the root, in a bare repository or outside the working tree (the git
 * directory).  *out is the caller's.  Returns 0 or MG_ERROR.
 */
int mg_repo_prefix(char **out, mg_repo *repo, const char *dir, mg_error *err);

/*
 * The paths matching `pathspecs` (n git pathspecs, matched by libgit2 as
 * git diff matches them) whose content, mode or presence differs between
 * the tree of commit `from_hex` and the tree of commit `to_hex` (NULL: the
 * working tree with its index, untracked files included, as --worktree
 * reads it).  Tree to tree: no ancestry is needed, so a rebased or squashed
 * branch compares like any other.  At most `max` paths are kept, in byte
 * order; *total is how many there were.  *paths is the caller's
 * (mg_repo_list_free semantics: free each string, then the array).
 * MG_ENOTFOUND when `from_hex` is not a commit this repository has (the
 * message names its short id), MG_ERROR otherwise.
 */
int mg_repo_changed_paths(char ***paths, size_t *count, size_t *total, mg_repo *repo,
			  const char *from_hex, const char *to_hex,
			  char *const *pathspecs, size_t n, size_t max, mg_error *err);

/*
 * Which of the n `pathspecs` (matched as mg_repo_changed_paths matches
 * them) match no file of the tree of commit `from_hex` and none of the tree
 * of `to_hex` (NULL: the working tree), with libgit2's
 * git_pathspec_match_tree: a change can never make such an entry stale.
 * *which (*count indexes into pathspecs, ascending) is the caller's: free
 * it.  MG_ENOTFOUND when `from_hex` is not a commit this repository has,
 * MG_ERROR otherwise.
 */
int mg_repo_unmatched_inputs(size_t **which, size_t *count, mg_repo *repo,
			     const char *from_hex, const char *to_hex,
			     char *const *pathspecs, size_t n, mg_error *err);

/* One path that differs between two commits: old_path NULL when added,
 * new_path NULL when deleted, both (maybe equal) when modified or renamed. */
typedef struct mg_repo_change {
	char *old_path;
	char *new_path;
} mg_repo_change;

/*
 * Every path that differs between the trees of commits `from_hex` and
 * `to_hex`, renames paired by libgit2's rename detection
 * (git_diff_find_similar, git's default 50% similarity), in libgit2's
 * order.  Identical subtrees are skipped by id, so the cost follows the
 * size of the change, not of the tree.  *out is the caller's:
 * mg_repo_changes_free.  Returns 0 or MG_ERROR.
 */
int mg_repo_diff(mg_repo_change **out, size_t *count, mg_repo *repo, const char *from_hex,
		 const char *to_hex, mg_error *err);
void mg_repo_changes_free(mg_repo_change *list, size_t count);

/*
 * Does a path of `changes` (either side of one) match the pathspecs, as
 * mg_repo_changed_paths matches them?  check --all --changed asks this of
 * evidence.inputs: a change there can make evidence stale.  Returns 0, or
 * MG_ERROR when libgit2 refuses the pathspecs.
 */
int mg_repo_changes_match(bool *hit, const mg_repo_change *changes, size_t count,
			  char *const *pathspecs, size_t n, mg_error *err);

/*
 * Read the blob `blob_hex` (a full id) as the version of `path` at commit
 * `commit_hex` (both for messages), refusing one larger than `max_bytes`
 * (0 = MG_GIT_DEFAULT_MAX_INPUT) from its header.  Release with
 * mg_blob_release.  Returns 0 or MG_ERROR.
 */
int mg_repo_read_blob(mg_blob *blob, mg_repo *repo, const char *blob_hex, const char *path,
		      const char *commit_hex, size_t max_bytes, mg_error *err);

/* One version of a path on a first-parent line: the commit that changed it
 * (its first parent holds another blob there, or none) and its blob. */
typedef struct mg_repo_version {
	char commit[MG_GIT_OID_HEX];
	char blob[MG_GIT_OID_HEX];
} mg_repo_version;

/* How a walk of mg_repo_path_versions ended. */
typedef struct mg_repo_walk {
	size_t visited;  /* commits looked at (their first parent read as well) */
	bool bounded;    /* stopped at max_commits before `want` versions */
	bool ended;      /* the line's history ended before `want` versions */
	bool shallow;    /* ended, in a shallow clone (its boundary, likely) */
} mg_repo_walk;

/*
 * The last `want` versions of the regular file `path` on the first-parent
 * line from commit `from_hex` (newest first), walked with libgit2's revwalk
 * (first parents only), looking at most `max_commits` commits.  A path
 * that a commit with no (reachable) parent holds counts as a version of
 * that commit.  *out (*count entries) is the caller's: free it.  Returns 0,
 * or MG_ERROR when the walk cannot start (`from_hex` is not a commit) or
 * cannot read a commit or tree of the line that a full (not shallow)
 * clone must hold: a missing object never ends the line.
 */
int mg_repo_path_versions(mg_repo_version **out, size_t *count, mg_repo_walk *how,
			  mg_repo *repo, const char *from_hex, const char *path,
			  size_t want, size_t max_commits, mg_error *err);

/*
 * Keep libgit2 initialised between mg_git_hold and mg_git_release, so that
 * many mg_repo_open/mg_repo_free pairs (check --all) do not each
 * initialise it anew: its TLS backend loads the system's certificates on
 * every initialisation.  Returns 0 or MG_ERROR.
 */
int mg_git_hold(mg_error *err);
void mg_git_release(void);

/* Is this blob a Git LFS pointer?  Fills oid (64 hex + NUL) and size when it is. */
bool mg_blob_is_lfs_pointer(const char *data, size_t len, char lfs_oid[MG_GIT_LFS_OID_HEX],
			    unsigned long long *lfs_size);

#endif
