#!/usr/bin/env bash
# Every documented limit (memgate(1), LIMITS), end to end: a clear error naming
# the file and position, exit 2, nothing written.
. "$(dirname "$0")/lib.sh"

repo=$T/limits
mkdir -p "$repo"
g init -q "$repo"

policy() { # policy [EXTRA YAML...]: a report-direct policy with extra lines
	{
		printf 'version: 1\nreport: r.json\nidentity: { workload_id: w, hardware_id: h }\nbudget: { memory_cap_mb: 11200 }\n'
		printf '%s\n' "$@"
	} >"$repo/.memgate.yml"
}

# candidates N [RUNS]: a report with N candidates (each with RUNS runs)
candidates() {
	awk -v n="$1" -v runs="${2:-0}" 'BEGIN {
		printf "{\"workload_id\": \"w\", \"hardware_id\": \"h\", \"candidates\": [\n"
		for (i = 0; i < n; i++) {
			printf "%s{\"name\": \"%s\", \"peak_memory_mb\": %d", i ? ",\n" : "", i ? "c" i : "baseline", 9000 - i
			if (runs) {
				printf ", \"runs\": ["
				for (r = 0; r < runs; r++) printf "%s{\"peak_memory_mb\": %d}", r ? "," : "", 9000 - i
				printf "]"
			}
			printf "}"
		}
		printf "]}\n" }' >"$repo/r.json"
}

# empties N [RUNS]: a report whose first candidate is the baseline with RUNS
# empty runs, then N - 1 empty candidates ({}: the smallest there is)
empties() {
	awk -v n="$1" -v runs="${2:-0}" 'BEGIN {
		printf "{\"workload_id\": \"w\", \"hardware_id\": \"h\", \"candidates\": [\n"
		printf "{\"name\": \"baseline\", \"peak_memory_mb\": 9000, \"runs\": ["
		for (r = 0; r < runs; r++) printf r ? ",{}" : "{}"
		printf "]}"
		for (i = 1; i < n; i++) printf ",{}"
		printf "]}\n" }' >"$repo/r.json"
}

# refused DESC PATTERN: commit, run, expect exit 2 with PATTERN on stderr
refused() {
	commit_all "$repo" "$1"
	rm -f "$T/out.json"
	mg check -C "$repo" --json "$T/out.json"
	expect_code 2 "$1"
	expect_err "$2" "$1: the error says so"
	expect_no_file "$T/out.json" "$1: nothing written"
}

policy
empties 2097152
commit_all "$repo" "at the candidate limit"
mg check -C "$repo"
expect_code 1 "2^21 candidates are read and decided"
expect_out "candidates: 2097152; shown:" "the text summarises 2^21 candidates"
empties 2097153
refused "2^21 + 1 candidates" "r.json:1:56:"
expect_err "too many candidates (2097153; the limit is 2097152; raise it with make EXTRA_CFLAGS=-DMG_REPORT_MAX_CANDIDATES=N)" \
	"the candidate limit says how to raise it"

empties 1 2097152
commit_all "$repo" "at the runs limit"
mg check -C "$repo" --format json
expect_field evaluations.0.repeats 2097152
empties 1 2097153
refused "2^21 + 1 runs" "r.json:2:54:"

candidates 2
sed -i "s/\"name\": \"c1\"/\"name\": \"$(head -c 257 /dev/zero | tr '\0' n)\"/" "$repo/r.json"
refused "a 257-byte candidate name" "r.json:"

printf '{"workload_id": "w", "hardware_id": "h", "candidates": [], "x": %s1%s}\n' \
	"$(head -c 64 /dev/zero | tr '\0' '[')" "$(head -c 64 /dev/zero | tr '\0' ']')" >"$repo/r.json"
refused "JSON nested 65 levels" "nesting deeper than 64 levels"

candidates 2
policy "evidence:" "  baseline: $(head -c 4097 /dev/zero | tr '\0' b)"
refused "a 4097-byte YAML scalar" ".memgate.yml:6:"
policy "x: $(head -c 20 /dev/zero | tr '\0' '[')1$(head -c 20 /dev/zero | tr '\0' ']')"
refused "YAML nested 21 levels" "nesting is deeper than 16 levels"
policy "sensitivity:" "  stricter:" $(for i in $(seq 257); do echo "    - { memory_cap_mb: $i }"; done)
refused "257 stricter entries" ".memgate.yml:"
policy "sensitivity:" "  grid:" "    memory_cap_mb: [$(seq -s, 1 257)]"
refused "257 values on a grid axis" ".memgate.yml:"
policy "sensitivity:" "  grid:" "    memory_cap_mb: [$(seq -s, 1 64)]" "    min_samples_per_s: [$(seq -s, 1 65)]"
refused "a grid of 4160 scenarios" "more than the limit of 4096"

# Scenarios times candidates: each fits, the product does not.
# 4096 scenarios of 2^19 + 1 candidates: 2^31 evaluations and 4096 more.
policy "sensitivity:" "  grid:" "    memory_cap_mb: [$(seq -s, 1 64)]" "    min_samples_per_s: [$(seq -s, 1 64)]"
empties 524289
refused "4096 scenarios of 2^19 + 1 candidates" "evaluations), more than the limit of 2147483648 evaluations (raise it with"
if grep -q '^memgate: error: .memgate.yml:[0-9]*:[0-9]*: ' "$T/err"; then
	ok "the evaluation limit points at the policy's sensitivity"
else
	not_ok "the evaluation limit points at the policy's sensitivity"
fi

finish
