/* The stage-75 input manifest (memgate(1), REPORTS). */
#include "helpers.h"
#include "memgate/manifest.h"

#define ABC_SHA256 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define REPORT_PATH "benchmarks/results/76_real_gpu_memory.json"

static mg_manifest *load(const char *fixture)
{
	mg_manifest *m = NULL;
	mg_error err;
	size_t len;
	char *text = mg_test_read(fixture, &len);

	mg_error_clear(&err);
	cr_assert_eq(mg_manifest_parse(&m, fixture, text, len, &err), MG_OK,
		     "%s: %s at %d:%d", fixture, err.message, err.line, err.column);
	free(text);
	cr_assert_not_null(m);
	return m;
}

static mg_error refuse(const char *fixture)
{
	mg_manifest *m = NULL;
	mg_error err;
	size_t len;
	char *text = mg_test_read(fixture, &len);

	mg_error_clear(&err);
	cr_assert_eq(mg_manifest_parse(&m, fixture, text, len, &err), MG_ERROR,
		     "accepted %s", fixture);
	cr_assert_null(m);
	free(text);
	return err;
}

#define expect_refused(fixture, l, c, msg) do { \
	mg_error e_ = refuse("fixtures/manifests/" fixture); \
	cr_expect_str_eq(e_.file, "fixtures/manifests/" fixture); \
	cr_expect_str_eq(e_.message, (msg)); \
	cr_expect_eq(e_.line, (l), "line %d, want %d (%s)", e_.line, (l), e_.message); \
	cr_expect_eq(e_.column, (c), "column %d, want %d (%s)", e_.column, (c), e_.message); \
} while (0)

#define expect_pos(p, l, c) do { \
	mg_pos p_ = (p); \
	cr_expect_eq(p_.line, (l), "line %d, want %d", p_.line, (l)); \
	cr_expect_eq(p_.column, (c), "column %d, want %d", p_.column, (c)); \
} while (0)

/* ---- reading ------------------------------------------------------ */

Test(manifest, reads_every_field)
{
	mg_manifest *m = load("fixtures/manifests/full.json");

	cr_expect_str_eq(m->path, "fixtures/manifests/full.json");
	cr_expect_str_eq(m->source_path, REPORT_PATH);
	expect_pos(m->source_path_pos, 3, 13);
	cr_expect_str_eq(m->source_sha256, ABC_SHA256);
	expect_pos(m->source_sha256_pos, 4, 15);
	cr_expect_str_eq(m->schema_version, "training-memory-benchmark/v1");
	expect_pos(m->schema_version_pos, 5, 23);
	cr_expect_str_eq(m->semantic_id, "PERF-MEMORY-STRATEGY");
	expect_pos(m->semantic_id_pos, 6, 20);
	cr_expect(m->has_approved);
	cr_expect_str_eq(m->approved_path, "benchmarks/results/75_memory_budget_decision_v1.json");
	expect_pos(m->approved_path_pos, 9, 13);
	cr_expect_str_eq(m->approved_sha256,
			 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	expect_pos(m->approved_sha256_pos, 10, 15);
	mg_manifest_free(m);
}

Test(manifest, optional_fields_may_be_left_out)
{
	mg_manifest *m = load("fixtures/manifests/minimal.json");

	cr_expect_str_eq(m->source_path, REPORT_PATH);
	cr_expect_null(m->schema_version);
	cr_expect_null(m->semantic_id);
	cr_expect_not(m->has_approved);
	cr_expect_null(m->approved_path);
	cr_expect_null(m->approved_sha256);
	mg_manifest_free(m);
}

Test(manifest, ignores_unknown_keys_and_treats_null_optionals_as_absent)
{
	mg_manifest *m = load("fixtures/manifests/unknown-keys-and-nulls.json");

	cr_expect_str_eq(m->source_sha256, ABC_SHA256);
	cr_expect_null(m->schema_version);
	cr_expect_not(m->has_approved);
	mg_manifest_free(m);
}

/* ---- refused manifests -------------------------------------------- */

Test(manifest, refuses_a_manifest_without_source)
{
	expect_refused("missing-source.json", 1, 1, "missing required key 'source'");
}

Test(manifest, refuses_a_source_without_path)
{
	expect_refused("missing-path.json", 2, 13, "missing required key 'path' in 'source'");
}

Test(manifest, refuses_an_uppercase_sha256)
{
	expect_refused("sha256-uppercase.json", 4, 15,
		       "'source.sha256' must be lowercase hex digits, found 'B'");
}

Test(manifest, refuses_a_short_sha256)
{
	expect_refused("sha256-short.json", 4, 15,
		       "'source.sha256' must be 64 lowercase hex digits, not 32 characters");
}

Test(manifest, refuses_a_sha256_with_a_prefix)
{
	expect_refused("sha256-not-hex.json", 4, 15,
		       "'source.sha256' must be 64 lowercase hex digits, found 's'");
}

Test(manifest, refuses_a_source_that_is_not_an_object)
{
	expect_refused("source-not-object.json", 2, 13, "'source' must be an object, not a string");
}

Test(manifest, refuses_a_path_that_is_not_a_string)
{
	expect_refused("path-not-string.json", 3, 13, "'source.path' must be a string, not an array");
}

Test(manifest, refuses_a_null_required_path)
{
	expect_refused("path-null.json", 3, 13, "'source.path' must be a string, not null");
}

Test(manifest, refuses_an_optional_field_of_the_wrong_type)
{
	expect_refused("semantic-id-not-string.json", 5, 20,
		       "'source.semantic_id' must be a string, not a number");
}

Test(manifest, refuses_approved_result_without_sha256)
{
	expect_refused("approved-without-sha256.json", 6, 22,
		       "missing required key 'sha256' in 'approved_result'");
}

Test(manifest, refuses_approved_result_that_is_not_an_object)
{
	expect_refused("approved-not-object.json", 6, 22,
		       "'approved_result' must be an object, not a string");
}

Test(manifest, refuses_an_absolute_source_path)
{
	expect_refused("absolute-path.json", 3, 13,
		       "invalid path '/data/llm-algo-leetcode/benchmarks/results/76_real_gpu_memory.json'"
		       " in 'source.path': absolute paths are not allowed");
}

Test(manifest, refuses_dotdot_in_the_approved_path)
{
	expect_refused("approved-dotdot-path.json", 7, 13,
		       "invalid path 'benchmarks/../../secrets/75.json' in 'approved_result.path':"
		       " '..' segments are not allowed");
}

Test(manifest, refuses_a_duplicate_key)
{
	expect_refused("duplicate-sha256.json", 5, 5, "duplicate key 'sha256'");
}

Test(manifest, refuses_a_manifest_that_is_not_an_object)
{
	expect_refused("not-an-object.json", 1, 1, "manifest must be a JSON object, not a string");
}

Test(manifest, refuses_malformed_json)
{
	expect_refused("trailing-comma.json", 5, 3, "malformed JSON: unexpected character '}'");
}

Test(manifest, refuses_trailing_text)
{
	const char *text = "{\"source\": {\"path\": \"a.json\", \"sha256\": \"" ABC_SHA256 "\"}} {}";
	mg_manifest *m = NULL;
	mg_error err;

	cr_expect_eq(mg_manifest_parse(&m, "m.json", text, strlen(text), &err), MG_ERROR);
	cr_expect_null(m);
	cr_expect_str_eq(err.message, "trailing text after the JSON document");
	cr_expect_eq(err.column, (int)strlen(text) - 1);
}

Test(manifest, control_characters_in_a_refused_path_are_not_echoed)
{
	const char *text = "{\"source\": {\"path\": \"a\\nb.json\", \"sha256\": \"" ABC_SHA256 "\"}}";
	mg_manifest *m = NULL;
	mg_error err;

	cr_expect_eq(mg_manifest_parse(&m, "m.json", text, strlen(text), &err), MG_ERROR);
	cr_expect_str_eq(err.message,
			 "invalid path 'a?b.json' in 'source.path': control characters are not allowed");
}

/* ---- rendering ---------------------------------------------------- */

Test(manifest, renders_a_pretty_manifest_ending_in_a_newline)
{
	char *text = mg_manifest_render(REPORT_PATH, ABC_SHA256, "training-memory-benchmark/v1",
					"PERF-MEMORY-STRATEGY");

	cr_expect_str_eq(text,
			 "{\n"
			 "  \"source\": {\n"
			 "    \"path\": \"" REPORT_PATH "\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\",\n"
			 "    \"schema_version\": \"training-memory-benchmark/v1\",\n"
			 "    \"semantic_id\": \"PERF-MEMORY-STRATEGY\"\n"
			 "  }\n"
			 "}\n");
	free(text);
}

Test(manifest, renders_without_the_optional_fields)
{
	char *text = mg_manifest_render("r.json", ABC_SHA256, NULL, NULL);

	cr_expect_str_eq(text,
			 "{\n"
			 "  \"source\": {\n"
			 "    \"path\": \"r.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  }\n"
			 "}\n");
	free(text);
}

/* A legacy "##[command]" from the report never reaches a log as such. */
Test(manifest, renders_legacy_workflow_commands_escaped)
{
	char *text = mg_manifest_render("r.json", ABC_SHA256, "##[add-mask]v1",
					"###[stop-commands]x");
	mg_manifest *m = NULL;
	mg_error err;

	cr_expect_null(strstr(text, "##["), "%s", text);
	cr_expect_not_null(strstr(text, "\"##\\u005badd-mask]v1\""));
	cr_assert_eq(mg_manifest_parse(&m, "m.json", text, strlen(text), &err), MG_OK,
		     "%s", err.message);
	cr_expect_str_eq(m->schema_version, "##[add-mask]v1");
	cr_expect_str_eq(m->semantic_id, "###[stop-commands]x");
	mg_manifest_free(m);
	free(text);
}

Test(manifest, rendered_manifest_reads_back)
{
	char *text = mg_manifest_render("a dir/r\t\"q\".json", ABC_SHA256, NULL, "ID\twith tab");
	mg_manifest *m = NULL;
	mg_error err;

	cr_assert_eq(mg_manifest_parse(&m, "m.json", text, strlen(text), &err), MG_ERROR,
		     "a tab in a path breaks the path rules");
	free(text);
	text = mg_manifest_render("a dir/r \"q\".json", ABC_SHA256, NULL, "ID\twith tab");
	cr_assert_eq(mg_manifest_parse(&m, "m.json", text, strlen(text), &err), MG_OK,
		     "%s", err.message);
	cr_expect_str_eq(m->source_path, "a dir/r \"q\".json");
	cr_expect_str_eq(m->semantic_id, "ID\twith tab");
	cr_expect_null(m->schema_version);
	mg_manifest_free(m);
	free(text);
}

Test(manifest, reads_the_measured_commit)
{
	mg_manifest *m = load("fixtures/manifests/measured.json");

	cr_expect_str_eq(m->measured_commit, "0123456789abcdef0123456789abcdef01234567");
	expect_pos(m->measured_commit_pos, 7, 15);
	mg_manifest_free(m);
}

Test(manifest, has_no_measured_commit_by_default)
{
	mg_manifest *m = load("fixtures/manifests/full.json");

	cr_expect_null(m->measured_commit);
	mg_manifest_free(m);
}

Test(manifest, refuses_a_short_measured_commit)
{
	expect_refused("measured-short-commit.json", 7, 15,
		       "'measured.commit' must be a full commit id (40 lowercase hex digits; "
		       "memgate manifest --measured-commit REV writes it)");
}

Test(manifest, refuses_measured_without_commit)
{
	expect_refused("measured-without-commit.json", 6, 15,
		       "missing required key 'commit' in 'measured'");
}

Test(manifest, renders_the_measured_commit_before_the_approved_result)
{
	char *text = mg_manifest_render_approved("r.json", ABC_SHA256, NULL, NULL, "a.json",
						 ABC_SHA256, "0123456789abcdef0123456789abcdef01234567");

	cr_expect_str_eq(text, "{\n"
			 "  \"source\": {\n"
			 "    \"path\": \"r.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  },\n"
			 "  \"measured\": {\n"
			 "    \"commit\": \"0123456789abcdef0123456789abcdef01234567\"\n"
			 "  },\n"
			 "  \"approved_result\": {\n"
			 "    \"path\": \"a.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  }\n"
			 "}\n");
	free(text);
}

/* memgate approve: a manifest memgate wrote gains approved_result last,
 * byte for byte what mg_manifest_render_approved writes. */
Test(manifest, set_approved_adds_it_last_as_render_writes_it)
{
	char *plain = mg_manifest_render(REPORT_PATH, ABC_SHA256, "v1", "seed");
	char *want = mg_manifest_render_approved(REPORT_PATH, ABC_SHA256, "v1", "seed",
						 "a.json", ABC_SHA256, NULL);
	char *got = mg_manifest_set_approved(plain, strlen(plain), "a.json", ABC_SHA256);

	cr_expect_str_eq(got, want);
	free(plain);
	free(want);
	free(got);
}

/* An existing approved_result is replaced where it stands; unknown keys stay. */
Test(manifest, set_approved_replaces_it_in_place_and_keeps_other_keys)
{
	static const char in[] = "{\"approved_result\": {\"path\": \"old.json\", \"sha256\": \""
		ABC_SHA256 "\"}, \"source\": {\"path\": \"r.json\", \"sha256\": \"" ABC_SHA256
		"\"}, \"producer\": \"gpu-runner\"}";
	char *got = mg_manifest_set_approved(in, sizeof(in) - 1, "new.json", ABC_SHA256);

	cr_expect_str_eq(got, "{\n"
			 "  \"approved_result\": {\n"
			 "    \"path\": \"new.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  },\n"
			 "  \"source\": {\n"
			 "    \"path\": \"r.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  },\n"
			 "  \"producer\": \"gpu-runner\"\n"
			 "}\n");
	free(got);
}

/* Other members keep the layout the manifest's writer gives every value:
 * arrays on one line, empty objects open, "##[" escaped. */
Test(manifest, set_approved_writes_other_values_in_the_manifest_layout)
{
	static const char in[] = "{\"extra\": {\"list\": [1, 2.5, \"x\\t##[y\"], \"empty\": {}, "
		"\"none\": [], \"flag\": true, \"n\": null}}";
	char *got = mg_manifest_set_approved(in, sizeof(in) - 1, "a.json", ABC_SHA256);

	cr_expect_str_eq(got, "{\n"
			 "  \"extra\": {\n"
			 "    \"list\": [1, 2.5, \"x\\t##\\u005by\"],\n"
			 "    \"empty\": {\n"
			 "    },\n"
			 "    \"none\": [],\n"
			 "    \"flag\": true,\n"
			 "    \"n\": null\n"
			 "  },\n"
			 "  \"approved_result\": {\n"
			 "    \"path\": \"a.json\",\n"
			 "    \"sha256\": \"" ABC_SHA256 "\"\n"
			 "  }\n"
			 "}\n");
	free(got);
}

/* Nesting deeper than the reader reads (the checks refuse it before). */
Test(manifest, set_approved_refuses_a_manifest_nested_too_deep)
{
	mg_buf in = MG_BUF_INIT;
	int i;

	mg_buf_puts(&in, "{\"x\": ");
	for (i = 0; i < 100; i++)
		mg_buf_putc(&in, '[');
	for (i = 0; i < 100; i++)
		mg_buf_putc(&in, ']');
	mg_buf_putc(&in, '}');
	cr_expect_null(mg_manifest_set_approved(in.ptr, in.len, "a.json", ABC_SHA256));
	mg_buf_free(&in);
}

Test(manifest, set_approved_refuses_what_is_not_an_object)
{
	cr_expect_null(mg_manifest_set_approved("[1]", 3, "a.json", ABC_SHA256));
	cr_expect_null(mg_manifest_set_approved("{", 1, "a.json", ABC_SHA256));
}

/* The strict reader reads the manifest, as check read it: a duplicate key
 * or trailing text, which cJSON let through, is refused. */
Test(manifest, set_approved_refuses_what_the_strict_reader_refuses)
{
	static const char dup[] = "{\"source\": {}, \"source\": {}}";
	static const char trailing[] = "{\"source\": {}} {}";

	cr_expect_null(mg_manifest_set_approved(dup, sizeof(dup) - 1, "a.json", ABC_SHA256));
	cr_expect_null(mg_manifest_set_approved(trailing, sizeof(trailing) - 1, "a.json",
						ABC_SHA256));
}

Test(manifest, free_accepts_null)
{
	mg_manifest_free(NULL);
}
