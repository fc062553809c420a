/*
 * sensitivity: (see policy_walk.h): the stricter scenarios, the grid's axes,
 * and the limit on how many scenarios they make.
 */
#include <limits.h>
#include <stdio.h>

#include "policy_walk.h"

static int walk_stricter(walk *w, const mg_yaml_node *seq)
{
	mg_rules *r = &w->p->rules;
	char where[64];
	size_t i;
	int error = 0;

	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, "sensitivity.stricter", "a sequence");
	if (seq->count > MG_POLICY_MAX_STRICTER)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_STRICTER]->pos,
				   "'sensitivity.stricter' has more than %d entries",
				   MG_POLICY_MAX_STRICTER);
	r->stricter = mg_xcalloc(seq->count, sizeof(*r->stricter));
	w->p->stricter_pos = mg_xcalloc(seq->count, sizeof(mg_pos));
	for (i = 0; i < seq->count && error == 0; i++) {
		const mg_yaml_node *entry = seq->kids[i];

		r->stricter_count++;
		w->p->stricter_pos[i] = entry->pos;
		snprintf(where, sizeof(where), "sensitivity.stricter[%zu]", i);
		error = mg_policy__walk_thresholds(w, entry, SEC_OVERRIDE, where,
						   &r->stricter[i], NULL);
		if (error == 0 && entry->count == 0)
			error = mg_error_at(w->err, w->path, entry->pos,
					    "'%s' is empty: override at least one threshold", where);
	}
	return error;
}

/* One grid axis: a non-empty list of valid values for threshold t. */
static int walk_axis(walk *w, mg_grid_axis *axis, const mg_yaml_node *seq, enum mg_threshold t)
{
	char where[64], item[96];
	size_t i;
	int error = 0;

	mg_policy__join(where, sizeof(where), "sensitivity.grid", mg_threshold_name(t));
	axis->threshold = t;
	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, where, "a sequence");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos,
				   "'%s' is empty: give at least one value", where);
	if (seq->count > MG_POLICY_MAX_AXIS_VALUES)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_AXIS_VALUES]->pos,
				   "'%s' has more than %d values", where,
				   MG_POLICY_MAX_AXIS_VALUES);
	axis->values = mg_xcalloc(seq->count, sizeof(double));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(item, sizeof(item), "%s[%zu]", where, i);
		error = mg_policy__get_threshold(&axis->values[axis->count++], w, seq->kids[i],
						 t, item);
	}
	return error;
}

static int walk_grid(walk *w, const mg_yaml_node *map)
{
	mg_rules *r = &w->p->rules;
	size_t i, axes;
	int idx, error = 0;

	if ((error = mg_policy__expect_map(w, map, "sensitivity.grid")) < 0)
		return error;
	axes = map->count / 2;
	r->grid = mg_xcalloc(axes, sizeof(*r->grid));
	w->p->grid_pos = mg_xcalloc(axes, sizeof(mg_pos));
	for (i = 0; i < map->count && error == 0; i += 2) {
		error = mg_policy__pair_key(&idx, w, map, i, SEC_OVERRIDE, "sensitivity.grid");
		if (error < 0)
			break;
		w->p->grid_pos[r->grid_count] = map->kids[i]->pos;
		error = walk_axis(w, &r->grid[r->grid_count++], map->kids[i + 1],
				  (enum mg_threshold)idx);
	}
	return error;
}

/* Refuse more scenarios than the decision core evaluates.  0 or MG_ERROR. */
static int check_scenarios(walk *w, const mg_yaml_node *grid)
{
	const mg_rules *r = &w->p->rules;
	unsigned long long cells = 1;
	size_t i;

	if (!grid || r->grid_count == 0)
		return 0;
	/* one axis per threshold of up to MG_POLICY_MAX_AXIS_VALUES values:
	 * the product may not fit, and then it is far over any limit */
	for (i = 0; i < r->grid_count; i++)
		if (__builtin_mul_overflow(cells, (unsigned long long)r->grid[i].count, &cells))
			return mg_error_at(w->err, w->path, grid->pos,
					   "'sensitivity.grid' makes more than %llu scenarios, more than the limit of %d",
					   ULLONG_MAX, MG_DECISION_MAX_SCENARIOS);
	if (cells + r->stricter_count <= MG_DECISION_MAX_SCENARIOS)
		return 0;
	return mg_error_at(w->err, w->path, grid->pos,
			   "'sensitivity.grid' makes %llu scenarios (%llu cells + %zu stricter), more than the limit of %d",
			   cells + r->stricter_count, cells, r->stricter_count,
			   MG_DECISION_MAX_SCENARIOS);
}

int mg_policy__walk_sensitivity(walk *w, const mg_yaml_node *map)
{
	const mg_yaml_node *grid = NULL;
	int idx, error = 0;
	size_t i;

	if ((error = mg_policy__expect_map(w, map, "sensitivity")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		error = mg_policy__pair_key(&idx, w, map, i, SEC_SENSITIVITY, "sensitivity");
		if (error < 0)
			goto done;
		if (idx == 0) {
			error = walk_stricter(w, map->kids[i + 1]);
		} else {
			grid = map->kids[i + 1];
			error = walk_grid(w, grid);
		}
		if (error < 0)
			goto done;
	}
	error = check_scenarios(w, grid);
done:
	return error;
}
