#!/usr/bin/env bash
# Regressions against the base (memgate(1), REGRESSIONS AND HISTORY): the policy's
# regression: section, read from the policy revision, bounds how much worse
# than the base revision's report each covered candidate may get.  A 7 %
# peak regression of the selected candidate fails under a 5 % allowance and
# passes under 10 %; runs whose bands overlap do not count; bad values are
# errors naming file:line:column (exit 2, nothing written); at the CLI, in
# the Action's check step and in the pre-push hook.
. "$(dirname "$0")/lib.sh"

# policy FILE [REGRESSION-LINES...]: a policy under which checkpoint is the
# stable winner (accept), with the regression: lines given, if any.
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
YAML
	if [ $# -gt 0 ]; then
		echo "regression:" >>"$file"
		printf '  %s\n' "$@" >>"$file"
	fi
}

# report FILE CHECKPOINT-PEAK [HYBRID-PEAK] [CHECKPOINT-RUN-PEAKS]: the
# baseline, checkpoint (the winner) and hybrid; checkpoint's peak as given,
# or with runs (three peaks, the middle one its aggregate).
report() {
	local file=$1 peak=$2 hybrid=${3:-60000} runs=${4:-} cp
	if [ -n "$runs" ]; then
		set -- $runs
		cp="\"runs\": [
        { \"peak_memory_mb\": $1, \"samples_per_s\": 8.0, \"eval_loss\": 2.0 },
        { \"peak_memory_mb\": $2, \"samples_per_s\": 8.0, \"eval_loss\": 2.0 },
        { \"peak_memory_mb\": $3, \"samples_per_s\": 8.0, \"eval_loss\": 2.0 } ]"
	else
		cp="\"peak_memory_mb\": $peak, \"samples_per_s\": 8.0, \"eval_loss\": 2.0"
	fi
	cat >"$file" <<JSON
{
  "workload_id": "train",
  "hardware_id": "gpu-a",
  "candidates": [
    { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
    { "name": "checkpoint", $cp },
    { "name": "hybrid", "peak_memory_mb": $hybrid, "samples_per_s": 9.0, "eval_loss": 2.0 }
  ]
}
JSON
}

# pr_repo DIR BASE-REPORT-ARGS -- HEAD-REPORT-ARGS -- POLICY-ARGS...: main
# with the policy and the base evidence, then branch pr with the head's
# evidence (manifests pinning each report).
pr_repo() {
	local dir=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do b+=("$1"); shift; done
	shift
	rm -rf "$dir"
	mkdir -p "$dir/benchmarks/results"
	g init -q "$dir"
	policy "$dir/.memgate.yml" "$@"
	report "$dir/$REPORT_PATH" "${a[@]}"
	write_manifest "$dir"
	commit_all "$dir" "the base's evidence"
	g -C "$dir" checkout -q -b pr
	report "$dir/$REPORT_PATH" "${b[@]}"
	write_manifest "$dir"
	commit_all "$dir" "the pull request's evidence"
}

# --- a 7 % peak regression of the selected candidate ------------------------

repo=$T/seven
pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 5"
mg check -C "$repo" --policy-rev main
expect_code 1 "a 7 % peak regression fails under a 5 % allowance"
expect_out "memgate: tune (peak_memory_regressed)" "the reason names the regression"
expect_out "next action: fix_regression_against_base" "the next action"
expect_out "selected: checkpoint" "it names the candidate that regressed"
expect_text_as_with_findings "a regression" -C "$repo" --policy-rev main
mg check -C "$repo" --policy-rev main --format json
expect_field decision '"tune"'
expect_field reason '"peak_memory_regressed"'
expect_field selected_candidate '"checkpoint"'
expect_field regression.compared true
expect_field regression.regressed.0.candidate '"checkpoint"'
expect_field regression.regressed.0.threshold '"max_peak_increase_pct"'
expect_field regression.regressed.0.reason '"peak_memory_regressed"'
expect_field regression.regressed.0.base 52110
expect_field regression.regressed.0.head 55800
expect_field regression.regressed.0.limit 5

pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 10"
mg check -C "$repo" --policy-rev main
expect_code 0 "the same change passes under a 10 % allowance"
expect_out "memgate: accept (selection_stable_across_thresholds)" "the budget decides"
mg check -C "$repo" --policy-rev main --format json
expect_field regression.regressed '[]'

pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_mb: 3690"
mg check -C "$repo" --policy-rev main
expect_code 0 "an increase equal to the MB allowance passes"
pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_mb: 3689"
mg check -C "$repo" --policy-rev main
expect_code 1 "one MB more than the allowance fails"
expect_out "memgate: tune (peak_memory_regressed)" "max_peak_increase_mb"

pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 5" "decision: reject"
mg check -C "$repo" --policy-rev main
expect_code 1 "decision: reject"
expect_out "memgate: reject (peak_memory_regressed)" "the regression rejects"
mg check -C "$repo" --policy-rev main --fail-on reject
expect_code 1 "a rejecting regression fails a gate that fails only on reject"

# The policy revision decides: the pull request's own policy loosening the
# allowance does not take effect.
pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 5"
policy "$repo/.memgate.yml" "max_peak_increase_pct: 50"
commit_all "$repo" "loosen the allowance in the pull request"
mg check -C "$repo" --policy-rev main
expect_code 1 "the pull request's own looser allowance does not apply"
expect_out "memgate: tune (peak_memory_regressed)" "the base's allowance decides"

# --- which candidates: selected (default) and all ---------------------------

pr_repo "$repo" 52110 60000 -- 52110 66000 -- "max_peak_increase_pct: 5"
mg check -C "$repo" --policy-rev main
expect_code 0 "covers: selected ignores another candidate's regression"
pr_repo "$repo" 52110 60000 -- 52110 66000 -- "max_peak_increase_pct: 5" "covers: all"
mg check -C "$repo" --policy-rev main
expect_code 1 "covers: all compares every candidate"
expect_out "memgate: tune (peak_memory_regressed)" "covers: all: the reason"
expect_out "selected: hybrid" "covers: all: names the candidate that regressed"

# The base selected checkpoint; its peak grew past the saving floor, so the
# head selects hybrid: the regression of the base's choice still counts.
pr_repo "$repo" 52110 60000 -- 69500 60000 -- "max_peak_increase_pct: 5"
mg check -C "$repo" --policy-rev main
expect_code 1 "the candidate the base selected is covered"
expect_out "memgate: tune (peak_memory_regressed)" "the base's choice regressed"
expect_out "selected: checkpoint" "names the candidate that regressed, not the new winner"

# --- repeated runs: a change within the runs' noise does not count ----------

# base runs 52000..53000; head runs 54000..57000 (aggregate 55800, +7 %):
# the change's band 1.9 % .. 9.6 % holds the 5 % allowance
pr_repo "$repo" 52110 60000 "52000 52110 53000" -- 55800 60000 "54000 55800 57000" -- \
	"max_peak_increase_pct: 5"
mg check -C "$repo" --policy-rev main
expect_code 0 "runs whose bands overlap the allowance do not count"
expect_out "regression against the base $(git -C "$repo" rev-parse main | cut -c1-12): none beyond max_peak_increase_pct 5 (covers selected; decision tune; 1 changed within the runs' noise)" \
	"the regression line counts the change as changed, not regressed"
expect_out "  $REPORT_PATH:6:37: checkpoint: peak increase 7.08117 % (52110 -> 55800 MB) > max_peak_increase_pct 5 against the base, but within both runs' noise (Mann-Whitney p = 0.35 > alpha 0.05): changed, not regressed [changed_within_noise]" \
	"the change is listed with its noise: the test's p-value against alpha"
mg check -C "$repo" --policy-rev main --format json
expect_field regression.within_noise 1
expect_field regression.regressed '[]'
expect_field regression.changed_within_noise.0.candidate '"checkpoint"'
expect_field regression.changed_within_noise.0.reason '"peak_memory_regressed"'
expect_field regression.changed_within_noise.0.change 7.08117443869
expect_field regression.changed_within_noise.0.p 0.35
mg check -C "$repo" --policy-rev main --format github --summary "$T/noise-summary.md"
expect_code 0 "in the Action, too"
expect_out "::notice file=$REPORT_PATH,line=6,col=37,title=memgate%3A changed_within_noise (checkpoint)::checkpoint: peak increase 7.08117 %25" \
	"a notice at the value's line, never an error or a warning"
if grep -qF "| checkpoint | \`changed_within_noise\` | 52110 MB | 55800 MB | 7.08117 % (changed; within the runs' noise: p = 0.35) | \`max_peak_increase_pct\` 5 |" "$T/noise-summary.md"; then
	ok "the job summary's regressions table has the change, with its noise"
else
	not_ok "the job summary's regressions table has the change, with its noise" "$(grep -F checkpoint "$T/noise-summary.md" | head -n 3)"
fi
# under noise_test: range the change's band over the runs is shown
pr_repo "$repo" 52110 60000 "52000 52110 53000" -- 55800 60000 "54000 55800 57000" -- \
	"max_peak_increase_pct: 5" "noise_test: range"
mg check -C "$repo" --policy-rev main
expect_code 0 "under noise_test: range, too"
expect_out "but within both runs' noise (the change over the runs spans +1.9 to +9.6 %): changed, not regressed [changed_within_noise]" \
	"the change's band over the runs is shown"
mg check -C "$repo" --policy-rev main --format json
expect_field regression.changed_within_noise.0.p null
expect_field regression.changed_within_noise.0.band.min 1.8867924528301883
# head runs 55700..55900: the whole band (5.1 % .. 7.5 %) is past 5 %
pr_repo "$repo" 52110 60000 "52000 52110 53000" -- 55800 60000 "55700 55800 55900" -- \
	"max_peak_increase_pct: 5"
mg check -C "$repo" --policy-rev main
expect_code 1 "runs whose whole band is past the allowance count"
mg check -C "$repo" --policy-rev main --format json
expect_field regression.regressed.0.beyond_run_noise true

# --- without a base, or without regression: --------------------------------

pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 5"
mg check -C "$repo"
expect_code 0 "no base revision: nothing is compared"
expect_out "note: regression: not compared: no base revision (give --base REV or --policy-rev REV to compare with one)" \
	"a note says so (no base can exist on a local check: not a warning)"
expect_no_err "warning: regression" "and no warning"
if grep -q "warning: regression" "$T/out"; then not_ok "no regression warning on stdout"; else ok "no regression warning on stdout"; fi
mg check -C "$repo" --base main
expect_code 1 "--base names the base"

# adoption: the base has no policy, so nothing can be compared: a note
adopt=$T/adopt
rm -rf "$adopt"
mkdir -p "$adopt/benchmarks/results"
g init -q "$adopt"
echo "no gate yet" >"$adopt/README"
commit_all "$adopt" "before memgate"
g -C "$adopt" branch -q -M main
g -C "$adopt" checkout -q -b adopt
policy "$adopt/.memgate.yml" "max_peak_increase_pct: 5"
report "$adopt/$REPORT_PATH" 52110
write_manifest "$adopt"
commit_all "$adopt" "adopt memgate"
mg check -C "$adopt" --policy-rev main
expect_code 0 "adoption with a regression: section"
expect_out "note: regression: not compared: the change adopts memgate" "adoption: a note, not a warning"
if grep -q "warning: regression" "$T/out"; then not_ok "adoption: no regression warning"; else ok "adoption: no regression warning"; fi

# --worktree honours --base: the runner's check before committing
echo "uncommitted" >"$repo/notes.txt"
mg check -C "$repo" --worktree --base main
expect_code 1 "--worktree --base main: the regression is seen before committing"
expect_out "memgate: tune (peak_memory_regressed)" "--worktree: the reason names the regression"
mg check -C "$repo" --worktree
expect_code 0 "--worktree alone: nothing to compare with"
expect_out "note: regression: not compared: no base revision" "--worktree alone: a note says so"
rm -f "$repo/notes.txt"

pr_repo "$repo" 52110 -- 55800 --
mg check -C "$repo" --policy-rev main --format json
expect_code 0 "without regression: the change is not judged"
if grep -q '"regression"' "$T/out"; then
	not_ok "without regression: the record has no regression key"
else
	ok "without regression: the record has no regression key"
fi
mg check -C "$repo" --policy-rev main
if grep -q "regressed\|regression:" "$T/out" "$T/err"; then
	not_ok "without regression: the text does not mention it"
else
	ok "without regression: the text does not mention it"
fi

# --- bad regression: values --------------------------------------------------

bad() {
	local want=$1 desc=$2
	shift 2
	pr_repo "$repo" 52110 -- 55800 -- "$@"
	mg check -C "$repo" --json "$T/bad.json"
	expect_code 2 "$desc"
	expect_err "memgate: error: .memgate.yml:$want" "$desc: names file, line and column"
	expect_no_file "$T/bad.json" "$desc: nothing written"
}
bad "13:26: 'regression.max_peak_increase_pct' must be at least 0, got '-1'" \
	"a negative allowance" "max_peak_increase_pct: -1"
bad "13:26: 'regression.max_peak_increase_pct': expected a number, got a string (numbers are written without quotes)" \
	"a quoted number" "max_peak_increase_pct: \"5\""
bad "14:11: 'regression.covers' must be 'selected' or 'all', got 'some'" \
	"an unknown covers" "max_peak_increase_pct: 5" "covers: some"
bad "14:13: 'regression.decision' must be 'tune' or 'reject', got 'accept'" \
	"decision: accept" "max_peak_increase_pct: 5" "decision: accept"
bad "13:3: 'regression' sets no threshold: set max_peak_increase_mb, max_peak_increase_pct, max_throughput_drop_pct or max_eval_loss_increase" \
	"no threshold" "covers: all"
bad "13:3: unknown key 'max_peak_increase' (did you mean 'max_peak_increase_mb'?)" \
	"a misspelt key" "max_peak_increase: 5"
bad "13:3: 'memory_cap_mb' belongs under 'budget', not under 'regression'" \
	"a budget key under regression" "memory_cap_mb: 5"

pr_repo "$repo" 52110 -- 55800 --
sed -i 's/- { min_memory_saving_mb: 1500 }/- { max_peak_increase_pct: 5 }/' "$repo/.memgate.yml"
commit_all "$repo"
mg check -C "$repo"
expect_code 2 "a regression allowance is not a sensitivity scenario"
expect_err "memgate: error: .memgate.yml:11:9: 'max_peak_increase_pct' belongs under 'regression', not under 'sensitivity.stricter[0]'" \
	"names where it belongs"

# --- the pull-request view leads with what changed ---------------------------

# The base selected checkpoint; its peak grew past the saving floor, so
# hybrid wins now: every output names checkpoint, the candidate that
# regressed, and points at its peak in the head's report.
pr_repo "$repo" 52110 60000 -- 69500 60000 -- "max_peak_increase_pct: 5"
peak_line=$(grep -n '"name": "checkpoint"' "$repo/$REPORT_PATH" | cut -d: -f1)
peak_col=$(grep '"name": "checkpoint"' "$repo/$REPORT_PATH" | awk '{ print index($0, "69500") }')
mg check -C "$repo" --policy-rev main --summary "$T/summary.md" --junit "$T/junit.xml" \
	--sarif "$T/sarif.json"
expect_code 1 "views: the regression fails the gate"
expect_out "regression against the base $(g -C "$repo" rev-parse --short=12 main): 1 beyond max_peak_increase_pct 5 (covers selected; decision tune)" \
	"text: the regression line follows the evidence line"
expect_out "  $REPORT_PATH:$peak_line:$peak_col: checkpoint: peak increase 33.3717 % (52110 -> 69500 MB) > max_peak_increase_pct 5 against the base [peak_memory_regressed]" \
	"text: names the candidate and the report line of its peak"
if [ "$(sed -n 6p "$T/out" | cut -c1-27)" = "regression against the base" ]; then
	ok "text: the regression comes before the candidates table"
else
	not_ok "text: the regression comes before the candidates table"
fi
first=$(grep -n '^### ' "$T/summary.md" | head -n 2 | cut -d: -f2- | tr '\n' '|')
if [ "$first" = "### Regressions against the base|### Against the base|" ]; then
	ok "summary: opens with the regressions and the base-vs-head change"
else
	not_ok "summary: opens with the regressions and the base-vs-head change" "sections: $first"
fi
if grep -qF '| checkpoint | `peak_memory_regressed` | 52110 MB | 69500 MB |' "$T/summary.md"; then
	ok "summary: the regression's row names checkpoint"
else
	not_ok "summary: the regression's row names checkpoint" "$(head -n 30 "$T/summary.md")"
fi
tips=$(grep -n '^### Tipping points' "$T/summary.md" | cut -d: -f1)
base_at=$(grep -n '^### Against the base' "$T/summary.md" | cut -d: -f1)
if [ -n "$tips" ] && [ "$base_at" -lt "$tips" ]; then
	ok "summary: tipping points below the change"
else
	not_ok "summary: tipping points below the change" "base at $base_at, tips at $tips"
fi
if grep -q '<testcase classname="memgate.candidates" name="checkpoint"' "$T/junit.xml" &&
   grep -A1 '<testcase classname="memgate.candidates" name="checkpoint"' "$T/junit.xml" |
	grep -qF '<failure message="peak_memory_regressed, memory_saving_below_floor" type="regressed">'; then
	ok "JUnit: checkpoint's case fails with the regression"
else
	not_ok "JUnit: checkpoint's case fails with the regression" "$(cat "$T/junit.xml")"
fi
if grep -A1 '<testcase classname="memgate.candidates" name="hybrid"' "$T/junit.xml" | grep -q '<failure'; then
	not_ok "JUnit: the new winner does not fail"
else
	ok "JUnit: the new winner does not fail"
fi
sarif=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]["results"][0]
loc = r["locations"][0]["physicalLocation"]
print(r["ruleId"], loc["artifactLocation"]["uri"], loc["region"]["startLine"],
      loc["region"]["startColumn"], r["message"]["text"].split(":")[0])' "$T/sarif.json")
if [ "$sarif" = "peak_memory_regressed $REPORT_PATH $peak_line $peak_col checkpoint" ]; then
	ok "SARIF: the first result is the regression at the peak's line"
else
	not_ok "SARIF: the first result is the regression at the peak's line" "got: $sarif"
fi
mg check -C "$repo" --policy-rev main --format github
expect_out "::warning file=$REPORT_PATH,line=$peak_line,col=$peak_col,title=memgate%3A peak_memory_regressed (checkpoint)::checkpoint: peak increase 33.3717 %25 (52110 -> 69500 MB) > max_peak_increase_pct 5 against the base" \
	"annotation: at the regressed value's line in the head's report"

# --- the GitHub Action's check step -------------------------------------------

pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 5"
base=$(g -C "$repo" rev-parse main)
action_step check "$repo" MEMGATE_POLICY_REV="$base"
expect_code 1 "Action: a 7 % regression fails the pull request"
expect_out "memgate: tune (peak_memory_regressed)" "Action: the decision"
expect_runner_safe "$T/out" "Action: only memgate's annotations"
pr_repo "$repo" 52110 -- 55800 -- "max_peak_increase_pct: 10"
base=$(g -C "$repo" rev-parse main)
action_step check "$repo" MEMGATE_POLICY_REV="$base"
expect_code 0 "Action: under 10 % it passes"

# A depth-1 checkout of the pull request (actions/checkout's default): the
# resolve step fetches the base, whose report the check compares with.
up=$T/upstream
pr_repo "$up" 52110 -- 55800 -- "max_peak_increase_pct: 5"
base=$(g -C "$up" rev-parse main)
rm -rf "$T/pr"
g clone -q --depth=1 --branch pr "file://$up" "$T/pr" 2>"$T/err"
action_step resolve "$T/pr" GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=upstream \
	MEMGATE_PR_BASE="$base"
expect_code 0 "Action, depth 1: resolve fetches the base"
action_step check "$T/pr" MEMGATE_POLICY_REV="$base"
expect_code 1 "Action, depth 1: the regression against the fetched base fails"
expect_out "memgate: tune (peak_memory_regressed)" "Action, depth 1: the decision"

# --- the base's measured commit missing (a shallow clone) ----------------------

# evidence.inputs: each side's manifest names the commit it was measured on,
# an older one than the evidence's.  The base selected checkpoint; the pull
# request's checkpoint grew 8.2 % and hybrid got better, so the head selects
# hybrid.  A depth-1 clone has the base, not its measured commit: the base
# still compares with the candidate its numbers select (checkpoint, whose
# regression counts) and no verdict of the base is made up.
fresh_pr_repo() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/benchmarks/results"
	g init -q "$dir"
	policy "$dir/.memgate.yml" "max_peak_increase_pct: 5"
	printf 'evidence:\n  inputs:\n    - "src/**"\n' >>"$dir/.memgate.yml"
	echo "v1" >"$dir/src/model.py"
	commit_all "$dir" "the code"
	report "$dir/$REPORT_PATH" 52110 60000
	mg manifest -C "$dir" --worktree --report "$REPORT_PATH" --out "$dir/$MANIFEST_PATH" \
		--measured-commit HEAD --force
	commit_all "$dir" "the base's evidence, measured on the code"
	echo "notes" >"$dir/NOTES"
	commit_all "$dir" "a note"
	g -C "$dir" checkout -q -b pr
	echo "v2" >"$dir/src/model.py"
	commit_all "$dir" "new code"
	report "$dir/$REPORT_PATH" 56383 55000
	mg manifest -C "$dir" --worktree --report "$REPORT_PATH" --out "$dir/$MANIFEST_PATH" \
		--measured-commit HEAD --force
	commit_all "$dir" "the pull request's evidence, measured on the new code"
}
up=$T/fresh-up
fresh_pr_repo "$up"
base=$(g -C "$up" rev-parse main)
base_measured=$(g -C "$up" rev-parse main~2)
mg check -C "$up" --policy-rev main --format json
expect_code 1 "full history: the base's choice regressed 8.2 %"
expect_field decision '"tune"'
expect_field selected_candidate '"checkpoint"'
expect_field regression.regressed.0.candidate '"checkpoint"'
expect_field base.decision '"accept"'
rm -rf "$T/pr"
g clone -q --depth=1 --branch pr "file://$up" "$T/pr" 2>"$T/err"
g -C "$T/pr" fetch -q --depth=1 origin "$base"
g -C "$T/pr" fetch -q --depth=1 origin "$(g -C "$up" rev-parse pr~1)"   # the head's measured commit
mg check -C "$T/pr" --policy-rev "$base" --format json --comment "$T/comment.md"
expect_code 1 "depth 1, the base's measured commit missing: still tune"
expect_field decision '"tune"'
expect_field reason '"peak_memory_regressed"'
expect_field regression.regressed.0.candidate '"checkpoint"'
expect_field regression.regressed.0.base 52110
expect_err "memgate: warning: the base ${base:0:7}: its measured commit ${base_measured:0:12} is not in this repository (a shallow clone): the base's own decision is not known here; its candidates are compared as measured (its numbers select checkpoint); fetch it (git fetch origin $base_measured)" \
	"depth 1: a warning says what is not known and how to fetch it"
if grep -qF "decision not known here (its measured commit is not in this clone) →" "$T/comment.md" &&
   ! grep -qF "reject (fails, selected none) →" "$T/comment.md"; then
	ok "depth 1: the comment makes up no verdict of the base"
else
	not_ok "depth 1: the comment makes up no verdict of the base" "$(grep -F 'Against the base' "$T/comment.md")"
fi
rm -f "$T/summary-depth1.md"
mg check -C "$T/pr" --policy-rev "$base" --summary "$T/summary-depth1.md"
expect_out "base: ${base:0:12} decision not known here (its measured commit is not in this clone), its numbers select checkpoint; this commit: tune, selected checkpoint" \
	"depth 1: the text makes up no verdict of the base"
if grep -qF "| base | \`$base\` | not known here | its measured commit is not in this clone | checkpoint (its numbers) | not known |" "$T/summary-depth1.md"; then
	ok "depth 1: the job summary makes up no verdict of the base"
else
	not_ok "depth 1: the job summary makes up no verdict of the base" "$(grep -F '| base |' "$T/summary-depth1.md")"
fi
g -C "$T/pr" fetch -q --depth=1 origin "$base_measured"
mg check -C "$T/pr" --policy-rev "$base" --comment "$T/comment.md"
expect_code 1 "depth 1 with the measured commit fetched: tune"
expect_no_err "measured commit" "no warning once it is fetched"
if grep -qF "accept (passes, selected checkpoint) →" "$T/comment.md"; then
	ok "the comment gives the base's own verdict once it is known"
else
	not_ok "the comment gives the base's own verdict once it is known" "$(grep -F 'Against the base' "$T/comment.md")"
fi

# --- the pre-push hook: a branch against the remote's commit -------------------

# hook_repo ALLOWANCE: pr_repo's repository with main pushed to a bare
# origin (its default branch), the hook installed, on branch pr.
hook_repo() {
	repo=$T/hook
	pr_repo "$repo" 52110 -- 55800 -- "$1"
	rm -rf "$T/origin.git"
	g init -q --bare "$T/origin.git"
	g -C "$repo" remote add origin "$T/origin.git"
	g -C "$repo" push -q origin main 2>/dev/null
	g -C "$repo" remote set-head origin main
	cp "$SRC/actions/pre-push" "$repo/.git/hooks/pre-push"
	chmod +x "$repo/.git/hooks/pre-push"
}
# hook_push ARGS...: git push in $repo through the hook; sets $code.
hook_push() {
	MEMGATE=$MEMGATE g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
hook_repo "max_peak_increase_pct: 5"
hook_push origin pr
expect_code 1 "hook: a new branch regressing 7 % against the remote's main is refused"
expect_err "memgate: tune (peak_memory_regressed)" "hook: memgate's reason"
g -C "$repo" push -q origin pr~1:refs/heads/pr 2>/dev/null   # the remote's pr: main's commit
hook_push origin pr
expect_code 1 "hook: an existing branch regressing against the remote's commit is refused"
hook_repo "max_peak_increase_pct: 10"
hook_push origin pr
expect_code 0 "hook: under a 10 % allowance the branch pushes"
if [ "$(g -C "$T/origin.git" rev-parse -q --verify pr)" = "$(g -C "$repo" rev-parse pr)" ]; then
	ok "hook: the remote has the branch"
else
	not_ok "hook: the remote has the branch"
fi

# --- the pre-push hook without refs/remotes/origin/HEAD ----------------------
# How a team adopts memgate: 'git clone' of a repository that is still
# empty (no refs/remotes/origin/HEAD comes of it), main pushed first, then
# a new branch.  The hook finds the remote's default branch another way
# (the branch the remote's HEAD names, else origin/main, else
# origin/master) and compares the branch with it; with none it says, on one
# line, that the regressions were not compared.

# adopt_repo: $T/adopt, a clone of the empty $T/adopt.git with the hook;
# main (the base's evidence, max_peak_increase_pct: 5) pushed, branch pr
# (a 7 % peak regression, inside every cap) committed.
adopt_repo() {
	rm -rf "$T/adopt" "$T/adopt.git"
	g init -q --bare "$T/adopt.git"
	g clone -q "$T/adopt.git" "$T/adopt" 2>/dev/null
	repo=$T/adopt
	cp "$SRC/actions/pre-push" "$repo/.git/hooks/pre-push"
	chmod +x "$repo/.git/hooks/pre-push"
	mkdir -p "$repo/benchmarks/results"
	policy "$repo/.memgate.yml" "max_peak_increase_pct: 5"
	report "$repo/$REPORT_PATH" 52110
	write_manifest "$repo"
	commit_all "$repo" "the base's evidence"
	hook_push origin main
	g -C "$repo" checkout -q -b pr
	report "$repo/$REPORT_PATH" 55800
	write_manifest "$repo"
	commit_all "$repo" "a 7 % regression"
}
remote_lacks() { # remote_lacks REF DESC
	if g -C "$T/adopt.git" rev-parse -q --verify "$1" >/dev/null; then not_ok "$2"; else ok "$2"; fi
}
adopt_repo
expect_code 0 "adoption: the first push of main passes"
expect_err "'refs/heads/main' passes, but its regressions (regression:) were not compared with anything: 'origin' has no default branch here" \
	"adoption: the first push says its regressions were not compared"
if g -C "$repo" rev-parse -q --verify refs/remotes/origin/HEAD >/dev/null; then
	not_ok "a clone of an empty repository has no refs/remotes/origin/HEAD"
else
	ok "a clone of an empty repository has no refs/remotes/origin/HEAD"
fi

# The reported case: the remote's HEAD names main.
hook_push origin pr
expect_code 1 "no origin/HEAD: a new branch regressing against the branch the remote's HEAD names is refused"
expect_err "memgate: tune (peak_memory_regressed)" "no origin/HEAD: memgate's reason"
remote_lacks refs/heads/pr "no origin/HEAD: the regressed branch did not reach the remote"

# Asking the remote runs nothing the repository's configuration names.
trap_cmd="touch '$T/uploadpack-ran'; exit 1"
g -C "$repo" config remote.origin.uploadpack "$trap_cmd"
hook_push origin pr
expect_code 1 "with a remote.origin.uploadpack planted, the branch is still compared and refused"
if [ -e "$T/uploadpack-ran" ]; then not_ok "the hook ran the repository's remote.origin.uploadpack"
else ok "the hook never runs the repository's remote.origin.uploadpack"; fi
g -C "$repo" config --unset remote.origin.uploadpack
# nor its core.sshCommand: the remote is asked over ssh (its fetch URL) and
# refuses; the push goes to the push URL, and origin/main decides
g -C "$repo" config core.sshCommand "touch '$T/sshcommand-ran'; exit 1"
g -C "$repo" config remote.origin.url "ssh://127.0.0.1:1/adopt.git"
g -C "$repo" config remote.origin.pushurl "$T/adopt.git"
hook_push origin pr
expect_code 1 "with a core.sshCommand planted, the branch is compared with origin/main and refused"
if [ -e "$T/sshcommand-ran" ]; then not_ok "the hook ran the repository's core.sshCommand"
else ok "the hook never runs the repository's core.sshCommand"; fi
g -C "$repo" config --unset core.sshCommand
g -C "$repo" config remote.origin.url "$T/adopt.git"
g -C "$repo" config --unset remote.origin.pushurl

# The remote's HEAD names no branch it has: refs/remotes/origin/main.
g -C "$T/adopt.git" symbolic-ref HEAD refs/heads/trunk
hook_push origin pr
expect_code 1 "the remote's HEAD unborn: a new branch regressing against origin/main is refused"
expect_err "memgate: tune (peak_memory_regressed)" "origin/main: memgate's reason"

# Neither: refs/remotes/origin/master.
g -C "$repo" update-ref refs/remotes/origin/master refs/remotes/origin/main
g -C "$repo" update-ref -d refs/remotes/origin/main
hook_push origin pr
expect_code 1 "no origin/main: a new branch regressing against origin/master is refused"
expect_err "memgate: tune (peak_memory_regressed)" "origin/master: memgate's reason"

# None at all: the gate itself passes, and one line says the regressions
# were not compared and how to give the hook a base.
g -C "$repo" update-ref -d refs/remotes/origin/master
hook_push origin pr
expect_code 0 "no default branch known: the branch passes the gate"
expect_err "memgate pre-push: 'refs/heads/pr' passes, but its regressions (regression:) were not compared with anything: 'origin' has no default branch here (refs/remotes/origin/HEAD is missing, as after 'git remote add' or a clone of an empty repository; the remote's HEAD names no branch known here; there is no refs/remotes/origin/main or master); run 'git remote set-head origin --auto' (or 'git remote set-head origin BRANCH') so that a new branch is compared with it" \
	"no default branch known: one line says the regressions were not compared, and how to give a base"
if [ "$(grep -c 'memgate pre-push' "$T/err")" = 1 ]; then ok "no default branch known: one line from the hook"
else not_ok "no default branch known: one line from the hook" "$(cat "$T/err")"; fi

finish
