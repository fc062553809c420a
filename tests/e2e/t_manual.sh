#!/usr/bin/env bash
# The manual stays true: the man page (plugin/cli/memgate.1) renders without
# warnings and lists exactly the options each command's -h lists (its lists
# of words and limits are generated and checked by t_vocabulary.sh); the
# README's demo transcript is what `make demo` prints (fixtures/demo/run),
# commit ids aside; the README stays a guide (at most 500 lines) whose
# recipes are the man page's, byte for byte.
. "$(dirname "$0")/lib.sh"

MAN=$SRC/plugin/cli/memgate.1

# Renders, for print and for a terminal (as man shows it), and passes
# mandoc's lint: groff's and mandoc's warnings are errors here.  Both tools
# are installed by actions/install-deps (make deps) and required by make
# test's check-deps.
if groff -man -ww -z "$MAN" >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ] &&
   groff -man -Tutf8 -ww -z "$MAN" >"$T/out" 2>"$T/err" && [ ! -s "$T/err" ]; then
	ok "the man page renders without warnings (groff -man -ww)"
else
	not_ok "the man page renders without warnings (groff -man -ww)" "$(cat "$T/err")"
fi
if mandoc -T lint -W warning "$MAN" >"$T/out" 2>&1 && [ ! -s "$T/out" ]; then
	ok "the man page passes mandoc -T lint with no warning"
else
	not_ok "the man page passes mandoc -T lint with no warning" "$(head -n 20 "$T/out")"
fi
# ... and the check can fail: a paragraph macro right after a section
# heading is the warning mandoc gave 27 times before
sed '0,/^\.SH DESCRIPTION$/s//.SH DESCRIPTION\n.PP/' "$MAN" >"$T/planted.1"
if mandoc -T lint -W warning "$T/planted.1" 2>&1 | grep -q "PP after SH"; then
	ok "mandoc's lint finds a planted warning"
else
	not_ok "mandoc's lint finds a planted warning"
fi

# The page's title line names the version memgate prints.
mg version
if grep -q "^\.TH MEMGATE 1 [0-9-]* \"$(cat "$T/out")\"" "$MAN"; then
	ok "man page: its title names $(cat "$T/out")"
else
	not_ok "man page: its title names $(cat "$T/out")" "$(grep '^\.TH' "$MAN")"
fi

# options TEXT: the options a text names (-C, -h, --long), one per line, sorted.
options() {
	grep -o -- '\(^\|[^a-z-]\)\(-C\|-h\|--[a-z][a-z-]*\)' | sed 's/^[^-]*//' |
		grep -v -- '^--help$' | grep -v -- '^-h$' | sort -u
}

# The options of each command: its -h against its section of the man page.
for cmd in check record manifest sign approve list; do
	mg "$cmd" -h
	options <"$T/out" >"$T/help-$cmd"
	sed -n "/^\.SS memgate $cmd\$/,/^\.S[SH] /p" "$MAN" | sed 's/\\-/-/g' | options >"$T/man-$cmd"
	if [ -s "$T/help-$cmd" ] && diff "$T/help-$cmd" "$T/man-$cmd" >"$T/diff"; then
		ok "man page: memgate $cmd's options are its -h's"
	else
		not_ok "man page: memgate $cmd's options are its -h's" "$(cat "$T/diff")"
	fi
done

# The README's demo transcript is what make demo prints.
sh "$SRC/fixtures/demo/run" "$MEMGATE" >"$T/demo" 2>"$T/err"
code=$?
expect_code 0 "the demo runs: memgate exits 1 there, as the demo expects"
sed -e 's/ at [0-9a-f]\{7\}$/ at 1a2b3c4/' -e 's/^inputs: commit [0-9a-f]\{12\}:/inputs: commit 1a2b3c4d5e6f:/' \
	"$T/demo" >"$T/demo.norm"
awk '/^## The demo$/ { d = 1 } d && /^```$/ { if (in_block) exit; in_block = 1; next } in_block' \
	"$SRC/README.md" >"$T/readme-demo"
if [ -s "$T/readme-demo" ] && diff "$T/readme-demo" "$T/demo.norm" >"$T/diff"; then
	ok "README: the demo transcript is what make demo prints"
else
	not_ok "README: the demo transcript is what make demo prints" "$(cat "$T/diff")"
fi

# The README is the guide, the man page the reference: the README stays
# short, and every recipe it gives (its sh and yaml blocks) is one the man
# page gives too, byte for byte once the roff escapes are undone.
lines=$(wc -l <"$SRC/README.md")
if [ "$lines" -le 500 ]; then ok "README: $lines lines, at most 500"
else not_ok "README: $lines lines, at most 500 (move reference text to plugin/cli/memgate.1)"; fi
python3 - "$SRC/README.md" "$MAN" >"$T/out" 2>&1 <<'EOF'
import re, sys
readme = open(sys.argv[1], encoding="utf-8").read()
page = open(sys.argv[2], encoding="utf-8").read()
ESC = {"-": "-", "e": "\\", "&": "", "(aq": "'", "(ga": "`", "(ha": "^", "(ti": "~",
       "(mu": "\u00d7", "(di": "\u00f7", "(mi": "\u2212", "(em": "\u2014", "(<=": "\u2264",
       "(>=": "\u2265", "(md": "\u00b7"}
def plain(line):
    return re.sub(r"\\(\(..|.)", lambda m: ESC.get(m.group(1), m.group(0)), line)
blocks = ["\n".join(plain(l) for l in b.split("\n"))
          for b in re.findall(r"^\.nf\n(.*?)\n\.fi$", page, re.S | re.M)]
for lang, body in re.findall(r"^```(sh|yaml)\n(.*?)\n```$", readme, re.S | re.M):
    name = body.split("\n")[0].strip()[:50]
    if any(body in b for b in blocks):
        print(f"ok - README: its {lang} block '{name}' is the man page's")
    else:
        print(f"not ok - README: its {lang} block '{name}' is not in the man page")
EOF
cat "$T/out"
PASSED=$((PASSED + $(grep -c '^ok - ' "$T/out")))
FAILED=$((FAILED + $(grep -c '^not ok - ' "$T/out")))
grep -q '^ok - ' "$T/out" || not_ok "README: its recipes were compared with the man page" "$(cat "$T/out")"

finish
