#pragma once
/// \file unison/random.hpp
/// Random numbers (docs/workloads.md section 6): RandomSequence (a counter-based generator: any
/// work item computes any of its values, with no state to share or seed) and monte_carlo_pi.
///
/// Common contract: see unison/core.hpp. monte_carlo_pi returns a host value, so it waits for
/// its result on `exec` (and only there). Kernel: "unison::random::monte_carlo_pi".

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/memory.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/impl/checks.hpp>

namespace unison {
namespace impl {

// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014; the constants of Vigna's splitmix64.c): a bijection of 64-bit words in
// which every input bit reaches every output bit. Z: std::uint64_t, or a host vector of them
// (the same function in each lane).
template <class Z>
KOKKOS_FORCEINLINE_FUNCTION Z mix64(Z z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

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

#if UNISON_BACKENDS_HOST_VECTORS
// CPUs: the points of values [i, i + 2 L) of the sequence with key `key`, for as long as they
// are below `end`, counted in host vectors: L values per vector of 64-bit lanes, two vectors a
// step (their multiplications overlap), each 32-bit half of a lane one point, tested as
// inside_quarter_circle tests it. Returns the count and moves i to the first value not counted.
// (Written as vectors: the compiler's own vectorisation of the scalar loop chose half-width
// registers and ran slower: docs/tuning.md.)
inline std::uint32_t count_inside_packs(std::uint64_t key, std::uint64_t first, std::uint64_t& i,
                                        std::uint64_t end, std::uint64_t increment) {
  using Z = backends::HostVector<std::uint64_t>::type;
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
    const Z a = mix64(za), b = mix64(zb);
    za += step;
    zb += step;
    count -= W(inside(W(a))) + W(inside(W(b)));
  }
  std::uint32_t in = 0;
  for (int l = 0; l < 2 * L; ++l) in += count[l];
  return in;
}
#endif

}  // namespace impl

/// A counter-based random sequence: value i of the sequence of seed s is SplitMix64's output
/// for the counter key + (i + 1) * 0x9e3779b97f4a7c15 (the golden-ratio increment), with key =
/// the mix of s. Each value is a function of the seed and its index alone, so a kernel's work
/// items compute the values they need directly, in any order and on any backend, and the
/// result of a function that draws from a sequence depends on the seed and its own arguments,
/// never on the thread count or the backend. (SplitMix64 passes BigCrush; sequences of
/// different seeds are the same cycle of 2^64 values from unrelated starting points.) A
/// function that takes a RandomSequence draws the values from position() on and advances it,
/// so a second call draws new numbers. Building one costs nothing: no memory, no seeding.
class RandomSequence {
 public:
  static constexpr std::uint64_t increment = 0x9e3779b97f4a7c15ull;

  explicit RandomSequence(std::uint64_t seed) : key_(impl::mix64(seed)) {}

  /// Value i of the sequence with this key (callable in kernels).
  KOKKOS_FORCEINLINE_FUNCTION static std::uint64_t value(std::uint64_t key, std::uint64_t i) {
    return impl::mix64(key + (i + 1) * increment);
  }
  /// Value i of this sequence.
  std::uint64_t operator[](std::uint64_t i) const { return value(key_, i); }
  std::uint64_t key() const { return key_; }
  /// The index of the next value a function will draw.
  std::uint64_t position() const { return position_; }
  /// Moves the position n values on.
  void advance(std::uint64_t n) { position_ += n; }

 private:
  std::uint64_t key_;
  std::uint64_t position_ = 0;
};

namespace impl {

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
      if constexpr (Packs) {
#if UNISON_BACKENDS_HOST_VECTORS
        in = count_inside_packs(key, first, i, r1, RandomSequence::increment);
#endif
      }
      for (; i < r1; ++i) {
        const std::uint64_t z = RandomSequence::value(key, first + i);
        in +=
            inside_quarter_circle(std::uint32_t(z >> 32)) + inside_quarter_circle(std::uint32_t(z));
      }
      inside += in;
    }
    if (odd && w == 0)
      inside +=
          inside_quarter_circle(std::uint32_t(RandomSequence::value(key, first + values) >> 32));
    hits += inside;
  }
};

}  // namespace impl

/// An estimate of pi: 4 times the fraction of `samples` points of the unit square that fall
/// inside the quarter circle x^2 + y^2 < 1, drawn from `sequence` from its position on, two
/// points per value (its high and its low 32 bits: each the centre of a cell of a 2^16 x 2^16
/// grid, tested exactly in integers; the grid itself is within 1.5e-8 of pi, relative); the
/// sequence then stands (samples + 1) / 2 values further on. The estimate depends only on the
/// sequence's seed and position and on `samples`: the same on every run, every backend and
/// every thread count. Returns on the host: waits for the result on `exec`. Throws
/// unison::invalid_argument when samples < 1. Kernel: "unison::random::monte_carlo_pi".
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, RandomSequence& sequence) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::monte_carlo_pi: the first argument must be a Kokkos execution space");
  impl::require(samples >= 1, "unison::monte_carlo_pi", "samples is ", samples,
                ", expected at least 1");
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
      impl::MonteCarloPi<Tuning::packs>{sequence.key(), sequence.position(), values, per,
                                        samples % 2 != 0},
      hits);
  exec.fence("unison::monte_carlo_pi: the result");
  sequence.advance(values + std::uint64_t(samples % 2));
  return 4.0 * double(hits) / double(samples);
}

/// monte_carlo_pi from the start of RandomSequence(seed): the same seed gives the same estimate
/// on every backend and thread count.
template <class Exec>
double monte_carlo_pi(const Exec& exec, std::int64_t samples, std::uint64_t seed) {
  RandomSequence sequence(seed);
  return monte_carlo_pi(exec, samples, sequence);
}

}  // namespace unison
