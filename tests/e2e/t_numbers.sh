#!/usr/bin/env bash
# Numbers that are not plain numbers: each is a clear error or a documented
# reading (memgate(1), NUMBERS), never a silent wrong decision.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# with_peak NAME VALUE: the flat report with checkpoint's peak_memory_mb replaced
with_peak() {
	make_gate_repo "$T/$1" "$E/real-flat-11200.yml" "$FLAT"
	repo=$T/$1
	sed -i "s/\"peak_memory_mb\": 9450.76/\"peak_memory_mb\": $2/" "$repo/$REPORT_PATH"
	write_manifest "$repo"
	commit_all "$repo" "$1"
}

# Not JSON at all: NaN and Infinity literals are malformed JSON (exit 2, position).
for lit in NaN Infinity -Infinity nan; do
	with_peak "lit$lit" "$lit"
	mg check -C "$repo" --json "$T/x.json"
	expect_code 2 "peak $lit is malformed JSON"
	expect_err "$REPORT_PATH:" "the error for $lit names the report and position"
	expect_no_file "$T/x.json" "nothing written for $lit"
done

# Beyond a double: refused at the number (memgate(1), JSON; it was read as
# infinity, an invalid metric), whatever cJSON would make of it.
for v in 1e999 -1e999 1.8e308; do
	with_peak "range$(echo "$v" | tr -c 'a-z0-9' _)" "$v"
	mg check -C "$repo" --json "$T/x.json"
	expect_code 2 "peak $v is refused"
	expect_err "memgate: error: $REPORT_PATH:64:25: number '$v' is out of range (a double holds at most 1.7976931348623157e+308)" \
		"the error for $v names the number's position"
	expect_no_file "$T/x.json" "nothing written for $v"
done

# Any number of digits: rounded to the nearest double, inside an array or
# not (a number of more than 63 characters was read or refused as the
# linked cJSON build did).
long=9450.76000000000000000000000000000000000000000000000000000000000000000000000000000001
with_peak long "$long"
mg check -C "$repo" --format json
expect_field evaluations.1.peak_memory_mb 9450.76   # a peak of ${#long} characters
expect_field reason '"memory_saving_below_meaningful_threshold"'
with_peak longruns "$long, \"runs\": [{\"peak_memory_mb\": $long}, {\"peak_memory_mb\": 9450.760000000000000000000000000000000000000000000000000000000000000000001}]"
mg check -C "$repo" --format json
expect_field evaluations.1.peak_memory_mb 9450.76   # long numbers inside an array

# -0 reads as 0: out of range as a peak, and said and written as 0.
with_peak negzero -0
mg check -C "$repo" --format github
expect_out "checkpoint: peak_memory_mb is 0, not a positive number" "-0 is said as 0"

# Numbers that are read but cannot be used: the candidate is invalid (step 5),
# and so is a peak that is not above 0 (issue 19: -5000 was feasible).
for v in '"9450.76"' true false '[9450.76]' '{"mb": 1}' -5000 0 -0 1e-999; do
	with_peak "bad$(echo "$v" | tr -c 'a-z0-9' _)" "$v"
	mg check -C "$repo" --format json
	expect_code 1 "peak $v is evaluated"
	expect_field evaluations.1.status '"invalid"'
	expect_field evaluations.1.reasons '["missing_or_non_numeric_metric"]'
done

# null counts as absent: also step 5 (peak is always needed).
with_peak null null
mg check -C "$repo" --format json
expect_field evaluations.1.reasons '["missing_or_non_numeric_metric"]'

# The finding says what the value is and what it must be, at the value.
with_peak negative -5000
mg check -C "$repo" --format github
expect_out "::error file=$REPORT_PATH,line=64,col=25,title=memgate%3A missing_or_non_numeric_metric (checkpoint)::checkpoint: peak_memory_mb is -5000, not a positive number" \
	"a negative peak is an evidence issue at its line"
# samples/s must be above 0 and eval loss 0 or above, wherever they are read.
make_gate_repo "$T/rates" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/rates
sed -i -e 's/"samples_per_s": 1.761/"samples_per_s": 0/' \
	-e '/"name": "offload"/,/eval_loss/s/"eval_loss": 12.356503/"eval_loss": -0.5/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" rates
mg check -C "$repo" --format json
expect_field evaluations.1.status '"invalid"'
expect_field evaluations.2.status '"invalid"'
mg check -C "$repo" --format github
expect_out "checkpoint: samples_per_s is 0, not a positive number" "a throughput of 0 is an evidence issue"
expect_out "offload: eval_loss is -0.5, not a non-negative number" "a negative eval loss is an evidence issue"

# Readings that are numbers: a huge integer (beyond 2^53, read as the
# nearest double), an exponent form.
with_peak huge 9007199254740993
mg check -C "$repo" --format json
expect_field evaluations.1.status '"rejected"'
expect_field evaluations.1.reasons '["memory_over_budget","memory_saving_below_floor"]'
with_peak expo 9.45076e3
mg check -C "$repo" --format json
expect_field evaluations.1.peak_memory_mb 9450.76
expect_field reason '"memory_saving_below_meaningful_threshold"'

# In the policy: non-finite and quoted numbers are errors with positions.
make_gate_repo "$T/pol" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/pol
for v in .inf .nan 1e999 "'11200'" true; do
	sed -i "s/^  memory_cap_mb: .*/  memory_cap_mb: $v/" "$repo/.memgate.yml"
	commit_all "$repo" "cap $v"
	mg check -C "$repo"
	expect_code 2 "policy memory_cap_mb $v is refused"
	expect_err ".memgate.yml:10:18:" "the error for $v points at the value"
done

finish
