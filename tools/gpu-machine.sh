#!/usr/bin/env bash
# Builds, tests, benchmarks and profiles Unison on a GPU machine without network access (see
# docs/developing.md, "On a GPU machine"). Run from the repository root, with the dependency
# archives in .deps/ (and, optionally, the .deb files of OpenBLAS and DLPack in .deps/debs/).
# Logs and results go to $OUT (default build/gpu-out).
#
#   tools/gpu-machine.sh build [TARGET...]     the cuda preset (every target by default)
#   tools/gpu-machine.sh tests [GTEST_FILTER]  every test program on every backend (after build)
#   tools/gpu-machine.sh suite [OPTIONS...]    unison-bench with its peers, OPTIONS passed on
#   tools/gpu-machine.sh sizes                 unison-bench --sizes: the diffusion, convolution and
#                                              histogram past the caches, with their peers
#   tools/gpu-machine.sh ncu FILTER KERNEL     Nsight Compute on the benchmark cases matching
#                                              FILTER, kernels matching the regex KERNEL
#   tools/gpu-machine.sh sanitize [GTEST_FILTER] [TOOL...]
#                                              the Cuda tests under compute-sanitizer (memcheck,
#                                              racecheck, synccheck, initcheck by default)
#   tools/gpu-machine.sh large [N]             the tests past 2^31 elements (N values, 3e9 + 1)
#   tools/gpu-machine.sh python                the Python module for the machine's python3, its
#                                              tests on NumPy and on CuPy arrays, and the smoke
#                                              test on CuPy, PyTorch and Numba arrays
#   tools/gpu-machine.sh mpi                   the MPI tests and scaling benchmark on 1, 2 and 4
#                                              ranks, one GPU a rank (a build with
#                                              -DUNISON_ENABLE_MPI=ON: `build` with
#                                              UNISON_CMAKE_ARGS=-DUNISON_ENABLE_MPI=ON)
#
# UNISON_CMAKE_ARGS adds options to the configure step of `build` and `python`.
set -uo pipefail
out=${OUT:-$PWD/build/gpu-out}
mkdir -p "$out"
export UNISON_DEPS_DIR=$PWD/.deps CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
build=build/cuda
cases=$build/benchmarks/unison-bench-cases  # the cases' own program (Google Benchmark's options)

# OpenBLAS under the OpenMP backend's GEMM when its .deb files are in .deps/debs (the machine has
# no package manager access): every .deb there unpacked into build/debs, the loader pointed at it.
cmake_args=(${UNISON_CMAKE_ARGS:-})
if ls .deps/debs/libopenblas0-pthread_*.deb > /dev/null 2>&1; then
  mkdir -p build/debs
  for deb in .deps/debs/*.deb; do dpkg -x "$deb" build/debs; done
  lib=$PWD/build/debs/usr/lib/x86_64-linux-gnu
  cmake_args+=("-DUNISON_BLAS_LIBRARY=$lib/openblas-pthread/libopenblas.so")
  export LD_LIBRARY_PATH=$lib/openblas-pthread:$lib:$LD_LIBRARY_PATH
fi

machine() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  lscpu | grep -E "Model name|^CPU\(s\)"
}

configure_and_build() {  # TARGET...: the log in $out/build.log; the first errors on failure
  local t0 st
  t0=$(date +%s)
  { cmake --preset cuda "${cmake_args[@]}" && cmake --build --preset cuda ${1:+--target "$@"}; } \
    > "$out/build.log" 2>&1
  st=$?
  echo "build: exit $st after $(( $(date +%s) - t0 )) s"
  [ $st -eq 0 ] || grep -m3 -B2 -A12 "error" "$out/build.log"
  return $st
}

command=${1:-build}
shift || true
case $command in
  build)
    machine | tee "$out/machine.txt"
    configure_and_build "$@" ;;
  tests)
    OMP_PROC_BIND=false bash tools/run-tests.sh $build/tests -- --gtest_filter="${1:-*}" \
      > "$out/tests.log" 2>&1
    st=$?
    grep -E '^\[  (PASSED|FAILED)  \]|run-tests.sh' "$out/tests.log"
    exit $st ;;
  suite | sizes)
    # plot.py and the peers beside the program, as an installation has them.
    mkdir -p $build/share/unison && cp apps/unison-bench/plot.py $build/share/unison/
    rm -rf $build/share/unison/peers && cp -r benchmarks/peers $build/share/unison/peers
    options=("$@")
    [ "$command" = sizes ] && options=(--sizes --workloads=convolve,diffusion,histogram --filter=/sizes/)
    machine > "$out/machine.txt"
    OMP_PROC_BIND=spread OMP_PLACES=threads PYTHONUNBUFFERED=1 $build/benchmarks/unison-bench \
      --out="$out/run" "${options[@]}" > "$out/table.txt" 2> "$out/progress.txt"
    st=$?
    echo "unison-bench ${options[*]}: exit $st" | tee -a "$out/table.txt"
    exit $st ;;
  ncu)
    # A few launches, nothing flushed or locked (the L2 keeps what the kernel before left, as in
    # the timed runs; clocks as found).
    ncu --cache-control none --clock-control none --kernel-name-base demangled -k "regex:$2" \
      --launch-skip "${NCU_SKIP:-40}" --launch-count 1 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      --section WarpStateStats --section SchedulerStats \
      $cases --benchmark_filter="$1" --benchmark_repetitions=1 > "$out/ncu.txt" 2>&1
    st=$?
    grep -E "Duration|Throughput|L2 Hit|Registers Per|Occupancy|No Eligible|Issued Ipc" "$out/ncu.txt"
    exit $st ;;
  sanitize)
    filter=${1:-'*/Cuda.*'}
    shift || true
    tools=("$@")
    [ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck synccheck initcheck)
    st=0
    for tool in "${tools[@]}"; do
      extra=()
      [ "$tool" = memcheck ] && extra=(--leak-check full)
      [ "$tool" = racecheck ] && extra=(--racecheck-report analysis)
      : > "$out/$tool.log"
      for program in $build/tests/unison_tests_*_cuda; do
        compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 86 --print-limit 50 \
          "$program" --gtest_filter="$filter" >> "$out/$tool.log" 2>&1 || st=1
      done
      echo "$tool: $(grep -cE 'ERROR SUMMARY: [1-9]' "$out/$tool.log") programs with reports"
    done
    exit $st ;;
  large)
    UNISON_LARGE_TESTS=1 UNISON_LARGE_N=${1:-3000000001} $build/tests/unison_tests_large_cuda \
      --gtest_filter='Large/Cuda.*' ;;
  python)
    # The module needs a compiler with a shared libstdc++ (python/CMakeLists.txt says why).
    for cxx in /usr/bin/g++ /usr/bin/g++-1[0-4]; do
      [ -x "$cxx" ] && [ "$("$cxx" -print-file-name=libstdc++.so)" != libstdc++.so ] && break
    done
    export CXX=$cxx CUDAHOSTCXX=$cxx
    py=$(command -v python3)
    cmake_args+=(-DUNISON_ENABLE_PYTHON=ON "-DPython3_EXECUTABLE=$py"
                 "-Dpybind11_DIR=$("$py" -m pybind11 --cmakedir)")
    [ -d build/debs/usr/include/dlpack ] && cmake_args+=("-DUNISON_DLPACK_INCLUDE_DIR=$PWD/build/debs/usr/include")
    configure_and_build unison_python unison_dlpack_producer || exit 1
    export PYTHONPATH=$PWD/$build/python:$PWD/$build/python/tests OMP_PROC_BIND=false
    st=0
    "$py" -m pytest -q -p no:cacheprovider python/tests > "$out/pytest.log" 2>&1 || st=1
    echo "pytest on NumPy arrays: $(tail -n 1 "$out/pytest.log")"
    UNISON_TEST_ARRAYS=cupy "$py" -m pytest -q -p no:cacheprovider python/tests \
      > "$out/pytest-cupy.log" 2>&1 || st=1
    echo "pytest on CuPy arrays: $(tail -n 1 "$out/pytest-cupy.log")"
    "$py" python/tests/gpu_smoke.py 2>&1 | tee "$out/gpu_smoke.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || st=1
    exit $st ;;
  mpi)
    # Open MPI as root, shared memory between the ranks of the host, NVLink multicast left off.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 \
      OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none NCCL_NVLS_ENABLE=0
    gpus=$(nvidia-smi -L | wc -l)
    st=0
    for n in 1 2 4; do
      [ "$n" -le "$gpus" ] || continue
      echo "=== $n ranks" | tee -a "$out/mpi.log"
      OMP_NUM_THREADS=4 OMP_PROC_BIND=false mpirun -n "$n" --bind-to none \
        $build/tests/unison_mpi_tests >> "$out/mpi.log" 2>&1 || st=1
      OMP_NUM_THREADS=4 mpirun -n "$n" --bind-to none $build/benchmarks/unison_mpi_bench \
        --benchmark_out="$out/mpi-bench-ranks$n.json" --benchmark_out_format=json \
        >> "$out/mpi.log" 2>&1 || st=1
    done
    grep -E "PASSED|FAILED|===" "$out/mpi.log"
    exit $st ;;
  *)
    sed -n '2,26p' "$0"
    exit 2 ;;
esac
