#ifndef MEMGATE_CHECK_REPO_H
#define MEMGATE_CHECK_REPO_H
/*
 * The repository that the checks between mg_check_begin and mg_check_end
 * share (check.c), for check --all's plan (plan.c) to read the same one:
 * its trees and blobs are then read once for both.
 */
#include <stdbool.h>
#include "memgate/error.h"
#include "git.h"

/*
 * The repository of `dir` (NULL: the current directory): the one held
 * since mg_check_begin when it is of the same dir, else opened now, and
 * held when checks are on and none is.  *held says whether it is held
 * (then mg_check_end frees it), else it is the caller's (mg_repo_free).
 * 0 or an error of mg_repo_open.
 */
int mg_check__open_repo(mg_repo **out, bool *held, const char *dir, mg_error *err);

#endif
