#pragma once
/// \file unison/backends/host/isa/sse2.hpp
/// The packs' operations with SSE2 (x86-64's baseline; SSE4.1's floor where the compilation has
/// it): 16-byte packs, no fused multiply-add. The operations every instruction set's file
/// defines are listed in unison/backends/host/pack.hpp.

#include <type_traits>

#include <unison/backends/host/isa/x86.hpp>

UNISON_BACKENDS_LIBMVEC_FUNCTIONS(b, 4, 2, __m128, __m128d)

namespace unison::backends::host::isa {

template <class V>
inline V splat(scalar_of_t<V> s) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) return (V)_mm_set1_ps(s);
  else return (V)_mm_set1_pd(s);
}

inline Pack<float> sqrt(const Pack<float>& x) { return (Pack<float>)_mm_sqrt_ps((__m128)x); }
inline Pack<double> sqrt(const Pack<double>& x) { return (Pack<double>)_mm_sqrt_pd((__m128d)x); }

using portable::fma;
template <class V>
inline V fma_lanes(const V& a, const V& b, const V& c, int first, int last) {
  return portable::blend_lanes(fma(a, b, c), c, first, last);
}

using portable::half;
using portable::join;

template <class M>
inline bool any(const M& m) {
  if constexpr (sizeof(M) == 16) return x86::any16(m);
  else return portable::any(m);
}

template <class V>
inline bool all_within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                       int bound) {
  return !any(portable::within(x, lo, hi, k, bound) == 0);
}

template <class V>
inline IndexPack<V> truncate_to_index(const V& v) {
  IndexPack<V> r;
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
    const __m128i k = _mm_cvttps_epi32((__m128)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m128i k = _mm_cvttpd_epi32((__m128d)v);  // the two lanes in the low half
    __builtin_memcpy(&r, &k, sizeof r);
  }
  return r;
}

using portable::permute;

#if defined(__SSE4_1__)
inline Pack<double> floor(const Pack<double>& x) { return (Pack<double>)_mm_floor_pd((__m128d)x); }
#else
using portable::floor;
#endif

using portable::gather;
using portable::scatter;

}  // namespace unison::backends::host::isa
