"""The 1-D convolution: convolve and convolve_extent."""
import numbers as _numbers

from . import _unison
from ._arrays import (
    _CHOICES, _FLOATS, _backend, _check_class, _describe, _empty, _input, _integer, _one_of,
    _require, _shape_of, _stream_of, _word)


_CONVOLVE_MODES = _CHOICES["convolve_mode"]  # in the order of NumPy's integer modes 0, 1 and 2


def _convolve_mode(fn, mode):
    """NumPy's convolve modes: "full", "same" or "valid"; 2, 1 or 0; and, deprecated as in
    NumPy, a word that starts with f, s or v in any case ("f", "Same")."""
    if isinstance(mode, str):
        if mode in _CONVOLVE_MODES:
            return mode
        full = next((m for m in _CONVOLVE_MODES if mode[:1].lower() == m[0]), None)
        if full is None:
            raise ValueError(f"unison.{fn}: mode is {mode!r}, expected "
                             + _one_of(_CONVOLVE_MODES))
        import warnings
        warnings.warn(f"unison.{fn}: mode {mode!r} taken as {full!r}; as in NumPy, inexact and "
                      "case-insensitive mode names are deprecated", DeprecationWarning,
                      stacklevel=3)
        return full
    if isinstance(mode, bool) or not isinstance(mode, (int, _numbers.Integral)):
        raise TypeError(f"unison.{fn}: mode is {mode!r}, expected {_one_of(_CONVOLVE_MODES)} "
                        "(or NumPy's 0, 1 or 2)")
    if not 0 <= int(mode) <= 2:
        codes = ", ".join(f"{i} for {m!r}" for i, m in enumerate(_CONVOLVE_MODES))
        raise ValueError(f"unison.{fn}: mode is {int(mode)}, expected "
                         f"{_one_of(range(len(_CONVOLVE_MODES)))} (NumPy's {codes})")
    return _CONVOLVE_MODES[int(mode)]


def convolve_extent(n, m, mode="full"):
    """The length of convolve's result for inputs of lengths n and m, in either order as
    np.convolve: "full" n + m - 1, "same" max(n, m), "valid" max(n, m) - min(n, m) + 1."""
    fn = "convolve_extent"
    n, m = _integer(fn, "n", n, 0), _integer(fn, "m", m, 0)
    mode = _convolve_mode(fn, mode)
    if n == 0 or m == 0:
        raise ValueError(f"unison.{fn}: n is {n} and m is {m}; neither may be 0 (as np.convolve)")
    return _unison.convolve_extent(max(n, m), min(n, m), mode)


def convolve(x, k, mode="full", out=None, *, algorithm="automatic", backend=None, stream=None):
    """np.convolve(x, k, mode) for rank-1 float32 or float64 arrays; mode "full", "same" or
    "valid" (or NumPy's 2, 1 and 0); algorithm "automatic", "direct" or "tiled" (the same bits).
    As np.convolve, the longer of x and k is taken as the signal."""
    fn = "convolve"
    mode = _convolve_mode(fn, mode)
    algorithm = _word(fn, "algorithm", algorithm, _CHOICES["convolve_algorithm"])
    x = _input(fn, "x", x, out)
    k = _input(fn, "k", k, x)
    if out is None:
        _require(fn, "x", x, _FLOATS, (1,))
        _require(fn, "k", k, None, (1,))
        for name, a in (("x", x), ("k", k)):
            if a.shape[0] == 0:
                raise ValueError(f"unison.{fn}: {_describe(name, a)} is empty; as np.convolve, "
                                 "neither input may be")
        out = _empty(x, (convolve_extent(x.shape[0], k.shape[0], mode),))
    else:
        _check_class(fn, "out", out)
        n, m = _shape_of(x), _shape_of(k)
        if n is not None and m is not None and len(n) == 1 and len(m) == 1 and n[0] and m[0]:
            want = convolve_extent(n[0], m[0], mode)
            if _shape_of(out) not in (None, (want,)):
                raise ValueError(f"unison.{fn}: {_describe('out', out)}: expected shape "
                                 f"({want},) ({mode} mode, x of {n[0]}, k of {m[0]})")
    nx, nk = _shape_of(x), _shape_of(k)
    if nx is not None and nk is not None and len(nx) == 1 and len(nk) == 1 and nk[0] > nx[0]:
        x, k = k, x
    _unison.convolve(x, k, out, mode, algorithm, _backend(fn, backend),
                     _stream_of(stream, [x, out]))
    return out
