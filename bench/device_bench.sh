#!/bin/bash
# The benchmark of one device call (see bench/README.md, "On the GPU
# machine"): colstat and its peers on the generated data, results under
# $OUT. Arguments go to bench/run (e.g. --inputs csv,f64). The static build
# (default build-dev) and the wheels (.carry/wheels) are carried along.
set -u
B=${BUILD:-build-dev}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
{
    date -u
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    lscpu | grep -E "Model name|^CPU\(s\)"
    python3 --version
} | tee "$OUT/machine.txt"
if [ -n "${PRE_TESTS:-}" ]; then
    for t in $PRE_TESTS; do
        timeout 200 python3 "$t" "$B/colstat" > "$OUT/$(basename "$t" .py).log" 2>&1
        echo "$t rc=$? $(tail -1 "$OUT/$(basename "$t" .py).log")"
    done
fi
PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-540} python3 bench/run \
    --colstat "$B/colstat" --gen "$B/colstat_gen" --wheels .carry/wheels \
    --out "$OUT" --json "$OUT/bench.json" "$@" 2>&1 | tee "$OUT/bench_run.log"
for f in csv f64; do
    p=$(ls bench/data/*/bench.$f 2>/dev/null | head -1)
    [ -n "$p" ] || continue
    b=""; [ $f = f64 ] && b="-b f64"
    echo "== -v profile: colstat --device gpu -a $b $p" | tee -a "$OUT/profile.txt"
    "$B/colstat" -v --device gpu -a $b "$p" 2>&1 >/dev/null | tee -a "$OUT/profile.txt"
    echo "== -v profile: colstat --device cpu -a $b $p" | tee -a "$OUT/profile.txt"
    "$B/colstat" -v --device cpu -a $b "$p" 2>&1 >/dev/null | tee -a "$OUT/profile.txt"
done
