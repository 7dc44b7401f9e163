#!/bin/bash
# One device call for what --mpi's collective passes touch: the GPU unit
# tests, the quantile and MPI end-to-end suites with the GPU (every rank
# on it), compute-sanitizer over two GPU ranks selecting the median, then
# bench/mpi_bench.sh if time is left (SIZE, RANKS). BUILD holds the static
# build (colstat, colstat-mpi, colstat_gen, test_gpu); logs go to $OUT.
set -u
B=${BUILD:-.carry/new}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
export COLSTAT_TEST_QUICK=${COLSTAT_TEST_QUICK:-1}
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
nvidia-smi -L; nproc; mpirun --version | head -1
t0=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }

step "test_gpu"
timeout 120 "$B/test_gpu" > "$OUT/test_gpu.log" 2>&1
echo "test_gpu rc=$?"; tail -2 "$OUT/test_gpu.log"

for t in e2e_quantiles e2e_mpi; do
    step "$t, --device gpu"
    COLSTAT_TEST_DEVICE=gpu timeout 200 python3 "tests/e2e/$t.py" "$B/colstat" \
        > "$OUT/$t.log" 2>&1
    echo "$t rc=$?"; grep -E "seed|passed|FAIL" "$OUT/$t.log" | head -8
done

step "compute-sanitizer memcheck over mpirun -n 2 --device gpu --median"
python3 -c '
import random
r = random.Random(12)
with open("/tmp/mq.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(200000):
        f.write("%d,%r,%d\n" % (r.randint(-9, 9**9), r.gauss(0, 1), 2**53 + r.randrange(99)))'
"$B/colstat" --device gpu -a --quantiles 0.01,0.99 --json /tmp/mq.csv > "$OUT/mq_one.json"
for mem in "" "--memory 0"; do
    COLSTAT_QSEL=6,50 mpirun "${root[@]}" --bind-to none -n 2 compute-sanitizer \
        --tool memcheck --error-exitcode 9 "$B/colstat" --mpi --device gpu \
        -a --quantiles 0.01,0.99 --json $mem /tmp/mq.csv > "$OUT/mq_mpi.json" \
        2> "$OUT/mq_san.log"
    echo "sanitized ranks ($mem) rc=$?"; grep -c "ERROR SUMMARY: 0 errors" "$OUT/mq_san.log"
    COLSTAT_QSEL=6,50 "$B/colstat" --device gpu -a --quantiles 0.01,0.99 --json $mem \
        /tmp/mq.csv > "$OUT/mq_one_q.json"
    cmp "$OUT/mq_one_q.json" "$OUT/mq_mpi.json" && echo "same as one process"
done
cmp "$OUT/mq_one.json" "$OUT/mq_mpi.json" && echo "COLSTAT_QSEL changes no answer"

step "mpi_bench ${SIZE:-8G} ${RANKS:-2}"
BUILD=$B DATA=/tmp/mb REPS=${REPS:-2} bash bench/mpi_bench.sh "${SIZE:-8G}" "${RANKS:-2}" 2>&1 |
    tee "$OUT/mpi_bench.log"
step "done"
