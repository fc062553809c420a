/*
 * The policy parser (memgate(1), POLICY): every field of a valid policy with its
 * position, the defaults, and one test per refusal with its exact message,
 * line and column.  Fixtures are under fixtures/policies/.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "memgate/buf.h"
#include "memgate/policy.h"

#define FIXTURE(name) "fixtures/policies/" name

static mg_policy *parse_fixture(const char *fixture)
{
	mg_policy *p = NULL;
	mg_error err;
	size_t len;
	char *text = mg_test_read(fixture, &len);
	int rc;

	mg_error_clear(&err);
	rc = mg_policy_parse(&p, fixture, text, len, &err);
	free(text);
	cr_assert_eq(rc, 0, "%s:%d:%d: %s", fixture, err.line, err.column, err.message);
	cr_assert_not_null(p);
	return p;
}

static void expect_text_error(const char *path, const char *text, size_t len,
			      int line, int column, const char *message)
{
	mg_policy *p = NULL;
	mg_error err;
	int rc;

	mg_error_clear(&err);
	rc = mg_policy_parse(&p, path, text, len, &err);
	cr_expect_eq(rc, MG_ERROR, "%s parsed, expected '%s'", path, message);
	cr_expect_null(p);
	mg_policy_free(p);
	cr_expect_str_eq(err.file, path);
	cr_expect_str_eq(err.message, message);
	cr_expect_eq(err.line, line, "%s: line %d, expected %d", path, err.line, line);
	cr_expect_eq(err.column, column, "%s: column %d, expected %d", path, err.column,
		     column);
}

static void expect_error(const char *fixture, int line, int column, const char *message)
{
	size_t len;
	char *text = mg_test_read(fixture, &len);

	expect_text_error(fixture, text, len, line, column, message);
	free(text);
}

static void expect_pos(mg_pos pos, int line, int column, const char *what)
{
	cr_expect_eq(pos.line, line, "%s: line %d, expected %d", what, pos.line, line);
	cr_expect_eq(pos.column, column, "%s: column %d, expected %d", what, pos.column,
		     column);
}

static void expect_string_pin(const mg_policy *p, enum mg_ident id, const char *want,
			      int line, int column)
{
	const mg_value *v = &p->rules.pin[id];

	cr_expect_eq(v->kind, MG_VALUE_STRING, "pin %d kind %d", (int)id, (int)v->kind);
	cr_expect_str_eq(v->string ? v->string : "(null)", want);
	expect_pos(v->pos, line, column, want);
}

static void expect_number_pin(const mg_policy *p, enum mg_ident id, double want,
			      int line, int column)
{
	const mg_value *v = &p->rules.pin[id];

	cr_expect_eq(v->kind, MG_VALUE_NUMBER, "pin %d kind %d", (int)id, (int)v->kind);
	cr_expect(v->number == want, "pin %d is %g, expected %g", (int)id, v->number, want);
	cr_expect_null(v->string);
	expect_pos(v->pos, line, column, "number pin");
}

static void expect_threshold(const mg_policy *p, enum mg_threshold t, double want,
			     int line, int column)
{
	cr_expect(p->rules.budget.set[t], "threshold %d not set", (int)t);
	cr_expect(p->rules.budget.value[t] == want, "threshold %d is %g, expected %g",
		  (int)t, p->rules.budget.value[t], want);
	expect_pos(p->threshold_pos[t], line, column, "threshold");
}

static void expect_unset(const mg_policy *p, enum mg_threshold t)
{
	cr_expect_not(p->rules.budget.set[t], "threshold %d should not be set", (int)t);
}

/* ------------------------------------------------------------------ */
/* Valid policies                                                     */

Test(policy, reads_spec_example_top_level)
{
	mg_policy *p = parse_fixture(FIXTURE("spec-example.yml"));

	cr_expect_str_eq(p->path, FIXTURE("spec-example.yml"));
	cr_expect_eq(p->version, 1);
	cr_expect_str_eq(p->manifest, "benchmarks/results/75_input_manifest_gpu-a_v1.json");
	expect_pos(p->manifest_pos, 2, 11, "manifest");
	cr_expect_null(p->report);
	expect_pos(p->report_pos, 0, 0, "report");
	cr_expect_str_eq(p->rules.baseline, "baseline");
	expect_pos(p->baseline_pos, 22, 13, "baseline");
	cr_expect_eq(p->rules.min_repeats, 3);
	expect_pos(p->min_repeats_pos, 23, 16, "min_repeats");
	cr_expect_eq(p->rules.rank_by, MG_RANK_PEAK_MEMORY);
	expect_pos(p->rank_by_pos, 24, 10, "rank_by");
	cr_expect(p->fail_on_set);
	cr_expect(p->fail_on[MG_REJECT]);
	cr_expect(p->fail_on[MG_TUNE]);
	cr_expect_not(p->fail_on[MG_ACCEPT]);
	expect_pos(p->fail_on_pos, 34, 12, "fail_on");
	mg_policy_free(p);
}

Test(policy, reads_spec_example_identity_pins)
{
	mg_policy *p = parse_fixture(FIXTURE("spec-example.yml"));

	expect_string_pin(p, MG_ID_WORKLOAD, "train-b2-s1024", 4, 16);
	expect_string_pin(p, MG_ID_HARDWARE, "gpu-a", 5, 16);
	expect_string_pin(p, MG_ID_MODEL, "Qwen/Qwen2.5-0.5B-Instruct", 6, 13);
	expect_string_pin(p, MG_ID_DTYPE, "float32", 7, 10);
	expect_number_pin(p, MG_ID_BATCH_SIZE, 1, 8, 15);
	expect_number_pin(p, MG_ID_SEQ_LEN, 1024, 9, 12);
	expect_string_pin(p, MG_ID_OPTIMIZER, "AdamW", 10, 14);
	expect_string_pin(p, MG_ID_AMP_DTYPE, "torch.bfloat16", 11, 14);
	mg_policy_free(p);
}

Test(policy, reads_spec_example_thresholds)
{
	mg_policy *p = parse_fixture(FIXTURE("spec-example.yml"));

	expect_threshold(p, MG_MEMORY_CAP_MB, 11200, 13, 18);
	expect_threshold(p, MG_MIN_SAMPLES_PER_S, 1.0, 14, 22);
	expect_threshold(p, MG_MIN_MEMORY_SAVING_MB, 512, 15, 25);
	expect_threshold(p, MG_MIN_THROUGHPUT_RATIO, 0.70, 16, 25);
	expect_threshold(p, MG_MAX_EVAL_LOSS, 12.6, 18, 18);
	expect_threshold(p, MG_MAX_RELATIVE_EVAL_LOSS, 0.02, 19, 27);
	expect_threshold(p, MG_MAX_QUALITY_DELTA, 0.03, 20, 22);
	mg_policy_free(p);
}

Test(policy, reads_spec_example_stricter_entries)
{
	mg_policy *p = parse_fixture(FIXTURE("spec-example.yml"));
	const mg_budget *s = p->rules.stricter;
	int t;

	cr_assert_eq(p->rules.stricter_count, 2);
	cr_expect(s[0].set[MG_MEMORY_CAP_MB]);
	cr_expect(s[0].value[MG_MEMORY_CAP_MB] == 8500);
	cr_expect(s[1].set[MG_MIN_THROUGHPUT_RATIO]);
	cr_expect(s[1].value[MG_MIN_THROUGHPUT_RATIO] == 0.90);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		cr_expect(s[0].set[t] == (t == MG_MEMORY_CAP_MB), "stricter[0] sets %d", t);
		cr_expect(s[1].set[t] == (t == MG_MIN_THROUGHPUT_RATIO), "stricter[1] sets %d", t);
	}
	expect_pos(p->stricter_pos[0], 27, 7, "stricter[0]");
	expect_pos(p->stricter_pos[1], 28, 7, "stricter[1]");
	mg_policy_free(p);
}

Test(policy, reads_spec_example_grid_axes_in_order_written)
{
	mg_policy *p = parse_fixture(FIXTURE("spec-example.yml"));
	const mg_grid_axis *g = p->rules.grid;

	cr_assert_eq(p->rules.grid_count, 3);
	cr_expect_eq(g[0].threshold, MG_MEMORY_CAP_MB);
	cr_assert_eq(g[0].count, 2);
	cr_expect(g[0].values[0] == 9600 && g[0].values[1] == 11200);
	cr_expect_eq(g[1].threshold, MG_MIN_SAMPLES_PER_S);
	cr_assert_eq(g[1].count, 3);
	cr_expect(g[1].values[0] == 1.0 && g[1].values[1] == 1.5 && g[1].values[2] == 2.0);
	cr_expect_eq(g[2].threshold, MG_MAX_EVAL_LOSS);
	cr_assert_eq(g[2].count, 3);
	cr_expect(g[2].values[0] == 12.20 && g[2].values[1] == 12.45 && g[2].values[2] == 12.80);
	expect_pos(p->grid_pos[0], 30, 5, "grid memory_cap_mb");
	expect_pos(p->grid_pos[1], 31, 5, "grid min_samples_per_s");
	expect_pos(p->grid_pos[2], 32, 5, "grid max_eval_loss");
	mg_policy_free(p);
}

Test(policy, fills_defaults_for_optional_keys)
{
	mg_policy *p = parse_fixture(FIXTURE("defaults.yml"));
	int i;

	cr_expect_str_eq(p->rules.baseline, "baseline");
	cr_expect_eq(p->rules.min_repeats, 1);
	cr_expect_eq(p->rules.rank_by, MG_RANK_PEAK_MEMORY);
	cr_expect_not(p->fail_on_set);
	cr_expect(p->fail_on[MG_REJECT]);
	cr_expect(p->fail_on[MG_TUNE]);
	cr_expect_not(p->fail_on[MG_ACCEPT]);
	cr_expect_eq(p->rules.stricter_count, 0);
	cr_expect_eq(p->rules.grid_count, 0);
	expect_threshold(p, MG_MEMORY_CAP_MB, 9000, 8, 18);
	for (i = MG_MIN_SAMPLES_PER_S; i < MG_THRESHOLD_COUNT; i++)
		expect_unset(p, (enum mg_threshold)i);
	expect_string_pin(p, MG_ID_WORKLOAD, "train-b2-s1024", 5, 16);
	expect_string_pin(p, MG_ID_HARDWARE, "gpu-a", 6, 16);
	for (i = MG_ID_MODEL; i < MG_ID_COUNT; i++)
		cr_expect_eq(p->rules.pin[i].kind, MG_VALUE_ABSENT, "pin %d", i);
	mg_policy_free(p);
}

Test(policy, reads_seed_budget_with_stricter_checks)
{
	mg_policy *p = parse_fixture(FIXTURE("seed.yml"));

	cr_expect_null(p->manifest);
	cr_expect_str_eq(p->report, "handoff.json");
	expect_pos(p->report_pos, 3, 9, "report");
	expect_string_pin(p, MG_ID_WORKLOAD, "train-b2-s1024", 5, 16);
	expect_string_pin(p, MG_ID_HARDWARE, "gpu-a", 6, 16);
	expect_threshold(p, MG_MEMORY_CAP_MB, 9000, 8, 18);
	expect_threshold(p, MG_MIN_MEMORY_SAVING_MB, 2000, 9, 25);
	expect_threshold(p, MG_MIN_THROUGHPUT_RATIO, 0.75, 10, 25);
	expect_threshold(p, MG_MAX_QUALITY_DELTA, 0.03, 12, 22);
	expect_unset(p, MG_MIN_SAMPLES_PER_S);
	expect_unset(p, MG_MAX_EVAL_LOSS);
	expect_unset(p, MG_MAX_RELATIVE_EVAL_LOSS);
	cr_assert_eq(p->rules.stricter_count, 2);
	cr_expect(p->rules.stricter[0].value[MG_MEMORY_CAP_MB] == 8500);
	cr_expect(p->rules.stricter[1].value[MG_MIN_THROUGHPUT_RATIO] == 0.90);
	cr_expect_eq(p->rules.grid_count, 0);
	mg_policy_free(p);
}

static void expect_real_policy(const char *fixture, double cap)
{
	mg_policy *p = parse_fixture(fixture);

	cr_expect_str_eq(p->manifest, "benchmarks/results/75_input_manifest.json");
	expect_string_pin(p, MG_ID_WORKLOAD, "pressure", 5, 16);
	expect_string_pin(p, MG_ID_HARDWARE, "NVIDIA GeForce RTX 5070 Ti Laptop GPU", 6, 16);
	expect_threshold(p, MG_MEMORY_CAP_MB, cap, 8, 18);
	expect_threshold(p, MG_MIN_SAMPLES_PER_S, 1.0, 9, 22);
	expect_threshold(p, MG_MIN_MEMORY_SAVING_MB, 512, 10, 25);
	expect_threshold(p, MG_MIN_THROUGHPUT_RATIO, 0.70, 11, 25);
	expect_threshold(p, MG_MAX_RELATIVE_EVAL_LOSS, 0.02, 13, 27);
	expect_unset(p, MG_MAX_EVAL_LOSS);
	expect_unset(p, MG_MAX_QUALITY_DELTA);
	mg_policy_free(p);
}

Test(policy, reads_real_report_policy_with_cap_11200)
{
	expect_real_policy(FIXTURE("real-11200.yml"), 11200);
}

Test(policy, reads_real_report_policy_with_cap_9600)
{
	expect_real_policy(FIXTURE("real-9600.yml"), 9600);
}

Test(policy, keeps_the_kind_of_each_identity_pin)
{
	mg_policy *p = parse_fixture(FIXTURE("pin-kinds.yml"));

	expect_number_pin(p, MG_ID_HARDWARE, 5070, 5, 16);
	expect_string_pin(p, MG_ID_MODEL, "123", 6, 13);
	expect_number_pin(p, MG_ID_OPTIMIZER, 16, 7, 14);
	expect_string_pin(p, MG_ID_AMP_DTYPE, "torch.bfloat16", 8, 14);
	mg_policy_free(p);
}

Test(policy, reads_count_pins_as_numbers)
{
	mg_policy *p = parse_fixture(FIXTURE("pin-counts-as-floats.yml"));

	expect_number_pin(p, MG_ID_BATCH_SIZE, 1, 6, 15);
	expect_number_pin(p, MG_ID_SEQ_LEN, 768, 7, 12);
	mg_policy_free(p);
}

Test(policy, accepts_yaml_core_schema_tags)
{
	mg_policy *p = parse_fixture(FIXTURE("core-tags.yml"));

	expect_threshold(p, MG_MEMORY_CAP_MB, 9000, 7, 18);
	expect_threshold(p, MG_MIN_SAMPLES_PER_S, 2, 8, 22);
	cr_expect_str_eq(p->rules.baseline, "100");
	mg_policy_free(p);
}

Test(policy, reads_rank_by_throughput)
{
	mg_policy *p = parse_fixture(FIXTURE("rank-by-throughput.yml"));

	cr_expect_eq(p->rules.rank_by, MG_RANK_THROUGHPUT);
	expect_pos(p->rank_by_pos, 8, 10, "rank_by");
	mg_policy_free(p);
}

Test(policy, empty_fail_on_never_fails)
{
	mg_policy *p = parse_fixture(FIXTURE("fail-on-empty.yml"));

	cr_expect(p->fail_on_set);
	cr_expect_not(p->fail_on[MG_ACCEPT]);
	cr_expect_not(p->fail_on[MG_TUNE]);
	cr_expect_not(p->fail_on[MG_REJECT]);
	expect_pos(p->fail_on_pos, 9, 12, "fail_on");
	mg_policy_free(p);
}

Test(policy, allows_a_repeated_fail_on_word)
{
	mg_policy *p = parse_fixture(FIXTURE("fail-on-accept-twice.yml"));

	cr_expect(p->fail_on[MG_ACCEPT]);
	cr_expect_not(p->fail_on[MG_TUNE]);
	cr_expect_not(p->fail_on[MG_REJECT]);
	mg_policy_free(p);
}

Test(policy, accepts_a_grid_at_the_scenario_limit)
{
	mg_policy *p = parse_fixture(FIXTURE("grid-at-scenario-limit.yml"));

	cr_assert_eq(p->rules.grid_count, 3);
	cr_expect_eq(p->rules.grid[0].count * p->rules.grid[1].count * p->rules.grid[2].count,
		     MG_DECISION_MAX_SCENARIOS);
	mg_policy_free(p);
}

Test(policy, parses_text_without_a_terminating_nul)
{
	static const char text[] = "version: 1\nreport: r.json\nidentity: {workload_id: w, "
				   "hardware_id: h}\nbudget: {memory_cap_mb: 12}XXXX";
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "mem.yml", text, sizeof(text) - 1 - 4, &err), 0,
		     "%s", err.message);
	cr_expect(p->rules.budget.value[MG_MEMORY_CAP_MB] == 12);
	mg_policy_free(p);
}

Test(policy, free_accepts_null)
{
	mg_policy_free(NULL);
}

/* ------------------------------------------------------------------ */
/* Keys                                                               */

Test(policy, rejects_unknown_key_with_suggestion)
{
	expect_error(FIXTURE("unknown-key.yml"), 7, 3,
		     "unknown key 'memory_cap' (did you mean 'memory_cap_mb'?)");
}

Test(policy, rejects_unknown_key_listing_known_keys)
{
	expect_error(FIXTURE("unknown-key-no-suggestion.yml"), 8, 1,
		     "unknown key 'colour' (expected one of: version, manifest, report, "
		     "identity, budget, quality, evidence, rank_by, sensitivity, gate, waivers, "
		     "waivers_warn_days, provenance, regression)");
}

/* A key or reason quoted in a message is escaped and cut on a character's
 * boundary, "..." after it: 'x' and 40 two-byte characters leave 63 bytes
 * of the first 64, never half a character. */
Test(policy, quotes_a_long_key_or_reason_whole_characters)
{
	static const char two[] = "\xc3\xa9";   /* U+00E9 */
	mg_buf text = MG_BUF_INIT, key = MG_BUF_INIT, want = MG_BUF_INIT;
	mg_policy *p = NULL;
	mg_error err;
	int i;

	mg_buf_putc(&key, 'x');
	for (i = 0; i < 40; i++)
		mg_buf_puts(&key, two);
	mg_buf_printf(&text, "budget:\n  %s: 1\n", key.ptr);
	mg_buf_printf(&want, "unknown key '%.*s...' (expected one of: memory_cap_mb, "
		      "min_samples_per_s, min_memory_saving_mb, min_throughput_ratio, "
		      "min_mb_saved_per_pct_throughput)", 63, key.ptr);
	expect_text_error("long.yml", text.ptr, text.len, 2, 3, want.ptr);
	text.len = 0;
	mg_buf_puts(&text, "waivers:\n  - candidate: a\n    reason: \"bad\\u0001reason\"\n"
		    "    until: 2030-01-01\n    owner: o\n    why: w\n");
	mg_error_clear(&err);
	cr_assert_eq(mg_policy_parse(&p, "w.yml", text.ptr, text.len, &err), MG_ERROR);
	cr_expect_not_null(strstr(err.message, "unknown reason 'bad\\x01reason'"), "%s",
			   err.message);
	mg_buf_free(&text);
	mg_buf_free(&key);
	mg_buf_free(&want);
}

Test(policy, rejects_misplaced_key_naming_its_section)
{
	expect_error(FIXTURE("misplaced-key.yml"), 8, 3,
		     "'max_eval_loss' belongs under 'quality', not under 'budget'");
}

Test(policy, rejects_threshold_at_top_level_naming_its_section)
{
	expect_error(FIXTURE("misplaced-key-top-level.yml"), 6, 1,
		     "'memory_cap_mb' belongs under 'budget', not at the top level");
}

Test(policy, rejects_section_nested_in_another_naming_the_top_level)
{
	expect_error(FIXTURE("misplaced-section.yml"), 9, 3,
		     "'budget' belongs at the top level, not under 'evidence'");
}

Test(policy, rejects_duplicate_key_at_second_occurrence)
{
	expect_error(FIXTURE("duplicate-key.yml"), 9, 3,
		     "duplicate key 'memory_cap_mb' (first at 7:3)");
}

Test(policy, rejects_key_that_is_not_a_scalar)
{
	expect_error(FIXTURE("complex-key.yml"), 8, 3, "expected a string key, got a sequence");
}

/* ------------------------------------------------------------------ */
/* YAML features refused before the walk                              */

Test(policy, rejects_alias)
{
	expect_error(FIXTURE("alias.yml"), 9, 13,
		     "alias '*reference' is not allowed: write the value out");
}

Test(policy, points_at_the_alias_not_its_anchor)
{
	expect_error(FIXTURE("alias-of-anchor.yml"), 9, 13,
		     "alias '*workload' is not allowed: write the value out");
}

Test(policy, rejects_anchor)
{
	expect_error(FIXTURE("anchor.yml"), 9, 13, "anchor '&reference' is not allowed");
}

Test(policy, rejects_custom_tag)
{
	expect_error(FIXTURE("custom-tag.yml"), 9, 13,
		     "tag '!candidate' is not allowed: only yaml core schema tags are");
}

Test(policy, rejects_python_object_tag)
{
	expect_error(FIXTURE("python-tag.yml"), 9, 13,
		     "tag '!!python/object:os.system' is not allowed: only yaml core schema tags are");
}

Test(policy, rejects_core_tag_that_does_not_fit_the_value)
{
	expect_error(FIXTURE("tag-does-not-fit-value.yml"), 9, 16,
		     "'three' is not a valid '!!int'");
}

Test(policy, rejects_mapping_tag_on_a_scalar)
{
	expect_error(FIXTURE("tag-on-wrong-scalar.yml"), 9, 13,
		     "tag '!!map' cannot be used on a scalar");
}

Test(policy, rejects_sequence_tag_on_a_mapping)
{
	expect_error(FIXTURE("tag-on-wrong-collection.yml"), 6, 9,
		     "tag '!!seq' cannot be used on a mapping");
}

Test(policy, rejects_second_document)
{
	expect_error(FIXTURE("second-document.yml"), 8, 1, "a second yaml document is not allowed");
}

Test(policy, reports_syntax_error_with_context)
{
	expect_error(FIXTURE("syntax-error.yml"), 10, 1,
		     "invalid yaml: did not find expected ',' or ']' "
		     "(while parsing a flow sequence at 9:12)");
}

Test(policy, reports_syntax_error_without_context)
{
	expect_error(FIXTURE("syntax-error-bad-indent.yml"), 8, 22,
		     "invalid yaml: mapping values are not allowed in this context");
}

Test(policy, reports_invalid_utf8_at_its_byte)
{
	expect_error(FIXTURE("invalid-utf8.yml"), 9, 17, "invalid yaml: invalid leading UTF-8 octet");
}

Test(policy, rejects_nesting_deeper_than_the_limit)
{
	expect_error(FIXTURE("deep-nesting.yml"), 10, 33, "nesting is deeper than 16 levels");
}

/* Refused at the limit's column; the cost is make bench's (case h). */
Test(policy, refuses_200k_levels_of_nesting_at_the_limit)
{
	size_t n = 200000, i;
	mg_buf b = MG_BUF_INIT;

	mg_buf_puts(&b, "a: ");
	for (i = 0; i < n; i++)
		mg_buf_putc(&b, '[');
	for (i = 0; i < n; i++)
		mg_buf_putc(&b, ']');
	mg_buf_putc(&b, '\n');
	expect_text_error("deep.yml", b.ptr, b.len, 1, 19, "nesting is deeper than 16 levels");
	mg_buf_free(&b);
}

Test(policy, refuses_alias_bomb_at_its_first_alias)
{
	static const char bomb[] =
		"a: &a [x, x, x, x, x, x, x, x, x]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n";

	expect_text_error("bomb.yml", bomb, sizeof(bomb) - 1, 2, 8,
			  "alias '*a' is not allowed: write the value out");
}

/* A policy whose evidence.baseline is `n` bytes long. */
static char *policy_with_baseline(size_t n, size_t *len)
{
	mg_buf b = MG_BUF_INIT;
	size_t i;

	mg_buf_puts(&b, "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			"budget: {memory_cap_mb: 9000}\nevidence:\n  baseline: ");
	for (i = 0; i < n; i++)
		mg_buf_putc(&b, 'b');
	mg_buf_putc(&b, '\n');
	return mg_buf_detach(&b, len);
}

Test(policy, rejects_scalar_longer_than_the_limit)
{
	size_t len;
	char *text = policy_with_baseline(MG_POLICY_MAX_SCALAR + 1, &len);

	expect_text_error("long.yml", text, len, 6, 13, "value is longer than 4096 bytes");
	free(text);
}

Test(policy, accepts_scalar_at_the_limit)
{
	size_t len;
	char *text = policy_with_baseline(MG_POLICY_MAX_SCALAR, &len);
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "long.yml", text, len, &err), 0, "%s", err.message);
	cr_expect_eq(strlen(p->rules.baseline), MG_POLICY_MAX_SCALAR);
	mg_policy_free(p);
	free(text);
}

Test(policy, rejects_more_values_than_the_limit)
{
	mg_buf b = MG_BUF_INIT;
	size_t i;

	mg_buf_puts(&b, "gate:\n  fail_on: [");
	for (i = 0; i < MG_POLICY_MAX_NODES; i++)
		mg_buf_puts(&b, "tune,");
	mg_buf_puts(&b, "]\n");
	/* root, 'gate', its mapping, 'fail_on', the list: the 65532nd word is one too many */
	expect_text_error("many.yml", b.ptr, b.len, 2, 13 + 5 * (MG_POLICY_MAX_NODES - 5),
			  "policy has more than 65536 values");
	mg_buf_free(&b);
}

Test(policy, rejects_empty_file)
{
	expect_error(FIXTURE("empty.yml"), 1, 1, "policy is empty");
}

Test(policy, rejects_file_with_only_comments)
{
	expect_error(FIXTURE("comments-only.yml"), 1, 1, "policy is empty");
}

Test(policy, rejects_document_with_nothing_in_it)
{
	expect_error(FIXTURE("document-marker-only.yml"), 1, 1, "policy is empty");
}

Test(policy, rejects_root_that_is_not_a_mapping)
{
	expect_error(FIXTURE("root-not-a-mapping.yml"), 1, 1,
		     "expected a mapping at the top level, got a sequence");
}

/* ------------------------------------------------------------------ */
/* Types                                                              */

Test(policy, rejects_section_of_wrong_type)
{
	expect_error(FIXTURE("wrong-type-section.yml"), 6, 9,
		     "'budget': expected a mapping, got a number");
}

Test(policy, rejects_threshold_of_wrong_type)
{
	expect_error(FIXTURE("wrong-type-threshold.yml"), 7, 18,
		     "'budget.memory_cap_mb': expected a number, got a boolean");
}

Test(policy, rejects_quoted_number)
{
	expect_error(FIXTURE("quoted-number.yml"), 7, 18,
		     "'budget.memory_cap_mb': expected a number, got a string "
		     "(numbers are written without quotes)");
}

Test(policy, reads_yaml_1_1_number_as_a_string)
{
	expect_error(FIXTURE("yaml11-number.yml"), 7, 18,
		     "'budget.memory_cap_mb': expected a number, got a string");
}

Test(policy, rejects_identity_pin_of_wrong_type)
{
	expect_error(FIXTURE("wrong-type-pin.yml"), 6, 10,
		     "'identity.dtype': expected a string or a number, got a sequence");
}

Test(policy, rejects_null_identity_pin)
{
	expect_error(FIXTURE("null-pin.yml"), 6, 9,
		     "'identity.dtype': expected a string or a number, got null");
}

Test(policy, rejects_non_finite_identity_pin)
{
	expect_error(FIXTURE("non-finite-pin.yml"), 6, 13,
		     "'identity.model_id' must be a finite number, got '.inf'");
}

Test(policy, rejects_quoted_seq_len)
{
	expect_error(FIXTURE("seq-len-quoted.yml"), 6, 12,
		     "'identity.seq_len': expected a number, got a string");
}

Test(policy, rejects_string_with_nul_byte)
{
	expect_error(FIXTURE("nul-in-string.yml"), 9, 13, "'evidence.baseline' contains a NUL byte");
}

/* ------------------------------------------------------------------ */
/* Values                                                             */

Test(policy, rejects_infinite_threshold)
{
	expect_error(FIXTURE("non-finite-inf.yml"), 7, 18,
		     "'budget.memory_cap_mb' must be a finite number, got '.inf'");
}

Test(policy, rejects_nan_threshold)
{
	expect_error(FIXTURE("non-finite-nan.yml"), 9, 18,
		     "'quality.max_eval_loss' must be a finite number, got '.nan'");
}

Test(policy, rejects_number_that_overflows_to_infinity)
{
	expect_error(FIXTURE("huge-number.yml"), 8, 22,
		     "'budget.min_samples_per_s' must be a finite number, got '1e999'");
}

Test(policy, rejects_memory_cap_of_zero)
{
	expect_error(FIXTURE("memory-cap-zero.yml"), 7, 18,
		     "'budget.memory_cap_mb' must be greater than 0, got '0'");
}

Test(policy, rejects_negative_min_samples_per_s)
{
	expect_error(FIXTURE("negative-min-samples.yml"), 8, 22,
		     "'budget.min_samples_per_s' must be at least 0, got '-1.0'");
}

Test(policy, rejects_negative_min_memory_saving)
{
	expect_error(FIXTURE("negative-min-saving.yml"), 8, 25,
		     "'budget.min_memory_saving_mb' must be at least 0, got '-512'");
}

Test(policy, rejects_throughput_ratio_above_one)
{
	expect_error(FIXTURE("throughput-ratio-above-one.yml"), 8, 25,
		     "'budget.min_throughput_ratio' must be between 0 and 1, got '1.5'");
}

Test(policy, rejects_negative_throughput_ratio)
{
	expect_error(FIXTURE("throughput-ratio-negative.yml"), 8, 25,
		     "'budget.min_throughput_ratio' must be between 0 and 1, got '-0.1'");
}

Test(policy, rejects_negative_max_eval_loss)
{
	expect_error(FIXTURE("negative-max-eval-loss.yml"), 9, 18,
		     "'quality.max_eval_loss' must be at least 0, got '-12.6'");
}

Test(policy, rejects_negative_max_relative_eval_loss)
{
	expect_error(FIXTURE("negative-relative-eval-loss.yml"), 9, 27,
		     "'quality.max_relative_eval_loss' must be at least 0, got '-0.02'");
}

Test(policy, rejects_negative_max_quality_delta)
{
	expect_error(FIXTURE("negative-quality-delta.yml"), 9, 22,
		     "'quality.max_quality_delta' must be at least 0, got '-0.03'");
}

Test(policy, rejects_version_2)
{
	expect_error(FIXTURE("version-2.yml"), 1, 10, "'version' must be the integer 1, got '2'");
}

Test(policy, rejects_version_written_as_float)
{
	expect_error(FIXTURE("version-float.yml"), 1, 10,
		     "'version' must be the integer 1, got '1.0'");
}

Test(policy, rejects_version_written_as_string)
{
	expect_error(FIXTURE("version-string.yml"), 1, 10,
		     "'version': expected the integer 1, got a string");
}

Test(policy, rejects_min_repeats_of_zero)
{
	expect_error(FIXTURE("min-repeats-zero.yml"), 9, 16,
		     "'evidence.min_repeats' must be at least 1, got '0'");
}

Test(policy, rejects_fractional_min_repeats)
{
	expect_error(FIXTURE("min-repeats-fraction.yml"), 9, 16,
		     "'evidence.min_repeats': expected an integer, got '2.5'");
}

Test(policy, rejects_min_repeats_beyond_int)
{
	expect_error(FIXTURE("min-repeats-huge.yml"), 9, 16,
		     "'evidence.min_repeats' must be at most 2147483647, got '3000000000'");
}

Test(policy, rejects_batch_size_of_zero)
{
	expect_error(FIXTURE("batch-size-zero.yml"), 6, 15,
		     "'identity.batch_size' must be a finite number of at least 1, got '0'");
}

Test(policy, rejects_empty_workload_id)
{
	expect_error(FIXTURE("empty-workload-id.yml"), 4, 16,
		     "'identity.workload_id' must not be empty");
}

Test(policy, rejects_empty_baseline)
{
	expect_error(FIXTURE("empty-baseline.yml"), 9, 13, "'evidence.baseline' must not be empty");
}

Test(policy, rejects_rank_by_that_is_not_a_string)
{
	expect_error(FIXTURE("rank-by-number.yml"), 8, 10, "'rank_by': expected a string, got a number");
}

Test(policy, rejects_unknown_rank_by)
{
	expect_error(FIXTURE("bad-rank-by.yml"), 8, 10,
		     "'rank_by' must be 'peak_memory' or 'throughput', got 'memory'");
}

/* ------------------------------------------------------------------ */
/* manifest / report and required keys                               */

Test(policy, rejects_both_manifest_and_report)
{
	expect_error(FIXTURE("both-manifest-and-report.yml"), 8, 9,
		     "give only one of 'manifest' and 'report'");
}

Test(policy, rejects_neither_manifest_nor_report)
{
	expect_error(FIXTURE("neither-manifest-nor-report.yml"), 1, 1,
		     "missing required key 'manifest' or 'report'");
}

Test(policy, rejects_manifest_that_is_not_a_string)
{
	expect_error(FIXTURE("manifest-not-a-string.yml"), 2, 11,
		     "'manifest': expected a string, got a number");
}

Test(policy, rejects_empty_manifest_path)
{
	expect_error(FIXTURE("empty-manifest.yml"), 2, 11, "'manifest' must not be empty");
}

Test(policy, rejects_missing_version)
{
	expect_error(FIXTURE("missing-version.yml"), 1, 1, "missing required key 'version'");
}

Test(policy, rejects_missing_identity)
{
	expect_error(FIXTURE("missing-identity.yml"), 1, 1, "missing required key 'identity'");
}

Test(policy, rejects_missing_workload_id_at_identity)
{
	expect_error(FIXTURE("missing-workload-id.yml"), 4, 3,
		     "missing required key 'workload_id' in 'identity'");
}

Test(policy, rejects_missing_hardware_id_at_identity)
{
	expect_error(FIXTURE("missing-hardware-id.yml"), 4, 3,
		     "missing required key 'hardware_id' in 'identity'");
}

Test(policy, rejects_missing_budget)
{
	expect_error(FIXTURE("missing-budget.yml"), 1, 1, "missing required key 'budget'");
}

Test(policy, rejects_missing_memory_cap_at_budget)
{
	expect_error(FIXTURE("missing-memory-cap.yml"), 7, 3,
		     "missing required key 'memory_cap_mb' in 'budget'");
}

/* ------------------------------------------------------------------ */
/* gate and sensitivity                                               */

Test(policy, rejects_unknown_fail_on_word)
{
	expect_error(FIXTURE("bad-fail-on.yml"), 9, 27,
		     "unknown decision 'warn' in 'gate.fail_on' (expected accept, tune or reject)");
}

Test(policy, suggests_fail_on_word_for_typo)
{
	expect_error(FIXTURE("fail-on-typo.yml"), 9, 13,
		     "unknown decision 'rejcet' in 'gate.fail_on' (did you mean 'reject'?)");
}

Test(policy, rejects_fail_on_word_that_is_not_a_string)
{
	expect_error(FIXTURE("fail-on-boolean.yml"), 9, 13,
		     "'gate.fail_on[0]': expected a string, got a boolean");
}

Test(policy, rejects_fail_on_that_is_not_a_list)
{
	expect_error(FIXTURE("fail-on-not-a-list.yml"), 9, 12,
		     "'gate.fail_on': expected a sequence, got a string");
}

Test(policy, rejects_empty_stricter_entry)
{
	expect_error(FIXTURE("empty-stricter-entry.yml"), 11, 7,
		     "'sensitivity.stricter[1]' is empty: override at least one threshold");
}

Test(policy, rejects_stricter_that_is_not_a_list)
{
	expect_error(FIXTURE("stricter-not-a-list.yml"), 9, 13,
		     "'sensitivity.stricter': expected a sequence, got a mapping");
}

Test(policy, rejects_stricter_entry_that_is_not_a_mapping)
{
	expect_error(FIXTURE("stricter-not-a-mapping.yml"), 10, 7,
		     "'sensitivity.stricter[0]': expected a mapping, got a string");
}

Test(policy, rejects_stricter_value_out_of_range)
{
	expect_error(FIXTURE("stricter-out-of-range.yml"), 10, 31,
		     "'sensitivity.stricter[0].min_throughput_ratio' must be between 0 and 1, got '1.2'");
}

Test(policy, rejects_more_stricter_entries_than_the_limit)
{
	mg_buf b = MG_BUF_INIT;
	int i;

	mg_buf_puts(&b, "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			"budget: {memory_cap_mb: 9000}\nsensitivity:\n  stricter:\n");
	for (i = 0; i <= MG_POLICY_MAX_STRICTER; i++)
		mg_buf_puts(&b, "    - {memory_cap_mb: 8000}\n");
	expect_text_error("stricter.yml", b.ptr, b.len, 7 + MG_POLICY_MAX_STRICTER, 7,
			  "'sensitivity.stricter' has more than 256 entries");
	mg_buf_free(&b);
}

Test(policy, rejects_grid_that_is_not_a_mapping)
{
	expect_error(FIXTURE("grid-not-a-mapping.yml"), 9, 9,
		     "'sensitivity.grid': expected a mapping, got a sequence");
}

Test(policy, rejects_unknown_grid_axis)
{
	expect_error(FIXTURE("grid-unknown-key.yml"), 10, 5,
		     "unknown key 'memory_cap' (did you mean 'memory_cap_mb'?)");
}

Test(policy, rejects_empty_grid_axis)
{
	expect_error(FIXTURE("grid-empty-axis.yml"), 10, 20,
		     "'sensitivity.grid.memory_cap_mb' is empty: give at least one value");
}

Test(policy, rejects_grid_value_that_is_not_a_number)
{
	expect_error(FIXTURE("grid-non-number.yml"), 10, 30,
		     "'sensitivity.grid.min_samples_per_s[1]': expected a number, got a string");
}

Test(policy, rejects_grid_axis_that_is_not_a_list)
{
	expect_error(FIXTURE("grid-axis-not-a-list.yml"), 10, 20,
		     "'sensitivity.grid.memory_cap_mb': expected a sequence, got a number");
}

Test(policy, rejects_grid_axis_with_more_values_than_the_limit)
{
	mg_buf b = MG_BUF_INIT;
	int i;

	mg_buf_puts(&b, "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			"budget: {memory_cap_mb: 9000}\nsensitivity:\n  grid:\n    memory_cap_mb:\n");
	for (i = 0; i <= MG_POLICY_MAX_AXIS_VALUES; i++)
		mg_buf_printf(&b, "      - %d\n", 8000 + i);
	expect_text_error("axis.yml", b.ptr, b.len, 8 + MG_POLICY_MAX_AXIS_VALUES, 9,
			  "'sensitivity.grid.memory_cap_mb' has more than 256 values");
	mg_buf_free(&b);
}

Test(policy, rejects_grid_with_more_scenarios_than_the_limit)
{
	expect_error(FIXTURE("grid-too-many-scenarios.yml"), 12, 5,
		     "'sensitivity.grid' makes 4097 scenarios (4096 cells + 1 stricter), "
		     "more than the limit of 4096");
}

Test(policy, rejects_grid_whose_product_does_not_fit_in_64_bits)
{
	mg_buf b = MG_BUF_INIT;
	int t, i;

	mg_buf_puts(&b, "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			"budget: {memory_cap_mb: 9000}\nsensitivity:\n  grid:\n");
	/* one full axis per budget threshold (not the regression's): 256^8 = 2^64 cells */
	for (t = 0; t < MG_MAX_PEAK_INCREASE_MB; t++) {
		mg_buf_printf(&b, "    %s: [", mg_threshold_name((enum mg_threshold)t));
		for (i = 0; i < MG_POLICY_MAX_AXIS_VALUES; i++)
			mg_buf_printf(&b, "%s%g", i ? ", " : "", t == MG_MIN_THROUGHPUT_RATIO ?
				      (double)i / MG_POLICY_MAX_AXIS_VALUES : 1.0 + i);
		mg_buf_puts(&b, "]\n");
	}
	expect_text_error("grid.yml", b.ptr, b.len, 7, 5,
			  "'sensitivity.grid' makes more than 18446744073709551615 scenarios, "
			  "more than the limit of 4096");
	mg_buf_free(&b);
}

/* ---- waivers ---- */

Test(policy, reads_waivers_with_every_field_and_position)
{
	mg_policy *p = parse_fixture(FIXTURE("waivers.yml"));
	const mg_policy_waiver *w = p->waivers;

	cr_assert(p->waivers_set);
	cr_assert_eq(p->waiver_count, 2);
	cr_assert_str_eq(w[0].candidate, "offload");
	cr_assert_eq(w[0].reason, MG_R_SAMPLES_PER_S_BELOW_FLOOR);
	cr_assert_str_eq(w[0].justification, "offload is for small cards");
	cr_assert_str_eq(w[0].owner, "@training-infra");
	cr_assert_str_eq(w[0].expires, "2027-01-31");
	cr_assert_eq(w[0].expires_ymd, 20270131);
	expect_pos(w[0].pos, 6, 5, "the entry");
	expect_pos(w[0].reason_pos, 7, 13, "reason");
	expect_pos(w[0].expires_pos, 10, 14, "expires");
	cr_assert_str_eq(w[1].expires, "2024-02-29");
	cr_assert_eq(w[1].reason, MG_R_MEMORY_OVER_BUDGET);
	/* the core reads waivers in force from the caller, never from the parse */
	cr_assert_null(p->rules.waivers);
	cr_assert_eq(p->rules.waiver_count, 0);
	mg_policy_free(p);
}

Test(policy, waivers_warn_days_defaults_to_14_and_is_read)
{
	mg_policy *p = parse_fixture(FIXTURE("waivers.yml"));

	cr_assert_eq(p->waivers_warn_days, 14);
	cr_assert_eq(MG_POLICY_WARN_DAYS, 14);
	mg_policy_free(p);
	p = parse_fixture(FIXTURE("waivers-warn-days.yml"));
	cr_assert_eq(p->waivers_warn_days, 30);
	expect_pos(p->waivers_warn_days_pos, 5, 20, "waivers_warn_days");
	mg_policy_free(p);
}

Test(policy, refuses_negative_waivers_warn_days)
{
	expect_error(FIXTURE("waivers-warn-days-negative.yml"), 5, 20,
		     "'waivers_warn_days' must be at least 0, got '-3'");
}

Test(policy, refuses_waiver_of_an_evidence_issue)
{
	expect_error(FIXTURE("waiver-evidence-issue.yml"), 7, 13,
		     "'waivers[0].reason': 'report_hash_mismatch' is an evidence problem and cannot "
		     "be waived: fix the evidence instead (a waiver names one of: memory_over_budget, "
		     "samples_per_s_below_floor, quality_over_floor, memory_saving_below_floor, "
		     "throughput_below_floor, quality_delta_over_limit, trade_off_below_floor, peak_memory_regressed, throughput_regressed, eval_loss_regressed)");
}

Test(policy, refuses_bad_waivers_at_their_position)
{
	static const char head[] = "version: 1\nmanifest: m.json\nidentity: { workload_id: w, hardware_id: h }\n"
				   "budget: { memory_cap_mb: 9000 }\n";
	static const struct { const char *waivers; int line, column; const char *message; } cases[] = {
		{ "waivers: {}\n", 5, 10, "'waivers': expected a sequence, got a mapping" },
		{ "waivers: [ 3 ]\n", 5, 12, "'waivers[0]': expected a mapping, got a number" },
		{ "waivers:\n  - { candidate: c, reason: oom, justification: j, owner: o, expires: 2027-01-01 }\n",
		  6, 29, "'waivers[0].reason': 'oom' is an evidence problem and cannot be waived: fix the "
		  "evidence instead (a waiver names one of: memory_over_budget, samples_per_s_below_floor, "
		  "quality_over_floor, memory_saving_below_floor, throughput_below_floor, "
		  "quality_delta_over_limit, trade_off_below_floor, peak_memory_regressed, throughput_regressed, eval_loss_regressed)" },
		{ "waivers:\n  - { candidate: c, reason: throughput_below_flor, justification: j, owner: o, expires: 2027-01-01 }\n",
		  6, 29, "'waivers[0].reason': unknown reason 'throughput_below_flor' (did you mean "
		  "'throughput_below_floor'?)" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, owner: o, expires: 2027-01-01 }\n",
		  6, 5, "missing required key 'justification' in 'waivers[0]' (a waiver needs candidate, "
		  "reason, justification, owner and expires)" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2027-1-01 }\n",
		  6, 86, "'waivers[0].expires': expected a date YYYY-MM-DD, got '2027-1-01'" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2023-02-29 }\n",
		  6, 86, "'waivers[0].expires': no such day '2023-02-29' (February 2023 has 28 days)" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2026-02-30 }\n",
		  6, 86, "'waivers[0].expires': no such day '2026-02-30' (February 2026 has 28 days)" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2026/02/03 }\n",
		  6, 86, "'waivers[0].expires': expected a date YYYY-MM-DD, got '2026/02/03'" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 20270101 }\n",
		  6, 86, "'waivers[0].expires': expected a date YYYY-MM-DD, got a number" },
		{ "waivers:\n  - { candidate: c, reason: 7, justification: j, owner: o, expires: 2027-01-01 }\n",
		  6, 29, "'waivers[0].reason': expected a reason such as 'memory_over_budget', got a number" },
		{ "waivers:\n  - { candidate: 7, reason: memory_over_budget, justification: j, owner: o, expires: 2027-01-01 }\n",
		  6, 18, "'waivers[0].candidate': expected a string, got a number" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2027-01-01, expire: x }\n",
		  6, 98, "unknown key 'expire' (did you mean 'expires'?)" },
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, cases[i].waivers);
		expect_text_error("w.yml", text, strlen(text), cases[i].line, cases[i].column,
				  cases[i].message);
	}
}

/* A waiver of a regression's reason names the largest change it accepts
 * (up_to_pct); no other waiver may. */
Test(policy, reads_a_regression_waiver_with_its_allowance)
{
	static const char text[] = "version: 1\nmanifest: m.json\n"
		"identity: { workload_id: w, hardware_id: h }\nbudget: { memory_cap_mb: 9000 }\n"
		"regression: { max_peak_increase_pct: 5 }\nwaivers:\n"
		"  - { candidate: c, reason: peak_memory_regressed, justification: j, owner: o,\n"
		"      expires: 2027-01-01, up_to_pct: 8.5 }\n";
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "w.yml", text, strlen(text), &err), 0, "%s", err.message);
	cr_assert_eq(p->waiver_count, 1);
	cr_assert_eq(p->waivers[0].reason, MG_R_PEAK_MEMORY_REGRESSED);
	cr_assert(p->waivers[0].up_to_set);
	cr_assert_float_eq(p->waivers[0].up_to_pct, 8.5, 1e-12);
	cr_assert_eq(p->waivers[0].up_to_pct_pos.line, 8);
	cr_assert_eq(p->waivers[0].up_to_pct_pos.column, 39);
	mg_policy_free(p);
}

Test(policy, refuses_bad_regression_waivers_at_their_position)
{
	static const char head[] = "version: 1\nmanifest: m.json\nidentity: { workload_id: w, hardware_id: h }\n"
				   "budget: { memory_cap_mb: 9000 }\n";
	static const struct { const char *waivers; int line, column; const char *message; } cases[] = {
		{ "waivers:\n  - { candidate: c, reason: peak_memory_regressed, justification: j, owner: o, expires: 2027-01-01, up_to_pct: -1 }\n",
		  6, 112, "'waivers[0].up_to_pct' must be at least 0, got '-1'" },
		{ "waivers:\n  - { candidate: c, reason: throughput_regressed, justification: j, owner: o, expires: 2027-01-01, up_to_pct: lots }\n",
		  6, 111, "'waivers[0].up_to_pct': expected a number, got a string" },
		{ "waivers:\n  - { candidate: c, reason: throughput_regressed, justification: j, owner: o, expires: 2027-01-01, up_to_pct: '8' }\n",
		  6, 111, "'waivers[0].up_to_pct': expected a number, got a string (numbers are written without quotes)" },
		{ "waivers:\n  - { candidate: c, reason: eval_loss_regressed, justification: j, owner: o, expires: 2027-01-01, up_to_pct: .inf }\n",
		  6, 110, "'waivers[0].up_to_pct' must be a finite number, got '.inf'" },
		{ "waivers:\n  - { candidate: c, reason: peak_memory_regressed, justification: j, owner: o, expires: 2027-01-01 }\n",
		  6, 5, "missing required key 'up_to_pct' in 'waivers[0]' (a waiver of peak_memory_regressed "
		  "names the largest change it accepts, e.g. 'up_to_pct: 8')" },
		{ "waivers:\n  - { candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2027-01-01, up_to_pct: 8 }\n",
		  6, 109, "'waivers[0].up_to_pct': only a waiver of a regression's reason (peak_memory_regressed, "
		  "throughput_regressed, eval_loss_regressed) accepts a change up to a percent; a waiver of "
		  "memory_over_budget passes its check whatever the candidate measures: remove it" },
		{ "waivers:\n  - { candidate: c, reason: regression_not_compared, justification: j, owner: o, expires: 2027-01-01, up_to_pct: 8 }\n",
		  6, 29, "'waivers[0].reason': 'regression_not_compared' is not a threshold's reason and cannot be "
		  "waived (a waiver names one of: memory_over_budget, samples_per_s_below_floor, quality_over_floor, "
		  "memory_saving_below_floor, throughput_below_floor, quality_delta_over_limit, trade_off_below_floor, "
		  "peak_memory_regressed, throughput_regressed, eval_loss_regressed)" },
		{ "waivers:\n  - { candidate: c, reason: peak_memory_regresed, justification: j, owner: o, expires: 2027-01-01, up_to_pct: 8 }\n",
		  6, 29, "'waivers[0].reason': unknown reason 'peak_memory_regresed' (did you mean "
		  "'peak_memory_regressed'?)" },
	};
	char text[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", head, cases[i].waivers);
		expect_text_error("w.yml", text, strlen(text), cases[i].line, cases[i].column,
				  cases[i].message);
	}
}

Test(policy, rejects_more_waivers_than_the_limit)
{
	mg_buf b = MG_BUF_INIT;
	int i;

	mg_buf_puts(&b, "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			"budget: {memory_cap_mb: 9000}\nwaivers:\n");
	for (i = 0; i <= MG_POLICY_MAX_WAIVERS; i++)
		mg_buf_printf(&b, "  - {candidate: c%d, reason: memory_over_budget, justification: j, "
			      "owner: o, expires: 2027-01-01}\n", i);
	expect_text_error("waivers.yml", b.ptr, b.len, 6 + MG_POLICY_MAX_WAIVERS, 5,
			  "'waivers' has more than 256 entries");
	mg_buf_free(&b);
}

Test(policy, reads_the_trade_off_target_and_noise_mode)
{
	mg_policy *p = parse_fixture(FIXTURE("trade-off-and-noise.yml"));

	cr_expect(p->rules.budget.set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT]);
	cr_expect_eq(p->rules.budget.value[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT], 25.5);
	expect_pos(p->threshold_pos[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT], 8, 36, "trade-off");
	cr_expect_eq(p->rules.noise, MG_NOISE_TUNE);
	expect_pos(p->noise_pos, 10, 10, "noise");
	cr_expect(p->rules.stricter[0].set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT]);
	cr_expect_eq(p->rules.stricter[0].value[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT], 40);
	cr_expect_eq(p->rules.grid[0].threshold, MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT);
	cr_expect_eq(p->rules.grid[0].count, 2);
	mg_policy_free(p);
}

Test(policy, noise_defaults_to_warn)
{
	mg_policy *p = parse_fixture(FIXTURE("rank-by-throughput.yml"));

	cr_expect_eq(p->rules.noise, MG_NOISE_WARN);
	cr_expect_not(p->rules.budget.set[MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT]);
	mg_policy_free(p);
}

Test(policy, rejects_unknown_noise_mode)
{
	expect_error(FIXTURE("noise-unknown-mode.yml"), 10, 10,
		     "'evidence.noise' must be 'warn' or 'tune', got 'sometimes'");
}

Test(policy, rejects_negative_trade_off_floor)
{
	expect_error(FIXTURE("negative-trade-off.yml"), 8, 36,
		     "'budget.min_mb_saved_per_pct_throughput' must be at least 0, got '-1'");
}

Test(policy, reads_evidence_inputs_in_order_with_positions)
{
	mg_policy *p = parse_fixture(FIXTURE("evidence-inputs.yml"));

	cr_assert_eq(p->input_count, 2);
	cr_expect_str_eq(p->inputs[0], "src/model/**");
	cr_expect_str_eq(p->inputs[1], "configs/train*.yaml");
	expect_pos(p->inputs_pos, 11, 5, "inputs");
	expect_pos(p->input_pos[1], 12, 7, "inputs[1]");
	mg_policy_free(p);
}

Test(policy, has_no_evidence_inputs_by_default)
{
	mg_policy *p = parse_fixture(FIXTURE("rank-by-throughput.yml"));

	cr_expect_eq(p->input_count, 0);
	cr_expect_null(p->inputs);
	mg_policy_free(p);
}

Test(policy, rejects_empty_evidence_inputs)
{
	expect_error(FIXTURE("evidence-inputs-empty.yml"), 10, 11,
		     "'evidence.inputs' is empty: list at least one pathspec, or remove the key");
}

Test(policy, rejects_evidence_inputs_that_are_not_a_list)
{
	expect_error(FIXTURE("evidence-inputs-not-a-list.yml"), 10, 11,
		     "'evidence.inputs': expected a sequence, got a string");
}

Test(policy, rejects_an_evidence_input_that_is_not_a_string)
{
	expect_error(FIXTURE("evidence-inputs-not-a-string.yml"), 10, 17,
		     "'evidence.inputs[1]': expected a string, got a number");
}

Test(policy, rejects_an_empty_evidence_input)
{
	expect_error(FIXTURE("evidence-inputs-empty-string.yml"), 10, 17,
		     "'evidence.inputs[1]' must not be empty");
}

/* An evidence.inputs entry in a form libgit2 would not match as git does
 * is refused at the entry (memgate(1), STALE EVIDENCE). */
Test(policy, refuses_an_evidence_input_in_an_unsupported_form_at_its_line)
{
	static const char head[] = "version: 1\nmanifest: m.json\n"
				   "identity: {workload_id: w, hardware_id: h}\n"
				   "budget: {memory_cap_mb: 1}\nevidence:\n  inputs:\n"
				   "    - src/model/**\n";
	static const struct {
		const char *entry, *message;
	} cases[] = {
		{ "./src/model", "'./src/model': a leading './' is not supported in "
		  "evidence.inputs; write 'src/model'" },
		{ "src/model/layers/../layers", "'src/model/layers/../layers': a '..' segment "
		  "is not supported in evidence.inputs; write 'src/model/layers'" },
		{ "':(glob)src/**/*.py'", "':(glob)src/**/*.py': git's pathspec magic 'glob' "
		  "(':(glob)') is not supported in evidence.inputs; write the pattern without it "
		  "('*' then matches '/' too, as in git without magic)" },
		{ "':(exclude)docs'", "':(exclude)docs': git's pathspec magic 'exclude' "
		  "(':(exclude)') is not supported in evidence.inputs; list only the paths whose "
		  "change invalidates the evidence" },
	};
	mg_buf b = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.len = 0;
		mg_buf_printf(&b, "%s    - %s\n", head, cases[i].entry);
		expect_text_error("inputs.yml", b.ptr, b.len, 8, 7, cases[i].message);
	}
	mg_buf_free(&b);
}

Test(policy, reads_provenance_with_defaults)
{
	const char *text = "version: 1\nmanifest: m.json\nidentity: {workload_id: w, hardware_id: h}\n"
			   "budget: {memory_cap_mb: 1}\nprovenance:\n  allowed_signers: .memgate/signers\n";
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "p.yml", text, strlen(text), &err), MG_OK, "%s", err.message);
	cr_expect(p->provenance_set);
	cr_expect_str_eq(p->allowed_signers, ".memgate/signers");
	cr_expect_str_eq(p->sig_namespace, "memgate");
	cr_expect(p->sig_required);
	cr_expect_eq(p->allowed_signers_pos.line, 6);
	mg_policy_free(p);
}

Test(policy, reads_provenance_namespace_and_require)
{
	const char *text = "version: 1\nmanifest: m.json\nidentity: {workload_id: w, hardware_id: h}\n"
			   "budget: {memory_cap_mb: 1}\nprovenance: {allowed_signers: s, "
			   "namespace: gpu-evidence, require: false}\n";
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "p.yml", text, strlen(text), &err), MG_OK, "%s", err.message);
	cr_expect_str_eq(p->sig_namespace, "gpu-evidence");
	cr_expect(!p->sig_required);
	mg_policy_free(p);
}

Test(policy, reads_who_may_measure_and_approve)
{
	const char *text = "version: 1\nmanifest: m.json\nidentity: {workload_id: w, hardware_id: h}\n"
			   "budget: {memory_cap_mb: 1}\nprovenance:\n  allowed_signers: s\n"
			   "  signers: [gpu-runner@ci, 'gpu-*@ci', '!intern@ci']\n"
			   "  approvers: [release@example.com]\n";
	mg_policy *p = NULL;
	mg_error err;

	cr_assert_eq(mg_policy_parse(&p, "p.yml", text, strlen(text), &err), MG_OK, "%s", err.message);
	cr_assert_eq(p->signer_count, 3);
	cr_expect_str_eq(p->signers[1], "gpu-*@ci");
	cr_expect_str_eq(p->signers[2], "!intern@ci");
	cr_expect_eq(p->signers_pos.line, 7);
	cr_assert_eq(p->approver_count, 1);
	cr_expect_str_eq(p->approvers[0], "release@example.com");
	mg_policy_free(p);
}

Test(policy, rejects_bad_provenance)
{
	static const struct { const char *yaml, *message; int line, column; } cases[] = {
		{ "provenance: {namespace: memgate}\n",
		  "missing required key 'allowed_signers' in 'provenance'", 5, 13 },
		{ "provenance: {allowed_signers: s, require: yes}\n",
		  "'provenance.require': expected true or false, got a string", 5, 43 },
		{ "provenance: {allowed_signers: s, namespace: 'a b'}\n",
		  "'provenance.namespace' must be a word of printable characters without spaces, "
		  "as ssh-keygen -Y sign -n takes it", 5, 45 },
		{ "provenance: {allowed_signers: s, namespace: memgate-approve}\n",
		  "'provenance.namespace' must not be 'memgate-approve', the approvals' namespace: "
		  "a key that may approve could then sign measurements; use a namespace of the "
		  "model's, e.g. 'memgate-llm-a'", 5, 45 },
		{ "provenance: {allowed_signers: s, keys: t}\n",
		  "unknown key 'keys' (expected one of: allowed_signers, namespace, require, "
		  "signers, approvers)", 5, 34 },
		{ "provenance: {allowed_signers: s, signers: t}\n",
		  "'provenance.signers': expected a sequence of principal patterns, got a string",
		  5, 43 },
		{ "provenance: {allowed_signers: s, signers: []}\n",
		  "'provenance.signers' is empty: list at least one principal pattern, or remove "
		  "the key", 5, 43 },
		{ "provenance: {allowed_signers: s, approvers: ['a,b']}\n",
		  "'provenance.approvers[0]' must be a principal pattern without commas or spaces "
		  "(as ssh-keygen -Y verify -I takes a name; * and ? match, a leading ! excludes), "
		  "got 'a,b'", 5, 46 },
		{ "provenance: [s]\n", "'provenance': expected a mapping, got a sequence", 5, 13 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		mg_policy *p = NULL;
		mg_error err;

		snprintf(text, sizeof(text), "version: 1\nmanifest: m.json\nidentity: {workload_id: w, hardware_id: h}\n"
			 "budget: {memory_cap_mb: 1}\n%s", cases[i].yaml);
		cr_expect_eq(mg_policy_parse(&p, "p.yml", text, strlen(text), &err), MG_ERROR);
		cr_expect_str_eq(err.message, cases[i].message);
		cr_expect_eq(err.line, cases[i].line, "%s: line %d", cases[i].yaml, err.line);
		cr_expect_eq(err.column, cases[i].column, "%s: column %d", cases[i].yaml, err.column);
		mg_policy_free(p);
	}
}

Test(policy, rejects_provenance_without_a_manifest)
{
	const char *text = "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n"
			   "budget: {memory_cap_mb: 1}\nprovenance: {allowed_signers: s}\n";
	mg_policy *p = NULL;
	mg_error err;

	cr_expect_eq(mg_policy_parse(&p, "p.yml", text, strlen(text), &err), MG_ERROR);
	cr_expect_str_eq(err.message, "'provenance' signs the manifest: name one with "
			 "'manifest:', not 'report:'");
	cr_expect_eq(err.line, 5);
	cr_expect_eq(err.column, 13);
	mg_policy_free(p);
}

/* ---- regression ---- */

#define REGRESSION_HEAD "version: 1\nreport: r.json\nidentity: {workload_id: w, hardware_id: h}\n" \
	"budget: {memory_cap_mb: 9000}\n"

Test(policy, reads_regression_with_positions_and_defaults)
{
	static const char text[] = REGRESSION_HEAD
		"regression:\n  max_peak_increase_pct: 5\n  max_eval_loss_increase: 0.05\n"
		"  covers: all\n  decision: reject\n";
	mg_policy *p = NULL;
	mg_error err;
	const mg_regression *rg;

	mg_error_clear(&err);
	cr_assert_eq(mg_policy_parse(&p, "r.yml", text, strlen(text), &err), 0, "%s", err.message);
	rg = &p->rules.regression;
	cr_assert(mg_regression_active(rg));
	cr_expect(rg->limits.set[MG_MAX_PEAK_INCREASE_PCT]);
	cr_expect_eq(rg->limits.value[MG_MAX_PEAK_INCREASE_PCT], 5);
	cr_expect(rg->limits.set[MG_MAX_EVAL_LOSS_INCREASE]);
	cr_expect_not(rg->limits.set[MG_MAX_PEAK_INCREASE_MB]);
	cr_expect_not(p->rules.budget.set[MG_MAX_PEAK_INCREASE_PCT], "never in the budget");
	cr_expect_eq(rg->covers, MG_COVERS_ALL);
	cr_expect(rg->reject);
	cr_expect_eq(p->threshold_pos[MG_MAX_PEAK_INCREASE_PCT].line, 6);
	cr_expect_eq(p->threshold_pos[MG_MAX_PEAK_INCREASE_PCT].column, 26);
	cr_expect_eq(p->regression_covers_pos.line, 8);
	cr_expect_eq(p->regression_decision_pos.line, 9);
	mg_policy_free(p);

	cr_assert_eq(mg_policy_parse(&p, "r.yml", REGRESSION_HEAD, strlen(REGRESSION_HEAD), &err),
		     0, "%s", err.message);
	cr_expect_not(mg_regression_active(&p->rules.regression));
	cr_expect_eq(p->rules.regression.covers, MG_COVERS_SELECTED);
	cr_expect_not(p->rules.regression.reject);
	mg_policy_free(p);
}

Test(policy, reads_regression_history_and_its_bound)
{
	static const char text[] = REGRESSION_HEAD
		"regression:\n  max_peak_increase_pct: 5\n  history: 10\n"
		"  history_max_commits: 500\n";
	mg_policy *p = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_policy_parse(&p, "r.yml", text, strlen(text), &err), 0, "%s", err.message);
	cr_expect_eq(p->rules.regression.history, 10);
	cr_expect_eq(p->rules.regression.history_max_commits, 500);
	cr_expect_eq(p->regression_history_pos.line, 7);
	cr_expect_eq(p->regression_history_pos.column, 12);
	cr_expect_eq(p->regression_history_max_commits_pos.line, 8);
	mg_policy_free(p);

	cr_assert_eq(mg_policy_parse(&p, "r.yml", REGRESSION_HEAD, strlen(REGRESSION_HEAD), &err),
		     0, "%s", err.message);
	cr_expect_eq(p->rules.regression.history, 0, "without the key: the base's report");
	cr_expect_eq(p->rules.regression.history_max_commits, 0, "the default bound");
	mg_policy_free(p);
}

Test(policy, rejects_bad_regression_values)
{
	static const char *const bad[][2] = {
		{ REGRESSION_HEAD "regression: 5\n", "'regression': expected a mapping, got a number" },
		{ REGRESSION_HEAD "regression:\n  max_throughput_drop_pct: -0.5\n",
		  "'regression.max_throughput_drop_pct' must be at least 0, got '-0.5'" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: .inf\n",
		  "'regression.max_peak_increase_mb' must be a finite number, got '.inf'" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  covers: [all]\n",
		  "'regression.covers': expected a string, got a sequence" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  decision: warn\n",
		  "'regression.decision' must be 'tune' or 'reject', got 'warn'" },
		{ REGRESSION_HEAD "regression:\n  covers: selected\n",
		  "'regression' sets no threshold: set max_peak_increase_mb, max_peak_increase_pct, "
		  "max_throughput_drop_pct or max_eval_loss_increase" },
		{ REGRESSION_HEAD "budget2: 1\nregression:\n  max_peak_increase_mb: 1\n  max_peak_increase_mb: 2\n",
		  "unknown key 'budget2' (did you mean 'budget'?)" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  max_peak_increase_mb: 2\n",
		  "duplicate key 'max_peak_increase_mb' (first at 6:3)" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  history: 0\n",
		  "'regression.history' must be at least 1, got '0'" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  history: 1.5\n",
		  "'regression.history': expected an integer, got '1.5'" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  history: 1001\n",
		  "'regression.history' must be at most 1000, got '1001'" },
		{ REGRESSION_HEAD "regression:\n  max_peak_increase_mb: 1\n  history_max_commits: -1\n",
		  "'regression.history_max_commits' must be at least 1, got '-1'" },
		{ REGRESSION_HEAD "sensitivity:\n  grid:\n    max_eval_loss_increase: [1, 2]\n",
		  "'max_eval_loss_increase' belongs under 'regression', not under 'sensitivity.grid'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mg_policy *p = NULL;
		mg_error err;

		mg_error_clear(&err);
		cr_expect_eq(mg_policy_parse(&p, "r.yml", bad[i][0], strlen(bad[i][0]), &err),
			     MG_ERROR, "%s", bad[i][0]);
		cr_expect_str_eq(err.message, bad[i][1]);
		cr_expect_gt(err.line, 0, "%s", bad[i][1]);
		cr_expect_gt(err.column, 0, "%s", bad[i][1]);
		mg_policy_free(p);
	}
}
