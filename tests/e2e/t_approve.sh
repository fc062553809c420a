#!/usr/bin/env bash
# memgate approve (memgate(1), CI, "Release gates"): it writes the decision record
# and pins it as the manifest's approved_result in one step; approve, git
# add, commit, then check --require-approved passes and the release gate
# accepts the tag.  Every refusal exits 2 and writes nothing: evidence that
# does not apply, a reject, a decision the gate fails on, no manifest, a
# bare repository, a bad --out, another record at --out, a manifest with
# uncommitted edits.  With signatures, the memgate sign line it prints signs
# the changed manifest again.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
APPROVED=benchmarks/results/75_approved.json

pinned_sha() { "$JSONGET" "$repo/$MANIFEST_PATH" approved_result.sha256 | tr -d '"'; }
pinned_path() { "$JSONGET" "$repo/$MANIFEST_PATH" approved_result.path | tr -d '"'; }

# The team's repository: tune / checkpoint; the policy fails on [reject, tune].
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
head=$(g -C "$repo" rev-parse --short=7 HEAD)

# --- usage errors -----------------------------------------------------------
mg approve -C "$repo"
expect_code 2 "approve needs --out"
expect_err "memgate: error: approve: needs --out PATH" "says so, git's way"
expect_err "see 'memgate approve -h'" "and points at the help"
mg approve -C "$repo" --out x.json --rev HEAD
expect_code 2 "approve takes no --rev: it approves HEAD"
expect_err "unknown option '--rev'" "names the option"
mg approve -C "$repo" --out x.json --fail-on maybe
expect_code 2 "a bad --fail-on"
mg approve -C "$repo" --out x.json --policy a.yml --policy b.yml
expect_code 2 "one policy at a time"
mg approve -h
expect_code 0 "approve -h"
expect_out "usage: memgate approve --out PATH" "prints the usage"
mg -h
expect_out "approve    record the decision and pin it in the manifest" "memgate -h lists approve"

# --- a tune the policy's gate fails on is refused ------------------------------
approve_refused "a tune under gate.fail_on [reject, tune]" \
	"cannot approve: the evidence at $head decides tune (memory_saving_below_meaningful_threshold), selected checkpoint, which the policy's gate.fail_on fails on" \
	--out "$repo/$APPROVED"
expect_err "e.g. --fail-on reject" "says how to approve a tune on purpose"
approve_refused "the same with --fail-on tune" "which --fail-on fails on (tune)" --out "$repo/$APPROVED" --fail-on tune

# --- approve, commit, check --require-approved, release gate -------------------
approve_in "$repo" --out "$APPROVED" --fail-on reject
expect_code 0 "approve --fail-on reject approves the tune"
expect_out "approved: tune (memory_saving_below_meaningful_threshold), selected checkpoint, at $head" "says what it approved"
sha=$(sha256sum "$repo/$APPROVED" | cut -d' ' -f1)
expect_out "wrote '$APPROVED' (sha256 $sha)" "names the record and its SHA-256"
expect_out "pinned as approved_result in '$MANIFEST_PATH'" "names the manifest"
expect_out "  git add $APPROVED $MANIFEST_PATH" "prints the git add to run"
expect_no_err "memgate sign" "no signing line without provenance"
if grep -q "memgate sign" "$T/out"; then not_ok "no signing line without provenance (stdout)"; else ok "no signing line without provenance (stdout)"; fi
keep_record "$repo/$APPROVED"
expect_field decision '"tune"' "$repo/$APPROVED"
expect_field selected_candidate '"checkpoint"' "$repo/$APPROVED"
expect_field gate.fail_on '["reject"]' "$repo/$APPROVED"
if [ "$(pinned_sha)" = "$sha" ] && [ "$(pinned_path)" = "$APPROVED" ]; then
	ok "the manifest pins the record's path and SHA-256"
else
	not_ok "the manifest pins the record's path and SHA-256" "$(cat "$repo/$MANIFEST_PATH")"
fi
# only approved_result changed: the rest of the manifest is as memgate manifest wrote it
g -C "$repo" show "HEAD:$MANIFEST_PATH" | head -n 4 >"$T/before"
head -n 4 "$repo/$MANIFEST_PATH" >"$T/after"
if cmp -s "$T/before" "$T/after"; then ok "the manifest's other keys are kept"; else not_ok "the manifest's other keys are kept"; fi
cp "$repo/$APPROVED" "$T/approved.json"
mg record -C "$repo" --out "$T/approved.json" --fail-on reject
expect_code 0 "the approved record is what memgate record writes (write-once: unchanged)"
expect_err "record unchanged:" "memgate record finds the same record"

g -C "$repo" add "$APPROVED" "$MANIFEST_PATH"
g -C "$repo" commit -q -m "approve tune/checkpoint"
mg check -C "$repo" --require-approved --fail-on reject --format json
expect_code 0 "approve, commit: check --require-approved passes"
expect_field approved.decision '"tune"'
expect_field approved.selected_candidate '"checkpoint"'
expect_field evidence.is_applicable 'true'
mg check -C "$repo" --require-approved --fail-on reject
expect_out "approved record: tune, selected checkpoint (the evidence still decides this)" "the text says it"
g -C "$repo" tag v1.0
(cd "$repo" && dash "$GATE" v1.0 --fail-on reject) >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "the release gate accepts the tag"
expect_err "release-gate: 'v1.0' passes: tune (memory_saving_below_meaningful_threshold), selected checkpoint, as approved" \
	"its verdict line"

# Approving again what is committed changes nothing.
head2=$(g -C "$repo" rev-parse --short=7 HEAD)
tree_snapshot "$repo"
approve_in "$repo" --out "$APPROVED" --fail-on reject
expect_code 0 "approving the same evidence again"
expect_out "record unchanged: '$APPROVED'" "the record is unchanged"
expect_out "already pinned as approved_result in '$MANIFEST_PATH'" "and already pinned"
expect_tree_unchanged "$repo" "approving again writes nothing"

# A new approval under a new name replaces approved_result in place, even
# when the old record is gone (approve does not read it).
g -C "$repo" rm -q "$APPROVED"
g -C "$repo" commit -q -m "drop the old record"
mg check -C "$repo" --require-approved --fail-on reject
expect_code 1 "with the old record gone, the release gate fails"
mkdir -p "$repo/benchmarks/results/approvals"
approve_in "$repo/benchmarks" --out results/approvals/v2.json --fail-on reject
expect_code 0 "approve from a subdirectory, a path relative to it"
expect_out "wrote 'results/approvals/v2.json'" "names --out as given"
expect_out "pinned as approved_result in 'results/75_input_manifest.json'" "names the manifest from where memgate ran"
expect_out "  git add results/approvals/v2.json results/75_input_manifest.json" "the git add works there"
if [ "$(pinned_path)" = "benchmarks/results/approvals/v2.json" ]; then
	ok "approved_result.path is the repository path"
else
	not_ok "approved_result.path is the repository path" "$(pinned_path)"
fi
g -C "$repo" add -A && g -C "$repo" commit -q -m "approve again"
mg check -C "$repo" --require-approved --fail-on reject
expect_code 0 "the new approval passes"

# --- refusals: nothing written ------------------------------------------------
approve_refused "--out outside the working tree" "--out '$T/elsewhere.json' is outside the working tree" \
	--out "$T/elsewhere.json" --fail-on reject
approve_in "$repo" --out ../x.json --fail-on reject
expect_code 2 "--out above the working tree"
expect_err "is above the working tree" "says so"
expect_no_file "$T/x.json" "--out above the working tree: nothing written"
approve_refused "--out naming the manifest" "--out '$repo/$MANIFEST_PATH' is the manifest: choose a new file" \
	--out "$repo/$MANIFEST_PATH" --fail-on reject
approve_refused "--out naming the report" "is the report" --out "$repo/$REPORT_PATH" --fail-on reject
approve_refused "--out naming the policy" "is the policy" --out "$repo/.memgate.yml" --fail-on reject
printf '{"decision": "accept", "selected_candidate": null}\n' >"$repo/other.json"
g -C "$repo" add other.json && g -C "$repo" commit -q -m "another record"
approve_refused "--out holding another record" "already holds a different decision record; records are write-once" \
	--out "$repo/other.json" --fail-on reject
printf 'notes\n' >"$repo/notes.txt"
g -C "$repo" add notes.txt && g -C "$repo" commit -q -m notes
approve_refused "--out holding a file that is no record" "notes.txt" --out "$repo/notes.txt" --fail-on reject
mkdir -p "$T/outside"
ln -s "$T/outside" "$repo/linked"
g -C "$repo" add linked && g -C "$repo" commit -q -m "a symlink"
approve_refused "--out through a symlinked directory" "symlink" --out "$repo/linked/r.json" --fail-on reject
expect_no_file "$T/outside/r.json" "nothing written through the symlink"

# A manifest with uncommitted edits is not overwritten.
printf '\n' >>"$repo/$MANIFEST_PATH"
approve_refused "a manifest with uncommitted edits" "has uncommitted changes in the working tree; approve pins the manifest committed at HEAD" \
	--out "$repo/benchmarks/results/v3.json" --fail-on reject
g -C "$repo" checkout -q -- "$MANIFEST_PATH"

# Evidence that does not apply: the report differs from its pin.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 8650.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "edited numbers"
h=$(g -C "$repo" rev-parse --short=7 HEAD)
approve_refused "evidence that does not apply" \
	"cannot approve: the evidence at $h does not apply (report_hash_mismatch): a release gate rejects it; next action" \
	--out "$repo/benchmarks/results/v3.json" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A reject is never approved, whatever --fail-on says.
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 1000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap nothing meets"
h=$(g -C "$repo" rev-parse --short=7 HEAD)
approve_refused "a reject" "cannot approve a reject: the evidence at $h decides reject (" \
	--out "$repo/benchmarks/results/v3.json" --fail-on none
g -C "$repo" revert --no-edit HEAD >/dev/null

# The policy names the report directly: no manifest to pin it in.
sed -i "s|^manifest: .*|report: $REPORT_PATH|" "$repo/.memgate.yml"
commit_all "$repo" "report:"
approve_refused "a policy without a manifest" "the policy names the report directly ('report:'), so there is no manifest" \
	--out "$repo/benchmarks/results/v3.json" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A manifest the policy names but the commit lacks: check's own error.
g -C "$repo" rm -q "$MANIFEST_PATH"
g -C "$repo" commit -q -m "no manifest"
approve_refused "a missing manifest" "cannot read '$MANIFEST_PATH'" --out "$repo/benchmarks/results/v3.json" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A malformed policy: its file, line and column.
printf 'budget: [\n' >>"$repo/.memgate.yml"
commit_all "$repo" "broken policy"
approve_refused "a malformed policy" ".memgate.yml:" --out "$repo/benchmarks/results/v3.json" --fail-on reject
g -C "$repo" revert --no-edit HEAD >/dev/null

# A bare repository has no working tree to write in.
g clone -q --bare "$repo" "$T/bare.git"
mg approve -C "$T/bare.git" --out "$T/b.json" --fail-on reject
expect_code 2 "a bare repository"
expect_err "a bare repository has no working tree" "says so"
expect_no_file "$T/b.json" "a bare repository: nothing written"

# --- signed evidence: approve prints the line that signs the manifest again ----
if command -v ssh-keygen >/dev/null 2>&1; then
	SIG=$MANIFEST_PATH.sig
	ssh-keygen -q -t ed25519 -N '' -C runner -f "$T/runner"
	srepo=$T/signed
	make_gate_repo "$srepo" "$E/real-flat-11200.yml" "$FLAT"
	mkdir -p "$srepo/.memgate"
	printf 'gpu-runner@ci namespaces="release" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
		>"$srepo/.memgate/allowed_signers"
	printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n  namespace: release\n' >>"$srepo/.memgate.yml"
	commit_all "$srepo" "require signatures"
	repo=$srepo
	approve_refused "unsigned evidence under provenance.require" "does not apply (signature_missing)" \
		--out "$srepo/$APPROVED" --fail-on reject
	ssh-keygen -q -Y sign -n release -f "$T/runner" "$srepo/$MANIFEST_PATH" 2>/dev/null
	commit_all "$srepo" "signed"
	approve_in "$srepo" --out "$APPROVED" --fail-on reject
	expect_code 0 "signed evidence is approved"
	cp "$T/out" "$T/out.approve"
	expect_out "the policy requires signatures: sign it again with an allowed key, on the trusted runner:" \
		"says the manifest must be signed again"
	expect_out "  memgate sign --key KEY" "prints the memgate sign line"
	expect_out "  git add $APPROVED $MANIFEST_PATH $SIG" "the git add includes the signature"
	g -C "$srepo" add "$APPROVED" "$MANIFEST_PATH" && g -C "$srepo" commit -q -m "approved, not re-signed"
	mg check -C "$srepo" --require-approved --fail-on reject
	expect_code 1 "without signing again, the old signature no longer matches"
	expect_out "evidence: not applicable: signature_invalid" "signature_invalid"
	# what the printed line says, KEY being the runner's key
	line=$(sed -n 's/^  memgate sign \(.*\)$/\1/p' "$T/out.approve")
	# shellcheck disable=SC2086
	(cd "$srepo" && "$MEMGATE" sign ${line/--key KEY/--key $T/runner} </dev/null) 2>/dev/null
	g -C "$srepo" add "$SIG" && g -C "$srepo" commit -q -m "signed again"
	mg check -C "$srepo" --require-approved --fail-on reject --format json
	expect_code 0 "signed again with the printed line: check --require-approved passes"
	expect_field provenance.verified 'true'
	g -C "$srepo" tag v2.0
	(cd "$srepo" && dash "$GATE" v2.0 --fail-on reject) >"$T/out" 2>"$T/err"
	code=$?
	expect_code 0 "the release gate accepts the signed tag"
	approve_in "$srepo/benchmarks" --out results/v3.json --fail-on reject
	expect_code 0 "approve from a subdirectory of a signed repository"
	expect_out "  memgate sign --key KEY" \
		"the memgate sign line works from where memgate ran"
	expect_out "  git add results/v3.json results/75_input_manifest.json results/75_input_manifest.json.sig" \
		"and so does the git add, signature included"
	g -C "$srepo" checkout -q -- .
	approve_in "$T" -C "$srepo/benchmarks" --out "$srepo/benchmarks/results/v4.json" --fail-on reject
	expect_code 0 "approve -C DIR of a signed repository"
	expect_out "  memgate sign -C $srepo/benchmarks --key KEY" "the memgate sign line keeps -C DIR"
else
	echo "ok - # SKIP ssh-keygen not available (actions/install-deps installs openssh-client)"
fi

finish
