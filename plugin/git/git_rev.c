/*
 * Resolving a revision (branch, tag, id, HEAD~2, ...) to a commit, and
 * saying why one does not resolve (see plugin/git/git.h, mg_repo_resolve).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "git_repo.h"

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
	mg_git__error_clear();
	return past;
}

/* Translate a failed git_revparse_single; returns MG_ENOTFOUND or MG_ERROR. */
static int revparse_error(mg_repo *repo, const char *rev, int rc, mg_error *err)
{
	char *msg = mg_xstrdup(mg_git__message());

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

/* A commit more than a day older than the ancestor cannot descend from it,
 * unless clocks lie: the walk stops there (a lie only refuses, never
 * accepts: "yes" needs the ancestor itself on the walk). */
#define DESCENT_SLACK_SECONDS 86400

int mg_repo_descends(bool *yes, mg_repo *repo, const char *commit_hex, const char *ancestor_hex,
		     mg_error *err)
{
	git_oid commit, ancestor, oid;
	git_commit *c = NULL;
	git_revwalk *walk = NULL;
	git_time_t oldest;
	bool past = false;
	int rc;

	assert(yes && repo && commit_hex && ancestor_hex);
	*yes = false;
	if (mg_git__parse_oid(&commit, commit_hex) < 0 ||
	    mg_git__parse_oid(&ancestor, ancestor_hex) < 0)
		return mg_error_set(err, NULL, 0, 0, "invalid commit id '%s' or '%s'", commit_hex,
				    ancestor_hex);
	if (git_oid_equal(&commit, &ancestor)) {
		*yes = true;
		return 0;
	}
	/* newest first, lazily: the walk stops at the ancestor or past its time */
	if ((rc = git_commit_lookup(&c, repo->git, &ancestor)) < 0 ||
	    (rc = git_revwalk_new(&walk, repo->git)) < 0)
		goto done;
	oldest = git_commit_time(c) - DESCENT_SLACK_SECONDS;
	git_revwalk_sorting(walk, GIT_SORT_TIME);
	if ((rc = git_revwalk_push(walk, &commit)) < 0)
		goto done;
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		git_commit_free(c);
		c = NULL;
		if (git_oid_equal(&oid, &ancestor)) {
			*yes = true;
			break;
		}
		if ((rc = git_commit_lookup(&c, repo->git, &oid)) < 0)
			break;
		if (git_commit_time(c) < oldest) {
			past = true;   /* every commit left is older: a "no" */
			break;
		}
	}
done:
	git_commit_free(c);
	git_revwalk_free(walk);
	mg_git__error_clear();
	if (*yes || past)
		return 0;
	/* an error is a commit the walk needs and the repository lacks (a
	 * shallow clone, never fetched); the end of the walk in a shallow
	 * clone may be its boundary (libgit2 1.7 and later stop there) */
	if (rc != GIT_ITEROVER || repo->shallow) {
		mg_error_set(err, NULL, 0, 0, "cannot tell whether %.*s descends from %.*s: the "
			     "repository lacks commits between them%s", SHORT_ID_LEN, commit_hex,
			     SHORT_ID_LEN, ancestor_hex, repo->shallow ? " (a shallow clone)" : "");
		return MG_ENOTFOUND;
	}
	return 0;
}
