#!/bin/bash
# One device call for what --mpi's collective passes touch: the GPU unit
# tests, the quantile and MPI end-to-end suites (the speculative cuts
# too) with the GPU (every rank on it), then bench/device_mpi_quick.sh
# (compute-sanitizer over two GPU ranks selecting quantiles, and
# bench/mpi_bench.sh: SIZE, REPS). BUILD holds the static build (colstat,
# colstat-mpi, colstat_gen, test_gpu), .carry/tools/lib the shared
# libraries it needs (libisal.so.2); carry both. Logs go to $OUT.
set -u
B=${BUILD:-.carry/new}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
export COLSTAT_TEST_QUICK=${COLSTAT_TEST_QUICK:-1}
# the static build links ISA-L's shared library (Debian ships no static one)
[ -d .carry/tools/lib ] && export LD_LIBRARY_PATH="$PWD/.carry/tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi -L; nproc; mpirun --version | head -1
t0=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }

for t in test_gpu test_gpu_parse; do
    step "$t"
    timeout 120 "$B/$t" > "$OUT/$t.log" 2>&1
    echo "$t rc=$?"; tail -2 "$OUT/$t.log"
done

for t in e2e_quantiles e2e_mpi e2e_mpi_spec; do
    step "$t, --device gpu"
    COLSTAT_TEST_DEVICE=gpu timeout 200 python3 "tests/e2e/$t.py" "$B/colstat" \
        > "$OUT/$t.log" 2>&1
    echo "$t rc=$?"; grep -E "seed|passed|FAIL" "$OUT/$t.log" | head -8
done

step "compute-sanitizer over two GPU ranks, then mpi_bench ${SIZE:-8G}"
BUILD=$B OUT=$OUT SIZE=${SIZE:-8G} REPS=${REPS:-2} bash bench/device_mpi_quick.sh
step "done"
