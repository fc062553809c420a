/*
 * libFuzzer target: the stage-75 manifest parser (mg_manifest_parse), the
 * repository path rules (mg_path_check) and the manifest writer
 * (mg_manifest_render_approved, with the measured commit); and the
 * approval beside the manifest (mg_approved_file_parse, its writer).
 *
 * A manifest that parses has checked paths and hashes, and rendering its
 * fields gives a manifest that parses back to the same fields; so does an
 * approval.  A refusal is a one-line error that names the file and a
 * position in the text.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/manifest.h"
#include "path.h"

#define PATH "fuzz/manifest.json"
#define APPROVAL "fuzz/manifest.approved.json"

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

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void check_sha256(const char *hex)
{
	size_t i;

	CHECK(strlen(hex) == 64);
	for (i = 0; i < 64; i++)
		CHECK((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f'));
}

/* Render the parsed source fields and read them back. */
static void check_round_trip(const mg_manifest *m)
{
	mg_manifest *back = NULL;
	mg_error err;
	char *text = mg_manifest_render_approved(m->source_path, m->source_sha256,
						 m->schema_version, m->semantic_id, NULL, NULL,
						 m->measured_commit);

	mg_error_clear(&err);
	CHECK(mg_manifest_parse(&back, "rendered.json", text, strlen(text), &err) == 0);
	CHECK(same(back->source_path, m->source_path));
	CHECK(same(back->source_sha256, m->source_sha256));
	CHECK(same(back->schema_version, m->schema_version));
	CHECK(same(back->semantic_id, m->semantic_id));
	CHECK(same(back->measured_commit, m->measured_commit));
	CHECK(!back->has_approved);
	mg_manifest_free(back);
	free(text);
}

static void check_manifest(const mg_manifest *m)
{
	mg_error err;

	CHECK(m->source_path && m->source_sha256);
	CHECK(mg_path_check(m->source_path, &err) == 0);
	check_sha256(m->source_sha256);
	CHECK(m->has_approved == (m->approved_path != NULL));
	if (m->has_approved) {
		CHECK(mg_path_check(m->approved_path, &err) == 0);
		check_sha256(m->approved_sha256);
	}
	check_round_trip(m);
}

/* The path rules on the raw bytes (up to the first NUL). */
static void check_path_rules(const uint8_t *data, size_t size)
{
	char *s = mg_xstrndup((const char *)data, size);
	mg_error err;

	mg_error_clear(&err);
	if (mg_path_check(s, &err) == 0)
		CHECK(s[0] && s[0] != '/' && !strstr(s, "//") && !strchr(s, '\\'));
	else
		CHECK(err.message[0] && !strchr(err.message, '\n'));
	free(s);
}

/* An approval that parses binds a SHA-256 and holds a verdict; written
 * again, it reads back the same. */
static void check_approval(const uint8_t *data, size_t size)
{
	mg_approved_file *a = NULL, *back = NULL;
	mg_buf record = MG_BUF_INIT;
	mg_error err;
	char *text;

	mg_error_clear(&err);
	if (mg_approved_file_parse(&a, APPROVAL, (const char *)data, size, &err) < 0) {
		check_error(&err, APPROVAL, size);
		CHECK(!a);
		return;
	}
	check_sha256(a->manifest_sha256);
	CHECK(mg_verdict_from_name(a->decision) >= 0);
	mg_buf_printf(&record, "{\"decision\": \"%s\", \"selected_candidate\": null}", a->decision);
	text = mg_approved_file_render(a->manifest_path, a->manifest_sha256, record.ptr);
	CHECK(mg_approved_file_parse(&back, "rendered.json", text, strlen(text), &err) == 0);
	CHECK(same(back->manifest_path, a->manifest_path));
	CHECK(same(back->manifest_sha256, a->manifest_sha256));
	CHECK(same(back->decision, a->decision) && !back->selected);
	mg_approved_file_free(back);
	mg_approved_file_free(a);
	mg_buf_free(&record);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mg_manifest *m = NULL;
	mg_error err;

	mg_error_clear(&err);
	if (mg_manifest_parse(&m, PATH, (const char *)data, size, &err) == 0)
		check_manifest(m);
	else
		check_error(&err, PATH, size);
	mg_manifest_free(m);
	check_path_rules(data, size);
	check_approval(data, size);
	return 0;
}
