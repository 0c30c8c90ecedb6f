#pragma once
// unison/detail/histogram/teams.hpp: part of unison/histogram.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// Private histograms per team in scratch, counted value by value or in packs (CPUs), added
// to the counts with one atomic per bin and team.

#include <unison/backends/host/histogram.hpp>
#include <unison/detail/histogram/bins.hpp>

namespace unison::detail::histogram {

// Each team counts its share of x into private histograms in team scratch and adds them to
// counts with one global atomic per bin and team. A GPU team keeps `copies` histograms
// interleaved bin by bin (counter (k, c) at k * copies + c), thread t counting into copy
// t % copies: with 32 copies the lanes of a warp never touch the same counter or shared-memory
// bank, so their atomic increments are never replayed, whatever the data. A CPU team is one
// thread with plain increments: one copy, or up to host_copies when it counts in packs
// (count_packs).
// The bin of v: exact_bin (bins.hpp) against the thresholds E_k (a table in scratch) from an
// estimate of (v - E_0) / width: exact for any estimate, two comparisons when the estimate is
// right; the estimate in T from E_0 (EstimateInT: float when its rounding stays well below a bin)
// or in double from xmin. x is read in chunks of K values (16 bytes on a GPU) where it
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
  // How far (in bins) an estimate in T must lie from its bin's edges for the bin to be certain
  // without the thresholds (computed by histogram_launch; 1: never): every lane of a CPU pack,
  // every value of a GPU thread's chunks (count).
  T margin;

  // CPUs that count in packs: the number of copies (a power of two, at most; fewer where the
  // bins do not fit): 64 where 16 lanes' counters are incremented at once
  // (backends::increment16: four sets of 16 lanes' histograms, taken by packs in turn, so that
  // a pack's gather seldom waits on the previous pack's scatter), else 4.
  static constexpr int host_copies = backends::scatter_counts ? 64 : 4;

  // The counters: nbins rows of `copies`, and a last row that packs count discarded lanes into.
  static std::size_t scratch_bytes(int copies, std::int64_t nbins) {
    return Table::shmem_size(nbins + 1) + Scratch::shmem_size(nbins + 1, copies);
  }

  // CPUs: count x[begin, end) (contiguous) in blocks of `block` values. First the block's bins,
  // a pack of T at a time: each lane's estimate from E_0 in T (lo, hi: E_0 and E_nbins), which
  // alone places a full pack whose every lane it makes certain (the common case: no range
  // check, no clamp); else the lanes outside [E_0, E_nbins) go to the discard row, and a pack
  // of doubles at a time checks each estimate's bin, e_k <= v < e_{k+1}, with the edges
  // computed as Bins computes them, fma(k, width, xmin) in double (v >= E_k exactly when
  // v >= e_k: the same bins as the scalar code's thresholds); a lane whose bin it is not (its
  // value within the estimate's error of an edge) takes exact_bin (Bins::locate) from it. Values
  // outside [xmin, xmax) or NaN go to the discard row. Each value's counter (its bin's row, copy i
  // % copies) goes into a buffer of 32-bit offsets, and then the block's counters are incremented
  // in order: the copies keep a run of equal values from waiting on its own previous increment.
  // With 16 copies or more, 16 consecutive values' counters are all different, and where the CPU's
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
    // The copies of a pack's lanes, (lane + j) & (copies - 1), for the packs j / L of a period.
    constexpr int periods = 64 / L > 1 ? 64 / L : 1;
    const int period = copies > L ? copies / L : 1;
    I copy_of[periods] = {};
    for (int p = 0; p < period; ++p) copy_of[p] = (lane + p * L) & (copies - 1);
    alignas(64) std::int32_t offset[block];
    // The counters of values j .. j + L - 1 of the block (the first `lanes` of them real).
    const auto bin = [&](const V& v, int lanes, int j) {
      if (lanes == L) {
        // Certain in every lane (the common case): the estimate's bin k in [0, nbins) and its
        // fraction at least `margin` from 0 and 1, so that E_k <= v < E_{k+1}: v in range (a
        // value below E_0 has a negative estimate, truncated to 0 with a fraction below 0 or to
        // k < 0; one at or above E_nbins an estimate at least nbins - margin; NaN and values
        // past 2^31 bins truncate to INT32_MIN).
        const V estimate = (v - first) * inverse;
        const I k = backends::truncate_to_index(estimate);
        const V fraction = estimate - backends::convert<V>(k);
        if (backends::all_within(fraction, margin, T(1) - margin, k, nbins)) {
          backends::store(offset + j, (k << shift) + copy_of[(j / L) & (period - 1)]);
          return;
        }
      }
      const auto in = (v >= first) & (v < end);
      const I valid = backends::convert<I>(in) & (lane < lanes);
      const V safe = in ? v : first;
      // (safe - E_0) / width is in [0, nbins] (to rounding; finite: E_nbins - E_0 is, see
      // histogram_launch): truncation is the floor.
      const V estimate = (safe - first) * inverse;
      I k = backends::convert<I>(estimate);
      k = k > last_bin ? last_bin : k;
      // The estimate's fraction (exact: Sterbenz) at least `margin` from 0 and 1 in every
      // counted lane: each lane's bin is k (a clamped k leaves a fraction >= 1).
      const V fraction = estimate - backends::convert<V>(k);
      const I clear = backends::convert<I>((fraction >= near) & (fraction <= far));
      if (!backends::any((clear | (valid == 0)) == 0)) {
        backends::store(offset + j, ((valid ? k : discard) << shift) + ((lane + j) & (copies - 1)));
        return;
      }
      // -1 where a lane's value lies below its bin, +1 where above, else 0 (LD lanes). The lanes
      // off (few, or every lane where the margin is 1) take exact_bin one by one.
      const auto steps = [&](const DT& vp, const DI& kp) {
        const D vd = backends::convert<D>(vp), kd = backends::convert<D>(kp);
        const auto down = vd < backends::fma(kd, width, xmin);
        const auto up = (kd < last) & (vd >= backends::fma(kd + one, width, xmin));
        return DI(backends::convert<DI>(down) - backends::convert<DI>(up));
      };
      I step;
      if constexpr (parts == 1) step = steps(safe, k);
      else
        step = backends::join(steps(backends::half<0>(safe), backends::half<0>(k)),
                              steps(backends::half<1>(safe), backends::half<1>(k)));
      const I off = (step != 0) & valid;
      if (backends::any(off))
        for (int l = 0; l < L; ++l)
          if (off[l]) k[l] = std::int32_t(bins.locate(double(safe[l]), double(k[l])));
      backends::store(offset + j, ((valid ? k : discard) << shift) + ((lane + j) & (copies - 1)));
    };
    for (std::int64_t i = 0; i < n; i += block) {
      const int count = n - i < block ? int(n - i) : block;
      int j = 0;
      for (; j + L <= count; j += L) {
        backends::prefetch_ahead(x + i + j);  // (backends/memory.hpp: one core's overlap)
        bin(backends::load<V>(x + i + j), L, j);
      }
      if (j < count) bin(backends::load_partial<V>(x + i + j, count - j), count - j, j);
      const int counted = (count + L - 1) / L * L;  // the last pack's unused lanes: the discard row
      int c = 0;
      if (backends::scatter_counts && copies >= 16)
        for (; c + 16 <= counted; c += 16) backends::increment16(h, offset + c);
      for (; c < counted; ++c) ++h[offset[c]];
    }
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    constexpr int scratch_level =
        Tuning::scratch_level;  // (a local: no device reference to Tuning)
    const int nbins = int(bins.nbins);
    Table edge(team.team_scratch(scratch_level), nbins + 1);
    Scratch hist(team.team_scratch(scratch_level), nbins + 1, copies);
    const int threads = team.team_size(), t = team.team_rank();
    for (int k = t; k <= nbins; k += threads) edge(k) = threshold<T>(bins.edge(k));
    for (int b = t; b < (nbins + 1) * copies; b += threads) hist.data()[b] = 0;
    team.team_barrier();
    const std::int64_t begin = std::int64_t(team.league_rank()) * per_team;
    const std::int64_t end = begin + per_team < n ? begin + per_team : n;
    bool counted = false;
    if constexpr (Tuning::packs && backends::has_pack_v<T> && EstimateInT) {
      if (copies >= 4 && x.stride(0) == 1 && end > begin) {
        count_packs(&x(begin), end - begin, edge(0), edge(nbins), hist);
        counted = true;
      }
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
    const T near = margin, far = T(1) - margin;
    const auto increment = [&](int k) {
      if constexpr (Tuning::team_size == 1) ++hist(k, copy);
      else backends::scratch_increment(&hist(k, copy));
    };
    // Whether the bin of an estimate >= 0 (in T), set in `guess`, is certain: count_packs' rule,
    // its fraction at least `margin` from 0 and 1 (never with a margin of 1), and a bin that
    // exists. Then no load from the thresholds is needed.
    const auto certain_bin = [&](T estimate, int& guess) {
      guess = int(estimate);
      const T fraction = estimate - T(guess);
      return (guess < nbins) & (fraction >= near) & (fraction <= far);
    };
    const auto add = [&](T v) {
      if (!(v >= lo && v < hi)) return;  // outside [xmin, xmax), or NaN
      // exact_bin against the thresholds (E_0 <= v < E_nbins): fewer than 2^31 bins here.
      int k;
      if constexpr (EstimateInT) {
        // The estimate's bin where it is certain: no load from the table, whose reads by a
        // warp's lanes in different bins meet in the same banks.
        const T estimate = (v - lo) * inverse_width_t;  // >= 0
        int guess;
        if (certain_bin(estimate, guess)) k = guess;
        else k = int(exact_bin(v, estimate, nbins, edge));
      } else {
        k = int(exact_bin(v, (double(v) - bins.xmin) * bins.inverse_width, nbins, edge));
      }
      increment(k);
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
        if constexpr (EstimateInT) {
          // The U K values' bins without a branch, the thresholds or the range check where
          // every one is in range and certain: then U K increments; else (a value near an edge,
          // out of range or NaN) each value takes add.
          int bin[U * K];
          bool certain = true;
          for (int u = 0; u < U; ++u)
            for (int e = 0; e < K; ++e) {
              const T value = v[u].v[e];
              const bool in = value >= lo && value < hi;
              const T estimate = ((in ? value : lo) - lo) * inverse_width_t;  // in [0, nbins]
              certain = certain & in & certain_bin(estimate, bin[u * K + e]);
            }
          if (certain) {
            for (int i = 0; i < U * K; ++i) increment(bin[i]);
            continue;
          }
        }
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

}  // namespace unison::detail::histogram
