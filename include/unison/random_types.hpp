#pragma once
/// \file unison/random_types.hpp
/// The random family's public type (unison/random.hpp): the counter-based sequence. Included by
/// that header and by its kernels (unison/detail/random/).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace unison {

/// \defgroup random Random numbers
/// \{

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
  static constexpr std::uint64_t increment = 0x9e3779b97f4a7c15ull;  ///< the counter's step

  /// \param seed  the sequence's seed; its position starts at 0.
  explicit RandomSequence(std::uint64_t seed) : key_(mix(seed)) {}

  /// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
  /// generators", 2014; the constants of Vigna's splitmix64.c), the hash of the sequence's
  /// counter: a bijection of 64-bit words in which every input bit reaches every output bit
  /// (callable in kernels). Z: std::uint64_t, or a vector of them in GCC's vector extensions
  /// (the same function in each lane), as Unison's CPU kernels use it; no other arithmetic type.
  ///
  /// \param z  the word.
  /// \return its hash.
  template <class Z>
  KOKKOS_FORCEINLINE_FUNCTION static Z mix(Z z) {
    static_assert(!std::is_arithmetic_v<Z> || std::is_same_v<Z, std::uint64_t>,
                  "unison::RandomSequence::mix: the word must be a std::uint64_t");
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// Value i of the sequence with this key (callable in kernels).
  ///
  /// \param key  a sequence's key().
  /// \param i    the value's index.
  /// \return the value.
  KOKKOS_FORCEINLINE_FUNCTION static std::uint64_t value(std::uint64_t key, std::uint64_t i) {
    return mix(key + (i + 1) * increment);
  }
  /// Value i of this sequence.
  ///
  /// \param i  the value's index.
  /// \return the value.
  std::uint64_t operator[](std::uint64_t i) const { return value(key_, i); }
  /// \return the key: the mix of the seed.
  std::uint64_t key() const { return key_; }
  /// \return the index of the next value a function will draw.
  std::uint64_t position() const { return position_; }
  /// Moves the position n values on.
  ///
  /// \param n  the number of values.
  void advance(std::uint64_t n) { position_ += n; }

 private:
  std::uint64_t key_;
  std::uint64_t position_ = 0;
};

/// \}

}  // namespace unison
