#!/usr/bin/env bash
# Device call: the 8-bit grayscale with and without AVX-512 VBMI's byte permutes, in one call.
# Builds the cuda preset's unison_bench, then a second binary whose counting cases
# (bench_counting.cpp) are compiled with -mno-avx512vbmi (the row loop one pixel at a time),
# and times copy and rgb_to_grayscale (u8, f32) on Serial and OpenMP with each binary in turn,
# three rounds. Results on stdout.
set -u
. tools/gpu/gpu-build.sh
gpu_build unison_bench || exit 1
cd build/cuda
compile=$(ninja -t commands benchmarks/unison_bench | grep -m1 -e "-c [^ ]*bench_counting.cpp")
eval "$(echo "$compile" | sed -e 's| -o benchmarks/CMakeFiles/unison_bench_cases.dir/bench_counting.cpp.o| -Xcompiler=-mno-avx512vbmi -o /tmp/counting_novbmi.o|')" || exit 1
link=$(ninja -t commands benchmarks/unison_bench | tail -1)
eval "$(echo "$link" | sed -e 's|benchmarks/CMakeFiles/unison_bench_cases.dir/bench_counting.cpp.o|/tmp/counting_novbmi.o|' \
  -e 's|-o benchmarks/unison_bench|-o /tmp/unison_bench_novbmi|' -e 's|^: && ||' -e 's|&& :$||')" || exit 1
cd ../..
for round in 1 2 3; do
  for b in build/cuda/benchmarks/unison_bench /tmp/unison_bench_novbmi; do
    OMP_PROC_BIND=spread OMP_PLACES=threads $b --benchmark_filter='^(copy/1e8/device|rgb_to_grayscale/(u8|f32)/4000x3000)/(Serial|OpenMP)' \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | grep median | sed "s|^|$(basename $b) |"
  done
done
