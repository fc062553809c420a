#!/usr/bin/env bash
# "Did you mean" (issue 35, item 4): a misspelt command, option or policy
# file name is named with the word memgate knows, from the one table each
# (the commands' list, the command's option table, the policy's names).
. "$(dirname "$0")/lib.sh"

mg chek
expect_code 2 "a misspelt command"
expect_err "memgate: error: unknown command 'chek' (did you mean 'check'?)" "names the command"
mg lsit
expect_err "unknown command 'lsit' (did you mean 'list'?)" "list, transposed"
mg frobnicate
expect_code 2 "an unknown command"
expect_no_err "did you mean" "nothing near: no guess"

mg check --polcy .memgate.yml
expect_code 2 "a misspelt option"
expect_err "memgate: error: check: unknown option '--polcy' (did you mean '--policy'?)" "names the option"
mg manifest --reprot x --out y
expect_err "unknown option '--reprot' (did you mean '--report'?)" "manifest's own options"
mg check --policy-rv=main
expect_err "unknown option '--policy-rv=main' (did you mean '--policy-rev'?)" "an option with its value"
mg check --zzzzzz
expect_no_err "did you mean" "nothing near: no guess"
expect_no_file "$T/y" "nothing written"

R=$T/r
make_gate_repo "$R" "$FIX/e2e/real-flat-11200.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
g -C "$R" mv .memgate.yml memgate.yml
commit_all "$R" "the policy under a name memgate does not read"
mg_in "$R" check
expect_code 2 "a policy named memgate.yml"
expect_err "'memgate.yml' is not a policy's name (did you mean '.memgate.yml'?" "names the file and the name"
mkdir -p "$R/models/a"
echo "version: 1" >"$R/models/a/.memgate.yaml"
mg_in "$R/models/a" check
expect_code 2 "an untracked models/a/.memgate.yaml"
expect_err "'models/a/.memgate.yaml' is not a policy's name (did you mean 'models/a/.memgate.yml'?" \
	"the folder memgate runs in first"

[ "$FAILED" -eq 0 ]
