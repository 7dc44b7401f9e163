#!/usr/bin/env python3
"""End-to-end: partial states (--emit-state, --merge).

usage: python3 tests/e2e/e2e_dist.py /path/to/colstat     (cwd = repo root)

A random CSV (quoted fields with delimiters, quotes and newlines, CRLF,
integers past 2^53) cut at random record boundaries into parts, each part
a CSV with the header; each part's state emitted; the states merged in
order must give the same JSON as one run over the parts as files (rows
numbered across them), for random statistics (histograms with --range);
binary f64 records split the same way. States that are cut short, damaged,
of other options, or asked with a histogram without --range are refused:
one line on stderr, the documented status, nothing on stdout. States are
untrusted input: an endless input (/dev/zero, a FIFO, stdin) is refused
after its header, having been read no further; hand-made states with a
valid CRC over fields no run gives (statefile.MUTATIONS) are refused, and
so are merges whose rows pass 2^64. --merge answers the statistics and -c
columns asked among those the states hold, as one run over the parts
would, and refuses (status 2) what they cannot answer. Seed printed;
COLSTAT_SEED reproduces."""
import csv
import io
import json
import os
import random
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, CsvCase, Suite, cmdline  # noqa: E402
import statefile  # noqa: E402


def records(path, delim):
    """The header and the records of a CSV, each as its exact bytes, cut
    where libcsv (what colstat reads with, not strict) ends a record: a
    quote opens a quoted field only at a field's start (blanks before it
    skipped), and a closing quote followed by blanks and then other text
    than a delimiter or a line end is read as part of the field, which
    stays quoted ('"1e+14" x' reads on; a plain toggle on every quote cut
    there, and seed 159433636 of e2e_mpi got a part ending in a quote)."""
    data = open(path, "rb").read()
    d = delim.encode() if isinstance(delim, str) else delim
    start_, plain, quoted, closing = range(4)
    out, start, state = [], 0, start_
    for i in range(len(data)):
        c = data[i:i + 1]
        blank = c in (b" ", b"\t") and c != d
        if state == quoted:
            state = closing if c == b'"' else quoted
            continue
        if state == closing and c == b'"':
            state = quoted  # "" is a quote in the field
        elif state == closing and not blank and c not in (d, b"\n", b"\r"):
            state = quoted
        elif state == start_ and c == b'"':
            state = quoted
        elif c == d or c == b"\r":
            state = start_
        elif c == b"\n":
            state = start_
            out.append(data[start:i + 1])
            start = i + 1
        elif state == start_ and not blank:
            state = plain
    if start < len(data):
        out.append(data[start:])
    return out[0], out[1:]


def split(rng, items, k):
    cuts = sorted(rng.sample(range(1, len(items)), min(k - 1, len(items) - 1)))
    return [items[a:b] for a, b in zip([0] + cuts, cuts + [len(items)])]


def stats_args(rng):
    args = rng.sample(["--count", "--sum", "--mean", "--std", "--min",
                       "--max"], rng.randint(1, 6))
    if rng.random() < 0.5:
        args += ["--hist", "--bins", str(rng.randint(1, 40)), "--range",
                 "%r:%r" % (-rng.random() * 1e3, rng.random() * 1e3)]
    return args


def part_kinds(suite, opts, path):
    """Each column's type as one run over path alone reads it."""
    rc, out, err = suite.run(["--json"] + opts + [path])
    if rc != 0:
        return None
    return {c["name"]: c["type"] for c in json.loads(out)["columns"]}


def states_equal_whole(suite, tag, parts, opts):
    """Each part's state emitted and merged == one run over the parts."""
    states = []
    for i, p in enumerate(parts):
        s = suite.path(f"{tag}-{i}.state")
        rc, out, err = suite.run(["--emit-state=" + s] + opts + [p])
        if not suite.check(rc == 0 and out == b"", f"{tag}: emit part {i}",
                           f"status {rc}: {err.strip()}"):
            return
        states.append(s)
    rc, merged, err = suite.run(["--merge", "--json"] + states)
    if rc != 0 and "is text in one and not in the other" in err:
        # documented: a part whose own sample reads a column as text (one
        # row of '12abc') beside parts that read numbers cannot merge;
        # the refusal must be one line, and the parts' kinds must differ
        kinds = [part_kinds(suite, opts, p) for p in parts]
        suite.check(rc == 1 and err.count("\n") == 1 and
                    any(k != kinds[0] for k in kinds),
                    f"{tag}: parts whose samples read other kinds: refused "
                    "in one line, status 1", f"{rc} {err!r} {kinds}")
        return states
    suite.check(rc == 0, f"{tag}: merge exits 0", err.strip())
    rc, whole, err = suite.run(["--json"] + opts + parts)
    suite.check(rc == 0, f"{tag}: whole run exits 0", err.strip())
    suite.check(merged == whole, f"{tag}: {cmdline(opts)}: merged states "
                f"equal one run over {len(parts)} parts",
                f"merged {merged[:300]!r}\n      whole  {whole[:300]!r}")
    return states


def test_csv(suite):
    rng = suite.rng
    for it in range(4 if QUICK else 12):
        whole = suite.path(f"w{it}.csv")
        case = CsvCase(rng, whole, rng.randint(20, 2000), header=True)
        head, recs = records(whole, case.delim)
        if len(recs) < 2:
            continue
        parts = []
        for j, group in enumerate(split(rng, recs, rng.randint(2, 6))):
            p = suite.path(f"w{it}-p{j}.csv")
            open(p, "wb").write(head + b"".join(group))
            parts.append(p)
        cols = ",".join(str(i) for i in case.numeric_indices()) or "1"
        opts = ["-d", case.delim, "--header", "-c", cols] + stats_args(rng)
        states_equal_whole(suite, f"csv{it}", parts, opts)


def test_binary(suite):
    rng = suite.rng
    n = rng.randint(10, 50000)
    vals = [rng.choice([rng.gauss(0, 1e9), float(rng.randint(-2**60, 2**60)),
                        float("nan"), float("inf"), 0.0]) for _ in range(3 * n)]
    data = struct.pack(f"<{3 * n}d", *vals)
    recs = [data[i:i + 24] for i in range(0, len(data), 24)]
    parts = []
    for j, group in enumerate(split(rng, recs, rng.randint(2, 5))):
        p = suite.path(f"b{j}.f64")
        open(p, "wb").write(b"".join(group))
        parts.append(p)
    states_equal_whole(suite, "f64", parts,
                       ["-b", "f64x3"] + stats_args(rng))


def expect_refused(suite, tag, args, status):
    rc, out, err = suite.run(args)
    lines = err.strip().splitlines()
    suite.check(rc == status and out == b"" and len(lines) == 1 and
                lines[0].startswith("colstat: "),
                f"{tag}: refused with status {status}, one line, no output",
                f"status {rc}, stdout {out[:80]!r}, stderr {err!r}")


def test_refusals(suite):
    rng = suite.rng
    p = suite.path("r.csv")
    CsvCase(rng, p, 200, header=True, delim=",")
    s = suite.path("r.state")
    rc, _, err = suite.run(["--emit-state=" + s, "--sum", "-c", "1", p])
    suite.check(rc == 0, "emit a state", err)
    good = open(s, "rb").read()
    for cut in sorted(set([0, 1, 7, 12, len(good) // 2, len(good) - 1] +
                          [rng.randrange(len(good)) for _ in range(5)])):
        c = suite.path(f"cut{cut}.state")
        open(c, "wb").write(good[:cut])
        expect_refused(suite, f"cut at {cut}", ["--merge", c], 1)
    # the version's digit ("colstat-state 3") is outside the CRC: a flip
    # there that names another version still read (2) reads these bytes
    # as that version does, which must then be the same answer
    version_at = good.index(b" ") + 1
    twice = suite.run(["--merge", s, s])
    for k in range(8):
        b = bytearray(good)
        at = version_at if k == 0 else rng.randrange(len(b))
        b[at] ^= 1 << rng.randrange(8)
        d = suite.path(f"bad{k}.state")
        open(d, "wb").write(bytes(b))
        if at == version_at and suite.run(["--merge", s, d])[0] == 0:
            suite.check(suite.run(["--merge", s, d]) == twice,
                        f"version {chr(b[at])!r} for 3 ({k}): the same answer",
                        "")
            continue
        expect_refused(suite, f"one bit flipped ({k})", ["--merge", s, d], 1)
    other = suite.path("o.state")
    suite.run(["--emit-state=" + other, "--max", "-c", "1", p])
    expect_refused(suite, "states of other options", ["--merge", s, other], 1)
    expect_refused(suite, "a CSV given to --merge", ["--merge", p], 1)
    expect_refused(suite, "--emit-state with --hist and no --range",
                   ["--emit-state", "--hist", p], 2)
    expect_refused(suite, "--emit-state with --all", ["--emit-state", "-a", p],
                   2)
    for q in (["--median"], ["--quantiles", "0.9"],
              ["-a", "--range", "0:1"]):
        expect_refused(suite, "--emit-state with " + " ".join(q),
                       ["--emit-state"] + q + [p], 2)


# ----------------------------------------------------- untrusted states

STREAM_CAP = 64 << 20  # what an endless input gives before it ends
READ_LIMIT = 1 << 20   # what colstat may take of it (header, pipe buffer)


def feed(suite, args, prefix, fifo=None, fill=b"\0"):
    """Runs colstat with prefix and then fill bytes (up to STREAM_CAP bytes)
    written to its stdin, or to the FIFO fifo it opens; returns (status,
    stdout, stderr, bytes it took)."""
    p = subprocess.Popen([suite.exe] + args, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = [0]

    def write():
        try:
            f = open(fifo, "wb") if fifo else p.stdin
            data = prefix
            while took[0] < STREAM_CAP:
                f.write(data)
                f.flush()
                took[0] += len(data)
                data = fill * 65536
            f.close()
        except (BrokenPipeError, OSError):
            pass

    t = threading.Thread(target=write, daemon=True)
    t.start()
    out, err = p.communicate(timeout=120) if fifo else (
        p.stdout.read(), p.stderr.read())
    p.wait(timeout=120)
    t.join(timeout=120)
    return p.returncode, out, err.decode("utf-8", "replace"), took[0]


def emit_full(suite, tag, path, extra=()):
    """A real state of path with a histogram (--range) and --std."""
    s = suite.path(f"{tag}.state")
    rc, _, err = suite.run(["--emit-state=" + s, "--count", "--sum", "--std",
                            "--min", "--max", "--hist", "--bins", "7",
                            "--range", "-100:100"] + list(extra) + [path])
    suite.check(rc == 0, f"{tag}: emit a state", err)
    return open(s, "rb").read()


def test_header_first(suite):
    rng = suite.rng
    p = suite.path("h.csv")
    CsvCase(rng, p, 300, header=True, delim=",")
    good = emit_full(suite, "h", p)
    st = statefile.decode(good)
    head = statefile.header_line(
        st, rng.choice([1 << 40, 1 << 30, 2**64 - 1]))
    fifo = suite.path("h.fifo")
    os.mkfifo(fifo)
    # "A" continues base64 without end: only the header's bounds stop it
    cases = [("zeros", b"", b"\0"),
             ("a header declaring a huge payload", head, b"A"),
             ("a whole state, then more", good, b"\0"),
             ("a whole state, then base64 without end", good[:-1], b"A")]
    for what, prefix, fill in cases:
        for how in ("stdin", "fifo"):
            args = ["--merge", fifo if how == "fifo" else "-"]
            rc, out, err, took = feed(suite, args, prefix,
                                      fifo if how == "fifo" else None, fill)
            lines = err.strip().splitlines()
            suite.check(rc == 1 and out == b"" and len(lines) == 1 and
                        took <= len(prefix) + READ_LIMIT,
                        f"endless {how}, {what}: refused having read at "
                        f"most {READ_LIMIT} bytes past the prefix",
                        f"status {rc}, took {took} bytes, stderr {err!r}")
    t = time.time()
    rc, out, err = suite.run(["--merge", "/dev/zero"], timeout=60)
    suite.check(rc == 1 and out == b"" and time.time() - t < 10 and
                "colstat-state" in err, "--merge /dev/zero: refused at once",
                f"status {rc}, stderr {err!r}")


def test_handmade(suite):
    rng = suite.rng
    p = suite.path("m.csv")
    CsvCase(rng, p, rng.randint(50, 400), ncols=rng.randint(2, 5),
            header=True, delim=",")
    good = emit_full(suite, "m", p)
    st = statefile.decode(good)
    suite.check(statefile.encode(st) == good, "statefile reads and writes "
                "a state back to its bytes")
    if not any(c["count"] for c in st["columns"]):
        return
    names = list(statefile.MUTATIONS)
    rng.shuffle(names)
    for i, name in enumerate(names):
        s = statefile.decode(good)
        statefile.MUTATIONS[name](s)
        f = suite.path(f"mut{i}.state")
        open(f, "wb").write(statefile.encode(s))
        expect_refused(suite, f"a hand-made state: {name}", ["--merge", f], 1)
    # rows and counts that wrap: each state is right alone (2^64-1 rows,
    # nearly all of them missing fields), not together
    s = statefile.decode(good)
    grow = 2**64 - 1 - s["rows"]
    s["rows"] = 2**64 - 1
    for c in s["columns"]:
        c["missing"] += grow
    big = suite.path("big.state")
    open(big, "wb").write(statefile.encode(s))
    rc, _, err = suite.run(["--merge", big])
    suite.check(rc == 0, "a state of 2^64-1 rows alone is merged", err)
    small = suite.path("small.state")
    open(small, "wb").write(good)
    expect_refused(suite, "states whose rows pass 2^64",
                   ["--merge", big, small], 1)


STATS = ["--count", "--sum", "--mean", "--std", "--min", "--max"]


def answerable(held):
    can = {"--count", "--min", "--max"}
    if held & {"--sum", "--mean", "--std"}:
        can |= {"--sum", "--mean"}
    return can | (held & {"--std", "--hist"})


def test_merge_selects(suite):
    """--merge with statistic options and -c == one run with them."""
    rng = suite.rng
    for it in range(3 if QUICK else 8):
        whole = suite.path(f"sel{it}.csv")
        case = CsvCase(rng, whole, rng.randint(20, 600), header=True)
        head, recs = records(whole, case.delim)
        numeric = case.numeric_indices()
        if len(recs) < 2 or not numeric:
            continue
        parts = []
        for j, group in enumerate(split(rng, recs, rng.randint(2, 4))):
            q = suite.path(f"sel{it}-p{j}.csv")
            open(q, "wb").write(head + b"".join(group))
            parts.append(q)
        held = set(rng.sample(STATS, rng.randint(1, len(STATS))))
        hist = ["--bins", str(rng.randint(1, 20)), "--range", "-50:%d" %
                rng.randint(1, 500)]
        if rng.random() < 0.5:
            held.add("--hist")
        read = ["-d", case.delim, "--header", "-c",
                ",".join(map(str, numeric))]
        emit = read + sorted(held) + (hist if "--hist" in held else [])
        states = []
        for j, q in enumerate(parts):
            s = suite.path(f"sel{it}-{j}.state")
            rc, _, err = suite.run(["--emit-state=" + s] + emit + [q])
            suite.check(rc == 0, f"sel{it}: emit part {j}", err)
            states.append(s)
        can = sorted(answerable(held))
        ask = rng.sample(can, rng.randint(1, len(can)))
        cols = rng.sample(numeric, rng.randint(1, len(numeric)))
        names = [str(i) if rng.random() < 0.5 else case.cols[i - 1].name
                 for i in cols]
        sel = ["-c", ",".join(names)]
        extra = hist if "--hist" in ask else []
        rc, merged, err = suite.run(["--merge", "--json"] + ask + sel + states)
        if rc != 0 and "is text in one and not in the other" in err:
            # documented, but only for a column -c keeps (CI seed
            # 1138039264: a column it left out refused the merge)
            kinds = [part_kinds(suite, read, q) for q in parts]
            picked = {case.cols[i - 1].name for i in cols}
            suite.check(rc == 1 and err.count("\n") == 1 and
                        any({n: k[n] for n in picked if n in k} !=
                            {n: kinds[0][n] for n in picked if n in kinds[0]}
                            for k in kinds),
                        f"sel{it}: refused for a kept column whose parts' "
                        "kinds differ, in one line", f"{rc} {err!r} {kinds}")
            continue
        suite.check(rc == 0, f"sel{it}: merge {cmdline(ask + sel)} exits 0",
                    err.strip())
        rc, one, err = suite.run(["--json", "-d", case.delim, "--header"] +
                                 ask + extra + sel + parts)
        suite.check(rc == 0 and merged == one,
                    f"sel{it}: states of {sorted(held)} merged with "
                    f"{cmdline(ask + sel)} == one run with them",
                    f"merged {merged[:300]!r}\n      one    {one[:300]!r}")
        lack = sorted(set(STATS + ["--hist"]) - answerable(held))
        if lack:
            expect_refused(suite, f"sel{it}: --merge {lack[0]} from states "
                           f"of {sorted(held)}",
                           ["--merge", lack[0]] + states, 2)


def test_merge_drops_kinds(suite):
    """A column one part's sample reads as text and another's as numbers
    cannot merge; --merge -c without it merges the rest as one run over
    the parts (with or without groups), and with it refuses in one line."""
    rng = suite.rng
    parts = []
    for j in range(rng.randint(2, 4)):
        p = suite.path(f"kd{j}.csv")
        text = j == 1
        rows = ["g,x,y,t"] + ["%s,%s,%d,%s" % (
            rng.choice("ab"),
            ("t%d" % rng.randint(0, 9)) if text else repr(rng.uniform(-9, 9)),
            rng.randint(-10**6, 10**6), rng.choice(["u", "v w", "x"]))
            for _ in range(rng.randint(5, 60))]
        open(p, "w").write("\n".join(rows) + "\n")
        parts.append(p)
    for keys in ([], ["-g", "g"]):
        states = []
        for j, p in enumerate(parts):
            s = suite.path(f"kd{j}{len(keys)}.state")
            rc, _, err = suite.run(["--emit-state=" + s, "-c", "x,y,t",
                                    "--sum", "--max"] + keys + [p])
            suite.check(rc == 0, f"kinds {keys}: emit part {j}", err)
            states.append(s)
        # !x: the default less x, which leaves the text column t out
        for sel in ("y", "y,t", "!x", "t"):
            rc, merged, err = suite.run(["--merge", "--json", "-c", sel] +
                                        states)
            suite.check(rc == 0, f"kinds {keys}: --merge -c {sel} passes "
                        "over x, text in one part", err.strip())
            rc, one, err = suite.run(["--json", "-c", sel, "--sum", "--max"] +
                                     keys + parts)
            suite.check(rc == 0 and merged == one, f"kinds {keys}: --merge "
                        f"-c {sel} == one run -c {sel}", f"merged "
                        f"{merged[:300]!r}\n      one    {one[:300]!r}")
        for sel in (["-c", "x,y"], ["-c", "!y"], []):
            expect_refused(suite, f"kinds {keys}: --merge {sel} keeping x",
                           ["--merge"] + sel + states, 1)


def test_merge_refuses(suite):
    rng = suite.rng
    p = suite.path("q.csv")
    CsvCase(rng, p, 100, ncols=3, header=True, delim=",")
    s = suite.path("q.state")
    good = emit_full(suite, "q", p)
    open(s, "wb").write(good)
    idx = [c["index"] for c in statefile.decode(good)["columns"]]
    for args in (["--median"], ["--quantiles", "0.5,0.9"], ["-a"],
                 ["--bins", "8"], ["--range", "0:1"], ["-c", "nosuch"],
                 ["-c", str(max(idx) + 1)]):
        expect_refused(suite, f"--merge {cmdline(args)}",
                       ["--merge"] + args + [s], 2)
    missing = [i for i in range(1, max(idx)) if i not in idx]
    if missing:
        expect_refused(suite, "--merge -c of a column not in the states",
                       ["--merge", "-c", str(missing[0]), s], 2)
    rc, _, err = suite.run(["--merge", "--hist", "--bins", "7", "--range",
                            "-100:100", s])
    suite.check(rc == 0, "--merge with the states' own --bins and --range",
                err)
    g = suite.path("gap.csv")
    open(g, "w").write("a,t,b\n1,x,2\n3,y,4\n")
    gs = suite.path("gap.state")
    suite.run(["--emit-state=" + gs, "-c", "a,b", g])
    for sel in ("1-3", "/.*/", "b,2,a"):
        rc, out, err = suite.run(["--merge", "--json", "--max", "-c", sel,
                                  gs])
        got = [c["name"] for c in json.loads(out)["columns"]] if rc == 0 \
            else err
        want = ["b", "a"] if sel.startswith("b") else ["a", "b"]
        suite.check(got == want, f"--merge -c {sel} passes over a field no "
                    f"state holds", f"got {got!r}, want {want!r}")


def main():
    suite = Suite("e2e_dist", sys.argv)
    suite.run_tests((test_csv, test_binary, test_refusals, test_header_first,
                     test_handmade, test_merge_selects, test_merge_drops_kinds,
                     test_merge_refuses))


if __name__ == "__main__":
    main()
