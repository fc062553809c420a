#!/usr/bin/env bash
# The sticky pull-request comment (issue 24, item 1): memgate check
# --comment writes one short comment per policy, and the Action's comment
# step (actions/action-comment, run through action.yml's own run: line)
# posts it to a local stand-in for the GitHub REST API on 127.0.0.1 (a
# random free port, started and stopped here, bounded in time) that
# implements the three endpoints used (list, create, update an issue's
# comments) and logs every request: the first run creates exactly one
# comment per policy, the second updates them in place, a read-only token
# (403, a fork) posts nothing and says why.  No test reaches the network.
. "$(dirname "$0")/lib.sh"

mono=$T/mono
ws=$T/ws
mkdir -p "$ws" "$T/runner-temp"
CFILE=$T/runner-temp/memgate-comment.md
PR=7
REPO=octo/models
TOKEN=test-token-$$

# --- action.yml ---------------------------------------------------------

# The input is off by default; the step runs after a failing check (the
# gate failing is when reviewers most need the comment), never on a
# cancelled run, and gets the inputs and event values only through env:.
ACTION=$SRC/action.yml
for m in "  comment:|    default: 'false'" \
	 "      if: \${{ !cancelled() && inputs.comment == 'true' }}|" \
	 '        MEMGATE_COMMENT: ${{ inputs.comment }}|' \
	 '        MEMGATE_COMMENT_FILE: ${{ runner.temp }}/memgate-comment.md|' \
	 '        MEMGATE_PR: ${{ github.event.pull_request.number }}|' \
	 '        MEMGATE_TOKEN: ${{ inputs.token }}|' \
	 '      run: python3 "$GITHUB_ACTION_PATH/actions/action-comment"|'; do
	line=${m%%|*} next=${m#*|}
	if grep -qxF -- "$line" "$ACTION" &&
	   { [ -z "$next" ] || grep -A3 -xF -- "$line" "$ACTION" | grep -qxF -- "$next"; }; then
		ok "action.yml: $line"
	else
		not_ok "action.yml: $line" "not in action.yml"
	fi
done

# The README's workflow_run recipe is a valid workflow (the validator
# t_action.sh installs into build/, when it is there).
VALIDATOR=$SRC/build/action-validator/node_modules/.bin/action-validator
awk '/^# .github\/workflows\/memgate-comment.yml/ { p = 1 } p && /^```$/ { exit } p' \
	"$SRC/README.md" >"$T/memgate-comment.yml"
if [ ! -s "$T/memgate-comment.yml" ]; then
	not_ok "README: the workflow_run recipe is there"
elif [ -x "$VALIDATOR" ]; then
	"$VALIDATOR" "$T/memgate-comment.yml" >"$T/out" 2>"$T/err"
	code=$?
	expect_code 0 "README: the workflow_run recipe is a valid workflow"
else
	ok "# SKIP the action validator is not installed (t_action.sh installs it)"
fi

# --- the stand-in API --------------------------------------------------

cat >"$T/api.py" <<'PY'
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

state_dir, repo, pr, token = sys.argv[1:5]
comments = [  # already on the pull request: a reviewer's, and a copy of a
	      # marker by someone else, which must never be edited
	{"id": 1, "body": "looks good", "user": {"login": "reviewer"}},
	{"id": 2, "body": "<!-- memgate: models/llm-a/.memgate.yml -->\nfake", "user": {"login": "mallory"}},
]
lock = threading.Lock()

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        url = urlsplit(self.path)
        with lock:
            with open(f"{state_dir}/requests.log", "a") as log:
                log.write(json.dumps({"method": method, "path": url.path, "query": url.query,
                    "authorization": self.headers.get("Authorization"),
                    "content_type": self.headers.get("Content-Type"),
                    "accept": self.headers.get("Accept"),
                    "body": raw.decode("utf-8", "replace")}) + "\n")
            with open(f"{state_dir}/mode") as f:
                mode = f.read().strip()
            if mode == "forbidden":
                return self.answer(403, {"message": "Resource not accessible by integration"})
            if self.headers.get("Authorization") != f"Bearer {token}":
                return self.answer(401, {"message": "Bad credentials"})
            body = None
            if method in ("POST", "PATCH"):
                if self.headers.get("Content-Type") != "application/json":
                    return self.answer(415, {"message": "not JSON"})
                try:
                    body = json.loads(raw)["body"]
                    assert isinstance(body, str)
                except Exception:
                    return self.answer(422, {"message": "no body"})
            if method == "GET" and url.path == f"/repos/{repo}/pulls/{pr}":
                with open(f"{state_dir}/head") as f:
                    return self.answer(200, {"number": int(pr), "head": {"sha": f.read().strip()}})
            base = f"/repos/{repo}/issues"
            if method == "GET" and url.path == f"{base}/{pr}/comments":
                q = parse_qs(url.query)
                per, page = int(q["per_page"][0]), int(q["page"][0])
                return self.answer(200, comments[(page - 1) * per:page * per])
            if method == "POST" and url.path == f"{base}/{pr}/comments":
                c = {"id": 100 + len(comments), "body": body,
                     "user": {"login": "github-actions[bot]"}}
                comments.append(c)
                self.dump()
                return self.answer(201, c)
            if method == "PATCH" and url.path.startswith(f"{base}/comments/"):
                cid = int(url.path.rsplit("/", 1)[1])
                for c in comments:
                    if c["id"] == cid:
                        c["body"] = body
                        self.dump()
                        return self.answer(200, c)
                return self.answer(404, {"message": "Not Found"})
            return self.answer(404, {"message": "Not Found"})

    def dump(self):
        with open(f"{state_dir}/comments.json", "w") as f:
            json.dump(comments, f)

    def do_GET(self): self.handle_any("GET")
    def do_POST(self): self.handle_any("POST")
    def do_PATCH(self): self.handle_any("PATCH")

srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(f"{state_dir}/port.tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(f"{state_dir}/port.tmp", f"{state_dir}/port")
srv.serve_forever()
PY

mkdir -p "$T/api"
echo normal >"$T/api/mode"
echo 0123456789abcdef0123456789abcdef01234567 >"$T/api/head"
timeout 300 python3 "$T/api.py" "$T/api" "$REPO" "$PR" "$TOKEN" 2>"$T/api/stderr" &
srv=$!
trap 'kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/api/port" ] && break; sleep 0.1; done
if [ -s "$T/api/port" ]; then
	ok "the stand-in API listens on 127.0.0.1"
else
	not_ok "the stand-in API listens on 127.0.0.1" "$(cat "$T/api/stderr")"
	finish
	exit 1
fi
API=http://127.0.0.1:$(cat "$T/api/port")

# requests: the requests logged since the last call, one JSON object a line.
seen=0
requests() {
	local n
	touch "$T/api/requests.log"
	n=$(wc -l <"$T/api/requests.log")
	tail -n +"$((seen + 1))" "$T/api/requests.log" >"$T/requests"
	seen=$n
}
# req_count METHOD: how many of the last requests used METHOD.
req_count() {
	python3 -c 'import json,sys; print(sum(json.loads(l)["method"] == sys.argv[2] for l in open(sys.argv[1])))' \
		"$T/requests" "$1"
}

# --- a two-model monorepo and a pull request that regresses llm-a -----

make_monorepo "$mono"
base=$(g -C "$mono" rev-parse HEAD)
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9600/' "$mono/models/llm-a/results/76_report.json"
(cd "$mono/models/llm-a" && "$MEMGATE" manifest --worktree --report results/76_report.json \
	--out results/75_manifest.json --force) >/dev/null 2>&1
commit_all "$mono" "llm-a: new measurement"
mv "$mono" "$ws/repo"
mono=$ws/repo

# check_step [VAR=VALUE...]: the Action's check step on the pull request.
check_step() {
	action_step check "$ws" MEMGATE_DIR=repo MEMGATE_ALL=true MEMGATE_POLICY_REV="$base" \
		MEMGATE_COMMENT=true MEMGATE_COMMENT_FILE="$CFILE" \
		GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=$REPO GITHUB_RUN_ID=4242 "$@"
}
# comment_step [VAR=VALUE...]: the Action's comment step.
comment_step() {
	action_step comment "$ws" MEMGATE_COMMENT=true MEMGATE_COMMENT_FILE="$CFILE" \
		MEMGATE_PR=$PR MEMGATE_TOKEN="$TOKEN" GITHUB_API_URL="$API" GITHUB_REPOSITORY=$REPO "$@"
}

check_step
expect_code 1 "check step: llm-a fails its gate"
if [ "$(grep -c '^<!-- memgate: ' "$CFILE" 2>/dev/null)" = 2 ] &&
   grep -qxF '<!-- memgate: models/llm-a/.memgate.yml -->' "$CFILE" &&
   grep -qxF '<!-- memgate: models/llm-b/train.memgate.yml -->' "$CFILE"; then
	ok "check --comment: one comment per policy, each opened by its marker"
else
	not_ok "check --comment: one comment per policy, each opened by its marker" "$(head -c 600 "$CFILE" 2>&1)"
fi
# each comment, split at its marker line as the poster splits it
awk -v dir="$T" '/^<!-- memgate: / { n++ } { print >(dir "/section." n) }' "$CFILE"
for n in 1 2; do
	size=$(wc -c <"$T/section.$n")
	if [ "$size" -lt 3072 ]; then ok "comment $n is under 3 KB ($size bytes)"; else not_ok "comment $n is under 3 KB ($size bytes)"; fi
done
expect_comment() { # expect_comment N TEXT DESC
	if grep -qF -- "$2" "$T/section.$1"; then ok "$3"; else not_ok "$3" "comment $1 lacks: $2" "$(cat "$T/section.$1")"; fi
}
expect_comment 1 '| checkpoint | ⚠️ regressed | 9450.76 → 9600 (+149.24) |' \
	"comment: llm-a's regressed candidate, against the base"
expect_comment 1 "### memgate: " "comment: llm-a's decision"
expect_comment 1 "❌ gate failed" "comment: llm-a's gate fails"
expect_comment 2 "### memgate: accept — ✅ gate passed" "comment: llm-b accepts"
expect_comment 2 "No candidate's status or values changed (4 compared)." "comment: llm-b did not change"
expect_comment 1 "[the job summary of this run](https://github.com/$REPO/actions/runs/4242)" \
	"comment: links the run's job summary"

# --- first run: creates one comment per policy ------------------------

requests
comment_step
expect_code 0 "comment step: posts"
expect_out "memgate: created the comment for models/llm-a/.memgate.yml on #$PR" "says it created llm-a's"
expect_out "memgate: created the comment for models/llm-b/train.memgate.yml on #$PR" "and llm-b's"
requests
if [ "$(req_count GET)" = 1 ] && [ "$(req_count POST)" = 2 ] && [ "$(req_count PATCH)" = 0 ]; then
	ok "first run: one list, two creates, no update"
else
	not_ok "first run: one list, two creates, no update" "$(cat "$T/requests")"
fi
# Every request: the right path, the job's token, JSON with the comment.
python3 - "$T/requests" "$PR" "$REPO" "$TOKEN" "$T/section.1" "$T/section.2" >"$T/check" 2>&1 <<'PY'
import json, sys
log, pr, repo, token, s1, s2 = sys.argv[1:]
want = [open(s1).read(), open(s2).read()]
reqs = [json.loads(l) for l in open(log)]
bad = []
for r in reqs:
    if r["authorization"] != f"Bearer {token}":
        bad.append(f"{r['method']} without the token: {r['authorization']}")
    if r["accept"] != "application/vnd.github+json":
        bad.append(f"{r['method']} accepts {r['accept']}")
    if r["method"] == "GET":
        if r["path"] != f"/repos/{repo}/issues/{pr}/comments" or "per_page=100" not in r["query"]:
            bad.append(f"GET {r['path']}?{r['query']}")
    if r["method"] == "POST":
        if r["path"] != f"/repos/{repo}/issues/{pr}/comments":
            bad.append(f"POST {r['path']}")
        if r["content_type"] != "application/json":
            bad.append(f"POST content type {r['content_type']}")
posts = [json.loads(r["body"])["body"] for r in reqs if r["method"] == "POST"]
if posts != want:
    bad.append("the bodies posted are not the comments memgate wrote")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
if [ $? -eq 0 ]; then ok "first run: paths, token, JSON content type and bodies are right"; else not_ok "first run: paths, token, JSON content type and bodies are right" "$(cat "$T/check")"; fi

# --- second run: updates them in place --------------------------------

cp "$T/api/comments.json" "$T/comments.1"
echo "docs" >>"$mono/README.md"
commit_all "$mono" "a code-only change"
check_step
expect_code 1 "check step again: llm-a still fails"
comment_step
expect_code 0 "comment step again"
expect_out "memgate: updated the comment for models/llm-a/.memgate.yml on #$PR" "says it updated llm-a's"
expect_out "memgate: updated the comment for models/llm-b/train.memgate.yml on #$PR" "and llm-b's"
requests
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 2 ]; then
	ok "second run: no create, two updates"
else
	not_ok "second run: no create, two updates" "$(cat "$T/requests")"
fi
python3 - "$T/requests" "$T/comments.1" "$T/api/comments.json" "$REPO" "$CFILE" >"$T/check" 2>&1 <<'PY'
import json, sys
log, before, after, repo, cfile = sys.argv[1:]
reqs = [json.loads(l) for l in open(log)]
before, after = json.load(open(before)), json.load(open(after))
bad = []
mine = [c["id"] for c in before if c["user"]["login"] == "github-actions[bot]"]
paths = sorted(r["path"] for r in reqs if r["method"] == "PATCH")
if paths != sorted(f"/repos/{repo}/issues/comments/{i}" for i in mine):
    bad.append(f"updated {paths}, not the bot's comments {mine}")
if any(r["content_type"] != "application/json" for r in reqs if r["method"] == "PATCH"):
    bad.append("an update without the JSON content type")
if [c["id"] for c in after] != [c["id"] for c in before]:
    bad.append("the comments on the pull request changed")
if after[1]["body"] != before[1]["body"]:
    bad.append("someone else's comment with the marker was edited")
text = open(cfile).read()
if "".join(c["body"] for c in after if c["id"] in mine) != text:
    bad.append("the updated bodies are not the new comments")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
if [ $? -eq 0 ]; then ok "second run: the same two comments updated, someone else's copy of a marker untouched"; else not_ok "second run: the same two comments updated" "$(cat "$T/check")"; fi
if grep -qF "No candidate's status or values changed" "$CFILE" && grep -qF '⚠️ regressed' "$CFILE"; then
	ok "second run: the comment still compares with the base"
else
	not_ok "second run: the comment still compares with the base" "$(cat "$CFILE")"
fi

# --- a fork's read-only token: nothing posted, and why ------------------

cp "$T/api/comments.json" "$T/comments.2"
echo forbidden >"$T/api/mode"
comment_step
expect_code 0 "a read-only token: the step does not fail the job"
expect_out "::warning::memgate: cannot post the pull-request comment (HTTP 403: Resource not accessible by integration). A pull request from a fork gets a read-only token" \
	"a read-only token: says why"
expect_out "workflow_run" "a read-only token: names the recipe"
requests
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 0 ] && cmp -s "$T/comments.2" "$T/api/comments.json"; then
	ok "a read-only token: nothing posted"
else
	not_ok "a read-only token: nothing posted" "$(cat "$T/requests")"
fi
echo normal >"$T/api/mode"

# --- the rest of the step's cases --------------------------------------

comment_step MEMGATE_PR_HEAD_SHA="$(cat "$T/api/head")"
expect_out "memgate: updated the comment for models/llm-a/.memgate.yml on #$PR" \
	"workflow_run: the gated head: posts"
requests
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 2 ] &&
   head -n 1 "$T/requests" | grep -qF "\"path\": \"/repos/$REPO/pulls/$PR\""; then
	ok "workflow_run: asks for the pull request first, then updates in place"
else
	not_ok "workflow_run: asks for the pull request first, then updates in place" "$(cat "$T/requests")"
fi

comment_step MEMGATE_PR=
expect_code 0 "not a pull request"
expect_out "memgate: not a pull request: no comment to post" "not a pull request: says so"
comment_step MEMGATE_TOKEN=wrong
expect_out "cannot post the pull-request comment (HTTP 401: Bad credentials)" "a refused token: says why"
# The workflow_run recipe: the pull request's head must be the commit the
# fork's run gated, else nothing is posted.
comment_step MEMGATE_PR_HEAD_SHA=89abcdef0123456789abcdef0123456789abcdef
expect_code 0 "workflow_run: another head"
expect_out "::warning::memgate: pull request #$PR is not at 89abcdef0123456789abcdef0123456789abcdef: nothing posted" \
	"workflow_run: another head: says so"
comment_step MEMGATE_PR='7/../../x'
expect_code 2 "a pull request number that is not a number"
comment_step MEMGATE_COMMENT_FILE="$T/none.md"
expect_code 0 "no comment file (memgate could not decide)"
expect_out "memgate wrote no comment" "no comment file: says so"
requests
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 0 ]; then
	ok "those cases post nothing"
else
	not_ok "those cases post nothing" "$(cat "$T/requests")"
fi

rm -f "$CFILE"
check_step MEMGATE_COMMENT=false
expect_code 1 "comment: false"
expect_no_file "$CFILE" "comment: false writes no comment"
check_step MEMGATE_COMMENT=yes
expect_code 2 "comment must be true or false"
expect_out "::error::memgate: input 'comment' must be true or false" "and says so"

# The comment is an output file like the others: a symlink is refused.
ln -s "$T/elsewhere.md" "$T/link.md"
(cd "$mono" && ${MEMGATE_WRAP:-} "$MEMGATE" check --all --comment "$T/link.md" >"$T/out" 2>"$T/err")
code=$?
expect_code 2 "check --comment to a symlink"
expect_no_file "$T/elsewhere.md" "nothing written through it"

finish
