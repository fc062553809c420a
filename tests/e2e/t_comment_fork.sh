#!/usr/bin/env bash
# The workflow_run recipe posts a fork's artifact with the base
# repository's write token (issue 34, item 2): the fork's own workflow
# wrote the file, so the poster (actions/action-comment) accepts only what
# memgate writes.  The real comment and 26 variations of it (mentions,
# HTML, images, links, markers, entities, invisible characters, quick
# actions, sizes, counts, names) are posted to a local stand-in for the
# GitHub API (tests/e2e/comment-api.py, 127.0.0.1, bounded): each run makes
# at most one comment request, the pull request holds one memgate comment,
# which is either memgate's own text or a fixed refusal, never the fork's
# Markdown; and the log runs no workflow command.  (Each variation must
# also fail with the poster that trusted the file: the suite was run so.)
. "$(dirname "$0")/lib.sh"

ws=$T/ws
mkdir -p "$ws" "$T/art" "$T/gh"
PR=7
REPO=octo/models
TOKEN=test-token-$$
HEAD=0123456789abcdef0123456789abcdef01234567
srv=
trap '[ -n "$srv" ] && { kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }; rm -rf "$T"' EXIT

# The fork's run: memgate's real comment on a two-model pull request, whose
# regressed candidate's name tries a mention, HTML, a marker, a link, a
# workflow command, invisible and bidirectional characters (memgate
# escapes them: the poster must accept its own output as it is).
make_monorepo "$ws/repo"
base=$(g -C "$ws/repo" rev-parse HEAD)
sed -i 's/"peak_memory_mb": 9450.76/"peak_memory_mb": 9600/' "$ws/repo/models/llm-a/results/76_report.json"
sed -i 's/"checkpoint"/"ck \\u200b@octo\/team <img src=x> <!-- memgate --> [a](https:\/\/evil.test) ::error::x ##[add-mask]y \\u202e\\u00ad #5 \/approve"/g' \
	"$ws/repo/models/llm-a/results/76_report.json"
(cd "$ws/repo/models/llm-a" && "$MEMGATE" manifest --worktree --report results/76_report.json \
	--out results/75_manifest.json --force) >/dev/null 2>&1
commit_all "$ws/repo" "llm-a: new measurement"
(cd "$ws/repo" && GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=$REPO GITHUB_RUN_ID=99 \
	"$MEMGATE" check --all --policy-rev "$base" --comment "$T/real.md" >/dev/null 2>&1)
code=$?
expect_code 1 "the fork's run: memgate writes its comment"

# The variations, one file each (art/NN), and what each is (art/NN.what).
python3 - "$T/real.md" "$T/art" <<'PY'
import sys
real, out = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
lines = real.split("\n")
lead = lines[1]
sec = real[real.index("<!-- memgate: "):]

def with_lead(extra):
    return "\n".join([lines[0], lead + extra] + lines[2:])

def with_line(extra):
    i = lines.index("") if "" in lines else 2
    return "\n".join(lines[:i] + ["", extra] + lines[i:])

many = lines[0] + "\n" + lead + "\n" + "".join(
    f"\n<!-- memgate: m{i}/.memgate.yml -->\n### m{i}: accept\n" for i in range(101))
big_section = real.replace("### ", "### " + "x" * 3600, 1)
variants = [
    ("memgate's own comment", real),
    ("a raw @org/team mention", with_lead(" cc @octo/reviewers")),
    ("an <img> tracking pixel", with_lead(' <img src="https://tracker.test/p.png">')),
    ("a Markdown image", with_lead(" ![x](https://tracker.test/p.png)")),
    ("another bot's hidden sticky marker", with_line("<!-- other-bot:sticky -->")),
    ("a memgate section marker not where memgate puts it", lead and real.replace("\n\n<!-- memgate: ", "\n<!-- memgate: ", 1)),
    ("a marker name that runs ##[add-mask]", with_line("<!-- memgate: ##[add-mask]secret -->")),
    ("a marker name with a workflow command", with_line("<!-- memgate: ::error::x -->")),
    ("101 sections", many),
    ("a section over MG_COMMENT_MAX", big_section),
    ("a body over 65,536 characters", real + ("\n" + "a" * 200) * 400),
    ("the old per-policy marker first", real.split("\n", 1)[1]),
    ("an HTML entity for @", with_lead(" &#64;octo/reviewers")),
    ("an escaped backslash before @", with_lead(" \\\\@octo/reviewers")),
    ("a link elsewhere", with_lead(" [details](https://evil.test/x)")),
    ("the run's link to another repository",
     real.replace("https://github.com/octo/models/actions/runs/99", "https://evil.test/octo/models/actions/runs/99")),
    ("a bare URL", with_lead(" see https\\://evil.test/x and http://evil.test")),
    ("a www. autolink", with_lead(" www.evil.test")),
    ("a right-to-left override", with_lead(" \u202egnissap")),
    ("a Unicode line separator", with_lead(" \u2028# heading")),
    ("a GitLab quick action", with_line("/approve")),
    ("an issue reference", with_lead(" fixes octo/other#5")),
    ("a control character", with_lead(" \x1b[31mred")),
    ("a raw HTML comment mid-line", with_lead(" <!-- memgate -->")),
    ("an empty file", ""),
    ("30,000 one-character lines in one section", real + "\n".join(["x"] * 30000)),
]
for i, (what, text) in enumerate(variants):
    with open(f"{out}/{i:02d}", "w", encoding="utf-8") as f:
        f.write(text)
    with open(f"{out}/{i:02d}.what", "w") as f:
        f.write(what)
# not UTF-8
with open(f"{out}/{len(variants):02d}", "wb") as f:
    f.write(real.encode() .replace(b"accept", b"acc\xffept", 1))
with open(f"{out}/{len(variants):02d}.what", "w") as f:
    f.write("bytes that are not UTF-8")
PY

printf '{"%s": "github-actions[bot]"}\n' "$TOKEN" >"$T/gh/tokens.json"
echo '[]' >"$T/gh/comments.json"
echo "$HEAD" >"$T/gh/head"
touch "$T/gh/requests.log"
timeout 300 python3 "$SRC/tests/e2e/comment-api.py" "$T/gh" github 2>"$T/gh/stderr" &
srv=$!
for _ in $(seq 100); do [ -s "$T/gh/port" ] && break; sleep 0.1; done
if [ -s "$T/gh/port" ]; then ok "the stand-in API listens on 127.0.0.1"
else not_ok "the stand-in API listens on 127.0.0.1" "$(cat "$T/gh/stderr")"; finish; exit 1; fi
API=http://127.0.0.1:$(cat "$T/gh/port")

# safe BODY-FILE: what no posted comment may hold (checked apart from the
# poster's own rules): HTML but memgate's markers, an unescaped mention,
# an image, a link but the run's, an entity for a character, a quick action.
cat >"$T/safe.py" <<'PY'
import re, sys
body = open(sys.argv[1], encoding="utf-8").read()
bad = []
for n, line in enumerate(body.split("\n"), 1):
    if re.fullmatch(r"<!-- memgate(: [A-Za-z0-9._/+%-]+)? -->", line):
        continue
    if "<" in line:
        bad.append(f"line {n}: HTML")
    if re.search(r"(?<!\\)(\\\\)*@", line):
        bad.append(f"line {n}: a mention")
    if "![" in line.replace("\\![", ""):
        bad.append(f"line {n}: an image")
    if re.search(r"\]\((?!https://github\.com/octo/models/actions/runs/)", line):
        bad.append(f"line {n}: a link")
    if "&#" in line or line.startswith("/") or "://evil" in line or "\u202e" in line:
        bad.append(f"line {n}: unsafe")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

seen=0
for f in "$T"/art/[0-9][0-9]; do
	what=$(cat "$f.what")
	n=$(wc -l <"$T/gh/requests.log")
	(cd "$ws" && env -i PATH="$PATH" MEMGATE_COMMENT=true MEMGATE_COMMENT_FILE="$f" MEMGATE_PR=$PR \
		MEMGATE_TOKEN="$TOKEN" MEMGATE_PR_HEAD_SHA=$HEAD GITHUB_API_URL="$API" \
		GITHUB_SERVER_URL=https://github.com GITHUB_REPOSITORY=$REPO \
		timeout 120 python3 "$SRC/actions/action-comment") >"$T/out" 2>"$T/err"
	code=$?
	tail -n +"$((n + 1))" "$T/gh/requests.log" >"$T/requests"
	posts=$(grep -c '"method": "\(POST\|PATCH\)"' "$T/requests")
	python3 - "$T/gh/comments.json" "$T/posted" <<'PY'
import json, sys
cs = [c for c in json.load(open(sys.argv[1])) if c["user"]["login"] == "github-actions[bot]"]
open(sys.argv[2], "w", encoding="utf-8").write(str(len(cs)) + "\n" + (cs[-1]["body"] if cs else ""))
PY
	count=$(head -n 1 "$T/posted")
	tail -n +2 "$T/posted" >"$T/body"
	if [ "$code" = 0 ] && [ "$posts" = 1 ] && [ "$count" = 1 ]; then
		ok "$what: one request, one comment"
	else
		not_ok "$what: one request, one comment" "exit $code, $posts requests, $count comments" "$(cat "$T/out" "$T/err")"
	fi
	if python3 "$T/safe.py" "$T/body" >"$T/unsafe"; then ok "$what: nothing unsafe posted"
	else not_ok "$what: nothing unsafe posted" "$(cat "$T/unsafe")" "$(head -c 400 "$T/body")"; fi
	cat "$T/out" "$T/err" >"$T/log"
	expect_runner_safe "$T/log" "$what: the log runs no workflow command"
	case $what in
	"memgate's own comment")
		if cmp -s "$f" "$T/body"; then ok "$what: posted as memgate wrote it"
		else not_ok "$what: posted as memgate wrote it" "$(diff "$f" "$T/body" | head)"; fi ;;
	*)
		if head -n 2 "$T/body" | grep -qF "the comment of this run was refused" &&
		   grep -qF "::warning::memgate: the comment file is not what memgate writes" "$T/out"; then
			ok "$what: refused, and the comment and the log say so"
		else
			not_ok "$what: refused, and the comment and the log say so" "$(head -c 400 "$T/body")" "$(cat "$T/out")"
		fi ;;
	esac
done

finish
