#ifndef MEMGATE_CHECK_EVIDENCE_H
#define MEMGATE_CHECK_EVIDENCE_H
/*
 * The evidence of a run (check_evidence.c): the manifest, its signature,
 * the report, and whether evidence.inputs changed since the measurement;
 * the approval (check_approval.c).  What is wrong with them is an issue in
 * run->pre.
 */
#include "memgate/error.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "check_run.h"
#include "history_read.h"

/* Read the report named by `path` at --rev into res->report (a Git LFS
 * pointer through the local store); `from`/`pos` name where it was named. */
int mg_check__load_report(struct run *run, mg_blob *blob, const char *path,
			  const char *from, mg_pos pos, mg_error *err);

/* Read the policy's manifest and everything it pins, or its report. */
int mg_check__load_evidence(struct run *run, mg_error *err);

/*
 * The approval, once the manifest (res->manifest, its SHA-256 in
 * res->manifest_ref) is read: with --require-approved the approval beside
 * the manifest and its approver's signature (approved_result_missing,
 * approval_of_other_evidence, approval_unverified), else or without one the
 * manifest's legacy approved_result.  0, or MG_ERROR for an approval or
 * record that cannot be read (at its position).
 */
int mg_check__load_approved(struct run *run, mg_error *err);

/* What can be wrong with a signed link, each an issue of the link's. */
enum mg_link_problem {
	MG_LINK_MISSING,            /* no .sig beside it */
	MG_LINK_MALFORMED,          /* the .sig is not an SSH signature */
	MG_LINK_INVALID,            /* it does not verify over the signed bytes */
	MG_LINK_NAMESPACE,          /* made, or its key listed, for another namespace */
	MG_LINK_SIGNER_UNKNOWN,     /* a key the allowed signers do not list for the link */
	MG_LINK_OUTSIDE_VALIDITY,   /* a listed key, expired or not yet valid */
	MG_LINK_PROBLEM_COUNT
};

/*
 * A signed link of the chain of custody: the manifest a runner signs, the
 * approval a person signs.  What differs between them is written here, as
 * data; mg_check__load_link reads and judges either (check_link.c).
 */
typedef struct mg_check_link {
	mg_check_signature *s;          /* the result's record of the link */
	const char *signed_path;        /* the signed file: FILE.sig beside it */
	const char *namespace;          /* its SSHSIG namespace */
	const char *const *principals;  /* who may sign it (none: any listed key) */
	size_t principal_count;
	enum mg_issue issue[MG_LINK_PROBLEM_COUNT];
	bool required;                  /* a problem is an issue, else a warning */
	bool warn_uncommitted_signers;  /* warn of an uncommitted allowed signers file */
	/* the words: "the <noun> is signed by ...", "<key_noun> of 'ci' is expired" */
	const char *noun, *key_noun;
	const char *principals_key;     /* the policy key naming the principals */
	const char *principal_why;      /* after a signer of other principals */
	const char *namespace_why;      /* after a signature of another namespace */
	const char *unreadable;         /* before a malformed signature's fault */
	const char *optional;           /* why a problem is only a warning */
	const char *signer;             /* who signs it: "a runner's key" */
} mg_check_link;

/* The two links of the deciding policy (run->res->policy): the manifest,
 * signed by a runner in the policy's namespace (check_evidence.c), and the
 * approval beside it, signed by a person in memgate-approve
 * (check_approval.c).  memgate check judges them; memgate sign and approve
 * --sign say what check would judge. */
mg_check_link mg_check__manifest_link(struct run *run);
mg_check_link mg_check__approval_link(struct run *run);

/*
 * The allowed signers of the deciding policy's provenance section, at
 * run->trust_rev (the base's: trust never comes from the change gated),
 * else at the policy revision: read and parsed once a run, since the
 * manifest's link, the approval's and the history's versions are all
 * judged against that one file.  *out is borrowed from the run; *ref (when
 * not NULL) gets a copy of where it was read.  `warn`: warn once of an
 * uncommitted edit to it.  A missing or malformed file is an error (the
 * policy is wrong).  0 or MG_ERROR.
 */
int mg_check__allowed_signers(const mg_signers **out, struct run *run, mg_input_ref *ref,
			      bool warn, mg_error *err);

/*
 * Read and judge link l over the signed bytes `data`: the allowed signers
 * at the policy revision (run->trust_rev when set: trust never comes from
 * the change gated; a missing or malformed file is an error: the policy is
 * wrong), then FILE.sig at --rev, verified in the link's namespace and
 * matched to its principals on the check's day.  Missing, malformed,
 * invalid or another signer is a problem of the link (l->issue, or a
 * warning), recorded in l->s.  0 or MG_ERROR.
 */
int mg_check__load_link(struct run *run, const mg_check_link *l, const mg_blob *data,
			mg_error *err);

/* The allowed signers' match for sig's key: in l's namespace, for its
 * principals, on the check's day.  0, or MG_ERROR when the day cannot be
 * read. */
int mg_check__link_signer(mg_signers_match *m, struct run *run, const mg_check_link *l,
			  const mg_signers *signers, const mg_sshsig *sig, mg_error *err);

/* evidence.inputs: compare its paths between the manifest's
 * measured.commit and the gated commit. */
int mg_check__check_measured(struct run *run, mg_error *err);

/* Place and time of the evidence against the base's (evidence_out_of_place,
 * measured_commit_behind_base), and the warning for provenance without
 * evidence.inputs. */
int mg_check__check_custody(struct run *run, mg_error *err);

/*
 * What a check of a policy reads, written once, beside its readers: a
 * check reads nothing else.  check --all --changed (plan.c) calls a policy
 * unchanged only when none of these differs between --policy-rev and
 * --rev, so an input a later feature reads is added here, or --changed
 * would skip a change that decides.
 *
 * `paths`: the repository paths read (the policy, its manifest or report,
 * the report and approved result the manifest names, the signature and
 * the allowed signers with provenance).  `specs`: pathspecs whose trees
 * the check compares (evidence.inputs).  `moving`: when not NULL, the
 * decision also reads what moves without the change (the base's history),
 * so the policy is never unchanged; it says why.
 */
#define MG_CHECK_INPUT_PATHS 9
typedef struct mg_check_inputs {
	const char *paths[MG_CHECK_INPUT_PATHS];
	size_t path_count;
	char *const *specs;
	size_t spec_count;
	const char *moving;
	char *sig_path;              /* owned: paths[] may point at it */
	char *approval_path;         /* owned, as sig_path: MANIFEST.approved.json */
	char *approval_sig_path;     /* owned, as sig_path: its .sig */
} mg_check_inputs;

/*
 * The inputs of a check of the policy `p` whose manifest, read at --rev, is
 * `m` (NULL when p names its report, or the manifest does not parse: then
 * what it would name is unknown and the caller gates the policy).  Borrows
 * from p and m; free with mg_check__inputs_free.
 */
void mg_check__inputs(mg_check_inputs *out, const mg_policy *p, const mg_manifest *m);
void mg_check__inputs_free(mg_check_inputs *in);

/*
 * regression.history (memgate(1), REGRESSIONS AND HISTORY): a version of
 * the base's report counts only when, at its commit, the deciding policy's
 * manifest pins its bytes (a policy naming its report has none to pin),
 * its identity is the one the policy pins (mg_identity_matches), and, when
 * the policy requires provenance, the manifest's signature there verifies
 * under the allowed signers the check reads.  The gate borrows the run.
 * mg_check__history_gate: 0, or MG_ERROR when the allowed signers cannot
 * be read; free with mg_check__history_gate_free (accepts NULL).
 * mg_check__history_accept is its mg_history_accept_fn (history_read.h).
 */
typedef struct mg_check_history_gate mg_check_history_gate;
int mg_check__history_gate(mg_check_history_gate **out, struct run *run, mg_error *err);
void mg_check__history_gate_free(mg_check_history_gate *g);
int mg_check__history_accept(void *ctx, const mg_repo_version *v, const void *data,
			     size_t len, const mg_report *r, mg_error *err);

#endif
