/* The decision record: include/memgate/record.h (memgate(1), DECISION RECORD). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "approved-read.h"
#include "helpers.h"
#include "memgate/approved.h"
#include "memgate/escape.h"
#include "memgate/record.h"
#include "memgate/version.h"

#define BIT(r) (1u << (r))
#define REV "1111111111111111111111111111111111111111"
#define REV2 "2222222222222222222222222222222222222222"
#define POLICY_REV "3333333333333333333333333333333333333333"
#define SHA "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"

/* A hand-built result: the real flat report's four candidates screened
 * against memory_cap_mb 11200, min_samples_per_s 1, min_memory_saving_mb
 * 256 and max_eval_loss 12.6, with two stricter scenarios that keep the
 * winner (accept). */
static struct {
	mg_check_result r;
	mg_decision d;
	mg_evaluation ev[4];
	size_t feasible[2];
	mg_scenario sc[2];
	size_t sc_rank[4];
	unsigned long long sc_bits[2];
	mg_report report;
	char *warnings[1];
	mg_policy_change change;
} fx;

static void build_decision(void)
{
	mg_decision *d = &fx.d;
	int i;

	d->base = mg_fx_seed_screening(fx.ev, fx.feasible);
	mg_fx_ceiling(&d->base, MG_MAX_EVAL_LOSS, 12.6);
	fx.sc_rank[0] = 1;   /* rank order: checkpoint, hybrid, baseline, offload */
	fx.sc_rank[1] = 3;
	fx.sc_rank[2] = 0;
	fx.sc_rank[3] = 2;

	d->verdict = MG_ACCEPT;
	d->reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	d->next_action = MG_N_SEND_TO_REGRESSION_ACCEPTANCE;
	d->selected = "checkpoint";
	d->best = "checkpoint";
	d->applicable = true;
	mg_fx_threshold(&d->budget, MG_MEMORY_CAP_MB, 11200);
	mg_fx_threshold(&d->budget, MG_MIN_SAMPLES_PER_S, 1.0);
	mg_fx_threshold(&d->budget, MG_MIN_MEMORY_SAVING_MB, 256);
	mg_fx_threshold(&d->budget, MG_MAX_EVAL_LOSS, 12.6);

	snprintf(fx.sc[0].id, sizeof(fx.sc[0].id), "stricter[0]");
	mg_fx_threshold(&fx.sc[0].overrides, MG_MEMORY_CAP_MB, 9452);
	snprintf(fx.sc[1].id, sizeof(fx.sc[1].id), "stricter[1]");
	mg_fx_threshold(&fx.sc[1].overrides, MG_MIN_SAMPLES_PER_S, 1.5);
	for (i = 0; i < 2; i++) {
		fx.sc[i].budget = d->budget;
		fx.sc_bits[i] = 1;   /* checkpoint only */
		fx.sc[i].rank = fx.sc_rank;
		fx.sc[i].feasible = &fx.sc_bits[i];
		fx.sc[i].count = 4;
		fx.sc[i].feasible_count = 1;
		fx.sc[i].best_index = 1;
		fx.sc[i].best = "checkpoint";
	}
	d->sensitivity_evaluated = true;
	d->scenarios = fx.sc;
	d->scenario_count = 2;
	d->best_candidate_stable = true;
	d->feasible_set_stable = true;
	d->stability_tested = true;
	d->interpretation = "stable";
}

static void set_ref(mg_input_ref *ref, const char *path, const char *commit,
		    char blob_digit, bool sha)
{
	ref->path = (char *)path;
	snprintf(ref->commit, sizeof(ref->commit), "%s", commit);
	memset(ref->blob, blob_digit, 40);
	if (sha)
		snprintf(ref->sha256, sizeof(ref->sha256), "%s", SHA);
	ref->read = true;
}

static mg_check_result *build(void)
{
	mg_check_result *r = &fx.r;

	memset(&fx, 0, sizeof(fx));
	build_decision();
	snprintf(r->rev, sizeof(r->rev), REV);
	snprintf(r->policy_rev, sizeof(r->policy_rev), REV);
	set_ref(&r->policy_ref, ".memgate.yml", REV, 'a', false);
	set_ref(&r->manifest_ref, "benchmarks/results/75_input_manifest_gpu-a_v1.json", REV, 'b', false);
	set_ref(&r->report_ref, "benchmarks/results/76_real_gpu_memory.json", REV, 'c', true);
	r->report = &fx.report;
	r->decision = &fx.d;
	r->fail_on[MG_REJECT] = true;
	r->fail_on[MG_TUNE] = true;
	r->passed = true;
	return r;
}

/* Render r and parse the record back; the caller deletes it. */
static cJSON *render(const mg_check_result *r)
{
	char *text = mg_record_render(r);
	size_t len = strlen(text);
	cJSON *root;

	cr_assert(len > 2 && text[len - 1] == '\n' && text[len - 2] == '}',
		  "record does not end in a newline");
	root = cJSON_Parse(text);
	cr_assert_not_null(root, "record is not JSON: %s", text);
	free(text);
	return root;
}

static const cJSON *at(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	cr_assert_not_null(v, "no key '%s'", key);
	return v;
}

static void expect_string(const cJSON *o, const char *key, const char *want)
{
	const cJSON *v = at(o, key);

	cr_assert(cJSON_IsString(v), "'%s' is not a string", key);
	cr_assert_str_eq(v->valuestring, want, "'%s'", key);
}

static void expect_null(const cJSON *o, const char *key)
{
	cr_assert(cJSON_IsNull(at(o, key)), "'%s' is not null", key);
}

static void expect_number(const cJSON *o, const char *key, double want)
{
	const cJSON *v = at(o, key);
	double diff = v->valuedouble - want, scale = want < 0 ? -want : want;

	cr_assert(cJSON_IsNumber(v), "'%s' is not a number", key);
	cr_assert((diff < 0 ? -diff : diff) <= 1e-9 * (scale > 1 ? scale : 1),
		  "'%s' is %.17g, want %.17g", key, v->valuedouble, want);
}

static void expect_bool(const cJSON *o, const char *key, bool want)
{
	const cJSON *v = at(o, key);

	cr_assert(cJSON_IsBool(v), "'%s' is not a boolean", key);
	cr_assert_eq(cJSON_IsTrue(v) != 0, want, "'%s'", key);
}

/* The keys of object o, in order, joined by spaces. */
static void expect_keys(const cJSON *o, const char *want)
{
	mg_buf keys = MG_BUF_INIT;
	const cJSON *c;

	cJSON_ArrayForEach(c, o)
		mg_buf_printf(&keys, "%s%s", keys.len ? " " : "", c->string);
	cr_assert_str_eq(keys.ptr, want);
	mg_buf_free(&keys);
}

/* The strings of array a, joined by commas. */
/* An array of whole numbers, joined with commas. */
static void expect_indices(const cJSON *a, const char *want)
{
	mg_buf list = MG_BUF_INIT;
	const cJSON *c;

	cr_assert(cJSON_IsArray(a));
	cJSON_ArrayForEach(c, a) {
		cr_assert(cJSON_IsNumber(c));
		mg_buf_printf(&list, "%s%g", list.len ? "," : "", c->valuedouble);
	}
	cr_assert_str_eq(list.ptr, want);
	mg_buf_free(&list);
}

static void expect_strings(const cJSON *a, const char *want)
{
	mg_buf list = MG_BUF_INIT;
	const cJSON *c;

	cr_assert(cJSON_IsArray(a));
	cJSON_ArrayForEach(c, a) {
		cr_assert(cJSON_IsString(c));
		mg_buf_printf(&list, "%s%s", list.len ? "," : "", c->valuestring);
	}
	cr_assert_str_eq(list.ptr, want);
	mg_buf_free(&list);
}

Test(record, keys_follow_the_spec_order)
{
	cJSON *root = render(build());

	expect_keys(root, "schema_version memgate_version decision reason next_action selected_candidate gate "
			  "inputs evidence budget checks_run evaluations feasible_names "
			  "best_candidate sensitivity warnings");
	cJSON_Delete(root);
}

Test(record, states_decision_reason_and_selection)
{
	cJSON *root = render(build());

	expect_string(root, "schema_version", "memgate-decision/v3");
	expect_string(root, "decision", "accept");
	expect_string(root, "reason", "selection_stable_across_thresholds");
	expect_string(root, "next_action", "send_to_regression_acceptance");
	expect_string(root, "selected_candidate", "checkpoint");
	expect_string(root, "best_candidate", "checkpoint");
	cJSON_Delete(root);
}

Test(record, gate_lists_fail_on_in_verdict_order)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *gate;

	r->fail_on[MG_ACCEPT] = true;
	r->fail_on[MG_TUNE] = false;
	r->passed = false;
	root = render(r);
	gate = at(root, "gate");
	expect_keys(gate, "fail_on passed");
	expect_strings(at(gate, "fail_on"), "accept,reject");
	expect_bool(gate, "passed", false);
	cJSON_Delete(root);
}

Test(record, commit_inputs_name_paths_commits_and_blobs)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *in, *o;

	snprintf(r->policy_rev, sizeof(r->policy_rev), POLICY_REV);
	snprintf(r->policy_ref.commit, sizeof(r->policy_ref.commit), POLICY_REV);
	root = render(r);
	in = at(root, "inputs");
	expect_keys(in, "rev policy manifest report");
	expect_string(in, "rev", REV);
	o = at(in, "policy");
	expect_keys(o, "path rev blob");
	expect_string(o, "path", ".memgate.yml");
	expect_string(o, "rev", POLICY_REV);
	expect_string(o, "blob", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	o = at(in, "manifest");
	expect_keys(o, "path blob");
	expect_string(o, "path", "benchmarks/results/75_input_manifest_gpu-a_v1.json");
	expect_string(o, "blob", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	o = at(in, "report");
	expect_keys(o, "path blob sha256");
	expect_string(o, "path", "benchmarks/results/76_real_gpu_memory.json");
	expect_string(o, "blob", "cccccccccccccccccccccccccccccccccccccccc");
	expect_string(o, "sha256", SHA);
	cJSON_Delete(root);
}

Test(record, worktree_inputs_hold_no_commit_ids)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *in;
	char *text;

	r->worktree = true;
	r->rev[0] = r->policy_rev[0] = '\0';
	r->policy_ref.commit[0] = r->manifest_ref.commit[0] = r->report_ref.commit[0] = '\0';
	root = render(r);
	in = at(root, "inputs");
	expect_keys(in, "source policy manifest report");
	expect_string(in, "source", "worktree");
	expect_keys(at(in, "policy"), "path blob");
	expect_keys(at(in, "report"), "path blob sha256");
	text = mg_record_render(r);
	cr_assert_null(strstr(text, "\"rev\""), "a rev in: %s", text);
	free(text);
	cJSON_Delete(root);
}

Test(record, omits_manifest_when_the_policy_names_the_report)
{
	mg_check_result *r = build();
	cJSON *root;

	memset(&r->manifest_ref, 0, sizeof(r->manifest_ref));
	root = render(r);
	expect_keys(at(root, "inputs"), "rev policy report");
	cJSON_Delete(root);
}

Test(record, lists_the_approved_result_when_read)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *o;

	set_ref(&r->approved_ref, "benchmarks/results/75_memory_budget_decision_v1.json", REV, 'd', true);
	root = render(r);
	expect_keys(at(root, "inputs"), "rev policy manifest report approved_result");
	o = at(at(root, "inputs"), "approved_result");
	expect_keys(o, "path blob sha256");
	expect_string(o, "path", "benchmarks/results/75_memory_budget_decision_v1.json");
	expect_string(o, "sha256", SHA);
	cJSON_Delete(root);
}

Test(record, inputs_lists_the_paths_read_one_per_line_in_record_order)
{
	mg_check_result *r = build();
	char *text;

	set_ref(&r->approved_ref, "approved \"v1\".json", REV, 'd', true);
	text = mg_record_render_inputs(r);
	cr_expect_str_eq(text, ".memgate.yml\n"
			 "benchmarks/results/75_input_manifest_gpu-a_v1.json\n"
			 "benchmarks/results/76_real_gpu_memory.json\n"
			 "approved \"v1\".json\n");
	free(text);
	memset(&r->manifest_ref, 0, sizeof(r->manifest_ref));
	memset(&r->approved_ref, 0, sizeof(r->approved_ref));
	text = mg_record_render_inputs(r);
	cr_expect_str_eq(text, ".memgate.yml\nbenchmarks/results/76_real_gpu_memory.json\n");
	free(text);
}

Test(record, uncomputed_hash_is_null)
{
	mg_check_result *r = build();
	cJSON *root;

	r->report_ref.sha256[0] = '\0';
	root = render(r);
	expect_null(at(at(root, "inputs"), "report"), "sha256");
	cJSON_Delete(root);
}

Test(record, evidence_lists_issues_in_spec_order)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *ev;

	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_AGGREGATE_OUTSIDE_RUNS] = true;
	fx.d.issue[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	fx.d.issue[MG_ISSUE_WORKLOAD_MISMATCH] = true;
	root = render(r);
	ev = at(root, "evidence");
	expect_keys(ev, "is_applicable issues");
	expect_bool(ev, "is_applicable", false);
	expect_strings(at(ev, "issues"), "report_hash_mismatch,workload_mismatch,aggregate_outside_runs");
	cJSON_Delete(root);
}

Test(record, applicable_evidence_has_no_issues)
{
	cJSON *root = render(build());

	expect_bool(at(root, "evidence"), "is_applicable", true);
	expect_strings(at(at(root, "evidence"), "issues"), "");
	cJSON_Delete(root);
}

Test(record, budget_and_checks_run_name_the_set_thresholds_in_order)
{
	cJSON *root = render(build());
	const cJSON *b = at(root, "budget");

	expect_keys(b, "memory_cap_mb min_samples_per_s min_memory_saving_mb max_eval_loss");
	expect_number(b, "memory_cap_mb", 11200);
	expect_number(b, "min_samples_per_s", 1);
	expect_number(b, "min_memory_saving_mb", 256);
	expect_number(b, "max_eval_loss", 12.6);
	expect_strings(at(root, "checks_run"),
		       "memory_cap_mb,min_samples_per_s,min_memory_saving_mb,max_eval_loss");
	cJSON_Delete(root);
}

Test(record, evaluations_carry_status_reasons_and_every_metric)
{
	cJSON *root = render(build());
	const cJSON *list = at(root, "evaluations"), *e;

	cr_assert_eq(cJSON_GetArraySize(list), 4);
	e = cJSON_GetArrayItem(list, 1);
	expect_keys(e, "name status reasons peak_memory_mb samples_per_s memory_saving_mb "
		       "throughput_ratio eval_loss quality_delta mb_saved_per_pct_throughput repeats noise "
		       "pareto dominated_by_index throughput_free");

	expect_string(e, "name", "checkpoint");
	expect_string(e, "status", "feasible");
	expect_strings(at(e, "reasons"), "");
	expect_number(e, "peak_memory_mb", 9450.76);
	expect_number(e, "samples_per_s", 1.761);
	expect_number(e, "memory_saving_mb", 331.98);
	expect_number(e, "throughput_ratio", 1.761 / 2.009);
	expect_number(e, "eval_loss", 12.356503);
	expect_number(e, "quality_delta", 0);
	expect_number(e, "repeats", 1);
	e = cJSON_GetArrayItem(list, 2);
	expect_string(e, "name", "offload");
	expect_string(e, "status", "rejected");
	expect_strings(at(e, "reasons"), "samples_per_s_below_floor");
	cJSON_Delete(root);
}

Test(record, numbers_read_back_exactly)
{
	mg_check_result *r = build();
	cJSON *root, *e;
	char *json;

	fx.d.base.evaluations[1].value[MG_M_RATIO] = 0.1 + 0.2;   /* 0.30000000000000004 */
	json = mg_record_render(r);
	cr_assert_not_null(strstr(json, "0.30000000000000004"), "%s", json);
	root = cJSON_Parse(json);
	e = cJSON_GetArrayItem(at(root, "evaluations"), 1);
	cr_assert_eq(at(e, "throughput_ratio")->valuedouble, 0.1 + 0.2);
	cr_assert_not_null(strstr(json, "\"peak_memory_mb\":9450.76,"), "shortest form kept");
	cJSON_Delete(root);
	free(json);
}

/* The lines of the array that follows `key` in json: each a whole JSON
 * object, `indent` tabs in, "," between; "]" on the line after the last. */
static size_t expect_lines(const char *json, const char *key, int indent)
{
	const char *p = strstr(json, key), *end;
	size_t n = 0;
	int i;

	cr_assert_not_null(p, "%s in %s", key, json);
	p = strchr(p, '[');
	cr_assert(p && p[1] == '\n', "%s: a line after [", key);
	for (p += 2;; p = end + 1) {
		char *line;
		cJSON *item;

		for (i = 0; i < indent - 1; i++)
			cr_assert_eq(p[i], '\t', "%s: line %zu indented", key, n);
		if (p[indent - 1] == ']') {
			cr_assert(n > 0 && p[-2] != ',', "%s: ] after the last line", key);
			return n;
		}
		cr_assert(p[indent - 1] == '\t' && p[indent] == '{',
			  "%s: line %zu an object %d tabs in", key, n, indent);
		end = strchr(p, '\n');
		cr_assert_not_null(end);
		line = strndup(p + indent, (size_t)(end - p - indent));
		if (line[strlen(line) - 1] == ',')
			line[strlen(line) - 1] = '\0';
		item = cJSON_Parse(line);
		cr_assert_not_null(item, "%s: line %zu is one object: %s", key, n, line);
		cr_assert_null(strchr(line, '\t'), "written flat: %s", line);
		cJSON_Delete(item);
		free(line);
		n++;
	}
}

/* memgate-decision/v3: a candidate a line, and a scenario a line, so that
 * the record grows by a line per candidate (memgate(1), DECISION RECORD). */
Test(record, writes_a_candidate_and_a_scenario_a_line)
{
	mg_check_result *r = build();
	char *json = mg_record_render(r);

	cr_assert_eq(expect_lines(json, "\"evaluations\":\t", 2), fx.d.base.count);
	cr_assert_eq(expect_lines(json, "\"scenarios\":\t", 3), fx.d.scenario_count);
	free(json);
}

/* The record's bytes come from memgate, not from the installed cJSON's
 * number printer (which differs between versions: -0, 2^53), so a record is
 * the same on every distribution; zero is 0 whatever its sign (memgate(1),
 * JSON). */
Test(record, writes_numbers_the_same_with_every_cjson)
{
	mg_check_result *r = build();
	char *json;

	fx.d.base.evaluations[0].value[MG_M_PEAK] = -0.0;
	fx.d.base.evaluations[1].value[MG_M_PEAK] = 9007199254740992.0;  /* 2^53 */
	fx.d.base.evaluations[2].value[MG_M_PEAK] = 1e300;
	json = mg_record_render(r);
	cr_expect_not_null(strstr(json, "\"peak_memory_mb\":0,"), "%s", json);
	cr_expect_not_null(strstr(json, "\"peak_memory_mb\":9007199254740992,"), "%s", json);
	cr_expect_not_null(strstr(json, "\"peak_memory_mb\":1e+300,"), "%s", json);
	free(json);
}

Test(record, lists_several_reasons_in_spec_order)
{
	mg_check_result *r = build();
	cJSON *root;

	fx.ev[2].reasons = BIT(MG_R_THROUGHPUT_BELOW_FLOOR) | BIT(MG_R_MEMORY_OVER_BUDGET) |
			   BIT(MG_R_SAMPLES_PER_S_BELOW_FLOOR);
	root = render(r);
	expect_strings(at(cJSON_GetArrayItem(at(root, "evaluations"), 2), "reasons"),
		       "memory_over_budget,samples_per_s_below_floor,throughput_below_floor");
	cJSON_Delete(root);
}

Test(record, unknown_and_non_finite_values_are_null)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *e;
	char *text;

	fx.ev[0].known[MG_M_SAMPLES] = false;
	fx.ev[0].value[MG_M_PEAK] = INFINITY;
	fx.ev[0].value[MG_M_RATIO] = NAN;
	fx.ev[0].value[MG_M_DELTA] = -INFINITY;
	fx.ev[0].name = NULL;
	fx.d.budget.value[MG_MAX_EVAL_LOSS] = INFINITY;
	root = render(r);
	e = cJSON_GetArrayItem(at(root, "evaluations"), 0);
	expect_null(e, "name");
	expect_null(e, "peak_memory_mb");
	expect_null(e, "samples_per_s");
	expect_null(e, "throughput_ratio");
	expect_null(e, "quality_delta");
	expect_number(e, "eval_loss", 12.356503);
	expect_null(at(root, "budget"), "max_eval_loss");
	text = mg_record_render(r);
	cr_assert_null(strstr(text, "nan"));
	cr_assert_null(strstr(text, "inf"));
	free(text);
	cJSON_Delete(root);
}

Test(record, feasible_names_follow_rank_order)
{
	mg_check_result *r = build();
	cJSON *root;

	fx.feasible[0] = 3;
	fx.feasible[1] = 1;
	root = render(r);
	expect_strings(at(root, "feasible_names"), "hybrid,checkpoint");
	cJSON_Delete(root);
}

Test(record, sensitivity_records_scenarios_and_summary)
{
	cJSON *root = render(build());
	const cJSON *s = at(root, "sensitivity"), *sc, *sum;

	expect_keys(s, "evaluated scenarios summary");
	expect_bool(s, "evaluated", true);
	cr_assert_eq(cJSON_GetArraySize(at(s, "scenarios")), 2);
	sc = cJSON_GetArrayItem(at(s, "scenarios"), 0);
	expect_keys(sc, "id overrides best_index feasible_count");
	expect_string(sc, "id", "stricter[0]");
	expect_keys(at(sc, "overrides"), "memory_cap_mb");
	expect_number(at(sc, "overrides"), "memory_cap_mb", 9452);
	expect_number(sc, "best_index", 1);   /* evaluations[1] is checkpoint */
	expect_number(sc, "feasible_count", 1);
	sc = cJSON_GetArrayItem(at(s, "scenarios"), 1);
	expect_string(sc, "id", "stricter[1]");
	expect_keys(at(sc, "overrides"), "min_samples_per_s");
	expect_number(at(sc, "overrides"), "min_samples_per_s", 1.5);
	sum = at(s, "summary");
	expect_keys(sum, "scenario_count best_candidate_stable feasible_set_stable "
			 "interpretation stability_tested");
	expect_number(sum, "scenario_count", 2);
	expect_bool(sum, "best_candidate_stable", true);
	expect_bool(sum, "feasible_set_stable", true);
	expect_string(sum, "interpretation", "stable");
	expect_bool(sum, "stability_tested", true);
	cJSON_Delete(root);
}

/* By default a scenario's feasible set is its size and its best, so the
 * record grows with candidates plus scenarios, not their product. */
Test(record, scenarios_hold_the_size_of_their_feasible_set_by_default)
{
	mg_check_result *r = build();
	size_t ranked[4] = { 3, 2, 1, 0 };
	unsigned long long bits = 7;
	cJSON *root;
	const cJSON *sc;
	char *text;

	fx.sc[0].rank = ranked;
	fx.sc[0].count = 4;
	fx.sc[0].feasible = &bits;
	fx.sc[0].feasible_count = 3;
	fx.sc[0].best = "hybrid";
	fx.sc[0].best_index = 3;
	root = render(r);
	sc = cJSON_GetArrayItem(at(at(root, "sensitivity"), "scenarios"), 0);
	expect_keys(sc, "id overrides best_index feasible_count");
	expect_number(sc, "best_index", 3);
	expect_number(sc, "feasible_count", 3);
	text = mg_record_render(r);
	cr_assert_null(strstr(text, "feasible_indices"));
	free(text);
	cJSON_Delete(root);
}

Test(record, scenario_without_winner_has_null_best_index)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *sc;

	fx.sc[1].best = NULL;
	fx.sc[1].feasible_count = 0;
	fx.sc_bits[1] = 0;
	r->feasible_sets = true;
	root = render(r);
	sc = cJSON_GetArrayItem(at(at(root, "sensitivity"), "scenarios"), 1);
	expect_null(sc, "best_index");
	expect_number(sc, "feasible_count", 0);
	expect_indices(at(sc, "feasible_indices"), "");
	cJSON_Delete(root);
}

/* How many times needle occurs in text. */
static int count(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

/* Scenarios name candidates by index, in rank order, never by name: the
 * names are written once, in evaluations (--record-feasible-sets). */
Test(record, scenarios_refer_to_candidates_by_index_in_rank_order)
{
	mg_check_result *r = build();
	size_t ranked[4] = { 3, 2, 1, 0 };
	unsigned long long bits = 7;   /* the first three by rank */
	cJSON *root;
	const cJSON *sc;
	char *text;

	fx.sc[0].rank = ranked;
	fx.sc[0].count = 4;
	fx.sc[0].feasible = &bits;
	fx.sc[0].feasible_count = 3;
	fx.sc[0].best = "hybrid";
	fx.sc[0].best_index = 3;
	r->feasible_sets = true;
	root = render(r);
	sc = cJSON_GetArrayItem(at(at(root, "sensitivity"), "scenarios"), 0);
	expect_keys(sc, "id overrides best_index feasible_count feasible_indices");
	expect_number(sc, "best_index", 3);
	expect_number(sc, "feasible_count", 3);
	expect_indices(at(sc, "feasible_indices"), "3,2,1");
	expect_string(cJSON_GetArrayItem(at(root, "evaluations"), 3), "name", "hybrid");
	text = mg_record_render(r);
	/* "offload" only in evaluations (it is in no base list), "hybrid" in
	 * evaluations and the base feasible_names: never in a scenario */
	cr_assert_eq(count(text, "\"offload\""), 1);
	cr_assert_eq(count(text, "\"hybrid\""), 2);
	free(text);
	cJSON_Delete(root);
}

/* The runner runs a legacy "##[command]" anywhere in a log line: the
 * record, printed by --format json, never holds one; read back, the names
 * are the same. */
Test(record, legacy_workflow_commands_are_escaped)
{
	mg_check_result *r = build();
	cJSON *root;
	char *text;

	fx.ev[2].name = "##[add-mask]x ###[stop-commands]y ##[";
	fx.warnings[0] = "'##[error]' has uncommitted changes";
	r->warnings = fx.warnings;
	r->warning_count = 1;
	text = mg_record_render(r);
	cr_assert_null(strstr(text, "##["), "%s", text);
	cr_assert_not_null(strstr(text, "\"##\\u005badd-mask]x ###\\u005bstop-commands]y ##\\u005b\""));
	root = cJSON_Parse(text);
	cr_assert_not_null(root);
	expect_string(cJSON_GetArrayItem(at(root, "evaluations"), 2), "name",
		      "##[add-mask]x ###[stop-commands]y ##[");
	free(text);
	cJSON_Delete(root);
}

/* 2.3 step 1: evidence not applicable, nothing selected, no sensitivity. */
static mg_check_result *build_reject(void)
{
	mg_check_result *r = build();

	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	fx.d.next_action = MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE;
	fx.d.selected = NULL;
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_HARDWARE_MISMATCH] = true;
	fx.d.sensitivity_evaluated = false;
	fx.d.scenario_count = 0;
	fx.d.scenarios = NULL;
	fx.d.best_candidate_stable = fx.d.feasible_set_stable = fx.d.stability_tested = false;
	fx.d.interpretation = NULL;
	r->passed = false;
	return r;
}

Test(record, reject_has_null_selected_candidate_and_no_scenarios)
{
	cJSON *root = render(build_reject());
	const cJSON *s;

	expect_string(root, "decision", "reject");
	expect_null(root, "selected_candidate");
	expect_string(root, "best_candidate", "checkpoint");
	cr_assert_eq(cJSON_GetArraySize(at(root, "evaluations")), 4);
	s = at(root, "sensitivity");
	expect_bool(s, "evaluated", false);
	cr_assert_eq(cJSON_GetArraySize(at(s, "scenarios")), 0);
	expect_number(at(s, "summary"), "scenario_count", 0);
	expect_null(at(s, "summary"), "interpretation");
	expect_bool(at(s, "summary"), "stability_tested", false);
	cJSON_Delete(root);
}

Test(record, no_best_candidate_is_null)
{
	mg_check_result *r = build_reject();
	cJSON *root;

	fx.d.best = NULL;
	fx.d.base.feasible_count = 0;
	root = render(r);
	expect_null(root, "best_candidate");
	expect_strings(at(root, "feasible_names"), "");
	cJSON_Delete(root);
}

Test(record, warnings_policy_changes_and_approved_are_listed)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *c;

	fx.warnings[0] = "'.memgate.yml' differs from the working tree";
	r->warnings = fx.warnings;
	r->warning_count = 1;
	snprintf(fx.change.key, sizeof(fx.change.key), "budget.memory_cap_mb");
	fx.change.before = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 11200 };
	fx.change.after = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 12000 };
	fx.change.effect = MG_CHANGE_LOOSENS;
	r->changes = &fx.change;
	r->change_count = 1;
	r->decision->approved_checked = true;
	r->approved_decision = "accept";
	r->approved_selected = NULL;
	r->decision->computed_verdict = MG_REJECT;
	r->decision->computed_reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	r->decision->computed_selected = NULL;
	root = render(r);
	expect_keys(root, "schema_version memgate_version decision reason next_action selected_candidate gate "
			  "inputs evidence budget checks_run evaluations feasible_names "
			  "best_candidate sensitivity warnings policy_changes approved");
	expect_strings(at(root, "warnings"), "'.memgate.yml' differs from the working tree");
	cr_assert_eq(cJSON_GetArraySize(at(root, "policy_changes")), 1);
	c = cJSON_GetArrayItem(at(root, "policy_changes"), 0);
	expect_keys(c, "key before after effect");
	expect_string(c, "key", "budget.memory_cap_mb");
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "before")));
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(c, "before")->valuedouble, 11200);
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(c, "after")->valuedouble, 12000);
	expect_string(c, "effect", "loosens");
	expect_keys(at(root, "approved"), "decision selected_candidate computed");
	expect_string(at(root, "approved"), "decision", "accept");
	expect_null(at(root, "approved"), "selected_candidate");
	expect_keys(at(at(root, "approved"), "computed"), "decision reason selected_candidate");
	expect_string(at(at(root, "approved"), "computed"), "decision", "reject");
	expect_string(at(at(root, "approved"), "computed"), "reason", "no_candidate_meets_base_budget");
	expect_null(at(at(root, "approved"), "computed"), "selected_candidate");
	cJSON_Delete(root);
}

Test(record, tightening_change_says_so)
{
	mg_check_result *r = build();
	cJSON *root;

	snprintf(fx.change.key, sizeof(fx.change.key), "quality.max_eval_loss");
	fx.change.before = (mg_change_value){ .kind = MG_CHANGE_UNSET };
	fx.change.after = (mg_change_value){ .kind = MG_CHANGE_NUMBER, .number = 12.6 };
	fx.change.effect = MG_CHANGE_TIGHTENS;
	r->changes = &fx.change;
	r->change_count = 1;
	root = render(r);
	expect_string(cJSON_GetArrayItem(at(root, "policy_changes"), 0), "effect", "tightens");
	expect_null(cJSON_GetArrayItem(at(root, "policy_changes"), 0), "before");
	cJSON_Delete(root);
}

/* Is text valid UTF-8?  (mg_escape_utf8 changes nothing in valid text
 * without NUL.) */
static bool valid_utf8(const char *text)
{
	mg_buf b = MG_BUF_INIT;
	bool same;

	mg_escape_utf8(&b, text, strlen(text));
	same = !strcmp(b.ptr, text);
	mg_buf_free(&b);
	return same;
}

Test(record, hostile_names_come_out_as_valid_json_strings)
{
	mg_check_result *r = build();
	cJSON *root;
	const cJSON *list;
	char *text;

	fx.ev[0].name = "base\nline";
	fx.ev[1].name = "\x1b[31mcheckpoint\x1b[0m";
	fx.ev[2].name = "off\xffload";
	fx.ev[3].name = "::error::x";
	fx.d.selected = fx.d.best = fx.ev[1].name;
	text = mg_record_render(r);
	cr_assert(valid_utf8(text), "record is not valid UTF-8");
	cr_assert_null(strchr(text, '\x1b'), "raw ESC in the record");
	cr_assert_not_null(strstr(text, "\"\\u001b[31mcheckpoint\\u001b[0m\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"base\\nline\""), "%s", text);
	free(text);
	root = render(r);
	list = at(root, "evaluations");
	expect_string(cJSON_GetArrayItem(list, 0), "name", "base\nline");
	expect_string(cJSON_GetArrayItem(list, 1), "name", "\x1b[31mcheckpoint\x1b[0m");
	expect_string(cJSON_GetArrayItem(list, 2), "name", "off\xef\xbf\xbdload");
	expect_string(cJSON_GetArrayItem(list, 3), "name", "::error::x");
	expect_string(root, "selected_candidate", "\x1b[31mcheckpoint\x1b[0m");
	cJSON_Delete(root);
}

Test(record, invalid_utf8_in_paths_and_warnings_is_replaced)
{
	mg_check_result *r = build();
	cJSON *root;

	r->report_ref.path = "bench/\xc0\xaf" "76.json";
	fx.warnings[0] = "bad \xe2\x9c";
	r->warnings = fx.warnings;
	r->warning_count = 1;
	root = render(r);
	expect_string(at(at(root, "inputs"), "report"), "path", "bench/\xef\xbf\xbd\xef\xbf\xbd" "76.json");
	expect_strings(at(root, "warnings"), "bad \xef\xbf\xbd");
	cJSON_Delete(root);
}

/* ---- mg_record_same ---------------------------------------------- */

static bool same(const char *existing, const char *fresh)
{
	mg_error err;
	bool result = false;

	cr_assert_eq(mg_record_same(&result, existing, strlen(existing), fresh, &err), 0,
		     "%s", err.message);
	return result;
}

Test(record, same_ignores_commit_ids)
{
	mg_check_result *r = build();
	char *before = mg_record_render(r), *after;

	snprintf(r->rev, sizeof(r->rev), REV2);
	snprintf(r->policy_ref.commit, sizeof(r->policy_ref.commit), REV2);
	after = mg_record_render(r);
	cr_assert_str_neq(before, after);
	cr_assert(same(before, after));
	cr_assert(same(after, before));
	free(before);
	free(after);
}

Test(record, same_ignores_layout_and_key_order)
{
	cr_assert(same("{\"a\": 1, \"b\": [1, 2], \"inputs\": {\"rev\": \"x\"}}\n\n",
		       "{\"b\":[1,2],\"a\":1,\"inputs\":{\"rev\":\"y\"}}"));
}

Test(record, same_sees_a_changed_decision)
{
	mg_check_result *r = build();
	char *before = mg_record_render(r), *after;

	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_SELECTION_IS_THRESHOLD_SENSITIVE;
	after = mg_record_render(r);
	cr_assert_not(same(before, after));
	free(before);
	free(after);
}

Test(record, same_sees_a_changed_blob)
{
	mg_check_result *r = build();
	char *before = mg_record_render(r), *after;

	r->report_ref.blob[0] = 'e';
	after = mg_record_render(r);
	cr_assert_not(same(before, after));
	free(before);
	free(after);
}

Test(record, same_ignores_a_pinned_manifest_and_warnings)
{
	cr_assert(same("{\"d\": 1, \"warnings\": [], \"inputs\": {\"manifest\": {\"blob\": \"a\"}}}",
		       "{\"d\": 1, \"warnings\": [\"x\"], \"approved\": {\"decision\": \"tune\"},"
		       " \"inputs\": {\"manifest\": {\"blob\": \"b\"}, \"approved_result\": {}}}"));
	cr_assert_not(same("{\"d\": 1, \"inputs\": {\"report\": {\"blob\": \"a\"}}}",
			   "{\"d\": 1, \"inputs\": {\"report\": {\"blob\": \"b\"}}}"));
}

Test(record, same_ignores_the_memgate_version)
{
	cr_assert(same("{\"d\": 1, \"memgate_version\": \"0.1.0\"}",
		       "{\"d\": 1, \"memgate_version\": \"0.2.0\"}"));
	cr_assert_not(same("{\"d\": 1, \"memgate_version\": \"0.1.0\"}",
			   "{\"d\": 2, \"memgate_version\": \"0.1.0\"}"));
}

Test(record, carries_the_memgate_version_and_renders_byte_stable)
{
	mg_check_result *r = build();
	char *one = mg_record_render(r), *two = mg_record_render(r);
	cJSON *root = render(r);

	expect_string(root, "memgate_version", MG_VERSION);
	cr_assert_str_eq(one, two);
	cJSON_Delete(root);
	free(one);
	free(two);
}

/* A record written with --record-feasible-sets decides as one without. */
Test(record, same_ignores_whether_the_feasible_sets_are_listed)
{
	mg_check_result *r = build();
	char *sizes = mg_record_render(r), *sets, *other;

	r->feasible_sets = true;
	sets = mg_record_render(r);
	cr_assert_str_neq(sizes, sets);
	cr_assert(same(sizes, sets));
	cr_assert(same(sets, sizes));
	fx.sc[1].feasible_count = 2;
	other = mg_record_render(r);
	cr_assert_not(same(sizes, other));
	cr_assert_not(same(sets, other));
	free(sizes);
	free(sets);
	free(other);
}

/* memgate-decision/v1 listed every feasible set: the same decision in v2
 * (memgate(1), Record format history) is the same record. */
Test(record, same_compares_a_v1_record_with_its_v2_form)
{
	const char *v1 = "{\"schema_version\": \"memgate-decision/v1\", \"sensitivity\": "
			 "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 1, "
			 "\"feasible_indices\": [1, 3]}]}}";

	cr_assert(same(v1, "{\"schema_version\": \"memgate-decision/v2\", \"sensitivity\": "
		       "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 1, "
		       "\"feasible_count\": 2}]}}"));
	cr_assert(same(v1, "{\"schema_version\": \"memgate-decision/v2\", \"sensitivity\": "
		       "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 1, "
		       "\"feasible_count\": 2, \"feasible_indices\": [1, 3]}]}}"));
	cr_assert_not(same(v1, "{\"schema_version\": \"memgate-decision/v2\", \"sensitivity\": "
			   "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 1, "
			   "\"feasible_count\": 3}]}}"));
	cr_assert_not(same(v1, "{\"schema_version\": \"memgate-decision/v2\", \"sensitivity\": "
			   "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 1, "
			   "\"feasible_count\": 2, \"feasible_indices\": [3, 1]}]}}"));
	cr_assert_not(same(v1, "{\"schema_version\": \"memgate-decision/v2\", \"sensitivity\": "
			   "{\"scenarios\": [{\"id\": \"grid[0]\", \"best_index\": 3, "
			   "\"feasible_count\": 2}]}}"));
	cr_assert(same("{\"schema_version\": \"memgate-decision/v1\"}",
		       "{\"schema_version\": \"memgate-decision/v3\"}"));
	cr_assert_not(same("{\"schema_version\": \"memgate-decision/v3\"}",
			   "{\"schema_version\": \"memgate-decision/v4\"}"));
	cr_assert_not(same("{\"schema_version\": \"memgate-decision/v2\"}", "{}"));
}

/* memgate-decision/v3 lists the noise bands of the measured metrics only:
 * a v2 record with the derived ones (saving, ratio, quality delta) is the
 * same record, a measured band that differs is not, and a derived key
 * elsewhere still counts. */
Test(record, same_compares_a_v2_record_with_its_v3_form)
{
	const char *v2 = "{\"schema_version\": \"memgate-decision/v2\", \"evaluations\": [{"
			 "\"name\": \"a\", \"memory_saving_mb\": 500, \"noise\": {\"bands\": {"
			 "\"peak_memory_mb\": [9150, 9450], \"memory_saving_mb\": [250, 750], "
			 "\"throughput_ratio\": [0.5, 0.6], \"quality_delta\": [0, 0.1]}, "
			 "\"within_noise\": []}}]}";

	cr_assert(same(v2, "{\"schema_version\": \"memgate-decision/v3\", \"evaluations\": [\n"
		       "{\"name\":\"a\",\"memory_saving_mb\":500,\"noise\":{\"bands\":{"
		       "\"peak_memory_mb\":[9150,9450]},\"within_noise\":[]}}\n]}"));
	cr_assert_not(same(v2, "{\"schema_version\": \"memgate-decision/v3\", \"evaluations\": [{"
			   "\"name\":\"a\",\"memory_saving_mb\":500,\"noise\":{\"bands\":{"
			   "\"peak_memory_mb\":[9150,9451]},\"within_noise\":[]}}]}"),
		      "a measured band counts");
	cr_assert_not(same(v2, "{\"schema_version\": \"memgate-decision/v3\", \"evaluations\": [{"
			   "\"name\":\"a\",\"noise\":{\"bands\":{"
			   "\"peak_memory_mb\":[9150,9450]},\"within_noise\":[]}}]}"),
		      "the saving itself counts");
	cr_assert_not(same(v2, "{\"schema_version\": \"memgate-decision/v3\", \"evaluations\": [{"
			   "\"name\":\"a\",\"memory_saving_mb\":500,\"noise\":{\"bands\":{},"
			   "\"within_noise\":[]}}]}"),
		      "a measured band left out counts");
}

Test(record, same_sees_a_rev_outside_inputs)
{
	cr_assert_not(same("{\"rev\": \"a\", \"inputs\": {}}", "{\"rev\": \"b\", \"inputs\": {}}"));
}

/* Where a key stands decides whether it is left out: inputs.<x>.rev, the
 * waivers' dates and each entry's days to expiry, keys read decoded. */
Test(record, same_leaves_out_keys_by_where_they_stand)
{
	cr_assert(same("{\"inputs\": {\"report\": {\"rev\": \"a\", \"blob\": \"b\"}},"
		       " \"waivers\": {\"today\": \"2026-01-01\", \"today_from\": \"clock\","
		       " \"entries\": [{\"id\": 1, \"expires_in_days\": 3}]}}",
		       "{\"waivers\": {\"entries\": [{\"expires_in_days\": 2, \"id\": 1}]},"
		       " \"inputs\": {\"report\": {\"blob\": \"b\", \"\\u0072ev\": \"c\"}}}"));
	cr_assert_not(same("{\"inputs\": {\"report\": {\"blob\": \"a\"}}}",
			   "{\"inputs\": {\"report\": {\"blob\": \"a\", \"x\": 1}}}"));
	cr_assert_not(same("{\"inputs\": [{\"rev\": \"a\"}]}", "{\"inputs\": [{\"rev\": \"b\"}]}"));
	cr_assert_not(same("{\"x\": {\"rev\": \"a\"}}", "{\"x\": {\"rev\": \"b\"}}"));
	cr_assert_not(same("{\"waivers\": {\"entries\": [{\"today\": 1}]}}",
			   "{\"waivers\": {\"entries\": [{\"today\": 2}]}}"));
	cr_assert_not(same("{\"waivers\": [{\"today\": 1}]}", "{\"waivers\": [{\"today\": 2}]}"));
	cr_assert(same("{\"waivers\": {\"entries\": {\"a\": {\"expires_in_days\": 1}}}}",
		       "{\"waivers\": {\"entries\": {\"a\": {\"expires_in_days\": 2}}}}"));
}

/* Values compare as cJSON_Compare compared them: types, array order and
 * length, numbers within a relative DBL_EPSILON. */
Test(record, same_compares_values_as_before)
{
	cr_assert(same("{\"a\": 0.3, \"b\": 1e2, \"c\": \"\\u00e9\"}",
		       "{\"a\": 0.30000000000000004, \"b\": 100, \"c\": \"\xc3\xa9\"}"));
	cr_assert_not(same("{\"a\": 1}", "{\"a\": 1.000001}"));
	cr_assert_not(same("{\"a\": 1}", "{\"a\": \"1\"}"));
	cr_assert_not(same("{\"a\": true}", "{\"a\": false}"));
	cr_assert_not(same("{\"a\": null}", "{}"));
	cr_assert(same("{\"a\": null, \"b\": [true, {}]}", "{\"b\": [true, {}], \"a\": null}"));
	cr_assert_not(same("{\"a\": [1, 2]}", "{\"a\": [2, 1]}"));
	cr_assert_not(same("{\"a\": [1, 2]}", "{\"a\": [1, 2, 3]}"));
	cr_assert_not(same("{\"a\": {\"b\": 1}}", "{\"a\": {\"B\": 1}}"));
}

static void expect_not_object(const char *existing)
{
	mg_error err;
	bool result = true;

	mg_error_clear(&err);
	cr_assert_eq(mg_record_same(&result, existing, strlen(existing), "{}", &err), MG_ERROR,
		     "accepted %s", existing);
	cr_assert_str_eq(err.message, "existing record is not a JSON object");
	cr_assert_not(result);
}

Test(record, same_refuses_an_existing_file_that_is_not_an_object)
{
	expect_not_object("[1, 2]");
	expect_not_object("not json");
	expect_not_object("");
	expect_not_object("{} trailing");
	expect_not_object("{\"a\": ");
}

/* The strict reader reads records: what cJSON let through and it refuses
 * (a duplicate key: which one counts?) is no record to compare. */
Test(record, same_refuses_an_existing_record_with_a_duplicate_key)
{
	expect_not_object("{\"a\": 1, \"a\": 1}");
	expect_not_object("{\"a\": \"\xff\"}");
}

Test(record, same_stops_at_the_given_length)
{
	const char text[] = "{\"a\": 1}garbage";
	mg_error err;
	bool result = false;

	cr_assert_eq(mg_record_same(&result, text, 8, "{\"a\": 1}", &err), 0);
	cr_assert(result);
}

/* ---- the record read back as an approved record (mg_approved_read) ---- */

Test(record, reads_back_its_own_record)
{
	char *text = mg_record_render(build());

	expect_approved(read_approved("75_decision.json", text, strlen(text)), "accept", "checkpoint");
	free(text);
}

Test(record, reads_its_own_record_with_null_selection)
{
	char *text = mg_record_render(build_reject());

	expect_approved(read_approved("75_decision.json", text, strlen(text)), "reject", NULL);
	free(text);
}

/* policy_changes values keep their types: strings, lists, objects, null. */
Test(record, policy_change_values_are_typed)
{
	static const bool was[MG_VERDICT_COUNT] = { false, true, true }, now[MG_VERDICT_COUNT] = { false, false, true };
	mg_check_result *r = build();
	mg_policy_change changes[3];
	mg_budget stricter[1] = { { .set = { [MG_MEMORY_CAP_MB] = true }, .value = { [MG_MEMORY_CAP_MB] = 8500 } } };
	double caps[2] = { 9600, 11200 };
	mg_grid_axis grid[1] = { { MG_MEMORY_CAP_MB, caps, 2 } };
	char *text;
	cJSON *root;
	const cJSON *a;

	memset(changes, 0, sizeof(changes));
	snprintf(changes[0].key, sizeof(changes[0].key), "identity.hardware_id");
	changes[0].before = (mg_change_value){ .kind = MG_CHANGE_STRING, .string = "gpu-a" };
	changes[0].after = (mg_change_value){ .kind = MG_CHANGE_UNSET };
	changes[0].effect = MG_CHANGE_LOOSENS;
	snprintf(changes[1].key, sizeof(changes[1].key), "gate.fail_on");
	changes[1].before = (mg_change_value){ .kind = MG_CHANGE_VERDICTS, .verdicts = was };
	changes[1].after = (mg_change_value){ .kind = MG_CHANGE_VERDICTS, .verdicts = now };
	snprintf(changes[2].key, sizeof(changes[2].key), "sensitivity.stricter");
	changes[2].before = (mg_change_value){ .kind = MG_CHANGE_STRICTER, .stricter = stricter, .count = 1 };
	changes[2].after = (mg_change_value){ .kind = MG_CHANGE_GRID, .grid = grid, .count = 1 };
	changes[2].effect = MG_CHANGE_ALTERS;
	r->changes = changes;
	r->change_count = 3;
	root = render(r);
	a = at(root, "policy_changes");
	expect_string(cJSON_GetArrayItem(a, 0), "before", "gpu-a");
	expect_null(cJSON_GetArrayItem(a, 0), "after");
	text = cJSON_PrintUnformatted(at(cJSON_GetArrayItem(a, 1), "before"));
	cr_assert_str_eq(text, "[\"tune\",\"reject\"]");
	free(text);
	text = cJSON_PrintUnformatted(at(cJSON_GetArrayItem(a, 2), "before"));
	cr_assert_str_eq(text, "[{\"memory_cap_mb\":8500}]");
	free(text);
	text = cJSON_PrintUnformatted(at(cJSON_GetArrayItem(a, 2), "after"));
	cr_assert_str_eq(text, "{\"memory_cap_mb\":[9600,11200]}");
	free(text);
	expect_string(cJSON_GetArrayItem(a, 2), "effect", "changes");
	cJSON_Delete(root);
}

/* --base: the base's decision and per-candidate values; ignored, with the
 * notes, when record compares an existing record. */
Test(record, base_comparison_and_notes_are_listed_and_ignored_by_record_same)
{
	static mg_check_result base;
	static mg_evaluation bev[1];
	static mg_decision bd;
	static mg_check_base cb;
	char *notes[1] = { "adopting memgate" };
	mg_check_result *r = build();
	char *with, *without;
	cJSON *root;
	const cJSON *b, *c;
	bool same = false;

	without = mg_record_render(r);
	memset(&base, 0, sizeof(base));
	memset(&bd, 0, sizeof(bd));
	bev[0] = fx.ev[1];
	bev[0].value[MG_M_PEAK] = 9500.25;
	bev[0].status = MG_STATUS_REJECTED;
	bd.verdict = MG_TUNE;
	bd.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	bd.selected = "checkpoint";
	bd.base.evaluations = bev;
	bd.base.count = 1;
	base.decision = &bd;
	memset(&cb, 0, sizeof(cb));
	memset(cb.rev, 'f', 40);
	cb.result = &base;
	r->base = &cb;
	r->notes = notes;
	r->note_count = 1;
	with = mg_record_render(r);
	root = cJSON_Parse(with);
	expect_strings(at(root, "notes"), "adopting memgate");
	b = at(root, "base");
	expect_string(b, "decision", "tune");
	expect_string(b, "selected_candidate", "checkpoint");
	c = cJSON_GetArrayItem(at(b, "candidates"), 1);
	expect_string(c, "name", "checkpoint");
	expect_string(c, "change", "changed");
	expect_string(c, "base_status", "rejected");
	expect_string(c, "head_status", "feasible");
	cr_assert_eq(at(at(c, "peak_memory_mb"), "delta")->valuedouble, 9450.76 - 9500.25);
	c = cJSON_GetArrayItem(at(b, "candidates"), 0);
	expect_string(c, "name", "baseline");
	expect_string(c, "change", "new");
	expect_null(at(c, "peak_memory_mb"), "base");
	cr_assert_eq(mg_record_same(&same, with, strlen(with), without, NULL), 0);
	cr_assert(same, "the comparison and notes change the record's identity");
	cb.result = NULL;
	cb.error = "cannot read 'x' at fffffff: not found";
	free(with);
	with = mg_record_render(r);
	cJSON_Delete(root);
	root = cJSON_Parse(with);
	expect_string(at(root, "base"), "error", "cannot read 'x' at fffffff: not found");
	cr_assert_null(cJSON_GetObjectItemCaseSensitive(at(root, "base"), "decision"));
	cJSON_Delete(root);
	free(with);
	free(without);
}

/* ---- streaming ---- */

/* A sink that keeps what it is given, piece by piece; it refuses the
 * fail_at-th piece (1-based; 0: none) with ENOSPC. */
struct pieces {
	mg_buf all;
	size_t calls, largest, fail_at;
};

static int keep_piece(void *ctx, const char *data, size_t len)
{
	struct pieces *p = ctx;

	p->calls++;
	if (p->fail_at && p->calls >= p->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	if (len > p->largest)
		p->largest = len;
	mg_buf_put(&p->all, data, len);
	return 0;
}

/* The fixture's result with n evaluations (its four, repeated). */
static mg_check_result *build_large(mg_evaluation **evals, size_t n)
{
	mg_check_result *r = build();
	size_t i;

	*evals = mg_xcalloc(n, sizeof(**evals));
	for (i = 0; i < n; i++)
		(*evals)[i] = fx.ev[i % 4];
	fx.d.base.evaluations = *evals;
	fx.d.base.count = n;
	return r;
}

Test(record, streams_a_large_record_in_bounded_pieces_that_join_to_the_whole)
{
	struct pieces p = { MG_BUF_INIT, 0, 0, 0 };
	mg_evaluation *evals;
	mg_check_result *r = build_large(&evals, 20000);
	char *whole = mg_record_render(r);
	cJSON *root = cJSON_Parse(whole);

	cr_assert_not_null(root, "the record of 20000 evaluations is not JSON");
	cr_expect_eq(cJSON_GetArraySize(at(root, "evaluations")), 20000);
	cr_assert_eq(mg_record_write(r, keep_piece, &p), MG_OK);
	cr_expect(p.all.len == strlen(whole) && !memcmp(p.all.ptr, whole, p.all.len),
		  "the pieces do not join to the record");
	cr_expect_gt(p.calls, 4, "a record of %zu bytes came in %zu pieces", p.all.len, p.calls);
	cr_expect_leq(p.largest, (size_t)512 * 1024, "a piece of %zu bytes", p.largest);
	cJSON_Delete(root);
	free(whole);
	free(evals);
	mg_buf_free(&p.all);
}

Test(record, stops_at_the_first_piece_the_sink_refuses)
{
	struct pieces p = { MG_BUF_INIT, 0, 0, 2 };
	mg_evaluation *evals;
	mg_check_result *r = build_large(&evals, 20000);

	cr_expect_eq(mg_record_write(r, keep_piece, &p), MG_ERROR);
	cr_expect_eq(p.calls, 2, "the sink was called %zu times", p.calls);
	cr_expect_eq(errno, ENOSPC);
	free(evals);
	mg_buf_free(&p.all);
}
