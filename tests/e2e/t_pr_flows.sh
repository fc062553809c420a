#!/usr/bin/env bash
# Pull requests as a team lives them: `check --policy-rev <base>` on a head
# commit.  A head policy that cannot be read fails (exit 2) with an
# annotation at its line; exit 2 still reaches GitHub (annotation, job
# summary, step outputs); the first pull request adopts memgate with its
# own policy; annotations point at the head's policy lines; every policy
# change is listed, typed and annotated; the base's decision and
# per-candidate deltas are shown.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# line_of FILE REGEX: the first line number matching REGEX.
line_of() { grep -n -m1 -E "$2" "$1" | cut -d: -f1; }

# gh_check ARGS...: memgate under GitHub Actions, with fresh runner files.
gh_check() {
	: >"$T/gh_output"
	: >"$T/gh_summary"
	GITHUB_ACTIONS=true GITHUB_OUTPUT=$T/gh_output GITHUB_STEP_SUMMARY=$T/gh_summary mg "$@"
}

expect_file_has() { # FILE TEXT DESC
	if grep -qF -- "$2" "$1"; then ok "$3"; else not_ok "$3" "$(basename "$1") lacks: $2" "$(cat "$1")"; fi
}

# ---- 1. a pull request that breaks the policy file fails the check ----
make_gate_repo "$T/broken" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/broken
g -C "$repo" tag base
sed -i 's/^budget:/budgt:/' "$repo/.memgate.yml"
commit_all "$repo" "rename budget"
line=$(line_of "$repo/.memgate.yml" '^budgt:')
gh_check check -C "$repo" --policy-rev base --json "$T/never.json" --summary "$T/never.md"
expect_code 2 "a head policy that cannot be read fails the check"
expect_out "::error file=.memgate.yml,line=$line,col=1,title=memgate%3A could not decide::unknown key 'budgt' (did you mean 'budget'?)" \
	"an error annotation at the head policy's line and column"
expect_err ".memgate.yml:$line:1: unknown key 'budgt'" "the error names file:line:col"
expect_err "in the policy this change proposes" "the error says it is the proposed policy"
expect_no_out "::notice" "no passing notice"
expect_no_file "$T/never.json" "--json is not written on exit 2"
expect_no_file "$T/never.md" "--summary FILE is not written on exit 2"

# ---- 2. exit 2 is visible on GitHub: annotation, job summary, step outputs ----
gh_check check -C "$repo" --policy-rev base
expect_code 2 "exit 2 under GITHUB_ACTIONS"
expect_file_has "$T/gh_output" "decision=error" "step output decision=error"
expect_file_has "$T/gh_output" "passed=false" "step output passed=false"
expect_file_has "$T/gh_output" ".memgate.yml:$line:1: unknown key 'budgt'" "step output error names file:line:col"
# reason<<DELIM, an empty line, DELIM: the runner reads an empty value.
if awk '/^reason<</ { d = substr($0, 9); getline v; getline e; ok = (v == "" && e == d) } END { exit !ok }' "$T/gh_output"; then
	ok "reason is empty"
else
	not_ok "reason is empty" "$(cat "$T/gh_output")"
fi
expect_file_has "$T/gh_summary" "## memgate: could not decide" "the job summary says memgate could not decide"
expect_file_has "$T/gh_summary" "unknown key" "the job summary names the error"
# The same policy error on main (no --policy-rev), and an error quoting
# hostile text: the annotation's properties and message are escaped.
g -C "$repo" checkout -q -b hostile base
cp "$repo/.memgate.yml" "$T/policy"
sed 's/^  workload_id: pressure$/  workload_id: pressure\n  "a%b": 1/' "$T/policy" >"$repo/pol,icy:1.yml"
commit_all "$repo" "hostile policy"
gh_check check -C "$repo" --policy "pol,icy:1.yml"
expect_code 2 "a policy error without --policy-rev"
expect_out "::error file=pol%2Cicy%3A1.yml,line=$(line_of "$repo/pol,icy:1.yml" '^  "a%b"'),col=3,title=memgate%3A could not decide::unknown key 'a%25b'" \
	"file property and message are escaped"
GITHUB_OUTPUT=$T/gh_output mg check -C "$repo" --policy "pol,icy:1.yml" --format text
expect_code 2 "text format"
expect_no_out "::error" "no annotation in text format"
expect_file_has "$T/gh_output" "decision=error" "step outputs are written in any format"

# ---- 3. the first pull request adopts memgate ----
repo=$T/adopt
g init -q "$repo"
echo "training code" >"$repo/README"
commit_all "$repo" "before memgate"
g -C "$repo" tag base
mkdir -p "$repo/benchmarks/results"
cp "$E/real-flat-11200.yml" "$repo/.memgate.yml"
cp "$FLAT" "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "adopt memgate"
mg check -C "$repo" --policy-rev base
expect_code 1 "the adopting pull request is decided by its own policy (tune)"
expect_out "memgate: tune (memory_saving_below_meaningful_threshold)" "the decision is the head policy's"
expect_out "note: adopting memgate: the policy revision $(g -C "$repo" rev-parse --short=7 base) has no '.memgate.yml', so the policy this change adds" \
	"a note says this is adoption"
gh_check check -C "$repo" --policy-rev base
expect_out "::notice title=memgate%3A note::adopting memgate" "adoption is a notice annotation"
expect_file_has "$T/gh_summary" "### Notes" "the summary lists the note"
mg check -C "$repo" --policy-rev base --format json
expect_field inputs.policy.rev "\"$(g -C "$repo" rev-parse HEAD)\""
expect_field notes.0 "\"adopting memgate: the policy revision $(g -C "$repo" rev-parse --short=7 base) has no '.memgate.yml', so the policy this change adds (at $(g -C "$repo" rev-parse --short=7 HEAD)) decides; once it is merged, changes are gated by the policy of their base\""
# Neither revision has a policy.
g -C "$repo" checkout -q -b nopolicy base
echo more >>"$repo/README"
commit_all "$repo" "no policy"
mg check -C "$repo" --policy-rev base
expect_code 2 "no policy anywhere"
expect_err "no policy '.memgate.yml' at $(g -C "$repo" rev-parse --short=7 base), the policy revision (--policy-rev); the evidence revision $(g -C "$repo" rev-parse --short=7 HEAD) has none either" \
	"the message names the policy revision and that the evidence revision has none"
# An old commit without the policy, checked while HEAD has it.
g -C "$repo" checkout -q main 2>/dev/null || g -C "$repo" checkout -q master
mg check -C "$repo" --rev base
expect_code 2 "the policy revision lacks the policy"
expect_err "no policy '.memgate.yml' at $(g -C "$repo" rev-parse --short=7 base), the policy revision; HEAD ($(g -C "$repo" rev-parse --short=7 HEAD)) has it" \
	"the message says HEAD has the policy"
# When the base has a policy, the base's decides, as before (t_policy_rev.sh);
# a change that deletes it fails.
g -C "$repo" tag adopted
g -C "$repo" rm -q .memgate.yml
commit_all "$repo" "delete policy"
mg check -C "$repo" --policy-rev adopted
expect_code 2 "a change that deletes the policy"
expect_err "the change deletes the policy" "says the change deletes the policy"

# ---- 4. annotations land on the head's policy lines ----
make_gate_repo "$T/lines" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/lines
g -C "$repo" tag base
sed -i '1i # budget owners: memory team\n# reviewed quarterly\n# see the README' "$repo/.memgate.yml"
commit_all "$repo" "three comment lines"
saving=$(line_of "$repo/.memgate.yml" '^  min_memory_saving_mb:')
failon=$(line_of "$repo/.memgate.yml" '^  fail_on:')
gh_check check -C "$repo" --policy-rev base
expect_code 1 "the comment-only change is gated"
expect_out "::warning file=.memgate.yml,line=$saving,col=25,title=memgate%3A memory_saving_below_floor (checkpoint)::" \
	"the saving-floor annotation points at the head's min_memory_saving_mb line"
expect_out "::error file=.memgate.yml,line=$failon,col=12,title=memgate%3A tune::" \
	"the decision annotation points at the head's fail_on line"
if grep -q "line=$((saving - 3)),col=25,title=memgate%3A memory_saving" "$T/out"; then
	not_ok "no annotation at the base's line"
else
	ok "no annotation at the base's line"
fi

# ---- 5. every policy change is detected, typed and annotated ----
make_gate_repo "$T/changes" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/changes
g -C "$repo" tag base
cat >"$repo/.memgate.yml" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: pressure-v2
  hardware_id: NVIDIA H100
  model_id: Qwen/Qwen2.5-0.5B-Instruct
budget:
  memory_cap_mb: 9400
  min_samples_per_s: 1.0
  min_memory_saving_mb: 512
  min_throughput_ratio: 0.70
quality:
  max_relative_eval_loss: 0.02
evidence:
  baseline: checkpoint
  min_repeats: 3
rank_by: throughput
sensitivity:
  grid:
    memory_cap_mb: [9600]
    min_samples_per_s: [1.0, 1.5, 2.0]
gate:
  fail_on: [reject]
YAML
commit_all "$repo" "change the policy everywhere"
mg check -C "$repo" --policy-rev base --format json
expect_code 1 "the base policy decides"
expect_field policy_changes.0.key '"identity.workload_id"'
expect_field policy_changes.0.before '"pressure"'
expect_field policy_changes.0.after '"pressure-v2"'
expect_field policy_changes.0.effect '"changes"'
expect_field policy_changes.1.key '"identity.hardware_id"'
expect_field policy_changes.2.key '"budget.memory_cap_mb"'
expect_field policy_changes.2.before '11200'
expect_field policy_changes.2.after '9400'
expect_field policy_changes.2.effect '"tightens"'
expect_field policy_changes.3.key '"evidence.baseline"'
expect_field policy_changes.3.after '"checkpoint"'
expect_field policy_changes.4.key '"evidence.min_repeats"'
expect_field policy_changes.4.before '1'
expect_field policy_changes.4.after '3'
expect_field policy_changes.5.key '"rank_by"'
expect_field policy_changes.5.after '"throughput"'
expect_field policy_changes.6.key '"sensitivity.grid"'
expect_field policy_changes.6.before '{"memory_cap_mb":[9600,11200],"min_samples_per_s":[1,1.5,2]}'
expect_field policy_changes.6.after '{"memory_cap_mb":[9600],"min_samples_per_s":[1,1.5,2]}'
expect_field policy_changes.7.key '"gate.fail_on"'
expect_field policy_changes.7.before '["tune","reject"]'
expect_field policy_changes.7.after '["reject"]'
expect_field policy_changes.7.effect '"loosens"'
expect_field policy_changes.8 '<missing>'
mg check -C "$repo" --policy-rev base
expect_out "policy change: identity.hardware_id was 'NVIDIA GeForce RTX 5070 Ti Laptop GPU' at the policy revision, is 'NVIDIA H100' at the evidence revision (changes the policy)" \
	"text names a changed pin"
expect_out "policy change: gate.fail_on was [tune, reject] at the policy revision, is [reject] at the evidence revision (loosens the budget)" \
	"text names a loosened fail_on"
gh_check check -C "$repo" --policy-rev base
expect_out "::warning file=.memgate.yml,line=$(line_of "$repo/.memgate.yml" '^  fail_on:'),col=12,title=memgate%3A policy_change::gate.fail_on is [tune, reject] in the policy that decides" \
	"a loosening change is a warning annotation at its line"
expect_out "::notice file=.memgate.yml,line=$(line_of "$repo/.memgate.yml" '^rank_by:'),col=10,title=memgate%3A policy_change::rank_by is 'peak_memory'" \
	"another change is a notice annotation at its line"
expect_file_has "$T/gh_summary" "| identity\\.workload\\_id | \\'pressure\\' | \\'pressure\\-v2\\' | changes |" \
	"the summary lists a changed pin"

# ---- 6. the base's decision and per-candidate deltas ----
make_gate_repo "$T/delta" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/delta
g -C "$repo" tag base
# New evidence: checkpoint saves more memory and runs faster; offload is dropped.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9000.5/; s/"samples_per_s": 1.761/"samples_per_s": 1.8/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "new evidence"
mg check -C "$repo" --policy-rev base
expect_code 1 "the head is tune"
expect_out "base: $(g -C "$repo" rev-parse --short=12 base) decided tune (memory_saving_below_meaningful_threshold), selected checkpoint, gate failed; this commit: tune, selected checkpoint" \
	"text shows the base's decision next to the head's"
expect_out "checkpoint  peak 9450.76 -> 9000.5 MB (-450.26)  samples/s 1.761 -> 1.8 (+0.039)  eval_loss 12.356503 (same)  rejected -> feasible" \
	"text shows the per-candidate deltas"
if grep -q '^changed against the base:$' "$T/out" &&
   ! sed -n '/^changed against the base:/,$p' "$T/out" | grep -q '^  baseline '; then
	ok "unchanged candidates are not listed"
else
	not_ok "unchanged candidates are not listed"
fi
mg check -C "$repo" --policy-rev base --format json
expect_field base.rev "\"$(g -C "$repo" rev-parse base)\""
expect_field base.decision '"tune"'
expect_field base.selected_candidate '"checkpoint"'
expect_field base.candidates.1.name '"checkpoint"'
expect_field base.candidates.1.change '"changed"'
expect_field base.candidates.1.base_status '"rejected"'
expect_field base.candidates.1.head_status '"feasible"'
expect_field base.candidates.1.peak_memory_mb.base '9450.76'
expect_field base.candidates.1.peak_memory_mb.head '9000.5'
case $("$JSONGET" "$T/out" base.candidates.1.peak_memory_mb.delta) in
-450.26*) ok "record base.candidates.1.peak_memory_mb.delta = head - base" ;;
*) not_ok "record base.candidates.1.peak_memory_mb.delta = head - base" ;;
esac
expect_field base.candidates.0.change '"unchanged"'
gh_check check -C "$repo" --policy-rev base
expect_file_has "$T/gh_summary" "### Against the base" "the summary compares with the base"
expect_file_has "$T/gh_summary" "| checkpoint | rejected → feasible | 9450.76 → 9000.5 (-450.26) | 1.761 → 1.8 (+0.039) | 12.356503 (same) |" \
	"the summary shows the deltas"
# --base without --policy-rev; a removed and an added candidate.
sed -i 's/"name": "offload"/"name": "offload-v2"/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "rename offload"
mg check -C "$repo" --base base --format json
expect_field base.decision '"tune"'
expect_field base.candidates.2.name '"offload-v2"'
expect_field base.candidates.2.change '"new"'
expect_field base.candidates.4.name '"offload"'
expect_field base.candidates.4.change '"removed"'
mg check -C "$repo" --base base
expect_out "offload-v2  peak 9448.33 MB" "a new candidate is shown with its values"
expect_out "new candidate" "and marked new"
# The base has no evidence (adoption): the comparison says so, the check goes on.
mg check -C "$T/adopt" --rev adopted --base base --format json
expect_code 1 "a base without evidence does not stop the check"
expect_field base.decision '<missing>'
if "$JSONGET" "$T/out" base.error | grep -q "not found"; then ok "base.error says why"; else not_ok "base.error says why"; fi
mg check -C "$repo" --base no-such-rev
expect_code 2 "an unknown --base"
expect_err "--base: unknown revision 'no-such-rev'" "the error names --base"
# record ignores the comparison: the same evidence records the same.
mg record -C "$repo" --out "$T/rec.json"
mg record -C "$repo" --base base --out "$T/rec.json"
expect_code 1 "record with --base"
expect_err "unchanged" "the comparison does not change the record's identity"


# ---- a code-only pull request: unselected candidates are not annotated ----
# The base and the head decide from the same report and manifest blobs with
# the same policy: only the decision and the selected candidate's findings
# are annotated; the others stay in the log, the summary and the record,
# and SARIF reports them as notes, not errors.
make_gate_repo "$T/quiet" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/quiet
g -C "$repo" tag base
mkdir -p "$repo/src"
echo 'int main(void) { return 0; }' >"$repo/src/train.c"
commit_all "$repo" "code only"
gh_check check -C "$repo" --policy-rev base --format github --sarif "$T/quiet.sarif" --json "$T/quiet.json"
expect_code 1 "code-only pull request: tune fails the gate"
expect_out "::warning file=.memgate.yml,line=$(line_of "$repo/.memgate.yml" 'min_memory_saving_mb'),col=25,title=memgate%3A memory_saving_below_floor (checkpoint)::" \
	"code-only: the selected candidate's finding is annotated"
for name in baseline offload hybrid; do
	if grep -q "^::.*title=memgate%3A [a-z_]* ($name)::" "$T/out"; then
		not_ok "code-only: no annotation about unselected $name" "$(grep "($name)::" "$T/out")"
	else
		ok "code-only: no annotation about unselected $name"
	fi
done
expect_out "offload: samples/s 0.533 < min_samples_per_s 1" "code-only: the log still lists unselected candidates' findings"
expect_file_has "$T/gh_summary" "offload" "code-only: the job summary still shows offload"
expect_file_has "$T/quiet.json" '"samples_per_s_below_floor"' "code-only: the record keeps offload's reasons"
errors=$(awk '/"results"/ { r = 1 } r && /"level":\t"error"/ { n++ } END { print n + 0 }' "$T/quiet.sarif")
if [ "$errors" = 0 ]; then ok "code-only: no SARIF error result"; else not_ok "code-only: no SARIF error result" "$errors errors"; fi
expect_file_has "$T/quiet.sarif" '"candidate":	"offload"' "code-only: SARIF still lists offload's finding (as a note)"

# A pull request that changes the report: every finding is annotated again.
sed -i 's/"peak_memory_mb": 9454.64/"peak_memory_mb": 9454.65/' "$repo/benchmarks/results/76_real_gpu_memory.json"
write_manifest "$repo"
commit_all "$repo" "new evidence"
gh_check check -C "$repo" --policy-rev base --format github --sarif "$T/changed.sarif"
expect_code 1 "changed evidence: tune fails the gate"
expect_out "title=memgate%3A samples_per_s_below_floor (offload)::" "changed evidence: unselected candidates are annotated"
errors=$(awk '/"results"/ { r = 1 } r && /"level":\t"error"/ { n++ } END { print n + 0 }' "$T/changed.sarif")
if [ "$errors" -gt 0 ]; then ok "changed evidence: SARIF errors again ($errors)"; else not_ok "changed evidence: SARIF errors again"; fi

finish
