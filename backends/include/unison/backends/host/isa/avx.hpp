#pragma once
/// \file unison/backends/host/isa/avx.hpp
/// The packs' operations with AVX and AVX2 (with FMA where the compilation has it): 32-byte
/// packs. The operations every instruction set's file defines are listed in
/// unison/backends/host/pack.hpp.

#include <type_traits>

#include <unison/backends/host/isa/x86.hpp>

#if defined(__AVX2__)
UNISON_BACKENDS_LIBMVEC_FUNCTIONS(d, 8, 4, __m256, __m256d)
#else
UNISON_BACKENDS_LIBMVEC_FUNCTIONS(c, 8, 4, __m256, __m256d)
#endif

namespace unison::backends::host::isa {

template <class V>
inline V splat(scalar_of_t<V> s) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) return (V)_mm256_set1_ps(s);
  else return (V)_mm256_set1_pd(s);
}

inline Pack<float> sqrt(const Pack<float>& x) { return (Pack<float>)_mm256_sqrt_ps((__m256)x); }
inline Pack<double> sqrt(const Pack<double>& x) { return (Pack<double>)_mm256_sqrt_pd((__m256d)x); }

#if defined(__FMA__)
inline Pack<float> fma(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c) {
  return (Pack<float>)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
}
inline Pack<double> fma(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c) {
  return (Pack<double>)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
}
#else
using portable::fma;
#endif
template <class V>
inline V fma_lanes(const V& a, const V& b, const V& c, int first, int last) {
  return portable::blend_lanes(fma(a, b, c), c, first, last);
}

template <int Part, class W>
inline detail::Half<W> half(const W& w) {
  if constexpr (sizeof(W) == 32) return x86::half32<Part>(w);
  else return portable::half<Part>(w);
}
template <class H>
inline detail::Twice<H> join(const H& lo, const H& hi) {
  if constexpr (sizeof(H) == 16) return x86::join16(lo, hi);
  else return portable::join(lo, hi);
}

template <class M>
inline bool any(const M& m) {
  if constexpr (sizeof(M) == 32) return x86::any32(m);
  else if constexpr (sizeof(M) == 16) return x86::any16(m);
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
    const __m256i k = _mm256_cvttps_epi32((__m256)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m128i k = _mm256_cvttpd_epi32((__m256d)v);
    __builtin_memcpy(&r, &k, sizeof r);
  }
  return r;
}

template <class V>
inline V permute(const V& v, const IndexPack<V>& index) {
#if defined(__AVX2__)
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    return (V)_mm256_permutevar8x32_ps((__m256)v, (__m256i)index);
  else
#endif
    return portable::permute(v, index);
}

inline Pack<double> floor(const Pack<double>& x) {
  return (Pack<double>)_mm256_floor_pd((__m256d)x);
}

#if defined(__AVX2__)
template <class V>
inline V gather(const scalar_of_t<V>* table, const IndexPack<V>& index) {
  // (the masked forms with every lane set: see isa/avx512.hpp's gather)
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    return (V)_mm256_mask_i32gather_ps(_mm256_setzero_ps(), table, (__m256i)index,
                                       _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4);
  else
    return (V)_mm256_mask_i32gather_pd(_mm256_setzero_pd(), table, (__m128i)index,
                                       _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
}
#else
using portable::gather;
#endif
using portable::scatter;

}  // namespace unison::backends::host::isa
