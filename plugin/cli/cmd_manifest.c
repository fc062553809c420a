/*
 * memgate manifest: make (or check) the manifest that pins a committed report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git.h"
#include "options.h"

static const struct cli_option manifest_options[] = {
	{ OPT_REPORT, "report", "PATH", CLI_OPT_REQUIRED,
	  "the report, a repository path (required)", NULL },
	{ OPT_OUT, "out", "PATH", 0,
	  "write the manifest to PATH instead of stdout; a PATH with different\n"
	  "content is kept unless --force, its approved_result carried over", NULL },
	{ OPT_SEMANTIC_ID, "semantic-id", "ID", 0, "must equal the report's semantic_id", NULL },
	{ OPT_FORCE, "force", NULL, 0, "replace an --out file that differs", NULL },
	{ OPT_MEASURED_COMMIT, "measured-commit", "REV", 0,
	  "write measured.commit, the full id of the commit whose code was\n"
	  "measured (what the policy's evidence.inputs is compared with)", NULL },
	{ OPT_WORKTREE, "worktree", NULL, 0,
	  "hash the working-tree file (a report not yet committed)", NULL },
	CLI_OPTION_DIR,
	{ OPT_REV, "rev", "REV", 0, "hash the report committed at REV (default HEAD)", NULL },
	CLI_OPTION_MAX_INPUT,
	CLI_OPTION_HELP,
	{ 0 }
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

/* Does the armored signature sig (len bytes) sign text, in its own
 * namespace? */
static bool still_signs(const char *sig, size_t len, const char *text)
{
	mg_sshsig *s = NULL;
	mg_error ignored;
	bool yes;

	yes = mg_sshsig_parse(&s, "signature", sig, len, &ignored) == 0 &&
	      mg_sshsig_verify(s, text, strlen(text), mg_sshsig_namespace(s), &ignored) == 0;
	mg_sshsig_free(s);
	return yes;
}

/* The manifest's signature (MANIFEST.sig beside --out) no longer signs
 * what was written: say so.  It is flagged, not removed: manifest writes
 * only --out, and memgate sign replaces the signature. */
static void warn_stale_signature(const char *sig_path, const char *sig, size_t len,
				 const char *text)
{
	mg_buf safe = MG_BUF_INIT;

	if (!sig || still_signs(sig, len, text))
		return;
	mg_escape_text(&safe, sig_path, strlen(sig_path));
	fprintf(stderr, "memgate: warning: '%s' signs the old manifest, not this one: sign again "
		"with 'memgate sign --key KEY' on the trusted runner and commit both (until "
		"then memgate check fails signature_invalid)\n", safe.ptr);
	mg_buf_free(&safe);
}

/* memgate manifest: refuse to replace different content unless --force;
 * an existing manifest's approved_result is kept. */
static int run_manifest(struct cli *cli)
{
	mg_outputs *outs = mg_outputs_new();
	mg_manifest_options mo = { 0 };
	char *text = NULL, *existing = NULL, *sig = NULL, **warnings = NULL, **notes = NULL;
	size_t len = 0, sig_len = 0, warning_count = 0, note_count = 0;
	mg_buf sig_path = MG_BUF_INIT;
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
	mg_buf_printf(&sig_path, "%s.sig", cli->out_path);
	if (mg_outputs_read_existing(&sig, &sig_len, outs, sig_path.ptr, &err) < 0)
		mg_error_clear(&err);   /* not a file memgate reads: check says what it is */
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
	if (code == EXIT_PASS && cli->out_path)
		warn_stale_signature(sig_path.ptr, sig, sig_len, text);
	mg_buf_free(&sig_path);
	free(sig);
	free(existing);
	free(text);
	mg_outputs_free(outs);
	return code;
}

static int manifest_main(int argc, char **argv)
{
	struct cli cli = { 0 };
	enum parsed parsed;

	if ((parsed = cli_parse(&cli, argc, argv, &cmd_manifest)))
		return cli_parsed_exit(parsed);
	return run_manifest(&cli);
}

const struct cli_command cmd_manifest = {
	"manifest", manifest_main, manifest_options,
	"Print (or write to --out) a manifest pinning the SHA-256 of the report committed at\n"
	"REV (default HEAD), or with --worktree of the working-tree file (a report not yet\n"
	"committed).\n",
	NULL,
	"make a manifest for a committed report"
};
