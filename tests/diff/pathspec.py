#!/usr/bin/env python3
"""memgate's evidence.inputs matching against the real `git diff`.

    tests/diff/pathspec.py CHECK SEED [-n CASES] [--repos R] [--keep DIR]

CHECK is build/tests/pathspec-check (libmemgate's parser and
git layer, one entry a line).  Each of R repositories is built with the
real git: a random tree of nested directories whose names have dots,
spaces, glob characters ('*', '?', '[', ']'), a leading '!', '#' or ':',
a backslash, UTF-8 and case variants, committed as A; then some files
changed, deleted and added (a file may become a directory) as B.  Each
case is an entry built from those names: a path, a directory, a name cut
short, a typo, a case variant, with '*', '?', '[...]', '**' or a
backslash put in; or one of the forms memgate refuses (every magic word of
git's, short and long, './', '..', '.', '//', a leading '/', '!' or '#', a
trailing '/' or space, control characters, NUL, the empty entry, '.').

For an entry memgate accepts, the oracle is
`git diff --name-only -z --no-renames A B -- ENTRY` run at the repository's
root (memgate lists both paths of a rename, as --no-renames does): the
changed paths must be the same set.  When none changed, memgate must say
that the entry matches nothing exactly when `git diff` from the empty tree
to A and to B lists no path either.  An entry the rules below refuse must
be refused at the entry's line and column, naming the form; one they
accept must not be.
No directory name holds a '*': there git 2.39 contradicts its own rules
(tree-walk.c: with a '*' as the only wildcard, git_fnmatch skips one
character too many once the directory is read as the start of the entry,
so `git diff -- 'a*b/x'` lists every file in a directory named 'a*b');
memgate follows the rules there, as in every other directory.
Prints "pathspec differential: N cases, M mismatches; K forms refused".
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

NAMES = ["src", "Src", "SRC", "model", "Model", "lib", "a", "A", "b", "ab", "a.b",
         "a.b.c", ".hidden", "x.py", "X.py", "x.PY", "y.py", "conf.yaml", "train1.yaml",
         "train-large.yaml", "a b", " lead", "sp ace.txt", "[ab]", "a*b", "q?", "we[i]rd",
         "!bang", "#hash", ":colon", "a]b", "{c}", "~t", "a,b", "r\u00e9sum\u00e9",
         "b\\s", "..dots", "dots..", "-dash", "*", "**"]
GLOB = "*?[\\"

# The refused forms: kind -> (make an entry from a path, what the message names).
MAGIC = ["top", "literal", "glob", "icase", "exclude", "attr", "prefix"]
REFUSED = {
    "magic-" + w: (lambda p, w=w: ":(%s)%s" % (w + (":x" if w == "attr" else
                                                     ":0" if w == "prefix" else ""), p),
                   "magic '%s'" % w)
    for w in MAGIC}
REFUSED.update({
    "magic-top-short": (lambda p: ":/" + p, "magic 'top' (':/')"),
    "magic-exclude-bang": (lambda p: ":!" + p, "magic 'exclude' (':!')"),
    "magic-exclude-caret": (lambda p: ":^" + p, "magic 'exclude' (':^')"),
    "magic-long-combined": (lambda p: ":(glob,icase)" + p, "magic 'glob'"),
    "magic-unclosed": (lambda p: ":(glob" + p, "unclosed ':('"),
    "leading-colon": (lambda p: ":" + p, "pathspec magic"),
    "dot-slash": (lambda p: "./" + p, "a leading './'"),
    "dotdot": (lambda p: dotdot(p), "a '..' segment"),
    "dot-segment": (lambda p: p.replace("/", "/./", 1) if "/" in p else p + "/.",
                    "a '.' segment"),
    "double-slash": (lambda p: p.replace("/", "//", 1) if "/" in p else "a//" + p,
                     "a '//' run"),
    "trailing-slash": (lambda p: p + "/", "a trailing '/'"),
    "leading-slash": (lambda p: "/" + p, "a leading '/'"),
    "leading-bang": (lambda p: "!" + p, "a leading '!'"),
    "leading-hash": (lambda p: "#" + p, "a leading '#'"),
    "trailing-space": (lambda p: p + " ", "a trailing space"),
    "backslash-space": (lambda p: p + "\\ x", "a backslash before a space"),
    "trailing-backslash": (lambda p: p + "\\", "a trailing backslash"),
    "control": (lambda p: p[:1] + random.choice("\x01\t\n\r\x1b\x7f") + p[1:],
                "a control character"),
    "nul": (lambda p: p + "\0x", "contains a NUL byte"),
    "empty": (lambda p: "", "must not be empty"),
    "dot": (lambda p: ".", "'.' is not supported"),
})


def dotdot(p):
    parts = p.split("/")
    i = random.randrange(len(parts))
    return "/".join(parts[:i + 1] + [".."] + parts[i:])


def refused(s):
    """The rules memgate(1) states, written again: the form refused, or None."""
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in s) or not s:
        return "control"
    if s[0] in ":!#/":
        return s[0]
    if s.endswith(" "):
        return "space"
    if "\\ " in s or s.endswith("\\"):
        return "backslash"
    if s == "." or s.startswith("./"):
        return "dot"
    if any(seg in ("", ".", "..") for seg in s.split("/")):
        return "segment"
    return None


def git(repo, *args, env=None):
    r = subprocess.run(["git", "-C", repo] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr


def conflicts(path, files):
    """Would path be both a file and a directory among files?"""
    parts = path.split("/")
    for i in range(1, len(parts)):
        if "/".join(parts[:i]) in files:
            return True
    return any(f.startswith(path + "/") for f in files) or path in files


def random_path(rng):
    return "/".join(rng.choice(NAMES) for _ in range(rng.choice([1, 2, 2, 3, 3, 4])))


def star_dir(path):
    """Is there a '*' in a directory of path?  git 2.39 mismatches itself there."""
    return "*" in path.rpartition("/")[0]


def write_tree(root, files):
    for entry in os.listdir(root):
        if entry != ".git":
            full = os.path.join(root, entry)
            shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)
    for path, text in files.items():
        full = os.path.join(root, *path.split("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def build_repo(rng, root, env):
    a = {}
    while len(a) < 30:
        p = random_path(rng)
        if not conflicts(p, a) and not star_dir(p):
            a[p] = "v%d\n" % rng.randrange(10 ** 6)
    b = {}
    for p, text in a.items():
        r = rng.random()
        if r < 0.3:
            b[p] = text + "changed\n"
        elif r >= 0.4:
            b[p] = text
    for _ in range(200):
        if len(b) >= len(a) + 6:
            break
        p = random_path(rng)
        if rng.random() < 0.2 and a:
            p = rng.choice(sorted(a)) + "/" + rng.choice(NAMES)   # a file becomes a dir
            if star_dir(p):
                continue
            for q in list(b):
                if p.startswith(q + "/"):
                    del b[q]
        if star_dir(p):
            continue
        if not conflicts(p, b):
            b[p] = "new %d\n" % rng.randrange(10 ** 6)
    os.makedirs(root)
    git(root, "init", "-q", env=env)
    ids = []
    for files in (a, b):
        write_tree(root, files)
        git(root, "add", "-A", env=env)
        git(root, "commit", "-q", "--allow-empty", "-m", "x", env=env)
        ids.append(git(root, "rev-parse", "HEAD", env=env)[1].decode().strip())
    return ids, sorted(set(a) | set(b))


def mutate(rng, s, how):
    """An accepted kind of entry made from s."""
    if not s:
        return s
    i = rng.randrange(len(s))
    if how == "star":
        j = rng.randrange(i, min(len(s), i + 6) + 1)
        return s[:i] + "*" + s[j:]
    if how == "qmark":
        return s[:i] + "?" + s[i + 1:]
    if how == "class":
        c = s[i]
        cls = rng.choice(["[%s]", "[x%s]", "[!%s]", "[%s-~]", "[a-z]", "[[:alpha:]]"])
        return s[:i] + (cls % c if "%s" in cls else cls) + s[i + 1:]
    if how == "dstar":
        parts = s.split("/")
        k = rng.randrange(len(parts))
        return "/".join(parts[:k] + ["**"] + parts[k + 1:]) if rng.random() < 0.5 \
            else "**/" + parts[-1]
    if how == "suffix":
        return "*" + s[i:]
    if how == "case":
        return "".join(c.swapcase() if rng.random() < 0.3 else c for c in s)
    if how == "typo":
        return s[:i] + rng.choice("xyz") + s[i:]
    if how == "backslash":
        return s[:i] + "\\" + s[i:]
    return s


def dirs_of(paths):
    out = set()
    for p in paths:
        parts = p.split("/")
        for i in range(1, len(parts)):
            out.add("/".join(parts[:i]))
    return sorted(out)


ACCEPTED = ["exact", "dir", "partial", "star", "qmark", "class", "dstar", "suffix", "case",
            "typo", "backslash", "star-only"]


def make_case(rng, paths, dirs):
    if rng.random() < 0.25:
        kind = rng.choice(sorted(REFUSED))
        make, _ = REFUSED[kind]
        random.seed(rng.random())
        return kind, make(rng.choice([p for p in paths + dirs if not refused(p)]))
    kind = rng.choice(ACCEPTED)
    base = rng.choice(paths) if rng.random() < 0.6 or not dirs else rng.choice(dirs)
    if kind in ("exact", "dir"):
        return kind, rng.choice(dirs) if kind == "dir" and dirs else base
    if kind == "partial":
        return kind, base[:rng.randrange(1, len(base) + 1)]
    if kind == "star-only":
        return kind, rng.choice(["*", "**", "*/*", "?*", "*.py", "*a*"])
    return kind, mutate(rng, base, kind)


def run_repo(check, rng, root, env, cases, empty_tree):
    (a, b), paths = build_repo(rng, root, env)
    dirs = dirs_of(paths)
    specs = [make_case(rng, paths, dirs) for _ in range(cases)]
    data = "".join(s.encode("utf-8", "surrogateescape").hex() + "\n" for _, s in specs)
    r = subprocess.run([check, root, a, b], input=data.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode:
        sys.exit("pathspec-check failed: %s" % r.stderr.decode(errors="replace"))
    lines = r.stdout.decode("utf-8", "surrogateescape").split("\n")
    results, k = [], 0
    for kind, spec in specs:
        line = lines[k]
        k += 1
        if line.startswith("refused "):
            results.append((kind, spec, ("refused", line[8:]), None))
            continue
        head = line.split(" ")
        n = int(head[1])
        results.append((kind, spec, ("match", set(lines[k:k + n]),
                                     "matches-nothing" in head), None))
        k += n
    out = []
    for kind, spec, got, _ in results:
        out.append((kind, spec, got, oracle(root, a, b, spec, kind, got, env, empty_tree)))
    return out


def git_names(root, env, x, y, spec):
    code, out, err = git(root, "diff", "--name-only", "-z", "--no-renames", x, y, "--",
                         spec, env=env)
    if code:
        return None, err.decode(errors="replace").strip()
    return set(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p), None


def oracle(root, a, b, spec, kind, got, env, empty_tree):
    """None when memgate agrees, else why not."""
    form = refused(spec)
    if kind in REFUSED:
        want = REFUSED[kind][1]
        if got[0] != "refused":
            return "accepted a refused form"
        if not got[1].startswith(".memgate.yml:10:7: ") or want not in got[1]:
            return "refused without naming %r at 10:7: %s" % (want, got[1])
        return None
    if form:
        if got[0] != "refused":
            return "accepted (the rules refuse: %s)" % form
        return None if got[1].startswith(".memgate.yml:10:7: ") else "refused: " + got[1]
    if got[0] == "refused":
        return "refused an accepted form: " + got[1]
    names, err = git_names(root, env, a, b, spec)
    if names is None:
        return "git diff failed: " + err
    if names != got[1]:
        return "git %s, memgate %s" % (sorted(names), sorted(got[1]))
    nothing = False
    if not names:
        at_a, _ = git_names(root, env, empty_tree, a, spec)
        at_b, _ = git_names(root, env, empty_tree, b, spec)
        nothing = not at_a and not at_b
    if nothing != got[2]:
        return "matches nothing: git %s, memgate %s" % (nothing, got[2])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("seed", type=int)
    ap.add_argument("-n", type=int, default=1200)
    ap.add_argument("--repos", type=int, default=12)
    ap.add_argument("--keep")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = args.keep or tempfile.mkdtemp(prefix="mg-pathspec-")
    home = os.path.join(tmp, "home")
    os.makedirs(home, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    empty_tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    per = -(-args.n // args.repos)
    results = []
    for i in range(args.repos):
        n = min(per, args.n - len(results))
        if n <= 0:
            break
        results += run_repo(args.check, rng, os.path.join(tmp, "r%d" % i), env, n, empty_tree)
    bad = [r for r in results if r[3]]
    for kind, spec, got, why in bad[:20]:
        print("mismatch %s %r: %s" % (kind, spec, why))
    kinds = {}
    for kind, spec, got, why in results:
        k = kinds.setdefault(kind, [0, 0, 0])
        k[0 if got[0] == "match" else 1] += 1
        k[2] += 1 if why else 0
    for kind in sorted(kinds):
        print("  %s accepted %d refused %d mismatches %d" % ((kind,) + tuple(kinds[kind])))
    forms = sum(1 for kind in REFUSED if kind in kinds and kinds[kind][1] and not kinds[kind][2])
    print("pathspec differential: %d cases, %d mismatches; %d forms refused"
          % (len(results), len(bad), forms))
    if not args.keep:
        shutil.rmtree(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
