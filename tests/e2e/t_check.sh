#!/usr/bin/env bash
# memgate check on committed evidence: the real reports' decisions, output
# formats, exit codes and the files written.
. "$(dirname "$0")/lib.sh"

R=$FIX/reports
E=$FIX/e2e

# The three real reports, read from a commit, give the chapter's decision.
for pair in "76_real_gpu_memory.flat.json real-flat-11200.yml" \
	    "76_real_gpu_memory_v1.nested.json real-flat-11200.yml" \
	    "76_real_gpu_memory_bf16_seq1024.flat.json real-bf16-11200.yml"; do
	set -- $pair
	repo=$T/real-$1
	make_gate_repo "$repo" "$E/$2" "$R/$1"
	mg check -C "$repo"
	expect_code 1 "$1: tune fails the gate"
	expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "$1: text names decision and reason"
	expect_out "selected: checkpoint" "$1: text names checkpoint"
	mg check -C "$repo" --format json
	expect_code 1 "$1: json format exits like text"
	expect_field decision '"tune"'
	expect_field reason '"memory_saving_below_meaningful_threshold"'
	expect_field next_action '"test_larger_pressure_or_optimizer_compression"'
	expect_field selected_candidate '"checkpoint"'
	expect_field gate.passed false
	expect_field evidence.is_applicable true
	expect_field inputs.report.path "\"$REPORT_PATH\""
	expect_field inputs.report.sha256 "\"$(sha256sum "$R/$1" | cut -d' ' -f1)\""
	expect_field inputs.rev "\"$(g -C "$repo" rev-parse HEAD)\""
done

# With a 9600 MB cap the baseline is over budget.
make_gate_repo "$T/cap9600" "$E/real-flat-9600.yml" "$R/76_real_gpu_memory.flat.json"
mg check -C "$T/cap9600" --format json
expect_code 1 "cap 9600 still tunes"
expect_field evaluations.0.name '"baseline"'
expect_field evaluations.0.status '"rejected"'
expect_field evaluations.0.reasons '["memory_over_budget","memory_saving_below_floor"]'
expect_field reason '"memory_saving_below_meaningful_threshold"'

# A pinned count compares as a number: batch_size 1.0 is the report's 1.
make_gate_repo "$T/float-pin" "$E/real-flat-11200.yml" "$R/76_real_gpu_memory.flat.json"
sed -i 's/^  model_id: .*/&\n  batch_size: 1.0\n  seq_len: 768.0/' "$T/float-pin/.memgate.yml"
commit_all "$T/float-pin" "pin counts as floats"
mg check -C "$T/float-pin" --format json
expect_code 1 "batch_size 1.0 and seq_len 768.0 pins are read"
expect_field evidence.is_applicable true
expect_field reason '"memory_saving_below_meaningful_threshold"'

repo=$T/real-76_real_gpu_memory.flat.json

# --fail-on replaces the policy's gate.fail_on.
mg check -C "$repo" --fail-on reject
expect_code 0 "--fail-on reject lets tune pass"
mg check -C "$repo" --fail-on reject,tune,accept --format json
expect_code 1 "--fail-on with all three fails"
expect_field gate.fail_on '["accept","tune","reject"]'
mg check -C "$repo" --fail-on maybe
expect_code 2 "--fail-on with an unknown word is a usage error"
expect_err "unknown decision in 'maybe'" "unknown --fail-on word is named"

# --json writes the record atomically, and the same record as --format json.
mg check -C "$repo" --json "$T/record.json"
expect_code 1 "--json with a failing gate"
expect_field decision '"tune"' "$T/record.json"
if ls "$T"/record.json.tmp.* >/dev/null 2>&1; then not_ok "no temporary file left"; else ok "no temporary file left"; fi

# Exit 2 writes nothing.
mg check -C "$repo" --policy missing.yml --json "$T/never.json"
expect_code 2 "a missing policy cannot be decided"
expect_err "missing.yml" "the missing policy is named"
expect_no_file "$T/never.json" "nothing written on exit 2"

# Version and help.
mg version
expect_code 0 "version"
expect_out "memgate " "version prints the name"
for c in check record manifest; do
	mg $c --help
	expect_code 0 "$c --help"
	expect_out "usage: memgate $c" "$c --help prints its usage"
done
mg frobnicate
expect_code 2 "unknown command"
expect_err "unknown command 'frobnicate'" "unknown command is named"
mg check --no-such-option
expect_code 2 "unknown option"

# The seed's own scenario: a handoff report named directly by the policy.
seed=$T/seed
mkdir -p "$seed/benchmarks/results"
g init -q "$seed"
cp "$E/seed-handoff.yml" "$seed/.memgate.yml"
cp "$R/handoff.json" "$seed/benchmarks/results/76_handoff.json"
commit_all "$seed" seed
mg check -C "$seed" --format json
expect_code 0 "the seed scenario is accepted"
expect_field decision '"accept"'
expect_field reason '"selection_stable_across_thresholds"'
expect_field selected_candidate '"checkpoint"'
expect_field evaluations.1.reasons '["throughput_below_floor"]'
expect_err "no SHA-256 is checked" "report: without manifest warns that no hash is checked"

finish
