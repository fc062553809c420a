/* The job summary's regressions: the allowances, a row per regression that
 * counts and per change within the runs' noise, and where each regressed
 * peak series stepped.  See summary_put.h. */
#include <math.h>
#include <stdio.h>

#include "memgate/buf.h"
#include "format.h"
#include "summary_put.h"

/* Against the history: where each regressed peak series stepped, a line
 * each ("checkpoint's peak stepped +6.8 % at `abc1234` (3 measurements
 * ago)"), after a blank line; nothing when none stepped. */
static void put_steps(struct render *x)
{
	const mg_decision *d = x->r->decision;
	mg_buf *out = &x->out;
	const char *commit;
	char shortid[8];
	size_t k, ago;
	double pct;

	for (k = 0; k < d->regressed_count; k++) {
		if (!mg_check_step(&commit, &ago, &pct, x->r, &d->regressed[k]))
			continue;
		mg_buf_putc(out, '\n');
		mg_summary__put_name(out, d->regressed[k].name);
		mg_buf_printf(out, "'s peak stepped %+.1f %% at ", pct);
		if (commit) {
			snprintf(shortid, sizeof(shortid), "%.7s", commit);
			mg_summary__put_code(out, shortid);
			mg_buf_printf(out, " (%zu %s ago).\n", ago,
				      ago == 1 ? "measurement" : "measurements");
		} else {
			mg_buf_puts(out, "this change.\n");
		}
	}
}

/* A row of the regressions' table: one that counts (its reason, a cross),
 * or a change the runs' noise covers (changed_within_noise, the noise). */
static void put_regressed_row(struct render *x, const mg_regressed *g, bool within_noise)
{
	const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
	const char *unit = def->metric == MG_M_PEAK ? " MB" : "";
	mg_buf *out = &x->out;

	mg_buf_puts(out, "| ");
	mg_summary__put_name(out, g->name);
	mg_buf_puts(out, " | ");
	mg_summary__put_code(out, within_noise ? mg_code_of(MG_CODE_CHANGED_WITHIN_NOISE)->name
					       : mg_reason_name(def->reason));
	mg_buf_puts(out, " | ");
	mg_format_value(out, g->base, NULL);
	mg_buf_printf(out, "%s | ", unit);
	mg_format_value(out, g->head, NULL);
	mg_buf_printf(out, "%s | %s", unit, within_noise ? "" : "\xe2\x9d\x8c ");
	mg_format_value(out, g->change, &g->limit);
	mg_buf_puts(out, def->unit);
	if (within_noise && isfinite(g->p)) {
		mg_buf_printf(out, " (changed; within the runs' noise: p = %.3g)", g->p);
	} else if (within_noise) {
		mg_buf_printf(out, " (changed; within the runs' noise: %+.1f to %+.1f%s)",
			      g->band_min, g->band_max, def->unit);
	}
	mg_buf_puts(out, " | ");
	mg_summary__put_code(out, def->key);
	mg_buf_putc(out, ' ');
	mg_format_threshold(out, g->limit);
	mg_buf_puts(out, " |\n");
}

/* With regression: (memgate(1), REGRESSIONS AND HISTORY): the allowances, a row per
 * regression that counts and per change the runs' noise covers, right under
 * the heading. */
void mg_summary__put_regression(struct render *x)
{
	const mg_decision *d = x->d;
	const mg_regression *rg = &x->r->policy->rules.regression;
	mg_buf *out = &x->out;
	const char *sep = "";
	size_t k;
	int t;

	mg_buf_printf(out, "\n### Regressions against the %s\n\n**Allowed:** ",
		      x->r->history && x->r->history->used ? "history" : "base");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (rg->limits.set[t]) {
			mg_buf_puts(out, sep);
			mg_summary__put_code(out, mg_threshold_name((enum mg_threshold)t));
			mg_buf_putc(out, ' ');
			mg_format_threshold(out, rg->limits.value[t]);
			sep = ", ";
		}
	mg_buf_printf(out, "; covers %s; decision %s.", mg_covers_name(rg->covers),
		      rg->reject ? "reject" : "tune");
	if (!d->regression_checked) {
		mg_buf_puts(out, " Not compared: there is no base to compare with.\n");
		return;
	}
	if (d->regression_within_noise)
		mg_buf_printf(out, " %zu change%s within the runs' noise do%s not count.",
			      d->regression_within_noise, d->regression_within_noise == 1 ? "" : "s",
			      d->regression_within_noise == 1 ? "es" : "");
	if (!d->regressed_count && !d->regression_within_noise) {
		mg_buf_puts(out, " No covered candidate regressed beyond them.\n");
		return;
	}
	if (!d->regressed_count)
		mg_buf_puts(out, " No covered candidate regressed beyond them and their noise.");
	mg_buf_printf(out, "\n\n| candidate | reason | %s | this change | change | allowed |\n"
		      "|---|---|---:|---:|---:|---:|\n",
		      x->r->history && x->r->history->used ? "median" : "base");
	for (k = 0; k < d->regressed_count; k++)
		put_regressed_row(x, &d->regressed[k], false);
	for (k = 0; k < d->regression_within_noise; k++)
		put_regressed_row(x, &d->within_noise[k], true);
	put_steps(x);
}
