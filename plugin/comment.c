/* The pull-request comment: see include/memgate/comment.h. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "findings.h"
#include "format.h"
#include "memgate/comment.h"
#include "memgate/escape.h"

#define MARKER_OPEN "<!-- memgate: "
#define MARKER_CLOSE " -->\n"

struct comment {
	const mg_check_result *r;
	const char *policy;            /* the marker's path */
	const char *url;               /* linked, or NULL */
	const mg_finding *findings;    /* borrowed from r */
	size_t finding_count, finding_total;   /* shown in a comment: not quiet reasons */
	mg_compare_row *rows;          /* against the base, regressed first */
	size_t row_count, changed;     /* rows; rows that changed (listed) */
	size_t regressed;
	size_t max_rows, max_findings; /* shown at most (shrunk to fit) */
	mg_buf out;
};

/* Untrusted text, safe in a table cell or any inline Markdown. */
static void put_md(mg_buf *out, const char *s)
{
	mg_escape_markdown_cell(out, s, strlen(s));
}

/* A candidate name as the summary writes it. */
static void put_name(mg_buf *out, const char *name)
{
	mg_buf plain = MG_BUF_INIT;

	mg_format_name(&plain, name);
	mg_escape_markdown_cell(out, plain.ptr, plain.len);
	mg_buf_free(&plain);
}

/* A commit id, shortened: a code span when it is hex, else escaped text. */
static void put_commit(mg_buf *out, const char *id)
{
	if (*id && strspn(id, "0123456789abcdef") == strlen(id))
		mg_buf_printf(out, "`%.12s`", id);
	else
		put_md(out, *id ? id : "unknown");
}

/* The marker line: the path with every byte but A-Z a-z 0-9 . _ / + -
 * percent-encoded, so that it can neither end the HTML comment nor the line. */
static void put_marker(mg_buf *out, const char *path)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._/+-";
	const unsigned char *p = (const unsigned char *)path;

	mg_buf_puts(out, MARKER_OPEN);
	for (; *p; p++)
		if (strchr(keep, *p))
			mg_buf_putc(out, (char)*p);
		else
			mg_buf_printf(out, "%%%02X", *p);
	mg_buf_puts(out, MARKER_CLOSE);
}

/* Whether url may be linked: http(s) and only characters that cannot end
 * a Markdown link or start HTML. */
static bool plain_url(const char *url)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789-._~:/%";

	if (!url || (strncmp(url, "https://", 8) && strncmp(url, "http://", 7)))
		return false;
	return strspn(url, ok) == strlen(url);
}

/* ---- what changed against the base ---- */

/* Whether the row got worse: a feasible candidate no longer is, or a
 * compared value moved the wrong way (more memory, fewer samples/s,
 * higher loss). */
static bool regressed(const mg_compare_row *row)
{
	static const int worse[MG_COMPARE_METRICS] = { 1, -1, 1 };  /* up, down, up */
	size_t k;

	if (!row->in_base || !row->in_head)
		return false;
	if (row->base_status == MG_STATUS_FEASIBLE && row->head_status != MG_STATUS_FEASIBLE)
		return true;
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		const mg_compare_value *v = &row->value[k];

		if (v->base_known && v->head_known &&
		    (worse[k] > 0 ? v->head > v->base : v->head < v->base))
			return true;
	}
	return false;
}

/* Order the rows: regressed, then other changes, then the unchanged
 * (report order within each); count them. */
static void order_rows(struct comment *c)
{
	mg_compare_row *sorted = mg_xcalloc(c->row_count ? c->row_count : 1, sizeof(*sorted));
	size_t i, n = 0;
	int pass;

	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < c->row_count; i++) {
			bool bad = regressed(&c->rows[i]), changed = mg_compare_row_changed(&c->rows[i]) ||
				   c->rows[i].base_status != c->rows[i].head_status;

			if ((pass == 0 && bad) || (pass == 1 && !bad && changed) ||
			    (pass == 2 && !bad && !changed))
				sorted[n++] = c->rows[i];
			c->regressed += pass == 0 && bad;
			c->changed += pass < 2 && (pass == 0 ? bad : !bad && changed);
		}
	free(c->rows);
	c->rows = sorted;
}

/* "9450.76 → 9782 (+331.24)", "9450.76" when it stayed, "n/a". */
static void put_value(mg_buf *out, const mg_compare_row *row, const mg_compare_value *v)
{
	double zero = 0, delta;
	bool base = row->in_base && v->base_known, head = row->in_head && v->head_known;

	if (!base && !head) {
		mg_buf_puts(out, "n/a");
		return;
	}
	if (!base || !head || v->base == v->head) {
		mg_format_value(out, head ? v->head : v->base, NULL);
		return;
	}
	mg_format_value(out, v->base, NULL);
	mg_buf_puts(out, " \xe2\x86\x92 ");
	mg_format_value(out, v->head, NULL);
	delta = v->head - v->base;
	mg_buf_puts(out, delta >= 0 ? " (+" : " (");
	mg_format_value(out, delta, &zero);
	mg_buf_putc(out, ')');
}

static void put_row(mg_buf *out, const mg_compare_row *row)
{
	size_t k;

	mg_buf_puts(out, "| ");
	put_name(out, row->name);
	mg_buf_puts(out, " | ");
	if (regressed(row))
		mg_buf_puts(out, "\xe2\x9a\xa0\xef\xb8\x8f regressed");
	else if (!row->in_base)
		mg_buf_puts(out, "new");
	else if (!row->in_head)
		mg_buf_puts(out, "removed");
	else
		mg_buf_puts(out, "changed");
	if (row->in_base && row->in_head && row->base_status != row->head_status)
		mg_buf_printf(out, ": %s \xe2\x86\x92 %s", mg_status_name(row->base_status),
			      mg_status_name(row->head_status));
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		mg_buf_puts(out, " | ");
		put_value(out, row, &row->value[k]);
	}
	mg_buf_puts(out, " |\n");
}

static void put_side(mg_buf *out, const mg_check_result *r)
{
	mg_buf_printf(out, "%s (%s, ", mg_verdict_name(r->decision->verdict),
		      r->passed ? "passes" : "fails");
	mg_buf_puts(out, "selected ");
	if (r->decision->selected)
		put_name(out, r->decision->selected);
	else
		mg_buf_puts(out, "none");
	mg_buf_putc(out, ')');
}

static void put_base(struct comment *c)
{
	const mg_check_base *b = c->r->base;
	mg_buf *out = &c->out;
	size_t i, shown = 0;

	if (!b) {
		mg_buf_puts(out, "\n**Against the base:** not compared (no base commit given)\n");
		return;
	}
	mg_buf_puts(out, "\n**Against the base** ");
	put_commit(out, b->rev);
	if (!b->result) {
		mg_buf_puts(out, ": could not be decided: ");
		put_md(out, b->error ? b->error : "unknown error");
		mg_buf_putc(out, '\n');
		return;
	}
	mg_buf_puts(out, ": ");
	/* its measured commit is not here: its verdict is not known, the
	 * one it would get here (measured_commit_unknown) is not its own */
	if (b->result->decision->issue[MG_ISSUE_MEASURED_COMMIT_UNKNOWN])
		mg_buf_puts(out, "decision not known here (its measured commit is not in this "
			    "clone)");
	else
		put_side(out, b->result);
	mg_buf_puts(out, " \xe2\x86\x92 ");
	put_side(out, c->r);
	mg_buf_puts(out, "\n\n");
	if (!c->changed) {
		mg_buf_printf(out, "No candidate's status or values changed (%zu compared).\n",
			      c->row_count);
		return;
	}
	mg_buf_printf(out, "%zu of %zu candidates changed, %zu regressed:\n\n"
		      "| candidate | change | peak MB | samples/s | eval_loss |\n"
		      "|---|---|---:|---:|---:|\n", c->changed, c->row_count, c->regressed);
	for (i = 0; i < c->changed && shown < c->max_rows; i++, shown++)
		put_row(out, &c->rows[i]);
	if (shown < c->changed)
		mg_buf_printf(out, "\n%zu more changed candidates in the job summary\n",
			      c->changed - shown);
}

/* ---- the decision and the findings ---- */

static void put_heading(struct comment *c)
{
	const mg_decision *d = c->r->decision;
	mg_buf *out = &c->out;

	mg_buf_printf(out, "### memgate: %s \xe2\x80\x94 %s\n\n**Policy:** ",
		      mg_verdict_name(d->verdict),
		      c->r->passed ? "\xe2\x9c\x85 gate passed" : "\xe2\x9d\x8c gate failed");
	put_md(out, c->policy);
	mg_buf_printf(out, " \xc2\xb7 **Reason:** `%s` \xc2\xb7 **Next action:** `%s` "
		      "\xc2\xb7 **Selected:** ", mg_outcome_name(d->reason),
		      mg_next_action_name(d->next_action));
	if (d->selected)
		put_name(out, d->selected);
	else
		mg_buf_puts(out, "none");
	mg_buf_putc(out, '\n');
}

/* The findings a comment lists: the reasons (not warnings or notes),
 * without those kept out of annotations on unchanged evidence. */
static bool listed(const struct comment *c, const mg_finding *f)
{
	return f->weight < MG_FINDING_WARNING && !mg_finding_quiet(c->r, f);
}

/* A finding's marker, as its annotation's level and the job summary
 * show it: hard findings are errors when the gate fails, else warnings;
 * the others warnings, else notices. */
static const char *marker(const mg_finding *f, bool passed)
{
	static const char error[] = "\xe2\x9d\x8c", warning[] = "\xe2\x9a\xa0\xef\xb8\x8f",
			  notice[] = "\xe2\x84\xb9\xef\xb8\x8f";

	if (f->weight == MG_FINDING_HARD)
		return passed ? warning : error;
	return passed ? notice : warning;
}

static void put_findings(struct comment *c)
{
	mg_buf *out = &c->out;
	size_t i, shown = 0;

	if (!c->finding_total)
		return;
	mg_buf_printf(out, "\n**Findings** (%zu):\n\n", c->finding_total);
	for (i = 0; i < c->finding_count && shown < c->max_findings; i++) {
		const mg_finding *f = &c->findings[i];

		if (!listed(c, f))
			continue;
		mg_buf_printf(out, "- %s ", marker(f, c->r->passed));
		mg_format_location(out, f->file, f->pos, put_md);
		put_md(out, f->message);
		mg_buf_printf(out, " (`%s`)\n", f->code);
		shown++;
	}
	if (shown < c->finding_total)
		mg_buf_printf(out, "- \xe2\x80\xa6 %zu more in the job summary\n",
			      c->finding_total - shown);
}

static void put_link(struct comment *c)
{
	if (plain_url(c->url))
		mg_buf_printf(&c->out, "\nThe rest (every candidate, sensitivity, evidence): "
			      "[the job summary of this run](%s).\n", c->url);
	else
		mg_buf_puts(&c->out, "\nThe rest (every candidate, sensitivity, evidence) is in the "
			    "job summary of this run and the decision record.\n");
}

static void render(struct comment *c)
{
	mg_buf_init(&c->out);
	put_marker(&c->out, c->policy);
	put_heading(c);
	put_base(c);
	put_findings(c);
	put_link(c);
}

/* Cut at a line end to fit max bytes, saying so (huge names). */
static void truncate_comment(mg_buf *out, size_t max)
{
	static const char note[] = "\n(comment truncated; see the job summary)\n";
	size_t cut = max > sizeof(note) ? max - sizeof(note) : 0;
	size_t marker = (size_t)(strchr(out->ptr, '\n') - out->ptr);

	while (cut > marker && out->ptr[cut] != '\n')
		cut--;
	if (cut < marker)
		cut = marker;
	out->len = cut + 1;   /* the marker line stays whole */
	out->ptr[out->len] = '\0';
	mg_buf_puts(out, note + 1);
}

/* One comment, appended to out. */
static void comment_one(mg_buf *out, const mg_check_result *r, const char *policy,
			const char *url)
{
	struct comment c = { 0 };
	size_t i;

	c.r = r;
	c.policy = policy;
	c.url = url;
	c.findings = mg_result_findings(r, &c.finding_count);
	for (i = 0; i < c.finding_count; i++)
		c.finding_total += listed(&c, &c.findings[i]);
	if (r->base && r->base->result)
		mg_compare_rows(&c.rows, &c.row_count, r->base->result->decision, r->decision);
	order_rows(&c);
	c.max_rows = c.max_findings = MG_COMMENT_ROWS;
	for (;;) {
		render(&c);
		if (c.out.len <= MG_COMMENT_MAX || (!c.max_rows && !c.max_findings))
			break;
		if (c.max_rows >= c.max_findings)
			c.max_rows /= 2;
		else
			c.max_findings /= 2;
		mg_buf_free(&c.out);
	}
	if (c.out.len > MG_COMMENT_MAX)
		truncate_comment(&c.out, MG_COMMENT_MAX);
	mg_buf_put(out, c.out.ptr, c.out.len);
	mg_buf_free(&c.out);
	free(c.rows);
}

/* A policy that could not be decided: its marker and the error. */
static void comment_error(mg_buf *out, const char *policy, const mg_error *err)
{
	mg_buf where = MG_BUF_INIT, one = MG_BUF_INIT;

	put_marker(&one, policy);
	mg_buf_puts(&one, "### memgate: could not decide \xe2\x80\x94 \xe2\x9d\x8c gate failed\n\n"
		    "**Policy:** ");
	put_md(&one, policy);
	mg_buf_puts(&one, " \xc2\xb7 **Error:** ");
	if (err->file[0]) {
		mg_buf_puts(&where, err->file);
		if (err->line > 0)
			mg_buf_printf(&where, ":%d", err->line);
		if (err->line > 0 && err->column > 0)
			mg_buf_printf(&where, ":%d", err->column);
		mg_buf_puts(&where, ": ");
	}
	mg_buf_puts(&where, err->message);
	put_md(&one, where.ptr);
	mg_buf_putc(&one, '\n');
	if (one.len > MG_COMMENT_MAX)
		truncate_comment(&one, MG_COMMENT_MAX);
	mg_buf_put(out, one.ptr, one.len);
	mg_buf_free(&where);
	mg_buf_free(&one);
}

char *mg_comment_render(const mg_check_result *r, const char *summary_url)
{
	mg_buf out = MG_BUF_INIT;

	assert(r && r->decision);
	comment_one(&out, r, r->policy_ref.path ? r->policy_ref.path : ".memgate.yml",
		    summary_url);
	return mg_buf_detach(&out, NULL);
}

char *mg_comment_render_set(const mg_check_item *items, size_t count, const char *summary_url)
{
	mg_buf out = MG_BUF_INIT;
	size_t i;

	assert(items || !count);
	mg_buf_puts(&out, "");
	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		if (r && r->decision)
			comment_one(&out, r, r->policy_ref.path ? r->policy_ref.path :
				    items[i].policy, summary_url);
		else
			comment_error(&out, items[i].policy, &items[i].error);
	}
	return mg_buf_detach(&out, NULL);
}
