#ifndef MEMGATE_FINDINGS_PUT_H
#define MEMGATE_FINDINGS_PUT_H
/*
 * What the files of the findings (findings.c, findings_issues.c) share,
 * in findings_put.c: the list under construction, adding to it, the
 * files the findings point at, and the writers of untrusted text.
 */
#include <stddef.h>
#include <stdint.h>
#include "memgate/buf.h"
#include "memgate/result.h"
#include "findings.h"

#define NO_CANDIDATE SIZE_MAX

/* The findings under construction; the message of the next one in msg. */
struct findings {
	const mg_check_result *r;
	const mg_decision *d;
	const mg_evidence *ev;      /* NULL without a report */
	size_t selected;            /* evaluation of the selected (or best) candidate */
	mg_finding *list;
	size_t count, cap;
	mg_buf msg;
	const char *subject;        /* of the next finding (copied), or NULL */
	int issue;                  /* of the next finding, or -1 */
	size_t *first_use;          /* per evaluation: the first with its name (lazily) */
};

/* Untrusted text, escaped for a log. */
void mg_findings__put_safe(mg_buf *out, const char *s);

/* 'text', escaped; "none" for NULL. */
void mg_findings__put_quoted(mg_buf *out, const char *s);

/* An identity value or pin: 'text', a number, "none" or "a value that is
 * not a string or a number" (callers word an absent value themselves). */
void mg_findings__put_ident(mg_buf *out, const mg_value *v);

/* The paths the findings point at: the policy's, the manifest's, the
 * report's (as read, else as named); NULL when there is none. */
const char *mg_findings__policy_file(const mg_check_result *r);

const char *mg_findings__manifest_file(const mg_check_result *r);

const char *mg_findings__report_file(const mg_check_result *r);

/* Record a finding of `weight` whose message is f->msg and subject
 * f->subject (both reset). */
void mg_findings__add_weighted(struct findings *f, enum mg_finding_weight weight,
			       enum mg_finding_rank rank, const mg_code *code, const char *file,
			       mg_pos pos, size_t candidate);

/* mg_findings__add_weighted with the weight of the code's kind. */
void mg_findings__add(struct findings *f, enum mg_finding_rank rank,
		      const mg_code *code, const char *file, mg_pos pos, size_t candidate);

/* No position (0:0). */
mg_pos mg_findings__no_pos(void);

/* The evidence issues' findings (findings_issues.c). */
void mg_findings__issues(struct findings *f);

/* decision_drift: the approved decision and the computed one differ. */
void mg_findings__drift(struct findings *f);

/* policy_change_fails_its_evidence: the change's own policy fails its
 * evidence (r->proposed), at the policy's changed line. */
void mg_findings__proposed(struct findings *f);

#endif
