/*
 * libFuzzer target: the whole path from bytes to a decision record.
 *
 * The input is a policy and a report separated by a line "@@report@@"
 * (SEPARATOR below); without that line the whole input is the report and
 * the policy is FIXED_POLICY.  Both are parsed, decided with mg_decide, put
 * into a hand-built mg_check_result (with the untrusted strings of the
 * inputs as paths, warnings and the approved record) and rendered with
 * mg_record_render and mg_text_render, and with the CI renderers of
 * --format github and the output files (annotations, step outputs, job
 * summary, JUnit XML).
 *
 * Checked: the decision keeps the invariants of memgate(1)'s HOW MEMGATE DECIDES; the record is one
 * strict JSON object (valid UTF-8, no duplicate keys) that names the
 * decision; the text is valid UTF-8 with no control character but '\n';
 * the CI renderings are valid UTF-8, findings are one line each, the
 * summary stays under its limit and the JUnit XML holds only characters
 * XML 1.0 can carry.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "json.h"
#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/decision.h"
#include "memgate/escape.h"
#include "memgate/github.h"
#include "memgate/insight.h"
#include "memgate/junit.h"
#include "memgate/policy.h"
#include "memgate/record.h"
#include "memgate/report.h"
#include "memgate/summary.h"
#include "memgate/text.h"

#define SEPARATOR "\n@@report@@\n"
#define TOKEN "0123456789abcdef0123456789abcdef"

/* The seed chapter's budget, with both kinds of sensitivity scenario. */
static const char FIXED_POLICY[] =
	"version: 1\n"
	"report: handoff.json\n"
	"identity:\n"
	"  workload_id: train-b2-s1024\n"
	"  hardware_id: gpu-a\n"
	"budget:\n"
	"  memory_cap_mb: 9000\n"
	"  min_memory_saving_mb: 2000\n"
	"  min_throughput_ratio: 0.75\n"
	"quality:\n"
	"  max_quality_delta: 0.03\n"
	"sensitivity:\n"
	"  stricter:\n"
	"    - { memory_cap_mb: 8500 }\n"
	"    - { min_throughput_ratio: 0.90 }\n"
	"  grid:\n"
	"    memory_cap_mb: [8000, 9000]\n"
	"    max_quality_delta: [0.01, 0.05]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* ---- the decision ------------------------------------------------- */

static bool names_candidate(const mg_evidence *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name == name)
			return true;
	return false;
}

static void check_screening(const mg_screening *s, const mg_evidence *ev)
{
	size_t i;

	CHECK(s->count == ev->candidate_count && s->feasible_count <= s->count);
	for (i = 0; i < s->count; i++) {
		const mg_evaluation *e = &s->evaluations[i];

		CHECK(e->index == i && e->name == ev->candidates[i].name);
		CHECK((e->status == MG_STATUS_FEASIBLE) == (e->reasons == 0));
		CHECK(e->reasons < (1u << MG_REASON_COUNT));
	}
	for (i = 0; i < s->feasible_count; i++)
		CHECK(s->evaluations[s->feasible[i]].status == MG_STATUS_FEASIBLE);
}

/* A feasible candidate passes every active threshold of its budget, on the
 * values the evaluation shows (memgate(1), HOW MEMGATE DECIDES, 2.: equality passes). */
static void check_feasible(const mg_screening *s, const mg_budget *b)
{
	size_t i;

	for (i = 0; i < s->feasible_count; i++) {
		const mg_evaluation *e = &s->evaluations[s->feasible[i]];

		CHECK(e->known[MG_M_PEAK]);
		CHECK(!b->set[MG_MEMORY_CAP_MB] || e->value[MG_M_PEAK] <= b->value[MG_MEMORY_CAP_MB]);
		CHECK(!b->set[MG_MIN_SAMPLES_PER_S] ||
		      (e->known[MG_M_SAMPLES] &&
		       e->value[MG_M_SAMPLES] >= b->value[MG_MIN_SAMPLES_PER_S]));
		CHECK(s->quality_ceiling_from < 0 ||
		      (e->known[MG_M_EVAL_LOSS] &&
		       e->value[MG_M_EVAL_LOSS] <= s->quality_ceiling));
		CHECK(!b->set[MG_MIN_MEMORY_SAVING_MB] || !e->known[MG_M_SAVING] ||
		      e->value[MG_M_SAVING] >= b->value[MG_MIN_MEMORY_SAVING_MB]);
		CHECK(!b->set[MG_MIN_THROUGHPUT_RATIO] || !e->known[MG_M_RATIO] ||
		      e->value[MG_M_RATIO] >= b->value[MG_MIN_THROUGHPUT_RATIO]);
		CHECK(!b->set[MG_MAX_QUALITY_DELTA] || !e->known[MG_M_DELTA] ||
		      e->value[MG_M_DELTA] <= b->value[MG_MAX_QUALITY_DELTA]);
	}
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* memgate(1), HOW MEMGATE DECIDES: Sensitivity: accept means no scenario changed the winner; sensitive means
 * one did. */
static void check_sensitivity(const mg_decision *d)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < d->scenario_count; i++)
		changed |= !same_name(d->scenarios[i].best, d->best);
	if (d->verdict == MG_ACCEPT)
		CHECK(!changed && d->reason == MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS);
	if (d->reason == MG_O_SELECTION_IS_THRESHOLD_SENSITIVE)
		CHECK(changed && d->verdict == MG_TUNE && d->selected == d->best);
}

/* A scenario's feasible bits are the feasible list of screening it in full. */
static void check_scenario(const mg_scenario *sc, const mg_rules *rules, const mg_evidence *ev)
{
	mg_screening full;
	size_t cursor = 0, index, i = 0;

	mg_scenario_screen(&full, rules, ev, sc);
	check_screening(&full, ev);
	check_feasible(&full, &sc->budget);
	while (mg_scenario_next_feasible(sc, &cursor, &index)) {
		CHECK(i < full.feasible_count && full.feasible[i] == index);
		i++;
	}
	CHECK(i == full.feasible_count && sc->feasible_count == i);
	CHECK(!i || (sc->best && sc->best_index == full.feasible[0]));
	mg_screening_release(&full);
}

static void check_decision(const mg_decision *d, const mg_rules *rules, const mg_evidence *ev)
{
	size_t i;

	CHECK(d->verdict < MG_VERDICT_COUNT && d->reason < MG_OUTCOME_COUNT &&
	      d->next_action < MG_NEXT_ACTION_COUNT);
	CHECK(d->applicable || (d->verdict == MG_REJECT && !d->sensitivity_evaluated));
	CHECK(!d->selected || names_candidate(ev, d->selected));
	CHECK(!d->best || names_candidate(ev, d->best));
	CHECK(d->verdict != MG_ACCEPT || (d->selected && d->selected == d->best));
	CHECK(d->scenario_count <= MG_DECISION_MAX_SCENARIOS);
	CHECK(d->sensitivity_evaluated || !d->scenario_count);
	CHECK(d->interpretation);
	check_screening(&d->base, ev);
	check_feasible(&d->base, &d->budget);
	check_sensitivity(d);
	for (i = 0; i < d->scenario_count; i++) {
		check_scenario(&d->scenarios[i], rules, ev);
		CHECK(!d->scenarios[i].best || names_candidate(ev, d->scenarios[i].best));
	}
}

/* ---- the renderings ----------------------------------------------- */

/* Valid UTF-8 without NUL: mg_escape_utf8 leaves exactly such text alone. */
static bool valid_utf8(const char *s, size_t len)
{
	mg_buf b = MG_BUF_INIT;
	bool same;

	mg_escape_utf8(&b, s, len);
	same = b.len == len && !memcmp(b.ptr, s, len);
	mg_buf_free(&b);
	return same;
}

static void check_record(const char *text, const mg_decision *d)
{
	mg_json_tape *t = NULL;
	mg_error err;
	size_t decision;
	char *word;
	bool same = false;

	CHECK(valid_utf8(text, strlen(text)));
	CHECK(mg_json__stream(&t, NULL, text, strlen(text), NULL, NULL, NULL, NULL, NULL, NULL) == 0);
	decision = mg_json__tape_get(t, 0, "decision");
	CHECK(mg_json__tape_type(t, decision) == MG_J_STRING);
	word = mg_json__tape_strdup(t, decision);
	CHECK(!strcmp(word, mg_verdict_name(d->verdict)));
	free(word);
	mg_json__tape_free(t);
	CHECK(mg_record_same(&same, text, strlen(text), text, &err) == 0 && same);
}

static void check_text(const char *text)
{
	const unsigned char *s;

	CHECK(valid_utf8(text, strlen(text)));
	for (s = (const unsigned char *)text; *s; s++) {
		CHECK(*s >= 0x20 || *s == '\n');
		CHECK(*s != 0x7f && !(s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f));
	}
}

/* XML 1.0 characters only: no C0 control but \t \n \r, no U+FFFE, U+FFFF. */
static void check_xml(const char *text)
{
	const unsigned char *s;

	CHECK(valid_utf8(text, strlen(text)));
	for (s = (const unsigned char *)text; *s; s++) {
		CHECK(*s >= 0x20 || *s == '\t' || *s == '\n' || *s == '\r');
		CHECK(!(s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf)));
	}
}

static void check_findings(const mg_check_result *res)
{
	size_t n, i;
	const mg_finding *f = mg_result_findings(res, &n);

	for (i = 0; i < n; i++)
		CHECK(f[i].message && !strchr(f[i].message, '\n') &&
		      valid_utf8(f[i].message, strlen(f[i].message)) &&
		      strlen(f[i].fingerprint) == MG_FINDING_FINGERPRINT_SIZE - 1);
}

/* The CI renderings of main.c's --format github and output files. */
static void check_ci(const mg_check_result *res)
{
	char *out;

	out = mg_github_render(res, TOKEN);
	CHECK(valid_utf8(out, strlen(out)) && !strchr(out, '\r'));
	free(out);
	out = mg_github_outputs(res, TOKEN);
	CHECK(valid_utf8(out, strlen(out)));
	free(out);
	out = mg_summary_render(res);
	CHECK(valid_utf8(out, strlen(out)) && strlen(out) < MG_SUMMARY_MAX);
	free(out);
	out = mg_junit_render(res);
	check_xml(out);
	free(out);
	check_findings(res);
}

/* ---- the check result, built by hand ------------------------------ */

static const char *value_string(const mg_value *v)
{
	return v->kind == MG_VALUE_STRING ? v->string : NULL;
}

/* Fill a fixed-size field from untrusted text, cutting it anywhere. */
static void set_field(char *field, size_t n, const char *s)
{
	snprintf(field, n, "%s", s ? s : "");
}

static void build_result(mg_check_result *res, char **warning, mg_policy_change *change,
			 mg_policy *p, mg_report *r, mg_decision *d, bool worktree)
{
	const char *first = r->evidence.candidate_count ? r->evidence.candidates[0].name : NULL;
	const char *schema = value_string(&r->schema_version);

	memset(res, 0, sizeof(*res));
	res->worktree = worktree;
	if (!worktree) {
		set_field(res->rev, sizeof(res->rev), "0123456789abcdef0123456789abcdef01234567");
		set_field(res->policy_rev, sizeof(res->policy_rev), "fedcba9876543210fedcba9876543210fedcba98");
	}
	res->policy_ref.path = p->path;
	res->policy_ref.read = true;
	res->manifest_ref.path = p->manifest;
	res->manifest_ref.read = p->manifest != NULL;
	res->report_ref.path = p->report ? p->report : r->path;
	res->report_ref.read = true;
	res->policy = p;
	res->report = r;
	res->decision = d;
	memcpy(res->fail_on, p->fail_on, sizeof(res->fail_on));
	res->passed = !res->fail_on[d->verdict];
	*warning = mg_xstrdup(schema ? schema : "report has no schema_version");
	res->warnings = warning;
	res->warning_count = 1;
	set_field(change->key, sizeof(change->key), first);
	change->before = (mg_change_value){ .kind = schema ? MG_CHANGE_STRING : MG_CHANGE_UNSET,
					    .string = schema };
	change->after = (mg_change_value){ .kind = value_string(&r->semantic_id) ? MG_CHANGE_STRING
										: MG_CHANGE_UNSET,
					   .string = value_string(&r->semantic_id) };
	change->effect = worktree ? MG_CHANGE_LOOSENS : MG_CHANGE_ALTERS;
	res->changes = change;
	res->change_count = 1;
	res->approved_decision = r->producer_decision;
	res->approved_selected = r->producer_reason;
}

static void render(mg_policy *p, mg_report *r, mg_decision *d, bool worktree)
{
	mg_check_result res;
	mg_error err;
	mg_policy_change change;
	char *warning, *record, *text;

	memset(&change, 0, sizeof(change));
	build_result(&res, &warning, &change, p, r, d, worktree);
	/* tipping points re-run the decision: the same limits, so it cannot fail */
	CHECK(mg_insight_compute(&res.insight, &p->rules, &r->evidence, NULL, d, &err) == 0);
	mg_findings_fill(&res);   /* what the renderers read */
	record = mg_record_render(&res);
	check_record(record, d);
	text = mg_text_render(&res);
	check_text(text);
	check_ci(&res);
	free(record);
	free(text);
	free(warning);
	mg_insight_free(res.insight);
	mg_findings_free(res.findings, res.finding_count);
}

/* ---- the target --------------------------------------------------- */

/* The first SEPARATOR in data[0..size), or NULL. */
static const char *find_separator(const char *data, size_t size)
{
	size_t n = strlen(SEPARATOR), i;

	for (i = 0; i + n <= size; i++)
		if (!memcmp(data + i, SEPARATOR, n))
			return data + i;
	return NULL;
}

/* Split the input at the first SEPARATOR, or take the fixed policy. */
static void split(const char **policy, size_t *plen, const char **report, size_t *rlen,
		  const char *data, size_t size)
{
	const char *sep = find_separator(data, size);

	if (!sep) {
		*policy = FIXED_POLICY;
		*plen = strlen(FIXED_POLICY);
		*report = data;
		*rlen = size;
		return;
	}
	*policy = data;
	*plen = (size_t)(sep - data);
	*report = sep + strlen(SEPARATOR);
	*rlen = size - *plen - strlen(SEPARATOR);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *ptext, *rtext;
	size_t plen, rlen;
	mg_policy *p = NULL;
	mg_report *r = NULL;
	mg_decision *d = NULL;
	mg_approved approved;
	mg_error err;

	split(&ptext, &plen, &rtext, &rlen, data ? (const char *)data : "", size);
	if (mg_policy_parse(&p, "fuzz/policy.yml", ptext, plen, &err) < 0 ||
	    mg_report_parse(&r, "fuzz/report.json", rtext, rlen, &err) < 0)
		goto done;
	/* The policy keeps the scenario count within the core's limit: only
	 * scenarios times candidates may go over the limit on evaluations. */
	/* The report's own decision, when it has one, stands for an approved
	 * record, so that the core's drift rule is fuzzed too. */
	approved.decision = r->producer_decision;
	approved.selected = r->producer_reason;
	if (mg_decide(&d, &p->rules, &r->evidence, NULL,
		      r->producer_decision ? &approved : NULL, 0, &err) < 0) {
		CHECK(strstr(err.message, "evaluations), more than the limit") != NULL);
		goto done;
	}
	check_decision(d, &p->rules, &r->evidence);
	render(p, r, d, size % 2 == 1);
done:
	mg_decision_free(d);
	mg_report_free(r);
	mg_policy_free(p);
	return 0;
}
