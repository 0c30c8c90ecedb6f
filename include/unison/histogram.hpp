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

#include <unison/detail/histogram/global.hpp>

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
  Kokkos::parallel_for(
      "unison::histogram::zero",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, nbins),
      KOKKOS_LAMBDA(std::int64_t k) { counts(k) = 0; });
  if (n == 0) return;

  using Tuning = backends::HistogramTuning<Exec>;
  using Teams = detail::HistogramTeams<Exec, XV, CV, true>;
  using T = typename XV::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  std::size_t room = Policy(exec, 1, Tuning::team_size).scratch_size_max(Tuning::scratch_level);
  if (room > Tuning::max_scratch_bytes) room = Tuning::max_scratch_bytes;
  // As many copies as fit (a power of two up to Tuning::copies; on CPUs that count in packs, one
  // per lane), else global atomics.
  int copies = Tuning::copies;
  if constexpr (Tuning::packs && backends::has_pack_v<T>) copies = Teams::host_copies;
  while (copies > 1 && Teams::scratch_bytes(copies, nbins) > room) copies /= 2;
  if (nbins < INT32_MAX && Teams::scratch_bytes(copies, nbins) <= room) {
    // Teams: enough to fill the device (GPU) or one per thread (CPU), each with a block of at
    // least min_per_team values (fewer teams for small x), and at most 2^32 - 1 values so that
    // a private count cannot overflow.
    std::int64_t league =
        std::int64_t(exec.concurrency()) * Tuning::teams_per_thread / Tuning::team_size;
    if (league < 1) league = 1;
    const std::int64_t by_size = (n + Tuning::min_per_team - 1) / Tuning::min_per_team;
    if (league > by_size) league = by_size;
    std::int64_t per_team = (n + league - 1) / league;
    if (per_team > std::int64_t(UINT32_MAX)) per_team = UINT32_MAX;
    league = (n + per_team - 1) / per_team;
    detail::require(league <= INT32_MAX, fn, "x has ", n,
                    " elements, more than one launch can cover");
    // The estimate in T when its error stays below a quarter bin: E_0 within a quarter bin of
    // xmin, and few enough bins for T's rounding of (v - E_0) / width (always for double).
    const double origin_error = (double(detail::threshold<T>(xmin)) - xmin) * bins.inverse_width;
    // The estimate's margin (count_packs): twice the bound on its error in bins, the offset
    // of E_0 from xmin, T's rounding of (v - E_0), of 1 / width and of the product (below
    // 4 eps (nbins + 1)), and the edges' own rounding in double.
    const double eps = std::numeric_limits<T>::epsilon();
    const double reach = std::fabs(xmin) > std::fabs(xmax) ? std::fabs(xmin) : std::fabs(xmax);
    const double margin =
        2 * (std::fabs(origin_error) + 4 * eps * double(nbins + 1) +
             4 * std::numeric_limits<double>::epsilon() * reach * bins.inverse_width);
    // (a margin of 1: no lane is ever clear, every pack takes the steps)
    const T margin_t = margin < 0.25 ? T(margin * (1 + 4 * eps)) : T(1);
    const bool estimate_in_t =
        std::is_same_v<T, double> ||
        (origin_error <= 0.25 && nbins <= (std::int64_t(1) << 20) && T(bins.inverse_width) > 0 &&
         T(bins.inverse_width) < Kokkos::Experimental::infinity_v<T>);
    Policy policy(exec, int(league), Tuning::team_size);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Teams::scratch_bytes(copies, nbins)));
    if (estimate_in_t)
      Kokkos::parallel_for(
          "unison::histogram::bins", policy,
          Teams{x, counts, bins, n, per_team, copies, T(bins.inverse_width), margin_t});
    else if constexpr (!std::is_same_v<T, double>)
      Kokkos::parallel_for(
          "unison::histogram::bins", policy,
          detail::HistogramTeams<Exec, XV, CV, false>{x, counts, bins, n, per_team, copies,
                                                      T(bins.inverse_width), margin_t});
  } else {
    Kokkos::parallel_for("unison::histogram::bins",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                         detail::HistogramGlobal<XV, CV>{x, counts, bins});
  }
}

/// histogram on counts' default execution space instance.
template <class XV, class CV>
void histogram(const XV& x, double xmin, double xmax, const CV& counts) {
  histogram(typename CV::execution_space(), x, xmin, xmax, counts);
}

}  // namespace unison
