#pragma once
/// \file unison/convolve_types.hpp
/// The convolution's public types (unison/convolve.hpp): its modes, its kernels and the
/// length of a result. Included by that header and by its kernels (unison/detail/convolve/).

#include <cstdint>

namespace unison {

/// \defgroup convolve Convolution
/// \{

/// The output of np.convolve(x, k, mode) for x of length n and k of length m (1 <= m <= n):
///  - full:  length n + m - 1, y[i] = sum_j x[i - j] * k[j] over the j that index both arrays;
///  - same:  length n, the middle of full, starting at (m - 1) / 2;
///  - valid: length n - m + 1, where k lies wholly inside x: y[i] = full[i + m - 1].
enum class ConvolveMode { full, same, valid };

/// Which kernel computes a convolution. `automatic` picks by the number of taps and the backend
/// (ConvolveTuning in unison/backends/tuning.hpp); the others force one. Both add the terms of
/// each output in the same order, each with one fused multiply-add, so they give bitwise the
/// same result (on every backend, where the backends' FMA instructions round alike: IEEE).
enum class ConvolveAlgorithm { automatic, direct, tiled };

/// Length of np.convolve(x, k, mode)'s result.
///
/// \param n     len(x).
/// \param m     len(k), 1 <= m <= n.
/// \param mode  the convolution's mode.
/// \return n + m - 1 (full), n (same) or n - m + 1 (valid).
constexpr std::int64_t convolve_extent(std::int64_t n, std::int64_t m, ConvolveMode mode) {
  return mode == ConvolveMode::full ? n + m - 1 : mode == ConvolveMode::same ? n : n - m + 1;
}

/// \}

}  // namespace unison
