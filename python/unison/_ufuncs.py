"""add, hypot and clip as NumPy's ufuncs: the dtype NumPy resolves, conversions, casting=, out= of
another dtype, where= and any rank."""
import math as _math
import numbers as _numbers
import sys as _sys

from . import _unison
from ._arrays import (
    _ARITH, _FLOATS, _backend, _broadcast_shape, _convert, _describe, _dtype_name, _empty, _given,
    _host_copy, _input, _is_array, _is_integer, _is_number, _library, _numpy_dtype, _output,
    _one_of, _scalar, _shape_of, _stream_of)
from ._elementwise import _elementwise, _plain


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _check_casting(fn, casting, none_allowed=False):
    """casting= one of NumPy's words (None too for clip, as NumPy's clip)."""
    if casting is None and none_allowed:
        return
    if casting not in _CASTINGS:
        raise ValueError(f"unison.{fn}: casting is {casting!r}: casting must be one of "
                         + ", ".join(repr(c) for c in _CASTINGS))


def _probe(v):
    """What NumPy's type resolution sees of an operand: a number as it is, a 0-d array as its
    value (NumPy 1.x weighs those), any other array as one element of its dtype."""
    import numpy as np
    if not _is_array(v) or isinstance(v, _numbers.Number):
        return v
    shape = _shape_of(v)
    try:
        dtype = _numpy_dtype(v)
    except (AttributeError, TypeError):
        return None  # no NumPy dtype: taken as it is, and refused by its dtype if it must be
    if shape is None:
        return None
    if len(shape) == 0:
        return np.asarray(_host_copy(v))
    return np.zeros(1, dtype)


def _astype(fn, name, a, dtype):
    """a converted to dtype by its own library, on its device (a new array)."""
    lib = _library(a)
    if lib in ("numpy", "cupy"):
        return a.astype(dtype)
    if lib == "torch":
        import torch
        return a.to(getattr(torch, dtype.name))
    raise TypeError(f"unison.{fn}: {_describe(name, a)} would have to be converted to "
                    f"{dtype.name}, and Unison converts NumPy, CuPy and PyTorch arrays only")


def _masked_copy(fn, out, src, where):
    """out[...] = src where where= holds, cast to out's dtype (NumPy's casting was checked)."""
    lib = _library(out)
    if lib == "numpy":
        import numpy as np
        np.copyto(out, src, casting="unsafe",
                  where=True if where is True else np.asarray(_host_copy(where)
                                                              if _is_array(where) else where,
                                                              dtype=bool))
    elif lib == "cupy":
        import cupy
        with cupy.cuda.Device(out.device.id):
            mask = True if where is True else cupy.asarray(where, dtype=bool)
            cupy.copyto(out, src, casting="unsafe", where=mask)
    elif lib == "torch":
        import torch
        src = src.to(out.dtype)
        if where is not True:
            mask = torch.as_tensor(where, dtype=torch.bool, device=out.device)
            src = torch.where(mask, src, out)
        out.copy_(src.expand(out.shape))
    else:
        raise TypeError(f"unison.{fn}: {_describe('out', out)}: a cast into out or where= "
                        "needs a NumPy, CuPy or PyTorch array")


def _as_numpy_types(fn, np_fn, operands, out, where, casting, dtype, dtypes):
    """NumPy's type rules for the calls that mirror NumPy's ufuncs (add, hypot, clip): NumPy
    itself resolves the loop's dtype, the casts and their errors and warnings, on one-element
    stand-ins of the operands. Returns (operands, out, result, into): the operands converted to
    the loop's dtype where theirs differs (a temporary each); out None or an array of that
    dtype; result what the call returns; into (the caller's out) when the result must still be
    copied into it, cast or under where=."""
    import numpy as np
    converted, probes = [], []
    for name, v, may_be_scalar in operands:
        a = _given(fn, name, v)
        if a is None and not _is_number(v):  # a list or a tuple: NumPy's own array of it
            a = _convert(fn, name, v, None, False)
        converted.append((name, v if a is None else a, may_be_scalar))
        probes.append(_probe(v if a is None else a))
    if any(p is None for p in probes):
        return operands, out, None, None  # an array without a dtype NumPy knows: as it is

    keywords = {} if casting is None else {"casting": casting}
    if dtype is not None:
        keywords["dtype"] = dtype
    if out is not None:
        out = _output(fn, "out", out)
    try:
        loop = np_fn(*probes, **keywords).dtype
        if out is not None:
            np_fn(*probes, out=np.zeros(1, _numpy_dtype(out)), **keywords)
    except OverflowError as e:  # NumPy 2: a Python int the arrays' dtype cannot hold
        big = max(((n, v) for n, v, _ in converted if type(v) is int), key=lambda nv: abs(nv[1]),
                  default=None)
        if big is None:
            raise ValueError(f"unison.{fn}: {e}") from None
        held = next((_dtype_name(a) for _, a, _ in converted if _is_array(a) and
                     not isinstance(a, _numbers.Number)), "int64")
        raise ValueError(f"unison.{fn}: {big[0]} is {big[1]}, which {held} cannot hold "
                         f"({e})") from None
    big = [(n, v) for n, v, _ in converted if type(v) is int and not -2**63 <= v < 2**64]
    if loop == object and big:  # a Python int too large for any integer dtype (NumPy 1.x)
        arrays = [a for _, a, _ in converted if _is_array(a) and
                  not isinstance(a, _numbers.Number)]
        held = _dtype_name(arrays[0]) if arrays else "int64"
        raise ValueError(f"unison.{fn}: {big[0][0]} is {big[0][1]}, which {held} cannot hold")
    if loop.name not in dtypes:
        named = [(n, a) for n, a, _ in converted if _is_array(a) and
                 not isinstance(a, _numbers.Number)]
        name, a = next(((n, a) for n, a in named if _dtype_name(a) not in dtypes),
                       named[0] if named else (None, None))
        what = _describe(name, a) if a is not None else "the numbers"
        raise TypeError(f"unison.{fn}: {what}: NumPy computes this call in {loop.name}, which "
                        "Unison does not: expected " + _one_of(dtypes).replace("'", ""))
    values = []
    for name, v, may_be_scalar in converted:
        if _is_array(v) and not isinstance(v, _numbers.Number) and _numpy_dtype(v) != loop:
            v = _astype(fn, name, v, loop)
        elif isinstance(v, _numbers.Number) and not isinstance(v, (bool, int, float)):
            v = _scalar(v)  # a NumPy scalar: its value, in the loop's dtype by the call
        if type(v) is int and loop.kind == "f":
            v = float(v)  # as NumPy converts it (beyond int64 too)
        values.append((name, v, may_be_scalar))
    if out is None:
        if where is not True:  # NumPy leaves the elements where= skips undefined
            _where_shape(fn, where, values, None)
        return values, None, None, None
    if _numpy_dtype(out) == loop and where is True:
        return values, out, out, None
    _where_shape(fn, where, values, out)
    return values, _empty(out, _shape_of(out), loop, order_like=out), out, out


def _where_shape(fn, where, values, out):
    """Refuses a where= that does not broadcast with the operands (and out)."""
    if where is True:
        return
    shape = getattr(where, "shape", None)
    if shape is None:
        import numpy as np
        shape = np.shape(where)
    named = [(n, _shape_of(v)) for n, v, _ in values if _is_array(v) and _shape_of(v) is not None]
    if out is not None:
        named.append(("out", _shape_of(out)))
    full = _broadcast_shape(fn, named)
    if _broadcast_shape(fn, named + [("where", tuple(shape))]) != full:
        raise ValueError(f"unison.{fn}: where= of shape {tuple(shape)} does not broadcast to "
                         f"the result's shape {full}")


def _ufunc_call(cfn, fn, np_fn, operands, out, where, casting, dtype, backend, stream,
                dtypes, prepare=None):
    """A call of add, hypot or clip: the plain case straight to C++; anything NumPy would cast
    (mixed dtypes, dtype=, an out of another dtype) or mask (where=) through _as_numpy_types.
    prepare: applied to the operands' values once their dtype is settled."""
    if where is True and dtype is None:
        plain = _plain(operands, out, dtypes, (1, 2))
        if plain is not None:
            values = plain[0] if prepare is None else prepare(plain[0])
            cfn(*values, plain[1], _backend(fn, backend), _stream_of(stream, [plain[1]]))
            return plain[1]
    operands, out, result, into = _as_numpy_types(fn, np_fn, operands, out, where, casting,
                                                  dtype, dtypes)
    if prepare is not None:
        operands = [(n, v, m) for (n, _, m), v in
                    zip(operands, prepare([v for _, v, _ in operands]))]
    values, out, made = _elementwise(fn, operands, out, dtypes, None)
    _run(cfn, values, out, _backend(fn, backend), _stream_of(stream, [out]))
    if into is not None:
        _masked_copy(fn, into, out, where)
    return made if result is None else result


def _strides_of(a):
    """a's strides in elements, None where it states none."""
    if _library(a) == "torch":
        return tuple(a.stride())
    strides = getattr(a, "strides", None)
    if strides is None:
        return None
    size = _numpy_dtype(a).itemsize
    return tuple(s // size for s in strides)


def _viewed(a, shape, strides):
    """a's memory viewed with the given shape and strides (in elements): no copy."""
    lib = _library(a)
    if lib == "torch":
        return a.as_strided(shape, strides)
    size = _numpy_dtype(a).itemsize
    tricks = _sys.modules[lib].lib.stride_tricks
    return tricks.as_strided(a, shape, tuple(s * size for s in strides))


def _run(cfn, values, out, backend, stream):
    """cfn on operands and out of one shape of any rank: past rank 2, the axes merged where
    every array's strides allow it (no copy), else one call a 2-D slice."""
    shape = _shape_of(out)
    if shape is None or len(shape) <= 2:
        cfn(*values, out, backend, stream)
        return
    arrays = [i for i, v in enumerate(values) if not isinstance(v, (bool, int, float))]
    strides = [_strides_of(values[i]) for i in arrays] + [_strides_of(out)]
    if all(s is not None for s in strides) and _library(out) in ("numpy", "cupy", "torch"):
        dims, st = list(shape), [list(s) for s in strides]
        i = len(dims) - 2
        while i >= 0 and len(dims) > 2:
            if dims[i + 1] == 1 or dims[i] == 1 or all(s[i] == s[i + 1] * dims[i + 1] for s in st):
                keep = i + 1 if dims[i] == 1 or dims[i + 1] != 1 else i
                for s in st:
                    s[i] = s[keep]
                    del s[i + 1]
                dims[i] *= dims[i + 1]
                del dims[i + 1]
            i = min(i, len(dims) - 1) - 1
        if len(dims) <= 2:
            views = list(values)
            for k, i in enumerate(arrays):
                views[i] = _viewed(values[i], tuple(dims), tuple(st[k]))
            cfn(*views, _viewed(out, tuple(dims), tuple(st[-1])), backend, stream)
            return
    import itertools
    for index in itertools.product(*(range(n) for n in shape[:-2])):
        cfn(*[v if isinstance(v, (bool, int, float)) else v[index] for v in values], out[index],
            backend, stream)


def _numpy_function(name):
    import numpy
    return getattr(numpy, name)


def add(x, y, out=None, *, where=True, casting="same_kind", dtype=None, backend=None,
        stream=None):
    """out = x + y, element by element, computed in float32, float64, int32 or int64. x and y:
    arrays, array_likes or numbers, broadcast together as NumPy does. Dtypes as NumPy's add:
    the dtype NumPy computes in (mixed dtypes, dtype=) and NumPy's casting= into out, the
    operands converted where their dtype differs (a temporary each); where= as NumPy's."""
    _check_casting("add", casting)
    return _ufunc_call(_unison.add, "add", _numpy_function("add"), [("x", x, True),
                       ("y", y, True)], out, where, casting, dtype, backend, stream, _ARITH)


def hypot(x, y, out=None, *, where=True, casting="same_kind", dtype=None, backend=None,
          stream=None):
    """out = sqrt(x² + y²) without overflow, computed in float32 or float64 (integers as
    NumPy's hypot: in float64); broadcasting, dtypes and keywords as add."""
    _check_casting("hypot", casting)
    return _ufunc_call(_unison.hypot, "hypot", _numpy_function("hypot"), [("x", x, True),
                       ("y", y, True)], out, where, casting, dtype, backend, stream, _FLOATS)


def _no_bound(fn, x, out, lower):
    """The bound clip takes for None: -inf or +inf; for integers the type's limit, as a 0-d
    array of x's library and dtype (int64's largest is not a double)."""
    import numpy as np
    probe = _given(fn, "out", out) if out is not None else _input(fn, "x", x, None, False)
    dtype = _numpy_dtype(probe)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return _convert(fn, "lo" if lower else "hi", int(info.min if lower else info.max), probe,
                        False)
    return -_math.inf if lower else _math.inf


def clip(x, lo, hi, out=None, *, where=True, casting=None, dtype=None, backend=None,
         stream=None):
    """x limited to [lo, hi], as NumPy's clip, computed in float32, float64, int32 or int64: lo
    or hi may be None (no bound on that side), numbers or arrays broadcast with x; where lo > hi
    the result is hi, and a NaN in x or in a bound gives NaN, as NumPy (since 1.25). Dtypes and
    keywords as add; casting=None (the default) is NumPy's clip's own rule."""
    _check_casting("clip", casting, none_allowed=True)
    if lo is None and hi is None:
        raise ValueError("unison.clip: lo and hi are both None: one of max or min must be given")
    if lo is None:
        lo = _no_bound("clip", x, out, True)
    if hi is None:
        hi = _no_bound("clip", x, out, False)
    return _ufunc_call(_unison.clip, "clip", _numpy_function("clip"),
                       [("x", x, False), ("lo", lo, True), ("hi", hi, True)], out, where,
                       casting, dtype, backend, stream, _ARITH, _hi_over_lo)


def _hi_over_lo(values):
    """NumPy's rules for number bounds: a Python int beyond an integer x's dtype on its own side
    is no bound (NumPy 2; NumPy 1.x computes such a call in a wider dtype), and with lo > hi the
    result is hi everywhere (a NaN x stays NaN)."""
    x, lo, hi = values
    if _is_integer(x):
        import numpy as np
        info = np.iinfo(_numpy_dtype(x))
        lo = int(info.min) if type(lo) is int and lo < info.min else lo
        hi = int(info.max) if type(hi) is int and hi > info.max else hi
    if _is_number(lo) and _is_number(hi) and lo > hi:
        lo = hi
    return [x, lo, hi]
