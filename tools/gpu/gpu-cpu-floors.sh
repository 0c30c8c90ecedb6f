#!/usr/bin/env bash
# On the GPU machine's CPU: what one core and 16 cores reach with plain C loops,
# beside the library's Serial and OpenMP kernels, in one call on one machine.
#   1. one core (taskset -c 3): unison-bench-cases's Serial copy (Kokkos::deep_copy: memcpy), the
#      element-wise, convolve and histogram cases, then unison-plain-c's loops on one OpenMP
#      thread (its copy is a loop with plain stores);
#   2. 16 cores (OMP_PROC_BIND=spread OMP_PLACES=threads): the OpenMP copy and histogram, 10
#      repetitions, and unison-plain-c's.
# (The histogram's counting step alone was timed by tools/probes/cpu-histogram-probe.cpp, which
# is in the git history at commit 8b34b4f.)
# Output in $OUT: floors.txt.
set -u
. tools/gpu/gpu-build.sh
gpu_build unison-bench-cases unison-plain-c || exit 1
B=build/cuda/benchmarks
R="--benchmark_repetitions=5 --benchmark_report_aggregates_only=true"
one='(copy/1e8|gaussian_pdf/1e8|hidden_layer_fused/1e8|convolve/valid/f32/1e8/taps5/direct|histogram/f32/1e8/bins100|l2_norm/f32/1000000x2|rgb_to_grayscale/u8)/.*Serial'
{
  echo "== one core: unison-bench-cases Serial"
  OMP_NUM_THREADS=1 taskset -c 3 $B/unison-bench-cases --benchmark_filter="$one" $R 2>&1 |
    grep -E "_median" | awk '{print $1, $2, $3}'
  echo "== one core: unison-plain-c, one OpenMP thread"
  OMP_NUM_THREADS=1 taskset -c 3 $B/unison-plain-c elementwise convolve histogram 2>&1
  echo "== 16 cores: unison-bench-cases OpenMP, 10 repetitions"
  OMP_PROC_BIND=spread OMP_PLACES=threads $B/unison-bench-cases \
    --benchmark_filter='(copy/1e8|histogram/f32/1e8/bins100)/.*OpenMP' \
    --benchmark_repetitions=10 --benchmark_report_aggregates_only=true 2>&1 |
    grep -E "_median|_cv" | awk '{print $1, $2, $3}'
  echo "== 16 cores: unison-plain-c"
  OMP_PROC_BIND=spread OMP_PLACES=threads $B/unison-plain-c elementwise histogram 2>&1
} > $OUT/floors.txt
cat $OUT/floors.txt
