/* The pull-request comment: see include/memgate/comment.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "digest.h"
#include "findings.h"
#include "severity.h"
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

/* Text at most max bytes (cut at a character), escaped, "…" when cut:
 * the first line stays one readable sentence. */
static void put_md_short(mg_buf *out, const char *s, size_t max)
{
	size_t len = strlen(s);
	mg_buf cut = MG_BUF_INIT;

	if (len <= max) {
		put_md(out, s);
		return;
	}
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	mg_buf_put(&cut, s, max);
	put_md(out, cut.ptr);
	mg_buf_puts(out, "\xe2\x80\xa6");
	mg_buf_free(&cut);
}

/* Bytes of a policy's path a section's marker and heading show: whatever
 * its length, a section keeps within MG_COMMENT_MAX (a marker line is
 * never cut, and each byte may take three there, up to six escaped). */
#define PATH_SHOWN 120

/* A policy's path in a heading: escaped, elided past PATH_SHOWN bytes. */
static void put_policy(mg_buf *out, const char *path)
{
	put_md_short(out, path, PATH_SHOWN);
}

/* The marker line: the path with every byte but A-Z a-z 0-9 . _ / + -
 * percent-encoded, so that it can neither end the HTML comment nor the
 * line.  A path longer than PATH_SHOWN bytes is cut there and followed by
 * "..." and 16 hex digits of its SHA-256: the marker stays short, and two
 * long paths alike in their first bytes keep apart. */
static void put_marker(mg_buf *out, const char *path)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._/+-";
	const unsigned char *p = (const unsigned char *)path;
	size_t len = strlen(path), i;
	char hex[MG_DIGEST_HEX_SIZE];

	mg_buf_puts(out, MARKER_OPEN);
	for (i = 0; i < len && i < PATH_SHOWN; i++)
		if (strchr(keep, p[i]))
			mg_buf_putc(out, (char)p[i]);
		else
			mg_buf_printf(out, "%%%02X", p[i]);
	if (len > PATH_SHOWN) {
		if (mg_digest_sha256_hex(hex, path, len) < 0)
			snprintf(hex, sizeof(hex), "%016zx", len);   /* OpenSSL failed */
		mg_buf_printf(out, "...%.16s", hex);
	}
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
 * higher loss).  With a regression: section compared, a move counts only
 * beyond its allowance (a regression of the decision's): one within it,
 * or accepted by a waiver, reads "changed". */
static bool regressed(const mg_check_result *r, const mg_compare_row *row)
{
	static const int worse[MG_COMPARE_METRICS] = { 1, -1, 1 };  /* up, down, up */
	const mg_decision *d = r->decision;
	size_t k;

	if (!row->in_base || !row->in_head)
		return false;
	if (row->base_status == MG_STATUS_FEASIBLE && row->head_status != MG_STATUS_FEASIBLE)
		return true;
	if (d && d->regression_checked) {
		for (k = 0; k < d->regressed_count; k++)
			if (row->name && d->regressed[k].name && !strcmp(row->name, d->regressed[k].name))
				return true;
		return false;
	}
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		const mg_compare_value *v = &row->value[k];

		if (v->base_known && v->head_known &&
		    (worse[k] > 0 ? v->head > v->base : v->head < v->base))
			return true;
	}
	return false;
}

/* Whether a change of the row is past a regression allowance but within
 * the runs' noise (changed_within_noise): it reads "changed", with that. */
static bool changed_within_noise(const mg_check_result *r, const mg_compare_row *row)
{
	const mg_decision *d = r->decision;
	size_t k;

	for (k = 0; d && row->name && k < d->regression_within_noise; k++)
		if (d->within_noise[k].name && !strcmp(row->name, d->within_noise[k].name))
			return true;
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
			bool bad = regressed(c->r, &c->rows[i]), changed = mg_compare_row_changed(&c->rows[i]) ||
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

static void put_row(mg_buf *out, const mg_check_result *r, const mg_compare_row *row)
{
	double median;
	size_t k;

	mg_buf_puts(out, "| ");
	put_name(out, row->name);
	mg_buf_puts(out, " | ");
	if (regressed(r, row))
		mg_buf_puts(out, "\xe2\x9a\xa0\xef\xb8\x8f regressed");
	else if (!row->in_base)
		mg_buf_puts(out, "new");
	else if (!row->in_head)
		mg_buf_puts(out, "removed");
	else if (changed_within_noise(r, row))
		mg_buf_puts(out, "changed (within the runs' noise)");
	else
		mg_buf_puts(out, "changed");
	if (row->in_base && row->in_head && row->base_status != row->head_status)
		mg_buf_printf(out, ": %s \xe2\x86\x92 %s", mg_status_name(row->base_status),
			      mg_status_name(row->head_status));
	for (k = 0; k < MG_COMPARE_METRICS; k++) {
		mg_buf_puts(out, " | ");
		put_value(out, row, &row->value[k]);
		if (mg_compare_metrics[k] == MG_M_PEAK && row->in_head &&
		    mg_check_history_median(&median, r, row->name)) {
			mg_buf_printf(out, "; median of the last %zu: ", r->history->used);
			mg_format_value(out, median, NULL);
		}
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
		put_row(out, c->r, &c->rows[i]);
	if (shown < c->changed)
		mg_buf_printf(out, "\n%zu more changed candidates in the job summary\n",
			      c->changed - shown);
}

/* ---- the decision and the findings ---- */

/* The first reason a comment lists, or NULL. */
static const mg_finding *first_listed(const struct comment *c);
static void put_signer(mg_buf *out, const mg_check_result *r);

/* A section's heading and its sentence: the policy, the decision and the
 * gate's verdict, then the first reason in words and the signer. */
static void put_heading(struct comment *c)
{
	const mg_decision *d = c->r->decision;
	const mg_finding *f = first_listed(c);
	mg_buf *out = &c->out;

	mg_buf_puts(out, "### ");
	put_policy(out, c->policy);
	mg_buf_printf(out, ": %s \xe2\x80\x94 %s\n\n", mg_verdict_name(d->verdict),
		      c->r->passed ? "\xe2\x9c\x85 gate passed" : "\xe2\x9d\x8c gate failed");
	if (c->r->passed || !f) {
		mg_buf_puts(out, "Selected ");
		if (d->selected)
			put_name(out, d->selected);
		else
			mg_buf_puts(out, "none");
	} else {
		put_md(out, f->message);
	}
	mg_buf_putc(out, '.');
	put_signer(out, c->r);
	mg_buf_putc(out, '\n');
}

/* The codes, for scripts and searches, after the words. */
static void put_codes(struct comment *c)
{
	const mg_decision *d = c->r->decision;
	mg_buf *out = &c->out;

	mg_buf_printf(out, "\nReason `%s` \xc2\xb7 next action `%s` \xc2\xb7 selected ",
		      mg_outcome_name(d->reason), mg_next_action_name(d->next_action));
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
	return mg_severity_is_reason(f->weight) && !mg_finding_quiet(c->r, f);
}

/* A finding's marker, as its annotation's level and the job summary
 * show it (severity.h's rule). */
static const char *marker(const mg_finding *f, bool passed)
{
	return mg_severity_marker(mg_severity_annotation(f->weight, passed));
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
		mg_buf_printf(out, " (`%s`)\n", f->code->name);
		shown++;
	}
	if (shown < c->finding_total)
		mg_buf_printf(out, "- \xe2\x80\xa6 %zu more in the job summary\n",
			      c->finding_total - shown);
}

static const mg_finding *first_listed(const struct comment *c)
{
	size_t i;

	for (i = 0; i < c->finding_count; i++)
		if (listed(c, &c->findings[i]))
			return &c->findings[i];
	return NULL;
}

/* " Signed by PRINCIPALS." when the manifest's signature was verified;
 * " The manifest's signature is not verified." when it was checked and
 * failed; nothing when the policy does not ask for one.  The same for the
 * approval's (" Approved by PRINCIPALS."), when it was read. */
static void put_signer(mg_buf *out, const mg_check_result *r)
{
	const mg_check_signature *s = &r->signature;

	if (!s->checked)
		return;
	if (s->verified && s->principals) {
		mg_buf_puts(out, " Signed by ");
		put_md(out, s->principals);
		mg_buf_putc(out, '.');
	} else if (!s->verified) {
		mg_buf_puts(out, " The manifest's signature is not verified.");
	}
	s = &r->approval_sig;   /* --require-approved: who approved */
	if (s->checked && s->verified && s->principals) {
		mg_buf_puts(out, " Approved by ");
		put_md(out, s->principals);
		mg_buf_putc(out, '.');
	} else if (s->checked && !s->verified) {
		mg_buf_puts(out, " The approval's signature is not verified.");
	}
}

/* The notes (a policy this change adopts), one a line. */
static void put_notes(struct comment *c)
{
	size_t i;

	for (i = 0; i < c->r->note_count; i++) {
		mg_buf_puts(&c->out, "\n\xe2\x84\xb9\xef\xb8\x8f ");
		put_md(&c->out, c->r->notes[i]);
		mg_buf_putc(&c->out, '\n');
	}
}

static void render(struct comment *c)
{
	mg_buf_init(&c->out);
	put_marker(&c->out, c->policy);
	put_heading(c);
	put_notes(c);
	put_base(c);
	put_findings(c);
	put_codes(c);
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

/* One policy's section, appended to out. */
static void section_decided(mg_buf *out, const mg_check_result *r, const char *policy)
{
	struct comment c = { 0 };
	size_t i;

	c.r = r;
	c.policy = policy;
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

/* An error as "file:line:col: message", raw; a file name past PATH_SHOWN
 * bytes elided (cut at a character), so that the message stays. */
static void error_text(mg_buf *out, const mg_error *err)
{
	size_t len = strlen(err->file);

	if (len > PATH_SHOWN) {
		len = PATH_SHOWN;
		while (len > 0 && ((unsigned char)err->file[len] & 0xc0) == 0x80)
			len--;
	}
	if (err->file[0]) {
		mg_buf_put(out, err->file, len);
		if (len < strlen(err->file))
			mg_buf_puts(out, "\xe2\x80\xa6");
		if (err->line > 0)
			mg_buf_printf(out, ":%d", err->line);
		if (err->line > 0 && err->column > 0)
			mg_buf_printf(out, ":%d", err->column);
		mg_buf_puts(out, ": ");
	}
	mg_buf_puts(out, err->message);
}

/* A section of a policy that is not decided here: its marker, a heading
 * that says why, and a line: `said` (static Markdown) or else `text`
 * (untrusted, escaped). */
static void section_other(mg_buf *out, const char *policy, const char *why, const char *said,
			  const char *text)
{
	mg_buf one = MG_BUF_INIT;

	put_marker(&one, policy);
	mg_buf_puts(&one, "### ");
	put_policy(&one, policy);
	mg_buf_printf(&one, ": %s\n\n", why);
	if (said)
		mg_buf_puts(&one, said);
	else
		put_md(&one, text);
	mg_buf_putc(&one, '\n');
	if (one.len > MG_COMMENT_MAX)
		truncate_comment(&one, MG_COMMENT_MAX);
	mg_buf_put(out, one.ptr, one.len);
	mg_buf_free(&one);
}

static void section_error(mg_buf *out, const char *policy, const mg_error *err)
{
	mg_buf text = MG_BUF_INIT;

	error_text(&text, err);
	section_other(out, policy, "could not decide \xe2\x80\x94 \xe2\x9d\x8c gate failed",
		      NULL, text.ptr);
	mg_buf_free(&text);
}

/* ---- the comment: every policy of the run in one ---- */

/* What a policy of the run became, in the comment's order (the worst first). */
enum kind { K_ERROR, K_FAILED, K_PASSED, K_UNCHANGED, K_RETIRED, K_COUNT };

struct entry {
	enum kind kind;
	const char *policy;
	const mg_check_result *r;   /* decided */
	const mg_error *err;        /* K_ERROR */
	const char *message;        /* K_RETIRED */
};

static enum kind item_kind(const mg_check_item *item)
{
	if (!item->result || !item->result->decision)
		return K_ERROR;
	return item->result->passed ? K_PASSED : K_FAILED;
}

static const char *item_policy(const mg_check_item *item)
{
	const mg_check_result *r = item->result;

	return r && r->policy_ref.path ? r->policy_ref.path : item->policy;
}

#define LEAD_TEXT 300   /* bytes of untrusted text in the first line */

/* The first line's reason for a failing r, in words, appended: the first
 * listed finding about the candidate that regressed most against the base
 * (else the first listed), then that candidate's change against the base,
 * "(checkpoint against the base: peak MB 9450.76 → 9600 (+149.24))".
 * Returns false, appending nothing, when there is neither. */
static bool lead_reason(mg_buf *out, const mg_check_result *r)
{
	static const char *const metric[MG_COMPARE_METRICS] = { "peak MB", "samples/s",
								  "eval_loss" };
	struct comment c = { 0 };
	const mg_finding *f;
	const mg_compare_row *row = NULL;
	const char *sep = "";
	size_t i, k;

	c.r = r;
	c.findings = mg_result_findings(r, &c.finding_count);
	if (r->base && r->base->result)
		mg_compare_rows(&c.rows, &c.row_count, r->base->result->decision, r->decision);
	order_rows(&c);
	row = c.regressed ? &c.rows[0] : NULL;
	f = first_listed(&c);
	for (i = 0; row && i < c.finding_count; i++)
		if (listed(&c, &c.findings[i]) && c.findings[i].subject &&
		    !strcmp(c.findings[i].subject, row->name)) {
			f = &c.findings[i];
			break;
		}
	if (f)
		put_md_short(out, f->message, LEAD_TEXT);
	if (row) {
		mg_buf_puts(out, f ? " (" : "");
		put_md_short(out, row->name, LEAD_TEXT);
		mg_buf_puts(out, " against the base: ");
		for (k = 0; k < MG_COMPARE_METRICS; k++)
			if (row->value[k].base_known && row->value[k].head_known &&
			    row->value[k].base != row->value[k].head) {
				mg_buf_printf(out, "%s%s ", sep, metric[k]);
				put_value(out, row, &row->value[k]);
				sep = ", ";
			}
		if (!*sep)
			mg_buf_printf(out, "%s \xe2\x86\x92 %s", mg_status_name(row->base_status),
				      mg_status_name(row->head_status));
		mg_buf_puts(out, f ? ")" : "");
	}
	free(c.rows);
	return f || row;
}

/* "PATH: tune: REASON. Signed by X." for the entry the first line names. */
static void lead_entry(mg_buf *out, const struct entry *e, bool name)
{
	mg_buf err = MG_BUF_INIT;

	if (name) {
		put_md_short(out, e->policy, LEAD_TEXT);
		mg_buf_puts(out, ": ");
	}
	if (e->kind == K_ERROR) {
		error_text(&err, e->err);
		mg_buf_puts(out, "could not decide: ");
		put_md_short(out, err.ptr, LEAD_TEXT);
		mg_buf_putc(out, '.');
		mg_buf_free(&err);
		return;
	}
	mg_buf_printf(out, "%s, ", mg_verdict_name(e->r->decision->verdict));
	if (e->r->passed || !lead_reason(out, e->r)) {
		mg_buf_puts(out, "selected ");
		if (e->r->decision->selected)
			put_md_short(out, e->r->decision->selected, LEAD_TEXT);
		else
			mg_buf_puts(out, "none");
	}
	mg_buf_putc(out, '.');
	put_signer(out, e->r);
}

/* The first line: a sentence that says what was decided, why in words,
 * and what else became of the run's policies. */
static void put_lead(mg_buf *out, const struct entry *e, size_t count, const size_t *n)
{
	static const char *const words[K_COUNT] = {
		"could not decide", "fail", "pass", "unchanged by this pull request", "retired",
	};
	size_t decided = n[K_FAILED] + n[K_PASSED];
	bool failed = n[K_ERROR] || n[K_FAILED];
	enum kind k;
	const char *sep = "";

	mg_buf_printf(out, "**memgate: %s** \xe2\x80\x94 ",
		      n[K_ERROR] && !decided ? "\xe2\x9d\x8c could not decide" :
		      failed ? "\xe2\x9d\x8c gate failed" : "\xe2\x9c\x85 gate passed");
	if (!count) {
		mg_buf_puts(out, "no policy.\n");
		return;
	}
	if (count == 1 && e->kind > K_PASSED) {
		put_md_short(out, e->policy, LEAD_TEXT);
		mg_buf_printf(out, ": %s.\n", words[e->kind]);
		return;
	}
	if (count == 1) {
		lead_entry(out, e, false);
		mg_buf_putc(out, '\n');
		return;
	}
	if (e->kind <= K_PASSED) {
		lead_entry(out, e, true);
		mg_buf_putc(out, ' ');
	}
	mg_buf_printf(out, "Of %zu policies: ", count);
	for (k = 0; k < K_COUNT; k++) {
		if (!n[k])
			continue;
		mg_buf_printf(out, "%s%zu %s", sep, n[k], words[k]);
		sep = ", ";
	}
	mg_buf_puts(out, ".\n");
}

static int entry_order(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->policy, y->policy);
}

/* One entry's section, appended to out. */
static void put_section(mg_buf *out, const struct entry *e)
{
	switch (e->kind) {
	case K_ERROR:
		section_error(out, e->policy, e->err);
		break;
	case K_FAILED:
	case K_PASSED:
		section_decided(out, e->r, e->policy);
		break;
	case K_UNCHANGED:
		section_other(out, e->policy, "unchanged by this pull request",
			      "None of its inputs changed: not gated, as at the base (whose "
			      "decision is not computed here).", NULL);
		break;
	default:
		section_other(out, e->policy, "retired by this pull request", NULL, e->message);
		break;
	}
}

static void put_link(mg_buf *out, const char *url)
{
	if (plain_url(url))
		mg_buf_printf(out, "\nThe rest (every candidate, sensitivity, evidence): "
			      "[the job summary of this run](%s).\n", url);
	else
		mg_buf_puts(out, "\nThe rest (every candidate, sensitivity, evidence) is in the "
			    "job summary of this run and the decision record.\n");
}

/* The comment of entries e (sorted here): the marker, the first line,
 * then a section each while they fit MG_COMMENT_TOTAL and
 * MG_COMMENT_SECTIONS, the rest counted. */
static char *render_entries(struct entry *e, size_t count, const char *url)
{
	static const char more[] = "\n%zu more policies (%zu could not decide, %zu fail) are in "
				   "the job summary.\n";
	mg_buf out = MG_BUF_INIT, one = MG_BUF_INIT, tail = MG_BUF_INIT;
	size_t n[K_COUNT] = { 0 }, left[K_COUNT] = { 0 }, i, shown = 0;

	for (i = 0; i < count; i++)
		n[e[i].kind]++;
	qsort(e, count, sizeof(*e), entry_order);
	mg_buf_puts(&out, MG_COMMENT_MARKER "\n");
	put_lead(&out, e, count, n);
	put_link(&tail, url);
	for (i = 0; i < count && shown < MG_COMMENT_SECTIONS; i++, shown++) {
		mg_buf_free(&one);
		mg_buf_putc(&one, '\n');
		put_section(&one, &e[i]);
		/* room for the count of the rest and the link */
		if (out.len + one.len + sizeof(more) + 3 * 20 + tail.len > MG_COMMENT_TOTAL)
			break;
		mg_buf_put(&out, one.ptr, one.len);
	}
	for (; i < count; i++)
		left[e[i].kind]++;
	if (shown < count)
		mg_buf_printf(&out, more, count - shown, left[K_ERROR], left[K_FAILED]);
	mg_buf_put(&out, tail.ptr, tail.len);
	mg_buf_free(&one);
	mg_buf_free(&tail);
	return mg_buf_detach(&out, NULL);
}

char *mg_comment_render(const mg_check_result *r, const char *summary_url)
{
	mg_check_item item = { NULL, NULL, { { 0 }, 0, 0, { 0 } } };

	assert(r && r->decision);
	item.policy = r->policy_ref.path ? r->policy_ref.path : ".memgate.yml";
	item.result = (mg_check_result *)r;
	return mg_comment_render_set(&item, 1, NULL, summary_url);
}

char *mg_comment_render_set(const mg_check_item *items, size_t count, const mg_plan *plan,
			    const char *summary_url)
{
	size_t extra = plan ? plan->count : 0, n = 0, i;
	struct entry *e = mg_xcalloc(count + extra + 1, sizeof(*e));
	char *text;

	assert(items || !count);
	for (i = 0; i < count; i++, n++) {
		e[n].kind = item_kind(&items[i]);
		e[n].policy = item_policy(&items[i]);
		e[n].r = items[i].result;
		e[n].err = &items[i].error;
	}
	for (i = 0; i < extra; i++) {
		const mg_plan_entry *p = &plan->entries[i];

		if (p->kind != MG_PLAN_UNCHANGED && p->kind != MG_PLAN_RETIRED)
			continue;
		e[n].kind = p->kind == MG_PLAN_UNCHANGED ? K_UNCHANGED : K_RETIRED;
		e[n].policy = p->policy;
		e[n++].message = p->message ? p->message : "";
	}
	text = render_entries(e, n, summary_url);
	free(e);
	return text;
}

char *mg_comment_render_error(const mg_error *err)
{
	mg_buf out = MG_BUF_INIT, text = MG_BUF_INIT;

	assert(err);
	error_text(&text, err);
	mg_buf_puts(&out, MG_COMMENT_MARKER "\n**memgate: \xe2\x9d\x8c could not decide** "
		    "\xe2\x80\x94 ");
	put_md_short(&out, text.ptr, MG_COMMENT_MAX / 2);
	mg_buf_puts(&out, "\n\nNo policy was decided: the error is in the job log and the job "
		    "summary.\n");
	mg_buf_free(&text);
	return mg_buf_detach(&out, NULL);
}
