#ifndef MEMGATE_PLUGIN_TIPPING_H
#define MEMGATE_PLUGIN_TIPPING_H
/* The tipping points of an insight (tipping.c; private to insight.c). */
#include <stdbool.h>
#include "memgate/insight.h"

/* Fill in->tips (in->tip_count of them) for decision d, made from rules,
 * ev and the pre-decision issues `pre`: see mg_insight_compute. */
int mg_tipping__find(mg_insight *in, const mg_rules *rules, const mg_evidence *ev,
		     const bool *pre, const mg_decision *d, mg_error *err);

#endif
