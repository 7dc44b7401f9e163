#!/usr/bin/env python3
"""End-to-end: --group-by on the CPU against an exact reference.

usage: python3 tests/e2e/e2e_groupby.py /path/to/colstat     (cwd = repo root)

Random CSV inputs whose keys hold quotes, commas, newlines, unicode, inner
blanks, the missing key (empty field), numbers written two ways (200 and
200.0: two groups); one group, many groups, two key columns; several files
with their columns in different orders; gzip and a pipe; -j 1, 2, 16 give
the same bytes. Every group's every column is checked against harness.py's
exact reference (Python csv, fractions), the order of the groups against
the rule (numeric key columns numerically, else bytewise, the missing key
last). TSV, CSV and the table are checked for their lines; --memory far
below the groups' state is the one-line error (exit 1); binary input:
e2e_groupby_binary.py; states and --mpi: e2e_groupby_dist.py. Seed printed;
COLSTAT_SEED reproduces.
"""
import csv
import gzip
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (ColRef, Suite, classify, cmdline, compare_column,  # noqa: E402
                     parse_json)

QUICK = os.environ.get("COLSTAT_TEST_QUICK") == "1"
WHAT = {"count", "sum", "mean", "std", "min", "max", "hist", "median",
        ("quantiles", "0.1", "0.9")}
ARGS = ["--all", "--quantiles", "0.1,0.9", "--json"]
TEXT_KEYS = ['a', 'b"q', 'c,d', 'line\nbreak', 'caf\u00e9', '\u65e5\u672c',
             'in ner', 'ab', 'a b', 'Z', '']
NUM_KEYS = ['200', '200.0', '404', '-3', '1e3', '0.5', '']


def value(rng):
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.07:
        return "abc"
    if r < 0.08:
        return "nan"
    if r < 0.6:
        return str(rng.randint(-1000, 1000))
    return "%.4f" % rng.uniform(-100, 100)


def write_csv(path, header, rows, opener=open):
    with opener(path, "wt", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def sort_key_column(keys):
    """Per key column: whether every non-missing key is a number."""
    return all(classify(k)[0] == "value" for k in keys if k != "")


def ordered(groups, nkeys):
    numeric = [sort_key_column([g[i] for g in groups]) for i in range(nkeys)]

    def key(g):
        out = []
        for i, k in enumerate(g):
            if k == "":
                out.append((1,))
            elif numeric[i]:
                out.append((0, classify(k)[1], k.encode()))
            else:
                out.append((0, 0, k.encode()))
        return out
    return sorted(groups, key=key)


def reference(rows, key_idx, val_idx):
    """{key tuple: (rows, [ColRef per value column])}, rows numbered from 1."""
    keys = [tuple(r[i] for i in key_idx) for r in rows]
    out = {}
    for k in set(keys):
        mine = [j for j, kk in enumerate(keys) if kk == k]
        refs = []
        for v in val_idx:
            fields = ["" if keys[j] != k else rows[j][v] for j in range(len(rows))]
            ref = ColRef(fields)
            ref.missing = sum(1 for j in mine if classify(rows[j][v])[0] == "missing")
            refs.append(ref)
        out[k] = (len(mine), refs)
    return out


def check_groups(suite, tag, out, nrows, key_names, ref, cols, what=WHAT,
                 hist_opts=(256, None)):
    try:
        doc = parse_json(out)
    except ValueError as e:
        suite.check(False, tag + " prints JSON", str(e))
        return
    suite.check(doc.get("rows") == nrows, tag + " rows", f"{doc.get('rows')} vs {nrows}")
    suite.check(doc.get("group_by") == key_names, tag + " group_by",
                f"{doc.get('group_by')} vs {key_names}")
    got = [tuple("" if k is None else k for k in g["key"]) for g in doc.get("groups", [])]
    want = ordered(list(ref), len(key_names))
    if not suite.check(got == want, tag + " groups in order",
                       f"got {got[:8]}..., want {want[:8]}..."):
        return
    for g in doc["groups"]:
        k = tuple("" if x is None else x for x in g["key"])
        n, refs = ref[k]
        suite.check(g["rows"] == n, f"{tag} group {k!r} rows", f"{g['rows']} vs {n}")
        jcs = g["columns"]
        suite.check([c["index"] for c in jcs] == [i for i, _ in cols],
                    f"{tag} group {k!r} columns")
        for jc, (index, name), r in zip(jcs, cols, refs):
            compare_column(suite, f"{tag} group {k!r}", jc, r, name, index, what,
                           hist_opts)


def random_case(suite, tag, nrows, pool, nkeys=1):
    rng = suite.rng
    header = ["k%d" % i for i in range(nkeys)] + ["x", "y"]
    rows = [[rng.choice(pool) for _ in range(nkeys)] + [value(rng), value(rng)]
            for _ in range(nrows)]
    path = suite.path(tag + ".csv")
    write_csv(path, header, rows)
    return path, header, rows


def test_random(suite):
    for t in range(2 if QUICK else 4):
        pool = suite.rng.choice([TEXT_KEYS, NUM_KEYS])
        nkeys = suite.rng.choice([1, 1, 2])
        path, header, rows = random_case(suite, f"r{t}", suite.rng.randint(1, 400),
                                         pool, nkeys)
        keys = ",".join(header[:nkeys])
        ref = reference(rows, list(range(nkeys)), [nkeys, nkeys + 1])
        cols = [(nkeys + 1, "x"), (nkeys + 2, "y")]
        outs = []
        for j in (1, 2, 16):
            args = ["-g", keys, "-j", j] + ARGS + [path]
            rc, out, err = suite.run(args)
            suite.check(rc == 0, cmdline(args) + " exits 0", err)
            outs.append(out)
        check_groups(suite, f"random {t}", outs[0], len(rows), header[:nkeys], ref, cols)
        suite.check(outs[0] == outs[1] == outs[2], f"random {t}: -j 1, 2, 16 alike")
        args = ["-g", keys, "--bins", 16, "--range", "-50:50"] + ARGS + [path]
        rc, out, err = suite.run(args)
        check_groups(suite, f"random {t} --range", out, len(rows), header[:nkeys],
                     ref, cols, hist_opts=(16, (-50.0, 50.0)))


def test_one_group_and_many(suite):
    rng = suite.rng
    path, header, rows = random_case(suite, "one", 50, ["only"])
    rc, out, err = suite.run(["-g", "k0"] + ARGS + [path])
    check_groups(suite, "one group", out, 50, ["k0"],
                 reference(rows, [0], [1, 2]), [(2, "x"), (3, "y")])
    n = 20000 if QUICK else 100000
    rows = [[str(i), str(rng.randint(0, 9))] for i in rng.sample(range(10 * n), n)]
    rows += [[r[0], "1"] for r in rows[:1000]]
    p = suite.path("many.csv")
    write_csv(p, ["id", "v"], rows)
    rc, out, err = suite.run(["-g", "id", "--sum", "--min", "--json", p])
    doc = parse_json(out) if rc == 0 else {}
    groups = doc.get("groups", [])
    suite.check(rc == 0 and len(groups) == n, f"{n} groups", err)
    sums = {}
    for k, v in rows:
        sums[k] = sums.get(k, 0) + int(v)
    want = sorted(sums, key=int)
    suite.check([g["key"][0] for g in groups] == want, f"{n} groups in numeric order")
    suite.check(all(g["columns"][0]["sum"] == sums[g["key"][0]] for g in groups),
                f"{n} groups' sums")


def test_key_order(suite):
    """Keys that share their first 8 bytes and differ past them, keys of
    bytes past 0x7f, -0 beside 0 and padded numbers, integers past 2^53
    that one double holds (no blanks around them: unquoted, those go):
    the groups in the rule's order (the sort
    compares a number or 8 bytes of a key before whole keys)."""
    rng = suite.rng
    stems = ["", "abcdefg", "abcdefgh", "abcdefghi", "\u00ff\u00ff\u00ff\u00ff",
             "~~~~~~~~"]
    tails = ["", "a", "A", "0", "\u00ff", "~", "aa", "a \u00e9"]
    text = sorted({rng.choice(stems) + rng.choice(tails) + rng.choice(tails)
                   for _ in range(300)} - {""})
    nums = ["0", "-0", "0.0", "-0.0", "+0", "1e-300", "-1e-300", "1e308",
            "-1e308", "inf", "-inf", "9007199254740993", "9007199254740992",
            "5", "5.0", "05", "-5"]
    for tag, pool in (("text", text), ("numbers", nums)):
        for nkeys in (1, 2):
            path, header, rows = random_case(suite, f"order-{tag}-{nkeys}",
                                             300 if QUICK else 3000,
                                             pool + [""], nkeys)
            want = ordered(list({tuple(r[:nkeys]) for r in rows}), nkeys)
            for j in (1, 2):
                rc, out, err = suite.run(["-g", ",".join(header[:nkeys]), "--sum",
                                          "--json", "-j", str(j), path])
                doc = parse_json(out) if rc == 0 else {}
                got = [tuple("" if k is None else k for k in g["key"])
                       for g in doc.get("groups", [])]
                suite.check(rc == 0 and got == want,
                            f"{tag} keys, {nkeys} key columns, -j {j}: groups "
                            "in order", f"{err} got {got[:6]}..., want {want[:6]}...")


def test_million(suite):
    """1,000,000 distinct keys within the default --memory (not in the
    sanitizer builds' quick runs)."""
    if QUICK:
        return
    rng = suite.rng
    n = 1000000
    ids = list(range(n))
    rng.shuffle(ids)
    vals = [rng.randint(0, 99) for _ in ids]
    p = suite.path("million.csv")
    with open(p, "w") as f:
        f.write("id,v\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, vals)))
    rc, out, err = suite.run(["-g", "id", "--sum", "--tsv", p], timeout=300)
    lines = out.decode().split("\n")
    suite.check(rc == 0 and len(lines) == n + 2, "1,000,000 groups", err)
    if rc == 0:
        want = sorted(zip(ids, vals))
        got = [(int(line.split("\t")[0]), int(line.split("\t")[3]))
               for line in lines[1:-1]]
        suite.check(got == want, "1,000,000 groups: keys in order, sums")


def test_report_pieces(suite):
    """With many groups the report is made in pieces, one a thread (-j):
    every format's bytes must be those of one thread, whatever -j (a
    piece's first group, the separators between pieces, TSV's header and
    a text column's fields at each boundary)."""
    rng = suite.rng
    n = rng.randint(8200, 20000 if QUICK else 60000)
    words = ["a", "b,c", "d\"e", "", "f g", "\u00e9t\u00e9"]
    rows = [[str(rng.randint(0, n)), rng.choice(TEXT_KEYS), value(rng),
             rng.choice(words)] for _ in range(n)]
    p = suite.path("pieces.csv")
    write_csv(p, ["id", "tag", "x", "word"], rows)
    opts = [["--sum", "--min", "--max"], ["-a", "-c", "x,word"],
            ["--median", "--top", "2", "-c", "x,word"]]
    for fmt in (["--json"], ["--tsv"], ["--csv"], ["--format", "table"]):
        args = ["-g", rng.choice(["id", "id,tag"])] + rng.choice(opts) + fmt
        rc, one, err = suite.run(args + ["-j", "1", p], timeout=300)
        for j in (2, rng.randint(3, 16)):
            rc2, out, err2 = suite.run(args + ["-j", str(j), p], timeout=300)
            suite.check(rc == 0 and rc2 == 0 and out == one,
                        f"{cmdline(args)} -j {j}: the bytes of -j 1 "
                        f"({len(one)} bytes)", f"{err} {err2}")


def test_files_gzip_pipe(suite):
    rng = suite.rng
    a = [[rng.choice(TEXT_KEYS), value(rng), value(rng)] for _ in range(200)]
    b = [[rng.choice(TEXT_KEYS), value(rng), value(rng)] for _ in range(150)]
    pa, pb = suite.path("a.csv"), suite.path("b.csv.gz")
    write_csv(pa, ["key", "x", "y"], a)
    write_csv(pb, ["y", "key", "x"], [[r[2], r[0], r[1]] for r in b], gzip.open)
    ref = reference(a + b, [0], [1, 2])
    rc, out, err = suite.run(["-g", "key"] + ARGS + [pa, pb])
    suite.check(rc == 0, "two files exit 0", err)
    check_groups(suite, "two files, columns reordered, gzip", out, 350, ["key"], ref,
                 [(2, "x"), (3, "y")])
    with open(pb, "rb") as f:
        data = f.read()
    p = subprocess.run(["sh", "-c", f"cat | {suite.exe} -g key {' '.join(ARGS)} -"],
                       input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check_groups(suite, "gzip through a pipe", p.stdout, 150, ["key"],
                 reference(b, [0], [2, 1]), [(1, "y"), (3, "x")])


def test_formats(suite):
    rows = [["200", "1"], ["404", "2"], ["200", "3"], ["", "4"], ["a,b", "5"]]
    p = suite.path("f.csv")
    write_csv(p, ["status", "ms"], rows)
    rc, out, err = suite.run(["-g", "status", "--sum", "--tsv", p])
    want = ("status\tcolumn\tindex\tsum\tmissing\tinvalid\tnan\n"
            "200\tms\t2\t4\t0\t0\t0\n404\tms\t2\t2\t0\t0\t0\n"
            "a,b\tms\t2\t5\t0\t0\t0\n\tms\t2\t4\t0\t0\t0\n")
    suite.check(rc == 0 and out.decode() == want, "TSV", out.decode())
    rc, out, err = suite.run(["-g", "status", "--sum", "--csv", p])
    got = list(csv.reader(io.StringIO(out.decode())))
    suite.check(rc == 0 and [r[0] for r in got] == ["status", "200", "404", "a,b", ""],
                "CSV keys", out.decode())
    rc, out, err = suite.run(["-g", "status", "--sum", p])
    text = out.decode()
    suite.check(rc == 0 and "status=200 (2 rows)" in text and
                "status=(missing) (1 row)" in text, "table headings", text)
    suite.check("note: left out" not in err, "the key is no left-out column", err)
    # a key holding a line break or a tab: the table's heading stays one
    # line (control bytes as '?', as the table shows every text); TSV
    # escapes them, CSV quotes them
    rows = [["a\nb", "1"], ["x\ty", "2"], ["a\nb", "3"]]
    write_csv(p, ["k\nk", "ms"], rows)
    rc, out, err = suite.run(["-g", "1", "--sum", p])
    heads = [ln for ln in out.decode().split("\n") if "row" in ln and "=" in ln]
    suite.check(rc == 0 and heads == ["k?k=a?b (2 rows)", "k?k=x?y (1 row)"],
                "table headings of keys with line breaks", out.decode())
    rc, out, err = suite.run(["-g", "1", "--sum", "--tsv", p])
    suite.check(rc == 0 and out.decode().split("\n")[1:3] ==
                ["a\\nb\tms\t2\t4\t0\t0\t0", "x\\ty\tms\t2\t2\t0\t0\t0"],
                "TSV escapes keys' line breaks and tabs", out.decode())


def test_blanks(suite):
    """Blanks around an unquoted key go (as libcsv drops them), inside
    quotes they stay: the same on the quote-free path and libcsv's."""
    # past a parser batch (64 KiB) of quote-free lines, then quoted ones
    n = 10000
    lines = ["k,v"] + ["a,1", " a ,2", "\ta\t,3"] * n + ['" a ",4', '"a",5']
    lines += ["a,1", " a ,2"]
    p = suite.path("blanks.csv")
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    for j in (1, 2):
        rc, out, err = suite.run(["-g", "k", "--sum", "--json", "-j", j, p])
        doc = parse_json(out) if rc == 0 else {}
        got = [(g["key"][0], g["rows"], g["columns"][0]["sum"])
               for g in doc.get("groups", [])]
        suite.check(got == [(" a ", 1, 4), ("a", 3 * n + 3, 6 * n + 8)],
                    "blanks around keys",
                    f"{got} {err}")


def test_whitespace_and_null(suite):
    """-W text groups by its fields; a --null spelling is the missing key,
    and a record without the key field has the missing key too."""
    text = b"USER PID %CPU\nroot 1 0.5\nbob 2 1.5\nroot 3 2.0\nNA 4 1\nbob\n"
    rc, out, err = suite.run(["-W", "-g", "USER", "-c", "%CPU", "--sum",
                              "--null", "NA", "--json", "-"], stdin=text)
    doc = parse_json(out) if rc == 0 else {}
    got = [(g["key"][0], g["rows"], g["columns"][0]["sum"],
            g["columns"][0]["missing"]) for g in doc.get("groups", [])]
    suite.check(got == [("bob", 2, 1.5, 1), ("root", 2, 2.5, 0), (None, 1, 1, 0)],
                "-W keys, --null key", f"{got} {err}")
    p = suite.path("short.csv")
    with open(p, "w") as f:
        f.write("v,k\n1,a\n2\n3,a\n")
    rc, out, err = suite.run(["-g", "k", "--sum", "--json", p])
    doc = parse_json(out) if rc == 0 else {}
    got = [(g["key"][0], g["rows"]) for g in doc.get("groups", [])]
    suite.check(got == [("a", 2), (None, 1)], "a short record: the missing key",
                f"{got} {err}")


def test_memory(suite):
    rows = [[str(i), "1.5"] for i in range(20000)]
    p = suite.path("mem.csv")
    write_csv(p, ["id", "v"], rows)
    rc, out, err = suite.run(["-g", "id", "--median", "--memory", "100k", p])
    lines = err.strip().splitlines()
    suite.check(rc == 1 and out == b"" and len(lines) == 1 and
                "groups and their values need more than --memory" in err,
                "--memory far below the groups: one line, exit 1", err)
    # few groups (each worker's table keeps them to the end): the same
    rows = [["k%d" % (i % 300), str(i)] for i in range(5000)]
    p = suite.path("mem2.csv")
    write_csv(p, ["k", "v"], rows)
    for j in (1, 2, 16):
        rc, out, err = suite.run(["-g", "k", "--sum", "--memory", "10k", "-j", j, p])
        lines = err.strip().splitlines()
        suite.check(rc == 1 and out == b"" and len(lines) == 1 and
                    "groups and their values need more than --memory" in err and
                    "mem2.csv:" in err,
                    f"--memory below 300 groups: one line naming the file, exit 1, -j {j}",
                    err)
        rc, out, err = suite.run(["-g", "k", "--sum", "--json", "-j", j, p])
        doc = parse_json(out) if rc == 0 else {}
        sums = {g["key"][0]: g["columns"][0]["sum"] for g in doc.get("groups", [])}
        want = {}
        for k, v in rows:
            want[k] = want.get(k, 0) + int(v)
        suite.check(sums == want, f"300 groups within --memory, -j {j}", err)


def test_ties_across_jobs(suite):
    """A group's extremes repeat in every job of the input (a job is 1 MiB):
    min and max name the first row holding them, whichever job a worker
    finished first, at -j 1, 2 and 16, on each kind of group table (values
    straight into the groups; with --std; with values kept)."""
    rng = suite.rng
    n = 20000 if QUICK else 400000
    keys = ["k%d" % i for i in range(7)] + [""]
    # the range widens down the file: each extreme first comes in a later
    # job, then again and again
    rows = []
    for r in range(n):
        w = 1 + 4 * r // n
        rows.append([rng.choice(keys), str(rng.randint(-w, w)),
                     "%.1f" % (rng.randint(-5 * w, 5 * w) / 2),
                     rng.choice(["1", "x"])])
    p = suite.path("ties.csv")
    write_csv(p, ["k", "i", "f", "bad"], rows)
    want = {}
    for r, row in enumerate(rows, 1):
        for c in (1, 2):
            v = float(row[c])
            lo, lo_row, hi, hi_row = want.get((row[0], c), (v, r, v, r))
            if v < lo:
                lo, lo_row = v, r
            if v > hi:
                hi, hi_row = v, r
            want[(row[0], c)] = (lo, lo_row, hi, hi_row)
    for extra in ([], ["--std"], ["--median"]):
        for j in (1, 2, 16):
            rc, out, err = suite.run(["-g", "k", "-c", "i,f,bad", "--min",
                                      "--max", "--json", "-j", j, p] + extra)
            doc = parse_json(out) if rc == 0 else {}
            got = {}
            for g in doc.get("groups", []):
                k = g["key"][0] or ""
                for c, col in ((1, g["columns"][0]), (2, g["columns"][1])):
                    got[(k, c)] = (col["min"]["value"], col["min"]["row"],
                                   col["max"]["value"], col["max"]["row"])
            suite.check(rc == 0 and got == want,
                        f"ties across jobs: first rows, -j {j} {extra}",
                        f"{err} {sorted(set(got.items()) ^ set(want.items()))[:4]}")
        # a state lists the groups in order of first appearance, whichever
        # job a worker finished first (states refuse quantiles)
        if "--median" in extra:
            continue
        states = set()
        for j in (1, 2, 16, 2, 16):
            rc, out, err = suite.run(["-g", "k", "-c", "i,f,bad", "--min", "--max",
                                      "--emit-state", "-j", j, p] + extra)
            suite.check(rc == 0, f"state -j {j} {extra}", err)
            states.add(out)
        suite.check(len(states) == 1, f"the same state at -j 1, 2, 16 {extra}")


def test_refusals(suite):
    p = suite.path("f.csv")
    write_csv(p, ["k", "v"], [["a", "1"]])
    rc, out, err = suite.run(["-g", "nosuch", p])
    suite.check(rc == 2 and "--group-by: no column named 'nosuch'" in err,
                "-g naming no column: usage error naming -g", err)
    # --device gpu: on the device where one is (and the statistics allow),
    # else on the host, -v saying which; the answer the CPU's either way
    rc, out, err = suite.run(["-g", "k", "--device", "gpu", "-v", "--json", p])
    where = ("group-by runs on the host" in err or
             "group-by reduces on the device" in err)
    suite.check(rc == 0 and where, "--device gpu: -v says where", err)
    cpu = suite.run(["-g", "k", "--device", "cpu", "--json", p])
    suite.check(out == cpu[1], "--device gpu: the CPU's answer", out[:200])


if __name__ == "__main__":
    s = Suite("e2e_groupby", sys.argv)
    s.run_tests([test_random, test_one_group_and_many, test_key_order,
                 test_million, test_report_pieces,
                 test_files_gzip_pipe,
                 test_formats, test_blanks, test_whitespace_and_null,
                 test_memory, test_ties_across_jobs, test_refusals])
