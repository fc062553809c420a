#ifndef MEMGATE_REPORT_H
#define MEMGATE_REPORT_H
/*
 * The stage-76 report (SPEC 1.3), read with cJSON.
 *
 * Reads every real shape (flat, nested "training-memory-benchmark/v1",
 * the seed's handoff shape, candidates with runs[]).  mg_report is plain data
 * owned by the report; mg_report_free frees it and every string in it.
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"
#include "error.h"

typedef struct mg_report {
	char *path;
	mg_evidence evidence;       /* what the decision core reads */
	mg_value schema_version;    /* top-level schema_version */
	mg_value semantic_id;       /* top-level semantic_id */
	char *producer_decision;    /* decision.decision (or a string decision), NULL when absent */
	char *producer_reason;      /* decision.reason, NULL when absent */
} mg_report;

#define MG_REPORT_MAX_CANDIDATES 1024
#define MG_REPORT_MAX_RUNS       1024
#define MG_REPORT_MAX_NAME       256   /* bytes in a candidate name */

/*
 * Parse `len` bytes of `text` read from `path`.  Malformed JSON, duplicate
 * keys, trailing text, NUL bytes and invalid UTF-8 are errors naming
 * path:line:column.  A report that is not a JSON object is an error.
 */
int mg_report_parse(mg_report **out, const char *path, const char *text,
		    size_t len, mg_error *err);

void mg_report_free(mg_report *r);

#endif
