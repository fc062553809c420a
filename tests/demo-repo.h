#ifndef MG_TEST_DEMO_REPO_H
#define MG_TEST_DEMO_REPO_H
/*
 * The demo repository (fixtures/demo/make-repo: the real stage-76 report,
 * fixtures/demo/memgate.yml and a manifest that pins the report) built with
 * the real git in a fresh scratch directory, for the tests of the modules
 * that read a check result (check, findings, sarif).  Its decision is tune
 * (memory_saving_below_meaningful_threshold), checkpoint selected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "memgate/check.h"

#define MG_DEMO_GIT "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git " \
	"-c commit.gpgsign=false -c user.name=memgate-test -c user.email=test@memgate.invalid"
#define MG_DEMO_REPORT "benchmarks/results/76_real_gpu_memory.json"
#define MG_DEMO_MANIFEST "benchmarks/results/75_input_manifest.json"
#define MG_DEMO_DIR_SIZE 64

/* Run a shell command; fails the test when it fails. */
static inline void mg_demo_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Build the demo repository in a new directory; its path goes to dir. */
static inline void mg_demo_repo(char dir[MG_DEMO_DIR_SIZE])
{
	snprintf(dir, MG_DEMO_DIR_SIZE, "%s", "/tmp/memgate-test.XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp failed");
	mg_demo_sh("sh '%s/fixtures/demo/make-repo' '%s'", MG_SOURCE_DIR, dir);
}

/* Write `text` to `path` of the repository at dir (appended when `append`)
 * and commit every change. */
static inline void mg_demo_commit(const char *dir, const char *path, const char *text, int append)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	f = fopen(full, append ? "ab" : "wb");
	cr_assert_not_null(f, "cannot write %s", full);
	cr_assert_eq(fputs(text, f) >= 0, 1);
	fclose(f);
	mg_demo_sh("cd '%s' && " MG_DEMO_GIT " add -A && " MG_DEMO_GIT " commit -q -m '%s'",
		   dir, path);
}

/* `git rev-parse REV` in the repository at dir, into out (41 bytes). */
static inline void mg_demo_rev(char out[41], const char *dir, const char *rev)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", dir, rev);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(out, 41, p));
	pclose(p);
}

/* mg_check_run on the repository at dir with opt (dir filled in); fails
 * the test when it cannot decide. */
static inline mg_check_result *mg_demo_check(const char *dir, mg_check_options opt)
{
	mg_check_result *r = NULL;
	mg_error err;

	opt.dir = dir;
	cr_assert_eq(mg_check_run(&r, &opt, &err), 0, "%s", err.message);
	return r;
}

static inline void mg_demo_remove(const char *dir)
{
	mg_demo_sh("rm -rf '%s'%s", dir, "");
}

#endif
