/*
 * check --all's set of policies: see include/memgate/plan.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/manifest.h"
#include "memgate/plan.h"
#include "memgate/policy.h"
#include "check_evidence.h"
#include "check_repo.h"
#include "git.h"

struct plan_run {
	const mg_check_options *opt;
	mg_repo *repo;
	bool repo_held;            /* the checks' (check_repo.h): not freed here */
	char rev[MG_GIT_OID_HEX];
	char policy_rev[MG_GIT_OID_HEX];
	mg_repo_change *changes;   /* policy revision -> rev, renames paired */
	size_t change_count;
	bool changed;              /* --changed: only policies whose inputs changed */
	mg_plan *plan;
};

static void add_entry(mg_plan *plan, char *policy, enum mg_plan_kind kind, char *message)
{
	mg_plan_entry *e;

	plan->entries = mg_xrealloc(plan->entries, (plan->count + 1) * sizeof(*plan->entries));
	e = &plan->entries[plan->count++];
	e->policy = policy;
	e->kind = kind;
	e->message = message;
}

/* The change that touches `path` at the policy revision, or NULL. */
static const mg_repo_change *change_of(const struct plan_run *x, const char *path)
{
	size_t i;

	for (i = 0; i < x->change_count; i++)
		if (x->changes[i].old_path && !strcmp(x->changes[i].old_path, path))
			return &x->changes[i];
	return NULL;
}

/* Does the tree of `commit` have a file at `path`? */
static bool has_file(struct plan_run *x, const char *commit, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool has = mg_repo_read(&blob, x->repo, commit, path, 0, &ignored) == 0;

	mg_blob_release(&blob);
	return has;
}

/*
 * The evidence path the policy at the policy revision names (its manifest,
 * else its report), as the change leaves it (followed through a rename);
 * NULL when the policy cannot be read there.  The caller frees it.
 */
static char *evidence_of(struct plan_run *x, const char *policy)
{
	const mg_repo_change *c;
	mg_policy *p = NULL;
	mg_blob blob = { 0 };
	mg_error ignored;
	char *path = NULL;

	if (mg_repo_read(&blob, x->repo, x->policy_rev, policy, 0, &ignored) < 0 ||
	    mg_policy_parse(&p, policy, blob.data, blob.len, &ignored) < 0)
		goto done;
	path = mg_xstrdup(p->manifest ? p->manifest : p->report);
	if ((c = change_of(x, path)) && c->new_path) {
		free(path);
		path = mg_xstrdup(c->new_path);
	}
done:
	mg_policy_free(p);
	mg_blob_release(&blob);
	return path;
}

static bool is_policy_path(const char *path)
{
	const char *slash = strrchr(path, '/');

	return mg_check_is_policy_name(slash ? slash + 1 : path);
}

/*
 * A policy of the policy revision that --rev does not have.  Moved (git
 * pairs it with a file of --rev): gated at its new place, nothing to add.
 * Else retired when its evidence went with it, deleted when it stays.
 */
static void plan_gone(struct plan_run *x, const char *policy)
{
	const mg_repo_change *c = change_of(x, policy);
	char *evidence;
	mg_buf msg = MG_BUF_INIT;
	char short_rev[8];

	if (c && c->new_path && strcmp(c->new_path, policy) && is_policy_path(c->new_path))
		return;
	snprintf(short_rev, sizeof(short_rev), "%.7s", x->rev);
	evidence = evidence_of(x, policy);
	if (evidence && has_file(x, x->rev, evidence)) {
		mg_buf_printf(&msg, "the change deletes the policy '%s' but not the evidence it gates "
			      "('%s' is still at %s), which would go ungated: to retire the model, "
			      "delete its evidence with it ('git rm -r' its folder); to move it, move "
			      "the policy with its evidence; else restore the policy",
			      policy, evidence, short_rev);
		add_entry(x->plan, mg_xstrdup(policy), MG_PLAN_DELETED, mg_buf_detach(&msg, NULL));
		goto done;
	}
	if (evidence)
		mg_buf_printf(&msg, "'%s' is retired: the change deletes it with its evidence ('%s'); "
			      "reviewers, confirm that the model is retired", policy, evidence);
	else
		mg_buf_printf(&msg, "'%s' is retired: the change deletes it (it could not be read at "
			      "the policy revision, so it named no evidence); reviewers, confirm "
			      "that the model is retired", policy);
	add_entry(x->plan, mg_xstrdup(policy), MG_PLAN_RETIRED, mg_buf_detach(&msg, NULL));
done:
	free(evidence);
}

/* Does the change touch `path` (on either side)? */
static bool touched(const struct plan_run *x, const char *path)
{
	size_t i;

	for (i = 0; i < x->change_count; i++)
		if ((x->changes[i].old_path && !strcmp(x->changes[i].old_path, path)) ||
		    (x->changes[i].new_path && !strcmp(x->changes[i].new_path, path)))
			return true;
	return false;
}

/*
 * --changed: did any input of `policy` change between the policy revision
 * and --rev?  Its inputs are what a check of it reads (mg_check__inputs,
 * beside the readers): the policy of the policy revision names them, the
 * manifest at --rev (not changed, or it is gated anyway) names the rest.
 * Anything that cannot be read counts as changed (the check then says
 * what is wrong), and so does a policy whose decision reads what moves
 * without the change.
 */
static bool inputs_changed(struct plan_run *x, const char *policy)
{
	mg_check_inputs in = { 0 };
	mg_policy *p = NULL;
	mg_manifest *m = NULL;
	mg_blob blob = { 0 };
	mg_error ignored;
	bool changed = true, hit;
	size_t i;

	if (touched(x, policy))
		goto done;
	if (mg_repo_read(&blob, x->repo, x->policy_rev, policy, 0, &ignored) < 0 ||
	    mg_policy_parse(&p, policy, blob.data, blob.len, &ignored) < 0)
		goto done;
	mg_blob_release(&blob);
	if (p->manifest && (touched(x, p->manifest) ||
	    mg_repo_read(&blob, x->repo, x->rev, p->manifest, 0, &ignored) < 0 ||
	    mg_manifest_parse(&m, p->manifest, blob.data, blob.len, &ignored) < 0))
		goto done;
	mg_check__inputs(&in, p, m);
	if (in.moving)
		goto done;
	for (i = 0; i < in.path_count; i++)
		if (touched(x, in.paths[i]))
			goto done;
	if (mg_repo_changes_match(&hit, x->changes, x->change_count, in.specs, in.spec_count,
				  &ignored) < 0 || hit)
		goto done;
	changed = false;
done:
	mg_check__inputs_free(&in);
	mg_manifest_free(m);
	mg_policy_free(p);
	mg_blob_release(&blob);
	return changed;
}

/* A policy at both revisions: gated, or (--changed) unchanged. */
static void plan_kept(struct plan_run *x, const char *policy)
{
	bool gate = !x->changed || inputs_changed(x, policy);

	add_entry(x->plan, mg_xstrdup(policy), gate ? MG_PLAN_GATE : MG_PLAN_UNCHANGED, NULL);
}

/* Both sorted lists, each path once, classified. */
static void plan_merge(struct plan_run *x, char **base, size_t nb, char **head, size_t nh)
{
	size_t i = 0, j = 0;
	int c;

	while (i < nb || j < nh) {
		c = i == nb ? 1 : j == nh ? -1 : strcmp(base[i], head[j]);
		if (c < 0)
			plan_gone(x, base[i++]);
		else if (c > 0)
			add_entry(x->plan, mg_xstrdup(head[j++]), MG_PLAN_GATE, NULL);
		else {
			plan_kept(x, base[i++]);
			j++;
		}
	}
}

static void free_list(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int plan_revisions(struct plan_run *x, mg_error *err)
{
	const mg_check_options *opt = x->opt;
	char **base = NULL, **head = NULL;
	size_t nb = 0, nh = 0;
	int error;

	if ((error = mg_repo_list(&base, &nb, x->repo, x->policy_rev, mg_check_is_policy_name,
				  err)) < 0)
		goto done;
	if (!strcmp(x->rev, x->policy_rev)) {
		x->changed = false;   /* nothing to compare with: gate them all */
		plan_merge(x, base, nb, base, nb);
		goto done;
	}
	if ((error = mg_repo_list(&head, &nh, x->repo, x->rev, mg_check_is_policy_name, err)) < 0)
		goto done;
	if (!nb && !nh) {
		error = mg_error_set(err, NULL, 0, 0, "--all: no policy file (.memgate.yml or "
				     "*.memgate.yml) is committed at '%s' (--policy-rev) nor at '%s'",
				     opt->policy_rev, opt->rev ? opt->rev : "HEAD");
		goto done;
	}
	if ((error = mg_repo_diff(&x->changes, &x->change_count, x->repo, x->policy_rev,
				  x->rev, err)) < 0)
		goto done;
	plan_merge(x, base, nb, head, nh);
done:
	free_list(base, nb);
	free_list(head, nh);
	return error;
}

int mg_plan_all(mg_plan **out, const mg_check_options *opt, bool changed, mg_error *err)
{
	struct plan_run x = { 0 };
	const char *rev = opt->worktree ? "HEAD" : opt->rev ? opt->rev : "HEAD";
	int error;

	*out = NULL;
	x.opt = opt;
	x.changed = changed;
	x.plan = mg_xcalloc(1, sizeof(*x.plan));
	if ((error = mg_check__open_repo(&x.repo, &x.repo_held, opt->dir, err)) < 0)
		goto done;
	if ((error = mg_repo_resolve(x.rev, x.repo, rev, err)) < 0)
		goto done;
	if (opt->policy_rev && !opt->worktree)
		error = mg_repo_resolve(x.policy_rev, x.repo, opt->policy_rev, err);
	else
		memcpy(x.policy_rev, x.rev, sizeof(x.rev));
	if (error < 0 || (error = plan_revisions(&x, err)) < 0)
		goto done;
	if (!x.plan->count)
		error = mg_error_set(err, NULL, 0, 0, "--all: no policy file (.memgate.yml or "
				     "*.memgate.yml) is committed at '%s'",
				     opt->policy_rev && !opt->worktree ? opt->policy_rev : rev);
done:
	mg_repo_changes_free(x.changes, x.change_count);
	if (!x.repo_held)
		mg_repo_free(x.repo);
	if (error < 0) {
		mg_plan_free(x.plan);
		return error;
	}
	*out = x.plan;
	return MG_OK;
}

void mg_plan_free(mg_plan *plan)
{
	size_t i;

	if (!plan)
		return;
	for (i = 0; i < plan->count; i++) {
		free(plan->entries[i].policy);
		free(plan->entries[i].message);
	}
	free(plan->entries);
	free(plan);
}
