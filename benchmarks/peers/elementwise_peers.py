"""The peers of Unison's element-wise benchmarks, timed on the same GPU in the same run.

Numba's @vectorize(target='cuda') (the tutorials' way) and CuPy (ElementwiseKernel, and plain
array expressions), on device arrays, float32, at the sizes unison_bench uses. Each case:
three warm-up calls, then the median of 30 calls timed with CUDA events, one event pair per call
(as unison_bench's batches, the arrays stay on the device). Prints one line per case and checks
every result against a float64 NumPy reference on a sample. Without CuPy or a CUDA device it
says so and exits 0.
"""
import math
import sys

import numpy as np

from peer_timing import gpu_missing, record

if __name__ == "__main__" and gpu_missing():
    print(f"skipped: {gpu_missing()}")
    sys.exit(0)

import cupy as cp
from numba import cuda, vectorize

SQRT_2PI = math.sqrt(2 * math.pi)


@vectorize(["float32(float32, float32, float32)"], target="cuda")
def nb_gaussian_pdf(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)


@vectorize(["float32(float32, float32)"], target="cuda")
def nb_hidden_layer(g, w):
    v = g / 255 * w
    return (math.exp(v) - math.exp(-v)) / (math.exp(v) + math.exp(-v))


@vectorize(["float32(float32)"], target="cuda")
def nb_normalize(g):
    return g / 255


@vectorize(["float32(float32, float32)"], target="cuda")
def nb_weigh(v, w):
    return v * w


@vectorize(["float32(float32)"], target="cuda")
def nb_activate(v):
    return (math.exp(v) - math.exp(-v)) / (math.exp(v) + math.exp(-v))


cp_gaussian = cp.ElementwiseKernel(
    "float32 x, float32 mean, float32 sigma", "float32 y",
    "float z = (x - mean) / sigma; y = expf(-0.5f * z * z) / (sigma * 2.5066282746310002f)",
    "cp_gaussian")
cp_hidden = cp.ElementwiseKernel(
    "float32 g, float32 w", "float32 y", "y = tanhf(g / 255.0f * w)", "cp_hidden")


def median_ms(fn, reps=30):
    for _ in range(3):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(times)), float(np.min(times)), float(np.max(times))


def check(name, got, ref):
    got = cp.asnumpy(got[:1_000_003]).astype(np.float64)
    ref = ref[:1_000_003]
    err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
    if not err < 1e-5:
        print(f"{name}: relative error {err:.3g} > 1e-5", file=sys.stderr)
    return err


def report(name, n, nbytes, fn, out, ref, case=None, peer=None):
    """case, peer: the unison-bench case this stands beside, and the peer's column."""
    fn()
    err = check(name, out(), ref)
    med, lo, hi = median_ms(fn)
    print(f"{name:<34} n={n:>9} median {med:8.4f} ms  [{lo:.4f}, {hi:.4f}]  "
          f"{nbytes / med / 1e6:7.1f} GB/s  rel.err {err:.1e}")
    if case:
        record(case, peer, med, err, 1e-5)


def main():
    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    rng = np.random.default_rng(2024)
    for n in (1_000_000, 100_000_000):
        x = rng.uniform(-5, 5, n).astype(np.float32)
        g = np.floor(rng.uniform(0, 255, n)).astype(np.float32)
        w = rng.normal(0.5, 0.1, n).astype(np.float32)
        dx, dg, dw = cp.asarray(x), cp.asarray(g), cp.asarray(w)
        out = cp.empty(n, dtype=cp.float32)
        nb_out = cuda.as_cuda_array(out)
        nb_x, nb_g, nb_w = (cuda.as_cuda_array(a) for a in (dx, dg, dw))
        xs = x[:1_000_003].astype(np.float64)
        ref_pdf = np.exp(-0.5 * xs * xs) / SQRT_2PI
        v = g[:1_000_003].astype(np.float64) / 255 * w[:1_000_003]
        ref_hidden = np.tanh(v)
        b2, b3 = 2 * 4 * n, 3 * 4 * n
        tag = f"1e{round(math.log10(n))}"
        report("numba gaussian_pdf", n, b2,
               lambda: nb_gaussian_pdf(nb_x, np.float32(0), np.float32(1), out=nb_out),
               lambda: out, ref_pdf, f"gaussian_pdf/{tag}/device", "numba_cuda")
        report("cupy ElementwiseKernel gaussian_pdf", n, b2,
               lambda: cp_gaussian(dx, np.float32(0), np.float32(1), out),
               lambda: out, ref_pdf, f"gaussian_pdf/{tag}/device", "cupy")
        report("cupy expression gaussian_pdf", n, b2,
               lambda: cp.multiply(cp.exp(-0.5 * dx * dx), np.float32(1 / SQRT_2PI), out=out),
               lambda: out, ref_pdf)
        report("numba hidden_layer fused", n, b3,
               lambda: nb_hidden_layer(nb_g, nb_w, out=nb_out), lambda: out, ref_hidden,
               f"hidden_layer_fused/{tag}/device", "numba_cuda")
        tmp = cuda.device_array(n, dtype=np.float32)

        def nb_three():
            nb_normalize(nb_g, out=tmp)
            nb_weigh(tmp, nb_w, out=tmp)
            nb_activate(tmp, out=nb_out)
        report("numba hidden_layer three ufuncs", n, b3, nb_three, lambda: out, ref_hidden,
               f"hidden_layer_separate/{tag}/device", "numba_cuda")
        report("cupy ElementwiseKernel hidden_layer", n, b3,
               lambda: cp_hidden(dg, dw, out), lambda: out, ref_hidden,
               f"hidden_layer_fused/{tag}/device", "cupy")
        del dx, dg, dw, out, tmp
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
