#!/usr/bin/env bash
# One home for every vocabulary and limit: the JSON Schemas' enums, the
# man page's tables of issues, reasons, decisions and waivable reasons,
# and its generated lists, each held against the decision core's
# tables (tests/vocabulary.c prints them) and include/memgate/limits.h by
# tests/check-vocabulary; the man page's SYNOPSIS and option lists, and each
# command's -h, against the commands' option tables.  A word or an option
# added on either side fails here.
. "$(dirname "$0")/lib.sh"

VOCABULARY=$(dirname "$MEMGATE")/tests/vocabulary
if ! "$VOCABULARY" >"$T/vocabulary.json" 2>"$T/err"; then
	not_ok "tests/vocabulary prints the core's words" "$(cat "$T/err")"
	finish
fi
ok "tests/vocabulary prints the core's words"
python3 "$SRC/tests/check-vocabulary" "$T/vocabulary.json" "$SRC" >"$T/out" 2>&1
rc=$?
cat "$T/out"
PASSED=$((PASSED + $(grep -c '^ok - ' "$T/out")))
[ "$rc" -eq 0 ] || FAILED=$((FAILED + 1))
finish
