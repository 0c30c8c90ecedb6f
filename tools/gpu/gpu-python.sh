#!/usr/bin/env bash
# The Python module on the GPU machine: the cuda preset with UNISON_ENABLE_PYTHON, for the
# machine's python3 (its pybind11, DLPack's header from .deps/debs), built with the hostile-input
# suite and the contraction check. Then: the hostile suite on every backend and under
# compute-sanitizer's memcheck on Cuda; the pytest suite (python/tests) on the machine's NumPy;
# python/tests/gpu_smoke.py on CuPy in a non-blocking stream, PyTorch and Numba device arrays.
# Results in OUT (default build/gpu-python-out).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export OUT=${OUT:-build/gpu-python-out}
mkdir -p "$OUT"
# The machine's default compilers (CXX, CUDAHOSTCXX) have no shared libstdc++; the module needs
# one (python/CMakeLists.txt says why), so the system's compiler builds it (a fresh machine has no
# build folder configured with the other).
export CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++
. tools/gpu/gpu-build.sh
dl=$PWD/build/dlpack
mkdir -p "$dl" && dpkg -x .deps/debs/libdlpack-dev_*.deb "$dl"
py=$(command -v python3)
"$py" -c "import sys, numpy; print(sys.version.split()[0], 'numpy', numpy.__version__)"
UNISON_BLAS_FLAGS+=" -DUNISON_ENABLE_BENCHMARKS=OFF -DUNISON_TEST_FILES=test_hostile.cpp"
UNISON_BLAS_FLAGS+=" -DUNISON_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=$py"
UNISON_BLAS_FLAGS+=" -Dpybind11_DIR=$("$py" -m pybind11 --cmakedir) -DUNISON_DLPACK_INCLUDE_DIR=$dl/usr/include"
gpu_build unison_tests unison_contraction_check unison_python unison_dlpack_producer || exit 1
status=0
OMP_PROC_BIND=false build/cuda/tests/unison_tests > "$OUT/tests.log" 2>&1 || status=1
echo "hostile suite: $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests.log" | tr '\n' ' ')"
OMP_PROC_BIND=false build/cuda/tests/unison_contraction_check > "$OUT/contraction.log" 2>&1 || status=1
echo "contraction check: $(tail -n 1 "$OUT/contraction.log")"
UNISON_SANITIZE_TIMEOUT=${UNISON_SANITIZE_TIMEOUT:-200} bash tools/gpu/gpu-sanitize.sh 'Hostile/Cuda.*' memcheck || status=1
export PYTHONPATH=$PWD/build/cuda/python:$PWD/build/cuda/python/tests OMP_PROC_BIND=false
timeout 300 "$py" -m pytest -q -p no:cacheprovider python/tests > "$OUT/pytest.log" 2>&1 || status=1
echo "pytest: $(tail -n 1 "$OUT/pytest.log")"
timeout 300 "$py" python/tests/gpu_smoke.py > "$OUT/gpu_smoke.log" 2>&1 || status=1
cat "$OUT/gpu_smoke.log"
exit $status
