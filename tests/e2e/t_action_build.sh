#!/usr/bin/env bash
# How the Action gets its memgate binary: actions/install-deps installs no
# test framework in --build-only mode (and only shared libraries with
# --runtime, for a cached binary); the binary is cached with actions/cache,
# keyed on a hash of memgate's sources and the runner image; on a hit the
# install and the compile are skipped when the cached binary runs.  The
# step scripts are taken from action.yml and run as the runner runs them,
# with apt-get, dpkg-query, make and install-deps replaced by stubs that log.
. "$(dirname "$0")/lib.sh"

ACTION=$SRC/action.yml
DEPS=$SRC/actions/install-deps

# --- actions/install-deps ------------------------------------------------

# Stubs: nothing is installed (dpkg-query), we are root (id), apt-get and
# apt-cache log or answer as Debian 12's would.
mkdir -p "$T/stubs"
cat >"$T/stubs/dpkg-query" <<'SH'
#!/bin/sh
[ -n "${STUB_INSTALLED:-}" ] && echo installed
exit 1
SH
cat >"$T/stubs/id" <<'SH'
#!/bin/sh
echo 0
SH
cat >"$T/stubs/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
SH
cat >"$T/stubs/apt-cache" <<'SH'
#!/bin/sh
# apt-cache depends PKG, as Debian 12 answers it
case $2 in
libgit2-dev) printf 'libgit2-dev\n  Depends: libgit2-1.5\n  Depends: zlib1g-dev\n' ;;
libcjson-dev) printf 'libcjson-dev\n  Depends: libcjson1\n' ;;
libssl-dev) printf 'libssl-dev\n  Depends: libssl3\n' ;;
libyaml-dev) printf 'libyaml-dev\n  Depends: libyaml-0-2\n' ;;
esac
SH
chmod +x "$T/stubs"/*
deps() { # deps ARGS...: run install-deps with the stubs; $T/apt.log gets apt-get's calls
	: >"$T/apt.log"
	PATH="$T/stubs:$PATH" STUB_LOG=$T/apt.log sh "$DEPS" "$@" >"$T/out" 2>"$T/err"
	code=$?
}
installed() { grep '^apt-get install' "$T/apt.log" | head -n 1; }
expect_installs() { # expect_installs PKG DESC
	if installed | grep -qw -- "$1"; then ok "$2"; else not_ok "$2" "apt-get: $(installed)"; fi
}
expect_not_installs() {
	if installed | grep -qw -- "$1"; then not_ok "$2" "apt-get: $(installed)"; else ok "$2"; fi
}

deps
expect_code 0 "install-deps (build and test)"
expect_installs libcriterion-dev "installs Criterion for the tests"
expect_installs libgit2-dev "and the build dependencies"
deps --build-only
expect_code 0 "install-deps --build-only"
expect_not_installs libcriterion-dev "--build-only installs no Criterion"
for p in libgit2-dev libcjson-dev libssl-dev libyaml-dev pkg-config; do
	expect_installs "$p" "--build-only installs $p"
done
deps --runtime
expect_code 0 "install-deps --runtime"
expect_installs libgit2-1.5 "--runtime installs the libgit2 shared library"
expect_installs libcjson1 "--runtime installs libcjson1"
expect_not_installs libgit2-dev "--runtime installs no headers"
expect_not_installs libcriterion-dev "--runtime installs no Criterion"
STUB_INSTALLED=1 deps --build-only
expect_code 0 "install-deps with everything installed"
if [ -s "$T/apt.log" ]; then not_ok "nothing missing: no apt-get at all"; else ok "nothing missing: no apt-get at all"; fi
deps --bogus
expect_code 2 "an unknown option"

# --- the action's steps -------------------------------------------------

# step_script ID: the run: | block of the step with id: ID.
step_script() {
	awk -v id="$1" '
	/^    - name:/ { cur = ""; inrun = 0 }
	/^      id:/ { cur = $2 }
	inrun { if ($0 ~ /^        / || $0 ~ /^[ \t]*$/) { sub(/^        /, ""); print; next } inrun = 0 }
	/^      run: \|/ && cur == id { inrun = 1 }
	' "$ACTION"
}
for id in build-key deps build; do
	step_script "$id" >"$T/step-$id.sh"
	if [ -s "$T/step-$id.sh" ]; then ok "action.yml has the step '$id'"; else not_ok "action.yml has the step '$id'"; fi
done
if grep -qxF '      uses: actions/cache@v4' "$ACTION" &&
   grep -qxF '        path: ${{ github.action_path }}/memgate' "$ACTION" &&
   grep -qxF '        key: ${{ steps.build-key.outputs.key }}' "$ACTION"; then
	ok "actions/cache keeps the built binary under the computed key"
else
	not_ok "actions/cache keeps the built binary under the computed key"
fi
if [ "$(grep -cxF '        MEMGATE_CACHE_HIT: ${{ steps.build-cache.outputs.cache-hit }}' "$ACTION")" = 2 ]; then
	ok "the install and build steps read the cache hit through env:"
else
	not_ok "the install and build steps read the cache hit through env:"
fi

# A stand-in for the action's directory: memgate's sources, a stub
# install-deps that logs its arguments, and (when cached) a memgate.
AP=$T/action
mkdir -p "$AP/actions"
cp -R "$SRC/Makefile" "$SRC/plugin" "$SRC/include" "$AP/"
cat >"$AP/actions/install-deps" <<'SH'
#!/bin/sh
echo "install-deps $*" >>"$STUB_LOG"
SH
cat >"$T/stubs/make" <<'SH'
#!/bin/sh
echo "make $*" >>"$STUB_LOG"
SH
chmod +x "$AP/actions/install-deps" "$T/stubs/make"

# run_step ID [VAR=VALUE...]: as the runner runs a step; $T/log gets the
# stubs' calls, $T/github-output the outputs.
run_step() {
	local id=$1
	shift
	: >"$T/log"
	: >"$T/github-output"
	(cd "$T" && env -i PATH="$T/stubs:$PATH" HOME="${HOME:-/tmp}" \
		GITHUB_ACTIONS=true GITHUB_ACTION_PATH="$AP" GITHUB_OUTPUT="$T/github-output" \
		RUNNER_OS=Linux RUNNER_ARCH=X64 ImageOS=ubuntu24 ImageVersion=20250101.1 \
		STUB_LOG="$T/log" "$@" \
		bash --noprofile --norc -eo pipefail "$T/step-$id.sh") >"$T/out" 2>"$T/err"
	code=$?
}
key() { sed -n 's/^key=//p' "$T/github-output"; }

run_step build-key
expect_code 0 "the key step"
k1=$(key)
if [[ "$k1" =~ ^memgate-bin-Linux-X64-ubuntu24-20250101.1-[0-9a-f]{16}$ ]]; then
	ok "the key names the runner image and a hash of the sources ($k1)"
else
	not_ok "the key names the runner image and a hash of the sources" "key: $k1"
fi
run_step build-key
if [ "$(key)" = "$k1" ]; then ok "the same sources give the same key"; else not_ok "the same sources give the same key"; fi
run_step build-key ImageVersion=20250201.1
if [ "$(key)" != "$k1" ]; then ok "another runner image version gives another key"; else not_ok "another runner image version gives another key"; fi
run_step build-key RUNNER_ARCH=ARM64
if [ "$(key)" != "$k1" ]; then ok "another architecture gives another key"; else not_ok "another architecture gives another key"; fi
echo "/* changed */" >>"$AP/plugin/cli/main.c"
run_step build-key
if [ "$(key)" != "$k1" ]; then ok "a changed source file gives another key"; else not_ok "a changed source file gives another key"; fi
run_step build-key ImageOS= ImageVersion='a b/c'
if [[ "$(key)" =~ ^memgate-bin-Linux-X64-self-hosted-a_b_c-[0-9a-f]{16}$ ]]; then
	ok "a self-hosted runner's key is safe text"
else
	not_ok "a self-hosted runner's key is safe text" "key: $(key)"
fi

# No cache hit: build dependencies (no Criterion), then make.
run_step deps MEMGATE_CACHE_HIT=
expect_code 0 "deps step without a cache hit"
if grep -qx "install-deps --build-only" "$T/log"; then ok "no hit: install-deps --build-only"; else not_ok "no hit: install-deps --build-only" "$(cat "$T/log")"; fi
run_step build MEMGATE_CACHE_HIT=
expect_code 0 "build step without a cache hit"
if grep -qx "make -C $AP -j[0-9]* memgate" "$T/log"; then ok "no hit: make memgate"; else not_ok "no hit: make memgate" "$(cat "$T/log")"; fi

# A hit whose binary runs: only shared libraries (none when present), no make.
cat >"$AP/memgate" <<SH
#!/bin/sh
exec "$MEMGATE" "\$@"
SH
chmod +x "$AP/memgate"
run_step deps MEMGATE_CACHE_HIT=true
if grep -qx "install-deps --runtime" "$T/log"; then ok "hit: install-deps --runtime only"; else not_ok "hit: install-deps --runtime only" "$(cat "$T/log")"; fi
run_step build MEMGATE_CACHE_HIT=true
expect_code 0 "build step with a cache hit"
if [ -s "$T/log" ]; then not_ok "hit: no install and no make" "$(cat "$T/log")"; else ok "hit: no install and no make"; fi
expect_out "memgate: using the cached build (memgate " "says it uses the cached build"

# A hit whose binary does not run here: rebuilt.
printf '#!/bin/sh\nexit 127\n' >"$AP/memgate"
run_step build MEMGATE_CACHE_HIT=true
expect_code 0 "build step with a cached binary that does not run"
if [[ "$(tr '\n' ';' <"$T/log")" =~ ^"install-deps --build-only;make -C $AP -j"[0-9]+" memgate;"$ ]]; then
	ok "a cached binary that does not run is rebuilt"
else
	not_ok "a cached binary that does not run is rebuilt" "$(cat "$T/log")"
fi
expect_err "the cached build does not run on this runner; building it" "and says so"

finish
