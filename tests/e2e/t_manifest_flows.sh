#!/usr/bin/env bash
# Manifests and evidence as a team lives them: `memgate manifest` for a new
# report (--worktree, and a warning without it), --force keeping the
# approved_result, --semantic-id checked against the report, reports stored
# with Git LFS (read from the local LFS store, without the git-lfs client),
# and text output that shows the details behind each evidence issue.
. "$(dirname "$0")/lib.sh"

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
NESTED=$FIX/reports/76_real_gpu_memory_v1.nested.json
APPROVED=benchmarks/results/75_approved.json

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# ---- 12. a new report copied over the committed one ----
make_gate_repo "$T/new" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/new
old=$(sha_of "$repo/$REPORT_PATH")
sed 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9000.5/' "$FLAT" >"$repo/$REPORT_PATH"
new=$(sha_of "$repo/$REPORT_PATH")
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force
expect_code 0 "manifest without --worktree pins the committed report"
expect_field source.sha256 "\"$old\"" "$repo/$MANIFEST_PATH"
expect_err "memgate: warning: '$REPORT_PATH' in the working tree differs from the version committed at $(g -C "$repo" rev-parse --short=7 HEAD)" \
	"a warning says the working-tree report differs"
expect_err "use --worktree" "the warning says what to do"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --worktree --force
expect_code 0 "manifest --worktree"
expect_field source.sha256 "\"$new\"" "$repo/$MANIFEST_PATH"
expect_no_err "differs" "no warning with --worktree"
# "Try a report before committing it" now works for a new report.
mg check -C "$repo" --worktree --format json
expect_field evidence.is_applicable true
expect_field inputs.report.sha256 "\"$new\""
commit_all "$repo" "new report and its manifest"
mg check -C "$repo" --format json
expect_field evidence.is_applicable true
expect_field evidence.issues '[]'
# A report not committed at all: --worktree is the only way.
cp "$FLAT" "$repo/benchmarks/results/76_next.json"
mg manifest -C "$repo" --report benchmarks/results/76_next.json
expect_code 2 "an uncommitted report without --worktree"
expect_err "it is untracked: git add it, then commit" "says it is not committed"
mg manifest -C "$repo" --report benchmarks/results/76_next.json --worktree
expect_code 0 "an uncommitted report with --worktree"
expect_out "\"sha256\": \"$(sha_of "$FLAT")\"" "pins the working-tree file"

# ---- 13. --force keeps the approved_result ----
make_gate_repo "$T/keep" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/keep
mg record -C "$repo" --out "$repo/$APPROVED"
cat >"$repo/$MANIFEST_PATH" <<JSON
{
  "source": { "path": "$REPORT_PATH", "sha256": "$(sha_of "$repo/$REPORT_PATH")" },
  "approved_result": { "path": "$APPROVED", "sha256": "$(sha_of "$repo/$APPROVED")" }
}
JSON
commit_all "$repo" "approve"
approved_sha=$(sha_of "$repo/$APPROVED")
sed -i 's/"samples_per_s": 1.761/"samples_per_s": 1.8/' "$repo/$REPORT_PATH"
commit_all "$repo" "re-measured"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force
expect_code 0 "manifest --force"
expect_field source.sha256 "\"$(sha_of "$repo/$REPORT_PATH")\"" "$repo/$MANIFEST_PATH"
expect_field approved_result.path "\"$APPROVED\"" "$repo/$MANIFEST_PATH"
expect_field approved_result.sha256 "\"$approved_sha\"" "$repo/$MANIFEST_PATH"
expect_err "memgate: note: kept approved_result '$APPROVED' from the existing manifest" "a note says it was kept"
# Regenerating the same manifest is a no-op, approved_result and all.
cp "$repo/$MANIFEST_PATH" "$T/kept.json"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH"
expect_code 0 "the same manifest again needs no --force"
if cmp -s "$repo/$MANIFEST_PATH" "$T/kept.json"; then ok "the manifest is unchanged"; else not_ok "the manifest is unchanged"; fi
# An existing file that is not a manifest: replaced with --force, with a warning.
echo "not json" >"$T/junk.json"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$T/junk.json" --force
expect_code 0 "--force replaces a file that is not a manifest"
expect_err "the existing manifest cannot be read, so no approved_result is kept" "and says nothing was kept"

# ---- 14. --semantic-id is checked against the report ----
make_gate_repo "$T/sid" "$E/real-flat-11200.yml" "$NESTED"
repo=$T/sid
mg manifest -C "$repo" --report "$REPORT_PATH" --semantic-id PERF-MEMORY-STRATEGY --out "$T/sid.json"
expect_code 2 "--semantic-id on a report without semantic_id"
expect_err "--semantic-id 'PERF-MEMORY-STRATEGY': the report has no semantic_id" "says the report has none"
expect_err "semantic_id_mismatch" "and what the next check would say"
expect_no_file "$T/sid.json" "nothing written"
sed -i 's/"schema_version": "training-memory-benchmark\/v1",/"schema_version": "training-memory-benchmark\/v1",\n  "semantic_id": "PERF-MEMORY-STRATEGY",/' "$repo/$REPORT_PATH"
commit_all "$repo" "semantic id"
line=$(grep -n -m1 '"semantic_id"' "$repo/$REPORT_PATH" | cut -d: -f1)
mg manifest -C "$repo" --report "$REPORT_PATH" --semantic-id PERF-MEMORY
expect_code 2 "--semantic-id that differs from the report's"
expect_err "$REPORT_PATH:$line:18: --semantic-id 'PERF-MEMORY' differs from the report's semantic_id 'PERF-MEMORY-STRATEGY'" \
	"the error points at the report's semantic_id"
mg manifest -C "$repo" --report "$REPORT_PATH" --semantic-id PERF-MEMORY-STRATEGY --out "$repo/$MANIFEST_PATH" --force
expect_code 0 "--semantic-id equal to the report's"
expect_field source.semantic_id '"PERF-MEMORY-STRATEGY"' "$repo/$MANIFEST_PATH"
commit_all "$repo" "manifest with semantic id"
mg check -C "$repo" --format json
expect_field evidence.issues '[]'

# ---- 15. Git LFS: the report is read from the local LFS store ----
# No git-lfs client: the pointer is committed as a file and the object is
# put where `git lfs pull` puts it.
lfs_put() { # lfs_put REPO FILE: write FILE's LFS pointer at REPORT_PATH and its object in the store
	local oid size dir
	oid=$(sha_of "$2")
	size=$(wc -c <"$2" | tr -d ' ')
	printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %s\n' "$oid" "$size" \
		>"$1/$REPORT_PATH"
	dir=$(g -C "$1" rev-parse --git-common-dir)
	case $dir in /*) ;; *) dir=$1/$dir ;; esac
	mkdir -p "$dir/lfs/objects/${oid:0:2}/${oid:2:2}"
	cp "$2" "$dir/lfs/objects/${oid:0:2}/${oid:2:2}/$oid"
	LFS_OBJECT=$dir/lfs/objects/${oid:0:2}/${oid:2:2}/$oid
}
repo=$T/lfs
g init -q "$repo"
mkdir -p "$repo/benchmarks/results"
cp "$E/real-flat-11200.yml" "$repo/.memgate.yml"
lfs_put "$repo" "$FLAT"
commit_all "$repo" "report in LFS"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH"
expect_code 0 "manifest of an LFS report"
expect_field source.sha256 "\"$(sha_of "$FLAT")\"" "$repo/$MANIFEST_PATH"
commit_all "$repo" "manifest"
mg check -C "$repo" --format json
expect_code 1 "an LFS report is gated (tune)"
expect_field decision '"tune"'
expect_field evidence.issues '[]'
expect_field inputs.report.sha256 "\"$(sha_of "$FLAT")\""
expect_field inputs.report.blob "\"$(g -C "$repo" rev-parse "HEAD:$REPORT_PATH")\""
mg check -C "$repo"
expect_out "note: '$REPORT_PATH' is stored with Git LFS" "the text says the report came from LFS"
expect_no_err "uncommitted" "no uncommitted-change warning for the pointer"
# A linked worktree shares the main repository's LFS store.
g -C "$repo" worktree add -q "$T/lfs-wt"
mg check -C "$T/lfs-wt" --format json
expect_code 1 "an LFS report in a linked worktree"
expect_field evidence.issues '[]'
# A corrupt object.
cp "$LFS_OBJECT" "$T/object"
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9450.77/' "$LFS_OBJECT"
mg check -C "$repo" --json "$T/never.json"
expect_code 2 "a corrupt LFS object"
expect_err "is corrupt: its SHA-256 is" "says the object is corrupt"
expect_no_file "$T/never.json" "nothing written"
# The object absent (no `git lfs pull` yet).
rm -f "$LFS_OBJECT"
mg check -C "$repo"
expect_code 2 "an LFS object that is not in the store"
expect_err "$REPORT_PATH: is a Git LFS pointer at $(g -C "$repo" rev-parse --short=7 HEAD)" "names the pointer and commit"
expect_err "is not in the local LFS store; fetch it with 'git lfs pull' (actions/checkout: lfs: true)" "says how to fetch it"
cp "$T/object" "$LFS_OBJECT"

# ---- 16. the text output shows the details ----
make_gate_repo "$T/details" "$E/real-flat-11200.yml" "$FLAT"
repo=$T/details
sed -i 's/^  hardware_id: .*/  hardware_id: NVIDIA H100/; s/^  model_id: .*/  model_id: Qwen\/Qwen2.5-0.5B-Instruct\n  amp_dtype: torch.bfloat16/' "$repo/.memgate.yml"
echo " " >>"$repo/$REPORT_PATH"
commit_all "$repo" "wrong GPU, a pin the report lacks, a stale manifest"
mg check -C "$repo"
expect_code 1 "evidence not applicable"
expect_out "evidence: not applicable: report_hash_mismatch, hardware_mismatch, amp_dtype_mismatch" "the issues are listed"
expect_out "the report's hardware_id is 'NVIDIA GeForce RTX 5070 Ti Laptop GPU'; the policy pins 'NVIDIA H100' [hardware_mismatch]" \
	"text shows the report's hardware_id and the pin"
expect_out "the report has no amp_dtype (read from config.amp_dtype); the policy pins 'torch.bfloat16' [amp_dtype_mismatch]" \
	"text says the report lacks a pinned field"
expect_out "report '$REPORT_PATH' has SHA-256 $(sha_of "$repo/$REPORT_PATH"); the manifest pins $(sha_of "$FLAT")" \
	"text shows both hashes"
expect_out "pin it with 'memgate manifest -C $(cd -P "$repo" && pwd -P) --report $REPORT_PATH --out $(cd -P "$repo" && pwd -P)/$MANIFEST_PATH --force'" \
	"text says how to regenerate the manifest, with paths that work from outside the repository"
(cd "$repo" && "$MEMGATE" check) >"$T/out" 2>"$T/err"
expect_out "pin it with 'memgate manifest --report $REPORT_PATH --out $MANIFEST_PATH --force'" \
	"from its top level, the paths from the root"
expect_out "$MANIFEST_PATH:4:15: report" "the hash detail points at the manifest line"
if grep -q "nothing" "$T/out"; then not_ok "no 'nothing' for a missing value"; else ok "no 'nothing' for a missing value"; fi

finish
