"""Unison's own kernels called from Python (the `unison` module) on the cases of unison-bench,
at the sizes of the run's cases (the manifest: peer_timing.cases): the same kernel as the
C++ column beside it, so that the difference is what the Python call costs.

  - python_openmp: NumPy arrays (host memory: the OpenMP backend);
  - python_cuda: CuPy arrays (device memory: the Cuda backend), on a non-blocking CuPy stream
    that the calls find as CuPy's current stream.

Parts: "elementwise" (every element-wise case's "device" form), "crossover" (gaussian_pdf from
1e3 to 1e8 values: the small calls show the overhead), "histogram" (the histogram of 1e8
values). Each case is timed as unison-bench times its own: calls with out= given, `batch` of them
between two waits for the results (the host: the call itself; the GPU: the stream), the batch
doubled until it lasts 10 ms, then the median over 7 batches of the time per call. Every result is
checked against a float64 NumPy reference on a sample (its first 1,000,003 values), in the
case's measure.

The module is found by `import unison`, else in the folder $UNISON_PYTHON_DIR (unison-bench sets
it to its build's module); without it, or without CuPy and a CUDA device for the GPU part, the
script says what it skipped.
Usage: python_peers.py [elementwise] [crossover] [histogram] [--scale=F]
"""
import math
import os
import sys
import time

import numpy as np

from peer_timing import cases, gpu_missing, peer_args, record, relative_error

SQRT_2PI = math.sqrt(2 * math.pi)
SAMPLE = 1_000_003  # the values checked against the float64 reference
LEAST_BATCH_S = 10e-3  # as unison-bench's batches


def import_unison():
    """The unison module, or None (and says why)."""
    try:
        import unison
        return unison
    except ImportError:
        pass
    folder = os.environ.get("UNISON_PYTHON_DIR", "")
    if folder and os.path.isdir(folder):
        sys.path.insert(0, folder)
    try:
        import unison
        return unison
    except ImportError as e:
        print(f"skipped the python peers: {type(e).__name__}: {e}")
        return None


def per_call_ms(call, wait):
    """unison-bench's time of one call: batches of calls between two waits, the batch doubled
    until it lasts LEAST_BATCH_S, then the median over 7 batches of their time per call."""
    def batch_s(batch):
        wait()
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        wait()
        return time.perf_counter() - t0

    batch_s(1)  # a warm-up call
    batch = 1
    while batch_s(batch) < LEAST_BATCH_S and batch < (1 << 16):
        batch *= 2
    return float(np.median([batch_s(batch) / batch for _ in range(7)])) * 1e3


def uniform(rng, n, lo, hi, dtype=np.float32):
    return rng.uniform(lo, hi, n).astype(dtype)


def s(x):  # the sample checked, in float64
    return np.asarray(x[:SAMPLE], dtype=np.float64)


def elementwise_cases(where, rng):
    """(case, inputs (NumPy arrays), output dtype, call(u, inputs, out), reference of the
    sample, tolerance) of the element-wise family at the sizes of the run's cases on `where`'s
    backend, one at a time (the large ones are freed before the next)."""
    for c in cases("add_int64", where):
        x = rng.integers(-10**12, 10**12, c.n, dtype=np.int64)
        y = rng.integers(-10**12, 10**12, c.n, dtype=np.int64)
        yield (c.name, (x, y), np.int64, lambda u, a, out: u.add(a[0], a[1], out=out),
               s(x) + s(y), 0)
    for c in cases("add_float32", where):
        x, y = uniform(rng, c.n, -1e3, 1e3), uniform(rng, c.n, -1e3, 1e3)
        yield (c.name, (x, y), np.float32, lambda u, a, out: u.add(a[0], a[1], out=out),
               s(x) + s(y), 1e-5)
    for c in cases("hypot", where):
        x, y = uniform(rng, c.n, -1e3, 1e3), uniform(rng, c.n, -1e3, 1e3)
        yield (c.name, (x, y), np.float32, lambda u, a, out: u.hypot(a[0], a[1], out=out),
               np.hypot(s(x), s(y)), 1e-5)
    for c in cases("gaussian_pdf", where):
        x = uniform(rng, c.n, -5, 5)
        yield (c.name, (x,), np.float32,
               lambda u, a, out: u.gaussian_pdf(a[0], 0.0, 1.0, out=out),
               np.exp(-0.5 * s(x) ** 2) / SQRT_2PI, 1e-5)
    x = y = None
    for c in cases("polar_distance", where):
        r, t = uniform(rng, c.n, 0, 3), uniform(rng, c.n, 0, 3)
        rs, ts = s(r), s(t)
        yield (c.name, (r, t), np.float32,
               lambda u, a, out: u.polar_distance(a[0], a[1], a[1], a[0], out=out),
               np.hypot(rs * np.cos(ts) - ts * np.cos(rs), rs * np.sin(ts) - ts * np.sin(rs)),
               1e-5)
    for c in cases("zero_suppress", where):
        wave = rng.integers(-100, 100, c.n, dtype=np.int16)
        yield (c.name, (wave,), np.int16, lambda u, a, out: u.zero_suppress(a[0], 15, out=out),
               np.where(s(wave) < 15, 0.0, s(wave)), 0)
    period = 100_000 / 23
    for c in cases("make_pulses", where):
        t, noise = uniform(rng, c.n, 0, 255), uniform(rng, c.n, 0.3, 0.7)
        yield (c.name, (t, noise), np.float32,
               lambda u, a, out: u.make_pulses(a[0], a[1], period, 100.0, out=out),
               np.maximum(np.sin(s(t) / np.float32(period)) - 0.3, 0) * 100 + s(noise), 1e-5)
    for c in cases("clip", where):
        x = uniform(rng, c.n, -3, 3)
        yield (c.name, (x,), np.float32, lambda u, a, out: u.clip(a[0], -1.0, 1.0, out=out),
               np.clip(s(x), -1.0, 1.0), 1e-5)
        x = None
    separate = {c.n: c.name for c in cases("hidden_layer_separate", where)}
    for c in cases("hidden_layer_fused", where):
        g = uniform(rng, c.n, 0, 255)
        w = uniform(rng, c.n, 0.3, 0.7)
        ref = np.tanh(s(g) / 255 * s(w))
        # (the separate form's case of the same size, where the run has it)
        for fusion, name in (("fused", c.name), ("separate", separate.get(c.n))):
            if name is None:
                continue
            yield (name, (g, w), np.float32,
                   lambda u, a, out, fusion=fusion: u.hidden_layer(a[0], a[1], out=out,
                                                                   fusion=fusion),
                   ref, 1e-5)
        g = w = None


def crossover_cases(where, rng):
    for c in cases("gaussian_pdf", where, kind="crossover"):
        x = uniform(rng, c.n, -5, 5)
        yield (c.name, (x,), np.float32,
               lambda u, a, out: u.gaussian_pdf(a[0], 0.0, 1.0, out=out),
               np.exp(-0.5 * s(x) ** 2) / SQRT_2PI, 1e-5)


def unison_edges(xmin, xmax, bins):
    """Unison's bin edges in double: e_k = fma(k, (xmax - xmin) / bins, xmin), one rounding
    (computed exactly with fractions, then rounded once), e_bins = xmax. NumPy's round twice
    (k * width, then + xmin): over [-4, 4) in 100 bins its middle edge is 0, Unison's 8.3e-17."""
    from fractions import Fraction
    width = Fraction((xmax - xmin) / bins)
    return np.array([float(k * width + Fraction(xmin)) for k in range(bins)] + [xmax])


def histogram_cases(where, rng):
    """The histogram of 1e8 normal values in 100 bins over [-4, 4): its measure is the sum over
    the bins of |count - the exact count|, exactly 0 (NumPy's histogram of the values in float64
    against Unison's edges; its last bin, unlike Unison's, includes xmax)."""
    for c in cases("histogram", where, start="histogram/f32/"):
        x = rng.standard_normal(c.n, dtype=np.float32)
        ref, _ = np.histogram(x.astype(np.float64), bins=unison_edges(-4.0, 4.0, 100))
        ref[-1] -= np.count_nonzero(x == 4.0)
        yield (c.name, (x,), ("counts", 100),
               lambda u, a, out: u.histogram(a[0], -4.0, 4.0, out), ref, 0)


def run(part_cases, to_device, empty, wait, peer, unison):
    """Each case on arrays made by to_device (NumPy's or CuPy's), timed and checked."""
    for case, inputs, out_kind, call, ref, tolerance in part_cases:
        a = tuple(to_device(x) for x in inputs)
        if isinstance(out_kind, tuple):  # counts: the histogram's int64 bins
            out = empty((out_kind[1],), np.int64)
        else:
            out = empty(inputs[0].shape, out_kind)
        call(unison, a, out)
        wait()
        got = np.asarray(to_host(out)[:SAMPLE], dtype=np.float64)
        if isinstance(out_kind, tuple):
            err = float(np.abs(got - ref).sum())
        else:
            err = relative_error(got, ref)
        ms = per_call_ms(lambda: call(unison, a, out), wait)
        ok = err <= tolerance
        print(f"{case:<40} {peer:<14} {ms * 1e3:12.2f} us  error {err:.1e}"
              f"{'' if ok else '  FAIL'}", flush=True)
        record(case, peer, ms, err, tolerance)
        a = out = None


def to_host(a):
    if type(a).__module__.split(".")[0] == "cupy":
        return a.get()
    return a


def main():
    parts = ("elementwise", "crossover", "histogram")
    scale, chosen, _ = peer_args(parts=parts)
    chosen = chosen or list(parts)
    print(f"scale {scale:g}")
    unison = import_unison()
    if unison is None:
        return 0
    print(f"unison from {os.path.dirname(unison.__file__)}, backends {unison.backends()}; "
          f"numpy {np.__version__}")
    makers = {"elementwise": elementwise_cases, "crossover": crossover_cases,
              "histogram": histogram_cases}

    def part_cases(where):
        rng = np.random.default_rng(2026)
        for p in chosen:
            yield from makers[p](where, rng)

    if "openmp" in unison.backends():
        run(part_cases("cpu"), lambda x: x, np.empty, lambda: None, "python_openmp", unison)
    else:
        print("skipped python_openmp: the module has no OpenMP backend")
    why = gpu_missing()
    if not why and "cuda" not in unison.backends():
        why = "the module has no Cuda backend"
    if why:
        print(f"skipped the gpu part: {why}")
        return 0
    import cupy as cp
    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        run(part_cases("gpu"), cp.asarray, cp.empty, stream.synchronize, "python_cuda", unison)
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
