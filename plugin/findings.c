/*
 * The findings behind a decision, shared by every CI renderer: see
 * findings.h.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "digest.h"
#include "memgate/escape.h"
#include "format.h"

#define BIT(r) (1u << (r))
#define NO_CANDIDATE SIZE_MAX

/* ---- checks and values ---- */

/* The check a step-7 reason comes from, or NULL for steps 1-6. */
static const mg_threshold_def *check_of(enum mg_reason reason)
{
	int t = mg_reason_threshold(reason);

	return t < 0 ? NULL : mg_threshold_def_of((enum mg_threshold)t);
}

static void put_safe(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

/* 'text', escaped; "none" for NULL. */
static void put_quoted(mg_buf *out, const char *s)
{
	if (!s) {
		mg_buf_puts(out, "none");
		return;
	}
	mg_buf_putc(out, '\'');
	put_safe(out, s);
	mg_buf_putc(out, '\'');
}

/* An identity value or pin: 'text', a number, "none" or "a value that is
 * not a string or a number" (callers word an absent value themselves). */
static void put_ident(mg_buf *out, const mg_value *v)
{
	if (v->kind == MG_VALUE_STRING)
		put_quoted(out, v->string);
	else if (v->kind == MG_VALUE_NUMBER)
		mg_format_threshold(out, v->number);
	else if (v->kind == MG_VALUE_ABSENT)
		mg_buf_puts(out, "none");
	else
		mg_buf_puts(out, "a value that is not a string or a number");
}

/* ---- findings ---- */

/* The findings under construction; the message of the next one in msg. */
struct findings {
	const mg_check_result *r;
	const mg_decision *d;
	const mg_evidence *ev;      /* NULL without a report */
	size_t selected;            /* evaluation of the selected (or best) candidate */
	mg_finding *list;
	size_t count, cap;
	mg_buf msg;
	const char *subject;        /* of the next finding (copied), or NULL */
	int issue;                  /* of the next finding, or -1 */
	size_t *first_use;          /* per evaluation: the first with its name (lazily) */
};

static const char *policy_file(const mg_check_result *r)
{
	return r->policy_ref.path ? r->policy_ref.path : r->policy ? r->policy->path : NULL;
}

const char *mg_findings_policy_file(const mg_check_result *r)
{
	return policy_file(r);
}

void mg_finding_place(const char **file, mg_pos *pos, const mg_check_result *r,
		     const mg_finding *f)
{
	*file = f->file ? f->file : policy_file(r);
	pos->line = f->file && f->pos.line > 0 ? f->pos.line : 1;
	pos->column = f->file && f->pos.line > 0 && f->pos.column > 0 ? f->pos.column : 1;
}

/* The annotation weight of a code's kind. */
static enum mg_finding_weight weight_of(const char *code)
{
	const mg_code *c = mg_code_find(code);

	switch (c ? c->kind : MG_KIND_EVIDENCE) {
	case MG_KIND_EVIDENCE:
	case MG_KIND_HARD: return MG_FINDING_HARD;
	case MG_KIND_TARGET:
	case MG_KIND_SOFT: return MG_FINDING_SOFT;
	case MG_KIND_WARNING: return MG_FINDING_WARNING;
	default: return MG_FINDING_NOTE;
	}
}

static const char *manifest_file(const mg_check_result *r)
{
	return r->manifest_ref.path ? r->manifest_ref.path :
	       r->manifest ? r->manifest->path : NULL;
}

static const char *report_file(const mg_check_result *r)
{
	return r->report_ref.path ? r->report_ref.path : r->report ? r->report->path : NULL;
}

/* Record a finding of `weight` whose message is f->msg and subject
 * f->subject (both reset). */
static void add_weighted(struct findings *f, enum mg_finding_weight weight,
			 enum mg_finding_rank rank, const char *code, const char *file,
			 mg_pos pos, size_t candidate)
{
	mg_finding *x;

	if (f->count == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->list = mg_xrealloc(f->list, f->cap * sizeof(*f->list));
	}
	x = &f->list[f->count++];
	x->weight = weight;
	x->subject = f->subject ? mg_xstrdup(f->subject) : NULL;
	f->subject = NULL;
	x->issue = f->issue;
	x->rank = rank;
	x->code = code;
	x->file = file;
	x->pos = pos;
	x->candidate = candidate;
	x->message = mg_buf_detach(&f->msg, NULL);
}

/* add_weighted with the weight of the code's kind. */
static void add(struct findings *f, enum mg_finding_rank rank,
		const char *code, const char *file, mg_pos pos, size_t candidate)
{
	add_weighted(f, weight_of(code), rank, code, file, pos, candidate);
}

static mg_pos no_pos(void)
{
	return (mg_pos){ 0, 0 };
}

const mg_policy *mg_findings_lines_policy(const mg_check_result *r)
{
	return r->head_policy ? r->head_policy : r->policy;
}

/* The policy line of threshold t. */
static mg_pos threshold_pos(const struct findings *f, int t)
{
	const mg_policy *p = mg_findings_lines_policy(f->r);

	return p && t >= 0 ? p->threshold_pos[t] : no_pos();
}

/* "report 'x' has SHA-256 <a>; the manifest pins <b>" */
static void put_hash_mismatch(mg_buf *msg, const char *what, const char *path,
			      const char *have, const char *pinned)
{
	mg_buf_printf(msg, "%s ", what);
	put_quoted(msg, path);
	mg_buf_puts(msg, " has SHA-256 ");
	put_safe(msg, *have ? have : "unknown");
	mg_buf_puts(msg, "; the manifest pins ");
	put_safe(msg, pinned ? pinned : "no hash");
}

/* "the manifest pins schema_version 'a'; the report has 'b'" */
static void put_pin_mismatch(mg_buf *msg, const char *key, const char *want,
			     const mg_value *have)
{
	mg_buf_printf(msg, "the manifest pins %s ", key);
	put_quoted(msg, want);
	if (have->kind == MG_VALUE_ABSENT) {
		mg_buf_printf(msg, "; the report has no %s", key);
		return;
	}
	mg_buf_puts(msg, "; the report has ");
	put_ident(msg, have);
}

/* approved_result_missing: where the approved result should have been named. */
static void approved_missing(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	const char *file = manifest_file(r);
	mg_pos pos = { 1, 0 };

	if (m && m->has_approved) {
		mg_buf_puts(&f->msg, "approved result ");
		put_quoted(&f->msg, m->approved_path);
		mg_buf_printf(&f->msg, " is not in %s", r->worktree ? "the working tree" : "the commit");
		if (r->approved_hint)
			mg_buf_printf(&f->msg, "; %s", r->approved_hint);
		pos = m->approved_path_pos;
	} else if (m) {
		mg_buf_puts(&f->msg, "the manifest names no approved_result (--require-approved)");
	} else {
		mg_buf_puts(&f->msg, "the policy names the report directly, so there is no "
			    "approved result (--require-approved)");
		file = policy_file(r);
		pos = mg_findings_lines_policy(r) ? mg_findings_lines_policy(r)->report_pos : pos;
	}
	add(f, MG_FINDING_RANK_EVIDENCE,
	    mg_issue_name(MG_ISSUE_APPROVED_RESULT_MISSING), file, pos, NO_CANDIDATE);
}

/* The issues found in the manifest's pins (README, "How memgate decides",
 * 1.: the first five). */
/* "[-C ROOT ]--report R --out M", with paths that work where memgate ran. */
static void put_fix_command(mg_buf *msg, const mg_check_result *r)
{
	mg_buf path = MG_BUF_INIT;

	if (!r->cwd_prefix && r->root) {
		mg_buf_puts(&path, "-C ");
		mg_buf_puts(&path, r->root);
		mg_buf_puts(&path, " --report ");
		mg_buf_puts(&path, report_file(r) ? report_file(r) : "PATH");
	} else {
		mg_buf_puts(&path, "--report ");
		if (report_file(r))
			mg_check_cli_path(&path, r, report_file(r));
		else
			mg_buf_puts(&path, "PATH");
	}
	mg_buf_puts(&path, " --out ");
	if (manifest_file(r))
		mg_check_cli_path(&path, r, manifest_file(r));
	else
		mg_buf_puts(&path, "MANIFEST");
	put_safe(msg, path.ptr);
	mg_buf_free(&path);
}

static void manifest_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	mg_pos pos = no_pos();

	if (issue == MG_ISSUE_APPROVED_RESULT_MISSING) {
		approved_missing(f);
		return;
	}
	if (!m)
		return;   /* the other pins are the manifest's */
	if (issue == MG_ISSUE_REPORT_HASH_MISMATCH) {
		put_hash_mismatch(&f->msg, "report", report_file(r), r->report_ref.sha256,
				  m->source_sha256);
		mg_buf_puts(&f->msg, "; if this report is the one to gate, pin it with "
			    "'memgate manifest ");
		put_fix_command(&f->msg, r);
		mg_buf_puts(&f->msg, " --force' and commit the manifest");
		pos = m->source_sha256_pos;
	} else if (issue == MG_ISSUE_SCHEMA_VERSION_MISMATCH && r->report) {
		put_pin_mismatch(&f->msg, "schema_version", m->schema_version,
				 &r->report->schema_version);
		pos = m->schema_version_pos;
	} else if (issue == MG_ISSUE_SEMANTIC_ID_MISMATCH && r->report) {
		put_pin_mismatch(&f->msg, "semantic_id", m->semantic_id, &r->report->semantic_id);
		pos = m->semantic_id_pos;
	} else if (issue == MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH) {
		put_hash_mismatch(&f->msg, "approved result", m->approved_path,
				  r->approved_ref.sha256, m->approved_sha256);
		pos = m->approved_sha256_pos;
	} else {
		mg_buf_puts(&f->msg, mg_issue_name(issue));
	}
	add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(issue), manifest_file(r), pos,
	    NO_CANDIDATE);
}

/* evidence_stale: one finding per changed path, at that file (so that an
 * annotation marks it), then one for the paths not named. */
static void stale_findings(struct findings *f)
{
	const mg_check_result *r = f->r;
	const char *at = r->manifest ? r->manifest->measured_commit : NULL;
	size_t i;

	for (i = 0; i < r->stale_count; i++) {
		mg_buf_printf(&f->msg, "changed since the measured commit %.7s "
			      "(evidence.inputs): measure again", at ? at : "");
		f->subject = r->stale_paths[i];
		add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(MG_ISSUE_EVIDENCE_STALE),
		    r->stale_paths[i], no_pos(), NO_CANDIDATE);
	}
	if (r->stale_total <= r->stale_count)
		return;
	mg_buf_printf(&f->msg, "and %zu more paths of evidence.inputs changed since the "
		      "measured commit %.7s", r->stale_total - r->stale_count, at ? at : "");
	add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(MG_ISSUE_EVIDENCE_STALE),
	    manifest_file(r), r->manifest ? r->manifest->measured_commit_pos : no_pos(),
	    NO_CANDIDATE);
}

/* The issues of the measured commit (README, "How memgate decides", 1.). */
static void measured_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	const mg_policy *lines = mg_findings_lines_policy(r);
	const char *file = manifest_file(r);
	mg_pos pos = { 1, 0 };

	if (issue == MG_ISSUE_EVIDENCE_STALE) {
		stale_findings(f);
		return;
	}
	if (issue == MG_ISSUE_MEASURED_COMMIT_UNKNOWN && m && m->measured_commit) {
		mg_buf_printf(&f->msg, "the measured commit %.7s is not in this repository%s: "
			      "fetch it (git fetch origin %s%s), or push it if it was never pushed",
			      m->measured_commit, r->measured_shallow ? " (a shallow clone)" : "",
			      m->measured_commit,
			      r->measured_shallow ? ", or a deeper clone: fetch-depth: 0" : "");
		pos = m->measured_commit_pos;
	} else if (m) {
		mg_buf_puts(&f->msg, "the policy lists evidence.inputs, but the manifest names no "
			    "measured.commit: write it with 'memgate manifest --report ");
		put_safe(&f->msg, report_file(r) ? report_file(r) : "PATH");
		mg_buf_puts(&f->msg, " --out ");
		put_safe(&f->msg, file ? file : "MANIFEST");
		mg_buf_puts(&f->msg, " --measured-commit REV --force'");
	} else {
		mg_buf_puts(&f->msg, "the policy lists evidence.inputs but names the report "
			    "directly ('report:'): name a manifest that says which commit was "
			    "measured (measured.commit)");
		file = policy_file(r);
		pos = lines ? lines->inputs_pos : pos;
	}
	add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(issue), file, pos, NO_CANDIDATE);
}

/* A signature issue (README, "Signed evidence"): at the signature, at the
 * allowed-signers line, or at the manifest when there is no signature. */
static void signature_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_signature *s = &f->r->signature;
	const char *file = s->at_signers ? s->signers_ref.path : s->sig_ref.path;
	mg_pos pos = s->at;

	if (!s->problem)
		return;
	if (issue == MG_ISSUE_SIGNATURE_MISSING) {
		file = manifest_file(f->r);
		pos = (mg_pos){ 1, 0 };
	}
	put_safe(&f->msg, s->problem);
	add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(issue), file, pos, NO_CANDIDATE);
}

/* The identity field an issue is about, or -1. */
static int ident_of(enum mg_issue issue)
{
	switch (issue) {
	case MG_ISSUE_WORKLOAD_MISSING: case MG_ISSUE_WORKLOAD_MISMATCH: return MG_ID_WORKLOAD;
	case MG_ISSUE_HARDWARE_MISSING: case MG_ISSUE_HARDWARE_MISMATCH: return MG_ID_HARDWARE;
	case MG_ISSUE_MODEL_MISMATCH: return MG_ID_MODEL;
	case MG_ISSUE_DTYPE_MISMATCH: return MG_ID_DTYPE;
	case MG_ISSUE_AMP_DTYPE_MISMATCH: return MG_ID_AMP_DTYPE;
	case MG_ISSUE_BATCH_SIZE_MISMATCH: return MG_ID_BATCH_SIZE;
	case MG_ISSUE_SEQ_LEN_MISMATCH: return MG_ID_SEQ_LEN;
	case MG_ISSUE_OPTIMIZER_MISMATCH: return MG_ID_OPTIMIZER;
	default: return -1;
	}
}

/* Where the report carries an identity field, as memgate looks it up. */
static const char *const ident_keys[MG_ID_COUNT] = {
	"workload_id or config.workload", "hardware_id or config.device",
	"config.model_id or config.model", "config.dtype", "config.amp_dtype",
	"config.batch_size", "config.seq_len", "config.optimizer",
};

/* "the report has no dtype (config.dtype); the policy pins 'x'",
 * "the report's dtype is 'a'; the policy pins 'b'"; returns the report line. */
static mg_pos identity_message(struct findings *f, int id)
{
	const mg_value *have = &f->ev->identity[id];
	const char *key = mg_ident_name((enum mg_ident)id);

	if (have->kind == MG_VALUE_ABSENT) {
		mg_buf_printf(&f->msg, "the report has no %s (read from %s)", key, ident_keys[id]);
	} else {
		mg_buf_printf(&f->msg, "the report's %s is ", key);
		put_ident(&f->msg, have);
	}
	if (f->r->policy) {
		mg_buf_puts(&f->msg, "; the policy pins ");
		put_ident(&f->msg, &f->r->policy->rules.pin[id]);
	}
	return have->pos;
}

/* One finding per candidate whose aggregate lies outside its runs. */
static void aggregate_issues(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->ev->candidate_count; i++) {
		const mg_candidate *c = &f->ev->candidates[i];

		if (!c->aggregate_outside_runs)
			continue;
		mg_format_name(&f->msg, c->name);
		mg_buf_puts(&f->msg, ": an aggregate value lies outside the [min, max] of its runs");
		f->subject = c->name;
		add(f, MG_FINDING_RANK_EVIDENCE,
		    mg_issue_name(MG_ISSUE_AGGREGATE_OUTSIDE_RUNS), report_file(f->r), c->pos,
		    i < f->d->base.count ? i : NO_CANDIDATE);
	}
}

/* The issues found in the report (README, "How memgate decides", 1.: from
 * handoff_not_ready on). */
static void report_issue(struct findings *f, enum mg_issue issue)
{
	int id = ident_of(issue);
	mg_pos pos = no_pos();

	if (issue == MG_ISSUE_AGGREGATE_OUTSIDE_RUNS) {
		aggregate_issues(f);
		return;
	}
	if (id >= 0) {
		pos = identity_message(f, id);
	} else if (issue == MG_ISSUE_HANDOFF_NOT_READY) {
		mg_buf_puts(&f->msg, "the report's status is ");
		put_ident(&f->msg, &f->ev->handoff_status);
		mg_buf_puts(&f->msg, ", not 'ready_for_budget_review'");
		pos = f->ev->handoff_status.pos;
	} else if (issue == MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING) {
		mg_buf_puts(&f->msg, "the handoff report lists no eligible_candidates");
		pos = f->ev->eligible_pos;
	} else {
		mg_buf_puts(&f->msg, "the report has no candidates");
		pos = f->ev->candidates_pos;
	}
	add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_name(issue), report_file(f->r), pos,
	    NO_CANDIDATE);
}

static void issue_findings(struct findings *f)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!f->d->issue[i])
			continue;
		f->issue = i;
		if (i >= MG_ISSUE_MEASURED_COMMIT_MISSING && i <= MG_ISSUE_EVIDENCE_STALE)
			measured_issue(f, (enum mg_issue)i);
		else if (MG_ISSUE_IS_SIGNATURE(i))
			signature_issue(f, (enum mg_issue)i);
		else if (i <= MG_ISSUE_PRE_LAST)
			manifest_issue(f, (enum mg_issue)i);
		else if (f->ev)
			report_issue(f, (enum mg_issue)i);
		f->issue = -1;
	}
}

/* --require-approved: the approved record disagrees with this decision. */
static void drift_finding(struct findings *f)
{
	const mg_check_result *r = f->r;

	if (!f->d->drift)
		return;
	mg_buf_puts(&f->msg, "the approved record says ");
	put_safe(&f->msg, r->approved_decision);
	mg_buf_puts(&f->msg, ", selected ");
	if (r->approved_selected)
		mg_format_name(&f->msg, r->approved_selected);
	else
		mg_buf_puts(&f->msg, "none");
	mg_buf_printf(&f->msg, "; the evidence now decides %s (%s), selected ",
		      mg_verdict_name(f->d->computed_verdict), mg_outcome_name(f->d->computed_reason));
	if (f->d->computed_selected)
		mg_format_name(&f->msg, f->d->computed_selected);
	else
		mg_buf_puts(&f->msg, "none");
	add(f, MG_FINDING_RANK_EVIDENCE, "decision_drift", manifest_file(r),
	    r->manifest ? r->manifest->approved_path_pos : no_pos(), NO_CANDIDATE);
}

/* The report's candidate behind an evaluation, or NULL. */
static const mg_candidate *candidate_of(const struct findings *f, const mg_evaluation *e)
{
	return f->ev && e->index < f->ev->candidate_count ? &f->ev->candidates[e->index] : NULL;
}

/* A candidate's finding: first for the selected one, else hard or target. */
static enum mg_finding_rank candidate_rank(const struct findings *f, size_t i, bool hard)
{
	if (i == f->selected)
		return MG_FINDING_RANK_SELECTED;
	return hard ? MG_FINDING_RANK_HARD : MG_FINDING_RANK_TARGET;
}

/* "checkpoint: peak 9450.76 MB > memory_cap_mb 9000"; the effective
 * quality ceiling for quality_over_floor.  At the threshold's policy line. */
static void threshold_finding(struct findings *f, const mg_evaluation *e, size_t i,
			      const mg_threshold_def *c)
{
	const mg_budget *b = &f->d->budget;
	int t = (int)mg_check_threshold(c);
	double limit;
	bool known = mg_check_limit(&limit, c, f->d);

	if (c->reason == MG_R_QUALITY_OVER_FLOOR && f->d->base.quality_ceiling_from >= 0)
		t = f->d->base.quality_ceiling_from;
	f->subject = e->name;
	mg_format_name(&f->msg, e->name);
	mg_buf_printf(&f->msg, ": %s ", c->label);
	mg_format_value(&f->msg, e->value[c->metric], known ? &limit : NULL);
	mg_buf_printf(&f->msg, "%s %s ", c->unit, mg_check_operator(c, true, false));
	if (t == MG_MAX_RELATIVE_EVAL_LOSS) {
		mg_format_threshold(&f->msg, limit);
		mg_buf_puts(&f->msg, ", the ceiling of max_relative_eval_loss ");
		mg_format_threshold(&f->msg, b->value[t]);
	} else {
		mg_buf_printf(&f->msg, "%s ", mg_threshold_name((enum mg_threshold)t));
		mg_format_threshold(&f->msg, b->value[t]);
	}
	add(f, candidate_rank(f, i, c->hard),
	    mg_reason_name(c->reason), policy_file(f->r), threshold_pos(f, t), i);
}

/* "samples_per_s is missing"; returns where: the metric, else the candidate. */
static mg_pos metric_message(struct findings *f, const mg_evaluation *e,
			     const mg_candidate *c, mg_pos pos)
{
	int m = c ? e->missing_metric : -1;

	if (m < 0) {
		mg_buf_puts(&f->msg, "a number that an active check needs is missing or not finite");
		return pos;
	}
	if (c->metric[m].out_of_range) {
		mg_buf_printf(&f->msg, "%s is ", mg_metric_name((enum mg_metric_id)m));
		mg_format_value(&f->msg, c->metric[m].value, NULL);
		mg_buf_puts(&f->msg, mg_metric_range((enum mg_metric_id)m) == MG_METRIC_POSITIVE ?
			    ", not a positive number" : ", not a non-negative number");
	} else {
		mg_buf_printf(&f->msg, "%s is %s", mg_metric_name((enum mg_metric_id)m),
			      c->metric[m].state == MG_METRIC_INVALID ? "not a finite number" : "missing");
	}
	return c->metric[m].pos.line > 0 ? c->metric[m].pos : pos;
}

struct named {
	const char *name;
	size_t index;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* For each evaluation, the first evaluation with the same name (itself when
 * none comes before): sorted once, not searched per duplicate. */
static size_t *first_uses(const mg_screening *s)
{
	size_t *first = mg_xcalloc(s->count ? s->count : 1, sizeof(*first));
	struct named *v = mg_xcalloc(s->count ? s->count : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < s->count; i++) {
		first[i] = i;
		if (s->evaluations[i].name) {
			v[n].name = s->evaluations[i].name;
			v[n++].index = i;
		}
	}
	qsort(v, n, sizeof(*v), named_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(v[i].name, v[i - 1].name))
			first[v[i].index] = first[v[i - 1].index];
	free(v);
	return first;
}

/* Why a candidate's name disqualifies it (step 1). */
static void name_message(struct findings *f, const mg_evaluation *e, size_t i)
{
	size_t j;

	if (!e->name) {
		mg_buf_puts(&f->msg, "the name is missing or not a string");
		return;
	}
	if (!e->name[0]) {
		mg_buf_puts(&f->msg, "the name is empty");
		return;
	}
	if (!f->first_use)
		f->first_use = first_uses(&f->d->base);
	j = f->first_use[i];
	if (j < i)
		mg_buf_printf(&f->msg, "the name is already used by candidate #%zu", j + 1);
	else
		mg_buf_puts(&f->msg, "the name is used twice");
}

/* Steps 1-6: at the candidate object (or the metric) in the report. */
static void early_finding(struct findings *f, const mg_evaluation *e, size_t i,
			  enum mg_reason reason)
{
	const mg_candidate *c = candidate_of(f, e);
	mg_pos pos = c ? c->pos : no_pos();
	bool hard = mg_reason_code(reason)->kind != MG_KIND_SOFT;

	mg_format_name(&f->msg, e->name);
	mg_buf_puts(&f->msg, ": ");
	f->subject = e->name;
	if (reason == MG_R_MISSING_OR_DUPLICATE_NAME) {
		name_message(f, e, i);
	} else if (reason == MG_R_OOM) {
		mg_buf_puts(&f->msg, "ran out of memory (status oom or metrics.oom)");
	} else if (reason == MG_R_EVIDENCE_NOT_COMPARABLE) {
		if (c && c->status) {
			mg_buf_puts(&f->msg, "status ");
			put_quoted(&f->msg, c->status);
			mg_buf_puts(&f->msg, " is neither 'ok' nor 'comparable'");
		} else {
			mg_buf_puts(&f->msg, "status is not a string ('ok' or 'comparable')");
		}
	} else if (reason == MG_R_NOT_IN_ELIGIBLE_CANDIDATES) {
		mg_buf_puts(&f->msg, "not listed in eligible_candidates");
	} else if (reason == MG_R_MISSING_OR_NON_NUMERIC_METRIC) {
		pos = metric_message(f, e, c, pos);
	} else {
		mg_buf_printf(&f->msg, "%d repeat%s, fewer than evidence.min_repeats %d", e->repeats,
			      e->repeats == 1 ? "" : "s",
			      f->r->policy ? f->r->policy->rules.min_repeats : 1);
	}
	add(f, candidate_rank(f, i, hard),
	    mg_reason_name(reason), report_file(f->r), pos, i);
}

bool mg_finding_self_comparison(const mg_check_result *r, const mg_evaluation *e,
			       enum mg_reason reason)
{
	const char *baseline = mg_rules_baseline(r->policy ? &r->policy->rules : NULL);

	return mg_reason_against_baseline(reason) && e->name && !strcmp(e->name, baseline);
}

static void candidate_findings(struct findings *f)
{
	const mg_screening *s = &f->d->base;
	const mg_threshold_def *c;
	size_t i;
	int reason;

	for (i = 0; i < s->count; i++) {
		for (reason = 0; reason < MG_REASON_COUNT; reason++) {
			if (!(s->evaluations[i].reasons & BIT(reason)) ||
			    mg_finding_self_comparison(f->r, &s->evaluations[i], (enum mg_reason)reason))
				continue;
			if ((c = check_of((enum mg_reason)reason)))
				threshold_finding(f, &s->evaluations[i], i, c);
			else
				early_finding(f, &s->evaluations[i], i, (enum mg_reason)reason);
		}
	}
}

/* baseline_missing_or_invalid with no candidate of that name at all (an
 * unmeasured baseline has its own step 1-6 finding). */
/* The evaluation named `name` in the base screening, or NO_CANDIDATE. */
static size_t evaluation_named(const mg_decision *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name && !strcmp(d->base.evaluations[i].name, name))
			return i;
	return NO_CANDIDATE;
}

static void baseline_finding(struct findings *f)
{
	const char *name;

	if (!f->r->policy || f->d->reason != MG_O_BASELINE_MISSING_OR_INVALID)
		return;
	name = mg_rules_baseline(&f->r->policy->rules);
	if (evaluation_named(f->d, name) != NO_CANDIDATE)
		return;
	mg_buf_puts(&f->msg, "no candidate is named ");
	put_quoted(&f->msg, name);
	mg_buf_puts(&f->msg, " (evidence.baseline), so no value can be derived from it");
	add(f, MG_FINDING_RANK_HARD, "baseline_missing_or_invalid", report_file(f->r),
	    f->ev ? f->ev->candidates_pos : no_pos(), NO_CANDIDATE);
}

/* The policy line of scenario i: its stricter entry, or the grid's first
 * axis (in the policy whose lines annotations point at). */
static mg_pos scenario_pos(const struct findings *f, size_t i)
{
	const mg_policy *p = f->r->policy, *lines = mg_findings_lines_policy(f->r);

	if (!p)
		return no_pos();
	if (i < p->rules.stricter_count)
		return lines->stricter_pos && i < lines->rules.stricter_count
		       ? lines->stricter_pos[i] : no_pos();
	return lines->rules.grid_count && lines->grid_pos ? lines->grid_pos[0] : no_pos();
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* selection_is_threshold_sensitive: each scenario whose winner differs. */
static void sensitivity_findings(struct findings *f)
{
	size_t i;

	if (f->d->reason != MG_O_SELECTION_IS_THRESHOLD_SENSITIVE)
		return;
	for (i = 0; i < f->d->scenario_count; i++) {
		const mg_scenario *sc = &f->d->scenarios[i];

		if (same_name(sc->best, f->d->best))
			continue;
		mg_buf_printf(&f->msg, "%s (", sc->id);
		mg_format_overrides(&f->msg, &sc->overrides);
		mg_buf_puts(&f->msg, "): the winner is ");
		if (sc->best)
			mg_format_name(&f->msg, sc->best);
		else
			mg_buf_puts(&f->msg, "none");
		mg_buf_puts(&f->msg, ", not ");
		mg_format_name(&f->msg, f->d->best);
		f->subject = sc->id;
		add(f, MG_FINDING_RANK_SENSITIVITY, "selection_is_threshold_sensitive",
		    policy_file(f->r), scenario_pos(f, i), NO_CANDIDATE);
	}
}

static void warning_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->warning_count; i++) {
		put_safe(&f->msg, f->r->warnings[i]);
		f->subject = f->r->warnings[i];
		add(f, MG_FINDING_RANK_WARNING, "warning",
		    f->r->warning_files ? f->r->warning_files[i] : NULL, no_pos(), NO_CANDIDATE);
	}
}

static void note_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->note_count; i++) {
		put_safe(&f->msg, f->r->notes[i]);
		add_weighted(f, MG_FINDING_NOTE, MG_FINDING_RANK_WARNING, "note", NULL, no_pos(), NO_CANDIDATE);
	}
}

/* "budget.memory_cap_mb: 11200 at the policy revision, 20000 in this change
 * (loosens the budget; ...)" at the key's line in the proposed policy. */
static void change_findings(struct findings *f)
{
	mg_buf value = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < f->r->change_count; i++) {
		const mg_policy_change *c = &f->r->changes[i];

		put_safe(&f->msg, c->key);
		mg_buf_puts(&f->msg, " is ");
		mg_check_change_text(&value, &c->before);
		put_safe(&f->msg, value.ptr);
		mg_buf_free(&value);
		mg_buf_puts(&f->msg, " in the policy that decides (the policy revision), ");
		mg_check_change_text(&value, &c->after);
		put_safe(&f->msg, value.ptr);
		mg_buf_free(&value);
		if (c->effect == MG_CHANGE_EXPIRED)
			mg_buf_printf(&f->msg, " in this change: that date has passed (today is %s), "
				      "so the waiver is expired and waives nothing once merged",
				      f->r->today);
		else
			mg_buf_printf(&f->msg, " in this change: it %s the %s once merged",
				      mg_check_effect_name(c->effect),
				      c->effect == MG_CHANGE_ALTERS ? "policy" : "budget");
		f->subject = c->key;
		add_weighted(f, c->effect == MG_CHANGE_LOOSENS || c->effect == MG_CHANGE_EXPIRED ?
			     MG_FINDING_WARNING : MG_FINDING_NOTE,
			     MG_FINDING_RANK_WARNING, "policy_change", policy_file(f->r), c->pos, NO_CANDIDATE);
	}
	mg_buf_free(&value);
}

/* Each waiver of the policy: a notice when it applied, a warning at its
 * line when it matches nothing, at its expires: when it expired; and a
 * notice at its expires: when it expires within waivers_warn_days. */
static void waiver_findings(struct findings *f)
{
	/* "waiver_" and mg_check_waiver_status_name: static, as codes are */
	static const char *const codes[MG_WAIVER_STATUS_COUNT] = {
		[MG_WAIVER_APPLIED] = "waiver_applied",
		[MG_WAIVER_UNMATCHED] = "waiver_unmatched",
		[MG_WAIVER_EXPIRED] = "waiver_expired",
	};
	const mg_check_result *r = f->r;
	mg_buf line = MG_BUF_INIT, subject = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < r->waiver_count; i++) {
		const mg_waiver_state *w = &r->waivers[i];
		const mg_policy_waiver *v = w->waiver;
		mg_pos pos = w->status == MG_WAIVER_EXPIRED ? v->expires_pos :
			     w->status == MG_WAIVER_UNMATCHED && w->candidate_found ? v->reason_pos :
			     w->status == MG_WAIVER_UNMATCHED ? v->candidate_pos : v->pos;

		mg_check_waiver_message(&line, r, i);
		put_safe(&f->msg, line.ptr);
		mg_buf_printf(&subject, "%s\n%s", v->candidate, mg_reason_name(v->reason));
		f->subject = subject.ptr;
		add(f, w->status == MG_WAIVER_APPLIED ? MG_FINDING_RANK_WAIVER : MG_FINDING_RANK_WARNING,
		    codes[w->status], policy_file(r), pos,
		    w->status == MG_WAIVER_APPLIED ? evaluation_named(f->d, v->candidate) : NO_CANDIDATE);
		mg_buf_free(&line);
		if (w->expiring) {
			mg_check_waiver_expiring_message(&line, r, i);
			put_safe(&f->msg, line.ptr);
			f->subject = subject.ptr;
			add(f, MG_FINDING_RANK_WAIVER, "waiver_expiring", policy_file(r), v->expires_pos,
			    NO_CANDIDATE);
			mg_buf_free(&line);
		}
		mg_buf_free(&subject);
	}
}

/* The unit a metric's values are written in. */
static const char *metric_unit(enum mg_metric_id m)
{
	return m == MG_M_PEAK ? " MB" : "";
}

/*
 * "checkpoint: peak increase 7.08 % (52110 -> 55800 MB) > max_peak_increase_pct 5
 * against the base": one per regression that counts (README, "Regressions"),
 * at the regressed value's line in the head's report.  The first names the
 * selected candidate, so it leads.
 */
static void regression_findings(struct findings *f)
{
	const mg_decision *d = f->d;
	const mg_policy *p = f->r->policy;
	size_t k;

	for (k = 0; k < d->regressed_count; k++) {
		const mg_regressed *g = &d->regressed[k];
		const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
		const mg_evaluation *e = &d->base.evaluations[g->index];
		const mg_candidate *c = candidate_of(f, e);
		mg_pos pos = c ? c->pos : no_pos();
		const char *unit = metric_unit(def->metric);

		if (c && c->metric[def->metric].pos.line > 0)
			pos = c->metric[def->metric].pos;
		f->subject = e->name;
		mg_format_name(&f->msg, e->name);
		mg_buf_printf(&f->msg, ": %s ", def->label);
		mg_format_value(&f->msg, g->change, &g->limit);
		mg_buf_printf(&f->msg, "%s (", def->unit);
		mg_format_value(&f->msg, g->base, NULL);
		mg_buf_puts(&f->msg, " -> ");
		mg_format_value(&f->msg, g->head, NULL);
		mg_buf_printf(&f->msg, "%s) > %s ", unit, def->key);
		mg_format_threshold(&f->msg, g->limit);
		if (f->r->history && f->r->history->used)
			mg_buf_printf(&f->msg, " against the median of the base's last %zu "
				      "measurements", f->r->history->used);
		else
			mg_buf_puts(&f->msg, g->runs ? " against the base, beyond both runs' "
				    "noise" : " against the base");
		add_weighted(f, p && p->rules.regression.reject ? MG_FINDING_HARD : MG_FINDING_SOFT,
			     g->index == f->selected ? MG_FINDING_RANK_SELECTED : MG_FINDING_RANK_HARD,
			     mg_reason_name(def->reason), report_file(f->r), pos, g->index);
	}
}

/* The evaluation of the selected candidate (else the base winner), or NO_CANDIDATE. */
static size_t selected_index(const mg_decision *d)
{
	return evaluation_named(d, d->selected ? d->selected : d->best);
}

bool mg_finding_quiet(const mg_check_result *r, const mg_finding *f)
{
	return r->evidence_unchanged && f->candidate < r->decision->base.count &&
		f->candidate != selected_index(r->decision);
}

/* Reorder f->list by rank, keeping the order within a rank. */
static void sort_by_rank(struct findings *f)
{
	mg_finding *sorted = mg_xcalloc(f->count ? f->count : 1, sizeof(*sorted));
	size_t i, n = 0;
	int rank;

	for (rank = 0; rank < MG_FINDING_RANK_COUNT; rank++)
		for (i = 0; i < f->count; i++)
			if ((int)f->list[i].rank == rank)
				sorted[n++] = f->list[i];
	free(f->list);
	f->list = sorted;
}

void mg_findings(mg_finding **out, size_t *count, const mg_check_result *r)
{
	struct findings f = { 0 };

	assert(out && count && r && r->decision);
	f.r = r;
	f.d = r->decision;
	f.ev = r->report ? &r->report->evidence : NULL;
	f.selected = selected_index(f.d);
	f.issue = -1;
	mg_buf_init(&f.msg);
	issue_findings(&f);
	drift_finding(&f);
	regression_findings(&f);
	candidate_findings(&f);
	baseline_finding(&f);
	sensitivity_findings(&f);
	warning_findings(&f);
	note_findings(&f);
	change_findings(&f);
	waiver_findings(&f);
	sort_by_rank(&f);
	mg_buf_free(&f.msg);
	free(f.first_use);
	*out = f.list;
	*count = f.count;
}

void mg_findings_free(mg_finding *findings, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(findings[i].message);
		free(findings[i].subject);
	}
	free(findings);
}

/* The SHA-256 of policy, code, subject and occurrence, NUL-separated. */
static void fingerprint(char out[MG_FINDING_FINGERPRINT_SIZE], const char *policy,
			const mg_finding *f, size_t occurrence)
{
	mg_buf key = MG_BUF_INIT;

	mg_buf_puts(&key, "memgate-finding/v1");
	mg_buf_put(&key, "", 1);
	mg_buf_puts(&key, policy ? policy : "");
	mg_buf_put(&key, "", 1);
	mg_buf_puts(&key, f->code);
	mg_buf_put(&key, "", 1);
	if (f->subject)
		mg_buf_puts(&key, f->subject);
	if (occurrence)
		mg_buf_printf(&key, "%c#%zu", '\0', occurrence + 1);
	if (mg_digest_sha256_hex(out, key.ptr, key.len) < 0)
		abort();   /* OpenSSL cannot fail on a digest of memory */
	mg_buf_free(&key);
}

/* A fingerprint's place: by fingerprint, then by place in the list. */
struct slot {
	const char *hash;
	size_t index;
	bool twin;     /* the same fingerprint as the slot before */
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c = strcmp(x->hash, y->hash);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

void mg_finding_fingerprints(char (*out)[MG_FINDING_FINGERPRINT_SIZE], const char *policy,
			    const mg_finding *findings, size_t count)
{
	struct slot *slots = mg_xcalloc(count ? count : 1, sizeof(*slots));
	size_t i, occurrence = 0;

	for (i = 0; i < count; i++) {
		fingerprint(out[i], policy, &findings[i], 0);
		slots[i].hash = out[i];
		slots[i].index = i;
	}
	qsort(slots, count, sizeof(*slots), slot_cmp);
	for (i = 1; i < count; i++)
		slots[i].twin = !strcmp(slots[i].hash, slots[i - 1].hash);
	/* the second and later findings of one fingerprint get their number */
	for (i = 1; i < count; i++) {
		occurrence = slots[i].twin ? occurrence + 1 : 0;
		if (occurrence)
			fingerprint(out[slots[i].index], policy, &findings[slots[i].index], occurrence);
	}
	free(slots);
}

void mg_findings_each(const mg_check_result *r,
		      void (*fn)(void *ctx, const mg_check_result *r, const mg_finding *f,
				 const char *fingerprint),
		      void *ctx)
{
	mg_finding *findings = NULL;
	char (*prints)[MG_FINDING_FINGERPRINT_SIZE];
	size_t n = 0, i;

	assert(r && fn);
	mg_findings(&findings, &n, r);
	prints = mg_xcalloc(n ? n : 1, sizeof(*prints));
	mg_finding_fingerprints(prints, mg_findings_policy_file(r), findings, n);
	for (i = 0; i < n; i++)
		fn(ctx, r, &findings[i], prints[i]);
	free(prints);
	mg_findings_free(findings, n);
}
