"""The row-wise functions: l2_norm and matmul_core."""
from . import _unison
from ._arrays import (
    _FLOATS, _backend, _check_class, _describe, _empty, _input, _require, _shape_of, _stream_of)


def l2_norm(V, out=None, *, backend=None, stream=None):
    """The Euclidean norm of each row of the rank-2 V (float32 or float64), summed in double."""
    V = _input("l2_norm", "V", V, out)
    if out is None:
        _require("l2_norm", "V", V, _FLOATS, (2,))
        out = _empty(V, (V.shape[0],))
    else:
        _check_class("l2_norm", "out", out)
    _unison.l2_norm(V, out, _backend("l2_norm", backend), _stream_of(stream, [V, out]))
    return out


def matmul_core(A, B, out=None, *, backend=None, stream=None):
    """A batch of small matrix products: out[q] = A[q] @ B[q] (rank-3 arrays)."""
    A = _input("matmul_core", "A", A, out)
    B = _input("matmul_core", "B", B, A)
    if out is None:
        _require("matmul_core", "A", A, _FLOATS, (3,))
        _require("matmul_core", "B", B, None, (3,))
        out = _empty(A, (A.shape[0], A.shape[1], B.shape[2]))
    else:
        _check_class("matmul_core", "out", out)
        a, b, o = _shape_of(A), _shape_of(B), _shape_of(out)
        if a is not None and b is not None and o is not None and len(a) == len(b) == 3 and \
                a[0] == b[0] and a[2] == b[1] and o != (a[0], a[1], b[2]):
            raise ValueError(f"unison.matmul_core: {_describe('out', out)}: expected shape "
                             f"{(a[0], a[1], b[2])} for A of {a} and B of {b}")
    _unison.matmul_core(A, B, out, _backend("matmul_core", backend),
                        _stream_of(stream, [A, out]))
    return out
