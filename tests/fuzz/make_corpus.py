#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/fuzz_gzip_parallel.c into
tests/fuzz/corpus/ (committed; run again to regenerate it identically).

Each seed is one byte choosing threads, piece size and pread or pipe (see
the harness), then a gzip stream: the kinds the decoder must handle, each
small (under 8 KiB) so that the fuzzer's mutations stay fast."""
import base64
import os
import random
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def header(flg=0, tail=b""):
    return bytes([0x1f, 0x8b, 8, flg]) + bytes(4) + b"\0\3" + tail


def member(data, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, flushes=(),
           flg=0, tail=b""):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    out, at = [], 0
    for cut, mode in flushes:
        out.append(c.compress(data[at:cut]))
        out.append(c.flush(mode))
        at = cut
    out.append(c.compress(data[at:]))
    out.append(c.flush())
    return (header(flg, tail) + b"".join(out) +
            struct.pack("<II", zlib.crc32(data), len(data)))


def main():
    rng = random.Random(1)
    text = "".join("%d,%.2f,%d\n" % (i, rng.random() * 100, rng.randrange(99))
                   for i in range(400)).encode()
    rand = bytes(rng.randrange(256) for _ in range(3000))
    zeros = bytes(60000)
    name = b"seed.csv\0"
    hcrc = header(2 | 8, name)
    hcrc += struct.pack("<H", zlib.crc32(hcrc) & 0xffff)
    seeds = {
        "text_l6": member(text),
        "text_l1": member(text, 1),
        "text_l9_sync": member(text, 9, flushes=[(2000, zlib.Z_SYNC_FLUSH),
                                                  (5000, zlib.Z_FULL_FLUSH)]),
        "stored": member(rand, 0),
        "fixed": member(text, 6, zlib.Z_FIXED),
        "huffman_only": member(text, 6, zlib.Z_HUFFMAN_ONLY),
        "rle": member(text, 6, zlib.Z_RLE),
        "random_l6": member(rand),
        "zeros_l9": member(zeros, 9),
        "members": b"".join(member(text[i:i + 900], 1 + i % 9)
                            for i in range(0, len(text), 900)),
        "empty_members": member(b"") + member(text[:500]) + member(b""),
        "header_fields": member(text[:3000], flg=4 | 8 | 16,
                                tail=struct.pack("<H", 4) + b"BCxy" + name +
                                b"comment\0"),
        "header_crc": hcrc + member(text[:2000])[10:],
        "padding": member(text[:2000]) + bytes(300),
        "garbage": member(text[:2000]) + b"garbage",
        "truncated": member(text)[:-100],
        "bgzf_like": b"".join(member(text[i:i + 700], 6, flg=4,
                                     tail=struct.pack("<HBBHH", 6, 66, 67, 2,
                                                      0))
                              for i in range(0, 6000, 700)),
        # A bit flipped in a block's unused distance code lengths: zlib
        # refuses the incomplete code, ISA-L (the one-thread path) decodes
        # the same bytes, CRC-32 and ISIZE right (fuzz_gzip_parallel.c's
        # isal_leniency); found by a 70-minute run.
        "zz_isal_incomplete_distances": base64.b64decode(
            "H4sIAAAAAAAAA+3BMQEAAADCoPVPbQ0PsAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAC+DAWqJ1Fg6gAA"),
    }
    out = os.path.join(HERE, "corpus")
    os.makedirs(out, exist_ok=True)
    for i, (name, blob) in enumerate(sorted(seeds.items())):
        # threads, piece size and pread/pipe vary across the seeds.
        how = (i * 37) & 0xff
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([how]) + blob)


if __name__ == "__main__":
    main()
