#pragma once
// The accuracy of the CPU kernels' vector math (unison/backends/host/pack.hpp): the error of a
// float function in units in the last place (ULP) of the exact result, over chosen float inputs,
// against the double function as the reference. Shared by the tests (a sample of the inputs)
// and by unison_ulp_scan (every input).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <Kokkos_Core.hpp>

#include <unison/backends/host/pack.hpp>

namespace unison::test {

// |got - ref| in ULP of the float result nearest ref: the spacing of floats at |ref| (2^-149
// below the normal range). A NaN reference wants NaN; a reference beyond the float range wants
// the infinity of its sign; anything else that is NaN or infinite is an infinite error.
inline double ulp_error(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  const float nearest = float(ref);
  if (std::isinf(nearest)) return got == nearest ? 0 : INFINITY;
  if (std::isinf(got)) return INFINITY;
  int e = 0;
  std::frexp(ref, &e);  // |ref| in [2^(e-1), 2^e)
  const double spacing = std::ldexp(1.0, e - 1 - 23 > -149 ? e - 1 - 23 : -149);
  return std::fabs(double(got) - ref) / spacing;
}

// The float with bit pattern b.
inline float float_of_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// The largest ULP error of `f` (a function of a float pack, unison::backends' pack form) against
// `ref` (double), over the inputs whose bit patterns are first, first + step, ... below 2^32,
// computed on the host's threads; and the input where it is largest.
struct UlpScan {
  double worst = 0;
  float at = 0;
  std::int64_t inputs = 0;
};

#if UNISON_BACKENDS_HOST_VECTORS
template <class F, class R>
UlpScan ulp_scan(const F& f, const R& ref, std::uint64_t step, std::uint64_t first = 0) {
  using V = unison::backends::Pack<float>;
  constexpr int L = unison::backends::lanes_v<V>;
  const std::int64_t count = std::int64_t(((std::uint64_t(1) << 32) - first + step - 1) / step);
  const std::int64_t blocks = (count + L - 1) / L;
  using Loc = Kokkos::MaxLoc<double, std::int64_t>;
  typename Loc::value_type best{0, 0};
  Kokkos::parallel_reduce(
      "unison::test::ulp_scan",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          0, blocks),
      [&](std::int64_t b, typename Loc::value_type& m) {
        V x = {};
        for (int l = 0; l < L; ++l) {
          const std::int64_t i = b * L + l < count ? b * L + l : count - 1;
          x[l] = float_of_bits(std::uint32_t(first + std::uint64_t(i) * step));
        }
        const V y = f(x);
        for (int l = 0; l < L; ++l) {
          const double e = ulp_error(y[l], ref(double(x[l])));
          std::uint32_t bits;
          const float xl = x[l];  // (a vector's element has no address)
          std::memcpy(&bits, &xl, sizeof bits);
          if (e > m.val) m.val = e, m.loc = std::int64_t(bits);
        }
      },
      Loc(best));
  return {best.val, float_of_bits(std::uint32_t(best.loc)), count};
}
#endif

}  // namespace unison::test
