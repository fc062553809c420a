/*
 * memgate list: the policy files of the repository (monorepos).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "options.h"

static const struct cli_option list_options[] = {
	{ OPT_REV, "rev", "REV", 0, "list the policy files committed at REV (default HEAD)", NULL },
	CLI_OPTION_DIR,
	{ OPT_FORMAT, "format", "json|text", 0,
	  "json (the default) prints a JSON array, e.g. for a GitHub matrix\n"
	  "through fromJSON; text prints one path per line", NULL },
	CLI_OPTION_HELP,
	{ 0 }
};

/* memgate list: the policy files, as JSON (a matrix) or one per line. */
static int run_list(struct cli *cli)
{
	char **paths = NULL;
	mg_jw w;
	size_t count = 0, i;
	mg_buf out = MG_BUF_INIT;
	mg_error err;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	if (mg_check_list(&paths, &count, cli->opt.dir, cli->opt.rev, &err) < 0) {
		code = cli_fail(&err);
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

static int list_main(int argc, char **argv)
{
	struct cli cli = { 0 };
	enum parsed parsed;

	if ((parsed = cli_parse(&cli, argc, argv, &cmd_list)))
		return cli_parsed_exit(parsed);
	if (cli.format == FORMAT_GITHUB)
		return cli_usage_error(cli.command, "%s", "--format: list prints json or text");
	return run_list(&cli);
}

const struct cli_command cmd_list = {
	"list", list_main, list_options,
	"Print every policy file committed at REV (default HEAD): .memgate.yml in any\n"
	"directory and *.memgate.yml, as paths from the repository root.\n",
	NULL,
	"list the policy files of the repository (monorepos)"
};
