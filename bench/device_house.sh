#!/bin/bash
# The GPU checks of a change, in one or two device calls: the GPU unit
# suites that NEW holds (test_gpu, test_gpu_parse, test_gpu_kinds,
# test_gpu_group, test_group_core) with compute-sanitizer over them and
# over the device's CSV parse (the grammar on the device), the end-to-end
# suites with a GPU present, the kernel benchmark and end-to-end times of
# the old and new builds (alternated, on one generated file), and group-by
# against DuckDB. Logs in $OUT/logs.tgz, a summary in $OUT/summary.txt.
#
# usage (on the device machine, from the tree): NEW=.carry/house
#   OLD=.carry/base OUT=... PARTS="unit e2e speed groupby" [E2E="suites"]
#   bash bench/device_house.sh
# NEW holds the static build (colstat, colstat_gen, colstat_kernel_bench,
# the unit suites, libisal.so.2); OLD colstat alone; .carry/wheels
# DuckDB's wheel.
set -u
N=${NEW:-.carry/house}
O=${OLD:-.carry/base}
OUT=${OUT:-/tmp/colstat-out}
L=$OUT/logs
S=$OUT/summary.txt
mkdir -p "$L"
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$N:${LD_LIBRARY_PATH:-}
say() { echo "$*" | tee -a "$S"; }
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    nproc
    free -g | head -2
} >"$S" 2>&1
cat "$S"

PARTS=${PARTS:-"unit e2e speed groupby"}
# -a's statistics without the text columns -a also takes (answered on
# the host, the GPU unused)
ALLSTATS="--count --sum --mean --std --min --max --median --hist"
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

if has unit; then
say "== GPU unit suites"
for t in test_gpu test_gpu_parse test_gpu_kinds test_gpu_group test_group_core; do
    [ -x "$N/$t" ] || continue
    timeout 150 "$N/$t" >"$L/$t.log" 2>&1
    say "$t rc=$? $(grep -E 'Checks' "$L/$t.log" | tail -1)"
done
for t in test_gpu_kinds test_gpu_group; do
    [ -x "$N/$t" ] || continue
    COLSTAT_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck \
        --error-exitcode 9 "$N/$t" >"$L/san_$t.log" 2>&1
    say "memcheck $t rc=$? $(grep -E 'ERROR SUMMARY' "$L/san_$t.log")"
done
for tc in sizes chunks corrections; do
    COLSTAT_TEST_QUICK=1 CK_RUN_CASE=$tc timeout 60 compute-sanitizer \
        --tool memcheck --error-exitcode 9 "$N/test_gpu" >"$L/san_$tc.log" 2>&1
    say "memcheck test_gpu $tc rc=$? $(grep -E 'ERROR SUMMARY' "$L/san_$tc.log")"
done

say "== compute-sanitizer over colstat's device CSV parse (quoted fields)"
python3 - <<'PY'
import random
r = random.Random(31)
with open("/tmp/q.csv", "w", newline="") as f:
    f.write('id,"na,me",v,w\r\n')
    for i in range(150000):
        f.write('%d,"a""b,%d",%r,%s\r\n' % (i, r.randint(0, 9), r.gauss(0, 1e6),
                r.choice(["1", " 2 ", '"3"', "", "x"])))
PY
for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
        "$N/colstat" --device gpu $ALLSTATS --json /tmp/q.csv >"$L/san_colstat_$tool.log" 2>&1
    say "$tool colstat --device gpu quoted CSV rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_colstat_$tool.log" | head -1)"
done
"$N/colstat" --device cpu $ALLSTATS --json /tmp/q.csv >/tmp/q.cpu.json
"$N/colstat" --device gpu $ALLSTATS --json /tmp/q.csv >/tmp/q.gpu.json
cmp -s /tmp/q.cpu.json /tmp/q.gpu.json && say "quoted CSV: CPU and GPU JSON identical" || say "quoted CSV: CPU and GPU JSON DIFFER"

fi

if has e2e; then
say "== end-to-end suites with a GPU present"
for t in ${E2E:-e2e_gpu_csv e2e_gpu_diff e2e_groupby e2e_parts e2e_answers e2e_stats e2e_inputs e2e_dist}; do
    start=$(date +%s)
    timeout 240 python3 tests/e2e/$t.py "$N/colstat" >"$L/$t.log" 2>&1
    say "$t rc=$? $(( $(date +%s) - start )) s: $(tail -1 "$L/$t.log")"
done

fi

if has speed; then
say "== kernel bench (new)"
timeout 100 "$N/colstat_kernel_bench" 512 30 >"$L/kernel_bench.log" 2>&1
grep -E "GB/s|kernel" "$L/kernel_bench.log" | head -12 | tee -a "$S"

say "== end to end, old and new alternated: 8 GB CSV (page cache), --sum --max of 8 columns"
D=/tmp/house-data
mkdir -p $D
"$N/colstat_gen" --bytes 8G --out $D --files csv --threads "$(nproc)" >/dev/null
cat $D/bench.csv >/dev/null
t() { python3 -c 'import sys,time,subprocess;t=time.time();r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);print("%.3f" % (time.time()-t) if r.returncode==0 else "FAILED")' "$@"; }
for dev in gpu cpu; do
    for b in old new old new old new; do
        exe=$O/colstat
        [ $b = new ] && exe=$N/colstat
        say "$dev $b $(t "$exe" --device $dev --sum --max --json $D/bench.csv)"
    done
done
"$O/colstat" --device gpu --sum --max --json $D/bench.csv >/tmp/o.json
"$N/colstat" --device gpu --sum --max --json $D/bench.csv >/tmp/n.json
"$N/colstat" --device cpu --sum --max --json $D/bench.csv >/tmp/c.json
python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
python3 - $D/bench.csv <<'PY' 2>&1 | tee -a "$S"
import sys, time
try:
    import duckdb
except ImportError:
    sys.exit("DuckDB: not installed")
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]
sel = ", ".join(f"sum(\"{c}\"), max(\"{c}\")" for c in cols)
best = None
for _ in range(2):
    t0 = time.time()
    duckdb.connect().execute(f"SELECT {sel} FROM read_csv_auto('{sys.argv[1]}')").fetchall()
    t = time.time() - t0
    best = t if best is None else min(best, t)
print("DuckDB (all cores) sum, max of 8 columns: best of 2 %.3f s" % best)
PY
# the old build has no "type" key in its column objects
sed 's/, "type": "[a-z]*"//' /tmp/n.json >/tmp/n0.json
cmp -s /tmp/o.json /tmp/n0.json && cmp -s /tmp/n.json /tmp/c.json && say "8 GB: old GPU, new GPU, new CPU JSON identical (the new one's \"type\" keys aside)" || say "8 GB: JSON DIFFER"

fi

if has groupby; then
say "== group-by against DuckDB (all cores), 1000 keys"
python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
DATA=/tmp timeout 300 sh bench/groupby.sh "$N/colstat" 40000000 3 2>&1 | tee -a "$S"

fi

tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
