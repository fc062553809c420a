#!/usr/bin/env bash
# The repository's layout rules (.github/CONTRIBUTING.md, "For maintainers"): the fixed top
# level, include/ holding only the public headers, all listed by the
# umbrella header and usable alone, and the git source depending on no
# parser, alone including git2.h; and a compile-time guard on the limits.
. "$(dirname "$0")/lib.sh"

# The top level holds exactly the fixed entries (dotfiles aside).
got=$(cd "$SRC" && git ls-files 2>/dev/null | sed -n 's|^\([^./][^/]*\).*|\1|p' | sort -u | tr '\n' ' ')
[ -n "$got" ] || got=$(cd "$SRC" && ls -A | grep -v '^\.' | grep -vx 'build\|build-asan\|build-fuzz\|memgate' | sort | tr '\n' ' ')
want="Makefile README.md action.yml actions fixtures include plugin tests "
if [ "$got" = "$want" ]; then ok "the top level holds exactly the fixed entries"
else not_ok "the top level holds exactly the fixed entries" "got: $got" "want: $want"; fi
# Of the dotfiles, one more than git's and CI's: .pre-commit-hooks.yaml,
# which the pre-commit framework reads only at the top of a hook's
# repository (memgate(1), CI, "The pre-push hook").
if dots=$(cd "$SRC" && git ls-files 2>/dev/null | sed -n 's|^\(\.[^/]*\).*|\1|p' | LC_ALL=C sort -u | tr '\n' ' ') &&
   [ -n "$dots" ]; then
	want=".ci .github .gitignore .pre-commit-hooks.yaml "
	if [ "$dots" = "$want" ]; then ok "the top-level dotfiles are git's, CI's and pre-commit's"
	else not_ok "the top-level dotfiles are git's, CI's and pre-commit's" "got: $dots" "want: $want"; fi
else
	ok "# SKIP not a git checkout: the top-level dotfiles are not listed"
fi

# include/memgate.h lists every public header, and nothing else.
listed=$(sed -n 's|^#include "memgate/\(.*\)"$|\1|p' "$SRC/include/memgate.h" | sort | tr '\n' ' ')
present=$(cd "$SRC/include/memgate" && ls ./*.h | sed 's|^\./||' | sort | tr '\n' ' ')
if [ "$listed" = "$present" ]; then ok "include/memgate.h lists every public header"
else not_ok "include/memgate.h lists every public header" "listed: $listed" "present: $present"; fi

# The umbrella header compiles on its own with only include/ on the path:
# no public header needs a private one or a library's header.
code=0
printf '#include "memgate.h"\nint main(void) { return 0; }\n' >"$T/umbrella.c"
${CC:-cc} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$SRC/include" "$T/umbrella.c" \
	>"$T/out" 2>"$T/err" || code=$?
expect_code 0 "include/memgate.h compiles with only include/ on the path"

# Public headers include only public headers and the C library.
bad=$(grep -n '#include' "$SRC"/include/memgate/*.h |
	grep -v '#include "\(buf\|check\|decision\|error\|escape\|github\|history\|junit\|manifest\|noise\|result\|output\|limits\|plan\|policy\|record\|report\|summary\|text\|version\)\.h"' |
	grep -v '#include <\(stdbool\|stddef\|stdint\|stdio\|stdlib\|string\|stdarg\|limits\|sys/types\)\.h>' || true)
if [ -z "$bad" ]; then ok "public headers include only public headers"
else not_ok "public headers include only public headers" "$bad"; fi

# Files with one job: no source file over 900 lines.
bad=$(cd "$SRC" && wc -l plugin/*/*.c plugin/*/*.h include/*.h include/memgate/*.h |
	awk '$2 != "total" && $1 > 900 { print $2 ": " $1 " lines" }')
if [ -z "$bad" ]; then ok "no source file is over 900 lines"
else not_ok "no source file is over 900 lines" "$bad"; fi

# The layers (tests/layers): every source file sits in one layer's folder
# of plugin/, and includes only its own layer's headers or lower ones; every object of the build
# ($MG_BUILD_DIR, else the binary's directory) uses only symbols its own
# layer or lower ones define, so no cycle can form between layers.
BUILD=${MG_BUILD_DIR:-$(dirname "$MEMGATE")}
code=0
python3 "$SRC/tests/layers" "$SRC" "$BUILD" >"$T/out" 2>"$T/err" || code=$?
if [ $code = 0 ]; then ok "every source includes and calls only its own layer or those below (tests/layers)"
else not_ok "every source includes and calls only its own layer or those below (tests/layers)" "$(cat "$T/out" "$T/err")"; fi
# ... and no module calls round in a circle, even within a layer.
code=0
python3 "$SRC/tests/layers" --cycles "$SRC" "$BUILD" >"$T/out" 2>"$T/err" || code=$?
if [ $code = 0 ] && [ ! -s "$T/out" ]; then ok "no cycle between the modules' calls (tests/layers --cycles)"
else not_ok "no cycle between the modules' calls (tests/layers --cycles)" "$(cat "$T/out" "$T/err")"; fi
# ... and an arrow up fails, naming the file and line: the core calling
# into the insight above it, as it once did.
mkdir -p "$T/up/include/memgate"
cp -R "$SRC/plugin" "$T/up/" && cp "$SRC"/include/memgate/*.h "$T/up/include/memgate/" &&
	cp "$SRC/include/memgate.h" "$T/up/include/"
sed -i 's|#include "memgate/noise.h"|#include "memgate/insight.h"|' "$T/up/plugin/core/decision.c"
code=0
python3 "$SRC/tests/layers" "$T/up" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "an include up a layer fails tests/layers"
expect_out "plugin/core/decision.c:12: core/ includes insight.h, of insight/ (not below it)" \
	"tests/layers names the file, line and layers of an arrow up"
# ... and so does a source outside the layers' folders, or a folder that
# is no layer.
mkdir "$T/up/plugin/misc" && cp "$SRC/plugin/util/buf.c" "$T/up/plugin/stray.c" &&
	cp "$SRC/plugin/util/buf.c" "$T/up/plugin/misc/"
code=0
python3 "$SRC/tests/layers" "$T/up" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "a source outside the layers' folders fails tests/layers"
expect_out "plugin/stray.c: in no layer's folder (tests/layers)" "tests/layers names a source in no folder"
expect_out "plugin/misc/: a folder that is no layer (tests/layers)" "tests/layers names a folder that is no layer"
# ... and so does a call up, at link level, whatever the includes: the
# build's objects, with the core's decision.o replaced by one that calls
# the insight (and defines mg_decision_free, which tipping.o calls) and the
# text renderer's text.o by one that calls the check.  (Compiled alone, not
# linked into the build's objects: a cross build's objects stay as built.)
mkdir -p "$T/upcall/obj"
cp "$BUILD"/obj/*.o "$T/upcall/obj/"
printf 'void mg_insight_free(void *);\nvoid mg_decision_free(void *d) { mg_insight_free(d); }\n' >"$T/up1.c"
printf 'int mg_check_run(void *, const void *, void *);\nint mg_text_up(void) { return mg_check_run(0, 0, 0); }\n' >"$T/up2.c"
code=0
{ ${CC:-cc} -c -o "$T/upcall/obj/decision.o" "$T/up1.c" &&
	${CC:-cc} -c -o "$T/upcall/obj/text.o" "$T/up2.c"; } >"$T/out" 2>"$T/err" || code=$?
expect_code 0 "objects with a call up are made"
code=0
python3 "$SRC/tests/layers" "$SRC" "$T/upcall" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "a call up a layer fails tests/layers"
expect_out "$T/upcall/obj/decision.o: core/ uses mg_insight_free, of insight.c, of insight/ (not below it)" \
	"tests/layers names the object, the symbol and the module that defines it"
expect_out "$T/upcall/obj/text.o: render/ uses mg_check_run, of check.c, of check/ (read result.h)" \
	"tests/layers holds the renderers off the check at link level too"
[ "$(wc -l <"$T/out")" = 2 ] && ok "tests/layers names those two calls and nothing else" ||
	not_ok "tests/layers names those two calls and nothing else"
# ... and the call up closes a cycle (the insight calls the core through
# tipping), which --cycles prints with its arrows and their symbols.
code=0
python3 "$SRC/tests/layers" --cycles "$SRC" "$T/upcall" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "a cycle fails tests/layers --cycles"
expect_out "  decision -> insight: mg_insight_free" "tests/layers --cycles names the arrows of a cycle"

# The map of .github/CONTRIBUTING.md has a row per layer's folder, in rank
# order, and each folder's README.md names every module in it and none of
# another (tests/layers --doc) ...
code=0
python3 "$SRC/tests/layers" --doc "$SRC" >"$T/out" 2>"$T/err" || code=$?
if [ $code = 0 ]; then ok "CONTRIBUTING.md's map and the folders' READMEs agree with the folders"
else not_ok "CONTRIBUTING.md's map and the folders' READMEs agree with the folders" "$(cat "$T/out" "$T/err")"; fi
# ... and a module left out of its README, or named in another's, or a
# folder missing from the map, fails.
mkdir -p "$T/doc/.github"
cp -R "$SRC/plugin" "$T/doc/"
sed -i 's/`byname` indexes/byname indexes/' "$T/doc/plugin/core/README.md"
sed -i 's/`format` (numbers/`format` and `tipping` (numbers/' "$T/doc/plugin/result/README.md"
grep -v '^| 2 | `plugin/insight/`' "$SRC/.github/CONTRIBUTING.md" >"$T/doc/.github/CONTRIBUTING.md"
code=0
python3 "$SRC/tests/layers" --doc "$T/doc" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "a map or README that disagrees fails tests/layers --doc"
expect_out "plugin/core/README.md: lacks byname" "tests/layers --doc names a module left out"
expect_out "plugin/result/README.md: names tipping, of insight/" "tests/layers --doc names a module in another folder's README"
expect_out "the map's rows are 0 util/, 1 git/, 1 core/, 2 parse/, 3 result/" "tests/layers --doc names a folder missing from the map"

# The git source (plugin/git/) depends on no parser: only its own
# headers, the path rules and the utilities.
bad=$(cd "$SRC/plugin/git" && grep -n '#include "' ./*.c ./*.h |
	grep -v '"memgate/\(buf\|error\|limits\).h"\|"git.h"\|"git_repo.h"\|"path.h"' || true)
if [ -z "$bad" ]; then ok "the git source includes no parser header"
else not_ok "the git source includes no parser header" "$bad"; fi

# Only the git source includes git2.h (itself or through git_repo.h), and
# only plugin/git/git.c tests libgit2's version.
bad=$(cd "$SRC/plugin" && grep -l '#include <git2\|#include "git_repo.h"' ./*/*.c ./*/*.h |
	grep -v '^\./git/' || true)
if [ -z "$bad" ]; then ok "only the git source includes git2.h"
else not_ok "only the git source includes git2.h" "$bad"; fi
got=$(cd "$SRC/plugin" && grep -l 'LIBGIT2_VER' ./*/*.c ./*/*.h | tr '\n' ' ')
if [ "$got" = "./git/git.c " ]; then ok "only plugin/git/git.c tests libgit2's version"
else not_ok "only plugin/git/git.c tests libgit2's version" "got: $got"; fi

# Comments cite the repository's own documents (README, memgate(1),
# .github/CONTRIBUTING.md), never a
# contract kept outside the repository.
bad=$(cd "$SRC" && grep -rn 'SPEC\|\.\./shared\|LIBRARY-FACTS\|CI-CONVENTIONS' plugin include tests actions |
	grep -v 'GIT_EINVALIDSPEC\|GIT_PATHSPEC_[A-Z_]*\|^tests/e2e/t_layout.sh:' || true)
if [ -z "$bad" ]; then ok "no comment cites a document outside the repository"
else not_ok "no comment cites a document outside the repository" "$bad"; fi


finish
