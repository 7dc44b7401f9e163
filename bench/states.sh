#!/bin/bash
# States and parts (--emit-state, --merge, --part): the size of a state
# for 10 and 1000 columns, the time of --merge over 10,000 states, and
# --part K/N: N processes (xargs -P, all cores) against one process
# on the same file, with the merge. Prints one table.
# usage: bench/states.sh [COLSTAT] [ROWS]    (default build/colstat, 2000000)
set -eu
C=${1:-build/colstat}
ROWS=${2:-2000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
secs() { python3 -c 'import sys,time,subprocess;t=time.time();subprocess.run(sys.argv[1],shell=True,check=True);print("%.3f"%(time.time()-t))' "$1"; }
python3 - "$T" "$ROWS" <<'PY'
import random, sys
t, rows = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
with open(f"{t}/c10.csv", "w") as f:
    f.write(",".join(f"c{i}" for i in range(10)) + "\n")
    for i in range(rows):
        f.write(",".join(f"{r.gauss(0, 1e3):.6f}" if j % 2 else str(r.randint(-10**9, 10**9)) for j in range(10)) + "\n")
with open(f"{t}/c1000.csv", "w") as f:
    f.write(",".join(f"c{i}" for i in range(1000)) + "\n")
    for i in range(100):
        f.write(",".join(str(r.randint(0, 99)) for j in range(1000)) + "\n")
PY
s10=$("$C" --emit-state "$T/c10.csv" | wc -c)
s1000=$("$C" --emit-state "$T/c1000.csv" | wc -c)
s10std=$("$C" --emit-state --std "$T/c10.csv" | wc -c)
"$C" --emit-state "$T/c10.csv" > "$T/one"
for i in $(seq 10000); do cat "$T/one"; done > "$T/s10000"
merge=$(secs "$C --merge - < $T/s10000 > /dev/null")
n=$(nproc)
one=$(secs "$C --sum --min --max --std $T/c10.csv > /dev/null")
# each part's state to its own file (xargs -P, everywhere; GNU parallel
# would group the outputs itself), then one stream
parts=$(secs "seq $n | xargs -P $n -I{} sh -c '$C --part {}/$n --emit-state --sum --min --max --std $T/c10.csv > $T/part{}'")
cat "$T"/part* > "$T/parts"
pmerge=$(secs "$C --merge $T/parts > /dev/null")
cmp <("$C" --json --merge "$T/parts") <("$C" --json --sum --min --max --std "$T/c10.csv") && same=yes || same=NO
echo "| measure | value |"
echo "| --- | --- |"
echo "| state, 10 columns, default statistics, $ROWS rows | $s10 bytes |"
echo "| state, 10 columns, with --std | $s10std bytes |"
echo "| state, 1000 columns of small integers | $s1000 bytes |"
echo "| --merge of 10,000 states (10 columns) on stdin | $merge s |"
echo "| one process, 10 columns, $(du -m "$T/c10.csv" | cut -f1) MB | $one s |"
echo "| $n processes --part K/$n (xargs -P) | $parts s |"
echo "| their --merge | $pmerge s |"
echo "| merged JSON = one process's | $same |"
