/*
 * libFuzzer target: the SSH signature reader (mg_sshsig_parse and
 * mg_sshsig_verify) and the allowed-signers reader (mg_signers_parse and
 * mg_signers_find), both on every input.
 *
 * A refusal is a one-line error that names the file and a position inside
 * the text.  A signature that parses verifies or not without crashing, and
 * its key is looked up in the input read as allowed signers.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/signers.h"
#include "memgate/sshsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* line:col within the text (column at most one past a line's end). */
static void check_error(const mg_error *err, const char *path, size_t size, int need_pos)
{
	size_t n = strlen(err->message);

	CHECK(n > 0 && !strchr(err->message, '\n'));
	CHECK(err->message[n - 1] != '.' && !isupper((unsigned char)err->message[0]));
	/* Whole: a message that filled its buffer was cut short. */
	CHECK(n < sizeof(err->message) - 1);
	CHECK(!strcmp(err->file, path));
	if (need_pos)
		CHECK(err->line >= 1 && err->column >= 1);
	CHECK((size_t)err->line <= size + 1 && (size_t)err->column <= size + 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char msg[] = "{\"source\": {}}\n";
	const char *text = (const char *)data;
	mg_sshsig *sig = NULL;
	mg_signers *signers = NULL;
	mg_error err;
	int rc;

	mg_error_clear(&err);
	if (mg_sshsig_parse(&sig, "fuzz.sig", text, size, &err) == 0) {
		rc = mg_sshsig_verify(sig, msg, sizeof(msg) - 1, "memgate", &err);
		CHECK(rc == 0 || rc == MG_SSHSIG_ENAMESPACE || rc == MG_SSHSIG_EBADSIG);
		CHECK(mg_sshsig_fingerprint(sig)[0] == 'S');
	} else {
		check_error(&err, "fuzz.sig", size, size <= MG_SSHSIG_MAX_BYTES);
	}
	mg_error_clear(&err);
	if (mg_signers_parse(&signers, "fuzz_signers", text, size, &err) == 0) {
		const unsigned char *key = (const unsigned char *)"x";
		size_t klen = 1;
		mg_signers_match m;

		if (sig)
			key = mg_sshsig_key(sig, &klen);
		m = mg_signers_find(signers, key, klen, "memgate", 1796342400LL);
		CHECK(m.verdict == MG_SIGNERS_UNKNOWN_KEY || m.principals);
	} else {
		check_error(&err, "fuzz_signers", size, size <= MG_SIGNERS_MAX_BYTES);
	}
	mg_signers_free(signers);
	mg_sshsig_free(sig);
	return 0;
}
