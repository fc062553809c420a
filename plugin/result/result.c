/*
 * The check's result, read: the pure functions of its plain data that the
 * findings and the renderers share (a policy change's words, a waiver's
 * message, a path as a pasted command names it, an item's exit status).
 * They sit below the check, which fills the result, so that nothing that
 * reads a result calls up into the check (tests/layers).  See
 * include/memgate/result.h.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/noise.h"
#include "memgate/result.h"
#include "format.h"

/* ---- policy changes ---- */

const char *mg_check_effect_name(enum mg_change_effect e)
{
	switch (e) {
	case MG_CHANGE_TIGHTENS: return "tightens";
	case MG_CHANGE_LOOSENS: return "loosens";
	case MG_CHANGE_EXPIRED: return "expired";
	default: return "changes";
	}
}

/* "[{memory_cap_mb: 8500}, {min_throughput_ratio: 0.9}]" */
static void put_stricter(mg_buf *out, const mg_budget *list, size_t count)
{
	const char *sep;
	size_t i;
	int t;

	mg_buf_putc(out, '[');
	for (i = 0; i < count; i++) {
		mg_buf_puts(out, i ? ", {" : "{");
		for (sep = "", t = 0; t < MG_THRESHOLD_COUNT; t++) {
			if (!list[i].set[t])
				continue;
			mg_buf_printf(out, "%s%s: ", sep, mg_threshold_name((enum mg_threshold)t));
			mg_format_threshold(out, list[i].value[t]);
			sep = ", ";
		}
		mg_buf_putc(out, '}');
	}
	mg_buf_putc(out, ']');
}

/* "{memory_cap_mb: [9600, 11200], min_samples_per_s: [1, 1.5]}" */
static void put_grid(mg_buf *out, const mg_grid_axis *axes, size_t count)
{
	size_t i, k;

	mg_buf_putc(out, '{');
	for (i = 0; i < count; i++) {
		mg_buf_printf(out, "%s%s: [", i ? ", " : "", mg_threshold_name(axes[i].threshold));
		for (k = 0; k < axes[i].count; k++) {
			if (k)
				mg_buf_puts(out, ", ");
			mg_format_threshold(out, axes[i].values[k]);
		}
		mg_buf_putc(out, ']');
	}
	mg_buf_putc(out, '}');
}

void mg_check_change_text(mg_buf *out, const mg_change_value *v)
{
	const char *sep = "";
	size_t i;
	int x;

	switch (v->kind) {
	case MG_CHANGE_UNSET:
		mg_buf_puts(out, "unset");
		break;
	case MG_CHANGE_NUMBER:
		mg_format_threshold(out, v->number);
		break;
	case MG_CHANGE_STRING:
		mg_buf_printf(out, "'%s'", v->string);
		break;
	case MG_CHANGE_VERDICTS:
		mg_buf_putc(out, '[');
		for (x = 0; x < MG_VERDICT_COUNT; x++) {
			if (!v->verdicts[x])
				continue;
			mg_buf_printf(out, "%s%s", sep, mg_verdict_name((enum mg_verdict)x));
			sep = ", ";
		}
		mg_buf_putc(out, ']');
		break;
	case MG_CHANGE_STRICTER:
		put_stricter(out, v->stricter, v->count);
		break;
	case MG_CHANGE_STRINGS:
		mg_buf_putc(out, '[');
		for (i = 0; i < v->count; i++)
			mg_buf_printf(out, "%s'%s'", i ? ", " : "", v->strings[i]);
		mg_buf_putc(out, ']');
		break;
	default:
		put_grid(out, v->grid, v->count);
		break;
	}
}

/* ---- waivers ---- */

const char *mg_check_waiver_status_name(enum mg_waiver_status s)
{
	static const char *const names[MG_WAIVER_STATUS_COUNT] = {
		[MG_WAIVER_APPLIED] = "applied",
		[MG_WAIVER_UNMATCHED] = "unmatched",
		[MG_WAIVER_EXPIRED] = "expired",
		[MG_WAIVER_SPENT] = "spent",
	};

	return (int)s >= 0 && s < MG_WAIVER_STATUS_COUNT ? names[s] : NULL;
}

void mg_check_waiver_message(mg_buf *out, const mg_check_result *r, size_t i)
{
	const mg_waiver_state *w = &r->waivers[i];
	const mg_policy_waiver *v = w->waiver;
	const char *reason = mg_reason_name(v->reason);

	switch (w->status) {
	case MG_WAIVER_APPLIED:
		if (!v->up_to_set) {
			mg_buf_printf(out, "waiver: '%s' passes %s until %s (owner %s): %s",
				      v->candidate, reason, v->expires, v->owner, v->justification);
			break;
		}
		mg_buf_printf(out, "waiver: '%s' changed by ", v->candidate);
		mg_format_value(out, w->accepted_pct, NULL);
		mg_buf_printf(out, " %%, accepted up to ");
		mg_format_threshold(out, v->up_to_pct);
		mg_buf_printf(out, " %% (%s) until %s (owner %s): %s", reason, v->expires, v->owner,
			      v->justification);
		break;
	case MG_WAIVER_SPENT:
		mg_buf_printf(out, "waiver for '%s' (%s up to ", v->candidate, reason);
		mg_format_threshold(out, v->up_to_pct);
		mg_buf_printf(out, " %%, owner %s) is spent: the base's report took that step at "
			      "%.7s (", v->owner, w->spent_at);
		mg_format_value(out, w->spent_pct, NULL);
		mg_buf_puts(out, " %), so later changes compare with the new level; remove it");
		break;
	case MG_WAIVER_UNMATCHED:
		mg_buf_printf(out, "waiver for '%s' (%s) matches nothing: ", v->candidate, reason);
		if (!w->candidate_found)
			mg_buf_printf(out, "the report has no candidate '%s'", v->candidate);
		else
			mg_buf_printf(out, "'%s' does not fail %s under the base budget nor in any "
				      "scenario", v->candidate, reason);
		mg_buf_puts(out, "; remove it or correct it");
		break;
	default:
		mg_buf_printf(out, "waiver for '%s' (%s, owner %s) expired on %s and is ignored "
			      "(today is %s)", v->candidate, reason, v->owner, v->expires, r->today);
		break;
	}
}

void mg_check_waiver_expiring_message(mg_buf *out, const mg_check_result *r, size_t i)
{
	const mg_waiver_state *w = &r->waivers[i];
	const mg_policy_waiver *v = w->waiver;

	assert(w->expiring);
	mg_buf_printf(out, "waiver for '%s' (%s, owner %s) expires on %s, ", v->candidate,
		      mg_reason_name(v->reason), v->owner, v->expires);
	if (w->days_left == 0)
		mg_buf_puts(out, "today");
	else
		mg_buf_printf(out, "in %d day%s", w->days_left, w->days_left == 1 ? "" : "s");
	mg_buf_printf(out, " (waivers_warn_days %d; today is %s): fix the cause, or renew it in "
		      "the policy of the base branch", r->policy->waivers_warn_days, r->today);
}

/* ---- where memgate ran ---- */

void mg_check_cli_path(mg_buf *out, const mg_check_result *r, const char *path)
{
	const char *p = r->cwd_prefix, *q = path, *rest;
	size_t common = 0, i;

	if (!p) {
		if (r->root)
			mg_buf_printf(out, "%s/", r->root);
		mg_buf_puts(out, path);
		return;
	}
	/* the longest common run of whole directories */
	for (i = 0; p[i] && p[i] == q[i]; i++)
		if (p[i] == '/')
			common = i + 1;
	for (rest = p + common; *rest; rest++)
		if (*rest == '/')
			mg_buf_puts(out, "../");
	mg_buf_puts(out, path + common);
}

/* ---- check --all's items ---- */

int mg_check_item_status(const mg_check_item *item)
{
	return !item->result ? 2 : item->result->passed ? 0 : 1;
}

/* ---- where a regression's series stepped ---- */

bool mg_check_history_median(double *median, const mg_check_result *r, const char *name)
{
	const mg_history *h = r->history;
	const mg_candidate *c;
	long i;

	if (!h || !h->used || !name || !r->decision->regression_checked ||
	    (i = mg_history_find(h, name)) < 0)
		return false;
	c = &h->evidence.candidates[i];
	if (c->metric[MG_M_PEAK].state != MG_METRIC_NUMBER)
		return false;
	*median = c->metric[MG_M_PEAK].value;
	return true;
}

bool mg_check_step(const char **commit, size_t *ago, double *pct, const mg_check_result *r,
		   const mg_regressed *g)
{
	const mg_history *h = r->history;
	const mg_history_series *s;
	const mg_threshold_def *def = mg_threshold_def_of(g->threshold);
	double *x;
	mg_step st;
	long c;
	size_t i;

	*commit = NULL;
	*ago = 0;
	*pct = 0;
	if (!h || !h->used || def->metric != MG_M_PEAK || (c = mg_history_find(h, g->name)) < 0 ||
	    !h->peaks || !(s = &h->peaks[c])->count)
		return false;
	x = mg_xmalloc((s->count + 1) * sizeof(*x));
	for (i = 0; i < s->count; i++)   /* the series is newest first */
		x[i] = s->value[s->count - 1 - i];
	x[s->count] = g->head;
	mg_step_find(&st, x, s->count + 1);
	free(x);
	if (!st.found || !(st.before > 0))
		return false;
	if (st.at < s->count) {
		i = s->version[s->count - 1 - st.at];
		*commit = h->versions[i].commit;
		*ago = i + 1;
	}
	*pct = (st.after / st.before - 1.0) * 100.0;
	return true;
}
