#!/usr/bin/env bash
# Issue 19's findings (the second red-team pass), replayed as a pull
# request author would, each shown to fail now:
#   1. a working directory replaced by a symlink to another checkout;
#   5. a 63 MiB report whose fault lies at its very end, and a valid one
#      with a large array under a key memgate does not read: peak memory
#      under 3x the report.
# (The others are in tests/e2e/t_hostile.sh's corpus, fixtures/hostile/.)
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# --- 1. working-directory: repo/ml, ml a symlink to ../base ------------

# The workspace holds the pull request's checkout (path: repo) and a
# checkout of main (path: base).  With fail-on reject, main passes (tune);
# the pull request regresses every peak over the cap (reject) and replaces
# ml/ with a symlink to ../base.
up=$T/upstream
make_gate_repo "$up" "$E/real-flat-11200.yml" "$FLAT"
base=$(g -C "$up" rev-parse HEAD)
mkdir -p "$up/ml"
echo keep >"$up/ml/README"
commit_all "$up" "ml"
main=$(g -C "$up" rev-parse HEAD)
g -C "$up" checkout -q -b pr
sed -i 's/"peak_memory_mb": [0-9.]*/"peak_memory_mb": 99999/' "$up/$REPORT_PATH"
write_manifest "$up"
rm -r "$up/ml"
ln -s ../base "$up/ml"
commit_all "$up" "regress; ml is a symlink to the base checkout"
ws=$T/ws
g clone -q "file://$up" "$ws/repo" 2>/dev/null
g -C "$ws/repo" checkout -q pr
g clone -q "file://$up" "$ws/base" 2>/dev/null
if [ -L "$ws/repo/ml" ] && [ -d "$ws/repo/ml/.git" ]; then
	ok "1: the checkout's ml/ is a symlink to the base checkout"
else
	not_ok "1: the checkout's ml/ is a symlink to the base checkout"
fi
# Without the symlink the gate fails (reject is in fail-on).
: >"$T/gh-output"
action_step check "$ws" MEMGATE_DIR=repo MEMGATE_FAIL_ON=reject MEMGATE_POLICY_REV="$base"
expect_code 1 "1: the regressed evidence fails the gate"
if grep -qx 'decision=reject' "$T/gh-output"; then ok "1: decision=reject"; else not_ok "1: decision=reject" "$(cat "$T/gh-output")"; fi
for step in resolve check; do
	: >"$T/gh-output"
	action_step "$step" "$ws" MEMGATE_DIR=repo/ml MEMGATE_FAIL_ON=reject MEMGATE_POLICY_REV="$base" \
		MEMGATE_PR_BASE="$base"
	expect_code 2 "1: the $step step refuses working-directory: repo/ml"
	expect_out "::error::memgate: input 'working-directory' ('repo/ml') leads through a symlink to '$ws/base', outside the checkout; name a directory inside the checkout, without symlinks that lead out of it" \
		"1: the $step step says the working directory leads through a symlink"
	if grep -q 'passed=true\|decision=accept\|decision=tune' "$T/gh-output"; then
		not_ok "1: the $step step writes no passing output" "$(cat "$T/gh-output")"
	else
		ok "1: the $step step writes no passing output"
	fi
done
# A directory below the symlink, and a symlink that leaves the checkout
# for a directory without .git, are refused the same way.
mkdir -p "$ws/base/sub" "$ws/plain"
action_step check "$ws" MEMGATE_DIR=repo/ml/sub
expect_code 2 "1: working-directory: repo/ml/sub is refused"
ln -s ../plain "$ws/repo/out"
action_step check "$ws" MEMGATE_DIR=repo/out
expect_code 2 "1: working-directory through a symlink to a directory outside the checkout is refused"
expect_out "::error::memgate: input 'working-directory' ('repo/out') leads through a symlink to '$ws/plain', outside the checkout; name a directory inside the checkout, without symlinks that lead out of it" \
	"1: and says where it leads"
# A symlink that stays inside the checkout is fine.
ln -s benchmarks "$ws/repo/bench-link"
action_step check "$ws" MEMGATE_DIR=repo/bench-link/results MEMGATE_FAIL_ON=reject MEMGATE_POLICY_REV="$base"
expect_code 1 "1: a symlink inside the checkout gates the checkout"
# '..' is taken away on the path as written.
action_step check "$ws" MEMGATE_DIR=repo/benchmarks/../ml
expect_code 2 "1: working-directory: repo/benchmarks/../ml is refused too"

# --- 5. memory on a 63 MiB report ----------------------------------------

MAXRSS=$(dirname "$MEMGATE")/tests/maxrss
for variant in valid duplicate-at-the-end; do
	d=$T/big-$variant
	make_gate_repo "$d" "$E/real-flat-11200.yml" "$FLAT"
	tail=
	[ "$variant" = valid ] || tail=', "a": 1, "a": 2'
	{
		head -c -3 "$FLAT"
		printf ', "x": ['
		head -c $((63 * 1024 * 1024 / 2 - 4000)) /dev/zero | tr '\0' '0' | sed 's/0/0,/g'
		printf '0]%s}\n' "$tail"
	} >"$d/$REPORT_PATH"
	size=$(stat -c %s "$d/$REPORT_PATH")
	write_manifest "$d"
	commit_all "$d" "a 63 MiB report"
	${MEMGATE_WRAP:-} "$MAXRSS" "$T/rss" "$MEMGATE" check -C "$d" >"$T/out" 2>"$T/err"
	code=$?
	if [ "$variant" = valid ]; then
		expect_code 1 "5: the valid 63 MiB report is decided"
	else
		expect_code 2 "5: the 63 MiB report with a duplicate key at its end is refused"
		lines=$(grep -c '' "$d/$REPORT_PATH")
		start=$(head -n $((lines - 1)) "$d/$REPORT_PATH" | wc -c)
		expect_err "memgate: error: $REPORT_PATH:$lines:$((size - 8 - start + 1)): duplicate key 'a'" \
			"5: naming the duplicate key at its position"
	fi
	if [ -n "${MEMGATE_WRAP:-}" ] || [ -n "${MG_SANITIZED:-}" ]; then
		ok "# SKIP 5: $variant: memory not measured under a sanitizer or wrapper"
	elif [ "$(cat "$T/rss")" -lt $((3 * size / 1024)) ]; then
		ok "5: $variant: peak memory $(cat "$T/rss") KiB for a $size-byte report (under 3x)"
	else
		not_ok "5: $variant: peak memory under 3x the report" "$(cat "$T/rss") KiB for $size bytes"
	fi
done

finish
