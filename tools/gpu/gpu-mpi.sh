#!/usr/bin/env bash
# Unison::mpi on the GPU machine (one rank per GPU): the MPI tests on 1, 2 and 4 ranks (as many as
# the machine has GPUs), then the scaling benchmark (unison_mpi_bench) on 1, 2 and 4 ranks.
# Binaries are built on the development machine (build/cuda configured with
# -DUNISON_ENABLE_MPI=ON against Debian's Open MPI 4.1, whose libmpi.so.40 the GPU machine's
# Ubuntu Open MPI 4.1.6 provides) and copied into the GPU machine's working tree at the same
# paths (build/cuda/tests/unison_mpi_tests, build/cuda/benchmarks/unison_mpi_bench), with
# the shared libraries they need that the GPU machine lacks in build/prebuilt/lib; run on a machine of 4 GPUs:
#   bash tools/gpu/gpu-mpi.sh
# BENCH_FILTER=REGEX limits the benchmark cases. Writes to $OUT: mpi-tests.log, bench.log and
# bench-ranksN.json.
set -uo pipefail
out=${OUT:-/tmp/unison-mpi-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/prebuilt/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# Open MPI as root, shared-memory transport between the ranks of this host (no UCX, no
# cross-memory attach), NVLink multicast (NCCL's NVLS) left off.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L | wc -l)
{
  nvidia-smi -L
  nvidia-smi topo -m
  ompi_info | grep -E "Open MPI:|MPI extensions"
  ompi_info --parsable --all | grep mpi_built_with_cuda_support:value
} > "$out/mpi-tests.log" 2>&1
status=0
for n in 1 2 4; do
  [ "$n" -le "$gpus" ] || continue
  echo "=== unison_mpi_tests, $n ranks" | tee -a "$out/mpi-tests.log"
  OMP_NUM_THREADS=4 OMP_PROC_BIND=false mpirun -n "$n" --bind-to none \
    build/cuda/tests/unison_mpi_tests >> "$out/mpi-tests.log" 2>&1 || status=1
  grep -E "PASSED|FAILED|tests ran" "$out/mpi-tests.log" | tail -3
done
for n in 1 2 4; do
  [ "$n" -le "$gpus" ] || continue
  echo "=== unison_mpi_bench, $n ranks" | tee -a "$out/bench.log"
  OMP_NUM_THREADS=4 mpirun -n "$n" --bind-to none build/cuda/benchmarks/unison_mpi_bench \
    --benchmark_out="$out/bench-ranks$n.json" --benchmark_out_format=json \
    ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} 2>&1 | tee -a "$out/bench.log" || status=1
done
exit $status
