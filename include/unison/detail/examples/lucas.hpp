#pragma once
// unison/detail/examples/lucas.hpp: part of unison/examples.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// lucas's kernel and its launch: each work item computes its own Lucas number.

#include <cstdint>

#include <Kokkos_Core.hpp>

namespace unison::detail::examples {

// lucas's launch (out checked, not empty): out(i) = L(i), each by its own work item.
template <class Exec, class OV>
void lucas(const Exec& exec, const OV& out) {
  using T = typename OV::non_const_value_type;
  const std::int64_t n = out.extent(0);
  Kokkos::parallel_for(
      "unison::examples::lucas",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        T a = 2, b = 1;  // L(k - 1), L(k), never beyond L(i)
        for (std::int64_t k = 1; k < i; ++k) {
          const T c = a + b;
          a = b;
          b = c;
        }
        out(i) = i == 0 ? T(2) : b;
      });
}

}  // namespace unison::detail::examples
