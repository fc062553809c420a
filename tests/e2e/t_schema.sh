#!/usr/bin/env bash
# The JSON Schemas that ship in include/memgate/schema/: the policy's
# (policy.schema.json) passes every policy memgate accepts and refuses what
# it can see is wrong (memgate checks more: duplicate keys, aliases,
# positions); the decision record's (record.schema.json) refuses a record
# that breaks it.
. "$(dirname "$0")/lib.sh"

SCHEMA=$SRC/include/memgate/schema/policy.schema.json
V=$SRC/tests/validate-schema

# validate FILE...: sets $code, output in $T/out
validate() {
	"$V" "$SCHEMA" "$@" >"$T/out" 2>"$T/err"
	code=$?
}

# Every fixture policy, against memgate's own verdict on it: memgate reads
# each as the policy of a repository that has no manifest, so that a policy
# it accepts fails later, reading the inputs ("cannot read '...'"), and one
# it refuses fails naming the policy.  Policies it accepts pass the schema;
# policies it refuses fail it, except those whose fault a JSON Schema cannot
# see (memgate checks more: see the schema's description).
SCHEMA_BLIND=" alias-of-anchor anchor duplicate-key grid-too-many-scenarios huge-number \
non-finite-inf non-finite-nan non-finite-pin nul-in-string version-float "
repo=$T/policy-repo
mkdir -p "$repo"
g init -q "$repo"
accepted=0 refused=0
for policy in "$FIX"/policies/*.yml; do
	name=$(basename "$policy" .yml)
	cp "$policy" "$repo/.memgate.yml"
	mg check -C "$repo" --worktree
	if [ "$code" = 2 ] && grep -q "^memgate: error: .memgate.yml:[0-9]*:[0-9]*: cannot read '" "$T/err"; then
		accepted=$((accepted + 1))
		validate "$policy"
		expect_code 0 "policies/$name.yml: memgate accepts it, and so does the schema"
	elif [ "$code" = 2 ] && grep -q '^memgate: error: .memgate.yml:' "$T/err"; then
		refused=$((refused + 1))
		case $SCHEMA_BLIND in *" $name "*) continue ;; esac
		validate "$policy"
		expect_code 1 "policies/$name.yml: memgate refuses it, and so does the schema"
	else
		not_ok "policies/$name.yml: memgate accepts or refuses it"
	fi
done
if [ "$accepted" -gt 10 ] && [ "$refused" -gt 50 ]; then ok "fixture policies: $accepted accepted, $refused refused"
else not_ok "fixture policies: $accepted accepted, $refused refused"; fi

# The policies of the end-to-end repositories and the demo.
validate "$FIX"/e2e/*.yml "$FIX/demo/memgate.yml"
expect_code 0 "every e2e and demo policy passes the schema"
grep '^not ok' "$T/out" | sed 's/^/#   /'

# The record schema (include/memgate/schema/record.schema.json): every
# record the e2e tests write is checked against it (tests/e2e/lib.sh); here
# it refuses records that break it.
RSCHEMA=$SRC/include/memgate/schema/record.schema.json
make_gate_repo "$T/gate" "$FIX/e2e/real-flat-11200.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
mg check -C "$T/gate" --json "$T/record.json"
expect_code 1 "a record to break (tune fails the gate)"
"$V" "$RSCHEMA" "$T/record.json" >"$T/out" 2>"$T/err"; code=$?
expect_code 0 "the record passes the record schema"
for edit in 's/"reason":\t"[a-z_]*"/"reason":\t"looks_fine"/' \
	    's/"decision":\t"[a-z]*"/"decision":\t"maybe"/' \
	    's/"schema_version":\t"[^"]*"/"schema_version":\t"memgate-decision\/v2"/' \
	    's/"status":"[a-z]*"/"status":"fine"/' \
	    's/"repeats":\([0-9]*\)/"repeats":"\1"/' \
	    's/"best_candidate":/"best":/' \
	    's/"is_applicable":/"applicable":/'; do
	sed "$edit" "$T/record.json" >"$T/broken.json"
	if cmp -s "$T/record.json" "$T/broken.json"; then not_ok "edit $edit changes the record"; continue; fi
	"$V" "$RSCHEMA" "$T/broken.json" >"$T/out" 2>"$T/err"; code=$?
	expect_code 1 "the record schema refuses a record edited with $edit"
done

# The approval's schema (approval.schema.json): the approval memgate approve
# writes passes it; an approval memgate refuses (exit 2, at the approval)
# is refused by the schema too.
ASCHEMA=$SRC/include/memgate/schema/approval.schema.json
APPROVAL=${MANIFEST_PATH%.json}.approved.json
mg approve -C "$T/gate" --fail-on reject
expect_code 0 "memgate approve writes an approval"
"$V" "$ASCHEMA" "$T/gate/$APPROVAL" >"$T/out" 2>"$T/err"; code=$?
expect_code 0 "the approval passes the approval schema"
commit_all "$T/gate" "approved"
cp "$T/gate/$APPROVAL" "$T/approval.json"
for edit in 's/"memgate_approval": 1/"memgate_approval": 2/' \
	    's/"sha256": "\([0-9a-f]*\)"/"sha256": "\U\1"/' \
	    's/"path": "[^"]*"/"path": 7/' \
	    's/"decision":\t"[a-z]*"/"decision":\t"maybe"/' \
	    's/"memgate_approval"/"approval"/'; do
	sed "$edit" "$T/approval.json" >"$T/gate/$APPROVAL"
	if cmp -s "$T/approval.json" "$T/gate/$APPROVAL"; then not_ok "edit $edit changes the approval"; continue; fi
	"$V" "$ASCHEMA" "$T/gate/$APPROVAL" >"$T/out" 2>"$T/err"; code=$?
	expect_code 1 "the approval schema refuses an approval edited with $edit"
	commit_all "$T/gate" "edit $edit"
	mg check -C "$T/gate" --require-approved --fail-on reject
	expect_code 2 "memgate refuses it too ($edit)"
	expect_err "$APPROVAL:" "at the approval ($edit)"
done
finish
