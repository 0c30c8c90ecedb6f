// backends::ExactScale: c * x on host vectors, bit for bit the IEEE product of a plain
// multiply, for every class of x (zeros, subnormals, the smallest normals, the lanes either side
// of the bound where the computation changes way, normals, infinities, NaN) and coefficients
// inside and outside the range where it avoids the multiply.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <unison/backends/host/arithmetic.hpp>

#include "test_helpers.hpp"

namespace {

// (unused where the compilation has no host vectors: a GPU build's device pass)
[[maybe_unused]] std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

[[maybe_unused]] float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

#if UNISON_BACKENDS_HOST_VECTORS
// ExactScale(c) over xs, K lanes at a time (the last vector padded with copies of its first
// lane), each lane against the scalar product (volatile: computed at run time, in the same
// floating-point mode); the number of mismatches, the first few reported.
int mismatches(float c, const std::vector<float>& xs) {
  using Vec = unison::backends::HostVector<float>::type;
  constexpr int K = sizeof(Vec) / sizeof(float);
  const unison::backends::ExactScale<float> scale(c);
  int bad = 0;
  for (std::size_t i = 0; i < xs.size(); i += K) {
    Vec v;
    for (int e = 0; e < K; ++e) v[e] = xs[i + e < xs.size() ? i + e : i];
    const Vec got = scale(v);
    for (int e = 0; e < K && i + e < xs.size(); ++e) {
      volatile float vc = c, vx = v[e];
      const float want = vc * vx;
      const bool same = std::isnan(want) ? std::isnan(got[e]) : bits_of(want) == bits_of(got[e]);
      if (!same && ++bad <= 5)
        ADD_FAILURE() << "c = " << c << " (bits " << std::hex << bits_of(c) << "), x bits "
                      << bits_of(v[e]) << ": got bits " << bits_of(got[e]) << ", IEEE "
                      << bits_of(want) << std::dec;
    }
  }
  return bad;
}

TEST(HostArithmetic, exact_scale_is_the_ieee_product) {
  auto gen = unison::test::engine();
  std::vector<float> xs;
  // Every 11th positive subnormal (and their negatives), the smallest normals, and all the
  // floats within 2^12 ulps of the bound FLT_MIN / |c| of each coefficient below.
  for (std::uint32_t b = 0; b < 0x00800000u; b += 11) {
    xs.push_back(from_bits(b));
    xs.push_back(-from_bits(b));
  }
  for (std::uint32_t b = 0x00800000u; b < 0x00800000u + (1u << 16); ++b) xs.push_back(from_bits(b));
  const std::vector<float> coeffs = {0.25f, -0.25f, 0.1f, 1.f, -1.f, 0.7071068f, 0x1p-24f, 3e-5f,
                                     -0x1p-20f, 0x1.fffffep-1f,
                                     // a plain multiply: outside [2^-24, 1] in magnitude
                                     0.f, -0.f, 1.5f, 1e-30f, 1e-40f, 4.f, INFINITY, NAN};
  for (float c : coeffs)
    if (std::isfinite(c) && c != 0.f) {
      const std::uint32_t bound = bits_of(float(double(FLT_MIN) / std::fabs(c)));
      for (std::uint32_t b = bound - std::min(bound, 4096u); b < bound + 4096u; ++b) {
        xs.push_back(from_bits(b));
        xs.push_back(-from_bits(b));
      }
    }
  std::uniform_int_distribution<std::uint32_t> any_bits;
  for (int i = 0; i < 100000; ++i) xs.push_back(from_bits(any_bits(gen)));
  for (float x : {0.f, -0.f, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, FLT_TRUE_MIN, -FLT_TRUE_MIN,
                  INFINITY, -INFINITY, NAN, 1.f, -3.5f})
    xs.push_back(x);
  // The results' rounding is tested by the sample above: subnormal products of 0.1 and 0.7071068
  // fall between grid points (ties included, for 0.25 and 0x1.fffffep-1).
  for (float c : coeffs) EXPECT_EQ(mismatches(c, xs), 0) << "c = " << c;
}
#endif

}  // namespace
