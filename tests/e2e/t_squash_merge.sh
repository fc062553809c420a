#!/usr/bin/env bash
# A squash-merged pull request (memgate(1), STALE EVIDENCE,
# measured_commit_unknown): the GPU runner measured a commit of the pull
# request's branch; the squash merge puts the same tree on main under
# another commit and the branch is deleted, so a fresh clone of main lacks
# the measured commit.  The server still has it (GitHub keeps
# refs/pull/N/head and serves any commit a ref reaches), so the fix is a
# fetch, not a new measurement: the issue says so and its next action is
# fetch_measured_commit; after the fetch the gate passes on the same
# evidence.
. "$(dirname "$0")/lib.sh"

FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# A gate that passes on its evidence (tune, failing only on reject), whose
# evidence depends on the model code.
POLICY=$T/squash.yml
sed 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$FIX/e2e/real-flat-11200.yml" >"$POLICY"
cat >>"$POLICY" <<'YAML'
evidence:
  inputs:
    - "src/model/**"
YAML

# The origin, as GitHub keeps it: a bare repository that serves a commit
# reachable from any of its refs (refs/pull/* included) by its id.
origin=$T/origin.git
g init -q --bare "$origin"
g -C "$origin" config uploadpack.allowReachableSHA1InWant true

# main: the code and the policy.
dev=$T/dev
mkdir -p "$dev/src/model" "$dev/benchmarks/results"
g init -q "$dev"
echo "attention = 'flash'" >"$dev/src/model/attn.py"
cp "$POLICY" "$dev/.memgate.yml"
commit_all "$dev" "the code"
g -C "$dev" remote add origin "file://$origin"
g -C "$dev" push -q origin main 2>"$T/err"

# The pull request's branch: a change of the model, measured on the GPU
# runner at that commit, then the evidence committed on top of it.
g -C "$dev" checkout -q -b sdpa
echo "attention = 'sdpa'" >"$dev/src/model/attn.py"
commit_all "$dev" "another attention kernel"
measured=$(g -C "$dev" rev-parse HEAD)
cp "$FLAT" "$dev/$REPORT_PATH"
mg manifest -C "$dev" --worktree --report "$REPORT_PATH" --out "$dev/$MANIFEST_PATH" \
	--measured-commit HEAD
expect_code 0 "the runner's manifest pins the measured commit"
commit_all "$dev" "the evidence, measured on the branch"
g -C "$dev" push -q origin sdpa "sdpa:refs/pull/1/head" 2>"$T/err"
mg check -C "$dev"
expect_code 0 "on the branch the evidence is fresh"

# The squash merge: one new commit on main with the branch's tree; the
# branch is deleted, the pull request's ref stays.
g -C "$dev" checkout -q main
g -C "$dev" merge -q --squash sdpa >/dev/null
g -C "$dev" commit -q -m "another attention kernel (#1)"
g -C "$dev" push -q origin main 2>"$T/err"
g -C "$dev" push -q origin --delete sdpa 2>"$T/err"
if [ -z "$(g -C "$origin" branch --contains "$measured")" ]; then
	ok "no branch of the origin holds the measured commit"
else
	not_ok "no branch of the origin holds the measured commit"
fi

# A fresh clone of main (file://, so that only what its refs reach is sent).
clone() {
	rm -rf "$1"
	g clone -q "file://$origin" "$1" 2>"$T/err"
}
repo=$T/main
clone "$repo"
if g -C "$repo" cat-file -e "$measured^{commit}" 2>/dev/null; then
	not_ok "the clone lacks the measured commit"
else
	ok "the clone lacks the measured commit"
fi
mg check -C "$repo"
expect_code 1 "a clone of main without the measured commit fails"
expect_out "evidence: not applicable: measured_commit_unknown" "the issue is measured_commit_unknown"
expect_out "next action: fetch_measured_commit" "the next action is a fetch, not a new measurement"
expect_out "the measured commit ${measured:0:7} is not in this repository: fetch it (git fetch origin $measured;" \
	"the text gives the fetch with the full id"
expect_out "refs/pull/NUMBER/head" "the text names the pull request's ref on GitHub"
expect_out "measure again only if it cannot be fetched" "the text measures again only as the last resort"
mg check -C "$repo" --format json
expect_field evidence.issues '["measured_commit_unknown"]'
expect_field next_action '"fetch_measured_commit"'
mg check -C "$repo" --format github
expect_out "title=memgate%3A measured_commit_unknown::" "the issue is annotated"
expect_out "git fetch origin $measured" "the annotation gives the fetch"

# The fetch the issue advises makes the measured commit known: the squash
# merge kept the measured tree, so the same evidence passes.
g -C "$repo" fetch -q origin "$measured" 2>"$T/err"
code=$?
expect_code 0 "git fetch origin <measured commit> succeeds"
mg check -C "$repo"
expect_code 0 "after the fetch the gate passes on the same evidence"
expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "the evidence decides"
mg check -C "$repo" --format json
expect_field evidence.measured_commit "\"$measured\""
expect_field evidence.issues '[]'

# So does fetching the pull request's ref.
clone "$repo"
g -C "$repo" fetch -q origin refs/pull/1/head 2>"$T/err"
mg check -C "$repo"
expect_code 0 "after fetching refs/pull/1/head the gate passes too"

# A measured commit the server no longer has (the pull request's ref gone
# and the objects pruned): the fetch fails, the advice is the same and
# says when to measure again.
g -C "$origin" update-ref -d refs/pull/1/head
g -C "$origin" reflog expire --expire=now --all
g -C "$origin" gc -q --prune=now
clone "$repo"
g -C "$repo" fetch -q origin "$measured" 2>"$T/err"
code=$?
if [ "$code" -ne 0 ]; then ok "a commit the server lost cannot be fetched"; else not_ok "a commit the server lost cannot be fetched"; fi
mg check -C "$repo"
expect_code 1 "the gate still fails"
expect_out "next action: fetch_measured_commit" "the next action stays the fetch (memgate cannot tell)"
expect_out "measure again only if it cannot be fetched" "and the text says when to measure again"

finish
