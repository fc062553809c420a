#!/usr/bin/env bash
# memgate approve --all (memgate(1), CI, "Release gates"): every policy of a
# monorepo is approved in one command, each approval beside its manifest
# (MANIFEST.approved.json), no manifest touched; all or nothing: one model
# that cannot be approved refuses the lot (exit 2, nothing written, each
# refusal named).  Then the release gate --all passes the tag, and fails it
# once one model is measured again (approval_of_other_evidence).  With
# --sign each approval is signed (ssh-keygen -Y verify accepts each).  --out,
# --all with --policy, policies sharing a manifest and a repository without
# policies are refused (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"

GATE=$SRC/actions/release-gate
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
NAME=75_manifest.approved.json

release() {
	(cd "$repo" && MEMGATE=$MEMGATE dash "$GATE" "$@") >"$T/out" 2>"$T/err"
	code=$?
}

# three_models DIR [FAILING]: models/a, models/b and models/c, each with its
# own policy (the demo's, accept under a lower saving floor), report and
# manifest (written by memgate manifest from the model's directory); the
# model FAILING keeps the demo's floor: tune, which its gate fails on.
three_models() {
	local dir=$1 failing=${2:-} m
	g init -q "$dir"
	for m in a b c; do
		mkdir -p "$dir/models/$m/results"
		cp "$FLAT" "$dir/models/$m/results/76_report.json"
		if [ "$m" = "$failing" ]; then
			sed -e "s|^manifest: .*|manifest: models/$m/results/75_manifest.json|" \
				"$FIX/demo/memgate.yml" >"$dir/models/$m/.memgate.yml"
		else
			sed -e "s|^manifest: .*|manifest: models/$m/results/75_manifest.json|" \
			    -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' \
			    -e '/^  grid:/,/^    min_samples_per_s:/d' \
				"$FIX/demo/memgate.yml" >"$dir/models/$m/.memgate.yml"
		fi
		(cd "$dir/models/$m" && ${MEMGATE_WRAP:-} "$MEMGATE" manifest --worktree \
			--report results/76_report.json --out results/75_manifest.json) >/dev/null 2>&1
	done
	commit_all "$dir" "three models"
}

# --- three models approved in one command ------------------------------------

repo=$T/mono
three_models "$repo"
approve_in "$repo" --all
expect_code 0 "approve --all approves the three models"
for m in a b c; do
	rec=models/$m/results/$NAME
	man=models/$m/results/75_manifest.json
	if [ -f "$repo/$rec" ] && grep -q '"memgate_approval": 1' "$repo/$rec"; then
		ok "model $m: its approval is written beside its manifest"
	else
		not_ok "model $m: its approval is written beside its manifest"
	fi
	got=$("$JSONGET" "$repo/$rec" manifest.sha256)
	if [ "$got" = "\"$(sha256sum "$repo/$man" | cut -d' ' -f1)\"" ]; then
		ok "model $m: the approval binds its manifest's SHA-256"
	else
		not_ok "model $m: the approval binds its manifest's SHA-256" "$got"
	fi
	if [ "$("$JSONGET" "$repo/$rec" record.decision)" = '"accept"' ] &&
		[ "$("$JSONGET" "$repo/$rec" record.inputs.policy.path)" = "\"models/$m/.memgate.yml\"" ]; then
		ok "model $m: the approval holds its policy's decision record"
	else
		not_ok "model $m: the approval holds its policy's decision record"
	fi
	if [ -z "$(g -C "$repo" status --porcelain -- "$man")" ]; then
		ok "model $m: its manifest is untouched"
	else
		not_ok "model $m: its manifest is untouched"
	fi
	expect_out "models/$m/.memgate.yml:" "model $m: the output names its policy"
	expect_out "wrote 'models/$m/results/$NAME'" "model $m: and its approval"
done
expect_out "  git add models/c/results/$NAME" "the git add line of each model"
g -C "$repo" add -A && g -C "$repo" commit -q -m "approve the three models"
for m in a b c; do
	mg check -C "$repo" --policy "models/$m/.memgate.yml" --require-approved
	expect_code 0 "model $m: check --require-approved passes once committed"
done
g -C "$repo" tag v1
release v1 --all
expect_code 0 "release-gate --all passes the approved tag"
expect_err "release-gate: 'v1' models/b/.memgate.yml passes: accept" "names each model's verdict"
expect_err "3 policies: 3 passed, 0 failed" "and the combined verdict"

# approving again from a model's directory changes nothing
approve_in "$repo/models/a" --all
expect_code 0 "approve --all again, from a model's directory"
expect_out "approval unchanged: 'results/$NAME'" "paths are shown from the current directory"
expect_out "approval unchanged: '../c/results/$NAME'" "another model's too"
if [ -z "$(g -C "$repo" status --porcelain)" ]; then ok "nothing changed"; else not_ok "nothing changed"; fi

# one model's evidence drifts: its new measurement decides otherwise
sed 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9700.5/' "$FLAT" >"$repo/models/b/results/76_report.json"
if cmp -s "$FLAT" "$repo/models/b/results/76_report.json"; then
	not_ok "the fixture's checkpoint peak was edited" "sed changed nothing"
fi
(cd "$repo/models/b" && "$MEMGATE" manifest --worktree --report results/76_report.json \
	--out results/75_manifest.json --force) >/dev/null 2>&1
commit_all "$repo" "model b measured again"
g -C "$repo" tag v2
release v2 --all
expect_code 1 "release-gate --all fails once one model's evidence drifts"
expect_err "release-gate: 'v2' models/a/.memgate.yml passes" "the other models still pass"
expect_err "release-gate: 'v2' models/b/.memgate.yml fails: reject (evidence_not_applicable: approval_of_other_evidence), next action re_approve_or_restore_evidence" \
	"the model measured again fails: its approval is of other evidence"
expect_err "3 policies: 2 passed, 1 failed" "and the combined verdict fails"

# --- one model cannot be approved: none is -------------------------------------

repo=$T/onefails
three_models "$repo" c
approve_refused "approve --all with one failing model refuses the lot" \
	"memgate: error: approve --all: 1 of 3 policies cannot be approved, so none is: nothing was written" \
	--all
expect_err "memgate: error: models/c/.memgate.yml: cannot approve: the evidence at" \
	"names the model refused and why"
expect_no_err "models/a/.memgate.yml: cannot" "does not blame the others"
mg approve -C "$repo" --all --fail-on reject
expect_code 0 "with the release gate's rule (--fail-on reject) all three are approved"

# --- bad input ---------------------------------------------------------------------

repo=$T/bad
three_models "$repo"
approve_refused "--all with the old --out" \
	"memgate: error: approve: --out is gone: approve writes the approval beside the manifest" \
	--all --out "$NAME"
approve_refused "--all with --policy" "memgate: error: approve: --all approves every policy: give it without --policy" \
	--all --policy models/a/.memgate.yml
mg approve -C "$repo" --policy models/a/.memgate.yml --policy models/b/.memgate.yml
expect_code 2 "two --policy without --all"
expect_err "give one --policy, or --all" "says --all approves several"
# two policies that share a manifest would share the approval
sed -e 's|^manifest: .*|manifest: models/a/results/75_manifest.json|' "$repo/models/b/.memgate.yml" \
	>"$repo/models/a/second.memgate.yml"
commit_all "$repo" "a second policy on model a's manifest"
approve_refused "--all with two policies sharing a manifest" \
	"memgate: error: models/a/second.memgate.yml: its approval 'models/a/results/$NAME' would also be the approval of 'models/a/.memgate.yml' (they share a manifest): give each policy a manifest of its own" \
	--all
repo=$T/empty
g init -q "$repo"
echo notes >"$repo/README.md"
commit_all "$repo" "no policy"
approve_refused "--all without a policy" "memgate: error: no policy file (.memgate.yml, *.memgate.yml) is committed at HEAD" \
	--all

# --- approve --all --sign: each approval signed, as one approval is --------

repo=$T/signed
three_models "$repo"
ssh_key alice
echo "release-alice@example.com namespaces=\"memgate-approve\" $(cut -d' ' -f1,2 "$T/alice.pub")" \
	>"$T/allowed"
approve_in "$repo" --all --sign "$T/alice" --allowed-signers "$T/allowed" </dev/null
expect_code 0 "approve --all --sign: every model approved and signed, without a terminal"
for m in a b c; do
	rec=$repo/models/$m/results/$NAME
	expect_out "wrote 'models/$m/results/$NAME.sig'" "model $m: its approval's signature is written"
	if ssh-keygen -Y verify -f "$T/allowed" -I release-alice@example.com -n memgate-approve \
		-s "$rec.sig" <"$rec" >/dev/null 2>&1; then
		ok "model $m: ssh-keygen -Y verify accepts it in namespace memgate-approve"
	else
		not_ok "model $m: ssh-keygen -Y verify accepts it in namespace memgate-approve"
	fi
done
expect_out "  git add models/b/results/$NAME models/b/results/$NAME.sig" \
	"the git add line names each approval and its signature"
finish
