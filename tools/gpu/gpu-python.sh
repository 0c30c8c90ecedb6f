#!/usr/bin/env bash
# The Python module on the GPU machine: the cuda preset with UNISON_ENABLE_PYTHON, for the
# machine's python3 (its pybind11, DLPack's header from .deps/debs), with unison-bench. Then: the
# pytest suite (python/tests) on the machine's NumPy; python/tests/gpu_smoke.py on CuPy in a
# non-blocking stream, PyTorch and Numba device arrays; unison-bench's element-wise and histogram
# families with the size sweep (--crossover), so that the python_openmp and python_cuda columns
# (Unison's kernels called from Python) stand beside the C++ calls, Numba and CuPy in one run;
# benchmarks/python_small_calls.py with the small-call path and without it (--before).
# QUICK=1 builds the module alone and leaves out the waking probe and the suite.
# Results in OUT (default build/gpu-python-out; the suite's in OUT/suite).
set -uo pipefail
cd "$(dirname "$0")/../.."  # the repository root
export OUT=${OUT:-build/gpu-python-out}
mkdir -p "$OUT"
. tools/gpu/gpu-build.sh
gpu_python_compiler
dl=$PWD/build/dlpack
mkdir -p "$dl" && dpkg -x .deps/debs/libdlpack-dev_*.deb "$dl"
py=$(command -v python3)
"$py" -c "import sys, numpy; print(sys.version.split()[0], 'numpy', numpy.__version__)"
UNISON_BLAS_FLAGS+=" -DUNISON_ENABLE_PYTHON=ON -DPython3_EXECUTABLE=$py"
UNISON_BLAS_FLAGS+=" -Dpybind11_DIR=$("$py" -m pybind11 --cmakedir) -DUNISON_DLPACK_INCLUDE_DIR=$dl/usr/include"
targets="unison_python unison_dlpack_producer"
[ "${QUICK:-0}" = 1 ] || targets+=" unison-bench"
gpu_build $targets || exit 1
status=0
export PYTHONPATH=$PWD/build/cuda/python:$PWD/build/cuda/python/tests OMP_PROC_BIND=false
timeout 200 "$py" -m pytest -q -p no:cacheprovider python/tests > "$OUT/pytest.log" 2>&1 || status=1
echo "pytest: $(tail -n 1 "$OUT/pytest.log")"
UNISON_TEST_ARRAYS=cupy timeout 150 "$py" -m pytest -q -p no:cacheprovider python/tests \
  > "$OUT/pytest-cupy.log" 2>&1 || status=1
echo "pytest on CuPy arrays: $(tail -n 1 "$OUT/pytest-cupy.log")"
grep -E "^(FAILED|ERROR)" "$OUT/pytest-cupy.log" | head -n 20
timeout 120 "$py" python/tests/gpu_smoke.py > "$OUT/gpu_smoke.log" 2>&1 || status=1
cat "$OUT/gpu_smoke.log"
for when in --before ""; do
  timeout 120 "$py" benchmarks/python_small_calls.py $when || status=1
done
[ "${QUICK:-0}" = 1 ] && exit $status
# A host call after other work in the same process (the OpenMP threads have gone to sleep; a
# threaded BLAS call leaves NumPy's OpenBLAS threads spinning), under each thread setting.
cat > "$OUT/wake.py" <<'PY'
import os, time, numpy as np, unison
x = np.random.rand(100_000).astype(np.float32); o = np.empty_like(x); big = np.random.rand(1_000_000)
def median_us(before):
    t = []
    for _ in range(30):
        before(); t0 = time.perf_counter(); unison.gaussian_pdf(x, out=o); t.append(time.perf_counter() - t0)
    return np.median(t) * 1e6
env = " ".join(f"{k}={os.environ[k]}" for k in ("OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY") if k in os.environ)
print(env or "(no OpenMP settings)", "; gaussian_pdf of 1e5 on OpenMP after: " + ", ".join(
    f"{name} {median_us(before):.1f} us" for name, before in [
        ("nothing", lambda: None), ("np.dot 1e6", lambda: np.dot(big, big)),
        ("np.sum(big * big)", lambda: np.sum(big * big)), ("time.sleep(0.002)", lambda: time.sleep(0.002))]))
PY
for e in "OMP_PROC_BIND=spread OMP_PLACES=threads" "OMP_PROC_BIND=false" "OMP_PROC_BIND=spread OMP_PLACES=threads OMP_WAIT_POLICY=passive" "OMP_PROC_BIND=spread OMP_PLACES=threads OMP_WAIT_POLICY=active"; do
  env -u OMP_PROC_BIND $e timeout 60 "$py" "$OUT/wake.py"
done
rm -f "$OUT/wake.py"
unset PYTHONPATH OMP_PROC_BIND
OUT=$OUT timeout 280 bash tools/gpu/gpu-suite.sh suite --workloads=elementwise,histogram --crossover || status=1
grep -E "python|unison-bench:" "$OUT/suite/progress.txt" | tail -n 8
# (few files come back: the suite's folder as one archive, its table beside it)
cp "$OUT/suite/table.txt" "$OUT/table.txt"
tar -czf "$OUT/suite.tar.gz" -C "$OUT" suite && rm -rf "$OUT/suite"
exit $status
