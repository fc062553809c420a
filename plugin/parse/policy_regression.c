/*
 * regression: (see policy_walk.h): how much worse than the base each
 * covered candidate may get, what a regression decides, and how many of the
 * base's past versions it is measured against.
 */
#include <stdio.h>
#include <string.h>

#include "policy_walk.h"

/* regression.covers (selected | all) and regression.decision (tune | reject). */
static int walk_regression_word(walk *w, const mg_yaml_node *n, int key)
{
	mg_policy *p = w->p;
	const char *where = key == R_COVERS ? "regression.covers" : "regression.decision";
	int c;

	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a string");
	if (key == R_COVERS) {
		p->regression_covers_pos = n->pos;
		if ((c = mg_covers_from_name(n->text)) < 0)
			return mg_error_at(w->err, w->path, n->pos, "'%s' must be '%s' or '%s', "
					   "got '%.40s'", where, mg_covers_name(MG_COVERS_SELECTED),
					   mg_covers_name(MG_COVERS_ALL), n->text);
		p->rules.regression.covers = (enum mg_covers)c;
		return 0;
	}
	p->regression_decision_pos = n->pos;
	c = mg_verdict_from_name(n->text);
	if (c != MG_TUNE && c != MG_REJECT)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be '%s' or '%s', got '%.40s'",
				   where, mg_verdict_name(MG_TUNE), mg_verdict_name(MG_REJECT),
				   n->text);
	p->rules.regression.reject = c == MG_REJECT;
	return 0;
}

/* regression.history (1 to MG_HISTORY_MAX) and regression.history_max_commits
 * (1 to MG_HISTORY_MAX_COMMITS). */
static int walk_regression_history(walk *w, const mg_yaml_node *n, int key)
{
	mg_regression *rg = &w->p->rules.regression;
	const char *where = key == R_HISTORY ? "regression.history"
					     : "regression.history_max_commits";
	long max = key == R_HISTORY ? MG_HISTORY_MAX : MG_HISTORY_MAX_COMMITS;
	double v = 0;
	int error;

	if (key == R_HISTORY)
		w->p->regression_history_pos = n->pos;
	else
		w->p->regression_history_max_commits_pos = n->pos;
	if ((error = mg_policy__get_int(&v, w, n, where, 1)) < 0)
		return error;
	if (v > max)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be at most %ld, got '%.40s'",
				   where, max, n->text);
	if (key == R_HISTORY)
		rg->history = (int)v;
	else
		rg->history_max_commits = (int)v;
	return 0;
}

/* regression.noise_test (mann_whitney | range). */
static int walk_regression_noise_test(walk *w, const mg_yaml_node *n)
{
	const char *where = "regression.noise_test";
	int c;

	w->p->regression_noise_test_pos = n->pos;
	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a string");
	if ((c = mg_noise_test_from_name(n->text)) < 0)
		return mg_error_at(w->err, w->path, n->pos, "'%s' must be '%s' or '%s', got '%.40s'",
				   where, mg_noise_test_name(MG_NOISE_TEST_MANN_WHITNEY),
				   mg_noise_test_name(MG_NOISE_TEST_RANGE), n->text);
	w->p->rules.regression.noise_test = (enum mg_noise_test)c;
	return 0;
}

/* regression.alpha: the rank test's level, greater than 0 and at most 0.5. */
static int walk_regression_alpha(walk *w, const mg_yaml_node *n)
{
	const char *where = "regression.alpha";

	w->p->regression_alpha_pos = n->pos;
	if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT)
		return mg_policy__type_error(w, n, where, "a number");
	if (!(n->num > 0 && n->num <= 0.5))
		return mg_error_at(w->err, w->path, n->pos,
				   "'%s' must be greater than 0 and at most 0.5, got '%.40s'",
				   where, n->text);
	w->p->rules.regression.alpha = n->num;
	return 0;
}

static bool is_regression(int t)
{
	return mg_threshold_def_of((enum mg_threshold)t)->vs_base != MG_VS_NONE;
}

/* A regression section that sets none of the core's regression thresholds:
 * "set max_peak_increase_mb, ... or max_eval_loss_increase". */
static int no_threshold(walk *w, const mg_yaml_node *map)
{
	mg_buf b = MG_BUF_INIT;
	int t, last = -1, n = 0;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (is_regression(t))
			last = t;
	mg_buf_puts(&b, "'regression' sets no threshold: set ");
	for (t = 0; t <= last; t++)
		if (is_regression(t)) {
			if (n++)
				mg_buf_puts(&b, t == last ? " or " : ", ");
			mg_buf_puts(&b, mg_threshold_name((enum mg_threshold)t));
		}
	mg_error_at(w->err, w->path, map->pos, "%s", b.ptr);
	mg_buf_free(&b);
	return MG_ERROR;
}

/* regression: how much worse than the base each covered candidate may get. */
int mg_policy__walk_regression(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	mg_regression *rg = &p->rules.regression;
	int idx, error = 0;
	char sub[96];
	size_t i;

	p->regression_pos = map->pos;
	if ((error = mg_policy__expect_map(w, map, "regression")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		error = mg_policy__pair_key(&idx, w, map, i, SEC_REGRESSION, "regression");
		if (error < 0)
			goto done;
		if (idx == MG_THRESHOLD_COUNT + R_NOISE_TEST) {
			error = walk_regression_noise_test(w, v);
		} else if (idx == MG_THRESHOLD_COUNT + R_ALPHA) {
			error = walk_regression_alpha(w, v);
		} else if (idx >= MG_THRESHOLD_COUNT + R_HISTORY) {
			error = walk_regression_history(w, v, idx - MG_THRESHOLD_COUNT);
		} else if (idx >= MG_THRESHOLD_COUNT) {
			error = walk_regression_word(w, v, idx - MG_THRESHOLD_COUNT);
		} else {
			mg_policy__join(sub, sizeof(sub), "regression",
					mg_threshold_name((enum mg_threshold)idx));
			error = mg_policy__get_threshold(&rg->limits.value[idx], w, v,
							 (enum mg_threshold)idx, sub);
			rg->limits.set[idx] = error == 0;
			p->threshold_pos[idx] = v->pos;
		}
		if (error < 0)
			goto done;
	}
	if (!mg_regression_active(rg))
		error = no_threshold(w, map);
done:
	return error;
}
