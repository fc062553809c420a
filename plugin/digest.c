/* SHA-256 through OpenSSL's EVP interface: see plugin/digest.h. */
#include <openssl/evp.h>

#include "digest.h"
#include "memgate/error.h"

int mg_digest_sha256_hex(char out[MG_DIGEST_HEX_SIZE], const void *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	out[0] = '\0';
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return MG_ERROR;
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return MG_OK;
}
