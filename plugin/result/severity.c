/* How loud a finding is in each output: see severity.h. */
#include <assert.h>

#include "severity.h"

/* Every kind's levels: the one table of them (memgate(1), CODES). */
static const mg_kind_levels kinds[] = {
	[MG_KIND_EVIDENCE] = { "evidence", MG_FINDING_HARD, MG_LEVEL_ERROR, "blocker", "evidence" },
	[MG_KIND_HARD] = { "hard", MG_FINDING_HARD, MG_LEVEL_ERROR, "critical", "hard-limit" },
	[MG_KIND_TARGET] = { "target", MG_FINDING_SOFT, MG_LEVEL_WARNING, "major", "target" },
	[MG_KIND_SOFT] = { "soft", MG_FINDING_SOFT, MG_LEVEL_WARNING, "minor",
			   "exclusion-or-sensitivity" },
	[MG_KIND_WARNING] = { "warning", MG_FINDING_WARNING, MG_LEVEL_WARNING, "minor", "warning" },
	[MG_KIND_NOTICE] = { "notice", MG_FINDING_NOTE, MG_LEVEL_NOTICE, "info", "waiver" },
};
_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == MG_KIND_NOTICE + 1, "a row per kind");

/* Every weight's annotation level when the gate fails and when it passes,
 * and whether it is a reason. */
static const struct {
	enum mg_level failed, passed;
	bool reason;
} weights[] = {
	[MG_FINDING_HARD] = { MG_LEVEL_ERROR, MG_LEVEL_WARNING, true },
	[MG_FINDING_SOFT] = { MG_LEVEL_WARNING, MG_LEVEL_NOTICE, true },
	[MG_FINDING_WARNING] = { MG_LEVEL_WARNING, MG_LEVEL_WARNING, false },
	[MG_FINDING_NOTE] = { MG_LEVEL_NOTICE, MG_LEVEL_NOTICE, false },
};

static const char *const github[MG_LEVEL_COUNT] = { "error", "warning", "notice" };
static const char *const github_plural[MG_LEVEL_COUNT] = { "errors", "warnings", "notices" };
static const char *const sarif[MG_LEVEL_COUNT] = { "error", "warning", "note" };
static const char *const marker[MG_LEVEL_COUNT] = {
	"\xe2\x9d\x8c", "\xe2\x9a\xa0\xef\xb8\x8f", "\xe2\x84\xb9\xef\xb8\x8f",
};

const mg_kind_levels *mg_severity_of_kind(enum mg_kind kind)
{
	assert((int)kind >= 0 && kind <= MG_KIND_NOTICE);
	return &kinds[kind];
}

enum mg_level mg_severity_annotation(enum mg_finding_weight w, bool passed)
{
	assert((int)w >= 0 && w <= MG_FINDING_NOTE);
	return passed ? weights[w].passed : weights[w].failed;
}

bool mg_severity_is_reason(enum mg_finding_weight w)
{
	assert((int)w >= 0 && w <= MG_FINDING_NOTE);
	return weights[w].reason;
}

const char *mg_severity_github(enum mg_level l)
{
	assert((int)l >= 0 && l < MG_LEVEL_COUNT);
	return github[l];
}

const char *mg_severity_github_plural(enum mg_level l)
{
	assert((int)l >= 0 && l < MG_LEVEL_COUNT);
	return github_plural[l];
}

const char *mg_severity_sarif(enum mg_level l)
{
	assert((int)l >= 0 && l < MG_LEVEL_COUNT);
	return sarif[l];
}

const char *mg_severity_marker(enum mg_level l)
{
	assert((int)l >= 0 && l < MG_LEVEL_COUNT);
	return marker[l];
}
