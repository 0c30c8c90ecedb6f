"""The element-wise functions (but the ufuncs): operands broadcast and out made as NumPy does."""
import numbers as _numbers
import sys as _sys

from . import _arrays, _unison
from ._arrays import (
    _CHOICES, _FLOATS, _backend, _broadcast_shape, _broadcast_to, _convert, _dtype_name, _empty,
    _given, _is_integer, _is_number, _output, _real, _require, _scalar, _shape_of, _stream_of,
    _word)


_EXACT = 2**53  # the integers up to this size are doubles exactly


_INT32 = 2**31  # numbers any dtype of Unison's holds as NumPy takes them


def _plain(operands, out, dtypes, ndims):
    """The common case at the cost of a few type checks: NumPy arrays (not subclasses) of one
    shape, out's when given, and Python numbers; out, when not given, made as _elementwise
    makes it. Returns (values, out), or None for everything else (_elementwise's general
    path, which also gives every refusal)."""
    nd = _arrays._ndarray
    if nd is None:
        np = _sys.modules.get("numpy")
        if np is None:
            return None
        nd = _arrays._ndarray = np.ndarray
    shape = first = None
    if out is not None:
        if type(out) is not nd:
            return None
        shape = out.shape
    for _, v, may_be_scalar in operands:
        t = type(v)
        if t is nd:
            if shape is None:
                shape = v.shape
            elif v.shape != shape:
                return None
            if first is None:
                first = v
            elif v.dtype != first.dtype:
                return None  # mixed dtypes: the general path's
        elif not (may_be_scalar and (t is float or t is int and -_INT32 <= v < _INT32)):
            return None
    if first is None or not shape:
        return None
    if first.dtype.kind in "iu" and any(type(v) is float for _, v, _ in operands):
        return None  # NumPy's result is a float array: the general path's
    d = first.dtype
    if d.name not in dtypes or not d.isnative or out is not None and out.dtype != d:
        return None
    if out is None:
        if len(shape) not in ndims:
            return None
        flags = first.flags
        order = "F" if len(shape) > 1 and flags.f_contiguous and not flags.c_contiguous else "C"
        out = _sys.modules["numpy"].empty(shape, d, order)
    return [v for _, v, _ in operands], out


def _elementwise(fn, operands, out, dtypes, ndims=(1, 2)):
    """NumPy's rules for the element-wise functions: operands (name, value, may_be_scalar) made
    arrays (array_like converted with the first array's library and dtype), broadcast to one
    shape (out's, when given) without a copy, and out made in the order of the input of that
    shape when not given. 0-d operands take rank 1 for the call. Returns (values, out, result):
    result is what the function returns. ndims None: any rank (for _run)."""
    plain = _plain(operands, out, dtypes, (1, 2) if ndims is None else ndims)
    if plain is not None:
        return plain[0], plain[1], plain[1]
    given = [_given(fn, name, v) for name, v, _ in operands]
    like = next((a for a in given if a is not None), None)
    result = out
    if out is not None:
        out = _output(fn, "out", out)
    float_only = dtypes is _FLOATS
    values = []
    for (name, v, may_be_scalar), a in zip(operands, given):
        if a is not None:
            values.append(a)
        elif may_be_scalar and _is_number(v) and (like is not None or out is not None):
            v = _scalar(v)
            kind = like if like is not None else out
            _no_float_for_integers(fn, name, v, kind, dtypes)
            if type(v) is int and not -_EXACT <= v <= _EXACT and \
                    _dtype_name(kind) in ("int32", "int64"):
                # beyond a double's integers: as a 0-d array of the arrays' integer dtype
                v = _convert(fn, name, v, kind, False)
            values.append(v)
        else:
            kind = like if like is not None else out
            if isinstance(v, _numbers.Real) and kind is not None:  # a NumPy scalar
                _no_float_for_integers(fn, name, v, kind, dtypes)
            a = _convert(fn, name, v, kind, float_only)
            if like is None:
                like = a
            values.append(a)
    shapes = [(name, _shape_of(v)) for (name, _, _), v in zip(operands, values)
              if not isinstance(v, (bool, int, float))]
    if any(s is None for _, s in shapes) or out is not None and _shape_of(out) is None:
        return values, out, result  # an array that does not state its shape: taken as it is
    if out is not None:
        out_shape = _shape_of(out)
        shape = _broadcast_shape(fn, shapes + [("out", out_shape)])
        if shape != out_shape:
            text = ", ".join(f"{name} {s}" for name, s in shapes)
            raise ValueError(f"unison.{fn}: non-broadcastable output: out has shape "
                             f"{out_shape}, but the inputs broadcast to {shape} ({text})")
    else:
        shape = _broadcast_shape(fn, shapes)
    arrays = [(name, v) for (name, _, _), v in zip(operands, values)
              if not isinstance(v, (bool, int, float))]
    full = [v for _, v in arrays if _shape_of(v) == shape]
    if out is None:
        first_name, first = arrays[0]
        _require(fn, first_name, first, dtypes)
        if ndims is not None and len(shape) > max(ndims):
            big = max(arrays, key=lambda nv: len(_shape_of(nv[1])))
            _require(fn, big[0], big[1], None, ndims)
        out = _empty(first, shape, order_like=full[0] if full else None)
        result = out
    if len(shape) == 0:  # 0-d: run on rank-1 views of one element
        shape = (1,)
        out = out.reshape(shape)
        values = [v.reshape(shape) if not isinstance(v, (bool, int, float)) else v
                  for v in values]
    names = [name for name, _, _ in operands]
    values = [_broadcast_to(fn, n, v, shape) if not isinstance(v, (bool, int, float)) else v
              for n, v in zip(names, values)]
    return values, out, result


def _no_float_for_integers(fn, name, v, kind, dtypes):
    """Refuses a floating-point number for arrays of integers in the functions that are not
    NumPy ufuncs: NumPy's result would be a float array (the number is neither converted nor
    rounded)."""
    if isinstance(v, float) or isinstance(v, _numbers.Real) and \
            not isinstance(v, _numbers.Integral) and getattr(v, "dtype", None) is not None:
        if _is_integer(kind) and _dtype_name(kind) in dtypes:
            raise TypeError(f"unison.{fn}: {name} is the float {v!r} and the arrays are "
                            f"{_dtype_name(kind)}: NumPy's result would be float64 (Unison "
                            "converts nothing; give an integer)")


def gaussian_pdf(x, mean=0.0, sigma=1.0, out=None, *, backend=None, stream=None):
    """The normal density at x (float32, float64); mean and sigma: numbers or arrays, broadcast
    with x as NumPy does."""
    (x, mean, sigma), out, result = _elementwise(
        "gaussian_pdf", [("x", x, False), ("mean", mean, True), ("sigma", sigma, True)], out,
        _FLOATS)
    _unison.gaussian_pdf(x, mean, sigma, out, _backend("gaussian_pdf", backend),
                         _stream_of(stream, [out]))
    return result


def polar_distance(rho1, theta1, rho2, theta2, out=None, *, backend=None, stream=None):
    """The distance between the points (rho1, theta1) and (rho2, theta2) in polar form
    (float32, float64; broadcast as NumPy does)."""
    (a, b, c, d), out, result = _elementwise(
        "polar_distance", [("rho1", rho1, False), ("theta1", theta1, False),
                           ("rho2", rho2, False), ("theta2", theta2, False)], out, _FLOATS)
    _unison.polar_distance(a, b, c, d, out, _backend("polar_distance", backend),
                           _stream_of(stream, [out]))
    return result


def zero_suppress(waveform, threshold, out=None, *, backend=None, stream=None):
    """out = 0 where waveform < threshold, else waveform (int16, float32, float64)."""
    (waveform, threshold), out, result = _elementwise(
        "zero_suppress", [("waveform", waveform, False), ("threshold", threshold, True)], out,
        ("int16", "float32", "float64"))
    _unison.zero_suppress(waveform, threshold, out, _backend("zero_suppress", backend),
                          _stream_of(stream, [out]))
    return result


def make_pulses(t, noise, period, amplitude, out=None, *, backend=None, stream=None):
    """The tutorial's pulses: max(sin(t / period) - 0.3, 0) * amplitude + noise (rank 1)."""
    period = _real("make_pulses", "period", period)
    amplitude = _real("make_pulses", "amplitude", amplitude)
    (t, noise), out, result = _elementwise(
        "make_pulses", [("t", t, False), ("noise", noise, False)], out, _FLOATS, (1,))
    _unison.make_pulses(t, noise, period, amplitude, out, _backend("make_pulses", backend),
                        _stream_of(stream, [out]))
    return result


def hidden_layer(greyscales, weights, out=None, *, fusion="fused", backend=None, stream=None):
    """The tutorial's hidden layer: tanh(greyscales / 255 * weights) (rank 1; the result is
    like weights)."""
    fusion = _word("hidden_layer", "fusion", fusion, _CHOICES["fusion"])
    (w, g), out, result = _elementwise(
        "hidden_layer", [("weights", weights, False), ("greyscales", greyscales, False)], out,
        _FLOATS, (1,))
    _unison.hidden_layer(g, w, out, fusion, _backend("hidden_layer", backend),
                         _stream_of(stream, [out]))
    return result
