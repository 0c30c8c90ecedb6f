#pragma once
// unison/detail/convolve/host.hpp: part of unison/convolve.hpp (a header of its kernels, which
// compiles on its own: it includes what it uses).
// The direct algorithm on CPUs: packs of consecutive outputs per tap (window_sums), the taps as
// vectors against broadcasts of x from 64 taps on, a block of outputs per work item.

#include <unison/detail/convolve/direct.hpp>

namespace unison::detail::convolve {

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
// ConvolveDirect, in its order), by the backend's CPU values `Host` (KernelShape<Exec>::Host,
// schedule.hpp). Host::pack_groups packs of consecutive outputs at a time
// share each tap (register accumulators: the loads of w come from the L1 cache), w's data
// asked for backends::host_prefetch_bytes ahead as they are computed, or from
// Host::broadcast_min_taps taps on, window_sums_broadcast; the rest a pack, then part of
// one. `streaming`: out written with non-temporal stores from its first aligned pack on.
template <class Host, class T, class KP>
void window_sums(const T* w, const KP& k, int taps, T* out, std::int64_t count, bool accumulate,
                 bool streaming) {
  using V = backends::Pack<T>;
  constexpr int L = backends::lanes_v<V>;
  constexpr int R = Host::pack_groups;
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
  if (taps >= Host::broadcast_min_taps) {
    const std::int64_t i0 = i;
    i += window_sums_broadcast<Host::broadcast_groups, Host::broadcast_max_taps>(
        w + i0, k, taps, out + i0, count - i0, accumulate,
        [&](std::int64_t at, const V& v) { store(i0 + at, v); });
  }
  for (; i + R * L <= count; i += R * L) {
    V acc[R];
    for (int r = 0; r < R; ++r) acc[r] = accumulate ? backends::load<V>(out + i + r * L) : V{};
    const T* base = w + i + taps - 1;
    for (int r = 0; r < R; ++r) backends::prefetch_ahead(base + r * L);
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
template <class Host, class X, class K, class Y>
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
    window_sums<Host>(x.data() + lo + s.offset - (s.m - 1), k, int(s.m), y.data() + lo, hi - lo,
                      false, streaming);
    for (std::int64_t i = hi; i < i1; ++i) one(i);
  }
};

}  // namespace unison::detail::convolve
