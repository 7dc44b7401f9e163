#!/bin/bash
# Two builds of colstat compared on the device machine, for a change that
# must not change behaviour or speed (a refactoring): every run of the e2e
# suites recorded with both (tests/e2e/record.py, GPU present, same seed)
# must give identical bytes, and bench/run on the same data must give the
# same figures within the run-to-run spread. OLD and NEW are folders holding
# colstat (and colstat_gen, colstat_gzread from NEW). Logs under $OUT.
set -u
OLD=${OLD:?folder of the old build}
NEW=${NEW:?folder of the new build}
OUT=${OUT:-/tmp/colstat-out}
SEED=${SEED:-777}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
if [ "${RECORD:-1}" = 1 ]; then
    for b in old new; do
        exe=$OLD/colstat
        [ $b = new ] && exe=$NEW/colstat
        timeout ${RECORD_TIMEOUT:-250} python3 tests/e2e/record.py "$exe" "$OUT/record_$b.log" "$SEED" |
            tee "$OUT/record_$b.txt"
    done
    if cmp -s "$OUT/record_old.log" "$OUT/record_new.log"; then
        echo "record: IDENTICAL ($(grep -c '^== ' "$OUT/record_new.log") runs)"
    else
        echo "record: DIFFERENT"
        diff "$OUT/record_old.log" "$OUT/record_new.log" | head -40
    fi
    gzip -f "$OUT/record_old.log" "$OUT/record_new.log"
fi
if [ "${BENCH:-1}" = 1 ]; then
    i=0
    for b in old new old new; do
        i=$((i + 1))
        dir=$OLD
        [ $b = new ] && dir=$NEW
        PYTHONUNBUFFERED=1 timeout ${BENCH_TIMEOUT:-200} python3 bench/run \
            --colstat "$dir/colstat" --gen "$NEW/colstat_gen" \
            --gzread "$NEW/colstat_gzread" --tools colstat --no-install \
            --out "$OUT" --json "$OUT/bench_${b}_$i.json" "$@" 2>&1 |
            tee -a "$OUT/bench_$b.txt" | grep -E "^colstat|GB/s" | head -20
    done
fi
