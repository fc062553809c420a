/*
 * memgate: the command-line front end.  The only code that prints or exits.
 *
 *   memgate check    [input options] [output options]
 *   memgate record   [input options] --out PATH
 *   memgate manifest --report PATH [--out PATH] [--semantic-id ID] [--force]
 *   memgate approve  --out PATH [-C DIR] [--policy PATH] [--fail-on LIST]
 *   memgate list     [--rev REV] [-C DIR] [--format json|text]
 *   memgate version
 *
 * Exit codes (README, "Exit codes"): 0 the check passes, 1 the decision is in fail_on,
 * 2 memgate could not decide (nothing is written then).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git.h"
#include "json_write.h"
#include "memgate.h"

enum { EXIT_PASS = 0, EXIT_GATE = 1, EXIT_ERROR = 2 };
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)   /* a limit's value, as written */
enum format { FORMAT_DEFAULT, FORMAT_TEXT, FORMAT_JSON, FORMAT_GITHUB };

struct cli {
	const char *command;
	mg_check_options opt;
	enum format format;
	const char *json_path;
	const char *inputs_path;   /* --inputs */
	const char *summary_path;  /* --summary, else $GITHUB_STEP_SUMMARY */
	const char *junit_path;
	const char *sarif_path;
	const char *codequality_path;
	const char *comment_path;  /* --comment */
	bool all;                  /* --all */
	bool changed;              /* --changed: with --all, only changed policies */
	const char *policies[MG_CLI_MAX_POLICIES];  /* every --policy, in order */
	size_t policy_count;
	const char *out_path;      /* record, manifest */
	const char *report_path;   /* manifest */
	const char *semantic_id;   /* manifest */
	const char *measured_commit; /* manifest */
	bool force;                /* manifest */
};

static const char usage_check[] =
"usage: memgate check [-C DIR] [--rev REV] [--policy PATH]... [--all [--changed]]\n"
"                     [--policy-rev REV] [--base REV] [--worktree] [--format text|json|github]\n"
"                     [--json FILE] [--summary FILE] [--junit FILE] [--sarif FILE]\n"
"                     [--codequality FILE] [--comment FILE] [--inputs FILE] [--fail-on LIST]\n"
"                     [--require-approved] [--today YYYY-MM-DD] [--max-input-mb N]\n"
"\n"
"Gate the committed evidence against the budget policy.\n"
"\n"
"  -C DIR             the repository, seen from DIR (default: the current directory)\n"
"  --rev REV          read the manifest, report and approved result from REV (default HEAD)\n"
"  --policy PATH      the policy, relative to DIR (default: the nearest .memgate.yml in\n"
"                     DIR or above it); repeat it to gate several policies\n"
"  --all              gate every policy file of the repository (see memgate list)\n"
"  --changed          with --all: gate only the policies whose inputs changed between\n"
"                     --policy-rev and --rev (large monorepos)\n"
"  --policy-rev REV   read the policy from REV (default: --rev); on a pull request, the base\n"
"  --base REV         compare with the decision and values of the evidence at REV\n"
"                     (default: --policy-rev when given)\n"
"  --worktree         read every input from the working tree instead (never in CI)\n"
"  --format FORMAT    text, json (the decision record) or github (workflow-command\n"
"                     annotations); default text, or github when GITHUB_ACTIONS=true\n"
"  --json FILE        also write the decision record to FILE (atomically)\n"
"  --summary FILE     append a Markdown job summary to FILE (default $GITHUB_STEP_SUMMARY)\n"
"  --junit FILE       write a JUnit XML report (GitLab, Jenkins)\n"
"  --sarif FILE       write a SARIF 2.1.0 log (GitHub code scanning)\n"
"  --codequality FILE write a GitLab Code Quality report\n"
"  --comment FILE     write the short pull-request comment (Markdown, one per policy,\n"
"                     each opened by its <!-- memgate: POLICY --> marker line)\n"
"  --inputs FILE      write the repository paths of the inputs read, one per line\n"
"  --fail-on LIST     decisions that fail the check, e.g. reject,tune, or none\n"
"                     (default: the policy's gate.fail_on)\n"
"  --require-approved the manifest's approved_result must match this decision (release gates)\n"
"  --today DATE       judge waivers' expiry on DATE, YYYY-MM-DD (default: today in UTC)\n"
"  --max-input-mb N   refuse inputs larger than N MiB (default 64)\n"
"  -h, --help         show this help\n"
"\n"
"When GITHUB_OUTPUT is set, the step outputs decision, reason, next-action,\n"
"selected-candidate and passed are appended to it.\n"
"\n"
"Exit status: 0 passes, 1 the decision is in fail_on, 2 could not decide; with\n"
"several policies, the worst of theirs.\n";

static const char usage_list[] =
"usage: memgate list [--rev REV] [-C DIR] [--format json|text]\n"
"\n"
"Print every policy file committed at REV (default HEAD): .memgate.yml in any\n"
"directory and *.memgate.yml, as paths from the repository root.  json (the\n"
"default) prints a JSON array, e.g. for a GitHub matrix through fromJSON; text\n"
"prints one path per line.\n";

static const char usage_record[] =
"usage: memgate record --out PATH [-C DIR] [--rev REV] [--policy PATH]\n"
"                      [--policy-rev REV] [--worktree] [--fail-on LIST]\n"
"                      [--require-approved] [--max-input-mb N] [check's output options]\n"
"\n"
"Write the decision record to PATH, write-once: when PATH holds the same record (apart\n"
"from commit ids) nothing is done; when it holds a different one, memgate refuses (exit 2).\n"
"Exits like check; the options are check's (see 'memgate check -h').\n";

static const char usage_manifest[] =
"usage: memgate manifest --report PATH [--out PATH] [--semantic-id ID] [--force]\n"
"                        [--measured-commit REV] [--worktree] [-C DIR] [--rev REV]\n"
"                        [--max-input-mb N]\n"
"\n"
"Print (or write to --out) a manifest pinning the SHA-256 of the report committed at\n"
"REV (default HEAD), or with --worktree of the working-tree file (a report not yet\n"
"committed).  An existing --out with different content is kept unless --force; its\n"
"approved_result is carried over.  --semantic-id must equal the report's semantic_id.\n"
"--measured-commit writes measured.commit, the full id of the commit whose code was\n"
"measured (what evidence.inputs of the policy is compared with).\n";

static const char usage_approve[] =
"usage: memgate approve --out PATH [-C DIR] [--policy PATH] [--fail-on LIST]\n"
"                       [--today YYYY-MM-DD] [--max-input-mb N]\n"
"\n"
"Approve the evidence committed at HEAD for a release: write its decision record\n"
"to PATH (write-once, as memgate record) and pin it as the manifest's\n"
"approved_result (path and SHA-256), both files or neither.  Refused (exit 2,\n"
"nothing written) unless 'memgate check --require-approved' with the same\n"
"--fail-on passes once both are committed: the evidence must apply, and the\n"
"decision be neither reject nor in fail_on; also when the manifest has\n"
"uncommitted edits.  When the policy checks signatures (provenance), prints\n"
"the ssh-keygen line that signs the changed manifest again.\n"
"\n"
"  --out PATH         the record's file, inside the working tree (required)\n"
"  --fail-on LIST     the release gate's rule, e.g. reject to approve a tune\n"
"                     (default: the policy's gate.fail_on)\n"
"  -C DIR, --policy PATH, --today DATE, --max-input-mb N   as for check\n"
"  -h, --help         show this help\n"
"\n"
"Exit status: 0 approved, 2 refused or could not decide.\n";

static const char usage_main[] =
"usage: memgate <command> [options]\n"
"\n"
"  check      gate the committed evidence against the budget policy\n"
"  record     write the decision record, write-once (release close stage)\n"
"  manifest   make a manifest for a committed report\n"
"  approve    record the decision and pin it in the manifest (releases)\n"
"  list       list the policy files of the repository (monorepos)\n"
"  version    print the version\n"
"\n"
"'memgate <command> -h' describes a command.\n";

/* Print an error (escaped: it may quote input text) and return exit 2. */
static int fail(const mg_error *err)
{
	char buf[2048];
	mg_buf safe = MG_BUF_INIT;

	mg_error_format(err, buf, sizeof(buf));
	mg_escape_text(&safe, buf, strlen(buf));
	fprintf(stderr, "memgate: error: %s\n", safe.ptr);
	mg_buf_free(&safe);
	return EXIT_ERROR;
}

/*
 * A usage error, git's way: one line that says what is wrong, then a pointer
 * to the command's help (not the whole of it).  `cmd` is "check", "record",
 * "manifest" or NULL.  Returns exit 2.
 */
static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	mg_buf msg = MG_BUF_INIT, safe = MG_BUF_INIT;

	mg_buf_printf(&msg, fmt, arg);
	mg_escape_text(&safe, msg.ptr, msg.len);
	if (cmd)
		fprintf(stderr, "memgate: error: %s: %s\nsee 'memgate %s -h'\n", cmd, safe.ptr, cmd);
	else
		fprintf(stderr, "memgate: error: %s\nsee 'memgate -h'\n", safe.ptr);
	mg_buf_free(&msg);
	mg_buf_free(&safe);
	return EXIT_ERROR;
}

/* "reject,tune" -> flags; "none" alone fails on nothing.  Returns -1 on an
 * unknown word, -2 on a list that names nothing ("", ","): that would
 * quietly turn the gate off; -3 on "none" with other words. */
static int parse_fail_on(bool out[MG_VERDICT_COUNT], const char *list)
{
	char *copy = mg_xstrdup(list), *save = NULL, *word;
	int v, words = 0, error = 0;
	bool none = false;

	memset(out, 0, sizeof(bool) * MG_VERDICT_COUNT);
	for (word = strtok_r(copy, ", ", &save); word; word = strtok_r(NULL, ", ", &save)) {
		words++;
		if (!strcmp(word, "none")) {
			none = true;
		} else if ((v = mg_verdict_from_name(word)) >= 0) {
			out[v] = true;
		} else {
			error = -1;
			break;
		}
	}
	if (!error && !words)
		error = -2;
	else if (!error && none && words > 1)
		error = -3;
	free(copy);
	return error;
}

/* A repository path given on the command line: "./x" is "x". */
static const char *repo_path_arg(const char *arg)
{
	while (arg[0] == '.' && arg[1] == '/') {
		arg += 2;
		while (*arg == '/')
			arg++;
	}
	return arg;
}

static int parse_mb(size_t *out, const char *arg)
{
	char *end;
	unsigned long long mb = strtoull(arg, &end, 10);

	if (!*arg || *end || mb == 0 || mb > ((size_t)-1 >> 21))
		return -1;
	*out = (size_t)mb << 20;
	return 0;
}

enum {
	OPT_REV = 256, OPT_POLICY, OPT_POLICY_REV, OPT_WORKTREE, OPT_FORMAT, OPT_JSON,
	OPT_FAIL_ON, OPT_REQUIRE_APPROVED, OPT_MAX_INPUT, OPT_OUT, OPT_REPORT,
	OPT_SEMANTIC_ID, OPT_FORCE, OPT_HELP, OPT_SUMMARY, OPT_JUNIT, OPT_BASE, OPT_SARIF,
	OPT_CODEQUALITY, OPT_ALL, OPT_TODAY, OPT_INPUTS, OPT_MEASURED_COMMIT, OPT_CHANGED,
	OPT_COMMENT
};

static const struct option check_options[] = {
	{ "rev", required_argument, NULL, OPT_REV },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "policy-rev", required_argument, NULL, OPT_POLICY_REV },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "worktree", no_argument, NULL, OPT_WORKTREE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "summary", required_argument, NULL, OPT_SUMMARY },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "sarif", required_argument, NULL, OPT_SARIF },
	{ "codequality", required_argument, NULL, OPT_CODEQUALITY },
	{ "comment", required_argument, NULL, OPT_COMMENT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "changed", no_argument, NULL, OPT_CHANGED },
	{ "today", required_argument, NULL, OPT_TODAY },
	{ "inputs", required_argument, NULL, OPT_INPUTS },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "require-approved", no_argument, NULL, OPT_REQUIRE_APPROVED },
	{ "max-input-mb", required_argument, NULL, OPT_MAX_INPUT },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static const struct option approve_options[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "today", required_argument, NULL, OPT_TODAY },
	{ "max-input-mb", required_argument, NULL, OPT_MAX_INPUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static const struct option list_options[] = {
	{ "rev", required_argument, NULL, OPT_REV },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

static const struct option manifest_options[] = {
	{ "rev", required_argument, NULL, OPT_REV },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "semantic-id", required_argument, NULL, OPT_SEMANTIC_ID },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "measured-commit", required_argument, NULL, OPT_MEASURED_COMMIT },
	{ "worktree", no_argument, NULL, OPT_WORKTREE },
	{ "max-input-mb", required_argument, NULL, OPT_MAX_INPUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 }
};

/* Apply one option; returns 0, 1 for --help, or -1 after printing a usage error. */
static int apply_option(struct cli *cli, int c, const char *arg)
{
	const char *cmd = cli->command;

	switch (c) {
	case 'C': cli->opt.dir = arg; break;
	case OPT_REV: cli->opt.rev = arg; break;
	case OPT_POLICY:
		if (cli->policy_count == MG_CLI_MAX_POLICIES)
			return usage_error(cmd, "more than %s --policy options: use --all",
					   STRINGIFY(MG_CLI_MAX_POLICIES)), -1;
		cli->policies[cli->policy_count++] = arg;
		cli->opt.policy_path = arg;
		break;
	case OPT_ALL: cli->all = true; break;
	case OPT_CHANGED: cli->changed = true; break;
	case OPT_TODAY: cli->opt.today = arg; break;
	case OPT_SARIF: cli->sarif_path = arg; break;
	case OPT_CODEQUALITY: cli->codequality_path = arg; break;
	case OPT_COMMENT: cli->comment_path = arg; break;
	case OPT_POLICY_REV: cli->opt.policy_rev = arg; break;
	case OPT_BASE: cli->opt.base = arg; break;
	case OPT_WORKTREE: cli->opt.worktree = true; break;
	case OPT_JSON: cli->json_path = arg; break;
	case OPT_SUMMARY: cli->summary_path = arg; break;
	case OPT_JUNIT: cli->junit_path = arg; break;
	case OPT_INPUTS: cli->inputs_path = arg; break;
	case OPT_REQUIRE_APPROVED: cli->opt.require_approved = true; break;
	case OPT_OUT: cli->out_path = arg; break;
	case OPT_REPORT: cli->report_path = repo_path_arg(arg); break;
	case OPT_SEMANTIC_ID: cli->semantic_id = arg; break;
	case OPT_MEASURED_COMMIT: cli->measured_commit = arg; break;
	case OPT_FORCE: cli->force = true; break;
	case 'h': case OPT_HELP: return 1;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			cli->format = FORMAT_TEXT;
		else if (!strcmp(arg, "json"))
			cli->format = FORMAT_JSON;
		else if (!strcmp(arg, "github"))
			cli->format = FORMAT_GITHUB;
		else
			return usage_error(cmd, "--format: unknown format '%s' (expected text, json or github)", arg), -1;
		break;
	case OPT_FAIL_ON:
		cli->opt.fail_on_set = true;
		switch (parse_fail_on(cli->opt.fail_on, arg)) {
		case -1:
			return usage_error(cmd, "--fail-on: unknown decision in '%s' (expected accept, tune, reject or none)", arg), -1;
		case -2:
			return usage_error(cmd, "--fail-on: '%s' names no decision (give accept, tune, reject, "
					   "or 'none' to never fail; leave --fail-on out for the policy's gate.fail_on)", arg), -1;
		case -3:
			return usage_error(cmd, "--fail-on: 'none' cannot be combined with other decisions in '%s'", arg), -1;
		}
		break;
	case OPT_MAX_INPUT:
		if (parse_mb(&cli->opt.max_input_bytes, arg) < 0)
			return usage_error(cmd, "--max-input-mb: expected a positive whole number, got '%s'", arg), -1;
		break;
	default:
		return usage_error(cmd, "%s", "unknown option"), -1;
	}
	return 0;
}

/* The option getopt stopped at (argv[optind - 1], or -X for a short one). */
static const char *bad_option(char *const *argv, char buf[3])
{
	if (optopt > 0 && optopt < 256) {
		buf[0] = '-';
		buf[1] = (char)optopt;
		buf[2] = '\0';
		return buf;
	}
	return argv[optind - 1];
}

/* The long option name of an OPT_ value that takes an argument, for messages. */
static const char *option_name(const struct option *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->val == c)
			return opts->name;
	return "?";
}

/* What parse_args found: go on, or stop with exit 0 (--help printed) or 2
 * (a usage error printed). */
enum parsed { PARSED_GO, PARSED_HELP, PARSED_USAGE_ERROR };

/* The exit code of a parse that stops. */
static int parsed_exit(enum parsed p)
{
	return p == PARSED_HELP ? EXIT_PASS : EXIT_ERROR;
}

/* Parse argv after the command word. */
static enum parsed parse_args(struct cli *cli, int argc, char **argv, const struct option *opts,
		      const char *usage)
{
	char shortopt[3];
	int c, r, idx;

	optind = 1;
	opterr = 0;
	for (;;) {
		idx = -1;
		optopt = 0;
		if ((c = getopt_long(argc, argv, ":C:h", opts, &idx)) == -1)
			break;
		if (c == '?') {
			usage_error(cli->command, "unknown option '%s'", bad_option(argv, shortopt));
			return PARSED_USAGE_ERROR;
		}
		if (c == ':') {
			const char *name = optopt == 'C' ? "-C" : NULL;
			char dashed[64];

			if (!name) {
				snprintf(dashed, sizeof(dashed), "--%s", option_name(opts, optopt));
				name = optopt ? dashed : argv[optind - 1];
			}
			usage_error(cli->command, "option '%s' needs a value", name);
			return PARSED_USAGE_ERROR;
		}
		if ((r = apply_option(cli, c, optarg)) > 0) {
			fputs(usage, stdout);
			return PARSED_HELP;
		}
		if (r < 0)
			return PARSED_USAGE_ERROR;
	}
	if (optind < argc) {
		usage_error(cli->command, "unexpected argument '%s'", argv[optind]);
		return PARSED_USAGE_ERROR;
	}
	return PARSED_GO;
}

/* memgate record: queue --out unless it already holds the same record. */
static int queue_record(mg_outputs *outs, const char *path, const char *record,
			bool *unchanged, mg_error *err)
{
	size_t len;
	char *existing = NULL;
	bool same = false;
	int error;

	*unchanged = false;
	if ((error = mg_outputs_read_existing(&existing, &len, outs, path, err)) < 0)
		return error;
	if (!existing) {
		mg_outputs_add(outs, path, record, strlen(record), MG_OUTPUT_REPLACE);
		return MG_OK;
	}
	if ((error = mg_record_same(&same, existing, len, record, err)) < 0) {
		char msg[sizeof(err->message)];

		snprintf(msg, sizeof(msg), "%s", err->message);
		error = mg_error_set(err, path, 0, 0, "%s", msg);
	} else if (!same) {
		error = mg_error_set(err, path, 0, 0,
				     "already holds a different decision record; records are write-once: "
				     "choose a new file name");
	}
	*unchanged = same;
	free(existing);
	return error;
}

static void print_warnings(const mg_check_result *res)
{
	mg_buf safe = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < res->warning_count; i++) {
		mg_buf_puts(&safe, "memgate: warning: ");
		mg_escape_text(&safe, res->warnings[i], strlen(res->warnings[i]));
		mg_buf_putc(&safe, '\n');
	}
	fputs(safe.ptr, stderr);
	mg_buf_free(&safe);
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

/* Queue --sarif, --codequality and --comment for the items. */
static void queue_reports(mg_outputs *outs, const struct cli *cli,
			  const mg_check_item *items, size_t count)
{
	char *url;

	if (cli->comment_path) {
		url = run_url();
		queue_owned(outs, cli->comment_path, mg_comment_render_set(items, count, url),
			    MG_OUTPUT_REPLACE);
		free(url);
	}
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
	queue_reports(outs, cli, &item, 1);
}

/* "memgate: wrote 'PATH'" and the like, the path escaped. */
static void say_file(const char *what, const char *path)
{
	mg_buf safe = MG_BUF_INIT;

	mg_escape_text(&safe, path, strlen(path));
	fprintf(stderr, "memgate: %s '%s'\n", what, safe.ptr);
	mg_buf_free(&safe);
}

/*
 * memgate could not decide (exit 2).  The files the user asked for are not
 * written, but the runner's own channels are, so that GitHub shows why:
 * an ::error annotation at the input's line (github format), the job
 * summary ($GITHUB_STEP_SUMMARY, unless --summary names another file) and
 * the step outputs ($GITHUB_OUTPUT: decision=error, error=<message>).
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
	mg_error_clear(&werr);
	if (mg_outputs_commit(outs, &werr) < 0)
		fail(&werr);
	mg_outputs_free(outs);
	return fail(err);
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
		queue_owned(outs, cli->junit_path, mg_junit_render_set(items, count),
			    MG_OUTPUT_REPLACE);
	if (cli->inputs_path)
		queue_set_inputs(outs, cli->inputs_path, items, count);
	if (gh_output && count)   /* --changed may leave none to gate */
		queue_owned(outs, gh_output, mg_github_outputs_set(items, count, token),
			    MG_OUTPUT_RUNNER);
	queue_reports(outs, cli, items, count);
}

/*
 * Some policy could not be decided (exit 2): as fail_check, only the
 * runner's channels are written: the combined job summary (which names the
 * errors) and the step outputs of the first error (decision=error).
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
static int cmd_check_set(struct cli *cli, const char *token)
{
	mg_check_item *items = NULL;
	mg_outputs *outs = mg_outputs_new();
	struct item_set set;
	mg_plan *plan = NULL;
	char *shown = NULL, *notes = NULL;
	bool began = false;
	size_t count = cli->policy_count, i;
	mg_check_options opt;
	mg_error err;
	int code = EXIT_ERROR, st;

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
	code = EXIT_PASS;
	for (i = 0; i < count; i++) {
		opt = cli->opt;
		opt.policy_path = items[i].policy;
		opt.policy_from_root = cli->all;
		if (items[i].error.message[0])
			fail(&items[i].error);   /* a deleted policy: the plan says why */
		else if (mg_check_run(&items[i].result, &opt, &items[i].error) < 0)
			fail(&items[i].error);
		if ((st = mg_check_item_status(&items[i])) > code)
			code = st;
		if (items[i].result)
			mg_outputs_guard(outs, items[i].result->root);
	}
	set.items = items;
	set.count = count;
	set.plan = plan;
	if (code != EXIT_ERROR)
		queue_set_outputs(outs, cli, &set, token);
	else
		queue_set_error_outputs(outs, cli, &set, token);
	if (mg_outputs_commit(outs, &err) < 0) {
		code = fail(&err);
		goto done;
	}
	if (cli->format == FORMAT_JSON) {
		if (stdout_written(mg_record_write_set(items, count, to_stdout, NULL)) < 0)
			code = EXIT_ERROR;
		for (i = 0; i < count; i++)
			if (items[i].result)
				print_warnings(items[i].result);
		print_plan(plan);
	} else if (cli->format == FORMAT_GITHUB) {
		notes = plan ? mg_github_render_plan(plan) : NULL;
		shown = mg_github_render_set(items, count, token);
		if (notes)
			fputs(notes, stdout);
		fputs(shown, stdout);
	} else {
		shown = mg_text_render_set(items, count);
		fputs(shown, stdout);
		print_plan(plan);
	}
done:
	for (i = 0; items && i < count; i++)
		mg_check_result_free(items[i].result);
	free(items);
	mg_plan_free(plan);
	free(shown);
	free(notes);
	mg_outputs_free(outs);
	if (began)
		mg_check_end();
	return code;
}

static int cmd_check(struct cli *cli, bool record)
{
	mg_check_result *res = NULL;
	mg_outputs *outs = mg_outputs_new();
	mg_error err;
	char *json = NULL, *shown = NULL;
	char token[MG_OUTPUT_TOKEN_SIZE];
	bool unchanged = false;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	if (cli->format == FORMAT_DEFAULT) {
		const char *gha = getenv("GITHUB_ACTIONS");

		cli->format = gha && !strcmp(gha, "true") ? FORMAT_GITHUB : FORMAT_TEXT;
	}
	if (mg_output_token(token) < 0) {
		mg_error_set(&err, NULL, 0, 0, "cannot read random bytes for output delimiters");
		code = fail(&err);
		goto done;
	}
	if (cli->all || cli->policy_count > 1) {
		code = cmd_check_set(cli, token);
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
		print_warnings(res);  /* text and github list them themselves */
	if (record)
		say_file(unchanged ? "record unchanged:" : "wrote", cli->out_path);
done:
	free(shown);
	free(json);
	mg_outputs_free(outs);
	mg_check_result_free(res);
	return code;
}

static void print_lines(const char *prefix, char **lines, size_t count)
{
	mg_buf safe = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < count; i++) {
		mg_buf_printf(&safe, "memgate: %s: ", prefix);
		mg_escape_text(&safe, lines[i], strlen(lines[i]));
		mg_buf_putc(&safe, '\n');
		free(lines[i]);
	}
	fputs(safe.ptr, stderr);
	mg_buf_free(&safe);
	free(lines);
}

/* Guard (mg_outputs_guard) the work tree of the repository at `dir` and
 * `dir` itself, for a command that writes before it opens the repository. */
static void guard_repository(mg_outputs *outs, const char *dir)
{
	mg_repo *repo = NULL;
	mg_error ignored;

	mg_outputs_guard(outs, dir);
	if (mg_repo_open(&repo, dir, &ignored) == 0)
		mg_outputs_guard(outs, mg_repo_workdir(repo));
	mg_repo_free(repo);
}

/* memgate manifest: refuse to replace different content unless --force;
 * an existing manifest's approved_result is kept. */
static int cmd_manifest(struct cli *cli)
{
	mg_outputs *outs = mg_outputs_new();
	mg_manifest_options mo = { 0 };
	char *text = NULL, *existing = NULL, **warnings = NULL, **notes = NULL;
	size_t len = 0, warning_count = 0, note_count = 0;
	mg_error err;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	guard_repository(outs, cli->opt.dir);
	if (cli->out_path &&
	    mg_outputs_read_existing(&existing, &len, outs, cli->out_path, &err) < 0) {
		code = fail(&err);
		goto done;
	}
	mo.dir = cli->opt.dir;
	mo.rev = cli->opt.rev;
	mo.report_path = cli->report_path;
	mo.semantic_id = cli->semantic_id;
	mo.measured_commit = cli->measured_commit;
	mo.worktree = cli->opt.worktree;
	mo.max_input_bytes = cli->opt.max_input_bytes;
	mo.out_path = cli->out_path;
	mo.existing = existing;
	mo.existing_len = len;
	if (mg_check_make_manifest(&text, &warnings, &warning_count, &notes, &note_count,
				   &mo, &err) < 0) {
		code = fail(&err);
		goto done;
	}
	if (!cli->out_path) {
		fputs(text, stdout);
		code = EXIT_PASS;
		goto done;
	}
	if (existing && (len != strlen(text) || memcmp(existing, text, len)) && !cli->force) {
		mg_error_set(&err, cli->out_path, 0, 0,
			     "already exists with different content; use --force to replace it");
		code = fail(&err);
		goto done;
	}
	mg_outputs_add(outs, cli->out_path, text, strlen(text), MG_OUTPUT_REPLACE);
	if (mg_outputs_commit(outs, &err) < 0) {
		code = fail(&err);
		goto done;
	}
	say_file("wrote", cli->out_path);
	code = EXIT_PASS;
done:
	print_lines("note", notes, note_count);
	print_lines("warning", warnings, warning_count);
	free(existing);
	free(text);
	mg_outputs_free(outs);
	return code;
}

/* `s` quoted for a POSIX shell when it holds more than [A-Za-z0-9_./@%+=:,-]. */
static void put_shell_word(mg_buf *out, const char *s)
{
	const char *p;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			 "_./@%+=:,-") == strlen(s)) {
		mg_buf_puts(out, s);
		return;
	}
	mg_buf_putc(out, '\'');
	for (p = s; *p; p++)
		mg_buf_puts(out, *p == '\'' ? "'\\''" : (char[2]){ *p, '\0' });
	mg_buf_putc(out, '\'');
}

/* What approve did, and the commands left to run (to paste where memgate
 * ran): sign the manifest again when the policy checks signatures, add and
 * commit both files. */
static void print_approval(const mg_approval *a, const char *out_path)
{
	const mg_check_result *res = a->result;
	const mg_decision *d = res->decision;
	mg_buf raw = MG_BUF_INIT, safe = MG_BUF_INIT, sig = MG_BUF_INIT;
	const char *line, *end;

	mg_buf_printf(&raw, "approved: %s (%s)", mg_verdict_name(d->verdict),
		      mg_outcome_name(d->reason));
	if (d->selected)
		mg_buf_printf(&raw, ", selected %s", d->selected);
	mg_buf_printf(&raw, ", at %.7s\n%s '%s' (sha256 %s)\n", res->rev,
		      a->record_unchanged ? "record unchanged:" : "wrote", out_path,
		      a->record_sha256);
	mg_buf_printf(&raw, "%s '%s'\n", a->manifest_unchanged
		      ? "already pinned as approved_result in" : "pinned as approved_result in",
		      a->manifest_file);
	if (res->signature.checked) {
		mg_buf_printf(&raw, "the manifest changed, so its signature no longer matches; the "
			      "policy %s signatures: sign it again with an allowed key, on the "
			      "trusted runner:\n  ssh-keygen -Y sign -n ",
			      res->signature.required ? "requires" : "checks");
		put_shell_word(&raw, res->policy->sig_namespace);
		mg_buf_puts(&raw, " -f KEY ");
		put_shell_word(&raw, a->manifest_file);
		mg_buf_putc(&raw, '\n');
	}
	mg_buf_puts(&raw, "then commit them:\n  git add ");
	put_shell_word(&raw, out_path);
	mg_buf_putc(&raw, ' ');
	put_shell_word(&raw, a->manifest_file);
	if (res->signature.checked) {   /* MANIFEST.sig, beside it */
		mg_buf_printf(&sig, "%s.sig", a->manifest_file);
		mg_buf_putc(&raw, ' ');
		put_shell_word(&raw, sig.ptr);
	}
	mg_buf_puts(&raw, "\n");
	for (line = raw.ptr; *line; line = end + 1) {   /* each line escaped */
		end = strchr(line, '\n');
		mg_escape_text(&safe, line, (size_t)(end - line));
		mg_buf_putc(&safe, '\n');
	}
	fputs(safe.ptr, stdout);
	mg_buf_free(&raw);
	mg_buf_free(&safe);
	mg_buf_free(&sig);
}

/* memgate approve: refuse (exit 2, nothing written) or write both files. */
static int cmd_approve(struct cli *cli)
{
	mg_approve_options ao = { 0 };
	mg_approval *a = NULL;
	mg_error err;
	int code;

	mg_error_clear(&err);
	ao.check = cli->opt;
	ao.out_path = cli->out_path;
	if (mg_approve_run(&a, &ao, &err) < 0)
		return fail(&err);
	print_warnings(a->result);
	print_approval(a, cli->out_path);
	code = EXIT_PASS;
	mg_approve_free(a);
	return code;
}

/* memgate list: the policy files, as JSON (a matrix) or one per line. */
static int cmd_list(struct cli *cli)
{
	char **paths = NULL;
	size_t count = 0, i;
	mg_jw w;
	mg_buf out = MG_BUF_INIT;
	mg_error err;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	if (mg_check_list(&paths, &count, cli->opt.dir, cli->opt.rev, &err) < 0) {
		code = fail(&err);
		goto done;
	}
	if (cli->format == FORMAT_TEXT) {
		for (i = 0; i < count; i++) {
			mg_escape_text(&out, paths[i], strlen(paths[i]));
			mg_buf_putc(&out, '\n');
		}
	} else {
		mg_jw_init(&w, &out, MG_JW_LINE, 0);
		mg_jw_array(&w);
		for (i = 0; i < count; i++)
			mg_jw_string(&w, paths[i]);
		mg_jw_end(&w);
		mg_buf_putc(&out, '\n');
	}
	fputs(out.ptr, stdout);
	code = EXIT_PASS;
done:
	mg_buf_free(&out);
	mg_check_list_free(paths, count);
	return code;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	const char *cmd = argc > 1 ? argv[1] : NULL;
	enum parsed parsed;

	if (!cmd) {
		fputs(usage_main, stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage_main, stdout);
		return EXIT_PASS;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("memgate %s\n", MG_VERSION);
		return EXIT_PASS;
	}
	cli.command = cmd;
	if (!strcmp(cmd, "check") || !strcmp(cmd, "record")) {
		bool record = !strcmp(cmd, "record");
		const char *usage = record ? usage_record : usage_check;

		if ((parsed = parse_args(&cli, argc - 1, argv + 1, check_options, usage)))
			return parsed_exit(parsed);
		if (record && !cli.out_path)
			return usage_error(cmd, "%s", "needs --out PATH");
		if (!record && cli.out_path)
			return usage_error(cmd, "%s", "--out belongs to 'memgate record'");
		if (cli.all && cli.policy_count)
			return usage_error(cmd, "%s", "--all gates every policy: give it without --policy");
		if (cli.changed && !cli.all)
			return usage_error(cmd, "%s", "--changed selects among --all's policies: give --all");
		if (record && (cli.all || cli.policy_count > 1))
			return usage_error(cmd, "%s", "record writes one policy's record: give one --policy");
		return cmd_check(&cli, record);
	}
	if (!strcmp(cmd, "manifest")) {
		if ((parsed = parse_args(&cli, argc - 1, argv + 1, manifest_options,
					 usage_manifest)))
			return parsed_exit(parsed);
		if (!cli.report_path)
			return usage_error(cmd, "%s", "needs --report PATH");
		return cmd_manifest(&cli);
	}
	if (!strcmp(cmd, "approve")) {
		if ((parsed = parse_args(&cli, argc - 1, argv + 1, approve_options, usage_approve)))
			return parsed_exit(parsed);
		if (!cli.out_path)
			return usage_error(cmd, "%s", "needs --out PATH");
		if (cli.policy_count > 1)
			return usage_error(cmd, "%s", "approve writes one policy's record: give one --policy");
		return cmd_approve(&cli);
	}
	if (!strcmp(cmd, "list")) {
		if ((parsed = parse_args(&cli, argc - 1, argv + 1, list_options, usage_list)))
			return parsed_exit(parsed);
		if (cli.format == FORMAT_GITHUB)
			return usage_error(cmd, "%s", "--format: list prints json or text");
		return cmd_list(&cli);
	}
	return usage_error(NULL, "unknown command '%s'", cmd);
}
