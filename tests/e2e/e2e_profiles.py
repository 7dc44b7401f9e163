"""Text columns and --distinct, --mode, --top K against an independent
reference: Python's csv module reads the file back (bytes kept as
latin-1), collections.Counter counts the values, fractions.Fraction says
which numbers are integers. Texts with quotes, delimiters, line breaks,
multibyte and invalid UTF-8; numbers spelled many ways; one file, several,
stdin, gzip; --threads 1, 2, 16; --memory below the distinct values (passes
over hash partitions of the values: the files read again, a stream's
values spilled to a temporary file; never a wrong count)."""
import csv
import gzip
import io
import json
import re
import sys
from collections import Counter
from fractions import Fraction

from harness import QUICK, Suite

WORDS = ["GET", "POST", "a,b", 'say "hi"', "line\nbreak", "caf\u00e9",
         "\u65e5\u672c", "x y", "\U0001F600", "z"]
BAD = [b"\xff\xfe", b"ab\xc3", b"\xed\xa0\x80"]  # not UTF-8
SPELL = ["{i}", "{i}.0", "{i}e0", "+{i}", "{i}.00", "{i}0e-1"]


def number_text(rng, halves):
    i = rng.randint(-6, 6)
    if halves and rng.random() < 0.3:
        return rng.choice([f"{i}.5", f"{i}5e-1", f"{i}.50"])
    if i == 0 and rng.random() < 0.3:
        return rng.choice(["-0", "0.0", "-0.0", "0e5"])
    if i < 0:
        return "-" + rng.choice(SPELL[:3] + SPELL[4:]).format(i=-i)
    return rng.choice(SPELL).format(i=i)


def text_bytes(rng, nwords):
    r = rng.random()
    if r < 0.1:
        return b""
    if r < 0.15:
        return rng.choice(BAD)
    return WORDS[rng.randrange(nwords)].encode() + (
        str(rng.randrange(3)).encode() if rng.random() < 0.3 else b"")


def csv_field(b):
    if any(c in b for c in b',"\n\r') or b[:1] in (b" ", b"\t") or b[-1:] in (b" ", b"\t"):
        return b'"' + b.replace(b'"', b'""') + b'"'
    return b


def make_rows(rng, n, halves):
    rows = []
    for _ in range(n):
        t = text_bytes(rng, len(WORDS))
        v = number_text(rng, halves) if rng.random() > 0.05 else ""
        rows.append((t, v))
    rows[0] = (b"GET", rows[0][1])  # the sample sees text
    return rows


def write_csv(rows):
    out = [b"host,val\n"]
    for t, v in rows:
        out.append(csv_field(t) + b"," + v.encode() + b"\n")
    return b"".join(out)


def reference(blobs, k):
    texts, nums = [], []
    for blob in blobs:
        rd = csv.reader(io.StringIO(blob.decode("latin-1"), newline=""))
        next(rd)
        for rec in rd:
            texts.append(rec[0].encode("latin-1"))
            if rec[1].strip():
                nums.append(rec[1].strip())
    present = [t for t in texts if t]
    tc = Counter(present)

    def length(b):
        try:
            return len(b.decode("utf-8"))
        except UnicodeDecodeError:
            return len(b)
    fr = [Fraction(x) for x in nums]
    is_int = all(f.denominator == 1 for f in fr) and fr
    nc = Counter(int(f) if is_int else float(f) for f in fr)
    top_t = sorted(tc.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    top_n = sorted(nc.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return {"text": {"count": len(present), "missing": len(texts) - len(present),
                     "length": {"min": min(map(length, present)),
                                "max": max(map(length, present))} if present else None,
                     "distinct": len(tc), "top": top_t},
            "num": {"distinct": len(nc), "top": top_n}}


def as_bytes(v):
    return v.encode("utf-8")


def check_answer(s, what, out, ref, k):
    try:
        doc = json.loads(out)
    except ValueError as e:
        return s.check(False, what + ": JSON", repr(e))
    t, n = doc["columns"]
    ok = s.check(t["type"] == "text" and n["type"] == "number", what + ": types")
    rt = ref["text"]
    for key in ("count", "missing", "length", "distinct"):
        ok &= s.check(t[key] == rt[key], f"{what}: text {key}", f"{t[key]} != {rt[key]}")
    # invalid UTF-8 prints as U+FFFD: compare those by count only
    got = [(v["value"], v["count"]) for v in t["top"]]
    want = [(b.decode("utf-8", "replace"), c) for b, c in rt["top"]]
    ok &= s.check(got == want, f"{what}: text top", f"{got} != {want}")
    ok &= s.check(t["mode"] == ({"value": want[0][0], "count": want[0][1]} if want else None),
                  f"{what}: text mode", str(t["mode"]))
    rn = ref["num"]
    ok &= s.check(n["distinct"] == rn["distinct"], f"{what}: number distinct",
                  f"{n['distinct']} != {rn['distinct']}")
    got = [(v["value"], v["count"]) for v in n["top"]]
    ok &= s.check(got == rn["top"],
                  f"{what}: number top", f"{got} != {rn['top']}")
    return ok


def test_paths(s):
    k = 5
    for case in range(2 if QUICK else 5):
        rng = s.rng
        n = rng.choice([1, 50, 3000] if QUICK else [1, 50, 3000, 120000])
        halves = rng.random() < 0.5
        parts = [make_rows(rng, max(1, n // 3), halves) for _ in range(3)]
        blobs = [write_csv(p) for p in parts]
        ref_all = reference(blobs, k)
        for i, b in enumerate(blobs):
            with open(s.path(f"p{i}.csv"), "wb") as f:
                f.write(b)
        with open(s.path("p0.csv.gz"), "wb") as f:
            f.write(gzip.compress(blobs[0]))
        opts = ["--json", "-c", "host,val", "--count", "--min", "--distinct", "--mode", "--top", str(k)]
        for threads in (1, 2, 16):
            t = ["--threads", str(threads)]
            rc, out, err = s.run(opts + t + [s.path(f"p{i}.csv") for i in range(3)])
            if s.check(rc == 0, f"case {case} files -j{threads}: status", err):
                check_answer(s, f"case {case} files -j{threads}", out, ref_all, k)
        ref0 = reference(blobs[:1], k)
        rc, out, err = s.run(opts + ["-"], stdin=blobs[0])
        if s.check(rc == 0, f"case {case} stdin: status", err):
            check_answer(s, f"case {case} stdin", out, ref0, k)
        rc, out, err = s.run(opts + [s.path("p0.csv.gz")])
        if s.check(rc == 0, f"case {case} gzip: status", err):
            check_answer(s, f"case {case} gzip", out, ref0, k)


def test_memory(s):
    """Far more distinct values than --memory holds: exact or a one-line
    error naming --memory; never a wrong count."""
    rows = [(f"user{i}".encode(), str(i)) for i in range(200000 if not QUICK else 40000)]
    blob = write_csv(rows)
    with open(s.path("wide.csv"), "wb") as f:
        f.write(blob)
    for src in ("file", "stdin"):
        args = ["--json", "-c", "host,val", "--distinct", "--memory", "64k"]
        rc, out, err = s.run(args + ([s.path("wide.csv")] if src == "file" else ["-"]),
                             stdin=blob if src == "stdin" else None)
        # passes over partitions of the values: of the file read again, or
        # of a stream's values spilled to a temporary file
        doc = json.loads(out) if rc == 0 else None
        s.check(doc and doc["columns"][0]["distinct"] == len(rows)
                and doc["columns"][1]["distinct"] == len(rows),
                f"memory {src}: exact", err)


def test_partitions(s):
    """--memory far below the distinct values of files: the passes over
    partitions give the bytes the answer in memory gives, for several
    files and thread counts."""
    rng = s.rng
    n = 20000 if QUICK else 100000
    parts = [[(f"u{rng.randrange(n // 2)}".encode(), str(rng.randrange(n // 3)))
              for _ in range(n // 2)] for _ in range(2)]
    blobs = [write_csv(p) for p in parts]
    paths = []
    for i, b in enumerate(blobs):
        paths.append(s.path(f"w{i}.csv"))
        with open(paths[-1], "wb") as f:
            f.write(b)
    k = 7
    ref = reference(blobs, k)
    opts = ["--json", "-c", "host,val", "--count", "--min", "--distinct", "--mode",
            "--top", str(k)]
    for threads in (1, 2, 16):
        for mem in ("32k", "300k"):
            rc, out, err = s.run(opts + ["--memory", mem, "-j", str(threads)] + paths)
            if s.check(rc == 0, f"partitions -j{threads} --memory {mem}: status", err):
                check_answer(s, f"partitions -j{threads} --memory {mem}", out, ref, k)
    # the same bytes as a stream: its values spill to a temporary file
    ref0 = reference(blobs[:1], k)
    for threads in (1, 16):
        rc, out, err = s.run(opts + ["--memory", "32k", "-j", str(threads), "-"],
                             stdin=blobs[0])
        if s.check(rc == 0, f"spilled stream -j{threads}: status", err):
            check_answer(s, f"spilled stream -j{threads}", out, ref0, k)
    rc, out, err = s.run(opts + ["--memory", "32k", "-"], stdin=gzip.compress(blobs[0]))
    if s.check(rc == 0, "spilled gzip stream: status", err):
        check_answer(s, "spilled gzip stream", out, ref0, k)
    # -v counts the partitions' passes with the quantiles' (it said "2
    # after the input (N reading it again)", N the partitions' passes)
    rc, out, err = s.run(opts + ["--median", "--memory", "32k", "-v"] + paths)
    m = re.search(r"passes +[0-9.]+ s +([0-9]+) after the input "
                  r"\(([0-9]+) reading it again\)", err)
    s.check(rc == 0 and m and int(m.group(2)) <= int(m.group(1))
            and int(m.group(1)) > 2,
            "-v: the passes over partitions and quantiles, counted together", err)


def test_held(s):
    """Distinct values that keep growing over many 1 MiB jobs: each job's
    state holds its counts over several of its jobs before they merge,
    until they and the run's near half of --memory; with --memory at the
    default and below the values (holding stops midway, then the passes
    or the spill), from a file and a pipe, at 1, 2 and 16 threads:
    exact."""
    rng = s.rng
    n = 300000 if QUICK else 800000
    rows = [(f"u{rng.randrange(i // 4 + 1)}".encode(), str(rng.randrange(i // 3 + 1)))
            for i in range(n)]
    rows[0] = (b"GET", rows[0][1])
    blob = write_csv(rows)
    path = s.path("held.csv")
    with open(path, "wb") as f:
        f.write(blob)
    k = 6
    ref = reference([blob], k)
    opts = ["--json", "-c", "host,val", "--count", "--min", "--distinct", "--mode",
            "--top", str(k)]
    for mem, threads, src in ((None, 1, "file"), (None, 16, "file"),
                              (None, 2, "pipe"), ("3M", 2, "file"),
                              ("3M", 16, "pipe")):
        m = ["--memory", mem] if mem else []
        rc, out, err = s.run(opts + m + ["-j", str(threads)] +
                             ([path] if src == "file" else ["-"]),
                             stdin=blob if src == "pipe" else None)
        what = f"held {src} -j{threads} --memory {mem or 'default'}"
        if s.check(rc == 0, what + ": status", err):
            check_answer(s, what, out, ref, k)


def test_refused(s):
    with open(s.path("r.csv"), "wb") as f:
        f.write(b"g,v\na,1\n")
    # per group, states carry them too (e2e_groupby_profiles.py)
    rc, out, err = s.run(["--distinct", s.path("r.csv"), "-g", "g", "--emit-state"])
    s.check(rc == 0 and out.startswith(b"colstat-state "),
            "-g with states: a state of the counts", err)
    # states carry the values' counts (e2e_state_profiles.py)
    rc, out, err = s.run(["--distinct", s.path("r.csv"), "--emit-state"])
    s.check(rc == 0 and out.startswith(b"colstat-state "),
            "--emit-state carries them", err)


def test_default_unchanged(s):
    """Without -a or -c a text column stays left out, as before."""
    with open(s.path("d.csv"), "wb") as f:
        f.write(b"host,v\nGET,1\nPOST,2\n")
    rc, out, err = s.run(["--json", s.path("d.csv")])
    doc = json.loads(out)
    s.check(rc == 0 and [c["name"] for c in doc["columns"]] == ["v"]
            and "left out: 'host'" in err, "default leaves text out", err)
    rc, out, err = s.run(["--json", "--distinct", "-c", "host,v", s.path("d.csv")])
    doc = json.loads(out)
    s.check(rc == 0 and [c["type"] for c in doc["columns"]] == ["text", "number"],
            "-c with --distinct answers text columns", out.decode())


def test_many_columns_tiny_memory(s):
    """100 columns and --memory 1k: the same answer, in a bounded number of
    passes (a floor keeps every partition able to fit)."""
    rng = s.rng
    lines = [",".join(f"c{i}" for i in range(100))]
    for _ in range(300 if QUICK else 2000):
        lines.append(",".join(f"v{rng.randrange(200)}" for _ in range(100)))
    with open(s.path("many.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    args = ["--json", "-a", "--distinct", "--top", "3", s.path("many.csv")]
    rc1, out1, err1 = s.run(args)
    rc2, out2, err2 = s.run(args + ["--memory", "1k"], timeout=60)
    s.check(rc1 == 0 and rc2 == 0 and out1 == out2,
            "100 columns, --memory 1k: the answer in memory", err1 + err2)


def test_strict(s):
    """--strict stops at an invalid number, and a text column has none."""
    with open(s.path("s.csv"), "wb") as f:
        f.write(b"host,v\nGET,1\nPOST,2\n")
    rc, out, err = s.run(["--json", "--strict", "-c", "host,v", s.path("s.csv")])
    s.check(rc == 0 and json.loads(out)["columns"][0]["count"] == 2,
            "--strict passes a text column", err)
    with open(s.path("s2.csv"), "wb") as f:
        f.write(b"host,v\nGET,1\nPOST,x\n")
    rc, out, err = s.run(["--json", "--strict", "-c", "host,v", s.path("s2.csv")])
    s.check(rc == 1 and "'x' is not a number" in err and not out,
            "--strict stops at a number column's invalid field", err)


if __name__ == "__main__":
    Suite("e2e_profiles", sys.argv).run_tests(
        [test_paths, test_memory, test_partitions, test_held, test_refused,
         test_default_unchanged, test_strict, test_many_columns_tiny_memory])
