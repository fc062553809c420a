/*
 * memgate sign: on the GPU runner, sign the manifest the policy names and
 * write MANIFEST.sig, replacing a stale one, once memgate's own verifier
 * accepts the signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "sign.h"

static const struct cli_option sign_options[] = {
	{ OPT_KEY, "key", "FILE", CLI_OPT_REQUIRED,
	  "the signing key: a private key file, or FILE.pub with its\n"
	  "private key in ssh-agent, as ssh-keygen -f takes it (required)", NULL },
	{ OPT_ALLOWED_SIGNERS, "allowed-signers", "FILE", 0,
	  "verify against FILE (default: the policy's\n"
	  "provenance.allowed_signers, in the working tree)", NULL },
	{ OPT_NAMESPACE, "namespace", "NS", 0,
	  "sign in namespace NS (default: the policy's\n"
	  "provenance.namespace, else memgate)", NULL },
	{ OPT_SSH_KEYGEN, "ssh-keygen", "PROGRAM", 0,
	  "the ssh-keygen to run (default: ssh-keygen, found on PATH)", NULL },
	CLI_OPTION_DIR,
	CLI_OPTION_POLICY,
	CLI_OPTION_HELP,
	{ 0 }
};

/* "memgate: signed 'M' as gpu-runner@ci, key ssh-ed25519 SHA256:..., in
 * namespace memgate (verified against 'F')" and the file written. */
static void say_signed(const mg_signed *s)
{
	mg_buf raw = MG_BUF_INIT, safe = MG_BUF_INIT;

	mg_buf_printf(&raw, "signed '%s' as %s, key %s, in namespace %s (verified against '%s')",
		      s->manifest, s->principals, s->key, s->sig_namespace, s->signers);
	mg_escape_text(&safe, raw.ptr, raw.len);
	fprintf(stderr, "memgate: %s\n", safe.ptr);
	cli_say_file("wrote", s->sig_path);
	mg_buf_free(&raw);
	mg_buf_free(&safe);
}

static int run_sign(struct cli *cli)
{
	mg_sign_options so = { 0 };
	mg_outputs *outs = NULL;
	mg_signed *s = NULL;
	mg_error err;
	int code = EXIT_ERROR;

	mg_error_clear(&err);
	so.dir = cli->opt.dir;
	so.policy_path = cli->opt.policy_path;
	so.key = cli->key;
	so.allowed_signers = cli->allowed_signers;
	so.sig_namespace = cli->sig_namespace;
	so.ssh_keygen = cli->ssh_keygen;
	if (mg_sign_run(&s, &so, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	/* a temporary file beside MANIFEST.sig, renamed over it: a stale one is
	 * replaced whole or not at all, never through a symlink */
	outs = mg_outputs_new();
	mg_outputs_guard(outs, cli->opt.dir);
	mg_outputs_guard(outs, s->workdir);
	mg_outputs_add(outs, s->sig_file, s->signature, s->signature_len, MG_OUTPUT_REPLACE);
	if (mg_outputs_commit(outs, &err) < 0) {
		code = cli_fail(&err);
		goto done;
	}
	say_signed(s);
	code = EXIT_PASS;
done:
	mg_outputs_free(outs);
	mg_signed_free(s);
	return code;
}

static int sign_main(int argc, char **argv)
{
	struct cli cli = { 0 };
	enum parsed parsed;

	if ((parsed = cli_parse(&cli, argc, argv, &cmd_sign)))
		return cli_parsed_exit(parsed);
	if (cli.policy_count > 1)
		return cli_usage_error(cli.command, "%s", "sign signs one policy's manifest: give "
				       "one --policy");
	return run_sign(&cli);
}

const struct cli_command cmd_sign = {
	"sign", sign_main, sign_options,
	"On the trusted runner, sign the manifest the policy names (read, with the policy\n"
	"and its allowed signers, from the working tree) with ssh-keygen -Y sign, and\n"
	"write MANIFEST.sig beside it, replacing an old one atomically; never prompts.\n"
	"The signature is first verified as memgate check verifies it: refused (exit 2,\n"
	"nothing written) when its key is not an allowed signer for the namespace today.\n",
	"Exit status: 0 signed, 2 refused or could not sign.\n",
	"sign the manifest on the GPU runner (signed evidence)"
};
