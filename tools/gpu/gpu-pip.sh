#!/usr/bin/env bash
# `pip install .` on the GPU machine: the module with the Cuda backend, built by pip (setup.py) for
# the machine's python3 and its pybind11, into a target folder, offline; then
# python/tests/gpu_smoke.py on the installed package. Results in OUT (default build/gpu-pip-out).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export OUT=${OUT:-build/gpu-pip-out}
mkdir -p "$OUT"
. tools/gpu/gpu-build.sh
gpu_python_compiler
dl=$PWD/build/dlpack
mkdir -p "$dl" && dpkg -x .deps/debs/libdlpack-dev_*.deb "$dl"
py=$(command -v python3)
"$py" -c "import sys, setuptools, pip; print(sys.version.split()[0], 'pip', pip.__version__, 'setuptools', setuptools.__version__)"
export UNISON_CMAKE_ARGS="-DUNISON_KOKKOS_DEVICES=SERIAL;OPENMP;CUDA -DUNISON_CUDA_ARCH=90 \
-Dpybind11_DIR=$("$py" -m pybind11 --cmakedir) -DUNISON_DLPACK_INCLUDE_DIR=$dl/usr/include"
target=$PWD/build/pip-target
rm -rf "$target"
t0=$(date +%s)
"$py" -m pip install --no-build-isolation --no-deps --no-index --target "$target" . > "$OUT/pip.log" 2>&1
st=$?
echo "pip install exit $st after $(( $(date +%s) - t0 )) s"
tail -n 3 "$OUT/pip.log"
[ $st -eq 0 ] || { grep -m3 -B2 -A12 -i "error" "$OUT/pip.log"; exit 1; }
ls "$target" "$target/unison"
cd "$OUT" && PYTHONPATH=$target "$py" -c "import unison; print(unison.__file__, unison.__version__, unison.backends())" \
  && PYTHONPATH=$target timeout 120 "$py" "$OLDPWD/python/tests/gpu_smoke.py" | tee gpu_smoke.log
