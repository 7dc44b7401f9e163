"""Histogram labels that read right (src/report/bars.c), parsed from the
table: each edge printed once (a row's lower edge is the text the row
before ends with), edges strictly increasing, the first edge the title's
minimum and the last its maximum, an integer column's edges integers
where its rows are at least 1 wide, and the counts adding up."""
import re
import sys
from fractions import Fraction

from harness import Suite

ROW = re.compile(r"^  ([\[(])(\S+), (\S+)([)\]])\s+(\d+)")
TITLE = re.compile(r"^(\S+) \(#\d+\): (\d+) bins? over \[(\S+), (\S+)\]")


def parse(text):
    """{name: (lo, hi, [(l, r, count), ...])} of the table's bar blocks,
    underflow and overflow rows left out."""
    out, cur = {}, None
    for line in text.splitlines():
        m = TITLE.match(line)
        if m:
            cur = out.setdefault(m.group(1), (m.group(3), m.group(4), []))
            continue
        m = ROW.match(line)
        if m and cur and "inf" not in (m.group(2), m.group(3)):
            cur[2].append((m.group(2), m.group(3), int(m.group(5))))
    return out


def values(rng, kind):
    n = rng.randrange(2, 2000)
    if kind == "int":
        lo = rng.randrange(-10**rng.randrange(1, 12), 10)
        hi = lo + rng.randrange(1, 10**rng.randrange(1, 12))
        return [str(rng.randrange(lo, hi + 1)) for _ in range(n)]
    scale = 10.0 ** rng.randrange(-8, 9)
    base = rng.uniform(-1000, 1000) * scale
    return [repr(base + rng.uniform(0, 37.3) * scale) for _ in range(n)]


def test_labels(s):
    for case in range(40):
        kinds = [s.rng.choice(["int", "float"]) for _ in range(3)]
        cols = [values(s.rng, k) for k in kinds]
        n = min(len(c) for c in cols)
        path = s.path(f"h{case}.csv")
        with open(path, "w") as f:
            f.write("c0,c1,c2\n")
            for i in range(n):
                f.write(",".join(c[i] for c in cols) + "\n")
        bins = s.rng.choice([None, 7, 40, 64, 256, 1000])
        args = ["--hist", path] + (["--bins", str(bins)] if bins else [])
        rc, out, err = s.run(args, timeout=120)
        if not s.check(rc == 0, f"case {case}: runs", err):
            continue
        tables = parse(out.decode())
        for k, kind in enumerate(kinds):
            name = f"c{k}"
            tag = f"case {case} {name} ({kind}, --bins {bins})"
            lo, hi, rows = tables.get(name, (None, None, []))
            vals = [Fraction(v) for v in cols[k][:n]]
            if min(vals) == max(vals):
                continue
            if not s.check(rows, f"{tag}: rows", out.decode()):
                continue
            check_rows(s, tag, lo, hi, rows, kind, vals, bins or 256,
                       out.decode())


def check_rows(s, tag, lo, hi, rows, kind, vals, nbins, text):
    s.check(rows[0][0] == lo and rows[-1][1] == hi,
            f"{tag}: the first edge is the title's minimum, the last its "
            "maximum", text)
    same = all(rows[i][0] == rows[i - 1][1] for i in range(1, len(rows)))
    s.check(same, f"{tag}: each row starts where the one before ends", text)
    edges = [Fraction(r[0]) for r in rows] + [Fraction(rows[-1][1])]
    s.check(all(a < b for a, b in zip(edges, edges[1:])),
            f"{tag}: edges strictly increase", text)
    # a row narrower than 1 need not hold an integer: no integer edges then
    g = (nbins + 31) // 32 if nbins > 40 else 1
    last = nbins - (len(rows) - 1) * g
    narrowest = (edges[-1] - edges[0]) * min(g, last) / nbins
    if kind == "int" and narrowest >= Fraction(101, 100):
        s.check(all(re.fullmatch(r"-?\d+", r[0]) for r in rows),
                f"{tag}: an integer column's edges are integers", text)
    s.check(sum(r[2] for r in rows) == len(vals), f"{tag}: counts", text)


def main():
    s = Suite("e2e_hist_labels", sys.argv)
    s.run_tests([test_labels])


if __name__ == "__main__":
    main()
