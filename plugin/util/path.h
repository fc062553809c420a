#ifndef MEMGATE_PATH_H
#define MEMGATE_PATH_H
/*
 * The repository path rules every input path obeys (memgate(1), READING
 * FROM GIT): the policy's manifest path and the manifest's report and approved
 * paths, wherever they are read from.  Private: the git source and the
 * manifest parser both use it, so that neither depends on the other.
 */
#include "memgate/error.h"

#include "memgate/limits.h"   /* MG_PATH_MAX_BYTES, the longest path accepted */

/*
 * Check a repository path: relative, '/'-separated, not empty, no "." or
 * ".." segments, no empty segments, no backslash, no NUL or control
 * characters, at most MG_PATH_MAX_BYTES bytes.  Returns 0, or MG_ERROR with
 * a message that is only the reason ("absolute paths are not allowed",
 * "'..' segments are not allowed"): err->file/line/column are left empty for
 * the caller, who names the path ("invalid path '%s': %s").
 */
int mg_path_check(const char *repo_path, mg_error *err);

/*
 * Check an evidence.inputs entry: a git pathspec in the forms libgit2
 * matches exactly as `git diff A B -- ENTRY` does (memgate(1), STALE
 * EVIDENCE): a path or a pattern from the repository root.  Refused, with a
 * message that names the form and what to write instead: git's pathspec
 * magic (a leading ':'), a leading '/', '!' or '#', '.' and '..' segments,
 * '//', a trailing '/' or space, control characters, an entry longer than
 * MG_PATH_MAX_BYTES.  Returns 0, or MG_ERROR with only the reason in the
 * message (the caller names the entry and where it is).
 */
int mg_path_check_pathspec(const char *spec, mg_error *err);

#endif
