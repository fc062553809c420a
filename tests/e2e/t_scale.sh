#!/usr/bin/env bash
# Sweeps: case (b) of make bench (10^3 candidates with 3 runs each, 18
# scenarios, from tests/bench/gen.c) and a 100-scenario grid, decided from
# a commit in every output format.  Under make asan and make valgrind this
# is the run that must stay clean at scale.  The logs show what a person
# can read and say where the rest is; the record keeps every evaluation.
. "$(dirname "$0")/lib.sh"

GEN=$(dirname "$MEMGATE")/bench/gen
if [ ! -x "$GEN" ]; then
	not_ok "the benchmark's generator is built" "missing $GEN (make build-tests builds it)"
	finish
	exit
fi

sweep() { # sweep DIR CANDIDATES GRID
	mkdir -p "$1/benchmarks/results"
	g init -q "$1"
	"$GEN" "$2" 3 "$3" "$1"
	write_manifest "$1"
	commit_all "$1" "sweep"
}

b=$T/b
sweep "$b" 1000 2x3x3
mg check -C "$b" --format json --summary "$T/summary.md" --junit "$T/junit.xml"
expect_code 1 "10^3 candidates: decided (tune fails the gate)"
expect_field decision '"tune"'
expect_field reason '"selection_is_threshold_sensitive"'
expect_field selected_candidate '"s000785-ckpt-attn-off-none-mb1-z2-bf16"'
expect_field evaluations.999.name '"s000999-ckpt-block-off-param-mb1-z0-fp32"'
expect_field evaluations.0.repeats 3
expect_field sensitivity.summary.scenario_count 18
cp "$T/out" "$T/record.json"
if [ "$(grep -c '"status":' "$T/record.json")" = 1000 ]; then
	ok "the record keeps every evaluation"
else
	not_ok "the record keeps every evaluation" "$(grep -c '"status":' "$T/record.json") evaluations"
fi
size=$(wc -c <"$T/summary.md")
if [ "$size" -lt 1048576 ] && grep -q '^| scenario | overrides | winner | feasible set |' "$T/summary.md"; then
	ok "the job summary stays under 1 MiB ($size bytes) with its sensitivity table"
else
	not_ok "the job summary stays under 1 MiB" "$size bytes"
fi
if [ "$(grep -c '<testcase ' "$T/junit.xml")" -ge 1000 ]; then
	ok "JUnit has a test case per candidate"
else
	not_ok "JUnit has a test case per candidate"
fi

mg check -C "$b"
expect_code 1 "text: exit 1"
expect_out "selected: s000785-ckpt-attn-off-none-mb1-z2-bf16" "text: the selected candidate"
expect_out "  memory_cap_mb 11200: lower: no change within the nearest 2 values (search limit); higher: no change" \
	"text: a tipping point past the search limit says how far it searched"
expect_out "candidates: 1000; shown: the selected one and the next 5 best by rank (memgate check --format json lists every one)" \
	"text: says what it shows and where the rest is"
expect_out "  status: 294 feasible, 685 rejected, 16 oom, 5 excluded" "text: counts per status"
expect_out "  reasons: 16 oom, 5 evidence_not_comparable, 315 samples_per_s_below_floor, 110 memory_saving_below_floor, 575 throughput_below_floor" \
	"text: counts per reason"
rows=$(grep -c '^ *[0-9][0-9]*  s0' "$T/out")
if [ "$rows" = 6 ]; then ok "text: six candidate rows, not 1000"; else not_ok "text: six candidate rows" "$rows rows"; fi

mg check -C "$b" --format github
expect_code 1 "github: exit 1"
for level in error warning notice; do
	n=$(grep -c "^::$level " "$T/out")
	if [ "$n" -le 10 ]; then ok "github: $n ::$level annotations, at most 10"; else not_ok "github: ::$level annotations" "$n"; fi
done
expect_out "more findings (memgate check --format json lists every evaluation; --junit writes each candidate's)" \
	"github: the log lists the first findings and counts the rest"
lines=$(wc -l <"$T/out")
if [ "$lines" -lt 200 ]; then ok "github: a log of $lines lines"; else not_ok "github: a short log" "$lines lines"; fi

# A report of 49 candidates with 3 runs each and a one-value grid: every
# tipping point is exact at the default limit (memgate(1), INSIGHT).
e=$T/e
sweep "$e" 49 1x1x1
mg check -C "$e" --format json
expect_code 1 "49 candidates: decided"
if grep -q '"limit_reached":[[:space:]]*true' "$T/out"; then
	not_ok "49 candidates: no tipping point reaches the search limit" "$(grep -c '"limit_reached":[[:space:]]*true' "$T/out") directions do"
else
	ok "49 candidates: no tipping point reaches the search limit"
fi
expect_field insight.tipping_points.5.threshold '"memory_cap_mb"'
expect_field insight.tipping_points.5.lower.found false
expect_field insight.tipping_points.5.lower.decisions_run 48
mg check -C "$e"
if grep -q 'search limit' "$T/out"; then
	not_ok "49 candidates: the text names no search limit" "$(grep 'search limit' "$T/out")"
else
	ok "49 candidates: the text names no search limit"
fi
expect_out "  sensitivity.grid memory_cap_mb[0] 11200: lower: no change; higher: no change" \
	"text: 49 candidates: the grid cap searched to the end"

c=$T/c
sweep "$c" 300 4x5x5
mg check -C "$c"
expect_code 1 "100 scenarios: decided"
expect_out "sensitivity: selection sensitive: " "text: the sensitivity verdict"
expect_out "  the winner is the base winner in " "text: how often the winner changes"
groups=$(grep -c '^  winner ' "$T/out")
if [ "$groups" -le 6 ]; then ok "text: at most six winners listed ($groups)"; else not_ok "text: at most six winners" "$groups"; fi
mg check -C "$c" --format json
expect_field sensitivity.summary.scenario_count 100
expect_field sensitivity.scenarios.99.id '"grid[99]"'
# A scenario's feasible set is its size (since memgate-decision/v2): the record
# grows with candidates plus scenarios; --record-feasible-sets lists them.
cp "$T/out" "$T/sizes.json"
mg check -C "$c" --format json --record-feasible-sets
expect_code 1 "--record-feasible-sets: decided alike"
cp "$T/out" "$T/sets.json"
# Each scenario's count is the length of its listed set, its best that
# set's first; the two records differ only in the lists.
if python3 - "$T/sizes.json" "$T/sets.json" >"$T/cmp" 2>&1 <<'PY'
import json, sys
sizes, sets = (json.load(open(p)) for p in sys.argv[1:])
total = 0
for a, b in zip(sizes["sensitivity"]["scenarios"], sets["sensitivity"]["scenarios"]):
    assert "feasible_indices" not in a, a["id"]
    listed = b.pop("feasible_indices")
    assert len(listed) == a["feasible_count"], (a["id"], len(listed), a["feasible_count"])
    assert a["best_index"] == (listed[0] if listed else None), a["id"]
    total += len(listed)
assert total > 1000, total
del sizes["memgate_version"], sets["memgate_version"]
assert sizes == sets
print(total)
PY
then
	ok "each scenario holds its feasible count; --record-feasible-sets lists the $(cat "$T/cmp") indices"
else
	not_ok "each scenario holds its feasible count; --record-feasible-sets lists them" "$(cat "$T/cmp")"
fi

finish
