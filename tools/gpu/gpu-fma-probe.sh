#!/usr/bin/env bash
# Device call, after `gpu-full-suite.sh build`: the suite's FMA peak case (fma/f32/device) on
# Serial as the cuda preset builds it (host code through nvcc) and as the openmp preset builds it
# (g++ alone), three times each in turn, beside tools/probes/cpu-smt-probe.cpp (one thread of 12
# FMA chains on CPU 0: the core's FMA rate) in the same call. Results on stdout.
set -u
. tools/gpu/gpu-build.sh
{ cmake --build --preset cuda --target unison_bench \
  && cmake --preset openmp $UNISON_BLAS_FLAGS && cmake --build --preset openmp --target unison_bench; } > "$OUT/fma-build.log" 2>&1 \
  || { tail -20 "$OUT/fma-build.log"; exit 1; }
g++ -O2 -march=native -ffp-contract=fast -pthread tools/probes/cpu-smt-probe.cpp -o /tmp/smt || exit 1
fma() {  # $1: the preset
  OMP_PROC_BIND=spread OMP_PLACES=threads build/$1/benchmarks/unison_bench --benchmark_filter='^fma/f32/device/(Serial|OpenMP)' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median" | sed "s|^|$1 |"
}
for round in 1 2 3; do
  echo "== round $round"
  fma cuda; fma openmp
  /tmp/smt | head -1
done
