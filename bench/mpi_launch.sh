#!/bin/bash
# What launching costs before colstat reads a byte: mpirun starting 1 and
# 2 processes that do nothing, and MPI_Init/MPI_Finalize inside them
# (compiled here with mpicc), with Open MPI's defaults and with the
# single-node transports (no search for network fabrics). Usage:
#   bench/mpi_launch.sh            (from the repository root)
set -u
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
src=$(mktemp --suffix=.c)
exe=${src%.c}
cat > "$src" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
    double t0 = now();
    MPI_Init(&argc, &argv);
    double t1 = now();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = now();
    MPI_Finalize();
    if (rank == 0)
        printf("    MPI_Init %.3f s, MPI_Finalize %.3f s\n", t1 - t0, now() - t2);
    return 0;
}
C
mpicc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -o "$exe" "$src" || exit 1
now() { date +%s.%N; }
for v in "" "--mca pml ob1 --mca btl self,vader"; do
    echo "mpirun ${v:-(defaults)}:"
    for n in 1 2 1 2; do
        t0=$(now)
        mpirun "${root[@]}" --oversubscribe --bind-to none $v -n $n true
        t1=$(now)
        mpirun "${root[@]}" --oversubscribe --bind-to none $v -n $n "$exe" |
            sed "s/^/  -n $n/"
        awk -v a="$t0" -v b="$t1" -v n="$n" -v c="$(now)" \
            'BEGIN{printf "  -n %d: true %.3f s, MPI_Init+Finalize program %.3f s\n", n, b-a, c-b}'
    done
done
rm -f "$src" "$exe"
