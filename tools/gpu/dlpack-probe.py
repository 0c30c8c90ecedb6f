"""What a producer's DLPack capsule holds (read with ctypes, no build needed): CuPy's export of a
reversed view, asked as the Python module asks (stream, max_version=(1, 0), copy=False)."""
import ctypes

import cupy as cp

api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.py_object]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class Versioned(ctypes.Structure):
    _fields_ = [("version", Version), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


def show(label, a, **kw):
    try:
        cap = a.__dlpack__(**kw)
    except Exception as e:  # noqa: BLE001
        print(f"{label}: {type(e).__name__}: {e}")
        return
    name = api.PyCapsule_GetName(cap)
    p = api.PyCapsule_GetPointer(cap, name)
    if name == b"dltensor_versioned":
        m = Versioned.from_address(p)
        t, head = m.dl_tensor, f"version {m.version.major}.{m.version.minor} flags {m.flags}"
    else:
        t, head = DLTensor.from_address(p), "unversioned"
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else None
    print(f"{label}: {name.decode()} {head}; data {'the array' if t.data == a.data.ptr else hex(t.data or 0) + ' (not the array: ' + hex(a.data.ptr) + ')'}"
          f" + {t.byte_offset}; shape {shape} strides {strides}; array strides {a.strides}")


stream = cp.cuda.get_current_stream().ptr or 1
x = cp.arange(6, dtype=cp.float32)
show("reversed, as the module asks", x[::-1], stream=stream, max_version=(1, 0), copy=False)
show("reversed, versioned", x[::-1], stream=stream, max_version=(1, 0))
show("reversed, unversioned", x[::-1], stream=stream)
show("every other", x[::2], stream=stream, max_version=(1, 0), copy=False)
print("cupy", cp.__version__)
