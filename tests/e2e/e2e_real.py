#!/usr/bin/env python3
"""End-to-end: the files people actually have.

usage: python3 tests/e2e/e2e_real.py /path/to/colstat     (cwd = repo root)

Generated fresh each run (seed printed; COLSTAT_SEED reproduces), each
checked against harness.py's exact reference (Fractions; the texts made
C-locale numbers first, by a reader written here) and, where a GPU is
usable, run again with --device gpu: stdout byte-identical.

- --null: random spellings (NA, N/A, null, -, \\N, -999 ...) with blanks
  and quotes around, near misses that stay invalid;
- --thousands / --decimal: numbers grouped (in threes, or anyhow) and with
  a decimal comma, quoted where they hold the delimiter, integers past
  2^53 kept exact; --decimal , with no -d detects ';';
- -W: aligned text with runs of spaces and tabs, blank lines, ragged
  rows; on the GPU the host parses it and -v says so;
- --digits: the table's numbers, 15 digits by default, N with --digits;
  TSV, CSV and JSON shortest unless --digits is given;
- --layout and the terminal: a pseudo-terminal at COLUMNS=60 and 200 (and
  a window of 60 columns without COLUMNS): line widths, the long blocks'
  content, the wide table piped whatever COLUMNS says;
- names of East Asian wide characters align by display width; bars in
  ASCII under LC_ALL=C;
- histograms with infinities: edges from the finite extremes, infinities
  as underflow and overflow; every table label contains each value of its
  row (exact bins in Fractions);
- --progress into a pipe: plain lines, no CR, no escape;
- the help lists every option, the bash completion offers every one.
"""
import fcntl
import math
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
import unicodedata
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (QUICK, ColRef, Suite, check_doc, cmdline,  # noqa: E402
                     gpu_available, number_text, parse_json)
from harness import NumFormat as Format  # noqa: E402
from harness import written  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NULL_WORDS = ["NA", "N/A", "null", "NULL", "-", "\\N", "-999", "n/a", "?",
              "#N/A"]


def run(suite, args, env=None, stdin=None):
    full = dict(os.environ)
    full.pop("COLUMNS", None)
    full.update(env or {})
    p = subprocess.run([suite.exe] + [str(a) for a in args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300, env=full)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def ok(suite, args, env=None, stdin=None):
    rc, out, err = run(suite, args, env, stdin)
    suite.check(rc == 0, f"{cmdline(args)} exits 0", f"status {rc}: {err.strip()}")
    return out, err


def devices(suite):
    if not hasattr(suite, "devs"):
        suite.devs = ["cpu", "gpu"] if gpu_available(suite) else ["cpu"]
        print(f"e2e_real: devices {suite.devs}", file=sys.stderr)
    return suite.devs


def on_every_device(suite, args, env=None):
    """Runs args on each device; checks the bytes agree; returns stdout
    (the CPU's) and the stderr of each."""
    outs, errs = {}, {}
    for dev in devices(suite):
        e = dict(env or {})
        if dev == "gpu" and suite.rng.random() < 0.5:
            e["COLSTAT_GPU_RAW_BYTES"] = str(suite.rng.choice([64, 97, 4096]))
        out, err = ok(suite, args + ["--device", dev, "-v"], e)
        outs[dev], errs[dev] = out, err
    if "gpu" in outs:
        suite.check(outs["gpu"] == outs["cpu"],
                    f"{cmdline(args)}: GPU bytes identical to the CPU's")
    return outs["cpu"], errs


# ------------------------------------------------------ numbers, written


def refs_for(fields_by_col, fmt):
    """ColRef of each column, the fields read as fmt says."""
    # the harness's classifier wants digits on both sides of '.'
    save = harness.classify
    harness.classify = classify_ext
    try:
        return [ColRef([fmt.canonical(f) for f in col]) for col in fields_by_col]
    finally:
        harness.classify = save


EXT_NUMBER_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


def classify_ext(field):
    s = field.strip(" \t")
    if s == "":
        return "missing", None
    if harness.NAN_RE.match(s):
        return "nan", None
    if harness.INF_RE.match(s):
        return "value", -math.inf if s[0] == "-" else math.inf
    if EXT_NUMBER_RE.match(s):
        return "value", float(s)
    return "invalid", None


def csv_field(text, delim):
    if any(c in text for c in (delim, '"', "\n", "\r")):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_csv(path, names, rows, delim, crlf=False):
    nl = "\r\n" if crlf else "\n"
    lines = [delim.join(csv_field(n, delim) for n in names)]
    for r in rows:  # a blank line would be no record: quote it
        lines.append('"' + r[0] + '"' if len(r) == 1 and not r[0].strip(" \t")
                     else delim.join(r))
    with open(path, "wb") as f:
        f.write((nl.join(lines) + nl).encode())


def check_json(suite, tag, out, nrows, names, refs, what, hist_opts=(256, None)):
    want = [(i + 1, names[i], refs[i]) for i in range(len(refs))]
    return check_doc(suite, tag, out, nrows, want, what, hist_opts)


ALL = {"count", "sum", "mean", "std", "min", "max", "hist", "median"}

# ----------------------------------------------------------------- --null


def test_null(suite):
    rng = suite.rng
    for case in range(4 if QUICK else 10):
        nulls = set(rng.sample(NULL_WORDS, rng.randint(1, 5)))
        fmt = Format(nulls=nulls)
        ncols, nrows = rng.randint(1, 4), rng.randint(1, 3000)
        delim = rng.choice([",", ";", "\t", "|"])
        names = [f"v{i + 1}" for i in range(ncols)]
        cols = [[] for _ in range(ncols)]
        rows = []
        for r in range(nrows):
            row = []
            for c in range(ncols):
                x = rng.random()
                if r == 0 or x < 0.7:
                    t = number_text(rng, rng.choice(["int", "dec"]))
                elif x < 0.85:
                    t = rng.choice(sorted(nulls))
                    t = rng.choice(["", " ", "\t"]) + t + rng.choice(["", "  "])
                elif x < 0.9:  # a near miss: invalid (or a number)
                    t = rng.choice(sorted(nulls)) + rng.choice(["x", "0", "."])
                elif x < 0.95:
                    t = rng.choice(["", " ", "abc", "nan"])
                else:
                    t = rng.choice(NULL_WORDS)
                cols[c].append(t)
                row.append(csv_field(t, delim) if rng.random() < 0.8
                           else '"' + t.replace('"', '""') + '"')
            rows.append(row)
        path = suite.path(f"null{case}.csv")
        write_csv(path, names, rows, delim)
        refs = refs_for(cols, fmt)
        args = [path, "--json", "-a", "--header", "-d", delim,
                "-c", f"1-{ncols}"] + fmt.args()
        out, errs = on_every_device(suite, args)
        check_json(suite, cmdline(args), out, nrows, names, refs, ALL)
    # the default: a spelling is invalid, no --null, as before
    path = suite.path("null-default.csv")
    write_csv(path, ["a", "b"], [["1", "1"], ["NA", "1"], ["", "1"], ["2", "1"]],
              ",")
    out, _ = ok(suite, [path, "--json", "--device", "cpu"])
    c = parse_json(out)["columns"][0]
    suite.check((c["missing"], c["invalid"]) == (1, 1),
                "without --null, NA is invalid and empty missing", c)


# ------------------------------------------------ --thousands, --decimal


def format_case(suite, rng, tag, fmt, delim, quote_all=False):
    ncols, nrows = rng.randint(1, 4), rng.randint(1, 4000)
    names = [f"n{i + 1}" for i in range(ncols)]
    kinds = [rng.choice(["int", "dec", "big"]) for _ in range(ncols)]
    cols = [[] for _ in range(ncols)]
    rows = []
    for r in range(nrows):
        row = []
        for c in range(ncols):
            x = rng.random()
            if kinds[c] == "big":  # integers past 2^53, exact as integers
                t = str(rng.choice([2**53 + rng.randint(-3, 3),
                                    2**64 - rng.randint(0, 2000),
                                    rng.randint(0, 2**64)]))
                t = rng.choice(["", "-"]) + t
            else:
                t = number_text(rng, kinds[c])
            t = written(rng, t, fmt.decimal, fmt.thousands)
            if r and x < 0.03:
                t = rng.choice(["", "abc", ",5,", "1..2", "nan", "inf"])
            if r and x > 0.98 and fmt.thousands:  # where none may stand
                t = fmt.thousands + t if rng.random() < 0.5 else t + fmt.thousands
            cols[c].append(t)
            row.append('"' + t + '"' if quote_all or rng.random() < 0.2
                       else csv_field(t, delim))
        rows.append(row)
    path = suite.path(tag + ".csv")
    write_csv(path, names, rows, delim, crlf=rng.random() < 0.2)
    refs = refs_for(cols, fmt)
    args = [path, "--json", "-a", "--header", "-c", f"1-{ncols}"] + fmt.args()
    if delim != ";" or fmt.decimal != "," or rng.random() < 0.5:
        args += ["-d", delim]
    out, errs = on_every_device(suite, args)
    check_json(suite, cmdline(args), out, nrows, names, refs, ALL)


def test_separators(suite):
    rng = suite.rng
    n = 3 if QUICK else 8
    for case in range(n):  # the American form, numbers quoted in CSV
        format_case(suite, rng, f"us{case}", Format(".", ","), ",",
                    quote_all=rng.random() < 0.5)
    for case in range(n):  # the European form, ';' (detected or given)
        format_case(suite, rng, f"eu{case}", Format(",", rng.choice([".", " ", None])), ";")
    for case in range(n):  # anything else, and nulls with it
        dec = rng.choice([".", ","])
        th = rng.choice([c for c in [",", ".", "'", "_", " "] if c != dec])
        fmt = Format(dec, th, rng.sample(NULL_WORDS, 2))
        format_case(suite, rng, f"any{case}", fmt, rng.choice(["\t", "|", ";"]))
    # the examples
    path = suite.path("issue.csv")
    with open(path, "w") as f:
        f.write('price,id\n"1,234.50","1,234,567,890,123,456,789"\n'
                '"1,713.16","18,446,744,073,709,551,615"\n')
    out, _ = ok(suite, [path, "--thousands", ",", "--json", "--device", "cpu"])
    p, i = parse_json(out)["columns"]
    suite.check(p["sum"] == float("2947.66") and p["invalid"] == 0,
                "the issue's grouped prices", p)
    suite.check(i["sum"] == 1234567890123456789 + 18446744073709551615 and
                i["min"]["value"] == 1234567890123456789 and
                i["max"]["value"] == 18446744073709551615,
                "grouped integers past 2^53 stay exact", i)
    path = suite.path("decimal.csv")
    with open(path, "w") as f:
        f.write("a;b\n1713,16;2\n0,1;3\n")
    out, _ = ok(suite, [path, "--decimal", ",", "--json", "--device", "cpu"])
    doc = parse_json(out)
    suite.check([c["name"] for c in doc["columns"]] == ["a", "b"] and
                doc["columns"][0]["sum"] == float("1713.26"),
                "--decimal , detects ';' and adds 1713,16 + 0,1 correctly rounded",
                doc)
    path = suite.path("issue.csv")
    out, _ = ok(suite, [path, "--thousands", ",", "--json", "-c", "1",
                        "--device", "cpu"])
    rc, _, err = run(suite, [path, "-W", "--thousands", " "])
    suite.check(rc == 2 and "--thousands" in err, "-W with a blank separator is a usage error", err)
    rc, _, err = run(suite, [path, "--thousands", ".", "--decimal", "."])
    suite.check(rc == 2, "the same separator twice is a usage error", err)


# ---------------------------------------------------------------------- -W


def test_whitespace(suite):
    rng = suite.rng
    for case in range(4 if QUICK else 10):
        ncols, nrows = rng.randint(1, 5), rng.randint(1, 3000)
        names = [rng.choice(["PID", "%CPU", "RSS", "size", "used"]) + str(i)
                 for i in range(ncols)]
        cols = [[] for _ in range(ncols)]
        lines = []
        widths = [rng.randint(4, 14) for _ in range(ncols)]

        def line_of(cells):
            out = rng.choice(["", " ", "   ", "\t"])
            for k, cell in enumerate(cells):
                pad = max(1, widths[k % ncols] - len(cell)) if k else 0
                out += (" " * pad if rng.random() < 0.8 else
                        rng.choice(["\t", " \t", "\t\t"])) + cell
            return out + rng.choice(["", " ", "\t"])

        lines.append(line_of(names))
        for r in range(nrows):
            if rng.random() < 0.03:
                lines.append(rng.choice(["", "  ", "\t"]))  # blank: no row
            k = ncols if r == 0 or rng.random() < 0.9 else rng.randint(1, ncols + 2)
            cells = []
            for c in range(k):
                t = number_text(rng, rng.choice(["int", "dec"]))
                if r and rng.random() < 0.03:
                    t = rng.choice(["abc", "-", "1e"])
                cells.append(t)
                if c < ncols:
                    cols[c].append(t)
            for c in range(k, ncols):
                cols[c].append("")
            lines.append(line_of(cells))
        nl = "\r\n" if rng.random() < 0.2 else "\n"
        path = suite.path(f"ws{case}.txt")
        with open(path, "w", newline="") as f:
            f.write(nl.join(lines) + nl)
        refs = refs_for(cols, Format())
        args = [path, "-W", "--json", "-a", "-c", f"1-{ncols}"]
        if rng.random() < 0.5:
            args.append("--header")
        out, errs = on_every_device(suite, args)
        check_json(suite, cmdline(args), out, nrows, names, refs, ALL)
        if "gpu" in errs:
            suite.check("whitespace-separated (-W): parsed on the host" in errs["gpu"],
                        f"{cmdline(args)} --device gpu -v says the host parses -W",
                        errs["gpu"][-400:])
    # ps-like output from stdin
    text = ("  PID TTY      STAT   TIME COMMAND\n"
            "    1 ?        Ss     0:03 /sbin/init splash\n"
            "  742 pts/0    R+     0:00 ps ax\n")
    out, _ = ok(suite, ["-", "-W", "--json", "--device", "cpu"], stdin=text.encode())
    doc = parse_json(out)
    suite.check([(c["name"], c["sum"]) for c in doc["columns"]] == [("PID", 743)],
                "-W reads ps output", doc)
    # two ps outputs joined (as `ps; ps` gives): the second header line is a
    # repeated header, no row, and rows are numbered as if given alone
    rng = suite.rng
    pids = [rng.randint(1, 99999) for _ in range(rng.randint(2, 6))]
    head = "  PID TTY      STAT   TIME COMMAND\n"
    part = "".join(f"{p:5d} ?        S      0:00 cmd\n" for p in pids)
    rc, out, err = run(suite, ["-", "-W", "--json", "--device", "cpu"],
                       stdin=(head + part + head + part).encode())
    doc = parse_json(out) if rc == 0 else {}
    cols = doc.get("columns", [])
    suite.check(rc == 0 and doc.get("rows") == 2 * len(pids) and
                [(c["name"], c["sum"], c["max"]["row"]) for c in cols] ==
                [("PID", 2 * sum(pids), pids.index(max(pids)) + 1)] and
                "repeated header line" in err,
                "-W: a repeated header line is skipped, rows numbered as if "
                "each part were given alone", (rc, doc, err))


# ------------------------------------------------------------- --digits


def table_cells(text):
    """Wide table: the header's titles and each row's cells."""
    lines = text.splitlines()
    head = lines[0].split()
    rows = []
    for ln in lines[1:]:
        if not ln.strip():
            break
        rows.append(ln.split())
    return head, rows


def test_digits(suite):
    rng = suite.rng
    path = suite.path("digits.csv")
    vals = [repr(rng.uniform(-1e6, 1e6)) for _ in range(50)] + ["75.189", "0.1", "0.2"]
    with open(path, "w") as f:
        f.write("x,y\n" + "".join(f"{v},{v}\n" for v in vals))
    # the median and quantiles too (they ignored --digits, and the table's
    # 15, before 2026-11-23: 0.0045000000000000005 in a table of 0.0045s)
    stats = ["--std", "--mean", "--sum", "--median", "--quantiles", "0.1,0.9"]
    jd = parse_json(ok(suite, [path, "--json", "--device", "cpu"] + stats)[0])
    for digits in (None, 3, 6, 15, 17):
        args = [path, "--layout", "wide", "--device", "cpu"] + stats
        if digits:
            args += ["--digits", digits]
        text = ok(suite, args)[0].decode()
        head, rows = table_cells(text)
        n = digits or 15
        col = jd["columns"][0]
        for k in ("sum", "mean", "std", "median", "q0.1", "q0.9"):
            got = float(rows[0][head.index(k)])
            v = jnum_(col["quantiles"][k[1:]] if k[0] == "q" else col[k])
            want = float("%.*e" % (n - 1, v))
            # (got == v passed an unrounded value: the quantiles' were)
            suite.check(got == want, f"{cmdline(args)}: {k} to {n} digits",
                        f"{got!r}, want {want!r}")
    # 0.1 + 0.2, exactly, is 0.30000000000000004: the table's default
    # hides the binary tail
    p2 = suite.path("digits2.csv")
    with open(p2, "w") as f:
        f.write("x\n0.1\n0.2\n")
    text = ok(suite, [p2, "--sum", "--device", "cpu"])[0].decode()
    suite.check(" 0.3\n" in text and "0.30000000000000004" not in text,
                "the table prints 0.3", text)
    for fmt in ("--json", "--tsv", "--csv"):
        text = ok(suite, [p2, "--sum", fmt, "--device", "cpu"])[0].decode()
        suite.check("0.30000000000000004" in text,
                    f"{fmt} keeps the shortest exact form", text)
        text = ok(suite, [p2, "--sum", fmt, "--digits", "4", "--device", "cpu"])[0].decode()
        suite.check("0.3" in text and "0.30000000000000004" not in text,
                    f"{fmt} --digits 4", text)
    p3 = suite.path("third.csv")
    with open(p3, "w") as f:
        f.write("x\n%r\n%r\n" % (1 / 3, 1 / 3))
    for fmt in ("json", "tsv", "csv", "table"):
        args = [p3, "--median", "--quantiles", "0.5", "-o", fmt, "--device",
                "cpu"]
        text = ok(suite, args + ["--digits", "4"])[0].decode()
        suite.check("0.3333" in text and "0.33333" not in text,
                    f"{fmt} --digits 4: the median and quantiles too", text)
        text = ok(suite, args)[0].decode()
        want = "0.333333333333333" if fmt == "table" else repr(1 / 3)
        suite.check(want in text and want + "3" not in text,
                    f"{fmt}: the median {want}", text)


def jnum_(x):
    return harness.jnum(x)


# ------------------------------------------------------- the terminal


def on_pty(suite, args, cols=None, env_columns=None, extra_env=None):
    """Runs colstat with stdout and stderr on a pseudo-terminal of cols
    columns (COLUMNS set when env_columns); returns what it printed."""
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # the bytes as written
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env["LANG"] = "C.UTF-8"
    env.pop("LC_ALL", None)
    if env_columns:
        env["COLUMNS"] = str(env_columns)
    env.update(extra_env or {})
    p = subprocess.Popen([suite.exe] + [str(a) for a in args], stdout=slave,
                         stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    p.wait(timeout=60)
    os.close(master)
    suite.check(p.returncode == 0, f"{cmdline(args)} on a terminal exits 0", out[-300:])
    return out.decode("utf-8", "replace")


def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in line)


def test_terminal(suite):
    rng = suite.rng
    path = suite.path("wide.csv")
    names = ["temperature_celsius", "pressure_hpa", "humidity", "wind"]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for _ in range(500):
            f.write(",".join(repr(rng.uniform(-1e4, 1e4)) for _ in names) + "\n")
    jd = parse_json(ok(suite, [path, "--json", "-a", "--device", "cpu"])[0])
    args = [path, "-a", "--bins", "20", "--device", "cpu"]
    for cols, how in ((60, "env"), (60, "window"), (200, "env")):
        text = on_pty(suite, args, cols=cols if how == "window" else 100,
                      env_columns=cols if how == "env" else None)
        tag = f"{cmdline(args)} on a {cols}-column terminal ({how})"
        lines = text.split("\n")
        over = [ln for ln in lines if width(ln) > cols]
        suite.check(not over, tag + ": no line wider than the terminal",
                    f"{len(over)} lines, e.g. {over[:1]!r}")
        if cols == 60:
            suite.check(not text.startswith("#"), tag + ": one block per column", text[:200])
            for c in jd["columns"]:
                block = re.search(r"(?m)^index +\d+\ncolumn +%s\n(?:\w+ +.*\n)+"
                                  % re.escape(c["name"]), text)
                if not suite.check(block is not None, tag + f": a block for {c['name']}", text[:400]):
                    continue
                kv = dict(ln.split(None, 1) for ln in block.group(0).splitlines())
                suite.check(int(kv["count"]) == c["count"] and
                            int(kv["min_row"]) == c["min"]["row"] and
                            float(kv["max"]) == float("%.14e" % c["max"]["value"]) and
                            kv["index"] == str(c["index"]),
                            tag + f": {c['name']}'s values", (kv, c))
        else:
            suite.check(text.startswith("#  column"), tag + ": the wide table", text[:200])
            head = text.split("\n")[0]
            suite.check(len(head) > 100, tag + ": as wide as it needs", head)
    # piped, whatever COLUMNS says: wide
    out, _ = ok(suite, args, env={"COLUMNS": "60"})
    suite.check(out.decode().startswith("#  column"), "piped output is the wide table")
    # --layout long and wide, forced
    text = on_pty(suite, args + ["--layout", "wide"], env_columns=60)
    suite.check(text.startswith("#  column"), "--layout wide on a narrow terminal")
    out, _ = ok(suite, args + ["--layout", "long"])
    suite.check(out.decode().startswith("index "), "--layout long into a pipe")


def test_names_and_charset(suite):
    path = suite.path("names.csv")
    names = ["价格", "数量x", "temp", "e\u0301t\u00e9", "日本語の列"]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n1,2,3,4,5\n6,7,8,9,10\n")
    text = ok(suite, [path, "--layout", "wide", "--device", "cpu"])[0].decode()
    lines = text.rstrip("\n").split("\n")
    # the name column is padded to one display width: every line as wide
    suite.check(len({width(ln) for ln in lines}) == 1,
                "names align by display width", text)
    h = ok(suite, [path, "--hist", "--bins", "3", "-c", "1", "--device", "cpu"],
           env={"LC_ALL": "C"})[0]
    bars = h.split(b"\n\n", 1)[1]
    suite.check(all(b < 0x80 for b in bars.split(b"\n", 1)[1]) and b"#" in bars,
                "LC_ALL=C: ASCII bars", bars)
    h = ok(suite, [path, "--hist", "--bins", "3", "-c", "1", "--device", "cpu"],
           env={"LC_ALL": "C.UTF-8"})[0]
    suite.check("\u2588".encode() in h, "UTF-8: block bars", h)


# --------------------------------------------------- histograms, labels


def row_labels(text, name):
    """The (label, count) rows of name's histogram in the table."""
    m = re.search(r"(?m)^%s \(#\d+\): .*\n((?:  .*\n?)*)" % re.escape(name), text)
    rows = []
    for ln in m.group(1).splitlines() if m else []:
        lab = re.match(r"  (\S.*?\S)  +(\d+)", ln)
        if lab:
            rows.append((lab.group(1), int(lab.group(2))))
    return rows


def num(t):
    return Fraction(t) if t not in ("inf", "-inf") else (math.inf if t == "inf" else -math.inf)


def test_hist_labels(suite):
    rng = suite.rng
    for case in range(5 if QUICK else 15):
        n = rng.randint(2, 2000)
        scale = 10.0 ** rng.randint(-6, 9)
        vals = []
        for _ in range(n):
            x = rng.random()
            if x < 0.03:
                vals.append(rng.choice(["inf", "-inf"]))
            elif x < 0.5:
                vals.append(repr(round(rng.uniform(-1, 1) * scale, rng.randint(0, 4))))
            else:
                vals.append(repr(rng.uniform(-1, 1) * scale))
        if case == 0:
            vals = ["inf", "-inf", "inf"]  # no finite value
        path = suite.path(f"hist{case}.csv")
        with open(path, "w") as f:
            f.write("v\n" + "\n".join(vals) + "\n")
        nbins = rng.choice([1, 2, 5, 10, 37, 100, 256])
        args = [path, "--hist", "--bins", nbins]
        jout, _ = on_every_device(suite, args + ["--json"])
        ref = refs_for([vals], Format())[0]
        check_json(suite, cmdline(args + ["--json"]), jout, n if case else 3, ["v"],
                   [ref], {"hist"}, (nbins, None))
        text = ok(suite, args + ["--device", "cpu"], env={"COLUMNS": "100"})[0].decode()
        h = parse_json(jout)["columns"][0]["hist"]
        rows = row_labels(text, "v")
        if h["lo"] is None:
            suite.check([r for r in rows] == [("[-inf, -inf]", ref.neg_inf),
                                              ("[inf, inf]", ref.pos_inf)],
                        "a column of infinities: their two rows", rows)
            continue
        lo, hi = Fraction(h["lo"]), Fraction(h["hi"])
        g = (nbins + 31) // 32 if nbins > 40 else 1
        nrows = (nbins + g - 1) // g
        if lo == hi:
            continue
        inner = [r for r in rows if not r[0].startswith(("[-inf", "(")) or
                 (r[0].startswith("(") and False)]
        inner = [r for r in rows if not r[0].startswith("[-inf") and
                 not r[0].endswith("inf]")]
        if not suite.check(len(inner) == nrows, f"{cmdline(args)}: {nrows} rows", text):
            continue
        parsed = []
        for lab, _ in inner:
            m = re.match(r"\[(\S+), (\S+)([)\]])\Z", lab)
            parsed.append((num(m.group(1)), num(m.group(2)), m.group(3)))
        # each edge printed once: the first the minimum, the last the
        # maximum, a row starting where the one before ends; the others
        # rounded, by less than a tenth of a row's width
        suite.check(float(parsed[0][0]) == float(lo) and
                    float(parsed[-1][1]) == float(hi),
                    f"{cmdline(args)}: the labels start at the minimum and end "
                    f"at the maximum", (inner[0], inner[-1], h["lo"], h["hi"]))
        suite.check(all(parsed[i][0] == parsed[i - 1][1] for i in range(1, nrows)),
                    f"{cmdline(args)}: each row starts where the one before ends",
                    text)
        tol = (hi - lo) * g / nbins / 10
        bad = []
        for v in (float(t) for t in vals):
            if not math.isfinite(v):
                continue
            fv = Fraction(v)
            b = min(math.floor((fv - lo) * nbins / (hi - lo)), nbins - 1)
            left, right, close = parsed[b // g]
            if not (left - tol <= fv and fv <= right + tol):
                bad.append((v, inner[b // g][0]))
        suite.check(not bad, f"{cmdline(args)}: every label holds its row's values "
                    "to within a tenth of a row",
                    bad[:3])
        # the counts agree with the JSON's bins
        counts = [sum(h["bins"][r * g:(r + 1) * g]) for r in range(nrows)]
        suite.check([c for _, c in inner] == counts, f"{cmdline(args)}: row counts", text)
        under = [c for lab, c in rows if lab.startswith("[-inf")]
        over = [c for lab, c in rows if lab.endswith("inf]")]
        suite.check(sum(under) == h["underflow"] == ref.neg_inf and
                    sum(over) == h["overflow"] == ref.pos_inf,
                    f"{cmdline(args)}: infinities under- and overflow", rows)


# ---------------------------------------------------------- --progress


def test_progress(suite):
    """Bytes trickle in for about 5 s, so progress lines appear (after
    the first second); into a pipe they are plain lines, one each 2 s."""
    line = ("1.5,2.5,3.5,4.5\n" * 4096).encode()
    p = subprocess.Popen([suite.exe, "-", "--progress", "--sum", "--device", "cpu",
                          "--no-header"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    t0 = time.time()
    while time.time() - t0 < 5:
        for _ in range(8):
            p.stdin.write(line)
        p.stdin.flush()
        time.sleep(0.05)
    p.stdin.close()
    out = p.stdout.read()
    err = p.stderr.read()
    p.wait()
    suite.check(p.returncode == 0 and out, "--progress into a pipe runs")
    suite.check(b"\r" not in err and b"\x1b" not in err,
                "--progress into a pipe: no CR, no escape sequence", err[:200])
    lines = [ln for ln in err.split(b"\n") if ln]
    suite.check(len(lines) >= 2 and all(ln.startswith(b"colstat: (standard input)")
                                       for ln in lines),
                "--progress into a pipe: a line each time", err[:300])


# -------------------------------------------------- help, completion


def test_help_and_completion(suite):
    help_text = ok(suite, ["--help"])[0].decode()
    longs = sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", help_text)))
    for o in ("--whitespace", "--null", "--thousands", "--decimal", "--digits",
              "--layout"):
        suite.check(o in longs, f"--help lists {o}")
    comp = os.path.join(ROOT, "completion", "colstat.bash")
    if not suite.check(os.path.exists(comp), "completion/colstat.bash exists"):
        return
    text = open(comp).read()
    missing = [o for o in longs if o not in text]
    suite.check(not missing, "the completion offers every long option of --help",
                missing)
    shorts = sorted(set(re.findall(r"(?<![\w-])-[a-zA-Z](?=[ ,])", help_text)))
    missing = [o for o in shorts if o not in text]
    suite.check(not missing, "the completion offers every short option", missing)
    # bash itself: the words offered after --layout, --format, --device
    for opt, want in (("--layout", {"auto", "wide", "long"}),
                      ("--format", {"table", "tsv", "csv", "json"}),
                      ("--device", {"auto", "cpu", "gpu"}),
                      ("--", {"--null", "--thousands", "--whitespace"})):
        words = ["colstat", opt, ""] if opt != "--" else ["colstat", "--"]
        script = (f"source {comp}; COMP_WORDS=({' '.join(repr(w) for w in words)}); "
                  f"COMP_CWORD={len(words) - 1}; COMP_LINE='{' '.join(words)}'; "
                  f"COMP_POINT=${{#COMP_LINE}}; _colstat; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        got = set(p.stdout.decode().split())
        suite.check(want <= got, f"bash completion after {opt!r}", (got, p.stderr[-200:]))


def main():
    suite = Suite("e2e_real", sys.argv)
    suite.run_tests([test_help_and_completion, test_null, test_separators,
                     test_whitespace, test_digits, test_terminal,
                     test_names_and_charset, test_hist_labels, test_progress])


if __name__ == "__main__":
    main()
