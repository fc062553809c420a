/*
 * GitHub Actions annotations and step outputs: include/memgate/github.h.
 *
 * What memgate prints is read back the way the runner reads it
 * (memgate(1), SECURITY, "Escaping for CI"): a workflow-command parser
 * with the stop-commands state machine and the legacy '##[' syntax, and the
 * GITHUB_OUTPUT env-file parser.  Tests assert exactly which commands run.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "findings.h"
#include "memgate/check.h"
#include "fixture.h"
#include "helpers.h"
#include "digest.h"
#include "memgate/escape.h"
#include "memgate/output.h"
#include "memgate/github.h"
#include "memgate/manifest.h"

#define BIT(r) (1u << (r))
#define POLICY ".memgate.yml"
#define MANIFEST "bench/75_manifest.json"
#define REPORT "bench/76_report.json"
#define TOKEN "0123456789abcdef0123456789abcdef"
#define MAX_CANDIDATES 40

/* ---- a hand-built result ---- */

/* The real flat report's four candidates against memory_cap_mb 11200,
 * min_samples_per_s 1, min_memory_saving_mb 256 and max_eval_loss 12.6:
 * checkpoint is accepted; the baseline misses the saving target and offload
 * the samples floor.  Every input position is set. */
static struct {
	mg_check_result r;
	mg_decision d;
	mg_evaluation ev[MAX_CANDIDATES];
	size_t feasible[MAX_CANDIDATES];
	mg_scenario sc[3];
	mg_policy policy;
	mg_pos stricter_pos[2];
	mg_pos grid_pos[1];
	mg_manifest manifest;
	mg_report report;
	mg_candidate cand[MAX_CANDIDATES];
	char names[MAX_CANDIDATES][16];
	char *warnings[2];
} fx;

/* Candidate i: its evaluation (mg_fx_evaluation) and the report's candidate
 * behind it, each metric at its own line. */
static void set_eval(size_t i, mg_fx_candidate c)
{
	mg_evaluation *e = &fx.ev[i];
	int m;

	*e = mg_fx_evaluation(i, c);
	fx.cand[i].name = (char *)c.name;
	fx.cand[i].status = "ok";
	fx.cand[i].repeats = 1;
	fx.cand[i].pos = (mg_pos){ 30 + 10 * (int)i, 5 };
	for (m = 0; m < MG_METRIC_COUNT; m++)
		fx.cand[i].metric[m] = (mg_metric){ .state = MG_METRIC_NUMBER,
						    .value = e->value[m],
						    .pos = { 31 + 10 * (int)i, 7 } };
	fx.d.base.count = fx.report.evidence.candidate_count = i + 1 > fx.d.base.count ?
		i + 1 : fx.d.base.count;
}

static void build_policy(void)
{
	mg_policy *p = &fx.policy;

	p->path = POLICY;
	p->manifest = MANIFEST;
	p->manifest_pos = (mg_pos){ 2, 11 };
	p->threshold_pos[MG_MEMORY_CAP_MB] = (mg_pos){ 10, 18 };
	p->threshold_pos[MG_MIN_SAMPLES_PER_S] = (mg_pos){ 11, 22 };
	p->threshold_pos[MG_MIN_MEMORY_SAVING_MB] = (mg_pos){ 12, 25 };
	p->threshold_pos[MG_MIN_THROUGHPUT_RATIO] = (mg_pos){ 13, 25 };
	p->threshold_pos[MG_MAX_EVAL_LOSS] = (mg_pos){ 15, 18 };
	p->threshold_pos[MG_MAX_RELATIVE_EVAL_LOSS] = (mg_pos){ 16, 27 };
	p->threshold_pos[MG_MAX_QUALITY_DELTA] = (mg_pos){ 17, 22 };
	p->rules.baseline = "baseline";
	p->rules.min_repeats = 1;
	p->rules.pin[MG_ID_WORKLOAD] = (mg_value){ MG_VALUE_STRING, 0, "pressure", { 5, 16 } };
	p->rules.pin[MG_ID_HARDWARE] = (mg_value){ MG_VALUE_STRING, 0, "gpu-a", { 6, 16 } };
	p->rules.pin[MG_ID_MODEL] = (mg_value){ MG_VALUE_STRING, 0, "Qwen", { 7, 13 } };
	p->rules.stricter_count = 2;
	p->stricter_pos = fx.stricter_pos;
	fx.stricter_pos[0] = (mg_pos){ 20, 7 };
	fx.stricter_pos[1] = (mg_pos){ 21, 7 };
	p->grid_pos = fx.grid_pos;
	fx.grid_pos[0] = (mg_pos){ 23, 5 };
	p->fail_on_set = true;
	p->fail_on[MG_REJECT] = p->fail_on[MG_TUNE] = true;
	p->fail_on_pos = (mg_pos){ 25, 12 };
}

static void build_manifest(void)
{
	mg_manifest *m = &fx.manifest;

	m->path = MANIFEST;
	m->source_path = REPORT;
	m->source_path_pos = (mg_pos){ 3, 13 };
	m->source_sha256 = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
	m->source_sha256_pos = (mg_pos){ 4, 15 };
	m->schema_version = "training-memory-benchmark/v1";
	m->schema_version_pos = (mg_pos){ 5, 23 };
	m->semantic_id = "PERF-MEMORY-STRATEGY";
	m->semantic_id_pos = (mg_pos){ 6, 20 };
	m->has_approved = true;
	m->approved_path = "bench/75_decision.json";
	m->approved_path_pos = (mg_pos){ 9, 13 };
	m->approved_sha256 = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd";
	m->approved_sha256_pos = (mg_pos){ 10, 15 };
}

static void build_report(void)
{
	mg_evidence *ev = &fx.report.evidence;

	fx.report.path = REPORT;
	fx.report.schema_version = (mg_value){ MG_VALUE_STRING, 0, "other/v2", { 2, 21 } };
	fx.report.semantic_id = (mg_value){ MG_VALUE_ABSENT, 0, NULL, { 1, 1 } };
	ev->identity[MG_ID_WORKLOAD] = (mg_value){ MG_VALUE_STRING, 0, "pressure", { 12, 17 } };
	ev->identity[MG_ID_HARDWARE] = (mg_value){ MG_VALUE_STRING, 0, "gpu-a", { 13, 15 } };
	ev->identity[MG_ID_MODEL] = (mg_value){ MG_VALUE_STRING, 0, "Qwen", { 14, 17 } };
	ev->handoff_status = (mg_value){ MG_VALUE_ABSENT, 0, NULL, { 1, 1 } };
	ev->eligible_pos = (mg_pos){ 1, 1 };
	ev->candidates_present = true;
	ev->candidates_pos = (mg_pos){ 29, 17 };
	ev->candidates = fx.cand;
}

static void build_decision(void)
{
	mg_decision *d = &fx.d;
	size_t i;

	for (i = 0; i < MG_FX_SEED_COUNT; i++)
		set_eval(i, mg_fx_seed(i));
	fx.feasible[0] = 1;
	fx.feasible[1] = 3;
	d->verdict = MG_ACCEPT;
	d->reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	d->next_action = MG_N_SEND_TO_REGRESSION_ACCEPTANCE;
	d->selected = d->best = "checkpoint";
	d->applicable = true;
	mg_fx_threshold(&d->budget, MG_MEMORY_CAP_MB, 11200);
	mg_fx_threshold(&d->budget, MG_MIN_SAMPLES_PER_S, 1.0);
	mg_fx_threshold(&d->budget, MG_MIN_MEMORY_SAVING_MB, 256);
	mg_fx_threshold(&d->budget, MG_MAX_EVAL_LOSS, 12.6);
	d->base = (mg_screening){
		.evaluations = fx.ev,
		.count = MG_FX_SEED_COUNT,
		.feasible = fx.feasible,
		.feasible_count = 2,
		.baseline_measured = true,
	};
	mg_fx_ceiling(&d->base, MG_MAX_EVAL_LOSS, 12.6);
	d->sensitivity_evaluated = true;
	d->scenarios = fx.sc;
	d->scenario_count = 2;
	snprintf(fx.sc[0].id, sizeof(fx.sc[0].id), "stricter[0]");
	mg_fx_threshold(&fx.sc[0].overrides, MG_MEMORY_CAP_MB, 9452);
	snprintf(fx.sc[1].id, sizeof(fx.sc[1].id), "stricter[1]");
	mg_fx_threshold(&fx.sc[1].overrides, MG_MIN_SAMPLES_PER_S, 1.5);
	snprintf(fx.sc[2].id, sizeof(fx.sc[2].id), "grid[0]");
	mg_fx_threshold(&fx.sc[2].overrides, MG_MIN_SAMPLES_PER_S, 1.8);
	fx.sc[0].best = fx.sc[1].best = fx.sc[2].best = "checkpoint";
	d->best_candidate_stable = d->feasible_set_stable = d->stability_tested = true;
	d->interpretation = "stable";
}

static void set_ref(mg_input_ref *ref, const char *path)
{
	ref->path = (char *)path;
	memset(ref->commit, '1', 40);
	memset(ref->blob, 'b', 40);
	memset(ref->sha256, 'e', 64);
	ref->read = true;
}

static mg_check_result *build(void)
{
	mg_check_result *r = &fx.r;

	mg_findings_free(fx.r.findings, fx.r.finding_count);   /* the last test's */
	memset(&fx, 0, sizeof(fx));
	build_policy();
	build_manifest();
	build_report();
	build_decision();
	fx.policy.rules.budget = fx.d.budget;
	memset(r->rev, '1', 40);
	memset(r->policy_rev, '1', 40);
	set_ref(&r->policy_ref, POLICY);
	set_ref(&r->manifest_ref, MANIFEST);
	set_ref(&r->report_ref, REPORT);
	r->policy = &fx.policy;
	r->manifest = &fx.manifest;
	r->report = &fx.report;
	r->decision = &fx.d;
	r->fail_on[MG_REJECT] = r->fail_on[MG_TUNE] = true;
	r->passed = true;
	return r;
}

/* Make the gate fail with a tune decision (targets missed). */
static void fail_gate(void)
{
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	fx.d.next_action = MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION;
	fx.r.passed = false;
}

/* Candidates 0..n-1 named c00, c01, ...: each rejected for `reasons`. */
static void many_candidates(size_t n, unsigned reasons)
{
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(fx.names[i], sizeof(fx.names[i]), "c%02zu", i);
		set_eval(i, (mg_fx_candidate){ .name = fx.names[i], .status = MG_STATUS_REJECTED,
					     .reasons = reasons, .peak = 12000 + (double)i,
					     .samples = 2, .loss = 12 });
	}
	fx.d.base.count = fx.report.evidence.candidate_count = n;
	fx.d.base.feasible_count = 0;
	fx.d.selected = fx.d.best = NULL;
}

/* ---- the runner's reading of workflow commands ---- */

#define MAX_PROPS 8
#define MAX_COMMANDS 128

typedef struct gh_cmd {
	char *name;
	char *key[MAX_PROPS], *value[MAX_PROPS];
	size_t props;
	char *data;
} gh_cmd;

typedef struct gh_run {
	gh_cmd cmd[MAX_COMMANDS];   /* the commands that ran, in order */
	size_t count;
	char *token;                /* the stop-commands token */
	bool stopped;               /* commands are stopped at the end */
	size_t stopped_lines;       /* lines printed while stopped */
	size_t stops;               /* times stop-commands ran */
} gh_run;

static const char *const registered[] = {
	"error", "warning", "notice", "debug", "group", "endgroup", "add-mask", "echo",
	"set-output", "save-state", "set-env", "add-path", "add-matcher", "remove-matcher",
	"stop-commands",
};

static bool is_command(const gh_run *run, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(registered) / sizeof(registered[0]); i++)
		if (!strcasecmp(name, registered[i]))
			return true;
	return run->stopped && run->token && !strcasecmp(name, run->token);
}

/* ActionCommand.cs: each mapping replaced in turn, %25 last. */
static char *unescape(const char *s, size_t len, bool property)
{
	static const char *const map[][2] = {
		{ "%0D", "\r" }, { "%0A", "\n" }, { "%3A", ":" }, { "%2C", "," }, { "%25", "%" },
	};
	char *text = mg_xstrndup(s, len);
	size_t k;

	for (k = 0; k < 5; k++) {
		mg_buf b = MG_BUF_INIT;
		const char *p = text, *hit;

		if (!property && (k == 2 || k == 3))
			continue;
		while ((hit = strstr(p, map[k][0]))) {
			mg_buf_put(&b, p, (size_t)(hit - p));
			mg_buf_puts(&b, map[k][1]);
			p = hit + 3;
		}
		mg_buf_puts(&b, p);
		free(text);
		text = mg_buf_detach(&b, NULL);
	}
	return text;
}

/* The properties: trimmed, split on ',' without empty pieces, each split
 * on its first '='; a piece without a key or a value is dropped. */
static void parse_props(gh_cmd *c, const char *s, size_t len)
{
	const char *end = s + len, *piece, *comma, *eq;

	while (s < end && isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	for (piece = s; piece < end; piece = comma + 1) {
		comma = memchr(piece, ',', (size_t)(end - piece));
		if (!comma)
			comma = end;
		eq = memchr(piece, '=', (size_t)(comma - piece));
		if (eq && eq > piece && eq + 1 < comma && c->props < MAX_PROPS) {
			c->key[c->props] = mg_xstrndup(piece, (size_t)(eq - piece));
			c->value[c->props++] = unescape(eq + 1, (size_t)(comma - eq - 1), true);
		}
	}
}

/* TryParseV2: '::' after leading white space, cmdInfo up to the next '::'. */
static bool parse_v2(gh_cmd *c, const gh_run *run, const char *line)
{
	const char *end, *space, *info;
	char *name;

	while (isspace((unsigned char)*line))
		line++;
	if (strncmp(line, "::", 2) || !(end = strstr(line + 2, "::")))
		return false;
	info = line + 2;
	space = memchr(info, ' ', (size_t)(end - info));
	name = mg_xstrndup(info, (size_t)((space ? space : end) - info));
	if (!is_command(run, name)) {
		free(name);
		return false;
	}
	c->name = name;
	if (space)
		parse_props(c, space + 1, (size_t)(end - space - 1));
	c->data = unescape(end + 2, strlen(end + 2), false);
	return true;
}

/* TryParse (V1): '##[name props]data' anywhere in the line. */
static bool parse_v1(gh_cmd *c, const gh_run *run, const char *line)
{
	const char *open = strstr(line, "##["), *close, *space;
	char *name;

	if (!open || !(close = strchr(open, ']')))
		return false;
	open += 3;
	space = memchr(open, ' ', (size_t)(close - open));
	name = mg_xstrndup(open, (size_t)((space ? space : close) - open));
	if (!is_command(run, name)) {
		free(name);
		return false;
	}
	c->name = name;
	c->data = mg_xstrdup(close + 1);
	return true;
}

static void free_cmd(gh_cmd *c)
{
	size_t i;

	for (i = 0; i < c->props; i++) {
		free(c->key[i]);
		free(c->value[i]);
	}
	free(c->name);
	free(c->data);
	memset(c, 0, sizeof(*c));
}

/* One output line, as ActionCommandManager.TryProcessCommand sees it. */
static void process_line(gh_run *run, const char *line)
{
	gh_cmd c = { 0 };

	if (!parse_v2(&c, run, line) && !parse_v1(&c, run, line)) {
		run->stopped_lines += run->stopped;
		return;
	}
	if (run->stopped) {
		if (!strcasecmp(c.name, run->token))
			run->stopped = false;
		else
			run->stopped_lines++;
		free_cmd(&c);
	} else if (!strcasecmp(c.name, "stop-commands")) {
		cr_assert(c.data[0] && !is_command(run, c.data) && strcasecmp(c.data, "pause-logging"),
			  "invalid stop token '%s'", c.data);
		free(run->token);
		run->token = mg_xstrdup(c.data);
		run->stopped = true;
		run->stops++;
		free_cmd(&c);
	} else {
		cr_assert(run->count < MAX_COMMANDS);
		run->cmd[run->count++] = c;
	}
}

/* Read text line by line (the runner ends lines at \n, \r and \r\n). */
static gh_run *run_commands(const char *text)
{
	gh_run *run = mg_xcalloc(1, sizeof(*run));
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\r\n");
		char *line = mg_xstrndup(p, n);

		process_line(run, line);
		free(line);
		p += n;
		if (*p == '\r' && p[1] == '\n')
			p++;
		if (*p)
			p++;
	}
	return run;
}

static void free_run(gh_run *run)
{
	size_t i;

	for (i = 0; i < run->count; i++)
		free_cmd(&run->cmd[i]);
	free(run->token);
	free(run);
}

/* The decoded value of property key (the last one given), or NULL. */
static const char *prop(const gh_cmd *c, const char *key)
{
	const char *v = NULL;
	size_t i;

	for (i = 0; i < c->props; i++)
		if (!strcasecmp(c->key[i], key))
			v = c->value[i];
	return v;
}

static void expect_prop(const gh_cmd *c, const char *key, const char *want)
{
	const char *got = prop(c, key);

	if (!want)
		cr_assert_null(got, "%s: unexpected %s=%s", c->data, key, got);
	else
		cr_assert(got && !strcmp(got, want), "%s: %s is '%s', want '%s'", c->data, key,
			  got ? got : "(absent)", want);
}

/* An annotation with exactly these properties (line/col 0: absent). */
static void expect_annotation(const gh_cmd *c, const char *level, const char *file, int line,
			      int col, const char *title, const char *data)
{
	char number[16];
	size_t i;

	cr_assert_str_eq(c->name, level, "command '%s' for '%s'", c->name, c->data);
	expect_prop(c, "file", file);
	snprintf(number, sizeof(number), "%d", line);
	expect_prop(c, "line", line ? number : NULL);
	snprintf(number, sizeof(number), "%d", col);
	expect_prop(c, "col", col ? number : NULL);
	expect_prop(c, "title", title);
	cr_assert_str_eq(c->data, data);
	for (i = 0; i < c->props; i++)
		cr_assert(strstr(",file,line,col,title,", c->key[i]) && c->key[i][0],
			  "unexpected property '%s'", c->key[i]);
}

/* Render r and run its output through the runner; checks that the log is
 * wrapped in stop-commands with the token and nothing stays stopped. */
static gh_run *render_and_run(mg_check_result *r)
{
	char *text = mg_github_render(mg_fx_filled(r), TOKEN);
	gh_run *run = run_commands(text);

	cr_assert_eq(run->stops, 1, "stop-commands ran %zu times", run->stops);
	cr_assert_str_eq(run->token, TOKEN);
	cr_assert(!run->stopped, "commands were never resumed");
	cr_assert_gt(run->stopped_lines, 5, "no log inside stop-commands");
	free(text);
	return run;
}

static size_t count_level(const gh_run *run, const char *level)
{
	size_t i, n = 0;

	for (i = 0; i < run->count; i++)
		n += !strcmp(run->cmd[i].name, level);
	return n;
}

/* ---- the token ---- */

Test(github, token_is_32_random_hex_digits)
{
	char a[MG_OUTPUT_TOKEN_SIZE], b[MG_OUTPUT_TOKEN_SIZE];

	cr_assert_eq(mg_output_token(a), 0);
	cr_assert_eq(mg_output_token(b), 0);
	cr_assert_eq(strlen(a), 32);
	cr_assert_eq(strspn(a, "0123456789abcdef"), 32, "%s", a);
	cr_assert_str_neq(a, b);
}

/* ---- annotations ---- */

Test(github, passing_gate_gives_exactly_the_intended_commands)
{
	gh_run *run = render_and_run(build());

	/* the baseline's own 0 MB saving is not a finding */
	cr_assert_eq(run->count, 2);
	expect_annotation(&run->cmd[0], "notice", POLICY, 25, 12, "memgate: accept",
			  "accept (selection_stable_across_thresholds): next action "
			  "send_to_regression_acceptance; selected checkpoint");
	expect_annotation(&run->cmd[1], "warning", POLICY, 11, 22,
			  "memgate: samples_per_s_below_floor (offload)",
			  "offload: samples/s 0.533 < min_samples_per_s 1");
	free_run(run);
}

/* A failing gate: the decision and hard limits are errors, missed targets
 * warnings; the selected candidate's reasons come first. */
Test(github, failing_gate_uses_errors_for_hard_limits_and_warnings_for_targets)
{
	gh_run *run;

	build();
	fail_gate();
	fx.ev[1].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 3);
	expect_annotation(&run->cmd[0], "error", POLICY, 25, 12, "memgate: tune",
			  "tune (memory_saving_below_meaningful_threshold): next action "
			  "test_larger_pressure_or_optimizer_compression; selected checkpoint");
	expect_annotation(&run->cmd[1], "warning", POLICY, 12, 25,
			  "memgate: memory_saving_below_floor (checkpoint)",
			  "checkpoint: memory saving 331.98 MB < min_memory_saving_mb 256");
	expect_annotation(&run->cmd[2], "error", POLICY, 11, 22,
			  "memgate: samples_per_s_below_floor (offload)",
			  "offload: samples/s 0.533 < min_samples_per_s 1");
	free_run(run);
}

/* The baseline compared with itself (saving 0, ratio 1, delta 0) is not a
 * finding, on a passing or a failing gate; its hard limits still are, and
 * so is another candidate's missed target. */
Test(github, the_baseline_compared_with_itself_is_not_a_finding)
{
	gh_run *run;

	build();
	fail_gate();
	fx.ev[0].reasons = BIT(MG_R_MEMORY_OVER_BUDGET) | BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR) |
			   BIT(MG_R_THROUGHPUT_BELOW_FLOOR) | BIT(MG_R_QUALITY_DELTA_OVER_LIMIT);
	fx.ev[2].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 3);
	cr_assert_str_eq(prop(&run->cmd[1], "title"), "memgate: memory_over_budget (baseline)");
	cr_assert_str_eq(prop(&run->cmd[2], "title"), "memgate: memory_saving_below_floor (offload)");
	free_run(run);
	/* a baseline under another name (evidence.baseline) */
	build();
	fx.policy.rules.baseline = "checkpoint";
	fx.ev[0].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	fx.ev[1].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	fx.ev[2].reasons = 0;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 2);
	cr_assert_str_eq(prop(&run->cmd[1], "title"), "memgate: memory_saving_below_floor (baseline)");
	free_run(run);
}

Test(github, decision_points_at_line_1_without_gate_fail_on)
{
	gh_run *run;

	build();
	fx.policy.fail_on_set = false;
	fx.policy.fail_on_pos = (mg_pos){ 0, 0 };
	fx.d.selected = NULL;
	run = render_and_run(&fx.r);
	expect_annotation(&run->cmd[0], "notice", POLICY, 1, 0, "memgate: accept",
			  "accept (selection_stable_across_thresholds): next action "
			  "send_to_regression_acceptance; selected none");
	free_run(run);
}

/* Each threshold reason points at its line in the policy, with the
 * candidate's (or derived) value against the threshold. */
Test(github, threshold_reasons_point_at_the_policy_line_of_their_threshold)
{
	gh_run *run;

	build();
	fail_gate();
	mg_fx_threshold(&fx.d.budget, MG_MEMORY_CAP_MB, 9000);
	mg_fx_threshold(&fx.d.budget, MG_MIN_THROUGHPUT_RATIO, 0.9);
	mg_fx_threshold(&fx.d.budget, MG_MAX_QUALITY_DELTA, 0.01);
	fx.ev[3].value[MG_M_EVAL_LOSS] = 12.7;
	fx.ev[3].value[MG_M_DELTA] = 12.7 - 12.356503;
	fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[3].reasons = BIT(MG_R_MEMORY_OVER_BUDGET) | BIT(MG_R_QUALITY_OVER_FLOOR) |
			   BIT(MG_R_THROUGHPUT_BELOW_FLOOR) | BIT(MG_R_QUALITY_DELTA_OVER_LIMIT);
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.d.selected = fx.d.best = "hybrid";
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 5);
	expect_annotation(&run->cmd[1], "error", POLICY, 10, 18, "memgate: memory_over_budget (hybrid)",
			  "hybrid: peak 9454.64 MB > memory_cap_mb 9000");
	expect_annotation(&run->cmd[2], "error", POLICY, 15, 18, "memgate: quality_over_floor (hybrid)",
			  "hybrid: eval_loss 12.7 > max_eval_loss 12.6");
	expect_annotation(&run->cmd[3], "warning", POLICY, 13, 25,
			  "memgate: throughput_below_floor (hybrid)",
			  "hybrid: throughput ratio 0.635142 < min_throughput_ratio 0.9");
	expect_annotation(&run->cmd[4], "warning", POLICY, 17, 22,
			  "memgate: quality_delta_over_limit (hybrid)",
			  "hybrid: quality delta 0.343497 > max_quality_delta 0.01");
	free_run(run);
}

Test(github, relative_quality_ceiling_names_the_effective_ceiling)
{
	gh_run *run;

	build();
	fail_gate();
	fx.d.budget.set[MG_MAX_EVAL_LOSS] = false;
	mg_fx_threshold(&fx.d.budget, MG_MAX_RELATIVE_EVAL_LOSS, 0.02);
	fx.d.base.quality_ceiling = 12.356503 * 1.02;
	fx.d.base.quality_ceiling_from = MG_MAX_RELATIVE_EVAL_LOSS;
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.ev[1].value[MG_M_EVAL_LOSS] = 12.7;
	fx.ev[1].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = BIT(MG_R_QUALITY_OVER_FLOOR);
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 2);
	expect_annotation(&run->cmd[1], "error", POLICY, 16, 27,
			  "memgate: quality_over_floor (checkpoint)",
			  "checkpoint: eval_loss 12.7 > 12.60363306, the ceiling of "
			  "max_relative_eval_loss 0.02");
	free_run(run);
}

/* Steps 1-6 point at the candidate in the report, or at the bad metric. */
Test(github, screening_reasons_point_at_the_candidate_in_the_report)
{
	gh_run *run;

	build();
	fail_gate();
	fx.policy.rules.min_repeats = 3;
	fx.ev[0] = (mg_evaluation){ .index = 0, .name = NULL, .status = MG_STATUS_INVALID,
				    .reasons = BIT(MG_R_MISSING_OR_DUPLICATE_NAME) };
	fx.ev[1].status = MG_STATUS_OOM;
	fx.ev[1].reasons = BIT(MG_R_OOM);
	fx.ev[2].status = MG_STATUS_EXCLUDED;
	fx.ev[2].reasons = BIT(MG_R_EVIDENCE_NOT_COMPARABLE);
	fx.cand[2].status = "failed";
	fx.ev[3].status = MG_STATUS_INVALID;
	fx.ev[3].reasons = BIT(MG_R_INSUFFICIENT_REPEATS);
	fx.d.selected = fx.d.best = NULL;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 5);
	expect_annotation(&run->cmd[1], "error", REPORT, 30, 5,
			  "memgate: missing_or_duplicate_name ((no name))",
			  "(no name): the name is missing or not a string");
	expect_annotation(&run->cmd[2], "error", REPORT, 40, 5, "memgate: oom (checkpoint)",
			  "checkpoint: ran out of memory (status oom or metrics.oom)");
	expect_annotation(&run->cmd[3], "error", REPORT, 60, 5,
			  "memgate: insufficient_repeats (hybrid)",
			  "hybrid: 1 repeat, fewer than evidence.min_repeats 3");
	expect_annotation(&run->cmd[4], "warning", REPORT, 50, 5,
			  "memgate: evidence_not_comparable (offload)",
			  "offload: status 'failed' is neither 'ok' nor 'comparable'");
	free_run(run);
}

Test(github, missing_metric_points_at_the_metric_or_the_candidate)
{
	gh_run *run;

	build();
	fail_gate();
	fx.ev[0].reasons = 0;
	fx.ev[1].status = fx.ev[2].status = MG_STATUS_INVALID;
	fx.ev[1].reasons = fx.ev[2].reasons = BIT(MG_R_MISSING_OR_NON_NUMERIC_METRIC);
	fx.cand[1].metric[MG_M_SAMPLES] = (mg_metric){ .state = MG_METRIC_INVALID,
							   .pos = { 44, 23 } };
	fx.cand[2].metric[MG_M_PEAK] = (mg_metric){ .state = MG_METRIC_ABSENT };
	fx.ev[1].missing_metric = MG_M_SAMPLES;   /* the core says which */
	fx.ev[2].missing_metric = MG_M_PEAK;
	fx.ev[3].status = MG_STATUS_INVALID;
	fx.ev[3].reasons = BIT(MG_R_MISSING_OR_DUPLICATE_NAME);
	fx.ev[3].name = "checkpoint";
	fx.d.selected = fx.d.best = NULL;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 4);
	expect_annotation(&run->cmd[1], "error", REPORT, 44, 23,
			  "memgate: missing_or_non_numeric_metric (checkpoint)",
			  "checkpoint: samples_per_s is not a finite number");
	expect_annotation(&run->cmd[2], "error", REPORT, 50, 5,
			  "memgate: missing_or_non_numeric_metric (offload)",
			  "offload: peak_memory_mb is missing");
	expect_annotation(&run->cmd[3], "error", REPORT, 60, 5,
			  "memgate: missing_or_duplicate_name (checkpoint)",
			  "checkpoint: the name is already used by candidate #2");
	free_run(run);
}

/* Each evidence issue points at the manifest or report field it concerns,
 * before any candidate. */
Test(github, evidence_issues_point_at_the_manifest_and_report_fields)
{
	gh_run *run;
	int i;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	fx.d.next_action = MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE;
	fx.d.selected = NULL;
	fx.d.applicable = false;
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		fx.d.issue[i] = true;
	fx.d.issue[MG_ISSUE_WORKLOAD_MISMATCH] = fx.d.issue[MG_ISSUE_HARDWARE_MISSING] = false;
	fx.d.issue[MG_ISSUE_APPROVED_RESULT_MISSING] = false;
	/* the measured commit's issues have their own tests (tests/e2e/t_fresh.sh) */
	fx.d.issue[MG_ISSUE_MEASURED_COMMIT_MISSING] = false;
	fx.d.issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = false;
	fx.d.issue[MG_ISSUE_EVIDENCE_STALE] = false;
	/* and so has an approval of other evidence (tests/e2e/t_custody.sh) */
	fx.d.issue[MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE] = false;
	fx.report.evidence.handoff_status = (mg_value){ MG_VALUE_STRING, 0, "draft", { 3, 13 } };
	fx.report.evidence.identity[MG_ID_WORKLOAD] = (mg_value){ MG_VALUE_ABSENT, 0, NULL, { 1, 1 } };
	fx.report.evidence.identity[MG_ID_HARDWARE].string = "gpu-b";
	fx.report.evidence.eligible_pos = (mg_pos){ 1, 1 };
	fx.cand[3].aggregate_outside_runs = true;
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	set_ref(&fx.r.approved_ref, "bench/75_decision.json");
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 10, "%zu commands", run->count);
	expect_annotation(&run->cmd[1], "error", MANIFEST, 4, 15, "memgate: report_hash_mismatch",
			  "report 'bench/76_report.json' has SHA-256 "
			  "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee; the manifest "
			  "pins ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
			  "; if this report is the one to gate, pin it with 'memgate manifest --report bench/76_report.json --out bench/75_manifest.json --force' and commit the manifest");
	expect_annotation(&run->cmd[2], "error", MANIFEST, 5, 23, "memgate: schema_version_mismatch",
			  "the manifest pins schema_version 'training-memory-benchmark/v1'; "
			  "the report has 'other/v2'");
	expect_annotation(&run->cmd[3], "error", MANIFEST, 6, 20, "memgate: semantic_id_mismatch",
			  "the manifest pins semantic_id 'PERF-MEMORY-STRATEGY'; the report has no semantic_id");
	expect_annotation(&run->cmd[4], "error", MANIFEST, 10, 15,
			  "memgate: approved_result_hash_mismatch",
			  "approved result 'bench/75_decision.json' has SHA-256 "
			  "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee; the manifest pins "
			  "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
	expect_annotation(&run->cmd[5], "error", REPORT, 3, 13, "memgate: handoff_not_ready",
			  "the report's status is 'draft', not 'ready_for_budget_review'");
	expect_annotation(&run->cmd[6], "error", REPORT, 1, 1, "memgate: workload_missing",
			  "the report has no workload_id (read from workload_id or config.workload); "
			  "the policy pins 'pressure'");
	expect_annotation(&run->cmd[7], "error", REPORT, 13, 15, "memgate: hardware_mismatch",
			  "the report's hardware_id is 'gpu-b'; the policy pins 'gpu-a'");
	expect_annotation(&run->cmd[8], "error", REPORT, 14, 17, "memgate: model_mismatch",
			  "the report's model_id is 'Qwen'; the policy pins 'Qwen'");
	free_run(run);
}

Test(github, missing_lists_and_outside_aggregates_point_at_the_report)
{
	gh_run *run;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	fx.d.next_action = MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE;
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING] = true;
	fx.d.issue[MG_ISSUE_CANDIDATES_MISSING] = true;
	fx.d.issue[MG_ISSUE_AGGREGATE_OUTSIDE_RUNS] = true;
	fx.d.issue[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	fx.report.evidence.eligible_pos = (mg_pos){ 7, 26 };
	fx.cand[3].aggregate_outside_runs = true;
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 5, "%zu commands", run->count);
	expect_annotation(&run->cmd[1], "error", MANIFEST, 9, 13, "memgate: approved_result_missing",
			  "approved result 'bench/75_decision.json' is not in the commit");
	expect_annotation(&run->cmd[2], "error", REPORT, 7, 26,
			  "memgate: eligible_candidates_missing",
			  "the handoff report lists no eligible_candidates");
	expect_annotation(&run->cmd[3], "error", REPORT, 29, 17, "memgate: candidates_missing",
			  "the report has no candidates");
	expect_annotation(&run->cmd[4], "error", REPORT, 60, 5,
			  "memgate: aggregate_outside_runs (hybrid)",
			  "hybrid: an aggregate value lies outside the [min, max] of its runs");
	free_run(run);
}

/* Evidence first, then the selected candidate, then hard limits, then
 * missed targets. */
Test(github, most_important_findings_come_first)
{
	gh_run *run;

	build();
	fail_gate();
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[3].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	fx.d.selected = "hybrid";
	fx.ev[1].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 5);
	cr_assert_str_eq(prop(&run->cmd[1], "title"), "memgate: report_hash_mismatch");
	cr_assert_str_eq(prop(&run->cmd[2], "title"), "memgate: memory_saving_below_floor (hybrid)");
	cr_assert_str_eq(prop(&run->cmd[3], "title"), "memgate: samples_per_s_below_floor (offload)");
	cr_assert_str_eq(prop(&run->cmd[4], "title"), "memgate: memory_saving_below_floor (checkpoint)");
	free_run(run);
}

/* 30 hard findings and the decision: 9 errors are shown, then one that
 * counts the other 22; the log still holds all 30. */
Test(github, at_most_ten_errors_then_one_that_counts_the_rest)
{
	char *text;
	gh_run *run;
	size_t i;

	build();
	fail_gate();
	many_candidates(30, BIT(MG_R_MEMORY_OVER_BUDGET));
	text = mg_github_render(mg_fx_filled(&fx.r), TOKEN);
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 10);
	cr_assert_eq(count_level(run, "error"), 10);
	expect_annotation(&run->cmd[1], "error", POLICY, 10, 18, "memgate: memory_over_budget (c00)",
			  "c00: peak 12000 MB > memory_cap_mb 11200");
	expect_annotation(&run->cmd[8], "error", POLICY, 10, 18, "memgate: memory_over_budget (c07)",
			  "c07: peak 12007 MB > memory_cap_mb 11200");
	expect_annotation(&run->cmd[9], "error", NULL, 0, 0, "memgate: 22 more errors",
			  "and 22 more errors: see the job summary or the log of this step");
	for (i = 0; i < 30; i++) {
		char want[96];

		snprintf(want, sizeof(want), "error: c%02zu: peak %zu MB > memory_cap_mb 11200 "
			 "[memory_over_budget]\n", i, 12000 + i);
		cr_assert_not_null(strstr(text, want), "the log lacks %s", want);
	}
	free_run(run);
	free(text);
}

/* Levels are counted apart: 12 warnings and 12 notices on a passing gate. */
Test(github, each_level_has_its_own_limit)
{
	gh_run *run;

	build();
	many_candidates(12, BIT(MG_R_MEMORY_OVER_BUDGET) | BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR));
	run = render_and_run(&fx.r);
	cr_assert_eq(count_level(run, "error"), 0);
	cr_assert_eq(count_level(run, "warning"), 10);
	cr_assert_eq(count_level(run, "notice"), 10);
	expect_annotation(&run->cmd[run->count - 2], "warning", NULL, 0, 0, "memgate: 3 more warnings",
			  "and 3 more warnings: see the job summary or the log of this step");
	expect_annotation(&run->cmd[run->count - 1], "notice", NULL, 0, 0, "memgate: 4 more notices",
			  "and 4 more notices: see the job summary or the log of this step");
	free_run(run);
}

Test(github, exactly_ten_per_level_needs_no_closing_annotation)
{
	gh_run *run;

	build();
	fail_gate();
	many_candidates(9, BIT(MG_R_MEMORY_OVER_BUDGET));
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 10);
	cr_assert_eq(count_level(run, "error"), 10);
	cr_assert_str_eq(prop(&run->cmd[9], "title"), "memgate: memory_over_budget (c08)");
	free_run(run);
}

Test(github, sensitive_selection_points_at_the_scenarios_that_change_it)
{
	gh_run *run;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_SELECTION_IS_THRESHOLD_SENSITIVE;
	fx.d.next_action = MG_N_COLLECT_BOUNDARY_EVIDENCE;
	fx.d.scenario_count = 3;
	fx.policy.rules.grid_count = 1;
	fx.sc[1].best = "hybrid";
	fx.sc[2].best = NULL;
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 3);
	expect_annotation(&run->cmd[1], "warning", POLICY, 21, 7,
			  "memgate: selection_is_threshold_sensitive",
			  "stricter[1] (min_samples_per_s 1.5): the winner is hybrid, not checkpoint");
	expect_annotation(&run->cmd[2], "warning", POLICY, 23, 5,
			  "memgate: selection_is_threshold_sensitive",
			  "grid[0] (min_samples_per_s 1.8): the winner is none, not checkpoint");
	free_run(run);
}

Test(github, missing_baseline_points_at_the_report_candidates)
{
	gh_run *run;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_BASELINE_MISSING_OR_INVALID;
	fx.d.next_action = MG_N_RERUN_BASELINE_BEFORE_COMPARING_CANDIDATES;
	fx.d.selected = NULL;
	fx.policy.rules.baseline = "reference";
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 2);
	expect_annotation(&run->cmd[1], "error", REPORT, 29, 17, "memgate: baseline_missing_or_invalid",
			  "no candidate is named 'reference' (evidence.baseline), so no value can be "
			  "derived from it");
	free_run(run);
}

Test(github, drift_points_at_the_approved_result_in_the_manifest)
{
	gh_run *run;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.drift = true;
	fx.d.reason = MG_O_DECISION_DRIFT;
	fx.d.next_action = MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE;
	fx.d.selected = NULL;
	fx.d.approved_checked = true;
	fx.r.approved_decision = "tune";
	fx.r.approved_selected = "hybrid";
	fx.d.computed_verdict = MG_ACCEPT;
	fx.d.computed_reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	fx.d.computed_selected = "checkpoint";
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 2);
	expect_annotation(&run->cmd[1], "error", MANIFEST, 9, 13, "memgate: decision_drift",
			  "the approved record says tune, selected hybrid; the evidence now decides "
			  "accept (selection_stable_across_thresholds), selected checkpoint");
	free_run(run);
}

Test(github, warnings_become_warning_annotations_with_their_text_escaped)
{
	gh_run *run;

	build();
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	fx.warnings[0] = "'.memgate.yml' has uncommitted changes";
	fx.warnings[1] = "candidate '::warning::y\n::error::z' 100% ##[error]w\r";
	fx.r.warnings = fx.warnings;
	fx.r.warning_count = 2;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 3);
	expect_annotation(&run->cmd[1], "warning", NULL, 0, 0, "memgate: warning",
			  "'.memgate.yml' has uncommitted changes");
	expect_annotation(&run->cmd[2], "warning", NULL, 0, 0, "memgate: warning",
			  "candidate '::warning::y\\n::error::z' 100% ##\\x5berror]w\\r");
	free_run(run);
}

/* The full log: the text rendering and every finding, inside
 * ::stop-commands::TOKEN ... ::TOKEN::, and nothing after it. */
Test(github, log_follows_the_annotations_inside_stop_commands)
{
	char *text = mg_github_render(mg_fx_filled(build()), TOKEN);
	const char *stop = strstr(text, "\n::stop-commands::" TOKEN "\n");

	cr_assert_not_null(stop, "%s", text);
	cr_assert_not_null(strstr(stop, "\nmemgate: accept (selection_stable_across_thresholds)\n"
				  "next action: send_to_regression_acceptance\n"));
	cr_assert_not_null(strstr(stop, "\nfindings:\n"
				  "  .memgate.yml:11:22: warning: offload: samples/s 0.533 < "
				  "min_samples_per_s 1 [samples_per_s_below_floor]\n"
				  "::" TOKEN "::\n"), "%s", stop);
	cr_assert_eq(strlen(strstr(text, "::" TOKEN "::\n")), strlen("::" TOKEN "::\n"));
	free(text);
}

/* Names, paths and warnings that try to break out of a command or run their
 * own: exactly the intended commands run, with exactly the intended text. */
Test(github, hostile_names_and_paths_give_exactly_the_intended_commands)
{
	static const char *const names[] = {
		"base\nline", "ck\rpt", "a%0Ab%", "::error::x", "a,b:c", "##[error]owned",
		"\x1b[31mred", "bad\xff", "<script>|",
	};
	static const char *const shown[] = {
		"base\\nline", "ck\\rpt", "a%0Ab%", "\\x3a:error::x", "a,b:c", "##\\x5berror]owned",
		"\\x1b[31mred", "bad\\xff", "<script>|",
	};
	const char *policy = "cfg/a,b: c%25\n::error::p.yml", *report = "r/%0A,x:y.json";
	char title[96], data[128];
	gh_run *run;
	size_t i;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	fx.d.next_action = MG_N_REWORK_STRATEGY_OR_BUDGET;
	many_candidates(9, BIT(MG_R_MEMORY_OVER_BUDGET));
	for (i = 0; i < 9; i++)
		fx.ev[i].name = fx.cand[i].name = (char *)names[i];
	fx.ev[8].status = MG_STATUS_OOM;
	fx.ev[8].reasons = BIT(MG_R_OOM);
	fx.r.policy_ref.path = (char *)policy;
	fx.r.report_ref.path = (char *)report;
	fx.warnings[0] = "::error::w\n##[warning]v";
	fx.r.warnings = fx.warnings;
	fx.r.warning_count = 1;
	fx.r.passed = false;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 11, "%zu commands ran", run->count);
	expect_annotation(&run->cmd[0], "error", policy, 25, 12, "memgate: reject",
			  "reject (no_candidate_meets_base_budget): next action "
			  "rework_strategy_or_budget; selected none");
	for (i = 0; i < 8; i++) {
		snprintf(title, sizeof(title), "memgate: memory_over_budget (%s)", shown[i]);
		snprintf(data, sizeof(data), "%s: peak %zu MB > memory_cap_mb 11200", shown[i],
			 12000 + i);
		expect_annotation(&run->cmd[1 + i], "error", policy, 10, 18, title, data);
	}
	expect_annotation(&run->cmd[9], "error", report, 110, 5, "memgate: oom (<script>|)",
			  "<script>|: ran out of memory (status oom or metrics.oom)");
	expect_annotation(&run->cmd[10], "warning", NULL, 0, 0, "memgate: warning",
			  "\\x3a:error::w\\n##\\x5bwarning]v");
	free_run(run);
}

/* A path that is not valid UTF-8 comes out with U+FFFD, never raw bytes. */
Test(github, invalid_utf8_in_a_path_is_replaced)
{
	gh_run *run;

	build();
	fx.r.policy_ref.path = "bad\xff.yml";
	run = render_and_run(&fx.r);
	expect_prop(&run->cmd[0], "file", "bad\xef\xbf\xbd.yml");
	free_run(run);
}

/* ---- a real run ---- */

#define GIT "git -c init.defaultBranch=main -c commit.gpgsign=false " \
	    "-c user.name=memgate-test -c user.email=test@memgate.invalid"
#define REAL_REPORT "benchmarks/results/76_real_gpu_memory.json"
#define REAL_MANIFEST "benchmarks/results/75_input_manifest.json"

static void write_file(const char *dir, const char *path, const char *data, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	f = fopen(full, "wb");
	cr_assert_not_null(f, "cannot write %s", full);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* A committed repository with the policy, the report and a manifest that
 * pins `sha` (NULL: the report's own SHA-256).  Returns the manifest text. */
static char *make_repo(char *dir, const char *policy, const char *report, const char *sha)
{
	char hex[MG_DIGEST_HEX_SIZE], cmd[1024], *text, *manifest;
	size_t len;

	strcpy(dir, "/tmp/memgate-github.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s/benchmarks", dir);
	cr_assert_eq(mkdir(cmd, 0700), 0);
	snprintf(cmd, sizeof(cmd), "%s/benchmarks/results", dir);
	cr_assert_eq(mkdir(cmd, 0700), 0);
	text = mg_test_read(policy, &len);
	write_file(dir, ".memgate.yml", text, len);
	free(text);
	text = mg_test_read(report, &len);
	write_file(dir, REAL_REPORT, text, len);
	cr_assert_eq(mg_digest_sha256_hex(hex, text, len), 0);
	free(text);
	manifest = mg_manifest_render(REAL_REPORT, sha ? sha : hex, NULL, NULL);
	write_file(dir, REAL_MANIFEST, manifest, strlen(manifest));
	snprintf(cmd, sizeof(cmd), "cd '%s' && " GIT " init -q . && " GIT " add -A && "
		 GIT " commit -q -m evidence", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return manifest;
}

static void remove_repo(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static mg_check_result *check_repo(const char *dir)
{
	mg_check_options opt = { 0 };
	mg_check_result *r = NULL;
	mg_error err;

	opt.dir = dir;
	cr_assert_eq(mg_check_run(&r, &opt, &err), 0, "%s", err.message);
	return r;
}

/* The real flat report against the chapter's budget: tune, and the
 * annotations point at the real lines of the policy. */
Test(github, real_report_points_at_real_policy_lines)
{
	char dir[64], *manifest = make_repo(dir, "fixtures/e2e/real-flat-11200.yml",
					      "fixtures/reports/76_real_gpu_memory.flat.json", NULL);
	mg_check_result *r = check_repo(dir);
	gh_run *run = render_and_run(r);

	cr_assert_eq(run->count, 7);   /* no annotation for the baseline's own saving */
	expect_annotation(&run->cmd[0], "error", ".memgate.yml", 21, 12, "memgate: tune",
			  "tune (memory_saving_below_meaningful_threshold): next action "
			  "test_larger_pressure_or_optimizer_compression; selected checkpoint");
	expect_annotation(&run->cmd[1], "warning", ".memgate.yml", 12, 25,
			  "memgate: memory_saving_below_floor (checkpoint)",
			  "checkpoint: memory saving 331.98 MB < min_memory_saving_mb 512");
	expect_annotation(&run->cmd[2], "error", ".memgate.yml", 11, 22,
			  "memgate: samples_per_s_below_floor (offload)",
			  "offload: samples/s 0.533 < min_samples_per_s 1");
	free_run(run);
	mg_check_result_free(r);
	free(manifest);
	remove_repo(dir);
}

/* A manifest pinning another hash: the annotation points at its sha256. */
Test(github, real_hash_mismatch_points_at_the_manifest_sha256)
{
	char dir[64], *manifest = make_repo(dir, "fixtures/e2e/real-flat-11200.yml",
					      "fixtures/reports/76_real_gpu_memory.flat.json",
					      "0000000000000000000000000000000000000000000000000000000000000000");
	const char *at = strstr(manifest, "\"sha256\"");
	mg_check_result *r = check_repo(dir);
	gh_run *run = render_and_run(r);
	const char *p, *line_start = manifest;
	int line = 1;
	char want[16];

	for (p = manifest; p < at; p++)
		if (*p == '\n') {
			line++;
			line_start = p + 1;
		}
	cr_assert_gt(run->count, 1);
	expect_prop(&run->cmd[1], "file", REAL_MANIFEST);
	snprintf(want, sizeof(want), "%d", line);
	expect_prop(&run->cmd[1], "line", want);
	snprintf(want, sizeof(want), "%d", (int)(strchr(at + 8, '"') - line_start) + 1);
	expect_prop(&run->cmd[1], "col", want);
	expect_prop(&run->cmd[1], "title", "memgate: report_hash_mismatch");
	free_run(run);
	mg_check_result_free(r);
	free(manifest);
	remove_repo(dir);
}

/* ---- step outputs (GITHUB_OUTPUT) ---- */

#define MAX_ENTRIES 16

typedef struct env_entry {
	char *name, *value;
} env_entry;

/* One line up to \n (the Linux runner's only line end); *had_newline says
 * whether it ended with one. */
static char *read_line(const char **p, bool *had_newline)
{
	size_t n = strcspn(*p, "\n");
	char *line = mg_xstrndup(*p, n);

	*had_newline = (*p)[n] == '\n';
	*p += n + *had_newline;
	return line;
}

/* The heredoc value after a NAME<<DELIM line: the lines up to the first one
 * equal to DELIM, joined; NULL on the runner's errors. */
static char *read_heredoc(const char **p, const char *delim)
{
	mg_buf value = MG_BUF_INIT;
	bool first = true, newline;
	char *line;

	for (;;) {
		if (!**p) {
			mg_buf_free(&value);
			return NULL;   /* Matching delimiter not found */
		}
		line = read_line(p, &newline);
		if (!strcmp(line, delim)) {
			free(line);
			return mg_buf_detach(&value, NULL);
		}
		if (!newline) {
			free(line);
			mg_buf_free(&value);
			return NULL;   /* EOF marker missing new line */
		}
		if (!first)
			mg_buf_putc(&value, '\n');
		mg_buf_puts(&value, line);
		first = false;
		free(line);
	}
}

/* FileCommandManager.cs EnvFileKeyValuePairs: the entries, or -1 when the
 * runner would fail the step. */
static int parse_env(env_entry *out, const char *text)
{
	const char *p = text, *eq, *heredoc;
	bool newline;
	int n = 0;

	while (*p) {
		char *line = read_line(&p, &newline);

		eq = strchr(line, '=');
		heredoc = strstr(line, "<<");
		if (!*line) {
			free(line);
			continue;
		}
		cr_assert_lt(n, MAX_ENTRIES);
		if (eq && (!heredoc || eq < heredoc) && eq > line) {
			out[n].name = mg_xstrndup(line, (size_t)(eq - line));
			out[n++].value = mg_xstrdup(eq + 1);
		} else if (heredoc && heredoc > line && heredoc[2]) {
			out[n].name = mg_xstrndup(line, (size_t)(heredoc - line));
			out[n].value = read_heredoc(&p, heredoc + 2);
			if (!out[n++].value)
				n = -1;
		} else {
			n = -1;
		}
		free(line);
		if (n < 0)
			return -1;
	}
	return n;
}

static void free_env(env_entry *e, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].value);
	}
}

/* Render the outputs of r with the token and check what the runner reads. */
static void expect_outputs(const mg_check_result *r, const char *const want[5])
{
	static const char *const names[] = {
		"decision", "reason", "next-action", "selected-candidate", "passed",
	};
	char *text = mg_github_outputs(r, TOKEN);
	env_entry e[MAX_ENTRIES];
	int n = parse_env(e, text), i;

	cr_assert_eq(n, 5, "the runner cannot read:\n%s", text);
	for (i = 0; i < 5; i++) {
		cr_assert_str_eq(e[i].name, names[i]);
		cr_assert_str_eq(e[i].value, want[i], "%s is '%s'", names[i], e[i].value);
	}
	free_env(e, n);
	free(text);
}

Test(github, plain_outputs_are_name_equals_value)
{
	static const char *const want[] = {
		"accept", "selection_stable_across_thresholds", "send_to_regression_acceptance",
		"checkpoint", "true",
	};
	char *text = mg_github_outputs(build(), TOKEN);

	cr_assert_str_eq(text, "decision=accept\nreason=selection_stable_across_thresholds\n"
			 "next-action=send_to_regression_acceptance\nselected-candidate=checkpoint\n"
			 "passed=true\n");
	expect_outputs(&fx.r, want);
	free(text);
}

Test(github, no_selection_is_an_empty_heredoc_value)
{
	static const char *const want[] = {
		"reject", "no_candidate_meets_base_budget", "rework_strategy_or_budget", "", "false",
	};
	char *text;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	fx.d.next_action = MG_N_REWORK_STRATEGY_OR_BUDGET;
	fx.d.selected = NULL;
	fx.r.passed = false;
	text = mg_github_outputs(&fx.r, TOKEN);
	cr_assert_not_null(strstr(text, "selected-candidate<<ghadelimiter_" TOKEN "\n\n"
				  "ghadelimiter_" TOKEN "\n"), "%s", text);
	expect_outputs(&fx.r, want);
	free(text);
}

/* Names that are not plain tokens go in a heredoc and come back as one
 * line, escaped as annotations are (issue 19, finding 6): a later step
 * that echoes the output runs no workflow command. */
Test(github, other_names_use_a_heredoc_and_read_back_as_one_escaped_line)
{
	static const char *const names[][2] = {
		{ "check point", "check point" }, { "a\nb", "a\\nb" }, { "x=y", "x=y" },
		{ "a<<b", "a<<b" }, { "line\r", "line\\r" }, { "\r\n", "\\r\\n" },
		{ "passed=true\nreason=x", "passed=true\\nreason=x" },
		{ "ghadelimiter_" TOKEN "x", "ghadelimiter_" TOKEN "x" },
		{ "\nghadelimiter_other\n", "\\nghadelimiter_other\\n" },
		{ "r\xc3\xa9sum\xc3\xa9", "r\xc3\xa9sum\xc3\xa9" },
		{ "ok\n::add-mask::x\n::error title=memgate::forged",
		  "ok\\n::add-mask::x\\n::error title=memgate::forged" },
		{ "::error::forged", "\\x3a:error::forged" },
		{ "##[error]forged", "##\\x5berror]forged" },
		{ "a\\b", "a\\\\b" },
	};
	const char *want[] = {
		"accept", "selection_stable_across_thresholds", "send_to_regression_acceptance",
		NULL, "true",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		build();
		fx.d.selected = names[i][0];
		want[3] = names[i][1];
		expect_outputs(&fx.r, want);
	}
}

/* A value holding the delimiter line (only possible when the token leaks)
 * is written on one line, escaped, so that it cannot end the value early. */
Test(github, value_holding_the_delimiter_line_is_replaced)
{
	static const char *const names[] = {
		"x\nghadelimiter_" TOKEN "\nselected-candidate=owned",
		"x\nghadelimiter_" TOKEN "\r\nselected-candidate=owned",
	};
	static const char *const shown[] = {
		"x\\nghadelimiter_" TOKEN "\\nselected-candidate=owned",
		"x\\nghadelimiter_" TOKEN "\\r\\nselected-candidate=owned",
	};
	const char *want[] = {
		"accept", "selection_stable_across_thresholds", "send_to_regression_acceptance",
		NULL, "true",
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		build();
		fx.d.selected = names[i];
		want[3] = shown[i];
		expect_outputs(&fx.r, want);
	}
}

/* With --all, every output is one line: the selected candidate escaped,
 * the policies a line of JSON whose strings are escaped the same way. */
Test(github, set_outputs_are_one_line_each)
{
	mg_check_item items[2];
	env_entry e[MAX_ENTRIES];
	char *text;
	int n, i;

	build();
	fx.d.selected = "ok\n::add-mask::x\n##[error]forged";
	memset(items, 0, sizeof(items));
	items[0].policy = "a/##[group]x.memgate.yml";
	items[0].result = &fx.r;
	items[1].policy = "b/.memgate.yml\n::error::forged";
	items[1].result = &fx.r;
	text = mg_github_outputs_set(items, 2, TOKEN);
	n = parse_env(e, text);
	cr_assert_eq(n, 6, "the runner cannot read:\n%s", text);
	for (i = 0; i < n; i++)
		cr_expect_null(strpbrk(e[i].value, "\n\r"), "%s holds a line break", e[i].name);
	cr_assert_str_eq(e[3].value, "ok\\n::add-mask::x\\n##\\x5berror]forged");
	cr_assert_str_eq(e[5].name, "policies");
	/* the strings are escaped as the other outputs are, so that what jq
	 * or fromJSON decodes holds no "##[" and no line break either */
	cr_assert_str_eq(e[5].value,
			 "[{\"policy\":\"a/##\\\\x5bgroup]x.memgate.yml\",\"decision\":\"accept\","
			 "\"reason\":\"selection_stable_across_thresholds\",\"selected_candidate\":"
			 "\"ok\\\\n::add-mask::x\\\\n##\\\\x5berror]forged\",\"passed\":true},"
			 "{\"policy\":\"b/.memgate.yml\\\\n::error::forged\",\"decision\":\"accept\","
			 "\"reason\":\"selection_stable_across_thresholds\",\"selected_candidate\":"
			 "\"ok\\\\n::add-mask::x\\\\n##\\\\x5berror]forged\",\"passed\":true}]");
	free_env(e, n);
	free(text);
}

/* check --all --changed that gates nothing still sets the outputs: the
 * gate passes, no decision was made, and policies is an empty array. */
Test(github, set_outputs_when_nothing_is_gated)
{
	static const char *const names[] = {
		"decision", "reason", "next-action", "selected-candidate", "passed", "policies",
	};
	static const char *const want[] = { "unchanged", "", "", "", "true", "[]" };
	env_entry e[MAX_ENTRIES];
	char *text = mg_github_outputs_set(NULL, 0, TOKEN);
	int n = parse_env(e, text), i;

	cr_assert_eq(n, 6, "the runner cannot read:\n%s", text);
	for (i = 0; i < n; i++) {
		cr_assert_str_eq(e[i].name, names[i]);
		cr_assert_str_eq(e[i].value, want[i], "%s is '%s'", names[i], e[i].value);
	}
	free_env(e, n);
	free(text);
}

Test(github, invalid_utf8_in_an_output_is_replaced)
{
	const char *want[] = {
		"accept", "selection_stable_across_thresholds", "send_to_regression_acceptance",
		"bad\\xff", "true",
	};

	build();
	fx.d.selected = "bad\xff";
	expect_outputs(&fx.r, want);
}

/* ---- policy changes, notes, the head policy's lines, exit 2 ---- */

/* On a pull request the base's policy decides, but annotations point at
 * the head policy's lines (GitHub attaches them to the head's file); a key
 * the head lacks gets the file without a line. */
Test(github, threshold_reasons_point_at_the_head_policy_lines)
{
	static mg_policy head;
	gh_run *run;
	size_t i;

	build();
	fail_gate();
	/* (the baseline's own saving is no finding: look at checkpoint's) */
	fx.ev[1].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	memset(&head, 0, sizeof(head));
	head.threshold_pos[MG_MEMORY_CAP_MB] = (mg_pos){ 13, 18 };
	head.threshold_pos[MG_MIN_MEMORY_SAVING_MB] = (mg_pos){ 15, 25 };
	head.fail_on_set = true;
	head.fail_on_pos = (mg_pos){ 30, 12 };
	fx.r.head_policy = &head;
	run = render_and_run(&fx.r);
	expect_annotation(&run->cmd[0], "error", POLICY, 30, 12, "memgate: tune",
			  "tune (memory_saving_below_meaningful_threshold): next action "
			  "test_larger_pressure_or_optimizer_compression; selected checkpoint");
	for (i = 1; i < run->count && strcmp(prop(&run->cmd[i], "title"),
					     "memgate: memory_saving_below_floor (checkpoint)"); i++)
		;
	cr_assert_lt(i, run->count);
	expect_prop(&run->cmd[i], "line", "15");
	for (i = 1; i < run->count && strcmp(prop(&run->cmd[i], "title"),
					     "memgate: samples_per_s_below_floor (offload)"); i++)
		;
	cr_assert_lt(i, run->count);
	expect_prop(&run->cmd[i], "file", POLICY);
	expect_prop(&run->cmd[i], "line", NULL);   /* the head sets no min_samples_per_s */
	free_run(run);
}

Test(github, policy_changes_and_notes_are_annotated)
{
	mg_policy_change changes[2];
	char *notes[1] = { "adopting memgate: the policy revision 1234567 has no '.memgate.yml'" };
	static const bool was[MG_VERDICT_COUNT] = { false, true, true }, now[MG_VERDICT_COUNT] = { false, false, true };
	gh_run *run;

	build();
	fx.ev[0].reasons = fx.ev[2].reasons = 0;
	memset(changes, 0, sizeof(changes));
	snprintf(changes[0].key, sizeof(changes[0].key), "gate.fail_on");
	changes[0].before = (mg_change_value){ .kind = MG_CHANGE_VERDICTS, .verdicts = was };
	changes[0].after = (mg_change_value){ .kind = MG_CHANGE_VERDICTS, .verdicts = now };
	changes[0].effect = MG_CHANGE_LOOSENS;
	changes[0].pos = (mg_pos){ 22, 12 };
	snprintf(changes[1].key, sizeof(changes[1].key), "identity.hardware_id");
	changes[1].before = (mg_change_value){ .kind = MG_CHANGE_STRING, .string = "gpu-a" };
	changes[1].after = (mg_change_value){ .kind = MG_CHANGE_STRING, .string = "gpu,b::\n%" };
	changes[1].effect = MG_CHANGE_ALTERS;
	changes[1].pos = (mg_pos){ 5, 16 };
	fx.r.changes = changes;
	fx.r.change_count = 2;
	fx.r.notes = notes;
	fx.r.note_count = 1;
	run = render_and_run(&fx.r);
	cr_assert_eq(run->count, 4, "%zu commands", run->count);
	expect_annotation(&run->cmd[1], "notice", NULL, 0, 0, "memgate: note", notes[0]);
	expect_annotation(&run->cmd[2], "warning", POLICY, 22, 12, "memgate: policy_change",
			  "gate.fail_on is [tune, reject] in the policy that decides (the policy "
			  "revision), [reject] in this change: it loosens the budget once merged");
	expect_annotation(&run->cmd[3], "notice", POLICY, 5, 16, "memgate: policy_change",
			  "identity.hardware_id is 'gpu-a' in the policy that decides (the policy "
			  "revision), 'gpu,b::\\n%' in this change: it changes the policy once merged");
	free_run(run);
}

Test(github, could_not_decide_is_one_error_at_the_input_position)
{
	mg_error err;
	char *text;
	gh_run *run;

	mg_error_set(&err, "pol,icy:1.yml", 9, 3, "unknown key 'a%%b\n::error::x' (did you mean 'budget'?)");
	text = mg_github_render_error(&err);
	run = run_commands(text);
	cr_assert_eq(run->count, 1, "%s", text);
	expect_annotation(&run->cmd[0], "error", "pol,icy:1.yml", 9, 3, "memgate: could not decide",
			  "unknown key 'a%b ::error::x' (did you mean 'budget'?)");
	free_run(run);
	free(text);
	mg_error_set(&err, NULL, 0, 0, "not a git repository: '/x'");
	text = mg_github_render_error(&err);
	run = run_commands(text);
	cr_assert_eq(run->count, 1);
	expect_annotation(&run->cmd[0], "error", NULL, 0, 0, "memgate: could not decide",
			  "not a git repository: '/x'");
	free_run(run);
	free(text);
}

Test(github, could_not_decide_outputs_say_error)
{
	static const char *const names[] = {
		"decision", "reason", "next-action", "selected-candidate", "passed", "error",
	};
	static const char *const want[] = {
		"error", "", "", "", "false", ".memgate.yml:9:1: unknown key 'budgt'",
	};
	env_entry e[MAX_ENTRIES];
	mg_error err;
	char *text;
	int n, i;

	mg_error_set(&err, ".memgate.yml", 9, 1, "unknown key 'budgt'");
	text = mg_github_outputs_error(&err, TOKEN);
	n = parse_env(e, text);
	cr_assert_eq(n, 6, "the runner cannot read:\n%s", text);
	for (i = 0; i < 6; i++) {
		cr_assert_str_eq(e[i].name, names[i]);
		cr_assert_str_eq(e[i].value, want[i], "%s is '%s'", names[i], e[i].value);
	}
	free_env(e, n);
	free(text);
}

/* ---- fingerprints and waivers ---- */

Test(github, fingerprints_are_stable_per_policy_code_and_subject)
{
	mg_check_result *r = build();
	mg_finding *f = NULL;
	char (*a)[MG_FINDING_FINGERPRINT_SIZE], (*b)[MG_FINDING_FINGERPRINT_SIZE];
	size_t n = 0, i, j;

	many_candidates(8, BIT(MG_R_MEMORY_OVER_BUDGET) | BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR));
	mg_findings(&f, &n, r);
	cr_assert_geq(n, 16);
	a = calloc(n, sizeof(*a));
	b = calloc(n, sizeof(*b));
	mg_finding_fingerprints(a, POLICY, f, n);
	for (i = 0; i < n; i++) {
		cr_assert_eq(strlen(a[i]), 64);
		for (j = 0; j < i; j++)
			cr_assert_str_neq(a[i], a[j], "findings %zu and %zu share a fingerprint", j, i);
	}
	/* lines move: the same fingerprints */
	for (i = 0; i < n; i++)
		f[i].pos.line += 7;
	mg_finding_fingerprints(b, POLICY, f, n);
	for (i = 0; i < n; i++)
		cr_assert_str_eq(a[i], b[i]);
	/* another policy: other fingerprints */
	mg_finding_fingerprints(b, "models/a/.memgate.yml", f, n);
	for (i = 0; i < n; i++)
		cr_assert_str_neq(a[i], b[i]);
	free(a);
	free(b);
	mg_findings_free(f, n);
}

Test(github, twin_findings_get_numbered_unique_fingerprints)
{
	mg_finding f[3] = {
		{ .weight = MG_FINDING_HARD, .rank = MG_FINDING_RANK_HARD,
		  .code = mg_code_of(MG_CODE_MISSING_OR_DUPLICATE_NAME), .file = REPORT, .pos = { 3, 1 },
		  .candidate = SIZE_MAX, .issue = -1, .message = "x" },
		{ .weight = MG_FINDING_HARD, .rank = MG_FINDING_RANK_HARD,
		  .code = mg_code_of(MG_CODE_MISSING_OR_DUPLICATE_NAME), .file = REPORT, .pos = { 9, 1 },
		  .candidate = SIZE_MAX, .issue = -1, .message = "y" },
		{ .weight = MG_FINDING_HARD, .rank = MG_FINDING_RANK_HARD,
		  .code = mg_code_of(MG_CODE_MISSING_OR_DUPLICATE_NAME), .file = REPORT, .pos = { 12, 1 },
		  .candidate = SIZE_MAX, .issue = -1, .message = "z" },
	};
	char p[3][MG_FINDING_FINGERPRINT_SIZE], q[3][MG_FINDING_FINGERPRINT_SIZE];

	mg_finding_fingerprints(p, POLICY, f, 3);
	cr_assert_str_neq(p[0], p[1]);
	cr_assert_str_neq(p[1], p[2]);
	cr_assert_str_neq(p[0], p[2]);
	mg_finding_fingerprints(q, POLICY, f, 1);
	cr_assert_str_eq(p[0], q[0], "the first of twins keeps the plain fingerprint");
}

Test(github, waivers_are_a_notice_when_applied_and_warnings_otherwise)
{
	mg_check_result *r = build();
	mg_policy_waiver w[3] = {
		{ "checkpoint", MG_R_MEMORY_SAVING_BELOW_FLOOR, "enough", "@perf", "2027-01-31",
		  20270131, { 40, 5 }, { 40, 16 }, { 41, 13 }, { 44, 14 }, 0, false, { 0, 0 } },
		{ "ghost", MG_R_MEMORY_OVER_BUDGET, "gone", "@perf", "2027-01-31", 20270131,
		  { 45, 5 }, { 45, 16 }, { 46, 13 }, { 49, 14 }, 0, false, { 0, 0 } },
		{ "offload", MG_R_SAMPLES_PER_S_BELOW_FLOOR, "old", "@x", "2025-01-31", 20250131,
		  { 50, 5 }, { 50, 16 }, { 51, 13 }, { 54, 14 }, 0, false, { 0, 0 } },
	};
	mg_waiver_state s[3] = {
		{ &w[0], MG_WAIVER_APPLIED, true, false, 0, 0, 0, "" },
		{ &w[1], MG_WAIVER_UNMATCHED, false, false, 0, 0, 0, "" },
		{ &w[2], MG_WAIVER_EXPIRED, true, false, 0, 0, 0, "" },
	};
	gh_run *run;
	size_t notices, warnings;

	run = render_and_run(r);
	notices = count_level(run, "notice");
	warnings = count_level(run, "warning");
	free_run(run);
	fx.policy.waivers = w;
	fx.policy.waiver_count = 3;
	fx.policy.waivers_set = true;
	r->waivers = s;
	r->waiver_count = 3;
	snprintf(r->today, sizeof(r->today), "2026-06-01");
	run = render_and_run(r);
	cr_assert_eq(count_level(run, "notice"), notices + 1);    /* the applied waiver */
	cr_assert_eq(count_level(run, "warning"), warnings + 2);  /* the two others */
	for (size_t i = 0; i < run->count; i++) {
		const char *title = prop(&run->cmd[i], "title");

		if (!title || !strstr(title, "waiver"))
			continue;
		if (strstr(title, "waiver_applied"))
			expect_annotation(&run->cmd[i], "notice", POLICY, 40, 5,
					  "memgate: waiver_applied (checkpoint)",
					  "waiver: 'checkpoint' passes memory_saving_below_floor until "
					  "2027-01-31 (owner @perf): enough");
		else if (strstr(title, "waiver_unmatched"))
			expect_annotation(&run->cmd[i], "warning", POLICY, 45, 16,
					  "memgate: waiver_unmatched",
					  "waiver for 'ghost' (memory_over_budget) matches nothing: the "
					  "report has no candidate 'ghost'; remove it or correct it");
		else
			expect_annotation(&run->cmd[i], "warning", POLICY, 54, 14,
					  "memgate: waiver_expired",
					  "waiver for 'offload' (samples_per_s_below_floor, owner @x) expired "
					  "on 2025-01-31 and is ignored (today is 2026-06-01)");
	}
	free_run(run);
}
