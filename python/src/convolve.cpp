// The convolution (unison/convolve.hpp): convolve, convolve_extent.
#include "bindings.hpp"

#include <unison/convolve.hpp>

namespace unison::python {
namespace {

using std::string;

void convolve(py::object x, py::object k, py::object y, const string& mode, const string& algorithm,
              const string& backend, py::object stream) {
  Call call("unison.convolve", call_options(backend, stream));
  const ArrayRef& ya = call.array(y, "out", Role::output);
  call.require_rank(ya, 1);
  const ArrayRef& xa = call.array(x, "x", Role::input, ya, 1);
  const ArrayRef& ka = call.array(k, "k", Role::input, ya, 1);
  ConvolveMode m{};
  if (mode == "full") m = ConvolveMode::full;
  else if (mode == "same") m = ConvolveMode::same;
  else if (mode == "valid") m = ConvolveMode::valid;
  else refuse(call.fn(), "mode is '" + mode + "', expected 'full', 'same' or 'valid'");
  ConvolveAlgorithm a{};
  if (algorithm == "automatic") a = ConvolveAlgorithm::automatic;
  else if (algorithm == "direct") a = ConvolveAlgorithm::direct;
  else if (algorithm == "tiled") a = ConvolveAlgorithm::tiled;
  else
    refuse(call.fn(),
           "algorithm is '" + algorithm + "', expected 'automatic', 'direct' or 'tiled'");
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
    if (mode != "full" && mode != "same" && mode != "valid")
      refuse("unison.convolve", "mode is '" + mode + "', expected 'full', 'same' or 'valid'");
    return unison::convolve_extent(n, k,
                                   mode == "full"   ? ConvolveMode::full
                                   : mode == "same" ? ConvolveMode::same
                                                    : ConvolveMode::valid);
  });
}

}  // namespace unison::python
