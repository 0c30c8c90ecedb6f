#pragma once
// What the tests (tests/test_helpers.hpp) and the benchmarks (benchmarks/cases/common.hpp) share,
// not installed: the tolerance of a result against its float64 host reference
// (docs/workloads.md) and the relative error that it bounds.

#include <cmath>
#include <limits>
#include <type_traits>

namespace unison::reference {

// The tolerance for results of type T against a float64 reference: integers exactly, float32
// 1e-5, float64 1e-12.
template <class T>
constexpr double tolerance() {
  if constexpr (std::is_integral_v<T>) return 0;
  else if constexpr (sizeof(T) == 4) return 1e-5;
  else return 1e-12;
}

// Adds one element's terms to the sums of squares of got - ref (diff2) and of ref (ref2). A NaN
// in got where ref has none makes the error infinite; where both are NaN (or both infinite)
// the element adds nothing to diff2.
inline void add_error_terms(double got, double ref, double& diff2, double& ref2) {
  const double d = got - ref;
  if (std::isnan(got) && !std::isnan(ref)) diff2 = std::numeric_limits<double>::infinity();
  else if (!std::isnan(d)) diff2 += d * d;
  if (!std::isnan(ref)) ref2 += ref * ref;
}

// ||got - ref|| / ||ref|| from those sums (||got - ref|| where ref is all zeros).
inline double relative_error(double diff2, double ref2) {
  return ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
}

}  // namespace unison::reference
