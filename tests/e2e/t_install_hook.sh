#!/usr/bin/env bash
# make install-hook next to other hooks: it installs into an empty hooks
# directory, does nothing the second time, never overwrites another
# pre-push hook (it installs pre-push.memgate and prints the one line that
# chains it, which is tested here by adding it and pushing), and replaces
# the other hook only with FORCE=1, keeping it as pre-push.old.
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

# install [VAR=VALUE...]: make install-hook for $repo; sets $code.
install() {
	env GIT_DIR="$repo/.git" "$@" make -s -C "$SRC" install-hook >"$T/out" 2>"$T/err"
	code=$?
}
push() {
	MEMGATE=$T/bin/memgate g -C "$repo" push "$@" >"$T/out" 2>"$T/err"
	code=$?
}
same_file() { # same_file A B DESC
	if cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3" "$1 differs from $2"; fi
}
# new_repo NAME: a gate repository whose evidence fails the gate (tune) and
# an empty bare remote 'origin'.
new_repo() {
	repo=$T/$1
	make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
	g init -q --bare "$T/$1.git"
	g -C "$repo" remote add origin "$T/$1.git"
}
remote_has() { g -C "$T/$1.git" rev-parse -q --verify "$2" >/dev/null 2>&1; }

# An empty hooks directory: installed; a second run changes nothing.
new_repo fresh
rm -f "$repo/.git/hooks/pre-push"
install
expect_code 0 "install-hook into a repository without a pre-push hook"
expect_out "installed $repo/.git/hooks/pre-push" "names the installed hook"
same_file "$HOOK" "$repo/.git/hooks/pre-push" "the hook is actions/pre-push"
install
expect_code 0 "install-hook a second time"
expect_out "memgate's pre-push hook already; nothing to do" "says there is nothing to do"
same_file "$HOOK" "$repo/.git/hooks/pre-push" "the hook is unchanged"

# Another pre-push hook (it logs the refs git gives it) is left alone.
new_repo other
cat >"$repo/.git/hooks/pre-push" <<'SH'
#!/bin/sh
# the team's own pre-push hook: log what is pushed
while read -r lref loid rref roid; do
	echo "$lref $rref" >>"$(git rev-parse --git-dir)/pushed.log"
done
exit 0
SH
chmod +x "$repo/.git/hooks/pre-push"
cp "$repo/.git/hooks/pre-push" "$T/other-hook"
install
expect_code 2 "install-hook next to another hook fails (make reports the script's exit 1)"
same_file "$T/other-hook" "$repo/.git/hooks/pre-push" "the other hook is untouched"
same_file "$HOOK" "$repo/.git/hooks/pre-push.memgate" "memgate's hook is installed as pre-push.memgate"
if [ -x "$repo/.git/hooks/pre-push.memgate" ]; then ok "pre-push.memgate is executable"; else not_ok "pre-push.memgate is executable"; fi
expect_err "exists and is another hook: left it alone" "says the other hook was left alone"
expect_err "FORCE=1" "says how to replace it instead"
line=$(grep -F 'pre-push.memgate" "$@"' "$T/err")
if [ -n "$line" ]; then ok "prints the line that chains it"; else not_ok "prints the line that chains it"; fi

# Until chained, pushes go through the other hook only.
push origin main:refs/heads/unchained
expect_code 0 "before chaining, memgate's hook does not run"
rm -f "$repo/.git/pushed.log"

# Add the printed line after the #! line, as the message says.
{ head -n 1 "$T/other-hook"; printf '%s\n' "$line"; tail -n +2 "$T/other-hook"; } >"$repo/.git/hooks/pre-push"
push origin main
expect_code 1 "chained: memgate refuses the failing push"
expect_err "fails the gate; the push is refused" "memgate's reasons are printed"
if remote_has other refs/heads/main; then not_ok "nothing reached the remote"; else ok "nothing reached the remote"; fi
sed -i 's/fail_on: \[reject, tune\]/fail_on: [reject]/' "$repo/.memgate.yml"
commit_all "$repo" "fail only on reject"
push origin main
expect_code 0 "chained: a passing push goes through"
if remote_has other refs/heads/main; then ok "the passing commit reached the remote"; else not_ok "the passing commit reached the remote"; fi
if grep -qx "refs/heads/main refs/heads/main" "$repo/.git/pushed.log" 2>/dev/null; then
	ok "the other hook still reads the pushed refs"
else
	not_ok "the other hook still reads the pushed refs" "pushed.log: $(cat "$repo/.git/pushed.log" 2>&1)"
fi
install
expect_code 0 "install-hook on a chained hook"
expect_out "updated $repo/.git/hooks/pre-push.memgate" "updates pre-push.memgate only"

# FORCE=1 replaces the other hook and keeps it as pre-push.old.
new_repo forced
cp "$T/other-hook" "$repo/.git/hooks/pre-push"
install FORCE=1
expect_code 0 "FORCE=1 replaces another hook"
same_file "$HOOK" "$repo/.git/hooks/pre-push" "the hook is memgate's"
same_file "$T/other-hook" "$repo/.git/hooks/pre-push.old" "the replaced hook is kept as pre-push.old"
expect_out "the hook it replaced is $repo/.git/hooks/pre-push.old" "says where the old hook went"
echo "#!/bin/sh" >"$repo/.git/hooks/pre-push"
install FORCE=1
expect_code 2 "FORCE=1 never overwrites an existing pre-push.old"
same_file "$T/other-hook" "$repo/.git/hooks/pre-push.old" "pre-push.old is untouched"
expect_err "move it away first" "says what to do"

finish
