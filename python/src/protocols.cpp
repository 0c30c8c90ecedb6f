// The protocols an array comes through (arrays.hpp says which, in as_array's order): each fills
// an ArrayRef from the object, or returns false where the object does not offer it.
#include "protocols.hpp"

#include <Kokkos_Macros.hpp>
#include "dlpack.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace unison::python {

std::string type_name(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__qualname__"));
}

namespace {

// A producer may export a silent copy of a view it cannot describe in DLPack (CuPy, asked for
// copy=False, exports a reversed view's copy without the is_copied flag). Where the object states
// its strides in bytes (NumPy's `strides`, as CuPy's arrays do), the export must have them: a
// negative or fractional stride is refused as set_layout refuses it, any other difference as a
// copy.
void check_stated_strides(py::handle obj, const std::string& fn, ArrayRef& a) {
  static PyObject* const strides_name = PyUnicode_InternFromString("strides");
  PyObject* stated = PyObject_GetAttr(obj.ptr(), strides_name);
  if (!stated) {
    PyErr_Clear();
    return;
  }
  const py::object hold = py::reinterpret_steal<py::object>(stated);
  if (!PyTuple_Check(stated) || PyTuple_GET_SIZE(stated) != a.ndim) return;
  const std::int64_t item = dtype_size(a.dtype);
  for (int i = 0; i < a.ndim; ++i) {
    const long long bytes = PyLong_AsLongLong(PyTuple_GET_ITEM(stated, i));
    if (bytes == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return;
    }
    // (the export's stride in bytes, compared without wrapping around)
    const bool same = a.strides[i] <= std::numeric_limits<std::int64_t>::max() / item &&
                      a.strides[i] >= std::numeric_limits<std::int64_t>::min() / item &&
                      bytes == a.strides[i] * item;
    if (a.shape[i] <= 1 || same) continue;
    const std::string stated_text = py::str(hold).cast<std::string>();
    if (bytes < 0)
      refuse(fn, a.describe() + ": its strides are " + stated_text +
                     " bytes; negative strides are not supported (a reversed view); pass a copy");
    if (bytes % item != 0)
      refuse(fn, a.describe() + ": its strides are " + stated_text +
                     " bytes, not a whole number of elements");
    refuse(fn, a.describe() +
                   ": its producer exported other memory than the array's own (its "
                   "strides are " +
                   stated_text + " bytes), a copy; Unison works on the array's own memory");
  }
}

// An interned Python string, made once (attribute names and keywords: no new string a call).
PyObject* interned(const char* text) {
  PyObject* s = PyUnicode_InternFromString(text);
  if (!s) throw py::error_already_set();
  return s;
}

// obj.__dlpack__(**kwargs): the keywords' names in kwnames (a tuple), their values in order.
py::object call_dlpack(py::handle obj, PyObject* kwnames, std::initializer_list<PyObject*> values) {
  static PyObject* const name = interned("__dlpack__");
  // (slot 0 free: PY_VECTORCALL_ARGUMENTS_OFFSET lets the call use it, which saves a copy)
  PyObject* args[5] = {nullptr, obj.ptr(), nullptr, nullptr, nullptr};
  std::size_t n = 2;
  for (PyObject* v : values) args[n++] = v;
  PyObject* r =
      PyObject_VectorcallMethod(name, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames);
  if (!r) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

}  // namespace

// DLPack: the capsule's tensor, its owner released when the ArrayRef goes.
bool from_dlpack(py::handle obj, const std::string& fn, ArrayRef& a, const StreamRequest& stream) {
  static PyObject* const dlpack = interned("__dlpack__");
  static PyObject* const dlpack_device = interned("__dlpack_device__");
  // (made once and never freed: no Python object is released after the interpreter's exit)
  static PyObject* const versioned_keywords =
      py::make_tuple("stream", "max_version", "copy").release().ptr();
  static PyObject* const unversioned_keywords = py::make_tuple("stream").release().ptr();
  static PyObject* const max_version = py::make_tuple(1, 0).release().ptr();
  if (!PyObject_HasAttr(obj.ptr(), dlpack)) return false;
  // The device first: the stream argument is only for CUDA memory. (NumPy's arrays are always
  // in host memory: their device is not asked, which saves a call.)
  py::object stream_arg = py::none();
  if (std::strcmp(Py_TYPE(obj.ptr())->tp_name, "numpy.ndarray") != 0 &&
      PyObject_HasAttr(obj.ptr(), dlpack_device)) {
    py::tuple dev =
        py::reinterpret_steal<py::object>(PyObject_CallMethodNoArgs(obj.ptr(), dlpack_device));
    if (!dev) throw py::error_already_set();
    const int type = dev[0].cast<int>();
    if (type == kDLCUDA) stream_arg = py::int_(protocol_stream(stream));
  }
  // A producer whose __dlpack__ has no max_version (NumPy before 2.1) raises TypeError and makes
  // only the unversioned capsule; its type is remembered (a reference held for the process's
  // life), so that its later arrays do not pay for an exception each.
  static auto* const unversioned_types = new std::vector<PyObject*>();
  PyObject* const type = reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()));
  bool versioned = std::find(unversioned_types->begin(), unversioned_types->end(), type) ==
                   unversioned_types->end();
  py::object capsule;
  try {
    if (versioned) {
      try {
        // copy=False: a producer that cannot export its own memory raises BufferError instead
        // of exporting a copy; the next protocol is tried.
        capsule = call_dlpack(obj, versioned_keywords, {stream_arg.ptr(), max_version, Py_False});
      } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_TypeError)) throw;
        Py_INCREF(type);
        unversioned_types->push_back(type);
        versioned = false;
      }
    }
    if (!versioned) capsule = call_dlpack(obj, unversioned_keywords, {stream_arg.ptr()});
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_BufferError)) return false;  // e.g. NumPy's read-only arrays
    throw;
  }
  PyObject* cap = capsule.ptr();
  DLTensor* t = nullptr;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    PyCapsule_SetName(cap, "used_dltensor_versioned");
    a.keep = std::shared_ptr<void>(m, [](void* p) {
      auto* mt = static_cast<DLManagedTensorVersioned*>(p);
      if (mt->deleter) mt->deleter(mt);
    });
    if (m->version.major != 1)
      refuse(fn, a.name + ": DLPack version " + std::to_string(m->version.major) + "." +
                     std::to_string(m->version.minor) + " is not supported (1.x is)");
    a.readonly = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    if (m->flags & DLPACK_FLAG_BITMASK_IS_COPIED)
      refuse(fn, a.name +
                     ": its producer exported a copy (DLPack's is_copied flag), although asked "
                     "for its own memory (copy=False); Unison works on the array's own memory");
    t = &m->dl_tensor;
    a.protocol = "DLPack 1.x";
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    PyCapsule_SetName(cap, "used_dltensor");
    a.keep = std::shared_ptr<void>(m, [](void* p) {
      auto* mt = static_cast<DLManagedTensor*>(p);
      if (mt->deleter) mt->deleter(mt);
    });
    t = &m->dl_tensor;
    a.protocol = "DLPack (unversioned)";
  } else {
    refuse_type(fn,
                a.name + ": __dlpack__ of " + type_name(obj) + " did not return a DLPack capsule");
  }
  switch (t->device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      a.device = {Device::host, 0};
      break;
    case kDLCUDA:
      a.device = {Device::cuda, t->device.device_id};
      break;
    default:
      refuse(fn, a.name + " is in DLPack device type " + std::to_string(t->device.device_type) +
                     " memory; Unison takes host (CPU) and CUDA device memory");
  }
  if (!dtype_from_dlpack(t->dtype, a.dtype))
    refuse_type(fn, a.name + " holds DLPack type (code " + std::to_string(t->dtype.code) + ", " +
                        std::to_string(t->dtype.bits) + " bits, " + std::to_string(t->dtype.lanes) +
                        " lanes), which Unison does not take");
  a.data = static_cast<char*>(t->data) + t->byte_offset;
  set_layout(a, fn, t->ndim, t->shape, t->strides, false);
  // (NumPy's exports are its arrays' own memory: it refuses what DLPack cannot describe)
  if (std::strcmp(Py_TYPE(obj.ptr())->tp_name, "numpy.ndarray") != 0)
    check_stated_strides(obj, fn, a);
  return true;
}

namespace {

#if defined(KOKKOS_ENABLE_CUDA)
// The call's stream waits for the producer's (a CUDA Array Interface "stream").
void wait_on(std::uintptr_t producer, std::uintptr_t consumer) {
  if (producer == consumer || (producer == 1 && consumer == 0)) return;
  cudaStream_t p = producer == 1   ? cudaStreamLegacy
                   : producer == 2 ? cudaStreamPerThread
                                   : reinterpret_cast<cudaStream_t>(producer);
  cudaEvent_t ev;
  if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventRecord(ev, p) != cudaSuccess ||
      cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), ev, 0) != cudaSuccess)
    throw std::runtime_error("unison: could not order the call after the array's stream");
  cudaEventDestroy(ev);
}
#endif

}  // namespace

bool from_cuda_array_interface(py::handle obj, const std::string& fn, ArrayRef& a,
                               const StreamRequest& stream) {
  if (!py::hasattr(obj, "__cuda_array_interface__")) return false;
  py::dict cai = obj.attr("__cuda_array_interface__");
  a.protocol = "CUDA Array Interface";
  const int version = cai.contains("version") ? cai["version"].cast<int>() : 0;
  if (version < 2 || version > 3)
    refuse(fn, a.name + ": CUDA Array Interface version " + std::to_string(version) +
                   " is not supported (2 and 3 are)");
  py::tuple data = cai["data"];
  a.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  a.readonly = data[1].cast<bool>();
  py::tuple shape = cai["shape"];
  const std::string typestr = py::str(cai["typestr"]);
  Dtype d{};
  if (!dtype_from_typestr(typestr, 0, d) || typestr.size() < 3)
    refuse_type(fn, a.name + " has type '" + typestr + "', which Unison does not take");
  a.dtype = d;
  const int ndim = static_cast<int>(shape.size());
  std::array<std::int64_t, max_rank + 1> sh{}, st{};
  if (ndim > max_rank)
    refuse(fn, a.name + " has " + std::to_string(ndim) + " dimensions; Unison takes at most " +
                   std::to_string(max_rank));
  for (int i = 0; i < ndim; ++i) sh[i] = shape[i].cast<std::int64_t>();
  bool strided = cai.contains("strides") && !cai["strides"].is_none();
  if (strided) {
    py::tuple s = cai["strides"];
    for (int i = 0; i < ndim; ++i) st[i] = s[i].cast<std::int64_t>();
  }
#if defined(KOKKOS_ENABLE_CUDA)
  cudaPointerAttributes attr{};
  if (a.data && cudaPointerGetAttributes(&attr, a.data) == cudaSuccess &&
      (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged))
    a.device = {Device::cuda, attr.device};
  else if (a.data) a.device = {Device::host, 0};
  else a.device = {Device::cuda, 0};
  if (cai.contains("stream") && !cai["stream"].is_none())
    wait_on(cai["stream"].cast<std::uintptr_t>(), stream.stream);
#else
  (void)stream;
  a.device = {Device::cuda, 0};
#endif
  set_layout(a, fn, ndim, sh.data(), strided ? st.data() : nullptr, true);
  // Keep the exporter alive (the interface itself holds no reference).
  a.keep = std::shared_ptr<void>(new py::object(py::reinterpret_borrow<py::object>(obj)),
                                 [](void* p) { delete static_cast<py::object*>(p); });
  return true;
}

bool from_buffer(py::handle obj, const std::string& fn, ArrayRef& a) {
  if (!PyObject_CheckBuffer(obj.ptr())) return false;
  auto* view = new Py_buffer;
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS_RO) != 0) {
    delete view;
    throw py::error_already_set();
  }
  a.keep = std::shared_ptr<void>(view, [](void* p) {
    auto* v = static_cast<Py_buffer*>(p);
    PyBuffer_Release(v);
    delete v;
  });
  a.protocol = "buffer protocol";
  a.readonly = view->readonly != 0;
  a.device = {Device::host, 0};
  a.data = view->buf;
  const std::string format = view->format ? view->format : "B";
  if (!dtype_from_typestr(format, view->itemsize, a.dtype)) {
    // ('>' and '!': big-endian, which dtype_from_typestr refuses on this little-endian host)
    const bool swapped = !format.empty() && (format[0] == '>' || format[0] == '!');
    refuse_type(
        fn, a.name +
                (swapped ? " has non-native byte order (buffer format '" : " has buffer format '") +
                format + (swapped ? "')" : "'") + ", which Unison does not take");
  }
  std::array<std::int64_t, 8> sh{}, st{};
  if (view->ndim > max_rank)
    refuse(fn, a.name + " has " + std::to_string(view->ndim) +
                   " dimensions; Unison takes at most " + std::to_string(max_rank));
  for (int i = 0; i < view->ndim; ++i) {
    sh[i] = view->shape ? view->shape[i] : view->len / view->itemsize;
    st[i] = view->strides ? view->strides[i] : 0;
  }
  set_layout(a, fn, view->ndim, sh.data(), view->strides ? st.data() : nullptr, true);
  return true;
}

}  // namespace unison::python
