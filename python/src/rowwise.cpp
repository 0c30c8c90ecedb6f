// The row-wise family (unison/rowwise.hpp): l2_norm, matmul_core.
#include "bindings.hpp"

#include <unison/rowwise.hpp>

#include <algorithm>
#include <cmath>

namespace unison::python {
namespace {

using std::string;

void l2_norm(py::object v, py::object out, const string& backend, py::object stream) {
  Call call("unison.l2_norm", call_options(backend, stream));
  const ArrayRef& o = call.array(out, "out", Role::output);
  call.require_rank(o, 1);
  const ArrayRef& va = call.array(v, "V", Role::input, o, 2);
  on_float(call.fn(), o, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::l2_norm(exec, view_of<const T, 2, S>(va), view_of<T, 1, S>(o));
    });
  });
}

void matmul_core(py::object a, py::object b, py::object c, const string& backend,
                 py::object stream) {
  Call call("unison.matmul_core", call_options(backend, stream));
  const ArrayRef& co = call.array(c, "out", Role::output);
  call.require_rank(co, 3);
  const ArrayRef& aa = call.array(a, "A", Role::input, co, 3);
  const ArrayRef& ba = call.array(b, "B", Role::input, co, 3);
  on_float(call.fn(), co, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::matmul_core(exec, view_of<const T, 3, S>(aa), view_of<const T, 3, S>(ba),
                          view_of<T, 3, S>(co));
    });
  });
}

}  // namespace

void bind_rowwise(py::module_& m) {
  using py::arg;
  m.def("l2_norm", &l2_norm, arg("V"), arg("out"), arg("backend"), arg("stream"));
  m.def("matmul_core", &matmul_core, arg("A"), arg("B"), arg("C"), arg("backend"), arg("stream"));
}

}  // namespace unison::python
