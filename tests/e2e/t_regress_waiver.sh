#!/usr/bin/env bash
# Accepting a regression on purpose (memgate(1), WAIVERS): a waiver of
# peak_memory_regressed with up_to_pct, reviewed as a loosening policy change,
# lets the first merge that measures within it pass, is spent by that merge
# (the next change compares with the new level: a second step is a
# regression again), and ends at its expiry.  Bad values are policy errors
# naming file:line:column (exit 2, nothing written).  Staged as a sequence
# of commits merged into main with --no-ff (first parents are main's).
. "$(dirname "$0")/lib.sh"

line_of() { grep -nF -- "$2" "$1/.memgate.yml" | head -n 1 | cut -d: -f1; }

# policy FILE [WAIVER-LINES...]: checkpoint is the stable winner (accept);
# its peak may rise 5 % over the base's; the waiver lines, if any.
policy() {
	local file=$1
	shift
	cat >"$file" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 80000
  min_memory_saving_mb: 1000
sensitivity:
  stricter:
    - { min_memory_saving_mb: 1500 }
regression:
  max_peak_increase_pct: 5
YAML
	if [ $# -gt 0 ]; then
		echo "waivers:" >>"$file"
		printf '  %s\n' "$@" >>"$file"
	fi
}

# report DIR CHECKPOINT-PEAK [HYBRID-PEAK]: the evidence, and its manifest.
report() {
	cat >"$1/$REPORT_PATH" <<JSON
{
  "workload_id": "train",
  "hardware_id": "gpu-a",
  "candidates": [
    { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
    { "name": "checkpoint", "peak_memory_mb": $2, "samples_per_s": 8.0, "eval_loss": 2.0 },
    { "name": "hybrid", "peak_memory_mb": ${3:-60000}, "samples_per_s": 9.0, "eval_loss": 2.0 }
  ]
}
JSON
	write_manifest "$1"
}

WAIVER=("- candidate: checkpoint" "  reason: peak_memory_regressed"
	"  justification: '+7 % memory for +15 % samples/s'" "  owner: '@perf'"
	"  expires: 2027-06-30" "  up_to_pct: 8")

# merge DIR BRANCH: merge BRANCH into main, its first parent main's.
merge() {
	g -C "$1" checkout -q main
	g -C "$1" merge -q --no-ff -m "merge $2" "$2"
}

repo=$T/seq
mkdir -p "$repo/benchmarks/results"
g init -q "$repo"
policy "$repo/.memgate.yml"
report "$repo" 52110
commit_all "$repo" "the base's evidence: checkpoint at 52110 MB"

# --- 1. the waiver is proposed: a policy change that loosens --------------

g -C "$repo" checkout -q -b waive
policy "$repo/.memgate.yml" "${WAIVER[@]}"
commit_all "$repo" "waive +7 % of checkpoint's peak"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format json
expect_code 0 "the waiver's own pull request is decided by the base's policy"
expect_field policy_changes.0.key '"waivers[checkpoint].peak_memory_regressed"'
expect_field policy_changes.0.effect '"loosens"'
merge "$repo" waive

# --- 2. the step the waiver accepts ----------------------------------------

g -C "$repo" checkout -q -b step main
report "$repo" 55800          # +7.08 %: beyond 5 %, within 8 %
commit_all "$repo" "checkpoint: +7 % memory"
mg check -C "$repo" --policy-rev main --today 2027-01-01
expect_code 0 "a +7.08 % peak within the waiver's 8 % passes"
expect_out "memgate: accept (selection_stable_across_thresholds)" "the budget decides"
expect_out "none beyond max_peak_increase_pct 5 (covers selected; decision tune; 1 accepted by a waiver)" \
	"the regression line counts the accepted change"
expect_out "waiver: 'checkpoint' changed by 7.08117 %" "the waiver says the change in words first"
expect_out "accepted up to 8 % (peak_memory_regressed) until 2027-06-30 (owner @perf)" \
	"then its allowance, the code, expiry and owner"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format json
expect_field regression.regressed '[]'
expect_field waivers.entries.0.status '"applied"'
expect_field waivers.entries.0.up_to_pct 8
expect_field waivers.entries.0.accepted_pct 7.08117443869
expect_field regression.waived.0.candidate '"checkpoint"'
expect_field regression.waived.0.threshold '"max_peak_increase_pct"'
expect_field regression.waived.0.base 52110
expect_field regression.waived.0.head 55800
expect_field regression.waived.0.up_to_pct 8
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format github
expect_out "::notice" "the waived finding is an annotation"
expect_out "waiver_applied" "with the waiver's code"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --sarif "$T/waived.sarif"
if grep -q '"ruleId":[[:space:]]*"waiver_applied"' "$T/waived.sarif"; then ok "SARIF shows the waived finding"
else not_ok "SARIF shows the waived finding"; fi

# beyond the waiver: a regression as before
report "$repo" 56800          # +9.0 %
commit_all "$repo" "checkpoint: +9 % memory"
mg check -C "$repo" --policy-rev main --today 2027-01-01
expect_code 1 "a +9 % peak is beyond the waiver's 8 %"
expect_out "memgate: tune (peak_memory_regressed)" "and a regression"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format json
expect_field waivers.entries.0.status '"unmatched"'

# after its expiry the waiver accepts nothing
report "$repo" 55800
commit_all "$repo" "checkpoint: +7 % memory again"
mg check -C "$repo" --policy-rev main --today 2027-07-01
expect_code 1 "after its expiry the +7 % is a regression"
expect_out "expired on 2027-06-30" "the waiver expired"
merge "$repo" step

# --- 3. merged: the waiver is spent -----------------------------------------

g -C "$repo" checkout -q -b next main
report "$repo" 55800 59000    # checkpoint as merged; hybrid moves
commit_all "$repo" "hybrid: another measurement"
mg check -C "$repo" --policy-rev main --today 2027-01-01
expect_code 0 "the next change, at the new level, passes"
step=$(g -C "$repo" rev-parse --short=7 main)
expect_out "warning: waiver for 'checkpoint' (peak_memory_regressed up to 8 %, owner @perf) is spent: the base's report took that step at $step (7.08117 %)" \
	"the waiver is spent by the merge that measured within it"
expect_out "so later changes compare with the new level; remove it" "and says to remove it"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format json
expect_field waivers.entries.0.status '"spent"'
expect_field waivers.entries.0.spent_at "\"$(g -C "$repo" rev-parse main)\""
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format github
expect_out "::warning file=.memgate.yml,line=$(line_of "$repo" "- candidate: checkpoint")" \
	"a warning annotation at the waiver's line"

# a second +7 % step is compared with the new level: no stacking
report "$repo" 59700          # +6.99 % over 55800
commit_all "$repo" "checkpoint: another +7 %"
mg check -C "$repo" --policy-rev main --today 2027-01-01
expect_code 1 "a second step is a regression: the spent waiver accepts nothing"
expect_out "memgate: tune (peak_memory_regressed)" "the second step counts"

# --- 4. a wider allowance is a loosening policy change ---------------------

g -C "$repo" checkout -q -b wider main
policy "$repo/.memgate.yml" "${WAIVER[@]:0:5}" "  up_to_pct: 12"
commit_all "$repo" "accept up to 12 %"
mg check -C "$repo" --policy-rev main --today 2027-01-01 --format json
expect_field policy_changes.0.key '"waivers[checkpoint].peak_memory_regressed.up_to_pct"'
expect_field policy_changes.0.effect '"loosens"'
expect_field policy_changes.0.before 8
expect_field policy_changes.0.after 12

# --- bad waivers: exit 2, file:line:column, nothing written ----------------

# refused NAME MESSAGE WAIVER-LINES...: the policy with these waiver lines
# is refused with MESSAGE (which names the position).
refused() {
	local name=$1 msg=$2 dir=$T/bad-$1
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir/benchmarks/results"
	g init -q "$dir"
	policy "$dir/.memgate.yml" "$@"
	report "$dir" 52110
	commit_all "$dir" "bad waiver"
	mg check -C "$dir" --today 2027-01-01 --json "$T/bad.json"
	expect_code 2 "waiver $name is refused"
	expect_err "$msg" "waiver $name: the message names the position and says why"
	expect_no_file "$T/bad.json" "waiver $name: nothing is written"
}
at=$(( $(wc -l <"$repo/.memgate.yml") ))   # the up_to_pct line of a 6-line waiver
refused negative ".memgate.yml:$at:16: 'waivers[0].up_to_pct' must be at least 0, got '-1'" \
	"${WAIVER[@]:0:5}" "  up_to_pct: -1"
refused not-a-number ".memgate.yml:$at:16: 'waivers[0].up_to_pct': expected a number, got a string" \
	"${WAIVER[@]:0:5}" "  up_to_pct: eight"
refused quoted ".memgate.yml:$at:16: 'waivers[0].up_to_pct': expected a number, got a string (numbers are written without quotes)" \
	"${WAIVER[@]:0:5}" "  up_to_pct: '8'"
refused missing ".memgate.yml:$((at - 5)):5: missing required key 'up_to_pct' in 'waivers[0]' (a waiver of peak_memory_regressed names the largest change it accepts, e.g. 'up_to_pct: 8')" \
	"${WAIVER[@]:0:5}"
refused not-a-regression ".memgate.yml:$at:16: 'waivers[0].up_to_pct': only a waiver of a regression's reason (peak_memory_regressed, throughput_regressed, eval_loss_regressed) accepts a change up to a percent" \
	"- candidate: checkpoint" "  reason: memory_over_budget" "${WAIVER[@]:2:3}" "  up_to_pct: 8"
refused not-compared ".memgate.yml:$((at - 4)):13: 'waivers[0].reason': 'regression_not_compared' is not a threshold's reason and cannot be waived" \
	"- candidate: checkpoint" "  reason: regression_not_compared" "${WAIVER[@]:2:4}"

finish
