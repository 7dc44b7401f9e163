#!/bin/bash
# The short form of device_mpi_check.sh: compute-sanitizer over two GPU
# ranks selecting quantiles (answer compared with one process), then
# mpi_bench.sh's --median and --sum --max workloads (SIZE, REPS; SIZE=0:
# none). Run
# by device_mpi_check.sh after the tests, or alone.
set -u
B=${BUILD:-.carry/new}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
[ -d .carry/tools/lib ] && export LD_LIBRARY_PATH="$PWD/.carry/tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
python3 -c '
import random
r = random.Random(12)
with open("/tmp/mq.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(100000):
        f.write("%d,%r,%d\n" % (r.randint(-9, 9**9), r.gauss(0, 1), 2**53 + r.randrange(99)))'
args=(--device gpu -a --quantiles 0.01,0.99 --json /tmp/mq.csv)
COLSTAT_QSEL=6,50 "$B/colstat" "${args[@]}" > "$OUT/mq_one.json"
# colstat-mpi itself: colstat hands --mpi over to it with execv, which the
# sanitizer does not follow; its report goes to stdout, kept apart
COLSTAT_QSEL=6,50 timeout 300 mpirun "${root[@]}" --bind-to none -n 2 \
    compute-sanitizer --tool memcheck --error-exitcode 9 \
    --log-file "$OUT/mq_san.%p.log" "$B/colstat-mpi" --mpi \
    "${args[@]}" > "$OUT/mq_mpi.json" 2> "$OUT/mq_san.log"
echo "sanitized ranks rc=$?: $(cat "$OUT"/mq_san.*.log | grep -c 'ERROR SUMMARY: 0 errors') clean summaries"
cmp "$OUT/mq_one.json" "$OUT/mq_mpi.json" && echo "same bytes as one process"
[ "${SIZE:-8G}" = 0 ] && exit 0 # SIZE=0: no benchmark
BUILD=$B DATA=/tmp/mb REPS=${REPS:-1} bash bench/mpi_bench.sh "${SIZE:-8G}" 2 2>&1 |
    tee "$OUT/mpi_bench.log"
