"""The peers of Unison's histogram benchmark (docs/workloads.md section 6), timed on the same
machine in the same run, at the sizes of the run's cases (the manifest: peer_timing.cases).

histogram, 1e8 normal float32 values (at the seed size), 100 bins over [-4, 4):
  - numba_cuda: the tutorial's grid-stride kernel with global atomics, its bin formula fixed
    ((x - xmin) / width, not (x + xmin) / width);
  - cupy: cupy.histogram;
  - numba_cpu: @njit(parallel=True) with a histogram per thread block, summed;
  - numpy: numpy.histogram (one thread).
Each result is checked against numpy.histogram's counts (which places values exactly against its
edges): the tutorial's formula int((x - xmin) / width) puts values within a rounding of an edge in
the neighbouring bin, so the number of values counted elsewhere is shown, and more than one in a
million fails.
Median wall time (synchronized) of 5 calls after a warm-up.
Usage: histogram_peers.py [gpu] [cpu] [--scale=F]
         (both by default; cpu alone needs only NumPy and Numba; without CuPy or a CUDA device
         the gpu part says so)
"""
import sys

import numpy as np

np.row_stack = np.vstack  # numba-cuda fails to import with NumPy 2.5 without it (GPU.md)

import numba
from numba import njit, prange
from peer_timing import cases, median_wall_ms, record, run_chosen_parts

XMIN, XMAX, NBINS = -4.0, 4.0, 100


def median_ms(fn, reps=5, sync=lambda: None):
    return median_wall_ms(fn, reps, sync)


def report(workload, name, ms, rate, check):
    print(f"{workload:16s} {name:12s} {ms:10.3f} ms  {rate:14s} {check}", flush=True)


def check_hist(case, name, counts, reference, ms):
    """Records the result beside unison-bench's `case` in its measure (the sum over the bins of
    |count - reference count|, exactly 0 to pass), and returns the check's text, which allows one
    value in a million."""
    diff = int(np.abs(np.asarray(counts, dtype=np.int64) - reference).sum())
    record(case, name, ms, diff, 0)
    off = diff // 2
    ok = off <= reference.sum() // 1_000_000
    return f"{'pass' if ok else 'FAIL'}: {off} values in another bin than numpy.histogram's"


@njit(parallel=True)
def nb_cpu_hist(x, xmin, xmax, nbins, blocks):
    partial = np.zeros((blocks, nbins), np.int64)
    width = (xmax - xmin) / nbins
    per = (x.size + blocks - 1) // blocks
    for b in prange(blocks):
        for i in range(b * per, min(x.size, (b + 1) * per)):
            v = x[i]
            if v >= xmin and v < xmax:
                k = int((v - xmin) / width)
                if k >= nbins:
                    k = nbins - 1
                partial[b, k] += 1
    return partial.sum(axis=0)


def normal_values(n):
    return np.random.default_rng(7).standard_normal(n, dtype=np.float32)


def cpu(scale):
    threads = numba.get_num_threads()
    blocks = threads * 8
    for case in cases("histogram", "cpu", start="histogram/f32/"):
        n = case.n
        x = normal_values(n)
        reference, _ = np.histogram(x, bins=NBINS, range=(XMIN, XMAX))
        out = [None]
        ms = median_ms(lambda: out.__setitem__(0, nb_cpu_hist(x, XMIN, XMAX, NBINS, blocks)))
        report("histogram", "numba_cpu", ms, f"{n / ms / 1e6:.3g} Gvalues/s",
               check_hist(case.name, "numba_cpu", out[0], reference, ms))
        ms = median_ms(lambda: out.__setitem__(0, np.histogram(x, bins=NBINS, range=(XMIN, XMAX))[0]),
                       reps=3)
        report("histogram", "numpy", ms, f"{n / ms / 1e6:.3g} Gvalues/s",
               check_hist(case.name, "numpy", out[0], reference, ms))


def gpu(scale):
    from numba import cuda

    @cuda.jit
    def histogram(x, xmin, xmax, histogram_out):
        nbins = histogram_out.shape[0]
        bin_width = (xmax - xmin) / nbins
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            bin_number = np.int32((x[i] - xmin) / bin_width)  # the tutorial has x[i] + xmin
            if bin_number >= 0 and bin_number < histogram_out.shape[0]:
                cuda.atomic.add(histogram_out, bin_number, 1)

    sync = cuda.synchronize
    for case in cases("histogram", "gpu", start="histogram/f32/"):
        gpu_case(case, histogram, sync)


def gpu_case(case, histogram, sync):
    import cupy as cp
    hist_n = case.n
    x_host = normal_values(hist_n)
    reference, _ = np.histogram(x_host, bins=NBINS, range=(XMIN, XMAX))
    x = cp.asarray(x_host)
    counts = cp.zeros(NBINS, dtype=cp.int32)

    def numba_hist():
        counts.fill(0)
        histogram[132 * 8, 256](x, np.float32(XMIN), np.float32(XMAX), counts)

    ms = median_ms(numba_hist, sync=sync)
    report("histogram", "numba_cuda", ms, f"{hist_n / ms / 1e6:.3g} Gvalues/s",
           check_hist(case.name, "numba_cuda", cp.asnumpy(counts), reference, ms))
    hist = [None]
    ms = median_ms(lambda: hist.__setitem__(0, cp.histogram(x, bins=NBINS, range=(XMIN, XMAX))[0]),
                   sync=cp.cuda.Device().synchronize)
    report("histogram", "cupy", ms, f"{hist_n / ms / 1e6:.3g} Gvalues/s",
           check_hist(case.name, "cupy", cp.asnumpy(hist[0]), reference, ms))


if __name__ == "__main__":
    sys.exit(run_chosen_parts(cpu, gpu))
