#!/usr/bin/env bash
# Device call (issue 22 v14: the CPU loops' prefetch): the cuda preset's unison-bench,
# unison_bench and unison_tests, the unit tests on Serial, OpenMP and Cuda ($OUT/tests.txt),
# then on one core (taskset -c 3) tools/probes/cpu-one-core-probe.cpp (memcpy, the read alone,
# gaussian_pdf's loop with and without prefetch, on 4 KB and 2 MB pages; sine and cosine and
# l2_norm's rows of 2 from L1) and tools/probes/cpu-histogram-probe.cpp on 1 and 16 threads
# ($OUT/probes.txt). The suite follows in a second call: DEFAULT=1 bash tools/gpu/gpu-full-suite.sh suite
set -u
. tools/gpu/gpu-build.sh
gpu_build unison-bench unison_bench unison_tests || exit 1
t0=$(date +%s)
timeout 200 build/cuda/tests/unison_tests > $OUT/tests-full.txt 2>&1
echo "tests exit $? after $(( $(date +%s)-t0 )) s"
grep -E "^\[==========\] [0-9]+ tests|^\[  PASSED|^\[  SKIPPED \] [0-9]+|FAILED" $OUT/tests-full.txt | tee $OUT/tests.txt
gzip -f $OUT/tests-full.txt
{
  g++ -O3 -march=native tools/probes/cpu-one-core-probe.cpp -o /tmp/one -lmvec -lm 2>/dev/null &&
    taskset -c 3 /tmp/one
  g++ -O3 -march=native -fopenmp tools/probes/cpu-histogram-probe.cpp -o /tmp/hist &&
    { OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/hist 1; OMP_PROC_BIND=spread OMP_PLACES=threads /tmp/hist 16; }
} > $OUT/probes.txt 2>&1
cat $OUT/probes.txt
