#!/usr/bin/env python3
"""End-to-end: colstat's output formats and informational options.

usage: python3 tests/e2e/e2e_formats.py /path/to/colstat     (cwd = repo root)

TSV and CSV have a header row and one row per column, agreeing with the
JSON document; the -o spellings and the --tsv/--csv/--json shorthands give
the same bytes; the table runs (with and without histograms, narrow and
wide COLUMNS); JSON follows the contract (keys always present, keys not
asked absent, null for undefined, "inf"/"-inf"/"nan" strings, exact integer
sums, numbers in their shortest round-trip form); --help and --version exit
0. Seed printed; COLSTAT_SEED reproduces.
"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CsvCase, Suite, cmdline, jnum, parse_json  # noqa: E402

OPTIONS = ["--columns", "--delimiter", "--header", "--no-header", "--binary",
           "--count", "--sum", "--mean", "--std", "--min", "--max", "--hist",
           "--all", "--bins", "--range", "--format", "--tsv", "--csv", "--json",
           "--device", "--threads", "--strict", "--progress", "--no-progress",
           "--verbose", "--help", "--version"]


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode())


def ok_run(suite, args, env=None):
    p = subprocess.run([suite.exe] + [str(a) for a in args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120, env=env)
    err = p.stderr.decode("utf-8", "replace")
    suite.check(p.returncode == 0, f"{cmdline(args)} exits 0",
                f"status {p.returncode}: {err.strip()}")
    return p.stdout


def test_info(suite):
    for flag in ("--help", "-h"):
        out = ok_run(suite, [flag]).decode()
        suite.check("colstat" in out, f"colstat {flag} names the program")
        missing = [o for o in OPTIONS if o not in out]
        suite.check(not missing, f"colstat {flag} lists every long option",
                    f"missing {missing}")
    for flag in ("--version", "-V"):
        out = ok_run(suite, [flag]).decode()
        suite.check(re.search(r"colstat.*\d", out) is not None,
                    f"colstat {flag} prints a name and version", repr(out))


def delimited(suite, path, cols, fmt_args, sep):
    """Parses TSV/CSV output; checks its shape against the JSON doc."""
    jdoc = parse_json(ok_run(suite, [path, "--json", "--all"] + cols))
    text = ok_run(suite, [path, "--all"] + cols + fmt_args).decode()
    tag = cmdline([path, "--all"] + cols + fmt_args)
    if sep == ",":
        rows = list(csv.reader(io.StringIO(text, newline="")))
    else:
        rows = [line.split("\t") for line in text.splitlines()]
    jc = jdoc["columns"]
    if not suite.check(len(rows) == len(jc) + 1, tag + ": a header row and one row per column",
                       f"{len(rows)} rows for {len(jc)} columns"):
        return
    head = [h.strip().lower() for h in rows[0]]
    suite.check(all(len(r) == len(head) for r in rows), tag + ": rows as wide as the header",
                [len(r) for r in rows])
    for stat in ("count", "sum", "mean", "std", "min", "max"):
        suite.check(any(stat in h for h in head), tag + f": header names {stat}", head)
    for row, c in zip(rows[1:], jc):
        suite.check(c["name"] in row, tag + f": row names column {c['name']!r}", row)
        for key in ("count", "missing", "invalid", "nan", "sum", "mean", "min", "max"):
            if key in head and len(row) == len(head):
                got = row[head.index(key)]
                want = c.get(key)
                if isinstance(want, dict):
                    want = want.get("value")
                same = (got == "" and want is None) or (
                    want is not None and got not in ("", "null") and
                    (int(got) == want if isinstance(want, int)
                     and re.fullmatch(r"-?\d+", got) else
                     float(got) == jnum(want) or
                     (math.isnan(float(got)) and math.isnan(jnum(want)))))
                suite.check(same, tag + f": {key} of {c['name']!r} as in JSON",
                            f"{got!r} vs {want!r}")
    return text


def test_delimited(suite):
    rng = suite.rng
    p = suite.path("f.csv")
    case = CsvCase(rng, p, rng.randint(5, 200), ncols=rng.randint(2, 6), delim=",")
    cols = ["-c", ",".join(map(str, case.numeric_indices())), "-d", ",", "--header"]
    t1 = delimited(suite, p, cols, ["--tsv"], "\t")
    t2 = delimited(suite, p, cols, ["-o", "tsv"], "\t")
    t3 = delimited(suite, p, cols, ["--format=tsv"], "\t")
    suite.check(t1 == t2 == t3, "--tsv, -o tsv and --format=tsv agree")
    c1 = delimited(suite, p, cols, ["--csv"], ",")
    c2 = delimited(suite, p, cols, ["-o", "csv"], ",")
    suite.check(c1 == c2, "--csv and -o csv agree")
    j1 = ok_run(suite, [p, "--json"] + cols)
    j2 = ok_run(suite, [p, "-o", "json"] + cols)
    suite.check(j1 == j2, "--json and -o json agree")
    # Names holding the delimiter come back whole from CSV output.
    q = suite.path("names.csv")
    write(q, '"a,b","say ""x""",plain\n1,2,3\n4,5,6\n')
    out = ok_run(suite, [q, "--csv"]).decode()
    rows = list(csv.reader(io.StringIO(out, newline="")))
    head = [h.lower() for h in rows[0]] if rows else []
    at = next((head.index(k) for k in ("name", "column") if k in head), 0)
    names = [r[at] for r in rows[1:]]
    suite.check(names == ["a,b", 'say "x"', "plain"],
                "CSV output quotes names holding commas and quotes", names)


def test_table(suite):
    rng = suite.rng
    p = suite.path("t.csv")
    case = CsvCase(rng, p, rng.randint(5, 300), ncols=rng.randint(2, 5), delim=",")
    idx = case.numeric_indices()
    cols = ["-c", ",".join(map(str, idx)), "--header"]
    for extra in ([], ["--all"], ["--hist", "--bins", "16"], ["-o", "table"]):
        for width in ("40", "120"):
            env = dict(os.environ, COLUMNS=width)
            out = ok_run(suite, [p] + cols + extra, env=env).decode()
            suite.check(all(case.cols[i - 1].name in out for i in idx),
                        f"COLUMNS={width} {cmdline([p] + cols + extra)}: names every column")


def test_width_clamped(suite):
    """COLUMNS past any screen draws bars no wider than 1000."""
    p = suite.path("wbars.csv")
    write(p, "a\n" + "".join(f"{i % 7}\n" for i in range(200)))
    for width in ("1000000000", "99999", "2000"):
        env = dict(os.environ, COLUMNS=width)
        out = ok_run(suite, [p, "--hist", "--bins", "4"], env=env).decode()
        widest = max(len(line) for line in out.split("\n"))
        suite.check(widest <= 1000, f"COLUMNS={width} --hist: lines of at "
                    "most 1000 characters", widest)


SIG = re.compile(r"-?(\d*)\.?(\d*)(?:[eE][+-]?\d+)?\Z")


def sig_digits(text):
    m = SIG.match(text)
    if not m:
        return None
    return len((m.group(1) + m.group(2)).strip("0"))


def shortest_floats(suite, tag, raw):
    """Every non-integer number in raw JSON has as few significant digits
    as Python's repr (the shortest that reads back) and reads back."""
    bad = []

    def pf(s):
        v = float(s)
        if sig_digits(s) != sig_digits(repr(v)):
            bad.append((s, repr(v)))
        return v
    json.loads(raw.decode(), parse_float=pf)
    suite.check(not bad, tag + ": numbers in shortest round-trip form", bad[:5])


def test_json_contract(suite):
    p = suite.path("j.csv")
    # A double (2^62 + 2^10); twice it plus one needs 64 bits: only an
    # exact integer sum prints it.
    big = 2**62 + 1024
    write(p, "a,b,c,d,e\n"
             f"1,nan,5,{big},0.1\n"
             f"2,,x,{big},0.2\n"
             f"inf,x,y,1,0.30000000000000004\n")
    raw = ok_run(suite, [p, "--json", "--all", "-c", "1-5"])
    doc = parse_json(raw)
    cols = {c["name"]: c for c in doc["columns"]}
    suite.check(doc["rows"] == 3, "rows", doc["rows"])
    suite.check(list(cols) == list("abcde"), "columns in order", list(cols))
    for c in doc["columns"]:
        for k in ("name", "index", "missing", "invalid", "nan", "count", "sum",
                  "mean", "std", "min", "max", "hist"):
            suite.check(k in c, f"key {k} present in column {c.get('name')}", list(c))
    a, b, cc, d, e = (cols[k] for k in "abcde")
    suite.check(a["sum"] == "inf" and a["mean"] == "inf", "inf as the string \"inf\"",
                (a["sum"], a["mean"]))
    suite.check(a["max"] == {"value": "inf", "row": 3}, "max inf, row 3", a["max"])
    suite.check(a["min"] == {"value": 1, "row": 1}, "min 1, row 1", a["min"])
    suite.check(b["count"] == 0 and b["nan"] == 1 and b["missing"] == 1 and
                b["invalid"] == 1, "b: counts of nan, missing, invalid", b)
    suite.check(b["mean"] is None and b["std"] is None, "b: undefined is null", b)
    suite.check(b["min"] is None or b["min"].get("value") is None, "b: min null", b)
    suite.check(cc["std"] is None and cc["mean"] == 5, "c: std of one value null", cc)
    suite.check(d["sum"] == 2 * big + 1 and isinstance(d["sum"], int),
                "exact integer sum beyond 2^53", d["sum"])
    m = re.search(rb'"sum"\s*:\s*(-?[0-9]+)\s*[,}]', raw[raw.index(b'"d"'):])
    suite.check(m is not None and int(m.group(1)) == 2 * big + 1,
                "integer sum printed as digits", m and m.group(1))
    suite.check(e["sum"] == float(sum(map(Fraction,
                                          [0.1, 0.2, 0.30000000000000004]))),
                "e: sum exact then rounded once", e["sum"])
    suite.check(e["min"] == {"value": 0.1, "row": 1}, "e: min 0.1", e["min"])
    shortest_floats(suite, cmdline([p, "--json", "--all"]), raw)
    # Keys not asked for are absent.
    doc = parse_json(ok_run(suite, [p, "--json", "--max", "-c", "e"]))
    c = doc["columns"][0]
    suite.check(set(c) == {"name", "index", "type", "missing", "invalid", "nan",
                           "max"},
                "--max: only max besides the always-present keys", sorted(c))
    # -inf and both infinities.
    q = suite.path("inf.csv")
    write(q, "v,w\n-inf,inf\n3,-inf\n")
    doc = parse_json(ok_run(suite, [q, "--json", "--all"]))
    v, w = doc["columns"]
    suite.check(v["sum"] == "-inf" and v["min"] == {"value": "-inf", "row": 1},
                "-inf as the string \"-inf\"", v)
    suite.check(w["sum"] in ("nan", None), "inf + -inf: sum \"nan\" (or null)", w["sum"])
    # Random data: shortest forms everywhere.
    r = suite.path("r.csv")
    case = CsvCase(suite.rng, r, 300, ncols=5, delim=",")
    raw = ok_run(suite, [r, "--json", "--all", "--header", "-c",
                         ",".join(map(str, case.numeric_indices()))])
    shortest_floats(suite, cmdline([r, "--json", "--all"]), raw)


def test_integer_columns(suite):
    """The issue's examples: an integer column prints its sum, min and max
    as exact integers in every format (rows of the true extremes); a column
    mixing in a decimal prints doubles."""
    p = suite.path("ns.csv")
    write(p, "ns,big,mixed\n"
             "1735704000123456789,9007199254740993,9007199254740993\n"
             "1735704000123456790,9007199254740993,9007199254740993\n"
             "1735704000123456791,1,0.5\n")
    raw = ok_run(suite, [p, "--json", "--sum", "--mean", "--std", "--min", "--max"])
    want = [b'"sum": 5207112000370370370, "mean": 1.7357040001234568e+18, "std": 1',
            b'"min": {"value": 1735704000123456789, "row": 1}, '
            b'"max": {"value": 1735704000123456791, "row": 3}',
            b'"sum": 18014398509481987, ',
            b'"min": {"value": 1, "row": 3}, '
            b'"max": {"value": 9007199254740993, "row": 1}',
            b'"sum": 1.8014398509481984e+16, ',
            b'"max": {"value": 9007199254740992, "row": 1}']
    for w in want:
        suite.check(w in raw, "integer JSON holds " + w.decode(), raw.decode())
    tsv = ok_run(suite, [p, "--tsv", "--sum", "--min", "--max"]).decode()
    suite.check("ns\t1\t5207112000370370370\t1735704000123456789\t1\t"
                "1735704000123456791\t3\t" in tsv, "integer TSV", tsv)
    table = ok_run(suite, [p, "--sum", "--min", "--max"], env={"COLUMNS": "200"})
    suite.check(b"1735704000123456791" in table and b"18014398509481987" in table,
                "integer table", table.decode())


def test_sum_of_nothing(suite):
    """A column without a value (every field invalid, missing or NaN, in
    random proportions) has no sum, as it has no mean: null in JSON, an
    empty field in TSV and CSV, '-' in the table; its neighbour's sum is
    there."""
    rng = suite.rng
    n = rng.randint(1, 300)
    pool = ["x", "n/a", "", " ", "nan", "abc"]
    fields = [rng.choice(pool) for _ in range(n)]
    # one NaN at least: without it no field reads as a number, and the
    # column is text (seed 2212822611: 'abc' and three blanks), which has
    # no sum to be null
    fields[rng.randrange(n)] = "nan"
    rows = ["e,v"] + [f"{x},{i}" for i, x in enumerate(fields)]
    p = suite.path("nothing.csv")
    write(p, "\n".join(rows) + "\n")
    args = [p, "-c", "e,v", "--sum", "--mean", "--count"]
    doc = json.loads(ok_run(suite, args + ["--json"]))
    e, v = doc["columns"]
    suite.check(e["sum"] is None and e["mean"] is None and e["count"] == 0,
                "JSON: sum of no value is null", (e["sum"], e["mean"]))
    suite.check(v["sum"] == n * (n - 1) // 2, "JSON: the other column's sum",
                v["sum"])
    for fmt, sep in (("--tsv", "\t"), ("--csv", ",")):
        lines = ok_run(suite, args + [fmt]).decode().splitlines()
        head = lines[0].split(sep)
        row = dict(zip(head, lines[1].split(sep)))
        suite.check(row["sum"] == "" and row["mean"] == "",
                    f"{fmt}: sum of no value is empty", lines[1])
    table = ok_run(suite, args, env=dict(os.environ, COLUMNS="200")).decode()
    cells = table.splitlines()[1].split()
    suite.check(cells[:5] == ["1", "e", "0", "-", "-"],
                "table: sum of no value is '-'", table)


def test_stderr_only(suite):
    """-v, --progress, --no-progress and -j change nothing on stdout."""
    p = suite.path("v.csv")
    CsvCase(suite.rng, p, 2000, ncols=3, delim=",")
    base = ok_run(suite, [p, "--json", "--all"])
    for extra in (["-v"], ["--verbose"], ["--progress"], ["--no-progress"],
                  ["-j", "1"], ["--threads=2"], ["--device", "cpu"],
                  ["--device=auto"]):
        out = ok_run(suite, [p, "--json", "--all"] + extra)
        suite.check(out == base, f"{cmdline([p, '--json', '--all'] + extra)}: "
                    "stdout as without it")


def main():
    suite = Suite("e2e_formats", sys.argv)
    suite.run_tests((test_info, test_delimited, test_table, test_width_clamped, test_json_contract,
                     test_integer_columns, test_sum_of_nothing, test_stderr_only))


if __name__ == "__main__":
    main()
