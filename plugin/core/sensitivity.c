/* Sensitivity (memgate(1), HOW MEMGATE DECIDES: Sensitivity): the scenarios,
 * screened as bit sets; see include/memgate/decision.h and sensitivity.h. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/decision.h"
#include "screening.h"
#include "sensitivity.h"
#include "tables.h"

/* ---- sensitivity (memgate(1), HOW MEMGATE DECIDES: Sensitivity) ---- */

static size_t grid_cells(const mg_rules *rules, bool *overflow)
{
	size_t product = 1, a;

	*overflow = false;
	if (!rules->grid_count)
		return 0;
	for (a = 0; a < rules->grid_count; a++)
		if (!rules->grid[a].count)
			return 0;
	for (a = 0; a < rules->grid_count; a++) {
		if (product > SIZE_MAX / rules->grid[a].count) {
			*overflow = true;
			return SIZE_MAX;
		}
		product *= rules->grid[a].count;
	}
	return product;
}

/* Sets *count to the number of scenarios; fails above the limit. */
int mg_sensitivity__count_scenarios(size_t *count, const mg_rules *rules, size_t max,
				    mg_error *err)
{
	bool overflow;
	size_t cells = grid_cells(rules, &overflow);
	size_t limit = max ? max : MG_DECISION_MAX_SCENARIOS;

	*count = 0;
	if (overflow || cells > SIZE_MAX - rules->stricter_count)
		return mg_error_set(err, NULL, 0, 0,
				    "sensitivity has more than %zu scenarios, more than the limit of %zu",
				    (size_t)SIZE_MAX, limit);
	*count = rules->stricter_count + cells;
	if (*count > limit)
		return mg_error_set(err, NULL, 0, 0,
				    "sensitivity has %zu scenarios, more than the limit of %zu",
				    *count, limit);
	return MG_OK;
}

/* Fails when the scenarios would screen more evaluations than the limit
 * (each scenario keeps a bit per candidate, and the record lists them). */
int mg_sensitivity__check_evaluations(size_t scenarios, const mg_evidence *ev, mg_error *err)
{
	unsigned long long limit = MG_DECISION_MAX_EVALUATIONS;
	unsigned long long n = ev->candidate_count;

	if (!scenarios || n <= limit / scenarios)
		return MG_OK;
	return mg_error_set(err, NULL, 0, 0,
			    "sensitivity has %zu scenarios of %zu candidates (%llu evaluations), "
			    "more than the limit of %llu evaluations (raise it with make "
			    "EXTRA_CFLAGS=-DMG_DECISION_MAX_EVALUATIONS=N)",
			    scenarios, ev->candidate_count, n * scenarios, limit);
}

/* The base budget with a scenario's overrides (2.5 quality rule). */
static void apply_overrides(mg_budget *out, const mg_budget *base, const mg_budget *ov)
{
	size_t t;

	*out = *base;
	if (ov->set[MG_MAX_EVAL_LOSS] || ov->set[MG_MAX_RELATIVE_EVAL_LOSS]) {
		out->set[MG_MAX_EVAL_LOSS] = false;
		out->set[MG_MAX_RELATIVE_EVAL_LOSS] = false;
	}
	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (ov->set[t]) {
			out->set[t] = true;
			out->value[t] = ov->value[t];
		}
}

/* The overrides of grid cell k: last axis fastest. */
static void grid_overrides(mg_budget *ov, const mg_rules *rules, size_t k)
{
	size_t a = rules->grid_count;

	memset(ov, 0, sizeof(*ov));
	while (a-- > 0) {
		const mg_grid_axis *axis = &rules->grid[a];

		ov->set[axis->threshold] = true;
		ov->value[axis->threshold] = axis->values[k % axis->count];
		k /= axis->count;
	}
}

/*
 * Sensitivity at scale.  A scenario's screening differs from another's only
 * in which thresholds are set (that decides steps 5-6, whether the baseline
 * is measured and which candidates lack a baseline value: the scenario's
 * "class") and in the thresholds' values.  Each threshold is a test of one
 * candidate value against one number (the quality ceiling, the lower of the
 * two, fails when either fails), so a scenario's feasible set is the bitwise
 * AND of its class's candidates that reach step 7 and one bit set per
 * threshold it sets, each computed once per distinct value.  The bits are
 * laid out in rank order, so the winner is the first bit set.  The values
 * (and so the rank) depend only on whether the baseline is measured: two
 * variants.  Same results as screening every scenario in full
 * (mg_scenario_screen), which tests/test_decision.c checks.
 */
#define WORD_BITS 64
#define CACHE_BYTES ((size_t)32 << 20)   /* threshold bit sets kept for reuse */

struct pred {                  /* one threshold at one value */
	int variant;
	enum mg_threshold t;
	double value;
	word_t *bits;
};

static bool bit_get(const word_t *bits, size_t k)
{
	return (bits[k / WORD_BITS] >> (k % WORD_BITS)) & 1u;
}

static void bit_set(word_t *bits, size_t k)
{
	bits[k / WORD_BITS] |= (word_t)1 << (k % WORD_BITS);
}

static unsigned set_mask(const mg_budget *b)
{
	unsigned mask = 0, t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++)
		if (b->set[t])
			mask |= 1u << t;
	return mask;
}

/* The candidates' values with the baseline measured (variant 1) or not,
 * and their rank order. */
static void variant_build(struct sens *s, int v)
{
	struct screen_ctx x = {
		.rules = s->rules, .waive = s->waive, .ev = s->ev, .scenario = true,
		.has_base = s->has_base, .base = s->base,
		.measured = v ? &s->ev->candidates[s->base] : NULL,
	};
	mg_screening all = { 0 };
	size_t *tmp, i;

	if (s->evals[v])
		return;
	s->evals[v] = mg_xcalloc(s->n, sizeof(*s->evals[v]));
	for (i = 0; i < s->n; i++) {
		s->evals[v][i].index = i;
		mg_screening__fill_values(&x, &s->evals[v][i], s->has_base && i == s->base);
	}
	s->rank[v] = mg_xcalloc(s->n, sizeof(*s->rank[v]));
	tmp = mg_xcalloc(s->n, sizeof(*tmp));
	for (i = 0; i < s->n; i++)
		s->rank[v][i] = i;
	all.evaluations = s->evals[v];
	mg_screening__rank_sort(s->rank[v], tmp, s->n, all.evaluations, s->rules->rank_by);
	free(tmp);
	s->pos[v] = mg_xcalloc(s->n, sizeof(*s->pos[v]));
	for (i = 0; i < s->n; i++)
		s->pos[v][s->rank[v][i]] = i;
}

/* The class of `mask` met before, or NULL. */
static const struct sens_class *class_find(const struct sens *s, unsigned mask)
{
	size_t i;

	for (i = 0; i < s->class_count; i++)
		if (s->classes[i].mask == mask)
			return &s->classes[i];
	return NULL;
}

/* Remembers a class. */
static void class_add(struct sens *s, unsigned mask, bool measured, word_t *eligible)
{
	struct sens_class *c;

	if (s->class_count == s->class_cap) {
		s->class_cap = s->class_cap ? 2 * s->class_cap : 4;
		s->classes = mg_xrealloc(s->classes, s->class_cap * sizeof(*s->classes));
	}
	c = &s->classes[s->class_count++];
	c->mask = mask;
	c->measured = measured;
	c->eligible = eligible;
}

/* The candidates of a class that reach step 7 in a scenario, in rank order;
 * `b` is any budget of the class (only which thresholds are set counts). */
static const word_t *class_eligible(struct sens *s, const mg_budget *b, bool *measured)
{
	unsigned mask = set_mask(b);
	struct screen_ctx x = {
		.rules = s->rules, .waive = s->waive, .ev = s->ev, .b = b, .scenario = true,
		.has_base = s->has_base, .base = s->base,
	};
	const struct sens_class *known = class_find(s, mask);
	word_t *eligible;
	int *stop;
	size_t i, k;
	int v;

	if (known) {
		*measured = known->measured;
		return known->eligible;
	}
	stop = mg_xcalloc(s->n, sizeof(*stop));
	for (i = 0; i < s->n; i++)
		stop[i] = mg_screening__stop_reason(s->rules, &s->ev->candidates[i], b,
						    s->early[i]);
	if (s->has_base && stop[s->base] < 0)
		x.measured = &s->ev->candidates[s->base];
	v = x.measured != NULL;
	variant_build(s, v);
	eligible = mg_xcalloc(s->words, sizeof(word_t));
	for (k = 0; k < s->n; k++) {
		i = s->rank[v][k];
		if (stop[i] < 0 && ((s->has_base && i == s->base) ||
				    !mg_screening__needs_missing_base(&x, &s->ev->candidates[i])))
			bit_set(eligible, k);
	}
	free(stop);
	class_add(s, mask, v, eligible);
	*measured = v;
	return eligible;
}

/* Does e pass threshold t at `value`?  `ceiling_base` is the measured
 * baseline's eval loss for the relative ceiling, NULL when there is none. */
static bool passes(const mg_evaluation *e, enum mg_threshold t, double value,
		   const double *ceiling_base)
{
	if (t == MG_MAX_RELATIVE_EVAL_LOSS)
		return !ceiling_base ||
		       !mg_tables__fails(&mg_tables__thresholds[t], e->value[MG_M_EVAL_LOSS],
					 *ceiling_base * (1.0 + value));
	return !e->known[mg_tables__thresholds[t].metric] ||
	       !mg_tables__fails(&mg_tables__thresholds[t],
				 e->value[mg_tables__thresholds[t].metric], value);
}

/* Empties the cache; its entries' bit sets stay allocated for reuse. */
static void cache_flush(struct sens *s)
{
	s->cached = 0;
	memset(s->last, 0, sizeof(s->last));
	if (s->slots)
		memset(s->slots, 0, s->slot_count * sizeof(*s->slots));
}

/* The hash of a threshold at a value (values equal under == hash alike). */
static size_t pred_hash(int v, enum mg_threshold t, double value)
{
	uint64_t h, bits = 0;

	if (value != 0)                   /* -0.0 == 0.0 */
		memcpy(&bits, &value, sizeof(bits));
	h = (bits ^ ((uint64_t)t << 1) ^ (uint64_t)v) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot of (v, t, value) in the index: its entry's, else a free one. */
static size_t *pred_slot(const struct sens *s, int v, enum mg_threshold t, double value)
{
	size_t mask = s->slot_count - 1, i = pred_hash(v, t, value) & mask;
	const struct pred *p;

	for (;; i = (i + 1) & mask) {
		if (!s->slots[i])
			return &s->slots[i];
		p = &s->cache[s->slots[i] - 1];
		if (p->variant == v && p->t == t && p->value == value)
			return &s->slots[i];
	}
}

/* Doubles the index when it would pass half full with one entry more. */
static void index_grow(struct sens *s)
{
	size_t i;

	if (2 * (s->cached + 1) <= s->slot_count)
		return;
	s->slot_count = s->slot_count ? 2 * s->slot_count : 64;
	free(s->slots);
	s->slots = mg_xcalloc(s->slot_count, sizeof(*s->slots));
	for (i = 0; i < s->cached; i++)
		*pred_slot(s, s->cache[i].variant, s->cache[i].t, s->cache[i].value) = i + 1;
}

/* The measured baseline's eval loss, which the relative ceiling scales, in
 * variant v (1: the baseline is measured); NULL when there is none. */
static const double *ceiling_base_of(const struct sens *s, int v)
{
	const mg_candidate *bl = s->has_base ? &s->ev->candidates[s->base] : NULL;

	return v && bl && mg_screening__has_number(bl, MG_M_EVAL_LOSS) ?
		&bl->metric[MG_M_EVAL_LOSS].value : NULL;
}

/* p's bits, remembered as its threshold's last. */
static const word_t *remember(struct sens *s, const struct pred *p)
{
	s->last[p->t].bits = p->bits;
	s->last[p->t].variant = p->variant;
	s->last[p->t].value = p->value;
	return p->bits;
}

/* The candidates (in variant v's rank order) that pass threshold t at
 * value: computed once, then kept (in a memo, from one decision to the
 * next: they depend on the evidence and the rank order only). */
static const word_t *threshold_bits(struct sens *s, int v, enum mg_threshold t, double value)
{
	const double *ceiling_base;
	struct pred *p;
	size_t *slot, k;

	if (s->last[t].bits && s->last[t].variant == v && s->last[t].value == value)
		return s->last[t].bits;   /* consecutive scenarios share most values */
	if (s->slot_count && *(slot = pred_slot(s, v, t, value)))
		return remember(s, &s->cache[*slot - 1]);
	if ((s->cached + 1) * s->words * sizeof(word_t) > CACHE_BYTES)
		cache_flush(s);
	if (s->cached == s->cache_cap) {
		s->cache_cap = s->cache_cap ? 2 * s->cache_cap : 16;
		s->cache = mg_xrealloc(s->cache, s->cache_cap * sizeof(*s->cache));
	}
	if (s->cached == s->allocated)
		s->cache[s->allocated++].bits = mg_xcalloc(s->words, sizeof(word_t));
	index_grow(s);
	*pred_slot(s, v, t, value) = s->cached + 1;
	p = &s->cache[s->cached++];
	p->variant = v;
	p->t = t;
	p->value = value;
	memset(p->bits, 0, s->words * sizeof(word_t));
	ceiling_base = ceiling_base_of(s, v);
	for (k = 0; k < s->n; k++) {
		size_t c = s->rank[v][k];

		if (passes(&s->evals[v][c], t, value, ceiling_base) ||
		    (s->waive[c] & BIT(mg_tables__threshold_reason(t))))
			bit_set(p->bits, k);
	}
	return remember(s, p);
}

/* Marks the waivers that let their candidate pass in scenario sc: the
 * candidate reaches step 7 (`eligible`) and fails the waived check. */
static void mark_scenario_waivers(struct sens *s, const mg_scenario *sc, int v,
				  const word_t *eligible)
{
	const double *ceiling_base = ceiling_base_of(s, v);
	size_t w, i;
	int t;

	for (w = 0; w < s->rules->waiver_count; w++) {
		enum mg_reason r = s->rules->waivers[w].reason;

		if ((i = s->target[w]) == SIZE_MAX || s->waiver_used[w] ||
		    !mg_reason_waivable(r) || !bit_get(eligible, s->pos[v][i]))
			continue;
		for (t = 0; t < MG_THRESHOLD_COUNT; t++)
			if (sc->budget.set[t] &&
			    mg_tables__threshold_reason((enum mg_threshold)t) == r &&
			    !passes(&s->evals[v][i], (enum mg_threshold)t, sc->budget.value[t],
				    ceiling_base))
				s->waiver_used[w] = true;
	}
}

static size_t popcount(const word_t *bits, size_t words)
{
	size_t n = 0, w;

	for (w = 0; w < words; w++)
		n += (size_t)__builtin_popcountll(bits[w]);
	return n;
}

/* Screens scenario sc into `bits`: its class, then each threshold it sets. */
static void run_scenario(mg_scenario *sc, struct sens *s, word_t *bits)
{
	bool measured;
	const word_t *in = class_eligible(s, &sc->budget, &measured);
	int v = measured;
	size_t w, k;
	int t;

	sc->best = NULL;
	sc->best_index = 0;
	memcpy(bits, in, s->words * sizeof(word_t));
	mark_scenario_waivers(s, sc, v, in);
	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (!sc->budget.set[t])
			continue;
		in = threshold_bits(s, v, (enum mg_threshold)t, sc->budget.value[t]);
		for (w = 0; w < s->words; w++)
			bits[w] &= in[w];
	}
	sc->count = s->n;
	sc->rank = s->rank[v];
	sc->feasible = bits;
	sc->feasible_count = popcount(bits, s->words);
	k = 0;
	if (sc->feasible_count && mg_scenario_next_feasible(sc, &k, &sc->best_index))
		sc->best = s->ev->candidates[sc->best_index].name;
}

void mg_sensitivity__release(struct sens *s)
{
	size_t i;

	for (i = 0; i < s->allocated; i++)
		free(s->cache[i].bits);
	free(s->cache);
	free(s->slots);
	if (s->pool) {
		free(s->pool->bits);
		free(s->pool);
		free(s->pool_scenarios);
		free(s->pool_screened);
		free(s->pool_known);
	}
	for (i = 0; i < s->class_count; i++)
		free(s->classes[i].eligible);
	free(s->classes);
	free(s->evals[0]);
	free(s->evals[1]);
	free(s->pos[0]);
	free(s->pos[1]);
}

/* s, fresh or kept by a memo: the evidence's, the waivers' and the
 * baseline's parts; the caches start empty. */
void mg_sensitivity__init(struct sens *s, const mg_rules *rules, const mg_evidence *ev,
			  const int *early, const unsigned *waive, const size_t *target)
{
	memset(s, 0, sizeof(*s));
	s->rules = rules;
	s->ev = ev;
	s->early = early;
	s->waive = waive;
	s->target = target;
	s->n = ev->candidate_count;
	s->words = (s->n + WORD_BITS - 1) / WORD_BITS;
	s->words = s->words ? s->words : 1;
	s->has_base = mg_find_baseline(&s->base, rules, ev);
}

/* "PREFIX[i]" into id (40 bytes): snprintf's output, at a fraction of its
 * cost (the tipping-point search builds thousands of scenarios). */
static void scenario_id(char *id, const char *prefix, size_t i)
{
	char digits[24];
	size_t n = 0, len = strlen(prefix);

	do {
		digits[n++] = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	memcpy(id, prefix, len);
	id[len++] = '[';
	while (n)
		id[len++] = digits[--n];
	id[len++] = ']';
	id[len] = '\0';
}

/* A malloc'd copy of a rank order of n candidates, NULL for none. */
static size_t *rank_copy(const size_t *rank, size_t n)
{
	size_t *copy;

	if (!rank)
		return NULL;
	copy = mg_xcalloc(n ? n : 1, sizeof(*copy));
	memcpy(copy, rank, n * sizeof(*copy));
	return copy;
}

/* A memo's storage for `count` scenarios, lent to its decisions in turn
 * (each is freed before the next is made): named once, each scenario's
 * screening kept for the next decision (see screen_kept).  NULL when the
 * memo's decisions change the count. */
static struct storage *lend(mg_decision *d, struct sens *s, size_t count)
{
	size_t i;

	if (s->pool && s->pool_count != count)
		return NULL;
	if (!s->pool) {
		s->pool = mg_xcalloc(1, sizeof(*s->pool));
		s->pool->bits = mg_xcalloc(count ? count * s->words : 1, sizeof(word_t));
		s->pool->lent = true;
		s->pool_scenarios = mg_xcalloc(count, sizeof(*s->pool_scenarios));
		s->pool_count = count;
		s->pool_screened = mg_xcalloc(count, sizeof(*s->pool_screened));
		s->pool_known = mg_xcalloc(count, sizeof(*s->pool_known));
		for (i = 0; i < count; i++)
			if (i < s->rules->stricter_count)
				scenario_id(s->pool_scenarios[i].id, "stricter", i);
			else
				scenario_id(s->pool_scenarios[i].id, "grid", i - s->rules->stricter_count);
	}
	d->scenarios = s->pool_scenarios;
	return s->pool;
}

/* A decision's own storage for `count` scenarios, named. */
static struct storage *own(mg_decision *d, const struct sens *s, size_t count)
{
	struct storage *st = mg_xcalloc(1, sizeof(*st));
	size_t i;

	st->bits = mg_xcalloc(count ? count * s->words : 1, sizeof(word_t));
	d->scenarios = mg_xcalloc(count, sizeof(*d->scenarios));
	for (i = 0; i < count; i++)
		if (i < s->rules->stricter_count)
			scenario_id(d->scenarios[i].id, "stricter", i);
		else
			scenario_id(d->scenarios[i].id, "grid", i - s->rules->stricter_count);
	return st;
}

/*
 * Scenario i of a decision lent the memo's storage: a scenario screens the
 * same under the same budget (its class, rank order and feasible set
 * follow from the budget and what the memo holds), so when an earlier
 * decision left scenario i screened under this budget (most of a tipping
 * point's decisions move one threshold, which most scenarios override),
 * its bits and winner stand; only the waivers it uses are marked again,
 * for this decision.
 */
static void screen_kept(mg_scenario *sc, struct sens *s, size_t i, word_t *bits)
{
	const word_t *in;
	bool measured;

	if (s->pool_known[i] && mg_screening__budget_same(&sc->budget, &s->pool_screened[i])) {
		if (s->rules->waiver_count) {
			in = class_eligible(s, &sc->budget, &measured);
			mark_scenario_waivers(s, sc, measured, in);
		}
		return;
	}
	run_scenario(sc, s, bits);
	s->pool_screened[i] = sc->budget;
	s->pool_known[i] = true;
}

/* The scenarios of d, screened with s (its caches filled as they go, kept
 * when `kept`: a memo's, which lends the decision its scenarios). */
void mg_sensitivity__run(mg_decision *d, struct sens *s, size_t count, bool kept)
{
	const mg_rules *rules = s->rules;
	struct storage *st = kept ? lend(d, s, count) : NULL;
	size_t i;
	int v;

	st = st ? st : own(d, s, count);
	s->waiver_used = d->waiver_used;
	d->sensitivity_storage = st;
	d->scenario_count = count;
	for (i = 0; i < count; i++) {
		mg_scenario *sc = &d->scenarios[i];

		if (i < rules->stricter_count)
			sc->overrides = rules->stricter[i];
		else
			grid_overrides(&sc->overrides, rules, i - rules->stricter_count);
		apply_overrides(&sc->budget, &rules->budget, &sc->overrides);
		if (st == s->pool)
			screen_kept(sc, s, i, st->bits + i * s->words);
		else
			run_scenario(sc, s, st->bits + i * s->words);
	}
	for (v = 0; v < 2; v++)
		st->rank[v] = kept && !st->lent ? rank_copy(s->rank[v], s->n) : s->rank[v];
	for (i = 0; kept && !st->lent && i < count; i++)
		d->scenarios[i].rank = st->rank[d->scenarios[i].rank == s->rank[1]];
	s->waiver_used = NULL;
	if (!kept) {
		s->rank[0] = s->rank[1] = NULL;   /* the decision's now */
		mg_sensitivity__release(s);
	}
}

bool mg_scenario_next_feasible(const mg_scenario *sc, size_t *cursor, size_t *index)
{
	size_t k = *cursor, w;
	word_t bits;

	assert(sc && cursor && index);
	while (k < sc->count) {
		w = k / WORD_BITS;
		bits = sc->feasible[w] >> (k % WORD_BITS);
		if (bits) {
			k += (size_t)__builtin_ctzll(bits);
			if (k >= sc->count)
				break;
			*index = sc->rank[k];
			*cursor = k + 1;
			return true;
		}
		k = (w + 1) * WORD_BITS;
	}
	*cursor = sc->count;
	return false;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Do two scenarios have the same feasible list (the same candidates in the
 * same order)? */
static bool same_feasible(const mg_scenario *a, const mg_scenario *b)
{
	size_t ca = 0, cb = 0, ia, ib;
	bool more;

	if (a->feasible_count != b->feasible_count)
		return false;
	if (a->rank == b->rank && a->count == b->count)
		return !memcmp(a->feasible, b->feasible,
			       (a->count + WORD_BITS - 1) / WORD_BITS * sizeof(word_t));
	while ((more = mg_scenario_next_feasible(a, &ca, &ia)) &&
	       mg_scenario_next_feasible(b, &cb, &ib))
		if (ia != ib)
			return false;
	return !more;
}

/* The summary counters: one distinct winner and one distinct feasible list. */
void mg_sensitivity__summarize(mg_decision *d)
{
	size_t i;

	d->best_candidate_stable = true;
	d->feasible_set_stable = true;
	d->stability_tested = d->scenario_count > 0;
	for (i = 1; i < d->scenario_count; i++) {
		if (!same_name(d->scenarios[i].best, d->scenarios[0].best))
			d->best_candidate_stable = false;
		if (d->feasible_set_stable && !same_feasible(&d->scenarios[i], &d->scenarios[0]))
			d->feasible_set_stable = false;
	}
	d->interpretation = d->best_candidate_stable && d->feasible_set_stable ?
		"stable" : "sensitive_to_thresholds";
}

/* 2.5: the decision for a non-baseline base winner. */
void mg_sensitivity__decide(mg_decision *d)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < d->scenario_count; i++)
		if (!same_name(d->scenarios[i].best, d->best))
			changed = true;
	if (changed)
		mg_tables__conclude(d, MG_O_SELECTION_IS_THRESHOLD_SENSITIVE);
	else
		mg_tables__conclude(d, MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS);
	d->selected = d->best;
}
