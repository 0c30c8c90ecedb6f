// The CPU kernels' packs (unison/backends/host/pack.hpp): the vector exp, sin, cos and tanh within
// their documented error on a sample of every float's bit patterns and on the special values;
// the pack forms of the other functions lane for lane equal to the scalar ones; and
// unison::math's functions, written once for scalars and packs, giving the scalar results in
// every lane (bitwise where both forms are correctly rounded operations).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <unison/backends/host/instruction_set.hpp>
#include <unison/math.hpp>

#include "ulp.hpp"

#ifdef UNISON_TEST_EXPECT_HOST_ISA
// The build names the instruction set it expects (UNISON_TEST_EXPECT_HOST_ISA: the aarch64
// preset, NEON): the kernels' vector paths must be the ones compiled, with their vector math.
TEST(VectorMath, kernels_compiled_for_the_expected_instruction_set) {
  const std::string isa = unison::backends::host_vector_isa;
  EXPECT_EQ(isa.rfind(UNISON_TEST_EXPECT_HOST_ISA, 0), 0u) << isa;
  EXPECT_EQ(UNISON_BACKENDS_HOST_VECTORS, 1);
  EXPECT_EQ(UNISON_BACKENDS_HOST_FMA_VECTORS, 1);
  EXPECT_EQ(unison::backends::pack_lanes_v<float>, unison::backends::host_stream_bytes / 4);
#if defined(__aarch64__)
  EXPECT_EQ(UNISON_HAVE_SLEEF, 1) << "the build found no SLEEF: exp, sin, cos and tanh go lane by "
                                     "lane";
  EXPECT_EQ(std::string(unison::backends::host_vector_math).rfind("SLEEF", 0), 0u)
      << unison::backends::host_vector_math;
#endif
}
#endif

#if UNISON_BACKENDS_HOST_VECTORS
namespace {

namespace b = unison::backends;
using F = b::Pack<float>;
using D = b::Pack<double>;
constexpr int LF = b::lanes_v<F>;
constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

// The documented bound of the vector functions: glibc's libmvec promises 4 ULP (measured at most
// 2.6 over all inputs, docs in benchmarks/RESULTS.md), SLEEF's _u10 functions on ARM 1 ULP; the
// lane-by-lane fallback (glibc's scalar functions) stays within it too.
constexpr double kMaxUlp = 4;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

F pack_of(const std::vector<float>& v, std::size_t from) {
  F x = {};
  for (int l = 0; l < LF; ++l) x[l] = v[(from + l) % v.size()];
  return x;
}

TEST(VectorMath, ulp_error_bound_on_a_sample_of_every_float) {
  // Every 4099th bit pattern (about a million inputs over all signs and exponents), from two
  // starting points.
  struct Case {
    const char* name;
    F (*f)(const F&);
    double (*ref)(double);
  };
  const Case cases[] = {
      {"exp", [](const F& x) { return b::exp(x); }, [](double x) { return std::exp(x); }},
      {"sin", [](const F& x) { return b::sin(x); }, [](double x) { return std::sin(x); }},
      {"cos", [](const F& x) { return b::cos(x); }, [](double x) { return std::cos(x); }},
      {"tanh", [](const F& x) { return b::tanh(x); }, [](double x) { return std::tanh(x); }},
  };
  for (const Case& c : cases)
    for (std::uint64_t first : {0u, 1234u}) {
      const auto r = unison::test::ulp_scan(c.f, c.ref, 4099, first);
      EXPECT_LE(r.worst, kMaxUlp) << c.name << " at x = " << r.at;
      EXPECT_GT(r.inputs, 1000000);
    }
}

TEST(VectorMath, ulp_error_measure) {
  // The measure itself, so that the bound above means what it says.
  EXPECT_EQ(unison::test::ulp_error(1.0f, 1.0), 0);
  EXPECT_DOUBLE_EQ(unison::test::ulp_error(std::nextafter(1.0f, 2.0f), 1.0), 1);
  EXPECT_DOUBLE_EQ(unison::test::ulp_error(1.0f, 1.0 + 0x1p-25), 0.25);
  EXPECT_DOUBLE_EQ(unison::test::ulp_error(0.0f, 0x1p-149), 1);  // subnormal spacing
  EXPECT_EQ(unison::test::ulp_error(inf, 1e300), 0);             // overflow wants inf
  EXPECT_EQ(unison::test::ulp_error(3.0f, 1e300), INFINITY);
  EXPECT_EQ(unison::test::ulp_error(nan, std::nan("")), 0);
  EXPECT_EQ(unison::test::ulp_error(0.0f, std::nan("")), INFINITY);
  EXPECT_EQ(unison::test::ulp_error(nan, 1.0), INFINITY);
}

TEST(VectorMath, special_values) {
  const std::vector<float> x{0.0f,  -0.0f,  inf,     -inf,   nan,    1.0f,
                             -1.0f, 100.0f, -100.0f, 1e-30f, -1e-30f};
  for (std::size_t from = 0; from < x.size(); from += LF) {
    const F v = pack_of(x, from);
    const F e = b::exp(v), s = b::sin(v), c = b::cos(v), t = b::tanh(v);
    for (int l = 0; l < LF; ++l) {
      const float a = v[l];
      if (std::isnan(a)) {
        EXPECT_TRUE(std::isnan(e[l]) && std::isnan(s[l]) && std::isnan(c[l]) && std::isnan(t[l]));
      } else if (std::isinf(a)) {
        EXPECT_EQ(e[l], a > 0 ? inf : 0.0f);
        EXPECT_TRUE(std::isnan(s[l]) && std::isnan(c[l])) << a;
        EXPECT_EQ(t[l], a > 0 ? 1.0f : -1.0f);
      } else if (a == 0) {
        EXPECT_EQ(e[l], 1.0f);
        EXPECT_EQ(c[l], 1.0f);
        EXPECT_TRUE(same_bits(s[l], a)) << "sin keeps the sign of zero";
        EXPECT_TRUE(same_bits(t[l], a)) << "tanh keeps the sign of zero";
      } else {
        EXPECT_LE(unison::test::ulp_error(e[l], std::exp(double(a))), kMaxUlp) << a;
        EXPECT_LE(unison::test::ulp_error(t[l], std::tanh(double(a))), kMaxUlp) << a;
      }
    }
  }
  // Double packs: the same functions, against long double on a few values.
  D d = {};
  for (int l = 0; l < b::lanes_v<D>; ++l) d[l] = -2.5 + 1.25 * l;
  const D ed = b::exp(d), td = b::tanh(d), sd = b::sin(d), cd = b::cos(d);
  for (int l = 0; l < b::lanes_v<D>; ++l) {
    const long double a = d[l];
    EXPECT_NEAR(ed[l], double(std::exp(a)), 4 * std::abs(double(std::exp(a))) * 0x1p-52);
    EXPECT_NEAR(td[l], double(std::tanh(a)), 4 * 0x1p-52);
    EXPECT_NEAR(sd[l], double(std::sin(a)), 4 * 0x1p-52);
    EXPECT_NEAR(cd[l], double(std::cos(a)), 4 * 0x1p-52);
  }
}

TEST(VectorMath, packs_of_the_exact_operations) {
  // splat keeps -0; abs clears the sign of -0 and of NaN; isinf marks both infinities; sqrt is
  // correctly rounded; fma rounds once.
  const F z = b::splat<F>(-0.0f);
  EXPECT_TRUE(same_bits(z[LF - 1], -0.0f));
  const std::vector<float> x{-0.0f, -inf, inf, -nan, 2.0f, -3.5f, 1e-40f, -1e38f};
  for (std::size_t from = 0; from < x.size(); from += LF) {
    const F v = pack_of(x, from);
    const F a = b::abs(v), r = b::sqrt(b::abs(v));
    const auto i = b::isinf(v);
    for (int l = 0; l < LF; ++l) {
      EXPECT_FALSE(std::signbit(a[l])) << v[l];
      if (!std::isnan(v[l])) {
        EXPECT_EQ(a[l], std::fabs(v[l]));
        EXPECT_TRUE(same_bits(r[l], std::sqrt(std::fabs(v[l]))));
      }
      EXPECT_EQ(i[l] != 0, std::isinf(v[l]));
    }
  }
  const F one_up = b::splat<F>(1 + 0x1p-23f), one_down = b::splat<F>(1 - 0x1p-23f);
  const F f = b::fma(one_up, one_down, b::splat<F>(-1.0f));
  EXPECT_EQ(f[0], -0x1p-46f);  // exact; a product rounded first gives 0
  const D g = b::fma(b::splat<D>(1 + 0x1p-52), b::splat<D>(1 - 0x1p-52), b::splat<D>(-1.0));
  EXPECT_EQ(g[0], -0x1p-104);
}

TEST(VectorMath, math_functions_lane_for_lane) {
  // hypot: every lane, moderate magnitudes (sqrt(fma(big, big, small^2))) mixed in one register
  // with huge, subnormal and special ones (the factored form), within 2^-23 of the float64
  // value plus half a subnormal step, as the scalar form is, and infinities, NaN and zeros
  // exact; gaussian_pdf, polar_distance, pulse and hidden_neuron are within the vector
  // functions' error of the scalar form.
  const std::vector<float> xs{0.0f, -0.0f, 3e30f, -4e30f, 1e-40f, inf,
                              -inf, nan,   2.5f,  -7.0f,  1e-3f,  123.0f};
  const std::vector<float> ys{0.0f, -0.0f, 4e30f, 3e30f, 1e-40f, nan,
                              1.0f, 1.0f,  -2.5f, 7.0f,  0.5f,   -1e-3f};
  for (std::size_t from = 0; from < xs.size(); from += LF) {
    const F x = pack_of(xs, from), y = pack_of(ys, from);
    const F h = unison::math::hypot(x, y);
    const F g = unison::math::gaussian_pdf(x, b::splat<F>(0.5f), b::splat<F>(2.0f));
    const F p = unison::math::polar_distance(x, y, y, x);
    const F n = unison::math::hidden_neuron(x, y);
    for (int l = 0; l < LF; ++l) {
      const float sh = unison::math::hypot(x[l], y[l]);
      const double rh = std::hypot(double(x[l]), double(y[l]));
      if (std::isnan(x[l]) || std::isnan(y[l])) {
        EXPECT_EQ(std::isnan(h[l]), !std::isinf(rh)) << x[l] << ", " << y[l];
      } else if (std::isinf(rh) || rh == 0) {
        EXPECT_EQ(h[l], rh) << x[l] << ", " << y[l];
        EXPECT_EQ(sh, rh) << x[l] << ", " << y[l];
      } else {
        EXPECT_LE(std::abs(h[l] - rh), 0x1p-23 * rh + 0x1p-149) << x[l] << ", " << y[l];
        EXPECT_LE(std::abs(sh - rh), 0x1p-23 * rh + 0x1p-149) << x[l] << ", " << y[l];
      }
      const double rg =
          std::exp(-0.5 * std::pow((double(x[l]) - 0.5) / 2, 2)) / (2 * std::sqrt(2 * M_PI));
      if (std::isfinite(x[l])) {
        EXPECT_LE(std::abs(g[l] - rg), 1e-6 * rg + 1e-45) << x[l];
      }
      const float sp = unison::math::polar_distance(x[l], y[l], y[l], x[l]);
      if (std::isfinite(sp) && std::abs(x[l]) < 1e3f && std::abs(y[l]) < 1e3f) {
        EXPECT_NEAR(p[l], sp, 1e-5 * (1 + sp)) << x[l] << ", " << y[l];
      }
      const float sn = unison::math::hidden_neuron(x[l], y[l]);
      if (std::isfinite(sn)) {
        EXPECT_NEAR(n[l], sn, 1e-6) << x[l] << ", " << y[l];
      }
    }
  }
}

}  // namespace
#endif
