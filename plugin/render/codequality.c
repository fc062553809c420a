/* The GitLab Code Quality report: see include/memgate/codequality.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "findings.h"
#include "severity.h"
#include "json_write.h"
#include "memgate/codequality.h"

/* A code's severity: severity.h's rule. */
static const char *severity_of(const mg_code *code)
{
	return mg_severity_of_kind(code->kind)->codequality;
}

size_t mg_codequality_max_issues = MG_CODEQUALITY_MAX_ISSUES;

struct issues {
	mg_jw w;                        /* in the list */
	size_t kept, omitted;
	const mg_check_result *first;   /* the first decided item, for the cut's place */
};

/* One issue: description, check_name, fingerprint, severity, location. */
static void put_issue(mg_jw *w, const char *description, const char *check,
		      const char *fingerprint, const char *severity, const char *path, int line)
{
	mg_jw_object(w);
	mg_jw_key_string(w, "description", description);
	mg_jw_key_string(w, "check_name", check);
	mg_jw_key_string(w, "fingerprint", fingerprint);
	mg_jw_key_string(w, "severity", severity);
	mg_jw_key_object(w, "location");
	mg_jw_key_string(w, "path", path);
	mg_jw_key_object(w, "lines");
	mg_jw_key_number(w, "begin", line);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* One finding into the list (ctx), for mg_findings_each: the first
 * mg_codequality_max_issues of them, the rest counted. */
static void put_finding(void *ctx, const mg_check_result *r, const mg_finding *f,
			const char *fingerprint)
{
	struct issues *is = ctx;
	const char *file;
	mg_pos pos;

	if (is->kept == mg_codequality_max_issues) {
		is->omitted++;
		return;
	}
	is->kept++;
	mg_finding_place(&file, &pos, r, f);
	put_issue(&is->w, f->message, f->code->name, fingerprint, severity_of(f->code),
		  file ? file : ".memgate.yml", pos.line);
}

/* The last issue, when findings were left out: how many, and where to see
 * them all. */
static void put_omitted(struct issues *is)
{
	char text[160];

	snprintf(text, sizeof(text), "%zu more findings omitted (the limit is %zu); see the "
		 "decision record (memgate check --format json)", is->omitted,
		 mg_codequality_max_issues);
	put_issue(&is->w, text, "findings_omitted", "memgate-findings-omitted", "info",
		  is->first && is->first->policy ? is->first->policy->path : ".memgate.yml", 1);
}

char *mg_codequality_render(const mg_check_item *items, size_t count)
{
	mg_buf out = MG_BUF_INIT;
	struct issues is = { .kept = 0 };
	size_t i;

	assert(items);
	mg_jw_init(&is.w, &out, MG_JW_TABS, 0);
	mg_jw_array(&is.w);
	for (i = 0; i < count; i++) {
		if (!items[i].result)
			continue;
		if (!is.first)
			is.first = items[i].result;
		mg_findings_each(items[i].result, put_finding, &is);
	}
	if (is.omitted)
		put_omitted(&is);
	mg_jw_end(&is.w);
	mg_buf_putc(&out, '\n');
	return mg_buf_detach(&out, NULL);
}
