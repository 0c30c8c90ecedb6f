"""Unison's kernels on your own arrays.

Every function takes NumPy, CuPy, PyTorch or Numba arrays (any object that speaks DLPack, the
CUDA Array Interface or the buffer protocol) and works on their memory in place: no copy, no
conversion, but where NumPy's ufuncs convert (add, hypot and clip: mixed dtypes, dtype=, an out=
of another dtype, where=), which go through a temporary as NumPy's do. Arrays in host memory run on the OpenMP backend (``backend="serial"`` for Serial),
arrays in CUDA device memory on the Cuda backend, on the caller's current stream (CuPy's,
PyTorch's) or on ``stream=``. The result goes into ``out=`` when it is given, else into a new
array of the first input's library, which the function returns.

Host calls release the GIL and return when the result is in memory. Device calls are enqueued
on the stream and return at once, ordered with the caller's own work on that stream.

Bad input raises ``ValueError`` (or ``TypeError`` for a wrong type) naming the function, the
argument and its dtype, shape, strides and device; nothing is written.
"""

import math as _math
import numbers as _numbers
import operator as _operator
import os as _os
import sys as _sys

from . import _build_info

# The CPU flags (as Linux's /proc/cpuinfo names them) of the compiler's instruction-set macros
# that _build_info.MACROS lists.
_CPU_FLAGS = {
    "SSE": "sse", "SSE2": "sse2", "SSE3": "pni", "SSSE3": "ssse3", "SSE4_1": "sse4_1",
    "SSE4_2": "sse4_2", "POPCNT": "popcnt", "AVX": "avx", "AVX2": "avx2", "FMA": "fma",
    "F16C": "f16c", "BMI": "bmi1", "BMI2": "bmi2", "LZCNT": "abm", "MOVBE": "movbe",
    "AVX512F": "avx512f", "AVX512CD": "avx512cd", "AVX512BW": "avx512bw", "AVX512DQ": "avx512dq",
    "AVX512VL": "avx512vl", "AVX512IFMA": "avx512ifma", "AVX512VBMI": "avx512vbmi",
    "AVX512VBMI2": "avx512_vbmi2", "AVX512VNNI": "avx512_vnni", "AVX512BITALG": "avx512_bitalg",
    "AVX512VPOPCNTDQ": "avx512_vpopcntdq", "AVX512BF16": "avx512_bf16",
    "AVX512FP16": "avx512_fp16", "AVXVNNI": "avx_vnni", "GFNI": "gfni", "VAES": "vaes",
    "VPCLMULQDQ": "vpclmulqdq", "PCLMUL": "pclmulqdq", "AES": "aes", "SHA": "sha_ni",
    "ADX": "adx", "RDRND": "rdrand", "RDSEED": "rdseed",
}


def _cpu_instruction_sets():
    """{macro: supported} for the instruction sets this CPU and its operating system support, by
    the CPU's own word (cpuid and xgetbv, asked by the small module _cpu, which is compiled for
    the compiler's baseline so that any CPU of the architecture loads it); None where that
    module is not there or knows no instruction set of this architecture."""
    try:
        from . import _cpu
    except ImportError:
        return None
    return dict(_cpu.instruction_sets()) or None


def _missing_instruction_sets(cpuinfo="/proc/cpuinfo"):
    """The instruction sets the compiled module may use that this CPU lacks, by the flags line of
    Linux's /proc/cpuinfo (none where it cannot be read or has no such line: other systems and
    other architectures are not checked). The import asks the CPU itself first
    (_cpu_instruction_sets): a kernel's list can lack a feature the CPU has."""
    try:
        with open(cpuinfo) as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags") and ":" in line), None)
    except OSError:
        return []
    if flags is None:
        return []
    have = set(flags)
    return [m for m in _build_info.MACROS if m in _CPU_FLAGS and _CPU_FLAGS[m] not in have]


# Before the compiled module is loaded: on a CPU without its instructions it would end the
# process with an illegal instruction. (UNISON_SKIP_CPU_CHECK=1 skips the check, should it be
# wrong.)
_missing, _said = [], ""
if _os.environ.get("UNISON_SKIP_CPU_CHECK") != "1":
    _sets = _cpu_instruction_sets()
    if _sets is not None:
        _missing = [m for m in _build_info.MACROS if _sets.get(m) is False]
        _said = "by the CPU's cpuid and xgetbv"
    else:
        _missing = _missing_instruction_sets()
        _said = f"/proc/cpuinfo has no {', '.join(_CPU_FLAGS[m] for m in _missing)}"
if _missing:
    _arch = f"-march={_build_info.ARCH}" if _build_info.ARCH else "the compiler's default"
    raise ImportError(
        f"unison: this build of the module is compiled for {_arch}"
        f"{' (the CPU of the machine that built it)' if _build_info.ARCH == 'native' else ''} and "
        f"uses instructions this CPU lacks: {', '.join(_missing)} ({_said}); loading it would end "
        "the process with an illegal instruction. Build the module on this machine (`pip install "
        "--no-build-isolation .` in Unison's source tree), or once for every machine it must run "
        "on: UNISON_CMAKE_ARGS=-DUNISON_HOST_ARCH=x86-64-v3 (AVX2 and FMA, x86-64 CPUs since "
        "about 2015; docs/python.md).")

from . import _unison  # noqa: E402  (after the check above)

__version__ = _unison.version

__all__ = [
    "add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "clip", "make_pulses",
    "hidden_layer", "l2_norm", "matmul_core", "histogram", "monte_carlo_pi", "diffusion_step",
    "histogram_bin_edges", "diffuse", "diffuse_history", "jagged_field", "convolve",
    "convolve_extent",
    "matmul_reduce", "backends", "finalize", "release_temporary_memory", "temporary_memory_bytes",
    "serial_below", "build_info",
]

backends = _unison.backends
finalize = _unison.finalize
release_temporary_memory = _unison.release_temporary_memory
temporary_memory_bytes = _unison.temporary_memory_bytes


def build_info():
    """What this build of the module is compiled for, as a dict: "version" (Unison's), "arch"
    (the -march value; "" for the compiler's default), "instruction_sets" (the compiler's
    instruction-set macros for it: "AVX2", "AVX512F", ...; the import checks the CPU has them),
    "backends" (as backends()), "cuda_architectures" (CMake's, "" without Cuda),
    "kokkos_version" and "compiler"."""
    return {
        "version": __version__,
        "arch": _build_info.ARCH,
        "instruction_sets": list(_build_info.MACROS),
        "backends": list(backends()),
        "cuda_architectures": _build_info.CUDA_ARCHITECTURES,
        "kokkos_version": _unison.kokkos_version,
        "compiler": _build_info.COMPILER,
    }


def serial_below(elements=None):
    """Host calls on the default backend (no backend= given) whose largest array has fewer than
    `elements` elements run on one thread, the Serial backend, with the same bits: no fork-join
    of OpenMP's threads, and no wait for one that another process's threads have pushed off its
    core. Returns the value before; None leaves it. 0: always OpenMP."""
    if elements is not None:
        elements = _integer("serial_below", "elements", elements, 0)
    return _unison.serial_below(elements)

# A child forked after import has neither OpenMP's threads nor a CUDA context: its host calls run
# on Serial (one RuntimeWarning says so), its device calls are refused (_unison's Call).
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_unison._after_fork_in_child)

_BACKENDS = tuple(_unison.known_backends)  # the compiled half's list
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
_EXACT = 2**53  # the integers up to this size are doubles exactly
_INT32 = 2**31  # numbers any dtype of Unison's holds as NumPy takes them


def _plain(operands, out, dtypes, ndims):
    """The common case at the cost of a few type checks: NumPy arrays (not subclasses) of one
    shape, out's when given, and Python numbers; out, when not given, made as _elementwise
    makes it. Returns (values, out), or None for everything else (_elementwise's general
    path, which also gives every refusal)."""
    global _ndarray
    nd = _ndarray
    if nd is None:
        np = _sys.modules.get("numpy")
        if np is None:
            return None
        nd = _ndarray = np.ndarray
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


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _check_casting(fn, casting, none_allowed=False):
    """casting= one of NumPy's words (None too for clip, as NumPy's clip)."""
    if casting is None and none_allowed:
        return
    if casting not in _CASTINGS:
        raise ValueError(f"unison.{fn}: casting is {casting!r}: casting must be one of "
                         + ", ".join(repr(c) for c in _CASTINGS))


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
                        "Unison does not: expected " + ", ".join(dtypes[:-1]) + " or " + dtypes[-1])
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
    """NumPy's rule for number bounds with lo > hi: hi everywhere (a NaN x stays NaN)."""
    x, lo, hi = values
    if _is_number(lo) and _is_number(hi) and lo > hi:
        lo = hi
    return [x, lo, hi]


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
    fusion = _word("hidden_layer", "fusion", fusion, ("fused", "separate"))
    (w, g), out, result = _elementwise(
        "hidden_layer", [("weights", weights, False), ("greyscales", greyscales, False)], out,
        _FLOATS, (1,))
    _unison.hidden_layer(g, w, out, fusion, _backend("hidden_layer", backend),
                         _stream_of(stream, [out]))
    return result


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
    on every backend and thread count; integers exactly, in 64 bits); density=True divides by the bin widths and the total, as NumPy.
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


def monte_carlo_pi(samples, seed=_unison.default_seed, *, backend=None, stream=None):
    """An estimate of pi from `samples` points (the same for a seed on every backend). Returns a
    Python float: waits for the result (on the call's stream only, on a GPU)."""
    fn = "monte_carlo_pi"
    samples = _integer(fn, "samples", samples)
    seed = _seed(fn, seed)
    return _unison.monte_carlo_pi(samples, seed, _backend(fn, backend),
                                  None if stream is None else _stream_of(stream, []))


def _seed(fn, seed):
    seed = _integer(fn, "seed", seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"unison.{fn}: seed is {seed}, expected 0 to 2**64 - 1")
    return seed


_STENCILS = ("automatic", "plain", "tiled", "streaming")


def diffusion_step(f, coeff, f_next=None, lapl=None, *, algorithm="automatic", backend=None,
                   stream=None):
    """One step of the 2-D diffusion of the rank-2 field f: returns (f_next, lapl), new arrays
    of f's library (in f's memory order) unless given. algorithm: "automatic", "plain",
    "tiled" or "streaming"."""
    fn = "diffusion_step"
    f = _input(fn, "f", f)
    coeff = _real(fn, "coeff", coeff)
    algorithm = _word(fn, "algorithm", algorithm, _STENCILS)
    if f_next is None or lapl is None:
        _require(fn, "f", f, _FLOATS, (2,))
    f_next = _check_class(fn, "f_next", f_next) if f_next is not None else \
        _empty(f, f.shape, order_like=f)
    lapl = _check_class(fn, "lapl", lapl) if lapl is not None else _empty(f, f.shape, order_like=f)
    _unison.diffusion_step(f, f_next, lapl, coeff, algorithm, _backend(fn, backend),
                           _stream_of(stream, [f, f_next]))
    return f_next, lapl




def diffuse(f, steps, coeff, lapl=None, *, laplacian="every_step", algorithm="automatic",
            tile_rows=0, tile_cols=0, steps_per_pass=0, backend=None, stream=None):
    """`steps` steps of the diffusion, in place in f; returns lapl, the last step's Laplacian
    (a new array in f's memory order unless given; with steps = 0 nothing changes, and a new
    lapl is zeros). laplacian: "every_step" or "final_only" (temporal blocking: several steps
    per pass). Its second buffer of f's size is temporary memory kept between calls. On the host
    backends Ctrl-C stops a long call between passes (KeyboardInterrupt): f then holds the
    field after some whole number of steps, and lapl is undefined."""
    fn = "diffuse"
    f = _output(fn, "f", f)
    steps = _integer(fn, "steps", steps, 0)
    coeff = _real(fn, "coeff", coeff)
    laplacian = _word(fn, "laplacian", laplacian, ("every_step", "final_only"))
    algorithm = _word(fn, "algorithm", algorithm, _STENCILS)
    tile_rows = _integer(fn, "tile_rows", tile_rows, 0)
    tile_cols = _integer(fn, "tile_cols", tile_cols, 0)
    steps_per_pass = _integer(fn, "steps_per_pass", steps_per_pass, 0)
    if lapl is None:
        _require(fn, "f", f, _FLOATS, (2,))
        lapl = _empty(f, f.shape, order_like=f, zeros=steps == 0)
    else:
        _output(fn, "lapl", lapl)
    _unison.diffuse(f, steps, coeff, lapl, laplacian, algorithm, tile_rows, tile_cols,
                    steps_per_pass, _backend(fn, backend), _stream_of(stream, [f, lapl]))
    return lapl


def diffuse_history(f, steps, coeff, history, on_history=None, *, steps_per_pass=0,
                    backend=None, stream=None):
    """`steps` steps in place in f, keeping every step's Laplacian a group of
    history.shape[0] steps at a time in the rank-3 history (planes, nx, ny): after each group,
    on_history(first, count) is called (steps count from 1; history[k] holds step first + k's
    Laplacian; f holds the field only when the call returns). Returns history. On the host
    backends Ctrl-C stops the call after a group (KeyboardInterrupt); f is then undefined."""
    fn = "diffuse_history"
    f = _output(fn, "f", f)
    history = _output(fn, "history", history)
    if on_history is not None and not callable(on_history):
        raise TypeError(f"unison.{fn}: on_history is {on_history!r}, not callable")
    _unison.diffuse_history(f, _integer(fn, "steps", steps, 0), _real(fn, "coeff", coeff),
                            history, on_history, _integer(fn, "steps_per_pass", steps_per_pass, 0),
                            _backend(fn, backend), _stream_of(stream, [f, history]))
    return history


def jagged_field(f, seed=_unison.default_seed, zero_fraction=_unison.jagged_default_zero_fraction,
                 *, backend=None, stream=None):
    """The deterministic "jagged image" into the rank-2 f (the same bits on every backend and
    layout); returns f."""
    fn = "jagged_field"
    f = _output(fn, "f", f)
    _unison.jagged_field(f, _seed(fn, seed), _real(fn, "zero_fraction", zero_fraction),
                         _backend(fn, backend), _stream_of(stream, [f]))
    return f


_CONVOLVE_MODES = ("valid", "same", "full")  # NumPy's integer modes 0, 1 and 2


def _convolve_mode(fn, mode):
    """NumPy's convolve modes: "full", "same" or "valid"; 2, 1 or 0; and, deprecated as in
    NumPy, a word that starts with f, s or v in any case ("f", "Same")."""
    if isinstance(mode, str):
        if mode in _CONVOLVE_MODES:
            return mode
        full = next((m for m in _CONVOLVE_MODES if mode[:1].lower() == m[0]), None)
        if full is None:
            raise ValueError(f"unison.{fn}: mode is {mode!r}, expected 'full', 'same' or "
                             "'valid'")
        import warnings
        warnings.warn(f"unison.{fn}: mode {mode!r} taken as {full!r}; as in NumPy, inexact and "
                      "case-insensitive mode names are deprecated", DeprecationWarning,
                      stacklevel=3)
        return full
    if isinstance(mode, bool) or not isinstance(mode, (int, _numbers.Integral)):
        raise TypeError(f"unison.{fn}: mode is {mode!r}, expected 'full', 'same' or 'valid' "
                        "(or NumPy's 2, 1 or 0)")
    if not 0 <= int(mode) <= 2:
        raise ValueError(f"unison.{fn}: mode is {int(mode)}, expected 0 (valid), 1 (same) or "
                         "2 (full)")
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
    "valid" (or NumPy's 2, 1 and 0); algorithm "automatic", "direct" or "tiled" (the same bits). As np.convolve, the
    longer of x and k is taken as the signal."""
    fn = "convolve"
    mode = _convolve_mode(fn, mode)
    algorithm = _word(fn, "algorithm", algorithm, ("automatic", "direct", "tiled"))
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


def matmul_reduce(A, B, out=None, *, method="automatic", backend=None, stream=None):
    """The column sums of A @ B (A: m x k, B: k x n, float32 or float64) into a rank-1 array of
    n; method "automatic", "tiled", "gemm" (A and B both C-ordered or both Fortran-ordered) or
    "reassociated". The gemm and reassociated methods' temporary memory is kept between calls."""
    fn = "matmul_reduce"
    method = _word(fn, "method", method, ("automatic", "tiled", "gemm", "reassociated"))
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


def _int64_of(like):
    lib = _library(like)
    if lib == "torch":
        import torch
        return torch.int64
    import numpy
    return numpy.int64
