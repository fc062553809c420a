#ifndef MEMGATE_SIGNERS_H
#define MEMGATE_SIGNERS_H
/*
 * Allowed signers, in ssh-keygen(1)'s ALLOWED SIGNERS format: who may sign
 * the evidence.  One key a line:
 *
 *     principals [options] key-type base64-key [comment]
 *
 * principals is a comma list of names or patterns (`*`, `?`, `!` as ssh
 * reads them), optionally in double quotes; options is a comma list of
 * `namespaces="pattern,..."`, `valid-after="TIME"` and
 * `valid-before="TIME"` (TIME YYYYMMDD[HHMM[SS]] with an optional `Z` or
 * `UTC`; memgate reads every time as UTC, the time zone of a CI runner);
 * blank lines and lines starting with `#` are skipped.
 *
 * Stricter than ssh-keygen, which skips a line it cannot read: any
 * malformed line is an error naming its line and column, and so are
 * `cert-authority` (memgate verifies plain keys, not certificates), key
 * types memgate does not verify (sshkey.h), unknown options, dates that do
 * not exist (20260231) and a `valid-before` not after `valid-after`.
 */
#include <stdbool.h>
#include <stddef.h>
#include "error.h"

typedef struct mg_signers mg_signers;

#include "limits.h"  /* memgate's: MG_SIGNERS_MAX_BYTES */

typedef enum mg_signers_verdict {
	MG_SIGNERS_ALLOWED,        /* a line lists the key for the namespace, valid now */
	MG_SIGNERS_UNKNOWN_KEY,    /* no line lists the key */
	MG_SIGNERS_NAMESPACE,      /* lines list the key, none for this namespace */
	MG_SIGNERS_NOT_YET_VALID,  /* listed for the namespace, but before valid-after */
	MG_SIGNERS_EXPIRED,        /* listed for the namespace, but after valid-before */
	MG_SIGNERS_PRINCIPAL       /* listed, but only on lines for principals the
				      caller's patterns do not name (mg_signers_find_for) */
} mg_signers_verdict;

typedef struct mg_signers_match {
	mg_signers_verdict verdict;
	const char *principals;  /* the line's principals (borrowed), NULL when unknown */
	mg_pos pos;              /* the line's principals, {0,0} when unknown */
	const char *when;        /* EXPIRED / NOT_YET_VALID: the option's text (borrowed) */
} mg_signers_match;

/*
 * Parse an allowed-signers file (len bytes of text, need not be
 * NUL-terminated) read from `path`.  MG_ERROR with the line and column of
 * the first problem.  On success *out is the caller's; free with
 * mg_signers_free (accepts NULL).
 */
int mg_signers_parse(mg_signers **out, const char *path, const char *text, size_t len,
		     mg_error *err);

/*
 * Who may have made a signature with the key blob key[0..len) in namespace
 * `ns` at `now` (seconds since 1970 UTC): the first line that lists the key
 * for the namespace and is valid at `now`; otherwise why not, from the
 * lines that list the key.  The match borrows from s.
 */
mg_signers_match mg_signers_find(const mg_signers *s, const unsigned char *key, size_t len,
				 const char *ns, long long now);

/*
 * mg_signers_find for the principal patterns `who[0..n)` (each `*`, `?`, a
 * leading `!` to exclude; no commas): it accepts exactly when `ssh-keygen
 * -Y verify -I NAME` accepts for some NAME that `who` names, written out in
 * `who` or on a line that lists the key, skipping each line whose
 * principals match none of those names; n == 0 skips none.
 * A key listed only on skipped lines is MG_SIGNERS_PRINCIPAL (match of the
 * first such line); a key listed on others is judged on those alone.
 */
mg_signers_match mg_signers_find_for(const mg_signers *s, const unsigned char *key, size_t len,
				     const char *ns, long long now, const char *const *who,
				     size_t n);

/*
 * Whether a file of one line whose principals field is `principals` (a
 * comma list of patterns) passes mg_signers_find_for's principal check:
 * some name, written without wildcards either in `who` or in
 * `principals`, that both lists match (mg_signers_match_list).  A line of
 * patterns only (`*@ci`) stands only for the names `who` writes out.
 */
bool mg_signers_principals_allowed(const char *principals, const char *const *who, size_t n);

/* How many keys the file lists. */
size_t mg_signers_count(const mg_signers *s);

/* The start of `date` (YYYY-MM-DD) in UTC, in seconds since 1970: the time
 * memgate judges validity windows at.  0 or MG_ERROR. */
int mg_signers_day_start(long long *out, const char *date);

/* ssh's match_pattern_list: 1 when `s` matches one of the comma-separated
 * patterns and no negated one (`!pattern`), else 0. */
int mg_signers_match_list(const char *s, const char *patterns);

void mg_signers_free(mg_signers *s);

#endif
