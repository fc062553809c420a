#ifndef MEMGATE_HISTORY_READ_H
#define MEMGATE_HISTORY_READ_H
/*
 * Reading regression.history from git: the versions of the base's report
 * on its first-parent line (git.h: mg_repo_path_versions), each parsed as
 * a report, their medians (memgate/history.h).
 */
#include "memgate/history.h"
#include "git.h"

/*
 * The last `asked` versions of the report `path` on the first-parent line
 * from commit `base_hex`, looking at most `max_commits` commits, each read
 * (at most max_bytes, 0 = the default) and parsed as a report.  A version
 * that cannot be (too large, a Git LFS pointer, not a valid report) is
 * skipped and counted.  *out is the caller's: mg_history_free.  Returns 0,
 * or MG_ERROR when the walk cannot start or cannot read the line (git.h,
 * mg_repo_path_versions).
 */
int mg_history__read(mg_history **out, mg_repo *repo, const char *base_hex,
		     const char *path, int asked, size_t max_commits, size_t max_bytes,
		     mg_error *err);

#endif
