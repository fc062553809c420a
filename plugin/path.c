/*
 * Repository path rules: see plugin/path.h.
 */
#include <assert.h>
#include <string.h>

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
