/*
 * SARIF 2.1.0: include/memgate/sarif.h.
 *
 * The log of the demo repository (tests/demo-repo.h, built with the real
 * git) read back with cJSON: the tool and its rules (one per code of the
 * core's table, in its order, with its level), one result per finding at
 * its policy line with fingerprints and properties, each policy's
 * decision, and what a policy that could not be decided adds (nothing).
 * The cap of 5,000 results is tested end to end (tests/e2e/t_sarif.sh).
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "demo-repo.h"
#include "helpers.h"
#include "findings.h"
#include "memgate/decision.h"
#include "memgate/sarif.h"
#include "memgate/check.h"

static cJSON *path(cJSON *node, const char *keys)
{
	char buf[256], *key, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", keys);
	for (key = strtok_r(buf, ".", &save); key && node; key = strtok_r(NULL, ".", &save)) {
		if (*key >= '0' && *key <= '9')
			node = cJSON_GetArrayItem(node, atoi(key));
		else
			node = cJSON_GetObjectItemCaseSensitive(node, key);
	}
	cr_assert_not_null(node, "no '%s'", keys);
	return node;
}

static void expect_string(cJSON *node, const char *keys, const char *want)
{
	cJSON *v = path(node, keys);

	cr_assert(cJSON_IsString(v), "'%s' is not a string", keys);
	cr_expect_str_eq(v->valuestring, want, "%s", keys);
}

static void expect_number(cJSON *node, const char *keys, double want)
{
	cJSON *v = path(node, keys);

	cr_assert(cJSON_IsNumber(v), "'%s' is not a number", keys);
	cr_expect_eq(v->valuedouble, want, "%s: %g", keys, v->valuedouble);
}

/* Render items and parse the log; the caller deletes it. */
static cJSON *render(const mg_check_item *items, size_t count)
{
	char *text = mg_sarif_render(items, count, "1.2.3");
	cJSON *log = cJSON_Parse(text);

	cr_assert_not_null(log, "not JSON: %s", text);
	free(text);
	return log;
}

/* One result, as a test expects it. */
struct want {
	const char *rule, *level, *candidate, *message;
	int line, column;
};

static void expect_result(cJSON *res, cJSON *rules, const struct want *w, size_t i)
{
	cJSON *phys = path(res, "locations.0.physicalLocation");
	int index = (int)path(res, "ruleIndex")->valuedouble;

	expect_string(res, "ruleId", w->rule);
	cr_expect_str_eq(path(cJSON_GetArrayItem(rules, index), "id")->valuestring, w->rule,
			 "result %zu: ruleIndex %d names its rule", i, index);
	expect_string(res, "level", w->level);
	expect_string(res, "message.text", w->message);
	expect_string(phys, "artifactLocation.uri", ".memgate.yml");
	expect_number(phys, "region.startLine", w->line);
	expect_number(phys, "region.startColumn", w->column);
	expect_number(phys, "region.endLine", w->line);
	expect_number(phys, "region.endColumn", w->column + 1);
	expect_string(res, "properties.policy", ".memgate.yml");
	expect_string(res, "properties.candidate", w->candidate);
	cr_expect_eq(strlen(path(res, "partialFingerprints.memgateFinding/v1")->valuestring), 64);
	cr_expect_eq(strlen(path(res, "partialFingerprints.primaryLocationLineHash")->valuestring),
		     18, "16 hex digits and ':1'");
}

/* The demo: the tool, every code as a rule, a result per finding (the
 * baseline's comparison with itself none), and the decision. */
Test(sarif, demo_log_has_rules_results_and_the_decision)
{
	static const struct want want[] = {
		{ "memory_saving_below_floor", "warning", "checkpoint",
		  "checkpoint: memory saving 331.98 MB < min_memory_saving_mb 512", 14, 25 },
		{ "samples_per_s_below_floor", "error", "offload",
		  "offload: samples/s 0.533 < min_samples_per_s 1", 13, 22 },
		{ "memory_saving_below_floor", "warning", "offload",
		  "offload: memory saving 334.41 MB < min_memory_saving_mb 512", 14, 25 },
		{ "throughput_below_floor", "warning", "offload",
		  "offload: throughput ratio 0.265306 < min_throughput_ratio 0.7", 15, 25 },
		{ "memory_saving_below_floor", "warning", "hybrid",
		  "hybrid: memory saving 328.1 MB < min_memory_saving_mb 512", 14, 25 },
		{ "throughput_below_floor", "warning", "hybrid",
		  "hybrid: throughput ratio 0.635142 < min_throughput_ratio 0.7", 15, 25 },
	};
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_item item = { .policy = ".memgate.yml" };
	const mg_code *codes;
	cJSON *log, *run, *rules, *results;
	size_t i, ncodes;

	mg_demo_repo(dir);
	item.result = mg_demo_check(dir, (mg_check_options){ 0 });
	log = render(&item, 1);
	expect_string(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	expect_string(log, "version", "2.1.0");
	cr_expect_eq(cJSON_GetArraySize(path(log, "runs")), 1);
	run = path(log, "runs.0");
	expect_string(run, "tool.driver.name", "memgate");
	expect_string(run, "tool.driver.version", "1.2.3");
	expect_string(run, "tool.driver.semanticVersion", "1.2.3");

	codes = mg_codes(&ncodes);
	rules = path(run, "tool.driver.rules");
	cr_assert_eq((size_t)cJSON_GetArraySize(rules), ncodes, "one rule per code");
	for (i = 0; i < ncodes; i++) {
		cJSON *rule = cJSON_GetArrayItem(rules, (int)i);

		expect_string(rule, "id", codes[i].name);
		expect_string(rule, "shortDescription.text", codes[i].summary);
		expect_string(rule, "help.text", codes[i].help);
		expect_string(rule, "properties.tags.0", "memgate");
	}
	expect_string(cJSON_GetArrayItem(rules, (int)(mg_code_find("samples_per_s_below_floor") -
						       codes)),
		      "defaultConfiguration.level", "error");
	expect_string(cJSON_GetArrayItem(rules, (int)(mg_code_find("throughput_below_floor") -
						       codes)),
		      "defaultConfiguration.level", "warning");

	results = path(run, "results");
	cr_assert_eq(cJSON_GetArraySize(results), 6);
	for (i = 0; i < 6; i++)
		expect_result(cJSON_GetArrayItem(results, (int)i), rules, &want[i], i);
	cr_expect_str_neq(path(results, "2.partialFingerprints.memgateFinding/v1")->valuestring,
			  path(results, "4.partialFingerprints.memgateFinding/v1")->valuestring,
			  "two candidates, two fingerprints");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(run, "invocations"),
		       "nothing was left out");

	cr_expect_eq(cJSON_GetArraySize(path(run, "properties.decisions")), 1);
	expect_string(run, "properties.decisions.0.policy", ".memgate.yml");
	expect_string(run, "properties.decisions.0.decision", "tune");
	expect_string(run, "properties.decisions.0.reason",
		      "memory_saving_below_meaningful_threshold");
	expect_string(run, "properties.decisions.0.selected_candidate", "checkpoint");
	cr_expect(cJSON_IsFalse(path(run, "properties.decisions.0.passed")));
	cJSON_Delete(log);
	mg_check_result_free(item.result);
	mg_demo_remove(dir);
}

/* A policy that could not be decided adds neither results nor a decision;
 * the others keep theirs, each at its own policy, percent-encoded. */
Test(sarif, undecided_policies_add_nothing_and_paths_are_uris)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_item items[2] = { { .policy = "broken.memgate.yml" }, { .policy = ".memgate.yml" } };
	cJSON *log, *run;
	char *old;

	mg_demo_repo(dir);
	items[1].result = mg_demo_check(dir, (mg_check_options){ 0 });
	old = items[1].result->policy_ref.path;
	items[1].result->policy_ref.path = strdup("odd dir/p%1 \xc3\xa9.memgate.yml");
	mg_findings_fill(items[1].result);   /* from what the test changed */
	log = render(items, 2);
	run = path(log, "runs.0");
	cr_expect_eq(cJSON_GetArraySize(path(run, "results")), 6);
	expect_string(run, "results.0.locations.0.physicalLocation.artifactLocation.uri",
		      "odd%20dir/p%251%20%C3%A9.memgate.yml");
	expect_string(run, "results.0.properties.policy", "odd dir/p%1 \xc3\xa9.memgate.yml");
	cr_expect_eq(cJSON_GetArraySize(path(run, "properties.decisions")), 1);
	expect_string(run, "properties.decisions.0.policy", "odd dir/p%1 \xc3\xa9.memgate.yml");
	cJSON_Delete(log);
	free(items[1].result->policy_ref.path);
	items[1].result->policy_ref.path = old;
	mg_check_result_free(items[1].result);
	mg_demo_remove(dir);
}

/* Nothing decided: a valid log with the rules and no results. */
Test(sarif, nothing_decided_is_a_log_without_results)
{
	mg_check_item item = { .policy = ".memgate.yml" };
	size_t ncodes;
	cJSON *log = render(&item, 1);

	mg_codes(&ncodes);
	cr_expect_eq((size_t)cJSON_GetArraySize(path(log, "runs.0.tool.driver.rules")), ncodes);
	cr_expect_eq(cJSON_GetArraySize(path(log, "runs.0.results")), 0);
	cr_expect_eq(cJSON_GetArraySize(path(log, "runs.0.properties.decisions")), 0);
	cJSON_Delete(log);
}
