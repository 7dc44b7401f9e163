#!/bin/bash
# The GPU checks of one device call, from a copy of the tree that carries
# the static build (default build-dev, configured with -DCOLSTAT_CUDA=ON
# -DCOLSTAT_STATIC_DEPS=ON on the dev machine). Runs: the GPU unit tests,
# compute-sanitizer and the kernel benchmark (bench/gpu/run_device.sh),
# then the end-to-end tests with the GPU present (CPU vs GPU JSON byte for
# byte), compute-sanitizer over the colstat binary itself, and a -v
# profile. Logs go to $OUT; a summary is printed last.
set -u
B=${BUILD:-build-dev}
OUT=${OUT:-/tmp/colstat-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
python3 --version; python3 -c 'import numpy, pyarrow; print("numpy", numpy.__version__, "pyarrow", pyarrow.__version__)' 2>&1
nproc; free -g | head -2; df -h /tmp | tail -1

BUILD=$B OUT=$OUT SAN_TOOLS="${UNIT_SAN_TOOLS:-memcheck racecheck synccheck initcheck}" \
    bash bench/gpu/run_device.sh > "$OUT/gpu_unit.log" 2>&1
grep -E "rc=|ERROR SUMMARY|GB/s|ratio" "$OUT/gpu_unit.log" | head -40

echo "== end-to-end tests with a GPU present"
: > "$OUT/e2e.log"
for t in ${E2E:-tests/e2e/e2e_*.py}; do
    start=$(date +%s)
    timeout 300 python3 "$t" "$B/colstat" >> "$OUT/e2e.log" 2>&1
    echo "$t rc=$? $(( $(date +%s) - start )) s" | tee -a "$OUT/e2e.log"
done
grep -E "passed|DIFF|FAIL" "$OUT/e2e.log" | head -20

echo "== compute-sanitizer over colstat --device gpu"
python3 - <<'PY'
import random
r = random.Random(7)
with open("/tmp/san.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(300000):
        f.write("%d,%.4f,%r\n" % (r.randint(-9, 9**9), r.uniform(-1, 1), r.gauss(0, 1e10)))
PY
python3 -c 'import struct, random; r = random.Random(8); open("/tmp/san.f64", "wb").write(struct.pack("<300000d", *[r.gauss(0, 1e6) for _ in range(300000)]))'
# blank and blanks-only lines between records: rows move up on the device
python3 -c '
import random
r = random.Random(10)
with open("/tmp/blank.csv", "w") as f:
    f.write("x,y\n")
    for i in range(200000):
        f.write(r.choice(["", "  ", "\t"]) + "\n" if r.random() < 0.05 else "%d,%r\n" % (r.randint(-99, 99), r.gauss(0, 1)))'
# numbers of 20 to 30 significant digits: some only strtod rounds exactly
python3 -c '
import random
r = random.Random(9)
with open("/tmp/hard.csv", "w") as f:
    f.write("x,y\n")
    for i in range(100000):
        f.write("%d.%d,%s\n" % (r.randrange(10**9), r.randrange(10**r.randint(11, 21)), r.random()))'
# binary records of 13 bytes in two files of odd row counts: each file's
# values kept on the device after the other's, fields off alignment
python3 -c '
import random, struct
r = random.Random(11)
for k, n in ((0, 100001), (1, 77777)):
    open("/tmp/san_m%d.bin" % k, "wb").write(b"".join(struct.pack("<idB", r.randint(-2**31, 2**31 - 1), r.gauss(0, 1e6), r.randrange(256)) for _ in range(n)))'
# the device's CSV parse from a file (several readers), from a pipe in
# small chunks (carried records), with --range, and binary records
for tool in ${SAN_TOOLS:-memcheck racecheck synccheck initcheck}; do
    for how in ${RUN_CASES:-file pipe range f64 multi hard blank parse}; do
        case $how in
        file) cmd=("$B/colstat" --device gpu -a --json /tmp/san.csv) ;;
        pipe) cmd=(env COLSTAT_GPU_RAW_BYTES=65537 "$B/colstat" --device gpu -a --json -) ;;
        range) cmd=("$B/colstat" --device gpu -a --json --range -1e9:1e9 /tmp/san.csv) ;;
        f64) cmd=("$B/colstat" --device gpu -a --json -b f64 /tmp/san.f64) ;;
        multi) cmd=("$B/colstat" --device gpu -a --json -b i32,f64,u8 /tmp/san_m0.bin /tmp/san_m1.bin) ;;
        hard) cmd=("$B/colstat" --device gpu -a --json /tmp/hard.csv) ;;
        blank) cmd=("$B/colstat" --device gpu -a --json /tmp/blank.csv) ;;
        parse) cmd=(env COLSTAT_TEST_QUICK=1 "$B/test_gpu_parse") ;;
        esac
        timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "${cmd[@]}" < /tmp/san.csv > "$OUT/san_colstat.tmp" 2>&1
        rc=$?
        echo "colstat $tool $how rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_colstat.tmp" | tr '\n' ' ')" | tee -a "$OUT/san_colstat.log"
        [ $rc -ne 0 ] && grep -A8 -m 3 -E "^========= (Uninitialized|Invalid|Race|Barrier)" "$OUT/san_colstat.tmp" >> "$OUT/san_colstat.log"
    done
done
rm -f "$OUT/san_colstat.tmp"

for f in hard blank; do
    diff <("$B/colstat" --device cpu -a --json /tmp/$f.csv) <("$B/colstat" --device gpu -a --json /tmp/$f.csv) >/dev/null && echo "$f: cpu and gpu SAME" || echo "$f: cpu and gpu DIFF"
    "$B/colstat" --device gpu -v -a /tmp/$f.csv 2>&1 >/dev/null | grep -E "parsed on the GPU|GPU parse stopped" | sed 's/^colstat: /  /'
done
"$B/colstat" --device gpu -v -a /tmp/hard.csv 2>&1 >/dev/null | grep -i "gpu"

echo "== -v profile"
"$B/colstat" -v --device gpu -a /tmp/san.csv 2>&1 >/dev/null | tee "$OUT/profile.log"
