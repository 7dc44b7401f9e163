#!/usr/bin/env python3
"""What --null, --thousands, --decimal and -W cost the CPU backend.

usage: bench/options_cost.py --data DIR [--colstat PATH] [--before PATH]
                             [--runs N] [--threads N]

DIR holds bench.csv (`colstat_gen --bytes 300M --files csv --out DIR`).
From it the script writes, once, the same numbers in other forms:

  semi.csv   ';' between fields                      (the plain twin of dec)
  dec.csv    ';' between fields, a decimal comma      --decimal ,
  th.csv     integer parts grouped by "'" (1'234.5)   --thousands "'"
  na.csv     the empty fields (sparse) spelled NA     --null NA
  ws.txt     na.csv with spaces between fields        -W --null NA

and times `colstat --json --sum --max --device cpu -j N` on each, the
configurations interleaved run by run (the median of --runs), so that each
option is held against its plain twin in the same run: the price of an
option not given (the build before it, --before, on bench.csv), and of
each given (on the data that needs it, against the same numbers written
plainly). Every pair must print the same statistics.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def variants(d):
    src = os.path.join(d, "bench.csv")
    out = {k: os.path.join(d, k) for k in ("semi.csv", "dec.csv", "th.csv",
                                            "na.csv", "ws.txt")}
    if all(os.path.exists(p) for p in out.values()):
        return out
    group = re.compile(rb"(?<![0-9.eE+-])([+-]?)([0-9]{4,})")

    def grouped(m):
        ip = m.group(2)
        head = len(ip) % 3 or 3
        parts = [ip[:head]] + [ip[i:i + 3] for i in range(head, len(ip), 3)]
        return m.group(1) + b"'".join(parts)

    with open(src, "rb") as f, open(out["semi.csv"], "wb") as semi, \
            open(out["dec.csv"], "wb") as dec, open(out["th.csv"], "wb") as th, \
            open(out["na.csv"], "wb") as na, open(out["ws.txt"], "wb") as ws:
        for i, line in enumerate(f):
            s = line.replace(b",", b";")
            semi.write(s)
            dec.write(s if i == 0 else s.replace(b".", b","))
            th.write(line if i == 0 else group.sub(grouped, line))
            n = line[:-1] + b"NA\n" if line.endswith(b",\n") else line
            na.write(n)
            ws.write(n.replace(b",", b" "))
    return out


def run(exe, args):
    """(wall seconds, CPU seconds of the process, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([exe] + args, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            sys.exit("options_cost: %s %s: %s" % (exe, " ".join(args),
                                                  err.read().decode()[-300:]))
        return dt, ru.ru_utime + ru.ru_stime, out.read()


def stats_of(out):
    """The sums and maxima, by column name (the same numbers however
    written)."""
    doc = json.loads(out)
    return {c["name"]: (c.get("sum"), c.get("max", {}).get("value"))
            for c in doc["columns"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--colstat", default=os.path.join(ROOT, "build/colstat"))
    ap.add_argument("--before", help="a colstat built without these options")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    v = variants(a.data)
    base = os.path.join(a.data, "bench.csv")
    job = ["--json", "--sum", "--max", "--device", "cpu", "-j", str(a.threads)]
    configs = [  # (name, exe, file, options, the twin it is held against)
        ("bench.csv, no option", a.colstat, base, [], "before" if a.before else None),
        ("bench.csv, --null NA", a.colstat, base, ["--null", "NA"], "bench.csv, no option"),
        ("na.csv, --null NA", a.colstat, v["na.csv"], ["--null", "NA"],
         "bench.csv, no option"),
        ("th.csv, --thousands \"'\"", a.colstat, v["th.csv"], ["--thousands", "'"],
         "bench.csv, no option"),
        ("semi.csv, no option", a.colstat, v["semi.csv"], [], None),
        ("dec.csv, --decimal ,", a.colstat, v["dec.csv"], ["--decimal", ","],
         "semi.csv, no option"),
        ("ws.txt, -W --null NA", a.colstat, v["ws.txt"], ["-W", "--null", "NA"],
         "na.csv, --null NA"),
    ]
    if a.before:
        configs.insert(0, ("before", a.before, base, [], None))
    wall = {c[0]: [] for c in configs}
    cpu = {c[0]: [] for c in configs}
    outs = {}
    for _ in range(a.runs):
        for name, exe, path, opts, _twin in configs:
            dt, ct, out = run(exe, [path] + job + opts)
            wall[name].append(dt)
            cpu[name].append(ct)
            outs[name] = stats_of(out)
    size = {c[0]: os.path.getsize(c[2]) for c in configs}
    print("CPU backend, %d threads, median of %d runs (configurations "
          "interleaved); %s" % (a.threads, a.runs, " ".join(job)))
    print("cpu s: user + system time of the process (what the option costs, "
          "whatever else runs); wall s: elapsed")
    print()
    print("%-26s %7s %7s %7s  %-21s %6s %6s  %s" % (
        "input, options", "cpu s", "wall s", "MB/s", "held against",
        "cpu", "wall", "same numbers"))
    for name, exe, path, opts, twin in configs:
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        line = "%-26s %7.3f %7.3f %7.1f  " % (name, c, w, size[name] / 1e6 / w)
        if twin:
            tc, tw = statistics.median(cpu[twin]), statistics.median(wall[twin])
            same = outs[name] == outs[twin]
            line += "%-21s %6.3f %6.3f  %s" % (twin, c / tc, w / tw,
                                              "yes" if same else "NO")
        print(line.rstrip())


if __name__ == "__main__":
    main()
