// The jagged field (unison/field.hpp): jagged_field, on rank-2 float32 or float64 arrays of any
// layout.
#include "bindings.hpp"

#include <unison/field.hpp>

namespace unison::python {
namespace {

using std::string;

void jagged_field(py::object f, std::uint64_t seed, double zero_fraction, const string& backend,
                  py::object stream) {
  Call call("unison.jagged_field", call_options(backend, stream));
  const ArrayRef& fa = call.array(f, "f", Role::output);
  call.require_rank(fa, 2);
  on_float(call.fn(), fa, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::jagged_field(exec, view_of<T, 2, S>(fa), seed, zero_fraction);
    });
  });
}

}  // namespace

void bind_field(py::module_& m) {
  using py::arg;
  m.def("jagged_field", &jagged_field, arg("f"), arg("seed"), arg("zero_fraction"), arg("backend"),
        arg("stream"));
}

}  // namespace unison::python
