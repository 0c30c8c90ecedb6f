#!/usr/bin/env bash
# On the GPU machine: the Python module alone (the cuda preset with UNISON_ENABLE_PYTHON, for the
# machine's python3), then tools/gpu/python-diffusion-sizes.py (unison.diffuse on CuPy arrays at
# 2000^2 to 16384^2 beside a naive CUDA C kernel and a copy). Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
mkdir -p "$OUT"
. tools/gpu/gpu-build.sh
gpu_python_compiler
dl=$PWD/build/dlpack
mkdir -p "$dl" && dpkg -x .deps/debs/libdlpack-dev_*.deb "$dl"
py=$(command -v python3)
UNISON_BLAS_FLAGS+=" -DUNISON_ENABLE_TESTS=OFF -DUNISON_ENABLE_BENCHMARKS=OFF"
UNISON_BLAS_FLAGS+=" -DUNISON_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=$py"
UNISON_BLAS_FLAGS+=" -Dpybind11_DIR=$("$py" -m pybind11 --cmakedir) -DUNISON_DLPACK_INCLUDE_DIR=$dl/usr/include"
gpu_build unison_python || exit 1
PYTHONPATH=$PWD/build/cuda/python OMP_PROC_BIND=false timeout 300 "$py" \
  tools/gpu/python-diffusion-sizes.py 2>&1 | tee "$OUT/python-diffusion-sizes.txt"
