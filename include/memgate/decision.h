#ifndef MEMGATE_DECISION_H
#define MEMGATE_DECISION_H
/*
 * The decision core (memgate(1), HOW MEMGATE DECIDES): pure, no I/O, no libgit2, no printing.
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
#include "limits.h"   /* memgate's, in this directory */

/* Thresholds, in the order of the policy reference (memgate(1), POLICY). */
enum mg_threshold {
	MG_MEMORY_CAP_MB,          /* budget.memory_cap_mb          hard */
	MG_MIN_SAMPLES_PER_S,      /* budget.min_samples_per_s      hard */
	MG_MIN_MEMORY_SAVING_MB,   /* budget.min_memory_saving_mb   target */
	MG_MIN_THROUGHPUT_RATIO,   /* budget.min_throughput_ratio   target */
	MG_MAX_EVAL_LOSS,          /* quality.max_eval_loss         hard */
	MG_MAX_RELATIVE_EVAL_LOSS, /* quality.max_relative_eval_loss hard */
	MG_MAX_QUALITY_DELTA,      /* quality.max_quality_delta     target */
	MG_MIN_MB_SAVED_PER_PCT_THROUGHPUT, /* budget.min_mb_saved_per_pct_throughput target */
	/* regression: against the same candidate in the base revision's report
	 * (mg_regression); never in a budget's set[] */
	MG_MAX_PEAK_INCREASE_MB,   /* regression.max_peak_increase_mb */
	MG_MAX_PEAK_INCREASE_PCT,  /* regression.max_peak_increase_pct */
	MG_MAX_THROUGHPUT_DROP_PCT, /* regression.max_throughput_drop_pct */
	MG_MAX_EVAL_LOSS_INCREASE, /* regression.max_eval_loss_increase */
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

/* Identity fields, in the order of their issue codes (memgate(1), HOW MEMGATE DECIDES, 1.). */
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
	MG_M_RATE,       /* mb_saved_per_pct_throughput: derived, saving / ((1 - ratio) * 100),
			    known when the ratio is below 1 (never read from a report) */
	MG_METRIC_COUNT
};
/* "peak_memory_mb", "samples_per_s", "eval_loss", "memory_saving_mb",
 * "throughput_ratio", "quality_delta". */
const char *mg_metric_name(enum mg_metric_id m);

/* The values a report's metric can have: peak memory and samples/s above
 * 0, eval loss 0 or above, the others any finite number.  A value outside
 * its range is read as MG_METRIC_INVALID (out_of_range set). */
enum mg_metric_range {
	MG_METRIC_ANY,
	MG_METRIC_POSITIVE,       /* > 0 */
	MG_METRIC_NON_NEGATIVE,   /* >= 0 */
};
enum mg_metric_range mg_metric_range(enum mg_metric_id m);
/* Whether the finite number x lies in m's range. */
bool mg_metric_in_range(enum mg_metric_id m, double x);
/* Whether m is measured by each run (peak, samples/s, eval loss): the
 * others' noise bands follow from these and the baseline's (noise.c), so
 * the decision record lists only these (memgate-decision/v3). */
bool mg_metric_measured(enum mg_metric_id m);

enum mg_metric_state {
	MG_METRIC_ABSENT,   /* no key, or null */
	MG_METRIC_NUMBER,   /* a finite number in `value` */
	MG_METRIC_INVALID   /* present but not a finite number in its range (string,
			       bool, inf, a negative peak, a run without it) */
};
typedef struct mg_metric {   /* 24 bytes: 7 a candidate, 10^5 candidates */
	enum mg_metric_state state;
	bool out_of_range;  /* INVALID: a finite number outside mg_metric_range */
	double value;       /* meaningful when NUMBER, or INVALID and out_of_range */
	mg_pos pos;         /* where it was read (0:0 when absent) */
} mg_metric;

typedef struct mg_candidate {
	char *name;         /* NULL when absent or not a string; "" when empty */
	char *status;       /* "ok" when absent; NULL when present but not a string */
	bool oom;           /* status "oom" or metrics.oom == true */
	mg_metric metric[MG_METRIC_COUNT];
	int repeats;        /* entries of a non-empty runs[], else 1 */
	bool aggregate_outside_runs;
	/* The runs' range of a measured metric (peak, samples, eval_loss) when
	 * every run carries it as a finite number (measurement noise). */
	bool run_band[MG_METRIC_COUNT];
	double run_min[MG_METRIC_COUNT], run_max[MG_METRIC_COUNT];
	/* With run_band[m]: the runs' values of m, sorted ascending, `repeats`
	 * of them, borrowed from the report (NULL when whoever built the
	 * candidate kept only the band: then no rank test can be made). */
	const double *run_value[MG_METRIC_COUNT];
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

/* rank_by: the order in which the feasible candidates are ranked. */
enum mg_rank_by { MG_RANK_PEAK_MEMORY, MG_RANK_THROUGHPUT, MG_RANK_BY_COUNT };
/* "peak_memory", "throughput"; NULL for an out-of-range value. */
const char *mg_rank_by_name(enum mg_rank_by r);
/* The enum for a name, or -1. */
int mg_rank_by_from_name(const char *name);

/* evidence.noise: what a check within measurement noise does to an accept. */
enum mg_noise_mode { MG_NOISE_WARN, MG_NOISE_TUNE, MG_NOISE_MODE_COUNT };
/* "warn", "tune"; NULL for an out-of-range value. */
const char *mg_noise_mode_name(enum mg_noise_mode m);
/* The enum for a noise mode's name, or -1. */
int mg_noise_mode_from_name(const char *name);

/* regression.covers: which candidates are compared with the base. */
enum mg_covers { MG_COVERS_SELECTED, MG_COVERS_ALL, MG_COVERS_COUNT };
/* "selected", "all"; NULL for an out-of-range value. */
const char *mg_covers_name(enum mg_covers c);
/* The enum for a name, or -1. */
int mg_covers_from_name(const char *name);

/* regression.noise_test: how a change is held against its runs' noise when
 * both sides carry runs (memgate(1), REGRESSIONS AND HISTORY).  The default
 * is the exact Mann-Whitney test (mg_noise_mann_whitney); range is the
 * band rule of evidence.noise. */
enum mg_noise_test { MG_NOISE_TEST_MANN_WHITNEY, MG_NOISE_TEST_RANGE, MG_NOISE_TEST_COUNT };
/* "mann_whitney", "range"; NULL for an out-of-range value. */
const char *mg_noise_test_name(enum mg_noise_test t);
/* The enum for a name, or -1. */
int mg_noise_test_from_name(const char *name);

/* regression.alpha's default: the level of the Mann-Whitney test. */
#define MG_REGRESSION_DEFAULT_ALPHA 0.05

/*
 * Regressions against the base (memgate(1), REGRESSIONS AND HISTORY): how much worse than
 * the same-named candidate of the base revision's report a covered candidate
 * may get.  `limits` sets only the regression thresholds (section
 * "regression"); none set means no regression is checked.  The policy fills
 * limits, covers and reject; the caller adds the base's evidence (borrowed)
 * and the candidate the base's decision selected.
 */
typedef struct mg_regression {
	mg_budget limits;
	enum mg_covers covers;          /* default MG_COVERS_SELECTED */
	bool reject;                    /* regression.decision: reject; else tune */
	int history;                    /* regression.history: 0 = the base's report; N:
					   the caller hands the median of the last N
					   report versions as `base` (not read here) */
	int history_max_commits;        /* regression.history_max_commits: commits of the
					   base's first-parent line looked at; 0 = the
					   default, MG_HISTORY_DEFAULT_MAX_COMMITS */
	enum mg_noise_test noise_test;  /* regression.noise_test: default mann_whitney */
	double alpha;                   /* regression.alpha, in (0, 0.5]; 0 = the
					   default, MG_REGRESSION_DEFAULT_ALPHA */
	const struct mg_evidence *base; /* NULL: nothing to compare with */
	const char *base_selected;      /* NULL for none */
} mg_regression;

/* Whether any regression threshold is set. */
bool mg_regression_active(const mg_regression *r);


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
	enum mg_noise_mode noise;   /* default MG_NOISE_WARN */
	mg_budget *stricter;        /* overrides: set[] marks what each entry sets */
	size_t stricter_count;
	mg_grid_axis *grid;         /* axes in the order written */
	size_t grid_count;
	/* Waivers in force (not filled by mg_policy_parse: the caller picks
	 * the unexpired ones); NULL and 0 for none.  A waived reason does not
	 * count for its candidate in the base screening nor in any scenario. */
	const struct mg_waiver *waivers;
	size_t waiver_count;
	mg_regression regression;
} mg_rules;

/* The baseline's name: evidence.baseline, else "baseline" (rules may be
 * NULL: a result without a policy). */
const char *mg_rules_baseline(const mg_rules *rules);

/* Sets *index to the first candidate named as the baseline; false when none. */
bool mg_find_baseline(size_t *index, const mg_rules *rules, const mg_evidence *ev);

/* Whether ev's identity is the one the rules pin, as the decision compares
 * them (workload and hardware always present, each pinned field equal): no
 * identity issue.  regression.history counts no version that has one. */
bool mg_identity_matches(const mg_rules *rules, const mg_evidence *ev);

/* Evidence issues, in memgate(1)'s order (HOW MEMGATE DECIDES, 1.).  Those
 * up to MG_ISSUE_PRE_LAST come from outside the core (hashes, manifest,
 * approved result, the measured commit and evidence.inputs, the manifest's
 * signature) and are passed in. */
enum mg_issue {
	MG_ISSUE_REPORT_HASH_MISMATCH,
	MG_ISSUE_SCHEMA_VERSION_MISMATCH,
	MG_ISSUE_SEMANTIC_ID_MISMATCH,
	MG_ISSUE_APPROVED_RESULT_MISSING,
	MG_ISSUE_APPROVED_RESULT_HASH_MISMATCH,
	MG_ISSUE_MEASURED_COMMIT_MISSING,   /* evidence.inputs set, no measured.commit */
	MG_ISSUE_MEASURED_COMMIT_UNKNOWN,   /* measured.commit not in the repository */
	MG_ISSUE_EVIDENCE_STALE,            /* an input changed since measured.commit */
	MG_ISSUE_SIGNATURE_MISSING,             /* provenance: no MANIFEST.sig */
	MG_ISSUE_SIGNATURE_MALFORMED,           /* it cannot be read, or a refused kind */
	MG_ISSUE_SIGNATURE_INVALID,             /* not this manifest's signature by its key */
	MG_ISSUE_SIGNATURE_NAMESPACE_MISMATCH,  /* another namespace, or a key listed for others */
	MG_ISSUE_SIGNER_UNKNOWN,                /* the allowed signers do not list the key */
	MG_ISSUE_SIGNER_OUTSIDE_VALIDITY,       /* listed, but not valid on the day judged */
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
	/* appended (its code closes the table of codes): passed in like those
	 * up to MG_ISSUE_PRE_LAST */
	MG_ISSUE_APPROVAL_OF_OTHER_EVIDENCE,  /* the approved record names another report */
	MG_ISSUE_EVIDENCE_OUT_OF_PLACE,       /* the report is another policy's (its place) */
	MG_ISSUE_MEASURED_COMMIT_BEHIND_BASE, /* measured before the base's evidence was */
	MG_ISSUE_APPROVAL_UNVERIFIED,         /* the approval's signature: missing, invalid,
						 or not an approver's (provenance) */
	MG_ISSUE_COUNT
};
#define MG_ISSUE_PRE_LAST MG_ISSUE_SIGNER_OUTSIDE_VALIDITY  /* the last issue passed in */
/* Whether issue i is about the manifest's signature or its signer. */
#define MG_ISSUE_IS_SIGNATURE(i) ((i) >= MG_ISSUE_SIGNATURE_MISSING && (i) <= MG_ISSUE_SIGNER_OUTSIDE_VALIDITY)
const char *mg_issue_name(enum mg_issue i);   /* "report_hash_mismatch", ... */

enum mg_status {
	MG_STATUS_FEASIBLE,
	MG_STATUS_REJECTED,
	MG_STATUS_INVALID,
	MG_STATUS_OOM,
	MG_STATUS_EXCLUDED
};
const char *mg_status_name(enum mg_status s);  /* "feasible", ... */

/* Screening reasons, in memgate(1)'s order (HOW MEMGATE DECIDES, 2.: the
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
	MG_R_TRADE_OFF_BELOW_FLOOR,   /* min_mb_saved_per_pct_throughput (target) */
	/* regressions against the base (mg_regression): never a screening
	 * status, only the decision's mg_regressed entries */
	MG_R_PEAK_MEMORY_REGRESSED,   /* max_peak_increase_mb, max_peak_increase_pct */
	MG_R_THROUGHPUT_REGRESSED,    /* max_throughput_drop_pct */
	MG_R_EVAL_LOSS_REGRESSED,     /* max_eval_loss_increase */
	MG_REASON_COUNT
};
#define MG_R_CHECK_LAST MG_R_TRADE_OFF_BELOW_FLOOR   /* the last step-7 reason */
/* Whether r is a regression's reason (memgate(1), REGRESSIONS AND HISTORY). */
#define MG_REASON_IS_REGRESSION(r) ((r) > MG_R_CHECK_LAST && (r) < MG_REASON_COUNT)
const char *mg_reason_name(enum mg_reason r);  /* "memory_over_budget", ... */
/* The enum for a reason's name, or -1. */
int mg_reason_from_name(const char *name);
/* The threshold a step-7 reason is about, or -1 for steps 1-6
 * (quality_over_floor gives MG_MAX_EVAL_LOSS: see
 * mg_screening.quality_ceiling_from for the ceiling that applied). */
int mg_reason_threshold(enum mg_reason r);

/* Which values a threshold accepts in a policy. */
enum mg_range {
	MG_RANGE_POSITIVE,      /* > 0 */
	MG_RANGE_FRACTION,      /* between 0 and 1 */
	MG_RANGE_NON_NEGATIVE,  /* >= 0 */
};

/* How a regression threshold measures a metric's change from the base. */
enum mg_vs_base {
	MG_VS_NONE,        /* not a regression threshold */
	MG_VS_RISE,        /* head - base, in the metric's unit */
	MG_VS_RISE_PCT,    /* (head - base) / base * 100 */
	MG_VS_DROP_PCT,    /* (base - head) / base * 100 */
};

/*
 * A threshold of the policy (memgate(1), POLICY and "How memgate
 * decides"): the one table every module reads for its key, what it
 * checks and how it is shown.
 */
typedef struct mg_threshold_def {
	const char *key;            /* "memory_cap_mb" */
	const char *section;        /* "budget" or "quality" */
	enum mg_metric_id metric;   /* the value it bounds */
	enum mg_reason reason;      /* what failing it adds */
	bool hard;                  /* a hard limit (reject); else a target (tune) */
	bool ceiling;               /* value <= threshold passes; else value >= threshold */
	enum mg_range range;
	const char *label;          /* of the value, in messages: "peak", "memory saving" */
	const char *column;         /* in the text table: "peak", "saving" */
	const char *unit;           /* " MB" or "" */
	enum mg_vs_base vs_base;    /* a regression's change; MG_VS_NONE for the others */
} mg_threshold_def;

/* The definition of threshold t; NULL for an out-of-range value. */
const mg_threshold_def *mg_threshold_def_of(enum mg_threshold t);
/* Whether a policy may set threshold t to x: finite and in its range. */
bool mg_threshold_accepts(enum mg_threshold t, double x);

/*
 * The checks of step 7 as renderers show them: one per step-7 reason, in
 * reason order (hard limits, then targets), each the definition of the
 * reason's threshold.  The eval_loss check stands for both quality
 * ceilings: its limit is the effective one.
 */
#define MG_CHECK_COUNT (MG_R_CHECK_LAST + 1 - MG_R_MEMORY_OVER_BUDGET)
const mg_threshold_def *mg_check(size_t k);   /* k < MG_CHECK_COUNT */
/* Whether step-7 reason r bounds a value measured against the baseline
 * (memory saving, throughput ratio, quality delta). */
bool mg_reason_against_baseline(enum mg_reason r);
/* The threshold of check c (its reason's). */
enum mg_threshold mg_check_threshold(const mg_threshold_def *c);
/* Whether budget b runs check c. */
bool mg_check_active(const mg_threshold_def *c, const mg_budget *b);

/* How a value compares with check c's limit, as every renderer writes it:
 * ">" (a ceiling) or "<" (a floor) when it fails, "<=" or ">=" when it
 * passes (equality passes); with `math`, the passing ones as the symbols
 * U+2264 and U+2265 (the job summary).  Static. */
const char *mg_check_operator(const mg_threshold_def *c, bool fails, bool math);

/*
 * What a code means for the gate: how loud each renderer makes a finding
 * that carries it (annotation level, SARIF level, Code Quality severity).
 */
enum mg_kind {
	MG_KIND_EVIDENCE,  /* the evidence cannot be used as it is: an evidence
			      issue, a disqualified candidate (steps 1, 2, 5, 6),
			      a missing baseline, decision drift */
	MG_KIND_HARD,      /* a hard limit fails */
	MG_KIND_TARGET,    /* a target is missed */
	MG_KIND_SOFT,      /* an exclusion (steps 3, 4), a threshold-sensitive selection */
	MG_KIND_WARNING,   /* a warning about the inputs or a waiver */
	MG_KIND_NOTICE     /* information: a waiver applied */
};

/*
 * Every code, by name: the index of its row in mg_codes (SARIF's
 * ruleIndex), so that code naming a code that does not exist does not
 * compile.  Only append (mg_codes says in which order the rows come).
 */
enum mg_code_id {
	/* screening reasons, steps 1-6 */
	MG_CODE_MISSING_OR_DUPLICATE_NAME,
	MG_CODE_OOM,
	MG_CODE_EVIDENCE_NOT_COMPARABLE,
	MG_CODE_NOT_IN_ELIGIBLE_CANDIDATES,
	MG_CODE_MISSING_OR_NON_NUMERIC_METRIC,
	MG_CODE_INSUFFICIENT_REPEATS,
	/* screening reasons, step 7 */
	MG_CODE_MEMORY_OVER_BUDGET,
	MG_CODE_SAMPLES_PER_S_BELOW_FLOOR,
	MG_CODE_QUALITY_OVER_FLOOR,
	MG_CODE_MEMORY_SAVING_BELOW_FLOOR,
	MG_CODE_THROUGHPUT_BELOW_FLOOR,
	MG_CODE_QUALITY_DELTA_OVER_LIMIT,
	MG_CODE_TRADE_OFF_BELOW_FLOOR,
	/* evidence issues (enum mg_issue order) */
	MG_CODE_REPORT_HASH_MISMATCH,
	MG_CODE_SCHEMA_VERSION_MISMATCH,
	MG_CODE_SEMANTIC_ID_MISMATCH,
	MG_CODE_APPROVED_RESULT_MISSING,
	MG_CODE_APPROVED_RESULT_HASH_MISMATCH,
	MG_CODE_MEASURED_COMMIT_MISSING,
	MG_CODE_MEASURED_COMMIT_UNKNOWN,
	MG_CODE_EVIDENCE_STALE,
	MG_CODE_SIGNATURE_MISSING,
	MG_CODE_SIGNATURE_MALFORMED,
	MG_CODE_SIGNATURE_INVALID,
	MG_CODE_SIGNATURE_NAMESPACE_MISMATCH,
	MG_CODE_SIGNER_UNKNOWN,
	MG_CODE_SIGNER_OUTSIDE_VALIDITY,
	MG_CODE_HANDOFF_NOT_READY,
	MG_CODE_WORKLOAD_MISSING,
	MG_CODE_WORKLOAD_MISMATCH,
	MG_CODE_HARDWARE_MISSING,
	MG_CODE_HARDWARE_MISMATCH,
	MG_CODE_MODEL_MISMATCH,
	MG_CODE_DTYPE_MISMATCH,
	MG_CODE_AMP_DTYPE_MISMATCH,
	MG_CODE_BATCH_SIZE_MISMATCH,
	MG_CODE_SEQ_LEN_MISMATCH,
	MG_CODE_OPTIMIZER_MISMATCH,
	MG_CODE_ELIGIBLE_CANDIDATES_MISSING,
	MG_CODE_CANDIDATES_MISSING,
	MG_CODE_AGGREGATE_OUTSIDE_RUNS,
	/* the decision's own */
	MG_CODE_BASELINE_MISSING_OR_INVALID,
	MG_CODE_SELECTION_IS_THRESHOLD_SENSITIVE,
	MG_CODE_DECISION_DRIFT,
	/* the check's own */
	MG_CODE_WARNING,
	MG_CODE_WAIVER_APPLIED,
	MG_CODE_WAIVER_UNMATCHED,
	MG_CODE_NOTE,
	MG_CODE_POLICY_CHANGE,
	MG_CODE_WAIVER_EXPIRED,
	/* the decision's own, added later */
	MG_CODE_MARGIN_WITHIN_MEASUREMENT_NOISE,
	/* the check's own, added later */
	MG_CODE_WAIVER_EXPIRING,
	/* the regressions' reasons */
	MG_CODE_PEAK_MEMORY_REGRESSED,
	MG_CODE_THROUGHPUT_REGRESSED,
	MG_CODE_EVAL_LOSS_REGRESSED,
	/* the check's own, added after the regressions' */
	MG_CODE_POLICY_CHANGE_FAILS_ITS_EVIDENCE,
	MG_CODE_REGRESSION_NOT_COMPARED,
	/* an evidence issue appended after them */
	MG_CODE_APPROVAL_OF_OTHER_EVIDENCE,
	/* the check's own, appended after that issue */
	MG_CODE_WAIVER_SPENT,
	/* evidence issues appended after it */
	MG_CODE_EVIDENCE_OUT_OF_PLACE,
	MG_CODE_MEASURED_COMMIT_BEHIND_BASE,
	/* the decision's own, appended after them */
	MG_CODE_CHANGED_WITHIN_NOISE,
	/* an evidence issue appended after it */
	MG_CODE_APPROVAL_UNVERIFIED,
	MG_CODE_COUNT
};

/* A code that a finding carries, with the words every renderer shows. */
typedef struct mg_code {
	const char *name;      /* "memory_over_budget", "report_hash_mismatch", ... */
	enum mg_kind kind;
	const char *summary;   /* one sentence: what it means */
	const char *help;      /* one or two sentences: what to do about it */
} mg_code;

/*
 * Every code: the screening reasons (enum mg_reason order, up to
 * MG_R_CHECK_LAST), the evidence issues (enum mg_issue order), then the
 * decision's own codes (baseline_missing_or_invalid,
 * selection_is_threshold_sensitive, decision_drift) and those of the check
 * (warning, waiver_applied, waiver_unmatched, note, policy_change,
 * waiver_expired), those added later, then the regression reasons, and
 * after them the codes added since (policy_change_fails_its_evidence): an
 * earlier code keeps its place (SARIF's ruleIndex).  Static; sets *count.
 */
const mg_code *mg_codes(size_t *count);
/* The row of code `id` (static): how code names a code it gives. */
const mg_code *mg_code_of(enum mg_code_id id);
/* The code named `name`, or NULL: for names read from outside (a record,
 * a test); code that gives a code names it with mg_code_of. */
const mg_code *mg_code_find(const char *name);
/* The reason (enum mg_reason) whose code is c, or -1. */
int mg_code_reason(const mg_code *c);
/* The code of a reason or an issue. */
const mg_code *mg_reason_code(enum mg_reason r);
const mg_code *mg_issue_code(enum mg_issue i);
/* Whether a waiver may name reason r: the thresholds' reasons of step 7. */
bool mg_reason_waivable(enum mg_reason r);
/* Whether a waiver may name reason r: a step-7 reason (mg_reason_waivable)
 * or a regression's (MG_REASON_IS_REGRESSION, with up_to_pct). */
bool mg_reason_waiver_may_name(enum mg_reason r);

/*
 * Whether candidate h, compared with b (its namesake at an earlier
 * version), changed beyond a threshold of r's reason that r sets (and
 * beyond the runs' noise when both have runs), as the regression decides.
 * *pct gets the metric's change in percent of b's value, worse positive
 * (NAN when it cannot be had).  A waiver is spent when the base's report
 * made such a step within its up_to_pct (memgate(1), WAIVERS).
 */
bool mg_regression_step(double *pct, const mg_regression *r, enum mg_reason reason,
			const mg_candidate *b, const mg_candidate *h);

/*
 * A waiver in force: `candidate` passes the check behind `reason` (a step-7
 * reason) even when it fails it.  The policy's waivers carry owners and
 * expiry dates; the caller passes only those in force today.
 */
typedef struct mg_waiver {
	const char *candidate;     /* borrowed */
	enum mg_reason reason;     /* mg_reason_waiver_may_name */
	double up_to_pct;          /* a regression's reason: the largest change it
				      accepts, in percent of the base's value (the
				      metric's rise, or for samples/s its drop) */
} mg_waiver;

/* The outcome of screening one candidate under one budget. */
typedef struct mg_evaluation {
	size_t index;             /* into evidence->candidates */
	const char *name;         /* borrowed; NULL when the name is not a string */
	enum mg_status status;
	unsigned reasons;         /* bit (1u << mg_reason); list them in enum order */
	unsigned waived;          /* reasons it fails that a waiver lets pass (not in reasons) */
	int missing_metric;       /* missing_or_non_numeric_metric: the first number an
				     active check needs that is missing or not finite
				     (enum mg_metric_id); else -1 */
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
 * (memgate(1), HOW MEMGATE DECIDES: Ranking): bit k of `feasible` is set when the k-th candidate of `rank` is
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

enum mg_verdict { MG_ACCEPT, MG_TUNE, MG_REJECT, MG_VERDICT_COUNT };
const char *mg_verdict_name(enum mg_verdict v);  /* "accept", "tune", "reject" */
/* The enum for "accept"/"tune"/"reject", or -1. */
int mg_verdict_from_name(const char *name);

/* Why the decision is what it is: memgate(1), HOW MEMGATE DECIDES. */
enum mg_outcome {
	MG_O_EVIDENCE_NOT_APPLICABLE,
	MG_O_BASELINE_MISSING_OR_INVALID,
	MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET,
	MG_O_COMPRESSION_NEEDS_QUALITY_RECOVERY,
	MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD,
	MG_O_THROUGHPUT_LOSS_EXCEEDS_BUDGET,
	MG_O_BASELINE_STILL_BEST_UNDER_CURRENT_BUDGET,
	MG_O_SELECTION_IS_THRESHOLD_SENSITIVE,
	MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS,
	MG_O_DECISION_DRIFT,
	MG_O_TRADE_OFF_BELOW_FLOOR,
	MG_O_MARGIN_WITHIN_MEASUREMENT_NOISE,
	MG_O_PEAK_MEMORY_REGRESSED,
	MG_O_THROUGHPUT_REGRESSED,
	MG_O_EVAL_LOSS_REGRESSED,
	MG_O_REGRESSION_NOT_COMPARED,   /* the base's selected candidate has no namesake now */
	MG_OUTCOME_COUNT
};
/* "evidence_not_applicable", ...; NULL for an out-of-range value. */
const char *mg_outcome_name(enum mg_outcome o);

/* What to do next: one per outcome, two for an approval record that is
 * the only evidence issue, one for stale evidence (evidence_stale), one
 * for a signature that is the only evidence issue, and one for a measured
 * commit the clone lacks (measured_commit_unknown) that a fetch may bring. */
enum mg_next_action {
	MG_N_REBUILD_SAME_WORKLOAD_EVIDENCE,
	MG_N_RERUN_BASELINE_BEFORE_COMPARING_CANDIDATES,
	MG_N_REWORK_STRATEGY_OR_BUDGET,
	MG_N_ADJUST_CHECKPOINT_SCOPE_OR_BATCH_PLAN,
	MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION,
	MG_N_REDUCE_COMPRESSION_SCOPE,
	MG_N_REVISIT_MEMORY_STRATEGY_MIX,
	MG_N_COLLECT_BOUNDARY_EVIDENCE,
	MG_N_SEND_TO_REGRESSION_ACCEPTANCE,
	MG_N_RE_APPROVE_OR_RESTORE_EVIDENCE,
	MG_N_RECORD_AND_PIN_APPROVED_RESULT,
	MG_N_RESTORE_OR_REAPPROVE_APPROVED_RESULT,
	MG_N_REBALANCE_MEMORY_AND_THROUGHPUT,
	MG_N_COLLECT_MORE_REPEATS,
	MG_N_MEASURE_AGAIN,         /* evidence_stale: the measured code changed */
	MG_N_SIGN_ON_TRUSTED_RUNNER,
	MG_N_FIX_REGRESSION_AGAINST_BASE,  /* a regression decides */
	MG_N_FETCH_MEASURED_COMMIT,  /* measured_commit_unknown: fetch before measuring again */
	MG_NEXT_ACTION_COUNT
};
/* "rebuild_same_workload_evidence", ...; NULL for an out-of-range value. */
const char *mg_next_action_name(enum mg_next_action n);

/*
 * An approved decision (--require-approved): the one the manifest's
 * approved record holds, to which the decision computed now must agree.
 */
typedef struct mg_approved {
	const char *decision;        /* as the record writes it ("accept", ...) */
	const char *selected;        /* NULL for none */
} mg_approved;

/* A regression that counts: a covered candidate's change from the base
 * beyond a regression threshold (and beyond its runs' noise). */
typedef struct mg_regressed {
	size_t index;               /* into the base screening's evaluations */
	const char *name;           /* borrowed */
	enum mg_threshold threshold;
	double base, head;          /* the metric at the base and now */
	double change;              /* in the threshold's unit (MB, %, loss) */
	double limit;
	bool runs;                  /* both sides had runs: the change is beyond their noise */
	double pct;                 /* the change in percent of the base's value, worse
				       positive (NAN when the base's value is not > 0) */
	size_t waiver;              /* in d->waived: the waiver that accepts it (an
				       index into rules->waivers); else SIZE_MAX */
	double p;                   /* with runs under mann_whitney: the test's p-value
				       (at most alpha; above it for d->within_noise);
				       else NAN */
	double band_min, band_max;  /* with runs: the change's band over both sides'
				       runs, in the change's unit; else NAN */
} mg_regressed;

typedef struct mg_decision {
	enum mg_verdict verdict;
	enum mg_outcome reason;
	enum mg_next_action next_action;
	const char *selected;        /* borrowed, or NULL (null in the record) */
	const char *best;            /* base winner (first feasible by rank), or NULL */

	bool issue[MG_ISSUE_COUNT];
	bool applicable;

	mg_budget budget;            /* the base budget */
	mg_screening base;
	bool base_lent;              /* base's storage is a memo's (private: the
					tipping-point search), not the decision's */

	bool sensitivity_evaluated;  /* base decision reached 2.3 step 3, 4 or 5 */
	mg_scenario *scenarios;
	size_t scenario_count;
	bool best_candidate_stable;  /* one distinct winner across scenarios ("none" counts) */
	bool feasible_set_stable;    /* one distinct feasible set across scenarios */
	bool stability_tested;       /* false when there were no scenarios */
	const char *interpretation;  /* "stable" or "sensitive_to_thresholds" */

	/* rules->waiver_count entries: the waiver let its candidate pass a
	 * check it fails, in the base screening or in a scenario. */
	bool *waiver_used;
	size_t waiver_count;
	void *sensitivity_storage;   /* the scenarios' rank orders and bit sets (private) */

	/*
	 * With an approved decision and applicable evidence: what the evidence
	 * decides now, before the comparison; `drift` when it differs from the
	 * approved one (then the decision is reject / decision_drift).
	 */
	bool approved_checked;
	bool drift;
	enum mg_verdict computed_verdict;
	enum mg_outcome computed_reason;
	const char *computed_selected;   /* borrowed, or NULL */

	/* regression (rules->regression): whether it was compared (active,
	 * applicable evidence and a base), what counts, in the order covered
	 * candidates, then thresholds; `within_noise` counts the changes past a
	 * threshold that the runs' noise covers. */
	bool regression_checked;
	mg_regressed *regressed;
	size_t regressed_count;
	size_t regression_within_noise;
	/* those regression_within_noise changes, in the same order as
	 * `regressed`: past a threshold, but the runs' noise covers them
	 * (memgate(1) words them "changed", never "regressed") */
	mg_regressed *within_noise;
	/* the regressions a waiver of their reason accepts (the change within
	 * its up_to_pct): not counted, in the same order as `regressed` */
	mg_regressed *waived;
	size_t waived_count;
	/* covered candidates of the base with no namesake now (names compared
	 * exactly): the one the base selected, and with covers: all each
	 * other, in the base's report order; each name borrowed from the base,
	 * with the name of a candidate now that differs from it only in white
	 * space or case (the first such), or NULL.  Not compared, so no
	 * regression of theirs can count: the base's selected one missing
	 * decides as a regression does (regression_not_compared). */
	const char **unmatched;
	const char **unmatched_lookalike;
	size_t unmatched_count;
	const char *unmatched_selected;  /* the base's selected one when among them
					    (the same pointer), else NULL */
} mg_decision;

/* The threshold check c compares with under d's base budget (the effective
 * quality ceiling); false when it is not known (a relative ceiling without a
 * measured baseline). */
bool mg_check_limit(double *limit, const mg_threshold_def *c, const mg_decision *d);

/* Limits the core enforces before evaluating (grid products),
 * MG_DECISION_MAX_EVALUATIONS and MG_DECISION_MAX_SCENARIOS: limits.h. */

/*
 * Decide (memgate(1), HOW MEMGATE DECIDES).  `pre_issues` holds the issues found outside the core
 * (MG_ISSUE_REPORT_HASH_MISMATCH .. MG_ISSUE_PRE_LAST);
 * may be NULL.  `approved`, when not NULL, is the approved decision the
 * computed one must agree with (memgate(1), HOW MEMGATE DECIDES).  On success
 * *out is the caller's, freed with mg_decision_free.  Fails only when the
 * scenario count exceeds `max_scenarios` (0 = MG_DECISION_MAX_SCENARIOS) or
 * scenarios times candidates exceeds MG_DECISION_MAX_EVALUATIONS; the
 * message has no file.
 */
int mg_decide(mg_decision **out, const mg_rules *rules, const mg_evidence *ev,
	      const bool pre_issues[MG_ISSUE_COUNT], const mg_approved *approved,
	      size_t max_scenarios, mg_error *err);

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
