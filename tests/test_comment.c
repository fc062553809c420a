/*
 * The pull-request comment: include/memgate/comment.h.  Checked on the demo
 * repository's real check result: the marker line, the decision, the
 * candidates against the base (regressed first), the findings, the link,
 * the size limit and the escaping of untrusted text.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo-repo.h"
#include "findings.h"
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

Test(comment, starts_with_its_marker_and_says_the_decision_in_words)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;
	const char *words, *codes;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render(r, URL);
	/* the first line after the marker: the decision and its first reason,
	 * in words, with the numbers and the allowance */
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: \xe2\x9d\x8c gate failed** "
			   "\xe2\x80\x94 tune, checkpoint\\: memory saving 331\\.98 MB &lt; "
			   "min\\_memory\\_saving\\_mb 512.\n\n<!-- memgate: .memgate.yml -->\n"
			   "### \\.memgate\\.yml: tune \xe2\x80\x94 \xe2\x9d\x8c gate failed\n",
			   strlen("<!-- memgate -->\n**memgate: \xe2\x9d\x8c gate failed** ")), "%s", text);
	cr_expect_not_null(strstr(text, "\n<!-- memgate: .memgate.yml -->\n"
				  "### \\.memgate\\.yml: tune \xe2\x80\x94 \xe2\x9d\x8c gate failed\n\n"
				  "checkpoint\\: memory saving 331\\.98 MB &lt; min\\_memory\\_saving\\_mb "
				  "512.\n"), "%s", text);
	/* the codes come after the words */
	words = strstr(text, "**Findings**");
	codes = strstr(text, "Reason `memory_saving_below_meaningful_threshold` \xc2\xb7 next "
		       "action `test_larger_pressure_or_optimizer_compression` \xc2\xb7 selected "
		       "checkpoint\n");
	cr_assert_not_null(words, "%s", text);
	cr_assert_not_null(codes, "%s", text);
	cr_expect_lt(words, codes);
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
	cr_expect_eq(lines_starting(text, "<!--"), 2);
	cr_expect_leq(strlen(text), MG_COMMENT_MAX + 1024);
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

	/* with a regression: section compared, a worse move within its
	 * allowance is a change, not a regression */
	r->decision->regression_checked = true;
	text = mg_comment_render(r, URL);
	cr_expect_not_null(strstr(text, "2 of 4 candidates changed, 0 regressed:"), "%s", text);
	cr_expect_not_null(strstr(text, "| hybrid | changed | "), "%s", text);
	cr_expect_null(strstr(text, "regressed |"), "%s", text);
	free(text);

	/* past its allowance but within the runs' noise: a change, with that */
	r->decision->within_noise = calloc(1, sizeof(*r->decision->within_noise));
	r->decision->within_noise[0].name = "hybrid";
	r->decision->regression_within_noise = 1;
	text = mg_comment_render(r, URL);
	cr_expect_not_null(strstr(text, "2 of 4 candidates changed, 0 regressed:"), "%s", text);
	cr_expect_not_null(strstr(text, "| hybrid | changed (within the runs' noise) | "), "%s", text);
	cr_expect_not_null(strstr(text, "| offload | changed | "), "%s", text);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Whether text has a '<' outside its marker lines, or an '@' or '['
 * without the backslash that escapes it (but the run's link). */
static bool unsafe_outside_markers(const char *text)
{
	const char *p = text, *end;
	size_t i;

	for (; p && *p; p = end ? end + 1 : NULL) {
		end = strchr(p, '\n');
		if (!strncmp(p, "<!-- memgate", 12))
			continue;
		for (i = 0; p[i] && p + i != end; i++) {
			if (p[i] == '<')
				return true;
			if ((p[i] == '@' || p[i] == '[') && (i == 0 || p[i - 1] != '\\') &&
			    strncmp(p + i, "[the job summary of this run](", 30))
				return true;
		}
	}
	return false;
}

/* The length of text's section of `marker` (up to the next blank line
 * before a marker, or the end). */
static size_t section_len(const char *text, const char *marker)
{
	const char *start = strstr(text, marker), *next;

	cr_assert_not_null(start, "no %s in %s", marker, text);
	next = strstr(start + 1, "\n<!-- memgate: ");
	return next ? (size_t)(next - start) : strlen(start);
}

/* A hostile candidate name: escaped as in the job summary (no HTML, no
 * second marker, no line break, no cell end), and the comment still fits. */
Test(comment, escapes_untrusted_text_and_fits)
{
	char dir[MG_DEMO_DIR_SIZE], *text, hostile[4096];
	mg_check_result *r;
	mg_evaluation *e;
	const char *lead;
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
	cr_expect_eq(lines_starting(text, "<!--"), 2, "%s", text);
	cr_expect_null(strstr(text, "<img"));
	cr_expect_null(strstr(text, "[a]("));
	cr_expect_null(strstr(text, "\n| `@team`"));
	cr_expect(!unsafe_outside_markers(text), "%s", text);
	cr_expect_not_null(strstr(text, "x\\\\n&lt;\\!\\-\\- memgate\\: \\.memgate\\.yml \\-\\-&gt;\\\\n\\| "
				  "\\`\\@team\\` &lt;img src\\=x&gt; \\[a\\]\\(https"), "%s", text);
	cr_expect_leq(section_len(text, "<!-- memgate: .memgate.yml -->"), MG_COMMENT_MAX);
	free(text);

	/* a name too long for any comment: the section cut at a line end,
	 * marker kept; the first line cut at a character, one line */
	for (i = strlen(hostile); i < sizeof(hostile) - 1; i++)
		hostile[i] = '|';
	hostile[sizeof(hostile) - 1] = '\0';
	mg_findings_fill(r);   /* the messages name it anew */
	text = mg_comment_render(r, URL);
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: ", 28), "%s", text);
	lead = strchr(text, '\n') + 1;
	cr_expect_lt(strchr(lead, '\n') - lead, 1500, "%s", text);
	cr_expect_not_null(strstr(lead, "\xe2\x80\xa6"), "the cut says so: %s", text);
	cr_expect_not_null(strstr(text, "\n\n<!-- memgate: .memgate.yml -->\n"), "%s", text);
	cr_expect_not_null(strstr(text, "\n(comment truncated; see the job summary)\n"));
	cr_expect_leq(section_len(text, "<!-- memgate: .memgate.yml -->"), MG_COMMENT_MAX);
	cr_expect(!unsafe_outside_markers(text), "%s", text);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Several policies: one comment, a section each, the worst first, each
 * opened by its marker; a path's other bytes are percent-encoded, so it
 * cannot close the HTML comment; an undecided policy says its error, in
 * the first line too. */
Test(comment, one_comment_a_section_per_policy)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_item items[2] = { { .policy = ".memgate.yml" }, { .policy = "a b/-->x.memgate.yml" } };
	const char *first, *second;

	mg_error_set(&items[1].error, "a b/-->x.memgate.yml", 3, 7, "unknown key 'memory_cap'");
	mg_demo_repo(dir);
	items[0].result = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render_set(items, 2, NULL, NULL);
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: \xe2\x9d\x8c gate failed** \xe2\x80\x94 "
			   "a b\\/\\-\\-&gt;x\\.memgate\\.yml: could not decide: a b\\/\\-\\-&gt;"
			   "x\\.memgate\\.yml\\:3\\:7\\: unknown key \\'memory\\_cap\\'. Of 2 policies: "
			   "1 could not decide, 1 fail.\n\n", 200), "%s", text);
	first = strstr(text, "\n<!-- memgate: a%20b/--%3Ex.memgate.yml -->\n### a b\\/\\-\\-&gt;"
			     "x\\.memgate\\.yml: could not decide \xe2\x80\x94 \xe2\x9d\x8c gate failed\n\n"
			     "a b\\/\\-\\-&gt;x\\.memgate\\.yml\\:3\\:7\\: unknown key "
			     "\\'memory\\_cap\\'\n");
	second = strstr(text, "\n<!-- memgate: .memgate.yml -->\n### \\.memgate\\.yml: tune");
	cr_assert_not_null(first, "%s", text);
	cr_assert_not_null(second, "%s", text);
	cr_expect_lt(first, second, "the error first");
	cr_expect_eq(lines_starting(text, "<!-- memgate:"), 2);
	cr_expect_eq(lines_starting(text, "<!-- memgate -->"), 1);
	free(text);
	mg_check_result_free(items[0].result);
	mg_demo_remove(dir);
}

/* check --all --changed: a policy it leaves alone is named unchanged, a
 * retired one retired, each in a section of its own, after the gated. */
Test(comment, names_the_unchanged_and_the_retired)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_item item = { .policy = ".memgate.yml" };
	mg_plan_entry entries[3] = {
		{ "old/.memgate.yml", MG_PLAN_RETIRED, "'old/.memgate.yml' is retired <b>" },
		{ ".memgate.yml", MG_PLAN_GATE, NULL },
		{ "b/.memgate.yml", MG_PLAN_UNCHANGED, NULL },
	};
	mg_plan plan = { entries, 3 };
	const char *gated, *unchanged, *retired;

	mg_demo_repo(dir);
	item.result = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render_set(&item, 1, &plan, NULL);
	cr_expect_not_null(strstr(text, ". Of 3 policies: 1 fail, 1 unchanged by this pull request, "
				  "1 retired.\n"), "%s", text);
	gated = strstr(text, "\n<!-- memgate: .memgate.yml -->\n");
	unchanged = strstr(text, "\n<!-- memgate: b/.memgate.yml -->\n### b\\/\\.memgate\\.yml: "
			   "unchanged by this pull request\n\nNone of its inputs changed: not gated, "
			   "as at the base (whose decision is not computed here).\n");
	retired = strstr(text, "\n<!-- memgate: old/.memgate.yml -->\n### old\\/\\.memgate\\.yml: "
			 "retired by this pull request\n\n\\'old\\/\\.memgate\\.yml\\' is retired "
			 "&lt;b&gt;\n");
	cr_assert_not_null(gated, "%s", text);
	cr_assert_not_null(unchanged, "%s", text);
	cr_assert_not_null(retired, "%s", text);
	cr_expect(gated < unchanged && unchanged < retired, "%s", text);

	/* only unchanged policies: the gate passes, and says why */
	free(text);
	text = mg_comment_render_set(NULL, 0, &plan, NULL);
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: \xe2\x9c\x85 gate passed** \xe2\x80\x94 "
			   "Of 2 policies: 1 unchanged by this pull request, 1 retired.\n", 110),
		  "%s", text);
	free(text);
	/* one policy, left alone */
	plan.entries = &entries[2];
	plan.count = 1;
	text = mg_comment_render_set(NULL, 0, &plan, NULL);
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: \xe2\x9c\x85 gate passed** \xe2\x80\x94 "
			   "b\\/\\.memgate\\.yml: unchanged by this pull request.\n\n", 95),
		  "%s", text);
	free(text);
	mg_check_result_free(item.result);
	mg_demo_remove(dir);
}

/* Hundreds of policies: the comment stays under GitHub's limit and
 * MG_COMMENT_SECTIONS, the errors and failures first, the rest counted. */
Test(comment, many_policies_fit_one_comment)
{
	char dir[MG_DEMO_DIR_SIZE], *text, name[128];
	enum { N = 401 };
	static mg_plan_entry entries[N];
	static char names[N][64];
	mg_check_item items[2] = { { .policy = "z/.memgate.yml" }, { .policy = ".memgate.yml" } };
	mg_plan plan = { entries, N };
	size_t i;

	mg_error_set(&items[0].error, "z/.memgate.yml", 1, 1, "broken");
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "m%03zu/.memgate.yml", i);
		entries[i].policy = names[i];
		entries[i].kind = MG_PLAN_UNCHANGED;
	}
	mg_demo_repo(dir);
	items[1].result = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render_set(items, 2, &plan, URL);
	cr_expect_leq(strlen(text), MG_COMMENT_TOTAL);
	cr_expect_eq(lines_starting(text, "<!-- memgate: "), MG_COMMENT_SECTIONS, "%s", text);
	cr_expect_not_null(strstr(text, "Of 403 policies: 1 could not decide, 1 fail, 401 unchanged "
				  "by this pull request.\n"), "%s", text);
	cr_expect(strstr(text, "<!-- memgate: z/.memgate.yml -->") <
		  strstr(text, "<!-- memgate: .memgate.yml -->"), "the error first");
	snprintf(name, sizeof(name), "\n%d more policies (0 could not decide, 0 fail) are in the "
		 "job summary.\n", 403 - MG_COMMENT_SECTIONS);
	cr_expect_not_null(strstr(text, name), "%s", text);
	cr_expect_not_null(strstr(text, "[the job summary of this run](" URL ")"));
	free(text);
	mg_check_result_free(items[1].result);
	mg_demo_remove(dir);
}

/* Each section of a comment: its marker line, and at most MG_COMMENT_MAX
 * bytes from it to the next section's; true when every one fits. */
static bool sections_fit(const char *text)
{
	const char *p = strstr(text, "\n<!-- memgate: "), *next;

	for (; p; p = next) {
		next = strstr(p + 1, "\n<!-- memgate: ");
		if ((size_t)((next ? next : p + strlen(p)) - p - 1) > MG_COMMENT_MAX)
			return false;
	}
	return true;
}

/* A 2,000-byte policy path (every byte percent-encoded in the marker, most
 * escaped in the heading): each section still fits MG_COMMENT_MAX, decided
 * or not; the marker and heading elide the path, the markers of two such
 * paths stay apart, and the escaping holds. */
Test(comment, a_long_policy_path_keeps_the_limit)
{
	char dir[MG_DEMO_DIR_SIZE], *text, *saved, a[2001], b[2001], c[2001];
	mg_check_item items[3] = { { .policy = a }, { .policy = b }, { .policy = c } };
	size_t i;

	for (i = 0; i < 2000; i++)
		a[i] = b[i] = c[i] = "<@ [x]/"[i % 7];
	a[2000] = b[2000] = c[2000] = '\0';
	b[1999] = 'y';
	c[1999] = 'z';
	mg_error_set(&items[0].error, a, 1, 1, "unknown key 'memory_cap'");
	mg_error_set(&items[1].error, b, 1, 1, "unknown key 'memory_cap'");
	mg_demo_repo(dir);
	items[2].result = mg_demo_check(dir, (mg_check_options){ 0 });
	saved = items[2].result->policy_ref.path;
	items[2].result->policy_ref.path = c;
	text = mg_comment_render_set(items, 3, NULL, URL);
	cr_expect(sections_fit(text), "%s", text);
	cr_expect_eq(lines_starting(text, "<!-- memgate: "), 3, "%s", text);
	cr_expect(!unsafe_outside_markers(text), "%s", text);
	cr_expect_null(strstr(text, "(comment truncated"), "the path is elided, not the section: %s",
		       text);
	cr_expect_not_null(strstr(text, "\n### &lt;\\@ \\[x\\]\\/"), "%s", text);
	cr_expect_not_null(strstr(text, "\xe2\x80\xa6: tune"), "the heading says the cut: %s",
			   text);
	cr_expect_not_null(strstr(text, "\xe2\x80\xa6\\:1\\:1\\: unknown key \\'memory\\_cap\\'\n"),
			   "an error keeps its message: %s", text);
	items[2].result->policy_ref.path = saved;
	free(text);
	mg_check_result_free(items[2].result);
	mg_demo_remove(dir);
}

/* Nothing decided (exit 2 before any policy): the comment says so. */
Test(comment, could_not_decide)
{
	mg_error err;
	char *text;

	mg_error_set(&err, "models/<a>.yml", 2, 3, "cannot read '@team'");
	text = mg_comment_render_error(&err);
	cr_expect_str_eq(text, "<!-- memgate -->\n**memgate: \xe2\x9d\x8c could not decide** "
			 "\xe2\x80\x94 models\\/&lt;a&gt;\\.yml\\:2\\:3\\: cannot read \\'\\@team\\'\n\n"
			 "No policy was decided: the error is in the job log and the job summary.\n");
	free(text);
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
	cr_expect(!strncmp(text, "<!-- memgate -->\n**memgate: \xe2\x9c\x85 gate passed** \xe2\x80\x94 "
			   "tune, selected checkpoint.\n", 70), "%s", text);
	cr_expect_not_null(strstr(text, "### \\.memgate\\.yml: tune \xe2\x80\x94 \xe2\x9c\x85 gate "
				  "passed\n\nSelected checkpoint.\n"), "%s", text);
	cr_expect_not_null(strstr(text, "- \xe2\x9a\xa0\xef\xb8\x8f \\.memgate\\.yml:13:22: offload"),
			   "%s", text);
	cr_expect_not_null(strstr(text, "- \xe2\x84\xb9\xef\xb8\x8f \\.memgate\\.yml:14:25: checkpoint"),
			   "%s", text);
	cr_expect_null(strstr(text, "\xe2\x9d\x8c"), "no failure mark: %s", text);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A policy that asks for a signature: the first line and the section say
 * who signed (escaped), or that the signature is not verified. */
Test(comment, says_who_signed)
{
	char dir[MG_DEMO_DIR_SIZE], *text;
	mg_check_result *r;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	text = mg_comment_render(r, NULL);
	cr_expect_null(strstr(text, "Signed by"), "no signature asked: %s", text);
	cr_expect_null(strstr(text, "signature"), "%s", text);
	free(text);

	r->signature.checked = true;
	r->signature.verified = true;
	r->signature.principals = strdup("alice@example.com,@ops");
	text = mg_comment_render(r, NULL);
	cr_expect_not_null(strstr(text, "512. Signed by alice\\@example\\.com\\,\\@ops.\n\n<!-- memgate: "),
			   "the first line: %s", text);
	cr_expect_not_null(strstr(text, "min\\_memory\\_saving\\_mb 512. Signed by alice\\@example\\.com"
				  "\\,\\@ops.\n\n**Against"), "the section: %s", text);
	cr_expect(!unsafe_outside_markers(text), "%s", text);
	free(text);

	r->signature.verified = false;
	text = mg_comment_render(r, NULL);
	cr_expect_not_null(strstr(text, "512. The manifest's signature is not verified.\n"), "%s", text);
	free(text);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Forty failing policies of long sections: the comment stops at
 * MG_COMMENT_TOTAL, each section whole, the rest counted as failing. */
Test(comment, long_sections_stop_at_the_total)
{
	char dir[MG_DEMO_DIR_SIZE], *text, hostile[1024], *path;
	enum { N = 40 };
	mg_check_item items[N];
	mg_check_result *r;
	size_t i, shown;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	memset(hostile, '|', sizeof(hostile) - 1);
	hostile[sizeof(hostile) - 1] = '\0';
	candidate(r, "checkpoint")->name = hostile;
	mg_findings_fill(r);
	path = r->policy_ref.path;
	r->policy_ref.path = NULL;   /* each item's own path */
	for (i = 0; i < N; i++) {
		items[i].policy = i % 2 ? "b/.memgate.yml" : "a/.memgate.yml";
		items[i].result = r;
		mg_error_clear(&items[i].error);
	}
	text = mg_comment_render_set(items, N, NULL, URL);
	shown = lines_starting(text, "<!-- memgate: ");
	cr_expect_leq(strlen(text), MG_COMMENT_TOTAL);
	cr_expect_gt(shown, 10, "%zu sections", shown);
	cr_expect_lt(shown, N, "%zu sections", shown);
	cr_expect_not_null(strstr(text, "more policies (0 could not decide"), "%s", text);
	cr_expect_not_null(strstr(text, "[the job summary of this run](" URL ")"));
	cr_expect(!unsafe_outside_markers(text));
	free(text);
	r->policy_ref.path = path;
	mg_check_result_free(r);
	mg_demo_remove(dir);
}
