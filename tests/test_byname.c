/* Candidates by name: the one sorted index every module that matches,
 * counts or finds candidates by name reads, and the baseline. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byname.h"

/* A report's candidates as the parser leaves them: NULL for a name that is
 * not a string, "" for an empty one, repeats kept. */
static mg_candidate cands[7];
static mg_evidence ev = { .candidates = cands, .candidate_count = 7 };

static void names(void)
{
	static char b[] = "b", a[] = "a", empty[] = "", b2[] = "b", c[] = "c", a2[] = "a";
	char *list[7] = { b, a, NULL, empty, b2, c, a2 };
	size_t i;

	memset(cands, 0, sizeof(cands));
	for (i = 0; i < 7; i++)
		cands[i].name = list[i];
}

Test(byname, sorts_by_name_then_place_leaving_out_no_name, .init = names)
{
	static const char *const name[] = { "", "a", "a", "b", "b", "c" };
	static const size_t index[] = { 3, 1, 6, 0, 4, 5 };
	size_t n, i;
	mg_named *v = mg_byname_candidates(&n, &ev);

	cr_assert_eq(n, 6, "the nameless candidate is left out, the empty name kept");
	for (i = 0; i < n; i++) {
		cr_expect_str_eq(v[i].name, name[i], "entry %zu", i);
		cr_expect_eq(v[i].index, index[i], "entry %zu: the first of a name leads", i);
	}
	free(v);
}

Test(byname, finds_the_first_of_a_name, .init = names)
{
	size_t n;
	mg_named *v = mg_byname_candidates(&n, &ev);

	cr_expect_eq(mg_byname_find(v, n, "a")->index, 1);
	cr_expect_eq(mg_byname_find(v, n, "b")->index, 0);
	cr_expect_eq(mg_byname_find(v, n, "")->index, 3);
	cr_expect_null(mg_byname_find(v, n, "ab"));
	cr_expect_null(mg_byname_find(v, n, "d"));
	cr_expect_null(mg_byname_find(v, n, NULL));
	cr_expect_null(mg_byname_find(v, 0, "a"), "an empty index has none");
	free(v);
}

Test(byname, indexes_evaluations_alike)
{
	mg_evaluation e[4] = { { .name = "z" }, { .name = NULL }, { .name = "y" }, { .name = "z" } };
	mg_screening s = { .evaluations = e, .count = 4 };
	size_t n;
	mg_named *v = mg_byname_evaluations(&n, &s);

	cr_assert_eq(n, 3);
	cr_expect_eq(v[0].index, 2);
	cr_expect_eq(v[1].index, 0);
	cr_expect_eq(v[2].index, 3);
	free(v);
	v = mg_byname_evaluations(&n, &(mg_screening){ 0 });
	cr_expect_eq(n, 0, "no evaluation, an empty index");
	cr_expect_not_null(v);
	free(v);
}

/* The baseline is the first candidate of its name: evidence.baseline, else
 * "baseline". */
Test(byname, finds_the_baseline, .init = names)
{
	mg_rules rules = { .baseline = "b" };
	size_t i = 99;

	cr_expect(mg_find_baseline(&i, &rules, &ev));
	cr_expect_eq(i, 0);
	cr_expect_not(mg_find_baseline(&i, NULL, &ev), "no candidate is named 'baseline'");
	cr_expect_str_eq(mg_rules_baseline(NULL), "baseline");
}

/* Sorting n names and finding each costs about n log n comparisons: with
 * 4096 candidates, not n^2 (16.7 million). */
Test(byname, costs_n_log_n_comparisons)
{
	enum { N = 4096 };
	mg_candidate *c = calloc(N, sizeof(*c));
	char (*text)[16] = calloc(N, sizeof(*text));
	mg_evidence big = { .candidates = c, .candidate_count = N };
	size_t n, i, before = mg_byname_compares;
	mg_named *v;

	for (i = 0; i < N; i++) {
		snprintf(text[i], sizeof(text[i]), "c%zu", (i * 2654435761u) % N);
		c[i].name = text[i];
	}
	v = mg_byname_candidates(&n, &big);
	for (i = 0; i < N; i++)
		cr_assert_not_null(mg_byname_find(v, n, text[i]));
	cr_expect_lt(mg_byname_compares - before, (size_t)N * 40, "%zu comparisons",
		     mg_byname_compares - before);
	free(v);
	free(text);
	free(c);
}
