#!/bin/bash
# The device's CSV parse (issue 25, target 2) on the GPU host in one call:
#   check  test_gpu_parse; compute-sanitizer memcheck and initcheck over a
#          CSV of quoted fields, doubled quotes, blanks, CRLF, blank lines
#          and short rows, its JSON against the CPU's;
#   prof   ncu over the first PROF_SIZE of the data: every kernel's device
#          time (gpu__time_duration) with OLD and with NEW, then ncu's full
#          sections of one launch of each kernel in KERNELS (NEW);
#   speed  a SIZE CSV of 8 numeric columns (colstat_gen), `--sum --max
#          --json`, OLD and NEW alternated RUNS times, -v kept, answers
#          compared;
#   e2e    the suites that compare CPU and GPU (E2E: e2e_gpu_csv
#          e2e_gpu_diff);
#   pipe   issue 25's target 5: `zcat F.gz | colstat -c value --sum
#          --max` against `zcat F.gz > /dev/null` (PIPE_SIZE of CSV, one
#          gzip member), alternated RUNS times, with NEW;
#   auto   bench/auto's ladder with NEW (AUTO_SIZES, CSV: --device cpu,
#          gpu and auto, each answer compared), last.
# Logs in $OUT/logs, a summary in $OUT/summary.txt.
# usage (on the device machine, from the tree):
#   OLD=.carry/p25/old NEW=.carry/p25/new OUT=... PARTS="check prof speed" \
#     SIZE=16G bash bench/device_parse.sh
# OLD and NEW hold static builds (colstat; NEW also colstat_gen and
# test_gpu_parse) and libisal.so.2.
set -u
O=${OLD:-.carry/p25/old}
N=${NEW:-.carry/p25/new}
OUT=${OUT:-/tmp/colstat-out}
SIZE=${SIZE:-16G}
PROF_SIZE=${PROF_SIZE:-512M}
RUNS=${RUNS:-3}
PARTS=${PARTS:-"check prof speed e2e"}
# the builds the prof and speed parts compare, NAME=DIR each
BUILDS=${BUILDS:-"OLD=$O NEW=$N"}
KERNELS=${KERNELS:-"record_kernel field_kernel reduce_kernel split_kernel"}
cd "$(dirname "$0")/.." || exit 1
. bench/device_lib.sh
device_setup /tmp/p25 "$N"
t0=$(date +%s)
stamp() { say "-- $1 at $(($(date +%s) - t0)) s"; }
STATS="--sum --min --max --mean --std --median"

if has check; then
    "$N/test_gpu_parse" >"$L/test_gpu_parse.log" 2>&1
    say "test_gpu_parse rc=$? $(grep -E '^[0-9]+%' "$L/test_gpu_parse.log")"
    python3 - <<'PY'
import random
r = random.Random(31)
with open("/tmp/q.csv", "w", newline="") as f:
    f.write('id,"na,me",v,w,x\r\n')
    for i in range(150000):
        if i % 977 == 5:
            f.write("\r\n")  # a blank line: the rows after it move up
        if i % 1231 == 7:
            f.write("%d,short\r\n" % i)  # fields missing
            continue
        f.write('%d,"a""b,%d",%r,%s,%s\r\n' % (i, r.randint(0, 9), r.gauss(0, 1e6),
                r.choice(["1", " 2 ", '"3"', "", "x", '"4"""', "nan"]),
                r.choice(["12345678901234567890", "1e400", "-0", "0.1", "7"])))
PY
    for tool in memcheck initcheck; do
        timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
            "$N/colstat" --device gpu $STATS --json /tmp/q.csv >"$L/san_$tool.json" 2>"$L/san_$tool.log"
        say "$tool colstat --device gpu quoted CSV rc=$? $(grep -E 'ERROR SUMMARY' "$L/san_$tool.log" | head -1)"
    done
    "$N/colstat" --device cpu $STATS --json /tmp/q.csv >/tmp/q.cpu.json 2>/tmp/q.cpu.err
    "$N/colstat" --device gpu $STATS --json /tmp/q.csv >/tmp/q.gpu.json 2>/tmp/q.gpu.err
    cmp -s /tmp/q.cpu.json /tmp/q.gpu.json && cmp -s /tmp/q.cpu.err /tmp/q.gpu.err &&
        say "quoted CSV: CPU and GPU JSON and warnings identical" ||
        say "quoted CSV: CPU and GPU DIFFER"
    "$N/colstat" --device gpu -v $STATS --json /tmp/q.csv 2>&1 >/dev/null | grep -i "device\|gpu" | head -5 >>"$S"
    stamp check
fi

if has prof || has speed; then
    [ -s $D/bench.csv ] || "$N/colstat_gen" --bytes "$SIZE" --out $D --files csv \
        --threads 16 >"$L/gen.log" 2>&1
    say "data: $(tail -1 "$L/gen.log")"
    stamp gen
fi

if has prof; then
    head -c "$PROF_SIZE" $D/bench.csv | sed '$d' >$D/prof.csv
    for bd in $BUILDS; do
        b=${bd%%=*} dir=${bd#*=}
        timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum \
            --print-summary per-kernel "$dir/colstat" --device gpu --sum --max \
            --json $D/prof.csv >"$L/ncu_sum_$b.log" 2>&1
        say "ncu per kernel, $b, rc=$?:"
        python3 bench/ncu_kernels.py "$L/ncu_sum_$b.log" | tee -a "$S"
    done
    for k in $KERNELS; do
        timeout 200 ncu --clock-control none --set full -k "regex:$k" \
            --launch-skip 4 --launch-count 1 "$N/colstat" --device gpu \
            --sum --max --json $D/prof.csv >"$L/ncu_full_$k.log" 2>&1
        say "ncu full $k rc=$? ($(grep -cE 'Duration|Registers Per Thread' "$L/ncu_full_$k.log") lines)"
    done
    stamp prof
fi

if has speed; then
    cat $D/bench.csv >/dev/null
    for i in $(seq "$RUNS"); do
        for bd in $BUILDS; do
            b=${bd%%=*} dir=${bd#*=}
            s=$(date +%s%N)
            "$dir/colstat" --device gpu -v --sum --max --json $D/bench.csv \
                >"$L/speed_$b.json" 2>"$L/speed_${b}_$i.err"
            rc=$?
            e=$(date +%s%N)
            say "$b run $i rc=$rc wall $(((e - s) / 1000000)) ms; $(grep -E 'read |h2d|kernels|stream|pinned|total|waited' "$L/speed_${b}_$i.err" | tr -s ' ' | tr '\n' ';')"
        done
    done
    for bd in $BUILDS; do
        b=${bd%%=*}
        cmp -s "$L/speed_OLD.json" "$L/speed_$b.json" && say "$SIZE: OLD and $b JSON identical" ||
            say "$SIZE: OLD and $b JSON DIFFER"
    done
    stamp speed
fi

if has e2e; then
    for t in ${E2E:-e2e_gpu_csv e2e_gpu_diff}; do
        timeout 600 python3 tests/e2e/$t.py "$N/colstat" >"$L/$t.log" 2>&1
        say "$t rc=$? $(tail -1 "$L/$t.log")"
        stamp "$t"
    done
fi

if has pipe; then
    PD=/tmp/p25pipe
    mkdir -p $PD
    [ -s $PD/bench.csv.gz ] || "$N/colstat_gen" --bytes "${PIPE_SIZE:-500M}" --out $PD \
        --files csv,gz --threads 16 >"$L/pipe_gen.log" 2>&1
    ms() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
    zcat $PD/bench.csv.gz >/dev/null
    for i in $(seq "$RUNS"); do
        z=$(ms sh -c "zcat $PD/bench.csv.gz >/dev/null")
        p=$(ms sh -c "zcat $PD/bench.csv.gz | $N/colstat -c value --sum --max --json >$L/pipe.json")
        c=$(ms sh -c "zcat $PD/bench.csv.gz | cat >/dev/null")
        say "pipe run $i: zcat alone $z ms, zcat | colstat $p ms, zcat | cat $c ms"
    done
    say "pipe: $(ls -l $PD/bench.csv.gz | awk '{print $5}') bytes of gzip; $(grep -c . $L/pipe.json) JSON lines"
    stamp pipe
fi

if has auto; then
    mkdir -p /tmp/p25auto
    timeout "${AUTO_TIMEOUT:-400}" python3 bench/auto --colstat "$N/colstat" \
        --gen "$N/colstat_gen" --sizes "${AUTO_SIZES:-1K,50M,500M,2G,16G}" \
        --inputs csv --runs 3 --data /tmp/p25auto --json "$L/auto.json" \
        2>&1 | tee "$L/auto.log" | tee -a "$S"
    stamp auto
fi
