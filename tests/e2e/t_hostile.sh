#!/usr/bin/env bash
# The hostile-repository corpus: every entry of fixtures/hostile/ is built
# with the real git (its build script, see fixtures/hostile/common.sh), and
# memgate, the pre-push hook, the release gate and the Action's own steps
# run against it as a malicious pull request would have them run.  For
# every run:
#   - the exit code is the one the entry's expect file names;
#   - no trap the entry planted ran (its mark directory stays empty), also
#     with '.', '' and relative directories on PATH and MEMGATE unset;
#   - the Actions runner would execute nothing in stdout or stderr but
#     memgate's own annotations;
#   - the environment (a secret in it) reaches no file and no output;
#   - a later step that echoes every step output the Action set would run
#     no workflow command;
#   - memgate's peak memory stays under 128 MiB;
#   - a decision record written stays within 6 x the report + 4 MiB;
#   - with 'outdir DIR' in the entry's expect file, the outputs go under DIR
#     (the Action's sarif: too), and every file of the directory OUTSIDE
#     beside the entry's marks (where a symlinked DIR may lead) still
#     holds "outside" once all has run.
. "$(dirname "$0")/lib.sh"

MAXRSS=$(dirname "$MEMGATE")/tests/maxrss
sysbin=$(dirname "$(command -v git)")
HOSTILE_PATH=".::bin:tools:$sysbin:/usr/bin:/bin"
export MEMGATE_SECRET="memgate-secret-$$-never-in-an-output"

# The hook and the release gate find memgate through $MEMGATE (absolute).
mkdir -p "$T/bin"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${MEMGATE_WRAP:-}" "$MEMGATE" >"$T/bin/memgate"
chmod +x "$T/bin/memgate"

expect_get() { # expect_get ENTRY KEY DEFAULT
	local v
	v=$(awk -v k="$2" '$1 == k { print $2; exit }' "$1/expect")
	printf '%s\n' "${v:-$3}"
}
expect_marks_empty() { # expect_marks_empty DESC
	if [ -n "$(ls -A "$mark")" ]; then not_ok "$1" "ran: $(ls -A "$mark" | tr '\n' ' ')"; else ok "$1"; fi
}
# no_secret DESC DIR...: the environment's secret is in no file under DIR
# (outside .git) nor in the last run's output.
no_secret() {
	local desc=$1
	shift
	if grep -rqsF --exclude-dir=.git -- "$MEMGATE_SECRET" "$@" "$T/out" "$T/err"; then
		not_ok "$desc" "found in: $(grep -rlsF --exclude-dir=.git -- "$MEMGATE_SECRET" "$@" "$T/out" "$T/err" | head -3)"
	else
		ok "$desc"
	fi
}
# record_bounded DESC RECORD REPO: RECORD is within 6 x its report + 4 MiB.
record_bounded() {
	local blob report record
	[ -f "$2" ] && [ ! -L "$2" ] || { ok "$1 (no record written)"; return; }
	blob=$("$JSONGET" "$2" inputs.report.blob | tr -d '"')
	report=$(g -C "$3" cat-file -s "$blob" 2>/dev/null) || { not_ok "$1" "no report blob $blob"; return; }
	record=$(stat -c %s "$2")
	if [ "$record" -le $((6 * report + 4194304)) ]; then
		ok "$1 ($record bytes for a $report-byte report)"
	else
		not_ok "$1" "record $record bytes, report $report bytes"
	fi
}

for entry in "$FIX"/hostile/*/; do
	entry=${entry%/}
	name=$(basename "$entry")
	[ -x "$entry/build" ] && [ -f "$entry/expect" ] || continue
	dir=$T/$name
	mark=$dir/marks
	up=$dir/upstream
	mkdir -p "$mark"
	if ! bash "$entry/build" "$up" "$mark" >"$T/out" 2>"$T/err"; then
		code=$?
		not_ok "$name: the entry builds"
		continue
	fi
	base=$(g -C "$up" rev-parse "base^{commit}")
	wd=$(expect_get "$entry" workdir .)
	od=$(expect_get "$entry" outdir .)
	full=$dir/full
	g clone -q --no-checkout "file://$up" "$full" 2>/dev/null
	g -C "$full" checkout -q main 2>/dev/null
	g clone -q "file://$up" "$dir/base" 2>/dev/null
	g -C "$dir/base" checkout -q base 2>/dev/null

	# memgate, in every format, from the working directory a hostile
	# workflow would use, the policy from the base commit.
	want=$(expect_get "$entry" check 1)
	for fmt in text json github; do
		(cd "$full/$wd" && GITHUB_ACTIONS=true ${MEMGATE_WRAP:-} "$MAXRSS" "$T/rss" "$MEMGATE" check \
			--policy-rev "$base" --format "$fmt" --json "$od/memgate.json" \
			--summary "$od/memgate-summary.md" --junit "$od/memgate-junit.xml") >"$T/out" 2>"$T/err"
		code=$?
		expect_code "$want" "$name: memgate check --format $fmt"
		cat "$T/out" "$T/err" >"$T/log"
		expect_runner_safe "$T/log" "$name: memgate --format $fmt: the runner runs nothing but its annotations"
		if [ -n "${MEMGATE_WRAP:-}" ]; then
			ok "# SKIP $name: memory not measured under $MEMGATE_WRAP"
		elif [ -n "${MG_SANITIZED:-}" ]; then
			ok "# SKIP $name: memory not measured under AddressSanitizer (its shadow memory and quarantine)"
		elif [ "$(cat "$T/rss")" -lt 131072 ]; then
			ok "$name: memgate --format $fmt peaks at $(cat "$T/rss") KiB"
		else
			not_ok "$name: memgate --format $fmt peaks under 128 MiB" "$(cat "$T/rss") KiB"
		fi
	done
	record_bounded "$name: the record is within 6 x the report + 4 MiB" "$full/$wd/$od/memgate.json" "$full"
	no_secret "$name: the environment reaches no file and no output" "$full"
	expect_marks_empty "$name: memgate runs nothing the repository supplies"

	# The pre-push hook: push the head to a new, empty remote.
	g init -q --bare "$dir/remote.git"
	cp "$SRC/actions/pre-push" "$full/.git/hooks/pre-push"
	chmod +x "$full/.git/hooks/pre-push"
	(cd "$full" && MEMGATE=$T/bin/memgate g push -q "$dir/remote.git" main) >"$T/out" 2>"$T/err"
	code=$?
	expect_code "$(expect_get "$entry" hook 1)" "$name: the pre-push hook"
	(cd "$full" && unset MEMGATE && PATH=$HOSTILE_PATH g push -q "$dir/remote.git" main) >"$T/out" 2>"$T/err"
	code=$?
	expect_marks_empty "$name: the hook, with '.', '' and relative directories on PATH, runs nothing the repository supplies"
	no_secret "$name: the hook leaks no environment" "$full"

	# The release gate on a tag of the head.
	g -C "$full" tag v1 main
	(cd "$full" && MEMGATE=$T/bin/memgate sh "$SRC/actions/release-gate" v1) >"$T/out" 2>"$T/err"
	code=$?
	expect_code "$(expect_get "$entry" release 1)" "$name: the release gate"
	cat "$T/out" "$T/err" >"$T/log"
	expect_runner_safe "$T/log" "$name: the release gate's output runs nothing"
	(cd "$full" && unset MEMGATE && PATH=$HOSTILE_PATH sh "$SRC/actions/release-gate" v1) >"$T/out" 2>"$T/err"
	code=$?
	expect_marks_empty "$name: the release gate, with '.' on PATH, runs nothing the repository supplies"

	# The Action's steps on a shallow checkout (actions/checkout with
	# path: repo) beside a checkout of the base (path: base), for each
	# event that has a base commit; the base commit is fetched from the
	# "server".
	ws=$dir/workspace
	g clone -q --depth=1 "file://$up" "$ws/repo" 2>/dev/null
	g clone -q "file://$up" "$ws/base" 2>/dev/null
	g -C "$ws/base" checkout -q base 2>/dev/null
	want=$(expect_get "$entry" action 1)
	wantrev=$(expect_get "$entry" resolve 0)
	for ev in pull_request merge_group push; do
		: >"$T/gh-output"
		: >"$T/gh-summary"
		action_step resolve "$ws" MEMGATE_SECRET="$MEMGATE_SECRET" MEMGATE_DIR="repo/$wd" \
			MEMGATE_EVENT="$ev" MEMGATE_PR_BASE="$base" MEMGATE_MERGE_GROUP_BASE="$base" \
			MEMGATE_PUSH_BEFORE="$base" GITHUB_SERVER_URL="file://$dir" GITHUB_REPOSITORY=upstream
		expect_code "$wantrev" "$name: the Action's policy step on $ev"
		cat "$T/out" "$T/err" >"$T/log"
		if [ "$wantrev" != 0 ]; then ok "# SKIP $name: $ev: no policy commit from a refused step"
		elif [ "$(action_policy_rev)" = "$base" ]; then ok "$name: $ev: the policy comes from the base commit"; else not_ok "$name: $ev: the policy comes from the base commit" "$(cat "$T/gh-output")"; fi
		sarif=
		[ "$od" = . ] || sarif=$od/memgate.sarif
		action_step check "$ws" MEMGATE_SECRET="$MEMGATE_SECRET" MEMGATE_DIR="repo/$wd" \
			MEMGATE_POLICY_REV="$(action_policy_rev)" MEMGATE_SARIF="$sarif"
		expect_code "$want" "$name: the Action's check step on $ev"
		cat "$T/out" "$T/err" >>"$T/log"
		expect_runner_safe "$T/log" "$name: $ev: the Action's steps run nothing but annotations"
		# a later step that echoes every output runs no command at all
		awk 'd != "" { if ($0 == d) d = ""; else print; next }
		     index($0, "<<") { d = substr($0, index($0, "<<") + 2); next }
		     { sub(/^[^=]*=/, ""); print }' "$T/gh-output" >"$T/echoed"
		if [ -z "$(runner_commands "$T/echoed")" ]; then
			ok "$name: $ev: echoing every step output runs no command"
		else
			not_ok "$name: $ev: echoing every step output runs no command" "$(runner_commands "$T/echoed" | head -3)"
		fi
		no_secret "$name: $ev: the Action leaks no environment" "$ws" "$T/gh-output" "$T/gh-summary"
	done
	expect_marks_empty "$name: the Action runs nothing the repository supplies"
	if [ -d "$dir/outside" ]; then
		changed=
		for f in "$dir/outside"/*; do
			[ "$(cat "$f")" = outside ] || changed="$changed $(basename "$f")"
		done
		if [ -z "$changed" ]; then ok "$name: the files outside the checkout are untouched"; else not_ok "$name: the files outside the checkout are untouched" "changed:$changed"; fi
	fi
	rm -rf "$dir"
done

finish
