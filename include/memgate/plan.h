#ifndef MEMGATE_PLAN_H
#define MEMGATE_PLAN_H
/*
 * check --all: which policies a run gates, and what becomes of those it
 * does not.  With a policy revision (a pull request's base) the set is
 * every policy of either revision: a policy only the change has is gated
 * (with its own budget as adoption, or the base's when git's rename
 * detection says the change moved it: mg_check_run decides which); a
 * policy only the base has was moved (gated at its new place, not listed
 * here), retired with its evidence (named, not gated) or deleted while its
 * evidence stays (an error that says what to do).
 *
 * The plan's types (mg_plan, its entries and kinds) are in result.h, with
 * what else a check gives.
 */
#include <stdbool.h>
#include <stddef.h>
#include "check.h"   /* mg_check_options; the plan itself: result.h */
#include "error.h"

/*
 * Plan check --all for `opt` (dir, rev, policy_rev, worktree): the policy
 * files at the policy revision, and with a policy revision other than
 * --rev those at --rev too, classified as above.  A revision with no
 * policy at either is MG_ERROR (exit 2) with a message naming both.  *out
 * is the caller's: mg_plan_free.
 *
 * With `changed` (check --all --changed), a policy of both revisions none
 * of whose inputs changed between them (what its check reads, listed once
 * beside the readers: plugin/check/check_evidence.h, mg_check__inputs; one tree
 * diff, the policy and manifest parsed, no report read) is
 * MG_PLAN_UNCHANGED: it decides at --rev as at the policy revision.
 * Without a policy revision other than --rev nothing is compared and every
 * policy is gated.
 */
int mg_plan_all(mg_plan **out, const mg_check_options *opt, bool changed, mg_error *err);
void mg_plan_free(mg_plan *plan);

#endif
