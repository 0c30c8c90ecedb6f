"""The test suite on CuPy arrays (UNISON_TEST_ARRAYS=cupy; conftest.py installs this): `unison`
becomes a stand-in whose functions take the tests' NumPy arrays, make CuPy arrays of the same
layout (the same strides and offsets in a device copy of the memory the arrays span, so that
views of one array stay views of one device array: overlaps, broadcasts, in-place calls), call
the real function on them inside a non-blocking CuPy stream (the module finds it as CuPy's
current stream), and copy the device memory back into the NumPy arrays on that stream before
returning; new results come back as NumPy arrays in their own memory order, `out=` as the
test's own array. The host backends asked for ("openmp", "serial") become the device's. No
synchronisation is added: the copies back are ordered after the call on the stream, as a
user's own reads would be. A diffuse_history callback sees the history copied back first, from
inside the call."""

import ctypes
import types

import cupy as cp
import numpy as np

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:  # NumPy before 2.0
    byte_bounds = np.byte_bounds


class _Segment:
    """Host bytes [lo, hi) and their device copy (at the same offset modulo 256)."""

    def __init__(self, lo, hi, stream):
        self.lo, self.hi = lo, hi
        self.host = np.frombuffer((ctypes.c_char * (hi - lo)).from_address(lo), np.uint8) \
            if hi > lo else np.empty(0, np.uint8)
        self.pad = lo % 256
        self.device = cp.empty(hi - lo + self.pad, cp.uint8)
        self.device[self.pad:].set(self.host, stream=stream)
        self.writeable = False

    def view(self, a):
        ptr = a.__array_interface__["data"][0]
        mem = self.device.data + (self.pad + ptr - self.lo)
        return cp.ndarray(a.shape, a.dtype, memptr=mem, strides=a.strides)

    def copy_back(self, stream):
        if self.writeable and self.hi > self.lo:
            self.device[self.pad:].get(stream=stream, out=self.host)


class _Call:
    """One call's device copies of its NumPy arguments."""

    def __init__(self, arrays, stream):
        self.stream = stream
        spans = []
        for a in arrays:
            if a.size:
                lo, hi = byte_bounds(a)
                spans.append((lo, hi, a))
        spans.sort(key=lambda s: s[0])
        self.segments, self.of = [], {}
        for lo, hi, a in spans:  # overlapping spans share a segment
            if self.segments and lo < self.segments[-1][1]:
                seg = self.segments[-1]
                seg[1] = max(seg[1], hi)
                seg[2].append(a)
            else:
                self.segments.append([lo, hi, [a]])
        made = []
        for lo, hi, members in self.segments:
            seg = _Segment(lo, hi, stream)
            for a in members:
                seg.writeable |= a.flags.writeable
                self.of[id(a)] = (seg, a)
            made.append(seg)
        self.segments = made
        self.device = {}  # id(numpy array) -> its CuPy array
        for a in arrays:
            self.device[id(a)] = (self.of[id(a)][0].view(a) if a.size
                                  else cp.empty(a.shape, a.dtype))

    def copy_back(self):
        for seg in self.segments:
            seg.copy_back(self.stream)


def _numpy_arrays(values):
    out = []
    for v in values:
        if isinstance(v, np.ndarray) and all(v is not o for o in out):
            out.append(v)
    return out


def make_stand_in(real):
    stream = cp.cuda.Stream(non_blocking=True)
    stand_in = types.ModuleType("unison")
    stand_in.__dict__.update({k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    stand_in.stream = stream
    passthrough = {"backends", "finalize", "convolve_extent", "build_info"}

    def wrap(name, fn):
        def call(*args, **kwargs):
            if kwargs.get("backend") in ("openmp", "serial"):
                kwargs["backend"] = None
            arrays = _numpy_arrays(list(args) + list(kwargs.values()))
            with stream:
                c = _Call(arrays, stream)
                swap = lambda v: c.device[id(v)] if isinstance(v, np.ndarray) else v  # noqa: E731
                dargs = [swap(v) for v in args]
                dkwargs = {k: swap(v) for k, v in kwargs.items()}
                if name == "diffuse_history":
                    user = dargs[4] if len(dargs) > 4 else dkwargs.get("on_history")
                    if callable(user):  # (anything else reaches the real function as it is)
                        def on_history(first, count):
                            c.copy_back()
                            user(first, count)
                        if len(dargs) > 4:
                            dargs[4] = on_history
                        else:
                            dkwargs["on_history"] = on_history
                try:
                    result = fn(*dargs, **dkwargs)
                finally:
                    c.copy_back()  # also after a refusal: the tests check nothing was written
                back = {id(d): a for a in arrays for d in [c.device[id(a)]]}

                def to_host(r):
                    if isinstance(r, tuple):
                        return tuple(to_host(x) for x in r)
                    if isinstance(r, cp.ndarray):
                        return back[id(r)] if id(r) in back else r.get(stream=stream, order="A")
                    return r
                return to_host(result)
        call.__name__ = name
        call.__doc__ = fn.__doc__
        return call

    for name in real.__all__:
        if name not in passthrough:
            setattr(stand_in, name, wrap(name, getattr(real, name)))
    return stand_in
