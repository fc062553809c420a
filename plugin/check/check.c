/*
 * memgate check: gather the inputs (check_policy.c, check_evidence.c),
 * verify them, decide with the waivers in force (waivers.c), compare with
 * the base.  See include/memgate/check.h.
 */
/* realpath() is an X/Open (XSI) function in POSIX.1-2008: ask for it by its
 * standard's name (every Unix has it), not by _DEFAULT_SOURCE. */
#define _XOPEN_SOURCE 700
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "date.h"
#include "digest.h"
#include "format.h"
#include "git.h"
#include "history_read.h"
#include "memgate/insight.h"
#include "check_run.h"
#include "check_evidence.h"
#include "check_policy.h"
#include "check_repo.h"
#include "findings.h"
#include "policy_diff.h"
#include "waivers.h"

/* The public sizes of check.h are the git layer's and the digest's. */
_Static_assert(MG_CHECK_OID_SIZE == MG_GIT_OID_HEX, "commit and blob ids");
_Static_assert(MG_CHECK_SHA256_SIZE == MG_DIGEST_HEX_SIZE, "SHA-256 in hex");
_Static_assert(MG_GIT_LFS_OID_HEX == MG_DIGEST_HEX_SIZE, "an LFS oid is a SHA-256");

/* Between mg_check_begin and mg_check_end: the repository of the first
 * run, kept open for the next runs on the same -C DIR (check --all). */
static struct {
	bool on;
	char *dir;
	mg_repo *repo;
} held;

static void report_notes(mg_check_result *res)
{
	const mg_decision *d = res->decision;

	if (res->worktree)
		mg_check__add_warning(res, "inputs were read from the working tree (--worktree), "
				      "not from a commit");
	if (d->sensitivity_evaluated && !d->stability_tested)
		mg_check__add_warning(res, "no sensitivity scenarios: stability of the choice was "
				      "not tested");
}

/* res->today: --today (checked), else the clock's date in UTC. */
static int set_today(mg_check_result *res, const char *today, mg_error *err)
{
	time_t now;
	struct tm tm;
	char why[MG_DATE_WHY];
	int ymd;

	if (today) {
		if (mg_date_parse(&ymd, today, strlen(today), why) < 0)
			return mg_error_set(err, NULL, 0, 0, "--today: %s", why);
		snprintf(res->today, sizeof(res->today), "%s", today);
		res->today_given = true;
		return MG_OK;
	}
	now = time(NULL);
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    !strftime(res->today, sizeof(res->today), "%Y-%m-%d", &tm))
		return mg_error_set(err, NULL, 0, 0, "cannot read the clock for today's date "
				    "(give it with --today YYYY-MM-DD)");
	return MG_OK;
}

/* A warning for each check of the selected candidate whose threshold lies
 * inside its runs' band: a re-run could flip it. */
static void warn_noise(mg_check_result *res)
{
	const mg_decision *d = res->decision;
	const mg_insight *in = res->insight;
	mg_buf name = MG_BUF_INIT;
	size_t i;
	int t;

	if (!d->selected || !in)
		return;
	for (i = 0; i < d->base.count; i++)
		if (d->base.evaluations[i].name == d->selected)
			break;
	if (i == d->base.count || !in->noise[i].within)
		return;
	mg_format_name(&name, d->selected);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (in->noise[i].within & (1u << t))
			mg_check__add_warning(res, "the selected candidate %s is within measurement "
					      "noise on %s: some of its runs pass the threshold and "
					      "some fail (evidence.noise: %s)",
					      name.ptr, mg_threshold_name((enum mg_threshold)t),
					      mg_noise_mode_name(res->policy->rules.noise));
	mg_buf_free(&name);
}

static int compare_base(struct run *run, mg_error *err);

/*
 * regression: the base revision's evidence and the candidate its numbers
 * select (compare_base, run before this decision).  regression.history
 * compares with the medians of the versions its walk found; when it found
 * none (a shallow clone, the bound), or was not read (the report is the
 * base's own), with the base's own report, the latest version of all.
 * Without a base to compare with, a warning says that nothing was compared.
 */
static void regression_base(mg_regression *rg, struct run *run)
{
	mg_check_result *res = run->res;
	const mg_check_result *b = res->base ? res->base->result : NULL;
	const mg_history *h = res->history;

	if (run->base_run || !mg_regression_active(rg))
		return;
	if (rg->history && h && h->used) {
		rg->base = &h->evidence;   /* regression.history: the medians */
		rg->base_selected = b ? b->compare_selected : NULL;
	} else if (b && b->report) {
		if (rg->history && h)
			mg_check__add_warning(res, "regression: regression.history found no version "
				    "of '%s' on the first-parent line of %.7s%s: compared with the "
				    "base's own report instead", h->path, h->base,
				    h->shallow ? " (the clone is shallow)" : "");
		rg->base = &b->report->evidence;
		rg->base_selected = b->compare_selected;
	} else if (res->base && res->adopted) {
		/* adoption: the base has no policy, so no evidence it gates */
		mg_check__add_note(res, "regression: not compared: the change adopts memgate, so "
				   "the base %.7s has nothing to compare with", res->base->rev);
	} else if (res->base) {
		mg_check__add_warning(res, "regression: nothing compared: the base %.7s does not "
				      "decide: %s", res->base->rev,
				      res->base->error ? res->base->error : "no report");
	} else if (!run->opt->base && !run->opt->policy_rev) {
		/* a local check, a release tag: no base can exist here */
		mg_check__add_note(res, "regression: not compared: no base revision (give --base "
				   "REV or --policy-rev REV to compare with one)");
	}
}

static bool same_input(const mg_input_ref *a, const mg_input_ref *b)
{
	return a->read == b->read && (!a->read || !strcmp(a->blob, b->blob));
}

/* regression.history: the versions no one gated, skipped, and why
 * ("history: 8 versions, 3 skipped: 2 not pinned by the manifest, 1
 * unsigned"); the unreadable ones have their own warning. */
static void note_skipped(mg_check_result *res, const mg_history *h)
{
	size_t total = mg_history_skipped_total(h), k;
	mg_buf why = MG_BUF_INIT;

	if (total == h->skipped)
		return;
	for (k = 0; k < MG_HISTORY_SKIP_COUNT; k++)
		if (h->skipped_for[k])
			mg_buf_printf(&why, "%s%zu %s", why.len ? ", " : "", h->skipped_for[k],
				      mg_history_skip_words((enum mg_history_skip)k));
	mg_check__add_note(res, "regression.history: %zu version%s of '%s', %zu skipped: %s",
			   h->used + total, h->used + total == 1 ? "" : "s", h->path, total,
			   why.ptr);
	mg_buf_free(&why);
}

/*
 * regression.history: the medians of the base's report over its last
 * versions on the base's first-parent line (history.c), once the base has
 * decided (its report's path); what the walk could not reach is said.  A
 * change that leaves the base's report as it is compares with that report
 * (nothing can have regressed): no history is read, and none need be
 * fetched.
 */
static int read_history(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_regression *rg = &res->policy->rules.regression;
	const mg_check_result *b = res->base ? res->base->result : NULL;
	size_t bound = rg->history_max_commits ? (size_t)rg->history_max_commits
					       : MG_HISTORY_DEFAULT_MAX_COMMITS;
	mg_check_history_gate *gate = NULL;
	const mg_history *h;
	int error;

	if (run->base_run || !rg->history || !b || !b->report_ref.path)
		return MG_OK;
	if (same_input(&res->report_ref, &b->report_ref)) {
		mg_check__add_note(res, "regression.history: not read: '%s' is the base's own "
				   "(unchanged since %.7s), compared with the base's report",
				   b->report_ref.path, res->base->rev);
		return MG_OK;
	}
	if (mg_check__history_gate(&gate, run, err) < 0)
		return MG_ERROR;
	error = mg_history__read(&res->history, run->repo, res->base->rev, b->report_ref.path,
				 rg->history, bound, run->max_bytes, mg_check__history_accept, gate,
				 err);
	mg_check__history_gate_free(gate);
	if (error < 0)
		return MG_ERROR;
	h = res->history;
	note_skipped(res, h);
	if (h->skipped)
		mg_check__add_warning(res, "regression.history: %zu version%s of '%s' skipped: not a "
			    "report memgate reads (the first: %s)", h->skipped,
			    h->skipped == 1 ? "" : "s", h->path, h->skipped_why);
	if (h->bounded)
		mg_check__add_warning(res, "regression.history: the median is over %zu of the last %d "
			    "versions of '%s': the %zu commit%s looked at on the base's "
			    "first-parent line hold%s no more (regression.history_max_commits: "
			    "%zu); raise it to look further", h->used, h->asked, h->path,
			    h->visited, h->visited == 1 ? "" : "s", h->visited == 1 ? "s" : "",
			    h->max_commits);
	else if (h->shallow)
		mg_check__add_warning(res, "regression.history: the median is over %zu of the last %d "
			    "versions of '%s': the clone is shallow and the base's history "
			    "ends after %zu commit%s; fetch more of it (git fetch --depth=%zu "
			    "origin %s, or actions/checkout with fetch-depth: 0)", h->used,
			    h->asked, h->path, h->visited, h->visited == 1 ? "" : "s",
			    h->max_commits + 1, h->base);
	else if (h->used < (size_t)h->asked)
		mg_check__add_note(res, "regression.history: the median is over %zu of the last %d "
			 "versions of '%s': the base's first-parent line holds %zu", h->used,
			 h->asked, h->path, h->used);
	return MG_OK;
}

/* Version v of the report `path` parsed, or NULL when it cannot be read as
 * one (too large, a Git LFS pointer, not a report): such a step is passed. */
static mg_report *read_report_version(struct run *run, const mg_repo_version *v,
				      const char *path)
{
	mg_blob blob = { 0 };
	mg_report *r = NULL;
	mg_error e;

	mg_error_clear(&e);
	if (mg_repo_read_blob(&blob, run->repo, v->blob, path, v->commit, run->max_bytes, &e) == 0)
		mg_report_parse(&r, path, blob.data, blob.len, &e);
	mg_blob_release(&blob);
	return r;
}

/* The first candidate of ev named `name`, or NULL. */
static const mg_candidate *candidate_named(const mg_evidence *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name && !strcmp(ev->candidates[i].name, name))
			return &ev->candidates[i];
	return NULL;
}

/* Marks the regression waivers whose step the report took from `older` to
 * `newer` at commit `at`: beyond the policy's allowance, within up_to_pct. */
static void mark_spent(mg_check_result *res, const mg_evidence *older, const mg_evidence *newer,
		       const char *at)
{
	const mg_policy *p = res->policy;
	const mg_candidate *o, *n;
	size_t i;
	double pct;

	for (i = 0; i < p->waiver_count; i++) {
		const mg_policy_waiver *v = &p->waivers[i];
		mg_waiver_spent *s = &res->waiver_spent[i];

		if (!v->up_to_set || s->spent || !(o = candidate_named(older, v->candidate)) ||
		    !(n = candidate_named(newer, v->candidate)) ||
		    !mg_regression_step(&pct, &p->rules.regression, v->reason, o, n) ||
		    !(pct <= v->up_to_pct))
			continue;
		s->spent = true;
		s->pct = pct;
		snprintf(s->commit, sizeof(s->commit), "%s", at);
	}
}

/*
 * A regression's waiver is spent once the base's report took the step it
 * accepts: among the last MG_WAIVER_SPENT_VERSIONS versions of the base's
 * report on its first-parent line, one changed the waiver's candidate
 * beyond the policy's allowance and within up_to_pct (the newest such step
 * is named).  Read only with such a waiver, a base and its report.
 */
static int find_spent(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	const mg_check_result *b = res->base ? res->base->result : NULL;
	mg_repo_version *list = NULL;
	mg_repo_walk how;
	mg_report *newer = NULL, *older = NULL;
	size_t n = 0, i, k;
	bool any = false;
	int error;

	if (run->base_run || !b || !b->report_ref.path || res->waiver_spent ||
	    !mg_regression_active(&p->rules.regression))
		return MG_OK;
	for (i = 0; i < p->waiver_count; i++)
		any = any || p->waivers[i].up_to_set;
	if (!any)
		return MG_OK;
	if ((error = mg_repo_path_versions(&list, &n, &how, run->repo, res->base->rev,
					   b->report_ref.path, MG_WAIVER_SPENT_VERSIONS,
					   MG_HISTORY_DEFAULT_MAX_COMMITS, err)) < 0)
		return error;
	res->waiver_spent = mg_xcalloc(p->waiver_count, sizeof(*res->waiver_spent));
	for (k = 0; k + 1 < n; k++) {
		newer = k ? older : read_report_version(run, &list[0], b->report_ref.path);
		older = read_report_version(run, &list[k + 1], b->report_ref.path);
		if (newer && older)
			mark_spent(res, &older->evidence, &newer->evidence, list[k].commit);
		mg_report_free(newer);
	}
	mg_report_free(n > 1 ? older : NULL);
	free(list);
	return MG_OK;
}

/* mg_decide with the waivers in force today. */
static int decide_with_waivers(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_rules rules = res->policy->rules;
	mg_approved approved;
	mg_waiver *active;
	size_t n;
	int error;

	regression_base(&rules.regression, run);
	active = mg_waivers__in_force(&n, res);
	rules.waivers = active;
	rules.waiver_count = n;
	approved.decision = res->approved_decision;
	approved.selected = res->approved_selected;
	error = mg_decide(&res->decision, &rules, &res->report->evidence, run->pre,
			  &approved, 0, err);
	if (error == MG_OK)
		mg_waivers__judge(res);
	/* the --base comparison and the change's own policy (decide_proposed)
	 * give the decision only: no tipping points */
	if (error == MG_OK && !run->base_run && !run->proposed_run &&
	    (error = mg_insight_compute(&res->insight, &rules, &res->report->evidence, run->pre,
					res->decision, err)) == MG_OK)
		warn_noise(res);
	free(active);
	return error;
}

/*
 * A base run: res->compare_selected, the candidate the base's numbers
 * select, its own evidence's freshness aside (a measured commit a shallow
 * clone lacks, or evidence.inputs changed on the base since): the
 * regression compares the candidate the base ships, whatever that
 * freshness.  Decides without those issues when one is raised; the base's
 * decision itself is taken after, with them.
 */
static int select_on_numbers(struct run *run, mg_error *err)
{
	static const enum mg_issue freshness[] = { MG_ISSUE_MEASURED_COMMIT_MISSING,
		MG_ISSUE_MEASURED_COMMIT_UNKNOWN, MG_ISSUE_EVIDENCE_STALE };
	mg_check_result *res = run->res;
	bool saved[MG_ISSUE_COUNT], raised = false;
	size_t i;
	int error;

	for (i = 0; i < sizeof(freshness) / sizeof(freshness[0]); i++)
		raised |= run->pre[freshness[i]];
	if (!run->base_run || !raised)
		return MG_OK;
	memcpy(saved, run->pre, sizeof(saved));
	for (i = 0; i < sizeof(freshness) / sizeof(freshness[0]); i++)
		run->pre[freshness[i]] = false;
	error = decide_with_waivers(run, err);
	memcpy(run->pre, saved, sizeof(saved));
	if (error == MG_OK) {
		res->compare_selected = res->decision->selected;
		mg_decision_free(res->decision);
		res->decision = NULL;
	}
	return error;
}

/* The core refuses only sensitivity too large to evaluate: point at it. */
static int blame_sensitivity(const mg_policy *p, mg_error *err)
{
	char msg[sizeof(err->message)];
	mg_pos pos = { 0, 0 };

	if (p->rules.grid_count)
		pos = p->grid_pos[0];
	else if (p->rules.stricter_count)
		pos = p->stricter_pos[0];
	snprintf(msg, sizeof(msg), "%s", err->message);
	return mg_error_at(err, p->path, pos, "%s", msg);
}

/* Decide with the repository open and the revisions resolved. */
static int decide(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if ((error = mg_check__load_policies(run, err)) < 0)
		return error;
	mg_policy_diff__warn_loose_stricter(res);
	if ((error = mg_check__load_evidence(run, err)) < 0)
		return error;
	if ((error = mg_check__check_measured(run, err)) < 0 ||
	    (error = mg_check__check_custody(run, err)) < 0)
		return error;
	/* regression: compares with the base, so the base decides first */
	if (!run->base_run && mg_regression_active(&res->policy->rules.regression) &&
	    (error = compare_base(run, err)) < 0)
		return error;
	if ((error = read_history(run, err)) < 0 || (error = find_spent(run, err)) < 0)
		return error;
	if ((error = select_on_numbers(run, err)) < 0 ||
	    (error = decide_with_waivers(run, err)) < 0)
		return blame_sensitivity(res->policy, err);
	if (run->base_run && !res->compare_selected)
		res->compare_selected = res->decision->selected;
	memcpy(res->fail_on, opt->fail_on_set ? opt->fail_on : res->policy->fail_on,
	       sizeof(res->fail_on));
	report_notes(res);
	res->passed = !res->fail_on[res->decision->verdict];
	return MG_OK;
}

/* The base's measured commit is not in the repository (a shallow clone):
 * its own decision is not known here; say what is compared instead. */
static void warn_base_unknown(mg_check_result *res, const mg_check_base *b)
{
	const mg_check_result *br = b->result;
	mg_buf name = MG_BUF_INIT;

	if (!br->decision->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN])
		return;
	if (br->compare_selected)
		mg_format_name(&name, br->compare_selected);
	else
		mg_buf_puts(&name, "no candidate");
	mg_check__add_warning(res, "the base %.7s: its measured commit %.12s is not in this "
			      "repository%s: the base's own decision is not known here; its "
			      "candidates are compared as measured (its numbers select %s); "
			      "fetch it (git fetch origin %s)", b->rev,
			      br->manifest->measured_commit,
			      br->measured_shallow ? " (a shallow clone)" : "", name.ptr,
			      br->manifest->measured_commit);
	mg_buf_free(&name);
}

/*
 * --base (default: --policy-rev when given): decide the evidence at the
 * base commit with the policy that decided here, for the comparison.  The
 * base failing to decide (no evidence yet, a broken report) is recorded,
 * not an error; a --base that names no commit is.
 */
static int compare_base(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	const char *want = opt->base ? opt->base : opt->policy_rev;
	mg_check_options sub = *opt;
	struct run base = { 0 };
	mg_check_base *b;
	mg_error berr;
	char msg[sizeof(err->message)];

	if (!want || run->base_compared)
		return MG_OK;
	run->base_compared = true;
	b = mg_xcalloc(1, sizeof(*b));
	if (mg_repo_resolve(b->rev, run->repo, want, err) < 0) {
		free(b);
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_set(err, NULL, 0, 0, "--base: %s", msg);
	}
	if (!strcmp(b->rev, res->rev)) {
		free(b);
		return MG_OK;   /* the same commit: nothing to compare */
	}
	sub.rev = b->rev;
	/* --worktree: the base's own commit, its policy included (the one that
	 * decided here is in no commit) */
	sub.worktree = false;
	sub.policy_rev = res->policy_ref.commit[0] ? res->policy_ref.commit
		       : res->worktree ? b->rev : res->policy_rev;
	if (res->policy_ref.path) {
		/* where the deciding policy was read: a moved policy's old place */
		sub.policy_path = res->policy_ref.path;
		sub.policy_from_root = true;
	}
	sub.base = NULL;
	sub.require_approved = false;
	base.opt = &sub;
	base.repo = run->repo;
	base.max_bytes = run->max_bytes;
	base.base_run = true;
	memcpy(base.head, run->head, sizeof(base.head));
	base.res = mg_xcalloc(1, sizeof(*base.res));
	mg_error_clear(&berr);
	if (mg_check__resolve_revs(&base, &berr) < 0 || set_today(base.res, sub.today, &berr) < 0 ||
	    decide(&base, &berr) < 0) {
		mg_error_format(&berr, msg, sizeof(msg));
		b->error = mg_xstrdup(msg);
		mg_check_result_free(base.res);
	} else {
		b->result = base.res;
		warn_base_unknown(res, b);
	}
	mg_check__run_release(&base);
	res->base = b;
	return MG_OK;
}

/* Does the change tighten or change a key of the policy (a loosening
 * alone is decided by the base's policy, as every change)? */
static bool tightens_policy(const mg_check_result *res)
{
	size_t i;

	for (i = 0; i < res->change_count; i++)
		if (res->changes[i].effect == MG_CHANGE_TIGHTENS ||
		    res->changes[i].effect == MG_CHANGE_ALTERS)
			return true;
	return false;
}

/*
 * Where the change's own policy reads its allowed signers: the base's file
 * at the same path when the base has one, so that a signer the change adds
 * is not trusted before it is merged; else the change's own file, which
 * can only make this decision pass, never the change (the base's policy
 * decides that).
 */
static const char *proposed_trust(struct run *run)
{
	const mg_policy *p = run->res->head_policy;
	mg_blob blob = { 0 };
	mg_error ignored;
	bool base_has;

	if (!p->provenance_set || !p->allowed_signers)
		return NULL;
	base_has = mg_repo_read(&blob, run->repo, run->res->policy_rev, p->allowed_signers,
				run->max_bytes, &ignored) == 0;
	mg_blob_release(&blob);
	return base_has ? run->res->policy_rev : NULL;
}

/*
 * The change alters the policy and the policy that decides passes: decide
 * the same evidence under the policy the change proposes, which decides
 * every later change once merged (its gate.fail_on, or --fail-on).  When
 * that fails, or cannot decide, the change fails too
 * (policy_change_fails_its_evidence): merged, it would lock the branch
 * until someone fixes the evidence.  Not run when the policies are equal,
 * the change only loosens, or adopts (no base policy).
 */
static void decide_proposed(struct run *run)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	mg_check_options sub = *opt;
	struct run head = { 0 };
	mg_check_proposed *p;
	mg_error herr;
	char msg[sizeof(herr.message) + sizeof(herr.file) + 32];

	if (run->base_run || run->proposed_run || res->worktree || !res->passed ||
	    !res->head_policy || !tightens_policy(res))
		return;
	sub.rev = res->rev;
	sub.policy_rev = res->rev;
	sub.policy_path = run->policy_path;
	sub.policy_from_root = true;
	sub.base = opt->base ? opt->base : opt->policy_rev;   /* regression: compares */
	head.opt = &sub;
	head.repo = run->repo;
	head.max_bytes = run->max_bytes;
	head.proposed_run = true;
	head.trust_rev = proposed_trust(run);
	memcpy(head.head, run->head, sizeof(head.head));
	head.res = mg_xcalloc(1, sizeof(*head.res));
	p = mg_xcalloc(1, sizeof(*p));
	mg_error_clear(&herr);
	if (mg_check__resolve_revs(&head, &herr) < 0 || set_today(head.res, sub.today, &herr) < 0 ||
	    decide(&head, &herr) < 0) {
		mg_error_format(&herr, msg, sizeof(msg));
		p->error = mg_xstrdup(msg);
		mg_check_result_free(head.res);
	} else {
		p->result = head.res;
	}
	mg_check__run_release(&head);
	p->fails = !p->result || !p->result->passed;
	if (p->fails)
		res->passed = false;
	res->proposed = p;
}

/* res->evidence_unchanged: see check.h. */
static void judge_unchanged(mg_check_result *res)
{
	const mg_check_result *b = res->base ? res->base->result : NULL;

	res->evidence_unchanged = b && !res->change_count &&
		same_input(&res->report_ref, &b->report_ref) &&
		same_input(&res->manifest_ref, &b->manifest_ref);
}

/* Fill res->root and res->cwd_prefix (check.h); failures leave them NULL. */
static void locate_cwd(struct run *run)
{
	mg_check_result *res = run->res;
	const char *workdir = mg_repo_workdir(run->repo);
	char *cwd = realpath(".", NULL);
	size_t n;

	if (workdir)
		res->root = realpath(workdir, NULL);
	if (!res->root || !cwd)
		goto done;
	n = strlen(res->root);
	if (!strcmp(cwd, res->root)) {
		res->cwd_prefix = mg_xstrdup("");
	} else if (!strncmp(cwd, res->root, n) && cwd[n] == '/') {
		mg_buf b = MG_BUF_INIT;

		mg_buf_printf(&b, "%s/", cwd + n + 1);
		res->cwd_prefix = mg_buf_detach(&b, NULL);
	}
done:
	free(cwd);
}

int mg_check__open_repo(mg_repo **out, bool *held_out, const char *dir, mg_error *err)
{
	const char *key = dir ? dir : ".";
	int error;

	*held_out = false;
	if (held.repo && !strcmp(held.dir, key)) {
		*out = held.repo;
		*held_out = true;
		return MG_OK;
	}
	if ((error = mg_repo_open(out, dir, err)) < 0)
		return error;
	if (held.on && !held.repo) {
		held.repo = *out;
		held.dir = mg_xstrdup(key);
		*held_out = true;
	}
	return MG_OK;
}

static int run_check(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if ((error = mg_check__open_repo(&run->repo, &run->repo_held, opt->dir, err)) < 0)
		return error;
	locate_cwd(run);
	if ((error = mg_check__resolve_revs(run, err)) < 0)
		return error;
	if ((error = set_today(res, opt->today, err)) < 0)
		return error;
	if (!res->worktree && mg_repo_resolve(run->head, run->repo, "HEAD", err) < 0)
		run->head[0] = '\0';
	mg_error_clear(err);
	if ((error = decide(run, err)) < 0)
		return error;
	if ((error = compare_base(run, err)) < 0)
		return error;
	decide_proposed(run);
	judge_unchanged(res);
	return MG_OK;
}

int mg_check_begin(mg_error *err)
{
	int error;

	if ((error = mg_git_hold(err)) == MG_OK)
		held.on = true;
	return error;
}

void mg_check_end(void)
{
	mg_repo_free(held.repo);
	free(held.dir);
	held.repo = NULL;
	held.dir = NULL;
	held.on = false;
	mg_git_release();
}

int mg_check_run(mg_check_result **out, const mg_check_options *opt, mg_error *err)
{
	struct run run = { 0 };
	int error;

	*out = NULL;
	run.opt = opt;
	run.res = mg_xcalloc(1, sizeof(*run.res));
	run.res->worktree = opt->worktree;
	run.res->feasible_sets = opt->record_feasible_sets;
	run.max_bytes = opt->max_input_bytes ? opt->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	error = run_check(&run, err);
	if (!run.repo_held)
		mg_repo_free(run.repo);
	mg_check__run_release(&run);
	if (error < 0) {
		mg_check_result_free(run.res);
		return error;
	}
	if (!opt->no_findings || (opt->reads_findings && opt->reads_findings(run.res)))
		mg_findings_fill(run.res);   /* once, for every renderer (findings.h) */
	*out = run.res;
	return MG_OK;
}
