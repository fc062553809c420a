#ifndef MEMGATE_SEVERITY_H
#define MEMGATE_SEVERITY_H
/*
 * How loud a finding is in each output: the one rule every renderer reads
 * (memgate(1), CODES, the levels of each kind).  A code's kind gives its
 * SARIF level, its Code Quality severity, its SARIF tag and the weight of
 * its findings, unless their producer weighs one otherwise (a policy change
 * that does not loosen is a note, a regression under regression.decision:
 * reject is hard).  A finding's weight and whether the gate passed give its
 * annotation level, which the job summary's and the comment's markers
 * show.  JUnit reads no level: a failing gate fails the cases behind its
 * decision, a passing one writes no failure.
 */
#include <stdbool.h>
#include "memgate/decision.h"
#include "findings.h"

/* A level, most severe first: GitHub's ::error, ::warning, ::notice;
 * SARIF's error, warning, note. */
enum mg_level { MG_LEVEL_ERROR, MG_LEVEL_WARNING, MG_LEVEL_NOTICE, MG_LEVEL_COUNT };

/* What a kind of code is in the outputs. */
typedef struct mg_kind_levels {
	const char *name;                /* "evidence", "hard", ...: as memgate(1) CODES names it */
	enum mg_finding_weight weight;   /* of its findings, unless their producer says otherwise */
	enum mg_level sarif;             /* SARIF level: the rule's default and its results' */
	const char *codequality;         /* Code Quality severity: "blocker" ... "info" */
	const char *tag;                 /* the SARIF rule's tag: "evidence", "hard-limit", ... */
} mg_kind_levels;

/* The levels of `kind` (static). */
const mg_kind_levels *mg_severity_of_kind(enum mg_kind kind);

/* The annotation level of a finding of weight w, when the gate passed or failed. */
enum mg_level mg_severity_annotation(enum mg_finding_weight w, bool passed);

/* Is a finding of weight w a reason (the log's findings, the job summary's
 * Reasons, the comment's Findings)?  Warnings and notes have sections of
 * their own. */
bool mg_severity_is_reason(enum mg_finding_weight w);

/* A level's word: GitHub's ("error", "warning", "notice"), plural
 * ("errors", ...), SARIF's ("error", "warning", "note"), and the marker of
 * the job summary and the comment (an emoji). */
const char *mg_severity_github(enum mg_level l);
const char *mg_severity_github_plural(enum mg_level l);
const char *mg_severity_sarif(enum mg_level l);
const char *mg_severity_marker(enum mg_level l);

#endif
