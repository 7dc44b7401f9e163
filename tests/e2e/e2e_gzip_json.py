#!/usr/bin/env python3
"""End-to-end: colstat on gzip input gives the plain file's JSON, byte for
byte, whatever made the gzip and however colstat inflates it.

usage: python3 tests/e2e/e2e_gzip_json.py /path/to/colstat  (cwd = repo root)

A random CSV (numbers, integers, quoted fields of incompressible bytes,
long runs of one line) is compressed every way: GNU gzip -1/-6/-9, zlib
raw streams with Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE and level 0 (stored
blocks up to 64 KiB across piece edges), pigz with and without -i, bgzip,
many small members, empty members, the header fields FEXTRA, FNAME,
FCOMMENT and FHCRC. colstat --json --all on each, read as a file (pread
by several threads) and as a pipe, with 1 thread, the default threads,
and pieces forced down to a few KiB (COLSTAT_GZIP_PIECE, the test hook)
with 2 to 4 inflating threads (COLSTAT_GZIP_THREADS), must print exactly
what it prints for the plain CSV; the plain file's own correctness is the
other suites' (harness.py's exact reference). Damage (truncated at many
points, a flipped bit in the deflate data, a bad CRC, a bad ISIZE,
trailing garbage) exits 1 with one line and nothing on stdout, in
parallel mode too. The CPU backend always; the GPU backend as well when a
GPU is present (--device gpu). Seed printed; COLSTAT_SEED reproduces. A
missing tool (gzip, pigz, bgzip) skips its cases with a message.
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import QUICK, Suite, gpu_available  # noqa: E402
from e2e_gzip import header, member, raw_deflate, split, tool, trailer  # noqa: E402,E501


# ----------------------------------------------------------------- data

def csv_text(rng, n):
    """Numbers (decimals, integers, exponents, blanks), a quoted field of
    random bytes now and then (incompressible, commas and quotes inside),
    and runs of one repeated line (high ratio, matches 32 KiB back)."""
    out, size, row = ["id,price,qty,note,temp\n"], 0, 0
    while size < n:
        if rng.random() < 0.002:
            line = "%d,1.5,7,\"run\",-3e2\n" % row
            k = rng.randrange(100, 3000)
            out.append(line * k)
            size += len(line) * k
            row += k
            continue
        note = ""
        if rng.random() < 0.05:
            raw = bytes(rng.randrange(32, 127) for _ in range(
                rng.randrange(1, 400)))
            note = '"' + raw.decode().replace('"', '""') + '"'
        line = "%d,%.2f,%d,%s,%s\n" % (
            row, rng.random() * 1000, rng.randrange(-999, 999), note,
            rng.choice(["%.3e" % (rng.random() * 1e5), "", " 12 ", "nan"]))
        out.append(line)
        size += len(line)
        row += 1
    return "".join(out).encode()


def gz_member(rng, data, **kw):
    return member(rng, data, **kw)


def stored_member(data):
    """Level 0: stored blocks; zlib makes them up to 64 KiB - 1 long when
    handed the data whole."""
    c = zlib.compressobj(0, zlib.DEFLATED, -15)
    return header() + c.compress(data) + c.flush() + trailer(data)


def forms(rng, data):
    """(name, gzip bytes) for every way of making gzip listed above."""
    out = []
    for lv in (1, 6, 9):
        if shutil.which("gzip"):
            out.append(("gzip -%d" % lv, tool(["gzip", "-%d" % lv, "-c"],
                                              data)))
    for name, st in (("Z_FIXED", zlib.Z_FIXED),
                     ("Z_HUFFMAN_ONLY", zlib.Z_HUFFMAN_ONLY),
                     ("Z_RLE", zlib.Z_RLE)):
        out.append(("zlib " + name, gz_member(rng, data, strategy=st)))
    out.append(("zlib level 0 (stored)", stored_member(data)))
    out.append(("zlib -6, sync and full flushes",
                gz_member(rng, data, flushes=20)))
    if shutil.which("pigz"):
        out.append(("pigz", tool(["pigz", "-c", "-p", "2", "-b", "64"],
                                 data)))
        out.append(("pigz -i", tool(["pigz", "-c", "-i", "-p", "2", "-b",
                                     "32"], data)))
    if shutil.which("bgzip"):
        out.append(("bgzip", tool(["bgzip", "-c"], data)))
    parts = split(rng, data, 300)
    out.append(("300 small members",
                b"".join(gz_member(rng, p, level=rng.randint(0, 9))
                         for p in parts)))
    e = gz_member(rng, b"")
    half = len(data) // 2
    out.append(("empty members", e + gz_member(rng, data[:half]) + e + e +
                gz_member(rng, data[half:]) + e))
    hdr = dict(extra=rng.randbytes(rng.randrange(0, 300)),
               name=b"data.csv", comment=b"made by e2e_gzip_json", hcrc=True)
    out.append(("FEXTRA FNAME FCOMMENT FHCRC",
                header(**hdr) + raw_deflate(rng, data, 6,
                                            zlib.Z_DEFAULT_STRATEGY)
                + trailer(data)))
    out.append(("zero padding", gz_member(rng, data) + bytes(1000)))
    for t in ("gzip", "pigz", "bgzip"):
        if not shutil.which(t):
            print("e2e_gzip_json: %s not installed: its cases are skipped"
                  % t)
    return out


# ----------------------------------------------------------------- runs

ARGS = ["--json", "--all", "--progress"]


def modes(rng):
    """(label, colstat args, environment, pipe): 1 thread; the default;
    pieces of a few KiB with 2..4 threads inflating, from a file and a
    pipe (edges fall everywhere; COLSTAT_GZIP_THREADS, as -j alone may
    leave one thread inflating on the CPU); 4 inflating threads under
    -j 1."""
    small = str(rng.choice([1024, 3000, 4096, 16384]))
    t = str(rng.randint(2, 4))
    return [
        ("-j 1", ["-j", "1"], {}, False),
        ("default", [], {}, False),
        ("piece %s, %s threads" % (small, t), ["-j", t],
         {"COLSTAT_GZIP_PIECE": small, "COLSTAT_GZIP_THREADS": t}, False),
        ("piece %s, %s threads, pipe" % (small, t), ["-j", t],
         {"COLSTAT_GZIP_PIECE": small, "COLSTAT_GZIP_THREADS": t}, True),
        ("piece %s, 4 inflating, -j 1" % small, ["-j", "1"],
         {"COLSTAT_GZIP_PIECE": small, "COLSTAT_GZIP_THREADS": "4"}, False),
    ]


def run(suite, path, args, env, pipe):
    e = dict(os.environ)
    e.update(env)
    argv = [suite.exe] + args
    stdin = open(path, "rb") if pipe else None
    argv.append("-" if pipe else path)
    try:
        p = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=e, timeout=300)
    finally:
        if stdin:
            stdin.close()
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


DEVICES = []


class Ctx:
    def __init__(self, suite):
        self.s = suite
        if not DEVICES:
            DEVICES.append("cpu")
            if gpu_available(suite):
                DEVICES.append("gpu")
            else:
                print("e2e_gzip_json: no GPU: --device gpu cases skipped")
        self.devices = DEVICES
        self.n = 0

    def write(self, blob, ext=".csv.gz"):
        self.n += 1
        path = self.s.path("case%d%s" % (self.n, ext))
        with open(path, "wb") as f:
            f.write(blob)
        return path

    def plain(self, data, device):
        path = self.write(data, ".csv")
        rc, out, err = run(self.s, path, ARGS + ["--device", device], {},
                           False)
        self.s.check(rc == 0 and out, "plain CSV on %s" % device, err[:300])
        return out


def test_forms(s):
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, (3 << 20) if not QUICK else (600 << 10))
    want = {d: c.plain(data, d) for d in c.devices}
    for name, blob in forms(rng, data):
        path = c.write(blob)
        for dev in c.devices:
            for label, args, env, pipe in modes(rng):
                rc, out, err = run(s, path, ARGS + ["--device", dev] + args,
                                   env, pipe)
                s.check(rc == 0 and out == want[dev],
                        "%s, %s, %s: the plain file's JSON" % (name, dev,
                                                               label),
                        "rc %d, %s" % (rc, err.strip()[:300]))


def damages(rng, blob):
    """(name, bytes) of damaged copies of a one-member stream: zlib
    refuses each."""
    n = len(blob)
    out = []
    for cut in sorted(rng.sample(range(1, n - 1), 6)) + [n - 4, n - 1]:
        out.append(("truncated at %d of %d" % (cut, n), blob[:cut]))
    for _ in range(4):
        b = bytearray(blob)
        at = rng.randrange(20, n - 8)
        b[at] ^= 1 << rng.randrange(8)
        out.append(("bit flipped at byte %d" % at, bytes(b)))
    crc = bytearray(blob)
    crc[n - 8] ^= 0x55
    out.append(("bad CRC", bytes(crc)))
    isize = bytearray(blob)
    isize[n - 4] ^= 1
    out.append(("bad ISIZE", bytes(isize)))
    out.append(("trailing garbage", blob + b"garbage\n"))
    out.append(("a member, then garbage", blob + blob[:10] + b"x" * 50))
    return out


def zlib_ok(blob):
    rest = blob
    try:
        while rest:
            d = zlib.decompressobj(31)
            d.decompress(rest)
            if not d.eof:
                return False
            rest = d.unused_data
            if rest and rest[0] == 0 and not rest.strip(b"\0"):
                return True
    except zlib.error:
        return False
    return True


def test_damage(s):
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, (1 << 20) if not QUICK else (300 << 10))
    blob = gz_member(rng, data)
    want = c.plain(data, "cpu")
    for name, bad in damages(rng, blob):
        ok = zlib_ok(bad)
        path = c.write(bad)
        for dev in c.devices:
            for label, args, env, pipe in modes(rng):
                if label == "default" and dev == "gpu":
                    continue
                rc, out, err = run(s, path, ARGS + ["--device", dev] + args,
                                   env, pipe)
                tag = "%s, %s, %s" % (name, dev, label)
                if ok:  # a flip zlib does not see (an ignored bit)
                    s.check(rc == 0 and (dev != "cpu" or out == want),
                            tag + ": zlib accepts it, so does colstat",
                            err[:300])
                    continue
                lines = err.strip().splitlines()
                s.check(rc == 1 and out == b"" and len(lines) == 1 and
                        lines[0].startswith("colstat: "),
                        tag + ": one-line error, nothing on stdout",
                        "rc %d, %d bytes out, stderr %r" % (rc, len(out),
                                                            err[:300]))


def test_verbose(s):
    """-v says how the input was inflated: threads, GB/s, and parallel or
    why not."""
    c = Ctx(s)
    rng = s.rng
    data = csv_text(rng, 1 << 20)
    path = c.write(gz_member(rng, data))
    rc, _, err = run(s, path, ["--json", "-v", "--device", "cpu", "-j", "3"],
                     {"COLSTAT_GZIP_PIECE": "8192",
                      "COLSTAT_GZIP_THREADS": "3"}, False)
    line = [x for x in err.splitlines() if ": gzip: " in x]
    s.check(rc == 0 and len(line) == 1 and "3 threads" in line[0] and
            "GB/s" in line[0] and "in parallel" in line[0],
            "-v: parallel, threads, GB/s", err[:500])
    rc, _, err = run(s, path, ["--json", "-v", "--device", "cpu", "-j", "1"],
                     {}, False)
    line = [x for x in err.splitlines() if ": gzip: " in x]
    s.check(rc == 0 and len(line) == 1 and "not parallel: one thread" in
            line[0], "-v -j 1: sequential, and why", err[:500])


def main():
    s = Suite("e2e_gzip_json", sys.argv)
    s.run_tests([test_forms, test_damage, test_verbose])


if __name__ == "__main__":
    main()
