#!/usr/bin/env python3
"""End-to-end: --group-by over -b (binary) input against an exact reference.

usage: python3 tests/e2e/e2e_groupby_binary.py /path/to/colstat   (cwd = repo root)

Random struct-packed records (every integer type as the key, f64, f32 and
integer value columns, NaNs, i64 and u64 past 2^53) group by the decimal
text of an integer field; one group, many groups, two key fields; several
files, stdin, -j 1, 2, 16 give the same bytes; states merge to one
process's bytes. Each group's columns are checked against harness.py's
exact reference (the values written as text: repr of the double, the
integer's digits). A float key field is a one-line usage error (exit 2).
Seed printed; COLSTAT_SEED reproduces.
"""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_groupby import check_groups  # noqa: E402
from harness import QUICK, Suite, cmdline  # noqa: E402

ARGS = ["--all", "--quantiles", "0.1,0.9", "--json"]
FMT = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I",
       "i64": "q", "u64": "Q", "f32": "f", "f64": "d"}
BOUNDS = {"i8": (-128, 127), "u8": (0, 255), "i16": (-32768, 32767),
          "u16": (0, 65535), "i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1),
          "i64": (-2**63, 2**63 - 1), "u64": (0, 2**64 - 1)}


def key_value(rng, t, pool):
    lo, hi = BOUNDS[t]
    return rng.choice(pool) if pool else rng.randint(lo, hi)


def key_pool(rng, t, nkeys):
    lo, hi = BOUNDS[t]
    edges = [lo, hi, 0 if lo < 0 else lo, -1 if lo < 0 else hi - 1]
    pool = set(rng.choice(edges) for _ in range(2))
    while len(pool) < min(nkeys, hi - lo + 1):
        pool.add(rng.randint(lo, hi))
    return sorted(pool)


def float_value(rng, t):
    v = double_value(rng, t)
    return struct.unpack("<f", struct.pack("<f", v))[0] if t == "f32" else v


def double_value(rng, t):
    r = rng.random()
    if r < 0.05:
        return float("nan")
    if r < 0.07:
        big = 3e38 if t == "f32" else 1e300
        return rng.choice([big, -big, 0.0, -0.0])
    return rng.uniform(-1e3, 1e3)


def int_value(rng, t):
    lo, hi = BOUNDS[t]
    if rng.random() < 0.1:
        return rng.choice([lo, hi])
    return rng.randint(max(lo, -10**6), min(hi, 10**6))


def text(t, v):
    if t in ("f32", "f64"):
        return "nan" if v != v else repr(v)
    return str(v)


class Case:
    """Records of spec (types) with key fields keyf (0-based)."""

    def __init__(self, rng, types, keyf, nrows, nkeys):
        self.types, self.keyf = types, keyf
        pools = {f: key_pool(rng, types[f], nkeys) for f in keyf}
        self.rows = []
        for _ in range(nrows):
            row = []
            for f, t in enumerate(types):
                if f in keyf:
                    row.append(key_value(rng, t, pools[f]))
                elif t in ("f32", "f64"):
                    row.append(float_value(rng, t))
                else:
                    row.append(int_value(rng, t))
            self.rows.append(row)

    @property
    def spec(self):
        return ",".join(self.types)

    def pack(self, rows):
        fmt = "<" + "".join(FMT[t] for t in self.types)
        return b"".join(struct.pack(fmt, *r) for r in rows)

    def write(self, path, rows):
        with open(path, "wb") as f:
            f.write(self.pack(rows))

    def value_fields(self):
        return [f for f in range(len(self.types)) if f not in self.keyf]

    def reference(self, rows):
        """{key tuple: (rows, [ColRef])} of rows (numbered from 1)."""
        from harness import ColRef
        vf = self.value_fields()
        keys = [tuple(str(r[f]) for f in self.keyf) for r in rows]
        out = {}
        for k in set(keys):
            mine = [kk == k for kk in keys]
            refs = [ColRef([text(self.types[f], rows[j][f]) if mine[j] else ""
                            for j in range(len(rows))]) for f in vf]
            for r in refs:
                r.missing = 0
            out[k] = (sum(mine), refs)
        return out

    def cols(self):
        return [(f + 1, str(f + 1)) for f in self.value_fields()]

    def key_names(self):
        return [str(f + 1) for f in self.keyf]

    def key_arg(self):
        return ",".join(self.key_names())


def random_case(rng, nrows=None, nkeys=None):
    ints = list(BOUNDS)
    ktypes = [rng.choice(ints) for _ in range(rng.choice([1, 1, 2]))]
    vtypes = [rng.choice(["f64", "f64", "f32", "i32", "i64", "u64"])
              for _ in range(rng.randint(1, 3))]
    types = ktypes + vtypes
    rng.shuffle(types)
    keyf = []
    for t in ktypes:  # the key fields are those of the drawn key types
        f = next(i for i, x in enumerate(types) if x == t and i not in keyf)
        keyf.append(f)
    keyf.sort()
    return Case(rng, types, keyf, nrows if nrows is not None else rng.randint(1, 300),
                nkeys if nkeys is not None else rng.choice([1, 3, 20, 200]))


def run_three(suite, tag, args, want_rc=0):
    outs = []
    for j in (1, 2, 16):
        a = ["-j", j] + args
        rc, out, err = suite.run(a)
        suite.check(rc == want_rc, f"{tag}: {cmdline(a)} exits {want_rc}", err)
        outs.append(out)
    suite.check(outs[0] == outs[1] == outs[2], f"{tag}: -j 1, 2, 16 alike")
    return outs[0]


def test_random(suite):
    for t in range(3 if QUICK else 8):
        c = random_case(suite.rng)
        p = suite.path(f"r{t}.bin")
        c.write(p, c.rows)
        args = ["-b", c.spec, "-g", c.key_arg()] + ARGS + [p]
        out = run_three(suite, f"random {t} ({c.spec}, keys {c.key_arg()})", args)
        check_groups(suite, f"random {t} ({c.spec})", out, len(c.rows),
                     c.key_names(), c.reference(c.rows), c.cols())


def test_one_and_many(suite):
    rng = suite.rng
    c = Case(rng, ["u8", "f64"], [0], 100, 1)
    p = suite.path("one.bin")
    c.write(p, c.rows)
    rc, out, err = suite.run(["-b", c.spec, "-g", "1"] + ARGS + [p])
    check_groups(suite, "one group", out, 100, ["1"], c.reference(c.rows), c.cols())
    n = 1000 if QUICK else 4000
    c = Case(rng, ["f64", "i64"], [1], n, n // 2)
    p = suite.path("many.bin")
    c.write(p, c.rows)
    args = ["-b", c.spec, "-g", "2", "--sum", "--min", "--max", "--json", p]
    out = run_three(suite, "many groups", args)
    check_groups(suite, "many groups", out, n, ["2"], c.reference(c.rows), c.cols(),
                 what={"sum", "min", "max"})


def test_files_and_stdin(suite):
    c = random_case(suite.rng, nrows=400)
    cut = suite.rng.randint(0, 400)
    pa, pb = suite.path("a.bin"), suite.path("b.bin")
    c.write(pa, c.rows[:cut])
    c.write(pb, c.rows[cut:])
    args = ["-b", c.spec, "-g", c.key_arg()] + ARGS
    out = run_three(suite, "two files", args + [pa, pb])
    check_groups(suite, "two files", out, 400, c.key_names(),
                 c.reference(c.rows), c.cols())
    p = subprocess.run([suite.exe] + [str(a) for a in args] + ["-"],
                       input=c.pack(c.rows), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    suite.check(p.returncode == 0 and p.stdout == out, "stdin: the files' bytes",
                p.stderr.decode())
    sa = suite.run(["-b", c.spec, "-g", c.key_arg(), "--sum", "--min", "--max",
                    "--emit-state", pa])
    sb = suite.run(["-b", c.spec, "-g", c.key_arg(), "--sum", "--min", "--max",
                    "--emit-state", pb])
    pa_s, pb_s = suite.path("a.state"), suite.path("b.state")
    for path, (rc, o, e) in ((pa_s, sa), (pb_s, sb)):
        suite.check(rc == 0, "--emit-state exits 0", e)
        with open(path, "wb") as f:
            f.write(o)
    merged = suite.run(["--merge", "--json", pa_s, pb_s])
    whole = suite.run(["-b", c.spec, "-g", c.key_arg(), "--sum", "--min", "--max",
                       "--json", pa, pb])
    suite.check(merged[0] == 0 and merged[1] == whole[1],
                "states of two files merge to one process's bytes", merged[2])


def test_float_key(suite):
    c = Case(suite.rng, ["i32", "f64", "f32"], [0], 10, 3)
    p = suite.path("fk.bin")
    c.write(p, c.rows)
    for k, t in (("2", "f64"), ("3", "f32"), ("1,3", "f32")):
        rc, out, err = suite.run(["-b", c.spec, "-g", k, p])
        suite.check(rc == 2 and out == b"" and len(err.strip().splitlines()) == 1 and
                    f"is {t}; binary input groups by integer fields" in err,
                    f"-g {k} over {c.spec}: usage error", err)


if __name__ == "__main__":
    s = Suite("e2e_groupby_binary", sys.argv)
    s.run_tests([test_random, test_one_and_many, test_files_and_stdin,
                 test_float_key])
