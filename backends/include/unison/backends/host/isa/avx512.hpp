#pragma once
/// \file unison/backends/host/isa/avx512.hpp
/// The packs' operations with AVX-512 (F): 64-byte packs, masked lanes. The operations every
/// instruction set's file defines are listed in unison/backends/host/pack.hpp.
///
/// The masked forms of sqrt, roundscale, the conversions, permutes and gathers are called with
/// every lane set: the unmasked ones read an uninitialised register in GCC 12's headers, which
/// -Wuninitialized reports in the caller's code.

#include <type_traits>

#include <unison/backends/host/isa/x86.hpp>

UNISON_BACKENDS_LIBMVEC_FUNCTIONS(e, 16, 8, __m512, __m512d)

namespace unison::backends::host::isa {

template <class V>
inline V splat(scalar_of_t<V> s) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) return (V)_mm512_set1_ps(s);
  else return (V)_mm512_set1_pd(s);
}

inline Pack<float> sqrt(const Pack<float>& x) {
  return (Pack<float>)_mm512_mask_sqrt_ps((__m512)x, __mmask16(-1), (__m512)x);
}
inline Pack<double> sqrt(const Pack<double>& x) {
  return (Pack<double>)_mm512_mask_sqrt_pd((__m512d)x, __mmask8(-1), (__m512d)x);
}

inline Pack<float> fma(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c) {
  return (Pack<float>)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
}
inline Pack<double> fma(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c) {
  return (Pack<double>)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
}

inline Pack<float> fma_lanes(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c,
                             int first, int last) {
  const auto m = __mmask16((0xFFFFu >> (15 - last)) & (0xFFFFu << first));
  return (Pack<float>)_mm512_mask3_fmadd_ps((__m512)a, (__m512)b, (__m512)c, m);
}
inline Pack<double> fma_lanes(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c,
                              int first, int last) {
  const auto m = __mmask8((0xFFu >> (7 - last)) & (0xFFu << first));
  return (Pack<double>)_mm512_mask3_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c, m);
}

template <int Part, class W>
inline detail::Half<W> half(const W& w) {
  if constexpr (sizeof(W) == 64) {
    static_assert(Part == 0 || Part == 1);
    detail::Half<W> r;
    __m512i v;
    __builtin_memcpy(&v, &w, sizeof v);
    const __m256i h = _mm512_maskz_extracti64x4_epi64(__mmask8(-1), v, Part);
    __builtin_memcpy(&r, &h, sizeof r);
    return r;
  } else if constexpr (sizeof(W) == 32) {
    return x86::half32<Part>(w);
  } else {
    return portable::half<Part>(w);
  }
}

template <class H>
inline detail::Twice<H> join(const H& lo, const H& hi) {
  if constexpr (sizeof(H) == 32) {
    detail::Twice<H> r;
    __m256i a, b;
    __builtin_memcpy(&a, &lo, sizeof a);
    __builtin_memcpy(&b, &hi, sizeof b);
    const __m512i z = _mm512_setzero_si512();
    const __m512i v = _mm512_mask_inserti64x4(
        z, __mmask8(-1), _mm512_mask_inserti64x4(z, __mmask8(-1), z, a, 0), b, 1);
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
  } else if constexpr (sizeof(H) == 16) {
    return x86::join16(lo, hi);
  } else {
    return portable::join(lo, hi);
  }
}

template <class M>
inline bool any(const M& m) {
  if constexpr (sizeof(M) == 64) {
    __m512i w;
    __builtin_memcpy(&w, &m, sizeof w);
    return _mm512_test_epi32_mask(w, w) != 0;
  } else if constexpr (sizeof(M) == 32) {
    return x86::any32(m);
  } else if constexpr (sizeof(M) == 16) {
    return x86::any16(m);
  } else {
    return portable::any(m);
  }
}

// Floats: three masked comparisons and one test of the mask (a comparison's result as a vector,
// tested with `any`, costs three instructions more).
template <class V>
inline bool all_within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                       int bound) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
    __m512i kk;
    __builtin_memcpy(&kk, &k, sizeof kk);
    __mmask16 m = _mm512_cmp_ps_mask((__m512)x, _mm512_set1_ps(lo), _CMP_GE_OQ);
    m = _mm512_mask_cmp_ps_mask(m, (__m512)x, _mm512_set1_ps(hi), _CMP_LE_OQ);
    m = _mm512_mask_cmplt_epu32_mask(m, kk, _mm512_set1_epi32(bound));
    return m == __mmask16(0xFFFF);
  } else {
    return !any(portable::within(x, lo, hi, k, bound) == 0);
  }
}

template <class V>
inline IndexPack<V> truncate_to_index(const V& v) {
  IndexPack<V> r;
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
    const __m512i k = _mm512_maskz_cvttps_epi32(__mmask16(-1), (__m512)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m256i k = _mm512_maskz_cvttpd_epi32(__mmask8(-1), (__m512d)v);
    __builtin_memcpy(&r, &k, sizeof r);
  }
  return r;
}

template <class V>
inline V permute(const V& v, const IndexPack<V>& index) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
    return (V)_mm512_maskz_permutexvar_ps(__mmask16(-1), (__m512i)index, (__m512)v);
  } else {
    const __m512i wide = _mm512_maskz_cvtepi32_epi64(__mmask8(-1), (__m256i)index);
    return (V)_mm512_maskz_permutexvar_pd(__mmask8(-1), wide, (__m512d)v);
  }
}

inline Pack<double> floor(const Pack<double>& x) {
  return (Pack<double>)_mm512_mask_roundscale_pd((__m512d)x, __mmask8(-1), (__m512d)x,
                                                 _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
}

template <class V>
inline V gather(const scalar_of_t<V>* table, const IndexPack<V>& index) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    return (V)_mm512_mask_i32gather_ps(_mm512_setzero_ps(), __mmask16(-1), (__m512i)index, table,
                                       4);
  else
    return (V)_mm512_mask_i32gather_pd(_mm512_setzero_pd(), __mmask8(-1), (__m256i)index, table, 8);
}

template <class V>
inline void scatter(scalar_of_t<V>* p, const IndexPack<V>& index, const V& v) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    _mm512_i32scatter_ps(p, (__m512i)index, (__m512)v, 4);
  else _mm512_i32scatter_pd(p, (__m256i)index, (__m512d)v, 8);
}

}  // namespace unison::backends::host::isa
