"""The arrays a call takes, as NumPy's rules have them: their library, dtype, shape, strides and
device; array_likes converted, outputs made, broadcasting without a copy, the stream."""
import numbers as _numbers
import operator as _operator
import sys as _sys

from . import _unison


_CHOICES = _unison.choices  # each choice's words, as the compiled half takes them
_BACKENDS = _CHOICES["backend"]


_FLOATS = ("float32", "float64")


_ARITH = ("float32", "float64", "int32", "int64")


def _library(a):
    return type(a).__module__.split(".")[0]


def _is_array(a):
    return hasattr(a, "__dlpack__") or hasattr(a, "__cuda_array_interface__") or (
        hasattr(a, "shape") and hasattr(a, "dtype"))


def _is_number(v):
    return isinstance(v, _numbers.Number) and not _is_array(v)


def _scalar(v):
    """A Python number for C++ (NumPy's scalars included); arrays pass through."""
    if isinstance(v, (bool, int, float)):
        return v
    if isinstance(v, _numbers.Integral):
        return int(v)
    if isinstance(v, _numbers.Real):
        return float(v)
    return v


def _dtype_name(a):
    d = a.dtype
    name = getattr(d, "name", None) or str(d).replace("torch.", "")
    if getattr(d, "byteorder", "=") == (">" if _sys.byteorder == "little" else "<"):
        name += " (non-native byte order)"
    return name


def _is_integer(a):
    """Whether the array a (of any library) holds integers."""
    return hasattr(a, "dtype") and _dtype_name(a).startswith(("int", "uint"))


def _describe(name, a):
    return f"{name} ({_dtype_name(a)}, shape {tuple(a.shape)}, {_library(a)})"


def _integer(fn, name, v, minimum=None):
    """v as a Python int: a TypeError unless it is integral (2.5, 2.0 and "2" are not)."""
    if isinstance(v, bool) or not isinstance(v, (int, _numbers.Integral)):
        try:
            if isinstance(v, (bool, float, str)) or _is_array(v) and getattr(v, "ndim", 1) != 0:
                raise TypeError
            v = _operator.index(v)
        except TypeError:
            raise TypeError(f"unison.{fn}: {name} is {v!r}, not an integer") from None
    v = int(v)
    if minimum is not None and v < minimum:
        raise ValueError(f"unison.{fn}: {name} is {v}, expected at least {minimum}")
    return v


def _real(fn, name, v):
    if isinstance(v, bool) or not isinstance(v, _numbers.Real):
        try:
            if _is_array(v) and getattr(v, "ndim", 1) == 0:
                return float(v)
        except (TypeError, ValueError):
            pass
        raise TypeError(f"unison.{fn}: {name} is {v!r}, not a real number")
    return float(v)


def _one_of(choices):
    """'a', 'b' or 'c'."""
    words = [repr(c) for c in choices]
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def _word(fn, name, v, choices):
    if not isinstance(v, str):
        raise TypeError(f"unison.{fn}: {name} is {v!r}, expected one of "
                        + ", ".join(repr(c) for c in choices))
    return v


def _backend(fn, backend):
    if backend is None:
        return ""
    _word(fn, "backend", backend, _BACKENDS)
    if backend not in _BACKENDS:
        raise ValueError(f"unison.{fn}: backend is {backend!r}, expected None, "
                         + ", ".join(repr(b) for b in _BACKENDS))
    return backend


def _check_class(fn, name, a):
    """Refuses ndarray subclasses whose meaning a new plain array would drop (masked arrays,
    np.matrix, ...); np.memmap is memory like any other."""
    np = _sys.modules.get("numpy")
    if np is None or type(a) is np.ndarray or not isinstance(a, np.ndarray) or \
            type(a) is np.memmap:
        return a
    what = "a masked array: its mask" if isinstance(a, np.ma.MaskedArray) else \
        f"a {type(a).__module__}.{type(a).__qualname__}, a subclass of numpy.ndarray: its class"
    raise TypeError(f"unison.{fn}: {name} is {what} would be lost; pass numpy.asarray({name}) "
                    f"(or its .filled() values) to compute on the plain array")


def _convert(fn, name, v, like, float_only):
    """An array_like that is not an array (a list, a tuple, a number) as an array of like's
    library, dtype and device (NumPy, and NumPy's choice of dtype, without like)."""
    import numpy as np
    dtype = None if like is None else _numpy_dtype(like)
    try:
        a = np.asarray(v, dtype=dtype)
    except OverflowError:
        raise ValueError(f"unison.{fn}: {name} is {v!r}, which {dtype} cannot hold") from None
    except (TypeError, ValueError) as e:
        raise TypeError(f"unison.{fn}: {name} ({type(v).__qualname__}) is not an array_like of "
                        f"numbers ({e})") from None
    if a.dtype == object or a.dtype.kind not in "biuf":
        raise TypeError(f"unison.{fn}: {name} ({type(v).__qualname__}) is not an array_like of "
                        "numbers")
    if float_only and a.dtype.kind != "f":
        a = a.astype(np.float64)
    elif a.dtype.kind == "b":
        a = a.astype(np.int64)
    if like is None or _library(like) == "numpy":
        return a
    lib = _library(like)
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.asarray(a)
    if lib == "torch":
        import torch
        return torch.as_tensor(a, device=like.device)
    if hasattr(like, "__cuda_array_interface__"):
        from numba import cuda
        return cuda.to_device(a)
    return a


def _numpy_dtype(like):
    import numpy as np
    d = like.dtype
    if isinstance(d, np.dtype):
        return d
    return np.dtype(str(d).replace("torch.", ""))


def _given(fn, name, v):
    """v as the call takes it when it is an array: as it is (ndarray subclasses refused); a
    buffer-protocol object (memoryview, array.array, bytearray) as a NumPy array over its memory
    (no copy). None for anything else."""
    if _is_array(v):
        return None if isinstance(v, _numbers.Number) else _check_class(fn, name, v)
    if isinstance(v, (str, list, tuple, _numbers.Number)) or v is None:
        return None
    try:
        memoryview(v).release()
    except TypeError:
        return None
    import numpy
    return numpy.asarray(v)


def _input(fn, name, v, like=None, float_only=True):
    """An input argument: an array as it is (_given), anything else converted (_convert)."""
    a = _given(fn, name, v)
    return a if a is not None else _convert(fn, name, v, like, float_only)


def _output(fn, name, a):
    """An array argument the call writes into: an array (a list would be a copy, its result
    lost)."""
    g = _given(fn, name, a)
    if g is None:
        raise TypeError(f"unison.{fn}: {name} is a {type(a).__qualname__}; it is written into, "
                        "so it must be an array")
    return g


def _require(fn, name, a, dtypes=None, ndims=None):
    """Refuses, naming the caller's argument, what a new output made like it would be refused
    for (its dtype, its rank)."""
    if dtypes is not None and _dtype_name(a) not in dtypes:
        raise TypeError(f"unison.{fn}: {_describe(name, a)}: expected "
                        + " or ".join(dtypes) + " (Unison converts nothing)")
    if ndims is not None and len(a.shape) not in ndims:
        want = " or ".join(str(n) for n in ndims)
        raise ValueError(f"unison.{fn}: {_describe(name, a)}: expected {want} dimensions")
    return a


def _stream_of(stream, arrays):
    """The stream device work is enqueued on, as an integer (None for host arrays)."""
    if stream is not None:
        if isinstance(stream, bool):
            raise TypeError(f"unison: stream is {stream!r}, not a CUDA stream")
        if isinstance(stream, int):
            if stream < 0 or stream >= 2**64:
                raise ValueError(f"unison: stream is {stream}, not a CUDA stream handle (an "
                                 "integer from 0 to 2**64 - 1)")
            return stream
        for attr in ("ptr", "cuda_stream", "handle"):
            value = getattr(stream, attr, None)
            if value is not None:
                return int(value)
        raise TypeError(f"unison: stream {stream!r} is not an integer or a stream object "
                        "(with .ptr, .cuda_stream or .handle)")
    for a in arrays:
        t = type(a)
        if t is _ndarray:
            continue
        lib = t.__module__
        if lib.startswith("cupy"):
            import cupy
            return cupy.cuda.get_current_stream().ptr
        if lib.startswith("torch") and getattr(a, "is_cuda", False):
            import torch
            return torch.cuda.current_stream(a.device).cuda_stream
    return None


def _fortran_only(a):
    """True for an array contiguous in Fortran order but not in C order (NumPy, CuPy)."""
    flags = getattr(a, "flags", None)
    if flags is None or len(a.shape) < 2:
        return False
    try:
        return bool(flags.f_contiguous) and not bool(flags.c_contiguous)
    except AttributeError:
        return False


def _empty(like, shape, dtype=None, order_like=None, zeros=False):
    """A new array of like's library, on like's device; in Fortran order where order_like is
    (NumPy's order "K" for the contiguous orders)."""
    lib = _library(like)
    dtype = like.dtype if dtype is None else dtype
    order = "F" if order_like is not None and _fortran_only(order_like) else "C"
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return (cupy.zeros if zeros else cupy.empty)(shape, dtype=dtype, order=order)
    if lib == "torch":
        import torch
        return (torch.zeros if zeros else torch.empty)(shape, dtype=dtype, device=like.device)
    if hasattr(like, "__cuda_array_interface__") and not hasattr(like, "__array_interface__"):
        from numba import cuda
        a = cuda.device_array(shape, dtype=dtype, order=order)
        if zeros and a.size:
            import numpy
            a.copy_to_device(numpy.zeros(shape, dtype=dtype, order=order))
        return a
    import numpy
    return (numpy.zeros if zeros else numpy.empty)(shape, dtype=dtype, order=order)


def _broadcast_shape(fn, named):
    """The shape NumPy broadcasts (name, shape) pairs to, or a ValueError naming them."""
    ndim = max((len(s) for _, s in named), default=0)
    result = [1] * ndim
    for _, s in named:
        for i, n in enumerate(s):
            j = ndim - len(s) + i
            if n != 1:
                if result[j] not in (1, n):
                    text = ", ".join(f"{name} {tuple(s)}" for name, s in named)
                    raise ValueError(f"unison.{fn}: the shapes do not broadcast together: {text}")
                result[j] = n
    return tuple(result)


def _shape_of(a):
    """An array's shape as a tuple, None where it does not state one."""
    shape = getattr(a, "shape", None)
    if shape is None and hasattr(a, "__cuda_array_interface__"):
        try:
            shape = a.__cuda_array_interface__["shape"]
        except (KeyError, TypeError, AttributeError):
            return None
    try:
        return tuple(int(n) for n in shape)
    except TypeError:
        return None


def _broadcast_to(fn, name, a, shape):
    """a as a view of the given shape (stride 0 along the broadcast axes): no copy."""
    if _shape_of(a) == shape:
        return a
    lib = _library(a)
    if lib == "torch":
        return a.expand(shape)
    if lib in ("numpy", "cupy"):
        return _sys.modules[lib].broadcast_to(a, shape)
    raise ValueError(f"unison.{fn}: {_describe(name, a)} would have to broadcast to {shape}, and "
                     f"a {type(a).__qualname__} cannot be viewed so; give it that shape")


_ndarray = None  # numpy.ndarray, once NumPy has been imported


def _host_copy(x):
    """x's values as a NumPy array (a copy for device arrays)."""
    lib = _library(x)
    if lib == "numpy":
        import numpy
        return numpy.asarray(x)
    if lib == "cupy":
        import cupy
        return cupy.asnumpy(x)
    if lib == "torch":
        return x.detach().cpu().numpy()
    if hasattr(x, "copy_to_host"):
        return x.copy_to_host()
    import numpy
    return numpy.asarray(x)


def _int64_of(like):
    lib = _library(like)
    if lib == "torch":
        import torch
        return torch.int64
    import numpy
    return numpy.int64
