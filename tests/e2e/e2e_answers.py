#!/usr/bin/env python3
"""End-to-end: no silent wrong answer and no silent non-answer, and the
messages that say why, on the CPU backend.

usage: python3 tests/e2e/e2e_answers.py /path/to/colstat     (cwd = repo root)

Files joined by cat read as the files given one by one (repeated headers
are no rows, said once on stderr); inputs where no column holds numbers are
an error naming what to do; a column whose numbers start late is reported,
in a file and in a stream; --strict and the invalid-field warning name the
column and show the field; many inputs under a low open-file limit; a
first record past 1 MiB. Each answer is checked against the exact
reference (harness.py). Seed printed; COLSTAT_SEED reproduces.
"""
import os
import resource
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ColRef, Suite, check_doc, cmdline  # noqa: E402

ALL = {"count", "sum", "mean", "std", "min", "max", "hist", "median"}  # what --all asks for


def write(path, data):
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def number(rng):
    return str(rng.randint(-10**6, 10**6)) if rng.random() < 0.5 else \
        "%.4f" % rng.uniform(-1e3, 1e3)


def one_line_error(suite, tag, rc, out, err, status, *needles):
    suite.check(rc == status, tag + ": exits %d" % status, "status %d: %r" % (rc, err))
    suite.check(out == b"", tag + ": nothing on stdout", out[:200])
    suite.check(err.startswith("colstat: ") and err.count("\n") == 1,
                tag + ": one line", repr(err))
    for n in needles:
        suite.check(n in err, tag + ": says %r" % n, repr(err))


def test_joined_files(suite):
    """Item 3: `cat f1 f2 ... | colstat` gives the JSON `colstat f1 f2 ...`
    gives (before: each later header an invalid row, later rows shifted)."""
    rng = suite.rng
    names = ["ts", "latency_ms", "bytes"]
    files, rows = [], []
    for k in range(rng.randint(2, 6)):
        part = [[number(rng) for _ in names] for _ in range(rng.randint(1, 50))]
        p = suite.path("log%d.csv" % k)
        write(p, ",".join(names) + "\n" + "".join(",".join(r) + "\n" for r in part))
        files.append(p)
        rows += part
    joined = b"".join(open(p, "rb").read() for p in files)
    args = ["--json", "--all", "-c", "latency_ms,bytes"]
    rc1, out1, err1 = suite.run(args + files)
    rc2, out2, err2 = suite.run(args, stdin=joined)
    t = "cat %d files | %s" % (len(files), cmdline(args))
    suite.check(rc1 == 0 and rc2 == 0 and out1 == out2,
                t + ": the JSON of the files given one by one", err2)
    cols = [[r[i] for r in rows] for i in range(3)]
    check_doc(suite, t, out2, len(rows),
              [(2, "latency_ms", ColRef(cols[1])), (3, "bytes", ColRef(cols[2]))], ALL)
    n = len(files) - 1
    said = [ln for ln in err2.splitlines() if "repeated header" in ln]
    suite.check(len(said) == 1 and ("%d repeated header line" % n) in said[0],
                t + ": says once that %d repeated headers were skipped" % n, err2)
    suite.check(err1 == "", "the files one by one: nothing on stderr", err1)


def test_no_numbers(suite):
    """Item 4: no column holds numbers: exit 1 with a hint (before: an
    empty table, exit 0)."""
    rng = suite.rng
    cases = [
        ("text.csv", "name,city\n" + "".join("n%d,c%d\n" % (i, i) for i in range(9)), "-c"),
        ("grouped.csv", "amount\n" + "".join('"%d,%03d.50"\n' % (rng.randint(1, 999),
                                                              rng.randint(0, 999))
                                             for _ in range(9)), "thousands"),
    ]
    # A column of numbers with a unit ('12ms') is read in its unit now
    # (e2e_kinds.py), no longer a column without numbers.
    for name, text, hint in cases:
        p = suite.path(name)
        write(p, text)
        rc, out, err = suite.run([p])
        one_line_error(suite, name, rc, out, err, 1, hint)
    # Doubles without a '"' byte (one opens a quoted field the binary
    # never closes: an error without the hint, left for later); the second
    # without LF bytes either: one header line, no data after it.
    for name, avoid in (("points.f64", b'"'), ("nolf.f64", b'"\n')):
        vals = []
        while len(vals) < 64:
            v = struct.pack("<d", rng.uniform(-1, 1))
            if not any(c in v for c in avoid):
                vals.append(v)
        p = suite.path(name)
        write(p, b"".join(vals))
        rc, out, err = suite.run([p])
        one_line_error(suite, name + " without -b", rc, out, err, 1, "-b")


def test_late_column(suite):
    """Item 6: a column empty at first and numeric later is reported, read
    from a file (sampled at several places) and from a stream (before: left
    out silently)."""
    rng = suite.rng
    for nrows, first in ((300, rng.randint(150, 299)),
                         (200000, rng.randint(190000, 199999))):
        ids = [str(i) for i in range(nrows)]
        late = ["" if i < first else number(rng) for i in range(nrows)]
        text = "id,late\n" + "".join("%s,%s\n" % r for r in zip(ids, late))
        p = suite.path("late%d.csv" % nrows)
        write(p, text)
        want = [(1, "id", ColRef(ids)), (2, "late", ColRef(late))]
        for how, args, stdin in (("file", [p], None), ("stream", [], text.encode())):
            t = "late column from row %d of %d, %s" % (first + 1, nrows, how)
            rc, out, err = suite.run(args + ["--json", "--all"], stdin=stdin)
            if suite.check(rc == 0, t + ": exits 0", err):
                check_doc(suite, t, out, nrows, want, ALL)


def test_messages(suite):
    """--strict names the column and shows the field; the warning shows the
    first invalid field, cut at 40 bytes."""
    rng = suite.rng
    bad = "abc" + "".join(rng.choice("xyz-") for _ in range(60))
    n = rng.randint(1, 20)
    p = suite.path("inv.csv")
    write(p, "id,price\n" + "".join("%d,%d\n" % (i, i) for i in range(n)) +
          "%d,%s\n" % (n, bad) + "%d,7\n" % (n + 1))
    line = n + 2
    rc, out, err = suite.run([p, "--strict", "-c", "price"])
    one_line_error(suite, "--strict", rc, out, err, 1, "%s:%d:" % (p, line),
                   "column 'price'", bad[:30])
    rc, out, err = suite.run([p, "-c", "price", "--tsv"])
    suite.check(rc == 0 and "%s:%d: warning: column 'price'" % (p, line) in err and
                ("'%s...'" % bad[:40]) in err and bad not in err and err.count("\n") == 1,
                "the warning shows the field, cut", repr(err))


def test_many_inputs(suite):
    """More inputs than open files allowed: each is closed once read."""
    n = 300
    files = []
    for k in range(n):
        p = suite.path("m%d.csv" % k)
        write(p, "a\n%d\n" % k)
        files.append(p)

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    r = subprocess.run([suite.exe, "--json", "--all"] + files, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, preexec_fn=low_limit, timeout=120)
    t = "%d inputs under an open-file limit of 128" % n
    if suite.check(r.returncode == 0, t + ": exits 0", r.stderr.decode()[:300]):
        check_doc(suite, t, r.stdout, n, [(1, "a", ColRef([str(k) for k in range(n)]))], ALL)


def test_long_first_record(suite):
    """A header and a first record past 1 MiB (before: refused, or an
    empty table)."""
    rng = suite.rng
    ncols = 1500
    names = ["c%d_" % i + "n" * 700 for i in range(ncols)]
    rows = [[number(rng) for _ in range(ncols)] for _ in range(3)]
    p = suite.path("longhead.csv")
    write(p, ",".join(names) + "\n" + "".join(",".join(r) + "\n" for r in rows))
    rc, out, err = suite.run([p, "--json", "--all", "-c", "1,%d" % ncols])
    t = "a header of %d bytes" % len(",".join(names))
    if suite.check(rc == 0, t + ": exits 0", err[:300]):
        check_doc(suite, t, out, 3, [(1, names[0], ColRef([r[0] for r in rows])),
                                     (ncols, names[-1], ColRef([r[-1] for r in rows]))], ALL)
    q = suite.path("longrec.csv")
    text = "a,b\n" + '"' + "x" * (1 << 20) + '",1\n' + "y,2\n"
    write(q, text)
    rc, out, err = suite.run([q, "--json", "--all"])
    t = "a first record past 1 MiB"
    if suite.check(rc == 0, t + ": exits 0", err[:300]):
        check_doc(suite, t, out, 2, [(1, "a", ColRef(["x" * (1 << 20), "y"])),
                                     (2, "b", ColRef(["1", "2"]))], ALL)


def main():
    suite = Suite("e2e_answers", sys.argv)
    suite.run_tests((test_joined_files, test_no_numbers, test_late_column, test_messages,
                     test_many_inputs, test_long_first_record))


if __name__ == "__main__":
    main()
