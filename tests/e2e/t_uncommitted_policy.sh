#!/usr/bin/env bash
# A policy written but not committed, nearer than a committed one (issue 35,
# item 3): `memgate check` in models/new, which has a new untracked (or
# staged) .memgate.yml, names it with the command that commits it, as
# memgate(1) promises, and never gates the root's policy in its place.
. "$(dirname "$0")/lib.sh"

R=$T/r
make_gate_repo "$R" "$FIX/e2e/real-flat-11200.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
mkdir -p "$R/models/new"
sed 's|memory_cap_mb: 11200|memory_cap_mb: 100|' "$R/.memgate.yml" >"$R/models/new/.memgate.yml"

mg_in "$R/models/new" check
expect_code 2 "an untracked policy beside memgate, a committed one at the root"
expect_err "no policy 'models/new/.memgate.yml' at" "names the untracked policy, not the root's"
expect_err "it is untracked: run 'git add .memgate.yml', then commit" "with the git add to run from there"
if grep -q "^memgate: accept\|^memgate: tune\|^memgate: reject" "$T/out"; then
	not_ok "the root's policy is not gated in its place"
else
	ok "the root's policy is not gated in its place"
fi

g -C "$R" add models/new/.memgate.yml
mg_in "$R/models/new" check
expect_code 2 "the same policy, staged"
expect_err "no policy 'models/new/.memgate.yml' at" "names the staged policy"
expect_err "it is staged but not committed: commit it" "and says to commit it"

# a committed policy in between is passed over for the nearer uncommitted one too
g -C "$R" rm -q --cached models/new/.memgate.yml
mkdir -p "$R/models/new/sub"
mv "$R/models/new/.memgate.yml" "$R/models/new/sub/.memgate.yml"
cp "$R/.memgate.yml" "$R/models/.memgate.yml"
g -C "$R" add models/.memgate.yml
g -C "$R" commit -q -m "a committed policy for models/"
mg_in "$R/models/new/sub" check
expect_code 2 "an untracked policy below a committed models/.memgate.yml"
expect_err "no policy 'models/new/sub/.memgate.yml' at" "names the nearer, untracked one"

# once committed, it decides (its 100 MB cap rejects)
commit_all "$R" "the new model's policy"
mg_in "$R/models/new/sub" check --format json
expect_code 1 "committed, the nearest policy decides"
expect_field inputs.policy.path '"models/new/sub/.memgate.yml"'
expect_field decision '"reject"'

# --worktree reads the working tree: the untracked policy decides there
mkdir -p "$R/models/wt"
sed 's|memory_cap_mb: 11200|memory_cap_mb: 100|' "$R/.memgate.yml" >"$R/models/wt/.memgate.yml"
mg_in "$R/models/wt" check --worktree --format json
expect_field inputs.policy.path '"models/wt/.memgate.yml"'

[ "$FAILED" -eq 0 ]
