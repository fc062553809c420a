#ifndef MEMGATE_LIMITS_H
#define MEMGATE_LIMITS_H
/*
 * Every limit of memgate, in one place (as SQLite's sqliteLimit.h).
 *
 * memgate reads files anyone who opens a pull request can write, so every
 * input is bounded: an input's size, nesting, counts and lengths.  The
 * bounds are safety limits, far above real evidence; going over one is an
 * error (exit 2) that names the file, the position, the limit and how to
 * raise it.  The others bound work (the tipping-point searches) or follow
 * a CI platform's own limits (GitHub's annotations and job summary, code
 * scanning's results).
 *
 * Each is a build-time constant that can be raised without editing this
 * file:  make EXTRA_CFLAGS=-DMG_REPORT_MAX_CANDIDATES=4194304 clean memgate
 * The input size has a command-line option as well (--max-input-mb).
 *
 * The memgate(1)'s LIMITS table, the man page and the JSON Schemas' bounds
 * are checked against this file (tests/check-vocabulary).
 */

/* ---- inputs ---- */

/* The size of one input (policy, manifest, report, approved record), in
 * bytes, read from the object header before the object is: --max-input-mb
 * changes it per run.  64 MiB holds a sweep of 10^5 candidates with 3 runs
 * each (memgate(1), SCALE). */
#ifndef MG_GIT_DEFAULT_MAX_INPUT
#define MG_GIT_DEFAULT_MAX_INPUT ((size_t)64 << 20)
#endif

/* The longest repository path accepted, in bytes (a policy's manifest path,
 * a manifest's report and approved paths): PATH_MAX on Linux. */
#ifndef MG_PATH_MAX_BYTES
#define MG_PATH_MAX_BYTES 4096
#endif

/* A blob this small or smaller is looked at as a possible Git LFS pointer;
 * the spec's example pointer is 130 bytes, so 1 KiB leaves room for the
 * optional keys. */
#ifndef MG_LFS_MAX_POINTER
#define MG_LFS_MAX_POINTER 1024
#endif

/* JSON nesting depth (manifest, report, approved record): a report with
 * runs nests 5 levels; the bound keeps a hostile input's nesting from
 * costing stack or time. */
#ifndef MG_JSON_MAX_DEPTH
#define MG_JSON_MAX_DEPTH 64
#endif

/* ---- the policy ---- */

/* YAML nesting depth: a valid policy nests 3 levels.  libyaml has no limit
 * of its own and takes quadratic time in the depth, so the depth is checked
 * while the events are read. */
#ifndef MG_POLICY_MAX_DEPTH
#define MG_POLICY_MAX_DEPTH 16
#endif

/* Bytes in one YAML scalar: far above any real value (the longest are a
 * waiver's justification or a hardware name). */
#ifndef MG_POLICY_MAX_SCALAR
#define MG_POLICY_MAX_SCALAR 4096
#endif

/* sensitivity.stricter entries. */
#ifndef MG_POLICY_MAX_STRICTER
#define MG_POLICY_MAX_STRICTER 256
#endif

/* Values per sensitivity.grid axis. */
#ifndef MG_POLICY_MAX_AXIS_VALUES
#define MG_POLICY_MAX_AXIS_VALUES 256
#endif

/* Waivers in one policy (also the policy schema's waivers.maxItems). */
#ifndef MG_POLICY_MAX_WAIVERS
#define MG_POLICY_MAX_WAIVERS 256
#endif

/* Pathspecs in a policy's evidence.inputs (also the policy schema's
 * evidence.inputs.maxItems). */
#ifndef MG_POLICY_MAX_INPUTS
#define MG_POLICY_MAX_INPUTS 256
#endif

/* Principal patterns in provenance.signers and in provenance.approvers
 * each (also the policy schema's maxItems): a team's runners and
 * approvers, not a directory. */
#ifndef MG_POLICY_MAX_PRINCIPALS
#define MG_POLICY_MAX_PRINCIPALS 64
#endif

/* waivers_warn_days at most: ten years (also the policy schema's maximum). */
#ifndef MG_POLICY_MAX_WARN_DAYS
#define MG_POLICY_MAX_WARN_DAYS 3660
#endif

/* YAML values (scalars, mappings and sequences) in a policy: bounds the
 * memory a policy can make memgate use, aliases refused. */
#ifndef MG_POLICY_MAX_NODES
#define MG_POLICY_MAX_NODES 65536
#endif

/* ---- the report ---- */

/* 2^21 candidates is every report within the default 64 MiB input limit
 * whose candidates each carry a name and a measurement (33 bytes or more);
 * they bound the memory a report can make memgate use (about 300 bytes a
 * candidate). */
#ifndef MG_REPORT_MAX_CANDIDATES
#define MG_REPORT_MAX_CANDIDATES 2097152
#endif

/* Runs of one candidate, for the same reason. */
#ifndef MG_REPORT_MAX_RUNS
#define MG_REPORT_MAX_RUNS 2097152
#endif

/* Bytes in a candidate name: names are shown in every output. */
#ifndef MG_REPORT_MAX_NAME
#define MG_REPORT_MAX_NAME 256
#endif

/* ---- the decision ---- */

/* Scenarios times candidates: what sensitivity keeps (a bit per pair) and
 * what the decision record lists.  The default decides 10^3 scenarios of
 * 2 * 10^6 candidates: every report within the default input limit whose
 * candidates carry a name and a measurement. */
#ifndef MG_DECISION_MAX_EVALUATIONS
#define MG_DECISION_MAX_EVALUATIONS 2147483648ULL
#endif

/* Sensitivity scenarios (stricter entries + grid cells); a grid whose
 * product is larger is refused when the policy is read. */
#ifndef MG_DECISION_MAX_SCENARIOS
#define MG_DECISION_MAX_SCENARIOS 4096
#endif

/* ---- insight (tipping points, the trade-off front) ---- */

/* Full decisions re-run per knob and direction at most (limit_reached past
 * it); above the breakpoints of any report within the report limits that
 * MG_INSIGHT_MAX_WORK lets be searched exactly. */
#ifndef MG_INSIGHT_MAX_PROBES
#define MG_INSIGHT_MAX_PROBES 4096
#endif

/* Candidate evaluations (candidates x (1 + scenarios) per re-run decision)
 * that all tipping-point searches share, counted for the worst case: each
 * direction of each knob may re-run as many decisions as it has breakpoints
 * beyond the current value, up to one common level chosen so that the sum
 * stays within this limit; a direction with more breakpoints than the level
 * says limit_reached.  So a check with k knobs, n candidates, s scenarios
 * and up to n breakpoints per threshold (3n with evidence.noise: tune) is
 * searched exactly whenever k x n x n x (1 + s) <= the limit: about 440
 * candidates with the five base thresholds and no grid, about 60 with the
 * five and a 2x3x3 grid (18 scenarios, 8 more knobs).  The default keeps the
 * searches to about 10 ms, so that a sweep costs what deciding it costs
 * (memgate(1), SCALE). */
#ifndef MG_INSIGHT_MAX_WORK
#define MG_INSIGHT_MAX_WORK 1000000ULL
#endif

/* Candidate comparisons the trade-off front may take before it is given up. */
#ifndef MG_INSIGHT_MAX_FRONT_WORK
#define MG_INSIGHT_MAX_FRONT_WORK 200000000ULL
#endif

/* Changed paths of evidence.inputs a result names (all are counted): the
 * first hundred are enough to see what changed, and the record stays small. */
#ifndef MG_CHECK_MAX_STALE
#define MG_CHECK_MAX_STALE 100
#endif

/* ---- regressions against the history (regression.history) ---- */

/* Report versions a median may be taken over (regression.history: N, at
 * most this): each version is a report read and parsed, so N bounds the
 * reading; a thousand measurements is years of a daily GPU job. */
#ifndef MG_HISTORY_MAX
#define MG_HISTORY_MAX 1000
#endif

/* Commits of the base's first-parent line looked at for regression.history
 * when the policy does not say (regression.history_max_commits): each costs
 * a commit and a path in its tree read, so ten thousand (a year of a busy
 * main branch) take a fraction of a second. */
#ifndef MG_HISTORY_DEFAULT_MAX_COMMITS
#define MG_HISTORY_DEFAULT_MAX_COMMITS 10000
#endif

/* Versions of the base's report, on its first-parent line, whose steps
 * can spend a regression's waiver (memgate(1), WAIVERS): read only when
 * the policy has such a waiver in force; each is a report parsed. */
#ifndef MG_WAIVER_SPENT_VERSIONS
#define MG_WAIVER_SPENT_VERSIONS 10
#endif

/* The largest regression.history_max_commits a policy may set. */
#ifndef MG_HISTORY_MAX_COMMITS
#define MG_HISTORY_MAX_COMMITS 1000000
#endif

/* Candidates whose peak over the history the job summary charts (one
 * Mermaid chart each): the compared ones, the first this many. */
#ifndef MG_SUMMARY_HISTORY_CHARTS
#define MG_SUMMARY_HISTORY_CHARTS 10
#endif

/* ---- signed evidence ---- */

/* Bytes of an armored SSH signature: ssh-keygen's largest (RSA 16384) is
 * about 3 KiB; anything larger is not a signature. */
#ifndef MG_SSHSIG_MAX_BYTES
#define MG_SSHSIG_MAX_BYTES (64 * 1024)
#endif

/* Bytes of an allowed-signers file: thousands of keys fit. */
#ifndef MG_SIGNERS_MAX_BYTES
#define MG_SIGNERS_MAX_BYTES (1024 * 1024)
#endif

/* ---- outputs (the CI platforms' own limits) ---- */

/* Annotations per level per step: GitHub shows 10 of each. */
#ifndef MG_GITHUB_MAX_ANNOTATIONS
#define MG_GITHUB_MAX_ANNOTATIONS 10
#endif

/* Bytes of one job summary: GitHub refuses a step summary over 1 MiB, so
 * rows are dropped, with a note, to stay under it. */
#ifndef MG_SUMMARY_MAX
#define MG_SUMMARY_MAX (1000 * 1024)
#endif

/* Bytes of one policy's section of the pull-request comment (check
 * --comment): reviewers read it in the conversation, so it stays short; rows and
 * findings are dropped, the rest left to the job summary, to fit. */
#ifndef MG_COMMENT_MAX
#define MG_COMMENT_MAX 3000
#endif

/* Bytes of the whole pull-request comment, every policy's section: GitHub
 * refuses a comment over 65,536 characters; the sections that do not fit
 * are counted, the rest left to the job summary. */
#ifndef MG_COMMENT_TOTAL
#define MG_COMMENT_TOTAL 65536
#endif

/* Policy sections in one pull-request comment (a pull request that adds
 * hundreds of policies): the worst first, the rest counted. */
#ifndef MG_COMMENT_SECTIONS
#define MG_COMMENT_SECTIONS 100
#endif

/* Findings, and candidates against the base, a comment lists at most. */
#ifndef MG_COMMENT_ROWS
#define MG_COMMENT_ROWS 5
#endif

/* Results in one SARIF run: GitHub's code scanning shows the first 5,000
 * of a run and rejects a file with more than 25,000. */
#ifndef MG_SARIF_MAX_RESULTS
#define MG_SARIF_MAX_RESULTS 5000
#endif

/* JUnit candidate cases (then one skipped case says how many were left
 * out), and finding lines in one case's text: bounded like the record, so
 * the file stays within a constant size whatever the report holds. */
#ifndef MG_JUNIT_MAX_ITEMS
#define MG_JUNIT_MAX_ITEMS 5000
#endif

/* Code Quality issues, the most important first (as SARIF's results); past
 * it, one last issue (findings_omitted) says how many were left out. */
#ifndef MG_CODEQUALITY_MAX_ISSUES
#define MG_CODEQUALITY_MAX_ISSUES 5000
#endif

/* ---- the command line ---- */

/* --policy given more often than this: use --all. */
#ifndef MG_CLI_MAX_POLICIES
#define MG_CLI_MAX_POLICIES 1024
#endif

#endif
