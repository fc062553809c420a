/* Numbers and names for people: see plugin/result/format.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/escape.h"
#include "format.h"

#define SHORT_DIGITS 10   /* above this, try 6 significant digits */

/* Significant digits in a %g rendering, from the first non-zero digit to
 * the last ("0.8765" has 4, "11200" has 3). */
static int sig_digits(const char *s)
{
	int n = 0, last = 0;

	for (; *s && *s != 'e'; s++) {
		if (*s >= '1' && *s <= '9')
			last = ++n;
		else if (*s == '0' && n)
			n++;
	}
	return last;
}

static int compare(double a, double b)
{
	return (a > b) - (a < b);
}

void mg_format_value(mg_buf *out, double v, const double *limit)
{
	char full[40], brief[40];

	v = v == 0 ? 0 : v;
	snprintf(full, sizeof(full), "%.15g", v);
	if (sig_digits(full) <= SHORT_DIGITS) {
		mg_buf_puts(out, full);
		return;
	}
	snprintf(brief, sizeof(brief), "%.6g", v);
	if (!limit || compare(strtod(brief, NULL), *limit) == compare(v, *limit))
		mg_buf_puts(out, brief);
	else
		mg_buf_puts(out, full);
}

void mg_format_threshold(mg_buf *out, double v)
{
	mg_buf_printf(out, "%.15g", v == 0 ? 0 : v);
}

void mg_format_name(mg_buf *out, const char *name)
{
	if (!name)
		mg_buf_puts(out, "(no name)");
	else if (!name[0])
		mg_buf_puts(out, "(empty name)");
	else
		mg_escape_text(out, name, strlen(name));
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Does scenario sc have the base screening's feasible list? */
static bool same_feasible(const mg_scenario *sc, const mg_screening *base)
{
	size_t cursor = 0, index, i = 0;

	if (sc->feasible_count != base->feasible_count)
		return false;
	while (mg_scenario_next_feasible(sc, &cursor, &index))
		if (index != base->feasible[i++])
			return false;
	return true;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

void mg_format_stability(mg_buf *out, const mg_decision *d,
			 void (*put_name)(mg_buf *out, const char *name))
{
	size_t n = d->scenario_count, same = 0, winners = 0, moved = 0, i;

	if (!d->sensitivity_evaluated) {
		mg_buf_puts(out, "not evaluated: the decision stopped at the evidence or the baseline");
		return;
	}
	if (!n) {
		mg_buf_puts(out, "not tested: the policy has no sensitivity scenarios");
		return;
	}
	for (i = 0; i < n; i++) {
		same += same_name(d->scenarios[i].best, d->best);
		winners += d->scenarios[i].best != NULL;
		moved += !same_feasible(&d->scenarios[i], &d->base);
	}
	if (!d->best && !winners) {
		mg_buf_printf(out, "no winner to be stable: no candidate is feasible under the base "
			      "budget or in any of the %zu scenario%s", n, plural(n));
	} else if (!d->best) {
		mg_buf_printf(out, "no winner under the base budget; %zu of %zu scenario%s ha%s one "
			      "(they do not change this decision)", winners, n, plural(n),
			      winners == 1 ? "s" : "ve");
	} else if (same == n) {
		mg_buf_puts(out, "selection stable: ");
		put_name(out, d->best);
		if (n == 1)
			mg_buf_puts(out, " wins the only scenario");
		else
			mg_buf_printf(out, " wins all %zu scenarios", n);
		if (moved)
			mg_buf_printf(out, "; the feasible set changes in %zu of them, the selection "
				      "does not", moved);
	} else {
		mg_buf_puts(out, "selection sensitive: ");
		put_name(out, d->best);
		mg_buf_printf(out, " wins %zu of %zu scenario%s", same, n, plural(n));
	}
}

void mg_format_overrides(mg_buf *out, const mg_budget *ov)
{
	const char *sep = "";
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (!ov->set[t])
			continue;
		mg_buf_printf(out, "%s%s ", sep, mg_threshold_name((enum mg_threshold)t));
		mg_format_threshold(out, ov->value[t]);
		sep = ", ";
	}
}

void mg_format_knob(mg_buf *out, const mg_tipping *tp)
{
	assert(out && tp);
	if (tp->axis < 0)
		mg_buf_printf(out, "%s ", mg_threshold_name(tp->threshold));
	else
		mg_buf_printf(out, "sensitivity.grid %s[%zu] ", mg_threshold_name(tp->threshold),
			      tp->value_index);
	mg_format_threshold(out, tp->value);
}

static const char *const side_words[] = {
	[MG_TIP_AT] = "at",
	[MG_TIP_BELOW] = "below",
	[MG_TIP_ABOVE] = "above",
};

void mg_format_tip(mg_buf *out, const mg_tip *t,
		   void (*put_name)(mg_buf *out, const char *name))
{
	mg_buf exact = MG_BUF_INIT, rounded = MG_BUF_INIT;

	assert(out && t && put_name);
	if (!t->found) {
		if (t->limit_reached)
			if (t->probe_limit)
				mg_buf_printf(out, "no change within the nearest %zu values (search limit)",
					      t->probe_limit);
			else
				mg_buf_puts(out, "not searched: one decision costs more than the "
					    "search limit allows (MG_INSIGHT_MAX_WORK)");
		else
			mg_buf_puts(out, "no change");
		return;
	}
	mg_format_exact(&exact, t->bound);
	mg_format_value(&rounded, t->bound, NULL);
	mg_buf_printf(out, "%s %s", side_words[t->side], rounded.ptr);
	if (strcmp(exact.ptr, rounded.ptr))
		mg_buf_printf(out, " (exact %s)", exact.ptr);
	mg_buf_printf(out, ": %s (%s), selected ", mg_verdict_name(t->verdict), t->reason);
	if (t->selected)
		put_name(out, t->selected);
	else
		mg_buf_puts(out, "(none)");
	mg_buf_free(&exact);
	mg_buf_free(&rounded);
}

void mg_format_exchange(mg_buf *out, const mg_evaluation *e)
{
	double rate;

	switch (mg_exchange_rate(&rate, e)) {
	case MG_EXCHANGE_FREE: mg_buf_puts(out, "free"); break;
	case MG_EXCHANGE_RATE:
		mg_format_value(out, rate, NULL);
		mg_buf_puts(out, " MB per 1% throughput");
		break;
	default: mg_buf_puts(out, "unknown"); break;
	}
}

void mg_format_location(mg_buf *out, const char *file, mg_pos pos,
			void (*put_file)(mg_buf *out, const char *file))
{
	if (!file)
		return;
	put_file(out, file);
	if (pos.line > 0)
		mg_buf_printf(out, ":%d", pos.line);
	if (pos.line > 0 && pos.column > 0)
		mg_buf_printf(out, ":%d", pos.column);
	mg_buf_puts(out, ": ");
}
