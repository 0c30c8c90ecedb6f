#pragma once
// unison/detail/examples/atomic_counter.hpp: part of unison/examples.hpp (a header of its kernels,
// which compiles on its own: it includes what it uses).
// atomic_counter's kernel and its launch: n atomic increments of one counter in temporary memory.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/detail/temporary.hpp>

namespace unison::detail::examples {

// atomic_counter's launch (n checked): the counter zeroed by a copy, n work items each adding 1
// with an atomic, the total copied back and waited for on exec.
template <class Exec>
std::int64_t atomic_counter(const Exec& exec, std::int64_t n) {
  std::int64_t total = 0;
  const auto temporary = detail::temporary<Kokkos::View<std::int64_t, typename Exec::memory_space>>(
      "unison::examples::atomic_counter", "the counter", exec, "unison::examples::counter");
  const auto counter = temporary.view;
  const Kokkos::View<std::int64_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> zero(
      &total);
  Kokkos::deep_copy(exec, counter, zero);  // a copy, not a fill kernel
  Kokkos::parallel_for(
      "unison::examples::atomic_counter",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t) { Kokkos::atomic_inc(&counter()); });
  Kokkos::deep_copy(exec, total, counter);
  exec.fence("unison::examples::atomic_counter: the result");
  return total;
}

}  // namespace unison::detail::examples
