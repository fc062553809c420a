/*
 * The git source layer: see plugin/git.h.  This is the only file
 * in memgate that includes git2.h; libgit2 errors are translated here into
 * mg_error messages in git's wording ("cannot read 'x' at 3f2a1c0: ...").
 *
 * Error messages name the repository path and the short commit id in the
 * message itself and leave err->file empty: the caller knows which policy
 * or manifest line named the path and may fill file, line and column.
 */
/* realpath() is an X/Open (XSI) function in POSIX.1-2008: ask for it by its
 * standard's name (every Unix has it), not by _DEFAULT_SOURCE. */
#define _XOPEN_SOURCE 700
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#if LIBGIT2_VER_MAJOR > 1 || (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 8)
#include <git2/sys/errors.h>  /* git_error_clear left git2.h in libgit2 1.8 */
#endif

/* libgit2 1.4 made GIT_BUF_INIT public; 1.1 (Debian 11, Ubuntu 22.04) has
 * the same three-field git_buf without it. */
#if LIBGIT2_VER_MAJOR > 1 || (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 4)
#define GITBUF_INIT GIT_BUF_INIT
#else
#define GITBUF_INIT { NULL, 0, 0 }
#endif

/*
 * The ownership check (CVE-2022-24765), its GIT_EOWNER code and the option
 * that turns it off came with libgit2 1.4.3.  memgate turns it off (see
 * mg_repo_open), so an older libgit2, which has no such check, opens the
 * same repositories; open_error recognises another user's repository
 * itself, with every version.
 */
#if LIBGIT2_VER_MAJOR > 1 || (LIBGIT2_VER_MAJOR == 1 && (LIBGIT2_VER_MINOR > 4 || \
	(LIBGIT2_VER_MINOR == 4 && LIBGIT2_VER_REVISION >= 3)))
#define HAVE_OWNER_VALIDATION 1
#define IS_EOWNER(rc) ((rc) == GIT_EOWNER)
#else
#define HAVE_OWNER_VALIDATION 0
#define IS_EOWNER(rc) ((void)(rc), 0)
#endif

#include "memgate/buf.h"
#include "git.h"
#include "path.h"

/*
 * The blobs read last, by id: check --all reads each policy, and each
 * unchanged manifest and report, at the base commit and the head (the same
 * blob), so the second read is served from here instead of the object
 * store (a loose object is opened, inflated and hashed on every read).
 * Small blobs only, in a few slots replaced in turn: bounded memory.
 */
#define BLOB_MEMO_SLOTS 16
#define BLOB_MEMO_MAX ((size_t)256 << 10)
#define RESOLVED_SLOTS 8   /* check --all resolves HEAD and --rev for every policy */

struct mg_repo {
	git_repository *git;
	bool shallow;
	git_blob *memo[BLOB_MEMO_SLOTS];
	size_t memo_next;
	struct {                   /* revisions resolved (refs do not move during a run) */
		char *rev;
		char oid[MG_GIT_OID_HEX];
	} resolved[RESOLVED_SLOTS];
	size_t resolved_next;
};

#define SHORT_ID_LEN 7
#define TREE_CACHE_LIMIT ((size_t)1 << 20)   /* trees up to about 30,000 entries */
#define LIMIT_HINT "(raise it with --max-input-mb)"
#define REGULAR_ONLY "(memgate reads regular files only)"

/* What a working-tree path is, looked at without following symlinks. */
enum wt_kind {
	WT_MISSING,
	WT_FILE,
	WT_SYMLINK,
	WT_DIR,
	WT_OTHER,
	WT_PARENT_SYMLINK  /* a leading directory is a symlink */
};

/* libgit2's last error message, never NULL. */
static const char *git_message(void)
{
	const git_error *e = git_error_last();

	return e && e->message && e->message[0] ? e->message : "unknown libgit2 error";
}

/* Parse a full hex object id; 0, or -1 when it is not 40 hex digits. */
static int parse_oid(git_oid *oid, const char *hex)
{
	if (strlen(hex) != GIT_OID_HEXSZ)
		return -1;
	return git_oid_fromstrn(oid, hex, GIT_OID_HEXSZ) < 0 ? -1 : 0;
}

static size_t effective_limit(size_t max_bytes)
{
	return max_bytes ? max_bytes : MG_GIT_DEFAULT_MAX_INPUT;
}

/* ---- opening ---------------------------------------------------------- */

/*
 * Does the repository found from `where` declare the SHA-256 object format?
 * libgit2 1.5 refuses such a repository itself, but leaks while doing so
 * (its PCRE2 match data, in the extension check), so look first.
 */
static bool uses_sha256(const char *where)
{
	git_buf gitdir = GITBUF_INIT, format = GITBUF_INIT;
	git_config *config = NULL;
	mg_buf path = MG_BUF_INIT;
	bool sha256 = false;

	if (git_repository_discover(&gitdir, where, 0, NULL) < 0)
		goto done;
	mg_buf_printf(&path, "%sconfig", gitdir.ptr);
	if (access(path.ptr, R_OK) < 0 || git_config_open_ondisk(&config, path.ptr) < 0)
		goto done;
	if (git_config_get_string_buf(&format, config, "extensions.objectformat") == 0)
		sha256 = !strcmp(format.ptr, "sha256");
done:
	git_error_clear();
	git_config_free(config);
	git_buf_dispose(&format);
	git_buf_dispose(&gitdir);
	mg_buf_free(&path);
	return sha256;
}

static int sha256_error(const char *where, mg_error *err)
{
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	return mg_error_set(err, NULL, 0, 0, "repository '%s' uses the SHA-256 object "
			    "format, which memgate cannot read (linked with libgit2 %d.%d.%d)",
			    where, major, minor, rev);
}

/* Is the repository found from `where` owned by another user than us?
 * (libgit2 versions word their refusal differently, so look ourselves.) */
static bool owned_by_other(const char *where)
{
	git_buf gitdir = GITBUF_INIT;
	struct stat st;
	bool other;

	other = git_repository_discover(&gitdir, where, 0, NULL) == 0 &&
		stat(gitdir.ptr, &st) == 0 && st.st_uid != geteuid();
	git_buf_dispose(&gitdir);
	git_error_clear();
	return other;
}

/* Is there any repository to find from `where`? */
static bool discoverable(const char *where)
{
	git_buf gitdir = GITBUF_INIT;
	bool found = git_repository_discover(&gitdir, where, 0, NULL) == 0;

	git_buf_dispose(&gitdir);
	git_error_clear();
	return found;
}

/*
 * Translate a failed git_repository_open_ext; returns MG_ERROR.  Each case
 * is recognised by memgate itself, not by libgit2's message, so that the
 * wording is the same with every libgit2 version.
 */
static int open_error(int rc, const char *dir, mg_error *err)
{
	char *msg = mg_xstrdup(git_message());
	struct stat st;

	if (stat(dir, &st) < 0)
		rc = mg_error_set(err, NULL, 0, 0, "not a git repository: '%s': %s", dir,
				  strerror(errno));
	else if (uses_sha256(dir))
		rc = sha256_error(dir, err);
	else if (IS_EOWNER(rc) || owned_by_other(dir))
		/* Unreachable while owner validation is off; kept so that a
		 * libgit2 that ignores the option still says why. */
		rc = mg_error_set(err, NULL, 0, 0, "repository '%s' is owned by another "
				  "user (memgate only reads it: run it as that user, or mark "
				  "it safe with git config --global --add safe.directory)", dir);
	else if (!discoverable(dir))
		rc = mg_error_set(err, NULL, 0, 0, "not a git repository: '%s'", dir);
	else
		rc = mg_error_set(err, NULL, 0, 0, "cannot open repository '%s': %s", dir, msg);
	free(msg);
	return rc;
}

/*
 * Refuse a repository whose git directory sits inside another repository's
 * working tree (outside that repository's .git): such a directory (HEAD,
 * objects/, refs/, config) is plain files that any commit can plant, and
 * gating it would gate the planter's choice instead of the checkout.  The
 * nearest directory above the git directory that holds a ".git" entry is
 * the enclosing checkout; git itself refuses ".git" as a path in a commit,
 * so that entry cannot be planted.  Returns 0 or MG_ERROR.
 */
static void buf_truncate(mg_buf *b, size_t len);

static int refuse_planted(git_repository *git, const char *where, mg_error *err)
{
	const char *gitdir = git_repository_commondir(git);
	mg_buf dir = MG_BUF_INIT, probe = MG_BUF_INIT;
	struct stat st;
	char *slash;
	int rc = 0;

	mg_buf_puts(&dir, gitdir ? gitdir : "");
	while (dir.len > 1 && dir.ptr[dir.len - 1] == '/')
		buf_truncate(&dir, dir.len - 1);
	while (dir.len > 1 && (slash = strrchr(dir.ptr, '/'))) {
		buf_truncate(&dir, slash == dir.ptr ? 1 : (size_t)(slash - dir.ptr));
		buf_truncate(&probe, 0);
		mg_buf_printf(&probe, "%s/.git", dir.len > 1 ? dir.ptr : "");
		if (lstat(probe.ptr, &st) < 0)
			continue;
		if (strncmp(gitdir, probe.ptr, probe.len) || gitdir[probe.len] != '/')
			rc = mg_error_set(err, NULL, 0, 0, "refusing repository '%s': its git "
					  "directory '%s' lies inside the working tree of '%s', "
					  "where any commit can plant one (run memgate at the "
					  "checkout's top level)", where, gitdir, dir.ptr);
		break;
	}
	mg_buf_free(&dir);
	mg_buf_free(&probe);
	return rc;
}

int mg_repo_open(mg_repo **out, const char *dir, mg_error *err)
{
	git_repository *git = NULL;
	const char *where = dir ? dir : ".";
	int rc;

	assert(out);
	*out = NULL;
	if ((rc = git_libgit2_init()) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot initialize libgit2: %s", git_message());
	/*
	 * memgate only reads objects, and CI containers routinely check out
	 * the repository as another user than the one running the job; with
	 * the ownership check on, libgit2 1.5 refuses with a confusing
	 * "config value 'safe.directory' was not found".  So turn it off.
	 */
#if HAVE_OWNER_VALIDATION
	git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
#endif
	/*
	 * Every input is found by its path from the root tree.  A monorepo's
	 * models/ folder of a few hundred entries is larger than libgit2's
	 * default cache limit for trees (4 KiB), so it was read, inflated and
	 * hashed again for every input of every policy (check --all).
	 */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, TREE_CACHE_LIMIT);
	if (uses_sha256(where)) {
		rc = sha256_error(where, err);
		goto done;
	}
	if ((rc = git_repository_open_ext(&git, where, 0, NULL)) < 0) {
		rc = open_error(rc, where, err);
		goto done;
	}
	if ((rc = refuse_planted(git, where, err)) < 0) {
		git_repository_free(git);
		goto done;
	}
	*out = mg_xcalloc(1, sizeof(**out));
	(*out)->git = git;
	(*out)->shallow = git_repository_is_shallow(git) == 1;
done:
	if (rc < 0)
		git_libgit2_shutdown();  /* mg_repo_free does it otherwise */
	return rc;
}

void mg_repo_free(mg_repo *repo)
{
	size_t i;

	if (!repo)
		return;
	for (i = 0; i < BLOB_MEMO_SLOTS; i++)
		git_blob_free(repo->memo[i]);
	for (i = 0; i < RESOLVED_SLOTS; i++)
		free(repo->resolved[i].rev);
	git_repository_free(repo->git);
	free(repo);
	git_libgit2_shutdown();
}

const char *mg_repo_workdir(const mg_repo *repo)
{
	return git_repository_workdir(repo->git);
}

bool mg_repo_is_shallow(const mg_repo *repo)
{
	return repo->shallow;
}

/* ---- revisions -------------------------------------------------------- */

/*
 * In a shallow clone, does `rev` fail because it reaches past the shallow
 * boundary?  True when it navigates (~ or ^) from a revision that does
 * resolve, or when it is an object id that the clone lacks.  Worked out
 * here rather than from libgit2's error, whose class and wording vary
 * between versions.
 */
static bool past_shallow_boundary(mg_repo *repo, const char *rev)
{
	git_object *base = NULL;
	size_t n = strcspn(rev, "~^");
	char *prefix;
	bool past = false;

	if (!repo->shallow)
		return false;
	if (rev[n] && n > 0 && rev[n + 1] != '{') {
		prefix = mg_xstrndup(rev, n);
		past = git_revparse_single(&base, repo->git, prefix) == 0;
		git_object_free(base);
		free(prefix);
	} else if (!rev[n] && n >= 4 && strspn(rev, "0123456789abcdefABCDEF") == n) {
		past = true;
	}
	git_error_clear();
	return past;
}

/* Translate a failed git_revparse_single; returns MG_ENOTFOUND or MG_ERROR. */
static int revparse_error(mg_repo *repo, const char *rev, int rc, mg_error *err)
{
	char *msg = mg_xstrdup(git_message());

	if (past_shallow_boundary(repo, rev)) {
		mg_error_set(err, NULL, 0, 0,
			     "revision '%s' is not in this shallow clone (fetch more history, "
			     "e.g. git fetch --deepen=N or fetch-depth: 0)", rev);
		rc = MG_ENOTFOUND;
	} else if (rc == GIT_EAMBIGUOUS) {
		rc = mg_error_set(err, NULL, 0, 0,
				  "ambiguous revision '%s' (give more hex digits)", rev);
	} else if (rc != GIT_ENOTFOUND && rc != GIT_EINVALIDSPEC) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot resolve revision '%s': %s", rev, msg);
	} else {
		if (!strncmp(rev, "HEAD", 4) && git_repository_head_unborn(repo->git) == 1)
			mg_error_set(err, NULL, 0, 0, "unknown revision '%s' (the repository "
				     "has no commits yet)", rev);
		else
			mg_error_set(err, NULL, 0, 0, "unknown revision '%s'", rev);
		rc = MG_ENOTFOUND;
	}
	free(msg);
	return rc;
}

/* The type name of what obj finally points at ("blob", "tree"). */
static const char *peeled_type(git_object *obj)
{
	git_object *target = NULL;
	git_object_t type = git_object_type(obj);

	if (type == GIT_OBJECT_TAG && git_object_peel(&target, obj, GIT_OBJECT_ANY) == 0)
		type = git_object_type(target);
	git_object_free(target);
	return git_object_type2string(type);
}

/* The commit rev resolved to before, into out; false when it was not. */
static bool resolved_before(char out[MG_GIT_OID_HEX], const mg_repo *repo, const char *rev)
{
	size_t i;

	for (i = 0; i < RESOLVED_SLOTS && repo->resolved[i].rev; i++)
		if (!strcmp(repo->resolved[i].rev, rev)) {
			memcpy(out, repo->resolved[i].oid, MG_GIT_OID_HEX);
			return true;
		}
	return false;
}

static void remember_resolved(mg_repo *repo, const char *rev, const char *oid)
{
	size_t k = repo->resolved_next;

	free(repo->resolved[k].rev);
	repo->resolved[k].rev = mg_xstrdup(rev);
	memcpy(repo->resolved[k].oid, oid, MG_GIT_OID_HEX);
	repo->resolved_next = (k + 1) % RESOLVED_SLOTS;
}

int mg_repo_resolve(char out[MG_GIT_OID_HEX], mg_repo *repo, const char *rev,
		    mg_error *err)
{
	git_object *obj = NULL;
	git_object *commit = NULL;
	int rc;

	assert(out && repo && rev);
	out[0] = '\0';
	if (resolved_before(out, repo, rev))
		return 0;
	if ((rc = git_revparse_single(&obj, repo->git, rev)) < 0) {
		rc = revparse_error(repo, rev, rc, err);
		goto done;
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		mg_error_set(err, NULL, 0, 0, "revision '%s' names a %s, not a commit",
			     rev, peeled_type(obj));
		rc = MG_ENOTFOUND;
		goto done;
	}
	git_oid_tostr(out, MG_GIT_OID_HEX, git_object_id(commit));
	remember_resolved(repo, rev, out);
	rc = 0;
done:
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

/* ---- the working tree ------------------------------------------------- */

/* Cut b back to its first len bytes. */
static void buf_truncate(mg_buf *b, size_t len)
{
	if (b->cap) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

/* Look at workdir/path without following any symlink on the way; *prefix
 * gets the length of the leading part that is a symlink (WT_PARENT_SYMLINK). */
static enum wt_kind wt_inspect(struct stat *st, size_t *prefix, const char *workdir,
			       const char *path)
{
	mg_buf full = MG_BUF_INIT;
	enum wt_kind kind = WT_MISSING;
	const char *slash;

	*prefix = 0;
	mg_buf_puts(&full, workdir);
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		buf_truncate(&full, strlen(workdir));
		mg_buf_put(&full, path, (size_t)(slash - path));
		if (lstat(full.ptr, st) < 0 || !(S_ISDIR(st->st_mode) || S_ISLNK(st->st_mode)))
			goto done;
		if (S_ISLNK(st->st_mode)) {
			*prefix = (size_t)(slash - path);
			kind = WT_PARENT_SYMLINK;
			goto done;
		}
	}
	buf_truncate(&full, strlen(workdir));
	mg_buf_puts(&full, path);
	if (lstat(full.ptr, st) < 0)
		goto done;
	kind = S_ISREG(st->st_mode) ? WT_FILE : S_ISLNK(st->st_mode) ? WT_SYMLINK
		: S_ISDIR(st->st_mode) ? WT_DIR : WT_OTHER;
done:
	mg_buf_free(&full);
	return kind;
}

/* Does the working tree have something at path (a hint for "not found")? */
static bool wt_has(mg_repo *repo, const char *path)
{
	const char *workdir = mg_repo_workdir(repo);
	struct stat st;
	size_t prefix;

	return workdir && wt_inspect(&st, &prefix, workdir, path) != WT_MISSING;
}

/* ---- reading a commit's blob ----------------------------------------- */

static int lookup_tree(git_tree **tree, mg_repo *repo, const char *commit_hex,
		       const char *path, mg_error *err)
{
	git_commit *commit = NULL;
	git_oid oid;
	int rc = MG_ERROR;

	if (parse_oid(&oid, commit_hex) < 0) {
		mg_error_set(err, NULL, 0, 0, "cannot read '%s': invalid commit id '%s'",
			     path, commit_hex);
		goto done;
	}
	if (git_commit_lookup(&commit, repo->git, &oid) < 0 ||
	    git_commit_tree(tree, commit) < 0) {
		mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %.*s: %s",
			     path, SHORT_ID_LEN, commit_hex, git_message());
		goto done;
	}
	rc = 0;
done:
	git_commit_free(commit);
	return rc;
}

/* What a tree entry is, for messages; NULL for a regular file. */
static const char *entry_problem(git_filemode_t mode)
{
	switch (mode) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return NULL;
	case GIT_FILEMODE_LINK:
		return "a symlink " REGULAR_ONLY;
	case GIT_FILEMODE_COMMIT:
		return "a submodule";
	case GIT_FILEMODE_TREE:
		return "a directory";
	default:
		return "not a regular file";
	}
}

/* A leading directory of path that is not a directory in the tree: sets
 * *len and returns what it is, or NULL when every leading part is a tree
 * (or missing). */
static const char *bad_parent(size_t *len, git_tree *tree, const char *path)
{
	git_tree_entry *entry = NULL;
	const char *slash, *what = NULL;
	char *prefix;

	for (slash = strchr(path, '/'); slash && !what; slash = strchr(slash + 1, '/')) {
		prefix = mg_xstrndup(path, (size_t)(slash - path));
		if (git_tree_entry_bypath(&entry, tree, prefix) == 0 &&
		    git_tree_entry_filemode(entry) != GIT_FILEMODE_TREE) {
			*len = (size_t)(slash - path);
			what = entry_problem(git_tree_entry_filemode(entry));
			what = what ? what : "a file";
		}
		git_tree_entry_free(entry);
		entry = NULL;
		free(prefix);
	}
	return what;
}

/* Is path in HEAD's tree?  (Then a missing path is not an uncommitted one.) */
static bool head_has(mg_repo *repo, const char *path)
{
	git_object *tree = NULL;
	git_tree_entry *entry = NULL;
	bool has;

	has = git_revparse_single(&tree, repo->git, "HEAD^{tree}") == 0 &&
	      git_tree_entry_bypath(&entry, (git_tree *)tree, path) == 0;
	git_tree_entry_free(entry);
	git_object_free(tree);
	git_error_clear();
	return has;
}

const char *mg_repo_uncommitted_hint(mg_repo *repo, const char *path)
{
	unsigned int flags = 0;
	const char *hint = NULL;

	if (!wt_has(repo, path) || head_has(repo, path))
		return NULL;
	if (git_status_file(&flags, repo->git, path) < 0)
		hint = "it exists in the working tree but is not committed";
	else if (flags & GIT_STATUS_INDEX_NEW)
		hint = "it is staged but not committed: commit it";
	else if (flags & GIT_STATUS_IGNORED)
		hint = "it is untracked and ignored by .gitignore: git add -f it, then commit";
	else if (flags & GIT_STATUS_WT_NEW)
		hint = "it is untracked: git add it, then commit";
	else
		hint = "it exists in the working tree but is not committed";
	git_error_clear();
	return hint;
}

/* Explain why path is not in tree; returns MG_ENOTFOUND or MG_ERROR. */
static int not_found_error(mg_repo *repo, git_tree *tree, const char *path,
			   const char *at, mg_error *err)
{
	size_t len = 0;
	const char *what = bad_parent(&len, tree, path);
	const char *hint;

	if (what)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: '%.*s' is %s",
				    path, at, (int)len, path, what);
	hint = mg_repo_uncommitted_hint(repo, path);
	mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: not found%s%s", path, at,
		     hint ? "; " : "", hint ? hint : "");
	return MG_ENOTFOUND;
}

/* Find path's entry in tree and check that it is a regular file. */
static int find_entry(git_tree_entry **entry, mg_repo *repo, git_tree *tree,
		      const char *path, const char *at, mg_error *err)
{
	const char *what;
	int rc;

	rc = git_tree_entry_bypath(entry, tree, path);
	if (rc == GIT_ENOTFOUND)
		return not_found_error(repo, tree, path, at, err);
	if (rc < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s",
				    path, at, git_message());
	if ((what = entry_problem(git_tree_entry_filemode(*entry))))
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: it is %s",
				    path, at, what);
	return 0;
}

/* The size of object oid, read from its header (without loading it). */
static int blob_size(size_t *size, mg_repo *repo, const git_oid *oid)
{
	git_odb *odb = NULL;
	git_object_t type;
	int rc;

	if ((rc = git_repository_odb(&odb, repo->git)) == 0)
		rc = git_odb_read_header(size, &type, odb, oid);
	git_odb_free(odb);
	return rc;
}

static void free_git_blob(void *blob)
{
	git_blob_free(blob);
}

/* Bytes read from a file, as a blob's data. */
static void take_buf(mg_blob *out, mg_buf *data)
{
	char *p = mg_buf_detach(data, &out->len);

	out->data = p;
	out->owner = p;
	out->owner_free = free;
}

/* A blob of the memo by id: a new handle (the caller frees it), or NULL. */
static git_blob *memo_find(mg_repo *repo, const git_oid *oid)
{
	git_blob *copy = NULL;
	size_t i;

	for (i = 0; i < BLOB_MEMO_SLOTS && repo->memo[i]; i++)
		if (git_oid_equal(git_blob_id(repo->memo[i]), oid)) {
			if (git_blob_dup(&copy, repo->memo[i]) < 0)
				return NULL;
			return copy;
		}
	return NULL;
}

/* Keep a handle on blob in the memo when it is small enough. */
static void memo_keep(mg_repo *repo, git_blob *blob)
{
	git_blob *copy = NULL;

	if ((size_t)git_blob_rawsize(blob) > BLOB_MEMO_MAX || git_blob_dup(&copy, blob) < 0)
		return;
	git_blob_free(repo->memo[repo->memo_next]);
	repo->memo[repo->memo_next] = copy;
	repo->memo_next = (repo->memo_next + 1) % BLOB_MEMO_SLOTS;
}

/* The blob oid, refused when larger than limit: from the memo, else from
 * the object store, its size read from the object's header first (a blob
 * over the limit is refused before a byte of it is inflated: a few MB of
 * zlib can hold gigabytes of zeros). */
static int lookup_blob(git_blob **out, mg_repo *repo, const git_oid *oid,
		       const char *path, const char *at, size_t limit, mg_error *err)
{
	size_t size = 0;

	if ((*out = memo_find(repo, oid))) {
		size = (size_t)git_blob_rawsize(*out);
	} else if (blob_size(&size, repo, oid) < 0) {
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s", path, at,
				    git_message());
	}
	if (size > limit) {
		git_blob_free(*out);
		*out = NULL;
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: blob is %zu bytes, "
				    "more than the limit of %zu " LIMIT_HINT, path, at, size, limit);
	}
	if (*out)
		return 0;
	if (git_blob_lookup(out, repo->git, oid) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: %s", path, at,
				    git_message());
	memo_keep(repo, *out);
	return 0;
}

/* Read the blob of entry into out (its bytes stay where libgit2 holds
 * them), refusing one larger than limit. */
static int read_blob_id(mg_blob *out, mg_repo *repo, const git_oid *oid,
			const char *path, const char *at, size_t limit, mg_error *err)
{
	git_blob *blob = NULL;
	int rc;

	if ((rc = lookup_blob(&blob, repo, oid, path, at, limit, err)) < 0)
		return rc;
	out->len = (size_t)git_blob_rawsize(blob);
	out->data = out->len ? git_blob_rawcontent(blob) : "";
	out->owner = blob;
	out->owner_free = free_git_blob;
	git_oid_tostr(out->oid, sizeof(out->oid), oid);
	return 0;
}

static int read_blob(mg_blob *out, mg_repo *repo, const git_tree_entry *entry,
		     const char *path, const char *at, size_t limit, mg_error *err)
{
	return read_blob_id(out, repo, git_tree_entry_id(entry), path, at, limit, err);
}

int mg_repo_read(mg_blob *blob, mg_repo *repo, const char *commit_hex,
		 const char *path, size_t max_bytes, mg_error *err)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	char at[SHORT_ID_LEN + 1];
	int rc;

	assert(blob && repo && commit_hex && path);
	memset(blob, 0, sizeof(*blob));
	snprintf(at, sizeof(at), "%.7s", commit_hex);
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if ((rc = lookup_tree(&tree, repo, commit_hex, path, err)) < 0)
		goto done;
	if ((rc = find_entry(&entry, repo, tree, path, at, err)) < 0)
		goto done;
	rc = read_blob(blob, repo, entry, path, at, effective_limit(max_bytes), err);
done:
	git_tree_entry_free(entry);
	git_tree_free(tree);
	return rc;
}

/* ---- reading the working tree ----------------------------------------- */

/* Refuse what is not a regular file at workdir/path; 0 when it is one. */
static int wt_check(struct stat *st, const char *workdir, const char *path,
		    mg_error *err)
{
	size_t prefix;

	switch (wt_inspect(st, &prefix, workdir, path)) {
	case WT_FILE:
		return 0;
	case WT_MISSING:
		mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: not found",
			     path);
		return MG_ENOTFOUND;
	case WT_SYMLINK:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is a symlink " REGULAR_ONLY, path);
	case WT_PARENT_SYMLINK:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "'%.*s' is a symlink " REGULAR_ONLY, path, (int)prefix, path);
	case WT_DIR:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is a directory", path);
	default:
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: "
				    "it is not a regular file", path);
	}
}

static int too_big(const char *path, size_t size, size_t limit, mg_error *err)
{
	return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: file is "
			    "%zu bytes, more than the limit of %zu " LIMIT_HINT, path, size, limit);
}

/* Read at most limit bytes of the regular file full into b. */
static int slurp(mg_buf *b, const char *full, const char *path, size_t limit,
		 mg_error *err)
{
	char chunk[65536];
	ssize_t n;
	int fd, rc = 0;

	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working tree: %s",
				    path, strerror(errno));
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = mg_error_set(err, NULL, 0, 0, "cannot read '%s' in the working "
					  "tree: %s", path, strerror(errno));
			break;
		}
		mg_buf_put(b, chunk, (size_t)n);
		if (b->len > limit) {  /* it grew since we looked */
			rc = too_big(path, b->len, limit, err);
			break;
		}
	}
	close(fd);
	return rc;
}

/* The id git would give the working-tree file path (filters applied). */
static int wt_hash(git_oid *oid, mg_repo *repo, const char *path, mg_error *err)
{
	if (git_repository_hashfile(oid, repo->git, path, GIT_OBJECT_BLOB, NULL) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot hash '%s' in the working tree: %s",
				    path, git_message());
	return 0;
}

int mg_repo_read_worktree(mg_blob *blob, mg_repo *repo, const char *path,
			  size_t max_bytes, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	mg_buf full = MG_BUF_INIT, data = MG_BUF_INIT;
	size_t limit = effective_limit(max_bytes);
	struct stat st;
	git_oid oid;
	int rc;

	assert(blob && repo && path);
	memset(blob, 0, sizeof(*blob));
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if (!workdir) {
		rc = mg_error_set(err, NULL, 0, 0, "repository has no working tree");
		goto done;
	}
	if ((rc = wt_check(&st, workdir, path, err)) < 0)
		goto done;
	if ((size_t)st.st_size > limit) {
		rc = too_big(path, (size_t)st.st_size, limit, err);
		goto done;
	}
	mg_buf_printf(&full, "%s%s", workdir, path);
	if ((rc = slurp(&data, full.ptr, path, limit, err)) < 0 ||
	    (rc = wt_hash(&oid, repo, path, err)) < 0)
		goto done;
	git_oid_tostr(blob->oid, sizeof(blob->oid), &oid);
	take_buf(blob, &data);
done:
	mg_buf_free(&full);
	mg_buf_free(&data);
	return rc;
}

/* Same second and nanosecond (a stat time against an index time). */
static bool same_time(const struct timespec *t, const git_index_time *it)
{
	return (int32_t)t->tv_sec == it->seconds && (uint32_t)t->tv_nsec == it->nanoseconds;
}

/*
 * Is the working-tree file (stat data st) blob `want` by the index alone?
 * True when the index's entry for path records that blob and the file's
 * size, times and inode are those the entry recorded when it was added, and
 * the entry is not "racily clean" (changed in the second the index was
 * written): git's own test, so that a 64 MB report is not hashed again on
 * every run.  False means "hash it to know".
 */
static bool wt_clean_by_index(mg_repo *repo, const char *path, const git_oid *want,
			      const struct stat *st)
{
	git_index *index = NULL;
	const git_index_entry *e;
	struct stat ist;
	bool clean = false;

	if (git_repository_index(&index, repo->git) < 0 || !git_index_path(index) ||
	    stat(git_index_path(index), &ist) < 0)
		goto done;
	e = git_index_get_bypath(index, path, 0);
	clean = e && git_oid_equal(&e->id, want) &&
		e->file_size == (uint32_t)st->st_size && e->ino == (uint32_t)st->st_ino &&
		same_time(&st->st_mtim, &e->mtime) && same_time(&st->st_ctim, &e->ctime) &&
		(st->st_mtim.tv_sec < ist.st_mtim.tv_sec ||
		 (st->st_mtim.tv_sec == ist.st_mtim.tv_sec && st->st_mtim.tv_nsec < ist.st_mtim.tv_nsec));
done:
	git_index_free(index);
	git_error_clear();
	return clean;
}

int mg_repo_worktree_differs(bool *differs, mg_repo *repo, const char *path,
			     const char *blob_oid, size_t max_bytes, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	git_oid want, have;
	struct stat st;
	size_t prefix;
	enum wt_kind kind = WT_MISSING;
	int rc;

	assert(differs && repo && path && blob_oid);
	*differs = false;
	if ((rc = mg_path_check(path, err)) < 0)
		goto done;
	if (parse_oid(&want, blob_oid) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "invalid blob id '%s'", blob_oid);
		goto done;
	}
	if (workdir)
		kind = wt_inspect(&st, &prefix, workdir, path);
	/* a symlink or directory where the commit has a file is a change */
	*differs = kind != WT_MISSING && kind != WT_FILE;
	/* Hashing applies the checkout's filters, which may load the whole
	 * file: one larger than the input limit is not hashed, and it cannot
	 * be the committed blob, which is within the limit. */
	if (kind == WT_FILE && (size_t)st.st_size > effective_limit(max_bytes))
		*differs = true;
	else if (kind == WT_FILE && !wt_clean_by_index(repo, path, &want, &st) &&
		 (rc = wt_hash(&have, repo, path, err)) == 0)
		*differs = !git_oid_equal(&want, &have);
done:
	return rc;
}

/* ---- listing and locating ------------------------------------------- */

struct list_ctx {
	bool (*match)(const char *name);
	char **paths;
	size_t count, cap;
};

static int list_entry(const char *root, const git_tree_entry *entry, void *payload)
{
	struct list_ctx *x = payload;
	git_filemode_t mode = git_tree_entry_filemode(entry);
	const char *name = git_tree_entry_name(entry);
	mg_buf path = MG_BUF_INIT;

	if (mode == GIT_FILEMODE_TREE)
		return 0;   /* walk into it */
	if ((mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) || !x->match(name))
		return 0;
	if (x->count == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 8;
		x->paths = mg_xrealloc(x->paths, x->cap * sizeof(*x->paths));
	}
	mg_buf_printf(&path, "%s%s", root, name);
	x->paths[x->count++] = mg_buf_detach(&path, NULL);
	return 0;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int mg_repo_list(char ***paths, size_t *count, mg_repo *repo, const char *commit_hex,
		 bool (*match)(const char *name), mg_error *err)
{
	struct list_ctx x = { match, NULL, 0, 0 };
	git_tree *tree = NULL;
	size_t i;
	int rc;

	assert(paths && count && repo && commit_hex && match);
	*paths = NULL;
	*count = 0;
	if ((rc = lookup_tree(&tree, repo, commit_hex, "the tree", err)) < 0)
		goto done;
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, list_entry, &x) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot list the tree of %.*s: %s",
				  SHORT_ID_LEN, commit_hex, git_message());
		goto done;
	}
	if (x.count > 1)
		qsort(x.paths, x.count, sizeof(*x.paths), path_cmp);
	*paths = x.paths;
	*count = x.count;
	x.paths = NULL;
	x.count = 0;
done:
	for (i = 0; i < x.count; i++)
		free(x.paths[i]);
	free(x.paths);
	git_tree_free(tree);
	return rc;
}

/* ---- a path's versions on a first-parent line ------------------------ */

int mg_repo_read_blob(mg_blob *blob, mg_repo *repo, const char *blob_hex, const char *path,
		      const char *commit_hex, size_t max_bytes, mg_error *err)
{
	char at[SHORT_ID_LEN + 1];
	git_oid oid;

	assert(blob && repo && blob_hex && path && commit_hex);
	memset(blob, 0, sizeof(*blob));
	snprintf(at, sizeof(at), "%.7s", commit_hex);
	if (parse_oid(&oid, blob_hex) < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %s: invalid blob id "
				    "'%s'", path, at, blob_hex);
	return read_blob_id(blob, repo, &oid, path, at, effective_limit(max_bytes), err);
}

/* The blob id of the regular file `path` in commit's tree; false when the
 * tree has no regular file there (absent, a directory, a symlink). */
static bool path_blob(git_oid *id, git_commit *commit, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_filemode_t mode;
	bool found = false;

	if (git_commit_tree(&tree, commit) == 0 &&
	    git_tree_entry_bypath(&entry, tree, path) == 0) {
		mode = git_tree_entry_filemode(entry);
		found = mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE;
		if (found)
			git_oid_cpy(id, git_tree_entry_id(entry));
	}
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_error_clear();
	return found;
}

/* Whether commit's own header names a parent (a shallow clone's boundary
 * does, though the clone lacks it). */
static bool names_parent(const git_commit *commit)
{
	const char *h = git_commit_raw_header(commit);

	return h && (strstr(h, "\nparent ") != NULL || !strncmp(h, "parent ", 7));
}

static void add_version(mg_repo_version **list, size_t *n, const git_oid *commit,
			const git_oid *blob)
{
	*list = mg_xrealloc(*list, (*n + 1) * sizeof(**list));
	git_oid_tostr((*list)[*n].commit, sizeof((*list)[*n].commit), commit);
	git_oid_tostr((*list)[*n].blob, sizeof((*list)[*n].blob), blob);
	(*n)++;
}

/* Start a first-parent walk from commit `hex`.  No sorting: on a
 * first-parent line the walk's order is the line's, and libgit2 then walks
 * lazily (a topological sort would read the whole history before the first
 * commit, past any bound, and stop at a shallow clone's boundary). */
static int start_walk(git_revwalk **walk, mg_repo *repo, const char *hex, mg_error *err)
{
	git_oid oid;

	*walk = NULL;
	if (parse_oid(&oid, hex) < 0)
		return mg_error_set(err, NULL, 0, 0, "invalid commit id '%s'", hex);
	if (git_revwalk_new(walk, repo->git) < 0)
		goto fail;
	/* statements: libgit2 made these two return int in 1.0, and they
	 * cannot fail on a new walk */
	git_revwalk_sorting(*walk, GIT_SORT_NONE);
	git_revwalk_simplify_first_parent(*walk);
	if (git_revwalk_push(*walk, &oid) < 0)
		goto fail;
	return 0;
fail:
	return mg_error_set(err, NULL, 0, 0, "cannot walk the history of %.*s: %s",
			    SHORT_ID_LEN, hex, git_message());
}

int mg_repo_path_versions(mg_repo_version **out, size_t *count, mg_repo_walk *how,
			  mg_repo *repo, const char *from_hex, const char *path,
			  size_t want, size_t max_commits, mg_error *err)
{
	git_revwalk *walk = NULL;
	git_commit *commit = NULL;
	git_oid oid, blob, pend_commit, pend_blob;
	bool pending = false, has, parented = false;
	int rc;

	assert(out && count && how && repo && from_hex && path && max_commits > 0);
	*out = NULL;
	*count = 0;
	memset(how, 0, sizeof(*how));
	memset(&blob, 0, sizeof(blob));
	if ((rc = start_walk(&walk, repo, from_hex, err)) < 0)
		goto done;
	while (*count < want) {
		if ((rc = git_revwalk_next(&oid, walk)) == 0 &&
		    git_commit_lookup(&commit, repo->git, &oid) < 0)
			rc = GIT_ENOTFOUND;
		if (rc < 0) {
			/* the line's first commit, or a shallow clone's boundary:
			 * libgit2 before 1.7 fails on its missing parent, later
			 * ones end there; the boundary's own header still names
			 * a parent */
			how->ended = true;
			how->shallow = repo->shallow && (rc != GIT_ITEROVER || parented);
			git_error_clear();
			if (pending)
				add_version(out, count, &pend_commit, &pend_blob);
			break;
		}
		has = path_blob(&blob, commit, path);
		parented = names_parent(commit);
		git_commit_free(commit);
		commit = NULL;
		/* the pending commit changed the path when its first parent
		 * (this commit) does not hold the same blob */
		if (pending && (!has || !git_oid_equal(&blob, &pend_blob)))
			add_version(out, count, &pend_commit, &pend_blob);
		if (how->visited == max_commits) {
			how->bounded = *count < want;
			break;
		}
		how->visited++;
		pending = has;
		git_oid_cpy(&pend_commit, &oid);
		git_oid_cpy(&pend_blob, &blob);
	}
	rc = 0;
done:
	git_revwalk_free(walk);
	return rc;
}

/* ---- changes between two trees --------------------------------------- */

/* The tree of commit `hex`; MG_ENOTFOUND when the repository lacks it. */
static int commit_tree(git_tree **tree, mg_repo *repo, const char *hex, mg_error *err)
{
	git_commit *commit = NULL;
	git_oid oid;
	int rc = MG_ERROR;

	*tree = NULL;
	if (parse_oid(&oid, hex) < 0) {
		mg_error_set(err, NULL, 0, 0, "invalid commit id '%s'", hex);
		goto done;
	}
	if ((rc = git_commit_lookup(&commit, repo->git, &oid)) < 0) {
		rc = rc == GIT_ENOTFOUND ? MG_ENOTFOUND : MG_ERROR;
		mg_error_set(err, NULL, 0, 0, "commit %.*s is not in this repository%s",
			     SHORT_ID_LEN, hex, repo->shallow ? " (a shallow clone)" : "");
		goto done;
	}
	if (git_commit_tree(tree, commit) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot read the tree of %.*s: %s",
				  SHORT_ID_LEN, hex, git_message());
		goto done;
	}
	rc = 0;
done:
	git_commit_free(commit);
	return rc;
}

/* Add the delta's path(s) to x (the old one too when it differs), keeping
 * the first `max`; *total counts them all. */
static void changed_delta(struct list_ctx *x, size_t *total, size_t max,
			  const git_diff_delta *delta)
{
	const char *names[2];
	size_t i, k = 0;

	names[k++] = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
	if (delta->old_file.path && names[0] && strcmp(delta->old_file.path, names[0]))
		names[k++] = delta->old_file.path;
	for (i = 0; i < k; i++) {
		if (!names[i] || (*total)++ >= max)
			continue;
		if (x->count == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 8;
			x->paths = mg_xrealloc(x->paths, x->cap * sizeof(*x->paths));
		}
		x->paths[x->count++] = mg_xstrdup(names[i]);
	}
}

int mg_repo_changed_paths(char ***paths, size_t *count, size_t *total, mg_repo *repo,
			  const char *from_hex, const char *to_hex,
			  char *const *pathspecs, size_t n, size_t max, mg_error *err)
{
	struct list_ctx x = { NULL, NULL, 0, 0 };
	git_diff_options opts;
	git_tree *from = NULL, *to = NULL;
	git_diff *diff = NULL;
	size_t i, deltas;
	int rc;

	assert(paths && count && total && repo && from_hex && (pathspecs || !n));
	*paths = NULL;
	*count = *total = 0;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if ((rc = commit_tree(&from, repo, from_hex, err)) < 0 ||
	    (to_hex && (rc = commit_tree(&to, repo, to_hex, err)) < 0))
		goto done;
	opts.pathspec.strings = (char **)pathspecs;
	opts.pathspec.count = n;
	if (!to_hex)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
	rc = to_hex ? git_diff_tree_to_tree(&diff, repo->git, from, to, &opts)
		    : git_diff_tree_to_workdir_with_index(&diff, repo->git, from, &opts);
	if (rc < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot compare %.*s with %.*s: %s",
				  SHORT_ID_LEN, from_hex, to_hex ? SHORT_ID_LEN : 16,
				  to_hex ? to_hex : "the working tree",
				  git_message());
		goto done;
	}
	/* deltas come in path order: the first `max` are the first in byte order */
	deltas = git_diff_num_deltas(diff);
	for (i = 0; i < deltas; i++)
		changed_delta(&x, total, max, git_diff_get_delta(diff, i));
	if (x.count > 1)
		qsort(x.paths, x.count, sizeof(*x.paths), path_cmp);
	*paths = x.paths;
	*count = x.count;
	x.paths = NULL;
	x.count = 0;
	rc = 0;
done:
	for (i = 0; i < x.count; i++)
		free(x.paths[i]);
	free(x.paths);
	git_diff_free(diff);
	git_tree_free(from);
	git_tree_free(to);
	return rc;
}

int mg_repo_prefix(char **out, mg_repo *repo, const char *dir, mg_error *err)
{
	const char *workdir = mg_repo_workdir(repo);
	char *real_dir = NULL, *real_top = NULL;
	size_t n;
	int rc = MG_OK;

	assert(out && repo);
	*out = NULL;
	if (!workdir) {
		*out = mg_xstrdup("");
		return MG_OK;
	}
	real_dir = realpath(dir ? dir : ".", NULL);
	real_top = realpath(workdir, NULL);
	if (!real_dir || !real_top) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot resolve '%s': %s", real_dir ? workdir :
				  dir ? dir : ".", strerror(errno));
		goto done;
	}
	n = strlen(real_top);
	if (!strcmp(real_dir, real_top) || strncmp(real_dir, real_top, n) ||
	    (real_dir[n] != '/' && n > 1)) {
		*out = mg_xstrdup("");
	} else {
		mg_buf b = MG_BUF_INIT;

		mg_buf_printf(&b, "%s/", real_dir + n + (n > 1));
		*out = mg_buf_detach(&b, NULL);
	}
	/* The git directory inside the working tree is not a place of it. */
	if (!strcmp(*out, ".git/") || !strncmp(*out, ".git/", 5)) {
		free(*out);
		*out = mg_xstrdup("");
	}
done:
	free(real_dir);
	free(real_top);
	return rc;
}

void mg_blob_release(mg_blob *blob)
{
	if (!blob)
		return;
	if (blob->owner)
		blob->owner_free(blob->owner);
	memset(blob, 0, sizeof(*blob));
}

/* ---- Git LFS pointers --------------------------------------------------- */

/* Read the regular file `full` (opened without following a symlink) into
 * b, refusing more than limit bytes.  MG_ENOTFOUND when it does not exist. */
static int lfs_slurp(mg_buf *b, const char *full, const char *path, size_t limit,
		     mg_error *err)
{
	char chunk[65536];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT) {
			mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' is not in "
				     "the local LFS store", path);
			return MG_ENOTFOUND;
		}
		return mg_error_set(err, NULL, 0, 0, "cannot read the Git LFS object of "
				    "'%s' ('%s'): %s", path, full, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' ('%s') is "
				  "not a regular file", path, full);
		goto done;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = mg_error_set(err, NULL, 0, 0, "cannot read the Git LFS object of "
					  "'%s': %s", path, strerror(errno));
			break;
		}
		mg_buf_put(b, chunk, (size_t)n);
		if (b->len > limit) {
			rc = mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' is "
					  "more than the limit of %zu bytes " LIMIT_HINT,
					  path, limit);
			break;
		}
	}
done:
	close(fd);
	return rc;
}

int mg_repo_read_lfs(mg_blob *blob, mg_repo *repo, const char *lfs_oid,
		     const char *path, size_t max_bytes, mg_error *err)
{
	const char *common;
	mg_buf full = MG_BUF_INIT, data = MG_BUF_INIT;
	int rc;

	assert(blob && repo && lfs_oid && path);
	memset(blob, 0, sizeof(*blob));
	if (strlen(lfs_oid) != 64 || strspn(lfs_oid, "0123456789abcdef") != 64) {
		rc = mg_error_set(err, NULL, 0, 0, "invalid Git LFS oid for '%s'", path);
		goto done;
	}
	common = git_repository_commondir(repo->git);
	if (!common || !*common) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot find the git directory of the "
				  "repository (for the Git LFS object of '%s')", path);
		goto done;
	}
	mg_buf_printf(&full, "%s%slfs/objects/%.2s/%.2s/%s", common,
		      common[strlen(common) - 1] == '/' ? "" : "/", lfs_oid, lfs_oid + 2,
		      lfs_oid);
	if ((rc = lfs_slurp(&data, full.ptr, path, effective_limit(max_bytes), err)) < 0)
		goto done;
	take_buf(blob, &data);
done:
	mg_buf_free(&full);
	mg_buf_free(&data);
	return rc;
}

/* "oid sha256:<64 hex>" from p to end (the line without its newline). */
static bool lfs_oid_line(const char *p, const char *end, char oid[MG_GIT_LFS_OID_HEX])
{
	static const char key[] = "oid sha256:";
	size_t i, klen = sizeof(key) - 1;

	if ((size_t)(end - p) != klen + 64 || memcmp(p, key, klen))
		return false;
	for (i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)p[klen + i]))
			return false;
		oid[i] = (char)tolower((unsigned char)p[klen + i]);
	}
	oid[64] = '\0';
	return true;
}

/* "size <decimal>" from p to end. */
static bool lfs_size_line(const char *p, const char *end, unsigned long long *size)
{
	unsigned long long v = 0;

	if (end - p < 6 || memcmp(p, "size ", 5))
		return false;
	for (p += 5; p < end; p++) {
		if (!isdigit((unsigned char)*p) || v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*size = v;
	return true;
}

/*
 * The git-lfs spec: "key value\n" lines, the first exactly the version line;
 * "oid sha256:<64 hex>" and "size <bytes>" required.  Real pointers are
 * about 130 bytes; anything from 1024 bytes up is taken as content.
 */
bool mg_blob_is_lfs_pointer(const char *data, size_t len, char lfs_oid[MG_GIT_LFS_OID_HEX],
			    unsigned long long *lfs_size)
{
	static const char version[] = "version https://git-lfs.github.com/spec/v1\n";
	const char *p, *nl, *end = data + len;
	bool have_oid = false, have_size = false;
	char oid[MG_GIT_LFS_OID_HEX];
	unsigned long long size = 0;

	if (!data || len >= MG_LFS_MAX_POINTER || len < sizeof(version) - 1 ||
	    memcmp(data, version, sizeof(version) - 1))
		return false;
	for (p = data + sizeof(version) - 1; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return false;
		have_oid = have_oid || lfs_oid_line(p, nl, oid);
		have_size = have_size || lfs_size_line(p, nl, &size);
	}
	if (!have_oid || !have_size)
		return false;
	if (lfs_oid)
		memcpy(lfs_oid, oid, sizeof(oid));
	if (lfs_size)
		*lfs_size = size;
	return true;
}

/* ---- what changed between two commits ---- */

static void add_change(mg_repo_change **list, size_t *n, const git_diff_delta *d)
{
	mg_repo_change *c;

	*list = mg_xrealloc(*list, (*n + 1) * sizeof(**list));
	c = &(*list)[(*n)++];
	c->old_path = d->status == GIT_DELTA_ADDED ? NULL : mg_xstrdup(d->old_file.path);
	c->new_path = d->status == GIT_DELTA_DELETED ? NULL : mg_xstrdup(d->new_file.path);
}

int mg_repo_diff(mg_repo_change **out, size_t *count, mg_repo *repo, const char *from_hex,
		 const char *to_hex, mg_error *err)
{
	git_diff_options opts;
	git_diff_find_options find;
	git_tree *from = NULL, *to = NULL;
	git_diff *diff = NULL;
	mg_repo_change *list = NULL;
	size_t i, n = 0;
	int rc;

	assert(out && count && repo && from_hex && to_hex);
	*out = NULL;
	*count = 0;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	if ((rc = lookup_tree(&from, repo, from_hex, "the tree", err)) < 0 ||
	    (rc = lookup_tree(&to, repo, to_hex, "the tree", err)) < 0)
		goto done;
	/* renames come from libgit2's similarity detection, as git's own */
	find.flags = GIT_DIFF_FIND_RENAMES;
	if (git_diff_tree_to_tree(&diff, repo->git, from, to, &opts) < 0 ||
	    git_diff_find_similar(diff, &find) < 0) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot compare %.*s with %.*s: %s",
				  SHORT_ID_LEN, from_hex, SHORT_ID_LEN, to_hex, git_message());
		goto done;
	}
	for (i = 0; i < git_diff_num_deltas(diff); i++)
		add_change(&list, &n, git_diff_get_delta(diff, i));
	*out = list;
	*count = n;
	list = NULL;
	rc = MG_OK;
done:
	git_diff_free(diff);
	git_tree_free(from);
	git_tree_free(to);
	mg_repo_changes_free(list, n);
	return rc;
}

void mg_repo_changes_free(mg_repo_change *list, size_t count)
{
	size_t i;

	for (i = 0; list && i < count; i++) {
		free(list[i].old_path);
		free(list[i].new_path);
	}
	free(list);
}

int mg_git_hold(mg_error *err)
{
	if (git_libgit2_init() < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot initialize libgit2: %s", git_message());
	return MG_OK;
}

void mg_git_release(void)
{
	git_libgit2_shutdown();
}
