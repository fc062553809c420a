#ifndef MEMGATE_HISTORY_READ_H
#define MEMGATE_HISTORY_READ_H
/*
 * Reading regression.history from git: the versions of the base's report
 * on its first-parent line (git.h: mg_repo_path_versions), each parsed as
 * a report, their medians (memgate/history.h).
 */
#include "memgate/history.h"
#include "memgate/report.h"
#include "git.h"

/*
 * Whether version `v` of the report counts: its bytes data[0..len),
 * parsed as `r`.  Returns 0 when it counts, a reason
 * (enum mg_history_skip, above 0) when it is skipped, or MG_ERROR (err
 * set) when what decides cannot be read.  The caller's: the check gives
 * one (plugin/check/), which this layer cannot call by name.
 */
typedef int (*mg_history_accept_fn)(void *ctx, const mg_repo_version *v, const void *data,
				    size_t len, const mg_report *r, mg_error *err);

/*
 * The last `asked` versions of the report `path` on the first-parent line
 * from commit `base_hex`, looking at most `max_commits` commits, each read
 * (at most max_bytes, 0 = the default) and parsed as a report.  A version
 * that cannot be (too large, a Git LFS pointer, not a valid report) is
 * skipped and counted, and so is one that `accept` (when not NULL, with
 * `ctx`) skips: the walk then looks further, so that `asked` versions that
 * count are found when the line holds them.  *out is the caller's: mg_history_free.  Returns 0,
 * or MG_ERROR when the walk cannot start or cannot read the line (git.h,
 * mg_repo_path_versions), or when `accept` fails.
 */
int mg_history__read(mg_history **out, mg_repo *repo, const char *base_hex,
		     const char *path, int asked, size_t max_commits, size_t max_bytes,
		     mg_history_accept_fn accept, void *ctx, mg_error *err);

#endif
