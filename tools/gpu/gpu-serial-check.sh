#!/usr/bin/env bash
# Device call: the Serial FMA case after the change that keeps its chains in registers, beside
# the same kernels on OpenMP with one thread (the same core, the same code, another caller);
# the loops with vector stores to the stack in the FmaChains code (tools/loop-spills.py); and
# tools/probes/cpu-histogram-probe.cpp on 1 and 16 threads. Results on stdout.
set -u
. tools/gpu/gpu-build.sh
gpu_build unison_bench unison-bench || exit 1
B=build/cuda/benchmarks/unison_bench
export OMP_PROC_BIND=spread OMP_PLACES=threads
echo "== FMA loops with vector stores to the stack (none expected)"
objdump -d -C --no-show-raw-insn $B | python3 tools/loop-spills.py | grep -iE "fma|such loops"
echo "== Serial against OpenMP on one thread (median of 3)"
cases='^(copy/1e8/device|fma/f32/device|gaussian_pdf/1e8/device|hidden_layer_fused/1e8/device|hidden_layer_separate/1e8/device|polar_distance/1e6/device|histogram/f32/1e8/bins100|l2_norm/f32/10000x1000|convolve/valid/f32/1e7/taps257/direct)/(Serial|OpenMP)'
for round in 1 2; do
  OMP_NUM_THREADS=1 $B --benchmark_filter="$cases" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null \
    | grep median | awk '{print $1, $2, $3, $6, $7}'
done
echo "== histogram probe"
g++ -O3 -march=native -fopenmp tools/probes/cpu-histogram-probe.cpp -o /tmp/hist && { /tmp/hist 1; /tmp/hist 16; /tmp/hist 1; }
