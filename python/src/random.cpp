// The random numbers (unison/random.hpp): monte_carlo_pi.
#include "bindings.hpp"

#include <algorithm>
#include <cmath>
#include <unison/random.hpp>

namespace unison::python {
namespace {

using std::string;

double monte_carlo_pi(std::int64_t samples, std::uint64_t seed, const string& backend,
                      py::object stream) {
  Call call("unison.monte_carlo_pi", call_options(backend, stream));
  double pi = 0;
  // On a host backend, in chunks of an even number of samples with a check for Ctrl-C between
  // them: each chunk draws the next values of one sequence, so the points, and the estimate,
  // are those of one call.
  const std::int64_t chunk = std::max<std::int64_t>(2, interrupt_work() / 2 * 2);
  call.run([&](const auto& exec) {
    using S = space_of<std::decay_t<decltype(exec)>>;
    if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, S>::accessible || samples <= chunk) {
      pi = unison::monte_carlo_pi(exec, samples, seed);
      return;
    }
    RandomSequence sequence(seed);
    std::int64_t hits = 0;
    for (std::int64_t done = 0; done < samples;) {
      const std::int64_t now = std::min(chunk, samples - done);
      // (an estimate is 4 hits / now, rounded once: hits < 2^53 come back exactly)
      hits += std::llround(unison::monte_carlo_pi(exec, now, sequence) * double(now) / 4.0);
      done += now;
      if (done < samples) raise_pending_signal();
    }
    pi = 4.0 * double(hits) / double(samples);
  });
  return pi;
}

}  // namespace

void bind_random(py::module_& m) {
  using py::arg;
  m.def("monte_carlo_pi", &monte_carlo_pi, arg("samples"), arg("seed"), arg("backend"),
        arg("stream"));
}

}  // namespace unison::python
