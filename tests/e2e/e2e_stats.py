#!/usr/bin/env python3
"""End-to-end: colstat's statistics on random CSVs against an independent
reference.

usage: python3 tests/e2e/e2e_stats.py /path/to/colstat     (cwd = repo root)

Fresh random CSVs each run (seed printed; COLSTAT_SEED reproduces): random
column count, ints, decimals, exponents, signs, quoted numbers, spaces,
empty fields, invalid text, nan/inf spellings, CRLF, BOM, text columns with
quoted delimiters, quotes and newlines, ragged rows. The reference reads the
file back with Python's csv module and computes every statistic with exact
rational arithmetic (fractions.Fraction; float(Fraction) is correctly
rounded), cross-checked with math.fsum (the harness, tests/e2e/harness.py).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (QUICK, ColRef, CsvCase, STAT_FLAGS, Suite,  # noqa: E402
                     check_doc, cmdline, gpu_available, parse_json, run_case)


def thread_consistency(suite, devices):
    """A file of a few MB: identical JSON for -j 1, 2, 4 (and against the
    reference)."""
    rng = suite.rng
    p = suite.path("big.csv")
    nrows = 30000 if QUICK else 120000
    case = CsvCase(rng, p, nrows, ncols=4, delim=",", header=True)
    run_case(suite, case, "big", nrows, ["cpu"])
    args = [p, "--json", "--all", "--header"]
    outs = {}
    for j in (1, 2, 4):
        rc, out, err = suite.run(args + ["-j", j, "--device", "cpu"])
        suite.check(rc == 0, f"{cmdline(args)} -j {j} exits 0", err.strip())
        outs[j] = out
    suite.check(outs[1] == outs[2] == outs[4],
                f"{cmdline(args)}: identical JSON for -j 1, 2, 4")
    # The same bytes as three gzip members, from a file and from stdin.
    import gzip
    data = open(p, "rb").read()
    cuts = sorted(rng.randrange(len(data)) for _ in range(2))
    gz = b"".join(gzip.compress(data[a:b], compresslevel=1)
                  for a, b in zip([0] + cuts, cuts + [len(data)]))
    with open(p + ".gz", "wb") as f:
        f.write(gz)
    for name, stdin in ((p + ".gz", None), ("-", gz)):
        a = [name] + args[1:] + ["-j", 2, "--device", "cpu"]
        rc, out, err = suite.run(a, stdin=stdin)
        suite.check(rc == 0 and out == outs[1],
                    f"{cmdline(a)}: gzip members give the same JSON", err.strip())
    if "gpu" in devices:
        rc, out, err = suite.run(args + ["--device", "gpu"])
        suite.check(rc == 0 and out == outs[1],
                    f"{cmdline(args)}: --device gpu identical to cpu", err.strip())
    main_core(suite, p, args, outs[1])


def main_core(suite, p, args, want):
    """Without -j the CPU backend leaves one of 12 or more cores to the main
    thread, which reads and cuts text (src/engine/engine.c, worker_threads);
    binary files, read by the workers, and -j keep them all. COLSTAT_CORES
    stands in for the machine's count: -v's worker count, the same JSON."""
    import gzip
    import struct
    rng = suite.rng
    data = open(p, "rb").read()
    gz = suite.path("main_core.csv.gz")
    with open(gz, "wb") as f:
        f.write(gzip.compress(data, compresslevel=1))
    f64 = suite.path("main_core.f64")
    with open(f64, "wb") as f:
        f.write(struct.pack("<%dd" % 40000,
                            *(rng.uniform(-1e6, 1e6) for _ in range(40000))))
    bargs = [f64, "-b", "f64", "--json", "--all"]
    rc, bwant, err = suite.run(bargs + ["-j", 1, "--device", "cpu"])
    suite.check(rc == 0, f"{cmdline(bargs)} -j 1 exits 0", err.strip())
    rest = args[1:] + ["--device", "cpu", "-v"]
    inputs = [("file", [p] + rest, None, True, want),
              ("stdin", ["-"] + rest, data, True, want),
              ("gzip", [gz] + rest, None, True, want),
              ("f64", bargs + ["--device", "cpu", "-v"], None, False, bwant)]
    for cores in (1, 2, 4, 11, 12, 16):
        for name, a, stdin, text, out_want in inputs:
            for j in (None, cores):
                workers = cores - 1 if text and not j and cores >= 12 else cores
                run = a + (["-j", j] if j else [])
                os.environ["COLSTAT_CORES"] = str(cores)
                try:
                    rc, out, err = suite.run(run, stdin=stdin)
                finally:
                    del os.environ["COLSTAT_CORES"]
                s = "" if workers == 1 else "s"
                what = f"COLSTAT_CORES={cores} {name} {cmdline(run)}"
                suite.check(rc == 0 and out == out_want,
                            f"{what}: the JSON of -j 1", err.strip()[-300:])
                suite.check(f"backend cpu, {workers} worker thread{s}," in err,
                            f"{what}: -v says {workers} worker thread{s}",
                            err.strip()[-300:])


FIXED = [  # columns where naive float arithmetic goes wrong
    ["1e308", "-1e308", "1.7976931348623157e308", "-1.7976931348623157e308", "0"],
    ["1.7976931348623157e308", "1.7976931348623157e308", "-1e308"],  # sum overflows
    ["5e-324", "5e-324", "1e-323", "-0", "0"],  # subnormal
    ["1e16", "1", "-1e16", "1", "1e-16"],  # cancellation
    ["9007199254740993", "9007199254740993", "-1", "9223372036854774784"],  # > 2^53
    # the nanosecond timestamps: exact sum, min and max on their rows
    ["1735704000123456789", "1735704000123456790", "1735704000123456791"],
    ["9007199254740993", "9007199254740993", "1"],  # sums to 18014398509481987
    # the ends of the integer view, and ties of one double
    ["18446744073709551615", "-18446744073709551616", "18446744073709551616",
     "1152921504606846977", "1152921504606846979", "1152921504606846975"],
    ["1.8446744073709551615e19", "9007199254740993.000", "900719925474099.3e1"],
    # no integer column: a decimal, or an integral double of no integer
    ["9007199254740993", "9007199254740993", "0.5"],
    ["3.0000000000000000001", "3", "9007199254740993"],
    ["18446744073709551617", "1"],
    ["0.1"] * 10,  # an exact sum that is not 1
    ["-0", "0", "-0"],  # ties: the first row
    ["3", "3", "3", "-2", "-2"],
]


def fixed_columns(suite, devices):
    """Hand-picked columns (shuffled) where only exact arithmetic is right."""
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
    for dev in devices:
        args = [p, "--json", "--all", "--bins", "5", "-c", spec, "--device", dev]
        rc, out, err = suite.run(args)
        if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
            check_doc(suite, cmdline(args), out, n, want, set(STAT_FLAGS), (5, None))


def exact_edges(suite, devices):
    """Integers on a grid where colstat's double formula is exact (edges
    at multiples of 4 from 0 to 1024): every bin must match exactly, no
    tolerance, values on interior edges going to the bin above."""
    rng = suite.rng
    vals = [0, 1024] + [rng.randint(0, 1024) for _ in range(rng.randint(50, 500))]
    rng.shuffle(vals)
    p = suite.path("edges.csv")
    with open(p, "w") as f:
        f.write("v\n" + "".join(f"{v}\n" for v in vals))
    want = [0] * 256
    for v in vals:
        want[min(v // 4, 255)] += 1
    for dev in devices:
        args = [p, "--json", "--hist", "--device", dev]
        rc, out, err = suite.run(args)
        if suite.check(rc == 0, f"{cmdline(args)} exits 0", err.strip()):
            h = parse_json(out)["columns"][0]["hist"]
            suite.check(h["bins"] == want, f"{cmdline(args)}: bins exact on edges",
                        f"got {h['bins']}, want {want}")
            suite.check(h["underflow"] == 0 and h["overflow"] == 0,
                        f"{cmdline(args)}: no underflow/overflow", h)


def main():
    suite = Suite("e2e_stats", sys.argv)
    rng = suite.rng
    devices = ["cpu"] + (["gpu"] if gpu_available(suite) else [])
    print(f"e2e_stats: devices {devices}", flush=True)
    sizes = [0, 1, 1, 2, 3] + \
        [rng.randint(4, 60) for _ in range(14 if QUICK else 30)] + \
        [rng.randint(200, 3000) for _ in range(2 if QUICK else 8)]
    for n, nrows in enumerate(sizes):
        p = suite.path(f"case{n}.csv")
        header = True if nrows < 2 else rng.random() < 0.8
        case = CsvCase(rng, p, nrows, header=header, wide=n % 3 == 0)
        if os.environ.get("COLSTAT_E2E_KEEP"):
            print(f"case{n}: {p}")
        run_case(suite, case, f"case{n} ({nrows} rows)", nrows, devices)
    exact_edges(suite, devices)
    fixed_columns(suite, devices)
    thread_consistency(suite, devices)
    suite.finish()


if __name__ == "__main__":
    main()
