"""The peers of Unison's matmul_reduce benchmarks, timed on the same machine in the same run.

docs/workloads.md section 5, at the sizes of the run's cases (the manifest: peer_timing.cases;
at the seed size m, k, n = 10000, 5000, 7000), float32:
  - CPU part (always; NumPy): numpy, NumPy's `(A @ B).sum(0)` (its BLAS's SGEMM, then a column
    sum) and reassociated `A.sum(0) @ B`; wall time (time.perf_counter), the median of at least
    three calls (more, up to 20, within about a second) after a warm-up;
  - GPU part (where CuPy and a CUDA device are found), on device arrays: CuPy's
    `(A @ B).sum(0)` (cuBLAS SGEMM, then a column sum), CuPy's reassociated `A.sum(0) @ B`, and
    the tutorial's Numba kernel (its "bad example": one 16 x 16 block per output tile, run as
    written, bugs included: it loops over as many tiles as the grid has blocks in x and its
    bounds checks use <=). Median of CUDA-event-timed calls after a warm-up.
The results are checked against a float64 NumPy reference (each column's error over the size of
its terms, unison-bench's measure). Without CuPy or a CUDA device the GPU part says it is
skipped.
Usage: matmul_peers.py [--scale=F] [--no-numba]   (--no-numba: not the tutorial's kernel)
"""
import sys

import numpy as np

from peer_timing import cases, gpu_missing, median_cpu_ms, peer_args, record

TPB = 16
# Bound by gpu(): the GPU part alone needs CuPy and Numba's CUDA target.
cp = cuda = float32 = None


# The tutorial's kernel, compiled by gpu() (cuda.jit).
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


def named_cases(where):
    """The run's matmul_reduce cases on the CPU's backend or the GPU's (without a workspace), each
    method's case name ("gemm", "reassociated", "tiled") by its m, k, n."""
    found = {}
    for method in ("gemm", "reassociated", "tiled"):
        for c in cases("matmul_reduce", where, start=f"matmul_reduce/{method}/f32/"):
            found.setdefault((c.m, c.k, c.n), {})[method] = c.name
    return found


def inputs(m, k, n):
    r = np.random.default_rng(987654321)
    A = r.random(size=(m, k), dtype=np.float32)
    B = r.random(size=(k, n), dtype=np.float32)
    return A, B, A.astype(np.float64).sum(0) @ B.astype(np.float64)


def report(name, ms, got, ref, flops, case, peer):
    """case, peer: the unison-bench case this stands beside, and the peer's column."""
    got = np.asarray(got, dtype=np.float64)
    # unison-bench's measure: each column's error over the size of its terms, which for this
    # positive data is the column's sum itself.
    err = float(np.max(np.abs(got - ref) / ref))
    print(f"{name:44s} {ms:10.3f} ms  {flops / ms / 1e9:8.2f} TFLOP/s  max col.err {err:.1e}"
          f"{'' if err <= 1e-5 else '  FAIL'}", flush=True)
    record(case, peer, ms, err, 1e-5)


def cpu(scale):
    for (m, k, n), names in named_cases("cpu").items():
        A, B, ref = inputs(m, k, n)
        print(f"# cpu: numpy {np.__version__}, m, k, n = {m}, {k}, {n} float32; median ms")
        out = {}
        if "gemm" in names:
            ms = median_cpu_ms(lambda: out.__setitem__("v", (A @ B).sum(0)), warmups=1)
            report("numpy (A @ B).sum(0) [BLAS + sum]", ms, out["v"], ref, 2.0 * m * k * n,
                   names["gemm"], "numpy")
        if "reassociated" in names:
            ms = median_cpu_ms(lambda: out.__setitem__("v", A.sum(0) @ B), warmups=1)
            report("numpy A.sum(0) @ B [reassociated]", ms, out["v"], ref, 2.0 * (m * k + k * n),
                   names["reassociated"], "numpy")


def gpu(scale, numba_kernel=True):
    global cp, cuda, float32
    import cupy
    from numba import cuda as numba_cuda, float32 as numba_float32
    cp, cuda, float32 = cupy, numba_cuda, numba_float32
    kernel = cuda.jit(tutorial_matmul_reduce)
    for (m, k, n), names in named_cases("gpu").items():
        gpu_size(kernel, m, k, n, names, numba_kernel)


def gpu_size(kernel, m, k, n, names, numba_kernel):
    A, B, ref = inputs(m, k, n)
    dA, dB = cp.asarray(A), cp.asarray(B)
    print(f"# {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"m, k, n = {m}, {k}, {n} float32; median ms")

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

    gemm_flops = 2.0 * m * k * n
    out = {}
    if "gemm" in names:
        ms = median_ms(lambda: out.__setitem__("v", (dA @ dB).sum(0)), 10)
        report("cupy (A @ B).sum(0) [cuBLAS + sum]", ms, cp.asnumpy(out["v"]), ref, gemm_flops,
               names["gemm"], "cupy")
    if "reassociated" in names:
        ms = median_ms(lambda: out.__setitem__("v", dA.sum(0) @ dB), 30)
        report("cupy A.sum(0) @ B [reassociated]", ms, cp.asnumpy(out["v"]), ref,
               2.0 * (m * k + k * n), names["reassociated"], "cupy")
    if numba_kernel and "tiled" in names:
        nout = cp.zeros(n, dtype=cp.float32)
        grid = ((m + TPB - 1) // TPB, (n + TPB - 1) // TPB)

        def numba_call():
            nout.fill(0)
            kernel[grid, (TPB, TPB)](dA, dB, nout)

        ms = median_ms(numba_call, 3)
        report("numba tutorial kernel (16x16, as written)", ms, cp.asnumpy(nout), ref, gemm_flops,
               names["tiled"], "numba_cuda")


def main():
    scale, _, flags = peer_args(flags=("--no-numba",))
    cpu(scale)
    why = gpu_missing()
    if why:
        print(f"skipped the gpu part: {why}")
    else:
        gpu(scale, "--no-numba" not in flags)
    return 0


if __name__ == "__main__":
    sys.exit(main())
