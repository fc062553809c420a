/* The GitLab Code Quality report: see include/memgate/codequality.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "findings.h"
#include "json.h"
#include "memgate/codequality.h"

static const char *severity_of(const char *code)
{
	const mg_code *c = mg_code_find(code);

	switch (c ? c->kind : MG_KIND_EVIDENCE) {
	case MG_KIND_EVIDENCE: return "blocker";
	case MG_KIND_HARD: return "critical";
	case MG_KIND_TARGET: return "major";
	case MG_KIND_NOTICE: return "info";
	default: return "minor";
	}
}

size_t mg_codequality_max_issues = MG_CODEQUALITY_MAX_ISSUES;

struct issues {
	cJSON *list;
	size_t kept, omitted;
	const mg_check_result *first;   /* the first decided item, for the cut's place */
};

/* One finding into the list (ctx), for mg_findings_each: the first
 * mg_codequality_max_issues of them, the rest counted. */
static void put_finding(void *ctx, const mg_check_result *r, const mg_finding *f,
			const char *fingerprint)
{
	struct issues *is = ctx;
	cJSON *o, *loc, *lines;
	const char *file;
	mg_pos pos;

	if (is->kept == mg_codequality_max_issues) {
		is->omitted++;
		return;
	}
	is->kept++;
	o = mg_json__add(is->list, NULL, cJSON_CreateObject());
	mg_finding_place(&file, &pos, r, f);
	mg_json__add(o, "description", mg_json__new_string(f->message));
	mg_json__add(o, "check_name", mg_json__new_string(f->code));
	mg_json__add(o, "fingerprint", mg_json__new_string(fingerprint));
	mg_json__add(o, "severity", mg_json__new_string(severity_of(f->code)));
	loc = mg_json__add(o, "location", cJSON_CreateObject());
	mg_json__add(loc, "path", mg_json__new_string(file ? file : ".memgate.yml"));
	lines = mg_json__add(loc, "lines", cJSON_CreateObject());
	mg_json__add(lines, "begin", cJSON_CreateNumber(pos.line));
}

/* The last issue, when findings were left out: how many, and where to see
 * them all. */
static void put_omitted(struct issues *is)
{
	cJSON *o = mg_json__add(is->list, NULL, cJSON_CreateObject()), *loc, *lines;
	char text[160];

	snprintf(text, sizeof(text), "%zu more findings omitted (the limit is %zu); see the "
		 "decision record (memgate check --format json)", is->omitted,
		 mg_codequality_max_issues);
	mg_json__add(o, "description", mg_json__new_string(text));
	mg_json__add(o, "check_name", mg_json__new_string("findings_omitted"));
	mg_json__add(o, "fingerprint", mg_json__new_string("memgate-findings-omitted"));
	mg_json__add(o, "severity", mg_json__new_string("info"));
	loc = mg_json__add(o, "location", cJSON_CreateObject());
	mg_json__add(loc, "path", mg_json__new_string(is->first && is->first->policy ?
						       is->first->policy->path : ".memgate.yml"));
	lines = mg_json__add(loc, "lines", cJSON_CreateObject());
	mg_json__add(lines, "begin", cJSON_CreateNumber(1));
}

char *mg_codequality_render(const mg_check_item *items, size_t count)
{
	struct issues is = { cJSON_CreateArray(), 0, 0, NULL };
	size_t i;

	assert(items);
	if (!is.list)
		abort();
	for (i = 0; i < count; i++) {
		if (!items[i].result)
			continue;
		if (!is.first)
			is.first = items[i].result;
		mg_findings_each(items[i].result, put_finding, &is);
	}
	if (is.omitted)
		put_omitted(&is);
	return mg_json__print(is.list);
}
