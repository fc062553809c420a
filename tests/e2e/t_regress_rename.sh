#!/usr/bin/env bash
# A rename cannot escape the regression (memgate(1), REGRESSIONS AND HISTORY):
# a covered candidate of the base with no candidate of exactly its name now
# is regression_not_compared, with its name and a look-alike (white space
# or case); the base's selected one missing decides as a regression does.
. "$(dirname "$0")/lib.sh"

# repo NAME CHECKPOINT-NOW HYBRID-NOW [REGRESSION-LINES...]: main with
# baseline, checkpoint (selected) and hybrid; branch pr renames them as
# given, checkpoint's peak 15 % higher.
repo() {
	local dir=$T/$1 cp=$2 hy=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir/benchmarks/results"
	g init -q "$dir"
	cat >"$dir/.memgate.yml" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 80000
regression:
YAML
	printf '  %s\n' "$@" >>"$dir/.memgate.yml"
	report "$dir" checkpoint hybrid 52000
	commit_all "$dir" "the base's evidence"
	g -C "$dir" checkout -q -b pr
	report "$dir" "$cp" "$hy" 59800
	commit_all "$dir" "the pull request's evidence"
	r=$dir
}

report() {
	cat >"$1/$REPORT_PATH" <<JSON
{ "workload_id": "train", "hardware_id": "gpu-a", "candidates": [
  { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
  { "name": "$2", "peak_memory_mb": $4, "samples_per_s": 8.0, "eval_loss": 2.0 },
  { "name": "$3", "peak_memory_mb": 65000, "samples_per_s": 9.0, "eval_loss": 2.0 } ] }
JSON
	write_manifest "$1"
}

repo same checkpoint hybrid "max_peak_increase_pct: 5"
mg check -C "$r" --policy-rev main --format json
expect_field reason '"peak_memory_regressed"'
expect_field regression.not_compared '[]'

repo renamed checkpoint-v2 hybrid "max_peak_increase_pct: 5"
mg check -C "$r" --policy-rev main
expect_code 1 "the selected candidate renamed fails"
expect_out "memgate: tune (regression_not_compared)" "the reason says it was not compared"
expect_out "(covers selected; decision tune; 1 not compared: no candidate of that name now)" \
	"the regression line counts it"
expect_out "'checkpoint' (selected at the base) has no candidate of exactly that name now: not compared against the base [regression_not_compared]" \
	"the finding names it"
mg check -C "$r" --policy-rev main --format json
expect_field decision '"tune"'
expect_field reason '"regression_not_compared"'
expect_field regression.compared true
expect_field regression.regressed '[]'
expect_field regression.not_compared '[{"candidate":"checkpoint","selected_at_base":true,"looks_like":null}]'
mg check -C "$r" --policy-rev main --format github
expect_out "title=memgate%3A regression_not_compared::'checkpoint' (selected at the base) has no candidate" \
	"an annotation"

repo space "checkpoint " hybrid "max_peak_increase_pct: 5" "decision: reject"
mg check -C "$r" --policy-rev main
expect_code 1 "a trailing space is another name"
expect_out "memgate: reject (regression_not_compared)" "regression.decision decides"
expect_out "('checkpoint ' looks like 'checkpoint')" "the look-alike is named"
mg check -C "$r" --policy-rev main --format json
expect_field regression.not_compared.0.looks_like '"checkpoint "'

repo case Checkpoint hybrid "max_peak_increase_pct: 5"
mg check -C "$r" --policy-rev main
expect_out "('Checkpoint' looks like 'checkpoint')" "a case difference is named"

# covers: all: another candidate renamed is a warning; the selected one's
# regression still decides.
repo other checkpoint hybrid-v2 "max_peak_increase_pct: 50" "covers: all"
mg check -C "$r" --policy-rev main
expect_code 0 "another candidate renamed does not fail"
expect_out "'hybrid' has no candidate of exactly that name now" "it is said"
mg check -C "$r" --policy-rev main --format json
expect_field regression.not_compared '[{"candidate":"hybrid","selected_at_base":false,"looks_like":null}]'
repo both checkpoint hybrid-v2 "max_peak_increase_pct: 5" "covers: all"
mg check -C "$r" --policy-rev main --format json
expect_field reason '"peak_memory_regressed"'
expect_field regression.not_compared.0.candidate '"hybrid"'

finish
