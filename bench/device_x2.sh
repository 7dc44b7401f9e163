#!/bin/bash
# The measure on a host of two GPUs, with what bounds it: the
# host (CPUs, NUMA, GPU links), the page-cache copy by destination offset
# (colstat_pread_bench), the launcher's own cost, two plain colstat
# processes at once (one per GPU) against one, every stage's -v times for
# one and two ranks, then mpi_bench.sh (-n 1 and -n 2 unbound, DuckDB with
# every core). Logs under OUT. Usage, from the repository root on the GPU
# host: BUILD=.carry/new WHEELS=.carry/wheels bench/device_x2.sh [SIZE]
set -u
SIZE=${1:-32G}
B=${BUILD:-.carry/new}
OUT=${OUT:-/tmp/colstat-out}
DATA=${DATA:-/tmp/mb}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
[ -d .carry/tools/lib ] && export LD_LIBRARY_PATH="$PWD/.carry/tools/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
mpi=(mpirun "${root[@]}" --bind-to none)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}'; }
{
    echo "== host"
    lscpu | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA)"
    grep MemTotal /proc/meminfo
    nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
    nvidia-smi topo -m 2>&1 | head -8
    command -v numactl >/dev/null && numactl -H | head -6
    mpirun --version | head -1
} 2>&1 | tee "$OUT/host.log"
csv=$DATA/mpi-$SIZE/bench.csv
if [ ! -s "$csv" ]; then
    mkdir -p "$DATA/mpi-$SIZE"
    t0=$(now)
    "$B/colstat_gen" --bytes "$SIZE" --seed 1 --files csv --out "$DATA/mpi-$SIZE" >/dev/null || exit 1
    echo "generated $SIZE in $(since "$t0") s"
fi
cat "$csv" >/dev/null
{
    echo "== page-cache copy by destination offset (1 GB each)"
    [ -x "$B/colstat_pread_bench" ] && "$B/colstat_pread_bench" "$csv" 1024
    echo "== the launcher alone"
    for n in 1 2; do
        t0=$(now); "${mpi[@]}" -n $n true; echo "mpirun -n $n true: $(since "$t0") s"
    done
    head -c 100000 "$csv" > /tmp/tiny.csv
    for n in 1 2; do
        t0=$(now); "${mpi[@]}" -n $n "$B/colstat" --mpi --count /tmp/tiny.csv >/dev/null
        echo "mpirun -n $n colstat --mpi --count (100 kB): $(since "$t0") s"
    done
    t0=$(now); "$B/colstat" --count /tmp/tiny.csv >/dev/null
    echo "colstat --count (100 kB): $(since "$t0") s"
} 2>&1 | tee "$OUT/overhead.log"
{
    echo "== one plain colstat on GPU 0, then one on each GPU at once (--sum --max, whole file each)"
    for r in 1 2; do
        t0=$(now); CUDA_VISIBLE_DEVICES=0 "$B/colstat" --sum --max --json "$csv" >/dev/null
        echo "alone: $(since "$t0") s"
        t0=$(now)
        CUDA_VISIBLE_DEVICES=0 "$B/colstat" --sum --max --json "$csv" >/dev/null &
        CUDA_VISIBLE_DEVICES=1 "$B/colstat" --sum --max --json "$csv" >/dev/null &
        wait
        echo "two at once (twice the bytes): $(since "$t0") s"
    done
} 2>&1 | tee "$OUT/concurrent.log"
for n in 1 2; do
    "${mpi[@]}" -n $n "$B/colstat" --mpi -v --sum --max --json "$csv" 2>"$OUT/v_n$n.log" >/dev/null
done
"$B/colstat" -v --sum --max --json "$csv" 2>"$OUT/v_plain.log" >/dev/null
BUILD=$B DATA=$DATA REPS=${REPS:-2} bash bench/mpi_bench.sh "$SIZE" 2 2>&1 | tee "$OUT/mpi_bench.log"
