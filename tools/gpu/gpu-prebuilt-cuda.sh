#!/usr/bin/env bash
# On the GPU machine, without building there: Cuda binaries built on another machine and carried
# in build/cuda-spr (the cuda preset configured with -DUNISON_HOST_ARCH=sapphirerapids
# -DUNISON_HOST_BLAS=OFF, targets unison-bench-cases, unison-cuda-c and unison_tests (every test program); TESTS: the
# unit tests' gtest filter, default every test it was built with), run in one call:
#   1. the unit tests;
#   2. unison-bench-cases's cases matching FILTER (5 repetitions, medians; build/cuda-spr/after/ holds
#      the binary where an earlier tree's is in build/cuda-spr/before/: then AB_FILTER's cases
#      are timed in alternation, ROUNDS rounds);
#   3. unison-cuda-c with PARTS (default "histogram random matmul"): the libraries made for the same work
#      (CUB, cuRAND, cuBLAS), in the same run;
#   4. Nsight Compute (tools/gpu/gpu-ncu.sh) on the pairs 'benchmark filter' 'kernel regex' in
#      NCU (a bash array assignment, e.g. NCU="('histogram.*Cuda' HistogramTeams)"), and on
#      unison-cuda-c's CUB histogram kernels when NCU_CUB=1;
#   5. SASS: the opcodes of the kernels whose names contain it (tools/gpu/sass-ops.py).
# Usage: gpu-prebuilt-cuda.sh FILTER. Results in $OUT: gpu.txt, tests.txt, bench.txt,
# cuda_c.txt, ncu-*.txt.
set -u
b=build/cuda-spr
filter=${1:?FILTER}
out=${OUT:-$PWD/build/gpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee "$out/gpu.txt"
lscpu | grep -E "Model name|^CPU\(s\)" | tee -a "$out/gpu.txt"
export OMP_PROC_BIND=spread OMP_PLACES=threads
t0=$(date +%s)
timeout 240 bash tools/run-tests.sh $b/tests -- --gtest_filter="${TESTS:-*}" > "$out/tests-full.txt" 2>&1
echo "tests exit $? after $(( $(date +%s) - t0 )) s"
grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" "$out/tests-full.txt" | tee "$out/tests.txt"
gzip -f "$out/tests-full.txt"
medians() {  # unison-bench-cases's medians: case, time, unit
  grep -E "_median" | sed "s#/iterations:[0-9]*/repeats:[0-9]*/manual_time_median##;s#/repeats:[0-9]*/manual_time_median##;s#/manual_time_median##" \
    | awk '{printf "%-62s %10s %s\n", $1, $2, $3}'
}
after=$b/benchmarks/unison-bench-cases
[ -x $b/after/unison-bench-cases ] && after=$b/after/unison-bench-cases
$after --benchmark_filter="$filter" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true > "$out/bench-full.txt" 2>&1
echo "bench exit $?"
medians < "$out/bench-full.txt" | tee "$out/bench.txt"
# AB_FILTER: cases timed in alternation, ROUNDS rounds (default 3) of the earlier tree's binary
# ($b/before/unison-bench-cases) and this one's ($b/after/unison-bench-cases).
if [ -n "${AB_FILTER:-}" ] && [ -x $b/before/unison-bench-cases ]; then
  for round in $(seq "${ROUNDS:-3}"); do
    for which in before after; do
      $b/$which/unison-bench-cases --benchmark_filter="$AB_FILTER" --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true 2>/dev/null | medians | sed "s#^#$round $which #"
    done
  done | tee "$out/ab.txt"
fi
$b/benchmarks/unison-cuda-c ${PARTS:-histogram random matmul} 2>&1 | tee "$out/cuda_c.txt"
if [ -n "${NCU:-}" ]; then
  eval "pairs=$NCU"
  UNISON_BENCH=$after OUT="$out" bash tools/gpu/gpu-ncu.sh "${pairs[@]}"
  # NCU_BEFORE: pairs (as NCU) profiled on the earlier tree's binary too, into $OUT/before/.
  if [ -n "${NCU_BEFORE:-}" ] && [ -x $b/before/unison-bench-cases ]; then
    eval "pairs=$NCU_BEFORE"
    UNISON_BENCH=$b/before/unison-bench-cases OUT="$out/before" bash tools/gpu/gpu-ncu.sh "${pairs[@]}"
  fi
fi
if [ "${NCU_CUB:-0}" = 1 ]; then
  ncu --cache-control none --clock-control none --kernel-name-base demangled -k "regex:Histogram" \
      --launch-skip 4 --launch-count 2 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
      --section Occupancy --section WarpStateStats --section SchedulerStats \
      --metrics smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
      $b/benchmarks/unison-cuda-c histogram > "$out/ncu-cub.txt" 2>&1
  echo "== ncu cub"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|inst_executed|bank_conflicts" "$out/ncu-cub.txt" | head -30
fi
# SASS: the opcodes of the kernels whose names contain SASS (both trees' where there are two).
if [ -n "${SASS:-}" ]; then
  for bin in $b/before/unison-bench-cases $after; do
    [ -x "$bin" ] || continue
    echo "== $bin"
    cuobjdump -sass "$bin" | python3 tools/gpu/sass-ops.py "$SASS"
  done > "$out/sass.txt" 2>&1
fi
# Everything but the short tables in one archive (few files come back from the machine).
(cd "$out" && tar -czf /tmp/results.tar.gz --exclude=bench.txt --exclude=ab.txt \
   --exclude=cuda_c.txt --exclude=sass.txt . && find . -mindepth 1 ! -name bench.txt \
   ! -name ab.txt ! -name cuda_c.txt ! -name sass.txt -delete && mv /tmp/results.tar.gz .)
