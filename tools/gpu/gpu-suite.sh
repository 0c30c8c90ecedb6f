#!/usr/bin/env bash
# unison-bench on the GPU machine from binaries built on another machine and copied there
# (docs/developing.md, "On a GPU machine without network access"): build/cuda/benchmarks/unison-bench,
# with Debian's libbenchmark in build/prebuilt/lib.
# Puts plot.py and the peers next to the binary as an installation would, runs unison-bench with
# the arguments given into $OUT/<name> (its table in table.txt, its progress in progress.txt),
# and leaves unison-bench's own results/ folder of .npy files in build/suite-<name>, outside $OUT
# (its listing in results.txt).
# Usage (repository root): tools/gpu/gpu-suite.sh NAME [unison-bench options]
set -uo pipefail
name=$1
shift
out=${OUT:-$PWD/build/gpu-out}/$name
mkdir -p "$out" build/cuda/share/unison
cp apps/unison-bench/plot.py build/cuda/share/unison/
rm -rf build/cuda/share/unison/peers && cp -r benchmarks/peers build/cuda/share/unison/peers
export LD_LIBRARY_PATH=$PWD/build/prebuilt/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
run=build/suite-$name
rm -rf "$run"
t0=$(date +%s)
OMP_PROC_BIND=spread OMP_PLACES=threads PYTHONUNBUFFERED=1 build/cuda/benchmarks/unison-bench \
  --out="$run" "$@" > "$out/table.txt" 2> "$out/progress.txt"
status=$?
echo "unison-bench $*: exit $status after $(( $(date +%s) - t0 )) s" | tee -a "$out/table.txt"
cp "$run"/*.csv "$run"/*.json "$run"/*.png "$out"/ 2>/dev/null
[ -d "$run/peers" ] && cp -r "$run/peers" "$out/"
(cd "$run" && find results -name '*.npy' -printf '%s %p\n' 2>/dev/null | sort -k2) > "$out/results.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$out/machine.txt"
lscpu | grep -E "Model name|^CPU\(s\)" >> "$out/machine.txt"
exit $status
