#!/usr/bin/env bash
# The release gate (actions/release-gate): a tag passes when its evidence
# still yields the decision recorded in the manifest's approved_result;
# records are write-once; drifted evidence or policy fails the release.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
GATE=$SRC/actions/release-gate
APPROVED=benchmarks/results/75_approved.json

mkdir -p "$T/bin"
cat >"$T/bin/memgate" <<SH
#!/bin/sh
exec ${MEMGATE_WRAP:-} "$MEMGATE" "\$@"
SH
chmod +x "$T/bin/memgate"

# release ARGS...: run the release gate under dash in $repo; sets $code.
release() {
	(cd "$repo" && MEMGATE=$T/bin/memgate dash "$GATE" "$@") >"$T/out" 2>"$T/err"
	code=$?
}
# pin_approved DIR: a manifest pinning the report and the approved record.
pin_approved() {
	cat >"$1/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$(sha256sum "$1/$REPORT_PATH" | cut -d' ' -f1)" },
  "approved_result": { "path": "$APPROVED", "sha256": "$(sha256sum "$1/$APPROVED" | cut -d' ' -f1)" }
}
JSON
}

if dash -n "$GATE" 2>"$T/err"; then ok "the release gate parses with dash"; else not_ok "the release gate parses with dash"; fi
if ! command -v shellcheck >/dev/null 2>&1; then
	ok "# SKIP shellcheck not installed"
elif shellcheck -s sh "$GATE" >"$T/out" 2>&1; then
	ok "shellcheck -s sh finds nothing in the release gate"
else
	not_ok "shellcheck -s sh finds nothing in the release gate"
fi

# Record the decision (tune / checkpoint) and commit the record.
make_gate_repo "$T/rel" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/rel
mg record -C "$repo" --out "$repo/$APPROVED"
expect_code 1 "recording a tune decision exits like check"
commit_all "$repo" "record tune/checkpoint"
cp "$repo/$APPROVED" "$T/approved.before"

# Re-recording the same evidence in a later commit is a no-op.
echo "how we measured" >"$repo/README"
commit_all "$repo" "docs"
mg record -C "$repo" --out "$repo/$APPROVED"
expect_code 1 "re-recording the same evidence exits like check"
expect_err "unchanged" "says the record is unchanged"
if cmp -s "$repo/$APPROVED" "$T/approved.before"; then ok "the record file is untouched"; else not_ok "the record file is untouched"; fi

# Pin the record as the approved result and tag the release.
pin_approved "$repo"
commit_all "$repo" "approve tune/checkpoint"
g -C "$repo" tag v1

release v1 --fail-on reject
expect_code 0 "a tag whose evidence matches the approved record passes"
expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "memgate's report is on stdout"
expect_err "release-gate: 'v1' passes" "a one-line verdict on stderr"
# $TMPDIR through a symlink, as on macOS (/var/folders -> /private/var/...):
# the gate's record there is written.
mkdir -p "$T/private/tmp" && ln -s private/tmp "$T/tmp"
TMPDIR=$T/tmp release v1 --fail-on reject
expect_code 0 "with TMPDIR through a symlink the tag still passes"
release v1 --fail-on reject --format json
expect_code 0 "options are passed to memgate"
expect_field approved.decision '"tune"'
expect_field approved.selected_candidate '"checkpoint"'
expect_field inputs.rev "\"$(g -C "$repo" rev-parse v1)\""
expect_field gate.passed true
release v1
expect_code 1 "the policy's fail_on still applies: an approved tune fails [reject, tune]"
expect_err "release-gate: 'v1' fails" "the verdict says it fails"

# The tag to gate: the tag at HEAD, or GitHub's tag ref, or -C elsewhere.
release --fail-on reject
expect_code 0 "without TAG the tag at HEAD is gated"
expect_err "'v1' passes" "names the tag at HEAD"
(cd "$T" && MEMGATE=$T/bin/memgate dash "$GATE" v1 -C "$repo" --fail-on reject) >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "-C DIR selects the repository for the tag too"

# A later policy yields a different record (another reason), which cannot
# overwrite the approved one; the release still holds the approved decision
# and candidate, which is all the release gate compares.
sed -i 's/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' "$repo/.memgate.yml"
commit_all "$repo" "loosen the saving floor"
mg record -C "$repo" --out "$repo/$APPROVED"
expect_code 2 "a different record is refused"
expect_err "write-once" "says records are write-once"
if cmp -s "$repo/$APPROVED" "$T/approved.before"; then ok "the refused record left the file alone"; else not_ok "the refused record left the file alone"; fi
g -C "$repo" tag v1.1
release v1.1 --fail-on reject --format json
expect_code 0 "a new reason with the approved decision and candidate passes"
expect_field reason '"selection_is_threshold_sensitive"'
expect_field selected_candidate '"checkpoint"'

# A policy that changes the decision fails the release.
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 9000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap below every candidate"
g -C "$repo" tag v1.2
release --fail-on reject --format json
expect_code 1 "a tag whose policy changed the decision fails"
expect_field decision '"reject"'
expect_field reason '"decision_drift"'
expect_field approved.decision '"tune"'
expect_err "release-gate: 'v1.2' fails" "the tag at HEAD is named in the verdict"

# New measurements (hybrid now has the lowest peak) with the approval kept:
# the approved record is of another report, whatever it decides now.
g -C "$repo" reset -q --hard v1
sed -i 's/"peak_memory_mb": 9454.64/"peak_memory_mb": 8000.0/' "$repo/$REPORT_PATH"
pin_approved "$repo"
commit_all "$repo" "new measurements"
g -C "$repo" tag -a -m "release 2" v2
release v2 --fail-on reject --format json
expect_code 1 "a tag whose evidence is not the approved one fails"
expect_field decision '"reject"'
expect_field evidence.issues '["approval_of_other_evidence"]'
expect_field next_action '"re_approve_or_restore_evidence"'
expect_field selected_candidate null
expect_err "release-gate: 'v2' fails" "the verdict names the annotated tag"

# GitHub's tag push names the tag; HEAD need not carry it.
echo "notes" >"$repo/README"
commit_all "$repo" "after the release"
release --fail-on reject
expect_code 2 "no tag at HEAD and none named"
expect_err "no tag points at HEAD" "says no tag points at HEAD"
(cd "$repo" && GITHUB_REF_TYPE=tag GITHUB_REF_NAME=v1 MEMGATE=$T/bin/memgate dash "$GATE" --fail-on reject) >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "GITHUB_REF_NAME names the tag on a tag push"
expect_err "'v1' passes" "gated v1"
(cd "$repo" && GITHUB_REF_TYPE=branch GITHUB_REF_NAME=main MEMGATE=$T/bin/memgate dash "$GATE" --fail-on reject) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "a branch push's GITHUB_REF_NAME is not a tag"

# What cannot be gated exits 2.
g -C "$repo" tag v3
g -C "$repo" tag v3-rc
release
expect_code 2 "several tags at HEAD"
expect_err "several tags point at HEAD" "asks which tag"
release v9
expect_code 2 "a missing tag"
expect_err "no tag 'v9'" "names the missing tag"
release main
expect_code 2 "a branch is not a release tag"
(cd "$repo" && MEMGATE=$T/no-such-memgate dash "$GATE" v1) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "memgate that cannot run"
expect_err "cannot run memgate '$T/no-such-memgate'" "names the memgate it tried"

finish
