// A DLPack producer for the tests: wraps a host array (the buffer protocol) and exports it as a
// versioned capsule (DLPack 1.x, "dltensor_versioned") with the flags a test asks for, or as the
// unversioned one when the consumer does not ask for max_version >= (1, 0). `copy`, the
// consumer's last copy argument (None, True or False), is kept in last_copy. `strides`, when
// given, is what the object states as its strides in bytes (as NumPy's and CuPy's arrays do):
// stating other strides than the export's plays a producer that exports a silent copy.
// `export_strides` (elements), when given, replaces the capsule's strides (a producer that
// writes them wrongly).
//   Producer(array, read_only=False, copied=False, major=1, strides=None, export_strides=None)
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "../src/dlpack.hpp"

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

struct Context {
  Py_buffer buffer{};
  std::vector<int64_t> shape, strides;
};

struct Producer {
  py::object array;
  bool read_only = false, copied = false;
  int major = 1;
  int exports = 0;  // how many capsules were made
  py::object last_copy = py::none();
  py::object strides = py::none();
  std::vector<int64_t> export_strides;  // the capsule's strides, when not the buffer's

  template <class M>
  M* managed() {
    auto* ctx = new Context;
    if (PyObject_GetBuffer(array.ptr(), &ctx->buffer, PyBUF_RECORDS_RO) != 0) {
      delete ctx;
      throw py::error_already_set();
    }
    const Py_buffer& b = ctx->buffer;
    for (int i = 0; i < b.ndim; ++i) {
      ctx->shape.push_back(b.shape[i]);
      ctx->strides.push_back(b.strides[i] / b.itemsize);
    }
    if (!export_strides.empty()) ctx->strides = export_strides;
    auto* m = new M{};
    m->manager_ctx = ctx;
    DLTensor& t = m->dl_tensor;
    t.data = b.buf;
    t.device = {kDLCPU, 0};
    t.ndim = b.ndim;
    const std::string f = b.format;
    const char c = f.back();
    t.dtype.code = (c == 'f' || c == 'd') ? kDLFloat : (std::islower(c) ? kDLInt : kDLUInt);
    t.dtype.bits = uint8_t(8 * b.itemsize);
    t.dtype.lanes = 1;
    t.shape = ctx->shape.data();
    t.strides = ctx->strides.data();
    t.byte_offset = 0;
    m->deleter = [](M* self) {
      auto* c = static_cast<Context*>(self->manager_ctx);
      PyGILState_STATE g = PyGILState_Ensure();
      PyBuffer_Release(&c->buffer);
      PyGILState_Release(g);
      delete c;
      delete self;
    };
    ++exports;
    return m;
  }

  py::object dlpack(py::object stream, py::object max_version, py::object copy) {
    if (!stream.is_none()) throw py::buffer_error("stream must be None for host memory");
    last_copy = copy;
    const bool versioned =
        !max_version.is_none() && max_version.cast<py::tuple>()[0].cast<int>() >= 1;
    if (versioned) {
      auto* m = managed<DLManagedTensorVersioned>();
      m->version = {uint32_t(major), 0};
      m->flags = (read_only ? 1u : 0u) | (copied ? 2u : 0u);
      return py::reinterpret_steal<py::object>(
          PyCapsule_New(m, "dltensor_versioned", [](PyObject* cap) {
            if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
              auto* t = static_cast<DLManagedTensorVersioned*>(
                  PyCapsule_GetPointer(cap, "dltensor_versioned"));
              t->deleter(t);
            }
          }));
    }
    auto* m = managed<DLManagedTensor>();
    return py::reinterpret_steal<py::object>(PyCapsule_New(m, "dltensor", [](PyObject* cap) {
      if (PyCapsule_IsValid(cap, "dltensor")) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
        t->deleter(t);
      }
    }));
  }
};

}  // namespace

PYBIND11_MODULE(_dlpack_producer, m) {
  py::class_<Producer>(m, "Producer")
      .def(py::init([](py::object array, bool read_only, bool copied, int major, py::object strides,
                       py::object export_strides) {
             Producer p{array, read_only, copied, major};
             p.strides = strides;
             if (!export_strides.is_none())
               p.export_strides = export_strides.cast<std::vector<int64_t>>();
             return p;
           }),
           py::arg("array"), py::arg("read_only") = false, py::arg("copied") = false,
           py::arg("major") = 1, py::arg("strides") = py::none(),
           py::arg("export_strides") = py::none())
      .def("__dlpack__", &Producer::dlpack, py::kw_only(), py::arg("stream") = py::none(),
           py::arg("max_version") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const Producer&) { return py::make_tuple(int(kDLCPU), 0); })
      .def_readonly("exports", &Producer::exports)
      .def_readonly("last_copy", &Producer::last_copy)
      .def_property_readonly("strides",
                             [](const Producer& p) {
                               return p.strides.is_none() ? p.array.attr("strides") : p.strides;
                             })
      .def_property_readonly("shape", [](const Producer& p) { return p.array.attr("shape"); })
      .def_property_readonly("dtype", [](const Producer& p) { return p.array.attr("dtype"); });
}
