#!/usr/bin/env bash
# The whole suite on the GPU machine, in two runs on the same machine:
#   gpu-full-suite.sh build   the cuda preset from .deps (OpenBLAS from .deps/debs), then the
#                             tests on Serial, OpenMP and Cuda (TESTS: a gtest filter; default
#                             every test; at most T_TESTS seconds)
#   gpu-full-suite.sh suite   unison-bench: every workload on every backend with its peers
#                             (Numba CPU and CUDA, NumPy, CuPy), 3 repetitions, the plots
#                             (W: a comma-separated list of workload families instead;
#                             DEFAULT=1: unison-bench's default, time-budgeted run instead of
#                             --full --repetitions=3; B: a build folder carried from another
#                             machine instead of build/cuda, e.g. the cuda preset configured
#                             with -DUNISON_HOST_ARCH=sapphirerapids, targets unison-bench and
#                             unison-bench-cases)
# Results in $OUT: table.txt, progress.txt, the CSVs, report.html with the figures, the JSON and
# the rooflines' data in report.tar.gz, and everything else in run.tar.gz.
set -u
. "${BASH_SOURCE[0]%/*}/gpu-build.sh"
if [ "${1:-build}" = build ]; then
  gpu_build unison-bench unison_tests || exit 1
  t0=$(date +%s)
  timeout ${T_TESTS:-200} bash tools/run-tests.sh build/cuda/tests -- --gtest_filter="${TESTS:-*}" > $OUT/tests-full.txt 2>&1
  echo "tests exit $? after $(( $(date +%s)-t0 )) s"
  grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]" $OUT/tests-full.txt | tail -12 | tee $OUT/tests.txt
  gzip -f $OUT/tests-full.txt
  exit 0
fi
b=${B:-build/cuda}
mkdir -p $b/share/unison && cp apps/unison-bench/plot.py $b/share/unison/
rm -rf $b/share/unison/peers && cp -r benchmarks/peers $b/share/unison/peers
python3 -c "import numba, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__)"
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core") > $OUT/machine.txt
t0=$(date +%s)
mode="--full --repetitions=3"
[ "${DEFAULT:-0}" = 1 ] && mode=""
PYTHONUNBUFFERED=1 timeout ${T_SUITE:-570} $b/benchmarks/unison-bench --out=/tmp/run ${W:+--workloads=$W} $mode --results-limit=0 > $OUT/table.txt 2> $OUT/progress.txt
echo "unison-bench $mode ${W:+--workloads=$W}: exit $? after $(( $(date +%s)-t0 )) s" | tee -a $OUT/table.txt
cp /tmp/run/unison_bench.csv /tmp/run/peers.csv $OUT/ 2>/dev/null
tar -C /tmp/run -czf $OUT/run.tar.gz . 2>/dev/null
# The page and its plots apart (run.tar.gz, with the .npy results, can be too large to come back).
(cd /tmp/run && tar -czf $OUT/report.tar.gz report.html *.svg *.png unison_bench.json unison_bench.csv ceilings.csv plotted.json peers 2>/dev/null)
grep -E "peers|checks" $OUT/table.txt | tail -3
