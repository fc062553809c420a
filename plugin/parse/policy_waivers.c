/*
 * waivers: and waivers_warn_days: (see policy_walk.h): each waiver's fields,
 * the reasons a waiver may name, and the date format.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "date.h"
#include "hint.h"
#include "policy_walk.h"

/*
 * A waiver's reason: a step-7 reason or a regression's.  Evidence problems
 * (issues, steps 1-6, evidence_not_applicable) and the decision's own codes
 * are refused with a message that says why.  0 or MG_ERROR.
 */
static int get_reason(enum mg_reason *out, walk *w, const mg_yaml_node *n, const char *where)
{
	const char *waivable[MG_REASON_COUNT + 1];
	const mg_code *code;
	const char *near = NULL, *text;
	mg_buf b = MG_BUF_INIT, q = MG_BUF_INIT;
	size_t k = 0;
	int r;

	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a reason such as 'memory_over_budget'");
	r = strlen(n->text) == n->len ? mg_reason_from_name(n->text) : -1;
	if (r >= 0 && mg_reason_waiver_may_name((enum mg_reason)r)) {
		*out = (enum mg_reason)r;
		return 0;
	}
	text = mg_policy__quote(&q, n->text, n->len, 64);
	code = mg_code_find(n->text);
	if ((code && code->kind == MG_KIND_EVIDENCE) || !strcmp(n->text, "evidence_not_applicable"))
		mg_buf_printf(&b, "'%s': '%s' is an evidence problem and cannot be waived: "
			      "fix the evidence instead (a waiver names one of: ", where, text);
	else if (code)
		mg_buf_printf(&b, "'%s': '%s' is not a threshold's reason and cannot be waived "
			      "(a waiver names one of: ", where, text);
	for (r = 0; r < MG_REASON_COUNT; r++)
		if (mg_reason_waiver_may_name((enum mg_reason)r))
			waivable[k++] = mg_reason_name((enum mg_reason)r);
	waivable[k] = NULL;
	if (!b.len && (near = mg_hint_nearest(waivable, n->text, n->len)))
		mg_buf_printf(&b, "'%s': unknown reason '%s' (did you mean '%s'?", where,
			      text, near);
	else if (!b.len)
		mg_buf_printf(&b, "'%s': unknown reason '%s' (a waiver names one of: ", where,
			      text);
	if (!near || code)
		mg_hint_list(&b, waivable);
	mg_buf_putc(&b, ')');
	mg_error_at(w->err, w->path, n->pos, "%s", b.ptr);
	mg_buf_free(&b);
	mg_buf_free(&q);
	return MG_ERROR;
}

static int get_date(mg_policy_waiver *wv, walk *w, const mg_yaml_node *n, const char *where)
{
	char why[MG_DATE_WHY];

	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a date YYYY-MM-DD");
	if (mg_date_parse(&wv->expires_ymd, n->text, n->len, why) < 0)
		return mg_error_at(w->err, w->path, n->pos, "'%s': %s", where, why);
	memcpy(wv->expires, n->text, 10);
	wv->expires[10] = '\0';
	return 0;
}

/* One field of a waiver entry.  0 or MG_ERROR. */
static int waiver_field(mg_policy_waiver *wv, walk *w, int key, const mg_yaml_node *n,
			const char *where)
{
	switch (key) {
	case W_CANDIDATE:
		wv->candidate_pos = n->pos;
		return mg_policy__get_string(&wv->candidate, w, n, where);
	case W_REASON:
		wv->reason_pos = n->pos;
		return get_reason(&wv->reason, w, n, where);
	case W_JUSTIFICATION:
		return mg_policy__get_string(&wv->justification, w, n, where);
	case W_OWNER:
		return mg_policy__get_string(&wv->owner, w, n, where);
	case W_UP_TO_PCT:
		/* a percent at least 0, read as a regression allowance in percent is */
		wv->up_to_pct_pos = n->pos;
		wv->up_to_set = true;
		return mg_policy__get_threshold(&wv->up_to_pct, w, n, MG_MAX_PEAK_INCREASE_PCT,
						where);
	default:
		wv->expires_pos = n->pos;
		return get_date(wv, w, n, where);
	}
}

/*
 * up_to_pct: required with a regression's reason (the largest change the
 * waiver accepts), refused with any other (a threshold's waiver accepts
 * whatever its candidate measures).  0 or MG_ERROR.
 */
static int check_up_to(walk *w, const mg_policy_waiver *wv, const mg_yaml_node *map,
		       const char *where)
{
	const char *reason = mg_reason_name(wv->reason);

	if (MG_REASON_IS_REGRESSION(wv->reason) && !wv->up_to_set)
		return mg_error_at(w->err, w->path, map->pos,
				   "missing required key 'up_to_pct' in '%s' (a waiver of %s names "
				   "the largest change it accepts, e.g. 'up_to_pct: 8')", where, reason);
	if (!MG_REASON_IS_REGRESSION(wv->reason) && wv->up_to_set)
		return mg_error_at(w->err, w->path, wv->up_to_pct_pos,
				   "'%s.up_to_pct': only a waiver of a regression's reason "
				   "(peak_memory_regressed, throughput_regressed, eval_loss_regressed) "
				   "accepts a change up to a percent; a waiver of %s passes its "
				   "check whatever the candidate measures: remove it", where, reason);
	return 0;
}

/* One waiver: a mapping with every field.  0 or MG_ERROR. */
static int walk_waiver(walk *w, mg_policy_waiver *wv, const mg_yaml_node *map, size_t index)
{
	bool seen[W_COUNT] = { false };
	char where[48], sub[80];
	int key, error = 0;
	size_t i;

	snprintf(where, sizeof(where), "waivers[%zu]", index);
	wv->pos = map->pos;
	if ((error = mg_policy__expect_map(w, map, where)) < 0)
		return error;
	for (i = 0; i < map->count; i += 2) {
		if ((error = mg_policy__pair_key(&key, w, map, i, SEC_WAIVER, where)) < 0)
			return error;
		seen[key] = true;
		mg_policy__join(sub, sizeof(sub), where, mg_policy__key_name(SEC_WAIVER, key));
		if ((error = waiver_field(wv, w, key, map->kids[i + 1], sub)) < 0)
			return error;
	}
	for (key = 0; key < W_COUNT; key++)
		if (!seen[key] && key != W_UP_TO_PCT)
			return mg_error_at(w->err, w->path, map->pos,
					   "missing required key '%s' in '%s' (a waiver needs candidate, "
					   "reason, justification, owner and expires)",
					   mg_policy__key_name(SEC_WAIVER, key), where);
	return check_up_to(w, wv, map, where);
}

/* A second waiver of the same candidate and reason.  0 or MG_ERROR. */
static int check_duplicate_waiver(walk *w, size_t k)
{
	const mg_policy_waiver *v = w->p->waivers, *x = &v[k];
	size_t j;

	for (j = 0; j < k; j++)
		if (v[j].reason == x->reason && !strcmp(v[j].candidate, x->candidate))
			return mg_error_at(w->err, w->path, x->pos,
					   "'waivers[%zu]' waives %s for this candidate again "
					   "(first at %d:%d): give one waiver per candidate and reason",
					   k, mg_reason_name(x->reason), v[j].pos.line, v[j].pos.column);
	return 0;
}

int mg_policy__walk_waivers(walk *w, const mg_yaml_node *seq)
{
	mg_policy *p = w->p;
	size_t i;
	int error = 0;

	p->waivers_set = true;
	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, "waivers", "a sequence");
	if (seq->count > MG_POLICY_MAX_WAIVERS)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_WAIVERS]->pos,
				   "'waivers' has more than %d entries", MG_POLICY_MAX_WAIVERS);
	p->waivers = mg_xcalloc(seq->count ? seq->count : 1, sizeof(*p->waivers));
	for (i = 0; i < seq->count && error == 0; i++) {
		p->waiver_count++;
		if ((error = walk_waiver(w, &p->waivers[i], seq->kids[i], i)) == 0)
			error = check_duplicate_waiver(w, i);
	}
	return error;
}

/* waivers_warn_days: an integer from 0 to MG_POLICY_MAX_WARN_DAYS. */
int mg_policy__walk_warn_days(walk *w, const mg_yaml_node *n)
{
	double days = 0;
	int error;

	w->p->waivers_warn_days_pos = n->pos;
	if ((error = mg_policy__get_int(&days, w, n, "waivers_warn_days", 0)) < 0)
		return error;
	if (days > MG_POLICY_MAX_WARN_DAYS)
		return mg_error_at(w->err, w->path, n->pos, "'waivers_warn_days' must be at most %d, "
				   "got '%.40s'", MG_POLICY_MAX_WARN_DAYS, n->text);
	w->p->waivers_warn_days = (int)days;
	return 0;
}
