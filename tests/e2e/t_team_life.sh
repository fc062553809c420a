#!/usr/bin/env bash
# A team's life, scripted (issue 32, "Done when"): the GPU runner measures
# and signs (memgate sign twice in a row, no terminal), a release manager
# approves with a person's key (memgate approve --sign: the approval beside
# the manifest, the runner-signed manifest untouched), the tag passes the
# release gate; the runner measures again after the approval and the
# release gate fails with approval_of_other_evidence until it is approved
# again.  With provenance.signers and provenance.approvers naming who
# measures and who approves, an approver's key cannot sign measurements and
# a runner's key cannot approve (approval_unverified).  A manifest with the
# legacy approved_result is still read, with a warning saying how to move;
# check --all --changed gates a policy whose approval alone changed; where
# signatures are only checked (require: false, no approvers) an unsigned
# approval is a warning.
. "$(dirname "$0")/lib.sh"

need_ssh_keygen

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
APPROVAL=$MANIFEST_PATH
APPROVAL=${APPROVAL%.json}.approved.json
ssh_key runner alice

# in_repo CMD...: run CMD in $repo without a terminal; sets $code.
in_repo() {
	(cd "$repo" && "$@") </dev/null >"$T/out" 2>"$T/err"
	code=$?
}
release() { in_repo dash "$GATE" "$@"; }
measure() {
	in_repo "$MEMGATE" manifest --report "$REPORT_PATH" --out "$MANIFEST_PATH" \
		--measured-commit HEAD --force
	expect_code 0 "runner: memgate manifest --force ($1)"
}
sign() {
	in_repo "$MEMGATE" sign --key "$T/runner"
	expect_code 0 "runner: memgate sign without a terminal ($1)"
}
# approve DESC: the release manager's recipe: approve --sign, add, commit
# (approve's stdout kept in $T/approve.out).
approve() {
	in_repo "$MEMGATE" approve --sign "$T/alice" --fail-on reject
	expect_code 0 "release manager: memgate approve --sign ($1)"
	cp "$T/out" "$T/approve.out"
	in_repo git add "$APPROVAL" "$APPROVAL.sig"
	in_repo git commit -q -m "approve ($1)"
}

# The team: the runner may measure, release managers may approve; one
# allowed-signers file lists both keys, for every namespace.
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
{
	printf 'gpu-runner@ci %s runner\n' "$(pub "$T/runner")"
	printf 'release-alice@example.com %s alice\n' "$(pub "$T/alice")"
} >"$repo/.memgate/allowed_signers"
cat >>"$repo/.memgate.yml" <<'YAML'
provenance:
  allowed_signers: .memgate/allowed_signers
  signers: [gpu-runner@ci]
  approvers: [release-*@example.com]
YAML
commit_all "$repo" "who measures, who approves"

# --- 1. measure, sign twice in a row without a terminal, commit ---------------
measure "the first measurement"
sign "first"
cp "$repo/$MANIFEST_PATH.sig" "$T/first.sig"
sign "second, over the first .sig"
expect_err "memgate: signed '$MANIFEST_PATH' as gpu-runner@ci, key ssh-ed25519 $(fp "$T/runner"), in namespace memgate" \
	"the second sign says who signed"
if ssh-keygen -Y verify -f "$repo/.memgate/allowed_signers" -I gpu-runner@ci -n memgate \
	-s "$repo/$MANIFEST_PATH.sig" <"$repo/$MANIFEST_PATH" >/dev/null 2>&1; then
	ok "the signature written the second time verifies (ssh-keygen -Y verify -I gpu-runner@ci)"
else
	not_ok "the signature written the second time verifies (ssh-keygen -Y verify -I gpu-runner@ci)"
fi
commit_all "$repo" "evidence from the GPU runner"
in_repo "$MEMGATE" check --fail-on reject
expect_code 0 "the measured, signed evidence passes the pull-request check"
msha=$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)

# --- 2. approve with a person's key, tag, the release gate passes --------------
approve "the first measurement"
cp "$T/approve.out" "$T/out"
expect_out "signed it as release-alice@example.com, key ssh-ed25519 $(fp "$T/alice"), in namespace memgate-approve" \
	"approve says who signed the approval"
if [ "$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)" = "$msha" ]; then
	ok "the runner-signed manifest is untouched by approve"
else
	not_ok "the runner-signed manifest is untouched by approve"
fi
in_repo git tag v1
release v1 --fail-on reject
expect_code 0 "the release gate passes the approved tag"
expect_err "release-gate: 'v1' passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" \
	"as approved"
expect_out "signature: signed by gpu-runner@ci, key ssh-ed25519 $(fp "$T/runner")" "the text names who measured"
expect_out "approval: approved by release-alice@example.com, key ssh-ed25519 $(fp "$T/alice")" "and who approved"
in_repo "$MEMGATE" check --rev v1 --require-approved --fail-on reject --summary "$T/summary.md"
if grep -qF -- '- **Approval:** approved by release\-alice\@example\.com, key ssh\-ed25519 SHA256\:' "$T/summary.md"
then ok "the job summary names who approved"
else not_ok "the job summary names who approved" "$(grep -i approv "$T/summary.md")"; fi
in_repo "$MEMGATE" check --rev v1 --require-approved --fail-on reject --comment "$T/comment.md"
if grep -qF -- 'Signed by gpu\-runner\@ci. Approved by release\-alice\@example\.com.' "$T/comment.md"
then ok "the comment names who measured and who approved"
else not_ok "the comment names who measured and who approved" "$(grep -i 'signed' "$T/comment.md")"; fi

# --- 3. measured again after the approval: approval_of_other_evidence ----------
sed -i 's/"peak_memory_mb": 9454.64/"peak_memory_mb": 9454.0/' "$repo/$REPORT_PATH"
commit_all "$repo" "measure again"
measure "the new measurement"
sign "the new measurement"
commit_all "$repo" "new evidence from the GPU runner"
new=$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)
in_repo git tag v2
release v2 --fail-on reject --json "$T/v2.json"
expect_code 1 "the release gate fails numbers nobody approved"
expect_err "release-gate: 'v2' fails: reject (evidence_not_applicable: approval_of_other_evidence), next action re_approve_or_restore_evidence" \
	"the verdict line names approval_of_other_evidence, not 'as approved'"
expect_no_err "as approved" "and never says 'as approved'"
expect_field evidence.issues '["approval_of_other_evidence"]' "$T/v2.json"
expect_field provenance.verified 'true' "$T/v2.json"
expect_field provenance.approval.verified 'true' "$T/v2.json"
expect_out "  $APPROVAL:5:15: the approval '$APPROVAL' approved the manifest with SHA-256 $msha; the manifest has SHA-256 $new now: these numbers were not approved; approve them again (memgate approve --sign KEY) or restore the evidence that was approved [approval_of_other_evidence]" \
	"the finding is at the approval's manifest.sha256, with both SHA-256s and what to do"

# approved again, the release passes
approve "the new measurement"
cp "$T/approve.out" "$T/out"
expect_out "wrote '$APPROVAL'" "a new approval replaces the old one"
in_repo git tag v3
release v3 --fail-on reject
expect_code 0 "the release gate passes the evidence approved again"

# --- 4. an approver's key cannot sign measurements ------------------------------
cp "$repo/$MANIFEST_PATH.sig" "$T/runner.sig"
in_repo "$MEMGATE" sign --key "$T/alice"
expect_code 2 "memgate sign refuses an approver's key"
expect_err "memgate: error: .memgate/allowed_signers:2:1: the key ssh-ed25519 $(fp "$T/alice") is listed for 'release-alice@example.com' only, which the policy's provenance.signers does not name: memgate check would refuse its signature (signer_unknown); sign with a runner's key; nothing written" \
	"says why, at the approver's line"
if cmp -s "$T/runner.sig" "$repo/$MANIFEST_PATH.sig"; then ok "nothing written"; else not_ok "nothing written"; fi
ssh-keygen -q -Y sign -n memgate -f "$T/alice" - <"$repo/$MANIFEST_PATH" >"$repo/$MANIFEST_PATH.sig" 2>/dev/null
commit_all "$repo" "the approver signs measurements by hand"
in_repo "$MEMGATE" check --require-approved --fail-on reject
expect_code 1 "measurements signed by an approver are refused"
expect_out "evidence: not applicable: signer_unknown" "signer_unknown"
expect_out "which '.memgate/allowed_signers' lists for 'release-alice@example.com' only, none of the principals provenance.signers names (gpu-runner@ci)" \
	"names the approver and the policy's signers"
cp "$T/runner.sig" "$repo/$MANIFEST_PATH.sig"
commit_all "$repo" "the runner's signature back"

# --- 5. a runner's key cannot approve --------------------------------------------
tree_snapshot "$repo"
in_repo "$MEMGATE" approve --sign "$T/runner" --fail-on reject
expect_code 2 "memgate approve refuses a runner's key"
expect_err "memgate: error: .memgate/allowed_signers:1:1: the key ssh-ed25519 $(fp "$T/runner") is listed for 'gpu-runner@ci' only, which the policy's provenance.approvers does not name: memgate check would refuse its signature of the approval (approval_unverified); sign with an approver's key; nothing written" \
	"says why, at the runner's line"
expect_tree_unchanged "$repo" "nothing written"
ssh-keygen -q -Y sign -n memgate-approve -f "$T/runner" - <"$repo/$APPROVAL" >"$repo/$APPROVAL.sig" 2>/dev/null
commit_all "$repo" "the runner approves by hand"
in_repo git tag v4
release v4 --fail-on reject
expect_code 1 "an approval signed by the runner fails the release"
expect_err "release-gate: 'v4' fails: reject (evidence_not_applicable: approval_unverified), next action re_approve_or_restore_evidence" \
	"the verdict line names approval_unverified"
expect_out "  .memgate/allowed_signers:1:1: the approval is signed by ssh-ed25519 $(fp "$T/runner"), which '.memgate/allowed_signers' lists for 'gpu-runner@ci' only, none of the principals provenance.approvers names (release-*@example.com): a runner's key cannot approve" \
	"at the runner's line, naming the approvers"
# a manifest's signature copied as the approval's: another namespace
cp "$repo/$MANIFEST_PATH.sig" "$repo/$APPROVAL.sig"
commit_all "$repo" "the manifest's signature as the approval's"
in_repo "$MEMGATE" check --require-approved --fail-on reject
expect_code 1 "a manifest's signature is no approval"
expect_out "evidence: not applicable: approval_unverified" "approval_unverified"
expect_out "(a manifest's signature is not an approval)" "says why"

# --- 6. --all --changed gates a policy whose approval alone changed -------------
approve "for --changed"
base=$(g -C "$repo" rev-parse HEAD)
echo notes >"$repo/NOTES"
commit_all "$repo" "unrelated"
in_repo "$MEMGATE" check --all --changed --policy-rev "$base" --require-approved --fail-on reject
expect_code 0 "--all --changed: an unrelated change"
expect_err "memgate: unchanged, not gated: .memgate.yml" "leaves the policy ungated"
base=$(g -C "$repo" rev-parse HEAD)
sed -i 's/"memgate_approval": 1/"memgate_approval": 1 /' "$repo/$APPROVAL"
commit_all "$repo" "the approval edited"
in_repo "$MEMGATE" check --all --changed --policy-rev "$base" --require-approved --fail-on reject
expect_code 1 "--all --changed gates the policy whose approval changed"
expect_out "approval_unverified" "and its edited approval no longer verifies"
g -C "$repo" checkout -q HEAD~1 -- "$APPROVAL"
commit_all "$repo" "the approval restored"
base=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" rm -q "$APPROVAL.sig"
commit_all "$repo" "the approval's signature removed"
in_repo "$MEMGATE" check --all --changed --policy-rev "$base" --require-approved --fail-on reject
expect_code 1 "--all --changed gates the policy whose approval's signature changed"
expect_out "no signature '$APPROVAL.sig' at" "and says it is missing"

# --- 7. provenance.require: false and no approvers: an unsigned approval warns ----
repo=$T/lenient
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
printf 'gpu-runner@ci %s\n' "$(pub "$T/runner")" >"$repo/.memgate/allowed_signers"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n  require: false\n' >>"$repo/.memgate.yml"
commit_all "$repo" "signatures checked, not required"
sign "the lenient repository"
commit_all "$repo" "signed"
in_repo "$MEMGATE" approve --fail-on reject
expect_code 0 "an unsigned approval where signatures are only checked"
expect_out "the policy checks signatures: sign the approval with an approver's key:" "approve says it may be signed"
in_repo git add "$APPROVAL"
in_repo git commit -q -m "approved, unsigned"
in_repo "$MEMGATE" check --require-approved --fail-on reject
expect_code 0 "the release passes: the approval's signature is not required"
expect_out "warning: approval_unverified: no signature '$APPROVAL.sig' at $(g -C "$repo" rev-parse --short=7 HEAD) for the approval (provenance.require is false and the policy names no provenance.approvers)" \
	"and warns that the approval is not signed"
# A signature that is not one warns at its place, as the manifest's does
# (one reader serves both links).
printf 'not a signature\n' >"$repo/$APPROVAL.sig"
in_repo git add "$APPROVAL.sig"
in_repo git commit -q -m "a broken approval signature"
in_repo "$MEMGATE" check --require-approved --fail-on reject
expect_code 0 "a malformed approval signature that is not required passes"
expect_out "warning: approval_unverified: $APPROVAL.sig:1:1: the approval's signature cannot be read: " \
	"and warns at the signature's first line"

# --- 8. the legacy approved_result is still read, with how to move --------------
repo=$T/legacy
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
in_repo "$MEMGATE" record --out benchmarks/results/75_approved.json --fail-on reject
expect_code 0 "memgate record writes the legacy record"
rsha=$(sha256sum "$repo/benchmarks/results/75_approved.json" | cut -d' ' -f1)
python3 - "$repo/$MANIFEST_PATH" "$rsha" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["approved_result"] = {"path": "benchmarks/results/75_approved.json", "sha256": sys.argv[2]}
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
commit_all "$repo" "a legacy approval"
in_repo git tag v1
release v1 --fail-on reject
expect_code 0 "a legacy approved_result still passes the release gate"
expect_err "passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" "as approved"
expect_out "warning: the manifest pins a legacy approved_result, read as before; to move, run memgate approve, which writes the approval to '$APPROVAL' beside the manifest and never touches it, and drop approved_result from the manifest when it is next measured and signed" \
	"with a warning saying how to move"
in_repo "$MEMGATE" check --fail-on reject
if grep -q "legacy" "$T/out"; then not_ok "no warning without --require-approved"; else ok "no warning without --require-approved"; fi
# moving: approve writes the approval beside it; it decides from then on
in_repo "$MEMGATE" approve --fail-on reject
expect_code 0 "memgate approve in a legacy repository"
in_repo git add "$APPROVAL"
in_repo git commit -q -m "moved to an approval of its own"
release HEAD --fail-on reject
in_repo git tag v2
release v2 --fail-on reject
expect_code 0 "the approval beside the manifest passes"
expect_out "warning: the manifest's legacy approved_result 'benchmarks/results/75_approved.json' is not read: the approval is '$APPROVAL'; drop approved_result from the manifest when it is next measured and signed" \
	"and the warning says the legacy record is no longer read"

finish
