/*
 * noise-check: the decision core's rank test and change-point method on
 * series read from stdin, for tests/noise/run, which holds them to an
 * independent implementation (tests/noise/reference.py).  One case a line:
 *
 *   mw M N X1 .. XM Y1 .. YN   ->  p                      (mg_noise_mann_whitney)
 *   step N X1 .. XN            ->  found at t before after (mg_step_find)
 *
 * Numbers are printed with %.17g so that they read back as the same double.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/noise.h"

static int read_values(double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (scanf("%lf", &v[i]) != 1)
			return -1;
	return 0;
}

int main(void)
{
	char op[8];
	size_t m, n;
	double *v;
	mg_step s;

	while (scanf("%7s", op) == 1) {
		if (!strcmp(op, "mw")) {
			if (scanf("%zu %zu", &m, &n) != 2 || !(v = malloc((m + n + 1) * sizeof(*v))))
				return 2;
			if (read_values(v, m + n) < 0)
				return 2;
			printf("%.17g\n", mg_noise_mann_whitney(v, m, v + m, n));
		} else if (!strcmp(op, "step")) {
			if (scanf("%zu", &n) != 1 || !(v = malloc((n + 1) * sizeof(*v))))
				return 2;
			if (read_values(v, n) < 0)
				return 2;
			mg_step_find(&s, v, n);
			printf("%d %zu %.17g %.17g %.17g\n", s.found, s.at, s.t, s.before, s.after);
		} else {
			return 2;
		}
		free(v);
	}
	return 0;
}
