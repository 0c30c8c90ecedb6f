#!/usr/bin/env bash
# Nsight Compute on the GPU machine, after tools/gpu/gpu-run.sh has built build/cuda: a few steps
# of each named benchmark case, profiled without flushing or locking anything (the L2 keeps what
# the previous kernel left, as in the timed runs; clocks as found). Writes $OUT/ncu-<n>.txt.
# Usage: tools/gpu/gpu-ncu.sh 'benchmark filter' 'kernel regex' [more pairs...]
# NCU_SKIP (default 40): launches of the kernel skipped first; NCU_COUNT (default 3): launches measured.
set -uo pipefail
out=${OUT:-$PWD/build/gpu-out}
mkdir -p "$out"
bench=${UNISON_BENCH:-build/cuda/benchmarks/unison-bench-cases}  # (another build: UNISON_BENCH=path)
n=0
while [ $# -ge 2 ]; do
  n=$((n + 1))
  # Metrics that fit one pass (so a replay does not disturb the L2), then the full sections.
  ncu --cache-control none --clock-control none --kernel-name-base demangled -k "regex:$2" \
      --launch-skip ${NCU_SKIP:-40} --launch-count ${NCU_COUNT:-3} \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum \
      $bench --benchmark_filter="$1" --benchmark_repetitions=1 > "$out/ncu-$n.txt" 2>&1
  ncu --cache-control none --clock-control none --kernel-name-base demangled -k "regex:$2" \
      --launch-skip ${NCU_SKIP:-40} --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
      --section Occupancy --section WarpStateStats --section SchedulerStats \
      $bench --benchmark_filter="$1" --benchmark_repetitions=1 >> "$out/ncu-$n.txt" 2>&1
  echo "== ncu $n: $1 ($2)"
  grep -E "gpu__time_duration|dram__bytes|lts__t_sector_hit|srcunit_tex|inst_executed|bank_conflicts|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|Driver Shared|Memory Throughput|DRAM Throughput|Duration|Stall" "$out/ncu-$n.txt" | head -60
  shift 2
done
