#pragma once
/// \file unison/backends/simd.hpp
/// Packs: the CPU's vector registers as values, so that one kernel source computes a value per
/// GPU thread and a register of values per CPU work item. A pack is a host vector of
/// host_stream_bytes (unison/backends/memory.hpp): 16 floats or 8 doubles with AVX-512, 8 or 4
/// with AVX, 4 or 2 with SSE2 and with 64-bit ARM's NEON. Kernels write their arithmetic once for a
/// type V that is either the scalar T or a pack of T, using the operators and the functions below;
/// every function has a scalar form (device and host: Kokkos' math) and, on the host, a pack form.
///
/// The pack forms of exp, sin, cos and tanh call glibc's vector math library (libmvec: the
/// variants of its functions that GCC itself calls when it vectorises a loop under
/// -ffast-math), at the instruction set the caller is compiled for (AVX-512, AVX2, AVX or
/// SSE). No compiler flag is needed for it, and none is imposed on the caller. It was chosen
/// over SLEEF by measurement (docs/PERFORMANCE.md, "Vector math"). On 64-bit ARM they call SLEEF's
/// AdvSIMD (NEON) functions of 1-ULP accuracy (UNISON_HAVE_SLEEF): Debian's glibc has no ARM
/// libmvec. Where neither is available (UNISON_HAVE_LIBMVEC and UNISON_HAVE_SLEEF 0) each lane
/// calls the scalar function: the same results as the scalar code, without the speed.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <unison/backends/memory.hpp>
#include <unison/config.hpp>

#if UNISON_BACKENDS_HOST_VECTORS && UNISON_HAVE_LIBMVEC && defined(__x86_64__)
#define UNISON_BACKENDS_LIBMVEC 1
#else
#define UNISON_BACKENDS_LIBMVEC 0
#endif

#if UNISON_BACKENDS_LIBMVEC
// libmvec's entry points (the x86-64 vector function ABI: _ZGV<isa>N<lanes>v_<name>, isa b =
// SSE, c = AVX, d = AVX2, e = AVX-512).
#define UNISON_BACKENDS_MVEC_DECLARE(isa, fl, dl, F, D) \
  extern "C" {                                          \
  F _ZGV##isa##N##fl##v_expf(F);                        \
  F _ZGV##isa##N##fl##v_sinf(F);                        \
  F _ZGV##isa##N##fl##v_cosf(F);                        \
  F _ZGV##isa##N##fl##v_tanhf(F);                       \
  D _ZGV##isa##N##dl##v_exp(D);                         \
  D _ZGV##isa##N##dl##v_sin(D);                         \
  D _ZGV##isa##N##dl##v_cos(D);                         \
  D _ZGV##isa##N##dl##v_tanh(D);                        \
  }
#if defined(__AVX512F__)
UNISON_BACKENDS_MVEC_DECLARE(e, 16, 8, __m512, __m512d)
#define UNISON_BACKENDS_MVEC(name, lanes) _ZGVeN##lanes##v_##name
#define UNISON_BACKENDS_MVEC_F(name) UNISON_BACKENDS_MVEC(name, 16)
#define UNISON_BACKENDS_MVEC_D(name) UNISON_BACKENDS_MVEC(name, 8)
#elif defined(__AVX2__)
UNISON_BACKENDS_MVEC_DECLARE(d, 8, 4, __m256, __m256d)
#define UNISON_BACKENDS_MVEC(name, lanes) _ZGVdN##lanes##v_##name
#define UNISON_BACKENDS_MVEC_F(name) UNISON_BACKENDS_MVEC(name, 8)
#define UNISON_BACKENDS_MVEC_D(name) UNISON_BACKENDS_MVEC(name, 4)
#elif defined(__AVX__)
UNISON_BACKENDS_MVEC_DECLARE(c, 8, 4, __m256, __m256d)
#define UNISON_BACKENDS_MVEC(name, lanes) _ZGVcN##lanes##v_##name
#define UNISON_BACKENDS_MVEC_F(name) UNISON_BACKENDS_MVEC(name, 8)
#define UNISON_BACKENDS_MVEC_D(name) UNISON_BACKENDS_MVEC(name, 4)
#else
UNISON_BACKENDS_MVEC_DECLARE(b, 4, 2, __m128, __m128d)
#define UNISON_BACKENDS_MVEC(name, lanes) _ZGVbN##lanes##v_##name
#define UNISON_BACKENDS_MVEC_F(name) UNISON_BACKENDS_MVEC(name, 4)
#define UNISON_BACKENDS_MVEC_D(name) UNISON_BACKENDS_MVEC(name, 2)
#endif
#undef UNISON_BACKENDS_MVEC_DECLARE
#endif

#if UNISON_BACKENDS_HOST_VECTORS && defined(__aarch64__)
#include <arm_neon.h>
#endif
#if UNISON_BACKENDS_HOST_VECTORS && UNISON_HAVE_SLEEF && defined(__aarch64__)
#define UNISON_BACKENDS_SLEEF 1
#include <sleef.h>
#else
#define UNISON_BACKENDS_SLEEF 0
#endif

namespace unison::backends {

/// Whether V is a pack (a host vector of float or double).
template <class V>
inline constexpr bool is_pack_v = false;

/// The element type of V: T for a pack of T, V itself for a scalar.
template <class V, class = void>
struct scalar_of {
  using type = V;
};
template <class V>
using scalar_of_t = typename scalar_of<V>::type;

/// Lanes of V: host_stream_bytes / sizeof(T) for a pack of T, 1 for a scalar.
template <class V>
inline constexpr int lanes_v = int(sizeof(V) / sizeof(scalar_of_t<V>));

#if UNISON_BACKENDS_HOST_VECTORS
/// The pack of T (float or double).
template <class T>
using Pack = typename HostVector<T>::type;
template <>
inline constexpr bool is_pack_v<Pack<float>> = true;
template <>
inline constexpr bool is_pack_v<Pack<double>> = true;
template <class V>
struct scalar_of<V, std::enable_if_t<is_pack_v<V>>> {
  using type = std::remove_reference_t<decltype(std::declval<V>()[0])>;
};
/// Whether packs exist for T on this host.
template <class T>
inline constexpr bool has_pack_v = std::is_same_v<T, float> || std::is_same_v<T, double>;
/// Lanes of the pack of T (1 where T has no pack): usable where Pack<T> is not declared (the
/// device compilation of a CUDA build).
template <class T>
constexpr int pack_lanes() {
  if constexpr (has_pack_v<T>) return lanes_v<Pack<T>>;
  else return 1;
}
template <class T>
inline constexpr int pack_lanes_v = pack_lanes<T>();
#else
template <class T>
inline constexpr bool has_pack_v = false;
template <class T>
inline constexpr int pack_lanes_v = 1;
#endif

/// Every lane of V equal to s.
template <class V>
KOKKOS_FORCEINLINE_FUNCTION V splat(scalar_of_t<V> s) {
  if constexpr (is_pack_v<V>) {
#if UNISON_BACKENDS_HOST_VECTORS
    // (the broadcast instructions; not {} + s, which would turn -0 into +0)
    if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
#if defined(__aarch64__)
      return (V)vdupq_n_f32(s);
#elif defined(__AVX512F__)
      return (V)_mm512_set1_ps(s);
#elif defined(__AVX__)
      return (V)_mm256_set1_ps(s);
#else
      return (V)_mm_set1_ps(s);
#endif
    } else {
#if defined(__aarch64__)
      return (V)vdupq_n_f64(s);
#elif defined(__AVX512F__)
      return (V)_mm512_set1_pd(s);
#elif defined(__AVX__)
      return (V)_mm256_set1_pd(s);
#else
      return (V)_mm_set1_pd(s);
#endif
    }
#endif
  } else {
    return s;
  }
}

// Scalars: Kokkos' functions, callable on every backend.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T exp(T x) {
  return Kokkos::exp(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T sin(T x) {
  return Kokkos::sin(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T cos(T x) {
  return Kokkos::cos(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T tanh(T x) {
  return Kokkos::tanh(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T sqrt(T x) {
  return Kokkos::sqrt(x);
}
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T abs(T x) {
  return Kokkos::abs(x);
}
/// a * b + c with one rounding.
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION T fma(T a, T b, T c) {
  return Kokkos::fma(a, b, c);
}
/// Whether x is +-infinity (a lane mask for packs).
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
KOKKOS_FORCEINLINE_FUNCTION bool isinf(T x) {
  return Kokkos::isinf(x);
}

#if UNISON_BACKENDS_HOST_VECTORS
namespace detail {
// The signed integer pack of V's width and lane count (the type of V's comparisons).
template <class V>
using mask_t = decltype(std::declval<V>() < std::declval<V>());

// The intrinsics' types of a pack of float and of double.
#if defined(__aarch64__)
using FloatRegister = float32x4_t;
using DoubleRegister = float64x2_t;
#elif defined(__AVX512F__)
using FloatRegister = __m512;
using DoubleRegister = __m512d;
#elif defined(__AVX__)
using FloatRegister = __m256;
using DoubleRegister = __m256d;
#else
using FloatRegister = __m128;
using DoubleRegister = __m128d;
#endif

// f applied lane by lane.
template <class V, class F>
inline V per_lane(const V& v, const F& f) {
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = f(v[l]);
  return r;
}
}  // namespace detail

#if UNISON_BACKENDS_LIBMVEC
#define UNISON_BACKENDS_PACK_FUNCTION(name)                                        \
  inline Pack<float> name(const Pack<float>& x) {                                  \
    return (Pack<float>)UNISON_BACKENDS_MVEC_F(name##f)((detail::FloatRegister)x); \
  }                                                                                \
  inline Pack<double> name(const Pack<double>& x) {                                \
    return (Pack<double>)UNISON_BACKENDS_MVEC_D(name)((detail::DoubleRegister)x);  \
  }
#elif UNISON_BACKENDS_SLEEF
// SLEEF's AdvSIMD functions with at most 1 ULP of error (the _u10 forms).
#define UNISON_BACKENDS_PACK_FUNCTION(name)                                      \
  inline Pack<float> name(const Pack<float>& x) {                                \
    return (Pack<float>)Sleef_##name##f4_u10advsimd((detail::FloatRegister)x);   \
  }                                                                              \
  inline Pack<double> name(const Pack<double>& x) {                              \
    return (Pack<double>)Sleef_##name##d2_u10advsimd((detail::DoubleRegister)x); \
  }
#else
#define UNISON_BACKENDS_PACK_FUNCTION(name)                            \
  inline Pack<float> name(const Pack<float>& x) {                      \
    return detail::per_lane(x, [](float v) { return std::name(v); });  \
  }                                                                    \
  inline Pack<double> name(const Pack<double>& x) {                    \
    return detail::per_lane(x, [](double v) { return std::name(v); }); \
  }
#endif
UNISON_BACKENDS_PACK_FUNCTION(exp)
UNISON_BACKENDS_PACK_FUNCTION(sin)
UNISON_BACKENDS_PACK_FUNCTION(cos)
UNISON_BACKENDS_PACK_FUNCTION(tanh)
#undef UNISON_BACKENDS_PACK_FUNCTION

inline Pack<float> sqrt(const Pack<float>& x) {
#if defined(__aarch64__)
  return (Pack<float>)vsqrtq_f32((float32x4_t)x);
#elif defined(__AVX512F__)
  return (Pack<float>)_mm512_mask_sqrt_ps((__m512)x, __mmask16(-1), (__m512)x);
#elif defined(__AVX__)
  return (Pack<float>)_mm256_sqrt_ps((__m256)x);
#else
  return (Pack<float>)_mm_sqrt_ps((__m128)x);
#endif
}
inline Pack<double> sqrt(const Pack<double>& x) {
#if defined(__aarch64__)
  return (Pack<double>)vsqrtq_f64((float64x2_t)x);
#elif defined(__AVX512F__)
  return (Pack<double>)_mm512_mask_sqrt_pd((__m512d)x, __mmask8(-1), (__m512d)x);
#elif defined(__AVX__)
  return (Pack<double>)_mm256_sqrt_pd((__m256d)x);
#else
  return (Pack<double>)_mm_sqrt_pd((__m128d)x);
#endif
}

/// |x| lane by lane (the sign bit cleared: also for -0 and NaN).
template <class V, class = std::enable_if_t<is_pack_v<V>>>
inline V abs(const V& x) {
  using M = detail::mask_t<V>;
  using I = std::remove_reference_t<decltype(std::declval<M>()[0])>;
  return (V)((M)x & I(~(std::uint64_t(1) << (8 * sizeof(I) - 1))));
}

/// Lanes of x that are +-infinity (all bits set), the others 0.
template <class V, class = std::enable_if_t<is_pack_v<V>>>
inline detail::mask_t<V> isinf(const V& x) {
  return abs(x) == splat<V>(std::numeric_limits<scalar_of_t<V>>::infinity());
}

/// a * b + c lane by lane, with one rounding (the FMA instructions where the caller's
/// instruction set has them).
inline Pack<float> fma(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c) {
#if defined(__aarch64__)
  return (Pack<float>)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
#elif defined(__AVX512F__)
  return (Pack<float>)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__)
  return (Pack<float>)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  Pack<float> r;
  for (int l = 0; l < lanes_v<Pack<float>>; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
#endif
}
inline Pack<double> fma(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c) {
#if defined(__aarch64__)
  return (Pack<double>)vfmaq_f64((float64x2_t)c, (float64x2_t)a, (float64x2_t)b);
#elif defined(__AVX512F__)
  return (Pack<double>)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__)
  return (Pack<double>)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
  Pack<double> r;
  for (int l = 0; l < lanes_v<Pack<double>>; ++l) r[l] = std::fma(a[l], b[l], c[l]);
  return r;
#endif
}

/// a * b + c in lanes first to last (inclusive) of the packs, with one rounding; c in the
/// other lanes (neither a nor b is used there, so an infinity or NaN of theirs does not leak).
inline Pack<float> fma_lanes(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c,
                             int first, int last) {
#if defined(__AVX512F__)
  const auto m = __mmask16((0xFFFFu >> (15 - last)) & (0xFFFFu << first));
  return (Pack<float>)_mm512_mask3_fmadd_ps((__m512)a, (__m512)b, (__m512)c, m);
#else
  const Pack<float> f = fma(a, b, c);
  Pack<float> r = c;
  for (int l = first; l <= last; ++l) r[l] = f[l];
  return r;
#endif
}
inline Pack<double> fma_lanes(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c,
                              int first, int last) {
#if defined(__AVX512F__)
  const auto m = __mmask8((0xFFu >> (7 - last)) & (0xFFu << first));
  return (Pack<double>)_mm512_mask3_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c, m);
#else
  const Pack<double> f = fma(a, b, c);
  Pack<double> r = c;
  for (int l = first; l <= last; ++l) r[l] = f[l];
  return r;
#endif
}

namespace detail {
template <int Bytes>
struct Int32Vector;
template <>
struct Int32Vector<8> {
  typedef std::int32_t type __attribute__((vector_size(8)));
};
template <>
struct Int32Vector<16> {
  typedef std::int32_t type __attribute__((vector_size(16)));
};
template <>
struct Int32Vector<32> {
  typedef std::int32_t type __attribute__((vector_size(32)));
};
template <>
struct Int32Vector<64> {
  typedef std::int32_t type __attribute__((vector_size(64)));
};
// A vector of N values of T (float or double).
template <class T, int N>
struct VectorOf {
  typedef T type __attribute__((vector_size(N * sizeof(T))));
};
}  // namespace detail

/// The 32-bit integer pack with V's lanes (V's lane indices, bin numbers).
template <class V>
using IndexPack = typename detail::Int32Vector<lanes_v<V> * 4>::type;

/// A vector of N values of T (float or double): a Pack<double>'s worth of floats, say. (An alias
/// template: nvcc's host code loses the `typename` of a dependent VectorOf<T, N>::type written
/// inside a class template, which g++ 12 then refuses.)
template <class T, int N>
using VectorN = typename detail::VectorOf<T, N>::type;

namespace detail {
template <class E, int Bytes>
struct GenericVector {
  typedef E type __attribute__((vector_size(Bytes)));
};
template <class W>
using Half = typename GenericVector<
    std::remove_cv_t<std::remove_reference_t<decltype(std::declval<W>()[0])>>,
    int(sizeof(W) / 2)>::type;
template <class H>
using Twice = typename GenericVector<
    std::remove_cv_t<std::remove_reference_t<decltype(std::declval<H>()[0])>>,
    int(sizeof(H) * 2)>::type;
}  // namespace detail

/// The lower (Part 0) or upper (Part 1) half of the lanes of a host vector w (a pack, an index
/// pack or a comparison's result), in registers: a pack of floats' half converts to a pack of
/// doubles, say. (Copying bytes out of the middle of a vector went through memory, and the
/// narrower reload waited for the wide store.)
template <int Part, class W>
inline detail::Half<W> half(const W& w) {
  static_assert(Part == 0 || Part == 1);
  detail::Half<W> r;
#if defined(__AVX512F__)
  if constexpr (sizeof(W) == 64) {
    __m512i v;
    __builtin_memcpy(&v, &w, sizeof v);
    // (the zero-masked form with every lane set: see gather below)
    const __m256i h = _mm512_maskz_extracti64x4_epi64(__mmask8(-1), v, Part);
    __builtin_memcpy(&r, &h, sizeof r);
    return r;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(W) == 32) {
    __m256i v;
    __builtin_memcpy(&v, &w, sizeof v);
    const __m128i h = Part == 0 ? _mm256_castsi256_si128(v) : _mm256_extractf128_si256(v, 1);
    __builtin_memcpy(&r, &h, sizeof r);
    return r;
  }
#endif
  __builtin_memcpy(&r, reinterpret_cast<const char*>(&w) + Part * sizeof r, sizeof r);
  return r;
}

/// The host vector of lo's lanes followed by hi's (the inverse of half).
template <class H>
inline detail::Twice<H> join(const H& lo, const H& hi) {
  detail::Twice<H> r;
#if defined(__AVX512F__)
  if constexpr (sizeof(H) == 32) {
    __m256i a, b;
    __builtin_memcpy(&a, &lo, sizeof a);
    __builtin_memcpy(&b, &hi, sizeof b);
    const __m512i z = _mm512_setzero_si512();
    const __m512i v = _mm512_mask_inserti64x4(
        z, __mmask8(-1), _mm512_mask_inserti64x4(z, __mmask8(-1), z, a, 0), b, 1);
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(H) == 16) {
    __m128i a, b;
    __builtin_memcpy(&a, &lo, sizeof a);
    __builtin_memcpy(&b, &hi, sizeof b);
    const __m256i v = _mm256_insertf128_si256(_mm256_castsi128_si256(a), b, 1);
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
  }
#endif
  __builtin_memcpy(&r, &lo, sizeof lo);
  __builtin_memcpy(reinterpret_cast<char*>(&r) + sizeof lo, &hi, sizeof hi);
  return r;
}

/// Whether any lane of the mask m (a comparison's result) is set.
template <class M>
inline bool any(const M& m) {
#if defined(__AVX512F__)
  if constexpr (sizeof(M) == 64) {
    __m512i w;
    __builtin_memcpy(&w, &m, sizeof w);
    return _mm512_test_epi32_mask(w, w) != 0;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(M) == 32) {
    __m256i w;
    __builtin_memcpy(&w, &m, sizeof w);
    return !_mm256_testz_si256(w, w);
  }
#endif
#if defined(__aarch64__)
  if constexpr (sizeof(M) == 16) {
    uint32x4_t w;
    __builtin_memcpy(&w, &m, sizeof w);
    return vmaxvq_u32(w) != 0;
  } else if constexpr (sizeof(M) == 8) {
    uint32x2_t w;
    __builtin_memcpy(&w, &m, sizeof w);
    return vmaxv_u32(w) != 0;
  } else {
#else
  if constexpr (sizeof(M) == 16) {
    __m128i w;
    __builtin_memcpy(&w, &m, sizeof w);
    return _mm_movemask_epi8(w) != 0;
  } else {
#endif
    for (int l = 0; l < int(sizeof(M) / sizeof(m[0])); ++l)
      if (m[l]) return true;
    return false;
  }
}

/// Whether every lane of the mask m (a comparison's result) is set.
template <class M>
inline bool all(const M& m) {
  return !any(m == 0);
}

/// Whether every lane l has lo <= x[l] <= hi (not NaN) and 0 <= k[l] < bound: with AVX-512, three
/// masked comparisons and one test of the mask (a comparison's result as a vector, tested with
/// `all`, costs three instructions more).
template <class V>
inline bool all_within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                       int bound) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) {
    __m512i kk;
    __builtin_memcpy(&kk, &k, sizeof kk);
    __mmask16 m = _mm512_cmp_ps_mask((__m512)x, _mm512_set1_ps(lo), _CMP_GE_OQ);
    m = _mm512_mask_cmp_ps_mask(m, (__m512)x, _mm512_set1_ps(hi), _CMP_LE_OQ);
    m = _mm512_mask_cmplt_epu32_mask(m, kk, _mm512_set1_epi32(bound));
    return m == __mmask16(0xFFFF);
  }
#endif
  using U = typename detail::GenericVector<std::uint32_t, int(sizeof(k))>::type;
  const IndexPack<V> in = __builtin_convertvector((x >= lo) & (x <= hi), IndexPack<V>);
  return all(in & ((U)k < (U)(IndexPack<V>{} + bound)));
}

/// Each lane of the pack v truncated toward zero to a 32-bit integer, and INT32_MIN where it is
/// NaN or outside the 32-bit range (the CPU's conversion, which C++'s leaves undefined).
template <class V>
inline IndexPack<V> truncate_to_index(const V& v) {
  using T = scalar_of_t<V>;
  IndexPack<V> r;
#if defined(__aarch64__)
  // (NEON's conversions saturate, and give 0 for NaN: such lanes are set to INT32_MIN after)
  if constexpr (std::is_same_v<T, float>) {
    const int32x4_t k = vcvtq_s32_f32((float32x4_t)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const int32x2_t k = vmovn_s64(vcvtq_s64_f64((float64x2_t)v));
    __builtin_memcpy(&r, &k, sizeof r);
  }
  const IndexPack<V> inside =
      __builtin_convertvector((v >= T(-0x1p31)) & (v < T(0x1p31)), IndexPack<V>);
  r = inside ? r : IndexPack<V>{} + INT32_MIN;
#elif defined(__AVX512F__)
  // (the zero-masked forms with every lane set: see gather below)
  if constexpr (std::is_same_v<T, float>) {
    const __m512i k = _mm512_maskz_cvttps_epi32(__mmask16(-1), (__m512)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m256i k = _mm512_maskz_cvttpd_epi32(__mmask8(-1), (__m512d)v);
    __builtin_memcpy(&r, &k, sizeof r);
  }
#elif defined(__AVX__)
  if constexpr (std::is_same_v<T, float>) {
    const __m256i k = _mm256_cvttps_epi32((__m256)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m128i k = _mm256_cvttpd_epi32((__m256d)v);
    __builtin_memcpy(&r, &k, sizeof r);
  }
#else
  if constexpr (std::is_same_v<T, float>) {
    const __m128i k = _mm_cvttps_epi32((__m128)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const __m128i k = _mm_cvttpd_epi32((__m128d)v);  // the two lanes in the low half
    __builtin_memcpy(&r, &k, sizeof r);
  }
#endif
  return r;
}

/// v's lanes rearranged: lane l of the result is v[index[l]] (every index below V's lanes): one
/// permute instruction with AVX-512 (and AVX2 for floats), a byte-table lookup with NEON, else
/// lane by lane.
template <class V>
inline V permute(const V& v, const IndexPack<V>& index) {
#if defined(__AVX512F__) || defined(__AVX2__)
  using T = scalar_of_t<V>;
#endif
#if defined(__AVX512F__)
  // (the zero-masked forms with every lane set: see gather below)
  if constexpr (std::is_same_v<T, float>) {
    return (V)_mm512_maskz_permutexvar_ps(__mmask16(-1), (__m512i)index, (__m512)v);
  } else {
    const __m512i wide = _mm512_maskz_cvtepi32_epi64(__mmask8(-1), (__m256i)index);
    return (V)_mm512_maskz_permutexvar_pd(__mmask8(-1), wide, (__m512d)v);
  }
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>)
    return (V)_mm256_permutevar8x32_ps((__m256)v, (__m256i)index);
#elif defined(__aarch64__)
  // One byte-table lookup (tbl): byte b of lane l comes from byte b of lane index[l], in place
  // of a load and a store a lane.
  uint8x16_t bytes;
  if constexpr (sizeof(scalar_of_t<V>) == 4) {
    uint32x4_t k;
    __builtin_memcpy(&k, &index, sizeof k);
    bytes = vreinterpretq_u8_u32(vmlaq_n_u32(vdupq_n_u32(0x03020100u), k, 0x04040404u));
  } else {
    uint32x2_t k;
    __builtin_memcpy(&k, &index, sizeof k);
    const uint32x2_t first = vmla_n_u32(vdup_n_u32(0x03020100u), k, 0x08080808u);
    const uint32x4_t lanes = vzip1q_u32(vcombine_u32(first, first), vcombine_u32(first, first));
    bytes = vaddq_u8(vreinterpretq_u8_u32(lanes),
                     vreinterpretq_u8_u64(vdupq_n_u64(0x0404040400000000ull)));
  }
  uint8x16_t data;
  __builtin_memcpy(&data, &v, sizeof data);
  const uint8x16_t permuted = vqtbl1q_u8(data, bytes);
  V r;
  __builtin_memcpy(&r, &permuted, sizeof r);
  return r;
#endif
#if !defined(__aarch64__)
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = v[index[l]];
  return r;
#endif
}

/// The largest integral value not above each lane.
inline Pack<double> floor(const Pack<double>& x) {
#if defined(__aarch64__)
  return (Pack<double>)vrndmq_f64((float64x2_t)x);
#elif defined(__AVX512F__)
  return (Pack<double>)_mm512_mask_roundscale_pd((__m512d)x, __mmask8(-1), (__m512d)x,
                                                 _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
#elif defined(__AVX__)
  return (Pack<double>)_mm256_floor_pd((__m256d)x);
#elif defined(__SSE4_1__)
  return (Pack<double>)_mm_floor_pd((__m128d)x);
#else
  return detail::per_lane(x, [](double v) { return std::floor(v); });
#endif
}

/// table[index[l]] in each lane l (the gather instructions where the instruction set has them).
template <class V>
inline V gather(const scalar_of_t<V>* table, const IndexPack<V>& index) {
#if defined(__AVX512F__) || defined(__AVX2__)
  using T = scalar_of_t<V>;
#endif
  // (the masked forms, with every lane set, here and for AVX-512's sqrt and roundscale: the
  // unmasked ones read an uninitialised register in GCC 12's headers, which -Wuninitialized
  // reports in the caller's code)
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>)
    return (V)_mm512_mask_i32gather_ps(_mm512_setzero_ps(), __mmask16(-1), (__m512i)index, table,
                                       4);
  else
    return (V)_mm512_mask_i32gather_pd(_mm512_setzero_pd(), __mmask8(-1), (__m256i)index, table, 8);
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>)
    return (V)_mm256_mask_i32gather_ps(_mm256_setzero_ps(), table, (__m256i)index,
                                       _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4);
  else
    return (V)_mm256_mask_i32gather_pd(_mm256_setzero_pd(), table, (__m128i)index,
                                       _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), 8);
#else
  V r;
  for (int l = 0; l < lanes_v<V>; ++l) r[l] = table[index[l]];
  return r;
#endif
}

/// p[index[l]] = v[l] for each lane l (the scatter instructions where the instruction set has
/// them, else lane by lane); no two lanes may name the same element.
template <class V>
inline void scatter(scalar_of_t<V>* p, const IndexPack<V>& index, const V& v) {
#if defined(__AVX512F__)
  using T = scalar_of_t<V>;
  if constexpr (std::is_same_v<T, float>) _mm512_i32scatter_ps(p, (__m512i)index, (__m512)v, 4);
  else _mm512_i32scatter_pd(p, (__m256i)index, (__m512d)v, 8);
#else
  for (int l = 0; l < lanes_v<V>; ++l) p[index[l]] = v[l];
#endif
}

/// 1 where increment16 counts with AVX-512's gather and scatter: AVX-512 targets other than
/// AMD's (Zen 3/4/5 tunings), whose scatter is microcoded and slower than increments one by one
/// (docs/tuning.md, HistogramTuning).
#if defined(__AVX512F__) && !(defined(__znver3__) || defined(__znver4__) || defined(__znver5__))
#define UNISON_BACKENDS_SCATTER_COUNTS 1
inline constexpr bool scatter_counts = true;
#else
inline constexpr bool scatter_counts = false;
#endif

/// ++counters[offsets[l]] for the 16 offsets at `offsets`, which name 16 different counters:
/// where UNISON_BACKENDS_SCATTER_COUNTS, one gather, one add and one scatter; else one by one.
inline void increment16(std::uint32_t* counters, const std::int32_t* offsets) {
#if defined(UNISON_BACKENDS_SCATTER_COUNTS)
  const __m512i o = _mm512_loadu_si512(offsets);
  const __m512i c =
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), __mmask16(-1), o, counters, 4);
  _mm512_i32scatter_epi32(counters, o, _mm512_add_epi32(c, _mm512_set1_epi32(1)), 4);
#else
  for (int l = 0; l < 16; ++l) ++counters[offsets[l]];
#endif
}

#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
/// 1 where the 8-bit forms of pixels3_to_float exist: AVX-512 with VBMI (its byte permutes),
/// where a pack holds 16 floats. (GCC 12 vectorises a loop over 3-byte pixels by moving the bytes
/// one at a time.)
#define UNISON_BACKENDS_PIXELS3 1
namespace detail {
// The byte permutes that put channel c of pixels 16 q + l (l < 16) into byte 0 of 32-bit lane l,
// from the 64 bytes loaded at the quarter's start (48 q; the last quarter's load starts 16 bytes
// early, at 128, to stay within the 192 bytes). Only bytes 0 of each lane are permuted (the others
// are zeroed by the mask), so each result is already the 16 channel values as 32-bit integers.
struct Pixels3Index {
  alignas(64) std::uint8_t lanes[3][4][64];
  constexpr Pixels3Index() : lanes{} {
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 4; ++q)
        for (int l = 0; l < 16; ++l)
          lanes[c][q][4 * l] = std::uint8_t(3 * l + c + (q == 3 ? 16 : 0));
  }
};
inline constexpr Pixels3Index pixels3_index{};

// The three channels of quarter q (pixels 16 q to 16 q + 15) from its 64 loaded bytes a, as
// floats in out[c][q].
inline void pixels3_quarter(const __m512i a, int q, Pack<float> (&out)[3][4]) {
  constexpr __mmask64 low_bytes = 0x1111111111111111ull;  // byte 0 of every 32-bit lane
  for (int c = 0; c < 3; ++c)
    // (The zero-masked conversion, every lane kept: GCC 12 warns that the plain form's
    // undefined pass-through operand may be used uninitialised.)
    out[c][q] = (Pack<float>)_mm512_maskz_cvtepi32_ps(
        0xFFFF,
        _mm512_maskz_permutexvar_epi8(low_bytes, _mm512_load_si512(pixels3_index.lanes[c][q]), a));
}
}  // namespace detail

/// The 64 pixels of 3 bytes at p (192 bytes, any alignment: c0 c1 c2 c0 c1 c2 ...), as floats:
/// channel c of pixel 16 q + l in lane l of out[c][q]. Four overlapping loads, then one
/// single-register byte permute per pack (vpermb); an earlier form, two two-register vpermt2b a
/// channel and the widening of 16-byte parts, took 1.5 times as long on one Sapphire Rapids core
/// (the probe tools/probes/cpu-grayscale-probe.cpp at commit 8b34b4f; benchmarks/RESULTS.md).
inline void pixels3_to_float(const std::uint8_t* p, Pack<float> (&out)[3][4]) {
  for (int q = 0; q < 4; ++q)
    detail::pixels3_quarter(_mm512_loadu_si512(p + (q == 3 ? 128 : 48 * q)), q, out);
}

/// pixels3_to_float for the first n pixels at p, 0 < n < 64 (a row's last pixels): masked loads
/// read the 3 n bytes and nothing past them; the lanes of pixels n and later hold zeros or the
/// channels of pixels before n, and are not to be used.
inline void pixels3_to_float(const std::uint8_t* p, int n, Pack<float> (&out)[3][4]) {
  for (int q = 0; q < 4; ++q) {
    const int start = q == 3 ? 128 : 48 * q, bytes = 3 * n - start;
    detail::pixels3_quarter(
        bytes <= 0 ? _mm512_setzero_si512()
                   : _mm512_maskz_loadu_epi8(
                         bytes >= 64 ? ~__mmask64(0) : (__mmask64(1) << bytes) - 1, p + start),
        q, out);
  }
}

/// Stores the first n (at most 16) values of v, in [0, 256), truncated to bytes, at p (any
/// alignment).
inline void store_bytes_truncated(std::uint8_t* p, const Pack<float>& v, int n = 16) {
  const __m512i i = _mm512_maskz_cvttps_epi32(0xFFFF, (__m512)v);
  if (n == 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_maskz_cvtepi32_epi8(0xFFFF, i));
  else _mm512_mask_cvtepi32_storeu_epi8(p, __mmask16((1u << n) - 1), i);
}
#endif

#if defined(__AVX512F__)
/// 1 where the float form of pixels3_to_float exists: AVX-512, where a pack holds 16 floats.
#define UNISON_BACKENDS_PIXELS3_FLOAT 1
namespace detail {
// The two-register permutes that gather channel c of 16 pixels of 3 floats (floats 3 l + c,
// l < 16) from three 16-float registers a0, a1, a2: first those below 32 from a0 and a1, then
// the rest from a2 into the lanes still unset.
struct Pixels3FloatIndex {
  alignas(64) std::int32_t first[3][16], second[3][16];
  constexpr Pixels3FloatIndex() : first{}, second{} {
    for (int c = 0; c < 3; ++c)
      for (int l = 0; l < 16; ++l) {
        const int at = 3 * l + c;
        first[c][l] = at < 32 ? at : 0;
        second[c][l] = at < 32 ? l : 16 + at - 32;
      }
  }
};
inline constexpr Pixels3FloatIndex pixels3_float_index{};
}  // namespace detail

/// The 16 pixels of 3 floats at p (48 floats, any alignment: c0 c1 c2 c0 c1 c2 ...): channel c
/// of pixel l in lane l of out[c]. Three loads and two permutes (vpermt2ps) a channel; GCC 12's
/// vectorisation of the same loop took 1.1-1.4 times as long on one Sapphire Rapids core
/// (the probe tools/probes/cpu-grayscale-ceiling-probe.cpp at commit 8b34b4f).
inline void pixels3_to_float(const float* p, Pack<float> (&out)[3]) {
  const __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16), a2 = _mm512_loadu_ps(p + 32);
  for (int c = 0; c < 3; ++c)
    out[c] = (Pack<float>)_mm512_permutex2var_ps(
        _mm512_permutex2var_ps(a0, _mm512_load_si512(detail::pixels3_float_index.first[c]), a1),
        _mm512_load_si512(detail::pixels3_float_index.second[c]), a2);
}
#endif

/// The vector V of the values from p (any alignment).
template <class V, class T>
inline V load(const T* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
/// The first n values from p in V's first n lanes, the other lanes 0.
template <class V, class T>
inline V load_partial(const T* p, int n) {
  V v = {};
  __builtin_memcpy(&v, p, std::size_t(n) * sizeof(T));
  return v;
}
/// Stores v at p (any alignment).
template <class V, class T>
inline void store(T* p, const V& v) {
  __builtin_memcpy(p, &v, sizeof v);
}
/// Stores v's first n lanes at p.
template <class V, class T>
inline void store_partial(T* p, const V& v, int n) {
  __builtin_memcpy(p, &v, std::size_t(n) * sizeof(T));
}
#endif

}  // namespace unison::backends

#ifndef UNISON_BACKENDS_PIXELS3
#define UNISON_BACKENDS_PIXELS3 0
#endif
#ifndef UNISON_BACKENDS_PIXELS3_FLOAT
#define UNISON_BACKENDS_PIXELS3_FLOAT 0
#endif
