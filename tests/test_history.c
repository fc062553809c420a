/* regression.history's medians (include/memgate/history.h). */
#include <criterion/criterion.h>
#include <math.h>

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
