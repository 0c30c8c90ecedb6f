#!/usr/bin/env bash
# Runs the tests of sizes past 2^31 elements (tests/test_large.cpp) on the GPU machine: element-
# wise functions, the histogram and the convolution (direct and tiled) on N float32 values
# (default 3e9 + 1: 36 GB for add's three arrays, the most any of them holds at once).
#   tools/gpu/gpu-large.sh [N]
# UNISON_TESTS names the test program (default build/cuda/tests/unison_tests_large_cuda; one built on another
# machine can be copied there, with the shared libraries it needs that the GPU machine lacks in build/prebuilt/lib).
set -euo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export LD_LIBRARY_PATH=$PWD/build/prebuilt/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
UNISON_LARGE_TESTS=1 UNISON_LARGE_N=${1:-3000000001} "${UNISON_TESTS:-build/cuda/tests/unison_tests_large_cuda}" \
  --gtest_filter='Large/Cuda.*'
