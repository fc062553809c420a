#!/usr/bin/env bash
# evidence.inputs entries: memgate's matching (libmemgate through
# tests/pathspec-check: the policy parser, then the git layer's
# mg_repo_changed_paths and mg_repo_unmatched_inputs, as memgate check
# calls them) against the real `git diff --name-only A B -- ENTRY` on 1,200
# random entries from a fixed seed, over random trees of names with dots,
# spaces, glob characters and case variants (tests/diff/pathspec.py says
# how).  Every form memgate refuses (each of git's magic words, short and
# long, './', '..', '//', a trailing '/', ...) must be refused at the
# entry's line; every form it takes must list the same changed paths as
# git, and say that an entry matches nothing exactly when git finds no path
# for it at either commit.  Needs python3 (actions/install-deps installs it).
. "$(dirname "$0")/lib.sh"

CHECK=$(dirname "$MEMGATE")/tests/pathspec-check
if ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP python3 not available (actions/install-deps)"
	exit 0
fi

SEED=30
CASES=1200
# Under valgrind (make valgrind) memgate is not what runs here; check fewer.
[ -z "${MEMGATE_WRAP:-}" ] || CASES=120
python3 "$SRC/tests/diff/pathspec.py" "$CHECK" "$SEED" -n "$CASES" >"$T/out" 2>"$T/err"
code=$?
summary=$(grep '^pathspec differential: ' "$T/out")
echo "# $summary"
if [ "$code" = 0 ] && grep -q "^pathspec differential: $CASES cases, 0 mismatches;" "$T/out"; then
	ok "pathspec differential: $CASES random entries (seed $SEED) match as git diff does"
else
	not_ok "pathspec differential: $CASES random entries (seed $SEED) match as git diff does" \
		"$(grep -m 5 '^mismatch' "$T/out")" "$summary $(head -c 300 "$T/err")" \
		"rerun: tests/diff/pathspec.py $CHECK $SEED -n $CASES --keep DIR"
fi
# Every magic word and every other refused form was tried and refused; the
# accepted kinds each ran, and some of each were accepted.
refused="magic-top magic-literal magic-glob magic-icase magic-exclude magic-attr magic-prefix
	magic-top-short magic-exclude-bang magic-exclude-caret magic-long-combined magic-unclosed
	leading-colon dot-slash dotdot dot-segment double-slash trailing-slash leading-slash
	leading-bang leading-hash trailing-space backslash-space trailing-backslash control nul
	empty dot"
[ "$CASES" -lt 1200 ] && refused="magic-glob magic-exclude dot-slash dotdot"
for kind in $refused; do
	if grep -q "^  $kind accepted 0 refused [1-9][0-9]* mismatches 0$" "$T/out"; then
		ok "pathspec differential: '$kind' entries are refused at their line"
	else
		not_ok "pathspec differential: '$kind' entries are refused at their line" \
			"$(grep "^  $kind " "$T/out")"
	fi
done
for kind in exact dir partial star qmark class dstar suffix case typo backslash star-only; do
	if grep -q "^  $kind accepted [1-9][0-9]* refused [0-9]* mismatches 0$" "$T/out"; then
		ok "pathspec differential: '$kind' entries ran and agree with git"
	else
		not_ok "pathspec differential: '$kind' entries ran and agree with git" \
			"$(grep "^  $kind " "$T/out")"
	fi
done
finish
