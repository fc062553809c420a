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
 * Plain data: the entries are in byte order of their paths.
 */
#include <stdbool.h>
#include <stddef.h>
#include "check.h"
#include "error.h"

enum mg_plan_kind {
	MG_PLAN_GATE,      /* gated: mg_check_run with this policy */
	MG_PLAN_RETIRED,   /* the change deletes it with its evidence: a warning */
	MG_PLAN_DELETED,   /* the change deletes it, not its evidence: exit 2 */
	MG_PLAN_UNCHANGED  /* --changed: none of its inputs changed: listed, not gated */
};

typedef struct mg_plan_entry {
	char *policy;              /* repository path (at the policy revision
				      when retired or deleted) */
	enum mg_plan_kind kind;
	char *message;             /* RETIRED, DELETED: what to tell, raw text
				      (paths from the repository: escape it);
				      NULL when gated */
} mg_plan_entry;

typedef struct mg_plan {
	mg_plan_entry *entries;
	size_t count;
} mg_plan;

/*
 * Plan check --all for `opt` (dir, rev, policy_rev, worktree): the policy
 * files at the policy revision, and with a policy revision other than
 * --rev those at --rev too, classified as above.  A revision with no
 * policy at either is MG_ERROR (exit 2) with a message naming both.  *out
 * is the caller's: mg_plan_free.
 *
 * With `changed` (check --all --changed), a policy of both revisions none
 * of whose inputs changed between them (its policy, the manifest or report
 * it names, the manifest's report and approved result: one tree diff, the
 * policy and manifest parsed, no report read) is MG_PLAN_UNCHANGED.
 * Without a policy revision other than --rev nothing is compared and every
 * policy is gated.
 */
int mg_plan_all(mg_plan **out, const mg_check_options *opt, bool changed, mg_error *err);
void mg_plan_free(mg_plan *plan);

#endif
