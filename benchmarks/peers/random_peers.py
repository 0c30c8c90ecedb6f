"""The peers of Unison's random-number benchmark (docs/workloads.md section 6), timed on the same
machine in the same run, at unison-bench's size (--scale=F, as unison-bench's; default 1: the seed
size).

monte_carlo_pi, 2e9 samples (at the seed size), beside unison-bench's monte_carlo_pi/<size>:
  - numba_cuda: the tutorial's kernel (xoroshiro128p_uniform_float32, a stream per thread),
    launched over the whole GPU (the tutorial's 24 blocks of 64 threads use 1.5k threads);
  - cupy: uniform points from cupy.random in chunks of 1e8, counted on the device;
  - numba_cpu: @njit(parallel=True), a prange over per-thread blocks of samples (2e8 samples
    with fewer than 8 threads: unison-bench's Serial size, else its 2e9).
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
from peer_timing import median_wall_ms, record, run_chosen_parts, scaled

PI_SAMPLES = 2_000_000_000  # the seed sizes (unison-bench's Serial runs monte_carlo_pi at 2e8)


def median_ms(fn, reps=5, sync=lambda: None):
    return median_wall_ms(fn, reps, sync)


def report(workload, name, ms, rate, check):
    print(f"{workload:16s} {name:12s} {ms:10.3f} ms  {rate:14s} {check}", flush=True)


def pi_case(samples):
    """unison-bench's name of its monte_carlo_pi case of this many samples (its size as
    benchmarks/cases/random.cpp writes it)."""
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
    samples = scaled(PI_SAMPLES // 10 if threads < 8 else PI_SAMPLES, scale)
    blocks = min(threads * 8, samples)
    est = [0.0]
    ms = median_ms(lambda: est.__setitem__(0, nb_cpu_pi(samples, blocks)))
    report("monte_carlo_pi", "numba_cpu", ms, f"{samples / ms / 1e6:.3g} Gsamples/s",
           check_pi("numba_cpu", est[0], samples, ms) + f" ({samples:.0e} samples, {threads} threads)")


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



if __name__ == "__main__":
    sys.exit(run_chosen_parts(cpu, gpu))
