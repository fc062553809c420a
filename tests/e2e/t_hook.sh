#!/usr/bin/env bash
# The pre-push hook (actions/pre-push): real pushes to a local bare
# repository.  A push that changes the gate's inputs and fails the gate is
# refused; pushes that change nothing the gate reads, deletions and pushes
# of commits without a policy go through; tags are always gated.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
HOOK=$SRC/actions/pre-push
ZEROS=0000000000000000000000000000000000000000

# The hook runs memgate through this wrapper (under $MEMGATE_WRAP if set).
mkdir -p "$T/bin"
cat >"$T/bin/memgate" <<SH
#!/bin/sh
exec ${MEMGATE_WRAP:-} "$MEMGATE" "\$@"
SH
chmod +x "$T/bin/memgate"
HOOK_MEMGATE=$T/bin/memgate

# push ARGS...: git push in $repo with the hook finding memgate via
# $MEMGATE; sets $code, output in $T/out and $T/err.
push() {
	MEMGATE=$HOOK_MEMGATE g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
# remote_oid REF: the remote's object id for REF, empty when absent.
remote_oid() { g -C "$T/remote.git" rev-parse -q --verify "$1" 2>/dev/null; }
expect_remote() { # expect_remote REF OID DESC
	local got
	got=$(remote_oid "$1")
	if [ "$got" = "$2" ]; then ok "$3"; else not_ok "$3" "remote $1 is '$got', expected '$2'"; fi
}
expect_remote_absent() { # expect_remote_absent REF DESC
	if [ -z "$(remote_oid "$1")" ]; then ok "$2"; else not_ok "$2" "remote has $1"; fi
}
head_oid() { g -C "$repo" rev-parse "${1:-HEAD}"; }
# new_repo NAME: a gate repository whose evidence fails the gate (tune),
# with the hook installed and an empty bare remote 'origin'.
new_repo() {
	repo=$T/$1
	make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
	rm -rf "$T/remote.git"
	g init -q --bare "$T/remote.git"
	g -C "$repo" remote add origin "$T/remote.git"
	cp "$HOOK" "$repo/.git/hooks/pre-push"
	chmod +x "$repo/.git/hooks/pre-push"
}
# passing_policy FILE: the fixture policy, failing only on reject.
passing_policy() {
	sed 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$E/real-flat-11200.yml" >"$1"
}

# The hook is POSIX sh (dash is Debian's /bin/sh).
if dash -n "$HOOK" 2>"$T/err"; then ok "the hook parses with dash"; else not_ok "the hook parses with dash"; fi
if ! command -v shellcheck >/dev/null 2>&1; then
	ok "# SKIP shellcheck not installed"
elif shellcheck -s sh "$HOOK" >"$T/out" 2>&1; then
	ok "shellcheck -s sh finds nothing in the hook"
else
	not_ok "shellcheck -s sh finds nothing in the hook"
fi

# make install-hook installs into the repository named by GIT_DIR.
new_repo installed
rm -f "$repo/.git/hooks/pre-push"
GIT_DIR=$repo/.git make -s -C "$SRC" install-hook >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "make install-hook"
expect_out "installed $repo/.git/hooks/pre-push" "install-hook names the installed file"
if [ -x "$repo/.git/hooks/pre-push" ] && cmp -s "$HOOK" "$repo/.git/hooks/pre-push"; then
	ok "the installed hook is actions/pre-push, executable"
else
	not_ok "the installed hook is actions/pre-push, executable"
fi
push origin main
expect_code 1 "the hook installed by make refuses a failing push"

# A new branch with failing evidence, no remote default branch known: every
# pushed commit counts, so the push is refused with memgate's reasons.
new_repo dev
push origin main
expect_code 1 "a failing gate refuses the push"
expect_remote_absent refs/heads/main "nothing reaches the remote"
expect_err "memgate pre-push: 'refs/heads/main' ($(g -C "$repo" rev-parse --short HEAD)) fails the gate; the push is refused" "names the refused ref and commit"
expect_err "memgate: tune (memory_saving_below_meaningful_threshold)" "prints memgate's decision and reason"
expect_err "git push --no-verify" "says how to skip the hook"
expect_no_err "Everything up-to-date" "git did not push"

push --no-verify origin main
expect_code 0 "--no-verify skips the hook"
expect_remote refs/heads/main "$(head_oid)" "--no-verify pushed main"
push --no-verify origin main:refs/heads/stale
expect_code 0 "a second failing branch, pushed with --no-verify"

# A commit that changes no gate input goes through, though the gate fails.
echo "how we measure" >"$repo/README"
commit_all "$repo" "docs"
push origin main
expect_code 0 "a push touching only README is not gated"
expect_remote refs/heads/main "$(head_oid)" "the README commit reached the remote"
# $TMPDIR through a symlink, as on macOS (/var/folders -> /private/var/...):
# the hook's files there are written.
mkdir -p "$T/private/tmp" && ln -s private/tmp "$T/tmp"
echo "and why" >>"$repo/README"
commit_all "$repo" "more docs"
TMPDIR=$T/tmp push origin main
expect_code 0 "with TMPDIR through a symlink, a push touching only README is not gated"

# Each input the gate reads is one it guards: manifest, report, policy.
good=$(head_oid)
echo >>"$repo/$MANIFEST_PATH"
commit_all "$repo" "reformat the manifest"
push origin main
expect_code 1 "a push touching only the manifest is gated"
expect_remote refs/heads/main "$good" "the manifest change did not reach the remote"
g -C "$repo" reset -q --hard "$good"
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 8450.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "edit the report"
push origin main
expect_code 1 "a push touching only the report is gated"
expect_err "memgate: reject (evidence_not_applicable)" "the edited report fails its pinned hash"
g -C "$repo" reset -q --hard "$good"
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 11000/' "$repo/.memgate.yml"
commit_all "$repo" "tighten the cap"
push origin main
expect_code 1 "a push touching only the policy is gated"
g -C "$repo" reset -q --hard "$good"

# Nothing on stdout, reasons on stderr: the hook run directly under dash,
# as git runs it for a push to a URL (no default branch to compare with:
# the remote's main is this very commit).
hook_direct() { # hook_direct LINE: feed one stdin line to the hook in $repo
	(cd "$repo" && printf '%s\n' "$1" |
		MEMGATE=$HOOK_MEMGATE dash .git/hooks/pre-push "$T/remote.git" "$T/remote.git") >"$T/out" 2>"$T/err"
	code=$?
}
hook_direct "refs/heads/main $(head_oid) refs/heads/new $ZEROS"
expect_code 1 "the hook refuses a new failing branch"
if [ -s "$T/out" ]; then not_ok "the hook prints nothing on stdout"; else ok "the hook prints nothing on stdout"; fi
expect_err "memgate: tune" "the reasons go to stderr"
hook_direct ""
expect_code 0 "empty stdin (everything up-to-date) passes"
hook_direct "(delete) $ZEROS refs/heads/stale $(remote_oid refs/heads/stale)"
expect_code 0 "a deletion line passes"

# With the remote's default branch known, a new branch is compared with
# its merge-base: only a branch that changes the inputs is gated.
g -C "$repo" remote set-head origin main
g -C "$repo" checkout -q -b docs-only
echo "more" >>"$repo/README"
commit_all "$repo" "more docs"
push origin docs-only
expect_code 0 "a new branch changing only README is compared with origin/HEAD"
expect_remote refs/heads/docs-only "$(head_oid)" "the docs branch reached the remote"
g -C "$repo" checkout -q -b evidence main
echo >>"$repo/$MANIFEST_PATH"
commit_all "$repo" "reformat the manifest"
push origin evidence
expect_code 1 "a new branch changing the manifest is gated"
expect_remote_absent refs/heads/evidence "the evidence branch did not reach the remote"
g -C "$repo" checkout -q main

# Tags are always gated, lightweight or annotated, even on a commit the
# remote's default branch already has.
g -C "$repo" tag v0.1 main
push origin v0.1
expect_code 1 "a tag on a failing commit already on origin/HEAD is refused"
expect_remote_absent refs/tags/v0.1 "the tag did not reach the remote"
expect_err "'refs/tags/v0.1'" "names the refused tag"
g -C "$repo" tag -a -m "release" v0.2 main
push origin v0.2
expect_code 1 "an annotated tag on a failing commit is refused"
g -C "$repo" remote set-head -d origin

# Deleting a remote branch is never gated.
push origin --delete stale
expect_code 0 "a deletion is not gated"
expect_remote_absent refs/heads/stale "the branch was deleted"

# A policy that passes goes through, and so do tags on it.
passing_policy "$repo/.memgate.yml"
commit_all "$repo" "fail only on reject"
push origin main
expect_code 0 "a push that passes the gate goes through"
expect_remote refs/heads/main "$(head_oid)" "the passing commit reached the remote"
expect_no_err "memgate pre-push" "a passing push prints nothing from the hook"
expect_no_err "memgate:" "a passing push prints nothing from memgate"
g -C "$repo" tag v1.0
MEMGATE_TAG_REQUIRE_APPROVED=false push origin v1.0
expect_code 0 "a tag on a passing commit is pushed (no approved record required)"
expect_remote refs/tags/v1.0 "$(head_oid)" "the tag reached the remote"

# Policies memgate cannot read refuse the push: malformed, or deleted.
good=$(head_oid)
echo "budget: [" >>"$repo/.memgate.yml"
commit_all "$repo" "break the policy"
push origin main
expect_code 1 "a malformed policy is refused"
expect_err "memgate cannot decide 'refs/heads/main'" "says memgate cannot decide"
expect_err ".memgate.yml" "names the policy"
# Where memgate cannot decide, its inputs are unknown: any change is gated.
push --no-verify origin HEAD:refs/heads/broken
g -C "$repo" checkout -q -b broken
echo "unrelated" >>"$repo/README"
commit_all "$repo" "docs on a broken policy"
push origin broken
expect_code 1 "where memgate cannot decide, a README change is refused too"
expect_remote refs/heads/broken "$(head_oid HEAD~1)" "the README change did not reach the remote"
g -C "$repo" checkout -q main
g -C "$repo" reset -q --hard "$good"
g -C "$repo" rm -q .memgate.yml
commit_all "$repo" "drop the gate"
push origin main
expect_code 1 "a push deleting the policy is refused"
g -C "$repo" reset -q --hard "$good"

# Finding memgate: $MEMGATE, else PATH, never the repository's own (see
# t_security.sh for the attack).
sed -i 's/memory_cap_mb: 11200/memory_cap_mb: 9000/' "$repo/.memgate.yml"
commit_all "$repo" "a cap below every candidate"
(cd "$repo" && unset MEMGATE && PATH=/usr/bin:/bin g push origin main) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "without memgate a gated push is refused"
expect_err "cannot find memgate (set MEMGATE, or put memgate on PATH)" "says memgate was not found"
(cd "$repo" && unset MEMGATE && PATH=$T/bin:/usr/bin:/bin g push origin main) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "memgate on PATH is used"
expect_err "memgate: reject" "memgate on PATH decided"
cp "$HOOK_MEMGATE" "$repo/memgate"
(cd "$repo" && unset MEMGATE && PATH=.:/usr/bin:/bin g push origin main) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "the repository's ./memgate is not used, '.' on PATH or not"
expect_err "cannot find memgate (set MEMGATE, or put memgate on PATH)" "says memgate was not found"
rm -f "$repo/memgate"
g -C "$repo" reset -q --hard "$good"

# A repository without a policy is not gated, and needs no memgate.
repo=$T/plain
g init -q "$repo"
echo "hello" >"$repo/README"
commit_all "$repo" "init"
g init -q --bare "$T/plain.git"
cp "$HOOK" "$repo/.git/hooks/pre-push"
(cd "$repo" && MEMGATE=$T/no-such-memgate g push "$T/plain.git" main) >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "a repository without a policy is not gated"

# MEMGATE_POLICY names a policy elsewhere.
new_repo moved
mkdir -p "$repo/ci"
g -C "$repo" mv .memgate.yml ci/memgate.yml
commit_all "$repo" "move the policy"
push origin main
expect_code 0 "without MEMGATE_POLICY the moved policy is not found, nothing is gated"
echo "x" >>"$repo/README"
commit_all "$repo" "docs"
g -C "$repo" tag v2
MEMGATE_POLICY=ci/memgate.yml MEMGATE_TAG_FAIL_ON=policy MEMGATE_TAG_REQUIRE_APPROVED=false push origin v2
expect_code 1 "MEMGATE_POLICY selects the policy the hook gates with"
expect_err "memgate: tune" "the moved policy decided"

# An input path that git diff would quote ('"' and a space in it): memgate
# lists the paths it read verbatim (--inputs), the hook reads git's names
# verbatim (-z), so a change to that report alone is still gated.
new_repo quoted
odd='bench "q"/r.json'
mkdir -p "$repo/bench \"q\""
g -C "$repo" mv "$REPORT_PATH" "$odd"
sha=$(sha256sum "$repo/$odd" | cut -d' ' -f1)
printf '{\n  "source": {\n    "path": "bench \\"q\\"/r.json",\n    "sha256": "%s"\n  }\n}\n' "$sha" \
	>"$repo/$MANIFEST_PATH"
commit_all "$repo" "the report under a quoted name"
push --no-verify origin main
expect_code 0 "the quoted-path evidence, pushed with --no-verify"
mg check -C "$repo" --inputs "$T/inputs"
printf '%s\n' .memgate.yml "$MANIFEST_PATH" "$odd" >"$T/want"
if cmp -s "$T/want" "$T/inputs"; then ok "--inputs lists the quoted path verbatim"
else not_ok "--inputs lists the quoted path verbatim" "$(cat "$T/inputs")"; fi
printf ' ' >>"$repo/$odd"
commit_all "$repo" "touch only the report at the quoted path"
push origin main
expect_code 1 "a push touching only the report at a quoted path is gated"

finish
