"""The matmul-reduce: matmul_reduce."""
from . import _unison
from ._arrays import (
    _CHOICES, _FLOATS, _backend, _check_class, _empty, _input, _require, _stream_of, _word)


def matmul_reduce(A, B, out=None, *, method="automatic", backend=None, stream=None):
    """The column sums of A @ B (A: m x k, B: k x n, float32 or float64) into a rank-1 array of
    n; method "automatic", "tiled", "gemm" (A and B both C-ordered or both Fortran-ordered) or
    "reassociated". The gemm and reassociated methods' temporary memory is kept between calls."""
    fn = "matmul_reduce"
    method = _word(fn, "method", method, _CHOICES["matmul_method"])
    A = _input(fn, "A", A, out)
    B = _input(fn, "B", B, A)
    if out is None:
        _require(fn, "A", A, _FLOATS, (2,))
        _require(fn, "B", B, None, (2,))
        out = _empty(A, (B.shape[1],))
    else:
        _check_class(fn, "out", out)
    _unison.matmul_reduce(A, B, out, method, _backend(fn, backend), _stream_of(stream, [A, out]))
    return out
