#!/usr/bin/env python3
"""End-to-end: text columns and the distinct values' counts of --distinct,
--mode and --top K in partial states: --part K/N for N in 1, 2, 3, 7
(--emit-state), merged in a shuffled order on standard input and as a
random tree (--merge --emit-state), and --mpi with 2 and 3 ranks, each
giving the bytes one process gives; one process checked against Python's
csv module and collections.Counter (e2e_profiles.py's reference) on random
texts with quotes, delimiters, line breaks, multibyte and invalid UTF-8,
numbers spelled many ways (1, 1.0, 1e0, -0 and 0), and dates. Several files
with a gzip one among them; --threads 1, 2, 16. States with and without
the counts, or of a text and a number column, are refused naming what
differs; counts past --memory are a one-line error naming --memory, when
emitted and when merged. Seed printed; COLSTAT_SEED reproduces."""
import gzip
import json
import os
import shutil
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite  # noqa: E402
from e2e_profiles import (check_answer, csv_field, make_rows,  # noqa: E402
                          reference)
from e2e_parts import one_line, tree_merge  # noqa: E402
from e2e_mpi import launcher_lines_out  # noqa: E402
import statefile  # noqa: E402


def write_csv(rng, rows):
    """host,val,when: e2e_profiles' texts and numbers, and a date."""
    out = [b"host,val,when\n"]
    for t, v in rows:
        day = "" if rng.random() < 0.05 else "2024-%02d-%02d" % (
            rng.randint(1, 3), rng.randint(1, 28))
        out.append(csv_field(t) + b"," + v.encode() + b"," + day.encode() +
                   b"\n")
    return b"".join(out)


def date_reference(blobs, k):
    import csv
    import io
    days = []
    for blob in blobs:
        rd = csv.reader(io.StringIO(blob.decode("latin-1"), newline=""))
        next(rd)
        days += [rec[2] for rec in rd if rec[2]]
    c = Counter(days)
    return len(c), sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def make_files(s, tag):
    """2 or 3 CSVs (one gzip'd), their bytes as the reference reads them."""
    rng = s.rng
    n = rng.randint(2, 3)
    paths, blobs = [], []
    for j in range(n):
        rows = make_rows(rng, rng.randint(20, 400 if QUICK else 3000),
                         rng.random() < 0.5)
        blob = write_csv(rng, rows)
        blobs.append(blob)
        p = s.path(f"{tag}-{j}.csv")
        if j and rng.random() < 0.5:
            p += ".gz"
            blob = gzip.compress(blob)
        with open(p, "wb") as f:
            f.write(blob)
        paths.append(p)
    return paths, blobs


def check_reference(s, tag, files, blobs, k):
    """One process against Python: texts and numbers (e2e_profiles), then
    the dates."""
    opts = ["--json", "-c", "host,val", "--count", "--min", "--distinct",
            "--mode", "--top", str(k)]
    rc, out, err = s.run(opts + files)
    if s.check(rc == 0, f"{tag}: one process exits 0", err):
        check_answer(s, f"{tag}: one process", out, reference(blobs, k), k)
    rc, out, err = s.run(["--json", "-c", "when", "--distinct", "--top",
                          str(k)] + files)
    if not s.check(rc == 0, f"{tag}: dates exit 0", err):
        return
    col = json.loads(out)["columns"][0]
    distinct, top = date_reference(blobs, k)
    got = [(v["value"], v["count"]) for v in col["top"]]
    s.check(col["type"] == "date" and col["distinct"] == distinct and
            got == top, f"{tag}: dates' distinct and top",
            f"{col['distinct']} {got} != {distinct} {top}")


def emit_parts(s, tag, files, opts, n):
    states = []
    for k in range(1, n + 1):
        rc, st, err = s.run(["--part", f"{k}/{n}", "--emit-state"] + opts +
                            files)
        if not s.check(rc == 0 and one_line(st),
                       f"{tag}: part {k}/{n} is one printable line",
                       f"status {rc} {st[:100]!r} {err}"):
            return None
        states.append(st)
    return states


def parts_equal_whole(s, tag, files, opts, n):
    rc, whole, err = s.run(["--json"] + opts + files)
    if not s.check(rc == 0, f"{tag}: one process exits 0", err):
        return
    states = emit_parts(s, tag, files, opts, n)
    if states is None:
        return
    order = s.rng.sample(states, n)
    rc, merged, err = s.run(["--json", "--merge", "-"], stdin=b"".join(order))
    s.check(rc == 0 and merged == whole,
            f"{tag}: {n} parts merged in a shuffled order equal one process",
            f"status {rc} {err}\n      merged {merged[:300]!r}\n"
            f"      whole  {whole[:300]!r}")
    if n > 2:
        root = tree_merge(s, s.rng, states, tag)
        if root is not None:
            rc, merged, err = s.run(["--json", "--merge", "-"], stdin=root)
            s.check(rc == 0 and merged == whole,
                    f"{tag}: {n} parts merged as a tree equal one process",
                    err)


def stat_opts(rng, k, threads=None):
    """The counts asked (any of them, or none: a text column rides then
    with its count, missing and lengths alone); threads, else drawn."""
    asked = rng.sample(["--distinct", "--mode", "--top"], rng.randint(0, 3))
    out = ["-c", "host,val,when"] + rng.sample(
        ["--count", "--min", "--max", "--sum"], rng.randint(1, 3))
    for a in asked:
        out += [a, str(k)] if a == "--top" else [a]
    return out + ["--threads", str(threads or rng.choice([1, 2, 16]))]


def test_parts(s):
    for it in range(2 if QUICK else 5):
        tag = f"case {it}"
        files, blobs = make_files(s, f"c{it}")
        k = s.rng.randint(1, 6)
        check_reference(s, tag, files, blobs, k)
        for i, n in enumerate((1, 2, 3, 7)):
            opts = stat_opts(s.rng, k, (1, 2, 16)[(i + it) % 3])
            parts_equal_whole(s, f"{tag} N={n} {' '.join(opts)}", files,
                              opts, n)


def test_merge_options(s):
    """--merge's statistic options select among the counts the states
    hold: any of --distinct, --mode, --top K, for any K."""
    files, blobs = make_files(s, "sel")
    states = emit_parts(s, "select", files,
                        ["-c", "host,val", "--distinct"], 3)
    if states is None:
        return
    for ask in (["--mode"], ["--top", "4"], ["--distinct", "--top", "1"]):
        opts = ["--json", "-c", "host,val", "--count"] + ask
        rc, whole, err = s.run(opts + files)
        rc2, merged, err2 = s.run(opts + ["--merge", "-"],
                                  stdin=b"".join(states))
        s.check(rc == 0 and rc2 == 0 and merged == whole,
                f"--merge {' '.join(ask)} from states of --distinct",
                f"{err} {err2}")


def refused(s, tag, args, stdin, words, status=1):
    rc, out, err = s.run(args, stdin=stdin)
    lines = err.strip().splitlines()
    s.check(rc == status and out == b"" and len(lines) == 1 and
            all(w in lines[0] for w in words),
            f"{tag}: refused, one line naming it", f"status {rc} {err!r}")


def test_refusals(s):
    files, _ = make_files(s, "ref")
    with_counts = emit_parts(s, "counts", files, ["-c", "host,val",
                                                  "--distinct"], 2)
    without = emit_parts(s, "no counts", files, ["-c", "host,val"], 2)
    if with_counts is None or without is None:
        return
    refused(s, "states with and without the counts",
            ["--merge", "-"], with_counts[0] + without[1],
            ["values' counts", "--distinct"])
    tops = emit_parts(s, "top", files, ["-c", "host,val", "--top", "3"], 2)
    if tops:
        refused(s, "states with the counts of other options",
                ["--merge", "-"], with_counts[0] + tops[1],
                ["values' counts for other options"])
    refused(s, "--merge --distinct of states without them",
            ["--merge", "--distinct", "-"], b"".join(without),
            ["--distinct"], status=2)
    # the same column text in one state, numbers in another
    with open(s.path("num.csv"), "wb") as f:
        f.write(b"host,val\n1,2\n3,4\n")
    with open(s.path("txt.csv"), "wb") as f:
        f.write(b"host,val\nGET,2\nPUT,4\n")
    a = s.run(["--emit-state", "-c", "host,val", s.path("num.csv")])[1]
    b = s.run(["--emit-state", "-c", "host,val", s.path("txt.csv")])[1]
    refused(s, "a text column beside a number column", ["--merge", "-"],
            a + b, ["'host'", "text"])
    rc, st, err = s.run(["--distinct", "-g", "host", "--emit-state",
                         s.path("txt.csv")])
    rc2, got, err2 = s.run(["--merge", "--json", "-"], stdin=st)
    rc3, want, err3 = s.run(["--distinct", "-g", "host", "--json",
                             s.path("txt.csv")])
    s.check(rc == 0 and rc2 == 0 and got == want,
            "-g with states carries --distinct per group", err + err2)


def test_memory(s):
    """Counts past --memory: a one-line error naming --memory when a state
    is made, and when states are merged; within it, exact."""
    n = 20000 if QUICK else 60000
    rows = [(f"user{i}".encode(), str(i)) for i in range(n)]
    blob = write_csv(s.rng, rows)
    path = s.path("wide.csv")
    with open(path, "wb") as f:
        f.write(blob)
    refused(s, "a state past --memory",
            ["--emit-state", "-c", "host,val", "--distinct", "--memory",
             "64k", path], None, ["--memory"])
    states = emit_parts(s, "wide", [path], ["-c", "host,val", "--distinct"],
                        2)
    if states is None:
        return
    refused(s, "a merge past --memory",
            ["--merge", "--memory", "64k", "-"], b"".join(states),
            ["--memory"])
    rc, out, err = s.run(["--json", "--merge", "-"], stdin=b"".join(states))
    cols = json.loads(out)["columns"] if rc == 0 else []
    s.check([c.get("distinct") for c in cols] == [n, n],
            "the merge within --memory: exact", err)


def test_version_2(s):
    """States of version 2 (before text columns) are still read, and merge
    with those of version 3."""
    files, _ = make_files(s, "v2")
    plain = [f for f in files if not f.endswith(".gz")]
    opts = ["-c", "val", "--sum", "--min"]
    states = emit_parts(s, "v2", plain, opts, 2)
    if states is None:
        return
    old = statefile.encode(statefile.decode(states[0]), version=2)
    s.check(old.startswith(b"colstat-state 2 "), "a state of version 2 made")
    rc, whole, err = s.run(["--json"] + opts + plain)
    rc2, merged, err2 = s.run(["--json", "--merge", "-"],
                              stdin=old + states[1])
    s.check(rc == 0 and rc2 == 0 and merged == whole,
            "version 2 and 3 merged equal one process", f"{err} {err2}")


def test_broken(s):
    """A text column's counts broken by hand (a valid CRC): refused."""
    path = s.path("b.csv")
    with open(path, "wb") as f:
        f.write(b"host,val\nGET,1\n\"a,b\",2\nGET,1\n")
    st = s.run(["--emit-state", "-c", "host,val", "--distinct", path])[1]

    def twice(d):
        v = d["columns"][0]["prof"]["values"]
        v.append(v[0])

    def longer(d):
        d["columns"][0]["prof"]["values"][0] = (b"GETS", 2)

    def fewer(d):
        d["columns"][0]["prof"]["facts"][0] = 2

    def no_counts(d):
        d["columns"][1]["prof"]["values"] = []

    def text_as_number(d):
        d["columns"][0]["index"] &= 0xffffffff

    for what, f in (("a text given twice", twice),
                    ("a text past the longest", longer),
                    ("counts other than the count", fewer),
                    ("a column without its counts", no_counts),
                    ("text counts in a number column", text_as_number)):
        d = statefile.decode(st)
        f(d)
        # a text read as a number no longer parses: not a state at all
        refused(s, what, ["--merge", "-"], statefile.encode(d),
                ["no colstat run gives"] if f in (longer, fewer, no_counts)
                else ["not a colstat state"])


def mpirun(s, n, args):
    cmd = ["mpirun", "--quiet", "--oversubscribe", "-n", str(n)]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ)
    env.pop("COLSTAT_MPI_CUTS", None)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(cmd + [s.exe, "--mpi"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300, env=env)
    return (p.returncode, p.stdout,
            launcher_lines_out(p.stderr.decode("utf-8", "replace")))


def test_mpi(s):
    if not shutil.which("mpirun"):
        print("e2e_state_profiles: no mpirun: --mpi not tried")
        return
    if "built without MPI" in s.run(["--mpi", "--sum", "/dev/null"])[2]:
        print("e2e_state_profiles: built without MPI: --mpi not tried")
        return
    for it in range(1 if QUICK else 3):
        files, _ = make_files(s, f"mpi{it}")
        k = s.rng.randint(1, 6)
        plain = [f for f in files if not f.endswith(".gz")]
        for opts in (stat_opts(s.rng, k) + ["--json"],
                     ["-a", "--distinct", "--mode", "--top", str(k)]):
            want = s.run(opts + plain)
            for n in (2, 3):
                got = mpirun(s, n, opts + plain)
                s.check(got == want,
                        f"mpi {it}: -n {n} {' '.join(opts)} == one process",
                        f"got {got[0]} {got[1][:200]!r} {got[2][:200]!r}\n"
                        f"      want {want[0]} {want[1][:200]!r}")
    path = s.path("mpiwide.csv")
    with open(path, "wb") as f:
        f.write(b"u\n" + b"".join(b"user%d\n" % i for i in range(30000)))
    for mem in ("64k", "1500k"):  # past a rank's, past rank 0's merge
        rc, out, err = mpirun(s, 3, ["--distinct", "-c", "u", "--memory", mem,
                                     path])
        s.check(rc == 1 and not out and "--memory" in err and
                len(err.strip().splitlines()) == 1,
                f"--mpi --memory {mem}: one line naming --memory", err)


if __name__ == "__main__":
    Suite("e2e_state_profiles", sys.argv).run_tests(
        [test_parts, test_merge_options, test_refusals, test_memory,
         test_version_2, test_broken, test_mpi])
