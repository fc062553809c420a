/*
 * GitHub Actions: annotations, the findings behind them and step outputs.
 * See include/memgate/github.h and memgate(1), SECURITY, "Escaping for CI".
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "severity.h"
#include "json_write.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/github.h"
#include "memgate/text.h"

static void put_safe(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

static mg_pos no_pos(void)
{
	return (mg_pos){ 0, 0 };
}

/* ---- annotations ---- */

/* A finding's level: severity.h's rule. */
static enum mg_level level_of(const mg_finding *f, bool passed)
{
	return mg_severity_annotation(f->weight, passed);
}

/* One property: " key=value" first, ",key=value" after; empty values are
 * left out (the runner drops them). */
static void put_property(mg_buf *out, bool *first, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	mg_buf_printf(out, "%c%s=", *first ? ' ' : ',', key);
	mg_escape_gh_property(out, value, strlen(value));
	*first = false;
}

/* "::error file=f,line=3,col=5,title=t::message" */
static void put_annotation(mg_buf *out, enum mg_level level, const char *file, mg_pos pos,
			   const char *title, const char *message)
{
	bool first = true;
	char number[16];

	mg_buf_printf(out, "::%s", mg_severity_github(level));
	put_property(out, &first, "file", file);
	if (file && *file && pos.line > 0) {
		snprintf(number, sizeof(number), "%d", pos.line);
		put_property(out, &first, "line", number);
		snprintf(number, sizeof(number), "%d", pos.column);
		if (pos.column > 0)
			put_property(out, &first, "col", number);
	}
	put_property(out, &first, "title", title);
	mg_buf_puts(out, "::");
	mg_escape_gh_data(out, message, strlen(message));
	mg_buf_putc(out, '\n');
}

/* The decision: at gate.fail_on (or line 1) of the policy.  Returns its level. */
static enum mg_level put_decision(mg_buf *out, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	const mg_policy *lines = mg_findings_lines_policy(r);
	enum mg_level level = r->passed ? MG_LEVEL_NOTICE : MG_LEVEL_ERROR;
	mg_buf title = MG_BUF_INIT, msg = MG_BUF_INIT;
	mg_pos pos = { 1, 0 };

	if (lines && lines->fail_on_set && lines->fail_on_pos.line > 0)
		pos = lines->fail_on_pos;
	mg_buf_printf(&title, "memgate: %s", mg_verdict_name(d->verdict));
	mg_buf_printf(&msg, "%s (%s): next action %s; selected ", mg_verdict_name(d->verdict),
		      mg_outcome_name(d->reason), mg_next_action_name(d->next_action));
	if (d->selected)
		mg_format_name(&msg, d->selected);
	else
		mg_buf_puts(&msg, "none");
	put_annotation(out, level, mg_findings_policy_file(r), pos, title.ptr, msg.ptr);
	mg_buf_free(&title);
	mg_buf_free(&msg);
	return level;
}

/* "memgate: memory_over_budget (checkpoint)" */
static void put_finding(mg_buf *out, const mg_check_result *r, const mg_finding *f,
			enum mg_level level)
{
	mg_buf title = MG_BUF_INIT;
	const mg_screening *s = &r->decision->base;

	mg_buf_printf(&title, "memgate: %s", f->code->name);
	if (f->candidate < s->count) {
		mg_buf_puts(&title, " (");
		mg_format_name(&title, s->evaluations[f->candidate].name);
		mg_buf_putc(&title, ')');
	}
	put_annotation(out, level, f->file, f->pos, title.ptr, f->message);
	mg_buf_free(&title);
}

/* The findings of one policy, for the annotations. */
struct annotated {
	const mg_check_item *item;
	const mg_finding *findings;   /* borrowed from item->result */
	size_t count;
};

/* A policy that could not be decided: one ::error at the file of its error
 * (else the policy).  The message is escaped like every input text. */
static void put_item_error(mg_buf *out, const mg_check_item *item)
{
	mg_buf msg = MG_BUF_INIT, title = MG_BUF_INIT;
	char buf[2048];
	mg_pos pos = { item->error.line, item->error.column };
	const char *file = item->error.file[0] ? item->error.file : item->policy;

	put_safe(&msg, mg_error_format(&item->error, buf, sizeof(buf)));
	mg_buf_puts(&title, "memgate: could not decide ");
	put_safe(&title, item->policy);
	put_annotation(out, MG_LEVEL_ERROR, file, item->error.file[0] ? pos : no_pos(), title.ptr,
		       msg.ptr);
	mg_buf_free(&msg);
	mg_buf_free(&title);
}

/*
 * Each policy's decision (or error), then every finding, most important
 * first (rank, then policy order), at most MG_GITHUB_MAX_ANNOTATIONS per
 * level in all (GitHub shows no more per step); a level with more shows one
 * fewer and closes with an annotation that counts the rest.
 */
static void put_annotations(mg_buf *out, const struct annotated *a, size_t count)
{
	size_t total[MG_LEVEL_COUNT] = { 0 }, shown[MG_LEVEL_COUNT] = { 0 }, room[MG_LEVEL_COUNT];
	char title[64], msg[128];
	size_t i, k;
	int lv, rank;

	for (i = 0; i < count; i++) {
		const mg_check_result *r = a[i].item->result;
		enum mg_level decision = MG_LEVEL_ERROR;

		if (r)
			decision = put_decision(out, r);
		else
			put_item_error(out, a[i].item);
		total[decision]++;
		shown[decision]++;
		for (k = 0; k < a[i].count; k++)
			if (!mg_finding_quiet(r, &a[i].findings[k]))
				total[level_of(&a[i].findings[k], r->passed)]++;
	}
	for (lv = 0; lv < MG_LEVEL_COUNT; lv++)
		room[lv] = total[lv] > MG_GITHUB_MAX_ANNOTATIONS ? MG_GITHUB_MAX_ANNOTATIONS - 1
								: MG_GITHUB_MAX_ANNOTATIONS;
	for (rank = 0; rank < MG_FINDING_RANK_COUNT; rank++)
		for (i = 0; i < count; i++)
			for (k = 0; k < a[i].count; k++) {
				const mg_finding *f = &a[i].findings[k];
				enum mg_level level;

				if ((int)f->rank != rank || mg_finding_quiet(a[i].item->result, f))
					continue;
				level = level_of(f, a[i].item->result->passed);
				if (shown[level] < room[level]) {
					put_finding(out, a[i].item->result, f, level);
					shown[level]++;
				}
			}
	for (lv = 0; lv < MG_LEVEL_COUNT; lv++) {
		if (total[lv] <= shown[lv])
			continue;
		snprintf(title, sizeof(title), "memgate: %zu more %s", total[lv] - shown[lv],
			 mg_severity_github_plural((enum mg_level)lv));
		snprintf(msg, sizeof(msg), "and %zu more %s: see the job summary or the log of this step",
			 total[lv] - shown[lv], mg_severity_github_plural((enum mg_level)lv));
		put_annotation(out, (enum mg_level)lv, NULL, no_pos(), title, msg);
	}
}

/* Findings a log lists, most important first; the rest are counted. */
#define GITHUB_LOG_FINDINGS 50

/* The findings as compiler-style lines for the log (warnings are in the
 * text already): "  .memgate.yml:12:25: warning: ... [memory_saving_below_floor]". */
static void put_finding_log(mg_buf *out, const mg_check_result *r,
			    const mg_finding *f, size_t n)
{
	const char *heading = "findings:\n";
	size_t i, shown = 0, more = 0;

	for (i = 0; i < n; i++) {
		if (!mg_severity_is_reason(f[i].weight))
			continue;
		if (shown++ >= GITHUB_LOG_FINDINGS) {
			more++;
			continue;
		}
		mg_buf_puts(out, heading);
		heading = "";
		mg_buf_puts(out, "  ");
		mg_format_location(out, f[i].file, f[i].pos, put_safe);
		mg_buf_printf(out, "%s: %s [%s]\n", mg_severity_github(level_of(&f[i], r->passed)),
			      f[i].message, f[i].code->name);
	}
	if (more)
		mg_buf_printf(out, "  and %zu more findings (memgate check --format json "
			      "lists every evaluation; --junit writes each candidate's)\n", more);
}

/* The annotations, then the log inside ::stop-commands::; `set` renders
 * the log of several policies. */
static char *render_items(const mg_check_item *items, size_t count, bool set,
			  const char *token)
{
	struct annotated *a = mg_xcalloc(count ? count : 1, sizeof(*a));
	mg_buf out = MG_BUF_INIT;
	char *log;
	size_t i;

	for (i = 0; i < count; i++) {
		a[i].item = &items[i];
		if (items[i].result)
			a[i].findings = mg_result_findings(items[i].result, &a[i].count);
	}
	put_annotations(&out, a, count);
	mg_buf_printf(&out, "::stop-commands::%s\n", token);
	log = set ? mg_text_render_set(items, count) : mg_text_render(items[0].result);
	mg_buf_puts(&out, log);
	free(log);
	for (i = 0; i < count; i++) {
		if (!items[i].result)
			continue;
		if (set) {
			mg_buf_puts(&out, "policy ");
			put_safe(&out, items[i].policy);
			mg_buf_putc(&out, '\n');
		}
		put_finding_log(&out, items[i].result, a[i].findings, a[i].count);
	}
	mg_buf_printf(&out, "::%s::\n", token);
	free(a);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_render(const mg_check_result *r, const char *token)
{
	mg_check_item item = { NULL, NULL, { { 0 }, 0, 0, { 0 } } };

	assert(r && r->decision && token && *token);
	item.policy = mg_findings_policy_file(r);
	item.result = (mg_check_result *)r;
	return render_items(&item, 1, false, token);
}

char *mg_github_render_set(const mg_check_item *items, size_t count, const char *token)
{
	assert(items && token && *token);
	return render_items(items, count, true, token);
}

/* ---- step outputs ---- */

static bool plain_token(const char *s)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_.-";

	return *s && strspn(s, chars) == strlen(s);
}

/* Whether a line of value equals delim (or delim and a CR, which a
 * runner that ends lines at CRLF would also match). */
static bool has_line(const char *value, const char *delim)
{
	size_t n = strlen(delim);
	const char *line = value, *end;

	for (;;) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, delim, n) &&
		    (line + n == end || (line + n + 1 == end && line[n] == '\r')))
			return true;
		if (!*end)
			return false;
		line = end + 1;
	}
}

/*
 * NAME=VALUE for a plain token, else NAME<<ghadelimiter_<token> with the
 * value on the line up to the delimiter.  `safe` is one line of valid
 * UTF-8 that a later step may print without running a workflow command
 * (see put_output); a value that is the delimiter line is written in its
 * mg_escape_text form, which it cannot be.
 */
static void put_output_safe(mg_buf *out, const char *name, const char *safe, const char *token)
{
	mg_buf delim = MG_BUF_INIT, again = MG_BUF_INIT;

	if (plain_token(safe)) {
		mg_buf_printf(out, "%s=%s\n", name, safe);
		goto done;
	}
	mg_buf_printf(&delim, "ghadelimiter_%s", token);
	if (has_line(safe, delim.ptr)) {
		put_safe(&again, safe);
		safe = again.ptr;
	}
	mg_buf_printf(out, "%s<<%s\n%s\n%s\n", name, delim.ptr, safe, delim.ptr);
done:
	mg_buf_free(&delim);
	mg_buf_free(&again);
}

/*
 * A step output holding untrusted text (a candidate name, a message that
 * quotes one), escaped as annotations are (mg_escape_text): one line, no
 * control character, no "##[" and no leading "::", so that a later step's
 * `echo "$VALUE"` runs no workflow command (memgate(1), SECURITY, "Escaping for CI").
 */
static void put_output(mg_buf *out, const char *name, const char *value, const char *token)
{
	mg_buf safe = MG_BUF_INIT;

	put_safe(&safe, value);
	put_output_safe(out, name, safe.ptr, token);
	mg_buf_free(&safe);
}

/* The five step outputs of a decision (with `passed` the gate's). */
static void put_decision_outputs(mg_buf *out, const mg_decision *d, bool passed,
				 const char *token)
{
	put_output(out, "decision", mg_verdict_name(d->verdict), token);
	put_output(out, "reason", mg_outcome_name(d->reason), token);
	put_output(out, "next-action", mg_next_action_name(d->next_action), token);
	put_output(out, "selected-candidate", d->selected ? d->selected : "", token);
	put_output(out, "passed", passed ? "true" : "false", token);
}

char *mg_github_outputs_set(const mg_check_item *items, size_t count, const char *token)
{
	const mg_check_result *worst = NULL;
	mg_buf out = MG_BUF_INIT, json = MG_BUF_INIT, policy = MG_BUF_INIT, selected = MG_BUF_INIT;
	bool passed = true;
	size_t i;
	mg_jw w;

	assert((items || !count) && token && plain_token(token));
	mg_jw_init(&w, &json, MG_JW_LINE, 0);
	mg_jw_array(&w);
	for (i = 0; i < count; i++) {
		const mg_check_result *r = items[i].result;

		assert(r);
		passed = passed && r->passed;
		if (!worst || r->decision->verdict > worst->decision->verdict)
			worst = r;
		/* the strings as the other outputs carry them (put_output):
		 * what a consumer decodes (jq, fromJSON) is log-safe too */
		mg_buf_free(&policy);
		put_safe(&policy, items[i].policy);
		mg_buf_free(&selected);
		if (r->decision->selected)
			put_safe(&selected, r->decision->selected);
		mg_jw_object(&w);
		mg_jw_key_string(&w, "policy", policy.ptr);
		mg_jw_key_string(&w, "decision", mg_verdict_name(r->decision->verdict));
		mg_jw_key_string(&w, "reason", mg_outcome_name(r->decision->reason));
		mg_jw_key_string(&w, "selected_candidate",
				 r->decision->selected ? selected.ptr : NULL);
		mg_jw_key_bool(&w, "passed", r->passed);
		mg_jw_end(&w);
	}
	/* one line of JSON that starts with '[', never with "::"; its
	 * strings hold no control character, "##[" or leading "::",
	 * encoded or decoded */
	mg_jw_end(&w);
	if (worst) {
		put_decision_outputs(&out, worst->decision, passed, token);
	} else {
		/* nothing gated: no decision was made, and the gate passes */
		put_output(&out, "decision", "unchanged", token);
		put_output(&out, "reason", "", token);
		put_output(&out, "next-action", "", token);
		put_output(&out, "selected-candidate", "", token);
		put_output(&out, "passed", "true", token);
	}
	put_output_safe(&out, "policies", json.ptr, token);
	mg_buf_free(&json);
	mg_buf_free(&policy);
	mg_buf_free(&selected);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_outputs(const mg_check_result *r, const char *token)
{
	mg_buf out = MG_BUF_INIT;

	assert(r && r->decision && token && plain_token(token));
	put_decision_outputs(&out, r->decision, r->passed, token);
	return mg_buf_detach(&out, NULL);
}

/* ---- exit 2 ---- */

char *mg_github_render_error(const mg_error *err)
{
	mg_buf out = MG_BUF_INIT, msg = MG_BUF_INIT;
	mg_pos pos = { err->line, err->column };

	assert(err);
	put_safe(&msg, err->message[0] ? err->message : "memgate could not decide");
	put_annotation(&out, MG_LEVEL_ERROR, err->file[0] ? err->file : NULL, pos,
		       "memgate: could not decide", msg.ptr);
	mg_buf_free(&msg);
	return mg_buf_detach(&out, NULL);
}

char *mg_github_outputs_error(const mg_error *err, const char *token)
{
	mg_buf out = MG_BUF_INIT;
	char msg[sizeof(err->file) + sizeof(err->message) + 64];

	assert(err && token && plain_token(token));
	mg_error_format(err, msg, sizeof(msg));
	put_output(&out, "decision", "error", token);
	put_output(&out, "reason", "", token);
	put_output(&out, "next-action", "", token);
	put_output(&out, "selected-candidate", "", token);
	put_output(&out, "passed", "false", token);
	put_output(&out, "error", msg, token);
	return mg_buf_detach(&out, NULL);
}

/* ---- check --all's plan ---- */

char *mg_github_render_plan(const mg_plan *plan)
{
	mg_buf out = MG_BUF_INIT, msg = MG_BUF_INIT, retired = MG_BUF_INIT;
	size_t i, unchanged = 0;
	char title[96];

	assert(plan);
	mg_buf_puts(&out, "");
	for (i = 0; i < plan->count; i++) {
		if (plan->entries[i].kind == MG_PLAN_UNCHANGED) {
			put_safe(&msg, msg.len ? ", " : "");
			put_safe(&msg, plan->entries[i].policy);
			unchanged++;
		}
		if (plan->entries[i].kind != MG_PLAN_RETIRED)
			continue;
		put_safe(&retired, plan->entries[i].message);
		put_annotation(&out, MG_LEVEL_WARNING, plan->entries[i].policy, no_pos(),
			       "memgate: policy retired", retired.ptr);
		mg_buf_free(&retired);
	}
	if (unchanged) {
		snprintf(title, sizeof(title), "memgate: %zu polic%s unchanged, not gated", unchanged,
			 unchanged == 1 ? "y" : "ies");
		put_annotation(&out, MG_LEVEL_NOTICE, NULL, no_pos(), title, msg.ptr);
	}
	mg_buf_free(&msg);
	return mg_buf_detach(&out, NULL);
}
