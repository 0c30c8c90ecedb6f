#pragma once
// unison/detail/matmul/fill.hpp: part of unison/matmul.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// out filled with one value.

#include <Kokkos_Core.hpp>
#include <cstdint>

namespace unison::detail::matmul {

template <class O>
struct FillOutput {
  using T = typename O::non_const_value_type;
  O out;
  T value;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const { out(i) = value; }
};

template <class Exec, class O>
void fill_output(const Exec& exec, const O& out, typename O::non_const_value_type value) {
  Kokkos::parallel_for("unison::matmul_reduce::fill",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, std::int64_t(out.extent(0))),
                       FillOutput<O>{out, value});
}

}  // namespace unison::detail::matmul
