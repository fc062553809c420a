/*
 * What screening checks each candidate against (see policy_walk.h):
 * identity: (the pins), budget: and quality: (thresholds keyed by name, as
 * a scenario's overrides are too).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "policy_walk.h"

/* budget, quality and stricter entries: thresholds keyed by name. */
int mg_policy__walk_thresholds(walk *w, const mg_yaml_node *map, enum section sec,
			       const char *where, mg_budget *b, mg_pos *pos)
{
	int idx, error = 0;
	char sub[96];
	size_t i;

	if ((error = mg_policy__expect_map(w, map, where)) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = mg_policy__pair_key(&idx, w, map, i, sec, where)) < 0)
			goto done;
		mg_policy__join(sub, sizeof(sub), where, mg_threshold_name((enum mg_threshold)idx));
		if ((error = mg_policy__get_threshold(&b->value[idx], w, map->kids[i + 1],
						      (enum mg_threshold)idx, sub)) < 0)
			goto done;
		b->set[idx] = true;
		if (pos)
			pos[idx] = map->kids[i + 1]->pos;
	}
done:
	return error;
}

int mg_policy__walk_budget(walk *w, const mg_yaml_node *map)
{
	int error;

	error = mg_policy__walk_thresholds(w, map, SEC_BUDGET, "budget", &w->p->rules.budget,
					   w->p->threshold_pos);
	if (error == 0 && !w->p->rules.budget.set[MG_MEMORY_CAP_MB])
		error = mg_error_at(w->err, w->path, map->pos,
				    "missing required key 'memory_cap_mb' in 'budget'");
	return error;
}

/* An identity value: a finite number or a non-empty string; a count
 * (batch_size, seq_len) is a number of at least 1. */
static int get_pin(mg_value *v, walk *w, const mg_yaml_node *n, const char *where, bool counts)
{
	int error;

	if (counts) {
		/* A count compares as a number: 1.0 pins what a report's 1 is. */
		if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT)
			return mg_policy__type_error(w, n, where, "a number");
		if (!isfinite(n->num) || n->num < 1)
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number of at least 1, got '%.40s'",
					   where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == MG_YAML_INT || n->kind == MG_YAML_FLOAT) {
		if (!isfinite(n->num))
			return mg_error_at(w->err, w->path, n->pos,
					   "'%s' must be a finite number, got '%.40s'", where, n->text);
		v->kind = MG_VALUE_NUMBER;
		v->number = n->num;
	} else if (n->kind == MG_YAML_STR) {
		if ((error = mg_policy__get_string(&v->string, w, n, where)) < 0)
			return error;
		v->kind = MG_VALUE_STRING;
	} else {
		return mg_policy__type_error(w, n, where, "a string or a number");
	}
	v->pos = n->pos;
	return 0;
}

int mg_policy__walk_identity(walk *w, const mg_yaml_node *map)
{
	mg_value *pin = w->p->rules.pin;
	char sub[64];
	int idx, error = 0;
	size_t i;

	if ((error = mg_policy__expect_map(w, map, "identity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = mg_policy__pair_key(&idx, w, map, i, SEC_IDENTITY, "identity")) < 0)
			goto done;
		mg_policy__join(sub, sizeof(sub), "identity", mg_policy__key_name(SEC_IDENTITY, idx));
		if ((error = get_pin(&pin[idx], w, map->kids[i + 1], sub,
				     idx == MG_ID_BATCH_SIZE || idx == MG_ID_SEQ_LEN)) < 0)
			goto done;
	}
	for (idx = MG_ID_WORKLOAD; idx <= MG_ID_HARDWARE && error == 0; idx++)
		if (pin[idx].kind == MG_VALUE_ABSENT)
			error = mg_error_at(w->err, w->path, map->pos,
					    "missing required key '%s' in 'identity'",
					    mg_policy__key_name(SEC_IDENTITY, idx));
done:
	return error;
}
