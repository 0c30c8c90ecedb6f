#!/usr/bin/env bash
# On the GPU machine: the Cuda tests of the working tree, and unison-bench's default Cuda run of
# an earlier tree and of the working tree in alternation, both built there (the cuda preset, 16
# jobs each, at once). The earlier tree is a plain copy of its sources in .ab/before (e.g.
# `git archive <rev> | tar -x -C .ab/before`, with /.ab/ in .git/info/exclude), the dependency
# archives and .deb files in .deps (tools/gpu/gpu-build.sh). Carrying .ab replaces it on the
# machine, its build included: a call that runs binaries built by an earlier call carries only
# .deps.
#   gpu-ab-cuda.sh build   builds the working tree's AFTER_TARGETS (default unison_tests,
#                          unison-bench-cases, unison-bench) and .ab/before's unison-bench (the
#                          cases' own program is unison_bench in trees older than its rename)
#   gpu-ab-cuda.sh run     the working tree's Cuda tests (TESTS: a gtest filter; SKIP_TESTS=1:
#                          none), then unison-bench --backends=cuda --no-peers of the trees in
#                          ORDER (default "before after before after"), T_RUN seconds at most each
# Results in $OUT: the build logs; machine.txt, tests.txt, <n>-<tree>.csv, compare.txt
# (tools/compare-runs.py over the runs in order).
set -u
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
mkdir -p "$OUT"
case $1 in
build)
  t0=$(date +%s)
  { cmake --preset cuda $UNISON_BLAS_FLAGS > "$OUT/after-config.log" 2>&1 &&
    cmake --build --preset cuda --target ${AFTER_TARGETS:-unison_tests unison-bench-cases unison-bench} \
      > "$OUT/after-build.log" 2>&1
    echo "after build exit $? after $(( $(date +%s) - t0 )) s"; } &
  { cd .ab/before && cmake --preset cuda $UNISON_BLAS_FLAGS > "$OUT/before-config.log" 2>&1 &&
    cmake --build --preset cuda --target unison-bench > "$OUT/before-build.log" 2>&1
    echo "before build exit $? after $(( $(date +%s) - t0 )) s"; } &
  wait
  grep -m3 -B2 -A8 "error" "$OUT"/*-build.log | head -40
  ;;
run)
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
  lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$OUT/machine.txt"
  export OMP_PROC_BIND=spread OMP_PLACES=threads
  if [ -z "${SKIP_TESTS:-}" ]; then
    t0=$(date +%s)
    timeout 300 bash tools/run-tests.sh build/cuda/tests -- \
      --gtest_filter="${TESTS:-*/Cuda.*:AllocationFailure.*:TemporarySpaces.*}" > "$OUT/tests-full.txt" 2>&1
    echo "tests exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/machine.txt"
    grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" "$OUT/tests-full.txt" | tee "$OUT/tests.txt"
    gzip -f "$OUT/tests-full.txt"
  fi
  n=0
  for which in ${ORDER:-before after before after}; do
    n=$((n + 1))
    dir=build/cuda
    [ "$which" = before ] && dir=.ab/before/build/cuda
    t0=$(date +%s)
    timeout "${T_RUN:-200}" $dir/benchmarks/unison-bench --backends=cuda --no-peers --no-plots \
      --results-limit=0 --out=/tmp/ab-$n > /tmp/ab-$n.txt 2>&1
    echo "$n $which: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/machine.txt"
    cp /tmp/ab-$n/unison_bench.csv "$OUT/$n-$which.csv" 2>/dev/null
  done
  python3 tools/compare-runs.py "$OUT"/[0-9]-*.csv > "$OUT/compare.txt" 2>&1
  head -40 "$OUT/compare.txt"
  ;;
esac
