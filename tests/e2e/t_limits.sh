#!/usr/bin/env bash
# Every documented limit (README "Limits"), end to end: a clear error naming
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
candidates 1024
commit_all "$repo" "at the candidate limit"
mg check -C "$repo" --format json
expect_code 0 "1024 candidates are read"
expect_field evaluations.1023.name '"c1023"'
candidates 1025
refused "1025 candidates" "r.json:"

candidates 2 1024
commit_all "$repo" "at the runs limit"
mg check -C "$repo" --format json
expect_field evaluations.1.repeats 1024
candidates 2 1025
refused "1025 runs" "r.json:"

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
policy "sensitivity:" "  grid:" "    memory_cap_mb: [$(seq -s, 1 64)]" "    min_samples_per_s: [$(seq -s, 1 64)]"
candidates 257
refused "4096 scenarios of 257 candidates" "evaluations), more than the limit of"
if grep -q '^memgate: error: .memgate.yml:[0-9]*:[0-9]*: ' "$T/err"; then
	ok "the evaluation limit points at the policy's sensitivity"
else
	not_ok "the evaluation limit points at the policy's sensitivity"
fi

finish
