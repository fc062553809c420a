/* The GitLab Code Quality report: see include/memgate/codequality.h. */
#include <assert.h>
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

/* One finding into the list (ctx), for mg_findings_each. */
static void put_finding(void *ctx, const mg_check_result *r, const mg_finding *f,
			const char *fingerprint)
{
	cJSON *o = mg_json__add(ctx, NULL, cJSON_CreateObject()), *loc, *lines;
	const char *file;
	mg_pos pos;

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

char *mg_codequality_render(const mg_check_item *items, size_t count)
{
	cJSON *list = cJSON_CreateArray();
	size_t i;

	assert(items);
	if (!list)
		abort();
	for (i = 0; i < count; i++)
		if (items[i].result)
			mg_findings_each(items[i].result, put_finding, list);
	return mg_json__print(list);
}
