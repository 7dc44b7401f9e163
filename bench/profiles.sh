#!/bin/sh
# colstat --distinct --mode --top 10 of a text column (10,000 distinct
# values) and of a numeric column, against DuckDB's count(DISTINCT x),
# mode(x) and top ten (GROUP BY x ORDER BY count(*) DESC LIMIT 10), both
# columns in one query each side, on one generated CSV. Prints each
# best-of-RUNS wall time and CPU time (user+sys: the machine's cores are
# shared) and the ratios DuckDB / colstat (above 1: colstat is faster).
# Both use THREADS threads (-j, DuckDB's threads); the answers are compared
# before a time is reported.
#
# usage: sh bench/profiles.sh [COLSTAT] [ROWS] [RUNS]
#   defaults: build/colstat, 4000000 rows, 3 runs; DATA=folder (/tmp),
#   THREADS (2)
# Without DuckDB's Python module (pip install duckdb) it says so and exits 0.
set -eu
COLSTAT=${1:-build/colstat}
ROWS=${2:-4000000}
RUNS=${3:-3}
DATA=${DATA:-/tmp}
THREADS=${THREADS:-2}
if ! python3 -c 'import duckdb' 2>/dev/null; then
  echo "profiles.sh: DuckDB's Python module is not installed (pip install duckdb): skipped"
  exit 0
fi
FILE="$DATA/colstat-profiles-$ROWS.csv"
[ -s "$FILE" ] || python3 - "$FILE" "$ROWS" <<'PY'
import random, sys
path, rows = sys.argv[1], int(sys.argv[2])
rng = random.Random(23)
users = ["user-%05d" % i for i in range(10000)]
weights = [1.0 / (i + 1) for i in range(10000)]  # Zipf: a clear top ten
with open(path, "w") as f:
    f.write("user,latency\n")
    for _ in range(rows // 1000):
        us = rng.choices(users, weights, k=1000)
        f.write("".join("%s,%.2f\n" % (u, rng.gammavariate(2, 40)) for u in us))
PY
python3 - "$COLSTAT" "$FILE" "$RUNS" "$THREADS" <<'PY'
import json, os, resource, subprocess, sys, time
import duckdb
exe, path, runs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def best(f, children):
    walls, cpus, out = [], [], None
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN if children
                                else resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        out = f()
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN if children
                                else resource.RUSAGE_SELF)
        cpus.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    return min(walls), min(cpus), out

def colstat():
    p = subprocess.run([exe, "-c", "user,latency", "--distinct", "--mode",
                        "--top", "10", "--json", "-j", threads, path],
                       capture_output=True, check=True)
    return json.loads(p.stdout)

con = duckdb.connect()
con.execute(f"SET threads = {threads}")
def duck():
    con.execute(f"CREATE OR REPLACE TEMP VIEW t AS SELECT * FROM "
                f"read_csv('{path}', columns = {{'user': 'VARCHAR', "
                f"'latency': 'DOUBLE'}}, header = true)")
    out = {}
    for c in ("user", "latency"):
        d, m = con.execute(f"SELECT count(DISTINCT {c}), mode({c}) FROM t").fetchone()
        top = con.execute(f"SELECT {c}, count(*) AS n FROM t GROUP BY {c} "
                          f"ORDER BY n DESC, {c} LIMIT 10").fetchall()
        out[c] = (d, m, top)
    return out

tc, cc, doc = best(colstat, True)
td, cd, ref = best(duck, False)
for col in doc["columns"]:
    d, m, top = ref[col["name"]]
    got = [(v["value"], v["count"]) for v in col["top"]]
    assert col["distinct"] == d, (col["name"], col["distinct"], d)
    assert got == [tuple(x) for x in top], (col["name"], got, top)
    assert col["mode"]["count"] == top[0][1], (col["name"], col["mode"], top[0])
size = os.path.getsize(path) / 1e6
print(f"{size:.0f} MB, {threads} threads, best of {runs}: distinct "
      f"{doc['columns'][0]['distinct']} texts, {doc['columns'][1]['distinct']} numbers")
print(f"colstat  wall {tc:.3f} s  cpu {cc:.3f} s")
print(f"DuckDB   wall {td:.3f} s  cpu {cd:.3f} s")
print(f"ratio DuckDB/colstat: wall {td / tc:.2f}x  cpu {cd / cc:.2f}x")
PY
