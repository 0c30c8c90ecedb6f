#!/usr/bin/env bash
# The asynchronous promise on the GPU machine, in two runs on the same machine:
#   gpu-async.sh build      the cuda preset's unison_tests and unison-bench-cases (from .deps), then
#                           every test on Serial, OpenMP and Cuda (at most T_TESTS seconds), and
#                           the overlap benchmark: N small problems (diffusions, matmul-reduces)
#                           on N instances against one instance, every backend
#                           (OMP_PROC_BIND=spread OMP_PLACES=threads)
#   gpu-async.sh sanitize   compute-sanitizer's racecheck and synccheck over the Cuda instance
#                           and concurrency tests, and racecheck over Matmul/Cuda.seed_size at
#                           UNISON_MATMUL_SIZE (default "2000 1000 1400"); S_TIMEOUT: seconds
#                           per tool (default 200)
#   gpu-async.sh all        both in one call (a fresh machine), the overlap benchmark last, also
#                           without OMP_PROC_BIND
# Results in $OUT: tests.txt (tests-full.txt.gz), overlap-bound.txt, overlap-unbound.txt (all), build.log; sanitize-*.txt.
set -u
overlap() {  # the overlap benchmark into $OUT/overlap$1.txt
  timeout 120 build/cuda/benchmarks/unison-bench-cases --benchmark_filter='overlap' \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $OUT/overlap$1.txt 2>&1
  echo "overlap benchmark$1 exit $?"
  grep -E "overlap.*median" $OUT/overlap$1.txt | sed 's/iterations:3.repeats:5.manual_time_//'
}
if [ "${1:-build}" = all ]; then
  . tools/gpu/gpu-build.sh
  gpu_build unison_tests unison-bench-cases || exit 1
  timeout 60 bash tools/run-tests.sh build/cuda/tests -- --gtest_filter='*Instance/*:Concurrency*:*Labels/*' > $OUT/tests.txt 2>&1
  echo "instance and concurrency tests exit $?"; grep -E "^\[  (PASSED|FAILED)" $OUT/tests.txt
  S_TIMEOUT=${S_TIMEOUT:-60} bash tools/gpu/gpu-async.sh sanitize
  OMP_PROC_BIND=spread OMP_PLACES=threads overlap -bound
  overlap -unbound
  exit 0
fi
if [ "${1:-build}" = build ]; then
  . tools/gpu/gpu-build.sh
  gpu_build unison_tests unison-bench-cases || exit 1
  t0=$(date +%s)
  timeout ${T_TESTS:-200} bash tools/run-tests.sh build/cuda/tests > $OUT/tests-full.txt 2>&1
  echo "tests exit $? after $(( $(date +%s)-t0 )) s"
  grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]" $OUT/tests-full.txt | tail -20 | tee $OUT/tests.txt
  gzip -f $OUT/tests-full.txt
  OMP_PROC_BIND=spread OMP_PLACES=threads overlap ""
  exit 0
fi
status=0
for tool in racecheck synccheck; do
  OUT=/tmp/s-$tool UNISON_SANITIZE_TIMEOUT=${S_TIMEOUT:-200} bash tools/gpu/gpu-sanitize.sh \
    '*Instance/Cuda.*:Concurrency/Cuda.*' $tool || status=1
  cp /tmp/s-$tool/sanitize/summary.txt $OUT/sanitize-$tool.txt
done
UNISON_MATMUL_SIZE=${UNISON_MATMUL_SIZE:-"2000 1000 1400"} OUT=/tmp/s-matmul UNISON_SANITIZE_TIMEOUT=${S_TIMEOUT:-200} \
  bash tools/gpu/gpu-sanitize.sh 'Matmul/Cuda.seed_size' racecheck || status=1
cp /tmp/s-matmul/sanitize/summary.txt $OUT/sanitize-matmul-racecheck.txt
grep -h "matmul_reduce at" /tmp/s-matmul/sanitize/racecheck.tests.log >> $OUT/sanitize-matmul-racecheck.txt
tail -n 3 /tmp/s-*/sanitize/*.log | tail -40 > $OUT/sanitize-logs.txt
cat $OUT/sanitize-*.txt
exit $status
