#!/usr/bin/env bash
# Every bad-input fixture, committed and gated by the binary: exit 2, an
# error naming file:line:column, and nothing written.  (The unit tests check
# each exact message; this checks what a user of the command sees.)
. "$(dirname "$0")/lib.sh"

# Policies that parse (the unit tests use them as valid inputs).
VALID_POLICIES=" core-tags defaults fail-on-accept-twice fail-on-empty grid-at-scenario-limit
 pin-kinds pin-counts-as-floats rank-by-throughput real-11200 real-9600 seed spec-example
 waiver-trade-off "

repo=$T/bad
mkdir -p "$repo"
g init -q "$repo"

# gate FILE_IN_REPO FIXTURE DESC: commit FIXTURE as FILE_IN_REPO, expect exit 2
# with "FILE_IN_REPO:L:C: " and no --json file.
gate() {
	cp "$2" "$repo/$1"
	commit_all "$repo" "$3"
	rm -f "$T/out.json"
	mg check -C "$repo" --json "$T/out.json"
	expect_code 2 "$3"
	if grep -Eq "^memgate: error: $(printf '%s' "$1" | sed 's/\./\\./g'):[0-9]+:[0-9]+: " "$T/err"; then
		ok "$3: error names $1:line:column"
	else
		not_ok "$3: error names $1:line:column"
	fi
	expect_no_file "$T/out.json" "$3: nothing written"
}

for f in "$FIX"/policies/*.yml; do
	name=$(basename "$f" .yml)
	case "$VALID_POLICIES" in *" $name "*) continue ;; esac
	gate .memgate.yml "$f" "policy $name"
done

cat >"$repo/.memgate.yml" <<'YAML'
version: 1
manifest: m.json
identity: { workload_id: pressure, hardware_id: gpu }
budget: { memory_cap_mb: 11200 }
YAML
for f in "$FIX"/manifests/*.json; do
	name=$(basename "$f" .json)
	case "$name" in full|minimal|unknown-keys-and-nulls) continue ;; esac
	gate m.json "$f" "manifest $name"
done

cat >"$repo/.memgate.yml" <<'YAML'
version: 1
report: r.json
identity: { workload_id: pressure, hardware_id: gpu }
budget: { memory_cap_mb: 11200 }
YAML
for name in duplicate-key-nested duplicate-key-top-level latin1-name malformed-missing-comma \
	    nan-literal not-an-object nul-padding trailing-text; do
	gate r.json "$FIX/reports/$name.json" "report $name"
done

finish
