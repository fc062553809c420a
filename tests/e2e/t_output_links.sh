#!/usr/bin/env bash
# Issue 25: where an output file's directories may be symlinks.  What the
# gated repository controls (its work tree, and the current directory) is
# walked without following a symlink; any other directory was named by the
# caller, and a symlink there is followed, as macOS's /tmp -> private/tmp
# and /var/folders are.  memgate runs from the source tree here, outside
# every repository, so every output path below is absolute.
#   1. a directory outside the repository reached through a symlink (the
#      caller's): --json, --summary, record --out and manifest --out are
#      written there;
#   2. a symlink committed inside the repository: refused, exit 2, nothing
#      written, by the work tree's path, through the caller's symlink to
#      the work tree, with -C naming a subdirectory, and for manifest --out.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
repo=$T/repo
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$T/private/tmp" "$T/outside" "$repo/models"
ln -s private/tmp "$T/tmp"          # like macOS's /tmp -> private/tmp
ln -s "$T/outside" "$repo/linked"   # planted by the pull request
: >"$repo/models/.keep"
commit_all "$repo" "a symlink to a directory outside the checkout"
ln -s "$repo" "$T/checkout"         # the caller's name for the work tree

# --- 1. the caller's symlink outside the repository: followed -------------
mg check -C "$repo" --json "$T/tmp/r.json" --summary "$T/tmp/s.md"
expect_code 1 "1: --json and --summary through the caller's symlink (the gate fails on tune)"
if [ -s "$T/private/tmp/r.json" ] && [ -s "$T/private/tmp/s.md" ]; then
	ok "1: both written where the symlink leads"
else
	not_ok "1: both written where the symlink leads"
fi
expect_field decision '"tune"' "$T/private/tmp/r.json"
mg record -C "$repo" --out "$T/tmp/rec.json"
expect_code 1 "1: record --out through the caller's symlink"
if cmp -s "$T/private/tmp/rec.json" "$T/private/tmp/r.json"; then
	ok "1: the record is the --json record"
else
	not_ok "1: the record is the --json record"
fi
mg record -C "$repo" --out "$T/tmp/rec.json"
expect_code 1 "1: record --out again: the existing record is read through the symlink"
expect_err "record unchanged:" "1: and found unchanged"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/tmp/m.json"
expect_code 0 "1: manifest --out through the caller's symlink"
if cmp -s "$T/private/tmp/m.json" "$repo/$MANIFEST_PATH"; then
	ok "1: the manifest written there is the committed one"
else
	not_ok "1: the manifest written there is the committed one"
fi
# the last component is never followed, the caller's or not
ln -s r.json "$T/private/tmp/link.json"
mg check -C "$repo" --json "$T/tmp/link.json"
expect_code 2 "1: --json onto a symlink outside the repository is still refused"
expect_err "link.json: cannot write: it is a symlink (memgate writes regular files only, and never through a symlink)" \
	"1: and says it is a symlink"

# --- 2. a symlink inside the repository: refused --------------------------
msg="in its path is a symlink (memgate writes regular files only, and never through a symlink)"
# refused DESC FILE VERB ARGS...: exit 2, "FILE: cannot VERB: 'linked' ...",
# nothing written (record and manifest read an existing --out first)
refused() {
	local desc=$1 file=$2 verb=$3
	shift 3
	mg "$@"
	expect_code 2 "2: $desc is refused"
	expect_err "$file: cannot $verb: 'linked' $msg" "2: $desc: the message names the file and the symlink"
	if [ -z "$(ls -A "$T/outside")" ]; then
		ok "2: $desc: nothing written through the symlink"
	else
		not_ok "2: $desc: nothing written through the symlink" "$(ls -A "$T/outside")"
	fi
}
refused "--json by the work tree's path" "$repo/linked/r.json" write \
	check -C "$repo" --json "$repo/linked/r.json" --summary "$T/tmp/s2.md"
expect_no_file "$T/private/tmp/s2.md" "2: and the other output is not written either"
refused "--json through the caller's symlink to the work tree" "$T/checkout/linked/r.json" write \
	check -C "$repo" --json "$T/checkout/linked/r.json"
refused "--summary with -C naming a subdirectory" "$repo/linked/s.md" write \
	check -C "$repo/models" --policy ../.memgate.yml --summary "$repo/linked/s.md"
refused "record --out" "$T/checkout/linked/rec.json" read \
	record -C "$repo" --out "$T/checkout/linked/rec.json"
refused "manifest --out" "$repo/linked/m.json" read \
	manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/linked/m.json"
refused "manifest --out with -C naming a subdirectory" "$repo/linked/m.json" read \
	manifest -C "$repo/models" --report "../$REPORT_PATH" --out "$repo/linked/m.json"
finish
