#!/usr/bin/env bash
# The GitHub Action (action.yml): valid against the SchemaStore action schema
# (@action-validator/cli 0.6.0), no ${{ }} expression inside a run: script,
# shell: bash on every run step, and its step scripts run as the runner runs
# them: inputs arrive only through env:, the policy comes from the pull
# request's base commit, which a shallow checkout fetches.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
ACTION=$SRC/action.yml

# --- the schema ---------------------------------------------------------

# Installed once into build/ (ignored by git), next to the binaries.
VDIR=$SRC/build/action-validator
VALIDATOR=$VDIR/node_modules/.bin/action-validator
skip=
if ! command -v npm >/dev/null 2>&1; then
	skip="npm not found"
elif ! grep -qs '"version": "0.6.0"' "$VDIR/node_modules/@action-validator/cli/package.json"; then
	mkdir -p "$VDIR"
	timeout 300 npm install --prefix "$VDIR" --no-save --no-audit --no-fund --silent \
		--fetch-retries=1 --fetch-timeout=30000 \
		@action-validator/cli@0.6.0 @action-validator/core@0.6.0 >"$T/npm.log" 2>&1 ||
		skip="cannot install @action-validator/cli 0.6.0 (registry unreachable?)"
fi
validate() { # validate FILE: run the validator; sets $code
	"$VALIDATOR" "$1" >"$T/out" 2>"$T/err"
	code=$?
}
if [ -n "$skip" ]; then
	ok "# SKIP $skip"
else
	validate "$ACTION"
	expect_code 0 "action.yml is a valid composite action"
	# The validator is not vacuous: a run step without shell is refused.
	mkdir -p "$T/noshell"
	sed '0,/^      shell: bash$/{/^      shell: bash$/d}' "$ACTION" >"$T/noshell/action.yml"
	validate "$T/noshell/action.yml"
	expect_code 1 "the validator refuses a run step without shell"
	expect_err '"path": "/runs/steps/0/shell"' "and names the step"
fi

# --- static checks ------------------------------------------------------

# scan_action FILE: a line scan of a block-style composite action (not a
# YAML parser): $T/steps gets "INDEX ID HAS-RUN SHELL" for every step of
# runs.steps, $T/runs "INDEX<TAB>LINE" for every line of every run: script.
scan_action() {
	awk -v steps="$T/steps" -v runs="$T/runs" '
	function indent(s) { match(s, /^ */); return RLENGTH }
	function flush() {
		if (n > 0) print n, (id == "" ? "-" : id), hasrun, (shell == "" ? "-" : shell) >steps
	}
	/^ *steps: *$/ { insteps = 1; sind = -1; next }
	!insteps { next }
	{
		line = $0
		ind = indent(line)
		if (inblock) {
			if (line ~ /^[ \t]*$/ || ind > blockind) { print n "\t" line >runs; next }
			inblock = 0
		}
		if (line ~ /^[ \t]*(#.*)?$/) next
		if (sind < 0 && line ~ /^ *- /) sind = ind
		if (ind < sind) { flush(); insteps = 0; n = 0; next }
		if (ind == sind && line ~ /^ *- /) {
			flush(); n++; id = ""; shell = ""; hasrun = "no"
			sub(/- /, "  ", line)
		}
		if (indent(line) != sind + 2) next
		key = line
		sub(/^ */, "", key)
		if (key ~ /^run:/) {
			hasrun = "yes"
			v = key
			sub(/^run:[ \t]*/, "", v)
			if (v ~ /^[|>][-+0-9]*[ \t]*$/) { inblock = 1; blockind = sind + 2 }
			else print n "\t" v >runs
		} else if (key ~ /^shell:/) {
			shell = key; sub(/^shell:[ \t]*/, "", shell)
		} else if (key ~ /^id:/) {
			id = key; sub(/^id:[ \t]*/, "", id)
		}
	}
	END { flush() }' "$1"
}

# static_check FILE [workflow]: true when no run: script holds a ${{ }}
# expression and (in an action, where shell is required) every run step has
# shell: bash; the offences in $T/offences.
static_check() {
	: >"$T/steps"
	: >"$T/runs"
	scan_action "$1"
	{
		[ "${2:-}" = workflow ] ||
			awk '$3 == "yes" && $4 != "bash" { print "step " $1 " (" $2 "): shell is " $4 }' "$T/steps"
		awk -F'\t' 'index($0, "${{") { print "step " $1 ": expression in run: " $2 }' "$T/runs"
	} >"$T/offences"
	[ ! -s "$T/offences" ]
}
expect_static() { # expect_static FILE pass|fail DESC [workflow]
	local got=pass
	static_check "$1" "${4:-}" || got=fail
	if [ "$got" = "$2" ]; then ok "$3"; else not_ok "$3" "expected $2, got $got" "$(cat "$T/offences")"; fi
}

expect_static "$ACTION" pass "no \${{ }} in any run: script, shell: bash on every run step"
nrun=$(grep -c '^      run:' "$ACTION")
nstep=$(grep -c '^    - name:' "$ACTION")
if [ "$(wc -l <"$T/steps")" -eq "$nstep" ] && [ "$(awk '$3 == "yes"' "$T/steps" | wc -l)" -eq "$nrun" ]; then
	ok "the scan sees every step ($nstep) and every run step ($nrun)"
else
	not_ok "the scan sees every step ($nstep) and every run step ($nrun)" "$(cat "$T/steps")"
fi
cp "$T/steps" "$T/steps.action"
cp "$T/runs" "$T/runs.action"
# The scan reads a run: | block to its end (checked on a block of its own).
cat >"$T/blockaction.yml" <<'YML'
runs:
  using: composite
  steps:
    - id: one
      shell: bash
      run: |
        echo first

        echo last "${{ inputs.x }}"
    - id: two
      shell: bash
      run: echo two
YML
expect_static "$T/blockaction.yml" fail "an expression on the last line of a run: | block is caught"
if grep -qF 'echo last' "$T/runs" && [ "$(wc -l <"$T/steps")" -eq 2 ]; then
	ok "the scan reads block scripts to their end"
else
	not_ok "the scan reads block scripts to their end" "$(cat "$T/runs")"
fi

# The static check is not vacuous: each offence is caught.
sed 's|make -C "\$GITHUB_ACTION_PATH" -j"\$(nproc)" memgate|make -C "${{ inputs.working-directory }}" memgate|' "$ACTION" >"$T/inline.yml"
expect_static "$T/inline.yml" fail "an input interpolated into a one-line run: is caught"
sed 's|^      run: bash "\$GITHUB_ACTION_PATH/actions/action-check"$|      run: \|\n        echo "${{ github.event.pull_request.title }}"\n        bash "$GITHUB_ACTION_PATH/actions/action-check"|' "$ACTION" >"$T/block.yml"
expect_static "$T/block.yml" fail "an event value interpolated into a run: | block is caught"
sed '0,/^      shell: bash$/{/^      shell: bash$/d}' "$ACTION" >"$T/noshell.yml"
expect_static "$T/noshell.yml" fail "a run step without shell is caught"
sed '0,/^      shell: bash$/s//      shell: sh/' "$ACTION" >"$T/sh.yml"
expect_static "$T/sh.yml" fail "a run step with shell: sh is caught"

# The workflow README.md offers for copying follows the same rules.
mkdir -p "$T/readme"
awk '/^### GitHub Actions/ { f = 1 } f && /^```yaml$/ { p = 1; next } p && /^```$/ { exit } p' \
	"$SRC/README.md" >"$T/readme/memgate.yml"
expect_static "$T/readme/memgate.yml" pass "README's workflow has no \${{ }} in run:" workflow
if grep -q 'memgate says' "$T/runs"; then ok "README's workflow run: script was scanned"; else not_ok "README's workflow run: script was scanned"; fi
if [ -z "$skip" ]; then
	validate "$T/readme/memgate.yml"
	expect_code 0 "README's workflow is a valid workflow"
fi

# The project's own workflows follow the same rules.
for wf in "$SRC"/.github/workflows/*.yml; do
	expect_static "$wf" pass "$(basename "$wf") has no \${{ }} in run:" workflow
	if [ -z "$skip" ]; then
		validate "$wf"
		expect_code 0 "$(basename "$wf") is a valid workflow"
	fi
done

# Inputs and event values reach the scripts through these env: mappings
# (the step scripts below are run with these variables).
for m in 'MEMGATE_DIR: ${{ inputs.working-directory }}' \
	 'MEMGATE_POLICY_REV: ${{ inputs.policy-rev }}' \
	 'MEMGATE_EVENT: ${{ github.event_name }}' \
	 'MEMGATE_PR_BASE: ${{ github.event.pull_request.base.sha }}' \
	 'MEMGATE_MERGE_GROUP_BASE: ${{ github.event.merge_group.base_sha }}' \
	 'MEMGATE_PUSH_BEFORE: ${{ github.event.before }}' \
	 'MEMGATE_POLICY: ${{ inputs.policy }}' \
	 'MEMGATE_REV: ${{ inputs.rev }}' \
	 'MEMGATE_POLICY_REV: ${{ steps.resolve.outputs.policy-rev }}' \
	 'MEMGATE_FAIL_ON: ${{ inputs.fail-on }}' \
	 'MEMGATE_REQUIRE_APPROVED: ${{ inputs.require-approved }}' \
	 'MEMGATE_SUMMARY: ${{ inputs.summary }}' \
	 'MEMGATE_ALL: ${{ inputs.all }}' \
	 'MEMGATE_CHANGED: ${{ inputs.changed }}' \
	 'MEMGATE_SARIF: ${{ inputs.sarif }}' \
	 'MEMGATE_JSON: ${{ inputs.json }}' \
	 'MEMGATE_JUNIT: ${{ inputs.junit }}' \
	 'MEMGATE_CODEQUALITY: ${{ inputs.codequality }}'; do
	if grep -qxF "        $m" "$ACTION"; then ok "env: $m"; else not_ok "env: $m" "not in action.yml"; fi
done
for o in decision reason next-action selected-candidate passed error policies; do
	if grep -qxF "    value: \${{ steps.check.outputs.$o }}" "$ACTION"; then
		ok "output $o is the check step's"
	else
		not_ok "output $o is the check step's"
	fi
done

# --- the step scripts, run as the runner runs them ----------------------

# The run: lines call the scripts under actions/, which the tests below run
# through those very lines: a stand-in action directory holds the real
# actions/ (a symlink) and a memgate that logs its arguments and whether
# GITHUB_STEP_SUMMARY is set, then runs the real memgate with --format json
# for --format github and without --summary.
for id in resolve check; do
	n=$(awk -v id="$id" '$2 == id { print $1 }' "$T/steps.action")
	line=$(awk -F'\t' -v n="$n" '$1 == n { sub(/^[^\t]*\t/, ""); print }' "$T/runs.action")
	case $id in resolve) want='bash "$GITHUB_ACTION_PATH/actions/action-policy-rev"' ;;
	check) want='bash "$GITHUB_ACTION_PATH/actions/action-check"' ;; esac
	if [ "$line" = "$want" ]; then ok "step $id runs $want"; else not_ok "step $id runs $want" "got: $line"; fi
	printf '%s\n' "$line" >"$T/step-$id.sh"
done
mkdir -p "$T/action"
ln -s "$SRC/actions" "$T/action/actions"
cat >"$T/action/memgate" <<'SH'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$STUB_DIR/args"
printf '%s\n' "${GITHUB_STEP_SUMMARY-<unset>}" >"$STUB_DIR/summary-env"
pwd >"$STUB_DIR/cwd"
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--format) args+=(--format json); shift 2 ;;
	--summary) shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
exec $REAL_MEMGATE "${args[@]}"
SH
chmod +x "$T/action/memgate"

# run_step ID WORKSPACE [VAR=VALUE...]: run step ID's run: script with the
# workspace WORKSPACE (also the working directory, as on the runner) and
# the action's default inputs (overridden by VAR=VALUE), as
# `bash --noprofile --norc -eo pipefail`; sets $code, $T/out, $T/err.
run_step() {
	local id=$1 dir=$2 n
	shift 2
	n=$(awk -v id="$id" '$2 == id { print $1 }' "$T/steps.action")
	awk -F'\t' -v n="$n" '$1 == n { sub(/^[^\t]*\t/, ""); print }' "$T/runs.action" >"$T/step-$id.sh"
	rm -f "$T/stub/args" "$T/stub/summary-env" "$T/stub/cwd"
	mkdir -p "$T/stub"
	(cd "$dir" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
		GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		GITHUB_ACTIONS=true GITHUB_ACTION_PATH="$T/action" GITHUB_WORKSPACE="$dir" \
		GITHUB_OUTPUT="$T/github-output" GITHUB_STEP_SUMMARY="$T/summary.md" \
		STUB_DIR="$T/stub" REAL_MEMGATE="${MEMGATE_WRAP:-} $MEMGATE" \
		MEMGATE_DIR=. MEMGATE_POLICY=.memgate.yml MEMGATE_REV=HEAD \
		MEMGATE_POLICY_REV= MEMGATE_EVENT=pull_request MEMGATE_PR_BASE= \
		MEMGATE_MERGE_GROUP_BASE= MEMGATE_PUSH_BEFORE= MEMGATE_FAIL_ON= \
		MEMGATE_REQUIRE_APPROVED=false MEMGATE_SUMMARY=true MEMGATE_ALL=false MEMGATE_SARIF= \
		MEMGATE_JSON= MEMGATE_JUNIT= MEMGATE_CODEQUALITY= \
		"$@" bash --noprofile --norc -eo pipefail "$T/step-$id.sh") >"$T/out" 2>"$T/err"
	code=$?
}
expect_args() { # expect_args "ARG ARG ..." DESC: memgate's arguments, space-joined
	local got
	got=$(tr '\n' ' ' <"$T/stub/args" 2>/dev/null)
	if [ "$got" = "$1 " ]; then ok "$2"; else not_ok "$2" "expected: $1" "got:      $got"; fi
}
expect_output() { # expect_output LINE DESC: $GITHUB_OUTPUT has LINE
	if grep -qxF -- "$1" "$T/github-output"; then ok "$2"; else not_ok "$2" "GITHUB_OUTPUT: $(cat "$T/github-output")"; fi
}

# The runner check: Linux with apt passes; macOS and Windows stop with one
# ::error:: line that names the supported runners.
run_step runner "$T"
if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
	run_step runner "$T" RUNNER_OS=Linux
	expect_code 0 "runner: Linux with apt is supported"
fi
for os in macOS Windows; do
	run_step runner "$T" RUNNER_OS=$os
	expect_code 1 "runner: $os stops the action"
	if [ "$(grep -c '^::error::' "$T/out")" -eq 1 ] &&
	   grep -qF "::error::memgate: this action runs on Linux runners with apt (Ubuntu 22.04, 24.04, 26.04; Debian 12, 13; x64 and arm64), not on $os" "$T/out"; then
		ok "runner: $os gets one clear ::error:: line"
	else
		not_ok "runner: $os gets one clear ::error:: line"
	fi
done
run_step runner "$T" RUNNER_OS='Linux::error::x'
expect_code 1 "runner: a strange RUNNER_OS is not echoed"
expect_out "not on unknown" "runner: it is named unknown"

make_gate_repo "$T/push" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/push
: >"$T/github-output"
run_step resolve "$repo"
expect_code 0 "resolve: a pull request event without a base commit"
expect_output 'policy-rev=' "resolve: policy-rev is empty"
expect_out "::notice::memgate: event 'pull_request' carries no base commit" "resolve: says the policy comes from the evidence commit"
run_step check "$repo"
expect_code 1 "check: the failing gate fails the step"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --summary $T/summary.md" \
	"check: default inputs give memgate's arguments"
expect_field decision '"tune"'

run_step check "$repo" MEMGATE_FAIL_ON=reject MEMGATE_SUMMARY=false
expect_code 0 "check: fail-on reject passes"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --fail-on reject" \
	"check: fail-on is passed, summary false drops --summary"
if [ "$(cat "$T/stub/summary-env")" = "<unset>" ]; then
	ok "check: summary false unsets GITHUB_STEP_SUMMARY for memgate"
else
	not_ok "check: summary false unsets GITHUB_STEP_SUMMARY for memgate"
fi
run_step check "$repo" MEMGATE_REQUIRE_APPROVED=true MEMGATE_FAIL_ON=reject
expect_code 1 "check: require-approved without an approved result fails"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --fail-on reject --require-approved --summary $T/summary.md" \
	"check: require-approved adds --require-approved"
expect_field evidence.issues '["approved_result_missing"]'
run_step check "$repo" MEMGATE_DIR=benchmarks/results
expect_code 1 "check: a working-directory inside the checkout gates the checkout"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --summary $T/summary.md" \
	"check: memgate gets the checkout's top level"
if [ "$(cat "$T/stub/cwd")" = "$repo" ]; then ok "check: memgate runs at the checkout's top level"; else not_ok "check: memgate runs at the checkout's top level" "cwd: $(cat "$T/stub/cwd")"; fi
mkdir -p "$T/elsewhere"
ln -s "$T/elsewhere" "$repo/outside"
run_step check "$repo" MEMGATE_DIR=outside
expect_code 2 "check: a working-directory that leaves the workspace is refused"
expect_out "::error::memgate: input 'working-directory' ('outside') leads through a symlink to '$T/elsewhere', outside the checkout; name a directory inside the checkout, without symlinks that lead out of it" "check: says where it leads"
expect_no_file "$T/stub/args" "check: memgate does not run"
run_step check "$repo" MEMGATE_DIR=no-such-dir
expect_code 2 "check: a working-directory that does not exist is refused"
rm "$repo/outside"

# all: true gates every policy file; sarif: writes the SARIF log.
mkdir -p "$repo/models/b"
cp "$repo/.memgate.yml" "$repo/models/b/train.memgate.yml"
commit_all "$repo" "a second policy"
run_step check "$repo" MEMGATE_ALL=true MEMGATE_SARIF=gate.sarif
expect_code 1 "check: all gates every policy"
expect_args "check -C $repo --rev HEAD --all --format github --sarif gate.sarif --summary $T/summary.md" \
	"check: all replaces --policy with --all"
expect_field policies.1.policy '"models/b/train.memgate.yml"'
if [ -s "$repo/gate.sarif" ]; then ok "check: the sarif input writes the SARIF log"; else not_ok "check: the sarif input writes the SARIF log"; fi
if grep -q '^policies<<' "$T/github-output"; then ok "check: all sets the policies output"; else not_ok "check: all sets the policies output"; fi
rm -f "$repo/gate.sarif"

# json, junit, codequality: the other report files, relative to the
# repository root (even with a working-directory below it), in the same
# output transaction as sarif: all of them or none.
mkdir -p "$repo/sub" "$repo/out"
run_step check "$repo" MEMGATE_DIR=sub MEMGATE_SARIF=out/gate.sarif MEMGATE_JSON=out/record.json \
	MEMGATE_JUNIT=out/junit.xml MEMGATE_CODEQUALITY=out/cq.json
expect_code 1 "check: json, junit and codequality inputs"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --sarif out/gate.sarif --json out/record.json --junit out/junit.xml --codequality out/cq.json --summary $T/summary.md" \
	"check: the inputs become --json, --junit and --codequality"
for f in gate.sarif record.json junit.xml cq.json; do
	if [ -s "$repo/out/$f" ]; then ok "check: writes out/$f at the repository root"; else not_ok "check: writes out/$f at the repository root"; fi
done
expect_field decision '"tune"' "$repo/out/record.json"
if grep -q '<testcase ' "$repo/out/junit.xml"; then ok "check: junit has test cases"; else not_ok "check: junit has test cases"; fi
if [ "$(head -c1 "$repo/out/cq.json")" = "[" ]; then ok "check: codequality is a JSON array"; else not_ok "check: codequality is a JSON array"; fi
rm -rf "$repo/out" "$repo/sub"
run_step check "$repo" MEMGATE_JUNIT=no-such-dir/junit.xml MEMGATE_JSON=record.json
expect_code 2 "check: an output that cannot be written fails the step"
expect_no_file "$repo/record.json" "check: and no other output is written (one transaction)"

run_step check "$repo" MEMGATE_ALL=yes
expect_code 2 "check: all must be true or false"
expect_out "::error::memgate: input 'all' must be true or false" "check: says so as an annotation"
g -C "$repo" rm -q -r models
commit_all "$repo" "one policy again"

run_step check "$repo" MEMGATE_SUMMARY=yes
expect_code 2 "check: summary must be true or false"
expect_out "::error::memgate: input 'summary' must be true or false" "check: says so as an annotation"
expect_no_file "$T/stub/args" "check: memgate does not run on a bad input"
run_step check "$repo" MEMGATE_REQUIRE_APPROVED=1
expect_code 2 "check: require-approved must be true or false"

# Inputs are data: shell syntax in them never runs.
run_step check "$repo" MEMGATE_POLICY='$(touch pwned).yml' MEMGATE_FAIL_ON='reject;touch pwned2' \
	MEMGATE_REV='HEAD`touch pwned3`'
expect_code 2 "check: hostile inputs reach memgate as plain arguments"
expect_args "check -C $repo --rev HEAD\`touch pwned3\` --policy \$(touch pwned).yml --format github --fail-on reject;touch pwned2 --summary $T/summary.md" \
	"check: hostile inputs are passed verbatim"
if ls "$repo"/pwned* "$T"/pwned* >/dev/null 2>&1; then not_ok "check: no input was executed"; else ok "check: no input was executed"; fi

# A pull request: the base commit holds the policy; the head loosens it, so
# its own policy would accept.  The checkout is shallow (fetch-depth: 1);
# the base commit is fetched from $GITHUB_SERVER_URL/$GITHUB_REPOSITORY.
make_gate_repo "$T/upstream" "$E/real-flat-11200.yml" "$FLAT"
base=$(g -C "$T/upstream" rev-parse HEAD)
sed -i -e 's/memory_cap_mb: 11200/memory_cap_mb: 20000/' \
	-e 's/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' \
	-e '/^sensitivity:/,/^    min_samples_per_s:/d' "$T/upstream/.memgate.yml"
commit_all "$T/upstream" "loosen the budget"
g clone -q --depth=1 "file://$T/upstream" "$T/pr" 2>"$T/err"
repo=$T/pr
SERVER=(GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=upstream)
if g -C "$repo" cat-file -e "$base^{commit}" 2>/dev/null; then
	not_ok "the shallow checkout lacks the base commit"
else
	ok "the shallow checkout lacks the base commit"
fi
run_step check "$repo"
expect_code 0 "the head's own policy would accept"
expect_field decision '"accept"'

: >"$T/github-output"
run_step resolve "$repo" "${SERVER[@]}" MEMGATE_PR_BASE="$base"
expect_code 0 "resolve: fetches the base commit"
expect_err "memgate: fetching the policy commit $base (the pull request's base commit)" "resolve: says it fetches"
if g -C "$repo" cat-file -e "$base^{commit}" 2>/dev/null; then ok "the base commit is now present"; else not_ok "the base commit is now present"; fi
expect_output "policy-rev=$base" "resolve: policy-rev is the base commit"
run_step check "$repo" MEMGATE_POLICY_REV="$base"
expect_code 1 "check: the base commit's policy decides"
expect_args "check -C $repo --rev HEAD --policy .memgate.yml --format github --policy-rev $base --summary $T/summary.md" \
	"check: --policy-rev is the base commit"
expect_field decision '"tune"'
expect_field inputs.policy.rev "\"$base\""
run_step resolve "$repo" "${SERVER[@]}" MEMGATE_PR_BASE="$base"
expect_code 0 "resolve: a present base commit is not fetched again"
expect_no_err "fetching" "resolve: no fetch"

: >"$T/github-output"
run_step resolve "$repo" MEMGATE_PR_BASE="$base" MEMGATE_POLICY_REV=HEAD
expect_code 0 "resolve: the policy-rev input wins over the base commit"
expect_output "policy-rev=HEAD" "resolve: policy-rev is the input"
run_step resolve "$repo" MEMGATE_POLICY_REV=no-such-branch
expect_code 2 "resolve: a policy-rev that is not there and not a commit id"
expect_out "::error::memgate: the policy commit 'no-such-branch' is not in the checkout" "resolve: says so as an annotation"
run_step resolve "$repo" MEMGATE_POLICY_REV=--upload-pack=touch
expect_code 2 "resolve: a policy-rev that looks like an option is refused"
run_step resolve "$repo" "${SERVER[@]}" MEMGATE_PR_BASE=0123456789abcdef0123456789abcdef01234567
expect_code 2 "resolve: a base commit the remote does not have"
expect_out "::error::memgate: cannot fetch the policy commit 0123456789abcdef0123456789abcdef01234567" "resolve: says it cannot fetch"
run_step resolve "$repo" MEMGATE_PR_BASE='main; touch pwned'
expect_code 2 "resolve: an event base that is not a commit id is refused"
: >"$T/github-output"
run_step resolve "$repo" MEMGATE_POLICY_REV=$'HEAD\nsecret=1'
expect_code 2 "resolve: a multi-line policy-rev cannot add outputs"
if [ -s "$T/github-output" ]; then not_ok "resolve: nothing is written to GITHUB_OUTPUT" "$(cat "$T/github-output")"; else ok "resolve: nothing is written to GITHUB_OUTPUT"; fi

finish
