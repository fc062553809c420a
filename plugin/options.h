#ifndef MEMGATE_OPTIONS_H
#define MEMGATE_OPTIONS_H
/*
 * The command-line front end's shared parts (plugin/options.c): the state
 * a command's options fill, parsing them, and the messages every command
 * prints (errors, usage errors, warnings, files written).  main.c and the
 * cmd_*.c files include it; the library never does.  The front end is no
 * library module: its cross-file names carry cli_ (or cmd_ for a command's
 * entry point), never mg_, so that the binary's symbols stay apart from
 * libmemgate's.
 *
 * Exit codes (README, "Exit codes"): 0 the check passes, 1 the decision is
 * in fail_on, 2 memgate could not decide (nothing is written then).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

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

enum {
	OPT_REV = 256, OPT_POLICY, OPT_POLICY_REV, OPT_WORKTREE, OPT_FORMAT, OPT_JSON,
	OPT_FAIL_ON, OPT_REQUIRE_APPROVED, OPT_MAX_INPUT, OPT_OUT, OPT_REPORT,
	OPT_SEMANTIC_ID, OPT_FORCE, OPT_HELP, OPT_SUMMARY, OPT_JUNIT, OPT_BASE, OPT_SARIF,
	OPT_CODEQUALITY, OPT_ALL, OPT_TODAY, OPT_INPUTS, OPT_MEASURED_COMMIT, OPT_CHANGED,
	OPT_COMMENT
};

/* What cli_parse found: go on, or stop with exit 0 (--help printed) or 2
 * (a usage error printed). */
enum parsed { PARSED_GO, PARSED_HELP, PARSED_USAGE_ERROR };

/* Print an error (escaped: it may quote input text) and return exit 2. */
int cli_fail(const mg_error *err);
/* A usage error, git's way: one line that says what is wrong, then a
 * pointer to the command's help (`cmd` -h, or memgate -h when NULL).
 * Returns exit 2. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The exit code of a parse that stops. */
int cli_parsed_exit(enum parsed p);
/* Parse argv after the command word into cli, with the command's getopt
 * table; prints `usage` on -h. */
enum parsed cli_parse(struct cli *cli, int argc, char **argv, const struct option *opts,
		      const char *usage);
/* A result's warnings, "memgate: warning: ..." on stderr. */
void cli_print_warnings(const mg_check_result *res);
/* "memgate: wrote 'PATH'" and the like on stderr, the path escaped. */
void cli_say_file(const char *what, const char *path);

/* The commands (cmd_*.c): argv[0] is the command word. */
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_list(int argc, char **argv);

#endif
