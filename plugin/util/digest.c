/* SHA-256 with OpenSSL: see plugin/util/digest.h. */
/*
 * OpenSSL 3's EVP interface loads its configuration and builds a method
 * store on the first digest of a process: about 2 ms on Debian 12, a tenth
 * of a whole check of a small report (memgate(1), SCALE).  Its SHA-256
 * functions compute the same digest without that, so they are used while
 * OpenSSL has them: deprecated since 3.0 but kept, and the deprecation
 * warning is what OPENSSL_SUPPRESS_DEPRECATED is for.  An OpenSSL built
 * without them, or one past 3.x, gets EVP.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/sha.h>

#include <string.h>

#include "digest.h"
#include "memgate/error.h"

#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR == 3 && !defined(OPENSSL_NO_DEPRECATED_3_0)
#define USE_SHA256_FUNCTIONS 1
#else
#define USE_SHA256_FUNCTIONS 0
#endif

static int sha256(unsigned char md[32], const void *data, size_t len)
{
#if USE_SHA256_FUNCTIONS
	SHA256_CTX c;

	if (!SHA256_Init(&c) || !SHA256_Update(&c, data, len) || !SHA256_Final(md, &c))
		return MG_ERROR;
	return MG_OK;
#else
	unsigned char full[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(data, len, full, &n, EVP_sha256(), NULL) || n != 32)
		return MG_ERROR;
	memcpy(md, full, 32);
	return MG_OK;
#endif
}

int mg_digest_sha256_hex(char out[MG_DIGEST_HEX_SIZE], const void *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	int i;

	out[0] = '\0';
	if (sha256(md, data, len) < 0)
		return MG_ERROR;
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return MG_OK;
}
