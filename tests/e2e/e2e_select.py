#!/usr/bin/env python3
"""End-to-end: which columns -c selects, and that every selected entry
carries its own column's statistics.

usage: python3 tests/e2e/e2e_select.py /path/to/colstat     (cwd = repo root)

-c LIST against a model of the rules, on random headers holding repeated
names, names that read as numbers or as an exclusion: NAME (every column of
that name), N, N-M, N-, /REGEX/, !ITEM, blanks around items, -c given
twice; a column selected again prints once, where first selected; two
columns of one name stay apart by index, in the table too, and keep apart
in a second file whose header orders them differently. Each reported
column is checked against the exact reference (harness.py). Binary input
likewise. Errors: a name or pattern that selects nothing, a bad pattern, a
list that leaves nothing: exit 2, one line naming it; a name when no header
was detected suggests --header; an empty input is an error whatever -c
says. Seed printed; COLSTAT_SEED reproduces.
"""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ColRef, Suite, check_doc, cmdline  # noqa: E402

ALL = {"count", "sum", "mean", "std", "min", "max", "hist", "median"}  # what --all asks for
WORDS = ["temp_in", "temp_out", "id", "value", "price", "load_ts", "qty"]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def table(rng, nrows, names):
    rows = [[str(rng.randint(-999, 999)) if rng.random() < 0.7 else
             "%.3f" % rng.uniform(-50, 50) for _ in names] for _ in range(nrows)]
    return rows


def csv_text(names, rows):
    return ",".join(names) + "\n" + "".join(",".join(r) + "\n" for r in rows)


def select(names, items):
    """The rules, as the man page says them: 1-based indices in output
    order, or a string naming the error."""
    chosen, excluded = [], set()

    def pick(item, neg):
        hits = [i + 1 for i, n in enumerate(names) if n == item]
        if not hits and len(item) >= 2 and item[0] == "/" and item[-1] == "/":
            hits = [i + 1 for i, n in enumerate(names)
                    if re.search(item[1:-1], n)]
            if not hits:
                return "no column name matches " + item
        elif not hits:
            m = re.fullmatch(r"([0-9]+)(-([0-9]*))?", item)
            if not m:
                return "no column named '%s'" % item
            lo = int(m.group(1))
            hi = lo if m.group(2) is None else \
                (int(m.group(3)) if m.group(3) else len(names))
            if lo < 1 or hi < lo:
                return "bad range"
            if hi > len(names):
                return "past the last"
            hits = list(range(lo, hi + 1))
        for i in hits:
            if neg:
                excluded.add(i)
            elif i not in chosen:
                chosen.append(i)
        return None

    for raw in items:
        item = raw.strip(" \t")
        if item in names:
            err = pick(item, False)
        elif item.startswith("!"):
            err = pick(item[1:], True)
        else:
            err = pick(item, False)
        if err:
            return err
    base = chosen if chosen else list(range(1, len(names) + 1))
    left = [i for i in base if i not in excluded]
    return left if left else "leaves no column"


def json_run(suite, tag, args, nrows, want, stdin=None):
    rc, out, err = suite.run(args, stdin=stdin)
    t = "%s: %s" % (tag, cmdline(args))
    if suite.check(rc == 0, t + " exits 0", "status %d: %s" % (rc, err.strip())):
        check_doc(suite, t, out, nrows, want, ALL)
    return out


def expect_usage(suite, tag, args, *needles, status=2):
    rc, out, err = suite.run(args)
    t = "%s: %s" % (tag, cmdline(args))
    suite.check(rc == status, t + " exits %d" % status, "status %d: %r" % (rc, err))
    suite.check(out == b"", t + " prints nothing on stdout", out[:200])
    suite.check(err.startswith("colstat: ") and err.count("\n") == 1,
                t + ": one line", repr(err))
    for n in needles:
        suite.check(n in err, t + ": names %r" % n, repr(err))


def test_model(suite):
    """Random headers (repeated names, names like 2020 or !x), random lists:
    the columns and their statistics as the model says."""
    rng = suite.rng
    for it in range(40):
        names = [rng.choice(WORDS + ["2020", "!x", "a b"]) for _ in range(rng.randint(1, 7))]
        names[0] = rng.choice(["id", "temp_in"])  # a text first name: a header
        n = len(names)
        rows = table(rng, rng.randint(1, 40), names)
        p = suite.path("m%d.csv" % it)
        write(p, csv_text(names, rows))
        items = []
        for _ in range(rng.randint(1, 4)):
            k = rng.random()
            a = rng.randint(1, n)
            if k < 0.25:
                it_ = rng.choice(names)
            elif k < 0.4:
                it_ = str(a)
            elif k < 0.55:
                it_ = "%d-%d" % (a, rng.randint(a, n))
            elif k < 0.65:
                it_ = "%d-" % a
            elif k < 0.8:
                it_ = rng.choice(["/^temp_/", "/_ts$/", "/^(id|qty)$/", "/e/"])
            else:
                it_ = "!" + rng.choice([rng.choice(names), str(a), "/^t/"])
            if rng.random() < 0.2:
                it_ = " " + it_ + "\t"
            items.append(it_)
        want = select(names, items)
        if rng.random() < 0.3 and len(items) > 1:  # -c again: the lists append
            args = [p, "--json", "--all", "--header", "-c", ",".join(items[:1]),
                    "-c", ",".join(items[1:])]
        else:
            args = [p, "--json", "--all", "--header", "-c", ",".join(items)]
        if isinstance(want, str):
            expect_usage(suite, "model", args, status=2)
            continue
        cols = [[r[i - 1] for r in rows] for i in range(1, n + 1)]
        json_run(suite, "model", args, len(rows),
                 [(i, names[i - 1], ColRef(cols[i - 1])) for i in want])


def test_same_column_twice(suite):
    """The issue's cases: the same column twice, two columns under one
    name (before: the second copy all zeros, column 3's sum from column
    2's values); printed once, each with its own statistics; the table
    shows the index."""
    rc, out, err = suite.run(["--json", "--all"], stdin=b"id,value,value\n1,2,3\n4,5,6\n")
    doc = check_doc(suite, "id,value,value", out, 2,
                    [(1, "id", ColRef(["1", "4"])), (2, "value", ColRef(["2", "5"])),
                     (3, "value", ColRef(["3", "6"]))], ALL)
    for spec, idx in (("3,3", [3]), ("value,2", [2, 3]), ("2-3,3", [2, 3]),
                      ("value", [2, 3]), ("3,value", [3, 2])):
        rc, out, err = suite.run(["--json", "--all", "-c", spec],
                                 stdin=b"id,value,value\n1,2,3\n4,5,6\n")
        check_doc(suite, "-c " + spec, out, 2,
                  [(i, "value", ColRef([["2", "5"], ["3", "6"]][i - 2])) for i in idx], ALL)
    rc, out, err = suite.run(["-c", "value"], stdin=b"id,value,value\n1,2,3\n4,5,6\n")
    lines = out.decode().splitlines()
    suite.check(len(lines) == 3 and lines[1].split()[:2] == ["2", "value"] and
                lines[2].split()[:2] == ["3", "value"],
                "the table shows both columns named value by index", out.decode())
    doc = doc  # noqa


def test_shared_names_across_files(suite):
    """A header 92,-792,92 with --header -c 1-3 (before: the first
    column got no values, the third the first's); two files whose headers
    order the columns of one name differently are matched by name and rank."""
    rng = suite.rng
    rows = table(rng, rng.randint(1, 30), ["a", "b", "c"])
    p = suite.path("f1.csv")
    write(p, csv_text(["92", "-792", "92"], rows))
    cols = [[r[i] for r in rows] for i in range(3)]
    json_run(suite, "numeric header", [p, "--json", "--all", "--header", "-c", "1-3"], len(rows),
             [(i + 1, ["92", "-792", "92"][i], ColRef(cols[i])) for i in range(3)])
    a, b = suite.path("s1.csv"), suite.path("s2.csv")
    ra, rb = table(rng, rng.randint(1, 20), "xyz"), table(rng, rng.randint(1, 20), "xyzw")
    write(a, csv_text(["v", "id", "v"], ra))
    write(b, csv_text(["id", "v", "w", "v"], rb))  # v's first and second
    va1 = [r[0] for r in ra] + [r[1] for r in rb]
    va2 = [r[2] for r in ra] + [r[3] for r in rb]
    ids = [r[1] for r in ra] + [r[0] for r in rb]
    json_run(suite, "names by rank in a second file",
             [a, b, "--json", "--all", "--header"], len(ra) + len(rb),
             [(1, "v", ColRef(va1)), (2, "id", ColRef(ids)), (3, "v", ColRef(va2))])
    c = suite.path("s3.csv")
    write(c, csv_text(["id", "v"], rb))
    expect_usage(suite, "a second v missing", [a, c, "--header"], "1 column named 'v'",
                 status=1)


def test_readme_columns(suite):
    """The README's `colstat -c 2,4-6,price --tsv a.csv b.csv c.csv` where
    price is column 6: price once, with its own numbers."""
    rng = suite.rng
    names = ["id", "a", "b", "c", "d", "price", "e"]
    files, allrows = [], []
    for k in "abc":
        rows = table(rng, rng.randint(1, 30), names)
        p = suite.path(k + ".csv")
        write(p, csv_text(names, rows))
        files.append(p)
        allrows += rows
    cols = [[r[i] for r in allrows] for i in range(len(names))]
    json_run(suite, "README -c", ["-c", "2,4-6,price", "--json", "--all"] + files,
             len(allrows), [(i, names[i - 1], ColRef(cols[i - 1])) for i in (2, 4, 5, 6)])
    rc, out, err = suite.run(["-c", "2,4-6,price", "--tsv"] + files)
    lines = out.decode().splitlines()
    suite.check(rc == 0 and [ln.split("\t")[:2] for ln in lines[1:]] ==
                [["a", "2"], ["c", "4"], ["d", "5"], ["price", "6"]],
                "README -c --tsv: four rows, price once", out.decode())


def test_binary(suite):
    rng = suite.rng
    n = rng.randint(1, 50)
    vals = [[rng.uniform(-1e3, 1e3) for _ in range(3)] for _ in range(n)]
    p = suite.path("p.f64")
    write(p, b"".join(struct.pack("<3d", *v) for v in vals))
    cols = [[repr(v[i]) for v in vals] for i in range(3)]
    for spec, idx in (("1,1", [1]), ("3,1-3", [3, 1, 2]), ("!2", [1, 3]),
                      ("/^[13]$/", [1, 3])):
        json_run(suite, "binary -c " + spec, [p, "-b", "f64x3", "--json", "--all", "-c", spec],
                 n, [(i, str(i), ColRef(cols[i - 1])) for i in idx])
    expect_usage(suite, "binary", [p, "-b", "f64x3", "-c", "x"], "no column named 'x'")
    rc, out, err = suite.run([p, "-b", "f64x3", "-c", "x"])
    suite.check("--header" not in err, "binary: no --header hint", err)


def test_errors(suite):
    p = suite.path("e.csv")
    write(p, "id,temp_in,temp_out\n1,2,3\n4,5,6\n")
    expect_usage(suite, "no such name", [p, "-c", "nope"], "no column named 'nope'")
    expect_usage(suite, "no match", [p, "-c", "/^x/"], "no column name matches /^x/")
    expect_usage(suite, "exclude no match", [p, "-c", "!/^x/"], "/^x/")
    expect_usage(suite, "bad pattern", [p, "-c", "/[/"], "bad regular expression")
    expect_usage(suite, "nothing left", [p, "-c", "!1-3"], "leaves no column")
    expect_usage(suite, "empty item", [p, "-c", "1,,2"], "empty item")
    # Item 7: a header of numbers is no header; a name suggests --header.
    y = suite.path("years.csv")
    write(y, "year,2020,2021\nx,1,2\ny,3,4\n")
    expect_usage(suite, "header of numbers", [y, "-c", "year"], "'year'", "--header")
    expect_usage(suite, "header of numbers", [y, "-c", "2022"], "past the last", "--header")
    json_run(suite, "with --header", [y, "-c", "2021", "--header", "--json", "--all"], 2,
             [(3, "2021", ColRef(["2", "4"]))])
    # An empty input: no answer, whatever -c says (before: exit 0, silent).
    for args in (["-c", "zzz"], ["-c", "1"], []):
        rc, out, err = suite.run(args, stdin=b"")
        t = "empty input " + cmdline(args)
        suite.check(rc in (1, 2) and out == b"" and err.count("\n") == 1,
                    t + ": an error, one line", "status %d %r" % (rc, err))


def main():
    suite = Suite("e2e_select", sys.argv)
    suite.run_tests((test_model, test_same_column_twice, test_shared_names_across_files,
                     test_readme_columns, test_binary, test_errors))


if __name__ == "__main__":
    main()
