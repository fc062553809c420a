/*
 * A signed link of the chain of custody (check_evidence.h,
 * mg_check__load_link): its signature beside it, verified against the
 * allowed signers at the policy revision.  The manifest (a runner's) and
 * the approval (a person's) are read by this one reader; what differs
 * between them is their mg_check_link.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "git.h"
#include "check_run.h"
#include "check_evidence.h"

/* A problem of the link: an issue when the link is required, else a
 * warning (at its position when known).  `at_signers`: the problem is at
 * `at` in the allowed signers, else in the signature. */
static void problem(struct run *run, const mg_check_link *l, enum mg_link_problem kind,
		    bool at_signers, mg_pos at, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void problem(struct run *run, const mg_check_link *l, enum mg_link_problem kind,
		    bool at_signers, mg_pos at, const char *fmt, ...)
{
	mg_check_signature *s = l->s;
	enum mg_issue issue = l->issue[kind];
	mg_buf b = MG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s->issue = issue;
	s->at_signers = at_signers;
	s->at = at;
	s->problem = mg_buf_detach(&b, NULL);
	if (s->required)
		run->pre[issue] = true;
	else if (at.line > 0)   /* no finding carries the position: the warning does */
		mg_check__add_warning(run->res, "%s: %s:%d:%d: %s (%s)", mg_issue_name(issue),
				      at_signers ? s->signers_ref.path : s->sig_ref.path, at.line,
				      at.column, s->problem, l->optional);
	else
		mg_check__add_warning(run->res, "%s: %s (%s)", mg_issue_name(issue), s->problem,
				      l->optional);
}

/* The principals the link names, "a, b", into who. */
static void put_principals(mg_buf *who, const mg_check_link *l)
{
	size_t i;

	for (i = 0; i < l->principal_count; i++)
		mg_buf_printf(who, "%s%s", i ? ", " : "", l->principals[i]);
}

int mg_check__link_signer(mg_signers_match *m, struct run *run, const mg_check_link *l,
			  const mg_signers *signers, const mg_sshsig *sig, mg_error *err)
{
	const char *today = run->res->today;
	const unsigned char *key;
	long long now = 0;
	size_t len;

	if (mg_signers_day_start(&now, today) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read the day '%s'", today);
	key = mg_sshsig_key(sig, &len);
	*m = mg_signers_find_for(signers, key, len, l->namespace, now, l->principals,
				 l->principal_count);
	return MG_OK;
}

/* Who signed: the allowed signers' verdict on the signature's key (a
 * problem unless allowed).  0, or MG_ERROR when the day cannot be read. */
static int judge_signer(struct run *run, const mg_check_link *l, const mg_signers *signers,
			const mg_sshsig *sig, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = l->s;
	const char *file = s->signers_ref.path;
	mg_signers_match m;
	mg_buf who = MG_BUF_INIT;

	if (mg_check__link_signer(&m, run, l, signers, sig, err) < 0)
		return MG_ERROR;
	if (m.principals)
		s->principals = mg_xstrdup(m.principals);
	switch (m.verdict) {
	case MG_SIGNERS_ALLOWED:
		s->verified = true;
		break;
	case MG_SIGNERS_PRINCIPAL:
		put_principals(&who, l);
		problem(run, l, MG_LINK_SIGNER_UNKNOWN, true, m.pos, "the %s is signed by %s, which "
			"'%s' lists for '%s' only, none of the principals %s names (%s)%s", l->noun,
			s->key, file, m.principals, l->principals_key, who.ptr, l->principal_why);
		break;
	case MG_SIGNERS_UNKNOWN_KEY:
		problem(run, l, MG_LINK_SIGNER_UNKNOWN, true, (mg_pos){ 1, 1 }, "the %s is signed by "
			"%s, which '%s' (at %s) does not list", l->noun, s->key, file,
			mg_check__short_id(run->trust_rev ? run->trust_rev : res->policy_rev).hex);
		break;
	case MG_SIGNERS_NAMESPACE:
		problem(run, l, MG_LINK_NAMESPACE, true, m.pos, "%s %s is listed for '%s' only for "
			"other namespaces than '%s'", l->key_noun, s->key, m.principals,
			l->namespace);
		break;
	default:
		problem(run, l, MG_LINK_OUTSIDE_VALIDITY, true, m.pos, "%s of '%s' is %s on %s "
			"(%s=\"%s\")", l->key_noun, m.principals,
			m.verdict == MG_SIGNERS_EXPIRED ? "expired" : "not yet valid", res->today,
			m.verdict == MG_SIGNERS_EXPIRED ? "valid-before" : "valid-after", m.when);
		break;
	}
	mg_buf_free(&who);
	return MG_OK;
}

/* The signature text against the signed bytes, then its signer. */
static int judge_signature(struct run *run, const mg_check_link *l, const mg_signers *signers,
			   const mg_blob *sigblob, const mg_blob *data, mg_error *err)
{
	mg_check_signature *s = l->s;
	mg_sshsig *sig = NULL;
	mg_buf key = MG_BUF_INIT;
	mg_error why;
	int rc, error = MG_OK;

	mg_error_clear(&why);
	if (mg_sshsig_parse(&sig, s->sig_ref.path, sigblob->data, sigblob->len, &why) < 0) {
		/* the finding is at why's position: the message does not repeat it */
		problem(run, l, MG_LINK_MALFORMED, false, (mg_pos){ why.line, why.column }, "%s%s",
			l->unreadable, why.message);
		goto done;
	}
	mg_buf_printf(&key, "%s %s", mg_sshsig_key_type(sig), mg_sshsig_fingerprint(sig));
	s->key = mg_buf_detach(&key, NULL);
	rc = mg_sshsig_verify(sig, data->data, data->len, l->namespace, &why);
	if (rc == MG_SSHSIG_ENAMESPACE)
		problem(run, l, MG_LINK_NAMESPACE, false, (mg_pos){ 1, 1 }, "the %s is %s%s",
			l->noun, why.message, l->namespace_why);
	else if (rc == MG_SSHSIG_EBADSIG)
		problem(run, l, MG_LINK_INVALID, false, (mg_pos){ 1, 1 }, "%s: the %s changed after "
			"it was signed, or the signature was made for another one", why.message,
			l->noun);
	else if (rc < 0)
		error = mg_error_set(err, s->sig_ref.path, 0, 0, "%s", why.message);
	else
		error = judge_signer(run, l, signers, sig, err);
done:
	mg_sshsig_free(sig);
	return error;
}

int mg_check__allowed_signers(const mg_signers **out, struct run *run, mg_input_ref *ref,
			      bool warn, mg_error *err)
{
	const mg_policy *p = run->res->policy;
	const char *commit = run->trust_rev ? run->trust_rev : run->res->policy_rev;
	mg_blob blob = { 0 };
	int error = MG_OK;

	*out = NULL;
	if (!run->signers) {
		error = mg_check__read_input(&blob, run, &run->signers_ref, commit,
					     p->allowed_signers, p->path, p->allowed_signers_pos,
					     warn, err);
		if (error == MG_OK) {
			run->signers_warned = warn;
			error = mg_signers_parse(&run->signers, p->allowed_signers, blob.data,
						 blob.len, err);
		}
		mg_blob_release(&blob);
	} else if (warn && !run->signers_warned && !run->res->worktree) {
		mg_check__warn_uncommitted(run, run->signers_ref.path, commit,
					   run->signers_ref.blob);
		run->signers_warned = true;
	}
	if (ref && run->signers_ref.read) {
		free(ref->path);
		*ref = run->signers_ref;
		ref->path = mg_xstrdup(run->signers_ref.path);
	}
	if (error < 0)
		return error;
	*out = run->signers;
	return MG_OK;
}

int mg_check__load_link(struct run *run, const mg_check_link *l, const mg_blob *data,
			mg_error *err)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = l->s;
	mg_blob sigblob = { 0 };
	const mg_signers *signers;
	mg_buf path = MG_BUF_INIT;
	const char *hint;
	int error;

	s->checked = true;
	s->required = l->required;
	if ((error = mg_check__allowed_signers(&signers, run, &s->signers_ref,
					       l->warn_uncommitted_signers, err)) < 0)
		goto done;
	mg_buf_printf(&path, "%s.sig", l->signed_path);
	error = mg_check__read_input(&sigblob, run, &s->sig_ref, res->rev, path.ptr,
				     l->signed_path, (mg_pos){ 0, 0 }, true, err);
	if (error == MG_ENOTFOUND) {
		mg_error_clear(err);
		free(s->sig_ref.path);
		s->sig_ref.path = mg_buf_detach(&path, NULL);
		hint = res->worktree ? NULL : mg_repo_uncommitted_hint(run->repo, s->sig_ref.path);
		problem(run, l, MG_LINK_MISSING, false, (mg_pos){ 0, 0 },
			"no signature '%s' at %s for the %s%s%s", s->sig_ref.path,
			res->worktree ? "the working tree" : mg_check__short_id(res->rev).hex,
			l->noun, hint ? "; " : "", hint ? hint : "");
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	error = judge_signature(run, l, signers, &sigblob, data, err);
done:
	mg_buf_free(&path);
	mg_blob_release(&sigblob);
	return error;
}
