#ifndef MEMGATE_HISTORY_H
#define MEMGATE_HISTORY_H
/*
 * regression.history (memgate(1), REGRESSIONS AND HISTORY): the base's evidence as the
 * median of the last N measurements on the base's first-parent line.
 *
 * A measurement is a version of the base's report: a commit of the line
 * whose report blob differs from its first parent's.  Each candidate's
 * peak memory, samples/s and eval loss in `evidence` is the median over
 * the versions holding that candidate (the first of its name) with that
 * metric as a number; the mean of the two middle values for an even
 * count.  The decision core compares with it as with the base's report
 * (mg_regression.base).  Plain data, owned by the history: mg_history_free.
 * Every string in it has the history as its one owner, each candidate's
 * name and status included (status "ok", a copy of its own): a caller may
 * replace one with another malloc'd string, which the history then frees.
 */
#include <stdbool.h>
#include <stddef.h>
#include "decision.h"

/*
 * Why a version of the report does not count (memgate(1), REGRESSIONS AND
 * HISTORY): no version counts that nobody gated.  Unreadable: not a report
 * memgate reads; not pinned: the manifest at its commit pins other bytes (or
 * is missing); identity: its workload or hardware is not the policy's; unsigned:
 * the policy requires provenance and the manifest's signature at its commit
 * does not verify under the allowed signers.
 */
enum mg_history_skip {
	MG_HISTORY_SKIP_UNREADABLE,
	MG_HISTORY_SKIP_NOT_PINNED,
	MG_HISTORY_SKIP_IDENTITY,
	MG_HISTORY_SKIP_UNSIGNED,
	MG_HISTORY_SKIP_COUNT
};

/* One version of the report: the commit that changed it, and its blob. */
typedef struct mg_history_version {
	char commit[65];
	char blob[65];
} mg_history_version;

/* A candidate's peak memory in the versions that hold it as a number. */
typedef struct mg_history_series {
	size_t count;
	size_t *version;   /* indices into mg_history.versions, newest first */
	double *value;
} mg_history_series;

typedef struct mg_history {
	int asked;                 /* regression.history */
	size_t max_commits;        /* the bound the walk had */
	size_t visited;            /* commits of the line looked at */
	bool bounded;              /* the bound stopped the walk before `asked` versions */
	bool ended;                /* the line's history ended before `asked` versions */
	bool shallow;              /* ended in a shallow clone: more can be fetched */
	char base[65];             /* the commit the walk started from */
	char *path;                /* the report's repository path */
	mg_history_version *versions;  /* the versions read as reports, newest first */
	size_t used;               /* their count: what the medians are over */
	size_t skipped;            /* versions that could not be read as a report */
	size_t skipped_for[MG_HISTORY_SKIP_COUNT];  /* versions skipped, per reason
						       (UNREADABLE: skipped) */
	char *skipped_why;         /* why the first of them could not, or NULL */
	mg_evidence evidence;      /* the medians: a candidate per name, in order of
				      first appearance, newest version first */
	mg_history_series *peaks;  /* per evidence candidate: its peak per version */
	size_t *by_name;           /* the evidence candidates' indices, sorted by name */
} mg_history;

/* The skipped versions of every reason. */
size_t mg_history_skipped_total(const mg_history *h);

/* A reason's words ("not pinned by the manifest") and its record key
 * ("not_pinned"). */
const char *mg_history_skip_words(enum mg_history_skip why);
const char *mg_history_skip_key(enum mg_history_skip why);

/* The index of the candidate named `name` in h->evidence, or -1. */
long mg_history_find(const mg_history *h, const char *name);

/* The median of n values (sorted in place); NAN when n is 0. */
double mg_history_median(double *values, size_t n);

/* Free a history and everything in it; accepts NULL. */
void mg_history_free(mg_history *h);

#endif
