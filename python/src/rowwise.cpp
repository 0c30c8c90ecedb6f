// The row-wise family (l2_norm, matmul_core), the histogram and the random numbers
// (monte_carlo_pi).
#include "bindings.hpp"

#include <unison/histogram.hpp>
#include <unison/random.hpp>
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

void histogram(py::object x, double xmin, double xmax, py::object counts, const string& backend,
               py::object stream) {
  Call call("unison.histogram", call_options(backend, stream));
  const ArrayRef& c = call.array(counts, "counts", Role::output);
  call.require_rank(c, 1);
  const ArrayRef& xa = call.array(x, "x", Role::input);
  call.require_rank(xa, 1);
  auto with_counts = [&](auto t) {
    using T = decltype(t);
    on_float(call.fn(), xa, [&](auto z) {
      using X = decltype(z);
      call.run([&](const auto& exec) {
        using S = space_of<std::decay_t<decltype(exec)>>;
        unison::histogram(exec, view_of<const X, 1, S>(xa), xmin, xmax, view_of<T, 1, S>(c));
      });
    });
  };
  switch (c.dtype) {
    case Dtype::int64:
      return with_counts(std::int64_t{});
    case Dtype::int32:
      return with_counts(std::int32_t{});
    default:
      refuse_type(call.fn(), c.describe() + ": expected int64 or int32 counts");
  }
}

// The edges histogram places values against: e_k = fma(k, w, xmin) in double, e_bins = xmax.
py::list histogram_edges(double xmin, double xmax, std::int64_t bins) {
  py::list edges;
  const double w = (xmax - xmin) / static_cast<double>(bins);
  for (std::int64_t k = 0; k < bins; ++k) edges.append(std::fma(static_cast<double>(k), w, xmin));
  edges.append(xmax);
  return edges;
}

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

void bind_rowwise(py::module_& m) {
  using py::arg;
  m.def("l2_norm", &l2_norm, arg("V"), arg("out"), arg("backend"), arg("stream"));
  m.def("matmul_core", &matmul_core, arg("A"), arg("B"), arg("C"), arg("backend"), arg("stream"));
  m.def("histogram", &histogram, arg("x"), arg("xmin"), arg("xmax"), arg("counts"), arg("backend"),
        arg("stream"));
  m.def("_histogram_edges", &histogram_edges, arg("xmin"), arg("xmax"), arg("bins"));
  m.def("monte_carlo_pi", &monte_carlo_pi, arg("samples"), arg("seed"), arg("backend"),
        arg("stream"));
}

}  // namespace unison::python
