"""The peers of Unison's element-wise benchmarks, timed on the same machine in the same run, at
the sizes of the run's cases (the manifest: peer_timing.cases).

CPU part (always; NumPy and Numba): every element-wise case of the tutorials, float32 unless the
case says otherwise (add_int64, zero_suppress's int16), on host arrays:
  - numba_cpu: the tutorials' ufuncs as @vectorize(..., target='parallel') (every core):
    add, hypot (the tutorial's formula, with 0 for hypot(0, 0)), gaussian_pdf, polar_distance
    (its polar_to_cartesian an @njit helper), zero_suppress, clip, make_pulses then add (chained, as
    the tutorial does), hidden_layer fused (one ufunc) and separate (normalize, weigh,
    activate: three ufuncs);
  - numpy: the same as NumPy array expressions (one thread; hidden_layer as
    np.tanh(g / 255 * w), three passes: beside hidden_layer_separate).
  Wall time (time.perf_counter): two warm-up calls (the first compiles), then the median of
  at least three calls (more, up to 20, within about a second).
GPU part (where CuPy and a CUDA device are found): Numba's @vectorize(target='cuda') (the
tutorials' way) and CuPy (ElementwiseKernel, and plain array expressions), on device arrays,
float32, gaussian_pdf and hidden_layer. Each case: three warm-up calls, then the median of 30
calls timed with CUDA events, one event pair per call (as unison-bench-cases's batches, the arrays stay
on the device).
Prints one line per case and checks every result against a float64 NumPy reference on a sample
(its first 1,000,003 values): the relative error ||out - ref|| / ||ref||, within 1e-5 (integer
results exactly). Without Numba the numba_cpu peers, without CuPy or a CUDA device the GPU part,
say they are skipped.
Usage: elementwise_peers.py [--scale=F]
"""
import math
import sys

import numpy as np

from peer_timing import (cases, gpu_missing, median_cpu_ms, run_parts, numba_missing, peer_args, record,
                         relative_error)

SQRT_2PI = math.sqrt(2 * math.pi)
SAMPLE = 1_000_003  # the values checked against the float64 reference


# ---- CPU part -----------------------------------------------------------------------------------

def numba_cpu_ufuncs():
    """The tutorials' ufuncs for Numba's parallel CPU target (compiled here, at decoration)."""
    from types import SimpleNamespace

    from numba import njit, vectorize

    par = dict(target="parallel")

    @vectorize(["int64(int64, int64)", "float32(float32, float32)"], **par)
    def add(x, y):
        return x + y

    @vectorize(["float32(float32, float32)"], **par)
    def hypot(x, y):
        # The tutorial's formula (Wikipedia's); it divides 0 by 0 at (0, 0).
        x = abs(x)
        y = abs(y)
        t = min(x, y)
        x = max(x, y)
        if x == 0:
            return x
        t = t / x
        return x * math.sqrt(1 + t * t)

    @vectorize(["float32(float32, float32, float32)"], **par)
    def gaussian_pdf(x, mean, sigma):
        return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

    @njit
    def polar_to_cartesian(rho, theta):
        return rho * math.cos(theta), rho * math.sin(theta)

    @vectorize(["float32(float32, float32, float32, float32)"], **par)
    def polar_distance(rho1, theta1, rho2, theta2):
        x1, y1 = polar_to_cartesian(rho1, theta1)
        x2, y2 = polar_to_cartesian(rho2, theta2)
        return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5

    @vectorize(["int16(int16, int16)"], **par)
    def zero_suppress(waveform_value, threshold):
        if waveform_value < threshold:
            return 0
        return waveform_value

    @vectorize(["float32(float32, float32, float32)"], **par)
    def clip(x, lo, hi):
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x

    @vectorize(["float32(float32, float32, float32)"], **par)
    def make_pulses(i, period, amplitude):
        return max(math.sin(i / period) - 0.3, 0.0) * amplitude

    @vectorize(["float32(float32, float32)"], **par)
    def hidden_layer(g, w):
        v = g / 255 * w
        return (math.exp(v) - math.exp(-v)) / (math.exp(v) + math.exp(-v))

    @vectorize(["float32(float32)"], **par)
    def normalize(g):
        return g / 255

    @vectorize(["float32(float32, float32)"], **par)
    def weigh(v, w):
        return v * w

    @vectorize(["float32(float32)"], **par)
    def activate(v):
        return (math.exp(v) - math.exp(-v)) / (math.exp(v) + math.exp(-v))

    return SimpleNamespace(add=add, hypot=hypot, gaussian_pdf=gaussian_pdf,
                           polar_distance=polar_distance, zero_suppress=zero_suppress,
                           clip=clip, make_pulses=make_pulses, hidden_layer=hidden_layer, normalize=normalize,
                           weigh=weigh, activate=activate)


def cpu_case(case, peer, fn, ref, tolerance):
    """Times fn() (it returns its output array), checks its output's first SAMPLE values
    against ref (float64), prints a line and records it beside unison-bench's `case`."""
    box = {}
    ms = median_cpu_ms(lambda: box.__setitem__("out", fn()), warmups=2 if peer == "numba_cpu" else 1)
    err = relative_error(np.asarray(box["out"]).ravel()[:SAMPLE], ref)
    ok = err <= tolerance
    print(f"{case:<34} {peer:<10} {ms:10.4f} ms  rel.err {err:.1e}{'' if ok else '  FAIL'}",
          flush=True)
    record(case, peer, ms, err, tolerance)


def cpu(scale):
    why = numba_missing()
    nb = None
    if why:
        print(f"skipped the numba_cpu peers: {why}")
    else:
        import numba
        nb = numba_cpu_ufuncs()
        print(f"cpu: numba {numba.__version__}, {numba.get_num_threads()} threads; numpy "
              f"{np.__version__}")

    def both(case, numba_fn, numpy_fn, ref, tolerance=1e-5):
        if nb is not None:
            cpu_case(case, "numba_cpu", numba_fn, ref, tolerance)
        cpu_case(case, "numpy", numpy_fn, ref, tolerance)

    def uniform(rng, n, lo, hi):
        return rng.uniform(lo, hi, n).astype(np.float32)

    def s(x):  # the sample checked, in float64
        return np.asarray(x[:SAMPLE], dtype=np.float64)

    rng = np.random.default_rng(2025)
    # (each function at the sizes of the run's cases with the data on the device; at the seed
    # sizes: add 1e5, hypot 1e6, gaussian_pdf 1e6 and 1e8, polar_distance 1e6, zero_suppress 1e5,
    # make_pulses 1e5, clip 1e8, hidden_layer 1e6 and 1e8)
    for case in cases("add_int64", "cpu"):
        x = rng.integers(-10**12, 10**12, case.n, dtype=np.int64)
        y = rng.integers(-10**12, 10**12, case.n, dtype=np.int64)
        out = np.empty(case.n, np.int64)
        both(case.name, lambda: nb.add(x, y, out=out), lambda: np.add(x, y, out=out),
             s(x) + s(y), 0)
    for case in cases("add_float32", "cpu"):
        x, y = uniform(rng, case.n, -1e3, 1e3), uniform(rng, case.n, -1e3, 1e3)
        out = np.empty(case.n, np.float32)
        both(case.name, lambda: nb.add(x, y, out=out), lambda: np.add(x, y, out=out), s(x) + s(y))
    for case in cases("hypot", "cpu"):
        x, y = uniform(rng, case.n, -1e3, 1e3), uniform(rng, case.n, -1e3, 1e3)
        out = np.empty(case.n, np.float32)
        both(case.name, lambda: nb.hypot(x, y, out=out), lambda: np.hypot(x, y, out=out),
             np.hypot(s(x), s(y)))
    mean, sigma = np.float32(0), np.float32(1)
    for case in cases("gaussian_pdf", "cpu"):
        x = uniform(rng, case.n, -5, 5)
        out = np.empty(case.n, np.float32)
        both(case.name, lambda: nb.gaussian_pdf(x, mean, sigma, out=out),
             lambda: np.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * np.float32(SQRT_2PI)),
             np.exp(-0.5 * s(x) ** 2) / SQRT_2PI)
        x = out = None  # frees the arrays before the next size
    # polar_distance: the points (r, t) and (t, r), as unison-bench's case
    for case in cases("polar_distance", "cpu"):
        r, t = uniform(rng, case.n, 0, 3), uniform(rng, case.n, 0, 3)
        out = np.empty(case.n, np.float32)

        def np_polar():
            x1, y1 = r * np.cos(t), r * np.sin(t)
            x2, y2 = t * np.cos(r), t * np.sin(r)
            return np.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)

        rs, ts = s(r), s(t)
        both(case.name, lambda: nb.polar_distance(r, t, t, r, out=out), np_polar,
             np.hypot(rs * np.cos(ts) - ts * np.cos(rs), rs * np.sin(ts) - ts * np.sin(rs)))
    threshold = np.int16(15)
    for case in cases("zero_suppress", "cpu"):
        wave = rng.integers(-100, 100, case.n, dtype=np.int16)
        out = np.empty(case.n, np.int16)
        both(case.name, lambda: nb.zero_suppress(wave, threshold, out=out),
             lambda: np.where(wave < threshold, np.int16(0), wave),
             np.where(s(wave) < 15, 0.0, s(wave)), 0)
    # make_pulses: the pulses, then the noise added (unison-bench's inputs and period)
    period, amplitude = np.float32(100_000 / 23), np.float32(100)
    for case in cases("make_pulses", "cpu"):
        t, noise = uniform(rng, case.n, 0, 255), uniform(rng, case.n, 0.3, 0.7)
        out, pulses = np.empty(case.n, np.float32), np.empty(case.n, np.float32)

        def nb_pulses():
            nb.make_pulses(t, period, amplitude, out=pulses)
            return nb.add(pulses, noise, out=out)

        both(case.name, nb_pulses,
             lambda: np.maximum(np.sin(t / period) - np.float32(0.3), np.float32(0)) * amplitude
             + noise,
             np.maximum(np.sin(s(t) / float(period)) - 0.3, 0) * 100 + s(noise))
    # clip, float32: x uniform in [-3, 3) limited to [-1, 1]
    lo, hi = np.float32(-1), np.float32(1)
    for case in cases("clip", "cpu"):
        x = uniform(rng, case.n, -3, 3)
        out = np.empty(case.n, np.float32)
        both(case.name, lambda: nb.clip(x, lo, hi, out=out), lambda: np.clip(x, lo, hi, out=out),
             np.clip(s(x), -1.0, 1.0))
        x = out = None
    # hidden_layer: fused (one ufunc) and separate (three)
    separate = {c.n: c.name for c in cases("hidden_layer_separate", "cpu")}
    for case in cases("hidden_layer_fused", "cpu"):
        n = case.n
        g = np.floor(rng.uniform(0, 255, n)).astype(np.float32)
        w = rng.normal(0.5, 0.1, n).astype(np.float32)
        out, tmp = np.empty(n, np.float32), np.empty(n, np.float32)
        ref = np.tanh(s(g) / 255 * s(w))
        if nb is not None:
            cpu_case(case.name, "numba_cpu", lambda: nb.hidden_layer(g, w, out=out), ref, 1e-5)

            def nb_three():
                nb.normalize(g, out=tmp)
                nb.weigh(tmp, w, out=tmp)
                return nb.activate(tmp, out=out)

            if n in separate:
                cpu_case(separate[n], "numba_cpu", nb_three, ref, 1e-5)
        if n in separate:
            cpu_case(separate[n], "numpy", lambda: np.tanh(g / 255 * w), ref, 1e-5)
        g = w = out = tmp = None


# ---- GPU part -----------------------------------------------------------------------------------

def gpu(scale):
    import cupy as cp
    from numba import cuda, vectorize

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
        got = cp.asnumpy(got[:SAMPLE]).astype(np.float64)
        ref = ref[:SAMPLE]
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

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    rng = np.random.default_rng(2024)
    # (the sizes of the run's cases on the GPU: gaussian_pdf and hidden_layer at 1e6 and 1e8 at
    # the seed sizes)
    pdf = {c.n: c.name for c in cases("gaussian_pdf", "gpu")}
    fused = {c.n: c.name for c in cases("hidden_layer_fused", "gpu")}
    separate = {c.n: c.name for c in cases("hidden_layer_separate", "gpu")}
    for n in sorted(set(pdf) | set(fused) | set(separate)):
        x = rng.uniform(-5, 5, n).astype(np.float32)
        g = np.floor(rng.uniform(0, 255, n)).astype(np.float32)
        w = rng.normal(0.5, 0.1, n).astype(np.float32)
        dx, dg, dw = cp.asarray(x), cp.asarray(g), cp.asarray(w)
        out = cp.empty(n, dtype=cp.float32)
        nb_out = cuda.as_cuda_array(out)
        nb_x, nb_g, nb_w = (cuda.as_cuda_array(a) for a in (dx, dg, dw))
        xs = x[:SAMPLE].astype(np.float64)
        ref_pdf = np.exp(-0.5 * xs * xs) / SQRT_2PI
        v = g[:SAMPLE].astype(np.float64) / 255 * w[:SAMPLE]
        ref_hidden = np.tanh(v)
        b2, b3 = 2 * 4 * n, 3 * 4 * n
        report("numba gaussian_pdf", n, b2,
               lambda: nb_gaussian_pdf(nb_x, np.float32(0), np.float32(1), out=nb_out),
               lambda: out, ref_pdf, pdf.get(n), "numba_cuda")
        report("cupy ElementwiseKernel gaussian_pdf", n, b2,
               lambda: cp_gaussian(dx, np.float32(0), np.float32(1), out),
               lambda: out, ref_pdf, pdf.get(n), "cupy")
        report("cupy expression gaussian_pdf", n, b2,
               lambda: cp.multiply(cp.exp(-0.5 * dx * dx), np.float32(1 / SQRT_2PI), out=out),
               lambda: out, ref_pdf)
        report("numba hidden_layer fused", n, b3,
               lambda: nb_hidden_layer(nb_g, nb_w, out=nb_out), lambda: out, ref_hidden,
               fused.get(n), "numba_cuda")
        tmp = cuda.device_array(n, dtype=np.float32)

        def nb_three():
            nb_normalize(nb_g, out=tmp)
            nb_weigh(tmp, nb_w, out=tmp)
            nb_activate(tmp, out=nb_out)
        report("numba hidden_layer three ufuncs", n, b3, nb_three, lambda: out, ref_hidden,
               separate.get(n), "numba_cuda")
        report("cupy ElementwiseKernel hidden_layer", n, b3,
               lambda: cp_hidden(dg, dw, out), lambda: out, ref_hidden,
               fused.get(n), "cupy")
        dx = dg = dw = out = tmp = nb_out = nb_x = nb_g = nb_w = None  # freed before the next size
        cp.get_default_memory_pool().free_all_blocks()


def main():
    scale, _, _ = peer_args()
    return run_parts(cpu, gpu, scale)


if __name__ == "__main__":
    sys.exit(main())
