#ifndef MEMGATE_CHECK_RUN_H
#define MEMGATE_CHECK_RUN_H
/*
 * One run of memgate check (or of memgate manifest), shared by the files
 * that make it: the run's state, its warnings and notes, reading an input
 * at a commit or from the working tree, the revisions, and freeing a
 * result (check_run.c).  check.c, check_policy.c, check_evidence.c,
 * policy_diff.c and make_manifest.c include it; it includes none of them.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/check.h"
#include "memgate/error.h"
#include "memgate/signers.h"
#include "digest.h"
#include "git.h"

/* The state of one run: the repository, the commits and the result. */
struct run {
	const mg_check_options *opt;
	mg_repo *repo;
	mg_check_result *res;
	size_t max_bytes;
	bool pre[MG_ISSUE_COUNT];
	char head[MG_CHECK_OID_SIZE];  /* HEAD commit, "" when unborn or with --worktree */
	bool base_run;          /* the --base comparison: one policy, no base */
	bool proposed_run;      /* the change's own policy on its evidence (check.c) */
	const char *trust_rev;  /* where the allowed signers are read; NULL: the
				   policy revision */
	bool repo_held;         /* repo is held's: not freed with the run */
	bool base_compared;     /* compare_base has run (early, for regression:) */
	char *policy_path;      /* the policy's repository path, once found */
	/* the change moved the policy (check_policy.c, follow_policy): its
	 * renames, and the folder it moved from and to ("models/a/",
	 * "models/b/"; NULL when it did not move or a folder is the root),
	 * through which the evidence is followed (check_evidence.c) */
	mg_repo_change *moves;
	size_t move_count;
	char *moved_from, *moved_to;
	/* the allowed signers at trust_rev (else the policy revision), read
	 * once a run by mg_check__allowed_signers: NULL until then */
	mg_signers *signers;
	mg_input_ref signers_ref;
	bool signers_warned;    /* its uncommitted-edit warning was given */
};

/* Free what a run owns besides its result (policy_path, the moves, the
 * allowed signers). */
void mg_check__run_release(struct run *run);

/* `*path`, when the renames rename it, becomes its new name; true then. */
bool mg_check__follow_rename(char **path, const mg_repo_change *renames, size_t count);

/* The 7-digit abbreviation of a commit id, in a caller's buffer (two may
 * appear in one message). */
struct short_id {
	char hex[8];
};

/* A warning of the result. */
void mg_check__add_warning(mg_check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A warning about the file `file` (annotated there). */
void mg_check__add_warning_at(mg_check_result *res, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A warning about line and column `pos` of the file `file` (annotated there). */
void mg_check__add_warning_pos(mg_check_result *res, const char *file, mg_pos pos,
			       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A note of the result. */
void mg_check__add_note(mg_check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The 7-digit abbreviation of commit id `hex`. */
struct short_id mg_check__short_id(const char *hex);

/* Warn when the working-tree copy of `path` differs from HEAD's (an
 * uncommitted edit); `oid` is the blob just read at `commit`. */
void mg_check__warn_uncommitted(struct run *run, const char *path, const char *commit,
				const char *oid);

/*
 * Read one input at `commit` (or from the working tree), filling `ref`.
 * `from`/`pos` say where the path was named, so that a refusal points at
 * that line.  0, MG_ENOTFOUND or MG_ERROR.
 */
int mg_check__read_input(mg_blob *blob, struct run *run, mg_input_ref *ref,
			 const char *commit, const char *path, const char *from,
			 mg_pos pos, bool warn, mg_error *err);

/* A Git LFS pointer stands for the report: replace blob->data by the
 * object from the local LFS store, checked against the pointer.  Sets *lfs. */
int mg_check__resolve_lfs(mg_blob *blob, bool *lfs, struct run *run, const char *path,
			  const char *commit, mg_error *err);

/* The SHA-256 of the working-tree copy of path (an LFS pointer there
 * resolved through the store); false when there is none to compare. */
bool mg_check__worktree_sha256(char out[MG_DIGEST_HEX_SIZE], struct run *run, const char *path);

/* Resolve one revision option; the message names the option it came from. */
int mg_check__resolve_option(char out[MG_GIT_OID_HEX], mg_repo *repo, const char *option,
			     const char *rev, mg_error *err);

/* Resolve --rev and --policy-rev into res->rev and res->policy_rev. */
int mg_check__resolve_revs(struct run *run, mg_error *err);

/* `path` as typed on the command line, relative to `prefix`, as a
 * repository path; *out is the caller's.  0 or MG_ERROR. */
int mg_check__repository_path(char **out, const char *prefix, const char *path, mg_error *err);

/* Free count strings and the list. */
void mg_check__free_strings(char **list, size_t count);

/* Free what r holds, not r itself. */
void mg_check__release_result(mg_check_result *r);

#endif
