#!/usr/bin/env bash
# The noise test (regression.noise_test: mann_whitney) and the change-point
# method (regression.history) of the decision core against an independent
# implementation of memgate(1)'s description (tests/noise/reference.py) on
# 4,000 generated cases from a fixed seed: they must agree on every case,
# and the rates (power, right commit found, false alarms) meet their
# floors.  The rates are printed, as README and memgate(1) quote them.
# Needs python3, which a bare Debian may lack.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP python3 not available"
	exit 0
fi

CHECK=$(dirname "$JSONGET")/noise-check
python3 "$SRC/tests/noise/run" "$CHECK" 33 >"$T/out" 2>"$T/err"
code=$?
sed 's/^/# /' "$T/out"
if [ "$code" = 0 ] && grep -q "^C and reference: 0 of 4000 cases disagree$" "$T/out"; then
	ok "noise test and change point: the core and the reference agree on 4000 cases, rates at their floors"
else
	not_ok "noise test and change point: the core and the reference agree, rates at their floors" \
		"$(grep -v '^noise test\|^change point' "$T/out" | head -n 5) $(head -c 300 "$T/err")" \
		"rerun: tests/noise/run $CHECK 33"
fi
finish
