#!/usr/bin/env python3
"""End-to-end: --mpi's speculation forced wrong, with 2, 3 and 5 ranks.

usage: python3 tests/e2e/e2e_mpi_spec.py /path/to/colstat  (cwd = repo root)

Each rank first looks for a boundary that holds whatever the state at its
cut (where the parses from every state meet between records); where
there is none near, or with COLSTAT_MPI_GUESS=line, it guesses that the
byte at its cut is outside quotes, and begins after the first line end
there (src/dist/speculate.h). Every check runs both ways. The ranks' cuts
are forced (COLSTAT_MPI_CUTS) to where that guess is wrong or awkward:
inside a quoted field holding line breaks after the cut (the guess
misses), inside a quoted field without any, between a CR and its LF (the
guess lands after the LF: between records all the same, it holds), and
inside a repeated header line; the rest of the cuts at random bytes. The inputs:
random CRLF or LF CSV with those fields, in several files (one of them
gzip, which goes whole to one rank). Every run must give the bytes one
process gives (stdout, stderr, status), with statistics that need no pass
(a missed guess: that rank alone parses again) and with the median (a
pass over every rank: every rank parses again). -v must say per rank
whether the speculation held; with COLSTAT_MPI_GUESS=line, that it missed
where the guess is certainly wrong (a build that skips the parse after a
missed guess counts a quoted fragment as rows and fails here); by
default, that the proven boundary held there. Skipped (77) without
mpirun or MPI. Seed printed; COLSTAT_SEED reproduces."""
import gzip
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite  # noqa: E402
from e2e_mpi import mpirun, same_as_one  # noqa: E402

HEAD = "id,price,note,qty"


def note(rng, i):
    """A text field: quoted with line breaks, quoted without, or plain."""
    k = rng.random()
    if k < 0.3:
        lines = ["l%d %s" % (j, "x" * rng.randint(0, 30))
                 for j in range(rng.randint(2, 5))]
        return '"' + "\n".join(lines) + '"'
    if k < 0.6:
        return '"q%d, ""w"" %s"' % (i, "y" * rng.randint(0, 40))
    return "plain%d" % i


def make_csv(rng, path, nrows, crlf, repeats):
    """Rows with numbers around a text field; the header repeated inside
    (files joined) where repeats says."""
    eol = "\r\n" if crlf else "\n"
    rows = [HEAD]
    for i in range(nrows):
        rows.append("%d,%s,%s,%d" % (i, rng.choice(
            ["%.3f" % rng.uniform(-1e3, 1e3), "", "n/a"]), note(rng, i),
            rng.randint(-50, 50)))
        if repeats and rng.random() < 0.02:
            rows.append(HEAD)
    data = (eol.join(rows) + eol).encode()
    open(path, "wb").write(data)
    return data


def places(data):
    """Offsets by kind: inside quoted fields with a line break after the
    offset, inside quoted fields without one, between CR and LF, inside a
    repeated header line."""
    out = {"quoted_lf": [], "quoted": [], "crlf": [], "header": []}
    i = data.index(b"\n") + 1
    while True:
        q = data.find(b'"', i)
        if q < 0:
            break
        end = q + 1
        while True:
            end = data.index(b'"', end)
            if data[end + 1:end + 2] == b'"':
                end += 2
                continue
            break
        for x in range(q + 1, end):
            kind = "quoted_lf" if b"\n" in data[x:end] else "quoted"
            out[kind].append(x)
        i = end + 1
    out["crlf"] = [m.start() + 1 for m in re.finditer(b"\r\n", data)]
    for m in re.finditer(b"\n" + HEAD.encode() + b"\r?\n", data):
        out["header"] += list(range(m.start() + 2, m.start() + len(HEAD)))
    return out


def cuts_at(rng, total, n, forced):
    """n - 1 cuts: forced ones where given, the rest at random bytes."""
    cuts = [rng.choice(forced) for _ in range(rng.randint(1, n - 1))]
    cuts += [rng.randrange(total + 1) for _ in range(n - 1 - len(cuts))]
    return sorted(cuts)


def stats(rng):
    args = ["--count", "--sum", "--min", "--max", "--json"]
    if rng.random() < 0.4:  # a pass over every rank
        args += ["--median"]
    return args


def inputs(suite, it):
    """A few files, the first the one cut at the forced places; a gzip one
    after it, whole to a rank."""
    rng = suite.rng
    crlf = it % 2 == 0
    first = suite.path(f"s{it}.csv")
    data = make_csv(rng, first, rng.randint(40, 120 if QUICK else 600), crlf,
                    repeats=True)
    files = [first]
    if rng.random() < 0.5:
        z = suite.path(f"s{it}z.csv.gz")
        raw = suite.path(f"s{it}z.csv")
        open(z, "wb").write(gzip.compress(
            make_csv(rng, raw, rng.randint(5, 40), crlf, repeats=False)))
        files.append(z)
    if rng.random() < 0.5:
        files.append(first)  # the same file again: cut twice
    return data, files


class guessing:
    """COLSTAT_MPI_GUESS=line in the ranks' environment while inside
    (mpirun passes os.environ on), when line is true."""

    def __init__(self, line):
        self.line = line

    def __enter__(self):
        if self.line:
            os.environ["COLSTAT_MPI_GUESS"] = "line"

    def __exit__(self, *exc):
        os.environ.pop("COLSTAT_MPI_GUESS", None)


def test_forced_wrong(suite):
    rng = suite.rng
    for it in range(3 if QUICK else 8):
        data, files = inputs(suite, it)
        total = sum(os.path.getsize(f) for f in files)
        where = places(data)
        for kind, forced in where.items():
            if not forced:
                continue
            for n in (2, 3, 5):
                cuts = cuts_at(rng, total, n, forced)
                line = rng.random() < 0.5
                with guessing(line):
                    same_as_one(suite, f"it{it} {kind} guess line={line}", n,
                                stats(rng) + files, cuts)


def verdicts(err):
    return re.findall(r"speculation (held|missed)", err)


def test_says_and_reparses(suite):
    """A cut inside a quoted field with line breaks after it: a guess
    (COLSTAT_MPI_GUESS=line) misses, -v says so for both ranks at that
    cut, and the answer is one process's; by default the boundary proven
    for every state holds there. A cut in a record's middle outside
    quotes, at a record's start (the guess is the record after: between
    records too) and between a CR and its LF holds either way."""
    rng = suite.rng
    for crlf in (False, True):
        p = suite.path(f"say{int(crlf)}.csv")
        data = make_csv(rng, p, 200, crlf, repeats=False)
        lf = places(data)["quoted_lf"]
        cut = rng.choice(lf)
        for args in (["--sum", "--max"], ["--sum", "--median"]):
            for line, want in ((True, ["missed", "missed"]),
                               (False, ["held", "held"])):
                with guessing(line):
                    same_as_one(suite, f"quoted lf, line={line} crlf={crlf} "
                                f"{args}", 2, args + [p], [cut])
                    rc, _, err = mpirun(suite, 2, ["-v"] + args + [p], [cut])
                suite.check(rc == 0 and sorted(verdicts(err)) == want,
                            f"quoted lf, guess line={line} crlf={crlf} "
                            f"{args}: -v says both ranks {want[0]}",
                            err[-2000:])
        plain = data.index(b",plain") + 3
        # a record's start (a line in a quoted field starts with "l")
        start = re.compile(rb"\n\d+,").search(data, len(data) // 2).start() + 1
        held = [plain, start] + places(data)["crlf"][-1:]
        for cut in held:  # guessed boundaries between records: kept
            line = rng.random() < 0.5
            with guessing(line):
                same_as_one(suite, f"hold crlf={crlf} at {cut} line={line}",
                            2, ["--sum", p], [cut])
                rc, _, err = mpirun(suite, 2, ["-v", "--sum", p], [cut])
            suite.check(rc == 0 and verdicts(err) == ["held", "held"],
                        f"hold crlf={crlf} at {cut} line={line}: -v says "
                        "both ranks held", err[-2000:])


def test_invalid_lines(suite):
    """Lines the engine reports from a guessed start (the first invalid
    field of a strict-less column, a repeated header) are the file's
    physical lines, as one process reports them, whether the guess held
    or not."""
    rng = suite.rng
    for it in range(2 if QUICK else 4):
        p = suite.path(f"inv{it}.csv")
        rows = [HEAD]
        for i in range(300):
            rows.append("%d,%s,%s,%d" % (i, "bad" if i > 150 and
                                         rng.random() < 0.1 else "1.5",
                                         note(rng, i), i))
        data = ("\n".join(rows) + "\n").encode()
        open(p, "wb").write(data)
        half = len(data) // 2
        for n in (2, 3, 5):
            with guessing(n == 3):
                same_as_one(suite, f"invalid lines{it}", n, ["--sum", p],
                            sorted(rng.randrange(half) for _ in range(n - 1)))
            same_as_one(suite, f"invalid lines{it} strict", n,
                        ["--strict", "--sum", "-c", "price", p],
                        sorted(rng.randrange(half) for _ in range(n - 1)))


def main():
    suite = Suite("e2e_mpi_spec", sys.argv)
    if not shutil.which("mpirun"):
        print("e2e_mpi_spec: no mpirun: skipped")
        sys.exit(77)
    rc, _, err = suite.run(["--mpi", "--sum", "/dev/null"])
    if "built without MPI" in err:
        print("e2e_mpi_spec: colstat built without MPI: skipped")
        sys.exit(77)
    suite.run_tests((test_forced_wrong, test_says_and_reparses,
                     test_invalid_lines))


if __name__ == "__main__":
    main()
