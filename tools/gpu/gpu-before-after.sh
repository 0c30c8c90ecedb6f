#!/usr/bin/env bash
# A behaviour-preserving change on the GPU machine: this tree and an earlier one, built and run on
# the same machine, one after the other. The earlier tree comes as .deps/before.tar (made with
# `git archive REV -o .deps/before.tar` and copied with the dependency archives).
#   gpu-before-after.sh build    the cuda preset's unison-bench, unison-bench-cases and unison_tests of
#                                this tree (build/cuda), then unison-bench of the earlier one
#                                (/tmp/before/build/cuda), then this tree's unit
#                                tests on Serial, OpenMP and Cuda ($OUT/tests.txt)
#   gpu-before-after.sh suite X  unison-bench's default run of X (before or after) with the peers,
#                                into $OUT/X/ (this tree's tools/gpu/gpu-full-suite.sh suite, run
#                                in X's folder)
set -u
root=$PWD
if [ "${1:-build}" = build ]; then
  . tools/gpu/gpu-build.sh
  gpu_build unison-bench unison-bench-cases unison_tests || exit 1
  rm -rf /tmp/before && mkdir -p /tmp/before && tar -xf .deps/before.tar -C /tmp/before
  ln -s "$root/.deps" /tmp/before/.deps
  # (with this tree's build script: the earlier tree may keep its scripts elsewhere)
  (cd /tmp/before && mkdir -p "$OUT/before" && OUT="$OUT/before" bash -c \
    ". '$root/tools/gpu/gpu-build.sh' && gpu_build unison-bench") || exit 1
  t0=$(date +%s)
  timeout 200 bash tools/run-tests.sh build/cuda/tests > $OUT/tests-full.txt 2>&1
  echo "tests exit $? after $(( $(date +%s)-t0 )) s"
  grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" $OUT/tests-full.txt | tee $OUT/tests.txt
  gzip -f $OUT/tests-full.txt
  exit 0
fi
which=${2:?before or after}
dir=$root
[ "$which" = before ] && dir=/tmp/before
mkdir -p "$OUT/$which"
cd "$dir" && DEFAULT=1 OUT="$OUT/$which" bash "$root/tools/gpu/gpu-full-suite.sh" suite
