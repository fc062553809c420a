#!/usr/bin/env bash
# Beyond pass/fail: exact tipping points, measurement noise, the trade-off
# front and exchange rates, and the Mermaid chart, on the real reports and
# on reports with runs.
. "$(dirname "$0")/lib.sh"

R=$FIX/reports
E=$FIX/e2e
P=$FIX/policies

# The issue's worked example: the real flat report, cap 11200, min saving 512.
# checkpoint's saving is 9782.74 - 9450.76 = 331.97999999999956 in doubles,
# so that is the exact tipping value; there checkpoint is the only feasible
# candidate (baseline saves 0, hybrid 328.1, offload misses 1 samples/s), and
# with no sensitivity scenarios the decision becomes accept.
make_gate_repo "$T/real" "$P/real-11200.yml" "$R/76_real_gpu_memory.flat.json"
mg check -C "$T/real" --format json
expect_code 1 "real report: tune"
expect_field insight.tipping_points.2.threshold '"min_memory_saving_mb"'
expect_field insight.tipping_points.2.current 512
expect_field insight.tipping_points.2.lower.value 331.97999999999956
expect_field insight.tipping_points.2.lower.rounded 331.98
expect_field insight.tipping_points.2.lower.decision '"accept"'
expect_field insight.tipping_points.2.lower.reason '"selection_stable_across_thresholds"'
expect_field insight.tipping_points.2.lower.selected_candidate '"checkpoint"'
expect_field insight.tipping_points.2.higher.found false
# the cap: just under checkpoint's peak nothing passes every hard limit
expect_field insight.tipping_points.0.lower.value 9450.759999999998
expect_field insight.tipping_points.0.lower.decision '"reject"'
expect_field insight.tipping_points.0.lower.reason '"no_candidate_meets_base_budget"'
# the samples/s floor: lowered to offload's 0.533, offload (lowest peak) is the near miss
expect_field insight.tipping_points.1.lower.value 0.533
expect_field insight.tipping_points.1.lower.selected_candidate '"offload"'
expect_field insight.tipping_points.1.higher.value 1.7610000000000001
# the front and the exchange rates: hybrid is dominated by checkpoint
expect_field insight.front.names '["baseline","checkpoint","offload"]'
expect_field evaluations.3.pareto '"dominated"'
expect_field evaluations.3.dominated_by_index 1
expect_field evaluations.1.mb_saved_per_pct_throughput 26.893057258064488
expect_field evaluations.0.throughput_free '"free"'
expect_field evaluations.1.noise null
expect_field insight.noise.candidates_with_runs 0
mg check -C "$T/real"
expect_out "min_memory_saving_mb 512: lower: at 331.98 (exact 331.97999999999956): accept (selection_stable_across_thresholds), selected checkpoint; higher: no change" "text: the worked example's tipping point"
expect_out "noise: no candidate has runs (single measurements): no noise bands" "text: no runs, no bands"
expect_out "hybrid dominated by checkpoint" "text: the dominated candidate names its dominator"
expect_out "checkpoint 26.8931 MB per 1% throughput" "text: exchange rate"

# Check the tipping value by deciding there: 331.98 still tunes, the exact double accepts.
for v in 331.98 331.97999999999956; do
	sed "s/min_memory_saving_mb: 512/min_memory_saving_mb: $v/" "$P/real-11200.yml" >"$T/real/.memgate.yml"
	commit_all "$T/real" "floor $v"
	mg check -C "$T/real" --format json
	case $v in
	331.98) expect_field decision '"tune"'; expect_field reason '"memory_saving_below_meaningful_threshold"' ;;
	*) expect_field decision '"accept"'; expect_field selected_candidate '"checkpoint"'
	   expect_field insight.tipping_points.2.higher.value 331.9799999999996
	   expect_field insight.tipping_points.2.higher.decision '"tune"' ;;
	esac
done

# With the chapter's grid (cap x samples/s), the same tipping value makes
# checkpoint the winner, but min_samples_per_s 2.0 leaves no winner: tune.
make_gate_repo "$T/grid" "$E/real-flat-11200.yml" "$R/76_real_gpu_memory.flat.json"
mg check -C "$T/grid" --format json
expect_field insight.tipping_points.2.lower.value 331.97999999999956
expect_field insight.tipping_points.2.lower.decision '"tune"'
expect_field insight.tipping_points.2.lower.reason '"selection_is_threshold_sensitive"'
expect_field insight.tipping_points.2.lower.selected_candidate '"checkpoint"'
expect_field insight.tipping_points.5.scope '"sensitivity.grid"'
expect_field insight.tipping_points.5.threshold '"memory_cap_mb"'

# Every real report: the record carries the insight and the summary a chart.
for pair in "76_real_gpu_memory.flat.json real-flat-11200.yml" \
	    "76_real_gpu_memory_v1.nested.json real-flat-11200.yml" \
	    "76_real_gpu_memory_bf16_seq1024.flat.json real-bf16-11200.yml"; do
	set -- $pair
	make_gate_repo "$T/all-$1" "$E/$2" "$R/$1"
	mg check -C "$T/all-$1" --format json --summary "$T/sum-$1.md"
	expect_field insight.tipping_points_evaluated true
	expect_field insight.front.complete true
	if grep -q '^```mermaid$' "$T/sum-$1.md" && grep -q '^xychart-beta$' "$T/sum-$1.md" &&
	   grep -q '### Tipping points' "$T/sum-$1.md" && grep -q '### Trade-off front' "$T/sum-$1.md"; then
		ok "$1: summary has tipping points, the front and a chart"
	else
		not_ok "$1: summary lacks the insight sections"
	fi
done

# Noise: checkpoint's saving band [250, 750] holds the 400 MB floor.
make_gate_repo "$T/noise" "$E/runs-noise-warn.yml" "$R/runs-noise.json"
mg check -C "$T/noise" --format json
expect_code 0 "noise warn: accept passes"
expect_field decision '"accept"'
expect_field evaluations.1.noise.bands.peak_memory_mb '[9150,9450]'
# memgate-decision/v3 lists the measured metrics' bands only: the saving's
# [250, 750] follows from the peak's and the baseline's.
expect_field evaluations.1.noise.bands.memory_saving_mb '<missing>'
expect_field evaluations.0.noise.bands.peak_memory_mb '[9700,9900]'
# The same decision in the form memgate-decision/v2 wrote (cJSON_Print's
# layout, the derived bands too) is the same record: an upgrade re-records
# nothing.
python3 -c 'import json, sys
r = json.load(sys.stdin)
r["schema_version"] = "memgate-decision/v2"
b = r["evaluations"][1]["noise"]["bands"]
b["memory_saving_mb"] = [250, 750]
b["throughput_ratio"] = [0.9, 0.9]
json.dump(r, open(sys.argv[1], "w"), indent="\t")' "$T/v2.json" <"$T/out"
cp "$T/v2.json" "$T/v2.before"
mg record -C "$T/noise" --out "$T/v2.json"
expect_code 0 "re-recording over a v2 record of the same decision"
expect_err "unchanged" "says the v2 record is unchanged"
if cmp -s "$T/v2.json" "$T/v2.before"; then ok "the v2 record is untouched"; else not_ok "the v2 record is untouched"; fi
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r["evaluations"][1]["noise"]["bands"]["peak_memory_mb"] = [9150, 9451]
json.dump(r, open(sys.argv[1], "w"), indent="\t")' "$T/v2.json"
mg record -C "$T/noise" --out "$T/v2.json"
expect_code 2 "a v2 record whose measured band differs is another record"
expect_err "write-once" "says records are write-once"
mg check -C "$T/noise" --format json
expect_field evaluations.1.noise.within_noise '["min_memory_saving_mb"]'
expect_field evaluations.2.noise null
expect_field insight.noise.candidates_with_runs 2
expect_err "the selected candidate checkpoint is within measurement noise on min_memory_saving_mb" "noise warn: a warning"
cp "$E/runs-noise-tune.yml" "$T/noise/.memgate.yml"
commit_all "$T/noise" "noise: tune"
mg check -C "$T/noise" --format json
expect_code 1 "noise tune: tune fails the gate"
expect_field decision '"tune"'
expect_field reason '"margin_within_measurement_noise"'
expect_field next_action '"collect_more_repeats"'
expect_field selected_candidate '"checkpoint"'
# at the band's low end (250) all of checkpoint's runs pass: accept again
expect_field insight.tipping_points.2.lower.value 250
expect_field insight.tipping_points.2.lower.decision '"accept"'
sed 's/noise: tune/noise: always/' "$E/runs-noise-tune.yml" >"$T/noise/.memgate.yml"
commit_all "$T/noise" "noise: bad"
mg check -C "$T/noise"
expect_code 2 "noise: an unknown mode is an error"
expect_err ".memgate.yml:15:10: 'evidence.noise' must be 'warn' or 'tune', got 'always'" "noise: the error names the line"

# The trade-off target: 26.89 MB per 1% is under 30: tune, never reject.
make_gate_repo "$T/trade" "$E/real-flat-trade-off.yml" "$R/76_real_gpu_memory.flat.json"
mg check -C "$T/trade" --format json
expect_code 1 "trade-off floor: tune"
expect_field decision '"tune"'
expect_field reason '"trade_off_below_floor"'
expect_field selected_candidate '"checkpoint"'
expect_field evaluations.1.reasons '["trade_off_below_floor"]'
expect_field insight.tipping_points.3.threshold '"min_mb_saved_per_pct_throughput"'
expect_field insight.tipping_points.3.lower.value 26.893057258064488
expect_field insight.tipping_points.3.lower.decision '"accept"'
sed 's/min_mb_saved_per_pct_throughput: 30/min_mb_saved_per_pct_throughput: 20/' \
	"$E/real-flat-trade-off.yml" >"$T/trade/.memgate.yml"
printf 'sensitivity:\n  stricter:\n    - { min_mb_saved_per_pct_throughput: 30 }\n' >>"$T/trade/.memgate.yml"
commit_all "$T/trade" "floor 20, stricter 30"
mg check -C "$T/trade" --format json
expect_field sensitivity.scenarios.0.overrides.min_mb_saved_per_pct_throughput 30
expect_field sensitivity.scenarios.0.best_index null
expect_field reason '"selection_is_threshold_sensitive"'

# A hostile candidate name reaches the chart only as a safe label.
mkdir -p "$T/hostile"
python3 - "$R/76_real_gpu_memory.flat.json" "$T/hostile.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r['candidates'][1]['name'] = 'ck"]\n%%{init: {"theme":"dark"}}%%\n```\n</script>'
json.dump(r, open(sys.argv[2], 'w'))
PY
make_gate_repo "$T/hostile" "$P/real-11200.yml" "$T/hostile.json"
mg check -C "$T/hostile" --format json --summary "$T/hostile.md"
if grep -q '%%' "$T/hostile.md"; then not_ok "hostile name: no %% reaches the summary"; else ok "hostile name: no %% reaches the summary"; fi
if [ "$(grep -c '^```' "$T/hostile.md")" = 4 ]; then ok "hostile name: the code blocks stay closed"; else not_ok "hostile name: fence count" "$(grep -n '^```' "$T/hostile.md")"; fi
expect_field selected_candidate '"ck\"]\n%%{init: {\"theme\":\"dark\"}}%%\n```\n</script>"'
if grep -qF '"2 ck___ __init_ __theme___dark_____ ___...' "$T/hostile.md" ||
   grep -qF '"2 ck__' "$T/hostile.md"; then ok "hostile name: charted as a safe label"; else not_ok "hostile name: label" "$(grep x-axis "$T/hostile.md")"; fi

# The charts render in Mermaid (headless Chromium), when both are installed.
for md in "$T/sum-76_real_gpu_memory.flat.json.md" "$T/hostile.md"; do
	out=$("$SRC/tests/render-mermaid" "$md" 2>&1); rc=$?
	if [ $rc = 77 ]; then echo "ok - # SKIP mermaid render: $out"
	elif [ $rc = 0 ]; then ok "mermaid renders $(basename "$md"): $(echo "$out" | tr '\n' ' ')"
	else not_ok "mermaid renders $(basename "$md")" "$out"; fi
done

finish
