#!/usr/bin/env bash
# memgate under the pre-commit framework (.pre-commit-hooks.yaml, memgate(1),
# CI, "The pre-push hook"): the real pre-commit of the distribution, a
# repository whose .pre-commit-config.yaml names memgate's hook from a local
# copy of this repository (no network), a real push to a bare remote: a
# failing gate refuses the push, a passing one pushes, a tag is gated as a
# release.  The hook reads pre-commit's PRE_COMMIT_* variables instead of
# standard input, and says what is wrong when they are missing.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
HOOK=$SRC/actions/pre-push
ZEROS=0000000000000000000000000000000000000000

mkdir -p "$T/bin"
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${MEMGATE_WRAP:-}" "$MEMGATE" >"$T/bin/memgate"
chmod +x "$T/bin/memgate"

# --- the variables, without pre-commit ----------------------------------------

repo=$T/direct
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
head=$(g -C "$repo" rev-parse HEAD)
# hook_env VAR=VALUE...: run the hook in $repo as pre-commit would, with
# these variables and git's line on stdin (which pre-commit does not give).
hook_env() {
	(cd "$repo" && env PRE_COMMIT=1 MEMGATE="$T/bin/memgate" "$@" sh "$HOOK" \
		<<<"refs/heads/main $head refs/heads/main $ZEROS") >"$T/out" 2>"$T/err"
	code=$?
}
hook_env
expect_code 1 "outside a push (no PRE_COMMIT_REMOTE_NAME) the hook refuses"
expect_err "memgate pre-push: pre-commit named no remote (PRE_COMMIT_REMOTE_NAME), as outside a push: give the hook 'stages: [pre-push]' ('[push]' before pre-commit 3.2)" \
	"and says which stage to give it"
# --pre-commit (the manifest's entry) says the same without PRE_COMMIT=1,
# so that no pre-commit lets the push through unread.
(cd "$repo" && env -u PRE_COMMIT MEMGATE="$T/bin/memgate" sh "$HOOK" --pre-commit </dev/null) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "--pre-commit without pre-commit's variables refuses"
expect_err "pre-commit named no remote (PRE_COMMIT_REMOTE_NAME)" "and says why"
hook_env PRE_COMMIT_REMOTE_NAME=origin PRE_COMMIT_TO_REF="$head"
expect_code 1 "without PRE_COMMIT_REMOTE_BRANCH the hook refuses"
expect_err "this pre-commit does not name the pushed refs (PRE_COMMIT_REMOTE_BRANCH, PRE_COMMIT_LOCAL_BRANCH): use memgate's own git hook (make install-hook)" \
	"and says to use the git hook"
hook_env PRE_COMMIT_REMOTE_NAME=origin PRE_COMMIT_REMOTE_BRANCH=refs/heads/main \
	PRE_COMMIT_LOCAL_BRANCH=refs/heads/main PRE_COMMIT_TO_REF="$head"
expect_code 1 "the refs come from the variables: the failing gate refuses"
expect_err "'refs/heads/main' ($(g -C "$repo" rev-parse --short HEAD)) fails the gate" \
	"naming the ref of PRE_COMMIT_REMOTE_BRANCH"
hook_env PRE_COMMIT_REMOTE_NAME=origin PRE_COMMIT_REMOTE_BRANCH=refs/heads/main \
	PRE_COMMIT_LOCAL_BRANCH=refs/heads/no-such-branch
expect_code 1 "a local branch that does not resolve refuses"
expect_err "cannot resolve the pushed 'refs/heads/no-such-branch'" "and says so"

# --- the real pre-commit ---------------------------------------------------------

if ! command -v pre-commit >/dev/null 2>&1; then
	ok "# SKIP pre-commit not installed (actions/install-deps installs it)"
	finish
	exit
fi
version=$(pre-commit --version | sed -n 's/^pre-commit \([0-9][0-9.]*\).*/\1/p')
# The hook reads PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF and
# PRE_COMMIT_REMOTE_NAME: pre-commit 2.0 and later (Debian 11 has 2.10.1).
case $version in
[01].*|"")
	ok "# SKIP pre-commit ${version:-of unknown version} is too old: the hook needs pre-commit 2.0 or later"
	finish
	exit ;;
esac
# The pre-push stage is named push before pre-commit 3.2.
stage=pre-push
case $version in
[0-2].*|3.[01].*) stage=push ;;
esac
export PRE_COMMIT_HOME=$T/pre-commit-home

# This repository's hook, as pre-commit clones it: a git repository with
# .pre-commit-hooks.yaml and actions/ of the tree under test.
hooks=$T/memgate-hooks
mkdir -p "$hooks"
cp "$SRC/.pre-commit-hooks.yaml" "$hooks/"
cp -R "$SRC/actions" "$hooks/"
g init -q "$hooks"
commit_all "$hooks" "memgate's hooks"
rev=$(g -C "$hooks" rev-parse HEAD)

# team_repo DIR: a repository whose .pre-commit-config.yaml names memgate's
# hook, with pre-commit's git hook installed and an empty bare remote.
team_repo() {
	repo=$1
	g init -q "$repo"
	cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: memgate
        stages: [$stage]
YAML
	echo "the team's repository" >"$repo/README.md"
	commit_all "$repo" "pre-commit"
	rm -rf "$T/remote.git"
	g init -q --bare "$T/remote.git"
	g -C "$repo" remote add origin "$T/remote.git"
	(cd "$repo" && pre-commit install --hook-type pre-push) >"$T/out" 2>"$T/err"
	code=$?
}
# gate_files DIR: the gate's evidence (failing: tune) added to DIR, committed.
gate_files() {
	mkdir -p "$1/benchmarks/results"
	cp "$E/real-flat-11200.yml" "$1/.memgate.yml"
	cp "$FLAT" "$1/$REPORT_PATH"
	write_manifest "$1"
	commit_all "$1" "evidence"
}
# push ARGS...: git push through pre-commit; its output (pre-commit prints
# the hook's on stdout) and git's, both in $T/err.
push() {
	MEMGATE=$T/bin/memgate g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
	cat "$T/out" >>"$T/err"
}
remote_oid() { g -C "$T/remote.git" rev-parse -q --verify "$1" 2>/dev/null; }

team_repo "$T/team"
expect_code 0 "pre-commit $version installs the pre-push hook (stages: [$stage])"
g -C "$repo" push -q --no-verify origin main
gate_files "$repo"
push origin main
expect_code 1 "pre-commit: a push whose gate fails is refused"
expect_err "memgate pre-push: 'refs/heads/main' ($(g -C "$repo" rev-parse --short HEAD)) fails the gate; the push is refused" \
	"pre-commit: memgate's refusal is shown"
expect_err "memgate: tune (memory_saving_below_meaningful_threshold)" "pre-commit: with memgate's reasons"
if [ "$(remote_oid refs/heads/main)" = "$(g -C "$repo" rev-parse HEAD~1)" ]; then
	ok "pre-commit: nothing was pushed"
else
	not_ok "pre-commit: nothing was pushed"
fi

sed -i 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$repo/.memgate.yml"
commit_all "$repo" "fail only on reject"
push origin main
expect_code 0 "pre-commit: a push whose gate passes goes through"
if [ "$(remote_oid refs/heads/main)" = "$(g -C "$repo" rev-parse HEAD)" ]; then
	ok "pre-commit: the remote has the branch"
else
	not_ok "pre-commit: the remote has the branch"
fi

# a branch on top of the remote's: PRE_COMMIT_FROM_REF is the remote's commit
sed -i 's/fail_on: \[reject\]/fail_on: [reject, tune]/' "$repo/.memgate.yml"
commit_all "$repo" "fail on tune again"
push origin main
expect_code 1 "pre-commit: a later push that fails the gate is refused"
g -C "$repo" reset -q --hard HEAD~1

# a tag is a release: without an approved record it is refused
echo "notes" >"$repo/NOTES.md"
commit_all "$repo" "notes"
g -C "$repo" tag v1
push origin v1
expect_code 1 "pre-commit: a tag without an approved record is refused"
expect_err "'refs/tags/v1' ($(g -C "$repo" rev-parse --short HEAD)) fails the release gate" \
	"pre-commit: the tag is gated as a release"
if [ -z "$(remote_oid refs/tags/v1)" ]; then ok "pre-commit: the tag was not pushed"
else not_ok "pre-commit: the tag was not pushed"; fi

# pre-commit runs no hook for a push whose commits the remote has already
# (a tag on a pushed commit), so such a tag is not gated here: memgate(1)
# says so, and the release gate in CI gates it.
g -C "$repo" push -q --no-verify origin HEAD:refs/heads/main
push origin v1
expect_code 0 "pre-commit: a tag on a commit the remote has runs no hook (pre-commit's rule)"

# A first push, whose whole history is new: pre-commit names no range, only
# the local branch (PRE_COMMIT_LOCAL_BRANCH, from pre-commit 2.14); an older
# one names nothing the hook can gate, and the hook refuses.
team_repo "$T/first"
gate_files "$repo"
push origin main
expect_code 1 "pre-commit: a first push is gated (refused)"
case $version in
[01].*|2.[0-9].*|2.1[0-3].*)
	expect_err "this pre-commit does not name the pushed refs" \
		"pre-commit $version: says it cannot name the refs" ;;
*)
	expect_err "'refs/heads/main' ($(g -C "$repo" rev-parse --short HEAD)) fails the gate" \
		"pre-commit $version: the branch of PRE_COMMIT_LOCAL_BRANCH fails the gate" ;;
esac
if [ -z "$(remote_oid refs/heads/main)" ]; then ok "pre-commit: the first push pushed nothing"
else not_ok "pre-commit: the first push pushed nothing"; fi

finish
