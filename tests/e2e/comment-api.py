#!/usr/bin/env python3
# A stand-in for the GitHub and GitLab REST APIs the comment posters call
# (actions/action-comment), for t_comment*.sh: on 127.0.0.1, a random free
# port, bounded in requests (MAX_REQUESTS) and, by its caller, in time.
#
#   comment-api.py STATE_DIR FORGE
#
# FORGE is github or gitlab.  STATE_DIR holds:
#   tokens.json    {token: login}: whom a token is; a login that starts with
#                  "app:" is an App's installation token (GET /user answers
#                  403, its comments are by the login after "app:")
#   comments.json  the comments (notes) on the pull (merge) request, read at
#                  start, written after every change
#   faults.json    [{"method", "path" (a suffix), "status", "retry_after",
#                  "message"}]: the next matching request gets that answer
#                  once (a secondary rate limit, 403, 404, 422)
#   head           the pull request's head commit (GET .../pulls/N)
#   requests.log   every request, one JSON object a line (written here)
#   port           the port, once listening (written here)
# The pull request is #7 of octo/models (GitHub), !7 of project 42 (GitLab).
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

state, forge = sys.argv[1:3]
REPO, PR, PROJECT = "octo/models", "7", "42"
MAX_BODY = 65536 if forge == "github" else 1000000
MAX_REQUESTS = 2000
lock = threading.Lock()
count = [0]


def load(name, default):
    try:
        with open(f"{state}/{name}") as f:
            return json.load(f)
    except OSError:
        return default


comments = load("comments.json", [])
next_id = [max([c["id"] for c in comments] + [1000]) + 1]


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, obj, headers=()):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def who(self):
        tokens = load("tokens.json", {})
        if forge == "github":
            auth = self.headers.get("Authorization") or ""
            token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        else:
            token = self.headers.get("PRIVATE-TOKEN")
        return tokens.get(token) if token else None

    def fault(self, method, path):
        faults = load("faults.json", [])
        for i, f in enumerate(faults):
            if f.get("method", method) == method and path.endswith(f.get("path", "")):
                del faults[i]
                with open(f"{state}/faults.json", "w") as out:
                    json.dump(faults, out)
                return f
        return None

    def dump(self):
        with open(f"{state}/comments.tmp", "w") as f:
            json.dump(comments, f)
        os.replace(f"{state}/comments.tmp", f"{state}/comments.json")

    def handle_any(self, method):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(min(n, 8 << 20)) if n else b""
        url = urlsplit(self.path)
        with lock:
            count[0] += 1
            with open(f"{state}/requests.log", "a") as log:
                log.write(json.dumps({"method": method, "path": url.path, "query": url.query,
                    "authorization": self.headers.get("Authorization"),
                    "private_token": self.headers.get("PRIVATE-TOKEN"),
                    "content_type": self.headers.get("Content-Type"),
                    "accept": self.headers.get("Accept"),
                    "body": raw.decode("utf-8", "replace")}) + "\n")
            if count[0] > MAX_REQUESTS:
                return self.answer(500, {"message": "too many requests in one test"})
            f = self.fault(method, url.path)
            if f:
                headers = [("Retry-After", str(f["retry_after"]))] if "retry_after" in f else []
                return self.answer(f["status"], {"message": f.get("message", "fault")}, headers)
            login = self.who()
            if login is None:
                return self.answer(401, {"message": "Bad credentials"})
            app = login.startswith("app:")
            login = login[4:] if app else login
            body = None
            if method in ("POST", "PATCH", "PUT"):
                if self.headers.get("Content-Type") != "application/json":
                    return self.answer(415, {"message": "not JSON"})
                try:
                    body = json.loads(raw)["body"]
                    assert isinstance(body, str)
                except Exception:
                    return self.answer(422, {"message": "no body"})
                if len(body) > MAX_BODY:
                    return self.answer(422, {"message": "Body is too long (maximum is 65536 characters)"})
            if forge == "github":
                return self.github(method, url, login, app, body)
            return self.gitlab(method, url, login, app, body)

    def page(self, url, items):
        q = parse_qs(url.query)
        per, page = int(q.get("per_page", ["30"])[0]), int(q.get("page", ["1"])[0])
        return self.answer(200, items[(page - 1) * per:page * per])

    def github(self, method, url, login, app, body):
        path = url.path
        if method == "GET" and path == "/user":
            if app:
                return self.answer(403, {"message": "Resource not accessible by integration"})
            return self.answer(200, {"login": login, "type": "User"})
        if method == "GET" and path == f"/repos/{REPO}/pulls/{PR}":
            with open(f"{state}/head") as f:
                return self.answer(200, {"number": int(PR), "head": {"sha": f.read().strip()}})
        base = f"/repos/{REPO}/issues"
        if method == "GET" and path == f"{base}/{PR}/comments":
            return self.page(url, comments)
        if method == "POST" and path == f"{base}/{PR}/comments":
            c = {"id": next_id[0], "body": body, "user": {"login": login}}
            next_id[0] += 1
            comments.append(c)
            self.dump()
            return self.answer(201, c)
        if method == "PATCH" and path.startswith(f"{base}/comments/"):
            cid = path.rsplit("/", 1)[1]
            for c in comments:
                if str(c["id"]) == cid:
                    if c["user"]["login"] != login:
                        return self.answer(403, {"message": "not your comment"})
                    c["body"] = body
                    self.dump()
                    return self.answer(200, c)
        return self.answer(404, {"message": "Not Found"})

    def gitlab(self, method, url, login, app, body):
        path = url.path
        if method == "GET" and path == "/api/v4/user":
            return self.answer(200, {"username": login, "bot": app})
        base = f"/api/v4/projects/{PROJECT}/merge_requests/{PR}/notes"
        if method == "GET" and path == base:
            return self.page(url, comments)
        if method == "POST" and path == base:
            c = {"id": next_id[0], "body": body, "author": {"username": login}, "system": False}
            next_id[0] += 1
            comments.append(c)
            self.dump()
            return self.answer(201, c)
        if method == "PUT" and path.startswith(base + "/"):
            cid = path.rsplit("/", 1)[1]
            for c in comments:
                if str(c["id"]) == cid:
                    if c["author"]["username"] != login:
                        return self.answer(403, {"message": "403 Forbidden"})
                    c["body"] = body
                    self.dump()
                    return self.answer(200, c)
        return self.answer(404, {"message": "404 Not found"})

    def do_GET(self): self.handle_any("GET")
    def do_POST(self): self.handle_any("POST")
    def do_PATCH(self): self.handle_any("PATCH")
    def do_PUT(self): self.handle_any("PUT")
    def do_DELETE(self): self.handle_any("DELETE")


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(f"{state}/port.tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(f"{state}/port.tmp", f"{state}/port")
srv.serve_forever()
