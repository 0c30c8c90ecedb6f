#pragma once
/// \file unison/histogram.hpp
/// Counting with atomics (docs/workloads.md section 6): histogram, with per-team histograms in
/// scratch memory merged once.
///
/// Common contract: see unison/core.hpp. Counts are integers: exact and deterministic.
///
/// Kernels: "unison::histogram::zero", "unison::histogram::bins"; over given edges
/// "unison::histogram::check_edges", "unison::histogram::zero", "unison::histogram::edges";
/// weighted "unison::histogram::check_edges", "unison::histogram::weighted_chunks",
/// "unison::histogram::weighted_sums".

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/detail/histogram/dispatch.hpp>
#include <unison/detail/histogram/edges.hpp>

namespace unison {

/// \defgroup histogram Histogram
/// \{

/// counts(k) = the number of elements of x in bin k, for nbins = counts.extent(0) equal bins
/// over [xmin, xmax): bin k holds the values v with e_k <= v < e_{k+1}, where e_k = xmin + k w,
/// w = (xmax - xmin) / nbins, computed in double as fma(k, w, xmin) (one rounding; e_nbins =
/// xmax). Every value is placed exactly against those edges, as NumPy's histogram places values
/// against its edges, on every backend and kernel, float or double x (a float compared as the
/// double it is): the edges never decrease, so each value in [xmin, xmax) has exactly one such
/// bin. Where w is below the spacing of doubles near xmin or xmax (narrow ranges far from 0,
/// e.g. [1e15, 1e15 + 1) in 200000 bins), edges coincide in runs, and the bins between equal
/// edges stay empty: a value goes to the last bin whose edge is at or below it. Values below
/// xmin, at or above xmax, -inf, +inf and NaN are not counted (they are dropped, not clamped
/// into the first or last bin). x: a rank-1 View of float or double, any layout; counts: a
/// rank-1 View of a 32- or 64-bit integer type, overwritten. Both accessible from `exec`. Exact
/// and deterministic. On a GPU each team of threads counts into private histograms in shared
/// memory (one per lane of a warp, so lanes never contend) and adds them to counts once; on a
/// CPU each thread counts its own block of x privately; when the bins do not fit in a team's
/// scratch memory (HistogramTuning::max_scratch_bytes), every value is added to counts by a
/// global atomic. Each value's bin is found from the estimate (v - xmin) / w, checked against
/// the edges and, where it is off (by a bin or, with coinciding edges, by many), searched for
/// among the edges in at most about 2 log2(nbins) comparisons. Asynchronous on `exec`.
/// \throws unison::invalid_argument when counts is empty, xmin or xmax is not finite, xmin >= xmax,
/// xmax - xmin overflows double (e.g. [-1e308, 1e308)), the range is too narrow for its bins
/// (w below 1 / DBL_MAX, about 5.6e-309, e.g. [0, 1e-310): 1 / w would overflow; subnormal w
/// above that are valid), x has more elements than counts' type can count, or counts overlaps x.
///
/// Kernels: "unison::histogram::zero", "unison::histogram::bins".
///
/// \param exec  the execution space instance the kernels run on.
/// \param x       the values: a rank-1 View of float or double, any layout.
/// \param xmin    the lower edge of the first bin, finite.
/// \param xmax    the upper edge of the last bin, finite, above xmin.
/// \param counts  the counts: a rank-1 View of a 32- or 64-bit integer type, one element a
///                bin, overwritten.
template <class Exec, class XV, class CV>
void histogram(const Exec& exec, const XV& x, double xmin, double xmax, const CV& counts) {
  const detail::Region region("unison::histogram");
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
  detail::require(std::isfinite(xmax - xmin), fn, "the range [", xmin, ", ", xmax,
                  ") is too wide: xmax - xmin overflows double");
  const double width = (xmax - xmin) / double(nbins);
  detail::require(std::isfinite(1 / width), fn, "the range [", xmin, ", ", xmax,
                  ") is too narrow for ", nbins, " bins: the bin width (xmax - xmin) / ", nbins,
                  " = ", width, " must be at least 1 / DBL_MAX (",
                  1 / std::numeric_limits<double>::max(), ") for its inverse to be finite");
  const detail::histogram::Bins bins{xmin, xmax, width, 1 / width, nbins};
  detail::histogram::histogram_launch(fn, exec, x, counts, bins);
}

/// histogram on counts' default execution space instance.
///
/// \param x, xmin, xmax, counts  as histogram(exec, x, xmin, xmax, counts).
/// \throws unison::invalid_argument as that form.
template <class XV, class CV>
void histogram(const XV& x, double xmin, double xmax, const CV& counts) {
  histogram(typename CV::execution_space(), x, xmin, xmax, counts);
}

/// counts(k) = the number of elements of x in bin k between given edges, as NumPy's histogram
/// with `bins` an array of edges: bin k holds the values v with edges(k) <= v < edges(k + 1), the
/// last bin closed (edges(nbins - 1) <= v <= edges(nbins)), for nbins = counts.extent(0) bins and
/// nbins + 1 edges, non-decreasing. Values outside [edges(0), edges(nbins)] and NaN are not
/// counted; a value equal to several edges is counted in the bin after the last of them, so that
/// bins of zero width stay empty. Edges may be infinite. Every value is compared as a double with
/// the edges as doubles (float edges converted exactly; integers beyond 2^53 rounded to a double
/// first, as NumPy compares them). x: a rank-1 View of numbers (floating-point or integer), any
/// layout; edges: a rank-1 View of float or double, any layout; counts: a
/// rank-1 View of a 32- or 64-bit integer type, overwritten. All accessible from `exec`. Exact
/// and deterministic. Each value's bin is found by bisection among the edges (at most
/// ceil(log2(nbins)) comparisons); where the edges and the bins fit in a team's scratch memory
/// (HistogramTuning::max_scratch_bytes), each team of threads stages the edges there and counts
/// into private histograms (one per lane of a GPU warp) that it adds to counts once, else every
/// value is added to counts by a global atomic. The edges are first checked on `exec` (a
/// reduction, which the call waits for); the counting is asynchronous on `exec`.
/// \throws unison::invalid_argument when edges has fewer than 2 elements, counts' extent is not
/// one less than edges', an edge is NaN or below the edge before it (the first such is named), x
/// has more elements than counts' type can count, or counts overlaps x or edges.
///
/// Kernels: "unison::histogram::check_edges", "unison::histogram::zero",
/// "unison::histogram::edges".
///
/// \param exec    the execution space instance the kernels run on.
/// \param x       the values: a rank-1 View of numbers (floating-point or integer), any layout.
/// \param edges   the bins' edges: a rank-1 View of float or double, non-decreasing, not NaN.
/// \param counts  the counts: a rank-1 View of a 32- or 64-bit integer type, one element a bin
///                (edges.extent(0) - 1), overwritten.
template <class Exec, class XV, class EV, class CV,
          std::enable_if_t<Kokkos::is_execution_space_v<Exec> && Kokkos::is_view_v<EV>, int> = 0>
void histogram(const Exec& exec, const XV& x, const EV& edges, const CV& counts) {
  const detail::Region region("unison::histogram");
  static_assert(Kokkos::is_view_v<XV> && XV::rank() == 1 &&
                    std::is_arithmetic_v<typename XV::non_const_value_type> &&
                    !std::is_same_v<typename XV::non_const_value_type, bool>,
                "unison::histogram: x must be a rank-1 View of numbers (floating-point or "
                "integer)");
  static_assert(EV::rank() == 1 && std::is_floating_point_v<typename EV::non_const_value_type>,
                "unison::histogram: edges must be a rank-1 View of float or double");
  static_assert(
      Kokkos::is_view_v<CV> && CV::rank() == 1 && !std::is_const_v<typename CV::value_type> &&
          std::is_integral_v<typename CV::value_type> && sizeof(typename CV::value_type) >= 4,
      "unison::histogram: counts must be a rank-1 View of a non-const integer type of 32 "
      "or 64 bits");
  static_assert(detail::accessible_v<Exec, XV> && detail::accessible_v<Exec, EV> &&
                    detail::accessible_v<Exec, CV>,
                "unison::histogram: x, edges and counts must be accessible from the execution "
                "space");
  using Count = typename CV::non_const_value_type;
  constexpr const char* fn = "unison::histogram";
  const std::int64_t nedges = edges.extent(0), nbins = counts.extent(0), n = x.extent(0);
  detail::require(nedges >= 2, fn, "edges has ", nedges,
                  " elements: at least 2 are needed (one bin)");
  detail::require(nbins == nedges - 1, fn, "counts has ", nbins, " elements, expected ", nedges - 1,
                  " (one a bin: edges' ", nedges, " less one)");
  detail::require(std::uint64_t(n) <= std::uint64_t(std::numeric_limits<Count>::max()), fn,
                  "x has ", n, " elements, more than counts' type can count (",
                  std::numeric_limits<Count>::max(), ")");
  detail::check_disjoint(fn, "counts", counts, "x", x);
  detail::check_disjoint(fn, "counts", counts, "edges", edges);
  detail::histogram::check_edges(fn, exec, edges);
  detail::histogram::histogram_edges_launch(fn, exec, x, edges, counts);
}

/// sums(k) = the sum of the weights of the elements of x in bin k between given edges, as NumPy's
/// histogram with `bins` an array of edges and `weights`: the bins of histogram(exec, x, edges,
/// counts) (the last bin closed), each value adding its weight. Deterministic: the same bits on
/// every backend and for any number of threads. x is cut into chunks whose size depends on the
/// number of values and bins alone (at least 2^14 values); one thread adds a chunk's weights in
/// x's order, and each bin's sum adds the chunks' partial sums in chunk order, all in double
/// (then converted to sums' type); integer weights in 64-bit integers, exact (wrapping modulo
/// 2^64, as NumPy's int64), then converted to sums' type. x, edges: as that form; weights: a
/// rank-1 View of numbers with x's extent, any layout (NaN and infinite weights are summed as
/// they are); sums: a rank-1 View, floating-point for floating-point weights and integer for
/// integer ones, one element a bin, overwritten. The edges are first checked
/// on `exec` (a reduction, which the call waits for); the sums are asynchronous on `exec`.
/// Temporary memory: the partial sums, chunks x bins doubles or 64-bit integers (at most
/// 128 MiB, or one row of bins), from Unison's temporary memory of `exec`.
/// \throws unison::invalid_argument as histogram(exec, x, edges, counts) for the edges, when
/// weights' extent differs from x's, sums' extent is not one less than edges', sums overlaps
/// x, edges or weights, or the temporary memory cannot be had.
///
/// Kernels: "unison::histogram::check_edges", "unison::histogram::weighted_chunks",
/// "unison::histogram::weighted_sums".
///
/// \param exec     the execution space instance the kernels run on.
/// \param x        the values: a rank-1 View of numbers (floating-point or integer), any layout.
/// \param edges    the bins' edges: a rank-1 View of float or double, non-decreasing, not NaN.
/// \param weights  each value's weight: a rank-1 View of numbers (not bool), x's extent.
/// \param sums     the sums: a rank-1 View of numbers, floating-point for floating-point weights
///                 and integer for integer ones, one element a bin (edges.extent(0) - 1),
///                 overwritten.
template <class Exec, class XV, class EV, class WV, class SV,
          std::enable_if_t<Kokkos::is_execution_space_v<Exec> && Kokkos::is_view_v<EV> &&
                               Kokkos::is_view_v<WV>,
                           int> = 0>
void histogram(const Exec& exec, const XV& x, const EV& edges, const WV& weights, const SV& sums) {
  const detail::Region region("unison::histogram");
  static_assert(Kokkos::is_view_v<XV> && XV::rank() == 1 &&
                    std::is_arithmetic_v<typename XV::non_const_value_type> &&
                    !std::is_same_v<typename XV::non_const_value_type, bool>,
                "unison::histogram: x must be a rank-1 View of numbers (floating-point or "
                "integer)");
  static_assert(EV::rank() == 1 && std::is_floating_point_v<typename EV::non_const_value_type>,
                "unison::histogram: edges must be a rank-1 View of float or double");
  using W = typename WV::non_const_value_type;
  static_assert(WV::rank() == 1 && std::is_arithmetic_v<W> && !std::is_same_v<W, bool>,
                "unison::histogram: weights must be a rank-1 View of numbers (floating-point or "
                "integer)");
  static_assert(Kokkos::is_view_v<SV> && SV::rank() == 1 &&
                    !std::is_const_v<typename SV::value_type> &&
                    std::is_arithmetic_v<typename SV::value_type> &&
                    !std::is_same_v<typename SV::value_type, bool> &&
                    std::is_integral_v<typename SV::value_type> == std::is_integral_v<W>,
                "unison::histogram: sums must be a rank-1 View of non-const numbers, "
                "floating-point for floating-point weights and integer for integer weights");
  static_assert(detail::accessible_v<Exec, XV> && detail::accessible_v<Exec, EV> &&
                    detail::accessible_v<Exec, WV> && detail::accessible_v<Exec, SV>,
                "unison::histogram: x, edges, weights and sums must be accessible from the "
                "execution space");
  constexpr const char* fn = "unison::histogram";
  const std::int64_t nedges = edges.extent(0), nbins = sums.extent(0);
  detail::require(nedges >= 2, fn, "edges has ", nedges,
                  " elements: at least 2 are needed (one bin)");
  detail::require(nbins == nedges - 1, fn, "sums has ", nbins, " elements, expected ", nedges - 1,
                  " (one a bin: edges' ", nedges, " less one)");
  detail::check_extents(fn, "weights", weights, x, "x");
  detail::check_disjoint(fn, "sums", sums, "x", x);
  detail::check_disjoint(fn, "sums", sums, "edges", edges);
  detail::check_disjoint(fn, "sums", sums, "weights", weights);
  detail::histogram::check_edges(fn, exec, edges);
  detail::histogram::histogram_weighted_launch(fn, exec, x, edges, weights, sums);
}

/// The weighted histogram over given edges on sums' default execution space instance.
///
/// \param x, edges, weights, sums  as histogram(exec, x, edges, weights, sums).
/// \throws unison::invalid_argument as that form.
template <class XV, class EV, class WV, class SV,
          std::enable_if_t<Kokkos::is_view_v<XV> && Kokkos::is_view_v<EV> && Kokkos::is_view_v<WV>,
                           int> = 0>
void histogram(const XV& x, const EV& edges, const WV& weights, const SV& sums) {
  histogram(typename SV::execution_space(), x, edges, weights, sums);
}

/// histogram over given edges on counts' default execution space instance.
///
/// \param x, edges, counts  as histogram(exec, x, edges, counts).
/// \throws unison::invalid_argument as that form.
template <class XV, class EV, class CV, std::enable_if_t<Kokkos::is_view_v<EV>, int> = 0>
void histogram(const XV& x, const EV& edges, const CV& counts) {
  histogram(typename CV::execution_space(), x, edges, counts);
}

/// \}

}  // namespace unison
