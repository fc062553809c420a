/*
 * memgate approve: write the approval beside the manifest, signed by a
 * person, for a release; and the commands left to run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const struct cli_option approve_options[] = {
	{ OPT_SIGN, "sign", "KEY", 0,
	  "sign the approval with a person's key, in namespace\n"
	  "memgate-approve: a private key file, or KEY.pub with its\n"
	  "private key in ssh-agent (as memgate sign's --key)", NULL },
	{ OPT_ALLOWED_SIGNERS, "allowed-signers", "FILE", 0,
	  "with --sign, verify against FILE (default: the policy's\n"
	  "provenance.allowed_signers, in the working tree)", NULL },
	{ OPT_SSH_KEYGEN, "ssh-keygen", "PROGRAM", 0,
	  "with --sign, the ssh-keygen to run (default: ssh-keygen\n"
	  "on PATH)", NULL },
	CLI_OPTION_DIR,
	CLI_OPTION_POLICY,
	{ OPT_ALL, "all", NULL, 0,
	  "approve every policy file of the repository, or none:\n"
	  "each approval beside its policy's manifest", NULL },
	{ OPT_FAIL_ON, "fail-on", "LIST", 0,
	  "the release gate's rule, e.g. reject to approve a tune\n"
	  "(default: the policy's gate.fail_on)", NULL },
	CLI_OPTION_TODAY,
	CLI_OPTION_MAX_INPUT,
	{ OPT_OUT, "out", "PATH", CLI_OPT_HIDDEN, "gone: approve says so", NULL },
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

/* "memgate approve [-C DIR] [--policy P] --sign KEY": approve a's policy
 * again, signed, from where memgate ran. */
static void put_approve_command(mg_buf *raw, const mg_approval *a, const struct cli *cli)
{
	const mg_check_result *res = a->result;

	mg_buf_puts(raw, "  memgate approve");
	if (cli->opt.dir) {
		mg_buf_puts(raw, " -C ");
		put_shell_word(raw, cli->opt.dir);
	}
	if (cli->opt.policy_path) {
		mg_buf_puts(raw, " --policy ");
		put_shell_word(raw, cli->opt.policy_path);
	} else if (cli->all && res->policy_ref.path) {
		mg_buf path = MG_BUF_INIT;

		mg_check_cli_path(&path, res, res->policy_ref.path);
		mg_buf_puts(raw, " --policy ");
		put_shell_word(raw, path.ptr);
		mg_buf_free(&path);
	}
	if (cli->opt.fail_on_set) {
		int i;

		mg_buf_puts(raw, " --fail-on ");
		for (i = 0; i < MG_VERDICT_COUNT; i++)
			if (cli->opt.fail_on[i])
				mg_buf_printf(raw, "%s%s", raw->ptr[raw->len - 1] == ' ' ? "" : ",",
					      mg_verdict_name((enum mg_verdict)i));
	}
	mg_buf_puts(raw, " --sign KEY\n");
}

/* What approve did, and the commands left to run (to paste where memgate
 * ran): sign the approval when the policy checks signatures and it is not
 * signed (a kept approval keeps its .sig), add and commit. */
static void print_approval(const mg_approval *a, const struct cli *cli)
{
	const mg_check_result *res = a->result;
	const mg_decision *d = res->decision;
	mg_buf raw = MG_BUF_INIT, safe = MG_BUF_INIT;
	const char *line, *end;

	mg_buf_printf(&raw, "approved: %s (%s)", mg_verdict_name(d->verdict),
		      mg_outcome_name(d->reason));
	if (d->selected)
		mg_buf_printf(&raw, ", selected %s", d->selected);
	mg_buf_printf(&raw, ", at %.7s\n%s '%s' (sha256 %s), for the manifest '%s' (sha256 %s)\n",
		      res->rev, a->unchanged ? "approval unchanged:" : "wrote", a->approval_file,
		      a->approval_sha256, a->manifest_file, res->manifest_ref.sha256);
	if (a->sig_written)
		mg_buf_printf(&raw, "signed it as %s, key %s, in namespace memgate-approve "
			      "(verified against '%s')\nwrote '%s'\n", a->signer, a->signer_key,
			      a->signers_file, a->sig_file);
	else if (a->sig_stale || (res->signature.checked && !a->sig_kept)) {
		if (a->sig_stale)
			mg_buf_printf(&raw, "'%s' signs an earlier approval and no longer matches; ",
				      a->sig_file);
		mg_buf_printf(&raw, "the policy %s signatures: sign the approval with an "
			      "approver's key:\n", res->signature.required ||
			      (res->policy && res->policy->approver_count) ? "requires" : "checks");
		put_approve_command(&raw, a, cli);
	}
	mg_buf_puts(&raw, "then commit it:\n  git add ");
	put_shell_word(&raw, a->approval_file);
	if (a->sig_written || a->sig_stale || a->sig_kept) {
		mg_buf_putc(&raw, ' ');
		put_shell_word(&raw, a->sig_file);
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
}

static void approve_options_of(mg_approve_options *ao, const struct cli *cli)
{
	ao->check = cli->opt;
	ao->sign_key = cli->key;
	ao->allowed_signers = cli->allowed_signers;
	ao->ssh_keygen = cli->ssh_keygen;
}

/* memgate approve: refuse (exit 2, nothing written) or write the approval. */
static int run_approve(struct cli *cli)
{
	mg_approve_options ao = { 0 };
	mg_approval *a = NULL;
	mg_error err;

	mg_error_clear(&err);
	approve_options_of(&ao, cli);
	if (mg_approve_run(&a, &ao, &err) < 0)
		return cli_fail(&err);
	cli_print_warnings(a->result);
	print_approval(a, cli);
	mg_approve_free(a);
	return EXIT_PASS;
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
	approve_options_of(&ao, cli);
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
		print_approval(as[i], cli);
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
	if (cli.out_path)
		return cli_usage_error(cli.command, "%s", "--out is gone: approve writes the "
				       "approval beside the manifest (MANIFEST.approved.json, "
				       "signed with --sign KEY) and never touches the manifest; "
				       "drop --out");
	if (cli.all && cli.policy_count)
		return cli_usage_error(cli.command, "%s", "--all approves every policy: give it without --policy");
	if (cli.policy_count > 1)
		return cli_usage_error(cli.command, "%s", "approve writes one policy's approval: give one --policy, or --all");
	if (!cli.key && (cli.allowed_signers || cli.ssh_keygen))
		return cli_usage_error(cli.command, "%s", "--allowed-signers and --ssh-keygen "
				       "serve --sign: give --sign KEY");
	return cli.all ? run_approve_all(&cli) : run_approve(&cli);
}

const struct cli_command cmd_approve = {
	"approve", approve_main, approve_options,
	"Approve the evidence committed at HEAD for a release: write the approval beside\n"
	"the manifest, MANIFEST.approved.json: its decision record (as memgate record)\n"
	"and the manifest's SHA-256, which binds the exact evidence approved.  The\n"
	"runner-signed manifest is never touched.  With --sign KEY the approval is signed\n"
	"by a person in namespace memgate-approve (MANIFEST.approved.json.sig), verified\n"
	"first as memgate check verifies it (provenance.approvers); never prompts.\n"
	"Refused (exit 2, nothing written) unless 'memgate check --require-approved'\n"
	"with the same --fail-on passes once it is committed: the evidence must apply,\n"
	"and the decision be neither reject nor in fail_on.  An approval of the same\n"
	"manifest with the same decision is kept as it is.  With --all, every policy of\n"
	"the repository, each approval beside its manifest, or none.\n",
	"Exit status: 0 approved, 2 refused or could not decide.\n",
	"approve the evidence, signed by a person (releases)"
};
