#ifndef MEMGATE_SENSITIVITY_H
#define MEMGATE_SENSITIVITY_H
/*
 * Sensitivity (sensitivity.c): the scenarios of memgate(1), HOW MEMGATE
 * DECIDES: Sensitivity, screened as bit sets.  What the decision needs of
 * it: the state a memo keeps from one decision to the next, and the steps.
 * Internal to the decision core.
 */
#include <stdbool.h>
#include <stddef.h>
#include "memgate/decision.h"
#include "memgate/error.h"

/* A bit set's word: bit k of a set over n candidates is bit k % 64 of word k / 64. */
typedef unsigned long long word_t;

struct storage {               /* what the scenarios point into */
	size_t *rank[2];           /* candidates in rank order, baseline not measured / measured */
	word_t *bits;              /* scenario_count * words */
	bool lent;                 /* a memo's, with the scenarios: the decision frees neither */
};

struct pred;

/* A class of scenarios (which thresholds they set): whether the baseline is
 * measured, and its candidates that reach step 7, in rank order. */
struct sens_class {
	unsigned mask;
	bool measured;
	word_t *eligible;
};

/* The sensitivity's state: what it derives from the evidence, the waivers
 * and the rank order, and its caches (sensitivity.c explains them). */
struct sens {
	const mg_rules *rules;
	const mg_evidence *ev;
	const int *early;
	const unsigned *waive;     /* per candidate: the reasons waived for it */
	const size_t *target;      /* per waiver: its candidate, or SIZE_MAX */
	bool *waiver_used;         /* per waiver: it let its candidate pass */
	size_t n, words;
	bool has_base;
	size_t base;
	mg_evaluation *evals[2];   /* values per variant, report order */
	size_t *rank[2];
	size_t *pos[2];            /* inverse of rank: a candidate's place in it */
	struct sens_class *classes;  /* the classes met so far (a few) */
	size_t class_count, class_cap;
	struct pred *cache;
	size_t cached, cache_cap;
	size_t allocated;          /* cache entries whose bits are allocated */
	size_t *slots;             /* hash index of the cache: entry + 1, 0 when free */
	size_t slot_count;         /* a power of two, at least twice `cached` */
	struct storage *pool;      /* a memo's storage and scenarios, lent to each decision */
	mg_scenario *pool_scenarios;
	size_t pool_count;
	mg_budget *pool_screened;  /* per pool scenario: the budget its bits and winner are of */
	bool *pool_known;          /* per pool scenario: screened by an earlier decision */
	struct {                   /* per threshold, the entry found last (valid until a flush) */
		const word_t *bits;    /* NULL when none */
		int variant;
		double value;
	} last[MG_THRESHOLD_COUNT];
};

/* Sets *count to the number of scenarios; fails above the limit. */
int mg_sensitivity__count_scenarios(size_t *count, const mg_rules *rules, size_t max,
				    mg_error *err);

/* Fails when the scenarios would screen more evaluations than the limit. */
int mg_sensitivity__check_evaluations(size_t scenarios, const mg_evidence *ev, mg_error *err);

/* s, fresh or kept by a memo: the evidence's, the waivers' and the
 * baseline's parts; the caches start empty. */
void mg_sensitivity__init(struct sens *s, const mg_rules *rules, const mg_evidence *ev,
			  const int *early, const unsigned *waive, const size_t *target);

/* Frees what s holds but its rank orders. */
void mg_sensitivity__release(struct sens *s);

/* The scenarios of d, screened with s (its caches filled as they go, kept
 * when `kept`: a memo's, whose rank orders the decision copies). */
void mg_sensitivity__run(mg_decision *d, struct sens *s, size_t count, bool kept);

/* The summary counters: one distinct winner and one distinct feasible list. */
void mg_sensitivity__summarize(mg_decision *d);

/* 2.5: the decision for a non-baseline base winner. */
void mg_sensitivity__decide(mg_decision *d);

#endif
