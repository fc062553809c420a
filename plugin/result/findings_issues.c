/* The findings of the evidence issues (memgate(1), HOW MEMGATE DECIDES, 1.),
 * of a decision drift and of a policy change that fails its evidence: see
 * findings_put.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/escape.h"
#include "format.h"
#include "findings_put.h"

/* "report 'x' has SHA-256 <a>; the manifest pins <b>" */
static void put_hash_mismatch(mg_buf *msg, const char *what, const char *path,
			      const char *have, const char *pinned)
{
	mg_buf_printf(msg, "%s ", what);
	mg_findings__put_quoted(msg, path);
	mg_buf_puts(msg, " has SHA-256 ");
	mg_findings__put_safe(msg, *have ? have : "unknown");
	mg_buf_puts(msg, "; the manifest pins ");
	mg_findings__put_safe(msg, pinned ? pinned : "no hash");
}

/* "the manifest pins schema_version 'a'; the report has 'b'" */
static void put_pin_mismatch(mg_buf *msg, const char *key, const char *want,
			     const mg_value *have)
{
	mg_buf_printf(msg, "the manifest pins %s ", key);
	mg_findings__put_quoted(msg, want);
	if (have->kind == MG_VALUE_ABSENT) {
		mg_buf_printf(msg, "; the report has no %s", key);
		return;
	}
	mg_buf_puts(msg, "; the report has ");
	mg_findings__put_ident(msg, have);
}

/* approved_result_missing: where the approved result should have been named. */
static void approved_missing(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	const char *file = mg_findings__manifest_file(r);
	mg_pos pos = { 1, 0 };

	if (m && r->approval_path) {
		mg_buf_puts(&f->msg, "no approval ");
		mg_findings__put_quoted(&f->msg, r->approval_path);
		mg_buf_printf(&f->msg, " in %s (--require-approved)",
			      r->worktree ? "the working tree" : "the commit");
		if (r->approved_hint)
			mg_buf_printf(&f->msg, "; %s", r->approved_hint);
		else
			mg_buf_puts(&f->msg, "; approve the evidence with 'memgate approve --sign "
				    "KEY' and commit the approval and its signature");
	} else if (m && m->has_approved) {
		mg_buf_puts(&f->msg, "approved result ");
		mg_findings__put_quoted(&f->msg, m->approved_path);
		mg_buf_printf(&f->msg, " is not in %s", r->worktree ? "the working tree" : "the commit");
		if (r->approved_hint)
			mg_buf_printf(&f->msg, "; %s", r->approved_hint);
		pos = m->approved_path_pos;
	} else if (m) {
		mg_buf_puts(&f->msg, "the manifest names no approved_result (--require-approved)");
	} else {
		mg_buf_puts(&f->msg, "the policy names the report directly, so there is no "
			    "approved result (--require-approved)");
		file = mg_findings__policy_file(r);
		pos = mg_findings_lines_policy(r) ? mg_findings_lines_policy(r)->report_pos : pos;
	}
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_APPROVED_RESULT_MISSING), file, pos, NO_CANDIDATE);
}

/* The issues found in the manifest's pins (memgate(1), HOW MEMGATE DECIDES,
 * 1.: the first five). */
/* "[-C ROOT ]--report R --out M", with paths that work where memgate ran. */
static void put_fix_command(mg_buf *msg, const mg_check_result *r)
{
	mg_buf path = MG_BUF_INIT;

	if (!r->cwd_prefix && r->root) {
		mg_buf_puts(&path, "-C ");
		mg_buf_puts(&path, r->root);
		mg_buf_puts(&path, " --report ");
		mg_buf_puts(&path,
			    mg_findings__report_file(r) ? mg_findings__report_file(r) : "PATH");
	} else {
		mg_buf_puts(&path, "--report ");
		if (mg_findings__report_file(r))
			mg_check_cli_path(&path, r, mg_findings__report_file(r));
		else
			mg_buf_puts(&path, "PATH");
	}
	mg_buf_puts(&path, " --out ");
	if (mg_findings__manifest_file(r))
		mg_check_cli_path(&path, r, mg_findings__manifest_file(r));
	else
		mg_buf_puts(&path, "MANIFEST");
	/* a new pin of the same measurement keeps the commit it measured */
	if (r->manifest && r->manifest->measured_commit)
		mg_buf_printf(&path, " --measured-commit %s", r->manifest->measured_commit);
	mg_findings__put_safe(msg, path.ptr);
	mg_buf_free(&path);
}

/* "memgate sign [-C ROOT] [--policy P] --key KEY": signs the manifest of
 * r's policy again, from where memgate ran. */
static void put_sign_command(mg_buf *msg, const mg_check_result *r)
{
	mg_buf cmd = MG_BUF_INIT;
	const char *policy = mg_findings__policy_file(r);

	mg_buf_puts(&cmd, "memgate sign");
	if (!r->cwd_prefix && r->root)
		mg_buf_printf(&cmd, " -C %s", r->root);
	if (policy && strcmp(policy, ".memgate.yml")) {
		mg_buf_puts(&cmd, " --policy ");
		if (!r->cwd_prefix && r->root)
			mg_buf_puts(&cmd, policy);
		else
			mg_check_cli_path(&cmd, r, policy);
	}
	mg_buf_puts(&cmd, " --key KEY");
	mg_findings__put_safe(msg, cmd.ptr);
	mg_buf_free(&cmd);
}

/* After a command that re-pins the manifest: ", sign it again ... and
 * commit the manifest and its signature" when the policy checks
 * signatures, else " and commit the manifest". */
static void put_commit_pin(mg_buf *msg, const mg_check_result *r)
{
	if (!r->policy || !r->policy->provenance_set) {
		mg_buf_puts(msg, " and commit the manifest");
		return;
	}
	mg_buf_puts(msg, ", sign it again on the trusted runner with '");
	put_sign_command(msg, r);
	mg_buf_puts(msg, "' and commit the manifest and its signature");
}

static void manifest_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	mg_pos pos = mg_findings__no_pos();

	if (issue == MG_ISSUE_APPROVED_RESULT_MISSING) {
		approved_missing(f);
		return;
	}
	if (!m)
		return;   /* the other pins are the manifest's */
	if (issue == MG_ISSUE_REPORT_HASH_MISMATCH) {
		put_hash_mismatch(&f->msg, "report", mg_findings__report_file(r),
				  r->report_ref.sha256,
				  m->source_sha256);
		mg_buf_puts(&f->msg, "; if this report is the one to gate, pin it with "
			    "'memgate manifest ");
		put_fix_command(&f->msg, r);
		mg_buf_puts(&f->msg, " --force'");
		put_commit_pin(&f->msg, r);
		pos = m->source_sha256_pos;
	} else if (issue == MG_ISSUE_SCHEMA_VERSION_MISMATCH && r->report) {
		put_pin_mismatch(&f->msg, "schema_version", m->schema_version,
				 &r->report->schema_version);
		pos = m->schema_version_pos;
	} else if (issue == MG_ISSUE_SEMANTIC_ID_MISMATCH && r->report) {
		put_pin_mismatch(&f->msg, "semantic_id", m->semantic_id, &r->report->semantic_id);
		pos = m->semantic_id_pos;
	} else if (issue == MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH) {
		put_hash_mismatch(&f->msg, "approved result", m->approved_path,
				  r->approved_ref.sha256, m->approved_sha256);
		pos = m->approved_sha256_pos;
	} else {
		mg_buf_puts(&f->msg, mg_issue_name(issue));
	}
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_code(issue),
			 mg_findings__manifest_file(r), pos,
			 NO_CANDIDATE);
}

/* evidence_stale: one finding per changed path, at that file (so that an
 * annotation marks it), then one for the paths not named. */
static void stale_findings(struct findings *f)
{
	const mg_check_result *r = f->r;
	const char *at = r->manifest ? r->manifest->measured_commit : NULL;
	size_t i;

	for (i = 0; i < r->stale_count; i++) {
		if (r->stale_on_base && r->stale_on_base[i])
			mg_buf_printf(&f->msg, "changed on the base branch since the measured "
				      "commit %.7s, not by this change (evidence.inputs): measure "
				      "again on the merged code", at ? at : "");
		else
			mg_buf_printf(&f->msg, "changed since the measured commit %.7s "
				      "(evidence.inputs): measure again", at ? at : "");
		f->subject = r->stale_paths[i];
		mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
				 mg_issue_code(MG_ISSUE_EVIDENCE_STALE),
				 r->stale_paths[i], mg_findings__no_pos(), NO_CANDIDATE);
	}
	if (r->stale_total <= r->stale_count)
		return;
	mg_buf_printf(&f->msg, "and %zu more paths of evidence.inputs changed since the "
		      "measured commit %.7s", r->stale_total - r->stale_count, at ? at : "");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_code(MG_ISSUE_EVIDENCE_STALE),
			 mg_findings__manifest_file(r),
			 r->manifest ? r->manifest->measured_commit_pos : mg_findings__no_pos(),
			 NO_CANDIDATE);
}

/* The issues of the measured commit (memgate(1), HOW MEMGATE DECIDES, 1.). */
static void measured_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	const mg_policy *lines = mg_findings_lines_policy(r);
	const char *file = mg_findings__manifest_file(r);
	mg_pos pos = { 1, 0 };

	if (issue == MG_ISSUE_EVIDENCE_STALE) {
		stale_findings(f);
		return;
	}
	if (issue == MG_ISSUE_MEASURED_COMMIT_UNKNOWN && m && m->measured_commit) {
		/* a squash-merged pull request's commit: the server keeps it
		 * (GitHub: refs/pull/NUMBER/head), whose number is not known here */
		mg_buf_printf(&f->msg, "the measured commit %.7s is not in this repository%s: "
			      "fetch it (git fetch origin %s%s; after a squash merge on GitHub, "
			      "its pull request's ref: git fetch origin refs/pull/NUMBER/head), "
			      "or push it if it was never pushed; measure again only if it cannot "
			      "be fetched",
			      m->measured_commit, r->measured_shallow ? " (a shallow clone)" : "",
			      m->measured_commit,
			      r->measured_shallow ? ", or a deeper clone: fetch-depth: 0" : "");
		pos = m->measured_commit_pos;
	} else if (m) {
		mg_buf_puts(&f->msg, "the policy lists evidence.inputs, but the manifest names no "
			    "measured.commit: write it with 'memgate manifest --report ");
		mg_findings__put_safe(&f->msg,
				      mg_findings__report_file(r) ? mg_findings__report_file(r) : "PATH");
		mg_buf_puts(&f->msg, " --out ");
		mg_findings__put_safe(&f->msg, file ? file : "MANIFEST");
		mg_buf_puts(&f->msg, " --measured-commit REV --force'");
		if (r->policy && r->policy->provenance_set)
			put_commit_pin(&f->msg, r);
	} else {
		mg_buf_puts(&f->msg, "the policy lists evidence.inputs but names the report "
			    "directly ('report:'): name a manifest that says which commit was "
			    "measured (measured.commit)");
		file = mg_findings__policy_file(r);
		pos = lines ? lines->inputs_pos : pos;
	}
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_code(issue), file, pos,
			 NO_CANDIDATE);
}

/* A signature issue (memgate(1), SIGNED EVIDENCE): at the signature, at the
 * allowed-signers line, or at the manifest when there is no signature. */
static void signature_issue(struct findings *f, enum mg_issue issue)
{
	const mg_check_signature *s = &f->r->signature;
	const char *file = s->at_signers ? s->signers_ref.path : s->sig_ref.path;
	mg_pos pos = s->at;

	if (!s->problem)
		return;
	if (issue == MG_ISSUE_SIGNATURE_MISSING) {
		file = mg_findings__manifest_file(f->r);
		pos = (mg_pos){ 1, 0 };
	}
	mg_findings__put_safe(&f->msg, s->problem);
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_code(issue), file, pos,
			 NO_CANDIDATE);
}

/* The identity field an issue is about, or -1. */
static int ident_of(enum mg_issue issue)
{
	switch (issue) {
	case MG_ISSUE_WORKLOAD_MISSING: case MG_ISSUE_WORKLOAD_MISMATCH: return MG_ID_WORKLOAD;
	case MG_ISSUE_HARDWARE_MISSING: case MG_ISSUE_HARDWARE_MISMATCH: return MG_ID_HARDWARE;
	case MG_ISSUE_MODEL_MISMATCH: return MG_ID_MODEL;
	case MG_ISSUE_DTYPE_MISMATCH: return MG_ID_DTYPE;
	case MG_ISSUE_AMP_DTYPE_MISMATCH: return MG_ID_AMP_DTYPE;
	case MG_ISSUE_BATCH_SIZE_MISMATCH: return MG_ID_BATCH_SIZE;
	case MG_ISSUE_SEQ_LEN_MISMATCH: return MG_ID_SEQ_LEN;
	case MG_ISSUE_OPTIMIZER_MISMATCH: return MG_ID_OPTIMIZER;
	default: return -1;
	}
}

/* Where the report carries an identity field, as memgate looks it up. */
static const char *const ident_keys[MG_ID_COUNT] = {
	"workload_id or config.workload", "hardware_id or config.device",
	"config.model_id or config.model", "config.dtype", "config.amp_dtype",
	"config.batch_size", "config.seq_len", "config.optimizer",
};

/* "the report has no dtype (config.dtype); the policy pins 'x'",
 * "the report's dtype is 'a'; the policy pins 'b'"; returns the report line. */
static mg_pos identity_message(struct findings *f, int id)
{
	const mg_value *have = &f->ev->identity[id];
	const char *key = mg_ident_name((enum mg_ident)id);

	if (have->kind == MG_VALUE_ABSENT) {
		mg_buf_printf(&f->msg, "the report has no %s (read from %s)", key, ident_keys[id]);
	} else {
		mg_buf_printf(&f->msg, "the report's %s is ", key);
		mg_findings__put_ident(&f->msg, have);
	}
	if (f->r->policy) {
		mg_buf_puts(&f->msg, "; the policy pins ");
		mg_findings__put_ident(&f->msg, &f->r->policy->rules.pin[id]);
	}
	return have->pos;
}

/* One finding per candidate whose aggregate lies outside its runs. */
static void aggregate_issues(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->ev->candidate_count; i++) {
		const mg_candidate *c = &f->ev->candidates[i];

		if (!c->aggregate_outside_runs)
			continue;
		mg_format_name(&f->msg, c->name);
		mg_buf_puts(&f->msg, ": an aggregate value lies outside the [min, max] of its runs");
		f->subject = c->name;
		mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
				 mg_issue_code(MG_ISSUE_AGGREGATE_OUTSIDE_RUNS),
				 mg_findings__report_file(f->r), c->pos,
				 i < f->d->base.count ? i : NO_CANDIDATE);
	}
}

/* The issues found in the report (memgate(1), HOW MEMGATE DECIDES, 1.: from
 * handoff_not_ready on). */
static void report_issue(struct findings *f, enum mg_issue issue)
{
	int id = ident_of(issue);
	mg_pos pos = mg_findings__no_pos();

	if (issue == MG_ISSUE_AGGREGATE_OUTSIDE_RUNS) {
		aggregate_issues(f);
		return;
	}
	if (id >= 0) {
		pos = identity_message(f, id);
	} else if (issue == MG_ISSUE_HANDOFF_NOT_READY) {
		mg_buf_puts(&f->msg, "the report's status is ");
		mg_findings__put_ident(&f->msg, &f->ev->handoff_status);
		mg_buf_puts(&f->msg, ", not 'ready_for_budget_review'");
		pos = f->ev->handoff_status.pos;
	} else if (issue == MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING) {
		mg_buf_puts(&f->msg, "the handoff report lists no eligible_candidates");
		pos = f->ev->eligible_pos;
	} else {
		mg_buf_puts(&f->msg, "the report has no candidates");
		pos = f->ev->candidates_pos;
	}
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_issue_code(issue),
			 mg_findings__report_file(f->r), pos,
			 NO_CANDIDATE);
}

/* approval_of_other_evidence, of the approval beside the manifest: the
 * manifest's SHA-256 it approved and the manifest's now. */
static void other_manifest_issue(struct findings *f)
{
	const mg_check_result *r = f->r;

	mg_buf_puts(&f->msg, "the approval ");
	mg_findings__put_quoted(&f->msg, r->approval_path);
	mg_buf_puts(&f->msg, " approved the manifest with SHA-256 ");
	mg_findings__put_safe(&f->msg, r->approved_manifest_sha256);
	mg_buf_puts(&f->msg, "; the manifest has SHA-256 ");
	mg_findings__put_safe(&f->msg, r->manifest_ref.sha256);
	mg_buf_puts(&f->msg, " now: these numbers were not approved; approve them again "
		    "(memgate approve --sign KEY) or restore the evidence that was approved");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE), r->approval_path,
			 r->approved_manifest_sha256_pos, NO_CANDIDATE);
}

/* approval_of_other_evidence: what the approved record names, what the
 * manifest pins now, and how to approve again. */
static void other_evidence_issue(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;
	const char *had = r->approved_report_sha256;

	if (!m)
		return;
	if (r->approval_path) {
		other_manifest_issue(f);
		return;
	}
	mg_buf_puts(&f->msg, "the approved record ");
	mg_findings__put_quoted(&f->msg, m->approved_path);
	if (had && strcmp(had, m->source_sha256)) {
		mg_buf_puts(&f->msg, " approved the report with SHA-256 ");
		mg_findings__put_safe(&f->msg, had);
		mg_buf_puts(&f->msg, "; the manifest pins ");
		mg_findings__put_safe(&f->msg, m->source_sha256);
	} else if (r->approved_measured_commit) {
		mg_buf_puts(&f->msg, " approved the evidence measured at ");
		mg_findings__put_safe(&f->msg, r->approved_measured_commit);
		mg_buf_puts(&f->msg, "; the manifest pins ");
		mg_findings__put_safe(&f->msg, m->measured_commit ? m->measured_commit : "none");
	} else {
		mg_buf_puts(&f->msg, " approved other evidence than the manifest pins");
	}
	mg_buf_puts(&f->msg, " now: these numbers were not approved; approve them again "
		    "(memgate approve) or restore the evidence that was approved");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE),
			 mg_findings__manifest_file(r), m->approved_path_pos, NO_CANDIDATE);
}

/* approval_unverified: why the approval's signature is not an approver's,
 * at the signature or the allowed signers' line, and what to do. */
static void approval_unverified_issue(struct findings *f)
{
	const mg_check_signature *s = &f->r->approval_sig;
	const char *file = s->at_signers ? s->signers_ref.path : s->sig_ref.path;

	if (!s->problem)
		return;
	mg_findings__put_safe(&f->msg, s->problem);
	mg_buf_puts(&f->msg, "; approve with an approver's key ('memgate approve --sign KEY') "
		    "and commit the approval and its signature");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_APPROVAL_UNVERIFIED), file, s->at, NO_CANDIDATE);
}

/* evidence_out_of_place: the report the manifest names, and the base's,
 * still there. */
static void place_issue(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;

	if (!m || !r->place_base_path)
		return;
	mg_buf_puts(&f->msg, "the manifest names the report ");
	mg_findings__put_quoted(&f->msg, m->source_path);
	mg_buf_puts(&f->msg, " where the base's named ");
	mg_findings__put_quoted(&f->msg, r->place_base_path);
	mg_buf_puts(&f->msg, ", and the change did not move that file there: evidence from "
		    "another place (another model's) is not this policy's; pin the policy's own "
		    "report, or move the file (git mv) in the same change");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_EVIDENCE_OUT_OF_PLACE),
			 mg_findings__manifest_file(r), m->source_path_pos, NO_CANDIDATE);
}

/* measured_commit_behind_base: the two measured commits, and what to do. */
static void behind_issue(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_manifest *m = r->manifest;

	if (!m || !m->measured_commit || !r->behind_base_commit)
		return;
	mg_buf_printf(&f->msg, "the measured commit %.7s ", m->measured_commit);
	if (r->behind_unknown)
		mg_buf_printf(&f->msg, "cannot be told to descend from the base's measured commit "
			      "%.7s: this repository lacks the commits between them (a shallow "
			      "clone); fetch them (git fetch --unshallow origin, or "
			      "fetch-depth: 0)", r->behind_base_commit);
	else
		mg_buf_printf(&f->msg, "does not descend from the base's measured commit %.7s: "
			      "the evidence goes back to other code, and no evidence.inputs show "
			      "that it measured the code being merged; measure again at the gated "
			      "commit, or list the measured code in evidence.inputs",
			      r->behind_base_commit);
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_issue_code(MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE),
			 mg_findings__manifest_file(r), m->measured_commit_pos, NO_CANDIDATE);
}

void mg_findings__issues(struct findings *f)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++) {
		if (!f->d->issue[i])
			continue;
		f->issue = i;
		if (i >= MG_ISSUE_MEASURED_COMMIT_MISSING && i <= MG_ISSUE_EVIDENCE_STALE)
			measured_issue(f, (enum mg_issue)i);
		else if (MG_ISSUE_IS_SIGNATURE(i))
			signature_issue(f, (enum mg_issue)i);
		else if (i == MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE)
			other_evidence_issue(f);
		else if (i == MG_ISSUE_EVIDENCE_OUT_OF_PLACE)
			place_issue(f);
		else if (i == MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE)
			behind_issue(f);
		else if (i == MG_ISSUE_APPROVAL_UNVERIFIED)
			approval_unverified_issue(f);
		else if (i <= MG_ISSUE_PRE_LAST)
			manifest_issue(f, (enum mg_issue)i);
		else if (f->ev)
			report_issue(f, (enum mg_issue)i);
		f->issue = -1;
	}
}

/* --require-approved: the approved record disagrees with this decision. */
void mg_findings__drift(struct findings *f)
{
	const mg_check_result *r = f->r;

	if (!f->d->drift)
		return;
	mg_buf_puts(&f->msg, "the approved record says ");
	mg_findings__put_safe(&f->msg, r->approved_decision);
	mg_buf_puts(&f->msg, ", selected ");
	if (r->approved_selected)
		mg_format_name(&f->msg, r->approved_selected);
	else
		mg_buf_puts(&f->msg, "none");
	mg_buf_printf(&f->msg, "; the evidence now decides %s (%s), selected ",
		      mg_verdict_name(f->d->computed_verdict), mg_outcome_name(f->d->computed_reason));
	if (f->d->computed_selected)
		mg_format_name(&f->msg, f->d->computed_selected);
	else
		mg_buf_puts(&f->msg, "none");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE, mg_code_of(MG_CODE_DECISION_DRIFT),
			 mg_findings__manifest_file(r),
			 r->manifest ? r->manifest->approved_path_pos : mg_findings__no_pos(),
			 NO_CANDIDATE);
}

/* The first evidence issue of d, or -1. */
static int first_issue(const mg_decision *d)
{
	int i;

	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			return i;
	return -1;
}

/* What the team must add for the proposed policy p to pass its evidence:
 * "sign the manifest ('bench/75.json.sig')", "pin measured.commit ...". */
static void put_proposed_fix(mg_buf *msg, const mg_check_result *p)
{
	const mg_check_signature *s = &p->signature;
	int issue = first_issue(p->decision);

	switch (issue) {
	case MG_ISSUE_SIGNATURE_MISSING:
	case MG_ISSUE_SIGNATURE_MALFORMED:
	case MG_ISSUE_SIGNATURE_INVALID:
	case MG_ISSUE_SIGNATURE_NAMESPACE_MISMATCH:
		mg_buf_puts(msg, issue == MG_ISSUE_SIGNATURE_MISSING ? "sign the manifest ("
			    : "sign the manifest again (");
		mg_findings__put_quoted(msg, s->sig_ref.path);
		mg_buf_puts(msg, ") on the trusted runner and commit the signature");
		break;
	case MG_ISSUE_SIGNER_UNKNOWN:
	case MG_ISSUE_SIGNER_OUTSIDE_VALIDITY:
		mg_buf_puts(msg, "sign the manifest with a key that ");
		mg_findings__put_quoted(msg, s->signers_ref.path);
		mg_buf_printf(msg, " at %.7s lists and that is valid on %s (a signer this change "
			      "adds is trusted once merged)", s->signers_ref.commit, p->today);
		break;
	case MG_ISSUE_MEASURED_COMMIT_MISSING:
		mg_buf_puts(msg, "pin measured.commit in the manifest (memgate manifest "
			    "--measured-commit REV)");
		if (p->policy && p->policy->provenance_set)
			mg_buf_puts(msg, " and sign it again on the trusted runner (memgate sign)");
		break;
	case MG_ISSUE_MEASURED_COMMIT_UNKNOWN:
		mg_buf_puts(msg, "pin a measured.commit the repository has (push or fetch it)");
		break;
	case MG_ISSUE_EVIDENCE_STALE:
		mg_buf_puts(msg, "re-measure at this commit and pin it as measured.commit");
		break;
	case MG_ISSUE_APPROVED_RESULT_MISSING:
	case MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH:
		mg_buf_puts(msg, "record the approved result again and pin it (memgate record)");
		break;
	default:
		mg_buf_puts(msg, "re-measure the evidence so that it meets the new policy, or "
			    "leave that part of it to a change that brings such evidence");
		break;
	}
}

/* The proposed policy's key that its failure is about: provenance for a
 * signature, evidence.inputs for a measured commit, else the first key it
 * tightens or changes; its line in the proposed policy, or none. */
static mg_pos proposed_pos(const mg_check_result *r, const mg_check_result *p)
{
	int issue = p ? first_issue(p->decision) : -1;
	const char *prefix = issue < 0 ? NULL : MG_ISSUE_IS_SIGNATURE(issue) ? "provenance" :
			     issue >= MG_ISSUE_MEASURED_COMMIT_MISSING &&
			     issue <= MG_ISSUE_EVIDENCE_STALE ? "evidence.inputs" : NULL;
	size_t i;

	for (i = 0; prefix && i < r->change_count; i++)
		if (!strncmp(r->changes[i].key, prefix, strlen(prefix)) && r->changes[i].pos.line > 0)
			return r->changes[i].pos;
	for (i = 0; i < r->change_count; i++)
		if ((r->changes[i].effect == MG_CHANGE_TIGHTENS ||
		     r->changes[i].effect == MG_CHANGE_ALTERS) && r->changes[i].pos.line > 0)
			return r->changes[i].pos;
	return mg_findings__no_pos();
}

/*
 * "the policy this change proposes fails its own evidence: at 0123abc it
 * decides reject (evidence_not_applicable: signature_missing) where the
 * policy that decides passes, and once merged it decides every later
 * change; sign the manifest ('bench/75.json.sig') ... in this change"
 */
void mg_findings__proposed(struct findings *f)
{
	const mg_check_result *r = f->r;
	const mg_check_proposed *pr = r->proposed;
	const mg_check_result *p = pr ? pr->result : NULL;
	const char *sep = ": ";
	int i;

	if (!pr || !pr->fails)
		return;
	mg_buf_printf(&f->msg, "the policy this change proposes fails its own evidence: at %.7s ",
		      r->rev);
	if (!p) {
		mg_buf_puts(&f->msg, "it cannot decide (");
		mg_findings__put_safe(&f->msg, pr->error);
		mg_buf_puts(&f->msg, ")");
	} else {
		mg_buf_printf(&f->msg, "it decides %s (%s", mg_verdict_name(p->decision->verdict),
			      mg_outcome_name(p->decision->reason));
		for (i = 0; i < MG_ISSUE_COUNT; i++)
			if (p->decision->issue[i]) {
				mg_buf_printf(&f->msg, "%s%s", sep, mg_issue_name((enum mg_issue)i));
				sep = ", ";
			}
		mg_buf_puts(&f->msg, ")");
	}
	mg_buf_puts(&f->msg, " where the policy that decides passes, and once merged it decides "
		    "every later change; ");
	if (p)
		put_proposed_fix(&f->msg, p);
	else
		mg_buf_puts(&f->msg, "fix the policy or its evidence");
	mg_buf_puts(&f->msg, " in this change");
	mg_findings__add(f, MG_FINDING_RANK_EVIDENCE,
			 mg_code_of(MG_CODE_POLICY_CHANGE_FAILS_ITS_EVIDENCE),
			 mg_findings__policy_file(r), proposed_pos(r, p), NO_CANDIDATE);
}
