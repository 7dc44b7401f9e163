#!/usr/bin/env python3
"""End-to-end: the ways colstat reads input.

usage: python3 tests/e2e/e2e_inputs.py /path/to/colstat     (cwd = repo root)

gzip (one member and several, from a file and from standard input), several
files read as one table with rows numbered across them (stdin '-' among
them), header detection and --header/--no-header, delimiter detection for
, TAB ; |, -c by names, indices and ranges, and raw binary records for
every type (packed with struct, no numpy). Statistics are checked against
the exact reference of harness.py. Seed printed; COLSTAT_SEED reproduces.
"""
import gzip
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (QUICK, ColRef, CsvCase, Suite,  # noqa: E402
                     check_doc, cmdline, parse_json, read_columns)

ALL = {"count", "sum", "mean", "std", "min", "max", "hist", "median"}


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def gzip_members(rng, data, k):
    """data split at k-1 random points, each piece its own gzip member."""
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(k - 1))
    pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    return b"".join(gzip.compress(p, compresslevel=rng.randint(1, 9))
                    for p in pieces)


def reference(path, case, idx=None):
    names, rows, fields = read_columns(path, case.delim, case.header, case.ncols)
    idx = idx or case.numeric_indices()
    return rows, [(i, names[i - 1], ColRef(fields[i - 1])) for i in idx]


def run_json(suite, tag, args, rows, want, stdin=None, what=ALL):
    rc, out, err = suite.run(args, stdin=stdin)
    t = f"{tag}: {cmdline(args)}" + (" < stdin" if stdin is not None else "")
    if rows == 0 and ("-b" in args or "--binary" in args):
        return no_data(suite, t, args, rc, out, err)
    if suite.check(rc == 0, t + " exits 0", f"status {rc}: {err.strip()}"):
        return check_doc(suite, t, out, rows, want, what)
    return None


def no_data(suite, t, args, rc, out, err):
    """Binary input of no record: no data, as an empty CSV
    (e2e_empty_binary.py has the rest)."""
    name = next((a for a in args if str(a).startswith(suite.dir)),
                "(standard input)")
    line = f"colstat: {name}: no data: the input is empty\n"
    suite.check(rc == 1 and out == b"" and err == line,
                t + " (no record) exits 1: " + line.strip(),
                f"status {rc}: {err!r} {out[:100]!r}")
    return None


def test_gzip(suite):
    rng = suite.rng
    plain = suite.path("g.csv")
    case = CsvCase(rng, plain, rng.randint(500, 3000), header=True)
    rows, want = reference(plain, case)
    data = open(plain, "rb").read()
    base = ["--json", "--all", "-d", case.delim, "-c",
            ",".join(str(i) for i, _, _ in want)]
    for k in (1, 2, 5):
        gz = suite.path(f"g{k}.csv.gz")
        write(gz, gzip_members(rng, data, k))
        run_json(suite, f"gzip {k} member(s), file", [gz] + base, rows, want)
        run_json(suite, f"gzip {k} member(s), stdin", base, rows, want,
                 stdin=open(gz, "rb").read())
        run_json(suite, f"gzip {k} member(s), '-'", ["-"] + base, rows, want,
                 stdin=open(gz, "rb").read())
    # The name does not decide: gzip data under a plain name, plain data
    # under a .gz name.
    odd = suite.path("really-gzip.csv")
    write(odd, gzip.compress(data))
    run_json(suite, "gzip by magic bytes", [odd] + base, rows, want)
    odd = suite.path("not-gzip.csv.gz")
    write(odd, data)
    run_json(suite, "plain data named .gz", [odd] + base, rows, want)
    run_json(suite, "plain stdin", base, rows, want, stdin=data)


def test_several_files(suite):
    """Files with a header each, read as one table: rows numbered from 1
    across all of them in the order given."""
    rng = suite.rng
    ncols = rng.randint(2, 6)
    first = CsvCase(rng, suite.path("m0.csv"), rng.randint(1, 40), ncols=ncols,
                    delim=",", header=True)
    cases = [first] + [rebuild_like(rng, first, suite.path(f"m{n}.csv"),
                                    rng.randint(1, 40)) for n in range(1, 4)]
    fields_all = None
    total = 0
    names = None
    for c in cases:
        nm, rows, fields = read_columns(c.path, ",", True, ncols)
        names = names or nm
        total += rows
        fields_all = fields if fields_all is None else \
            [a + b for a, b in zip(fields_all, fields)]
    idx = first.numeric_indices()
    want = [(i, names[i - 1], ColRef(fields_all[i - 1])) for i in idx]
    paths = [c.path for c in cases]
    col = ["-c", ",".join(map(str, idx)), "--header"]
    run_json(suite, "several files", paths + ["--json", "--all"] + col,
             total, want)
    # The third file gzip-compressed, the second from standard input.
    gz = suite.path("m2.csv.gz")
    write(gz, gzip.compress(open(paths[2], "rb").read()))
    mixed = [paths[0], "-", gz, paths[3]]
    run_json(suite, "several files, gzip and stdin among them",
             mixed + ["--json", "--all"] + col, total, want,
             stdin=open(paths[1], "rb").read())


def test_empty_files(suite):
    """An empty file among several (an empty log, say) adds nothing and
    takes nothing away, first, middle or last; also an empty gzip."""
    rng = suite.rng
    n = rng.randint(2, 30)
    vals = [[str(rng.randint(-99, 99)) for _ in range(2)] for _ in range(n)]
    full = suite.path("full.csv")
    write(full, ("a,b\n" + "".join(",".join(v) + "\n" for v in vals)).encode())
    empty = suite.path("empty.csv")
    write(empty, b"")
    egz = suite.path("empty.csv.gz")
    write(egz, gzip.compress(b""))
    want = [(i + 1, "ab"[i], ColRef([v[i] for v in vals])) for i in range(2)]
    for files in ([empty, full], [full, empty], [egz, full], [empty, egz, full]):
        run_json(suite, "empty file among several", files + ["--json", "--all"],
                 n, want)


def rebuild_like(rng, model, path, nrows):
    """A CsvCase with model's column names and kinds, fresh rows."""
    c = CsvCase.__new__(CsvCase)
    c.path, c.nrows, c.ncols, c.delim, c.header = path, nrows, model.ncols, \
        ",", True
    c.cols = model.cols
    from harness import numeric_field, text_field
    lines = [",".join(s.name for s in c.cols)]
    for r in range(nrows):
        lines.append(",".join(
            text_field(rng, ",", "\n") if s.kind == "text"
            else numeric_field(rng, s, ",", r == 0) for s in c.cols))
    write(path, ("\n".join(lines) + "\n").encode())
    return c


def test_header(suite):
    rng = suite.rng
    n = rng.randint(5, 50)
    vals = [[str(rng.randint(-1000, 1000)) for _ in range(3)] for _ in range(n)]
    body = "".join(",".join(v) + "\n" for v in vals)
    with_h = suite.path("h.csv")
    write(with_h, ("alpha,beta,gamma\n" + body).encode())
    without = suite.path("nh.csv")
    write(without, body.encode())
    cols = [[v[i] for v in vals] for i in range(3)]
    want_h = [(i + 1, nm, ColRef(cols[i]))
              for i, nm in enumerate(["alpha", "beta", "gamma"])]
    want_nh = [(i + 1, str(i + 1), ColRef(cols[i])) for i in range(3)]
    run_json(suite, "header detected", [with_h, "--json", "--all"], n, want_h)
    run_json(suite, "no header detected", [without, "--json", "--all"], n,
             want_nh)
    run_json(suite, "--header forced", [with_h, "--json", "--all", "--header"],
             n, want_h)
    # --no-header on a file with one: the names row is data, invalid in each.
    want = [(i + 1, str(i + 1), ColRef([nm] + cols[i]))
            for i, nm in enumerate(["alpha", "beta", "gamma"])]
    run_json(suite, "--no-header forced",
             [with_h, "--json", "--all", "--no-header", "-c", "1-3"], n + 1, want)
    # --header on a file without: the first row names the columns.
    want = [(i + 1, vals[0][i], ColRef(cols[i][1:])) for i in range(3)]
    if n > 1:
        run_json(suite, "--header forced on numbers",
                 [without, "--json", "--all", "--header", "-c", "1-3"], n - 1,
                 want)
    # A text column in a headerless file is not a header sign.
    mixed = suite.path("text-first.csv")
    words = [rng.choice(["red", "green", "blue"]) for _ in range(n)]
    write(mixed, "".join(f"{w},{v[0]}\n" for w, v in zip(words, vals)).encode())
    run_json(suite, "text column, no header",
             [mixed, "--json", "--all"], n,
             [(1, "1", ColRef(words)), (2, "2", ColRef(cols[0]))])


def test_delimiters(suite):
    rng = suite.rng
    for delim in [",", "\t", ";", "|"]:
        p = suite.path(f"d{ord(delim)}.csv")
        case = CsvCase(rng, p, rng.randint(3, 200), ncols=rng.randint(2, 6),
                       delim=delim, header=True)
        rows, want = reference(p, case)
        run_json(suite, f"delimiter {delim!r} detected",
                 [p, "--json", "--all", "-c", ",".join(str(i) for i, _, _ in want)],
                 rows, want)
    # Spelled out: -d with TAB given as the character itself.
    run_json(suite, "delimiter given", [p, "--json", "--all", "-d", "|", "-c",
                                        ",".join(str(i) for i, _, _ in want)],
             rows, want)


def test_columns(suite):
    rng = suite.rng
    n = rng.randint(3, 60)
    names = ["id", "a", "b", "c", "d", "e", "price", "f"]
    vals = [[f"{rng.uniform(-100, 100):.3f}" for _ in names] for _ in range(n)]
    p = suite.path("cols.csv")
    write(p, (",".join(names) + "\n" +
              "".join(",".join(v) + "\n" for v in vals)).encode())
    cols = [[v[i] for v in vals] for i in range(len(names))]

    def want(idx):
        return [(i, names[i - 1], ColRef(cols[i - 1])) for i in idx]

    for spec, idx in [("2,4-6,price", [2, 4, 5, 6, 7]), ("1", [1]),
                      ("price", [7]), ("a,b", [2, 3]), ("3-8", [3, 4, 5, 6, 7, 8]),
                      ("1-8", list(range(1, 9))), ("id,2-3,f", [1, 2, 3, 8])]:
        run_json(suite, f"-c {spec}", [p, "--json", "--all", "-c", spec], n,
                 want(idx))
    run_json(suite, "--columns=price", [p, "--json", "--columns=price"], n,
             want([7]), what={"count", "sum", "mean", "min", "max"})
    run_json(suite, "default: every numeric column", [p, "--json"], n,
             want(range(1, 9)), what={"count", "sum", "mean", "min", "max"})


BIN_TYPES = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i",
             "u32": "I", "i64": "q", "u64": "Q", "f32": "f", "f64": "d"}


def bin_value(rng, t):
    if t[0] in "iu":
        bits = int(t[1:])
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "i" \
            else (0, (1 << bits) - 1)
        r = rng.random()
        if r < 0.1:
            return rng.choice([lo, hi])
        if r < 0.5:
            return rng.randint(max(lo, -100), min(hi, 100))
        return rng.randint(lo, hi)
    r = rng.random()
    if r < 0.02:
        return math.nan
    if r < 0.03:
        return rng.choice([math.inf, -math.inf])
    v = rng.uniform(-1e6, 1e6) * 10.0 ** rng.randint(-5, 5)
    if t == "f32":
        v = struct.unpack("<f", struct.pack("<f", v))[0]
    return v


def field_text(v):
    """A binary field's value as a text that spells it exactly (a double's
    shortest repr may spell another integer than the double is)."""
    if isinstance(v, int) or (math.isfinite(v) and v == int(v)):
        return str(int(v))
    return "nan" if math.isnan(v) else repr(v)


def random_spec(rng):
    parts = []
    for _ in range(rng.randint(1, 4)):
        t = rng.choice(list(BIN_TYPES))
        k = rng.choice([1, 1, 2, 3])
        parts.append((t, k))
    text = ",".join(t if k == 1 and rng.random() < 0.7 else f"{t}x{k}"
                    for t, k in parts)
    types = [t for t, k in parts for _ in range(k)]
    return text, types


def test_binary(suite):
    rng = suite.rng
    for n in range(8):
        spec, types = random_spec(rng)
        nrec = rng.choice([0, 1, 2, rng.randint(3, 3000)])
        fmt = "<" + "".join(BIN_TYPES[t] for t in types)
        recs = [[bin_value(rng, t) for t in types] for _ in range(nrec)]
        data = b"".join(struct.pack(fmt, *r) for r in recs)
        if data[:2] == b"\x1f\x8b":  # would read as gzip: not this test
            continue
        p = suite.path(f"b{n}.bin")
        write(p, data)
        # Fields the reference classifies: the integer a record holds (exact:
        # i64 and u64 too), repr of its double, 'nan' for NaN.
        cols = [[field_text(r[i]) for r in recs] for i in range(len(types))]
        want = [(i + 1, None, ColRef(cols[i])) for i in range(len(types))]
        run_json(suite, f"binary {spec}", [p, "-b", spec, "--json", "--all"],
                 nrec, want)
        if n < 3:
            run_json(suite, f"binary {spec} stdin",
                     ["--binary", spec, "--json", "--all"], nrec, want,
                     stdin=data)
            gz = p + ".gz"
            write(gz, gzip_members(rng, data, 2) if data else gzip.compress(data))
            run_json(suite, f"binary {spec} gzip",
                     [gz, "-b", spec, "--json", "--all"], nrec, want)
    # Several binary files: one table, rows numbered across them.
    spec, types = "f64,i32", ["f64", "i32"]
    recs, paths = [], []
    for n in range(3):
        part = [[bin_value(rng, t) for t in types]
                for _ in range(rng.randint(1, 100))]
        paths.append(suite.path(f"parts{n}.bin"))
        write(paths[-1], b"".join(struct.pack("<di", *r) for r in part))
        recs += part
    cols = [[field_text(r[i]) for r in recs] for i in range(2)]
    run_json(suite, "several binary files", paths + ["-b", spec, "--json", "--all"],
             len(recs), [(i + 1, None, ColRef(cols[i])) for i in range(2)])
    # -c selects binary fields by index.
    run_json(suite, "binary -c 2", paths + ["-b", spec, "--json", "--all", "-c", "2"],
             len(recs), [(2, None, ColRef(cols[1]))])


def big_int(rng, t):
    """An i64 or u64 value where doubles are coarse: near 2^53, 2^63, 2^64,
    anywhere past 2^53, or in a cluster of integers that round to one
    double."""
    lo, hi = (-(1 << 63), (1 << 63) - 1) if t == "i64" else (0, (1 << 64) - 1)
    r = rng.random()
    if r < 0.2:
        v = rng.choice([1, -1]) * ((1 << 53) + rng.randint(-3, 3))
    elif r < 0.4:
        v = rng.choice([lo, hi, lo + 1, hi - 1, hi - 1023, hi - 1024, hi - 1025])
    elif r < 0.7:
        v = (1 << 60) + rng.randint(-300, 300)  # ties: 256 apart
    else:
        v = rng.randint(lo, hi) >> rng.randint(0, 10)
    return min(max(v, lo), hi)


def test_binary_big_ints(suite):
    """i64 and u64 columns keep exact integers, also split over threads and
    files, beside an f64 column of their doubles (no integer column when a
    fraction is among them)."""
    rng = suite.rng
    spec, fmt = "i64,u64,f64,i64", "<qQdq"
    for n in range(4):
        nrec = rng.choice([1, 3, rng.randint(4, 200), rng.randint(2000, 30000)])
        recs = []
        for _ in range(nrec):
            a, b = big_int(rng, "i64"), big_int(rng, "u64")
            recs.append([a, b, float(a) + (0.5 if rng.random() < 0.01 else 0),
                         1735704000123456789 + rng.randint(0, 2)])
        data = b"".join(struct.pack(fmt, *r) for r in recs)
        if data[:2] == b"\x1f\x8b":
            continue
        p = suite.path(f"big{n}.bin")
        write(p, data)
        cols = [[field_text(r[i]) for r in recs] for i in range(4)]
        want = [(i + 1, None, ColRef(cols[i])) for i in range(4)]
        outs = []
        for j in ("1", "2"):
            doc = run_json(suite, f"big integers -j {j}",
                           [p, "-b", spec, "--json", "--all", "-j", j], nrec, want)
            outs.append(json.dumps(doc))
        suite.check(outs[0] == outs[1], "big integers: -j 1 and 2 agree")
        # the same records as two files, cut at a random record
        cut = rng.randint(0, nrec) * struct.calcsize(fmt)
        q1, q2 = suite.path(f"big{n}a.bin"), suite.path(f"big{n}b.bin")
        if data[cut:cut + 2] == b"\x1f\x8b":
            continue
        write(q1, data[:cut])
        write(q2, data[cut:])
        run_json(suite, "big integers in two files",
                 [q1, q2, "-b", spec, "--json", "--all"], nrec, want)


def forms_file(rng):
    """1 to 5 MB: an id, a text column with a number or two planted
    anywhere, a column empty at first and numeric from a random row on,
    a numeric column. Returns its bytes."""
    size = rng.randrange(1 << 20, 5 << 20)
    words = ["GET", "PUT", "alpha", "beta", "x-1", "n/a", "h%d"]
    late = rng.randrange(0, size // 20)
    plants = {rng.randrange(0, size // 20) for _ in range(rng.randint(1, 2))}
    out, n, row = ["id,word,late,val\n"], 0, 0
    while n < size:
        w = rng.choice(words)
        w = w % rng.randrange(99) if "%" in w else w
        if row in plants:
            w = str(rng.randrange(-99, 99))
        line = "%d,%s,%s,%.3f\n" % (row, w,
                                    "" if row < late else rng.randrange(1000),
                                    rng.uniform(-1e3, 1e3))
        out.append(line)
        n += len(line)
        row += 1
    return "".join(out).encode()


def test_forms_agree(suite):
    """A file, the same bytes on a pipe, gzipped, and gzipped on a pipe:
    the same column kinds and the same answer, byte for byte (a plain file
    once was sampled at other places than a stream, and a text column with
    a number far in was text in one form and numbers in the other)."""
    rng = suite.rng
    for it in range(2 if QUICK else 4):
        data = forms_file(rng)
        plain, gz = suite.path(f"f{it}.csv"), suite.path(f"f{it}.csv.gz")
        write(plain, data)
        write(gz, gzip.compress(data, compresslevel=1))
        for extra in (["--json", "--all"], ["--json"], []):
            ref = suite.run([plain] + extra)
            forms = (("pipe", ["-"] + extra, data),
                     ("gzip", [gz] + extra, None),
                     ("gzip pipe", ["-"] + extra, gzip.compress(data, 1)))
            for label, args, stdin in forms:
                got = suite.run(args, stdin=stdin)
                suite.check(ref[0] == 0 and got[:2] == ref[:2],
                            f"{len(data)} bytes, {label} {extra}: the plain "
                            f"file's answer", (ref[2] + got[2])[:600])


def main():
    suite = Suite("e2e_inputs", sys.argv)
    suite.run_tests((test_forms_agree, test_gzip, test_several_files, test_empty_files, test_header, test_delimiters,
              test_columns, test_binary, test_binary_big_ints))


if __name__ == "__main__":
    main()
