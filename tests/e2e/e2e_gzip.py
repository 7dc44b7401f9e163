#!/usr/bin/env python3
"""End-to-end: colstat's gzip decoder (io/gzip/gzip.h) through
colstat_gzcat, on every kind of gzip stream, against zlib.

usage: python3 tests/e2e/e2e_gzip.py /path/to/colstat     (cwd = repo root)

colstat_gzcat is taken from beside colstat. Every input is decoded with 1,
2, 3 and 4 threads, with pieces forced down to a few KiB (the -c test hook)
so that piece edges fall everywhere, from a file (pread by several threads)
and from a pipe, and the bytes compared with zlib's (Python's zlib, member
by member, with source.c's rules after a member: the end, another member,
zero padding, or garbage). Inputs: GNU gzip -1/-6/-9, zlib raw streams with
Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED and level 0 (stored blocks of up
to 64 KiB across piece edges), sync and full flushes, pigz with and without
-i, bgzip, many small members, empty members, the optional header fields
FEXTRA/FNAME/FCOMMENT/FHCRC, incompressible bytes, long runs. Damage: a
stream truncated at many points, flipped bits, a bad CRC, a bad ISIZE,
trailing garbage: where zlib fails, colstat_gzcat must fail with one line
and exit status 1; where zlib succeeds (a flip in an ignored bit), the
bytes must be zlib's. Seed printed; COLSTAT_SEED reproduces. A tool that is
missing (gzip, pigz, bgzip) skips its cases with a message.
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite  # noqa: E402

THREADS = [1, 2, 3, 4]
PIECES = ["1k", "3k", "16k", "64k"]


# ----------------------------------------------------------------- data

def text_data(rng, n):
    """CSV-like numbers: compresses like the benchmark's data."""
    out, size, row = [], 0, rng.randrange(10 ** 6)
    while size < n:
        line = "%d,%.2f,%d,%s\n" % (row, rng.random() * 1000,
                                    rng.randrange(-999, 999),
                                    rng.choice(["a", "bb", "", "ccc"]))
        out.append(line)
        size += len(line)
        row += 3
    return "".join(out).encode()[:n]


def random_data(rng, n):
    return rng.randbytes(n)


def runs_data(rng, n):
    """Long runs and repeats: matches reaching 32 KiB back, high ratio."""
    out = bytearray()
    while len(out) < n:
        k = rng.choice([1, 3, 100, 5000, 40000])
        if rng.random() < 0.5:
            out += bytes([rng.randrange(256)]) * k
        else:
            out += out[-k:] if len(out) >= k else rng.randbytes(k)
    return bytes(out[:n])


def mixed_data(rng, n):
    parts = []
    while sum(map(len, parts)) < n:
        f = rng.choice([text_data, random_data, runs_data])
        parts.append(f(rng, rng.randrange(1, n // 3 + 2)))
    return b"".join(parts)[:n]


KINDS = {"text": text_data, "random": random_data, "runs": runs_data,
         "mixed": mixed_data}


# ------------------------------------------------------------- gzip forms

def header(flags=0, extra=None, name=None, comment=None, hcrc=False):
    """A gzip member header (RFC 1952 2.3) with the optional fields."""
    flg = flags
    tail = b""
    if extra is not None:
        flg |= 4
        tail += struct.pack("<H", len(extra)) + extra
    if name is not None:
        flg |= 8
        tail += name + b"\0"
    if comment is not None:
        flg |= 16
        tail += comment + b"\0"
    if hcrc:
        flg |= 2
    h = bytes([0x1f, 0x8b, 8, flg]) + struct.pack("<I", 0) + b"\0\3" + tail
    if hcrc:
        h += struct.pack("<H", zlib.crc32(h) & 0xffff)
    return h


def trailer(data):
    return struct.pack("<II", zlib.crc32(data), len(data) & 0xffffffff)


def raw_deflate(rng, data, level, strategy, flushes=0):
    """Raw deflate with zlib, with `flushes` random sync or full flushes."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15, rng.randint(1, 9),
                         strategy)
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(flushes))
    out, at = [], 0
    for cut in cuts:
        out.append(c.compress(data[at:cut]))
        out.append(c.flush(rng.choice([zlib.Z_SYNC_FLUSH,
                                       zlib.Z_FULL_FLUSH])))
        at = cut
    out.append(c.compress(data[at:]))
    out.append(c.flush(zlib.Z_FINISH))
    return b"".join(out)


def member(rng, data, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, flushes=0,
           **hdr):
    return header(**hdr) + raw_deflate(rng, data, level, strategy,
                                       flushes) + trailer(data)


def split(rng, data, k):
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(k - 1))
    return [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]


def tool(argv, data):
    p = subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=True)
    return p.stdout


# -------------------------------------------------------------- reference

def zlib_reference(blob):
    """(True, bytes) or (False, None): zlib member by member, then what
    io/source/source.c accepts after a member: nothing, another member (1f 8b),
    or zeros to the end."""
    out, rest = [], blob
    while True:
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(rest))
            out.append(d.flush())
        except zlib.error:
            return False, None
        if not d.eof:
            return False, None
        rest = d.unused_data
        if not rest:
            return True, b"".join(out)
        if rest[0] == 0:
            return (not rest.strip(b"\0")), b"".join(out)
        if rest[0] != 0x1f or (len(rest) > 1 and rest[1] != 0x8b):
            return False, None


# ----------------------------------------------------------------- runner

class Runner:
    def __init__(self, suite):
        self.s = suite
        exe = os.path.join(os.path.dirname(suite.exe), "colstat_gzcat")
        if not os.access(exe, os.X_OK):
            print(f"e2e_gzip: no colstat_gzcat beside {suite.exe}: skipped")
            sys.exit(77)
        self.exe = exe
        self.n = 0

    def decode(self, path, threads, piece, pipe):
        args = [self.exe, "-j", str(threads), "-o", "-"]
        if piece:
            args += ["-c", piece]
        stdin = None
        if pipe:
            args.append("-")
            stdin = open(path, "rb")
        else:
            args.append(path)
        try:
            p = subprocess.run(args, stdin=stdin, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=300)
        finally:
            if stdin:
                stdin.close()
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def case(self, tag, blob, modes=None):
        """Decodes blob every way (or the given (threads, piece, pipe)
        modes) and compares with zlib's verdict and bytes."""
        self.n += 1
        path = self.s.path("case%d.gz" % self.n)
        with open(path, "wb") as f:
            f.write(blob)
        ok, want = zlib_reference(blob)
        rng = self.s.rng
        if modes is None:
            modes = [(1, None, False), (2, None, False)]
            for t in THREADS[1:]:
                modes.append((t, rng.choice(PIECES), rng.random() < 0.3))
            if not QUICK:
                modes.append((rng.choice(THREADS[1:]), rng.choice(PIECES),
                              True))
        for threads, piece, pipe in modes:
            how = "%s: -j %d -c %s%s" % (tag, threads, piece or "default",
                                         " (pipe)" if pipe else "")
            rc, out, err = self.decode(path, threads, piece, pipe)
            if ok:
                same = rc == 0 and out == want
                detail = "" if same else (
                    "rc %d, %d bytes (want %d)%s: %s" % (
                        rc, len(out), len(want),
                        "" if rc else ", first difference at %d" %
                        first_diff(out, want), err.strip()[:200]))
                self.s.check(same, how + " = zlib's bytes", detail)
            else:
                lines = err.strip().splitlines()
                good = (rc == 1 and len(lines) == 1 and
                        lines[0].startswith("colstat_gzcat: "))
                self.s.check(good, how + " fails as zlib does",
                             "rc %d, stderr %r" % (rc, err[:300]))


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def size(rng):
    return rng.choice([0, 1, 100, 5000, 70000, 300000, 1 << 20])


# ------------------------------------------------------------------ tests

def test_zlib_forms(s):
    r = Runner(s)
    rng = s.rng
    forms = [("level %d" % lv, lv, zlib.Z_DEFAULT_STRATEGY)
             for lv in (0, 1, 6, 9)]
    forms += [("Z_FIXED", 6, zlib.Z_FIXED),
              ("Z_HUFFMAN_ONLY", 6, zlib.Z_HUFFMAN_ONLY),
              ("Z_RLE", 6, zlib.Z_RLE), ("Z_FILTERED", 6, zlib.Z_FILTERED)]
    for name, lv, st in forms:
        for kind in (["text", "mixed"] if QUICK else KINDS):
            data = KINDS[kind](rng, size(rng) or 1000)
            flushes = rng.choice([0, 0, 1, 5])
            r.case("%s, %s %d bytes, %d flushes" % (name, kind, len(data),
                                                     flushes),
                   member(rng, data, lv, st, flushes))


def test_stored_across_edges(s):
    """Level 0: stored blocks of up to 64 KiB, with piece edges inside
    their payloads, their lengths and their headers."""
    r = Runner(s)
    rng = s.rng
    data = random_data(rng, 700000)
    blob = member(rng, data, 0, zlib.Z_DEFAULT_STRATEGY, 3)
    modes = [(t, c, p) for t in (2, 4) for c in ("1k", "5k", "64k", "65k")
             for p in (False,)] + [(3, "7k", True)]
    r.case("stored blocks, 700000 random bytes", blob, modes)


def test_header_fields(s):
    r = Runner(s)
    rng = s.rng
    data = text_data(rng, 200000)
    for hdr in [dict(extra=b"AB\2\0xy"), dict(name=b"file.csv"),
                dict(comment=b"a comment " * 50), dict(hcrc=True),
                dict(extra=rng.randbytes(3000), name=b"n" * 5000,
                     comment=b"c", hcrc=True)]:
        r.case("header %s" % sorted(hdr), member(rng, data, **hdr))
    # A damaged header CRC: zlib refuses it.
    bad = bytearray(member(rng, data, hcrc=True))
    bad[10] ^= 1
    r.case("header crc mismatch", bytes(bad))


def test_members(s):
    r = Runner(s)
    rng = s.rng
    data = text_data(rng, 1 << 20)
    for k in (2, 7, 60, 400):
        parts = split(rng, data, k)
        blob = b"".join(member(rng, p, rng.randint(0, 9)) for p in parts)
        r.case("%d members" % k, blob)
    # Empty members, first, between and last.
    e = member(rng, b"")
    r.case("empty members", e + member(rng, data[:5000]) + e + e +
           member(rng, data[5000:]) + e)
    r.case("one empty member", e)
    # Zero padding after the last member is accepted (as GNU gzip does).
    r.case("zero padding", member(rng, data) + bytes(rng.randrange(1, 5000)))


def test_tools(s):
    r = Runner(s)
    rng = s.rng
    data = text_data(rng, 3 << 20 if not QUICK else 1 << 20)
    have = {t: shutil.which(t) for t in ("gzip", "pigz", "bgzip")}
    for t, path in have.items():
        if not path:
            print("e2e_gzip: %s not installed: its cases are skipped" % t)
    if have["gzip"]:
        for lv in (1, 6, 9):
            r.case("gzip -%d" % lv, tool(["gzip", "-%d" % lv, "-c"], data))
        r.case("gzip -6, incompressible",
               tool(["gzip", "-6", "-c"], random_data(rng, 500000)))
        r.case("cat a.gz b.gz", tool(["gzip", "-c"], data[:70000]) +
               tool(["gzip", "-c"], data[70000:]))
    if have["pigz"]:
        r.case("pigz", tool(["pigz", "-c", "-p", "2", "-b", "64"], data))
        r.case("pigz -i", tool(["pigz", "-c", "-i", "-p", "2", "-b", "32"],
                               data))
    if have["bgzip"]:
        r.case("bgzip", tool(["bgzip", "-c"], data))


def test_many_pieces(s):
    """A larger file cut into hundreds of pieces, decoded several times
    with every thread count: the races of hand-over, window passing,
    resolving and redoes get their chances."""
    r = Runner(s)
    rng = s.rng
    data = text_data(rng, (6 << 20) if not QUICK else (3 << 20))
    blob = member(rng, data, 6)
    modes = [(t, c, False) for t in (2, 3, 4, 8) for c in ("16k", "64k")]
    modes += [(t, "32k", True) for t in (2, 4)]
    # Pieces larger than a thread's 1 MiB read buffer: it slides, looks
    # ahead into the next piece's range and comes back.
    modes += [(2, "1200k", False), (3, "1200k", True)]
    for _ in range(1 if QUICK else 3):
        r.case("6 MiB of text in pieces", blob, modes)


def test_high_ratio(s):
    """Zeros compress 1000:1: a piece decodes to far more than it holds
    in memory; the reader takes it slice by slice."""
    r = Runner(s)
    rng = s.rng
    data = bytes(20 << 20 if not QUICK else 4 << 20)
    r.case("zeros", member(rng, data, 9),
           [(2, "1k", False), (3, "4k", True), (4, None, False)])


def damage_cases(rng, blob, n):
    """Truncations at many points, flipped bits, bad CRC/ISIZE, garbage."""
    cases = []
    for cut in sorted(rng.randrange(1, len(blob)) for _ in range(n)):
        cases.append(("truncated at %d of %d" % (cut, len(blob)),
                      blob[:cut]))
    for _ in range(n):
        b = bytearray(blob)
        at = rng.randrange(10, len(b) - 8)
        b[at] ^= 1 << rng.randrange(8)
        cases.append(("bit flipped at byte %d" % at, bytes(b)))
    b = bytearray(blob)
    b[-8] ^= 0x40
    cases.append(("bad CRC", bytes(b)))
    b = bytearray(blob)
    b[-1] ^= 1
    cases.append(("bad ISIZE", bytes(b)))
    cases.append(("trailing garbage", blob + b"garbage"))
    cases.append(("trailing garbage after zeros", blob + bytes(10) + b"x"))
    cases.append(("1f at the end", blob + b"\x1f"))
    cases.append(("1f 8b 09 after", blob + b"\x1f\x8b\x09" + bytes(20)))
    return cases


def test_damage(s):
    r = Runner(s)
    rng = s.rng
    data = text_data(rng, 400000)
    blob = member(rng, data, 6) + member(rng, data[:30000], 1)
    n = 6 if QUICK else 16
    for tag, b in damage_cases(rng, blob, n):
        modes = [(1, None, False), (rng.choice([2, 3]), "1k", False),
                 (rng.choice([2, 4]), rng.choice(PIECES),
                  rng.random() < 0.3)]
        r.case(tag, b, modes)


def main():
    s = Suite("e2e_gzip", sys.argv)
    s.run_tests([test_zlib_forms, test_stored_across_edges,
                 test_header_fields, test_members, test_tools,
                 test_many_pieces, test_high_ratio, test_damage])


if __name__ == "__main__":
    main()
