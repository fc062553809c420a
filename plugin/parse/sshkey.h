#ifndef MEMGATE_SSHKEY_H
#define MEMGATE_SSHKEY_H
/*
 * SSH public keys and their signatures, for the signature (sshsig.c) and
 * allowed-signers (signers.c) readers: base64 as ssh-keygen reads it, the
 * wire encoding of RFC 4251 (uint32, string, mpint), public key blobs
 * (RFC 4253 ssh-rsa, RFC 5656 ecdsa-sha2-nistp256/384/521, RFC 8709
 * ssh-ed25519) and the signature of each key type, checked with OpenSSL.
 *
 * Errors come back as a message in `why` (lowercase, one line, no file) and
 * the byte offset they are about, so that the caller can name a file, a
 * line and a column.
 */
#include <stddef.h>
#include <stdint.h>

#define MG_SSHKEY_WHY 256           /* size of a `why` buffer */
#define MG_SSHKEY_MIN_RSA_BITS 2048 /* shorter RSA keys are refused */
#define MG_SSHKEY_MAX_RSA_BITS 16384

typedef enum mg_sshkey_kind {
	MG_SSHKEY_ED25519,
	MG_SSHKEY_ECDSA_P256,
	MG_SSHKEY_ECDSA_P384,
	MG_SSHKEY_ECDSA_P521,
	MG_SSHKEY_RSA
} mg_sshkey_kind;

typedef struct mg_sshkey mg_sshkey;

/* A reader over bytes in SSH wire encoding. */
typedef struct mg_sshkey__rd {
	const unsigned char *p;
	size_t len;
	size_t off;
} mg_sshkey__rd;

/* A uint32, big-endian.  0, or MG_ERROR at the end of the data. */
int mg_sshkey__u32(mg_sshkey__rd *r, uint32_t *out);
/* A string (uint32 length, then the bytes), borrowed from the reader's
 * bytes.  0, or MG_ERROR when the length runs past the end. */
int mg_sshkey__string(mg_sshkey__rd *r, const unsigned char **s, size_t *n);

/*
 * Decode base64 as ssh-keygen does (white space anywhere is skipped, the
 * padding must be complete and its spare bits zero).  On success *out
 * (caller frees) holds *outlen bytes.  MG_ERROR with `why` and *bad, the
 * offset in `s` of the offending character (n for a missing end).
 */
int mg_sshkey__base64(unsigned char **out, size_t *outlen, const char *s, size_t n,
		      char why[MG_SSHKEY_WHY], size_t *bad);

/*
 * Parse a public key blob.  Refused with a message that names them:
 * certificates, security keys (sk-*), DSA and any other type, RSA keys
 * outside 2048..16384 bits, ECDSA points that are not uncompressed points
 * of their curve, trailing bytes.  On success *out is the caller's (free
 * with mg_sshkey_free); it keeps a copy of the blob.  MG_ERROR with `why`
 * and *at, the offset in the blob the problem is about.
 */
int mg_sshkey_parse(mg_sshkey **out, const unsigned char *blob, size_t len,
		    char why[MG_SSHKEY_WHY], size_t *at);

/* The type name in the blob ("ssh-ed25519"), borrowed from the key. */
const char *mg_sshkey_type(const mg_sshkey *k);
/* The key blob, borrowed from the key. */
const unsigned char *mg_sshkey_blob(const mg_sshkey *k, size_t *len);
/* RSA modulus bits, or the curve's bits. */
int mg_sshkey_bits(const mg_sshkey *k);

/* Results of mg_sshkey_verify besides MG_OK. */
#define MG_SSHKEY_EBADSIG   -20  /* malformed or not made by this key over data */
#define MG_SSHKEY_EREFUSED  -21  /* a signature algorithm memgate refuses (ssh-rsa) */

/* Why an 'ssh-rsa' (RSA with SHA-1) signature is refused: the one message,
 * whether the signature's blob (sshsig.c) or its verification says so. */
#define MG_SSHKEY_SHA1_REFUSED "'ssh-rsa' signatures use SHA-1 and are refused: " \
	"sign with rsa-sha2-512 (ssh-keygen -Y sign's default)"

/*
 * Check an SSH signature (string algorithm, string signature) made by `k`
 * over data[0..len).  MG_OK, MG_SSHKEY_EBADSIG or MG_SSHKEY_EREFUSED with
 * `why`, or MG_ERROR when OpenSSL itself fails.
 */
int mg_sshkey_verify(const mg_sshkey *k, const unsigned char *sig, size_t siglen,
		     const unsigned char *data, size_t len, char why[MG_SSHKEY_WHY]);

void mg_sshkey_free(mg_sshkey *k);

/*
 * Why a key type name is not one memgate verifies: "security keys
 * ('sk-ssh-ed25519@openssh.com') are not supported", ..., written into
 * why; 0 when the type is supported.
 */
int mg_sshkey_type_problem(const char *type, size_t n, char why[MG_SSHKEY_WHY]);

#endif
