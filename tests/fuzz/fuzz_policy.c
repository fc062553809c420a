/*
 * libFuzzer target: the budget policy parser (mg_policy_parse).
 *
 * Any bytes either parse into a policy that keeps the invariants the
 * decision core relies on, or fail with a one-line error that names the
 * file and a position inside the text.  Nothing leaks either way.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/policy.h"

#define PATH "fuzz/policy.yml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash for libFuzzer to report. */
#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static void check_error(const mg_error *err, size_t size)
{
	size_t n = strlen(err->message);

	CHECK(n > 0 && !strchr(err->message, '\n'));
	CHECK(err->message[n - 1] != '.' && !isupper((unsigned char)err->message[0]));
	/* Whole: a message that filled its buffer was cut short. */
	CHECK(n < sizeof(err->message) - 1);
	CHECK(!strcmp(err->file, PATH));
	/* Every refusal of the text points into it (1-based). */
	CHECK(err->line >= 1 && err->column >= 1);
	CHECK((size_t)err->line <= size + 1 && (size_t)err->column <= size + 1);
}

static void check_budget(const mg_budget *b)
{
	int t;

	for (t = 0; t < MG_THRESHOLD_COUNT; t++) {
		if (!b->set[t])
			continue;
		CHECK(isfinite(b->value[t]) && b->value[t] >= 0);
		CHECK(t != MG_MEMORY_CAP_MB || b->value[t] > 0);
		CHECK(t != MG_MIN_THROUGHPUT_RATIO || b->value[t] <= 1);
	}
}

static void check_policy(const mg_policy *p)
{
	const mg_rules *r = &p->rules;
	unsigned long long cells = 1;
	size_t i;

	CHECK(p->version == 1);
	CHECK(!p->manifest != !p->report);
	CHECK(r->budget.set[MG_MEMORY_CAP_MB]);
	CHECK(r->pin[MG_ID_WORKLOAD].kind != MG_VALUE_ABSENT);
	CHECK(r->pin[MG_ID_HARDWARE].kind != MG_VALUE_ABSENT);
	CHECK(r->baseline && r->baseline[0] && r->min_repeats >= 1);
	check_budget(&r->budget);
	CHECK(r->stricter_count <= MG_POLICY_MAX_STRICTER);
	for (i = 0; i < r->stricter_count; i++)
		check_budget(&r->stricter[i]);
	for (i = 0; i < r->grid_count; i++) {
		CHECK(r->grid[i].count >= 1 && r->grid[i].count <= MG_POLICY_MAX_AXIS_VALUES);
		cells *= r->grid[i].count;
	}
	CHECK((r->grid_count ? cells : 0) + r->stricter_count <= MG_DECISION_MAX_SCENARIOS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mg_policy *p = NULL;
	mg_error err;

	mg_error_clear(&err);
	if (mg_policy_parse(&p, PATH, (const char *)data, size, &err) == 0)
		check_policy(p);
	else
		check_error(&err, size);
	mg_policy_free(p);
	return 0;
}
