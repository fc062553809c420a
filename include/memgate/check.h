#ifndef MEMGATE_CHECK_H
#define MEMGATE_CHECK_H
/*
 * memgate check: gather the inputs (from commits, or the working tree with
 * --worktree), verify hashes and the approved result, and decide.
 *
 * This is the one module that joins the git layer, the parsers and the
 * decision core.  It does not print: warnings are collected in the result
 * for the front end and the renderers.
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "error.h"
#include "manifest.h"
#include "policy.h"
#include "report.h"

typedef struct mg_check_options {
	const char *dir;            /* -C DIR, NULL = current directory */
	const char *rev;            /* --rev, NULL = HEAD */
	const char *policy_path;    /* --policy, NULL = ".memgate.yml" */
	const char *policy_rev;     /* --policy-rev, NULL = --rev */
	bool worktree;              /* --worktree */
	bool require_approved;      /* --require-approved */
	bool fail_on_set;           /* --fail-on given */
	bool fail_on[MG_VERDICT_COUNT];
	size_t max_input_bytes;     /* --max-input-mb, 0 = default 64 MiB */
} mg_check_options;

/* Where one input came from. */
typedef struct mg_input_ref {
	char *path;                 /* repository path, NULL when not read */
	char commit[65];            /* "" with --worktree */
	char blob[65];              /* blob id */
	char sha256[65];            /* "" unless computed */
	bool read;
} mg_input_ref;

/* A threshold whose value differs between the policy at --rev and at --policy-rev. */
typedef struct mg_policy_change {
	char key[48];               /* "budget.memory_cap_mb", "evidence.min_repeats", ... */
	char before[64];            /* value at --policy-rev ("unset" when absent) */
	char after[64];             /* value at --rev */
	bool loosens;               /* the --rev value would loosen the budget */
} mg_policy_change;

typedef struct mg_check_result {
	bool worktree;
	char rev[65];               /* evidence commit ("" with --worktree) */
	char policy_rev[65];        /* policy commit */
	mg_input_ref policy_ref, manifest_ref, report_ref, approved_ref;
	mg_policy *policy;
	mg_manifest *manifest;      /* NULL when the policy names report: */
	mg_report *report;
	mg_decision *decision;
	bool fail_on[MG_VERDICT_COUNT];  /* effective: --fail-on, else policy */
	bool passed;                /* verdict not in fail_on */
	char **warnings;            /* human sentences, one line each */
	size_t warning_count;
	mg_policy_change *changes;  /* policy at --rev vs --policy-rev */
	size_t change_count;
	/* --require-approved */
	bool approved_checked;
	char *approved_decision;    /* what the approved record says */
	char *approved_selected;
	const char *approved_hint;  /* approved_result_missing: why (static text from
				       mg_repo_uncommitted_hint, e.g. "it is untracked:
				       git add it, then commit"), or NULL */
	/* When approved_checked: what the evidence decides now, before the
	 * approved record is compared (the decision above is reject /
	 * decision_drift when they differ). */
	enum mg_verdict computed_verdict;
	const char *computed_reason;     /* static */
	const char *computed_selected;   /* borrowed from the report, or NULL */
} mg_check_result;

/*
 * Run the check.  Returns 0 with *out filled (the decision may be any
 * verdict), or MG_ERROR (exit 2) with err naming the input, line and column.
 */
int mg_check_run(mg_check_result **out, const mg_check_options *opt, mg_error *err);
void mg_check_result_free(mg_check_result *r);

/*
 * memgate manifest: read the committed report `report_path` at `rev` (NULL
 * = HEAD) of the repository at `dir`, and build a manifest (SPEC 1.2) with
 * its SHA-256 and, when the report has them, its schema_version and
 * semantic_id (`semantic_id`, when not NULL, takes precedence).  *text is
 * the caller's.
 */
int mg_check_make_manifest(char **text, const char *dir, const char *rev,
			   const char *report_path, const char *semantic_id,
			   size_t max_input_bytes, mg_error *err);

#endif
