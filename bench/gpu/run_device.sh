#!/bin/bash
# Runs on the device machine, from a copy of the tree that holds the build
# folder (default build-dev): the GPU unit tests, compute-sanitizer over a
# small run of them, and the kernel benchmark. Logs go to $OUT.
set -u
B=${BUILD:-build-dev}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/../.." || exit 1
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
    command -v compute-sanitizer cuobjdump
    echo "== DFMA in the histogram kernels (want 0: -fmad=false)"
    cuobjdump -sass "$B/libcolstat_gpu.a" 2>/dev/null |
        awk '/Function :/{f=$0} /DFMA/{if (f ~ /hist/) n++} END{print n+0}'
} >"$OUT/env.log" 2>&1
cat "$OUT/env.log"

echo "== test_gpu (full)"
start=$(date +%s)
timeout 150 "$B/test_gpu" >"$OUT/test.log" 2>&1
echo "test_gpu rc=$? in $(( $(date +%s) - start )) s" | tee -a "$OUT/test.log"
tail -n 5 "$OUT/test.log"

echo "== test_gpu_parse (device number parser vs parse_number)"
timeout 100 "$B/test_gpu_parse" >"$OUT/test_parse.log" 2>&1
echo "test_gpu_parse rc=$?" | tee -a "$OUT/test_parse.log"
tail -n 4 "$OUT/test_parse.log"

echo "== test_gpu with each expansion variant"
for t in ${TERMS:-2 3 4 -2 -3}; do
    COLSTAT_GPU_TERMS=$t timeout 100 "$B/test_gpu" >"$OUT/terms.tmp" 2>&1
    echo "COLSTAT_GPU_TERMS=$t rc=$? $(grep -E 'SEED|Checks' "$OUT/terms.tmp" | tr '\n' ' ')" | tee -a "$OUT/test.log"
    grep -E ':F:|:E:' "$OUT/terms.tmp" | head -5 | tee -a "$OUT/test.log"
done
rm -f "$OUT/terms.tmp"

echo "== compute-sanitizer (COLSTAT_TEST_QUICK)"
: >"$OUT/sanitizer.log"
for tool in ${SAN_TOOLS:-memcheck racecheck synccheck initcheck}; do
    for tc in ${SAN_CASES:-sizes chunks pieces subsets bins corrections}; do
        start=$(date +%s)
        COLSTAT_TEST_QUICK=1 CK_RUN_CASE=$tc timeout ${SAN_TIMEOUT:-40} \
            compute-sanitizer --tool $tool --error-exitcode 9 \
            "$B/test_gpu" >"$OUT/san_${tool}_${tc}.tmp" 2>&1
        rc=$?
        echo "$tool $tc rc=$rc $(( $(date +%s) - start )) s: $(grep -E 'ERROR SUMMARY|Checks:|RACECHECK SUMMARY' "$OUT/san_${tool}_${tc}.tmp" | tr '\n' ' ')" |
            tee -a "$OUT/sanitizer.log"
        [ $rc -ne 0 ] && head -c 4000 "$OUT/san_${tool}_${tc}.tmp" >>"$OUT/sanitizer.log"
        rm -f "$OUT/san_${tool}_${tc}.tmp"
    done
done

echo "== kernel bench"
[ "${KERNEL_BENCH:-1}" = 1 ] || exit 0
for args in ${BENCH_ARGS:-"128 50" "512 30"}; do
    timeout 100 "$B/colstat_kernel_bench" $args 2>&1 | tee -a "$OUT/bench.log"
done
