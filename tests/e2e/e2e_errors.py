#!/usr/bin/env python3
"""End-to-end: colstat's errors.

usage: python3 tests/e2e/e2e_errors.py /path/to/colstat     (cwd = repo root)

Bad data and unreadable input exit 1 with exactly one stderr line
"colstat: FILE:LINE: message" (LINE where one applies) and nothing on
stdout: a missing file, a directory, truncated gzip, a bad CRC, corrupt
deflate data, trailing garbage after a gzip member, an unterminated quote
(naming the line where the quoted field began), --strict with an invalid
field (naming its physical line), a binary file whose size is not a
multiple of the record size; from files, from stdin and in the second of
several files. Usage errors exit 2 with nothing on stdout. Closing stdout
early (`| head -1`) exits 0 quietly. Seed printed; COLSTAT_SEED reproduces.
"""
import gzip
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Suite, cmdline  # noqa: E402


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def expect_error(suite, tag, args, status, file=None, line=None, stdin=None):
    """status: the exit status wanted (or a tuple of accepted ones). file:
    the name the message must start with (after "colstat: "); line: the
    line number that must follow it."""
    rc, out, err = suite.run(args, stdin=stdin)
    t = f"{tag}: {cmdline(args)}"
    accepted = status if isinstance(status, tuple) else (status,)
    suite.check(rc in accepted, t + f" exits {status}", f"status {rc}: {err!r}")
    suite.check(out == b"", t + " prints nothing on stdout", out[:200])
    first = err.split("\n", 1)[0]
    suite.check(first.startswith("colstat: "), t + " stderr starts 'colstat: '",
                repr(err))
    if accepted != (2,):  # usage errors may add a "Try --help" line
        suite.check(err.endswith("\n") and err.count("\n") == 1,
                    t + " stderr is one line", repr(err))
    if file is not None:
        prefix = f"colstat: {file}:" + (f"{line}:" if line is not None else "")
        suite.check(first.startswith(prefix), t + f" message starts {prefix!r}",
                    repr(first))


def csv_rows(rng, n, ncols=3):
    """n rows of plain numbers, each ending in LF."""
    return ["%s\n" % ",".join(str(rng.randint(-999, 999)) for _ in range(ncols))
            for _ in range(n)]


def test_unreadable(suite):
    missing = suite.path("no-such-file.csv")
    expect_error(suite, "missing file", [missing], 1, file=missing)
    expect_error(suite, "directory", [suite.dir], 1, file=suite.dir)
    good = suite.path("good.csv")
    write(good, b"a,b\n1,2\n")
    expect_error(suite, "missing second file", [good, missing], 1, file=missing)


def gz_data(suite, n):
    rows = ["a,b,c\n"] + csv_rows(suite.rng, n)
    return gzip.compress("".join(rows).encode(), compresslevel=6)


def test_gzip(suite):
    rng = suite.rng
    gz = gz_data(suite, rng.randint(2000, 20000))
    cases = {
        "truncated gzip": gz[:rng.randint(20, len(gz) - 9)],
        "truncated gzip trailer": gz[:len(gz) - rng.randint(1, 7)],
        "bad CRC": gz[:-8] + bytes([gz[-8] ^ 0x55]) + gz[-7:],
        "bad length": gz[:-4] + bytes([gz[-4] ^ 0x01]) + gz[-3:],
        "trailing garbage": gz + b"garbage after the member\n",
        "second member truncated": gz + gz[:len(gz) // 2],
    }
    mid = rng.randint(20, len(gz) - 20)
    cases["corrupt deflate data"] = gz[:mid] + bytes([gz[mid] ^ 0xFF]) + gz[mid + 1:]
    for name, data in cases.items():
        p = suite.path(name.replace(" ", "-") + ".csv.gz")
        write(p, data)
        expect_error(suite, name, [p], 1, file=p)
        expect_error(suite, name + " (--json)", [p, "--json", "--all"], 1, file=p)
        if name in ("truncated gzip", "bad CRC"):
            expect_error(suite, name + " on stdin", [], 1,
                         file="(standard input)", stdin=data)


def unterminated(rng, header, crlf, words=False):
    """CSV text with an unterminated quoted field; returns (text, the
    1-based physical line where the quoted field begins). words: every
    field text, so that no column holds numbers either."""
    nl = "\r\n" if crlf else "\n"
    lines = (["x,y,z"] if header else [])
    n = rng.randint(0, 50)

    def field():
        return (rng.choice(["get", "put", "host", "élan", "a b"]) if words
                else str(rng.randint(0, 99)))
    for _ in range(n):
        r = rng.random()
        if r < 0.15:  # a closed quoted field spanning lines before it
            lines.append(f'{field()},"two{nl}lines",{field()}')
        else:
            lines.append(",".join(field() for _ in range(3)))
    start = sum(s.count("\n") for s in lines) + len(lines) + 1
    lines.append(f'{field()},"never closed{nl}more text,{field()},{field()}'
                 f'{nl}{field()},{field()},{field()}')
    return nl.join(lines) + nl, start


def test_quote_no_numbers(suite):
    """An input of text alone that ends inside a quoted field: the open
    quote is named (it said "no column holds numbers", which no choice of
    columns mends)."""
    rng = suite.rng
    for k in range(4):
        text, line = unterminated(rng, rng.random() < 0.7, rng.random() < 0.3,
                                  words=True)
        data = text.encode()
        p = suite.path(f"wquote{k}.csv" + (".gz" if k == 2 else ""))
        write(p, gzip.compress(data) if k == 2 else data)
        expect_error(suite, "unterminated quote, no numbers", [p], 1,
                     file=p, line=line)
        rc, _, err = suite.run([p])
        suite.check("unterminated quoted field" in err,
                    f"{p}: says the quote is unterminated", repr(err))
        if k == 1:  # every part of the input says what the whole says
            for part in ("1/3", "3/3"):
                expect_error(suite, "unterminated quote, no numbers, part",
                             [p, "--part", part], 1, file=p, line=line)
        if k == 3:
            expect_error(suite, "unterminated quote, no numbers, stdin", [], 1,
                         file="(standard input)", line=line, stdin=data)


def test_quote_open_across_parts(suite):
    """A quote that opens early and never closes, with most of the file
    after it: the parts that start inside it hold no record of their own,
    yet each says what the whole says, the open quote and its line (they
    said "no column holds numbers", and gave an empty state under
    --emit-state)."""
    rng = suite.rng
    for k in range(3):
        words = k == 1
        lines = ["x,y,z"]
        for _ in range(rng.randint(0, 3)):
            lines.append(",".join(rng.choice(["get", "put"]) if words
                                  else str(rng.randint(0, 99))
                                  for _ in range(3)))
        line = len(lines) + 1
        lines.append('1,"opens here')
        lines += [f"{rng.randint(0, 99)},{rng.randint(0, 99)},5"
                  for _ in range(rng.randint(40, 400))]
        p = suite.path(f"openq{k}.csv")
        write(p, ("\n".join(lines) + "\n").encode())
        n = rng.choice([2, 3, 5, 8])
        for part in range(1, n + 1):
            for extra in ([], ["--emit-state"]) if part == n else ([],):
                expect_error(suite, f"open quote, part {part}/{n}",
                             [p, "--part", f"{part}/{n}"] + extra, 1,
                             file=p, line=line)


def test_quote(suite):
    rng = suite.rng
    for k in range(6):
        text, line = unterminated(rng, rng.random() < 0.7, rng.random() < 0.3)
        p = suite.path(f"quote{k}.csv")
        data = text.encode()
        if k == 4:
            data = gzip.compress(data)
            p += ".gz"
        write(p, data)
        expect_error(suite, "unterminated quote", [p, "-d", ","], 1, file=p, line=line)
        if k == 5:
            expect_error(suite, "unterminated quote on stdin", ["-d", ","], 1,
                         file="(standard input)", line=line, stdin=data)
    # In the second file: its own line numbers.
    good = suite.path("first.csv")
    write(good, ("x,y,z\n" + "".join(csv_rows(rng, 10))).encode())
    text, line = unterminated(rng, True, False)
    bad = suite.path("second.csv")
    write(bad, text.encode())
    expect_error(suite, "unterminated quote in second file", [good, bad, "-d", ","],
                 1, file=bad, line=line)


def test_strict(suite):
    rng = suite.rng
    for k in range(6):
        lines = ["a,b,c"]
        bad_line = None
        first_bad = {}  # column name: physical line of its first invalid
        line = 2  # physical line of the next row
        # the first row holds numbers: a column whose sample saw text
        # alone is a text column, where --strict finds no invalid number
        n = rng.randint(2, 3000 if k == 5 else 60)
        bad_at = rng.randrange(1, n)
        for r in range(n):
            v = [str(rng.randint(-50, 50)) for _ in range(3)]
            if rng.random() < 0.1:
                v[2] = '"multi\nline text"'  # column c: not selected
            if r == bad_at or (bad_line is not None and rng.random() < 0.05):
                col = rng.randrange(2)
                v[col] = rng.choice(["oops", "1x", "N/A", "--3"])
                first_bad.setdefault("ab"[col], line)
            if r == bad_at:
                bad_line = line
            lines.append(",".join(v))
            line += lines[-1].count("\n") + 1
        p = suite.path(f"strict{k}.csv")
        nl = "\r\n" if k % 2 else "\n"  # CR is no line of its own
        data = (nl.join(lines) + nl).encode()
        write(p, data)
        args = [p, "--strict", "-c", "a,b"]
        expect_error(suite, "--strict invalid field", args, 1, file=p, line=bad_line)
        if k == 5:
            for j in (1, 2):
                expect_error(suite, f"--strict -j {j}", args + ["-j", j], 1,
                             file=p, line=bad_line)
            expect_error(suite, "--strict on stdin", args[1:], 1,
                         file="(standard input)", line=bad_line, stdin=data)
        # Without --strict the same file is fine. Warnings are allowed; one
        # that names a line and a column must name the column's first
        # invalid field.
        rc, out, err = suite.run([p, "-c", "a,b", "--json"])
        t = f"{cmdline([p, '-c', 'a,b', '--json'])} without --strict"
        suite.check(rc == 0 and out, t + ": exit 0", f"status {rc}: {err!r}")
        for w in err.splitlines():
            suite.check(w.startswith("colstat: "), t + ": warning starts 'colstat: '", w)
            m = re.match(r"colstat: (.*):(\d+): .*column '(\w+)'", w)
            if m and m.group(1) == p and m.group(3) in first_bad:
                suite.check(int(m.group(2)) == first_bad[m.group(3)],
                            t + f": warning names line {first_bad[m.group(3)]}", w)


def test_large(suite):
    """Errors deep in inputs of several MB (many blocks, several threads):
    the line must still be the right one."""
    rng = suite.rng
    n = 250000
    rows = csv_rows(rng, n)
    for k in range(0, n, 997):  # closed quoted fields spanning lines
        rows[k] = f'{k},{k},"a\nb"\n'  # column z: not selected
    lines_before = []  # physical line of each row (header is line 1)
    line = 2
    for r in rows:
        lines_before.append(line)
        line += r.count("\n")
    bad_row = rng.randrange(n // 2, n)
    strict = rows[:]
    strict[bad_row] = "1,oops,3\n"
    p = suite.path("large-strict.csv")
    write(p, ("x,y,z\n" + "".join(strict)).encode())
    for j in (1, 2):
        expect_error(suite, "--strict deep in a large file",
                     [p, "--strict", "-c", "x,y", "-j", j], 1, file=p,
                     line=lines_before[bad_row])
    # Two invalid fields in different blocks: the first in the file is named,
    # whichever thread finds its block first.
    first, second = sorted(rng.sample(range(n // 4, n), 2))
    strict = rows[:]
    strict[first] = "1,oops,3\n"
    strict[second] = "oops,2,3\n"
    p = suite.path("large-strict2.csv")
    write(p, ("x,y,z\n" + "".join(strict)).encode())
    for j in (2, 4):
        expect_error(suite, "--strict: the first of two invalid fields",
                     [p, "--strict", "-c", "x,y", "-j", j], 1, file=p,
                     line=lines_before[first])
    # The open quote after all of them, then plain rows it swallows.
    quoted = rows + ['4,"never closed\n'] + csv_rows(rng, 5000)
    p = suite.path("large-quote.csv")
    write(p, ("x,y,z\n" + "".join(quoted)).encode())
    for j in (1, 2):
        expect_error(suite, "unterminated quote deep in a large file",
                     [p, "-j", j], 1, file=p, line=line)


def test_binary(suite):
    rng = suite.rng
    for spec, size in (("f64", 8), ("f64x3", 24), ("i32,u8", 5), ("u16,f32x2", 10)):
        nrec = rng.randint(0, 100)
        extra = rng.randint(1, size - 1)
        p = suite.path(f"bad-{spec.replace(',', '_')}.bin")
        write(p, rng.randbytes(nrec * size + extra).replace(b"\x1f\x8b", b"\x00\x00"))
        expect_error(suite, f"binary size not a multiple of {size}",
                     [p, "-b", spec], 1, file=p)


USAGE = [
    ["--bogus"], ["-c"], ["--bins", "0"], ["--bins", "x"], ["--bins", "-3"],
    ["--range", "5:1"], ["--range", "abc"], ["--range", "1"], ["-o", "xml"],
    ["--format", "yaml"], ["--device", "tpu"], ["-j", "x"], ["-j", "-1"],
    ["-b", "f65"], ["-b", "f64x0"], ["-b", "f64,,i8"], ["-b", "int"],
    ["-d", "ab"], ["-c", "0"], ["-c", ""],
]


def json_texts(rng):
    """A JSON document (an array of objects, pretty or compact, or one
    object holding one) and the same records as JSON lines; strings hold
    commas and quotes, as the CSV reader would misread them."""
    import json
    n = rng.randint(1, 50)
    recs = [{"id": i, "price": rng.uniform(-1e3, 1e3),
             "host": f"h{rng.randint(0, 9)}, \"rack\" {i}"} for i in range(n)]
    doc = rng.choice([recs, {"rows": recs}])
    indent = rng.choice([None, 2, "\t"])
    lead = rng.choice(["", " \n", "\ufeff"])
    whole = lead + json.dumps(doc, indent=indent) + "\n"
    lines = "".join(json.dumps(r) + "\n" for r in recs)
    return whole.encode(), (lines if n > 1 else lines * 2).encode()


def test_json(suite):
    """JSON and JSON lines are refused by name with a hint (status 1, one
    line naming the file, nothing on stdout), from a file, gzip'ed, and on
    stdin; a CSV whose first field begins with '[' or '{' is still CSV."""
    whole, lines = json_texts(suite.rng)
    for tag, data, word in (("JSON", whole, "JSON document"),
                            ("JSON lines", lines, "JSON lines")):
        for name, raw in (("j.json", data), ("j.json.gz", gzip.compress(data))):
            p = suite.path(name)
            write(p, raw)
            expect_error(suite, tag, [p], 1, file=p)
            rc, out, err = suite.run([p])
            suite.check(word in err and "jq" in err,
                        f"{tag}: {cmdline([p])} names it and hints", repr(err))
        expect_error(suite, tag + " on stdin", ["-"], 1,
                     file="(standard input)", stdin=data)
    p = suite.path("brackets.csv")
    write(p, b"[a],{b}\n1,2\n3,4\n")
    rc, out, err = suite.run([p])
    suite.check(rc == 0 and b"4" in out, f"{cmdline([p])}: still CSV", err)


def test_usage(suite):
    p = suite.path("u.csv")
    write(p, b"a,b\n1,2\n3,4\n")
    for args in USAGE:
        expect_error(suite, "usage error", [p] + args, 2)
    # Asking for a column the input lacks: bad usage or bad data, either
    # way no output.
    for c in ("nosuch", "3", "1-5"):
        expect_error(suite, "column not in the input", [p, "-c", c], (1, 2))


def test_head(suite):
    """Output larger than a pipe buffer, read by `head -1`: exit 0 and no
    message."""
    rng = suite.rng
    ncols = 1500
    p = suite.path("wide.csv")
    rows = [",".join(f"c{i}" for i in range(ncols))]
    for _ in range(20):
        rows.append(",".join(str(rng.randint(0, 10**6)) for _ in range(ncols)))
    write(p, ("\n".join(rows) + "\n").encode())
    for extra in ([], ["--all"], ["--json", "--all"], ["--tsv"]):
        cmd = f'"$0" {p} {" ".join(extra)} 2>"$1" | head -1 >/dev/null; ' \
              'exit "${PIPESTATUS[0]}"'
        errf = suite.path("head.err")
        r = subprocess.run(["bash", "-c", cmd, suite.exe, errf], timeout=120)
        err = open(errf).read()
        suite.check(r.returncode == 0 and err == "",
                    f"colstat {p} {' '.join(extra)} | head -1: status 0, quiet",
                    f"status {r.returncode}, stderr {err!r}")


CONTROL = ["\n", "\r", "\t", "\x1b", "\x7f", "\x01"]


def one_line(suite, tag, err):
    """A message is one line: 'colstat: ' and no raw control byte."""
    body = err[:-1] if err.endswith("\n") else err
    ok = err.startswith("colstat: ") and err.endswith("\n") and \
        not any(c in body for c in CONTROL)
    return suite.check(ok, tag + ": one line, control bytes escaped", repr(err))


def test_escaped(suite):
    """User text in a message (a file name, -b's spec, -d's argument, a
    column name in -c, a field under --strict) never splits the line."""
    rng = suite.rng
    ctl = rng.choice(CONTROL)
    odd = suite.path(f"odd{ctl}name.csv")
    write(odd, b"a\n1\n")
    missing = suite.path(f"no{ctl}such.csv")
    bad = suite.path("strict.csv")
    write(bad, f"a,b\n1,2\n3,x{ctl}y\n".encode()
          if ctl not in "\n\r" else b'a,b\n1,2\n3,"x\ny"\n')
    for args, status in (([missing], 1), ([odd, "-b", f"f64{ctl}"], 2),
                         ([odd, "-d", f"{ctl};"], 2), ([odd, "-c", f"z{ctl}"], 2),
                         ([bad, "--strict", "-c", "1-2"], 1)):
        rc, out, err = suite.run(args)
        t = cmdline(args)
        suite.check(rc == status, t + f" exits {status}", f"status {rc}: {err!r}")
        suite.check(out == b"", t + " prints nothing on stdout", out[:200])
        one_line(suite, t, err)
    rc, out, err = suite.run([missing])
    want = "\\n" if ctl == "\n" else "\\r" if ctl == "\r" else \
        "\\t" if ctl == "\t" else "\\x%02X" % ord(ctl)
    suite.check(want in err, f"{cmdline([missing])}: the byte shows as {want}",
                repr(err))


def test_write_error(suite):
    """--help, --version and a result written to a full device: exit 1
    with one line; a reader that closes early is no error."""
    if not os.path.exists("/dev/full"):
        return
    p = suite.path("w.csv")
    write(p, b"a\n1\n")
    for args in (["--help"], ["--version"], [p], [p, "--json"]):
        with open("/dev/full", "wb") as full:
            r = subprocess.run([suite.exe] + args, stdout=full,
                               stderr=subprocess.PIPE, timeout=60)
        err = r.stderr.decode("utf-8", "replace")
        t = cmdline(args) + " > /dev/full"
        suite.check(r.returncode == 1, t + " exits 1", f"status {r.returncode}")
        one_line(suite, t, err)
        suite.check("write error" in err, t + " says write error", repr(err))


def main():
    suite = Suite("e2e_errors", sys.argv)
    suite.run_tests((test_unreadable, test_gzip, test_quote,
              test_quote_no_numbers, test_quote_open_across_parts,
              test_strict, test_large,
              test_binary, test_json,
              test_usage, test_head, test_escaped, test_write_error))


if __name__ == "__main__":
    main()
