/* The text rendering's sensitivity section: the scenarios, or a summary of
 * their winners.  See text_put.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/result.h"
#include "format.h"
#include "text_put.h"

/* Beyond these a log gets a summary instead of every row: the whole list is
 * in the decision record (--format json). */
#define TEXT_MAX_SCENARIOS 20    /* scenarios always listed by winner in full */
#define TEXT_MAX_GROUPS 6        /* in a summary: winners listed */
#define TEXT_MAX_RANGES 4        /* in a summary: scenario ranges of a winner */

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *sc_best(const mg_decision *d, size_t i)
{
	return d->scenarios[i].best;
}

/* Split "grid[12]" into its prefix length (5) and number (12). */
static bool split_id(const char *id, size_t *prefix, long *number)
{
	const char *open = strchr(id, '[');
	char *end;

	if (!open || open[1] < '0' || open[1] > '9')
		return false;
	*number = strtol(open + 1, &end, 10);
	*prefix = (size_t)(open - id + 1);
	return end[0] == ']' && end[1] == '\0';
}

/* Does scenario id b directly follow id a ("grid[3]" -> "grid[4]")? */
static bool follows(const char *a, const char *b)
{
	size_t pa, pb;
	long na, nb;

	return split_id(a, &pa, &na) && split_id(b, &pb, &nb) && pa == pb &&
	       !strncmp(a, b, pa) && nb - 1 == na;
}

/* "grid[0]" alone, "grid[0], grid[1]", or the range "grid[0-5]" from a to b. */
static void put_range(mg_buf *out, const char *a, const char *b)
{
	if (a == b || follows(a, b)) {
		mg_text__put_safe(out, a);
		if (a != b) {
			mg_buf_puts(out, ", ");
			mg_text__put_safe(out, b);
		}
		return;
	}
	mg_escape_text(out, a, strlen(a) - 1);
	mg_buf_putc(out, '-');
	mg_text__put_safe(out, strchr(b, '[') + 1);
}

/* "  winner checkpoint (base winner): stricter[0], grid[0-5]" for the
 * scenarios whose winner is that of scenario `first`, the first to have it. */
static void put_winner_group(mg_buf *out, const mg_decision *d, size_t first)
{
	const mg_scenario *sc = d->scenarios;
	const char *best = sc[first].best, *sep = " ";
	size_t i, start = first, last = first;

	mg_buf_puts(out, "  winner ");
	mg_text__put_winner(out, best);
	if (best && same_name(best, d->best))
		mg_buf_puts(out, " (base winner)");
	mg_buf_putc(out, ':');
	for (i = first + 1; i <= d->scenario_count; i++) {
		bool end = i == d->scenario_count;

		if (!end && !same_name(sc[i].best, best))
			continue;
		if (!end && follows(sc[last].id, sc[i].id)) {
			last = i;
			continue;
		}
		mg_buf_puts(out, sep);
		put_range(out, sc[start].id, sc[last].id);
		sep = ", ";
		start = last = i;
	}
	mg_buf_putc(out, '\n');
}

/* A scenario and the index of its winner (SIZE_MAX for none). */
struct sc_winner {
	size_t winner, scenario;
};

static int sc_winner_cmp(const void *a, const void *b)
{
	const struct sc_winner *x = a, *y = b;

	if (x->winner != y->winner)
		return x->winner < y->winner ? -1 : 1;
	return (x->scenario > y->scenario) - (x->scenario < y->scenario);
}

/* A winner's scenarios: list[start..end) of the sorted pairs. */
struct sc_group {
	size_t start, end;
};

static int sc_group_cmp(const void *a, const void *b)
{
	const struct sc_group *x = a, *y = b;
	size_t nx = x->end - x->start, ny = y->end - y->start;

	if (nx != ny)
		return nx > ny ? -1 : 1;   /* most scenarios first */
	return (x->start > y->start) - (x->start < y->start);
}

/* "  winner X (base winner): 360 scenarios: grid[0-9], grid[20-29] and 34
 * more ranges" */
static void put_group_summary(mg_buf *out, const mg_decision *d, const struct sc_winner *list,
			      const struct sc_group *g)
{
	const mg_scenario *sc = d->scenarios;
	const char *best = sc[list[g->start].scenario].best, *sep = " ";
	size_t i, start = g->start, ranges = 0;

	mg_buf_puts(out, "  winner ");
	mg_text__put_winner(out, best);
	if (best && same_name(best, d->best))
		mg_buf_puts(out, " (base winner)");
	mg_buf_printf(out, ": %zu scenario%s:", g->end - g->start, g->end - g->start == 1 ? "" : "s");
	for (i = g->start + 1; i <= g->end; i++) {
		if (i < g->end && follows(sc[list[i - 1].scenario].id, sc[list[i].scenario].id))
			continue;
		if (ranges++ < TEXT_MAX_RANGES) {
			mg_buf_puts(out, sep);
			put_range(out, sc[list[start].scenario].id, sc[list[i - 1].scenario].id);
			sep = ", ";
		}
		start = i;
	}
	if (ranges > TEXT_MAX_RANGES)
		mg_buf_printf(out, " and %zu more range%s", ranges - TEXT_MAX_RANGES,
			      ranges - TEXT_MAX_RANGES == 1 ? "" : "s");
	mg_buf_putc(out, '\n');
}

/* The number of id ranges ("grid[0-5]") in a group. */
static size_t group_ranges(const mg_decision *d, const struct sc_winner *list,
			   const struct sc_group *g)
{
	size_t i, ranges = 1;

	for (i = g->start + 1; i < g->end; i++)
		ranges += !follows(d->scenarios[list[i - 1].scenario].id,
				   d->scenarios[list[i].scenario].id);
	return ranges;
}

/* More scenarios than a log can show (more winners, or more id ranges,
 * than a few lines hold): how often the winner changes, and the winners
 * with the most scenarios.  False, printing nothing, when every winner's
 * line fits. */
static bool put_sensitivity_summary(mg_buf *out, const mg_decision *d)
{
	size_t n = d->scenario_count, i, groups = 0, same = 0, none = 0, rest = 0, ranges = 0;
	struct sc_winner *list = mg_xcalloc(n, sizeof(*list));
	struct sc_group *g = mg_xcalloc(n, sizeof(*g));
	bool summary;

	for (i = 0; i < n; i++) {
		list[i].winner = d->scenarios[i].best ? d->scenarios[i].best_index : SIZE_MAX;
		list[i].scenario = i;
		same += d->scenarios[i].best && same_name(d->scenarios[i].best, d->best);
		none += !d->scenarios[i].best;
	}
	qsort(list, n, sizeof(*list), sc_winner_cmp);
	for (i = 0; i < n; i++) {
		if (!i || list[i].winner != list[i - 1].winner)
			g[groups++].start = i;
		g[groups - 1].end = i + 1;
	}
	for (i = 0; i < groups; i++)
		ranges += group_ranges(d, list, &g[i]);
	summary = groups > TEXT_MAX_GROUPS || ranges > TEXT_MAX_GROUPS * TEXT_MAX_RANGES;
	if (!summary)
		goto done;
	mg_buf_printf(out, "  the winner is the base winner in %zu, another candidate in %zu, "
		      "none in %zu\n", same, n - same - none, none);
	qsort(g, groups, sizeof(*g), sc_group_cmp);
	for (i = 0; i < groups && i < TEXT_MAX_GROUPS; i++)
		put_group_summary(out, d, list, &g[i]);
	for (; i < groups; i++)
		rest += g[i].end - g[i].start;
	if (groups > TEXT_MAX_GROUPS)
		mg_buf_printf(out, "  and %zu more winners in %zu scenarios "
			      "(memgate check --format json lists every scenario)\n",
			      groups - TEXT_MAX_GROUPS, rest);
done:
	free(list);
	free(g);
	return summary;
}

/* "memory_cap_mb 8500, min_samples_per_s 1.5", or "no override". */
static void put_overrides_or_none(mg_buf *out, const mg_budget *ov)
{
	size_t before = out->len;

	mg_format_overrides(out, ov);
	if (out->len == before)
		mg_buf_puts(out, "no override");
}
/* What each scenario id stands for: "  stricter[0]: memory_cap_mb 8500",
 * and one line for the grid: "  grid[0-5]: memory_cap_mb 9600, 11200 x
 * min_samples_per_s 1, 1.5, 2 (last axis fastest)". */
static void put_scenario_ids(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_rules *rules = r->policy ? &r->policy->rules : NULL;
	size_t i, k, first_grid = d->scenario_count;

	for (i = 0; i < d->scenario_count; i++) {
		if (strncmp(d->scenarios[i].id, "stricter[", 9)) {
			if (first_grid == d->scenario_count)
				first_grid = i;
			continue;
		}
		mg_buf_printf(out, "  %s: ", d->scenarios[i].id);
		put_overrides_or_none(out, &d->scenarios[i].overrides);
		mg_buf_putc(out, '\n');
	}
	if (first_grid == d->scenario_count || !rules || !rules->grid_count || !rules->grid)
		return;
	mg_buf_puts(out, "  ");
	put_range(out, d->scenarios[first_grid].id, d->scenarios[d->scenario_count - 1].id);
	mg_buf_puts(out, ": ");
	for (i = 0; i < rules->grid_count; i++) {
		const mg_grid_axis *axis = &rules->grid[i];

		mg_buf_printf(out, "%s%s ", i ? " x " : "", mg_threshold_name(axis->threshold));
		for (k = 0; k < axis->count; k++) {
			if (k)
				mg_buf_puts(out, ", ");
			mg_format_threshold(out, axis->values[k]);
		}
	}
	mg_buf_puts(out, rules->grid_count > 1 ? " (last axis fastest)\n" : "\n");
}

void mg_text__put_sensitivity(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	size_t i, j;

	mg_buf_puts(out, "sensitivity: ");
	mg_format_stability(out, d, mg_format_name);
	mg_buf_putc(out, '\n');
	if (!d->sensitivity_evaluated)
		return;
	if (d->scenario_count > TEXT_MAX_SCENARIOS && put_sensitivity_summary(out, d)) {
		put_scenario_ids(out, r);
		return;
	}
	for (i = 0; i < d->scenario_count; i++) {
		for (j = 0; j < i && !same_name(sc_best(d, j), sc_best(d, i)); j++)
			;
		if (j == i)
			put_winner_group(out, d, i);
	}
	put_scenario_ids(out, r);
}
