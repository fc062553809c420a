/* SARIF 2.1.0: see include/memgate/sarif.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "severity.h"
#include "json_write.h"
#include "memgate/buf.h"
#include "memgate/sarif.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

/* key: {"text": s}. */
static void text(mg_jw *w, const char *key, const char *s)
{
	mg_jw_key_object(w, key);
	mg_jw_key_string(w, "text", s);
	mg_jw_end(w);
}

/* SARIF's result levels are enum mg_level, most severe first (the order a
 * capped run keeps); a kind's level is severity.h's rule. */
static enum mg_level level_of(enum mg_kind kind)
{
	return mg_severity_of_kind(kind)->sarif;
}

/* One rule per code, in mg_codes order (ruleIndex is that order). */
static void put_rules(mg_jw *w)
{
	const mg_code *codes;
	size_t i, n;

	codes = mg_codes(&n);
	mg_jw_key_array(w, "rules");
	for (i = 0; i < n; i++) {
		mg_jw_object(w);
		mg_jw_key_string(w, "id", codes[i].name);
		text(w, "shortDescription", codes[i].summary);
		text(w, "fullDescription", codes[i].summary);
		text(w, "help", codes[i].help);
		mg_jw_key_object(w, "defaultConfiguration");
		mg_jw_key_string(w, "level", mg_severity_sarif(level_of(codes[i].kind)));
		mg_jw_end(w);
		mg_jw_key_object(w, "properties");
		mg_jw_key_array(w, "tags");
		mg_jw_string(w, "memgate");
		mg_jw_string(w, mg_severity_of_kind(codes[i].kind)->tag);
		mg_jw_end(w);
		mg_jw_end(w);
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

/* The index of a code in mg_codes (every finding's code is one of them). */
static size_t rule_index(const mg_code *code)
{
	size_t n;
	const mg_code *codes = mg_codes(&n);

	assert(code >= codes && code < codes + n);
	return (size_t)(code - codes);
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

static void put_location(mg_jw *w, const char *file, mg_pos pos)
{
	char *uri = uri_of(file ? file : ".memgate.yml");

	mg_jw_key_array(w, "locations");
	mg_jw_object(w);
	mg_jw_key_object(w, "physicalLocation");
	mg_jw_key_object(w, "artifactLocation");
	mg_jw_key_string(w, "uri", uri);
	mg_jw_end(w);
	mg_jw_key_object(w, "region");
	mg_jw_key_number(w, "startLine", pos.line);
	mg_jw_key_number(w, "startColumn", pos.column);
	mg_jw_key_number(w, "endLine", pos.line);
	mg_jw_key_number(w, "endColumn", pos.column + 1);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
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

/* Where the results array's elements stand: root, runs, run, results. */
#define RESULT_DEPTH 4

struct results {
	mg_buf text[MG_LEVEL_COUNT];    /* the first MG_SARIF_MAX_RESULTS of each level, written */
	size_t *end[MG_LEVEL_COUNT];    /* where each ends in text */
	size_t *seq[MG_LEVEL_COUNT];    /* their places in the findings' order */
	size_t kept[MG_LEVEL_COUNT];
	size_t total;                /* findings seen */
};

static void put_result(mg_jw *w, const mg_check_result *r, const mg_finding *f,
		       const char *fingerprint, enum mg_level l)
{
	char line_hash[40];
	const char *file;
	mg_pos pos;

	mg_finding_place(&file, &pos, r, f);
	mg_jw_object(w);
	mg_jw_key_string(w, "ruleId", f->code->name);
	mg_jw_key_number(w, "ruleIndex", (double)rule_index(f->code));
	mg_jw_key_string(w, "level", mg_severity_sarif(l));
	text(w, "message", f->message);
	put_location(w, file, pos);
	mg_jw_key_object(w, "partialFingerprints");
	mg_jw_key_string(w, "memgateFinding/v1", fingerprint);
	/* code scanning tracks alerts by this one: make it follow the
	 * candidate and reason, not the line's text */
	snprintf(line_hash, sizeof(line_hash), "%.16s:1", fingerprint);
	mg_jw_key_string(w, "primaryLocationLineHash", line_hash);
	mg_jw_end(w);
	mg_jw_key_object(w, "properties");
	mg_jw_key_string(w, "policy", mg_findings_policy_file(r));
	if (f->candidate < r->decision->base.count)
		mg_jw_key_string(w, "candidate", r->decision->base.evaluations[f->candidate].name);
	mg_jw_end(w);
	mg_jw_end(w);
}

/* One finding as a result written into its level's text (ctx, a struct
 * results), for mg_findings_each. */
static void keep_result(void *ctx, const mg_check_result *r, const mg_finding *f,
			const char *fingerprint)
{
	struct results *all = ctx;
	enum mg_level l = mg_finding_quiet(r, f) ? MG_LEVEL_NOTICE : level_of(f->code->kind);
	mg_jw w;

	if (all->kept[l] == MG_SARIF_MAX_RESULTS) {
		all->total++;
		return;
	}
	all->seq[l][all->kept[l]] = all->total++;
	mg_jw_init(&w, &all->text[l], MG_JW_TABS, RESULT_DEPTH);
	put_result(&w, r, f, fingerprint, l);
	all->end[l][all->kept[l]++] = all->text[l].len;
}

/* The results kept, into the results array w has open: each level's share
 * of MG_SARIF_MAX_RESULTS (errors first), merged back into the findings'
 * order.  Returns how many. */
static size_t take_results(mg_jw *w, struct results *all)
{
	size_t quota[MG_LEVEL_COUNT], at[MG_LEVEL_COUNT] = { 0 };
	size_t left = MG_SARIF_MAX_RESULTS, taken = 0;
	size_t from;
	int l, next;

	for (l = 0; l < MG_LEVEL_COUNT; l++) {
		quota[l] = all->kept[l] < left ? all->kept[l] : left;
		left -= quota[l];
	}
	for (;;) {
		next = -1;
		for (l = 0; l < MG_LEVEL_COUNT; l++)
			if (at[l] < quota[l] &&
			    (next < 0 || all->seq[l][at[l]] < all->seq[next][at[next]]))
				next = l;
		if (next < 0)
			return taken;
		from = at[next] ? all->end[next][at[next] - 1] : 0;
		mg_jw_raw(w, all->text[next].ptr + from, all->end[next][at[next]] - from);
		at[next]++;
		taken++;
	}
}

/* The run's invocation, saying how many findings were left out. */
static void put_omitted(mg_jw *w, size_t omitted)
{
	mg_buf msg = MG_BUF_INIT;

	mg_jw_key_array(w, "invocations");
	mg_jw_object(w);
	mg_jw_key_bool(w, "executionSuccessful", true);
	mg_jw_key_array(w, "toolExecutionNotifications");
	mg_jw_object(w);
	mg_jw_key_string(w, "level", "note");
	mg_buf_printf(&msg, "%zu more findings were left out: a run holds the %d most "
		      "important (GitHub code scanning shows 5,000 and rejects more than "
		      "25,000); the decision record (--json) lists every evaluation",
		      omitted, MG_SARIF_MAX_RESULTS);
	text(w, "message", msg.ptr);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_jw_end(w);
	mg_buf_free(&msg);
}

/* run.properties.decisions: each policy's decision, for readers of the file. */
static void put_decisions(mg_jw *w, const mg_check_item *items, size_t count)
{
	size_t i;

	mg_jw_key_object(w, "properties");
	mg_jw_key_array(w, "decisions");
	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		if (!r)
			continue;
		mg_jw_object(w);
		mg_jw_key_string(w, "policy", mg_findings_policy_file(r));
		mg_jw_key_string(w, "decision", mg_verdict_name(r->decision->verdict));
		mg_jw_key_string(w, "reason", mg_outcome_name(r->decision->reason));
		mg_jw_key_string(w, "selected_candidate", r->decision->selected);
		mg_jw_key_bool(w, "passed", r->passed);
		mg_jw_end(w);
	}
	mg_jw_end(w);
	mg_jw_end(w);
}

/* The run's results, and its invocation when some were left out. */
static void put_results(mg_jw *w, const mg_check_item *items, size_t count)
{
	struct results all;
	size_t i, written;
	int l;

	memset(&all, 0, sizeof(all));
	for (l = 0; l < MG_LEVEL_COUNT; l++) {
		mg_buf_init(&all.text[l]);
		all.seq[l] = mg_xcalloc(MG_SARIF_MAX_RESULTS, sizeof(*all.seq[l]));
		all.end[l] = mg_xcalloc(MG_SARIF_MAX_RESULTS, sizeof(*all.end[l]));
	}
	for (i = 0; i < count; i++)
		if (items[i].result)
			mg_findings_each(items[i].result, keep_result, &all);
	mg_jw_key_array(w, "results");
	written = take_results(w, &all);
	mg_jw_end(w);
	for (l = 0; l < MG_LEVEL_COUNT; l++) {
		mg_buf_free(&all.text[l]);
		free(all.seq[l]);
		free(all.end[l]);
	}
	if (written < all.total)
		put_omitted(w, all.total - written);
}

char *mg_sarif_render(const mg_check_item *items, size_t count, const char *version)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	assert(items && version);
	mg_jw_init(&w, &out, MG_JW_TABS, 0);
	mg_jw_object(&w);
	mg_jw_key_string(&w, "$schema", SARIF_SCHEMA);
	mg_jw_key_string(&w, "version", "2.1.0");
	mg_jw_key_array(&w, "runs");
	mg_jw_object(&w);
	mg_jw_key_object(&w, "tool");
	mg_jw_key_object(&w, "driver");
	mg_jw_key_string(&w, "name", "memgate");
	mg_jw_key_string(&w, "version", version);
	mg_jw_key_string(&w, "semanticVersion", version);
	put_rules(&w);
	mg_jw_end(&w);
	mg_jw_end(&w);
	put_results(&w, items, count);
	put_decisions(&w, items, count);
	mg_jw_end(&w);
	mg_jw_end(&w);
	mg_jw_end(&w);
	mg_buf_putc(&out, '\n');
	return mg_buf_detach(&out, NULL);
}
