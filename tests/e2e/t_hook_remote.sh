#!/usr/bin/env bash
# The pre-push hook's messages where it cannot compare a new branch.  A
# remote made with `git remote add` has no refs/remotes/<remote>/HEAD: the
# hook asks the remote which branch its HEAD names, so a docs-only branch is
# compared with it and goes through.  When no default branch is known at
# all (the remote's HEAD names a branch that does not exist, and there is
# no refs/remotes/<remote>/main or master) a docs-only branch counts as
# changing the gate's inputs; the refusal says how to fix that (git remote
# set-head), and after it the branch goes through.  When memgate cannot be
# found, the closing line says so instead of "fix the evidence or the
# policy".
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
HOOK=$SRC/actions/pre-push

mkdir -p "$T/bin"
cat >"$T/bin/memgate" <<SH
#!/bin/sh
exec ${MEMGATE_WRAP:-} "$MEMGATE" "\$@"
SH
chmod +x "$T/bin/memgate"

push() {
	MEMGATE=$T/bin/memgate g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
remote_has() { g -C "$T/remote.git" rev-parse -q --verify "$1" >/dev/null 2>&1; }

# A team's repository: failing evidence (tune) on main, which is already on
# the remote; the remote was added with `git remote add`.
repo=$T/team
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
g init -q --bare "$T/remote.git"
g -C "$repo" remote add origin "$T/remote.git"
cp "$HOOK" "$repo/.git/hooks/pre-push"
push --no-verify origin main
expect_code 0 "main is on the remote (pushed with --no-verify)"
if g -C "$repo" rev-parse -q --verify refs/remotes/origin/HEAD >/dev/null; then
	not_ok "git remote add leaves no refs/remotes/origin/HEAD"
else
	ok "git remote add leaves no refs/remotes/origin/HEAD"
fi

# A docs-only branch: compared with the branch the remote's HEAD names.
g -C "$repo" checkout -q -b docs
echo "how we measure" >"$repo/README"
commit_all "$repo" "docs"
push origin docs
expect_code 0 "without origin/HEAD a docs-only new branch is compared with the remote's HEAD"
if remote_has refs/heads/docs; then ok "the docs branch reached the remote"; else not_ok "the docs branch reached the remote"; fi

# No default branch known at all: the remote's HEAD names a branch it does
# not have, and this repository has no origin/main nor origin/master.  A
# docs-only branch is refused, with the fix named.
g -C "$T/remote.git" symbolic-ref HEAD refs/heads/trunk
g -C "$repo" update-ref -d refs/remotes/origin/main
g -C "$repo" update-ref -d refs/remotes/origin/docs
g -C "$repo" checkout -q -b docs-more
echo "and why" >>"$repo/README"
commit_all "$repo" "more docs"
push origin docs-more
expect_code 1 "with no default branch known a docs-only new branch is refused"
expect_err "refs/remotes/origin/HEAD is missing, as after 'git remote add' or a clone of an empty repository" "says origin/HEAD is missing"
expect_err "there is no refs/remotes/origin/main or master" "says origin/main and origin/master are missing"
expect_err "run 'git remote set-head origin --auto' (or 'git remote set-head origin BRANCH')" "suggests git remote set-head"
expect_err "fix the evidence or the policy, or skip this hook with 'git push --no-verify'" "the closing line"
if remote_has refs/heads/docs-more; then not_ok "the docs branch did not reach the remote"; else ok "the docs branch did not reach the remote"; fi

# Following the advice lets it through.
g -C "$repo" fetch -q origin main
g -C "$repo" remote set-head origin main >/dev/null
push origin docs-more
expect_code 0 "after git remote set-head origin main the docs branch goes through"
if remote_has refs/heads/docs-more; then ok "the docs branch reached the remote"; else not_ok "the docs branch reached the remote"; fi

# Pushing to a URL rather than a named remote: no default branch to compare with.
g -C "$repo" checkout -q -b docs2
echo "more" >>"$repo/README"
commit_all "$repo" "more docs"
push "$T/remote.git" docs2
expect_code 1 "a new branch pushed to a URL counts as changing the inputs"
expect_err "the push goes to a URL, not a named remote" "says why it cannot compare"

# Another remote name is named in the advice.
g init -q --bare "$T/mirror.git"
g -C "$repo" remote add mirror "$T/mirror.git"
push mirror docs2
expect_code 1 "a new branch on a remote without HEAD"
expect_err "run 'git remote set-head mirror --auto'" "names the remote in the advice"

# memgate not found: the closing line says to install it, not to fix evidence.
(cd "$repo" && unset MEMGATE && PATH=/usr/bin:/bin g push origin docs2) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "without memgate a gated push is refused"
expect_err "cannot find memgate (set MEMGATE, or put memgate on PATH)" "says memgate was not found"
expect_err "install memgate or set MEMGATE, or skip this hook with 'git push --no-verify'" "the closing line says to install memgate"
expect_no_err "fix the evidence or the policy" "the closing line does not blame the evidence"

finish
