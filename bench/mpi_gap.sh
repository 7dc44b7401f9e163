#!/bin/bash
# Where the wall time of `mpirun -n 2 colstat --mpi` goes beyond the ranks'
# own totals (bench/mpi_gpu.sh's "bounds"): each rank's start and end on
# the clock, its user and system time, against mpirun's wall time; the
# same with Open MPI's memory hooks off (OMPI_MCA_memory=^patcher).
# usage (on the 2-GPU host, after bench/mpi_gpu.sh made DATA/bench.csv):
#   BUILD=.carry/dev [DATA=/tmp/mg] bash bench/mpi_gap.sh
set -u
B=${BUILD:-.carry/dev}
DATA=${DATA:-/tmp/mg}
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
csv=$DATA/bench.csv
[ -s "$csv" ] || "$B/colstat_gen" --bytes "${SIZE:-32G}" --seed 1 --files csv \
    --out "$DATA" --threads "$(nproc)" >/dev/null || exit 1
cat "$csv" >/dev/null
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
m=(mpirun "${root[@]}" -n 2 --bind-to none --mca pml ob1 --mca btl self,vader)
now() { date +%s.%N; }
rank() { # one rank: its start, end, user and system seconds on stderr
    echo "rank start $(now)" >&2
    /usr/bin/time -f "rank %e s wall, %U s user, %S s sys, %M KB" \
        "$B/colstat" "$@" >/dev/null
    echo "rank end $(now)" >&2
}
export -f rank now
export B
for label in plain nopatcher; do
    env=()
    [ $label = nopatcher ] && env=(env OMPI_MCA_memory=^patcher)
    t0=$(now)
    "${env[@]}" "${m[@]}" bash -c 'rank "$@"' _ --mpi --device gpu --sum \
        --max --json -v "$csv" 2>&1 | grep -E "rank (start|end)|wall|total|context" |
        sed "s/^/  /"
    echo "$label: mpirun wall $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}') s, began $t0"
done
t0=$(now)
/usr/bin/time -f "one process %e s wall, %U s user, %S s sys, %M KB" \
    env CUDA_VISIBLE_DEVICES=0 "$B/colstat" --device gpu --sum --max --json "$csv" >/dev/null
