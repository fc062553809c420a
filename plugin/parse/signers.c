/* Allowed signers (ssh-keygen's ALLOWED SIGNERS): see include/memgate/signers.h. */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memgate/buf.h"
#include "memgate/signers.h"
#include "date.h"
#include "sshkey.h"

typedef struct signer {
	int line;
	char *principals;
	mg_pos principals_pos;
	char *namespaces;      /* NULL: any namespace */
	bool has_after, has_before;
	long long after, before;
	char *after_text, *before_text;
	unsigned char *key;
	size_t key_len;
} signer;

struct mg_signers {
	signer *v;
	size_t n, cap;
};

/* One line being read: its text (no newline) and where it is. */
typedef struct line {
	const char *path;
	const char *s;
	size_t n;
	size_t i;        /* the reading position */
	int number;
	mg_error *err;
} line;

static int fail(const line *l, size_t at, const char *fmt, const char *arg)
{
	return mg_error_set(l->err, l->path, l->number, (int)at + 1, fmt, arg);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_blank(line *l)
{
	while (l->i < l->n && blank(l->s[l->i]))
		l->i++;
}

/* ---- times -------------------------------------------------------- */

int mg_signers_day_start(long long *out, const char *date)
{
	char why[MG_DATE_WHY];
	int ymd;

	if (mg_date_parse(&ymd, date, strlen(date), why) < 0)
		return MG_ERROR;
	*out = mg_date_days(ymd) * 86400;
	return MG_OK;
}

/* ---- patterns ----------------------------------------------------- */

/* ssh's match_pattern: `*` any run, `?` one character; linear backtracking. */
static bool glob(const char *s, const char *p, size_t pn)
{
	size_t pi = 0, star = (size_t)-1, mark = 0, si = 0, sn = strlen(s);

	while (si < sn) {
		if (pi < pn && (p[pi] == '?' || p[pi] == s[si])) {
			pi++;
			si++;
		} else if (pi < pn && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < pn && p[pi] == '*')
		pi++;
	return pi == pn;
}

int mg_signers_match_list(const char *s, const char *patterns)
{
	const char *p = patterns;
	int got = 0;

	for (;;) {
		size_t n = strcspn(p, ",");
		bool neg = n > 0 && p[0] == '!';

		if (glob(s, p + neg, n - neg)) {
			if (neg)
				return 0;
			got = 1;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	return got;
}

/* A pattern of length n names one name: no wildcard, no negation. */
static bool literal(const char *p, size_t n)
{
	return n && p[0] != '!' && !memchr(p, '*', n) && !memchr(p, '?', n);
}

/* Whether name[0..len) matches the comma list `patterns` (match_list on a copy). */
static bool names(const char *name, size_t len, const char *patterns)
{
	char *s = mg_xstrndup(name, len);
	int got = mg_signers_match_list(s, patterns);

	free(s);
	return got == 1;
}

/* Append to `out` (a comma list) each name that the comma list `list`
 * writes out and the comma list `who` names. */
static void add_names(mg_buf *out, const char *list, const char *who)
{
	const char *p = list;

	for (;;) {
		size_t k = strcspn(p, ",");

		if (literal(p, k) && names(p, k, who))
			mg_buf_printf(out, "%s%.*s", out->len ? "," : "", (int)k, p);
		if (!p[k])
			break;
		p += k + 1;
	}
}

/* Whether the principals of a line match one of the comma list `names`. */
static bool admits(const char *principals, const char *names_list)
{
	const char *p = names_list;

	while (*p) {
		size_t k = strcspn(p, ",");

		if (names(p, k, principals))
			return true;
		if (!p[k])
			break;
		p += k + 1;
	}
	return false;
}

/* `who` joined with commas into `out`, and the names it writes out into `names`. */
static void who_names(mg_buf *out, mg_buf *names_out, const char *const *who, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mg_buf_printf(out, "%s%s", i ? "," : "", who[i]);
	add_names(names_out, out->ptr, out->ptr);
}

bool mg_signers_principals_allowed(const char *principals, const char *const *who, size_t n)
{
	mg_buf list = MG_BUF_INIT, cand = MG_BUF_INIT;
	bool ok;

	assert(principals && (who || !n));
	who_names(&list, &cand, who, n);
	add_names(&cand, principals, list.ptr);
	ok = n && admits(principals, cand.ptr);
	mg_buf_free(&list);
	mg_buf_free(&cand);
	return ok;
}

/* ---- lines -------------------------------------------------------- */

/* The principals field.  0 or MG_ERROR. */
static int read_principals(signer *sg, line *l)
{
	size_t start = l->i, end;

	if (l->s[l->i] == '"') {
		const char *q = memchr(l->s + l->i + 1, '"', l->n - l->i - 1);

		if (!q)
			return fail(l, start, "the quoted principals have no closing '\"'%s", "");
		end = (size_t)(q - l->s);
		sg->principals = mg_xstrndup(l->s + start + 1, end - start - 1);
		l->i = end + 1;
		if (l->i < l->n && !blank(l->s[l->i]))
			return fail(l, l->i, "expected a space after the quoted principals%s", "");
	} else {
		while (l->i < l->n && !blank(l->s[l->i])) {
			if (l->s[l->i] == '"')
				return fail(l, l->i, "a '\"' inside the principals: quote "
					    "all of them or none%s", "");
			l->i++;
		}
		sg->principals = mg_xstrndup(l->s + start, l->i - start);
	}
	sg->principals_pos = (mg_pos){ l->number, (int)start + 1 };
	if (!sg->principals[0])
		return fail(l, start, "empty principals%s", "");
	return MG_OK;
}

/* A quoted option value, `\"` for a quote.  *out is the caller's.  0 or MG_ERROR. */
static int read_quoted(char **out, line *l, const char *name)
{
	mg_buf v = MG_BUF_INIT;
	size_t start = l->i;

	*out = NULL;
	if (l->i >= l->n || l->s[l->i] != '"')
		return fail(l, l->i, "the value of '%s' must be in double quotes", name);
	for (l->i++; l->i < l->n && l->s[l->i] != '"'; l->i++) {
		if (l->s[l->i] == '\\' && l->i + 1 < l->n && l->s[l->i + 1] == '"')
			l->i++;
		mg_buf_putc(&v, l->s[l->i]);
	}
	if (l->i >= l->n) {
		mg_buf_free(&v);
		return fail(l, start, "the value of '%s' has no closing '\"'", name);
	}
	l->i++;
	*out = mg_buf_detach(&v, NULL);
	return MG_OK;
}

static bool option_is(const line *l, const char *name)
{
	size_t k = strlen(name);

	return l->n - l->i >= k && !strncasecmp(l->s + l->i, name, k);
}

static int read_time(signer *sg, line *l, bool after)
{
	const char *name = after ? "valid-after" : "valid-before";
	size_t at;
	char **text = after ? &sg->after_text : &sg->before_text;
	long long t = 0;
	char why[MG_DATE_WHY];

	if (after ? sg->has_after : sg->has_before)
		return fail(l, l->i, "'%s' given twice", name);
	l->i += strlen(name) + 1;
	at = l->i;
	if (read_quoted(text, l, name) < 0)
		return MG_ERROR;
	if (mg_date_parse_time(&t, *text, strlen(*text), why) < 0) {
		char msg[MG_DATE_WHY + 32];

		snprintf(msg, sizeof(msg), "'%s': %s", name, why);
		return fail(l, at, "%s", msg);
	}
	if (after) {
		sg->has_after = true;
		sg->after = t;
	} else {
		sg->has_before = true;
		sg->before = t;
	}
	return MG_OK;
}

/* The options field: namespaces=, valid-after=, valid-before=.  0 or MG_ERROR. */
static int read_options(signer *sg, line *l)
{
	size_t start = l->i;

	for (;;) {
		size_t at = l->i;

		if (option_is(l, "cert-authority") &&
		    (l->i + 14 == l->n || l->s[l->i + 14] == ',' || blank(l->s[l->i + 14])))
			return fail(l, at, "'cert-authority' is not supported: memgate verifies "
				    "plain keys, not certificates; list the signer's key%s", "");
		if (option_is(l, "namespaces=")) {
			if (sg->namespaces)
				return fail(l, at, "'%s' given twice", "namespaces");
			l->i += strlen("namespaces=");
			if (read_quoted(&sg->namespaces, l, "namespaces") < 0)
				return MG_ERROR;
		} else if (option_is(l, "valid-after=")) {
			if (read_time(sg, l, true) < 0)
				return MG_ERROR;
		} else if (option_is(l, "valid-before=")) {
			if (read_time(sg, l, false) < 0)
				return MG_ERROR;
		} else {
			size_t n = 0;

			while (at + n < l->n && !strchr(",= \t\r", l->s[at + n]))
				n++;
			return mg_error_set(l->err, l->path, l->number, (int)at + 1,
					    "unknown option '%.*s' (memgate reads namespaces=, "
					    "valid-after= and valid-before=)", n > 40 ? 40 : (int)n,
					    l->s + at);
		}
		if (l->i >= l->n || blank(l->s[l->i]))
			break;
		if (l->s[l->i] != ',')
			return fail(l, l->i, "expected ',' or a space after an option%s", "");
		l->i++;
	}
	if (sg->has_after && sg->has_before && sg->before <= sg->after)
		return fail(l, start, "'valid-before' is not after 'valid-after'%s", "");
	return MG_OK;
}

/* key-type base64 [comment].  0 or MG_ERROR. */
static int read_key(signer *sg, line *l)
{
	size_t tstart = l->i, tn, bstart, bn, at = 0;
	char why[MG_SSHKEY_WHY], *type = NULL;
	mg_sshkey *key = NULL;
	const unsigned char *ts;
	size_t tlen;
	mg_sshkey__rd r;
	int error = MG_ERROR;

	while (l->i < l->n && !blank(l->s[l->i]))
		l->i++;
	tn = l->i - tstart;
	if (!tn) {
		error = fail(l, tstart, "expected a key type and key after the principals%s", "");
		goto done;
	}
	type = mg_xstrndup(l->s + tstart, tn);
	if (mg_sshkey_type_problem(type, tn, why) < 0) {
		error = fail(l, tstart, "%s", why);
		goto done;
	}
	skip_blank(l);
	bstart = l->i;
	while (l->i < l->n && !blank(l->s[l->i]))
		l->i++;
	bn = l->i - bstart;
	if (!bn) {
		error = fail(l, bstart, "expected the base64 key after '%s'", type);
		goto done;
	}
	if (mg_sshkey__base64(&sg->key, &sg->key_len, l->s + bstart, bn, why, &at) < 0) {
		error = mg_error_set(l->err, l->path, l->number, (int)(bstart + at) + 1,
				     "invalid key: %s", why);
		goto done;
	}
	r = (mg_sshkey__rd){ sg->key, sg->key_len, 0 };
	if (mg_sshkey__string(&r, &ts, &tlen) < 0 || tlen != tn || memcmp(ts, type, tn)) {
		error = fail(l, bstart, "the key is not a '%s' key", type);
		goto done;
	}
	if (mg_sshkey_parse(&key, sg->key, sg->key_len, why, &at) < 0) {
		error = fail(l, bstart, "invalid key: %s", why);
		goto done;
	}
	error = MG_OK;
done:
	mg_sshkey_free(key);
	free(type);
	return error;
}

static void signer_free(signer *sg)
{
	free(sg->principals);
	free(sg->namespaces);
	free(sg->after_text);
	free(sg->before_text);
	free(sg->key);
}

/* Is the token at l->i the options field rather than a key type?  Key
 * types start ssh-, ecdsa- or sk- (ssh-keygen tries the key first). */
static bool at_options(const line *l)
{
	return l->i < l->n && !option_is(l, "ssh-") && !option_is(l, "ecdsa-") &&
	       !option_is(l, "sk-");
}

static int read_line(mg_signers *s, line *l)
{
	signer sg;
	int error = MG_ERROR;

	memset(&sg, 0, sizeof(sg));
	sg.line = l->number;
	skip_blank(l);
	if (l->i >= l->n || l->s[l->i] == '#')
		return MG_OK;
	if (memchr(l->s, '\0', l->n)) {
		error = fail(l, (size_t)((const char *)memchr(l->s, '\0', l->n) - l->s),
			     "a NUL byte in the allowed signers%s", "");
		goto done;
	}
	if (read_principals(&sg, l) < 0)
		goto done;
	skip_blank(l);
	if (at_options(l) && read_options(&sg, l) < 0)
		goto done;
	skip_blank(l);
	if (read_key(&sg, l) < 0)
		goto done;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = mg_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = sg;
	memset(&sg, 0, sizeof(sg));
	error = MG_OK;
done:
	signer_free(&sg);
	return error;
}

int mg_signers_parse(mg_signers **out, const char *path, const char *text, size_t len,
		     mg_error *err)
{
	mg_signers *s = NULL;
	size_t off = 0;
	int number = 0, error = MG_ERROR;

	assert(out && path && (text || !len));
	*out = NULL;
	if (len > MG_SIGNERS_MAX_BYTES) {
		mg_error_set(err, path, 0, 0, "the allowed signers file is %zu bytes, more "
			     "than %d", len, MG_SIGNERS_MAX_BYTES);
		goto done;
	}
	s = mg_xcalloc(1, sizeof(*s));
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - text - off) : len - off;
		line l = { path, text + off, n, 0, ++number, err };

		if (read_line(s, &l) < 0)
			goto done;
		off += n + 1;
	}
	*out = s;
	s = NULL;
	error = MG_OK;
done:
	mg_signers_free(s);
	return error;
}

mg_signers_match mg_signers_find(const mg_signers *s, const unsigned char *key, size_t len,
				 const char *ns, long long now)
{
	return mg_signers_find_for(s, key, len, ns, now, NULL, 0);
}

mg_signers_match mg_signers_find_for(const mg_signers *s, const unsigned char *key, size_t len,
				     const char *ns, long long now, const char *const *who,
				     size_t n)
{
	mg_signers_match m = { MG_SIGNERS_UNKNOWN_KEY, NULL, { 0, 0 }, NULL };
	mg_signers_match timed = m, other = m;
	mg_buf list = MG_BUF_INIT, cand = MG_BUF_INIT;
	size_t i;

	assert(s && key && ns && (who || !n));
	/* the names -I could be given: written out in `who` or on the key's lines */
	who_names(&list, &cand, who, n);
	for (i = 0; n && i < s->n; i++)
		if (s->v[i].key_len == len && !memcmp(s->v[i].key, key, len))
			add_names(&cand, s->v[i].principals, list.ptr);
	for (i = 0; i < s->n; i++) {
		const signer *sg = &s->v[i];
		mg_signers_match here = { MG_SIGNERS_ALLOWED, sg->principals,
					  sg->principals_pos, NULL };

		if (sg->key_len != len || memcmp(sg->key, key, len))
			continue;
		if (n && !admits(sg->principals, cand.ptr)) {
			if (other.verdict == MG_SIGNERS_UNKNOWN_KEY) {
				other = here;
				other.verdict = MG_SIGNERS_PRINCIPAL;
			}
			continue;
		}
		if (sg->namespaces && !mg_signers_match_list(ns, sg->namespaces)) {
			if (m.verdict == MG_SIGNERS_UNKNOWN_KEY) {
				m = here;
				m.verdict = MG_SIGNERS_NAMESPACE;
			}
			continue;
		}
		if (sg->has_after && now < sg->after) {
			here.verdict = MG_SIGNERS_NOT_YET_VALID;
			here.when = sg->after_text;
		} else if (sg->has_before && now > sg->before) {
			here.verdict = MG_SIGNERS_EXPIRED;
			here.when = sg->before_text;
		} else {
			m = here;
			goto done;
		}
		if (timed.verdict == MG_SIGNERS_UNKNOWN_KEY)
			timed = here;
	}
	if (timed.verdict != MG_SIGNERS_UNKNOWN_KEY)
		m = timed;
	else if (m.verdict == MG_SIGNERS_UNKNOWN_KEY)
		m = other;
done:
	mg_buf_free(&list);
	mg_buf_free(&cand);
	return m;
}

size_t mg_signers_count(const mg_signers *s)
{
	return s->n;
}

void mg_signers_free(mg_signers *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		signer_free(&s->v[i]);
	free(s->v);
	free(s);
}
