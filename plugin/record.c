/* The decision record (README, "The decision record"): see
 * include/memgate/record.h. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "compare.h"
#include "memgate/escape.h"
#include "format.h"
#include "memgate/insight.h"
#include "memgate/record.h"
#include "memgate/version.h"

/* cJSON reports allocation failure as NULL; like mg_xmalloc, give up. */
static cJSON *must(cJSON *item)
{
	if (!item)
		abort();
	return item;
}

/* Add item to an object under key, or to an array when key is NULL.
 * Returns the item. */
static cJSON *add(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	must(item);
	ok = key ? cJSON_AddItemToObject(parent, key, item)
		 : cJSON_AddItemToArray(parent, item);
	if (!ok)
		abort();
	return item;
}

/* A JSON string holding s as valid UTF-8; null for NULL. */
static cJSON *new_string(const char *s)
{
	return mg_json__new_string(s);
}

/* An object id: null when empty (not computed). */
static cJSON *new_id(const char *hex)
{
	return hex[0] ? new_string(hex) : cJSON_CreateNull();
}

/*
 * A number written exactly: the shortest of %.15g, %.16g and %.17g that
 * reads back as the same double (cJSON prints at most 15 digits, so a value
 * one unit in the last place over a threshold could print equal to it).
 * Non-finite numbers are written as null.
 */
static cJSON *new_number(double v)
{
	mg_buf b = MG_BUF_INIT;
	cJSON *item;

	if (!isfinite(v))
		return cJSON_CreateNull();
	mg_format_exact(&b, v);
	item = cJSON_CreateRaw(b.ptr);
	mg_buf_free(&b);
	return item;
}

static cJSON *new_bool(bool v)
{
	return cJSON_CreateBool(v);
}

static void render_gate(cJSON *root, const mg_check_result *r)
{
	cJSON *gate = add(root, "gate", cJSON_CreateObject());
	cJSON *fail_on = add(gate, "fail_on", cJSON_CreateArray());
	int v;

	for (v = 0; v < MG_VERDICT_COUNT; v++)
		if (r->fail_on[v])
			add(fail_on, NULL, new_string(mg_verdict_name((enum mg_verdict)v)));
	add(gate, "passed", new_bool(r->passed));
}

/* {path, [rev,] blob[, sha256]}; commit ids only outside --worktree. */
static void render_ref(cJSON *inputs, const char *key, const mg_input_ref *ref,
		       const char *rev, bool with_sha256)
{
	cJSON *o = add(inputs, key, cJSON_CreateObject());

	add(o, "path", new_string(ref->path));
	if (rev)
		add(o, "rev", new_id(rev));
	add(o, "blob", new_id(ref->blob));
	if (with_sha256)
		add(o, "sha256", new_id(ref->sha256));
}

static void render_inputs(cJSON *root, const mg_check_result *r)
{
	cJSON *inputs = add(root, "inputs", cJSON_CreateObject());
	const char *policy_rev = NULL;

	if (r->worktree) {
		add(inputs, "source", new_string("worktree"));
	} else {
		add(inputs, "rev", new_id(r->rev));
		policy_rev = r->policy_ref.commit[0] ? r->policy_ref.commit : r->policy_rev;
	}
	render_ref(inputs, "policy", &r->policy_ref, policy_rev, false);
	if (r->manifest_ref.read)
		render_ref(inputs, "manifest", &r->manifest_ref, NULL, false);
	render_ref(inputs, "report", &r->report_ref, NULL, true);
	if (r->approved_ref.read)
		render_ref(inputs, "approved_result", &r->approved_ref, NULL, true);
	if (r->signature.sig_ref.read)
		render_ref(inputs, "signature", &r->signature.sig_ref, NULL, false);
	if (r->signature.signers_ref.read)
		render_ref(inputs, "allowed_signers", &r->signature.signers_ref, policy_rev, false);
}

/* provenance: who signed the manifest (README, "Signed evidence"); only
 * when the policy that decides has a provenance section. */
static void render_provenance(cJSON *root, const mg_check_result *r)
{
	const mg_check_signature *s = &r->signature;
	cJSON *o;

	if (!s->checked)
		return;
	o = add(root, "provenance", cJSON_CreateObject());
	add(o, "namespace", new_string(r->policy->sig_namespace));
	add(o, "required", new_bool(s->required));
	add(o, "verified", new_bool(s->verified));
	add(o, "signer", new_string(s->principals));
	add(o, "key", new_string(s->key));
	add(o, "issue", new_string(s->problem ? mg_issue_name(s->issue) : NULL));
	add(o, "problem", new_string(s->problem));
}

/* With evidence.inputs: the measured commit (null when the manifest names
 * none), the changed paths and how many changed in all. */
static void render_freshness(cJSON *ev, const mg_check_result *r)
{
	const char *at = r->manifest ? r->manifest->measured_commit : NULL;
	cJSON *paths;
	size_t i;

	if (!r->policy || !r->policy->input_count)
		return;
	add(ev, "measured_commit", new_string(at));
	paths = add(ev, "stale_inputs", cJSON_CreateArray());
	for (i = 0; i < r->stale_count; i++)
		add(paths, NULL, new_string(r->stale_paths[i]));
	add(ev, "stale_input_count", new_number((double)r->stale_total));
}

static void render_evidence(cJSON *root, const mg_check_result *r)
{
	cJSON *ev = add(root, "evidence", cJSON_CreateObject());
	const mg_decision *d = r->decision;
	cJSON *issues;
	int i;

	add(ev, "is_applicable", new_bool(d->applicable));
	issues = add(ev, "issues", cJSON_CreateArray());
	for (i = 0; i < MG_ISSUE_COUNT; i++)
		if (d->issue[i])
			add(issues, NULL, new_string(mg_issue_name((enum mg_issue)i)));
	render_freshness(ev, r);
}

/* {threshold name: value} for the thresholds set in b, in enum order. */
static void render_budget(cJSON *parent, const char *key, const mg_budget *b)
{
	cJSON *o = add(parent, key, cJSON_CreateObject());
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			add(o, mg_threshold_name((enum mg_threshold)t), new_number(b->value[t]));
}

static void render_checks_run(cJSON *root, const mg_budget *b)
{
	cJSON *a = add(root, "checks_run", cJSON_CreateArray());
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			add(a, NULL, new_string(mg_threshold_name((enum mg_threshold)t)));
}

/*
 * ---- the two large parts: evaluations and scenarios ----
 *
 * 10^5 evaluations and 10^3 scenarios of 3 * 10^4 feasible indices are
 * millions of cJSON items (more memory than the report, and more time than
 * deciding).  They are written straight into a buffer instead, in exactly
 * the layout cJSON_Print gives (a tab per level, "key":<tab>value, arrays
 * on one line with ", " between elements), and put where cJSON_Print wrote
 * a placeholder (a raw \001 byte, which a printed string never holds).
 */
#define EVALUATIONS_MARK "\001E\001"
#define SCENARIOS_MARK "\001S\001"

/*
 * The record goes to its sink in pieces of about STREAM_CHUNK bytes, so a
 * record of 10^5 evaluations (over a hundred megabytes) never sits whole in
 * memory: `buf` is filled, handed to the sink, and reused.
 */
#define STREAM_CHUNK (256 * 1024)

struct stream {
	mg_buf buf;
	mg_sink sink;
	void *ctx;
	int error;         /* MG_ERROR once the sink failed: write nothing more */
};

static void flush(struct stream *st)
{
	if (!st->error && st->buf.len && st->sink(st->ctx, st->buf.ptr, st->buf.len) < 0)
		st->error = MG_ERROR;
	st->buf.len = 0;
	st->buf.ptr[0] = '\0';
}

/* Hand the buffer over once it holds a chunk. */
static void maybe_flush(struct stream *st)
{
	if (st->buf.len >= STREAM_CHUNK)
		flush(st);
}

struct writer {
	mg_buf *out;       /* the stream's buffer */
	struct stream *st;
	int depth;
	int count[16];     /* members or elements written at each level */
	bool array[16];    /* the level is an array */
};

/* A writer for an array or object member of the record's level `depth`. */
static void writer_init(struct writer *w, struct stream *st, int depth)
{
	memset(w, 0, sizeof(*w));
	w->st = st;
	w->out = &st->buf;
	w->depth = depth;
}

static void tabs(struct writer *w, int n)
{
	static const char t[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

	mg_buf_put(w->out, t, (size_t)(n < 16 ? n : 16));
}

/* cJSON's string escaping of valid UTF-8, and the '[' of "##[" as \u005b
 * (mg_escape_is_command). */
static void put_escaped(mg_buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	mg_buf_grow(out, len + 2);
	mg_buf_putc(out, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool command = mg_escape_is_command(s, i);
		char esc[6] = { '\\', 0, 0, 0, 0, 0 };
		size_t n = 2;

		if (c >= 0x20 && c != '"' && c != '\\' && !command)
			continue;
		mg_buf_put(out, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		mg_buf_put(out, esc, n);
	}
	mg_buf_put(out, s + run, len - run);
	mg_buf_putc(out, '"');
}

/* Start a value: the separator its array wants. */
static void value_start(struct writer *w)
{
	if (w->array[w->depth] && w->count[w->depth]++)
		mg_buf_put(w->out, ", ", 2);
}

static void key(struct writer *w, const char *name)
{
	if (w->count[w->depth]++)
		mg_buf_put(w->out, ",\n", 2);
	tabs(w, w->depth);
	put_escaped(w->out, name, strlen(name));
	mg_buf_put(w->out, ":\t", 2);
}

static void open_level(struct writer *w, bool array)
{
	value_start(w);
	mg_buf_puts(w->out, array ? "[" : "{\n");
	w->depth++;
	assert(w->depth < 16);
	w->count[w->depth] = 0;
	w->array[w->depth] = array;
}

static void close_level(struct writer *w)
{
	bool array = w->array[w->depth], any = w->count[w->depth];

	w->depth--;
	if (array) {
		mg_buf_putc(w->out, ']');
		return;
	}
	if (any)
		mg_buf_putc(w->out, '\n');
	tabs(w, w->depth);
	mg_buf_putc(w->out, '}');
}

/* A string (valid UTF-8 as mg_escape_utf8 makes it), or null for NULL. */
static void string(struct writer *w, const char *s)
{
	mg_buf valid = MG_BUF_INIT;
	size_t len, i;

	value_start(w);
	if (!s) {
		mg_buf_puts(w->out, "null");
		return;
	}
	len = strlen(s);
	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	if (i == len) {
		put_escaped(w->out, s, len);
		return;
	}
	mg_escape_utf8(&valid, s, len);
	put_escaped(w->out, valid.ptr, valid.len);
	mg_buf_free(&valid);
}

/* A whole number, as cJSON prints one (no printf: 10^8 of them). */
static void whole(struct writer *w, size_t n)
{
	char digits[24];
	size_t k = sizeof(digits);

	value_start(w);
	do {
		digits[--k] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	mg_buf_put(w->out, digits + k, sizeof(digits) - k);
}

static void number_or_null(struct writer *w, bool known, double v)
{
	value_start(w);
	if (known && isfinite(v))
		mg_format_exact(w->out, v);
	else
		mg_buf_puts(w->out, "null");
}

/* The metrics in the record's order: memory and speed, then quality. */
static const enum mg_metric_id record_order[MG_METRIC_COUNT] = {
	MG_M_PEAK, MG_M_SAMPLES, MG_M_SAVING, MG_M_RATIO, MG_M_EVAL_LOSS, MG_M_DELTA,
	MG_M_RATE,
};

/* The names of the reasons in a bit set, in enum order, as key's array. */
static void write_reasons(struct writer *w, const char *name, unsigned reasons)
{
	int i;

	key(w, name);
	open_level(w, true);
	for (i = 0; i < MG_REASON_COUNT; i++)
		if (reasons & (1u << i))
			string(w, mg_reason_name((enum mg_reason)i));
	close_level(w);
}

static void null_value(struct writer *w)
{
	value_start(w);
	mg_buf_puts(w->out, "null");
}

/* A candidate's noise bands and the checks within noise; null without runs. */
static void write_noise(struct writer *w, const mg_noise *n)
{
	int i;

	if (!n || !n->has_runs) {
		null_value(w);
		return;
	}
	open_level(w, false);
	key(w, "bands");
	open_level(w, false);
	for (i = 0; i < MG_METRIC_COUNT; i++) {
		enum mg_metric_id m = record_order[i];

		if (!n->band[m].known)
			continue;
		key(w, mg_metric_name(m));
		open_level(w, true);
		number_or_null(w, true, n->band[m].min);
		number_or_null(w, true, n->band[m].max);
		close_level(w);
	}
	close_level(w);
	key(w, "within_noise");
	open_level(w, true);
	for (i = 0; i < MG_THRESHOLD_COUNT; i++)
		if (n->within & (1u << i))
			string(w, mg_threshold_name((enum mg_threshold)i));
	close_level(w);
	close_level(w);
}

/* The candidate's place on the trade-off front and its exchange rate. */
static void write_trade_off(struct writer *w, const mg_evaluation *e, const mg_insight *in,
			    size_t i)
{
	double rate = 0;
	enum mg_exchange x = mg_insight_exchange(&rate, e);

	key(w, "pareto");
	if (!in || !in->front_complete || (!in->on_front[i] && in->dominated_by[i] == MG_INSIGHT_NONE))
		null_value(w);
	else
		string(w, in->on_front[i] ? "front" : "dominated");
	key(w, "dominated_by_index");
	if (in && in->front_complete && in->dominated_by[i] != MG_INSIGHT_NONE)
		whole(w, in->dominated_by[i]);
	else
		null_value(w);
	key(w, "throughput_free");
	if (x == MG_EXCHANGE_UNKNOWN)
		null_value(w);
	else
		string(w, x == MG_EXCHANGE_FREE ? "free" : "costs_throughput");
}

/* `waivers`: with a policy that has waivers, each evaluation also lists
 * the reasons a waiver let it pass (waived_reasons); `in` (may be NULL)
 * adds the candidate's noise, front and exchange rate. */
static void write_evaluation(struct writer *w, const mg_evaluation *e, bool waivers,
			     const mg_insight *in, size_t index)
{
	int i;

	open_level(w, false);
	key(w, "name");
	string(w, e->name);
	key(w, "status");
	string(w, mg_status_name(e->status));
	write_reasons(w, "reasons", e->reasons);
	if (waivers)
		write_reasons(w, "waived_reasons", e->waived);
	for (i = 0; i < MG_METRIC_COUNT; i++) {
		enum mg_metric_id m = record_order[i];

		key(w, mg_metric_name(m));
		number_or_null(w, e->known[m], e->value[m]);
	}
	key(w, "repeats");
	value_start(w);
	mg_buf_printf(w->out, "%d", e->repeats);
	key(w, "noise");
	write_noise(w, in && index < in->count ? &in->noise[index] : NULL);
	write_trade_off(w, e, in && index < in->count ? in : NULL, index);
	close_level(w);
}

/* The evaluations array, as the value of a member of the record's root;
 * `depth` is the root's own (0 for a record printed alone). */
static void write_evaluations(struct stream *st, const mg_decision *d, bool waivers,
			      const mg_insight *in, int depth)
{
	struct writer w;
	size_t i;

	writer_init(&w, st, 1 + depth);
	open_level(&w, true);
	for (i = 0; i < d->base.count; i++) {
		write_evaluation(&w, &d->base.evaluations[i], waivers, in, i);
		maybe_flush(st);
	}
	close_level(&w);
}

/* The scenario's feasible indices, ", "-separated, straight into the
 * stream's buffer, INDEX_RUN at a time. */
#define INDEX_RUN 4096

static void put_indices(struct stream *st, const mg_scenario *sc)
{
	mg_buf *out = &st->buf;
	size_t cursor = 0, index, k, run = 0;
	char digits[24], *p;
	bool first = true;

	mg_buf_grow(out, INDEX_RUN * 22);
	p = out->ptr + out->len;
	while (mg_scenario_next_feasible(sc, &cursor, &index)) {
		if (!first) {
			*p++ = ',';
			*p++ = ' ';
		}
		first = false;
		k = sizeof(digits);
		do {
			digits[--k] = (char)('0' + index % 10);
			index /= 10;
		} while (index);
		memcpy(p, digits + k, sizeof(digits) - k);
		p += sizeof(digits) - k;
		if (++run == INDEX_RUN) {
			out->len = (size_t)(p - out->ptr);
			out->ptr[out->len] = '\0';
			maybe_flush(st);
			mg_buf_grow(out, INDEX_RUN * 22);
			p = out->ptr + out->len;
			run = 0;
		}
	}
	out->len = (size_t)(p - out->ptr);
	out->ptr[out->len] = '\0';
}

/*
 * A scenario names candidates by their index in "evaluations" (0-based,
 * report order), never by name: a name is written once, in "evaluations",
 * however many scenarios it wins or passes, which bounds the record's size
 * (see the README's "The decision record").
 */
static void write_scenario(struct writer *w, const mg_scenario *sc)
{
	int t;

	open_level(w, false);
	key(w, "id");
	string(w, sc->id);
	key(w, "overrides");
	open_level(w, false);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (sc->overrides.set[t]) {
			key(w, mg_threshold_name((enum mg_threshold)t));
			number_or_null(w, true, sc->overrides.value[t]);
		}
	close_level(w);
	key(w, "best_index");
	if (sc->best) {
		whole(w, sc->best_index);
	} else {
		value_start(w);
		mg_buf_puts(w->out, "null");
	}
	key(w, "feasible_indices");
	open_level(w, true);
	put_indices(w->st, sc);
	close_level(w);
	close_level(w);
}

/* The scenarios array, as the value of a member of "sensitivity". */
static void write_scenarios(struct stream *st, const mg_decision *d, int depth)
{
	struct writer w;
	size_t i;

	writer_init(&w, st, 2 + depth);
	open_level(&w, true);
	for (i = 0; i < d->scenario_count; i++) {
		write_scenario(&w, &d->scenarios[i]);
		maybe_flush(st);
	}
	close_level(&w);
}

/* The feasible set's names in rank order. */
static void render_feasible(cJSON *parent, const mg_screening *s)
{
	cJSON *a = add(parent, "feasible_names", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < s->feasible_count; i++)
		add(a, NULL, new_string(s->evaluations[s->feasible[i]].name));
}

static void render_screening(cJSON *root, const mg_decision *d)
{
	add(root, "evaluations", cJSON_CreateRaw(EVALUATIONS_MARK));
	render_feasible(root, &d->base);
	add(root, "best_candidate", new_string(d->best));
}


static void render_sensitivity(cJSON *root, const mg_decision *d)
{
	cJSON *sens = add(root, "sensitivity", cJSON_CreateObject());
	cJSON *sum;

	add(sens, "evaluated", new_bool(d->sensitivity_evaluated));
	add(sens, "scenarios", cJSON_CreateRaw(SCENARIOS_MARK));
	sum = add(sens, "summary", cJSON_CreateObject());
	add(sum, "scenario_count", cJSON_CreateNumber((double)d->scenario_count));
	add(sum, "best_candidate_stable", new_bool(d->best_candidate_stable));
	add(sum, "feasible_set_stable", new_bool(d->feasible_set_stable));
	add(sum, "interpretation", new_string(d->interpretation));
	add(sum, "stability_tested", new_bool(d->stability_tested));
}

static void render_warnings(cJSON *root, const mg_check_result *r)
{
	cJSON *a = add(root, "warnings", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < r->warning_count; i++)
		add(a, NULL, new_string(r->warnings[i]));
}

/* A side of a policy change as typed JSON: a number, a string, null when
 * unset, ["reject", "tune"], [{overrides}], {axis: [values]}. */
static cJSON *new_change_value(const mg_change_value *v)
{
	cJSON *item, *axis;
	size_t i, k;
	int x;

	switch (v->kind) {
	case MG_CHANGE_UNSET:
		return cJSON_CreateNull();
	case MG_CHANGE_NUMBER:
		return new_number(v->number);
	case MG_CHANGE_STRING:
		return new_string(v->string);
	case MG_CHANGE_VERDICTS:
		item = must(cJSON_CreateArray());
		for (x = 0; x < MG_VERDICT_COUNT; x++)
			if (v->verdicts[x])
				add(item, NULL, new_string(mg_verdict_name((enum mg_verdict)x)));
		return item;
	case MG_CHANGE_STRICTER:
		item = must(cJSON_CreateArray());
		for (i = 0; i < v->count; i++)
			render_budget(item, NULL, &v->stricter[i]);
		return item;
	case MG_CHANGE_STRINGS:
		item = must(cJSON_CreateArray());
		for (i = 0; i < v->count; i++)
			add(item, NULL, new_string(v->strings[i]));
		return item;
	default:
		item = must(cJSON_CreateObject());
		for (i = 0; i < v->count; i++) {
			axis = add(item, mg_threshold_name(v->grid[i].threshold), cJSON_CreateArray());
			for (k = 0; k < v->grid[i].count; k++)
				add(axis, NULL, new_number(v->grid[i].values[k]));
		}
		return item;
	}
}

static void render_changes(cJSON *root, const mg_check_result *r)
{
	cJSON *a, *o;
	size_t i;

	if (!r->change_count)
		return;
	a = add(root, "policy_changes", cJSON_CreateArray());
	for (i = 0; i < r->change_count; i++) {
		const mg_policy_change *c = &r->changes[i];

		o = add(a, NULL, cJSON_CreateObject());
		add(o, "key", new_string(c->key));
		add(o, "before", new_change_value(&c->before));
		add(o, "after", new_change_value(&c->after));
		add(o, "effect", new_string(mg_check_effect_name(c->effect)));
	}
}

static void render_notes(cJSON *root, const mg_check_result *r)
{
	cJSON *a;
	size_t i;

	if (!r->note_count)
		return;
	a = add(root, "notes", cJSON_CreateArray());
	for (i = 0; i < r->note_count; i++)
		add(a, NULL, new_string(r->notes[i]));
}

/* {"base": x, "head": y, "delta": y - x}, each null when unknown. */
static void render_compare_value(cJSON *o, const char *key, const mg_compare_value *v,
				 const mg_compare_row *row)
{
	cJSON *m = add(o, key, cJSON_CreateObject());
	bool base = row->in_base && v->base_known, head = row->in_head && v->head_known;

	add(m, "base", base ? new_number(v->base) : cJSON_CreateNull());
	add(m, "head", head ? new_number(v->head) : cJSON_CreateNull());
	add(m, "delta", base && head ? new_number(v->head - v->base) : cJSON_CreateNull());
}

static void render_compare_rows(cJSON *parent, const mg_decision *base, const mg_decision *head)
{
	cJSON *list = add(parent, "candidates", cJSON_CreateArray()), *o;
	mg_compare_row *rows = NULL;
	size_t n = 0, i, k;

	mg_compare_rows(&rows, &n, base, head);
	for (i = 0; i < n; i++) {
		const mg_compare_row *row = &rows[i];

		o = add(list, NULL, cJSON_CreateObject());
		add(o, "name", new_string(row->name));
		add(o, "change", new_string(!row->in_base ? "new" : !row->in_head ? "removed" :
					     mg_compare_row_changed(row) ? "changed" : "unchanged"));
		add(o, "base_status", row->in_base ? new_string(mg_status_name(row->base_status))
						   : cJSON_CreateNull());
		add(o, "head_status", row->in_head ? new_string(mg_status_name(row->head_status))
						   : cJSON_CreateNull());
		for (k = 0; k < MG_COMPARE_METRICS; k++)
			render_compare_value(o, mg_metric_name(mg_compare_metrics[k]), &row->value[k],
					     row);
	}
	free(rows);
}

/* --base: the base commit's decision under the same policy, and per
 * candidate what changed. */
static void render_base(cJSON *root, const mg_check_result *r)
{
	const mg_check_base *b = r->base;
	const mg_decision *bd;
	cJSON *o;

	if (!b)
		return;
	o = add(root, "base", cJSON_CreateObject());
	add(o, "rev", new_id(b->rev));
	if (!b->result) {
		add(o, "error", new_string(b->error ? b->error : "unknown error"));
		return;
	}
	bd = b->result->decision;
	add(o, "decision", new_string(mg_verdict_name(bd->verdict)));
	add(o, "reason", new_string(mg_outcome_name(bd->reason)));
	add(o, "selected_candidate", new_string(bd->selected));
	add(o, "passed", new_bool(b->result->passed));
	add(o, "report_sha256", new_id(b->result->report_ref.sha256));
	render_compare_rows(o, bd, r->decision);
}

static bool has_waivers(const mg_check_result *r)
{
	return r->policy && r->policy->waivers_set;
}

/* "waivers": the date they were judged on, and each with what became of it. */
static void render_waivers(cJSON *root, const mg_check_result *r)
{
	cJSON *o, *list, *w;
	size_t i;

	if (!has_waivers(r))
		return;
	o = add(root, "waivers", cJSON_CreateObject());
	add(o, "today", new_string(r->today));
	add(o, "today_from", new_string(r->today_given ? "--today" : "clock (UTC)"));
	list = add(o, "entries", cJSON_CreateArray());
	for (i = 0; i < r->waiver_count; i++) {
		const mg_policy_waiver *v = r->waivers[i].waiver;

		w = add(list, NULL, cJSON_CreateObject());
		add(w, "candidate", new_string(v->candidate));
		add(w, "reason", new_string(mg_reason_name(v->reason)));
		add(w, "justification", new_string(v->justification));
		add(w, "owner", new_string(v->owner));
		add(w, "expires", new_string(v->expires));
		add(w, "status", new_string(mg_check_waiver_status_name(r->waivers[i].status)));
		if (r->waivers[i].expiring)
			add(w, "expires_in_days", cJSON_CreateNumber(r->waivers[i].days_left));
	}
}

static void render_approved(cJSON *root, const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	cJSON *o;

	if (!d->approved_checked)
		return;
	o = add(root, "approved", cJSON_CreateObject());
	add(o, "decision", new_string(r->approved_decision));
	add(o, "selected_candidate", new_string(r->approved_selected));
	o = add(o, "computed", cJSON_CreateObject());
	add(o, "decision", new_string(mg_verdict_name(d->computed_verdict)));
	add(o, "reason", new_string(mg_outcome_name(d->computed_reason)));
	add(o, "selected_candidate", new_string(d->computed_selected));
}

/* A value exactly and rounded for people (as the text output writes it). */
static void add_exact_and_rounded(cJSON *o, double v)
{
	mg_buf b = MG_BUF_INIT;

	add(o, "value", new_number(v));
	mg_format_value(&b, v, NULL);
	add(o, "rounded", new_number(strtod(b.ptr, NULL)));
	mg_buf_free(&b);
}

static cJSON *new_tip(const mg_tip *t)
{
	cJSON *o;

	if (!t->found) {
		o = cJSON_CreateObject();
		add(o, "found", new_bool(false));
		add(o, "limit_reached", new_bool(t->limit_reached));
		if (t->limit_reached)
			add(o, "decisions_limit", cJSON_CreateNumber((double)t->probe_limit));
		add(o, "decisions_run", cJSON_CreateNumber((double)t->probes));
		return must(o);
	}
	o = must(cJSON_CreateObject());
	add(o, "found", new_bool(true));
	add_exact_and_rounded(o, t->value);
	add(o, "decision", new_string(mg_verdict_name(t->verdict)));
	add(o, "reason", new_string(t->reason));
	add(o, "next_action", new_string(t->next_action));
	add(o, "selected_candidate", new_string(t->selected));
	add(o, "decisions_run", cJSON_CreateNumber((double)t->probes));
	return o;
}

static void render_tips(cJSON *parent, const mg_insight *in)
{
	cJSON *a = add(parent, "tipping_points", cJSON_CreateArray());
	size_t i;

	for (i = 0; i < in->tip_count; i++) {
		const mg_tipping *tp = &in->tips[i];
		cJSON *o = add(a, NULL, cJSON_CreateObject());

		add(o, "threshold", new_string(mg_threshold_name(tp->threshold)));
		add(o, "scope", new_string(tp->axis < 0 ? "budget" : "sensitivity.grid"));
		if (tp->axis >= 0)
			add(o, "axis_value_index", cJSON_CreateNumber((double)tp->value_index));
		add(o, "current", new_number(tp->value));
		add(o, "lower", new_tip(&tp->down));
		add(o, "higher", new_tip(&tp->up));
	}
}

static void render_insight(cJSON *root, const mg_check_result *r)
{
	const mg_insight *in = r->insight;
	const mg_decision *d = r->decision;
	cJSON *o, *noise, *front, *a;
	size_t i;

	if (!in)
		return;
	o = add(root, "insight", cJSON_CreateObject());
	add(o, "tipping_points_evaluated", new_bool(in->tips_evaluated));
	render_tips(o, in);
	noise = add(o, "noise", cJSON_CreateObject());
	add(noise, "mode", new_string(mg_noise_mode_name(r->policy ? r->policy->rules.noise :
								    MG_NOISE_WARN)));
	add(noise, "candidates_with_runs", cJSON_CreateNumber((double)in->with_runs));
	add(noise, "candidates_without_runs",
	    cJSON_CreateNumber((double)(in->count - in->with_runs)));
	front = add(o, "front", cJSON_CreateObject());
	add(front, "complete", new_bool(in->front_complete));
	add(front, "compared", cJSON_CreateNumber((double)in->compared));
	a = add(front, "names", cJSON_CreateArray());
	for (i = 0; i < in->count && in->front_complete; i++)
		if (in->on_front[i])
			add(a, NULL, new_string(d->base.evaluations[i].name));
}

/* regression.history (with the key): what was asked, and what the walk of
 * the base's first-parent line found (README, "Regressions"). */
static void render_history(cJSON *o, const mg_check_result *r, const mg_regression *rg)
{
	const mg_history *h = r->history;
	cJSON *x, *a;
	size_t i;

	if (!rg->history)
		return;
	x = add(o, "history", cJSON_CreateObject());
	add(x, "asked", cJSON_CreateNumber(rg->history));
	add(x, "max_commits", cJSON_CreateNumber(rg->history_max_commits ? rg->history_max_commits
						 : MG_HISTORY_DEFAULT_MAX_COMMITS));
	add(x, "read", new_bool(h != NULL));
	if (!h)
		return;
	add(x, "path", new_string(h->path));
	add(x, "base_commit", new_id(h->base));
	add(x, "used", cJSON_CreateNumber((double)h->used));
	add(x, "skipped", cJSON_CreateNumber((double)h->skipped));
	add(x, "commits_visited", cJSON_CreateNumber((double)h->visited));
	add(x, "bounded", new_bool(h->bounded));
	add(x, "shallow", new_bool(h->shallow && !h->bounded && h->used < (size_t)h->asked));
	a = add(x, "commits", cJSON_CreateArray());
	for (i = 0; i < h->used; i++)
		add(a, NULL, new_id(h->versions[i].commit));
}

/* regression (only with a regression: section): the policy's allowances,
 * whether the base was compared, and each regression that counts. */
static void render_regression(cJSON *root, const mg_check_result *r)
{
	const mg_regression *rg;
	const mg_decision *d = r->decision;
	cJSON *o, *a, *e;
	size_t i;

	if (!r->policy || !mg_regression_active(&r->policy->rules.regression))
		return;
	rg = &r->policy->rules.regression;
	o = add(root, "regression", cJSON_CreateObject());
	render_budget(o, "thresholds", &rg->limits);
	add(o, "covers", new_string(mg_covers_name(rg->covers)));
	add(o, "decision", new_string(mg_verdict_name(rg->reject ? MG_REJECT : MG_TUNE)));
	add(o, "compared", new_bool(d->regression_checked));
	add(o, "within_noise", cJSON_CreateNumber((double)d->regression_within_noise));
	a = add(o, "regressed", cJSON_CreateArray());
	for (i = 0; i < d->regressed_count; i++) {
		const mg_regressed *g = &d->regressed[i];
		const mg_threshold_def *def = mg_threshold_def_of(g->threshold);

		e = add(a, NULL, cJSON_CreateObject());
		add(e, "candidate", new_string(g->name));
		add(e, "index", cJSON_CreateNumber((double)g->index));
		add(e, "threshold", new_string(def->key));
		add(e, "reason", new_string(mg_reason_name(def->reason)));
		add(e, "metric", new_string(mg_metric_name(def->metric)));
		add(e, "base", new_number(g->base));
		add(e, "head", new_number(g->head));
		add(e, "change", new_number(g->change));
		add(e, "limit", new_number(g->limit));
		add(e, "beyond_run_noise", new_bool(g->runs));
	}
	render_history(o, r, rg);
}

static cJSON *build(const mg_check_result *r)
{
	const mg_decision *d = r->decision;
	cJSON *root = must(cJSON_CreateObject());

	add(root, "schema_version", new_string(MG_RECORD_SCHEMA));
	add(root, "memgate_version", new_string(MG_VERSION));
	add(root, "decision", new_string(mg_verdict_name(d->verdict)));
	add(root, "reason", new_string(mg_outcome_name(d->reason)));
	add(root, "next_action", new_string(mg_next_action_name(d->next_action)));
	add(root, "selected_candidate", new_string(d->selected));
	render_gate(root, r);
	render_inputs(root, r);
	render_provenance(root, r);
	render_evidence(root, r);
	render_budget(root, "budget", &d->budget);
	render_checks_run(root, &d->budget);
	render_screening(root, d);
	render_sensitivity(root, d);
	render_insight(root, r);
	render_warnings(root, r);
	render_notes(root, r);
	render_changes(root, r);
	render_waivers(root, r);
	render_approved(root, r);
	render_base(root, r);
	render_regression(root, r);
	return root;
}

static void put_input(mg_buf *out, const mg_input_ref *ref)
{
	if (ref->read && ref->path) {
		mg_buf_puts(out, ref->path);
		mg_buf_putc(out, '\n');
	}
}

/* Whether s holds a control character (a newline would split its line). */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

char *mg_record_render_inputs(const mg_check_result *r)
{
	mg_buf out = MG_BUF_INIT;
	size_t i;

	assert(r);
	mg_buf_puts(&out, "");
	put_input(&out, &r->policy_ref);
	put_input(&out, &r->manifest_ref);
	put_input(&out, &r->report_ref);
	put_input(&out, &r->approved_ref);
	for (i = 0; i < r->stale_count; i++)
		if (!has_control(r->stale_paths[i])) {
			mg_buf_puts(&out, r->stale_paths[i]);
			mg_buf_putc(&out, '\n');
		}
	return mg_buf_detach(&out, NULL);
}

/*
 * Writes the printed tree `text` up to the next record's two placeholders,
 * that record's evaluations and scenarios in their place (the record's root
 * at `depth`), and returns the text after them.
 */
static char *splice(struct stream *st, char *text, const mg_check_result *r, int depth)
{
	const mg_decision *d = r->decision;
	char *eval = strstr(text, EVALUATIONS_MARK), *sens;

	assert(eval);
	sens = strstr(eval, SCENARIOS_MARK);
	assert(sens);
	*eval = *sens = '\0';
	mg_escape_json_log(&st->buf, text);
	write_evaluations(st, d, has_waivers(r), r->insight, depth);
	mg_escape_json_log(&st->buf, eval + strlen(EVALUATIONS_MARK));
	write_scenarios(st, d, depth);
	return sens + strlen(SCENARIOS_MARK);
}

/* The printed tree with every record's large parts spliced in, and the
 * final newline; returns MG_OK or the sink's MG_ERROR. */
static int stream_tree(cJSON *root, const mg_check_item *items, size_t count,
		       const mg_check_result *one, mg_sink sink, void *ctx)
{
	struct stream st = { MG_BUF_INIT, sink, ctx, MG_OK };
	char *text, *rest;
	size_t i;

	if (!(text = cJSON_Print(root)))
		abort();
	mg_buf_grow(&st.buf, STREAM_CHUNK + 64 * 1024);
	rest = text;
	if (one)
		rest = splice(&st, rest, one, 0);
	for (i = 0; i < count; i++)
		if (items[i].result)
			rest = splice(&st, rest, items[i].result, 3);
	mg_escape_json_log(&st.buf, rest);
	mg_buf_putc(&st.buf, '\n');
	flush(&st);
	cJSON_free(text);
	mg_buf_free(&st.buf);
	return st.error;
}

int mg_record_write_set(const mg_check_item *items, size_t count, mg_sink sink, void *ctx)
{
	cJSON *root = must(cJSON_CreateObject()), *list, *o;
	char buf[2048];
	int status = 0, st, error;
	size_t i;

	assert(items && sink);
	for (i = 0; i < count; i++)
		if ((st = mg_check_item_status(&items[i])) > status)
			status = st;
	add(root, "schema_version", new_string(MG_RECORD_SET_SCHEMA));
	add(root, "passed", new_bool(status == 0));
	add(root, "exit_status", cJSON_CreateNumber(status));
	list = add(root, "policies", cJSON_CreateArray());
	for (i = 0; i < count; i++) {
		o = add(list, NULL, cJSON_CreateObject());
		add(o, "policy", new_string(items[i].policy));
		add(o, "exit_status", cJSON_CreateNumber(mg_check_item_status(&items[i])));
		if (items[i].result) {
			add(o, "error", cJSON_CreateNull());
			add(o, "record", build(items[i].result));
		} else {
			add(o, "error", new_string(mg_error_format(&items[i].error, buf, sizeof(buf))));
			add(o, "record", cJSON_CreateNull());
		}
	}
	error = stream_tree(root, items, count, NULL, sink, ctx);
	cJSON_Delete(root);
	return error;
}

int mg_record_write(const mg_check_result *r, mg_sink sink, void *ctx)
{
	cJSON *root;
	int error;

	assert(r && r->decision && sink);
	root = build(r);
	error = stream_tree(root, NULL, 0, r, sink, ctx);
	cJSON_Delete(root);
	return error;
}

/* A sink that keeps the record in memory: ctx is an mg_buf. */
static int to_buf(void *ctx, const char *data, size_t len)
{
	mg_buf_put(ctx, data, len);
	return MG_OK;
}

char *mg_record_render(const mg_check_result *r)
{
	mg_buf out = MG_BUF_INIT;

	mg_record_write(r, to_buf, &out);
	return mg_buf_detach(&out, NULL);
}

/* Parse len bytes as one JSON object with nothing but whitespace after it;
 * NULL when they are anything else. */
static cJSON *parse_object(const char *text, size_t len)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);

	if (root && cJSON_IsObject(root) && end) {
		while (end < text + len && *end && strchr(" \t\r\n", *end))
			end++;
		if (end == text + len)
			return root;
	}
	cJSON_Delete(root);
	return NULL;
}

static void drop_key(cJSON *object, const char *key)
{
	while (cJSON_GetObjectItemCaseSensitive(object, key))
		cJSON_DeleteItemFromObjectCaseSensitive(object, key);
}

/*
 * Remove what changes between two runs on the same evidence: the commit ids
 * (inputs.rev, inputs.<x>.rev), the manifest and approved result (pinning a
 * record into the manifest changes both, and a later release check would
 * otherwise never re-record the same decision), the approved-record check
 * the warnings (about the working tree, not the evidence), the base and the
 * regressions against it (another base, another comparison), the waivers'
 * judging date and days to expiry, and the version
 * of memgate that wrote it (an upgrade that decides the same is no change).
 */
static void drop_revs(cJSON *root)
{
	cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
	cJSON *child, *waivers, *entries, *entry;

	drop_key(root, "memgate_version");
	drop_key(root, "warnings");
	drop_key(root, "notes");
	drop_key(root, "approved");
	drop_key(root, "base");
	drop_key(root, "regression");   /* like base: what the base was */
	waivers = cJSON_GetObjectItemCaseSensitive(root, "waivers");
	if (cJSON_IsObject(waivers)) {
		drop_key(waivers, "today");
		drop_key(waivers, "today_from");
		entries = cJSON_GetObjectItemCaseSensitive(waivers, "entries");
		cJSON_ArrayForEach(entry, entries)
			if (cJSON_IsObject(entry))
				drop_key(entry, "expires_in_days");
	}
	if (!cJSON_IsObject(inputs))
		return;
	drop_key(inputs, "rev");
	drop_key(inputs, "manifest");
	drop_key(inputs, "approved_result");
	cJSON_ArrayForEach(child, inputs)
		if (cJSON_IsObject(child))
			drop_key(child, "rev");
}

int mg_record_same(bool *same, const char *existing, size_t existing_len,
		   const char *fresh, mg_error *err)
{
	cJSON *old = NULL, *now = NULL;
	int error = MG_ERROR;

	assert(same && existing && fresh);
	*same = false;
	if (!(old = parse_object(existing, existing_len))) {
		mg_error_set(err, NULL, 0, 0, "existing record is not a JSON object");
		goto done;
	}
	if (!(now = parse_object(fresh, strlen(fresh)))) {
		mg_error_set(err, NULL, 0, 0, "new record is not a JSON object");
		goto done;
	}
	drop_revs(old);
	drop_revs(now);
	*same = cJSON_Compare(old, now, 1);
	error = MG_OK;
done:
	cJSON_Delete(old);
	cJSON_Delete(now);
	return error;
}
