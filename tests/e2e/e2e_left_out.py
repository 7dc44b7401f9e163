#!/usr/bin/env python3
"""End-to-end: nothing left out in silence.

usage: python3 tests/e2e/e2e_left_out.py /path/to/colstat   (cwd = repo root)

Every column of the input is either in the answer or named, with why, in
one note on stderr: random columns of numbers, of text, of a null
spelling (NA, N/A, null, \\N, None, -, in any case) before numbers, of
numbers with a unit ('12%', '$31,359.32', '12 ms'), of grouped digits,
of null spellings alone, empty ones; from a file and from a pipe (where only the head is
sampled). The brief's case, 200,000 NA then 100,000 numbers, is named with
--null NA, and answered with it. The invalid-field warning suggests --null
when the field is a usual null spelling, and only then. Seed printed;
COLSTAT_SEED reproduces.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite, cmdline  # noqa: E402

NULLS = ["NA", "N/A", "null", "\\N", "None", "-", "NaN?"]
WORDS = ["alpha", "host-7", "x", "eu-west", "ok", "n/a maybe", "12a34"]


def spelling(rng):
    """A null spelling in a random case (NaN parses as a number: not one)."""
    w = rng.choice([n for n in NULLS if n != "NaN?"])
    return "".join(c.upper() if rng.random() < 0.5 else c.lower()
                   for c in w)


def opt(word):
    """--null WORD as the note writes it: quoted where the shell needs it."""
    return f"--null {word}" if re.fullmatch(r"[A-Za-z0-9/.]+", word) \
        else f"--null '{word}'"


def column(rng, kind, n):
    """n fields of a kind, and the reason the note must give (a pattern),
    or None when the column is answered."""
    if kind == "num":
        return [str(rng.randint(-999, 999)) for _ in range(n)], None
    if kind == "text":
        return [rng.choice(WORDS) for _ in range(n)], re.escape("(text)")
    if kind == "late_null":
        w = spelling(rng)
        k = rng.randint(n * 2 // 3, n - 1)
        return ([w] * k + [repr(rng.uniform(-5, 5)) for _ in range(n - k)],
                re.escape(f"(its fields are mostly '{w}': try {opt(w)})"))
    if kind == "unit":
        u = rng.choice(["%", "$", " ms", "kg", "\u20ac"])
        vals = [rng.uniform(-1e5, 1e5) for _ in range(n)]
        if u in ("$", "\u20ac"):
            f = [f"{u}{v:,.2f}" for v in vals]
        else:
            f = [f"{v:.1f}{u}" for v in vals]
        if u in ("%", " ms"):  # a unit colstat reads: answered in it
            return f, None
        # '$31,359.32' needs --thousands; 'kg' is no unit colstat reads
        return f, re.escape(f"(numbers with a unit '{u.strip()}')")
    if kind == "grouped":
        f = [f"{rng.randint(1000, 10**8):,}" for _ in range(n)]
        return f, re.escape("(numbers with digits grouped by ',': "
                            "see --thousands)")
    if kind == "all_null":  # sampled whole: --null would leave nothing
        w = spelling(rng)
        f = [rng.choice([w, ""]) for _ in range(n - 1)] + [w]
        return f, re.escape(f"(no numbers: fields such as '{w}')")
    if kind == "empty":
        return [""] * n, re.escape("(empty)")
    raise ValueError(kind)


def quote(f):
    return '"%s"' % f if "," in f or '"' in f else f


def write_case(rng, path):
    """A random CSV; returns (names, reasons) by column."""
    kinds = ["num"] + [rng.choice(["num", "text", "late_null", "unit",
                                   "grouped", "empty", "all_null"])
                       for _ in range(rng.randint(1, 7))]
    rng.shuffle(kinds)
    n = rng.randint(20, 300 if QUICK else 3000)
    cols, reasons = [], []
    for k in kinds:
        f, why = column(rng, k, n)
        cols.append(f)
        reasons.append(why)
    names = [f"c{j}_{k}" for j, k in enumerate(kinds)]
    lines = [",".join(names)] + [",".join(quote(c[i]) for c in cols)
                                for i in range(n)]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return names, reasons


def notes(err):
    return [ln for ln in err.splitlines() if ln.startswith("colstat: note:")]


def check_named(suite, tag, rc, out, err, names, reasons):
    """The answer's columns and the note's names are every column, once;
    each left out one with its reason."""
    if not suite.check(rc == 0, tag + " exits 0", err):
        return
    doc = json.loads(out)
    answered = {c["name"] for c in doc["columns"]}
    want = {nm for nm, why in zip(names, reasons) if why is None}
    suite.check(answered == want, tag + ": the numeric columns answered",
                f"got {sorted(answered)}, want {sorted(want)}")
    ns = notes(err)
    left = [(nm, why) for nm, why in zip(names, reasons) if why is not None]
    if not left:
        suite.check(ns == [], tag + ": no note when nothing is left out", err)
        return
    if not suite.check(len(ns) == 1, tag + ": one note line", err):
        return
    note = ns[0]
    for nm, why in left:
        pat = re.escape(f"'{nm}'") + r"(, '[^']*')*( and \d+ more)? " + why
        suite.check(re.search(pat, note) is not None,
                    f"{tag}: {nm} named with {why}", note)


def test_random(suite):
    rng = suite.rng
    for it in range(3 if QUICK else 8):
        p = suite.path(f"r{it}.csv")
        names, reasons = write_case(rng, p)
        args = [p, "--json"]
        rc, out, err = suite.run(args)
        check_named(suite, cmdline(args), rc, out, err, names, reasons)
        rc, out, err = suite.run(["-", "--json"], stdin=open(p, "rb").read())
        check_named(suite, f"cat {p} | colstat - --json", rc, out, err, names,
                    reasons)


def test_brief(suite):
    """200,000 NA then 100,000 numbers: named with --null NA (also with
    -v), answered with it; the other columns as they are."""
    p = suite.path("late.csv")
    with open(p, "w") as f:
        f.write("a,b,host\n")
        for i in range(300000):
            f.write("%s,%d,h%d\n" % ("NA" if i < 200000 else i % 97, i % 13,
                                     i % 5))
    for extra in ([], ["-v"]):
        rc, out, err = suite.run([p] + extra)
        want = ("colstat: note: left out: 'a' (its fields are mostly 'NA': "
                "try --null NA), 'host' (text)")
        suite.check(rc == 0 and want in err.splitlines(),
                    cmdline([p] + extra) + ": names a and host", err)
    rc, out, err = suite.run([p, "--null", "NA", "--json"])
    cols = {c["name"]: c for c in json.loads(out)["columns"]} if rc == 0 else {}
    suite.check(cols.get("a", {}).get("count") == 100000 and
                cols["a"]["missing"] == 200000,
                "--null NA answers a: 100000 values, 200000 missing",
                str(cols.get("a")))
    suite.check(notes(err) == ["colstat: note: left out: 'host' (text)"],
                "--null NA: host still named", err)


def test_invalid_null(suite):
    """A numeric column holding a few fields of a null spelling: the
    warning suggests --null with that spelling; another text does not."""
    rng = suite.rng
    for it in range(6):
        w = spelling(rng) if it % 3 else rng.choice(["oops", "1.2.3", "x"])
        n = rng.randint(10, 500)
        vals = [str(rng.randint(0, 99)) for _ in range(n)]
        at = sorted(rng.sample(range(n), rng.randint(1, n // 3)))
        for i in at:
            vals[i] = w
        p = suite.path(f"inv{it}.csv")
        with open(p, "w") as f:
            f.write("v\n" + "\n".join(vals) + "\n")
        rc, out, err = suite.run([p])
        warn = [ln for ln in err.splitlines() if "warning: column 'v'" in ln]
        line = at[0] + 2
        ok = len(warn) == 1 and warn[0].startswith(f"colstat: {p}:{line}: ")
        if it % 3:
            ok = ok and warn[0].endswith(
                f"; if it means a missing value, try {opt(w)})")
        else:
            ok = ok and "--null" not in warn[0]
        suite.check(ok, f"{cmdline([p])}: invalid {w!r} warned"
                    + (" with --null" if it % 3 else " without --null"), err)


def main():
    suite = Suite("e2e_left_out", sys.argv)
    suite.run_tests((test_random, test_brief, test_invalid_null))


if __name__ == "__main__":
    main()
