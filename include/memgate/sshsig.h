#ifndef MEMGATE_SSHSIG_H
#define MEMGATE_SSHSIG_H
/*
 * SSH signatures (openssh's PROTOCOL.sshsig), as `ssh-keygen -Y sign`
 * writes them, verified with OpenSSL: memgate never runs ssh-keygen.
 *
 * The armor is `-----BEGIN SSH SIGNATURE-----`, a newline, base64, a
 * newline and `-----END SSH SIGNATURE-----` (text after it is ignored, as
 * ssh-keygen does).  The blob is the 6 bytes `SSHSIG`, uint32 version 1,
 * then the strings public key, namespace, reserved, hash algorithm
 * (sha256 or sha512) and signature.  The key signs `SSHSIG`, then the
 * strings namespace, reserved (empty), hash algorithm and the hash of the
 * message.
 *
 * Key types: ssh-ed25519, ecdsa-sha2-nistp256/384/521 and ssh-rsa (2048 to
 * 16384 bits) signing with rsa-sha2-256 or rsa-sha2-512.  Refused with a
 * message that names them: `ssh-rsa` (SHA-1) signatures, security keys
 * (sk-*), certificates, DSA and any other type.
 */
#include <stddef.h>
#include "error.h"

typedef struct mg_sshsig mg_sshsig;

#include "limits.h"  /* memgate's: MG_SSHSIG_MAX_BYTES */

/* Results of mg_sshsig_verify besides MG_OK; each is also a message in err. */
#define MG_SSHSIG_ENAMESPACE -30  /* signed for another namespace */
#define MG_SSHSIG_EBADSIG    -31  /* not a signature of this message by its key */

/*
 * Parse the armored signature `text` (len bytes, need not be
 * NUL-terminated) read from `path`.  Every malformed input is MG_ERROR with
 * a message and the line and column it is about: the armor, the base64
 * (the character at fault), the blob (the base64 character where the bad
 * field starts), the key (refused types named), the hash algorithm.  On
 * success *out is the caller's; free with mg_sshsig_free (accepts NULL).
 */
int mg_sshsig_parse(mg_sshsig **out, const char *path, const char *text, size_t len,
		    mg_error *err);

/*
 * Check that `sig` signs msg[0..len) in namespace `ns`.  MG_OK;
 * MG_SSHSIG_ENAMESPACE or MG_SSHSIG_EBADSIG (a forged or altered message or
 * signature, an `ssh-rsa` SHA-1 signature) with a message at the
 * signature's first line; MG_ERROR when OpenSSL itself fails.
 */
int mg_sshsig_verify(const mg_sshsig *sig, const void *msg, size_t len, const char *ns,
		     mg_error *err);

/* The signing key's blob (what an allowed-signers line holds, decoded),
 * borrowed from sig. */
const unsigned char *mg_sshsig_key(const mg_sshsig *sig, size_t *len);
/* Its type ("ssh-ed25519"), the namespace it was signed in and the hash
 * algorithm, borrowed from sig. */
const char *mg_sshsig_key_type(const mg_sshsig *sig);
const char *mg_sshsig_namespace(const mg_sshsig *sig);
const char *mg_sshsig_hash(const mg_sshsig *sig);
/* The SHA-256 fingerprint of the key as ssh-keygen -l prints it
 * ("SHA256:" and unpadded base64), borrowed from sig. */
const char *mg_sshsig_fingerprint(const mg_sshsig *sig);

void mg_sshsig_free(mg_sshsig *sig);

#endif
