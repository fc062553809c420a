/*
 * evidence.inputs entries matched as `git diff A B -- ENTRY` matches them
 * (see git_repo.h), with libgit2's pathspec matching.
 *
 * An entry is in one of the forms mg_path_check_pathspec accepts.  git's
 * tree walk (tree-walk.c, do_match) matches a path F, in directory D, with
 * an entry P when
 *
 *   1. F is P, or F is under P ("P/..."), P read literally;
 *   2. P has a glob character ('*', '?', '[' or a backslash) and
 *      wildmatch(P, F), where '*' and '?' match '/' too;
 *   3. P has one, D is literally the start of P (P = D R), and
 *      wildmatch(R, the name of F).
 *
 * libgit2 does 2 (and 1 for a P without glob characters), not 1 for a P
 * with them, nor 3.  So each entry gets patterns that libgit2 matches: P,
 * then P read literally (its glob characters each in brackets, "q[?]")
 * alone and followed by '/' and '*', then for each start D of P that ends
 * with '/' and holds a glob character, D in brackets followed by R.  That
 * last one also matches files deeper than D, where git's rule 3 does not
 * apply, so a path it matches counts only when it lies right in D.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "git_repo.h"

#define GLOB_CHARS "*?[\\"

/* One entry: its patterns for libgit2 and the rule-3 starts. */
struct entry {
	const char *text;
	git_pathspec *plain;       /* rules 1 and 2 */
	size_t nstarts;
	size_t *start_len;         /* |D| for each rule-3 start */
	git_pathspec **starts;     /* D in brackets followed by R */
};

struct mg_git__inputs {
	struct entry *e;
	size_t n;
	git_strarray all;          /* every pattern: where libgit2 looks */
};

static void add_pattern(git_strarray *a, char *pattern)
{
	a->strings = mg_xrealloc(a->strings, (a->count + 1) * sizeof(*a->strings));
	a->strings[a->count++] = pattern;
}

/* The first n bytes of s read literally: glob characters in brackets. */
static void put_literal(mg_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\\')
			mg_buf_puts(b, "[\\\\]");
		else if (strchr("*?[", s[i]))
			mg_buf_printf(b, "[%c]", s[i]);
		else
			mg_buf_putc(b, s[i]);
}

/* A pathspec of the count patterns from `first` of `all`. */
static int new_pathspec(git_pathspec **out, const git_strarray *all, size_t first,
			size_t count, const char *entry, mg_error *err)
{
	git_strarray some;

	some.strings = all->strings + first;
	some.count = count;
	if (git_pathspec_new(out, &some) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read the pathspec '%s': %s", entry,
				    mg_git__message());
	return 0;
}

/* Entry e's patterns, appended to in->all, and its pathspecs. */
static int entry_init(struct entry *e, mg_git__inputs *in, const char *text, mg_error *err)
{
	mg_buf b = MG_BUF_INIT;
	size_t first = in->all.count, len = strlen(text), k;
	int rc = 0;

	e->text = text;
	add_pattern(&in->all, mg_xstrdup(text));
	if (text[strcspn(text, GLOB_CHARS)]) {
		put_literal(&b, text, len);
		add_pattern(&in->all, mg_xstrdup(b.ptr));
		mg_buf_puts(&b, "/*");
		add_pattern(&in->all, mg_buf_detach(&b, NULL));
	}
	if ((rc = new_pathspec(&e->plain, &in->all, first, in->all.count - first, text,
			       err)) < 0)
		goto done;
	for (k = 0; k < len; k++) {
		if (text[k] != '/' || strcspn(text, GLOB_CHARS) > k)
			continue;
		b.len = 0;
		put_literal(&b, text, k + 1);
		mg_buf_puts(&b, text + k + 1);
		add_pattern(&in->all, mg_buf_detach(&b, NULL));
		e->starts = mg_xrealloc(e->starts, (e->nstarts + 1) * sizeof(*e->starts));
		e->start_len = mg_xrealloc(e->start_len, (e->nstarts + 1) * sizeof(*e->start_len));
		e->start_len[e->nstarts] = k + 1;
		e->starts[e->nstarts] = NULL;
		if ((rc = new_pathspec(&e->starts[e->nstarts++], &in->all, in->all.count - 1, 1,
				       text, err)) < 0)
			goto done;
	}
done:
	mg_buf_free(&b);
	return rc;
}

int mg_git__inputs_new(mg_git__inputs **out, char *const *entries, size_t n, mg_error *err)
{
	mg_git__inputs *in = mg_xcalloc(1, sizeof(*in));
	size_t i;
	int rc = 0;

	assert(out && (entries || !n));
	in->e = mg_xcalloc(n ? n : 1, sizeof(*in->e));
	in->n = n;
	for (i = 0; i < n && rc == 0; i++)
		rc = entry_init(&in->e[i], in, entries[i], err);
	if (rc < 0) {
		mg_git__inputs_free(in);
		in = NULL;
	}
	*out = in;
	return rc;
}

const git_strarray *mg_git__inputs_patterns(const mg_git__inputs *in)
{
	return &in->all;
}

bool mg_git__inputs_match(const mg_git__inputs *in, size_t i, const char *path)
{
	const struct entry *e = &in->e[i];
	size_t k, d;

	if (git_pathspec_matches_path(e->plain, 0, path) == 1)
		return true;
	for (k = 0; k < e->nstarts; k++) {
		d = e->start_len[k];
		if (!strncmp(path, e->text, d) && !strchr(path + d, '/') &&
		    git_pathspec_matches_path(e->starts[k], 0, path) == 1)
			return true;
	}
	return false;
}

bool mg_git__inputs_match_any(const mg_git__inputs *in, const char *path)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (mg_git__inputs_match(in, i, path))
			return true;
	return false;
}

void mg_git__inputs_free(mg_git__inputs *in)
{
	size_t i, k;

	if (!in)
		return;
	for (i = 0; i < in->n; i++) {
		git_pathspec_free(in->e[i].plain);
		for (k = 0; k < in->e[i].nstarts; k++)
			git_pathspec_free(in->e[i].starts[k]);
		free(in->e[i].starts);
		free(in->e[i].start_len);
	}
	for (i = 0; i < in->all.count; i++)
		free(in->all.strings[i]);
	free(in->all.strings);
	free(in->e);
	free(in);
}
