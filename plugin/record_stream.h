#ifndef MEMGATE_RECORD_STREAM_H
#define MEMGATE_RECORD_STREAM_H
/*
 * The decision record's large parts, written as they go (record_stream.c):
 * the evaluations and the scenarios, in cJSON_Print's layout, where
 * record.c's printed tree holds their placeholders.
 */
#include <stdbool.h>
#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/insight.h"
#include "memgate/record.h"

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

/* Hand the buffer to the sink (nothing more once it failed), and empty it. */
void mg_record__flush(struct stream *st);

/* The evaluations array, as the value of a member of the record's root;
 * `depth` is the root's own (0 for a record printed alone). */
void mg_record__write_evaluations(struct stream *st, const mg_decision *d, bool waivers,
				  const mg_insight *in, int depth);

/* The scenarios array, as the value of a member of "sensitivity". */
void mg_record__write_scenarios(struct stream *st, const mg_decision *d, int depth);

#endif
