/*
 * The front end's shared parts: parsing a command's options into struct
 * cli, and the messages every command prints.  See options.h.
 */
#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hint.h"
#include "options.h"

enum {
	CLI_MAX_OPTIONS = 32,   /* in one command's table */
	CLI_HELP_WIDTH = 80,    /* -h's usage lines wrap before this column */
	CLI_HELP_NAMES = 18,    /* -h's option names, padded; the help starts 3 columns on */
	LONG_OF_SHORT = 0x1000  /* getopt's val of a long option with a short one (--help) */
};

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

/* "--fail-on: unknown decision in 'X' (expected accept, tune, reject or
 * none)": the verdicts from the core's table. */
static int fail_on_unknown(const char *cmd, const char *arg)
{
	mg_buf fmt = MG_BUF_INIT;
	int v, code;

	mg_buf_puts(&fmt, "--fail-on: unknown decision in '%s' (expected ");
	for (v = 0; v < MG_VERDICT_COUNT; v++)
		mg_buf_printf(&fmt, "%s%s", v ? ", " : "", mg_verdict_name((enum mg_verdict)v));
	mg_buf_puts(&fmt, " or none)");
	code = cli_usage_error(cmd, fmt.ptr, arg);
	mg_buf_free(&fmt);
	return code;
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
	case OPT_RECORD_FEASIBLE_SETS: cli->opt.record_feasible_sets = true; break;
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
	case OPT_KEY: cli->key = arg; break;
	case OPT_SIGN: cli->key = arg; break;   /* approve's --sign KEY: sign's --key */
	case OPT_ALLOWED_SIGNERS: cli->allowed_signers = arg; break;
	case OPT_NAMESPACE: cli->sig_namespace = arg; break;
	case OPT_SSH_KEYGEN: cli->ssh_keygen = arg; break;
	case 'h': return 1;
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
			return fail_on_unknown(cmd, arg), -1;
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

/* "unknown option '--polcy' (did you mean '--policy'?)", for `cmd`. */
static void unknown_option(const struct cli_command *cmd, const char *opt)
{
	const char *words[CLI_MAX_OPTIONS + 1], *near = NULL;
	mg_buf msg = MG_BUF_INIT;
	size_t n = 0, len;
	const struct cli_option *o;

	for (o = cmd->options; o->id && n < CLI_MAX_OPTIONS; o++)
		if (o->name && !(o->flags & CLI_OPT_HIDDEN))
			words[n++] = o->name;
	words[n] = NULL;
	mg_buf_printf(&msg, "unknown option '%s'", opt);
	if (!strncmp(opt, "--", 2)) {
		len = strcspn(opt + 2, "=");
		near = mg_hint_nearest(words, opt + 2, len);
	}
	if (near)
		mg_buf_printf(&msg, " (did you mean '--%s'?)", near);
	cli_usage_error(cmd->name, "%s", msg.ptr);
	mg_buf_free(&msg);
}

/* The option a value is missing for, as the user wrote it ("-C",
 * "--rev"), in buf. */
static const char *needs_value(const struct cli_option *opts, char *const *argv,
			       char *buf, size_t size)
{
	if (optopt > 0 && optopt < 256) {
		snprintf(buf, size, "-%c", optopt);
		return buf;
	}
	for (; optopt && opts->id; opts++)
		if (opts->id == (optopt & ~LONG_OF_SHORT) && opts->name) {
			snprintf(buf, size, "--%s", opts->name);
			return buf;
		}
	return optopt ? "--?" : argv[optind - 1];
}

/* getopt_long's tables, built from a command's: `longs` ends with a zeroed
 * entry, `shorts` starts with ':' (a missing value returns ':'). */
struct getopt_tables {
	struct option longs[CLI_MAX_OPTIONS + 1];
	char shorts[2 * CLI_MAX_OPTIONS + 2];
};

static void build_getopt(struct getopt_tables *t, const struct cli_option *opts)
{
	size_t n = 0, s = 0;

	memset(t, 0, sizeof(*t));
	t->shorts[s++] = ':';
	for (; opts->id; opts++) {
		assert(n < CLI_MAX_OPTIONS);
		if (opts->id < 256) {
			t->shorts[s++] = (char)opts->id;
			if (opts->arg)
				t->shorts[s++] = ':';
		}
		if (!opts->name)
			continue;
		t->longs[n].name = opts->name;
		t->longs[n].has_arg = opts->arg ? required_argument : no_argument;
		t->longs[n].val = opts->id < 256 ? opts->id | LONG_OF_SHORT : opts->id;
		n++;
	}
}

int cli_parsed_exit(enum parsed p)
{
	return p == PARSED_HELP ? EXIT_PASS : EXIT_ERROR;
}

/* The command's -h on stdout. */
static void print_help(const struct cli_command *cmd)
{
	mg_buf help = MG_BUF_INIT;

	cli_help(&help, cmd);
	fputs(help.ptr, stdout);
	mg_buf_free(&help);
}

/* The first option the table marks required that was not given, or NULL:
 * seen[k] says whether options[k] was. */
static const struct cli_option *missing_option(const struct cli_option *options,
					       const bool *seen)
{
	const struct cli_option *o;

	for (o = options; o->id; o++)
		if ((o->flags & CLI_OPT_REQUIRED) && !seen[o - options])
			return o;
	return NULL;
}

/* Mark option id of the table seen. */
static void mark_seen(bool *seen, const struct cli_option *options, int id)
{
	const struct cli_option *o;

	for (o = options; o->id; o++)
		if (o->id == id)
			seen[o - options] = true;
}

enum parsed cli_parse(struct cli *cli, int argc, char **argv, const struct cli_command *cmd)
{
	struct getopt_tables t;
	const struct cli_option *missing;
	bool seen[CLI_MAX_OPTIONS] = { false };
	char shortopt[3], name[64];
	int c, r, idx;

	build_getopt(&t, cmd->options);
	cli->command = cmd->name;
	optind = 1;
	opterr = 0;
	for (;;) {
		idx = -1;
		optopt = 0;
		if ((c = getopt_long(argc, argv, t.shorts, t.longs, &idx)) == -1)
			break;
		if (c == '?') {
			unknown_option(cmd, bad_option(argv, shortopt));
			return PARSED_USAGE_ERROR;
		}
		if (c == ':') {
			cli_usage_error(cli->command, "option '%s' needs a value",
					needs_value(cmd->options, argv, name, sizeof(name)));
			return PARSED_USAGE_ERROR;
		}
		if ((r = apply_option(cli, c & ~LONG_OF_SHORT, optarg)) > 0) {
			print_help(cmd);
			return PARSED_HELP;
		}
		if (r < 0)
			return PARSED_USAGE_ERROR;
		mark_seen(seen, cmd->options, c & ~LONG_OF_SHORT);
	}
	if (optind < argc) {
		cli_usage_error(cli->command, "unexpected argument '%s'", argv[optind]);
		return PARSED_USAGE_ERROR;
	}
	if ((missing = missing_option(cmd->options, seen))) {
		snprintf(name, sizeof(name), "--%s %s", missing->name, missing->arg);
		cli_usage_error(cli->command, "needs %s", name);
		return PARSED_USAGE_ERROR;
	}
	return PARSED_GO;
}

/* ---- -h, from the table ---- */

/* b shortened to its first len bytes. */
static void cut(mg_buf *b, size_t len)
{
	if (b->cap) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

/* An option's names as -h lists them: "-C DIR", "--rev REV", "-h, --help". */
static void put_names(mg_buf *out, const struct cli_option *o)
{
	if (o->id < 256)
		mg_buf_printf(out, "-%c%s", o->id, o->name ? ", " : "");
	if (o->name)
		mg_buf_printf(out, "--%s", o->name);
	if (o->arg)
		mg_buf_printf(out, " %s", o->arg);
}

/* Move `item` onto `line`, or onto a new line (`line` then goes to out)
 * when it would pass CLI_HELP_WIDTH columns. */
static void put_item(mg_buf *out, mg_buf *line, mg_buf *item, size_t indent)
{
	if (!item->len)
		return;
	if (line->len + 1 + item->len > CLI_HELP_WIDTH) {
		mg_buf_printf(out, "%s\n", line->ptr);
		cut(line, 0);
		mg_buf_printf(line, "%*s", (int)indent - 1, "");
	}
	mg_buf_printf(line, " %s", item->ptr);
	cut(item, 0);
}

/* The usage lines: every option shown, wrapped at CLI_HELP_WIDTH columns
 * under the first after "usage: memgate NAME ". */
static void put_usage(mg_buf *out, const struct cli_command *cmd)
{
	mg_buf item = MG_BUF_INIT, line = MG_BUF_INIT;
	const struct cli_option *o;
	size_t indent;

	mg_buf_printf(&line, "usage: memgate %s", cmd->name);
	indent = line.len + 1;
	for (o = cmd->options; o->id; o++) {
		if (o->flags & CLI_OPT_HIDDEN || o->id == 'h')
			continue;
		if (o->flags & CLI_OPT_NESTED) {   /* inside the item before: "[--all [--changed]]" */
			assert(item.len && item.ptr[item.len - 1] == ']');
			cut(&item, item.len - 1);
			mg_buf_puts(&item, " [");
		} else {
			put_item(out, &line, &item, indent);
			mg_buf_puts(&item, o->flags & CLI_OPT_REQUIRED ? "" : "[");
		}
		put_names(&item, o);
		mg_buf_puts(&item, o->flags & CLI_OPT_REQUIRED ? "" : "]");
		if (o->flags & CLI_OPT_NESTED)
			mg_buf_putc(&item, ']');
		if (o->flags & CLI_OPT_REPEAT)
			mg_buf_puts(&item, "...");
	}
	put_item(out, &line, &item, indent);
	mg_buf_printf(out, "%s\n", line.ptr);
	mg_buf_free(&item);
	mg_buf_free(&line);
}

/* The list of options: names, then the help's lines from column 21. */
static void put_options(mg_buf *out, const struct cli_option *o)
{
	mg_buf names = MG_BUF_INIT;
	const char *p, *end;

	for (; o->id; o++) {
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		cut(&names, 0);
		put_names(&names, o);
		if (names.len > CLI_HELP_NAMES)
			mg_buf_printf(out, "  %s\n%*s", names.ptr, CLI_HELP_NAMES + 3, "");
		else
			mg_buf_printf(out, "  %-*s ", CLI_HELP_NAMES, names.ptr);
		for (p = o->help; (end = strchr(p, '\n')); p = end + 1)
			mg_buf_printf(out, "%.*s\n%*s", (int)(end - p), p, CLI_HELP_NAMES + 3, "");
		mg_buf_printf(out, "%s\n", p);
	}
	mg_buf_free(&names);
}

void cli_help(mg_buf *out, const struct cli_command *cmd)
{
	put_usage(out, cmd);
	mg_buf_printf(out, "\n%s\n", cmd->about);
	put_options(out, cmd->options);
	if (cmd->footer)
		mg_buf_printf(out, "\n%s", cmd->footer);
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
