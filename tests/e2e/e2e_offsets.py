#!/usr/bin/env python3
"""End-to-end: a datetime column with zones prints its min and max at the
offsets their rows were written in.

usage: python3 tests/e2e/e2e_offsets.py /path/to/colstat   (cwd = repo root)

Random CSVs of a datetime column whose fields are written at random
offsets in every form the reader takes (Z, z, +-hh:mm, +-hhmm, +-hh, a
zero offset written +00:00, no zone at all), drawn from a small pool of
instants so that the extremes tie on their instant across rows written
at other offsets (the first row's offset wins, as its row does), beside
a key column for -g. The reference is Python's csv and datetime alone
(e2e_kinds.py's): min and max with their first row, at that row's
offset ('Z' for a zero one), the span, the median in UTC with 'Z'. Every
input path (a file, stdin, several files, gzip), --threads 1, 2 and 16,
inputs of several jobs; states of --part K/N merged in a shuffled order;
--mpi -n 2 where mpirun is; -g per group, through states and with the
device's group steps on the host (and on a GPU host the device's own);
--device gpu hands such a run to the host, with a -v line. A later
file's text in a datetime column is invalid, with a warning naming it,
never a silent answer. Seed printed; COLSTAT_SEED reproduces."""
import gzip
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite, cmdline  # noqa: E402
from e2e_kinds import (EPOCH, US, DateRef, iso, iso_at, quantile_us,  # noqa: E402
                       seconds_text, span_text)

ARGS = ["--json", "--min", "--max", "--count", "--median"]


def zone_text(rng, off):
    """off (minutes east) in one of the forms the reader takes; a form
    that cannot spell off (+-hh of a part hour) falls back to +-hh:mm."""
    sg = "-" if off < 0 else "+"
    h, m = divmod(abs(off), 60)
    form = rng.randrange(5)
    if off == 0 and rng.random() < 0.5:
        return rng.choice(["Z", "z", "", "+00:00", "-0000", "+00"])
    if form == 0:
        return "%s%02d%02d" % (sg, h, m)
    if form == 1 and m == 0:
        return "%s%02d" % (sg, h)
    return "%s%02d:%02d" % (sg, h, m)


def draw_offset(rng):
    r = rng.random()
    if r < 0.2:
        return 0
    if r < 0.6:  # whole hours
        return rng.randint(-23, 23) * 60
    if r < 0.8:  # the halves and quarters zones use
        return rng.choice([-1, 1]) * rng.choice([330, 345, 570, 630, 765])
    return rng.randint(-1439, 1439)


def field_at(rng, inst, off):
    """The instant inst written at offset off: its local time there."""
    t = EPOCH + timedelta(microseconds=inst + off * 60 * 10**6)
    text = "%04d-%02d-%02d%s%02d:%02d:%02d" % (
        t.year, t.month, t.day, rng.choice("TTt "), t.hour, t.minute, t.second)
    if t.microsecond:
        text += ("." + "%06d" % t.microsecond).rstrip("0")
    return text + zone_text(rng, off)


def draw_pool(rng):
    """A few instants (ties), years 1950 to 2090, some with fractions."""
    base = (datetime(rng.randint(1950, 2090), rng.randint(1, 12),
                     rng.randint(1, 28)) - EPOCH) // US
    spread = rng.choice([60, 3600, 86400 * 400]) * 10**6
    pool = []
    for _ in range(rng.randint(1, 8)):
        us = base + rng.randrange(spread)
        pool.append(us - us % (10**6 if rng.random() < 0.6 else 1000))
    return pool


def make_rows(rng, n):
    """(key, field text, instant or None) per row."""
    pool = draw_pool(rng)
    keys = ["k%d" % i for i in range(rng.randint(1, 4))]
    rows = []
    for _ in range(n):
        r = rng.random()
        if r < 0.03:
            rows.append((rng.choice(keys), "", None))
            continue
        inst = rng.choice(pool)
        rows.append((rng.choice(keys), field_at(rng, inst, draw_offset(rng)),
                     inst))
    # the first row carries a zone: the sample sees one whatever it draws
    if rows and rows[0][2] is not None:
        rows[0] = (rows[0][0], field_at(rng, rows[0][2], 90), rows[0][2])
    else:
        inst = pool[0]
        rows[0] = (keys[0], field_at(rng, inst, 90), inst)
    return rows


def write(path, rows, header=True):
    text = ("g,t\n" if header else "") + "".join(
        '%s,"%s"\n' % (k, t) if " " in t else "%s,%s\n" % (k, t)
        for k, t, _ in rows)
    data = text.encode()
    with open(path, "wb") as fh:
        fh.write(data)
    return data


def want_column(rows):
    """The column's expected JSON entry: count, missing, min, max, span,
    median."""
    ref = DateRef([(t, i) for _, t, i in rows], "zoned")
    out = {"count": len(ref.vals), "missing": ref.missing, "invalid": 0}
    if not ref.vals:
        out.update({"min": None, "max": None, "median": None})
        return out
    lo = min(ref.vals, key=lambda p: (p[1], p[0]))
    hi = max(ref.vals, key=lambda p: (p[1], -p[0]))
    out["min"] = {"value": ref.extreme(*lo), "row": lo[0]}
    out["max"] = {"value": ref.extreme(*hi), "row": hi[0]}
    span = hi[1] - lo[1]
    out["span"] = {"seconds": json.loads(seconds_text(span)),
                   "text": span_text(span, "zoned")}
    out["median"] = iso(quantile_us([v for _, v in ref.vals], "0.5"), "zoned")
    return out


def check_entry(suite, tag, got, want):
    for k, v in want.items():
        suite.check(got.get(k) == v, f"{tag}: {k}", f"got {got.get(k)!r}, "
                    f"want {v!r}")


def check_doc(suite, tag, out, rows, median=True):
    try:
        doc = json.loads(out)
        col = next(c for c in doc["columns"] if c["name"] == "t")
    except (ValueError, StopIteration, KeyError) as e:
        suite.check(False, tag + ": a JSON document with column t", repr(e))
        return
    suite.check(col.get("type") == "datetime", tag + ": type", col)
    want = want_column(rows)
    if not median:
        want.pop("median")
    check_entry(suite, tag, col, want)


def check_groups(suite, tag, out, rows):
    """-g g: each group's entry against its rows (rows stay the input's)."""
    try:
        doc = json.loads(out)
    except ValueError as e:
        suite.check(False, tag + ": JSON", str(e))
        return
    by = {}
    for i, r in enumerate(rows):
        by.setdefault(r[0], []).append((i, r))
    got = {g["key"][0]: g for g in doc.get("groups", [])}
    suite.check(set(got) == set(by), tag + ": the groups", sorted(got))
    for key, members in by.items():
        if key not in got:
            continue
        col = next((c for c in got[key]["columns"] if c["name"] == "t"), {})
        # a group's rows are the input's: blank the others' fields
        mine = {i for i, _ in members}
        own = [r if i in mine else (r[0], "", None) for i, r in enumerate(rows)]
        want = want_column(own)
        want.pop("missing")
        want.pop("median")
        check_entry(suite, f"{tag} group {key}", col, want)


def cases(suite):
    rng = suite.rng
    sizes = [rng.randint(1, 40), rng.randint(200, 3000)]
    if not QUICK:
        sizes.append(rng.randint(60000, 90000))  # several 1 MiB jobs
    for n in sizes:
        yield n, make_rows(rng, n)


def test_paths(suite):
    """One file, stdin, gzip, several files, --threads 1, 2, 16."""
    rng = suite.rng
    for it, (n, rows) in enumerate(cases(suite)):
        p = suite.path("o%d.csv" % it)
        data = write(p, rows)
        for t in ("1", "2", "16"):
            args = ARGS + ["--threads", t, p]
            rc, out, err = suite.run(args)
            if suite.check(rc == 0, cmdline(args) + " exits 0", err):
                check_doc(suite, cmdline(args), out, rows)
            r2 = suite.run(ARGS + ["--threads", t, "-"], stdin=data)
            suite.check(r2[0] == 0 and r2[1] == out,
                        f"stdin, --threads {t}: the file's bytes", r2[2])
        g = p + ".gz"
        with gzip.open(g, "wb") as fh:
            fh.write(data)
        with open(g, "rb") as fh:
            packed = fh.read()
        for args, stdin in ((ARGS + [g], None), (ARGS + ["-"], packed)):
            r2 = suite.run(args, stdin=stdin)
            suite.check(r2[0] == 0 and r2[1] == out,
                        cmdline(args) + " (gzip): the file's bytes", r2[2])
        if n < 3:
            continue
        cuts = sorted(rng.sample(range(1, n), 2))
        parts = []
        for j, (a, b) in enumerate(zip([0] + cuts, cuts + [n])):
            q = suite.path("o%d_%d.csv" % (it, j))
            write(q, rows[a:b])
            parts.append(q)
        t = rng.choice(["1", "2", "16"])
        r2 = suite.run(ARGS + ["--threads", t] + parts)
        suite.check(r2[0] == 0 and r2[1] == out,
                    f"three files, --threads {t}: one file's bytes", r2[2])


def states(suite, files, extra, want, tag):
    """--part K/N --emit-state of files, merged in a shuffled order: the
    bytes want. Returns the states' paths."""
    rng = suite.rng
    n = rng.randint(2, 5)
    sts = []
    for j in range(1, n + 1):
        rc, st, err = suite.run(["--part", "%d/%d" % (j, n), "--emit-state",
                                 "--min", "--max", "--count"] + extra + files)
        suite.check(rc == 0, f"{tag}: --part {j}/{n} --emit-state", err)
        s = suite.path("st%d" % j)
        with open(s, "wb") as fh:
            fh.write(st)
        sts.append(s)
    rng.shuffle(sts)
    rc, out, err = suite.run(["--merge", "--json"] + sts)
    suite.check(rc == 0 and out == want,
                f"{tag}: --merge of {n} parts' states, shuffled: one "
                "process's bytes", err)


def mpi(suite, files, args, want, tag):
    runner = shutil.which("mpirun")
    exe = os.path.join(os.path.dirname(suite.exe), "colstat-mpi")
    if not runner or not os.path.exists(exe):
        return
    cmd = ["mpirun", "--quiet", "--oversubscribe", "-n", "2"]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(
        x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    p = subprocess.run(cmd + [suite.exe, "--mpi"] + args + files,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300, env=env)
    suite.check(p.returncode == 0 and p.stdout == want,
                f"{tag}: mpirun -n 2 colstat --mpi: one process's bytes",
                p.stderr.decode("utf-8", "replace"))


def test_states(suite):
    """States merged in a shuffled order and --mpi: one process's bytes."""
    for it, (n, rows) in enumerate(cases(suite)):
        p = suite.path("s%d.csv" % it)
        write(p, rows)
        args = ["--json", "--min", "--max", "--count"]
        rc, one, err = suite.run(args + [p])
        if not suite.check(rc == 0, "one process exits 0", err):
            continue
        check_doc(suite, "one process", one, rows, median=False)
        states(suite, [p], [], one, "columns")
        mpi(suite, [p], args, one, "columns")


def test_groups(suite):
    """-g: each group's extremes at their rows' offsets; direct tables and
    those that keep values (--median); states; the device's steps on the
    host."""
    for it, (n, rows) in enumerate(cases(suite)):
        p = suite.path("g%d.csv" % it)
        write(p, rows)
        base = ["--json", "--min", "--max", "--count", "-g", "g"]
        rc, out, err = suite.run(base + [p])
        if not suite.check(rc == 0, "-g exits 0", err):
            continue
        check_groups(suite, cmdline(base + [p]), out, rows)
        rc, med, err = suite.run(base + ["--median", "--threads", "16", p])
        check_groups(suite, "-g --median --threads 16", med, rows)
        states(suite, [p], ["-g", "g"], out, "-g")
        mpi(suite, [p], base, out, "-g")
        # the device's steps on the host here; on a GPU host the device
        # itself (its pieces carry no offsets: the host sets them after)
        for hook in ("host", None):
            env = dict(os.environ)
            env.pop("COLSTAT_GPU_GROUP", None)
            if hook:
                env["COLSTAT_GPU_GROUP"] = hook
            q = subprocess.run([suite.exe] + base + ["--device", "gpu", p],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, timeout=120)
            suite.check(q.returncode == 0 and q.stdout == out,
                        f"-g --device gpu (COLSTAT_GPU_GROUP={hook}): the "
                        "CPU's bytes", q.stderr.decode("utf-8", "replace"))


def test_gpu_hands_over(suite):
    """--device gpu with a datetime column with zones whose min or max is
    asked: the host answers (the device keeps no offsets), and -v says
    why; without min and max the device may take it."""
    rng = suite.rng
    rows = make_rows(rng, rng.randint(5, 200))
    p = suite.path("gpu.csv")
    write(p, rows)
    _, cpu, _ = suite.run(ARGS + ["--device", "cpu", p])
    env = dict(os.environ, COLSTAT_GPU_PRESENT="1")
    q = subprocess.run([suite.exe, "-v", "--device", "gpu"] + ARGS + [p],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=120)
    err = q.stderr.decode("utf-8", "replace")
    suite.check(q.returncode == 0 and q.stdout == cpu,
                "--device gpu: the CPU's bytes", err)
    suite.check("GPU not used: the min and max of a datetime column with "
                "zones" in err, "-v says why the GPU is not used", err)


def test_ties(suite):
    """One instant written at several offsets: the first row's offset, for
    min and max alike; across jobs and threads."""
    rng = suite.rng
    inst = (datetime(2024, 3, 1, 12, 0, 5) - EPOCH) // US
    offs = [60, 0, -330, 765, -1439, 1439]
    n = 30 if QUICK else 70000
    rows = [("k", field_at(rng, inst, rng.choice(offs)), inst)
            for _ in range(n)]
    rows[0] = ("k", field_at(rng, inst, 60), inst)
    p = suite.path("ties.csv")
    write(p, rows)
    for t in ("1", "2", "16"):
        rc, out, err = suite.run(ARGS + ["--threads", t, p])
        doc = json.loads(out) if rc == 0 else {"columns": [{}, {}]}
        col = doc["columns"][-1]
        want = {"value": iso_at(inst, 60), "row": 1}
        suite.check(col.get("min") == want and col.get("max") == want,
                    f"--threads {t}: a tie keeps the first row's offset",
                    json.dumps(col))
    rows[0], rows[-1] = rows[-1], rows[0]
    write(p, rows)
    rc, out, err = suite.run(ARGS + [p])
    doc = json.loads(out) if rc == 0 else {"columns": [{}, {}]}
    check_entry(suite, "ties, another first row", doc["columns"][-1],
                want_column(rows))


def test_text_later(suite):
    """The first file makes t a datetime column with zones; a later file's
    text there is invalid, counted, named in a warning (an error with
    --strict), and the extremes are the dates' with their offsets."""
    a, b = suite.path("a.csv"), suite.path("b.csv")
    with open(a, "w") as fh:
        fh.write("g,t\nx,2024-03-01T10:00:00+02:00\ny,2024-03-05T00:00:00Z\n")
    with open(b, "w") as fh:
        fh.write("g,t\nx,hello\ny,2024-02-01T05:00-0130\nx,2024-03-05T03:00+03\n"
                 "y,world\n")
    rc, out, err = suite.run(["--json", "-c", "t", a, b])
    c = json.loads(out)["columns"][0] if rc == 0 else {}
    suite.check(c.get("type") == "datetime" and c.get("invalid") == 2 and
                c.get("count") == 4 and
                c.get("min") == {"value": "2024-02-01T05:00:00-01:30",
                                 "row": 4} and
                c.get("max") == {"value": "2024-03-05T00:00:00Z", "row": 2},
                "text in a later file's datetime column: invalid", out)
    suite.check(b + ":2: warning: column 't': 2 fields are not an ISO 8601 "
                "date or datetime" in err and "'hello'" in err,
                "the warning names the first text's line", err)
    rc, out, err = suite.run(["--strict", "-c", "t", a, b])
    suite.check(rc == 1 and out == b"" and "b.csv:2: column 't': 'hello' is "
                "not an ISO 8601 date or datetime" in err,
                "--strict: the text is the error", err)


if __name__ == "__main__":
    Suite("e2e_offsets", sys.argv).run_tests(
        [test_paths, test_states, test_groups, test_gpu_hands_over, test_ties,
         test_text_later])
