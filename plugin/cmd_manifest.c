/*
 * memgate manifest: make (or check) the manifest that pins a committed report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git.h"
#include "options.h"

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
static int run_manifest(struct cli *cli)
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
		code = cli_fail(&err);
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
		code = cli_fail(&err);
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
		code = cli_fail(&err);
		goto done;
	}
	mg_outputs_add(outs, cli->out_path, text, strlen(text), MG_OUTPUT_REPLACE);
	if (mg_outputs_commit(outs, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	cli_say_file("wrote", cli->out_path);
	code = EXIT_PASS;
done:
	print_lines("note", notes, note_count);
	print_lines("warning", warnings, warning_count);
	free(existing);
	free(text);
	mg_outputs_free(outs);
	return code;
}

int cmd_manifest(int argc, char **argv)
{
	struct cli cli = { 0 };
	enum parsed parsed;

	cli.command = argv[0];
	if ((parsed = cli_parse(&cli, argc, argv, manifest_options, usage_manifest)))
		return cli_parsed_exit(parsed);
	if (!cli.report_path)
		return cli_usage_error(cli.command, "%s", "needs --report PATH");
	return run_manifest(&cli);
}
