/* SARIF 2.1.0: see include/memgate/sarif.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "json.h"
#include "memgate/buf.h"
#include "memgate/sarif.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static cJSON *str(const char *s)
{
	return mg_json__new_string(s);
}

static cJSON *obj(cJSON *parent, const char *key)
{
	return mg_json__add(parent, key, cJSON_CreateObject());
}

static cJSON *arr(cJSON *parent, const char *key)
{
	return mg_json__add(parent, key, cJSON_CreateArray());
}

static void num(cJSON *parent, const char *key, double v)
{
	mg_json__add(parent, key, cJSON_CreateNumber(v));
}

/* {"text": s} under key. */
static void text(cJSON *parent, const char *key, const char *s)
{
	mg_json__add(obj(parent, key), "text", str(s));
}

static const char *level_of(enum mg_kind kind)
{
	switch (kind) {
	case MG_KIND_EVIDENCE:
	case MG_KIND_HARD: return "error";
	case MG_KIND_NOTICE: return "note";
	default: return "warning";
	}
}

static const char *kind_tag(enum mg_kind kind)
{
	static const char *const tags[] = {
		"evidence", "hard-limit", "target", "exclusion-or-sensitivity", "warning", "waiver",
	};

	return tags[kind];
}

/* One rule per code, in mg_codes order (ruleIndex is that order). */
static void put_rules(cJSON *driver)
{
	cJSON *rules = arr(driver, "rules"), *rule, *tags;
	const mg_code *codes;
	size_t i, n;

	codes = mg_codes(&n);
	for (i = 0; i < n; i++) {
		rule = mg_json__add(rules, NULL, cJSON_CreateObject());
		mg_json__add(rule, "id", str(codes[i].name));
		text(rule, "shortDescription", codes[i].summary);
		text(rule, "fullDescription", codes[i].summary);
		text(rule, "help", codes[i].help);
		mg_json__add(obj(rule, "defaultConfiguration"), "level",
			     str(level_of(codes[i].kind)));
		tags = arr(obj(rule, "properties"), "tags");
		mg_json__add(tags, NULL, str("memgate"));
		mg_json__add(tags, NULL, str(kind_tag(codes[i].kind)));
	}
}

/* The index of a code in mg_codes (every finding's code is one of them). */
static size_t rule_index(const char *code)
{
	const mg_code *codes, *c = mg_code_find(code);

	codes = mg_codes(&(size_t){ 0 });
	assert(c);
	return (size_t)(c - codes);
}

/* A repository path as a relative URI reference: every byte but the
 * unreserved characters and '/' percent-encoded. */
static char *uri_of(const char *path)
{
	static const char keep[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789-._~/";
	mg_buf b = MG_BUF_INIT;
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++) {
		if (strchr(keep, *p))
			mg_buf_putc(&b, (char)*p);
		else
			mg_buf_printf(&b, "%%%02X", *p);
	}
	return mg_buf_detach(&b, NULL);
}

static void put_location(cJSON *result, const char *file, mg_pos pos)
{
	cJSON *loc = mg_json__add(arr(result, "locations"), NULL, cJSON_CreateObject());
	cJSON *phys = obj(loc, "physicalLocation"), *region;
	char *uri = uri_of(file ? file : ".memgate.yml");

	mg_json__add(obj(phys, "artifactLocation"), "uri", str(uri));
	region = obj(phys, "region");
	num(region, "startLine", pos.line);
	num(region, "startColumn", pos.column);
	num(region, "endLine", pos.line);
	num(region, "endColumn", pos.column + 1);
	free(uri);
}

/* One finding as a result into the results array (ctx), for mg_findings_each. */
static void put_result(void *ctx, const mg_check_result *r, const mg_finding *f,
		       const char *fingerprint)
{
	const mg_code *code = mg_code_find(f->code);
	cJSON *result = mg_json__add(ctx, NULL, cJSON_CreateObject()), *fp, *props;
	const char *file;
	char line_hash[40];
	mg_pos pos;

	mg_finding_place(&file, &pos, r, f);
	mg_json__add(result, "ruleId", str(f->code));
	num(result, "ruleIndex", (double)rule_index(f->code));
	mg_json__add(result, "level", str(level_of(code ? code->kind : MG_KIND_EVIDENCE)));
	text(result, "message", f->message);
	put_location(result, file, pos);
	fp = obj(result, "partialFingerprints");
	mg_json__add(fp, "memgateFinding/v1", str(fingerprint));
	/* code scanning tracks alerts by this one: make it follow the
	 * candidate and reason, not the line's text */
	snprintf(line_hash, sizeof(line_hash), "%.16s:1", fingerprint);
	mg_json__add(fp, "primaryLocationLineHash", str(line_hash));
	props = obj(result, "properties");
	mg_json__add(props, "policy", str(mg_findings_policy_file(r)));
	if (f->candidate < r->decision->base.count)
		mg_json__add(props, "candidate", str(r->decision->base.evaluations[f->candidate].name));
}

/* run.properties.decisions: each policy's decision, for readers of the file. */
static void put_decisions(cJSON *run, const mg_check_item *items, size_t count)
{
	cJSON *list = arr(obj(run, "properties"), "decisions"), *o;
	size_t i;

	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		if (!r)
			continue;
		o = mg_json__add(list, NULL, cJSON_CreateObject());
		mg_json__add(o, "policy", str(mg_findings_policy_file(r)));
		mg_json__add(o, "decision", str(mg_verdict_name(r->decision->verdict)));
		mg_json__add(o, "reason", str(mg_outcome_name(r->decision->reason)));
		mg_json__add(o, "selected_candidate", str(r->decision->selected));
		mg_json__add(o, "passed", cJSON_CreateBool(r->passed));
	}
}

char *mg_sarif_render(const mg_check_item *items, size_t count, const char *version)
{
	cJSON *root = cJSON_CreateObject(), *run, *driver, *results;
	size_t i;

	assert(items && version);
	if (!root)
		abort();
	mg_json__add(root, "$schema", str(SARIF_SCHEMA));
	mg_json__add(root, "version", str("2.1.0"));
	run = mg_json__add(arr(root, "runs"), NULL, cJSON_CreateObject());
	driver = obj(obj(run, "tool"), "driver");
	mg_json__add(driver, "name", str("memgate"));
	mg_json__add(driver, "version", str(version));
	mg_json__add(driver, "semanticVersion", str(version));
	put_rules(driver);
	results = arr(run, "results");
	for (i = 0; i < count; i++)
		if (items[i].result)
			mg_findings_each(items[i].result, put_result, results);
	put_decisions(run, items, count);
	return mg_json__print(root);
}
