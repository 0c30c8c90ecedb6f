"""histogram and histogram_bin_edges: Unison's form and NumPy's (edges, weights, density,
estimators)."""
import math as _math

from . import _unison
from ._arrays import (
    _ARITH, _FLOATS, _backend, _check_class, _describe, _empty, _host_copy, _input, _int64_of,
    _integer, _is_array, _library, _numpy_dtype, _real, _require, _stream_of)


def histogram(x, *args, bins=None, range=None, counts=None, weights=None, density=None,
              backend=None, stream=None):
    """Counts of x (rank 1: float32 or float64; in NumPy's form int32 and int64 too) in equal bins
    or between given edges, in two forms.

    NumPy's: histogram(x, bins=10, range=None) returns (counts, edges) as np.histogram does:
    int64 counts, float64 edges, the last bin closed (a value equal to the upper edge is
    counted in it), range (x.min(), x.max()) when not given; bins a number of equal bins, an
    array of edges (non-decreasing, compared with the values as float64; returned as given), or
    the name of one of NumPy's bin estimators ('auto', 'fd', 'doane', 'scott', 'stone', 'rice',
    'sturges', 'sqrt'; the number of equal bins chosen as NumPy chooses it);
    weights (an array like x: float32, float64, int32 or int64) sums each bin's weights instead
    of counting, in the weights' dtype (added in double, in an order that gives the same bits
    on every backend and thread count; integers exactly, in 64 bits); density=True divides by
    the bin widths and the total, as NumPy.
    Differs from NumPy: equal bins have Unison's exact edges (below).

    Unison's: ``histogram(x, xmin, xmax, counts=None, *, bins=None)`` counts into counts (int64 or
    int32, its length the number of bins) or a new int64 array of `bins` counts, and returns
    the counts; every bin is half open: xmax is not counted.

    Every bin is e_k <= v < e_k+1 with the edges e_k = fma(k, (xmax - xmin) / bins, xmin) in
    double (one rounding) and e_bins = xmax: NumPy rounds its edges twice, so a value within a
    rounding of an edge can fall in a neighbouring bin. Values outside, infinities and NaN are
    not counted."""
    fn = "histogram"
    if len(args) >= 2:
        if len(args) > 3:
            raise TypeError(f"unison.{fn}: takes x, xmin, xmax and counts; {1 + len(args)} "
                            "positional arguments given")
        if range is not None:
            raise TypeError(f"unison.{fn}: give xmin and xmax, or range=, not both")
        if len(args) == 3:
            if counts is not None:
                raise TypeError(f"unison.{fn}: counts given twice")
            counts = args[2]
        if weights is not None or density is not None:
            raise TypeError(f"unison.{fn}: weights= and density= are NumPy's form's: "
                            "histogram(x, bins, range=..., weights=..., density=...)")
        return _histogram_counts(x, args[0], args[1], counts, bins, backend, stream)
    # NumPy's form
    if args:
        if bins is not None:
            raise TypeError(f"unison.{fn}: bins given twice")
        bins = args[0]
    bins = 10 if bins is None else bins
    if isinstance(bins, str):
        if weights is not None:
            raise TypeError(f"unison.{fn}: bins is {bins!r}: NumPy's automated estimation of the "
                            "number of bins is not supported for weighted data (as NumPy)")
        x = _input(fn, "x", x)
        _require(fn, "x", x, _ARITH, (1,))
        bins = _estimated_edges(fn, x, bins, range)
    if isinstance(bins, (list, tuple)) or _is_array(bins) and getattr(bins, "ndim", 0) != 0:
        return _density(*_histogram_over_edges(x, bins, counts, weights, backend, stream), density)
    bins = _integer(fn, "bins", bins, 1)
    x = _input(fn, "x", x)
    _require(fn, "x", x, _ARITH, (1,))
    lo, hi = _outer_edges(fn, x, range)
    if weights is not None or _numpy_dtype(x).kind in "iu":
        # over the same exact edges, the last bin closed (weights; integer values)
        sums, _ = _histogram_over_edges(x, _unison._histogram_edges(lo, hi, bins), counts,
                                        weights, backend, stream)
        return _density(sums, _edges_like(sums, _unison._histogram_edges(lo, hi, bins)), density)
    c = _histogram_counts(x, lo, hi, counts, bins, backend, stream)
    # the closed last bin: the values equal to hi, counted in [hi, the next double above hi)
    # (by the array's library where that bin is too narrow for the kernel: hi within 1e-292 of 0)
    above = _next_double(hi)
    if above - hi >= 1e-300:
        top = _empty(c, (1,))
        _unison.histogram(x, hi, above, top, _backend(fn, backend), _stream_of(stream, [x, top]))
        c[-1:] += top
    else:
        c[-1:] += int((x == hi).sum())
    return _density(c, _edges_like(c, _unison._histogram_edges(lo, hi, bins)), density)


_ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def histogram_bin_edges(x, bins=10, range=None, weights=None, *, backend=None, stream=None):
    """The edges histogram(x, bins, range) counts between, as np.histogram_bin_edges: for a
    number of bins, Unison's exact equal edges; for an array of edges, the array; for the name
    of one of NumPy's estimators ('auto', 'fd', 'doane', 'scott', 'stone', 'rice', 'sturges',
    'sqrt'), equal edges over the range, their number chosen as NumPy chooses it. weights is
    taken for NumPy's signature and, as there, not used."""
    fn = "histogram_bin_edges"
    if isinstance(bins, (list, tuple)) or _is_array(bins) and getattr(bins, "ndim", 0) != 0:
        return histogram(x, bins, range=range, backend=backend, stream=stream)[1]
    x = _input(fn, "x", x)
    _require(fn, "x", x, _ARITH, (1,))
    if isinstance(bins, str):
        return _edges_like(x, _estimated_edges(fn, x, bins, range), None)
    bins = _integer(fn, "bins", bins, 1)
    lo, hi = _outer_edges(fn, x, range)
    return _edges_like(x, _unison._histogram_edges(lo, hi, bins))


def _outer_edges(fn, x, range):
    """(lo, hi) of the histogram: range, or x's smallest and largest value; widened by a half on
    each side when they are equal (NumPy's rules)."""
    if range is None:
        if x.shape[0] == 0:
            lo, hi = 0.0, 1.0
        else:
            if not hasattr(x, "min"):
                raise ValueError(f"unison.{fn}: {_describe('x', x)} has no min() for the range: "
                                 "give range=(lo, hi)")
            lo, hi = float(x.min()), float(x.max())
            if not (_math.isfinite(lo) and _math.isfinite(hi)):
                raise ValueError(f"unison.{fn}: the autodetected range of x, [{lo}, {hi}], is "
                                 "not finite: give range=(lo, hi)")
    else:
        try:
            lo, hi = range
        except (TypeError, ValueError):
            raise TypeError(f"unison.{fn}: range is {range!r}, expected (lo, hi)") from None
        lo, hi = _real(fn, "range[0]", lo), _real(fn, "range[1]", hi)
        if lo > hi:
            raise ValueError(f"unison.{fn}: range is ({lo}, {hi}): max must be larger than min "
                             "in range")
        if not (_math.isfinite(lo) and _math.isfinite(hi)):
            raise ValueError(f"unison.{fn}: the supplied range, [{lo}, {hi}], is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _estimated_edges(fn, x, name, range):
    """The edges NumPy's estimator `name` gives for x: NumPy's own histogram_bin_edges, on a
    host copy of a device x (the installed NumPy's rules, its warnings included)."""
    import numpy as np
    if name not in _ESTIMATORS:
        raise ValueError(f"unison.{fn}: bins is {name!r}, not one of NumPy's estimators: "
                         + ", ".join(repr(e) for e in _ESTIMATORS))
    _outer_edges(fn, x, range)  # (a range or values that are not finite, in Unison's words)
    return np.histogram_bin_edges(_host_copy(x), name, range)


def _edges_like(c, edges, dtype="float64"):
    """The edges (a list of floats, or a NumPy array) as an array of c's library and device, in
    dtype (None: the edges' own)."""
    lib = _library(c)
    if lib == "cupy":
        import cupy
        return cupy.asarray(edges, dtype=dtype)
    if lib == "torch":
        import torch
        t = torch.as_tensor(edges, device=c.device)
        return t if dtype is None else t.to(getattr(torch, dtype))
    import numpy
    return numpy.asarray(edges, dtype=dtype)


def _density(c, edges, density):
    """(c, edges), or with density NumPy's c / widths / c.sum() (float64 for counts)."""
    if not density:
        return c, edges
    lib = _library(c)
    if lib == "torch":
        import torch
        widths = torch.diff(edges.to(torch.float64))
        n = c if c.dtype.is_floating_point else c.to(torch.float64)
    else:
        xp = __import__(lib) if lib == "cupy" else __import__("numpy")
        widths = xp.diff(edges).astype(xp.float64)
        n = c
    return n / widths / n.sum(), edges


def _histogram_over_edges(x, bins, counts, weights, backend, stream):
    """NumPy's form with bins an array of edges: (counts, or with weights their sums, and the
    edges as given, in x's library)."""
    fn = "histogram"
    x = _input(fn, "x", x)
    _require(fn, "x", x, _ARITH, (1,))
    lib = _library(x)
    if lib == "cupy":
        import cupy
        given = cupy.asarray(bins)
        edges = cupy.ascontiguousarray(given, dtype=cupy.float64)
    elif lib == "torch":
        import torch
        given = torch.as_tensor(bins, device=x.device)
        edges = given.to(torch.float64).contiguous()
    else:
        import numpy
        given = numpy.asarray(bins)
        edges = numpy.ascontiguousarray(given, dtype=numpy.float64)
    if given.ndim != 1 or given.shape[0] < 2:
        raise ValueError(f"unison.{fn}: bins as edges must be 1d, an array of at least 2 "
                         f"edges; got shape {tuple(given.shape)}")
    if weights is not None:
        if counts is not None:
            raise TypeError(f"unison.{fn}: counts= and weights= given: the weights' sums go "
                            "into a new array")
        weights = _input(fn, "weights", weights)
        _require(fn, "weights", weights, _ARITH, (1,))
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"unison.{fn}: {_describe('weights', weights)} should have the same "
                             f"shape as x, {tuple(x.shape)}")
        sums = _empty(weights, (edges.shape[0] - 1,))
        _unison.histogram_weighted(x, edges, weights, sums, _backend(fn, backend),
                                   _stream_of(stream, [x, sums]))
        return sums, given
    if counts is None:
        counts = _empty(x, (edges.shape[0] - 1,), dtype=_int64_of(x))
    else:
        _check_class(fn, "counts", counts)
    _unison.histogram_over_edges(x, edges, counts, _backend(fn, backend),
                                 _stream_of(stream, [x, counts]))
    return counts, given


def _next_double(v):
    if hasattr(_math, "nextafter"):
        return _math.nextafter(v, _math.inf)
    import numpy
    return float(numpy.nextafter(v, numpy.inf))


def _histogram_counts(x, xmin, xmax, counts, bins, backend, stream):
    fn = "histogram"
    x = _input(fn, "x", x)
    xmin, xmax = _real(fn, "xmin", xmin), _real(fn, "xmax", xmax)
    if counts is None:
        if bins is None:
            raise TypeError(f"unison.{fn}: give counts= (the output) or bins= (how many)")
        bins = _integer(fn, "bins", bins, 1)
        _require(fn, "x", x, _FLOATS, (1,))
        counts = _empty(x, (bins,), dtype=_int64_of(x))
    else:
        _check_class(fn, "counts", counts)
        if bins is not None and _integer(fn, "bins", bins, 1) != counts.shape[0]:
            raise ValueError(f"unison.{fn}: bins is {bins}, but counts has {counts.shape[0]}")
    _unison.histogram(x, xmin, xmax, counts, _backend(fn, backend),
                      _stream_of(stream, [x, counts]))
    return counts
