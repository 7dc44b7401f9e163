#!/bin/sh
# The bounded fuzz runs CI makes: every libFuzzer harness (tests/fuzz/
# fuzz_*.c) built with clang, ASan and UBSan, run for SECONDS (default 60)
# from its seed corpus (tests/fuzz/corpus_NAME/, or corpus/ for the gzip
# decoder) copied to a scratch folder. A crash, a timeout, a leak or an
# out-of-memory is a failure; the finding is kept under FINDINGS (default
# /tmp/colstat-fuzz-findings) to replay with `build-fuzz/fuzz_NAME FILE`.
# The long runs are tests/fuzz/README.md's.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
out=${FINDINGS:-/tmp/colstat-fuzz-findings}
CC=clang cmake -S . -B build-fuzz -DCOLSTAT_CUDA=OFF -DCOLSTAT_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j2 >/dev/null
mkdir -p "$out"
passed=0 failed=0
for src in tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  seeds=tests/fuzz/corpus_${name#fuzz_}
  [ -d "$seeds" ] || seeds=tests/fuzz/corpus
  work=$(mktemp -d)
  cp "$seeds"/* "$work"/
  # UBSan in the fuzz build reports and goes on: a report must stop it.
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      build-fuzz/"$name" -max_total_time="$secs" -timeout=30 \
      -rss_limit_mb=4096 -artifact_prefix="$out/$name-" "$work" \
      >"$out/$name.log" 2>&1; then
    echo "$name: $(grep -E '^Done [0-9]+ runs' "$out/$name.log" || echo ran) in $secs s"
    passed=$((passed + 1))
  else
    echo "$name: FAILED; the log's end:"; tail -n 30 "$out/$name.log"
    failed=$((failed + 1))
  fi
  rm -rf "$work"
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
