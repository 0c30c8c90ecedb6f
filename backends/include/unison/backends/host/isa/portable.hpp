#pragma once
/// \file unison/backends/host/isa/portable.hpp
/// The packs' operations in plain vector-extension code (lane loops, byte copies), for any
/// instruction set: what an instruction set's file takes where it has no better form (`using
/// portable::permute;`), and, whole, the instruction set of compilations without host vectors,
/// where the CPU kernels' code is parsed but not used (unison/backends/host/isa/none.hpp).

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <unison/backends/host/vectors.hpp>

namespace unison::backends::host::portable {

/// Every lane of the pack V equal to s.
template <class V>
inline V splat(scalar_of_t<V> s) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = s;
  return r;
}

/// f applied lane by lane.
template <class V, class F>
inline V per_lane(const V& v, const F& f) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = f(v[l]);
  return r;
}

/// exp, sin, cos, tanh, sqrt and floor of each lane through the scalar functions: the same
/// results as the scalar code. (Templates, so that a GPU build's device pass refuses them only
/// where a kernel instantiates one: unison/backends/host/memory.hpp.)
#define UNISON_BACKENDS_PORTABLE_FUNCTION(name)                                        \
  template <class V, class = std::enable_if_t<is_pack_v<V>>>                           \
  inline V name(const V& x) {                                                          \
    UNISON_BACKENDS_HOST_PASS_ONLY(V);                                                 \
    return per_lane(x, [](scalar_of_t<V> v) { return scalar_of_t<V>(std::name(v)); }); \
  }
UNISON_BACKENDS_PORTABLE_FUNCTION(exp)
UNISON_BACKENDS_PORTABLE_FUNCTION(sin)
UNISON_BACKENDS_PORTABLE_FUNCTION(cos)
UNISON_BACKENDS_PORTABLE_FUNCTION(tanh)
UNISON_BACKENDS_PORTABLE_FUNCTION(sqrt)
UNISON_BACKENDS_PORTABLE_FUNCTION(floor)
#undef UNISON_BACKENDS_PORTABLE_FUNCTION

/// a * b + c, one rounding per lane (std::fma: a library call a lane where the instruction set
/// has no fused multiply-add).
template <class V, class = std::enable_if_t<is_pack_v<V>>>
inline V fma(const V& a, const V& b, const V& c) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
}

/// f in lanes first to last (inclusive), c in the others: fma_lanes from a whole fma f.
template <class V>
inline V blend_lanes(const V& f, const V& c, int first, int last) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r = c;
  for (int l = first; l <= last; ++l) r[l] = f[l];
  return r;
}

/// The lower (Part 0) or upper (Part 1) half of the lanes of the host vector w.
template <int Part, class W>
inline detail::Half<W> half(const W& w) {
  UNISON_BACKENDS_HOST_PASS_ONLY(W);
  static_assert(Part == 0 || Part == 1);
  detail::Half<W> r;
  __builtin_memcpy(&r, reinterpret_cast<const char*>(&w) + Part * sizeof r, sizeof r);
  return r;
}

/// The host vector of lo's lanes followed by hi's.
template <class H>
inline detail::Twice<H> join(const H& lo, const H& hi) {
  UNISON_BACKENDS_HOST_PASS_ONLY(H);
  detail::Twice<H> r;
  __builtin_memcpy(&r, &lo, sizeof lo);
  __builtin_memcpy(reinterpret_cast<char*>(&r) + sizeof lo, &hi, sizeof hi);
  return r;
}

/// Whether any lane of the mask m is set.
template <class M>
inline bool any(const M& m) {
  UNISON_BACKENDS_HOST_PASS_ONLY(M);
  for (int l = 0; l < int(sizeof(M) / sizeof(m[0])); ++l)
    if (m[l]) return true;
  return false;
}

/// The lanes l with lo <= x[l] <= hi (not NaN) and 0 <= k[l] < bound set (-1), the others 0:
/// all_within's test as a vector, for an instruction set's `any` to test.
template <class V>
inline IndexPack<V> within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                           int bound) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  using U = typename detail::GenericVector<std::uint32_t, int(sizeof(k))>::type;
  const IndexPack<V> in = convert<IndexPack<V>>((x >= lo) & (x <= hi));
  return in & ((U)k < (U)(IndexPack<V>{} + bound));
}

/// Each lane truncated toward zero, INT32_MIN where it is NaN or outside the 32-bit range.
template <class V>
inline IndexPack<V> truncate_to_index(const V& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  using T = scalar_of_t<V>;
  IndexPack<V> r;
  for (int l = 0; l < lanes_v<V>; ++l)
    r[l] = v[l] >= T(-0x1p31) && v[l] < T(0x1p31) ? std::int32_t(v[l]) : INT32_MIN;
  return r;
}

/// Lane l of the result is v[index[l]].
template <class V>
inline V permute(const V& v, const IndexPack<V>& index) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = v[index[l]];
  return r;
}

/// table[index[l]] in each lane l.
template <class V>
inline V gather(const scalar_of_t<V>* table, const IndexPack<V>& index) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = table[index[l]];
  return r;
}

/// p[index[l]] = v[l] for each lane l.
template <class V>
inline void scatter(scalar_of_t<V>* p, const IndexPack<V>& index, const V& v) {
  UNISON_BACKENDS_HOST_PASS_ONLY(V);
  for (int l = 0; l < lanes_v<V>; ++l) p[index[l]] = v[l];
}

}  // namespace unison::backends::host::portable
