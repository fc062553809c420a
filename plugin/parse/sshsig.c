/*
 * SSH signatures (PROTOCOL.sshsig): see include/memgate/sshsig.h.
 *
 * Read as ssh-keygen -Y verify reads them, with these differences, each
 * stricter (tests/e2e/t_sshsig_differential.sh lists them): the version
 * must be 1 (ssh-keygen also takes 0), the namespace and hash algorithm
 * may hold no NUL byte (ssh-keygen takes one at the end), and the key types
 * and RSA sizes of sshkey.h.
 */
#include <openssl/evp.h>

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/sshsig.h"
#include "sshkey.h"

#define BEGIN "-----BEGIN SSH SIGNATURE-----"
#define END "-----END SSH SIGNATURE-----"

struct mg_sshsig {
	char *path;
	unsigned char *blob;       /* the decoded blob */
	size_t blob_len;
	mg_sshkey *key;
	char *ns;
	char hash[8];              /* "sha256" or "sha512" */
	const unsigned char *sig;  /* the signature string, inside blob */
	size_t sig_len;
	char fingerprint[64];
};

/* Where the parser is: the text, and where its base64 starts. */
struct parse {
	const char *path;
	const char *text;
	size_t len;
	size_t body;     /* offset of the base64 in text */
	size_t body_end;
	mg_error *err;
};

/* The text offset of the base64 digit that encodes blob byte `at`. */
static size_t digit_offset(const struct parse *p, size_t at)
{
	size_t want = at / 3 * 4, seen = 0, i;

	for (i = p->body; i < p->body_end; i++) {
		char c = p->text[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
			continue;
		if (seen++ == want)
			return i;
	}
	return p->body;
}

static int blob_error(const struct parse *p, size_t at, const char *why)
{
	mg_pos pos = mg_pos_of(p->text, p->len, digit_offset(p, at));

	return mg_error_at(p->err, p->path, pos, "invalid SSH signature: %s", why);
}

/* Find the armor; set p->body and p->body_end.  0 or MG_ERROR. */
static int dearmor(struct parse *p)
{
	static const char begin[] = BEGIN "\n", end[] = "\n" END;
	size_t i;

	if (p->len >= sizeof(begin) && !memcmp(p->text, BEGIN "\r\n", sizeof(begin)))
		return mg_error_set(p->err, p->path, 1, (int)sizeof(begin) - 1,
				    "the signature has Windows line ends (CRLF): ssh-keygen "
				    "reads only '\\n'; commit it as ssh-keygen -Y sign wrote it");
	if (p->len < sizeof(begin) - 1 || memcmp(p->text, begin, sizeof(begin) - 1))
		return mg_error_set(p->err, p->path, 1, 1, "not an SSH signature: expected '"
				    BEGIN "' alone on the first line");
	p->body = sizeof(begin) - 1;
	for (i = p->body; i + sizeof(end) - 1 <= p->len; i++)
		if (!memcmp(p->text + i, end, sizeof(end) - 1))
			break;
	if (i + sizeof(end) - 1 > p->len) {
		mg_pos at = mg_pos_of(p->text, p->len, p->len);

		return mg_error_at(p->err, p->path, at, "the SSH signature has no '" END
				   "' line: is it cut short?");
	}
	p->body_end = i;
	return MG_OK;
}

/* A string field without NUL bytes, copied into a new C string. */
static int get_cstring(char **out, mg_sshkey__rd *r, const struct parse *p, const char *what)
{
	const unsigned char *s;
	size_t n, at = r->off;
	char why[128];

	*out = NULL;
	if (mg_sshkey__string(r, &s, &n) < 0) {
		snprintf(why, sizeof(why), "cut short in its %s", what);
		return blob_error(p, at, why);
	}
	if (memchr(s, '\0', n)) {
		snprintf(why, sizeof(why), "its %s holds a NUL byte", what);
		return blob_error(p, at, why);
	}
	*out = mg_xstrndup((const char *)s, n);
	return MG_OK;
}

/* Printable for a message: at most 64 bytes, others as '?'. */
static void shown(char out[72], const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < 64; i++)
		out[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
	if (s[i])
		snprintf(out + i, 8, "...");
}

static void set_fingerprint(mg_sshsig *s)
{
	unsigned char md[EVP_MAX_MD_SIZE], b64[64];
	unsigned int n = 0;
	size_t blen;
	const unsigned char *blob = mg_sshkey_blob(s->key, &blen);
	int k;

	if (!EVP_Digest(blob, blen, md, &n, EVP_sha256(), NULL) || n != 32)
		return;
	k = EVP_EncodeBlock(b64, md, 32);
	while (k > 0 && b64[k - 1] == '=')
		k--;
	snprintf(s->fingerprint, sizeof(s->fingerprint), "SHA256:%.*s", k, (const char *)b64);
}

/* The key and the fields after it.  0 or MG_ERROR. */
static int parse_fields(mg_sshsig *s, mg_sshkey__rd *r, const struct parse *p)
{
	const unsigned char *f, *alg;
	size_t n, at, algn;
	char why[MG_SSHKEY_WHY], *hash = NULL;
	mg_sshkey__rd sr;
	int error = MG_ERROR;

	at = r->off;
	if (mg_sshkey__string(r, &f, &n) < 0) {
		error = blob_error(p, at, "cut short in its public key");
		goto done;
	}
	if (mg_sshkey_parse(&s->key, f, n, why, &at) < 0) {
		error = blob_error(p, r->off - n + at, why);
		goto done;
	}
	if (get_cstring(&s->ns, r, p, "namespace") < 0)
		goto done;
	at = r->off;
	if (mg_sshkey__string(r, &f, &n) < 0) {
		error = blob_error(p, at, "cut short in its reserved field");
		goto done;
	}
	at = r->off;
	if (get_cstring(&hash, r, p, "hash algorithm") < 0)
		goto done;
	if (strcmp(hash, "sha256") && strcmp(hash, "sha512")) {
		char h[72];

		shown(h, hash);
		snprintf(why, sizeof(why), "unsupported hash algorithm '%s' (ssh-keygen signs "
			 "with sha512 or sha256)", h);
		error = blob_error(p, at, why);
		goto done;
	}
	snprintf(s->hash, sizeof(s->hash), "%s", hash);
	at = r->off;
	if (mg_sshkey__string(r, &s->sig, &s->sig_len) < 0) {
		error = blob_error(p, at, "cut short in its signature");
		goto done;
	}
	if (r->off != r->len) {
		error = blob_error(p, r->off, "unexpected bytes after the signature");
		goto done;
	}
	/* Refuse SHA-1 RSA signatures here, with their name. */
	sr = (mg_sshkey__rd){ s->sig, s->sig_len, 0 };
	if (mg_sshkey__string(&sr, &alg, &algn) == 0 && algn == 7 && !memcmp(alg, "ssh-rsa", 7)) {
		error = blob_error(p, at, MG_SSHKEY_SHA1_REFUSED);
		goto done;
	}
	set_fingerprint(s);
	error = MG_OK;
done:
	free(hash);
	return error;
}

static int parse_blob(mg_sshsig *s, const struct parse *p)
{
	mg_sshkey__rd r = { s->blob, s->blob_len, 0 };
	uint32_t version;

	if (s->blob_len < 6 || memcmp(s->blob, "SSHSIG", 6))
		return blob_error(p, 0, "it does not start with 'SSHSIG'");
	r.off = 6;
	if (mg_sshkey__u32(&r, &version) < 0)
		return blob_error(p, 6, "cut short in its version");
	if (version != 1)
		return blob_error(p, 6, version > 1 ? "a version newer than 1" :
				  "version 0 (memgate reads version 1)");
	return parse_fields(s, &r, p);
}

int mg_sshsig_parse(mg_sshsig **out, const char *path, const char *text, size_t len,
		    mg_error *err)
{
	struct parse p = { path, text, len, 0, 0, err };
	mg_sshsig *s = NULL;
	char why[MG_SSHKEY_WHY];
	size_t bad = 0;
	int error = MG_ERROR;

	assert(out && path && (text || !len));
	*out = NULL;
	if (len > MG_SSHSIG_MAX_BYTES) {
		mg_error_set(err, path, 0, 0, "the SSH signature is %zu bytes, more than the %d "
			     "a signature can be", len, MG_SSHSIG_MAX_BYTES);
		goto done;
	}
	if (dearmor(&p) < 0)
		goto done;
	s = mg_xcalloc(1, sizeof(*s));
	s->path = mg_xstrdup(path);
	if (mg_sshkey__base64(&s->blob, &s->blob_len, text + p.body, p.body_end - p.body,
			      why, &bad) < 0) {
		mg_error_at(err, path, mg_pos_of(text, len, p.body + bad),
			    "invalid SSH signature: %s", why);
		goto done;
	}
	if (parse_blob(s, &p) < 0)
		goto done;
	*out = s;
	s = NULL;
	error = MG_OK;
done:
	mg_sshsig_free(s);
	return error;
}

/* SSHSIG, namespace, reserved, hash algorithm and the message's hash. */
static int signed_data(mg_buf *out, const mg_sshsig *s, const void *msg, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE], be[4];
	unsigned int n = 0;
	const EVP_MD *alg = strcmp(s->hash, "sha256") ? EVP_sha512() : EVP_sha256();
	const char *parts[3];
	size_t lens[4], i;

	if (!EVP_Digest(msg, len, md, &n, alg, NULL))
		return MG_ERROR;
	parts[0] = s->ns;
	parts[1] = "";
	parts[2] = s->hash;
	mg_buf_put(out, "SSHSIG", 6);
	for (i = 0; i < 4; i++) {
		const void *bytes = i < 3 ? (const void *)parts[i] : (const void *)md;

		lens[i] = i < 3 ? strlen(parts[i]) : n;
		be[0] = (unsigned char)(lens[i] >> 24);
		be[1] = (unsigned char)(lens[i] >> 16);
		be[2] = (unsigned char)(lens[i] >> 8);
		be[3] = (unsigned char)lens[i];
		mg_buf_put(out, be, 4);
		mg_buf_put(out, bytes, lens[i]);
	}
	return MG_OK;
}

int mg_sshsig_verify(const mg_sshsig *s, const void *msg, size_t len, const char *ns,
		     mg_error *err)
{
	mg_buf data = MG_BUF_INIT;
	char why[MG_SSHKEY_WHY], got[72], want[72];
	int rc, error = MG_ERROR;

	assert(s && (msg || !len) && ns);
	if (strcmp(s->ns, ns)) {
		shown(got, s->ns);
		shown(want, ns);
		mg_error_set(err, s->path, 1, 1, "signed for namespace '%s', not '%s'", got, want);
		error = MG_SSHSIG_ENAMESPACE;
		goto done;
	}
	if (signed_data(&data, s, msg ? msg : "", len) < 0) {
		mg_error_set(err, s->path, 0, 0, "OpenSSL cannot hash the signed file");
		goto done;
	}
	rc = mg_sshkey_verify(s->key, s->sig, s->sig_len, (const unsigned char *)data.ptr,
			      data.len, why);
	if (rc == MG_OK) {
		error = MG_OK;
	} else if (rc == MG_ERROR) {
		mg_error_set(err, s->path, 0, 0, "%s", why);
	} else {
		mg_error_set(err, s->path, 1, 1, "the %s signature by %s does not sign this "
			     "file (%s)", mg_sshkey_type(s->key), s->fingerprint, why);
		error = MG_SSHSIG_EBADSIG;
	}
done:
	mg_buf_free(&data);
	return error;
}

const unsigned char *mg_sshsig_key(const mg_sshsig *s, size_t *len)
{
	return mg_sshkey_blob(s->key, len);
}

const char *mg_sshsig_key_type(const mg_sshsig *s)
{
	return mg_sshkey_type(s->key);
}

const char *mg_sshsig_namespace(const mg_sshsig *s)
{
	return s->ns;
}

const char *mg_sshsig_hash(const mg_sshsig *s)
{
	return s->hash;
}

const char *mg_sshsig_fingerprint(const mg_sshsig *s)
{
	return s->fingerprint;
}

void mg_sshsig_free(mg_sshsig *s)
{
	if (!s)
		return;
	mg_sshkey_free(s->key);
	free(s->ns);
	free(s->blob);
	free(s->path);
	free(s);
}
