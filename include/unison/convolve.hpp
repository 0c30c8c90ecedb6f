#pragma once
/// \file unison/convolve.hpp
/// 1-D convolution with NumPy's `np.convolve` semantics (docs/workloads.md section 3): a direct
/// kernel and a tiled one that stages its inputs in team scratch memory.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/memory.hpp>
#include <unison/backends/simd.hpp>
#include <unison/backends/tuning.hpp>
#include <unison/impl/checks.hpp>
#include <unison/impl/chunk.hpp>

namespace unison {

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

/// Length of np.convolve(x, k, mode)'s result for n = len(x), m = len(k), 1 <= m <= n.
constexpr std::int64_t convolve_extent(std::int64_t n, std::int64_t m, ConvolveMode mode) {
  return mode == ConvolveMode::full ? n + m - 1 : mode == ConvolveMode::same ? n : n - m + 1;
}

namespace impl {

// y[i] = full[i + offset]; terms x[t - j] * k[j] for j from j_first(t) to j_last(t), ascending.
struct ConvolveShape {
  std::int64_t n, m, offset, out;
};

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

#if UNISON_BACKENDS_HOST_VECTORS
// CPUs, many taps (at most MaxTaps): the sums of window_sums below (the same terms in the same
// order, so the same results) for the first outputs of [0, count), B packs of consecutive
// outputs at a time, from out + i. Instead of loading for each tap a pack of w that straddles
// two cache lines, each element w[i + s] is taken as a broadcast (s descending, so that every
// output adds its terms in ascending d) and multiplied by the pack of taps that pair with it,
// lane l holding k[taps - 1 - s + l]: one aligned-or-not load of taps shared by the B packs,
// the lanes whose tap is outside [0, taps) left untouched (masked). Returns how many outputs it
// computed (a multiple of B packs).
template <int B, int MaxTaps, class T, class KP, class Store>
std::int64_t window_sums_broadcast(const T* w, const KP& k, int taps, T* out, std::int64_t count,
                                   bool accumulate, const Store& store) {
  using V = backends::Pack<T>;
  constexpr int L = backends::lanes_v<V>;
  if (taps > MaxTaps) return 0;
  // kp[L + d] = k[d], zeros around it: the pack of taps for offset s starts at
  // kp + L + taps - 1 - s.
  alignas(64) T kp[MaxTaps + 2 * L];
  for (int d = 0; d < L; ++d) kp[d] = kp[L + taps + d] = T(0);
  for (int d = 0; d < taps; ++d) {
    if constexpr (std::is_pointer_v<KP>) kp[L + d] = T(k[d]);
    else kp[L + d] = T(k(d));
  }
  const int top = taps + L - 2;  // the largest offset of w from a pack's first output
  const int full = taps - 1 > L - 2 ? taps - 1 : L - 2;  // offsets [L - 1, full] fill every lane
  std::int64_t i = 0;
  for (; i + B * L <= count; i += B * L) {
    V acc[B];
    for (int b = 0; b < B; ++b) acc[b] = accumulate ? backends::load<V>(out + i + b * L) : V{};
    const T* wi = w + i;
    const auto masked = [&](int s) {
      const int first = s - taps + 1 > 0 ? s - taps + 1 : 0, last = s < L - 1 ? s : L - 1;
      const V kv = backends::load<V>(kp + L + taps - 1 - s);
      for (int b = 0; b < B; ++b)
        acc[b] = backends::fma_lanes(backends::splat<V>(wi[b * L + s]), kv, acc[b], first, last);
    };
    int s = top;
    for (; s > full; --s) masked(s);
    for (; s >= L - 1; --s) {
      const V kv = backends::load<V>(kp + L + taps - 1 - s);
      for (int b = 0; b < B; ++b)
        acc[b] = backends::fma(backends::splat<V>(wi[b * L + s]), kv, acc[b]);
    }
    for (; s >= 0; --s) masked(s);
    for (int b = 0; b < B; ++b) store(i + b * L, acc[b]);
  }
  return i;
}

// CPUs: out[i] = (accumulate ? out[i] : 0) + the sum over d < taps, ascending, of
// w[i + taps - 1 - d] * k[d], for i < count, one fused multiply-add per term (the terms of
// ConvolveDirect, in its order). Tuning::pack_groups packs of consecutive outputs at a time
// share each tap (register accumulators: the loads of w come from the L1 cache), or from
// Tuning::broadcast_min_taps taps on, window_sums_broadcast; the rest a pack, then part of
// one. `streaming`: out written with non-temporal stores from its first aligned pack on.
template <class Tuning, class T, class KP>
void window_sums(const T* w, const KP& k, int taps, T* out, std::int64_t count, bool accumulate,
                 bool streaming) {
  using V = backends::Pack<T>;
  constexpr int L = backends::lanes_v<V>;
  constexpr int R = Tuning::pack_groups;
  const auto tap = [&](int d) {
    if constexpr (std::is_pointer_v<KP>) return T(k[d]);
    else return T(k(d));
  };
  const auto store = [&](std::int64_t at, const V& v) {
    if (streaming) backends::store_vector_streaming(out + at, v);
    else backends::store(out + at, v);
  };
  const auto one = [&](std::int64_t i, int lanes) {  // lanes <= L outputs from i
    const T* base = w + i + taps - 1;
    V acc = accumulate ? backends::load_partial<V>(out + i, lanes) : V{};
    for (int d = 0; d < taps; ++d)
      acc = backends::fma(
          lanes == L ? backends::load<V>(base - d) : backends::load_partial<V>(base - d, lanes),
          backends::splat<V>(tap(d)), acc);
    return acc;
  };
  std::int64_t i = 0;
  if (streaming) {  // up to out's first aligned pack
    const auto addr = reinterpret_cast<std::uintptr_t>(out);
    const std::int64_t head = std::int64_t((sizeof(V) - addr % sizeof(V)) % sizeof(V) / sizeof(T));
    const int h = int(head < count ? head : count);
    if (h > 0) backends::store_partial(out, one(0, h), h);
    i = h;
  }
  if (taps >= Tuning::broadcast_min_taps) {
    const std::int64_t i0 = i;
    i += window_sums_broadcast<Tuning::broadcast_groups, Tuning::broadcast_max_taps>(
        w + i0, k, taps, out + i0, count - i0, accumulate,
        [&](std::int64_t at, const V& v) { store(i0 + at, v); });
  }
  for (; i + R * L <= count; i += R * L) {
    V acc[R];
    for (int r = 0; r < R; ++r) acc[r] = accumulate ? backends::load<V>(out + i + r * L) : V{};
    const T* base = w + i + taps - 1;
    for (int d = 0; d < taps; ++d) {
      const V kd = backends::splat<V>(tap(d));
      for (int r = 0; r < R; ++r)
        acc[r] = backends::fma(backends::load<V>(base - d + r * L), kd, acc[r]);
    }
    for (int r = 0; r < R; ++r) store(i + r * L, acc[r]);
  }
  for (; i + L <= count; i += L) store(i, one(i, L));
  if (i < count) backends::store_partial(out + i, one(i, int(count - i)), int(count - i));
  if (streaming) backends::store_streaming_fence();
}

// The direct algorithm on CPUs over contiguous x and y: a work item computes `block`
// consecutive outputs, those whose terms all pair with elements of x by window_sums, the few
// near x's ends (full and same modes) one by one as ConvolveDirect.
template <class Tuning, class X, class K, class Y>
struct ConvolveBlocks {
  using T = typename Y::non_const_value_type;
  X x;
  K k;
  Y y;
  ConvolveShape s;
  std::int64_t block;
  bool streaming;

  void operator()(std::int64_t b) const {
    const std::int64_t i0 = b * block, i1 = i0 + block < s.out ? i0 + block : s.out;
    // Output i pairs every tap with x when m - 1 <= i + offset <= n - 1.
    std::int64_t lo = s.m - 1 - s.offset, hi = s.n - s.offset;
    lo = lo < i0 ? i0 : lo > i1 ? i1 : lo;
    hi = hi > i1 ? i1 : hi < lo ? lo : hi;
    const ConvolveDirect<X, K, Y> one{x, k, y, s};
    for (std::int64_t i = i0; i < lo; ++i) one(i);
    window_sums<Tuning>(x.data() + lo + s.offset - (s.m - 1), k, int(s.m), y.data() + lo, hi - lo,
                        false, streaming);
    for (std::int64_t i = hi; i < i1; ++i) one(i);
  }
};
#endif

// One team computes outputs [i0, i0 + tile). For each chunk of taps [c0, c0 + cm) it stages
// x[t - j] for every t and j it needs (tile + cm - 1 values, zero outside x, never read) and the
// chunk's taps in scratch, then each thread adds that chunk's terms to its outputs, keeping the
// direct kernel's order of terms.
template <class Exec, class X, class K, class Y>
struct ConvolveTiled {
  using T = typename Y::non_const_value_type;
  using Tuning = backends::ConvolveTuning<Exec>;
  using Scratch = Kokkos::View<T*, typename Exec::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  X x;
  K k;
  Y y;
  ConvolveShape s;
  int tile;
  int chunk;
  int level;       // team scratch level
  bool streaming;  // CPUs: y written with non-temporal stores where one chunk holds every tap

  static std::size_t scratch_bytes(int tile, int chunk) {
    return Scratch::shmem_size(tile + chunk - 1) + Scratch::shmem_size(chunk);
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * tile;
    const int count = s.out - i0 < tile ? int(s.out - i0) : tile;
    Scratch xs(team.team_scratch(level), tile + chunk - 1);
    Scratch ks(team.team_scratch(level), chunk);
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
      threads(0, p0, [&](int p) { xs(p) = T(0); });
      threads(p1 > p0 ? p1 : p0, span, [&](int p) { xs(p) = T(0); });
      threads(p0, p1, [&](int p) { backends::copy_to_scratch_async(&xs(p), &x(xbase + p)); });
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
      if constexpr (Tuning::packs && backends::has_pack_v<T>) {
#if UNISON_BACKENDS_HOST_VECTORS
        // A CPU team (one thread) with a contiguous y: the outputs whose terms all pair with
        // elements of x (all of the chunk's taps) in packs, the others one by one.
        if (y.stride(0) == 1) {
          const std::int64_t t0 = i0 + s.offset;
          std::int64_t lo = c0 + cm - 1 - t0, hi = s.n + c0 - t0;
          lo = lo < 0 ? 0 : lo > count ? count : lo;
          hi = hi > count ? count : hi < lo ? lo : hi;
          for (int r = 0; r < int(lo); ++r) output(r);
          if (hi > lo)
            window_sums<Tuning>(xs.data() + lo, ks.data(), cm, y.data() + i0 + lo, hi - lo, c0 > 0,
                                streaming && cm == s.m);
          for (int r = int(hi); r < count; ++r) output(r);
          done = true;
        }
#endif
      }
      if (!done) Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), output);
      team.team_barrier();
    }
  }
};

template <class V>
inline constexpr bool is_float_vector_v =
    Kokkos::is_view_v<V>&& V::rank() == 1 &&
    std::is_floating_point_v<typename V::non_const_value_type>;

}  // namespace impl

/// y = np.convolve(x, k, mode), enqueued on `exec`.
///
/// x, k, y: rank-1 Views of one floating-point type (float or double), any layout, accessible
/// from `exec`; y's extent must be convolve_extent(len(x), len(k), mode). y is only written,
/// never read: its prior contents do not matter. y must not overlap x or k.
/// Throws unison::invalid_argument if x or k is empty, k is longer than x (NumPy would swap the
/// two; swap them yourself, the convolution is symmetric except in its `same` length), y has
/// the wrong extent, or y overlaps an input.
/// Kernels: "unison::convolve::direct", "unison::convolve::tiled".
template <class Exec, class X, class K, class Y>
void convolve(const Exec& exec, const X& x, const K& k, const Y& y, ConvolveMode mode,
              ConvolveAlgorithm algorithm = ConvolveAlgorithm::automatic) {
  static_assert(Kokkos::is_execution_space_v<Exec>,
                "unison::convolve: the first argument must be a Kokkos execution space");
  static_assert(
      impl::is_float_vector_v<X> && impl::is_float_vector_v<K> && impl::is_float_vector_v<Y>,
      "unison::convolve: x, k and y must be rank-1 Views of float or double");
  using T = typename Y::non_const_value_type;
  static_assert(std::is_same_v<typename X::non_const_value_type, T> &&
                    std::is_same_v<typename K::non_const_value_type, T>,
                "unison::convolve: x, k and y must have the same value type");
  static_assert(!std::is_const_v<typename Y::value_type>,
                "unison::convolve: y must have a non-const value type");
  static_assert(
      impl::accessible_v<Exec, X> && impl::accessible_v<Exec, K> && impl::accessible_v<Exec, Y>,
      "unison::convolve: x, k and y must be accessible from the execution space");
  constexpr const char* fn = "unison::convolve";
  impl::require(
      mode == ConvolveMode::full || mode == ConvolveMode::same || mode == ConvolveMode::valid, fn,
      "unknown mode ", int(mode));
  const std::int64_t n = x.extent(0), m = k.extent(0);
  impl::require(n > 0, fn, "x is empty");
  impl::require(m > 0, fn, "k is empty");
  impl::require(m <= n, fn, "k (", m, ") is longer than x (", n, ")");
  const std::int64_t len = convolve_extent(n, m, mode);
  impl::require(std::int64_t(y.extent(0)) == len, fn, "y is ", y.extent(0), ", expected ", len,
                " (",
                mode == ConvolveMode::full   ? "full"
                : mode == ConvolveMode::same ? "same"
                                             : "valid",
                " mode, x of ", n, ", k of ", m, ")");
  impl::require(algorithm == ConvolveAlgorithm::automatic ||
                    algorithm == ConvolveAlgorithm::direct || algorithm == ConvolveAlgorithm::tiled,
                fn, "unknown algorithm ", int(algorithm));
  impl::check_disjoint(fn, "y", y, "x", x);
  impl::check_disjoint(fn, "y", y, "k", k);

  using Tuning = backends::ConvolveTuning<Exec>;
  impl::ConvolveShape shape{n, m,
                            mode == ConvolveMode::full   ? 0
                            : mode == ConvolveMode::same ? (m - 1) / 2
                                                         : m - 1,
                            len};
  if (algorithm == ConvolveAlgorithm::automatic)
    algorithm = m >= Tuning::tiled_min_taps ? ConvolveAlgorithm::tiled : ConvolveAlgorithm::direct;
  if (algorithm == ConvolveAlgorithm::direct) {
    if constexpr (Tuning::packs && backends::has_pack_v<T>) {
#if UNISON_BACKENDS_HOST_VECTORS
      if (x.stride(0) == 1 && y.stride(0) == 1 && m <= INT32_MAX) {
        const std::int64_t threads = exec.concurrency();
        std::int64_t block = (len + 4 * threads - 1) / (4 * threads);
        block = std::clamp<std::int64_t>((block + 63) / 64 * 64, 1024, 1 << 16);
        const bool streaming =
            std::int64_t((n + len) * sizeof(T)) >= backends::host_streaming_bytes();
        Kokkos::parallel_for(
            "unison::convolve::direct",
            Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                       (len + block - 1) / block),
            impl::ConvolveBlocks<Tuning, X, K, Y>{x, k, y, shape, block, streaming});
        return;
      }
#endif
    }
    constexpr int V = Tuning::vector_bytes / int(sizeof(T));
    constexpr int M = Tuning::window_taps;
    if constexpr (V == 2 || V == 4) {
      if (m <= M && x.stride(0) == 1 && y.stride(0) == 1) {
        using Kernel = impl::ConvolveWindowed<X, K, Y, V, M>;
        constexpr std::uintptr_t bytes = sizeof(T) * V;
        const auto addr = [](const T* p) { return reinterpret_cast<std::uintptr_t>(p); };
        const std::int64_t head = std::min<std::int64_t>(
            len, std::int64_t((bytes - addr(y.data()) % bytes) % bytes / sizeof(T)));
        // x[p] sits at position (p + x's offset from a 16-byte boundary) % V of its chunk.
        const std::int64_t xoff = std::int64_t(addr(x.data()) % bytes / sizeof(T));
        const int shift = int((head + shape.offset + V - 1 + xoff) % V);
        Kokkos::parallel_for("unison::convolve::direct",
                             Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                                 exec, 0, Kernel::items(head, len)),
                             Kernel{x, k, y, shape, head, shift});
        return;
      }
    }
    Kokkos::parallel_for("unison::convolve::direct",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, len),
                         impl::ConvolveDirect<X, K, Y>{x, k, y, shape});
  } else {
    using Kernel = impl::ConvolveTiled<Exec, X, K, Y>;
    const int tile = Tuning::tile;
    const std::int64_t league = (len + tile - 1) / tile;
    impl::require(league <= std::int64_t(INT32_MAX), fn, "y (", len, ") has ", league, " tiles of ",
                  tile, ", more than 2^31 - 1 for one launch of the tiled algorithm");
    Kokkos::TeamPolicy<Exec> policy(exec, int(league), Tuning::team_size);
    policy.set_scratch_size(Tuning::scratch_level,
                            Kokkos::PerTeam(Kernel::scratch_bytes(tile, Tuning::chunk)));
    const bool streaming = std::int64_t((n + len) * sizeof(T)) >= backends::host_streaming_bytes();
    Kokkos::parallel_for(
        "unison::convolve::tiled", policy,
        Kernel{x, k, y, shape, tile, Tuning::chunk, Tuning::scratch_level, streaming});
  }
}

/// convolve on y's default execution space instance.
template <class X, class K, class Y>
void convolve(const X& x, const K& k, const Y& y, ConvolveMode mode,
              ConvolveAlgorithm algorithm = ConvolveAlgorithm::automatic) {
  convolve(typename Y::execution_space(), x, k, y, mode, algorithm);
}

}  // namespace unison
