#!/usr/bin/env bash
# The README's example policy is one memgate actually runs: taken from the
# README as it is, committed with the real stage-76 report, it reads, its
# pins match the report and it decides (tune, like the demo).
. "$(dirname "$0")/lib.sh"

# The first ```yaml block after the policy reference heading.
awk '/^## The policy/ { on = 1; next } on && /^```yaml$/ { take = 1; next }
     take && /^```$/ { exit } take' "$SRC/README.md" >"$T/readme-policy.yml"
if grep -q '^budget:' "$T/readme-policy.yml"; then ok "the README's policy was extracted"; else not_ok "the README's policy was extracted"; fi

repo=$T/readme
make_gate_repo "$repo" "$T/readme-policy.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
mg check -C "$repo" --format json
expect_code 1 "the README's policy decides (tune fails the gate)"
expect_field evidence.is_applicable true
expect_field evidence.issues '[]'
expect_field decision '"tune"'
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field selected_candidate '"checkpoint"'
expect_field checks_run '["memory_cap_mb","min_samples_per_s","min_memory_saving_mb","min_throughput_ratio","max_eval_loss","max_relative_eval_loss","max_quality_delta"]'
expect_field sensitivity.summary.scenario_count 8
# Every candidate reached the thresholds: no pin or repeat count left them out.
for i in 0 1 2 3; do
	expect_field "evaluations.$i.status" '"rejected"'
done

# The demo's policy runs too (make demo gates it the same way).
make_gate_repo "$T/demo" "$FIX/demo/memgate.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
mg check -C "$T/demo" --format json
expect_code 1 "the demo policy decides"
expect_field evidence.issues '[]'
expect_field decision '"tune"'

finish
