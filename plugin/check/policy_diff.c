/*
 * The policy diff: what the policy at --rev changes from the one that
 * decides, and which way each change moves the gate.  See policy_diff.h
 * and include/memgate/check.h.
 */
#include <stdio.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/check.h"
#include "date.h"
#include "format.h"
#include "git.h"
#include "check_run.h"
#include "policy_diff.h"

/* ---- policy changes ---- */

static mg_change_value number_value(bool set, double v)
{
	mg_change_value x = { 0 };

	x.kind = set ? MG_CHANGE_NUMBER : MG_CHANGE_UNSET;
	x.number = v;
	return x;
}

static mg_change_value string_value_of(const char *s)
{
	mg_change_value x = { 0 };

	x.kind = s ? MG_CHANGE_STRING : MG_CHANGE_UNSET;
	x.string = s;
	return x;
}

static mg_change_value pin_value(const mg_value *pin)
{
	if (pin->kind == MG_VALUE_NUMBER)
		return number_value(true, pin->number);
	if (pin->kind == MG_VALUE_STRING)
		return string_value_of(pin->string);
	return number_value(false, 0);
}

static bool same_budget(const mg_budget *a, const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (a->set[t] != b->set[t] || (a->set[t] && a->value[t] != b->value[t]))
			return false;
	return true;
}

static bool same_axis(const mg_grid_axis *a, const mg_grid_axis *b)
{
	size_t i;

	if (a->threshold != b->threshold || a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++)
		if (a->values[i] != b->values[i])
			return false;
	return true;
}

static bool same_value(const mg_change_value *a, const mg_change_value *b)
{
	size_t i;

	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case MG_CHANGE_UNSET:
		return true;
	case MG_CHANGE_NUMBER:
		return a->number == b->number;
	case MG_CHANGE_STRING:
		return !strcmp(a->string, b->string);
	case MG_CHANGE_VERDICTS:
		return !memcmp(a->verdicts, b->verdicts, MG_VERDICT_COUNT * sizeof(bool));
	case MG_CHANGE_STRICTER:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (!same_budget(&a->stricter[i], &b->stricter[i]))
				return false;
		return a->count == b->count;
	case MG_CHANGE_STRINGS:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (strcmp(a->strings[i], b->strings[i]))
				return false;
		return a->count == b->count;
	default:
		for (i = 0; i < a->count && a->count == b->count; i++)
			if (!same_axis(&a->grid[i], &b->grid[i]))
				return false;
		return a->count == b->count;
	}
}

/* Record a change of key when before and after differ. */
static void add_change(mg_check_result *res, const char *key, mg_change_value before,
		       mg_change_value after, enum mg_change_effect effect, mg_pos pos)
{
	mg_policy_change *c;

	if (same_value(&before, &after))
		return;
	res->changes = mg_xrealloc(res->changes, (res->change_count + 1) * sizeof(*c));
	c = &res->changes[res->change_count++];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->before = before;
	c->after = after;
	c->effect = effect;
	c->pos = pos;
}

/* No value, or an empty list of scenarios. */
static bool is_empty(const mg_change_value *v)
{
	return v->kind == MG_CHANGE_UNSET ||
	       ((v->kind == MG_CHANGE_STRICTER || v->kind == MG_CHANGE_GRID ||
		 v->kind == MG_CHANGE_STRINGS) && !v->count);
}

/* Adding a check, pin or scenarios tightens, removing them loosens;
 * otherwise `other`. */
static enum mg_change_effect presence_effect(const mg_change_value *before,
					     const mg_change_value *after,
					     enum mg_change_effect other)
{
	if (is_empty(before) && !is_empty(after))
		return MG_CHANGE_TIGHTENS;
	if (!is_empty(before) && is_empty(after))
		return MG_CHANGE_LOOSENS;
	return other;
}

/* Does threshold t at `now` admit more than at `was`? */
static bool looser(enum mg_threshold t, double was, double now)
{
	return mg_threshold_def_of(t)->ceiling ? now > was : now < was;
}

/* A threshold moving from `was` to `now`: a higher ceiling or a lower floor loosens. */
static enum mg_change_effect threshold_effect(enum mg_threshold t, const mg_change_value *was,
					      const mg_change_value *now)
{
	if (was->kind == MG_CHANGE_UNSET || now->kind == MG_CHANGE_UNSET)
		return presence_effect(was, now, MG_CHANGE_ALTERS);
	return looser(t, was->number, now->number) ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
}

static mg_change_value stricter_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_STRICTER;
	x.stricter = p->rules.stricter;
	x.count = p->rules.stricter_count;
	return x;
}

static mg_change_value grid_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_GRID;
	x.grid = p->rules.grid;
	x.count = p->rules.grid_count;
	return x;
}

static mg_change_value verdicts_value(const bool *fail_on)
{
	mg_change_value x = { 0 };

	x.kind = MG_CHANGE_VERDICTS;
	x.verdicts = fail_on;
	return x;
}

/* Dropping a decision from fail_on loosens the gate, adding one tightens it. */
static enum mg_change_effect fail_on_effect(const bool *was, const bool *now)
{
	int v;

	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (was[v] && !now[v])
			return MG_CHANGE_LOOSENS;
	return MG_CHANGE_TIGHTENS;
}

/* A list of strings (provenance.signers, .approvers), or unset. */
static mg_change_value strings_value(char *const *v, size_t n)
{
	return (mg_change_value){ .kind = n ? MG_CHANGE_STRINGS : MG_CHANGE_UNSET,
				  .strings = v, .count = n };
}

/* evidence.inputs: its pathspecs, or unset. */
static mg_change_value inputs_value(const mg_policy *p)
{
	mg_change_value x = { 0 };

	x.kind = p->input_count ? MG_CHANGE_STRINGS : MG_CHANGE_UNSET;
	x.strings = p->inputs;
	x.count = p->input_count;
	return x;
}

/* The value of row k in policy p: unset when p has not its section. */
static mg_change_value key_value(const mg_policy *p, const mg_policy_key *k)
{
	const void *f = (const char *)p + k->field, *count;
	const mg_budget *b = f;

	if (!mg_policy_has_section(p, k->section))
		return number_value(false, 0);
	switch (k->value) {
	case MG_KV_STRING:
		return string_value_of(*(char *const *)f);
	case MG_KV_INT:
		return number_value(true, *(const int *)f);
	case MG_KV_COUNT:
		return number_value(*(const int *)f > 0, *(const int *)f);
	case MG_KV_NUMBER:
		return number_value(true, *(const double *)f);
	case MG_KV_BOOL:
		return string_value_of(k->words[*(const bool *)f]);
	case MG_KV_ENUM:
		return string_value_of(k->word(*(const int *)f));
	case MG_KV_PIN:
		return pin_value(f);
	case MG_KV_THRESHOLD:
		return number_value(b->set[k->arg], b->value[k->arg]);
	case MG_KV_STRICTER:
		return stricter_value(p);
	case MG_KV_GRID:
		return grid_value(p);
	case MG_KV_INPUTS:
		return inputs_value(p);
	case MG_KV_STRINGS:
		count = (const char *)p + (size_t)k->arg;
		return strings_value(*(char *const *const *)f, *(const size_t *)count);
	case MG_KV_VERDICTS:
		return verdicts_value(p->fail_on);
	default:
		return number_value(false, 0);
	}
}

/* Where row k is in policy p: its value's position (a list's first entry's). */
static mg_pos key_pos(const mg_policy *p, const mg_policy_key *k)
{
	const void *at = (const char *)p + k->pos;
	const mg_pos *list;
	size_t count;

	if (k->value != MG_KV_STRICTER && k->value != MG_KV_GRID)
		return *(const mg_pos *)at;
	list = *(const mg_pos *const *)at;
	count = k->value == MG_KV_STRICTER ? p->rules.stricter_count : p->rules.grid_count;
	return list && count ? list[0] : (mg_pos){ 0, 0 };
}

/* An MG_MOVE_ORDER key's rank: its word's index (false 0, true 1). */
static int key_rank(const mg_policy *p, const mg_policy_key *k)
{
	const void *f = (const char *)p + k->field;

	return k->value == MG_KV_BOOL ? *(const bool *)f : *(const int *)f;
}

/* Which way row k moving from `was` (base) to `now` (head) moves the gate. */
static enum mg_change_effect key_effect(const mg_policy_key *k, const mg_policy *base,
					const mg_policy *head, const mg_change_value *was,
					const mg_change_value *now)
{
	enum mg_change_effect present = presence_effect(was, now, MG_CHANGE_ALTERS);

	switch (k->move) {
	case MG_MOVE_BOUND:
		return threshold_effect((enum mg_threshold)k->arg, was, now);
	case MG_MOVE_PRESENCE:
		return present;
	case MG_MOVE_MORE:
		if (present != MG_CHANGE_ALTERS)
			return present;
		return now->number < was->number ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
	case MG_MOVE_ORDER:
		if (present != MG_CHANGE_ALTERS)
			return present;
		return key_rank(head, k) < key_rank(base, k) ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
	case MG_MOVE_SUBSET:
		return fail_on_effect(base->fail_on, head->fail_on);
	default:
		return MG_CHANGE_ALTERS;
	}
}

static void diff_waivers(mg_check_result *res, const mg_policy *base, const mg_policy *head);

/* Every row of the policy's key table whose value differs, in its order. */
void mg_policy_diff__keys(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	const mg_policy_key *rows, *k;
	char key[sizeof(((mg_policy_change *)0)->key)];
	const char *sec, *name;
	size_t n, i;

	rows = mg_policy_keys(&n);
	for (i = 0; i < n; i++) {
		mg_change_value was, now;

		k = &rows[i];
		if (k->value == MG_KV_WAIVERS) {
			diff_waivers(res, base, head);
			continue;
		}
		if (k->value == MG_KV_NONE)
			continue;
		sec = mg_policy_section_name(k->section);
		name = k->key ? k->key : mg_threshold_name((enum mg_threshold)k->arg);
		snprintf(key, sizeof(key), "%s%s%s", sec, *sec ? "." : "", name);
		was = key_value(base, k);
		now = key_value(head, k);
		add_change(res, key, was, now, key_effect(k, base, head, &was, &now), key_pos(head, k));
	}
}

/* A waiver's side of a change: its expiry date (borrowed from the policy
 * the result holds), or unset. */
static mg_change_value waiver_value(const mg_policy_waiver *w)
{
	return string_value_of(w ? w->expires : NULL);
}

/* The waiver of p for the same candidate and reason as w, or NULL. */
static const mg_policy_waiver *same_waiver(const mg_policy *p, const mg_policy_waiver *w)
{
	size_t i;

	for (i = 0; i < p->waiver_count; i++)
		if (p->waivers[i].reason == w->reason && !strcmp(p->waivers[i].candidate, w->candidate))
			return &p->waivers[i];
	return NULL;
}

/* Added or extended loosens the gate; removed or shortened tightens it;
 * added or extended to a date already past (res->today) waives nothing. */
static void waiver_change(mg_check_result *res, const mg_policy_waiver *key,
			  const mg_policy_waiver *before, const mg_policy_waiver *after)
{
	char k[sizeof(((mg_policy_change *)0)->key)];
	bool loosens = !before || (after && after->expires_ymd > before->expires_ymd);
	enum mg_change_effect effect = loosens ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS;
	char why[MG_DATE_WHY];
	int today = 0;

	mg_date_parse(&today, res->today, strlen(res->today), why);   /* checked: check.c */
	if (loosens && after->expires_ymd < today)
		effect = MG_CHANGE_EXPIRED;
	snprintf(k, sizeof(k), "waivers[%s].%s", key->candidate, mg_reason_name(key->reason));
	add_change(res, k, waiver_value(before), waiver_value(after), effect,
		   after ? after->pos : (mg_pos){ 0, 0 });
}

/* A regression's waiver that accepts a larger change loosens the gate, a
 * smaller one tightens it. */
static void up_to_change(mg_check_result *res, const mg_policy_waiver *before,
			 const mg_policy_waiver *after)
{
	char k[sizeof(((mg_policy_change *)0)->key)];

	snprintf(k, sizeof(k), "waivers[%s].%s.up_to_pct", after->candidate,
		 mg_reason_name(after->reason));
	add_change(res, k, number_value(true, before->up_to_pct), number_value(true, after->up_to_pct),
		   after->up_to_pct > before->up_to_pct ? MG_CHANGE_LOOSENS : MG_CHANGE_TIGHTENS,
		   after->up_to_pct_pos);
}

/* Waivers added, removed, extended or shortened, or accepting
 * more or less by the policy at --rev. */
static void diff_waivers(mg_check_result *res, const mg_policy *base, const mg_policy *head)
{
	const mg_policy_waiver *other;
	size_t i;

	for (i = 0; i < head->waiver_count; i++) {
		other = same_waiver(base, &head->waivers[i]);
		if (!other || other->expires_ymd != head->waivers[i].expires_ymd)
			waiver_change(res, &head->waivers[i], other, &head->waivers[i]);
		if (other && other->up_to_pct != head->waivers[i].up_to_pct)
			up_to_change(res, other, &head->waivers[i]);
	}
	for (i = 0; i < base->waiver_count; i++)
		if (!same_waiver(head, &base->waivers[i]))
			waiver_change(res, &base->waivers[i], &base->waivers[i], NULL);
}

/*
 * The allowed-signers file: another content (a signer added or removed)
 * changes who may sign, as its path or namespace does (mg_policy_diff__keys).
 * Both are decided by the base's policy and file.
 */
static void diff_signers_file(struct run *run, const mg_policy *base, const mg_policy *head)
{
	mg_check_result *res = run->res;
	mg_check_signature *s = &res->signature;
	const char *path = head->allowed_signers;
	mg_blob was = { 0 }, now = { 0 };
	mg_error ignored;

	if (!base->provenance_set || !head->provenance_set)
		return;
	if (mg_repo_read(&now, run->repo, res->rev, path, run->max_bytes, &ignored) < 0)
		now.oid[0] = '\0';
	if (mg_repo_read(&was, run->repo, res->policy_rev, base->allowed_signers, run->max_bytes,
			 &ignored) < 0)
		was.oid[0] = '\0';
	snprintf(s->head_signers_blob, sizeof(s->head_signers_blob), "%s", now.oid);
	snprintf(s->base_signers_blob, sizeof(s->base_signers_blob), "%s", was.oid);
	if (strcmp(now.oid, was.oid))
		add_change(res, "provenance.allowed_signers (file)",
			   string_value_of(was.oid[0] ? s->base_signers_blob : NULL),
			   string_value_of(now.oid[0] ? s->head_signers_blob : NULL),
			   MG_CHANGE_ALTERS, (mg_pos){ 0, 0 });
	mg_blob_release(&was);
	mg_blob_release(&now);
}

/*
 * Compare the policy that decides (at --policy-rev) with the one the
 * change proposes (at --rev): every key whose effective value differs, in
 * the order of the policy reference, and which way it moves the gate.
 */
void mg_policy_diff__compare(struct run *run, const mg_policy *base, const mg_policy *head)
{
	mg_policy_diff__keys(run->res, base, head);
	diff_signers_file(run, base, head);
}

/*
 * A `sensitivity.stricter` entry is meant to tighten the base budget; one
 * that loosens a threshold (a higher cap or ceiling, a lower floor, than
 * the base) tests nothing the base does not, so say so.
 */
void mg_policy_diff__warn_loose_stricter(mg_check_result *res)
{
	const mg_policy *p = res->policy;
	const mg_budget *base = &p->rules.budget;
	mg_buf before = MG_BUF_INIT, after = MG_BUF_INIT;
	size_t i;
	int t;

	for (i = 0; i < p->rules.stricter_count; i++) {
		const mg_budget *ov = &p->rules.stricter[i];

		for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
			if (!ov->set[t] || !base->set[t] ||
			    !looser((enum mg_threshold)t, base->value[t], ov->value[t]))
				continue;
			before.len = after.len = 0;
			mg_format_threshold(&before, base->value[t]);
			mg_format_threshold(&after, ov->value[t]);
			mg_check__add_warning(res, "sensitivity.stricter[%zu] (%s:%d:%d) sets %s %s, "
				"looser than the base budget's %s: a stricter scenario should "
				"tighten it", i, p->path,
				p->stricter_pos ? p->stricter_pos[i].line : 0,
				p->stricter_pos ? p->stricter_pos[i].column : 0,
				mg_threshold_name((enum mg_threshold)t), after.ptr, before.ptr);
		}
	}
	mg_buf_free(&before);
	mg_buf_free(&after);
}
