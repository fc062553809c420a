/*
 * SSH signatures (plugin/parse/sshsig.c, plugin/parse/sshkey.c) on signatures made by
 * ssh-keygen -Y sign (fixtures/sshsig/; the ssh-rsa and rsa-sha2-256 ones
 * were made with openssl from the RSA key, and ssh-keygen -Y verify refuses
 * the first and accepts the second).
 */
#include "helpers.h"
#include "memgate/error.h"
#include "memgate/sshsig.h"

static char *manifest;
static size_t manifest_len;

static void load_manifest(void)
{
	manifest = mg_test_read("fixtures/sshsig/manifest.json", &manifest_len);
}

static void free_manifest(void)
{
	free(manifest);
}

/* Parse fixtures/sshsig/NAME; NULL (with err) when it does not parse. */
static mg_sshsig *parse_fixture(const char *name, mg_error *err)
{
	char path[256];
	size_t len;
	char *text;
	mg_sshsig *sig = NULL;

	snprintf(path, sizeof(path), "fixtures/sshsig/%s", name);
	text = mg_test_read(path, &len);
	mg_error_clear(err);
	if (mg_sshsig_parse(&sig, name, text, len, err) < 0)
		sig = NULL;
	free(text);
	return sig;
}

static mg_sshsig *parse_text(const char *text, mg_error *err)
{
	mg_sshsig *sig = NULL;

	mg_error_clear(err);
	if (mg_sshsig_parse(&sig, "m.sig", text, strlen(text), err) < 0)
		return NULL;
	return sig;
}

static void expect_valid(const char *name, const char *type)
{
	mg_error err;
	mg_sshsig *sig = parse_fixture(name, &err);

	cr_assert_not_null(sig, "%s: %s", name, err.message);
	cr_expect_str_eq(mg_sshsig_key_type(sig), type);
	cr_expect_str_eq(mg_sshsig_namespace(sig), "memgate");
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len, "memgate", &err), MG_OK,
		     "%s: %s", name, err.message);
	mg_sshsig_free(sig);
}

TestSuite(sshsig, .init = load_manifest, .fini = free_manifest);

Test(sshsig, verifies_every_key_type)
{
	expect_valid("ed25519.sig", "ssh-ed25519");
	expect_valid("ed25519-sha256.sig", "ssh-ed25519");
	expect_valid("p256.sig", "ecdsa-sha2-nistp256");
	expect_valid("p384.sig", "ecdsa-sha2-nistp384");
	expect_valid("p521.sig", "ecdsa-sha2-nistp521");
	expect_valid("rsa.sig", "ssh-rsa");
	expect_valid("rsa-sha256.sig", "ssh-rsa");
}

Test(sshsig, reports_the_hash_and_fingerprint)
{
	mg_error err;
	mg_sshsig *a = parse_fixture("ed25519.sig", &err), *b = parse_fixture("ed25519-sha256.sig", &err);

	cr_assert(a && b);
	cr_expect_str_eq(mg_sshsig_hash(a), "sha512");
	cr_expect_str_eq(mg_sshsig_hash(b), "sha256");
	cr_expect_eq(strncmp(mg_sshsig_fingerprint(a), "SHA256:", 7), 0);
	cr_expect_eq(strlen(mg_sshsig_fingerprint(a)), 7 + 43);
	cr_expect_str_eq(mg_sshsig_fingerprint(a), mg_sshsig_fingerprint(b));
	mg_sshsig_free(a);
	mg_sshsig_free(b);
}

Test(sshsig, refuses_another_message)
{
	mg_error err;
	mg_sshsig *sig = parse_fixture("p256.sig", &err);

	cr_assert_not_null(sig);
	manifest[20] ^= 1;
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len, "memgate", &err),
		     MG_SSHSIG_EBADSIG);
	cr_expect(strstr(err.message, "does not sign this file"), "%s", err.message);
	cr_expect_str_eq(err.file, "p256.sig");
	cr_expect_eq(err.line, 1);
	manifest[20] ^= 1;
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len - 1, "memgate", &err),
		     MG_SSHSIG_EBADSIG);
	mg_sshsig_free(sig);
}

Test(sshsig, refuses_another_namespace)
{
	mg_error err;
	mg_sshsig *sig = parse_fixture("ed25519-git.sig", &err);

	cr_assert_not_null(sig);
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len, "memgate", &err),
		     MG_SSHSIG_ENAMESPACE);
	cr_expect_str_eq(err.message, "signed for namespace 'git', not 'memgate'");
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len, "git", &err), MG_OK);
	mg_sshsig_free(sig);
}

static void expect_refused(const char *name, const char *words, int min_line)
{
	mg_error err;
	mg_sshsig *sig = parse_fixture(name, &err);

	cr_expect_null(sig, "%s parsed", name);
	mg_sshsig_free(sig);
	cr_expect(strstr(err.message, words), "%s: '%s' lacks '%s'", name, err.message, words);
	cr_expect_str_eq(err.file, name);
	cr_expect_geq(err.line, min_line, "%s: line %d", name, err.line);
	cr_expect_gt(err.column, 0);
}

Test(sshsig, refuses_sha1_rsa_signatures)
{
	expect_refused("rsa-sha1.sig", "'ssh-rsa' signatures use SHA-1 and are refused: "
		       "sign with rsa-sha2-512 (ssh-keygen -Y sign's default)", 2);
}

Test(sshsig, names_refused_key_types)
{
	mg_error err;
	mg_sshsig *sig;

	sig = parse_fixture("sk.sig", &err);
	cr_expect_null(sig);
	cr_expect(strstr(err.message, "security keys ('sk-ssh-ed25519@openssh.com') are not "
			 "supported"), "%s", err.message);
	sig = parse_fixture("cert.sig", &err);
	cr_expect_null(sig);
	cr_expect(strstr(err.message, "certificates ('ssh-ed25519-cert-v01@openssh.com') are "
			 "not supported"), "%s", err.message);
	sig = parse_fixture("rsa1024.sig", &err);
	cr_expect_null(sig);
	cr_expect(strstr(err.message, "an RSA key of 1024 bits is refused"), "%s", err.message);
	cr_expect_eq(err.line, 2);
}

Test(sshsig, refuses_crlf_armor_with_a_word)
{
	mg_error err;
	mg_sshsig *sig = parse_text("-----BEGIN SSH SIGNATURE-----\r\nU1NIU0lH\r\n"
				    "-----END SSH SIGNATURE-----\r\n", &err);

	cr_expect_null(sig);
	cr_expect(strstr(err.message, "Windows line ends (CRLF)"), "%s", err.message);
	cr_expect_eq(err.line, 1);
}

Test(sshsig, points_at_the_armor_problem)
{
	mg_error err;

	cr_expect_null(parse_text("", &err));
	cr_expect_str_eq(err.message, "not an SSH signature: expected '-----BEGIN SSH "
			 "SIGNATURE-----' alone on the first line");
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.column, 1);
	cr_expect_null(parse_text(" -----BEGIN SSH SIGNATURE-----\n", &err));
	cr_expect_eq(err.line, 1);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NI\nU0lH\n", &err));
	cr_expect(strstr(err.message, "has no '-----END SSH SIGNATURE-----' line"), "%s",
		  err.message);
	cr_expect_eq(err.line, 4);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NI\nU0*H\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect_str_eq(err.message, "invalid SSH signature: '*' is not a base64 character");
	cr_expect_eq(err.line, 3);
	cr_expect_eq(err.column, 3);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NIU0l\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect(strstr(err.message, "cut short (7 characters"), "%s", err.message);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAA==\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect_str_eq(err.message, "invalid SSH signature: cut short in its version");
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.column, 9);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAg==\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect_str_eq(err.message, "invalid SSH signature: a version newer than 1");
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ=\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAR==\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect(strstr(err.message, "bits set that no byte uses"), "%s", err.message);
	cr_expect_null(parse_text("-----BEGIN SSH SIGNATURE-----\nAAAA\n"
				  "-----END SSH SIGNATURE-----\n", &err));
	cr_expect_str_eq(err.message, "invalid SSH signature: it does not start with 'SSHSIG'");
}

Test(sshsig, accepts_rewrapped_armor_and_text_after_it)
{
	size_t len, i, j = 0;
	char *text = mg_test_read("fixtures/sshsig/ed25519.sig", &len);
	char *wrapped = mg_xmalloc(2 * len + 64);
	mg_error err;
	mg_sshsig *sig;
	const char *body = strchr(text, '\n') + 1;
	const char *end = strstr(text, "\n-----END");

	j += (size_t)sprintf(wrapped, "-----BEGIN SSH SIGNATURE-----\n");
	for (i = 0; body + i < end; i++) {
		if (body[i] == '\n')
			continue;
		wrapped[j++] = body[i];
		if (i % 7 == 6)
			wrapped[j++] = i % 2 ? '\n' : ' ';
	}
	j += (size_t)sprintf(wrapped + j, "\n-----END SSH SIGNATURE-----\ntrailing text\n");
	sig = parse_text(wrapped, &err);
	cr_assert_not_null(sig, "%s", err.message);
	cr_expect_eq(mg_sshsig_verify(sig, manifest, manifest_len, "memgate", &err), MG_OK);
	mg_sshsig_free(sig);
	free(wrapped);
	free(text);
}

Test(sshsig, refuses_oversized_text)
{
	size_t n = MG_SSHSIG_MAX_BYTES + 1;
	char *big = mg_xmalloc(n);
	mg_sshsig *sig = NULL;
	mg_error err;

	memset(big, 'A', n);
	cr_expect_eq(mg_sshsig_parse(&sig, "big.sig", big, n, &err), MG_ERROR);
	cr_expect(strstr(err.message, "more than the 65536"), "%s", err.message);
	free(big);
}
