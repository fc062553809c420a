#!/usr/bin/env bash
# memgate sign (memgate(1), memgate sign, SIGNED EVIDENCE): the GPU runner's
# life without a terminal: measure, pin, sign, sign again over a stale
# signature (where `ssh-keygen -Y sign FILE` asks "Overwrite (y/n)?", reads
# end-of-file and keeps the old one), commit, and the check verifies it.
# Every refusal is exit 2 with nothing written: a key the allowed signers do
# not list, listed for another namespace or expired, a --namespace other than
# the policy's, no allowed signers, no manifest, ssh-keygen missing, failing
# or writing something that is not a signature of the manifest, a symlink.
# Also: memgate manifest --force says that the signature beside it is stale,
# and the report_hash_mismatch fix keeps measured.commit and says to sign.
. "$(dirname "$0")/lib.sh"

need_ssh_keygen

E=$FIX/e2e
FLAT=$FIX/reports/76_real_gpu_memory.flat.json
SIG=$MANIFEST_PATH.sig
ssh_key runner other

# runner ARGS...: memgate as a CI job runs it: no terminal at all (a new
# session, so no controlling terminal; standard input at end-of-file).
if command -v setsid >/dev/null 2>&1; then NOTTY="setsid -w"; else NOTTY=; fi
runner() {
	$NOTTY ${MEMGATE_WRAP:-} "$MEMGATE" "$@" </dev/null >"$T/out" 2>"$T/err"
	code=$?
}
# unchanged FILE COPY DESC: FILE holds what COPY holds (or neither exists).
unchanged() {
	if { [ ! -e "$1" ] && [ ! -e "$2" ]; } || cmp -s "$1" "$2"; then ok "$3"
	else not_ok "$3" "$1 changed"; fi
}
# no_temp DIR DESC: nothing but the four evidence files in DIR.
no_temp() {
	local got
	got=$(cd "$1" && ls -A | tr '\n' ' ')
	case $got in
	"75_input_manifest.json 75_input_manifest.json.sig 76_real_gpu_memory.json "|\
	"75_input_manifest.json 76_real_gpu_memory.json ") ok "$2" ;;
	*) not_ok "$2" "files: $got" ;;
	esac
}

# The repository the runner checks out: policy with provenance, the allowed
# signers, a report (the manifest is the runner's to write).
repo=$T/r
make_gate_repo "$repo" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$repo/.memgate"
printf '# who may sign the GPU evidence\ngpu-runner@ci namespaces="memgate" %s\n' "$(pub "$T/runner")" \
	>"$repo/.memgate/allowed_signers"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$repo/.memgate.yml"
commit_all "$repo" "require signed evidence"

# 1. The first measurement: pin, sign, commit; the check verifies it.
cd "$repo" || exit 2
runner manifest --report "$REPORT_PATH" --out "$MANIFEST_PATH" --measured-commit HEAD --force
expect_code 0 "runner: memgate manifest pins the report"
runner sign --key "$T/runner"
expect_code 0 "runner: memgate sign with no terminal"
expect_err "memgate: signed '$MANIFEST_PATH' as gpu-runner@ci, key ssh-ed25519 $(fp "$T/runner"), in namespace memgate (verified against '.memgate/allowed_signers')" \
	"memgate sign says who signed, with which key"
expect_err "memgate: wrote '$SIG'" "memgate sign names the file it wrote"
if ssh-keygen -Y verify -f .memgate/allowed_signers -I gpu-runner@ci -n memgate -s "$SIG" \
	<"$MANIFEST_PATH" >/dev/null 2>&1; then ok "ssh-keygen -Y verify accepts what memgate sign wrote"
else not_ok "ssh-keygen -Y verify accepts what memgate sign wrote"; fi
cd - >/dev/null || exit 2
commit_all "$repo" "evidence from the GPU runner"
mg check -C "$repo" --format json
expect_code 1 "the signed evidence decides as before"
expect_field provenance.verified 'true'
expect_field provenance.signer '"gpu-runner@ci"'
expect_field provenance.key "\"ssh-ed25519 $(fp "$T/runner")\""

# 2. The second measurement: the old signature is there.  manifest --force
# says it is stale; memgate sign replaces it without asking.
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9350.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "new measurement"
cp "$repo/$SIG" "$T/old.sig"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --measured-commit HEAD --force
expect_code 0 "manifest --force over a signed manifest"
expect_err "memgate: warning: '$repo/$SIG' signs the old manifest, not this one: sign again with 'memgate sign --key KEY' on the trusted runner and commit both (until then memgate check fails signature_invalid)" \
	"manifest --force says the signature beside it is stale"
unchanged "$repo/$SIG" "$T/old.sig" "manifest --force leaves the stale signature for memgate sign to replace"
# the same content again: its signature still signs it, so no warning
runner sign -C "$repo" --key "$T/runner"
expect_code 0 "runner: memgate sign over the stale signature"
if cmp -s "$repo/$SIG" "$T/old.sig"; then not_ok "the stale signature is replaced"
else ok "the stale signature is replaced"; fi
cp "$repo/$SIG" "$T/first.sig"
runner sign -C "$repo" --key "$T/runner"
expect_code 0 "runner: memgate sign twice in a row"
no_temp "$repo/benchmarks/results" "no temporary file is left beside the signature"
mg manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --measured-commit HEAD --force
expect_code 0 "manifest --force that writes the same manifest"
expect_no_err "signs the old manifest" "no warning when the signature still signs the manifest"
commit_all "$repo" "second evidence from the GPU runner"
mg check -C "$repo" --format json
expect_code 1 "the re-signed evidence is verified"
expect_field provenance.verified 'true'
expect_field evidence.issues '[]'

# memgate runs ssh-keygen with the manifest on standard input, never a file
# argument (which is what makes it ask "Overwrite (y/n)?").
cat >"$T/spy" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$T/argv"
exec ssh-keygen "\$@"
EOF
chmod +x "$T/spy"
runner sign -C "$repo" --key "$T/runner" --ssh-keygen "$T/spy"
expect_code 0 "memgate sign with --ssh-keygen PROGRAM"
if [ "$(tr '\n' ' ' <"$T/argv")" = "-q -Y sign -n memgate -f $T/runner " ]; then
	ok "ssh-keygen runs as '-q -Y sign -n memgate -f KEY': the manifest on standard input"
else not_ok "ssh-keygen runs as '-q -Y sign -n memgate -f KEY'" "argv: $(cat "$T/argv")"; fi

# 3. Refusals: exit 2, nothing written (the committed signature untouched,
# no temporary file), the reason named.
cp "$repo/$SIG" "$T/good.sig"
refused() {   # refused DESC MESSAGE ARGS...
	local desc=$1 msg=$2
	shift 2
	runner sign -C "$repo" "$@"
	expect_code 2 "refused: $desc"
	expect_err "$msg" "refused: $desc: says why"
	unchanged "$repo/$SIG" "$T/good.sig" "refused: $desc: the signature is untouched"
	no_temp "$repo/benchmarks/results" "refused: $desc: no temporary file"
}
refused "a key the allowed signers do not list" \
	"memgate: error: .memgate/allowed_signers: the key ssh-ed25519 $(fp "$T/other") is not an allowed signer: memgate check would refuse its signature (signer_unknown)" \
	--key "$T/other"
printf 'git-signing@ci namespaces="git" %s\n' "$(pub "$T/other")" >>"$repo/.memgate/allowed_signers"
refused "a key listed only for another namespace" \
	".memgate/allowed_signers:3:1: the key ssh-ed25519 $(fp "$T/other") of 'git-signing@ci' is listed only for other namespaces than 'memgate'" \
	--key "$T/other"
printf 'old@ci valid-before="20200101" %s\n' "$(pub "$T/other")" >"$T/expired_signers"
refused "an expired key" "the key ssh-ed25519 $(fp "$T/other") of 'old@ci' is expired on" \
	--key "$T/other" --allowed-signers "$T/expired_signers"
refused "a --namespace other than the policy's" \
	"--namespace 'git' differs from the policy's provenance.namespace 'memgate'" \
	--key "$T/runner" --namespace git
refused "a missing key file" "failed (exit status 255; its message is above): nothing written" \
	--key "$T/no-such-key"
refused "no ssh-keygen" "cannot run '$T/no-such-ssh-keygen': No such file or directory" \
	--key "$T/runner" --ssh-keygen "$T/no-such-ssh-keygen"
printf '#!/bin/sh\ncat >/dev/null\necho not a signature\n' >"$T/garbage"
chmod +x "$T/garbage"
refused "ssh-keygen writes no signature" "ssh-keygen wrote no signature memgate can read" \
	--key "$T/runner" --ssh-keygen "$T/garbage"
printf '{"source": {"path": "x.json", "sha256": "%064d"}}\n' 0 >"$T/elsewhere.json"
ssh-keygen -q -Y sign -n memgate -f "$T/runner" "$T/elsewhere.json" 2>/dev/null
printf '#!/bin/sh\ncat >/dev/null\ncat "%s"\n' "$T/elsewhere.json.sig" >"$T/stale"
chmod +x "$T/stale"
refused "a signature of another manifest" "the signature ssh-keygen made does not verify" \
	--key "$T/runner" --ssh-keygen "$T/stale"
printf 'x@ci cert-authority %s\n' "$(pub "$T/runner")" >"$T/bad_signers"
refused "a malformed --allowed-signers" "$T/bad_signers:1:6: 'cert-authority' is not supported" \
	--key "$T/runner" --allowed-signers "$T/bad_signers"
cp "$repo/$MANIFEST_PATH" "$T/manifest.json"
printf '{"source": {"path": "%s",\n' "$REPORT_PATH" >"$repo/$MANIFEST_PATH"
refused "a malformed manifest" "$MANIFEST_PATH:2:1: malformed JSON: unexpected end of input" --key "$T/runner"
rm "$repo/$MANIFEST_PATH"
runner sign -C "$repo" --key "$T/runner"
expect_code 2 "refused: no manifest in the working tree (not pinned yet)"
expect_err "memgate: error: .memgate.yml:4:11: cannot read '$MANIFEST_PATH' in the working tree: not found" \
	"refused: no manifest: names it, where the policy does"
unchanged "$repo/$SIG" "$T/good.sig" "refused: no manifest: the signature is untouched"
cp "$T/manifest.json" "$repo/$MANIFEST_PATH"
runner sign -C "$repo" --key "$T/runner" --policy .memgate.yml --policy other.yml
expect_code 2 "refused: two --policy"
expect_err "sign signs one policy's manifest: give one --policy" "refused: two --policy: says so"
runner sign -C "$repo"
expect_code 2 "refused: no --key"
expect_err "needs --key" "refused: no --key: says so"
g -C "$repo" checkout -q -- .memgate/allowed_signers

# No ssh-keygen the repository supplies runs: relative PATH entries (".",
# "") are skipped, as the pre-push hook skips them.
printf '#!/bin/sh\ntouch "%s"\ncat >/dev/null\ncat "%s"\n' "$T/planted-ran" "$T/good.sig" \
	>"$repo/ssh-keygen"
chmod +x "$repo/ssh-keygen"
kg=$(dirname "$(command -v ssh-keygen)")
(cd "$repo" && $NOTTY env PATH=".::$kg:/usr/bin:/bin" "$MEMGATE" sign --key "$T/runner" </dev/null) \
	>"$T/out" 2>"$T/err"
code=$?
expect_code 0 "'.' first on PATH: the real ssh-keygen signs"
expect_no_file "$T/planted-ran" "the repository's ./ssh-keygen did not run"
(cd "$repo" && $NOTTY env PATH=".:" "$MEMGATE" sign --key "$T/runner" </dev/null) >"$T/out" 2>"$T/err"
code=$?
expect_code 2 "refused: no ssh-keygen in an absolute PATH entry"
expect_err "cannot run 'ssh-keygen': not found in an absolute PATH entry" "refused: says so"
expect_no_file "$T/planted-ran" "the repository's ./ssh-keygen did not run"
rm "$repo/ssh-keygen"
cp "$T/good.sig" "$repo/$SIG"

# The signature is never written through a symlink.
mv "$repo/$SIG" "$T/target.sig"
ln -s "$T/target.sig" "$repo/$SIG"
runner sign -C "$repo" --key "$T/runner"
expect_code 2 "refused: the signature's path is a symlink"
unchanged "$T/target.sig" "$T/good.sig" "the symlink's target is untouched"
rm "$repo/$SIG"
mv "$T/target.sig" "$repo/$SIG"

# No allowed signers: a policy without provenance needs --allowed-signers.
plain=$T/plain
make_gate_repo "$plain" "$E/real-flat-11200.yml" "$FLAT"
runner sign -C "$plain" --key "$T/runner"
expect_code 2 "refused: no provenance and no --allowed-signers"
expect_err "the policy has no provenance section, so memgate sign cannot check who may sign: name the allowed-signers file with --allowed-signers FILE" \
	"says to name the allowed signers"
expect_no_file "$plain/$SIG" "nothing written"
printf 'me@laptop %s\n' "$(pub "$T/other")" >"$T/mine"
runner sign -C "$plain" --key "$T/other" --allowed-signers "$T/mine"
expect_code 0 "--allowed-signers verifies a policy without provenance"
expect_err "as me@laptop" "says who signed"
# A policy that names the report directly has no manifest to sign.
sed -i "s|^manifest: .*|report: $REPORT_PATH|" "$plain/.memgate.yml"
rm -f "$plain/$SIG"
runner sign -C "$plain" --key "$T/other" --allowed-signers "$T/mine"
expect_code 2 "refused: a policy without a manifest"
expect_err "there is no manifest to sign" "says there is no manifest"
expect_no_file "$plain/$SIG" "nothing written"

# A key in ssh-agent: --key FILE.pub with SSH_AUTH_SOCK, the private key
# file gone (the agent holds it).
if command -v ssh-agent >/dev/null 2>&1 && command -v ssh-add >/dev/null 2>&1; then
	ssh-keygen -q -t ecdsa -b 256 -N '' -C agent -f "$T/agent"
	printf 'agent@ci %s\n' "$(pub "$T/agent")" >>"$repo/.memgate/allowed_signers"
	eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null
	ssh-add -q "$T/agent" 2>/dev/null
	rm "$T/agent"
	runner sign -C "$repo" --key "$T/agent.pub"
	expect_code 0 "memgate sign with a key in ssh-agent"
	expect_err "as agent@ci, key ecdsa-sha2-nistp256 $(fp "$T/agent")" "signed by the agent's key"
	kill "$SSH_AGENT_PID" 2>/dev/null
	g -C "$repo" checkout -q -- .memgate/allowed_signers
fi

# 4. The fix memgate prints for a re-measured report keeps measured.commit
# and, with provenance, says to sign again.
sed -i 's/"peak_memory_mb": 9350.76/"peak_memory_mb": 9250.76/' "$repo/$REPORT_PATH"
commit_all "$repo" "report edited, manifest not re-pinned"
measured=$("$JSONGET" "$repo/$MANIFEST_PATH" measured.commit | tr -d '"')
mg check -C "$repo"
expect_code 1 "report_hash_mismatch"
expect_out "pin it with 'memgate manifest -C $(cd -P "$repo" && pwd -P) --report $REPORT_PATH --out $(cd -P "$repo" && pwd -P)/$MANIFEST_PATH --measured-commit $measured --force', sign it again on the trusted runner with 'memgate sign -C $(cd -P "$repo" && pwd -P) --key KEY' and commit the manifest and its signature" \
	"the fix keeps measured.commit and says to sign again"
fix=$(sed -n "s/.*pin it with 'memgate \(manifest [^']*\)'.*/\1/p" "$T/out" | head -n 1)
sign=$(sed -n "s/.*again on the trusted runner with 'memgate \(sign [^']*\)'.*/\1/p" "$T/out" | head -n 1)
# shellcheck disable=SC2086
runner $fix
expect_code 0 "the printed manifest command runs"
# shellcheck disable=SC2086
runner ${sign% --key KEY} --key "$T/runner"
expect_code 0 "the printed sign command runs"
commit_all "$repo" "re-pinned and signed"
mg check -C "$repo" --format json
expect_field evidence.issues '[]'
expect_field provenance.verified 'true'
expect_field inputs.manifest.path "\"$MANIFEST_PATH\""
if [ "$("$JSONGET" "$repo/$MANIFEST_PATH" measured.commit)" = "\"$measured\"" ]; then
	ok "the re-pinned manifest keeps measured.commit"
else not_ok "the re-pinned manifest keeps measured.commit"; fi
# measured_commit_missing's fix, with provenance, says to sign again too.
printf 'evidence:\n  inputs: ["src/**"]\n' >>"$repo/.memgate.yml"
"$MEMGATE" manifest -C "$repo" --report "$REPORT_PATH" --out "$repo/$MANIFEST_PATH" --force 2>/dev/null
commit_all "$repo" "inputs, and a manifest without measured.commit"
mg check -C "$repo"
expect_out "--measured-commit REV --force', sign it again on the trusted runner with 'memgate sign -C $(cd -P "$repo" && pwd -P) --key KEY' and commit the manifest and its signature" \
	"measured_commit_missing's fix says to sign again"
# 5. The README's runner recipe, pasted into a CI job that has no terminal:
# memgate on PATH, the key at ~/.ssh/gpu_runner; two measurements in a row
# (the second over the first's signature), each committed, each verified.
awk '/^memgate manifest --report /,/^git add benchmarks\/results\//' "$SRC/README.md" >"$T/recipe"
if grep -q '^memgate sign ' "$T/recipe"; then ok "README: the runner's recipe uses memgate sign"
else not_ok "README: the runner's recipe uses memgate sign" "$(cat "$T/recipe")"; fi
mkdir -p "$T/home/.ssh" "$T/bin"
cp "$T/runner" "$T/home/.ssh/gpu_runner"
ln -s "$MEMGATE" "$T/bin/memgate"
ci=$T/ci
make_gate_repo "$ci" "$E/real-flat-11200.yml" "$FLAT"
mkdir -p "$ci/.memgate"
cp "$repo/.memgate/allowed_signers" "$ci/.memgate/"
printf 'provenance:\n  allowed_signers: .memgate/allowed_signers\n' >>"$ci/.memgate.yml"
commit_all "$ci" "require signed evidence"
for peak in 9440.76 9430.76; do
	sed -i "s/\"peak_memory_mb\": 94[0-9]0.76/\"peak_memory_mb\": $peak/" "$ci/$REPORT_PATH"
	commit_all "$ci" "measured $peak"
	(cd "$ci" && HOME=$T/home PATH=$T/bin:$PATH $NOTTY bash -e "$T/recipe" </dev/null) >"$T/out" 2>"$T/err"
	code=$?
	expect_code 0 "README recipe, peak $peak: runs with no terminal"
	mg check -C "$ci" --format json
	expect_field provenance.verified 'true'
	expect_field evidence.issues '[]'
done
finish
