#!/usr/bin/env bash
# Device call: build the cuda preset here (16 cores, warnings as errors, AVX-512 host code),
# run the tests on every backend, the vector math's exhaustive ULP scan, OpenBLAS's core types.
set -u
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
. tools/gpu/gpu-openblas.sh
lscpu | grep -E "Model name|^CPU\(s\)|L2|L3" ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
{ cmake --preset cuda $UNISON_BLAS_FLAGS && cmake --build --preset cuda; } > $OUT/build.log 2>&1; st=$?
echo "build exit $st after $(( $(date +%s)-t0 )) s"
if [ $st -ne 0 ]; then grep -m3 -B2 -A12 "error" $OUT/build.log; exit 1; fi
t0=$(date +%s)
ctest --preset cuda 2>&1 | tail -12 | tee $OUT/tests.log
echo "tests after $(( $(date +%s)-t0 )) s"
t0=$(date +%s)
OMP_PROC_BIND=spread OMP_PLACES=threads timeout 120 build/cuda/tests/unison_ulp_scan 1 2>&1 | grep -v WARN | tee $OUT/ulp-avx512.txt
echo "ulp after $(( $(date +%s)-t0 )) s"
cd .probe 2>/dev/null || exit 0; echo "== openblas core (the probe bp, built from tools/probes/cpu-blas-threads-probe.cpp into .probe/)"
for c in "" SkylakeX Cooperlake Haswell; do echo "-- OPENBLAS_CORETYPE=$c"; OPENBLAS_CORETYPE=$c OPENBLAS_VERBOSE=2 timeout 30 ./bp 2>&1 | head -4; done
