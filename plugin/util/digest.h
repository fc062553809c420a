#ifndef MEMGATE_DIGEST_H
#define MEMGATE_DIGEST_H
/* SHA-256 through OpenSSL's EVP interface. */
#include <stddef.h>

#define MG_DIGEST_HEX_SIZE 65   /* 64 lowercase hex digits and a NUL */

/* Write the lowercase hex SHA-256 of data[0..len) into out.  Returns 0, or
 * MG_ERROR when OpenSSL fails. */
int mg_digest_sha256_hex(char out[MG_DIGEST_HEX_SIZE], const void *data, size_t len)
	__attribute__((warn_unused_result));

#endif
