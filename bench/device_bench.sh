#!/bin/bash
# The benchmark of one device call (see bench/README.md, "On the GPU
# machine"): colstat and its peers on the generated data, results under
# $OUT. Arguments go to bench/run (e.g. --inputs csv,f64). The static build
# (default build-dev: colstat, colstat_gen, colstat_gzread) and the wheels
# (.carry/wheels) are carried along. colstat_gen writes every input (CSV,
# both gzip files, f64); bench/run runs those --inputs names (default all),
# with the zlib peer (colstat_gzread) on the gzip ones. PROFILE=0 skips the
# -v profiles at the end, and for f64 the overlap figure (bench/overlap.py,
# with colstat_stage_bench).
set -u
B=${BUILD:-build-dev}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
# Debian ships ISA-L as a shared library only: a carried libisal.so.2 (and
# igzip, the ISA-L peer) sit beside the binaries.
case $B in /*) bdir=$B ;; *) bdir=$PWD/$B ;; esac
export LD_LIBRARY_PATH="$bdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$bdir:$PATH"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    lscpu | grep -E "Model name|^CPU\(s\)"
    python3 --version
} | tee "$OUT/machine.txt"
for exe in colstat colstat_gen colstat_gzread colstat_gzcat colstat_stage_bench; do
    [ -x "$B/$exe" ] || echo "device_bench: no $B/$exe (copy it from the build)"
done
# The inputs bench/run is asked for (its default: all of them).
inputs=csv,gz,multi,f64
prev=""
for a in "$@"; do
    case $a in --inputs=*) inputs=${a#--inputs=} ;; esac
    [ "$prev" = --inputs ] && inputs=$a
    prev=$a
done
if [ -n "${PRE_TESTS:-}" ]; then
    for t in $PRE_TESTS; do
        timeout 200 python3 "$t" "$B/colstat" > "$OUT/$(basename "$t" .py).log" 2>&1
        echo "$t rc=$? $(tail -1 "$OUT/$(basename "$t" .py).log")"
    done
fi
PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-540} python3 bench/run \
    --colstat "$B/colstat" --gen "$B/colstat_gen" \
    --gzread "$B/colstat_gzread" --gzcat "$B/colstat_gzcat" \
    --wheels .carry/wheels \
    --out "$OUT" --json "$OUT/bench.json" "$@" 2>&1 | tee "$OUT/bench_run.log"
[ "${PROFILE:-1}" = 0 ] && exit 0
# -v profiles of both backends on the requested CSV, gzip and f64 inputs:
# the files this run measured (from its JSON), else the first generated.
for f in csv gz f64; do
    case ",$inputs," in *",$f,"*) ;; *) continue ;; esac
    p=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["inputs"][sys.argv[2]]["path"])' \
        "$OUT/bench.json" "$f" 2>/dev/null)
    name=bench.$f
    [ $f = gz ] && name=bench.csv.gz
    [ -n "$p" ] || p=$(ls bench/data/*/$name 2>/dev/null | head -1)
    [ -n "$p" ] || continue
    b=""; [ $f = f64 ] && b="-b f64"
    echo "== -v profile: colstat --device gpu -a $b $p" | tee -a "$OUT/profile.txt"
    "$B/colstat" -v --device gpu -a $b "$p" 2>&1 >/dev/null | tee -a "$OUT/profile.txt"
    echo "== -v profile: colstat --device cpu -a $b $p" | tee -a "$OUT/profile.txt"
    "$B/colstat" -v --device cpu -a $b "$p" 2>&1 >/dev/null | tee -a "$OUT/profile.txt"
    if [ $f = f64 ] && [ -x "$B/colstat_stage_bench" ]; then
        echo "== overlap: bench/overlap.py on $p" | tee -a "$OUT/profile.txt"
        python3 bench/overlap.py "$B/colstat" "$B/colstat_stage_bench" "$p" 5 2>&1 |
            tee -a "$OUT/profile.txt"
    fi
    if [ $f = gz ] && [ -x "$B/colstat_gzread" ]; then
        echo "== zlib alone: colstat_gzread $p" | tee -a "$OUT/profile.txt"
        { time "$B/colstat_gzread" "$p"; } 2>&1 | tee -a "$OUT/profile.txt"
    fi
done
