#pragma once
// unison/detail/histogram/global.hpp: part of unison/histogram.hpp, which includes it after
// the family's public types (not a header to include on its own).
// Without room in scratch for the bins: one global atomic per value.

#include <unison/detail/histogram/teams.hpp>

namespace unison::detail::histogram {

// Without room in scratch for the bins: one global atomic per counted value.
template <class X, class C>
struct HistogramGlobal {
  using Count = typename C::non_const_value_type;
  X x;
  C counts;
  Bins bins;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t k = bins(double(x(i)));
    if (k >= 0) Kokkos::atomic_add(&counts(k), Count(1));
  }
};

}  // namespace unison::detail::histogram
