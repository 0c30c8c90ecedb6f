// The histogram (unison/histogram.hpp): histogram, and the edges its NumPy form returns.
#include "bindings.hpp"

#include <cmath>
#include <unison/histogram.hpp>

namespace unison::python {
namespace {

using std::string;

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

// The value type of x for the forms over given edges: floating-point or 32/64-bit integer.
template <class F>
void on_values(const std::string& fn, const ArrayRef& a, F&& f) {
  if (a.dtype == Dtype::int32) return f(std::int32_t{});
  if (a.dtype == Dtype::int64) return f(std::int64_t{});
  if (a.dtype == Dtype::float32 || a.dtype == Dtype::float64) return on_float(fn, a, f);
  refuse_type(fn, a.describe() + ": expected float32, float64, int32 or int64");
}

// histogram over given edges (float64, the wrapper's conversion of NumPy's bins array).
void histogram_over_edges(py::object x, py::object edges, py::object counts, const string& backend,
                          py::object stream) {
  Call call("unison.histogram", call_options(backend, stream));
  const ArrayRef& c = call.array(counts, "counts", Role::output);
  call.require_rank(c, 1);
  const ArrayRef& xa = call.array(x, "x", Role::input);
  call.require_rank(xa, 1);
  const ArrayRef& ea = call.array(edges, "bins", Role::input);
  call.require_rank(ea, 1);
  if (ea.dtype != Dtype::float64)
    refuse_type(call.fn(), ea.describe() + ": expected float64 edges");
  auto with_counts = [&](auto t) {
    using T = decltype(t);
    on_values(call.fn(), xa, [&](auto z) {
      using X = decltype(z);
      call.run([&](const auto& exec) {
        using S = space_of<std::decay_t<decltype(exec)>>;
        unison::histogram(exec, view_of<const X, 1, S>(xa), view_of<const double, 1, S>(ea),
                          view_of<T, 1, S>(c));
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

// The weighted histogram over given edges (float64): sums of the weights' dtype (floating-point,
// or int32 and int64, summed exactly in 64 bits).
void histogram_weighted(py::object x, py::object edges, py::object weights, py::object sums,
                        const string& backend, py::object stream) {
  Call call("unison.histogram", call_options(backend, stream));
  const ArrayRef& s = call.array(sums, "sums", Role::output);
  call.require_rank(s, 1);
  const ArrayRef& xa = call.array(x, "x", Role::input);
  call.require_rank(xa, 1);
  const ArrayRef& ea = call.array(edges, "bins", Role::input);
  call.require_rank(ea, 1);
  if (ea.dtype != Dtype::float64)
    refuse_type(call.fn(), ea.describe() + ": expected float64 edges");
  const ArrayRef& wa = call.array(weights, "weights", Role::input, s);
  call.require_rank(wa, 1);
  on_values(call.fn(), xa, [&](auto z) {
    using X = decltype(z);
    on_values(call.fn(), s, [&](auto t) {
      using T = decltype(t);
      call.run([&](const auto& exec) {
        using S = space_of<std::decay_t<decltype(exec)>>;
        unison::histogram(exec, view_of<const X, 1, S>(xa), view_of<const double, 1, S>(ea),
                          view_of<const T, 1, S>(wa), view_of<T, 1, S>(s));
      });
    });
  });
}

// The edges histogram places values against: e_k = fma(k, w, xmin) in double, e_bins = xmax.
py::list histogram_edges(double xmin, double xmax, std::int64_t bins) {
  py::list edges;
  const double w = (xmax - xmin) / static_cast<double>(bins);
  for (std::int64_t k = 0; k < bins; ++k) edges.append(std::fma(static_cast<double>(k), w, xmin));
  edges.append(xmax);
  return edges;
}

}  // namespace

void bind_histogram(py::module_& m) {
  using py::arg;
  m.def("histogram", &histogram, arg("x"), arg("xmin"), arg("xmax"), arg("counts"), arg("backend"),
        arg("stream"));
  m.def("_histogram_edges", &histogram_edges, arg("xmin"), arg("xmax"), arg("bins"));
  m.def("histogram_weighted", &histogram_weighted, arg("x"), arg("edges"), arg("weights"),
        arg("sums"), arg("backend"), arg("stream"));
  m.def("histogram_over_edges", &histogram_over_edges, arg("x"), arg("edges"), arg("counts"),
        arg("backend"), arg("stream"));
}

}  // namespace unison::python
