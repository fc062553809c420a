# Shared helpers for the end-to-end tests (bash).  Each t_*.sh sources this,
# builds fixture repositories with the real git in a scratch directory, runs
# the memgate binary ($MEMGATE, optionally under $MEMGATE_WRAP) and checks
# exit codes, stdout, stderr and files.  Prints "ok - ..." / "not ok - ...".
set -u

: "${MEMGATE:?set MEMGATE to the memgate binary}"
: "${JSONGET:=$(dirname "$MEMGATE")/tests/jsonget}"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIX=$SRC/fixtures
T=$(mktemp -d "${TMPDIR:-/tmp}/memgate-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASSED=0
FAILED=0

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=memgate-test GIT_AUTHOR_EMAIL=test@memgate.invalid
export GIT_COMMITTER_NAME=memgate-test GIT_COMMITTER_EMAIL=test@memgate.invalid
export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GIT_DIR GIT_WORK_TREE

g() {
	git -c init.defaultBranch=main -c commit.gpgsign=false -c tag.gpgsign=false \
		-c core.autocrlf=false -c advice.detachedHead=false "$@"
}

# mg ARGS...: run memgate; sets $code; stdout in $T/out, stderr in $T/err.
# Every decision record it writes (--format json, --json FILE, record --out)
# is kept for finish() to validate against the record schema.
mg() {
	${MEMGATE_WRAP:-} "$MEMGATE" "$@" >"$T/out" 2>"$T/err"
	code=$?
	keep_records "$@"
}

# mg_in DIR ARGS...: run memgate in DIR (a model's folder, say), as mg does.
mg_in() {
	local dir=$1
	shift
	(cd "$dir" && ${MEMGATE_WRAP:-} "$MEMGATE" "$@") >"$T/out" 2>"$T/err"
	code=$?
}

# tree_snapshot DIR: remember the working tree's state; expect_tree_unchanged
# DIR DESC: it is the same (tracked edits, untracked files and every file's
# bytes): a refused command wrote nothing.
tree_snapshot() {
	(cd "$1" && git status --porcelain --untracked-files=all && find . -path ./.git -prune -o -type f -print0 |
		sort -z | xargs -0 sha256sum) >"$T/snap" 2>&1
}
expect_tree_unchanged() {
	(cd "$1" && git status --porcelain --untracked-files=all && find . -path ./.git -prune -o -type f -print0 |
		sort -z | xargs -0 sha256sum) >"$T/snap2" 2>&1
	if cmp -s "$T/snap" "$T/snap2"; then ok "$2"; else not_ok "$2" "$(diff "$T/snap" "$T/snap2")"; fi
}
# approve_refused DESC MESSAGE ARGS...: approve ARGS in $repo exits 2, says
# MESSAGE on stderr and writes nothing.
approve_refused() {
	local desc=$1 msg=$2
	shift 2
	tree_snapshot "$repo"
	mg approve -C "$repo" "$@"
	expect_code 2 "$desc"
	expect_err "$msg" "$desc: says why"
	expect_tree_unchanged "$repo" "$desc: nothing written"
}
# approve_in DIR ARGS...: run approve from DIR (paths are shown from it).
approve_in() {
	local dir=$1
	shift
	(cd "$dir" && ${MEMGATE_WRAP:-} "$MEMGATE" approve "$@") >"$T/out" 2>"$T/err"
	code=$?
}

# keep_record FILE: keep a copy of the decision record FILE, when it is one.
RECORDS=0
keep_record() {
	[ -f "$1" ] && grep -q '"schema_version":[[:space:]]*"memgate-decision\(/v3\|s/v1\)"' "$1" || return 0
	mkdir -p "$T/records"
	RECORDS=$((RECORDS + 1))
	cp "$1" "$T/records/$RECORDS.json"
}
# keep_records ARGS...: keep the records a memgate run with ARGS wrote.
keep_records() {
	local rc=$code cmd=${1:-} prev= a
	case $rc in 0|1) ;; *) return 0 ;; esac
	for a in "$@"; do
		case $prev:$a in
		--format:json) keep_record "$T/out" ;;
		--json:*) keep_record "$a" ;;
		--out:*) [ "$cmd" = record ] && keep_record "$a" ;;
		esac
		case $a in
		--format=json) keep_record "$T/out" ;;
		--json=*) keep_record "${a#--json=}" ;;
		--out=*) [ "$cmd" = record ] && keep_record "${a#--out=}" ;;
		esac
		prev=$a
	done
	return 0
}

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() {
	FAILED=$((FAILED + 1))
	echo "not ok - $1"
	shift
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
	echo "#   exit: ${code:-?}"
	sed 's/^/#   stdout: /' "$T/out" 2>/dev/null | head -n 40
	sed 's/^/#   stderr: /' "$T/err" 2>/dev/null | head -n 40
}

# expect_code N DESC
expect_code() {
	if [ "${code:-x}" = "$1" ]; then ok "$2 (exit $1)"; else not_ok "$2" "expected exit $1"; fi
}
# expect_out TEXT DESC / expect_err TEXT DESC: fixed-string match
expect_out() {
	if grep -qF -- "$1" "$T/out"; then ok "$2"; else not_ok "$2" "stdout lacks: $1"; fi
}
expect_err() {
	if grep -qF -- "$1" "$T/err"; then ok "$2"; else not_ok "$2" "stderr lacks: $1"; fi
}
expect_no_err() {
	if grep -qF -- "$1" "$T/err"; then not_ok "$2" "stderr has: $1"; else ok "$2"; fi
}
expect_no_out() {
	if grep -qF -- "$1" "$T/out"; then not_ok "$2" "stdout has: $1"; else ok "$2"; fi
}
# need_ssh_keygen: skip the script where ssh-keygen is missing (the
# signing scripts make their keys with it; memgate itself never runs it).
need_ssh_keygen() {
	if ! command -v ssh-keygen >/dev/null 2>&1; then
		echo "ok - # SKIP ssh-keygen not available (actions/install-deps installs openssh-client)"
		exit 0
	fi
}
# ssh_key NAME...: an ed25519 key pair $T/NAME and $T/NAME.pub for each,
# without a passphrase, its comment NAME.
ssh_key() {
	local k
	for k in "$@"; do
		ssh-keygen -q -t ed25519 -N '' -C "$k" -f "$T/$k" </dev/null
	done
}
# pub KEY: KEY.pub's "type base64", as an allowed-signers line takes it.
pub() { cut -d' ' -f1,2 "$1.pub"; }
# fp KEY: KEY.pub's SHA256 fingerprint, as memgate names a signer.
fp() { ssh-keygen -lf "$1.pub" | cut -d' ' -f2; }

# expect_text_as_with_findings DESC ARGS...: `memgate check ARGS` prints the
# same text alone (the findings computed only when the text reads them,
# mg_text_reads_findings) as beside a JUnit file (always computed).
expect_text_as_with_findings() {
	local desc=$1
	shift
	mg check "$@"
	cp "$T/out" "$T/text-alone"
	mg check "$@" --junit "$T/text-junit.xml"
	if cmp -s "$T/text-alone" "$T/out"; then
		ok "$desc: the text is the same as with the findings computed"
	else
		not_ok "$desc: the text is the same as with the findings computed" \
			"$(diff "$T/text-alone" "$T/out" | head -5)"
	fi
}
# A command a script names that does not exist (a helper misspelt or never
# defined) fails the script, rather than skipping what it would assert.
command_not_found_handle() {
	not_ok "command not found: $1" "a test script ran a command that does not exist"
	return 127
}
# expect_field PATH EXPECTED [FILE]: the JSON value at PATH ("evaluations.0.status")
# of the record in FILE (default: stdout), printed unformatted by tests' jsonget.
expect_field() {
	local got
	keep_record "${3:-$T/out}"
	got=$("$JSONGET" "${3:-$T/out}" "$1" 2>&1)
	if [ "$got" = "$2" ]; then ok "record $1 = $2"; else not_ok "record $1" "expected $2, got $got"; fi
}
expect_no_file() {
	if [ -e "$1" ]; then not_ok "$2" "file exists: $1"; else ok "$2"; fi
}

# make_gate_repo DIR POLICY REPORT: a repository with .memgate.yml, a report
# at benchmarks/results/76_real_gpu_memory.json and a manifest pinning it,
# committed.  POLICY and REPORT are paths to files (under fixtures/).
REPORT_PATH=benchmarks/results/76_real_gpu_memory.json
MANIFEST_PATH=benchmarks/results/75_input_manifest.json
make_gate_repo() {
	local dir=$1 policy=$2 report=$3
	mkdir -p "$dir/benchmarks/results"
	g init -q "$dir"
	cp "$policy" "$dir/.memgate.yml"
	cp "$report" "$dir/$REPORT_PATH"
	write_manifest "$dir"
	g -C "$dir" add -A
	g -C "$dir" commit -q -m "evidence"
}

# write_manifest DIR [SHA]: pin the report's current bytes (or SHA).
write_manifest() {
	local dir=$1 sha=${2:-}
	[ -n "$sha" ] || sha=$(sha256sum "$dir/$REPORT_PATH" | cut -d' ' -f1)
	cat >"$dir/$MANIFEST_PATH" <<JSON
{
  "source": {
    "path": "$REPORT_PATH",
    "sha256": "$sha"
  }
}
JSON
}

commit_all() {
	g -C "$1" add -A
	g -C "$1" commit -q -m "${2:-change}"
}

# runner_commands FILE: print the workflow commands the Actions runner would
# execute on the log FILE, one per line ("name", or "v1:..." for a legacy
# ##[ command), following ::stop-commands::TOKEN.
runner_commands() {
	awk '
	{ line = $0; sub(/^[ \t]+/, "", line) }
	stop != "" { if (line == "::" stop "::") stop = ""; next }
	index(line, "::") == 1 {
		rest = substr(line, 3); end = index(rest, "::")
		if (end > 0) {
			info = substr(rest, 1, end - 1); sp = index(info, " ")
			name = tolower(sp ? substr(info, 1, sp - 1) : info)
			print name
			if (name == "stop-commands") stop = substr(rest, end + 2)
			next
		}
	}
	index(line, "##[") > 0 { print "v1:" substr(line, index(line, "##[")) }
	' "$1"
}

# expect_runner_safe FILE DESC: the runner would run no command on FILE but
# memgate's own annotations (error, warning, notice, one stop-commands).
expect_runner_safe() {
	runner_commands "$1" >"$T/commands"
	if grep -qv -E '^(error|warning|notice|stop-commands)$' "$T/commands" ||
	   [ "$(grep -c '^stop-commands$' "$T/commands")" -gt 1 ]; then
		not_ok "$2" "$(grep -v -E '^(error|warning|notice)$' "$T/commands" | head -5)"
	else
		ok "$2"
	fi
}

# The GitHub Action's steps, run through action.yml's own run: lines with a
# stand-in action directory: the real actions/ (a symlink) and a memgate
# that runs $MEMGATE (under $MEMGATE_WRAP).
ACTION_DIR=$T/action-dir
action_setup() {
	[ -d "$ACTION_DIR" ] && return 0
	mkdir -p "$ACTION_DIR"
	ln -s "$SRC/actions" "$ACTION_DIR/actions"
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${MEMGATE_WRAP:-}" "$MEMGATE" >"$ACTION_DIR/memgate"
	chmod +x "$ACTION_DIR/memgate"
}
# action_run_line ID: the run: line of action.yml's step ID.
action_run_line() {
	awk -v id="$1" '$1 == "id:" && $2 == id { f = 1; next }
		f && /^ *- / { exit }
		f && $1 == "run:" { sub(/^ *run: */, ""); print; exit }' "$SRC/action.yml"
}
# action_step ID WORKSPACE [VAR=VALUE...]: run step ID as the runner would,
# in WORKSPACE, for a pull_request event, with the action's default inputs
# overridden by VAR=VALUE; GITHUB_OUTPUT is $T/gh-output, the summary
# $T/gh-summary.  Sets $code, $T/out, $T/err.
action_step() {
	local id=$1 ws=$2 line
	shift 2
	action_setup
	line=$(action_run_line "$id")
	(cd "$ws" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" \
		GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		GITHUB_ACTIONS=true GITHUB_ACTION_PATH="$ACTION_DIR" GITHUB_WORKSPACE="$ws" \
		GITHUB_OUTPUT="$T/gh-output" GITHUB_STEP_SUMMARY="$T/gh-summary" \
		MEMGATE_DIR=. MEMGATE_POLICY=.memgate.yml MEMGATE_REV=HEAD \
		MEMGATE_POLICY_REV= MEMGATE_EVENT=pull_request MEMGATE_PR_BASE= \
		MEMGATE_MERGE_GROUP_BASE= MEMGATE_PUSH_BEFORE= MEMGATE_FAIL_ON= \
		MEMGATE_REQUIRE_APPROVED=false MEMGATE_SUMMARY=true \
		"$@" bash --noprofile --norc -eo pipefail -c "$line") >"$T/out" 2>"$T/err"
	code=$?
}
# action_policy_rev: the policy-rev the last resolve step wrote.
action_policy_rev() {
	sed -n 's/^policy-rev=//p' "$T/gh-output" | tail -n 1
}

# check_records: every record kept above passes the record schema
# (include/memgate/schema/record.schema.json), one check for the lot.
check_records() {
	[ "$RECORDS" -gt 0 ] || return 0
	if "$SRC/tests/validate-schema" "$SRC/include/memgate/schema/record.schema.json" \
		"$T"/records/*.json >"$T/schema-out" 2>&1; then
		ok "all $RECORDS decision records written pass the record schema"
	else
		FAILED=$((FAILED + 1))
		echo "not ok - all $RECORDS decision records written pass the record schema"
		grep -v '^ok - ' "$T/schema-out" | head -n 20 | sed 's/^/#   /'
	fi
}

finish() {
	check_records
	echo "# $(basename "$0"): $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# make_monorepo DIR: a repository with two models, each with its own
# policy, report and manifest (made by memgate manifest from the model's
# directory), committed:
#   models/llm-a/.memgate.yml        the demo's policy: tune (fails the gate)
#   models/llm-b/train.memgate.yml   a lower saving floor: accept (passes)
# and a README.md at the top, which has no policy of its own.
make_monorepo() {
	local dir=$1 m
	g init -q "$dir"
	for m in llm-a llm-b; do
		mkdir -p "$dir/models/$m/results"
		cp "$FIX/reports/76_real_gpu_memory.flat.json" "$dir/models/$m/results/76_report.json"
	done
	sed -e 's|^manifest: .*|manifest: models/llm-a/results/75_manifest.json|' \
		"$FIX/demo/memgate.yml" >"$dir/models/llm-a/.memgate.yml"
	sed -e 's|^manifest: .*|manifest: models/llm-b/results/75_manifest.json|' \
	    -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' \
	    -e '/^  grid:/,/^    min_samples_per_s:/d' \
		"$FIX/demo/memgate.yml" >"$dir/models/llm-b/train.memgate.yml"
	echo "two models" >"$dir/README.md"
	commit_all "$dir" "reports and policies"
	for m in llm-a llm-b; do
		(cd "$dir/models/$m" && ${MEMGATE_WRAP:-} "$MEMGATE" manifest --report results/76_report.json \
			--out results/75_manifest.json) >/dev/null 2>&1
	done
	commit_all "$dir" "manifests"
}
