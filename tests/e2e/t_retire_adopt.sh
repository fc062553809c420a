#!/usr/bin/env bash
# No policy judges itself while another retires (issue 30, item 2): a pull
# request that deletes a policy with its evidence and adds a policy for the
# same workload, written differently enough that git's rename detection
# does not pair them, would have its own budget decide ("adopted") while
# the base's was "retired".  Every variant fails, through the CLI and the
# Action's check step as action.yml runs it (all: true); a rename git pairs
# is judged by the base's policy; adoption alone stays adoption.
. "$(dirname "$0")/lib.sh"

FLAT=$FIX/reports/76_real_gpu_memory.flat.json

# protected_repo DIR: the root policy caps memory at 3150 MB (the report's
# 9450 MB peak is 3x over it: reject), with its evidence, on main.
protected_repo() {
	make_gate_repo "$1" "$FIX/e2e/real-flat-11200.yml" "$FLAT"
	sed -i 's|memory_cap_mb: 11200|memory_cap_mb: 3150|; s|memory_cap_mb: \[9600, 11200\]|memory_cap_mb: [3000, 3150]|' \
		"$1/.memgate.yml"
	commit_all "$1" "a protected cap"
	g -C "$1" branch -q -M main
}

# loose_policy DIR FOLDER [SED]: FOLDER/.memgate.yml, 100x looser, its
# keys in another order and its comments rewritten (no rename pairing),
# with the same report under FOLDER, named directly (no manifest).
loose_policy() {
	local dir=$1 f=$2
	mkdir -p "$dir/$f/bench"
	# the same numbers, laid out anew (so that git pairs no file either)
	python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), sys.stdout, indent=1)' \
		"$FLAT" >"$dir/$f/bench/76.json"
	cat >"$dir/$f/.memgate.yml" <<YAML
# the model's own budget, written for its new home
version: 1
gate: { fail_on: [reject, tune] }
budget: { memory_cap_mb: 315000, min_samples_per_s: 0.01, min_memory_saving_mb: 1, min_throughput_ratio: 0.01 }
quality: { max_relative_eval_loss: 0.5 }
identity: { workload_id: pressure, hardware_id: "${3:-NVIDIA GeForce RTX 5070 Ti Laptop GPU}", model_id: Qwen/Qwen2.5-0.5B-Instruct }
report: $f/bench/76.json
YAML
}

retire_root() {
	g -C "$1" rm -q .memgate.yml "$REPORT_PATH" "$MANIFEST_PATH"
}

R=$T/r
protected_repo "$R"
BASE=$(g -C "$R" rev-parse main)

mg check -C "$R" --all
expect_code 1 "main: the report is 3x over the protected cap"

# --- the attack -------------------------------------------------------------------

g -C "$R" checkout -q -b attack main
retire_root "$R"
loose_policy "$R" models/w
commit_all "$R" "move the model (retire + adopt)"
if g -C "$R" diff --name-status -M main HEAD | grep -q '^R'; then
	not_ok "the attack's files are not paired by git's rename detection"
else
	ok "the attack's files are not paired by git's rename detection"
fi
mg check -C "$R" --all --policy-rev main
expect_code 2 "retire + adopt in one change fails"
expect_err "'.memgate.yml' is retired: the change deletes it with its evidence" "the retired policy is named"
expect_err "models/w/.memgate.yml: the change adds this policy while it retires '.memgate.yml'" \
	"the added policy: why it cannot judge itself"
expect_err "retire and adopt in separate pull requests" "and what to do"
# the error once on stdout (the table) and once on stderr, not again in
# the policy's section (issue 35, item 4)
expect_out "memgate: could not decide (the error: in the table below)" "the section points at the table"
if [ "$(grep -c "the change adds this policy while it retires" "$T/out")" = 1 ] &&
   [ "$(grep -c "the change adds this policy while it retires" "$T/err")" = 1 ]; then
	ok "the error is printed once on stdout and once on stderr"
else
	not_ok "the error is printed once on stdout and once on stderr"
fi
mg check -C "$R" --all --changed --policy-rev main
expect_code 2 "--all --changed: the same"
mg check -C "$R" --policy models/w/.memgate.yml --policy-rev main
expect_code 2 "a single --policy: the same"
expect_err "the change adds this policy while it retires '.memgate.yml'" "a single --policy: the same reason"
: >"$T/gh-output"
action_step check "$R" MEMGATE_ALL=true MEMGATE_POLICY_REV="$BASE"
expect_code 2 "the Action (all: true) fails it"
expect_out "::error file=models/w/.memgate.yml" "an annotation on the added policy"

# --- variants -------------------------------------------------------------------

g -C "$R" checkout -q -b two-added main
retire_root "$R"
loose_policy "$R" models/w
loose_policy "$R" models/v
commit_all "$R" "two added, one retired"
mg check -C "$R" --all --policy-rev main --format json
expect_code 2 "two added, one retired: fails"
if [ "$(grep -c 'the change adds this policy while it retires' "$T/err")" = 2 ]; then
	ok "two added, one retired: both added policies are refused"
else
	not_ok "two added, one retired: both added policies are refused"
fi

g -C "$R" checkout -q -b one-pin main
retire_root "$R"
loose_policy "$R" models/w "NVIDIA GeForce RTX 5070 Ti Laptop GPU (rev b)"
commit_all "$R" "the identity changed by one pin"
mg check -C "$R" --all --policy-rev main
expect_code 2 "an identity changed by one pin: fails"
expect_err "while it retires '.memgate.yml'" "an identity changed by one pin: the same reason"

g -C "$R" checkout -q -b paired main
mkdir -p "$R/models/w"
g -C "$R" mv .memgate.yml models/w/.memgate.yml
sed -i 's|memory_cap_mb: 3150|memory_cap_mb: 315000|' "$R/models/w/.memgate.yml"
commit_all "$R" "a rename git pairs, loosened"
mg check -C "$R" --all --policy-rev main
expect_code 1 "a rename git pairs: the base's policy decides, and rejects"
expect_out "the change moves '.memgate.yml' to 'models/w/.memgate.yml'" "says the policy moved"
expect_out "memgate: reject" "the protected cap still decides"

# --- adoption alone stays adoption ----------------------------------------------

g -C "$R" checkout -q -b adopt-beside main
loose_policy "$R" models/new
commit_all "$R" "a second model, nothing retired"
mg check -C "$R" --all --policy-rev main --format json
expect_field policies.1.policy '"models/new/.memgate.yml"'
expect_field policies.1.record.decision '"accept"'
mg check -C "$R" --all --policy-rev main
expect_out "adopting memgate: the policy revision ${BASE:0:7} has no 'models/new/.memgate.yml'" \
	"a new policy beside the base's is adopted"
expect_out "pins the identity (workload_id, hardware_id, model_id) of '.memgate.yml'" \
	"with a warning naming the base policy of the same identity"

A=$T/fresh
g init -q "$A"
echo "no gate yet" >"$A/README.md"
commit_all "$A" "before memgate"
g -C "$A" branch -q -M main
g -C "$A" checkout -q -b adopt
loose_policy "$A" models/w
commit_all "$A" "adopt memgate"
mg check -C "$A" --all --policy-rev main
expect_code 0 "adoption with nothing retired and no base policy: its own budget decides"
expect_no_err "while it retires" "no refusal"

echo "# retire-adopt: $PASSED checks"
[ "$FAILED" -eq 0 ]
