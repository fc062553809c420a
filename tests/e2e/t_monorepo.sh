#!/usr/bin/env bash
# Many models in one repository: memgate list, check --all and a repeated
# --policy (one process, combined outputs, the worst exit status), and the
# path rule from a model's subdirectory.  The two-model monorepo is built
# at test time (make_monorepo in lib.sh).
. "$(dirname "$0")/lib.sh"

mono=$T/mono
make_monorepo "$mono"
A=models/llm-a/.memgate.yml
B=models/llm-b/train.memgate.yml

# --- memgate list -------------------------------------------------------

mg list -C "$mono"
expect_code 0 "list"
if [ "$(cat "$T/out")" = "[\"$A\",\"$B\"]" ]; then ok "list: a JSON array of every policy file"; else not_ok "list: a JSON array of every policy file"; fi
mg list -C "$mono" --format text
if [ "$(cat "$T/out")" = "$A
$B" ]; then ok "list --format text: one path per line"; else not_ok "list --format text: one path per line"; fi
mg_in "$mono/models/llm-b" list --format text
if [ "$(cat "$T/out")" = "$A
$B" ]; then ok "list from a subdirectory: paths from the root"; else not_ok "list from a subdirectory: paths from the root"; fi
mg list -C "$mono" --rev HEAD~1
expect_out "[\"$A\",\"$B\"]" "list --rev: the policies of an older commit"

# Files that only look like policies are not listed: a symlink, a
# directory, a name that does not end in .memgate.yml.
mkdir -p "$mono/docs/.memgate.yml" "$mono/tools"
echo x >"$mono/docs/.memgate.yml/readme"
ln -s ../$A "$mono/tools/link.memgate.yml"
echo x >"$mono/tools/memgate.yml"
echo x >"$mono/tools/.memgate.yml.bak"
commit_all "$mono" "things that are not policies"
mg list -C "$mono"
if [ "$(cat "$T/out")" = "[\"$A\",\"$B\"]" ]; then ok "list: symlinks, directories and other names are not policies"; else not_ok "list: symlinks, directories and other names are not policies"; fi
mg list -C "$mono" --rev no-such-rev
expect_code 2 "list: an unknown revision"
mg list -C "$mono" --format github
expect_code 2 "list: only json or text"
mg list -C "$T"
expect_code 2 "list: not a repository"

# --- check --all: one process, combined outputs, the worst exit ----------

mg check -C "$mono" --all
expect_code 1 "check --all: llm-a tunes, so the worst exit is 1"
expect_out "policy $A" "text: each policy's section"
expect_out "policy $B" "text: the second policy's section"
expect_out "memgate: 2 policies: 1 passed, 1 failed, 0 could not be decided" "text: the combined line"
expect_out "  1  $A       tune    memory_saving_below_meaningful_threshold  selected checkpoint  failed" \
	"text: a row per policy (llm-a)"
expect_out "  2  $B  accept  selection_stable_across_thresholds        selected checkpoint  passed" \
	"text: a row per policy (llm-b)"

: >"$T/gh-output"
GITHUB_OUTPUT=$T/gh-output mg check -C "$mono" --all --json "$T/all.json" --summary "$T/all.md" \
	--junit "$T/all.xml" --sarif "$T/all.sarif" --codequality "$T/all-cq.json" --today 2026-06-01
expect_code 1 "check --all with every output"
expect_field schema_version '"memgate-decisions/v1"' "$T/all.json"
expect_field passed false "$T/all.json"
expect_field exit_status 1 "$T/all.json"
expect_field policies.0.policy "\"$A\"" "$T/all.json"
expect_field policies.0.exit_status 1 "$T/all.json"
expect_field policies.0.record.decision '"tune"' "$T/all.json"
expect_field policies.0.record.inputs.policy.path "\"$A\"" "$T/all.json"
expect_field policies.0.record.inputs.report.path '"models/llm-a/results/76_report.json"' "$T/all.json"
expect_field policies.1.policy "\"$B\"" "$T/all.json"
expect_field policies.1.record.decision '"accept"' "$T/all.json"
expect_field policies.1.error 'null' "$T/all.json"
if grep -qF '## memgate: 2 policies — ❌ failed' "$T/all.md" &&
   grep -qF "| models\/llm\-a\/\.memgate\.yml | \`tune\` | \`memory_saving_below_meaningful_threshold\` | checkpoint | ❌ failed |" "$T/all.md" &&
   grep -qF "| models\/llm\-b\/train\.memgate\.yml | \`accept\` |" "$T/all.md"; then
	ok "summary: one combined table, a row per policy"
else
	not_ok "summary: one combined table, a row per policy" "$(head -n 8 "$T/all.md")"
fi
if [ "$(grep -c '^## memgate: ' "$T/all.md")" -eq 3 ]; then ok "summary: then each policy's own"; else not_ok "summary: then each policy's own"; fi
if grep -qF "<testsuite name=\"memgate: $A\"" "$T/all.xml" &&
   grep -qF "<testcase classname=\"$B/memgate.candidates\" name=\"checkpoint\"" "$T/all.xml"; then
	ok "junit: a suite per policy, class names that keep the cases apart"
else
	not_ok "junit: a suite per policy, class names that keep the cases apart"
fi
if grep -qx 'decision=tune' "$T/gh-output" && grep -qx 'passed=false' "$T/gh-output" &&
   grep -qF '[{"policy":"models/llm-a/.memgate.yml","decision":"tune","reason":"memory_saving_below_meaningful_threshold","selected_candidate":"checkpoint","passed":false},{"policy":"models/llm-b/train.memgate.yml","decision":"accept"' "$T/gh-output"; then
	ok "step outputs: the worst decision, passed, and each policy's"
else
	not_ok "step outputs: the worst decision, passed, and each policy's" "$(cat "$T/gh-output")"
fi
expect_field runs.0.results.0.properties.policy "\"$A\"" "$T/all.sarif"
expect_field 0.location.path "\"$A\"" "$T/all-cq.json"

mg check -C "$mono" --all --format json
expect_field policies.1.record.selected_candidate '"checkpoint"'
mg check -C "$mono" --all --format github
expect_out "::error file=$A,line=" "github: the failing policy's decision annotation"
expect_out "::notice file=$B,line=" "github: the passing policy's decision annotation"
if [ "$(grep -c '^::stop-commands::' "$T/out")" -eq 1 ]; then ok "github: one log block"; else not_ok "github: one log block"; fi

# Only llm-b passing: --all exits 0.
mg check -C "$mono" --all --fail-on reject
expect_code 0 "check --all: every policy passes"

# A policy that cannot be decided makes the worst exit 2: the others are
# still shown, and nothing is written.
mkdir -p "$mono/models/llm-c"
printf 'version: 1\nbudget: {memory_cap: 1}\n' >"$mono/models/llm-c/.memgate.yml"
commit_all "$mono" "a broken policy"
mg check -C "$mono" --all --json "$T/never.json" --sarif "$T/never.sarif"
expect_code 2 "check --all: a broken policy makes the exit 2"
expect_out "memgate: 3 policies: 1 passed, 1 failed, 1 could not be decided" "text: counts the error"
expect_out "  3  models/llm-c/.memgate.yml       error   could not decide" "text: the broken policy's row"
expect_out "policy $B" "text: the other policies are still gated"
expect_err "memgate: error: models/llm-c/.memgate.yml:2:10: unknown key 'memory_cap' (did you mean 'memory_cap_mb'?)" \
	"stderr: the error names file:line:col"
expect_no_file "$T/never.json" "exit 2: no record written"
expect_no_file "$T/never.sarif" "exit 2: no SARIF written"
mg check -C "$mono" --all --format github
expect_code 2 "--all --format github with a broken policy"
expect_out "::error file=models/llm-c/.memgate.yml,line=2,col=10,title=memgate%3A could not decide models/llm-c/.memgate.yml::models/llm-c/.memgate.yml:2:10: unknown key 'memory_cap' (did you mean 'memory_cap_mb'?)" \
	"github: the policy that could not be decided is an error annotation at its line"
: >"$T/gh-error"
GITHUB_OUTPUT=$T/gh-error GITHUB_STEP_SUMMARY=$T/gh-error.md mg check -C "$mono" --all
expect_code 2 "exit 2 under the runner"
if grep -qx 'decision=error' "$T/gh-error" && grep -q "unknown key 'memory_cap'" "$T/gh-error"; then
	ok "exit 2: the step outputs say decision=error and name the error"
else
	not_ok "exit 2: the step outputs say decision=error and name the error" "$(cat "$T/gh-error")"
fi
if grep -qF '| models\/llm\-c\/\.memgate\.yml | error | could not decide |' "$T/gh-error.md"; then
	ok "exit 2: the runner's job summary has the table with the error"
else
	not_ok "exit 2: the runner's job summary has the table with the error"
fi
mg check -C "$mono" --all --format json
expect_field exit_status 2
expect_field policies.2.error '"models/llm-c/.memgate.yml:2:10: unknown key '"'"'memory_cap'"'"' (did you mean '"'"'memory_cap_mb'"'"'?)"'
expect_field policies.2.record 'null'
g -C "$mono" rm -q -r models/llm-c
commit_all "$mono" "drop the broken policy"

# --- a repeated --policy: like --all, limited to those -------------------

mg check -C "$mono" --policy "$B"
expect_code 0 "one --policy: that policy only (passes)"
expect_out "memgate: accept (selection_stable_across_thresholds)" "one --policy: the usual output"
mg check -C "$mono" --policy "$B" --policy "$A" --format json
expect_code 1 "two --policy: both are gated, the worst exit"
expect_field policies.0.policy "\"$B\""
expect_field policies.1.policy "\"$A\""
mg check -C "$mono" --all --policy "$A"
expect_code 2 "--all with --policy is a usage error"
expect_err "--all gates every policy: give it without --policy" "and says so"
mg record -C "$mono" --policy "$A" --policy "$B" --out "$T/r.json"
expect_code 2 "record gates one policy"

# --- --all with the policy from the base commit --------------------------

base=$(g -C "$mono" rev-parse HEAD)
mkdir -p "$mono/models/llm-d"
cp "$mono/$B" "$mono/models/llm-d/.memgate.yml"
commit_all "$mono" "a new model"
mg check -C "$mono" --all --policy-rev "$base" --format json
expect_code 1 "--all --policy-rev: the base commit's policies are gated"
expect_field policies.0.policy "\"$A\""
expect_field policies.2.policy '"models/llm-d/.memgate.yml"'
expect_field policies.2.record.notes.0 "\"adopting memgate: the policy revision ${base:0:7} has no 'models/llm-d/.memgate.yml', so the policy this change adds (at $(g -C "$mono" rev-parse --short=7 HEAD)) decides; once it is merged, changes are gated by the policy of their base\""
mg check -C "$mono" --all --format json
expect_field policies.2.policy '"models/llm-d/.memgate.yml"'
mg check -C "$mono" --all --rev "$base" --policy-rev "$base" --format json
expect_field policies.2.policy '<missing>'
g -C "$T" init -q empty-repo
g -C "$T/empty-repo" commit -q --allow-empty -m empty
mg check -C "$T/empty-repo" --all
expect_code 2 "--all without any policy"
expect_err "--all: no policy file (.memgate.yml or *.memgate.yml) is committed at 'HEAD'" "says so"

# --- paths from a model's subdirectory ------------------------------------

mg_in "$mono/models/llm-a" check --format json
expect_code 1 "from models/llm-a: its .memgate.yml is gated"
expect_field inputs.policy.path "\"$A\""
mg_in "$mono/models/llm-a/results" check --format json
expect_field inputs.policy.path "\"$A\"" 
mg_in "$mono/models/llm-b" check --policy train.memgate.yml --format json
expect_code 0 "from models/llm-b: --policy is relative to the current directory"
expect_field inputs.policy.path "\"$B\""
mg_in "$mono/models/llm-a" check --policy ../llm-b/./train.memgate.yml --format json
expect_field inputs.policy.path "\"$B\""
mg_in "$mono/models/llm-a" check --policy ../../../outside.yml
expect_code 2 "a --policy above the repository's root"
expect_err "'../../../outside.yml' is outside the repository" "says so"
mg_in "$T" check -C "$mono/models/llm-b" --policy train.memgate.yml --json rec.json
expect_code 0 "-C DIR: --policy is relative to DIR"
if [ -f "$T/rec.json" ]; then ok "-C DIR: --json FILE stays relative to the current directory"; else not_ok "-C DIR: --json FILE stays relative to the current directory"; fi
rm -f "$T/rec.json"
mg_in "$mono/models/llm-b" check --policy train.memgate.yml --json rec.json
if [ -f "$mono/models/llm-b/rec.json" ]; then ok "in a model's directory: --json FILE written there"; else not_ok "in a model's directory: --json FILE written there"; fi
rm -f "$mono/models/llm-b/rec.json"
mg_in "$mono" check
expect_code 2 "at the root of a monorepo without a root policy"
expect_err "'memgate list' shows the repository's policies, 'memgate check --all' gates them all" \
	"the error points at list and --all"
mg_in "$mono/models/llm-a" manifest --report results/76_report.json
expect_out '"path": "models/llm-a/results/76_report.json"' "manifest --report is relative to the current directory too"
mg_in "$mono/models/llm-a" check --worktree --format json
expect_field inputs.policy.path "\"$A\"" 

finish
