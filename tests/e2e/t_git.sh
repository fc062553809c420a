#!/usr/bin/env bash
# Evidence read from git objects: revisions, repository layouts, inputs that
# are not what they seem, uncommitted edits, policies from another commit.
. "$(dirname "$0")/lib.sh"

R=$FIX/reports
E=$FIX/e2e
FLAT=$R/76_real_gpu_memory.flat.json

fresh() { # fresh NAME: a new gate repository with the real flat report
	make_gate_repo "$T/$1" "$E/real-flat-11200.yml" "$FLAT"
	repo=$T/$1
}

# A report edited and committed without updating the manifest.
fresh tampered
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 8450.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "tamper with the report"
mg check -C "$repo" --format json
expect_code 1 "tampered report fails the gate"
expect_field decision '"reject"'
expect_field reason '"evidence_not_applicable"'
expect_field evidence.issues '["report_hash_mismatch"]'
expect_field evaluations.1.peak_memory_mb 8450.76

# --rev reads an older commit.
mg check -C "$repo" --rev HEAD~1 --format json
expect_code 1 "--rev HEAD~1"
expect_field reason '"memory_saving_below_meaningful_threshold"'
expect_field inputs.rev "\"$(g -C "$repo" rev-parse HEAD~1)\""
g -C "$repo" tag v1 HEAD~1
mg check -C "$repo" --rev v1 --format json
expect_field reason '"memory_saving_below_meaningful_threshold"'
short=$(g -C "$repo" rev-parse --short HEAD~1)
mg check -C "$repo" --rev "$short" --format json
expect_field evidence.is_applicable true
mg check -C "$repo" --rev no-such-rev
expect_code 2 "unknown revision"
expect_err "no-such-rev" "unknown revision is named"

# A detached HEAD at the older commit.
g -C "$repo" checkout -q --detach HEAD~1
mg check -C "$repo" --format json
expect_field evidence.is_applicable true
g -C "$repo" checkout -q main

# From a subdirectory, a linked worktree and a bare clone.
fresh layouts
mg check -C "$repo/benchmarks/results" --format json
expect_code 1 "discovered from a subdirectory"
expect_field selected_candidate '"checkpoint"'
g -C "$repo" worktree add -q "$T/linked" -b feature
mg check -C "$T/linked" --format json
expect_code 1 "a linked worktree"
expect_field selected_candidate '"checkpoint"'
g clone -q --bare "$repo" "$T/bare.git"
mg check -C "$T/bare.git" --format json
expect_code 1 "a bare repository"
expect_field selected_candidate '"checkpoint"'

# A shallow clone: HEAD reads, history past the boundary says so.
fresh deep
echo "# more" >>"$repo/.memgate.yml"
commit_all "$repo" "second"
g clone -q --depth 1 "file://$repo" "$T/shallow"
mg check -C "$T/shallow" --format json
expect_code 1 "a shallow clone"
expect_field selected_candidate '"checkpoint"'
mg check -C "$T/shallow" --rev HEAD~1
expect_code 2 "history past the shallow boundary"
expect_err "shallow" "the shallow clone is named as the cause"

# Uncommitted edits: a warning, and the decision still comes from the commit.
fresh dirty
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 1.0/' "$repo/$REPORT_PATH"
mg check -C "$repo" --format json
expect_code 1 "uncommitted edit does not change the decision"
expect_field evidence.is_applicable true
expect_field evaluations.1.peak_memory_mb 9450.76
expect_err "'$REPORT_PATH' has uncommitted changes" "uncommitted edit is named"
# --worktree reads the edit (and says so).
mg check -C "$repo" --worktree --format json
expect_field inputs.source '"worktree"'
expect_field evidence.issues '["report_hash_mismatch"]'
expect_err "working tree" "--worktree says where the inputs came from"

# A manifest that exists only in the working tree.
fresh uncommitted
g -C "$repo" rm -q --cached "$MANIFEST_PATH"
g -C "$repo" commit -q -m "drop manifest from the commit"
mg check -C "$repo" --json "$T/none.json"
expect_code 2 "a manifest missing at the commit"
expect_err "not found; it is untracked: git add it, then commit" "says the manifest is untracked and how to add it"
expect_no_file "$T/none.json" "nothing written"

# A Git LFS pointer committed instead of the report.
fresh lfs
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 4211\n' \
	"$(printf 'x%.0s' 1 | sha256sum | cut -d' ' -f1)" >"$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "lfs"
mg check -C "$repo"
expect_code 2 "an LFS pointer"
expect_err "Git LFS pointer" "the LFS pointer is named"
expect_err "git lfs pull" "says how to fetch the content"

# A report larger than --max-input-mb.
fresh big
{ head -c -2 "$FLAT"; printf ',\n"padding": "'; head -c 1100000 /dev/zero | tr '\0' a; printf '"\n}\n'; } >"$T/big.json"
cp "$T/big.json" "$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "big"
mg check -C "$repo" --max-input-mb 1
expect_code 2 "an oversize report"
expect_err "more than the limit" "the size limit is named"
mg check -C "$repo" --max-input-mb 2
expect_code 1 "a raised limit reads it"

# Path rules in the manifest, each refused whatever the hash says.
for bad in "../outside.json" "/etc/passwd" "./benchmarks/x.json" "benchmarks//x.json"; do
	fresh "path-$(echo "$bad" | tr -c 'a-z' _)"
	sed -i "s|\"path\": \"$REPORT_PATH\"|\"path\": \"$bad\"|" "$repo/$MANIFEST_PATH"
	commit_all "$repo" "bad path"
	mg check -C "$repo"
	expect_code 2 "source.path '$bad' is refused"
	expect_err "$MANIFEST_PATH:" "the refusal points at the manifest for '$bad'"
done

# A symlink, a submodule and a directory where the report should be.
fresh symlink
ln -s 76_real_gpu_memory.json "$repo/benchmarks/results/link.json"
sed -i "s|\"path\": \"$REPORT_PATH\"|\"path\": \"benchmarks/results/link.json\"|" "$repo/$MANIFEST_PATH"
commit_all "$repo" "symlink"
mg check -C "$repo"
expect_code 2 "a symlinked report"
expect_err "symlink" "says it is a symlink"
fresh submodule
g -C "$repo" update-index --add --cacheinfo "160000,$(g -C "$repo" rev-parse HEAD),benchmarks/sub"
sed -i "s|\"path\": \"$REPORT_PATH\"|\"path\": \"benchmarks/sub\"|" "$repo/$MANIFEST_PATH"
g -C "$repo" add "$MANIFEST_PATH"
g -C "$repo" commit -q -m submodule
mg check -C "$repo"
expect_code 2 "a submodule report"
expect_err "submodule" "says it is a submodule"
fresh directory
sed -i "s|\"path\": \"$REPORT_PATH\"|\"path\": \"benchmarks/results\"|" "$repo/$MANIFEST_PATH"
commit_all "$repo" "directory"
mg check -C "$repo"
expect_code 2 "a directory report"
expect_err "directory" "says it is a directory"

# Bytes that are not text.
fresh latin1
printf '{"candidates": [{"name": "caf\xe9"}]}\n' >"$repo/$REPORT_PATH"
write_manifest "$repo"
commit_all "$repo" "latin-1"
mg check -C "$repo"
expect_code 2 "a non-UTF-8 report"
expect_err "UTF-8" "invalid UTF-8 is named"
fresh nul
printf 'version: 1\n\0\n' >"$repo/.memgate.yml"
commit_all "$repo" "nul"
mg check -C "$repo"
expect_code 2 "a policy with a NUL byte"
expect_err ".memgate.yml:2:1" "the NUL byte's position"

# Not a repository; a SHA-256 repository.
mkdir -p "$T/plain"
mg check -C "$T/plain"
expect_code 2 "not a repository"
g init -q --object-format=sha256 "$T/sha256"
mg check -C "$T/sha256"
expect_code 2 "a SHA-256 repository"
expect_err "SHA-256" "says the object format is the problem"

# A checkout owned by another user (CI containers) still opens.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	fresh mine
	cp -a "$repo" "$T/owned"
	chown -R nobody "$T/owned"
	mg check -C "$T/owned" --format json
	expect_code 1 "a repository owned by another user"
	expect_field selected_candidate '"checkpoint"'
else
	ok "# SKIP ownership test needs root"
fi

finish
