#pragma once
// unison/detail/rowwise/work_items.hpp: part of unison/rowwise.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// A CPU launch's share of rows (or batch entries) per work item.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail::rowwise {

// A CPU launch's share of `count` items per work item: about four work items per thread, a
// multiple of `quantum`.
inline std::int64_t items_of(std::int64_t count, std::int64_t threads, std::int64_t quantum) {
  std::int64_t per = (count + 4 * threads - 1) / (4 * threads);
  per = (per + quantum - 1) / quantum * quantum;
  return per > 0 ? per : quantum;
}

}  // namespace unison::detail::rowwise
