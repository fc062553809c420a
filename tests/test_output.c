/*
 * Output files, one transaction per run: include/memgate/output.h.  Each
 * test works in a scratch directory of its own (Criterion runs every test
 * in a child process, so chdir and resource limits stay in the test).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "memgate/output.h"

static char scratch[64];

static void enter_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/memgate-output.XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
	cr_assert_eq(chdir(scratch), 0);
}

/* Remove the scratch directory's files and the directory itself. */
static void leave_scratch(void)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name);
			if (unlink(path) < 0)
				rmdir(path);
		}
	closedir(d);
	rmdir(scratch);
}

TestSuite(output, .init = enter_scratch, .fini = leave_scratch);

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot create %s", path);
	fputs(text, f);
	fclose(f);
}

/* The file's content, "" when it is absent (the caller frees). */
static char *content(const char *path)
{
	char full[512];
	size_t len;

	if (access(path, F_OK) != 0)
		return mg_xstrdup("");
	snprintf(full, sizeof(full), "%s/%s", scratch, path);
	return mg_test_read(full, &len);
}

#define expect_content(path, want) do { \
	char *got_ = content(path); \
	cr_expect_str_eq(got_, want, "%s", path); \
	free(got_); \
} while (0)

/* The scratch directory's entries, sorted, space-separated. */
static char *listing(void)
{
	struct dirent **names;
	mg_buf b = MG_BUF_INIT;
	int n, i;

	n = scandir(".", &names, NULL, alphasort);
	cr_assert_geq(n, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			mg_buf_printf(&b, "%s%s", b.len ? " " : "", names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return mg_buf_detach(&b, NULL);
}

#define expect_listing(want) do { \
	char *got_ = listing(); \
	cr_expect_str_eq(got_, want); \
	free(got_); \
} while (0)

static int commit(mg_outputs *o, mg_error *err)
{
	int rc;

	mg_error_clear(err);
	rc = mg_outputs_commit(o, err);
	mg_outputs_free(o);
	return rc;
}

/* ---- writing ------------------------------------------------------ */

Test(output, writes_every_file_and_leaves_no_temporary_file)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("old.json", "old\n");
	put("summary.md", "# before\n");
	mg_outputs_add(o, "new.json", "new\n", 4, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "old.json", "replaced\n", 9, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "summary.md", "appended\n", 9, MG_OUTPUT_APPEND);
	mg_outputs_add(o, "created.md", "fresh\n", 6, MG_OUTPUT_APPEND);
	cr_assert_eq(commit(o, &err), MG_OK, "%s", err.message);
	expect_content("new.json", "new\n");
	expect_content("old.json", "replaced\n");
	expect_content("summary.md", "# before\nappended\n");
	expect_content("created.md", "fresh\n");
	expect_listing("created.md new.json old.json summary.md");
}

/* A source that writes `ctx` (a string) in three pieces, or fails on its
 * second piece when ctx is NULL. */
static int three_pieces(void *ctx, mg_sink sink, void *sink_ctx)
{
	const char *text = ctx ? ctx : "abcdef";
	size_t third = strlen(text) / 3;

	if (sink(sink_ctx, text, third) < 0)
		return MG_ERROR;
	if (!ctx) {
		errno = ENOSPC;
		return MG_ERROR;
	}
	if (sink(sink_ctx, text + third, third) < 0 ||
	    sink(sink_ctx, text + 2 * third, strlen(text) - 2 * third) < 0)
		return MG_ERROR;
	return MG_OK;
}

Test(output, a_source_writes_its_file_at_commit_like_queued_data)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("record.json", "old\n");
	mg_outputs_add_source(o, "record.json", three_pieces, "{\"streamed\": true}\n");
	mg_outputs_add_source(o, "new.json", three_pieces, "[1, 2, 3]\n");
	cr_assert_eq(commit(o, &err), MG_OK, "%s", err.message);
	expect_content("record.json", "{\"streamed\": true}\n");
	expect_content("new.json", "[1, 2, 3]\n");
	expect_listing("new.json record.json");
}

Test(output, a_failing_source_names_its_file_and_writes_nothing)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("record.json", "old\n");
	mg_outputs_add(o, "first.json", "first\n", 6, MG_OUTPUT_REPLACE);
	mg_outputs_add_source(o, "record.json", three_pieces, NULL);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "record.json");
	cr_expect(strstr(err.message, "No space left on device"), "%s", err.message);
	expect_content("record.json", "old\n");
	expect_listing("record.json");
}

Test(output, created_files_get_0644_less_the_umask_and_replaced_ones_keep_their_bits)
{
	mg_outputs *o = mg_outputs_new();
	struct stat st;
	mg_error err;

	umask(027);
	put("kept.json", "x");
	cr_assert_eq(chmod("kept.json", 0764), 0);
	mg_outputs_add(o, "new.json", "n", 1, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "kept.json", "k", 1, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_OK, "%s", err.message);
	cr_assert_eq(stat("new.json", &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640);
	cr_assert_eq(stat("kept.json", &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0664, "mode %o", (unsigned)(st.st_mode & 07777));
}

/* ---- refusals: nothing is written --------------------------------- */

Test(output, refuses_to_replace_through_a_symlink_and_writes_nothing)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("target.json", "target\n");
	cr_assert_eq(symlink("target.json", "link.json"), 0);
	mg_outputs_add(o, "first.json", "first\n", 6, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "link.json", "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "link.json");
	cr_expect_str_eq(err.message, "cannot write: it is a symlink (memgate writes regular "
			 "files only, and never through a symlink)");
	expect_content("target.json", "target\n");
	expect_listing("link.json target.json");
}

Test(output, refuses_to_append_through_a_symlink_and_writes_nothing)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("target.md", "target\n");
	cr_assert_eq(symlink("target.md", "link.md"), 0);
	mg_outputs_add(o, "record.json", "r\n", 2, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "link.md", "evil\n", 5, MG_OUTPUT_APPEND);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "link.md");
	expect_content("target.md", "target\n");
	expect_listing("link.md target.md");
}

/* Issue 19, finding 4: a parent directory that is a symlink (a pull request
 * that commits `reports` as a link to a directory elsewhere) is refused for
 * every mode, naming the component, and the file out there is untouched;
 * real parent directories, also named by an absolute path inside the
 * current directory, are written. */
Test(output, refuses_a_symlinked_parent_directory_and_leaves_the_outside_file)
{
	char outside[96], abs_path[160];
	mg_outputs *o;
	mg_error err;
	char *data = NULL;
	size_t len = 0;
	static const enum mg_output_mode modes[] = { MG_OUTPUT_REPLACE, MG_OUTPUT_APPEND };
	size_t i;

	snprintf(outside, sizeof(outside), "%s.outside", scratch);
	cr_assert_eq(mkdir(outside, 0755), 0);
	snprintf(abs_path, sizeof(abs_path), "%s/memgate.sarif", outside);
	put(abs_path, "outside\n");
	cr_assert_eq(symlink(outside, "reports"), 0);
	cr_assert_eq(mkdir("real", 0755), 0);
	for (i = 0; i < 2; i++) {
		o = mg_outputs_new();
		mg_outputs_add(o, "real/first.json", "first\n", 6, MG_OUTPUT_REPLACE);
		mg_outputs_add(o, "reports/memgate.sarif", "evil\n", 5, modes[i]);
		cr_assert_eq(commit(o, &err), MG_ERROR);
		cr_expect_str_eq(err.file, "reports/memgate.sarif");
		cr_expect_str_eq(err.message, "cannot write: 'reports' in its path is a symlink (memgate "
				 "writes regular files only, and never through a symlink)");
		data = mg_test_read(abs_path, &len);
		cr_expect_str_eq(data, "outside\n");
		free(data);
		data = NULL;
		expect_listing("real reports");
	}
	o = mg_outputs_new();
	cr_expect_eq(mg_outputs_read_existing(&data, &len, o, "reports/memgate.sarif", &err),
		     MG_ERROR);
	mg_outputs_free(o);
	cr_expect_null(data);
	cr_expect_str_eq(err.message, "cannot read: 'reports' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	/* a link deeper down, and a regular file where a directory should be */
	cr_assert_eq(symlink(outside, "real/deep"), 0);
	o = mg_outputs_new();
	mg_outputs_add(o, "./real//deep/memgate.sarif", "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: 'deep' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	put("file", "x");
	o = mg_outputs_new();
	mg_outputs_add(o, "file/memgate.sarif", "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: 'file' in its path is not a directory");
	data = mg_test_read(abs_path, &len);
	cr_expect_str_eq(data, "outside\n");
	free(data);
	/* real directories are fine, by a relative or an absolute path */
	snprintf(abs_path, sizeof(abs_path), "%s/real/abs.json", scratch);
	o = mg_outputs_new();
	mg_outputs_add(o, "real/rel.json", "rel\n", 4, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, abs_path, "abs\n", 4, MG_OUTPUT_APPEND);
	cr_assert_eq(commit(o, &err), MG_OK, "%s: %s", err.file, err.message);
	expect_content("real/rel.json", "rel\n");
	expect_content("real/abs.json", "abs\n");
	unlink("real/rel.json");
	unlink("real/abs.json");
	unlink("real/deep");
	snprintf(abs_path, sizeof(abs_path), "%s/memgate.sarif", outside);
	unlink(abs_path);
	rmdir(outside);
}

/* Issue 25: a directory outside the current one and the repository's work
 * tree was named by the caller, and a symlink there is followed (macOS's
 * /tmp -> private/tmp, /var/folders); in a guarded work tree (here a
 * sibling of the scratch directory) a symlink is refused, whether the path
 * names the work tree directly or reaches it through the caller's symlink,
 * and for reading as for writing. */
Test(output, follows_the_callers_symlinks_and_refuses_the_repositorys)
{
	char outside[96], alias[96], repo[96], sub[112], repo_alias[96], linked[128], path[160];
	mg_outputs *o;
	mg_error err;
	char *data = NULL;
	size_t len = 0;

	snprintf(outside, sizeof(outside), "%s.outside", scratch);
	snprintf(alias, sizeof(alias), "%s.alias", scratch);
	snprintf(repo, sizeof(repo), "%s.repo", scratch);
	snprintf(repo_alias, sizeof(repo_alias), "%s.repo-alias", scratch);
	snprintf(sub, sizeof(sub), "%s/sub", repo);
	snprintf(linked, sizeof(linked), "%s/linked", sub);
	cr_assert_eq(mkdir(outside, 0755), 0);
	cr_assert_eq(mkdir(repo, 0755), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(symlink(outside, alias), 0);
	cr_assert_eq(symlink(sub, repo_alias), 0);
	cr_assert_eq(symlink(outside, linked), 0);
	/* the caller's symlink outside: followed, the file is written there */
	snprintf(path, sizeof(path), "%s/r.json", alias);
	o = mg_outputs_new();
	mg_outputs_guard(o, repo);
	mg_outputs_add(o, path, "r\n", 2, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_OK, "%s: %s", err.file, err.message);
	snprintf(path, sizeof(path), "%s/r.json", outside);
	data = mg_test_read(path, &len);
	cr_expect_str_eq(data, "r\n");
	free(data);
	data = NULL;
	/* but never in the last component */
	snprintf(path, sizeof(path), "%s/link.json", outside);
	cr_assert_eq(symlink("r.json", path), 0);
	snprintf(path, sizeof(path), "%s/link.json", alias);
	o = mg_outputs_new();
	mg_outputs_add(o, path, "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: it is a symlink (memgate writes regular "
			 "files only, and never through a symlink)");
	/* the repository's symlink: refused, by its path and through an alias */
	snprintf(path, sizeof(path), "%s/linked/s.json", sub);
	o = mg_outputs_new();
	mg_outputs_guard(o, repo);
	mg_outputs_add(o, path, "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: 'linked' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	snprintf(path, sizeof(path), "%s/linked/s.json", repo_alias);
	o = mg_outputs_new();
	mg_outputs_guard(o, repo);
	mg_outputs_add(o, path, "evil\n", 5, MG_OUTPUT_APPEND);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: 'linked' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	snprintf(path, sizeof(path), "%s/linked/r.json", repo_alias);
	o = mg_outputs_new();
	mg_outputs_guard(o, repo);
	cr_expect_eq(mg_outputs_read_existing(&data, &len, o, path, &err), MG_ERROR);
	cr_expect_null(data);
	cr_expect_str_eq(err.message, "cannot read: 'linked' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	mg_outputs_free(o);
	/* the caller's symlink to the repository's symlink: its target is
	 * walked by the same rule */
	cr_assert_eq(unlink(alias), 0);
	cr_assert_eq(symlink(linked, alias), 0);
	snprintf(path, sizeof(path), "%s/s.json", alias);
	o = mg_outputs_new();
	mg_outputs_guard(o, repo);
	mg_outputs_add(o, path, "evil\n", 5, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: 'linked' in its path is a symlink (memgate "
			 "writes regular files only, and never through a symlink)");
	snprintf(path, sizeof(path), "%s/s.json", outside);
	cr_expect_neq(access(path, F_OK), 0, "nothing written through the repository's symlink");
	/* unguarded, the same directory is the caller's: the guard is what refuses */
	snprintf(path, sizeof(path), "%s/linked/s.json", sub);
	o = mg_outputs_new();
	mg_outputs_add(o, path, "s\n", 2, MG_OUTPUT_REPLACE);
	cr_expect_eq(commit(o, &err), MG_OK, "%s: %s", err.file, err.message);
	snprintf(path, sizeof(path), "%s/s.json", outside);
	unlink(path);
	snprintf(path, sizeof(path), "%s/link.json", outside);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r.json", outside);
	unlink(path);
	unlink(linked);
	unlink(alias);
	unlink(repo_alias);
	rmdir(sub);
	rmdir(repo);
	rmdir(outside);
}

Test(output, refuses_a_directory)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	cr_assert_eq(mkdir("dir.json", 0755), 0);
	mg_outputs_add(o, "dir.json", "x", 1, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.message, "cannot write: it is a directory (memgate writes regular "
			 "files only, and never through a symlink)");
}

Test(output, read_existing_refuses_a_symlink_and_reads_a_regular_file)
{
	mg_outputs *o = mg_outputs_new();
	char *data = NULL;
	size_t len = 0;
	mg_error err;

	put("real.json", "{}\n");
	cr_assert_eq(symlink("real.json", "link.json"), 0);
	cr_expect_eq(mg_outputs_read_existing(&data, &len, o, "link.json", &err), MG_ERROR);
	cr_expect_null(data);
	cr_assert_eq(mg_outputs_read_existing(&data, &len, o, "real.json", &err), MG_OK);
	cr_expect_str_eq(data, "{}\n");
	cr_expect_eq(len, 3);
	free(data);
	cr_assert_eq(mg_outputs_read_existing(&data, &len, o, "absent.json", &err), MG_OK);
	cr_expect_null(data);
	mg_outputs_free(o);
}

/* ---- rollback ----------------------------------------------------- */

Test(output, a_file_that_cannot_be_written_leaves_the_others_untouched)
{
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	put("first.json", "first\n");
	mg_outputs_add(o, "first.json", "new first\n", 10, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "no-such-dir/second.json", "second\n", 7, MG_OUTPUT_REPLACE);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "no-such-dir/second.json");
	expect_content("first.json", "first\n");
	expect_listing("first.json");
}

/*
 * A failure after every replaced file was renamed into place (an append
 * that the file size limit cuts short): the replaced files are put back,
 * the created ones removed, the appended ones truncated to their old
 * length, and no temporary file or backup is left.
 */
Test(output, a_late_failure_undoes_every_rename_and_append)
{
	struct rlimit lim;
	static char big[8192];
	mg_outputs *o = mg_outputs_new();
	mg_error err;

	memset(big, 'x', sizeof(big));
	put("one.json", "one\n");
	put("summary.md", "# before\n");
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
	lim.rlim_cur = 4096;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	mg_outputs_add(o, "one.json", "new one\n", 8, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "two.json", "new two\n", 8, MG_OUTPUT_REPLACE);
	mg_outputs_add(o, "summary.md", big, sizeof(big), MG_OUTPUT_APPEND);
	mg_outputs_add(o, "created.md", "fresh\n", 6, MG_OUTPUT_APPEND);
	cr_assert_eq(commit(o, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "summary.md");
	expect_content("one.json", "one\n");
	expect_content("summary.md", "# before\n");
	expect_listing("one.json summary.md");
}
