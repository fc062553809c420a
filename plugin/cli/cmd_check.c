/*
 * memgate check and memgate record: gate the committed evidence against the
 * policy, one policy or a set (check --all, a repeated --policy), and write
 * the outputs asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* The options check and record both have, said once. */
#define OPTION_REV { OPT_REV, "rev", "REV", 0, \
	"read the manifest, report and approved result from REV (default HEAD)", NULL }
#define OPTION_POLICY_REV { OPT_POLICY_REV, "policy-rev", "REV", 0, \
	"read the policy from REV (default: --rev); on a pull request, the base", NULL }
#define OPTION_BASE { OPT_BASE, "base", "REV", 0, \
	"compare with the decision and values of the evidence at REV\n" \
	"(default: --policy-rev when given)", NULL }
#define OPTION_WORKTREE { OPT_WORKTREE, "worktree", NULL, 0, \
	"read every input from the working tree instead (never in CI)", NULL }
#define OPTION_FORMAT { OPT_FORMAT, "format", "FORMAT", 0, \
	"text, json (the decision record) or github (workflow-command\n" \
	"annotations); default text, or github when GITHUB_ACTIONS=true", NULL }
#define OUTPUT_OPTIONS \
	{ OPT_JSON, "json", "FILE", 0, \
	  "also write the decision record to FILE (atomically)", NULL }, \
	{ OPT_SUMMARY, "summary", "FILE", 0, \
	  "append a Markdown job summary to FILE (default $GITHUB_STEP_SUMMARY)", NULL }, \
	{ OPT_JUNIT, "junit", "FILE", 0, "write a JUnit XML report (GitLab, Jenkins)", NULL }, \
	{ OPT_SARIF, "sarif", "FILE", 0, \
	  "write a SARIF 2.1.0 log (GitHub code scanning)", NULL }, \
	{ OPT_CODEQUALITY, "codequality", "FILE", 0, "write a GitLab Code Quality report", NULL }, \
	{ OPT_COMMENT, "comment", "FILE", 0, \
	  "write the pull-request comment (Markdown: one for the run, opened\n" \
	  "by <!-- memgate -->, a section per policy), even when memgate\n" \
	  "cannot decide", \
	  "At most MG_COMMENT_MAX bytes a section and MG_COMMENT_TOTAL in all; the Action's " \
	  "comment input posts it." }, \
	{ OPT_INPUTS, "inputs", "FILE", 0, \
	  "write the repository paths of the inputs read, one per line", NULL }
#define OPTION_RECORD_FEASIBLE_SETS { OPT_RECORD_FEASIBLE_SETS, "record-feasible-sets", NULL, 0, \
	"list each sensitivity scenario's feasible set in the decision record\n" \
	"(default: its size and best only)", \
	"Each scenario then has feasible_indices, its feasible candidates by position in " \
	"evaluations in rank order: up to candidates times scenarios indices." }
#define OPTION_FAIL_ON { OPT_FAIL_ON, "fail-on", "LIST", 0, \
	"decisions that fail the check, e.g. reject,tune, or none\n" \
	"(default: the policy's gate.fail_on)", NULL }
#define OPTION_REQUIRE_APPROVED { OPT_REQUIRE_APPROVED, "require-approved", NULL, 0, \
	"the approval beside the manifest must approve this evidence\n" \
	"and decision, signed by an approver (release gates)", NULL }
/* What check and record both take to run a check, in -h's order. */
#define RUN_OPTIONS OPTION_POLICY_REV, OPTION_BASE, OPTION_WORKTREE, OPTION_FORMAT, \
	OUTPUT_OPTIONS, OPTION_RECORD_FEASIBLE_SETS, OPTION_FAIL_ON, OPTION_REQUIRE_APPROVED, CLI_OPTION_TODAY, \
	CLI_OPTION_MAX_INPUT
#define OPTION_ALL(flags) { OPT_ALL, "all", NULL, flags, \
	"gate every policy file of the repository (see memgate list)", NULL }
#define OPTION_CHANGED(flags) { OPT_CHANGED, "changed", NULL, flags, \
	"with --all: gate only the policies whose inputs changed between\n" \
	"--policy-rev and --rev (large monorepos)", \
	"The others are listed as unchanged. A policy's inputs are everything its check " \
	"reads: the policy, its manifest and signature, report, approval (MANIFEST.approved.json) " \
	"and its signature, legacy approved result, allowed signers and every path its evidence.inputs match; a policy with " \
	"regression.history is always gated (its base's history moves with every merge). " \
	"Each policy decides as --all decides it." }

static const struct cli_option check_options[] = {
	CLI_OPTION_DIR,
	OPTION_REV,
	{ OPT_POLICY, "policy", "PATH", CLI_OPT_REPEAT,
	  "the policy, relative to DIR (default: the nearest .memgate.yml in\n"
	  "DIR or above it); repeat it to gate several policies", NULL },
	OPTION_ALL(0),
	OPTION_CHANGED(CLI_OPT_NESTED),
	RUN_OPTIONS,
	{ OPT_OUT, "out", "PATH", CLI_OPT_HIDDEN, "record's: check says so", NULL },
	CLI_OPTION_HELP,
	{ 0 }
};

/* record's: check's, but one policy and --out; --all and --changed are
 * parsed only to say that record takes one policy. */
static const struct cli_option record_options[] = {
	{ OPT_OUT, "out", "PATH", CLI_OPT_REQUIRED,
	  "write the decision record to PATH, write-once (required)", NULL },
	CLI_OPTION_DIR,
	OPTION_REV,
	CLI_OPTION_POLICY,
	RUN_OPTIONS,
	OPTION_ALL(CLI_OPT_HIDDEN),
	OPTION_CHANGED(CLI_OPT_HIDDEN),
	CLI_OPTION_HELP,
	{ 0 }
};

/* memgate record: queue --out unless it already holds the same record
 * (mg_record_queue_once). */
static int queue_record(mg_outputs *outs, const char *path, const char *record,
			bool *unchanged, mg_error *err)
{
	char *kept;
	int error = mg_record_queue_once(&kept, outs, path, record, err);

	*unchanged = kept != NULL;
	free(kept);
	return error;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* The job summary is appended to the runner's own file as the runner's. */
static enum mg_output_mode summary_mode(const char *summary, const char *runner_summary)
{
	return runner_summary && !strcmp(summary, runner_summary) ? MG_OUTPUT_RUNNER
								   : MG_OUTPUT_APPEND;
}

/* Queue `text` (malloc'd, freed here) for path. */
static void queue_owned(mg_outputs *outs, const char *path, char *text, enum mg_output_mode mode)
{
	mg_outputs_add(outs, path, text, strlen(text), mode);
	free(text);
}

/* The decision record as an output file's source: ctx is the result. */
static int record_source(void *ctx, mg_sink sink, void *sink_ctx)
{
	return mg_record_write(ctx, sink, sink_ctx);
}

/* The combined record of several policies: ctx is a struct item_set. */
struct item_set {
	const mg_check_item *items;
	size_t count;
	const mg_plan *plan;       /* check --all's, else NULL */
};

static int record_set_source(void *ctx, mg_sink sink, void *sink_ctx)
{
	const struct item_set *set = ctx;

	return mg_record_write_set(set->items, set->count, sink, sink_ctx);
}

/* The sink of stdout (ctx unused). */
static int to_stdout(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	return fwrite(data, 1, len, stdout) == len ? 0 : -1;
}

/* After a record streamed to stdout: MG_ERROR, said, when it could not be
 * written whole (a full disk behind a redirection). */
static int stdout_written(int error)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		error = MG_ERROR;
	if (error < 0)
		fprintf(stderr, "memgate: cannot write the decision record to stdout: %s\n",
			strerror(errno));
	return error;
}

/* The run's page, where its job summary is, for the comment's link:
 * GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID, or NULL
 * when one is unset.  Malloc'd. */
static char *run_url(void)
{
	const char *server = env("GITHUB_SERVER_URL"), *repo = env("GITHUB_REPOSITORY");
	const char *run = env("GITHUB_RUN_ID");
	mg_buf url = MG_BUF_INIT;

	if (!server || !repo || !run)
		return NULL;
	mg_buf_printf(&url, "%s/%s/actions/runs/%s", server, repo, run);
	return mg_buf_detach(&url, NULL);
}

/* Queue --comment for the items (and the plan's policies not gated). */
static void queue_comment(mg_outputs *outs, const struct cli *cli, const mg_check_item *items,
			  size_t count, const mg_plan *plan)
{
	char *url;

	if (!cli->comment_path)
		return;
	url = run_url();
	queue_owned(outs, cli->comment_path, mg_comment_render_set(items, count, plan, url),
		    MG_OUTPUT_REPLACE);
	free(url);
}

/* Queue --sarif, --codequality and --comment for the items. */
static void queue_reports(mg_outputs *outs, const struct cli *cli,
			  const mg_check_item *items, size_t count, const mg_plan *plan)
{
	queue_comment(outs, cli, items, count, plan);
	if (cli->sarif_path)
		queue_owned(outs, cli->sarif_path, mg_sarif_render(items, count, MG_VERSION),
			    MG_OUTPUT_REPLACE);
	if (cli->codequality_path)
		queue_owned(outs, cli->codequality_path, mg_codequality_render(items, count),
			    MG_OUTPUT_REPLACE);
}

/*
 * Queue --json, --summary, --junit, --sarif, --codequality and the GitHub
 * step outputs.  The files the runner names in GITHUB_STEP_SUMMARY and
 * GITHUB_OUTPUT are appended to in place whatever they are; any other
 * --summary must be a regular file.
 */
static void queue_outputs(mg_outputs *outs, const struct cli *cli,
			  const mg_check_result *res, const char *token)
{
	mg_check_item item = { NULL, NULL, { { 0 }, 0, 0, { 0 } } };
	const char *runner_summary = env("GITHUB_STEP_SUMMARY");
	const char *summary = cli->summary_path ? cli->summary_path : runner_summary;
	const char *gh_output = env("GITHUB_OUTPUT");

	if (cli->json_path)   /* tens of megabytes at 10^5 candidates: streamed */
		mg_outputs_add_source(outs, cli->json_path, record_source, (void *)res);
	if (summary)
		queue_owned(outs, summary, mg_summary_render(res),
			    summary_mode(summary, runner_summary));
	if (cli->junit_path)
		queue_owned(outs, cli->junit_path, mg_junit_render(res), MG_OUTPUT_REPLACE);
	if (cli->inputs_path)
		queue_owned(outs, cli->inputs_path, mg_record_render_inputs(res),
			    MG_OUTPUT_REPLACE);
	if (gh_output)
		queue_owned(outs, gh_output, mg_github_outputs(res, token), MG_OUTPUT_RUNNER);
	item.policy = res->policy_ref.path;
	item.result = (mg_check_result *)res;
	queue_reports(outs, cli, &item, 1, NULL);
}

/*
 * memgate could not decide (exit 2).  The files the user asked for are not
 * written, but the runner's own channels are, so that GitHub shows why:
 * an ::error annotation at the input's line (github format), the job
 * summary ($GITHUB_STEP_SUMMARY, unless --summary names another file) and
 * the step outputs ($GITHUB_OUTPUT: decision=error, error=<message>); and
 * --comment, which says "could not decide" and why, so that the comment
 * on the pull request never keeps an earlier run's verdict.
 */
static int fail_check(const struct cli *cli, const mg_error *err, const char *token)
{
	mg_outputs *outs = mg_outputs_new();
	const char *runner_summary = env("GITHUB_STEP_SUMMARY");
	/* --summary "$GITHUB_STEP_SUMMARY" (as the Action passes it) is still the runner's */
	const char *summary = !cli->summary_path || (runner_summary &&
			      !strcmp(cli->summary_path, runner_summary)) ? runner_summary : NULL;
	const char *gh_output = env("GITHUB_OUTPUT");
	mg_error werr;
	char *text;

	if (cli->format == FORMAT_GITHUB) {
		text = mg_github_render_error(err);
		fputs(text, stdout);
		fflush(stdout);
		free(text);
	}
	if (summary)
		queue_owned(outs, summary, mg_summary_render_error(err), MG_OUTPUT_RUNNER);
	if (gh_output && *token)
		queue_owned(outs, gh_output, mg_github_outputs_error(err, token), MG_OUTPUT_RUNNER);
	if (cli->comment_path && strcmp(err->file, cli->comment_path))   /* not its own error */
		queue_owned(outs, cli->comment_path, mg_comment_render_error(err),
			    MG_OUTPUT_REPLACE);
	mg_error_clear(&werr);
	if (mg_outputs_commit(outs, &werr) < 0)
		cli_fail(&werr);
	mg_outputs_free(outs);
	return cli_fail(err);
}

/* What goes to stdout in the chosen format, NULL for the record itself;
 * the caller frees. */
static char *render(const struct cli *cli, const mg_check_result *res, const char *token)
{
	switch (cli->format) {
	case FORMAT_JSON:
		return NULL;   /* the record itself */
	case FORMAT_GITHUB:
		return mg_github_render(res, token);
	default:
		return mg_text_render(res);
	}
}

/* ---- several policies: check --all, a repeated --policy ---- */

/* --inputs for a set: each policy's inputs in turn (a path two policies
 * read is listed twice). */
static void queue_set_inputs(mg_outputs *outs, const char *path, const mg_check_item *items,
			     size_t count)
{
	mg_buf all = MG_BUF_INIT;
	char *text;
	size_t i;

	mg_buf_puts(&all, "");
	for (i = 0; i < count; i++) {
		text = mg_record_render_inputs(items[i].result);
		mg_buf_puts(&all, text);
		free(text);
	}
	mg_outputs_add(outs, path, all.ptr, all.len, MG_OUTPUT_REPLACE);
	mg_buf_free(&all);
}

/* The job summary of a set: what the plan retires, then the table and
 * each policy's summary.  Malloc'd. */
static char *set_summary(const struct item_set *set)
{
	char *plan = set->plan ? mg_summary_render_plan(set->plan) : mg_xstrdup("");
	char *table = mg_summary_render_set(set->items, set->count);
	mg_buf out = MG_BUF_INIT;

	mg_buf_printf(&out, "%s%s", plan, table);
	free(plan);
	free(table);
	return mg_buf_detach(&out, NULL);
}

/* Queue every output of a set (only when every policy was decided). */
static void queue_set_outputs(mg_outputs *outs, const struct cli *cli,
			      struct item_set *set, const char *token)
{
	const char *runner_summary = env("GITHUB_STEP_SUMMARY");
	const char *summary = cli->summary_path ? cli->summary_path : runner_summary;
	const char *gh_output = env("GITHUB_OUTPUT");
	const mg_check_item *items = set->items;
	size_t count = set->count;

	if (cli->json_path)
		mg_outputs_add_source(outs, cli->json_path, record_set_source, set);
	if (summary)
		queue_owned(outs, summary, set_summary(set), summary_mode(summary, runner_summary));
	if (cli->junit_path)
		queue_owned(outs, cli->junit_path, mg_junit_render_set(items, count, set->plan),
			    MG_OUTPUT_REPLACE);
	if (cli->inputs_path)
		queue_set_inputs(outs, cli->inputs_path, items, count);
	if (gh_output)   /* with none gated (--changed): decision=unchanged */
		queue_owned(outs, gh_output, mg_github_outputs_set(items, count, token),
			    MG_OUTPUT_RUNNER);
	queue_reports(outs, cli, items, count, set->plan);
}

/*
 * Some policy could not be decided (exit 2): as fail_check, only the
 * runner's channels are written: the combined job summary (which names the
 * errors) and the step outputs of the first error (decision=error); and
 * --comment, every policy's section, the errors first.
 */
static void queue_set_error_outputs(mg_outputs *outs, const struct cli *cli,
				    const struct item_set *set, const char *token)
{
	const mg_check_item *items = set->items;
	size_t count = set->count;
	const char *runner_summary = env("GITHUB_STEP_SUMMARY");
	const char *summary = !cli->summary_path || (runner_summary &&
			      !strcmp(cli->summary_path, runner_summary)) ? runner_summary : NULL;
	const char *gh_output = env("GITHUB_OUTPUT");
	size_t i;

	for (i = 0; i < count && items[i].result; i++)
		;
	if (summary)
		queue_owned(outs, summary, set_summary(set), MG_OUTPUT_RUNNER);
	if (gh_output && *token && i < count)
		queue_owned(outs, gh_output, mg_github_outputs_error(&items[i].error, token),
			    MG_OUTPUT_RUNNER);
	queue_comment(outs, cli, items, count, set->plan);
}

/* The plan's retired policies, on stderr (text and json formats). */
static void print_plan(const mg_plan *plan)
{
	mg_buf safe = MG_BUF_INIT;
	size_t i;

	for (i = 0; plan && i < plan->count; i++) {
		if (plan->entries[i].kind == MG_PLAN_UNCHANGED) {
			mg_buf_puts(&safe, "memgate: unchanged, not gated: ");
			mg_escape_text(&safe, plan->entries[i].policy, strlen(plan->entries[i].policy));
			mg_buf_putc(&safe, '\n');
		}
		if (plan->entries[i].kind != MG_PLAN_RETIRED)
			continue;
		mg_buf_puts(&safe, "memgate: warning: ");
		mg_escape_text(&safe, plan->entries[i].message, strlen(plan->entries[i].message));
		mg_buf_putc(&safe, '\n');
	}
	if (safe.len)
		fputs(safe.ptr, stderr);
	mg_buf_free(&safe);
}

/* The items of --all: every policy of the plan that is gated, or fails
 * (a deleted policy whose evidence stays); borrowed from the plan. */
static size_t plan_items(mg_check_item *items, const mg_plan *plan)
{
	size_t i, n = 0;

	for (i = 0; i < plan->count; i++) {
		const mg_plan_entry *e = &plan->entries[i];

		if (e->kind == MG_PLAN_RETIRED || e->kind == MG_PLAN_UNCHANGED)
			continue;
		items[n].policy = e->policy;
		mg_error_clear(&items[n].error);
		if (e->kind == MG_PLAN_DELETED)
			mg_error_set(&items[n].error, e->policy, 0, 0, "%s", e->message);
		n++;
	}
	return n;
}

/* Gate each policy; returns the worst exit status. */
/* Check each policy of the set; the worst exit status of theirs. */
static int run_items(const struct cli *cli, mg_check_item *items, size_t count,
		     mg_outputs *outs)
{
	mg_check_options opt;
	int code = EXIT_PASS, st;
	size_t i;

	for (i = 0; i < count; i++) {
		opt = cli->opt;
		opt.policy_path = items[i].policy;
		opt.policy_from_root = cli->all;
		if (items[i].error.message[0])
			cli_fail(&items[i].error);   /* a deleted policy: the plan says why */
		else if (mg_check_run(&items[i].result, &opt, &items[i].error) < 0)
			cli_fail(&items[i].error);
		if ((st = mg_check_item_status(&items[i])) > code)
			code = st;
		if (items[i].result)
			mg_outputs_guard(outs, items[i].result->root);
	}
	return code;
}

/* Print the set's results on stdout in cli->format; -1 when stdout failed. */
static int print_set(const struct cli *cli, const struct item_set *set, const char *token)
{
	char *shown = NULL, *notes = NULL;
	int error = 0;
	size_t i;

	if (cli->format == FORMAT_JSON) {
		error = stdout_written(mg_record_write_set(set->items, set->count, to_stdout,
							   NULL));
		for (i = 0; i < set->count; i++)
			if (set->items[i].result)
				cli_print_warnings(set->items[i].result);
		print_plan(set->plan);
	} else if (cli->format == FORMAT_GITHUB) {
		notes = set->plan ? mg_github_render_plan(set->plan) : NULL;
		shown = mg_github_render_set(set->items, set->count, token);
		if (notes)
			fputs(notes, stdout);
		fputs(shown, stdout);
	} else {
		shown = mg_text_render_set(set->items, set->count);
		fputs(shown, stdout);
		print_plan(set->plan);
	}
	free(shown);
	free(notes);
	return error < 0 ? -1 : 0;
}

static int run_check_set(struct cli *cli, const char *token)
{
	mg_check_item *items = NULL;
	mg_outputs *outs = mg_outputs_new();
	struct item_set set;
	mg_plan *plan = NULL;
	bool began = false;
	size_t count = cli->policy_count, i;
	mg_error err;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	if (mg_check_begin(&err) < 0) {
		code = fail_check(cli, &err, token);
		goto done;
	}
	began = true;
	if (cli->all && mg_plan_all(&plan, &cli->opt, cli->changed, &err) < 0) {
		code = fail_check(cli, &err, token);
		goto done;
	}
	items = mg_xcalloc(plan ? plan->count : count, sizeof(*items));
	if (plan)
		count = plan_items(items, plan);
	for (i = 0; !plan && i < count; i++)
		items[i].policy = cli->policies[i];
	code = run_items(cli, items, count, outs);
	set.items = items;
	set.count = count;
	set.plan = plan;
	if (code != EXIT_ERROR)
		queue_set_outputs(outs, cli, &set, token);
	else
		queue_set_error_outputs(outs, cli, &set, token);
	if (mg_outputs_commit(outs, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	if (print_set(cli, &set, token) < 0)
		code = EXIT_ERROR;
done:
	for (i = 0; items && i < count; i++)
		mg_check_result_free(items[i].result);
	free(items);
	mg_plan_free(plan);
	mg_outputs_free(outs);
	if (began)
		mg_check_end();
	return code;
}

static int run_check(struct cli *cli, bool record)
{
	mg_check_result *res = NULL;
	mg_outputs *outs = mg_outputs_new();
	mg_error err;
	char *json = NULL, *shown = NULL;
	char token[MG_OUTPUT_TOKEN_SIZE] = "";
	bool unchanged = false, alone, set;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	if (cli->format == FORMAT_DEFAULT) {
		const char *gha = getenv("GITHUB_ACTIONS");

		cli->format = gha && !strcmp(gha, "true") ? FORMAT_GITHUB : FORMAT_TEXT;
	}
	/* The token delimits untrusted text only in the github format and the
	 * step outputs: drawn only for them (seeding OpenSSL's generator is a
	 * tenth of a plain check's instructions). */
	if ((cli->format == FORMAT_GITHUB || env("GITHUB_OUTPUT")) && mg_output_token(token) < 0) {
		mg_error_set(&err, NULL, 0, 0, "cannot read random bytes for output delimiters");
		code = cli_fail(&err);
		goto done;
	}
	/* The record never reads the findings, and the text for people only
	 * for some decisions (mg_text_reads_findings): with one of them alone,
	 * they are computed only when read (at 10^5 candidates, 46 MB of
	 * findings and their messages). */
	alone = !record && !cli->summary_path && !env("GITHUB_STEP_SUMMARY") &&
		!env("GITHUB_OUTPUT") && !cli->junit_path && !cli->sarif_path &&
		!cli->codequality_path && !cli->comment_path && !cli->inputs_path;
	set = cli->all || cli->policy_count > 1;
	cli->opt.no_findings = alone && (cli->format == FORMAT_JSON ||
					 (cli->format == FORMAT_TEXT && !set));
	cli->opt.reads_findings = cli->format == FORMAT_TEXT ? mg_text_reads_findings : NULL;
	if (set) {
		code = run_check_set(cli, token);
		goto done;
	}
	if (mg_check_run(&res, &cli->opt, &err) < 0) {
		code = fail_check(cli, &err, token);
		goto done;
	}
	mg_outputs_guard(outs, res->root);
	queue_outputs(outs, cli, res, token);
	/* record --out compares with what the file holds: the record whole */
	if (record)
		json = mg_record_render(res);
	if (record && queue_record(outs, cli->out_path, json, &unchanged, &err) < 0) {
		code = fail_check(cli, &err, token);
		goto done;
	}
	if (mg_outputs_commit(outs, &err) < 0) {
		code = fail_check(cli, &err, token);
		goto done;
	}
	code = res->passed ? EXIT_PASS : EXIT_GATE;
	if ((shown = render(cli, res, token)))
		fputs(shown, stdout);
	else if (json)
		fputs(json, stdout);
	else if (stdout_written(mg_record_write(res, to_stdout, NULL)) < 0)
		code = EXIT_ERROR;
	if (cli->format == FORMAT_JSON)
		cli_print_warnings(res);  /* text and github list them themselves */
	if (record)
		cli_say_file(unchanged ? "record unchanged:" : "wrote", cli->out_path);
done:
	free(shown);
	free(json);
	mg_outputs_free(outs);
	mg_check_result_free(res);
	return code;
}

/* memgate check and memgate record: parse, then run. */
static int check_or_record(int argc, char **argv, const struct cli_command *self)
{
	struct cli cli = { 0 };
	const char *cmd = self->name;
	bool record = self == &cmd_record;
	enum parsed parsed;

	if ((parsed = cli_parse(&cli, argc, argv, self)))
		return cli_parsed_exit(parsed);
	if (!record && cli.out_path)
		return cli_usage_error(cmd, "%s", "--out belongs to 'memgate record'");
	if (cli.all && cli.policy_count)
		return cli_usage_error(cmd, "%s", "--all gates every policy: give it without --policy");
	if (cli.changed && !cli.all)
		return cli_usage_error(cmd, "%s", "--changed selects among --all's policies: give --all");
	if (record && (cli.all || cli.policy_count > 1))
		return cli_usage_error(cmd, "%s", "record writes one policy's record: give one --policy");
	return run_check(&cli, record);
}

static int check_main(int argc, char **argv)
{
	return check_or_record(argc, argv, &cmd_check);
}

static int record_main(int argc, char **argv)
{
	return check_or_record(argc, argv, &cmd_record);
}

const struct cli_command cmd_check = {
	"check", check_main, check_options,
	"Gate the committed evidence against the budget policy.\n",
	"When GITHUB_OUTPUT is set, the step outputs decision, reason, next-action,\n"
	"selected-candidate and passed are appended to it.\n"
	"\n"
	"Exit status: 0 passes, 1 the decision is in fail_on, 2 could not decide; with\n"
	"several policies, the worst of theirs.\n",
	"gate the committed evidence against the budget policy"
};

const struct cli_command cmd_record = {
	"record", record_main, record_options,
	"Write the decision record to PATH, write-once: when PATH holds the same record (apart\n"
	"from commit ids) nothing is done; when it holds a different one, memgate refuses (exit 2).\n"
	"Exits like check.\n",
	NULL,
	"write the decision record, write-once (release close stage)"
};
