#!/usr/bin/env python3
"""End-to-end: --part K/N, one-line states, merges in any order and in
trees, --names, and a real engine running the parts (GNU parallel).

usage: python3 tests/e2e/e2e_parts.py /path/to/colstat     (cwd = repo root)

Random CSVs (quoted fields holding delimiters, quotes, CR and LF; CRLF;
a byte-order mark; ragged rows), several of them with a gzip one among
them, and the same files joined by cat (repeated headers), are read as N
parts for N in 1, 2, 3, 7 (and with the parts' byte boundaries forced
anywhere, COLSTAT_MPI_CUTS, so that a part may begin inside a quoted
field): each part's state (--emit-state) must be one line of printable
ASCII; the states merged in a shuffled order (concatenated on standard
input), and merged as a random tree (--merge --emit-state of runs of
consecutive parts), must give the bytes of one process over the inputs.
A missing or repeated part is refused (one line, status 1). Headerless
pieces of a file cut by lines (as an engine's text partitions are), the
first holding the header, named by --names, merge to one process's
answer. GNU parallel runs the parts when installed (skipped, said, when
not). Seed printed; COLSTAT_SEED reproduces."""
import gzip
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, CsvCase, Suite, cmdline  # noqa: E402


def stats_args(rng):
    args = rng.sample(["--count", "--sum", "--mean", "--std", "--min",
                       "--max"], rng.randint(1, 6))
    if rng.random() < 0.5:
        args += ["--hist", "--bins", str(rng.randint(1, 40)), "--range",
                 "%r:%r" % (-rng.random() * 1e3, rng.random() * 1e3)]
    return args


def one_line(state):
    return (state.endswith(b"\n") and state.count(b"\n") == 1 and
            all(0x20 <= c < 0x7f for c in state[:-1]))


def run_env(suite, args, env=None, stdin=None):
    p = subprocess.run([suite.exe] + [str(a) for a in args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **(env or {})), timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def random_cuts(rng, files, n):
    """COLSTAT_MPI_CUTS: n - 1 byte offsets anywhere in the inputs'
    concatenation (a compressed file counts its compressed bytes)."""
    total = sum(os.path.getsize(f) for f in files)
    if n < 2 or total < n:
        return None
    return ",".join(str(c) for c in sorted(rng.sample(range(1, total), n - 1)))


def tree_merge(suite, rng, states, tag):
    """States (in part order) merged as a random tree of consecutive runs
    into one state, each inner merge a --merge --emit-state."""
    level = 0
    while len(states) > 1:
        out, i = [], 0
        while i < len(states):
            k = rng.randint(1, len(states) - i)
            group = states[i:i + k]
            i += k
            if len(group) == 1:
                out.append(group[0])
                continue
            stdin = b"".join(rng.sample(group, len(group)))
            rc, merged, err = suite.run(["--merge", "--emit-state", "-"],
                                        stdin=stdin)
            if not suite.check(rc == 0 and one_line(merged),
                               f"{tag}: tree level {level}: a merged state "
                               f"of {k} parts is one line", err.strip()):
                return None
            out.append(merged)
        if len(out) == len(states):  # each group of one: join two at least
            rc, merged, err = suite.run(["--merge", "--emit-state", "-"],
                                        stdin=out[0] + out[1])
            if not suite.check(rc == 0, f"{tag}: tree join", err.strip()):
                return None
            out = [merged] + out[2:]
        states, level = out, level + 1
    return states[0]


def parts_equal_whole(suite, tag, files, opts, n, cuts=None):
    rng = suite.rng
    rc, whole, err = suite.run(["--json"] + opts + files)
    if not suite.check(rc == 0, f"{tag}: one process exits 0", err.strip()):
        return
    env = {"COLSTAT_MPI_CUTS": cuts} if cuts else None
    states = []
    for k in range(1, n + 1):
        rc, st, err = run_env(suite, ["--part", f"{k}/{n}", "--emit-state"] +
                              opts + files, env)
        if not suite.check(rc == 0 and one_line(st),
                           f"{tag}: part {k}/{n} gives one printable line",
                           f"status {rc}, {st[:120]!r}, {err.strip()}"):
            return
        ncols = len(opts[opts.index("-c") + 1].split(",")) if "-c" in opts \
            else 1
        hist = 10 * int(opts[opts.index("--bins") + 1]) \
            if "--bins" in opts else 0
        suite.check(len(st) <= 1024 + ncols * (300 + hist),
                    f"{tag}: a state of {ncols} columns holds no padding",
                    f"{len(st)} bytes")
        states.append(st)
    order = rng.sample(states, n)
    rc, merged, err = suite.run(["--json", "--merge", "-"] + opts,
                                stdin=b"".join(order))
    suite.check(rc == 0 and merged == whole,
                f"{tag}: {cmdline(opts)}: {n} parts merged in a shuffled "
                f"order equal one process" + (f" (cuts {cuts})" if cuts else ""),
                f"status {rc} {err.strip()}\n      merged {merged[:300]!r}"
                f"\n      whole  {whole[:300]!r}")
    if n > 2:
        root = tree_merge(suite, rng, states, tag)
        if root is not None:
            rc, merged, err = suite.run(["--json", "--merge", "-"] + opts,
                                        stdin=root)
            suite.check(rc == 0 and merged == whole,
                        f"{tag}: {n} parts merged as a tree equal one process",
                        err.strip())
        missing = rng.randrange(n)
        rest = states[:missing] + states[missing + 1:]
        refused(suite, f"{tag}: part {missing + 1}/{n} missing",
                ["--merge", "-"], b"".join(rest), "missing")
        refused(suite, f"{tag}: a part given twice",
                ["--merge", "-"], b"".join(states + [states[missing]]),
                "twice")


def refused(suite, tag, args, stdin, word):
    rc, out, err = suite.run(args, stdin=stdin)
    lines = err.strip().splitlines()
    suite.check(rc == 1 and out == b"" and len(lines) == 1 and
                word in lines[0], f"{tag}: refused, one line naming it",
                f"status {rc}, stderr {err!r}")


def make_files(suite, rng, tag):
    """2 or 3 CSVs of one header, one of them gzip'd; and their cat."""
    n = rng.randint(2, 3)
    first = suite.path(f"{tag}-0.csv")
    case = CsvCase(rng, first, rng.randint(50, 300 if QUICK else 3000),
                   header=True)
    head = open(first, "rb").read().split(b"\n", 1)[0] + b"\n"
    files = [first]
    for j in range(1, n):
        p = suite.path(f"{tag}-{j}.csv")
        c = CsvCase(rng, p, rng.randint(1, 2000), header=False,
                    ncols=case.ncols, delim=case.delim)
        del c
        body = open(p, "rb").read()
        open(p, "wb").write(head + body)
        files.append(p)
    gz = rng.randrange(n)
    if gz:
        with open(files[gz], "rb") as f, gzip.open(files[gz] + ".gz", "wb") as g:
            g.write(f.read())
        files[gz] += ".gz"
    return case, files


def test_parts(suite):
    rng = suite.rng
    for it in range(3 if QUICK else 8):
        case, files = make_files(suite, rng, f"p{it}")
        cols = ",".join(str(i) for i in case.numeric_indices()) or "1"
        opts = ["-d", case.delim, "-c", cols] + stats_args(rng)
        for n in (1, 2, 3, 7):
            parts_equal_whole(suite, f"files{it}", files, opts, n)
        n = rng.choice([2, 3, 5, 7])
        plain = [f for f in files if not f.endswith(".gz")]
        parts_equal_whole(suite, f"cuts{it}", plain, opts, n,
                          random_cuts(rng, plain, n))


def test_joined(suite):
    """Files joined by cat: the header again inside the data. Each file
    ends its last line first: cat of a file without one would glue its
    last field to the next header ('"1.5"x' is no CSV field), another
    input, which colstat refuses as a quoted field left open."""
    rng = suite.rng
    case, files = make_files(suite, rng, "j")
    joined = suite.path("joined.csv")
    with open(joined, "wb") as out:
        for f in files:
            data = (gzip.open if f.endswith(".gz") else open)(f, "rb").read()
            if data and not data.endswith(b"\n"):
                data += b"\n"
            out.write(data)
    cols = ",".join(str(i) for i in case.numeric_indices()) or "1"
    opts = ["-d", case.delim, "-c", cols] + stats_args(rng)
    for n in (2, 3, 7):
        parts_equal_whole(suite, "joined", [joined], opts, n,
                          random_cuts(rng, [joined], n))


def test_binary(suite):
    rng = suite.rng
    p = suite.path("b.f64")
    import struct
    vals = [rng.gauss(0, 1e6) for _ in range(3 * rng.randint(1, 20000))]
    open(p, "wb").write(struct.pack(f"<{len(vals)}d", *vals))
    opts = ["-b", "f64x3"] + stats_args(rng)
    for n in (2, 7):
        parts_equal_whole(suite, "f64", [p], opts, n,
                          random_cuts(rng, [p], n))


def test_names(suite):
    """Pieces of a file cut by lines, as an engine's text partitions: the
    first holds the header, none has names of its own but --names'."""
    rng = suite.rng
    names = ["id", "lat ency", "bytes"]
    rows = [f"{i},{rng.gauss(50, 20):.3f},{rng.randint(0, 10**12)}"
            for i in range(rng.randint(10, 5000))]
    whole = suite.path("n.csv")
    open(whole, "w").write(",".join(names) + "\n" + "\n".join(rows) + "\n")
    lines = open(whole).read().splitlines(keepends=True)
    k = rng.randint(2, 6)
    cuts = sorted(rng.sample(range(1, len(lines)), min(k - 1, len(lines) - 1)))
    pieces = [lines[a:b] for a, b in zip([0] + cuts, cuts + [len(lines)])]
    opts = ["--count", "--sum", "--min", "--max", "--std"]
    states = b""
    for j, piece in enumerate(pieces):
        p = suite.path(f"n{j}.csv")
        open(p, "w").write("".join(piece))
        rc, st, err = suite.run(["--names", "id,lat ency,bytes",
                                 "--emit-state"] + opts + [p])
        if not suite.check(rc == 0 and one_line(st),
                           f"--names piece {j}: a state", err.strip()):
            return
        states += st
    rc, whole_out, err = suite.run(["--json"] + opts + [whole])
    rc2, merged, err2 = suite.run(["--json", "--merge", "-"], stdin=states)
    suite.check(rc == 0 and rc2 == 0 and merged == whole_out,
                f"--names: {len(pieces)} headerless pieces merged equal one "
                "process over the file", f"{err} {err2}\n{merged[:200]!r}\n"
                f"{whole_out[:200]!r}")
    rc, out, err = suite.run(["--names", "a,b", pieces[-1] and
                              suite.path(f"n{len(pieces) - 1}.csv")])
    suite.check(rc == 2 and "--names gives 2 names" in err,
                "--names of the wrong count: refused, status 2", err)
    # the header and one row: the names' line is no row of the sample (it
    # outvoted the row's numbers: "no column holds numbers")
    one = suite.path("n1row.csv")
    open(one, "w").write(",".join(names) + "\n" + rng.choice(rows) + "\n")
    rc, out, err = suite.run(["--json", "--names", ",".join(names)] + opts +
                             [one])
    rc2, want, err2 = suite.run(["--json"] + opts + [one])
    suite.check(rc == 0 and rc2 == 0 and out == want,
                "--names over the header and one row: the run without",
                f"{err} {err2}")


def test_empty_pieces(suite):
    """An engine's partitions of a file may hold no rows: an empty piece,
    the header alone, blank lines. Each gives a state of no rows, which
    the other pieces' states complete: merged in any order they equal one
    process over the file, grouped or not, with --names or a header in
    every piece. Only pieces without rows: status 1, no data."""
    rng = suite.rng
    header = "host,lat,bytes\n"
    rows = [f"h{rng.randint(0, 5)},{rng.gauss(50, 20):.3f},"
            f"{rng.randint(-10**12, 10**12)}\n"
            for _ in range(rng.randint(1, 3000))]
    whole = suite.path("e.csv")
    open(whole, "w").write(header + "".join(rows))
    for it in range(4):
        named = it % 2 == 1
        grouped = ["-g", "host"] if it >= 2 else []
        cuts = sorted(rng.randint(0, len(rows)) for _ in range(rng.randint(1, 5)))
        chunks = [rows[a:b] for a, b in zip([0] + cuts, cuts + [len(rows)])]
        empties = [rng.choice(["", header, "\n\n", header + "\r\n"])
                   for _ in range(rng.randint(1, 4))]
        texts = ["".join(c) for c in chunks]
        kinds = ["rows"] * len(texts)
        for t in empties:  # anywhere among the pieces: rows keep their order
            at = rng.randint(0, len(texts))
            texts.insert(at, t)
            kinds.insert(at, "none")
        opts = grouped + ["--count", "--sum", "--min", "--max"]
        states, lines, ok = b"", [], True
        for j, t in enumerate(texts):
            p = suite.path(f"e{it}-{j}.csv")
            # with --names the file's header is where it began (the first
            # piece of rows); without, every piece begins with it (as
            # split --filter gives), unless the piece is empty
            if named:
                first = kinds[:j + 1].count("rows") == 1 and kinds[j] == "rows"
                body = (header if first else "") + t
            else:
                body = "" if t == "" and rng.random() < 0.5 else header + t
            open(p, "w").write(body)
            args = (["--names", "host,lat,bytes"] if named else []) + \
                ["--emit-state"] + opts + [p]
            rc, st, err = suite.run(args)
            ok = suite.check(rc == 0 and one_line(st),
                             f"empty pieces {it}: piece {j} ({kinds[j]}): "
                             "a state", f"{err.strip()} {body[:80]!r}")
            if not ok:
                return
            states += st
            lines.append(st)
        rc, merged, err = suite.run(["--json", "--merge"] + grouped + ["-"],
                                    stdin=states)
        rc2, one, err2 = suite.run(["--json"] + opts + [whole])
        suite.check(rc == 0 and rc2 == 0 and merged == one,
                    f"empty pieces {it}: {len(empties)} pieces without rows "
                    f"among {len(chunks)} merged equal one process "
                    f"({'--names' if named else 'headers'}"
                    f"{', -g' if grouped else ''})",
                    f"{err} {err2}\n{merged[:300]!r}\n{one[:300]!r}")
        # a piece whose input is wrong is no empty partition: its error,
        # status 1 (an unterminated quote in the header was taken for a
        # piece without rows, a state made, status 0)
        for bad, word in ((b'"host\n', b"unterminated"),
                          (header.encode()[:5] + b'"x\n', b"unterminated"),
                          (header.encode() + b'h1,"2\n', b"unterminated"),
                          (b"\x1f\x8b\x08\x00", b"gzip"),
                          (b'{"host": 1}\n', b"JSON")):
            p = suite.path(f"bad{it}.csv")
            open(p, "wb").write(bad)
            rc, st, err = suite.run(["--emit-state"] + opts + [p])
            suite.check(rc == 1 and st == b"" and word.decode() in err,
                        f"empty pieces {it}: a piece of bad input "
                        f"{bad[:12]!r}: its error, status 1", f"{rc} {err}")
        only = b"".join(st for st, k in zip(lines, kinds) if k == "none")
        rc, out, err = suite.run(["--merge"] + grouped + ["-"], stdin=only)
        suite.check(only and rc == 1 and out == b"" and "no data" in err,
                    f"empty pieces {it}: states without rows alone: "
                    "status 1, no data", f"{rc} {err}")


def test_refusals(suite):
    p = suite.path("r.csv")
    open(p, "w").write("a\n1\n2\n")
    for args, word in ((["--part", "0/3", p], "K/N"),
                       (["--part", "4/3", p], "K/N"),
                       (["--part", "1/2", "-"], "standard input"),
                       (["--part", "x", p], "K/N")):
        rc, out, err = suite.run(args, stdin=b"a\n1\n")
        suite.check(rc == 2 and word in err and out == b"",
                    f"{cmdline(args)}: refused, status 2", err)
    old = b"COLSTAT\x1a\x01\x00\x00\x00" + bytes(40)
    rc, out, err = suite.run(["--merge", "-"], stdin=old)
    suite.check(rc == 1 and "version 1" in err,
                "a binary state of version 1: refused by name", err)


def test_parallel(suite):
    """GNU parallel runs the parts; their states on one pipe into
    --merge -."""
    if not shutil.which("parallel"):
        print("e2e_parts: GNU parallel not installed: its test skipped",
              file=sys.stderr)
        return
    rng = suite.rng
    case, files = make_files(suite, rng, "g")
    cols = ",".join(str(i) for i in case.numeric_indices()) or "1"
    opts = ["-d", case.delim, "-c", cols, "--sum", "--min", "--max"]
    n = rng.randint(2, 8)
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in opts + files)
    cmd = (f"parallel -j 4 '{suite.exe} --part {{}}/{n} --emit-state "
           f"{quoted.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}' "
           f"::: $(seq {n}) | {suite.exe} --json --merge -")
    p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    rc, whole, err = suite.run(["--json"] + opts + files)
    suite.check(p.returncode == 0 and p.stdout == whole,
                f"GNU parallel: {n} parts merged equal one process",
                p.stderr.decode(errors="replace")[:500])


if __name__ == "__main__":
    suite = Suite("e2e_parts", sys.argv)
    suite.run_tests((test_parts, test_joined, test_binary, test_names,
                     test_empty_pieces, test_refusals, test_parallel))
