#pragma once
/// \file unison/histogram.hpp
/// Counting with atomics (docs/workloads.md section 6): histogram, with per-team histograms in
/// scratch memory merged once, and atomic_counter, the tutorials' race example done right.
///
/// Common contract: see unison/core.hpp. Counts are integers: exact and deterministic.
/// Kernels: "unison::histogram::zero", "unison::histogram::bins",
/// "unison::histogram::atomic_counter".

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/impl/checks.hpp>
#include <unison/impl/chunk.hpp>

namespace unison {
namespace impl {

// Bin edges e_k = fma(k, width, xmin) (double, one rounding: the same on every backend and
// with any contraction flags), e_nbins = xmax; value v goes to the bin k with
// e_k <= v < e_{k + 1}. The estimate (v - xmin) * (1 / width) can round across an edge: one
// step back or forward against the edges themselves puts v where the edges say.
struct Bins {
  double xmin, xmax, width, inverse_width;
  std::int64_t nbins;

  KOKKOS_FUNCTION double edge(std::int64_t k) const {
    return k >= nbins ? xmax : Kokkos::fma(double(k), width, xmin);
  }
  // The bin of v, or -1 when v is outside [xmin, xmax) or NaN.
  KOKKOS_FUNCTION std::int64_t operator()(double v) const {
    if (!(v >= xmin && v < xmax)) return -1;
    std::int64_t k = std::int64_t((v - xmin) * inverse_width);
    if (k >= nbins) k = nbins - 1;
    if (v < edge(k)) --k;
    else if (k + 1 < nbins && v >= edge(k + 1)) ++k;
    return k;
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

// Each team counts its share of x into private histograms in team scratch and adds them to
// counts with one global atomic per bin and team. A GPU team keeps `copies` histograms
// interleaved bin by bin (counter (k, c) at k * copies + c), thread t counting into copy
// t % copies: with 32 copies the lanes of a warp never touch the same counter or shared-memory
// bank, so their atomic increments are never replayed, whatever the data. A CPU team is one
// thread with plain increments: one copy, or up to host_copies when it counts in packs
// (count_packs).
// The bin of v: an estimate of (v - E_0) / width, then steps against the thresholds E_k (a table in
// scratch) until E_k <= v < E_{k+1}: exact for any estimate, one comparison each way when the
// estimate is right; the estimate in T from E_0 (EstimateInT: float when its rounding stays well
// below a bin) or in double from xmin. x is read in chunks of K values (16 bytes on a GPU) where it
// is contiguous, U chunks at a time per thread (more loads in flight).
template <class Exec, class X, class C, bool EstimateInT>
struct HistogramTeams {
  using T = typename X::non_const_value_type;
  using Count = typename C::non_const_value_type;
  using Memory = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Table = Kokkos::View<T*, typename Exec::scratch_memory_space, Memory>;
  using Scratch = Kokkos::View<std::uint32_t**, Kokkos::LayoutRight,
                               typename Exec::scratch_memory_space, Memory>;
  using Tuning = backends::HistogramTuning<Exec>;
  X x;
  C counts;
  Bins bins;
  std::int64_t n, per_team;
  int copies;
  T inverse_width_t;
  // CPU packs: how far (in bins) every lane's estimate must lie from its bin's edges for the
  // bin to be certain without the steps (histogram_margin).
  T margin;

  // CPUs that count in packs: the number of copies (a power of two, at most; fewer where the
  // bins do not fit): 32 where 16 lanes' counters are incremented at once
  // (backends::increment16: two sets of 16 lanes' histograms, taken by packs in turn), else 4.
#if UNISON_BACKENDS_HOST_VECTORS
  static constexpr int host_copies = backends::scatter_counts ? 32 : 4;
#else
  static constexpr int host_copies = 4;
#endif

  // The counters: nbins rows of `copies`, and a last row that packs count discarded lanes into.
  static std::size_t scratch_bytes(int copies, std::int64_t nbins) {
    return Table::shmem_size(nbins + 1) + Scratch::shmem_size(nbins + 1, copies);
  }

#if UNISON_BACKENDS_HOST_VECTORS
  // CPUs: count x[begin, end) (contiguous) in blocks of `block` values. First the block's bins,
  // a pack of T at a time: each lane's estimate from E_0 in T (lo, hi: E_0 and E_nbins), then,
  // a pack of doubles at a time, steps until every lane has e_k <= v < e_{k+1}, with the edges
  // computed as Bins computes them, fma(k, width, xmin) in double (v >= E_k exactly when
  // v >= e_k: the same bins as the scalar code's thresholds); values outside [xmin, xmax) or
  // NaN go to the discard row. Each value's counter (its bin's row, copy i % copies) goes into a
  // buffer of 32-bit offsets, and then the block's counters are incremented in order: the
  // copies keep a run of equal values from waiting on its own previous increment. With 16
  // copies or more, 16 consecutive values' counters are all different, and where the CPU's
  // scatter pays (backends::increment16) they are incremented 16 at a time.
  void count_packs(const T* x, std::int64_t n, T lo, T hi, const Scratch& hist) const {
    using V = backends::Pack<T>;
    using I = backends::IndexPack<V>;
    using D = backends::Pack<double>;
    using DI = backends::IndexPack<D>;
    constexpr int L = backends::lanes_v<V>, LD = backends::lanes_v<D>, parts = L / LD, block = 512;
    static_assert((parts == 1 || parts == 2) && block % L == 0 && block % 32 == 0);
    using DT = backends::VectorN<T, LD>;  // a D's worth of T
    const int nbins = int(bins.nbins);
    std::uint32_t* h = hist.data();
    const V first = backends::splat<V>(lo), end = backends::splat<V>(hi);
    const V inverse = backends::splat<V>(inverse_width_t);
    const V near = backends::splat<V>(margin), far = backends::splat<V>(T(1) - margin);
    const D xmin = backends::splat<D>(bins.xmin), width = backends::splat<D>(bins.width);
    const D last = backends::splat<D>(double(nbins - 1)), one = backends::splat<D>(1.0);
    const I last_bin = I{} + (nbins - 1), discard = I{} + nbins;
    const int shift = __builtin_ctz(unsigned(copies));  // copies is a power of two
    I lane = {};
    for (int l = 0; l < L; ++l) lane[l] = l;
    alignas(64) std::int32_t offset[block];
    // The counters of values j .. j + L - 1 of the block (the first `lanes` of them real).
    const auto bin = [&](const V& v, int lanes, int j) {
      const auto in = (v >= first) & (v < end);
      const I valid = __builtin_convertvector(in, I) & (lane < lanes);
      const V safe = in ? v : first;
      // (safe - E_0) / width is in [0, nbins] (to rounding): truncation is the floor.
      const V estimate = (safe - first) * inverse;
      I k = __builtin_convertvector(estimate, I);
      k = k > last_bin ? last_bin : k;
      // The estimate's fraction (exact: Sterbenz) at least `margin` from 0 and 1 in every
      // counted lane: each lane's bin is k (a clamped k leaves a fraction >= 1).
      const V fraction = estimate - __builtin_convertvector(k, V);
      const I clear = __builtin_convertvector((fraction >= near) & (fraction <= far), I);
      if (!backends::any((clear | (valid == 0)) == 0)) {
        backends::store(offset + j, ((valid ? k : discard) << shift) + ((lane + j) & (copies - 1)));
        return;
      }
      // -1 where a lane's value lies below its bin, +1 where above, else 0 (LD lanes).
      const auto steps = [&](const DT& vp, const DI& kp) {
        const D vd = __builtin_convertvector(vp, D), kd = __builtin_convertvector(kp, D);
        const auto down = vd < backends::fma(kd, width, xmin);
        const auto up = (kd < last) & (vd >= backends::fma(kd + one, width, xmin));
        return DI(__builtin_convertvector(down, DI) - __builtin_convertvector(up, DI));
      };
      for (;;) {
        I step;
        if constexpr (parts == 1) step = steps(safe, k);
        else
          step = backends::join(steps(backends::half<0>(safe), backends::half<0>(k)),
                                steps(backends::half<1>(safe), backends::half<1>(k)));
        if (!backends::any(step != 0)) break;
        k += step;
      }
      backends::store(offset + j, ((valid ? k : discard) << shift) + ((lane + j) & (copies - 1)));
    };
    for (std::int64_t i = 0; i < n; i += block) {
      const int count = n - i < block ? int(n - i) : block;
      int j = 0;
      for (; j + L <= count; j += L) bin(backends::load<V>(x + i + j), L, j);
      if (j < count) bin(backends::load_partial<V>(x + i + j, count - j), count - j, j);
      const int counted = (count + L - 1) / L * L;  // the last pack's unused lanes: the discard row
      int c = 0;
      if (backends::scatter_counts && copies >= 16)
        for (; c + 16 <= counted; c += 16) backends::increment16(h, offset + c);
      for (; c < counted; ++c) ++h[offset[c]];
    }
  }
#endif

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    constexpr int level = Tuning::scratch_level;  // (a local: no device reference to Tuning)
    const int nbins = int(bins.nbins);
    Table edge(team.team_scratch(level), nbins + 1);
    Scratch hist(team.team_scratch(level), nbins + 1, copies);
    const int threads = team.team_size(), t = team.team_rank();
    for (int k = t; k <= nbins; k += threads) edge(k) = threshold<T>(bins.edge(k));
    for (int b = t; b < (nbins + 1) * copies; b += threads) hist.data()[b] = 0;
    team.team_barrier();
    const std::int64_t begin = std::int64_t(team.league_rank()) * per_team;
    const std::int64_t end = begin + per_team < n ? begin + per_team : n;
    bool counted = false;
    if constexpr (Tuning::packs && backends::has_pack_v<T> && EstimateInT) {
#if UNISON_BACKENDS_HOST_VECTORS
      if (copies >= 4 && x.stride(0) == 1 && end > begin) {
        count_packs(&x(begin), end - begin, edge(0), edge(nbins), hist);
        counted = true;
      }
#endif
    }
    if (!counted) count(team, begin, end, edge, hist);
    team.team_barrier();
    for (int k = t; k < nbins; k += threads) {
      std::uint64_t sum = 0;
      // Copies read in rotated order, so that neighbouring threads' reads fall in different banks.
      for (int c = 0; c < copies; ++c) sum += hist(k, (c + k) % copies);
      if (sum != 0) Kokkos::atomic_add(&counts(k), Count(sum));
    }
  }

  // Counts x[begin, end) into the team's histograms, value by value.
  template <class Member>
  KOKKOS_FUNCTION void count(const Member& team, std::int64_t begin, std::int64_t end,
                             const Table& edge, const Scratch& hist) const {
    const int nbins = int(bins.nbins);
    const int threads = team.team_size(), t = team.team_rank();
    const int copy = t % copies;
    const T lo = edge(0), hi = edge(nbins);
    const auto add = [&](T v) {
      if (!(v >= lo && v < hi)) return;  // outside [xmin, xmax), or NaN
      int k;
      if constexpr (EstimateInT) k = int((v - lo) * inverse_width_t);
      else k = int((double(v) - bins.xmin) * bins.inverse_width);
      k = k < 0 ? 0 : (k >= nbins ? nbins - 1 : k);
      while (v < edge(k)) --k;       // stops at 0: v >= E_0
      while (v >= edge(k + 1)) ++k;  // stops at nbins - 1: v < E_nbins
      if constexpr (Tuning::team_size == 1) ++hist(k, copy);
      else Kokkos::atomic_add(&hist(k, copy), std::uint32_t(1));
    };
    constexpr int K = Tuning::vector_bytes > 0 ? Tuning::vector_bytes / int(sizeof(T)) : 1;
    std::int64_t first = begin;
    if (K > 1 && x.stride(0) == 1 && end > begin) {
      using V = Chunk<T, K>;
      const T* base = &x(begin);
      const auto addr = reinterpret_cast<std::uintptr_t>(base);
      std::int64_t head = std::int64_t((sizeof(V) - addr % sizeof(V)) % sizeof(V) / sizeof(T));
      if (addr % sizeof(T) != 0 || head > end - begin) head = end - begin;
      for (std::int64_t i = t; i < head; i += threads) add(base[i]);
      const std::int64_t chunks = (end - begin - head) / K;
      const V* body = reinterpret_cast<const V*>(base + head);
      constexpr int U = Tuning::chunks_per_load;
      std::int64_t c = t;
      for (; c + (U - 1) * std::int64_t(threads) < chunks; c += U * std::int64_t(threads)) {
        V v[U];
        for (int u = 0; u < U; ++u) v[u] = body[c + u * std::int64_t(threads)];
        for (int u = 0; u < U; ++u)
          for (int e = 0; e < K; ++e) add(v[u].v[e]);
      }
      for (; c < chunks; c += threads) {
        const V v = body[c];
        for (int e = 0; e < K; ++e) add(v.v[e]);
      }
      first = begin + head + chunks * K;
    }
    for (std::int64_t i = first + t; i < end; i += threads) add(x(i));
  }
};

// Without room in scratch for the bins: one global atomic per counted value.
template <class X, class C>
struct HistogramGlobal {
  using Count = typename C::non_const_value_type;
  X x;
  C counts;
  Bins bins;
  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t k = bins(double(x(i)));
    if (k >= 0) Kokkos::atomic_add(&counts(k), Count(1));
  }
};

}  // namespace impl

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
  static_assert(impl::accessible_v<Exec, XV> && impl::accessible_v<Exec, CV>,
                "unison::histogram: x and counts must be accessible from the execution space");
  using Count = typename CV::non_const_value_type;
  constexpr const char* fn = "unison::histogram";
  const std::int64_t nbins = counts.extent(0), n = x.extent(0);
  impl::require(nbins > 0, fn, "counts is empty: at least one bin is needed");
  impl::require(std::isfinite(xmin) && std::isfinite(xmax), fn, "xmin and xmax must be finite (",
                xmin, ", ", xmax, ")");
  impl::require(xmin < xmax, fn, "xmin (", xmin, ") must be below xmax (", xmax, ")");
  impl::require(std::uint64_t(n) <= std::uint64_t(std::numeric_limits<Count>::max()), fn, "x has ",
                n, " elements, more than counts' type can count (",
                std::numeric_limits<Count>::max(), ")");
  impl::check_disjoint(fn, "counts", counts, "x", x);
  const double width = (xmax - xmin) / double(nbins);
  const impl::Bins bins{xmin, xmax, width, 1 / width, nbins};
  impl::require(width > 0 && std::isfinite(width) && std::isfinite(1 / width), fn,
                "the bin width (xmax - xmin) / ", nbins, " is not a positive finite number");
  Kokkos::parallel_for(
      "unison::histogram::zero",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, nbins),
      KOKKOS_LAMBDA(std::int64_t k) { counts(k) = 0; });
  if (n == 0) return;

  using Tuning = backends::HistogramTuning<Exec>;
  using Teams = impl::HistogramTeams<Exec, XV, CV, true>;
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
    impl::require(league <= INT32_MAX, fn, "x has ", n,
                  " elements, more than one launch can cover");
    // The estimate in T when its error stays below a quarter bin: E_0 within a quarter bin of
    // xmin, and few enough bins for T's rounding of (v - E_0) / width (always for double).
    const double origin_error = (double(impl::threshold<T>(xmin)) - xmin) * bins.inverse_width;
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
          impl::HistogramTeams<Exec, XV, CV, false>{x, counts, bins, n, per_team, copies,
                                                    T(bins.inverse_width), margin_t});
  } else {
    Kokkos::parallel_for("unison::histogram::bins",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                         impl::HistogramGlobal<XV, CV>{x, counts, bins});
  }
}

/// histogram on counts' default execution space instance.
template <class XV, class CV>
void histogram(const XV& x, double xmin, double xmax, const CV& counts) {
  histogram(typename CV::execution_space(), x, xmin, xmax, counts);
}

/// n work items each add 1 to one counter with an atomic; returns the total, which is n (the
/// tutorials' race example: with a plain `+= 1` concurrent updates are lost). Returns on the
/// host: waits for the result on `exec`, and frees its counter (Kokkos then fences every
/// instance of the backend). Throws unison::invalid_argument when n < 0. Kernel:
/// "unison::histogram::atomic_counter".
template <class Exec>
std::int64_t atomic_counter(const Exec& exec, std::int64_t n) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::atomic_counter: the first argument must be a Kokkos execution space");
  impl::require(n >= 0, "unison::atomic_counter", "n is ", n, ", expected 0 or more");
  std::int64_t total = 0;
  Kokkos::View<std::int64_t, typename Exec::memory_space> counter(Kokkos::view_alloc(
      exec, Kokkos::WithoutInitializing, std::string("unison::histogram::counter")));
  const Kokkos::View<std::int64_t, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> zero(
      &total);
  Kokkos::deep_copy(exec, counter, zero);  // a copy, not a fill kernel
  Kokkos::parallel_for(
      "unison::histogram::atomic_counter",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t) { Kokkos::atomic_inc(&counter()); });
  Kokkos::deep_copy(exec, total, counter);
  exec.fence("unison::atomic_counter: the result");
  return total;
}

}  // namespace unison
