#!/usr/bin/env bash
# The decision against an independent reference of memgate(1)'s HOW MEMGATE DECIDES (tests/diff/):
# 200 random policies and reports from a fixed seed, each run through
# `memgate check --worktree`, must give the reference's decision, reasons,
# evaluations and scenarios; then sweeps of 10^3 and 10^4 candidates.
# Needs python3, which a bare Debian may lack.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP python3 not available"
	exit 0
fi

SEED=75
CASES=200
# Under valgrind (make valgrind) a case costs over a second: check fewer.
[ -z "${MEMGATE_WRAP:-}" ] || CASES=20
MEMGATE=$MEMGATE MEMGATE_WRAP=${MEMGATE_WRAP:-} \
	python3 "$SRC/tests/diff/run" "$SEED" -n "$CASES" >"$T/out" 2>"$T/err"
code=$?
if [ "$code" = 0 ] && grep -qx "diff: $CASES passed, 0 failed" "$T/out"; then
	ok "differential: $CASES random cases (seed $SEED) match the reference"
else
	not_ok "differential: $CASES random cases (seed $SEED) match the reference" \
		"expected 'diff: $CASES passed, 0 failed', got '$(tail -n 1 "$T/out")'" \
		"rerun: tests/diff/run $SEED -n $CASES (each mismatch names the folder it is kept in)"
fi

# Sweeps: the same generator with 10^3 and 10^4 candidates a case.
sweeps() { # sweeps CANDIDATES CASES
	MEMGATE=$MEMGATE MEMGATE_WRAP=${MEMGATE_WRAP:-} \
		python3 "$SRC/tests/diff/run" "$SEED" -n "$2" --candidates "$1" >"$T/out" 2>"$T/err"
	code=$?
	if [ "$code" = 0 ] && grep -qx "diff: $2 passed, 0 failed" "$T/out"; then
		ok "differential: $2 sweeps of $1 candidates (seed $SEED) match the reference"
	else
		not_ok "differential: $2 sweeps of $1 candidates match the reference" \
			"expected 'diff: $2 passed, 0 failed', got '$(tail -n 1 "$T/out")'" \
			"rerun: tests/diff/run $SEED -n $2 --candidates $1"
	fi
}
if [ -z "${MEMGATE_WRAP:-}" ]; then
	sweeps 1000 8
	sweeps 10000 2
else
	sweeps 1000 2
fi
finish
