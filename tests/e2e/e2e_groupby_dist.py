#!/usr/bin/env python3
"""End-to-end: groups in partial states and under --mpi (issue 22).

usage: python3 tests/e2e/e2e_groupby_dist.py /path/to/colstat   (cwd = repo root)

Random CSV inputs whose keys hold quotes, commas, newlines, unicode, the
missing key, numbers (a key column numeric in one part and not in the
merged whole), one and two key columns. The JSON of one process is what
every split must give, byte for byte: the states of --part K/N (N = 2, 3,
7) merged in shuffled order, from files and concatenated on standard
input, and as a merge tree; the states of separate files (and of --part
over several files; -c and the statistics chosen at the merge, in TSV,
CSV and the table); `mpirun -n 2/3 colstat --mpi -g`, and the state
rank 0 emits under -n 3 (skipped without mpirun or MPI). States of groups that are damaged or made by hand with
broken invariants are refused (exit 1), as are -g with --merge over
states without groups and quantiles per group under --mpi (exit 2).
Seed printed; COLSTAT_SEED reproduces.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import statefile  # noqa: E402
from harness import QUICK, Suite, mpi_usable, mpirun  # noqa: E402

TEXT_KEYS = ['a', 'b"q', 'c,d', 'line\nbreak', 'caf\u00e9', '\u65e5\u672c',
             'in ner', 'Z', '']
NUM_KEYS = ['200', '200.0', '404', '-3', '1e3', '0.5', '']
STATS = ["--count", "--sum", "--mean", "--std", "--min", "--max"]


def value(rng):
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.07:
        return "abc"
    if r < 0.6:
        return str(rng.randint(-1000, 1000))
    return "%.4f" % rng.uniform(-100, 100)


def text_kind(fields):
    """A column is text where its fields hold text and no number."""
    def number(v):
        try:
            float(v)
            return True
        except ValueError:
            return False
    held = [v for v in fields if v.strip()]
    return bool(held) and not any(number(v) for v in held)


def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def make_case(suite, tag, nkeys):
    """A CSV whose first key column is numeric in its first rows alone
    (so that a part's keys sort numerically and the whole's bytewise)."""
    rng = suite.rng
    n = rng.randint(5, 300)
    rows = []
    for i in range(n):
        pool = NUM_KEYS if i < n // 2 or rng.random() < 0.3 else TEXT_KEYS
        keys = [rng.choice(pool)] + [rng.choice(TEXT_KEYS) for _ in range(nkeys - 1)]
        rows.append(keys + [value(rng), value(rng)])
    header = ["k%d" % i for i in range(nkeys)] + ["x", "y"]
    path = suite.path(tag + ".csv")
    write_csv(path, header, rows)
    return path, header, rows


def emit(suite, args, out):
    rc, _, err = suite.run(args + ["--emit-state=" + out])
    suite.check(rc == 0, "emit: " + " ".join(map(str, args)), err)
    with open(out, "rb") as f:
        return f.read()


def merged(suite, tag, states, args, want):
    rc, out, err = suite.run(["--merge"] + args + states)
    suite.check(rc == 0 and out == want, tag, f"{rc} {err}\n{out[:300]!r}\n{want[:300]!r}")


def test_parts(suite):
    rng = suite.rng
    for t in range(3 if QUICK else 6):
        nkeys = rng.choice([1, 2])
        path, header, rows = make_case(suite, f"p{t}", nkeys)
        keys = ",".join(header[:nkeys])
        hist = rng.random() < 0.5
        stats = STATS + (["--hist", "--bins", "8", "--range", "-200:200"] if hist else [])
        rc, want, err = suite.run(["-g", keys, "--json"] + stats + [path])
        suite.check(rc == 0, f"case {t}: one process", err)
        for n in (2, 3, 7):
            states = []
            for k in range(1, n + 1):
                st = suite.path(f"p{t}.{n}.{k}")
                emit(suite, ["-g", keys, "--part", f"{k}/{n}"] + stats + [path], st)
                states.append(st)
            shuffled = states[:]
            rng.shuffle(shuffled)
            merged(suite, f"case {t}: {n} parts merged shuffled", shuffled, ["--json"], want)
            merged(suite, f"case {t}: {n} parts, -g given to --merge", shuffled,
                   ["-g", keys, "--json"], want)
            text = b"".join(open(s, "rb").read() for s in shuffled)
            rc, out, err = suite.run(["--merge", "--json", "-"], stdin=text)
            suite.check(rc == 0 and out == want, f"case {t}: {n} parts on stdin", err)
            # a tree: the first half merged into one state, then the rest
            half = suite.path(f"p{t}.{n}.half")
            rc, _, err = suite.run(["--merge", "--emit-state=" + half] + states[:n // 2 + 1])
            suite.check(rc == 0, f"case {t}: {n} parts: a merged state", err)
            tree = states[n // 2 + 1:] + [half]
            rng.shuffle(tree)
            merged(suite, f"case {t}: {n} parts as a tree", tree, ["--json"], want)


def test_files(suite):
    """Separate files: their states in the files' order; --part over them
    all, shuffled."""
    rng = suite.rng
    path, header, rows = make_case(suite, "files", 2)
    # -c: a file whose few rows hold no number in a column would leave it
    # out of its default columns, and states of other columns do not merge
    # every file one row at least: a file of a header alone holds no
    # numbers to name its columns by (refused, as one process does)
    cut = sorted(rng.sample(range(1, len(rows)), 2))
    files = []
    for i, (a, b) in enumerate(zip([0] + cut, cut + [len(rows)])):
        p = suite.path(f"f{i}.csv")
        write_csv(p, header, rows[a:b])
        files.append(p)
    rc, want, err = suite.run(["-g", "k0,k1", "-c", "x,y", "--json"] + STATS + files)
    suite.check(rc == 0, "files: one process", err)
    states = [emit(suite, ["-g", "k0,k1", "-c", "x,y"] + STATS + [f], f + ".st") and f + ".st"
              for f in files]
    # each file's state takes its columns' kinds from its own sample (the
    # whole of a small file): text where it saw text and no number (the
    # man page, "text"); states of different kinds are refused, not merged
    kinds = {tuple(text_kind([r[c] for r in rows[a:b]]) for c in (2, 3))
             for a, b in zip([0] + cut, cut + [len(rows)])}
    if len(kinds) == 1:
        merged(suite, "files: their states in order", states, ["--json"], want)
    else:
        rc, out, err = suite.run(["--merge", "--json"] + states)
        suite.check(rc == 1 and out == b"" and "is text in one and not in the other"
                    in err and len(err.splitlines()) == 1,
                    f"files sampled apart ({sorted(kinds)}): the merge refused",
                    f"{rc} {err}")
    parts = []
    for k in range(1, 4):
        st = suite.path(f"fp{k}")
        emit(suite, ["-g", "k0,k1", "-c", "x,y", "--part", f"{k}/3"] + STATS + files, st)
        parts.append(st)
    rng.shuffle(parts)
    merged(suite, "files: --part K/3 over them, shuffled", parts, ["--json"], want)
    for fmt in ("--tsv", "--csv", "--table"):
        fmt_args = [] if fmt == "--table" else [fmt]
        rc, one, err = suite.run(["-g", "k0,k1", "-c", "y,x", "--sum"] + fmt_args + files)
        merged(suite, f"files: --merge -c y,x --sum {fmt}", parts,
               ["-c", "y,x", "--sum"] + fmt_args, one)


def test_mpi(suite):
    if not mpi_usable(suite):
        return
    rng = suite.rng
    for t in range(2 if QUICK else 3):
        nkeys = rng.choice([1, 2])
        path, header, rows = make_case(suite, f"m{t}", nkeys)
        keys = ",".join(header[:nkeys])
        stats = STATS + (["--hist", "--bins", "8", "--range", "-200:200"]
                         if t % 2 else [])
        args = ["-g", keys, "--json"] + stats + [path]
        rc, want, err = suite.run(args)
        for n in (2, 3):
            rc, out, err = mpirun(suite, n, args)
            suite.check(rc == 0 and out == want,
                        f"mpi case {t}: mpirun -n {n} colstat --mpi -g == one process",
                        f"{rc} {err}")
        st = suite.path(f"m{t}.state")
        rc, _, err = mpirun(suite, 3, ["-g", keys, "--emit-state=" + st]
                            + stats + [path])
        merged(suite, f"mpi case {t}: mpirun -n 3 --emit-state, merged",
               [st], ["--json"], want)
    p = suite.path("m0.csv")
    rc, out, err = mpirun(suite, 2, ["-g", "k0", "--median", p])
    suite.check(rc == 2 and "quantiles per group" in err,
                "--mpi -g --median: usage error", err)


def bad_states(suite):
    """A state of groups made with --hist --range and --std, decoded."""
    rows = [["a", "1", "2"], ["b", "3", ""], ["a", "5", "7"], ["", "2", "x"],
            ['q"uo,te', "4", "4"]]
    p = suite.path("bad.csv")
    write_csv(p, ["k", "x", "y"], rows)
    line = emit(suite, ["-g", "k", "--std", "--hist", "--range", "0:10", p],
                suite.path("bad.st"))
    return line, statefile.decode(line)


def test_refused(suite):
    line, s = bad_states(suite)
    rc, out, err = suite.run(["--merge", "--json", "-"], stdin=line)
    suite.check(rc == 0, "the hand-decoded state itself merges", err)
    suite.check(statefile.encode(s) == line, "statefile encodes it back")
    for name, change in statefile.GROUP_MUTATIONS.items():
        t = statefile.decode(line)
        change(t)
        rc, out, err = suite.run(["--merge", "--json", "-"], stdin=statefile.encode(t))
        suite.check(rc == 1 and out == b"" and len(err.strip().splitlines()) == 1,
                    f"a state with {name}: refused", f"{rc} {err}")
    # group counts past what the payload holds, before any group is made
    for n in (2**40, 2**64 - 1, len(s["groups"]) + 1):
        rc, out, err = suite.run(["--merge", "-"],
                                 stdin=statefile.encode(s, ngroups=n))
        suite.check(rc == 1 and "not a colstat state" in err,
                    f"a group count of {n}: refused", err)
    for cut in (10, len(line) // 2, len(line) - 3):
        rc, out, err = suite.run(["--merge", "-"], stdin=line[:cut] + b"\n")
        suite.check(rc == 1 and "not a colstat state" in err,
                    f"a state of groups cut at {cut}: refused", err)
    # a group's integer corrections at 2^62, each state valid alone: two
    # of them add up past what the counter holds
    p = suite.path("ov.csv")
    write_csv(p, ["k", "x"], [["a", "-1"], ["a", "1"], ["b", "3"]])
    t = statefile.decode(emit(suite, ["-g", "k", "--sum", p], suite.path("ov.st")))
    t["rows"] += 2**53
    g = t["groups"][0]
    g["rows"] += 2**53
    g["columns"][0]["count"] += 2**53
    g["columns"][0]["sum_r"] = 2**62
    big = statefile.encode(t)
    rc, out, err = suite.run(["--merge", "-"], stdin=big)
    suite.check(rc == 0, "a group's corrections at 2^62: a state", err)
    rc, out, err = suite.run(["--merge", "-"], stdin=big + big)
    suite.check(rc == 1 and "past 2^63" in err,
                "two groups' corrections past 2^63: refused", err)
    p = suite.path("plain.csv")
    write_csv(p, ["k", "x"], [["a", "1"]])
    plain = emit(suite, ["--sum", p], suite.path("plain.st"))
    rc, out, err = suite.run(["--merge", "-g", "k", "-"], stdin=plain)
    suite.check(rc == 2 and "hold no groups" in err,
                "-g with --merge of states without groups: usage error", err)
    rc, out, err = suite.run(["--merge", "-"], stdin=plain + line)
    suite.check(rc == 1, "a state of groups beside one of none: refused", err)


if __name__ == "__main__":
    s = Suite("e2e_groupby_dist", sys.argv)
    s.run_tests([test_parts, test_files, test_mpi, test_refused])
