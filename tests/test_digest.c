/* SHA-256 (plugin/util/digest.c) against the FIPS 180-2 test vectors. */
#include "helpers.h"
#include "digest.h"
#include "memgate/error.h"

static void expect_sha256(const void *data, size_t len, const char *want)
{
	char hex[MG_DIGEST_HEX_SIZE];

	cr_assert_eq(mg_digest_sha256_hex(hex, data, len), MG_OK);
	cr_expect_str_eq(hex, want);
}

Test(digest, hashes_abc)
{
	expect_sha256("abc", 3,
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(digest, hashes_the_empty_input)
{
	expect_sha256("", 0,
		      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(digest, hashes_the_two_block_vector)
{
	const char *s = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	expect_sha256(s, strlen(s),
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(digest, hashes_a_million_a)
{
	char *s = mg_xmalloc(1000000);

	memset(s, 'a', 1000000);
	expect_sha256(s, 1000000,
		      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(s);
}

Test(digest, hashes_bytes_not_c_strings)
{
	expect_sha256("\0", 1,
		      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
}

Test(digest, matches_sha256sum_of_a_real_report)
{
	size_t len;
	char *text = mg_test_read("fixtures/reports/76_real_gpu_memory.flat.json", &len);

	/* `sha256sum fixtures/reports/76_real_gpu_memory.flat.json` */
	expect_sha256(text, len,
		      "d70f3880fd9774039476f0e51c0697cf36d384cc3920cbf2b202b0c698c25d6d");
	free(text);
}

Test(digest, output_is_lowercase_hex_and_nul_terminated)
{
	char hex[MG_DIGEST_HEX_SIZE];
	size_t i;

	memset(hex, 'X', sizeof(hex));
	cr_assert_eq(mg_digest_sha256_hex(hex, "memgate", 7), MG_OK);
	cr_expect_eq(strlen(hex), 64);
	for (i = 0; i < 64; i++)
		cr_expect((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f'),
			  "byte %zu is '%c'", i, hex[i]);
}
