"""The peers of Unison's row-wise benchmarks (docs/workloads.md section 2), on the same machine
in the same run, at the sizes of the run's cases (the manifest: peer_timing.cases; at the seed
sizes, l2_norm of 1e6 rows of 2 and of 1e4 rows of 1e3, and matmul_core of 1e5 products of 4 x 4
by 4 x 4), float32.

CPU part (always; NumPy and Numba), on host arrays:
  - numba_cpu: the tutorial's gufuncs for Numba's parallel CPU target
    (`@guvectorize(..., target='parallel')`, l2_norm over '(i)->()' and matmulcore over
    '(m,n),(n,p)->(m,p)');
  - numpy: `np.linalg.norm(V, axis=1)` and `np.matmul` of the batch (one thread).
  Wall time (time.perf_counter): two warm-up calls (the first compiles), then the median of at
  least three calls (more, up to 20, within about a second).
GPU part (where CuPy and a CUDA device are found): the same gufuncs for Numba's CUDA target
(`target='cuda'`), and CuPy (`cp.linalg.norm(V, axis=1)`, `cp.matmul` of the batch), inputs
already on the device; median wall time per call (synchronized) over 20 calls after a warm-up.
Every result is checked against float64 NumPy: ||out - ref|| / ||ref|| within 1e-5. Without
Numba the numba_cpu peers, without CuPy or a CUDA device the GPU part, say they are skipped.
Usage: rowwise_peers.py [--scale=F]
"""
import math
import sys

import numpy as np

from peer_timing import (cases, gpu_missing, median_cpu_ms, run_parts, median_wall_ms, numba_missing,
                         peer_args, record, relative_error)


def l2_norm_py(vec, out):
    """The tutorial's l2_norm gufunc body ('(i)->()'), for either target."""
    acc = 0.0
    for value in vec:
        acc += value**2
    out[0] = math.sqrt(acc)


def matmulcore_py(A, B, C):
    """The tutorial's matmulcore gufunc body ('(m,n),(n,p)->(m,p)'), for either target."""
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


def gufuncs(target):
    from numba import guvectorize
    l2_norm = guvectorize(['(float32[:], float32[:])'], '(i)->()', target=target)(l2_norm_py)
    matmulcore = guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'],
                             '(m,n),(n,p)->(m,p)', target=target)(matmulcore_py)
    return l2_norm, matmulcore


def report(name, ms, got, ref, nbytes, case, peer):
    """case, peer: the unison-bench case this stands beside, and the peer's column."""
    err = relative_error(got, ref)
    print(f"{name:52s} {ms * 1e3:10.1f} us  {nbytes / ms / 1e6:8.1f} GB/s  rel.err {err:.1e}"
          f"{'' if err <= 1e-5 else '  FAIL'}", flush=True)
    record(case, peer, ms, err, 1e-5)


def inputs(where):
    """The data of the run's cases on the CPU's backend or the GPU's: (case, rows, cols, V,
    float64 reference) for each l2_norm, and (case, batch, A, B, float64 reference) for each
    matmul_core (its products 4 x 4 by 4 x 4)."""
    r = np.random.default_rng(24680)
    norms, products = [], []
    for c in cases("l2_norm", where):
        V = r.uniform(-1, 1, size=(c.rows, c.cols)).astype(np.float32)
        norms.append((c.name, c.rows, c.cols, V, np.sqrt((V.astype(np.float64) ** 2).sum(1))))
    for c in cases("matmul_core", where):
        A = r.uniform(-1, 1, size=(c.batch, c.m, c.n)).astype(np.float32)
        B = r.uniform(-1, 1, size=(c.batch, c.n, c.p)).astype(np.float32)
        products.append((c.name, c.batch, A, B, np.matmul(A.astype(np.float64), B.astype(np.float64))))
    return norms, products


def cpu(scale):
    norms, products = inputs("cpu")
    why = numba_missing()
    if why:
        print(f"skipped the numba_cpu peers: {why}")
        l2_norm = matmulcore = None
    else:
        import numba
        l2_norm, matmulcore = gufuncs("parallel")
        print(f"# cpu: numba {numba.__version__}, {numba.get_num_threads()} threads; median us per "
              "call")
    out = {}
    for case, rows, cols, V, norm_ref in norms:
        nbytes = 4.0 * (rows * cols + rows)
        res = np.empty(rows, np.float32)
        if l2_norm is not None:
            ms = median_cpu_ms(lambda: l2_norm(V, res))
            report(f"numba parallel guvectorize l2_norm {rows}x{cols}", ms, res, norm_ref, nbytes,
                   case, "numba_cpu")
        ms = median_cpu_ms(lambda: out.__setitem__("v", np.linalg.norm(V, axis=1)), warmups=1)
        report(f"numpy linalg.norm(V, axis=1) {rows}x{cols}", ms, out["v"], norm_ref, nbytes, case,
               "numpy")
    for case, b, A, B, ref in products:
        nbytes = 4.0 * (A.size + B.size + ref.size)
        C = np.empty(ref.shape, np.float32)
        if matmulcore is not None:
            ms = median_cpu_ms(lambda: matmulcore(A, B, C))
            report(f"numba parallel guvectorize matmulcore {b}x4x4x4", ms, C, ref, nbytes, case,
                   "numba_cpu")
        ms = median_cpu_ms(lambda: np.matmul(A, B, out=C), warmups=1)
        report(f"numpy matmul {b}x4x4x4", ms, C, ref, nbytes, case, "numpy")


def gpu(scale):
    import cupy as cp
    from numba import cuda
    l2_norm, matmulcore = gufuncs("cuda")
    norms, products = inputs("gpu")
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; median us per call")
    sync_numba, sync_cupy = cuda.synchronize, cp.cuda.Device().synchronize
    for case, rows, cols, V, norm_ref in norms:
        nbytes = 4.0 * (rows * cols + rows)
        dv, cv = cuda.to_device(V), cp.asarray(V)
        out = {}
        ms = median_wall_ms(lambda: out.__setitem__("v", l2_norm(dv)), 20, sync_numba)
        report(f"numba guvectorize l2_norm {rows}x{cols}", ms, out["v"].copy_to_host(), norm_ref,
               nbytes, case, "numba_cuda")
        ms = median_wall_ms(lambda: out.__setitem__("v", cp.linalg.norm(cv, axis=1)), 20, sync_cupy)
        report(f"cupy linalg.norm(V, axis=1) {rows}x{cols}", ms, cp.asnumpy(out["v"]), norm_ref,
               nbytes, case, "cupy")
    for case, b, A, B, ref in products:
        nbytes = 4.0 * (A.size + B.size + ref.size)
        da, db = cuda.to_device(A), cuda.to_device(B)
        ca, cb = cp.asarray(A), cp.asarray(B)
        out = {}
        ms = median_wall_ms(lambda: out.__setitem__("v", matmulcore(da, db)), 20, sync_numba)
        report(f"numba guvectorize matmulcore {b}x4x4x4", ms, out["v"].copy_to_host(), ref, nbytes,
               case, "numba_cuda")
        ms = median_wall_ms(lambda: out.__setitem__("v", cp.matmul(ca, cb)), 20, sync_cupy)
        report(f"cupy matmul {b}x4x4x4", ms, cp.asnumpy(out["v"]), ref, nbytes, case, "cupy")


def main():
    scale, _, _ = peer_args()
    return run_parts(cpu, gpu, scale)


if __name__ == "__main__":
    sys.exit(main())
