#!/usr/bin/env python3
"""End-to-end: plain files read ahead (src/engine/readahead.h).

usage: python3 tests/e2e/e2e_readahead.py /path/to/colstat   (cwd = repo root)

A plain CSV file past the first megabyte colstat reads itself is read by
helper threads in fixed blocks, and the feed joins each block to the bytes
carried from the one before. Random files larger than that head, with
quoted fields holding delimiters, quotes and line ends, CRLF, and records
longer than the room kept for the carry (64 KiB) and than a block, are
read with random block sizes (COLSTAT_BLOCK_BYTES, down to 999 bytes),
reader counts (COLSTAT_READERS) and thread counts (COLSTAT_CORES):

- the statistics against the exact reference of harness.py;
- the JSON byte for byte against the same run reading in order
  (COLSTAT_READERS=0), also for several files and a file on standard
  input;
- errors deep in a file (an open quote at the end, an invalid field under
  --strict, a record over the limit): the same one line and status as
  reading in order.

Seed printed; COLSTAT_SEED reproduces."""
import csv
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (QUICK, STAT_FLAGS, ColRef, CsvCase, Suite,  # noqa: E402
                     check_doc, cmdline, read_columns)

csv.field_size_limit(1 << 30)
HEAD = 1 << 20  # what colstat reads before the feed (engine.c, HEAD_BYTES)
FRONT = 64 << 10  # the room for the carry (feed.c, AHEAD_FRONT)


def modes(rng):
    """A random (block bytes, readers, cores) to read with."""
    block = rng.choice([999, 4096, FRONT - 1, FRONT + 1, 100003, 1 << 20,
                        None])
    return (block, rng.choice([1, 2, 3, 16]), rng.choice([1, 2, 3, 16]))


def env_for(block, readers, cores):
    env = dict(os.environ)
    for k in ("COLSTAT_BLOCK_BYTES", "COLSTAT_READERS", "COLSTAT_CORES"):
        env.pop(k, None)
    if block:
        env["COLSTAT_BLOCK_BYTES"] = str(block)
    env["COLSTAT_READERS"] = str(readers)
    env["COLSTAT_CORES"] = str(cores)
    return env


def run_env(suite, args, env, stdin=None):
    p = subprocess.run([suite.exe] + [str(a) for a in args], env=env,
                       stdin=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def long_text(rng, size, delim, nl):
    """A quoted field of about size bytes with delimiters, doubled quotes
    and line ends inside."""
    parts = []
    n = 0
    while n < size:
        w = rng.choice(["lorem", "ipsum", delim, '""', nl, "x" * 97])
        parts.append(w)
        n += len(w)
    return '"' + "".join(parts) + '"'


def big_case(suite, name, want_bytes):
    """A CsvCase past the head; some cases get records longer than the
    carry's room and than a block. Returns (case, nrows)."""
    rng = suite.rng
    path = suite.path(name)
    nrows = 1000
    while True:
        case = CsvCase(rng, path, nrows, ncols=rng.randint(2, 6))
        if os.path.getsize(path) >= want_bytes:
            break
        nrows = int(nrows * want_bytes / max(os.path.getsize(path), 1)) + 100
    if rng.random() < 0.5:
        return case, nrows
    text = [i for i, c in enumerate(case.cols) if c.kind == "text"]
    if not text:
        return case, nrows
    nl = "\r\n" if case.crlf else "\n"
    with open(path, "rb") as f:
        body = f.read().decode("utf-8-sig")
    # records where the csv module finds them, long ones put among them
    records = list(csv.reader(io.StringIO(body, newline=""),
                              delimiter=case.delim))
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(1, len(records))
        size = rng.choice([FRONT - 50, FRONT + 10, 3 * FRONT, (1 << 20) + 5])
        row = ["1"] * case.ncols
        row[text[0]] = long_text(rng, size, case.delim, nl)[1:-1].replace(
            '""', '"')
        records.insert(at, row)
        nrows += 1
    out = io.StringIO(newline="")
    w = csv.writer(out, delimiter=case.delim, lineterminator=nl,
                   quoting=csv.QUOTE_MINIMAL)
    w.writerows(records)
    with open(path, "wb") as f:
        f.write((b"\xef\xbb\xbf" if case.bom else b"") + out.getvalue().encode())
    return case, nrows


def test_answers(suite):
    """Statistics against the reference, and the same bytes as reading in
    order, over random block, reader and thread counts."""
    rng = suite.rng
    for k in range(3 if QUICK else 8):
        case, nrows = big_case(suite, f"big{k}.csv",
                               rng.choice([HEAD + 1, 2 * HEAD, 5 * HEAD]))
        names, rows, fields = read_columns(case.path, case.delim, case.header,
                                           case.ncols)
        idx = case.numeric_indices()
        want = [(i, names[i - 1], ColRef(fields[i - 1])) for i in idx]
        args = [case.path, "--json", "--all", "-d", case.delim,
                "-c", ",".join(map(str, idx)),
                "--header" if case.header else "--no-header"]
        block, readers, cores = modes(rng)
        tag = (f"case {k} ({os.path.getsize(case.path)} bytes, block {block}, "
               f"readers {readers}, cores {cores}): {cmdline(args)}")
        rc, out, err = run_env(suite, args, env_for(block, readers, cores))
        if not suite.check(rc == 0, tag + " exits 0", err.strip()):
            continue
        check_doc(suite, tag, out, rows, want, set(STAT_FLAGS))
        rc2, out2, err2 = run_env(suite, args, env_for(block, -1, cores))
        suite.check(rc2 == 0 and out2 == out, tag + ": same as in order",
                    err2.strip())


def test_inputs(suite):
    """Several files as one table, and a file on standard input."""
    rng = suite.rng
    paths = []
    first = None
    for k in range(3):
        case, _ = big_case(suite, f"many{k}.csv", HEAD + rng.randint(1, HEAD))
        first = first or case
        paths.append(case.path)
    for trial in range(2 if QUICK else 4):
        block, readers, cores = modes(rng)
        args = paths[:rng.randint(2, 3)] + ["--json", "--all", "--no-header"]
        tag = f"block {block}, readers {readers}, cores {cores}: {cmdline(args)}"
        got = run_env(suite, args, env_for(block, readers, cores))
        want = run_env(suite, args, env_for(block, -1, cores))
        suite.check(got == want, tag + ": same as in order",
                    f"{got[0]} {got[2]!r} / {want[0]} {want[2]!r}")
        args = ["-", "--json", "--all", "-d", first.delim]
        with open(first.path, "rb") as f:
            got = run_env(suite, args, env_for(block, readers, cores), f)
        with open(first.path, "rb") as f:
            want = run_env(suite, args, env_for(block, -1, cores), f)
        suite.check(got == want and got[0] == 0,
                    tag + ": standard input from the file, same as in order",
                    f"{got[0]} {got[2]!r} / {want[0]} {want[2]!r}")


def number_rows(rng, nrows):
    return [f"{rng.randint(-999, 999)},{rng.randint(0, 10**6)}."
            f"{rng.randint(0, 99)}" for _ in range(nrows)]


def test_errors(suite):
    """An error deep in a file read ahead: the same line as in order."""
    rng = suite.rng
    for k in range(4 if QUICK else 10):
        nrows = rng.randint(HEAD // 12, 3 * HEAD // 12)
        rows = number_rows(rng, nrows)
        what = rng.choice(["quote", "strict", "limit"])
        args = ["--json", "-c", "1,2"]
        env_extra = {}
        at = rng.randint(nrows // 2, nrows - 1)
        if what == "quote":
            rows[at] = rows[at] + ',"open ' + "\n".join(
                ["more"] * rng.randint(0, 5))
            rows = rows[:at + 1]
        elif what == "strict":
            rows[at] = "12x," + rows[at].split(",")[1]
            args += ["--strict", "1"]
        else:
            # longer than any buffer a reader in order keeps (the head
            # and a block): a record within one is not measured
            limit = rng.choice([4096, 65536, 300000])
            rows[at] = "1," + "9" * (3 * HEAD + rng.randint(0, HEAD))
            env_extra["COLSTAT_RECORD_LIMIT"] = str(limit)
        path = suite.path(f"err{k}.csv")
        with open(path, "w") as f:
            f.write("a,b\n" + "\n".join(rows) + rng.choice(["", "\n"]))
        args = [path] + args
        block, readers, cores = modes(rng)
        env = env_for(block, readers, cores)
        env.update(env_extra)
        env0 = env_for(block, -1, cores)
        env0.update(env_extra)
        tag = (f"{what} at record {at + 1}, block {block}, readers {readers}, "
               f"cores {cores}: {cmdline(args)}")
        got = run_env(suite, args, env)
        want = run_env(suite, args, env0)
        suite.check(got[0] != 0 and got[2].count("\n") == 1 and got[1] == b"",
                    tag + ": fails with one line", f"{got[0]} {got[2]!r}")
        suite.check(got == want, tag + ": same as in order",
                    f"{got[0]} {got[2]!r} / {want[0]} {want[2]!r}")


def main():
    suite = Suite("e2e_readahead", sys.argv)
    suite.run_tests((test_answers, test_inputs, test_errors))


if __name__ == "__main__":
    main()
