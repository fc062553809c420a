#!/usr/bin/env bash
# Approving and releasing as the README tells it: the release manager's
# recipe, pasted line by line without a terminal, approves with a person's
# key (memgate approve --sign: the approval beside the manifest, the
# runner-signed manifest untouched), adds both files, commits, tags, runs
# the release gate and pushes the tag through the pre-push hook.  What went
# wrong before: the old recipe's `git commit -am` left the record untracked
# (the legacy approved_result, still read: the message says "untracked: git
# add it"); the hook refused the approved `tune` release the release gate
# passes (now tags get the release gate's rule, configurable);
# decision_drift did not say what the evidence decides now (a policy that
# decides the approved evidence otherwise; new numbers are
# approval_of_other_evidence, t_team_life.sh); a tampered approval sent the
# team back to the GPU.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
HOOK=$SRC/actions/pre-push
APPROVED=benchmarks/results/75_approved.json   # the legacy record (approve --out, gone)
APPROVAL=benchmarks/results/75_input_manifest.approved.json

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

if ! command -v ssh-keygen >/dev/null 2>&1; then
	echo "ok - # SKIP ssh-keygen not available (actions/install-deps installs openssh-client)"
	finish
	exit 0
fi

# A team's repository: the evidence is tune / checkpoint and the policy
# fails on [reject, tune]; the runner signs the measurements and release
# managers approve (provenance.signers, provenance.approvers); the hook is
# installed; origin is a bare remote.  The release manager's key is
# ~/.ssh/release_key in $T/home, the HOME the README's recipe runs with.
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$T/home/.ssh"
ssh_key runner
ssh-keygen -q -t ed25519 -N '' -C release -f "$T/home/.ssh/release_key"
mkdir -p "$repo/.memgate"
{
	printf 'gpu-runner@ci %s\n' "$(pub "$T/runner")"
	printf 'release-manager@example.com %s\n' "$(pub "$T/home/.ssh/release_key")"
} >"$repo/.memgate/allowed_signers"
cat >>"$repo/.memgate.yml" <<'YAML'
provenance:
  allowed_signers: .memgate/allowed_signers
  signers: [gpu-runner@ci]
  approvers: [release-*@example.com]
YAML
in_repo memgate sign --key "$T/runner" </dev/null
expect_code 0 "the runner signs the manifest"
commit_all "$repo" "signed evidence"
g init -q --bare "$T/remote.git"
g -C "$repo" remote add origin "$T/remote.git"
cp "$HOOK" "$repo/.git/hooks/pre-push"
base=$(g -C "$repo" rev-parse HEAD)

# 1. The old recipe (a legacy approved_result, still read): `git commit -am`
#    does not add the new record.
in_repo memgate record --out "$APPROVED"
expect_code 1 "memgate record on a tune decision exits like check"
pin_approved
in_repo memgate sign --key "$T/runner" </dev/null   # the old recipe signed the edited manifest again
g -C "$repo" commit -q -am "approve tune/checkpoint"
g -C "$repo" tag v1.1
release v1.1 --fail-on reject
expect_code 1 "the record left untracked fails the release"
expect_out "evidence: not applicable: approved_result_missing" "approved_result_missing"
expect_out "warning: approved result '$APPROVED' is not in $(g -C "$repo" rev-parse --short=7 HEAD); it is untracked: git add it, then commit" \
	"says the record is untracked and to git add it"
expect_out "next action: record_and_pin_approved_result" "the next action points at the record, not the GPU"
expect_out "warning: the manifest pins a legacy approved_result, read as before; to move, run memgate approve, which writes the approval to '$APPROVAL' beside the manifest and never touches it, and drop approved_result from the manifest when it is next measured and signed" \
	"the legacy approved_result is read, with a warning saying how to move"
expect_err "release-gate: 'v1.1' fails: reject (evidence_not_applicable: approved_result_missing), next action record_and_pin_approved_result" \
	"the verdict line names decision, reason, issue and next action"
release v1.1 --fail-on reject --format github
expect_out "is not in the commit; it is untracked: git add it, then commit" "the GitHub annotation says so too"
g -C "$repo" tag -d v1.1 >/dev/null
g -C "$repo" reset -q --hard "$base"
rm -f "$repo/$APPROVED"   # left untracked; its fail_on differs from the recipe's

# 2. The release manager's recipe as the README gives it, run line by line
#    without a terminal: memgate approve --sign writes the approval beside
#    the manifest, signed with the release manager's key.
awk '/^### Release gates/ { f = 1 } f && /^```sh$/ { p = 1; next } p && /^```$/ { exit } p' \
	"$SRC/README.md" | sed 's/[[:space:]]*#.*$//' | grep -v '^$' >"$T/recipe"
if grep -q '^memgate approve --sign ~/.ssh/release_key --fail-on reject' "$T/recipe" &&
   grep -qx "git add $APPROVAL\\*" "$T/recipe" &&
   ! grep -q 'commit -am' "$T/recipe"; then
	ok "the README's recipe approves with --sign, then adds the approval and its signature"
else
	not_ok "the README's recipe approves with --sign, then adds the approval and its signature" "$(cat "$T/recipe")"
fi
msha=$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)
n=0
while IFS= read -r line; do
	n=$((n + 1))
	in_repo env HOME="$T/home" sh -c "${line/#actions\//$SRC/actions/}" </dev/null
	expect_code 0 "README recipe line $n: $line"
done <"$T/recipe"
if [ "$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)" = "$msha" ]; then
	ok "the recipe left the runner-signed manifest as it was"
else
	not_ok "the recipe left the runner-signed manifest as it was"
fi
if [ -z "$(g -C "$repo" status --porcelain)" ]; then ok "the recipe committed everything it wrote"; else not_ok "the recipe committed everything it wrote" "$(g -C "$repo" status --porcelain)"; fi
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

# 4. A tampered approval: point at the approval, not at the GPU.
g -C "$repo" reset -q --hard v1.2
sed -i 's/"checkpoint"/"hybrid"/' "$repo/$APPROVAL"
commit_all "$repo" "edit the approval by hand"
g -C "$repo" tag v3
release v3 --fail-on reject --format json
expect_code 1 "a tampered approval fails the release"
expect_field evidence.issues '["approval_unverified"]'
expect_field next_action '"re_approve_or_restore_evidence"'
expect_field provenance.approval.verified 'false'
expect_err "release-gate: 'v3' fails: reject (evidence_not_applicable: approval_unverified), next action re_approve_or_restore_evidence" \
	"the verdict names the unverified approval and the next action"
# Another evidence issue besides it still means new evidence.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9000.0/' "$repo/$REPORT_PATH"
commit_all "$repo" "edit the report too"
in_repo memgate check --require-approved --format json
expect_field evidence.issues '["report_hash_mismatch","approval_unverified"]'
expect_field next_action '"rebuild_same_workload_evidence"'

finish
