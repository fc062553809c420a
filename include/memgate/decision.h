#ifndef MEMGATE_DECISION_H
#define MEMGATE_DECISION_H
/*
 * The decision core (README, "How memgate decides"): pure, no I/O, no libgit2, no printing.
 *
 * Inputs are plain structs that the parsers fill (policy.h -> mg_rules,
 * report.h -> mg_evidence) and that tests may build by hand.  Strings in
 * the inputs are borrowed: the core never frees or keeps them beyond the
 * life of the mg_decision it returns (which points into the inputs: keep the
 * inputs alive while you use the decision).
 */
#include <stdbool.h>
#include <stddef.h>
#include "error.h"

/* Thresholds, in the order of the policy reference (README, "The policy"). */
enum mg_threshold {
	MG_MEMORY_CAP_MB,          /* budget.memory_cap_mb          hard */
	MG_MIN_SAMPLES_PER_S,      /* budget.min_samples_per_s      hard */
	MG_MIN_MEMORY_SAVING_MB,   /* budget.min_memory_saving_mb   target */
	MG_MIN_THROUGHPUT_RATIO,   /* budget.min_throughput_ratio   target */
	MG_MAX_EVAL_LOSS,          /* quality.max_eval_loss         hard */
	MG_MAX_RELATIVE_EVAL_LOSS, /* quality.max_relative_eval_loss hard */
	MG_MAX_QUALITY_DELTA,      /* quality.max_quality_delta     target */
	MG_THRESHOLD_COUNT
};

/* "memory_cap_mb", ...; NULL for an out-of-range value. */
const char *mg_threshold_name(enum mg_threshold t);
/* The enum for a key name, or -1. */
int mg_threshold_from_name(const char *name);

/* A set of thresholds; set[t] false means "not checked" (or, in a scenario's
 * overrides, "not overridden"). */
typedef struct mg_budget {
	bool set[MG_THRESHOLD_COUNT];
	double value[MG_THRESHOLD_COUNT];
} mg_budget;

/* A scalar read from a document: identity fields and identity pins. */
enum mg_value_kind {
	MG_VALUE_ABSENT,  /* missing, or JSON null */
	MG_VALUE_NUMBER,  /* a number (finite or not) */
	MG_VALUE_STRING,
	MG_VALUE_OTHER    /* bool, object, array */
};
typedef struct mg_value {
	enum mg_value_kind kind;
	double number;    /* when NUMBER */
	char *string;     /* when STRING; owned by the policy or report that filled it */
	mg_pos pos;       /* where the value is (or the enclosing object) */
} mg_value;

/* Identity fields, in the order of their issue codes (README, "How
 * memgate decides", 1.). */
enum mg_ident {
	MG_ID_WORKLOAD,   /* policy identity.workload_id; report workload_id | config.workload */
	MG_ID_HARDWARE,   /* hardware_id; report hardware_id | config.device */
	MG_ID_MODEL,      /* model_id; report config.model_id | config.model */
	MG_ID_DTYPE,      /* dtype; config.dtype */
	MG_ID_AMP_DTYPE,  /* amp_dtype; config.amp_dtype */
	MG_ID_BATCH_SIZE, /* batch_size; config.batch_size */
	MG_ID_SEQ_LEN,    /* seq_len; config.seq_len */
	MG_ID_OPTIMIZER,  /* optimizer; config.optimizer */
	MG_ID_COUNT
};
/* The policy key: "workload_id", "hardware_id", "model_id", "dtype", ... */
const char *mg_ident_name(enum mg_ident id);

/* Per-candidate metrics. */
enum mg_metric_id {
	MG_M_PEAK,       /* peak_memory_mb */
	MG_M_SAMPLES,    /* samples_per_s */
	MG_M_EVAL_LOSS,  /* eval_loss */
	MG_M_SAVING,     /* memory_saving_mb (paired, own key only) */
	MG_M_RATIO,      /* throughput_ratio (paired, own key only) */
	MG_M_DELTA,      /* quality_delta    (paired, own key only) */
	MG_METRIC_COUNT
};
/* "peak_memory_mb", "samples_per_s", "eval_loss", "memory_saving_mb",
 * "throughput_ratio", "quality_delta". */
const char *mg_metric_name(enum mg_metric_id m);

enum mg_metric_state {
	MG_METRIC_ABSENT,   /* no key, or null */
	MG_METRIC_NUMBER,   /* a finite number in `value` */
	MG_METRIC_INVALID   /* present but not a finite number (string, bool, inf, a run without it) */
};
typedef struct mg_metric {
	enum mg_metric_state state;
	double value;       /* meaningful when NUMBER */
	mg_pos pos;         /* where it was read (0:0 when absent) */
} mg_metric;

typedef struct mg_candidate {
	char *name;         /* NULL when absent or not a string; "" when empty */
	char *status;       /* "ok" when absent; NULL when present but not a string */
	bool oom;           /* status "oom" or metrics.oom == true */
	mg_metric metric[MG_METRIC_COUNT];
	int repeats;        /* entries of a non-empty runs[], else 1 */
	bool aggregate_outside_runs;
	mg_pos pos;         /* the candidate object */
} mg_candidate;

/* What the core needs from the report. */
typedef struct mg_evidence {
	mg_value identity[MG_ID_COUNT];
	bool handoff;               /* top-level status or eligible_candidates present */
	mg_value handoff_status;    /* top-level status */
	bool eligible_present;      /* eligible_candidates key present */
	char **eligible;            /* its string entries (others ignored) */
	size_t eligible_count;
	mg_pos eligible_pos;
	bool candidates_present;    /* candidates is an array (maybe empty) */
	mg_pos candidates_pos;
	mg_candidate *candidates;
	size_t candidate_count;
} mg_evidence;

enum mg_rank_by { MG_RANK_PEAK_MEMORY, MG_RANK_THROUGHPUT };

/* One sensitivity grid axis: a threshold and its values. */
typedef struct mg_grid_axis {
	enum mg_threshold threshold;
	double *values;
	size_t count;
} mg_grid_axis;

/* What the core needs from the policy. */
typedef struct mg_rules {
	mg_budget budget;
	mg_value pin[MG_ID_COUNT];  /* ABSENT = not pinned; workload and hardware always pinned */
	char *baseline;             /* default "baseline" */
	int min_repeats;            /* default 1 */
	enum mg_rank_by rank_by;
	mg_budget *stricter;        /* overrides: set[] marks what each entry sets */
	size_t stricter_count;
	mg_grid_axis *grid;         /* axes in the order written */
	size_t grid_count;
} mg_rules;

/* Evidence issues, in the README's order ("How memgate decides", 1.).  The first five come from outside the core
 * (hashes, manifest, approved result) and are passed in. */
enum mg_issue {
	MG_ISSUE_REPORT_HASH_MISMATCH,
	MG_ISSUE_SCHEMA_VERSION_MISMATCH,
	MG_ISSUE_SEMANTIC_ID_MISMATCH,
	MG_ISSUE_APPROVED_RESULT_MISSING,
	MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH,
	MG_ISSUE_HANDOFF_NOT_READY,
	MG_ISSUE_WORKLOAD_MISSING,
	MG_ISSUE_WORKLOAD_MISMATCH,
	MG_ISSUE_HARDWARE_MISSING,
	MG_ISSUE_HARDWARE_MISMATCH,
	MG_ISSUE_MODEL_MISMATCH,
	MG_ISSUE_DTYPE_MISMATCH,
	MG_ISSUE_AMP_DTYPE_MISMATCH,
	MG_ISSUE_BATCH_SIZE_MISMATCH,
	MG_ISSUE_SEQ_LEN_MISMATCH,
	MG_ISSUE_OPTIMIZER_MISMATCH,
	MG_ISSUE_ELIGIBLE_CANDIDATES_MISSING,
	MG_ISSUE_CANDIDATES_MISSING,
	MG_ISSUE_AGGREGATE_OUTSIDE_RUNS,
	MG_ISSUE_COUNT
};
const char *mg_issue_name(enum mg_issue i);   /* "report_hash_mismatch", ... */

enum mg_status {
	MG_STATUS_FEASIBLE,
	MG_STATUS_REJECTED,
	MG_STATUS_INVALID,
	MG_STATUS_OOM,
	MG_STATUS_EXCLUDED
};
const char *mg_status_name(enum mg_status s);  /* "feasible", ... */

/* Screening reasons, in the README's order ("How memgate decides", 2.: the
 * first table, then the thresholds' table). */
enum mg_reason {
	MG_R_MISSING_OR_DUPLICATE_NAME,
	MG_R_OOM,
	MG_R_EVIDENCE_NOT_COMPARABLE,
	MG_R_NOT_IN_ELIGIBLE_CANDIDATES,
	MG_R_MISSING_OR_NON_NUMERIC_METRIC,
	MG_R_INSUFFICIENT_REPEATS,
	MG_R_MEMORY_OVER_BUDGET,
	MG_R_SAMPLES_PER_S_BELOW_FLOOR,
	MG_R_QUALITY_OVER_FLOOR,
	MG_R_MEMORY_SAVING_BELOW_FLOOR,
	MG_R_THROUGHPUT_BELOW_FLOOR,
	MG_R_QUALITY_DELTA_OVER_LIMIT,
	MG_REASON_COUNT
};
const char *mg_reason_name(enum mg_reason r);  /* "memory_over_budget", ... */
/* The threshold a step-7 reason is about, or -1 for steps 1-6
 * (quality_over_floor gives MG_MAX_EVAL_LOSS: see
 * mg_screening.quality_ceiling_from for the ceiling that applied). */
int mg_reason_threshold(enum mg_reason r);

/* The outcome of screening one candidate under one budget. */
typedef struct mg_evaluation {
	size_t index;             /* into evidence->candidates */
	const char *name;         /* borrowed; NULL when the name is not a string */
	enum mg_status status;
	unsigned reasons;         /* bit (1u << mg_reason); list them in enum order */
	bool known[MG_METRIC_COUNT];   /* value[m] is meaningful (measured or derived) */
	double value[MG_METRIC_COUNT]; /* peak, samples, eval_loss, saving, ratio, delta */
	int repeats;
} mg_evaluation;

/* A budget's screening: evaluations in report order, the feasible set by rank. */
typedef struct mg_screening {
	mg_evaluation *evaluations;  /* candidate_count entries */
	size_t count;
	size_t *feasible;            /* indices into evaluations, in rank order */
	size_t feasible_count;
	double quality_ceiling;      /* the effective eval_loss ceiling, when known */
	bool quality_ceiling_known;
	int quality_ceiling_from;    /* the threshold that sets quality_ceiling
					(MG_MAX_EVAL_LOSS or MG_MAX_RELATIVE_EVAL_LOSS),
					-1 when no ceiling is checked */
	bool baseline_measured;      /* the baseline reached step 7 */
	bool needs_missing_baseline; /* some candidate at step 7 needs a derived value and cannot have it */
} mg_screening;

/*
 * A sensitivity scenario.  At scale (10^5 candidates, 10^3 scenarios) the
 * core keeps no per-candidate evaluations for a scenario, only its feasible
 * set as a bit set over the candidates in the scenario's rank order
 * (README, "How memgate decides": Ranking): bit k of `feasible` is set when the k-th candidate of `rank` is
 * feasible.  Walk it with mg_scenario_next_feasible; screen one scenario in
 * full (statuses and reasons of every candidate) with mg_scenario_screen.
 * `feasible` and `rank` belong to the decision (or, in a hand-built
 * scenario, to whoever built it).
 */
typedef struct mg_scenario {
	char id[40];                 /* "stricter[0]", "grid[5]" */
	mg_budget overrides;         /* what the scenario sets */
	mg_budget budget;            /* the effective budget (base + overrides, 2.5 quality rule) */
	const char *best;            /* borrowed name of the winner, NULL for none */
	size_t best_index;           /* the winner's index in the evaluations (when best) */
	size_t feasible_count;
	size_t count;                /* candidates: entries of rank, bits of feasible */
	const size_t *rank;          /* candidate indices in this scenario's rank order */
	const unsigned long long *feasible;  /* (count + 63) / 64 words, 64 bits each */
} mg_scenario;

/*
 * The next candidate of sc's feasible set, in rank order: start with
 * *cursor = 0; each call sets *index (an index into the evaluations, which
 * are in report order) and returns true, or returns false after the last.
 */
bool mg_scenario_next_feasible(const mg_scenario *sc, size_t *cursor, size_t *index);

/* Is the candidate at `index` (report order) feasible in sc?  O(count). */
bool mg_scenario_is_feasible(const mg_scenario *sc, size_t index);

enum mg_verdict { MG_ACCEPT, MG_TUNE, MG_REJECT, MG_VERDICT_COUNT };
const char *mg_verdict_name(enum mg_verdict v);  /* "accept", "tune", "reject" */
/* The enum for "accept"/"tune"/"reject", or -1. */
int mg_verdict_from_name(const char *name);

typedef struct mg_decision {
	enum mg_verdict verdict;
	const char *reason;          /* static string, e.g. "selection_stable_across_thresholds" */
	const char *next_action;     /* static string */
	const char *selected;        /* borrowed, or NULL (null in the record) */
	const char *best;            /* base winner (first feasible by rank), or NULL */

	bool issue[MG_ISSUE_COUNT];
	bool applicable;

	mg_budget budget;            /* the base budget */
	mg_screening base;

	bool sensitivity_evaluated;  /* base decision reached 2.3 step 3, 4 or 5 */
	mg_scenario *scenarios;
	size_t scenario_count;
	bool best_candidate_stable;  /* one distinct winner across scenarios ("none" counts) */
	bool feasible_set_stable;    /* one distinct feasible set across scenarios */
	bool stability_tested;       /* false when there were no scenarios */
	const char *interpretation;  /* "stable" or "sensitive_to_thresholds" */
	void *sensitivity_storage;   /* the scenarios' rank orders and bit sets (private) */
} mg_decision;

/* Limits the core enforces before evaluating (grid products). */
/* Scenarios times candidates: what sensitivity keeps (a bit per pair) and
 * what the decision record lists.  The default decides 10^3 scenarios of
 * 2 * 10^6 candidates: every report within the default input limit whose
 * candidates carry a name and a measurement. */
#ifndef MG_DECISION_MAX_EVALUATIONS   /* raise: make EXTRA_CFLAGS=-DMG_DECISION_MAX_EVALUATIONS=N */
#define MG_DECISION_MAX_EVALUATIONS 2147483648ULL
#endif
#ifndef MG_DECISION_MAX_SCENARIOS   /* raise: make EXTRA_CFLAGS=-DMG_DECISION_MAX_SCENARIOS=N */
#define MG_DECISION_MAX_SCENARIOS 4096
#endif

/*
 * Decide (README, "How memgate decides").  `pre_issues` holds the issues found outside the core
 * (MG_ISSUE_REPORT_HASH_MISMATCH .. MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH);
 * may be NULL.  On success *out is the caller's, freed with
 * mg_decision_free.  Fails only when the scenario count exceeds
 * `max_scenarios` (0 = MG_DECISION_MAX_SCENARIOS) or scenarios times
 * candidates exceeds MG_DECISION_MAX_EVALUATIONS; the message has no file.
 */
int mg_decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
	      const bool pre_issues[MG_ISSUE_COUNT], size_t max_scenarios,
	      mg_error *err);

/* Screen every candidate under `budget` (exposed for tests and renderers).
 * Fills *out; free with mg_screening_release. */
void mg_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
	       const mg_budget *budget);

/* Screen every candidate under scenario sc's budget, as sensitivity does
 * (a value that needs a baseline that is not measured makes a candidate
 * invalid): each candidate's status and reasons, which the decision does not
 * keep per scenario.  Its feasible list is sc's.  Fills *out; free with
 * mg_screening_release. */
void mg_scenario_screen(mg_screening *out, const mg_rules *rules, const mg_evidence *ev,
			const mg_scenario *sc);
void mg_screening_release(mg_screening *s);

/* The best `max` candidates of the base screening, for renderers that
 * cannot show them all: the feasible set in rank order, then the rejected
 * candidates that pass every hard limit, the other rejected ones, and the
 * rest (each in report order).  Fills out[] with evaluation indices and
 * returns how many. */
size_t mg_decision_best(const mg_decision *d, size_t *out, size_t max);

/* Free a decision; accepts NULL. */
void mg_decision_free(mg_decision *d);

#endif
