#!/usr/bin/env bash
# unison-bench's OpenMP figures under the thread-placement environments users set, on a GPU
# machine's CPU (the cuda preset already built in build/cuda): for each environment, the header's
# CPU and thread lines and the OpenMP copy and gaussian_pdf of 1e8 (median of 5). Prints a table;
# the logs go to $OUT/threads-<label, letters and digits>.txt (the first 8 come back).
#   gpu-threads.sh            every environment below
set -u
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
bench=build/cuda/benchmarks/unison-bench
fake=/tmp/unison-fake-cgroup
mkdir -p $fake && echo "800000 100000" > $fake/cpu.max  # a limit of 8 CPUs' time
args=(--workloads=elementwise --backends=openmp --no-peers --no-plots --no-checks --repetitions=5
      "--filter=^(gaussian_pdf/1e8/device)/")
run() {  # label, then the command's prefix (env settings, taskset)
  local label=$1; shift
  local name
  name=$(printf '%s' "$label" | tr -c 'A-Za-z0-9' '_' | cut -c1-40)
  env -u OMP_PROC_BIND -u OMP_PLACES -u OMP_NUM_THREADS -u OPENBLAS_CORETYPE "$@" \
    $bench "${args[@]}" --out=/tmp/threads-$name > $OUT/threads-$name.txt 2>&1
  local st=$?
  local cpus threads copy gauss
  cpus=$(grep -m1 "^CPUs: " $OUT/threads-$name.txt | sed 's/ available.*//; s/CPUs: //')
  threads=$(grep -m1 "^OpenMP threads: " $OUT/threads-$name.txt | awk '{print $3}')
  copy=$(grep -m1 "^  copy/1e8/device " $OUT/threads-$name.txt | awk '{print $2, $3}')
  gauss=$(grep -m1 "^  gaussian_pdf/1e8/device " $OUT/threads-$name.txt | awk '{print $2, $3}')
  printf '| %-44s | %4s | %4s | %-10s | %-10s | %s |\n' "$label" "$cpus" "$threads" "$copy" "$gauss" \
    "$(grep -c '^WARNING' $OUT/threads-$name.txt) warning, exit $st"
}
printf '| %-44s | %4s | %4s | %-10s | %-10s | %s |\n' environment CPUs thr "copy 1e8" "gauss 1e8" notes
run "nothing set (unison-bench places the threads)"
run "OMP_PROC_BIND=spread OMP_PLACES=threads" OMP_PROC_BIND=spread OMP_PLACES=threads
run "OMP_PROC_BIND=true" OMP_PROC_BIND=true
run "OMP_PROC_BIND=close OMP_PLACES=cores" OMP_PROC_BIND=close OMP_PLACES=cores
run "OMP_NUM_THREADS=16" OMP_NUM_THREADS=16
run "OMP_PROC_BIND=spread OPENBLAS_CORETYPE=SkylakeX" OMP_PROC_BIND=spread OPENBLAS_CORETYPE=SkylakeX
run "taskset -c 0-15 OMP_PROC_BIND=spread" taskset -c 0-15 env OMP_PROC_BIND=spread
run "taskset -c 0-7 OMP_PROC_BIND=spread" taskset -c 0-7 env OMP_PROC_BIND=spread
run "a cgroup limit of 8 CPUs (fake cgroup folder)" UNISON_BENCH_CGROUP_ROOT=$fake
