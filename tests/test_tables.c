/*
 * The core's tables walked through every renderer: for each threshold of
 * mg_threshold_def, a policy that sets it and a candidate that fails it
 * are decided by the real parsers and core, and every renderer (text,
 * annotations, job summary, JUnit, record, SARIF, Code Quality) must show
 * the failing check with the table's reason code and words.  A renderer
 * that re-derived a rule of its own would drift from the table here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "helpers.h"
#include "memgate/codequality.h"
#include "memgate/github.h"
#include "memgate/junit.h"
#include "memgate/output.h"
#include "memgate/record.h"
#include "memgate/sarif.h"
#include "memgate/summary.h"
#include "memgate/text.h"

/* The baseline, and "strategy", which fails threshold t: worse than the
 * baseline on every value the thresholds read. */
static const char report_json[] =
	"{ \"workload_id\": \"w\", \"hardware_id\": \"h\", \"candidates\": [\n"
	"  { \"name\": \"baseline\", \"metrics\": { \"peak_memory_mb\": 10000,\n"
	"    \"samples_per_s\": 2.0 }, \"quality\": { \"eval_loss\": 2.0 } },\n"
	"  { \"name\": \"strategy\", \"metrics\": { \"peak_memory_mb\": 9900,\n"
	"    \"samples_per_s\": 1.0 }, \"quality\": { \"eval_loss\": 3.0 } } ] }\n";

/* A value of threshold t that "strategy" fails (and the baseline passes
 * where it can: hard limits are set so that only the strategy fails). */
static double failing_value(enum mg_threshold t)
{
	switch (t) {
	case MG_MEMORY_CAP_MB: return 9950;            /* strategy 9900 passes: below */
	case MG_MIN_SAMPLES_PER_S: return 1.5;
	case MG_MIN_MEMORY_SAVING_MB: return 500;      /* saves 100 */
	case MG_MIN_THROUGHPUT_RATIO: return 0.9;      /* keeps 0.5 */
	case MG_MAX_EVAL_LOSS: return 2.5;
	case MG_MAX_RELATIVE_EVAL_LOSS: return 0.1;    /* ceiling 2.2 */
	case MG_MAX_QUALITY_DELTA: return 0.5;         /* delta 1.0 */
	case MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT: return 5;   /* 100 MB for 50 %: 2 a percent */
	default: return 0;
	}
}

struct rendered {
	mg_policy *policy;
	mg_report *report;
	mg_check_result result;
	mg_check_item item;
	char *out[7];
};

static const char *const renderer_names[7] = {
	"text", "annotations", "summary", "junit", "record", "sarif", "codequality",
};

static void render_threshold(struct rendered *x, enum mg_threshold t)
{
	const mg_threshold_def *def = mg_threshold_def_of(t);
	char yaml[512], token[MG_OUTPUT_TOKEN_SIZE];
	mg_error err;
	double cap = t == MG_MEMORY_CAP_MB ? failing_value(t) : 20000;

	/* the cap is always set (the policy needs it): high, or the failing one */
	if (t == MG_MEMORY_CAP_MB || !strcmp(def->section, "budget"))
		snprintf(yaml, sizeof(yaml),
			 "version: 1\nreport: r.json\nidentity:\n  workload_id: w\n  hardware_id: h\n"
			 "budget:\n  memory_cap_mb: %g\n  %s: %g\n", cap,
			 t == MG_MEMORY_CAP_MB ? "min_memory_saving_mb" : def->key,
			 t == MG_MEMORY_CAP_MB ? 0.0 : failing_value(t));
	else
		snprintf(yaml, sizeof(yaml),
			 "version: 1\nreport: r.json\nidentity:\n  workload_id: w\n  hardware_id: h\n"
			 "budget:\n  memory_cap_mb: %g\n%s:\n  %s: %g\n",
			 cap, def->section, def->key, failing_value(t));
	memset(x, 0, sizeof(*x));
	mg_error_clear(&err);
	cr_assert_eq(mg_policy_parse(&x->policy, ".memgate.yml", yaml, strlen(yaml), &err), 0,
		     "%s: %s", def->key, err.message);
	cr_assert_eq(mg_report_parse(&x->report, "r.json", report_json, strlen(report_json), &err),
		     0, "%s", err.message);
	if (t == MG_MEMORY_CAP_MB) {
		/* the strategy must fail the cap: raise its peak above it */
		x->report->evidence.candidates[1].metric[MG_M_PEAK].value = 9990;
	}
	x->result.policy = x->policy;
	x->result.report = x->report;
	x->result.policy_ref.path = ".memgate.yml";
	x->result.report_ref.path = "r.json";
	cr_assert_eq(mg_decide(&x->result.decision, &x->policy->rules, &x->report->evidence,
			       NULL, NULL, 0, &err), 0, "%s", err.message);
	x->result.fail_on[MG_REJECT] = x->result.fail_on[MG_TUNE] = true;
	x->result.passed = !x->result.fail_on[x->result.decision->verdict];
	x->item.policy = ".memgate.yml";
	x->item.result = &x->result;
	cr_assert_eq(mg_output_token(token), 0);
	mg_fx_filled(&x->result);
	x->out[0] = mg_text_render(&x->result);
	x->out[1] = mg_github_render(&x->result, token);
	x->out[2] = mg_summary_render(&x->result);
	x->out[3] = mg_junit_render(&x->result);
	x->out[4] = mg_record_render(&x->result);
	x->out[5] = mg_sarif_render(&x->item, 1, "test");
	x->out[6] = mg_codequality_render(&x->item, 1);
}

static void release(struct rendered *x)
{
	size_t i;

	for (i = 0; i < 7; i++)
		free(x->out[i]);
	mg_findings_free(x->result.findings, x->result.finding_count);
	mg_decision_free(x->result.decision);
	mg_policy_free(x->policy);
	mg_report_free(x->report);
}

static void expect_in(const struct rendered *x, size_t which, const char *want, const char *key)
{
	cr_assert(x->out[which] && strstr(x->out[which], want),
		  "%s: the %s output lacks '%s':\n%s", key, renderer_names[which], want,
		  x->out[which] ? x->out[which] : "(null)");
}

Test(tables, every_threshold_fails_alike_in_every_renderer)
{
	struct rendered x;
	char words[128];
	size_t i;
	int t;

	for (t = 0; t < MG_MAX_PEAK_INCREASE_MB; t++) {
		const mg_threshold_def *def = mg_threshold_def_of((enum mg_threshold)t);
		const char *reason = mg_reason_name(def->reason);
		const mg_evaluation *e;

		render_threshold(&x, (enum mg_threshold)t);
		e = &x.result.decision->base.evaluations[1];
		cr_assert(e->reasons & (1u << def->reason), "%s: the core does not fail it", def->key);
		cr_assert_eq(e->status, MG_STATUS_REJECTED, "%s", def->key);
		for (i = 0; i < 7; i++)
			expect_in(&x, i, reason, def->key);
		/* each shows the check in the table's words */
		snprintf(words, sizeof(words), "  %s ", def->column);
		expect_in(&x, 0, words, def->key);                 /* text cell: "ratio 0.5 < 0.9" */
		snprintf(words, sizeof(words), ": %s ", def->label);
		expect_in(&x, 1, words, def->key);                 /* "strategy: throughput ratio ..." */
		snprintf(words, sizeof(words), "| %s%s %s", def->label, def->unit,
			 def->ceiling ? "\xe2\x89\xa4" : "\xe2\x89\xa5");
		expect_in(&x, 2, words, def->key);                 /* summary column "peak MB ≤" */
		snprintf(words, sizeof(words), "%s ", def->label);
		expect_in(&x, 3, words, def->key);
		snprintf(words, sizeof(words), "\"%s\"", def->key);
		expect_in(&x, 4, words, def->key);                 /* the record's budget */
		release(&x);
	}
}

Test(tables, every_outcome_the_core_gives_is_named_in_the_record)
{
	struct rendered x;
	int t;

	for (t = 0; t < MG_MAX_PEAK_INCREASE_MB; t++) {
		char want[128];

		render_threshold(&x, (enum mg_threshold)t);
		snprintf(want, sizeof(want), "\"reason\":\t\"%s\"",
			 mg_outcome_name(x.result.decision->reason));
		expect_in(&x, 4, want, mg_threshold_name((enum mg_threshold)t));
		snprintf(want, sizeof(want), "\"next_action\":\t\"%s\"",
			 mg_next_action_name(x.result.decision->next_action));
		expect_in(&x, 4, want, mg_threshold_name((enum mg_threshold)t));
		release(&x);
	}
}
