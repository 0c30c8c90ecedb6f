"""Unison's kernels on your own arrays.

Every function takes NumPy, CuPy, PyTorch or Numba arrays (any object that speaks DLPack, the
CUDA Array Interface or the buffer protocol) and works on their memory in place: no copy, no
conversion. Arrays in host memory run on the OpenMP backend (``backend="serial"`` for Serial),
arrays in CUDA device memory on the Cuda backend, on the caller's current stream (CuPy's,
PyTorch's) or on ``stream=``. The result goes into ``out=`` when it is given, else into a new
array of the first input's library, which the function returns.

Host calls release the GIL and return when the result is in memory. Device calls are enqueued
on the stream and return at once, ordered with the caller's own work on that stream.

Bad input raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the function, the
argument and its dtype, shape, strides and device; nothing is written.
"""

import numbers as _numbers

from . import _unison

__version__ = _unison.version

__all__ = [
    "add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "clip", "make_pulses",
    "hidden_layer", "l2_norm", "matmul_core", "histogram", "monte_carlo_pi", "diffusion_step",
    "diffuse", "diffuse_history", "jagged_field", "convolve", "convolve_extent",
    "matmul_reduce", "backends", "finalize", "release_temporary_memory", "temporary_memory_bytes",
]

backends = _unison.backends
finalize = _unison.finalize
release_temporary_memory = _unison.release_temporary_memory
temporary_memory_bytes = _unison.temporary_memory_bytes


def _library(a):
    return type(a).__module__.split(".")[0]


def _is_array(a):
    return hasattr(a, "__dlpack__") or hasattr(a, "__cuda_array_interface__") or (
        hasattr(a, "shape") and hasattr(a, "dtype"))


def _scalar(v):
    """A Python number for C++ (NumPy's scalars included); arrays pass through."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, _numbers.Integral):
        return int(v)
    if isinstance(v, _numbers.Real):
        return float(v)
    return v


def _stream_of(stream, arrays):
    """The stream device work is enqueued on, as an integer (None for host arrays)."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attr in ("ptr", "cuda_stream", "handle"):
            value = getattr(stream, attr, None)
            if value is not None:
                return int(value)
        raise TypeError(f"unison: stream {stream!r} is not an integer or a stream object "
                        "(with .ptr, .cuda_stream or .handle)")
    for a in arrays:
        lib = type(a).__module__
        if lib.startswith("cupy"):
            import cupy
            return cupy.cuda.get_current_stream().ptr
        if lib.startswith("torch") and getattr(a, "is_cuda", False):
            import torch
            return torch.cuda.current_stream(a.device).cuda_stream
    return None


def _empty(like, shape, dtype=None):
    """A new array of like's library, on like's device."""
    lib = _library(like)
    dtype = like.dtype if dtype is None else dtype
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    if lib == "torch":
        import torch
        return torch.empty(shape, dtype=dtype, device=like.device)
    if hasattr(like, "__cuda_array_interface__") and not hasattr(like, "__array_interface__"):
        from numba import cuda
        return cuda.device_array(shape, dtype=dtype)
    import numpy
    return numpy.empty(shape, dtype=dtype)


def _first_array(*values):
    for v in values:
        if _is_array(v):
            return v
    return None


def _binary(fn, x, y, out, backend, stream):
    x, y = _scalar(x), _scalar(y)
    like = _first_array(x, y)
    if out is None and like is not None:
        out = _empty(like, like.shape)
    fn(x, y, out, backend or "", _stream_of(stream, [a for a in (like, out) if a is not None]))
    return out


def add(x, y, out=None, *, backend=None, stream=None):
    """out = x + y, element by element (float32, float64, int32, int64; x or y may be a number)."""
    return _binary(_unison.add, x, y, out, backend, stream)


def hypot(x, y, out=None, *, backend=None, stream=None):
    """out = sqrt(x² + y²) without overflow (float32, float64; x or y may be a number)."""
    return _binary(_unison.hypot, x, y, out, backend, stream)


def gaussian_pdf(x, mean=0.0, sigma=1.0, out=None, *, backend=None, stream=None):
    """The normal density at x (mean and sigma: numbers or arrays like x)."""
    mean, sigma = _scalar(mean), _scalar(sigma)
    out = out if out is not None else _empty(x, x.shape)
    _unison.gaussian_pdf(x, mean, sigma, out, backend or "", _stream_of(stream, [x, out]))
    return out


def polar_distance(rho1, theta1, rho2, theta2, out=None, *, backend=None, stream=None):
    """The distance between the points (rho1, theta1) and (rho2, theta2) in polar form."""
    out = out if out is not None else _empty(rho1, rho1.shape)
    _unison.polar_distance(rho1, theta1, rho2, theta2, out, backend or "",
                           _stream_of(stream, [rho1, out]))
    return out


def zero_suppress(waveform, threshold, out=None, *, backend=None, stream=None):
    """out = 0 where waveform < threshold, else waveform (int16, float32, float64)."""
    threshold = _scalar(threshold)
    out = out if out is not None else _empty(waveform, waveform.shape)
    _unison.zero_suppress(waveform, threshold, out, backend or "",
                          _stream_of(stream, [waveform, out]))
    return out


def clip(x, lo, hi, out=None, *, backend=None, stream=None):
    """x limited to [lo, hi], as NumPy's clip (lo and hi: numbers or arrays like x)."""
    lo, hi = _scalar(lo), _scalar(hi)
    out = out if out is not None else _empty(x, x.shape)
    _unison.clip(x, lo, hi, out, backend or "", _stream_of(stream, [x, out]))
    return out


def make_pulses(t, noise, period, amplitude, out=None, *, backend=None, stream=None):
    """The tutorial's pulses: max(sin(t / period) - 0.3, 0) * amplitude + noise (rank 1)."""
    out = out if out is not None else _empty(t, t.shape)
    _unison.make_pulses(t, noise, float(period), float(amplitude), out, backend or "",
                        _stream_of(stream, [t, out]))
    return out


def hidden_layer(greyscales, weights, out=None, *, fusion="fused", backend=None, stream=None):
    """The tutorial's hidden layer: tanh(greyscales / 255 * weights) (rank 1)."""
    out = out if out is not None else _empty(weights, weights.shape)
    _unison.hidden_layer(greyscales, weights, out, fusion, backend or "",
                         _stream_of(stream, [weights, out]))
    return out


def l2_norm(V, out=None, *, backend=None, stream=None):
    """The Euclidean norm of each row of the rank-2 V (float32 or float64), summed in double."""
    out = out if out is not None else _empty(V, (V.shape[0],))
    _unison.l2_norm(V, out, backend or "", _stream_of(stream, [V, out]))
    return out


def matmul_core(A, B, out=None, *, backend=None, stream=None):
    """A batch of small matrix products: out[q] = A[q] @ B[q] (rank-3 arrays)."""
    out = out if out is not None else _empty(A, (A.shape[0], A.shape[1], B.shape[2]))
    _unison.matmul_core(A, B, out, backend or "", _stream_of(stream, [A, out]))
    return out


def histogram(x, xmin, xmax, counts=None, *, bins=None, backend=None, stream=None):
    """Counts of x (rank 1, float32 or float64) in equal bins over [xmin, xmax): into counts
    (int64 or int32, its length the number of bins), or a new int64 array of `bins` counts.
    Every bin is e_k <= v < e_k+1 with the edges e_k = fma(k, (xmax - xmin) / bins, xmin) in
    double (one rounding) and e_bins = xmax: NumPy's histogram(x, bins, (xmin, xmax)) rounds
    its edges twice and counts xmax in its last bin, so a value within a rounding of an edge
    can fall in a neighbouring bin. Values outside, infinities and NaN are not counted."""
    if counts is None:
        if bins is None:
            raise TypeError("unison.histogram: give counts= (the output) or bins= (how many)")
        counts = _empty(x, (int(bins),), dtype=_int64_of(x))
    elif bins is not None and int(bins) != counts.shape[0]:
        raise ValueError(f"unison.histogram: bins is {bins}, but counts has {counts.shape[0]}")
    _unison.histogram(x, float(xmin), float(xmax), counts, backend or "",
                      _stream_of(stream, [x, counts]))
    return counts


def monte_carlo_pi(samples, seed=3966789, *, backend=None, stream=None):
    """An estimate of pi from `samples` points (the same for a seed on every backend). Returns a
    Python float: waits for the result (on the call's stream only, on a GPU)."""
    return _unison.monte_carlo_pi(int(samples), int(seed), backend or "",
                                  None if stream is None else _stream_of(stream, []))


def diffusion_step(f, coeff, f_next=None, lapl=None, *, algorithm="automatic", backend=None,
                   stream=None):
    """One step of the 2-D diffusion of the rank-2 field f: returns (f_next, lapl), new arrays
    of f's library unless given. algorithm: "automatic", "plain", "tiled" or "streaming"."""
    f_next = f_next if f_next is not None else _empty(f, f.shape)
    lapl = lapl if lapl is not None else _empty(f, f.shape)
    _unison.diffusion_step(f, f_next, lapl, float(coeff), algorithm, backend or "",
                           _stream_of(stream, [f, f_next]))
    return f_next, lapl


def diffuse(f, steps, coeff, lapl=None, *, laplacian="every_step", algorithm="automatic",
            tile_rows=0, tile_cols=0, steps_per_pass=0, backend=None, stream=None):
    """`steps` steps of the diffusion, in place in f; returns lapl, the last step's Laplacian
    (a new array unless given). laplacian: "every_step" or "final_only" (temporal blocking:
    several steps per pass). Its second buffer of f's size is temporary memory kept between
    calls."""
    lapl = lapl if lapl is not None else _empty(f, f.shape)
    _unison.diffuse(f, int(steps), float(coeff), lapl, laplacian, algorithm, int(tile_rows),
                    int(tile_cols), int(steps_per_pass), backend or "", _stream_of(stream, [f, lapl]))
    return lapl


def diffuse_history(f, steps, coeff, history, on_history=None, *, steps_per_pass=0,
                    backend=None, stream=None):
    """`steps` steps in place in f, keeping every step's Laplacian a group of
    history.shape[0] steps at a time in the rank-3 history (planes, nx, ny): after each group,
    on_history(first, count) is called (steps count from 1; history[k] holds step first + k's
    Laplacian; f holds the field only when the call returns). Returns history."""
    _unison.diffuse_history(f, int(steps), float(coeff), history, on_history, int(steps_per_pass),
                            backend or "", _stream_of(stream, [f, history]))
    return history


def jagged_field(f, seed=3966789, zero_fraction=0.7, *, backend=None, stream=None):
    """The deterministic "jagged image" into the rank-2 f (the same bits on every backend and
    layout); returns f."""
    _unison.jagged_field(f, int(seed), float(zero_fraction), backend or "", _stream_of(stream, [f]))
    return f


def convolve_extent(n, m, mode="full"):
    """The length of convolve's result for len(x) = n and len(k) = m."""
    return _unison.convolve_extent(int(n), int(m), mode)


def convolve(x, k, mode="full", out=None, *, algorithm="automatic", backend=None, stream=None):
    """np.convolve(x, k, mode) for rank-1 float32 or float64 arrays; mode "full", "same" or
    "valid"; algorithm "automatic", "direct" or "tiled" (the same bits)."""
    if out is None:
        out = _empty(x, (convolve_extent(x.shape[0], k.shape[0], mode),))
    _unison.convolve(x, k, out, mode, algorithm, backend or "", _stream_of(stream, [x, out]))
    return out


def matmul_reduce(A, B, out=None, *, method="automatic", backend=None, stream=None):
    """The column sums of A @ B (A: m x k, B: k x n, float32 or float64) into a rank-1 array of
    n; method "automatic", "tiled", "gemm" (A and B both C-ordered or both Fortran-ordered) or
    "reassociated". The gemm and reassociated methods' temporary memory is kept between calls."""
    out = out if out is not None else _empty(A, (B.shape[1],))
    _unison.matmul_reduce(A, B, out, method, backend or "", _stream_of(stream, [A, out]))
    return out


def _int64_of(like):
    lib = _library(like)
    if lib == "torch":
        import torch
        return torch.int64
    import numpy
    return numpy.int64
