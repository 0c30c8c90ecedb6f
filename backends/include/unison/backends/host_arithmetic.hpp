#pragma once
/// \file unison/backends/host_arithmetic.hpp
/// Arithmetic on host vectors (unison/backends/memory.hpp) that some CPUs do slowly.

#include <unison/backends/memory.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#if UNISON_BACKENDS_HOST_VECTORS && defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace unison::backends {

#if UNISON_BACKENDS_HOST_VECTORS
/// True if any lane of v (a host vector of 32-bit integers) is nonzero.
template <class IVec>
inline bool any_lane(const IVec& v) {
  static_assert(sizeof(IVec) == host_stream_bytes);
#if defined(__aarch64__)
  uint32x4_t w;
  __builtin_memcpy(&w, &v, sizeof w);
  return vmaxvq_u32(w) != 0;
#elif defined(__AVX512F__)
  __m512i w;
  __builtin_memcpy(&w, &v, sizeof w);
  return _mm512_test_epi32_mask(w, w) != 0;
#elif defined(__AVX__)
  __m256i w;
  __builtin_memcpy(&w, &v, sizeof w);
  return !_mm256_testz_si256(w, w);
#else
  __m128i w;
  __builtin_memcpy(&w, &v, sizeof w);
  return _mm_movemask_epi8(_mm_cmpeq_epi32(w, _mm_setzero_si128())) != 0xffff;
#endif
}
#endif

/// c * x, lane by lane, for host vectors of T: bitwise the IEEE product in the thread's
/// floating-point mode. Why: x86 cores take a microcode assist (a hundred or more cycles) for
/// every multiply whose operand or result is subnormal, and none for additions; in the jagged
/// field's diffusion fronts one vector in twenty holds such a number for thousands of steps.
///
/// For float, with 2^-24 <= |c| <= 1, round to nearest and no flush-to-zero (the IEEE default),
/// vectors with a nonzero lane below FLT_MIN / |c| in magnitude take another way: those lanes'
/// products, whose results lie on the grid of subnormal numbers (spacing 2^-149), are computed from
/// the bits of x as (|c| * |x| * 2^149 in double, exact) rounded to an integer, which is the
/// result's bit pattern; the other lanes take a plain multiply with the small lanes set to zero. No
/// floating-point instruction then meets a subnormal number. Everywhere else (double, other c,
/// flush-to-zero or other rounding modes, -ffast-math, device code): a plain multiply.
template <class T>
class ExactScale {
 public:
  KOKKOS_FUNCTION explicit ExactScale(T c) : c_(c) {}
  template <class V>
  KOKKOS_FUNCTION V operator()(const V& x) const {
    return c_ * x;
  }

 private:
  T c_;
};

#if UNISON_BACKENDS_HOST_VECTORS && !defined(__FAST_MATH__)
template <>
class ExactScale<float> {
 public:
  using Vec = HostVector<float>::type;
  typedef std::int32_t IVec __attribute__((vector_size(host_stream_bytes)));
  typedef std::uint32_t UVec __attribute__((vector_size(host_stream_bytes)));
  typedef double DVec __attribute__((vector_size(2 * host_stream_bytes)));

  explicit ExactScale(float c) : c_(c) {
    const float a = std::fabs(c);
    const bool ieee = ieee_mode();
    if (ieee && a >= 0x1p-24f && a <= 1.f) {
      // |x| >= bound gives a normal |c x| (> FLT_MIN even after rounding bound down); |x| <
      // bound, |c x| < 2^-125: |c x| 2^149 < 2^24, the bits of a result on the subnormal grid
      // (below 2^-125 the floats are spaced 2^-149 apart), and |x| 2^149 < 2^48.
      const float bound = float(double(FLT_MIN) / a * (1 + 0x1p-20));
      std::memcpy(&bound_bits_, &bound, sizeof bound);
      abs_c_ = a;
      std::uint32_t sign_c;
      std::memcpy(&sign_c, &c, sizeof c);
      sign_c_ = sign_c & 0x80000000u ? INT32_MIN : 0;
    }
  }

  Vec operator()(const Vec& x) const {
    if (bound_bits_ == 0) return c_ * x;
    IVec bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    // Small lanes: 0 < |x| < bound, as 2 |x|'s bits (x's shifted left by one) minus 1 below
    // 2 bound's minus 1, unsigned: four instructions per vector where none is small. Zeros
    // (wrapping to the top) take the plain multiply, exact and fast for them; so do NaNs.
    const UVec twice = UVec(bits) << 1;
    const IVec small = twice - 1u < 2u * std::uint32_t(bound_bits_) - 1u;
    if (!any_lane(small)) return c_ * x;
    const IVec mag = bits & 0x7fffffff;  // the bits of |x|
    const Vec zero = {};
    // |x| 2^149 as a float, exactly: for a subnormal x its bits as an integer, for a normal one
    // |x| with 149 added to its exponent (no float operation sees x itself); 0 in the lanes that
    // are not small (where the sum of bits could be any float, a subnormal one too).
    const IVec scaled_bits = (mag & small) + ((149 << 23) & small);
    Vec scaled, from_int = __builtin_convertvector(mag, Vec);
    __builtin_memcpy(&scaled, &scaled_bits, sizeof scaled);
    scaled = (mag >> 23) == 0 ? from_int : scaled;
    // |c x| 2^149 < 2^24 in double (a product of two 24-bit significands: exact), rounded to an
    // integer by adding and subtracting 1.5 2^52: the result's magnitude, in units of 2^-149,
    // which is also its bit pattern.
    const DVec y = double(abs_c_) * __builtin_convertvector(scaled, DVec);
    const DVec rounded = (y + 0x1.8p52) - 0x1.8p52;
    const IVec tiny = __builtin_convertvector(rounded, IVec) | ((bits & INT32_MIN) ^ sign_c_);
    Vec tiny_products;
    __builtin_memcpy(&tiny_products, &tiny, sizeof tiny);
    return small ? tiny_products : c_ * (small ? zero : x);
  }

 private:
  float c_, abs_c_ = 0;
  std::int32_t bound_bits_ = 0, sign_c_ = 0;  // bound_bits_ 0: a plain multiply

  // Whether this thread computes in the IEEE default mode: round to nearest, subnormal numbers
  // kept (x86 MXCSR: RC bits 13-14 zero, no FTZ bit 15, no DAZ bit 6; ARM FPCR: RMode bits 22-23
  // zero, no FZ bit 24).
  static bool ieee_mode() {
#if defined(__aarch64__)
    return (__builtin_aarch64_get_fpcr() & 0x01c00000u) == 0;
#else
    return (_mm_getcsr() & 0xe040u) == 0;
#endif
  }
};
#endif

}  // namespace unison::backends
