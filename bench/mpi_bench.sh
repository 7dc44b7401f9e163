#!/bin/bash
# --mpi against one rank, in the same run, on one big CSV in the page cache
# (the measure: on a host of two GPUs, `mpirun -n 2` should reach
# 1.7x the throughput of `-n 1`), and DuckDB with every core when it can be
# imported (WHEELS: a folder of carried wheels to install it from). Usage (from the repository root, on the GPU host):
#   bench/mpi_bench.sh [SIZE] [RANKS]      # default 32G, 2
# BUILD (default build) holds colstat and colstat_gen; DATA (default
# bench/data) the generated input; REPS (default 3) runs per tool, the best
# reported; MPI_ARGS more mpirun options. Every tool's answer is compared
# with one plain colstat run.
set -u
SIZE=${1:-32G}
RANKS=${2:-2}
B=${BUILD:-build}
DATA=${DATA:-bench/data}
REPS=${REPS:-3}
cd "$(dirname "$0")/.." || exit 1
for exe in colstat colstat_gen; do
    [ -x "$B/$exe" ] || { echo "mpi_bench: no $B/$exe" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "mpi_bench: no mpirun" >&2; exit 1; }
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
dir=$DATA/mpi-$SIZE
csv=$dir/bench.csv
if [ ! -s "$csv" ]; then
    mkdir -p "$dir"
    "$B/colstat_gen" --bytes "$SIZE" --seed 1 --files csv --out "$dir" >/dev/null || exit 1
fi
cat "$csv" >/dev/null # into the page cache
bytes=$(stat -c %s "$csv")
nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null
echo "input: $csv, $bytes bytes"
# Both mpirun runs unbound: by default Open MPI binds 1 or 2 ranks to one
# core each, which leaves a rank one core for all its threads.
# MPI_ARGS: more mpirun options for both (e.g. Open MPI's single-node
# transports, "--mca pml ob1 --mca btl self,vader"; bench/mpi_launch.sh)
read -r -a extra <<< "${MPI_ARGS:-}"
mpi=(mpirun "${root[@]}" --bind-to none "${extra[@]}")
[ -n "${MPI_ARGS:-}" ] && echo "mpirun options: --bind-to none $MPI_ARGS"
gbs() { awk -v b="$bytes" -v t="$1" 'BEGIN{printf "%.2f", b/t/1e9}'; }
# best wall seconds of REPS runs of "$@", its output checked
best() {
    local b=""
    for _ in $(seq "$REPS"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >/tmp/mpi_bench.got || { echo "mpi_bench: failed: $*" >&2; return 1; }
        t1=$(date +%s.%N)
        cmp -s /tmp/mpi_bench.got /tmp/mpi_bench.want ||
            echo "mpi_bench: WRONG answer: $*" >&2
        b=$(echo "$t0 $t1 $b" | awk '{t=$2-$1; if ($3=="" || t<$3) print t; else print $3}')
    done
    echo "$b"
}
# one workload: plain colstat, -n 1 and -n RANKS, answers checked
measure() {
    args=("$@" --json "$csv")
    "$B/colstat" "${args[@]}" >/tmp/mpi_bench.want || exit 1
    one=$(best "${mpi[@]}" -n 1 "$B/colstat" --mpi "${args[@]}")
    many=$(best "${mpi[@]}" -n "$RANKS" "$B/colstat" --mpi "${args[@]}")
    plain=$(best "$B/colstat" "${args[@]}")
    echo "workload: $*"
    printf "%-32s %8.3f s %7s GB/s\n" "colstat (no --mpi)" "$plain" "$(gbs "$plain")"
    printf "%-32s %8.3f s %7s GB/s\n" "mpirun -n 1 colstat --mpi" "$one" "$(gbs "$one")"
    printf "%-32s %8.3f s %7s GB/s\n" "mpirun -n $RANKS colstat --mpi" "$many" "$(gbs "$many")"
    awk -v a="$one" -v b="$many" -v n="$RANKS" -v p="$plain" \
        'BEGIN{printf "ratio -n %d / -n 1: %.2fx (target 1.7x for 2 ranks); -n %d / plain: %.2fx\n", n, a/b, n, p/b}'
    "${mpi[@]}" -n "$RANKS" "$B/colstat" --mpi -v "${args[@]}" 2>&1 >/dev/null |
        grep -E "guessed|speculation|backend|passes" | head -8
}
measure --median
measure --sum --max
if ! python3 -c "import duckdb" 2>/dev/null && [ -n "${WHEELS:-}" ]; then
    # into a folder of its own: the host's Python may be a managed one
    python3 -m pip install -q --no-index --no-deps --no-compile \
        --no-cache-dir --upgrade --target /tmp/site "$WHEELS"/duckdb-*.whl 2>&1 |
        tail -1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
if python3 -c "import duckdb" 2>/dev/null; then
    ncpu=$(nproc)
    duck=$(python3 - "$csv" "$ncpu" "$REPS" <<'PY'
import sys, time, duckdb
path, threads, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = duckdb.connect()
con.execute("SET threads=%d" % threads)
cols = [r[0] for r in con.execute(
    "DESCRIBE SELECT * FROM read_csv('%s', header=true)" % path).fetchall()]
q = "SELECT %s FROM read_csv('%s', header=true)" % (
    ", ".join("sum(\"%s\"), max(\"%s\")" % (c, c) for c in cols), path)
best = None
for _ in range(reps):
    t0 = time.perf_counter()
    con.execute(q).fetchall()
    t = time.perf_counter() - t0
    best = t if best is None or t < best else best
print("%.3f" % best)
PY
)
    printf "%-32s %8.3f s %7s GB/s\n" "DuckDB, $ncpu threads" "$duck" "$(gbs "$duck")"
    awk -v a="$duck" -v b="$many" -v n="$RANKS" \
        'BEGIN{printf "ratio DuckDB / -n %d: %.2fx\n", n, a/b}'
else
    echo "DuckDB: not importable (pip install duckdb), not measured"
fi
