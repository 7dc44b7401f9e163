#!/usr/bin/env python3
"""The CPU parser against the build before it, DuckDB and the inflaters
alone, in one run (issue targets 3 and 5 on a small machine).

usage: bench/cpu_parse.py --new COLSTAT --old COLSTAT --dir DIR [--reps N]
                          [--quoted]

DIR holds colstat_gen's bench.csv and bench.csv.gz; --quoted also times
DIR/quoted.csv, bench.csv with 3 of its 8 columns in quotes (made with awk
when absent). Every figure is the
median of N runs (default 5) of CPU time (user+sys of the process tree)
and of wall time, with the spread (max-min over median) beside it: the
machine is shared, so CPU time is the figure to compare and the wall time
is what a user would see on it. "inflate alone" is ISA-L's inflate through
colstat_gzcat -j 1 (found beside OLD): the igzip -d of the issue where no
igzip binary is installed. Prints a Markdown table on stdout."""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time


def run_once(argv, shell=False):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, shell=shell, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (argv, p.stderr.decode()[-500:]))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return cpu, wall, p.stderr.decode()


def measure(argv, reps, shell=False):
    cpus, walls = [], []
    for _ in range(reps):
        c, w, _ = run_once(argv, shell)
        cpus.append(c)
        walls.append(w)
    def summ(v):
        m = statistics.median(v)
        return m, (max(v) - min(v)) / m if m else 0.0
    return summ(cpus), summ(walls)


def parse_rate(colstat, path, reps):
    """colstat -v's parse thread time: MB/s a thread, best of reps."""
    best = None
    size = os.path.getsize(path)
    for _ in range(reps):
        _, _, err = run_once([colstat, "-v", "--threads", "1", "--sum",
                              "--max", path])
        m = re.search(r"colstat: parse\s+([0-9.]+) s", err)
        if m:
            t = float(m.group(1))
            best = t if best is None or t < best else best
    return size / best / 1e6 if best else float("nan")


def duckdb_argv(path, threads):
    cols = "id,price,delta,reading,value,sci,count,sparse".split(",")
    sel = ", ".join("sum(%s), max(%s)" % (c, c) for c in cols)
    code = ("import duckdb; c = duckdb.connect(); c.execute('SET threads=%d');"
            " c.execute(\"SELECT %s FROM read_csv('%s')\").fetchall()"
            % (threads, sel, path))
    return [sys.executable, "-c", code]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--new", required=True)
    ap.add_argument("--old", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--quoted", action="store_true")
    a = ap.parse_args()
    csv = os.path.join(a.dir, "bench.csv")
    gz = csv + ".gz"
    gzcat = os.path.join(os.path.dirname(a.old), "colstat_gzcat")
    rows = []

    def row(label, argv, shell=False, base=None):
        (c, cs), (w, ws) = measure(argv, a.reps, shell)
        rows.append((label, c, cs, w, ws, base))
        return c, w

    have_duck = subprocess.run([sys.executable, "-c", "import duckdb"],
                               stderr=subprocess.DEVNULL).returncode == 0
    for job, args in (("--sum --max", ["--sum", "--max"]),
                      ("--sum --max, 1 thread",
                       ["--threads", "1", "--sum", "--max"]),
                      ("-a", ["-a"])):
        old = row("old  %s  bench.csv" % job, [a.old] + args + [csv])
        row("new  %s  bench.csv" % job, [a.new] + args + [csv], base=old)
    if a.quoted:
        quoted = os.path.join(a.dir, "quoted.csv")
        if not os.path.exists(quoted):
            subprocess.run("awk -F, 'BEGIN{OFS=\",\"} NR==1{print;next} "
                           "{$2=\"\\\"\"$2\"\\\"\"; $4=\"\\\"\"$4\"\\\"\"; "
                           "$8=\"\\\"\"$8\"\\\"\"; print}' '%s' > '%s'"
                           % (csv, quoted), shell=True, check=True)
        for job, args in (("--sum --max", ["--sum", "--max"]),
                          ("--sum --max, 1 thread",
                           ["--threads", "1", "--sum", "--max"])):
            old = row("old  %s  quoted.csv" % job, [a.old] + args + [quoted])
            row("new  %s  quoted.csv" % job, [a.new] + args + [quoted],
                base=old)
    if have_duck:
        row("DuckDB 2 threads, sum+max of 8 columns", duckdb_argv(csv, 2))
        row("DuckDB 1 thread, sum+max of 8 columns", duckdb_argv(csv, 1))
    if os.access(gzcat, os.X_OK):
        infl = row("inflate alone (ISA-L, colstat_gzcat -j 1)",
                   [gzcat, "-j", "1", gz])
    else:
        infl = None
    old = row("old  --sum --max  bench.csv.gz", [a.old, "--sum", "--max", gz],
              base=infl)
    row("new  --sum --max  bench.csv.gz", [a.new, "--sum", "--max", gz],
        base=infl)
    zc = row("zcat bench.csv.gz > /dev/null", "zcat '%s' > /dev/null" % gz,
             shell=True)
    for which, exe in (("old", a.old), ("new", a.new)):
        row("zcat | %s -c value --sum --max" % which,
            "zcat '%s' | '%s' -c value --sum --max" % (gz, exe), shell=True,
            base=zc)
    if shutil.which("datamash"):
        row("zcat | datamash (sum, max of value)",
            "zcat '%s' | tail -n +2 | datamash -t, sum 5 max 5" % gz,
            shell=True, base=zc)

    print("| job | CPU s (median) | spread | wall s (median) | spread "
          "| CPU vs | wall vs |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, c, cs, w, ws, base in rows:
        vs_c = vs_w = ""
        if base:
            vs_c = "%.2fx" % (c / base[0])
            vs_w = "%.2fx" % (w / base[1])
        print("| %s | %.3f | %.0f%% | %.3f | %.0f%% | %s | %s |"
              % (label, c, cs * 100, w, ws * 100, vs_c, vs_w))
    size = os.path.getsize(csv)
    o, n = parse_rate(a.old, csv, a.reps), parse_rate(a.new, csv, a.reps)
    print()
    print("parse thread (colstat -v, --threads 1, best of %d), %.0f MB: "
          "old %.0f MB/s, new %.0f MB/s (%.2fx)"
          % (a.reps, size / 1e6, o, n, n / o))
    print("'vs': new against old on the line before; gzip against inflate "
          "alone; pipes against zcat alone.")


if __name__ == "__main__":
    main()
