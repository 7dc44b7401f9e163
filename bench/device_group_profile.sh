#!/bin/bash
# Where group-by's device time goes (issue 22): nsys's kernel summary of
# `colstat --device gpu -g key --sum --min --max` over a SIZE CSV of 8
# numeric columns and a key of KEYS values, the JSON against the CPU's.
# usage (device machine): NEW=.carry/house OUT=... SIZE=500M KEYS=1000 bash bench/device_group_profile.sh
set -u
N=${NEW:-.carry/house}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-500M}
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$N:${LD_LIBRARY_PATH:-}
D=/tmp/prof-data
mkdir -p "$D" "$OUT"
[ -s $D/bench.csv ] || "$N/colstat_gen" --bytes "$SIZE" --out $D --files csv --threads "$(nproc)" >/dev/null
for K in ${KEYS:-1000}; do
    F=$D/keys$K.csv
    [ -s "$F" ] || awk -v K=$K 'BEGIN { srand(22) } NR == 1 { print "key," $0; next }
        { print "k" int(rand() * K) "," $0 }' $D/bench.csv >"$F"
    cat "$F" >/dev/null
    echo "== $(du -h "$F" | cut -f1), $K keys"
    "$N/colstat" --device cpu -v -g key --sum --min --max --json "$F" >$D/cpu.json 2>$D/cpu.err
    echo "cpu: $(grep total $D/cpu.err)"
    "$N/colstat" --device gpu -v -g key --sum --min --max --json "$F" >$D/gpu.json 2>$D/gpu.err
    cmp -s $D/cpu.json $D/gpu.json && echo "JSON identical" || echo "JSON DIFFERS"
    grep -E "group|GPU|total" $D/gpu.err
    if command -v nsys >/dev/null; then
        nsys profile -t cuda -o $D/p$K -f true "$N/colstat" --device gpu -g key --sum \
            --min --max --json "$F" >/dev/null 2>&1
        nsys stats -q -r cuda_gpu_kern_sum,cuda_gpu_mem_time_sum $D/p$K.nsys-rep 2>&1 |
            cut -c1-200 | head -40
    elif command -v ncu >/dev/null; then
        # the first rows (some 50 MB): every kernel's time, summed by name
        head -n "${NCU_ROWS:-700000}" "$F" >$D/small.csv
        ncu --metrics gpu__time_duration.sum --csv "$N/colstat" --device gpu -g key \
            --sum --min --max --json $D/small.csv 2>/dev/null >$D/ncu.csv
        python3 - $D/ncu.csv <<'PY'
import csv, sys, collections
t, n = collections.Counter(), collections.Counter()
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
for r in csv.DictReader(rows):
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    v = float(r["Metric Value"].replace(",", ""))
    unit = r.get("Metric Unit", "ns")
    v *= {"ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3}.get(unit, 1e-9)
    name = r["Kernel Name"].split("(")[0][:60]
    t[name] += v
    n[name] += 1
tot = sum(t.values())
for k, v in t.most_common(25):
    print(f"{v * 1e3:9.3f} ms {100 * v / tot:5.1f}% {n[k]:6d}x {k}")
print(f"{tot * 1e3:9.3f} ms in all")
PY
    else
        echo "no nsys or ncu here"
    fi
done
