#ifndef MEMGATE_CODEQUALITY_H
#define MEMGATE_CODEQUALITY_H
/*
 * The GitLab Code Quality report (artifacts:reports:codequality): a JSON
 * array with one object per finding (mg_findings) of every decided
 * item, each with the fields GitLab documents: description (the finding's
 * message), check_name (its code), fingerprint (mg_finding_fingerprints:
 * stable per policy, candidate and reason, unique in the file), severity
 * (blocker for evidence problems, critical for hard limits, major for
 * targets, minor for exclusions, sensitivity and warnings, info for
 * waivers applied) and location.path with location.lines.begin (the
 * policy's first line for a finding without a file).  No BOM; valid UTF-8.
 * Returns a malloc'd string.
 */
#include "result.h"

/* Issues at most, the most important first (as SARIF's results): past it,
 * one last issue, check_name findings_omitted, says how many were left out.
 * So the file stays within a constant size, whatever the report holds. */
#include "limits.h"  /* memgate's: MG_CODEQUALITY_MAX_ISSUES */
/* The limit in force (tests lower it). */
extern size_t mg_codequality_max_issues;

char *mg_codequality_render(const mg_check_item *items, size_t count);

#endif
