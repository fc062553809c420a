#!/usr/bin/env bash
# --sarif and --codequality on the demo repository and on the two-model
# monorepo: the SARIF log passes the SARIF Multitool's validator (the
# SARIF 2.1.0 schema and its rules) and carries what GitHub's upload
# documents as required; the Code Quality report has GitLab's documented
# fields; fingerprints are stable across commits and unique in a file;
# hostile candidate names stay inside their JSON strings.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e

# --- the validator: installed once into build/ (ignored by git) ----------

MDIR=$SRC/build/sarif-multitool
MULTITOOL=$MDIR/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
skip=
if ! command -v npm >/dev/null 2>&1; then
	skip="npm not found"
elif [ ! -f "$MULTITOOL" ] ||
     ! grep -qs '"version": "5.7.0"' "$MDIR/node_modules/@microsoft/sarif-multitool/package.json"; then
	mkdir -p "$MDIR"
	timeout 300 npm install --prefix "$MDIR" --no-save --no-audit --no-fund --silent \
		--fetch-retries=1 --fetch-timeout=30000 \
		@microsoft/sarif-multitool@5.7.0 >"$T/npm.log" 2>&1 ||
		skip="cannot install @microsoft/sarif-multitool 5.7.0 (registry unreachable?)"
fi
# npm may not run the package's postinstall (chmod u+x): do it here.
[ -n "$skip" ] || [ ! -f "$MULTITOOL" ] || chmod u+x "$MULTITOOL"
[ -n "$skip" ] || [ -x "$MULTITOOL" ] || skip="the SARIF Multitool has no binary for this machine"

# validate FILE DESC: the Multitool's validate verb exits 0 even when it
# reports errors, so its output is read: no "error" line may appear.
validate() {
	if [ -n "$skip" ]; then
		ok "# SKIP $2: $skip"
		return
	fi
	DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 \
		"$MULTITOOL" validate "$1" >"$T/validate.log" 2>&1
	if ! grep -q 'Analysis completed successfully' "$T/validate.log"; then
		not_ok "$2" "the validator did not complete" "$(head -n 20 "$T/validate.log")"
	elif grep -qE ': error [A-Z]+[0-9]+:' "$T/validate.log"; then
		not_ok "$2" "$(grep -E ': error ' "$T/validate.log" | head -n 5)"
	else
		ok "$2"
	fi
}

# The validator is not vacuous: a region with startLine 0 is an error.
printf '%s\n' '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"R"}]}},"results":[{"ruleId":"R","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":0}}}]}]}]}' >"$T/bad.sarif"
if [ -z "$skip" ]; then
	(validate "$T/bad.sarif" "(the validator refuses startLine 0)") >"$T/self"
	if grep -q '^not ok' "$T/self"; then ok "the validator refuses a SARIF error"; else not_ok "the validator refuses a SARIF error"; fi
fi

# github_required FILE DESC: what docs.github.com ("SARIF support for code
# scanning") lists as required, for every rule and result, non-empty.
github_required() {
	local f=$1 missing= i=0 k v
	field() { # field PATH: the value, and note it when missing or ""
		v=$("$JSONGET" "$f" "$1")
		case $v in '<missing>'|'""'|null) missing="$missing $1" ;; esac
	}
	field '$schema'
	[ "$("$JSONGET" "$f" version)" = '"2.1.0"' ] || missing="$missing version"
	field runs.0.tool.driver.name
	field runs.0.tool.driver.rules
	field runs.0.results
	while ! case $("$JSONGET" "$f" runs.0.tool.driver.rules.$i) in '<'*) true ;; *) false ;; esac; do
		for k in id shortDescription.text fullDescription.text help.text; do
			field runs.0.tool.driver.rules.$i.$k
		done
		i=$((i + 1))
	done
	i=0
	while ! case $("$JSONGET" "$f" runs.0.results.$i) in '<'*) true ;; *) false ;; esac; do
		for k in ruleId message.text partialFingerprints.primaryLocationLineHash \
			 locations.0.physicalLocation.artifactLocation.uri \
			 locations.0.physicalLocation.region.startLine \
			 locations.0.physicalLocation.region.startColumn \
			 locations.0.physicalLocation.region.endLine \
			 locations.0.physicalLocation.region.endColumn; do
			field runs.0.results.$i.$k
		done
		v=$("$JSONGET" "$f" runs.0.results.$i.locations.0.physicalLocation.region.startLine)
		[ "$v" -ge 1 ] 2>/dev/null || missing="$missing results.$i.startLine>=1"
		i=$((i + 1))
	done
	if [ -z "$missing" ] && [ $i -gt 0 ]; then ok "$2 ($i results)"; else not_ok "$2" "missing or empty:$missing"; fi
}

# codequality_fields FILE DESC: GitLab's documented fields on every entry,
# with a severity GitLab knows and unique fingerprints.
codequality_fields() {
	local f=$1 missing= i=0 k v
	: >"$T/prints"
	while ! case $("$JSONGET" "$f" $i) in '<'*) true ;; *) false ;; esac; do
		for k in description check_name fingerprint severity location.path location.lines.begin; do
			v=$("$JSONGET" "$f" $i.$k)
			case $v in '<missing>'|'""'|null) missing="$missing $i.$k" ;; esac
		done
		case $("$JSONGET" "$f" $i.severity) in
		'"info"'|'"minor"'|'"major"'|'"critical"'|'"blocker"') ;;
		*) missing="$missing $i.severity-value" ;;
		esac
		"$JSONGET" "$f" $i.fingerprint >>"$T/prints"
		i=$((i + 1))
	done
	if [ "$(head -c 3 "$f" | od -An -tx1 | tr -d ' ')" = efbbbf ]; then missing="$missing BOM"; fi
	if [ "$(sort "$T/prints" | uniq -d | wc -l)" -ne 0 ]; then missing="$missing unique-fingerprints"; fi
	if [ -z "$missing" ] && [ $i -gt 0 ]; then ok "$2 ($i entries)"; else not_ok "$2" "missing:$missing"; fi
}

# --- the demo repository ---------------------------------------------------

"$FIX/demo/make-repo" "$T/demo" "$MEMGATE" >/dev/null 2>&1
mg check -C "$T/demo" --sarif "$T/demo.sarif" --codequality "$T/demo-cq.json" --json "$T/demo.json"
expect_code 1 "demo: the gate fails as make demo's does"
validate "$T/demo.sarif" "demo: the SARIF log passes the SARIF Multitool's validator"
github_required "$T/demo.sarif" "demo: every field GitHub's upload requires"
expect_field version '"2.1.0"' "$T/demo.sarif"
expect_field runs.0.tool.driver.name '"memgate"' "$T/demo.sarif"
expect_field runs.0.tool.driver.version "\"$("$MEMGATE" version | cut -d' ' -f2)\"" "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.6.id '"memory_over_budget"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.6.defaultConfiguration.level '"error"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.9.id '"memory_saving_below_floor"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.9.defaultConfiguration.level '"warning"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.12.id '"trade_off_below_floor"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.12.defaultConfiguration.level '"warning"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.13.id '"report_hash_mismatch"' "$T/demo.sarif"
expect_field runs.0.tool.driver.rules.13.defaultConfiguration.level '"error"' "$T/demo.sarif"
# The first result is the selected candidate's missed target, at the policy
# line of min_memory_saving_mb; then the hard limit offload fails, at
# min_samples_per_s: each where its annotation is.
line=$(grep -n 'min_samples_per_s:' "$T/demo/.memgate.yml" | head -n 1 | cut -d: -f1)
expect_field runs.0.results.0.ruleId '"memory_saving_below_floor"' "$T/demo.sarif"
expect_field runs.0.results.0.level '"warning"' "$T/demo.sarif"
expect_field runs.0.results.0.message.text '"checkpoint: memory saving 331.98 MB < min_memory_saving_mb 512"' "$T/demo.sarif"
expect_field runs.0.results.0.locations.0.physicalLocation.region.startLine "$((line + 1))" "$T/demo.sarif"
expect_field runs.0.results.1.ruleId '"samples_per_s_below_floor"' "$T/demo.sarif"
expect_field runs.0.results.1.ruleIndex 7 "$T/demo.sarif"
expect_field runs.0.results.1.level '"error"' "$T/demo.sarif"
expect_field runs.0.results.1.message.text '"offload: samples/s 0.533 < min_samples_per_s 1"' "$T/demo.sarif"
expect_field runs.0.results.1.locations.0.physicalLocation.artifactLocation.uri '".memgate.yml"' "$T/demo.sarif"
expect_field runs.0.results.1.locations.0.physicalLocation.region.startLine "$line" "$T/demo.sarif"
expect_field runs.0.results.1.locations.0.physicalLocation.region.startColumn 22 "$T/demo.sarif"
expect_field runs.0.results.1.properties.candidate '"offload"' "$T/demo.sarif"
mg check -C "$T/demo" --format github
expect_out "::error file=.memgate.yml,line=$line,col=22,title=memgate%3A samples_per_s_below_floor (offload)::" \
	"demo: the annotation points at the same line"
expect_field runs.0.properties.decisions.0.decision '"tune"' "$T/demo.sarif"

codequality_fields "$T/demo-cq.json" "demo: every field of GitLab's Code Quality format"
expect_field 0.check_name '"memory_saving_below_floor"' "$T/demo-cq.json"
expect_field 0.severity '"major"' "$T/demo-cq.json"
expect_field 1.check_name '"samples_per_s_below_floor"' "$T/demo-cq.json"
expect_field 1.severity '"critical"' "$T/demo-cq.json"
expect_field 1.description '"offload: samples/s 0.533 < min_samples_per_s 1"' "$T/demo-cq.json"
expect_field 1.location.path '".memgate.yml"' "$T/demo-cq.json"
expect_field 1.location.lines.begin "$line" "$T/demo-cq.json"

# Fingerprints stay when lines move and commits change, and differ between
# candidates and reasons.
fp0=$("$JSONGET" "$T/demo.sarif" runs.0.results.0.partialFingerprints.memgateFinding/v1)
cq0=$("$JSONGET" "$T/demo-cq.json" 0.fingerprint)
sed -i '1i # a comment that moves every line down' "$T/demo/.memgate.yml"
commit_all "$T/demo" "move the policy's lines"
mg check -C "$T/demo" --sarif "$T/moved.sarif" --codequality "$T/moved-cq.json"
expect_field runs.0.results.0.locations.0.physicalLocation.region.startLine "$((line + 2))" "$T/moved.sarif"
expect_field runs.0.results.0.partialFingerprints.memgateFinding/v1 "$fp0" "$T/moved.sarif"
expect_field 0.fingerprint "$cq0" "$T/moved-cq.json"
if [ "$("$JSONGET" "$T/moved.sarif" runs.0.results.1.partialFingerprints.memgateFinding/v1)" != "$fp0" ]; then
	ok "another finding has another fingerprint"
else
	not_ok "another finding has another fingerprint"
fi
hash=$("$JSONGET" "$T/moved.sarif" runs.0.results.0.partialFingerprints.primaryLocationLineHash)
if [ "$hash" = "\"$(printf '%s' "$fp0" | cut -c2-17):1\"" ]; then
	ok "primaryLocationLineHash follows the finding, not the line"
else
	not_ok "primaryLocationLineHash follows the finding, not the line" "got $hash"
fi

# Waivers: a note for one applied, warnings for the others.
cat >>"$T/demo/.memgate.yml" <<'YML'
waivers:
  - candidate: checkpoint
    reason: memory_saving_below_floor
    justification: "enough for now"
    owner: "@perf-team"
    expires: 2027-01-31
  - candidate: ghost
    reason: memory_over_budget
    justification: "gone"
    owner: "@perf-team"
    expires: 2025-01-31
YML
commit_all "$T/demo" "waivers"
mg check -C "$T/demo" --today 2026-06-01 --sarif "$T/waived.sarif" --codequality "$T/waived-cq.json"
validate "$T/waived.sarif" "demo with waivers: valid SARIF"
if grep -qF '"ruleId":	"waiver_applied"' "$T/waived.sarif" && grep -qF '"level":	"note"' "$T/waived.sarif" &&
   grep -qF '"ruleId":	"waiver_expired"' "$T/waived.sarif"; then
	ok "SARIF: waivers as a note and a warning"
else
	not_ok "SARIF: waivers as a note and a warning"
fi
if grep -qF '"check_name":	"waiver_applied"' "$T/waived-cq.json" && grep -qF '"severity":	"info"' "$T/waived-cq.json"; then
	ok "Code Quality: an applied waiver is info"
else
	not_ok "Code Quality: an applied waiver is info"
fi
codequality_fields "$T/waived-cq.json" "demo with waivers: Code Quality fields"

# Exit 2 writes neither.
mg check -C "$T/demo" --policy nope.yml --sarif "$T/no.sarif" --codequality "$T/no.json"
expect_code 2 "a missing policy"
expect_no_file "$T/no.sarif" "no SARIF on exit 2"
expect_no_file "$T/no.json" "no Code Quality report on exit 2"
mg check -C "$T/demo" --sarif "$T/no/such/dir/x.sarif" --json "$T/j.json"
expect_code 2 "an unwritable --sarif"
expect_err "cannot write" "says so"
expect_no_file "$T/j.json" "and writes nothing else (atomic with the other outputs)"

# --- hostile candidate names ----------------------------------------------

repo=$T/hostile
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
sed -i 's/"name": "offload"/"name": "a\\"b\\\\c\\n\\u001b[31m <x> \\ud83d\\ude00"/; s/"name": "hybrid"/"name": "##[error]v1"/' "$repo/$REPORT_PATH"
write_manifest "$repo"
mkdir -p "$repo/odd dir"
git -C "$repo" mv .memgate.yml "odd dir/p%1 é.memgate.yml" 2>/dev/null ||
	mv "$repo/.memgate.yml" "$repo/odd dir/p%1 é.memgate.yml"
commit_all "$repo" "hostile names"
mg check -C "$repo" --policy "odd dir/p%1 é.memgate.yml" --sarif "$T/h.sarif" --codequality "$T/h-cq.json"
expect_code 1 "hostile names: decided"
validate "$T/h.sarif" "hostile names: valid SARIF"
github_required "$T/h.sarif" "hostile names: GitHub's required fields"
codequality_fields "$T/h-cq.json" "hostile names: Code Quality fields"
expect_field runs.0.results.1.properties.candidate '"a\"b\\c\n\u001b[31m <x> 😀"' "$T/h.sarif"
expect_field runs.0.results.0.locations.0.physicalLocation.artifactLocation.uri '"odd%20dir/p%251%20%C3%A9.memgate.yml"' "$T/h.sarif"
expect_field 0.location.path '"odd dir/p%1 é.memgate.yml"' "$T/h-cq.json"
if grep -qF '##\u005b' "$T/h.sarif" && ! grep -qF '##[' "$T/h.sarif" "$T/h-cq.json"; then
	ok "hostile names: no legacy ##[ command when the files are shown in a log"
else
	not_ok "hostile names: no legacy ##[ command when the files are shown in a log"
fi
ln -s "$T/elsewhere.sarif" "$T/link.sarif"
mg check -C "$repo" --policy "odd dir/p%1 é.memgate.yml" --sarif "$T/link.sarif" --json "$T/h.json"
expect_code 2 "--sarif onto a symlink is refused"
expect_no_file "$T/elsewhere.sarif" "nothing is written through the symlink"
expect_no_file "$T/h.json" "nor any other output"
if grep -q 'x1b' "$T/h-cq.json" && ! LC_ALL=C grep -q $'\x1b' "$T/h-cq.json" "$T/h.sarif"; then
	ok "hostile names: no raw control character in either file"
else
	not_ok "hostile names: no raw control character in either file"
fi

# --- the two-model monorepo: check --all -----------------------------------

make_monorepo "$T/mono"
mg check -C "$T/mono" --all --sarif "$T/mono.sarif" --codequality "$T/mono-cq.json"
expect_code 1 "monorepo: check --all"
validate "$T/mono.sarif" "monorepo: the SARIF log passes the validator"
github_required "$T/mono.sarif" "monorepo: GitHub's required fields"
codequality_fields "$T/mono-cq.json" "monorepo: Code Quality fields, fingerprints unique across policies"
expect_field runs.0.properties.decisions.0.policy '"models/llm-a/.memgate.yml"' "$T/mono.sarif"
expect_field runs.0.properties.decisions.1.policy '"models/llm-b/train.memgate.yml"' "$T/mono.sarif"
if grep -qF '"uri":	"models/llm-a/.memgate.yml"' "$T/mono.sarif" &&
   grep -qF '"uri":	"models/llm-b/train.memgate.yml"' "$T/mono.sarif"; then
	ok "monorepo: results at each model's policy"
else
	not_ok "monorepo: results at each model's policy"
fi
if [ "$(grep -c '"runs"' "$T/mono.sarif")" -eq 1 ] && [ "$("$JSONGET" "$T/mono.sarif" runs.1)" = '<missing>' ]; then
	ok "monorepo: one run"
else
	not_ok "monorepo: one run"
fi

# --- a sweep past GitHub's limits ------------------------------------------
# Code scanning shows 5,000 results of a run and rejects more than 25,000.
# 6000 candidates give 6238 findings (1998 errors): the run keeps 5000,
# errors first, and says how many it left out.

GEN=$(dirname "$MEMGATE")/bench/gen
mkdir -p "$T/sweep/benchmarks/results"
g init -q "$T/sweep"
"$GEN" 6000 3 2x3x3 "$T/sweep"
write_manifest "$T/sweep"
commit_all "$T/sweep" "sweep"
mg check -C "$T/sweep" --sarif "$T/sweep.sarif"
expect_code 1 "6000 candidates: decided"
validate "$T/sweep.sarif" "6000 candidates: valid SARIF"
expect_field runs.0.results.4999.ruleId '"throughput_below_floor"' "$T/sweep.sarif"
expect_field runs.0.results.5000 '<missing>' "$T/sweep.sarif"
errors=$(grep -c '^					"level":	"error",$' "$T/sweep.sarif")
warnings=$(grep -c '^					"level":	"warning",$' "$T/sweep.sarif")
if [ "$errors" = 1998 ] && [ "$warnings" = 3002 ]; then
	ok "6000 candidates: every error kept, warnings up to 5000 results"
else
	not_ok "6000 candidates: every error kept, warnings up to 5000 results" \
		"$errors errors, $warnings warnings"
fi
expect_field runs.0.invocations.0.executionSuccessful true "$T/sweep.sarif"
expect_field runs.0.invocations.0.toolExecutionNotifications.0.message.text \
	'"1238 more findings were left out: a run holds the 5000 most important (GitHub code scanning shows 5,000 and rejects more than 25,000); the decision record (--json) lists every evaluation"' \
	"$T/sweep.sarif"
expect_field runs.0.invocations '<missing>' "$T/demo.sarif"

finish
