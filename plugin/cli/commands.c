/*
 * The commands of memgate, in the order memgate -h and the man page give
 * them: main.c dispatches through this list and tests/vocabulary exports
 * their option tables from it (for the man page).
 */
#include <stddef.h>

#include "options.h"

const struct cli_command *const cli_commands[] = {
	&cmd_check, &cmd_record, &cmd_manifest, &cmd_sign, &cmd_approve, &cmd_list, NULL
};
