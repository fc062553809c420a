/*
 * The front end's shared parts: parsing a command's options into struct
 * cli, and the messages every command prints.  See options.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int cli_fail(const mg_error *err)
{
	char buf[2048];
	mg_buf safe = MG_BUF_INIT;

	mg_error_format(err, buf, sizeof(buf));
	mg_escape_text(&safe, buf, strlen(buf));
	fprintf(stderr, "memgate: error: %s\n", safe.ptr);
	mg_buf_free(&safe);
	return EXIT_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
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

/* Apply one option; returns 0, 1 for --help, or -1 after printing a usage error. */
static int apply_option(struct cli *cli, int c, const char *arg)
{
	const char *cmd = cli->command;

	switch (c) {
	case 'C': cli->opt.dir = arg; break;
	case OPT_REV: cli->opt.rev = arg; break;
	case OPT_POLICY:
		if (cli->policy_count == MG_CLI_MAX_POLICIES)
			return cli_usage_error(cmd, "more than %s --policy options: use --all",
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
			return cli_usage_error(cmd, "--format: unknown format '%s' (expected text, json or github)", arg), -1;
		break;
	case OPT_FAIL_ON:
		cli->opt.fail_on_set = true;
		switch (parse_fail_on(cli->opt.fail_on, arg)) {
		case -1:
			return cli_usage_error(cmd, "--fail-on: unknown decision in '%s' (expected accept, tune, reject or none)", arg), -1;
		case -2:
			return cli_usage_error(cmd, "--fail-on: '%s' names no decision (give accept, tune, reject, "
					   "or 'none' to never fail; leave --fail-on out for the policy's gate.fail_on)", arg), -1;
		case -3:
			return cli_usage_error(cmd, "--fail-on: 'none' cannot be combined with other decisions in '%s'", arg), -1;
		}
		break;
	case OPT_MAX_INPUT:
		if (parse_mb(&cli->opt.max_input_bytes, arg) < 0)
			return cli_usage_error(cmd, "--max-input-mb: expected a positive whole number, got '%s'", arg), -1;
		break;
	default:
		return cli_usage_error(cmd, "%s", "unknown option"), -1;
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

int cli_parsed_exit(enum parsed p)
{
	return p == PARSED_HELP ? EXIT_PASS : EXIT_ERROR;
}

enum parsed cli_parse(struct cli *cli, int argc, char **argv, const struct option *opts,
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
			cli_usage_error(cli->command, "unknown option '%s'", bad_option(argv, shortopt));
			return PARSED_USAGE_ERROR;
		}
		if (c == ':') {
			const char *name = optopt == 'C' ? "-C" : NULL;
			char dashed[64];

			if (!name) {
				snprintf(dashed, sizeof(dashed), "--%s", option_name(opts, optopt));
				name = optopt ? dashed : argv[optind - 1];
			}
			cli_usage_error(cli->command, "option '%s' needs a value", name);
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
		cli_usage_error(cli->command, "unexpected argument '%s'", argv[optind]);
		return PARSED_USAGE_ERROR;
	}
	return PARSED_GO;
}

void cli_print_warnings(const mg_check_result *res)
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

void cli_say_file(const char *what, const char *path)
{
	mg_buf safe = MG_BUF_INIT;

	mg_escape_text(&safe, path, strlen(path));
	fprintf(stderr, "memgate: %s '%s'\n", what, safe.ptr);
	mg_buf_free(&safe);
}
