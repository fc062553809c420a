/*
 * Candidates by name: the baseline, the first candidate of its name
 * (mg_rules_baseline, mg_find_baseline: include/memgate/decision.h).  Below
 * screening, noise, sensitivity and the decision, which all find the
 * baseline, so that none of them calls another for it (tests/layers
 * --cycles).
 */
#include <string.h>

#include "memgate/decision.h"

const char *mg_rules_baseline(const mg_rules *rules)
{
	return rules && rules->baseline ? rules->baseline : "baseline";
}

bool mg_find_baseline(size_t *index, const mg_rules *rules, const mg_evidence *ev)
{
	const char *want = mg_rules_baseline(rules);
	size_t i;

	for (i = 0; i < ev->candidate_count; i++)
		if (ev->candidates[i].name && !strcmp(ev->candidates[i].name, want)) {
			*index = i;
			return true;
		}
	return false;
}
