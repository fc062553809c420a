#!/usr/bin/env bash
# Every key of every policy section is a policy change when a pull request
# alters it (memgate(1), CI, "Pull requests"): regression: and provenance:
# as the budget's, each listed with the way it moves the gate in the text,
# the record's policy_changes and an annotation at the key.
. "$(dirname "$0")/lib.sh"

# A signer's public key for the allowed-signers files (never used to sign).
KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"

# policy FILE [LINES...]: a policy that accepts checkpoint, then LINES as written.
policy() {
	local file=$1
	shift
	cat >"$file" <<'YAML'
version: 1
manifest: benchmarks/results/75_input_manifest.json
identity:
  workload_id: train
  hardware_id: gpu-a
budget:
  memory_cap_mb: 80000
YAML
	[ $# -eq 0 ] || printf '%s\n' "$@" >>"$file"
}

# change NAME BASE-LINES -- HEAD-LINES: main with the base's policy, branch
# pr with the head's; the same report on both.
change() {
	local dir=$T/$1 a=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	rm -rf "$dir"
	mkdir -p "$dir/benchmarks/results"
	g init -q "$dir"
	policy "$dir/.memgate.yml" "${a[@]}"
	cat >"$dir/$REPORT_PATH" <<'JSON'
{ "workload_id": "train", "hardware_id": "gpu-a", "candidates": [
  { "name": "baseline", "peak_memory_mb": 70000, "samples_per_s": 10.0, "eval_loss": 2.0 },
  { "name": "checkpoint", "peak_memory_mb": 52000, "samples_per_s": 8.0, "eval_loss": 2.0 } ] }
JSON
	write_manifest "$dir"
	mkdir -p "$dir/.memgate"
	echo "ci@memgate.invalid $KEY" >"$dir/.memgate/allowed_signers"
	cp "$dir/.memgate/allowed_signers" "$dir/.memgate/signers"
	commit_all "$dir" "the base"
	g -C "$dir" checkout -q -b pr
	policy "$dir/.memgate.yml" "$@"
	commit_all "$dir" "the pull request's policy"
	repo=$dir
}

# listed KEY BEFORE AFTER EFFECT WORDS: the only change is KEY from BEFORE to
# AFTER (JSON), EFFECT (tightens, loosens, changes), in the record, a text
# line and an annotation whose title is policy_change.
listed() {
	local key=$1 before=$2 after=$3 effect=$4 words=$5 level=warning
	mg check -C "$repo" --policy-rev main --format json
	expect_field policy_changes.0.key "\"$key\""
	expect_field policy_changes.0.before "$before"
	expect_field policy_changes.0.after "$after"
	expect_field policy_changes.0.effect "\"$effect\""
	mg check -C "$repo" --policy-rev main
	expect_out "policy change: $key was " "$key: a text line"
	expect_out "($words)" "$key: the text says it $effect"
	[ "$effect" = loosens ] || level=notice
	mg check -C "$repo" --policy-rev main --format github
	if grep -q "^::$level file=.memgate.yml,.*title=memgate%3A policy_change::$key is .*: it $words once merged" "$T/out"
	then ok "$key: an annotation ($level)"
	else not_ok "$key: an annotation ($level)"; fi
}

R=regression:
change pct "$R" "  max_peak_increase_pct: 5" -- "$R" "  max_peak_increase_pct: 50"
listed regression.max_peak_increase_pct 5 50 loosens "loosens the budget"
change pct "$R" "  max_peak_increase_pct: 50" -- "$R" "  max_peak_increase_pct: 5"
listed regression.max_peak_increase_pct 50 5 tightens "tightens the budget"

change decision "$R" "  max_peak_increase_pct: 5" "  decision: reject" -- \
	"$R" "  max_peak_increase_pct: 5" "  decision: tune"
listed regression.decision '"reject"' '"tune"' loosens "loosens the budget"
change decision "$R" "  max_peak_increase_pct: 5" -- \
	"$R" "  max_peak_increase_pct: 5" "  decision: reject"
listed regression.decision '"tune"' '"reject"' tightens "tightens the budget"

change covers "$R" "  max_peak_increase_pct: 5" "  covers: all" -- \
	"$R" "  max_peak_increase_pct: 5" "  covers: selected"
listed regression.covers '"all"' '"selected"' loosens "loosens the budget"
change covers "$R" "  max_peak_increase_pct: 5" -- \
	"$R" "  max_peak_increase_pct: 5" "  covers: all"
listed regression.covers '"selected"' '"all"' tightens "tightens the budget"

change history "$R" "  max_peak_increase_pct: 5" -- \
	"$R" "  max_peak_increase_pct: 5" "  history: 3"
listed regression.history null 3 changes "changes the policy"
change history "$R" "  max_peak_increase_pct: 5" "  history: 3" "  history_max_commits: 50" -- \
	"$R" "  max_peak_increase_pct: 5" "  history: 3" "  history_max_commits: 80"
listed regression.history_max_commits 50 80 changes "changes the policy"

# The whole section removed loosens each key it set; added tightens each.
change removed "$R" "  max_peak_increase_pct: 5" --
listed regression.max_peak_increase_pct 5 null loosens "loosens the budget"
mg check -C "$repo" --policy-rev main --format json
expect_field policy_changes.1.key '"regression.covers"'
expect_field policy_changes.1.effect '"loosens"'
expect_field policy_changes.2.key '"regression.decision"'
expect_field policy_changes.2.effect '"loosens"'
change added -- "$R" "  max_eval_loss_increase: 0.1"
listed regression.max_eval_loss_increase null 0.1 tightens "tightens the budget"

# provenance: require dropped loosens; another signers path or namespace changes.
P=provenance:
S="  allowed_signers: .memgate/allowed_signers"
change require "$P" "$S" "  require: true" -- "$P" "$S" "  require: false"
listed provenance.require '"true"' '"false"' loosens "loosens the budget"
change signers "$P" "$S" -- "$P" "  allowed_signers: .memgate/signers"
listed provenance.allowed_signers '".memgate/allowed_signers"' '".memgate/signers"' changes \
	"changes the policy"
change namespace "$P" "$S" "  namespace: memgate" -- "$P" "$S" "  namespace: ci"
listed provenance.namespace '"memgate"' '"ci"' changes "changes the policy"

finish
