#pragma once
// unison/detail/random/monte_carlo.hpp: part of unison/random.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// monte_carlo_pi's work items (consecutive values of the sequence, counted inside the
// quarter circle) and their launch.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/backends/tuning.hpp>
#include <unison/detail/random/counter_hash.hpp>
#include <unison/random_types.hpp>

namespace unison::detail::random {

// Work item w counts the points of values [first + w per, ...) of the sequence (two points per
// value: its high half, then its low half), `values` full values in all; the last, odd point
// (the high half of value first + values), where `odd`, by item 0. In rounds of at most 2^30
// values, so that a round's count fits 32 bits.
template <bool Packs>
struct MonteCarloPi {
  std::uint64_t key, first, values, per;
  bool odd;

  KOKKOS_FUNCTION void operator()(std::int64_t w, std::uint64_t& hits) const {
    const std::uint64_t v0 = std::uint64_t(w) * per;
    const std::uint64_t v1 = v0 + per < values ? v0 + per : values;
    std::uint64_t inside = 0;
    for (std::uint64_t r0 = v0; r0 < v1; r0 += std::uint64_t(1) << 30) {
      const std::uint64_t r1 =
          v1 - r0 < (std::uint64_t(1) << 30) ? v1 : r0 + (std::uint64_t(1) << 30);
      std::uint32_t in = 0;
      std::uint64_t i = r0;
      if constexpr (Packs && backends::host_vectors) {
        in = count_inside_packs(key, first, i, r1, RandomSequence::increment);
      }
      // The values left, one at a time: the counter advanced by the increment, the points
      // outside counted (at most 2^31 in a round).
      std::uint32_t outside = 0;
      const std::uint32_t left = std::uint32_t(r1 - i);
      std::uint64_t z = key + (first + i + 1) * RandomSequence::increment;
      for (std::uint32_t n = 0; n < left; ++n, z += RandomSequence::increment) {
        const std::uint64_t m = RandomSequence::mix(z);
        outside += outside_quarter_circle(std::uint32_t(m >> 32)) +
                   outside_quarter_circle(std::uint32_t(m));
      }
      inside += std::uint64_t(in) + 2 * std::uint64_t(left) - outside;
    }
    if (odd && w == 0)
      inside +=
          inside_quarter_circle(std::uint32_t(RandomSequence::value(key, first + values) >> 32));
    hits += inside;
  }
};

// monte_carlo_pi's launch (samples checked, at least 1): the values split into work items of at
// least Tuning::min_per_item each, Tuning::items_per_thread items per thread of exec; the count
// of points inside waited for on exec, the sequence advanced past the values drawn.
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, RandomSequence& sequence) {
  using Tuning = backends::RandomTuning<Exec>;
  const std::uint64_t values = std::uint64_t(samples) / 2;
  const std::uint64_t items_wanted = std::uint64_t(exec.concurrency()) * Tuning::items_per_thread;
  std::uint64_t per = (values + items_wanted - 1) / items_wanted;
  if (per < std::uint64_t(Tuning::min_per_item)) per = Tuning::min_per_item;
  const std::uint64_t items = values == 0 ? 1 : (values + per - 1) / per;
  std::uint64_t hits = 0;
  Kokkos::parallel_reduce(
      "unison::random::monte_carlo_pi",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(items)),
      MonteCarloPi<Tuning::packs>{sequence.key(), sequence.position(), values, per,
                                  samples % 2 != 0},
      hits);
  exec.fence("unison::monte_carlo_pi: the result");
  sequence.advance(values + std::uint64_t(samples % 2));
  return 4.0 * double(hits) / double(samples);
}

}  // namespace unison::detail::random
