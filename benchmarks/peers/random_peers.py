"""The peers of Unison's random-number benchmark (docs/workloads.md section 6), timed on the same
machine in the same run, at the sizes of the run's cases (the manifest: peer_timing.cases).

monte_carlo_pi, 2e9 samples (at the seed size), beside unison-bench's monte_carlo_pi/<size>:
  - numba_cuda: the tutorial's kernel (xoroshiro128p_uniform_float32, a stream per thread),
    launched over the whole GPU (the tutorial's 24 blocks of 64 threads use 1.5k threads);
  - cupy: uniform points from cupy.random in chunks of 1e8, counted on the device;
  - numba_cpu: @njit(parallel=True), a prange over per-thread blocks of samples (beside the
    Serial backend's case, 2e8 samples at the seed size, with fewer than 8 threads; else beside
    OpenMP's, 2e9).
Each estimate is checked: pi within 5 standard errors.
Median wall time (synchronized) of 5 calls after a warm-up.
Usage: random_peers.py [gpu] [cpu] [--scale=F]
         (both by default; cpu alone needs only NumPy and Numba; without CuPy or a CUDA device
         the gpu part says so)
"""
import math
import sys

import numpy as np

np.row_stack = np.vstack  # numba-cuda fails to import with NumPy 2.5 without it (GPU.md)

import numba
from numba import njit, prange
from peer_timing import cases, median_wall_ms, record, run_chosen_parts

def median_ms(fn, reps=5, sync=lambda: None):
    return median_wall_ms(fn, reps, sync)


def report(workload, name, ms, rate, check):
    print(f"{workload:16s} {name:12s} {ms:10.3f} ms  {rate:14s} {check}", flush=True)


def check_pi(case, name, estimate, samples, ms):
    """Prints nothing; records the result beside unison-bench's `case` (a GPU peer rounds its
    samples down to a multiple of its threads) in its measure (|estimate - pi| / pi against 5
    standard errors of `samples`), and returns the check's text."""
    p = math.pi / 4
    se = 4 * math.sqrt(p * (1 - p) / samples)
    ok = abs(estimate - math.pi) < 5 * se
    record(case, name, ms, abs(estimate - math.pi) / math.pi,
           5 * se / math.pi)
    return f"{estimate:.7f} ({'pass' if ok else 'FAIL'}: {abs(estimate - math.pi) / se:.1f} s.e.)"


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


def cpu(scale):
    threads = numba.get_num_threads()
    # (beside Serial's case where Numba has fewer than 8 threads: OpenMP's takes 10 times the
    # samples, seconds a call on a small machine)
    for case in cases("monte_carlo_pi", ("Serial", "OpenMP") if threads < 8 else "cpu"):
        samples = case.samples
        blocks = min(threads * 8, samples)
        est = [0.0]
        ms = median_ms(lambda: est.__setitem__(0, nb_cpu_pi(samples, blocks)))
        report("monte_carlo_pi", "numba_cpu", ms, f"{samples / ms / 1e6:.3g} Gsamples/s",
               check_pi(case.name, "numba_cpu", est[0], samples, ms)
               + f" ({samples:.0e} samples, {threads} threads)")


def gpu(scale):
    from numba import cuda
    from numba.cuda.random import xoroshiro128p_uniform_float32

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

    for case in cases("monte_carlo_pi", "gpu"):
        gpu_case(case, compute_pi)


def gpu_case(case, compute_pi):
    import cupy as cp
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states

    sync = cuda.synchronize
    pi_samples = case.samples
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
           check_pi(case.name, "numba_cuda", float(out.copy_to_host().mean()), samples, ms))

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
           check_pi(case.name, "cupy", result[0], pi_samples, ms))


if __name__ == "__main__":
    sys.exit(run_chosen_parts(cpu, gpu))
