#!/usr/bin/env bash
# Device call: the gemm baseline on the host BLAS. Builds unison-bench and the tests of the cuda
# preset (OpenBLAS from .deps/debs), runs the matmul tests on every backend, then the matmul
# suite with its peers (NumPy, CuPy) as unison-bench runs it, and the OpenMP cases again with
# OPENBLAS_CORETYPE=Prescott (the kernels OpenBLAS 0.3.21 falls back to on a CPU it does not
# know), for the comparison in the same run; then the element-wise suite on the CPU backends
# (their temporaries, allocated with huge pages). Results in $OUT. Two calls on one warm machine:
# `gpu-gemm.sh build`, then `gpu-gemm.sh suite` (or `gpu-gemm.sh counting`: the counting suite
# with its peers on every backend). TESTS: the build call's test filter.
set -u
. tools/gpu/gpu-build.sh
if [ "${1:-build}" = build ]; then
gpu_build unison-bench unison_tests || exit 1
build/cuda/tests/unison_tests --gtest_filter="${TESTS:-Matmul/*:MatmulDeterminism/*:RowwiseDeterminism/*.matmul_core}" 2>&1 | tail -4 | tee $OUT/tests.txt
exit 0
fi
mkdir -p build/cuda/share/unison && cp benchmarks/suite/plot.py build/cuda/share/unison/
rm -rf build/cuda/share/unison/peers && cp -r benchmarks/peers build/cuda/share/unison/peers
B=build/cuda/benchmarks/unison-bench
if [ "$1" = counting ]; then  # the counting suite (Monte Carlo, histogram) with its peers, every backend
t0=$(date +%s)
timeout ${T1:-300} $B --workloads=counting --repetitions=3 --no-plots --results-limit=0 --out=/tmp/c1 > $OUT/counting.txt 2> $OUT/counting-progress.txt
echo "counting suite exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/c1/unison_bench.csv $OUT/counting.csv; cp /tmp/c1/peers.csv $OUT/counting-peers.csv 2>/dev/null
cut -c1-200 $OUT/counting.txt
exit 0
fi
t0=$(date +%s)
timeout ${T1:-200} $B --workloads=matmul --repetitions=3 --no-plots --results-limit=0 --out=/tmp/m1 > $OUT/matmul.txt 2> $OUT/matmul-progress.txt
echo "matmul suite exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/m1/unison_bench.csv $OUT/matmul.csv; cp /tmp/m1/peers.csv $OUT/matmul-peers.csv 2>/dev/null
t0=$(date +%s)
OPENBLAS_CORETYPE=Prescott timeout ${T2:-120} $B --workloads=matmul --backends=OpenMP --repetitions=3 --no-peers --no-plots --results-limit=0 --out=/tmp/m2 > $OUT/matmul-prescott.txt 2> $OUT/matmul-prescott-progress.txt
echo "prescott exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/m2/unison_bench.csv $OUT/matmul-prescott.csv
t0=$(date +%s)
timeout ${T3:-200} $B --workloads=elementwise --backends=Serial,OpenMP --repetitions=3 --no-peers --no-plots --results-limit=0 --out=/tmp/e1 > $OUT/elementwise.txt 2> $OUT/elementwise-progress.txt
echo "elementwise exit $? after $(( $(date +%s)-t0 )) s"; cp /tmp/e1/unison_bench.csv $OUT/elementwise.csv
cut -c1-200 $OUT/matmul.txt; grep -E "gemm|BLAS|threads" $OUT/matmul-prescott.txt | cut -c1-200
