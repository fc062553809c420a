/*
 * The benchmark's generator: a seed-style stage-76 report of a strategy
 * sweep and a policy with a sensitivity grid, written as a training team's
 * tooling would write them (Python's json.dump(indent=2) layout).
 *
 *   gen CANDIDATES RUNS GRID DIR      e.g. gen 1000 3 2x3x3 /tmp/b
 *   gen --policy-only GRID DIR        the policy alone, for the real report
 *
 * Writes DIR/.memgate.yml and (unless --policy-only)
 * DIR/benchmarks/results/76_real_gpu_memory.json; the caller commits them
 * and writes the manifest.  GRID is the number of values of the
 * memory_cap_mb, min_samples_per_s and max_eval_loss axes ("10x10x10" is
 * 1000 scenarios).  The output depends only on the arguments.
 *
 * Candidate 0 is the baseline (the real report's numbers).  The others are
 * points of a sweep: the more aggressive the strategy (checkpoint
 * granularity, offload, micro-batches, ZeRO stage), the less memory and the
 * less throughput; a few ran out of memory or failed.  Each has RUNS runs
 * and, as aggregates, their medians (so no aggregate lies outside its runs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_PEAK 978274   /* 9782.74 MB, in hundredths */
#define BASE_SAMPLES 2009  /* 2.009 samples/s, in thousandths */
#define BASE_LOSS 12356503 /* 12.356503, in millionths */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* splitmix64: fixed across platforms, unlike rand(). */
static uint64_t next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unit(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

/* Uniform integer in [lo, hi]. */
static long range(long lo, long hi)
{
	return lo + (long)(next() % (uint64_t)(hi - lo + 1));
}

static int long_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* A fixed-point value: v / scale with `places` decimals. */
static void fixed(FILE *f, long v, long scale, int places)
{
	fprintf(f, "%s%ld.%0*ld", v < 0 ? "-" : "", labs(v) / scale, places, labs(v) % scale);
}

struct cand {
	long peak, samples, loss;   /* hundredths MB, thousandths, millionths */
	long run[3][8];             /* per metric, per run */
	char name[64];
	const char *status;         /* "ok", "oom", "failed" */
};

static void make_name(struct cand *c, long i)
{
	static const char *const ckpt[] = { "none", "attn", "mlp", "block", "full" };
	static const char *const off[] = { "none", "opt", "param" };
	static const char *const prec[] = { "fp32", "bf16" };

	snprintf(c->name, sizeof(c->name), "s%06ld-ckpt-%s-off-%s-mb%ld-z%ld-%s", i,
		 ckpt[range(0, 4)], off[range(0, 2)], 1L << range(0, 3), range(0, 3),
		 prec[range(0, 1)]);
}

/* Runs around the candidate's true value; the aggregate is their median. */
static void make_runs(long *out, long *runs, long runs_n, long center, long spread)
{
	long sorted[64];
	long r;

	for (r = 0; r < runs_n; r++) {
		runs[r] = center + range(-spread, spread);
		sorted[r] = runs[r];
	}
	qsort(sorted, (size_t)runs_n, sizeof(*sorted), long_cmp);
	/* odd counts have a middle run; even ones the mean of two, rounded
	 * down, which still lies between them */
	*out = runs_n % 2 ? sorted[runs_n / 2] : (sorted[runs_n / 2 - 1] + sorted[runs_n / 2]) / 2;
}

static void make_candidate(struct cand *c, long i, long runs_n, long *peaks,
			   long *samples, long *losses)
{
	double u = unit(), saving, slowdown;
	long r;

	c->status = "ok";
	if (i == 0) {
		snprintf(c->name, sizeof(c->name), "baseline");
		saving = slowdown = 0;
	} else {
		make_name(c, i);
		saving = 0.45 * u + 0.05 * (unit() - 0.5);
		slowdown = 0.75 * u + 0.1 * (unit() - 0.5);
		if (unit() < 0.015)
			c->status = "oom";
		else if (unit() < 0.005)
			c->status = "failed";
	}
	saving = saving < 0 ? 0 : saving;
	slowdown = slowdown < 0 ? 0 : slowdown > 0.9 ? 0.9 : slowdown;
	make_runs(&c->peak, peaks, runs_n, (long)(BASE_PEAK * (1 - saving)), 900);
	make_runs(&c->samples, samples, runs_n, (long)(BASE_SAMPLES * (1 - slowdown)), 20);
	make_runs(&c->loss, losses, runs_n,
		  BASE_LOSS + (i ? (long)(40000 * (unit() - 0.3)) : 0), 3000);
	for (r = 0; r < runs_n && i == 0; r++) {
		peaks[r] = BASE_PEAK + (r - runs_n / 2) * 3;
		samples[r] = BASE_SAMPLES + (r - runs_n / 2);
		losses[r] = BASE_LOSS;
	}
	if (i == 0) {
		c->peak = BASE_PEAK;
		c->samples = BASE_SAMPLES;
		c->loss = BASE_LOSS;
	}
}

static void write_candidate(FILE *f, const struct cand *c, long runs_n,
			    const long *peaks, const long *samples, const long *losses, int last)
{
	long r, step = 1000000000L / (c->samples ? c->samples : 1);

	fprintf(f, "    {\n      \"name\": \"%s\",\n      \"status\": \"%s\",\n", c->name, c->status);
	if (strcmp(c->status, "ok")) {
		fprintf(f, "      \"error\": \"%s\",\n      \"runs\": []\n    }%s\n",
			!strcmp(c->status, "oom") ? "CUDA out of memory" : "NCCL timeout",
			last ? "" : ",");
		return;
	}
	fprintf(f, "      \"step_time_ms\": ");
	fixed(f, step, 1000, 3);
	fprintf(f, ",\n      \"samples_per_s\": ");
	fixed(f, c->samples, 1000, 3);
	fprintf(f, ",\n      \"loss\": ");
	fixed(f, c->loss - 879040, 1000000, 6);
	fprintf(f, ",\n      \"eval_loss\": ");
	fixed(f, c->loss, 1000000, 6);
	fprintf(f, ",\n      \"peak_memory_mb\": ");
	fixed(f, c->peak, 100, 2);
	fprintf(f, ",\n      \"peak_reserved_mb\": ");
	fixed(f, (c->peak / 100 / 128 + 2) * 1280, 10, 1);
	fprintf(f, ",\n      \"runs\": [\n");
	for (r = 0; r < runs_n; r++) {
		fprintf(f, "        {\n          \"peak_memory_mb\": ");
		fixed(f, peaks[r], 100, 2);
		fprintf(f, ",\n          \"samples_per_s\": ");
		fixed(f, samples[r], 1000, 3);
		fprintf(f, ",\n          \"eval_loss\": ");
		fixed(f, losses[r], 1000000, 6);
		fprintf(f, "\n        }%s\n", r + 1 < runs_n ? "," : "");
	}
	fprintf(f, "      ]\n    }%s\n", last ? "" : ",");
}

static int write_report(const char *path, long n, long runs_n)
{
	FILE *f = fopen(path, "w");
	long peaks[64], samples[64], losses[64], i;
	struct cand c;

	if (!f)
		return -1;
	fprintf(f, "{\n  \"task\": \"task3_training_memory_optimization\",\n"
		"  \"stage\": \"activation_checkpoint_offload_sweep\",\n"
		"  \"evidence_level\": \"fixed_workload_strategy_sweep\",\n"
		"  \"config\": {\n    \"model_id\": \"Qwen/Qwen2.5-0.5B-Instruct\",\n"
		"    \"workload\": \"pressure\",\n    \"batch_size\": 1,\n    \"seq_len\": 768,\n"
		"    \"dtype\": \"float32\",\n    \"optimizer\": \"AdamW\",\n"
		"    \"device\": \"NVIDIA GeForce RTX 5070 Ti Laptop GPU\",\n"
		"    \"repeats\": %ld,\n    \"seed\": 42\n  },\n  \"candidates\": [\n", runs_n);
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		make_candidate(&c, i, runs_n, peaks, samples, losses);
		write_candidate(f, &c, runs_n, peaks, samples, losses, i + 1 == n);
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f);
}

/* `count` values from lo to hi, evenly spaced, rounded to `places` decimals. */
static void axis(FILE *f, const char *key, long count, double lo, double hi, int places)
{
	long k;

	fprintf(f, "    %s: [", key);
	for (k = 0; k < count; k++)
		fprintf(f, "%s%.*f", k ? ", " : "", places,
			count > 1 ? lo + (hi - lo) * (double)k / (double)(count - 1) : hi);
	fprintf(f, "]\n");
}

static int write_policy(const char *path, const long grid[3], long runs_n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# memgate policy of the benchmark (tests/bench/gen)\nversion: 1\n"
		"manifest: benchmarks/results/75_input_manifest.json\n"
		"identity:\n  workload_id: pressure\n"
		"  hardware_id: NVIDIA GeForce RTX 5070 Ti Laptop GPU\n"
		"  model_id: Qwen/Qwen2.5-0.5B-Instruct\n"
		"budget:\n  memory_cap_mb: 11200\n  min_samples_per_s: 1.0\n"
		"  min_memory_saving_mb: 512\n  min_throughput_ratio: 0.70\n"
		"quality:\n  max_relative_eval_loss: 0.02\n"
		"evidence:\n  baseline: baseline\n  min_repeats: %ld\n"
		"sensitivity:\n  grid:\n", runs_n);
	axis(f, "memory_cap_mb", grid[0], 9600, 11200, 0);
	axis(f, "min_samples_per_s", grid[1], 1.0, 2.0, 2);
	axis(f, "max_eval_loss", grid[2], 12.20, 12.80, 2);
	fprintf(f, "gate:\n  fail_on: [reject, tune]\n");
	return fclose(f);
}

static int parse_grid(long grid[3], const char *s)
{
	char *end;
	int k;

	for (k = 0; k < 3; k++) {
		grid[k] = strtol(s, &end, 10);
		if (grid[k] < 1 || grid[k] > 256 || (k < 2 ? *end != 'x' : *end != '\0'))
			return -1;
		s = end + 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen CANDIDATES RUNS GRID DIR   (GRID like 2x3x3)\n"
		"       gen --policy-only GRID DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	char path[4096];
	long n = 0, runs_n = 1, grid[3];
	const char *dir;
	int policy_only = argc == 4 && !strcmp(argv[1], "--policy-only");

	if (!policy_only && argc != 5)
		return usage();
	if (!policy_only) {
		n = atol(argv[1]);
		runs_n = atol(argv[2]);
		if (n < 1 || runs_n < 1 || runs_n > 64)
			return usage();
	}
	if (parse_grid(grid, argv[policy_only ? 2 : 3]) < 0)
		return usage();
	dir = argv[4 - policy_only];
	snprintf(path, sizeof(path), "%s/.memgate.yml", dir);
	if (write_policy(path, grid, runs_n) < 0) {
		perror(path);
		return 1;
	}
	if (policy_only)
		return 0;
	snprintf(path, sizeof(path), "%s/benchmarks/results/76_real_gpu_memory.json", dir);
	if (write_report(path, n, runs_n) < 0) {
		perror(path);
		return 1;
	}
	return 0;
}
