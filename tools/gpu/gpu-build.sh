# Sourced by the GPU machine's scripts: the build environment (the dependency archives in .deps,
# 16 jobs, OpenBLAS from .deps/debs: tools/gpu/gpu-openblas.sh) and
#   gpu_python_compiler   CXX and CUDAHOSTCXX set to a compiler with a shared libstdc++, which
#                         the Python module needs (python/CMakeLists.txt says why): the
#                         machine's default compilers have none (a fresh machine has no build
#                         folder configured with them)
#   gpu_build TARGET...   the cuda preset's TARGETs, the log in $OUT/build.log; prints the
#                         machine, the exit status and the time taken, and the first errors
#                         (then returns 1).
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=16
. "${BASH_SOURCE[0]%/*}/gpu-openblas.sh"
gpu_python_compiler() {
  local cxx
  for cxx in /usr/bin/g++ /usr/bin/g++-1[0-4]; do
    [ -x "$cxx" ] && [ "$("$cxx" -print-file-name=libstdc++.so)" != libstdc++.so ] && break
  done
  echo "compiler: $cxx ($("$cxx" --version | head -n 1))"
  export CXX=$cxx CUDAHOSTCXX=$cxx
}
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
