#!/usr/bin/env bash
# Evidence of today's code (memgate(1), STALE EVIDENCE): the manifest's
# measured.commit and the policy's evidence.inputs.  A change to a listed
# input since the measured commit is reject (evidence_stale) naming the
# path, at every entry point (CLI, the Action's steps, the pre-push hook,
# the release gate); a change outside the inputs is not; a rebased or
# squashed branch keeps fresh evidence fresh; a measured commit missing
# from the manifest or from the repository is an issue of its own.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
APPROVED=benchmarks/results/75_decision.json

# A gate that passes on its evidence (tune, failing only on reject), whose
# evidence depends on the model code and the training configs.
POLICY=$T/fresh.yml
sed 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$E/real-flat-11200.yml" >"$POLICY"
cat >>"$POLICY" <<'YAML'
evidence:
  inputs:
    - "src/model/**"
    - "configs/train*.yaml"
YAML

# fresh_repo DIR: the code, then the evidence measured on it (the manifest
# made by memgate manifest --measured-commit).
fresh_repo() {
	local dir=$1
	mkdir -p "$dir/src/model" "$dir/configs" "$dir/docs" "$dir/benchmarks/results"
	g init -q "$dir"
	echo "attention = 'flash'" >"$dir/src/model/attn.py"
	echo "micro_batch: 4" >"$dir/configs/train.yaml"
	echo "notes" >"$dir/docs/notes.md"
	cp "$POLICY" "$dir/.memgate.yml"
	commit_all "$dir" "the code"
	cp "$FLAT" "$dir/$REPORT_PATH"
	mg manifest -C "$dir" --worktree --report "$REPORT_PATH" --out "$dir/$MANIFEST_PATH" \
		--measured-commit HEAD
	commit_all "$dir" "the evidence, measured on the code"
}

# --- the CLI ---------------------------------------------------------------

repo=$T/cli
fresh_repo "$repo"
expect_code 0 "manifest --measured-commit writes the manifest"
measured=$(g -C "$repo" rev-parse HEAD~1)
if grep -qF "\"commit\": \"$measured\"" "$repo/$MANIFEST_PATH"; then
	ok "measured.commit is the full id of the revision given"
else
	not_ok "measured.commit is the full id of the revision given" "$(cat "$repo/$MANIFEST_PATH")"
fi
mg manifest -C "$repo" --report "$REPORT_PATH" --measured-commit no-such-rev
expect_code 2 "manifest: an unknown --measured-commit"
expect_err "memgate: error: --measured-commit: unknown revision 'no-such-rev'" "names the option and the revision"

mg check -C "$repo"
expect_code 0 "fresh evidence decides as before"
expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "the decision of the evidence"
mg check -C "$repo" --format json
expect_field evidence.measured_commit "\"$measured\""
expect_field evidence.stale_inputs '[]'
expect_field evidence.stale_input_count 0

echo "more notes" >>"$repo/docs/notes.md"
commit_all "$repo" "docs"
mg check -C "$repo"
expect_code 0 "a change outside evidence.inputs keeps the evidence fresh"

echo "attention = 'sdpa'" >"$repo/src/model/attn.py"
commit_all "$repo" "another attention kernel"
mg check -C "$repo"
expect_code 1 "a change to a listed input without a new measurement fails"
expect_out "memgate: reject (evidence_not_applicable)" "the decision is reject"
expect_out "next action: measure_again" "the next action is to measure again"
expect_out "evidence: not applicable: evidence_stale" "the issue is evidence_stale"
expect_out "  src/model/attn.py: changed since the measured commit ${measured:0:7} (evidence.inputs): measure again [evidence_stale]" \
	"the text names the changed path"
expect_text_as_with_findings "stale evidence" -C "$repo"
mg check -C "$repo" --format json
expect_field next_action '"measure_again"'
expect_field evidence.issues '["evidence_stale"]'
expect_field evidence.stale_inputs '["src/model/attn.py"]'
mg check -C "$repo" --format github
expect_code 1 "the GitHub format fails the same way"
expect_out "::error file=src/model/attn.py,title=memgate%3A evidence_stale::changed since the measured commit ${measured:0:7} (evidence.inputs): measure again" \
	"an annotation on the changed file"

echo "micro_batch: 8" >"$repo/configs/train-large.yaml"
commit_all "$repo" "a larger micro-batch config"
mg check -C "$repo" --format json
expect_field evidence.stale_inputs '["configs/train-large.yaml","src/model/attn.py"]'
mg check -C "$repo" --inputs "$T/inputs"
if grep -qxF "src/model/attn.py" "$T/inputs" && grep -qxF "configs/train-large.yaml" "$T/inputs"; then
	ok "--inputs lists the changed inputs"
else
	not_ok "--inputs lists the changed inputs" "$(cat "$T/inputs")"
fi

cp "$repo/$MANIFEST_PATH" "$T/replaced.json"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/replaced.json" --force
expect_code 0 "a manifest replaced without --measured-commit"
expect_err "warning: the existing manifest's measured.commit ${measured:0:7} is not kept" \
	"warns that the measured commit is not kept"
if grep -q '"measured"' "$T/replaced.json"; then not_ok "no measured.commit is carried over"; else ok "no measured.commit is carried over"; fi

# Measured again on today's code: fresh again.
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force \
	--measured-commit HEAD
commit_all "$repo" "measured again"
mg check -C "$repo"
expect_code 0 "a new measurement makes the evidence fresh again"

# --worktree compares the measured commit with the working tree.
echo "attention = 'eager'" >"$repo/src/model/attn.py"
mg check -C "$repo" --worktree
expect_code 1 "--worktree: an uncommitted change to an input is stale too"
expect_out "  src/model/attn.py: changed since the measured commit" "--worktree names it"
g -C "$repo" checkout -q -- src/model/attn.py

# A change cannot drop evidence.inputs from its own policy to pass: the
# policy revision's inputs decide, and the change is listed as loosening.
g clone -q "$repo" "$T/cli-pr"
repo=$T/cli-pr
policy_base=$(g -C "$repo" rev-parse HEAD)
echo "attention = 'flex'" >"$repo/src/model/attn.py"
sed -i '/^evidence:/,$d' "$repo/.memgate.yml"
commit_all "$repo" "change the model, drop the inputs"
mg check -C "$repo" --policy-rev "$policy_base"
expect_code 1 "the policy revision's evidence.inputs decide"
expect_out "evidence: not applicable: evidence_stale" "the change is stale under the base's inputs"
expect_out "policy change: evidence.inputs was ['src/model/**', 'configs/train*.yaml'] at the policy revision, is unset at the evidence revision (loosens the budget)" \
	"dropping evidence.inputs is a policy change that loosens"
mg check -C "$repo" --policy-rev "$policy_base" --format json
expect_field policy_changes.0.key '"evidence.inputs"'
expect_field policy_changes.0.before '["src/model/**","configs/train*.yaml"]'

# The record names the first 100 changed paths (MG_CHECK_MAX_STALE) and
# counts them all; the text says how many more there are.
repo=$T/many
fresh_repo "$repo"
measured=$(g -C "$repo" rev-parse HEAD~1)
for i in $(seq 100 204); do echo "$i" >"$repo/src/model/layer$i.py"; done
commit_all "$repo" "105 new layers"
mg check -C "$repo" --format json
expect_field evidence.stale_input_count 105
expect_field evidence.stale_inputs.99 '"src/model/layer199.py"'
expect_field evidence.stale_inputs.100 '<missing>'
mg check -C "$repo"
expect_out "and 5 more paths of evidence.inputs changed since the measured commit ${measured:0:7}" \
	"the text counts the paths it does not name"

# --- rebased and squashed branches ----------------------------------------

repo=$T/branches
fresh_repo "$repo"
g -C "$repo" checkout -q -b feature
echo "attention = 'sdpa'" >"$repo/src/model/attn.py"
commit_all "$repo" "another attention kernel"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force \
	--measured-commit HEAD
commit_all "$repo" "measured on the new kernel"
g -C "$repo" checkout -q main
echo "main moves on" >>"$repo/docs/notes.md"
commit_all "$repo" "docs on main"
g -C "$repo" checkout -q feature
g -C "$repo" rebase -q main 2>"$T/err"
mg check -C "$repo"
expect_code 0 "a rebased branch keeps fresh evidence fresh (no ancestry needed)"
g -C "$repo" checkout -q main
g -C "$repo" merge -q --squash feature >/dev/null
g -C "$repo" commit -q -m "squashed feature"
mg check -C "$repo"
expect_code 0 "a squashed branch keeps fresh evidence fresh"

# --- evidence.inputs entries are git pathspecs, exactly ----------------------
# (issue 30): each form once reported as accepted but matching nothing is
# refused at its line, or now decides as `git diff --name-only M HEAD --
# ENTRY` does.

# inputs_policy DIR ENTRY...: the gate's policy with these evidence.inputs.
inputs_policy() {
	local dir=$1 e
	shift
	sed '/^evidence:/,$d' "$POLICY" >"$dir/.memgate.yml"
	printf 'evidence:\n  inputs:\n' >>"$dir/.memgate.yml"
	for e in "$@"; do printf "    - '%s'\n" "$e" >>"$dir/.memgate.yml"; done
}

repo=$T/forms
fresh_repo "$repo"
mkdir -p "$repo/src/model/layers"
echo "d_model = 896" >"$repo/src/model/layers/dense.py"
echo "old" >"$repo/src/model/old.py"
commit_all "$repo" "layers"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force \
	--measured-commit HEAD
commit_all "$repo" "measured with the layers"
measured=$(g -C "$repo" rev-parse HEAD~1)
echo "d_model = 1024" >"$repo/src/model/layers/dense.py"
echo "new" >"$repo/src/model/new.py"
g -C "$repo" rm -q src/model/old.py
commit_all "$repo" "a wider model"
while IFS='|' read -r entry message; do
	inputs_policy "$repo" "$entry"
	commit_all "$repo" "inputs: $entry"
	line=$(wc -l <"$repo/.memgate.yml")   # the entry is the policy's last line
	rm -f "$T/forms.json"
	mg check -C "$repo" --json "$T/forms.json"
	expect_code 2 "evidence.inputs '$entry' is refused"
	expect_err "memgate: error: .memgate.yml:$line:7: '$entry': $message" \
		"'$entry': the error names the entry, its line and column, and what to write"
	expect_no_file "$T/forms.json" "'$entry': nothing is written"
done <<'CASES'
./src/model|a leading './' is not supported in evidence.inputs; write 'src/model'
src/model/layers/../layers|a '..' segment is not supported in evidence.inputs; write 'src/model/layers'
:(glob)src/**/*.py|git's pathspec magic 'glob' (':(glob)') is not supported in evidence.inputs; write the pattern without it ('*' then matches '/' too, as in git without magic)
:/src/model|git's pathspec magic 'top' (':/') is not supported in evidence.inputs; memgate matches from the repository root: write 'src/model'
:(top)src/model|git's pathspec magic 'top' (':(top)') is not supported in evidence.inputs; memgate matches from the repository root: write 'src/model'
:(literal)src/model/attn.py|git's pathspec magic 'literal' (':(literal)') is not supported in evidence.inputs; write the path without it, a '*', '?' or '[' in it as '[*]', '[?]' or '[[]'
:(icase)SRC/MODEL|git's pathspec magic 'icase' (':(icase)') is not supported in evidence.inputs; list each spelling of the path
:(exclude)docs|git's pathspec magic 'exclude' (':(exclude)') is not supported in evidence.inputs; list only the paths whose change invalidates the evidence
:!docs|git's pathspec magic 'exclude' (':!') is not supported in evidence.inputs; list only the paths whose change invalidates the evidence
src/model/|a trailing '/' is not supported in evidence.inputs; write 'src/model'
CASES

# What memgate lists as stale is what git diff lists, for the forms it takes.
for entry in src/model src/model/layers 'src/m?del/*.py' 'src/model/**' '*.py' \
	'src/model/new.py' 'src/model/old.py'; do
	inputs_policy "$repo" "$entry"
	commit_all "$repo" "inputs: $entry"
	want=$(g -C "$repo" diff --name-only --no-renames "$measured" HEAD -- "$entry" | \
		sed 's/.*/"&"/' | paste -sd, -)
	mg check -C "$repo" --format json
	expect_field evidence.stale_inputs "[$want]"
	if grep -q "matches no path" "$T/err" "$T/out"; then
		not_ok "'$entry' matches a path at one of the commits: no warning"
	else
		ok "'$entry' matches a path at one of the commits: no warning"
	fi
done

# An entry that matches nothing at either commit guards nothing: a warning
# at its line, in the text and as an annotation; the others still decide.
inputs_policy "$repo" 'src/model/**' 'src/modle/**'
commit_all "$repo" "a typo in evidence.inputs"
line=$(wc -l <"$repo/.memgate.yml")
head=$(g -C "$repo" rev-parse --short=7 HEAD)
mg check -C "$repo"
expect_code 1 "the typo does not hide the other entry's stale paths"
expect_out "warning: evidence.inputs entry 'src/modle/**' (.memgate.yml:$line:7) matches no path at the measured commit ${measured:0:7} nor at $head: a change to it cannot make the evidence stale; correct it or remove it" \
	"an entry that matches nothing is warned about at its line"
expect_out "src/model/layers/dense.py: changed since the measured commit" "the other entry still guards"
mg check -C "$repo" --format github
expect_out "::warning file=.memgate.yml,line=$line,col=7,title=memgate%3A warning::evidence.inputs entry 'src/modle/**'" \
	"the warning is annotated at the entry"
inputs_policy "$repo" 'src/modle/**'
commit_all "$repo" "only the typo"
mg check -C "$repo"
expect_code 0 "an entry that matches nothing marks nothing stale"
expect_out "warning: evidence.inputs entry 'src/modle/**'" "and is warned about"

# --- the measured commit's own issues --------------------------------------

repo=$T/unpinned
fresh_repo "$repo"
write_manifest "$repo"
commit_all "$repo" "a manifest without measured.commit"
mg check -C "$repo"
expect_code 1 "evidence.inputs without measured.commit fails"
expect_out "evidence: not applicable: measured_commit_missing" "the issue is measured_commit_missing"
expect_out "--measured-commit REV" "the message says how to write it"
mg check -C "$repo" --format json
expect_field next_action '"rebuild_same_workload_evidence"'
expect_field evidence.measured_commit null

g clone -q --depth 1 "file://$T/cli" "$T/shallow" 2>"$T/err"
mg check -C "$T/shallow"
expect_code 1 "a shallow clone without the measured commit fails"
expect_out "evidence: not applicable: measured_commit_unknown" "the issue is measured_commit_unknown"
expect_out "is not in this repository (a shallow clone): fetch it (git fetch origin" "the message says how to fetch it"
expect_out "next action: fetch_measured_commit" "the next action is the fetch"

# A policy without evidence.inputs reads no measured commit: the same
# shallow clone decides as before.
sed -i '/^evidence:/,$d' "$T/shallow/.memgate.yml"
mg check -C "$T/shallow" --worktree --format json
expect_code 0 "without evidence.inputs nothing is compared"
if grep -q '"measured_commit"\|"stale_inputs"' "$T/out"; then
	not_ok "without evidence.inputs the record has no freshness keys"
else
	ok "without evidence.inputs the record has no freshness keys"
fi

# --- the GitHub Action: a depth-1 checkout fetches the measured commit -----

up=$T/upstream
fresh_repo "$up"
base=$(g -C "$up" rev-parse HEAD)
g clone -q --depth=1 "file://$up" "$T/pr" 2>"$T/err"
SERVER=(GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=upstream)
action_step measured "$T/pr" "${SERVER[@]}" MEMGATE_POLICY_REV="$base"
expect_code 0 "measured: the step succeeds"
expect_err "memgate: fetching the measured commit $(g -C "$up" rev-parse HEAD~1)" "measured: fetches the measured commit"
action_step check "$T/pr" MEMGATE_POLICY_REV="$base"
expect_code 0 "check: fresh evidence passes in a depth-1 checkout"
action_step measured "$T/pr" "${SERVER[@]}" MEMGATE_POLICY_REV="$base"
expect_no_err "fetching" "measured: a present commit is not fetched again"

echo "attention = 'sdpa'" >"$up/src/model/attn.py"
commit_all "$up" "a pull request that changes the model"
rm -rf "$T/pr"
g clone -q --depth=1 "file://$up" "$T/pr" 2>"$T/err"
action_step resolve "$T/pr" "${SERVER[@]}" MEMGATE_PR_BASE="$base"
expect_code 0 "resolve: the base commit"
action_step measured "$T/pr" "${SERVER[@]}" MEMGATE_POLICY_REV="$base"
expect_code 0 "measured: fetches for the pull request"
action_step check "$T/pr" MEMGATE_POLICY_REV="$base"
expect_code 1 "check: stale evidence fails the pull request"
expect_out "::error file=src/model/attn.py,title=memgate%3A evidence_stale::" "check: annotates the changed file"
expect_runner_safe "$T/out" "check: only memgate's annotations"

rm -rf "$T/pr2"
g clone -q --depth=1 "file://$up" "$T/pr2" 2>"$T/err"
action_step measured "$T/pr2" GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=nowhere
expect_code 0 "measured: a commit that cannot be fetched does not fail the step"
expect_out "::notice::memgate: cannot fetch the measured commit" "measured: says so as a notice"
action_step check "$T/pr2"
expect_code 1 "check: then reports measured_commit_unknown"
expect_out "title=memgate%3A measured_commit_unknown::" "check: as an annotation"

# --- the pre-push hook ------------------------------------------------------

mkdir -p "$T/bin"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${MEMGATE_WRAP:-}" "$MEMGATE" >"$T/bin/memgate"
chmod +x "$T/bin/memgate"
repo=$T/hook
fresh_repo "$repo"
g init -q --bare "$T/remote.git"
g -C "$repo" remote add origin "$T/remote.git"
cp "$SRC/actions/pre-push" "$repo/.git/hooks/pre-push"
chmod +x "$repo/.git/hooks/pre-push"
push() {
	MEMGATE=$T/bin/memgate g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
remote_oid() { g -C "$T/remote.git" rev-parse -q --verify "$1" 2>/dev/null; }
expect_remote() { # expect_remote REF OID DESC
	if [ "$(remote_oid "$1")" = "$2" ]; then ok "$3"; else not_ok "$3" "remote $1 is '$(remote_oid "$1")'"; fi
}
expect_remote_absent() { # expect_remote_absent REF DESC
	if [ -z "$(remote_oid "$1")" ]; then ok "$2"; else not_ok "$2" "remote has $1"; fi
}
push origin main
expect_code 0 "hook: fresh evidence is pushed"
echo "attention = 'sdpa'" >"$repo/src/model/attn.py"
commit_all "$repo" "another attention kernel"
# Stale evidence alone does not refuse a branch: the GPU runner measures
# what is pushed.  A warning names the commit to measure.
push origin main
expect_code 0 "hook: a branch whose code changed since the measurement is pushed"
stale=$(g -C "$repo" rev-parse --short HEAD)
expect_err "memgate pre-push: warning: 'refs/heads/main' ($stale) is pushed with stale evidence for '.memgate.yml': the GPU runner must measure $stale" \
	"hook: the warning names the commit the runner must measure"
expect_err "  src/model/attn.py: changed since the measured commit" "hook: names the changed path"
expect_err "git config memgate.hookRefuseStale true" "hook: says how to refuse such pushes"
expect_remote main "$(g -C "$repo" rev-parse HEAD)" "hook: the remote has the stale branch"
# ... unless the repository opts in (or the environment says so).
echo "attention = 'xformers'" >"$repo/src/model/attn.py"
commit_all "$repo" "a third attention kernel"
g -C "$repo" config memgate.hookRefuseStale true
push origin main
expect_code 1 "hook: with memgate.hookRefuseStale true, stale evidence is refused"
expect_err "memgate.hookRefuseStale is true: stale evidence refuses the push" "hook: says why"
expect_err "memgate: reject (evidence_not_applicable)" "hook: with memgate's reasons"
expect_remote main "$(g -C "$repo" rev-parse HEAD~1)" "hook: the remote kept its commit"
g -C "$repo" config memgate.hookRefuseStale false
MEMGATE_HOOK_REFUSE_STALE=yes push origin main
expect_code 1 "hook: MEMGATE_HOOK_REFUSE_STALE=yes refuses it too"
g -C "$repo" config memgate.hookRefuseStale maybe
push origin main
expect_code 1 "hook: an invalid memgate.hookRefuseStale refuses the push"
expect_err "memgate pre-push: MEMGATE_HOOK_REFUSE_STALE (or memgate.hookRefuseStale) is 'maybe', not true or false" \
	"hook: names the setting and its value"
expect_remote main "$(g -C "$repo" rev-parse HEAD~1)" "hook: nothing was pushed"
g -C "$repo" config --unset memgate.hookRefuseStale
# A tag with stale evidence is a release: refused (approved or not).
g -C "$repo" tag v-stale
MEMGATE_TAG_REQUIRE_APPROVED=false push origin v-stale
expect_code 1 "hook: a tag with stale evidence is refused"
expect_err "evidence: not applicable: evidence_stale" "hook: the tag's refusal says why"
expect_remote_absent refs/tags/v-stale "hook: the tag was not pushed"
# A budget failure still refuses a branch (fresh evidence under a stricter gate).
g -C "$repo" reset -q --hard HEAD~2
sed -i 's/fail_on: \[reject\]/fail_on: [reject, tune]/' "$repo/.memgate.yml"
commit_all "$repo" "fail on tune"
push origin HEAD:refs/heads/strict
expect_code 1 "hook: a budget failure on a branch is still refused"
expect_err "memgate: tune (memory_saving_below_meaningful_threshold)" "hook: names the decision"
expect_no_err "stale evidence" "hook: fresh evidence gets no stale warning"
expect_remote_absent refs/heads/strict "hook: the branch was not pushed"
# Stale evidence with another issue (the report edited after the manifest)
# still refuses.
g -C "$repo" reset -q --hard HEAD~1
echo "attention = 'sdpa'" >"$repo/src/model/attn.py"
echo " " >>"$repo/$REPORT_PATH"
commit_all "$repo" "another kernel, the report edited"
push origin HEAD:refs/heads/edited
expect_code 1 "hook: stale evidence with another issue is refused"
expect_err "evidence_stale" "hook: names the stale issue"
expect_no_err "is pushed with stale evidence" "hook: no stale-only warning"
expect_remote_absent refs/heads/edited "hook: the branch was not pushed"
g -C "$repo" reset -q --hard HEAD~1
echo "more notes" >>"$repo/docs/notes.md"
commit_all "$repo" "docs"
push origin HEAD:refs/heads/docs
expect_code 0 "hook: a push outside the inputs goes through"

# --- the release gate -------------------------------------------------------

repo=$T/release
fresh_repo "$repo"
mg record -C "$repo" --out "$repo/$APPROVED"
expect_code 0 "record the approved decision"
sha=$(sha256sum "$repo/$REPORT_PATH" | cut -d' ' -f1)
asha=$(sha256sum "$repo/$APPROVED" | cut -d' ' -f1)
cat >"$repo/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$sha" },
  "measured": { "commit": "$(g -C "$repo" rev-parse HEAD~1)" },
  "approved_result": { "path": "$APPROVED", "sha256": "$asha" }
}
JSON
commit_all "$repo" "approve"
g -C "$repo" tag v1
echo "attention = 'sdpa'" >"$repo/src/model/attn.py"
commit_all "$repo" "another attention kernel"
g -C "$repo" tag v2
release() {
	(cd "$repo" && MEMGATE=$T/bin/memgate dash "$SRC/actions/release-gate" "$@") >"$T/out" 2>"$T/err"
	code=$?
}
release v1 --fail-on reject
expect_code 0 "release: a tag measured on its own code passes"
release v2 --fail-on reject
expect_code 1 "release: a tag whose code changed since the measurement fails"
expect_out "evidence: not applicable: evidence_stale" "release: the issue is evidence_stale"
expect_out "  src/model/attn.py: changed since the measured commit" "release: names the changed path"

finish
