#!/bin/bash
# The streams issue's GPU checks, one device call (bench/README.md, "On the
# GPU machine"): the device memory a --median run takes against what its
# values need, on a generated CSV of SIZE (default 16G), timed against the
# build before the change (OLD) in the same run, best of REPS, answers
# compared; gzip on standard input through the GPU backend (it failed:
# "out of memory in gzip decoder"); the GPU suites and compute-sanitizer
# over the paths the change touched. Carried: NEW and OLD folders of
# static builds (colstat, colstat_gen, test_gpu), default .carry/new and
# .carry/old. Logs under $OUT; a summary last.
set -u
NEW=${NEW:-.carry/new}
OLD=${OLD:-.carry/old}
SIZE=${SIZE:-16G}
REPS=${REPS:-3}
OUT=${OUT:-/tmp/colstat-out}
D=${DATA:-/tmp/cm}
mkdir -p "$OUT" "$D/gz"
cd "$(dirname "$0")/.." || exit 1
# Debian ships ISA-L as a shared library only: carried beside the binaries.
export LD_LIBRARY_PATH="$PWD/$NEW${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
    date -u
    nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader
    lscpu | grep -E "Model name|^CPU\(s\)"
} | tee "$OUT/machine.txt"

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
if [ -z "${SKIP_BENCH:-}" ]; then
echo "== data"
t0=$(date +%s.%N)
"$NEW/colstat_gen" --bytes "$SIZE" --out "$D" --files csv --threads "$(nproc)" > /dev/null || exit 1
"$NEW/colstat_gen" --bytes 1G --out "$D/gz" --files gz --threads "$(nproc)" > /dev/null || exit 1
cat "$D/bench.csv" > /dev/null
echo "made in $(since "$t0") s: $(ls -l "$D/bench.csv" "$D/gz/bench.csv.gz" | awk '{print $5, $9}' | tr '\n' ' ')"

echo "== --median on $SIZE: device memory taken, old and new timed alternately"
best() { sort -n | head -1; }
: > "$OUT/times.txt"
for r in $(seq "$REPS"); do
    for b in old new; do
        dir=$OLD; [ $b = new ] && dir=$NEW
        s=$(date +%s.%N)
        "$dir/colstat" --device gpu --median --json "$D/bench.csv" > "$OUT/median_$b.json" 2> "$OUT/median_$b.err"
        rc=$?
        echo "$b $rc $(since "$s")" >> "$OUT/times.txt"
    done
done
cmp -s "$OUT/median_old.json" "$OUT/median_new.json" && echo "answers: old and new SAME" || echo "answers: old and new DIFF"
for b in old new; do
    echo "$b: best $(grep "^$b 0 " "$OUT/times.txt" | awk '{print $3}' | best) s of $(grep -c "^$b " "$OUT/times.txt") runs ($(grep -c "^$b 0 " "$OUT/times.txt") ok)"
done
for b in old new; do
    dir=$OLD; [ $b = new ] && dir=$NEW
    "$dir/colstat" -v --device gpu --median --json "$D/bench.csv" 2>&1 >/dev/null | grep -E "kept|GPU parse stopped|stream " | sed "s/^/$b: /" | tee -a "$OUT/kept.txt"
    # the device's memory as nvidia-smi sees it while the run is in flight
    ( "$dir/colstat" --device gpu --median --json "$D/bench.csv" > /dev/null 2>&1 & p=$!; peak=0
      while kill -0 $p 2>/dev/null; do
          u=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
          [ "${u:-0}" -gt "$peak" ] && peak=$u; sleep 0.05; done
      echo "$b: nvidia-smi peak memory.used during --median: $peak MiB" ) | tee -a "$OUT/kept.txt"
done

echo "== --median on $SIZE from a pipe (size unknown: the room grows from one chunk's)"
for b in old new; do
    dir=$OLD; [ $b = new ] && dir=$NEW
    s=$(date +%s.%N)
    cat "$D/bench.csv" | "$dir/colstat" -v --device gpu --median --json - > "$OUT/pipe_$b.json" 2> "$OUT/pipe_$b.err"
    echo "$b pipe: rc=$? $(since "$s") s; $(grep -E "kept +(took|room)" "$OUT/pipe_$b.err" | sed 's/^colstat: //')"
    grep -E "GPU parse stopped" "$OUT/pipe_$b.err" | head -2
done
cmp -s "$OUT/pipe_new.json" "$OUT/median_new.json" && echo "pipe answer: SAME as the file's" || echo "pipe answer: DIFF"

echo "== gzip on standard input, GPU backend (1 GB of text, one gzip -6 member)"
"$NEW/colstat" --device cpu --sum --max --json "$D/gz/bench.csv.gz" > "$OUT/gz_file.json" 2> "$OUT/gz_file.err"
for t in "" 2 16; do
    s=$(date +%s.%N)
    cat "$D/gz/bench.csv.gz" | env ${t:+COLSTAT_GZIP_THREADS=$t} timeout 300 "$NEW/colstat" --device gpu --sum --max --json - > "$OUT/gz_pipe.json" 2> "$OUT/gz_pipe.err"
    rc=$?
    el=$(since "$s")
    cmp -s "$OUT/gz_file.json" "$OUT/gz_pipe.json" && same=SAME || same=DIFF
    echo "gzip pipe, gpu, threads ${t:-default}: rc=$rc $el s, answer vs the file on cpu: $same $(head -c 200 "$OUT/gz_pipe.err")"
    cat "$D/gz/bench.csv.gz" | env ${t:+COLSTAT_GZIP_THREADS=$t} timeout 300 "$OLD/colstat" --device gpu --sum --max --json - > /dev/null 2> "$OUT/gz_pipe_old.err"
    echo "  old: rc=$? $(head -c 200 "$OUT/gz_pipe_old.err")"
done

fi
echo "== GPU suites (new build)"
[ -n "${SKIP_E2E:-}" ] && E2E=/dev/null/none
for t in ${E2E:-tests/e2e/e2e_quantiles.py tests/e2e/e2e_gzip_stream.py}; do
    [ -f "$t" ] || continue
    s=$(date +%s)
    COLSTAT_TEST_QUICK=1 timeout 400 python3 "$t" "$NEW/colstat" > "$OUT/$(basename "$t" .py).log" 2>&1
    echo "$t rc=$? $(( $(date +%s) - s )) s: $(grep -E "passed" "$OUT/$(basename "$t" .py).log" | tail -1)"
    grep -E "^FAIL" "$OUT/$(basename "$t" .py).log" | head -5
done
[ -x "$NEW/test_gpu" ] && { timeout 300 "$NEW/test_gpu" > "$OUT/test_gpu.log" 2>&1; echo "test_gpu rc=$? $(tail -1 "$OUT/test_gpu.log")"; }

[ -n "${SKIP_SAN:-}" ] && exit 0
echo "== compute-sanitizer (memcheck) over the changed paths"
python3 - <<'PY'
import random
r = random.Random(21)
with open("/tmp/grows.csv", "w") as f:
    f.write("a,b\n")
    for _ in range(3000):
        f.write("%s,%r\n" % ("0" * 200 + str(r.randint(0, 9)), r.random()))
    for _ in range(1500000):
        f.write("%d,%d\n" % (r.randint(0, 9), r.randint(0, 9)))
PY
gzip -6 -c /tmp/grows.csv > /tmp/grows.csv.gz
for how in grows pipe-gz; do
    case $how in
    grows) cmd=("$NEW/colstat" --device gpu -v --median --json /tmp/grows.csv) ;;
    pipe-gz) cmd=(env COLSTAT_GZIP_PIECE=65536 COLSTAT_GZIP_THREADS=3 "$NEW/colstat" --device gpu --median --json -) ;;
    esac
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "${cmd[@]}" < /tmp/grows.csv.gz > "$OUT/san_$how.log" 2>&1
    echo "memcheck $how rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/san_$how.log")"
done
grep -E "kept|stopped" "$OUT/san_grows.log" | sed 's/^/  grows: /'
diff <("$NEW/colstat" --device cpu --median --json /tmp/grows.csv) <("$NEW/colstat" --device gpu --median --json /tmp/grows.csv) > /dev/null && echo "grows: cpu and gpu SAME" || echo "grows: cpu and gpu DIFF"
cat "$OUT/kept.txt"
