#!/usr/bin/env bash
# Device call: why the cuda build's Serial cases run slower than the openmp build's (v9: the
# same FMA loop, 2.5-3x the time). Builds the cuda preset's unison_bench and unison-bench, then
#   1. while the Serial fma case runs, each thread of the process and each CPU of the machine:
#      the CPU time it used over one second (which threads burn a CPU beside the Serial one);
#   2. Serial cases under three OpenMP settings, in turn, three rounds: as set by unison-bench
#      (spread, threads), OMP_WAIT_POLICY=passive (idle OpenMP threads sleep at once), and
#      OMP_NUM_THREADS=1 (no OpenMP threads beside the main one);
#   3. unison-bench's Serial column (elementwise, rowwise, counting, convolve) without and with
#      OMP_WAIT_POLICY=passive.
# Results on stdout and in $OUT.
set -u
. tools/gpu/gpu-build.sh
gpu_build unison_bench unison-bench || exit 1
B=build/cuda/benchmarks/unison_bench
export OMP_PROC_BIND=spread OMP_PLACES=threads
cat > /tmp/threads.py <<'PY'
import os, sys, time
pid = sys.argv[1]
def threads():
    d = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            s = open(f'/proc/{pid}/task/{t}/stat').read()
            f = s[s.rindex(')') + 2:].split()
            d[t] = (s[s.index('(') + 1:s.rindex(')')], int(f[11]) + int(f[12]), int(f[36]))
        except OSError:
            pass
    return d
def cpus():
    return {l.split()[0]: [int(v) for v in l.split()[1:]] for l in open('/proc/stat') if l.startswith('cpu') and l[3] != ' '}
a, ca = threads(), cpus(); time.sleep(1); b, cb = threads(), cpus()
for t in sorted(b, key=int):
    if t in a: print(f"  thread {t:>7} {b[t][0]:16s} on cpu {b[t][2]:2d}: {b[t][1] - a[t][1]:4d} ticks/s")
busy = {c: sum(cb[c][:3]) + sum(cb[c][5:8]) - sum(ca[c][:3]) - sum(ca[c][5:8]) for c in cb}
print("  CPUs busy (ticks/s): " + " ".join(f"{c[3:]}:{v}" for c, v in busy.items()))
PY
echo "== 1. threads while fma/f32/device/Serial runs (100 ticks/s = one CPU)"
$B --benchmark_filter='^fma/f32/device/Serial' --benchmark_repetitions=400 > /dev/null 2>&1 &
pid=$!
sleep 3; python3 /tmp/threads.py $pid; sleep 1; python3 /tmp/threads.py $pid
kill $pid 2>/dev/null; wait $pid 2>/dev/null
cases='^(copy/1e8/device|fma/f32/device|gaussian_pdf/1e8/device|hidden_layer_fused/1e8/device|polar_distance/1e6/device|histogram/f32/1e8/bins100|l2_norm/f32/1000000x2)/Serial'
run() {  # $1: label, then environment settings
  local label=$1; shift
  env "$@" $B --benchmark_filter="$cases" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null \
    | grep median | awk -v l="$label" '{print l, $1, $2, $3}'
}
echo "== 2. Serial cases: median of 3 (ms), three settings in turn"
for round in 1 2 3; do
  echo "-- round $round"
  run spread X=1
  run passive OMP_WAIT_POLICY=passive
  run one_thread OMP_NUM_THREADS=1
done
echo "== 3. unison-bench, Serial column"
for p in default passive; do
  e=X=1; [ $p = passive ] && e=OMP_WAIT_POLICY=passive
  env $e timeout 150 build/cuda/benchmarks/unison-bench --backends=Serial --workloads=elementwise,rowwise,counting,convolve \
    --no-peers --no-plots --out=/tmp/serial-$p > $OUT/serial-$p.txt 2>/dev/null
  echo "$p: exit $?"
done
