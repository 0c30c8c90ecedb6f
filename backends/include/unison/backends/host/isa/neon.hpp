#pragma once
/// \file unison/backends/host/isa/neon.hpp
/// The packs' operations with 64-bit ARM's NEON (AdvSIMD): 16-byte packs with fused
/// multiply-add. exp, sin, cos and tanh call SLEEF's AdvSIMD functions of 1-ULP accuracy
/// (UNISON_HAVE_SLEEF; Debian's glibc has no ARM vector math), else each lane calls the scalar
/// function. The operations every instruction set's file defines are listed in
/// unison/backends/host/pack.hpp.

#include <arm_neon.h>

#include <cstdint>
#include <type_traits>

#include <unison/backends/host/isa/portable.hpp>
#include <unison/config.hpp>

#if UNISON_HAVE_SLEEF
#include <sleef.h>
#endif

namespace unison::backends::host::isa {

template <class V>
inline V splat(scalar_of_t<V> s) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>) return (V)vdupq_n_f32(s);
  else return (V)vdupq_n_f64(s);
}

#if UNISON_HAVE_SLEEF
// SLEEF's AdvSIMD functions with at most 1 ULP of error (the _u10 forms).
inline constexpr const char* vector_math = "SLEEF (AdvSIMD, 1-ULP functions)";
#define UNISON_BACKENDS_SLEEF_FUNCTION(name)                          \
  inline Pack<float> name(const Pack<float>& x) {                     \
    return (Pack<float>)Sleef_##name##f4_u10advsimd((float32x4_t)x);  \
  }                                                                   \
  inline Pack<double> name(const Pack<double>& x) {                   \
    return (Pack<double>)Sleef_##name##d2_u10advsimd((float64x2_t)x); \
  }
UNISON_BACKENDS_SLEEF_FUNCTION(exp)
UNISON_BACKENDS_SLEEF_FUNCTION(sin)
UNISON_BACKENDS_SLEEF_FUNCTION(cos)
UNISON_BACKENDS_SLEEF_FUNCTION(tanh)
#undef UNISON_BACKENDS_SLEEF_FUNCTION
#else
inline constexpr const char* vector_math = "scalar functions lane by lane";
using portable::cos;
using portable::exp;
using portable::sin;
using portable::tanh;
#endif

inline Pack<float> sqrt(const Pack<float>& x) { return (Pack<float>)vsqrtq_f32((float32x4_t)x); }
inline Pack<double> sqrt(const Pack<double>& x) { return (Pack<double>)vsqrtq_f64((float64x2_t)x); }

inline Pack<float> fma(const Pack<float>& a, const Pack<float>& b, const Pack<float>& c) {
  return (Pack<float>)vfmaq_f32((float32x4_t)c, (float32x4_t)a, (float32x4_t)b);
}
inline Pack<double> fma(const Pack<double>& a, const Pack<double>& b, const Pack<double>& c) {
  return (Pack<double>)vfmaq_f64((float64x2_t)c, (float64x2_t)a, (float64x2_t)b);
}
template <class V>
inline V fma_lanes(const V& a, const V& b, const V& c, int first, int last) {
  return portable::blend_lanes(fma(a, b, c), c, first, last);
}

using portable::half;
using portable::join;

template <class M>
inline bool any(const M& m) {
  if constexpr (sizeof(M) == 16) {
    uint32x4_t w;
    __builtin_memcpy(&w, &m, sizeof w);
    return vmaxvq_u32(w) != 0;
  } else if constexpr (sizeof(M) == 8) {
    uint32x2_t w;
    __builtin_memcpy(&w, &m, sizeof w);
    return vmaxv_u32(w) != 0;
  } else {
    return portable::any(m);
  }
}

template <class V>
inline bool all_within(const V& x, scalar_of_t<V> lo, scalar_of_t<V> hi, const IndexPack<V>& k,
                       int bound) {
  return !any(portable::within(x, lo, hi, k, bound) == 0);
}

// (NEON's conversions saturate, and give 0 for NaN: such lanes are set to INT32_MIN after)
template <class V>
inline IndexPack<V> truncate_to_index(const V& v) {
  using T = scalar_of_t<V>;
  IndexPack<V> r;
  if constexpr (std::is_same_v<T, float>) {
    const int32x4_t k = vcvtq_s32_f32((float32x4_t)v);
    __builtin_memcpy(&r, &k, sizeof r);
  } else {
    const int32x2_t k = vmovn_s64(vcvtq_s64_f64((float64x2_t)v));
    __builtin_memcpy(&r, &k, sizeof r);
  }
  const IndexPack<V> inside = convert<IndexPack<V>>((v >= T(-0x1p31)) & (v < T(0x1p31)));
  return inside ? r : IndexPack<V>{} + INT32_MIN;
}

// One byte-table lookup (tbl): byte b of lane l comes from byte b of lane index[l], in place of
// a load and a store a lane.
template <class V>
inline V permute(const V& v, const IndexPack<V>& index) {
  uint8x16_t bytes;
  if constexpr (sizeof(scalar_of_t<V>) == 4) {
    // lane l's bytes: 4 index[l] + (0, 1, 2, 3)
    uint32x4_t k;
    __builtin_memcpy(&k, &index, sizeof k);
    bytes = vreinterpretq_u8_u32(vmlaq_n_u32(vdupq_n_u32(0x03020100u), k, 0x04040404u));
  } else {
    // lane l's bytes: 8 index[l] + (0, ..., 7): each index's 8 k + (0, 1, 2, 3) made twice,
    // then 4 added to the upper four bytes of each lane
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
}

inline Pack<double> floor(const Pack<double>& x) {
  return (Pack<double>)vrndmq_f64((float64x2_t)x);
}

/// Whether this thread computes in the IEEE default mode: round to nearest, subnormal numbers
/// kept (FPCR: RMode bits 22-23 zero, no FZ bit 24).
inline bool ieee_float_mode() { return (__builtin_aarch64_get_fpcr() & 0x01c00000u) == 0; }

using portable::gather;
using portable::scatter;

}  // namespace unison::backends::host::isa
