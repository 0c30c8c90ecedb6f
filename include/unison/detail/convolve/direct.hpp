#pragma once
// unison/detail/convolve/direct.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The direct algorithm: one output per work item, or a few taps over windows of x in wide
// loads (GPUs).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unison/backends/device_info.hpp>
#include <unison/backends/host/pack.hpp>
#include <unison/backends/memory.hpp>
#include <unison/detail/chunk.hpp>
#include <unison/detail/convolve/schedule.hpp>

namespace unison::detail::convolve {

// One output per work item, its terms in ascending j. (Several outputs per work item, for more
// loads in flight, measured slower: docs/tuning.md.)
template <class X, class K, class Y>
struct ConvolveDirect {
  using T = typename Y::non_const_value_type;
  X x;
  K k;
  Y y;
  ConvolveShape s;

  KOKKOS_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t t = i + s.offset;
    const std::int64_t j0 = t - (s.n - 1) > 0 ? t - (s.n - 1) : 0;
    const std::int64_t j1 = t < s.m - 1 ? t : s.m - 1;
    T acc = 0;
    for (std::int64_t j = j0; j <= j1; ++j) acc = backends::fma(T(x(t - j)), T(k(j)), acc);
    y(i) = acc;
  }
};

// The direct kernel for a few taps (at most M, known at compile time) on contiguous x and y,
// with wide accesses: a work item computes V consecutive outputs (one 16-byte store) from the
// window of x they need, loaded as aligned 16-byte chunks into registers. Neighbouring items'
// windows overlap and meet in the L1 cache, so x comes from memory once, in wide loads. Taps
// beyond m are skipped (never multiplied by zero), and each output adds its terms in ascending
// j from zero, as ConvolveDirect does: the two agree bitwise. Items whose window would leave x
// (near its ends), and the outputs before y's first 16-byte boundary and after its last chunk,
// are computed one at a time as in ConvolveDirect.
template <class X, class K, class Y, int V, int M>
struct ConvolveWindowed {
  using T = typename Y::non_const_value_type;
  X x;
  K k;
  Y y;
  ConvolveShape s;
  std::int64_t head;  // outputs before y's first 16-byte boundary
  int shift;          // where the last element of an item's window sits in its chunk of x
  // Chunks per window: M + V - 1 elements wherever the window starts within a chunk.
  static constexpr int L = (M + 2 * V - 2 + V - 1) / V;

  // Work items: item g holds outputs [head + V (g - 1), head + V g), clipped to y.
  static std::int64_t items(std::int64_t head, std::int64_t out) { return (out - head) / V + 2; }

  KOKKOS_FUNCTION void one(std::int64_t i) const { ConvolveDirect<X, K, Y>{x, k, y, s}(i); }

  // Outputs [i0, i0 + V) from the window whose first element is x[w0] (chunk-aligned); output
  // i0 + e with tap j reads x[i0 + offset + e - j] = w[B + e - j].
  template <int S>
  KOKKOS_FUNCTION void window(std::int64_t i0, std::int64_t w0) const {
    constexpr int B = S + 1 + (L - 2) * V;
    static_assert(B - (M - 1) >= 0 && B + V - 1 < L * V, "window layout");
    T w[L * V];
    for (int l = 0; l < L; ++l) {
      const Chunk<T, V> c = *reinterpret_cast<const Chunk<T, V>*>(x.data() + w0 + l * V);
      for (int e = 0; e < V; ++e) w[l * V + e] = c.v[e];
    }
    T taps[M];
    for (int j = 0; j < M; ++j) taps[j] = j < s.m ? k(j) : T(0);
    Chunk<T, V> out;
    for (int e = 0; e < V; ++e) {
      T acc = 0;
      for (int j = 0; j < M; ++j)
        if (j < s.m) acc = backends::fma(w[B + e - j], taps[j], acc);
      out.v[e] = acc;
    }
    *reinterpret_cast<Chunk<T, V>*>(y.data() + i0) = out;
  }

  KOKKOS_FUNCTION void operator()(std::int64_t g) const {
    const std::int64_t b = head + V * (g - 1);
    const std::int64_t lo = b > 0 ? b : 0, hi = b + V < s.out ? b + V : s.out;
    if (hi - lo == V) {
      // The window's chunks: from the one holding x[lo + offset + V - 1] back L - 1 more.
      const std::int64_t last = lo + s.offset + V - 1;
      const std::int64_t w0 = last - shift - (L - 1) * V;
      if (w0 >= 0 && w0 + L * V <= s.n) {
        if constexpr (V == 4) {
          switch (shift) {
            case 0:
              return window<0>(lo, w0);
            case 1:
              return window<1>(lo, w0);
            case 2:
              return window<2>(lo, w0);
            default:
              return window<3>(lo, w0);
          }
        } else if constexpr (V == 2) {
          if (shift == 0) return window<0>(lo, w0);
          return window<1>(lo, w0);
        }
      }
    }
    for (std::int64_t i = lo; i < hi; ++i) one(i);
  }
};

}  // namespace unison::detail::convolve
