#!/usr/bin/env bash
# make install / make uninstall with PREFIX and DESTDIR, as a packager runs
# them: the installed binary gates a repository as the built one does, the
# installed hook installs and runs the installed memgate, make install-hook
# says where an installed memgate is when PATH lacks it, and
# `pkg-config --cflags --libs memgate` compiles and links a C program
# against the installed libmemgate.a, and a policy validates against the
# installed JSON Schema.  It builds its own copy (BUILD in the scratch
# directory): under the sanitizers or valgrind it is skipped, as it tests
# the build, not the binary under test.
. "$(dirname "$0")/lib.sh"

if [ -n "${MEMGATE_WRAP:-}" ] || [ -n "${MG_SANITIZED:-}" ]; then
	echo "# skip t_install.sh under ${MEMGATE_WRAP:+valgrind}${MG_SANITIZED:+the sanitizers}"
	finish
	exit 0
fi

dest=$T/dest prefix=/opt/memgate-test
top=$dest$prefix
# A make of our own: not the MAKEFLAGS (WERROR, -j) of a make that runs us.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SRC" BUILD="$T/build" "$@"; }

mk -j2 PREFIX=$prefix DESTDIR="$dest" install >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "make install PREFIX=$prefix DESTDIR=..."
missing=
for f in bin/memgate share/memgate/pre-push share/memgate/release-gate \
	share/memgate/install-hook share/memgate/schema/policy.schema.json \
	share/memgate/schema/record.schema.json share/memgate/schema/approval.schema.json \
	include/memgate.h include/memgate/decision.h \
	include/memgate/version.h lib/libmemgate.a lib/pkgconfig/memgate.pc; do
	[ -f "$top/$f" ] || missing="$missing $f"
done
[ -x "$top/bin/memgate" ] && [ -x "$top/share/memgate/pre-push" ] || missing="$missing (executable bits)"
if [ -z "$missing" ]; then ok "every file is under DESTDIR/PREFIX"; else not_ok "installed files" "missing:$missing"; fi
if [ -e "$SRC/plugin/cli/memgate.1" ]; then
	if [ -f "$top/share/man/man1/memgate.1" ]; then ok "the man page is installed"; else not_ok "the man page is not installed"; fi
	# `man memgate` finds it under the prefix and shows the reference.
	if command -v man >/dev/null 2>&1; then
		if MANWIDTH=80 man -M "$top/share/man" memgate 2>"$T/err" | grep -q '^HOW MEMGATE DECIDES$'; then
			ok "man memgate shows the installed page"
		else
			not_ok "man memgate shows the installed page" "$(cat "$T/err")"
		fi
	fi
fi
# The JSON Schemas, under share/memgate/schema, as shipped: a validator
# reads a policy with the installed one.
for f in policy record; do
	if cmp -s "$SRC/include/memgate/schema/$f.schema.json" "$top/share/memgate/schema/$f.schema.json"; then
		ok "share/memgate/schema/$f.schema.json is the shipped schema"
	else
		not_ok "share/memgate/schema/$f.schema.json is the shipped schema"
	fi
done
if python3 -c 'import jsonschema, yaml' 2>/dev/null; then
	python3 - "$top/share/memgate/schema/policy.schema.json" "$FIX/demo/memgate.yml" >"$T/out" 2>"$T/err" <<'PY'
import json, sys, jsonschema, yaml
jsonschema.validate(yaml.safe_load(open(sys.argv[2])), json.load(open(sys.argv[1])))
PY
	code=$?
	expect_code 0 "the demo's policy validates against the installed policy schema"
else
	ok "# SKIP python3-jsonschema or python3-yaml not installed"
fi
if grep -qx "prefix=$prefix" "$top/lib/pkgconfig/memgate.pc"; then
	ok "memgate.pc names PREFIX, not DESTDIR"
else
	not_ok "memgate.pc prefix" "$(cat "$top/lib/pkgconfig/memgate.pc")"
fi

# The installed binary decides the demo repository as the binary under test.
"$FIX/demo/make-repo" "$T/demo" "$MEMGATE" >/dev/null 2>&1
"$MEMGATE" check -C "$T/demo" >"$T/want" 2>&1
want=$?
"$top/bin/memgate" check -C "$T/demo" >"$T/out" 2>"$T/err"
code=$?
if [ "$code" = "$want" ] && cmp -s "$T/want" "$T/out"; then
	ok "the installed memgate gates the demo as the built one (exit $code)"
else
	not_ok "installed memgate" "expected exit $want and the built binary's output"
fi

# The installed install-hook installs the hook; it finds memgate on PATH.
g init -q "$T/repo"
env -u MEMGATE GIT_DIR="$T/repo/.git" PATH="$top/bin:$PATH" sh "$top/share/memgate/install-hook" \
	>"$T/out" 2>"$T/err"
code=$?
expect_code 0 "the installed install-hook"
expect_out "installed $T/repo/.git/hooks/pre-push" "it installs the installed pre-push hook"
expect_out "the hook runs $top/bin/memgate" "it names the memgate the hook will run"
if cmp -s "$top/share/memgate/pre-push" "$T/repo/.git/hooks/pre-push"; then
	ok "the hook is the installed one"
else
	not_ok "the installed hook differs from share/memgate/pre-push"
fi

# The hook runs the installed memgate on a push: the demo's gate fails, so
# the push of its commit is refused, with memgate's reasons.
g init -q --bare "$T/remote.git"
g -C "$T/demo" remote add origin "$T/remote.git"
cp "$T/repo/.git/hooks/pre-push" "$T/demo/.git/hooks/pre-push"
env -u MEMGATE PATH="$top/bin:$PATH" git -C "$T/demo" push -q origin HEAD:refs/heads/main \
	>"$T/out" 2>"$T/err"
code=$?
if [ "$want" = 1 ]; then
	expect_code 1 "the installed hook refuses the demo's push with the installed memgate"
	expect_err "fails the gate; the push is refused" "and says so"
else
	expect_code 0 "the installed hook passes the demo's push"
fi

# make install-hook with memgate installed but not on PATH: says where it is.
g init -q "$T/repo2"
env -u MEMGATE GIT_DIR="$T/repo2/.git" PATH=/usr/bin:/bin make -s -C "$SRC" \
	PREFIX="$top" install-hook >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "make install-hook without memgate on PATH"
expect_err "memgate is installed as $top/bin/memgate, but $top/bin is not on PATH" \
	"it names the installed memgate"
expect_err "set MEMGATE=$top/bin/memgate" "and how to make the hook find it"

# pkg-config links a C program against the installed library.
cat >"$T/prog.c" <<'C'
#include <stdio.h>
#include <memgate.h>

int main(void)
{
	mg_buf b = MG_BUF_INIT;

	mg_buf_printf(&b, "memgate %s", MG_VERSION);
	puts(b.ptr);
	mg_buf_free(&b);
	return 0;
}
C
flags=$(PKG_CONFIG_PATH="$top/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" \
	pkg-config --cflags --libs memgate 2>"$T/err")
code=$?
expect_code 0 "pkg-config --cflags --libs memgate"
case " $flags " in
*" -I$top/include "*" -L$top/lib "*"-lmemgate "*) ok "the flags name the installed headers and library" ;;
*) not_ok "pkg-config flags" "got: $flags" ;;
esac
# shellcheck disable=SC2086
cc -std=c11 -o "$T/prog" "$T/prog.c" $flags >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "a C program compiles and links with those flags"
"$T/prog" >"$T/out" 2>"$T/err"
code=$?
expect_out "memgate $("$MEMGATE" --version | sed 's/^memgate //')" "and runs"

# make uninstall removes every file it installed.
mk PREFIX=$prefix DESTDIR="$dest" uninstall >"$T/out" 2>"$T/err"
code=$?
expect_code 0 "make uninstall"
left=$(find "$dest" -type f | sed "s|^$dest||")
if [ -z "$left" ]; then ok "nothing is left under DESTDIR"; else not_ok "uninstall left files" "$left"; fi
finish
