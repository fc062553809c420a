/* The comparison of a pull request's screening with its base's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define N 4

static struct {
	mg_decision base, head;
	mg_evaluation b[N], h[N];
} fx;

static void set(mg_evaluation *e, const char *name, enum mg_status status, double peak,
		double samples, bool loss_known, double loss)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->status = status;
	e->known[MG_M_PEAK] = e->known[MG_M_SAMPLES] = true;
	e->value[MG_M_PEAK] = peak;
	e->value[MG_M_SAMPLES] = samples;
	e->known[MG_M_EVAL_LOSS] = loss_known;
	e->value[MG_M_EVAL_LOSS] = loss;
}

static void build(size_t nb, size_t nh)
{
	fx.base.base.evaluations = fx.b;
	fx.base.base.count = nb;
	fx.head.base.evaluations = fx.h;
	fx.head.base.count = nh;
}

Test(compare, matches_candidates_by_name_in_the_head_order)
{
	mg_compare_row *rows = NULL;
	size_t n = 0;

	set(&fx.b[0], "baseline", MG_STATUS_REJECTED, 9782.74, 2.009, true, 12.35);
	set(&fx.b[1], "checkpoint", MG_STATUS_REJECTED, 9450.76, 1.761, true, 12.35);
	set(&fx.h[0], "checkpoint", MG_STATUS_FEASIBLE, 9000.5, 1.761, true, 12.35);
	set(&fx.h[1], "baseline", MG_STATUS_REJECTED, 9782.74, 2.009, true, 12.35);
	build(2, 2);
	mg_compare_rows(&rows, &n, &fx.base, &fx.head);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rows[0].name, "checkpoint");
	cr_assert(rows[0].in_base && rows[0].in_head);
	cr_assert_eq(rows[0].base_status, MG_STATUS_REJECTED);
	cr_assert_eq(rows[0].head_status, MG_STATUS_FEASIBLE);
	cr_assert_eq(rows[0].value[0].base, 9450.76);
	cr_assert_eq(rows[0].value[0].head, 9000.5);
	cr_assert(mg_compare_row_changed(&rows[0]));
	cr_assert_str_eq(rows[1].name, "baseline");
	cr_assert_not(mg_compare_row_changed(&rows[1]));
	free(rows);
}

Test(compare, new_removed_nameless_and_duplicate_candidates_are_rows_of_their_own)
{
	mg_compare_row *rows = NULL;
	size_t n = 0;

	set(&fx.b[0], "offload", MG_STATUS_REJECTED, 9448.33, 0.533, true, 12.35);
	set(&fx.b[1], "hybrid", MG_STATUS_REJECTED, 9454.64, 1.276, true, 12.35);
	set(&fx.b[2], NULL, MG_STATUS_INVALID, 1, 1, false, 0);
	set(&fx.h[0], "hybrid", MG_STATUS_REJECTED, 9454.64, 1.276, true, 12.35);
	set(&fx.h[1], "offload-v2", MG_STATUS_REJECTED, 9448.33, 0.533, true, 12.35);
	set(&fx.h[2], "hybrid", MG_STATUS_INVALID, 1, 1, false, 0);
	build(3, 3);
	mg_compare_rows(&rows, &n, &fx.base, &fx.head);
	cr_assert_eq(n, 5);
	cr_assert_str_eq(rows[0].name, "hybrid");
	cr_assert(rows[0].in_base && rows[0].in_head);
	cr_assert_str_eq(rows[1].name, "offload-v2");
	cr_assert(!rows[1].in_base && rows[1].in_head);
	cr_assert_str_eq(rows[2].name, "hybrid");       /* the second 'hybrid' is new */
	cr_assert(!rows[2].in_base && rows[2].in_head);
	cr_assert_str_eq(rows[3].name, "offload");
	cr_assert(rows[3].in_base && !rows[3].in_head);
	cr_assert_null(rows[4].name);                    /* a nameless one is never matched */
	cr_assert(rows[4].in_base && !rows[4].in_head);
	cr_assert(mg_compare_row_changed(&rows[1]) && mg_compare_row_changed(&rows[3]));
	free(rows);
}

Test(compare, a_value_that_becomes_unknown_is_a_change)
{
	mg_compare_row *rows = NULL;
	size_t n = 0;

	set(&fx.b[0], "checkpoint", MG_STATUS_REJECTED, 9450.76, 1.761, true, 12.35);
	set(&fx.h[0], "checkpoint", MG_STATUS_REJECTED, 9450.76, 1.761, false, 0);
	build(1, 1);
	mg_compare_rows(&rows, &n, &fx.base, &fx.head);
	cr_assert_eq(n, 1);
	cr_assert(rows[0].value[2].base_known && !rows[0].value[2].head_known);
	cr_assert(mg_compare_row_changed(&rows[0]));
	free(rows);
}

/* Name comparisons for n candidates on each side, half of them shared. */
static size_t compares_for(size_t n)
{
	mg_evaluation *b = calloc(n, sizeof(*b)), *h = calloc(n, sizeof(*h));
	char (*names)[16] = calloc(2 * n, sizeof(*names));
	mg_decision base = { 0 }, head = { 0 };
	mg_compare_row *rows = NULL;
	size_t i, count = 0, before = mg_compare_name_compares;

	for (i = 0; i < 2 * n; i++)
		snprintf(names[i], sizeof(names[i]), "c%zu", i);
	for (i = 0; i < n; i++) {
		set(&b[i], names[i], MG_STATUS_FEASIBLE, 9000, 2, true, 12);
		set(&h[i], names[n / 2 + i], MG_STATUS_FEASIBLE, 9000, 2, true, 12);
	}
	base.base.evaluations = b;
	base.base.count = n;
	head.base.evaluations = h;
	head.base.count = n;
	mg_compare_rows(&rows, &count, &base, &head);
	cr_assert_eq(count, n + n / 2);
	free(rows);
	free(names);
	free(b);
	free(h);
	return mg_compare_name_compares - before;
}

/* Issue 19, finding 3: each candidate was looked up by name linearly
 * (80k names took minutes).  Now n log n: doubling the candidates at most
 * 2.5x the comparisons. */
Test(compare, matching_is_n_log_n_in_the_candidates)
{
	size_t c1 = compares_for(20000), c2 = compares_for(40000);

	cr_expect_lt(c1, (size_t)20000 * 80, "%zu comparisons for 20000 candidates", c1);
	cr_expect_lt(c2, c1 * 5 / 2, "%zu comparisons for 40000, %zu for 20000", c2, c1);
}
