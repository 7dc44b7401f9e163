#!/usr/bin/env python3
"""The overlap figure: does colstat's GPU pipeline on a binary file run
at the speed of its slowest stage?

The stages, each alone, on the same file and with colstat's ring shape
(colstat_stage_bench): reading into the page-locked slots, copying them to
the device; and the kernels' own device time (colstat -v, 'kernels'). The
pipeline: colstat -v's 'stream' line, the wall time from the first read to
the last kernel (after the CUDA context is open and the slots are locked).
Prints medians and the ratio (target: within 15% of the slowest stage).

Usage: bench/overlap.py COLSTAT STAGE_BENCH FILE [runs] [colstat args...]
(default args: -a -b f64)"""
import re
import statistics
import subprocess
import sys


def colstat_run(colstat, args, path):
    r = subprocess.run([colstat, "--device", "gpu", "-v"] + args + [path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("overlap: colstat failed: " + r.stderr.strip()[-300:])
    num = {}
    for key in ("stream", "kernels", "h2d", "total", "pinned"):
        m = re.search(r"colstat: %s\s+([0-9.]+) s" % key, r.stderr)
        num[key] = float(m.group(1)) if m else None
    m = re.search(r"opened in ([0-9.]+) s", r.stderr)
    num["open"] = float(m.group(1)) if m else None
    if num["stream"] is None:
        sys.exit("overlap: no 'stream' line: the GPU did not read the file")
    return num


def stages_alone(bench, path, runs):
    r = subprocess.run([bench, path, "12", "12", "8", str(runs)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("overlap: stage bench failed: " + r.stderr.strip()[-300:])
    out = {}
    for key in ("read", "copy"):
        m = re.search(r"%s alone\s+([0-9.]+) s" % key, r.stdout)
        out[key] = float(m.group(1))
    return out, r.stdout


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    colstat, bench, path = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    args = sys.argv[5:] or ["-a", "-b", "f64"]
    alone, text = stages_alone(bench, path, runs)
    got = [colstat_run(colstat, args, path) for _ in range(runs)]
    med = {k: statistics.median(g[k] for g in got) for k in got[0]}
    stages = {"read": alone["read"], "copy": alone["copy"],
              "kernels": med["kernels"]}
    slow = max(stages, key=stages.get)
    ratio = med["stream"] / stages[slow]
    print(text.rstrip())
    print("colstat --device gpu -v %s %s, medians of %d:" % (" ".join(args), path, runs))
    print("  stream (first read to last kernel)  %.4f s  (runs: %s)" % (
        med["stream"], " ".join("%.4f" % g["stream"] for g in got)))
    print("  kernels (device time)               %.4f s" % med["kernels"])
    print("  h2d (copy engine busy)              %.4f s" % med["h2d"])
    print("  total %.4f s = opening the GPU %.4f s + page-locking %.4f s + "
          "the rest" % (med["total"], med["open"], med["pinned"]))
    print("stages alone: read %.4f s, copy %.4f s, kernels %.4f s; slowest: %s" % (
        stages["read"], stages["copy"], stages["kernels"], slow))
    print("overlap: stream %.4f s = %.2fx the slowest stage alone "
          "(target <= 1.15x): %s" % (med["stream"], ratio,
                                     "met" if ratio <= 1.15 else "NOT met"))


if __name__ == "__main__":
    main()
