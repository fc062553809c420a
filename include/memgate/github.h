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

/* How loud a finding is: the level of its annotation. */
enum mg_github_weight {
	MG_GITHUB_HARD,     /* evidence issue, hard limit, disqualified candidate:
			       ::error when the gate fails, else ::warning */
	MG_GITHUB_SOFT,     /* missed target, exclusion, sensitive scenario:
			       ::warning when the gate fails, else ::notice */
	MG_GITHUB_WARNING,  /* a warning of the check (r->warnings), a policy
			       change that loosens the gate: ::warning */
	MG_GITHUB_NOTE      /* a note of the check (r->notes), a policy change
			       that does not loosen it: ::notice */
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
