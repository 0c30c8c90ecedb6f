#pragma once
// unison/detail/histogram/global.hpp: part of unison/histogram.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
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
