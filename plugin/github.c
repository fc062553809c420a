/*
 * GitHub Actions: annotations, the findings behind them and step outputs.
 * See include/memgate/github.h and README, "Escaping for CI".
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "json.h"
#include "digest.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/github.h"
#include "memgate/text.h"

#define BIT(r) (1u << (r))
#define NO_CANDIDATE SIZE_MAX

/* ---- the token ---- */

/* n bytes from /dev/urandom, for kernels without getrandom(). */
static int urandom(unsigned char *buf, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t k;

	if (fd < 0)
		return MG_ERROR;
	while (got < n) {
		k = read(fd, buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	return got == n ? MG_OK : MG_ERROR;
}

static int random_bytes(unsigned char *buf, size_t n)
{
	size_t got = 0;
	ssize_t k;

	while (got < n) {
		k = getrandom(buf + got, n - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return urandom(buf + got, n - got);
		got += (size_t)k;
	}
	return MG_OK;
}

int mg_github_token(char out[MG_GITHUB_TOKEN_SIZE])
{
	unsigned char bytes[(MG_GITHUB_TOKEN_SIZE - 1) / 2];
	size_t i;

	out[0] = '\0';
	if (random_bytes(bytes, sizeof(bytes)) < 0)
		return MG_ERROR;
	for (i = 0; i < sizeof(bytes); i++)
		snprintf(out + 2 * i, 3, "%02x", bytes[i]);
	return MG_OK;
}

/* ---- checks and values ---- */

const mg_github_check mg_github_checks[MG_GITHUB_CHECK_COUNT] = {
	{ MG_MEMORY_CAP_MB, MG_M_PEAK, MG_R_MEMORY_OVER_BUDGET, "peak", " MB", true },
	{ MG_MIN_SAMPLES_PER_S, MG_M_SAMPLES, MG_R_SAMPLES_PER_S_BELOW_FLOOR, "samples/s", "", false },
	{ MG_MAX_EVAL_LOSS, MG_M_EVAL_LOSS, MG_R_QUALITY_OVER_FLOOR, "eval_loss", "", true },
	{ MG_MIN_MEMORY_SAVING_MB, MG_M_SAVING, MG_R_MEMORY_SAVING_BELOW_FLOOR, "memory saving", " MB", false },
	{ MG_MIN_THROUGHPUT_RATIO, MG_M_RATIO, MG_R_THROUGHPUT_BELOW_FLOOR, "throughput ratio", "", false },
	{ MG_MAX_QUALITY_DELTA, MG_M_DELTA, MG_R_QUALITY_DELTA_OVER_LIMIT, "quality delta", "", true },
};

bool mg_github_check_active(const mg_github_check *c, const mg_budget *b)
{
	return b->set[c->threshold] ||
	       (c->threshold == MG_MAX_EVAL_LOSS && b->set[MG_MAX_RELATIVE_EVAL_LOSS]);
}

bool mg_github_check_limit(double *limit, const mg_github_check *c, const mg_decision *d)
{
	if (c->threshold != MG_MAX_EVAL_LOSS) {
		*limit = d->budget.value[c->threshold];
		return true;
	}
	if (d->base.quality_ceiling_known) {
		*limit = d->base.quality_ceiling;
		return true;
	}
	*limit = d->budget.value[MG_MAX_EVAL_LOSS];
	return !d->budget.set[MG_MAX_RELATIVE_EVAL_LOSS];
}

/* The check a step-7 reason comes from, or NULL for steps 1-6. */
static const mg_github_check *check_of(enum mg_reason reason)
{
	size_t i;

	for (i = 0; i < MG_GITHUB_CHECK_COUNT; i++)
		if (mg_github_checks[i].reason == reason)
			return &mg_github_checks[i];
	return NULL;
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
	mg_github_finding *list;
	size_t count, cap;
	mg_buf msg;
	const char *subject;        /* of the next finding (copied), or NULL */
	size_t *first_use;          /* per evaluation: the first with its name (lazily) */
};

static const char *policy_file(const mg_check_result *r)
{
	return r->policy_ref.path ? r->policy_ref.path : r->policy ? r->policy->path : NULL;
}

const char *mg_github_policy_file(const mg_check_result *r)
{
	return policy_file(r);
}

void mg_github_place(const char **file, mg_pos *pos, const mg_check_result *r,
		     const mg_github_finding *f)
{
	*file = f->file ? f->file : policy_file(r);
	pos->line = f->file && f->pos.line > 0 ? f->pos.line : 1;
	pos->column = f->file && f->pos.line > 0 && f->pos.column > 0 ? f->pos.column : 1;
}

/* The annotation weight of a code's kind. */
static enum mg_github_weight weight_of(const char *code)
{
	const mg_code *c = mg_code_find(code);

	switch (c ? c->kind : MG_KIND_EVIDENCE) {
	case MG_KIND_EVIDENCE:
	case MG_KIND_HARD: return MG_GITHUB_HARD;
	case MG_KIND_TARGET:
	case MG_KIND_SOFT: return MG_GITHUB_SOFT;
	case MG_KIND_WARNING: return MG_GITHUB_WARNING;
	default: return MG_GITHUB_NOTE;
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
static void add_weighted(struct findings *f, enum mg_github_weight weight,
			 enum mg_github_rank rank, const char *code, const char *file,
			 mg_pos pos, size_t candidate)
{
	mg_github_finding *x;

	if (f->count == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->list = mg_xrealloc(f->list, f->cap * sizeof(*f->list));
	}
	x = &f->list[f->count++];
	x->weight = weight;
	x->subject = f->subject ? mg_xstrdup(f->subject) : NULL;
	f->subject = NULL;
	x->rank = rank;
	x->code = code;
	x->file = file;
	x->pos = pos;
	x->candidate = candidate;
	x->message = mg_buf_detach(&f->msg, NULL);
}

/* add_weighted with the weight of the code's kind. */
static void add(struct findings *f, enum mg_github_rank rank,
		const char *code, const char *file, mg_pos pos, size_t candidate)
{
	add_weighted(f, weight_of(code), rank, code, file, pos, candidate);
}

static mg_pos no_pos(void)
{
	return (mg_pos){ 0, 0 };
}

/*
 * The policy whose lines annotations point at: on a pull request the
 * policy that decides is the base's, but GitHub attaches annotations to the
 * pull request's file, so lines come from the policy at --rev when it was
 * read (a key it lacks gets no line).
 */
static const mg_policy *lines_policy(const mg_check_result *r)
{
	return r->head_policy ? r->head_policy : r->policy;
}

/* The policy line of threshold t. */
static mg_pos threshold_pos(const struct findings *f, int t)
{
	return lines_policy(f->r) && t >= 0 ? lines_policy(f->r)->threshold_pos[t] : no_pos();
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
		pos = lines_policy(r) ? lines_policy(r)->report_pos : pos;
	}
	add(f, MG_GITHUB_RANK_EVIDENCE,
	    mg_issue_name(MG_ISSUE_APPROVED_RESULT_MISSING), file, pos, NO_CANDIDATE);
}

/* The issues found in the manifest's pins (SPEC 2.1, the first five). */
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
			    "'memgate manifest --report ");
		put_safe(&f->msg, report_file(r) ? report_file(r) : "PATH");
		mg_buf_puts(&f->msg, " --out ");
		put_safe(&f->msg, manifest_file(r) ? manifest_file(r) : "MANIFEST");
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
	add(f, MG_GITHUB_RANK_EVIDENCE, mg_issue_name(issue), manifest_file(r), pos,
	    NO_CANDIDATE);
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
static mg_pos identity_message(struct findings *f, enum mg_issue issue, int id)
{
	const mg_value *have = &f->ev->identity[id];
	const char *key = mg_ident_name((enum mg_ident)id);

	(void)issue;
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
		add(f, MG_GITHUB_RANK_EVIDENCE,
		    mg_issue_name(MG_ISSUE_AGGREGATE_OUTSIDE_RUNS), report_file(f->r), c->pos,
		    i < f->d->base.count ? i : NO_CANDIDATE);
	}
}

/* The issues found in the report (SPEC 2.1, from handoff_not_ready on). */
static void report_issue(struct findings *f, enum mg_issue issue)
{
	int id = ident_of(issue);
	mg_pos pos = no_pos();

	if (issue == MG_ISSUE_AGGREGATE_OUTSIDE_RUNS) {
		aggregate_issues(f);
		return;
	}
	if (id >= 0) {
		pos = identity_message(f, issue, id);
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
	add(f, MG_GITHUB_RANK_EVIDENCE, mg_issue_name(issue), report_file(f->r), pos,
	    NO_CANDIDATE);
}

static void issue_findings(struct findings *f)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!f->d->issue[i])
			continue;
		if (i <= MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH)
			manifest_issue(f, (enum mg_issue)i);
		else if (f->ev)
			report_issue(f, (enum mg_issue)i);
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
	add(f, MG_GITHUB_RANK_EVIDENCE, "decision_drift", manifest_file(r),
	    r->manifest ? r->manifest->approved_path_pos : no_pos(), NO_CANDIDATE);
}

/* The report's candidate behind an evaluation, or NULL. */
static const mg_candidate *candidate_of(const struct findings *f, const mg_evaluation *e)
{
	return f->ev && e->index < f->ev->candidate_count ? &f->ev->candidates[e->index] : NULL;
}

/* A candidate's finding: first for the selected one, else hard or target. */
static enum mg_github_rank candidate_rank(const struct findings *f, size_t i, bool hard)
{
	if (i == f->selected)
		return MG_GITHUB_RANK_SELECTED;
	return hard ? MG_GITHUB_RANK_HARD : MG_GITHUB_RANK_TARGET;
}

/* "checkpoint: peak 9450.76 MB > memory_cap_mb 9000"; the effective
 * quality ceiling for quality_over_floor.  At the threshold's policy line. */
static void threshold_finding(struct findings *f, const mg_evaluation *e, size_t i,
			      const mg_github_check *c, bool hard)
{
	const mg_budget *b = &f->d->budget;
	int t = c->threshold;
	double limit;
	bool known = mg_github_check_limit(&limit, c, f->d);

	if (c->reason == MG_R_QUALITY_OVER_FLOOR && f->d->base.quality_ceiling_from >= 0)
		t = f->d->base.quality_ceiling_from;
	f->subject = e->name;
	mg_format_name(&f->msg, e->name);
	mg_buf_printf(&f->msg, ": %s ", c->label);
	mg_format_value(&f->msg, e->value[c->metric], known ? &limit : NULL);
	mg_buf_printf(&f->msg, "%s %s ", c->unit, c->ceiling ? ">" : "<");
	if (t == MG_MAX_RELATIVE_EVAL_LOSS) {
		mg_format_threshold(&f->msg, limit);
		mg_buf_puts(&f->msg, ", the ceiling of max_relative_eval_loss ");
		mg_format_threshold(&f->msg, b->value[t]);
	} else {
		mg_buf_printf(&f->msg, "%s ", mg_threshold_name((enum mg_threshold)t));
		mg_format_threshold(&f->msg, b->value[t]);
	}
	add(f, candidate_rank(f, i, hard),
	    mg_reason_name(c->reason), policy_file(f->r), threshold_pos(f, t), i);
}

static bool has_number(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_NUMBER;
}

static bool is_invalid(const mg_candidate *c, enum mg_metric_id m)
{
	return c->metric[m].state == MG_METRIC_INVALID;
}

/* The first own number an active check of b needs that c lacks (as the
 * decision core's step 5 reads it), or -1. */
static int missing_metric(const mg_candidate *c, const mg_budget *b)
{
	static const enum mg_metric_id paired[] = { MG_M_SAVING, MG_M_RATIO, MG_M_DELTA };
	static const enum mg_threshold paired_check[] = {
		MG_MIN_MEMORY_SAVING_MB, MG_MIN_THROUGHPUT_RATIO, MG_MAX_QUALITY_DELTA,
	};
	bool need_samples = b->set[MG_MIN_SAMPLES_PER_S] ||
		(b->set[MG_MIN_THROUGHPUT_RATIO] && !has_number(c, MG_M_RATIO));
	bool need_loss = b->set[MG_MAX_EVAL_LOSS] || b->set[MG_MAX_RELATIVE_EVAL_LOSS] ||
		(b->set[MG_MAX_QUALITY_DELTA] && !has_number(c, MG_M_DELTA));
	size_t k;

	if (!has_number(c, MG_M_PEAK))
		return MG_M_PEAK;
	if (need_samples && !has_number(c, MG_M_SAMPLES))
		return MG_M_SAMPLES;
	if (need_loss && !has_number(c, MG_M_EVAL_LOSS))
		return MG_M_EVAL_LOSS;
	for (k = 0; k < 3; k++)
		if (b->set[paired_check[k]] && is_invalid(c, paired[k]))
			return paired[k];
	return -1;
}

/* "samples_per_s is missing"; returns where: the metric, else the candidate. */
static mg_pos metric_message(struct findings *f, const mg_candidate *c, mg_pos pos)
{
	int m = c ? missing_metric(c, &f->d->budget) : -1;

	if (m < 0) {
		mg_buf_puts(&f->msg, "a number that an active check needs is missing or not finite");
		return pos;
	}
	mg_buf_printf(&f->msg, "%s is %s", mg_metric_name((enum mg_metric_id)m),
		      is_invalid(c, (enum mg_metric_id)m) ? "not a finite number" : "missing");
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
	bool hard = reason != MG_R_EVIDENCE_NOT_COMPARABLE &&
		    reason != MG_R_NOT_IN_ELIGIBLE_CANDIDATES;

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
		pos = metric_message(f, c, pos);
	} else {
		mg_buf_printf(&f->msg, "%d repeat%s, fewer than evidence.min_repeats %d", e->repeats,
			      e->repeats == 1 ? "" : "s",
			      f->r->policy ? f->r->policy->rules.min_repeats : 1);
	}
	add(f, candidate_rank(f, i, hard),
	    mg_reason_name(reason), report_file(f->r), pos, i);
}

bool mg_github_self_comparison(const mg_check_result *r, const mg_evaluation *e,
			       enum mg_reason reason)
{
	const char *baseline = r->policy && r->policy->rules.baseline
		? r->policy->rules.baseline : "baseline";

	return (reason == MG_R_MEMORY_SAVING_BELOW_FLOOR || reason == MG_R_THROUGHPUT_BELOW_FLOOR ||
		reason == MG_R_QUALITY_DELTA_OVER_LIMIT) &&
	       e->name && !strcmp(e->name, baseline);
}

static void candidate_findings(struct findings *f)
{
	const mg_screening *s = &f->d->base;
	const mg_github_check *c;
	size_t i;
	int reason;

	for (i = 0; i < s->count; i++) {
		for (reason = 0; reason < MG_REASON_COUNT; reason++) {
			if (!(s->evaluations[i].reasons & BIT(reason)) ||
			    mg_github_self_comparison(f->r, &s->evaluations[i], (enum mg_reason)reason))
				continue;
			if ((c = check_of((enum mg_reason)reason)))
				threshold_finding(f, &s->evaluations[i], i, c,
						  reason <= MG_R_QUALITY_OVER_FLOOR);
			else
				early_finding(f, &s->evaluations[i], i, (enum mg_reason)reason);
		}
	}
}

/* baseline_missing_or_invalid with no candidate of that name at all (an
 * unmeasured baseline has its own step 1-6 finding). */
static void baseline_finding(struct findings *f)
{
	const mg_screening *s = &f->d->base;
	const char *name;
	size_t i;

	if (!f->r->policy || f->d->reason != MG_O_BASELINE_MISSING_OR_INVALID)
		return;
	name = f->r->policy->rules.baseline ? f->r->policy->rules.baseline : "baseline";
	for (i = 0; i < s->count; i++)
		if (s->evaluations[i].name && !strcmp(s->evaluations[i].name, name))
			return;
	mg_buf_puts(&f->msg, "no candidate is named ");
	put_quoted(&f->msg, name);
	mg_buf_puts(&f->msg, " (evidence.baseline), so no value can be derived from it");
	add(f, MG_GITHUB_RANK_HARD, "baseline_missing_or_invalid", report_file(f->r),
	    f->ev ? f->ev->candidates_pos : no_pos(), NO_CANDIDATE);
}

/* The policy line of scenario i: its stricter entry, or the grid's first
 * axis (in the policy whose lines annotations point at). */
static mg_pos scenario_pos(const struct findings *f, size_t i)
{
	const mg_policy *p = f->r->policy, *lines = lines_policy(f->r);

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
		add(f, MG_GITHUB_RANK_SENSITIVITY, "selection_is_threshold_sensitive",
		    policy_file(f->r), scenario_pos(f, i), NO_CANDIDATE);
	}
}

static void warning_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->warning_count; i++) {
		put_safe(&f->msg, f->r->warnings[i]);
		f->subject = f->r->warnings[i];
		add(f, MG_GITHUB_RANK_WARNING, "warning", NULL, no_pos(),
		    NO_CANDIDATE);
	}
}

static void note_findings(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->r->note_count; i++) {
		put_safe(&f->msg, f->r->notes[i]);
		add_weighted(f, MG_GITHUB_NOTE, MG_GITHUB_RANK_WARNING, "note", NULL, no_pos(), NO_CANDIDATE);
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
		mg_buf_printf(&f->msg, " in this change: it %s the %s once merged",
			      mg_check_effect_name(c->effect),
			      c->effect == MG_CHANGE_ALTERS ? "policy" : "budget");
		f->subject = c->key;
		add_weighted(f, c->effect == MG_CHANGE_LOOSENS ? MG_GITHUB_WARNING : MG_GITHUB_NOTE,
			     MG_GITHUB_RANK_WARNING, "policy_change", policy_file(f->r), c->pos, NO_CANDIDATE);
	}
	mg_buf_free(&value);
}

/* The evaluation named `name` in the base screening, or NO_CANDIDATE. */
static size_t evaluation_named(const mg_decision *d, const char *name)
{
	size_t i;

	for (i = 0; name && i < d->base.count; i++)
		if (d->base.evaluations[i].name && !strcmp(d->base.evaluations[i].name, name))
			return i;
	return NO_CANDIDATE;
}

/* Each waiver of the policy: a notice when it applied, a warning at its
 * line when it matches nothing, at its expires: when it expired. */
static void waiver_findings(struct findings *f)
{
	static const char *const codes[] = { "waiver_applied", "waiver_unmatched", "waiver_expired" };
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
		add(f, w->status == MG_WAIVER_APPLIED ? MG_GITHUB_RANK_WAIVER : MG_GITHUB_RANK_WARNING,
		    codes[w->status], policy_file(r), pos,
		    w->status == MG_WAIVER_APPLIED ? evaluation_named(f->d, v->candidate) : NO_CANDIDATE);
		mg_buf_free(&line);
		mg_buf_free(&subject);
	}
}

/* The evaluation of the selected candidate (else the base winner), or NO_CANDIDATE. */
static size_t selected_index(const mg_decision *d)
{
	const char *want = d->selected ? d->selected : d->best;
	size_t i;

	for (i = 0; want && i < d->base.count; i++)
		if (same_name(d->base.evaluations[i].name, want))
			return i;
	return NO_CANDIDATE;
}

/* Reorder f->list by rank, keeping the order within a rank. */
static void sort_by_rank(struct findings *f)
{
	mg_github_finding *sorted = mg_xcalloc(f->count ? f->count : 1, sizeof(*sorted));
	size_t i, n = 0;
	int rank;

	for (rank = 0; rank < MG_GITHUB_RANK_COUNT; rank++)
		for (i = 0; i < f->count; i++)
			if ((int)f->list[i].rank == rank)
				sorted[n++] = f->list[i];
	free(f->list);
	f->list = sorted;
}

void mg_github_findings(mg_github_finding **out, size_t *count, const mg_check_result *r)
{
	struct findings f = { 0 };

	assert(out && count && r && r->decision);
	f.r = r;
	f.d = r->decision;
	f.ev = r->report ? &r->report->evidence : NULL;
	f.selected = selected_index(f.d);
	mg_buf_init(&f.msg);
	issue_findings(&f);
	drift_finding(&f);
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

void mg_github_findings_free(mg_github_finding *findings, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(findings[i].message);
		free(findings[i].subject);
	}
	free(findings);
}

/* The SHA-256 of policy, code, subject and occurrence, NUL-separated. */
static void fingerprint(char out[MG_GITHUB_FINGERPRINT_SIZE], const char *policy,
			const mg_github_finding *f, size_t occurrence)
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

void mg_github_fingerprints(char (*out)[MG_GITHUB_FINGERPRINT_SIZE], const char *policy,
			    const mg_github_finding *findings, size_t count)
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

/* ---- annotations ---- */

enum level { LEVEL_ERROR, LEVEL_WARNING, LEVEL_NOTICE, LEVEL_COUNT };

static const char *const level_names[LEVEL_COUNT] = { "error", "warning", "notice" };
static const char *const level_plurals[LEVEL_COUNT] = { "errors", "warnings", "notices" };

static enum level level_of(const mg_github_finding *f, bool passed)
{
	if (f->weight == MG_GITHUB_WARNING)
		return LEVEL_WARNING;
	if (f->weight == MG_GITHUB_NOTE)
		return LEVEL_NOTICE;
	if (f->weight == MG_GITHUB_HARD)
		return passed ? LEVEL_WARNING : LEVEL_ERROR;
	return passed ? LEVEL_NOTICE : LEVEL_WARNING;
}

/* One property: " key=value" first, ",key=value" after; empty values are
 * left out (the runner drops them). */
static void put_property(mg_buf *out, bool *first, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	mg_buf_printf(out, "%c%s=", *first ? ' ' : ',', key);
	mg_escape_gh_property(out, value, strlen(value));
	*first = false;
}

/* "::error file=f,line=3,col=5,title=t::message" */
static void put_annotation(mg_buf *out, enum level level, const char *file, mg_pos pos,
			   const char *title, const char *message)
{
	bool first = true;
	char number[16];

	mg_buf_printf(out, "::%s", level_names[level]);
	put_property(out, &first, "file", file);
	if (file && *file && pos.line > 0) {
		snprintf(number, sizeof(number), "%d", pos.line);
		put_property(out, &first, "line", number);
		snprintf(number, sizeof(number), "%d", pos.column);
		if (pos.column > 0)
			put_property(out, &first, "col", number);
	}
	put_property(out, &first, "title", title);
	mg_buf_puts(out, "::");
	mg_escape_gh_data(out, message, strlen(message));
	mg_buf_putc(out, '\n');
}

/* The decision: at gate.fail_on (or line 1) of the policy.  Returns its level. */
static enum level put_decision(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	enum level level = r->passed ? LEVEL_NOTICE : LEVEL_ERROR;
	mg_buf title = MG_BUF_INIT, msg = MG_BUF_INIT;
	mg_pos pos = { 1, 0 };

	if (lines_policy(r) && lines_policy(r)->fail_on_set && lines_policy(r)->fail_on_pos.line > 0)
		pos = lines_policy(r)->fail_on_pos;
	mg_buf_printf(&title, "memgate: %s", mg_verdict_name(d->verdict));
	mg_buf_printf(&msg, "%s (%s): next action %s; selected ", mg_verdict_name(d->verdict),
		      mg_outcome_name(d->reason), mg_next_action_name(d->next_action));
	if (d->selected)
		mg_format_name(&msg, d->selected);
	else
		mg_buf_puts(&msg, "none");
	put_annotation(out, level, policy_file(r), pos, title.ptr, msg.ptr);
	mg_buf_free(&title);
	mg_buf_free(&msg);
	return level;
}

/* "memgate: memory_over_budget (checkpoint)" */
static void put_finding(mg_buf *out, const mg_check_result *r, const mg_github_finding *f,
			enum level level)
{
	mg_buf title = MG_BUF_INIT;
	const mg_screening *s = &r->decision->base;

	mg_buf_printf(&title, "memgate: %s", f->code);
	if (f->candidate < s->count) {
		mg_buf_puts(&title, " (");
		mg_format_name(&title, s->evaluations[f->candidate].name);
		mg_buf_putc(&title, ')');
	}
	put_annotation(out, level, f->file, f->pos, title.ptr, f->message);
	mg_buf_free(&title);
}

/* The findings of one policy, for the annotations. */
struct annotated {
	const mg_check_item *item;
	mg_github_finding *findings;
	size_t count;
};

/* A policy that could not be decided: one ::error at the file of its error
 * (else the policy).  The message is escaped like every input text. */
static void put_item_error(mg_buf *out, const mg_check_item *item)
{
	mg_buf msg = MG_BUF_INIT, title = MG_BUF_INIT;
	char buf[2048];
	mg_pos pos = { item->error.line, item->error.column };
	const char *file = item->error.file[0] ? item->error.file : item->policy;

	put_safe(&msg, mg_error_format(&item->error, buf, sizeof(buf)));
	mg_buf_puts(&title, "memgate: could not decide ");
	put_safe(&title, item->policy);
	put_annotation(out, LEVEL_ERROR, file, item->error.file[0] ? pos : no_pos(), title.ptr,
		       msg.ptr);
	mg_buf_free(&msg);
	mg_buf_free(&title);
}

/*
 * Each policy's decision (or error), then every finding, most important
 * first (rank, then policy order), at most MG_GITHUB_MAX_ANNOTATIONS per
 * level in all (GitHub shows no more per step); a level with more shows one
 * fewer and closes with an annotation that counts the rest.
 */
static void put_annotations(mg_buf *out, const struct annotated *a, size_t count)
{
	size_t total[LEVEL_COUNT] = { 0 }, shown[LEVEL_COUNT] = { 0 }, room[LEVEL_COUNT];
	char title[64], msg[128];
	size_t i, k;
	int lv, rank;

	for (i = 0; i < count; i++) {
		const mg_check_result *r = a[i].item->result;
		enum level decision = !r ? LEVEL_ERROR : r->passed ? LEVEL_NOTICE : LEVEL_ERROR;

		if (r)
			put_decision(out, r);
		else
			put_item_error(out, a[i].item);
		total[decision]++;
		shown[decision]++;
		for (k = 0; k < a[i].count; k++)
			total[level_of(&a[i].findings[k], r->passed)]++;
	}
	for (lv = 0; lv < LEVEL_COUNT; lv++)
		room[lv] = total[lv] > MG_GITHUB_MAX_ANNOTATIONS ? MG_GITHUB_MAX_ANNOTATIONS - 1
								: MG_GITHUB_MAX_ANNOTATIONS;
	for (rank = 0; rank < MG_GITHUB_RANK_COUNT; rank++)
		for (i = 0; i < count; i++)
			for (k = 0; k < a[i].count; k++) {
				const mg_github_finding *f = &a[i].findings[k];
				enum level level;

				if ((int)f->rank != rank)
					continue;
				level = level_of(f, a[i].item->result->passed);
				if (shown[level] < room[level]) {
					put_finding(out, a[i].item->result, f, level);
					shown[level]++;
				}
			}
	for (lv = 0; lv < LEVEL_COUNT; lv++) {
		if (total[lv] <= shown[lv])
			continue;
		snprintf(title, sizeof(title), "memgate: %zu more %s", total[lv] - shown[lv],
			 level_plurals[lv]);
		snprintf(msg, sizeof(msg), "and %zu more %s: see the job summary or the log of this step",
			 total[lv] - shown[lv], level_plurals[lv]);
		put_annotation(out, (enum level)lv, NULL, no_pos(), title, msg);
	}
}

/* Findings a log lists, most important first; the rest are counted. */
#define GITHUB_LOG_FINDINGS 50

/* The findings as compiler-style lines for the log (warnings are in the
 * text already): "  .memgate.yml:12:25: warning: ... [memory_saving_below_floor]". */
static void put_finding_log(mg_buf *out, const mg_check_result *r,
			    const mg_github_finding *f, size_t n)
{
	const char *heading = "findings:\n";
	size_t i, shown = 0, more = 0;

	for (i = 0; i < n; i++) {
		if (f[i].weight >= MG_GITHUB_WARNING)
			continue;
		if (shown++ >= GITHUB_LOG_FINDINGS) {
			more++;
			continue;
		}
		mg_buf_puts(out, heading);
		heading = "";
		mg_buf_puts(out, "  ");
		mg_format_location(out, f[i].file, f[i].pos, put_safe);
		mg_buf_printf(out, "%s: %s [%s]\n", level_names[level_of(&f[i], r->passed)],
			      f[i].message, f[i].code);
	}
	if (more)
		mg_buf_printf(out, "  and %zu more findings (memgate check --format json "
			      "lists every evaluation; --junit writes each candidate's)\n", more);
}

/* The annotations, then the log inside ::stop-commands::; `set` renders
 * the log of several policies. */
static char *render_items(const mg_check_item *items, size_t count, bool set,
			  const char *token)
{
	struct annotated *a = mg_xcalloc(count ? count : 1, sizeof(*a));
	mg_buf out = MG_BUF_INIT;
	char *log;
	size_t i;

	for (i = 0; i < count; i++) {
		a[i].item = &items[i];
		if (items[i].result)
			mg_github_findings(&a[i].findings, &a[i].count, items[i].result);
	}
	put_annotations(&out, a, count);
	mg_buf_printf(&out, "::stop-commands::%s\n", token);
	log = set ? mg_text_render_set(items, count) : mg_text_render(items[0].result);
	mg_buf_puts(&out, log);
	free(log);
	for (i = 0; i < count; i++) {
		if (!items[i].result)
			continue;
		if (set) {
			mg_buf_puts(&out, "policy ");
			put_safe(&out, items[i].policy);
			mg_buf_putc(&out, '\n');
		}
		put_finding_log(&out, items[i].result, a[i].findings, a[i].count);
	}
	mg_buf_printf(&out, "::%s::\n", token);
	for (i = 0; i < count; i++)
		mg_github_findings_free(a[i].findings, a[i].count);
	free(a);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_render(const mg_check_result *r, const char *token)
{
	mg_check_item item = { NULL, NULL, { { 0 }, 0, 0, { 0 } } };

	assert(r && r->decision && token && *token);
	item.policy = policy_file(r);
	item.result = (mg_check_result *)r;
	return render_items(&item, 1, false, token);
}

char *mg_github_render_set(const mg_check_item *items, size_t count, const char *token)
{
	assert(items && token && *token);
	return render_items(items, count, true, token);
}

/* ---- step outputs ---- */

static bool plain_token(const char *s)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_.-";

	return *s && strspn(s, chars) == strlen(s);
}

/* Whether a line of value equals delim (or delim and a CR, which a
 * runner that ends lines at CRLF would also match). */
static bool has_line(const char *value, const char *delim)
{
	size_t n = strlen(delim);
	const char *line = value, *end;

	for (;;) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, delim, n) &&
		    (line + n == end || (line + n + 1 == end && line[n] == '\r')))
			return true;
		if (!*end)
			return false;
		line = end + 1;
	}
}

/*
 * NAME=VALUE for a plain token, else NAME<<ghadelimiter_<token> with the
 * value on the lines up to the delimiter.  The value is written as valid
 * UTF-8 (mg_escape_utf8) and otherwise exactly, \r included (the Linux and
 * macOS runners end lines at \n only); a value holding the delimiter line
 * is replaced by its one-line mg_escape_text form.
 */
static void put_output(mg_buf *out, const char *name, const char *value, const char *token)
{
	mg_buf clean = MG_BUF_INIT, delim = MG_BUF_INIT;

	mg_escape_utf8(&clean, value, strlen(value));
	if (plain_token(clean.ptr)) {
		mg_buf_printf(out, "%s=%s\n", name, clean.ptr);
		goto done;
	}
	mg_buf_printf(&delim, "ghadelimiter_%s", token);
	if (has_line(clean.ptr, delim.ptr)) {
		mg_buf_free(&clean);
		put_safe(&clean, value);
	}
	mg_buf_printf(out, "%s<<%s\n%s\n%s\n", name, delim.ptr, clean.ptr, delim.ptr);
done:
	mg_buf_free(&clean);
	mg_buf_free(&delim);
}

char *mg_github_outputs_set(const mg_check_item *items, size_t count, const char *token)
{
	const mg_check_result *worst = NULL;
	cJSON *list = cJSON_CreateArray(), *o;
	mg_buf out = MG_BUF_INIT;
	bool passed = true;
	char *json;
	size_t i;

	assert(items && count && token && plain_token(token) && list);
	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		assert(r);
		passed = passed && r->passed;
		if (!worst || r->decision->verdict > worst->decision->verdict)
			worst = r;
		o = mg_json__add(list, NULL, cJSON_CreateObject());
		mg_json__add(o, "policy", mg_json__new_string(items[i].policy));
		mg_json__add(o, "decision", mg_json__new_string(mg_verdict_name(r->decision->verdict)));
		mg_json__add(o, "reason", mg_json__new_string(mg_outcome_name(r->decision->reason)));
		mg_json__add(o, "selected_candidate", mg_json__new_string(r->decision->selected));
		mg_json__add(o, "passed", cJSON_CreateBool(r->passed));
	}
	json = cJSON_PrintUnformatted(list);
	if (!json)
		abort();
	put_output(&out, "decision", mg_verdict_name(worst->decision->verdict), token);
	put_output(&out, "reason", mg_outcome_name(worst->decision->reason), token);
	put_output(&out, "next-action", mg_next_action_name(worst->decision->next_action), token);
	put_output(&out, "selected-candidate", worst->decision->selected ? worst->decision->selected : "",
		   token);
	put_output(&out, "passed", passed ? "true" : "false", token);
	put_output(&out, "policies", json, token);
	cJSON_free(json);
	cJSON_Delete(list);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_outputs(const mg_check_result *r, const char *token)
{
	const mg_decision *d;
	mg_buf out = MG_BUF_INIT;

	assert(r && r->decision && token && plain_token(token));
	d = r->decision;
	put_output(&out, "decision", mg_verdict_name(d->verdict), token);
	put_output(&out, "reason", mg_outcome_name(d->reason), token);
	put_output(&out, "next-action", mg_next_action_name(d->next_action), token);
	put_output(&out, "selected-candidate", d->selected ? d->selected : "", token);
	put_output(&out, "passed", r->passed ? "true" : "false", token);
	return mg_buf_detach(&out, NULL);
}

/* ---- exit 2 ---- */

char *mg_github_render_error(const mg_error *err)
{
	mg_buf out = MG_BUF_INIT, msg = MG_BUF_INIT;
	mg_pos pos = { err->line, err->column };

	assert(err);
	put_safe(&msg, err->message[0] ? err->message : "memgate could not decide");
	put_annotation(&out, LEVEL_ERROR, err->file[0] ? err->file : NULL, pos,
		       "memgate: could not decide", msg.ptr);
	mg_buf_free(&msg);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_outputs_error(const mg_error *err, const char *token)
{
	mg_buf out = MG_BUF_INIT;
	char msg[sizeof(err->file) + sizeof(err->message) + 64];

	assert(err && token && plain_token(token));
	mg_error_format(err, msg, sizeof(msg));
	put_output(&out, "decision", "error", token);
	put_output(&out, "reason", "", token);
	put_output(&out, "next-action", "", token);
	put_output(&out, "selected-candidate", "", token);
	put_output(&out, "passed", "false", token);
	put_output(&out, "error", msg, token);
	return mg_buf_detach(&out, NULL);
}
