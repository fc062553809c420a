#!/usr/bin/env python3
"""memgate's SSH signature verdicts against the real ssh-keygen.

    tests/diff/sshsig.py SSHSIG_CHECK SEED [-n CASES] [-p PRINCIPAL_CASES] [--keep DIR]

SSHSIG_CHECK is build/tests/sshsig-check (libmemgate's verdict, one case a
line).  Keys are made once per run with ssh-keygen (every type memgate
verifies, plus an RSA 1024-bit key), signatures once per key, hash and
namespace; each random case then picks a signature, an allowed-signers file
(principal patterns, namespaces=, valid-after/valid-before around the day
judged, comments, removed signers), a day, a namespace and a mutation (a
bit flipped anywhere in the message, in the armored text or in the blob,
the armor cut short, re-wrapped or with CRLF line ends, text after it, the
message with CRLF, a key nobody listed).

The oracle is `ssh-keygen -Y verify -f ALLOWED -I NAME -n NS -s SIG
-Overify-time=DAY` (TZ=UTC), with NAME each concrete name the lines that
list the signing key stand for: memgate must accept exactly when one of
them does, and name the principals of a line whose name verifies.

memgate is stricter than ssh-keygen in these cases only, which the test
counts apart and requires memgate to refuse with a message naming why:
  rsa1024        an RSA key shorter than 2048 bits (signature or signer line)
  cert-authority a `cert-authority` line in the allowed signers
  unknown-option an option ssh-keygen does not know (it skips the line)
  crlf           armor with CRLF line ends (OpenSSH 10 reads it, 9 refuses it)
With --memgate MEMGATE, signatures that `memgate sign` makes (ed25519,
ECDSA P-256 and P-384, RSA 2048, in two namespaces, over manifests) are
judged too, each untouched and mutated (tallied as sign-MUTATION): each
untouched one must verify with ssh-keygen -Y verify, as with memgate.
With --memgate, the approvals `memgate approve --sign` makes (the same key
types, in namespace memgate-approve, over MANIFEST.approved.json of a
repository whose policy names approvers: [release-*@example.com]) are
judged the same way (tallied as approve-MUTATION), with the approvers'
pattern as the policy's and -I the key's principal, release-KEY@example.com.
With -p, as many cases (200 by default) judge a policy's provenance.signers
(principal patterns, `*`, `?`, `!`) against the signing key's lines
(tallied as principal): memgate (mg_signers_find_for) must accept exactly
when `ssh-keygen -Y verify -I NAME` accepts for a NAME the policy's patterns
name, written out in the policy or on the key's lines.
Prints "sshsig-diff: N passed, N failed (M stricter, as listed)".
"""
import argparse
import base64
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

KEYS = [  # name, ssh-keygen -t, -b
    ("ed25519", "ed25519", None),
    ("ed25519b", "ed25519", None),
    ("p256", "ecdsa", "256"),
    ("p384", "ecdsa", "384"),
    ("p521", "ecdsa", "521"),
    ("rsa2048", "rsa", "2048"),
    ("rsa3072", "rsa", "3072"),
]
STRANGER = ("stranger", "ed25519", None)
SHORT_RSA = ("rsa1024", "rsa", "1024")
NAMESPACES = ["memgate", "memgate", "memgate", "git", "file", "memgate-release"]
NS_OPTIONS = ["memgate", "memgate,git", "mem*", "git", "!memgate,*", "*", "file,memgate-*",
              "memgat?"]
MUTATIONS = ["none"] * 6 + ["msg_flip", "armor_flip", "blob_flip", "truncate", "rewrap",
                            "crlf", "trailing", "msg_crlf", "stranger", "removed",
                            "wrong_ns"]
ENV = dict(os.environ, TZ="UTC", LC_ALL="C")


def run(args, stdin=None):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        p = subprocess.run(args, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=ENV)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def keygen(d, spec):
    name, t, b = spec
    path = os.path.join(d, name)
    args = ["ssh-keygen", "-q", "-t", t, "-N", "", "-C", name, "-f", path]
    if b:
        args[4:4] = ["-b", b]
    if run(args)[0] != 0:
        sys.exit("sshsig-diff: ssh-keygen cannot make a %s key" % name)
    with open(path + ".pub") as f:
        kt, k64 = f.read().split()[:2]
    return {"name": name, "path": path, "pub": "%s %s" % (kt, k64)}


def sign(d, key, hashalg, ns, msg, tag):
    path = os.path.join(d, "m-%s" % tag)
    with open(path, "wb") as f:
        f.write(msg)
    args = ["ssh-keygen", "-q", "-Y", "sign", "-n", ns, "-f", key["path"]]
    if hashalg == "sha256":
        args += ["-O", "hashalg=sha256"]
    if run(args + [path])[0] != 0:
        sys.exit("sshsig-diff: ssh-keygen cannot sign with %s" % key["name"])
    with open(path + ".sig", "rb") as f:
        sig = f.read()
    return sig


SIGN_KEYS = ["ed25519", "p256", "p384", "rsa2048"]
SIGN_NAMESPACES = ["memgate", "memgate-release"]
SIGN_MUTATIONS = ["none", "msg_flip", "armor_flip", "blob_flip", "wrong_ns", "removed"]
SIGN_POLICY = """version: 1
manifest: bench/75_input_manifest.json
identity:
  workload_id: w
  hardware_id: h
budget:
  memory_cap_mb: 1
provenance:
  allowed_signers: allowed_signers
  namespace: %s
"""


def memgate_sign(d, memgate, key, ns, msg, tag):
    """The signature `memgate sign` writes for msg, as the manifest of a
    repository whose policy allows key in namespace ns."""
    repo = os.path.join(d, "repo-%s" % tag)
    os.makedirs(os.path.join(repo, "bench"))
    if run(["git", "init", "-q", repo])[0] != 0:
        sys.exit("sshsig-diff: git init failed")
    for name, data in ((".memgate.yml", (SIGN_POLICY % ns).encode()),
                       ("allowed_signers", ("signer@ci %s\n" % key["pub"]).encode()),
                       ("bench/75_input_manifest.json", msg)):
        with open(os.path.join(repo, name), "wb") as f:
            f.write(data)
    rc, _ = run([memgate, "sign", "-C", repo, "--key", key["path"]])
    if rc != 0:
        sys.exit("sshsig-diff: memgate sign with %s in %s failed (exit %d)" % (key["name"], ns, rc))
    with open(os.path.join(repo, "bench/75_input_manifest.json.sig"), "rb") as f:
        return f.read()


def sign_cases(d, memgate, keys, stranger, seed):
    """Cases over memgate sign's signatures, from a generator of their own
    (the random cases stay those of the seed)."""
    rng = random.Random(seed + 7)
    todo = []
    for key in [k for k in keys if k["name"] in SIGN_KEYS]:
        for ns in SIGN_NAMESPACES:
            msg = b'{"source": {"path": "bench/report.json", "sha256": "%s"}}\n' % (
                "".join(rng.choice("0123456789abcdef") for _ in range(64)).encode())
            made = memgate_sign(d, memgate, key, ns, msg, "%s-%s" % (key["name"], ns))
            for mutation in SIGN_MUTATIONS:
                sig, m = mutate(rng, mutation, made, msg)
                signer = stranger if mutation == "removed" else key
                judged = rng.choice([n for n in NAMESPACES if n != ns]) \
                    if mutation == "wrong_ns" else ns
                base = os.path.join(d, "sign-%s-%s-%s" % (key["name"], ns, mutation))
                for suffix, data in ((".allowed", ("signer@ci %s\n" % signer["pub"]).encode()),
                                     (".msg", m), (".sig", sig)):
                    with open(base + suffix, "wb") as f:
                        f.write(data)
                todo.append({"i": len(todo), "base": base, "ns": judged, "date": "2026-01-01",
                             "ymd": "20260101", "names": [] if signer is stranger else
                             ["signer@ci"], "mutation": mutation, "stricter": None,
                             "key": key["name"], "label": "sign-" + mutation})
    return todo


APPROVE_POLICY = """provenance:
  allowed_signers: allowed_signers
  approvers: [release-*@example.com]
"""
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures")
GIT_ENV = ["-c", "user.name=sshsig-diff", "-c", "user.email=sshsig@diff.invalid",
           "-c", "commit.gpgsign=false"]


def memgate_approve(d, memgate, key, tag):
    """(approval, its signature): what `memgate approve --sign KEY` writes in
    a repository whose runner-signed evidence KEY measured, KEY being listed
    for release-NAME@example.com, whom the policy's approvers name."""
    repo = os.path.join(d, "approve-%s" % tag)
    results = os.path.join(repo, "benchmarks", "results")
    os.makedirs(results)
    if run(["git", "init", "-q", repo])[0] != 0:
        sys.exit("sshsig-diff: git init failed")
    with open(os.path.join(FIXTURES, "e2e", "real-flat-11200.yml"), "rb") as f:
        policy = f.read() + APPROVE_POLICY.encode()
    shutil.copy(os.path.join(FIXTURES, "reports", "76_real_gpu_memory.flat.json"),
                os.path.join(results, "76_real_gpu_memory.json"))
    for name, data in ((".memgate.yml", policy), ("allowed_signers", (
            "release-%s@example.com %s\n" % (key["name"], key["pub"])).encode())):
        with open(os.path.join(repo, name), "wb") as f:
            f.write(data)
    manifest = "benchmarks/results/75_input_manifest.json"
    steps = [[memgate, "manifest", "-C", repo, "--worktree", "--report",
              "benchmarks/results/76_real_gpu_memory.json", "--out",
              os.path.join(repo, manifest)],
             [memgate, "sign", "-C", repo, "--key", key["path"]],
             ["git", "-C", repo] + GIT_ENV + ["add", "-A"],
             ["git", "-C", repo] + GIT_ENV + ["commit", "-q", "-m", "evidence"],
             [memgate, "approve", "-C", repo, "--sign", key["path"], "--fail-on", "reject"]]
    for args in steps:
        rc, out = run(args)
        if rc != 0:
            sys.exit("sshsig-diff: %s with %s failed (exit %d)" % (" ".join(args[:2]),
                                                                  key["name"], rc))
    approval = os.path.join(repo, "benchmarks", "results", "75_input_manifest.approved.json")
    with open(approval, "rb") as f, open(approval + ".sig", "rb") as g:
        return f.read(), g.read()


def approve_cases(d, memgate, keys, stranger, seed):
    """Cases over memgate approve's signatures, from a generator of their own."""
    rng = random.Random(seed + 13)
    todo = []
    for key in [k for k in keys if k["name"] in SIGN_KEYS]:
        msg, made = memgate_approve(d, memgate, key, key["name"])
        principal = "release-%s@example.com" % key["name"]
        for mutation in SIGN_MUTATIONS:
            sig, m = mutate(rng, mutation, made, msg)
            signer = stranger if mutation == "removed" else key
            judged = rng.choice([n for n in NAMESPACES + ["memgate"]]) \
                if mutation == "wrong_ns" else "memgate-approve"
            base = os.path.join(d, "approve-%s-%s" % (key["name"], mutation))
            for suffix, data in ((".allowed", ("%s %s\n" % (principal, signer["pub"])).encode()),
                                 (".msg", m), (".sig", sig)):
                with open(base + suffix, "wb") as f:
                    f.write(data)
            todo.append({"i": len(todo), "base": base, "ns": judged, "date": "2026-01-01",
                         "ymd": "20260101", "names": [] if signer is stranger else
                         [principal], "mutation": mutation, "stricter": None,
                         "key": key["name"], "label": "approve-" + mutation,
                         "who": "release-*@example.com"})
    return todo


# provenance.signers (the policy's principal patterns) against the
# allowed-signers line's principals: memgate must accept exactly when
# `ssh-keygen -Y verify -I NAME` accepts for some NAME the policy names,
# NAME written out in the policy or on the signing key's lines.
LINE_PRINCIPALS = ["gpu-runner@ci", "alice@example.com", "alice@example.com,gpu-runner@ci",
                   "*@ci", "gpu-runner-?@ci", "!gpu-runner@ci,*@ci", "*",
                   "gpu-runner-1@ci,gpu-runner-2@ci", '"gpu-runner@ci"', "!alice@example.com,*",
                   "gpu-runner-1@ci,!gpu-runner-1@ci", "gpu*"]
POLICY_SIGNERS = ["gpu-runner@ci", "gpu-runner-1@ci", "gpu-runner-*@ci", "*@ci",
                  "!gpu-runner@ci", "alice@example.com", "*", "gpu-runner-?@ci", "bob@ci",
                  "!*@example.com"]


def glob(s, p):
    import re
    return re.fullmatch("".join(".*" if c == "*" else "." if c == "?" else re.escape(c)
                                for c in p), s, re.S) is not None


def match_list(s, patterns):
    """ssh's match_pattern_list: 1, or 0 (a negated match included)."""
    got = 0
    for p in patterns.split(","):
        if p.startswith("!") and glob(s, p[1:]):
            return 0
        if not p.startswith("!") and glob(s, p):
            got = 1
    return got


def written_out(patterns):
    return [p for p in patterns if p and p[0] != "!" and "*" not in p and "?" not in p]


def principal_cases(d, keys, seed, n):
    """n cases over provenance.signers, from a generator of their own."""
    rng = random.Random(seed + 11)
    todo = []
    for i in range(n):
        key = rng.choice(keys)
        who = rng.sample(POLICY_SIGNERS, rng.randint(1, 3))
        fields = [rng.choice(LINE_PRINCIPALS) for _ in range(rng.choice([1, 1, 2]))]
        lines = ["%s %s" % (f, key["pub"]) for f in fields]
        other = rng.choice([k for k in keys if k is not key])
        lines.insert(rng.randrange(len(lines) + 1), "gpu-runner@ci %s" % other["pub"])
        msg = random_message(rng)
        base = os.path.join(d, "principal%04d" % i)
        sig = sign(d, key, "sha512", "memgate", msg, "principal%04d" % i)
        for suffix, data in ((".allowed", ("\n".join(lines) + "\n").encode()),
                             (".msg", msg), (".sig", sig)):
            with open(base + suffix, "wb") as f:
                f.write(data)
        names = written_out(who)
        for f in fields:
            names += written_out(f.strip('"').split(","))
        names = [x for x in dict.fromkeys(names) if match_list(x, ",".join(who)) == 1]
        todo.append({"i": i, "base": base, "ns": "memgate", "date": "2026-01-01",
                     "ymd": "20260101", "names": names, "mutation": "none", "stricter": None,
                     "key": key["name"], "label": "principal", "who": ",".join(who)})
    return todo


def random_message(rng):
    kind = rng.randrange(4)
    if kind == 0:
        return b'{"source": {"path": "bench/report.json", "sha256": "%s"}}\n' % (
            "".join(rng.choice("0123456789abcdef") for _ in range(64)).encode())
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    if kind == 2:
        return b""
    return ("line %d\n" % rng.randrange(1000)).encode() * rng.randrange(1, 40)


def armor(blob, width=70):
    b64 = base64.b64encode(blob).decode()
    lines = [b64[i:i + width] for i in range(0, len(b64), width)]
    return ("-----BEGIN SSH SIGNATURE-----\n" + "\n".join(lines) +
            "\n-----END SSH SIGNATURE-----\n").encode()


def dearmor(sig):
    body = sig.decode().split("\n")[1:-2]
    return base64.b64decode("".join(body))


def day_text(days):
    import datetime
    d = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    return d.strftime("%Y-%m-%d"), d.strftime("%Y%m%d")


def time_option(rng, today):
    """A valid-after/valid-before value near the day judged."""
    off = rng.choice([-400, -30, -1, 0, 0, 1, 30, 400]) + rng.choice([0, 0, rng.randrange(-5, 6)])
    _, ymd = day_text(today + off)
    form = rng.randrange(4)
    if form == 0:
        return ymd
    if form == 1:
        return ymd + "Z"
    if form == 2:
        return ymd + "%02d%02d" % (rng.randrange(24), rng.randrange(60))
    return ymd + "%02d%02d%02dZ" % (rng.randrange(24), rng.randrange(60), rng.randrange(60))


def principals(rng, i):
    """(principals field, a concrete name it stands for)."""
    name = "ci%d@gpu" % i
    return rng.choice([
        (name, name),
        (name + ",other@x", name),
        ("*%d@gpu" % i, name),
        ("ci?%d@gpu" % i, "cix%d@gpu" % i),
        ("!bad@gpu,ci%d@*" % i, name),
        ('"%s"' % name, name),
    ])


def signer_line(rng, key, today, i):
    field, name = principals(rng, i)
    opts = []
    if rng.random() < 0.5:
        opts.append('namespaces="%s"' % rng.choice(NS_OPTIONS))
    after = before = None
    if rng.random() < 0.35:
        after = time_option(rng, today)
    if rng.random() < 0.35:
        before = time_option(rng, today)
    if after and before and before <= after:
        after, before = before, after
    if after and before and (after[:8] == before[:8] or after == before):
        before = None
    if after:
        opts.append('valid-after="%s"' % after)
    if before:
        opts.append('valid-before="%s"' % before)
    if opts and rng.random() < 0.2:  # option names are case-insensitive
        opts = [o.split("=", 1)[0].upper() + "=" + o.split("=", 1)[1] for o in opts]
    rng.shuffle(opts)
    line = field + (" " + ",".join(opts) if opts else "") + " " + key["pub"]
    if rng.random() < 0.3:
        line += " comment %d" % i
    return line, name


def allowed_file(rng, keys, today, drop=None, extra=None):
    lines, names = [], {}
    order = list(keys)
    rng.shuffle(order)
    for i, key in enumerate(order):
        if key["name"] == drop or rng.random() < 0.1:
            continue
        for _ in range(2 if rng.random() < 0.15 else 1):
            n = len(lines)
            line, name = signer_line(rng, key, today, 100 * i + n)
            lines.append(line)
            names.setdefault(key["name"], []).append(name)
        if rng.random() < 0.2:
            lines.append(rng.choice(["", "# rotated 2026", "   ", "\t# a comment"]))
    if extra:
        lines.insert(rng.randrange(len(lines) + 1), extra)
    return "\n".join(lines) + "\n", names


def mutate(rng, kind, sig, msg):
    if kind == "msg_flip":
        if not msg:
            return sig, b"x"
        m = bytearray(msg)
        i = rng.randrange(len(m))
        m[i] ^= 1 << rng.randrange(8)
        return sig, bytes(m)
    if kind == "armor_flip":
        s = bytearray(sig)
        i = rng.randrange(len(s))
        s[i] = rng.choice([s[i] ^ (1 << rng.randrange(8)), ord(rng.choice("AZaz09+/= \n-"))])
        return bytes(s), msg
    if kind == "blob_flip":
        b = bytearray(dearmor(sig))
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
        return armor(bytes(b)), msg
    if kind == "truncate":
        return sig[:rng.randrange(len(sig))], msg
    if kind == "rewrap":
        return armor(dearmor(sig), rng.choice([1, 4, 60, 64, 76, 1000])), msg
    if kind == "crlf":
        return sig.replace(b"\n", b"\r\n"), msg
    if kind == "trailing":
        return sig + rng.choice([b"junk\n", b"\n\n", b"-----BEGIN SSH SIGNATURE-----\n"]), msg
    if kind == "msg_crlf":
        return sig, msg.replace(b"\n", b"\r\n")
    return sig, msg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("seed", type=int)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--keep")
    ap.add_argument("--memgate")
    ap.add_argument("-p", dest="principals", type=int, default=200)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    d = a.keep or tempfile.mkdtemp(prefix="memgate-sshsig.")
    os.makedirs(d, exist_ok=True)
    try:
        return cases(a, rng, d)
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


def make_pool(rng, d, keys, stranger, short):
    pool = []
    for key in keys + [stranger, short]:
        for hashalg in ("sha512", "sha256"):
            for ns in ("memgate", rng.choice(NAMESPACES)):
                msg = random_message(rng)
                sig = sign(d, key, hashalg, ns, msg, "%s-%s-%s-%d" % (key["name"], hashalg, ns,
                                                                     len(pool)))
                pool.append({"key": key, "ns": ns, "msg": msg, "sig": sig})
    return pool


def stricter_case(rng, i, keys, short, today):
    kind = rng.choice(["rsa1024", "cert-authority", "unknown-option"])
    if kind == "rsa1024":
        return kind, 'short@gpu %s' % short["pub"]
    key = rng.choice(keys)
    if kind == "cert-authority":
        return kind, 'ca%d@gpu cert-authority %s' % (i, key["pub"])
    return kind, 'x%d@gpu no-touch-required %s' % (i, key["pub"])


def cases(a, rng, d):
    keys = [keygen(d, k) for k in KEYS]
    stranger = keygen(d, STRANGER)
    short = keygen(d, SHORT_RSA)
    pool = make_pool(rng, d, keys, stranger, short)
    todo = []
    for i in range(a.n):
        today = 19723 + rng.randrange(900)  # 2024-01-01 and on
        date, ymd = day_text(today)
        stricter = None
        if rng.random() < 0.04:
            stricter, extra = stricter_case(rng, i, keys, short, today)
            cand = [p for p in pool if p["key"] is short] if stricter == "rsa1024" else \
                [p for p in pool if p["key"] in keys]
            entry = rng.choice(cand)
            text, names = allowed_file(rng, keys, today, extra=extra)
            if stricter == "rsa1024":
                names.setdefault("rsa1024", []).append("short@gpu")
            mutation = "none"
        else:
            mutation = rng.choice(MUTATIONS)
            cand = [p for p in pool if p["key"] is not short and
                    (p["key"] is stranger) == (mutation == "stranger")]
            entry = rng.choice(cand)
            drop = entry["key"]["name"] if mutation == "removed" else None
            text, names = allowed_file(rng, keys, today, drop=drop)
        ns = entry["ns"]
        if mutation == "wrong_ns":
            ns = rng.choice([n for n in NAMESPACES if n != entry["ns"]])
        sig, msg = mutate(rng, mutation, entry["sig"], entry["msg"])
        base = os.path.join(d, "case%04d" % i)
        for suffix, data in ((".allowed", text.encode()), (".msg", msg), (".sig", sig)):
            with open(base + suffix, "wb") as f:
                f.write(data)
        todo.append({"i": i, "base": base, "ns": ns, "date": date, "ymd": ymd,
                     "names": names.get(entry["key"]["name"], []), "mutation": mutation,
                     "stricter": stricter, "key": entry["key"]["name"]})

    if a.memgate:
        todo += sign_cases(d, a.memgate, keys, stranger, a.seed)
        todo += approve_cases(d, a.memgate, keys, stranger, a.seed)
    todo += principal_cases(d, keys, a.seed, a.principals)
    batch = "".join("%s.allowed %s %s %s.msg %s.sig%s\n" % (
        c["base"], c["ns"], c["date"], c["base"], c["base"],
        " " + c["who"] if c.get("who") else "") for c in todo)
    p = subprocess.run([a.check], input=batch.encode(), stdout=subprocess.PIPE, env=ENV)
    verdicts = p.stdout.decode().splitlines()
    if p.returncode != 0 or len(verdicts) != len(todo):
        print("sshsig-diff: %s failed (exit %d, %d verdicts for %d cases)" %
              (a.check, p.returncode, len(verdicts), len(todo)))
        return 1

    def oracle(c):
        # a principal case whose policy names nobody the lines admit: no -I
        for name in c["names"] or ([] if c.get("who") else ["nobody@nowhere"]):
            rc, out = run(["ssh-keygen", "-Y", "verify", "-f", c["base"] + ".allowed", "-I", name,
                           "-n", c["ns"], "-s", c["base"] + ".sig",
                           "-Overify-time=" + c["ymd"]], stdin=c["base"] + ".msg")
            if rc == 0:
                return name
        return None

    with ThreadPoolExecutor(max_workers=4) as ex:
        answers = list(ex.map(oracle, todo))

    passed = failed = stricter = 0
    tally = {}
    for c, v, name in zip(todo, verdicts, answers):
        ours = v.startswith("ok ")
        t = tally.setdefault(c.get("label") or c["stricter"] or c["mutation"], {})
        word = "ok" if ours else v.split(":")[0][5:]
        t[word] = t.get(word, 0) + 1
        problem = None
        if c["stricter"]:
            if ours:
                problem = "memgate accepts a %s case" % c["stricter"]
            elif c["stricter"] == "rsa1024" and "2048" not in v:
                problem = "the refusal does not name the RSA size"
            elif c["stricter"] != "rsa1024" and c["stricter"].split("-")[0] not in v:
                problem = "the refusal does not name '%s'" % c["stricter"]
            else:
                stricter += 1
        elif c["mutation"] == "crlf":
            # armor with CRLF line ends: OpenSSH 9 refuses it, 10 reads it;
            # memgate refuses it, naming why, whichever the oracle is
            if ours:
                problem = "memgate accepts a CRLF signature"
            elif "CRLF" not in v:
                problem = "the refusal of a CRLF signature does not name CRLF"
            elif name is not None:
                stricter += 1
        elif ours != (name is not None):
            problem = "memgate says %r, ssh-keygen %s" % (
                v, "verifies for %s" % name if name else "refuses")
        elif ours:
            got = v[3:]
            lines = [l for l in open(c["base"] + ".allowed").read().splitlines()
                     if got and (l.startswith(got + " ") or l.startswith('"%s" ' % got))]
            if not lines:
                problem = "memgate names principals %r, no line has them" % got
        if problem:
            failed += 1
            print("mismatch case %d (%s, key %s, ns %s, %s): %s" % (
                c["i"], c["mutation"], c["key"], c["ns"], c["date"], problem))
            print("  files: %s.{allowed,msg,sig} (kept with --keep DIR)" % c["base"])
        else:
            passed += 1
    for kind in sorted(tally):
        print("  %-15s %s" % (kind, ", ".join("%s %d" % kv for kv in sorted(tally[kind].items()))))
    print("sshsig-diff: %d passed, %d failed (%d stricter, as listed)" % (passed, failed,
                                                                            stricter))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
