#ifndef MEMGATE_GITHUB_H
#define MEMGATE_GITHUB_H
/*
 * GitHub Actions: workflow-command annotations and step outputs
 * (memgate(1), SECURITY, "Escaping for CI").
 */
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "result.h"

#include "limits.h"   /* memgate's (this directory): MG_GITHUB_MAX_ANNOTATIONS */

/*
 * The annotations for a decision: one ::error (the gate fails) or ::notice
 * (it passes) for the decision, at the policy's gate.fail_on (or line 1),
 * then one annotation per finding (mg_findings) with file, line, col
 * and title pointing at the policy, manifest or report line behind it, most
 * important first.  Levels: see enum mg_finding_weight.  At most
 * MG_GITHUB_MAX_ANNOTATIONS per level, the decision included: a level with
 * more shows one fewer and a closing annotation that counts the rest.  Then
 * the full text log (mg_text_render and every finding) inside
 * ::stop-commands::<token> ... ::<token>:: so that no input text can run a
 * command.  Properties and messages are encoded per memgate(1), SECURITY,
 * "Escaping for CI"; untrusted text in them is first escaped with
 * mg_escape_text, so an
 * annotation is always one line of visible text.  `token` is
 * mg_output_token's.  Returns a malloc'd string for stdout.
 */
char *mg_github_render(const mg_check_result *r, const char *token);

/*
 * Step outputs in the GITHUB_OUTPUT env-file format: decision, reason,
 * next-action, selected-candidate ("" when none), passed (true/false).  A
 * plain token ([A-Za-z0-9_.-]+) is written NAME=VALUE, anything else
 * NAME<<ghadelimiter_<token>, the value, the delimiter.  Values are written
 * as valid UTF-8 (mg_escape_utf8) and otherwise exactly: a \r stays in the
 * value, as the Linux and macOS runners end lines at \n only.  A value that
 * holds the delimiter line (also with a trailing \r) is replaced by its
 * one-line mg_escape_text form.  `token` is a plain token (mg_output_token's).
 * Returns a malloc'd string to append to $GITHUB_OUTPUT.
 */
char *mg_github_outputs(const mg_check_result *r, const char *token);

/*
 * When memgate could not decide (exit 2): one ::error annotation titled
 * "memgate: could not decide" at err's file, line and column (left out when
 * unknown), and the step outputs decision=error, passed=false, error=<the
 * message with its position>, with reason, next-action and
 * selected-candidate empty, so that later steps can tell.  Both returned
 * malloc'd; escaping as above.
 */
char *mg_github_render_error(const mg_error *err);
char *mg_github_outputs_error(const mg_error *err, const char *token);

/*
 * check --all and repeated --policy: the annotations of several policies in
 * one step (at most MG_GITHUB_MAX_ANNOTATIONS per level in all; a policy
 * that could not be decided is one ::error at its path), then one
 * ::stop-commands:: block with each policy's log and the combined table
 * (mg_text_render_set).  Returns a malloc'd string for stdout.
 */
char *mg_github_render_set(const mg_check_item *items, size_t count, const char *token);

/*
 * The step outputs of several policies: decision, reason, next-action and
 * selected-candidate of the first policy with the worst decision (reject,
 * then tune, then accept), passed ("true" when every policy passed) and
 * policies (a JSON array of {policy, decision, reason, selected_candidate,
 * passed}, whose policy and selected_candidate are in their mg_escape_text
 * form, as the selected-candidate output is: what a consumer decodes is
 * log-safe too).  Only called when every policy was decided.  With no
 * item (check --all gated nothing: every policy unchanged, or retired),
 * decision is "unchanged", passed "true", policies "[]" and the others
 * empty.
 */
char *mg_github_outputs_set(const mg_check_item *items, size_t count, const char *token);

/*
 * check --all: a ::warning at each policy the change retires (mg_plan),
 * for reviewers to confirm, and with --changed one ::notice naming the
 * policies left unchanged, not gated.  Returns a malloc'd string for stdout ("" when
 * none).
 */
char *mg_github_render_plan(const mg_plan *plan);

#endif
