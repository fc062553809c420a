#ifndef MEMGATE_GITHUB_H
#define MEMGATE_GITHUB_H
/*
 * GitHub Actions: workflow-command annotations and step outputs
 * (README, "Escaping for CI").
 */
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "check.h"

#define MG_GITHUB_TOKEN_SIZE 33   /* 32 hex digits and a NUL */
#define MG_GITHUB_MAX_ANNOTATIONS 10  /* per level per step, as GitHub shows */

/* 16 random bytes from getrandom(), hex-encoded.  Returns 0 or MG_ERROR. */
int mg_github_token(char out[MG_GITHUB_TOKEN_SIZE]);

/*
 * The annotations for a decision: one ::error (the gate fails) or ::notice
 * (it passes) for the decision, at the policy's gate.fail_on (or line 1),
 * then one annotation per finding (mg_github_findings) with file, line, col
 * and title pointing at the policy, manifest or report line behind it, most
 * important first.  Levels: see enum mg_github_weight.  At most
 * MG_GITHUB_MAX_ANNOTATIONS per level, the decision included: a level with
 * more shows one fewer and a closing annotation that counts the rest.  Then
 * the full text log (mg_text_render and every finding) inside
 * ::stop-commands::<token> ... ::<token>:: so that no input text can run a
 * command.  Properties and messages are encoded per README, "Escaping
 * for CI"; untrusted text in them is first escaped with mg_escape_text, so an
 * annotation is always one line of visible text.  `token` is
 * mg_github_token's.  Returns a malloc'd string for stdout.
 */
char *mg_github_render(const mg_check_result *r, const char *token);

/*
 * Step outputs in the GITHUB_OUTPUT env-file format: decision, reason,
 * next-action, selected-candidate ("" when none), passed (true/false).  A
 * plain token ([A-Za-z0-9_.-]+) is written NAME=VALUE, anything else
 * NAME<<ghadelimiter_<token>, the value, the delimiter.  Values are written
 * as valid UTF-8 (mg_escape_utf8) and otherwise exactly: a \r stays in the
 * value, as the Linux and macOS runners end lines at \n only.  A value that
 * holds the delimiter line (also with a trailing \r) is replaced by its
 * one-line mg_escape_text form.  `token` is a plain token (mg_github_token's).
 * Returns a malloc'd string to append to $GITHUB_OUTPUT.
 */
char *mg_github_outputs(const mg_check_result *r, const char *token);

/*
 * When memgate could not decide (exit 2): one ::error annotation titled
 * "memgate: could not decide" at err's file, line and column (left out when
 * unknown), and the step outputs decision=error, passed=false, error=<the
 * message with its position>, with reason, next-action and
 * selected-candidate empty, so that later steps can tell.  Both returned
 * malloc'd; escaping as above.
 */
char *mg_github_render_error(const mg_error *err);
char *mg_github_outputs_error(const mg_error *err, const char *token);

/*
 * Shared by the CI renderers (annotations, job summary, JUnit): the
 * findings behind a decision and the checks of a budget.
 */

/* How loud a finding is: the level of its annotation, from the kind of its
 * code (mg_code_find). */
enum mg_github_weight {
	MG_GITHUB_HARD,     /* evidence issue, hard limit, disqualified candidate:
			       ::error when the gate fails, else ::warning */
	MG_GITHUB_SOFT,     /* missed target, exclusion, sensitive scenario:
			       ::warning when the gate fails, else ::notice */
	MG_GITHUB_WARNING,  /* a warning of the check (r->warnings), a policy
			       change that loosens the gate, a waiver that
			       expired or matches nothing: ::warning */
	MG_GITHUB_NOTE      /* a note of the check (r->notes), a policy change
			       that does not loosen it, a waiver applied: ::notice */
};
/* WARNING and NOTE findings have sections of their own in the text, the
 * summary and the record (warnings, notes, policy changes): renderers that
 * list "reasons" leave them out. */

/* How important a finding is, most important first. */
enum mg_github_rank {
	MG_GITHUB_RANK_EVIDENCE,     /* evidence issues, decision drift */
	MG_GITHUB_RANK_SELECTED,     /* reasons of the selected (or best) candidate */
	MG_GITHUB_RANK_HARD,         /* other hard findings */
	MG_GITHUB_RANK_WARNING,      /* warnings */
	MG_GITHUB_RANK_SENSITIVITY,  /* scenarios that change a sensitive selection */
	MG_GITHUB_RANK_TARGET,       /* missed targets, exclusions */
	MG_GITHUB_RANK_WAIVER,       /* waivers applied */
	MG_GITHUB_RANK_COUNT
};

/* One reason behind the decision, with the input line it comes from. */
typedef struct mg_github_finding {
	enum mg_github_weight weight;
	enum mg_github_rank rank;
	const char *code;    /* "memory_over_budget", "report_hash_mismatch",
				"warning", "note", "policy_change", ...: static */
	const char *file;    /* repository path, borrowed from the result; NULL for none */
	mg_pos pos;          /* 1-based; 0 when unknown */
	size_t candidate;    /* index of the base evaluation, or SIZE_MAX */
	char *message;       /* one line; untrusted text escaped with mg_escape_text */
	char *subject;       /* what it is about, the same from commit to commit
				(a candidate's name, a scenario id, a waiver's
				candidate and reason, a warning's text); NULL for
				the evidence as a whole.  Raw bytes, not escaped */
} mg_github_finding;

/*
 * Every finding of r, most important first (report order within a rank):
 * evidence issues and decision drift, each reason of each candidate in the
 * base screening (but the baseline's comparisons with itself, see
 * mg_github_self_comparison), a missing baseline, the scenarios that change
 * a sensitive selection, the warnings, notes and policy changes (at their
 * line in the proposed policy).  *out is the caller's: mg_github_findings_free.
 */
void mg_github_findings(mg_github_finding **out, size_t *count, const mg_check_result *r);

/*
 * Is `reason` of evaluation `e` the baseline compared with itself?  The
 * baseline (evidence.baseline) is the reference: its memory saving is 0, its
 * throughput ratio 1 and its quality delta 0 by definition, so it misses a
 * positive saving floor on every run.  The record keeps such reasons (SPEC
 * screening); they are not findings: no annotation, no JUnit failure.
 */
bool mg_github_self_comparison(const mg_check_result *r, const mg_evaluation *e,
			       enum mg_reason reason);
void mg_github_findings_free(mg_github_finding *findings, size_t count);

#define MG_GITHUB_FINGERPRINT_SIZE 65   /* 64 hex digits and a NUL */

/*
 * A stable fingerprint of each finding, for code scanning and Code Quality:
 * the SHA-256 of the policy's path, the finding's code and its subject, so
 * that it stays the same while lines move and commits change, and differs
 * between candidates, reasons and policies.  Findings of a list that would
 * share one get the number of their occurrence mixed in, so that every
 * fingerprint of the list is unique.  `out` has `count` entries.
 */
void mg_github_fingerprints(char (*out)[MG_GITHUB_FINGERPRINT_SIZE], const char *policy,
			    const mg_github_finding *findings, size_t count);

/* The repository path of r's policy, or NULL. */
const char *mg_github_policy_file(const mg_check_result *r);

/* Where a file-based report (SARIF, Code Quality) shows finding f of r: its
 * file, else r's policy; its line and column, else 1 (never 0). */
void mg_github_place(const char **file, mg_pos *pos, const mg_check_result *r,
		     const mg_github_finding *f);

/*
 * check --all and repeated --policy: the annotations of several policies in
 * one step (at most MG_GITHUB_MAX_ANNOTATIONS per level in all; a policy
 * that could not be decided is one ::error at its path), then one
 * ::stop-commands:: block with each policy's log and the combined table
 * (mg_text_render_set).  Returns a malloc'd string for stdout.
 */
char *mg_github_render_set(const mg_check_item *items, size_t count, const char *token);

/*
 * The step outputs of several policies: decision, reason, next-action and
 * selected-candidate of the first policy with the worst decision (reject,
 * then tune, then accept), passed ("true" when every policy passed) and
 * policies (a JSON array of {policy, decision, reason, selected_candidate,
 * passed}).  Only called when every policy was decided.
 */
char *mg_github_outputs_set(const mg_check_item *items, size_t count, const char *token);

/* A check of the budget as a column: value against threshold.  The
 * eval_loss check stands for both quality ceilings (the effective one). */
typedef struct mg_github_check {
	enum mg_threshold threshold;
	enum mg_metric_id metric;
	enum mg_reason reason;    /* the reason it adds when it fails */
	const char *label;        /* "peak", "samples/s", "eval_loss", "memory saving", ... */
	const char *unit;         /* " MB" or "" */
	bool ceiling;             /* value <= threshold passes (else value >= threshold) */
} mg_github_check;

#define MG_GITHUB_CHECK_COUNT 6
/* In the order of the reasons: hard limits, then targets. */
extern const mg_github_check mg_github_checks[MG_GITHUB_CHECK_COUNT];

/* Whether budget b runs check c. */
bool mg_github_check_active(const mg_github_check *c, const mg_budget *b);
/* The threshold check c compares with under d's base budget (the effective
 * quality ceiling); false when it is not known (a relative ceiling without a
 * measured baseline). */
bool mg_github_check_limit(double *limit, const mg_github_check *c, const mg_decision *d);

#endif
