#pragma once
/// \file unison/field_types.hpp
/// The jagged field's public type (unison/field.hpp): the noise behind jagged_field. Included by
/// that header and by its kernels (unison/detail/field/).

#include <cstdint>

#include <Kokkos_Core.hpp>

#include <unison/core.hpp>

namespace unison {

/// \defgroup field The jagged field
/// \{

/// The share of cells jagged_field sets to exactly 0 unless told (its seed: default_seed).
inline constexpr double jagged_default_zero_fraction = 0.7;

/// The noise behind jagged_field, value (i, j) for a seed: value noise in fixed point, 8 octaves
/// with lattice spacings 4, 8, ..., 512 cells, each a smoothstep-interpolated lattice of 16-bit
/// hashed values, weighted about 3.2x per octave (amplitude ~ wavelength^1.7, like the tutorial's
/// radius^-1.7 spectrum). Integer arithmetic only: every backend produces the same values, bit for
/// bit. Values are in [0, max_value].
struct JaggedNoise {
  std::uint64_t seed;                ///< the noise's seed
  static constexpr int octaves = 8;  ///< the number of octaves
  /// \param o  an octave, 0 to octaves - 1.
  /// \return its weight in the sum.
  KOKKOS_FUNCTION static constexpr std::int64_t weight(int o) {
    switch (o) {
      case 0:
        return 1;
      case 1:
        return 3;
      case 2:
        return 10;
      case 3:
        return 32;
      case 4:
        return 100;
      case 5:
        return 320;
      case 6:
        return 1000;
      default:
        return 3200;
    }
  }
  static constexpr std::int64_t total = 4666;               ///< the sum of the weights
  static constexpr std::int64_t max_value = total * 65535;  ///< the largest value

  /// \param x, y  a lattice point of the octave.
  /// \param o     the octave.
  /// \return the point's hashed value, 0 to 65535.
  KOKKOS_FUNCTION std::int64_t lattice(std::uint64_t x, std::uint64_t y, int o) const {
    std::uint64_t h =
        seed ^ (x * 0x9E3779B97F4A7C15ULL) ^ (y * 0xC2B2AE3D27D4EB4FULL) ^ (std::uint64_t(o) << 56);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return std::int64_t(h >> 48);  // 0 .. 65535
  }
  /// \param t  a fraction in 16-bit fixed point, in [0, 65536).
  /// \return its smoothstep, 3t² - 2t³, in the same fixed point.
  KOKKOS_FUNCTION static std::int64_t smooth(std::int64_t t) {
    return (t * t >> 16) * (3 * 65536 - 2 * t) >> 16;
  }
  /// \param a, b  the ends.
  /// \param s     the fraction from a to b, in 16-bit fixed point.
  /// \return a + (b - a) s.
  KOKKOS_FUNCTION static std::int64_t lerp(std::int64_t a, std::int64_t b, std::int64_t s) {
    return a + ((b - a) * s >> 16);
  }
  /// \param i, j  a cell's indices.
  /// \return the noise's value there, 0 to max_value.
  KOKKOS_FUNCTION std::int64_t operator()(std::int64_t i, std::int64_t j) const {
    std::int64_t v = 0;
    for (int o = 0; o < octaves; ++o) {
      const int shift = o + 2;
      const std::uint64_t x = std::uint64_t(i) >> shift, y = std::uint64_t(j) >> shift;
      const std::int64_t sx = smooth((i & ((1 << shift) - 1)) << (16 - shift));
      const std::int64_t sy = smooth((j & ((1 << shift) - 1)) << (16 - shift));
      const std::int64_t top = lerp(lattice(x, y, o), lattice(x + 1, y, o), sx);
      const std::int64_t bottom = lerp(lattice(x, y + 1, o), lattice(x + 1, y + 1, o), sx);
      v += weight(o) * lerp(top, bottom, sy);
    }
    return v;
  }
};

/// \}

}  // namespace unison
