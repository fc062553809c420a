#!/usr/bin/env bash
# Approving and releasing as the README tells it: record the decision, pin
# it in the manifest, git add both, commit, tag, run the release gate and
# push the tag through the pre-push hook.  What went wrong before: the old
# recipe's `git commit -am` left the record untracked (now the message says
# "untracked: git add it"); the hook refused the approved `tune` release the
# release gate passes (now tags get the release gate's rule, configurable);
# decision_drift did not say what the evidence decides now (a policy that
# decides the approved evidence otherwise; new numbers are
# approval_of_other_evidence, t_custody.sh); a tampered
# approval record sent the team back to the GPU.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
HOOK=$SRC/actions/pre-push
APPROVED=benchmarks/results/75_approved.json

mkdir -p "$T/bin"
cat >"$T/bin/memgate" <<SH
#!/bin/sh
exec ${MEMGATE_WRAP:-} "$MEMGATE" "\$@"
SH
chmod +x "$T/bin/memgate"
export PATH="$T/bin:$PATH"   # the README's commands run `memgate`

# in_repo CMD...: run CMD in $repo; sets $code, output in $T/out, $T/err.
in_repo() {
	(cd "$repo" && "$@") >"$T/out" 2>"$T/err"
	code=$?
}
release() { in_repo dash "$GATE" "$@"; }
push() { in_repo git push "$@"; }
# with_global FILE CMD...: CMD with FILE as the user's global git config: git
# 2.32 and later read GIT_CONFIG_GLOBAL, older ones (Debian 11 has 2.30)
# only $HOME/.gitconfig.
with_global() {
	local home=$T/home-${1##*/}
	mkdir -p "$home" && cp "$1" "$home/.gitconfig"
	GIT_CONFIG_GLOBAL=$1 HOME=$home "${@:2}"
}
remote_has() { g -C "$T/remote.git" rev-parse -q --verify "$1" >/dev/null 2>&1; }
# pin_approved: add approved_result to the manifest (the README's hand edit).
pin_approved() {
	cat >"$repo/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$(sha256sum "$repo/$REPORT_PATH" | cut -d' ' -f1)" },
  "approved_result": { "path": "$APPROVED", "sha256": "$(sha256sum "$repo/$APPROVED" | cut -d' ' -f1)" }
}
JSON
}

# A team's repository: the evidence is tune / checkpoint and the policy
# fails on [reject, tune]; the hook is installed; origin is a bare remote.
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
g init -q --bare "$T/remote.git"
g -C "$repo" remote add origin "$T/remote.git"
cp "$HOOK" "$repo/.git/hooks/pre-push"
base=$(g -C "$repo" rev-parse HEAD)

# 1. The old recipe: `git commit -am` does not add the new record.
in_repo memgate record --out "$APPROVED"
expect_code 1 "memgate record on a tune decision exits like check"
pin_approved
g -C "$repo" commit -q -am "approve tune/checkpoint"
g -C "$repo" tag v1.1
release v1.1 --fail-on reject
expect_code 1 "the record left untracked fails the release"
expect_out "evidence: not applicable: approved_result_missing" "approved_result_missing"
expect_out "warning: approved result '$APPROVED' is not in $(g -C "$repo" rev-parse --short=7 HEAD); it is untracked: git add it, then commit" \
	"says the record is untracked and to git add it"
expect_out "next action: record_and_pin_approved_result" "the next action points at the record, not the GPU"
expect_err "release-gate: 'v1.1' fails: reject (evidence_not_applicable: approved_result_missing), next action record_and_pin_approved_result" \
	"the verdict line names decision, reason, issue and next action"
release v1.1 --fail-on reject --format github
expect_out "is not in the commit; it is untracked: git add it, then commit" "the GitHub annotation says so too"
g -C "$repo" tag -d v1.1 >/dev/null
g -C "$repo" reset -q --hard "$base"
rm -f "$repo/$APPROVED"   # left untracked; its fail_on differs from the recipe's

# 2. The recipe as the README gives it, run line by line: memgate approve
#    writes the record and pins it in the manifest.
awk '/^### Release gates/ { f = 1 } f && /^```sh$/ { p = 1; next } p && /^```$/ { exit } p' \
	"$SRC/README.md" | sed 's/[[:space:]]*#.*$//' | grep -v '^$' >"$T/recipe"
if grep -q '^memgate approve --out benchmarks/results/75_approved.json' "$T/recipe" &&
   grep -qx 'git add benchmarks/results/75_approved.json benchmarks/results/75_input_manifest.json' "$T/recipe" &&
   ! grep -q 'commit -am' "$T/recipe"; then
	ok "the README's recipe approves, then adds the record and the manifest"
else
	not_ok "the README's recipe approves, then adds the record and the manifest" "$(cat "$T/recipe")"
fi
n=0
while IFS= read -r line; do
	n=$((n + 1))
	in_repo sh -c "${line/#actions\//$SRC/actions/}"
	expect_code 0 "README recipe line $n: $line"
done <"$T/recipe"
if [ "$n" -ge 6 ]; then ok "the recipe has its $n commands"; else not_ok "the recipe has its $n commands"; fi
if remote_has refs/tags/v1.2; then ok "the recipe's git push put the tag on the remote"; else not_ok "the recipe's git push put the tag on the remote"; fi
release v1.2 --fail-on reject
expect_code 0 "the release gate passes the approved tune"
expect_out "approved record: tune, selected checkpoint (the evidence still decides this)" "the text shows the approved record"
expect_err "release-gate: 'v1.2' passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" \
	"the verdict line names decision, reason and candidate"
release v1.2 --fail-on reject --json "$T/own.json"
expect_code 0 "the release gate with the user's own --json"
expect_err "passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint" "the verdict is read from the user's --json file"
expect_field approved.computed.decision '"tune"' "$T/own.json"


# The tag rule is configurable: environment, then the user's global config.
g -C "$repo" tag v1.3
MEMGATE_TAG_FAIL_ON=reject,tune push origin v1.3
expect_code 1 "MEMGATE_TAG_FAIL_ON=reject,tune refuses the approved tune"
expect_err "'refs/tags/v1.3' ($(g -C "$repo" rev-parse --short v1.3)) fails the release gate (memgate check --require-approved --fail-on reject,tune)" \
	"the refusal names the tag rule"
printf '[memgate]\n\ttagFailOn = reject,tune\n' >"$T/gitconfig"
with_global "$T/gitconfig" push origin v1.3
expect_code 1 "git config --global memgate.tagFailOn reject,tune refuses it too"
MEMGATE_TAG_FAIL_ON=reject with_global "$T/gitconfig" push origin v1.3
expect_code 0 "the environment wins over the global config"
g -C "$repo" tag v1.4
MEMGATE_TAG_FAIL_ON=policy push origin v1.4
expect_code 1 "MEMGATE_TAG_FAIL_ON=policy uses the policy's gate.fail_on"
MEMGATE_TAG_REQUIRE_APPROVED=maybe push origin v1.4
expect_code 1 "an invalid MEMGATE_TAG_REQUIRE_APPROVED refuses the push"
expect_err "MEMGATE_TAG_REQUIRE_APPROVED (or memgate.tagRequireApproved) is 'maybe', not true or false" "and says why"
expect_no_err "fix the evidence or the policy" "without blaming the evidence"
MEMGATE_TAG_FAIL_ON='reject;rm' push origin v1.4
expect_code 1 "a MEMGATE_TAG_FAIL_ON that is not a list of words is refused"

# The repository's own .git/config cannot loosen the tag rule.
g -C "$repo" config memgate.tagFailOn none
g -C "$repo" config memgate.tagRequireApproved false
g -C "$repo" checkout -q -b unapproved "$base"
echo "notes" >"$repo/NOTES"
commit_all "$repo" "no approval"
g -C "$repo" tag v0.9
push origin v0.9
expect_code 1 "a tag without an approved record is refused despite the repository's config"
expect_err "approved_result_missing" "because the release needs an approved record"
g -C "$repo" config --unset memgate.tagFailOn
g -C "$repo" config --unset memgate.tagRequireApproved
printf '[memgate]\n\ttagRequireApproved = false\n' >"$T/gitconfig2"
MEMGATE_TAG_FAIL_ON=reject,tune with_global "$T/gitconfig2" push origin v0.9
expect_code 1 "tagRequireApproved false in the global config: no approved record needed"
expect_err "fails the release gate (memgate check --fail-on reject,tune)" "the rule has no --require-approved"
expect_err "memgate: tune (memory_saving_below_meaningful_threshold)" "so the tune decision itself is what fails"
with_global "$T/gitconfig2" push origin v0.9
expect_code 0 "and with the default --fail-on reject the unapproved tune tag goes through"
g -C "$repo" checkout -q main

# 3. decision_drift says what the evidence decides now: the approved
#    evidence, under a policy that decides it otherwise (new measurements
#    are approval_of_other_evidence: tests/e2e/t_custody.sh).
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 9000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap below every candidate"
g -C "$repo" tag v2
in_repo memgate check --rev v2 --format json
now_decision=$("$JSONGET" "$T/out" decision)
now_reason=$("$JSONGET" "$T/out" reason)
now_selected=$("$JSONGET" "$T/out" selected_candidate)
if [ "$now_selected" = 'null' ]; then ok "the new policy selects none"; else not_ok "the new policy selects none" "got $now_selected"; fi
release v2 --fail-on reject --json "$T/drift.json"
expect_code 1 "the drifted release fails"
expect_field reason '"decision_drift"' "$T/drift.json"
expect_field next_action '"re_approve_or_restore_evidence"' "$T/drift.json"
expect_field approved.decision '"tune"' "$T/drift.json"
expect_field approved.selected_candidate '"checkpoint"' "$T/drift.json"
expect_field approved.computed.decision "$now_decision" "$T/drift.json"
expect_field approved.computed.reason "$now_reason" "$T/drift.json"
expect_field approved.computed.selected_candidate 'null' "$T/drift.json"
d=$(echo "$now_decision" | tr -d '"')
r=$(echo "$now_reason" | tr -d '"')
expect_out "approved record: tune, selected checkpoint; the evidence now decides $d ($r), selected (none)" \
	"the text says what the evidence decides now"
expect_err "release-gate: 'v2' fails: decision_drift: approved tune, selected checkpoint; the evidence now decides $d ($r), selected none" \
	"the verdict line says both"
release v2 --fail-on reject --format github
expect_out "the approved record says tune, selected checkpoint; the evidence now decides $d ($r), selected none" \
	"the annotation says both"

# 4. A tampered approval record: point at the record, not at the GPU.
g -C "$repo" reset -q --hard v1.2
sed -i 's/"checkpoint"/"hybrid"/' "$repo/$APPROVED"
commit_all "$repo" "edit the approval by hand"
g -C "$repo" tag v3
release v3 --fail-on reject --format json
expect_code 1 "a tampered approval record fails the release"
expect_field evidence.issues '["approved_result_hash_mismatch"]'
expect_field next_action '"restore_or_reapprove_approved_result"'
expect_err "release-gate: 'v3' fails: reject (evidence_not_applicable: approved_result_hash_mismatch), next action restore_or_reapprove_approved_result" \
	"the verdict names the hash mismatch and the next action"
in_repo memgate check --format json
expect_field next_action '"restore_or_reapprove_approved_result"'
# Another evidence issue besides it still means new evidence.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9000.0/' "$repo/$REPORT_PATH"
commit_all "$repo" "edit the report too"
in_repo memgate check --format json
expect_field evidence.issues '["report_hash_mismatch","approved_result_hash_mismatch"]'
expect_field next_action '"rebuild_same_workload_evidence"'

finish
