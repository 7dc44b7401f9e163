#!/bin/sh
# colstat -g key --sum --min --max against DuckDB's GROUP BY key with sum,
# min, max, on one generated CSV with 1,000 distinct keys (group-by's CPU
# figure). Prints each best-of-RUNS time and the ratio DuckDB / colstat
# (above 1: colstat is faster). Both use every core they may (-j, DuckDB's
# threads), and both answers are compared before a time is reported.
#
# usage: sh bench/groupby.sh [COLSTAT] [ROWS] [RUNS]
#   defaults: build/colstat, 4000000 rows, 3 runs; DATA=folder (/tmp)
# Without DuckDB's Python module (pip install duckdb) it says so and exits 0.
set -eu
COLSTAT=${1:-build/colstat}
ROWS=${2:-4000000}
RUNS=${3:-3}
DATA=${DATA:-/tmp}
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "groupby.sh: DuckDB's Python module is not installed (pip install duckdb): skipped"
  exit 0
fi
FILE="$DATA/colstat-groupby-$ROWS.csv"
[ -s "$FILE" ] || python3 - "$FILE" "$ROWS" <<'PY'
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
python3 - "$COLSTAT" "$FILE" "$RUNS" <<'PY'
import json, os, subprocess, sys, time
import duckdb
exe, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
cols = "abcd"

def best(f):
    t = []
    for _ in range(runs):
        t0 = time.perf_counter(); out = f(); t.append(time.perf_counter() - t0)
    return min(t), out

def colstat():
    p = subprocess.run([exe, "-g", "key", "--sum", "--min", "--max", "--json",
                        path], capture_output=True, check=True)
    return json.loads(p.stdout)

sel = ", ".join(f"sum({c}), min({c}), max({c})" for c in cols)
def duck():
    con = duckdb.connect()
    return con.execute(f"SELECT key, {sel} FROM read_csv_auto('{path}') "
                       "GROUP BY key ORDER BY key").fetchall()

tc, doc = best(colstat)
td, rows = best(duck)
got = {g["key"][0]: g["columns"] for g in doc["groups"]}
for r in rows:
    c = got[r[0]]
    for i in range(4):
        s, lo, hi = r[1 + 3 * i: 4 + 3 * i]
        assert abs(c[i]["sum"] - s) <= 1e-9 * max(1, abs(s)), (r[0], i)
        assert c[i]["min"]["value"] == lo and c[i]["max"]["value"] == hi
mb = os.path.getsize(path) / 1e6
print(f"file {path}: {mb:.0f} MB, {len(rows)} keys, {os.cpu_count()} cores")
print(f"colstat -g key --sum --min --max   {tc:.3f} s  ({mb / tc:.0f} MB/s)")
print(f"duckdb GROUP BY key sum, min, max  {td:.3f} s  ({mb / td:.0f} MB/s)")
print(f"ratio duckdb/colstat: {td / tc:.2f}")
PY
