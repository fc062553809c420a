#ifndef MEMGATE_RECORD_STREAM_H
#define MEMGATE_RECORD_STREAM_H
/*
 * The decision record's large parts, written as they go (record_stream.c):
 * the evaluations and the scenarios, by the writer record.c writes the
 * rest of the record with.
 */
#include <stdbool.h>
#include "json_write.h"
#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/insight.h"
#include "memgate/record.h"

/*
 * ---- the two large parts: evaluations and scenarios ----
 *
 * 10^5 evaluations, and with --record-feasible-sets 10^3 scenarios of
 * 3 * 10^4 feasible indices, are millions of values (more memory than the report, were they a tree, and
 * more time than deciding): they are written straight into the stream's
 * buffer, which goes to the sink a chunk at a time.
 */

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

/* Hand the buffer to the sink (nothing more once it failed), and empty it. */
void mg_record__flush(struct stream *st);

/* The evaluations array, as the value of the record's member whose key w
 * has just written (w writes onto st->buf). */
void mg_record__write_evaluations(mg_jw *w, struct stream *st, const mg_decision *d,
				  bool waivers, const mg_insight *in);

/* The scenarios array, likewise (a member of "sensitivity"); each
 * scenario's feasible indices only with `sets` (--record-feasible-sets). */
void mg_record__write_scenarios(mg_jw *w, struct stream *st, const mg_decision *d,
				bool sets);

#endif
