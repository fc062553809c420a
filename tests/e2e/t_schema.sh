#!/usr/bin/env bash
# The JSON Schema for the policy (include/memgate/schema/policy.schema.json):
# every policy memgate accepts passes it, and it refuses what it can see is
# wrong (memgate checks more: duplicate keys, aliases, positions).
. "$(dirname "$0")/lib.sh"

SCHEMA=$SRC/include/memgate/schema/policy.schema.json
V=$SRC/tests/validate-schema

# validate FILE...: sets $code, output in $T/out
validate() {
	"$V" "$SCHEMA" "$@" >"$T/out" 2>"$T/err"
	code=$?
}

# Every policy memgate parses: the unit tests' valid fixtures, the e2e
# policies and the demo's.
accepted=
for name in core-tags defaults fail-on-accept-twice fail-on-empty grid-at-scenario-limit \
	    pin-counts-as-floats pin-kinds rank-by-throughput real-11200 real-9600 seed spec-example \
	    waivers trade-off-and-noise; do
	accepted="$accepted $FIX/policies/$name.yml"
done
# shellcheck disable=SC2086
validate $accepted "$FIX"/e2e/*.yml "$FIX/demo/memgate.yml"
expect_code 0 "every policy memgate accepts passes the schema"
grep '^not ok' "$T/out" | sed 's/^/#   /'

# Each of these is refused by the schema as it is by memgate.
for name in unknown-key misplaced-key misplaced-section missing-budget missing-memory-cap \
	    missing-identity missing-version missing-workload-id memory-cap-zero \
	    negative-min-samples throughput-ratio-above-one wrong-type-threshold \
	    both-manifest-and-report neither-manifest-nor-report bad-rank-by fail-on-typo \
	    quoted-number version-2 empty-stricter-entry grid-unknown-key batch-size-zero \
	    min-repeats-zero seq-len-quoted waiver-evidence-issue noise-unknown-mode negative-trade-off; do
	validate "$FIX/policies/$name.yml"
	expect_code 1 "the schema refuses policies/$name.yml"
done
finish
