#ifndef MEMGATE_SARIF_H
#define MEMGATE_SARIF_H
/*
 * SARIF 2.1.0 for code scanning (github/codeql-action/upload-sarif) and
 * other SARIF readers.
 *
 * One run of the tool "memgate" (`version` as given), with one rule per
 * code of mg_codes (id, short and full description and help from the
 * decision core's table, the default level of its kind), and one result per
 * finding (mg_findings) of every decided item, at the policy,
 * manifest or report line the annotations point at; a finding without a
 * file (a warning) is placed on the first line of its policy.  Levels:
 * error for evidence problems and hard limits, warning for targets,
 * exclusions, sensitivity and warnings, note for waivers applied.  Every
 * result carries partialFingerprints (mg_finding_fingerprints: stable per
 * policy, candidate and reason), also as primaryLocationLineHash, so that
 * code scanning follows an alert while lines move.  Paths are percent-
 * encoded URIs relative to the repository root; text is valid UTF-8 JSON.
 * Items that could not be decided add no result.  Returns a malloc'd string.
 */
#include "result.h"

char *mg_sarif_render(const mg_check_item *items, size_t count, const char *version);

#endif
