#ifndef MEMGATE_OPTIONS_H
#define MEMGATE_OPTIONS_H
/*
 * The command-line front end's shared parts (plugin/cli/options.c): the option
 * table type, the state a command's options fill, parsing them, and the
 * messages every command prints (errors, usage errors, warnings, files
 * written).
 *
 * One table per command drives its parsing (getopt_long's table and short
 * options are built from it), its -h text and, through tests/vocabulary,
 * the man page's SYNOPSIS and option lists (tests/check-vocabulary
 * --write-man), as git's parse-options does: an option's help cannot drift
 * from its parser.  main.c and the
 * cmd_*.c files include it; the library never does.  The front end is no
 * library module: its cross-file names carry cli_ (or cmd_ for a command's
 * entry point), never mg_, so that the binary's symbols stay apart from
 * libmemgate's.
 *
 * Exit codes (memgate(1), EXIT STATUS): 0 the check passes, 1 the decision is
 * in fail_on, 2 memgate could not decide (nothing is written then).
 */
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
	const char *out_path;      /* record, manifest (approve: refused, see there) */
	const char *report_path;   /* manifest */
	const char *semantic_id;   /* manifest */
	const char *measured_commit; /* manifest */
	bool force;                /* manifest */
	const char *key;           /* sign: --key; approve: --sign */
	const char *allowed_signers; /* sign: --allowed-signers */
	const char *sig_namespace; /* sign: --namespace */
	const char *ssh_keygen;    /* sign: --ssh-keygen */
};

enum {
	OPT_REV = 256, OPT_POLICY, OPT_POLICY_REV, OPT_WORKTREE, OPT_FORMAT, OPT_JSON,
	OPT_FAIL_ON, OPT_REQUIRE_APPROVED, OPT_MAX_INPUT, OPT_OUT, OPT_REPORT,
	OPT_SEMANTIC_ID, OPT_FORCE, OPT_SUMMARY, OPT_JUNIT, OPT_BASE, OPT_SARIF,
	OPT_CODEQUALITY, OPT_ALL, OPT_TODAY, OPT_INPUTS, OPT_MEASURED_COMMIT, OPT_CHANGED,
	OPT_COMMENT, OPT_KEY, OPT_ALLOWED_SIGNERS, OPT_NAMESPACE, OPT_SSH_KEYGEN,
	OPT_RECORD_FEASIBLE_SETS, OPT_SIGN
};

/* How an option shows: required (outside brackets in the usage lines),
 * repeatable ("..." after it), nested in the previous option's brackets
 * ("[--all [--changed]]"), or hidden (parsed, never shown: check's --out,
 * which is record's, only to say so). */
enum {
	CLI_OPT_REQUIRED = 1 << 0,
	CLI_OPT_REPEAT = 1 << 1,
	CLI_OPT_NESTED = 1 << 2,
	CLI_OPT_HIDDEN = 1 << 3
};

/* One option of a command's table; a table ends with { 0 }. */
struct cli_option {
	int id;             /* what getopt_long returns: the short letter, or an OPT_* */
	const char *name;   /* the long name without "--", or NULL (a short one only) */
	const char *arg;    /* the value's name ("DIR"), or NULL for a flag */
	unsigned flags;     /* CLI_OPT_* */
	const char *help;   /* -h's text, lowercase, no full stop; "\n" starts a line */
	const char *more;   /* what the man page adds after it, or NULL */
};

/* A command: its name, entry point, option table and the prose around the
 * options in its -h. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);   /* argv[0] is the command word */
	const struct cli_option *options;
	const char *about;    /* -h's paragraph after the usage lines */
	const char *footer;   /* -h's text after the options, or NULL */
	const char *summary;  /* its line in memgate -h */
};

/* The commands, in the order memgate -h and the man page give them;
 * ends with NULL (plugin/cli/commands.c). */
extern const struct cli_command *const cli_commands[];

/* Options more than one command has, said once (check's --policy is
 * check's own: it repeats). */
#define CLI_OPTION_DIR { 'C', NULL, "DIR", 0, \
	"the repository, seen from DIR (default: the current directory)", NULL }
#define CLI_OPTION_POLICY { OPT_POLICY, "policy", "PATH", 0, \
	"the policy, relative to DIR (default: the nearest .memgate.yml in\n" \
	"DIR or above it)", NULL }
#define CLI_OPTION_TODAY { OPT_TODAY, "today", "DATE", 0, \
	"judge waivers' expiry on DATE, YYYY-MM-DD (default: today in UTC)", NULL }
#define CLI_OPTION_MAX_INPUT { OPT_MAX_INPUT, "max-input-mb", "N", 0, \
	"refuse inputs larger than N MiB (default 64)", NULL }
#define CLI_OPTION_HELP { 'h', "help", NULL, 0, "show this help", NULL }

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
/* Parse argv (argv[0] is the command word) into cli with the command's
 * table; prints its -h on -h or --help, and a usage error ("needs --out
 * PATH") when an option the table marks CLI_OPT_REQUIRED is not given. */
enum parsed cli_parse(struct cli *cli, int argc, char **argv, const struct cli_command *cmd);
/* The command's -h text, appended to out. */
void cli_help(mg_buf *out, const struct cli_command *cmd);
/* A result's warnings, "memgate: warning: ..." on stderr. */
void cli_print_warnings(const mg_check_result *res);
/* "memgate: wrote 'PATH'" and the like on stderr, the path escaped. */
void cli_say_file(const char *what, const char *path);

/* The commands (cmd_<name>.c). */
extern const struct cli_command cmd_check, cmd_record, cmd_manifest, cmd_sign, cmd_approve,
	cmd_list;

#endif
