#pragma once
// unison/detail/random/counter_hash.hpp: part of unison/random.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The tests of a random word's point against the quarter circle, and the CPU form that hashes
// a pack of 64-bit lanes at once (the hash itself: RandomSequence::mix, unison/random_types.hpp).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>
#include <unison/backends/memory.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/random_types.hpp>

namespace unison::detail::random {

// Whether the point of a 32-bit random word lies inside the quarter circle. Its two 16-bit
// halves a and b give the point ((2a + 1) 2^-17, (2b + 1) 2^-17), the centre of a cell of a
// 2^16 x 2^16 grid on [0, 1)^2, inside when (2a + 1)^2 + (2b + 1)^2 < 2^34, that is when
// a (a + 1) + b (b + 1) < 2^32: tested exactly in 32-bit integers (both products fit; the sum
// stays below 2^32 exactly when b (b + 1) <= ~(a (a + 1))), the same on every backend. The
// grid's own error is tiny: 4 (centres inside) / 2^32 = pi (1 + 1.5e-8), against a
// statistical error of 1.2e-5 relative at 2e9 samples.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t inside_quarter_circle(std::uint32_t word) {
  const std::uint32_t a = word >> 16, b = word & 0xffffu;
  return b * (b + 1) <= ~(a * (a + 1)) ? 1u : 0u;
}

// 1 - inside_quarter_circle(word), as the carry of the 32-bit sum a (a + 1) + b (b + 1): the
// scalar loop (GPUs; the last values on CPUs) counts the points outside this way (an addition
// with its carry, no comparison).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t outside_quarter_circle(std::uint32_t word) {
  const std::uint32_t a = word >> 16, b = word & 0xffffu;
  return std::uint32_t((std::uint64_t(a * (a + 1)) + b * (b + 1)) >> 32);
}

// CPUs: the points of values [i, i + 2 L) of the sequence with key `key`, for as long as they
// are below `end`, counted in host vectors: L values per vector of 64-bit lanes, two vectors a
// step (their multiplications overlap), each 32-bit half of a lane one point, tested as
// inside_quarter_circle tests it. Returns the count and moves i to the first value not counted.
// (Written as vectors: the compiler's own vectorisation of the scalar loop chose half-width
// registers and ran slower: docs/tuning.md.) A template, instantiated only where the CPU's packs
// are used: the device compilation of a CUDA build refuses vector arithmetic in
// RandomSequence::mix, which is also device code.
template <class Z = backends::HostVector<std::uint64_t>::type>
std::uint32_t count_inside_packs(std::uint64_t key, std::uint64_t first, std::uint64_t& i,
                                 std::uint64_t end, std::uint64_t increment) {
  using W = backends::HostVector<std::uint32_t>::type;
  constexpr int L = int(sizeof(Z) / sizeof(std::uint64_t));
  if (end - i < std::uint64_t(2 * L)) return 0;
  Z za, zb;
  for (int l = 0; l < L; ++l) {
    za[l] = key + (first + i + 1 + std::uint64_t(l)) * increment;
    zb[l] = key + (first + i + 1 + std::uint64_t(L + l)) * increment;
  }
  const Z step = Z{} + std::uint64_t(2 * L) * increment;
  W count = {};
  const auto inside = [](const W& word) {  // -1 in each lane inside, else 0
    const W a = word >> 16, b = word & 0xffffu;
    return b * (b + 1) <= ~(a * (a + 1));
  };
  for (; end - i >= std::uint64_t(2 * L); i += 2 * L) {
    const Z a = RandomSequence::mix(za), b = RandomSequence::mix(zb);
    za += step;
    zb += step;
    count -= W(inside(W(a))) + W(inside(W(b)));
  }
  std::uint32_t in = 0;
  for (int l = 0; l < 2 * L; ++l) in += count[l];
  return in;
}

}  // namespace unison::detail::random
