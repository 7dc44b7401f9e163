#!/usr/bin/env python3
"""CPU and GPU backends must print byte-identical JSON.

Random CSV and binary inputs of many sizes (0, 1, around block sizes, primes)
run through `colstat --device cpu` and `--device gpu` with every statistic,
with and without --range, and the outputs are compared byte for byte; among
them integer columns past 2^53 (CSV, and binary i64 and u64), which both
keep exact; files joined by cat (the header again between records, no
rows), from a file and from a pipe; columns selected twice and
two columns of one name; date, datetime and unit columns; --group-by
(one group, 1,000 and 100,000 groups, two key columns, the missing key,
keys with quotes, commas, newlines and unicode, several files, gzip,
stdin, binary input); --distinct, --mode and --top of numbers, dates
and units, counted on the device (-v says so), with the device's room
for values at none, some and all. Without a usable GPU the test is skipped
(exit 77); --selfcheck runs without one: the CPU at one thread against the
CPU at its default, the same bytes required. Seed: COLSTAT_SEED or
fresh."""
import gzip
import os
import random
import struct
import subprocess
import sys
import tempfile

COLSTAT = sys.argv[1]
SELFCHECK = "--selfcheck" in sys.argv[2:]
SEED = int(os.environ.get("COLSTAT_SEED", random.SystemRandom().randrange(2**32)))
print("e2e_gpu_diff: seed %d (replay with COLSTAT_SEED=%d)" % (SEED, SEED))
rng = random.Random(SEED)
QUICK = bool(os.environ.get("COLSTAT_TEST_QUICK"))


def gpu_usable(tmp):
    p = os.path.join(tmp, "probe.csv")
    with open(p, "w") as f:
        f.write("a\n1\n")
    r = subprocess.run([COLSTAT, "--device", "gpu", p], capture_output=True, text=True)
    if r.returncode != 0:
        print("e2e_gpu_diff: skipped: " + r.stderr.strip())
        return False
    return True


def big_int():
    """An integer where doubles are coarse: past 2^53, up to 2^64, in
    clusters that round to one double."""
    r = rng.random()
    if r < 0.3:
        return (1 << 60) + rng.randint(-600, 600)
    if r < 0.4:
        return rng.choice([1 << 64, (1 << 64) - 1, -(1 << 64), (1 << 53) + 1])
    return rng.choice([1, -1]) * (rng.randint(0, 1 << 64) >> rng.randint(0, 11))


def value(kind):
    if kind == 5:  # an integer column (a rare fraction makes it mixed)
        return str(big_int()) if rng.random() > 0.001 else "0.5"
    if kind == 0:
        return str(rng.randint(-10**6, 10**6))
    if kind == 1:
        return "%.2f" % rng.uniform(0, 10000)
    if kind == 2:
        return repr(rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300))
    if kind == 3:
        return "%.6e" % rng.gauss(1e9, 1e-3)
    return rng.choice(["", "nan", "inf", "-inf", "x", "1e400", "-0", "0"])


def write_csv(path, rows, ncols):
    kinds = [rng.choice([0, 1, 2, 3, 5]) for _ in range(ncols)]
    with open(path, "w") as f:
        f.write(",".join("c%d" % i for i in range(ncols)) + "\n")
        for _ in range(rows):
            f.write(",".join(value(k if rng.random() > 0.02 else 4) for k in kinds) + "\n")


def write_f64(path, rows, ncols):
    with open(path, "wb") as f:
        vals = []
        for _ in range(rows * ncols):
            r = rng.random()
            if r < 0.01:
                vals.append(float("nan"))
            elif r < 0.5:
                vals.append(rng.uniform(-1e6, 1e6))
            else:
                vals.append(rng.choice([1.0, -1.0]) * 2.0 ** rng.randint(-1070, 1020) * rng.random())
        f.write(struct.pack("<%dd" % len(vals), *vals))


def write_ints(path, rows):
    """Records of i64, u64, i64: integers past 2^53, exact on both."""
    with open(path, "wb") as f:
        for _ in range(rows):
            a, b, c = big_int(), big_int(), big_int()
            f.write(struct.pack("<qQq", max(-(1 << 63), min(a, (1 << 63) - 1)),
                                min(abs(b), (1 << 64) - 1),
                                1735704000123456789 + (c & 3)))


def write_tiny(path, rows):
    """Records of two or three bytes: more rows in one block than a GPU
    staging slot holds, which takes the backend's other path."""
    with open(path, "w") as f:
        f.write("a\n")
        f.write("".join("%d\n" % rng.randrange(-9, 10) for _ in range(rows)))


def write_mixed(path, rows):
    """Records of i32, f64, u8 (13 bytes): fields off their natural
    alignment, odd record counts per device segment."""
    with open(path, "wb") as f:
        for _ in range(rows):
            f.write(struct.pack("<idB", rng.randint(-2**31, 2**31 - 1),
                                rng.uniform(-1e9, 1e9), rng.randrange(256)))


def write_kinds(path, rows):
    """Dates, datetimes with zones and fractions, numbers with units
    (some with separators, some in another unit: invalid), and a few
    fields of nothing: parsed on the device from the host's core."""
    with open(path, "w") as f:
        f.write("day,at,price,lat\n")
        for i in range(rows):
            y, m, d = rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28)
            at = "%04d-%02d-%02dT%02d:%02d:%02d.%d%s" % (
                y, m, d, rng.randrange(24), rng.randrange(60), rng.randrange(60),
                rng.randrange(10**6), rng.choice(["Z", "+05:30", "-0800", ""]))
            price = '"%s$%s"' % (rng.choice(["", "-"]), "{:,}".format(
                rng.randrange(10**9)))
            lat = "%d%s" % (rng.randrange(10**6), rng.choice(["ms"] * 30 + ["s"]))
            f.write("%04d-%02d-%02d,%s,%s,%s\n" % (
                y, m, d, at if rng.random() > 0.01 else "", price, lat))


def write_profiled(path, rows):
    """Columns of few values, for --distinct, --mode and --top: one value
    spelled many ways (1, 1.0, 1e0; -0 and 0), integers past 2^53 that
    share a double but not a value, the same in a column with one
    fraction (one value a double there), dates, numbers with a unit, and
    fields that enter no count (missing, nan, text)."""
    small = ["1", "1.0", "1e0", "-0", "0", "0.0", "2.5", "2.50", "-7", "1e400"]
    big = [str((1 << 60) + d) for d in range(-300, 301, 37)]
    days = ["2024-02-%02d" % d for d in range(1, 29)]
    with open(path, "w") as f:
        f.write("small,big,bigmix,day,ms,odd\n")
        for i in range(rows):
            f.write(",".join([
                rng.choice(small + ["", "nan"]) if rng.random() > 0.05 else "x",
                rng.choice(big),
                rng.choice(big) if i != rows // 2 else "0.5",
                rng.choice(days) if rng.random() > 0.02 else "",
                "%dms" % rng.randrange(50),
                repr(rng.uniform(-1, 1)) if rng.random() > 0.3 else str(
                    rng.randrange(-3, 3))]) + "\n")


def profile_cases(tmp):
    """--distinct, --mode and --top on the device: values all on the
    device, all in the host store (COLSTAT_GPU_KEEP_BYTES=0) and split
    between them; from a file, a pipe and gzip; with the median."""
    out = []
    for n in [1, 2, 1000, 70001] + ([] if QUICK else [400003]):
        path = os.path.join(tmp, "prof%d.csv" % n)
        write_profiled(path, n)
        gz = path + ".gz"
        with open(path, "rb") as a, gzip.open(gz, "wb") as b:
            b.write(a.read())
        top = str(rng.choice([1, 3, 10, 1000]))
        for keep in ("", "0", str(rng.randint(1000, 400000))):
            env = {"COLSTAT_GPU_KEEP_BYTES": keep} if keep else None
            out.append((["--distinct", "--mode", "--top", top, path], env, None))
            out.append((["--distinct", "--top", top, "--median", "--sum", gz],
                        env, None))
        out.append((["--distinct", "--mode", "--top", top, "-"], None,
                    open(path, "rb").read()))
    for n in (3, 4097):
        csv = os.path.join(tmp, "pr.csv")
        write_csv(csv, n, rng.randint(1, 4))
        f64 = os.path.join(tmp, "pr.f64")
        write_f64(f64, n, 2)
        ints = os.path.join(tmp, "pr.i64")
        write_ints(ints, n)
        kinds = os.path.join(tmp, "pr_kinds.csv")
        write_kinds(kinds, n)
        for args in (["--distinct", "--top", "5", csv],
                     ["--mode", "--top", "4", "-b", "f64x2", f64],
                     ["--distinct", "--mode", "--top", "9", "-b", "i64,u64,i64", ints],
                     ["--distinct", "--top", "3", "--thousands", ",", kinds]):
            out.append((args, None, None))
    return out


def arena_case(tmp):
    """Ten inputs whose kept values (the median's) fill 60% of the
    device's room: the arena grows input by input and the device never
    stops. It did, in the fifth, while the old arena's bytes and the new
    one's both had to fit the room. The same bytes as the CPU's."""
    rows = 20000
    path = os.path.join(tmp, "arena.csv")
    with open(path, "w") as f:
        f.write("a\n" + "".join("%d\n" % rng.randrange(1000) for _ in range(rows)))
    args = ["--median", "--sum"] + [path] * 10
    env = {"COLSTAT_GPU_KEEP_BYTES": str(16 * rows * 12)}
    ok = same(args, "ten inputs' values in the device's room", env)
    if ok and not SELFCHECK:
        v = run(["--device", "gpu", "-v", "--json"] + args, env)[2]
        if b"GPU parse stopped" in v:
            print("ARENA: the device stopped\n" + v.decode()[-800:])
            ok = False
    return ok


def write_joined(path, parts, ncols):
    """Files of one header joined by cat: the header line again between
    records, after a BOM or with CRLF at times."""
    with open(path, "w", newline="") as out:
        for k in range(parts):
            part = path + ".part"
            write_csv(part, rng.choice([0, 1, 5, 300, 4097]), ncols)
            with open(part) as f:
                text = f.read()
            if k and rng.random() < 0.3:
                head, _, rest = text.partition("\n")
                text = rng.choice(["\ufeff", ""]) + head + "\r\n" + rest
            out.write(text)
            os.unlink(part)


KEY_WORDS = ['a', 'b"q', 'c,d', 'line\nbreak', 'caf\u00e9', '\u65e5\u672c', ' x', '200',
             '200.0', '-3']


def csv_field(text):
    if any(c in text for c in ',"\n\r') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def write_grouped(path, rows, ngroups, nkeys, opener=open):
    """Key columns k0.. (groups drawn from ngroups, one in 13 with its
    first key missing) among value columns x, y, z."""
    with opener(path, "wt", encoding="utf-8", newline="") as f:
        f.write(",".join(["x"] + ["k%d" % i for i in range(nkeys)] + ["y", "z"]) + "\n")
        for i in range(rows):
            g = i if i < ngroups else rng.randrange(ngroups)
            keys = ["%s%d" % (KEY_WORDS[(g + j) % len(KEY_WORDS)], g // len(KEY_WORDS))
                    for j in range(nkeys)]
            if g % 13 == 12:
                keys[0] = ""
            f.write(",".join([value(rng.choice([0, 1, 5]) if rng.random() > 0.02 else 4)] +
                             [csv_field(k) for k in keys] +
                             [value(0), value(1)]) + "\n")


def write_grouped_bin(path, rows, ngroups):
    """Records i32 (the key), f64, i64."""
    with open(path, "wb") as f:
        for i in range(rows):
            g = i if i < ngroups else rng.randrange(ngroups)
            f.write(struct.pack("<idq", g * 7 - 50, rng.uniform(-1e6, 1e6),
                                rng.randint(-2**40, 2**40)))


def group_cases(tmp):
    """(args, label, stdin) of the --group-by runs."""
    out = []
    many = 10000 if QUICK else 100000
    for ngroups, nkeys in ((1, 1), (1000, 1), (1000, 2), (many, 1)):
        p = os.path.join(tmp, "g%d_%d.csv" % (ngroups, nkeys))
        write_grouped(p, max(2 * ngroups, 5000), ngroups, nkeys)
        keys = ",".join("k%d" % i for i in range(nkeys))
        out.append((["-g", keys, "--sum", "--min", "--max", p], "group-by %d" % ngroups, None))
        out.append((["-g", keys, "-a", p], "group-by -a %d" % ngroups, None))
    a, b = os.path.join(tmp, "ga.csv"), os.path.join(tmp, "gb.csv.gz")
    write_grouped(a, 3000, 200, 1)
    write_grouped(b, 4000, 300, 1, gzip.open)
    out.append((["-g", "k0", "--sum", "--min", "--max", a, b], "group-by two files, gzip", None))
    with open(b, "rb") as f:
        out.append((["-g", "k0", "-a", "-"], "group-by gzip stdin", f.read()))
    with open(a, "rb") as f:
        out.append((["-g", "k0", "--sum", "-"], "group-by stdin", f.read()))
    for ngroups in (1, 1000, many):
        p = os.path.join(tmp, "g%d.bin" % ngroups)
        write_grouped_bin(p, max(2 * ngroups, 5000), ngroups)
        out.append((["-b", "i32,f64,i64", "-g", "1", "--sum", "--min", "--max", p],
                    "group-by binary %d" % ngroups, None))
    return out


def run(args, env=None, stdin=None):
    r = subprocess.run([COLSTAT] + args, capture_output=True, input=stdin,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


def same(args, label, gpu_env=None, stdin=None, status=0):
    """CPU and GPU JSON for args, byte for byte (stderr too); prints what
    differs. --selfcheck: one CPU thread against the default."""
    c = run(["--json", "--device", "cpu"] + args, stdin=stdin)
    if SELFCHECK:
        g = run(["--json", "--device", "cpu", "-j", "1"] + args, stdin=stdin)
    else:
        g = run(["--json", "--device", "gpu"] + args, gpu_env, stdin)
    if c == g and c[0] == status:
        return True
    print("DIFF %s args=%s\ncpu rc=%d %s\ngpu rc=%d %s" % (
        label, args, c[0], c[2].decode()[:300], g[0], g[2].decode()[:300]))
    for a, b in zip(c[1].decode().splitlines(), g[1].decode().splitlines()):
        if a != b:
            print("  cpu: " + a[:200] + "\n  gpu: " + b[:200])
            break
    return False


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        if not SELFCHECK and not gpu_usable(tmp):
            return 77
        sizes = [0, 1, 2, 3, 255, 256, 257, 1023, 1024, 1025, 4095, 4097,
                 65535, 65537, 99991, 131073]
        if not QUICK:
            sizes += [524287, 524289, 1000003]
        for n in sizes:
            ncols = rng.randint(1, 5)
            csv = os.path.join(tmp, "t.csv")
            f64 = os.path.join(tmp, "t.f64")
            write_csv(csv, n if n < 200000 else n // 4, ncols)
            write_f64(f64, n, ncols)
            ints = os.path.join(tmp, "t.i64")
            write_ints(ints, n)
            spec = "f64x%d" % ncols
            lo = rng.uniform(-1e3, 0)
            cases = [["-a", csv], ["-a", "--range", "%r:%r" % (lo, lo + 2e3), csv],
                     ["-a", "--bins", str(rng.choice([1, 7, 5000])), csv],
                     ["-a", "-b", spec, f64],
                     ["--sum", "--max", "--hist", "-b", spec, f64],
                     ["-a", "-b", "i64,u64,i64", ints]]
            for args in cases:
                # no rows: no data (an error, on both; a binary spec's
                # columns are no answer either)
                ok = same(args, "n=%d" % n, status=1 if n == 0 else 0)
                passed, failed = passed + ok, failed + (not ok)
        # Several binary inputs with histograms and no range: each input's
        # values are kept on the device after the previous one's (odd row
        # counts leave gaps), with device segments of even and odd record
        # counts (a one-record segment keeps values in pieces instead).
        mixed = []
        for k in range(3):
            mixed.append(os.path.join(tmp, "m%d.bin" % k))
            write_mixed(mixed[-1], rng.choice([1, 2, 3, 4097, 65537, 99991]))
        for segment in ("13", "26", str(13 * rng.randint(2, 999)), ""):
            for args in (["-a", "-b", "i32,f64,u8"] + mixed,
                         ["--hist", "--bins", "300", "-b", "i32,f64,u8"] + mixed[::-1]):
                ok = same(args, "binary inputs segment=%s" % segment,
                          {"COLSTAT_GPU_RAW_BYTES": segment} if segment else None)
                passed, failed = passed + ok, failed + (not ok)
        # Files joined by cat, read from a file and from a pipe, with raw
        # segments that cut the repeated headers; columns selected twice, and
        # two columns of one name.
        for ncols in (1, 2, 4):
            joined = os.path.join(tmp, "joined%d.csv" % ncols)
            write_joined(joined, rng.randint(2, 40), ncols)
            data = open(joined, "rb").read()
            sel = ["-c", "c0,1,%d,c0" % ncols]
            for segment in ("", "64", "4096", str(rng.randint(65, 9999))):
                env = {"COLSTAT_GPU_RAW_BYTES": segment} if segment else None
                for args, stdin in ((["-a", joined], None), (["-a", "-"], data),
                                    (["-a"] + sel + [joined], None),
                                    (["--sum", "--hist"] + sel + ["-"], data)):
                    ok = same(args, "joined files segment=%s" % segment, env, stdin)
                    passed, failed = passed + ok, failed + (not ok)
        dup = os.path.join(tmp, "dup.csv")
        with open(dup, "w") as f:
            f.write("id,value,value\n")
            for i in range(rng.choice([1, 1000, 70000])):
                f.write("%d,%r,%d\n" % (i, rng.gauss(0, 1), rng.randint(-9, 9)))
        for spec in ("value", "3,3", "value,2", "2-3,3", "!id", "/^v/,1"):
            ok = same(["-a", "-c", spec, dup, dup], "two columns of one name")
            passed, failed = passed + ok, failed + (not ok)
        kinds = os.path.join(tmp, "kinds.csv")
        write_kinds(kinds, rng.choice([1, 4097, 70001]))
        for segment in ("", "4096", str(rng.randint(65, 9999))):
            env = {"COLSTAT_GPU_RAW_BYTES": segment} if segment else None
            for args in (["-a", "--thousands", ",", kinds],
                         ["--min", "--max", "--quantiles", "0.1,0.9",
                          "--thousands", ",", kinds]):
                ok = same(args, "dates and units segment=%s" % segment, env)
                passed, failed = passed + ok, failed + (not ok)
        ok = arena_case(tmp)
        passed, failed = passed + ok, failed + (not ok)
        for args, env, stdin in profile_cases(tmp):
            ok = same(args, "profiles env=%s" % env, env, stdin)
            if ok and not SELFCHECK:
                v = run(["--device", "gpu", "-v", "--json"] + args, env, stdin)[2]
                ok = b"counted on the device" in v
                if not ok:
                    print("NOT ON THE DEVICE args=%s env=%s\n%s" % (
                        args, env, v.decode()[-600:]))
            passed, failed = passed + ok, failed + (not ok)
        for args, label, stdin in group_cases(tmp):
            ok = same(args, label, stdin=stdin)
            passed, failed = passed + ok, failed + (not ok)
        tiny = os.path.join(tmp, "tiny.csv")
        write_tiny(tiny, 1200000 if not QUICK else 600000)
        for args in (["-a", tiny], ["--sum", "--min", "--max", tiny]):
            ok = same(args, "tiny records")
            passed, failed = passed + ok, failed + (not ok)
    print("e2e_gpu_diff: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
