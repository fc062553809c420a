/*
 * The git source layer (see plugin/git/git.h; plugin/git/git_repo.h lists its
 * files): opening the repository, and what the other files share.
 *
 * libgit2's version differences live here only, behind LIBGIT2_VER_*: the
 * other files call the wrappers below where versions differ.
 */
#include <assert.h>
#include <errno.h>
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
#include "git_repo.h"

#define TREE_CACHE_LIMIT ((size_t)1 << 20)   /* trees up to about 30,000 entries */

/* libgit2's last error message, never NULL. */
const char *mg_git__message(void)
{
	const git_error *e = git_error_last();

	return e && e->message && e->message[0] ? e->message : "unknown libgit2 error";
}

/* git_error_clear, from <git2/sys/errors.h> since libgit2 1.8. */
void mg_git__error_clear(void)
{
	git_error_clear();
}

/* Parse a full hex object id; 0, or -1 when it is not 40 hex digits. */
int mg_git__parse_oid(git_oid *oid, const char *hex)
{
	if (strlen(hex) != GIT_OID_HEXSZ)
		return -1;
	return git_oid_fromstrn(oid, hex, GIT_OID_HEXSZ) < 0 ? -1 : 0;
}

size_t mg_git__effective_limit(size_t max_bytes)
{
	return max_bytes ? max_bytes : MG_GIT_DEFAULT_MAX_INPUT;
}

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
	char *msg = mg_xstrdup(mg_git__message());
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
static int refuse_planted(git_repository *git, const char *where, mg_error *err)
{
	const char *gitdir = git_repository_commondir(git);
	mg_buf dir = MG_BUF_INIT, probe = MG_BUF_INIT;
	struct stat st;
	char *slash;
	int rc = 0;

	mg_buf_puts(&dir, gitdir ? gitdir : "");
	while (dir.len > 1 && dir.ptr[dir.len - 1] == '/')
		mg_git__buf_truncate(&dir, dir.len - 1);
	while (dir.len > 1 && (slash = strrchr(dir.ptr, '/'))) {
		mg_git__buf_truncate(&dir, slash == dir.ptr ? 1 : (size_t)(slash - dir.ptr));
		mg_git__buf_truncate(&probe, 0);
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
		return mg_error_set(err, NULL, 0, 0, "cannot initialize libgit2: %s",
				    mg_git__message());
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

/* Cut b back to its first len bytes. */
void mg_git__buf_truncate(mg_buf *b, size_t len)
{
	if (b->cap) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

int mg_git__lookup_tree(git_tree **tree, mg_repo *repo, const char *commit_hex,
			const char *path, mg_error *err)
{
	git_commit *commit = NULL;
	git_oid oid;
	int rc = MG_ERROR;

	if (mg_git__parse_oid(&oid, commit_hex) < 0) {
		mg_error_set(err, NULL, 0, 0, "cannot read '%s': invalid commit id '%s'",
			     path, commit_hex);
		goto done;
	}
	if (git_commit_lookup(&commit, repo->git, &oid) < 0 ||
	    git_commit_tree(tree, commit) < 0) {
		mg_error_set(err, NULL, 0, 0, "cannot read '%s' at %.*s: %s",
			     path, SHORT_ID_LEN, commit_hex, mg_git__message());
		goto done;
	}
	rc = 0;
done:
	git_commit_free(commit);
	return rc;
}

int mg_git_hold(mg_error *err)
{
	if (git_libgit2_init() < 0)
		return mg_error_set(err, NULL, 0, 0, "cannot initialize libgit2: %s",
				    mg_git__message());
	return MG_OK;
}

void mg_git_release(void)
{
	git_libgit2_shutdown();
}
