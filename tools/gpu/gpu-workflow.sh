#!/usr/bin/env bash
# The cuda-bench workflow as a user runs it, on the GPU machine, from the working tree: the
# cuda preset configured with OpenBLAS from .deps/debs, then `cmake --workflow --preset
# cuda-bench` (build, and unison-bench's default run with its peers through the `bench` target).
# Results in $OUT (default build/gpu-workflow-out): workflow.txt (all it printed), the table's
# lines above 1.05 (over.txt), the JSON, the CSVs, the report and its plots (report.tar.gz), and
# the peers' logs. T_WORKFLOW: a time limit in seconds for the workflow (default none).
set -u
OUT=${OUT:-$PWD/build/gpu-workflow-out}
mkdir -p "$OUT"
. "${BASH_SOURCE[0]%/*}/gpu-build.sh"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core" | tee "$OUT/machine.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/machine.txt"
t0=$(date +%s)
cmake --preset cuda $UNISON_BLAS_FLAGS > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
timeout "${T_WORKFLOW:-0}" cmake --workflow --preset cuda-bench > "$OUT/workflow.txt" 2>&1
echo "workflow exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/workflow.txt"
o=build/cuda/unison-bench-out
cp $o/unison_bench.json $o/unison_bench.csv $o/peers.csv "$OUT/" 2>/dev/null
(cd $o && tar -czf "$OUT/report.tar.gz" report.html *.png peers 2>/dev/null)
grep -nE "[0-9]\.[0-9]{2} of (L2|L3|DRAM|FMA)" "$OUT/workflow.txt" | awk '{for(i=1;i<=NF;i++) if($(i+1)=="of" && $i+0>1.05) print}' > "$OUT/over.txt"
echo "fractions above 1.05: $(wc -l < "$OUT/over.txt")"; cat "$OUT/over.txt"
grep -E "checks|CPUs:|OpenMP threads" "$OUT/workflow.txt" | tail -4
