#!/usr/bin/env bash
# Regressions against the history (memgate(1), REGRESSIONS AND HISTORY): with
# regression.history: N each covered candidate is compared with the median
# of its last N measurements on the base's first-parent line (the commits
# that changed the report).  The medians match a reference computed here
# with git log --first-parent and git show; a shallow clone holding fewer
# than N versions says how many it used and how to fetch more; the bound on
# commits looked at has its message and its knob; bad values are errors
# naming file:line:column (exit 2, nothing written).
. "$(dirname "$0")/lib.sh"

# policy FILE [REGRESSION-LINES...]: checkpoint is the winner; every
# candidate is covered.
policy() {
	local file=$1
	shift
	cat >"$file" <<'YAML'
version: 1
report: benchmarks/results/76_real_gpu_memory.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 90000
regression:
  covers: all
YAML
	printf '  %s\n' "$@" >>"$file"
}

# report FILE CHECKPOINT-PEAK HYBRID-PEAK SAMPLES: three candidates.
report() {
	cat >"$1" <<JSON
{
  "workload_id": "train",
  "hardware_id": "gpu-a",
  "candidates": [
    { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
    { "name": "checkpoint", "peak_memory_mb": $2, "samples_per_s": $4, "eval_loss": 2.0 },
    { "name": "hybrid", "peak_memory_mb": $3, "samples_per_s": 9.0, "eval_loss": 2.0 }
  ]
}
JSON
}

# median_ref REPO REV N NAME: the median peak of NAME over the last N
# versions of the report on REV's first-parent line, by git log and git show.
median_ref() {
	local repo=$1 rev=$2 n=$3 name=$4 c
	for c in $(g -C "$repo" log --first-parent --format=%H -n "$n" "$rev" -- "$REPORT_PATH"); do
		g -C "$repo" show "$c:$REPORT_PATH"
		echo '//'
	done | python3 -c '
import json, statistics, sys
docs = [d for d in sys.stdin.read().split("//") if d.strip()]
vals = []
for d in docs:
    for c in json.loads(d)["candidates"]:
        if c["name"] == sys.argv[1]:
            vals.append(c["peak_memory_mb"])
            break
m = statistics.median(vals)
print(int(m) if m == int(m) else m)' "$name"
}

# A main line of 8 measurements, commits between them that leave the report
# alone, and a side branch whose own measurements are merged (only the
# merge counts on the first-parent line).
repo=$T/hist
mkdir -p "$repo/benchmarks/results"
g init -q "$repo"
policy "$repo/.memgate.yml" "max_peak_increase_pct: 5" "history: 5"
peaks="50000 51000 52500 50500 53000 51500 52000 54000"
i=0
for p in $peaks; do
	i=$((i + 1))
	report "$repo/$REPORT_PATH" "$p" $((60000 + i * 100)) 8.0
	commit_all "$repo" "measure $i"
	echo "$i" >"$repo/notes.txt"
	commit_all "$repo" "unrelated $i"
	if [ $i = 5 ]; then
		g -C "$repo" checkout -q -b side
		report "$repo/$REPORT_PATH" 40000 40000 8.0
		commit_all "$repo" "side measure 1"
		report "$repo/$REPORT_PATH" 41000 41000 8.0
		commit_all "$repo" "side measure 2"
		g -C "$repo" checkout -q main
		g -C "$repo" merge -q --no-ff -X theirs -m "merge side" side
	fi
done
g -C "$repo" checkout -q -b pr
report "$repo/$REPORT_PATH" 56000 64000 8.0
commit_all "$repo" "the pull request's evidence"

mg check -C "$repo" --policy-rev main --format json
expect_code 1 "a peak past the median of the last 5 measurements fails"
expect_field regression.history.asked 5
expect_field regression.history.used 5
expect_field regression.history.read true
want=$(g -C "$repo" log --first-parent --format=%H -n 5 main -- "$REPORT_PATH" | python3 -c '
import json, sys; print(json.dumps([l.strip() for l in sys.stdin if l.strip()], separators=(",", ":")))')
expect_field regression.history.commits "$want"
expect_field regression.regressed.0.candidate '"checkpoint"'
expect_field regression.regressed.0.base "$(median_ref "$repo" main 5 checkpoint)"
expect_field regression.regressed.1.candidate '"hybrid"'
expect_field regression.regressed.1.base "$(median_ref "$repo" main 5 hybrid)"

# An even count: the mean of the two middle values, as statistics.median.
sed -i 's/history: 5/history: 4/' "$repo/.memgate.yml"
g -C "$repo" checkout -q main
commit_all "$repo" "four measurements"
g -C "$repo" checkout -q pr
g -C "$repo" merge -q --no-edit main
mg check -C "$repo" --policy-rev main --format json
expect_code 1 "history: 4"
expect_field regression.history.used 4
expect_field regression.regressed.0.base "$(median_ref "$repo" main 4 checkpoint)"
mg check -C "$repo" --policy-rev main
expect_out "regression against the median of the last 4 measurements (4 asked) on the first-parent line of the base $(g -C "$repo" rev-parse --short=12 main): 2 beyond max_peak_increase_pct 5 (covers all; decision tune)" \
	"text: says what was compared"
expect_out "checkpoint: peak increase" "text: the candidate that regressed"
expect_out "against the median of the base's last 4 measurements [peak_memory_regressed]" \
	"text: the finding says against what"
med=$(median_ref "$repo" main 4 checkpoint)
expect_out "checkpoint: peak increase 8.21256 % ($med -> 56000 MB)" "text: the finding compares with the median"
expect_out "  checkpoint  peak 54000 -> 56000 MB (+2000); median of the last 4: $med  samples/s" \
	"text: the base comparison shows that median beside the base's value (one baseline in both)"

# The summary charts each compared candidate's peak over those commits, the
# axis scaled to the data.
mg check -C "$repo" --policy-rev main --summary "$T/summary.md"
first=$(grep -n '^### ' "$T/summary.md" | head -n 1 | cut -d: -f2-)
if [ "$first" = "### Regressions against the history" ]; then ok "summary: opens with the regressions"
else not_ok "summary: opens with the regressions" "first section: $first"; fi
if grep -qF "| checkpoint | changed | 54000 → 56000 (+2000); median of the last 4: $med | 8 (same) | 2 (same) |" "$T/summary.md"; then
	ok "summary: the base comparison shows the median the regressions compare with"
else
	not_ok "summary: the base comparison shows the median the regressions compare with" "$(grep -F '| checkpoint |' "$T/summary.md")"
fi
if grep -qxF '    title "checkpoint: peak memory (MB), last 4 measurements and this change"' "$T/summary.md"; then
	ok "summary: a chart of checkpoint's peak over the history"
else
	not_ok "summary: a chart of checkpoint's peak over the history"
fi
commits=$(g -C "$repo" log --first-parent --format=%h --abbrev=7 -n 4 main -- "$REPORT_PATH" |
	tac | sed 's/.*/"&"/' | paste -sd, | sed 's/,/, /g')
expect_summary_line() {
	if grep -qxF -- "$1" "$T/summary.md"; then ok "$2"; else not_ok "$2" "summary lacks: $1" "$(grep -A6 'xychart' "$T/summary.md")"; fi
}
expect_summary_line "    x-axis [$commits, \"this change\"]" "summary: one point per commit, oldest first"
# the peaks by git show, oldest first, then this change's; the axis: their
# range with a tenth of it on each side
peaks=$(for c in $(g -C "$repo" log --first-parent --format=%H -n 4 main -- "$REPORT_PATH" | tac); do
	g -C "$repo" show "$c:$REPORT_PATH" | python3 -c '
import json, sys
print([c for c in json.load(sys.stdin)["candidates"] if c["name"] == "checkpoint"][0]["peak_memory_mb"])'
done; echo 56000)
line=$(echo "$peaks" | sed 's/$/.000/' | paste -sd, | sed 's/,/, /g')
expect_summary_line "    line [$line]" "summary: the line holds each commit's peak, then this change's"
axis=$(echo "$peaks" | python3 -c '
import sys
v = [float(x) for x in sys.stdin.read().split()]
pad = (max(v) - min(v)) / 10
lo, hi = max(min(v) - pad, 0), max(v) + pad
print("    y-axis \"peak_memory_mb, %.3f to %.3f\" %.3f --> %.3f" % (lo, hi, lo, hi))')
case $axis in *" 0.000 to"*) not_ok "the test's axis starts at 0" ;; esac
expect_summary_line "$axis" "summary: the axis spans the data, not from 0"
# The history charts render in Mermaid (headless Chromium), when both are installed.
out=$("$SRC/tests/render-mermaid" "$T/summary.md" 2>&1); rc=$?
if [ $rc = 77 ]; then echo "ok - # SKIP mermaid render: $out"
elif [ $rc = 0 ]; then ok "mermaid renders the history charts: $(echo "$out" | tr '\n' ' ')"
else not_ok "mermaid renders the history charts" "$out"; fi

# Fewer versions than asked on a full history: a note, the median over all.
sed -i 's/history: 4/history: 50/' "$repo/.memgate.yml"
g -C "$repo" checkout -q main
commit_all "$repo" "fifty measurements"
g -C "$repo" checkout -q pr
g -C "$repo" merge -q --no-edit main
all=$(g -C "$repo" log --first-parent --format=%H main -- "$REPORT_PATH" | wc -l)
mg check -C "$repo" --policy-rev main --format json
expect_field regression.history.used "$all"
expect_field regression.history.shallow false
expect_field regression.regressed.0.base "$(median_ref "$repo" main 50 checkpoint)"
mg check -C "$repo" --policy-rev main
expect_out "note: regression.history: the median is over $all of the last 50 versions of '$REPORT_PATH': the base's first-parent line holds $all" \
	"a note says how many the line holds"

# A change that leaves the report as the base has it reads no history: its
# measurements are the base's, compared with the base's report (nothing
# regressed), whatever the older versions hold; nothing need be fetched.
g -C "$repo" checkout -q -b code-only main
echo "code" >"$repo/code.txt"
commit_all "$repo" "a change that leaves the report alone"
mg check -C "$repo" --policy-rev main --format json
expect_code 0 "the base's own report: nothing regressed"
expect_field regression.compared true
expect_field regression.history.read false
expect_field regression.regressed '[]'
mg check -C "$repo" --policy-rev main
expect_out "note: regression.history: not read: '$REPORT_PATH' is the base's own (unchanged since $(g -C "$repo" rev-parse --short=7 main)), compared with the base's report" \
	"a note says why no history was read"
g -C "$repo" checkout -q pr

# --- where the series stepped ------------------------------------------------

# checkpoint's peak steps up at the fifth of eight measurements; hybrid's is
# flat until this change, which steps it.  The finding and the record name
# the commit (the change-point method of memgate(1), "Where it stepped").
step=$T/step
mkdir -p "$step/benchmarks/results"
g init -q "$step"
policy "$step/.memgate.yml" "max_peak_increase_pct: 5" "history: 8"
set -- 60000 60100 59900 60050 59950 60000 60100 59900
i=0
for p in 50000 50100 49900 50050 53500 53400 53600 53450; do
	i=$((i + 1))
	report "$step/$REPORT_PATH" "$p" "$1" 8.0
	shift
	commit_all "$step" "measure $i"
done
g -C "$step" checkout -q -b pr
report "$step/$REPORT_PATH" 54500 66000 8.0
commit_all "$step" "the pull request's evidence"
at=$(g -C "$step" log --first-parent --format=%H -n 4 main -- "$REPORT_PATH" | tail -n 1)
mg check -C "$step" --policy-rev main
expect_code 1 "a stepped series regresses"
expect_out "checkpoint: peak increase 5.31401 % (51750 -> 54500 MB) > max_peak_increase_pct 5 against the median of the base's last 8 measurements; the peak stepped +7.4 % at ${at:0:7} (4 measurements ago) [peak_memory_regressed]" \
	"text: names the commit where checkpoint's peak stepped"
expect_out "hybrid: peak increase 10 % (60000 -> 66000 MB) > max_peak_increase_pct 5 against the median of the base's last 8 measurements; the peak stepped +10.0 % at this change [peak_memory_regressed]" \
	"text: a step at this change says so"
mg check -C "$step" --policy-rev main --format json
expect_field regression.regressed.0.stepped.commit "\"$at\""
expect_field regression.regressed.0.stepped.measurements_ago 4
expect_field regression.regressed.1.stepped.commit null
expect_field regression.regressed.1.stepped.measurements_ago 0
mg check -C "$step" --policy-rev main --summary "$T/step.md"
grep -F "peak stepped" "$T/step.md" >"$T/steps" || true
if grep -qF "checkpoint" "$T/steps" && grep -qF "'s peak stepped +7.4 % at \`${at:0:7}\` (4 measurements ago)." "$T/steps" &&
	grep -qF "'s peak stepped +10.0 % at this change." "$T/steps"; then
	ok "summary: names where each regressed peak stepped"
else
	not_ok "summary: names where each regressed peak stepped" "$(cat "$T/steps")"
fi

# --- a shallow clone ---------------------------------------------------------

rm -rf "$T/shallow"
g clone -q --depth 8 --no-single-branch "file://$repo" "$T/shallow"
g -C "$T/shallow" checkout -q pr
mg check -C "$T/shallow" --policy-rev origin/main --format json
expect_code 1 "a shallow clone still compares"
used=$("$JSONGET" "$T/out" regression.history.used)
if [ "$used" -ge 1 ] && [ "$used" -lt "$all" ]; then ok "a shallow clone uses the versions it holds ($used)"
else not_ok "a shallow clone uses the versions it holds" "used $used of $all"; fi
expect_field regression.history.shallow true
mg check -C "$T/shallow" --policy-rev origin/main
expect_out "warning: regression.history: the median is over $used of the last 50 versions of '$REPORT_PATH': the clone is shallow" \
	"a warning says how many it used"
expect_out "fetch more of it (git fetch --depth=10001 origin $(g -C "$repo" rev-parse main), or actions/checkout with fetch-depth: 0)" \
	"and how to fetch more"
g -C "$T/shallow" fetch -q --depth=10001 origin "$(g -C "$repo" rev-parse main)"
mg check -C "$T/shallow" --policy-rev origin/main --format json
expect_field regression.history.used "$all"
expect_field regression.history.shallow false

# A depth-1 clone holds no version (the base's parent is not there): the
# check falls back to the base's own report, the latest version, and says
# so; it never passes for having compared nothing.
rm -rf "$T/shallow1"
g clone -q --depth 1 --no-single-branch "file://$repo" "$T/shallow1"
g -C "$T/shallow1" checkout -q pr
mg check -C "$T/shallow1" --policy-rev origin/main --format json
expect_code 1 "depth 1: the regression against the base's report fails"
expect_field regression.history.used 0
expect_field regression.history.shallow true
expect_field regression.compared true
expect_field regression.regressed.0.candidate '"hybrid"'
expect_field regression.regressed.0.base "$(g -C "$repo" show "main:$REPORT_PATH" | python3 -c '
import json, sys
print([c for c in json.load(sys.stdin)["candidates"] if c["name"] == "hybrid"][0]["peak_memory_mb"])')"
expect_err "memgate: warning: regression: regression.history found no version of '$REPORT_PATH' on the first-parent line of $(g -C "$repo" rev-parse --short=7 main) (the clone is shallow): compared with the base's own report instead" \
	"depth 1: a warning says what was compared instead"

# --- the GitHub Action: a depth-1 checkout fetches the base's history ----------

base=$(g -C "$repo" rev-parse main)
rm -rf "$T/pr"
g clone -q --depth=1 --branch pr "file://$repo" "$T/pr" 2>"$T/err"
SERVER=(GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=hist)
action_step resolve "$T/pr" "${SERVER[@]}" MEMGATE_PR_BASE="$base"
expect_code 0 "resolve: fetches the base commit"
action_step measured "$T/pr" "${SERVER[@]}" MEMGATE_POLICY_REV="$base"
expect_code 0 "measured: the step succeeds"
expect_err "memgate: fetching the history of the base $base (depth 16)" \
	"measured: fetches the base's history a little first"
expect_err "memgate: fetching the history of the base $base (depth 64)" \
	"measured: then deeper, while the walk ends at the boundary"
expect_no_err "(depth 256)" "measured: and no deeper than the line's first commit"
action_step check "$T/pr" MEMGATE_POLICY_REV="$base" MEMGATE_JSON="$T/action.json"
expect_code 1 "check: the regression against the history fails the pull request"
expect_field regression.history.used "$all" "$T/action.json"
expect_field regression.history.shallow false "$T/action.json"
expect_runner_safe "$T/out" "check: only memgate's annotations"
action_step measured "$T/pr" "${SERVER[@]}" MEMGATE_POLICY_REV="$base"
expect_no_err "fetching the history" "measured: a history already there is not fetched again"

# --- the bound on commits looked at -------------------------------------------

printf '  history_max_commits: 9\n' >>"$repo/.memgate.yml"
g -C "$repo" checkout -q main
commit_all "$repo" "a bound"
g -C "$repo" checkout -q pr
g -C "$repo" merge -q --no-edit main
# the versions within the first 9 commits of main's first-parent line: each
# commit whose report differs from its first parent's
within=0
for c in $(g -C "$repo" rev-list --first-parent -n 9 main); do
	[ "$(g -C "$repo" rev-parse "$c:$REPORT_PATH")" = "$(g -C "$repo" rev-parse "$c^1:$REPORT_PATH")" ] ||
		within=$((within + 1))
done
mg check -C "$repo" --policy-rev main --format json
expect_field regression.history.bounded true
expect_field regression.history.commits_visited 9
expect_field regression.history.max_commits 9
expect_field regression.history.used "$within"
mg check -C "$repo" --policy-rev main
expect_out "warning: regression.history: the median is over $within of the last 50 versions of '$REPORT_PATH': the 9 commits looked at on the base's first-parent line hold no more (regression.history_max_commits: 9); raise it to look further" \
	"the bound's message names its knob"

# --- a version that is not a report ---------------------------------------------

broken=$T/broken
mkdir -p "$broken/benchmarks/results"
g init -q "$broken"
policy "$broken/.memgate.yml" "max_peak_increase_pct: 5" "history: 5"
report "$broken/$REPORT_PATH" 50000 60000 8.0
commit_all "$broken" "measure 1"
printf '{ "candidates": [\n' >"$broken/$REPORT_PATH"
commit_all "$broken" "a broken report"
report "$broken/$REPORT_PATH" 52000 60000 8.0
commit_all "$broken" "measure 2"
g -C "$broken" checkout -q -b pr
report "$broken/$REPORT_PATH" 56000 60000 8.0
commit_all "$broken" "the pull request's evidence"
mg check -C "$broken" --policy-rev main --format json
expect_code 1 "a broken version in the history is skipped, the others compared"
expect_field regression.history.used 2
expect_field regression.history.skipped 1
expect_field regression.regressed.0.base 51000
expect_err "memgate: warning: regression.history: 1 version of '$REPORT_PATH' skipped: not a report memgate reads (the first: $REPORT_PATH:" \
	"a warning names the skipped version's error"

# A Git LFS pointer in the history is skipped too: history reads no LFS objects.
lfs=$T/lfs
mkdir -p "$lfs/benchmarks/results"
g init -q "$lfs"
policy "$lfs/.memgate.yml" "max_peak_increase_pct: 5" "history: 5"
report "$lfs/$REPORT_PATH" 50000 60000 8.0
commit_all "$lfs" "measure 1"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 4211\n' \
	"$(printf x | sha256sum | cut -d' ' -f1)" >"$lfs/$REPORT_PATH"
commit_all "$lfs" "an LFS pointer"
report "$lfs/$REPORT_PATH" 52000 60000 8.0
commit_all "$lfs" "measure 2"
g -C "$lfs" checkout -q -b pr
report "$lfs/$REPORT_PATH" 56000 60000 8.0
commit_all "$lfs" "the pull request's evidence"
mg check -C "$lfs" --policy-rev main --format json
expect_code 1 "an LFS pointer in the history is skipped, the others compared"
expect_field regression.history.used 2
expect_field regression.history.skipped 1
expect_err "memgate: warning: regression.history: 1 version of '$REPORT_PATH' skipped: not a report memgate reads (the first: $REPORT_PATH: a Git LFS pointer at " \
	"a warning says the skipped version is an LFS pointer"

# A version larger than --max-input-mb is skipped with the limit's message;
# the head's own report stays under it.
big=$T/big
mkdir -p "$big/benchmarks/results"
g init -q "$big"
policy "$big/.memgate.yml" "max_peak_increase_pct: 5" "history: 5"
report "$big/$REPORT_PATH" 50000 60000 8.0
commit_all "$big" "measure 1"
report "$big/$REPORT_PATH" 51000 60000 8.0
head -c 1200000 /dev/zero | tr '\0' ' ' >>"$big/$REPORT_PATH"
commit_all "$big" "a padded report"
report "$big/$REPORT_PATH" 52000 60000 8.0
commit_all "$big" "measure 2"
g -C "$big" checkout -q -b pr
report "$big/$REPORT_PATH" 56000 60000 8.0
commit_all "$big" "the pull request's evidence"
mg check -C "$big" --policy-rev main --max-input-mb 1 --format json
expect_code 1 "a version over the input limit is skipped, the others compared"
expect_field regression.history.used 2
expect_field regression.history.skipped 1
expect_field regression.regressed.0.base 51000
expect_err "skipped: not a report memgate reads (the first: cannot read '$REPORT_PATH' at " \
	"a warning names the version over the limit"
expect_err "more than the limit of 1048576" "the warning gives the limit"

# --- nothing to compare with --------------------------------------------------

# no base revision: the history is not read, and the record says so
mg check -C "$broken" --rev pr --format json
expect_code 0 "no base: nothing is compared"
expect_field regression.history.read false
expect_field regression.compared false
# the one commit the bound allows does not change the report: no version
echo note >"$broken/notes.txt"
g -C "$broken" checkout -q main
printf '  history_max_commits: 1\n' >>"$broken/.memgate.yml"
commit_all "$broken" "a bound of one commit, and a note"
g -C "$broken" checkout -q pr
mg check -C "$broken" --policy-rev main --format json
expect_code 1 "no version within the bound: compared with the base's report"
expect_field regression.history.used 0
expect_field regression.compared true
expect_field regression.regressed.0.base 52000
expect_err "memgate: warning: regression: regression.history found no version of '$REPORT_PATH' on the first-parent line of $(g -C "$broken" rev-parse --short=7 main): compared with the base's own report instead" \
	"a warning says what was compared instead"
expect_err "memgate: warning: regression.history: the median is over 0 of the last 5 versions of '$REPORT_PATH': the 1 commit looked at on the base's first-parent line holds no more (regression.history_max_commits: 1); raise it to look further" \
	"and why"

# --- a history git cannot read -------------------------------------------------

# A missing object on the base's first-parent line is an error naming what
# could not be read (exit 2, nothing written), never the line's end: a
# median over the versions before it would pass for the whole history.
# corrupt_history WHAT OBJECT DESC: remove OBJECT's loose file from a copy
# of $repo, check the pull request against main.
corrupt_history() {
	local what=$1 obj=$2 desc=$3
	rm -rf "$T/corrupt"
	cp -r "$repo" "$T/corrupt"
	rm -f "$T/corrupt/.git/objects/${obj:0:2}/${obj:2}"
	mg check -C "$T/corrupt" --policy-rev main --json "$T/corrupt.json"
	expect_code 2 "$desc"
	expect_err "memgate: error: regression.history: cannot read the $what ${obj:0:12} on the first-parent line of $(g -C "$repo" rev-parse --short=12 main)" \
		"$desc: the error names the object"
	expect_no_file "$T/corrupt.json" "$desc: nothing written"
}
g -C "$repo" checkout -q pr
corrupt_history commit "$(g -C "$repo" rev-parse main~3)" "a missing commit on the line"
corrupt_history tree "$(g -C "$repo" rev-parse 'main~3^{tree}')" "a missing tree on the line"

# --- bad values ----------------------------------------------------------------

bad() {
	local want=$1 desc=$2
	shift 2
	policy "$repo/.memgate.yml" "max_peak_increase_pct: 5" "$@"
	commit_all "$repo" "bad"
	mg check -C "$repo" --json "$T/bad.json"
	expect_code 2 "$desc"
	expect_err "memgate: error: .memgate.yml:$want" "$desc: names file, line and column"
	expect_no_file "$T/bad.json" "$desc: nothing written"
}
bad "11:12: 'regression.history' must be at least 1, got '0'" "history: 0" "history: 0"
bad "11:12: 'regression.history' must be at least 1, got '-3'" "a negative history" "history: -3"
bad "11:12: 'regression.history': expected an integer, got '2.5'" "a fractional history" "history: 2.5"
bad "11:12: 'regression.history': expected an integer, got a string" \
	"a quoted history" 'history: "5"'
bad "11:12: 'regression.history' must be at most 1000, got '1001'" "too large a history" "history: 1001"
bad "12:24: 'regression.history_max_commits' must be at least 1, got '0'" \
	"history_max_commits: 0" "history: 5" "history_max_commits: 0"
bad "12:24: 'regression.history_max_commits' must be at most 1000000, got '1000001'" \
	"too large a bound" "history: 5" "history_max_commits: 1000001"

finish
