"""The peers of Unison's matmul_reduce benchmarks, timed on the same GPU in the same run.

WORKLOADS.md section 5 at the seed size, m, k, n = 10000, 5000, 7000 float32, on device arrays:
CuPy's `(A @ B).sum(0)` (cuBLAS SGEMM, then a column sum), CuPy's reassociated `A.sum(0) @ B`,
and the tutorial's Numba kernel (its "bad example": one 16 x 16 block per output tile, run as
written, bugs included: it loops over as many tiles as the grid has blocks in x and its bounds
checks use <=). Median of CUDA-event-timed calls after a warm-up; the results are checked
against a float64 NumPy reference. Without CuPy or a CUDA device it says so and exits 0.
"""
import sys

import numpy as np

from peer_timing import gpu_missing, record

if __name__ == "__main__" and gpu_missing():
    print(f"skipped: {gpu_missing()}")
    sys.exit(0)

import cupy as cp
from numba import cuda, float32

TPB = 16


@cuda.jit
def tutorial_matmul_reduce(A, B, out):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sC = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = 0.
    for i in range(bpg):
        if x <= A.shape[0] and ty + i * TPB <= A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        else:
            sA[tx, ty] = 0
        if tx + i * TPB <= B.shape[0] and y <= B.shape[1]:
            sB[tx, ty] = B[tx + i * TPB, y]
        else:
            sB[tx, ty] = 0
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    sC[tx, ty] = tmp
    cuda.syncthreads()
    s = 1
    while s < TPB:
        if tx % (2 * s) == 0:
            sC[tx, ty] += sC[tx + s, ty]
        s *= 2
        cuda.syncthreads()
    if tx == 0 and y < out.size:
        cuda.atomic.add(out, y, sC[tx, ty])


def median_ms(fn, reps):
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    m, k, n = 10000, 5000, 7000
    r = np.random.default_rng(987654321)
    A = r.random(size=(m, k), dtype=np.float32)
    B = r.random(size=(k, n), dtype=np.float32)
    ref = A.astype(np.float64).sum(0) @ B.astype(np.float64)
    dA, dB = cp.asarray(A), cp.asarray(B)
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"m, k, n = {m}, {k}, {n} float32; median ms")

    def report(name, ms, out, flops, method, peer):
        """method, peer: the unison-bench case's method this stands beside, the peer's column."""
        got = cp.asnumpy(out).astype(np.float64)
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        print(f"{name:44s} {ms:10.3f} ms  {flops / ms / 1e9:8.2f} TFLOP/s  rel.err {err:.1e}",
              flush=True)
        # unison-bench's measure: each column's error over the size of its terms, which for this
        # positive data is the column's sum itself.
        record(f"matmul_reduce/{method}/f32/{m}x{k}x{n}", peer, ms,
               float(np.max(np.abs(got - ref) / ref)), 1e-5)

    gemm_flops = 2.0 * m * k * n
    out = {}
    ms = median_ms(lambda: out.__setitem__("v", (dA @ dB).sum(0)), 10)
    report("cupy (A @ B).sum(0) [cuBLAS + sum]", ms, out["v"], gemm_flops, "gemm", "cupy")
    ms = median_ms(lambda: out.__setitem__("v", dA.sum(0) @ dB), 30)
    report("cupy A.sum(0) @ B [reassociated]", ms, out["v"], 2.0 * (m * k + k * n), "reassociated",
           "cupy")
    if "--no-numba" not in sys.argv:
        nout = cp.zeros(n, dtype=cp.float32)
        grid = ((m + TPB - 1) // TPB, (n + TPB - 1) // TPB)

        def numba_call():
            nout.fill(0)
            tutorial_matmul_reduce[grid, (TPB, TPB)](dA, dB, nout)

        ms = median_ms(numba_call, 3)
        report("numba tutorial kernel (16x16, as written)", ms, nout, gemm_flops, "tiled",
               "numba_cuda")


if __name__ == "__main__":
    main()
