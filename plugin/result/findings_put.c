/* Adding findings, and the writers and paths they use: see findings_put.h. */
#include <assert.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/escape.h"
#include "format.h"
#include "findings_put.h"
#include "severity.h"

void mg_findings__put_safe(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

/* 'text', escaped; "none" for NULL. */
void mg_findings__put_quoted(mg_buf *out, const char *s)
{
	if (!s) {
		mg_buf_puts(out, "none");
		return;
	}
	mg_buf_putc(out, '\'');
	mg_findings__put_safe(out, s);
	mg_buf_putc(out, '\'');
}

/* An identity value or pin: 'text', a number, "none" or "a value that is
 * not a string or a number" (callers word an absent value themselves). */
void mg_findings__put_ident(mg_buf *out, const mg_value *v)
{
	if (v->kind == MG_VALUE_STRING)
		mg_findings__put_quoted(out, v->string);
	else if (v->kind == MG_VALUE_NUMBER)
		mg_format_threshold(out, v->number);
	else if (v->kind == MG_VALUE_ABSENT)
		mg_buf_puts(out, "none");
	else
		mg_buf_puts(out, "a value that is not a string or a number");
}

const char *mg_findings__policy_file(const mg_check_result *r)
{
	/* the file whose lines the findings name (mg_findings_lines_policy):
	 * the head's, at a moved policy's new place */
	if (r->head_policy && r->head_policy->path)
		return r->head_policy->path;
	return r->policy_ref.path ? r->policy_ref.path : r->policy ? r->policy->path : NULL;
}


const char *mg_findings__manifest_file(const mg_check_result *r)
{
	return r->manifest_ref.path ? r->manifest_ref.path :
	       r->manifest ? r->manifest->path : NULL;
}

const char *mg_findings__report_file(const mg_check_result *r)
{
	return r->report_ref.path ? r->report_ref.path : r->report ? r->report->path : NULL;
}

const mg_policy *mg_findings_lines_policy(const mg_check_result *r)
{
	return r->head_policy ? r->head_policy : r->policy;
}

/* Record a finding of `weight` whose message is f->msg and subject
 * f->subject (both reset). */
void mg_findings__add_weighted(struct findings *f, enum mg_finding_weight weight,
			       enum mg_finding_rank rank, const mg_code *code, const char *file,
			       mg_pos pos, size_t candidate)
{
	mg_finding *x;

	if (f->count == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->list = mg_xrealloc(f->list, f->cap * sizeof(*f->list));
	}
	assert(code);
	x = &f->list[f->count++];
	x->weight = weight;
	x->subject = f->subject ? mg_xstrdup(f->subject) : NULL;
	f->subject = NULL;
	x->issue = f->issue;
	x->rank = rank;
	x->code = code;
	x->file = file;
	x->pos = pos;
	x->candidate = candidate;
	/* a copy of its length: a buffer grown by doubling would hold about
	 * twice the text, for each of up to a finding per candidate */
	x->message = mg_xstrndup(f->msg.ptr ? f->msg.ptr : "", f->msg.len);
	f->msg.len = 0;
	if (f->msg.ptr)
		f->msg.ptr[0] = '\0';
	x->fingerprint[0] = '\0';
}

/* add_weighted with the weight of the code's kind. */
void mg_findings__add(struct findings *f, enum mg_finding_rank rank,
		      const mg_code *code, const char *file, mg_pos pos, size_t candidate)
{
	mg_findings__add_weighted(f, mg_severity_of_kind(code->kind)->weight, rank, code, file, pos,
				  candidate);
}

mg_pos mg_findings__no_pos(void)
{
	return (mg_pos){ 0, 0 };
}
