#!/usr/bin/env bash
# Monorepos through their whole life (issue 23): a model added, fixed,
# retired and renamed in pull requests of a two-model monorepo built with
# the real git, gated through the CLI and the Action's step scripts as
# action.yml runs them (all: true).
. "$(dirname "$0")/lib.sh"

LLAMA=models/llama-7b/.memgate.yml
QWEN=models/qwen-0.5b/.memgate.yml
MISTRAL=models/mistral-7b/.memgate.yml

# add_model DIR NAME: models/NAME with its own policy (the demo's budget
# with a saving floor its report meets: accept), report and manifest.
add_model() {
	local dir=$1 m=$2
	mkdir -p "$dir/models/$m/bench"
	cp "$FIX/reports/76_real_gpu_memory.flat.json" "$dir/models/$m/bench/76_report.json"
	sed -e "s|^manifest: .*|manifest: models/$m/bench/75_input_manifest.json|" \
	    -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' \
	    -e '/^  grid:/,/^    min_samples_per_s:/d' \
		"$FIX/demo/memgate.yml" >"$dir/models/$m/.memgate.yml"
	"$MEMGATE" manifest -C "$dir" --worktree --report "models/$m/bench/76_report.json" \
		--out "$dir/models/$m/bench/75_input_manifest.json" >/dev/null 2>&1
}

# make_life_repo DIR: models/llama-7b and models/qwen-0.5b on main.
make_life_repo() {
	g init -q "$1"
	add_model "$1" llama-7b
	add_model "$1" qwen-0.5b
	echo "two models" >"$1/README.md"
	commit_all "$1" "two models"
}

# pr DIR: start a pull request branch from main; BASE is main's commit.
pr() {
	g -C "$1" checkout -q -B "pr-$RANDOM" main
	BASE=$(g -C "$1" rev-parse main)
}

# gate DIR [VAR=VALUE...]: the Action's check step with all: true on the
# pull request (the policy from its base).
gate() {
	local dir=$1
	shift
	: >"$T/gh-output"
	: >"$T/gh-summary"
	action_step check "$dir" MEMGATE_ALL=true MEMGATE_POLICY_REV="$BASE" "$@"
}
expect_summary() {
	if grep -qF -- "$1" "$T/gh-summary"; then ok "$2"; else not_ok "$2" "summary lacks: $1" "$(head -c 3000 "$T/gh-summary")"; fi
}
expect_output() {
	if grep -qF -- "$1" "$T/gh-output"; then ok "$2"; else not_ok "$2" "GITHUB_OUTPUT lacks: $1"; fi
}

R=$T/life
make_life_repo "$R"

mg check -C "$R" --all
expect_code 0 "the monorepo: both models pass"

# --- 1. a policy added in a pull request ------------------------------------

pr "$R"
add_model "$R" mistral-7b
commit_all "$R" "add mistral"
gate "$R"
expect_code 0 "a new model's policy is gated in its own pull request and passes"
expect_out "::notice title=memgate%3A note::adopting memgate: the policy revision ${BASE:0:7} has no '$MISTRAL', so the policy this change adds" \
	"a notice says its own budget decides"
expect_summary "models\\/mistral\\-7b\\/\\.memgate\\.yml" "the new policy is a row of the job summary"
expect_output '"policy":"models/mistral-7b/.memgate.yml","decision":"accept"' "and of the policies output"

# its own budget decides: one its evidence misses fails the pull request
sed -i 's|min_memory_saving_mb: 300|min_memory_saving_mb: 100000|' "$R/$MISTRAL"
commit_all "$R" "too strict a floor"
gate "$R"
expect_code 1 "the new policy's own budget fails its own pull request"

# a typo in the new policy fails its pull request, at its line
sed -i 's|^budget:|budgt:|' "$R/$MISTRAL"
commit_all "$R" "typo"
line=$(grep -n '^budgt:' "$R/$MISTRAL" | cut -d: -f1)
gate "$R"
expect_code 2 "a new policy that does not parse fails its pull request"
expect_out "::error file=$MISTRAL,line=$line," "annotated at its line"
mg check -C "$R" --all --policy-rev "$BASE"
expect_code 2 "the CLI: the same"
expect_out "$MISTRAL:$line:" "the CLI names the file and line"

# --- the fix after a broken merge ---------------------------------------------

g -C "$R" checkout -q main
g -C "$R" merge -q --no-ff -m "merged by an admin" "$(g -C "$R" rev-parse --abbrev-ref '@{-1}')" 2>/dev/null
pr "$R"
sed -i 's|^budgt:|budget:|; s|min_memory_saving_mb: 100000|min_memory_saving_mb: 300|' "$R/$MISTRAL"
commit_all "$R" "fix the typo"
gate "$R"
expect_code 0 "the pull request that fixes a broken base policy passes"
expect_out "::warning file=$MISTRAL,title=memgate%3A warning::the policy at ${BASE:0:7} (the policy revision) cannot be read ($MISTRAL:$line:1: unknown key 'budgt'" \
	"a warning at the policy says the base's policy cannot be read"
expect_summary "so the policy this change proposes" "and a line in the job summary"
mg check -C "$R" --policy "$MISTRAL" --policy-rev "$BASE"
expect_code 0 "one --policy: the same repair"
expect_out "the policy this change proposes (at" "the text says so"

# neither parses: the error names both
sed -i 's|^identity:|identty:|' "$R/$MISTRAL"
commit_all "$R" "another typo"
gate "$R"
expect_code 2 "neither the base's nor the change's policy parses"
expect_out "neither policy can be read" "the error names both"
expect_out "budgt" "the base's error"
expect_out "identty" "and the change's"
g -C "$R" checkout -q main
g -C "$R" reset -q --hard HEAD~1   # forget the broken merge

# --- 2. retiring and renaming ----------------------------------------------------

pr "$R"
g -C "$R" rm -q -r models/qwen-0.5b
g -C "$R" commit -q -m "retire qwen"
gate "$R"
expect_code 0 "retiring a model with its evidence passes"
expect_out "::warning file=$QWEN,title=memgate%3A policy retired::'$QWEN' is retired: the change deletes it with its evidence ('models/qwen-0.5b/bench/75_input_manifest.json'); reviewers, confirm that the model is retired" \
	"a warning annotation names the retired policy"
expect_summary "**Retired:** \\'models\\/qwen" "a line in the job summary"
expect_output '"policy":"models/llama-7b/.memgate.yml"' "the policies output lists the gated policy"
mg check -C "$R" --all --policy-rev "$BASE"
expect_code 0 "the CLI: retiring passes"
expect_err "memgate: warning: '$QWEN' is retired" "and names it on stderr"
mg check -C "$R" --all --policy-rev "$BASE" --format json
expect_field policies.1.policy '<missing>'

pr "$R"
g -C "$R" rm -q "$QWEN"
sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 9450.77|' "$R/models/qwen-0.5b/bench/76_report.json"
commit_all "$R" "delete qwen's policy, change its report"
gate "$R"
expect_code 2 "deleting only a policy whose report changed fails"
expect_out "::error file=$QWEN,title=memgate%3A could not decide $QWEN::$QWEN: the change deletes the policy '$QWEN' but not the evidence it gates ('models/qwen-0.5b/bench/75_input_manifest.json' is still at" \
	"an error at the policy says what to do"
expect_out "to retire the model, delete its evidence with it" "naming the way out"
expect_summary "could not decide" "the job summary names the failure"

pr "$R"
g -C "$R" rm -q "$QWEN"
commit_all "$R" "delete qwen's policy only"
gate "$R"
expect_code 2 "deleting only a policy whose evidence stays the same fails too"

# a whole model folder renamed: followed by git's rename detection
pr "$R"
g -C "$R" mv models/qwen-0.5b models/qwen2-0.5b
sed -i 's|models/qwen-0.5b/|models/qwen2-0.5b/|' "$R/models/qwen2-0.5b/.memgate.yml"
"$MEMGATE" manifest -C "$R" --worktree --report models/qwen2-0.5b/bench/76_report.json \
	--out "$R/models/qwen2-0.5b/bench/75_input_manifest.json" --force >/dev/null 2>&1
commit_all "$R" "rename qwen"
gate "$R"
expect_code 0 "a renamed model folder passes"
expect_out "the change moves '$QWEN' to 'models/qwen2-0.5b/.memgate.yml' (git's rename detection): the policy at ${BASE:0:7} decides at its new place" \
	"a notice says the base's policy follows it"
mg check -C "$R" --all --policy-rev "$BASE" --format json
expect_code 0 "the CLI: the rename passes"
expect_field policies.1.policy '"models/qwen2-0.5b/.memgate.yml"'
expect_field policies.1.record.inputs.policy.path "\"$QWEN\""
expect_field policies.1.record.inputs.policy.rev "\"$BASE\""
expect_field policies.1.record.base.decision '"accept"'
expect_field policies.2.policy '<missing>'
mg check -C "$R" --policy models/qwen2-0.5b/.memgate.yml --policy-rev "$BASE" --format json
expect_code 0 "one --policy: the moved policy is followed too"
expect_field inputs.policy.path "\"$QWEN\""

# a rename that loosens the moved policy is still gated by the base's budget
sed -i 's|min_memory_saving_mb: 300|min_memory_saving_mb: 0|' "$R/models/qwen2-0.5b/.memgate.yml"
commit_all "$R" "loosen the moved policy"
mg check -C "$R" --all --policy-rev "$BASE" --format json
expect_field policies.1.record.policy_changes.0.key '"budget.min_memory_saving_mb"'
expect_field policies.1.record.policy_changes.0.effect '"loosens"'
expect_field policies.1.record.decision '"accept"'
g -C "$R" checkout -q main

# --- 3. messages that work from anywhere ---------------------------------------

Q=$R/models/qwen-0.5b
pr "$R"
sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 9450.77|' "$Q/bench/76_report.json"
commit_all "$R" "a new measurement"
mg_in "$Q" check
expect_code 1 "a report that no longer matches its manifest"
expect_out "pin it with 'memgate manifest --report bench/76_report.json --out bench/75_input_manifest.json --force'" \
	"from the model's folder the fix command names paths from there"
fix=$(sed -n "s/.*pin it with 'memgate \(manifest [^']*\)'.*/\1/p" "$T/out" | head -n 1)
# shellcheck disable=SC2086  # the command as a user pastes it
(cd "$Q" && "$MEMGATE" $fix) >/dev/null 2>&1
commit_all "$R" "pin the new measurement"
mg_in "$Q" check
expect_code 0 "the fix command, run as pasted in the model's folder, fixes it"
mg_in "$R/models" check --policy qwen-0.5b/.memgate.yml
expect_code 0 "and from the folder above"

# an uncommitted policy is named as such, with the git add to run
mkdir -p "$R/models/phi-2"
cp "$R/$QWEN" "$R/models/phi-2/.memgate.yml"
mg_in "$R/models/phi-2" check
expect_code 2 "a policy written but not committed"
expect_err "no policy 'models/phi-2/.memgate.yml' at" "names the policy beside it"
expect_err "it is untracked: run 'git add .memgate.yml', then commit" "with the git add to run from there"
expect_err "'memgate list' shows the repository's committed policies" "and the memgate list hint"
mg_in "$R/models/phi-2" check --policy .memgate.yml
expect_code 2 "--policy: the same"
expect_err "it is untracked: run 'git add .memgate.yml', then commit" "--policy: untracked, with the git add"
expect_err "'memgate list' shows the repository's committed policies" "--policy keeps the memgate list hint"
g -C "$R" add models/phi-2
mg_in "$R/models/phi-2" check
expect_err "it is staged but not committed: commit it" "a staged policy: commit it"
g -C "$R" rm -q -r --cached models/phi-2
rm -rf "$R/models/phi-2"

# a path written relative to the policy's folder
sed -i 's|^manifest: models/qwen-0.5b/|manifest: |' "$R/$QWEN"
commit_all "$R" "a manifest path relative to the policy"
mg_in "$Q" check
expect_code 2 "a path relative to the policy's folder is not found"
expect_err "$QWEN:5:11: cannot read 'bench/75_input_manifest.json' at" "at the policy's line"
expect_err "paths in '$QWEN' are relative to the repository root, not to its folder: did you mean 'models/qwen-0.5b/bench/75_input_manifest.json'? (that file exists)" \
	"says paths are from the root, and which one exists"
g -C "$R" checkout -q main

# a submodule as the Action's working directory is refused, not gated as
# the superproject
SUPER=$T/ws
g init -q "$SUPER"
g -C "$SUPER" -c protocol.file.allow=always submodule --quiet add "$R" vendor/models 2>/dev/null
commit_all "$SUPER" "a submodule"
BASE=$(g -C "$SUPER" rev-parse HEAD)
gate "$SUPER" MEMGATE_DIR=vendor/models
expect_code 2 "the Action with working-directory in a submodule"
expect_out "::error::memgate: input 'working-directory' ('vendor/models') is inside a submodule ('vendor/models'), not a checkout of its own" \
	"is refused with a message"
mg_in "$SUPER/vendor/models" check --all
expect_code 0 "the CLI in a submodule gates it as its own repository"
expect_out "memgate: 2 policies: 2 passed" "its own policies"

# --- 4. the release gate with --all ----------------------------------------------

# approve DIR MODEL: record the model's decision and pin it in its manifest.
approve() {
	local dir=$1 m=$2 rec=models/$2/bench/75_approved.json man=models/$2/bench/75_input_manifest.json
	"$MEMGATE" record -C "$dir" --policy "models/$m/.memgate.yml" --out "$dir/$rec" >/dev/null 2>&1
	cat >"$dir/$man" <<JSON
{
  "source": { "path": "models/$m/bench/76_report.json", "sha256": "$(sha256sum "$dir/models/$m/bench/76_report.json" | cut -d' ' -f1)" },
  "approved_result": { "path": "$rec", "sha256": "$(sha256sum "$dir/$rec" | cut -d' ' -f1)" }
}
JSON
}
release() {
	(cd "$R" && MEMGATE=$MEMGATE "$SRC/actions/release-gate" "$@") >"$T/out" 2>"$T/err"
	code=$?
}
approve "$R" llama-7b
approve "$R" qwen-0.5b
commit_all "$R" "approve both models"
g -C "$R" tag v1.0
release v1.0 --fail-on reject --all
expect_code 0 "release-gate --all: every policy holds its approved decision"
expect_err "release-gate: 'v1.0' $LLAMA passes: accept (selection_stable_across_thresholds), selected checkpoint, as approved" \
	"a verdict line per policy (llama)"
expect_err "release-gate: 'v1.0' $QWEN passes: accept (selection_stable_across_thresholds), selected checkpoint, as approved" \
	"a verdict line per policy (qwen)"
expect_err "release-gate: 'v1.0' passes: 2 policies: 2 passed, 0 failed, 0 could not be decided" "and the combined one"
expect_no_err "passes:  ()" "no blank verdict"

# a tag whose approved decision has drifted for one model
sed -i 's|min_memory_saving_mb: 300|min_memory_saving_mb: 5000|' "$R/$QWEN"
commit_all "$R" "a stricter qwen budget"
g -C "$R" tag v1.1
release v1.1 --fail-on reject --all
expect_code 1 "release-gate --all: one model's approved decision drifted"
expect_err "release-gate: 'v1.1' $QWEN fails: decision_drift: approved accept, selected checkpoint; the evidence now decides" \
	"the drifted policy's verdict"
expect_err "release-gate: 'v1.1' $LLAMA passes:" "the other still passes"
expect_err "release-gate: 'v1.1' fails: 2 policies: 1 passed, 1 failed, 0 could not be decided; the gate fails on it" \
	"the combined verdict fails"
release v1.0 --fail-on reject
expect_code 2 "without --all at the root there is no policy to gate"
expect_err "release-gate: 'v1.0' cannot be decided" "the single verdict as before"
g -C "$R" reset -q --hard v1.0

# --- 4. the pre-push hook gates every policy memgate list finds -------------------

hpush() {
	MEMGATE=$MEMGATE g -C "$R" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
g init -q --bare "$T/remote.git"
g -C "$R" remote add origin "$T/remote.git"
cp "$SRC/actions/pre-push" "$R/.git/hooks/pre-push"
chmod +x "$R/.git/hooks/pre-push"
hpush origin main
expect_code 0 "the hook: the monorepo's main passes"
g -C "$R" remote set-head origin main

# a memory regression in one model, its manifest re-pinned
g -C "$R" checkout -q -b regression main
sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 12000.5|' "$Q/bench/76_report.json"
"$MEMGATE" manifest -C "$R" --worktree --report models/qwen-0.5b/bench/76_report.json \
	--out "$Q/bench/75_input_manifest.json" --force >/dev/null 2>&1
commit_all "$R" "qwen regresses"
hpush origin regression
expect_code 1 "the hook refuses a push with a memory regression in one model"
expect_err "memgate pre-push: 'refs/heads/regression' ($(g -C "$R" rev-parse --short HEAD)) fails the gate of '$QWEN'; the push is refused" \
	"naming the model's policy"
expect_no_err "fails the gate of '$LLAMA'" "the other model is not named"

# a branch that changes only the other model is not refused for qwen's
g -C "$R" checkout -q -b llama-docs main
echo "notes" >"$R/models/llama-7b/NOTES.md"
commit_all "$R" "llama notes"
hpush origin llama-docs
expect_code 0 "a push that touches no failing policy's inputs passes"

# a tag whose approved decision drifted, and one that holds it
hpush origin v1.1
expect_code 1 "the hook refuses a tag whose approved decision drifted"
expect_err "fails the release gate (memgate check --require-approved --fail-on reject) of '$QWEN'" \
	"with the release rule, naming the policy"
hpush origin v1.0
expect_code 0 "a tag that holds every policy's approved decision is pushed"

# retiring a model passes with a line; deleting only its policy does not
g -C "$R" checkout -q -b retire main
g -C "$R" rm -q -r models/qwen-0.5b
commit_all "$R" "retire qwen"
hpush origin retire
expect_code 0 "the hook: retiring a model with its evidence passes"
expect_err "'$QWEN' is deleted with its evidence (a model retired or moved)" "and says so"
g -C "$R" checkout -q -b drop-policy main
g -C "$R" rm -q "$QWEN"
commit_all "$R" "drop qwen's policy"
hpush origin drop-policy
expect_code 1 "the hook: deleting only a policy is refused"
expect_err "the push deletes the policy '$QWEN' but not the evidence it gates" "and says why"
g -C "$R" checkout -q main

# --- 5. check --all --changed -------------------------------------------------------

add_model "$R" phi-2
commit_all "$R" "a third model"
g -C "$R" checkout -q -b tweak main
BASE=$(g -C "$R" rev-parse main)
sed -i 's|min_samples_per_s: 1.0|min_samples_per_s: 1.1|' "$R/$QWEN"
commit_all "$R" "tighten qwen"
mg check -C "$R" --all --changed --policy-rev "$BASE" --json "$T/changed.json"
expect_code 0 "--all --changed"
expect_out "memgate: 1 policy: 1 passed" "gates only the changed policy"
expect_err "memgate: unchanged, not gated: $LLAMA" "lists the others as unchanged (llama)"
expect_err "memgate: unchanged, not gated: models/phi-2/.memgate.yml" "lists the others as unchanged (phi-2)"
mg check -C "$R" --all --policy-rev "$BASE" --json "$T/all.json"
expect_code 0 "--all on the same change"
a=$("$JSONGET" "$T/all.json" policies.2.record)
c=$("$JSONGET" "$T/changed.json" policies.0.record)
if [ -n "$c" ] && [ "$a" = "$c" ]; then ok "--changed agrees with --all on the policy it gates"; else not_ok "--changed agrees with --all" "$a" "$c"; fi
expect_field policies.0.policy "\"$QWEN\"" "$T/changed.json"

# each input counts: the report (through the manifest), the approved result
g -C "$R" checkout -q -b report-only main
sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 9450.66|' "$R/models/phi-2/bench/76_report.json"
commit_all "$R" "phi's report changes, its manifest not"
mg check -C "$R" --all --changed --policy-rev "$BASE" --format json
expect_code 1 "a changed report alone is gated (and fails its pinned hash)"
expect_field policies.0.policy '"models/phi-2/.memgate.yml"'
expect_field policies.1.policy '<missing>'
g -C "$R" checkout -q -b approved-only main
echo " " >>"$R/models/llama-7b/bench/75_approved.json"
commit_all "$R" "llama's approved record edited"
mg check -C "$R" --all --changed --policy-rev "$BASE" --format json
expect_field policies.0.policy "\"$LLAMA\""
expect_field policies.1.policy '<missing>'

# a change that touches no policy's inputs gates nothing, and every
# output still says so: decision=unchanged, passed=true, an empty policies
# array, and a JUnit file with one passing case (an empty one fails Jenkins)
expect_line() { # expect_line FILE LINE DESC
	if grep -qxF -- "$2" "$1"; then ok "$3"; else not_ok "$3" "$(cat "$1")"; fi
}
expect_nothing_gated_junit() { # expect_nothing_gated_junit FILE DESC
	if ! xmllint --noout "$1" 2>"$T/xmlerr"; then
		not_ok "$2: well-formed XML" "$(cat "$T/xmlerr")"
	elif [ "$(grep -c '<testcase ' "$1")" = 1 ] &&
	     grep -qF '<testsuite name="memgate" tests="1" failures="0" errors="0" skipped="0"' "$1" &&
	     grep -qF '<testcase classname="memgate.plan" name="nothing gated"' "$1" &&
	     grep -qxF "unchanged, not gated: $LLAMA" "$1" &&
	     ! grep -qF '<failure' "$1"; then
		ok "$2: one passing case says nothing was gated"
	else
		not_ok "$2: one passing case says nothing was gated" "$(cat "$1")"
	fi
}
g -C "$R" checkout -q -b docs-only main
echo "how we measure" >>"$R/README.md"
commit_all "$R" "docs only"
: >"$T/none-output"
(cd "$R" && GITHUB_OUTPUT=$T/none-output ${MEMGATE_WRAP:-} "$MEMGATE" check --all --changed \
	--policy-rev "$BASE" --junit "$T/none.xml") >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "--all --changed that gates nothing passes"
expect_line "$T/none-output" "decision=unchanged" "GITHUB_OUTPUT: decision=unchanged"
expect_line "$T/none-output" "passed=true" "GITHUB_OUTPUT: passed=true"
expect_line "$T/none-output" "[]" "GITHUB_OUTPUT: policies is an empty array"
expect_nothing_gated_junit "$T/none.xml" "--junit when nothing is gated"
gate "$R" MEMGATE_CHANGED=true MEMGATE_JUNIT=memgate-junit.xml
expect_code 0 "the Action: changed: true that gates nothing passes"
expect_line "$T/gh-output" "decision=unchanged" "the Action: decision=unchanged"
expect_line "$T/gh-output" "passed=true" "the Action: passed=true"
expect_nothing_gated_junit "$R/memgate-junit.xml" "the Action's junit: when nothing is gated"
rm -f "$R/memgate-junit.xml"

# the Action's input
g -C "$R" checkout -q tweak
gate "$R" MEMGATE_CHANGED=true
expect_code 0 "the Action: changed: true with all: true"
expect_out "::notice title=memgate%3A 2 policies unchanged%2C not gated::$LLAMA, models/phi-2/.memgate.yml" \
	"a notice lists the unchanged policies"
expect_summary "**Unchanged, not gated (2):**" "so does the job summary"
gate "$R" MEMGATE_CHANGED=true MEMGATE_ALL=false
expect_code 2 "changed: true without all"
expect_out "::error::memgate: input 'changed' needs all: 'true'" "is refused"
mg check -C "$R" --changed
expect_code 2 "--changed without --all is a usage error"
g -C "$R" checkout -q main

# --- adoption under all: true --------------------------------------------------

A=$T/adopt
g init -q "$A"
echo "no gate yet" >"$A/README.md"
commit_all "$A" "before memgate"
pr "$A"
add_model "$A" llama-7b
add_model "$A" qwen-0.5b
commit_all "$A" "adopt memgate"
gate "$A"
expect_code 0 "adoption with all: true when the base has no policy at all"
expect_out "::notice title=memgate%3A note::adopting memgate: the policy revision ${BASE:0:7} has no '$LLAMA'" "a notice per adopted policy (llama)"
expect_out "::notice title=memgate%3A note::adopting memgate: the policy revision ${BASE:0:7} has no '$QWEN'" "a notice per adopted policy (qwen)"
pr "$A"
echo "still no gate" >>"$A/README.md"
commit_all "$A" "docs only"
gate "$A"
expect_code 2 "no policy at either revision"
expect_out "nor at 'HEAD'" "the error names both revisions"

finish
