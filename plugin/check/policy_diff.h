#ifndef MEMGATE_POLICY_DIFF_H
#define MEMGATE_POLICY_DIFF_H
/*
 * The policy diff (policy_diff.c): what the policy at --rev changes from
 * the one that decides, key by key, and which way each change moves the
 * gate (res->changes).
 */
#include "memgate/check.h"
#include "check_run.h"

/* Compare the policy that decides (base) with the one the change proposes
 * (head), adding to run->res->changes. */
void mg_policy_diff__compare(struct run *run, const mg_policy *base, const mg_policy *head);

/* The same for every key of the policy's key table (mg_policy_keys), in
 * its order: all of the above but the allowed-signers file's content. */
void mg_policy_diff__keys(mg_check_result *res, const mg_policy *base, const mg_policy *head);

/* A warning for each sensitivity.stricter entry that loosens the base budget. */
void mg_policy_diff__warn_loose_stricter(mg_check_result *res);

#endif
