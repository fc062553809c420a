/*
 * Repository path rules: see plugin/util/path.h.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "memgate/buf.h"
#include "path.h"

/* Why one '/'-separated segment of n bytes is refused, or NULL. */
static const char *segment_problem(const char *s, size_t n)
{
	if (n == 0)
		return "empty segments ('//' or a trailing '/') are not allowed";
	if (n == 1 && s[0] == '.')
		return "'.' segments are not allowed";
	if (n == 2 && s[0] == '.' && s[1] == '.')
		return "'..' segments are not allowed";
	return NULL;
}

/* Why the path as a whole is refused, or NULL. */
static const char *path_problem(const char *path)
{
	const char *s;

	if (!path[0])
		return "empty paths are not allowed";
	if (strlen(path) > MG_PATH_MAX_BYTES)
		return "paths longer than 4096 bytes are not allowed";
	if (path[0] == '/')
		return "absolute paths are not allowed";
	for (s = path; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return "control characters are not allowed";
		if (*s == '\\')
			return "backslashes are not allowed (use '/')";
	}
	return NULL;
}

int mg_path_check(const char *repo_path, mg_error *err)
{
	const char *why, *seg = repo_path, *slash = NULL;

	assert(repo_path);
	why = path_problem(repo_path);
	while (!why) {
		slash = strchr(seg, '/');
		why = segment_problem(seg, slash ? (size_t)(slash - seg) : strlen(seg));
		if (!slash)
			break;
		seg = slash + 1;
	}
	return why ? mg_error_set(err, NULL, 0, 0, "%s", why) : MG_OK;
}

#define NOT_SUPPORTED "is not supported in evidence.inputs"

/* The longest entry, or form of one, a message quotes whole; a longer one
 * is described instead, so that the message stays whole (mg_error.message
 * holds 1 KiB and the policy reader quotes the entry itself first). */
#define QUOTE_MAX 200

/* spec with '.' segments and empty ones dropped and '..' resolved, into
 * out; false when a '..' leads out of the repository. */
static bool normalize(mg_buf *out, const char *spec)
{
	const char *seg = spec, *end;
	size_t n;

	for (; *seg; seg = *end ? end + 1 : end) {
		end = strchr(seg, '/');
		end = end ? end : seg + strlen(seg);
		n = (size_t)(end - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (!out->len)
				return false;
			while (out->len && out->ptr[out->len - 1] != '/')
				out->len--;
			out->len -= out->len ? 1 : 0;
			out->ptr[out->len] = '\0';
			continue;
		}
		if (out->len)
			mg_buf_putc(out, '/');
		mg_buf_put(out, seg, n);
	}
	return true;
}

/* What to write instead of an entry with '.', '..' or empty segments. */
static int refuse_segments(const char *spec, const char *form, mg_error *err)
{
	mg_buf fix = MG_BUF_INIT;
	int rc;

	if (!normalize(&fix, spec))
		rc = mg_error_set(err, NULL, 0, 0, "%s %s: it leads out of the repository; "
				  "write a path from the repository root", form, NOT_SUPPORTED);
	else if (!fix.len)
		rc = mg_error_set(err, NULL, 0, 0, "%s %s; write '*' for every path",
				  form, NOT_SUPPORTED);
	else if (fix.len > QUOTE_MAX)
		rc = mg_error_set(err, NULL, 0, 0, "%s %s; write the path from the repository "
				  "root, with '.' and empty segments dropped and '..' resolved",
				  form, NOT_SUPPORTED);
	else
		rc = mg_error_set(err, NULL, 0, 0, "%s %s; write '%s'", form, NOT_SUPPORTED,
				  fix.ptr);
	mg_buf_free(&fix);
	return rc;
}

/* What to write instead of the magic word w (n bytes). */
static const char *magic_fix(const char *w, size_t n)
{
	static const struct {
		const char *word, *fix;
	} fixes[] = {
		{ "exclude", "list only the paths whose change invalidates the evidence" },
		{ "glob", "write the pattern without it ('*' then matches '/' too, as in "
			  "git without magic)" },
		{ "literal", "write the path without it, a '*', '?' or '[' in it as '[*]', "
			     "'[?]' or '[[]'" },
		{ "icase", "list each spelling of the path" },
		{ "attr", "list the paths themselves" },
	};
	size_t i;

	for (i = 0; i < sizeof(fixes) / sizeof(fixes[0]); i++)
		if (strlen(fixes[i].word) == n && !memcmp(fixes[i].word, w, n))
			return fixes[i].fix;
	return "write a path or a pattern without magic";
}

/* ':(top)' or ':/' before `rest`: the root, where memgate always matches. */
static int refuse_top(const char *spec, const char *rest, mg_error *err)
{
	if (strlen(spec) > QUOTE_MAX)
		return mg_error_set(err, NULL, 0, 0, "git's pathspec magic 'top' %s; memgate "
				    "matches from the repository root: write the entry without "
				    "it", NOT_SUPPORTED);
	return mg_error_set(err, NULL, 0, 0, "git's pathspec magic 'top' (':%.*s') %s; memgate "
			    "matches from the repository root: write '%s'",
			    (int)(rest - spec - 1), spec + 1, NOT_SUPPORTED, *rest ? rest : "*");
}

/* A leading ':': git's pathspec magic, in its long form ':(word,...)' or
 * its short form (':/', ':!', ':^'), or a plain ':'. */
static int refuse_magic(const char *spec, mg_error *err)
{
	const char *w, *end;
	size_t n;

	if (spec[1] == '(') {
		w = spec + 2;
		end = strchr(w, ')');
		if (!end)
			return mg_error_set(err, NULL, 0, 0, "git's pathspec magic (an unclosed "
					    "':(') %s; write a path or a pattern without magic",
					    NOT_SUPPORTED);
		n = strcspn(w, ",:)");
		if (n == 3 && !memcmp(w, "top", 3))
			return refuse_top(spec, end + 1, err);
		if ((size_t)(end - w) > QUOTE_MAX)
			return mg_error_set(err, NULL, 0, 0, "git's pathspec magic (':(...)') %s; "
					    "write a path or a pattern without magic",
					    NOT_SUPPORTED);
		return mg_error_set(err, NULL, 0, 0, "git's pathspec magic '%.*s' (':(%.*s)') "
				    "%s; %s", (int)n, w, (int)(end - w), w, NOT_SUPPORTED,
				    magic_fix(w, n));
	}
	if (spec[1] == '/')
		return refuse_top(spec, spec + 2, err);
	if (spec[1] == '!' || spec[1] == '^')
		return mg_error_set(err, NULL, 0, 0, "git's pathspec magic 'exclude' (':%c') "
				    "%s; %s", spec[1], NOT_SUPPORTED, magic_fix("exclude", 7));
	if (strlen(spec) > QUOTE_MAX)
		return mg_error_set(err, NULL, 0, 0, "a leading ':' (git's pathspec magic) %s; "
				    "write it as '[:]' for a name that begins with ':'",
				    NOT_SUPPORTED);
	return mg_error_set(err, NULL, 0, 0, "a leading ':' (git's pathspec magic) %s; "
			    "write '[:]%s' for a name that begins with ':'", NOT_SUPPORTED,
			    spec + 1);
}

/* The segments: a leading './', '.' and '..' segments, '//', a trailing
 * '/' or a bare '.'. */
static int check_segments(const char *spec, mg_error *err)
{
	const char *seg, *end;
	size_t n;

	if (!strcmp(spec, "."))
		return mg_error_set(err, NULL, 0, 0, "'.' %s; write '*' for every path",
				    NOT_SUPPORTED);
	if (!strncmp(spec, "./", 2))
		return refuse_segments(spec, "a leading './'", err);
	for (seg = spec; ; seg = end + 1) {
		end = strchr(seg, '/');
		n = end ? (size_t)(end - seg) : strlen(seg);
		if (n == 1 && seg[0] == '.')
			return refuse_segments(spec, "a '.' segment", err);
		if (n == 2 && seg[0] == '.' && seg[1] == '.')
			return refuse_segments(spec, "a '..' segment", err);
		if (n == 0 && end)
			return refuse_segments(spec, "a '//' run", err);
		if (n == 0)
			return refuse_segments(spec, "a trailing '/'", err);
		if (!end)
			return MG_OK;
	}
}

int mg_path_check_pathspec(const char *spec, mg_error *err)
{
	const char *s;
	size_t len;

	assert(spec);
	len = strlen(spec);
	for (s = spec; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return mg_error_set(err, NULL, 0, 0, "a control character (byte 0x%02x) "
					    "%s; match it with '?'", (unsigned char)*s,
					    NOT_SUPPORTED);
	if (!len)
		return mg_error_set(err, NULL, 0, 0, "an empty entry %s; write a path",
				    NOT_SUPPORTED);
	if (len > MG_PATH_MAX_BYTES)
		return mg_error_set(err, NULL, 0, 0, "an entry longer than %d bytes %s",
				    MG_PATH_MAX_BYTES, NOT_SUPPORTED);
	if (spec[0] == ':')
		return refuse_magic(spec, err);
	if ((spec[0] == '!' || spec[0] == '#') && len > QUOTE_MAX)
		return mg_error_set(err, NULL, 0, 0, "a leading '%c' %s (libgit2 reads it as %s); "
				    "write '\\' before it for a name that begins with '%c'",
				    spec[0], NOT_SUPPORTED,
				    spec[0] == '!' ? "an exclusion" : "a comment", spec[0]);
	if (spec[0] == '!' || spec[0] == '#')
		return mg_error_set(err, NULL, 0, 0, "a leading '%c' %s (libgit2 reads it as %s); "
				    "write '\\%s' for a name that begins with '%c'", spec[0],
				    NOT_SUPPORTED, spec[0] == '!' ? "an exclusion" : "a comment",
				    spec, spec[0]);
	if (spec[0] == '/')
		return refuse_segments(spec, "a leading '/'", err);
	if (spec[len - 1] == ' ' && len > QUOTE_MAX)
		return mg_error_set(err, NULL, 0, 0, "a trailing space %s (libgit2 drops it); "
				    "remove it, or write it as '[ ]' for a name that ends with a "
				    "space", NOT_SUPPORTED);
	if (spec[len - 1] == ' ')
		return mg_error_set(err, NULL, 0, 0, "a trailing space %s (libgit2 drops it); "
				    "remove it, or write '%.*s[ ]' for a name that ends with a space",
				    NOT_SUPPORTED, (int)len - 1, spec);
	if (strstr(spec, "\\ "))
		return mg_error_set(err, NULL, 0, 0, "a backslash before a space %s (libgit2 "
				    "drops it); write '[ ]' for the space", NOT_SUPPORTED);
	if (spec[len - 1] == '\\' && len > QUOTE_MAX)
		return mg_error_set(err, NULL, 0, 0, "a trailing backslash %s (libgit2 drops it); "
				    "write it as '[\\\\]' for a name that ends with a backslash",
				    NOT_SUPPORTED);
	if (spec[len - 1] == '\\')
		return mg_error_set(err, NULL, 0, 0, "a trailing backslash %s (libgit2 drops it); "
				    "write '%.*s[\\\\]' for a name that ends with a backslash",
				    NOT_SUPPORTED, (int)len - 1, spec);
	return check_segments(spec, err);
}
