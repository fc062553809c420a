/*
 * JUnit XML for GitLab and Jenkins: see include/memgate/junit.h and memgate(1),
 * SECURITY, "Escaping for CI".
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/junit.h"

#define BIT(r) (1u << (r))

struct junit {
	const mg_check_result *r;
	const mg_decision *d;
	const mg_finding *findings;
	size_t finding_count;
	/* per candidate, in one pass (10^5 candidates): its findings, in order,
	 * are by_candidate[first[i] .. first[i + 1]); its place in the
	 * feasible set (rank - 1), SIZE_MAX when not feasible */
	size_t *first, *by_candidate, *feasible_rank;
	mg_buf cases;        /* the <testcase> elements */
	size_t tests, failures, skipped;
	const char *policy;  /* several policies: classnames start with "<policy>/" */
};

static void put_xml(mg_buf *out, const char *s)
{
	mg_escape_xml(out, s, strlen(s));
}

/* Text of several lines: each line escaped, our line ends kept as they are. */
static void put_xml_lines(mg_buf *out, const char *s)
{
	const char *end;

	while ((end = strchr(s, '\n'))) {
		mg_escape_xml(out, s, (size_t)(end - s));
		mg_buf_putc(out, '\n');
		s = end + 1;
	}
	put_xml(out, s);
}

static const char *policy_file(const mg_check_result *r)
{
	return r->policy_ref.path ? r->policy_ref.path : r->policy ? r->policy->path : NULL;
}

static const char *report_file(const mg_check_result *r)
{
	return r->report_ref.path ? r->report_ref.path : r->report ? r->report->path : NULL;
}

/* <testcase classname="c" name="n" file="f" time="0">; `name` is XML already. */
static void open_case(struct junit *j, const char *classname, const char *name,
		      const char *file)
{
	mg_buf_puts(&j->cases, "    <testcase classname=\"");
	if (j->policy) {
		put_xml(&j->cases, j->policy);
		mg_buf_putc(&j->cases, '/');
	}
	mg_buf_printf(&j->cases, "%s\" name=\"%s\"", classname, name);
	if (file) {
		mg_buf_puts(&j->cases, " file=\"");
		put_xml(&j->cases, file);
		mg_buf_putc(&j->cases, '"');
	}
	mg_buf_puts(&j->cases, " time=\"0\">\n");
	j->tests++;
}

static void close_case(struct junit *j)
{
	mg_buf_puts(&j->cases, "    </testcase>\n");
}

/* <failure message="m" type="t">text</failure> */
static void put_failure(struct junit *j, const char *type, const char *message,
			const char *text)
{
	mg_buf_puts(&j->cases, "      <failure message=\"");
	put_xml(&j->cases, message);
	mg_buf_puts(&j->cases, "\" type=\"");
	put_xml(&j->cases, type);
	mg_buf_puts(&j->cases, "\">");
	put_xml_lines(&j->cases, text);
	mg_buf_puts(&j->cases, "</failure>\n");
	j->failures++;
}

/* <skipped message="m"/>: CI systems show the case as skipped, not failed. */
static void put_skipped(struct junit *j, const char *message)
{
	mg_buf_puts(&j->cases, "      <skipped message=\"");
	put_xml(&j->cases, message);
	mg_buf_puts(&j->cases, "\"/>\n");
	j->skipped++;
}

static void put_system_out(struct junit *j, const char *text)
{
	if (!*text)
		return;
	mg_buf_puts(&j->cases, "      <system-out>");
	put_xml_lines(&j->cases, text);
	mg_buf_puts(&j->cases, "</system-out>\n");
}

/* s escaped for a log line (mg_escape_text). */
static void put_text(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

/* "bench/76.json:12:5: checkpoint: ... [code]\n" */
static void put_finding_line(mg_buf *out, const mg_finding *f)
{
	mg_format_location(out, f->file, f->pos, put_text);
	mg_buf_printf(out, "%s [%s]\n", f->message, f->code->name);
}

/* The finding lines of one rank (or of every rank, with MG_FINDING_RANK_COUNT). */
size_t mg_junit_max_items = MG_JUNIT_MAX_ITEMS;

static void put_findings_of_rank(mg_buf *out, const struct junit *j, enum mg_finding_rank rank)
{
	size_t i, shown = 0, omitted = 0;

	for (i = 0; i < j->finding_count; i++) {
		if (rank != MG_FINDING_RANK_COUNT && j->findings[i].rank != rank)
			continue;
		if (shown == mg_junit_max_items) {
			omitted++;
			continue;
		}
		put_finding_line(out, &j->findings[i]);
		shown++;
	}
	if (omitted)
		mg_buf_printf(out, "%zu more findings omitted (the limit is %zu); see the decision "
			      "record (memgate check --format json)\n", omitted, mg_junit_max_items);
}

/* ---- evidence ---- */

/* "report bench/76.json, SHA-256 <hex>, at commit <id>\n" */
static void put_report_ref(mg_buf *out, const mg_check_result *r)
{
	if (!r->report_ref.path)
		return;
	mg_buf_puts(out, "report ");
	mg_escape_text(out, r->report_ref.path, strlen(r->report_ref.path));
	mg_buf_printf(out, ", SHA-256 %.64s",
		      r->report_ref.sha256[0] ? r->report_ref.sha256 : "not computed");
	if (r->worktree)
		mg_buf_puts(out, ", from the working tree\n");
	else
		mg_buf_printf(out, ", at commit %.64s\n", r->rev);
}

/* Fails when the evidence is not applicable and the gate fails; on a
 * passing gate (fail_on without reject) it is skipped, naming the issues. */
static void evidence_case(struct junit *j)
{
	const mg_check_result *r = j->r;
	mg_buf message = MG_BUF_INIT, text = MG_BUF_INIT;
	const char *sep = "";
	int i;

	open_case(j, "memgate.evidence", "evidence",
		  r->manifest_ref.read ? r->manifest_ref.path : report_file(r));
	if (!j->d->applicable) {
		if (r->passed)
			mg_buf_puts(&message, "not applicable, but the gate passes: ");
		for (i = 0; i < MG_ISSUE_COUNT; i++) {
			if (!j->d->issue[i])
				continue;
			mg_buf_printf(&message, "%s%s", sep, mg_issue_name((enum mg_issue)i));
			sep = ", ";
		}
		put_findings_of_rank(&text, j, MG_FINDING_RANK_EVIDENCE);
		if (r->passed) {
			put_skipped(j, message.ptr);
		} else {
			put_failure(j, "evidence_not_applicable", message.ptr, text.ptr);
			mg_buf_free(&text);
		}
	}
	put_report_ref(&text, r);
	put_system_out(j, text.ptr);
	close_case(j);
	mg_buf_free(&message);
	mg_buf_free(&text);
}

/* ---- candidates ---- */

/* The case names given so far, to keep each name once: open addressing
 * on FNV-1a, the table at least twice the names. */
struct names {
	char **slot;
	size_t mask;
};

static size_t name_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static char **name_slot(const struct names *t, const char *name)
{
	size_t i = name_hash(name) & t->mask;

	while (t->slot[i] && strcmp(t->slot[i], name))
		i = (i + 1) & t->mask;
	return &t->slot[i];
}

/* An XML-escaped case name for candidate i: its name, or "(unnamed #i)";
 * " #i" (and ".2", ".3", ...) added when an earlier case has it already
 * (GitLab keeps only the first of two equal names).  Added to `taken`,
 * which owns it. */
static const char *case_name(struct names *taken, size_t i, const char *name)
{
	mg_buf base = MG_BUF_INIT, plain = MG_BUF_INIT, out = MG_BUF_INIT;
	char **slot;
	unsigned k;

	if (!name || !*name)
		mg_buf_printf(&plain, "(unnamed #%zu)", i + 1);
	else
		mg_escape_text(&plain, name, strlen(name));
	mg_escape_xml(&base, plain.ptr, plain.len);
	mg_buf_puts(&out, base.ptr);
	for (k = 1; *(slot = name_slot(taken, out.ptr)); k++) {
		mg_buf_free(&out);
		mg_buf_printf(&out, k == 1 ? "%s #%zu" : "%s #%zu.%u", base.ptr, i + 1, k);
	}
	mg_buf_free(&base);
	mg_buf_free(&plain);
	return *slot = mg_buf_detach(&out, NULL);
}

/* "peak 9450.76 MB <= 11200", "memory saving 331.98 MB < 512 FAIL": each
 * active check of a candidate that reached the thresholds. */
static void put_checks(mg_buf *out, const mg_evaluation *e, const mg_decision *d)
{
	double limit;
	size_t k;

	if (e->status != MG_STATUS_FEASIBLE && e->status != MG_STATUS_REJECTED)
		return;
	for (k = 0; k < MG_CHECK_COUNT; k++) {
		const mg_threshold_def *c = mg_check(k);
		bool fail = e->reasons & BIT(c->reason);
		bool known = mg_check_limit(&limit, c, d);

		if (!mg_check_active(c, &d->budget) || !e->known[c->metric] ||
		    !isfinite(e->value[c->metric]))
			continue;
		mg_buf_printf(out, "%s ", c->label);
		mg_format_value(out, e->value[c->metric], known ? &limit : NULL);
		mg_buf_printf(out, "%s %s ", c->unit, mg_check_operator(c, fail, false));
		if (known)
			mg_format_threshold(out, limit);
		else
			mg_buf_putc(out, '?');
		mg_buf_puts(out, fail ? " FAIL\n" : "\n");
	}
}

static void put_reason_names(mg_buf *out, unsigned reasons)
{
	const char *sep = "";
	int i;

	for (i = 0; i < MG_REASON_COUNT; i++) {
		if (!(reasons & BIT(i)))
			continue;
		mg_buf_printf(out, "%s%s", sep, mg_reason_name((enum mg_reason)i));
		sep = ", ";
	}
}

/* The reasons of evaluation e that are findings (not the baseline compared
 * with itself). */
static unsigned finding_reasons(const struct junit *j, const mg_evaluation *e)
{
	unsigned reasons = 0;
	int i;

	for (i = 0; i < MG_REASON_COUNT; i++)
		if ((e->reasons & BIT(i)) &&
		    !mg_finding_self_comparison(j->r, e, (enum mg_reason)i))
			reasons |= BIT(i);
	return reasons;
}

/* The reasons of evaluation i's regressions that count (memgate(1), REGRESSIONS AND HISTORY). */
static unsigned regressed_reasons(const struct junit *j, size_t i)
{
	unsigned reasons = 0;
	size_t k;

	for (k = 0; k < j->d->regressed_count; k++)
		if (j->d->regressed[k].index == i)
			reasons |= BIT(mg_threshold_def_of(j->d->regressed[k].threshold)->reason);
	return reasons;
}

static bool is_regression(enum mg_outcome o)
{
	return o >= MG_O_PEAK_MEMORY_REGRESSED && o <= MG_O_REGRESSION_NOT_COMPARED;
}

static bool is_baseline(const struct junit *j, const mg_evaluation *e)
{
	const mg_policy *p = j->r->policy;

	return e->name && !strcmp(e->name, mg_rules_baseline(p ? &p->rules : NULL));
}

static bool is_selected(const struct junit *j, const mg_evaluation *e)
{
	return e->name && j->d->selected && !strcmp(e->name, j->d->selected);
}

/*
 * Does candidate e's case fail?  Only when the gate fails, and only for the
 * candidates behind its reason: the one a `tune` diagnosis names, every
 * candidate when none meets the base budget, the baseline when it is what
 * is missing, each candidate that regressed when a regression decides.  (Other reasons fail the evidence, sensitivity or decision
 * case.)
 */
static bool candidate_fails(const struct junit *j, const mg_evaluation *e, size_t i)
{
	enum mg_outcome reason = j->d->reason;

	if (!j->r->passed && is_regression(reason))
		return regressed_reasons(j, i) != 0;   /* every candidate that regressed */
	if (j->r->passed || e->status == MG_STATUS_FEASIBLE || !finding_reasons(j, e))
		return false;
	if (reason == MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET)
		return true;
	if (reason == MG_O_BASELINE_MISSING_OR_INVALID)
		return is_baseline(j, e);
	return is_selected(j, e);
}

/* "feasible, rank 2 of 3", for a feasible candidate that is not selected. */
static void put_rank(mg_buf *out, const struct junit *j, size_t i)
{
	const mg_screening *s = &j->d->base;

	mg_buf_printf(out, "feasible, rank %zu of %zu; not selected (%s: %s)\n",
		      j->feasible_rank[i] + 1,
		      s->feasible_count, mg_verdict_name(j->d->verdict), mg_outcome_name(j->d->reason));
}

/*
 * A candidate's case.  It fails as candidate_fails says (message = its
 * reasons, text = the findings).  Otherwise the selected candidate and the
 * feasible ones pass, and a candidate that was screened out and not
 * selected is skipped with "not selected: <reasons>", so that a passing
 * gate shows no red test.  The baseline's comparisons with itself are not
 * reasons here; a baseline with no other reason passes as the reference.
 */
static void candidate_case(struct junit *j, size_t i, const char *name)
{
	const mg_evaluation *e = &j->d->base.evaluations[i];
	mg_buf message = MG_BUF_INIT, text = MG_BUF_INIT;
	unsigned regressed = regressed_reasons(j, i);
	unsigned reasons = finding_reasons(j, e) | regressed;
	size_t k;

	open_case(j, "memgate.candidates", name, report_file(j->r));
	for (k = j->first[i]; k < j->first[i + 1]; k++)
		put_finding_line(&text, &j->findings[j->by_candidate[k]]);
	put_reason_names(&message, regressed);   /* a regression leads */
	if (regressed && (reasons & ~regressed))
		mg_buf_puts(&message, ", ");
	put_reason_names(&message, reasons & ~regressed);
	if (candidate_fails(j, e, i)) {
		put_failure(j, regressed ? "regressed" : mg_status_name(e->status), message.ptr,
			    text.ptr);
		mg_buf_free(&text);
	} else if (!is_selected(j, e) && e->status != MG_STATUS_FEASIBLE && reasons) {
		mg_buf_free(&message);
		mg_buf_puts(&message, "not selected: ");
		put_reason_names(&message, reasons);
		put_skipped(j, message.ptr);
	}
	if (is_selected(j, e))
		mg_buf_printf(&text, "selected candidate (%s: %s)\n", mg_verdict_name(j->d->verdict),
			      mg_outcome_name(j->d->reason));
	else if (e->status == MG_STATUS_FEASIBLE)
		put_rank(&text, j, i);
	if (e->reasons && !reasons)
		mg_buf_puts(&text, "the baseline (evidence.baseline): the reference the others are "
			    "compared with; its own saving, ratio and delta are not findings\n");
	put_checks(&text, e, j->d);
	put_system_out(j, text.ptr);
	close_case(j);
	mg_buf_free(&message);
	mg_buf_free(&text);
}

/* j->first, j->by_candidate and j->feasible_rank (see struct junit). */
static void index_candidates(struct junit *j)
{
	const mg_screening *s = &j->d->base;
	size_t n = s->count, i, c;

	j->first = mg_xcalloc(n + 2, sizeof(*j->first));
	j->by_candidate = mg_xcalloc(j->finding_count + 1, sizeof(*j->by_candidate));
	j->feasible_rank = mg_xcalloc(n + 1, sizeof(*j->feasible_rank));
	for (i = 0; i < j->finding_count; i++)
		if ((c = j->findings[i].candidate) < n)
			j->first[c + 2]++;
	for (c = 2; c < n + 2; c++)
		j->first[c] += j->first[c - 1];
	for (i = 0; i < j->finding_count; i++)   /* a counting sort, stable */
		if ((c = j->findings[i].candidate) < n)
			j->by_candidate[j->first[c + 1]++] = i;
	for (i = 0; i < n; i++)
		j->feasible_rank[i] = SIZE_MAX;
	for (i = 0; i < s->feasible_count; i++)
		if (s->feasible[i] < n)
			j->feasible_rank[s->feasible[i]] = i;
}

/* Past the limit: one skipped case that says how many candidates it left
 * out (the decision case still fails when the gate does). */
static void omitted_case(struct junit *j, size_t omitted)
{
	mg_buf message = MG_BUF_INIT;

	open_case(j, "memgate.candidates", "omitted", report_file(j->r));
	mg_buf_printf(&message, "%zu more candidates omitted (the limit is %zu); see the decision "
		      "record (memgate check --format json)", omitted, mg_junit_max_items);
	put_skipped(j, message.ptr);
	close_case(j);
	mg_buf_free(&message);
}

static void candidate_cases(struct junit *j)
{
	const mg_screening *s = &j->d->base;
	struct names taken;
	size_t cap = 16, i;

	while (cap < 2 * s->count)
		cap *= 2;
	taken.slot = mg_xcalloc(cap, sizeof(*taken.slot));
	taken.mask = cap - 1;
	index_candidates(j);
	for (i = 0; i < s->count && i < mg_junit_max_items; i++)
		candidate_case(j, i, case_name(&taken, i, s->evaluations[i].name));
	if (s->count > mg_junit_max_items)
		omitted_case(j, s->count - mg_junit_max_items);
	for (i = 0; i < cap; i++)
		free(taken.slot[i]);
	free(taken.slot);
	free(j->first);
	free(j->by_candidate);
	free(j->feasible_rank);
}

/* ---- sensitivity and the decision ---- */

static void put_stability(mg_buf *out, const mg_decision *d)
{
	mg_format_stability(out, d, mg_format_name);
	mg_buf_putc(out, '\n');
}

/* Fails on selection_is_threshold_sensitive when the gate fails; skipped
 * when sensitivity was not evaluated (no base winner or diagnosis). */
static void sensitivity_case(struct junit *j)
{
	mg_buf text = MG_BUF_INIT;

	open_case(j, "memgate.sensitivity", "sensitivity", policy_file(j->r));
	if (j->d->reason == MG_O_SELECTION_IS_THRESHOLD_SENSITIVE) {
		put_findings_of_rank(&text, j, MG_FINDING_RANK_SENSITIVITY);
		if (!j->r->passed) {
			put_failure(j, mg_verdict_name(j->d->verdict), mg_outcome_name(j->d->reason),
				    text.ptr);
			mg_buf_free(&text);
		}
	} else if (!j->d->sensitivity_evaluated) {
		put_skipped(j, "not evaluated: the evidence did not reach a base decision");
	}
	put_stability(&text, j->d);
	put_system_out(j, text.ptr);
	close_case(j);
	mg_buf_free(&text);
}

/* "selected: checkpoint\ngate: failed (fails on: tune, reject)\n" and every finding. */
static void put_decision_text(mg_buf *out, const struct junit *j)
{
	const char *sep = "";
	int v;

	mg_buf_puts(out, "selected: ");
	if (j->d->selected)
		mg_format_name(out, j->d->selected);
	else
		mg_buf_puts(out, "none");
	mg_buf_printf(out, "\ngate: %s (fails on: ", j->r->passed ? "passed" : "failed");
	for (v = 0; v < MG_VERDICT_COUNT; v++) {
		if (!j->r->fail_on[v])
			continue;
		mg_buf_printf(out, "%s%s", sep, mg_verdict_name((enum mg_verdict)v));
		sep = ", ";
	}
	mg_buf_puts(out, *sep ? ")\n" : "nothing)\n");
	put_findings_of_rank(out, j, MG_FINDING_RANK_COUNT);
}

static void decision_case(struct junit *j)
{
	mg_buf message = MG_BUF_INIT, text = MG_BUF_INIT;

	open_case(j, "memgate.decision", "decision", policy_file(j->r));
	mg_buf_printf(&message, "%s (%s): next action %s", mg_verdict_name(j->d->verdict),
		      mg_outcome_name(j->d->reason), mg_next_action_name(j->d->next_action));
	put_decision_text(&text, j);
	if (!j->r->passed)
		put_failure(j, mg_verdict_name(j->d->verdict), message.ptr, text.ptr);
	else
		put_system_out(j, text.ptr);
	close_case(j);
	mg_buf_free(&message);
	mg_buf_free(&text);
}

/* One <testsuite> for r; with `policy`, named "memgate: <policy>". */
static void put_suite(mg_buf *out, const mg_check_result *r, const char *policy)
{
	struct junit j = { 0 };

	j.r = r;
	j.d = r->decision;
	j.policy = policy;
	j.findings = mg_result_findings(r, &j.finding_count);
	mg_buf_init(&j.cases);
	evidence_case(&j);
	candidate_cases(&j);
	sensitivity_case(&j);
	decision_case(&j);
	mg_buf_puts(out, "  <testsuite name=\"memgate");
	if (policy) {
		mg_buf_puts(out, ": ");
		put_xml(out, policy);
	}
	mg_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" "
		      "errors=\"0\" skipped=\"%zu\" time=\"0\">\n", j.tests, j.failures, j.skipped);
	mg_buf_put(out, j.cases.ptr, j.cases.len);
	mg_buf_puts(out, "  </testsuite>\n");
	mg_buf_free(&j.cases);
}

char *mg_junit_render(const mg_check_result *r)
{
	mg_buf out = MG_BUF_INIT;

	assert(r && r->decision);
	mg_buf_puts(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	put_suite(&out, r, NULL);
	mg_buf_puts(&out, "</testsuites>\n");
	return mg_buf_detach(&out, NULL);
}

/* One suite "memgate" holding one passing case, memgate.plan/nothing
 * gated, whose system-out names each policy of the plan and why it was not
 * gated (unchanged, or retired). */
static void put_nothing_gated(mg_buf *out, const mg_plan *plan)
{
	struct junit j = { 0 };
	mg_buf text = MG_BUF_INIT;
	size_t i;

	mg_buf_init(&j.cases);
	mg_buf_puts(&text, "no policy was gated: the gate passes\n");
	for (i = 0; plan && i < plan->count; i++) {
		const mg_plan_entry *e = &plan->entries[i];

		if (e->kind == MG_PLAN_UNCHANGED) {
			mg_buf_puts(&text, "unchanged, not gated: ");
			put_text(&text, e->policy);
		} else if (e->kind == MG_PLAN_RETIRED) {
			mg_buf_puts(&text, "retired: ");
			put_text(&text, e->message);
		} else {
			continue;
		}
		mg_buf_putc(&text, '\n');
	}
	open_case(&j, "memgate.plan", "nothing gated", NULL);
	put_system_out(&j, text.ptr);
	close_case(&j);
	mg_buf_printf(out, "  <testsuite name=\"memgate\" tests=\"%zu\" failures=\"0\" "
		      "errors=\"0\" skipped=\"0\" time=\"0\">\n", j.tests);
	mg_buf_put(out, j.cases.ptr, j.cases.len);
	mg_buf_puts(out, "  </testsuite>\n");
	mg_buf_free(&j.cases);
	mg_buf_free(&text);
}

char *mg_junit_render_set(const mg_check_item *items, size_t count, const mg_plan *plan)
{
	mg_buf out = MG_BUF_INIT;
	size_t i;

	assert(items || !count);
	mg_buf_puts(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	for (i = 0; i < count; i++)
		if (items[i].result)
			put_suite(&out, items[i].result, items[i].policy);
	if (!count)
		put_nothing_gated(&out, plan);
	mg_buf_puts(&out, "</testsuites>\n");
	return mg_buf_detach(&out, NULL);
}
