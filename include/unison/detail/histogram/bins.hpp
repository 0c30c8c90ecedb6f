#pragma once
// unison/detail/histogram/bins.hpp: part of unison/histogram.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The bins: their edges as the value type compares them, and the bin of a value.

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/chunk.hpp>

namespace unison::detail::histogram {

// The exact-bin rule, the one every kernel places values by: the k in [0, nbins) with
// edge(k) <= v < edge(k + 1), for v with edge(0) <= v < edge(nbins) (the caller's range check,
// against the same edges), from any estimate of k (even NaN or infinite). edge(k) for k in
// [0, nbins] is e_k (Bins::edge) or its threshold in v's type (threshold: the same comparisons).
// Inline: the estimate's bin (clamped to [0, nbins)), two comparisons, the answer for a right
// estimate. Else (search_bin) outwards from it by steps of 1, 2, 4, ..., then bisection: three
// comparisons more where the estimate is a bin off, at most about 2 log2(nbins) + 4 however far
// off (bins narrower than the spacing of doubles near xmin have runs of equal edges, empty bins
// between them, and estimates thousands of bins off). Exact by construction: lo and hi keep
// edge(lo) <= v < edge(hi) from the first comparison on (edge(0) <= v < edge(nbins) at the
// ends), and lo is returned when hi = lo + 1. The edges never decrease (fma rounds
// monotonically, and e_{nbins-1} <= xmax for fewer than 2^50 bins), so that k is the only one.
template <class V, class Index, class Edge>
KOKKOS_FUNCTION Index search_bin(V v, Index k, Index nbins, const Edge& edge);

template <class V, class E, class Index, class Edge>
KOKKOS_FORCEINLINE_FUNCTION Index exact_bin(V v, E estimate, Index nbins, const Edge& edge) {
  // (NaN and below 0: 0; E(nbins - 1) rounded up bounds the truncation by nbins - 1 still)
  const E e = estimate > E(0) ? estimate : E(0);
  const Index k = e < E(nbins - 1) ? Index(e) : nbins - 1;
  if (!(v < edge(k)) && v < edge(k + 1)) return k;
  return search_bin(v, k, nbins, edge);
}

// exact_bin where k is not v's bin: outwards from k, then bisection.
template <class V, class Index, class Edge>
KOKKOS_FUNCTION Index search_bin(V v, Index k, Index nbins, const Edge& edge) {
  Index lo, hi;  // edge(lo) <= v < edge(hi)
  // (steps of 1, 2, 4, ...: a step doubles after a move by it, 2 step - 1 in all, less than nbins)
  if (v < edge(k)) {
    hi = k;  // k > 0: edge(0) <= v
    for (Index step = 1;; step *= 2) {
      if (hi <= step) {
        lo = 0;
        break;
      }
      lo = hi - step;
      if (!(v < edge(lo))) break;
      hi = lo;
    }
  } else {
    lo = k + 1;  // v >= edge(k + 1), so k + 1 < nbins: v < edge(nbins)
    for (Index step = 1;; step *= 2) {
      if (nbins - lo <= step) {
        hi = nbins;
        break;
      }
      hi = lo + step;
      if (v < edge(hi)) break;
      lo = hi;
    }
  }
  while (hi - lo > 1) {
    const Index mid = lo + (hi - lo) / 2;
    if (v < edge(mid)) hi = mid;
    else lo = mid;
  }
  return lo;
}

// Bin edges e_k = fma(k, width, xmin) (double, one rounding: the same on every backend and
// with any contraction flags), e_nbins = xmax; value v goes to the bin k with
// e_k <= v < e_{k + 1} (exact_bin, from the estimate (v - xmin) * (1 / width)).
struct Bins {
  double xmin, xmax, width, inverse_width;
  std::int64_t nbins;

  KOKKOS_FUNCTION double edge(std::int64_t k) const {
    return k >= nbins ? xmax : Kokkos::fma(double(k), width, xmin);
  }
  // The bin of v from an estimate of it (any), for v in [xmin, xmax).
  KOKKOS_FUNCTION std::int64_t locate(double v, double estimate) const {
    return exact_bin(v, estimate, nbins, [this](std::int64_t k) { return edge(k); });
  }
  // The bin of v, or -1 when v is outside [xmin, xmax) or NaN.
  KOKKOS_FUNCTION std::int64_t operator()(double v) const {
    if (!(v >= xmin && v < xmax)) return -1;
    return locate(v, (v - xmin) * inverse_width);
  }
};

// The bins' thresholds for values of type T: E_k = the smallest T >= e_k (for double, e_k
// itself), so that for every v of type T, v >= e_k exactly when v >= E_k: values are placed
// against the edges with comparisons in T alone. Computed the same way on every backend.
template <class T>
KOKKOS_FUNCTION T threshold(double e) {
  if constexpr (std::is_same_v<T, double>) {
    return e;
  } else {
    T t = T(e);  // round to nearest
    if (double(t) < e) t = Kokkos::nextafter(t, Kokkos::Experimental::infinity_v<T>);
    return t;
  }
}

// The teams a counting kernel launches over n values on exec: enough to fill the device (GPU) or
// one per thread (CPU), each with a block of at least min_per_team values (fewer teams for small
// x), and at most 2^32 - 1 values so that a private count cannot overflow.
struct TeamBlocks {
  std::int64_t league, per_team;
};

template <class Exec>
TeamBlocks team_blocks(const char* fn, const Exec& exec, std::int64_t n) {
  using Tuning = backends::HistogramTuning<Exec>;
  std::int64_t league =
      std::int64_t(exec.concurrency()) * Tuning::teams_per_thread / Tuning::team_size;
  if (league < 1) league = 1;
  const std::int64_t by_size = (n + Tuning::min_per_team - 1) / Tuning::min_per_team;
  if (league > by_size) league = by_size;
  std::int64_t per_team = (n + league - 1) / league;
  if (per_team > std::int64_t(UINT32_MAX)) per_team = UINT32_MAX;
  league = (n + per_team - 1) / per_team;
  require(league <= INT32_MAX, fn, "x has ", n, " elements, more than one launch can cover");
  return {league, per_team};
}

}  // namespace unison::detail::histogram
