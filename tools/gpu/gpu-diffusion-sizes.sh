#!/usr/bin/env bash
# On the GPU machine: the probe tools/gpu/diffusion-sizes.cpp (unison::diffuse at 2000^2 to
# 16384^2 in every form, beside a copy of one field and a naive CUDA C kernel), built alone in
# the cuda preset (no tests, no benchmarks: under a minute on 16 cores) and run.
# On the GPU (Cuda) and on the CPU's cores (OpenMP, beside a plain C loop); PROBE_SPACES picks
# them (default "cuda openmp"), LAB_SIZES=8192,16384 the sizes. Results in
# $OUT/diffusion-sizes-<space>.txt.
set -u
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
mkdir -p "$OUT"
t0=$(date +%s)
cmake --preset cuda -DUNISON_ENABLE_TESTS=OFF -DUNISON_ENABLE_BENCHMARKS=OFF \
  -DCMAKE_PROJECT_Unison_INCLUDE="$PWD/tools/gpu/diffusion-sizes.cmake" > "$OUT/config.log" 2>&1 ||
  { tail -30 "$OUT/config.log"; exit 1; }
cmake --build build/cuda --target diffusion-sizes > "$OUT/build.log" 2>&1 ||
  { grep -m5 -A10 error "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)"
export OMP_PROC_BIND=spread OMP_PLACES=threads
for space in ${PROBE_SPACES:-cuda openmp}; do
  PROBE_SPACE=$space build/cuda/diffusion-sizes 2>&1 | tee "$OUT/diffusion-sizes-$space.txt"
done
