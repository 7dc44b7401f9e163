#!/usr/bin/env python3
"""End-to-end: date, datetime and unit columns.

usage: python3 tests/e2e/e2e_kinds.py /path/to/colstat     (cwd = repo root)

Random CSVs with a date column, a datetime column without zones, one with
zones (Z, +-hh:mm, +-hhmm, +-hh) and fractional seconds, over the years
0001 to 9999, a currency column with thousands separators ('$1,200.50',
'-$3', '$-4'), a '%' column and a ' ms' column, a plain number column and
a column of dates with a few numbers among them (invalid), missing fields
everywhere. The reference is Python's csv, datetime and fractions alone:
counts, min and max with their first row in ISO 8601 (zoned instants at
the offset their row was written in, 'Z' for a zero one), the span, the median and quantiles (in UTC with 'Z'; R type 7, exact, an
instant between two microseconds rounded to the nearest, halves away from
zero);
unit columns through the harness's exact number reference. Every input
path (one file, stdin, several files, gzip), --threads 1, 2 and 16; states
(--emit-state per file, --merge) and --mpi give one process's bytes; a
file whose date column holds numbers counts them invalid, with a warning
naming the first. Seed printed; COLSTAT_SEED reproduces."""
import csv
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, ColRef, Suite, cmdline, compare_column  # noqa: E402

EPOCH = datetime(1970, 1, 1)
US = timedelta(microseconds=1)
QS = ["0.1", "0.5", "0.9", "1"]


def month_days(y, m):
    if m == 2:
        return 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28
    return 30 if m in (4, 6, 9, 11) else 31


def draw_date(rng):
    era = rng.randrange(4)
    y = (rng.randint(1, 9999) if era == 0 else rng.choice([1, 2, 9998, 9999])
         if era == 1 else rng.randint(2020, 2026) if era == 2
         else rng.choice([1900, 2000, 2024, 2100]))
    m = rng.randint(1, 12)
    d = rng.randint(1, month_days(y, m)) if rng.random() < 0.8 else month_days(y, m)
    return y, m, d


def date_field(rng):
    """A date alone: its text and its instant (microseconds)."""
    y, m, d = draw_date(rng)
    return "%04d-%02d-%02d" % (y, m, d), (datetime(y, m, d) - EPOCH) // US


def datetime_field(rng, zoned):
    y, m, d = draw_date(rng)
    h, mi, s = rng.randrange(24), rng.randrange(60), rng.randrange(60)
    text = "%04d-%02d-%02d%s%02d:%02d" % (y, m, d, rng.choice("T T"), h, mi)
    us = 0
    if rng.random() < 0.8:
        text += ":%02d" % s
        if rng.random() < 0.5:
            digits = rng.randint(1, 9)
            kept = min(digits, 6)
            v = rng.randrange(10 ** kept)
            us = v * 10 ** (6 - kept)
            text += rng.choice(".,") + "%0*d" % (kept, v) + "0" * (digits - kept)
    else:
        s = 0
    off = 0
    if zoned and rng.random() < 0.9:
        form = rng.randrange(4)
        oh, om = rng.randrange(24), (rng.randrange(60) if form in (1, 2) else 0)
        sign = rng.choice([1, -1])
        off = 0 if form == 0 else sign * (oh * 60 + om)
        sg = "+" if sign > 0 else "-"
        text += ("Z" if form == 0 else "%s%02d:%02d" % (sg, oh, om) if form == 1
                 else "%s%02d%02d" % (sg, oh, om) if form == 2
                 else "%s%02d" % (sg, oh))
    inst = (datetime(y, m, d, h, mi, s, us) - EPOCH) // US - off * 60 * 10**6
    return text, inst


def iso(us, kind):
    day, rest = divmod(us, 86400 * 10**6)
    # a zone may take an instant to the years 0 or 10000, past datetime's:
    # the calendar repeats every 400 years (146097 days)
    cycles = -1 if day < -719162 else 1 if day > 2932896 else 0
    t = EPOCH + timedelta(days=day - cycles * 146097)
    text = "%04d-%02d-%02d" % (t.year + 400 * cycles, t.month, t.day)
    if kind == "date":
        return text
    secs, frac = divmod(rest, 10**6)
    text += "T%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    if frac:
        text += ("." + "%06d" % frac).rstrip("0")
    return text + ("Z" if kind == "zoned" else "")


ZONE = re.compile(r"^\s*\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?"
                  r"(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)?\s*$")


def written_offset(text):
    """The UTC offset, in minutes, a datetime's text was written in (0
    for Z, none, or no datetime)."""
    m = ZONE.match(text)
    if not m or not m.group(2):
        return 0
    v = int(m.group(3)) * 60 + int(m.group(4) or 0)
    return -v if m.group(2) == "-" else v


def iso_at(us, off):
    """The instant us as written at offset off: local time, then Z for a
    zero offset, else +hh:mm or -hh:mm."""
    text = iso(us + off * 60 * 10**6, "naive")
    if not off:
        return text + "Z"
    return text + "%s%02d:%02d" % ("-" if off < 0 else "+", abs(off) // 60,
                                   abs(off) % 60)


def span_text(us, kind):
    days, rest = divmod(us, 86400 * 10**6)
    if kind == "date":
        return "%dd" % days
    secs, frac = divmod(rest, 10**6)
    text = ("%dd " % days if days else "") + "%02d:%02d:%02d" % (
        secs // 3600, secs // 60 % 60, secs % 60)
    return text + (("." + "%06d" % frac).rstrip("0") if frac else "")


def seconds_text(us):
    s, frac = divmod(us, 10**6)
    return str(s) + (("." + "%06d" % frac).rstrip("0") if frac else "")


def quantile_us(vals, q):
    """R type 7 over the sorted instants, exact; an instant between two
    microseconds rounded to the nearest, halves away from zero."""
    v = sorted(vals)
    h = (len(v) - 1) * Fraction(q)
    k = int(h)
    x = v[k] + (h - k) * ((v[k + 1] if k + 1 < len(v) else v[k]) - v[k])
    m = abs(x)
    r = int(m) + (1 if m - int(m) >= Fraction(1, 2) else 0)
    return r if x >= 0 else -r


class DateRef:
    def __init__(self, fields, kind):
        self.kind = kind
        self.missing = self.invalid = 0
        self.vals = []  # (row, instant)
        self.offs = {}  # row: the offset it was written in
        for row, (text, inst) in enumerate(fields, start=1):
            if text.strip() == "":
                self.missing += 1
            elif inst is None:
                self.invalid += 1
            else:
                self.vals.append((row, inst))
                self.offs[row] = written_offset(text)

    def extreme(self, row, inst):
        """min's or max's value: a zoned instant at its row's offset."""
        if self.kind == "zoned":
            return iso_at(inst, self.offs[row])
        return iso(inst, self.kind)


def check_dates(suite, tag, jc, ref, name):
    def chk(ok, what, got, want):
        return suite.check(ok, f"{tag}: {name} {what}",
                           f"got {got!r}, want {want!r}")
    want_type = "date" if ref.kind == "date" else "datetime"
    chk(jc.get("type") == want_type, "type", jc.get("type"), want_type)
    for k in ("sum", "mean", "std", "hist"):
        chk(k not in jc, f"no {k}", sorted(jc), "absent")
    chk(jc.get("count") == len(ref.vals), "count", jc.get("count"),
        len(ref.vals))
    for k in ("missing", "invalid"):
        chk(jc.get(k) == getattr(ref, k), k, jc.get(k), getattr(ref, k))
    if not ref.vals:
        chk(jc.get("min") is None and jc.get("span") is None, "no value",
            jc, None)
        return
    lo = min(ref.vals, key=lambda p: (p[1], p[0]))
    hi = max(ref.vals, key=lambda p: (p[1], -p[0]))
    for k, (row, inst) in (("min", lo), ("max", hi)):
        want = {"value": ref.extreme(row, inst), "row": row}
        chk(jc.get(k) == want, k, jc.get(k), want)
    span = hi[1] - lo[1]
    want = {"seconds": json.loads(seconds_text(span)),
            "text": span_text(span, ref.kind)}
    chk(jc.get("span") == want, "span", jc.get("span"), want)
    vals = [v for _, v in ref.vals]
    want = iso(quantile_us(vals, "0.5"), ref.kind)
    chk(jc.get("median") == want, "median", jc.get("median"), want)
    got = jc.get("quantiles") or {}
    for q in QS:
        want = iso(quantile_us(vals, q), ref.kind)
        chk(got.get(q) == want, "quantile " + q, got.get(q), want)


def money(rng):
    cents = rng.randint(-10**9, 10**9)
    sign = "-" if cents < 0 else ""
    whole, c = divmod(abs(cents), 100)
    grouped = "{:,}".format(whole)
    text = grouped + (".%02d" % c if rng.random() < 0.7 else "")
    number = sign + text.replace(",", "")
    form = rng.randrange(3)
    field = ("%s$%s" % (sign, text) if form == 0 or not sign
             else "$%s%s" % (sign, text) if form == 1 else sign + "$" + text)
    return field, number


def unit_field(rng, unit):
    v = "%d.%d" % (rng.randint(-9999, 9999), rng.randrange(10)) \
        if rng.random() < 0.5 else str(rng.randint(-10**6, 10**6))
    return v + unit, v


def make_case(rng, nrows):
    """Columns: (name, kind, fields); a field is (text, value)."""
    cols = {"d": [], "naive": [], "zoned": [], "price": [], "pct": [],
            "lat": [], "n": [], "mixed": []}
    for i in range(nrows):
        miss = rng.random() < 0.05
        cols["d"].append(("", None) if miss else date_field(rng))
        cols["naive"].append(("", None) if rng.random() < 0.05 else
                             datetime_field(rng, False))
        cols["zoned"].append(datetime_field(rng, True))
        cols["price"].append(("", "") if rng.random() < 0.05 else money(rng))
        cols["pct"].append(unit_field(rng, "%"))
        cols["lat"].append(unit_field(rng, rng.choice(["ms", " ms"])))
        x = str(rng.randint(-1000, 1000))
        cols["n"].append((x, x))
        # dates, and past the sampled head a few numbers: invalid there
        if (i > 40 and rng.random() < 0.03) or i == nrows - 1:
            cols["mixed"].append((str(rng.randint(1, 99)), None))
        else:
            cols["mixed"].append(date_field(rng))
    return cols


def write_csv(path, cols, rows):
    names = list(cols)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(names)
    for i in rows:
        w.writerow([cols[c][i][0] for c in names])
    data = buf.getvalue().encode()
    with open(path, "wb") as fh:
        fh.write(data)
    return data


DATES = {"d": "date", "naive": "naive", "zoned": "zoned", "mixed": "date"}
UNITS = {"price": "$", "pct": "%", "lat": "ms", "n": None}
ARGS = ["--json", "--thousands", ",", "--median", "--quantiles",
        ",".join(QS), "--min", "--max", "--count", "--sum"]


def check_doc(suite, tag, out, cols):
    try:
        doc = json.loads(out)
    except ValueError as e:
        suite.check(False, tag + ": JSON", str(e))
        return
    by = {c["name"]: c for c in doc["columns"]}
    if not suite.check(set(by) == set(cols), tag + ": every column answered",
                       sorted(by)):
        return
    for name, fields in cols.items():
        if name in DATES:
            check_dates(suite, tag, by[name], DateRef(fields, DATES[name]),
                        name)
            continue
        jc = by[name]
        unit = UNITS[name]
        suite.check(jc.get("type") == "number" and jc.get("unit") == unit,
                    f"{tag}: {name} type and unit", jc)
        ref = ColRef([v for _, v in fields])
        compare_column(suite, tag, jc, ref, name, jc.get("index"),
                       ["count", "sum", "min", "max", "median",
                        ("quantiles",) + tuple(QS)], None)


def test_paths(suite):
    rng = suite.rng
    for it in range(2 if QUICK else 4):
        n = rng.randint(60, 300 if QUICK else 2000)
        cols = make_case(rng, n)
        p = suite.path("k%d.csv" % it)
        data = write_csv(p, cols, range(n))
        threads = rng.choice(["1", "2", "16"])
        rc, out, err = suite.run(ARGS + ["--threads", threads, p])
        if suite.check(rc == 0, cmdline(ARGS + [p]) + " exits 0", err):
            check_doc(suite, cmdline(ARGS + ["--threads", threads, p]), out,
                      cols)
            suite.check("not an ISO 8601 date" in err and "'mixed'" in err,
                        "the mixed column's numbers are named", err)
        for t in ("1", "2", "16"):
            r2 = suite.run(ARGS + ["--threads", t, "-"], stdin=data)
            suite.check(r2[0] == 0 and r2[1] == out,
                        f"stdin, --threads {t}: the file's bytes", r2[2])
        g = p + ".gz"
        with gzip.open(g, "wb") as fh:
            fh.write(data)
        r2 = suite.run(ARGS + [g])
        suite.check(r2[1] == out, "gzip: the file's bytes", r2[2])
        # several files: each with the header, rows split between them
        cuts = sorted(rng.sample(range(1, n), 2))
        parts = []
        for j, (a, b) in enumerate(zip([0] + cuts, cuts + [n])):
            q = suite.path("k%d_%d.csv" % (it, j))
            write_csv(q, cols, range(a, b))
            parts.append(q)
        r2 = suite.run(ARGS + ["--threads", threads] + parts)
        suite.check(r2[0] == 0 and r2[1] == out,
                    "three files: one file's bytes", r2[2])
        states(suite, parts, out)


def states(suite, parts, want):
    """--part K/3 --emit-state, --merge: one process's bytes (every part
    samples the first file from its start, so the kinds agree); --mpi the
    same where mpirun is."""
    args = [a for a in ARGS if a not in ("--median", "--quantiles")]
    args = [a for a in args if a != ",".join(QS)]
    _, one, _ = suite.run(args + parts)
    sts = []
    for j in range(1, 4):
        rc, st, err = suite.run(["--part", "%d/3" % j, "--emit-state"] +
                                args[1:] + parts)
        s = suite.path("s%d.st" % j)
        with open(s, "wb") as fh:
            fh.write(st)
        sts.append(s)
    rc, out, err = suite.run(["--merge", "--json"] + sts)
    suite.check(rc == 0 and out == one, "--merge of 3 parts' states: one "
                "process's bytes", err)
    mpi = shutil.which("mpirun")
    exe = os.path.join(os.path.dirname(suite.exe), "colstat-mpi")
    if not mpi or not os.path.exists(exe):
        return
    cmd = ["mpirun", "--quiet", "--oversubscribe", "-n", "2"]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(cmd + [suite.exe, "--mpi"] + ARGS + parts,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300, env=env)
    suite.check(p.returncode == 0 and p.stdout == want,
                "mpirun -n 2 colstat --mpi: one process's bytes",
                p.stderr.decode("utf-8", "replace"))


def test_numbers_later(suite):
    """The kind is the first file's: a later file's numbers in a date
    column are invalid, with the warning naming the first."""
    a, b = suite.path("a.csv"), suite.path("b.csv")
    with open(a, "w") as fh:
        fh.write("when,v\n2024-03-01,1\n2024-03-05,2\n")
    with open(b, "w") as fh:
        fh.write("when,v\n17,3\n2024-02-01,4\n")
    rc, out, err = suite.run(["--json", a, b])
    doc = json.loads(out) if rc == 0 else {"columns": [{}]}
    c = doc["columns"][0]
    suite.check(c.get("type") == "date" and c.get("invalid") == 1 and
                c.get("min") == {"value": "2024-02-01", "row": 4},
                "a date column with a number in the second file", out)
    suite.check(b + ":2: warning: column 'when': 1 field is not an ISO 8601 "
                "date" in err, "the warning names the number's line", err)


def test_units_mixed(suite):
    """Mixed units are not converted: the other unit's fields are invalid,
    the warning names the column's unit and shows the first."""
    p = suite.path("mixed_units.csv")
    with open(p, "w") as fh:
        fh.write("lat\n" + "".join("%dms\n" % i for i in range(1, 30)) +
                 "2s\n7ms\n")
    rc, out, err = suite.run(["--json", p])
    c = json.loads(out)["columns"][0] if rc == 0 else {}
    suite.check(c.get("unit") == "ms" and c.get("invalid") == 1 and
                c.get("count") == 30 and c.get("max", {}).get("value") == 29,
                "ms column with one field in s", out)
    suite.check("not a number in ms" in err and "'2s'" in err,
                "the warning names the unit and the field", err)
    rc, out, err = suite.run([p])
    suite.check(b"lat (ms)" in out, "the table shows the unit beside the "
                "name", out)
    rc, out, err = suite.run(["-v", p])
    suite.check("column 'lat': number in ms" in err and
                "units seen: ms, s (not converted" in err,
                "-v names the units the sample saw", err)
    rc, out, err = suite.run(["--strict", p])
    suite.check(rc == 1 and out == b"" and err == "colstat: %s:31: column "
                "'lat': '2s' is not a number in ms\n" % p,
                "--strict: the other unit's field is the error", err)
    d = suite.path("strict_dates.csv")
    with open(d, "w") as fh:
        fh.write("ts\n" + "2024-01-01\n" * 20 + "2024-02-30\n")
    rc, out, err = suite.run(["--strict", d])
    suite.check(rc == 1 and err == "colstat: %s:22: column 'ts': "
                "'2024-02-30' is not an ISO 8601 date\n" % d,
                "--strict: a day past the month's end is the error", err)


def test_decimal(suite):
    """--decimal and --thousands apply to numbers with a unit."""
    p = suite.path("eu.csv")
    rows = ["1.234,5 %", "-0,25 %", "12 %", "7,125%"]
    with open(p, "w") as fh:
        fh.write("rate;n\n" + "".join("%s;1\n" % r for r in rows))
    rc, out, err = suite.run(["--json", "--decimal", ",", "--thousands", ".",
                              "-c", "rate", "--sum", "--min", "--max", p])
    c = json.loads(out)["columns"][0] if rc == 0 else {}
    want_sum = float(Fraction("1234.5") + Fraction("-0.25") + 12 +
                     Fraction("7.125"))
    suite.check(c.get("unit") == "%" and c.get("sum") == want_sum and
                c.get("min") == {"value": -0.25, "row": 2} and
                c.get("max") == {"value": 1234.5, "row": 1},
                "1.234,5 % with --decimal , --thousands .", out + err.encode())


def test_headerless(suite):
    """A file of timestamps alone, without a header: its first record is
    data (dates are no names), from a file and from stdin."""
    p = suite.path("noheader.csv")
    text = "2024-03-05T01:00:00Z\n2024-03-01T00:00:00Z\n2024-03-09T00:00:00Z\n"
    with open(p, "w") as fh:
        fh.write(text)
    for args, stdin in (([p, "--json"], None), (["-", "--json"], text.encode())):
        rc, out, err = suite.run(args, stdin=stdin)
        c = json.loads(out)["columns"][0] if rc == 0 else {}
        suite.check(c.get("name") == "1" and c.get("count") == 3 and
                    c.get("max") == {"value": "2024-03-09T00:00:00Z", "row": 3},
                    cmdline(args) + ": no header, three instants", out + err.encode())


def test_verbose(suite):
    p = suite.path("v.csv")
    with open(p, "w") as fh:
        fh.write("t,p\n2024-03-01T12:00:00Z,5%\n2024-03-02T12:00:00+01:00,7%\n")
    rc, out, err = suite.run(["-v", p])
    suite.check("column 't': datetime" in err and "column 'p': number in %"
                in err, "-v says each column's kind and why", err)
    suite.check("2024-03-01T12:00:00Z" in out.decode() and "1d 00:00:00" not
                in out.decode() and "23:00:00" in out.decode(),
                "the table: instants in UTC, the span", out)


def test_profile_instants(suite):
    """--distinct, --mode and --top of a date and a datetime column count
    instants (a zone's spelling and a fraction's zeros are one instant)
    and print them in ISO 8601, against collections.Counter."""
    from collections import Counter
    rng = suite.rng
    pool = [datetime_field(rng, True) for _ in range(rng.randint(1, 12))]
    days = [date_field(rng) for _ in range(rng.randint(1, 12))]
    rows = [(rng.choice(pool), rng.choice(days))
            for _ in range(rng.randint(1, 300))]
    p = suite.path("prof.csv")
    with open(p, "w") as fh:
        fh.write("t,d\n" + "".join('"%s",%s\n' % (a[0], b[0]) for a, b in rows))
    k = rng.randint(1, 5)
    rc, out, err = suite.run(["--json", "--distinct", "--mode", "--top",
                              str(k), p])
    doc = json.loads(out) if rc == 0 else {"columns": [{}, {}]}
    # a column none of whose fields carries a zone (the pool's draw leaves
    # it off one time in ten) is of plain datetimes, printed without Z
    any_zone = any(ZONE.match(a[0]).group(1) or ZONE.match(a[0]).group(2)
                   for a, _ in rows)
    first = "zoned" if any_zone else "datetime"
    for i, (kind, vals) in enumerate(((first, [a[1] for a, _ in rows]),
                                      ("date", [b[1] for _, b in rows]))):
        got = doc["columns"][i]
        cnt = Counter(vals)
        order = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))
        top = [{"value": iso(v, kind), "count": c} for v, c in order[:k]]
        want_kind = "date" if kind == "date" else "datetime"
        suite.check(got.get("type") == want_kind and
                    got.get("distinct") == len(cnt) and
                    got.get("mode") == top[0] and got.get("top") == top,
                    f"{kind} column: distinct, mode and top {k} as instants",
                    json.dumps(got) + " want " + json.dumps(top))


if __name__ == "__main__":
    Suite("e2e_kinds", sys.argv).run_tests(
        [test_paths, test_numbers_later, test_units_mixed, test_decimal,
         test_headerless,
         test_verbose, test_profile_instants])
