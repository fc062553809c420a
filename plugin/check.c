/*
 * memgate check: gather the inputs, verify them, decide.
 * See include/memgate/check.h.
 */
/* realpath() is an X/Open (XSI) function in POSIX.1-2008: ask for it by its
 * standard's name (every Unix has it), not by _DEFAULT_SOURCE. */
#define _XOPEN_SOURCE 700
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "digest.h"
#include "format.h"
#include "git.h"
#include "history_read.h"
#include "path.h"
#include "memgate/insight.h"
#include "memgate/approved.h"
#include "memgate/signers.h"
#include "memgate/sshsig.h"

/* The public sizes of check.h are the git layer's and the digest's. */
_Static_assert(MG_CHECK_OID_SIZE == MG_GIT_OID_HEX, "commit and blob ids");
_Static_assert(MG_CHECK_SHA256_SIZE == MG_DIGEST_HEX_SIZE, "SHA-256 in hex");
_Static_assert(MG_GIT_LFS_OID_HEX == MG_DIGEST_HEX_SIZE, "an LFS oid is a SHA-256");

#define DEFAULT_POLICY ".memgate.yml"

/* The state of one run: the repository, the commits and the result. */
struct run {
	const mg_check_options *opt;
	mg_repo *repo;
	mg_check_result *res;
	size_t max_bytes;
	bool pre[MG_ISSUE_COUNT];
	char head[MG_CHECK_OID_SIZE];  /* HEAD commit, "" when unborn or with --worktree */
	bool base_run;          /* the --base comparison: one policy, no base */
	bool repo_held;         /* repo is held's: not freed with the run */
	bool base_compared;     /* compare_base has run (early, for regression:) */
	char *policy_path;      /* the policy's repository path, once found */
};

/* Between mg_check_begin and mg_check_end: the repository of the first
 * run, kept open for the next runs on the same -C DIR (check --all). */
static struct {
	bool on;
	char *dir;
	mg_repo *repo;
} held;

static void add_warning(mg_check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_warning_v(mg_check_result *res, const char *file, const char *fmt, va_list ap)
{
	mg_buf b = MG_BUF_INIT;
	size_t n = res->warning_count;

	mg_buf_vprintf(&b, fmt, ap);
	res->warnings = mg_xrealloc(res->warnings, (n + 1) * sizeof(*res->warnings));
	res->warning_files = mg_xrealloc(res->warning_files, (n + 1) * sizeof(*res->warning_files));
	res->warnings[n] = mg_buf_detach(&b, NULL);
	res->warning_files[n] = file ? mg_xstrdup(file) : NULL;
	res->warning_count++;
}

static void add_warning(mg_check_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_warning_v(res, NULL, fmt, ap);
	va_end(ap);
}

/* A warning about the file `file` (annotated there). */
static void add_warning_at(mg_check_result *res, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_warning_at(mg_check_result *res, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_warning_v(res, file, fmt, ap);
	va_end(ap);
}

static void add_note(mg_check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(mg_check_result *res, const char *fmt, ...)
{
	mg_buf b = MG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	res->notes = mg_xrealloc(res->notes, (res->note_count + 1) * sizeof(*res->notes));
	res->notes[res->note_count++] = mg_buf_detach(&b, NULL);
}

/* The 7-digit abbreviation of a commit id, in a caller's buffer (two may
 * appear in one message). */
struct short_id {
	char hex[8];
};

static struct short_id short_id(const char *hex)
{
	struct short_id s;

	snprintf(s.hex, sizeof(s.hex), "%.7s", hex);
	return s;
}

/* Text inputs (YAML) must not hold NUL bytes; JSON is checked by its parser. */
static int check_text(const mg_blob *blob, const char *path, mg_error *err)
{
	const char *nul = memchr(blob->data, '\0', blob->len);
	int line = 1, col = 1;
	const char *p;

	if (!nul)
		return MG_OK;
	for (p = blob->data; p < nul; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return mg_error_set(err, path, line, col,
			    "contains a NUL byte: not a text file");
}

/*
 * Warn when the working-tree copy of `path` differs from HEAD's (an
 * uncommitted edit).  `oid` is the blob just read at `commit`, reused when
 * that commit is HEAD.  Failures only mean there is nothing to warn about.
 * Not in the --base comparison: its warnings are never shown.
 */
static void warn_uncommitted(struct run *run, const char *path, const char *commit,
			     const char *oid)
{
	mg_blob head = { 0 };
	bool differs = false;
	mg_error ignored;

	if (!run->head[0] || run->base_run)
		return;
	if (strcmp(run->head, commit)) {
		if (mg_repo_read(&head, run->repo, run->head, path, run->max_bytes, &ignored) < 0)
			return;
		oid = head.oid;
	}
	if (mg_repo_worktree_differs(&differs, run->repo, path, oid, run->max_bytes,
				     &ignored) == 0 && differs)
		add_warning(run->res, "'%s' has uncommitted changes in the working tree; "
			    "the decision uses the version committed at %s", path,
			    short_id(commit).hex);
	mg_blob_release(&head);
}

/*
 * `path`, named in the file `from` and missing at `commit`, may have been
 * written relative to from's folder: when that path exists, a sentence that
 * says so in hint (n bytes), else "".  Returns hint.
 */
static const char *relative_hint(char *hint, size_t n, struct run *run, const char *commit,
				 const char *path, const char *from)
{
	const char *slash = strrchr(from, '/');
	mg_buf joined = MG_BUF_INIT;
	mg_blob blob = { 0 };
	mg_error ignored;
	int rc;

	hint[0] = '\0';
	if (!slash)
		return hint;
	mg_buf_printf(&joined, "%.*s/%s", (int)(slash - from), from, path);
	if (run->res->worktree)
		rc = mg_repo_read_worktree(&blob, run->repo, joined.ptr, run->max_bytes, &ignored);
	else
		rc = mg_repo_read(&blob, run->repo, commit, joined.ptr, run->max_bytes, &ignored);
	if (rc == 0)
		snprintf(hint, n, "; paths in '%s' are relative to the repository root, "
			 "not to its folder: did you mean '%s'? (that file exists)", from, joined.ptr);
	mg_blob_release(&blob);
	mg_buf_free(&joined);
	return hint;
}

/*
 * Read one input at `commit` (or from the working tree), filling `ref`.
 * `from`/`pos` say where the path was named (the policy's manifest: key, the
 * manifest's source.path), so that a refusal points at that line.
 */
static int read_input(mg_blob *blob, struct run *run, mg_input_ref *ref,
		      const char *commit, const char *path, const char *from,
		      mg_pos pos, bool warn, mg_error *err)
{
	char msg[sizeof(err->message)], hint[sizeof(err->message)];
	int error;

	if (mg_path_check(path, err) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, from, pos, "invalid path '%s': %s", path, msg);
	}
	if (run->res->worktree)
		error = mg_repo_read_worktree(blob, run->repo, path, run->max_bytes, err);
	else
		error = mg_repo_read(blob, run->repo, commit, path, run->max_bytes, err);
	if (error < 0) {
		if (from && !err->file[0]) {
			snprintf(msg, sizeof(msg), "%s", err->message);
			mg_error_at(err, from, pos, "%s%s", msg,
				    relative_hint(hint, sizeof(hint), run, commit, path, from));
		}
		return error;
	}
	free(ref->path);
	ref->path = mg_xstrdup(path);
	ref->read = true;
	snprintf(ref->blob, sizeof(ref->blob), "%s", blob->oid);
	snprintf(ref->commit, sizeof(ref->commit), "%s", run->res->worktree ? "" : commit);
	if (!run->res->worktree && warn)
		warn_uncommitted(run, path, commit, blob->oid);
	return MG_OK;
}

/* Where a commit's input is, for messages: its short id or the working tree. */
static const char *where(struct short_id *buf, const char *commit)
{
	*buf = short_id(commit);
	return *commit ? buf->hex : "the working tree";
}

/*
 * A Git LFS pointer stands for the report: replace blob->data by the object
 * from the local LFS store, checked against the pointer's size and SHA-256
 * oid (blob->oid stays the pointer's blob id).  Sets *lfs.  An object
 * missing from the store is an error that says how to fetch it.
 */
static int resolve_lfs(mg_blob *blob, bool *lfs, struct run *run, const char *path,
		       const char *commit, mg_error *err)
{
	char oid[MG_GIT_LFS_OID_HEX], sha[MG_DIGEST_HEX_SIZE] = "";
	unsigned long long size;
	mg_blob content = { 0 };
	struct short_id at;
	int error;

	*lfs = false;
	if (!mg_blob_is_lfs_pointer(blob->data, blob->len, oid, &size))
		return MG_OK;
	*lfs = true;
	error = mg_repo_read_lfs(&content, run->repo, oid, path, run->max_bytes, err);
	if (error == MG_ENOTFOUND) {
		error = mg_error_set(err, path, 0, 0,
				     "is a Git LFS pointer at %s (oid sha256:%.12s..., %llu bytes) "
				     "and the object is not in the local LFS store; fetch it with "
				     "'git lfs pull' (actions/checkout: lfs: true)",
				     where(&at, commit), oid, size);
		goto done;
	}
	if (error < 0)
		goto done;
	if ((unsigned long long)content.len != size) {
		error = mg_error_set(err, path, 0, 0, "the local Git LFS object (oid sha256:%.12s...) "
				     "is %zu bytes, but the pointer at %s says %llu: fetch it again "
				     "with 'git lfs pull'", oid, content.len, where(&at, commit), size);
		goto done;
	}
	if (mg_digest_sha256_hex(sha, content.data, content.len) < 0 || strcmp(sha, oid)) {
		error = mg_error_set(err, path, 0, 0, "the local Git LFS object (oid sha256:%.12s...) "
				     "is corrupt: its SHA-256 is %s; fetch it again with 'git lfs pull'",
				     oid, sha);
		goto done;
	}
	memcpy(content.oid, blob->oid, sizeof(content.oid));  /* the pointer's blob */
	mg_blob_release(blob);
	*blob = content;
	memset(&content, 0, sizeof(content));
done:
	mg_blob_release(&content);
	return error;
}

/* The SHA-256 of the working-tree copy of path (an LFS pointer there
 * resolved through the store); false when there is none to compare. */
static bool worktree_sha256(char out[MG_DIGEST_HEX_SIZE], struct run *run, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool lfs, ok;

	ok = mg_repo_read_worktree(&blob, run->repo, path, run->max_bytes, &ignored) == 0 &&
	     resolve_lfs(&blob, &lfs, run, path, "", &ignored) == 0 &&
	     mg_digest_sha256_hex(out, blob.data, blob.len) == 0;
	mg_blob_release(&blob);
	return ok;
}

/* Resolve one revision option; the message names the option it came from
 * ("--policy-rev: unknown revision 'deadbeef'"). */
static int resolve_option(char out[MG_GIT_OID_HEX], mg_repo *repo, const char *option, const char *rev,
			  mg_error *err)
{
	char msg[sizeof(err->message)];
	int error;

	if ((error = mg_repo_resolve(out, repo, rev, err)) < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		mg_error_set(err, NULL, 0, 0, "%s: %s", option, msg);
	}
	return error;
}

static int resolve_revs(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if (res->worktree)
		return MG_OK;
	if (opt->rev)
		error = resolve_option(res->rev, run->repo, "--rev", opt->rev, err);
	else
		error = mg_repo_resolve(res->rev, run->repo, "HEAD", err);
	if (error < 0)
		return error;
	if (!opt->policy_rev) {
		memcpy(res->policy_rev, res->rev, sizeof(res->rev));
		return MG_OK;
	}
	return resolve_option(res->policy_rev, run->repo, "--policy-rev", opt->policy_rev, err);
}

/*
 * `path` as typed on the command line, relative to `prefix` (where memgate
 * runs in the working tree, "" or "models/a/"), as a repository path: '.'
 * and '..' segments and repeated slashes resolved.  An absolute path is
 * kept as it is (its path check refuses it).  0 or MG_ERROR.
 */
static int repository_path(char **out, const char *prefix, const char *path, mg_error *err)
{
	mg_buf joined = MG_BUF_INIT, result = MG_BUF_INIT;
	char *save = NULL, *seg;
	int error = MG_OK;

	*out = NULL;
	if (path[0] == '/') {
		*out = mg_xstrdup(path);
		return MG_OK;
	}
	mg_buf_printf(&joined, "%s%s", prefix, path);
	for (seg = strtok_r(joined.ptr, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
		char *slash;

		if (!strcmp(seg, "."))
			continue;
		if (strcmp(seg, "..")) {
			mg_buf_printf(&result, "%s%s", result.len ? "/" : "", seg);
			continue;
		}
		if (!result.len) {
			error = mg_error_set(err, NULL, 0, 0,
					     "'%s' is outside the repository (a path on the command line "
					     "is relative to the directory memgate runs in, '%s')",
					     path, *prefix ? prefix : "the repository's root");
			goto done;
		}
		slash = strrchr(result.ptr, '/');
		result.len = slash ? (size_t)(slash - result.ptr) : 0;
		result.ptr[result.len] = '\0';
	}
	*out = mg_buf_detach(&result, NULL);
done:
	mg_buf_free(&joined);
	mg_buf_free(&result);
	return error;
}

/* Is there a policy at `path` to read (at the policy commit, or in the working tree)? */
static bool policy_exists(struct run *run, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	int rc;

	if (run->res->worktree)
		rc = mg_repo_read_worktree(&blob, run->repo, path, run->max_bytes, &ignored);
	else
		rc = mg_repo_read(&blob, run->repo, run->res->policy_rev, path, run->max_bytes,
				  &ignored);
	mg_blob_release(&blob);
	return rc != MG_ENOTFOUND;
}

/*
 * Find the policy: --policy relative to where memgate runs (or as a
 * repository path for --all); else the nearest .memgate.yml in that
 * directory or one above it, the repository root's last.  Sets
 * run->policy_path.  0 or MG_ERROR.
 */
static int find_policy(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	char *prefix = NULL, *slash, *uncommitted = NULL;
	mg_buf path = MG_BUF_INIT;
	int error;

	if (opt->policy_path && opt->policy_from_root) {
		run->policy_path = mg_xstrdup(opt->policy_path);
		return MG_OK;
	}
	if ((error = mg_repo_prefix(&prefix, run->repo, opt->dir, err)) < 0)
		return error;
	if (opt->policy_path) {
		error = repository_path(&run->policy_path, prefix, opt->policy_path, err);
		goto done;
	}
	while (*prefix) {
		mg_buf_printf(&path, "%s%s", prefix, DEFAULT_POLICY);
		if (policy_exists(run, path.ptr)) {
			run->policy_path = mg_buf_detach(&path, NULL);
			goto done;
		}
		if (!uncommitted && !run->res->worktree &&
		    mg_repo_uncommitted_hint(run->repo, path.ptr))
			uncommitted = mg_buf_detach(&path, NULL);
		mg_buf_free(&path);
		prefix[strlen(prefix) - 1] = '\0';   /* "models/a/" -> "models/" */
		slash = strrchr(prefix, '/');
		if (slash)
			slash[1] = '\0';
		else
			prefix[0] = '\0';
	}
	/* none committed on the way up: the nearest one the user wrote but
	 * did not commit is the one to name (policy_missing says so) */
	if (uncommitted && !policy_exists(run, DEFAULT_POLICY)) {
		run->policy_path = uncommitted;
		uncommitted = NULL;
	} else {
		run->policy_path = mg_xstrdup(DEFAULT_POLICY);
	}
done:
	mg_buf_free(&path);
	free(prefix);
	free(uncommitted);
	return error;
}

static int load_policy_from(mg_policy **out, struct run *run, const char *commit,
			    const char *path, mg_input_ref *ref, mg_error *err)
{
	mg_blob blob = { 0 };
	int error;

	if ((error = read_input(&blob, run, ref, commit, path, NULL, (mg_pos){ 0, 0 }, true, err)) < 0)
		goto done;
	if ((error = check_text(&blob, path, err)) < 0)
		goto done;
	error = mg_policy_parse(out, path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

static int load_policy_at(mg_policy **out, struct run *run, const char *commit,
			  mg_input_ref *ref, mg_error *err)
{
	return load_policy_from(out, run, commit, run->policy_path, ref, err);
}

/* ---- policy changes ---- */

const char *mg_check_effect_name(enum mg_change_effect e)
{
	switch (e) {
	case MG_CHANGE_TIGHTENS: return "tightens";
	case MG_CHANGE_LOOSENS: return "loosens";
	case MG_CHANGE_EXPIRED: return "expired";
	default: return "changes";
	}
}

static mg_change_value number_value(bool set, double v)
{
	mg_change_value x = { 0 };

	x.kind = set ? MG_CHANGE_NUMBER : MG_CHANGE_UNSET;
	x.number = v;
	return x;
}

static mg_change_value string_value_of(const char *s)
{
	mg_change_value x = { 0 };

	x.kind = s ? MG_CHANGE_STRING : MG_CHANGE_UNSET;
	x.string = s;
	return x;
}

static mg_change_value pin_value(const mg_value *pin)
{
	if (pin->kind == MG_VALUE_NUMBER)
		return number_value(true, pin->number);
	if (pin->kind == MG_VALUE_STRING)
		return string_value_of(pin->string);
	return number_value(false, 0);
}

static bool same_budget(const mg_budget *a, const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (a->set[t] != b->set[t] || (a->set[t] && a->value[t] != b->value[t]))
			return false;
	return true;
}

static bool same_axis(const mg_grid_axis *a, const mg_grid_axis *b)
{
	size_t i;

	if (a->threshold != b->threshold || a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++)
		if (a->values[i] != b->values[i])
			return false;
	return true;
}

static bool same_value(const mg_change_value *a, const mg_change_value *b)
{
	size_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case MG_CHANGE_UNSET:
		return true;
	case MG_CHANGE_NUMBER:
		return a->number == b->number;
	case MG_CHANGE_STRING:
		return !strcmp(a->string, b->string);
	case MG_CHANGE_VERDICTS:
		return !memcmp(a->verdicts, b->verdicts, MG_VERDICT_COUNT * sizeof(bool));
	case MG_CHANGE_STRICTER:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (!same_budget(&a->stricter[i], &b->stricter[i]))
				return false;
		return a->count == b->count;
	case MG_CHANGE_STRINGS:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (strcmp(a->strings[i], b->strings[i]))
				return false;
		return a->count == b->count;
	default:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (!same_axis(&a->grid[i], &b->grid[i]))
				return false;
		return a->count == b->count;
	}
}

/* Record a change of key when before and after differ. */
static void add_change(mg_check_result *res, const char *key, mg_change_value before,
		       mg_change_value after, enum mg_change_effect effect, mg_pos pos)
{
	mg_policy_change *c;

	if (same_value(&before, &after))
		return;
	res->changes = mg_xrealloc(res->changes, (res->change_count + 1) * sizeof(*c));
	c = &res->changes[res->change_count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->before = before;
	c->after = after;
	c->effect = effect;
	c->pos = pos;
}

/* No value, or an empty list of scenarios. */
static bool is_empty(const mg_change_value *v)
{
	return v->kind == MG_CHANGE_UNSET ||
	       ((v->kind == MG_CHANGE_STRICTER || v->kind == MG_CHANGE_GRID ||
		 v->kind == MG_CHANGE_STRINGS) && !v->count);
}

/* Adding a check, pin or scenarios tightens, removing them loosens;
 * otherwise `other`. */
static enum mg_change_effect presence_effect(const mg_change_value *before,
					     const mg_change_value *after,
					     enum mg_change_effect other)
{
	if (is_empty(before) && !is_empty(after))
		return MG_CHANGE_TIGHTENS;
	if (!is_empty(before) && is_empty(after))
		return MG_CHANGE_LOOSENS;
	return other;
}

/* Does threshold t at `now` admit more than at `was`? */
static bool looser(enum mg_threshold t, double was, double now)
{
	return mg_threshold_def_of(t)->ceiling ? now > was : now < was;
}

/* A threshold moving from `was` to `now`: a higher ceiling or a lower floor loosens. */
static enum mg_change_effect threshold_effect(enum mg_threshold t, const mg_change_value *was,
					      const mg_change_value *now)
{
	if (was->kind == MG_CHANGE_UNSET || now->kind == MG_CHANGE_UNSET)
		return presence_effect(was, now, MG_CHANGE_ALTERS);
	return looser(t, was->number, now->number) ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
}

static void diff_identity(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	char key[48];
	int id;

	if (!base->manifest != !head->manifest || (base->manifest && strcmp(base->manifest, head->manifest)))
		add_change(res, "manifest", string_value_of(base->manifest),
			   string_value_of(head->manifest), MG_CHANGE_ALTERS, head->manifest_pos);
	if (!base->report != !head->report || (base->report && strcmp(base->report, head->report)))
		add_change(res, "report", string_value_of(base->report),
			   string_value_of(head->report), MG_CHANGE_ALTERS, head->report_pos);
	for (id = 0; id < MG_ID_COUNT; id++) {
		mg_change_value was = pin_value(&base->rules.pin[id]);
		mg_change_value now = pin_value(&head->rules.pin[id]);

		snprintf(key, sizeof(key), "identity.%s", mg_ident_name((enum mg_ident)id));
		add_change(res, key, was, now, presence_effect(&was, &now, MG_CHANGE_ALTERS),
			   head->rules.pin[id].pos);
	}
}

static void diff_thresholds(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	char key[48];
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		mg_change_value was = number_value(base->rules.budget.set[t], base->rules.budget.value[t]);
		mg_change_value now = number_value(head->rules.budget.set[t], head->rules.budget.value[t]);

		snprintf(key, sizeof(key), "%s.%s", mg_threshold_def_of((enum mg_threshold)t)->section,
			 mg_threshold_name((enum mg_threshold)t));
		add_change(res, key, was, now, threshold_effect((enum mg_threshold)t, &was, &now),
			   head->threshold_pos[t]);
	}
}

static const char *rank_by_name(enum mg_rank_by r)
{
	return r == MG_RANK_THROUGHPUT ? "throughput" : "peak_memory";
}

static mg_change_value stricter_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_STRICTER;
	x.stricter = p->rules.stricter;
	x.count = p->rules.stricter_count;
	return x;
}

static mg_change_value grid_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_GRID;
	x.grid = p->rules.grid;
	x.count = p->rules.grid_count;
	return x;
}

static mg_change_value verdicts_value(const bool *fail_on)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_VERDICTS;
	x.verdicts = fail_on;
	return x;
}

static mg_pos first_pos(const mg_pos *list, size_t count)
{
	return list && count ? list[0] : (mg_pos){ 0, 0 };
}

/* Dropping a decision from fail_on loosens the gate, adding one tightens it. */
static enum mg_change_effect fail_on_effect(const bool *was, const bool *now)
{
	int v;

	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (was[v] && !now[v])
			return MG_CHANGE_LOOSENS;
	return MG_CHANGE_TIGHTENS;
}

/* evidence.inputs: its pathspecs, or unset. */
static mg_change_value inputs_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = p->input_count ? MG_CHANGE_STRINGS : MG_CHANGE_UNSET;
	x.strings = p->inputs;
	x.count = p->input_count;
	return x;
}

static void diff_rest(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	mg_change_value was, now;

	add_change(res, "evidence.baseline", string_value_of(base->rules.baseline),
		   string_value_of(head->rules.baseline), MG_CHANGE_ALTERS, head->baseline_pos);
	add_change(res, "evidence.noise",
		   string_value_of(mg_noise_mode_name(base->rules.noise)),
		   string_value_of(mg_noise_mode_name(head->rules.noise)),
		   head->rules.noise < base->rules.noise ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS,
		   head->noise_pos);
	add_change(res, "evidence.min_repeats", number_value(true, base->rules.min_repeats),
		   number_value(true, head->rules.min_repeats),
		   head->rules.min_repeats < base->rules.min_repeats ? MG_CHANGE_LOOSENS
								       : MG_CHANGE_TIGHTENS,
		   head->min_repeats_pos);
	was = inputs_value(base);
	now = inputs_value(head);
	add_change(res, "evidence.inputs", was, now, presence_effect(&was, &now, MG_CHANGE_ALTERS),
		   head->inputs_pos);
	add_change(res, "rank_by", string_value_of(rank_by_name(base->rules.rank_by)),
		   string_value_of(rank_by_name(head->rules.rank_by)), MG_CHANGE_ALTERS,
		   head->rank_by_pos);
	was = stricter_value(base);
	now = stricter_value(head);
	add_change(res, "sensitivity.stricter", was, now,
		   presence_effect(&was, &now, MG_CHANGE_ALTERS),
		   first_pos(head->stricter_pos, head->rules.stricter_count));
	was = grid_value(base);
	now = grid_value(head);
	add_change(res, "sensitivity.grid", was, now, presence_effect(&was, &now, MG_CHANGE_ALTERS),
		   first_pos(head->grid_pos, head->rules.grid_count));
	add_change(res, "gate.fail_on", verdicts_value(base->fail_on), verdicts_value(head->fail_on),
		   fail_on_effect(base->fail_on, head->fail_on), head->fail_on_pos);
	add_change(res, "waivers_warn_days", number_value(true, base->waivers_warn_days),
		   number_value(true, head->waivers_warn_days), MG_CHANGE_ALTERS,
		   head->waivers_warn_days_pos);
}

/* A waiver's side of a change: its expiry date (borrowed from the policy
 * the result holds), or unset. */
static mg_change_value waiver_value(const mg_policy_waiver *w)
{
	return string_value_of(w ? w->expires : NULL);
}

/* The waiver of p for the same candidate and reason as w, or NULL. */
static const mg_policy_waiver *same_waiver(const mg_policy *p, const mg_policy_waiver *w)
{
	size_t i;

	for (i = 0; i < p->waiver_count; i++)
		if (p->waivers[i].reason == w->reason && !strcmp(p->waivers[i].candidate, w->candidate))
			return &p->waivers[i];
	return NULL;
}

/* Added or extended loosens the gate; removed or shortened tightens it;
 * added or extended to a date already past (res->today) waives nothing. */
static void waiver_change(mg_check_result *res, const mg_policy_waiver *key,
			  const mg_policy_waiver *before, const mg_policy_waiver *after)
{
	char k[sizeof(((mg_policy_change *)0)->key)];
	bool loosens = !before || (after && after->expires_ymd > before->expires_ymd);
	enum mg_change_effect effect = loosens ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
	int today = 0;

	mg_policy_parse_date(&today, res->today, strlen(res->today));
	if (loosens && after->expires_ymd < today)
		effect = MG_CHANGE_EXPIRED;
	snprintf(k, sizeof(k), "waivers[%s].%s", key->candidate, mg_reason_name(key->reason));
	add_change(res, k, waiver_value(before), waiver_value(after), effect,
		   after ? after->pos : (mg_pos){ 0, 0 });
}

/* Waivers added, removed, extended or shortened by the policy at --rev. */
static void diff_waivers(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	const mg_policy_waiver *other;
	size_t i;

	for (i = 0; i < head->waiver_count; i++) {
		other = same_waiver(base, &head->waivers[i]);
		if (!other || other->expires_ymd != head->waivers[i].expires_ymd)
			waiver_change(res, &head->waivers[i], other, &head->waivers[i]);
	}
	for (i = 0; i < base->waiver_count; i++)
		if (!same_waiver(head, &base->waivers[i]))
			waiver_change(res, &base->waivers[i], &base->waivers[i], NULL);
}

/*
 * provenance: adding it tightens the gate, dropping it or its requirement
 * loosens it; another allowed-signers path or namespace, or another
 * content of the allowed-signers file (a signer added or removed), changes
 * who may sign.  All of them are decided by the base's policy and file.
 */
static void diff_provenance(struct run *run, const mg_policy *base, const mg_policy *head)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = &res->signature;
	const char *path = head->allowed_signers;
	mg_blob was = { 0 }, now = { 0 };
	mg_error ignored;
	bool before, after;

	mg_change_value b = string_value_of(base->allowed_signers);
	mg_change_value h = string_value_of(head->allowed_signers);

	add_change(res, "provenance.allowed_signers", b, h, presence_effect(&b, &h, MG_CHANGE_ALTERS),
		   head->allowed_signers_pos);
	if (!base->provenance_set || !head->provenance_set)
		return;
	add_change(res, "provenance.namespace", string_value_of(base->sig_namespace),
		   string_value_of(head->sig_namespace), MG_CHANGE_ALTERS, head->sig_namespace_pos);
	before = base->sig_required;
	after = head->sig_required;
	add_change(res, "provenance.require", string_value_of(before ? "true" : "false"),
		   string_value_of(after ? "true" : "false"),
		   after ? MG_CHANGE_TIGHTENS : MG_CHANGE_LOOSENS, head->sig_required_pos);
	if (mg_repo_read(&now, run->repo, res->rev, path, run->max_bytes, &ignored) < 0)
		now.oid[0] = '\0';
	if (mg_repo_read(&was, run->repo, res->policy_rev, base->allowed_signers, run->max_bytes,
			 &ignored) < 0)
		was.oid[0] = '\0';
	snprintf(s->head_signers_blob, sizeof(s->head_signers_blob), "%s", now.oid);
	snprintf(s->base_signers_blob, sizeof(s->base_signers_blob), "%s", was.oid);
	if (strcmp(now.oid, was.oid))
		add_change(res, "provenance.allowed_signers (file)",
			   string_value_of(was.oid[0] ? s->base_signers_blob : NULL),
			   string_value_of(now.oid[0] ? s->head_signers_blob : NULL),
			   MG_CHANGE_ALTERS, (mg_pos){ 0, 0 });
	mg_blob_release(&was);
	mg_blob_release(&now);
}

/*
 * Compare the policy that decides (at --policy-rev) with the one the
 * change proposes (at --rev): every key whose effective value differs, in
 * the order of the policy reference, and which way it moves the gate.
 */
static void diff_policies(struct run *run, const mg_policy *base, const mg_policy *head)
{
	mg_check_result *res = run->res;

	diff_identity(res, base, head);
	diff_thresholds(res, base, head);
	diff_rest(res, base, head);
	diff_waivers(res, base, head);
	diff_provenance(run, base, head);
}

/* "[{memory_cap_mb: 8500}, {min_throughput_ratio: 0.9}]" */
static void put_stricter(mg_buf *out, const mg_budget *list, size_t count)
{
	const char *sep;
	size_t i;
	int t;

	mg_buf_putc(out, '[');
	for (i = 0; i < count; i++) {
		mg_buf_puts(out, i ? ", {" : "{");
		for (sep = "", t = 0; t < MG_THRESHOLD_COUNT; t++) {
			if (!list[i].set[t])
				continue;
			mg_buf_printf(out, "%s%s: ", sep, mg_threshold_name((enum mg_threshold)t));
			mg_format_threshold(out, list[i].value[t]);
			sep = ", ";
		}
		mg_buf_putc(out, '}');
	}
	mg_buf_putc(out, ']');
}

/* "{memory_cap_mb: [9600, 11200], min_samples_per_s: [1, 1.5]}" */
static void put_grid(mg_buf *out, const mg_grid_axis *axes, size_t count)
{
	size_t i, k;

	mg_buf_putc(out, '{');
	for (i = 0; i < count; i++) {
		mg_buf_printf(out, "%s%s: [", i ? ", " : "", mg_threshold_name(axes[i].threshold));
		for (k = 0; k < axes[i].count; k++) {
			if (k)
				mg_buf_puts(out, ", ");
			mg_format_threshold(out, axes[i].values[k]);
		}
		mg_buf_putc(out, ']');
	}
	mg_buf_putc(out, '}');
}

void mg_check_change_text(mg_buf *out, const mg_change_value *v)
{
	const char *sep = "";
	size_t i;
	int x;

	switch (v->kind) {
	case MG_CHANGE_UNSET:
		mg_buf_puts(out, "unset");
		break;
	case MG_CHANGE_NUMBER:
		mg_format_threshold(out, v->number);
		break;
	case MG_CHANGE_STRING:
		mg_buf_printf(out, "'%s'", v->string);
		break;
	case MG_CHANGE_VERDICTS:
		mg_buf_putc(out, '[');
		for (x = 0; x < MG_VERDICT_COUNT; x++) {
			if (!v->verdicts[x])
				continue;
			mg_buf_printf(out, "%s%s", sep, mg_verdict_name((enum mg_verdict)x));
			sep = ", ";
		}
		mg_buf_putc(out, ']');
		break;
	case MG_CHANGE_STRICTER:
		put_stricter(out, v->stricter, v->count);
		break;
	case MG_CHANGE_STRINGS:
		mg_buf_putc(out, '[');
		for (i = 0; i < v->count; i++)
			mg_buf_printf(out, "%s'%s'", i ? ", " : "", v->strings[i]);
		mg_buf_putc(out, ']');
		break;
	default:
		put_grid(out, v->grid, v->count);
		break;
	}
}

/*
 * A `sensitivity.stricter` entry is meant to tighten the base budget; one
 * that loosens a threshold (a higher cap or ceiling, a lower floor, than
 * the base) tests nothing the base does not, so say so.
 */
static void warn_loose_stricter(mg_check_result *res)
{
	const mg_policy *p = res->policy;
	const mg_budget *base = &p->rules.budget;
	mg_buf before = MG_BUF_INIT, after = MG_BUF_INIT;
	size_t i;
	int t;

	for (i = 0; i < p->rules.stricter_count; i++) {
		const mg_budget *ov = &p->rules.stricter[i];

		for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
			if (!ov->set[t] || !base->set[t] ||
			    !looser((enum mg_threshold)t, base->value[t], ov->value[t]))
				continue;
			before.len = after.len = 0;
			mg_format_threshold(&before, base->value[t]);
			mg_format_threshold(&after, ov->value[t]);
			add_warning(res, "sensitivity.stricter[%zu] (%s:%d:%d) sets %s %s, looser than "
				    "the base budget's %s: a stricter scenario should tighten it",
				    i, p->path, p->stricter_pos ? p->stricter_pos[i].line : 0,
				    p->stricter_pos ? p->stricter_pos[i].column : 0,
				    mg_threshold_name((enum mg_threshold)t), after.ptr, before.ptr);
		}
	}
	mg_buf_free(&before);
	mg_buf_free(&after);
}

/* ---- the policy ---- */

static const char *policy_path_of(const struct run *run)
{
	if (run->policy_path)
		return run->policy_path;
	return run->opt->policy_path ? run->opt->policy_path : DEFAULT_POLICY;
}

/* Is `path` in the tree of `commit`? */
static bool commit_has(struct run *run, const char *commit, const char *path)
{
	mg_blob blob = { 0 };
	mg_error ignored;
	bool has = mg_repo_read(&blob, run->repo, commit, path, run->max_bytes, &ignored) == 0;

	mg_blob_release(&blob);
	return has;
}

/* Add to err's message which policy it is about (the revision's role). */
static int policy_context(mg_error *err, const char *what, const char *commit)
{
	mg_buf msg = MG_BUF_INIT;

	mg_buf_printf(&msg, "%s (in the policy %s, at %.7s)", err->message, what, commit);
	snprintf(err->message, sizeof(err->message), "%s", msg.ptr);
	mg_buf_free(&msg);
	return MG_ERROR;
}

/*
 * The policy is missing at the policy revision (and, when it differs from
 * --rev, at --rev too): say which revision that is and whether HEAD has it.
 */
static int policy_missing(struct run *run, mg_error *err)
{
	const mg_check_result *res = run->res;
	const char *path = policy_path_of(run);
	struct short_id pol = short_id(res->policy_rev), ev = short_id(res->rev);
	struct short_id head = short_id(run->head);
	const char *uncommitted = mg_repo_uncommitted_hint(run->repo, path);
	mg_buf hint = MG_BUF_INIT, cli = MG_BUF_INIT;

	if (!res->cwd_prefix && res->root)
		mg_buf_puts(&cli, path);   /* for git -C <root> */
	else
		mg_check_cli_path(&cli, res, path);

	if (strcmp(res->rev, res->policy_rev))
		mg_buf_printf(&hint, "; the evidence revision %s has none either", ev.hex);
	if (run->head[0] && strcmp(run->head, res->policy_rev) && strcmp(run->head, res->rev))
		mg_buf_printf(&hint, commit_has(run, run->head, path) ? "; HEAD (%s) has it"
					: "; HEAD (%s) has none either", head.hex);
	if (uncommitted && strstr(uncommitted, "git add")) {
		/* "it is untracked[ and ignored by .gitignore]: git add[ -f] it, ..." */
		mg_buf_printf(&hint, "; %.*s: run 'git ", (int)strcspn(uncommitted, ":"), uncommitted);
		if (!res->cwd_prefix && res->root)
			mg_buf_printf(&hint, "-C %s ", res->root);
		mg_buf_printf(&hint, "add %s%s', then commit", strstr(uncommitted, "add -f") ? "-f " : "",
			      cli.ptr);
	} else if (uncommitted) {
		mg_buf_printf(&hint, "; %s", uncommitted);
	} else if (strstr(err->message, "exists in the working tree")) {
		mg_buf_puts(&hint, "; it exists in the working tree but is not committed");
	}
	if (!run->opt->policy_path && !uncommitted)
		mg_buf_puts(&hint, "; no .memgate.yml here or above: 'memgate list' shows the "
			    "repository's policies, 'memgate check --all' gates them all");
	else
		mg_buf_puts(&hint, "; 'memgate list' shows the repository's committed policies, "
			    "'memgate check --all' gates them all");
	mg_error_set(err, NULL, 0, 0, "no policy '%s' at %s, the policy revision%s%s%s", path,
		     pol.hex, run->opt->policy_rev ? " (--policy-rev)" : "",
		     run->head[0] && !strcmp(run->head, res->policy_rev) ? " (HEAD)" : "", hint.ptr);
	mg_buf_free(&hint);
	mg_buf_free(&cli);
	return MG_ERROR;
}

static int adopt_new_policy(struct run *run, mg_error *err);

/*
 * The path the change moved the policy from, when git's rename detection
 * (mg_repo_diff) pairs the policy at --rev with a policy file of the policy
 * revision: *from is the caller's, NULL when the policy was not moved.
 * The change's renames are kept in *renames (*count of them) to follow the
 * policy's evidence.
 */
static int moved_from(char **from, mg_repo_change **renames, size_t *count, struct run *run,
		      mg_error *err)
{
	const char *path = run->policy_path, *slash;
	size_t i;
	int error;

	*from = NULL;
	if ((error = mg_repo_diff(renames, count, run->repo, run->res->policy_rev,
				  run->res->rev, err)) < 0)
		return error;
	for (i = 0; i < *count; i++) {
		const mg_repo_change *c = &(*renames)[i];

		if (!c->old_path || !c->new_path || strcmp(c->new_path, path) ||
		    !strcmp(c->old_path, path))
			continue;
		slash = strrchr(c->old_path, '/');
		if (mg_check_is_policy_name(slash ? slash + 1 : c->old_path))
			*from = mg_xstrdup(c->old_path);
	}
	return MG_OK;
}

/* `*path`, when the change renamed it, becomes its new name. */
static void follow_rename(char **path, const mg_repo_change *renames, size_t count)
{
	size_t i;

	for (i = 0; *path && i < count; i++)
		if (renames[i].old_path && renames[i].new_path &&
		    !strcmp(renames[i].old_path, *path)) {
			free(*path);
			*path = mg_xstrdup(renames[i].new_path);
			return;
		}
}

/*
 * The change moved the policy from `from` (a model folder renamed, say):
 * the base's policy at its old place decides, its evidence paths followed
 * through the change's renames, so moving a model neither escapes its
 * budget nor loses its base comparison.
 */
static int follow_policy(struct run *run, const char *from, const mg_repo_change *renames,
			 size_t count, mg_error *err)
{
	mg_check_result *res = run->res;
	int error;

	mg_error_clear(err);
	error = load_policy_from(&res->policy, run, res->policy_rev, from, &res->policy_ref, err);
	if (error < 0)
		return policy_context(err, "that decides (the policy revision)", res->policy_rev);
	follow_rename(&res->policy->manifest, renames, count);
	follow_rename(&res->policy->report, renames, count);
	add_note(res, "the change moves '%s' to '%s' (git's rename detection): the policy at %s "
		 "decides at its new place", from, run->policy_path, short_id(res->policy_rev).hex);
	return MG_OK;
}

/* Adoption: the policy revision has no policy at all, so the one this
 * change adds decides, and a note says so.  A policy the change moved is
 * not adopted: the base's decides (follow_policy). */
static int adopt_policy(struct run *run, mg_error *err)
{
	mg_repo_change *renames = NULL;
	size_t count = 0;
	char *from = NULL;
	int error;

	if ((error = moved_from(&from, &renames, &count, run, err)) < 0)
		goto done;
	if (from) {
		error = follow_policy(run, from, renames, count, err);
		goto done;
	}
	error = adopt_new_policy(run, err);
done:
	free(from);
	mg_repo_changes_free(renames, count);
	return error;
}

static int adopt_new_policy(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	int error;

	mg_error_clear(err);
	error = load_policy_at(&res->policy, run, res->rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND)
		return policy_missing(run, err);
	if (error < 0)
		return policy_context(err, "this change adds", res->rev);
	add_note(res, "adopting memgate: the policy revision %s has no '%s', so the policy this "
		 "change adds (at %s) decides; once it is merged, changes are gated by the "
		 "policy of their base", short_id(res->policy_rev).hex, policy_path_of(run),
		 short_id(res->rev).hex);
	return MG_OK;
}

/*
 * The policy at the policy revision was read but does not parse (err says
 * why; one that cannot be read at all, too large say, stays an error).  It
 * cannot decide anything, and it must not lock the repository: every
 * change, the one that fixes it included, would fail.  So the policy this
 * change proposes decides, loudly (a warning at the policy, in the log and
 * the job summary).  When that one does not parse either, the error names
 * both.
 */
static int repair_policy(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	char base_msg[sizeof(err->file) + sizeof(err->message) + 64];
	struct short_id pol = short_id(res->policy_rev), ev = short_id(res->rev);
	char head_msg[sizeof(base_msg)];
	int error;

	mg_error_format(err, base_msg, sizeof(base_msg));
	mg_error_clear(err);
	error = load_policy_at(&res->policy, run, res->rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND)
		return mg_error_set(err, policy_path_of(run), 0, 0,
				    "the policy at %s (the policy revision) cannot be read: %s; "
				    "and the change deletes it", pol.hex, base_msg);
	if (error < 0) {
		mg_error_format(err, head_msg, sizeof(head_msg));
		return mg_error_set(err, err->file[0] ? err->file : policy_path_of(run),
				    err->line, err->column,
				    "neither policy can be read: at %s (the policy revision): %s; "
				    "at %s (this change): %s", pol.hex, base_msg, ev.hex, head_msg);
	}
	add_warning_at(res, policy_path_of(run),
		       "the policy at %s (the policy revision) cannot be read (%s), so the policy "
		       "this change proposes (at %s) decides: reviewers, check it as you would a "
		       "new policy", pol.hex, base_msg, ev.hex);
	return MG_OK;
}

/*
 * Read the policy at --policy-rev; when that is another commit than --rev,
 * also read the policy at --rev, which the change proposes: it must be a
 * valid policy too (after the merge it decides), and what it alters is
 * listed.  When the policy revision has no policy, the change adopts
 * memgate and its own policy decides.
 */
static int load_policies(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_input_ref head_ref = { 0 };
	bool two = !res->worktree && strcmp(res->rev, res->policy_rev) && !run->base_run;
	int error;

	if ((error = find_policy(run, err)) < 0)
		return error;
	error = load_policy_at(&res->policy, run, res->policy_rev, &res->policy_ref, err);
	if (error == MG_ENOTFOUND && two) {
		if ((error = adopt_policy(run, err)) < 0)
			return error;
		if (!strcmp(res->policy_ref.path, run->policy_path))
			return MG_OK;   /* adopted: the change's own policy decides */
		/* moved: the proposed policy at its new place is read as any */
	}
	if (error == MG_ENOTFOUND && !run->base_run && !res->worktree)
		return policy_missing(run, err);
	if (error < 0 && two && res->policy_ref.read)
		return repair_policy(run, err);   /* read, but it does not parse */
	if (error < 0)
		return two ? policy_context(err, "that decides (the policy revision)", res->policy_rev)
			   : error;
	if (!two)
		return MG_OK;
	error = load_policy_at(&res->head_policy, run, res->rev, &head_ref, err);
	free(head_ref.path);
	if (error == MG_ENOTFOUND)
		return mg_error_set(err, policy_path_of(run), 0, 0,
				    "the change deletes the policy: it is at %s (the policy "
				    "revision) but not at %s; once merged, the gate could not run",
				    short_id(res->policy_rev).hex, short_id(res->rev).hex);
	if (error < 0)
		return policy_context(err, "this change proposes", res->rev);
	diff_policies(run, res->policy, res->head_policy);
	return MG_OK;
}

/* schema_version / semantic_id: when the manifest names one, the report
 * must carry the same string. */
static bool value_differs(const char *want, const mg_value *got)
{
	return want && (got->kind != MG_VALUE_STRING || strcmp(want, got->string));
}

/* Read the report named by `path` at --rev; a Git LFS pointer is read
 * through the local LFS store (resolve_lfs). */
static int load_report(struct run *run, mg_blob *blob, const char *path,
		       const char *from, mg_pos pos, mg_error *err)
{
	mg_check_result *res = run->res;
	char wt[MG_DIGEST_HEX_SIZE];
	bool lfs;
	int error;

	if ((error = read_input(blob, run, &res->report_ref, res->rev, path, from, pos,
				false, err)) < 0)
		return error;
	if ((error = resolve_lfs(blob, &lfs, run, path, res->report_ref.commit, err)) < 0)
		return error;
	if (mg_digest_sha256_hex(res->report_ref.sha256, blob->data, blob->len) < 0)
		return mg_error_set(err, path, 0, 0, "cannot compute SHA-256 (OpenSSL failed)");
	if (lfs)
		add_note(res, "'%s' is stored with Git LFS: its content was read from the local "
			 "LFS store and checked against the pointer's oid", path);
	if (!res->worktree && !lfs)
		warn_uncommitted(run, path, res->rev, blob->oid);
	else if (!res->worktree && !run->base_run && run->head[0] &&
		 !strcmp(run->head, res->rev) && worktree_sha256(wt, run, path) &&
		 strcmp(wt, res->report_ref.sha256))
		add_warning(res, "'%s' has uncommitted changes in the working tree; "
			    "the decision uses the version committed at %s", path,
			    short_id(res->rev).hex);
	return mg_report_parse(&res->report, path, blob->data, blob->len, err);
}

/* The approved result: missing is an issue, not an error; a mismatching
 * hash is an issue.  With --require-approved, also read its decision. */
static int load_approved(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_manifest *m = res->manifest;
	mg_blob blob = { 0 };
	int error;

	if (run->opt->ignore_approved)
		return MG_OK;
	if (!m->has_approved) {
		if (run->opt->require_approved)
			run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		return MG_OK;
	}
	error = read_input(&blob, run, &res->approved_ref, res->rev, m->approved_path,
			   m->path, m->approved_path_pos, true, err);
	if (error == MG_ENOTFOUND) {
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
		if (!res->worktree)
			res->approved_hint = mg_repo_uncommitted_hint(run->repo, m->approved_path);
		add_warning(res, "approved result '%s' is not in %s%s%s", m->approved_path,
			    res->worktree ? "the working tree" : short_id(res->rev).hex,
			    res->approved_hint ? "; " : "",
			    res->approved_hint ? res->approved_hint : "");
		mg_error_clear(err);
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	if (mg_digest_sha256_hex(res->approved_ref.sha256, blob.data, blob.len) < 0) {
		error = mg_error_set(err, m->approved_path, 0, 0,
				     "cannot compute SHA-256 (OpenSSL failed)");
		goto done;
	}
	if (strcmp(res->approved_ref.sha256, m->approved_sha256)) {
		run->pre[MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH] = true;
		goto done;
	}
	if (run->opt->require_approved)
		error = mg_approved_read(&res->approved_decision, &res->approved_selected,
					 m->approved_path, blob.data, blob.len, err);
done:
	mg_blob_release(&blob);
	return error;
}

/* A signature problem: an issue when the policy requires signatures, else
 * a warning.  `at_signers`: the problem is at `at` in the allowed signers. */
static void signature_problem(struct run *run, enum mg_issue issue, bool at_signers, mg_pos at,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void signature_problem(struct run *run, enum mg_issue issue, bool at_signers, mg_pos at,
			      const char *fmt, ...)
{
	mg_check_signature *s = &run->res->signature;
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
	else
		add_warning(run->res, "%s: %s (provenance.require is false)",
			    mg_issue_name(issue), s->problem);
}

/* Who signed: the allowed signers' verdict on the signature's key. */
static int judge_signer(struct run *run, const mg_signers *signers, const mg_sshsig *sig,
			mg_error *err)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = &res->signature;
	const char *ns = res->policy->sig_namespace, *file = s->signers_ref.path;
	const unsigned char *key;
	size_t len;
	long long now = 0;
	mg_signers_match m;

	if (mg_signers_day_start(&now, res->today) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read the day '%s'", res->today);
	key = mg_sshsig_key(sig, &len);
	m = mg_signers_find(signers, key, len, ns, now);
	if (m.principals)
		s->principals = mg_xstrdup(m.principals);
	switch (m.verdict) {
	case MG_SIGNERS_ALLOWED:
		s->verified = true;
		break;
	case MG_SIGNERS_UNKNOWN_KEY:
		signature_problem(run, MG_ISSUE_SIGNER_UNKNOWN, true, (mg_pos){ 1, 1 },
				  "the manifest is signed by %s, which '%s' (at %s) does not list",
				  s->key, file, short_id(res->policy_rev).hex);
		break;
	case MG_SIGNERS_NAMESPACE:
		signature_problem(run, MG_ISSUE_SIGNATURE_NAMESPACE_MISMATCH, true, m.pos,
				  "the signing key %s is listed for '%s' only for other namespaces "
				  "than '%s'", s->key, m.principals, ns);
		break;
	default:
		signature_problem(run, MG_ISSUE_SIGNER_OUTSIDE_VALIDITY, true, m.pos,
				  "the signing key of '%s' is %s on %s (%s=\"%s\")", m.principals,
				  m.verdict == MG_SIGNERS_EXPIRED ? "expired" : "not yet valid",
				  res->today, m.verdict == MG_SIGNERS_EXPIRED ? "valid-before" :
				  "valid-after", m.when);
		break;
	}
	return MG_OK;
}

/* Check the signature text against the manifest's bytes and the signers. */
static int judge_signature(struct run *run, const mg_signers *signers, const mg_blob *sigblob,
			   const mg_blob *manifest, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = &res->signature;
	mg_sshsig *sig = NULL;
	mg_buf key = MG_BUF_INIT;
	mg_error why;
	char line[sizeof(why.message) + 600];
	int rc, error = MG_OK;

	mg_error_clear(&why);
	if (mg_sshsig_parse(&sig, s->sig_ref.path, sigblob->data, sigblob->len, &why) < 0) {
		signature_problem(run, MG_ISSUE_SIGNATURE_MALFORMED, false,
				  (mg_pos){ why.line, why.column }, "%s",
				  mg_error_format(&why, line, sizeof(line)));
		goto done;
	}
	mg_buf_printf(&key, "%s %s", mg_sshsig_key_type(sig), mg_sshsig_fingerprint(sig));
	s->key = mg_buf_detach(&key, NULL);
	rc = mg_sshsig_verify(sig, manifest->data, manifest->len, res->policy->sig_namespace, &why);
	if (rc == MG_SSHSIG_ENAMESPACE)
		signature_problem(run, MG_ISSUE_SIGNATURE_NAMESPACE_MISMATCH, false,
				  (mg_pos){ 1, 1 }, "the manifest is %s", why.message);
	else if (rc == MG_SSHSIG_EBADSIG)
		signature_problem(run, MG_ISSUE_SIGNATURE_INVALID, false, (mg_pos){ 1, 1 },
				  "%s: the manifest changed after it was signed, or the signature "
				  "was made for another one", why.message);
	else if (rc < 0)
		error = mg_error_set(err, s->sig_ref.path, 0, 0, "%s", why.message);
	else
		error = judge_signer(run, signers, sig, err);
done:
	mg_sshsig_free(sig);
	return error;
}

/*
 * The manifest's signature, when the policy that decides has a provenance
 * section: the allowed signers at the policy revision (a missing or
 * malformed file is an error: the policy is wrong), MANIFEST.sig at --rev
 * (missing, malformed or invalid is an issue).  0 or MG_ERROR.
 */
static int load_signature(struct run *run, const mg_blob *manifest, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_check_signature *s = &res->signature;
	mg_blob signers_blob = { 0 }, sigblob = { 0 };
	mg_signers *signers = NULL;
	mg_buf path = MG_BUF_INIT;
	int error;

	if (!p->provenance_set)
		return MG_OK;
	s->checked = true;
	s->required = p->sig_required;
	error = read_input(&signers_blob, run, &s->signers_ref, res->policy_rev,
			   p->allowed_signers, p->path, p->allowed_signers_pos, true, err);
	if (error < 0)
		goto done;
	error = mg_signers_parse(&signers, p->allowed_signers, signers_blob.data, signers_blob.len,
				 err);
	if (error < 0)
		goto done;
	mg_buf_printf(&path, "%s.sig", p->manifest);
	error = read_input(&sigblob, run, &s->sig_ref, res->rev, path.ptr, p->manifest,
			   (mg_pos){ 0, 0 }, true, err);
	if (error == MG_ENOTFOUND) {
		mg_error_clear(err);
		free(s->sig_ref.path);
		s->sig_ref.path = mg_buf_detach(&path, NULL);
		signature_problem(run, MG_ISSUE_SIGNATURE_MISSING, false, (mg_pos){ 0, 0 },
				  "no signature '%s' at %s for the manifest", s->sig_ref.path,
				  res->worktree ? "the working tree" : short_id(res->rev).hex);
		error = MG_OK;
		goto done;
	}
	if (error < 0)
		goto done;
	error = judge_signature(run, signers, &sigblob, manifest, err);
done:
	mg_buf_free(&path);
	mg_signers_free(signers);
	mg_blob_release(&sigblob);
	mg_blob_release(&signers_blob);
	return error;
}

static int load_manifest(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	error = read_input(&blob, run, &res->manifest_ref, res->rev, p->manifest,
			   p->path, p->manifest_pos, true, err);
	if (error < 0)
		goto done;
	if ((error = mg_manifest_parse(&res->manifest, p->manifest, blob.data, blob.len, err)) < 0)
		goto done;
	if ((error = load_signature(run, &blob, err)) < 0)
		goto done;
	mg_blob_release(&blob);
	error = load_report(run, &blob, res->manifest->source_path, res->manifest->path,
			    res->manifest->source_path_pos, err);
	if (error < 0)
		goto done;
	if (strcmp(res->report_ref.sha256, res->manifest->source_sha256))
		run->pre[MG_ISSUE_REPORT_HASH_MISMATCH] = true;
	run->pre[MG_ISSUE_SCHEMA_VERSION_MISMATCH] =
		value_differs(res->manifest->schema_version, &res->report->schema_version);
	run->pre[MG_ISSUE_SEMANTIC_ID_MISMATCH] =
		value_differs(res->manifest->semantic_id, &res->report->semantic_id);
	error = load_approved(run, err);
done:
	mg_blob_release(&blob);
	return error;
}

static int load_evidence(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	mg_blob blob = { 0 };
	int error;

	if (p->manifest)
		return load_manifest(run, err);
	add_warning(res, "the policy names the report directly ('report:'): "
		    "no manifest, so no SHA-256 is checked");
	if (run->opt->require_approved)
		run->pre[MG_ISSUE_APPROVED_RESULT_MISSING] = true;
	error = load_report(run, &blob, p->report, p->path, p->report_pos, err);
	mg_blob_release(&blob);
	return error;
}

/*
 * evidence.inputs: compare its paths between the manifest's measured.commit
 * and the gated commit (the working tree with --worktree).  A missing or
 * unknown measured commit and any change are issues; a pathspec libgit2
 * refuses is an error at the policy's evidence.inputs.
 */
static int check_measured(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_policy *p = res->policy;
	const mg_manifest *m = res->manifest;
	char msg[sizeof(err->message)];
	int error;

	if (!p->input_count)
		return MG_OK;
	if (!m || !m->measured_commit) {
		run->pre[MG_ISSUE_MEASURED_COMMIT_MISSING] = true;
		return MG_OK;
	}
	error = mg_repo_changed_paths(&res->stale_paths, &res->stale_count, &res->stale_total,
				      run->repo, m->measured_commit,
				      res->worktree ? NULL : res->rev, p->inputs, p->input_count,
				      MG_CHECK_MAX_STALE, err);
	if (error == MG_ENOTFOUND) {
		run->pre[MG_ISSUE_MEASURED_COMMIT_UNKNOWN] = true;
		res->measured_shallow = mg_repo_is_shallow(run->repo);
		mg_error_clear(err);
		return MG_OK;
	}
	if (error < 0) {
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_at(err, p->path, p->inputs_pos, "'evidence.inputs': %s", msg);
	}
	run->pre[MG_ISSUE_EVIDENCE_STALE] = res->stale_total > 0;
	return MG_OK;
}

static void report_notes(mg_check_result *res)
{
	const mg_decision *d = res->decision;

	if (res->worktree)
		add_warning(res, "inputs were read from the working tree (--worktree), not from a commit");
	if (d->sensitivity_evaluated && !d->stability_tested)
		add_warning(res, "no sensitivity scenarios: stability of the choice was not tested");
}

/* res->today: --today (checked), else the clock's date in UTC. */
static int set_today(mg_check_result *res, const char *today, mg_error *err)
{
	time_t now;
	struct tm tm;
	int ymd;

	if (today) {
		if (mg_policy_parse_date(&ymd, today, strlen(today)) < 0)
			return mg_error_set(err, NULL, 0, 0,
					    "--today: expected a date YYYY-MM-DD, got '%s'", today);
		snprintf(res->today, sizeof(res->today), "%s", today);
		res->today_given = true;
		return MG_OK;
	}
	now = time(NULL);
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    !strftime(res->today, sizeof(res->today), "%Y-%m-%d", &tm))
		return mg_error_set(err, NULL, 0, 0, "cannot read the clock for today's date "
				    "(give it with --today YYYY-MM-DD)");
	return MG_OK;
}

/* Days since 0000-03-01 of a date year * 10000 + month * 100 + day
 * (the proleptic Gregorian calendar): differences count days. */
static int day_number(int ymd)
{
	int y = ymd / 10000, m = ymd / 100 % 100, d = ymd % 100;

	if (m <= 2) {
		y--;
		m += 12;
	}
	return 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 1;
}

/* The policy's waivers in force today (not expired), for the decision
 * core; sets res->waivers' expired ones.  A malloc'd array of *n. */
static mg_waiver *waivers_in_force(size_t *n, mg_check_result *res)
{
	const mg_policy *p = res->policy;
	mg_waiver *active = mg_xcalloc(p->waiver_count ? p->waiver_count : 1, sizeof(*active));
	int today = 0;
	size_t i;

	mg_policy_parse_date(&today, res->today, strlen(res->today));
	res->waivers = mg_xcalloc(p->waiver_count ? p->waiver_count : 1, sizeof(*res->waivers));
	res->waiver_count = p->waiver_count;
	*n = 0;
	for (i = 0; i < p->waiver_count; i++) {
		res->waivers[i].waiver = &p->waivers[i];
		if (p->waivers[i].expires_ymd < today) {
			res->waivers[i].status = MG_WAIVER_EXPIRED;
			continue;
		}
		res->waivers[i].days_left = day_number(p->waivers[i].expires_ymd) - day_number(today);
		res->waivers[i].expiring = p->waivers_warn_days > 0 &&
			res->waivers[i].days_left <= p->waivers_warn_days;
		active[*n].candidate = p->waivers[i].candidate;
		active[(*n)++].reason = p->waivers[i].reason;
	}
	return active;
}

/* After the decision: which waivers in force applied to something. */
static void judge_waivers(mg_check_result *res)
{
	const mg_evidence *ev = &res->report->evidence;
	size_t i, j, k = 0;

	for (i = 0; i < res->waiver_count; i++) {
		mg_waiver_state *w = &res->waivers[i];

		for (j = 0; j < ev->candidate_count && !w->candidate_found; j++)
			w->candidate_found = ev->candidates[j].name &&
				!strcmp(ev->candidates[j].name, w->waiver->candidate);
		if (w->status == MG_WAIVER_EXPIRED)
			continue;
		w->status = k < res->decision->waiver_count && res->decision->waiver_used[k] ?
			MG_WAIVER_APPLIED : MG_WAIVER_UNMATCHED;
		k++;
	}
}

/* A warning for each check of the selected candidate whose threshold lies
 * inside its runs' band: a re-run could flip it. */
static void warn_noise(mg_check_result *res)
{
	const mg_decision *d = res->decision;
	const mg_insight *in = res->insight;
	mg_buf name = MG_BUF_INIT;
	size_t i;
	int t;

	if (!d->selected || !in)
		return;
	for (i = 0; i < d->base.count; i++)
		if (d->base.evaluations[i].name == d->selected)
			break;
	if (i == d->base.count || !in->noise[i].within)
		return;
	mg_format_name(&name, d->selected);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (in->noise[i].within & (1u << t))
			add_warning(res, "the selected candidate %s is within measurement noise on %s: "
				    "some of its runs pass the threshold and some fail (evidence.noise: %s)",
				    name.ptr, mg_threshold_name((enum mg_threshold)t),
				    mg_noise_mode_name(res->policy->rules.noise));
	mg_buf_free(&name);
}

static int compare_base(struct run *run, mg_error *err);

/*
 * regression: the base revision's evidence and the candidate its decision
 * selected (compare_base, run before this decision); without a base to
 * compare with, a warning says that nothing was compared.
 */
static void regression_base(mg_regression *rg, struct run *run)
{
	mg_check_result *res = run->res;
	const mg_check_result *b = res->base ? res->base->result : NULL;

	if (run->base_run || !mg_regression_active(rg))
		return;
	if (rg->history && res->history && res->history->used) {
		rg->base = &res->history->evidence;   /* regression.history: the medians */
		rg->base_selected = b && b->decision ? b->decision->selected : NULL;
	} else if (rg->history && res->history) {
		add_warning(res, "regression: nothing compared: regression.history found no "
			    "version of '%s' to compare with on the first-parent line of %.7s",
			    res->history->path, res->history->base);
	} else if (b && b->report) {
		rg->base = &b->report->evidence;
		rg->base_selected = b->decision ? b->decision->selected : NULL;
	} else if (res->base) {
		add_warning(res, "regression: nothing compared: the base %.7s does not decide: %s",
			    res->base->rev, res->base->error ? res->base->error : "no report");
	} else if (!res->worktree && !run->opt->base && !run->opt->policy_rev) {
		add_warning(res, "regression: nothing compared: no base revision (give --base REV "
			    "or --policy-rev REV)");
	}
}

/*
 * regression.history: the medians of the base's report over its last
 * versions on the base's first-parent line (history.c), once the base has
 * decided (its report's path); what the walk could not reach is said.
 */
static int read_history(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	const mg_regression *rg = &res->policy->rules.regression;
	const mg_check_result *b = res->base ? res->base->result : NULL;
	size_t bound = rg->history_max_commits ? (size_t)rg->history_max_commits
					       : MG_HISTORY_DEFAULT_MAX_COMMITS;
	const mg_history *h;

	if (run->base_run || !rg->history || !b || !b->report_ref.path)
		return MG_OK;
	if (mg_history__read(&res->history, run->repo, res->base->rev, b->report_ref.path,
			     rg->history, bound, run->max_bytes, err) < 0)
		return MG_ERROR;
	h = res->history;
	if (h->skipped)
		add_warning(res, "regression.history: %zu version%s of '%s' skipped: not a "
			    "report memgate reads (the first: %s)", h->skipped,
			    h->skipped == 1 ? "" : "s", h->path, h->skipped_why);
	if (h->bounded)
		add_warning(res, "regression.history: the median is over %zu of the last %d "
			    "versions of '%s': the %zu commit%s looked at on the base's "
			    "first-parent line hold%s no more (regression.history_max_commits: "
			    "%zu); raise it to look further", h->used, h->asked, h->path,
			    h->visited, h->visited == 1 ? "" : "s", h->visited == 1 ? "s" : "",
			    h->max_commits);
	else if (h->shallow)
		add_warning(res, "regression.history: the median is over %zu of the last %d "
			    "versions of '%s': the clone is shallow and the base's history "
			    "ends after %zu commit%s; fetch more of it (git fetch --depth=%zu "
			    "origin %s, or actions/checkout with fetch-depth: 0)", h->used,
			    h->asked, h->path, h->visited, h->visited == 1 ? "" : "s",
			    h->max_commits + 1, h->base);
	else if (h->used < (size_t)h->asked)
		add_note(res, "regression.history: the median is over %zu of the last %d "
			 "versions of '%s': the base's first-parent line holds %zu", h->used,
			 h->asked, h->path, h->used);
	return MG_OK;
}

/* mg_decide with the waivers in force today. */
static int decide_with_waivers(struct run *run, mg_error *err)
{
	mg_check_result *res = run->res;
	mg_rules rules = res->policy->rules;
	mg_approved approved;
	mg_waiver *active;
	size_t n;
	int error;

	regression_base(&rules.regression, run);
	active = waivers_in_force(&n, res);
	rules.waivers = active;
	rules.waiver_count = n;
	approved.decision = res->approved_decision;
	approved.selected = res->approved_selected;
	error = mg_decide(&res->decision, &rules, &res->report->evidence, run->pre,
			  &approved, 0, err);
	if (error == MG_OK)
		judge_waivers(res);
	/* the --base comparison shows the decision only: no tipping points */
	if (error == MG_OK && !run->base_run &&
	    (error = mg_insight_compute(&res->insight, &rules, &res->report->evidence, run->pre,
					res->decision, err)) == MG_OK)
		warn_noise(res);
	free(active);
	return error;
}

const char *mg_check_waiver_status_name(enum mg_waiver_status s)
{
	static const char *const names[MG_WAIVER_STATUS_COUNT] = {
		[MG_WAIVER_APPLIED] = "applied",
		[MG_WAIVER_UNMATCHED] = "unmatched",
		[MG_WAIVER_EXPIRED] = "expired",
	};

	return (int)s >= 0 && s < MG_WAIVER_STATUS_COUNT ? names[s] : NULL;
}

void mg_check_waiver_message(mg_buf *out, const mg_check_result *r, size_t i)
{
	const mg_waiver_state *w = &r->waivers[i];
	const mg_policy_waiver *v = w->waiver;
	const char *reason = mg_reason_name(v->reason);

	switch (w->status) {
	case MG_WAIVER_APPLIED:
		mg_buf_printf(out, "waiver: '%s' passes %s until %s (owner %s): %s", v->candidate,
			      reason, v->expires, v->owner, v->justification);
		break;
	case MG_WAIVER_UNMATCHED:
		mg_buf_printf(out, "waiver for '%s' (%s) matches nothing: ", v->candidate, reason);
		if (!w->candidate_found)
			mg_buf_printf(out, "the report has no candidate '%s'", v->candidate);
		else
			mg_buf_printf(out, "'%s' does not fail %s under the base budget nor in any "
				      "scenario", v->candidate, reason);
		mg_buf_puts(out, "; remove it or correct it");
		break;
	default:
		mg_buf_printf(out, "waiver for '%s' (%s, owner %s) expired on %s and is ignored "
			      "(today is %s)", v->candidate, reason, v->owner, v->expires, r->today);
		break;
	}
}

void mg_check_waiver_expiring_message(mg_buf *out, const mg_check_result *r, size_t i)
{
	const mg_waiver_state *w = &r->waivers[i];
	const mg_policy_waiver *v = w->waiver;

	assert(w->expiring);
	mg_buf_printf(out, "waiver for '%s' (%s, owner %s) expires on %s, ", v->candidate,
		      mg_reason_name(v->reason), v->owner, v->expires);
	if (w->days_left == 0)
		mg_buf_puts(out, "today");
	else
		mg_buf_printf(out, "in %d day%s", w->days_left, w->days_left == 1 ? "" : "s");
	mg_buf_printf(out, " (waivers_warn_days %d; today is %s): fix the cause, or renew it in "
		      "the policy of the base branch", r->policy->waivers_warn_days, r->today);
}

/* The core refuses only sensitivity too large to evaluate: point at it. */
static int blame_sensitivity(const mg_policy *p, mg_error *err)
{
	char msg[sizeof(err->message)];
	mg_pos pos = { 0, 0 };

	if (p->rules.grid_count)
		pos = p->grid_pos[0];
	else if (p->rules.stricter_count)
		pos = p->stricter_pos[0];
	snprintf(msg, sizeof(msg), "%s", err->message);
	return mg_error_at(err, p->path, pos, "%s", msg);
}

/* Decide with the repository open and the revisions resolved. */
static int decide(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if ((error = load_policies(run, err)) < 0)
		return error;
	warn_loose_stricter(res);
	if ((error = load_evidence(run, err)) < 0)
		return error;
	if ((error = check_measured(run, err)) < 0)
		return error;
	/* regression: compares with the base, so the base decides first */
	if (!run->base_run && mg_regression_active(&res->policy->rules.regression) &&
	    (error = compare_base(run, err)) < 0)
		return error;
	if ((error = read_history(run, err)) < 0)
		return error;
	if ((error = decide_with_waivers(run, err)) < 0)
		return blame_sensitivity(res->policy, err);
	memcpy(res->fail_on, opt->fail_on_set ? opt->fail_on : res->policy->fail_on,
	       sizeof(res->fail_on));
	report_notes(res);
	res->passed = !res->fail_on[res->decision->verdict];
	return MG_OK;
}

/*
 * --base (default: --policy-rev when given): decide the evidence at the
 * base commit with the policy that decided here, for the comparison.  The
 * base failing to decide (no evidence yet, a broken report) is recorded,
 * not an error; a --base that names no commit is.
 */
static int compare_base(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	const char *want = opt->base ? opt->base : opt->policy_rev;
	mg_check_options sub = *opt;
	struct run base = { 0 };
	mg_check_base *b;
	mg_error berr;
	char msg[sizeof(err->message)];

	if (!want || res->worktree || run->base_compared)
		return MG_OK;
	run->base_compared = true;
	b = mg_xcalloc(1, sizeof(*b));
	if (mg_repo_resolve(b->rev, run->repo, want, err) < 0) {
		free(b);
		snprintf(msg, sizeof(msg), "%s", err->message);
		return mg_error_set(err, NULL, 0, 0, "--base: %s", msg);
	}
	if (!strcmp(b->rev, res->rev)) {
		free(b);
		return MG_OK;   /* the same commit: nothing to compare */
	}
	sub.rev = b->rev;
	sub.policy_rev = res->policy_ref.commit[0] ? res->policy_ref.commit : res->policy_rev;
	if (res->policy_ref.path) {
		/* where the deciding policy was read: a moved policy's old place */
		sub.policy_path = res->policy_ref.path;
		sub.policy_from_root = true;
	}
	sub.base = NULL;
	sub.require_approved = false;
	base.opt = &sub;
	base.repo = run->repo;
	base.max_bytes = run->max_bytes;
	base.base_run = true;
	memcpy(base.head, run->head, sizeof(base.head));
	base.res = mg_xcalloc(1, sizeof(*base.res));
	mg_error_clear(&berr);
	if (resolve_revs(&base, &berr) < 0 || set_today(base.res, sub.today, &berr) < 0 ||
	    decide(&base, &berr) < 0) {
		mg_error_format(&berr, msg, sizeof(msg));
		b->error = mg_xstrdup(msg);
		mg_check_result_free(base.res);
	} else {
		b->result = base.res;
	}
	free(base.policy_path);
	res->base = b;
	return MG_OK;
}

static bool same_input(const mg_input_ref *a, const mg_input_ref *b)
{
	return a->read == b->read && (!a->read || !strcmp(a->blob, b->blob));
}

/* res->evidence_unchanged: see check.h. */
static void judge_unchanged(mg_check_result *res)
{
	const mg_check_result *b = res->base ? res->base->result : NULL;

	res->evidence_unchanged = b && !res->change_count &&
		same_input(&res->report_ref, &b->report_ref) &&
		same_input(&res->manifest_ref, &b->manifest_ref);
}

/* Fill res->root and res->cwd_prefix (check.h); failures leave them NULL. */
static void locate_cwd(struct run *run)
{
	mg_check_result *res = run->res;
	const char *workdir = mg_repo_workdir(run->repo);
	char *cwd = realpath(".", NULL);
	size_t n;

	if (workdir)
		res->root = realpath(workdir, NULL);
	if (!res->root || !cwd)
		goto done;
	n = strlen(res->root);
	if (!strcmp(cwd, res->root)) {
		res->cwd_prefix = mg_xstrdup("");
	} else if (!strncmp(cwd, res->root, n) && cwd[n] == '/') {
		mg_buf b = MG_BUF_INIT;

		mg_buf_printf(&b, "%s/", cwd + n + 1);
		res->cwd_prefix = mg_buf_detach(&b, NULL);
	}
done:
	free(cwd);
}

void mg_check_cli_path(mg_buf *out, const mg_check_result *r, const char *path)
{
	const char *p = r->cwd_prefix, *q = path, *rest;
	size_t common = 0, i;

	if (!p) {
		if (r->root)
			mg_buf_printf(out, "%s/", r->root);
		mg_buf_puts(out, path);
		return;
	}
	/* the longest common run of whole directories */
	for (i = 0; p[i] && p[i] == q[i]; i++)
		if (p[i] == '/')
			common = i + 1;
	for (rest = p + common; *rest; rest++)
		if (*rest == '/')
			mg_buf_puts(out, "../");
	mg_buf_puts(out, path + common);
}

/* Open the repository at dir for run, or take the held one. */
static int open_repo(struct run *run, const char *dir, mg_error *err)
{
	const char *key = dir ? dir : ".";
	int error;

	if (held.repo && !strcmp(held.dir, key)) {
		run->repo = held.repo;
		run->repo_held = true;
		return MG_OK;
	}
	if ((error = mg_repo_open(&run->repo, dir, err)) < 0)
		return error;
	if (held.on && !held.repo) {
		held.repo = run->repo;
		held.dir = mg_xstrdup(key);
		run->repo_held = true;
	}
	return MG_OK;
}

static int run_check(struct run *run, mg_error *err)
{
	const mg_check_options *opt = run->opt;
	mg_check_result *res = run->res;
	int error;

	if ((error = open_repo(run, opt->dir, err)) < 0)
		return error;
	locate_cwd(run);
	if ((error = resolve_revs(run, err)) < 0)
		return error;
	if ((error = set_today(res, opt->today, err)) < 0)
		return error;
	if (!res->worktree && mg_repo_resolve(run->head, run->repo, "HEAD", err) < 0)
		run->head[0] = '\0';
	mg_error_clear(err);
	if ((error = decide(run, err)) < 0)
		return error;
	if ((error = compare_base(run, err)) < 0)
		return error;
	judge_unchanged(res);
	return MG_OK;
}

int mg_check_begin(mg_error *err)
{
	int error;

	if ((error = mg_git_hold(err)) == MG_OK)
		held.on = true;
	return error;
}

void mg_check_end(void)
{
	mg_repo_free(held.repo);
	free(held.dir);
	held.repo = NULL;
	held.dir = NULL;
	held.on = false;
	mg_git_release();
}

int mg_check_run(mg_check_result **out, const mg_check_options *opt, mg_error *err)
{
	struct run run = { 0 };
	int error;

	*out = NULL;
	run.opt = opt;
	run.res = mg_xcalloc(1, sizeof(*run.res));
	run.res->worktree = opt->worktree;
	run.max_bytes = opt->max_input_bytes ? opt->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	error = run_check(&run, err);
	if (!run.repo_held)
		mg_repo_free(run.repo);
	free(run.policy_path);
	if (error < 0) {
		mg_check_result_free(run.res);
		return error;
	}
	*out = run.res;
	return MG_OK;
}

static void release_ref(mg_input_ref *ref)
{
	free(ref->path);
}

static void free_strings(char **list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(list[i]);
	free(list);
}

/* Free what r holds, not r itself. */
static void release_result(mg_check_result *r)
{
	release_ref(&r->policy_ref);
	release_ref(&r->manifest_ref);
	release_ref(&r->report_ref);
	release_ref(&r->approved_ref);
	release_ref(&r->signature.sig_ref);
	release_ref(&r->signature.signers_ref);
	free(r->signature.principals);
	free(r->signature.key);
	free(r->signature.problem);
	mg_decision_free(r->decision);
	mg_insight_free(r->insight);
	mg_history_free(r->history);
	mg_report_free(r->report);
	mg_manifest_free(r->manifest);
	mg_policy_free(r->policy);
	mg_policy_free(r->head_policy);
	free_strings(r->warning_files, r->warning_count);
	free_strings(r->warnings, r->warning_count);
	free_strings(r->notes, r->note_count);
	free_strings(r->stale_paths, r->stale_count);
	free(r->changes);
	free(r->approved_decision);
	free(r->approved_selected);
	free(r->cwd_prefix);
	free(r->root);
	if (r->base) {
		mg_check_result_free(r->base->result);
		free(r->base->error);
		free(r->base);
	}
	free(r->waivers);
}

void mg_check_result_free(mg_check_result *r)
{
	if (!r)
		return;
	release_result(r);
	free(r);
}

/* ---- memgate manifest ---- */

static const char *string_value(const mg_value *v)
{
	return v->kind == MG_VALUE_STRING ? v->string : NULL;
}

/* --semantic-id must be the report's own, or the next check would fail
 * with semantic_id_mismatch. */
static int check_semantic_id(const char *want, const mg_report *rep, mg_error *err)
{
	const mg_value *have = &rep->semantic_id;

	if (!want || (have->kind == MG_VALUE_STRING && !strcmp(want, have->string)))
		return MG_OK;
	if (have->kind == MG_VALUE_STRING)
		return mg_error_at(err, rep->path, have->pos, "--semantic-id '%s' differs from the "
				   "report's semantic_id '%s': a manifest pinning it would fail "
				   "with semantic_id_mismatch (leave --semantic-id out to pin the "
				   "report's own)", want, have->string);
	return mg_error_set(err, rep->path, 1, 1, "--semantic-id '%s': the report has no "
			    "semantic_id, so a manifest pinning one would fail with "
			    "semantic_id_mismatch", want);
}

/* The working-tree report differs from the committed one: the manifest
 * pins the committed bytes, so say so. */
static void warn_worktree_report(struct run *run, const char *path)
{
	mg_check_result *res = run->res;
	char wt[MG_DIGEST_HEX_SIZE];

	if (res->worktree || !mg_repo_workdir(run->repo) || !worktree_sha256(wt, run, path) ||
	    !strcmp(wt, res->report_ref.sha256))
		return;
	add_warning(res, "'%s' in the working tree differs from the version committed at %s; "
		    "this manifest pins the committed one (SHA-256 %.12s...), not the working "
		    "tree's (%.12s...); use --worktree to pin the working-tree file, then commit "
		    "both", path, short_id(res->rev).hex, res->report_ref.sha256, wt);
}

/* The approved_result of the manifest being replaced, kept in the new one. */
static void keep_approved(mg_manifest **old, struct run *run, const mg_manifest_options *mo)
{
	mg_error perr;

	*old = NULL;
	if (!mo->existing)
		return;
	if (mg_manifest_parse(old, mo->out_path ? mo->out_path : "the existing manifest",
			      mo->existing, mo->existing_len, &perr) < 0) {
		char msg[sizeof(perr.message) + 600];

		mg_error_format(&perr, msg, sizeof(msg));
		add_warning(run->res, "the existing manifest cannot be read, so no approved_result "
			    "is kept from it: %s", msg);
		return;
	}
	if ((*old)->has_approved)
		add_note(run->res, "kept approved_result '%s' from the existing manifest",
			 (*old)->approved_path);
	if ((*old)->measured_commit && !mo->measured_commit)
		add_warning(run->res, "the existing manifest's measured.commit %.7s is not kept: "
			    "a new manifest is a new measurement; name the commit measured with "
			    "--measured-commit REV", (*old)->measured_commit);
}

int mg_check_make_manifest(char **text, char ***warnings, size_t *warning_count,
			   char ***notes, size_t *note_count,
			   const mg_manifest_options *mo, mg_error *err)
{
	mg_check_options opt = { 0 };
	mg_check_result res = { 0 };
	struct run run = { 0 };
	mg_manifest *old = NULL;
	mg_blob blob = { 0 };
	char *prefix = NULL, *path = NULL, measured[MG_GIT_OID_HEX];
	int error;

	*text = NULL;
	opt.dir = mo->dir;
	opt.rev = mo->rev;
	opt.worktree = mo->worktree;
	run.opt = &opt;
	run.res = &res;
	res.worktree = mo->worktree;
	run.max_bytes = mo->max_input_bytes ? mo->max_input_bytes : MG_GIT_DEFAULT_MAX_INPUT;
	if ((error = mg_repo_open(&run.repo, mo->dir, err)) < 0)
		goto done;
	if ((error = resolve_revs(&run, err)) < 0)
		goto done;
	if ((error = mg_repo_prefix(&prefix, run.repo, mo->dir, err)) < 0 ||
	    (error = repository_path(&path, prefix, mo->report_path, err)) < 0)
		goto done;
	if ((error = load_report(&run, &blob, path, NULL, (mg_pos){ 0, 0 }, err)) < 0)
		goto done;
	if ((error = check_semantic_id(mo->semantic_id, res.report, err)) < 0)
		goto done;
	warn_worktree_report(&run, path);
	if (mo->measured_commit &&
	    (error = resolve_option(measured, run.repo, "--measured-commit", mo->measured_commit,
				    err)) < 0)
		goto done;
	keep_approved(&old, &run, mo);
	*text = mg_manifest_render_approved(path, res.report_ref.sha256,
					    string_value(&res.report->schema_version),
					    string_value(&res.report->semantic_id),
					    old && old->has_approved ? old->approved_path : NULL,
					    old && old->has_approved ? old->approved_sha256 : NULL,
					    mo->measured_commit ? measured : NULL);
done:
	free(prefix);
	free(path);
	/* the warnings and notes are the caller's; the rest goes with res */
	free_strings(res.warning_files, res.warning_count);
	res.warning_files = NULL;
	*warnings = res.warnings;
	*warning_count = res.warning_count;
	*notes = res.notes;
	*note_count = res.note_count;
	res.warnings = res.notes = NULL;
	res.warning_count = res.note_count = 0;
	mg_manifest_free(old);
	mg_blob_release(&blob);
	release_result(&res);
	mg_repo_free(run.repo);
	return error;
}

bool mg_check_is_policy_name(const char *name)
{
	size_t n = strlen(name), k = strlen(DEFAULT_POLICY);

	return n >= k && !strcmp(name + n - k, DEFAULT_POLICY);
}

int mg_check_list(char ***paths, size_t *count, const char *dir, const char *rev,
		  mg_error *err)
{
	mg_repo *repo = NULL;
	char commit[MG_GIT_OID_HEX];
	int error;

	*paths = NULL;
	*count = 0;
	if ((error = mg_repo_open(&repo, dir, err)) < 0)
		goto done;
	if ((error = mg_repo_resolve(commit, repo, rev ? rev : "HEAD", err)) < 0)
		goto done;
	error = mg_repo_list(paths, count, repo, commit, mg_check_is_policy_name, err);
done:
	mg_repo_free(repo);
	return error;
}

void mg_check_list_free(char **paths, size_t count)
{
	free_strings(paths, count);
}

int mg_check_item_status(const mg_check_item *item)
{
	return !item->result ? 2 : item->result->passed ? 0 : 1;
}
