#!/bin/bash
# --distinct, --mode and --top on the GPU host in one call (issue 23):
#   e2e    the suites that compare CPU and GPU (e2e_gpu_diff: profiles
#          counted on the device, -v checked) and check the profiles against
#          the exact reference with a GPU present (e2e_profiles, e2e_kinds);
#   san    compute-sanitizer memcheck over device profiles, the values
#          all on the device and split with the host store;
#   speed  a SIZE CSV of a text column of 10,000 Zipf-weighted values and
#          a numeric column of about 40,000 decimals, given REPEAT times
#          (16 GB from a 2 GB file by default), `--distinct --mode --top
#          10` of the numeric column on the GPU and the CPU and of the
#          text column (the host's), against DuckDB's count(DISTINCT x),
#          mode(x) and GROUP BY x ORDER BY count(*) DESC, x LIMIT 10 over
#          the same files, answers compared, best of RUNS;
#   arena  the median and the profile of the numeric column over those
#          inputs with the build in OLD and in NEW (time, device stops);
#   auto   the numeric column's profile on the data's first SIZES bytes
#          with --device cpu, gpu and auto (best of RUNS each).
# Logs in $OUT/logs, a summary in $OUT/summary.txt.
#
# COLS: the speed part's columns and devices ("latency:gpu,cpu user:cpu");
# E2E: the suites (e2e_gpu_diff e2e_profiles e2e_kinds).
# usage (on the device machine, from the tree):
#   NEW=.carry/house OUT=... PARTS="e2e san speed" SIZE=2G REPEAT=8 bash bench/device_profiles.sh
# NEW holds the static build (colstat, libisal.so.2); .carry/wheels
# DuckDB's wheel.
set -u
N=${NEW:-.carry/house}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-2G}
REPEAT=${REPEAT:-8}
RUNS=${RUNS:-2}
PARTS=${PARTS:-"e2e san speed"}
L=$OUT/logs
S=$OUT/summary.txt
mkdir -p "$L"
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$N:${LD_LIBRARY_PATH:-}
say() { echo "$*" | tee -a "$S"; }
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    nproc
} >"$S" 2>&1
cat "$S"

if has e2e; then
    for t in ${E2E:-e2e_gpu_diff e2e_profiles e2e_kinds}; do
        timeout 900 python3 tests/e2e/$t.py "$N/colstat" >"$L/$t.log" 2>&1
        say "$t rc=$? $(tail -1 "$L/$t.log")"
    done
fi

if has san; then
    SD=/tmp/prof-san
    mkdir -p $SD
    python3 - $SD/p.csv <<'PY'
import random, sys
rng = random.Random(5)
with open(sys.argv[1], "w") as f:
    f.write("a,b,d\n")
    for i in range(200000):
        f.write("%d,%s,2024-01-%02d\n" % (rng.randrange(-50, 50),
                rng.choice(["1.5", "2", "nan", "", str((1 << 60) + rng.randrange(9))]),
                rng.randrange(1, 29)))
PY
    for keep in "" 0 400000; do
        env ${keep:+COLSTAT_GPU_KEEP_BYTES=$keep} compute-sanitizer --tool memcheck \
            --leak-check full --log-file "$L/san_$keep.err" "$N/colstat" --device gpu --json --distinct --mode \
            --top 5 $SD/p.csv >"$L/san_$keep.json" 2>"$L/san_$keep.stderr"
        rc=$?
        "$N/colstat" --device cpu --json --distinct --mode --top 5 $SD/p.csv \
            >"$L/san_cpu.json" 2>&1
        cmp -s "$L/san_$keep.json" "$L/san_cpu.json" && same=identical || same=DIFFERENT
        say "memcheck keep=${keep:-default} rc=$rc $(grep -h 'ERROR SUMMARY' "$L/san_$keep.err"); JSON vs CPU: $same"
    done
fi

# the data: a SIZE file made once (parts in parallel, one process a core)
D=/tmp/prof-data
F=$D/p.csv
make_data() {
    mkdir -p $D
    if [ ! -s $F ]; then
        # parts made in parallel, one process a core, then joined
        bytes=$(numfmt --from=iec "$SIZE")
        np=$(nproc)
        for i in $(seq 0 $((np - 1))); do
            python3 - $D/part$i $((bytes / np)) $i <<'PY' &
import random, sys
path, want, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(23 + seed)
users = ["user-%05d" % i for i in range(10000)]
weights = [1.0 / (i + 1) for i in range(10000)]  # Zipf: a clear top ten
n = 0
with open(path, "w") as f:
    while n < want:
        us = rng.choices(users, weights, k=10000)
        s = "".join("%s,%.2f\n" % (u, rng.gammavariate(2, 40)) for u in us)
        f.write(s)
        n += len(s)
PY
        done
        wait
        { echo "user,latency"; cat $D/part*; } >$F
        rm -f $D/part*
    fi
}

if has speed; then
    make_data
    python3 -m pip install --no-index --find-links .carry/wheels duckdb >"$L/pip.log" 2>&1
    FILES=""
    for i in $(seq "$REPEAT"); do FILES="$FILES $F"; done
    cat $F >/dev/null
    say "data: $(du -h $F | cut -f1) x $REPEAT inputs, $(wc -l <$F) lines each"
    python3 - "$N/colstat" "$RUNS" $FILES <<'PY' 2>&1 | tee -a "$S"
import json, os, subprocess, sys, time
exe, runs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
import duckdb
con = duckdb.connect()

def best(f):
    ts, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return min(ts), ts, out

def colstat(col, dev):
    def f():
        with open(os.environ.get("OUT", "/tmp") + "/p_%s_%s.json" % (col, dev), "w") as o:
            p = subprocess.run([exe, "-c", col, "--distinct", "--mode", "--top", "10",
                                "--json", "--device", dev, "-v"] + files,
                               stdout=o, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            print(p.stderr[-2000:])
            raise SystemExit(1)
        with open(os.environ.get("OUT", "/tmp") + "/p_%s_%s.v" % (col, dev), "w") as o:
            o.write(p.stderr)
        return json.load(open(os.environ.get("OUT", "/tmp") + "/p_%s_%s.json" % (col, dev)))
    return f

lst = "[" + ",".join("'%s'" % x for x in files) + "]"
def duck(col):
    def f():
        con.execute(f"CREATE OR REPLACE TEMP VIEW t AS SELECT * FROM read_csv({lst}, "
                    f"columns = {{'user': 'VARCHAR', 'latency': 'DOUBLE'}}, header = true)")
        d, m = con.execute(f"SELECT count(DISTINCT {col}), mode({col}) FROM t").fetchone()
        top = con.execute(f"SELECT {col}, count(*) AS n FROM t GROUP BY {col} "
                          f"ORDER BY n DESC, {col} LIMIT 10").fetchall()
        return d, m, top
    return f

def agree(doc, ref):
    c = doc["columns"][0]
    d, m, top = ref
    got = [(v["value"], v["count"]) for v in c["top"]]
    return c["distinct"] == d and got == [(a, b) for a, b in top]

plan = os.environ.get("COLS", "latency:gpu,cpu user:cpu")
for col, devs in ((c.split(":")[0], c.split(":")[1].split(",")) for c in plan.split()):
    td, tds, ref = best(duck(col))
    print(f"{col}: duckdb {duckdb.__version__} ({os.cpu_count()} threads) "
          f"{td:.3f} s {['%.3f' % t for t in tds]}: distinct {ref[0]}, mode {ref[1]!r}")
    for dev in devs:
        tc, tcs, doc = best(colstat(col, dev))
        print(f"{col}: colstat --device {dev} {tc:.3f} s {['%.3f' % t for t in tcs]} "
              f"-> {td / tc:.2f}x DuckDB; answers agree: {agree(doc, ref)}")
PY
    for v in "$OUT"/p_*.v; do
        say "== $v"; grep -E "distinct|total|kept|GPU not|stream|device" "$v" | head -12 | tee -a "$S"
    done
    if [ -s "$OUT/p_latency_cpu.json" ]; then
        cmp -s "$OUT/p_latency_gpu.json" "$OUT/p_latency_cpu.json" && say "latency JSON gpu = cpu: identical" || say "latency JSON gpu vs cpu: DIFFERENT"
    fi
fi
# arena: the values kept over REPEAT inputs (the median, the profile) with
# the build in OLD (before the arena's growth counted the old arena out)
# and NEW: time, and where the device stopped
if has arena; then
    make_data
    FILES=""
    for i in $(seq "$REPEAT"); do FILES="$FILES $F"; done
    for args in "--median" "--distinct --mode --top 10"; do
        for b in ${OLD:-} $N; do
            for i in $(seq "$RUNS"); do
                t0=$(date +%s.%N)
                "$b/colstat" --device gpu -v --json -c latency $args $FILES \
                    >"$OUT/arena.json" 2>"$L/arena.v"
                t1=$(date +%s.%N)
                say "arena $b $args: $(awk "BEGIN { print $t1 - $t0 }") s, stops: $(grep -c 'GPU parse stopped' "$L/arena.v"), $(grep 'kept    [0-9]' "$L/arena.v" | head -1 | sed 's/colstat: //')"
            done
            cp "$OUT/arena.json" "$OUT/arena_$(basename $b).json"
        done
        [ -n "${OLD:-}" ] && { cmp -s "$OUT/arena_$(basename $OLD).json" "$OUT/arena_$(basename $N).json" && say "arena $args: JSON identical" || say "arena $args: JSON DIFFERENT"; }
    done
fi
# auto: `-c latency --distinct --mode --top 10` on the head of the data
# (SIZES), with --device cpu, gpu and auto, RUNS each: auto's choice
# against the faster backend
if has auto; then
    make_data
    for sz in ${SIZES:-50M 500M 1G}; do
        head -c "$(numfmt --from=iec "$sz")" $F >$D/head.csv
        for dev in cpu gpu auto; do
            best=
            for i in $(seq "$RUNS"); do
                t0=$(date +%s.%N)
                "$N/colstat" --device $dev -v -c latency --distinct --mode --top 10 \
                    --json $D/head.csv >"$OUT/auto_$dev.json" 2>"$L/auto.v"
                t=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
                best=$(awk "BEGIN { b = \"$best\"; print (b == \"\" || $t < b) ? $t : b }")
            done
            chose=$(grep -o 'auto chose the [A-Z]*' "$L/auto.v")
            say "auto $sz --device $dev: best ${best} s ${chose}"
        done
        cmp -s "$OUT/auto_cpu.json" "$OUT/auto_gpu.json" && say "auto $sz: cpu = gpu JSON" || say "auto $sz: cpu vs gpu JSON DIFFERENT"
    done
fi
say "done $(date -u)"
