#!/usr/bin/env bash
# Waivers on the demo repository: each rule of the policy's waivers:
# section, as users see it in the text, the record, the job summary and the
# annotations; expiry judged with --today on both sides of the date; what a
# waiver may not waive; and policy diffs that add, extend or remove one.
. "$(dirname "$0")/lib.sh"

# demo_repo DIR [WAIVERS-FILE]: the demo repository (make demo's), with the
# waivers appended to its policy and committed.
demo_repo() {
	"$FIX/demo/make-repo" "$1" "$MEMGATE" >/dev/null 2>&1
	if [ -n "${2:-}" ]; then
		cat "$2" >>"$1/.memgate.yml"
		commit_all "$1" "waivers"
	fi
}
# line_of DIR TEXT: the line number of the first line of DIR's policy with TEXT.
line_of() { grep -nF -- "$2" "$1/.memgate.yml" | head -n 1 | cut -d: -f1; }

# --- a waived reason no longer counts, in screening and in sensitivity ---

# Without waivers the demo is tune: checkpoint saves 332 MB of 512.
demo_repo "$T/plain"
mg check -C "$T/plain" --format json
expect_code 1 "no waivers: the demo tunes"
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field waivers '<missing>'
expect_field evaluations.1.waived_reasons '<missing>'

cat >"$T/one.yml" <<'YML'
waivers:
  - candidate: checkpoint
    reason: memory_saving_below_floor
    justification: "332 MB is what this laptop GPU can give"
    owner: "@perf-team"
    expires: 2027-01-31
YML
demo_repo "$T/one" "$T/one.yml"
mg check -C "$T/one" --today 2026-06-01 --format json
expect_code 1 "saving waived: checkpoint is feasible, but the grid's min_samples_per_s 2 changes the winner"
expect_field evaluations.1.status '"feasible"'
expect_field evaluations.1.reasons '[]'
expect_field evaluations.1.waived_reasons '["memory_saving_below_floor"]'
expect_field evaluations.3.waived_reasons '[]'
expect_field feasible_names '["checkpoint"]'
expect_field reason '"selection_is_threshold_sensitive"'
expect_field sensitivity.scenarios.3.best_index 'null'

# Waive checkpoint's throughput floor too: the grid scenario at
# min_samples_per_s 2 keeps checkpoint, and the choice is stable.
cat "$T/one.yml" >"$T/two.yml"
cat >>"$T/two.yml" <<'YML'
  - candidate: checkpoint
    reason: samples_per_s_below_floor
    justification: "1.76 samples/s is fine for nightly runs"
    owner: "@perf-team"
    expires: 2027-01-31
YML
demo_repo "$T/two" "$T/two.yml"
mg check -C "$T/two" --today 2026-06-01 --format json
expect_code 0 "both waived: accept"
expect_field decision '"accept"'
expect_field reason '"selection_stable_across_thresholds"'
expect_field sensitivity.scenarios.3.best_index '1'
expect_field waivers.entries.1.status '"applied"'
expect_field evaluations.1.waived_reasons '["memory_saving_below_floor"]'

# --- listed in the record, the text, the summary and as notices ----------

mg check -C "$T/two" --today 2026-06-01 --format json
expect_field waivers.today '"2026-06-01"'
expect_field waivers.today_from '"--today"'
expect_field waivers.entries.0.candidate '"checkpoint"'
expect_field waivers.entries.0.reason '"memory_saving_below_floor"'
expect_field waivers.entries.0.owner '"@perf-team"'
expect_field waivers.entries.0.expires '"2027-01-31"'
expect_field waivers.entries.0.justification '"332 MB is what this laptop GPU can give"'
expect_field waivers.entries.0.status '"applied"'
mg check -C "$T/two" --today 2026-06-01
expect_out "waivers (today 2026-06-01, from --today):" "text: the waivers and the date they were judged on"
expect_out "  waiver: 'checkpoint' passes memory_saving_below_floor until 2027-01-31 (owner @perf-team): 332 MB is what this laptop GPU can give" \
	"text: each applied waiver with owner, expiry and justification"
expect_out "saving 331.98 MB < 512 WAIVED" "text: the waived check is marked"
expect_out "saving 331.98 MB < 512 WAIVED  ratio 0.876556 >= 0.7      - (waived: memory_saving_below_floor)" \
	"text: the candidate's waived reasons (samples/s is waived in a scenario only)"
mg check -C "$T/two" --today 2026-06-01 --summary "$T/two-summary.md"
if grep -qF '### Waivers' "$T/two-summary.md" &&
   grep -qF '| checkpoint | `memory_saving_below_floor` | \@perf\-team | 2027-01-31 |' "$T/two-summary.md"; then
	ok "summary: a waivers table with owner and expiry"
else
	not_ok "summary: a waivers table with owner and expiry" "$(grep -A5 Waivers "$T/two-summary.md")"
fi
line=$(line_of "$T/two" "- candidate: checkpoint")
mg check -C "$T/two" --today 2026-06-01 --format github
expect_out "::notice file=.memgate.yml,line=$line,col=5,title=memgate%3A waiver_applied (checkpoint)::waiver: 'checkpoint' passes memory_saving_below_floor until 2027-01-31 (owner @perf-team)" \
	"github: a notice annotation at the waiver"

# --- a waiver that matches nothing is a warning that names it ------------

cat "$T/one.yml" >"$T/nothing.yml"
cat >>"$T/nothing.yml" <<'YML'
  - candidate: ghost
    reason: memory_over_budget
    justification: "left over from an old report"
    owner: "@nobody"
    expires: 2027-01-31
  - candidate: baseline
    reason: quality_over_floor
    justification: "the baseline is the quality reference"
    owner: "@nobody"
    expires: 2027-01-31
YML
demo_repo "$T/nothing" "$T/nothing.yml"
mg check -C "$T/nothing" --today 2026-06-01 --format json
expect_code 1 "unmatched waivers do not change the decision"
expect_field reason '"selection_is_threshold_sensitive"'
expect_field waivers.entries.1.status '"unmatched"'
expect_field waivers.entries.2.status '"unmatched"'
mg check -C "$T/nothing" --today 2026-06-01
expect_out "warning: waiver for 'ghost' (memory_over_budget) matches nothing: the report has no candidate 'ghost'" \
	"text: a waiver of no candidate is named"
expect_out "warning: waiver for 'baseline' (quality_over_floor) matches nothing: 'baseline' does not fail quality_over_floor under the base budget nor in any scenario" \
	"text: a waiver of a reason its candidate does not fail is named"
mg check -C "$T/nothing" --today 2026-06-01 --format github
ghost=$(line_of "$T/nothing" "candidate: ghost")
expect_out "::warning file=.memgate.yml,line=$ghost,col=16,title=memgate%3A waiver_unmatched::waiver for 'ghost'" \
	"github: a warning annotation at the candidate it names"

# --- an expired waiver is ignored, with a warning at its line -----------

for day in 2027-01-30 2027-01-31; do
	mg check -C "$T/two" --today $day --format json
	expect_code 0 "--today $day: the waiver is in force (through its expiry date)"
	expect_field waivers.entries.0.status '"applied"'
done
mg check -C "$T/two" --today 2027-02-01 --format json
expect_code 1 "--today 2027-02-01: the waivers expired, the demo tunes again"
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field waivers.entries.0.status '"expired"'
expect_field evaluations.1.waived_reasons '[]'
mg check -C "$T/two" --today 2027-02-01 --format github
expires=$(line_of "$T/two" "expires: 2027-01-31")
expect_out "::warning file=.memgate.yml,line=$expires,col=14,title=memgate%3A waiver_expired::waiver for 'checkpoint' (memory_saving_below_floor, owner @perf-team) expired on 2027-01-31 and is ignored (today is 2027-02-01)" \
	"github: a warning annotation at expires: says it expired and when"
mg check -C "$T/two" --today 2027-02-01
expect_out "warning: waiver for 'checkpoint' (memory_saving_below_floor, owner @perf-team) expired on 2027-01-31 and is ignored (today is 2027-02-01)" \
	"text: the expired waiver is a warning"

# --- a waiver close to its expiry gets a notice --------------------------

# waivers_warn_days defaults to 14: 2027-01-17 is 14 days before the
# expiry (a notice), 2027-01-16 is 15 (none).
mg check -C "$T/two" --today 2027-01-16 --format github
expect_code 0 "--today 2027-01-16: the waivers are in force"
if grep -q 'waiver_expiring' "$T/out"; then not_ok "15 days before the expiry: no notice" "$(grep waiver_expiring "$T/out")"
else ok "15 days before the expiry: no notice"; fi
mg check -C "$T/two" --today 2027-01-17 --format github
expect_out "::notice file=.memgate.yml,line=$expires,col=14,title=memgate%3A waiver_expiring::waiver for 'checkpoint' (memory_saving_below_floor, owner @perf-team) expires on 2027-01-31, in 14 days (waivers_warn_days 14; today is 2027-01-17): fix the cause, or renew it in the policy of the base branch" \
	"github: a notice annotation at expires: 14 days before"
mg check -C "$T/two" --today 2027-01-31
expect_code 0 "--today 2027-01-31: still in force on its last day"
expect_out "  notice: waiver for 'checkpoint' (memory_saving_below_floor, owner @perf-team) expires on 2027-01-31, today (waivers_warn_days 14; today is 2027-01-31)" \
	"text: the notice on the last day"
mg check -C "$T/two" --today 2027-01-30 --format json --summary "$T/sum.md"
expect_field waivers.entries.0.status '"applied"'
expect_field waivers.entries.0.expires_in_days 1
if grep -q '| 2027-01-31 | .* applied, expires in 1 day |' "$T/sum.md"; then ok "summary: the status says it expires in 1 day"
else not_ok "summary: the status says it expires in 1 day" "$(grep 2027-01-31 "$T/sum.md")"; fi
mg check -C "$T/two" --today 2027-01-16 --format json
expect_field waivers.entries.0.expires_in_days '<missing>'

# waivers_warn_days: 30 widens the window, 0 turns the notice off.
cp -r "$T/two" "$T/warn30"
sed -i '/^waivers:/i waivers_warn_days: 30' "$T/warn30/.memgate.yml"
commit_all "$T/warn30" "warn 30 days ahead"
mg check -C "$T/warn30" --today 2027-01-01
expect_out "expires on 2027-01-31, in 30 days (waivers_warn_days 30; today is 2027-01-01)" "waivers_warn_days 30: a notice 30 days before"
sed -i 's/^waivers_warn_days: 30/waivers_warn_days: 0/' "$T/warn30/.memgate.yml"
commit_all "$T/warn30" "no notice"
mg check -C "$T/warn30" --today 2027-01-31 --format github
expect_code 0 "waivers_warn_days 0: decided"
if grep -q 'waiver_expiring' "$T/out"; then not_ok "waivers_warn_days 0: no notice, even on the last day"
else ok "waivers_warn_days 0: no notice, even on the last day"; fi
for bad in "-1|'waivers_warn_days' must be at least 0, got '-1'" \
	   "3661|'waivers_warn_days' must be at most 3660, got '3661'" \
	   "two weeks|'waivers_warn_days': expected an integer" \
	   "1.5|'waivers_warn_days': expected an integer"; do
	sed -i "s/^waivers_warn_days: .*/waivers_warn_days: ${bad%%|*}/" "$T/warn30/.memgate.yml"
	commit_all "$T/warn30" "bad warn days"
	mg check -C "$T/warn30" --today 2027-01-01 --json "$T/never.json"
	expect_code 2 "waivers_warn_days ${bad%%|*} is refused"
	expect_err ".memgate.yml:$(line_of "$T/warn30" "waivers_warn_days"):20: ${bad#*|}" "waivers_warn_days ${bad%%|*}: the message names the position"
	expect_no_file "$T/never.json" "waivers_warn_days ${bad%%|*}: nothing is written"
done

# Without --today, the clock's date in UTC (the waivers expire in 2027 or
# later; this test assumes the machine's clock is before then or after).
mg check -C "$T/two" --format json
expect_field waivers.today "\"$(date -u +%Y-%m-%d)\""
expect_field waivers.today_from '"clock (UTC)"'
mg check -C "$T/two" --today 2027-13-01
expect_code 2 "--today must be a real date"
expect_err "--today: no such day '2027-13-01' (a month is 01 to 12)" "and says so"
mg check -C "$T/two" --today tomorrow --json "$T/never.json"
expect_code 2 "--today tomorrow is refused"
expect_no_file "$T/never.json" "nothing is written"

# --- evidence problems cannot be waived ----------------------------------

# refused NAME REASON-OR-FIELDS MESSAGE: a waivers section whose entry is
# FIELDS is refused with exit 2, the policy's file:line:col and MESSAGE.
refused() {
	local name=$1 fields=$2 msg=$3 dir=$T/bad-$1
	printf 'waivers:\n  - %s\n' "$fields" >"$T/$name.yml"
	demo_repo "$dir" "$T/$name.yml"
	mg check -C "$dir" --today 2026-06-01 --json "$T/bad.json"
	expect_code 2 "waiver $name is refused"
	expect_err "$msg" "waiver $name: the message names the position and says why"
	expect_no_file "$T/bad.json" "waiver $name: nothing is written"
}
waiver() { # waiver REASON: one line of flow mapping with every field but reason's value
	printf '{ candidate: checkpoint, reason: %s, justification: j, owner: o, expires: 2027-01-31 }' "$1"
}
line=$(( $(wc -l <"$FIX/demo/memgate.yml") + 2 ))
refused hash "$(waiver report_hash_mismatch)" \
	".memgate.yml:$line:38: 'waivers[0].reason': 'report_hash_mismatch' is an evidence problem and cannot be waived: fix the evidence instead"
refused applicability "$(waiver evidence_not_applicable)" \
	"'evidence_not_applicable' is an evidence problem and cannot be waived"
refused identity "$(waiver hardware_mismatch)" "'hardware_mismatch' is an evidence problem and cannot be waived"
refused oom "$(waiver oom)" "'oom' is an evidence problem and cannot be waived"
refused metric "$(waiver missing_or_non_numeric_metric)" \
	"'missing_or_non_numeric_metric' is an evidence problem and cannot be waived"
refused sensitivity "$(waiver selection_is_threshold_sensitive)" \
	"'selection_is_threshold_sensitive' is not a threshold's reason and cannot be waived"
refused typo "$(waiver memory_over_budgt)" "unknown reason 'memory_over_budgt' (did you mean 'memory_over_budget'?)"
refused no-owner "{ candidate: checkpoint, reason: oom_x, justification: j, expires: 2027-01-31 }" \
	"unknown reason 'oom_x'"
refused missing-owner "{ candidate: checkpoint, reason: memory_over_budget, justification: j, expires: 2027-01-31 }" \
	".memgate.yml:$line:5: missing required key 'owner' in 'waivers[0]'"
refused bad-date "{ candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2027-02-30 }" \
	"'waivers[0].expires': no such day '2027-02-30' (February 2027 has 28 days)"
refused unknown-key "{ candidate: c, reason: memory_over_budget, justification: j, owner: o, expires: 2027-02-03, until: x }" \
	"unknown key 'until' (expected one of: candidate, reason, justification, owner, expires, up_to_pct)"
refused empty-owner "{ candidate: c, reason: memory_over_budget, justification: j, owner: '', expires: 2027-02-03 }" \
	"'waivers[0].owner' must not be empty"
printf 'waivers:\n  - %s\n  - %s\n' "$(waiver memory_over_budget)" "$(waiver memory_over_budget)" >"$T/twice.yml"
demo_repo "$T/twice" "$T/twice.yml"
mg check -C "$T/twice"
expect_code 2 "the same candidate and reason twice is refused"
expect_err "'waivers[1]' waives memory_over_budget for this candidate again (first at $line:5)" \
	"and names the first"

# --- a pull request cannot waive its own failure ------------------------

demo_repo "$T/pr"
base=$(g -C "$T/pr" rev-parse HEAD)
cat "$T/one.yml" >>"$T/pr/.memgate.yml"
commit_all "$T/pr" "waive my own failure"
mg check -C "$T/pr" --policy-rev "$base" --today 2026-06-01 --format json
expect_code 1 "with the base's policy the head's waiver does not apply"
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field policy_changes.0.key '"waivers[checkpoint].memory_saving_below_floor"'
expect_field policy_changes.0.before 'null'
expect_field policy_changes.0.after '"2027-01-31"'
expect_field policy_changes.0.effect '"loosens"'
mg check -C "$T/pr" --policy-rev "$base" --today 2026-06-01
expect_out "policy change: waivers[checkpoint].memory_saving_below_floor was unset at the policy revision, is '2027-01-31' at the evidence revision (loosens the budget)" \
	"text: an added waiver loosens the budget"

# A waiver added with an expiry already past is expired, not a loosening.
demo_repo "$T/late"
base=$(g -C "$T/late" rev-parse HEAD)
cat "$T/one.yml" >>"$T/late/.memgate.yml"
commit_all "$T/late" "waive with a date already past"
mg check -C "$T/late" --policy-rev "$base" --today 2027-03-01 --format json
expect_field policy_changes.0.after '"2027-01-31"'
expect_field policy_changes.0.effect '"expired"'
mg check -C "$T/late" --policy-rev "$base" --today 2027-03-01
expect_out "policy change: waivers[checkpoint].memory_saving_below_floor was unset at the policy revision, is '2027-01-31' at the evidence revision (expired: that date has passed, today is 2027-03-01; it waives nothing)" \
	"text: an added waiver already expired is called expired"
if grep -q 'loosen' "$T/out"; then not_ok "text: the expired waiver is not called loosening" "$(grep loosen "$T/out")"
else ok "text: the expired waiver is not called loosening"; fi
mg check -C "$T/late" --policy-rev "$base" --today 2027-03-01 --format github
expect_out "::warning file=.memgate.yml,line=$(line_of "$T/late" "- candidate: checkpoint"),col=5,title=memgate%3A policy_change::waivers[checkpoint].memory_saving_below_floor is unset in the policy that decides (the policy revision), '2027-01-31' in this change: that date has passed (today is 2027-03-01), so the waiver is expired and waives nothing once merged" \
	"github: the annotation says expired"

# Extended and removed waivers.
base=$(g -C "$T/two" rev-parse HEAD)
sed -i -e '0,/expires: 2027-01-31/s//expires: 2027-06-30/' "$T/two/.memgate.yml"
sed -i -e '/reason: samples_per_s_below_floor/,$d' "$T/two/.memgate.yml"
sed -i -e '$d' "$T/two/.memgate.yml"
commit_all "$T/two" "extend one waiver, drop the other"
mg check -C "$T/two" --policy-rev "$base" --today 2026-06-01 --format json
expect_field policy_changes.0.key '"waivers[checkpoint].memory_saving_below_floor"'
expect_field policy_changes.0.before '"2027-01-31"'
expect_field policy_changes.0.after '"2027-06-30"'
expect_field policy_changes.0.effect '"loosens"'
expect_field policy_changes.1.key '"waivers[checkpoint].samples_per_s_below_floor"'
expect_field policy_changes.1.after 'null'
expect_field policy_changes.1.effect '"tightens"'

# --- records stay write-once across days ---------------------------------

mg record -C "$T/one" --today 2026-06-01 --out "$T/rec.json"
expect_field waivers.today '"2026-06-01"' "$T/rec.json"
mg record -C "$T/one" --today 2026-06-02 --out "$T/rec.json"
expect_code 1 "a later day with the same waivers re-records nothing"
expect_err "record unchanged" "and says the record is unchanged"
mg record -C "$T/one" --today 2027-02-01 --out "$T/rec.json"
expect_code 2 "an expired waiver changes the record: refused"

finish
