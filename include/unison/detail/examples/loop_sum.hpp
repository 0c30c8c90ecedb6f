#pragma once
// unison/detail/examples/loop_sum.hpp: part of unison/examples.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// loop_sum's kernel and its launch.

#include <unison/detail/examples/grayscale.hpp>

namespace unison::detail::examples {

// Row i of loop_sum: the exact integer sum of i j over j < n.
struct LoopSum {
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& acc) const {
    std::int64_t row = 0;
    for (std::int64_t j = 0; j < n; ++j) row += i * j;
    acc += row;
  }
};

// loop_sum's launch (n checked, at least 1): the exact integer sum, waited for on exec.
template <class Exec>
std::int64_t loop_sum(const Exec& exec, std::int64_t n) {
  std::int64_t sum = 0;
  Kokkos::parallel_reduce("unison::examples::loop_sum",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          LoopSum{n}, sum);
  exec.fence("unison::examples::loop_sum: the result");
  return sum;
}

}  // namespace unison::detail::examples
