#!/bin/bash
# What bounds issue 25's 16 GB targets on the GPU host, in one call:
#   gpu    the 16 GB CSV (colstat_gen, 8 numeric columns), `--device gpu
#          -v --sum --max --json`, each build in BUILDS alternated RUNS
#          times (-v's context, pinned, read, h2d, kernels, stream lines);
#   cpu    the same with `--device cpu`, each build alternated RUNS
#          times, and DuckDB (all cores, sum and max of the 8 columns),
#          same file, same run;
#   cores  the parse rate of one core alone and of every core busy: one
#          `--threads 1` colstat over a 500 MB CSV, then one per core at
#          once, each over its own copy (-v's parse thread time).
# Every answer is compared with NEW's first. Logs in $OUT/logs, the table
# in $OUT/summary.txt.
# usage (on the device machine, from the tree):
#   BUILDS="r12=.carry/g2 r16=.carry/r16" WHEELS=.carry/wheels OUT=... \
#     SIZE=16G RUNS=3 bash bench/device_limits.sh
# The first build in BUILDS also holds colstat_gen and libisal.so.2.
set -u
BUILDS=${BUILDS:-"new=.carry/g2"}
WHEELS=${WHEELS:-.carry/wheels}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-16G}
RUNS=${RUNS:-3}
PARTS=${PARTS:-"gpu cpu cores"}
N=${BUILDS%% *}
N=${N#*=}
cd "$(dirname "$0")/.." || exit 1
. bench/device_lib.sh
device_setup /tmp/p25lim "$N"
P=$(nproc)
"$N/colstat_gen" --bytes "$SIZE" --seed 7 --threads "$P" --out $D \
    --files csv >"$L/gen.log" 2>&1
say "$(tail -1 "$L/gen.log")"
cat $D/bench.csv >/dev/null
"$N/colstat" --device cpu --sum --max --json $D/bench.csv >$D/want.json

# one timed run: NAME LOG CMD...; prints "NAME wall" and checks the JSON
run() {
    local name=$1 log=$2 rc t
    shift 2
    read -r rc t < <(timed $D/got.json "$log" "$@")
    cmp -s $D/got.json $D/want.json || say "MISMATCH $name rc=$rc"
    say "$name $t s"
}

if has gpu; then
    for r in $(seq "$RUNS"); do
        for b in $BUILDS; do
            run "gpu ${b%%=*} run $r" "$L/gpu.${b%%=*}.$r" \
                "${b#*=}/colstat" --device gpu -v --sum --max --json $D/bench.csv
            grep -E "waited|pinned|read |h2d|kernels|stream|total" \
                "$L/gpu.${b%%=*}.$r" | sed 's/^/    /' | tee -a "$S"
        done
    done
fi

if has cpu; then
    for r in $(seq "$RUNS"); do
        for b in $BUILDS; do
            run "cpu ${b%%=*} (--device cpu, $P threads) run $r" \
                "$L/cpu.${b%%=*}.$r" "${b#*=}/colstat" --device cpu -v \
                --sum --max --json $D/bench.csv
            grep -E "parse|reduce|total" "$L/cpu.${b%%=*}.$r" |
                sed 's/^/    /' | tee -a "$S"
        done
    done
    python3 -m pip install -q --no-index "$WHEELS"/duckdb-*.whl >"$L/pip.log" 2>&1
    python3 - "$D/bench.csv" "$P" <<'PY' 2>&1 | tee -a "$S"
import sys, time
import duckdb
path, cores = sys.argv[1], int(sys.argv[2])
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]
q = "SELECT " + ", ".join("sum(%s), max(%s)" % (c, c) for c in cols) + \
    " FROM read_csv('%s', header=true)" % path
c = duckdb.connect()
c.execute("SET threads=%d" % cores)
c.execute("SET enable_progress_bar=false")
t = time.time()
c.execute(q).fetchall()
print("duckdb %d threads (in process, after import) %.3f s" % (cores, time.time() - t))
PY
fi

if has cores; then
    head -c 500000000 $D/bench.csv >$D/h0.csv
    for i in $(seq "$P"); do cp $D/h0.csv $D/h$i.csv; done
    cat $D/h*.csv >/dev/null
    "$N/colstat" --device cpu --threads 1 -v --sum --max $D/h0.csv \
        >/dev/null 2>"$L/core.alone"
    say "one core alone: $(grep -E '^colstat: parse' "$L/core.alone")"
    for i in $(seq "$P"); do
        "$N/colstat" --device cpu --threads 1 -v --sum --max $D/h$i.csv \
            >/dev/null 2>"$L/core.$i" &
    done
    wait
    say "every core busy ($P processes), parse thread time each: $(grep -hE '^colstat: parse' "$L"/core.[0-9]* | awk '{print $3}' | sort -g | tr '\n' ' ')"
    rm -f $D/h*.csv
fi
