/* The repository path rules (plugin/path.c), shared by the git source and
 * the manifest parser. */
#include "helpers.h"
#include "../plugin/path.h"

static void expect_path_refused(const char *path, const char *why)
{
	mg_error err;

	mg_error_clear(&err);
	cr_expect_eq(mg_path_check(path, &err), MG_ERROR, "accepted '%s'", path);
	cr_expect_str_eq(err.message, why, "for '%s'", path);
	cr_expect_str_eq(err.file, "");
	cr_expect_eq(err.line, 0);
}

Test(path, accepts_plain_relative_paths)
{
	mg_error err;

	cr_expect_eq(mg_path_check("benchmarks/results/76_real_gpu_memory.json", &err), MG_OK);
	cr_expect_eq(mg_path_check("report.json", &err), MG_OK);
	cr_expect_eq(mg_path_check(".memgate.yml", &err), MG_OK);
	cr_expect_eq(mg_path_check("a/..b/c..", &err), MG_OK);
	cr_expect_eq(mg_path_check("r\xc3\xa9sultats/76.json", &err), MG_OK);
}

Test(path, refuses_an_empty_path)
{
	expect_path_refused("", "empty paths are not allowed");
}

Test(path, refuses_absolute_paths)
{
	expect_path_refused("/etc/passwd", "absolute paths are not allowed");
	expect_path_refused("//server/share/76.json", "absolute paths are not allowed");
}

Test(path, refuses_dotdot_segments)
{
	expect_path_refused("../76.json", "'..' segments are not allowed");
	expect_path_refused("benchmarks/../76.json", "'..' segments are not allowed");
	expect_path_refused("benchmarks/..", "'..' segments are not allowed");
}

Test(path, refuses_dot_segments)
{
	expect_path_refused("./76.json", "'.' segments are not allowed");
	expect_path_refused("benchmarks/./76.json", "'.' segments are not allowed");
	expect_path_refused(".", "'.' segments are not allowed");
}

Test(path, refuses_empty_segments)
{
	expect_path_refused("benchmarks//76.json",
			    "empty segments ('//' or a trailing '/') are not allowed");
	expect_path_refused("benchmarks/",
			    "empty segments ('//' or a trailing '/') are not allowed");
}

Test(path, refuses_backslashes)
{
	expect_path_refused("benchmarks\\results\\76.json", "backslashes are not allowed (use '/')");
}

Test(path, refuses_control_characters)
{
	expect_path_refused("76\n.json", "control characters are not allowed");
	expect_path_refused("76\x7f.json", "control characters are not allowed");
}

Test(path, refuses_overlong_paths)
{
	char *p = mg_xmalloc(4098);
	mg_error err;

	memset(p, 'a', 4097);
	p[4097] = '\0';
	expect_path_refused(p, "paths longer than 4096 bytes are not allowed");
	p[4096] = '\0';
	cr_expect_eq(mg_path_check(p, &err), MG_OK);
	free(p);
}
