#ifndef MEMGATE_COMMENT_H
#define MEMGATE_COMMENT_H
/*
 * The pull-request comment (check --comment): short GitHub-flavoured
 * Markdown for the conversation, where reviewers look.  One comment for
 * the whole run, rewritten on every run: a hidden marker line that finds
 * it again, a first line that says in words what was decided and why,
 * then a section per policy (the worst first): its decision and the gate's
 * verdict, its first reason in words and the signer, what changed against
 * the base (regressed candidates first), the first findings, the codes;
 * a policy that could not be decided says its error, one --changed left
 * alone says it is unchanged, a retired one says so.
 *
 * Invariants:
 *   - the comment starts with MG_COMMENT_MARKER and a newline; its second
 *     line is the sentence (no other line break in it);
 *   - every section starts with its marker line, "<!-- memgate: PATH -->"
 *     and a newline, PATH the policy's repository path with every byte but
 *     A-Z a-z 0-9 . _ / + - written %XX; no other line of the output starts
 *     with "<!--", and '<' appears nowhere else (untrusted text is escaped
 *     for Markdown, '<', '@' and '[' included), so a poster can check it;
 *   - each section is at most MG_COMMENT_MAX bytes (rows and findings are
 *     dropped, with a count, to fit), the comment at most MG_COMMENT_TOTAL
 *     bytes and MG_COMMENT_SECTIONS sections (limits.h): the rest counted;
 *   - untrusted text (names, paths, messages) goes through
 *     mg_escape_markdown_cell, as in the job summary.
 */
#include "error.h"
#include "result.h"

#include "limits.h"   /* memgate's (this directory): MG_COMMENT_MAX, MG_COMMENT_ROWS */

/* The comment's first line, which finds it again. */
#define MG_COMMENT_MARKER "<!-- memgate -->"

/*
 * The comment of one decided check.  `summary_url` is the run's page
 * (GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID), linked
 * for the rest, or NULL; a URL that is not plain http(s) (a character
 * outside A-Z a-z 0-9 - . _ ~ : / %) is not linked.  Malloc'd.
 */
char *mg_comment_render(const mg_check_result *r, const char *summary_url);

/* Several policies (check --all, a repeated --policy): one comment, a
 * section per item (an item that could not be decided names its error)
 * and, from `plan` (check --all's, or NULL), per policy left unchanged or
 * retired.  Malloc'd. */
char *mg_comment_render_set(const mg_check_item *items, size_t count, const mg_plan *plan,
			    const char *summary_url);

/* The comment of a run that decided nothing (exit 2 before any policy):
 * "could not decide" and the error.  Malloc'd. */
char *mg_comment_render_error(const mg_error *err);

#endif
