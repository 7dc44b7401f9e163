#!/usr/bin/env python3
"""Differential fuzzer, for bug hunts (no ctest runs it): random CSVs
(quotes, CRLF, BOM, blank and ragged lines, NaN/inf, huge and long
numbers, units, dates, unicode, duplicate names, 1,000 columns, and with
FUZZ_MALFORM stray quotes and cuts), colstat run over the same bytes from
a file, stdin, a pipe, a slow writer, gzip/zstd/xz/bz2 files, gzip on
stdin (small pieces too), two files, --threads 1, 2, 16, --memory 64K,
small quantile selections, --part K/N + --merge and --mpi (FUZZ_MPI, the
share of cases): status and stdout compared byte for byte with the file's
--threads 1 run, stderr's form checked (one 'colstat: ' line an error);
plainly numeric columns against an exact reference (fractions: count, sum,
mean, min, max and their rows, median). Differences the man page allows
are left out: a kind picked from the first input's sample, the refusals
of states, -g past --memory. A failure prints the input's path.
usage: diff_fuzz.py COLSTAT SECONDS [SEED] (seed printed; FUZZ_LEVEL=asan
leaves out mpirun and compresses one way a case)"""
import bz2, csv, gzip, io, json, lzma, math, os, random, subprocess, sys
import tempfile, time
from fractions import Fraction

EXE = os.path.abspath(sys.argv[1])
MPI = os.path.join(os.path.dirname(EXE), "colstat-mpi")
SECS = float(sys.argv[2])
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else random.SystemRandom().randrange(1 << 32)
LEVEL = os.environ.get("FUZZ_LEVEL", "full")
print(f"fuzz: seed {SEED}", flush=True)
TMP = tempfile.mkdtemp(prefix="hunt-")
FAILS = []
NRUNS = [0]


def run(args, stdin=None, timeout=60, shell=False, env=None):
    NRUNS[0] += 1
    e = dict(os.environ)
    if env:
        e.update(env)
    try:
        p = subprocess.run(args, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           shell=shell, env=e)
    except subprocess.TimeoutExpired:
        return ("TIMEOUT", b"", "timeout")
    return (p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


# ------------------------------------------------------------ generators

def num_text(r, kind):
    if kind == "int":
        c = r.random()
        if c < 0.05:
            return str(r.choice([2**63, 2**64, -2**63, 2**64 + 1, -(2**64), 2**70]))
        if c < 0.1:
            return "0" * r.randrange(1, 4) + str(r.randrange(1000))
        if c < 0.15:
            return str(r.randrange(-10**18, 10**18))
        return str(r.randrange(-1000, 1000))
    c = r.random()
    if c < 0.05:
        return repr(r.choice([1e308, -1e308, 5e-324, 1e-320, 2.2250738585072014e-308]))
    if c < 0.08:
        return "".join(r.choice("0123456789") for _ in range(r.randrange(20, 60))) + "." + "".join(r.choice("0123456789") for _ in range(r.randrange(1, 40)))
    if c < 0.12:
        return r.choice(["1e3", "-2.5E-3", ".5", "5.", "+7", "-0", "0.000", "1e-5"])
    if c < 0.2:
        return str(r.randrange(-100, 100))
    return repr(r.uniform(-1e6, 1e6) if r.random() < 0.7 else r.gauss(0, 1))


def special(r):
    return r.choice(["NaN", "nan", "inf", "-inf", "Infinity", "-Infinity", "NA", "abc",
                     "1,5", "1e", "--1", "0x10", " ", ""])


def date_text(r, zone):
    y, m, d = r.randrange(1, 10000), r.randrange(1, 13), r.randrange(1, 29)
    if not zone:
        return f"{y:04d}-{m:02d}-{d:02d}"
    s = f"{y:04d}-{m:02d}-{d:02d}T{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}"
    if r.random() < 0.3:
        s += "." + str(r.randrange(10**6)).zfill(r.choice([1, 3, 6]))[:r.choice([1, 3, 6])]
    z = r.random()
    if zone == 2 and z < 0.7:
        s += r.choice(["Z", "+01:00", "-05:30", "+0200", "+03"])
    return s


def text_text(r):
    c = r.random()
    if c < 0.3:
        return r.choice(["apple", "Banana", "cherry", "δ", "日本", "a b", " x ", "x"])
    if c < 0.45:
        return r.choice(["a,b", "line\nbreak", "q\"uote", "crlf\r\nin", "tab\tin"])
    if c < 0.5:
        return ""
    return "".join(r.choice("abcdefgXYZ éü") for _ in range(r.randrange(1, 12)))


def unit_text(r, unit):
    v = num_text(r, r.choice(["int", "float"]))
    if v.startswith("-") and unit in "$€":
        return "-" + unit + v[1:]
    return unit + v if unit in "$€" else v + unit


class Col:
    def __init__(self, r):
        self.kind = r.choice(["int", "int", "float", "float", "mixed", "text",
                              "date", "datetime", "unit", "dirty"])
        self.unit = r.choice(["$", "%", "ms", "KB", "€"])
        self.missing = r.random() * 0.2 if r.random() < 0.5 else 0
        self.pad = r.random() < 0.2
        self.zone = r.choice([1, 2])

    def field(self, r):
        if self.missing and r.random() < self.missing:
            return r.choice(["", " "]) if r.random() < 0.8 else "NA"
        k = self.kind
        if k == "mixed":
            k = r.choice(["int", "float"])
        if k in ("int", "float"):
            v = num_text(r, k)
        elif k == "text":
            v = text_text(r)
        elif k == "date":
            v = date_text(r, 0)
        elif k == "datetime":
            v = date_text(r, self.zone)
        elif k == "unit":
            v = unit_text(r, self.unit)
        else:
            v = special(r) if r.random() < 0.2 else num_text(r, "float")
        if self.pad and r.random() < 0.3:
            v = " " + v + "  "
        return v


def quote(r, f, d):
    need = any(c in f for c in (d, '"', "\n", "\r"))
    if need or any(c in f for c in ",;|\t") or r.random() < 0.05:
        return '"' + f.replace('"', '""') + '"'
    return f


def gen(r):
    big = r.random()
    ncols = 1000 if big < 0.03 else (1 if big < 0.15 else r.randrange(2, 7))
    nrows = r.choice([0, 1, 2, 3, 5, 10, 50, 200, 1000, 5000])
    if r.random() < 0.05:
        nrows = r.choice([30000, 100000])
    if ncols == 1000:
        nrows = min(nrows, 50)
    cols = [Col(r) for _ in range(ncols)]
    d = r.choice([",", ",", ",", "\t", ";", "|"])
    eol = "\r\n" if r.random() < 0.2 else "\n"
    header = r.random() < 0.8
    names = []
    for i in range(ncols):
        n = r.choice(["a", "b", "price", "temp_1", "név", "x y", "dup", "dup", "q,c", f"c{i}"])
        names.append(n if ncols < 50 else f"c{i}")
    rows = []
    for _ in range(nrows):
        row = [c.field(r) for c in cols]
        if r.random() < 0.01:
            row = row[:r.randrange(0, len(row) + 1)]
        elif r.random() < 0.01:
            row = row + ["9"]
        rows.append(row)
    lines = []
    if header:
        lines.append(d.join(quote(r, n, d) for n in names))
    blank = r.random() < 0.1
    for row in rows:
        if blank and r.random() < 0.05:
            lines.append("")
        lines.append(d.join(quote(r, f, d) for f in row))
    text = eol.join(lines)
    if lines and r.random() < 0.85:
        text += eol
    data = text.encode()
    if r.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    meta = dict(cols=cols, rows=rows, header=header, d=d, names=names, eol=eol)
    if data and r.random() < float(os.environ.get("FUZZ_MALFORM", "0.15")):
        meta["malformed"] = True
        for _ in range(r.randrange(1, 4)):
            k = r.randrange(len(data) + 1)
            m = r.choice([b'"', b'"', b'\r', b'\n', b'"x', b'x"', b'""', b'\r\n"'])
            data = data[:k] + m + data[k:]
        if r.random() < 0.3:
            data = data[:r.randrange(len(data) + 1)]
    return data, meta


# ------------------------------------------------------------ variants

def compress(data, how, path):
    if how == "gz":
        raw = gzip.compress(data, compresslevel=1)
    elif how == "bz2":
        raw = bz2.compress(data)
    elif how == "xz":
        raw = lzma.compress(data)
    else:
        raw = subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE).stdout
    with open(path, "wb") as f:
        f.write(raw)
    return raw


def slow_cmd(path):
    return (f"python3 -c \"import sys,time\nd=open('{path}','rb').read()\n"
            f"for i in range(0,len(d),4093):\n sys.stdout.buffer.write(d[i:i+4093]);"
            f"sys.stdout.buffer.flush();time.sleep(0.001)\" | ")


def split_files(data, meta, path):
    """Two files at a record boundary, each with the header; or None."""
    if not meta["header"] or len(meta["rows"]) < 2 or data.startswith(b"\xef"):
        return None
    r = meta["r"]
    lines = data.split(meta["eol"].encode())
    # only safe where no quoted field spans a line: regenerate? cheap test
    if any(b'"' in l for l in lines):
        return None
    k = r.randrange(2, len(lines))
    h = lines[0]
    a = meta["eol"].encode().join(lines[:k]) + meta["eol"].encode()
    b = meta["eol"].encode().join([h] + lines[k:])
    if b.endswith(meta["eol"].encode() + meta["eol"].encode()):
        return None
    p1, p2 = path + ".1.csv", path + ".2.csv"
    open(p1, "wb").write(a)
    open(p2, "wb").write(b)
    return [p1, p2]


def stderr_ok(rc, err):
    lines = [l for l in err.split("\n") if l]
    for l in lines:
        if not l.startswith("colstat: "):
            return False
    if rc not in (0, 1, 2):
        return False
    if rc != 0:
        errs = [l for l in lines if not l.startswith("colstat: warning") and not l.startswith("colstat: note")]
        if len(errs) != 1:
            return False
    return True


def fail(what, detail, data_path):
    FAILS.append(what)
    print(f"FAIL {what}\n   input {data_path}\n   {detail}", flush=True)


def differential(r, data, meta, case):
    path = os.path.join(TMP, f"c{case}.csv")
    open(path, "wb").write(data)
    opts = r.choice([["--json"], ["--json", "-a"], ["--json", "--median", "--std"],
                     ["--json", "--distinct", "--mode", "--top", "3"],
                     ["--json", "-a", "--distinct", "--mode", "--top", "2"],
                     ["--tsv", "-a"], ["--csv"], [], ["--json", "--quantiles", "0,0.1,0.5,0.999,1"],
                     ["--json", "-g", "1"], ["--json", "-g", "1", "--median", "--sum"],
                     ["--json", "-g", "1,2", "-a"], ["--json", "--no-header", "-a"],
                     ["--json", "--hist", "--bins", "7"], ["--json", "--hist", "--range", "-10:10", "--count"],
                     ["--json", "--digits", "3", "--median"], ["--list-columns"], ["--json", "-c", "!1", "--std"],
                     ["--layout", "long", "-a"], ["--json", "-W", "--median"], ["--json", "-g", "2", "--distinct", "--mode"],
                     ["--json", "--top", "1", "--median", "--no-header"], ["--tsv", "-g", "1", "--top", "2"]])
    if r.random() < 0.15:
        opts = opts + ["--null", "NA,-"]
    if r.random() < 0.1:
        opts = opts + ["--strict"]
    meta["opts"] = opts
    base = [EXE] + opts
    variants = {}
    variants["file-j1"] = run(base + ["-j", "1", path])
    ref = variants["file-j1"]
    if ref[0] == "TIMEOUT":
        fail("timeout file-j1", opts, path)
        return
    if not stderr_ok(ref[0], ref[2]):
        fail("stderr form file-j1", f"{opts} rc={ref[0]} {ref[2]!r}", path)
    if ref[0] not in (0, 1, 2) or ref[0] < 0:
        fail("crash", f"{opts} rc={ref[0]}", path)
    paths = []
    for j in ("2", "16"):
        paths.append((f"file-j{j}", base + ["-j", j, path], None, False))
    paths.append(("stdin-j2", base + ["-j", "2"], data, False))
    paths.append(("stdin-dash-j16", base + ["-j", "16", "-"], data, False))
    paths.append(("pipe-j2", "cat " + path + " | " + " ".join(map(q, base + ["-j", "2"])), None, True))
    if r.random() < 0.3:
        paths.append(("slowpipe-j16", slow_cmd(path) + " ".join(map(q, base + ["-j", "16"])), None, True))
    for how in r.sample(["gz", "bz2", "xz", "zst"], 2 if LEVEL == "full" else 1):
        cp = path + "." + how
        raw = compress(data, how, cp)
        paths.append((f"{how}-j{2}", base + ["-j", r.choice(["1", "2", "16"]), cp], None, False))
        if how == "gz":
            paths.append(("gzstdin", base + ["-j", "2"], raw, False))
    clean = all(c.kind in ("int", "float", "mixed", "date") and not c.missing for c in meta["cols"])
    sp = split_files(data, meta, path) if clean and "--no-header" not in opts else None
    if sp:
        paths.append(("split2", base + ["-j", "2"] + sp, None, False))
    envs = {}
    if "-g" not in opts:
        paths.append(("mem64k-j2", base + ["-j", "2", "--memory", "64K", path], None, False))
    if r.random() < 0.5:
        paths.append(("qsel-j2", base + ["-j", "2", path], None, False))
        envs["qsel-j2"] = {"COLSTAT_QSEL": "4,16"}
        if "-g" not in opts:
            paths.append(("stdin-mem64k-j16", base + ["-j", "16", "--memory", "64K"], data, False))
    if r.random() < 0.4:
        cp = path + ".piece.gz"
        raw = compress(data, "gz", cp)
        paths.append(("gzpiece-j16", base + ["-j", "16", cp], None, False))
        envs["gzpiece-j16"] = {"COLSTAT_GZIP_PIECE": str(r.choice([64, 1000, 5000])), "COLSTAT_GZIP_THREADS": "3"}
        paths.append(("gzpiece-stdin", base + ["-j", "2"], raw, False))
        envs["gzpiece-stdin"] = envs["gzpiece-j16"]
    for name, args, stdin, shell in paths:
        got = run(args, stdin=stdin, shell=shell, env=envs.get(name))
        if got[0] != ref[0] or got[1] != ref[1]:
            # a message naming the file differs; compare only status and stdout
            fail(f"diff {name}", f"{opts} rc {ref[0]} vs {got[0]}\n   ref err {ref[2][:300]!r}\n   got err {got[2][:300]!r}\n   stdout differ: {got[1] != ref[1]}", path)
            show_diff(ref[1], got[1])
        elif not stderr_ok(got[0], got[2]):
            fail(f"stderr form {name}", f"{got[2][:400]!r}", path)
    noparts = any(o in opts for o in ("-a", "--median", "--quantiles", "--hist", "--list-columns")) or "-g" in opts and any(o in opts for o in ("--top", "--mode", "--distinct"))
    if ref[0] == 0 and not noparts:
        parts_merge(r, path, opts, ref, sp)
    if ref[0] in (0, 1) and not ("-g" in opts and noparts) and "--list-columns" not in opts and r.random() < (float(os.environ.get("FUZZ_MPI", "0.15")) if LEVEL == "full" else 0.0):
        n = r.choice([2, 3])
        got = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(n), EXE, "--mpi"] + opts + ["-j", "1", path], timeout=120)
        if got[0] != ref[0] or got[1] != ref[1]:
            fail(f"diff mpi-{n}", f"{opts} rc {got[0]} err {got[2][:500]!r}", path)
            show_diff(ref[1], got[1])
        else:
            cl = lambda t: [l for l in t.split("\n") if l.startswith("colstat: ")]
            if cl(got[2]) != cl(ref[2]):
                fail(f"stderr mpi-{n}", f"{opts} want {cl(ref[2])!r}\n   got {cl(got[2])!r}", path)
    if ref[0] == 0 and opts[:1] == ["--json"] and not any(o in opts for o in ("-g", "--no-header", "-W", "--digits")):
        reference(meta, ref[1], path)


def parts_merge(r, path, opts, ref, sp):
    n = r.choice([2, 3, 5])
    states = []
    statopts = [o for o in opts if o not in ("--json", "--tsv", "--csv")]
    for k in range(1, n + 1):
        sfile = f"{path}.p{k}.state"
        got = run([EXE] + statopts + ["-j", r.choice(["1", "2"]), "--part", f"{k}/{n}", f"--emit-state={sfile}", path])
        if got[0] != 0:
            if "--strict" in opts or "-g" in opts and ("--distinct" in opts or "--mode" in opts):
                return
            fail(f"part {k}/{n} rc", f"{opts} {got[0]} {got[2][:400]!r}", path)
            return
        states.append(sfile)
    order = list(states)
    got = run([EXE, "--merge"] + order + [o for o in opts if o != "--strict"])
    if got[0] != ref[0] or got[1] != ref[1]:
        fail(f"diff merge-{n}", f"{opts} rc {got[0]} err {got[2][:400]!r}", path)
        show_diff(ref[1], got[1])


def q(s):
    import shlex
    return shlex.quote(s)


def show_diff(a, b):
    import difflib
    d = list(difflib.unified_diff(a.decode("utf-8", "replace").split("\n"),
                                  b.decode("utf-8", "replace").split("\n"), lineterm="", n=1))
    print("   " + "\n   ".join(x[:300] for x in d[:30]), flush=True)


# ------------------------------------------------------------ reference

def plain_numeric(meta, ci):
    c = meta["cols"][ci]
    return c.kind in ("int", "float", "mixed") and not c.pad


def reference(meta, out, path):
    try:
        doc = json.loads(out)
    except Exception as e:
        fail("json parse", repr(e), path)
        return
    if meta.get("malformed") or not meta["header"] or any(len(r) != len(meta["cols"]) for r in meta["rows"]):
        return
    names = meta["names"]
    cols = {c["index"]: c for c in doc.get("columns", [])}
    for ci, col in enumerate(meta["cols"]):
        if not plain_numeric(meta, ci) or (ci + 1) not in cols:
            continue
        jc = cols[ci + 1]
        vals, rowsof = [], []
        nmiss = 0
        for ri, row in enumerate(meta["rows"]):
            f = row[ci]
            if f.strip() == "" or ("--null" in meta["opts"] and f in ("NA", "-")):
                nmiss += 1
                continue
            if f == "NA":
                continue  # invalid
            vals.append(f)
            rowsof.append(ri + 1)
        if not vals:
            continue
        isint = all(is_int_text(v) for v in vals)
        exact = [int_value(v) if isint else Fraction(float(v)) for v in vals]
        dbl = [float(v) for v in vals]
        if any(math.isinf(x) for x in dbl):
            continue
        want = {}
        want["count"] = len(vals)
        s = sum(exact)
        want["sum"] = s if isint else fl(s)
        want["mean"] = fl(Fraction(s) / len(vals))
        keyed = list(zip(exact, rowsof))
        mn = min(keyed, key=lambda t: (t[0], t[1]))
        mx = max(keyed, key=lambda t: (t[0], -t[1]))
        want["min"] = mn
        want["max"] = mx
        chk = lambda k, g, w: (g == w) or fail(f"ref {k}", f"col {ci+1} got {g!r} want {w!r} opts {meta['opts']}", path)
        if "count" in jc:
            chk("count", jc["count"], want["count"])
        if "sum" in jc:
            g = jc["sum"]
            chk("sum", g if isint else float(g), want["sum"])
        if "mean" in jc:
            chk("mean", float(jc["mean"]), want["mean"])
        if "min" in jc:
            w = want["min"]
            chk("min", (jc["min"]["value"] if isint else Fraction(float(jc["min"]["value"])), jc["min"]["row"]), (w[0], w[1]))
        if "max" in jc:
            w = want["max"]
            chk("max", (jc["max"]["value"] if isint else Fraction(float(jc["max"]["value"])), jc["max"]["row"]), (w[0], w[1]))
        if "median" in jc:
            srt = sorted(exact)
            n = len(srt)
            h = Fraction(n - 1, 2)
            lo = srt[int(h)]
            hi = srt[min(int(h) + 1, n - 1)]
            m = lo + (hi - lo) * (h - int(h))
            g = jc["median"]
            if isint and Fraction(m).denominator == 1:
                chk("median", g, int(m))
            else:
                chk("median", float(g), fl(m))


def fl(x):
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def is_int_text(v):
    try:
        f = Fraction(v.strip())
    except Exception:
        return False
    return f.denominator == 1 and abs(f) <= 2**64


def int_value(v):
    return int(Fraction(v.strip()))


def main():
    r = random.Random(SEED)
    t0 = time.time()
    case = 0
    while time.time() - t0 < SECS:
        data, meta = gen(r)
        meta["r"] = r
        differential(r, data, meta, case)
        case += 1
        if case % 20 == 0:
            print(f"  {case} cases, {NRUNS[0]} runs, {len(FAILS)} fails", flush=True)
    print(f"fuzz: seed {SEED}: {case} cases, {NRUNS[0]} runs, {len(FAILS)} failures; tmp {TMP}")
    from collections import Counter
    for k, v in Counter(FAILS).most_common():
        print(f"  {v} x {k}")


main()
