#!/bin/sh
# Style and documentation checks that CI enforces: the man page lints
# clean, C sources are clang-format clean, cppcheck finds nothing. A tool
# that is missing is skipped (exit 77 when none ran).
cd "$(dirname "$0")/.." || exit 1
ran=0 bad=0
if command -v mandoc >/dev/null; then
  ran=1
  out=$(mandoc -T lint -W warning man/colstat.1 2>&1) || true
  [ -z "$out" ] || { echo "$out"; bad=1; }
fi
# io/num/pow5_table.h and src/report/ryu_pow5_table.h are generated (their
# gen_*.py): not hand-formatted.
srcs=$(find src io gpu tests bench -name "*.[ch]" | sort | grep -v pow5_table)
# CUDA sources: formatted like the rest (cppcheck does not read CUDA).
cuda=$(find gpu bench -name "*.cu" -o -name "*.cuh" | sort)
if command -v clang-format >/dev/null; then
  ran=1
  clang-format --dry-run --Werror $srcs $cuda || bad=1
fi
if command -v cppcheck >/dev/null; then
  ran=1
  cppcheck -q --error-exitcode=1 --enable=warning,performance,portability \
    --inline-suppr -D__GNUC__ -DCOLSTAT_VERSION=\"x\" -I . $srcs || bad=1
fi
[ $ran = 1 ] || exit 77
[ $bad = 0 ] && echo "lint: 1 passed, 0 failed" || { echo "lint: 0 passed, 1 failed"; exit 1; }
