#!/usr/bin/env bash
# A fast path decides as the slow one: every Action scenario of the suite
# (a plain pull request, regressions of the selected candidate and of the
# base's, evidence.inputs on both sides, regression.history with a report
# that changed and one that did not, a short history, a merge on the base
# line, a stale pull request, adoption, all: over a monorepo, a policy
# loosened by the pull request, a policy it broke), run through
# the Action's own step scripts as action.yml runs them (resolve, measured,
# check with json: and comment:), from a checkout at fetch-depth: 1 and
# from one at fetch-depth: 0 of the same "server" repository (file://).
# The steps' exit codes, the step outputs, the check's log, the job
# summary, the JSON record and the comment are held equal between the two,
# and what the depth-1 run fetched is counted: a pull request that leaves
# the report alone fetches no history.
. "$(dirname "$0")/lib.sh"

SRV=$T/srv
mkdir -p "$SRV"

# policy FILE [LINES...]: checkpoint is the winner; the LINES follow
# (a regression: section, evidence:).
policy() {
	local file=$1
	shift
	cat >"$file" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 80000
  min_memory_saving_mb: 1000
sensitivity:
  stricter:
    - { min_memory_saving_mb: 1500 }
YAML
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$file"
}

# report FILE CHECKPOINT-PEAK [HYBRID-PEAK]
report() {
	cat >"$1" <<JSON
{
  "workload_id": "train",
  "hardware_id": "gpu-a",
  "candidates": [
    { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
    { "name": "checkpoint", "peak_memory_mb": $2, "samples_per_s": 8.0, "eval_loss": 2.0 },
    { "name": "hybrid", "peak_memory_mb": ${3:-60000}, "samples_per_s": 9.0, "eval_loss": 2.0 }
  ]
}
JSON
}

# measure DIR CHECKPOINT-PEAK [HYBRID-PEAK]: a report and its manifest,
# measured on the commit checked out (measured.commit), committed.
measure() {
	local dir=$1
	shift
	report "$dir/$REPORT_PATH" "$@"
	mg manifest -C "$dir" --worktree --report "$REPORT_PATH" --out "$dir/$MANIFEST_PATH" \
		--measured-commit HEAD --force
	commit_all "$dir" "measure $*"
}

# server NAME [POLICY-LINES...]: a new server repository $SRV/NAME with the
# policy and src/model.py committed on main; $repo is its path.
server() {
	repo=$SRV/$1
	shift
	mkdir -p "$repo/src" "$repo/benchmarks/results"
	g init -q "$repo"
	policy "$repo/.memgate.yml" "$@"
	echo "v1" >"$repo/src/model.py"
	commit_all "$repo" "the policy and the code"
}

# note DIR: a commit that touches neither the code nor the evidence.
NOTE=0
note() {
	NOTE=$((NOTE + 1))
	echo "$NOTE" >"$1/NOTES"
	commit_all "$1" "note $NOTE"
}

# --- the scenarios: server repositories, main the base, pr the head -----------

REG=("regression:" "  max_peak_increase_pct: 5")
INPUTS=("evidence:" "  inputs:" '    - "src/**"')
SCENARIOS=()

# 1. a plain pull request within every allowance: accept
server plain "${REG[@]}"
measure "$repo" 52110; note "$repo"
g -C "$repo" checkout -q -b pr; measure "$repo" 52500
SCENARIOS+=(plain)

# 2. a 7 % peak regression of the selected candidate: tune
server regress "${REG[@]}"
measure "$repo" 52110; note "$repo"
g -C "$repo" checkout -q -b pr; measure "$repo" 55800
SCENARIOS+=(regress)

# 3. issue 30, item 3: evidence.inputs on both sides, each manifest measured
# on an older commit than its evidence; the base selected checkpoint, whose
# peak grows 8.2 % while hybrid improves: tune, and main's true verdict
server base-selected "${REG[@]}" "${INPUTS[@]}"
measure "$repo" 52110; note "$repo"
g -C "$repo" checkout -q -b pr
echo "v2" >"$repo/src/model.py"; commit_all "$repo" "new code"
measure "$repo" 56383 55000; note "$repo"
SCENARIOS+=(base-selected)

# 4. a pull request that changes the code but not its evidence: stale
server stale "${REG[@]}" "${INPUTS[@]}"
measure "$repo" 52110
g -C "$repo" checkout -q -b pr
echo "v2" >"$repo/src/model.py"; commit_all "$repo" "new code, not measured"
SCENARIOS+=(stale)

# history: a main line of 14 measurements, notes between them and a merged
# side branch whose own measurements do not count
history_line() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
		measure "$repo" $((50000 + (i % 5) * 700)) $((60000 + i * 10))
		note "$repo"; note "$repo"
		if [ $i = 7 ]; then
			g -C "$repo" checkout -q -b side
			measure "$repo" 40000 40000
			g -C "$repo" checkout -q main
			g -C "$repo" merge -q --no-ff -X theirs -m "merge side" side
		fi
	done
}

# 5. issue 30, item 4: history: 10, a pull request past the median: tune
server history "${REG[@]}" "  history: 10"
history_line
g -C "$repo" checkout -q -b pr; measure "$repo" 54800
SCENARIOS+=(history)

# 6. history: 10, a pull request that leaves the report alone: accept, and
# no history fetched
server history-untouched "${REG[@]}" "  history: 10"
history_line
g -C "$repo" checkout -q -b pr; echo "v2" >"$repo/src/model.py"; commit_all "$repo" "code only"
SCENARIOS+=(history-untouched)

# 7. history: 10 on a line of 3 measurements: the walk reaches the first commit
server history-short "${REG[@]}" "  history: 10"
measure "$repo" 50000; note "$repo"; measure "$repo" 50500; measure "$repo" 51000
g -C "$repo" checkout -q -b pr; measure "$repo" 56000
SCENARIOS+=(history-short)

# 8. history with evidence.inputs and covers: all
server history-inputs "regression:" "  max_peak_increase_pct: 5" "  covers: all" \
	"  history: 4" "${INPUTS[@]}"
history_line
g -C "$repo" checkout -q -b pr
echo "v3" >"$repo/src/model.py"; commit_all "$repo" "new code"
measure "$repo" 50100 64000
SCENARIOS+=(history-inputs)

# 9. adoption: the base has no policy; the pull request brings it
repo=$SRV/adopt
mkdir -p "$repo"
g init -q "$repo"
echo "code" >"$repo/README"; commit_all "$repo" "before memgate"
g -C "$repo" checkout -q -b pr
mkdir -p "$repo/src" "$repo/benchmarks/results"
policy "$repo/.memgate.yml" "${REG[@]}"
echo "v1" >"$repo/src/model.py"
measure "$repo" 52110
SCENARIOS+=(adopt)

# 10. all: a monorepo, one model's report regressing, the other untouched
repo=$SRV/mono
make_monorepo "$repo"
printf 'regression:\n  max_peak_increase_pct: 5\n  history: 3\n' >>"$repo/models/llm-a/.memgate.yml"
printf 'regression:\n  max_peak_increase_pct: 5\n' >>"$repo/models/llm-b/train.memgate.yml"
commit_all "$repo" "regression sections"
note "$repo"
g -C "$repo" checkout -q -b pr
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9700/' "$repo/models/llm-a/results/76_report.json"
mg manifest -C "$repo" --worktree --report models/llm-a/results/76_report.json \
	--out "$repo/models/llm-a/results/75_manifest.json" --force
commit_all "$repo" "llm-a: new evidence"
SCENARIOS+=(mono:all)

# 11. a pull request that loosens the allowance in its own policy and
# regresses: the base's policy decides, the change is listed
server loosen "${REG[@]}"
measure "$repo" 52110; note "$repo"
g -C "$repo" checkout -q -b pr
policy "$repo/.memgate.yml" "regression:" "  max_peak_increase_pct: 50"
commit_all "$repo" "loosen the allowance"
measure "$repo" 55800
SCENARIOS+=(loosen)

# 12. a pull request whose policy cannot be read: exit 2 at its line, the
# error output, no record
server broken "${REG[@]}"
measure "$repo" 52110
g -C "$repo" checkout -q -b pr
printf 'regression:\n  max_peak_increase_pct: [5\n' >>"$repo/.memgate.yml"
commit_all "$repo" "a broken policy"
SCENARIOS+=(broken:error)

# --- running the Action ---------------------------------------------------------

# run_action NAME DEPTH [VAR=VALUE...]: clone $SRV/NAME's pr at DEPTH (1, or
# 0 for all history) into $T/ws (the same path each time), run the resolve,
# measured and check steps, and keep what they wrote in $T/got/NAME.DEPTH.*
WS=$T/ws
run_action() {
	local name=$1 depth=$2 base out=$T/got/$1.$2 step
	shift 2
	mkdir -p "$T/got"
	base=$(g -C "$SRV/$name" rev-parse main)
	rm -rf "$WS" "$T/gh-output" "$T/gh-summary" "$T/comment.md"
	mkdir -p "$WS"
	if [ "$depth" = 0 ]; then
		g clone -q --no-single-branch --branch pr "file://$SRV/$name" "$WS/repo" 2>/dev/null
	else
		g clone -q --depth="$depth" --branch pr "file://$SRV/$name" "$WS/repo" 2>/dev/null
	fi
	: >"$out.fetched"
	local env=(MEMGATE_DIR=repo GITHUB_SERVER_URL="file://$SRV" GITHUB_REPOSITORY="$name"
		   MEMGATE_FETCH_LOG="$out.fetched" "$@")
	action_step resolve "$WS" "${env[@]}" MEMGATE_PR_BASE="$base"
	echo "resolve: $code" >"$out.codes"
	policy_rev=$(action_policy_rev)
	action_step measured "$WS" "${env[@]}" MEMGATE_POLICY_REV="$policy_rev"
	echo "measured: $code" >>"$out.codes"
	grep '^::' "$T/out" >"$out.measured" || true
	action_step check "$WS" "${env[@]}" MEMGATE_POLICY_REV="$policy_rev" \
		MEMGATE_JSON=memgate-record.json MEMGATE_COMMENT=true \
		MEMGATE_COMMENT_FILE="$T/comment.md"
	echo "check: $code" >>"$out.codes"
	# the runner's random stop-commands token and output delimiters
	sed -E 's/^::stop-commands::.*/::stop-commands::TOKEN/; s/^::[0-9a-f]{32,}::$/::TOKEN::/' \
		"$T/out" >"$out.log"
	sed -E 's/ghadelimiter_[0-9a-zA-Z_-]+/ghadelimiter_X/' "$T/gh-output" >"$out.outputs"
	cp "$T/gh-summary" "$out.summary" 2>/dev/null || : >"$out.summary"
	cp "$WS/repo/memgate-record.json" "$out.json" 2>/dev/null || : >"$out.json"
	keep_record "$out.json"
	cp "$T/comment.md" "$out.comment" 2>/dev/null || : >"$out.comment"
	git -C "$WS/repo" rev-list --count --all >"$out.commits" 2>/dev/null
}

# same NAME WHAT DESC: the depth-1 and depth-0 runs' WHAT files are equal.
same() {
	if cmp -s "$T/got/$1.1.$2" "$T/got/$1.0.$2"; then
		ok "$1: $3 equal at depth 1 and at full depth"
	else
		not_ok "$1: $3 equal at depth 1 and at full depth" \
			"$(diff "$T/got/$1.1.$2" "$T/got/$1.0.$2" | head -n 20)"
	fi
}

# decision FILE: the step outputs' decision (reason)
decision() {
	printf '%s (%s)' "$(sed -n 's/^decision=//p' "$1")" "$(sed -n 's/^reason=//p' "$1")"
}

compared=0
for s in "${SCENARIOS[@]}"; do
	name=${s%%:*}
	extra=()
	case $s in *:all) extra=(MEMGATE_ALL=true) ;; esac
	written=true
	case $s in *:error) written=false ;; esac
	run_action "$name" 1 "${extra[@]}"
	run_action "$name" 0 "${extra[@]}"
	same "$name" codes "the steps' exit codes"
	same "$name" outputs "the step outputs"
	same "$name" log "the check's log (annotations, text)"
	same "$name" summary "the job summary"
	same "$name" json "the JSON record"
	same "$name" comment "the comment"
	if ! $written; then
		grep -q '^error<<\|^error=.' "$T/got/$name.1.outputs" &&
			ok "$name: the error output is set" ||
			not_ok "$name: the error output is set" "$(cat "$T/got/$name.1.outputs")"
	elif [ -s "$T/got/$name.1.json" ] && [ -s "$T/got/$name.1.comment" ]; then
		ok "$name: a record and a comment were written"
	else
		not_ok "$name: a record and a comment were written"
	fi
	if [ -s "$T/got/$name.1.measured" ]; then
		not_ok "$name: depth 1: the measured step fetched everything" "$(cat "$T/got/$name.1.measured")"
	fi
	echo "# $name: depth 1 and full depth decide $(decision "$T/got/$name.1.outputs")"
	compared=$((compared + 1))
done
echo "# compared $compared Action scenarios at fetch-depth 1 and at full depth"
if [ "$compared" = "${#SCENARIOS[@]}" ] && [ "$compared" -ge 12 ]; then
	ok "$compared scenarios compared"
else
	not_ok "every scenario compared" "$compared of ${#SCENARIOS[@]}"
fi

# --- the two cases of issue 30, and what depth 1 costs -------------------------

got=$(decision "$T/got/base-selected.1.outputs")
if [ "$got" = "tune (peak_memory_regressed)" ]; then ok "base-selected: depth 1 decides $got"
else not_ok "base-selected: depth 1 decides tune (peak_memory_regressed)" "got $got"; fi
if grep -qF "accept (passes, selected checkpoint) →" "$T/got/base-selected.1.comment"; then
	ok "base-selected: the comment gives main's own verdict"
else
	not_ok "base-selected: the comment gives main's own verdict" \
		"$(grep -F 'Against the base' "$T/got/base-selected.1.comment")"
fi
if grep -q '^measured 1$' "$T/got/base-selected.1.fetched" &&
   [ "$(grep -c '^measured ' "$T/got/base-selected.1.fetched")" = 2 ]; then
	ok "base-selected: depth 1 fetched the head's and the base's measured commits"
else
	not_ok "base-selected: depth 1 fetched the head's and the base's measured commits" \
		"$(cat "$T/got/base-selected.1.fetched")"
fi
got=$(decision "$T/got/history.1.outputs")
if [ "$got" = "tune (peak_memory_regressed)" ]; then ok "history: depth 1 catches the regression"
else not_ok "history: depth 1 catches the regression" "got $got"; fi
if "$JSONGET" "$T/got/history.1.json" regression.history.used | grep -qx 10; then
	ok "history: depth 1 found the 10 versions a full clone finds"
else
	not_ok "history: depth 1 found the 10 versions a full clone finds"
fi
got=$(decision "$T/got/history-untouched.1.outputs")
if [ "$got" = "accept (selection_stable_across_thresholds)" ] &&
   ! grep -q '^history ' "$T/got/history-untouched.1.fetched"; then
	ok "history-untouched: accept, no history fetched ($(cat "$T/got/history-untouched.1.commits") commits in the checkout)"
else
	not_ok "history-untouched: accept, no history fetched" "got $got" \
		"$(cat "$T/got/history-untouched.1.fetched")"
fi
if [ "$(cat "$T/got/history-untouched.1.commits")" -le 3 ]; then
	ok "history-untouched: the checkout holds at most 3 commits"
else
	not_ok "history-untouched: the checkout holds at most 3 commits" \
		"$(cat "$T/got/history-untouched.1.commits")"
fi

finish
