#!/bin/sh
# Group-by's CPU time and memory: colstat -g key --sum --min --max against
# DuckDB's GROUP BY key with sum, min, max, on a CSV with 1,000 distinct
# keys (4 numeric columns) and one with 1,000,000 (2 numeric columns,
# about 950,000 groups in 3,000,000 rows), at --threads 2 and 16 (DuckDB:
# SET threads to the same). Each run's user+sys CPU time and peak RSS come
# from /usr/bin/time -v; the best of RUNS is printed. "plain" is the same
# colstat run without -g (the key column left out): the RSS group-by adds
# is the difference. colstat's and DuckDB's answers are compared once.
# DuckDB runs in Python: the CPU time of Python importing DuckDB alone is
# taken off its times.
#
# usage: sh bench/groupby_mem.sh [COLSTAT] [RUNS]
#   defaults: build/colstat, 3 runs; DATA=folder (/tmp); ROWS1K (4000000)
# Without DuckDB's Python module (pip install duckdb, or
# pip install --no-index --find-links .carry/wheels duckdb) the DuckDB
# lines are skipped.
set -eu
COLSTAT=${1:-build/colstat}
RUNS=${2:-3}
DATA=${DATA:-/tmp}
ROWS1K=${ROWS1K:-4000000}
F1K="$DATA/colstat-groupby-$ROWS1K.csv"
F1M="$DATA/colstat-groupby-1m-keys.csv"
[ -s "$F1K" ] || python3 - "$F1K" "$ROWS1K" <<'PY'
import random, sys
path, rows = sys.argv[1], int(sys.argv[2])
rng = random.Random(22)
keys = ["host-%04d" % i for i in range(1000)]
with open(path, "w") as f:
    f.write("key,a,b,c,d\n")
    for _ in range(rows // 1000):
        f.write("".join("%s,%d,%.3f,%d,%.2f\n" % (rng.choice(keys),
                rng.randint(-10**6, 10**6), rng.uniform(0, 1000),
                rng.randint(0, 99), rng.gauss(0, 50)) for _ in range(1000)))
PY
[ -s "$F1M" ] || python3 - "$F1M" <<'PY'
import random, sys
rng = random.Random(22)
with open(sys.argv[1], "w") as f:
    f.write("key,a,b\n")
    for _ in range(3000):
        f.write("".join("k%d,%d,%.3f\n" % (rng.randrange(10**6),
                rng.randint(-10**6, 10**6), rng.uniform(0, 1000))
                for _ in range(1000)))
PY
python3 - "$COLSTAT" "$F1K" "$F1M" "$RUNS" <<'PY'
import json, os, re, subprocess, sys
exe, f1k, f1m, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    import duckdb  # noqa: F401
    have_duck = True
except ImportError:
    have_duck = False
    print("DuckDB's Python module is not installed: its lines are skipped")

DUCK = r'''
import duckdb, sys
path, cols, threads, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
con = duckdb.connect()
con.execute(f"SET threads = {threads}")
con.execute("SET enable_progress_bar = false")
sel = ", ".join(f"sum({c}), min({c}), max({c})" for c in cols)
rows = con.execute(f"SELECT key, {sel} FROM read_csv_auto('{path}') "
                   "GROUP BY key ORDER BY key").fetchall()
if out != "-":
    import json
    json.dump([[r[0]] + [float(x) for x in r[1:]] for r in rows], open(out, "w"))
'''


def timed(cmd):
    """(user+sys seconds, peak RSS in MB) of cmd, best of runs."""
    best = None
    for _ in range(runs):
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
        u = float(re.search(r"User time \(seconds\): ([\d.]+)", p.stderr).group(1))
        s = float(re.search(r"System time \(seconds\): ([\d.]+)", p.stderr).group(1))
        m = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
        cur = (u + s, m / 1024)
        best = cur if best is None or cur[0] < best[0] else best
    return best


def compare(path, cols):
    doc = json.loads(subprocess.run([exe, "-g", "key", "--sum", "--min", "--max",
                                     "--json", path], capture_output=True,
                                    check=True).stdout)
    out = path + ".duck.json"
    subprocess.run([sys.executable, "-c", DUCK, path, cols, "2", out], check=True)
    rows = json.load(open(out))
    os.unlink(out)
    got = {g["key"][0]: g["columns"] for g in doc["groups"]}
    assert len(got) == len(rows), (len(got), len(rows))
    for r in rows:
        c = got[r[0]]
        for i in range(len(cols)):
            s, lo, hi = r[1 + 3 * i: 4 + 3 * i]
            assert abs(c[i]["sum"] - s) <= 1e-9 * max(1, abs(s)), (r[0], i)
            assert c[i]["min"]["value"] == lo and c[i]["max"]["value"] == hi
    return len(rows)


print(f"{os.cpu_count()} cores; CPU time = user + sys, best of {runs}")
t0 = 0.0
if have_duck:  # Python and DuckDB's start, taken off DuckDB's times
    t0, m0 = timed([sys.executable, "-c", "import duckdb; duckdb.connect()"])
    print(f"python + import duckdb alone: {t0:.2f} s, {m0:.1f} MB")
for path, cols, label in ((f1k, "abcd", "1,000 keys"), (f1m, "ab", "1,000,000 keys")):
    mb = os.path.getsize(path) / 1e6
    ng = compare(path, cols) if have_duck else "?"
    print(f"== {label}: {path}, {mb:.0f} MB, {ng} groups (answers equal)")
    for j in (2, 16):
        base = ["--sum", "--min", "--max", "--json", "-j", str(j)]
        tg, mg = timed([exe, "-g", "key"] + base + [path])
        tp, mp = timed([exe, "-c", ",".join(cols)] + base + [path])
        line = (f"-j {j:2}: colstat -g {tg:6.2f} s {mg:7.1f} MB | "
                f"plain {tp:6.2f} s {mp:7.1f} MB | -g adds {mg - mp:7.1f} MB")
        if have_duck:
            td, md = timed([sys.executable, "-c", DUCK, path, cols, str(j), "-"])
            td -= t0
            line += f" | duckdb {td:6.2f} s {md:7.1f} MB | duckdb/colstat {td / tg:.2f}"
        print(line, flush=True)
PY
