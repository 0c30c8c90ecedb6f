#pragma once
/// \file unison/backends/host/isa/x86.hpp
/// What the x86-64 instruction sets' files share: forms for 16- and 32-byte host vectors that
/// AVX-512 and AVX use for their narrower vectors, and glibc's vector math (libmvec: the
/// variants of its functions that GCC itself calls when it vectorises a loop under -ffast-math).

#include <immintrin.h>

#include <unison/backends/host/isa/portable.hpp>
#include <unison/config.hpp>

#if UNISON_HAVE_LIBMVEC && defined(__x86_64__)
// libmvec's entry points (the x86-64 vector function ABI: _ZGV<isa>N<lanes>v_<name>, isa b =
// SSE, c = AVX, d = AVX2, e = AVX-512), declared and called as exp, sin, cos and tanh of packs
// in the namespace where this is expanded.
#define UNISON_BACKENDS_LIBMVEC_FUNCTIONS(abi, fl, dl, F, D)  \
  extern "C" {                                                \
  F _ZGV##abi##N##fl##v_expf(F);                              \
  F _ZGV##abi##N##fl##v_sinf(F);                              \
  F _ZGV##abi##N##fl##v_cosf(F);                              \
  F _ZGV##abi##N##fl##v_tanhf(F);                             \
  D _ZGV##abi##N##dl##v_exp(D);                               \
  D _ZGV##abi##N##dl##v_sin(D);                               \
  D _ZGV##abi##N##dl##v_cos(D);                               \
  D _ZGV##abi##N##dl##v_tanh(D);                              \
  }                                                           \
  namespace unison::backends::host::isa {                     \
  inline constexpr const char* vector_math = "glibc libmvec"; \
  inline Pack<float> exp(const Pack<float>& x) {              \
    return (Pack<float>)_ZGV##abi##N##fl##v_expf((F)x);       \
  }                                                           \
  inline Pack<float> sin(const Pack<float>& x) {              \
    return (Pack<float>)_ZGV##abi##N##fl##v_sinf((F)x);       \
  }                                                           \
  inline Pack<float> cos(const Pack<float>& x) {              \
    return (Pack<float>)_ZGV##abi##N##fl##v_cosf((F)x);       \
  }                                                           \
  inline Pack<float> tanh(const Pack<float>& x) {             \
    return (Pack<float>)_ZGV##abi##N##fl##v_tanhf((F)x);      \
  }                                                           \
  inline Pack<double> exp(const Pack<double>& x) {            \
    return (Pack<double>)_ZGV##abi##N##dl##v_exp((D)x);       \
  }                                                           \
  inline Pack<double> sin(const Pack<double>& x) {            \
    return (Pack<double>)_ZGV##abi##N##dl##v_sin((D)x);       \
  }                                                           \
  inline Pack<double> cos(const Pack<double>& x) {            \
    return (Pack<double>)_ZGV##abi##N##dl##v_cos((D)x);       \
  }                                                           \
  inline Pack<double> tanh(const Pack<double>& x) {           \
    return (Pack<double>)_ZGV##abi##N##dl##v_tanh((D)x);      \
  }                                                           \
  }
#else
// Without libmvec: lane by lane through the scalar functions.
#define UNISON_BACKENDS_LIBMVEC_FUNCTIONS(abi, fl, dl, F, D)                  \
  namespace unison::backends::host::isa {                                     \
  inline constexpr const char* vector_math = "scalar functions lane by lane"; \
  using portable::cos;                                                        \
  using portable::exp;                                                        \
  using portable::sin;                                                        \
  using portable::tanh;                                                       \
  }
#endif

namespace unison::backends::host::isa {
/// Whether this thread computes in the IEEE default mode: round to nearest, subnormal numbers
/// kept (MXCSR: RC bits 13-14 zero, no FTZ bit 15, no DAZ bit 6).
inline bool ieee_float_mode() { return (_mm_getcsr() & 0xe040u) == 0; }
}  // namespace unison::backends::host::isa

namespace unison::backends::host::x86 {

/// Whether any lane of the 16-byte mask m is set.
template <class M>
inline bool any16(const M& m) {
  static_assert(sizeof(M) == 16);
  __m128i w;
  __builtin_memcpy(&w, &m, sizeof w);
  return _mm_movemask_epi8(w) != 0;
}

#if defined(__AVX__)
/// Whether any lane of the 32-byte mask m is set.
template <class M>
inline bool any32(const M& m) {
  static_assert(sizeof(M) == 32);
  __m256i w;
  __builtin_memcpy(&w, &m, sizeof w);
  return !_mm256_testz_si256(w, w);
}

/// Half Part of the 32-byte host vector w, in registers.
template <int Part, class W>
inline detail::Half<W> half32(const W& w) {
  static_assert(sizeof(W) == 32 && (Part == 0 || Part == 1));
  detail::Half<W> r;
  __m256i v;
  __builtin_memcpy(&v, &w, sizeof v);
  const __m128i h = Part == 0 ? _mm256_castsi256_si128(v) : _mm256_extractf128_si256(v, 1);
  __builtin_memcpy(&r, &h, sizeof r);
  return r;
}

/// The 32-byte host vector of the 16-byte lo's lanes followed by hi's, in registers.
template <class H>
inline detail::Twice<H> join16(const H& lo, const H& hi) {
  static_assert(sizeof(H) == 16);
  detail::Twice<H> r;
  __m128i a, b;
  __builtin_memcpy(&a, &lo, sizeof a);
  __builtin_memcpy(&b, &hi, sizeof b);
  const __m256i v = _mm256_insertf128_si256(_mm256_castsi128_si256(a), b, 1);
  __builtin_memcpy(&r, &v, sizeof r);
  return r;
}
#endif

}  // namespace unison::backends::host::x86
