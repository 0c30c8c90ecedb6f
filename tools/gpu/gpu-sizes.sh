#!/usr/bin/env bash
# On the GPU machine: unison-bench's sweep past the caches (--sizes) and what bounds the diffusion
# there, in three calls on one warm machine:
#   gpu-sizes.sh build   the cuda preset's unison-bench, its two peer programs and the probe
#                        tools/gpu/diffusion-sizes.cpp (OpenBLAS from .deps/debs)
#   gpu-sizes.sh suite   unison-bench --sizes for the diffusion, convolve and histogram, only the
#                        sweep's cases (and the peaks), with their peers; $OUT/sizes/
#   gpu-sizes.sh ncu     Nsight Compute's sections for the probe's kernels at 8192^2 (every
#                        Laplacian, and final only two steps a pass); $OUT/ncu-*.txt
set -u
. "${BASH_SOURCE[0]%/*}/gpu-build.sh"
case "${1:-build}" in
  build)
    UNISON_BLAS_FLAGS="$UNISON_BLAS_FLAGS -DCMAKE_PROJECT_Unison_INCLUDE=$PWD/tools/gpu/diffusion-sizes.cmake" \
      gpu_build unison-bench unison-plain-c unison-cuda-c diffusion-sizes ;;
  suite)
    timeout ${T_SUITE:-560} bash tools/gpu/gpu-suite.sh sizes --sizes \
      --workloads=convolve,diffusion,histogram --filter=/sizes/ --no-plots --results-limit=0
    tail -4 "$OUT/sizes/table.txt" ;;
  ncu)
    for which in every final; do
      # The automatic form alone: the every-step strip kernel, the two-step final-only one.
      kernel="DiffusionStrips<"
      [ $which = final ] && kernel=DiffusionStripsTwoSteps
      LAB_SIZES=8192 PROBE_SPACE=cuda PROBE_ONLY=$which timeout 240 ncu --cache-control none \
        --clock-control none --kernel-name-base demangled -k "regex:$kernel" \
        --launch-skip 20 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section MemoryWorkloadAnalysis_Chart --section LaunchStats --section Occupancy \
        --section WarpStateStats --section SchedulerStats build/cuda/diffusion-sizes \
        > "$OUT/ncu-$which.txt" 2>&1
      echo "== $which: exit $?"
      grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Registers Per|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\)|Issued Ipc|No Eligible|Stall|Executed Ipc" \
        "$OUT/ncu-$which.txt" | head -30
    done ;;
esac
