/*
 * The pull-request comment: include/memgate/comment.h.  Checked on the demo
 * repository's real check result: the marker line, the decision, the
 * candidates against the base (regressed first), the findings, the link,
 * the size limit and the escaping of untrusted text.
 */
#include <stdlib.h>
#include <string.h>

#include "demo-repo.h"
#include "helpers.h"
#include "memgate/comment.h"
#include "memgate/check.h"

#define URL "https://github.com/octo/models/actions/runs/42"

/* How many lines of text start with `prefix`. */
static size_t lines_starting(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);
	const char *p = text;

	while (p && *p) {
		n += !strncmp(p, prefix, len);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return n;
}

/* The evaluation of the demo's candidate `name` in r's decision. */
static mg_evaluation *candidate(mg_check_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->decision->base.count; i++)
		if (r->decision->base.evaluations[i].name &&
		    !strcmp(r->decision->base.evaluations[i].name, name))
			return &r->decision->base.evaluations[i];
	cr_assert_fail("no candidate %s", name);
	return NULL;
}

Test(comment, starts_with_its_marker_and_says_the_decision)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render(r, URL);
	cr_expect(!strncmp(text, "<!-- memgate: .memgate.yml -->\n### memgate: tune \xe2\x80\x94 "
			   "\xe2\x9d\x8c gate failed\n", strlen("<!-- memgate: .memgate.yml -->\n"
			   "### memgate: tune \xe2\x80\x94 \xe2\x9d\x8c gate failed\n")), "%s", text);
	cr_expect_not_null(strstr(text, "**Reason:** `memory_saving_below_meaningful_threshold`"));
	cr_expect_not_null(strstr(text, "**Selected:** checkpoint\n"));
	cr_expect_not_null(strstr(text, "**Against the base:** not compared"), "%s", text);
	/* the demo's six reasons, five of them listed, most important first */
	cr_expect_not_null(strstr(text, "**Findings** (6):\n\n- \xe2\x9a\xa0\xef\xb8\x8f "
				  "\\.memgate\\.yml:14:25: checkpoint\\: memory saving 331\\.98 MB "
				  "&lt; min\\_memory\\_saving\\_mb 512 (`memory_saving_below_floor`)\n"
				  "- \xe2\x9d\x8c \\.memgate\\.yml:13:22: offload\\: samples\\/s 0\\.533 "
				  "&lt; min\\_samples\\_per\\_s 1 (`samples_per_s_below_floor`)\n"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "- \xe2\x80\xa6 1 more in the job summary\n"), "%s", text);
	cr_expect_not_null(strstr(text, "[the job summary of this run](" URL ")"));
	cr_expect_eq(lines_starting(text, "<!-- memgate:"), 1);
	cr_expect_leq(strlen(text), MG_COMMENT_MAX);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

Test(comment, links_only_a_plain_http_url)
{
	static const char *const bad[] = {
		"javascript:alert(1)", "https://x.test/a)(b", "https://x.test/<b>",
		"https://x.test/a b", "ftp://x.test/run",
	};
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;
	size_t i;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		text = mg_comment_render(r, bad[i]);
		cr_expect_null(strstr(text, "]("), "%s linked", bad[i]);
		cr_expect_not_null(strstr(text, "is in the job summary of this run"));
		free(text);
	}
	text = mg_comment_render(r, NULL);
	cr_expect_null(strstr(text, "]("));
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Against the base (the same commit, values then moved in memory): the
 * candidate that got worse comes first, one that got better after it,
 * the unchanged are only counted. */
Test(comment, lists_regressed_candidates_first)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;
	const char *regressed, *better;

	mg_demo_repo(dir);
	mg_demo_commit(dir, "README.md", "code only\n", 0);
	r = mg_demo_check(dir, (mg_check_options){ .base = "HEAD~1" });
	cr_assert_not_null(r->base);
	cr_assert_not_null(r->base->result);
	text = mg_comment_render(r, URL);
	cr_expect_not_null(strstr(text, "No candidate's status or values changed (4 compared)."),
			   "%s", text);
	free(text);

	candidate(r, "offload")->value[MG_M_SAMPLES] += 1;   /* better */
	candidate(r, "hybrid")->value[MG_M_PEAK] += 100;     /* worse, after it in the report */
	text = mg_comment_render(r, URL);
	cr_expect_not_null(strstr(text, "2 of 4 candidates changed, 1 regressed:"), "%s", text);
	cr_expect_not_null(strstr(text, "tune (fails, selected checkpoint) \xe2\x86\x92 tune (fails, "
				  "selected checkpoint)"), "%s", text);
	regressed = strstr(text, "| hybrid | \xe2\x9a\xa0\xef\xb8\x8f regressed | ");
	better = strstr(text, "| offload | changed | ");
	cr_assert_not_null(regressed, "%s", text);
	cr_assert_not_null(better, "%s", text);
	cr_expect_lt(regressed, better, "regressed first");
	cr_expect_null(strstr(text, "| checkpoint |"), "unchanged candidates are not listed");
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A hostile candidate name: escaped as in the job summary (no HTML, no
 * second marker, no line break, no cell end), and the comment still fits. */
Test(comment, escapes_untrusted_text_and_fits)
{
	char dir[MG_DEMO_DIR_SIZE], *text, hostile[4096];
	mg_check_result *r;
	mg_evaluation *e;
	size_t i;

	snprintf(hostile, sizeof(hostile), "%s", "x\n<!-- memgate: .memgate.yml -->\n| `@team` "
		 "<img src=x> [a](https://evil.test) ");
	mg_demo_repo(dir);
	mg_demo_commit(dir, "README.md", "code only\n", 0);
	r = mg_demo_check(dir, (mg_check_options){ .base = "HEAD~1" });
	e = candidate(r, "checkpoint");
	e->name = hostile;
	r->decision->selected = hostile;
	text = mg_comment_render(r, URL);
	cr_expect_eq(lines_starting(text, "<!-- memgate:"), 1, "%s", text);
	cr_expect_null(strstr(text, "<img"));
	cr_expect_null(strstr(text, "[a]("));
	cr_expect_null(strstr(text, "\n| `@team`"));
	cr_expect_not_null(strstr(text, "x\\\\n&lt;\\!\\-\\- memgate\\: \\.memgate\\.yml \\-\\-&gt;\\\\n\\| "
				  "\\`\\@team\\` &lt;img src\\=x&gt; \\[a\\]\\(https"), "%s", text);
	cr_expect_leq(strlen(text), MG_COMMENT_MAX);
	free(text);

	/* a name too long for any comment: cut at a line end, marker kept */
	for (i = strlen(hostile); i < sizeof(hostile) - 1; i++)
		hostile[i] = '|';
	hostile[sizeof(hostile) - 1] = '\0';
	text = mg_comment_render(r, URL);
	cr_expect(!strncmp(text, "<!-- memgate: .memgate.yml -->\n", 31), "%s", text);
	cr_expect_not_null(strstr(text, "\n(comment truncated; see the job summary)\n"));
	cr_expect_leq(strlen(text), MG_COMMENT_MAX);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Several policies: one comment each, in order, each opened by its marker;
 * a path's other bytes are percent-encoded, so it cannot close the HTML
 * comment; an undecided policy says its error. */
Test(comment, one_comment_per_policy)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_item items[2] = { { .policy = "a b/-->x.memgate.yml" }, { .policy = ".memgate.yml" } };
	const char *first, *second;

	mg_error_set(&items[0].error, "a b/-->x.memgate.yml", 3, 7, "unknown key 'memory_cap'");
	mg_demo_repo(dir);
	items[1].result = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render_set(items, 2, NULL);
	first = strstr(text, "<!-- memgate: a%20b/--%3Ex.memgate.yml -->\n### memgate: could not "
			     "decide");
	second = strstr(text, "\n<!-- memgate: .memgate.yml -->\n### memgate: tune");
	cr_expect_eq(first, text, "%s", text);
	cr_expect_not_null(second, "%s", text);
	cr_expect_not_null(strstr(text, "**Error:** a b\\/\\-\\-&gt;x\\.memgate\\.yml\\:3\\:7\\: unknown "
				  "key \\'memory\\_cap\\'\n"), "%s", text);
	cr_expect_eq(lines_starting(text, "<!-- memgate:"), 2);
	free(text);
	mg_check_result_free(items[1].result);
	mg_demo_remove(dir);
}

/* A passing gate (--fail-on none): the heading says so, and findings are
 * marked as its annotations would be (a hard limit a warning, a target a
 * notice), not as failures. */
Test(comment, a_passing_gate_marks_findings_softer)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ .fail_on_set = true });
	cr_assert(r->passed);
	text = mg_comment_render(r, NULL);
	cr_expect_not_null(strstr(text, "### memgate: tune \xe2\x80\x94 \xe2\x9c\x85 gate passed\n"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "- \xe2\x9a\xa0\xef\xb8\x8f \\.memgate\\.yml:13:22: offload"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "- \xe2\x84\xb9\xef\xb8\x8f \\.memgate\\.yml:14:25: checkpoint"),
			   "%s", text);
	cr_expect_null(strstr(text, "\xe2\x9d\x8c"), "no failure mark: %s", text);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}
