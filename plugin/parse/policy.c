/*
 * The budget policy (memgate(1), POLICY): see include/memgate/policy.h.
 *
 * plugin/parse/yaml.c loads the text into a tree, refusing what must never reach
 * a walk (aliases, anchors, foreign tags, a second document, deep nesting).
 * The walk maps that tree to rules: it checks every key and value in
 * document order and fills the mg_policy; each error names path:line:column
 * of the offending node.  This file walks the top level, its small keys
 * (version, manifest or report, rank_by) and gate:; each section has a
 * file of its own (plugin/parse/policy_walk.h lists them).
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hint.h"
#include "policy_walk.h"

/* One gate.fail_on word.  0 or MG_ERROR. */
static int fail_on_word(walk *w, const mg_yaml_node *n, size_t i)
{
	char where[48];
	const char *near;
	const char *verdict_words[MG_VERDICT_COUNT + 1];
	int v;

	snprintf(where, sizeof(where), "gate.fail_on[%zu]", i);
	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, where, "a string");
	for (v = 0; v < MG_VERDICT_COUNT; v++)
		verdict_words[v] = mg_verdict_name((enum mg_verdict)v);
	verdict_words[MG_VERDICT_COUNT] = NULL;
	v = mg_policy__key_find(verdict_words, n->text, n->len);
	if (v >= 0) {
		w->p->fail_on[v] = true;
		return 0;
	}
	near = mg_hint_nearest(verdict_words, n->text, n->len);
	if (near)
		return mg_error_at(w->err, w->path, n->pos,
				   "unknown decision '%.40s' in 'gate.fail_on' (did you mean '%s'?)",
				   n->text, near);
	return mg_error_at(w->err, w->path, n->pos,
			   "unknown decision '%.40s' in 'gate.fail_on' (expected %s, %s or %s)",
			   n->text, verdict_words[MG_ACCEPT], verdict_words[MG_TUNE],
			   verdict_words[MG_REJECT]);
}

/* gate.fail_on: a list of decisions (maybe empty: never fail). */
static int walk_fail_on(walk *w, const mg_yaml_node *seq)
{
	size_t i;
	int error = 0;

	w->p->fail_on_pos = seq->pos;
	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, "gate.fail_on", "a sequence");
	memset(w->p->fail_on, 0, sizeof(w->p->fail_on));
	w->p->fail_on_set = true;
	for (i = 0; i < seq->count && error == 0; i++)
		error = fail_on_word(w, seq->kids[i], i);
	return error;
}

static int walk_gate(walk *w, const mg_yaml_node *map)
{
	int idx, error = 0;
	size_t i;

	if ((error = mg_policy__expect_map(w, map, "gate")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		if ((error = mg_policy__pair_key(&idx, w, map, i, SEC_GATE, "gate")) < 0)
			goto done;
		if ((error = walk_fail_on(w, map->kids[i + 1])) < 0)
			goto done;
	}
done:
	return error;
}

static int walk_rank_by(walk *w, const mg_yaml_node *n)
{
	int r;

	w->p->rank_by_pos = n->pos;
	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, "rank_by", "a string");
	if ((r = mg_rank_by_from_name(n->text)) < 0)
		return mg_error_at(w->err, w->path, n->pos, "'rank_by' must be '%s' or '%s', "
				   "got '%.40s'", mg_rank_by_name(MG_RANK_PEAK_MEMORY),
				   mg_rank_by_name(MG_RANK_THROUGHPUT), n->text);
	w->p->rules.rank_by = (enum mg_rank_by)r;
	return 0;
}

static int walk_version(walk *w, const mg_yaml_node *n)
{
	if (n->kind != MG_YAML_INT && n->kind != MG_YAML_FLOAT)
		return mg_policy__type_error(w, n, "version", "the integer 1");
	if (n->kind != MG_YAML_INT || n->num != 1)
		return mg_error_at(w->err, w->path, n->pos,
				   "'version' must be the integer 1, got '%.40s'", n->text);
	w->p->version = 1;
	return 0;
}

/* manifest: or report:, exactly one of them.  0 or MG_ERROR. */
static int walk_source(walk *w, const mg_yaml_node *n, int key)
{
	mg_policy *p = w->p;

	if (p->manifest || p->report)
		return mg_error_at(w->err, w->path, n->pos,
				   "give only one of 'manifest' and 'report'");
	if (key == K_MANIFEST) {
		p->manifest_pos = n->pos;
		return mg_policy__get_string(&p->manifest, w, n, "manifest");
	}
	p->report_pos = n->pos;
	return mg_policy__get_string(&p->report, w, n, "report");
}

/* Dispatch one top-level key's value.  0 or MG_ERROR. */
static int walk_top(walk *w, int key, const mg_yaml_node *v)
{
	switch (key) {
	case K_VERSION: return walk_version(w, v);
	case K_MANIFEST:
	case K_REPORT: return walk_source(w, v, key);
	case K_IDENTITY: return mg_policy__walk_identity(w, v);
	case K_BUDGET: return mg_policy__walk_budget(w, v);
	case K_QUALITY:
		return mg_policy__walk_thresholds(w, v, SEC_QUALITY, "quality",
						  &w->p->rules.budget, w->p->threshold_pos);
	case K_EVIDENCE: return mg_policy__walk_evidence(w, v);
	case K_RANK_BY: return walk_rank_by(w, v);
	case K_SENSITIVITY: return mg_policy__walk_sensitivity(w, v);
	case K_WAIVERS: return mg_policy__walk_waivers(w, v);
	case K_PROVENANCE: return mg_policy__walk_provenance(w, v);
	case K_WAIVERS_WARN_DAYS: return mg_policy__walk_warn_days(w, v);
	case K_REGRESSION: return mg_policy__walk_regression(w, v);
	default: return walk_gate(w, v);
	}
}

/* The keys the top level must have, checked after its walk. */
static int check_required(walk *w, const mg_yaml_node *root, const bool seen[])
{
	const char *missing = NULL;

	if (!seen[K_VERSION])
		missing = "'version'";
	else if (!seen[K_MANIFEST] && !seen[K_REPORT])
		missing = "'manifest' or 'report'";
	else if (!seen[K_IDENTITY])
		missing = "'identity'";
	else if (!seen[K_BUDGET])
		missing = "'budget'";
	if (!missing && w->p->provenance_set && !w->p->manifest)
		return mg_error_at(w->err, w->path, w->p->provenance_pos, "'provenance' signs the "
				   "manifest: name one with 'manifest:', not 'report:'");
	if (!missing)
		return 0;
	return mg_error_at(w->err, w->path, root->pos, "missing required key %s", missing);
}

static int walk_root(walk *w, const mg_yaml_node *root)
{
	bool seen[K_COUNT] = { false };
	int key, error = 0;
	size_t i;

	if (!root || (root->kind == MG_YAML_NULL && root->len == 0)) {
		error = mg_error_set(w->err, w->path, 1, 1, "policy is empty");
		goto done;
	}
	if (root->kind != MG_YAML_MAP) {
		error = mg_error_at(w->err, w->path, root->pos,
				    "expected a mapping at the top level, got %s",
				    mg_policy__describe(root));
		goto done;
	}
	for (i = 0; i < root->count; i += 2) {
		if ((error = mg_policy__pair_key(&key, w, root, i, SEC_ROOT, "")) < 0)
			goto done;
		seen[key] = true;
		if ((error = walk_top(w, key, root->kids[i + 1])) < 0)
			goto done;
	}
	error = check_required(w, root, seen);
done:
	return error;
}

static mg_policy *policy_new(const char *path)
{
	mg_policy *p = mg_xcalloc(1, sizeof(*p));

	p->path = mg_xstrdup(path);
	p->rules.baseline = mg_xstrdup("baseline");
	p->rules.min_repeats = 1;
	p->rules.rank_by = MG_RANK_PEAK_MEMORY;
	p->rules.regression.alpha = MG_REGRESSION_DEFAULT_ALPHA;
	p->fail_on[MG_REJECT] = true;
	p->fail_on[MG_TUNE] = true;
	p->sig_namespace = mg_xstrdup("memgate");
	p->sig_required = true;
	p->waivers_warn_days = MG_POLICY_WARN_DAYS;
	return p;
}

int mg_policy_parse(mg_policy **out, const char *path, const char *text,
		    size_t len, mg_error *err)
{
	mg_yaml_node *root = NULL;
	mg_policy *p = NULL;
	walk w;
	int error;

	assert(out && path && (text || !len));
	*out = NULL;
	if ((error = mg_yaml__load(&root, path, text ? text : "", len, err)) < 0)
		goto done;
	p = policy_new(path);
	w.path = path;
	w.err = err;
	w.p = p;
	if ((error = walk_root(&w, root)) < 0)
		goto done;
	*out = p;
	p = NULL;
done:
	mg_yaml__free(root);
	mg_policy_free(p);
	return error;
}

void mg_policy_free(mg_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < MG_ID_COUNT; i++)
		free(p->rules.pin[i].string);
	for (i = 0; i < p->rules.grid_count; i++)
		free(p->rules.grid[i].values);
	free(p->rules.grid);
	free(p->grid_pos);
	free(p->rules.stricter);
	free(p->stricter_pos);
	free(p->rules.baseline);
	for (i = 0; i < p->waiver_count; i++) {
		free(p->waivers[i].candidate);
		free(p->waivers[i].justification);
		free(p->waivers[i].owner);
	}
	free(p->waivers);
	for (i = 0; i < p->input_count; i++)
		free(p->inputs[i]);
	free(p->inputs);
	free(p->input_pos);
	for (i = 0; i < p->signer_count; i++)
		free(p->signers[i]);
	free(p->signers);
	for (i = 0; i < p->approver_count; i++)
		free(p->approvers[i]);
	free(p->approvers);
	free(p->allowed_signers);
	free(p->sig_namespace);
	free(p->manifest);
	free(p->report);
	free(p->path);
	free(p);
}
