#!/usr/bin/env python3
"""A flat profile by function from bench/pcprof.c's samples.

usage: python3 bench/pcprof_sym.py BINARY SAMPLES [TOP [LIBDIR]]

BINARY is the profiled program as built (its symbols: nm); SAMPLES the
file PCPROF named, with SAMPLES.maps beside it. A sample in a shared
library is named from that library's exported symbols: the copy in
LIBDIR of that name (the profiled machine's libc.so.6, brought back with
the samples), else the same path here, which names wrongly when the
machines' libraries differ.
"""
import os
import bisect
import collections
import subprocess
import sys


def symbols(path):
    """(addresses, names) of the text symbols of path, sorted."""
    for args in (["nm", "-n", "--defined-only", path],
                 ["nm", "-D", "-n", "--defined-only", path]):
        out = subprocess.run(args, capture_output=True, text=True).stdout
        syms = [(int(p[0], 16), p[2]) for p in
                (line.split() for line in out.splitlines())
                if len(p) == 3 and p[1] in "tTwWiI"]
        if syms:
            return [a for a, _ in syms], [n for _, n in syms]
    return [], []


def text_bias(path):
    """The executable segment's virtual address minus its file offset."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "LOAD" and "E" in "".join(p[6:-1]):
            return int(p[2], 16) - int(p[1], 16)
    return 0


def is_pie(path):
    out = subprocess.run(["readelf", "-h", path], capture_output=True,
                         text=True).stdout
    return "EXEC" not in out


def main():
    binary, samples = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    libdir = sys.argv[4] if len(sys.argv) > 4 else None
    regions = []
    for m in (line.split() for line in open(samples + ".maps")):
        if len(m) >= 6 and "x" in m[1]:
            lo, hi = (int(x, 16) for x in m[0].split("-"))
            regions.append((lo, hi, int(m[2], 16), m[5]))
    own = binary.rsplit("/", 1)[-1]
    cache, count, total = {}, collections.Counter(), 0
    for line in open(samples):
        pc = int(line, 16)
        total += 1
        r = next((r for r in regions if r[0] <= pc < r[1]), None)
        if not r:
            count["?"] += 1
            continue
        lo, _, off, path = r
        name = path.rsplit("/", 1)[-1]
        local = binary if name == own else path
        if libdir and name != own and os.path.exists(os.path.join(libdir, name)):
            local = os.path.join(libdir, name)
        if local not in cache:
            addrs, names = symbols(local)
            cache[local] = (addrs, names, text_bias(local), is_pie(local))
        addrs, names, bias, pie = cache[local]
        v = pc - lo + off + bias if pie else pc
        i = bisect.bisect_right(addrs, v) - 1
        count[name + ":" + (names[i] if i >= 0 else "?")] += 1
    for k, c in count.most_common(top):
        print("%6.2f%%  %s" % (100.0 * c / total, k))
    print("samples", total)


if __name__ == "__main__":
    main()
