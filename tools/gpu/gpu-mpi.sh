#!/usr/bin/env bash
# Unison::mpi on the GPU machine (one rank per GPU): the MPI tests on 1, 2 and 4 ranks (as many as
# the machine has GPUs), the scaling benchmark (unison_mpi_bench) on 1, 2 and 4 ranks, and the
# GPU timelines of one halo exchange period on every rank (tools/timeline/).
# Binaries are built on the development machine (the cuda preset's build folder, configured with
# -DUNISON_ENABLE_MPI=ON -DUNISON_HOST_ARCH=sapphirerapids against Debian's Open MPI 4.1, whose
# libmpi.so.40 the GPU machine's Ubuntu Open MPI 4.1.6 provides) and copied into the GPU
# machine's working tree at the same paths ($BUILD/tests/unison_mpi_tests,
# $BUILD/benchmarks/unison_mpi_bench), with OpenBLAS in .deps/debs (tools/gpu/gpu-openblas.sh);
# run on a machine of 4 GPUs:
#   BUILD=build/cuda bash tools/gpu/gpu-mpi.sh
# BENCH_FILTER=REGEX limits the benchmark cases; TIMELINES=0 skips the timelines; SHARE_GPUS=1 runs
# the tests on 2 and 4 ranks also where there are fewer GPUs (ranks then share them: a check of
# the results, not of speed). Writes to
# $OUT: mpi.log (the machine, the tests, the benchmark's tables), bench-ranksN.json,
# timeline-*.svg and timeline.txt (what ran in each period), timelines.tar.xz (the traces).
set -uo pipefail
out=${OUT:-/tmp/unison-mpi-out}
build=${BUILD:-build/cuda}
mkdir -p "$out"
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# Open MPI as root, shared-memory transport between the ranks of this host (no UCX, no
# cross-memory attach), NVLink multicast (NCCL's NVLS) left off.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none NCCL_NVLS_ENABLE=0 \
  TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
log=$out/mpi.log
gpus=$(nvidia-smi -L | wc -l)
{
  nvidia-smi -L
  nvidia-smi topo -m
  lscpu | grep -E "Model name|^CPU\(s\)"
  ompi_info | grep -E "Open MPI:|MPI extensions"
  ompi_info --parsable --all | grep mpi_built_with_cuda_support:value
} > "$log" 2>&1
status=0
for n in 1 2 4; do
  [ "$n" -le "$gpus" ] || [ "${SHARE_GPUS:-0}" = 1 ] || continue
  echo "=== unison_mpi_tests, $n ranks" | tee -a "$log"
  OMP_NUM_THREADS=4 OMP_PROC_BIND=false mpirun -n "$n" --bind-to none \
    "$build/tests/unison_mpi_tests" > "$out/tests.tmp" 2>&1 || status=1
  grep -E "FAILED|Failure|PASSED|tests ran" "$out/tests.tmp" | tee -a "$log" | tail -3
done
for n in 1 2 4; do
  [ "$n" -le "$gpus" ] || continue
  echo "=== unison_mpi_bench, $n ranks" | tee -a "$log"
  OMP_NUM_THREADS=4 mpirun -n "$n" --bind-to none "$build/benchmarks/unison_mpi_bench" \
    --benchmark_out="$out/bench-ranks$n.json" --benchmark_out_format=json \
    --benchmark_counters_tabular=true \
    ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} >> "$log" 2>&1 || status=1
done
if [ "${TIMELINES:-1}" = 1 ] && [ "$gpus" -gt 1 ]; then
  lib=$PWD/build/libunison_timeline.so
  g++ -O2 -shared -fPIC -I/usr/local/cuda/include tools/timeline/cupti_timeline.cpp \
    -L/usr/local/cuda/lib64 -lcupti -o "$lib" || status=1
  traces=$PWD/build/timelines
  rm -rf "$traces" && mkdir -p "$traces"
  n=$(( gpus < 4 ? gpus : 4 ))
  for case in "weak/8192x8192/steps:10/depth:1/overlap:1" "weak/2048x2048/steps:10/depth:auto/overlap:1"; do
    name=$(echo "$case" | cut -d/ -f2,4 | tr '/:' '--')
    echo "=== timeline $case, $n ranks" | tee -a "$out/timeline.txt"
    UNISON_TIMELINE=$traces/$name CUDA_INJECTION64_PATH=$lib OMP_NUM_THREADS=4 \
      mpirun -n "$n" --bind-to none -x UNISON_TIMELINE -x CUDA_INJECTION64_PATH \
      "$build/benchmarks/unison_mpi_bench" --benchmark_filter="mpi/diffusion/$case/" \
      --benchmark_counters_tabular=true >> "$out/timeline.txt" 2>&1 || status=1
    python3 tools/timeline/plot_timeline.py "$traces/$name" "$out/timeline-$name.svg" \
      >> "$out/timeline.txt" 2>&1 || status=1
  done
  tar -C "$traces" -cJf "$out/timelines.tar.xz" . || status=1
fi
rm -f "$out/tests.tmp"
exit $status
