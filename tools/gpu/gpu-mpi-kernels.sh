#!/usr/bin/env bash
# The distributed diffusion's kernels timed one by one from their GPU timelines
# (tools/timeline/cupti_timeline.cpp): unison_mpi_bench's weak-scaling case at depth 1 on 2 ranks,
# and unison::diffuse's kernel on one rank's field (the single-rank case, 1 rank), for each binary
# given, per block size (8192, 2048), ROUNDS times in turn (default 1). Ranks sharing one GPU
# time-share it, which stretches some kernels: the minimum and the lower quartile of each
# kernel's durations are the figures to read there. Binaries built as tools/gpu/gpu-mpi.sh says; on the GPU machine:
#   bash tools/gpu/gpu-mpi-kernels.sh BINARY...
# Writes $OUT/kernels.txt.
set -uo pipefail
out=${OUT:-/tmp/unison-mpi-kernels}
mkdir -p "$out"
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none NCCL_NVLS_ENABLE=0
lib=$PWD/build/libunison_timeline.so
g++ -O2 -shared -fPIC -I/usr/local/cuda/include tools/timeline/cupti_timeline.cpp \
  -L/usr/local/cuda/lib64 -lcupti -o "$lib" || exit 1
traces=$PWD/build/kernel-traces
for round in $(seq "${ROUNDS:-1}"); do
for bin in "$@"; do
  for n in 8192 2048; do
    for ranks in 2 1; do
      case=weak/${n}x${n}/steps:10/depth:1/overlap:1
      [ "$ranks" = 1 ] && case=single_rank/${n}x${n}/steps:10
      rm -rf "$traces" && mkdir -p "$traces"
      UNISON_TIMELINE=$traces/t CUDA_INJECTION64_PATH=$lib OMP_NUM_THREADS=4 \
        timeout 120 mpirun -n $ranks --bind-to none -x UNISON_TIMELINE -x CUDA_INJECTION64_PATH \
        "$bin" --benchmark_filter="mpi/diffusion/$case/" > /dev/null 2>&1
      echo "round $round, $ranks rank(s), $case" >> "$out/kernels.txt"
      python3 - "$bin" "$n" "$traces" >> "$out/kernels.txt" <<'PY'
import csv, glob, re, statistics, sys
binary, n, folder = sys.argv[1:]
times = {}
for path in glob.glob(folder + "/t.*.csv"):
    for r in csv.DictReader(open(path)):
        m = re.search(r"(HaloStrips|HaloStencilRows|HaloStencilFrame|HaloPack|HaloUnpack|HaloCopyIn"
                      r"|DiffusionStrips)", r["name"])
        if m:
            times.setdefault(m.group(1), []).append((int(r["end_ns"]) - int(r["start_ns"])) / 1e3)
for name, t in sorted(times.items()):
    t.sort()
    print(f"{binary} {n}x{n} {name}: min {t[0]:.1f} us, lower quartile {t[len(t) // 4]:.1f} us, "
          f"median {statistics.median(t):.1f} us over {len(t)}")
PY
    done
  done
done
done
