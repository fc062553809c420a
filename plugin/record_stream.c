/* The decision record's evaluations and scenarios, written as they go in
 * cJSON_Print's layout: see record_stream.h. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/escape.h"
#include "format.h"
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
	enum mg_exchange x = mg_exchange_rate(&rate, e);

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
void mg_record__write_evaluations(struct stream *st, const mg_decision *d, bool waivers,
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
 * (see the memgate(1)'s DECISION RECORD).
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
void mg_record__write_scenarios(struct stream *st, const mg_decision *d, int depth)
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
