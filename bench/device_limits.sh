#!/bin/bash
# What bounds issue 25's 16 GB targets on the GPU host, in one call:
#   gpu    the 16 GB CSV (colstat_gen, 8 numeric columns), `--device gpu
#          -v --sum --max --json`, each build in BUILDS alternated RUNS
#          times (-v's context, pinned, read, h2d, kernels, stream lines);
#   cpu    the same with `--device cpu`, each build alternated RUNS
#          times, and DuckDB RUNS times (all cores, sum and max of the 8
#          columns), same file, same run; last, DuckDB's median over each
#          build's median (target 3 asks for 2x);
#   cores  the parse rate of one core alone and of every core busy: one
#          `--threads 1` colstat over a 500 MB CSV, then one per core at
#          once, each over its own copy (-v's parse thread time);
#   threads  the CPU backend on the 16 GB CSV with each --threads in
#          CPU_THREADS (default "16 15 14"), alternated RUNS times, with
#          -v's stage lines and the host's steal and idle time in the run
#          (/proc/stat), for where its wall time goes past its threads';
#   subsets  the CPU backend without -j on the first C cores only
#          (taskset, C in CORE_SETS, default "4 8 16"), each build in
#          BUILDS alternated RUNS times, over the first SUBSET_BYTES of the
#          CSV (default 4 GB): what leaving a core to the main thread is
#          worth at each count;
#   one    one core's parse rate, each build in BUILDS alternated RUNS
#          times: `--threads 1` over the CSV's first 500 MB (-v's parse
#          thread time), for a change to the parse, which the 16-core
#          wall time hides in its noise;
#   contend  what a core loses when every core is busy, by kind of
#          work (colstat_contend): parsing numbers from the core's own
#          caches, and copying memory; one process alone, then one per
#          core at once;
#   floor  what any GPU run pays before and after its work: a process
#          that only opens the GPU (colstat_open_bench, cudaFree(0)) and
#          exits, against colstat on a 1 KB CSV with --device gpu and
#          --device cpu; RUNS+2 fresh processes each, wall seconds.
# Every answer is compared with NEW's first. Logs in $OUT/logs, the table
# in $OUT/summary.txt.
# usage (on the device machine, from the tree):
#   BUILDS="r12=.carry/g2 r16=.carry/r16" WHEELS=.carry/wheels OUT=... \
#     SIZE=16G RUNS=3 bash bench/device_limits.sh
# The first build in BUILDS also holds colstat_gen, colstat_open_bench,
# colstat_contend and libisal.so.2; a build's COMMIT file, where there is one, names what
# it was built from (the device copy's git HEAD can be stale).
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
for b in $BUILDS; do
    say "build ${b%%=*}: ${b#*=} $(cat "${b#*=}/COMMIT" 2>/dev/null)"
done
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
    rm -f "$L"/cpu.*.walls
    for r in $(seq "$RUNS"); do
        for b in $BUILDS; do
            run "cpu ${b%%=*} (--device cpu, $P threads) run $r" \
                "$L/cpu.${b%%=*}.$r" "${b#*=}/colstat" --device cpu -v \
                --sum --max --json $D/bench.csv
            tail -1 "$S" | awk '{print $(NF-1)}' >>"$L/cpu.${b%%=*}.walls"
            grep -E "parse|reduce|total" "$L/cpu.${b%%=*}.$r" |
                sed 's/^/    /' | tee -a "$S"
        done
    done
    python3 -m pip install -q --no-index "$WHEELS"/duckdb-*.whl >"$L/pip.log" 2>&1
    python3 - "$D/bench.csv" "$P" "$RUNS" <<'PY' 2>&1 | tee -a "$S"
import sys, time
import duckdb
path, cores, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cols = ["id", "price", "delta", "reading", "value", "sci", "count", "sparse"]
q = "SELECT " + ", ".join("sum(%s), max(%s)" % (c, c) for c in cols) + \
    " FROM read_csv('%s', header=true)" % path
times = []
for r in range(runs):
    c = duckdb.connect()
    c.execute("SET threads=%d" % cores)
    c.execute("SET enable_progress_bar=false")
    t = time.time()
    c.execute(q).fetchall()
    times.append(time.time() - t)
    print("duckdb run %d %.3f s" % (r + 1, times[-1]))
    c.close()
times.sort()
print("duckdb %d threads (in process, after import, median of %d) %.3f s"
      % (cores, runs, times[(runs - 1) // 2]))
PY
    # the ratio the target names: DuckDB's median over each build's median
    dt=$(grep -oE 'duckdb [0-9]+ threads .* ([0-9.]+) s$' "$S" | tail -1 |
        awk '{print $(NF-1)}')
    for b in $BUILDS; do
        med=$(sort -g "$L/cpu.${b%%=*}.walls" | awk '{v[NR] = $1}
            END {print v[int((NR + 1) / 2)]}')
        say "cpu ${b%%=*}: median $med s, DuckDB $dt s:" \
            "$(awk -v a="$dt" -v b="$med" 'BEGIN {printf "%.2f", a / b}')x"
    done
fi

# the cpu line of /proc/stat: user nice system idle iowait irq softirq steal
cpu_ticks() { awk '/^cpu / {print $5 + $6, $9}' /proc/stat; }

if has threads; then
    for r in $(seq "$RUNS"); do
        for t in ${CPU_THREADS:-16 15 14}; do
            read -r idle0 steal0 < <(cpu_ticks)
            run "cpu -j$t run $r" "$L/thr.$t.$r" "$N/colstat" --device cpu \
                --threads "$t" -v --sum --max --json $D/bench.csv
            read -r idle1 steal1 < <(cpu_ticks)
            grep -E "read |parse|reduce|retire|total" "$L/thr.$t.$r" |
                sed 's/^/    /' | tee -a "$S"
            say "    idle $(((idle1 - idle0) * 10)) ms, steal" \
                "$(((steal1 - steal0) * 10)) ms over all cores (USER_HZ 100)"
        done
    done
fi

if has subsets; then
    head -c "${SUBSET_BYTES:-4000000000}" $D/bench.csv | sed '$d' >$D/sub.csv
    "$N/colstat" --device cpu --sum --max --json $D/sub.csv >$D/sub.json
    for c in ${CORE_SETS:-4 8 16}; do
        for r in $(seq "$RUNS"); do
            for b in $BUILDS; do
                read -r rc t < <(timed $D/got.json "$L/sub.$c.${b%%=*}.$r" \
                    taskset -c 0-$((c - 1)) "${b#*=}/colstat" --device cpu \
                    -v --sum --max --json $D/sub.csv)
                cmp -s $D/got.json $D/sub.json || say "MISMATCH sub $c $b"
                say "subset $c cores, ${b%%=*} run $r: $t s," \
                    "$(grep -oE '[0-9]+ worker threads?' "$L/sub.$c.${b%%=*}.$r")"
            done
        done
    done
    rm -f $D/sub.csv
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

if has one; then
    head -c 500000000 $D/bench.csv | sed '$d' >$D/one.csv
    "$N/colstat" --device cpu --sum --max --json $D/one.csv >$D/one.json
    for r in $(seq "$RUNS"); do
        for b in $BUILDS; do
            read -r rc t < <(timed $D/got.json "$L/one.${b%%=*}.$r" \
                "${b#*=}/colstat" --device cpu --threads 1 -v --sum --max \
                --json $D/one.csv)
            cmp -s $D/got.json $D/one.json || say "MISMATCH one $b"
            say "one core, ${b%%=*} run $r: $t s, $(grep -E '^colstat: (parse|reduce)' "$L/one.${b%%=*}.$r" | tr -s ' ' | cut -d' ' -f2-4 | tr '\n' ' ')"
        done
    done
    rm -f $D/one.csv
fi

if has contend; then
    for kind in cpu mem; do
        say "contend $kind alone: $("$N/colstat_contend" $kind 3)"
        for i in $(seq "$P"); do
            "$N/colstat_contend" $kind 3 >"$L/contend.$kind.$i" 2>&1 &
        done
        wait
        say "contend $kind, $P at once: $(awk '{print $2}' "$L"/contend.$kind.* | sort -g | tr '\n' ' ')"
    done
fi

if has floor; then
    head -c 1000 $D/bench.csv | sed '$d' >$D/small.csv
    "$N/colstat" --device cpu --sum --max --json $D/small.csv >$D/small.json
    for r in $(seq $((RUNS + 2))); do
        read -r rc t < <(timed $D/open.txt "$L/open.$r" "$N/colstat_open_bench")
        say "floor: open_bench rc=$rc wall $t s, $(cat $D/open.txt)"
        for dev in gpu cpu; do
            read -r rc t < <(timed $D/got.json "$L/small.$dev.$r" \
                "$N/colstat" --device $dev -v --sum --max --json $D/small.csv)
            cmp -s $D/got.json $D/small.json || say "MISMATCH small $dev"
            say "floor: colstat --device $dev, 1 KB: rc=$rc wall $t s" \
                "$(grep -E 'context|total' "$L/small.$dev.$r" | tr -s ' ' | tr '\n' ' ')"
        done
    done
fi
