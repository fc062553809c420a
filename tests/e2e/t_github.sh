#!/usr/bin/env bash
# GitHub and other CI outputs from the binary, with hostile candidate names:
# every output line is read the way the Actions runner reads it, and only the
# commands memgate meant come out.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e

# runner FILE: the workflow commands the runner would execute (lib.sh).
runner() { runner_commands "$1"; }

# A report whose candidate names try every trick.
repo=$T/hostile
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
sed -i 's/"name": "offload"/"name": "::error file=x::owned\\n::warning::two\\r##[error]v1 100% a,b:c \\u001b[31m|<script>x<\/script>|"/; s/"name": "hybrid"/"name": "::set-output name=decision::accept"/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "hostile names"

export GITHUB_ACTIONS=true GITHUB_OUTPUT=$T/gh_output GITHUB_STEP_SUMMARY=$T/gh_summary
: >"$GITHUB_OUTPUT"
echo "## earlier step" >"$GITHUB_STEP_SUMMARY"
mg check -C "$repo" --junit "$T/junit.xml"
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
expect_code 1 "github format exits like text"
cat "$T/out" "$T/err" >"$T/log"
runner "$T/log" >"$T/commands"
if grep -qv -E '^(error|warning|notice|stop-commands)$' "$T/commands"; then
	not_ok "only intended commands run" "$(grep -v -E '^(error|warning|notice|stop-commands)$' "$T/commands")"
else
	ok "only intended commands run"
fi
expect_out "::error file=.memgate.yml," "the decision is an error annotation on the policy"
if [ "$(grep -c '^stop-commands$' "$T/commands")" = 1 ]; then ok "one stop-commands block"; else not_ok "one stop-commands block"; fi
if [ "$(grep -c '^error$' "$T/commands")" -le 10 ] && [ "$(grep -c '^warning$' "$T/commands")" -le 10 ]; then
	ok "at most 10 annotations per level"
else
	not_ok "at most 10 annotations per level"
fi
token=$(sed -n 's/^::stop-commands::\(.*\)$/\1/p' "$T/out")
if [ ${#token} -ge 32 ] && grep -qx "::$token::" "$T/out"; then ok "stop-commands token is random and closed"; else not_ok "stop-commands token is random and closed"; fi

# Step outputs: the env-file format the runner parses.
if grep -qx 'decision=tune' "$T/gh_output" && grep -qx 'passed=false' "$T/gh_output" &&
   grep -qx 'selected-candidate=checkpoint' "$T/gh_output" && ! grep -q 'accept' "$T/gh_output"; then
	ok "step outputs hold the decision, not an injected one"
else
	not_ok "step outputs" "$(cat "$T/gh_output")"
fi
# Job summary appended after the earlier step's, tables intact, no raw HTML.
if head -1 "$T/gh_summary" | grep -qx '## earlier step'; then ok "summary is appended"; else not_ok "summary is appended"; fi
if grep -q '<script' "$T/gh_summary"; then not_ok "no HTML from input in the summary"; else ok "no HTML from input in the summary"; fi
bad_rows=$(awk -F'|' '/^\| # \| candidate/ { n = NF; t = 1; next } t && /^\|/ { gsub(/\\\|/, ""); if (NF != n) bad++ ; next } { t = 0 } END { print bad + 0 }' "$T/gh_summary")
if [ "$bad_rows" = 0 ]; then ok "every candidate row has the header's cells"; else not_ok "candidate rows break the table ($bad_rows)"; fi
# JUnit: well-formed, one case per candidate plus evidence, sensitivity, decision.
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$T/junit.xml" 2>"$T/xmlerr"; then ok "junit is well-formed XML"; else not_ok "junit is well-formed XML" "$(cat "$T/xmlerr")"; fi
else
	ok "# SKIP xmllint not installed (the unit tests check well-formedness)"
fi
if [ "$(grep -c '<testcase ' "$T/junit.xml")" -ge 5 ]; then ok "junit has the test cases"; else not_ok "junit has the test cases"; fi
if grep -q '<script' "$T/junit.xml"; then not_ok "junit escapes input"; else ok "junit escapes input"; fi

# The same names in text and JSON: one line per row, valid JSON.
mg check -C "$repo" --format text
runner "$T/out" >"$T/commands"
if [ -s "$T/commands" ]; then not_ok "text output runs no command" "$(cat "$T/commands")"; else ok "text output runs no command"; fi
if grep -q $'\x1b' "$T/out"; then not_ok "no raw escape sequence in text"; else ok "no raw escape sequence in text"; fi
mg check -C "$repo" --format json
expect_field evaluations.2.status '"rejected"'
expect_field evaluations.3.name '"::set-output name=decision::accept"'

# Errors quoting input text are escaped too.
sed -i 's/^  workload_id: pressure$/  workload_id: pressure\n  "##[error]x\\nline": 1/' "$repo/.memgate.yml"
commit_all "$repo" "hostile key"
mg check -C "$repo" --format github
expect_code 2 "a hostile unknown key is an error"
expect_err "unknown key" "the hostile key is reported as unknown"
runner "$T/err" >"$T/commands"
if [ -s "$T/commands" ]; then not_ok "the error runs no command" "$(cat "$T/commands")"; else ok "the error runs no command"; fi

# --summary and --junit into a directory that does not exist: exit 2, and
# the --json file beside them is not left behind either.
mg check -C "$repo" --rev HEAD~1 --json "$T/j.json" --junit "$T/no/such/dir/j.xml" --fail-on reject
expect_code 2 "an unwritable output"
expect_err "no/such/dir/j.xml" "the unwritable output is named"
expect_no_file "$T/j.json" "nothing written when one output fails"
if ls "$T"/j.json.tmp.* >/dev/null 2>&1; then not_ok "no temporary file left"; else ok "no temporary file left"; fi

finish
