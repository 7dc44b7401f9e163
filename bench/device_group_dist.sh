#!/bin/bash
# Group-by on the device across processes (issue 22): --mpi ranks (2 and 3)
# and --part K/N --emit-state then --merge, each parsing and grouping its
# share on the GPU, against one process on the CPU, byte for byte; keys
# with quotes, commas, blanks and the missing key; values invalid, NaN,
# missing. Prints one line per check; exits 1 if any differs.
# usage (device machine): NEW=.carry/house OUT=... bash bench/device_group_dist.sh
set -u
N=${NEW:-.carry/house}
OUT=${OUT:-/tmp/colstat-out}
cd "$(dirname "$0")/.." || exit 1
export LD_LIBRARY_PATH=$PWD/$N:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
D=/tmp/gdist
mkdir -p $D
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
python3 - $D/g.csv <<'PY'
import random, sys
r = random.Random(int(__import__("time").time()))
print("seed", r.random())
keys = ['a', ' a ', '"a "', '"c,d"', '"b""q"', '', 'NA', 'x y'] + ["k%d" % i for i in range(3000)]
with open(sys.argv[1], "w") as f:
    f.write("k,x,y\n")
    for i in range(400000):
        x = r.choice(["", "abc", "nan", str(r.randint(-999, 999)), "%.3f" % r.uniform(-9, 9)])
        f.write("%s,%s,%d\n" % (r.choice(keys), x, r.randint(-2**60, 2**60)))
PY
args=(-g k --sum --min --max --json)
bad=0
check() { # tag, file
    if cmp -s $D/ref.json "$2"; then echo "$1: same bytes as one CPU process"
    else echo "$1: DIFFERS"; bad=1; fi
}
"$N/colstat" --device cpu "${args[@]}" $D/g.csv >$D/ref.json
"$N/colstat" --device gpu "${args[@]}" $D/g.csv >$D/gpu.json
check "one GPU process" $D/gpu.json
for n in 2 3; do
    COLSTAT_GPU_RAW_BYTES=1000000 timeout 300 mpirun "${root[@]}" --oversubscribe --bind-to none -n $n \
        "$N/colstat-mpi" --mpi --device gpu -v "${args[@]}" $D/g.csv >$D/mpi$n.json 2>$D/mpi$n.err
    echo "  rc=$? $(grep -c 'grouped on the device' $D/mpi$n.err) device lines"
    check "--mpi -n $n, --device gpu" $D/mpi$n.json
done
for n in 2 3; do
    parts=()
    for k in $(seq 1 $n); do
        COLSTAT_GPU_RAW_BYTES=1000000 "$N/colstat" --device gpu --part $k/$n --emit-state \
            -v -g k --sum --min --max $D/g.csv >$D/s$k 2>>$D/parts.err
        parts+=($D/s$k)
    done
    "$N/colstat" --merge "${parts[@]}" --json >$D/merge$n.json
    echo "  $(grep -c "grouped on the device" $D/parts.err) device lines so far"
    check "--part K/$n --emit-state on the GPU, --merge" $D/merge$n.json
done
exit $bad
