#!/usr/bin/env python3
"""Each kernel's device time from an `ncu --metrics gpu__time_duration.sum
--print-summary per-kernel` log: launches, mean and total, and all kernels'
total. usage: ncu_kernels.py LOG"""
import re
import sys


def main(path):
    name, inv, total, rows = None, 0, 0.0, []
    head = re.compile(r"\s+(.*?)\((\d+), (\d+), (\d+)\)x\((\d+), 1, 1\), Device \d+, "
                      r"CC [\d.]+, Invocations (\d+)")
    for line in open(path, errors="replace"):
        m = head.match(line)
        if m:
            name = re.sub(r"\(anonymous namespace\)::|<unnamed>::|^void ", "", m.group(1))
            name = re.sub(r"cub::(\w+)<.*", r"cub::\1", name).strip()
            inv = int(m.group(6))
            continue
        m = re.match(r"\s+gpu__time_duration.sum\s+(\S+)\s+\S+\s+\S+\s+(\S+)", line)
        if m and name:
            mean = float(m.group(2).replace(",", "")) * {"ns": 1e-3, "us": 1, "ms": 1e3}.get(m.group(1), 1)
            rows.append((name, inv, mean))
            total += mean * inv
            name = None
    for n, k, mean in sorted(rows, key=lambda r: -r[1] * r[2]):
        print("%-40s x%4d  mean %9.2f us  total %10.1f us  %5.1f%%" % (
            n[:40], k, mean, mean * k, 100 * mean * k / total if total else 0))
    print("%-40s        %28s %10.1f us" % ("all", "", total))


if __name__ == "__main__":
    main(sys.argv[1])
