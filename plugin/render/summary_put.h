#ifndef MEMGATE_SUMMARY_PUT_H
#define MEMGATE_SUMMARY_PUT_H
/*
 * What the files of the job summary (summary.c, summary_base.c,
 * summary_insight.c) share: the state of one rendering, the Markdown
 * writers of untrusted text, names, codes and hashes, and the sections
 * summary.c assembles.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "memgate/buf.h"
#include "memgate/result.h"
#include "memgate/escape.h"
#include "compare.h"
#include "findings.h"
#include "format.h"

/* The tables whose rows are dropped to fit MG_SUMMARY_MAX. */
enum table { T_CANDIDATES, T_FINDINGS, T_SCENARIOS, T_BASE, T_COUNT };

/* One rendering of the summary: its inputs, its tables' budgets, its output. */
struct render {
	const mg_check_result *r;
	const mg_decision *d;
	const mg_finding *findings;
	size_t finding_count;
	const mg_compare_row *rows;   /* against the base, computed once */
	size_t row_count;
	size_t total[T_COUNT];   /* rows there are */
	size_t limit[T_COUNT];   /* rows to show at most */
	size_t shown[T_COUNT];   /* rows shown by the last render */
	size_t used[T_COUNT];    /* bytes each table took in the last render */
	size_t max;              /* bytes the summary may take */
	mg_buf out;
};

/* Untrusted text, safe in a table cell or any inline Markdown. */
static inline void mg_summary__put_md(mg_buf *out, const char *s)
{
	mg_escape_markdown_cell(out, s, strlen(s));
}

/* A candidate name: its mg_escape_text form ("(no name)" for NULL), then
 * escaped for Markdown. */
static inline void mg_summary__put_name(mg_buf *out, const char *name)
{
	mg_buf plain = MG_BUF_INIT;

	mg_format_name(&plain, name);
	mg_escape_markdown_cell(out, plain.ptr, plain.len);
	mg_buf_free(&plain);
}

/* A code span for our own identifiers (reason names, issue codes). */
static inline void mg_summary__put_code(mg_buf *out, const char *s)
{
	mg_buf_printf(out, "`%s`", s);
}

/* An object id or hash: a code span when it is hex, else escaped text. */
static inline void mg_summary__put_hex(mg_buf *out, const char *s)
{
	if (*s && strspn(s, "0123456789abcdef") == strlen(s))
		mg_summary__put_code(out, s);
	else if (*s)
		mg_summary__put_md(out, s);
	else
		mg_buf_puts(out, "not computed");
}

/* Whether the table may take one more row: rows are left out past the
 * limit, or once the summary is already too long. */
static inline bool mg_summary__room_for_row(struct render *x, enum table t)
{
	return x->shown[t] < x->limit[t] && x->out.len <= x->max;
}

/* "N more WHAT omitted; see WHERE" when the table left rows out. */
static inline void mg_summary__put_omitted(struct render *x, enum table t, const char *what,
					   const char *where)
{
	if (x->shown[t] < x->total[t])
		mg_buf_printf(&x->out, "\n%zu more %s omitted; see %s\n",
			      x->total[t] - x->shown[t], what, where);
}

/* The base comparison: each candidate's numbers at the base and now
 * (summary_base.c). */
void mg_summary__put_base(struct render *x);

/* With regression: (memgate(1), REGRESSIONS AND HISTORY): the allowances,
 * a row per regression that counts and per change the runs' noise covers,
 * right under the heading (summary_regress.c). */
void mg_summary__put_regression(struct render *x);

/* Tipping points, noise, the trade-off front and its charts
 * (summary_insight.c). */
void mg_summary__put_insight(struct render *x);

/* With regression.history: what the medians are over, and a chart of each
 * compared candidate's peak (summary_insight.c, with the other charts). */
void mg_summary__put_history(struct render *x);

#endif
