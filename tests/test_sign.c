/*
 * memgate sign: plugin/check/sign.h.
 *
 * Each test builds the demo repository (tests/demo-repo.h) with the real
 * git, gives its policy a provenance section where it needs one, and
 * reads what mg_sign_run returned: the signature and its signer, or the
 * refusal.  The library writes nothing: the command writes the signature.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demo-repo.h"
#include "helpers.h"
#include "sign.h"

#define SIGNERS ".memgate/allowed_signers"

/* A key made with ssh-keygen at dir/NAME, listed for `namespaces` by
 * `principal` in the repository's allowed signers (and committed). */
static void add_signer(const char *dir, const char *name, const char *principal)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.memgate' && ssh-keygen -q -t ed25519 -N '' "
		 "-C %s -f '%s/%s' && printf '%s %%s\\n' \"$(cut -d' ' -f1,2 '%s/%s.pub')\" "
		 ">>'%s/" SIGNERS "'", dir, name, dir, name, principal, dir, name, dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The demo repository with provenance: runner@ci may sign. */
static void provenance_repo(char dir[MG_DEMO_DIR_SIZE], const char *extra)
{
	char text[256];

	mg_demo_repo(dir);
	add_signer(dir, "runner", "runner@ci");
	snprintf(text, sizeof(text), "provenance:\n  allowed_signers: " SIGNERS "\n%s", extra);
	mg_demo_commit(dir, ".memgate.yml", text, 1);
}

static mg_sign_options options(const char *dir, const char *key)
{
	mg_sign_options o = { 0 };

	o.dir = dir;
	o.key = key;
	return o;
}

/* The policy's allowed signers verify the fresh signature; who signed
 * comes back, and nothing is written. */
Test(sign, signs_and_names_the_signer)
{
	char dir[MG_DEMO_DIR_SIZE], key[256], sig[256];
	mg_sign_options o;
	mg_signed *s = NULL;
	mg_error err;

	provenance_repo(dir, "");
	snprintf(key, sizeof(key), "%s/runner", dir);
	o = options(dir, key);
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_OK, "%s", err.message);
	cr_expect_str_eq(s->manifest, MG_DEMO_MANIFEST);
	cr_expect_str_eq(s->sig_path, MG_DEMO_MANIFEST ".sig");
	cr_expect_str_eq(s->principals, "runner@ci");
	cr_expect_str_eq(s->sig_namespace, "memgate");
	cr_expect_str_eq(s->signers, SIGNERS);
	cr_expect_eq(strncmp(s->key, "ssh-ed25519 SHA256:", 19), 0, "%s", s->key);
	cr_expect_eq(strncmp(s->signature, "-----BEGIN SSH SIGNATURE-----\n", 30), 0);
	snprintf(sig, sizeof(sig), "%s/" MG_DEMO_MANIFEST ".sig", dir);
	cr_expect_neq(access(sig, F_OK), 0, "the library wrote the signature");
	mg_signed_free(s);
}

/* A key the allowed signers do not list: signer_unknown, named. */
Test(sign, refuses_a_key_not_allowed)
{
	char dir[MG_DEMO_DIR_SIZE], key[256];
	mg_sign_options o;
	mg_signed *s = NULL;
	mg_error err;

	provenance_repo(dir, "");
	snprintf(key, sizeof(key), "%s/stranger", dir);
	snprintf(err.message, sizeof(err.message), "ssh-keygen -q -t ed25519 -N '' -f '%s'", key);
	cr_assert_eq(system(err.message), 0);
	o = options(dir, key);
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect_null(s);
	cr_expect_str_eq(err.file, SIGNERS);
	cr_expect(strstr(err.message, "is not an allowed signer") &&
		  strstr(err.message, "(signer_unknown)"), "%s", err.message);
}

/* --namespace other than the policy's: the check would refuse it. */
Test(sign, refuses_a_namespace_other_than_the_policys)
{
	char dir[MG_DEMO_DIR_SIZE], key[256];
	mg_sign_options o;
	mg_signed *s = NULL;
	mg_error err;

	provenance_repo(dir, "  namespace: release\n");
	snprintf(key, sizeof(key), "%s/runner", dir);
	o = options(dir, key);
	o.sig_namespace = "memgate";
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect_null(s);
	cr_expect_str_eq(err.file, ".memgate.yml");
	cr_expect_gt(err.line, 0);
	cr_expect(strstr(err.message, "--namespace 'memgate' differs from the policy's "
			 "provenance.namespace 'release'") != NULL, "%s", err.message);
}

/* No provenance section and no --allowed-signers: nothing to verify with. */
Test(sign, refuses_without_allowed_signers)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_sign_options o;
	mg_signed *s = NULL;
	mg_error err;

	mg_demo_repo(dir);
	o = options(dir, "/nonexistent/key");
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect_null(s);
	cr_expect(strstr(err.message, "--allowed-signers FILE") != NULL, "%s", err.message);
}

/* The program: missing, failing, or writing what is not a signature. */
Test(sign, refuses_what_ssh_keygen_did_not_sign)
{
	char dir[MG_DEMO_DIR_SIZE], key[256], prog[256];
	mg_sign_options o;
	mg_signed *s = NULL;
	mg_error err;
	FILE *f;

	provenance_repo(dir, "");
	snprintf(key, sizeof(key), "%s/runner", dir);
	o = options(dir, key);
	o.ssh_keygen = "/nonexistent/ssh-keygen";
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "cannot run '/nonexistent/ssh-keygen'") != NULL, "%s",
		  err.message);
	snprintf(prog, sizeof(prog), "%s/fake", dir);
	cr_assert_not_null(f = fopen(prog, "w"));
	fputs("#!/bin/sh\ncat >/dev/null\necho not a signature\n", f);
	fclose(f);
	cr_assert_eq(chmod(prog, 0755), 0);
	o.ssh_keygen = prog;
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "ssh-keygen wrote no signature memgate can read") != NULL,
		  "%s", err.message);
	o.ssh_keygen = "false";
	cr_assert_eq(mg_sign_run(&s, &o, &err), MG_ERROR);
	cr_expect(strstr(err.message, "failed (exit status 1") != NULL, "%s", err.message);
	cr_expect_null(s);
}
