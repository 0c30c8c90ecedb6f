#!/usr/bin/env bash
# Device call: a few unison_bench cases of this tree and of an earlier one (.deps/before.tar,
# made with `git archive REV -o .deps/before.tar`), built in one call and timed in alternation.
#   gpu-ab-cases.sh FILTER [ROUNDS]   FILTER: unison_bench's --benchmark_filter (default: the
#                                     CPU convolutions with 5 and 33 taps, the grayscales and
#                                     copy); ROUNDS rounds of (before, after), 5 repetitions each
# Builds both unison_bench binaries (the cuda preset), runs this tree's unit tests on Serial,
# OpenMP and Cuda ($OUT/tests.txt), then the rounds ($OUT/ab.txt: "before|after case median").
set -u
root=$PWD
filter=${1:-'^(copy/1e8/device|convolve/valid/f32/1e8/taps5/(direct|tiled)|convolve/valid/f32/1e7/taps33/tiled|rgb_to_grayscale/(u8|f32)/4000x3000)/(Serial|OpenMP)'}
rounds=${2:-2}
. tools/gpu/gpu-build.sh
gpu_build unison_bench unison_tests || exit 1
rm -rf /tmp/before && mkdir -p /tmp/before && tar -xf .deps/before.tar -C /tmp/before
ln -s "$root/.deps" /tmp/before/.deps
(cd /tmp/before && mkdir -p "$OUT/before" && OUT="$OUT/before" bash -c \
  ". '$root/tools/gpu/gpu-build.sh' && gpu_build unison_bench") || exit 1
timeout 200 build/cuda/tests/unison_tests > $OUT/tests-full.txt 2>&1
echo "tests exit $?"
grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" $OUT/tests-full.txt | tee $OUT/tests.txt
gzip -f $OUT/tests-full.txt
for round in $(seq "$rounds"); do
  for which in before after; do
    b=build/cuda/benchmarks/unison_bench
    [ "$which" = before ] && b=/tmp/before/build/cuda/benchmarks/unison_bench
    OMP_PROC_BIND=spread OMP_PLACES=threads $b --benchmark_filter="$filter" \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null |
      grep _median | awk -v w=$which -v r=$round '{print r, w, $1, $2, $3}'
  done
done | tee $OUT/ab.txt
