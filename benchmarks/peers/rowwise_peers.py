"""The peers of Unison's row-wise benchmarks (WORKLOADS.md section 2), on the same GPU in the
same run: the tutorial's Numba CUDA gufuncs (`@guvectorize(..., target='cuda')`, l2_norm over
'(i)->()' and matmulcore over '(m,n),(n,p)->(m,p)'), and CuPy (`cp.linalg.norm(V, axis=1)`,
`cp.matmul` of the batch). Seed sizes: l2_norm of 1e6 rows of 2 and of 1e4 rows of 1e3,
matmul_core of 1e5 products of 4 x 4 by 4 x 4, float32, inputs already on the device. Median
wall time per call (synchronized) over repetitions after a warm-up; results checked against
float64 NumPy. Without CuPy or a CUDA device it says so and exits 0.
"""
import math
import sys

import numpy as np

from peer_timing import gpu_missing, median_wall_ms, record

if __name__ == "__main__" and gpu_missing():
    print(f"skipped: {gpu_missing()}")
    sys.exit(0)

import cupy as cp
from numba import cuda, guvectorize


@guvectorize(['(float32[:], float32[:])'], '(i)->()', target='cuda')
def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value**2
    out[0] = math.sqrt(acc)


@guvectorize(['void(float32[:,:], float32[:,:], float32[:,:])'], '(m,n),(n,p)->(m,p)',
             target='cuda')
def matmulcore(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


def median_ms(fn, reps, sync):
    return median_wall_ms(fn, reps, sync)


def report(name, ms, got, ref, nbytes, case, peer):
    """case, peer: the unison-bench case this stands beside, and the peer's column."""
    err = np.linalg.norm(np.asarray(got, dtype=np.float64) - ref) / np.linalg.norm(ref)
    print(f"{name:52s} {ms * 1e3:10.1f} us  {nbytes / ms / 1e6:8.1f} GB/s  rel.err {err:.1e}",
          flush=True)
    record(case, peer, ms, err, 1e-5)


def main():
    r = np.random.default_rng(24680)
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; median us per call")
    sync_numba, sync_cupy = cuda.synchronize, cp.cuda.Device().synchronize
    for rows, cols in ((1000000, 2), (10000, 1000)):
        V = r.uniform(-1, 1, size=(rows, cols)).astype(np.float32)
        ref = np.sqrt((V.astype(np.float64) ** 2).sum(1))
        nbytes = 4.0 * (rows * cols + rows)
        dv, cv = cuda.to_device(V), cp.asarray(V)
        out = {}
        ms = median_ms(lambda: out.__setitem__("v", l2_norm(dv)), 20, sync_numba)
        case = f"l2_norm/f32/{rows}x{cols}"
        report(f"numba guvectorize l2_norm {rows}x{cols}", ms, out["v"].copy_to_host(), ref,
               nbytes, case, "numba_cuda")
        ms = median_ms(lambda: out.__setitem__("v", cp.linalg.norm(cv, axis=1)), 20, sync_cupy)
        report(f"cupy linalg.norm(V, axis=1) {rows}x{cols}", ms, cp.asnumpy(out["v"]), ref, nbytes,
               case, "cupy")
    b = 100000
    A = r.uniform(-1, 1, size=(b, 4, 4)).astype(np.float32)
    B = r.uniform(-1, 1, size=(b, 4, 4)).astype(np.float32)
    ref = np.matmul(A.astype(np.float64), B.astype(np.float64)).ravel()
    nbytes = 4.0 * 3 * b * 16
    da, db = cuda.to_device(A), cuda.to_device(B)
    ca, cb = cp.asarray(A), cp.asarray(B)
    out = {}
    ms = median_ms(lambda: out.__setitem__("v", matmulcore(da, db)), 20, sync_numba)
    case = f"matmul_core/f32/{b}x4x4x4"
    report(f"numba guvectorize matmulcore {b}x4x4x4", ms, out["v"].copy_to_host().ravel(), ref,
           nbytes, case, "numba_cuda")
    ms = median_ms(lambda: out.__setitem__("v", cp.matmul(ca, cb)), 20, sync_cupy)
    report(f"cupy matmul {b}x4x4x4", ms, cp.asnumpy(out["v"]).ravel(), ref, nbytes, case, "cupy")


if __name__ == "__main__":
    sys.exit(main())
