#!/usr/bin/env python3
"""End-to-end: --median and --quantiles against an exact reference, in
every way colstat can hold the values.

usage: python3 tests/e2e/e2e_quantiles.py /path/to/colstat   (cwd = repo root)

Fresh random inputs each run (seed printed; COLSTAT_SEED reproduces): CSVs
with ties, integers near 2^53 to 2^64, infinities, -0, NaN, missing and
invalid fields (harness.CsvCase), hand-made columns where the type-7
interpolation is delicate, binary f64 and i64 records. The reference
(harness.ColRef.quantile) sorts the values and computes R's type 7 with
Python's Fractions; integer columns with Python's integers.

Every input also runs with --memory 0 and small budgets (the values do not
fit: a file is read again, pass after pass; COLSTAT_SPILL=1 spills it to
a temporary file as a stream's values are), from standard input (spilled),
gzip-compressed, split over several files, with -j 1 and 2: the output must
be the same bytes as the default run's. Histograms without --range go the
same ways. With a usable GPU each run is repeated with --device gpu (also
with its device memory for kept values made tiny): identical bytes again.
"""
import gzip
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (QUICK, ColRef, CsvCase, Suite, check_doc,  # noqa: E402
                     cmdline, gpu_available, parse_json, quantile_key,
                     read_columns)

LISTS = ["0.5", "0,1", "0.9,0.99,0.999", "0.25,0.5,0.75", "0.01,0.99",
         "0.1,0.2,0.3,0.4,0.6,0.7,0.8,0.9", "0.333333333333333333",
         "1,0,0.5,0.50", "0.000001,0.999999", ".5", "0.05,0.95"]


def pick_list(rng):
    if rng.random() < 0.3:
        n = rng.randint(1, 6)
        return ",".join("%.*f" % (rng.randint(0, 6), rng.random())
                        for _ in range(n))
    return rng.choice(LISTS)


def stats(qlist, median=True):
    w = {("quantiles",) + tuple(qlist.split(","))}
    return w | ({"median"} if median else set())


class Env:
    """The ways of holding the values, as extra arguments and environment."""

    def __init__(self, name, args=(), env=None):
        self.name, self.args, self.env = name, list(args), env or {}


def holdings(rng, nbytes):
    small = str(rng.randint(1, max(2, nbytes * 2)))
    return [Env("kept"),
            Env("--memory 0, read again", ["--memory", "0"]),
            Env("--memory %s" % small, ["--memory", small]),
            Env("--memory 1k, spilled", ["--memory", "1k"], {"COLSTAT_SPILL": "1"}),
            Env("-j 1, --memory 0", ["-j", "1", "--memory", "0"]),
            Env("-j 2", ["-j", "2"])]


def run(suite, args, stdin=None, env=None):
    full = dict(os.environ)
    full.update(env or {})
    p = subprocess.run([suite.exe] + [str(a) for a in args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300, env=full)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def same_everywhere(suite, tag, args, base_out, ways, devices, stdin=None):
    """Each way of holding the values, on each device: base_out's bytes."""
    for dev in devices:
        for w in ways:
            a = args + w.args + ["--device", dev]
            rc, out, err = run(suite, a, stdin=stdin, env=w.env)
            t = f"{tag} [{w.name}, {dev}]: {cmdline(a)}"
            if suite.check(rc == 0, t + " exits 0", f"status {rc}: {err.strip()}"):
                suite.check(out == base_out, t + " gives the default run's bytes",
                            f"got {out[:300]!r}\nwant {base_out[:300]!r}")


def gpu_ways(rng):
    return [Env("gpu, device memory tiny", [],
                {"COLSTAT_GPU_KEEP_BYTES": str(rng.randint(0, 40000))}),
            Env("gpu, host parses", [], {"COLSTAT_GPU_PARSE": "0"}),
            Env("gpu, --memory 0", ["--memory", "0"],
                {"COLSTAT_GPU_KEEP_BYTES": "0"})]


def csv_case(suite, n, tag, devices):
    rng = suite.rng
    p = suite.path(f"{tag}.csv")
    nrows = rng.choice([0, 1, 2, 3, rng.randint(4, 80), rng.randint(200, 4000)])
    if QUICK:
        nrows = min(nrows, 1500)
    case = CsvCase(rng, p, nrows, header=True, wide=n % 3 == 0)
    names, rows, fields = read_columns(p, case.delim, case.header, case.ncols)
    idx = case.numeric_indices()
    want = [(i, names[i - 1], ColRef(fields[i - 1])) for i in idx]
    qlist = pick_list(rng)
    median = rng.random() < 0.7
    args = [p, "--json", "--quantiles", qlist, "-d", case.delim, "--header",
            "-c", ",".join(map(str, idx))] + (["--median"] if median else [])
    if rng.random() < 0.3:
        args += ["--hist", "--bins", str(rng.choice([1, 3, 256]))]
    rc, out, err = suite.run(args + ["--device", "cpu"])
    t = f"{tag} ({nrows} rows): {cmdline(args)}"
    if not suite.check(rc == 0, t + " exits 0", f"status {rc}: {err.strip()}"):
        return
    what = stats(qlist, median)
    nbins = 256
    if "--hist" in args:
        what.add("hist")
        nbins = int(args[args.index("--bins") + 1])
    check_doc(suite, t, out, rows, want, what, (nbins, None))
    ways = holdings(rng, os.path.getsize(p))
    same_everywhere(suite, tag, args, out, ways, ["cpu"])
    if "gpu" in devices:
        same_everywhere(suite, tag, args, out, [Env("gpu")] + gpu_ways(rng),
                        ["gpu"])


FIXED = [  # columns where the interpolation is delicate
    ["1", "2"],                                    # 1.5 and friends
    ["-0.0", "0.0", "-0.0", "0.5"],                # zeros, a fraction
    ["inf", "1", "2", "-inf"],                     # infinities weighted
    ["inf", "inf", "-inf"],
    ["1e308", "-1e308", "1.7976931348623157e308", "-1.7976931348623157e308",
     "0"],
    ["5e-324", "-5e-324", "1e-323", "0.5"],        # subnormals
    ["9007199254740993", "9007199254740995", "9007199254740992"],  # > 2^53
    ["18446744073709551615", "18446744073709551614", "-18446744073709551616",
     "18446744073709551616"],                      # the ends of 2^64
    ["1152921504606846977", "1152921504606846979", "1152921504606846975",
     "1152921504606846976"],                       # ties of one double
    ["3", "3", "3", "3", "3"],                     # one value
    ["0.1", "0.2", "0.30000000000000004", "0.3"],
    ["-3", "7"],                                   # integer result or not
    ["1e16", "1", "-1e16", "3.5"],
    ["nan", "", "x"],                              # no value: null
]


def fixed_columns(suite, devices):
    rng = suite.rng
    cols = [c[:] for c in FIXED]
    for c in cols:
        rng.shuffle(c)
    n = max(len(c) for c in cols)
    cols = [c + [""] * (n - len(c)) for c in cols]
    p = suite.path("fixed.csv")
    names = [f"f{i + 1}" for i in range(len(cols))]
    with open(p, "w") as f:
        f.write(",".join(names) + "\n")
        for r in range(n):
            f.write(",".join(c[r] for c in cols) + "\n")
    want = [(i + 1, names[i], ColRef(c)) for i, c in enumerate(cols)]
    spec = ",".join(str(i + 1) for i in range(len(cols)))
    qlist = "0,0.1,0.25,0.333,0.5,0.6,0.75,0.9,0.999999999999999999,1"
    args = [p, "--json", "--median", "--quantiles", qlist, "-c", spec]
    rc, out, err = suite.run(args + ["--device", "cpu"])
    if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
        check_doc(suite, cmdline(args), out, n, want, stats(qlist))
        same_everywhere(suite, "fixed", args, out, holdings(rng, 300),
                        devices)


def many_values(suite, devices):
    """A column larger than the candidate budget (2^16 values collected at
    once): pass after pass of counting, on few distinct values and many."""
    rng = suite.rng
    n = 30000 if QUICK else 200000
    p = suite.path("many.csv")
    cols = [[str(rng.randint(0, 50)) for _ in range(n)],  # heavy ties
            [repr(rng.lognormvariate(0, 3)) for _ in range(n)],
            [str(rng.randint(-2**63, 2**64)) for _ in range(n)],
            [repr(rng.choice([-1, 1]) * rng.random() * 10 ** rng.randint(-300, 300))
             for _ in range(n)]]
    with open(p, "w") as f:
        f.write("ties,lognormal,bigint,wide\n")
        for r in range(n):
            f.write(",".join(c[r] for c in cols) + "\n")
    want = [(i + 1, name, ColRef(c)) for i, (name, c) in
            enumerate(zip(["ties", "lognormal", "bigint", "wide"], cols))]
    qlist = "0.01,0.1,0.5,0.9,0.99,0.999"
    args = [p, "--json", "--median", "--quantiles", qlist, "--hist"]
    rc, out, err = suite.run(args + ["--device", "cpu"])
    if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
        check_doc(suite, cmdline(args), out, n, want, stats(qlist) | {"hist"})
        ways = [Env("--memory 0", ["--memory", "0", "-v"]),
                Env("--memory 1M", ["--memory", "1M"]),
                Env("--memory 1M spilled", ["--memory", "1M"],
                    {"COLSTAT_SPILL": "1"})]
        same_everywhere(suite, "many", args, out, ways, ["cpu"])
        if "gpu" in devices:
            same_everywhere(suite, "many", args, out,
                            [Env("gpu")] + gpu_ways(rng), ["gpu"])
        rc, _, err = suite.run(args + ["--memory", "0", "-v", "--device", "cpu"])
        suite.check("reading it again" in err and " passes " in err,
                    "-v says how many passes read the input again", err)
    # the same bytes from standard input, in pieces of gzip, as files
    data = open(p, "rb").read()
    gz = gzip.compress(data, compresslevel=1)
    for tag, a, stdin in (("stdin", args[1:], data),
                          ("stdin, --memory 0 (spilled)",
                           args[1:] + ["--memory", "0"], data),
                          ("gzip stdin, --memory 100k",
                           args[1:] + ["--memory", "100k"], gz)):
        rc, o, err = suite.run(a + ["--device", "cpu"], stdin=stdin)
        suite.check(rc == 0 and o == out, f"{tag}: {cmdline(a)} same bytes",
                    err.strip())
    lines = data.split(b"\n")
    head, body = lines[0], [l for l in lines[1:] if l]
    cuts = sorted(rng.sample(range(1, len(body)), 3))
    paths = []
    for k, (a, b) in enumerate(zip([0] + cuts, cuts + [len(body)])):
        q = suite.path(f"many{k}.csv" + (".gz" if k % 2 else ""))
        part = head + b"\n" + b"\n".join(body[a:b]) + b"\n"
        with open(q, "wb") as f:
            f.write(gzip.compress(part) if k % 2 else part)
        paths.append(q)
    a = paths + args[1:]
    for extra in ([], ["--memory", "0"]):
        rc, o, err = suite.run(a + extra + ["--device", "cpu"])
        suite.check(rc == 0 and o == out,
                    f"{len(paths)} files (gzip among them) {extra}: same bytes",
                    err.strip())


def binary_records(suite, devices):
    """f64 and i64 fields: values with NaN, infinities, -0.0, ties, and
    integers past 2^53 that only the integer view tells apart."""
    rng = suite.rng
    n = 5000 if QUICK else 60000
    f64, i64 = [], []
    for _ in range(n):
        r = rng.random()
        f64.append(math.nan if r < 0.02 else math.inf if r < 0.025 else
                   -math.inf if r < 0.03 else -0.0 if r < 0.05 else
                   float(rng.randint(-5, 5)) if r < 0.3 else
                   rng.uniform(-1e6, 1e6))
        i64.append(rng.choice([rng.randint(-2**63, 2**63 - 1),
                               2**60 + rng.randint(-500, 500),
                               rng.randint(-3, 3)]))
    p = suite.path("rec.bin")
    with open(p, "wb") as f:
        for a, b in zip(f64, i64):
            f.write(struct.pack("<dq", a, b))
    want = [(1, "1", ColRef([repr(v) for v in f64])),
            (2, "2", ColRef([str(v) for v in i64]))]
    qlist = "0,0.001,0.25,0.5,0.75,0.999,1"
    args = [p, "-b", "f64,i64", "--json", "--median", "--quantiles", qlist]
    rc, out, err = suite.run(args + ["--device", "cpu"])
    if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
        check_doc(suite, cmdline(args), out, n, want, stats(qlist))
        same_everywhere(suite, "binary", args, out,
                        holdings(rng, os.path.getsize(p)), ["cpu"])
        if "gpu" in devices:
            same_everywhere(suite, "binary", args, out,
                            [Env("gpu")] + gpu_ways(rng), ["gpu"])
        rc, o, err = suite.run(args[1:] + ["--memory", "0", "--device", "cpu"],
                               stdin=open(p, "rb").read())
        suite.check(rc == 0 and o == out, "binary stdin, spilled: same bytes",
                    err.strip())


def pipes_and_codecs(suite):
    """A named pipe given as a file cannot be read twice: past --memory its
    values spill, as standard input's do. zstd, xz and bzip2 files are read
    again pass after pass, as plain and gzip ones are."""
    rng = suite.rng
    n = 4000 if QUICK else 20000
    big = [str(2**60 + rng.randint(-300, 300)) for _ in range(n)]
    mixed = [rng.choice(["", "nan", "inf", "-inf", "-0.0", repr(rng.uniform(-9, 9)),
                         str(rng.randint(-5, 5))]) for _ in range(n)]
    p = suite.path("pipe.csv")
    with open(p, "w") as f:
        f.write("big,mixed\n")
        f.writelines(f"{a},{b}\n" for a, b in zip(big, mixed))
    want = [(1, "big", ColRef(big)), (2, "mixed", ColRef(mixed))]
    qlist = "0,0.05,0.5,0.95,1"
    args = ["--json", "--median", "--quantiles", qlist, "--device", "cpu"]
    rc, out, err = suite.run([p] + args)
    if not suite.check(rc == 0, f"{p} {cmdline(args)} exits 0", err.strip()):
        return
    check_doc(suite, cmdline([p] + args), out, n, want, stats(qlist))
    data = open(p, "rb").read()
    fifo = suite.path("pipe.fifo")
    os.mkfifo(fifo)
    def feed():
        with open(fifo, "wb") as f:
            f.write(data)
    threading.Thread(target=feed, daemon=True).start()
    rc, o, err = suite.run([fifo] + args + ["--memory", "0", "-v"])
    suite.check(rc == 0 and o == out and "in a temporary file" in err and
                "(0 reading it again)" in err,
                "a named pipe, --memory 0: spilled, not read again; same bytes",
                f"status {rc}: {err.strip()}")
    for tool in ("gzip", "zstd", "xz", "bzip2"):
        if not shutil.which(tool):
            suite.check(False, f"{tool} installed (.ci/run lists it)")
            continue
        z = suite.path(f"pipe.csv.{tool}")
        with open(z, "wb") as f:
            f.write(subprocess.run([tool, "-c", p], stdout=subprocess.PIPE,
                                   check=True).stdout)
        rc, o, err = suite.run([z] + args + ["--memory", "0", "-v"])
        suite.check(rc == 0 and o == out and "reading it again" in err and
                    "(0 reading it again)" not in err,
                    f"{tool} file, --memory 0: read again; same bytes",
                    f"status {rc}: {err.strip()}")


def formats_read_again(suite):
    """A pass that reads the input again reads it with the run's number
    formats (--decimal, --thousands, --null) and -W, as the first reading
    did: the answers equal the kept run's, and those of the same numbers
    written plainly."""
    rng = suite.rng
    n = 300 if QUICK else 3000
    vals = [rng.choice([None, rng.randint(-10**7, 10**7) / 100,
                        float(rng.randint(-99, 99))]) for _ in range(n)]
    plain, euro, ws = suite.path("fmt.csv"), suite.path("fmt_eu.csv"), \
        suite.path("fmt_ws.txt")

    def eu(v):
        if v is None:
            return "NA"
        t = "%.2f" % abs(v)
        i, f = t.split(".")
        groups = []
        while len(i) > 3:
            groups.insert(0, i[-3:])
            i = i[:-3]
        groups.insert(0, i)
        return ("-" if v < 0 else "") + ".".join(groups) + "," + f
    with open(plain, "w") as f:
        f.write("a,b\n")
        f.writelines(f"{'' if v is None else '%.2f' % v},{k}\n"
                     for k, v in enumerate(vals))
    with open(euro, "w") as f:
        f.write("a;b\n")
        f.writelines(f"\"{eu(v)}\";{k}\n" for k, v in enumerate(vals))
    with open(ws, "w") as f:
        f.write("  a   b\n")
        f.writelines(f" {'NA' if v is None else '%.2f' % v}\t {k}  \n"
                     for k, v in enumerate(vals))
    args = ["--json", "--median", "--quantiles", "0.1,0.9", "--hist",
            "--bins", "9", "--device", "cpu"]
    rc, want, err = suite.run([plain] + args)
    if not suite.check(rc == 0, "plain formats file exits 0", err.strip()):
        return
    for path, opts in ((euro, ["--decimal", ",", "--thousands", ".",
                               "--null", "NA"]),
                       (ws, ["-W", "--null", "NA"])):
        for mem in ([], ["--memory", "0"]):
            rc, o, err = suite.run([path] + opts + args + mem)
            suite.check(rc == 0 and json.loads(o)["columns"] ==
                        json.loads(want)["columns"],
                        f"{cmdline(opts + mem)}: same answers as plain text",
                        f"status {rc}: {err.strip()}")


def histograms(suite, devices):
    """--hist without --range: kept, read again or spilled, the same bins."""
    rng = suite.rng
    p = suite.path("hist.csv")
    CsvCase(rng, p, 3000 if QUICK else 20000, ncols=3, delim=",", header=True)
    args = [p, "--json", "-a", "--bins", str(rng.choice([7, 256, 1000]))]
    rc, out, err = suite.run(args + ["--device", "cpu"])
    if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
        same_everywhere(suite, "hist", args, out,
                        holdings(rng, os.path.getsize(p)), devices)


def formats(suite):
    p = suite.path("fmt.csv")
    with open(p, "w") as f:
        f.write("a,b\n1,x\n2,\n4,y\n3,z\n")
    rc, out, err = suite.run([p, "--median", "--quantiles", "0.9,0.250", "--tsv"])
    lines = out.decode().splitlines()
    suite.check(rc == 0 and lines and lines[0].split("\t")[2:5] ==
                ["median", "q0.9", "q0.25"], "TSV headings median, q0.9, q0.25",
                lines[:1])
    suite.check(len(lines) > 1 and lines[1].split("\t")[2:5] ==
                ["2.5", "3.7", "1.75"], "TSV values", lines[1:])
    rc, out, err = suite.run([p, "--median", "--quantiles", "0.9", "--csv"])
    suite.check(rc == 0 and out.decode().splitlines()[0].split(",")[2:4] ==
                ["median", "q0.9"], "CSV headings", out)
    rc, out, err = suite.run([p, "--median", "--quantiles", "0.99"])
    head = out.decode().splitlines()[0].split()
    suite.check(rc == 0 and "median" in head and "q0.99" in head,
                "table headings", out)
    rc, out, err = suite.run([p, "--median", "-c", "2", "--json"])
    doc = parse_json(out)
    suite.check(rc == 0 and doc["columns"][0].get("median") is None,
                "a column without values: median null", out)
    rc, out, err = suite.run([p, "-a", "--json"])
    doc = parse_json(out)
    suite.check(rc == 0 and doc["columns"][0].get("median") == 2.5,
                "--all includes the median", out)
    # the example: jq '.columns[] | {name, median, p99: ...}'
    rc, out, err = suite.run([p, "--all", "--quantiles", "0.99", "--json"])
    c = parse_json(out)["columns"][0]
    suite.check(rc == 0 and c["quantiles"] == {"0.99": 3.97} and
                c["median"] == 2.5, ".quantiles[\"0.99\"]", c)
    suite.check(quantile_key("0.50") == "0.5", "harness: shortest keys")


def usage_errors(suite):
    p = suite.path("u.csv")
    with open(p, "w") as f:
        f.write("a\n1\n")
    for bad in ("1.5", "-0.1", "abc", "", "0.5,", "0.5,,0.7", "1e-1",
                "0.1234567890123456789"):
        rc, out, err = suite.run([p, "--quantiles", bad])
        suite.check(rc == 2 and out == b"" and err.startswith("colstat: ") and
                    "--quantiles" in err, f"--quantiles {bad!r}: usage error",
                    f"status {rc}: {err.strip()}")
    for bad in ("abc", "-1", "12X", "1.5.5M", ""):
        rc, out, err = suite.run([p, "--median", "--memory", bad])
        suite.check(rc == 2 and "--memory" in err,
                    f"--memory {bad!r}: usage error", f"status {rc}: {err}")
    for good in ("0", "1", "256M", "2G", "1.5k", "64K"):
        rc, _, err = suite.run([p, "--median", "--memory", good])
        suite.check(rc == 0, f"--memory {good}: accepted", err.strip())


def bad_tmpdir(suite):
    """A stream whose values must spill where no file can be made: an
    error, never a short answer."""
    p = suite.path("t.csv")
    with open(p, "w") as f:
        f.write("a\n" + "".join(f"{i}\n" for i in range(100000)))
    data = open(p, "rb").read()
    rc, out, err = run(suite, ["--median", "--memory", "0", "--device", "cpu"],
                       stdin=data, env={"TMPDIR": suite.path("no-such-dir")})
    suite.check(rc == 1 and out == b"" and "temporary file" in err,
                "spill into a missing TMPDIR: exit 1 with a message",
                f"status {rc}: {err.strip()}")


def gpu_stop_message(suite, devices):
    """When the device's room for kept values runs out, the GPU stops
    parsing and -v says why: values kept to the end (it said "histogram
    values" also for the median)."""
    if "gpu" not in devices:
        return
    rng = suite.rng
    p = suite.path("stop.csv")
    with open(p, "w") as f:
        f.write("v\n" + "".join("%r\n" % rng.gauss(0, 1)
                                for _ in range(5000)))
    rc, out, err = run(suite, ["-v", "--median", "--device", "gpu", p],
                       env={"COLSTAT_GPU_KEEP_BYTES": "0"})
    stop = [x for x in err.splitlines() if "GPU parse stopped" in x]
    suite.check(rc == 0 and len(stop) == 1 and
                "(values kept to the end past the device's room)" in stop[0],
                "-v names kept values when the device's room runs out",
                err[-800:])


TOOK = re.compile(r"kept +took ([0-9.]+) MB of the device for ([0-9.]+) MB "
                  r"of values \(room: ([0-9.]+) MB, [^;]*; of its ([0-9.]+) MB\)")


def gpu_memory_taken(suite, devices):
    """The device keeps values in room sized from the input and grown as
    they come, never more than half its free memory: it took 78 GB of an
    80 GB H100 for 20 GB of values. Stated bounds: from a file, the values
    and a quarter more (sized from the rate of the input's head) plus 16
    MB (the first room holds at least one 16 MiB segment's rows at twice
    the head's rate); from a pipe (size unknown: the room starts at one
    segment's and doubles, the old and the new room both held while the
    values move) three times the values plus 16 MB; the room at most half
    the device. A file whose
    head misleads (long lines, then short ones) still gets the CPU's
    answer (the device may stop and leave the rest to the host)."""
    if "gpu" not in devices:
        return
    rng = suite.rng
    p = suite.path("taken.csv")
    with open(p, "w") as f:
        f.write("a,b,c\n")
        for _ in range(rng.randrange(600000, 900000)):
            f.write("%d,%r,%d\n" % (rng.randint(-10**6, 10**6),
                                    rng.random(), rng.randint(0, 99)))
    q = suite.path("misleads.csv")
    with open(q, "w") as f:
        f.write("a,b\n")
        for _ in range(3000):
            f.write("%s,%r\n" % ("0" * 200 + str(rng.randint(0, 9)),
                                  rng.random()))
        for _ in range(rng.randrange(800000, 1200000)):
            f.write("%d,%d\n" % (rng.randint(0, 9), rng.randint(0, 9)))
    for name, path, pipe, ratio in (("file", p, False, 1.25),
                                    ("pipe", p, True, 3.0),
                                    ("misleading head", q, False, None)):
        data = open(path, "rb").read() if pipe else None
        src = "-" if pipe else path
        rc, want, err = run(suite, ["--median", "--json", "--device", "cpu",
                                    path])
        rc, out, err = run(suite, ["-v", "--median", "--json", "--device",
                                   "gpu", src], stdin=data)
        m = TOOK.search(err)
        suite.check(rc == 0 and out == want and m is not None and
                    (ratio is None or "GPU parse stopped" not in err),
                    f"gpu memory, {name}: the CPU's answer, the memory "
                    "taken shown", err[-800:])
        if not m or ratio is None:
            continue
        took, values, room, total = (float(m.group(i)) for i in range(1, 5))
        suite.check(took <= ratio * values + 16 and room <= total / 2,
                    f"gpu memory, {name}: took {took} MB for {values} MB of "
                    f"values (at most {ratio}x + 16 MB), room {room} of "
                    f"{total} MB", err[-800:])


def main():
    suite = Suite("e2e_quantiles", sys.argv)
    devices = ["cpu"] + (["gpu"] if gpu_available(suite) else [])
    print(f"e2e_quantiles: devices {devices}", flush=True)
    for n in range(6 if QUICK else 16):
        csv_case(suite, n, f"case{n}", devices)
    fixed_columns(suite, devices)
    many_values(suite, devices)
    binary_records(suite, devices)
    histograms(suite, devices)
    gpu_stop_message(suite, devices)
    gpu_memory_taken(suite, devices)
    pipes_and_codecs(suite)
    formats_read_again(suite)
    formats(suite)
    usage_errors(suite)
    bad_tmpdir(suite)
    suite.finish()


if __name__ == "__main__":
    main()
