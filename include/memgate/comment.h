#ifndef MEMGATE_COMMENT_H
#define MEMGATE_COMMENT_H
/*
 * The pull-request comment (check --comment): short GitHub-flavoured
 * Markdown for the conversation, where reviewers look.  Per policy: a
 * hidden marker line that finds the comment again, the decision and the
 * gate's verdict, what changed against the base (regressed candidates
 * first), the first findings, and a link to the run's job summary for the
 * rest.
 *
 * Invariants:
 *   - every comment starts with its marker line, "<!-- memgate: PATH -->"
 *     and a newline, PATH the policy's repository path with every byte but
 *     A-Z a-z 0-9 . _ / + - written %XX; no other line of the output starts
 *     with "<!-- memgate:" (untrusted text is escaped for Markdown, '<'
 *     included), so a poster splits several comments at their marker lines;
 *   - each comment is at most MG_COMMENT_MAX bytes (limits.h): rows and
 *     findings are dropped, with a count, to fit;
 *   - untrusted text (names, paths, messages) goes through
 *     mg_escape_markdown_cell, as in the job summary.
 */
#include "result.h"

#include "limits.h"   /* memgate's (this directory): MG_COMMENT_MAX, MG_COMMENT_ROWS */

/*
 * The comment of one decided check.  `summary_url` is the run's page
 * (GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID), linked
 * for the rest, or NULL; a URL that is not plain http(s) (a character
 * outside A-Z a-z 0-9 - . _ ~ : / %) is not linked.  Malloc'd.
 */
char *mg_comment_render(const mg_check_result *r, const char *summary_url);

/* Several policies (check --all, a repeated --policy): one comment per
 * item, each with its marker, one after the other; an item that could not
 * be decided gets a comment naming its error.  Malloc'd. */
char *mg_comment_render_set(const mg_check_item *items, size_t count, const char *summary_url);

#endif
