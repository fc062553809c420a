/* SSH public keys and signatures with OpenSSL: see plugin/parse/sshkey.h. */
/*
 * OpenSSL 3 builds a public key from its parts with EVP_PKEY_fromdata;
 * OpenSSL 1.1.1 (Debian 11, Ubuntu 22.04) has only the EC_KEY and RSA
 * objects, deprecated since 3.0.  Those are used only there, or when
 * MG_SSHKEY_LEGACY asks for them (a test builds this file so, to test that
 * path on OpenSSL 3 too); the deprecation warning is what
 * OPENSSL_SUPPRESS_DEPRECATED is for (as in plugin/util/digest.c).
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/opensslv.h>

#if OPENSSL_VERSION_NUMBER >= 0x30000000L && !defined(MG_SSHKEY_LEGACY)
#define USE_FROMDATA 1
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#else
#define USE_FROMDATA 0
#include <openssl/ec.h>
#include <openssl/rsa.h>
#endif

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/error.h"
#include "sshkey.h"

struct mg_sshkey {
	mg_sshkey_kind kind;
	char type[32];
	int bits;
	unsigned char *blob;
	size_t blob_len;
	EVP_PKEY *pkey;
};

/* The key types memgate verifies, their curve and digest. */
static const struct key_type {
	const char *name;
	mg_sshkey_kind kind;
	const char *curve;   /* ECDSA: the curve name in the blob */
	const char *group;   /* ECDSA: OpenSSL's name of the curve */
	int nid;
	int bits;
} key_types[] = {
	{ "ssh-ed25519", MG_SSHKEY_ED25519, NULL, NULL, 0, 256 },
	{ "ecdsa-sha2-nistp256", MG_SSHKEY_ECDSA_P256, "nistp256", "P-256", NID_X9_62_prime256v1, 256 },
	{ "ecdsa-sha2-nistp384", MG_SSHKEY_ECDSA_P384, "nistp384", "P-384", NID_secp384r1, 384 },
	{ "ecdsa-sha2-nistp521", MG_SSHKEY_ECDSA_P521, "nistp521", "P-521", NID_secp521r1, 521 },
	{ "ssh-rsa", MG_SSHKEY_RSA, NULL, NULL, 0, 0 },
};

/* ---- wire encoding ------------------------------------------------ */

int mg_sshkey__u32(mg_sshkey__rd *r, uint32_t *out)
{
	const unsigned char *p;

	if (r->len - r->off < 4)
		return MG_ERROR;
	p = r->p + r->off;
	*out = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	r->off += 4;
	return MG_OK;
}

int mg_sshkey__string(mg_sshkey__rd *r, const unsigned char **s, size_t *n)
{
	uint32_t len;
	size_t start = r->off;

	if (mg_sshkey__u32(r, &len) < 0 || r->len - r->off < len) {
		r->off = start;
		return MG_ERROR;
	}
	*s = r->p + r->off;
	*n = len;
	r->off += len;
	return MG_OK;
}

static bool equals(const unsigned char *s, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(s, word, n);
}

/* ---- base64 ------------------------------------------------------- */

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Copy the base64 digits and padding of s[0..n) into `digits`, checking the
 * shape ssh-keygen's decoder requires.  0, or MG_ERROR with why and *bad. */
static int b64_shape(mg_buf *digits, const char *s, size_t n, char *why, size_t *bad)
{
	size_t i, pad = 0, last = n;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (is_space(c))
			continue;
		if (c == '=') {
			if (digits->len % 4 < 2) {
				*bad = i;
				snprintf(why, MG_SSHKEY_WHY, "misplaced base64 padding '='");
				return MG_ERROR;
			}
			pad++;
		} else if (b64_value(c) < 0 || pad) {
			*bad = i;
			if (pad)
				snprintf(why, MG_SSHKEY_WHY, "base64 text after its padding '='");
			else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
				snprintf(why, MG_SSHKEY_WHY, "'%c' is not a base64 character", c);
			else
				snprintf(why, MG_SSHKEY_WHY, "byte 0x%02x is not a base64 character",
					 (unsigned char)c);
			return MG_ERROR;
		}
		mg_buf_putc(digits, c);
		last = i;
	}
	if (digits->len % 4) {
		*bad = n;
		snprintf(why, MG_SSHKEY_WHY, "the base64 text is cut short (%zu characters, "
			 "not a multiple of 4)", digits->len);
		return MG_ERROR;
	}
	if (pad) {
		/* The bits of the last digit that no byte uses must be zero. */
		char c = digits->ptr[digits->len - pad - 1];
		int spare = pad == 1 ? 3 : 15;

		if (b64_value(c) & spare) {
			*bad = last;
			snprintf(why, MG_SSHKEY_WHY, "the last base64 digit before the padding has "
				 "bits set that no byte uses");
			return MG_ERROR;
		}
	}
	return MG_OK;
}

int mg_sshkey__base64(unsigned char **out, size_t *outlen, const char *s, size_t n,
		      char why[MG_SSHKEY_WHY], size_t *bad)
{
	mg_buf digits = MG_BUF_INIT;
	unsigned char *bytes = NULL;
	size_t pad = 0;
	int got, error = MG_ERROR;

	*out = NULL;
	*outlen = 0;
	if (b64_shape(&digits, s, n, why, bad) < 0)
		goto done;
	if (digits.len > (size_t)1 << 30) {
		*bad = 0;
		snprintf(why, MG_SSHKEY_WHY, "base64 text too long");
		goto done;
	}
	while (pad < digits.len && digits.ptr[digits.len - 1 - pad] == '=')
		pad++;
	bytes = mg_xmalloc(digits.len / 4 * 3 + 1);
	got = digits.len ? EVP_DecodeBlock(bytes, (const unsigned char *)digits.ptr,
					    (int)digits.len) : 0;
	if (got < 0 || (size_t)got < pad) {
		*bad = 0;
		snprintf(why, MG_SSHKEY_WHY, "cannot decode the base64 text");
		goto done;
	}
	*outlen = (size_t)got - pad;
	*out = bytes;
	bytes = NULL;
	error = MG_OK;
done:
	free(bytes);
	mg_buf_free(&digits);
	return error;
}

/* ---- key types ---------------------------------------------------- */

static const struct key_type *find_type(const unsigned char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(key_types) / sizeof(key_types[0]); i++)
		if (equals(s, n, key_types[i].name))
			return &key_types[i];
	return NULL;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

int mg_sshkey_type_problem(const char *type, size_t n, char why[MG_SSHKEY_WHY])
{
	int shown = n > 64 ? 64 : (int)n;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)type[i] < 0x20 || (unsigned char)type[i] >= 0x7f) {
			snprintf(why, MG_SSHKEY_WHY, "the key type is not printable text");
			return MG_ERROR;
		}
	if (find_type((const unsigned char *)type, n))
		return MG_OK;
	if (has_suffix(type, n, "-cert-v01@openssh.com"))
		snprintf(why, MG_SSHKEY_WHY, "certificates ('%.*s') are not supported: "
			 "use the plain key", shown, type);
	else if (n >= 3 && !memcmp(type, "sk-", 3))
		snprintf(why, MG_SSHKEY_WHY, "security keys ('%.*s') are not supported: "
			 "a runner signs with a key it holds (ssh-ed25519)", shown, type);
	else if (equals((const unsigned char *)type, n, "ssh-dss"))
		snprintf(why, MG_SSHKEY_WHY, "'ssh-dss' (DSA) keys are not supported: "
			 "use ssh-ed25519, ecdsa-sha2-nistp256/384/521 or RSA");
	else
		snprintf(why, MG_SSHKEY_WHY, "unsupported key type '%.*s' (memgate verifies "
			 "ssh-ed25519, ecdsa-sha2-nistp256/384/521 and ssh-rsa)", shown, type);
	return MG_ERROR;
}

/* An mpint as a positive BIGNUM.  0, or MG_ERROR with why. */
static int get_bignum(BIGNUM **out, mg_sshkey__rd *r, const char *what, char *why)
{
	const unsigned char *s;
	size_t n;

	*out = NULL;
	if (mg_sshkey__string(r, &s, &n) < 0) {
		snprintf(why, MG_SSHKEY_WHY, "%s is cut short", what);
		return MG_ERROR;
	}
	if (n && (s[0] & 0x80)) {
		snprintf(why, MG_SSHKEY_WHY, "%s is negative", what);
		return MG_ERROR;
	}
	if (n > MG_SSHKEY_MAX_RSA_BITS / 8 + 1) {
		snprintf(why, MG_SSHKEY_WHY, "%s is too large", what);
		return MG_ERROR;
	}
	*out = BN_bin2bn(s, (int)n, NULL);
	if (!*out) {
		snprintf(why, MG_SSHKEY_WHY, "out of memory");
		return MG_ERROR;
	}
	return MG_OK;
}

#if USE_FROMDATA
/* Build the public key from OpenSSL parameters.  NULL on failure. */
static EVP_PKEY *from_params(const char *alg, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, alg, NULL);
	OSSL_PARAM *params = bld ? OSSL_PARAM_BLD_to_param(bld) : NULL;
	EVP_PKEY *pkey = NULL;

	if (!ctx || !params || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	OSSL_PARAM_free(params);
	EVP_PKEY_CTX_free(ctx);
	return pkey;
}
#endif

static EVP_PKEY *ec_pkey(const struct key_type *t, const unsigned char *pt, size_t n)
{
#if USE_FROMDATA
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY *pkey = NULL;

	if (bld && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, t->group, 0) &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt, n))
		pkey = from_params("EC", bld);
	OSSL_PARAM_BLD_free(bld);
	return pkey;
#else
	EC_KEY *ec = EC_KEY_new_by_curve_name(t->nid);
	EC_POINT *q = ec ? EC_POINT_new(EC_KEY_get0_group(ec)) : NULL;
	EVP_PKEY *pkey = NULL;

	if (q && EC_POINT_oct2point(EC_KEY_get0_group(ec), q, pt, n, NULL) &&
	    EC_KEY_set_public_key(ec, q) && EC_KEY_check_key(ec) &&
	    (pkey = EVP_PKEY_new()) && EVP_PKEY_assign_EC_KEY(pkey, ec))
		ec = NULL; /* the key owns it now */
	else if (pkey) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
	EC_POINT_free(q);
	EC_KEY_free(ec);
	return pkey;
#endif
}

static EVP_PKEY *rsa_pkey(const BIGNUM *e, const BIGNUM *n)
{
#if USE_FROMDATA
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY *pkey = NULL;

	if (bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
		pkey = from_params("RSA", bld);
	OSSL_PARAM_BLD_free(bld);
	return pkey;
#else
	RSA *rsa = RSA_new();
	BIGNUM *n2 = BN_dup(n), *e2 = BN_dup(e);
	EVP_PKEY *pkey = NULL;

	if (rsa && n2 && e2 && RSA_set0_key(rsa, n2, e2, NULL)) {
		n2 = e2 = NULL; /* rsa owns them */
		if ((pkey = EVP_PKEY_new()) && EVP_PKEY_assign_RSA(pkey, rsa))
			rsa = NULL;
		else if (pkey) {
			EVP_PKEY_free(pkey);
			pkey = NULL;
		}
	}
	BN_free(n2);
	BN_free(e2);
	RSA_free(rsa);
	return pkey;
#endif
}

/* The key's parts after its type name.  0, or MG_ERROR with why. */
/* An ECDSA key's curve name and point into k->pkey.  MG_OK, or MG_ERROR with
 * why set. */
static int parse_ecdsa(mg_sshkey *k, const struct key_type *t, mg_sshkey__rd *r, char *why)
{
	const unsigned char *s;
	size_t n;

	if (mg_sshkey__string(r, &s, &n) < 0 || !equals(s, n, t->curve)) {
		snprintf(why, MG_SSHKEY_WHY, "a %s key must name the curve '%s'", t->name,
			 t->curve);
		return MG_ERROR;
	}
	if (mg_sshkey__string(r, &s, &n) < 0 || n != 1 + 2 * (size_t)((t->bits + 7) / 8) ||
	    s[0] != 4) {
		snprintf(why, MG_SSHKEY_WHY, "a %s key must hold an uncompressed point", t->name);
		return MG_ERROR;
	}
	k->pkey = ec_pkey(t, s, n);
	if (!k->pkey) {
		ERR_clear_error();
		snprintf(why, MG_SSHKEY_WHY, "the %s key is not a point on its curve", t->name);
		return MG_ERROR;
	}
	return MG_OK;
}

/* An RSA key's exponent and modulus into k->pkey and k->bits.  MG_OK (with
 * k->pkey NULL when OpenSSL cannot load it), or MG_ERROR with why set. */
static int parse_rsa(mg_sshkey *k, mg_sshkey__rd *r, char *why)
{
	BIGNUM *e = NULL, *m = NULL;
	int error = MG_ERROR;

	if (get_bignum(&e, r, "the RSA exponent", why) < 0 ||
	    get_bignum(&m, r, "the RSA modulus", why) < 0)
		goto done;
	k->bits = BN_num_bits(m);
	if (k->bits < MG_SSHKEY_MIN_RSA_BITS || k->bits > MG_SSHKEY_MAX_RSA_BITS) {
		snprintf(why, MG_SSHKEY_WHY, "an RSA key of %d bits is refused: memgate needs "
			 "%d to %d bits", k->bits, MG_SSHKEY_MIN_RSA_BITS, MG_SSHKEY_MAX_RSA_BITS);
		goto done;
	}
	if (!BN_is_odd(e) || BN_is_one(e)) {
		snprintf(why, MG_SSHKEY_WHY, "the RSA exponent is not valid");
		goto done;
	}
	k->pkey = rsa_pkey(e, m);
	error = MG_OK;
done:
	BN_free(e);
	BN_free(m);
	return error;
}

static int parse_parts(mg_sshkey *k, const struct key_type *t, mg_sshkey__rd *r, char *why)
{
	const unsigned char *s;
	size_t n;
	int error = MG_OK;

	switch (t->kind) {
	case MG_SSHKEY_ED25519:
		if (mg_sshkey__string(r, &s, &n) < 0 || n != 32) {
			snprintf(why, MG_SSHKEY_WHY, "an ssh-ed25519 key must hold 32 bytes");
			return MG_ERROR;
		}
		k->pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, s, n);
		break;
	case MG_SSHKEY_ECDSA_P256:
	case MG_SSHKEY_ECDSA_P384:
	case MG_SSHKEY_ECDSA_P521:
		error = parse_ecdsa(k, t, r, why);
		break;
	case MG_SSHKEY_RSA:
		error = parse_rsa(k, r, why);
		break;
	}
	if (error == MG_OK && !k->pkey) {
		ERR_clear_error();
		snprintf(why, MG_SSHKEY_WHY, "OpenSSL cannot load the %s key", t->name);
		error = MG_ERROR;
	}
	return error;
}

int mg_sshkey_parse(mg_sshkey **out, const unsigned char *blob, size_t len,
		    char why[MG_SSHKEY_WHY], size_t *at)
{
	mg_sshkey__rd r = { blob, len, 0 };
	mg_sshkey *k = NULL;
	const struct key_type *t;
	const unsigned char *s;
	size_t n;
	int error = MG_ERROR;

	*out = NULL;
	*at = 0;
	if (mg_sshkey__string(&r, &s, &n) < 0) {
		snprintf(why, MG_SSHKEY_WHY, "the key is cut short before its type");
		goto done;
	}
	if (mg_sshkey_type_problem((const char *)s, n, why) < 0)
		goto done;
	t = find_type(s, n);
	k = mg_xcalloc(1, sizeof(*k));
	k->kind = t->kind;
	k->bits = t->bits;
	snprintf(k->type, sizeof(k->type), "%s", t->name);
	*at = r.off;
	if (parse_parts(k, t, &r, why) < 0)
		goto done;
	if (r.off != len) {
		*at = r.off;
		snprintf(why, MG_SSHKEY_WHY, "%zu unexpected bytes after the %s key",
			 len - r.off, t->name);
		goto done;
	}
	k->blob = mg_xmalloc(len ? len : 1);
	memcpy(k->blob, blob, len);
	k->blob_len = len;
	*out = k;
	k = NULL;
	error = MG_OK;
done:
	mg_sshkey_free(k);
	return error;
}

const char *mg_sshkey_type(const mg_sshkey *k)
{
	return k->type;
}

const unsigned char *mg_sshkey_blob(const mg_sshkey *k, size_t *len)
{
	*len = k->blob_len;
	return k->blob;
}

int mg_sshkey_bits(const mg_sshkey *k)
{
	return k->bits;
}

void mg_sshkey_free(mg_sshkey *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pkey);
	free(k->blob);
	free(k);
}

/* ---- signatures --------------------------------------------------- */

/* EVP_DigestVerify: MG_OK, MG_SSHKEY_EBADSIG, or MG_ERROR. */
static int evp_verify(EVP_PKEY *pkey, const EVP_MD *md, const unsigned char *sig,
		      size_t siglen, const unsigned char *data, size_t len, char *why)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int rc, error = MG_ERROR;

	if (!ctx || EVP_DigestVerifyInit(ctx, NULL, md, NULL, pkey) <= 0) {
		snprintf(why, MG_SSHKEY_WHY, "OpenSSL cannot set up the verification");
		goto done;
	}
	rc = EVP_DigestVerify(ctx, sig, siglen, data, len);
	if (rc == 1) {
		error = MG_OK;
	} else {
		snprintf(why, MG_SSHKEY_WHY, "the signature does not match the signed data");
		error = MG_SSHKEY_EBADSIG;
	}
done:
	ERR_clear_error();
	EVP_MD_CTX_free(ctx);
	return error;
}

/* The ECDSA signature blob (mpint r, mpint s) as DER.  0 or EBADSIG. */
static int ecdsa_der(unsigned char **der, int *derlen, const unsigned char *s, size_t n,
		     char *why)
{
	mg_sshkey__rd r = { s, n, 0 };
	BIGNUM *br = NULL, *bs = NULL;
	ECDSA_SIG *sig = NULL;
	int error = MG_SSHKEY_EBADSIG;

	*der = NULL;
	if (get_bignum(&br, &r, "the ECDSA signature's r", why) < 0 ||
	    get_bignum(&bs, &r, "the ECDSA signature's s", why) < 0)
		goto done;
	if (r.off != n) {
		snprintf(why, MG_SSHKEY_WHY, "unexpected bytes after the ECDSA signature");
		goto done;
	}
	if (!(sig = ECDSA_SIG_new()) || !ECDSA_SIG_set0(sig, br, bs)) {
		error = MG_ERROR;
		snprintf(why, MG_SSHKEY_WHY, "out of memory");
		goto done;
	}
	br = bs = NULL; /* sig owns them */
	*derlen = i2d_ECDSA_SIG(sig, der);
	if (*derlen <= 0) {
		*der = NULL;
		error = MG_ERROR;
		snprintf(why, MG_SSHKEY_WHY, "OpenSSL cannot encode the ECDSA signature");
		goto done;
	}
	error = MG_OK;
done:
	BN_free(br);
	BN_free(bs);
	ECDSA_SIG_free(sig);
	return error;
}

static int verify_ecdsa(const mg_sshkey *k, const unsigned char *s, size_t n,
			const unsigned char *data, size_t len, char *why)
{
	const EVP_MD *md = k->kind == MG_SSHKEY_ECDSA_P256 ? EVP_sha256() :
			   k->kind == MG_SSHKEY_ECDSA_P384 ? EVP_sha384() : EVP_sha512();
	unsigned char *der = NULL;
	int derlen = 0, error;

	if ((error = ecdsa_der(&der, &derlen, s, n, why)) < 0)
		goto done;
	error = evp_verify(k->pkey, md, der, (size_t)derlen, data, len, why);
done:
	OPENSSL_free(der);
	return error;
}

/* RSA: ssh-keygen accepts a signature shorter than the modulus, padded on
 * the left with zeros, and so does memgate. */
static int verify_rsa(const mg_sshkey *k, const EVP_MD *md, const unsigned char *s,
		      size_t n, const unsigned char *data, size_t len, char *why)
{
	size_t modlen = (size_t)(k->bits + 7) / 8;
	unsigned char *padded = NULL;
	int error;

	if (n > modlen) {
		snprintf(why, MG_SSHKEY_WHY, "the RSA signature is longer than the key");
		return MG_SSHKEY_EBADSIG;
	}
	padded = mg_xcalloc(1, modlen);
	memcpy(padded + modlen - n, s, n);
	error = evp_verify(k->pkey, md, padded, modlen, data, len, why);
	free(padded);
	return error;
}

int mg_sshkey_verify(const mg_sshkey *k, const unsigned char *sig, size_t siglen,
		     const unsigned char *data, size_t len, char why[MG_SSHKEY_WHY])
{
	mg_sshkey__rd r = { sig, siglen, 0 };
	const unsigned char *alg, *s;
	size_t algn, n;

	assert(k && sig && data);
	if (mg_sshkey__string(&r, &alg, &algn) < 0 || mg_sshkey__string(&r, &s, &n) < 0) {
		snprintf(why, MG_SSHKEY_WHY, "the signature is cut short");
		return MG_SSHKEY_EBADSIG;
	}
	if (r.off != siglen) {
		snprintf(why, MG_SSHKEY_WHY, "unexpected bytes after the signature");
		return MG_SSHKEY_EBADSIG;
	}
	if (k->kind == MG_SSHKEY_RSA) {
		if (equals(alg, algn, "rsa-sha2-256"))
			return verify_rsa(k, EVP_sha256(), s, n, data, len, why);
		if (equals(alg, algn, "rsa-sha2-512"))
			return verify_rsa(k, EVP_sha512(), s, n, data, len, why);
		if (equals(alg, algn, "ssh-rsa")) {
			snprintf(why, MG_SSHKEY_WHY, "%s", MG_SSHKEY_SHA1_REFUSED);
			return MG_SSHKEY_EREFUSED;
		}
		snprintf(why, MG_SSHKEY_WHY, "an RSA key signs with rsa-sha2-256 or rsa-sha2-512, "
			 "not '%.*s'", algn > 64 ? 64 : (int)algn, (const char *)alg);
		return MG_SSHKEY_EBADSIG;
	}
	if (!equals(alg, algn, k->type)) {
		snprintf(why, MG_SSHKEY_WHY, "the signature's algorithm does not match the %s key",
			 k->type);
		return MG_SSHKEY_EBADSIG;
	}
	if (k->kind == MG_SSHKEY_ED25519) {
		if (n != 64) {
			snprintf(why, MG_SSHKEY_WHY, "an ssh-ed25519 signature must hold 64 bytes");
			return MG_SSHKEY_EBADSIG;
		}
		return evp_verify(k->pkey, NULL, s, n, data, len, why);
	}
	return verify_ecdsa(k, s, n, data, len, why);
}
