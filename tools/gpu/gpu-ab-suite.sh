#!/usr/bin/env bash
# On the GPU machine: unison-bench's default run of two trees' CPU backends, one after the other on
# the same machine, without building there. The binaries are built on another machine (the
# openmp preset with -DUNISON_HOST_ARCH=sapphirerapids) and copied to build/ab/before/ and
# build/ab/after/ (each: unison-bench); OpenBLAS comes from .deps/debs (tools/gpu/gpu-openblas.sh),
# and build/ab/lib/ may hold other shared libraries the GPU machine lacks.
#   gpu-ab-suite.sh ORDER...   runs unison-bench of each tree named, in that order (before,
#                              after), --backends=serial,openmp --no-peers --no-plots (W: a
#                              comma-separated list of workload families instead of all)
# Results in $OUT: <n>-<tree>.csv (the run's unison_bench.csv), and machine.txt with the seconds
# each run took and the end of its output. tools/compare-runs.py compares the CSVs.
set -u
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"  # OpenBLAS from .deps/debs, where the binaries link it
export LD_LIBRARY_PATH=$PWD/build/ab/lib:${LD_LIBRARY_PATH:-}
export OMP_PROC_BIND=spread OMP_PLACES=threads
lscpu | grep -E "Model name|^CPU\(s\)|L3" | tee "$OUT/machine.txt"
n=0
for which in "$@"; do
  n=$((n + 1))
  t0=$(date +%s)
  timeout ${T_RUN:-290} build/ab/$which/unison-bench --backends=serial,openmp --no-peers --no-plots \
    --results-limit=0 ${W:+--workloads=$W} --out=/tmp/ab-$n > /tmp/ab-$n.txt 2>&1
  echo "$n $which: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/machine.txt"
  tail -3 /tmp/ab-$n.txt >> "$OUT/machine.txt"
  cp /tmp/ab-$n/unison_bench.csv "$OUT/$n-$which.csv" 2>/dev/null
done
