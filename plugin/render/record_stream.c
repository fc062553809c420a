/* The decision record's evaluations and scenarios, written as they go:
 * see record_stream.h. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/insight.h"
#include "record_stream.h"

void mg_record__flush(struct stream *st)
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
		mg_record__flush(st);
}

/* A value written exactly, null when unknown (or not finite). */
static void exact_or_null(mg_jw *w, bool known, double v)
{
	if (known)
		mg_jw_exact(w, v);
	else
		mg_jw_null(w);
}

/* The metrics in the record's order: memory and speed, then quality. */
static const enum mg_metric_id record_order[MG_METRIC_COUNT] = {
	MG_M_PEAK, MG_M_SAMPLES, MG_M_SAVING, MG_M_RATIO, MG_M_EVAL_LOSS, MG_M_DELTA,
	MG_M_RATE,
};

/* The names of the reasons in a bit set, in enum order, as key's array. */
static void write_reasons(mg_jw *w, const char *name, unsigned reasons)
{
	int i;

	mg_jw_key_array(w, name);
	for (i = 0; i < MG_REASON_COUNT; i++)
		if (reasons & (1u << i))
			mg_jw_string(w, mg_reason_name((enum mg_reason)i));
	mg_jw_end(w);
}

/* A candidate's noise bands and the checks within noise; null without
 * runs.  The bands of the measured metrics only: the saving's, the ratio's
 * and the quality delta's follow from them and the baseline's (memgate(1),
 * DECISION RECORD), and would be a third of the record at 10^5 candidates. */
static void write_noise(mg_jw *w, const mg_noise *n)
{
	int i;

	if (!n || !n->has_runs) {
		mg_jw_null(w);
		return;
	}
	mg_jw_object(w);
	mg_jw_key_object(w, "bands");
	for (i = 0; i < MG_METRIC_COUNT; i++) {
		enum mg_metric_id m = record_order[i];

		if (!mg_metric_measured(m) || !n->band[m].known)
			continue;
		mg_jw_key_array(w, mg_metric_name(m));
		mg_jw_exact(w, n->band[m].min);
		mg_jw_exact(w, n->band[m].max);
		mg_jw_end(w);
	}
	mg_jw_end(w);
	mg_jw_key_array(w, "within_noise");
	for (i = 0; i < MG_THRESHOLD_COUNT; i++)
		if (n->within & (1u << i))
			mg_jw_string(w, mg_threshold_name((enum mg_threshold)i));
	mg_jw_end(w);
	mg_jw_end(w);
}

/* The candidate's place on the trade-off front and its exchange rate. */
static void write_trade_off(mg_jw *w, const mg_evaluation *e, const mg_insight *in,
			    size_t i)
{
	double rate = 0;
	enum mg_exchange x = mg_exchange_rate(&rate, e);

	mg_jw_key(w, "pareto");
	if (!in || !in->front_complete || (!in->on_front[i] && in->dominated_by[i] == MG_INSIGHT_NONE))
		mg_jw_null(w);
	else
		mg_jw_string(w, in->on_front[i] ? "front" : "dominated");
	mg_jw_key(w, "dominated_by_index");
	if (in && in->front_complete && in->dominated_by[i] != MG_INSIGHT_NONE)
		mg_jw_uint(w, in->dominated_by[i]);
	else
		mg_jw_null(w);
	mg_jw_key(w, "throughput_free");
	if (x == MG_EXCHANGE_UNKNOWN)
		mg_jw_null(w);
	else
		mg_jw_string(w, x == MG_EXCHANGE_FREE ? "free" : "costs_throughput");
}

/* `waivers`: with a policy that has waivers, each evaluation also lists
 * the reasons a waiver let it pass (waived_reasons); `in` (may be NULL)
 * adds the candidate's noise, front and exchange rate. */
static void write_evaluation(mg_jw *w, const mg_evaluation *e, bool waivers,
			     const mg_insight *in, size_t index)
{
	int i;

	mg_jw_object(w);
	mg_jw_key_string(w, "name", e->name);
	mg_jw_key_string(w, "status", mg_status_name(e->status));
	write_reasons(w, "reasons", e->reasons);
	if (waivers)
		write_reasons(w, "waived_reasons", e->waived);
	for (i = 0; i < MG_METRIC_COUNT; i++) {
		enum mg_metric_id m = record_order[i];

		mg_jw_key(w, mg_metric_name(m));
		exact_or_null(w, e->known[m], e->value[m]);
	}
	mg_jw_key(w, "repeats");
	mg_jw_number(w, e->repeats);
	mg_jw_key(w, "noise");
	write_noise(w, in && index < in->count ? &in->noise[index] : NULL);
	write_trade_off(w, e, in && index < in->count ? in : NULL, index);
	mg_jw_end(w);
}

void mg_record__write_evaluations(mg_jw *w, struct stream *st, const mg_decision *d,
				  bool waivers, const mg_insight *in)
{
	size_t i;

	mg_jw_array_lines(w);   /* a candidate a line */
	for (i = 0; i < d->base.count; i++) {
		write_evaluation(w, &d->base.evaluations[i], waivers, in, i);
		maybe_flush(st);
	}
	mg_jw_end(w);
}

/* The scenario's feasible indices as the elements of the array w has
 * open, INDEX_RUN at a time: each run is made in `run` without printf and
 * handed to w whole (millions of indices). */
#define INDEX_RUN 4096

static void put_indices(mg_jw *w, struct stream *st, const mg_scenario *sc)
{
	const char *sep = mg_jw_flat(w) ? "," : ", ";
	mg_buf run = MG_BUF_INIT;
	size_t cursor = 0, index, k, n = 0;
	char digits[24];

	while (mg_scenario_next_feasible(sc, &cursor, &index)) {
		if (n++)
			mg_buf_puts(&run, sep);
		k = sizeof(digits);
		do {
			digits[--k] = (char)('0' + index % 10);
			index /= 10;
		} while (index);
		mg_buf_put(&run, digits + k, sizeof(digits) - k);
		if (n == INDEX_RUN) {
			mg_jw_raw(w, run.ptr, run.len);
			maybe_flush(st);
			run.len = 0;
			n = 0;
		}
	}
	if (n)
		mg_jw_raw(w, run.ptr, run.len);
	mg_buf_free(&run);
}

/*
 * A scenario names candidates by their index in "evaluations" (0-based,
 * report order), never by name: a name is written once, in "evaluations",
 * however many scenarios it wins or passes.  Its feasible set is its size
 * (and best_index, its first); the set itself, up to one index per
 * candidate, only with `sets` (--record-feasible-sets), so that the record
 * grows with candidates plus scenarios, not their product (memgate(1),
 * DECISION RECORD).
 */
static void write_scenario(mg_jw *w, struct stream *st, const mg_scenario *sc, bool sets)
{
	int t;

	mg_jw_object(w);
	mg_jw_key_string(w, "id", sc->id);
	mg_jw_key_object(w, "overrides");
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (sc->overrides.set[t])
			mg_jw_key_exact(w, mg_threshold_name((enum mg_threshold)t),
					sc->overrides.value[t]);
	mg_jw_end(w);
	mg_jw_key(w, "best_index");
	if (sc->best)
		mg_jw_uint(w, sc->best_index);
	else
		mg_jw_null(w);
	mg_jw_key(w, "feasible_count");
	mg_jw_uint(w, sc->feasible_count);
	if (sets) {
		mg_jw_key_array(w, "feasible_indices");
		put_indices(w, st, sc);
		mg_jw_end(w);
	}
	mg_jw_end(w);
}

void mg_record__write_scenarios(mg_jw *w, struct stream *st, const mg_decision *d, bool sets)
{
	size_t i;

	mg_jw_array_lines(w);   /* a scenario a line */
	for (i = 0; i < d->scenario_count; i++) {
		write_scenario(w, st, &d->scenarios[i], sets);
		maybe_flush(st);
	}
	mg_jw_end(w);
}
