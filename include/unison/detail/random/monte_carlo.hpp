#pragma once
// unison/detail/random/monte_carlo.hpp: part of unison/random.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// monte_carlo_pi's work items: consecutive values of the sequence, counted inside the
// quarter circle.

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
        const std::uint64_t m = mix64(z);
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

}  // namespace unison::detail::random
