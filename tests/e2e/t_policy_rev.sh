#!/usr/bin/env bash
# --policy-rev: on a pull request the policy comes from the base commit, so a
# change cannot loosen its own budget; memgate says what the change alters.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json

make_gate_repo "$T/pr" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/pr
g -C "$repo" tag base
# The head commit loosens the budget so that checkpoint would be accepted.
cat >"$repo/.memgate.yml" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: pressure
  hardware_id: NVIDIA GeForce RTX 5070 Ti Laptop GPU
  model_id: Qwen/Qwen2.5-0.5B-Instruct
budget:
  memory_cap_mb: 20000
  min_samples_per_s: 1.0
  min_memory_saving_mb: 100
  min_throughput_ratio: 0.70
quality:
  max_relative_eval_loss: 0.02
gate:
  fail_on: [reject, tune]
YAML
commit_all "$repo" "loosen the budget"

mg check -C "$repo" --format json
expect_code 0 "the head's own policy would accept"
expect_field decision '"accept"'

mg check -C "$repo" --policy-rev base --format json
expect_code 1 "the base policy decides"
expect_field decision '"tune"'
expect_field inputs.policy.rev "\"$(g -C "$repo" rev-parse base)\""
expect_field inputs.rev "\"$(g -C "$repo" rev-parse HEAD)\""
expect_field policy_changes.0.key '"budget.memory_cap_mb"'
expect_field policy_changes.0.effect '"loosens"'
expect_field policy_changes.1.key '"budget.min_memory_saving_mb"'
mg check -C "$repo" --policy-rev base
expect_out "policy change: budget.memory_cap_mb was 11200 at the policy revision, is 20000 at the evidence revision (loosens the budget)" "names the loosened cap"
expect_out "policy change: budget.min_memory_saving_mb was 512 at the policy revision, is 100 at the evidence revision (loosens the budget)" "names the loosened saving floor"

# A tightening change is reported as such.
sed -i 's/min_memory_saving_mb: 100/min_memory_saving_mb: 1000/' "$repo/.memgate.yml"
commit_all "$repo" "tighten"
mg check -C "$repo" --policy-rev base
expect_out "budget.min_memory_saving_mb was 512 at the policy revision, is 1000 at the evidence revision (tightens the budget)" "names a tightened floor"

finish
