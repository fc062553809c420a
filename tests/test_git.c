/*
 * The git source layer (plugin/git/git.c and plugin/git/git_*.c).  Every test
 * builds its repositories with the real git CLI (tests/fixture-repo.sh) in
 * a fresh scratch directory, removed afterwards.
 */
#include <criterion/criterion.h>
#include <git2/common.h>  /* git_libgit2_version: the version memgate names */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "git.h"
#include "path.h"

/* The committed report.json at HEAD of the basic fixture, and its blob id
 * (a content hash: independent of commit dates). */
#define REPORT_V2 "{\"version\": 2}\n"
#define REPORT_V2_OID "0ca55ad4fe2a8697f9be5d522c7e1924bea2956e"
#define REPORT_V1 "{\"version\": 1}\n"

static char scratch[256];

static void make_scratch(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/memgate-git-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(scratch), "mkdtemp failed");
}

static void remove_scratch(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (scratch[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch);
}

TestSuite(git, .init = make_scratch, .fini = remove_scratch);

/* Build a fixture of `kind` (see tests/fixture-repo.sh) in the scratch dir. */
static void fixture(const char *kind)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "sh '%s/tests/fixture-repo.sh' %s '%s'",
		 MG_SOURCE_DIR, kind, scratch);
	cr_assert_eq(system(cmd), 0, "fixture-repo.sh %s failed", kind);
}

/* scratch/rel, in a static buffer. */
static const char *in_scratch(const char *rel)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	return path;
}

static void write_file(const char *rel, const char *text)
{
	FILE *f = fopen(in_scratch(rel), "w");

	cr_assert_not_null(f, "cannot write %s", rel);
	fputs(text, f);
	fclose(f);
}

static mg_repo *open_repo(const char *rel)
{
	mg_repo *repo = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_repo_open(&repo, in_scratch(rel), &err), 0, "open: %s", err.message);
	return repo;
}

static void resolve(char id[MG_GIT_OID_HEX], mg_repo *repo, const char *rev)
{
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_repo_resolve(id, repo, rev, &err), 0, "resolve %s: %s", rev, err.message);
}

/* The blob holds exactly `want` (its bytes carry no NUL after them). */
static void expect_bytes(const mg_blob *blob, const char *want)
{
	cr_expect_eq(blob->len, strlen(want));
	cr_expect(blob->len == strlen(want) && !memcmp(blob->data, want, blob->len),
		  "blob holds '%.*s', not '%s'", (int)blob->len, blob->data, want);
}

/* Read path at rev and compare with `want`. */
static void expect_blob(mg_repo *repo, const char *rev, const char *path, const char *want)
{
	char id[MG_GIT_OID_HEX];
	mg_blob blob;
	mg_error err;

	resolve(id, repo, rev);
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_read(&blob, repo, id, path, 0, &err), 0, "%s", err.message);
	expect_bytes(&blob, want);
	mg_blob_release(&blob);
}

/*
 * Read path at rev and expect failure `rc` with `want`, in which "%s"
 * stands for the commit's short id.
 */
static void expect_read_error(mg_repo *repo, const char *rev, const char *path,
			      size_t max, int rc, const char *want)
{
	char id[MG_GIT_OID_HEX], shortid[8], msg[1024];
	mg_blob blob;
	mg_error err;

	resolve(id, repo, rev);
	snprintf(shortid, sizeof(shortid), "%.7s", id);
	snprintf(msg, sizeof(msg), want, shortid);
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_read(&blob, repo, id, path, max, &err), rc, "%s", err.message);
	cr_expect_str_eq(err.message, msg);
	cr_expect_null(blob.data);
}

static void expect_resolve_error(mg_repo *repo, const char *rev, int rc, const char *want)
{
	char id[MG_GIT_OID_HEX];
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_repo_resolve(id, repo, rev, &err), rc, "%s", err.message);
	cr_expect_str_eq(err.message, want);
	cr_expect_str_eq(id, "");
}

static void expect_open_error(const char *dir, const char *want)
{
	mg_repo *repo = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_lt(mg_repo_open(&repo, dir, &err), 0);
	cr_expect_null(repo);
	cr_expect_str_eq(err.message, want);
}

/* ---- reading commits ---------------------------------------------------- */

Test(git, reads_blob_at_head)
{
	char id[MG_GIT_OID_HEX];
	mg_blob blob;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	resolve(id, repo, "HEAD");
	cr_assert_eq(mg_repo_read(&blob, repo, id, "report.json", 0, &err), 0, "%s", err.message);
	expect_bytes(&blob, REPORT_V2);
	cr_expect_eq(blob.len, strlen(REPORT_V2));
	cr_expect_str_eq(blob.oid, REPORT_V2_OID);
	cr_expect_not(mg_repo_is_shallow(repo));
	mg_blob_release(&blob);
	cr_expect_null(blob.data);
	mg_repo_free(repo);
}

Test(git, reads_older_commit_by_parent_tag_branch_and_ids)
{
	char id[MG_GIT_OID_HEX], shortid[8];
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_blob(repo, "HEAD~1", "report.json", REPORT_V1);
	expect_blob(repo, "v1", "report.json", REPORT_V1);
	expect_blob(repo, "old", "report.json", REPORT_V1);
	resolve(id, repo, "HEAD~1");
	expect_blob(repo, id, "report.json", REPORT_V1);
	snprintf(shortid, sizeof(shortid), "%.7s", id);
	expect_blob(repo, shortid, "report.json", REPORT_V1);
	expect_blob(repo, "main", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, resolves_annotated_tag_to_its_commit)
{
	char tag[MG_GIT_OID_HEX], parent[MG_GIT_OID_HEX];
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	resolve(tag, repo, "v1");
	resolve(parent, repo, "HEAD~1");
	cr_expect_str_eq(tag, parent);
	cr_expect_eq(strlen(tag), 40);
	mg_repo_free(repo);
}

Test(git, reads_at_detached_head)
{
	mg_repo *repo;

	fixture("detached");
	repo = open_repo("repo");
	expect_blob(repo, "HEAD", "report.json", REPORT_V1);
	expect_blob(repo, "main", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, reads_nested_and_executable_files)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_blob(repo, "HEAD", "dir/deep/file.txt", "deep\n");
	expect_blob(repo, "HEAD", "run.sh", "#!/bin/sh\necho run\n");
	mg_repo_free(repo);
}

/* ---- repository layouts ------------------------------------------------- */

Test(git, discovers_repository_from_subdirectory)
{
	char want[512];
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo/dir/deep");
	snprintf(want, sizeof(want), "%s/repo/", scratch);
	cr_expect_str_eq(mg_repo_workdir(repo), want);
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, opens_current_directory_when_dir_is_null)
{
	mg_repo *repo = NULL;
	mg_error err;

	fixture("basic");
	cr_assert_eq(chdir(in_scratch("repo/dir")), 0);
	cr_assert_eq(mg_repo_open(&repo, NULL, &err), 0, "%s", err.message);
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, reads_linked_worktree_own_head)
{
	char want[512];
	mg_repo *repo;

	fixture("worktree");
	repo = open_repo("wt");
	snprintf(want, sizeof(want), "%s/wt/", scratch);
	cr_expect_str_eq(mg_repo_workdir(repo), want);
	expect_blob(repo, "HEAD", "report.json", "{\"version\": 3}\n");
	expect_blob(repo, "main", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, reads_bare_clone_without_working_tree)
{
	mg_repo *repo;
	mg_blob blob;
	mg_error err;
	bool differs = true;

	fixture("bare");
	repo = open_repo("bare.git");
	cr_expect_null(mg_repo_workdir(repo));
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	expect_blob(repo, "v1", "report.json", REPORT_V1);
	cr_expect_eq(mg_repo_read_worktree(&blob, repo, "report.json", 0, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "repository has no working tree");
	cr_expect_eq(mg_repo_worktree_differs(&differs, repo, "report.json", REPORT_V2_OID, 0,
					      &err), 0);
	cr_expect_not(differs);
	mg_repo_free(repo);
}

/* A bare repository committed as plain files under ml/ of a checkout is
 * refused, from ml/ itself, from below it and by -C; the checkout opens. */
Test(git, refuses_repository_planted_in_a_working_tree)
{
	const char *starts[] = { "host/ml", "host/ml/refs", "host/ml/objects" };
	mg_repo *repo = NULL;
	mg_error err;
	char want[1024];
	size_t i;

	fixture("planted");
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		mg_error_clear(&err);
		cr_expect_eq(mg_repo_open(&repo, in_scratch(starts[i]), &err), MG_ERROR,
			     "%s opened", starts[i]);
		cr_expect_null(repo);
		snprintf(want, sizeof(want), "refusing repository '%s/%s': its git directory "
			 "'%s/host/ml/' lies inside the working tree of '%s/host', where any "
			 "commit can plant one (run memgate at the checkout's top level)",
			 scratch, starts[i], scratch, scratch);
		cr_expect_str_eq(err.message, want);
	}
	repo = open_repo("host");
	snprintf(want, sizeof(want), "%s/host/", scratch);
	cr_expect_str_eq(mg_repo_workdir(repo), want);
	mg_repo_free(repo);
	/* the same bare repository outside any working tree opens */
	repo = open_repo("bare.git");
	mg_repo_free(repo);
}

Test(git, reads_shallow_head_and_explains_missing_history)
{
	mg_repo *repo;

	fixture("shallow");
	repo = open_repo("shallow");
	cr_expect(mg_repo_is_shallow(repo));
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	expect_resolve_error(repo, "HEAD~1", MG_ENOTFOUND,
			     "revision 'HEAD~1' is not in this shallow clone (fetch more "
			     "history, e.g. git fetch --deepen=N or fetch-depth: 0)");
	expect_resolve_error(repo, "nope", MG_ENOTFOUND, "unknown revision 'nope'");
	mg_repo_free(repo);
}

/* The versions of report.json from HEAD: their commits, oldest last. */
static size_t versions(mg_repo_version **list, mg_repo_walk *how, mg_repo *repo)
{
	char head[MG_GIT_OID_HEX];
	mg_error err;
	size_t n = 0;

	resolve(head, repo, "HEAD");
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_path_versions(list, &n, how, repo, head, "report.json", 10, 100,
					   &err), 0, "walk: %s", err.message);
	return n;
}

/* At a shallow boundary whether the last commit read changed the path is
 * not known (its parent is not there): it is no version, whichever libgit2
 * (before 1.7 the walk fails on the boundary, later ones return it). */
Test(git, path_versions_count_no_version_at_a_shallow_boundary)
{
	mg_repo_version *list = NULL;
	mg_repo_walk how;
	mg_repo *repo;
	char id[MG_GIT_OID_HEX];
	size_t n;

	fixture("shallow-history");
	repo = open_repo("history");
	n = versions(&list, &how, repo);
	cr_expect_eq(n, 2, "a full clone: the two commits that changed the report");
	cr_expect(how.ended && !how.shallow);
	resolve(id, repo, "HEAD~2");
	cr_expect(n == 2 && !strcmp(list[0].commit, id), "newest: the second report");
	free(list);
	mg_repo_free(repo);

	repo = open_repo("history-2");
	cr_expect(mg_repo_is_shallow(repo));
	n = versions(&list, &how, repo);
	cr_expect_eq(n, 0, "a depth-2 clone holds notes commits only, found %zu", n);
	cr_expect(how.ended && how.shallow);
	free(list);
	mg_repo_free(repo);
}

/* Whether a commit descends from another: yes, no, and "cannot tell" in
 * a shallow clone that lacks the commits between them (history-2 holds
 * the two notes commits; the reports' commits are past its boundary). */
Test(git, descends_yes_no_and_unknown_in_a_shallow_clone)
{
	char head[MG_GIT_OID_HEX], old[MG_GIT_OID_HEX];
	mg_error err;
	mg_repo *repo;
	bool yes;

	fixture("shallow-history");
	repo = open_repo("history");
	resolve(head, repo, "HEAD");
	resolve(old, repo, "HEAD~3");
	mg_error_clear(&err);
	cr_expect_eq(mg_repo_descends(&yes, repo, head, old, &err), 0, "%s", err.message);
	cr_expect(yes, "HEAD descends from HEAD~3");
	cr_expect_eq(mg_repo_descends(&yes, repo, old, head, &err), 0, "%s", err.message);
	cr_expect(!yes, "HEAD~3 does not descend from HEAD");
	cr_expect_eq(mg_repo_descends(&yes, repo, head, head, &err), 0);
	cr_expect(yes, "a commit is its own descendant");
	mg_repo_free(repo);

	repo = open_repo("history-2");
	mg_error_clear(&err);
	cr_expect_eq(mg_repo_descends(&yes, repo, head, old, &err), MG_ENOTFOUND);
	cr_expect(!yes);
	cr_expect(strstr(err.message, "the repository lacks commits between them (a shallow "
				      "clone)"), "message: %s", err.message);
	mg_repo_free(repo);
}

Test(git, refuses_sha256_repository)
{
	char want[512];
	int major, minor, rev;

	fixture("sha256");
	git_libgit2_version(&major, &minor, &rev);
	snprintf(want, sizeof(want), "repository '%s/sha256' uses the SHA-256 object format, "
		 "which memgate cannot read (linked with libgit2 %d.%d.%d)", scratch,
		 major, minor, rev);
	expect_open_error(in_scratch("sha256"), want);
}

Test(git, opens_repository_owned_by_another_user)
{
	mg_repo *repo;

	if (geteuid() != 0)
		cr_skip_test("needs root to chown the fixture to nobody");
	fixture("owned");
	repo = open_repo("owned");
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, reports_directory_that_is_not_a_repository)
{
	char want[512];

	snprintf(want, sizeof(want), "not a git repository: '%s'", scratch);
	expect_open_error(scratch, want);
}

Test(git, reports_missing_directory)
{
	char dir[512], want[2048];

	snprintf(dir, sizeof(dir), "%s/nope", scratch);
	snprintf(want, sizeof(want), "not a git repository: '%s': No such file or directory",
		 dir);
	expect_open_error(dir, want);
}

/* ---- revisions ---------------------------------------------------------- */

Test(git, reports_unknown_revision)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_resolve_error(repo, "nope", MG_ENOTFOUND, "unknown revision 'nope'");
	expect_resolve_error(repo, "HEAD~5", MG_ENOTFOUND, "unknown revision 'HEAD~5'");
	expect_resolve_error(repo, "0000000000000000000000000000000000000000", MG_ENOTFOUND,
			     "unknown revision '0000000000000000000000000000000000000000'");
	mg_repo_free(repo);
}

Test(git, refuses_revision_that_names_a_blob_or_tree)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_resolve_error(repo, "HEAD:report.json", MG_ENOTFOUND,
			     "revision 'HEAD:report.json' names a blob, not a commit");
	expect_resolve_error(repo, "v1^{tree}", MG_ENOTFOUND,
			     "revision 'v1^{tree}' names a tree, not a commit");
	mg_repo_free(repo);
}

Test(git, explains_head_of_repository_without_commits)
{
	mg_repo *repo;

	fixture("empty");
	repo = open_repo("empty");
	expect_resolve_error(repo, "HEAD", MG_ENOTFOUND,
			     "unknown revision 'HEAD' (the repository has no commits yet)");
	mg_repo_free(repo);
}

/* ---- refusals ----------------------------------------------------------- */

Test(git, refuses_symlink_submodule_and_directory)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "link.json", 0, MG_ERROR, "cannot read 'link.json' at %s: "
			  "it is a symlink (memgate reads regular files only)");
	expect_read_error(repo, "HEAD", "sub", 0, MG_ERROR,
			  "cannot read 'sub' at %s: it is a submodule");
	expect_read_error(repo, "HEAD", "dir/deep", 0, MG_ERROR,
			  "cannot read 'dir/deep' at %s: it is a directory");
	mg_repo_free(repo);
}

Test(git, refuses_path_through_submodule_symlink_or_file)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "sub/report.json", 0, MG_ERROR,
			  "cannot read 'sub/report.json' at %s: 'sub' is a submodule");
	expect_read_error(repo, "HEAD", "link.json/x", 0, MG_ERROR, "cannot read 'link.json/x' "
			  "at %s: 'link.json' is a symlink (memgate reads regular files only)");
	expect_read_error(repo, "HEAD", "run.sh/x", 0, MG_ERROR,
			  "cannot read 'run.sh/x' at %s: 'run.sh' is a file");
	mg_repo_free(repo);
}

Test(git, reports_path_missing_at_commit)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "missing.json", 0, MG_ENOTFOUND,
			  "cannot read 'missing.json' at %s: not found");
	expect_read_error(repo, "HEAD", "dir/missing.json", 0, MG_ENOTFOUND,
			  "cannot read 'dir/missing.json' at %s: not found");
	/* in the working tree, but committed later: not an uncommitted file */
	expect_read_error(repo, "v1", "link.json", 0, MG_ENOTFOUND,
			  "cannot read 'link.json' at %s: not found");
	mg_repo_free(repo);
}

Test(git, says_when_missing_path_exists_in_working_tree)
{
	mg_repo *repo;

	fixture("basic");
	write_file("repo/new.json", "{}\n");
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "new.json", 0, MG_ENOTFOUND,
			  "cannot read 'new.json' at %s: not found; it is untracked: "
			  "git add it, then commit");
	mg_repo_free(repo);
}

Test(git, says_when_missing_path_is_staged_or_ignored)
{
	char cmd[1024];
	mg_repo *repo;

	fixture("basic");
	write_file("repo/new.json", "{}\n");
	write_file("repo/.gitignore", "ignored.json\n");
	write_file("repo/ignored.json", "{}\n");
	snprintf(cmd, sizeof(cmd), "git -C '%s' add new.json", in_scratch("repo"));
	cr_assert_eq(system(cmd), 0);
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "new.json", 0, MG_ENOTFOUND,
			  "cannot read 'new.json' at %s: not found; it is staged but not "
			  "committed: commit it");
	expect_read_error(repo, "HEAD", "ignored.json", 0, MG_ENOTFOUND,
			  "cannot read 'ignored.json' at %s: not found; it is untracked and "
			  "ignored by .gitignore: git add -f it, then commit");
	mg_repo_free(repo);
}

Test(git, refuses_blob_over_the_size_limit)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	expect_read_error(repo, "HEAD", "report.json", 14, MG_ERROR,
			  "cannot read 'report.json' at %s: blob is 15 bytes, more than the "
			  "limit of 14 (raise it with --max-input-mb)");
	expect_blob(repo, "HEAD", "report.json", REPORT_V2);
	mg_repo_free(repo);
}

Test(git, reads_blob_exactly_at_the_size_limit)
{
	char id[MG_GIT_OID_HEX];
	mg_blob blob;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	resolve(id, repo, "HEAD");
	cr_assert_eq(mg_repo_read(&blob, repo, id, "report.json", 15, &err), 0, "%s", err.message);
	expect_bytes(&blob, REPORT_V2);
	mg_blob_release(&blob);
	mg_repo_free(repo);
}

Test(git, applies_path_rules_before_reading)
{
	static const char *bad[] = { "/report.json", "../report.json", "./report.json",
				     "dir/../report.json", "dir//deep/file.txt" };
	char id[MG_GIT_OID_HEX];
	mg_error want, err;
	mg_blob blob;
	mg_repo *repo;
	size_t i;

	fixture("basic");
	repo = open_repo("repo");
	resolve(id, repo, "HEAD");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mg_error_clear(&want);
		mg_error_clear(&err);
		cr_assert_lt(mg_path_check(bad[i], &want), 0, "%s", bad[i]);
		cr_expect_eq(mg_repo_read(&blob, repo, id, bad[i], 0, &err), MG_ERROR, "%s", bad[i]);
		cr_expect_str_eq(err.message, want.message);
		cr_expect_null(blob.data);
		cr_expect_eq(mg_repo_read_worktree(&blob, repo, bad[i], 0, &err), MG_ERROR);
		cr_expect_str_eq(err.message, want.message);
	}
	mg_repo_free(repo);
}

/* ---- Git LFS pointers --------------------------------------------------- */

#define LFS_OID "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
#define LFS_VERSION "version https://git-lfs.github.com/spec/v1\n"

Test(git, detects_committed_lfs_pointer)
{
	char id[MG_GIT_OID_HEX], oid[MG_GIT_LFS_OID_HEX];
	unsigned long long size = 0;
	mg_blob blob;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	resolve(id, repo, "HEAD");
	cr_assert_eq(mg_repo_read(&blob, repo, id, "big.bin", 0, &err), 0, "%s", err.message);
	cr_expect(mg_blob_is_lfs_pointer(blob.data, blob.len, oid, &size));
	cr_expect_str_eq(oid, LFS_OID);
	cr_expect_eq(size, 12345);
	mg_blob_release(&blob);
	cr_assert_eq(mg_repo_read(&blob, repo, id, "report.json", 0, &err), 0, "%s", err.message);
	cr_expect_not(mg_blob_is_lfs_pointer(blob.data, blob.len, oid, &size));
	mg_blob_release(&blob);
	mg_repo_free(repo);
}

static bool is_lfs(const char *text)
{
	char oid[MG_GIT_LFS_OID_HEX];
	unsigned long long size;

	return mg_blob_is_lfs_pointer(text, strlen(text), oid, &size);
}

Test(git, accepts_lfs_pointer_with_extra_keys)
{
	cr_expect(is_lfs(LFS_VERSION "ext-0-foo sha256:" LFS_OID "\noid sha256:" LFS_OID
			 "\nsize 0\n"));
}

Test(git, rejects_near_miss_lfs_pointers)
{
	cr_expect_not(is_lfs(""));
	cr_expect_not(is_lfs("version https://git-lfs.github.com/spec/v2\noid sha256:" LFS_OID
			     "\nsize 1\n"));
	cr_expect_not(is_lfs(LFS_VERSION "oid sha256:" LFS_OID "\n"));
	cr_expect_not(is_lfs(LFS_VERSION "size 1\n"));
	cr_expect_not(is_lfs(LFS_VERSION "oid sha256:4d7a\nsize 1\n"));
	cr_expect_not(is_lfs(LFS_VERSION "oid sha256:" LFS_OID "\nsize 12x\n"));
	cr_expect_not(is_lfs(LFS_VERSION "oid sha256:" LFS_OID "\nsize 1"));
	cr_expect_not(is_lfs("{\"version\": \"" LFS_VERSION "\"}\n"));
}

Test(git, treats_large_blob_as_content_not_pointer)
{
	char text[1100];
	int n;

	n = snprintf(text, sizeof(text), LFS_VERSION "oid sha256:" LFS_OID "\nsize 1\n");
	memset(text + n, 'x', sizeof(text) - 1 - (size_t)n);
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	cr_expect_not(is_lfs(text));
}

/* ---- the working tree --------------------------------------------------- */

Test(git, reads_working_tree_file_with_its_blob_id)
{
	mg_blob blob;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	cr_assert_eq(mg_repo_read_worktree(&blob, repo, "report.json", 0, &err), 0, "%s",
		     err.message);
	expect_bytes(&blob, REPORT_V2);
	cr_expect_str_eq(blob.oid, REPORT_V2_OID);
	mg_blob_release(&blob);
	write_file("repo/report.json", "{\"version\": 9}\n");
	cr_assert_eq(mg_repo_read_worktree(&blob, repo, "report.json", 0, &err), 0, "%s",
		     err.message);
	expect_bytes(&blob, "{\"version\": 9}\n");
	cr_expect_str_neq(blob.oid, REPORT_V2_OID);
	mg_blob_release(&blob);
	mg_repo_free(repo);
}

static void expect_worktree_error(mg_repo *repo, const char *path, size_t max, int rc,
				  const char *want)
{
	mg_blob blob;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_repo_read_worktree(&blob, repo, path, max, &err), rc, "%s", err.message);
	cr_expect_str_eq(err.message, want);
	cr_expect_null(blob.data);
}

Test(git, refuses_working_tree_symlink_directory_missing_and_oversize)
{
	mg_repo *repo;

	fixture("basic");
	cr_assert_eq(symlink("dir", in_scratch("repo/linkdir")), 0);
	repo = open_repo("repo");
	expect_worktree_error(repo, "link.json", 0, MG_ERROR, "cannot read 'link.json' in the "
			      "working tree: it is a symlink (memgate reads regular files only)");
	expect_worktree_error(repo, "linkdir/deep/file.txt", 0, MG_ERROR,
			      "cannot read 'linkdir/deep/file.txt' in the working tree: "
			      "'linkdir' is a symlink (memgate reads regular files only)");
	expect_worktree_error(repo, "dir", 0, MG_ERROR,
			      "cannot read 'dir' in the working tree: it is a directory");
	expect_worktree_error(repo, "missing.json", 0, MG_ENOTFOUND,
			      "cannot read 'missing.json' in the working tree: not found");
	expect_worktree_error(repo, "report.json/x", 0, MG_ENOTFOUND,
			      "cannot read 'report.json/x' in the working tree: not found");
	expect_worktree_error(repo, "report.json", 14, MG_ERROR,
			      "cannot read 'report.json' in the working tree: file is 15 bytes, "
			      "more than the limit of 14 (raise it with --max-input-mb)");
	mg_repo_free(repo);
}

/* An LFS object in the local store: read whole, refused over the limit, as
 * a directory, or when the store lacks it (the check then says so). */
Test(git, reads_lfs_objects_from_the_local_store_within_the_limit)
{
	static const char *const dirs[] = {
		"repo/.git/lfs", "repo/.git/lfs/objects", "repo/.git/lfs/objects/4d",
		"repo/.git/lfs/objects/4d/7a",
	};
	const char *object = "repo/.git/lfs/objects/4d/7a/" LFS_OID;
	mg_repo *repo;
	mg_blob blob;
	mg_error err;
	size_t i;

	fixture("basic");
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert_eq(mkdir(in_scratch(dirs[i]), 0755), 0, "%s", dirs[i]);
	write_file(object, "fifteen bytes.\n");
	repo = open_repo("repo");
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_read_lfs(&blob, repo, LFS_OID, "r.json", 0, &err), 0, "%s",
		     err.message);
	expect_bytes(&blob, "fifteen bytes.\n");
	mg_blob_release(&blob);
	cr_expect_eq(mg_repo_read_lfs(&blob, repo, LFS_OID, "r.json", 14, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "the Git LFS object of 'r.json' is more than the limit of "
			 "14 bytes (raise it with --max-input-mb)");
	cr_expect_null(blob.data);
	cr_assert_eq(unlink(in_scratch(object)), 0);
	cr_expect_eq(mg_repo_read_lfs(&blob, repo, LFS_OID, "r.json", 0, &err), MG_ENOTFOUND);
	cr_expect_str_eq(err.message, "the Git LFS object of 'r.json' is not in the local LFS "
			 "store");
	cr_assert_eq(mkdir(in_scratch(object), 0755), 0);
	cr_expect_eq(mg_repo_read_lfs(&blob, repo, LFS_OID, "r.json", 0, &err), MG_ERROR);
	cr_expect(strstr(err.message, "is not a regular file") != NULL, "%s", err.message);
	mg_repo_free(repo);
}

static bool differs(mg_repo *repo, const char *path, const char *oid)
{
	bool d = false;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_repo_worktree_differs(&d, repo, path, oid, 0, &err), 0, "%s", err.message);
	return d;
}

Test(git, tells_edited_working_tree_file_from_clean_one)
{
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	cr_expect_not(differs(repo, "report.json", REPORT_V2_OID));
	write_file("repo/report.json", "{\"version\": 9}\n");
	cr_expect(differs(repo, "report.json", REPORT_V2_OID));
	cr_expect_not(differs(repo, "gone.json", REPORT_V2_OID));
	cr_expect(differs(repo, "dir", REPORT_V2_OID));
	mg_repo_free(repo);
}

Test(git, compares_working_tree_with_older_blob)
{
	char id[MG_GIT_OID_HEX];
	mg_blob old;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	resolve(id, repo, "v1");
	cr_assert_eq(mg_repo_read(&old, repo, id, "report.json", 0, &err), 0, "%s", err.message);
	cr_expect(differs(repo, "report.json", old.oid));
	write_file("repo/report.json", REPORT_V1);
	cr_expect_not(differs(repo, "report.json", old.oid));
	mg_blob_release(&old);
	mg_repo_free(repo);
}

Test(git, rejects_invalid_blob_id_for_comparison)
{
	bool d = true;
	mg_error err;
	mg_repo *repo;

	fixture("basic");
	repo = open_repo("repo");
	cr_expect_eq(mg_repo_worktree_differs(&d, repo, "report.json", "0ca55ad", 0, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "invalid blob id '0ca55ad'");
	mg_repo_free(repo);
}

/* Run a shell command in the scratch directory. */
static void in_scratch_sh(const char *script)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", scratch, script);
	cr_assert_eq(system(cmd), 0, "failed: %s", script);
}

#define GIT "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false "

/* The paths of `entry` changed between HEAD~1 and HEAD, joined by ' '. */
static void expect_changed(mg_repo *repo, const char *entry, const char *want)
{
	char from[MG_GIT_OID_HEX], to[MG_GIT_OID_HEX], got[512] = "";
	char *spec[1] = { (char *)entry }, **paths = NULL;
	size_t count = 0, total = 0, i;
	mg_error err;

	resolve(from, repo, "HEAD~1");
	resolve(to, repo, "HEAD");
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_changed_paths(&paths, &count, &total, repo, from, to, spec, 1, 100,
					   &err), 0, "%s", err.message);
	for (i = 0; i < count; i++) {
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "",
			 paths[i]);
		free(paths[i]);
	}
	free(paths);
	cr_expect_str_eq(got, want, "for '%s'", entry);
}

/* git reads an entry with glob characters literally too: 'q?' is the
 * directory named 'q?', and '[ab]/' read as the start of the entry leaves
 * '*.py' to match the names in it (memgate(1), STALE EVIDENCE). */
Test(git, matches_evidence_inputs_as_git_diff_does)
{
	mg_repo *repo;

	in_scratch_sh(GIT "init -q r && cd r && mkdir 'q?' src 'src/[ab]' && "
		      "echo 1 >'q?/a' && echo 1 >qx && echo 1 >src/x.py && echo 1 >'src/[ab]/y.py' && "
		      GIT "add -A && " GIT "commit -qm a && "
		      "echo 2 >'q?/a' && echo 2 >qx && echo 2 >src/x.py && echo 2 >'src/[ab]/y.py' && "
		      GIT "commit -qam b");
	repo = open_repo("r");
	expect_changed(repo, "q?", "q?/a qx");
	expect_changed(repo, "src/[ab]/*.py", "src/[ab]/y.py");
	expect_changed(repo, "src/*.py", "src/[ab]/y.py src/x.py");
	expect_changed(repo, "src", "src/[ab]/y.py src/x.py");
	expect_changed(repo, "src/x", "");
	mg_repo_free(repo);
}

Test(git, finds_evidence_inputs_that_match_nothing_at_either_commit)
{
	char from[MG_GIT_OID_HEX], to[MG_GIT_OID_HEX];
	char *specs[] = { "src/modle/**", "src/model", "src/new.py", "src/old.py" };
	size_t *which = NULL, count = 0;
	mg_repo *repo;
	mg_error err;

	in_scratch_sh(GIT "init -q r && cd r && mkdir -p src/model && echo 1 >src/model/a.py && "
		      "echo 1 >src/old.py && " GIT "add -A && " GIT "commit -qm a && "
		      GIT "rm -q src/old.py && echo 1 >src/new.py && " GIT "add -A && "
		      GIT "commit -qm b");
	repo = open_repo("r");
	resolve(from, repo, "HEAD~1");
	resolve(to, repo, "HEAD");
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_unmatched_inputs(&which, &count, repo, from, to, specs, 4, &err), 0,
		     "%s", err.message);
	cr_expect_eq(count, 1);
	cr_expect(count && which[0] == 0, "the typo, and only it, matches nothing");
	free(which);
	mg_repo_free(repo);
}
