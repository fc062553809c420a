/*
 * memgate approve: include/memgate/approve.h.
 *
 * Each test builds the demo repository (tests/demo-repo.h: tune, checkpoint
 * selected, the policy failing on [reject, tune]) with the real git, runs
 * from inside it (output paths are relative to the current directory) and
 * reads what mg_approve_run did: the approval beside the manifest (never
 * the manifest itself), or the refusal and an unchanged working tree.
 */
#include <string.h>
#include <unistd.h>

#include "demo-repo.h"
#include "helpers.h"
#include "digest.h"
#include "memgate/approve.h"
#include "memgate/approved.h"

#define APPROVAL "benchmarks/results/75_input_manifest.approved.json"

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
	return o;
}

/* Approving the tune on purpose writes the approval beside the manifest,
 * bound to the manifest's SHA-256; the manifest is left as committed. */
Test(approve, writes_the_approval_beside_the_manifest)
{
	char dir[MG_DEMO_DIR_SIZE], hex[MG_DIGEST_HEX_SIZE], mhex[MG_DIGEST_HEX_SIZE];
	char *approval, *before, *after;
	mg_approve_options o = fail_on_reject();
	mg_approval *a = NULL;
	mg_approved_file *f = NULL;
	mg_error err;
	size_t len, blen, alen;

	enter_demo(dir);
	before = read_in(dir, MG_DEMO_MANIFEST, &blen);
	cr_assert_eq(mg_approve_run(&a, &o, &err), MG_OK, "%s", err.message);
	cr_expect_eq(a->result->decision->verdict, MG_TUNE);
	cr_expect_str_eq(a->result->decision->selected, "checkpoint");
	cr_expect_str_eq(a->approval_path, APPROVAL);
	cr_expect_str_eq(a->approval_file, APPROVAL);
	cr_expect_str_eq(a->sig_file, APPROVAL ".sig");
	cr_expect_str_eq(a->manifest_file, MG_DEMO_MANIFEST);
	cr_expect_not(a->unchanged);
	cr_expect_not(a->sig_written);
	cr_expect_not(a->sig_stale);
	approval = read_in(dir, APPROVAL, &len);
	cr_assert_eq(mg_digest_sha256_hex(hex, approval, len), 0);
	cr_expect_str_eq(a->approval_sha256, hex);
	cr_assert_eq(mg_approved_file_parse(&f, APPROVAL, approval, len, &err), MG_OK, "%s",
		     err.message);
	cr_assert_eq(mg_digest_sha256_hex(mhex, before, blen), 0);
	cr_expect_str_eq(f->manifest_sha256, mhex, "bound to the manifest's SHA-256");
	cr_expect_str_eq(f->manifest_path, MG_DEMO_MANIFEST);
	cr_expect_str_eq(f->decision, "tune");
	cr_expect_str_eq(f->selected, "checkpoint");
	after = read_in(dir, MG_DEMO_MANIFEST, &alen);
	cr_expect(blen == alen && !memcmp(before, after, blen), "the manifest is untouched");
	cr_expect_eq(access(APPROVAL ".sig", F_OK), -1, "no signature without a key");
	mg_approved_file_free(f);
	mg_approve_free(a);
	free(approval);
	free(before);
	free(after);
	mg_demo_remove(dir);
}

/* Approving the same evidence with the same decision again keeps the file
 * byte for byte (a signature of it stays valid). */
Test(approve, keeps_an_approval_of_the_same_evidence)
{
	char dir[MG_DEMO_DIR_SIZE], *first, *again;
	mg_approve_options o = fail_on_reject();
	mg_approval *a = NULL;
	mg_error err;
	size_t flen, alen;

	enter_demo(dir);
	cr_assert_eq(mg_approve_run(&a, &o, &err), MG_OK, "%s", err.message);
	mg_approve_free(a);
	first = read_in(dir, APPROVAL, &flen);
	o.check.today = "2031-01-01";   /* another day: the same approval */
	cr_assert_eq(mg_approve_run(&a, &o, &err), MG_OK, "%s", err.message);
	cr_expect(a->unchanged);
	again = read_in(dir, APPROVAL, &alen);
	cr_expect(flen == alen && !memcmp(first, again, flen), "kept byte for byte");
	mg_approve_free(a);
	free(first);
	free(again);
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
	before = read_in(dir, MG_DEMO_MANIFEST, &blen);
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect_null(a);
	cr_expect(strstr(err.message, "which the policy's gate.fail_on fails on (") != NULL,
		  "%s", err.message);
	cr_expect_eq(access(APPROVAL, F_OK), -1, "no approval written");
	after = read_in(dir, MG_DEMO_MANIFEST, &alen);
	cr_expect(blen == alen && !memcmp(before, after, blen), "the manifest is unchanged");
	free(before);
	free(after);
	mg_demo_remove(dir);
}

/* --sign without a policy that names its allowed signers (and without
 * --allowed-signers) is refused before anything is written. */
Test(approve, refuses_to_sign_without_allowed_signers)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_approve_options o = fail_on_reject();
	mg_approval *a = NULL;
	mg_error err;

	enter_demo(dir);
	o.sign_key = "/nonexistent/key";
	cr_expect_eq(mg_approve_run(&a, &o, &err), MG_ERROR);
	cr_expect_null(a);
	cr_expect(strstr(err.message, "the policy has no provenance section, so memgate sign "
			 "cannot check who may sign") != NULL, "%s", err.message);
	cr_expect_str_eq(err.file, ".memgate.yml");
	cr_expect_eq(access(APPROVAL, F_OK), -1, "no approval written");
	cr_expect_eq(access(APPROVAL ".sig", F_OK), -1, "no signature written");
	mg_demo_remove(dir);
}

/* Committed, the approval passes check --require-approved with the same
 * rule; once the manifest changes (the runner measured again), it is an
 * approval of other evidence, never "as approved". */
Test(approve, the_release_check_reads_the_approval_and_its_binding)
{
	char dir[MG_DEMO_DIR_SIZE], mhex[MG_DIGEST_HEX_SIZE], *manifest;
	mg_approve_options o = fail_on_reject();
	mg_check_options c = { 0 };
	mg_approval *a = NULL;
	mg_check_result *r;
	mg_error err;
	size_t len;

	enter_demo(dir);
	cr_assert_eq(mg_approve_run(&a, &o, &err), MG_OK, "%s", err.message);
	mg_approve_free(a);
	mg_demo_commit(dir, "NOTES", "approved\n", 0);   /* commits the approval too */
	c.require_approved = true;
	c.fail_on_set = true;
	c.fail_on[MG_REJECT] = true;
	r = mg_demo_check(dir, c);
	cr_expect(r->passed);
	cr_expect(r->decision->approved_checked);
	cr_expect_str_eq(r->approval_path, APPROVAL);
	cr_expect_str_eq(r->approved_ref.path, APPROVAL);
	manifest = read_in(dir, MG_DEMO_MANIFEST, &len);
	cr_assert_eq(mg_digest_sha256_hex(mhex, manifest, len), 0);
	cr_expect_str_eq(r->approved_manifest_sha256, mhex);
	cr_expect_str_eq(r->manifest_ref.sha256, mhex);
	cr_expect_not(r->approval_sig.checked, "no provenance section: no signature read");
	mg_check_result_free(r);

	mg_demo_commit(dir, MG_DEMO_MANIFEST, "\n", 1);   /* another manifest */
	r = mg_demo_check(dir, c);
	cr_expect_not(r->passed);
	cr_expect_not(r->decision->applicable);
	cr_expect(r->decision->issue[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE]);
	cr_expect_not(r->decision->approved_checked, "never 'as approved'");
	cr_expect_str_eq(mg_next_action_name(r->decision->next_action),
			 "re_approve_or_restore_evidence");
	cr_expect_str_eq(r->approved_manifest_sha256, mhex, "what was approved");
	cr_expect_str_neq(r->manifest_ref.sha256, mhex, "what the manifest is now");
	mg_check_result_free(r);
	free(manifest);
	mg_demo_remove(dir);
}

/* Without the approval in the commit: approved_result_missing, and the
 * next action points at the approval, not at the GPU. */
Test(approve, the_release_check_without_an_approval)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_options c = { 0 };
	mg_check_result *r;

	mg_demo_repo(dir);
	c.require_approved = true;
	r = mg_demo_check(dir, c);
	cr_expect(r->decision->issue[MG_ISSUE_APPROVED_RESULT_MISSING]);
	cr_expect_str_eq(r->approval_path, APPROVAL);
	cr_expect_not(r->approved_ref.read);
	cr_expect_str_eq(mg_next_action_name(r->decision->next_action),
			 "record_and_pin_approved_result");
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

Test(approve, free_accepts_null)
{
	mg_approve_free(NULL);
	mg_approve_free_all(NULL, 0);
}
