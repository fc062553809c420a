#ifndef MEMGATE_CHECK_POLICY_H
#define MEMGATE_CHECK_POLICY_H
/*
 * The policy of a run (check_policy.c): finding it, reading it at the
 * policy revision and at --rev, adopting, following or repairing it.
 */
#include "memgate/error.h"
#include "check_run.h"

/*
 * Read the policy at --policy-rev into res->policy; when that is another
 * commit than --rev, also the policy at --rev (res->head_policy, unless it
 * is the same blob) and what it changes.  0 or MG_ERROR.
 */
int mg_check__load_policies(struct run *run, mg_error *err);

#endif
