/*
 * memgate sign: sign the manifest with ssh-keygen and verify the signature
 * with memgate's own reader before anything is written.  See sign.h.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/check.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"
#include "git.h"
#include "check_run.h"
#include "check_evidence.h"
#include "check_policy.h"
#include "sign.h"

/* What the child wrote to its standard output, and how it ended. */
struct child {
	mg_buf out;
	bool too_big;
	int status;
	int exec_errno;   /* execvp's errno, 0 when the program ran */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Feed msg to the child's stdin and read its stdout until both are done. */
static void pump(struct child *c, int in, int out, const char *msg, size_t len)
{
	struct pollfd fds[2];
	size_t sent = 0;
	char chunk[4096];
	ssize_t n;

	fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
	if (!len)
		close_fd(&in);
	while (in >= 0 || out >= 0) {
		fds[0] = (struct pollfd){ .fd = in, .events = POLLOUT };
		fds[1] = (struct pollfd){ .fd = out, .events = POLLIN };
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (in >= 0 && fds[0].revents) {
			n = write(in, msg + sent, len - sent);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == len)
				close_fd(&in);   /* done, or the child stopped reading */
		}
		if (out >= 0 && fds[1].revents) {
			n = read(out, chunk, sizeof(chunk));
			if (n > 0 && c->out.len + (size_t)n <= MG_SSHSIG_MAX_BYTES)
				mg_buf_put(&c->out, chunk, (size_t)n);
			else if (n > 0)
				c->too_big = true;
			else if (n == 0 || (errno != EAGAIN && errno != EINTR))
				close_fd(&out);
		}
	}
	close_fd(&in);
	close_fd(&out);
}

/*
 * Run argv (argv[0] a path) with msg on its standard input, its standard output into c->out, its standard error
 * memgate's.  0, or MG_ERROR when the pipes or fork fail.
 */
static int run_child(struct child *c, char *const argv[], const char *msg, size_t len,
		     mg_error *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, report[2] = { -1, -1 };
	struct sigaction ignore = { 0 }, old;
	ssize_t n;
	pid_t pid;
	int error = MG_OK;

	if (pipe(in) < 0 || pipe(out) < 0 || pipe(report) < 0) {
		error = mg_error_set(err, NULL, 0, 0, "cannot run '%s': %s", argv[0], strerror(errno));
		goto done;
	}
	fcntl(report[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	if ((pid = fork()) < 0) {
		error = mg_error_set(err, NULL, 0, 0, "cannot run '%s': %s", argv[0], strerror(errno));
		goto done;
	}
	if (pid == 0) {
		int e;

		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(report[0]);
		execv(argv[0], argv);
		e = errno;
		if (write(report[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&report[1]);
	ignore.sa_handler = SIG_IGN;   /* a child that exits early must not kill memgate */
	sigaction(SIGPIPE, &ignore, &old);
	pump(c, in[1], out[0], msg, len);
	in[1] = out[0] = -1;   /* pump closed them */
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
	while ((n = read(report[0], &c->exec_errno, sizeof(c->exec_errno))) < 0 && errno == EINTR)
		;
	if (n != sizeof(c->exec_errno))
		c->exec_errno = 0;
done:
	close_fd(&in[0]); close_fd(&in[1]); close_fd(&out[0]); close_fd(&out[1]);
	close_fd(&report[0]); close_fd(&report[1]);
	return error;
}

/*
 * The program to run: `prog` as given when it holds a '/', else the first
 * executable `prog` in an absolute PATH entry.  Relative entries (".", "",
 * "bin") are skipped, as the pre-push hook skips them: they name the
 * current directory, the repository's work tree on a runner, and no
 * program the repository supplies may run.  *out is the caller's; NULL
 * when there is none.
 */
static char *find_program(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	mg_buf full = MG_BUF_INIT;

	if (strchr(prog, '/'))
		return mg_xstrdup(prog);
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ":");
		if (*p != '/')
			continue;
		mg_buf_free(&full);
		mg_buf_printf(&full, "%.*s/%s", (int)(end - p), p, prog);
		if (access(full.ptr, X_OK) == 0)
			return mg_buf_detach(&full, NULL);
	}
	mg_buf_free(&full);
	return NULL;
}

/* `ssh-keygen -q -Y sign -n NS -f KEY` over the manifest: the armored
 * signature in *sig.  0 or MG_ERROR naming how ssh-keygen failed. */
static int make_signature(mg_buf *sig, const mg_sign_options *o, const char *ns,
			  const mg_blob *manifest, mg_error *err)
{
	const char *prog = o->ssh_keygen ? o->ssh_keygen : "ssh-keygen";
	char *file = find_program(prog);
	char *argv[] = { file, "-q", "-Y", "sign", "-n", (char *)ns, "-f", (char *)o->key, NULL };
	struct child c = { MG_BUF_INIT, false, 0, 0 };
	int error;

	if (!file) {
		error = mg_error_set(err, NULL, 0, 0, "cannot run '%s': not found in an absolute "
				     "PATH entry (install openssh-client, or name the program with "
				     "--ssh-keygen PROGRAM)", prog);
		goto done;
	}
	if ((error = run_child(&c, argv, manifest->data, manifest->len, err)) < 0)
		goto done;
	if (c.exec_errno) {
		error = mg_error_set(err, NULL, 0, 0, "cannot run '%s': %s", file,
				     strerror(c.exec_errno));
	} else if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		error = mg_error_set(err, NULL, 0, 0, "'%s -Y sign -n %s -f %s' failed (%s %d%s): "
				     "nothing written", prog, ns, o->key,
				     WIFEXITED(c.status) ? "exit status" : "signal",
				     WIFEXITED(c.status) ? WEXITSTATUS(c.status) :
				     WIFSIGNALED(c.status) ? WTERMSIG(c.status) : 0,
				     WIFEXITED(c.status) ? "; its message is above" : "");
	} else if (c.too_big) {
		error = mg_error_set(err, NULL, 0, 0, "'%s' wrote more than %d bytes: not a "
				     "signature", prog, MG_SSHSIG_MAX_BYTES);
	} else {
		mg_buf_put(sig, c.out.ptr ? c.out.ptr : "", c.out.len);
	}
done:
	free(file);
	mg_buf_free(&c.out);
	return error;
}

/* The allowed signers: --allowed-signers FILE, else the policy's, from the
 * working tree.  *name is the file, for messages. */
static int read_signers(mg_signers **out, char **name, struct run *run,
			const mg_sign_options *o, mg_error *err)
{
	const mg_policy *p = run->res->policy;
	mg_input_ref ref = { 0 };
	mg_blob blob = { 0 };
	mg_buf text = MG_BUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *f = NULL;
	int error;

	if (o->allowed_signers) {
		*name = mg_xstrdup(o->allowed_signers);
		if (!(f = fopen(o->allowed_signers, "rb"))) {
			error = mg_error_set(err, o->allowed_signers, 0, 0, "cannot read "
					     "--allowed-signers: %s", strerror(errno));
			goto done;
		}
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 &&
		       text.len <= MG_SIGNERS_MAX_BYTES)
			mg_buf_put(&text, chunk, n);
		if (ferror(f) || text.len > MG_SIGNERS_MAX_BYTES) {
			error = mg_error_set(err, o->allowed_signers, 0, 0, ferror(f) ? "cannot "
					     "read --allowed-signers" : "larger than %d bytes: not "
					     "an allowed-signers file", MG_SIGNERS_MAX_BYTES);
			goto done;
		}
		error = mg_signers_parse(out, o->allowed_signers, text.ptr ? text.ptr : "",
					 text.len, err);
		goto done;
	}
	if (!p->provenance_set) {
		error = mg_error_set(err, p->path, 0, 0, "the policy has no provenance section, "
				     "so memgate sign cannot check who may sign: name the "
				     "allowed-signers file with --allowed-signers FILE");
		goto done;
	}
	*name = mg_xstrdup(p->allowed_signers);
	if ((error = mg_check__read_input(&blob, run, &ref, "", p->allowed_signers, p->path,
					  p->allowed_signers_pos, false, err)) < 0)
		goto done;
	error = mg_signers_parse(out, p->allowed_signers, blob.data, blob.len, err);
done:
	if (f)
		fclose(f);
	free(ref.path);
	mg_buf_free(&text);
	mg_blob_release(&blob);
	return error;
}

/* The start of today in UTC, as memgate check judges validity windows. */
static int today_start(long long *now, char day[11], mg_error *err)
{
	time_t t = time(NULL);
	struct tm tm;

	if (t == (time_t)-1 || !gmtime_r(&t, &tm) || !strftime(day, 11, "%Y-%m-%d", &tm) ||
	    mg_signers_day_start(now, day) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read the clock for today's date");
	return MG_OK;
}

/* What is signed: a link of the chain as memgate check judges it
 * (check_evidence.h: its principals, the codes of its problems), and how
 * this file's messages name its signature ("", " of the approval"). */
struct what {
	mg_check_link link;
	const char *of;
};

/* The code memgate check would give the link's problem. */
static const char *code(const struct what *w, enum mg_link_problem problem)
{
	return mg_issue_name(w->link.issue[problem]);
}

/* Would memgate check accept sig over `data`?  Fills s's signer;
 * MG_ERROR naming the reason code check would give. */
static int verify(mg_signed *s, const mg_sshsig *sig, const mg_signers *signers,
		  const struct what *w, const mg_blob *data, const char *signers_file,
		  mg_error *err)
{
	mg_error why;
	mg_buf key = MG_BUF_INIT;
	mg_signers_match m;
	const unsigned char *blob;
	long long now = 0;
	char day[11];
	size_t len;
	int error;

	mg_error_clear(&why);
	mg_buf_printf(&key, "%s %s", mg_sshsig_key_type(sig), mg_sshsig_fingerprint(sig));
	s->key = mg_buf_detach(&key, NULL);
	if (mg_sshsig_verify(sig, data->data, data->len, s->sig_namespace, &why) != MG_OK)
		return mg_error_set(err, s->sig_path, 0, 0, "the signature ssh-keygen made does "
				    "not verify: %s; nothing written", why.message);
	if ((error = today_start(&now, day, err)) < 0)
		return error;
	blob = mg_sshsig_key(sig, &len);
	m = mg_signers_find_for(signers, blob, len, s->sig_namespace, now,
				w->link.principals, w->link.principal_count);
	switch (m.verdict) {
	case MG_SIGNERS_ALLOWED:
		s->principals = mg_xstrdup(m.principals);
		return MG_OK;
	case MG_SIGNERS_PRINCIPAL:
		return mg_error_set(err, signers_file, m.pos.line, m.pos.column, "the key %s is "
				    "listed for '%s' only, which the policy's %s does not name: "
				    "memgate check would refuse its signature%s (%s); sign with %s; "
				    "nothing written", s->key, m.principals, w->link.principals_key, w->of,
				    code(w, MG_LINK_SIGNER_UNKNOWN), w->link.signer);
	case MG_SIGNERS_UNKNOWN_KEY:
		return mg_error_set(err, signers_file, 0, 0, "the key %s is not an allowed signer: "
				    "memgate check would refuse its signature%s (%s); sign with a key "
				    "this file lists, or add its public key in a change of its own; "
				    "nothing written", s->key, w->of, code(w, MG_LINK_SIGNER_UNKNOWN));
	case MG_SIGNERS_NAMESPACE:
		return mg_error_set(err, signers_file, m.pos.line, m.pos.column, "the key %s of "
				    "'%s' is listed only for other namespaces than '%s': memgate "
				    "check would refuse its signature%s (%s); nothing written", s->key,
				    m.principals, s->sig_namespace, w->of, code(w, MG_LINK_NAMESPACE));
	default:
		return mg_error_set(err, signers_file, m.pos.line, m.pos.column, "the key %s of "
				    "'%s' is %s on %s (%s=\"%s\"): memgate check would refuse its "
				    "signature%s (%s); nothing written", s->key, m.principals,
				    m.verdict == MG_SIGNERS_EXPIRED ? "expired" : "not yet valid", day,
				    m.verdict == MG_SIGNERS_EXPIRED ? "valid-before" : "valid-after",
				    m.when, w->of, code(w, MG_LINK_OUTSIDE_VALIDITY));
	}
}

/* The namespace: --namespace, which must be the policy's when it has a
 * provenance section (or check would refuse the signature), else the
 * policy's provenance.namespace ("memgate" by default). */
static int pick_namespace(char **out, const mg_policy *p, const char *given, mg_error *err)
{
	if (given && p->provenance_set && strcmp(given, p->sig_namespace))
		return mg_error_at(err, p->path, p->sig_namespace_pos.line ? p->sig_namespace_pos
				   : p->provenance_pos, "--namespace '%s' differs from the "
				   "policy's provenance.namespace '%s': memgate check would refuse "
				   "the signature (signature_namespace_mismatch)", given,
				   p->sig_namespace);
	if (given && (!*given || strspn(given, "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNO"
					"PQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
		      != strlen(given)))
		return mg_error_set(err, NULL, 0, 0, "--namespace '%s': expected a word of "
				    "printable characters without spaces", given);
	*out = mg_xstrdup(given ? given : p->sig_namespace ? p->sig_namespace : "memgate");
	return MG_OK;
}

/* Where the signature goes: MANIFEST.sig, as a repository path and as a
 * path from the current directory (through the work tree). */
static void sig_paths(mg_signed *s, struct run *run)
{
	const char *wd = mg_repo_workdir(run->repo);
	mg_buf b = MG_BUF_INIT;

	s->workdir = mg_xstrdup(wd);
	mg_buf_printf(&b, "%s.sig", s->manifest);
	s->sig_path = mg_buf_detach(&b, NULL);
	mg_buf_printf(&b, "%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/", s->sig_path);
	s->sig_file = mg_buf_detach(&b, NULL);
}

/* Sign `data` with ssh-keygen in s->sig_namespace and verify it as memgate
 * check would (w); s->signature once accepted. */
static int sign_verified(mg_signed *s, const mg_sign_options *o, const mg_signers *signers,
			 const struct what *w, const mg_blob *data, mg_error *err)
{
	mg_sshsig *sig = NULL;
	mg_buf text = MG_BUF_INIT;
	int error;

	if ((error = make_signature(&text, o, s->sig_namespace, data, err)) < 0)
		goto done;
	if ((error = mg_sshsig_parse(&sig, s->sig_path, text.ptr ? text.ptr : "", text.len,
				     err)) < 0) {
		char msg[sizeof(err->message)];

		snprintf(msg, sizeof(msg), "%s", err->message);
		error = mg_error_set(err, s->sig_path, 0, 0, "ssh-keygen wrote no signature memgate "
				     "can read (%s); nothing written", msg);
		goto done;
	}
	if ((error = verify(s, sig, signers, w, data, s->signers, err)) < 0)
		goto done;
	s->signature = mg_buf_detach(&text, &s->signature_len);
done:
	mg_buf_free(&text);
	mg_sshsig_free(sig);
	return error;
}

/* The policy, with a manifest, in a repository with a working tree. */
static int load_signing_policy(struct run *run, const char *what, mg_error *err)
{
	const mg_policy *p;
	int error;

	if ((error = mg_check__load_policies(run, err)) < 0)
		return error;
	p = run->res->policy;
	if (!p->manifest)
		return mg_error_at(err, p->path, p->report_pos, "the policy names the report "
				   "directly ('report:'): there is no manifest to sign; name one "
				   "with 'manifest:' (memgate manifest writes it)");
	if (!mg_repo_workdir(run->repo))
		return mg_error_set(err, NULL, 0, 0, "the repository has no working tree: memgate "
				    "%s signs the %s in it", what, !strcmp(what, "sign") ? "manifest"
				    : "approval");
	return MG_OK;
}

/* Read the policy, the manifest and the signers; sign; verify. */
static int sign_in(mg_signed *s, struct run *run, const mg_sign_options *o, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p;
	struct what w;
	mg_signers *signers = NULL;
	mg_manifest *parsed = NULL;
	mg_blob manifest = { 0 };
	int error;

	if ((error = load_signing_policy(run, "sign", err)) < 0)
		goto done;
	p = res->policy;
	s->manifest = mg_xstrdup(p->manifest);
	sig_paths(s, run);
	if ((error = pick_namespace(&s->sig_namespace, p, o->sig_namespace, err)) < 0 ||
	    (error = read_signers(&signers, &s->signers, run, o, err)) < 0)
		goto done;
	if ((error = mg_check__read_input(&manifest, run, &res->manifest_ref, "", p->manifest,
					  p->path, p->manifest_pos, false, err)) < 0 ||
	    (error = mg_manifest_parse(&parsed, p->manifest, manifest.data, manifest.len, err)) < 0)
		goto done;
	w = (struct what){ mg_check__manifest_link(run), "" };
	error = sign_verified(s, o, signers, &w, &manifest, err);
done:
	mg_manifest_free(parsed);
	mg_signers_free(signers);
	mg_blob_release(&manifest);
	return error;
}

/* Read the policy and the signers; sign the approval's bytes; verify. */
static int approval_in(mg_signed *s, struct run *run, const mg_sign_options *o,
		       const char *path, const mg_blob *approval, mg_error *err)
{
	mg_signers *signers = NULL;
	struct what w;
	int error;

	if ((error = load_signing_policy(run, "approve", err)) < 0)
		goto done;
	s->manifest = mg_xstrdup(path);
	sig_paths(s, run);
	s->sig_namespace = mg_xstrdup(MG_APPROVED_NAMESPACE);
	if ((error = read_signers(&signers, &s->signers, run, o, err)) < 0)
		goto done;
	w = (struct what){ mg_check__approval_link(run), " of the approval" };
	error = sign_verified(s, o, signers, &w, approval, err);
done:
	mg_signers_free(signers);
	return error;
}

/* Open the repository and the policy's run, from the working tree, and
 * sign the manifest (approval NULL) or the approval at `path`. */
static int sign_with(mg_signed **out, const mg_sign_options *o, const char *path,
		     const mg_blob *approval, mg_error *err)
{
	mg_check_options opt = { 0 };
	mg_check_result res = { 0 };
	struct run run = { 0 };
	mg_signed *s = mg_xcalloc(1, sizeof(*s));
	int error;

	*out = NULL;
	opt.dir = o->dir;
	opt.policy_path = o->policy_path;
	opt.policy_from_root = o->policy_from_root;
	opt.worktree = true;
	run.opt = &opt;
	run.res = &res;
	res.worktree = true;
	run.max_bytes = o->max_input_bytes ? o->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	if ((error = mg_repo_open(&run.repo, o->dir, err)) < 0)
		goto done;
	if ((error = approval ? approval_in(s, &run, o, path, approval, err)
			      : sign_in(s, &run, o, err)) < 0)
		goto done;
	*out = s;
	s = NULL;
done:
	mg_check__run_release(&run);
	mg_check__release_result(&res);
	mg_repo_free(run.repo);
	mg_signed_free(s);
	return error;
}

int mg_sign_run(mg_signed **out, const mg_sign_options *o, mg_error *err)
{
	return sign_with(out, o, NULL, NULL, err);
}

int mg_sign_approval(mg_signed **out, const mg_sign_options *o, const char *path,
		     const char *data, size_t len, mg_error *err)
{
	mg_blob approval = { 0 };

	assert(out && o && path && data);
	approval.data = data;
	approval.len = len;
	return sign_with(out, o, path, &approval, err);
}

void mg_signed_free(mg_signed *s)
{
	if (!s)
		return;
	free(s->manifest);
	free(s->sig_path);
	free(s->sig_file);
	free(s->workdir);
	free(s->signature);
	free(s->principals);
	free(s->key);
	free(s->sig_namespace);
	free(s->signers);
	free(s);
}
