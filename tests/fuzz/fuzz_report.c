/*
 * libFuzzer target: the stage-76 report parser (mg_report_parse) and, on
 * the same bytes, the approved-record reader (mg_approved_read):
 * both read untrusted JSON from the repository through plugin/util/json_stream.c.
 *
 * A report that parses keeps the invariants the decision core relies on;
 * a refusal is a one-line error naming the file and a position in the text.
 * The JSON reader (mg_json__stream) refuses a text for a reason it names,
 * the same whole document or streamed, and accepts exactly what cJSON reads
 * but for memgate(1)'s list (JSON; tests/json-agree.h): a disagreement
 * traps.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../json-agree.h"
#include "json.h"
#include "memgate/decision.h"
#include "memgate/approved.h"
#include "memgate/report.h"

#define PATH "fuzz/report.json"
#define RECORD_PATH "fuzz/approved.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_error(const mg_error *err, const char *path, size_t size)
{
	size_t n = strlen(err->message);

	CHECK(n > 0 && !strchr(err->message, '\n'));
	CHECK(err->message[n - 1] != '.' && !isupper((unsigned char)err->message[0]));
	/* Whole: a message that filled its buffer was cut short. */
	CHECK(n < sizeof(err->message) - 1);
	CHECK(!strcmp(err->file, path));
	CHECK(err->line >= 1 && err->column >= 1);
	CHECK((size_t)err->line <= size + 1 && (size_t)err->column <= size + 1);
}

static void check_pos(mg_pos pos, size_t size)
{
	CHECK(pos.line >= 0 && pos.column >= 0);
	CHECK((size_t)pos.line <= size + 1 && (size_t)pos.column <= size + 1);
}

static void check_value(const mg_value *v, size_t size)
{
	CHECK((v->kind == MG_VALUE_STRING) == (v->string != NULL));
	check_pos(v->pos, size);
}

static void check_candidate(const mg_candidate *c, size_t size)
{
	int m;

	CHECK(c->repeats >= 1 && c->repeats <= MG_REPORT_MAX_RUNS);
	CHECK(!c->name || strlen(c->name) <= MG_REPORT_MAX_NAME);
	check_pos(c->pos, size);
	for (m = 0; m < MG_METRIC_COUNT; m++) {
		const mg_metric *x = &c->metric[m];

		CHECK(x->state != MG_METRIC_NUMBER || isfinite(x->value));
		check_pos(x->pos, size);
	}
}

static void check_report(const mg_report *r, size_t size)
{
	const mg_evidence *ev = &r->evidence;
	size_t i;
	int k;

	for (k = 0; k < MG_ID_COUNT; k++)
		check_value(&ev->identity[k], size);
	check_value(&ev->handoff_status, size);
	check_value(&r->schema_version, size);
	check_value(&r->semantic_id, size);
	CHECK(!ev->eligible_count || ev->eligible_present);
	CHECK(ev->handoff == (ev->eligible_present ||
			      ev->handoff_status.kind != MG_VALUE_ABSENT));
	for (i = 0; i < ev->eligible_count; i++)
		CHECK(ev->eligible[i] != NULL);
	CHECK(ev->candidates_present || !ev->candidate_count);
	CHECK(ev->candidate_count <= MG_REPORT_MAX_CANDIDATES);
	for (i = 0; i < ev->candidate_count; i++)
		check_candidate(&ev->candidates[i], size);
}

static void check_approved(const uint8_t *data, size_t size)
{
	char *decision = NULL, *selected = NULL;
	mg_error err;

	mg_error_clear(&err);
	if (mg_approved_read(&decision, &selected, RECORD_PATH,
				    data ? (const char *)data : "", size, &err) == 0) {
		CHECK(decision && mg_verdict_from_name(decision) >= 0);
	} else {
		CHECK(!decision && !selected);
		check_error(&err, RECORD_PATH, size);
	}
	free(decision);
	free(selected);
}

/* What the reader refuses, whole or streamed, it names, as mg_json__check
 * does; what it accepts streamed, it accepts whole. */
static void check_reader_explains(const uint8_t *data, size_t size)
{
	const char *text = data ? (const char *)data : "";
	struct mg_json_fault f;
	mg_json_tape *t = NULL;
	mg_error err, err2;
	int whole, streamed;

	mg_error_clear(&err);
	mg_error_clear(&err2);
	whole = mg_json__stream(&t, PATH, text, size, NULL, NULL, NULL, NULL, NULL, &err);
	mg_json__tape_free(t);
	t = NULL;
	streamed = mg_json__stream(&t, PATH, text, size, "candidates", NULL, NULL, NULL, NULL, &err2);
	mg_json__tape_free(t);
	CHECK((whole == 0) == (streamed == 0));
	CHECK((mg_json__check(&f, text, size) == 0) == (whole == 0));
	CHECK(json_agree(text, size) != AGREE_DISAGREE);
	if (whole == 0)
		return;
	check_error(&err, PATH, size);
	CHECK(!strcmp(err.message, err2.message) && err.line == err2.line && err.column == err2.column);
	CHECK(!strcmp(err.message, f.what) && f.kind != MG_JF_NONE);
	CHECK(strlen(f.what) < sizeof(f.what) - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mg_report *r = NULL;
	mg_error err;

	check_reader_explains(data, size);
	mg_error_clear(&err);
	if (mg_report_parse(&r, PATH, (const char *)data, size, &err) == 0)
		check_report(r, size);
	else
		check_error(&err, PATH, size);
	mg_report_free(r);
	check_approved(data, size);
	return 0;
}
