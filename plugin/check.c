/*
 * memgate check: gather the inputs, verify them, decide.
 * See include/memgate/check.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/digest.h"
#include "memgate/git.h"
#include "memgate/record.h"

#define DEFAULT_POLICY ".memgate.yml"

/* The state of one run: the repository, the commits and the result. */
struct run {
	const mg_check_options *opt;
	mg_repo *repo;
	mg_check_result *res;
	size_t max_bytes;
	bool pre[MG_ISSUE_COUNT];
	char head[65];          /* HEAD commit, "" when unborn or with --worktree */
};

static void add_warning(mg_check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning(mg_check_result *res, const char *fmt, ...)
{
	mg_buf b = MG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	res->warnings = mg_xrealloc(res->warnings,
				    (res->warning_count + 1) * sizeof(*res->warnings));
	res->warnings[res->warning_count++] = mg_buf_detach(&b, NULL);
}

/* The 7-digit abbreviation of a commit id, in a caller's buffer (two may
 * appear in one message). */
struct short_id {
	char hex[8];
};

static struct short_id short_id(const char *hex)
{
	struct short_id s;

	snprintf(s.hex, sizeof(s.hex), "%.7s", hex);
	return s;
}

/* Text inputs (YAML) must not hold NUL bytes; JSON is checked by its parser. */
static int check_text(const mg_blob *blob, const char *path, mg_error *err)
{
	const char *nul = memchr(blob->data, '\0', blob->len);
	int line = 1, col = 1;
	const char *p;

	if (!nul)
		return MG_OK;
	for (p = blob->data; p < nul; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return mg_error_set(err, path, line, col,
			    "contains a NUL byte: not a text file");
}

/*
 * Warn when the working-tree copy of `path` differs from HEAD's (an
 * uncommitted edit).  `oid` is the blob just read at `commit`, reused when
 * that commit is HEAD.  Failures only mean there is nothing to warn about.
 */
static void warn_uncommitted(struct run *run, const char *path, const char *commit,
			     const char *oid)
{
	mg_blob head = { 0 };
	bool differs = false;
	mg_error ignored;

	if (!run->head[0])
		return;
	if (strcmp(run->head, commit)) {
		if (mg_repo_read(&head, run->repo, run->head, path, run->max_bytes, &ignored) < 0)
			return;
		oid = head.oid;
	}
	if (mg_repo_worktree_differs(&differs, run->repo, path, oid, run->max_bytes,
				     &ignored) == 0 && differs)
		add_warning(run->res, "'%s' has uncommitted changes in the working tree; "
			    "the decision uses the version committed at %s", path,
			    short_id(commit).hex);
	mg_blob_release(&head);
}

/*
 * Read one input at `commit` (or from the working tree), filling `ref`.
 * `from`/`pos` say where the path was named (the policy's manifest: key, the
 * manifest's source.path), so that a refusal points at that line.
 */
static int read_input(mg_blob *blob, struct run *run, mg_input_ref *ref,
		      const char *commit, const char *path, const char *from,
		      mg_pos pos, mg_error *err)
{
	char msg[sizeof(err->message)];
	int error;

	if (mg_manifest_check_path(path, err) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, from, pos, "invalid path '%s': %s", path, msg);
	}
	if (run->res->worktree)
		error = mg_repo_read_worktree(blob, run->repo, path, run->max_bytes, err);
	else
		error = mg_repo_read(blob, run->repo, commit, path, run->max_bytes, err);
	if (error < 0) {
		if (from && !err->file[0]) {
			snprintf(msg, sizeof(msg), "%s", err->message);
			mg_error_at(err, from, pos, "%s", msg);
		}
		return error;
	}
	free(ref->path);
	ref->path = mg_xstrdup(path);
	ref->read = true;
	snprintf(ref->blob, sizeof(ref->blob), "%s", blob->oid);
	snprintf(ref->commit, sizeof(ref->commit), "%s", run->res->worktree ? "" : commit);
	if (!run->res->worktree)
		warn_uncommitted(run, path, commit, blob->oid);
	return MG_OK;
}

/* A report must be the real content, not a Git LFS pointer. */
static int refuse_lfs(const mg_blob *blob, const char *path, const char *commit,
		      mg_error *err)
{
	char oid[65];
	unsigned long long size;

	if (!mg_blob_is_lfs_pointer(blob->data, blob->len, oid, &size))
		return MG_OK;
	return mg_error_set(err, path, 0, 0,
			    "is a Git LFS pointer (%llu bytes, oid sha256:%.12s...), not the report, at %s; "
			    "commit the real file or run 'git lfs pull' (actions/checkout: lfs: true)",
			    size, oid, *commit ? short_id(commit).hex : "the working tree");
}

/* Resolve one revision option; the message names the option it came from
 * ("--policy-rev: unknown revision 'deadbeef'"). */
static int resolve_option(char out[65], mg_repo *repo, const char *option, const char *rev,
			  mg_error *err)
{
	char msg[sizeof(err->message)];
	int error;

	if ((error = mg_repo_resolve(out, repo, rev, err)) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		mg_error_set(err, NULL, 0, 0, "%s: %s", option, msg);
	}
	return error;
}

static int resolve_revs(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if (res->worktree)
		return MG_OK;
	if (opt->rev)
		error = resolve_option(res->rev, run->repo, "--rev", opt->rev, err);
	else
		error = mg_repo_resolve(res->rev, run->repo, "HEAD", err);
	if (error < 0)
		return error;
	if (!opt->policy_rev) {
		memcpy(res->policy_rev, res->rev, sizeof(res->rev));
		return MG_OK;
	}
	return resolve_option(res->policy_rev, run->repo, "--policy-rev", opt->policy_rev, err);
}

static int load_policy_at(mg_policy **out, struct run *run, const char *commit,
			  mg_input_ref *ref, mg_error *err)
{
	const char *path = run->opt->policy_path ? run->opt->policy_path : DEFAULT_POLICY;
	mg_blob blob = { 0 };
	int error;

	if ((error = read_input(&blob, run, ref, commit, path, NULL, (mg_pos){ 0, 0 }, err)) < 0)
		goto done;
	if ((error = check_text(&blob, path, err)) < 0)
		goto done;
	error = mg_policy_parse(out, path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

/* Format a threshold value, or "unset". */
static void format_value(char *buf, size_t n, bool set, double v)
{
	if (set)
		snprintf(buf, n, "%.15g", v);
	else
		snprintf(buf, n, "unset");
}

/* Does moving threshold t from (was_set, was) to (set, v) loosen the budget? */
static bool loosens(enum mg_threshold t, bool was_set, double was, bool set, double v)
{
	if (!set)
		return true;       /* a check removed */
	if (!was_set)
		return false;      /* a check added */
	if (t == MG_MEMORY_CAP_MB || t == MG_MAX_EVAL_LOSS ||
	    t == MG_MAX_RELATIVE_EVAL_LOSS || t == MG_MAX_QUALITY_DELTA)
		return v > was;    /* a higher ceiling */
	return v < was;            /* a lower floor */
}

static void add_change(mg_check_result *res, const char *key, const char *before,
		       const char *after, bool loose)
{
	mg_policy_change *c;

	res->changes = mg_xrealloc(res->changes, (res->change_count + 1) * sizeof(*c));
	c = &res->changes[res->change_count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->before, sizeof(c->before), "%s", before);
	snprintf(c->after, sizeof(c->after), "%s", after);
	c->loosens = loose;
}

static void fail_on_words(char *buf, size_t n, const bool fail_on[MG_VERDICT_COUNT])
{
	mg_buf b = MG_BUF_INIT;
	int v;

	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (fail_on[v])
			mg_buf_printf(&b, "%s%s", b.len ? "," : "", mg_verdict_name(v));
	snprintf(buf, n, "[%s]", b.ptr);
	mg_buf_free(&b);
}

/*
 * Compare the base policy (at --policy-rev, the one that decides) with the
 * policy at --rev (what the change proposes): which thresholds moved, and
 * which way.
 */
static void diff_policies(mg_check_result *res, const mg_policy *base,
			  const mg_policy *head)
{
	char before[64], after[64], key[48];
	int t, v;
	bool loose;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		bool bs = base->rules.budget.set[t], hs = head->rules.budget.set[t];
		double bv = base->rules.budget.value[t], hv = head->rules.budget.value[t];

		if (bs == hs && (!bs || bv == hv))
			continue;
		format_value(before, sizeof(before), bs, bv);
		format_value(after, sizeof(after), hs, hv);
		snprintf(key, sizeof(key), "%s.%s", t < MG_MAX_EVAL_LOSS ? "budget" : "quality",
			 mg_threshold_name(t));
		add_change(res, key, before, after, loosens(t, bs, bv, hs, hv));
	}
	if (base->rules.min_repeats != head->rules.min_repeats) {
		snprintf(before, sizeof(before), "%d", base->rules.min_repeats);
		snprintf(after, sizeof(after), "%d", head->rules.min_repeats);
		add_change(res, "evidence.min_repeats", before, after,
			   head->rules.min_repeats < base->rules.min_repeats);
	}
	loose = false;
	for (v = 0; v < MG_VERDICT_COUNT; v++) {
		if (base->fail_on[v] == head->fail_on[v])
			continue;
		if (base->fail_on[v])
			loose = true;
	}
	if (memcmp(base->fail_on, head->fail_on, sizeof(base->fail_on))) {
		fail_on_words(before, sizeof(before), base->fail_on);
		fail_on_words(after, sizeof(after), head->fail_on);
		add_change(res, "gate.fail_on", before, after, loose);
	}
}

/*
 * A `sensitivity.stricter` entry is meant to tighten the base budget; one
 * that loosens a threshold (a higher cap or ceiling, a lower floor, than
 * the base) tests nothing the base does not, so say so.
 */
static void warn_loose_stricter(mg_check_result *res)
{
	const mg_policy *p = res->policy;
	const mg_budget *base = &p->rules.budget;
	char before[64], after[64];
	size_t i;
	int t;

	for (i = 0; i < p->rules.stricter_count; i++) {
		const mg_budget *ov = &p->rules.stricter[i];

		for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
			if (!ov->set[t] || !loosens(t, base->set[t], base->value[t], true, ov->value[t]))
				continue;
			format_value(before, sizeof(before), base->set[t], base->value[t]);
			format_value(after, sizeof(after), true, ov->value[t]);
			add_warning(res, "sensitivity.stricter[%zu] (%s:%d:%d) sets %s %s, looser than "
				    "the base budget's %s: a stricter scenario should tighten it",
				    i, p->path, p->stricter_pos ? p->stricter_pos[i].line : 0,
				    p->stricter_pos ? p->stricter_pos[i].column : 0,
				    mg_threshold_name((enum mg_threshold)t), after, before);
		}
	}
}

/* Read the policy at --policy-rev; when it differs from --rev, also read the
 * policy at --rev to say what the change would have altered. */
static int load_policies(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_policy *head = NULL;
	mg_input_ref head_ref = { 0 };
	int error;

	if ((error = load_policy_at(&res->policy, run, res->policy_rev, &res->policy_ref, err)) < 0)
		return error;
	if (res->worktree || !strcmp(res->rev, res->policy_rev))
		return MG_OK;
	if (load_policy_at(&head, run, res->rev, &head_ref, err) < 0) {
		add_warning(res, "the policy at %s could not be read (%s); only the policy at %s is used",
			    short_id(res->rev).hex, err->message, short_id(res->policy_rev).hex);
	} else {
		diff_policies(res, res->policy, head);
	}
	mg_error_clear(err);
	mg_policy_free(head);
	free(head_ref.path);
	return MG_OK;
}

/* schema_version / semantic_id: when the manifest names one, the report
 * must carry the same string. */
static bool value_differs(const char *want, const mg_value *got)
{
	return want && (got->kind != MG_VALUE_STRING || strcmp(want, got->string));
}

/* Read the report named by `path` at --rev, refusing LFS pointers. */
static int load_report(struct run *run, mg_blob *blob, const char *path,
		       const char *from, mg_pos pos, mg_error *err)
{
	mg_check_result *res = run->res;
	int error;

	if ((error = read_input(blob, run, &res->report_ref, res->rev, path, from, pos, err)) < 0)
		return error;
	if ((error = refuse_lfs(blob, path, res->rev, err)) < 0)
		return error;
	if (mg_digest_sha256_hex(res->report_ref.sha256, blob->data, blob->len) < 0)
		return mg_error_set(err, path, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
	return mg_report_parse(&res->report, path, blob->data, blob->len, err);
}

/* The approved result: missing is an issue, not an error; a mismatching
 * hash is an issue.  With --require-approved, also read its decision. */
static int load_approved(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;
	mg_blob blob = { 0 };
	int error;

	if (!m->has_approved) {
		if (run->opt->require_approved)
			run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		return MG_OK;
	}
	error = read_input(&blob, run, &res->approved_ref, res->rev, m->approved_path,
			   m->path, m->approved_path_pos, err);
	if (error == MG_ENOTFOUND) {
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		if (!res->worktree)
			res->approved_hint = mg_repo_uncommitted_hint(run->repo, m->approved_path);
		add_warning(res, "approved result '%s' is not in %s%s%s", m->approved_path,
			    res->worktree ? "the working tree" : short_id(res->rev).hex,
			    res->approved_hint ? "; " : "",
			    res->approved_hint ? res->approved_hint : "");
		mg_error_clear(err);
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	mg_digest_sha256_hex(res->approved_ref.sha256, blob.data, blob.len);
	if (strcmp(res->approved_ref.sha256, m->approved_sha256)) {
		run->pre[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH] = true;
		goto done;
	}
	if (run->opt->require_approved)
		error = mg_record_read_approved(&res->approved_decision, &res->approved_selected,
						m->approved_path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

static int load_manifest(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	error = read_input(&blob, run, &res->manifest_ref, res->rev, p->manifest,
			   p->path, p->manifest_pos, err);
	if (error < 0)
		goto done;
	if ((error = mg_manifest_parse(&res->manifest, p->manifest, blob.data, blob.len, err)) < 0)
		goto done;
	mg_blob_release(&blob);
	error = load_report(run, &blob, res->manifest->source_path, res->manifest->path,
			    res->manifest->source_path_pos, err);
	if (error < 0)
		goto done;
	if (strcmp(res->report_ref.sha256, res->manifest->source_sha256))
		run->pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	run->pre[MG_ISSUE_SCHEMA_VERSION_MISMATCH] =
		value_differs(res->manifest->schema_version, &res->report->schema_version);
	run->pre[MG_ISSUE_SEMANTIC_ID_MISMATCH] =
		value_differs(res->manifest->semantic_id, &res->report->semantic_id);
	error = load_approved(run, err);
done:
	mg_blob_release(&blob);
	return error;
}

static int load_evidence(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	if (p->manifest)
		return load_manifest(run, err);
	add_warning(res, "the policy names the report directly ('report:'): "
		    "no manifest, so no SHA-256 is checked");
	if (run->opt->require_approved)
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	error = load_report(run, &blob, p->report, p->path, p->report_pos, err);
	mg_blob_release(&blob);
	return error;
}

/* --require-approved: the approved record must agree with this decision. */
static void check_drift(mg_check_result *res)
{
	mg_decision *d = res->decision;
	const char *sel = d->selected ? d->selected : "";

	if (!res->approved_decision || !d->applicable)
		return;
	res->approved_checked = true;
	res->computed_verdict = d->verdict;
	res->computed_reason = d->reason;
	res->computed_selected = d->selected;
	if (!strcmp(res->approved_decision, mg_verdict_name(d->verdict)) &&
	    !strcmp(res->approved_selected ? res->approved_selected : "", sel))
		return;
	d->verdict = MG_REJECT;
	d->reason = "decision_drift";
	d->next_action = "re_approve_or_restore_evidence";
	d->selected = NULL;
}

/*
 * When the approved result is the only evidence issue, the evidence itself
 * is fine: the next action points at the approval record, not at the GPU.
 * The decision and reason stay reject / evidence_not_applicable.
 */
static void approved_next_action(mg_decision *d)
{
	int i;

	if (d->applicable)
		return;
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i] && i != MG_ISSUE_APPROVED_RESULT_MISSING &&
		    i != MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH)
			return;
	d->next_action = d->issue[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH]
		? "restore_or_reapprove_approved_result"
		: "record_and_pin_approved_result";
}

static void report_notes(mg_check_result *res)
{
	const mg_decision *d = res->decision;

	if (res->worktree)
		add_warning(res, "inputs were read from the working tree (--worktree), not from a commit");
	if (d->sensitivity_evaluated && !d->stability_tested)
		add_warning(res, "no sensitivity scenarios: stability of the choice was not tested");
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

static int run_check(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if ((error = mg_repo_open(&run->repo, opt->dir, err)) < 0)
		return error;
	if ((error = resolve_revs(run, err)) < 0)
		return error;
	if (!res->worktree && mg_repo_resolve(run->head, run->repo, "HEAD", err) < 0)
		run->head[0] = '\0';
	mg_error_clear(err);
	if ((error = load_policies(run, err)) < 0)
		return error;
	warn_loose_stricter(res);
	if ((error = load_evidence(run, err)) < 0)
		return error;
	error = mg_decide(&res->decision, &res->policy->rules, &res->report->evidence,
			  run->pre, 0, err);
	if (error < 0)
		return blame_sensitivity(res->policy, err);
	memcpy(res->fail_on, opt->fail_on_set ? opt->fail_on : res->policy->fail_on,
	       sizeof(res->fail_on));
	check_drift(res);
	approved_next_action(res->decision);
	report_notes(res);
	res->passed = !res->fail_on[res->decision->verdict];
	return MG_OK;
}

int mg_check_run(mg_check_result **out, const mg_check_options *opt, mg_error *err)
{
	struct run run = { 0 };
	int error;

	*out = NULL;
	run.opt = opt;
	run.res = mg_xcalloc(1, sizeof(*run.res));
	run.res->worktree = opt->worktree;
	run.max_bytes = opt->max_input_bytes ? opt->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	error = run_check(&run, err);
	mg_repo_free(run.repo);
	if (error < 0) {
		mg_check_result_free(run.res);
		return error;
	}
	*out = run.res;
	return MG_OK;
}

static void release_ref(mg_input_ref *ref)
{
	free(ref->path);
}

void mg_check_result_free(mg_check_result *r)
{
	size_t i;

	if (!r)
		return;
	release_ref(&r->policy_ref);
	release_ref(&r->manifest_ref);
	release_ref(&r->report_ref);
	release_ref(&r->approved_ref);
	mg_decision_free(r->decision);
	mg_report_free(r->report);
	mg_manifest_free(r->manifest);
	mg_policy_free(r->policy);
	for (i = 0; i < r->warning_count; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->changes);
	free(r->approved_decision);
	free(r->approved_selected);
	free(r);
}

static const char *string_value(const mg_value *v)
{
	return v->kind == MG_VALUE_STRING ? v->string : NULL;
}

int mg_check_make_manifest(char **text, const char *dir, const char *rev,
			   const char *report_path, const char *semantic_id,
			   size_t max_input_bytes, mg_error *err)
{
	mg_check_options opt = { 0 };
	mg_check_result res = { 0 };
	struct run run = { 0 };
	mg_blob blob = { 0 };
	int error;

	*text = NULL;
	opt.dir = dir;
	opt.rev = rev;
	run.opt = &opt;
	run.res = &res;
	run.max_bytes = max_input_bytes ? max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	if ((error = mg_repo_open(&run.repo, dir, err)) < 0)
		goto done;
	if ((error = resolve_revs(&run, err)) < 0)
		goto done;
	if ((error = load_report(&run, &blob, report_path, NULL, (mg_pos){ 0, 0 }, err)) < 0)
		goto done;
	*text = mg_manifest_render(report_path, res.report_ref.sha256,
				   string_value(&res.report->schema_version),
				   semantic_id ? semantic_id : string_value(&res.report->semantic_id));
done:
	mg_blob_release(&blob);
	mg_report_free(res.report);
	release_ref(&res.report_ref);
	for (size_t i = 0; i < res.warning_count; i++)
		free(res.warnings[i]);
	free(res.warnings);
	mg_repo_free(run.repo);
	return error;
}
