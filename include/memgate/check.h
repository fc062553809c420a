#ifndef MEMGATE_CHECK_H
#define MEMGATE_CHECK_H
/*
 * memgate check: gather the inputs (from commits, or the working tree with
 * --worktree), verify hashes and the approved result, and decide.
 *
 * This is the one module that joins the git layer, the parsers and the
 * decision core.  It does not print: what it finds is in the result
 * (result.h), which the front end and the renderers read.
 */
#include <stdbool.h>
#include <stddef.h>
#include "error.h"
#include "result.h"   /* what a check gives: mg_check_result */

typedef struct mg_check_options {
	const char *dir;            /* -C DIR, NULL = current directory */
	const char *rev;            /* --rev, NULL = HEAD */
	const char *policy_path;    /* --policy, relative to `dir` (see policy_from_root);
				       NULL = the nearest .memgate.yml at or above `dir` */
	bool policy_from_root;      /* policy_path is a repository path (check --all) */
	const char *policy_rev;     /* --policy-rev, NULL = --rev */
	const char *base;           /* --base: compare with the evidence at this
				       commit; NULL = --policy-rev when given */
	bool worktree;              /* --worktree */
	bool require_approved;      /* --require-approved */
	bool ignore_approved;       /* memgate approve: the manifest's approved_result
				       is not read (it is about to be replaced) */
	bool fail_on_set;           /* --fail-on given */
	bool fail_on[MG_VERDICT_COUNT];
	size_t max_input_bytes;     /* --max-input-mb, 0 = default 64 MiB */
	bool record_feasible_sets;  /* --record-feasible-sets (mg_check_result) */
	bool no_findings;           /* no output reads the findings (findings.h): the
				       record alone; the result's are not computed */
	bool (*reads_findings)(const mg_check_result *r);
				    /* with no_findings, when not NULL: the one
				       output reads them only when this says so for
				       the decided r (the text: mg_text_reads_findings) */
	const char *today;          /* --today YYYY-MM-DD, NULL = the clock's date in UTC */
} mg_check_options;

/*
 * Bracket many checks in one process (check --all): the libraries stay
 * initialised in between instead of being set up for each check, and the
 * repository the first check opens stays open for the next ones on the
 * same -C DIR (mg_check_end closes it).  Returns
 * 0 or MG_ERROR; every successful mg_check_begin needs one mg_check_end.
 */
int mg_check_begin(mg_error *err);
void mg_check_end(void);

/*
 * Run the check.  Returns 0 with *out filled (the decision may be any
 * verdict), or MG_ERROR (exit 2) with err naming the input, line and column.
 */
int mg_check_run(mg_check_result **out, const mg_check_options *opt, mg_error *err);
/* mg_check_result_free: result.h. */

/* memgate manifest's inputs. */
typedef struct mg_manifest_options {
	const char *dir;            /* -C DIR */
	const char *rev;            /* --rev, NULL = HEAD */
	const char *report_path;    /* --report */
	const char *semantic_id;    /* --semantic-id: must equal the report's */
	const char *measured_commit; /* --measured-commit REV: written as measured.commit
					(its full id), NULL for none */
	bool worktree;              /* --worktree: hash the working-tree file */
	size_t max_input_bytes;
	const char *out_path;       /* --out, for messages about the existing file */
	const char *existing;       /* the current --out file's bytes, or NULL: */
	size_t existing_len;        /*   its approved_result is kept */
} mg_manifest_options;

/* Whether `name` is the name of a policy file: .memgate.yml or *.memgate.yml. */
bool mg_check_is_policy_name(const char *name);

/*
 * memgate list: the policy files (mg_check_is_policy_name) committed at
 * `rev` (NULL = HEAD) of the repository at `dir`, as repository paths in
 * byte order.  *paths is the caller's: mg_check_list_free.
 */
int mg_check_list(char ***paths, size_t *count, const char *dir, const char *rev,
		  mg_error *err);
void mg_check_list_free(char **paths, size_t count);

/*
 * memgate manifest: read the report `report_path` committed at `rev` (or
 * from the working tree), and build a manifest (memgate(1), REPORTS) with its SHA-256
 * and, when the report has them, its schema_version and semantic_id.  A
 * Git LFS pointer is hashed as the report it points to (mg_repo_read_lfs).
 * `semantic_id` must equal the report's own (else MG_ERROR at the report's
 * semantic_id).  With measured_commit, that revision's full commit id is
 * written as measured.commit.  An approved_result in `existing` is carried over.  Fills
 * *warnings (the working-tree report differs from the committed one, an
 * existing manifest that cannot be read, ...) and *notes (what was kept).
 * *text, *warnings and *notes are the caller's (free each string and the
 * arrays).
 */
int mg_check_make_manifest(char **text, char ***warnings, size_t *warning_count,
			   char ***notes, size_t *note_count,
			   const mg_manifest_options *opt, mg_error *err);

#endif
