/* The repository path rules (plugin/util/path.c), shared by the git source and
 * the manifest parser. */
#include "helpers.h"
#include "path.h"

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

/* evidence.inputs entries (mg_path_check_pathspec): the forms libgit2
 * matches as git does pass; every other one is refused, naming the form and
 * what to write instead. */
static void expect_spec_refused(const char *spec, const char *why)
{
	mg_error err;

	mg_error_clear(&err);
	cr_expect_eq(mg_path_check_pathspec(spec, &err), MG_ERROR, "accepted '%s'", spec);
	cr_expect_str_eq(err.message, why, "for '%s'", spec);
	cr_expect_str_eq(err.file, "");
	cr_expect_eq(err.line, 0);
}

Test(path, accepts_paths_and_patterns_as_pathspecs)
{
	static const char *const ok[] = {
		"src/model", "src/model/**", "configs/train*.yaml", "*", "**", "src/m?del",
		"src/[mM]odel/*.py", "a.b/c..d/..e", " lead", "sp ace/x", "q\\?", "\\!bang",
		"[:]colon", "[#]hash", "r\xc3\xa9sum\xc3\xa9", "src/model.", NULL
	};
	size_t i;
	mg_error err;

	for (i = 0; ok[i]; i++)
		cr_expect_eq(mg_path_check_pathspec(ok[i], &err), MG_OK, "'%s': %s", ok[i],
			     err.message);
}

Test(path, refuses_git_pathspec_magic_naming_the_word)
{
	expect_spec_refused(":(glob)src/**/*.py", "git's pathspec magic 'glob' (':(glob)') is "
			    "not supported in evidence.inputs; write the pattern without it ('*' "
			    "then matches '/' too, as in git without magic)");
	expect_spec_refused(":(top)src/model", "git's pathspec magic 'top' (':(top)') is not "
			    "supported in evidence.inputs; memgate matches from the repository "
			    "root: write 'src/model'");
	expect_spec_refused(":/src/model", "git's pathspec magic 'top' (':/') is not supported "
			    "in evidence.inputs; memgate matches from the repository root: write "
			    "'src/model'");
	expect_spec_refused(":(literal)a*b", "git's pathspec magic 'literal' (':(literal)') is "
			    "not supported in evidence.inputs; write the path without it, a '*', "
			    "'?' or '[' in it as '[*]', '[?]' or '[[]'");
	expect_spec_refused(":(icase)SRC", "git's pathspec magic 'icase' (':(icase)') is not "
			    "supported in evidence.inputs; list each spelling of the path");
	expect_spec_refused(":(exclude)docs", "git's pathspec magic 'exclude' (':(exclude)') is "
			    "not supported in evidence.inputs; list only the paths whose change "
			    "invalidates the evidence");
	expect_spec_refused(":!docs", "git's pathspec magic 'exclude' (':!') is not supported "
			    "in evidence.inputs; list only the paths whose change invalidates the "
			    "evidence");
	expect_spec_refused(":^docs", "git's pathspec magic 'exclude' (':^') is not supported "
			    "in evidence.inputs; list only the paths whose change invalidates the "
			    "evidence");
	expect_spec_refused(":(attr:train)x", "git's pathspec magic 'attr' (':(attr:train)') is "
			    "not supported in evidence.inputs; list the paths themselves");
	expect_spec_refused(":(glob,icase)x", "git's pathspec magic 'glob' (':(glob,icase)') is "
			    "not supported in evidence.inputs; write the pattern without it ('*' "
			    "then matches '/' too, as in git without magic)");
	expect_spec_refused(":(prefix:0)x", "git's pathspec magic 'prefix' (':(prefix:0)') is "
			    "not supported in evidence.inputs; write a path or a pattern without "
			    "magic");
	expect_spec_refused(":(glob", "git's pathspec magic (an unclosed ':(') is not supported "
			    "in evidence.inputs; write a path or a pattern without magic");
	expect_spec_refused(":colon", "a leading ':' (git's pathspec magic) is not supported "
			    "in evidence.inputs; write '[:]colon' for a name that begins with ':'");
}

Test(path, refuses_dot_segments_and_slashes_with_the_path_to_write)
{
	expect_spec_refused("./src/model", "a leading './' is not supported in "
			    "evidence.inputs; write 'src/model'");
	expect_spec_refused("src/model/layers/../layers", "a '..' segment is not supported in "
			    "evidence.inputs; write 'src/model/layers'");
	expect_spec_refused("src/./model", "a '.' segment is not supported in "
			    "evidence.inputs; write 'src/model'");
	expect_spec_refused("../src", "a '..' segment is not supported in evidence.inputs: "
			    "it leads out of the repository; write a path from the repository root");
	expect_spec_refused("src/..", "a '..' segment is not supported in evidence.inputs; "
			    "write '*' for every path");
	expect_spec_refused(".", "'.' is not supported in evidence.inputs; write '*' for every "
			    "path");
	expect_spec_refused("src//model", "a '//' run is not supported in evidence.inputs; "
			    "write 'src/model'");
	expect_spec_refused("src/model/", "a trailing '/' is not supported in evidence.inputs; "
			    "write 'src/model'");
	expect_spec_refused("/src/model", "a leading '/' is not supported in evidence.inputs; "
			    "write 'src/model'");
}

Test(path, refuses_what_libgit2_reads_otherwise_than_git)
{
	expect_spec_refused("!bang", "a leading '!' is not supported in evidence.inputs "
			    "(libgit2 reads it as an exclusion); write '\\!bang' for a name that "
			    "begins with '!'");
	expect_spec_refused("#hash", "a leading '#' is not supported in evidence.inputs "
			    "(libgit2 reads it as a comment); write '\\#hash' for a name that "
			    "begins with '#'");
	expect_spec_refused("src ", "a trailing space is not supported in evidence.inputs "
			    "(libgit2 drops it); remove it, or write 'src[ ]' for a name that ends "
			    "with a space");
	expect_spec_refused("a\\ b", "a backslash before a space is not supported in "
			    "evidence.inputs (libgit2 drops it); write '[ ]' for the space");
	expect_spec_refused("src\\", "a trailing backslash is not supported in evidence.inputs "
			    "(libgit2 drops it); write 'src[\\\\]' for a name that ends with a "
			    "backslash");
	expect_spec_refused("", "an empty entry is not supported in evidence.inputs; write a "
			    "path");
	expect_spec_refused("src\tmodel", "a control character (byte 0x09) is not supported in "
			    "evidence.inputs; match it with '?'");
	expect_spec_refused("src\x7f", "a control character (byte 0x7f) is not supported in "
			    "evidence.inputs; match it with '?'");
}

/* An entry too long to quote in a message is described instead: the
 * message stays whole (the policy reader quotes the entry before it, and a
 * message holds 1 KiB), so its advice is never cut short. */
Test(path, describes_what_to_write_for_an_entry_too_long_to_quote)
{
	char name[301], spec[700];

	memset(name, 'a', 300);
	name[300] = '\0';
	snprintf(spec, sizeof(spec), "%s//%s", name, name);
	expect_spec_refused(spec, "a '//' run is not supported in evidence.inputs; write the "
			    "path from the repository root, with '.' and empty segments "
			    "dropped and '..' resolved");
	snprintf(spec, sizeof(spec), ":/%s", name);
	expect_spec_refused(spec, "git's pathspec magic 'top' is not supported in "
			    "evidence.inputs; memgate matches from the repository root: write "
			    "the entry without it");
	snprintf(spec, sizeof(spec), ":(%s)x", name);
	expect_spec_refused(spec, "git's pathspec magic (':(...)') is not supported in "
			    "evidence.inputs; write a path or a pattern without magic");
	snprintf(spec, sizeof(spec), ":%s", name);
	expect_spec_refused(spec, "a leading ':' (git's pathspec magic) is not supported in "
			    "evidence.inputs; write it as '[:]' for a name that begins with ':'");
	snprintf(spec, sizeof(spec), "!%s", name);
	expect_spec_refused(spec, "a leading '!' is not supported in evidence.inputs (libgit2 "
			    "reads it as an exclusion); write '\\' before it for a name that "
			    "begins with '!'");
	snprintf(spec, sizeof(spec), "%s ", name);
	expect_spec_refused(spec, "a trailing space is not supported in evidence.inputs "
			    "(libgit2 drops it); remove it, or write it as '[ ]' for a name that "
			    "ends with a space");
	snprintf(spec, sizeof(spec), "%s\\", name);
	expect_spec_refused(spec, "a trailing backslash is not supported in evidence.inputs "
			    "(libgit2 drops it); write it as '[\\\\]' for a name that ends with a "
			    "backslash");
}
