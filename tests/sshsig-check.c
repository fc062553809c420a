/*
 * sshsig-check: memgate's verdict on SSH signatures, for the differential
 * test against ssh-keygen (tests/e2e/t_sshsig_differential.sh).  Reads one
 * case a line from stdin:
 *
 *     ALLOWED_SIGNERS NAMESPACE DATE MESSAGE SIGNATURE [WHO]
 *
 * (file paths, DATE YYYY-MM-DD; WHO the policy's provenance.signers joined
 * with commas, as mg_signers_find_for takes them) and prints one line a case:
 * `ok PRINCIPALS` or `fail WHAT: MESSAGE`, WHAT one of signature (the
 * signature cannot be read), signers (nor the allowed signers), namespace,
 * invalid, unknown-key, key-namespace, not-yet-valid, expired, principal.  Built from
 * libmemgate, so the verdict is the library's, not a copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	mg_buf b = MG_BUF_INIT;
	char chunk[8192];
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mg_buf_put(&b, chunk, n);
	fclose(f);
	return mg_buf_detach(&b, len);
}

static void one(const char *allowed, const char *ns, const char *date, const char *msgp,
		const char *sigp, char *who)
{
	const char *list[64];
	size_t n = 0;
	char *save = NULL, *w;

	size_t alen, mlen, slen;
	char *atext = slurp(allowed, &alen), *msg = slurp(msgp, &mlen), *stext = slurp(sigp, &slen);
	mg_signers *signers = NULL;
	mg_sshsig *sig = NULL;
	mg_error err;
	char buf[2048];
	long long now = 0;
	const unsigned char *key;
	size_t klen;
	mg_signers_match m;
	static const char *const what[] = { "ok", "unknown-key", "key-namespace",
					    "not-yet-valid", "expired", "principal" };

	mg_error_clear(&err);
	if (mg_signers_day_start(&now, date) < 0) {
		fprintf(stderr, "sshsig-check: bad date '%s'\n", date);
		exit(2);
	}
	if (mg_sshsig_parse(&sig, sigp, stext, slen, &err) < 0) {
		printf("fail signature: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		goto done;
	}
	if (mg_signers_parse(&signers, allowed, atext, alen, &err) < 0) {
		printf("fail signers: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		goto done;
	}
	switch (mg_sshsig_verify(sig, msg, mlen, ns, &err)) {
	case MG_OK:
		break;
	case MG_SSHSIG_ENAMESPACE:
		printf("fail namespace: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		goto done;
	default:
		printf("fail invalid: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		goto done;
	}
	key = mg_sshsig_key(sig, &klen);
	for (w = who ? strtok_r(who, ",", &save) : NULL; w && n < 64; w = strtok_r(NULL, ",", &save))
		list[n++] = w;
	m = mg_signers_find_for(signers, key, klen, ns, now, list, n);
	if (m.verdict == MG_SIGNERS_ALLOWED)
		printf("ok %s\n", m.principals);
	else
		printf("fail %s: line %d %s\n", what[m.verdict], m.pos.line,
		       m.when ? m.when : "");
done:
	fflush(stdout);
	mg_signers_free(signers);
	mg_sshsig_free(sig);
	free(atext);
	free(msg);
	free(stext);
}

int main(void)
{
	char line[8192];

	while (fgets(line, sizeof(line), stdin)) {
		char *f[6], *save = NULL, *p = line;
		int i;

		for (i = 0; i < 6; i++, p = NULL)
			if (!(f[i] = strtok_r(p, " \t\n", &save)) && i < 5) {
				fprintf(stderr, "sshsig-check: expected 5 or 6 fields: %s", line);
				return 2;
			}
		one(f[0], f[1], f[2], f[3], f[4], f[5]);
	}
	return 0;
}
