#!/usr/bin/env bash
# On the GPU machine: a few CPU cases of two unison-bench-cases binaries built on another machine
# (the openmp preset; -march=native there on a Sapphire Rapids-class Xeon, or configure with
# -DUNISON_HOST_ARCH=sapphirerapids) and copied to the GPU machine's working tree in build/ab/,
# timed in alternation; no build on the GPU machine.
#   build/ab/before/unison-bench-cases, build/ab/after/unison-bench-cases: the two trees' benchmarks
#   build/ab/after/tests/ (optional): the after tree's test programs, run first (TESTS: a gtest
#                                     filter, default every test)
#   build/ab/lib/: Debian's libbenchmark.so.1debian (not on the GPU machine)
#   gpu-ab-prebuilt.sh FILTER [ROUNDS]   ROUNDS rounds of (before, after), 5 repetitions each
# Results in $OUT: tests.txt, ab.txt ("round before|after case median").
set -u
filter=$1
rounds=${2:-3}
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"  # OpenBLAS from .deps/debs, where the binaries link it
export LD_LIBRARY_PATH=$PWD/build/ab/lib:${LD_LIBRARY_PATH:-}
lscpu | grep -E "Model name|^Model:|^CPU\(s\)|L3" | tee $OUT/machine.txt
if [ -d build/ab/after/tests ]; then
  OMP_PROC_BIND=spread OMP_PLACES=threads timeout 300 bash tools/run-tests.sh build/ab/after/tests -- \
    --gtest_filter="${TESTS:-*}" > $OUT/tests-full.txt 2>&1
  echo "tests exit $?"
  grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" $OUT/tests-full.txt |
    tee $OUT/tests.txt
  gzip -f $OUT/tests-full.txt
fi
for round in $(seq "$rounds"); do
  for which in before after; do
    OMP_PROC_BIND=spread OMP_PLACES=threads build/ab/$which/unison-bench-cases \
      --benchmark_filter="$filter" --benchmark_repetitions=5 \
      --benchmark_report_aggregates_only=true 2>/dev/null |
      grep _median | awk -v w=$which -v r=$round '{print r, w, $1, $2, $3}'
  done
done | tee $OUT/ab.txt
