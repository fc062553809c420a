#ifndef MEMGATE_POLICY_H
#define MEMGATE_POLICY_H
/*
 * The budget policy (memgate(1), POLICY), read with libyaml.
 *
 * mg_policy is plain data owned by the policy: every string and array in it
 * is freed by mg_policy_free.  `rules` is what the decision core reads.
 * Every position is 1-based and points at the value in the YAML text.
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "error.h"
#include "limits.h"   /* memgate's, in this directory */

/* One entry of `waivers:` (every field is required; up_to_pct only, and
 * always, with a regression's reason). */
typedef struct mg_policy_waiver {
	char *candidate;            /* the candidate's name, as the report spells it */
	enum mg_reason reason;      /* mg_reason_waiver_may_name */
	char *justification;
	char *owner;
	char expires[11];           /* "YYYY-MM-DD" as written */
	int expires_ymd;            /* year * 10000 + month * 100 + day */
	mg_pos pos;                 /* the entry */
	mg_pos candidate_pos, reason_pos, expires_pos;
	double up_to_pct;           /* a regression's reason: the largest change accepted */
	bool up_to_set;
	mg_pos up_to_pct_pos;
} mg_policy_waiver;

typedef struct mg_policy {
	char *path;                 /* as given to mg_policy_parse, for messages */
	int version;                /* always 1 */
	char *manifest;             /* exactly one of manifest / report is set */
	mg_pos manifest_pos;
	char *report;
	mg_pos report_pos;
	mg_rules rules;
	mg_pos threshold_pos[MG_THRESHOLD_COUNT]; /* of each base and regression threshold set */
	mg_pos baseline_pos, min_repeats_pos, rank_by_pos, noise_pos;
	/* evidence.inputs: git pathspecs whose change since the manifest's
	 * measured.commit makes the evidence stale; none when input_count is 0 */
	char **inputs;
	size_t input_count;
	mg_pos inputs_pos;          /* the sequence */
	mg_pos *input_pos;          /* input_count entries */
	mg_pos *stricter_pos;       /* stricter_count entries: each entry's mapping */
	mg_pos *grid_pos;           /* grid_count entries: each axis's key */
	bool fail_on_set;           /* gate.fail_on was given */
	bool fail_on[MG_VERDICT_COUNT]; /* default: reject and tune */
	mg_pos fail_on_pos;
	bool provenance_set;        /* the policy has a provenance: section */
	mg_pos provenance_pos;
	char *allowed_signers;      /* provenance.allowed_signers: a repository path */
	mg_pos allowed_signers_pos;
	char *sig_namespace;        /* provenance.namespace, default "memgate" */
	mg_pos sig_namespace_pos;
	bool sig_required;          /* provenance.require, default true */
	mg_pos sig_required_pos;
	/* provenance.signers: who may measure, principal patterns matched as
	 * `ssh-keygen -Y verify -I` matches an allowed-signers line's
	 * principals (mg_signers_principals_allowed); 0 entries: any listed key.
	 * provenance.approvers: who may approve, the same form: the approval
	 * beside the manifest is signed in namespace memgate-approve by one of
	 * them (--require-approved; approval_unverified). */
	char **signers;
	size_t signer_count;
	mg_pos signers_pos;
	char **approvers;
	size_t approver_count;
	mg_pos approvers_pos;
	bool waivers_set;           /* the policy has a waivers: section (maybe empty) */
	mg_policy_waiver *waivers;  /* waiver_count entries, in the order written */
	size_t waiver_count;
	int waivers_warn_days;      /* a waiver this close to its expiry gets a notice
				       (default MG_POLICY_WARN_DAYS; 0: none) */
	mg_pos waivers_warn_days_pos;
	/* regression: rules.regression (limits, covers, reject); the section's
	 * position is 0:0 when the policy has none */
	mg_pos regression_pos, regression_covers_pos, regression_decision_pos;
	mg_pos regression_history_pos, regression_history_max_commits_pos;  /* 0:0 when not set */
	mg_pos regression_noise_test_pos, regression_alpha_pos;             /* 0:0 when not set */
} mg_policy;

/*
 * The policy's keys: one row each (policy_keys.c), in the order of the
 * policy reference, a section's row before its keys.  The reader takes its
 * key lists from it, the policy diff (on a pull request) compares every row
 * with a value, and tests/check-vocabulary holds the JSON Schema's
 * properties against it.
 */
enum mg_key_value {            /* what a row's field holds */
	MG_KV_NONE,            /* nothing compared on its own: a section (its keys
				  are), version, a waiver's field (its entry is), a
				  scenario's threshold (its scenario is) */
	MG_KV_STRING,          /* char *, NULL when unset */
	MG_KV_INT,             /* int, always set */
	MG_KV_COUNT,           /* int, 0 when unset */
	MG_KV_NUMBER,          /* double, always set */
	MG_KV_BOOL,            /* bool, shown as words[0] (false) or words[1] */
	MG_KV_ENUM,            /* an enum, shown by word() */
	MG_KV_PIN,             /* mg_value (an identity pin) */
	MG_KV_THRESHOLD,       /* mg_budget, threshold `arg` of it */
	MG_KV_STRICTER,        /* rules.stricter, its scenarios */
	MG_KV_GRID,            /* rules.grid, its axes */
	MG_KV_INPUTS,          /* inputs: the pathspecs */
	MG_KV_STRINGS,         /* char ** with a size_t count at offset `arg` */
	MG_KV_VERDICTS,        /* bool[MG_VERDICT_COUNT] */
	MG_KV_WAIVERS,         /* the waivers, compared entry by entry */
};
enum mg_key_move {             /* which way a change of the key moves the gate */
	MG_MOVE_NONE,          /* not compared (MG_KV_NONE) */
	MG_MOVE_CHANGES,       /* neither tighter nor looser: changes */
	MG_MOVE_PRESENCE,      /* set tightens, unset loosens; another value changes */
	MG_MOVE_BOUND,         /* a threshold: a higher ceiling or a lower floor
				  loosens, the other way tightens; presence as above */
	MG_MOVE_MORE,          /* a larger number tightens, a smaller loosens */
	MG_MOVE_ORDER,         /* words from looser to tighter (words[0], words[1];
				  an enum's in enum order); presence as above */
	MG_MOVE_SUBSET,        /* a list of decisions: one dropped loosens, else tightens */
	MG_MOVE_ENTRIES,       /* each entry added or extended loosens, removed or
				  shortened tightens (waivers) */
};
typedef struct mg_policy_key {
	int section;               /* the section (policy_walk.h's enum section) */
	const char *key;
	enum mg_key_value value;
	size_t field;              /* offsetof(mg_policy, the value) */
	size_t pos;                /* offsetof(mg_policy, its mg_pos) */
	int arg;                   /* MG_KV_THRESHOLD: the threshold; MG_KV_STRINGS:
				      offsetof(mg_policy, its count); else -1 */
	const char *(*word)(int);  /* MG_KV_ENUM: the enum's names */
	const char *words[2];      /* MG_KV_BOOL: the words of false and true */
	enum mg_key_move move;
	const char *schema;        /* its JSON Schema type: "number", "object", ... */
} mg_policy_key;

/* The rows, *n of them. */
const mg_policy_key *mg_policy_keys(size_t *n);
/* A section's name in a key's path: "" (the top level), "budget",
 * "waivers[]" (each waiver), "sensitivity.stricter[]" (each scenario). */
const char *mg_policy_section_name(int section);
/* Whether p has the section (an optional one: provenance, regression);
 * its keys are unset when it has not. */
bool mg_policy_has_section(const mg_policy *p, int section);

/* Limits on what a policy may hold (MG_POLICY_MAX_*): limits.h. */
/* waivers_warn_days when the policy omits it. */
#define MG_POLICY_WARN_DAYS 14

/*
 * Parse `len` bytes of `text` (need not be NUL-terminated) read from `path`.
 * On error returns MG_ERROR with err naming path:line:column and the problem
 * ("unknown key 'memory_cap' (did you mean 'memory_cap_mb'?)").
 * On success *out belongs to the caller.
 *
 * Plain scalars resolve with the YAML 1.2 core schema; quoted ones are
 * strings.  Refused before any key is looked at: aliases, anchors, tags
 * outside the core schema, a second document, and nesting, scalars or value
 * counts past the limits above.  The manifest/report path is stored as
 * written: its path rules (memgate(1), READING FROM GIT) are checked when it
 * is read.  Assumes the C locale for LC_NUMERIC (strtod).
 */
int mg_policy_parse(mg_policy **out, const char *path, const char *text,
		    size_t len, mg_error *err);

void mg_policy_free(mg_policy *p);

#endif
