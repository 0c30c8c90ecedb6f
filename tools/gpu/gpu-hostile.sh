#!/usr/bin/env bash
# The hostile-input suite on the GPU machine: builds unison_tests from test_hostile.cpp (and the
# test files UNISON_GPU_TEST_FILES names, ;-separated) and the contraction check, runs every test
# body on every backend, then the Cuda ones under compute-sanitizer's memcheck
# (tools/gpu/gpu-sanitize.sh). Results in OUT (default build/gpu-hostile-out).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export OUT=${OUT:-build/gpu-hostile-out}
mkdir -p "$OUT"
. tools/gpu/gpu-build.sh
UNISON_BLAS_FLAGS="${UNISON_BLAS_FLAGS:-} -DUNISON_ENABLE_BENCHMARKS=OFF"
UNISON_BLAS_FLAGS+=" -DUNISON_TEST_FILES=${UNISON_GPU_TEST_FILES:-test_hostile.cpp}"
gpu_build unison_tests unison_contraction_check || exit 1
status=0
OMP_PROC_BIND=false build/cuda/tests/unison_tests > "$OUT/tests.log" 2>&1 || status=1
echo "tests: exit $status"
grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests.log"
OMP_PROC_BIND=false build/cuda/tests/unison_contraction_check > "$OUT/contraction.log" 2>&1 || status=1
echo "contraction check: $(tail -n 1 "$OUT/contraction.log")"
UNISON_SANITIZE_TIMEOUT=${UNISON_SANITIZE_TIMEOUT:-300} bash tools/gpu/gpu-sanitize.sh 'Hostile/Cuda.*' memcheck || status=1
exit $status
