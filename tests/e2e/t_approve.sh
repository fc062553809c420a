#!/usr/bin/env bash
# memgate approve (memgate(1), CI, "Release gates"): it writes the approval
# beside the manifest (MANIFEST.approved.json: the decision record and the
# manifest's SHA-256) and never touches the manifest; approve, git add,
# commit, then check --require-approved passes and the release gate accepts
# the tag.  Every refusal exits 2 and writes nothing: evidence that does not
# apply, a reject, a decision the gate fails on, no manifest, a bare
# repository, the old --out.  With signatures, --sign KEY signs the approval
# in namespace memgate-approve, an approver's key only.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
APPROVAL=benchmarks/results/75_input_manifest.approved.json

# approval_field PATH EXPECTED: the approval's value at PATH (not a record:
# expect_field would keep it for the record schema).
approval_field() {
	local got
	got=$("$JSONGET" "$repo/$APPROVAL" "$1" 2>&1)
	if [ "$got" = "$2" ]; then ok "approval $1 = $2"; else not_ok "approval $1" "expected $2, got $got"; fi
}

# The team's repository: tune / checkpoint; the policy fails on [reject, tune].
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
head=$(g -C "$repo" rev-parse --short=7 HEAD)
msha=$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)

# --- usage errors -----------------------------------------------------------
tree_snapshot "$repo"
mg approve -C "$repo" --out x.json --fail-on reject
expect_code 2 "the old --out is a usage error"
expect_err "memgate: error: approve: --out is gone: approve writes the approval beside the manifest (MANIFEST.approved.json, signed with --sign KEY) and never touches the manifest; drop --out" \
	"it says where the approval goes now"
expect_err "see 'memgate approve -h'" "and points at the help"
expect_tree_unchanged "$repo" "--out: nothing written"
mg approve -C "$repo" --rev HEAD
expect_code 2 "approve takes no --rev: it approves HEAD"
expect_err "unknown option '--rev'" "names the option"
mg approve -C "$repo" --fail-on maybe
expect_code 2 "a bad --fail-on"
mg approve -C "$repo" --policy a.yml --policy b.yml
expect_code 2 "one policy at a time"
mg approve -C "$repo" --allowed-signers x --fail-on reject
expect_code 2 "--allowed-signers without --sign"
expect_err "--allowed-signers and --ssh-keygen serve --sign: give --sign KEY" "says so"
mg approve -h
expect_code 0 "approve -h"
expect_out "usage: memgate approve [--sign KEY]" "prints the usage"
if grep -q -- "--out" "$T/out"; then not_ok "-h shows no --out"; else ok "-h shows no --out"; fi
mg -h
expect_out "approve    approve the evidence, signed by a person (releases)" "memgate -h lists approve"

# --- a tune the policy's gate fails on is refused ------------------------------
approve_refused "a tune under gate.fail_on [reject, tune]" \
	"cannot approve: the evidence at $head decides tune (memory_saving_below_meaningful_threshold), selected checkpoint, which the policy's gate.fail_on fails on"
expect_err "e.g. --fail-on reject" "says how to approve a tune on purpose"
approve_refused "the same with --fail-on tune" "which --fail-on fails on (tune)" --fail-on tune

# --- approve, commit, check --require-approved, release gate -------------------
approve_in "$repo" --fail-on reject
expect_code 0 "approve --fail-on reject approves the tune"
expect_out "approved: tune (memory_saving_below_meaningful_threshold), selected checkpoint, at $head" "says what it approved"
asha=$(sha256sum "$repo/$APPROVAL" | cut -d' ' -f1)
expect_out "wrote '$APPROVAL' (sha256 $asha), for the manifest '$MANIFEST_PATH' (sha256 $msha)" \
	"names the approval beside the manifest, and the manifest it binds"
expect_out "then commit it:" "says to commit it"
expect_out "  git add $APPROVAL" "prints the git add to run"
if grep -q "memgate sign\|--sign KEY" "$T/out"; then not_ok "no signing line without provenance"; else ok "no signing line without provenance"; fi
if [ "$(sha256sum "$repo/$MANIFEST_PATH" | cut -d' ' -f1)" = "$msha" ] &&
	[ -z "$(g -C "$repo" status --porcelain -- "$MANIFEST_PATH")" ]; then
	ok "the manifest is untouched"
else
	not_ok "the manifest is untouched"
fi
expect_no_file "$repo/$APPROVAL.sig" "no signature without --sign"
approval_field memgate_approval 1
approval_field manifest.path "\"$MANIFEST_PATH\""
approval_field manifest.sha256 "\"$msha\""
approval_field record.decision '"tune"'
approval_field record.selected_candidate '"checkpoint"'
approval_field record.gate.fail_on '["reject"]'

g -C "$repo" add "$APPROVAL"
g -C "$repo" commit -q -m "approve tune/checkpoint"
mg check -C "$repo" --require-approved --fail-on reject --format json
expect_code 0 "approve, commit: check --require-approved passes"
expect_field approved.decision '"tune"'
expect_field approved.selected_candidate '"checkpoint"'
expect_field evidence.is_applicable 'true'
expect_field inputs.approved_result.path "\"$APPROVAL\""
mg check -C "$repo" --require-approved --fail-on reject
expect_out "approved record: tune, selected checkpoint (the evidence still decides this)" "the text says it"
if grep -q "legacy" "$T/out"; then not_ok "no legacy warning for an approval file"; else ok "no legacy warning for an approval file"; fi
g -C "$repo" tag v1.0
(cd "$repo" && dash "$GATE" v1.0 --fail-on reject) >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "the release gate accepts the tag"
expect_err "release-gate: 'v1.0' passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" \
	"its verdict line"

# Approving again what is committed changes nothing, from any directory.
tree_snapshot "$repo"
approve_in "$repo/benchmarks" --fail-on reject
expect_code 0 "approving the same evidence again, from a subdirectory"
expect_out "approval unchanged: 'results/75_input_manifest.approved.json'" "the approval is unchanged"
expect_out "  git add results/75_input_manifest.approved.json" "the git add works where memgate ran"
expect_tree_unchanged "$repo" "approving again writes nothing"

# A git commit -am leaves a new approval out: approved_result_missing with the hint.
g -C "$repo" rm -q --cached "$APPROVAL"
g -C "$repo" commit -q -m "untracked approval"
mg check -C "$repo" --require-approved --fail-on reject
expect_code 1 "an approval left out of the commit fails the release"
expect_out "no approval '$APPROVAL' in the commit (--require-approved); it is untracked: git add it, then commit [approved_result_missing]" \
	"says it is untracked"
expect_out "next action: record_and_pin_approved_result" "next action"
g -C "$repo" add "$APPROVAL" && g -C "$repo" commit -q -m "tracked again"

# A hand-edited approval is read strictly: its file, line and column, exit 2.
cp "$repo/$APPROVAL" "$T/approval.keep"
sed -i 's/"memgate_approval": 1/"memgate_approval": 2/' "$repo/$APPROVAL"
commit_all "$repo" "edited approval"
mg check -C "$repo" --require-approved --fail-on reject
expect_code 2 "a malformed approval is an error"
expect_err "memgate: error: $APPROVAL:2:23: 'memgate_approval' is 2: this memgate reads approvals of version 1" \
	"at its line and column"
cp "$T/approval.keep" "$repo/$APPROVAL"
commit_all "$repo" "restored approval"

# --- refusals: nothing written ------------------------------------------------
# Evidence that does not apply: the report differs from its pin.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 8650.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "edited numbers"
h=$(g -C "$repo" rev-parse --short=7 HEAD)
approve_refused "evidence that does not apply" \
	"cannot approve: the evidence at $h does not apply (report_hash_mismatch): a release gate rejects it; next action" \
	--fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A reject is never approved, whatever --fail-on says.
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 1000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap nothing meets"
h=$(g -C "$repo" rev-parse --short=7 HEAD)
approve_refused "a reject" "cannot approve a reject: the evidence at $h decides reject (" --fail-on none
g -C "$repo" revert --no-edit HEAD >/dev/null

# The policy names the report directly: no manifest for an approval to bind.
sed -i "s|^manifest: .*|report: $REPORT_PATH|" "$repo/.memgate.yml"
commit_all "$repo" "report:"
approve_refused "a policy without a manifest" \
	"the policy names the report directly ('report:'), so there is no manifest for an approval to bind" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A manifest the policy names but the commit lacks: check's own error.
g -C "$repo" rm -q "$MANIFEST_PATH"
g -C "$repo" commit -q -m "no manifest"
approve_refused "a missing manifest" "cannot read '$MANIFEST_PATH'" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A malformed policy: its file, line and column.
printf 'budget: [\n' >>"$repo/.memgate.yml"
commit_all "$repo" "broken policy"
approve_refused "a malformed policy" ".memgate.yml:" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# The approval's place is a symlink: refused, nothing written through it.
mkdir -p "$T/outside"
mv "$repo/$APPROVAL" "$T/approval.moved"
ln -s "$T/outside/a.json" "$repo/$APPROVAL"
tree_snapshot "$repo"
mg approve -C "$repo" --fail-on reject
expect_code 2 "an approval path that is a symlink"
expect_err "symlink" "says so"
expect_no_file "$T/outside/a.json" "nothing written through the symlink"
rm "$repo/$APPROVAL" && mv "$T/approval.moved" "$repo/$APPROVAL"

# A bare repository has no working tree to write in.
g clone -q --bare "$repo" "$T/bare.git"
mg approve -C "$T/bare.git" --fail-on reject
expect_code 2 "a bare repository"
expect_err "a bare repository has no working tree" "says so"

# --- signed evidence: the approval is signed by a person ----------------------
if command -v ssh-keygen >/dev/null 2>&1; then
	SIG=$MANIFEST_PATH.sig
	ssh_key runner alice
	srepo=$T/signed
	make_gate_repo "$srepo" "$E/real-flat-11200.yml" "$FLAT"
	mkdir -p "$srepo/.memgate"
	{
		printf 'gpu-runner@ci namespaces="release" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")"
		printf 'alice@example.com namespaces="memgate-approve" %s\n' "$(cut -d' ' -f1,2 "$T/alice.pub")"
	} >"$srepo/.memgate/allowed_signers"
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n  namespace: release\n  approvers: [alice@example.com]\n' >>"$srepo/.memgate.yml"
	commit_all "$srepo" "require signatures"
	repo=$srepo
	approve_refused "unsigned evidence under provenance.require" "does not apply (signature_missing)" \
		--fail-on reject --sign "$T/alice"
	(cd "$srepo" && "$MEMGATE" sign --key "$T/runner" </dev/null) 2>/dev/null
	commit_all "$srepo" "signed"
	msha=$(sha256sum "$srepo/$MANIFEST_PATH" | cut -d' ' -f1)
	approve_refused "a runner's key cannot approve" \
		".memgate/allowed_signers:1:1: the key ssh-ed25519 SHA256:" --fail-on reject --sign "$T/runner"
	expect_err "is listed for 'gpu-runner@ci' only, which the policy's provenance.approvers does not name: memgate check would refuse its signature of the approval (approval_unverified); sign with an approver's key; nothing written" \
		"the runner's key is not an approver's"
	approve_in "$srepo" --fail-on reject </dev/null
	expect_code 0 "an unsigned approval is written"
	expect_out "the policy requires signatures: sign the approval with an approver's key:" "says to sign it"
	expect_out "  memgate approve --fail-on reject --sign KEY" "prints the line that signs it"
	approve_in "$srepo" --fail-on reject --sign "$T/alice" </dev/null
	expect_code 0 "approve --sign with the approver's key"
	expect_out "approval unchanged: '$APPROVAL'" "the same approval is kept"
	expect_out "signed it as alice@example.com, key ssh-ed25519 SHA256:" "says who signed"
	expect_out "in namespace memgate-approve (verified against '.memgate/allowed_signers')" "in its own namespace"
	expect_out "wrote '$APPROVAL.sig'" "names the signature"
	expect_out "  git add $APPROVAL $APPROVAL.sig" "the git add includes the signature"
	if [ "$(sha256sum "$srepo/$MANIFEST_PATH" | cut -d' ' -f1)" = "$msha" ]; then
		ok "the runner-signed manifest is untouched"
	else
		not_ok "the runner-signed manifest is untouched"
	fi
	if ssh-keygen -Y verify -f "$srepo/.memgate/allowed_signers" -I alice@example.com -n memgate-approve \
		-s "$srepo/$APPROVAL.sig" <"$srepo/$APPROVAL" >/dev/null 2>&1; then
		ok "ssh-keygen -Y verify -I alice@example.com accepts the approval's signature"
	else
		not_ok "ssh-keygen -Y verify -I alice@example.com accepts the approval's signature"
	fi
	g -C "$srepo" add "$APPROVAL" "$APPROVAL.sig" && g -C "$srepo" commit -q -m "approved"
	approve_in "$srepo" --fail-on reject </dev/null
	expect_code 0 "approving the same evidence again without --sign"
	expect_out "approval unchanged: '$APPROVAL'" "keeps the approval"
	if grep -q -- "--sign KEY" "$T/out"; then not_ok "and does not ask to sign it again"; else ok "and does not ask to sign it again"; fi
	expect_out "  git add $APPROVAL $APPROVAL.sig" "its signature is kept beside it"
	if [ -z "$(g -C "$srepo" status --porcelain)" ]; then ok "nothing changed"; else not_ok "nothing changed"; fi
	mg check -C "$srepo" --require-approved --fail-on reject --format json
	expect_code 0 "both links verify: check --require-approved passes"
	expect_field provenance.verified 'true'
	expect_field provenance.approval.verified 'true'
	expect_field provenance.approval.signer '"alice@example.com"'
	expect_field provenance.approval.namespace '"memgate-approve"'
	mg check -C "$srepo" --require-approved --fail-on reject
	expect_out "approval: approved by alice@example.com, key ssh-ed25519 SHA256:" "the text says who approved"
	g -C "$srepo" tag v2.0
	(cd "$srepo" && dash "$GATE" v2.0 --fail-on reject) >"$T/out" 2>"$T/err"
	code=$?
	expect_code 0 "the release gate accepts the signed tag"
	# an approval signed by the runner (made by hand) is approval_unverified
	ssh-keygen -q -Y sign -n memgate-approve -f "$T/runner" - <"$srepo/$APPROVAL" >"$srepo/$APPROVAL.sig" 2>/dev/null
	commit_all "$srepo" "the runner approves"
	mg check -C "$srepo" --require-approved --fail-on reject
	expect_code 1 "an approval signed by the runner fails the release"
	expect_out "evidence: not applicable: approval_unverified" "approval_unverified"
	expect_out "next action: re_approve_or_restore_evidence" "next action: approve again"
	expect_out ".memgate/allowed_signers:1:1: the approval is signed by ssh-ed25519 SHA256:" "at the runner's line"
	expect_out "which '.memgate/allowed_signers' lists for 'gpu-runner@ci' only, none of the principals provenance.approvers names (alice@example.com): a runner's key cannot approve; approve with an approver's key ('memgate approve --sign KEY') and commit the approval and its signature [approval_unverified]" \
		"says why and what to do"
	# a malformed approval signature: at its line and column, once
	sed -i '2s/^\(.....\)./\1*/' "$srepo/$APPROVAL.sig"
	commit_all "$srepo" "broken armor"
	mg check -C "$srepo" --require-approved --fail-on reject
	expect_code 1 "a malformed approval signature fails the release"
	expect_out "  $APPROVAL.sig:2:6: the approval's signature cannot be read: invalid SSH signature: '*' is not a base64 character; approve with an approver's key ('memgate approve --sign KEY') and commit the approval and its signature [approval_unverified]" \
		"at its line and column"
	# without its .sig
	g -C "$srepo" rm -q "$APPROVAL.sig" && g -C "$srepo" commit -q -m "no approval signature"
	mg check -C "$srepo" --require-approved --fail-on reject
	expect_code 1 "an approval without a signature fails the release"
	expect_out "no signature '$APPROVAL.sig' at $(g -C "$srepo" rev-parse --short=7 HEAD) for the approval" "says it is missing"
else
	echo "ok - # SKIP ssh-keygen not available (actions/install-deps installs openssh-client)"
fi

finish
