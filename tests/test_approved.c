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
