/*
 * The approved decision record a manifest pins: include/memgate/approved.h.
 * A memgate record or the seed's stage-75 record is read back to its
 * decision and selected candidate; anything else is refused at the
 * position of what is wrong.  (A record memgate renders is read back in
 * tests/test_record.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "approved-read.h"
#include "helpers.h"
#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/error.h"

static struct approved read_fixture(const char *rel)
{
	size_t len;
	char *text = mg_test_read(rel, &len);
	struct approved a = read_approved(rel, text, len);

	free(text);
	return a;
}

static void expect_refused(struct approved a, const char *file, int line, int column,
			   const char *message)
{
	cr_assert_eq(a.rc, MG_ERROR);
	cr_assert_null(a.decision);
	cr_assert_null(a.selected);
	cr_assert_str_eq(a.err.file, file);
	cr_assert_eq(a.err.line, line, "line %d", a.err.line);
	cr_assert_eq(a.err.column, column, "column %d", a.err.column);
	cr_assert_str_eq(a.err.message, message);
}

Test(approved, reads_the_real_stage_75_records)
{
	static const char *const files[] = {
		"75_memory_budget_decision_9600.json",
		"75_memory_budget_decision_bf16_seq1024_11200.json",
	};
	mg_buf path = MG_BUF_INIT;
	size_t len, i;
	char *text;

	for (i = 0; i < 2; i++) {
		mg_buf_printf(&path, "%s/fixtures/reports/%s", MG_SOURCE_DIR, files[i]);
		text = mg_test_read(path.ptr, &len);
		expect_approved(read_approved(files[i], text, len), "tune", "checkpoint");
		free(text);
		mg_buf_free(&path);
	}
}

Test(approved, reads_a_seed_record_without_a_winner)
{
	expect_approved(read_fixture("fixtures/records/seed-reject-no-winner.json"), "reject", NULL);
}

Test(approved, approved_must_be_an_object)
{
	expect_refused(read_fixture("fixtures/records/not-an-object.json"),
		       "fixtures/records/not-an-object.json", 2, 3,
		       "'fixtures/records/not-an-object.json' is not a decision record (no 'decision')");
}

Test(approved, approved_needs_a_decision)
{
	expect_refused(read_fixture("fixtures/records/no-decision.json"),
		       "fixtures/records/no-decision.json", 1, 1,
		       "'fixtures/records/no-decision.json' is not a decision record (no 'decision')");
}

Test(approved, approved_decision_must_be_a_string_or_object)
{
	expect_refused(read_fixture("fixtures/records/decision-is-a-number.json"),
		       "fixtures/records/decision-is-a-number.json", 1, 1,
		       "'fixtures/records/decision-is-a-number.json' is not a decision record (no 'decision')");
}

Test(approved, approved_needs_selected_candidate)
{
	expect_refused(read_fixture("fixtures/records/no-selected-candidate.json"),
		       "fixtures/records/no-selected-candidate.json", 1, 1,
		       "'fixtures/records/no-selected-candidate.json' is not a decision record "
		       "(no 'selected_candidate')");
}

Test(approved, approved_selected_candidate_must_be_a_string)
{
	expect_refused(read_fixture("fixtures/records/selected-candidate-is-a-number.json"),
		       "fixtures/records/selected-candidate-is-a-number.json", 4, 25,
		       "'selected_candidate' must be a string or null, not a number");
}

Test(approved, approved_decision_must_be_a_verdict)
{
	expect_refused(read_fixture("fixtures/records/unknown-verdict.json"),
		       "fixtures/records/unknown-verdict.json", 3, 15,
		       "unknown decision 'maybe' (expected accept, tune or reject)");
}

Test(approved, seed_record_needs_an_inner_decision)
{
	expect_refused(read_fixture("fixtures/records/seed-decision-without-verdict.json"),
		       "fixtures/records/seed-decision-without-verdict.json", 3, 15,
		       "'fixtures/records/seed-decision-without-verdict.json' is not a decision record "
		       "(no 'decision')");
}

Test(approved, seed_record_needs_a_summary)
{
	expect_refused(read_fixture("fixtures/records/seed-without-summary.json"),
		       "fixtures/records/seed-without-summary.json", 1, 1,
		       "'fixtures/records/seed-without-summary.json' is not a decision record "
		       "(no 'summary')");
}

Test(approved, approved_duplicate_key_is_refused_at_its_second_occurrence)
{
	struct approved a = read_fixture("fixtures/records/duplicate-decision.json");

	cr_assert_eq(a.rc, MG_ERROR);
	cr_assert_null(a.decision);
	cr_assert_eq(a.err.line, 4);
	cr_assert_eq(a.err.column, 3);
	cr_assert_not_null(strstr(a.err.message, "duplicate key 'decision'"), "%s", a.err.message);
}

Test(approved, approved_escapes_hostile_text_in_messages)
{
	const char text[] = "{\"decision\": \"\\u001b[31maccept\", \"selected_candidate\": null}";
	struct approved a = read_approved("r.json", text, sizeof(text) - 1);

	cr_assert_eq(a.rc, MG_ERROR);
	cr_assert_str_eq(a.err.message,
			 "unknown decision '\\x1b[31maccept' (expected accept, tune or reject)");
}


/* The evidence a record names: its report's SHA-256 and measured commit,
 * NULL where it names none (approval_of_other_evidence compares them). */
Test(approved, names_the_evidence_it_was_made_for)
{
	static const char rec[] =
		"{\"decision\":\"tune\",\"selected_candidate\":\"checkpoint\","
		"\"inputs\":{\"report\":{\"path\":\"r.json\",\"sha256\":\"ab12\"}},"
		"\"evidence\":{\"measured_commit\":\"c0ffee\"}}";
	static const char none[] =
		"{\"decision\":\"tune\",\"selected_candidate\":null,"
		"\"inputs\":{\"report\":{\"path\":\"r.json\",\"sha256\":null}},"
		"\"evidence\":{\"measured_commit\":null}}";
	char *sha = NULL, *commit = NULL;

	mg_approved_evidence(&sha, &commit, rec, strlen(rec));
	cr_assert_str_eq(sha, "ab12");
	cr_assert_str_eq(commit, "c0ffee");
	free(sha);
	free(commit);
	mg_approved_evidence(&sha, &commit, none, strlen(none));
	cr_assert_null(sha);
	cr_assert_null(commit);
	mg_approved_evidence(&sha, &commit, "{\"decision\":", 12);
	cr_assert_null(sha);
	cr_assert_null(commit);
}

/* ---- the approval beside the manifest (memgate approve) ---- */

#define SHA_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define RECORD_TUNE "{\n\t\"decision\":\t\"tune\",\n\t\"selected_candidate\":\t\"checkpoint\"\n}\n"

/* Parse `text` as the approval at "a.approved.json": its return code, and err. */
static int parse_approval(mg_approved_file **a, const char *text, mg_error *err)
{
	mg_error_clear(err);
	return mg_approved_file_parse(a, "a.approved.json", text, strlen(text), err);
}

static void expect_approval_refused(const char *text, int line, int column, const char *message)
{
	mg_approved_file *a = NULL;
	mg_error err;

	cr_assert_eq(parse_approval(&a, text, &err), MG_ERROR, "%s", text);
	cr_assert_null(a);
	cr_expect_str_eq(err.file, "a.approved.json");
	cr_expect_eq(err.line, line, "line %d", err.line);
	cr_expect_eq(err.column, column, "column %d", err.column);
	cr_expect_str_eq(err.message, message);
}

/* What approve writes reads back: the manifest it binds and the decision. */
Test(approved, an_approval_reads_back_as_written)
{
	char *text = mg_approved_file_render("results/75 \"m\".json", SHA_A, RECORD_TUNE);
	mg_approved_file *a = NULL;
	mg_error err;

	cr_assert_eq(parse_approval(&a, text, &err), MG_OK, "%s:%d:%d: %s", err.file, err.line,
		     err.column, err.message);
	cr_expect_str_eq(a->manifest_path, "results/75 \"m\".json");
	cr_expect_str_eq(a->manifest_sha256, SHA_A);
	cr_expect_eq(a->manifest_sha256_pos.line, 5);
	cr_expect_str_eq(a->decision, "tune");
	cr_expect_str_eq(a->selected, "checkpoint");
	cr_expect_eq(a->record_pos.line, 7);
	cr_expect(strstr(text, "{\n  \"memgate_approval\": 1,\n  \"manifest\": {\n") == text, "%s",
		  text);
	cr_expect(strstr(text, "\"record\": " RECORD_TUNE "}\n") != NULL,
		  "the record's own text: %s", text);
	mg_approved_file_free(a);
	free(text);
}

Test(approved, an_approval_is_beside_its_manifest)
{
	char *p = mg_approved_file_path("results/75_input_manifest.json");

	cr_expect_str_eq(p, "results/75_input_manifest.approved.json");
	free(p);
	p = mg_approved_file_path("MANIFEST");
	cr_expect_str_eq(p, "MANIFEST.approved.json");
	free(p);
	mg_approved_file_free(NULL);
}

Test(approved, an_approval_must_be_an_object)
{
	expect_approval_refused("[1]", 1, 1, "'a.approved.json' is not an approval (not a JSON "
				"object); memgate approve writes it");
}

Test(approved, an_approval_needs_its_version)
{
	expect_approval_refused("{\"manifest\": {}}", 1, 1, "'a.approved.json' is not an approval "
				"(no 'memgate_approval'); memgate approve writes it");
	expect_approval_refused("{\"memgate_approval\": 2}", 1, 22, "'memgate_approval' is 2: this "
				"memgate reads approvals of version 1");
	expect_approval_refused("{\"memgate_approval\": \"1\"}", 1, 22, "'memgate_approval' must "
				"be a number, not a string");
}

Test(approved, an_approval_refuses_an_unknown_key)
{
	expect_approval_refused("{\"memgate_approval\": 1,\n \"approved_by\": \"me\"}", 2, 2,
				"unknown key 'approved_by' in the approval (expected "
				"memgate_approval, manifest, record)");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha\": \"x\"}}", 1, 51, "unknown key 'sha' in the approval "
				"(expected path, sha256)");
}

Test(approved, an_approval_binds_a_manifest_sha256)
{
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": \"m.json\"}", 1, 37,
				"'manifest' must be an object, not a string");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\"}}", 1, 37,
				"'a.approved.json' is not an approval (no 'sha256'); memgate "
				"approve writes it");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\",\n"
				"\"sha256\": \"ABC\"}}", 2, 11, "'manifest.sha256' must be 64 "
				"lowercase hex digits (the manifest's SHA-256), not 'ABC'");
}

Test(approved, an_approval_holds_a_decision_record)
{
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha256\": \"" SHA_A "\"}}", 1, 1, "'a.approved.json' is not an "
				"approval (no 'record'); memgate approve writes it");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha256\": \"" SHA_A "\"},\n\"record\": {\"decision\": \"tune\"}}",
				2, 11, "'a.approved.json' is not a decision record (no "
				"'selected_candidate')");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha256\": \"" SHA_A "\"},\n\"record\": {\"decision\": \"ok\", "
				"\"selected_candidate\": null}}", 2, 24, "unknown decision 'ok' "
				"(expected accept, tune or reject)");
	/* an unknown key of any length is quoted whole, cut at 100 bytes */
	{
		char text[1200], want[400];

		memset(want, 'k', 300);
		want[300] = '\0';
		snprintf(text, sizeof(text), "{\"%s\": 1}", want);
		snprintf(want, sizeof(want), "unknown key '%.100s...' in the approval (expected "
			 "memgate_approval, manifest, record)", text + 2);
		expect_approval_refused(text, 1, 2, want);
	}
	/* a record without a decision string (fuzz_manifest found the first) */
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha256\": \"" SHA_A "\"},\n\"record\": {\"$ecision\": \"tune\", "
				"\"selected_candidate\": \"c\"}}", 2, 11, "'a.approved.json' is not a "
				"decision record (no 'decision')");
	expect_approval_refused("{\"memgate_approval\": 1, \"manifest\": {\"path\": \"m\", "
				"\"sha256\": \"" SHA_A "\"},\n\"record\": {\"decision\": 3, "
				"\"selected_candidate\": \"c\"}}", 2, 11, "'a.approved.json' is not a "
				"decision record (no 'decision')");
}
