#!/usr/bin/env bash
# Renaming a model needs no GPU (issue 35, item 1): `git mv models/a
# models/b` with the policy's paths updated is gated by the base's policy at
# its new place, the manifest's paths and the base policy's evidence.inputs
# read through the rename, so the evidence stays fresh and every view names
# the new paths; a rename that also changes the code or the evidence is
# judged as a change.
. "$(dirname "$0")/lib.sh"

FLAT=$FIX/reports/76_real_gpu_memory.flat.json
R=$T/r
g init -q "$R"
mkdir -p "$R/models/a/src" "$R/models/a/bench"
printf 'print("train")\n' >"$R/models/a/src/train.py"
commit_all "$R" "model a's code"
M=$(g -C "$R" rev-parse HEAD)
cp "$FLAT" "$R/models/a/bench/76_real_gpu_memory.json"
sed -e 's|^manifest: .*|manifest: models/a/bench/75_input_manifest.json|' \
    -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' \
    -e '/^  grid:/,/^    min_samples_per_s:/d' "$FIX/demo/memgate.yml" >"$R/models/a/.memgate.yml"
printf '  inputs:\n    - "models/a/src/**"\n' >>"$R/models/a/.memgate.yml.tmp"
sed -i '/^  baseline: baseline$/r '"$R/models/a/.memgate.yml.tmp" "$R/models/a/.memgate.yml"
rm "$R/models/a/.memgate.yml.tmp"
"$MEMGATE" manifest -C "$R" --worktree --measured-commit "$M" \
	--report models/a/bench/76_real_gpu_memory.json --out "$R/models/a/bench/75_input_manifest.json" \
	>/dev/null 2>&1
commit_all "$R" "model a's evidence"
g -C "$R" branch -q -M main
mg check -C "$R" --all
expect_code 0 "main: model a accepts, fresh"

# rename DIR BRANCH: models/a -> models/b on BRANCH, the policy's paths updated
rename() {
	g -C "$R" checkout -q -b "$1" main
	g -C "$R" mv models/a models/b
	sed -i 's|models/a/|models/b/|g' "$R/models/b/.memgate.yml"
}

# --- the rename alone: the manifest still names models/a/... -----------------
rename moved
commit_all "$R" "rename model a to b"
mg check -C "$R" --all --policy-rev main --format json
expect_code 0 "a renamed model is gated without a new measurement"
expect_field policies.0.record.decision '"accept"'
expect_field policies.0.record.evidence.issues '[]'
expect_field policies.0.record.inputs.report.path '"models/b/bench/76_real_gpu_memory.json"'
expect_field policies.0.record.evidence.stale_inputs '[]'
mg check -C "$R" --all --policy-rev main
expect_out "the change moves 'models/a/.memgate.yml' to 'models/b/.memgate.yml'" "says the policy moved"
expect_out "the manifest names 'models/a/bench/76_real_gpu_memory.json', which the change moves to 'models/b/bench/76_real_gpu_memory.json' with its policy: read there" \
	"says the manifest's report was followed"
mg check -C "$R" --all --policy-rev main --format github
if grep -q "file=models/a/" "$T/out"; then
	not_ok "no annotation names the old, deleted path" "$(grep "file=models/a/" "$T/out" | head -3)"
else
	ok "no annotation names the old, deleted path"
fi
g -C "$R" checkout -q main

# --- re-pinned with the original measured commit -----------------------------
rename repinned
"$MEMGATE" manifest -C "$R" --worktree --force --measured-commit "$M" \
	--report models/b/bench/76_real_gpu_memory.json --out "$R/models/b/bench/75_input_manifest.json" \
	>/dev/null 2>&1
commit_all "$R" "rename and re-pin with the original measured commit"
mg check -C "$R" --all --policy-rev main --format json
expect_code 0 "re-pinned with --measured-commit of the measurement: still fresh"
expect_field policies.0.record.evidence.issues '[]'
g -C "$R" checkout -q main

# --- a rename that also changes the code ---------------------------------------
rename code
echo "# faster" >>"$R/models/b/src/train.py"
commit_all "$R" "rename, and change the code"
mg check -C "$R" --all --policy-rev main --format json
expect_code 1 "a rename that changes the measured code: stale"
expect_field policies.0.record.evidence.issues '["evidence_stale"]'
expect_field policies.0.record.evidence.stale_inputs '["models/a/src/train.py","models/b/src/train.py"]'
g -C "$R" checkout -q main

rename added
echo "import os" >"$R/models/b/src/data.py"
commit_all "$R" "rename, and add code"
mg check -C "$R" --all --policy-rev main --format json
expect_code 1 "a rename that adds code under the model: stale"
expect_field policies.0.record.evidence.stale_inputs '["models/b/src/data.py"]'
g -C "$R" checkout -q main

# --- a rename that also changes the report ------------------------------------
rename report
sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 9440.76|' "$R/models/b/bench/76_real_gpu_memory.json"
commit_all "$R" "rename, and edit the report"
mg check -C "$R" --all --policy-rev main --format json
expect_code 1 "a rename that edits the report: its pin no longer holds"
expect_field policies.0.record.evidence.issues '["report_hash_mismatch"]'
g -C "$R" checkout -q main

[ "$FAILED" -eq 0 ]
