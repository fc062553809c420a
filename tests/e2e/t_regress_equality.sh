#!/usr/bin/env bash
# Equality passes, as written (issue 33, item 5): a regression's change is
# compared with its allowance on the numbers the reports and the policy
# write, so 10 -> 9.7 samples/s is a 3 % drop, within max_throughput_drop_pct
# 3, not 3.0000000000000027 % beyond it.  A generated base and head of 1,000
# candidates aimed at the allowances (tests/diff/equality.py computes what
# regressed exactly, with fractions) must name the same regressions.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP python3 not available (actions/install-deps installs it)"
	exit 0
fi

# repo DIR BASE HEAD POLICY-LINES...: main with BASE, branch pr with HEAD.
repo() {
	local dir=$1 base=$2 head=$3
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir/b"
	g init -q "$dir"
	{
		printf 'version: 1\nreport: b/76.json\nidentity:\n  workload_id: train\n  hardware_id: gpu-a\n'
		printf 'budget:\n  memory_cap_mb: 80000\n  min_memory_saving_mb: 1\nregression:\n'
		printf '  %s\n' "$@"
	} >"$dir/.memgate.yml"
	cp "$base" "$dir/b/76.json"
	commit_all "$dir" "base"
	g -C "$dir" branch -q -M main
	g -C "$dir" checkout -q -b pr
	cp "$head" "$dir/b/76.json"
	commit_all "$dir" "head"
}

# --- the reported case ------------------------------------------------------
one() {
	printf '{"workload_id": "train", "hardware_id": "gpu-a", "candidates": [
  {"name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 30.0, "eval_loss": 2.0},
  {"name": "checkpoint", "peak_memory_mb": 50000, "samples_per_s": %s, "eval_loss": 2.0}]}\n' "$1" >"$2"
}
one 10 "$T/b10.json"
one 9.7 "$T/h97.json"
one 9.69 "$T/h969.json"
repo "$T/r" "$T/b10.json" "$T/h97.json" "max_throughput_drop_pct: 3"
mg check -C "$T/r" --policy-rev main
expect_code 0 "10 -> 9.7 samples/s against max_throughput_drop_pct 3: equality passes"
expect_out "none beyond max_throughput_drop_pct 3" "nothing regressed"
repo "$T/r" "$T/b10.json" "$T/h969.json" "max_throughput_drop_pct: 3"
mg check -C "$T/r" --policy-rev main
expect_code 1 "10 -> 9.69: a 3.1 % drop is beyond it"
expect_out "drop 3.1 % (10 -> 9.69) > max_throughput_drop_pct 3" "the change as a person computes it"

# --- 1,000 candidates aimed at the allowances ---------------------------------
at=$(python3 "$SRC/tests/diff/equality.py" 33 1000 "$T")
repo "$T/big" "$T/base.json" "$T/head.json" "max_peak_increase_pct: 5" "max_throughput_drop_pct: 3" \
	"covers: all"
mg check -C "$T/big" --policy-rev main --format json
python3 - "$T/out" "$T/expected" >"$T/diff" <<'PY'
import json, sys
got = {'%s %s' % (r['candidate'], r['threshold'])
       for r in json.load(open(sys.argv[1]))['regression']['regressed']}
want = {line.strip() for line in open(sys.argv[2]) if line.strip()}
for line in sorted(got - want):
    print('memgate only: ' + line)
for line in sorted(want - got):
    print('exact only: ' + line)
print('%d %d' % (len(want), len(got ^ want)))
PY
read -r want mismatches <<<"$(tail -n 1 "$T/diff")"
echo "# regression equality: 1000 candidates, 2 allowances ($at changes exactly at one), $want regressions, $mismatches mismatches"
if [ "$mismatches" = 0 ] && [ "$want" -gt 0 ]; then
	ok "the regressions memgate names are those of the numbers as written"
else
	not_ok "the regressions memgate names are those of the numbers as written" "$(head -n 10 "$T/diff")"
fi

[ "$FAILED" -eq 0 ]
