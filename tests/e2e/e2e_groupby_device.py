#!/usr/bin/env python3
"""End-to-end: group-by's device path against the host's, byte for byte.

usage: python3 tests/e2e/e2e_groupby_device.py /path/to/colstat   (cwd = repo root)

`--device gpu -g` reduces each row batch with the device's steps (the key
table, the sort by group, the chunked reduction: src/stats/group_core.h,
gpu/group_rows.cu) and merges the pieces into the host's groups.
COLSTAT_GPU_GROUP=host runs those steps on the host (src/engine/group_gpu.c),
so that the merge is tested without a device; with a GPU present (the
device machine) the same runs without the variable test the device
itself. Random CSV (keys with quotes, commas, newlines, unicode, the
missing key; one group, 1,000 and 100,000; two key columns; values past
the device's exact sums: the host then takes the batch) and binary input,
several files, gzip, stdin, -j 1, 2, 16; the JSON of `--device cpu` and
`--device gpu` must be identical, and -v must say where the batches went.
Statistics the device does not reduce (std, histograms; medians and
quantiles where the host parses) run on the host with a -v line. Seed printed; COLSTAT_SEED reproduces.
"""
import gzip
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_groupby import TEXT_KEYS, value, write_csv  # noqa: E402
from harness import QUICK, Suite, cmdline  # noqa: E402
from e2e_gzip_stream import run_pipe  # noqa: E402

STEPS = {"COLSTAT_GPU_GROUP": "host"}
# the host parses and the device reduces its row batches (the device
# parses plain CSV itself otherwise: test_raw)
BATCHES = {"COLSTAT_GPU_PARSE": "0"}
ENVS = [STEPS]  # and {} and BATCHES (the device itself) with a GPU


def gpu_present(suite):
    p = suite.path("probe.csv")
    with open(p, "w") as f:
        f.write("a\n1\n")
    return suite.run(["--device", "gpu", p])[0] == 0


def run_env(suite, args, env, stdin=None):
    p = subprocess.run([suite.exe] + [str(a) for a in args], input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, **env), timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def same(suite, tag, args, stdin=None, envs=None):
    """--device cpu against --device gpu (each env of envs), -v on the
    GPU side: the same stdout and status."""
    c = run_env(suite, ["--device", "cpu", "--json"] + args, {}, stdin)
    suite.check(c[0] == 0, f"{tag}: {cmdline(args)} exits 0", c[2])
    for env in envs:
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env, stdin)
        label = ("steps on the host" if env == STEPS else
                 "device, the host parsing" if env == BATCHES else "device")
        suite.check(g[0] == c[0] and g[1] == c[1],
                    f"{tag} ({label}): --device gpu prints --device cpu's bytes",
                    g[2][-600:])
        suite.check("group-by reduces on the device" in g[2] and
                    (" batches reduced on the device" in g[2] or
                     "grouped on the device" in g[2]),
                    f"{tag} ({label}): -v says the device reduced", g[2][-600:])


def key(rng, g, nkeys, ngroups):
    ks = ["%s%d" % (TEXT_KEYS[(g + j) % len(TEXT_KEYS)], g // len(TEXT_KEYS))
          for j in range(nkeys)]
    if g % 13 == 12 and ngroups > 1:
        ks[0] = ""
    return ks


def big(rng):
    """A value past the device's exact sums at times: the host takes its batch."""
    r = rng.random()
    if r < 0.002:
        return rng.choice(["1e300", "-1e300", "inf", "1e-320"])
    return value(rng)


def csv_case(suite, name, nrows, ngroups, nkeys, wide=False, opener=open):
    rng = suite.rng
    header = ["x"] + ["k%d" % i for i in range(nkeys)] + ["y", "z"]
    rows = []
    for i in range(nrows):
        g = i if i < ngroups else rng.randrange(ngroups)
        rows.append([(big if wide else value)(rng)] + key(rng, g, nkeys, ngroups) +
                    [value(rng), str(rng.randint(-2**62, 2**62))])
    p = suite.path(name)
    write_csv(p, header, rows, opener)
    return p, ",".join(header[1:1 + nkeys])


def test_csv(suite):
    envs = ENVS
    many = 10000 if QUICK else 100000
    for ngroups, nkeys, wide in ((1, 1, False), (1000, 1, False), (1000, 2, True),
                                 (many, 1, False)):
        p, keys = csv_case(suite, f"c{ngroups}_{nkeys}.csv", max(2 * ngroups, 3000),
                           ngroups, nkeys, wide)
        for j in (1, 2, 16) if ngroups < many else (2,):
            same(suite, f"{ngroups} groups, {nkeys} keys, -j {j}",
                 ["-g", keys, "-j", j, p], envs=envs)
        same(suite, f"{ngroups} groups --sum --min --max",
             ["-g", keys, "--sum", "--min", "--max", p], envs=envs)


def test_files_gzip_stdin(suite):
    envs = ENVS
    a, _ = csv_case(suite, "a.csv", 2500, 300, 1)
    b, _ = csv_case(suite, "b.csv.gz", 3500, 400, 1, True, gzip.open)
    same(suite, "two files, gzip", ["-g", "k0", a, b], envs=envs)
    with open(b, "rb") as f:
        same(suite, "gzip on stdin", ["-g", "k0", "-"], f.read(), envs=envs)
    with open(a, "rb") as f:
        same(suite, "stdin", ["-g", "k0", "-c", "x,z", "-"], f.read(), envs=envs)


def test_binary(suite):
    envs = ENVS
    rng = suite.rng
    for ngroups in (1, 1000, 10000 if QUICK else 100000):
        p = suite.path(f"b{ngroups}.bin")
        with open(p, "wb") as f:
            for i in range(max(2 * ngroups, 5000)):
                g = i if i < ngroups else rng.randrange(ngroups)
                f.write(struct.pack("<idqf", g * 7 - 50, rng.uniform(-1e6, 1e6),
                                    rng.randint(-2**63, 2**63 - 1),
                                    rng.choice([float("nan"), 1.5, -2.25])))
        same(suite, f"binary, {ngroups} groups", ["-b", "i32,f64,i64,f32", "-g", "1", p],
             envs=envs)


def test_sparse(suite):
    """The first batch probes the device while the others go to the host;
    one of more groups than 1 in 4 rows sends the rest to the host (the
    device only adds work there: 51.9 s against 15.2 s on an H100 with
    10^6 keys), with a -v line; fewer groups keep the device. The same
    answer either way."""
    rng = suite.rng
    n = 20000 if QUICK else 300000
    # 3 rows, 3 groups: too few to judge (no -v line of many groups); on
    # a GPU the probe holds the context's opening, so the batches after
    # it may all be the host's: how many is timing, not checked
    tiny = suite.path("tiny.csv")
    with open(tiny, "w") as f:
        f.write("k,v,w\nt1,1,2\nt2,3,4\nt3,5,6\n")
    for tag, ngroups, sparse, first in (("distinct keys", n, True, []),
                                        ("50 keys", 50, False, []),
                                        ("50 keys after a tiny file", 50,
                                         False, [tiny])):
        p = suite.path(f"sparse{ngroups}.csv")
        with open(p, "w") as f:
            f.write("k,v,w\n")
            for i in range(n):
                g = rng.randrange(ngroups) if ngroups < n else i
                f.write("k%d,%d,%s\n" % (g, rng.randint(-999, 999), value(rng)))
        # 16 workers: without the probe several first batches went to the
        # device at once (2 or 3 of 75 with the steps here, 16 on an H100)
        args = ["-g", "k", "--sum", "--min", "--max", "-j", "16"] + first + [p]
        for env in [e if e else BATCHES for e in ENVS if e != BATCHES]:
            c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
            g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
            label = "steps on the host" if env == STEPS else "device"
            suite.check(c[0] == 0 and g[:2] == c[:2], f"{tag} ({label}): "
                        "--device gpu prints --device cpu's bytes", g[2][-600:])
            line = [x for x in g[2].splitlines() if "batches reduced" in x]
            dev, host = ((int(line[0].split("groups")[1].split()[0]),
                          int(line[0].split(", ")[1].split()[0]))
                         if line else (-1, -1))
            said = "the host reduced the batches after it" in g[2]
            # batches of 4096 rows with the steps, 2^18 on the device;
            # while the first probes the device the others are the host's
            more = env == STEPS or n > 1 << 18
            suite.check(said == sparse and dev >= 1 and
                        (dev == 1 or not sparse) and
                        (host > 0 or not (sparse and more)),
                        f"{tag} ({label}): the device probed by one batch, "
                        f"the host takes the rest after a sparse one: {sparse}",
                        g[2][-600:])


# a quote inside an unquoted field (b""q) stops the device at once
# (RFC 4180 has no rule for it: e2e_gpu_csv), so none here
RAW_KEYS = ['a', ' a ', '"a "', '"a"  ', '"b""q"', '"c,d"',
            '"line\nbreak"', 'caf\u00e9', '"\u65e5\u672c"', 'NA', '"NA"',
            '', '""', '  ', '200', '200.0', '"x""""y"', 'tab\tkey']


def raw_value(rng):
    r = rng.random()
    if r < 0.03:
        return " %s " % value(rng)
    return value(rng)


def raw_file(suite, name, rows, order, rng, crlf=False, blanks=False):
    """Text written by hand (the keys' quotes and blanks as they stand):
    columns in `order` of (k, x, y, k2)."""
    nl = "\r\n" if crlf else "\n"
    p = suite.path(name)
    with open(p, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(order) + nl)
        for i, row in enumerate(rows):
            f.write(",".join(row[c] for c in order) + nl)
            if blanks and rng.random() < 0.01:
                f.write(nl)
    return p


def raw_rows(rng, n, keys, big=0.0):
    rows = []
    for _ in range(n):
        x = raw_value(rng)
        if rng.random() < big:
            x = rng.choice(["1e300", "-1e300", "inf", "1e-320", "1e200"])
        rows.append({"k": rng.choice(keys), "k2": rng.choice(keys[:6]),
                     "x": x, "y": str(rng.randint(-2**62, 2**62))})
    return rows


def said_device(err):
    return "grouped on the device" in err


def test_raw(suite):
    """With a GPU, plain CSV is parsed and grouped on the device (its key
    fields hashed where the device finds them, group_raw.cu): the same
    bytes as --device cpu for keys quoted, blank-padded, doubled quotes,
    null spellings, line breaks, two key columns, files whose columns come
    in other orders, stdin, gzip, blank lines and CRLF; segments made small
    (many per input); 70,000 groups (the device's table grown); and where
    the device stops (a segment of far more new groups than its room, a
    key longer than it takes, a sum past its exact range) the host goes on
    from that segment, with -v's reason."""
    if {} not in ENVS:
        suite.check(True, "no GPU: the device's own group-by is the GPU host's")
        return
    rng = suite.rng
    n = 3000 if QUICK else 30000
    rows = raw_rows(rng, n, RAW_KEYS)
    a = raw_file(suite, "ra.csv", rows, ["k", "x", "y", "k2"], rng)
    b = raw_file(suite, "rb.csv", raw_rows(rng, n, RAW_KEYS),
                 ["y", "k2", "x", "k"], rng, crlf=True, blanks=True)
    small = {"COLSTAT_GPU_RAW_BYTES": "4096"}
    for env, tag in (({}, "segments of 16 MiB"), (small, "segments of 4 KiB")):
        for args in (["-g", "k", a], ["-g", "k", "--null", "NA", a],
                     ["-g", "k,k2", "-j", "16", a, b],
                     ["-g", "k", "-c", "x,y,k", "--sum", "--min", "--max", b],
                     ["-g", "k2", "-j", "1", b, a]):
            c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
            g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
            suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]),
                        f"raw, {tag}: {cmdline(args)}: the CPU's bytes",
                        g[2][-800:])
    with open(b, "rb") as f:
        data = f.read()
    for tag, stdin in (("stdin", data), ("gzip on stdin", gzip.compress(data))):
        args = ["-g", "k", "-"]
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {}, stdin)
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, small,
                    stdin)
        suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]),
                    f"raw, {tag}: the CPU's bytes", g[2][-800:])
    # many groups: the device's table and state grow as they come (from
    # 65,536 and 4,096 groups), in one segment or in many
    many = 70000
    keys = ["k%d" % i for i in range(many)]
    rs = raw_rows(rng, many + 5000, keys)
    for i in range(many):
        rs[i]["k"] = keys[i]
    p = raw_file(suite, "many.csv", rs, ["k", "x", "y", "k2"], rng)
    for env, tag in (({}, "one segment"), (small, "segments of 4 KiB")):
        args = ["-g", "k", "-j", "16", p]
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
        suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]) and
                    "stopped" not in g[2],
                    f"raw, {many} groups, {tag}: the device's, the CPU's bytes",
                    g[2][-800:])
    # a segment of far more new groups than any before it: the device
    # stops there (its room is grown ahead from the segments before)
    few = [{"k": "f%d" % rng.randrange(50), "k2": "a", "x": raw_value(rng),
            "y": "1"} for _ in range(200000)]
    # not made smaller under QUICK: 60,000 new keys fit the device's room
    fresh = [{"k": "n%d" % i, "k2": "b", "x": raw_value(rng), "y": "2"}
             for i in range(200000)]
    stops = (("a burst of new groups", few + fresh,
              {"COLSTAT_GPU_RAW_BYTES": "1048576"},
              "more groups than the device's table holds"),
             ("a long key", raw_rows(rng, n, RAW_KEYS), small,
              "a group key longer than the device takes"),
             ("a big sum", raw_rows(rng, n, RAW_KEYS, 0.001), small,
              "a group's sum past the device's exact range"))
    for tag, rs, env, why in stops:
        if tag == "a long key":  # past the first segments
            rs[len(rs) // 2]["k"] = "L" * 600
        if tag == "a big sum":  # at least one, whatever the draws
            rs[len(rs) // 2]["x"] = "1e300"
        p = raw_file(suite, "stop.csv", rs, ["k", "x", "y", "k2"], rng)
        for j in ("1", "16"):
            args = ["-g", "k", "-j", j, p]
            c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
            g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
            suite.check(c[0] == 0 and g[:2] == c[:2],
                        f"raw, {tag}, -j {j}: the CPU's bytes", g[2][-800:])
            suite.check(why in g[2] and "the host parsed from here" in g[2],
                        f"raw, {tag}: -v says the device stopped: {why}",
                        g[2][-800:])


def test_raw_wide(suite):
    """A wide table (the device's edge pieces and first state sized down
    for it) and a key of many columns (more key places than the device
    takes: it groups nothing and says why): the CPU's bytes either way."""
    if {} not in ENVS:
        suite.check(True, "no GPU: the device's own group-by is the GPU host's")
        return
    rng = suite.rng
    ncols, nrows = 300, 1500 if QUICK else 6000
    p = suite.path("wide.csv")
    with open(p, "w") as f:
        f.write(",".join(["k"] + ["c%d" % i for i in range(ncols)]) + "\n")
        for _ in range(nrows):
            f.write(",".join(["g%d" % rng.randrange(40)] +
                             [value(rng) for _ in range(ncols)]) + "\n")
    nkeys = 40
    q = suite.path("manykeys.csv")
    with open(q, "w") as f:
        f.write(",".join(["k%d" % i for i in range(nkeys)] + ["v"]) + "\n")
        for _ in range(nrows):
            f.write(",".join([str(rng.randrange(2)) for _ in range(nkeys)] +
                             [value(rng)]) + "\n")
    keys = ",".join("k%d" % i for i in range(nkeys))
    for tag, args, why in (("300 columns", ["-g", "k", p], None),
                           ("40 key columns", ["-g", keys, "-c", "v", q],
                            "no device memory for the groups' buffers")):
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, {})
        suite.check(c[0] == 0 and g[:2] == c[:2],
                    f"raw, {tag}: the CPU's bytes", g[2][-800:])
        suite.check(why in g[2] if why else "stopped" not in g[2] and
                    said_device(g[2]), f"raw, {tag}: -v: {why or 'the device'}",
                    g[2][-800:])


def test_raw_quantiles(suite):
    """--median and --quantiles per group with the device parsing: it
    keeps each row's values with its group, sorts each group's values
    (gpu/group_values.cu) and hands them to the host, whose quantiles
    then need no sort: the CPU's bytes for many segments, several inputs,
    gzip on stdin, 70,000 groups, integers past 2^53 (their corrections
    travel with the values; ties of one double sorted again on the host),
    NaN, infinities and missing fields, and where the device stops (a sum
    past its range: the groups then hold values of both), and a slow
    writer's pipe (plain and gzip)."""
    if {} not in ENVS:
        suite.check(True, "no GPU: the device's own group-by is the GPU host's")
        return
    rng = suite.rng
    n = 3000 if QUICK else 30000

    def odd(rng):
        r = rng.random()
        if r < 0.02:
            return rng.choice(["nan", "inf", "-inf", "", "-0", "0", "x"])
        return raw_value(rng)

    rows = raw_rows(rng, n, RAW_KEYS)
    for r in rows:
        r["x"] = odd(rng)
        if rng.random() < 0.3:  # one double for several integers
            r["y"] = str(2**60 + rng.randrange(64))
    a = raw_file(suite, "qa.csv", rows, ["k", "x", "y", "k2"], rng)
    b = raw_file(suite, "qb.csv", raw_rows(rng, n, RAW_KEYS),
                 ["y", "k2", "x", "k"], rng, crlf=True)
    many = 70000
    keys = ["k%d" % i for i in range(many)]
    rs = raw_rows(rng, many + 20000, keys)
    m = raw_file(suite, "qm.csv", rs, ["k", "x", "y", "k2"], rng)
    stop = raw_file(suite, "qs.csv", raw_rows(rng, n, RAW_KEYS, 0.001),
                    ["k", "x", "y", "k2"], rng)
    small = {"COLSTAT_GPU_RAW_BYTES": "4096"}
    cases = [({}, ["-g", "k", "--median", a]),
             (small, ["-g", "k", "--median", "--quantiles", "0.1,0.9,1",
                      "-j", "16", a, b]),
             (small, ["-g", "k,k2", "--quantiles", "0,0.25,0.5", "-c", "x,y",
                      a]),
             ({}, ["-g", "k", "--median", "--sum", "--min", "--max", m]),
             (small, ["-g", "k2", "--median", "-j", "1", stop])]
    for env, args in cases:
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
        suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]),
                    f"raw quantiles: {cmdline(args)}: the CPU's bytes",
                    g[2][-800:])
    # the sort too big for the device (COLSTAT_GPU_SORT_BYTES): the host
    # orders the values, alone (b: no value the device's sums stop at) or
    # with groups of its own (where the device grouped rows before its
    # stop, -v says the host sorted)
    tight = {"COLSTAT_GPU_SORT_BYTES": "1"}
    for env, args in ((tight, ["-g", "k", "--median", "--quantiles", "0.3", b]),
                      (dict(small, **tight), ["-g", "k2", "--median", stop])):
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, env)
        none = "grouped on the device (0 rows" in g[2]
        suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]) and
                    (none or "sorted on the host" in g[2]),
                    f"raw quantiles, no room for the sort: {cmdline(args)}: "
                    "the CPU's bytes, -v says the host sorted", g[2][-800:])
    # no room to keep values (COLSTAT_GPU_KEEP_BYTES): the device stops at
    # its first segment with values and the host parses the rest; before
    # the group path passed the hook on, the device kept every value
    for keep in ("0", "20000"):
        args = ["-g", "k", "--median", "--quantiles", "0.25", b]
        c = run_env(suite, ["--device", "cpu", "--json"] + args, {})
        g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args,
                    dict(small, COLSTAT_GPU_KEEP_BYTES=keep))
        suite.check(c[0] == 0 and g[:2] == c[:2] and
                    "values kept to the end past the device's room" in g[2],
                    f"raw quantiles, {keep} bytes to keep values: the CPU's "
                    "bytes, -v says the device stopped", g[2][-800:])
    # a pipe whose writer is slow (chunks of 1 byte to 256 KiB, pauses):
    # plain and gzip, the device's segments small
    with open(a, "rb") as f:
        plain = f.read()
    for tag, blob in (("plain", plain), ("gzip", gzip.compress(plain))):
        for stats in (["--median", "--quantiles", "0.9"],
                      ["--sum", "--min", "--max"]):
            args = ["-g", "k"] + stats
            c = run_env(suite, ["--device", "cpu", "--json"] + args + [a], {})
            rc, out, err = run_pipe(suite, blob,
                                    ["--device", "gpu", "--json", "-v"] + args,
                                    small, rng.randrange(1 << 30))
            suite.check(c[0] == 0 and rc == 0 and out == c[1] and
                        said_device(err),
                        f"raw, a slow writer's pipe ({tag}), {cmdline(stats)}: "
                        "the CPU's bytes from the file", err[-800:])
    with open(b, "rb") as f:
        data = gzip.compress(f.read())
    args = ["-g", "k", "--median", "-"]
    c = run_env(suite, ["--device", "cpu", "--json"] + args, {}, data)
    g = run_env(suite, ["--device", "gpu", "--json", "-v"] + args, small, data)
    suite.check(c[0] == 0 and g[:2] == c[:2] and said_device(g[2]),
                "raw quantiles, gzip on stdin: the CPU's bytes", g[2][-800:])


def test_host_statistics(suite):
    """std and histograms per group are the host's; with the host parsing
    (COLSTAT_GPU_PARSE=0, or the steps on the host) medians are too."""
    envs = ENVS
    p, keys = csv_case(suite, "h.csv", 500, 20, 1)
    for env in envs:
        for stat in ("--std", "--median"):
            rc, out, err = run_env(
                suite, ["--device", "gpu", "-v", "-g", keys, stat, p], env)
            host = stat == "--std" or env != {}
            said = "group-by runs on the host" in err
            suite.check(rc == 0 and said == host,
                        f"{stat} ({env or 'the device parsing'}): "
                        f"{'the host' if host else 'the device'}, -v says so",
                        err[-400:])


if __name__ == "__main__":
    s = Suite("e2e_groupby_device", sys.argv)
    if gpu_present(s):
        ENVS += [{}, BATCHES]
    s.run_tests([test_csv, test_files_gzip_stdin, test_binary, test_sparse,
                 test_raw, test_raw_wide, test_raw_quantiles,
                 test_host_statistics])
