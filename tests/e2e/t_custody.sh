#!/usr/bin/env bash
# A chain of custody (issue 32): the approval is of the evidence it was
# made for.  An existing repository's life with the legacy approved_result
# (a record pinned in the manifest, as memgate approve --out did before
# approvals had a file of their own; still read): measure, sign, approve,
# tag, the release gate passes; the runner measures again (memgate manifest
# --force keeps approved_result), signs, tags: the release gate fails with
# approval_of_other_evidence instead of passing numbers nobody approved
# "as approved" (the approval beside the manifest: t_team_life.sh).  Who may measure: with provenance.signers, a key that an
# allowed-signers file shared with git's commit signing lists for a
# contributor no longer signs evidence (ssh-keygen -Y verify -I refuses it).
# Who signed is said in the text and the job summary; a malformed
# signature's position once; an untracked .sig gets "git add it".
. "$(dirname "$0")/lib.sh"

need_ssh_keygen

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
APPROVED=benchmarks/results/75_approved.json
ssh_key runner

mkdir -p "$T/bin"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${MEMGATE_WRAP:-}" "$MEMGATE" >"$T/bin/memgate"
chmod +x "$T/bin/memgate"
# in_repo CMD...: run CMD in $repo with `memgate` on PATH; sets $code.
in_repo() {
	(cd "$repo" && PATH="$T/bin:$PATH" "$@") </dev/null >"$T/out" 2>"$T/err"
	code=$?
}
release() { in_repo dash "$GATE" "$@"; }
# measure: the runner pins the report; sign: and signs the manifest
# (again after memgate approve, which changes it).
measure() {
	in_repo memgate manifest --report "$REPORT_PATH" --out "$MANIFEST_PATH" \
		--measured-commit HEAD --force
	expect_code 0 "runner: memgate manifest --force $1"
}
sign() {
	in_repo memgate sign --key "$T/runner"
	expect_code 0 "runner: memgate sign $1"
}
# approve OUT: the legacy approval: memgate record, approved_result pinned
# in the manifest by hand, the changed manifest signed again, committed.
approve() {
	in_repo memgate record --out "$1" --fail-on reject
	expect_code 0 "memgate record writes the record to approve ($1)"
	python3 - "$repo/$MANIFEST_PATH" "$1" "$(sha256sum "$repo/$1" | cut -d' ' -f1)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["approved_result"] = {"path": sys.argv[2], "sha256": sys.argv[3]}
open(sys.argv[1], "w").write(json.dumps(m, indent=2) + "\n")
PY
	sign "after approve"
	in_repo git add "$1" "$MANIFEST_PATH" "$MANIFEST_PATH.sig"
	in_repo git commit -q -m "approve tune/checkpoint"
}

repo=$T/r
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(pub "$T/runner")" \
	>"$repo/.memgate/allowed_signers"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
commit_all "$repo" "require signed evidence"

# 1. Measure, sign, approve, tag: the release gate passes as approved.
measure "pins the first measurement"
sign "the first measurement"
commit_all "$repo" "evidence from the GPU runner"
approve "$APPROVED"
in_repo git tag v1
release v1 --fail-on reject
expect_code 0 "the release gate passes the approved, signed evidence"
expect_err "release-gate: 'v1' passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" \
	"as approved"

# 2. The runner measures again (other numbers, the same decision): the
#    manifest keeps approved_result, the signature is new and valid.
sed -i 's/"peak_memory_mb": 9454.64/"peak_memory_mb": 9454.0/' "$repo/$REPORT_PATH"
commit_all "$repo" "measure again"
measure "pins the new measurement"
expect_err "kept approved_result '$APPROVED' from the existing manifest" "the approval is carried over"
sign "the new measurement"
commit_all "$repo" "new evidence from the GPU runner"
in_repo git tag v2
release v2 --fail-on reject --json "$T/v2.json"
expect_code 1 "the release gate fails numbers nobody approved"
expect_err "release-gate: 'v2' fails: reject (evidence_not_applicable: approval_of_other_evidence), next action re_approve_or_restore_evidence" \
	"the verdict line names approval_of_other_evidence, not 'as approved'"
expect_no_err "as approved" "and never says 'as approved'"
expect_field evidence.issues '["approval_of_other_evidence"]' "$T/v2.json"
expect_field provenance.verified 'true' "$T/v2.json"
new=$(sha256sum "$repo/$REPORT_PATH" | cut -d' ' -f1)
expect_out "approval_of_other_evidence" "the text names the issue"
in_repo memgate check --rev v2 --require-approved --fail-on reject --format github
expect_out "the approved record '$APPROVED' approved the report with SHA-256 " "the annotation says which report was approved"
expect_out "; the manifest pins $new now: these numbers were not approved; approve them again (memgate approve) or restore the evidence that was approved" \
	"and which one the manifest pins now"

# 3. Approving again makes the release pass.
approve benchmarks/results/75_approved-2.json
in_repo git tag v3
release v3 --fail-on reject
expect_code 0 "the release gate passes the evidence approved again"
expect_err "selected checkpoint, as approved" "as approved"

# 4. Who may measure (provenance.signers): an allowed-signers file shared
#    with git's commit signing lists a contributor too.
ssh_key alice
repo=$T/shared
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
printf 'gpu-runner@ci %s\nalice@example.com %s\n' "$(pub "$T/runner")" "$(pub "$T/alice")" \
	>"$repo/.memgate/allowed_signers"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
commit_all "$repo" "sign with the keys git's commit signing trusts"
measure "pins numbers a contributor made up"
in_repo memgate sign --key "$T/alice"
expect_code 0 "without provenance.signers a contributor's key signs"
commit_all "$repo" "fabricated evidence"
(cd "$repo" && ssh-keygen -Y verify -f .memgate/allowed_signers -I gpu-runner@ci -n memgate \
	-s "$MANIFEST_PATH.sig" <"$MANIFEST_PATH") >/dev/null 2>&1
if [ $? -ne 0 ]; then ok "ssh-keygen -Y verify -I gpu-runner@ci refuses the contributor's signature"
else not_ok "ssh-keygen -Y verify -I gpu-runner@ci refuses the contributor's signature"; fi
in_repo memgate check --format json
expect_field provenance.verified 'true'
expect_field provenance.signer '"alice@example.com"'
base=$(g -C "$repo" rev-parse HEAD)

printf '  signers: [gpu-runner@ci]\n' >>"$repo/.memgate.yml"
commit_all "$repo" "only the runner measures"
in_repo memgate check --policy-rev "$base" --format json
expect_field policy_changes.0.key '"provenance.signers"'
expect_field policy_changes.0.effect '"tightens"'
expect_field policy_changes.0.after '["gpu-runner@ci"]'
in_repo memgate check --format json
expect_code 1 "with provenance.signers the contributor's signature is refused"
expect_field evidence.issues '["signer_unknown"]'
expect_field next_action '"sign_on_trusted_runner"'
expect_field provenance.verified 'false'
in_repo memgate check
expect_out ".memgate/allowed_signers:2:1: the manifest is signed by ssh-ed25519 $(ssh-keygen -lf "$T/alice.pub" | cut -d' ' -f2), which '.memgate/allowed_signers' lists for 'alice@example.com' only, none of the principals provenance.signers names (gpu-runner@ci) [signer_unknown]" \
	"the text says whose key it is and whom the policy names"
expect_out "signature: key ssh-ed25519 $(ssh-keygen -lf "$T/alice.pub" | cut -d' ' -f2), not verified (signer_unknown)" \
	"the signature line says the key does not count"
in_repo memgate sign --key "$T/alice"
expect_code 2 "memgate sign refuses a key listed for another principal"
expect_err "is listed for 'alice@example.com' only, which the policy's provenance.signers does not name" "and says why"
sign "by the runner, as provenance.signers asks"
commit_all "$repo" "evidence from the GPU runner"
in_repo memgate check --format json
expect_field provenance.verified 'true'
expect_field provenance.signer '"gpu-runner@ci"'

# 5. Who signed, in words: the text and the job summary say it, not only
#    the JSON record; a malformed signature's position is said once; an
#    untracked signature gets the hint the manifest gets.
in_repo memgate check --summary "$T/summary.md"
expect_out "signature: signed by gpu-runner@ci, key ssh-ed25519 $(fp "$T/runner")" "the text names the signer and key"
if grep -qF -- '- **Signature:** signed by gpu\-runner\@ci, key ssh\-ed25519 SHA256\:' "$T/summary.md"
then ok "the job summary names the signer and key"
else not_ok "the job summary names the signer and key" "$(grep -i signature "$T/summary.md")"; fi
cp "$repo/$MANIFEST_PATH.sig" "$T/good.sig"
sed -i '2s/^\(.....\)./\1*/' "$repo/$MANIFEST_PATH.sig"
commit_all "$repo" "broken armor"
in_repo memgate check
expect_out "  $MANIFEST_PATH.sig:2:6: invalid SSH signature: '*' is not a base64 character [signature_malformed]" \
	"the malformed signature's position, once"
expect_no_out "$MANIFEST_PATH.sig:2:6: $MANIFEST_PATH.sig" "not repeated in the message"
cp "$T/good.sig" "$repo/$MANIFEST_PATH.sig"
g -C "$repo" rm -q --cached "$MANIFEST_PATH.sig"
g -C "$repo" commit -q -m "the signature left out"
in_repo memgate check
expect_out "no signature '$MANIFEST_PATH.sig' at $(g -C "$repo" rev-parse --short=7 HEAD) for the manifest; it is untracked: git add it, then commit" \
	"an untracked signature: git add it"

finish
