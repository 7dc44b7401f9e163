#!/usr/bin/env python3
"""End-to-end: a text column and --distinct, --mode, --top K per group
(-g) on the CPU, against Python csv and collections.Counter.

usage: python3 tests/e2e/e2e_groupby_profiles.py /path/to/colstat

Random keys with quotes, commas, newlines, unicode, inner blanks and the
missing key; a text column (quotes, delimiters, line breaks, multibyte and
invalid UTF-8, missing fields) and a number column spelled many ways (1,
1.0 and 1e0 one value), few values so that counts tie. Each group's
columns are checked against e2e_profiles.py's reference of that group's
rows alone, and are the bytes colstat gives without -g on those rows.
Several files, stdin, gzip; --threads 1, 2, 16; two key columns, files
with their columns in other orders; many groups; a key column that is the text column
too; TSV's header; --memory far below the profiles (the
one-line error); states carry them (--emit-state, --merge, --part,
--mpi: one process's bytes); --device gpu hands the run to
the host. Seed printed; COLSTAT_SEED reproduces.
"""
import gzip
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite, mpi_usable, mpirun  # noqa: E402
import statefile  # noqa: E402
from e2e_profiles import (check_answer, csv_field, number_text,  # noqa: E402
                          reference, text_bytes)

KEYS = ['a', 'b"q', 'c,d', 'line\nbreak', 'caf\u00e9', '\u65e5\u672c',
        'in ner', 'Z', '']
K = 3
OPTS = ["--json", "-g", "key", "-c", "host,val", "--count", "--min",
        "--distinct", "--mode", "--top", str(K)]


def make_rows(rng, n, nkeys):
    rows = []
    for _ in range(n):
        key = KEYS[rng.randrange(nkeys)].encode()
        t = text_bytes(rng, 4)  # few words: ties
        v = number_text(rng, rng.random() < 0.5) if rng.random() > 0.05 else ""
        rows.append((key, t, v))
    rows[0] = (rows[0][0], b"GET", rows[0][2])  # the sample sees text
    return rows


def write_csv(rows):
    out = [b"key,host,val\n"]
    for k, t, v in rows:
        out.append(csv_field(k) + b"," + csv_field(t) + b"," + v.encode() + b"\n")
    return b"".join(out)


def group_blob(rows):
    """A group's rows alone, as e2e_profiles' reference reads them."""
    out = [b"host,val\n"]
    for r in rows:
        out.append(csv_field(r[1]) + b"," + r[2].encode() + b"\n")
    return b"".join(out)


def by_key(rows):
    groups = {}
    for r in rows:
        groups.setdefault(r[0], []).append(r)
    return groups


def json_key(k):
    return [k.decode() if k else None]


def check_groups(s, what, out, rows):
    try:
        doc = json.loads(out)
    except ValueError as e:
        return s.check(False, what + ": JSON", repr(e))
    want = by_key(rows)
    got = {tuple(g["key"]): g for g in doc["groups"]}
    ok = s.check(sorted(got, key=repr) == sorted((tuple(json_key(k)) for k in want), key=repr),
                 what + ": the groups", f"{list(got)} != {list(want)}")
    for k, grows in want.items():
        g = got.get(tuple(json_key(k)))
        if g is None:
            continue
        ok &= s.check(g["rows"] == len(grows), f"{what} {k!r}: rows")
        ok &= check_answer(s, f"{what} {k!r}", json.dumps({"columns": g["columns"]}),
                           reference([group_blob(grows)], K), K)
    return ok


def test_paths(s):
    rng = s.rng
    for case in range(2 if QUICK else 4):
        n = rng.choice([30, 3000] if QUICK else [30, 3000, 60000])
        nkeys = rng.choice([1, 3, len(KEYS)])
        parts = [make_rows(rng, max(1, n // 3), nkeys) for _ in range(3)]
        blobs = [write_csv(p) for p in parts]
        paths = []
        for i, b in enumerate(blobs):
            paths.append(s.path(f"p{i}.csv"))
            with open(paths[-1], "wb") as f:
                f.write(b)
        with open(s.path("p0.csv.gz"), "wb") as f:
            f.write(gzip.compress(blobs[0]))
        every = parts[0] + parts[1] + parts[2]
        outs = []
        for threads in (1, 2, 16):
            rc, out, err = s.run(OPTS + ["--threads", str(threads)] + paths)
            tag = f"case {case} files -j{threads}"
            if s.check(rc == 0, tag + ": status", err):
                check_groups(s, tag, out, every)
                outs.append(out)
        s.check(len(set(outs)) <= 1, f"case {case}: -j 1, 2, 16 the same bytes")
        rc, out, err = s.run(OPTS + ["-"], stdin=blobs[0])
        if s.check(rc == 0, f"case {case} stdin: status", err):
            check_groups(s, f"case {case} stdin", out, parts[0])
        rc, out, err = s.run(OPTS + [s.path("p0.csv.gz")])
        if s.check(rc == 0, f"case {case} gzip: status", err):
            check_groups(s, f"case {case} gzip", out, parts[0])


def test_same_bytes(s):
    """Each group's column objects are the bytes of a run without -g on
    that group's rows."""
    rows = make_rows(s.rng, 400, len(KEYS))
    with open(s.path("all.csv"), "wb") as f:
        f.write(write_csv(rows))
    args = ["--json", "-c", "host,val", "--all", "--distinct", "--mode", "--top", "4"]
    rc, out, err = s.run(args + ["-g", "key", s.path("all.csv")])
    if not s.check(rc == 0, "same bytes: status", err):
        return
    got = {tuple(g["key"]): g["columns"] for g in json.loads(out)["groups"]}
    for k, grows in by_key(rows).items():
        p = s.path("one.csv")
        with open(p, "wb") as f:
            f.write(write_csv(grows))
        rc, one, err = s.run(args + [p])
        if not s.check(rc == 0, f"same bytes {k!r}: status", err):
            continue
        want = json.loads(one)["columns"]
        for c in want:  # rows are the input's: the group's are others
            for x in ("min", "max"):
                if isinstance(c.get(x), dict):
                    c[x].pop("row", None)
        cols = got.get(tuple(json_key(k)), [])
        for c in cols:
            for x in ("min", "max"):
                if isinstance(c.get(x), dict):
                    c[x].pop("row", None)
        s.check(cols == want, f"same bytes {k!r}", f"{cols} != {want}")


def test_two_keys_orders(s):
    """Two key columns, the text column between them, and a second file
    with its columns in another order (matched by name)."""
    rng = s.rng
    rows = [r + (rng.choice([b"p", b"q", b""]),) for r in make_rows(rng, 600, 4)]
    orders = [(0, 1, 2, 3), (2, 3, 1, 0)]
    names = [b"key", b"host", b"val", b"k2"]
    paths = []
    for i, o in enumerate(orders):
        part = rows[i * 300:(i + 1) * 300]
        out = [b",".join(names[j] for j in o) + b"\n"]
        for r in part:
            f = [csv_field(r[0]), csv_field(r[1]), r[2].encode(), csv_field(r[3])]
            out.append(b",".join(f[j] for j in o) + b"\n")
        paths.append(s.path(f"o{i}.csv"))
        with open(paths[-1], "wb") as fh:
            fh.write(b"".join(out))
    for threads in (1, 16):
        rc, out, err = s.run(["--json", "-g", "key,k2", "-c", "host,val", "--count",
                              "--min", "--distinct", "--mode", "--top", str(K),
                              "-j", str(threads)] + paths)
        if not s.check(rc == 0, f"two keys -j{threads}: status", err):
            continue
        got = {tuple(g["key"]): g for g in json.loads(out)["groups"]}
        want = {}
        for r in rows:
            want.setdefault((r[0], r[3]), []).append(r)
        s.check(len(got) == len(want), f"two keys -j{threads}: the groups")
        for (k1, k2), grows in want.items():
            g = got.get((k1.decode() if k1 else None, k2.decode() if k2 else None))
            if s.check(g is not None, f"two keys {k1!r},{k2!r}: present"):
                check_answer(s, f"two keys {k1!r},{k2!r}",
                             json.dumps({"columns": g["columns"]}),
                             reference([group_blob(grows)], K), K)


def test_many_groups(s):
    """Many groups across many jobs (tables merged, groups reordered)."""
    rng = s.rng
    n = 30000 if QUICK else 200000
    nkeys = n // 3
    rows = [(b"g%d" % rng.randrange(nkeys), b"w%d" % rng.randrange(5),
             str(rng.randrange(4))) for _ in range(n)]
    p = s.path("many.csv")
    with open(p, "wb") as f:
        f.write(write_csv(rows))
    for threads in (1, 16):
        rc, out, err = s.run(OPTS + ["-j", str(threads), p], timeout=300)
        if not s.check(rc == 0, f"many groups -j{threads}: status", err):
            continue
        got = {g["key"][0]: g for g in json.loads(out)["groups"]}
        want = by_key(rows)
        ok = len(got) == len(want)
        for k, grows in want.items():
            g = got.get(k.decode())
            t = Counter(r[1] for r in grows)
            v = Counter(int(r[2]) for r in grows)
            top_t = sorted(t.items(), key=lambda kv: (-kv[1], kv[0]))[:K]
            top_v = sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))[:K]
            ok &= g is not None and g["rows"] == len(grows)
            if not ok:
                break
            ct, cv = g["columns"]
            ok &= ct["distinct"] == len(t) and cv["distinct"] == len(v)
            ok &= [(x["value"].encode(), x["count"]) for x in ct["top"]] == top_t
            ok &= [(x["value"], x["count"]) for x in cv["top"]] == top_v
        s.check(ok, f"many groups -j{threads}: {len(want)} groups' counts")


def test_key_is_text_column(s):
    """-g host -c host: the key column profiled as a text column."""
    rows = make_rows(s.rng, 200, 3)
    with open(s.path("k.csv"), "wb") as f:
        f.write(write_csv(rows))
    rc, out, err = s.run(["--json", "-g", "host", "-c", "host,key", "--distinct",
                          "--top", "2", s.path("k.csv")])
    if not s.check(rc == 0, "key is text: status", err):
        return
    doc = json.loads(out)
    ok = True
    for g in doc["groups"]:
        host, key = g["columns"]
        ok &= host["type"] == "text" and key["type"] == "text"
        ok &= host["distinct"] == (0 if g["key"] == [None] else 1)
        ok &= host["missing"] == (g["rows"] if g["key"] == [None] else 0)
    s.check(ok, "key is text: one value a group", out.decode("utf-8", "replace")[:400])


def test_tsv(s):
    rows = make_rows(s.rng, 100, 3)
    with open(s.path("t.csv"), "wb") as f:
        f.write(write_csv(rows))
    rc, out, err = s.run(["--tsv", "-g", "key", "-c", "host,val", "--mode", "--top", "3",
                          s.path("t.csv")])
    lines = out.decode("utf-8", "replace").split("\n")
    s.check(rc == 0 and lines[0].split("\t")[-6:] ==
            ["top1", "top1_count", "top2", "top2_count", "top3", "top3_count"]
            and "type" in lines[0].split("\t"),
            "tsv: the header has K top fields and the type", lines[0])
    ngroups = len(by_key(rows))
    s.check(sum(1 for x in out.split(b"\n") if x) >= 1 + 2 * ngroups,
            "tsv: a line per group and column")


def test_memory(s):
    """The profiles past --memory: the one-line error naming --memory."""
    n = 40000 if QUICK else 200000
    rows = [(b"k%d" % (i % 3), b"user%d" % i, str(i)) for i in range(n)]
    blob = write_csv(rows)
    with open(s.path("wide.csv"), "wb") as f:
        f.write(blob)
    for src in ("file", "stdin"):
        args = ["--json", "-g", "key", "-c", "host,val", "--distinct", "--memory", "256k"]
        rc, out, err = s.run(args + ([s.path("wide.csv")] if src == "file" else ["-"]),
                             stdin=blob if src == "stdin" else None)
        lines = [x for x in err.split("\n") if x]
        s.check(rc == 1 and not out and len(lines) == 1 and "--memory" in err,
                f"memory {src}: one line naming --memory", err)
    rc, out, err = s.run(["--json", "-g", "key", "-c", "host,val", "--distinct",
                          s.path("wide.csv")])
    doc = json.loads(out) if rc == 0 else None
    s.check(doc and sum(g["columns"][0]["distinct"] for g in doc["groups"]) == n,
            "memory: exact within the default", err)


def forged(s, t, line):
    """A group's profile made by hand past what its group holds: refused
    (one line, status 1); the same state re-encoded untouched: read."""
    import copy
    st = statefile.decode(line)
    rc, _, err = s.run(["--merge", "-g", "key", "-"], stdin=statefile.encode(st))
    s.check(rc == 0, f"states {t}: a state re-encoded untouched is read", err)
    cells = [(g, k) for g, grp in enumerate(st["groups"])
             for k, c in enumerate(grp["columns"]) if "prof" in c]
    if not cells:
        return
    g, k = s.rng.choice(cells)
    bad = copy.deepcopy(st)
    p = bad["groups"][g]["columns"][k]["prof"]
    if p["values"]:
        v, n = p["values"][0]
        p["values"][0] = (v, n + 1)
    elif p["facts"] is not None:
        p["facts"][0] = bad["groups"][g]["rows"] + 1
    else:
        return
    rc, out, err = s.run(["--merge", "-g", "key", "-"],
                         stdin=statefile.encode(bad))
    s.check(rc == 1 and not out and "no colstat run gives" in err
            and err.count("\n") == 1,
            f"states {t}: a group's profile past its group: refused", err)


def test_states_carry(s):
    """A group's text column and values' counts travel in states: the
    parts' states (--emit-state, each part a file with the header, and
    --part K/N of the whole) merged by --merge, and --mpi -n 2/3, give one
    process's bytes; --merge --top K' picks any K' from them. (States of
    groups once carried neither: the text column was read as numbers.)"""
    rng = s.rng
    mpi = mpi_usable(s)
    for t in range(2 if QUICK else 4):
        rows = make_rows(rng, rng.randint(50, 400 if QUICK else 1500),
                         rng.randint(1, len(KEYS)))
        # parts of a few rows at least, each led by a text (a part's own
        # sample decides its columns' kinds: one of empty hosts alone
        # would read the column as numbers, and the merge refuse it)
        k = rng.randint(1, 3)
        step = len(rows) // (k + 1)
        cuts = [step * (i + 1) + rng.randint(-step // 3, step // 3)
                for i in range(k)]
        for a in [0] + cuts:
            rows[a] = (rows[a][0], b"GET", rows[a][2])
        whole = s.path(f"st{t}.csv")
        with open(whole, "wb") as f:
            f.write(write_csv(rows))
        stats = rng.choice([["--distinct", "--mode", "--top", str(K)],
                            ["--top", "2"], ["--count", "--min", "--max"],
                            ["--distinct", "--sum"]])
        opts = ["-g", "key", "-c", rng.choice(["host,val", "host", "val,host"])]
        opts += stats
        rc, want, err = s.run(["--json"] + opts + [whole])
        if not s.check(rc == 0, f"states {t}: one process", err):
            continue
        files, states = [], b""
        for j, (a, b) in enumerate(zip([0] + cuts, cuts + [len(rows)])):
            p = s.path(f"st{t}-{j}.csv")
            with open(p, "wb") as f:
                f.write(write_csv(rows[a:b]))
            files.append(p)
            rc, st, err = s.run(["--emit-state"] + opts + [p])
            s.check(rc == 0, f"states {t}: part {j}'s state", err)
            states += st
        rc, one, err = s.run(["--json"] + opts + files)
        rc2, got, err2 = s.run(["--json", "--merge", "-g", "key", "-"],
                               stdin=states)
        s.check(rc == 0 and rc2 == 0 and got == one,
                f"states {t}: {len(files)} parts' states merged == one process "
                f"({' '.join(stats)})", f"{err2}\n{got[:300]!r}\n{one[:300]!r}")
        n = rng.randint(2, 5)
        parts = b"".join(s.run(["--part", f"{k}/{n}", "--emit-state"] + opts +
                               [whole])[1] for k in range(1, n + 1))
        rc, got, err = s.run(["--json", "--merge", "-g", "key", "-"], stdin=parts)
        s.check(rc == 0 and got == want,
                f"states {t}: --part K/{n} merged == one process", err)
        if "--top" in stats:
            rc, a, err = s.run(["--json", "--merge", "-g", "key", "--top", "1",
                                "-"], stdin=states)
            rc2, b, err2 = s.run(["--json", "--top", "1"] +
                                 [x for x in opts if x not in stats] + files)
            s.check(rc == 0 and rc2 == 0 and a == b,
                    f"states {t}: --merge --top 1 of --top states", err + err2)
        forged(s, t, states.split(b"\n")[0] + b"\n")
        if mpi:
            for n in (2, 3):
                rc, got, err = mpirun(s, n, ["--json"] + opts + [whole])
                s.check(rc == 0 and got == want,
                        f"states {t}: mpirun -n {n} --mpi == one process",
                        f"{rc} {err}")


def test_device(s):
    """--device gpu: the host answers, the same bytes, and -v says so."""
    rows = make_rows(s.rng, 300, len(KEYS))
    p = s.path("d.csv")
    with open(p, "wb") as f:
        f.write(write_csv(rows))
    rc, cpu, err = s.run(OPTS + [p])
    os.environ["COLSTAT_GPU_GROUP"] = "host"
    try:
        rc2, gpu, err2 = s.run(OPTS + ["--device", "gpu", "-v", p])
        rc3, gpu3, err3 = s.run(["--json", "-g", "key", "-c", "host,val", "--device", "gpu",
                                 "-v", p])
    finally:
        del os.environ["COLSTAT_GPU_GROUP"]
    rc4, cpu4, err4 = s.run(["--json", "-g", "key", "-c", "host,val", p])
    s.check(rc == 0 and rc2 == 0 and cpu == gpu and "on the host" in err2,
            "--device gpu with --distinct: the host's bytes", err2)
    s.check(rc3 == 0 and rc4 == 0 and gpu3 == cpu4
            and "text columns are answered on the host" in err3,
            "--device gpu with a text column: the host's bytes", err3)


if __name__ == "__main__":
    s = Suite("e2e_groupby_profiles", sys.argv)
    s.run_tests([test_paths, test_same_bytes, test_two_keys_orders, test_many_groups,
                 test_key_is_text_column, test_tsv,
                 test_memory, test_states_carry, test_device])
