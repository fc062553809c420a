/* Allowed signers (plugin/parse/signers.c): ssh-keygen's ALLOWED SIGNERS format. */
#include "helpers.h"
#include "memgate/error.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"

static char ed[512], p256[512];

/* "ssh-ed25519 AAAA..." of fixtures/sshsig/NAME.pub, without its comment. */
static void read_pub(char *out, size_t n, const char *name)
{
	char path[256], *text, *sp;
	size_t len;

	snprintf(path, sizeof(path), "fixtures/sshsig/%s.pub", name);
	text = mg_test_read(path, &len);
	sp = strchr(strchr(text, ' ') + 1, ' ');
	if (sp)
		*sp = '\0';
	snprintf(out, n, "%s", text);
	free(text);
}

static void load_keys(void)
{
	read_pub(ed, sizeof(ed), "ed25519");
	read_pub(p256, sizeof(p256), "p256");
}

TestSuite(signers, .init = load_keys);

/* The ed25519 fixture signature's key blob. */
static mg_sshsig *ed_sig(void)
{
	size_t len;
	char *text = mg_test_read("fixtures/sshsig/ed25519.sig", &len);
	mg_sshsig *sig = NULL;
	mg_error err;

	cr_assert_eq(mg_sshsig_parse(&sig, "ed25519.sig", text, len, &err), MG_OK);
	free(text);
	return sig;
}

static mg_signers *parse(const char *text, mg_error *err)
{
	mg_signers *s = NULL;

	mg_error_clear(err);
	if (mg_signers_parse(&s, "allowed_signers", text, strlen(text), err) < 0)
		return NULL;
	return s;
}

static long long day(const char *date)
{
	long long t = 0;

	cr_assert_eq(mg_signers_day_start(&t, date), MG_OK);
	return t;
}

/* The verdict for the ed25519 fixture key in `ns` on `date`. */
static mg_signers_match find(const char *text, const char *ns, const char *date)
{
	mg_error err;
	mg_signers *s = parse(text, &err);
	mg_sshsig *sig = ed_sig();
	const unsigned char *key;
	size_t len;
	mg_signers_match m;
	static char principals[256];

	cr_assert_not_null(s, "%s", err.message);
	key = mg_sshsig_key(sig, &len);
	m = mg_signers_find(s, key, len, ns, day(date));
	snprintf(principals, sizeof(principals), "%s", m.principals ? m.principals : "");
	m.principals = m.principals ? principals : NULL;
	m.when = NULL;
	mg_signers_free(s);
	mg_sshsig_free(sig);
	return m;
}

Test(signers, reads_the_fixture_file)
{
	size_t len;
	char *text = mg_test_read("fixtures/sshsig/allowed_signers", &len);
	mg_signers *s = NULL;
	mg_error err;

	cr_assert_eq(mg_signers_parse(&s, "allowed_signers", text, len, &err), MG_OK, "%s",
		     err.message);
	cr_expect_eq(mg_signers_count(s), 6);
	mg_signers_free(s);
	free(text);
}

Test(signers, finds_the_key_and_its_principals)
{
	char text[2048];
	mg_signers_match m;

	snprintf(text, sizeof(text), "# runners\n\nother@ci %s\n  gpu@ci,*@runners %s runner 1\n",
		 p256, ed);
	m = find(text, "memgate", "2026-12-04");
	cr_expect_eq(m.verdict, MG_SIGNERS_ALLOWED);
	cr_expect_str_eq(m.principals, "gpu@ci,*@runners");
	cr_expect_eq(m.pos.line, 4);
	cr_expect_eq(m.pos.column, 3);
	snprintf(text, sizeof(text), "other@ci %s\n", p256);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_UNKNOWN_KEY);
	cr_expect_eq(find("", "memgate", "2026-12-04").verdict, MG_SIGNERS_UNKNOWN_KEY);
}

Test(signers, judges_namespaces_with_patterns)
{
	char text[2048];

	snprintf(text, sizeof(text), "gpu@ci namespaces=\"git,file\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_NAMESPACE);
	snprintf(text, sizeof(text), "gpu@ci NAMESPACES=\"mem*\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_ALLOWED);
	snprintf(text, sizeof(text), "gpu@ci namespaces=\"!memgate,*\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_NAMESPACE);
	/* a later line for the namespace wins over an earlier one for another */
	snprintf(text, sizeof(text), "a@ci namespaces=\"git\" %s\nb@ci namespaces=\"memgate\" %s\n",
		 ed, ed);
	cr_expect_str_eq(find(text, "memgate", "2026-12-04").principals, "b@ci");
}

Test(signers, judges_validity_windows_on_the_day)
{
	char text[2048];

	snprintf(text, sizeof(text), "gpu@ci valid-after=\"20261205\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_NOT_YET_VALID);
	cr_expect_eq(find(text, "memgate", "2026-12-05").verdict, MG_SIGNERS_ALLOWED);
	snprintf(text, sizeof(text), "gpu@ci valid-before=\"20261204Z\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-12-04").verdict, MG_SIGNERS_ALLOWED);
	cr_expect_eq(find(text, "memgate", "2026-12-05").verdict, MG_SIGNERS_EXPIRED);
	snprintf(text, sizeof(text), "gpu@ci valid-after=\"202601011230\",valid-before="
		 "\"20270101000000UTC\" %s\n", ed);
	cr_expect_eq(find(text, "memgate", "2026-01-01").verdict, MG_SIGNERS_NOT_YET_VALID);
	cr_expect_eq(find(text, "memgate", "2026-01-02").verdict, MG_SIGNERS_ALLOWED);
	/* rotation: the old key expired, the same key listed again later */
	snprintf(text, sizeof(text), "old@ci valid-before=\"20250101\" %s\nnew@ci %s\n", ed, ed);
	cr_expect_str_eq(find(text, "memgate", "2026-12-04").principals, "new@ci");
}

static void expect_error(const char *text, const char *words, int line, int column)
{
	mg_error err;
	mg_signers *s = parse(text, &err);

	cr_expect_null(s, "parsed: %s", text);
	mg_signers_free(s);
	cr_expect(strstr(err.message, words), "'%s' lacks '%s'", err.message, words);
	cr_expect_str_eq(err.file, "allowed_signers");
	cr_expect_eq(err.line, line, "line %d: %s", err.line, err.message);
	cr_expect_eq(err.column, column, "column %d: %s", err.column, err.message);
}

Test(signers, reports_each_malformed_line_at_its_place)
{
	char text[2048];

	snprintf(text, sizeof(text), "# ok\ngpu@ci\n");
	expect_error(text, "expected a key type and key after the principals", 2, 7);
	snprintf(text, sizeof(text), "gpu@ci cert-authority %s\n", ed);
	expect_error(text, "'cert-authority' is not supported", 1, 8);
	snprintf(text, sizeof(text), "gpu@ci no-touch-required %s\n", ed);
	expect_error(text, "unknown option 'no-touch-required'", 1, 8);
	snprintf(text, sizeof(text), "gpu@ci namespaces=memgate %s\n", ed);
	expect_error(text, "the value of 'namespaces' must be in double quotes", 1, 19);
	snprintf(text, sizeof(text), "gpu@ci valid-after=\"20260231\" %s\n", ed);
	expect_error(text, "'valid-after': no such day '20260231' (February 2026 has 28 days)", 1, 20);
	snprintf(text, sizeof(text), "gpu@ci valid-after=\"2026-01-01\" %s\n", ed);
	expect_error(text, "'valid-after': expected a time YYYYMMDD[HHMM[SS]][Z] from 1970, got "
		     "'2026-01-01'", 1, 20);
	snprintf(text, sizeof(text), "gpu@ci valid-before=\"202601012460\" %s\n", ed);
	expect_error(text, "'valid-before': no such time '202601012460' (hours 00 to 23, minutes "
		     "and seconds 00 to 59)", 1, 21);
	snprintf(text, sizeof(text), "gpu@ci valid-after=\"20260101\",valid-before=\"20250101\" %s\n",
		 ed);
	expect_error(text, "'valid-before' is not after 'valid-after'", 1, 8);
	snprintf(text, sizeof(text), "gpu@ci namespaces=\"a\",namespaces=\"b\" %s\n", ed);
	expect_error(text, "'namespaces' given twice", 1, 23);
	expect_error("gpu@ci ssh-ed25519 AAAA*AAA\n", "'*' is not a base64 character", 1, 24);
	expect_error("gpu@ci ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n", "an ssh-ed25519 key must hold 32 "
		     "bytes", 1, 20);
	snprintf(text, sizeof(text), "gpu@ci ssh-ed25519 %s\n", strchr(p256, ' ') + 1);
	expect_error(text, "the key is not a 'ssh-ed25519' key", 1, 20);
	expect_error("gpu@ci sk-ssh-ed25519@openssh.com AAAA\n", "security keys", 1, 8);
	expect_error("gpu@ci ssh-dss AAAA\n", "'ssh-dss' (DSA) keys are not supported", 1, 8);
	snprintf(text, sizeof(text), "\"gpu@ci %s\n", ed);
	expect_error(text, "no closing '\"'", 1, 1);
	snprintf(text, sizeof(text), "gpu@ci %.30s\n", ed);
	expect_error(text, "invalid key: the base64 text is cut short", 1, 38);
}

Test(signers, refuses_a_short_rsa_key_with_its_size)
{
	char pub[2048], text[2300];

	read_pub(pub, sizeof(pub), "rsa1024");
	snprintf(text, sizeof(text), "old@ci %s\n", pub);
	expect_error(text, "an RSA key of 1024 bits is refused", 1, 16);
}

Test(signers, reads_crlf_quoted_principals_and_comments)
{
	char text[2048];

	snprintf(text, sizeof(text), "\"gpu@ci\" %s a comment\r\n# more\r\n", ed);
	cr_expect_str_eq(find(text, "memgate", "2026-12-04").principals, "gpu@ci");
}

Test(signers, matches_ssh_patterns)
{
	cr_expect_eq(mg_signers_match_list("memgate", "memgate"), 1);
	cr_expect_eq(mg_signers_match_list("memgate", "git,mem*"), 1);
	cr_expect_eq(mg_signers_match_list("memgate", "memgat?"), 1);
	cr_expect_eq(mg_signers_match_list("memgate", "memgat"), 0);
	cr_expect_eq(mg_signers_match_list("memgate", "!memgate,*"), 0);
	cr_expect_eq(mg_signers_match_list("memgate", "*,!git"), 1);
	cr_expect_eq(mg_signers_match_list("memgate", ""), 0);
	cr_expect_eq(mg_signers_match_list("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*c"), 0);
}

Test(signers, reads_a_day)
{
	long long t;

	cr_expect_eq(mg_signers_day_start(&t, "1970-01-02"), MG_OK);
	cr_expect_eq(t, 86400);
	cr_expect_eq(mg_signers_day_start(&t, "2026-12-04"), MG_OK);
	cr_expect_eq(t, 1796342400LL);
	cr_expect_eq(mg_signers_day_start(&t, "2026-12-4"), MG_ERROR);
	cr_expect_eq(mg_signers_day_start(&t, "2026-02-30"), MG_ERROR, "a day that does not exist");
}

/* The verdict for the ed25519 fixture key under provenance.signers `who`. */
static mg_signers_match find_for(const char *text, const char *const *who, size_t n)
{
	mg_error err;
	mg_signers *s = parse(text, &err);
	mg_sshsig *sig = ed_sig();
	const unsigned char *key;
	size_t len;
	mg_signers_match m;
	static char principals[256];

	cr_assert_not_null(s, "%s", err.message);
	key = mg_sshsig_key(sig, &len);
	m = mg_signers_find_for(s, key, len, "memgate", day("2026-01-01"), who, n);
	snprintf(principals, sizeof(principals), "%s", m.principals ? m.principals : "");
	m.principals = m.principals ? principals : NULL;
	mg_signers_free(s);
	mg_sshsig_free(sig);
	return m;
}

/* provenance.signers: a key listed for a contributor of a file shared with
 * git's commit signing is not the runner (ssh-keygen -Y verify -I
 * gpu-runner@ci refuses it too). */
Test(signers, a_key_listed_for_other_principals_is_not_one_the_policy_names)
{
	static const char *const runner[] = { "gpu-runner@ci" };
	char text[2048];
	mg_signers_match m;

	snprintf(text, sizeof(text), "gpu-runner@ci %s\nalice@example.com %s\n", p256, ed);
	m = find_for(text, runner, 1);
	cr_expect_eq(m.verdict, MG_SIGNERS_PRINCIPAL);
	cr_expect_str_eq(m.principals, "alice@example.com");
	cr_expect_eq(m.pos.line, 2);
	m = find_for(text, NULL, 0);
	cr_expect_eq(m.verdict, MG_SIGNERS_ALLOWED, "without signers any listed key signs");

	/* a second line for the same key that the policy names: judged on it */
	snprintf(text, sizeof(text), "alice@example.com %s\ngpu-runner@ci %s\n", ed, ed);
	m = find_for(text, runner, 1);
	cr_expect_eq(m.verdict, MG_SIGNERS_ALLOWED);
	cr_expect_str_eq(m.principals, "gpu-runner@ci");

	/* namespace and validity of the lines the policy names come first */
	snprintf(text, sizeof(text), "alice@example.com %s\ngpu-runner@ci namespaces=\"git\" %s\n",
		 ed, ed);
	cr_expect_eq(find_for(text, runner, 1).verdict, MG_SIGNERS_NAMESPACE);
}

Test(signers, principal_patterns_match_as_ssh_keygen_verify_I_does)
{
	static const char *const wild[] = { "gpu-runner-*@ci" };
	static const char *const but[] = { "*@ci", "!intern@ci" };
	static const char *const named[] = { "gpu-runner@ci" };

	/* the policy's pattern names a name the line writes out */
	cr_expect(mg_signers_principals_allowed("gpu-runner-2@ci", wild, 1));
	cr_expect_not(mg_signers_principals_allowed("gpu-runner@ci", wild, 1));
	/* a line of patterns stands only for the names the policy writes out */
	cr_expect_not(mg_signers_principals_allowed("*@ci", wild, 1));
	cr_expect(mg_signers_principals_allowed("*@ci", named, 1));
	cr_expect(mg_signers_principals_allowed("*", named, 1));
	/* negation on either side */
	cr_expect_not(mg_signers_principals_allowed("!gpu-runner@ci,*@ci", named, 1));
	cr_expect(mg_signers_principals_allowed("alice@x,intern@ci,ci@ci", but, 2));
	cr_expect_not(mg_signers_principals_allowed("intern@ci", but, 2));
	cr_expect_not(mg_signers_principals_allowed("gpu-runner@ci", NULL, 0));
}
