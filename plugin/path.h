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

#endif
