#pragma once
/// \file unison/histogram.hpp
/// Counting with atomics (docs/workloads.md section 6): histogram, with per-team histograms in
/// scratch memory merged once.
///
/// Common contract: see unison/core.hpp. Counts are integers: exact and deterministic.
/// Kernels: "unison::histogram::zero", "unison::histogram::bins".

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison {}  // namespace unison

#include <unison/detail/histogram/dispatch.hpp>

namespace unison {

/// counts(k) = the number of elements of x in bin k, for nbins = counts.extent(0) equal bins
/// over [xmin, xmax): bin k holds e_k <= v < e_{k+1} with e_k = xmin + k w, w = (xmax - xmin) /
/// nbins, computed in double as fma(k, w, xmin) (one rounding; e_nbins = xmax), and every value
/// placed exactly against those edges, as NumPy's histogram places values against its edges. Values
/// below xmin, at or above xmax, infinite or NaN are not counted. x: a rank-1 View of float or
/// double, any layout; counts: a rank-1 View of a 32- or 64-bit integer type, overwritten. Both
/// accessible from `exec`. Exact and deterministic. On a GPU each team of threads counts into
/// private histograms in shared memory (one per lane of a warp, so lanes never contend) and adds
/// them to counts once; on a CPU each thread counts its own block of x privately; when the bins do
/// not fit in a team's scratch memory (HistogramTuning::max_scratch_bytes), every value is added to
/// counts by a global atomic. Asynchronous on `exec`. Throws unison::invalid_argument when counts
/// is empty, xmin or xmax is not finite, xmin >= xmax, x has more elements than counts' type can
/// count, or counts overlaps x. Kernels: "unison::histogram::zero", "unison::histogram::bins".
template <class Exec, class XV, class CV>
void histogram(const Exec& exec, const XV& x, double xmin, double xmax, const CV& counts) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::histogram: the first argument must be a Kokkos execution space");
  static_assert(Kokkos::is_view_v<XV> && XV::rank() == 1 &&
                    std::is_floating_point_v<typename XV::non_const_value_type>,
                "unison::histogram: x must be a rank-1 View of float or double");
  static_assert(
      Kokkos::is_view_v<CV> && CV::rank() == 1 && !std::is_const_v<typename CV::value_type> &&
          std::is_integral_v<typename CV::value_type> && sizeof(typename CV::value_type) >= 4,
      "unison::histogram: counts must be a rank-1 View of a non-const integer type of 32 "
      "or 64 bits");
  static_assert(detail::accessible_v<Exec, XV> && detail::accessible_v<Exec, CV>,
                "unison::histogram: x and counts must be accessible from the execution space");
  using Count = typename CV::non_const_value_type;
  constexpr const char* fn = "unison::histogram";
  const std::int64_t nbins = counts.extent(0), n = x.extent(0);
  detail::require(nbins > 0, fn, "counts is empty: at least one bin is needed");
  detail::require(std::isfinite(xmin) && std::isfinite(xmax), fn, "xmin and xmax must be finite (",
                  xmin, ", ", xmax, ")");
  detail::require(xmin < xmax, fn, "xmin (", xmin, ") must be below xmax (", xmax, ")");
  detail::require(std::uint64_t(n) <= std::uint64_t(std::numeric_limits<Count>::max()), fn,
                  "x has ", n, " elements, more than counts' type can count (",
                  std::numeric_limits<Count>::max(), ")");
  detail::check_disjoint(fn, "counts", counts, "x", x);
  const double width = (xmax - xmin) / double(nbins);
  const detail::Bins bins{xmin, xmax, width, 1 / width, nbins};
  detail::require(width > 0 && std::isfinite(width) && std::isfinite(1 / width), fn,
                  "the bin width (xmax - xmin) / ", nbins, " is not a positive finite number");
  detail::histogram_launch(fn, exec, x, counts, bins);
}

/// histogram on counts' default execution space instance.
template <class XV, class CV>
void histogram(const XV& x, double xmin, double xmax, const CV& counts) {
  histogram(typename CV::execution_space(), x, xmin, xmax, counts);
}

}  // namespace unison
