#pragma once
// unison/detail/convolve/tiled.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The tiled algorithm: a team stages a tile of x and a chunk of the taps in scratch.

#include <unison/detail/convolve/host.hpp>

namespace unison::detail::convolve {

// One team computes outputs [i0, i0 + tile). For each chunk of taps [c0, c0 + cm) it stages
// x[t - j] for every t and j it needs (tile + cm - 1 values, zero outside x, never read) and the
// chunk's taps in scratch, then each thread adds that chunk's terms to its outputs, keeping the
// direct kernel's order of terms. A CPU team reads x in place instead where it can (below).
template <class Exec, class X, class K, class Y>
struct ConvolveTiled {
  using T = typename Y::non_const_value_type;
  using Host = typename KernelShape<Exec>::Host;  // the CPU kernels' values
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  X x;
  K k;
  Y y;
  ConvolveShape s;
  int tile;
  int chunk;
  int scratch_level;  // team scratch level
  bool streaming;     // CPUs: y written with non-temporal stores where one chunk holds every tap

  static std::size_t scratch_bytes(int tile, int chunk) {
    return Scratch::shmem_size(tile + chunk - 1) + Scratch::shmem_size(chunk);
  }

  // The outputs [lo, hi) of the tile from i0 (count of them) whose terms pair every tap of the
  // chunk [c0, c0 + cm) with an element of x.
  KOKKOS_FUNCTION void interior(std::int64_t i0, std::int64_t c0, int cm, int count,
                                std::int64_t& lo, std::int64_t& hi) const {
    const std::int64_t t0 = i0 + s.offset;
    lo = c0 + cm - 1 - t0;
    hi = s.n + c0 - t0;
    lo = lo < 0 ? 0 : lo > count ? count : lo;
    hi = hi > count ? count : hi < lo ? lo : hi;
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * tile;
    const int count = s.out - i0 < tile ? int(s.out - i0) : tile;
    Scratch xs(team.team_scratch(scratch_level), tile + chunk - 1);
    Scratch ks(team.team_scratch(scratch_level), chunk);
    for (std::int64_t c0 = 0; c0 < s.m; c0 += chunk) {
      const int cm = s.m - c0 < chunk ? int(s.m - c0) : chunk;
      // xs[p] = x[xbase + p]; output t = i0 + offset + r and tap j = c0 + d read
      // xs[r + cm - 1 - d].
      const std::int64_t xbase = i0 + s.offset - (c0 + cm - 1);
      // Zeros where x has no element, then x's part and the taps (asynchronous copies on GPUs).
      const int span = count + cm - 1;
      const int p0 = xbase < 0 ? int(-xbase) : 0;
      const int p1 = s.n - xbase < span ? int(s.n - xbase) : span;
      const auto threads = [&](int b0, int e0, const auto& g) {
        if (e0 > b0) Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b0, e0), g);
      };
      // A CPU team (one thread) reads a contiguous x in place where every output of the tile
      // pairs all of the chunk's taps with elements of x: its team scratch is ordinary memory,
      // so a copy would only add a pass over x (the core's L1 cache holds the window of x that
      // the packs reuse, as for the direct kernel).
      bool in_place = false;
      if constexpr (Host::packs && backends::has_pack_v<T>) {
        std::int64_t lo, hi;
        interior(i0, c0, cm, count, lo, hi);
        in_place = x.stride(0) == 1 && y.stride(0) == 1 && lo == 0 && hi == count;
      }
      if (!in_place) {
        threads(0, p0, [&](int p) { xs(p) = T(0); });
        threads(p1 > p0 ? p1 : p0, span, [&](int p) { xs(p) = T(0); });
        threads(p0, p1, [&](int p) { backends::copy_to_scratch_async(&xs(p), &x(xbase + p)); });
      }
      threads(0, cm, [&](int d) { backends::copy_to_scratch_async(&ks(d), &k(c0 + d)); });
      backends::copy_scratch_wait();
      team.team_barrier();
      // After the first chunk an output's partial sum is kept in y itself (exactly, as a T), so
      // no per-thread storage bounds the tile; the barriers order each chunk's reads and writes.
      const auto output = [&](int r) {
        const std::int64_t t = i0 + s.offset + r;
        // The taps of this chunk that pair with an element of x, as in ConvolveDirect.
        const std::int64_t j0 = t - (s.n - 1) > c0 ? t - (s.n - 1) : c0;
        const std::int64_t j1 = t < c0 + cm - 1 ? t : c0 + cm - 1;
        T a = c0 == 0 ? T(0) : y(i0 + r);
        for (std::int64_t j = j0; j <= j1; ++j)
          a = backends::fma(xs(r + cm - 1 - int(j - c0)), ks(int(j - c0)), a);
        y(i0 + r) = a;
      };
      bool done = false;
      if constexpr (Host::packs && backends::has_pack_v<T>) {
        // A CPU team (one thread) with a contiguous y: the outputs whose terms all pair with
        // elements of x (all of the chunk's taps) in packs, the others one by one.
        if (y.stride(0) == 1) {
          std::int64_t lo, hi;
          interior(i0, c0, cm, count, lo, hi);
          for (int r = 0; r < int(lo); ++r) output(r);
          const T* w = in_place ? x.data() + xbase + lo : xs.data() + lo;
          if (hi > lo)
            window_sums<Host>(w, ks.data(), cm, y.data() + i0 + lo, hi - lo, c0 > 0,
                              streaming && cm == s.m);
          for (int r = int(hi); r < count; ++r) output(r);
          done = true;
        }
      }
      if (!done) Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), output);
      team.team_barrier();
    }
  }
};

}  // namespace unison::detail::convolve
