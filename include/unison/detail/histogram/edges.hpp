#pragma once
// unison/detail/histogram/edges.hpp: part of unison/histogram.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// Histograms over given bin edges: the bin of a value by bisection among the edges, private
// histograms per team in scratch (the edges staged there too), else a global atomic per value.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <unison/backends/memory.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/detail/checks.hpp>
#include <unison/detail/histogram/bins.hpp>
#include <unison/detail/temporary.hpp>
#include <utility>

namespace unison::detail::histogram {

// The bin of v among nbins + 1 edges e_0 <= e_1 <= ... <= e_nbins (edge(k) = e_k), by NumPy's
// rule for given edges: the k with e_k <= v < e_{k+1}, and the last bin closed (e_{nbins-1} <= v
// <= e_nbins); -1 for v outside [e_0, e_nbins] or NaN. Of equal edges, v is counted after the
// last one, so that a bin of zero width stays empty. Bisection: ceil(log2(nbins)) comparisons
// after the two range checks.
template <class Edge>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t edges_bin(double v, std::int64_t nbins, const Edge& edge) {
  if (!(v >= edge(0) && v <= edge(nbins))) return -1;
  if (!(v < edge(nbins))) return nbins - 1;
  // e_lo <= v < e_(lo + len): halve len, moving lo up where e_(lo + half) <= v (a select, not a
  // branch: a CPU core does not mispredict it).
  std::int64_t lo = 0, len = nbins;
  while (len > 1) {
    const std::int64_t half = len / 2;
    lo = v < edge(lo + half) ? lo : lo + half;
    len -= half;
  }
  return lo;
}

// Each team stages the edges (as doubles) in team scratch, counts its block of x into `copies`
// private histograms there (copy t % copies for thread t, interleaved bin by bin as
// HistogramTeams keeps them, so that the lanes of a GPU warp never share a counter), and adds
// them to counts with one global atomic per bin and team. A CPU team is one thread with plain
// increments.
template <class Exec, class X, class E, class C>
struct HistogramEdgesTeams {
  using Count = typename C::non_const_value_type;
  using Memory = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Table = Kokkos::View<double*, typename Exec::scratch_memory_space, Memory>;
  using Scratch = Kokkos::View<std::uint32_t**, Kokkos::LayoutRight,
                               typename Exec::scratch_memory_space, Memory>;
  using Tuning = backends::HistogramTuning<Exec>;
  X x;
  E edges;
  C counts;
  std::int64_t n, nbins, per_team;
  int copies;

  static std::size_t scratch_bytes(int copies, std::int64_t nbins) {
    return Table::shmem_size(nbins + 1) + Scratch::shmem_size(nbins, copies);
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    constexpr int scratch_level = Tuning::scratch_level;  // (a local: no device reference)
    const int bins = int(nbins);
    Table edge(team.team_scratch(scratch_level), bins + 1);
    Scratch hist(team.team_scratch(scratch_level), bins, copies);
    const int threads = team.team_size(), t = team.team_rank();
    for (int k = t; k <= bins; k += threads) edge(k) = double(edges(k));
    for (int b = t; b < bins * copies; b += threads) hist.data()[b] = 0;
    team.team_barrier();
    const std::int64_t begin = std::int64_t(team.league_rank()) * per_team;
    const std::int64_t end = begin + per_team < n ? begin + per_team : n;
    const int copy = t % copies;
    const auto at = [&](std::int64_t k) { return edge(k); };
    for (std::int64_t i = begin + t; i < end; i += threads) {
      const std::int64_t k = edges_bin(double(x(i)), nbins, at);
      if (k < 0) continue;
      if constexpr (Tuning::team_size == 1) ++hist(k, copy);
      else backends::scratch_increment(&hist(k, copy));
    }
    team.team_barrier();
    for (int k = t; k < bins; k += threads) {
      std::uint64_t sum = 0;
      for (int c = 0; c < copies; ++c) sum += hist(k, (c + k) % copies);
      if (sum != 0) Kokkos::atomic_add(&counts(k), Count(sum));
    }
  }
};

// Without room in scratch for the edges and the bins: bisection among the edges in memory and
// one global atomic per counted value.
template <class X, class E, class C>
struct HistogramEdgesGlobal {
  using Count = typename C::non_const_value_type;
  X x;
  E edges;
  C counts;
  std::int64_t nbins;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t k =
        edges_bin(double(x(i)), nbins, [&](std::int64_t j) { return double(edges(j)); });
    if (k >= 0) Kokkos::atomic_add(&counts(k), Count(1));
  }
};

// Weighted histograms, deterministic: x is cut into chunks of `chunk` values that depend on n and
// nbins alone (weighted_chunk), never on the backend or its threads; each chunk's sums are added
// value by value in x's order by one thread (HistogramWeightedChunks), and each bin's sum adds
// the chunks' partial sums in chunk order (HistogramWeightedSums), in double: the same additions
// in the same order, so the same bits, on every backend and for any number of threads. Integer
// weights are added in 64-bit integers, wrapping modulo 2^64 (exact in any order).
// At least 2^14 values a chunk, more where the partial sums (chunks x nbins doubles) would pass
// 2^24 (128 MiB).
inline std::int64_t weighted_chunk(std::int64_t n, std::int64_t nbins) {
  std::int64_t chunk = std::int64_t(1) << 14;
  while (chunk < n && ((n + chunk - 1) / chunk) * nbins > (std::int64_t(1) << 24)) chunk *= 2;
  return chunk;
}

// What the weights W are added in: double, or std::int64_t for integer weights.
template <class W>
using WeightSum = std::conditional_t<std::is_integral_v<W>, std::int64_t, double>;

// a + b in the weights' sum: for integers, wrapping modulo 2^64 (no signed overflow).
KOKKOS_INLINE_FUNCTION double add_weight(double a, double b) { return a + b; }
KOKKOS_INLINE_FUNCTION std::int64_t add_weight(std::int64_t a, std::int64_t b) {
  return std::int64_t(std::uint64_t(a) + std::uint64_t(b));
}

template <class X, class E, class W, class P>
struct HistogramWeightedChunks {
  X x;
  E edges;
  W weights;
  P partial;  // chunks x nbins
  std::int64_t n, nbins, chunk;
  using Sum = typename P::non_const_value_type;
  KOKKOS_FUNCTION void operator()(std::int64_t c) const {
    for (std::int64_t k = 0; k < nbins; ++k) partial(c, k) = 0;
    const std::int64_t begin = c * chunk, end = begin + chunk < n ? begin + chunk : n;
    const auto at = [&](std::int64_t j) { return double(edges(j)); };
    for (std::int64_t i = begin; i < end; ++i) {
      const std::int64_t k = edges_bin(double(x(i)), nbins, at);
      if (k >= 0) partial(c, k) = add_weight(partial(c, k), Sum(weights(i)));
    }
  }
};

template <class P, class S>
struct HistogramWeightedSums {
  P partial;
  S sums;
  std::int64_t chunks;
  KOKKOS_FUNCTION void operator()(std::int64_t k) const {
    typename P::non_const_value_type sum = 0;
    for (std::int64_t c = 0; c < chunks; ++c) sum = add_weight(sum, partial(c, k));
    sums(k) = typename S::non_const_value_type(sum);
  }
};

// The first k in [0, nedges) where the edges stop being a non-decreasing sequence of numbers
// (e_k NaN, or e_k > e_{k+1}), or nedges where they are one; a reduction on exec, waited for.
template <class Exec, class E>
std::int64_t first_bad_edge(const Exec& exec, const E& edges) {
  const std::int64_t nedges = edges.extent(0);
  std::int64_t first = nedges;
  Kokkos::parallel_reduce(
      "unison::histogram::check_edges",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, nedges),
      KOKKOS_LAMBDA(std::int64_t k, std::int64_t & m) {
        const double e = double(edges(k));
        const bool bad = e != e || (k + 1 < nedges && e > double(edges(k + 1)));
        if (bad && k < m) m = k;
      },
      Kokkos::Min<std::int64_t>(first));
  return first;
}

// Refuses edges that are not a non-decreasing sequence of numbers, naming the first bad one.
template <class Exec, class E>
void check_edges(const char* fn, const Exec& exec, const E& edges) {
  const std::int64_t nedges = edges.extent(0);
  const std::int64_t bad = first_bad_edge(exec, edges);
  if (bad >= nedges) return;
  const auto e = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      Kokkos::subview(edges, std::make_pair(bad, bad + 2 < nedges ? bad + 2 : nedges)));
  require(!(double(e(0)) != double(e(0))), fn, "edges(", bad, ") is NaN");
  fail(fn, "edges must not decrease: edges(", bad, ") = ", double(e(0)), " is above edges(",
       bad + 1, ") = ", double(e(1)));
}

// Enqueues counts = 0, then the counts of x in the bins between `edges` on exec (checked by the
// caller); fn names the public function in errors.
template <class Exec, class XV, class EV, class CV>
void histogram_edges_launch(const char* fn, const Exec& exec, const XV& x, const EV& edges,
                            const CV& counts) {
  const std::int64_t nbins = counts.extent(0), n = x.extent(0);
  Kokkos::parallel_for(
      "unison::histogram::zero",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, nbins),
      KOKKOS_LAMBDA(std::int64_t k) { counts(k) = 0; });
  if (n == 0) return;
  using Tuning = backends::HistogramTuning<Exec>;
  using Teams = HistogramEdgesTeams<Exec, XV, EV, CV>;
  using Policy = Kokkos::TeamPolicy<Exec>;
  std::size_t room = Policy(exec, 1, Tuning::team_size).scratch_size_max(Tuning::scratch_level);
  if (room > Tuning::max_scratch_bytes) room = Tuning::max_scratch_bytes;
  int copies = Tuning::copies;
  while (copies > 1 && Teams::scratch_bytes(copies, nbins) > room) copies /= 2;
  if (nbins < INT32_MAX && Teams::scratch_bytes(copies, nbins) <= room) {
    const auto [league, per_team] = team_blocks(fn, exec, n);  // as histogram_launch's
    Policy policy(exec, int(league), Tuning::team_size);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Teams::scratch_bytes(copies, nbins)));
    Kokkos::parallel_for("unison::histogram::edges", policy,
                         Teams{x, edges, counts, n, nbins, per_team, copies});
  } else {
    Kokkos::parallel_for("unison::histogram::edges",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                         HistogramEdgesGlobal<XV, EV, CV>{x, edges, counts, nbins});
  }
}

// Enqueues sums = the weights of x in the bins between `edges` on exec (checked by the caller),
// deterministically (weighted_chunk); fn names the public function in errors.
template <class Exec, class XV, class EV, class WV, class SV>
void histogram_weighted_launch(const char* fn, const Exec& exec, const XV& x, const EV& edges,
                               const WV& weights, const SV& sums) {
  const std::int64_t nbins = sums.extent(0), n = x.extent(0);
  const std::int64_t chunk = weighted_chunk(n, nbins), chunks = n > 0 ? (n + chunk - 1) / chunk : 0;
  using Sum = WeightSum<typename WV::non_const_value_type>;
  using Partial = Kokkos::View<Sum**, Kokkos::LayoutRight, typename Exec::memory_space>;
  const auto partial = temporary<Partial>(fn, "the partial sums", exec,
                                          "unison::histogram::partial_sums", chunks, nbins);
  using Range = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("unison::histogram::weighted_chunks", Range(exec, 0, chunks),
                       HistogramWeightedChunks<XV, EV, WV, Partial>{x, edges, weights, partial.view,
                                                                    n, nbins, chunk});
  Kokkos::parallel_for("unison::histogram::weighted_sums", Range(exec, 0, nbins),
                       HistogramWeightedSums<Partial, SV>{partial.view, sums, chunks});
}

}  // namespace unison::detail::histogram
