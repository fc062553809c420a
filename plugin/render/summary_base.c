/* The job summary's base comparison: each candidate's numbers at the base
 * and now.  See summary_put.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "compare.h"
#include "format.h"
#include "summary_put.h"

/* ---- the base comparison ---- */

/* "9450.76 → 9000 (−450.76)", "1.761 (same)", "9000" for a new candidate. */
static void put_compare_cell(mg_buf *out, const mg_compare_row *row, const mg_compare_value *v)
{
	double zero = 0, delta;
	bool base = row->in_base && v->base_known, head = row->in_head && v->head_known;

	if (!base && !head) {
		mg_buf_puts(out, "n/a");
		return;
	}
	if (!row->in_base || !row->in_head) {
		mg_format_value(out, head ? v->head : v->base, NULL);
		return;
	}
	if (base && head && v->base == v->head) {
		mg_format_value(out, v->head, NULL);
		mg_buf_puts(out, " (same)");
		return;
	}
	if (base)
		mg_format_value(out, v->base, NULL);
	else
		mg_buf_puts(out, "n/a");
	mg_buf_puts(out, " \xe2\x86\x92 ");
	if (head)
		mg_format_value(out, v->head, NULL);
	else
		mg_buf_puts(out, "n/a");
	if (base && head) {
		delta = v->head - v->base;
		mg_buf_puts(out, delta >= 0 ? " (+" : " (");
		mg_format_value(out, delta, &zero);
		mg_buf_putc(out, ')');
	}
}

/* The rows against the base: at most MG_SUMMARY_BASE_ROWS, fewer when the
 * summary runs out of room, the rest said. */
static void put_compare_rows(struct render *x)
{
	mg_buf *out = &x->out;
	double median;
	size_t i, k;

	mg_buf_puts(out, "| candidate | change | peak MB | samples/s | eval_loss |\n"
		    "|---|---|---:|---:|---:|\n");
	for (i = 0; i < x->row_count && mg_summary__room_for_row(x, T_BASE); i++) {
		const mg_compare_row *row = &x->rows[i];

		x->shown[T_BASE]++;
		mg_buf_puts(out, "| ");
		mg_summary__put_name(out, row->name);
		mg_buf_puts(out, " | ");
		if (!row->in_base)
			mg_buf_puts(out, "new");
		else if (!row->in_head)
			mg_buf_puts(out, "removed");
		else if (row->base_status != row->head_status)
			mg_buf_printf(out, "%s \xe2\x86\x92 %s", mg_status_name(row->base_status),
				      mg_status_name(row->head_status));
		else
			mg_buf_puts(out, mg_compare_row_changed(row) ? "changed" : "\xe2\x80\x94");
		for (k = 0; k < MG_COMPARE_METRICS; k++) {
			mg_buf_puts(out, " | ");
			put_compare_cell(out, row, &row->value[k]);
			if (mg_compare_metrics[k] == MG_M_PEAK && row->in_head &&
			    mg_check_history_median(&median, x->r, row->name)) {
				mg_buf_printf(out, "; median of the last %zu: ", x->r->history->used);
				mg_format_value(out, median, NULL);
			}
		}
		mg_buf_puts(out, " |\n");
	}
	mg_summary__put_omitted(x, T_BASE, "candidates", "the decision record");
}

void mg_summary__put_base(struct render *x)
{
	const mg_check_base *b = x->r->base;
	const mg_decision *bd, *d = x->d;
	mg_buf *out = &x->out;

	if (!b)
		return;
	mg_buf_puts(out, "\n### Against the base\n\n");
	if (!b->result) {
		mg_buf_puts(out, "The base commit ");
		mg_summary__put_hex(out, b->rev);
		mg_buf_puts(out, " could not be decided: ");
		mg_summary__put_md(out, b->error ? b->error : "unknown error");
		mg_buf_putc(out, '\n');
		return;
	}
	bd = b->result->decision;
	mg_buf_puts(out, "| | commit | decision | reason | selected | gate |\n|---|---|---|---|---|---|\n"
		    "| base | ");
	mg_summary__put_hex(out, b->rev);
	if (bd->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN]) {
		/* its measured commit is not here: its own verdict is not known;
		 * what its numbers select is compared */
		mg_buf_puts(out, " | not known here | its measured commit is not in this clone | ");
		mg_summary__put_name(out, b->result->compare_selected ?
				     b->result->compare_selected : "none");
		mg_buf_puts(out, " (its numbers) | not known |\n| this change | ");
	} else {
		mg_buf_printf(out, " | %s | ", mg_verdict_name(bd->verdict));
		mg_summary__put_code(out, mg_outcome_name(bd->reason));
		mg_buf_puts(out, " | ");
		mg_summary__put_name(out, bd->selected ? bd->selected : "none");
		mg_buf_printf(out, " | %s |\n| this change | ",
			      b->result->passed ? "passed" : "failed");
	}
	mg_summary__put_hex(out, x->r->rev);
	mg_buf_printf(out, " | %s | ", mg_verdict_name(d->verdict));
	mg_summary__put_code(out, mg_outcome_name(d->reason));
	mg_buf_puts(out, " | ");
	mg_summary__put_name(out, d->selected ? d->selected : "none");
	mg_buf_printf(out, " | %s |\n\nBoth decided with the same policy. Per candidate, base "
		      "\xe2\x86\x92 this change (delta)%s:\n\n", x->r->passed ? "passed" : "failed",
		      x->r->history && x->r->history->used && d->regression_checked ?
		      "; the peak's median over the history is what the regressions compare with" : "");
	put_compare_rows(x);
}
