#!/usr/bin/env bash
# Stale evidence says who made it stale (issue 35, item 4): a path of
# evidence.inputs that changed since the measurement on the base branch,
# not in the pull request, is named as such, so the author of a docs-only
# pull request knows it is the base's code that wants measuring again.
. "$(dirname "$0")/lib.sh"

R=$T/r
g init -q "$R"
mkdir -p "$R/src/model" "$R/benchmarks/results" "$R/docs"
echo "attn = 1" >"$R/src/model/attn.py"
echo "mlp = 1" >"$R/src/model/mlp.py"
commit_all "$R" "the code"
M=$(g -C "$R" rev-parse HEAD)
cp "$FIX/e2e/real-flat-11200.yml" "$R/.memgate.yml"
printf 'evidence:\n  inputs:\n    - "src/model/**"\n' >>"$R/.memgate.yml"
cp "$FIX/reports/76_real_gpu_memory.flat.json" "$R/$REPORT_PATH"
"$MEMGATE" manifest -C "$R" --worktree --measured-commit "$M" --report "$REPORT_PATH" \
	--out "$R/$MANIFEST_PATH" >/dev/null 2>&1
commit_all "$R" "evidence measured at the code's commit"
g -C "$R" branch -q -M main
echo "attn = 2" >"$R/src/model/attn.py"
commit_all "$R" "main's code moves on, unmeasured"

g -C "$R" checkout -q -b docs
echo "how to run" >"$R/docs/notes.md"
commit_all "$R" "a docs-only change"
mg check -C "$R" --policy-rev main
expect_code 1 "the base's own code is stale: the gate fails"
expect_out "src/model/attn.py: changed on the base branch since the measured commit ${M:0:7}, not by this change (evidence.inputs): measure again on the merged code" \
	"says the base branch changed it, not this change"

g -C "$R" checkout -q -b code main
echo "mlp = 2" >"$R/src/model/mlp.py"
commit_all "$R" "this change edits the code"
mg check -C "$R" --policy-rev main
expect_out "src/model/mlp.py: changed since the measured commit ${M:0:7} (evidence.inputs): measure again" \
	"a path this change edits reads as before"
expect_out "src/model/attn.py: changed on the base branch since the measured commit" \
	"and the base's own, as the base's"

mg check -C "$R"
expect_out "src/model/attn.py: changed since the measured commit ${M:0:7} (evidence.inputs): measure again" \
	"without a base, nothing tells who changed it"

[ "$FAILED" -eq 0 ]
