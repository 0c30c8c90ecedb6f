#!/usr/bin/env bash
# The GPU machine's whole job in one run (see docs/developing.md, "On a GPU machine without network access"):
# build the cuda preset from the archives in .deps/, run the test suite on every backend
# (Cuda included), run the benchmarks and the Numba/CuPy peers, and leave logs and JSON in $OUT.
# Usage (from the repository root): [PEERS="stencil matmul"] tools/gpu/gpu-run.sh [benchmark filter regex | --tests-only]
set -uo pipefail
out=${OUT:-$PWD/build/gpu-out}
mkdir -p "$out"
filter=${1:-.}
export UNISON_DEPS_DIR=$PWD/.deps
export CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee "$out/gpu.txt"

. tools/gpu/gpu-openblas.sh  # OpenBLAS under the OpenMP backend's GEMM, when .deps/debs has it
t0=$(date +%s)
{ cmake --preset cuda -DUNISON_WARNINGS_AS_ERRORS=OFF $UNISON_BLAS_FLAGS && cmake --build --preset cuda; } > "$out/build.log" 2>&1
status=$?
echo "build: exit $status after $(( $(date +%s) - t0 )) s"
if [ $status -ne 0 ]; then tail -60 "$out/build.log"; exit $status; fi

ctest --preset cuda 2>&1 | tee "$out/tests.log" | tail -15
bash tools/run-tests.sh build/cuda/tests 'unison_tests_*_cuda' > "$out/tests-cuda-detail.log" 2>&1
[ "$filter" = "--tests-only" ] && exit 0

OMP_PROC_BIND=spread OMP_PLACES=threads build/cuda/benchmarks/unison-bench-cases \
  --benchmark_filter="$filter" --benchmark_out="$out/unison_bench.json" --benchmark_out_format=json \
  > "$out/bench.log" 2>&1
echo "bench: exit $?"
grep -E "_median" "$out/bench.log" | grep -E "Cuda|OpenMP" | sed "s#/iterations:3/repeats:5/manual_time_median##" \
  | awk '{printf "%-58s %10s %s  %s\n", $1, $2, $3, $6}'

# PEERS: which peer scripts to run (benchmarks/peers/<name>_peers.py), all by default, on the
# cases of unison-bench's default run (its manifest).
build/cuda/benchmarks/unison-bench --list --json > "$out/manifest.json"
export UNISON_BENCH_MANIFEST=$out/manifest.json
for peer in ${PEERS-elementwise stencil matmul rowwise random histogram}; do
  PYTHONUNBUFFERED=1 python3 benchmarks/peers/${peer}_peers.py 2>&1 | tee "$out/peers-$peer.log"
done
