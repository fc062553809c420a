#!/usr/bin/env bash
# memgate manifest (pin a committed report) and memgate record (write-once
# decision records), with --require-approved release gates.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
NESTED=$FIX/reports/76_real_gpu_memory_v1.nested.json

make_gate_repo "$T/m" "$E/real-flat-11200.yml" "$NESTED"
repo=$T/m
sha=$(sha256sum "$NESTED" | cut -d' ' -f1)

mg manifest -C "$repo" --report "$REPORT_PATH"
expect_code 0 "manifest prints a manifest"
cp "$T/out" "$T/manifest.json"
expect_field source.path "\"$REPORT_PATH\"" "$T/manifest.json"
expect_field source.sha256 "\"$sha\"" "$T/manifest.json"
expect_field source.schema_version '"training-memory-benchmark/v1"' "$T/manifest.json"

mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/m.json"
expect_code 0 "manifest --out"
expect_field source.sha256 "\"$sha\"" "$T/m.json"
# A new report committed: the manifest on disk now pins the old one.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9400.0/' "$repo/$REPORT_PATH"
commit_all "$repo" "new report"
newsha=$(sha256sum "$repo/$REPORT_PATH" | cut -d' ' -f1)
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/m.json"
expect_code 2 "manifest refuses to overwrite different content"
expect_err "--force" "says how to overwrite"
expect_field source.sha256 "\"$sha\"" "$T/m.json"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/m.json" --force
expect_code 0 "manifest --force overwrites"
expect_field source.sha256 "\"$newsha\"" "$T/m.json"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/m.json"
expect_code 0 "manifest with identical content is fine"

# A manifest pinning a semantic_id the report lacks: an evidence issue.
cp "$T/m.json" "$repo/$MANIFEST_PATH"
sed -i 's/"schema_version": "training-memory-benchmark\/v1"/"schema_version": "training-memory-benchmark\/v2"/' "$repo/$MANIFEST_PATH"
commit_all "$repo" "v2 manifest"
mg check -C "$repo" --format json
expect_field evidence.issues '["schema_version_mismatch"]'
mg manifest -C "$repo" --report missing.json
expect_code 2 "manifest of a missing report"

# record: write-once.
make_gate_repo "$T/r" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/r
mg record -C "$repo" --out "$T/approved.json"
expect_code 1 "record exits like check"
expect_field decision '"tune"' "$T/approved.json"
cp "$T/approved.json" "$T/approved.before"
echo "# unrelated" >>"$repo/README"
commit_all "$repo" "unrelated change"
mg record -C "$repo" --out "$T/approved.json"
expect_code 1 "re-recording the same evidence"
expect_err "unchanged" "says the record is unchanged"
if cmp -s "$T/approved.json" "$T/approved.before"; then ok "the record file is untouched"; else not_ok "the record file is untouched"; fi
sed -i 's/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' "$repo/.memgate.yml"
commit_all "$repo" "policy change"
mg record -C "$repo" --out "$T/approved.json"
expect_code 2 "a different record is refused"
expect_err "write-once" "says records are write-once"
# A record the previous format wrote (memgate-decision/v1: every scenario's
# feasible indices, no count) of the same decision is the same record (the
# lower saving floor makes candidates feasible in the scenarios).
mg check -C "$repo" --format json --record-feasible-sets
python3 -c 'import json, sys
r = json.load(sys.stdin)
r["schema_version"] = "memgate-decision/v1"
for s in r["sensitivity"]["scenarios"]:
    del s["feasible_count"]
assert any(s["feasible_indices"] for s in r["sensitivity"]["scenarios"])
json.dump(r, open(sys.argv[1], "w"), indent=2)' "$T/v1.json" <"$T/out"
cp "$T/v1.json" "$T/v1.before"
mg record -C "$repo" --out "$T/v1.json"
expect_code 1 "re-recording over a v1 record of the same decision"
expect_err "unchanged" "says the v1 record is unchanged"
if cmp -s "$T/v1.json" "$T/v1.before"; then ok "the v1 record is untouched"; else not_ok "the v1 record is untouched"; fi
sed -i 's/"feasible_indices": \[$/"feasible_indices": [99,/' "$T/v1.json"
mg record -C "$repo" --out "$T/v1.json"
expect_code 2 "a v1 record of another feasible set is refused"
expect_err "write-once" "says records are write-once (v1)"
mg record -C "$repo"
expect_code 2 "record without --out"

# --require-approved: the approved record must match the decision.
APPROVED=benchmarks/results/75_approved.json
pin_approved() { # pin_approved DIR: a manifest pinning the report and the approved record
	cat >"$1/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$(sha256sum "$1/$REPORT_PATH" | cut -d' ' -f1)" },
  "approved_result": { "path": "$APPROVED", "sha256": "$(sha256sum "$1/$APPROVED" | cut -d' ' -f1)" }
}
JSON
}
make_gate_repo "$T/rel" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/rel
mg record -C "$repo" --out "$repo/$APPROVED"
pin_approved "$repo"
commit_all "$repo" "approve"
mg check -C "$repo" --require-approved --fail-on reject --format json
expect_code 0 "approved decision matches"
expect_field decision '"tune"'
expect_field approved.selected_candidate '"checkpoint"'
# Re-recording the same evidence after the record was pinned is a no-op.
cp "$repo/$APPROVED" "$T/pinned.before"
mg record -C "$repo" --out "$repo/$APPROVED"
expect_code 1 "re-recording after pinning exits like check"
expect_err "unchanged" "re-recording after pinning is a no-op"
if cmp -s "$repo/$APPROVED" "$T/pinned.before"; then ok "the pinned record is untouched"; else not_ok "the pinned record is untouched"; fi
# The evidence drifts: hybrid now has the lowest peak; the approved record
# was made for the old report, so the approval is of other evidence (the
# record's report SHA-256 is not the one the manifest pins now).
sed -i 's/"peak_memory_mb": 9454.64/"peak_memory_mb": 8000.0/' "$repo/$REPORT_PATH"
pin_approved "$repo"
commit_all "$repo" "drift"
mg check -C "$repo" --require-approved --fail-on reject --format json
expect_code 1 "drifted evidence fails the release gate"
expect_field decision '"reject"'
expect_field reason '"evidence_not_applicable"'
expect_field evidence.issues '["approval_of_other_evidence"]'
expect_field selected_candidate null

# The seed's own stage-75 record is read as an approved result.
make_gate_repo "$T/seedrec" "$E/real-flat-9600.yml" "$FLAT"
repo=$T/seedrec
cp "$FIX/reports/75_memory_budget_decision_9600.json" "$repo/$APPROVED"
pin_approved "$repo"
commit_all "$repo" "seed approval"
mg check -C "$repo" --require-approved --fail-on reject --format json
expect_code 0 "the seed's stage-75 record approves tune/checkpoint"
expect_field approved.decision '"tune"'
# A tampered approved record.
echo " " >>"$repo/$APPROVED"
commit_all "$repo" "tamper approval"
mg check -C "$repo" --require-approved --format json
expect_field evidence.issues '["approved_result_hash_mismatch"]'
# An approved record missing at the commit is an issue, not an error.
g -C "$repo" rm -q "$APPROVED"
commit_all "$repo" "drop approval"
mg check -C "$repo" --require-approved --format json
expect_code 1 "a missing approved record"
expect_field evidence.issues '["approved_result_missing"]'
# Without approved_result the release gate cannot pass.
make_gate_repo "$T/noappr" "$E/real-flat-11200.yml" "$FLAT"
mg check -C "$T/noappr" --require-approved --format json
expect_field evidence.issues '["approved_result_missing"]'
expect_field reason '"evidence_not_applicable"'

finish
