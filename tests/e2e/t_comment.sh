#!/usr/bin/env bash
# The pull-request comment (issues 24 and 34): memgate check --comment
# writes one comment for the whole run, and the Action's comment step
# (actions/action-comment, run through action.yml's own run: line) posts
# it to a local stand-in for the GitHub REST API (tests/e2e/comment-api.py:
# 127.0.0.1, a random free port, started and stopped here, bounded in
# requests and time).  One pull request is driven through ten pushes (pass,
# fail, exit 2, fixed, reverted, a change in a monorepo, adopted, retired,
# an unreadable policy, reverted); after each the pull request holds
# exactly one memgate comment, whose first line says the current verdict.
# No test reaches the network.
. "$(dirname "$0")/lib.sh"

ws=$T/ws
mkdir -p "$ws" "$T/runner-temp"
CFILE=$T/runner-temp/memgate-comment.md
PR=7
REPO=octo/models
TOKEN=test-token-$$
SERVERS=()
trap 'for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

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

# start_api DIR FORGE: start the stand-in in DIR (tokens.json etc. already
# there); sets API to its URL.
start_api() {
	local dir=$1 forge=$2
	touch "$dir/requests.log"
	timeout 600 python3 "$SRC/tests/e2e/comment-api.py" "$dir" "$forge" 2>"$dir/stderr" &
	SERVERS+=($!)
	for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
	if [ -s "$dir/port" ]; then
		ok "the stand-in $forge API listens on 127.0.0.1"
	else
		not_ok "the stand-in $forge API listens on 127.0.0.1" "$(cat "$dir/stderr")"
		finish
		exit 1
	fi
	API=http://127.0.0.1:$(cat "$dir/port")
}

# requests DIR: the requests logged there since the last call, in $T/requests.
declare -A seen
requests() {
	local dir=$1 n
	n=$(wc -l <"$dir/requests.log")
	tail -n +"$((${seen[$dir]:-0} + 1))" "$dir/requests.log" >"$T/requests"
	seen[$dir]=$n
}
# req_count METHOD: how many of the last requests used METHOD.
req_count() {
	python3 -c 'import json,sys; print(sum(json.loads(l)["method"] == sys.argv[2] for l in open(sys.argv[1])))' \
		"$T/requests" "$1"
}

# mine DIR LOGIN: the memgate comments LOGIN wrote, one body a file
# ($T/mine.N), their count on stdout.
mine() {
	python3 - "$1/comments.json" "$2" "$T" <<'PY'
import json, sys
path, login, t = sys.argv[1:]
try:
    cs = json.load(open(path))
except OSError:
    cs = []
n = 0
for c in cs:
    if c.get("system"):
        continue
    who = (c.get("user") or c.get("author") or {})
    who = who.get("login") or who.get("username")
    if who == login and c["body"].startswith("<!-- memgate -->\n"):
        n += 1
        open(f"{t}/mine.{n}", "w").write(c["body"])
print(n)
PY
}

# expect_one DIR LOGIN DESC WORDS...: exactly one memgate comment by
# LOGIN; its first line (after the hidden marker) has every WORDS, and it
# is the comment memgate wrote (the file at $CFILE when given).
expect_one() {
	local dir=$1 login=$2 desc=$3 n first w missing=
	shift 3
	n=$(mine "$dir" "$login")
	if [ "$n" != 1 ]; then
		not_ok "$desc: exactly one memgate comment" "$n comments by $login"
		return
	fi
	first=$(sed -n 2p "$T/mine.1")
	for w in "$@"; do
		case $first in *"$w"*) ;; *) missing="$missing [$w]" ;; esac
	done
	if [ -z "$missing" ]; then ok "$desc: one comment, its first line: $*"
	else not_ok "$desc: one comment, its first line: $*" "lacks:$missing" "first line: $first"; fi
}

# --- a two-model monorepo: main, and a pull request of ten pushes -----

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

# The base: both models accept (llm-a's floor is llm-b's).
mono=$ws/repo
make_monorepo "$mono"
sed -i -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' -e '/^  grid:/,/^    min_samples_per_s:/d' \
	"$mono/models/llm-a/.memgate.yml"
commit_all "$mono" "llm-a: llm-b's floor"
base=$(g -C "$mono" rev-parse HEAD)
cp -r "$mono" "$T/main"

# remeasure MODEL PEAK: the model's checkpoint (9450.76 MB on main)
# measured at PEAK MB, its manifest rewritten.
remeasure() {
	cp "$T/main/models/$1/results/76_report.json" "$mono/models/$1/results/76_report.json"
	sed -i "s/\"peak_memory_mb\": 9450.76/\"peak_memory_mb\": $2/" "$mono/models/$1/results/76_report.json"
	(cd "$mono/models/$1" && "$MEMGATE" manifest --worktree --report results/76_report.json \
		--out results/75_manifest.json --force) >/dev/null 2>&1
}
# as_main PATH...: PATH as main has it.
as_main() {
	local p
	for p in "$@"; do rm -rf "${mono:?}/$p"; cp -r "$T/main/$p" "$mono/$p"; done
}

gh=$T/gh
mkdir -p "$gh"
printf '{"%s": "github-actions[bot]"}\n' "$TOKEN" >"$gh/tokens.json"
python3 - "$gh/comments.json" <<'PY'
import json, sys
# already on the pull request: a reviewer's, a copy of memgate's marker
# by someone else, which must never be edited, and a comment of the bot's
# from an earlier memgate (one per policy), which must stop looking current
json.dump([{"id": 1, "body": "looks good", "user": {"login": "reviewer"}},
           {"id": 2, "body": "<!-- memgate -->\nfake: all passed", "user": {"login": "mallory"}},
           {"id": 3, "body": "<!-- memgate: models/llm-a/.memgate.yml -->\n### memgate: tune \u2014 \u274c gate failed",
            "user": {"login": "github-actions[bot]"}}],
          open(sys.argv[1], "w"))
PY
echo 0123456789abcdef0123456789abcdef01234567 >"$gh/head"
start_api "$gh" github

# push N DESC CHECK-EXIT WORDS...: commit, run the check and comment steps
# with --changed, and expect exactly one comment that says WORDS.
push() {
	local n=$1 desc=$2 want=$3
	shift 3
	commit_all "$mono" "push $n: $desc"
	check_step MEMGATE_CHANGED=true
	expect_code "$want" "push $n ($desc): check exits $want"
	cp "$CFILE" "$T/written.$n" 2>/dev/null
	comment_step
	expect_code 0 "push $n ($desc): the comment step"
	expect_one "$gh" "github-actions[bot]" "push $n ($desc)" "$@"
	if cmp -s "$T/mine.1" "$CFILE"; then ok "push $n: the comment is what memgate wrote"
	else not_ok "push $n: the comment is what memgate wrote" "$(diff "$T/mine.1" "$CFILE" | head)"; fi
}

remeasure llm-a 9440
push 1 "llm-a re-measured, better" 0 "✅ gate passed" "models\\/llm\\-a\\/\\.memgate\\.yml: accept, selected checkpoint." \
	"1 pass, 1 unchanged by this pull request"
requests "$gh"
if [ "$(req_count POST)" = 1 ] && [ "$(req_count PATCH)" = 1 ] &&
   grep -q '"path": "/repos/octo/models/issues/comments/3"' "$T/requests"; then
	ok "push 1: created one comment, marked the earlier memgate's out of date"
else
	not_ok "push 1: created one comment, marked the earlier memgate's out of date" "$(cat "$T/requests")"
fi
if python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))[2]; sys.exit(not c["body"].startswith("<!-- memgate superseded -->\n~~memgate~~ out of date"))' "$gh/comments.json"; then
	ok "push 1: the earlier per-policy comment says it is out of date"
else
	not_ok "push 1: the earlier per-policy comment says it is out of date" "$(cat "$gh/comments.json")"
fi

remeasure llm-a 9600
push 2 "llm-a regresses" 1 "❌ gate failed" "models\\/llm\\-a\\/\\.memgate\\.yml: tune, checkpoint\\: memory saving" "(checkpoint against the base: peak MB 9450.76 → 9600 (+149.24))"
requests "$gh"
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 1 ]; then ok "push 2: updated it in place"
else not_ok "push 2: updated it in place" "$(cat "$T/requests")"; fi
if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[1]["body"])' "$gh/comments.json")" = \
     "$(printf '<!-- memgate -->\nfake: all passed')" ]; then
	ok "someone else's copy of the marker is never edited"
else
	not_ok "someone else's copy of the marker is never edited"
fi

g -C "$mono" rm -q models/llm-a/results/75_manifest.json
push 3 "llm-a's manifest gone" 2 "❌ could not decide" "models\\/llm\\-a\\/\\.memgate\\.yml: could not decide:" \
	"75\\_manifest\\.json"

remeasure llm-a 9440
push 4 "fixed" 0 "✅ gate passed" "accept, selected checkpoint." "1 pass, 1 unchanged"

as_main models/llm-a
push 5 "reverted" 0 "✅ gate passed" "Of 2 policies: 2 unchanged by this pull request."
if grep -qF "### models\\/llm\\-a\\/\\.memgate\\.yml: unchanged by this pull request" "$T/mine.1"; then
	ok "push 5: each policy named unchanged"
else
	not_ok "push 5: each policy named unchanged" "$(cat "$T/mine.1")"
fi

remeasure llm-b 9600
push 6 "llm-b regresses in the monorepo" 1 "❌ gate failed" "models\\/llm\\-b\\/train\\.memgate\\.yml:" \
	"1 fail, 1 unchanged by this pull request"

as_main models/llm-b
cp -r "$T/main/models/llm-b" "$mono/models/llm-c"
mv "$mono/models/llm-c/train.memgate.yml" "$mono/models/llm-c/.memgate.yml"
sed -i -e 's|llm-b|llm-c|g' -e 's|^model_id: .*|model_id: llm-c|' "$mono/models/llm-c/.memgate.yml"
(cd "$mono/models/llm-c" && "$MEMGATE" manifest --worktree --report results/76_report.json \
	--out results/75_manifest.json --force) >/dev/null 2>&1
push 7 "llm-c adopts memgate" 0 "✅ gate passed" "models\\/llm\\-c\\/\\.memgate\\.yml: accept" \
	"1 pass, 2 unchanged"
if grep -qF "adopting memgate" "$T/mine.1"; then ok "push 7: the adoption is named"
else not_ok "push 7: the adoption is named" "$(cat "$T/mine.1")"; fi

rm -rf "$mono/models/llm-c" "$mono/models/llm-b"
push 8 "llm-b retired" 0 "✅ gate passed" "1 unchanged by this pull request, 1 retired"
if grep -qF "### models\\/llm\\-b\\/train\\.memgate\\.yml: retired by this pull request" "$T/mine.1"; then
	ok "push 8: the retired policy is named"
else
	not_ok "push 8: the retired policy is named" "$(cat "$T/mine.1")"
fi

as_main models/llm-b
printf 'budget: [unclosed\n' >>"$mono/models/llm-b/train.memgate.yml"
push 9 "llm-b's policy unreadable" 2 "❌ could not decide" "models\\/llm\\-b\\/train\\.memgate\\.yml: could not decide" \
	"1 could not decide, 1 unchanged"
if grep -qF "### models\\/llm\\-a\\/\\.memgate\\.yml: unchanged by this pull request" "$T/mine.1"; then
	ok "push 9: one unreadable policy leaves the others' sections"
else
	not_ok "push 9: one unreadable policy leaves the others' sections" "$(cat "$T/mine.1")"
fi

as_main models/llm-b
push 10 "all reverted" 0 "✅ gate passed" "Of 2 policies: 2 unchanged by this pull request."
requests "$gh"

# --- the rest of the step's cases --------------------------------------

# A read-only token (a fork): nothing posted, and why.
cp "$gh/comments.json" "$T/comments.before"
printf '[{"path": "/comments", "status": 403, "message": "Resource not accessible by integration"}]\n' >"$gh/faults.json"
comment_step
expect_code 0 "a read-only token: the step does not fail the job"
expect_out "::warning::memgate: cannot post the pull-request comment (HTTP 403: Resource not accessible by integration). A pull request from a fork gets a read-only token" \
	"a read-only token: says why"
expect_out "workflow_run" "a read-only token: names the recipe"
requests "$gh"
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 0 ] && cmp -s "$T/comments.before" "$gh/comments.json"; then
	ok "a read-only token: nothing posted"
else
	not_ok "a read-only token: nothing posted" "$(cat "$T/requests")"
fi

# memgate wrote no file (it did not run): the comment says nothing was
# decided, not the last run's verdict.
comment_step MEMGATE_COMMENT_FILE="$T/none.md"
expect_code 0 "no comment file"
expect_out "memgate wrote no comment" "no comment file: says so"
expect_one "$gh" "github-actions[bot]" "no comment file" "❌ could not decide" "memgate wrote no comment"

requests "$gh"
comment_step MEMGATE_PR_HEAD_SHA="$(cat "$gh/head")"
expect_out "memgate: updated the memgate comment on #$PR" "workflow_run: the gated head: posts"
requests "$gh"
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 1 ] &&
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
comment_step MEMGATE_PR_HEAD_SHA=89abcdef0123456789abcdef0123456789abcdef
expect_code 0 "workflow_run: another head"
expect_out "::warning::memgate: pull request #$PR is not at 89abcdef0123456789abcdef0123456789abcdef: nothing posted" \
	"workflow_run: another head: says so"
comment_step MEMGATE_PR='7/../../x'
expect_code 2 "a pull request number that is not a number"
requests "$gh"
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 0 ]; then
	ok "those cases post nothing"
else
	not_ok "those cases post nothing" "$(cat "$T/requests")"
fi

# --- the API's answers ---------------------------------------------------

# api_case DESC FAULTS [VAR=VALUE...]: the comment step with FAULTS queued
# (faults.json); $T/requests holds its requests.
api_case() {
	local desc=$1
	printf '%s\n' "$2" >"$gh/faults.json"
	shift 2
	cp "$gh/comments.json" "$T/comments.before"
	requests "$gh"
	comment_step "$@"
	expect_code 0 "$desc: the step does not fail the job"
	requests "$gh"
}
check_step MEMGATE_CHANGED=true >/dev/null
cp "$CFILE" "$T/current.md"

# A secondary rate limit: waited out (Retry-After), then posted.
api_case "a secondary rate limit" '[{"method": "PATCH", "status": 403, "retry_after": 1, "message": "You have exceeded a secondary rate limit"}]'
expect_out "memgate: rate limited (HTTP 403): waiting 1 s" "a secondary rate limit: says it waits"
if [ "$(req_count PATCH)" = 2 ]; then ok "a secondary rate limit: the update is tried again"
else not_ok "a secondary rate limit: the update is tried again" "$(cat "$T/requests")"; fi
expect_one "$gh" "github-actions[bot]" "a secondary rate limit" "✅ gate passed"
# ... but never waited past MAX_WAIT (60 s in all)
api_case "a rate limit too long to wait" '[{"method": "PATCH", "status": 429, "retry_after": 3600, "message": "slow down"}]'
expect_out "::warning::memgate: cannot post the pull-request comment (HTTP 429: slow down)" \
	"a rate limit too long to wait: says why, does not wait"

# 404 (a pull request the token cannot see), 422 (refused body): said, nothing else posted.
api_case "404" '[{"path": "/comments", "status": 404, "message": "Not Found"}]'
expect_out "::warning::memgate: cannot post the pull-request comment (HTTP 404: Not Found)" "404: says why"
if [ "$(req_count POST)" = 0 ] && [ "$(req_count PATCH)" = 0 ]; then ok "404: nothing posted"
else not_ok "404: nothing posted" "$(cat "$T/requests")"; fi
api_case "422" '[{"method": "PATCH", "status": 422, "message": "Validation Failed"}]'
expect_out "::warning::memgate: cannot post the pull-request comment (HTTP 422: Validation Failed)" "422: says why"
if [ "$(req_count POST)" = 0 ]; then ok "422: no second comment"; else not_ok "422: no second comment" "$(cat "$T/requests")"; fi
# A message the API answers is printed through the log escaping.
api_case "a hostile API message" '[{"path": "/comments", "status": 403, "message": "x\n::error::pwned ##[add-mask]y"}]'
cat "$T/out" "$T/err" >"$T/log"
expect_runner_safe "$T/log" "a hostile API message: no workflow command in the log"

# Our comment deleted between the list and the update: created again, once.
# (the stand-in still has it: it is then marked out of date, so one stays current)
api_case "the comment deleted meanwhile" '[{"method": "PATCH", "status": 404, "message": "Not Found"}]'
if [ "$(req_count PATCH)" = 2 ] && [ "$(req_count POST)" = 1 ]; then ok "the comment deleted meanwhile: created again"
else not_ok "the comment deleted meanwhile: created again" "$(cat "$T/requests")"; fi
expect_one "$gh" "github-actions[bot]" "the comment deleted meanwhile" "✅ gate passed"

# More than 100 comments: the second page is read, the comment found there
# (the stand-in restarts with 150 comments before it).
python3 - "$gh/comments.json" "$gh/comments.paged" <<'PY2'
import json, sys
cs = [c for c in json.load(open(sys.argv[1])) if not c["body"].startswith("<!-- memgate -->")
      or c["user"]["login"] != "github-actions[bot]"]
ours = [c for c in json.load(open(sys.argv[1])) if c not in cs][:1]
filler = [{"id": 5000 + i, "body": f"comment {i}", "user": {"login": "reviewer"}} for i in range(150)]
json.dump(filler + ours + cs, open(sys.argv[2], "w"))
PY2
kill "${SERVERS[-1]}"; wait "${SERVERS[-1]}" 2>/dev/null
rm -f "$gh/port"
mv "$gh/comments.paged" "$gh/comments.json"
start_api "$gh" github
api_case "151 comments before ours" '[]'
if grep -q '"query": "per_page=100&page=2"' "$T/requests" && [ "$(req_count PATCH)" = 1 ] &&
   [ "$(req_count POST)" = 0 ]; then
	ok "151 comments before ours: the second page read, ours updated"
else
	not_ok "151 comments before ours: the second page read, ours updated" "$(cat "$T/requests")"
fi
expect_one "$gh" "github-actions[bot]" "151 comments before ours" "✅ gate passed"

# --- whose comment: the token's identity --------------------------------

# A personal access token: GET /user says who; its comment is found again,
# the bot's is left alone.
printf '{"%s": "github-actions[bot]", "pat-%s": "octo-maintainer", "app-%s": "app:memgate-app[bot]"}\n' \
	"$TOKEN" "$TOKEN" "$TOKEN" >"$gh/tokens.json"
for run in 1 2; do
	api_case "a personal token, run $run" '[]' MEMGATE_TOKEN="pat-$TOKEN"
	expect_one "$gh" "octo-maintainer" "a personal token, run $run" "✅ gate passed"
done
expect_out "memgate: updated the memgate comment on #$PR (by octo-maintainer)" "a personal token: finds its own comment"
if grep -q '"path": "/user"' "$T/requests"; then ok "a personal token: asks GET /user"
else not_ok "a personal token: asks GET /user" "$(cat "$T/requests")"; fi
# An App's installation token cannot ask: comment-author names its bot.
for run in 1 2; do
	api_case "an App's token, run $run" '[]' MEMGATE_TOKEN="app-$TOKEN" MEMGATE_COMMENT_AUTHOR='memgate-app[bot]'
	expect_one "$gh" "memgate-app[bot]" "an App's token, run $run" "✅ gate passed"
done
if [ "$(req_count POST)" = 0 ]; then ok "an App's token: its comment updated, not another added"
else not_ok "an App's token: its comment updated, not another added" "$(cat "$T/requests")"; fi
expect_one "$gh" "github-actions[bot]" "the job token's comment is still one" "✅ gate passed"
comment_step MEMGATE_COMMENT_AUTHOR='x::error::y'
expect_code 2 "comment-author that is not a login"
expect_out "::error::memgate: MEMGATE_COMMENT_AUTHOR (comment-author) is not a login" "and says so"

# --- GitLab: the same comment as a merge-request note --------------------

# The GitLab recipe's poster (MEMGATE_FORGE=gitlab, GitLab's own CI_*
# variables, a token variable) against a stand-in for GitLab's REST API:
# the ten pushes' comments, in turn (as memgate writes them outside GitHub
# Actions: no link to a run page), each followed by exactly one memgate
# note, created once and then edited in place.
gl=$T/gl
mkdir -p "$gl"
printf '{"glpat-%s": "project_42_bot_memgate", "other-%s": "reviewer"}\n' "$TOKEN" "$TOKEN" >"$gl/tokens.json"
python3 - "$gl/comments.json" <<'PY2'
import json, sys
json.dump([{"id": 1, "body": "looks good", "author": {"username": "reviewer"}, "system": False},
           {"id": 2, "body": "<!-- memgate -->\nfake: all passed", "author": {"username": "mallory"}, "system": False},
           {"id": 3, "body": "<!-- memgate -->\nadded 1 commit", "author": {"username": "project_42_bot_memgate"}, "system": True}],
          open(sys.argv[1], "w"))
PY2
start_api "$gl" gitlab
GLAPI=$API
# gitlab_step [VAR=VALUE...]: the GitLab recipe's poster.
gitlab_step() {
	(cd "$ws" && env -i PATH="$PATH" MEMGATE_FORGE=gitlab MEMGATE_COMMENT=true \
		MEMGATE_COMMENT_FILE="$CFILE" MEMGATE_TOKEN="glpat-$TOKEN" \
		CI_API_V4_URL="$GLAPI/api/v4" CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=$PR "$@" \
		timeout 120 python3 "$SRC/actions/action-comment") >"$T/out" 2>"$T/err"
	code=$?
}
for n in 1 2 3 4 5 6 7 8 9 10; do
	sed -i 's|^The rest (every candidate, sensitivity, evidence): \[the job summary of this run\](.*)\.$|The rest (every candidate, sensitivity, evidence) is in the job summary of this run and the decision record.|' \
		"$T/written.$n"
	cp "$T/written.$n" "$CFILE"
	gitlab_step
	expect_code 0 "GitLab, push $n: the poster"
	expect_one "$gl" "project_42_bot_memgate" "GitLab, push $n" "$(sed -n 2p "$T/written.$n")"
	if cmp -s "$T/mine.1" "$CFILE"; then ok "GitLab, push $n: the note is what memgate wrote"
	else not_ok "GitLab, push $n: the note is what memgate wrote" "$(diff "$T/mine.1" "$CFILE" | head)"; fi
done
requests "$gl"
if [ "$(req_count POST)" = 1 ] && [ "$(req_count PUT)" = 9 ] &&
   ! grep -q '"path": "/api/v4/projects/42/merge_requests/7/notes/[23]"' "$T/requests" &&
   [ "$(grep -c '"private_token": "glpat-' "$T/requests")" = "$(wc -l <"$T/requests")" ] &&
   grep -q '"path": "/api/v4/user"' "$T/requests"; then
	ok "GitLab: one note created, then edited in place (PUT), asking GET /user who the token is"
else
	not_ok "GitLab: one note created, then edited in place (PUT), asking GET /user who the token is" "$(head -c 3000 "$T/requests")"
fi
if python3 -c 'import json,sys; cs=json.load(open(sys.argv[1])); sys.exit(not (cs[1]["body"].endswith("fake: all passed") and cs[2]["body"].endswith("added 1 commit")))' "$gl/comments.json"; then
	ok "GitLab: someone else's note and a system note are never edited"
else
	not_ok "GitLab: someone else's note and a system note are never edited"
fi
rm -f "$CFILE"
gitlab_step
expect_one "$gl" "project_42_bot_memgate" "GitLab, no comment file" "❌ could not decide" "memgate wrote no comment"
cp "$T/written.2" "$CFILE"

# gl_case DESC FAULTS [VAR=VALUE...]: the GitLab poster with FAULTS queued.
gl_case() {
	local desc=$1
	printf '%s\n' "$2" >"$gl/faults.json"
	shift 2
	requests "$gl"
	gitlab_step "$@"
	expect_code 0 "GitLab, $desc: the poster does not fail the job"
	requests "$gl"
}
gl_case "a rate limit" '[{"method": "PUT", "status": 429, "retry_after": 1, "message": "429 Too Many Requests"}]'
if [ "$(req_count PUT)" = 2 ]; then ok "GitLab, a rate limit: waited out, edited"
else not_ok "GitLab, a rate limit: waited out, edited" "$(cat "$T/requests")"; fi
gl_case "403" '[{"path": "/notes", "status": 403, "message": "403 Forbidden"}]'
expect_out "::warning::memgate: cannot post the merge-request note (HTTP 403: 403 Forbidden); the decision is in the job log and its reports. The note needs a token with the api scope" "GitLab, 403: says why"
gl_case "404" '[{"path": "/notes", "status": 404, "message": "404 Not found"}]'
expect_out "(HTTP 404: 404 Not found)" "GitLab, 404: says why"
gl_case "422" '[{"method": "PUT", "status": 422, "message": "Note is too long"}]'
expect_out "(HTTP 422: Note is too long)" "GitLab, 422: says why"
if [ "$(req_count POST)" = 0 ]; then ok "GitLab, those refusals: no second note"
else not_ok "GitLab, those refusals: no second note" "$(cat "$T/requests")"; fi
# The same check of the file: a mention and a quick action are refused.
printf '%s\n/approve\n' "$(head -n 2 "$T/written.2") cc @octo/reviewers" >"$CFILE"
gl_case "a mention and a quick action" '[]'
expect_one "$gl" "project_42_bot_memgate" "GitLab, a mention and a quick action" "the comment of this run was refused"
if grep -q -e '@octo' -e '^/approve' "$T/mine.1"; then not_ok "GitLab: nothing of the refused file posted" "$(cat "$T/mine.1")"
else ok "GitLab: nothing of the refused file posted"; fi
# More than 100 notes before ours: the second page is read.
python3 - "$gl/comments.json" <<'PY2'
import json, sys
cs = json.load(open(sys.argv[1]))
filler = [{"id": 5000 + i, "body": f"note {i}", "author": {"username": "reviewer"}, "system": False}
          for i in range(120)]
json.dump(filler + cs, open(sys.argv[1], "w"))
PY2
kill "${SERVERS[-1]}"; wait "${SERVERS[-1]}" 2>/dev/null
rm -f "$gl/port"
start_api "$gl" gitlab
GLAPI=$API
cp "$T/written.10" "$CFILE"
gl_case "123 notes before ours" '[]'
if grep -q 'page=2' "$T/requests" && [ "$(req_count PUT)" = 1 ] && [ "$(req_count POST)" = 0 ]; then
	ok "GitLab, 123 notes before ours: the second page read, ours edited"
else
	not_ok "GitLab, 123 notes before ours: the second page read, ours edited" "$(cat "$T/requests")"
fi
expect_one "$gl" "project_42_bot_memgate" "GitLab, 123 notes before ours" "$(sed -n 2p "$T/written.10")"
gitlab_step CI_MERGE_REQUEST_IID=
expect_out "memgate: not a merge request: no comment to post" "GitLab, not a merge request: says so"

# The README's GitLab recipe, its script run as the job would (memgate and
# the poster from this tree) on a one-policy repository's merge request:
# the note is memgate's comment, and the job exits with memgate's status.
awk '/^memgate:$/ { p = 1 } p && /^  script:$/ { s = 1; next } s && /^  artifacts:$/ { exit }
     s && /^    - \|$/ { next } s { sub(/^      /, ""); print }' "$SRC/README.md" |
	sed -e "s|/opt/memgate/memgate|$MEMGATE|" -e "s|/opt/memgate/actions/|$SRC/actions/|" >"$T/gitlab-script.sh"
if grep -q 'action-comment' "$T/gitlab-script.sh" && grep -q -- '--comment memgate-comment.md' "$T/gitlab-script.sh"; then
	ok "README: the GitLab recipe writes the comment and posts it"
else
	not_ok "README: the GitLab recipe writes the comment and posts it" "$(cat "$T/gitlab-script.sh")"
fi
one=$T/gl-repo
sed -e 's|min_memory_saving_mb: 512|min_memory_saving_mb: 300|' -e '/^  grid:/,/^    min_samples_per_s:/d' \
	"$FIX/demo/memgate.yml" >"$T/passing.yml"
make_gate_repo "$one" "$T/passing.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
glbase=$(g -C "$one" rev-parse HEAD)
for want in 0 1; do
	if [ "$want" = 1 ]; then
		sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9600/' "$one/$REPORT_PATH"
		write_manifest "$one"
	else
		echo docs >"$one/README.md"
	fi
	commit_all "$one" "push: $want"
	requests "$gl"
	(cd "$one" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		CI_MERGE_REQUEST_DIFF_BASE_SHA="$glbase" CI_API_V4_URL="$GLAPI/api/v4" CI_PROJECT_ID=42 \
		CI_MERGE_REQUEST_IID=$PR MEMGATE_NOTE_TOKEN="glpat-$TOKEN" \
		timeout 120 bash -eo pipefail "$T/gitlab-script.sh") >"$T/out" 2>"$T/err"
	code=$?
	expect_code "$want" "GitLab recipe: exits as memgate does ($want)"
	expect_one "$gl" "project_42_bot_memgate" "GitLab recipe ($want)" \
		"$([ $want = 0 ] && echo '✅ gate passed' || echo '❌ gate failed')" "$(sed -n 2p "$one/memgate-comment.md")"
	requests "$gl"
	if [ "$(req_count PUT)" = 1 ] && [ "$(req_count POST)" = 0 ]; then ok "GitLab recipe ($want): its note edited"
	else not_ok "GitLab recipe ($want): its note edited" "$(cat "$T/requests")"; fi
done
gitlab_step CI_MERGE_REQUEST_IID='7/../x'
expect_code 2 "GitLab, a merge request number that is not one"

rm -f "$CFILE"
check_step MEMGATE_COMMENT=false
expect_code 0 "comment: false"
expect_no_file "$CFILE" "comment: false writes no comment"
check_step MEMGATE_COMMENT=yes
expect_code 2 "comment must be true or false"
expect_out "::error::memgate: input 'comment' must be true or false" "and says so"

# One policy, left alone by --changed: the comment names it unchanged.
make_gate_repo "$T/one" "$FIX/demo/memgate.yml" "$FIX/reports/76_real_gpu_memory.flat.json"
echo docs >"$T/one/README.md"
commit_all "$T/one" "docs only"
(cd "$T/one" && ${MEMGATE_WRAP:-} "$MEMGATE" check --all --changed --policy-rev HEAD~1 \
	--comment "$T/one.md" >"$T/out" 2>"$T/err")
code=$?
expect_code 0 "one policy left alone: check --all --changed"
if [ "$(sed -n 2p "$T/one.md" 2>/dev/null)" = "**memgate: ✅ gate passed** — \.memgate\.yml: unchanged by this pull request." ]; then
	ok "one policy left alone: the comment says it is unchanged"
else
	not_ok "one policy left alone: the comment says it is unchanged" "$(cat "$T/one.md" "$T/err" 2>&1)"
fi

# The comment is an output file like the others: a symlink is refused.
ln -s "$T/elsewhere.md" "$T/link.md"
(cd "$mono" && ${MEMGATE_WRAP:-} "$MEMGATE" check --all --comment "$T/link.md" >"$T/out" 2>"$T/err")
code=$?
expect_code 2 "check --comment to a symlink"
expect_no_file "$T/elsewhere.md" "nothing written through it"
(cd "$mono" && ${MEMGATE_WRAP:-} "$MEMGATE" check --policy models/llm-a/.memgate.yml --comment "$T/link.md" \
	>"$T/out" 2>"$T/err")
code=$?
expect_code 2 "check --policy --comment to a symlink"
expect_no_file "$T/elsewhere.md" "nothing written through it either"
if [ "$(grep -c 'cannot write: it is a symlink' "$T/err")" = 1 ]; then ok "and the error is said once"
else not_ok "and the error is said once" "$(cat "$T/err")"; fi

finish
