#ifndef MEMGATE_REPORT_H
#define MEMGATE_REPORT_H
/*
 * The stage-76 report (memgate(1), REPORTS), read with cJSON.
 *
 * Reads every real shape (flat, nested "training-memory-benchmark/v1",
 * the seed's handoff shape, candidates with runs[]).  mg_report is plain data
 * owned by the report; mg_report_free frees it and every string in it.
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "error.h"
#include "limits.h"   /* memgate's, in this directory */

typedef struct mg_report {
	char *path;
	mg_evidence evidence;       /* what the decision core reads */
	mg_value schema_version;    /* top-level schema_version */
	mg_value semantic_id;       /* top-level semantic_id */
	char *producer_decision;    /* decision.decision (or a string decision), NULL when absent */
	char *producer_reason;      /* decision.reason, NULL when absent */
	struct mg_report_strings *strings;  /* private: holds the candidates' names and statuses */
} mg_report;

/* MG_REPORT_MAX_CANDIDATES, MG_REPORT_MAX_RUNS, MG_REPORT_MAX_NAME: limits.h. */

/*
 * Parse `len` bytes of `text` (need not be NUL-terminated) read from `path`.
 * Malformed JSON, duplicate keys, trailing text, NUL bytes, invalid UTF-8
 * and nesting deeper than 64 levels are errors naming path:line:column; so
 * are a report that is not a JSON object, more than MG_REPORT_MAX_CANDIDATES
 * candidates, more than MG_REPORT_MAX_RUNS runs in a candidate, and a name
 * longer than MG_REPORT_MAX_NAME bytes.  Everything else is data for the
 * decision core, never an error: a missing or non-numeric metric, a
 * candidate that is not an object (a candidate without a name), and so on.
 *
 * Lookup (memgate(1), REPORTS): for peak memory, throughput and eval loss the places
 * are tried in order -- the candidate's own keys, its `metrics` (memory,
 * throughput) or `quality` (losses) object, the median of its runs[] -- and
 * in each place the keys in memgate(1)'s order (REPORTS); the first place holding any of
 * the keys with a non-null value wins, whatever that value is (a string
 * there makes the metric MG_METRIC_INVALID even when a later place has a
 * number).  The runs place holds a metric when any run has it; it is
 * MG_METRIC_INVALID unless every run has a finite number.  Paired values
 * come from the candidate's own keys only.  aggregate_outside_runs is set
 * when an own-key or sub-object value of a measured metric lies outside
 * [min, max] of runs that all carry it numerically.  Each metric's pos is
 * where its value was read (the runs array for a median).
 *
 * Every string in *out is a copy owned by the report (mg_value.string
 * included).  On success *out is the caller's; free with mg_report_free.
 */
int mg_report_parse(mg_report **out, const char *path, const char *text,
		    size_t len, mg_error *err);

/* Free a report and every string in it; accepts NULL. */
void mg_report_free(mg_report *r);

#endif
