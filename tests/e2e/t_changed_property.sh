#!/usr/bin/env bash
# check --all --changed is an optimisation, never another verdict (issue
# 30): on random monorepos built with the real git (models with and without
# evidence.inputs, signed evidence, regression budgets) and random changes
# (code under inputs and outside them, shared code, signatures replaced,
# allowed signers edited, reports edited or re-measured, policies tightened
# or loosened, folders renamed, models retired and added), every policy
# --changed gates decides exactly as plain --all decides it, and every
# policy it calls unchanged decides at --rev what it decided at
# --policy-rev.  Fixed seeds; the counts are printed.
. "$(dirname "$0")/lib.sh"

if ! command -v ssh-keygen >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	echo "ok - # SKIP needs ssh-keygen and python3 (actions/install-deps installs them)"
	exit 0
fi

FLAT=$FIX/reports/76_real_gpu_memory.flat.json
SEEDS=${MG_CHANGED_SEEDS:-40}
ssh_key runner other

# pick N: PICK is a random number in 0..N-1, from bash's seeded $RANDOM in
# this shell (a subshell would seed its own: the runs would differ)
pick() { PICK=$((RANDOM % $1)); }

# write_model DIR M: models/M with its code, report, policy (features drawn
# at random: evidence.inputs, provenance, a regression budget), manifest
# measured at HEAD (the code's commit) and signed when the policy asks.
write_model() {
	local dir=$1 m=$2 inputs prov regress
	pick 2; inputs=${FEATURES:-$PICK}
	pick 2; prov=${FEATURES:-$PICK}
	pick 2; regress=$PICK
	mkdir -p "$dir/models/$m/bench" "$dir/models/$m/src"
	echo "print('$m')" >"$dir/models/$m/src/train.py"
	commit_all "$dir" "$m: code"
	cp "$FLAT" "$dir/models/$m/bench/76_report.json"
	{
		sed -e "s|^manifest: .*|manifest: models/$m/bench/75_input_manifest.json|" \
		    -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' \
		    -e '/^  grid:/,/^    min_samples_per_s:/d' \
		    -e '/^evidence:$/,/^  baseline: baseline$/d'  "$FIX/demo/memgate.yml"
		printf 'evidence:\n  baseline: baseline\n'
		if [ "$inputs" = 1 ]; then
			printf '  inputs:\n    - "models/%s/src"\n    - "src/shared/**"\n' "$m"
		fi
		[ "$prov" = 1 ] && printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n'
		[ "$regress" = 1 ] && printf 'regression:\n  max_peak_increase_pct: 5\n'
	} >"$dir/models/$m/.memgate.yml"
	measure "$dir" "$m"
}

# measure DIR M: the runner pins the report (measured at HEAD) and signs.
measure() {
	local dir=$1 m=$2 man=models/$2/bench/75_input_manifest.json
	"$MEMGATE" manifest -C "$dir" --worktree --force --measured-commit HEAD \
		--report "models/$m/bench/76_report.json" --out "$dir/$man" >/dev/null 2>&1 ||
		echo "# cannot pin models/$m"
	if grep -q '^provenance:' "$dir/models/$m/.memgate.yml"; then
		rm -f "$dir/$man.sig"
		ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$dir/$man" 2>/dev/null
	fi
}

# models DIR: the models of the working tree
models() { (cd "$1/models" 2>/dev/null && ls); }

# change DIR: one random change, described on stdout.
change() {
	local dir=$1 ms m k
	ms=($(models "$dir"))
	[ ${#ms[@]} -gt 0 ] || { echo "add"; write_model "$dir" "m$RANDOM"; return; }
	pick ${#ms[@]}; m=${ms[$PICK]}
	pick 13; k=$PICK
	case $k in
	0) echo "code $m"; echo "# tuned" >>"$dir/models/$m/src/train.py" ;;
	1) echo "shared code"; mkdir -p "$dir/src/shared"; echo "x = $RANDOM" >>"$dir/src/shared/util.py" ;;
	2) echo "docs"; echo "notes $RANDOM" >>"$dir/README.md" ;;
	3) echo "garbage signature $m"
	   echo "not a signature" >"$dir/models/$m/bench/75_input_manifest.json.sig" ;;
	4) echo "allowed signers"
	   printf 'intruder@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/other.pub")" \
		>>"$dir/.memgate/allowed_signers" ;;
	5) echo "report edited $m"
	   sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 9460.76|' "$dir/models/$m/bench/76_report.json" ;;
	6) echo "re-measured $m (+8 % peak)"
	   sed -i 's|"peak_memory_mb": 9450.76|"peak_memory_mb": 10206.82|' "$dir/models/$m/bench/76_report.json"
	   measure "$dir" "$m" ;;
	7) echo "tightened $m"; sed -i 's|min_samples_per_s: 1.0|min_samples_per_s: 1.1|' "$dir/models/$m/.memgate.yml" ;;
	8) echo "loosened $m"; sed -i 's|memory_cap_mb: 11200|memory_cap_mb: 12000|' "$dir/models/$m/.memgate.yml" ;;
	9) echo "renamed $m"
	   g -C "$dir" mv "models/$m" "models/$m-moved"
	   sed -i "s|models/$m/|models/$m-moved/|g" "$dir/models/$m-moved/.memgate.yml"
	   measure "$dir" "$m-moved" ;;
	10) echo "retired $m"; g -C "$dir" rm -q -r "models/$m" ;;
	11) echo "added"; write_model "$dir" "n$RANDOM" ;;
	12) echo "re-signed $m by another key"
	    rm -f "$dir/models/$m/bench/75_input_manifest.json.sig"
	    ssh-keygen -q -Y sign -n memgate -f "$T/other" "$dir/models/$m/bench/75_input_manifest.json" 2>/dev/null ;;
	esac
}

# check_seed SEED: one repository, one pull request, compared.
check_seed() {
	local seed=$1 dir=$T/s$1 n i base
	RANDOM=$seed
	rm -rf "$dir"
	g init -q "$dir"
	mkdir -p "$dir/.memgate" "$dir/src/shared"
	printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
		>"$dir/.memgate/allowed_signers"
	echo "x = 0" >"$dir/src/shared/util.py"
	echo "a monorepo" >"$dir/README.md"
	commit_all "$dir" "shared"
	for i in 1 2 3; do write_model "$dir" "m$i"; done
	commit_all "$dir" "three models"
	base=$(g -C "$dir" rev-parse HEAD)
	g -C "$dir" checkout -q -b pr
	pick 3; n=$((1 + PICK))
	for i in $(seq "$n"); do
		change "$dir" >>"$T/changes.$seed"
		commit_all "$dir" "change $i"
	done
	CHANGES=$((CHANGES + n))
	(cd "$dir" && "$MEMGATE" check --all --policy-rev "$base" --format json) >"$T/all.json" 2>/dev/null
	echo $? >"$T/all.rc"
	(cd "$dir" && "$MEMGATE" check --all --changed --policy-rev "$base" --format json) \
		>"$T/changed.json" 2>"$T/changed.err"
	echo $? >"$T/changed.rc"
	(cd "$dir" && "$MEMGATE" check --all --rev "$base" --format json) >"$T/base.json" 2>/dev/null
	python3 - "$T" "$seed" <<'PY'
import json, sys
t, seed = sys.argv[1], sys.argv[2]
def load(name):
    try:
        with open(f"{t}/{name}.json") as f:
            return {p["policy"]: p for p in json.load(f).get("policies", [])}
    except (OSError, ValueError):
        return {}
full, changed, base = load("all"), load("changed"), load("base")
unchanged = [l.split("unchanged, not gated: ", 1)[1].strip()
             for l in open(f"{t}/changed.err") if "unchanged, not gated: " in l]
def verdict(p):
    r = p.get("record") or {}
    ev = r.get("evidence") or {}
    return (p.get("exit_status"), r.get("decision"), r.get("reason"),
            r.get("selected_candidate"), tuple(ev.get("issues") or ()), p.get("error"))
bad = []
for name, p in changed.items():
    if full.get(name) != p:
        bad.append(f"gated {name}: --changed {verdict(p)} but --all {verdict(full.get(name, {}))}")
for name in unchanged:
    if name in changed:
        bad.append(f"{name} both gated and unchanged")
    elif name not in full or name not in base:
        bad.append(f"unchanged {name}: not decided by --all or at the base")
    elif verdict(full[name]) != verdict(base[name]):
        bad.append(f"unchanged {name}: --all decides {verdict(full[name])}, the base {verdict(base[name])}")
for name in full:
    if name not in changed and name not in unchanged:
        bad.append(f"{name}: decided by --all, neither gated nor unchanged by --changed")
with open(f"{t}/counts", "a") as f:
    f.write(f"{len(changed)} {len(unchanged)} {len(bad)}\n")
with open(f"{t}/verdicts", "a") as f:
    for p in full.values():
        f.write(f"{(p.get('record') or {}).get('decision') or 'error'}\n")
for b in bad:
    print(f"#   seed {seed}: {b}")
sys.exit(1 if bad else 0)
PY
}

# --- the reported cases (issue 30, item 1) ----------------------------------
# A model with evidence.inputs and signed evidence, and another beside it:
# a pull request that changes only code under the inputs, only the
# signature, or only the allowed signers is gated, as --all gates it.

R=$T/reported
g init -q "$R"
mkdir -p "$R/.memgate" "$R/src/shared"
printf 'gpu-runner@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/runner.pub")" \
	>"$R/.memgate/allowed_signers"
echo "x = 0" >"$R/src/shared/util.py"
commit_all "$R" "shared"
FEATURES=1 write_model "$R" guarded
FEATURES=0 write_model "$R" other
commit_all "$R" "two models"
BASE=$(g -C "$R" rev-parse HEAD)
G=models/guarded/.memgate.yml

# reported_case NAME DECISION ISSUE: the change on branch NAME, checked both ways
reported_case() {
	mg check -C "$R" --all --policy-rev "$BASE" --format json
	cp "$T/out" "$T/case-all.json"
	mg check -C "$R" --all --changed --policy-rev "$BASE" --format json
	expect_code 1 "$1: --changed fails it"
	expect_field policies.0.policy "\"$G\""
	expect_field policies.0.record.decision "\"$2\""
	expect_field policies.0.record.evidence.issues "[\"$3\"]"
	expect_field policies.1.policy '<missing>'
	expect_err "memgate: unchanged, not gated: models/other/.memgate.yml" "$1: the other model is unchanged"
	if [ "$("$JSONGET" "$T/out" policies.0)" = "$("$JSONGET" "$T/case-all.json" policies.0)" ]; then
		ok "$1: decided as --all decides it"
	else
		not_ok "$1: decided as --all decides it"
	fi
	g -C "$R" checkout -q main 2>/dev/null || g -C "$R" checkout -q master
}

g -C "$R" checkout -q -b stale "$BASE"
echo "# faster" >>"$R/models/guarded/src/train.py"
commit_all "$R" "code under evidence.inputs only"
reported_case "code under evidence.inputs" reject evidence_stale

g -C "$R" checkout -q -b shared-code "$BASE"
echo "y = 1" >>"$R/src/shared/util.py"
commit_all "$R" "shared code under a glob of evidence.inputs"
reported_case "shared code under a glob" reject evidence_stale

g -C "$R" checkout -q -b garbage-sig "$BASE"
echo "not a signature" >"$R/models/guarded/bench/75_input_manifest.json.sig"
commit_all "$R" "MANIFEST.sig replaced by garbage"
reported_case "a garbage MANIFEST.sig" reject signature_malformed

g -C "$R" checkout -q -b signers "$BASE"
printf 'intruder@ci namespaces="memgate" %s\n' "$(cut -d' ' -f1,2 "$T/other.pub")" \
	>>"$R/.memgate/allowed_signers"
commit_all "$R" "a signer added"
mg check -C "$R" --all --changed --policy-rev "$BASE" --format json
expect_field policies.0.policy "\"$G\""
expect_field policies.0.record.decision '"accept"'
expect_field policies.1.policy '<missing>'
mg check -C "$R" --all --changed --policy-rev "$BASE"
expect_out "policy change: provenance.allowed_signers (file) was" "allowed signers changed: gated, with --all's policy change line"
g -C "$R" checkout -q main

# --- random monorepos ----------------------------------------------------------

CHANGES=0
: >"$T/counts"
: >"$T/verdicts"
fails=0
for seed in $(seq 1 "$SEEDS"); do
	if ! check_seed "$seed" >"$T/seed.out"; then
		fails=$((fails + 1))
		not_ok "seed $seed: --all --changed decides as --all" "$(cat "$T/seed.out")" \
			"changes: $(tr '\n' ';' <"$T/changes.$seed")"
	fi
done
read -r gated unchanged mismatches <<<"$(awk '{ g += $1; u += $2; b += $3 } END { print g + 0, u + 0, b + 0 }' "$T/counts")"
echo "# changed-vs-all: $SEEDS repositories, $CHANGES changes, $gated policies gated, $unchanged unchanged, $mismatches mismatches"
echo "# changed-vs-all: --all decided $(sort "$T/verdicts" | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')"
if [ "$fails" = 0 ] && [ "$gated" -gt 0 ] && [ "$unchanged" -gt 0 ]; then
	ok "--all --changed decides as --all on $SEEDS random monorepos ($gated gated, $unchanged unchanged)"
else
	not_ok "--all --changed decides as --all on random monorepos" "$fails seeds differ; $gated gated, $unchanged unchanged"
fi
[ "$FAILED" -eq 0 ]
