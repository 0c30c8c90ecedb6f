#!/usr/bin/env bash
# Two builds of unison_mpi_bench timed in alternation on the same machine: ROUNDS rounds (default
# 2), each running BEFORE then AFTER on RANKS ranks (default 2) over the cases FILTER selects;
# prints each case's time a step (the step_us counter, median of the repetitions) per binary and
# round. For the CPU backends (an OpenMP build's bench), each rank is bound to THREADS cores
# (default: the machine's cores / RANKS) with as many OpenMP threads. Binaries built as
# tools/gpu/gpu-mpi.sh says; on the GPU machine:
#   FILTER='mpi/diffusion/weak/8192x8192/steps:10/depth:1/overlap:1/' \
#     bash tools/gpu/gpu-mpi-ab.sh BEFORE/unison_mpi_bench AFTER/unison_mpi_bench
# Writes $OUT/mpi-ab.txt and the benchmark's JSON of each run.
set -uo pipefail
out=${OUT:-/tmp/unison-mpi-ab}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
ranks=${RANKS:-2}
threads=${THREADS:-$(( $(nproc) / ranks ))}
before=$1 after=$2
status=0
for round in $(seq "${ROUNDS:-2}"); do
  for which in before after; do
    bin=$before
    [ "$which" = after ] && bin=$after
    json=$out/$which-round$round.json
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=true OMP_PLACES=cores \
      timeout 300 mpirun -n "$ranks" --map-by "slot:PE=$threads" --bind-to core \
      -x OMP_NUM_THREADS -x OMP_PROC_BIND -x OMP_PLACES "$bin" \
      --benchmark_filter="${FILTER:-mpi/diffusion/weak/}" --benchmark_out="$json" \
      --benchmark_out_format=json > /dev/null 2>&1 || status=1
    python3 - "$json" "$which" "$round" >> "$out/mpi-ab.txt" <<'PY' || status=1
import json, sys
path, which, rnd = sys.argv[1:]
for b in json.load(open(path))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        print(f"round {rnd} {which:6} {b['run_name']}: {b['step_us']:.1f} us a step")
PY
  done
done
cat "$out/mpi-ab.txt"
exit $status
