/* The comparison of a pull request's screening with its base's. */
#include <criterion/criterion.h>
#include <string.h>

#include "../plugin/compare.h"

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
