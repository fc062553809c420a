#!/usr/bin/env bash
# Signed evidence (memgate(1), SIGNED EVIDENCE): the policy's provenance
# section, MANIFEST.sig made by ssh-keygen -Y sign, the allowed signers
# read from the policy that decides, each forgery its own issue code, and
# the hostile cases (a valid signature over another manifest, a signer the
# pull request adds, a key listed only for another namespace).  Keys are
# made here with ssh-keygen; memgate itself never runs it.
. "$(dirname "$0")/lib.sh"

need_ssh_keygen

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
SIG=$MANIFEST_PATH.sig
ssh_key runner other
ssh-keygen -q -t ecdsa -b 384 -N '' -C rotated -f "$T/rotated"

# sign_manifest DIR KEY [NAMESPACE]: what the GPU runner does.
sign_manifest() {
	rm -f "$1/$SIG"
	ssh-keygen -q -Y sign -n "${3:-memgate}" -f "$2" "$1/$MANIFEST_PATH" 2>/dev/null
}

# A repository whose policy requires signatures by gpu-runner@ci.
repo=$T/r
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
printf '# who may sign the GPU evidence\ngpu-runner@ci namespaces="memgate" %s\n' \
	"$(cut -d' ' -f1,2 "$T/runner.pub")" >"$repo/.memgate/allowed_signers"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
sign_manifest "$repo" "$T/runner"
commit_all "$repo" "signed evidence"

mg check -C "$repo" --format json
expect_code 1 "signed evidence decides as before"
expect_field decision '"tune"'
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field provenance.verified 'true'
expect_field provenance.signer '"gpu-runner@ci"'
expect_field provenance.issue 'null'
expect_field inputs.signature.path "\"$SIG\""
expect_field inputs.allowed_signers.path '".memgate/allowed_signers"'
fp=$(ssh-keygen -lf "$T/runner.pub" | cut -d' ' -f2)
expect_field provenance.key "\"ssh-ed25519 $fp\""

# expect_issue DESC ISSUE: the check rejects with exactly ISSUE.
expect_issue() {
	mg check -C "$repo" --format json
	expect_code 1 "$1: rejected"
	expect_field decision '"reject"'
	expect_field evidence.issues "[\"$2\"]"
	expect_field next_action '"sign_on_trusted_runner"'
	expect_field provenance.issue "\"$2\""
}

# The issue's attack: edit the numbers and re-pin the manifest, keep the old signature.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 8650.76/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "better numbers"
expect_issue "re-pinned evidence under the old signature" signature_invalid
mg check -C "$repo"
expect_out "does not sign this file" "says the signature does not sign the manifest"
mg check -C "$repo" --format github
expect_out "::error file=$SIG,line=1" "annotation at the signature"
expect_out "signature_invalid" "annotation names the issue"

# A valid signature by the runner, over another manifest.
printf '{"source": {"path": "other.json", "sha256": "%s"}}\n' "$(printf x | sha256sum | cut -d' ' -f1)" \
	>"$T/other-manifest.json"
ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$T/other-manifest.json" 2>/dev/null
cp "$T/other-manifest.json.sig" "$repo/$SIG"
commit_all "$repo" "a signature from elsewhere"
expect_issue "a valid signature over another manifest" signature_invalid

# No signature at all.
g -C "$repo" rm -q "$SIG"
commit_all "$repo" "unsigned"
expect_issue "no signature" signature_missing
mg check -C "$repo" --format github
expect_out "::error file=$MANIFEST_PATH,line=1" "annotation at the manifest"

# The PR signs with its own key and adds it to the allowed signers: the
# allowed signers come from the policy revision (the base), not the change.
base=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" checkout -q -b pr
sign_manifest "$repo" "$T/other"
printf 'pr-author@laptop %s\n' "$(cut -d' ' -f1,2 "$T/other.pub")" >>"$repo/.memgate/allowed_signers"
commit_all "$repo" "sign with my key"
mg check -C "$repo" --policy-rev "$base" --format json
expect_code 1 "a signer added by the pull request: rejected"
expect_field evidence.issues '["signer_unknown"]'
expect_field provenance.signer 'null'
expect_field policy_changes.0.key '"provenance.allowed_signers (file)"'
mg check -C "$repo" --policy-rev "$base" --format github
expect_out "::error file=.memgate/allowed_signers,line=1" "annotation at the allowed signers"
# ... nor by dropping the requirement in its own policy.
sed -i 's|  allowed_signers: .memgate/allowed_signers|&\n  require: false|' "$repo/.memgate.yml"
commit_all "$repo" "do not require signatures"
mg check -C "$repo" --policy-rev "$base" --format json
expect_field evidence.issues '["signer_unknown"]'
expect_field policy_changes.0.key '"provenance.require"'
expect_field policy_changes.0.effect '"loosens"'
g -C "$repo" checkout -q main

# A key listed only for another namespace; a signature made for another namespace.
printf 'git-signing@ci namespaces="git" %s\n' "$(cut -d' ' -f1,2 "$T/other.pub")" \
	>>"$repo/.memgate/allowed_signers"
sign_manifest "$repo" "$T/other"
commit_all "$repo" "git key"
expect_issue "a key listed only for another namespace" signature_namespace_mismatch
mg check -C "$repo" --format github
expect_out "::error file=.memgate/allowed_signers,line=3" "annotation at the key's line"
sign_manifest "$repo" "$T/runner" git
commit_all "$repo" "git namespace"
expect_issue "a signature for another namespace" signature_namespace_mismatch

# Malformed: a byte of the armor changed.
sign_manifest "$repo" "$T/runner"
sed -i '2s/^\(.....\)./\1*/' "$repo/$SIG"
commit_all "$repo" "broken armor"
expect_issue "a malformed signature" signature_malformed
mg check -C "$repo"
expect_out "'*' is not a base64 character" "says what is wrong with it"

# Validity windows, judged on --today; rotation to a new key.
printf 'gpu-runner@ci valid-before="20251231" %s\nnew-runner@ci valid-after="20260101" %s\n' \
	"$(cut -d' ' -f1,2 "$T/runner.pub")" "$(cut -d' ' -f1,2 "$T/rotated.pub")" \
	>"$repo/.memgate/allowed_signers"
sign_manifest "$repo" "$T/runner"
commit_all "$repo" "rotation"
mg check -C "$repo" --format json --today 2025-12-31
expect_field provenance.verified 'true'
mg check -C "$repo" --format json --today 2026-01-02
expect_field evidence.issues '["signer_outside_validity"]'
expect_field provenance.signer '"gpu-runner@ci"'
sign_manifest "$repo" "$T/rotated"
commit_all "$repo" "signed with the new key"
mg check -C "$repo" --format json --today 2026-01-02
expect_field provenance.verified 'true'
expect_field provenance.signer '"new-runner@ci"'
mg check -C "$repo" --format json --today 2025-06-01
expect_field evidence.issues '["signer_outside_validity"]'

# require: false turns the issues into warnings.
sign_manifest "$repo" "$T/other"
sed -i 's|  allowed_signers: .memgate/allowed_signers|&\n  require: false|' "$repo/.memgate.yml"
commit_all "$repo" "not required"
mg check -C "$repo" --format json --today 2026-01-02
expect_field decision '"tune"'
expect_field provenance.required 'false'
expect_field provenance.verified 'false'
mg check -C "$repo" --today 2026-01-02
expect_out "warning: signer_unknown" "a warning names the problem"

# A broken allowed-signers file or a missing one is an error in the policy: exit 2.
sed -i 's/require: false/require: true/' "$repo/.memgate.yml"
echo "broken@ci cert-authority $(cut -d' ' -f1,2 "$T/other.pub")" >>"$repo/.memgate/allowed_signers"
commit_all "$repo" "ca line"
mg check -C "$repo"
expect_code 2 "a cert-authority line"
expect_err ".memgate/allowed_signers:3:11: 'cert-authority' is not supported" "names file, line and column"
g -C "$repo" rm -q .memgate/allowed_signers
commit_all "$repo" "no signers"
mg check -C "$repo"
expect_code 2 "a missing allowed-signers file"
expect_err ".memgate/allowed_signers" "names the file"

# The man page (its SIGNED EVIDENCE table) and the record schema name every
# signature code.
for c in signature_missing signature_malformed signature_invalid signature_namespace_mismatch \
	signer_unknown signer_outside_validity sign_on_trusted_runner; do
	if sed -n '/^\.SH "SIGNED EVIDENCE"$/,/^\.SH /p' "$SRC/plugin/cli/memgate.1" | grep -q "fB\\\\%$c\\\\fR"; then
		ok "man page: SIGNED EVIDENCE names $c"
	else
		not_ok "man page: SIGNED EVIDENCE names $c"
	fi
done
for c in signature_missing signature_malformed signature_invalid signature_namespace_mismatch \
	signer_unknown signer_outside_validity; do
	if grep -q "\"$c\"" "$SRC/include/memgate/schema/record.schema.json"; then
		ok "the record schema names $c"
	else
		not_ok "the record schema names $c"
	fi
done
finish
