#ifndef MEMGATE_SIGN_H
#define MEMGATE_SIGN_H
/*
 * memgate sign (sign.c): sign the manifest the policy names, on the GPU
 * runner, and check the signature with memgate's own verifier before
 * anything is written.
 *
 * The policy (-C, --policy, found as check finds it), the manifest it names
 * and its allowed signers are read from the working tree: the runner signs
 * what it has just written, before committing it.  The signature is made
 * by `ssh-keygen -Y sign -q -n NAMESPACE -f KEY` run with an explicit argv
 * (no shell), the manifest on its standard input and the armored signature
 * read from its standard output, so that it never asks "Overwrite (y/n)?";
 * its standard error is memgate's.  ssh-keygen is the given path, else the
 * first in an absolute PATH entry (never "." or another relative entry:
 * on a runner that is the repository's work tree).  This is the only
 * program memgate runs, and only here: the gate itself never runs one.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/error.h"

typedef struct mg_sign_options {
	const char *dir;              /* -C DIR, NULL = the current directory */
	const char *policy_path;      /* --policy, relative to dir; NULL = the nearest
					 .memgate.yml */
	bool policy_from_root;        /* policy_path is a repository path (approve --all) */
	const char *key;              /* --key: a private key file, or a .pub whose
					 private key is in ssh-agent (ssh-keygen -f) */
	const char *allowed_signers;  /* --allowed-signers: a file, relative to the
					 current directory; NULL = the policy's
					 provenance.allowed_signers in the working tree */
	const char *sig_namespace;    /* --namespace; NULL = the policy's (ignored by
					 mg_sign_approval: memgate-approve) */
	const char *ssh_keygen;       /* the program; NULL = ssh-keygen on PATH */
	size_t max_input_bytes;       /* 0 = the default */
} mg_sign_options;

/* A signature made and verified; every string is owned (mg_signed_free). */
typedef struct mg_signed {
	char *manifest;       /* the signed file's repository path (the manifest, or
				 the approval) */
	char *sig_path;       /* its signature's repository path (MANIFEST.sig) */
	char *sig_file;       /* the same file, as a path from the current directory */
	char *workdir;        /* the work tree it lies in (to guard: output.h) */
	char *signature;      /* the armored signature, NUL-terminated */
	size_t signature_len;
	char *principals;     /* the allowed-signers line's principals */
	char *key;            /* "ssh-ed25519 SHA256:..." */
	char *sig_namespace;
	char *signers;        /* the allowed-signers file it was verified against */
} mg_signed;

/*
 * Sign and verify.  Nothing is written: the caller writes out->signature to
 * out->sig_file.  MG_ERROR (exit 2) with a message that names why: no
 * policy or manifest, a malformed one, no allowed signers, a --namespace
 * other than the policy's, ssh-keygen missing or failing, or a signature
 * that memgate check would refuse (its key not listed for the namespace
 * on today's date in UTC).  On success *out is the caller's.
 */
int mg_sign_run(mg_signed **out, const mg_sign_options *o, mg_error *err);

/*
 * memgate approve --sign KEY: sign the approval's `len` bytes `data`, to be
 * written at repository path `path` (MANIFEST.approved.json), with a
 * person's key in namespace memgate-approve, and verify the signature as
 * memgate check verifies the approval: against the allowed signers (as
 * above), by a principal the policy's provenance.approvers names.  Nothing
 * is written: out->manifest is `path`, out->sig_path and out->sig_file its
 * .sig.  MG_ERROR as mg_sign_run, the refusals naming approval_unverified
 * (a runner's key cannot approve when the policy names approvers).
 */
int mg_sign_approval(mg_signed **out, const mg_sign_options *o, const char *path,
		     const char *data, size_t len, mg_error *err);
void mg_signed_free(mg_signed *s);

#endif
