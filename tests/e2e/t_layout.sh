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
bad=$(cd "$SRC" && wc -l plugin/*.c plugin/*.h include/*.h include/memgate/*.h |
	awk '$2 != "total" && $1 > 900 { print $2 ": " $1 " lines" }')
if [ -z "$bad" ]; then ok "no source file is over 900 lines"
else not_ok "no source file is over 900 lines" "$bad"; fi

# The layers (tests/layers): every source file belongs to one, and includes
# only its own layer's headers or lower ones; no cycle can form.
code=0
python3 "$SRC/tests/layers" "$SRC" >"$T/out" 2>"$T/err" || code=$?
if [ $code = 0 ]; then ok "every source includes only its own layer or those below (tests/layers)"
else not_ok "every source includes only its own layer or those below (tests/layers)" "$(cat "$T/out" "$T/err")"; fi
# ... and an arrow up fails, naming the file and line: the core calling
# into the insight above it, as it once did.
mkdir -p "$T/up/plugin" "$T/up/include/memgate"
cp "$SRC"/plugin/*.[ch] "$T/up/plugin/" && cp "$SRC"/include/memgate/*.h "$T/up/include/memgate/" &&
	cp "$SRC/include/memgate.h" "$T/up/include/"
sed -i 's|#include "memgate/noise.h"|#include "memgate/insight.h"|' "$T/up/plugin/decision.c"
code=0
python3 "$SRC/tests/layers" "$T/up" >"$T/out" 2>"$T/err" || code=$?
expect_code 1 "an include up a layer fails tests/layers"
expect_out "plugin/decision.c:12: decision core includes insight.h, of insight (not below it)" \
	"tests/layers names the file, line and layers of an arrow up"

# The git source (plugin/git.c, plugin/git_*.c) depends on no parser: only
# its own headers, the path rules and the utilities.
bad=$(cd "$SRC/plugin" && grep -n '#include "' git.c git_*.c git_repo.h |
	grep -v '"memgate/buf.h"\|"git.h"\|"git_repo.h"\|"path.h"' || true)
if [ -z "$bad" ]; then ok "the git source includes no parser header"
else not_ok "the git source includes no parser header" "$bad"; fi

# Only the git source includes git2.h (itself or through git_repo.h), and
# only plugin/git.c tests libgit2's version.
bad=$(cd "$SRC/plugin" && grep -l '#include <git2\|#include "git_repo.h"' ./*.c ./*.h |
	grep -v '^\./git\(_[a-z]*\)\{0,1\}\.[ch]$' || true)
if [ -z "$bad" ]; then ok "only the git source includes git2.h"
else not_ok "only the git source includes git2.h" "$bad"; fi
got=$(cd "$SRC/plugin" && grep -l 'LIBGIT2_VER' ./*.c ./*.h | tr '\n' ' ')
if [ "$got" = "./git.c " ]; then ok "only plugin/git.c tests libgit2's version"
else not_ok "only plugin/git.c tests libgit2's version" "got: $got"; fi

# Comments cite the repository's own documents (README, memgate(1),
# .github/CONTRIBUTING.md), never a
# contract kept outside the repository.
bad=$(cd "$SRC" && grep -rn 'SPEC\|\.\./shared\|LIBRARY-FACTS\|CI-CONVENTIONS' plugin include tests actions |
	grep -v 'GIT_EINVALIDSPEC\|GIT_PATHSPEC_[A-Z_]*\|^tests/e2e/t_layout.sh:' || true)
if [ -z "$bad" ]; then ok "no comment cites a document outside the repository"
else not_ok "no comment cites a document outside the repository" "$bad"; fi


finish
