#!/usr/bin/env bash
# A policy change that would fail its own evidence fails its pull request
# (memgate(1), CI, "Pull requests"): the base's policy decides, and when the
# change tightens or changes the policy, the change's own policy (what the
# branch enforces once merged) decides the same evidence too; failing it
# where the base passes is policy_change_fails_its_evidence, whose message
# says what to add.  Loosenings and unchanged policies decide as before.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
SIG=$MANIFEST_PATH.sig
CODE=policy_change_fails_its_evidence

# base_repo DIR: the flat report under the chapter's budget decides tune,
# which this gate lets pass (fail_on: [reject]); tagged base.
base_repo() {
	make_gate_repo "$1" "$E/real-flat-11200.yml" "$FLAT"
	sed -i 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$1/.memgate.yml"
	commit_all "$1" "gate on reject only"
	g -C "$1" tag base
}

# expect_fails DESC: the pull request fails with the new reason, the base's
# decision kept.
expect_fails() {
	mg check -C "$repo" --policy-rev base --format json
	expect_code 1 "$1: the pull request fails"
	expect_field decision '"tune"'
	expect_field gate.passed 'false'
	expect_field gate.reason "\"$CODE\""
	expect_field proposed_policy.rev "\"$(g -C "$repo" rev-parse HEAD)\""
}

# expect_passes DESC: as before the change: no trace of the new check.
expect_passes() {
	mg check -C "$repo" --policy-rev base --format json
	expect_code 0 "$1: the pull request passes"
	expect_field gate.passed 'true'
	if grep -q "proposed_policy\|$CODE" "$T/out"; then
		not_ok "$1: the record says nothing of the proposed policy" "$(grep -n "$CODE" "$T/out")"
	else
		ok "$1: the record says nothing of the proposed policy"
	fi
}

# ---- provenance turned on, the evidence unsigned ----
if command -v ssh-keygen >/dev/null 2>&1; then
	repo=$T/sig
	base_repo "$repo"
	ssh_key runner
	mkdir -p "$repo/.memgate"
	printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
		>"$repo/.memgate/allowed_signers"
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
	commit_all "$repo" "require signed evidence"
	line=$(grep -n '^provenance:' "$repo/.memgate.yml" | cut -d: -f1)

	expect_fails "provenance turned on, no signature"
	expect_field proposed_policy.decision '"reject"'
	expect_field proposed_policy.issues '["signature_missing"]'
	expect_field proposed_policy.fail_on '["reject"]'
	expect_field proposed_policy.error 'null'
	mg check -C "$repo" --policy-rev base
	expect_code 1 "provenance turned on: text fails"
	expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "text: the base's decision stands"
	expect_out "policy: .memgate.yml:$((line + 1)):20: the policy this change proposes fails its own evidence: at $(g -C "$repo" rev-parse --short=7 HEAD) it decides reject (evidence_not_applicable: signature_missing) where the policy that decides passes, and once merged it decides every later change; sign the manifest ('$SIG') on the trusted runner and commit the signature in this change [$CODE]" \
		"text: says to sign the manifest, at the changed key"
	expect_out "gate: failed (fails on: reject)" "text: the gate fails"
	expect_text_as_with_findings "a proposed policy that fails" -C "$repo" --policy-rev base
	mg check -C "$repo" --policy-rev base --format github
	expect_code 1 "provenance turned on: annotations"
	expect_out "::error file=.memgate.yml,line=$((line + 1)),col=20,title=memgate%3A $CODE::the policy this change proposes fails its own evidence" \
		"annotation: an error at the changed key"
	mg check -C "$repo" --policy-rev base --summary "$T/summary.md" --comment "$T/comment.md"
	expect_code 1 "provenance turned on: summary and comment"
	if grep -q "$CODE" "$T/summary.md" && grep -q "sign the manifest" "$T/summary.md"; then
		ok "summary: lists the finding, says to sign"
	else
		not_ok "summary: lists the finding, says to sign" "$(cat "$T/summary.md")"
	fi
	if grep -q "$CODE" "$T/comment.md" && grep -q "sign the manifest" "$T/comment.md"; then
		ok "comment: lists the finding, says to sign"
	else
		not_ok "comment: lists the finding, says to sign" "$(cat "$T/comment.md")"
	fi

	# Signed by a key the base's allowed signers list: merged, it passes.
	repo=$T/signed
	base_repo "$repo"
	mkdir -p "$repo/.memgate"
	cp "$T/sig/.memgate/allowed_signers" "$repo/.memgate/allowed_signers"
	commit_all "$repo" "the signers first"
	g -C "$repo" tag -f base >/dev/null
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
	rm -f "$repo/$SIG"
	ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$repo/$MANIFEST_PATH" 2>/dev/null
	commit_all "$repo" "require signed evidence, signed"
	expect_passes "provenance turned on, signed by a key the base trusts"

	# Signed by a key only the change's own allowed signers list: the change
	# cannot supply the trust that makes its evidence pass.
	ssh_key intruder
	printf 'me@laptop namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/intruder.pub")" \
		>>"$repo/.memgate/allowed_signers"
	rm -f "$repo/$SIG"
	ssh-keygen -q -Y sign -n memgate -f "$T/intruder" "$repo/$MANIFEST_PATH" 2>/dev/null
	commit_all "$repo" "sign with a key this change adds"
	expect_fails "signed by a key the change adds"
	expect_field proposed_policy.issues '["signer_unknown"]'
	mg check -C "$repo" --policy-rev base
	expect_out "sign the manifest with a key that '.memgate/allowed_signers' at $(g -C "$repo" rev-parse --short=7 base) lists" \
		"text: the base's signers decide who may sign"

	# The base has no allowed signers at all: the change's own file is read,
	# which can only keep its policy's decision from failing the change,
	# never make a failing one pass (the base's policy decides that).
	repo=$T/new-signers
	base_repo "$repo"
	mkdir -p "$repo/.memgate"
	cp "$T/sig/.memgate/allowed_signers" "$repo/.memgate/allowed_signers"
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
	ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$repo/$MANIFEST_PATH" 2>/dev/null
	commit_all "$repo" "signers, provenance and a signature in one change"
	expect_passes "provenance turned on with the signers it adds, signed"
else
	echo "ok - # SKIP ssh-keygen not available: provenance cases"
fi

# ---- evidence.inputs turned on, no measured.commit ----
repo=$T/inputs
base_repo "$repo"
printf 'evidence:\n  inputs: [src/model]\n' >>"$repo/.memgate.yml"
commit_all "$repo" "tie the evidence to src/model"
line=$(grep -n '^  inputs:' "$repo/.memgate.yml" | cut -d: -f1)
expect_fails "evidence.inputs turned on, no measured.commit"
expect_field proposed_policy.issues '["measured_commit_missing"]'
mg check -C "$repo" --policy-rev base
expect_out "policy: .memgate.yml:$line:11: the policy this change proposes fails its own evidence" \
	"text: at evidence.inputs"
expect_out "; pin measured.commit in the manifest (memgate manifest --measured-commit REV) in this change [$CODE]" \
	"text: says to pin measured.commit"

# ---- budget tightenings ----
repo=$T/tight
base_repo "$repo"
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 11000/' "$repo/.memgate.yml"
commit_all "$repo" "a tighter cap the evidence meets"
expect_passes "a tightening the evidence meets"
expect_field policy_changes.0.effect '"tightens"'

sed -i 's/memory_cap_mb: 11000/memory_cap_mb: 5000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap below every candidate"
expect_fails "a tightening the evidence fails"
expect_field proposed_policy.decision '"reject"'
expect_field proposed_policy.reason '"no_candidate_meets_base_budget"'
expect_field proposed_policy.issues '[]'
mg check -C "$repo" --policy-rev base
expect_out "re-measure the evidence so that it meets the new policy" "text: says to re-measure"

# gate.fail_on tightened to tune, which the evidence decides.
repo=$T/failon
base_repo "$repo"
sed -i 's/fail_on: \[reject\]/fail_on: [reject, tune]/' "$repo/.memgate.yml"
commit_all "$repo" "fail on tune too"
expect_fails "gate.fail_on tightened to the evidence's verdict"
expect_field proposed_policy.decision '"tune"'
expect_field proposed_policy.fail_on '["tune","reject"]'

# A policy that names a manifest the change does not have cannot decide:
# merged, every later check would stop with exit 2.
repo=$T/moved
base_repo "$repo"
sed -i 's|^manifest: .*|manifest: bench/75.json|' "$repo/.memgate.yml"
commit_all "$repo" "name a manifest that is not there"
expect_fails "the change's policy cannot decide its evidence"
expect_field proposed_policy.decision 'null'
expect_field proposed_policy.error "\".memgate.yml:4:11: cannot read 'bench/75.json' at $(g -C "$repo" rev-parse --short=7 HEAD): not found\""
mg check -C "$repo" --policy-rev base
expect_out "it cannot decide (.memgate.yml:4:11: cannot read 'bench/75.json' at" "text: says it cannot decide"
expect_out "; fix the policy or its evidence in this change [$CODE]" "text: says to fix it in this change"

# ---- a loosening: the base's policy decides, as before ----
repo=$T/loose
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
g -C "$repo" tag base
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 20000/; s/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' \
	"$repo/.memgate.yml"
commit_all "$repo" "loosen the budget"
mg check -C "$repo" --policy-rev base --format json
expect_code 1 "a loosening: the base's policy decides"
expect_field decision '"tune"'
if grep -q "proposed_policy\|$CODE" "$T/out"; then
	not_ok "a loosening: the record says nothing of the proposed policy" "$(grep -n "$CODE" "$T/out")"
else
	ok "a loosening: the record says nothing of the proposed policy"
fi

repo=$T/loose-pass
base_repo "$repo"
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 20000/' "$repo/.memgate.yml"
commit_all "$repo" "loosen the cap"
expect_passes "a loosening of a passing gate"

# ---- an unchanged policy: exactly as before ----
repo=$T/same
base_repo "$repo"
echo "# a comment" >>"$repo/.memgate.yml"
echo "code" >"$repo/README"
commit_all "$repo" "a comment in the policy, a code change"
expect_passes "a policy that changes no key"

finish
