/*
 * memgate approve: include/memgate/approve.h.
 *
 * Each test builds the demo repository (tests/demo-repo.h: tune, checkpoint
 * selected, the policy failing on [reject, tune]) with the real git, runs
 * from inside it (output paths are relative to the current directory) and
 * reads what mg_approve_run did: the files and the approval, or the refusal
 * and an unchanged working tree.
 */
#include <string.h>
#include <unistd.h>

#include "demo-repo.h"
#include "helpers.h"
#include "digest.h"
#include "memgate/approve.h"
#include "memgate/manifest.h"

#define RECORD "benchmarks/results/75_approved.json"

/* The demo repository, made the current directory. */
static void enter_demo(char dir[MG_DEMO_DIR_SIZE])
{
	mg_demo_repo(dir);
	cr_assert_eq(chdir(dir), 0);
}

/* The file `path` of the repository at dir. */
static char *read_in(const char *dir, const char *path, size_t *len)
{
	char full[512];

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	return mg_test_read(full, len);
}

static mg_approve_options fail_on_reject(void)
{
	mg_approve_options o = { 0 };

	o.check.fail_on_set = true;
	o.check.fail_on[MG_REJECT] = true;
	o.out_path = RECORD;
	return o;
}

/* Approving the tune on purpose writes the record and pins its path and
 * SHA-256 in the manifest, the rest of it as committed. */
Test(approve, writes_the_record_and_pins_it)
{
	char dir[MG_DEMO_DIR_SIZE], hex[MG_DIGEST_HEX_SIZE], *record, *manifest;
	mg_approve_options o = fail_on_reject();
	mg_approval *a = NULL;
	mg_manifest *m = NULL;
	mg_error err;
	size_t rlen, mlen;

	enter_demo(dir);
	cr_assert_eq(mg_approve_run(&a, &o, &err), MG_OK, "%s", err.message);
	cr_expect_eq(a->result->decision->verdict, MG_TUNE);
	cr_expect_str_eq(a->result->decision->selected, "checkpoint");
	cr_expect_str_eq(a->record_path, RECORD);
	cr_expect_str_eq(a->manifest_file, MG_DEMO_MANIFEST);
	cr_expect_not(a->record_unchanged);
	cr_expect_not(a->manifest_unchanged);
	record = read_in(dir, RECORD, &rlen);
	cr_assert_eq(mg_digest_sha256_hex(hex, record, rlen), 0);
	cr_expect_str_eq(a->record_sha256, hex);
	manifest = read_in(dir, MG_DEMO_MANIFEST, &mlen);
	cr_assert_eq(mg_manifest_parse(&m, MG_DEMO_MANIFEST, manifest, mlen, &err), MG_OK,
		     "%s", err.message);
	cr_expect(m->has_approved);
	cr_expect_str_eq(m->approved_path, RECORD);
	cr_expect_str_eq(m->approved_sha256, hex);
	cr_expect_str_eq(m->source_path, MG_DEMO_REPORT);
	mg_manifest_free(m);
	mg_approve_free(a);
	free(record);
	free(manifest);
	mg_demo_remove(dir);
}

/* The policy's gate fails on tune: refused, nothing written. */
Test(approve, refuses_a_decision_the_gate_fails_on)
{
	char dir[MG_DEMO_DIR_SIZE], *before, *after;
	mg_approve_options o = { 0 };
	mg_approval *a = NULL;
	mg_error err;
	size_t blen, alen;

	enter_demo(dir);
	o.out_path = RECORD;
	before = read_in(dir, MG_DEMO_MANIFEST, &blen);
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect_null(a);
	cr_expect(strstr(err.message, "which the policy's gate.fail_on fails on (") != NULL,
		  "%s", err.message);
	cr_expect_eq(access(RECORD, F_OK), -1, "no record written");
	after = read_in(dir, MG_DEMO_MANIFEST, &alen);
	cr_expect(blen == alen && !memcmp(before, after, blen), "the manifest is unchanged");
	free(before);
	free(after);
	mg_demo_remove(dir);
}

/* --out must be a file of the working tree, and not one of the inputs. */
Test(approve, refuses_an_out_outside_the_tree_or_naming_an_input)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_approve_options o = fail_on_reject();
	mg_approval *a = NULL;
	mg_error err;

	enter_demo(dir);
	o.out_path = "../elsewhere.json";
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "is above the working tree") != NULL, "%s", err.message);
	o.out_path = "./benchmarks/../" MG_DEMO_REPORT;
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "is the report: choose a new file") != NULL, "%s",
		  err.message);
	o.out_path = "/tmp/elsewhere.json";
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "is outside the working tree") != NULL, "%s", err.message);
	cr_expect_null(a);
	mg_demo_remove(dir);
}

Test(approve, free_accepts_null)
{
	mg_approve_free(NULL);
}
