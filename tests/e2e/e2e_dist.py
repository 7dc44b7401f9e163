#!/usr/bin/env python3
"""End-to-end: partial states (--emit-state, --merge).

usage: python3 tests/e2e/e2e_dist.py /path/to/colstat     (cwd = repo root)

A random CSV (quoted fields with delimiters, quotes and newlines, CRLF,
integers past 2^53) cut at random record boundaries into parts, each part
a CSV with the header; each part's state emitted; the states merged in
order must give the same JSON as one run over the parts as files (rows
numbered across them), for random statistics (histograms with --range);
binary f64 records split the same way. States that are cut short, damaged,
of other options, or asked with a histogram without --range are refused:
one line on stderr, the documented status, nothing on stdout. Seed
printed; COLSTAT_SEED reproduces."""
import csv
import io
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, CsvCase, Suite, cmdline  # noqa: E402


def records(path, delim):
    """The header and the records of a CSV, each as its exact bytes, cut
    where libcsv (what colstat reads with, not strict) ends a record: a
    quote opens a quoted field only at a field's start (blanks before it
    skipped), and a closing quote followed by blanks and then other text
    than a delimiter or a line end is read as part of the field, which
    stays quoted ('"1e+14" x' reads on; a plain toggle on every quote cut
    there, and seed 159433636 of e2e_mpi got a part ending in a quote)."""
    data = open(path, "rb").read()
    d = delim.encode() if isinstance(delim, str) else delim
    start_, plain, quoted, closing = range(4)
    out, start, state = [], 0, start_
    for i in range(len(data)):
        c = data[i:i + 1]
        blank = c in (b" ", b"\t") and c != d
        if state == quoted:
            state = closing if c == b'"' else quoted
            continue
        if state == closing and c == b'"':
            state = quoted  # "" is a quote in the field
        elif state == closing and not blank and c not in (d, b"\n", b"\r"):
            state = quoted
        elif state == start_ and c == b'"':
            state = quoted
        elif c == d or c == b"\r":
            state = start_
        elif c == b"\n":
            state = start_
            out.append(data[start:i + 1])
            start = i + 1
        elif state == start_ and not blank:
            state = plain
    if start < len(data):
        out.append(data[start:])
    return out[0], out[1:]


def split(rng, items, k):
    cuts = sorted(rng.sample(range(1, len(items)), min(k - 1, len(items) - 1)))
    return [items[a:b] for a, b in zip([0] + cuts, cuts + [len(items)])]


def stats_args(rng):
    args = rng.sample(["--count", "--sum", "--mean", "--std", "--min",
                       "--max"], rng.randint(1, 6))
    if rng.random() < 0.5:
        args += ["--hist", "--bins", str(rng.randint(1, 40)), "--range",
                 "%r:%r" % (-rng.random() * 1e3, rng.random() * 1e3)]
    return args


def states_equal_whole(suite, tag, parts, opts):
    """Each part's state emitted and merged == one run over the parts."""
    states = []
    for i, p in enumerate(parts):
        s = suite.path(f"{tag}-{i}.state")
        rc, out, err = suite.run(["--emit-state=" + s] + opts + [p])
        if not suite.check(rc == 0 and out == b"", f"{tag}: emit part {i}",
                           f"status {rc}: {err.strip()}"):
            return
        states.append(s)
    rc, merged, err = suite.run(["--merge", "--json"] + states)
    suite.check(rc == 0, f"{tag}: merge exits 0", err.strip())
    rc, whole, err = suite.run(["--json"] + opts + parts)
    suite.check(rc == 0, f"{tag}: whole run exits 0", err.strip())
    suite.check(merged == whole, f"{tag}: {cmdline(opts)}: merged states "
                f"equal one run over {len(parts)} parts",
                f"merged {merged[:300]!r}\n      whole  {whole[:300]!r}")
    return states


def test_csv(suite):
    rng = suite.rng
    for it in range(4 if QUICK else 12):
        whole = suite.path(f"w{it}.csv")
        case = CsvCase(rng, whole, rng.randint(20, 2000), header=True)
        head, recs = records(whole, case.delim)
        if len(recs) < 2:
            continue
        parts = []
        for j, chunk in enumerate(split(rng, recs, rng.randint(2, 6))):
            p = suite.path(f"w{it}-p{j}.csv")
            open(p, "wb").write(head + b"".join(chunk))
            parts.append(p)
        cols = ",".join(str(i) for i in case.numeric_indices()) or "1"
        opts = ["-d", case.delim, "--header", "-c", cols] + stats_args(rng)
        states_equal_whole(suite, f"csv{it}", parts, opts)


def test_binary(suite):
    rng = suite.rng
    n = rng.randint(10, 50000)
    vals = [rng.choice([rng.gauss(0, 1e9), float(rng.randint(-2**60, 2**60)),
                        float("nan"), float("inf"), 0.0]) for _ in range(3 * n)]
    data = struct.pack(f"<{3 * n}d", *vals)
    recs = [data[i:i + 24] for i in range(0, len(data), 24)]
    parts = []
    for j, chunk in enumerate(split(rng, recs, rng.randint(2, 5))):
        p = suite.path(f"b{j}.f64")
        open(p, "wb").write(b"".join(chunk))
        parts.append(p)
    states_equal_whole(suite, "f64", parts,
                       ["-b", "f64x3"] + stats_args(rng))


def expect_refused(suite, tag, args, status):
    rc, out, err = suite.run(args)
    lines = err.strip().splitlines()
    suite.check(rc == status and out == b"" and len(lines) == 1 and
                lines[0].startswith("colstat: "),
                f"{tag}: refused with status {status}, one line, no output",
                f"status {rc}, stdout {out[:80]!r}, stderr {err!r}")


def test_refusals(suite):
    rng = suite.rng
    p = suite.path("r.csv")
    CsvCase(rng, p, 200, header=True, delim=",")
    s = suite.path("r.state")
    rc, _, err = suite.run(["--emit-state=" + s, "--sum", "-c", "1", p])
    suite.check(rc == 0, "emit a state", err)
    good = open(s, "rb").read()
    for cut in sorted(set([0, 1, 7, 12, len(good) // 2, len(good) - 1] +
                          [rng.randrange(len(good)) for _ in range(5)])):
        c = suite.path(f"cut{cut}.state")
        open(c, "wb").write(good[:cut])
        expect_refused(suite, f"cut at {cut}", ["--merge", c], 1)
    for k in range(8):
        b = bytearray(good)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        d = suite.path(f"bad{k}.state")
        open(d, "wb").write(bytes(b))
        expect_refused(suite, f"one bit flipped ({k})", ["--merge", s, d], 1)
    other = suite.path("o.state")
    suite.run(["--emit-state=" + other, "--max", "-c", "1", p])
    expect_refused(suite, "states of other options", ["--merge", s, other], 1)
    expect_refused(suite, "a CSV given to --merge", ["--merge", p], 1)
    expect_refused(suite, "--emit-state with --hist and no --range",
                   ["--emit-state", "--hist", p], 2)
    expect_refused(suite, "--emit-state with --all", ["--emit-state", "-a", p],
                   2)
    for q in (["--median"], ["--quantiles", "0.9"],
              ["-a", "--range", "0:1"]):
        expect_refused(suite, "--emit-state with " + " ".join(q),
                       ["--emit-state"] + q + [p], 2)


def main():
    suite = Suite("e2e_dist", sys.argv)
    suite.run_tests((test_csv, test_binary, test_refusals))


if __name__ == "__main__":
    main()
