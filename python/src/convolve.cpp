// The convolution (unison/convolve.hpp): convolve, convolve_extent.
#include "bindings.hpp"
#include "choices.hpp"

#include <unison/convolve.hpp>

namespace unison::python {
namespace {

// (In NumPy's order of its integer modes, 0, 1 and 2.)
constexpr Choices<ConvolveMode, 3> convolve_modes{
    {{"valid", ConvolveMode::valid}, {"same", ConvolveMode::same}, {"full", ConvolveMode::full}}};
constexpr Choices<ConvolveAlgorithm, 3> convolve_algorithms{
    {{"automatic", ConvolveAlgorithm::automatic},
     {"direct", ConvolveAlgorithm::direct},
     {"tiled", ConvolveAlgorithm::tiled}}};

using std::string;

void convolve(py::object x, py::object k, py::object y, const string& mode, const string& algorithm,
              const string& backend, py::object stream) {
  Call call("unison.convolve", call_options(backend, stream));
  const ArrayRef& ya = call.array(y, "out", Role::output);
  call.require_rank(ya, 1);
  const ArrayRef& xa = call.array(x, "x", Role::input, ya, 1);
  const ArrayRef& ka = call.array(k, "k", Role::input, ya, 1);
  const ConvolveMode m = choose(call.fn(), "mode", convolve_modes, mode);
  const ConvolveAlgorithm a = choose(call.fn(), "algorithm", convolve_algorithms, algorithm);
  on_float(call.fn(), ya, [&](auto t) {
    using T = decltype(t);
    call.run([&](const auto& exec) {
      using S = space_of<std::decay_t<decltype(exec)>>;
      unison::convolve(exec, view_of<const T, 1, S>(xa), view_of<const T, 1, S>(ka),
                       view_of<T, 1, S>(ya), m, a);
    });
  });
}

}  // namespace

void bind_convolve(py::module_& m) {
  using py::arg;
  m.def("convolve", &convolve, arg("x"), arg("k"), arg("y"), arg("mode"), arg("algorithm"),
        arg("backend"), arg("stream"));
  m.def("convolve_extent", [](std::int64_t n, std::int64_t k, const string& mode) {
    return unison::convolve_extent(n, k, choose("unison.convolve", "mode", convolve_modes, mode));
  });
  export_choices(m, "convolve_mode", convolve_modes);
  export_choices(m, "convolve_algorithm", convolve_algorithms);
}

}  // namespace unison::python
