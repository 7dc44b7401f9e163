#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_merge.c into
tests/fuzz/corpus_merge/ (committed; run again to regenerate it
identically: the inputs are drawn from a fixed seed and a state holds no
file name or time).

usage: python3 tests/fuzz/make_merge_corpus.py build/colstat

Each seed is the harness's mode byte, then a state: real ones emitted by
colstat (CSV with integers past 2^53, decimals, infinities, invalid and
missing fields; binary records; default statistics, --std, histograms
with --range, -c; groups of one and two key columns, a group's profiles;
a part without rows), and the same damaged: cut short, a byte flipped, and
each of tests/e2e/statefile.py's hand-made breakages written back with a
valid CRC. Most seeds are a state's bytes (the harness puts them in a
line; mode 2 fixes their CRC first); mode 8 seeds are the line itself."""
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import statefile  # noqa: E402

FIX_CRC = 2  # mode bit: fix the CRC of the bytes
MERGE = 4  # mode bit: merge a second copy
LINE = 8  # mode bit: the seed is the line itself


def csv_text(rng, rows):
    lines = ["id,big,price,load,note"]
    for i in range(rows):
        big = str(rng.choice([2**53 + rng.randrange(1000), -2**63,
                              2**64 - rng.randrange(5)]))
        price = rng.choice(["%.2f" % (rng.random() * 100), "", "inf", "x1"])
        load = rng.choice(["%g" % rng.gauss(0, 1e300), "nan", "-inf", "7"])
        lines.append(f"{i + 1},{big},{price},{load},n{i}")
    return "\n".join(lines) + "\n"


RUNS = [
    ("default", []),
    ("std", ["--count", "--sum", "--std", "--min", "--max"]),
    ("hist", ["--hist", "--bins", "5", "--range", "-10:100", "--std"]),
    ("cols", ["-c", "price,1", "--max", "--mean"]),
    ("strict_cols", ["-c", "big", "--sum", "--strict"]),
]


def emit(colstat, args, path):
    p = subprocess.run([colstat, "--emit-state"] + args + [path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        raise SystemExit(f"colstat {' '.join(args)}: status {p.returncode}")
    return p.stdout


def real_states(colstat, tmp):
    rng = random.Random(7)
    csv = os.path.join(tmp, "a.csv")
    with open(csv, "w") as f:
        f.write(csv_text(rng, 40))
    out = {}
    for name, args in RUNS:
        if name != "strict_cols":
            out[name] = emit(colstat, args, csv)
    clean = os.path.join(tmp, "b.csv")
    with open(clean, "w") as f:
        f.write("big\n" + "".join(f"{2**60 + i * 3}\n" for i in range(30)))
    out["strict_cols"] = emit(colstat, RUNS[-1][1], clean)
    f64 = os.path.join(tmp, "c.f64")
    vals = [rng.choice([rng.gauss(0, 1e9), float("inf"), float("nan"), 0.0,
                        -0.0, 2.0**64]) for _ in range(60)]
    with open(f64, "wb") as f:
        f.write(struct.pack(f"<{len(vals)}d", *vals))
    out["f64"] = emit(colstat, ["-b", "f64x2", "--hist", "--bins", "3",
                                "--range", "-1:1", "--std"], f64)
    keyed = os.path.join(tmp, "d.csv")
    krng = random.Random(13)  # apart: the seeds above stay as they were
    with open(keyed, "w") as f:
        f.write("k,j,x\n" + "".join(
            '"%s",%s,%s\n' % (krng.choice(['a', 'b""q', 'c,d', '', '12', '7']),
                              krng.choice(['1', '', 'x']),
                              krng.choice(['1.5', '', '-3', 'nan', 'y']))
            for _ in range(30)))
    out["groups"] = emit(colstat, ["-g", "k", "--std", "--hist", "--bins",
                                   "4", "--range", "-5:5"], keyed)
    out["groups2"] = emit(colstat, ["-g", "k,j", "-c", "x", "--max"], keyed)
    texts = os.path.join(tmp, "e.csv")
    trng = random.Random(17)  # apart: the seeds above stay as they were
    with open(texts, "wb") as f:
        f.write(b"t,n,d\n" + b"".join(
            b'"%s",%s,2024-03-%02d\n' % (
                trng.choice([b"GET", b'a""b', b"x,y", b"\xc3\xa9", b"\xff", b""]),
                trng.choice([b"1", b"1.0", b"-0", b"2.5", b"", b"9007199254740993"]),
                trng.randint(1, 28))
            for _ in range(30)))
    out["profiles"] = emit(colstat, ["-c", "t,n,d", "--distinct", "--top",
                                     "3"], texts)
    out["texts"] = emit(colstat, ["-c", "t,n"], texts)
    # a group's profiles (its text column, the values' counts)
    out["group_profiles"] = emit(colstat, ["-g", "n", "-c", "t,d",
                                           "--distinct", "--top", "2"], texts)
    # a part without rows: a header alone
    empty = os.path.join(tmp, "f.csv")
    with open(empty, "w") as f:
        f.write("a,b\n")
    out["norows"] = emit(colstat, ["--sum"], empty)
    return out


def seeds(states):
    rng = random.Random(11)
    out = {}
    for name, line in states.items():
        data = statefile.unline(line)
        out[f"real_{name}"] = bytes([0]) + data
        out[f"real_{name}_merge"] = bytes([MERGE]) + data
        out[f"line_{name}"] = bytes([LINE]) + line
        out[f"cut_{name}"] = bytes([0]) + data[:rng.randrange(len(data))]
        out[f"cutline_{name}"] = bytes([LINE]) + line[:rng.randrange(len(line))]
        flip = bytearray(data)
        flip[rng.randrange(len(flip))] ^= 1 << rng.randrange(8)
        out[f"flip_{name}"] = bytes([FIX_CRC]) + bytes(flip)
    base = states["hist"]
    for i, (what, mutate) in enumerate(sorted(statefile.MUTATIONS.items())):
        s = statefile.decode(base)
        mutate(s)
        out["bad_%02d_%s" % (i, "".join(c if c.isalnum() else "_"
                                        for c in what))] = \
            bytes([MERGE]) + statefile.unline(statefile.encode(s))
    for i, (what, mutate) in enumerate(sorted(
            statefile.GROUP_MUTATIONS.items())):
        s = statefile.decode(states["groups"])
        mutate(s)
        out["badgroup_%02d_%s" % (i, "".join(c if c.isalnum() else "_"
                                             for c in what))] = \
            bytes([MERGE]) + statefile.unline(statefile.encode(s))
    s = statefile.decode(states["groups"])
    out["badgroup_count"] = bytes([0]) + statefile.unline(
        statefile.encode(s, ngroups=1 << 40))
    s = statefile.decode(base)
    out["bad_length"] = bytes([0]) + statefile.unline(
        statefile.encode(s, length=1 << 40))
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    colstat = os.path.abspath(sys.argv[1])
    target = os.path.join(HERE, "corpus_merge")
    os.makedirs(target, exist_ok=True)
    for old in os.listdir(target):  # what an earlier list named otherwise
        if not old.startswith("zz_"):  # zz_: found by fuzzing, kept
            os.remove(os.path.join(target, old))
    with tempfile.TemporaryDirectory() as tmp:
        made = seeds(real_states(colstat, tmp))
    for name, data in sorted(made.items()):
        with open(os.path.join(target, name), "wb") as f:
            f.write(data)
    print(f"{len(made)} seeds in {target}")


if __name__ == "__main__":
    main()
