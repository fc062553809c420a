/*
 * What the evidence must be (see policy_walk.h): evidence: (the baseline,
 * repeats, noise, the inputs it is measured from) and provenance: (who may
 * sign the manifest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/approved.h"
#include "path.h"
#include "policy_walk.h"

/* evidence.noise: warn | tune. */
static int walk_noise(walk *w, const mg_yaml_node *n)
{
	int mode;

	w->p->noise_pos = n->pos;
	if (n->kind != MG_YAML_STR)
		return mg_policy__type_error(w, n, "evidence.noise", "a string");
	if ((mode = mg_noise_mode_from_name(n->text)) < 0)
		return mg_error_at(w->err, w->path, n->pos,
				   "'evidence.noise' must be '%s' or '%s', got '%.40s'",
				   mg_noise_mode_name(MG_NOISE_WARN),
				   mg_noise_mode_name(MG_NOISE_TUNE), n->text);
	w->p->rules.noise = (enum mg_noise_mode)mode;
	return 0;
}

/* One entry of evidence.inputs: a string in a pathspec form memgate
 * matches as git does (mg_path_check_pathspec). */
static int get_input(char **out, walk *w, const mg_yaml_node *n, const char *where)
{
	char msg[sizeof(w->err->message)];
	mg_buf q = MG_BUF_INIT;

	if (mg_policy__get_string(out, w, n, where) < 0)
		return MG_ERROR;
	if (mg_path_check_pathspec(*out, w->err) == 0)
		return 0;
	snprintf(msg, sizeof(msg), "%s", w->err->message);
	free(*out);
	*out = NULL;
	mg_error_at(w->err, w->path, n->pos, "'%s': %s", mg_policy__quote(&q, n->text, n->len, 200),
		    msg);
	mg_buf_free(&q);
	return MG_ERROR;
}

/* evidence.inputs: a non-empty list of pathspecs, each in a form memgate
 * matches as git does (memgate(1), STALE EVIDENCE). */
static int walk_inputs(walk *w, const mg_yaml_node *seq)
{
	mg_policy *p = w->p;
	char where[64];
	size_t i;
	int error = 0;

	p->inputs_pos = seq->pos;
	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, "evidence.inputs", "a sequence");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos,
				   "'evidence.inputs' is empty: list at least one pathspec, "
				   "or remove the key");
	if (seq->count > MG_POLICY_MAX_INPUTS)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_INPUTS]->pos,
				   "'evidence.inputs' has more than %d entries", MG_POLICY_MAX_INPUTS);
	p->inputs = mg_xcalloc(seq->count, sizeof(*p->inputs));
	p->input_pos = mg_xcalloc(seq->count, sizeof(*p->input_pos));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(where, sizeof(where), "evidence.inputs[%zu]", i);
		p->input_pos[i] = seq->kids[i]->pos;
		if ((error = get_input(&p->inputs[i], w, seq->kids[i], where)) == 0)
			p->input_count++;
	}
	return error;
}

int mg_policy__walk_evidence(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	double repeats = 0;
	int idx, error = 0;
	size_t i;

	if ((error = mg_policy__expect_map(w, map, "evidence")) < 0)
		goto done;
	for (i = 0; i < map->count; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		if ((error = mg_policy__pair_key(&idx, w, map, i, SEC_EVIDENCE, "evidence")) < 0)
			goto done;
		if (idx == 0) {
			free(p->rules.baseline);
			p->rules.baseline = NULL;
			error = mg_policy__get_string(&p->rules.baseline, w, v,
						      "evidence.baseline");
			p->baseline_pos = v->pos;
		} else if (idx == 2) {
			error = walk_noise(w, v);
		} else if (idx == 3) {
			error = walk_inputs(w, v);
		} else {
			/* repeats is only set on success: never convert it otherwise */
			error = mg_policy__get_int(&repeats, w, v, "evidence.min_repeats", 1);
			if (error == 0)
				p->rules.min_repeats = (int)repeats;
			p->min_repeats_pos = v->pos;
		}
		if (error < 0)
			goto done;
	}
done:
	return error;
}

/* provenance.namespace: what ssh-keygen -Y sign -n was given. */
static int get_namespace(walk *w, const mg_yaml_node *n)
{
	size_t i;

	w->p->sig_namespace_pos = n->pos;
	free(w->p->sig_namespace);
	w->p->sig_namespace = NULL;
	if (mg_policy__get_string(&w->p->sig_namespace, w, n, "provenance.namespace") < 0)
		return MG_ERROR;
	for (i = 0; i < n->len; i++)
		if ((unsigned char)n->text[i] <= 0x20 || (unsigned char)n->text[i] >= 0x7f)
			break;
	if (!n->len || i < n->len)
		return mg_error_at(w->err, w->path, n->pos, "'provenance.namespace' must be a "
				   "word of printable characters without spaces, as ssh-keygen -Y "
				   "sign -n takes it");
	if (!strcmp(w->p->sig_namespace, MG_APPROVED_NAMESPACE))
		return mg_error_at(w->err, w->path, n->pos, "'provenance.namespace' must not be "
				   "'%s', the approvals' namespace: a key that may approve could "
				   "then sign measurements; use a namespace of the model's, e.g. "
				   "'memgate-llm-a'", MG_APPROVED_NAMESPACE);
	return 0;
}

/* One principal pattern: not empty, no comma (it separates patterns on an
 * allowed-signers line), no space or control character. */
static int get_principal(char **out, walk *w, const mg_yaml_node *n, const char *where)
{
	size_t i;

	if (mg_policy__get_string(out, w, n, where) < 0)
		return MG_ERROR;
	for (i = 0; i < n->len; i++)
		if ((unsigned char)n->text[i] <= 0x20 || n->text[i] == ',' || n->text[i] == 0x7f)
			break;
	if (n->len && i == n->len)
		return 0;
	free(*out);   /* not counted: the policy would not free it */
	*out = NULL;
	return mg_error_at(w->err, w->path, n->pos, "'%s' must be a principal pattern without "
			   "commas or spaces (as ssh-keygen -Y verify -I takes a name; * and ? "
			   "match, a leading ! excludes), got '%.40s'", where, n->text);
}

/* provenance.signers / provenance.approvers: a non-empty list of principal
 * patterns into *out (count entries). */
static int walk_principals(char ***out, size_t *count, mg_pos *pos, walk *w,
			   const mg_yaml_node *seq, const char *key)
{
	char where[64];
	size_t i;
	int error = 0;

	*pos = seq->pos;
	if (seq->kind != MG_YAML_SEQ)
		return mg_policy__type_error(w, seq, key, "a sequence of principal patterns");
	if (seq->count == 0)
		return mg_error_at(w->err, w->path, seq->pos, "'%s' is empty: list at least one "
				   "principal pattern, or remove the key", key);
	if (seq->count > MG_POLICY_MAX_PRINCIPALS)
		return mg_error_at(w->err, w->path, seq->kids[MG_POLICY_MAX_PRINCIPALS]->pos,
				   "'%s' has more than %d entries", key, MG_POLICY_MAX_PRINCIPALS);
	*out = mg_xcalloc(seq->count, sizeof(**out));
	for (i = 0; i < seq->count && error == 0; i++) {
		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		if ((error = get_principal(&(*out)[i], w, seq->kids[i], where)) == 0)
			(*count)++;
	}
	return error;
}

/* provenance: who may sign the manifest (memgate(1), SIGNED EVIDENCE). */
int mg_policy__walk_provenance(walk *w, const mg_yaml_node *map)
{
	mg_policy *p = w->p;
	int idx, error = 0;
	size_t i;

	p->provenance_pos = map->pos;
	if ((error = mg_policy__expect_map(w, map, "provenance")) < 0)
		goto done;
	p->provenance_set = true;
	for (i = 0; i < map->count && error == 0; i += 2) {
		const mg_yaml_node *v = map->kids[i + 1];

		error = mg_policy__pair_key(&idx, w, map, i, SEC_PROVENANCE, "provenance");
		if (error < 0)
			goto done;
		if (idx == P_ALLOWED_SIGNERS) {
			p->allowed_signers_pos = v->pos;
			error = mg_policy__get_string(&p->allowed_signers, w, v,
						      "provenance.allowed_signers");
		} else if (idx == P_NAMESPACE) {
			error = get_namespace(w, v);
		} else if (idx == P_SIGNERS) {
			error = walk_principals(&p->signers, &p->signer_count, &p->signers_pos, w,
						v, "provenance.signers");
		} else if (idx == P_APPROVERS) {
			error = walk_principals(&p->approvers, &p->approver_count,
						&p->approvers_pos, w, v, "provenance.approvers");
		} else {
			p->sig_required_pos = v->pos;
			if (v->kind != MG_YAML_BOOL)
				error = mg_policy__type_error(w, v, "provenance.require",
							      "true or false");
			else
				p->sig_required = v->text[0] == 't' || v->text[0] == 'T';
		}
	}
	if (error == 0 && !p->allowed_signers)
		error = mg_error_at(w->err, w->path, map->pos,
				    "missing required key 'allowed_signers' in 'provenance'");
done:
	return error;
}
