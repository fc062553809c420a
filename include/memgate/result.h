#ifndef MEMGATE_RESULT_H
#define MEMGATE_RESULT_H
/*
 * What a check gives (mg_check_run, check.h; mg_plan_all, plan.h): the
 * inputs read and where from, the decision, the policy's changes and
 * waivers, the warnings.  Plain data the renderers read; they include
 * this header, never check.h.  The functions declared here are pure
 * functions of that data, defined below the check (plugin/result/result.c), so
 * that what reads a result never calls the check; mg_check_result_free is
 * the check's.
 */
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "decision.h"
#include "error.h"
#include "history.h"
#include "manifest.h"
#include "policy.h"
#include "report.h"

/* The sizes of the hex ids a result holds, their NUL included. */
#define MG_CHECK_OID_SIZE 65     /* a commit or blob id: 40 hex digits, 64 in a
				    SHA-256 repository */
#define MG_CHECK_SHA256_SIZE 65  /* a SHA-256: 64 lowercase hex digits */

/* Where one input came from. */
typedef struct mg_input_ref {
	char *path;                 /* repository path, NULL when not read */
	char commit[MG_CHECK_OID_SIZE];    /* "" with --worktree */
	char blob[MG_CHECK_OID_SIZE];      /* blob id */
	char sha256[MG_CHECK_SHA256_SIZE]; /* "" unless computed */
	bool read;
} mg_input_ref;

/*
 * The manifest's SSH signature, when the policy that decides has a
 * provenance section (memgate(1), SIGNED EVIDENCE): MANIFEST.sig at --rev,
 * checked against the allowed-signers file at the policy revision.
 */
typedef struct mg_check_signature {
	bool checked;              /* the policy that decides asks for it */
	bool required;             /* provenance.require: problems are issues, else warnings */
	bool verified;             /* signed by a key the allowed signers list, valid today */
	enum mg_issue issue;       /* why not verified (a signature issue) */
	mg_input_ref sig_ref;      /* MANIFEST.sig at --rev (path set even when missing) */
	mg_input_ref signers_ref;  /* the allowed signers at the policy revision */
	char *principals;          /* the signer's line's principals, NULL when none */
	char *key;                 /* "ssh-ed25519 SHA256:...", NULL when not read */
	char *problem;             /* why not verified, one line; NULL when verified */
	bool at_signers;           /* the problem is at a line of the allowed signers */
	mg_pos at;                 /* where in that file or the signature; {0,0} unknown */
	/* the allowed signers' blob ids at the policy revision and at --rev
	 * (a change to the file is a policy change), "" when absent */
	char base_signers_blob[MG_CHECK_OID_SIZE], head_signers_blob[MG_CHECK_OID_SIZE];
} mg_check_signature;

/* One side of a policy change; strings and arrays are borrowed from the
 * policies the result holds. */
enum mg_change_kind {
	MG_CHANGE_UNSET,     /* the key is absent */
	MG_CHANGE_NUMBER,    /* thresholds, min_repeats, numeric pins */
	MG_CHANGE_STRING,    /* pins, baseline, rank_by */
	MG_CHANGE_VERDICTS,  /* gate.fail_on */
	MG_CHANGE_STRICTER,  /* sensitivity.stricter: count budgets of overrides */
	MG_CHANGE_GRID,      /* sensitivity.grid: count axes */
	MG_CHANGE_STRINGS    /* evidence.inputs: count strings */
};
typedef struct mg_change_value {
	enum mg_change_kind kind;
	double number;
	const char *string;
	const bool *verdicts;            /* MG_VERDICT_COUNT flags */
	const mg_budget *stricter;
	const mg_grid_axis *grid;
	char *const *strings;
	size_t count;
} mg_change_value;

enum mg_change_effect {
	MG_CHANGE_TIGHTENS,  /* the proposed value makes the gate stricter */
	MG_CHANGE_LOOSENS,   /* ... more lenient (a check or pin removed, a limit relaxed) */
	MG_CHANGE_ALTERS,    /* neither, or both (a different pin, baseline, rank_by) */
	MG_CHANGE_EXPIRED,   /* a waiver added or extended to a date already past: it
				waives nothing */
	MG_CHANGE_EFFECT_COUNT
};
/* "tightens", "loosens", "changes", "expired". */
const char *mg_check_effect_name(enum mg_change_effect e);

/* A key whose value differs between the policy that decides (at
 * --policy-rev) and the one the change proposes (at --rev). */
typedef struct mg_policy_change {
	char key[320];              /* "budget.memory_cap_mb", "identity.hardware_id",
				       "waivers[offload].memory_over_budget", ... */
	mg_change_value before;     /* at --policy-rev */
	mg_change_value after;      /* at --rev */
	enum mg_change_effect effect;
	mg_pos pos;                 /* the key in the proposed policy; 0 when it lacks it */
} mg_policy_change;

/* A change's value for people: 9400, 'gpu-a', [reject, tune], ['src/model'],
 * [{memory_cap_mb: 8500}], {memory_cap_mb: [9600, 11200]}, unset.  Raw
 * text: strings are the policy's, to be escaped for the destination. */
void mg_check_change_text(mg_buf *out, const mg_change_value *v);

struct mg_check_result;
struct mg_finding;

/* The comparison with the evidence at a base commit (--base). */
typedef struct mg_check_base {
	char rev[MG_CHECK_OID_SIZE];       /* the base commit */
	struct mg_check_result *result;  /* its check under the same policy and
					    fail_on, NULL when it could not decide */
	char *error;                /* why it could not ("file:line:col: message"), else NULL */
} mg_check_base;

/*
 * The change's own policy deciding the change's evidence (memgate(1), CI,
 * "Pull requests"): run when the change tightens or changes a key of the
 * policy and the policy that decides passes.  Once merged that policy
 * decides every later change; when it fails this evidence, the change fails
 * too (policy_change_fails_its_evidence).
 */
typedef struct mg_check_proposed {
	struct mg_check_result *result;  /* the evidence at --rev under the policy at
					    --rev and its gate.fail_on, NULL when it
					    could not decide */
	char *error;                /* why it could not ("file:line:col: message"), else NULL */
	bool fails;                 /* it fails its gate, or could not decide */
} mg_check_proposed;

/* What became of a waiver of the policy. */
enum mg_waiver_status {
	MG_WAIVER_APPLIED,    /* in force, and it let its candidate pass a check */
	MG_WAIVER_UNMATCHED,  /* in force, but its candidate or reason matches nothing */
	MG_WAIVER_EXPIRED,    /* its expiry date is before today: ignored */
	MG_WAIVER_SPENT,      /* a regression's waiver whose step the base's report
				 already made: ignored (memgate(1), WAIVERS) */
	MG_WAIVER_STATUS_COUNT
};
/* "applied", "unmatched", "expired", "spent" (the record's words; a finding's code
 * is "waiver_" and the word); NULL for an out-of-range value. */
const char *mg_check_waiver_status_name(enum mg_waiver_status s);

typedef struct mg_waiver_state {
	const mg_policy_waiver *waiver;  /* borrowed from the result's policy */
	enum mg_waiver_status status;
	bool candidate_found;            /* the report has a candidate of that name */
	bool expiring;                   /* in force, and expires within the policy's
					    waivers_warn_days */
	int days_left;                   /* days from today to its expiry (in force) */
	double accepted_pct;             /* applied to a regression: the change it
					    accepted (the first), % of the base's value */
	double spent_pct;                /* spent: the step the base's report made */
	char spent_at[MG_CHECK_OID_SIZE];/* spent: the commit that made it */
} mg_waiver_state;

/* A regression waiver's step found on the base's first-parent line (one
 * per waiver of the policy): the base's report made it, within up_to_pct. */
typedef struct mg_waiver_spent {
	bool spent;
	double pct;
	char commit[MG_CHECK_OID_SIZE];
} mg_waiver_spent;

typedef struct mg_check_result {
	bool worktree;
	bool feasible_sets;         /* the record lists each scenario's feasible set
				       (--record-feasible-sets), not only its size */
	bool adopted;               /* the change adds the policy that decides (no base
				       policy can exist: nothing to compare with) */
	char rev[MG_CHECK_OID_SIZE];       /* evidence commit ("" with --worktree) */
	char policy_rev[MG_CHECK_OID_SIZE]; /* policy commit */
	mg_input_ref policy_ref, manifest_ref, report_ref, approved_ref;
	mg_check_signature signature; /* the manifest's (policy provenance) */
	mg_policy *policy;          /* the policy that decides */
	mg_policy *head_policy;     /* the policy at --rev when another one decides
				       (its lines are those annotations point at), else NULL;
				       NULL too when it is the same blob at the same path */
	mg_manifest *manifest;      /* NULL when the policy names report: */
	mg_report *report;
	mg_decision *decision;
	struct mg_insight *insight; /* tipping points, noise, front (insight.h) */
	bool fail_on[MG_VERDICT_COUNT];  /* effective: --fail-on, else policy */
	bool passed;                /* verdict not in fail_on, and the change's own
				       policy does not fail its evidence (proposed) */
	char **warnings;            /* human sentences, one line each */
	char **warning_files;       /* per warning: the repository file it is
				       about (annotated there), or NULL */
	mg_pos *warning_pos;        /* per warning: the line and column in that
				       file it is about, { 0, 0 } for none */
	size_t warning_count;
	char **notes;               /* things to know that need no action (adoption) */
	size_t note_count;
	mg_policy_change *changes;  /* policy at --rev vs --policy-rev */
	size_t change_count;
	mg_check_base *base;        /* --base, NULL when not compared */
	mg_check_proposed *proposed; /* the change's own policy on its evidence, NULL
				       when not decided (see mg_check_proposed) */
	mg_history *history;        /* regression.history: the medians the regressions
				       were compared with, NULL without */
	bool evidence_unchanged;    /* compared with a base that decided from the very
				       same report and manifest blobs, and the change
				       alters no key of the policy (memgate(1), CI,
				       "Pull requests": What is annotated when) */
	/* --require-approved (the decision says whether it was compared) */
	char *approved_decision;    /* what the approved record says */
	char *approved_selected;
	char *approved_report_sha256;   /* the evidence it names (approval_of_other_evidence), */
	char *approved_measured_commit; /*   or NULL where it names none */
	const char *approved_hint;  /* approved_result_missing: why (static text from
				       mg_repo_uncommitted_hint, e.g. "it is untracked:
				       git add it, then commit"), or NULL */
	/* the approval beside the manifest (memgate approve): its repository
	 * path, set with --require-approved when the manifest is read; NULL
	 * too when the check reads the manifest's legacy approved_result */
	char *approval_path;
	char *approved_manifest_sha256; /* the manifest's SHA-256 it approved, once read */
	mg_pos approved_manifest_sha256_pos;
	mg_check_signature approval_sig; /* its signature (MANIFEST.approved.json.sig), in
					   namespace memgate-approve, by provenance.approvers;
					   `issue` is always approval_unverified */
	/* where memgate ran, for commands the output tells users to paste */
	char *cwd_prefix;           /* the current directory in the work tree:
				       "models/a/", "" at its root; NULL when
				       outside it (or in a bare repository) */
	char *root;                 /* the work tree's real path, NULL when bare */
	/* waivers, judged on `today` */
	char today[11];             /* YYYY-MM-DD */
	bool today_given;           /* from --today, else the clock's date in UTC */
	mg_waiver_state *waivers;   /* one per waiver of the policy, in its order */
	size_t waiver_count;
	mg_waiver_spent *waiver_spent;  /* NULL, or one per waiver of the policy */
	/* evidence.inputs: the paths that changed between the manifest's
	 * measured.commit and the gated commit (evidence_stale), in byte order,
	 * at most MG_CHECK_MAX_STALE of stale_total */
	char **stale_paths;
	size_t stale_count, stale_total;
	/* stale_count entries: the path changed on the base branch since the
	 * measurement, not by this change (--policy-rev and --rev hold the
	 * same blob there); NULL when nothing was compared with a base */
	bool *stale_on_base;
	bool measured_shallow;      /* measured_commit_unknown in a shallow clone */
	/* evidence_out_of_place: the base's report path, which the manifest no
	 * longer names though the change did not move it */
	char *place_base_path;
	/* measured_commit_behind_base: the base's measured commit, and whether
	 * the ancestry could not be told (a shallow clone lacks commits) */
	char *behind_base_commit;
	bool behind_unknown;
	/* a base run (--base) only: the candidate the base's numbers select,
	 * its evidence's freshness (evidence.inputs) aside, which the
	 * regression compares with; borrowed from the report, NULL for none */
	const char *compare_selected;
	/* the findings behind the decision (findings.h), computed once by the
	 * check when it has decided (mg_findings_fill) and read by every
	 * renderer (mg_result_findings) */
	struct mg_finding *findings;
	size_t finding_count;
	bool findings_filled;
} mg_check_result;

/* How many changed paths of evidence.inputs a result names: MG_CHECK_MAX_STALE,
 * limits.h. */

/* One policy of check --all or of a repeated --policy. */
typedef struct mg_check_item {
	const char *policy;         /* the policy's path as listed or typed (borrowed) */
	mg_check_result *result;    /* NULL when it could not be decided */
	mg_error error;             /* why, when result is NULL */
} mg_check_item;

/*
 * Where the peak series of regression g stepped (memgate(1), REGRESSIONS
 * AND HISTORY, "Against the history"): with regression.history and a
 * peak threshold, the candidate's peaks over the versions read, oldest
 * first, then the head's, through mg_step_find.  True when a step is found:
 * *commit is the version's commit where the series stepped (borrowed from
 * r->history), or NULL when it is this change; *ago how many versions
 * back it is (1: the base's latest); *pct the step in percent of the
 * mean before it.
 */
bool mg_check_step(const char **commit, size_t *ago, double *pct, const mg_check_result *r,
		   const mg_regressed *g);

/*
 * With regression.history compared: the median peak of the candidate named
 * `name` over the versions read, which its regressions compare with
 * instead of the base's own value; true and *median set when there is one.
 * The views that compare with the base show it beside the base's value,
 * so that the table and the finding name the same baseline.
 */
bool mg_check_history_median(double *median, const mg_check_result *r, const char *name);

/* The exit status of one item: 0 passes, 1 fails the gate, 2 not decided. */
int mg_check_item_status(const mg_check_item *item);

void mg_check_result_free(mg_check_result *r);

/*
 * One line about waiver i of r, in words: applied (with owner, expiry and
 * justification), matching nothing (and why), or expired (when, and the
 * date it was judged on).  Untrusted text (names, owner, justification) is
 * appended as it is: the caller escapes the line for its destination.
 */
void mg_check_waiver_message(mg_buf *out, const mg_check_result *r, size_t i);

/* One line about waiver i of r when it is expiring (mg_waiver_state): its
 * expiry date, the days left and the policy's waivers_warn_days.  Untrusted
 * text is appended as it is, as above. */
void mg_check_waiver_expiring_message(mg_buf *out, const mg_check_result *r, size_t i);

/*
 * Append `path` (a repository path) as a command pasted in the current
 * directory names it: relative to r->cwd_prefix ("bench/76.json",
 * "../llm-b/x.json"), else r->root joined with it, else as it is.  Raw
 * text: the caller escapes it for its destination.
 */
void mg_check_cli_path(mg_buf *out, const mg_check_result *r, const char *path);

/* ---- check --all's plan (mg_plan_all, plan.h) ----
 *
 * Which policies a run gates, and what becomes of those it does not: see
 * plan.h.  Plain data: the entries are in byte order of their paths.
 */
enum mg_plan_kind {
	MG_PLAN_GATE,      /* gated: mg_check_run with this policy */
	MG_PLAN_RETIRED,   /* the change deletes it with its evidence: a warning */
	MG_PLAN_DELETED,   /* the change deletes it, not its evidence: exit 2 */
	MG_PLAN_UNCHANGED  /* --changed: none of its inputs changed: listed, not gated */
};

typedef struct mg_plan_entry {
	char *policy;              /* repository path (at the policy revision
				      when retired or deleted) */
	enum mg_plan_kind kind;
	char *message;             /* RETIRED, DELETED: what to tell, raw text
				      (paths from the repository: escape it);
				      NULL when gated */
} mg_plan_entry;

typedef struct mg_plan {
	mg_plan_entry *entries;
	size_t count;
} mg_plan;

#endif
