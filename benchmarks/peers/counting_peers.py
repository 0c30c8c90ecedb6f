"""The peers of Unison's random-number and histogram benchmarks (docs/workloads.md section 6), timed
on the same machine in the same run, at unison-bench's sizes (--scale=F, as unison-bench's;
default 1: the seed sizes).

monte_carlo_pi, 2e9 samples (at the seed size), beside unison-bench's monte_carlo_pi/<size>:
  - numba_cuda: the tutorial's kernel (xoroshiro128p_uniform_float32, a stream per thread),
    launched over the whole GPU (the tutorial's 24 blocks of 64 threads use 1.5k threads);
  - cupy: uniform points from cupy.random in chunks of 1e8, counted on the device;
  - numba_cpu: @njit(parallel=True), a prange over per-thread blocks of samples (2e8 samples
    with fewer than 8 threads: unison-bench's Serial size, else its 2e9).
histogram, 1e8 normal float32 values (at the seed size), 100 bins over [-4, 4):
  - numba_cuda: the tutorial's grid-stride kernel with global atomics, its bin formula fixed
    ((x - xmin) / width, not (x + xmin) / width);
  - cupy: cupy.histogram;
  - numba_cpu: @njit(parallel=True) with a histogram per thread block, summed;
  - numpy: numpy.histogram (one thread).
Each result is checked: pi within 5 standard errors; histogram counts against numpy.histogram's
(which places values exactly against its edges): the tutorial's formula int((x - xmin) / width)
puts values within a rounding of an edge in the neighbouring bin, so the number of values
counted elsewhere is shown, and more than one in a million fails.
Median wall time (synchronized) of 5 calls after a warm-up.
Usage: counting_peers.py [gpu] [cpu] [--scale=F]
         (both by default; cpu alone needs only NumPy and Numba; without CuPy or a CUDA device
         the gpu part says so)
"""
import math
import sys

import numpy as np

np.row_stack = np.vstack  # numba-cuda fails to import with NumPy 2.5 without it (GPU.md)

import numba
from numba import njit, prange
from peer_timing import gpu_missing, median_wall_ms, peer_args, record, scaled, size_tag

PI_SAMPLES = 2_000_000_000  # the seed sizes (unison-bench's Serial runs monte_carlo_pi at 2e8)
HIST_N = 100_000_000
XMIN, XMAX, NBINS = -4.0, 4.0, 100


def median_ms(fn, reps=5, sync=lambda: None):
    return median_wall_ms(fn, reps, sync)


def pi_case(samples):
    """unison-bench's name of its monte_carlo_pi case of this many samples (its size as
    bench_counting.cpp writes it)."""
    size = "2e9" if samples == 2_000_000_000 else "2e8" if samples == 200_000_000 else str(samples)
    return f"monte_carlo_pi/{size}"


def check_pi(name, estimate, samples, ms, case_samples=None):
    """Prints nothing; records the result beside unison-bench's monte_carlo_pi/<size> of
    case_samples (default: samples; a GPU peer rounds the samples down to a multiple of its
    threads) in its measure (|estimate - pi| / pi against 5 standard errors of `samples`), and
    returns the check's text."""
    p = math.pi / 4
    se = 4 * math.sqrt(p * (1 - p) / samples)
    ok = abs(estimate - math.pi) < 5 * se
    record(pi_case(case_samples or samples), name, ms, abs(estimate - math.pi) / math.pi,
           5 * se / math.pi)
    return f"{estimate:.7f} ({'pass' if ok else 'FAIL'}: {abs(estimate - math.pi) / se:.1f} s.e.)"


def check_hist(name, counts, reference, ms, n):
    """The same for the histogram (unison-bench's measure: the sum over the bins of |count -
    reference count|, exactly 0 to pass; this text allows one value in a million)."""
    diff = int(np.abs(np.asarray(counts, dtype=np.int64) - reference).sum())
    record(f"histogram/f32/{size_tag(n)}/bins100", name, ms, diff, 0)
    off = diff // 2
    ok = off <= reference.sum() // 1_000_000
    return f"{'pass' if ok else 'FAIL'}: {off} values in another bin than numpy.histogram's"


def report(workload, name, ms, rate, check):
    print(f"{workload:16s} {name:12s} {ms:10.3f} ms  {rate:14s} {check}", flush=True)


@njit
def _pi_block(n, seed):
    np.random.seed(seed)  # per-thread state in Numba: seeded per block
    c = 0
    for _ in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y < 1.0:
            c += 1
    return c


# The block's loop in its own function: Numba 0.6x's parfor pass fails on it inlined in the
# prange body ("unexpected cycle in lookup()", the GPU machine's Numba).
@njit(parallel=True)
def nb_cpu_pi(samples, blocks):
    inside = np.zeros(blocks, np.int64)
    per = samples // blocks
    for b in prange(blocks):
        inside[b] = _pi_block(per + (1 if b < samples % blocks else 0), b + 1)
    return 4.0 * inside.sum() / samples


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
    samples = scaled(PI_SAMPLES // 10 if threads < 8 else PI_SAMPLES, scale)
    blocks = min(threads * 8, samples)
    est = [0.0]
    ms = median_ms(lambda: est.__setitem__(0, nb_cpu_pi(samples, blocks)))
    report("monte_carlo_pi", "numba_cpu", ms, f"{samples / ms / 1e6:.3g} Gsamples/s",
           check_pi("numba_cpu", est[0], samples, ms) + f" ({samples:.0e} samples, {threads} threads)")
    n = scaled(HIST_N, scale)
    x = normal_values(n)
    reference, _ = np.histogram(x, bins=NBINS, range=(XMIN, XMAX))
    out = [None]
    ms = median_ms(lambda: out.__setitem__(0, nb_cpu_hist(x, XMIN, XMAX, NBINS, blocks)))
    report("histogram", "numba_cpu", ms, f"{n / ms / 1e6:.3g} Gvalues/s",
           check_hist("numba_cpu", out[0], reference, ms, n))
    ms = median_ms(lambda: out.__setitem__(0, np.histogram(x, bins=NBINS, range=(XMIN, XMAX))[0]), reps=3)
    report("histogram", "numpy", ms, f"{n / ms / 1e6:.3g} Gvalues/s",
           check_hist("numpy", out[0], reference, ms, n))


def gpu(scale):
    import cupy as cp
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def compute_pi(rng_states, iterations, out):
        thread_id = cuda.grid(1)
        inside = 0
        for i in range(iterations):
            x = xoroshiro128p_uniform_float32(rng_states, thread_id)
            y = xoroshiro128p_uniform_float32(rng_states, thread_id)
            if x**2 + y**2 <= 1.0:
                inside += 1
        out[thread_id] = 4.0 * inside / iterations

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
    pi_samples = scaled(PI_SAMPLES, scale)  # unison-bench's size on a GPU
    # The whole GPU (132 SMs x 8 blocks x 4) at the seed size; fewer blocks where there are
    # fewer samples than threads, at least one sample each.
    threads_per_block = 256
    blocks = max(1, min(132 * 8 * 4, pi_samples // threads_per_block))
    threads = threads_per_block * blocks
    iterations = max(1, pi_samples // threads)
    states = create_xoroshiro128p_states(threads, seed=1)
    out = cuda.device_array(threads, dtype=np.float32)
    ms = median_ms(lambda: compute_pi[blocks, threads_per_block](states, iterations, out), sync=sync)
    samples = iterations * threads
    report("monte_carlo_pi", "numba_cuda", ms, f"{samples / ms / 1e6:.3g} Gsamples/s",
           check_pi("numba_cuda", float(out.copy_to_host().mean()), samples, ms, pi_samples))

    chunk = 100_000_000
    result = [0.0]

    def cupy_pi():
        inside, done = 0, 0
        while done < pi_samples:
            c = min(chunk, pi_samples - done)
            p = cp.random.random((2, c), dtype=cp.float32)
            inside += int(cp.count_nonzero(p[0] * p[0] + p[1] * p[1] < 1.0))
            done += c
        result[0] = 4.0 * inside / pi_samples

    ms = median_ms(cupy_pi, sync=cp.cuda.Device().synchronize)
    report("monte_carlo_pi", "cupy", ms, f"{pi_samples / ms / 1e6:.3g} Gsamples/s",
           check_pi("cupy", result[0], pi_samples, ms))

    hist_n = scaled(HIST_N, scale)
    x_host = normal_values(hist_n)
    reference, _ = np.histogram(x_host, bins=NBINS, range=(XMIN, XMAX))
    x = cp.asarray(x_host)
    counts = cp.zeros(NBINS, dtype=cp.int32)

    def numba_hist():
        counts.fill(0)
        histogram[132 * 8, 256](x, np.float32(XMIN), np.float32(XMAX), counts)

    ms = median_ms(numba_hist, sync=sync)
    report("histogram", "numba_cuda", ms, f"{hist_n / ms / 1e6:.3g} Gvalues/s",
           check_hist("numba_cuda", cp.asnumpy(counts), reference, ms, hist_n))
    hist = [None]
    ms = median_ms(lambda: hist.__setitem__(0, cp.histogram(x, bins=NBINS, range=(XMIN, XMAX))[0]),
                   sync=cp.cuda.Device().synchronize)
    report("histogram", "cupy", ms, f"{hist_n / ms / 1e6:.3g} Gvalues/s",
           check_hist("cupy", cp.asnumpy(hist[0]), reference, ms, hist_n))


def main():
    scale, what, _ = peer_args(parts=("gpu", "cpu"))
    what = what or ["gpu", "cpu"]
    print(f"scale {scale:g}")
    if "gpu" in what:
        if gpu_missing():
            print(f"skipped the gpu part: {gpu_missing()}")
        else:
            gpu(scale)
    if "cpu" in what:
        cpu(scale)
    return 0


if __name__ == "__main__":
    sys.exit(main())
