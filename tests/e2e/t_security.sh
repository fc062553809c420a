#!/usr/bin/env bash
# Issue 9's attacks, each replayed as a pull request author would, in a
# repository built here, and each shown to fail now:
#   1. a repository planted under ml/ with a config that runs commands;
#   2. a repository-local ./memgate run by the pre-push hook;
#   3. a blob of zeros that costs memory before the size limit applies;
#   4. legacy ##[ commands in --format json (and in usage errors);
#   5. a loosened policy on merge_group, push and other events;
#   6. output paths that are symlinks, devices and FIFOs;
#   7. a failing destination after others were written;
#   8. a record many times the size of its report.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
MAXRSS=$(dirname "$MEMGATE")/tests/maxrss
MARK=$T/marks     # every trap below touches a file here if it ever runs
mkdir -p "$MARK"
expect_no_marks() { # expect_no_marks DESC
	if [ -n "$(ls -A "$MARK")" ]; then not_ok "$1" "ran: $(ls -A "$MARK" | tr '\n' ' ')"; else ok "$1"; fi
}

# --- 1. a planted repository with a config that runs commands ------------

# upstream: the base commit (the real policy: tune, the gate fails), then a
# pull request that loosens the policy (its own policy would accept) and
# commits a bare repository as plain files under ml/: its evidence accepts,
# and its config runs a command on fetch (uploadpack), on index refresh
# (fsmonitor) and from hooks (hooksPath).
up=$T/upstream
make_gate_repo "$up" "$E/real-flat-11200.yml" "$FLAT"
base=$(g -C "$up" rev-parse HEAD)
# The planted repository has its own history (it lacks the base commit, so
# the old step fetched "origin" with its config).
work=$T/evil-work
sed 's/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' "$E/real-flat-11200.yml" >"$T/evil.yml"
make_gate_repo "$work" "$T/evil.yml" "$FLAT"
g clone -q --bare "$work" "$T/evil.git"
sed -i -e 's/memory_cap_mb: 11200/memory_cap_mb: 20000/' -e 's/min_memory_saving_mb: 512/min_memory_saving_mb: 100/' \
	-e '/^sensitivity:/,/^    min_samples_per_s:/d' "$up/.memgate.yml"
cp -R "$T/evil.git" "$up/ml"
mkdir -p "$up/ml/hooks" "$up/ml/refs/tags"
for h in reference-transaction post-checkout fsmonitor-watchman pre-auto-gc; do
	printf '#!/bin/sh\ntouch "%s/hook-%s"\n' "$MARK" "$h" >"$up/ml/hooks/$h"
	chmod +x "$up/ml/hooks/$h"
done
touch "$up/ml/refs/tags/.keep" "$up/ml/objects/info/.keep"
cat >>"$up/ml/config" <<EOF
[core]
	fsmonitor = touch $MARK/fsmonitor; false
	hooksPath = $T/pr/ml/hooks
[remote "origin"]
	url = file://$T/evil.git
	uploadpack = touch $MARK/uploadpack; git-upload-pack
	fetch = +refs/heads/*:refs/remotes/origin/*
[credential]
	helper = !touch $MARK/credential-helper
EOF
commit_all "$up" "loosen the budget, plant ml/"
g clone -q --depth=1 "file://$up" "$T/pr" 2>/dev/null
pr=$T/pr
if [ -f "$pr/ml/HEAD" ] && [ -d "$pr/ml/objects" ] && ! g -C "$pr" cat-file -e "$base^{commit}" 2>/dev/null; then
	ok "1: the checkout holds a planted bare repository under ml/ and lacks the base commit"
else
	not_ok "1: the checkout holds a planted bare repository under ml/ and lacks the base commit"
fi
# The attack needs git to take ml/ for a repository; it does.
if (cd "$pr/ml" && git rev-parse --is-bare-repository 2>/dev/null) | grep -qx true; then
	ok "1: git alone discovers ml/ as a repository"
else
	not_ok "1: git alone discovers ml/ as a repository"
fi

# The workflow says working-directory: ml.
: >"$T/gh-output"
action_step resolve "$pr" MEMGATE_DIR=ml MEMGATE_PR_BASE="$base" \
	GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=upstream
expect_code 0 "1: the policy step succeeds with working-directory: ml"
expect_err "memgate: fetching the policy commit $base" "1: it fetches the base commit"
expect_no_marks "1: no command from the planted config or hooks ran"
if g -C "$pr" cat-file -e "$base^{commit}" 2>/dev/null; then
	ok "1: the base commit was fetched into the checkout, not into ml/"
else
	not_ok "1: the base commit was fetched into the checkout, not into ml/"
fi
if [ "$(action_policy_rev)" = "$base" ]; then ok "1: policy-rev is the base commit"; else not_ok "1: policy-rev is the base commit"; fi
action_step check "$pr" MEMGATE_DIR=ml MEMGATE_POLICY_REV="$base"
expect_code 1 "1: the check gates the checkout with the base policy (tune fails)"
expect_out "::error file=.memgate.yml," "1: the decision is annotated on the checkout's policy"
if grep -qx 'decision=tune' "$T/gh-output"; then ok "1: the step output is the checkout's decision"; else not_ok "1: the step output is the checkout's decision" "$(cat "$T/gh-output")"; fi
expect_no_marks "1: still no command ran"
# memgate alone refuses the planted repository, from inside it or with -C.
mg check -C "$pr/ml"
expect_code 2 "1: memgate -C ml refuses the planted repository"
expect_err "memgate: error: refusing repository '$pr/ml': its git directory '$pr/ml/' lies inside the working tree of '$pr'" \
	"1: and says why"
(cd "$pr/ml/refs" && ${MEMGATE_WRAP:-} "$MEMGATE" check) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "1: memgate run from inside ml/ refuses it too"
# The action never disables git's ownership check wholesale.
if grep -rnE "safe\.directory=('\*'|\"\*\"|\*)" "$SRC/action.yml" "$SRC/actions" >"$T/hits"; then
	not_ok "1: no safe.directory='*' in the action" "$(cat "$T/hits")"
else
	ok "1: no safe.directory='*' in the action"
fi

# --- 2. a repository-local ./memgate and the pre-push hook --------------

repo=$T/hook
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
printf '#!/bin/sh\ntouch "%s/local-memgate"\nexit 0\n' "$MARK" >"$repo/memgate"
mkdir -p "$repo/bin"
cp "$repo/memgate" "$repo/bin/memgate"
chmod +x "$repo/memgate" "$repo/bin/memgate"
commit_all "$repo" "an executable memgate that passes everything"
g init -q --bare "$T/hook-remote.git"
g -C "$repo" remote add origin "$T/hook-remote.git"
cp "$SRC/actions/pre-push" "$repo/.git/hooks/pre-push"
chmod +x "$repo/.git/hooks/pre-push"
sysbin=$(dirname "$(command -v git)")
for path in ".:$sysbin:/usr/bin:/bin" ":$sysbin:/usr/bin:/bin" "bin:$sysbin:/usr/bin:/bin"; do
	(cd "$repo" && unset MEMGATE && PATH=$path g push -q origin main) >"$T/out" 2>"$T/err"
	code=$?
	expect_code 1 "2: PATH=$path: the push is refused"
	expect_err "cannot find memgate (set MEMGATE, or put memgate on PATH)" "2: PATH=$path: the repository's memgate is not found"
done
(cd "$repo" && unset MEMGATE && PATH=$repo/bin:$sysbin:/usr/bin:/bin g push -q origin main) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "2: a memgate inside the work tree, on an absolute PATH entry, is refused"
expect_err "refusing '$repo/bin/memgate': it is inside the repository being pushed" "2: and says why"
(cd "$repo" && MEMGATE=./memgate g push -q origin main) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "2: MEMGATE=./memgate is refused"
expect_err "MEMGATE must be an absolute path or a name on PATH, not './memgate'" "2: and says why"
expect_no_marks "2: the repository's memgate never ran"
if g -C "$T/hook-remote.git" rev-parse -q --verify refs/heads/main >/dev/null; then
	not_ok "2: nothing was pushed"
else
	ok "2: nothing was pushed"
fi
# The release gate does not run it either.
g -C "$repo" tag v1
(cd "$repo" && unset MEMGATE && PATH=.:$sysbin:/usr/bin:/bin sh "$SRC/actions/release-gate" v1) >"$T/out" 2>"$T/err"
code=$?
expect_no_marks "2: the release gate does not run the repository's memgate"
(cd "$repo" && MEMGATE=$repo/memgate sh "$SRC/actions/release-gate" v1) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "2: the release gate refuses a MEMGATE inside the repository"
expect_no_marks "2: still nothing ran"

# --- 3. a blob of zeros against the input size limit ---------------------

# 320 MiB of zeros is a few hundred KB in git.  memgate must refuse it
# before inflating it: for the report, the policy at --policy-rev and the
# approved record, packed or loose.
repo=$T/zeros
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
truncate -s 320M "$T/zeros.bin"
packed=$(g -C "$repo" -c core.bigFileThreshold=1m hash-object -w "$T/zeros.bin")
printf 'x' >>"$T/zeros.bin"
loose=$(g -C "$repo" hash-object -w "$T/zeros.bin")
rm -f "$T/zeros.bin"
if [ -f "$repo/.git/objects/${loose:0:2}/${loose:2}" ] && [ ! -f "$repo/.git/objects/${packed:0:2}/${packed:2}" ]; then
	ok "3: one blob is loose, the other packed"
else
	not_ok "3: one blob is loose, the other packed"
fi
size=$(du -sk "$repo/.git/objects" | cut -f1)
if [ "$size" -lt 8192 ]; then ok "3: both cost ${size} KiB in .git/objects"; else not_ok "3: the blobs are small in git" "$size KiB"; fi
g -C "$repo" update-index --add --cacheinfo "100644,$packed,$REPORT_PATH"
g -C "$repo" update-index --add --cacheinfo "100644,$loose,benchmarks/results/approved.json"
g -C "$repo" commit -q -m "zeros as the report and the approved record"
report_rev=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" update-index --add --cacheinfo "100644,$loose,.memgate.yml"
g -C "$repo" commit -q -m "zeros as the policy"
policy_rev=$(g -C "$repo" rev-parse HEAD)
g -C "$repo" reset -q --hard "$report_rev"
# the approved record: a manifest naming it (the report is fine here)
g -C "$repo" show "$report_rev~1:$REPORT_PATH" >"$repo/$REPORT_PATH"
cat >"$repo/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$(sha256sum "$repo/$REPORT_PATH" | cut -d' ' -f1)" },
  "approved_result": { "path": "benchmarks/results/approved.json", "sha256": "$(printf '%064d' 0)" }
}
JSON
g -C "$repo" add "$REPORT_PATH" "$MANIFEST_PATH"
g -C "$repo" commit -q -m "a manifest naming the zeros as approved record"
approved_rev=$(g -C "$repo" rev-parse HEAD)
rss_check() { # rss_check DESC PATH SIZE ARGS...: memgate refuses PATH of SIZE bytes, cheaply
	local desc=$1 path=$2 bytes=$3 kib
	shift 3
	(cd "$repo" && ${MEMGATE_WRAP:-} "$MAXRSS" "$T/rss" "$MEMGATE" check "$@") >"$T/out" 2>"$T/err"
	code=$?
	expect_code 2 "3: $desc is refused"
	expect_err "cannot read '$path' at " "3: $desc: the message names the file"
	expect_err "blob is $bytes bytes, more than the limit of 67108864 (raise it with --max-input-mb)" \
		"3: $desc: the message gives the size from the object header"
	kib=$(cat "$T/rss")
	if [ -n "${MEMGATE_WRAP:-}" ]; then
		ok "# SKIP 3: $desc: memory not measured under $MEMGATE_WRAP"
	elif [ "$kib" -lt 65536 ]; then
		ok "3: $desc costs $kib KiB of memory, less than 64 MiB"
	else
		not_ok "3: $desc costs less than 64 MiB of memory" "peak RSS $kib KiB"
	fi
}
rss_check "a packed 320 MiB report" "$REPORT_PATH" 335544320 --rev "$report_rev"
rss_check "a loose 320 MiB policy at --policy-rev" .memgate.yml 335544321 --rev "$approved_rev" --policy-rev "$policy_rev"
rss_check "a loose 320 MiB approved record" benchmarks/results/approved.json 335544321 --rev "$approved_rev" --require-approved
mg check -C "$repo" --rev "$approved_rev" --require-approved --format json --json "$T/zeros.json"
expect_code 2 "3: nothing is decided"
expect_no_file "$T/zeros.json" "3: and nothing is written"

# --- 4. legacy ##[ commands in every format ------------------------------

repo=$T/legacy
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
sed -i 's/"name": "offload"/"name": "##[add-mask]offload"/; s/"name": "hybrid"/"name": "x ##[stop-commands]abc ###[set-output name=decision]accept"/' "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "legacy command names"
for fmt in json text github; do
	(cd "$repo" && GITHUB_ACTIONS=true ${MEMGATE_WRAP:-} "$MEMGATE" check --format "$fmt" --json "$T/legacy.json") >"$T/out" 2>"$T/err"
	code=$?
	expect_code 1 "4: --format $fmt decides"
	cat "$T/out" "$T/err" "$T/legacy.json" >"$T/log"
	expect_runner_safe "$T/log" "4: --format $fmt: stdout, stderr and the record run no command"
done
if [ "$("$JSONGET" "$T/legacy.json" evaluations.2.name)" = '"##[add-mask]offload"' ]; then
	ok "4: the record still holds the name itself"
else
	not_ok "4: the record still holds the name itself" "$("$JSONGET" "$T/legacy.json" evaluations.2.name)"
fi
mg check -C "$repo" --format '##[add-mask]x' --fail-on '##[error]y'
cat "$T/out" "$T/err" >"$T/log"
expect_runner_safe "$T/log" "4: usage errors quote arguments safely"
mg check -C "$repo" '##[set-output name=a]b' --'##[error]z'
cat "$T/out" "$T/err" >"$T/log"
expect_runner_safe "$T/log" "4: unknown options and arguments are quoted safely"
mg check -C "$repo" --policy '##[error]p.yml'
expect_code 2 "4: a missing policy named with ##[ is an error"
cat "$T/out" "$T/err" >"$T/log"
expect_runner_safe "$T/log" "4: and the error quotes it safely"

# --- 5. a loosened policy on events other than pull_request ---------------

# The base commit fails the gate (tune); the head only drops tune from
# gate.fail_on, so its own policy passes.
up=$T/events
make_gate_repo "$up" "$E/real-flat-11200.yml" "$FLAT"
base=$(g -C "$up" rev-parse HEAD)
sed -i 's/^  fail_on: .*/  fail_on: [reject]/' "$up/.memgate.yml"
commit_all "$up" "fail on reject only"
g clone -q --depth=1 "file://$up" "$T/events-checkout" 2>/dev/null
co=$T/events-checkout
SERVER=(GITHUB_SERVER_URL="file://$T" GITHUB_REPOSITORY=events)
action_step check "$co"
expect_code 0 "5: the head's own policy passes"
# event VAR=VALUE...: resolve then check; $code is the check's
event() {
	: >"$T/gh-output"
	action_step resolve "$co" "${SERVER[@]}" "$@"
	cp "$T/out" "$T/resolve-out"
	[ "$code" = 0 ] || return 0
	action_step check "$co" MEMGATE_POLICY_REV="$(action_policy_rev)"
}
event MEMGATE_EVENT=merge_group MEMGATE_MERGE_GROUP_BASE="$base"
expect_code 1 "5: merge_group: the merge group's base policy fails the loosened head"
if grep -qx 'decision=tune' "$T/gh-output" && grep -qx 'passed=false' "$T/gh-output"; then ok "5: merge_group: outputs say tune, not passed"; else not_ok "5: merge_group: outputs" "$(cat "$T/gh-output")"; fi
event MEMGATE_EVENT=push MEMGATE_PUSH_BEFORE="$base"
expect_code 1 "5: push: the policy before the push fails the loosened head"
event MEMGATE_EVENT=push MEMGATE_PUSH_BEFORE=0000000000000000000000000000000000000000
expect_code 0 "5: push creating a ref: no earlier policy, the head's own decides"
if grep -qF "::notice::memgate: this push created the ref, so there is no earlier commit: the policy comes from the evidence commit itself" "$T/resolve-out"; then
	ok "5: push creating a ref: a notice says where the policy comes from"
else
	not_ok "5: push creating a ref: a notice says where the policy comes from" "$(cat "$T/resolve-out")"
fi
event MEMGATE_EVENT=workflow_dispatch
expect_code 0 "5: workflow_dispatch: no base commit"
if grep -qF "::notice::memgate: event 'workflow_dispatch' has no base commit: the policy comes from the evidence commit itself" "$T/resolve-out"; then
	ok "5: workflow_dispatch: a notice says so"
else
	not_ok "5: workflow_dispatch: a notice says so" "$(cat "$T/resolve-out")"
fi
event MEMGATE_EVENT=workflow_dispatch MEMGATE_POLICY_REV="$base"
expect_code 1 "5: workflow_dispatch with policy-rev: the given commit's policy decides"
event MEMGATE_EVENT=pull_request MEMGATE_PR_BASE="$base"
expect_code 1 "5: pull_request: the base policy decides"
event MEMGATE_EVENT=merge_group MEMGATE_MERGE_GROUP_BASE='HEAD'
expect_code 2 "5: a merge group base that is not a commit id is refused"

# --- 6. output paths that are not regular files ---------------------------

repo=$T/outputs
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
out=$T/out-dir
mkdir -p "$out"
export SECRET_TOKEN=memgate-secret-in-the-environment
ln -s /proc/self/environ "$out/x.md"
mg check -C "$repo" --summary "$out/x.md"
expect_code 2 "6: --summary onto a symlink to /proc/self/environ is refused"
expect_err "x.md: cannot write: it is a symlink (memgate writes regular files only, and never through a symlink)" "6: and says it is a symlink"
if [ -L "$out/x.md" ] && ! grep -rqs "$SECRET_TOKEN" "$out" "$T/out" "$T/err"; then
	ok "6: the environment was not copied anywhere"
else
	not_ok "6: the environment was not copied anywhere"
fi
unset SECRET_TOKEN
printf 'old\n' >"$out/target.md"
ln -s "$out/target.md" "$out/link.md"
mg check -C "$repo" --summary "$out/link.md"
expect_code 2 "6: --summary onto a symlink to a regular file is refused"
if [ "$(cat "$out/target.md")" = old ]; then ok "6: its target is untouched"; else not_ok "6: its target is untouched"; fi
printf '#!/bin/sh\n' >"$out/tool"
chmod 755 "$out/tool"
ln -s "$out/tool" "$out/exe.json"
mg check -C "$repo" --json "$out/exe.json"
expect_code 2 "6: --json onto a symlink to a 0755 file is refused"
if [ -L "$out/exe.json" ] && [ "$(cat "$out/tool")" = '#!/bin/sh' ]; then ok "6: the link and its target are untouched"; else not_ok "6: the link and its target are untouched"; fi
if [ "$(id -u)" = 0 ] && mknod "$out/device" c 1 3 2>/dev/null; then
	mg check -C "$repo" --json "$out/device"
	expect_code 2 "6: --json onto a character device is refused"
	expect_err "device: cannot write: it is a device" "6: and says it is a device"
	if [ -c "$out/device" ]; then ok "6: the device is still a device"; else not_ok "6: the device is still a device"; fi
else
	ok "# SKIP 6: cannot make a device node (not root)"
fi
mkfifo "$out/fifo"
timeout 20 ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --summary "$out/fifo" >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "6: --summary onto a FIFO is refused at once"
mkdir "$out/dir.json"
mg check -C "$repo" --json "$out/dir.json"
expect_code 2 "6: --json onto a directory is refused"
expect_err "dir.json: cannot write: it is a directory" "6: and says it is a directory"
# New files: 0644 under the umask; a replaced file keeps its bits, less x.
(umask 022 && ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --json "$out/new.json" --junit "$out/new.xml" --summary "$out/new.md") >/dev/null 2>&1
(umask 077 && ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --json "$out/private.json") >/dev/null 2>&1
printf 'old\n' >"$out/exec.json"
chmod 0755 "$out/exec.json"
(umask 022 && ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --json "$out/exec.json") >/dev/null 2>&1
modes=$(stat -c '%a' "$out/new.json" "$out/new.xml" "$out/new.md" "$out/private.json" "$out/exec.json" | tr '\n' ' ')
if [ "$modes" = "644 644 644 600 644 " ]; then
	ok "6: modes: new files 0644 under the umask, no execute bit kept"
else
	not_ok "6: modes: new files 0644 under the umask, no execute bit kept" "got: $modes"
fi
# The runner's own files are appended to in place, whatever they are.
ln -s "$out/runner-summary.real" "$out/runner-summary"
printf '## before\n' >"$out/runner-summary.real"
# A character device of the test's own (never the machine's /dev/null: were
# memgate ever to replace the file instead of appending, it would replace
# that device for every process on the machine).
devnull=/dev/null
if [ "$(id -u)" = 0 ] && mknod "$T/devnull" c 1 3 2>/dev/null && : 2>/dev/null >>"$T/devnull"; then
	devnull=$T/devnull
fi
(cd "$repo" && GITHUB_STEP_SUMMARY=$out/runner-summary GITHUB_OUTPUT=$devnull ${MEMGATE_WRAP:-} "$MEMGATE" check) >"$T/out" 2>"$T/err"
code=$?
expect_code 1 "6: GITHUB_STEP_SUMMARY through a symlink and GITHUB_OUTPUT=/dev/null work"
if [ -L "$out/runner-summary" ] && head -1 "$out/runner-summary.real" | grep -qx '## before' &&
   grep -q 'tune' "$out/runner-summary.real"; then
	ok "6: the runner's summary is appended to in place"
else
	not_ok "6: the runner's summary is appended to in place"
fi

# --- 7. a failing destination leaves nothing behind -----------------------

cd7=$T/seven
mkdir -p "$cd7/isdir"
printf 'old json\n' >"$cd7/a.json"
printf '## old summary\n' >"$cd7/s.md"
ino=$(stat -c %i "$cd7/a.json")
(cd "$cd7" && ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --json a.json --summary s.md --junit isdir) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "7: --junit onto a directory fails the run"
if [ "$(cat "$cd7/a.json")" = 'old json' ] && [ "$(stat -c %i "$cd7/a.json")" = "$ino" ] &&
   [ "$(cat "$cd7/s.md")" = '## old summary' ]; then
	ok "7: a.json and s.md are untouched"
else
	not_ok "7: a.json and s.md are untouched"
fi
# A failure after files were renamed and appended: GITHUB_OUTPUT on a full
# device.  Everything is rolled back.
(cd "$cd7" && GITHUB_OUTPUT=/dev/full ${MEMGATE_WRAP:-} "$MEMGATE" check -C "$repo" --json a.json --junit new.xml --summary s.md) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "7: a full GITHUB_OUTPUT fails the run"
expect_err "/dev/full: cannot write: No space left on device" "7: and names it"
if [ "$(cat "$cd7/a.json")" = 'old json' ] && [ "$(cat "$cd7/s.md")" = '## old summary' ] && [ ! -e "$cd7/new.xml" ]; then
	ok "7: the replaced file is put back, the appended one truncated, the new one removed"
else
	not_ok "7: everything is rolled back" "$(ls -la "$cd7")"
fi
if [ "$(ls -A "$cd7" | tr '\n' ' ')" = "a.json isdir s.md " ]; then ok "7: no temporary file is left"; else not_ok "7: no temporary file is left" "$(ls -A "$cd7")"; fi
mg check -C "$repo" --json "$cd7/a.json" --summary "$cd7/s.md" --junit "$cd7/j.xml"
expect_code 1 "7: with every destination fine, all are written"
if grep -q '"decision"' "$cd7/a.json" && head -1 "$cd7/s.md" | grep -qx '## old summary' && [ -s "$cd7/j.xml" ]; then
	ok "7: the record replaced, the summary appended, the report written"
else
	not_ok "7: the record replaced, the summary appended, the report written"
fi

# --- 8. the record's size --------------------------------------------------

# 1,024 candidates with 256-byte names of control bytes, and a 63-value grid:
# every candidate feasible in every scenario.
repo=$T/big-record
mkdir -p "$repo/benchmarks/results"
g init -q "$repo"
{
	printf '{"workload_id":"w","hardware_id":"h","candidates":[\n'
	ctl=$(for r in 1 2 3 4 5 6 7 8 9; do printf '\\u00%02x' $(seq 1 31); done | head -c 1512)   # 252 escaped control bytes
	i=0
	while [ $i -lt 1024 ]; do
		[ $i -eq 0 ] || printf ',\n'
		if [ $i -eq 0 ]; then n=baseline; else n=$(printf "%04d" $i)$ctl; fi
		printf '{"name":"%s","peak_memory_mb":%d,"samples_per_s":2}' "$n" $((1000 + i))
		i=$((i + 1))
	done
	printf ']}\n'
} >"$repo/$REPORT_PATH"
{
	printf 'version: 1\nreport: %s\nidentity: { workload_id: w, hardware_id: h }\n' "$REPORT_PATH"
	printf 'budget: { memory_cap_mb: 100000 }\nsensitivity:\n  grid:\n    memory_cap_mb: ['
	seq -s, 3000 100 9200 | tr -d '\n'
	printf ']\n'
} >"$repo/.memgate.yml"
commit_all "$repo" "a large report and grid"
mg check -C "$repo" --format json --fail-on none --json "$T/record.json"
expect_code 0 "8: the record is written"
report_size=$(stat -c %s "$repo/$REPORT_PATH")
record_size=$(stat -c %s "$T/record.json")
bound=$((6 * report_size + 4194304))
if [ "$("$JSONGET" "$T/record.json" sensitivity.summary.scenario_count)" = 63 ] &&
   [ "$("$JSONGET" "$T/record.json" sensitivity.scenarios.62.best_index)" = 0 ]; then
	ok "8: 63 scenarios, each naming its winner by index"
else
	not_ok "8: 63 scenarios, each naming its winner by index"
fi
if [ "$record_size" -le "$bound" ]; then
	ok "8: the record ($record_size bytes) is within 6 x the report ($report_size bytes) + 4 MiB"
else
	not_ok "8: the record is within 6 x the report + 4 MiB" "record $record_size, report $report_size"
fi
# The scenario limit at its worst: 16 candidates in a 64 x 64 grid, every
# candidate feasible in every one of the 4,096 scenarios.
repo=$T/many-scenarios
mkdir -p "$repo/benchmarks/results"
g init -q "$repo"
{
	printf '{"workload_id":"w","hardware_id":"h","candidates":['
	for i in $(seq 0 15); do
		[ $i -eq 0 ] || printf ','
		printf '{"name":"c%d","peak_memory_mb":%d,"samples_per_s":2,"eval_loss":1}' $i $((1000 + i))
	done
	printf ']}\n'
} >"$repo/$REPORT_PATH"
{
	printf 'version: 1\nreport: %s\nidentity: { workload_id: w, hardware_id: h }\n' "$REPORT_PATH"
	printf 'budget: { memory_cap_mb: 100000 }\nsensitivity:\n  grid:\n    memory_cap_mb: ['
	seq -s, 5000 1 5063 | tr -d '\n'
	printf ']\n    max_eval_loss: ['
	seq -s, 2 1 65 | tr -d '\n'
	printf ']\n'
} >"$repo/.memgate.yml"
commit_all "$repo" "the largest grid"
mg check -C "$repo" --format json --fail-on none --json "$T/record.json"
expect_code 0 "8: 4096 scenarios are recorded"
report_size=$(stat -c %s "$repo/$REPORT_PATH")
record_size=$(stat -c %s "$T/record.json")
bound=$((6 * report_size + 4194304))
if [ "$record_size" -le "$bound" ]; then
	ok "8: 4096 scenarios x 16 candidates: the record ($record_size bytes) is within 6 x the report + 4 MiB"
else
	not_ok "8: 4096 scenarios x 16 candidates: within 6 x the report + 4 MiB" "record $record_size, report $report_size"
fi

finish
