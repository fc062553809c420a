#!/usr/bin/env bash
# What the outputs say, as CI systems and people read them.
#   - JUnit: a passing gate writes no failure; candidates that were not
#     selected are skipped (or pass when feasible) with their reasons; the
#     baseline's own zero saving is neither a JUnit failure nor a GitHub
#     annotation, on passing and failing runs alike.
#   - Sensitivity: the words agree with the decision, "stable" is said only
#     of a winner, each scenario id is printed with its overrides, and a
#     `stricter` entry that loosens the budget is warned about.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# count PATTERN FILE: how many lines of FILE hold PATTERN.
count() { grep -c -- "$1" "$2"; }
expect_count() { # expect_count N PATTERN FILE DESC
	local n
	n=$(count "$2" "$3")
	if [ "$n" = "$1" ]; then ok "$4"; else not_ok "$4" "expected $1 lines with '$2', got $n"; fi
}
# junit_case NAME FILE: the <testcase> element named NAME, up to its end.
junit_case() {
	sed -n "/<testcase [^>]*name=\"$1\"/,/<\/testcase>/p" "$2"
}
expect_case_has() { # expect_case_has NAME TEXT FILE DESC
	if junit_case "$1" "$3" | grep -qF -- "$2"; then ok "$4"; else not_ok "$4" "case $1 lacks: $2"; fi
}
expect_case_lacks() {
	if junit_case "$1" "$3" | grep -qF -- "$2"; then not_ok "$4" "case $1 has: $2"; else ok "$4"; fi
}

# 1. The real report decides tune; with fail_on [reject] the gate passes.
repo=$T/tune
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
sed -i 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$repo/.memgate.yml"
commit_all "$repo" "fail only on reject"
mg check -C "$repo" --junit "$T/pass.xml"
expect_code 0 "tune with fail_on [reject] passes"
expect_count 0 "<failure" "$T/pass.xml" "a passing gate writes no JUnit failure"

# --inputs: the repository paths of the inputs read, one per line, in the
# record's order; like every output file, nothing on exit 2.
mg check -C "$repo" --inputs "$T/inputs" --json "$T/inputs-record.json"
expect_code 0 "--inputs with a passing gate"
printf '%s\n' .memgate.yml "$MANIFEST_PATH" "$REPORT_PATH" >"$T/want"
if cmp -s "$T/want" "$T/inputs"; then ok "--inputs lists policy, manifest and report"
else not_ok "--inputs lists policy, manifest and report" "$(cat "$T/inputs")"; fi
sed -n 's/^[[:space:]]*"path":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' "$T/inputs-record.json" >"$T/record-paths"
if cmp -s "$T/record-paths" "$T/inputs"; then ok "--inputs lists the record's paths"
else not_ok "--inputs lists the record's paths" "$(cat "$T/record-paths")"; fi
mg check -C "$repo" --policy missing.yml --inputs "$T/inputs-error"
expect_code 2 "a missing policy"
expect_no_file "$T/inputs-error" "--inputs writes nothing on exit 2"
expect_count 1 'failures="0"' "$T/pass.xml" "the suite counts no failure"
expect_count 1 'skipped="2"' "$T/pass.xml" "the two candidates not selected are skipped"
expect_case_lacks baseline "<skipped" "$T/pass.xml" "the baseline is not skipped: its zero saving is no finding"
expect_case_has baseline "the reference the others are compared with" "$T/pass.xml" "the baseline is named the reference"
expect_case_has checkpoint "selected candidate (tune: memory_saving_below_meaningful_threshold)" "$T/pass.xml" "the selected candidate passes"
expect_case_has checkpoint "checkpoint: memory saving 331.98 MB &lt; min_memory_saving_mb 512" "$T/pass.xml" "its missed target is in system-out"
expect_case_has offload '<skipped message="not selected: samples_per_s_below_floor, memory_saving_below_floor, throughput_below_floor"/>' "$T/pass.xml" "offload is skipped with its reasons"
expect_case_has hybrid '<skipped message="not selected: memory_saving_below_floor, throughput_below_floor"/>' "$T/pass.xml" "hybrid is skipped with its reasons"
expect_case_has hybrid "hybrid: throughput ratio 0.635142 &lt; min_throughput_ratio 0.7" "$T/pass.xml" "the reasons' details are in system-out"
GITHUB_ACTIONS=true mg check -C "$repo"
expect_code 0 "the GitHub format on a passing gate"
if grep -q '^::[a-z]*.*(baseline)::' "$T/out"; then not_ok "no annotation about the baseline"; else ok "no annotation about the baseline"; fi
expect_out "::notice file=.memgate.yml,line=12,col=25,title=memgate%3A memory_saving_below_floor (checkpoint)::" "the selected candidate's missed target is still annotated"

# The record to a stdout that cannot take it (a full disk behind a
# redirection): exit 2, said, not a decision cut short in silence.  The
# --json file, in place before stdout is written, is whole.
${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --format json --json "$T/full.json" \
	>/dev/full 2>"$T/err"
code=$?
expect_code 2 "--format json to a full stdout"
expect_err "memgate: cannot write the decision record to stdout: No space left on device" \
	"a record stdout cannot take is said"
expect_field decision '"tune"' "$T/full.json"

# 2. The same evidence failing the gate: the decision and the candidate the
#    tune names fail; the others are skipped; the baseline passes.
sed -i 's/fail_on: \[reject\]/fail_on: [reject, tune]/' "$repo/.memgate.yml"
commit_all "$repo" "fail on tune"
mg check -C "$repo" --junit "$T/fail.xml"
expect_code 1 "tune with fail_on [reject, tune] fails"
expect_count 1 'failures="2"' "$T/fail.xml" "two failures: the decision and the candidate behind it"
expect_case_has checkpoint '<failure message="memory_saving_below_floor" type="rejected">' "$T/fail.xml" "checkpoint fails with its reason"
expect_case_has decision '<failure message="tune (memory_saving_below_meaningful_threshold)' "$T/fail.xml" "the decision fails"
expect_case_lacks baseline "<failure" "$T/fail.xml" "the baseline's zero saving is not a failure"
expect_case_has offload "<skipped" "$T/fail.xml" "offload is skipped"
GITHUB_ACTIONS=true mg check -C "$repo"
expect_code 1 "the GitHub format on a failing gate"
if grep -q '(baseline)::' "$T/out"; then not_ok "no warning annotation about the baseline on a failing run"; else ok "no warning annotation about the baseline on a failing run"; fi
if grep -q 'baseline: memory saving 0 MB' "$T/out"; then not_ok "the log's findings leave out the baseline's own saving"; else ok "the log's findings leave out the baseline's own saving"; fi
mg check -C "$repo" --format json
expect_field evaluations.0.reasons '["memory_saving_below_floor"]'   # the record keeps the screening

# 3. An accept whose feasible set changes under a scenario, and a
#    "stricter" entry that is looser than the base.
repo=$T/accept
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
cat >"$repo/.memgate.yml" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: pressure
  hardware_id: NVIDIA GeForce RTX 5070 Ti Laptop GPU
budget:
  memory_cap_mb: 11200
  min_samples_per_s: 1.0
  min_throughput_ratio: 0.70
quality:
  max_relative_eval_loss: 0.02
sensitivity:
  stricter:
    - { memory_cap_mb: 9600 }
    - { memory_cap_mb: 12000 }
    - { min_samples_per_s: 0.5, min_throughput_ratio: 0.8 }
  grid:
    memory_cap_mb: [9500, 11200]
    min_samples_per_s: [1.0, 1.5]
YAML
commit_all "$repo" "an accepting policy"
mg check -C "$repo" --junit "$T/accept.xml"
expect_code 0 "accept"
expect_out "memgate: accept (selection_stable_across_thresholds)" "the decision is accept"
expect_out "sensitivity: selection stable: checkpoint wins all 7 scenarios; the feasible set changes in 3 of them, the selection does not" \
	"the sensitivity line agrees with accept"
if grep -q "sensitive to thresholds" "$T/out"; then not_ok "accept is not called sensitive"; else ok "accept is not called sensitive"; fi
expect_out "  stricter[0]: memory_cap_mb 9600" "stricter[0] is printed with its override"
expect_out "  stricter[2]: min_samples_per_s 0.5, min_throughput_ratio 0.8" "stricter[2] with both overrides"
expect_out "  grid[0-3]: memory_cap_mb 9500, 11200 x min_samples_per_s 1, 1.5 (last axis fastest)" "the grid ids with their axes"
expect_out "warning: sensitivity.stricter[1] (.memgate.yml:15:7) sets memory_cap_mb 12000, looser than the base budget's 11200" \
	"a looser cap in stricter is warned about, at its line"
expect_out "warning: sensitivity.stricter[2] (.memgate.yml:16:7) sets min_samples_per_s 0.5, looser than the base budget's 1" \
	"a lower floor in stricter is warned about"
expect_no_err "min_throughput_ratio 0.8, looser" "a tighter override in the same entry is not"
expect_count 0 "<failure" "$T/accept.xml" "an accept writes no JUnit failure"
expect_case_has baseline "feasible, rank 2 of 2; not selected" "$T/accept.xml" "the feasible baseline passes, with its rank"
expect_case_has sensitivity "selection stable: checkpoint wins all 7 scenarios" "$T/accept.xml" "JUnit's sensitivity case says the same"
mg check -C "$repo" --summary "$T/summary.md"
if grep -qF "Sensitivity: selection stable: checkpoint wins all 7 scenarios" "$T/summary.md"; then
	ok "the job summary says the same"
else
	not_ok "the job summary says the same"
fi

# 4. No winner anywhere: nothing is called stable.
repo=$T/tune
mg check -C "$repo"
expect_out "sensitivity: no winner to be stable: no candidate is feasible under the base budget or in any of the 6 scenarios" \
	"no winner is not called stable"
expect_out "  grid[0-5]: memory_cap_mb 9600, 11200 x min_samples_per_s 1, 1.5, 2 (last axis fastest)" "the grid's ids with their axes"

# 5. The Action's policies output (all: true) is JSON: what a consumer
# decodes from it (jq, fromJSON, python's json) is as log-safe as the
# other outputs, with no "##[" anywhere and no line that starts with "::",
# for policy paths and candidate names that hold workflow commands.
H=$T/hostile-names
g init -q "$H"
forged='ok\\n::add-mask::x\\n##[error]forged'
for d in '##[add-mask]a' '::error::b'; do
	mkdir -p "$H/$d/bench"
	sed -e "s/\"name\": \"checkpoint\"/\"name\": \"$forged\"/" \
	    -e 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9000/' "$FLAT" >"$H/$d/bench/76.json"
	printf '{\n  "source": { "path": "%s", "sha256": "%s" }\n}\n' "$d/bench/76.json" \
		"$(sha256sum "$H/$d/bench/76.json" | cut -d' ' -f1)" >"$H/$d/bench/75.json"
	sed "s|^manifest: .*|manifest: '$d/bench/75.json'|" "$E/real-flat-11200.yml" >"$H/$d/.memgate.yml"
done
commit_all "$H" "policies and candidates named with workflow commands"
: >"$T/gh-output"
action_step check "$H" MEMGATE_ALL=true
expect_code 1 "the Action with all: true on hostile names"
awk 'd != "" { if ($0 == d) d = ""; else print; next }
     /^policies<</ { d = substr($0, 11) }' "$T/gh-output" >"$T/policies.json"
if [ "$(jq length "$T/policies.json" 2>&1)" = 2 ]; then ok "the policies output is a JSON array of the 2 policies"
else not_ok "the policies output is a JSON array of the 2 policies" "$(cat "$T/gh-output")"; fi
jq . "$T/policies.json" >"$T/decoded-pretty"
jq -r '.[] | .policy, .selected_candidate' "$T/policies.json" >"$T/decoded-raw"
python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    for v in o.values():
        if isinstance(v, str): print(v)' "$T/policies.json" >"$T/decoded-py"
for f in decoded-pretty decoded-raw decoded-py; do
	if [ -s "$T/$f" ] && ! grep -qF '##[' "$T/$f" && ! grep -q '^[[:space:]]*::' "$T/$f" &&
	   [ -z "$(runner_commands "$T/$f")" ]; then
		ok "policies, decoded ($f): no '##[', no line starting with '::'"
	else
		not_ok "policies, decoded ($f): no '##[', no line starting with '::'" "$(cat "$T/$f")"
	fi
done
expect_raw() { # expect_raw LINE DESC: the raw decoding has LINE
	if grep -qxF -- "$1" "$T/decoded-raw"; then ok "$2"; else not_ok "$2" "$(cat "$T/decoded-raw")"; fi
}
expect_raw '##\x5badd-mask]a/.memgate.yml' "a decoded path reads as the annotations escape it"
expect_raw '\x3a:error::b/.memgate.yml' "a path that starts with '::' too"
expect_raw 'ok\n::add-mask::x\n##\x5berror]forged' "a decoded candidate is the selected-candidate output"
if grep -qxF 'ok\n::add-mask::x\n##\x5berror]forged' "$T/gh-output"; then
	ok "selected-candidate carries the same text"
else
	not_ok "selected-candidate carries the same text" "$(cat "$T/gh-output")"
fi

finish
