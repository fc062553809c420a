#!/usr/bin/env bash
# memgate approve --all (memgate(1), CI, "Release gates"): every policy of a
# monorepo is approved in one command, each with its own record beside its
# manifest, pinned as that manifest's approved_result; all or nothing: one
# model that cannot be approved refuses the lot (exit 2, nothing written,
# each refusal named).  Then the release gate --all passes the tag, and
# fails it once one model's evidence drifts.  Bad --out names, --all with
# --policy, records that would collide and a repository without policies
# are refused (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"

GATE=$SRC/actions/release-gate
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
NAME=75_approved.json

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
approve_in "$repo" --all --out "$NAME"
expect_code 0 "approve --all approves the three models"
for m in a b c; do
	rec=models/$m/results/$NAME
	if [ -f "$repo/$rec" ] && grep -q '"schema_version"' "$repo/$rec"; then
		ok "model $m: its record is written beside its manifest"
	else
		not_ok "model $m: its record is written beside its manifest"
	fi
	keep_record "$repo/$rec"
	expect_field approved_result.path "\"$rec\"" "$repo/models/$m/results/75_manifest.json"
	expect_field approved_result.sha256 "\"$(sha256sum "$repo/$rec" | cut -d' ' -f1)\"" \
		"$repo/models/$m/results/75_manifest.json"
	expect_field decision '"accept"' "$repo/$rec"
	expect_field inputs.policy.path "\"models/$m/.memgate.yml\"" "$repo/$rec"
	expect_out "models/$m/.memgate.yml:" "model $m: the output names its policy"
	expect_out "wrote 'models/$m/results/$NAME'" "model $m: and its record"
done
expect_out "  git add models/c/results/$NAME models/c/results/75_manifest.json" \
	"the git add line of each model"
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
approve_in "$repo/models/a" --all --out "$NAME"
expect_code 0 "approve --all again, from a model's directory"
expect_out "record unchanged: 'results/$NAME'" "paths are shown from the current directory"
expect_out "record unchanged: '../c/results/$NAME'" "another model's too"
if [ -z "$(g -C "$repo" status --porcelain)" ]; then ok "nothing changed"; else not_ok "nothing changed"; fi

# one model's evidence drifts: its new measurement decides otherwise
sed 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9700.5/' "$FLAT" >"$repo/models/b/results/76_report.json"
if cmp -s "$FLAT" "$repo/models/b/results/76_report.json"; then
	not_ok "the fixture's checkpoint peak was edited" "sed changed nothing"
fi
(cd "$repo/models/b" && "$MEMGATE" manifest --worktree --report results/76_report.json \
	--out results/75_manifest.json) >/dev/null 2>&1
commit_all "$repo" "model b measured again"
g -C "$repo" tag v2
release v2 --all
expect_code 1 "release-gate --all fails once one model's evidence drifts"
expect_err "release-gate: 'v2' models/a/.memgate.yml passes" "the other models still pass"
expect_err "release-gate: 'v2' models/b/.memgate.yml fails" "the drifted model fails"
expect_err "3 policies: 2 passed, 1 failed" "and the combined verdict fails"

# --- one model cannot be approved: none is -------------------------------------

repo=$T/onefails
three_models "$repo" c
approve_refused "approve --all with one failing model refuses the lot" \
	"memgate: error: approve --all: 1 of 3 policies cannot be approved, so none is: nothing was written" \
	--all --out "$NAME"
expect_err "memgate: error: models/c/.memgate.yml: cannot approve: the evidence at" \
	"names the model refused and why"
expect_no_err "models/a/.memgate.yml: cannot" "does not blame the others"
mg approve -C "$repo" --all --out "$NAME" --fail-on reject
expect_code 0 "with the release gate's rule (--fail-on reject) all three are approved"

# --- bad input ---------------------------------------------------------------------

repo=$T/bad
three_models "$repo"
approve_refused "--all with a path for --out" \
	"memgate: error: --out 'results/$NAME': with --all, --out is a file name, written in each policy's manifest directory" \
	--all --out "results/$NAME"
approve_refused "--all with --out .." "memgate: error: --out '..': with --all, --out is a file name" --all --out ..
approve_refused "--all with --policy" "memgate: error: approve: --all approves every policy: give it without --policy" \
	--all --policy models/a/.memgate.yml --out "$NAME"
approve_refused "--all with --out naming a manifest" \
	"memgate: error: models/a/.memgate.yml: --out '$repo/models/a/results/75_manifest.json' is the manifest" \
	--all --out 75_manifest.json
mg approve -C "$repo" --policy models/a/.memgate.yml --policy models/b/.memgate.yml --out x.json
expect_code 2 "two --policy without --all"
expect_err "give one --policy, or --all" "says --all approves several"
# two policies whose manifests share a directory would share the record
sed -e 's|^manifest: .*|manifest: models/a/results/75_manifest.json|' "$repo/models/b/.memgate.yml" \
	>"$repo/models/a/second.memgate.yml"
commit_all "$repo" "a second policy on model a's manifest"
approve_refused "--all with two policies sharing a manifest directory" \
	"memgate: error: models/a/second.memgate.yml: its record 'models/a/results/$NAME' would also be the record of 'models/a/.memgate.yml'" \
	--all --out "$NAME"
repo=$T/empty
g init -q "$repo"
echo notes >"$repo/README.md"
commit_all "$repo" "no policy"
approve_refused "--all without a policy" "memgate: error: no policy file (.memgate.yml, *.memgate.yml) is committed at HEAD" \
	--all --out "$NAME"

finish
