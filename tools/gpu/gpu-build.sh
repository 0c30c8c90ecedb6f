# Sourced by the GPU machine's scripts: the build environment (the dependency archives in .deps,
# 16 jobs, OpenBLAS from .deps/debs: tools/gpu/gpu-openblas.sh) and
#   gpu_build TARGET...   the cuda preset's TARGETs, the log in $OUT/build.log; prints the
#                         machine, the exit status and the time taken, and the first errors
#                         (then returns 1).
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
gpu_build() {
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  local t0 st
  t0=$(date +%s)
  { cmake --preset cuda $UNISON_BLAS_FLAGS && cmake --build --preset cuda --target "$@"; } > "$OUT/build.log" 2>&1
  st=$?
  echo "build exit $st after $(( $(date +%s) - t0 )) s"
  if [ $st -ne 0 ]; then grep -m3 -B2 -A12 "error" "$OUT/build.log"; return 1; fi
}
