#pragma once
/// \file unison/backends/host/arithmetic.hpp
/// Arithmetic on host vectors (unison/backends/host/memory.hpp) that some CPUs do slowly.

#include <unison/backends/host/pack.hpp>
#include <unison/backends/memory.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace unison::backends {

/// v, as a value the host compiler cannot see into (an empty asm statement that keeps it in its
/// register: no instruction). A product passed through it is rounded on its own and never fused
/// with a later addition: GCC's default -ffp-contract=fast would otherwise fuse c - coeff * lap
/// into one fused multiply-add wherever the target has them and its vectorizer sees fit, in some
/// kernels and not in others, so that two algorithms could differ in the last bit. Host code only
/// (device code computes the step with explicit fused multiply-adds).
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#if defined(__AVX512F__)
#define UNISON_BACKENDS_OPAQUE(v) __asm__("" : "+v"(v))
#else
#define UNISON_BACKENDS_OPAQUE(v) __asm__("" : "+x"(v))
#endif
#elif defined(__GNUC__) && defined(__aarch64__)
#define UNISON_BACKENDS_OPAQUE(v) __asm__("" : "+w"(v))
#elif defined(__GNUC__)
#define UNISON_BACKENDS_OPAQUE(v) __asm__("" : "+m"(v))
#else
#define UNISON_BACKENDS_OPAQUE(v) ((void)0)
#endif

template <class V>
KOKKOS_FORCEINLINE_FUNCTION V rounded_alone(V v) {
  KOKKOS_IF_ON_HOST((UNISON_BACKENDS_OPAQUE(v);))
  return v;
}

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
    const bool ieee = host::isa::ieee_float_mode();
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
    if (!any(small)) return c_ * x;
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
};
#endif

}  // namespace unison::backends
