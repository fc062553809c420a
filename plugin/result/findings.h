#ifndef MEMGATE_FINDINGS_H
#define MEMGATE_FINDINGS_H
/*
 * The findings behind a decision: what every CI renderer (annotations, job
 * summary, JUnit, SARIF, Code Quality, the text's evidence details) shows,
 * each with the policy, manifest or report line it comes from.  Pure: built
 * from a check result, no I/O.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/result.h"


/* How loud a finding is: the level of its annotation, from the kind of its
 * code unless its producer says otherwise. */
enum mg_finding_weight {
	MG_FINDING_HARD,     /* evidence issue, hard limit, disqualified candidate:
			       ::error when the gate fails, else ::warning */
	MG_FINDING_SOFT,     /* missed target, exclusion, sensitive scenario:
			       ::warning when the gate fails, else ::notice */
	MG_FINDING_WARNING,  /* a warning of the check (r->warnings), a policy
			       change that loosens the gate, a waiver that
			       expired or matches nothing: ::warning */
	MG_FINDING_NOTE      /* a note of the check (r->notes), a policy change
			       that does not loosen it, a waiver applied: ::notice */
};
/* WARNING and NOTE findings have sections of their own in the text, the
 * summary and the record (warnings, notes, policy changes): renderers that
 * list "reasons" leave them out. */

/* How important a finding is, most important first. */
enum mg_finding_rank {
	MG_FINDING_RANK_EVIDENCE,     /* evidence issues, decision drift */
	MG_FINDING_RANK_SELECTED,     /* reasons of the selected (or best) candidate */
	MG_FINDING_RANK_HARD,         /* other hard findings */
	MG_FINDING_RANK_WARNING,      /* warnings */
	MG_FINDING_RANK_SENSITIVITY,  /* scenarios that change a sensitive selection */
	MG_FINDING_RANK_TARGET,       /* missed targets, exclusions */
	MG_FINDING_RANK_WAIVER,       /* waivers applied */
	MG_FINDING_RANK_COUNT
};

#define MG_FINDING_FINGERPRINT_SIZE 65   /* 64 hex digits and a NUL */

/* One reason behind the decision, with the input line it comes from. */
typedef struct mg_finding {
	enum mg_finding_weight weight;
	enum mg_finding_rank rank;
	const mg_code *code; /* its row of mg_codes (memory_over_budget,
				report_hash_mismatch, warning, note, ...): static */
	const char *file;    /* repository path, borrowed from the result; NULL for none */
	mg_pos pos;          /* 1-based; 0 when unknown */
	size_t candidate;    /* index of the base evaluation, or SIZE_MAX */
	int issue;           /* the evidence issue (enum mg_issue) it reports, or -1 */
	char *message;       /* one line; untrusted text escaped with mg_escape_text */
	char *subject;       /* what it is about, the same from commit to commit
				(a candidate's name, a scenario id, a waiver's
				candidate and reason, a warning's text); NULL for
				the evidence as a whole.  Raw bytes, not escaped */
	char fingerprint[MG_FINDING_FINGERPRINT_SIZE];  /* mg_finding_fingerprints,
				set by mg_findings_fill; "" from mg_findings */
} mg_finding;

/*
 * Every finding of r, most important first (report order within a rank):
 * evidence issues and decision drift, each reason of each candidate in the
 * base screening (but the baseline's comparisons with itself, see
 * mg_finding_self_comparison), a missing baseline, the scenarios that change
 * a sensitive selection, the warnings, notes and policy changes (at their
 * line in the proposed policy).  *out is the caller's: mg_findings_free.
 */
void mg_findings(mg_finding **out, size_t *count, const mg_check_result *r);

/*
 * Compute r's findings (mg_findings) and their fingerprints into
 * r->findings, freeing those it held: once, when the check has decided
 * (mg_check_run).  Code that builds or changes a result itself (a test)
 * calls it before rendering.
 */
void mg_findings_fill(mg_check_result *r);

/*
 * The findings every renderer reads: r's, as mg_findings_fill left them,
 * with their fingerprints; *count is their number.  Borrowed from r, which
 * reading leaves as it is.
 */
const mg_finding *mg_result_findings(const mg_check_result *r, size_t *count);

/*
 * Is `reason` of evaluation `e` the baseline compared with itself?  The
 * baseline (evidence.baseline) is the reference: its memory saving is 0, its
 * throughput ratio 1 and its quality delta 0 by definition, so it misses a
 * positive saving floor on every run.  The record keeps such reasons (memgate(1),
 * USAGE: the baseline); they are not findings: no annotation, no JUnit
 * failure.
 */
bool mg_finding_self_comparison(const mg_check_result *r, const mg_evaluation *e,
			       enum mg_reason reason);
void mg_findings_free(mg_finding *findings, size_t count);

/*
 * Is f a finding to keep out of annotations and SARIF errors?  True when
 * the change leaves the evidence and the policy as the base had them
 * (r->evidence_unchanged) and f is about a candidate other than the
 * selected one (else the best): the same marks would otherwise appear on
 * every pull request, code-only ones included.  Such findings stay in the
 * log, the job summary, JUnit and the record.
 */
bool mg_finding_quiet(const mg_check_result *r, const mg_finding *f);

/*
 * A stable fingerprint of each finding, for code scanning and Code Quality:
 * the SHA-256 of the policy's path, the finding's code and its subject, so
 * that it stays the same while lines move and commits change, and differs
 * between candidates, reasons and policies.  Findings of a list that would
 * share one get the number of their occurrence mixed in, so that every
 * fingerprint of the list is unique.  `out` has `count` entries.
 */
void mg_finding_fingerprints(char (*out)[MG_FINDING_FINGERPRINT_SIZE], const char *policy,
			    const mg_finding *findings, size_t count);

/*
 * The policy whose lines annotations point at: on a pull request the
 * policy that decides is the base's, but GitHub attaches annotations to the
 * pull request's file, so lines come from the policy at --rev when it was
 * read (a key it lacks gets no line).
 */
const mg_policy *mg_findings_lines_policy(const mg_check_result *r);

/*
 * Call fn for every finding of r (mg_result_findings), most important
 * first, with its fingerprint (what SARIF and Code Quality write for each).
 */
void mg_findings_each(const mg_check_result *r,
		      void (*fn)(void *ctx, const mg_check_result *r, const mg_finding *f,
				 const char *fingerprint),
		      void *ctx);

/* The repository path of r's policy, or NULL. */
const char *mg_findings_policy_file(const mg_check_result *r);

/* Where a file-based report (SARIF, Code Quality) shows finding f of r: its
 * file, else r's policy; its line and column, else 1 (never 0). */
void mg_finding_place(const char **file, mg_pos *pos, const mg_check_result *r,
		     const mg_finding *f);

#endif
