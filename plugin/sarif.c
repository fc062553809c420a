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

/* SARIF's result levels, most severe first (the order a capped run keeps). */
enum level { LEVEL_ERROR, LEVEL_WARNING, LEVEL_NOTE, LEVEL_COUNT };

static const char *const level_names[LEVEL_COUNT] = { "error", "warning", "note" };

static enum level level_of(enum mg_kind kind)
{
	switch (kind) {
	case MG_KIND_EVIDENCE:
	case MG_KIND_HARD: return LEVEL_ERROR;
	case MG_KIND_NOTICE: return LEVEL_NOTE;
	default: return LEVEL_WARNING;
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
			     str(level_names[level_of(codes[i].kind)]));
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

/*
 * GitHub's code scanning shows the first 5,000 results of a run by
 * severity and rejects a file with more than 25,000, which a sweep of 10^4
 * candidates passes.  A run holds at most MG_SARIF_MAX_RESULTS results: past that,
 * the errors are kept first, then the warnings, then the notes, each in
 * the findings' order of importance, and the run's invocation says how
 * many were left out (the decision record keeps every evaluation).  The
 * results kept stay in the findings' order.
 */

struct results {
	cJSON *level[LEVEL_COUNT];   /* the first MG_SARIF_MAX_RESULTS of each level */
	size_t *seq[LEVEL_COUNT];    /* their places in the findings' order */
	size_t kept[LEVEL_COUNT];
	size_t total;                /* findings seen */
};

/* One finding as a result into its level's list (ctx, a struct results),
 * for mg_findings_each. */
static void put_result(void *ctx, const mg_check_result *r, const mg_finding *f,
		       const char *fingerprint)
{
	struct results *all = ctx;
	const mg_code *code = mg_code_find(f->code);
	enum level l = mg_finding_quiet(r, f) ? LEVEL_NOTE :
		level_of(code ? code->kind : MG_KIND_EVIDENCE);
	cJSON *result, *fp, *props;
	const char *file;
	char line_hash[40];
	mg_pos pos;

	if (all->kept[l] == MG_SARIF_MAX_RESULTS) {
		all->total++;
		return;
	}
	all->seq[l][all->kept[l]++] = all->total++;
	result = mg_json__add(all->level[l], NULL, cJSON_CreateObject());
	mg_finding_place(&file, &pos, r, f);
	mg_json__add(result, "ruleId", str(f->code));
	num(result, "ruleIndex", (double)rule_index(f->code));
	mg_json__add(result, "level", str(level_names[l]));
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

/* Move the results kept into `results`: each level's share of MG_SARIF_MAX_RESULTS
 * (errors first), merged back into the findings' order.  Returns how many. */
static size_t take_results(cJSON *results, struct results *all)
{
	size_t quota[LEVEL_COUNT], at[LEVEL_COUNT] = { 0 }, left = MG_SARIF_MAX_RESULTS, taken = 0;
	int l, next;

	for (l = 0; l < LEVEL_COUNT; l++) {
		quota[l] = all->kept[l] < left ? all->kept[l] : left;
		left -= quota[l];
	}
	for (;;) {
		next = -1;
		for (l = 0; l < LEVEL_COUNT; l++)
			if (at[l] < quota[l] &&
			    (next < 0 || all->seq[l][at[l]] < all->seq[next][at[next]]))
				next = l;
		if (next < 0)
			return taken;
		cJSON_AddItemToArray(results, cJSON_DetachItemFromArray(all->level[next], 0));
		at[next]++;
		taken++;
	}
}

/* The run's invocation, saying how many findings were left out. */
static void put_omitted(cJSON *run, size_t omitted)
{
	cJSON *inv = mg_json__add(arr(run, "invocations"), NULL, cJSON_CreateObject()), *note;
	mg_buf msg = MG_BUF_INIT;

	mg_json__add(inv, "executionSuccessful", cJSON_CreateBool(true));
	note = mg_json__add(arr(inv, "toolExecutionNotifications"), NULL, cJSON_CreateObject());
	mg_json__add(note, "level", str("note"));
	mg_buf_printf(&msg, "%zu more findings were left out: a run holds the %d most "
		      "important (GitHub code scanning shows 5,000 and rejects more than "
		      "25,000); the decision record (--json) lists every evaluation",
		      omitted, MG_SARIF_MAX_RESULTS);
	text(note, "message", msg.ptr);
	mg_buf_free(&msg);
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
	struct results all = { { NULL }, { NULL }, { 0 }, 0 };
	size_t i, written;
	int l;

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
	for (l = 0; l < LEVEL_COUNT; l++) {
		if (!(all.level[l] = cJSON_CreateArray()))
			abort();
		all.seq[l] = mg_xcalloc(MG_SARIF_MAX_RESULTS, sizeof(*all.seq[l]));
	}
	for (i = 0; i < count; i++)
		if (items[i].result)
			mg_findings_each(items[i].result, put_result, &all);
	written = take_results(results, &all);
	for (l = 0; l < LEVEL_COUNT; l++) {
		cJSON_Delete(all.level[l]);
		free(all.seq[l]);
	}
	if (written < all.total)
		put_omitted(run, all.total - written);
	put_decisions(run, items, count);
	return mg_json__print(root);
}
