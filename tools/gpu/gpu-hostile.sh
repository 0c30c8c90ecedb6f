#!/usr/bin/env bash
# The hostile-input suite on the GPU machine: builds the test programs of test_hostile.cpp (and of
# the test files UNISON_GPU_TESTS names, e.g. "hostile diffusion") and the contraction check, runs every test
# body on every backend, then the Cuda ones under compute-sanitizer's memcheck
# (tools/gpu/gpu-sanitize.sh). Results in OUT (default build/gpu-hostile-out).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export OUT=${OUT:-build/gpu-hostile-out}
mkdir -p "$OUT"
. tools/gpu/gpu-build.sh
UNISON_BLAS_FLAGS="${UNISON_BLAS_FLAGS:-} -DUNISON_ENABLE_BENCHMARKS=OFF"
targets="unison_contraction_check"
for name in ${UNISON_GPU_TESTS:-hostile}; do
  targets+=" unison_tests_${name}_cuda unison_tests_${name}_openmp unison_tests_${name}_serial"
done
gpu_build $targets || exit 1
status=0
OMP_PROC_BIND=false bash tools/run-tests.sh build/cuda/tests > "$OUT/tests.log" 2>&1 || status=1
echo "tests: exit $status"
grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests.log"
OMP_PROC_BIND=false build/cuda/tests/unison_contraction_check > "$OUT/contraction.log" 2>&1 || status=1
echo "contraction check: $(tail -n 1 "$OUT/contraction.log")"
UNISON_SANITIZE_TIMEOUT=${UNISON_SANITIZE_TIMEOUT:-300} UNISON_TESTS=build/cuda/tests/unison_tests_hostile_cuda bash tools/gpu/gpu-sanitize.sh 'Hostile/Cuda.*' memcheck || status=1
exit $status
