#!/usr/bin/env bash
# Evidence bound to its place and time (issue 32, items 6 and 7).
# Place: model A's signed manifest copied over model B's (the same
# workload and hardware pins) no longer passes B on A's numbers: the
# manifest names A's report while B's is still there
# (evidence_out_of_place); a root policy whose manifest switches to another
# report is refused the same way, and a report moved with git mv is not.
# Time: without evidence.inputs, a pull request that restores an older
# commit's signed manifest and report (measured on other code) is refused
# (measured_commit_behind_base); a new measurement passes; with
# evidence.inputs a revert of both code and evidence stays green; in a
# shallow clone that lacks the commits between the measured commits the
# check fails closed and says to fetch.  Provenance without
# evidence.inputs gets a warning saying what that leaves open.
. "$(dirname "$0")/lib.sh"

need_ssh_keygen
E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
ssh_key runner
signers() {
	mkdir -p "$1/.memgate"
	printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
		>"$1/.memgate/allowed_signers"
}

# --- place: A's signed manifest over B's ---------------------------------
mono=$T/mono
make_monorepo "$mono"
A=models/llm-a/.memgate.yml
B=models/llm-b/train.memgate.yml
signers "$mono"
for p in "$A" "$B"; do
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n  require: true\n' >>"$mono/$p"
done
# B's own measurement fails its budget: its checkpoint is over the cap
sed -i 's|"peak_memory_mb": 9454.64|"peak_memory_mb": 11954.64|' "$mono/models/llm-b/results/76_report.json"
(cd "$mono/models/llm-b" && "$MEMGATE" manifest --report results/76_report.json \
	--out results/75_manifest.json --force) >/dev/null 2>&1
for p in "$A" "$B"; do
	"$MEMGATE" sign -C "$mono" --policy "$p" --key "$T/runner" >/dev/null 2>&1 ||
		not_ok "memgate sign $p"
done
commit_all "$mono" "signed evidence for both models"
base=$(g -C "$mono" rev-parse HEAD)
mg check -C "$mono" --policy "$B" --format json
expect_code 1 "B fails on its own numbers"
expect_field provenance.verified 'true'
g -C "$mono" checkout -q -b copy
cp "$mono/models/llm-a/results/75_manifest.json" "$mono/models/llm-b/results/75_manifest.json"
cp "$mono/models/llm-a/results/75_manifest.json.sig" "$mono/models/llm-b/results/75_manifest.json.sig"
commit_all "$mono" "B's evidence is A's"
mg check -C "$mono" --policy "$B" --policy-rev "$base" --format json --json "$T/copy.json"
expect_code 1 "A's signed manifest over B's no longer passes B"
expect_field decision '"reject"' "$T/copy.json"
expect_field evidence.issues '["evidence_out_of_place"]' "$T/copy.json"
expect_field provenance.verified 'true' "$T/copy.json"
mg check -C "$mono" --policy "$B" --policy-rev "$base"
expect_out "  models/llm-b/results/75_manifest.json:3:13: the manifest names the report 'models/llm-a/results/76_report.json' where the base's named 'models/llm-b/results/76_report.json', and the change did not move that file there: evidence from another place (another model's) is not this policy's; pin the policy's own report, or move the file (git mv) in the same change [evidence_out_of_place]" \
	"the text names both reports and why"
mg check -C "$mono" --policy "$A" --policy-rev "$base" --format json
expect_field evidence.issues '[]'

# --- place: a root policy switches reports; a git mv is no switch --------
repo=$T/root
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
base=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" checkout -q -b switch
cp "$repo/$REPORT_PATH" "$repo/benchmarks/results/other.json"
(cd "$repo" && "$MEMGATE" manifest --worktree --report benchmarks/results/other.json --out "$MANIFEST_PATH" --force) >/dev/null 2>&1
commit_all "$repo" "pin another report, the base's still there"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 1 "another report while the base's is still there"
expect_field evidence.issues '["evidence_out_of_place"]'
mg check -C "$repo" --policy-rev "$base"
expect_out "the manifest names the report 'benchmarks/results/other.json' where the base's named '$REPORT_PATH', and the change did not move that file there" \
	"the text names both reports"
g -C "$repo" checkout -q -b move "$base"
g -C "$repo" mv "$REPORT_PATH" benchmarks/results/moved.json
(cd "$repo" && "$MEMGATE" manifest --worktree --report benchmarks/results/moved.json --out "$MANIFEST_PATH" --force) >/dev/null 2>&1
commit_all "$repo" "move the report"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 0 "a report moved with git mv is in place"
expect_field evidence.issues '[]'

# --- time: restored older signed evidence --------------------------------
repo=$T/time
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
signers "$repo"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n  require: true\n' >>"$repo/.memgate.yml"
echo "v1" >"$repo/train.py"
commit_all "$repo" "code v1"
measure() {
	(cd "$repo" && "$MEMGATE" manifest --report "$REPORT_PATH" --out "$MANIFEST_PATH" \
		--measured-commit HEAD --force && "$MEMGATE" sign --key "$T/runner") >/dev/null 2>&1 ||
		not_ok "measure and sign"
	commit_all "$repo" "${1:-evidence}"
}
measure "evidence of v1"
old=$(g -C "$repo" rev-parse HEAD)
echo "v2" >"$repo/train.py"
commit_all "$repo" "code v2"
sed -i 's|"peak_memory_mb": 9454.64|"peak_memory_mb": 10954.64|' "$repo/$REPORT_PATH"
measure "evidence of v2: worse"
base=$(g -C "$repo" rev-parse HEAD)
mg check -C "$repo"
expect_out "provenance without evidence.inputs: a signature shows who measured, not which code" \
	"provenance without evidence.inputs warns what it leaves open"
g -C "$repo" checkout -q -b restore
g -C "$repo" checkout "$old" -- "$REPORT_PATH" "$MANIFEST_PATH" "$MANIFEST_PATH.sig"
commit_all "$repo" "restore the old, better evidence"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 1 "restored older signed evidence is refused"
expect_field evidence.issues '["measured_commit_behind_base"]'
expect_field next_action '"measure_again"'
expect_field evidence.behind_base.ancestry_known 'true'
expect_field provenance.verified 'true'
mg check -C "$repo" --policy-rev "$base"
expect_out "the measured commit $(g -C "$repo" rev-parse --short=7 "$old~1") does not descend from the base's measured commit" \
	"the text names both measured commits"
g -C "$repo" checkout -q -b fresh "$base"
echo "v3" >"$repo/train.py"
commit_all "$repo" "code v3"
measure "evidence of v3"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 0 "a new measurement descends from the base's"
expect_field evidence.issues '[]'

# shallow: the commits between the measured commits are missing
g clone -q --depth 1 --no-single-branch "file://$repo" "$T/shallow"
g -C "$T/shallow" fetch -q --depth 1 origin "$(g -C "$repo" rev-parse "$base~1")" 2>/dev/null
g -C "$T/shallow" checkout -q origin/fresh
mg check -C "$T/shallow" --policy-rev origin/main --fail-on reject --format json
expect_code 1 "a shallow clone that cannot tell the ancestry fails closed"
expect_field evidence.behind_base.ancestry_known 'false'
mg check -C "$T/shallow" --policy-rev origin/main
expect_out "cannot be told to descend from the base's measured commit" "the shallow case says why"
expect_out "fetch them (git fetch --unshallow origin, or fetch-depth: 0)" "and to fetch"
g -C "$T/shallow" fetch -q --unshallow origin
mg check -C "$T/shallow" --policy-rev origin/main --fail-on reject
expect_code 0 "fetched, it decides as the full clone"

# with evidence.inputs: a revert of code and evidence stays green
g -C "$repo" checkout -q main
printf 'evidence:\n  baseline: baseline\n  inputs: [train.py]\n' >/dev/null
python3 - "$repo/.memgate.yml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("evidence:\n", "evidence:\n  inputs: [train.py]\n", 1) if "evidence:\n" in s else s + "evidence:\n  inputs: [train.py]\n"
open(p, "w").write(s)
PY
commit_all "$repo" "evidence.inputs"
base=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" checkout -q -b revert
g -C "$repo" checkout "$old" -- train.py "$REPORT_PATH" "$MANIFEST_PATH" "$MANIFEST_PATH.sig"
commit_all "$repo" "revert to v1, code and evidence"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 0 "with evidence.inputs a revert of code and evidence stays green"
expect_field evidence.issues '[]'
g -C "$repo" checkout -q -b restore-only "$base"
g -C "$repo" checkout "$old" -- "$REPORT_PATH" "$MANIFEST_PATH" "$MANIFEST_PATH.sig"
commit_all "$repo" "restore the evidence only"
mg check -C "$repo" --policy-rev "$base" --fail-on reject --format json
expect_code 1 "with evidence.inputs restored evidence of other code is stale"
expect_field evidence.issues '["evidence_stale"]'

finish
