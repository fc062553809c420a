/* regression.history's medians (include/memgate/history.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git.h"
#include "memgate/buf.h"
#include "history_read.h"
#include "memgate/history.h"

Test(history, median_of_an_odd_count_is_the_middle_value)
{
	double v[] = { 53000, 41000, 51500, 52000, 54000 };

	cr_expect_eq(mg_history_median(v, 5), 52000);
}

Test(history, median_of_an_even_count_is_the_mean_of_the_middle_two)
{
	double v[] = { 41000, 54000, 51500, 52000 };

	cr_expect_eq(mg_history_median(v, 4), 51750);
}

Test(history, median_of_one_and_of_none)
{
	double v[] = { 7.5 };

	cr_expect_eq(mg_history_median(v, 1), 7.5);
	cr_expect(isnan(mg_history_median(v, 0)));
}

Test(history, free_accepts_null)
{
	mg_history_free(NULL);
}

/* n versions of r.json (each its candidates' JSON), oldest first,
 * committed by the real git in a new repository at `dir`. */
static void commit_versions(const char *dir, const char *const *versions, size_t n)
{
	char cmd[2048];
	size_t i;

	snprintf(cmd, sizeof(cmd), "git init -q '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && printf '%%s' '{\"workload_id\": \"w\", "
			 "\"hardware_id\": \"g\", \"candidates\": [%s]}' >r.json && git add r.json && "
			 "git -c user.name=t -c user.email=t@example.com commit -qm v%zu", dir,
			 versions[i], i);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
	}
}

#define C(name, peak) "{\"name\": " name ", \"peak_memory_mb\": " #peak "}"

Test(history, names_in_order_of_first_appearance_newest_first_the_first_of_a_name_counting)
{
	static const char *const versions[] = {
		C("\"b\"", 1) ", " C("\"a\"", 10) ", " C("\"a\"", 999) ", " C("\"\"", 5) ", "
			"{\"peak_memory_mb\": 7}",
		C("\"c\"", 20) ", " C("\"a\"", 30) ", " C("\"d\"", 40),
		C("\"d\"", 50) ", " C("\"e\"", 60) ", " C("\"b\"", 70),
	};
	static const char *const names[] = { "d", "e", "b", "c", "a" };
	static const double medians[] = { 45, 60, 35.5, 20, 20 };
	const char *tmp = getenv("TMPDIR");
	char dir[512], cmd[600], head[MG_GIT_OID_HEX];
	mg_repo *repo = NULL;
	mg_history *h = NULL;
	mg_error err;
	size_t i;

	snprintf(dir, sizeof(dir), "%s/memgate-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	commit_versions(dir, versions, 3);
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_open(&repo, dir, &err), 0, "%s", err.message);
	cr_assert_eq(mg_repo_resolve(head, repo, "HEAD", &err), 0, "%s", err.message);
	cr_assert_eq(mg_history__read(&h, repo, head, "r.json", 10, 100, 1 << 20, NULL, NULL,
				      &err), 0,
		     "%s", err.message);
	cr_assert_eq(h->used, 3);
	cr_assert_eq(h->evidence.candidate_count, 5);
	for (i = 0; i < 5; i++) {
		cr_expect_str_eq(h->evidence.candidates[i].name, names[i]);
		cr_expect_eq(h->evidence.candidates[i].metric[MG_M_PEAK].value, medians[i],
			     "%s", names[i]);
		cr_expect_eq(mg_history_find(h, names[i]), (long)i);
	}
	cr_expect_eq(mg_history_find(h, "aa"), -1);
	cr_expect_eq(mg_history_find(h, ""), -1);
	cr_expect_eq(mg_history_find(h, "0"), -1);
	mg_history_free(h);
	mg_repo_free(repo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* A history of two versions of r.json in a new repository: *h and *repo
 * are the caller's; the repository's folder is left in dir. */
static void read_two(mg_history **h, mg_repo **repo, char *dir, size_t n)
{
	static const char *const versions[] = { C("\"a\"", 1) ", " C("\"b\"", 2),
						C("\"a\"", 3) ", " C("\"b\"", 4) };
	const char *tmp = getenv("TMPDIR");
	char head[MG_GIT_OID_HEX];
	mg_error err;

	snprintf(dir, n, "%s/memgate-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	commit_versions(dir, versions, 2);
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_open(repo, dir, &err), 0, "%s", err.message);
	cr_assert_eq(mg_repo_resolve(head, *repo, "HEAD", &err), 0, "%s", err.message);
	cr_assert_eq(mg_history__read(h, *repo, head, "r.json", 10, 100, 1 << 20, NULL, NULL,
				      &err), 0,
		     "%s", err.message);
	cr_assert_eq((*h)->evidence.candidate_count, 2);
}

static void remove_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* Each candidate's status is its own string, owned by the history: a
 * change to one is no change to another, and a caller may replace one
 * (the history frees the replacement, never a string it does not own). */
Test(history, each_candidate_owns_its_status)
{
	mg_history *h = NULL;
	mg_repo *repo = NULL;
	char dir[512];

	read_two(&h, &repo, dir, sizeof(dir));
	cr_expect_str_eq(h->evidence.candidates[0].status, "ok");
	cr_expect_str_eq(h->evidence.candidates[1].status, "ok");
	h->evidence.candidates[0].status[0] = 'O';
	cr_expect_str_eq(h->evidence.candidates[1].status, "ok", "the statuses share a buffer");
	free(h->evidence.candidates[1].status);
	h->evidence.candidates[1].status = mg_xstrdup("oom");
	mg_history_free(h);
	mg_repo_free(repo);
	remove_dir(dir);
}

Test(history, versions_hold_the_commits_and_blobs_newest_first)
{
	mg_history *h = NULL;
	mg_repo *repo = NULL;
	char dir[512], cmd[700], want[2][MG_GIT_OID_HEX];
	FILE *f;
	int i;

	read_two(&h, &repo, dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "git -C '%s' log --format=%%H", dir);
	cr_assert_not_null(f = popen(cmd, "r"));
	for (i = 0; i < 2; i++)
		cr_assert_eq(fscanf(f, "%64s", want[i]), 1);
	pclose(f);
	cr_assert_eq(h->used, 2);
	for (i = 0; i < 2; i++) {
		cr_expect_str_eq(h->versions[i].commit, want[i]);
		cr_expect_eq(strlen(h->versions[i].blob), 40);
	}
	mg_history_free(h);
	mg_repo_free(repo);
	remove_dir(dir);
}

/* Skips every version whose candidate "a" has an odd peak above 100 (the
 * poisoned ones), as unsigned. */
static int skip_poisoned(void *ctx, const mg_repo_version *v, const void *data, size_t len,
			 const mg_report *r, mg_error *err)
{
	double peak = r->evidence.candidates[0].metric[MG_M_PEAK].value;

	(void)v;
	(void)data;
	(void)len;
	(void)err;
	++*(int *)ctx;
	return peak > 100 ? MG_HISTORY_SKIP_UNSIGNED : 0;
}

/* A version the acceptor skips is counted for its reason and the walk
 * looks further: the medians are over `asked` versions that count. */
Test(history, skipped_versions_are_counted_and_the_walk_looks_further)
{
	static const char *const versions[] = {
		C("\"a\"", 1), C("\"a\"", 2), C("\"a\"", 3), C("\"a\"", 900), C("\"a\"", 901),
		C("\"a\"", 4),
	};
	const char *tmp = getenv("TMPDIR");
	char dir[512], head[MG_GIT_OID_HEX];
	mg_repo *repo = NULL;
	mg_history *h = NULL;
	mg_error err;
	int asked = 0;

	snprintf(dir, sizeof(dir), "%s/memgate-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(dir));
	commit_versions(dir, versions, 6);
	mg_error_clear(&err);
	cr_assert_eq(mg_repo_open(&repo, dir, &err), 0, "%s", err.message);
	cr_assert_eq(mg_repo_resolve(head, repo, "HEAD", &err), 0, "%s", err.message);
	cr_assert_eq(mg_history__read(&h, repo, head, "r.json", 3, 100, 1 << 20, skip_poisoned,
				      &asked, &err), 0, "%s", err.message);
	cr_expect_eq(h->used, 3);
	cr_expect_eq(h->skipped, 0);
	cr_expect_eq(h->skipped_for[MG_HISTORY_SKIP_UNSIGNED], 2);
	cr_expect_eq(mg_history_skipped_total(h), 2);
	cr_expect_eq(asked, 5, "each version judged once");
	cr_expect_eq(h->evidence.candidates[0].metric[MG_M_PEAK].value, 3);   /* of 4, 3, 2 */
	cr_expect_str_eq(mg_history_skip_words(MG_HISTORY_SKIP_NOT_PINNED),
			 "not pinned by the manifest");
	mg_history_free(h);
	mg_repo_free(repo);
	remove_dir(dir);
}
