#pragma once
// unison/detail/histogram/bins.hpp: part of unison/histogram.hpp, which includes it after
// the family's public types (not a header to include on its own).
// The bins: their edges as the value type compares them, and the bin of a value.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <Kokkos_Core.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail {

// Bin edges e_k = fma(k, width, xmin) (double, one rounding: the same on every backend and
// with any contraction flags), e_nbins = xmax; value v goes to the bin k with
// e_k <= v < e_{k + 1}. The estimate (v - xmin) * (1 / width) can round across an edge: one
// step back or forward against the edges themselves puts v where the edges say.
struct Bins {
  double xmin, xmax, width, inverse_width;
  std::int64_t nbins;

  KOKKOS_FUNCTION double edge(std::int64_t k) const {
    return k >= nbins ? xmax : Kokkos::fma(double(k), width, xmin);
  }
  // The bin of v, or -1 when v is outside [xmin, xmax) or NaN.
  KOKKOS_FUNCTION std::int64_t operator()(double v) const {
    if (!(v >= xmin && v < xmax)) return -1;
    std::int64_t k = std::int64_t((v - xmin) * inverse_width);
    if (k >= nbins) k = nbins - 1;
    if (v < edge(k)) --k;
    else if (k + 1 < nbins && v >= edge(k + 1)) ++k;
    return k;
  }
};

// The bins' thresholds for values of type T: E_k = the smallest T >= e_k (for double, e_k
// itself), so that for every v of type T, v >= e_k exactly when v >= E_k: values are placed
// against the edges with comparisons in T alone. Computed the same way on every backend.
template <class T>
KOKKOS_FUNCTION T threshold(double e) {
  if constexpr (std::is_same_v<T, double>) {
    return e;
  } else {
    T t = T(e);  // round to nearest
    if (double(t) < e) t = Kokkos::nextafter(t, Kokkos::Experimental::infinity_v<T>);
    return t;
  }
}

}  // namespace unison::detail
