"""The table on a terminal of COLUMNS 80, 60 and 200 (a pseudo-terminal,
so that colstat lays it out for a screen): every line fits the width; at
80 the default statistics of 4 columns stay a table of a line per column
(short titles, fewer digits), not a block per column; at 200 the table is
the one a pipe gets. Every value read back from the table agrees with the
JSON document's, at full precision, within the digits it shows."""
import json
import math
import os
import pty
import re
import select
import subprocess
import sys
from fractions import Fraction

from harness import Suite

# a title of the table, full or short, and the JSON key it shows
TITLES = {"count": "count", "n": "count", "sum": "sum", "mean": "mean",
          "std": "std", "min": "min", "max": "max", "median": "median",
          "med": "median", "missing": "missing", "miss": "missing",
          "invalid": "invalid", "inval": "invalid", "nan": "nan",
          "min_row": "min_row", "max_row": "max_row"}


def run_tty(s, args, columns):
    """colstat's stdout on a pseudo-terminal: (status, text)."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns))
    p = subprocess.Popen([s.exe] + args, stdout=slave, stderr=subprocess.PIPE,
                         env=env)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the slave closed: EIO on Linux
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.stderr.read()
    rc = p.wait(timeout=60)
    return rc, out.decode().replace("\r\n", "\n")


def write_case(s, path):
    """4 numeric columns of many-digit values, some missing and invalid."""
    rng = s.rng
    names = ["temperature_c", "humidity_pct", "pressure_hpa", "wind_ms"]
    scale = [(10, 30), (30, 80), (990, 1030), (0, 25)]
    rows = rng.randint(2000, 20000)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for _ in range(rows):
            cells = []
            for lo, hi in scale:
                u = rng.random()
                cells.append("" if u < 0.002 else "ERR" if u < 0.004 else
                             repr(round(rng.uniform(lo, hi),
                                        rng.randint(1, 6))))
            f.write(",".join(cells) + "\n")
    return names


def parse_wide(text):
    """{name: {title: text}} of a table of a line per column; the row
    number after min (max) is min_row (max_row), whatever its title."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    titles = lines[0].split()
    keys, last = [], None
    for t in titles:
        key = TITLES.get(t, t)
        if t in ("row", "min_row", "max_row"):
            key = last + "_row"
        keys.append(key)
        last = key
    got = {}
    for ln in lines[1:]:
        cells = ln.split()
        row = dict(zip(keys, cells))
        got[row["column"]] = row
    return got


def parse_long(text):
    got = {}
    for block in text.strip("\n").split("\n\n"):
        row = {}
        for ln in block.split("\n"):
            k, v = ln.split(None, 1)
            row[TITLES.get(k, k)] = v.strip()
        got[row["column"]] = row
    return got


def shown_digits(text):
    m = re.fullmatch(r"-?(\d*)\.?(\d*)(?:e[+-]?\d+)?", text)
    return len((m.group(1) + m.group(2)).lstrip("0")) if m else 0


def agrees(text, want):
    """text is want rounded to the digits text shows (or want exactly)."""
    if isinstance(want, dict):
        want = want["value"]
    if isinstance(want, int) and re.fullmatch(r"-?\d+", text) and \
            abs(want) < 10 ** 15:
        return int(text) == want
    got, exact = Fraction(text), Fraction(want)
    if got == exact:
        return True
    d = max(shown_digits(text), 1)
    ulp = Fraction(10) ** (math.floor(math.log10(abs(float(want)))) - d + 1)
    return abs(got - exact) <= ulp / 2 * (1 + Fraction(1, 10 ** 9))


def check_values(s, tag, got, doc):
    for col in doc["columns"]:
        row = got.get(col["name"])
        if not s.check(row is not None, f"{tag}: column {col['name']} shown",
                       repr(got)):
            continue
        for key in ("count", "sum", "mean", "min", "max", "missing",
                    "invalid"):
            if key in row:
                s.check(agrees(row[key], col[key]), f"{tag}: {col['name']} "
                        f"{key} {row[key]} agrees with {col[key]}")
        for key in ("min", "max"):
            if key + "_row" in row:
                s.check(int(row[key + "_row"]) == col[key]["row"],
                        f"{tag}: {col['name']} {key}_row")


def test_widths(s):
    path = s.path("w.csv")
    names = write_case(s, path)
    rc, out, err = s.run([path, "--json"])
    doc = json.loads(out)
    rc, piped, err = s.run([path])
    piped = piped.decode()
    for width in (80, 60, 200):
        rc, text = run_tty(s, [path], width)
        tag = f"COLUMNS={width}"
        if not s.check(rc == 0, f"{tag}: exit 0", text):
            continue
        too_wide = [ln for ln in text.split("\n") if len(ln) > width]
        s.check(not too_wide, f"{tag}: every line fits", repr(too_wide))
        wide = text.lstrip().startswith("#")
        lines = [ln for ln in text.split("\n") if ln]
        if width >= 80:
            s.check(wide and len(lines) == len(names) + 1, f"{tag}: a table "
                    f"of a line per column, not {len(lines)} lines", text)
        if width == 200:
            s.check(text == piped, f"{tag}: the table a pipe gets",
                    f"{text!r}\n{piped!r}")
        got = parse_wide(text) if wide else parse_long(text)
        check_values(s, tag, got, doc)


def test_digits_kept(s):
    """--digits given is kept: a table that needs fewer goes long."""
    path = s.path("d.csv")
    write_case(s, path)
    rc, text = run_tty(s, [path, "--digits", "15"], 80)
    s.check(rc == 0 and text.startswith("index"), "COLUMNS=80 --digits 15: "
            "the digits asked for, in blocks", text)


def main():
    s = Suite("e2e_table_width", sys.argv)
    s.run_tests([test_widths, test_digits_kept])


if __name__ == "__main__":
    main()
