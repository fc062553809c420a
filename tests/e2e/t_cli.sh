#!/usr/bin/env bash
# The command line: help per command, git-style usage errors (one line and a
# pointer to the command's help, exit 2, nothing written), --fail-on lists
# that name nothing, errors that name the option behind them, "./" paths,
# and the version in the decision record.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
repo=$T/repo
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"

# expect_usage_error CMD DESC: exit 2, exactly two lines on stderr (what is
# wrong, then "see 'memgate CMD -h'"), nothing on stdout.
expect_usage_error() {
	expect_code 2 "$2"
	if [ "$(wc -l <"$T/err")" -eq 2 ] && [ "$(tail -n 1 "$T/err")" = "see 'memgate $1 -h'" ]; then
		ok "$2: one line and a pointer to 'memgate $1 -h'"
	else
		not_ok "$2: one line and a pointer to 'memgate $1 -h'"
	fi
	if [ -s "$T/out" ]; then not_ok "$2: nothing on stdout"; else ok "$2: nothing on stdout"; fi
}

# -h and --help for every command, on stdout, exit 0.
for c in check record manifest sign; do
	for h in -h --help; do
		mg $c $h
		expect_code 0 "memgate $c $h"
		expect_out "usage: memgate $c" "memgate $c $h prints its usage"
	done
done
mg check -C "$repo" --rev HEAD -h
expect_code 0 "-h after other options"
expect_out "--fail-on LIST" "check -h describes --fail-on"
mg -h
expect_code 0 "memgate -h"
expect_out "'memgate <command> -h' describes a command" "the main help points at each command's -h"
# ... and lists every command with its line (from the commands' table).
cat >"$T/want-h" <<'EOF'
usage: memgate <command> [options]

  check      gate the committed evidence against the budget policy
  record     write the decision record, write-once (release close stage)
  manifest   make a manifest for a committed report
  sign       sign the manifest on the GPU runner (signed evidence)
  approve    approve the evidence, signed by a person (releases)
  list       list the policy files of the repository (monorepos)
  version    print the version

'memgate <command> -h' describes a command.
EOF
if cmp -s "$T/want-h" "$T/out"; then ok "memgate -h lists every command with its line"
else not_ok "memgate -h lists every command with its line" "$(diff "$T/want-h" "$T/out")"; fi
mg
expect_code 2 "memgate with no command"
if cmp -s "$T/want-h" "$T/err"; then ok "memgate with no command prints the help to stderr"
else not_ok "memgate with no command prints the help to stderr" "$(diff "$T/want-h" "$T/err")"; fi

# Usage errors: one line, then the pointer; no full help.
mg check -C "$repo" --no-such-option --json "$T/never.json"
expect_usage_error check "an unknown long option"
expect_err "memgate: error: check: unknown option '--no-such-option'" "names the unknown option"
expect_no_file "$T/never.json" "a usage error writes nothing"
mg check -x
expect_usage_error check "an unknown short option"
expect_err "unknown option '-x'" "names the unknown short option"
mg check --rev
expect_usage_error check "an option without its value"
expect_err "option '--rev' needs a value" "names the option that needs a value"
mg check -C
expect_usage_error check "-C without its value"
expect_err "option '-C' needs a value" "names -C"
mg check --format yaml
expect_usage_error check "an unknown format"
expect_err "--format: unknown format 'yaml'" "names --format"
mg check stray
expect_usage_error check "an unexpected argument"
expect_err "unexpected argument 'stray'" "names the argument"
mg record -C "$repo"
expect_usage_error record "record without --out"
expect_err "record: needs --out PATH" "says what record needs"
mg manifest --report
expect_usage_error manifest "manifest --report without its value"
mg manifest
expect_usage_error manifest "manifest without --report"
expect_err "memgate: error: manifest: needs --report PATH" "says what manifest needs"
mg frobnicate
expect_code 2 "an unknown command"
expect_err "memgate: error: unknown command 'frobnicate'" "names the command"
expect_err "see 'memgate -h'" "points at memgate -h"
if grep -q "usage:" "$T/err"; then not_ok "no usage block for an unknown command"; else ok "no usage block for an unknown command"; fi

# --fail-on must name a decision: "" and "," would quietly turn the gate off.
for list in "" "," " , "; do
	mg check -C "$repo" --fail-on "$list" --json "$T/never.json"
	expect_usage_error check "--fail-on '$list'"
	expect_err "--fail-on: '$list' names no decision" "--fail-on '$list' is refused"
	expect_no_file "$T/never.json" "--fail-on '$list' writes nothing"
done
# An unknown word names the choices, from the core's verdicts.
mg check -C "$repo" --fail-on reject,bogus --json "$T/never.json"
expect_usage_error check "--fail-on with an unknown decision"
expect_err "--fail-on: unknown decision in 'reject,bogus' (expected accept, tune, reject or none)" \
	"--fail-on's error lists the decisions"
expect_no_file "$T/never.json" "--fail-on with an unknown decision writes nothing"
mg check -C "$repo" --fail-on none,tune
expect_usage_error check "--fail-on none with a decision"
expect_err "'none' cannot be combined" "says none stands alone"
mg check -C "$repo" --fail-on none --format json
expect_code 0 "--fail-on none never fails, on purpose"
expect_field gate.fail_on '[]'
expect_field gate.passed true
mg check -C "$repo" --fail-on maybe
expect_usage_error check "an unknown --fail-on word"

# Revisions that do not resolve name the option they came from.
mg check -C "$repo" --policy-rev deadbeef --json "$T/never.json"
expect_code 2 "an unknown --policy-rev"
expect_err "memgate: error: --policy-rev: unknown revision 'deadbeef'" "names --policy-rev"
expect_no_file "$T/never.json" "nothing written"
mg check -C "$repo" --rev no-such-branch
expect_code 2 "an unknown --rev"
expect_err "memgate: error: --rev: unknown revision 'no-such-branch'" "names --rev"
mg manifest -C "$repo" --rev deadbeef --report "$REPORT_PATH"
expect_code 2 "manifest with an unknown --rev"
expect_err "--rev: unknown revision 'deadbeef'" "manifest names --rev"

# A leading ./ is the same path.
mg check -C "$repo" --policy ./.memgate.yml --format json
expect_code 1 "--policy ./.memgate.yml is read"
expect_field inputs.policy.path '".memgate.yml"'
mg check -C "$repo" --policy .//./.memgate.yml
expect_code 1 "--policy .//./.memgate.yml is read"
mg manifest -C "$repo" --report "./$REPORT_PATH"
expect_code 0 "manifest --report ./PATH"
expect_out "\"path\": \"$REPORT_PATH\"" "the manifest names the path without ./"

# The record carries memgate's version, and the same version writes the
# same bytes for the same inputs.
version=$("$MEMGATE" version | sed 's/^memgate //')
mg check -C "$repo" --json "$T/a.json"
mg check -C "$repo" --json "$T/b.json"
expect_field memgate_version "\"$version\"" "$T/a.json"
if cmp -s "$T/a.json" "$T/b.json"; then ok "two runs write byte-identical records"; else not_ok "two runs write byte-identical records"; fi
# record's write-once rule ignores the version: an upgrade that decides the
# same is no change.
mg record -C "$repo" --out "$T/rec.json"
sed -i "s/\"memgate_version\":\t\"$version\"/\"memgate_version\":\t\"0.0.1-older\"/" "$T/rec.json"
if grep -q '0.0.1-older' "$T/rec.json"; then ok "the record was rewritten as an older version's"; else not_ok "the record was rewritten as an older version's"; fi
mg record -C "$repo" --out "$T/rec.json"
expect_code 1 "re-recording with another memgate version exits like check"
expect_err "record unchanged" "an older version's same record is unchanged"

finish
