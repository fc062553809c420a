/*
 * memgate approve: record the decision and pin it in the manifest, for a
 * release; and the commands left to run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const struct cli_option approve_options[] = {
	{ OPT_OUT, "out", "PATH", CLI_OPT_REQUIRED,
	  "the record's file, inside the working tree (required)", NULL },
	CLI_OPTION_DIR,
	CLI_OPTION_POLICY,
	{ OPT_ALL, "all", NULL, 0,
	  "approve every policy file of the repository, or none: each record\n"
	  "is --out (a file name) in its policy's manifest directory", NULL },
	{ OPT_FAIL_ON, "fail-on", "LIST", 0,
	  "the release gate's rule, e.g. reject to approve a tune\n"
	  "(default: the policy's gate.fail_on)", NULL },
	CLI_OPTION_TODAY,
	CLI_OPTION_MAX_INPUT,
	CLI_OPTION_HELP,
	{ 0 }
};

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
 * ran): sign the manifest again when the policy checks signatures (with
 * --all, naming the policy, as memgate sign finds it from there), add and
 * commit both files.  `out_path` is where the record went. */
static void print_approval(const mg_approval *a, const char *out_path, const struct cli *cli)
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
			      "trusted runner:\n  memgate sign",
			      res->signature.required ? "requires" : "checks");
		if (cli->opt.dir) {
			mg_buf_puts(&raw, " -C ");
			put_shell_word(&raw, cli->opt.dir);
		}
		if (cli->opt.policy_path) {
			mg_buf_puts(&raw, " --policy ");
			put_shell_word(&raw, cli->opt.policy_path);
		} else if (cli->all && res->policy_ref.path) {
			mg_buf path = MG_BUF_INIT;

			mg_check_cli_path(&path, res, res->policy_ref.path);
			mg_buf_puts(&raw, " --policy ");
			put_shell_word(&raw, path.ptr);
			mg_buf_free(&path);
		}
		mg_buf_puts(&raw, " --key KEY\n");
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
static int run_approve(struct cli *cli)
{
	mg_approve_options ao = { 0 };
	mg_approval *a = NULL;
	mg_error err;
	int code;

	mg_error_clear(&err);
	ao.check = cli->opt;
	ao.out_path = cli->out_path;
	if (mg_approve_run(&a, &ao, &err) < 0)
		return cli_fail(&err);
	cli_print_warnings(a->result);
	print_approval(a, cli->out_path, cli);
	code = EXIT_PASS;
	mg_approve_free(a);
	return code;
}

/* memgate approve --all: every policy's refusal then the verdict (exit 2,
 * nothing written), or each approval. */
static int run_approve_all(struct cli *cli)
{
	mg_approve_options ao = { 0 };
	mg_approval **as = NULL;
	mg_error err, *refused = NULL;
	size_t count = 0, nref = 0, i;

	mg_error_clear(&err);
	ao.check = cli->opt;
	ao.out_path = cli->out_path;
	if (mg_approve_run_all(&as, &count, &refused, &nref, &ao, &err) < 0) {
		for (i = 0; i < nref; i++)
			cli_fail(&refused[i]);
		free(refused);
		return cli_fail(&err);
	}
	for (i = 0; i < count; i++) {
		const char *policy = as[i]->result->policy_ref.path;
		mg_buf safe = MG_BUF_INIT;

		cli_print_warnings(as[i]->result);
		mg_escape_text(&safe, policy, strlen(policy));
		printf("%s%s:\n", i ? "\n" : "", safe.ptr);
		mg_buf_free(&safe);
		print_approval(as[i], as[i]->record_file, cli);
	}
	mg_approve_free_all(as, count);
	return EXIT_PASS;
}

static int approve_main(int argc, char **argv)
{
	struct cli cli = { 0 };
	enum parsed parsed;

	if ((parsed = cli_parse(&cli, argc, argv, &cmd_approve)))
		return cli_parsed_exit(parsed);
	if (cli.all && cli.policy_count)
		return cli_usage_error(cli.command, "%s", "--all approves every policy: give it without --policy");
	if (cli.policy_count > 1)
		return cli_usage_error(cli.command, "%s", "approve writes one policy's record: give one --policy, or --all");
	return cli.all ? run_approve_all(&cli) : run_approve(&cli);
}

const struct cli_command cmd_approve = {
	"approve", approve_main, approve_options,
	"Approve the evidence committed at HEAD for a release: write its decision record\n"
	"to PATH (write-once, as memgate record) and pin it as the manifest's\n"
	"approved_result (path and SHA-256), both files or neither.  Refused (exit 2,\n"
	"nothing written) unless 'memgate check --require-approved' with the same\n"
	"--fail-on passes once both are committed: the evidence must apply, and the\n"
	"decision be neither reject nor in fail_on; also when the manifest has\n"
	"uncommitted edits.  When the policy checks signatures (provenance), prints\n"
	"the memgate sign line that signs the changed manifest again.  With --all,\n"
	"every policy of the repository, each with its own record, or none.\n",
	"Exit status: 0 approved, 2 refused or could not decide.\n",
	"record the decision and pin it in the manifest (releases)"
};
