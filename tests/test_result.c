/* The pure functions of a check's result (plugin/result/result.c), on results
 * built by hand: they need no check, which sits above them. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/result.h"

/* path as a command pasted in the directory r says memgate ran in names it. */
static char *cli_path(const char *cwd_prefix, const char *root, const char *path)
{
	mg_check_result r;
	mg_buf b = MG_BUF_INIT;

	memset(&r, 0, sizeof(r));
	r.cwd_prefix = (char *)cwd_prefix;
	r.root = (char *)root;
	mg_check_cli_path(&b, &r, path);
	return mg_buf_detach(&b, NULL);
}

static void expect_cli_path(const char *cwd_prefix, const char *root, const char *path,
			    const char *want)
{
	char *got = cli_path(cwd_prefix, root, path);

	cr_expect_str_eq(got, want, "'%s' from '%s'", path, cwd_prefix ? cwd_prefix : "(outside)");
	free(got);
}

Test(result, cli_path_is_relative_to_where_memgate_ran)
{
	expect_cli_path("", "/w", "models/a/x.json", "models/a/x.json");
	expect_cli_path("models/a/", "/w", "models/a/bench/76.json", "bench/76.json");
	expect_cli_path("models/llm-a/", "/w", "models/llm-b/x.json", "../llm-b/x.json");
	expect_cli_path("models/a/b/", "/w", "other/x.json", "../../../other/x.json");
	/* whole directories only: "mod/" shares no directory with "models/" */
	expect_cli_path("mod/", "/w", "models/x.json", "../models/x.json");
}

Test(result, cli_path_outside_the_work_tree_is_absolute_when_it_can_be)
{
	expect_cli_path(NULL, "/w", "models/a/x.json", "/w/models/a/x.json");
	expect_cli_path(NULL, NULL, "models/a/x.json", "models/a/x.json");
}

Test(result, item_status_is_the_exit_status)
{
	mg_check_result passed = { .passed = true }, failed = { .passed = false };

	cr_expect_eq(mg_check_item_status(&(mg_check_item){ .result = &passed }), 0);
	cr_expect_eq(mg_check_item_status(&(mg_check_item){ .result = &failed }), 1);
	cr_expect_eq(mg_check_item_status(&(mg_check_item){ .result = NULL }), 2);
}

Test(result, an_expired_change_says_so)
{
	cr_expect_str_eq(mg_check_effect_name(MG_CHANGE_EXPIRED), "expired");
	cr_expect_null(mg_check_waiver_status_name(MG_WAIVER_STATUS_COUNT));
}
