#!/usr/bin/env bash
# regression.history counts only the versions someone gated (issue 32, item
# 4; memgate(1), REGRESSIONS AND HISTORY): a version of the base's report
# counts when, at its commit, the manifest pins its bytes, its identity is
# the policy's, and, with provenance required, the manifest's signature
# verifies under the base's allowed signers.  The issue's case: signed,
# pinned measurements, then a rebase-merged "docs" pull request whose
# commits edit the report without pinning or signing it, then a signed
# +39 % peak regression.  The poisoned versions are skipped and counted, and
# the check decides as on the same history without them.
. "$(dirname "$0")/lib.sh"

need_ssh_keygen
ssh_key runner

# report DIR CHECKPOINT-PEAK [WORKLOAD]: three candidates.
report() {
	cat >"$1/$REPORT_PATH" <<JSON
{
  "workload_id": "${3:-train}",
  "hardware_id": "gpu-a",
  "candidates": [
    { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
    { "name": "checkpoint", "peak_memory_mb": $2, "samples_per_s": 8.0, "eval_loss": 2.0 },
    { "name": "hybrid", "peak_memory_mb": 60000, "samples_per_s": 9.0, "eval_loss": 2.0 }
  ]
}
JSON
}

# measure DIR PEAK: what the GPU runner does: the report, a manifest pinning
# it, signed, committed.
measure() {
	report "$1" "$2"
	write_manifest "$1"
	rm -f "$1/$MANIFEST_PATH.sig"
	ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$1/$MANIFEST_PATH" 2>/dev/null
	commit_all "$1" "measure $2"
}

# history DIR POISON: five signed measurements; with POISON, a docs pull
# request rebase-merged onto main whose three commits edit the report
# (higher peaks) without pinning or signing it; then the pull request "pr": a signed +39 % peak regression.
history() {
	local dir=$1 p
	mkdir -p "$dir/benchmarks/results" "$dir/.memgate" "$dir/docs"
	g init -q "$dir"
	cat >"$dir/.memgate.yml" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 90000
regression:
  covers: all
  max_peak_increase_pct: 10
  history: 5
provenance:
  allowed_signers: .memgate/allowed_signers
YAML
	printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
		>"$dir/.memgate/allowed_signers"
	for p in 50000 50500 49500 50200 49800; do
		measure "$dir" "$p"
	done
	if [ "$2" = poison ]; then
		for p in 70000 71000 72000; do
			report "$dir" "$p"
			echo "docs $p" >>"$dir/docs/README.md"
			commit_all "$dir" "docs: $p"
		done
		# the docs pull request's last commit leaves the report alone
		echo "docs end" >>"$dir/docs/README.md"
		commit_all "$dir" "docs: end"
	fi
	g -C "$dir" checkout -q -b pr
	measure "$dir" 69500
	g -C "$dir" checkout -q main
}

history "$T/clean" clean
history "$T/poisoned" poison

# The old reading: the poisoned medians (71000) hid the regression.
mg check -C "$T/poisoned" --rev pr --policy-rev main --format json
expect_code 1 "the signed +39 % regression fails on the poisoned history"
expect_field decision '"tune"'
expect_field regression.regressed.0.candidate '"checkpoint"'
expect_field regression.regressed.0.base '50000'
expect_field regression.history.used '5'
expect_field regression.history.skipped '0'
expect_field regression.history.skipped_for.not_pinned '3'
expect_field regression.history.skipped_for.identity '0'
expect_field regression.history.skipped_for.unsigned '0'
cp "$T/out" "$T/poisoned.json"

mg check -C "$T/clean" --rev pr --policy-rev main --format json
expect_code 1 "the signed +39 % regression fails on the clean history"
expect_field regression.history.skipped_for.not_pinned '0'
cp "$T/out" "$T/clean.json"

# The same decision and outputs but for the skip counts, the notes that
# say them and the commit ids (the two histories have different commits).
same_record() {
	python3 - "$T/clean.json" "$T/poisoned.json" <<'PY'
import json, re, sys
def norm(path):
    d = json.load(open(path))
    h = d["regression"]["history"]
    h.pop("skipped_for"); h.pop("commits"); h.pop("commits_visited"); h.pop("base_commit")
    d.pop("base")   # the base commit itself: its report is the last docs edit
    def ids(x):
        if isinstance(x, dict):
            return {k: ids(v) for k, v in x.items()}
        if isinstance(x, list):
            return [ids(v) for v in x]
        if isinstance(x, str):
            return re.sub(r'\b[0-9a-f]{7,40}\b', 'ID', x)
        return x
    d = ids(d)
    d["notes"] = [n for n in d.get("notes", []) if "skipped:" not in n]
    return d
a, b = norm(sys.argv[1]), norm(sys.argv[2])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(k, json.dumps(a.get(k))[:300], "|", json.dumps(b.get(k))[:300])
    sys.exit(1)
PY
}
if out=$(same_record); then ok "the poisoned history decides as the clean one"
else not_ok "the poisoned history decides as the clean one" "$out"; fi

# The text says how many were skipped and why.
mg check -C "$T/poisoned" --rev pr --policy-rev main
expect_code 1 "text: exit 1"
expect_out "regression.history: 8 versions of '$REPORT_PATH', 3 skipped: 3 not pinned by the manifest" \
	"text: the skipped versions and why"

# Pinned but unsigned while provenance is required, and pinned and signed
# but measured on another workload: skipped, each for its reason.
g -C "$T/clean" checkout -q main
report "$T/clean" 90000
write_manifest "$T/clean"
rm -f "$T/clean/$MANIFEST_PATH.sig"
commit_all "$T/clean" "measure without signing"
report "$T/clean" 90000 other
write_manifest "$T/clean"
ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$T/clean/$MANIFEST_PATH" 2>/dev/null
commit_all "$T/clean" "measure another workload"
measure "$T/clean" 50100
g -C "$T/clean" checkout -q -b pr2
measure "$T/clean" 69500
mg check -C "$T/clean" --rev pr2 --policy-rev main --format json
expect_code 1 "unsigned and other-workload versions skipped: the regression fails"
expect_field regression.history.skipped_for.unsigned '1'
expect_field regression.history.skipped_for.identity '1'
expect_field regression.history.used '5'
expect_field regression.regressed.0.base '50100'
mg check -C "$T/clean" --rev pr2 --policy-rev main
expect_out "regression.history: 7 versions of '$REPORT_PATH', 2 skipped: 1 measured on another workload or hardware, 1 unsigned" \
	"text: the skipped versions and why"

# The allowed signers are read once a check, for the manifest's signature
# and every version of the history alike: an uncommitted edit to them is
# warned about once, and the committed file is what decides.
echo "# an edit" >>"$T/clean/.memgate/allowed_signers"
mg check -C "$T/clean" --rev pr2 --policy-rev main --format json
expect_code 1 "an uncommitted edit to the allowed signers decides nothing"
expect_field regression.history.used '5'
n=$(grep -c "'.memgate/allowed_signers' has uncommitted changes" "$T/err")
if [ "$n" = 1 ]; then ok "the uncommitted allowed signers are warned about once"; else
	not_ok "the uncommitted allowed signers are warned about once" "$n warnings: $(cat "$T/err")"; fi
g -C "$T/clean" checkout -q -- .memgate/allowed_signers
finish
