#!/usr/bin/env python3
"""End-to-end: compressed input (gzip, zstd, xz, bzip2), formats colstat
refuses, and files that change size while read.

usage: python3 tests/e2e/e2e_codecs.py /path/to/colstat     (cwd = repo root)

Random CSVs are compressed each way with the command-line tools (gzip,
zstd, xz, bzip2; Python's gzip, lzma and bz2 modules where a tool is
missing; zstd cases are skipped without zstd): one stream and several
concatenated, levels, integrity checks, xz blocks and stream padding, zstd
skippable frames; from a file and from standard input. colstat's JSON on
each must be byte-identical to its JSON on the plain file, which is itself
checked against the exact reference of harness.py. Damaged inputs (cut,
a byte changed, trailing garbage), formats recognised only to be refused
(zip, xlsx, tar, tar.gz, 7z, lz4, Parquet, ...) and a second layer of
compression exit 1 with one line on stderr naming the input and the
format, and nothing on stdout. A regular file cut or appended to while
colstat reads it (colstat stopped with SIGSTOP while it reads, the file
changed, SIGCONT) exits 1: "file shrank/grew while being read". Seed
printed; COLSTAT_SEED reproduces.
"""
import bz2
import gzip
import io
import json
import lzma
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (STAT_FLAGS, ColRef, CsvCase, Suite,  # noqa: E402
                     check_doc, cmdline, read_columns)

ALL = set(STAT_FLAGS)  # what --all asks for (the median too)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def tool(argv, data):
    """data through a command-line compressor; None when it is missing."""
    if not shutil.which(argv[0]):
        return None
    return subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                          check=True, timeout=300).stdout


# Per format: compress(rng, data) -> bytes of one stream, made by the tool
# with random options (or the Python module), or None when it cannot be
# made here.

def gz_one(rng, data):
    level = rng.randint(1, 9)
    out = tool(["gzip", "-c", f"-{level}"], data)
    return out if out is not None else gzip.compress(data, level)


def zstd_one(rng, data):
    opts = [f"-{rng.randint(1, 19)}"]
    opts += rng.choice([[], ["--no-check"], ["--no-content-size"]])
    return tool(["zstd", "-q", "-c"] + opts, data)


def xz_one(rng, data):
    check = rng.choice(["crc32", "crc64", "sha256", "none"])
    preset = rng.randint(0, 6)
    opts = [f"-{preset}", f"--check={check}"]
    if rng.random() < 0.5:  # several blocks
        opts += ["-T2", f"--block-size={rng.randint(1000, 200000)}"]
    out = tool(["xz", "-c"] + opts, data)
    if out is not None:
        return out
    checks = {"crc32": lzma.CHECK_CRC32, "crc64": lzma.CHECK_CRC64,
              "sha256": lzma.CHECK_SHA256, "none": lzma.CHECK_NONE}
    return lzma.compress(data, preset=preset, check=checks[check])


def bz2_one(rng, data):
    level = rng.randint(1, 9)
    out = tool(["bzip2", "-c", f"-{level}"], data)
    return out if out is not None else bz2.compress(data, level)


def zstd_skippable(rng):
    payload = rng.randbytes(rng.randint(0, 200))
    return bytes([0x50 + rng.randrange(16), 0x2A, 0x4D, 0x18]) + \
        len(payload).to_bytes(4, "little") + payload


def xz_padding(rng):
    return bytes(4 * rng.randint(1, 8))


# name, compress, filler between streams, zero padding allowed at the end
FORMATS = [("gzip", gz_one, None, 1), ("zstd", zstd_one, zstd_skippable, 0),
           ("xz", xz_one, xz_padding, 4), ("bzip2", bz2_one, None, 0)]


def streams(rng, fmt, data, k):
    """data split at k-1 random points, each piece its own stream, fillers
    between some; None when the format cannot be made here."""
    _, one, filler, _ = fmt
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(k - 1))
    out = b""
    for n, (a, b) in enumerate(zip([0] + cuts, cuts + [len(data)])):
        if n and filler and rng.random() < 0.4:
            out += filler(rng)
        z = one(rng, data[a:b])
        if z is None:
            return None
        out += z
    return out


def reference(path, case):
    names, rows, fields = read_columns(path, case.delim, case.header, case.ncols)
    idx = case.numeric_indices()
    return rows, [(i, names[i - 1], ColRef(fields[i - 1])) for i in idx]


def run_ok(suite, tag, args, stdin=None):
    rc, out, err = suite.run(args, stdin=stdin)
    t = f"{tag}: {cmdline(args)}" + (" < stdin" if stdin is not None else "")
    if suite.check(rc == 0, t + " exits 0", f"status {rc}: {err.strip()}"):
        return out
    return None


def test_same_answer(suite):
    """Each format, one stream and several: the same JSON as the plain
    file, bit for bit."""
    rng = suite.rng
    skipped = set()
    for n in range(3):
        plain = suite.path(f"c{n}.csv")
        case = CsvCase(rng, plain, rng.randint(200, 4000), header=True)
        rows, want = reference(plain, case)
        data = open(plain, "rb").read()
        args = ["--json", "--all", "-d", case.delim, "-c",
                ",".join(str(i) for i, _, _ in want)]
        base = run_ok(suite, "plain", [plain] + args)
        if base is None:
            continue
        check_doc(suite, f"plain {plain}", base, rows, want, ALL)
        for fmt in FORMATS:
            name, _, filler, pad = fmt
            for k in (1, rng.randint(2, 6)):
                z = streams(rng, fmt, data, k)
                if z is None:
                    skipped.add(name)
                    continue
                if filler and rng.random() < 0.3:
                    z += filler(rng)
                if pad and rng.random() < 0.3:
                    z += bytes(pad * rng.randint(1, 100))
                p = suite.path(f"c{n}-{k}.csv.{name}")
                write(p, z)
                tag = f"{name}, {k} stream(s)"
                out = run_ok(suite, tag, [p] + args)
                if out is not None:
                    suite.check(out == base, f"{tag}: same JSON as plain",
                                f"{out[:300]!r}\n{base[:300]!r}")
                if k > 1:
                    out = run_ok(suite, tag, args, stdin=z)
                    if out is not None:
                        suite.check(out == base, f"{tag} on stdin: same JSON "
                                    "as plain")
    for name in sorted(skipped):
        print(f"e2e_codecs: no {name} tool: {name} cases skipped")


def expect_error(suite, tag, args, file, words, stdin=None):
    """Exit 1, nothing on stdout, one stderr line "colstat: FILE: ..."
    holding every one of words."""
    rc, out, err = suite.run(args, stdin=stdin)
    t = f"{tag}: {cmdline(args)}"
    suite.check(rc == 1, t + " exits 1", f"status {rc}: {err!r}")
    suite.check(out == b"", t + " prints nothing on stdout", out[:200])
    suite.check(err.endswith("\n") and err.count("\n") == 1,
                t + " stderr is one line", repr(err))
    suite.check(err.startswith(f"colstat: {file}: "),
                t + f" message names {file}", repr(err))
    for w in words:
        suite.check(w in err, t + f" message says {w!r}", repr(err))


def test_damaged(suite):
    """Cut, a changed byte, garbage after the end: errors, for each
    format, from a file and from standard input."""
    rng = suite.rng
    plain = suite.path("d.csv")
    CsvCase(rng, plain, rng.randint(3000, 8000), ncols=4, header=True)
    data = open(plain, "rb").read()
    for fmt in FORMATS:
        name, one, _, pad = fmt
        z = streams(rng, fmt, data, rng.randint(1, 3))
        if z is None:
            continue
        # The changed byte goes into a stream with its integrity check:
        # zstd(1) and xz(1) have one by default; gzip and bzip2 always do.
        if name == "zstd":
            checked = tool(["zstd", "-q", "-c", "-3"], data)
        elif name == "xz":
            checked = tool(["xz", "-c", "-1"], data) or lzma.compress(data)
        else:
            checked = one(rng, data)
        at = rng.randrange(len(checked) // 4, len(checked) - 4)
        flipped = checked[:at] + bytes([checked[at] ^ 0x5A]) + checked[at + 1:]
        cases = {
            "cut": (z[:rng.randrange(12, len(z) - 1)], ["unexpected end of",
                                                        name]),
            "changed byte": (flipped, [name]),
            "garbage after the end": (z + b"garbage\n", [
                f"trailing garbage after {name} data"]),
        }
        if not pad:
            cases["zeros after the end"] = (z + bytes(4), [
                f"trailing garbage after {name} data"])
        elif pad == 4:
            cases["padding not a multiple of 4"] = (z + bytes(6), [
                "padding, not a multiple of 4"])
        for what, (blob, words) in cases.items():
            p = suite.path(f"bad-{what.replace(' ', '-')}.csv.{name}")
            write(p, blob)
            expect_error(suite, f"{name}, {what}", [p], p, words)
            if what == "cut":
                expect_error(suite, f"{name}, {what}, stdin", ["--json"],
                             "(standard input)", words, stdin=blob)


def zip_bytes(members):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return b.getvalue()


def tar_bytes(mode, name, data):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode=mode) as t:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return b.getvalue()


def test_refused(suite):
    """Formats recognised only to be refused: one line naming them."""
    rng = suite.rng
    text = b"a,b\n" + b"".join(b"%d,%d\n" % (rng.randint(0, 99),
                                             rng.randint(0, 99))
                               for _ in range(200))
    tail = rng.randbytes(300)
    cases = {
        "data.zip": (zip_bytes([("data.csv", text)]), "zip archive"),
        "book.xlsx": (zip_bytes([("[Content_Types].xml", b"<Types/>"),
                                 ("xl/workbook.xml", b"<workbook/>")]),
                      "zip archive"),
        "data.tar": (tar_bytes("w", "data.csv", text), "tar archive"),
        "data.tar.gz": (tar_bytes("w:gz", "data.csv", text),
                        "tar archive inside gzip data"),
        "data.tar.xz": (tar_bytes("w:xz", "data.csv", text),
                        "tar archive inside xz data"),
        "data.tar.bz2": (tar_bytes("w:bz2", "data.csv", text),
                         "tar archive inside bzip2 data"),
        "data.7z": (b"7z\xbc\xaf\x27\x1c" + tail, "7z archive"),
        "data.rar": (b"Rar!\x1a\x07\x01\x00" + tail, "RAR archive"),
        "data.parquet": (b"PAR1\x15\x04" + tail + b"PAR1", "Parquet file"),
        "data.feather": (b"ARROW1\x00\x00" + tail, "Arrow IPC (Feather) file"),
        "data.csv.Z": (b"\x1f\x9d\x90" + tail, "compress (.Z) data"),
        "data.csv.lz": (b"LZIP\x01\x0c" + tail, "lzip data"),
        "data.npy": (b"\x93NUMPY\x01\x00" + tail, "NumPy .npy file"),
        "data.xls": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + tail,
                     "OLE2 document"),
        "data.sqlite": (b"SQLite format 3\x00" + tail, "SQLite database"),
        "data.gz.gz": (gzip.compress(gzip.compress(text)),
                       "gzip data inside gzip data"),
        "data.bz2.xz": (lzma.compress(bz2.compress(text)),
                        "bzip2 data inside xz data"),
    }
    lz4 = tool(["lz4", "-q", "-c"], text)
    cases["data.csv.lz4"] = (lz4 or b"\x04\x22\x4d\x18" + tail, "lz4 data")
    zs = tool(["zstd", "-q", "-c"], gzip.compress(text))
    if zs is not None:
        cases["data.gz.zst"] = (zs, "gzip data inside zstd data")
    for name, (blob, words) in cases.items():
        p = suite.path(name)
        write(p, blob)
        expect_error(suite, "refused", [p], p, [words])
    p = suite.path("data.zip")
    expect_error(suite, "refused on stdin", [], "(standard input)",
                 ["zip archive", "not read by colstat"],
                 stdin=open(p, "rb").read())
    # Text that only begins like a magic is text.
    p = suite.path("near.csv")
    write(p, b"BZh9,PAR1,LZIP\n1,2,3\n4,5,6\n")
    run_ok(suite, "a header that begins like bzip2", [p, "--json"])
    # Raw binary values that only begin like a magic are values (e2e_inputs,
    # seed 1349049655: one i8 of 0xFD was refused as truncated xz data).
    for blob in (b"\x1f", b"\xfd", b"\xfd\x37", b"\x28\xb5", b"\xff",
                 b"\x1f\x8b"[:1] * 3):
        p = suite.path("short.bin")
        write(p, blob)
        for kind, signed in (("i8", True), ("u8", False)):
            out = run_ok(suite, f"binary {blob.hex()} -b {kind}",
                         [p, "-b", kind, "--sum", "--json"])
            want = sum(b - 256 if signed and b > 127 else b for b in blob)
            if out is not None:
                got = json.loads(out)["columns"][0]["sum"]
                suite.check(got == want, f"binary {blob.hex()} -b {kind}: "
                            "sum of the bytes", f"got {got}, want {want}")


def fd_pos(pid, path):
    """The offset of pid's descriptor open on path, or None."""
    fds = f"/proc/{pid}/fd"
    try:
        for fd in os.listdir(fds):
            try:
                if os.readlink(os.path.join(fds, fd)) == path:
                    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                        for line in f:
                            if line.startswith("pos:"):
                                return int(line.split()[1])
            except OSError:
                continue
    except OSError:
        pass
    return None


def change_while_read(suite, path, size, grow):
    """Runs colstat on path, stops it while it reads (its descriptor's
    offset past 0 and short of the end), cuts or appends to the file,
    lets it go on. Returns (status, stdout, stderr), or None when colstat
    could not be caught mid-read."""
    p = subprocess.Popen([suite.exe, path, "--json", "--device", "cpu",
                          "-j", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    caught = False
    t0 = time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < 30:
        pos = fd_pos(p.pid, path)
        if pos and pos < size:
            os.kill(p.pid, signal.SIGSTOP)
            pos = fd_pos(p.pid, path)
            if pos and pos < size:
                caught = True
                if grow:
                    with open(path, "ab") as f:
                        f.write(b"1,2,3,4\n" * 1000)
                else:
                    os.truncate(path, pos + (size - pos) // 2)
            os.kill(p.pid, signal.SIGCONT)
            break
    out, err = p.communicate(timeout=120)
    return (p.returncode, out, err.decode()) if caught else None


def test_changing_file(suite):
    """A plain CSV cut or appended to while read is an error,
    never a partial result reported whole."""
    if not os.path.isdir("/proc/self/fdinfo"):
        print("e2e_codecs: no /proc: changing-file cases skipped")
        return
    rng = suite.rng
    row = b"".join(b"%d,%d.%02d,%d,%d\n" % (rng.randint(0, 10**6),
                                           rng.randint(0, 999),
                                           rng.randint(0, 99),
                                           rng.randint(-50, 50),
                                           rng.randint(0, 10**9))
                   for _ in range(1000))
    for grow in (False, True):
        what = "grew" if grow else "shrank"
        result = None
        for attempt in range(4):  # bigger each time, until caught mid-read
            path = suite.path(f"changing-{what}.csv")
            size = len(row) * 300 * 2 ** attempt
            with open(path, "wb") as f:
                f.write(b"a,b,c,d,e\n")
                for _ in range(size // len(row)):
                    f.write(row)
            size = os.path.getsize(path)
            result = change_while_read(suite, path, size, grow)
            if result is not None:
                break
        if result is None:
            print(f"e2e_codecs: colstat read too fast to be caught: "
                  f"'{what}' case skipped")
            continue
        rc, out, err = result
        t = f"file that {what} while colstat read it"
        suite.check(rc == 1, t + ": exits 1", f"status {rc}: {err!r}")
        suite.check(out == b"", t + ": nothing on stdout", out[:200])
        suite.check(err.startswith(f"colstat: {path}: file {what} while "
                                   "being read") and err.count("\n") == 1,
                    t + ": one line saying so", repr(err))


def main():
    suite = Suite("e2e_codecs", sys.argv)
    suite.run_tests((test_same_answer, test_damaged, test_refused,
                     test_changing_file))


if __name__ == "__main__":
    main()
