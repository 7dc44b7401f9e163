#!/usr/bin/env python3
"""End-to-end: binary inputs that hold no record, as CSV's empty inputs.

usage: python3 tests/e2e/e2e_empty_binary.py /path/to/colstat  (cwd = repo root)

-b over inputs that hold no record at all is no answer: exit 1, nothing on
stdout (--json too), one stderr line, the same as CSV's over the same
inputs: "colstat: FILE: no data: the input is empty" for one input
("(standard input)" for stdin: empty, or a pipe whose writer ends late),
"colstat: no data: every input is empty" for several (files, an empty
gzip member, stdin among them); -j 1, 2, 16; every -b type, xN repeats.
An empty input among others adds no rows: the answer is the others'
alone, byte for byte, and harness.py's exact reference of the random
records. --emit-state of an empty part (a file, a --part of one) exits 0
with a state that merges as no rows: --merge of it alone is the no-data
error, with a state of records the records' answer. Under --mpi (where
mpirun and an MPI build are here) a rank whose share is empty is no error;
a run over empty inputs alone is. A size that is no whole number of
records stays its own error. Seed printed; COLSTAT_SEED reproduces.
"""
import gzip
import itertools
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (QUICK, ColRef, Suite, cmdline, compare_column,  # noqa: E402
                     mpi_usable, mpirun, parse_json)

FMT = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I",
       "i64": "q", "u64": "Q", "f32": "f", "f64": "d"}
BOUNDS = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767),
          "u16": (0, 65535), "i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1),
          "i64": (-2**63, 2**63 - 1), "u64": (0, 2**64 - 1)}
STATS = ["count", "sum", "mean", "std", "min", "max"]
ONE = "no data: the input is empty"
EVERY = "colstat: no data: every input is empty\n"
# the first bytes of the formats colstat knows by their magic
# (io/codec/magic.c): raw records beginning with one are written gzipped
MAGIC_FIRST = set(b"\x1f\x28\x50\xfd\x42\x37\x52\x04\x02\x4c\x89\x41\x4f"
                  b"\x53\xd0\x93")
MERGED = ("colstat: --merge: no data: the states hold no rows (their inputs "
          "were empty, or held a header alone)\n")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


class Spec:
    """A random -b SPEC: 1 to 3 items of random types, some repeated."""

    def __init__(self, rng):
        self.items = [(rng.choice(list(FMT)), rng.choice([0, 0, 1, 2, 3]))
                      for _ in range(rng.randint(1, 3))]
        self.types = [t for t, n in self.items for _ in range(max(n, 1))]
        self.text = ",".join(t + (f"x{n}" if n else "")
                             for t, n in self.items)
        self.size = struct.calcsize("<" + "".join(FMT[t] for t in self.types))

    def value(self, rng, t):
        if t in BOUNDS:
            lo, hi = BOUNDS[t]
            if rng.random() < 0.1:
                return rng.choice([lo, hi, 0 if lo < 0 else lo])
            return rng.randint(max(lo, -10**6), min(hi, 10**6))
        r = rng.random()
        if r < 0.03:
            v = float("nan")
        elif r < 0.06:
            big = 3e38 if t == "f32" else 1e300
            v = rng.choice([big, -big, 0.0, -0.0])
        else:
            v = rng.uniform(-1, 1) * 10 ** rng.randint(-5, 6)
        return struct.unpack("<f", struct.pack("<f", v))[0] if t == "f32" else v

    def records(self, rng, n):
        return [[self.value(rng, t) for t in self.types] for _ in range(n)]

    def pack(self, rows):
        fmt = "<" + "".join(FMT[t] for t in self.types)
        return b"".join(struct.pack(fmt, *r) for r in rows)

    def refs(self, rows):
        """harness.py's exact reference per field, from the values' texts
        (repr of the double, the integer's digits)."""
        def text(t, v):
            return ("nan" if v != v else repr(v)) if t in ("f32", "f64") \
                else str(v)
        return [ColRef([text(t, r[f]) for r in rows])
                for f, t in enumerate(self.types)]


def stat_args(rng):
    what = rng.sample(STATS, rng.randint(1, len(STATS)))
    return what, ["--" + w for w in what]


def empty_input(suite, rng, tag):
    """An empty file, or an empty gzip member (binary may be compressed)."""
    if rng.random() < 0.25:
        p = suite.path(f"{tag}.bin.gz")
        write(p, gzip.compress(b""))
    else:
        p = suite.path(f"{tag}.bin")
        write(p, b"")
    return p


def expect_no_data(suite, tag, args, line, stdin=None):
    """Exit 1, nothing on stdout, exactly the one line wanted on stderr;
    CSV's line over the same inputs (no -b) is the same."""
    rc, out, err = suite.run(args, stdin=stdin)
    t = f"{tag}: {cmdline(args)}"
    suite.check(rc == 1, t + " exits 1", f"status {rc}: {err!r}")
    suite.check(out == b"", t + " prints nothing on stdout", out[:200])
    suite.check(err == line, t + f" says {line!r}", repr(err))
    csv = [a for i, a in enumerate(args)
           if a != "-b" and (i == 0 or args[i - 1] != "-b")]
    rc2, _, err2 = suite.run(csv, stdin=stdin)
    suite.check((rc2, err2) == (rc, err), t + " says what CSV says",
                f"binary {rc} {err!r}, CSV {rc2} {err2!r}")


def options(rng):
    """Random statistics, output and thread count around the inputs."""
    _, stats = stat_args(rng)
    out = rng.choice([[], ["--json"], ["--tsv"], ["--csv"]])
    return stats + out + ["-j", rng.choice([1, 2, 16])]


def test_empty_file(suite):
    rng = suite.rng
    for i in range(12):
        spec = Spec(rng)
        p = empty_input(suite, rng, f"empty{i}")
        expect_no_data(suite, "one empty input",
                       ["-b", spec.text, p] + options(rng),
                       f"colstat: {p}: {ONE}\n")


def test_empty_stdin(suite):
    rng = suite.rng
    for i in range(6):
        spec = Spec(rng)
        name = rng.choice([[], ["-"]])
        data = gzip.compress(b"") if i % 3 == 2 else b""
        expect_no_data(suite, "empty stdin",
                       ["-b", spec.text] + name + options(rng),
                       f"colstat: (standard input): {ONE}\n", stdin=data)


def test_slow_pipe(suite):
    """A pipe whose writer writes nothing and ends late: the head's read
    waits for its end, not taking the wait for an input of records."""
    rng = suite.rng
    for _ in range(3):
        spec = Spec(rng)
        args = ["-b", spec.text] + options(rng)
        writer = subprocess.Popen(["sh", "-c", "sleep 0.3"],
                                  stdout=subprocess.PIPE)
        p = subprocess.run([suite.exe] + [str(a) for a in args],
                           stdin=writer.stdout, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        writer.stdout.close()
        writer.wait()
        t = f"slow empty pipe: sh -c 'sleep 0.3' | {cmdline(args)}"
        err = p.stderr.decode("utf-8", "replace")
        line = f"colstat: (standard input): {ONE}\n"
        suite.check(p.returncode == 1, t + " exits 1", f"{p.returncode} {err!r}")
        suite.check(p.stdout == b"", t + " prints nothing", p.stdout[:200])
        suite.check(err == line, t + f" says {line!r}", repr(err))


def test_several_empty(suite):
    rng = suite.rng
    for i in range(8):
        spec = Spec(rng)
        files = [empty_input(suite, rng, f"several{i}_{k}")
                 for k in range(rng.randint(2, 4))]
        stdin = None
        if i % 4 == 3:  # standard input among them
            files.insert(rng.randrange(len(files) + 1), "-")
            stdin = b""
        expect_no_data(suite, "several empty inputs",
                       ["-b", spec.text] + files + options(rng), EVERY,
                       stdin=stdin)


def json_answer(suite, tag, args):
    rc, out, err = suite.run(args)
    if not suite.check(rc == 0, f"{tag}: {cmdline(args)} exits 0",
                       f"status {rc}: {err!r}"):
        return None
    return out


def check_reference(suite, tag, out, spec, rows, what):
    """The JSON answer against the exact reference of the records."""
    try:
        doc = parse_json(out)
    except ValueError as e:
        suite.check(False, f"{tag}: JSON parses", str(e))
        return
    suite.check(doc.get("rows") == len(rows), f"{tag}: rows",
                f"{doc.get('rows')} != {len(rows)}")
    cols = doc.get("columns", [])
    if not suite.check(len(cols) == len(spec.types), f"{tag}: columns",
                       f"{len(cols)} != {len(spec.types)}"):
        return
    for f, ref in enumerate(spec.refs(rows)):
        compare_column(suite, tag, cols[f], ref, str(f + 1), f + 1, what, None)


def records_file(suite, rng, spec, tag, rows):
    p = suite.path(f"{tag}.bin")
    data = spec.pack(rows)
    looks = data[0] in MAGIC_FIRST or data[257:262] == b"ustar"
    write(p, gzip.compress(data) if looks or rng.random() < 0.2 else data)
    return p


def test_empty_among(suite):
    """Empty inputs anywhere among inputs of records add nothing."""
    rng = suite.rng
    for i in range(4 if QUICK else 10):
        spec = Spec(rng)
        nfiles = rng.randint(1, 3)
        parts = [spec.records(rng, rng.randint(1, 300)) for _ in range(nfiles)]
        full = [records_file(suite, rng, spec, f"among{i}_{k}", rows)
                for k, rows in enumerate(parts)]
        files = list(full)
        for k in range(rng.randint(1, 3)):
            files.insert(rng.randrange(len(files) + 1),
                         empty_input(suite, rng, f"among{i}_e{k}"))
        what, stats = stat_args(rng)
        threads = ["-j", rng.choice([1, 2, 16])]
        tag = f"empty among records (spec {spec.text})"
        args = ["-b", spec.text] + stats + ["--json"] + threads
        with_empty = json_answer(suite, tag, args + files)
        alone = json_answer(suite, tag, args + full)
        if with_empty is None or alone is None:
            continue
        suite.check(with_empty == alone, f"{tag}: the answer is the records' "
                    "alone", f"{with_empty[:300]!r}\n      {alone[:300]!r}")
        check_reference(suite, tag, with_empty, spec,
                        [r for rows in parts for r in rows], what)
        table = ["-b", spec.text] + stats + threads
        a = suite.run(table + files)
        b = suite.run(table + full)
        suite.check(a == b and a[0] == 0, f"{tag}: the table is the records' "
                    "alone", f"{a!r}\n      {b!r}")


STATE_NAMES = (f"state{k}" for k in itertools.count())


def emit(suite, tag, args):
    """--emit-state of args: the state's path, or None (a failed check)."""
    rc, out, err = suite.run(args + ["--emit-state"])
    if not suite.check(rc == 0 and out.startswith(b"colstat-state "),
                       f"{tag}: {cmdline(args)} --emit-state exits 0 with a "
                       "state", f"status {rc}: {err!r} {out[:80]!r}"):
        return None
    p = suite.path(f"{next(STATE_NAMES)}.state")
    write(p, out)
    return p


def parts(suite, tag, args, n):
    """Each --part K/N's state of args, in order (None: a failed check)."""
    got = [emit(suite, tag, args + ["--part", f"{k}/{n}"])
           for k in range(1, n + 1)]
    return None if None in got else got


def expect_merged_no_data(suite, ops, stats):
    args = ["--merge"] + ops + stats
    rc, out, err = suite.run(args)
    t = f"states of no rows alone: {cmdline(args)}"
    suite.check(rc == 1, t + " exits 1", f"status {rc}: {err!r}")
    suite.check(out == b"", t + " prints nothing", out[:200])
    suite.check(err == MERGED, t + f" says {MERGED!r}", repr(err))


def test_states(suite):
    rng = suite.rng
    for i in range(3 if QUICK else 6):
        spec = Spec(rng)
        what, stats = stat_args(rng)
        base = ["-b", spec.text] + stats
        empty = empty_input(suite, rng, f"state{i}_e")
        e1 = emit(suite, "an empty input's state", base + [empty])
        e2 = emit(suite, "an empty input's state", base + [empty, empty])
        # the parts of an empty file: engines' empty partitions
        n = rng.randint(2, 4)
        ep = parts(suite, "an empty file's parts", base + [empty], n)
        if e1 is None or e2 is None or ep is None:
            continue
        for ops in ([e1], [e2], [e1, e2], ep):
            expect_merged_no_data(suite, ops, stats)
        rows = spec.records(rng, rng.randint(1, 200))
        full = records_file(suite, rng, spec, f"state{i}_r", rows)
        s = emit(suite, "a state of records", base + [full])
        one = json_answer(suite, "one run", base + [full, "--json"])
        # parts of empty inputs around the records: one run's answer
        rp = parts(suite, "parts around records", base + [empty, full, empty],
                   n)
        if s is None or one is None or rp is None:
            continue
        for ops in ([s, e1], [e1, s], [e2, s, e1], rp):
            args = ["--merge"] + ops + stats + ["--json"]
            got = json_answer(suite, "empty states merged with records", args)
            if got is None:
                continue
            suite.check(got == one, f"{cmdline(args)} is the records' one run",
                        f"{got[:300]!r}\n      {one[:300]!r}")
            check_reference(suite, f"merge {cmdline(args)}", got, spec, rows,
                            what)


def test_left_over(suite):
    """A size that is no whole number of records is still its own error,
    whether an empty input comes before it or not."""
    rng = suite.rng
    for i in range(4):
        spec = Spec(rng)
        while spec.size == 1:  # one byte a record: every size is whole
            spec = Spec(rng)
        size = rng.randint(0, 3) * spec.size + rng.randint(1, spec.size - 1)
        p = suite.path(f"leftover{i}.bin")
        data = bytes(rng.randrange(256) for _ in range(size))
        write(p, (b"\x00" if data[0] in MAGIC_FIRST else data[:1]) + data[1:])
        files = [p] if i % 2 == 0 else [empty_input(suite, rng, f"lo{i}"), p]
        args = ["-b", spec.text] + files + options(rng)
        rc, out, err = suite.run(args)
        t = f"bytes left over: {cmdline(args)}"
        suite.check(rc == 1 and out == b"", t + " exits 1, stdout empty",
                    f"status {rc}: {err!r}")
        suite.check(err.startswith(f"colstat: {p}: ") and "left over" in err
                    and err.count("\n") == 1, t + " names the bytes left over",
                    repr(err))


def mpi(suite, n, args):
    """mpirun's answer; once more where Open MPI's launcher itself failed
    (its session folder under a busy /tmp: ORTE_ERROR_LOG, no rank ran)."""
    got = mpirun(suite, n, args)
    if "ORTE_ERROR_LOG" in got[2] and "colstat:" not in got[2]:
        got = mpirun(suite, n, args)
    return got


def test_mpi(suite):
    if not mpi_usable(suite):
        return
    rng = suite.rng
    spec = Spec(rng)
    empty = empty_input(suite, rng, "mpi_e")
    for n in (2, 3):
        for files, line in (([empty], f"colstat: {empty}: {ONE}\n"),
                            ([empty, empty], EVERY)):
            args = ["-b", spec.text] + files + ["--sum"]
            rc, out, err = mpi(suite, n, args)
            t = f"mpirun -n {n} {cmdline(args)}"
            suite.check(rc == 1 and out == b"", t + " exits 1, stdout empty",
                        f"status {rc}: {err!r}")
            suite.check(line in err, t + f" says {line!r}", repr(err))
    # one record: every rank but one has an empty share
    rows = spec.records(rng, 1)
    full = records_file(suite, rng, spec, "mpi_r", rows)
    args = ["-b", spec.text, empty, full, empty, "--sum", "--min", "--json"]
    want = suite.run(args)
    for n in (2, 3):
        got = mpi(suite, n, args)
        suite.check(got[0] == 0 and got[:2] == want[:2],
                    f"mpirun -n {n} {cmdline(args)} is one process's answer",
                    f"{got!r}\n      {want!r}")


def main():
    suite = Suite("e2e_empty_binary", sys.argv)
    suite.run_tests((test_empty_file, test_empty_stdin, test_slow_pipe,
                     test_several_empty, test_empty_among, test_states,
                     test_left_over, test_mpi))


if __name__ == "__main__":
    main()
