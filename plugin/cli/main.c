/*
 * memgate: the command-line front end's dispatch.  The front end (this file,
 * options.c and one cmd_<name>.c per command) is the only code that prints
 * or exits.
 *
 *   memgate <command> [options]    (the commands: commands.c; each one's
 *                                   options: its table in cmd_<name>.c)
 *   memgate version
 */
#include <stdio.h>
#include <string.h>

#include "hint.h"
#include "options.h"

/* memgate -h: the commands' lines from their table (commands.c). */
static void usage_main(FILE *to)
{
	const struct cli_command *const *c;

	fputs("usage: memgate <command> [options]\n\n", to);
	for (c = cli_commands; *c; c++)
		fprintf(to, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fputs("  version    print the version\n"
	      "\n"
	      "'memgate <command> -h' describes a command.\n", to);
}

#define MAX_COMMANDS 16   /* at most in cli_commands */

/* "unknown command 'chek' (did you mean 'check'?)": exit 2. */
static int unknown_command(const char *cmd)
{
	const char *words[MAX_COMMANDS + 2], *near;
	mg_buf msg = MG_BUF_INIT;
	size_t n = 0;
	int code;

	for (n = 0; cli_commands[n] && n < MAX_COMMANDS; n++)
		words[n] = cli_commands[n]->name;
	words[n++] = "version";
	words[n] = NULL;
	mg_buf_printf(&msg, "unknown command '%s'", cmd);
	if ((near = mg_hint_nearest(words, cmd, strlen(cmd))))
		mg_buf_printf(&msg, " (did you mean '%s'?)", near);
	code = cli_usage_error(NULL, "%s", msg.ptr);
	mg_buf_free(&msg);
	return code;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct cli_command *const *c;

	if (!cmd) {
		usage_main(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage_main(stdout);
		return EXIT_PASS;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("memgate %s\n", MG_VERSION);
		return EXIT_PASS;
	}
	for (c = cli_commands; *c; c++)
		if (!strcmp(cmd, (*c)->name))
			return (*c)->run(argc - 1, argv + 1);
	return unknown_command(cmd);
}
