// The element-wise family against float64 host references, on every enabled backend.
#include <cmath>
#include <cstdint>
#include <tuple>

#include <unison/elementwise.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;

// Sizes every function is checked at: empty, one, odd, and large enough for many blocks.
const std::size_t sizes[] = {0, 1, 7, 1001, (1u << 20) + 3};

template <class T, class Mem, class Gen>
Kokkos::View<T*, Mem> input_view(std::size_t n, const Gen&) {
  return Kokkos::View<T*, Mem>("unison::test::in", n);
}

// Draws inputs of type T with gens, poisons out, runs call(exec, inputs..., out) and compares
// with ref(double(inputs)...) element by element.
template <class Exec, class T, class Out = T, class Call, class Ref, class... Gens>
void check_family(std::size_t n, Call call, Ref ref, Gens... gens) {
  using Mem = typename Exec::memory_space;
  Exec exec;
  auto ins = std::make_tuple(input_view<T, Mem>(n, gens)...);
  std::apply([&](auto&... v) { (fill(v, gens), ...); }, ins);
  Kokkos::View<Out*, Mem> out("unison::test::out", n);
  poison_fill(out);
  std::apply([&](auto&... v) { call(exec, v..., out); }, ins);
  exec.fence();
  auto host_ins = std::apply([](auto&... v) { return std::make_tuple(to_host(v)...); }, ins);
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i)
    expected[i] = std::apply([&](auto&... h) { return ref(h[i]...); }, host_ins);
  EXPECT_TRUE(close(to_host(out), expected, tolerance<Out>())) << "n = " << n;
}

double ref_hypot(double x, double y) { return std::hypot(x, y); }
double ref_gaussian(double x, double m, double s) {
  return std::exp(-0.5 * ((x - m) / s) * ((x - m) / s)) / (s * std::sqrt(2 * M_PI));
}
double ref_polar(double r1, double t1, double r2, double t2) {
  double dx = r1 * std::cos(t1) - r2 * std::cos(t2), dy = r1 * std::sin(t1) - r2 * std::sin(t2);
  return std::sqrt(dx * dx + dy * dy);
}
double ref_hidden(double g, double w) {
  double v = g / 255 * w;
  return (std::exp(v) - std::exp(-v)) / (std::exp(v) + std::exp(-v));
}

template <class Exec>
void test_add() {
  for (auto n : sizes) {
    check_family<Exec, std::int64_t>(
        n, [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); },
        [](double x, double y) { return x + y; }, uniform<std::int64_t>(-1e15, 1e15),
        uniform<std::int64_t>(-1e15, 1e15));
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& y, auto& o) { unison::add(e, x, y, o); },
        [](double x, double y) { return x + y; }, uniform<float>(-1e3, 1e3),
        uniform<float>(-1e3, 1e3));
    // A scalar in place of an array.
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& o) { unison::add(e, x, 2.5f, o); },
        [](double x) { return x + 2.5; }, uniform<float>(-1e3, 1e3));
  }
}

template <class Exec>
void test_hypot() {
  for (auto n : sizes) {
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); }, ref_hypot,
        uniform<float>(-10, 10), uniform<float>(-10, 10));
    // Magnitudes whose squares overflow float: the scaled formula keeps them finite.
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); }, ref_hypot,
        uniform<float>(-3e38, 3e38), uniform<float>(-1e30, 1e30));
    check_family<Exec, double>(
        n, [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); }, ref_hypot,
        uniform<double>(-1e-160, 1e-160), uniform<double>(-1e-160, 1e-160));
  }
  // Magnitudes spread over the exponent range, subnormals included, so that one register mixes
  // squares that fit (computed directly on CPUs) with squares that overflow or underflow (the
  // larger magnitude factored out); for double up to 2^501, where the check's own sums of
  // squares still fit.
  const auto spread = [](auto lo_exp, auto hi_exp) {
    return [=](std::mt19937_64& rng) {
      using T = decltype(lo_exp);
      const double m = std::uniform_real_distribution<double>(1, 2)(rng);
      const int e = std::uniform_int_distribution<int>(int(lo_exp), int(hi_exp))(rng);
      return T((rng() & 1 ? -1 : 1) * std::ldexp(m, e));
    };
  };
  check_family<Exec, float>((1u << 16) + 5,
                            [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); },
                            ref_hypot, spread(-140.f, 125.f), spread(-140.f, 125.f));
  check_family<Exec, double>((1u << 16) + 5,
                             [](auto& e, auto& x, auto& y, auto& o) { unison::hypot(e, x, y, o); },
                             ref_hypot, spread(-1060.0, 500.0), spread(-1060.0, 500.0));
  // Zeros and infinities, where the tutorial's formula gives NaN; an infinity beside a NaN
  // (either order) is inf, as in IEEE 754, a NaN beside a finite value NaN.
  Exec exec;
  Kokkos::View<float*, typename Exec::memory_space> x("x", 7), y("y", 7), out("out", 7);
  auto hx = Kokkos::create_mirror_view(x), hy = Kokkos::create_mirror_view(y);
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  float xs[] = {0, 0, inf, -inf, inf, nan, nan}, ys[] = {0, 3, inf, 1, nan, -inf, 2};
  for (int i = 0; i < 7; ++i) hx(i) = xs[i], hy(i) = ys[i];
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);
  unison::hypot(exec, x, y, out);
  exec.fence();
  EXPECT_TRUE(close(to_host(out), {0, 3, inf, inf, inf, inf, nan}, 0));
}

template <class Exec>
void test_gaussian_pdf() {
  for (auto n : sizes) {
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& o) { unison::gaussian_pdf(e, x, 0.3f, 1.7f, o); },
        [](double x) { return ref_gaussian(x, 0.3f, 1.7f); }, uniform<float>(-6, 6));
    // mean and sigma as arrays.
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& m, auto& s, auto& o) { unison::gaussian_pdf(e, x, m, s, o); },
        ref_gaussian, uniform<float>(-3, 3), uniform<float>(-1, 1), uniform<float>(0.5, 2));
    check_family<Exec, double>(
        n, [](auto& e, auto& x, auto& o) { unison::gaussian_pdf(e, x, -1.0, 0.25, o); },
        [](double x) { return ref_gaussian(x, -1.0, 0.25); }, uniform<double>(-2, 0));
  }
}

template <class Exec>
void test_polar_distance() {
  for (auto n : sizes) {
    check_family<Exec, float>(
        n,
        [](auto& e, auto& r1, auto& t1, auto& r2, auto& t2, auto& o) {
          unison::polar_distance(e, r1, t1, r2, t2, o);
        },
        ref_polar, uniform<float>(0, 10), uniform<float>(-3.2, 3.2), uniform<float>(0, 10),
        uniform<float>(-3.2, 3.2));
  }
  // Every element within a few rounding errors of the points' scale, |rho1| + |rho2|: angles
  // over the whole range of the rotated form (+-1024), beyond it (up to 1e5), and the two mixed
  // in one register; nearly equal points (a close angle, the same radius), where the distance
  // is the difference of nearly equal coordinates; negative radii; float and double.
  const auto pointwise = [](auto tag, double angles, double bound) {
    using T = decltype(tag);
    using Mem = typename Exec::memory_space;
    const std::size_t n = 4099;
    Kokkos::View<T*, Mem> r1("r1", n), t1("t1", n), r2("r2", n), t2("t2", n), out("out", n);
    fill(r1, uniform<T>(-10, 10));
    fill(t1, uniform<T>(-angles, angles));
    fill(r2, uniform<T>(0, 10));
    fill(t2, uniform<T>(-angles, angles));
    auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r1);
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t1);
    auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r2);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t2);
    for (std::size_t i = 0; i < n; i += 3) {  // every third: the same point, turned a little
      hb(i) = ha(i) + T(1e-3) * T(i % 7) / 7;
      h2(i) = h1(i);
    }
    for (std::size_t i = 1; i < n; i += 5) ha(i) = T(i % 2 ? 3e4 : -2e3) + ha(i);  // some beyond
    Kokkos::deep_copy(r2, h2);
    Kokkos::deep_copy(t1, ha);
    Kokkos::deep_copy(t2, hb);
    Exec exec;
    unison::polar_distance(exec, r1, t1, r2, t2, out);
    exec.fence();
    auto got = to_host(out);
    int bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ref = ref_polar(h1(i), ha(i), h2(i), hb(i));
      const double scale = std::abs(double(h1(i))) + std::abs(double(h2(i)));
      if (!(std::abs(got[i] - ref) <= bound * scale) && ++bad <= 5)
        ADD_FAILURE() << "angles +-" << angles << ", element " << i << ": polar_distance(" << h1(i)
                      << ", " << ha(i) << ", " << h2(i) << ", " << hb(i) << ") = " << got[i]
                      << ", expected " << ref;
    }
  };
  for (double angles : {3.2, 1024.0, 1e5}) {
    pointwise(float{}, angles, 1e-6);
    pointwise(double{}, angles, 1e-14);
  }
}

template <class Exec>
void test_zero_suppress() {
  for (auto n : sizes) {
    check_family<Exec, std::int16_t>(
        n, [](auto& e, auto& w, auto& o) { unison::zero_suppress(e, w, std::int16_t(15), o); },
        [](double v) { return v < 15 ? 0.0 : v; }, uniform<std::int16_t>(-32768, 32767));
    check_family<Exec, std::int16_t>(
        n, [](auto& e, auto& w, auto& o) { unison::zero_suppress(e, w, std::int16_t(15), o); },
        [](double v) { return v < 15 ? 0.0 : v; }, uniform<std::int16_t>(0, 30));
  }
}

// make_pulses and hidden_layer take Views in any memory space: each case runs with the inputs
// and output in exec's memory and in host memory.
template <class Exec, class InMem, class OutMem>
void check_make_pulses(std::size_t n) {
  Exec exec;
  Kokkos::View<float*, InMem> t("t", n), noise("noise", n);
  Kokkos::View<float*, OutMem> out("out", n);
  auto ht = Kokkos::create_mirror_view(t);
  for (std::size_t i = 0; i < n; ++i) ht(i) = float(i);
  Kokkos::deep_copy(t, ht);
  fill(noise, [d = std::normal_distribution<double>(0, 3)](std::mt19937_64& r) mutable {
    return float(d(r));
  });
  poison_fill(out);
  const float period = n ? float(n) / 23 : 1.f;
  unison::make_pulses(exec, t, noise, period, 100.f, out);
  exec.fence();
  auto hn = to_host(noise);
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i)
    expected[i] = std::max(std::sin(double(float(i)) / period) - 0.3, 0.0) * 100.0 + hn[i];
  EXPECT_TRUE(close(to_host(out), expected, 1e-5)) << "n = " << n;
}

template <class Exec>
void test_make_pulses() {
  using Dev = typename Exec::memory_space;
  using Host = Kokkos::HostSpace;
  for (auto n : sizes) {
    check_make_pulses<Exec, Dev, Dev>(n);
    check_make_pulses<Exec, Host, Host>(n);
    check_make_pulses<Exec, Host, Dev>(n);
  }
}

template <class Exec, class InMem, class OutMem>
void check_hidden_layer(std::size_t n, unison::Fusion fusion) {
  Exec exec;
  Kokkos::View<float*, InMem> g("greyscales", n), w("weights", n);
  Kokkos::View<float*, OutMem> out("out", n);
  fill(g, [](std::mt19937_64& r) {
    return std::floor(float(std::uniform_real_distribution<double>(0, 255)(r)));
  });
  fill(w, [d = std::normal_distribution<double>(0.5, 0.1)](std::mt19937_64& r) mutable {
    return float(d(r));
  });
  poison_fill(out);
  unison::hidden_layer(exec, g, w, out, fusion);
  exec.fence();
  auto hg = to_host(g), hw = to_host(w);
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = ref_hidden(hg[i], hw[i]);
  EXPECT_TRUE(close(to_host(out), expected, 1e-5))
      << "n = " << n << (fusion == unison::Fusion::fused ? " fused" : " separate");
  // The overload that returns a new host View.
  auto result = unison::hidden_layer(exec, g, w, fusion);
  static_assert(std::is_same_v<typename decltype(result)::memory_space, Kokkos::HostSpace>);
  EXPECT_TRUE(close(to_host(result), expected, 1e-5));
}

template <class Exec>
void test_hidden_layer() {
  using Dev = typename Exec::memory_space;
  using Host = Kokkos::HostSpace;
  for (auto fusion : {unison::Fusion::fused, unison::Fusion::separate}) {
    for (auto n : sizes) {
      check_hidden_layer<Exec, Dev, Host>(n, fusion);
      check_hidden_layer<Exec, Dev, Dev>(n, fusion);
      check_hidden_layer<Exec, Host, Host>(n, fusion);
    }
  }
}

// An exact in-place call is allowed and right.
template <class Exec>
void test_in_place() {
  Exec exec;
  const std::size_t n = 1001;
  Kokkos::View<float*, typename Exec::memory_space> x("x", n), y("y", n);
  fill(x, uniform<float>(-5, 5));
  fill(y, uniform<float>(-5, 5));
  auto hx = to_host(x), hy = to_host(y);
  unison::hypot(exec, x, y, x);
  exec.fence();
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = ref_hypot(hx[i], hy[i]);
  EXPECT_TRUE(close(to_host(x), expected, 1e-5));
}

// hidden_layer in place: out is the greyscales or the weights array itself, in both modes.
template <class Exec>
void test_hidden_layer_in_place() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const std::size_t n = 1001;
  for (auto fusion : {unison::Fusion::fused, unison::Fusion::separate}) {
    for (bool into_weights : {false, true}) {
      Kokkos::View<float*, Mem> g("g", n), w("w", n);
      fill(g, uniform<float>(0, 255));
      fill(w, uniform<float>(0.3, 0.7));
      auto hg = to_host(g), hw = to_host(w);
      unison::hidden_layer(exec, g, w, into_weights ? w : g, fusion);
      exec.fence();
      std::vector<double> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = ref_hidden(hg[i], hw[i]);
      EXPECT_TRUE(close(to_host(into_weights ? w : g), expected, 1e-5))
          << (into_weights ? "out = weights" : "out = greyscales");
    }
  }
}

// make_pulses in place: out is the t or the noise array itself.
template <class Exec>
void test_make_pulses_in_place() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const std::size_t n = 1001;
  const float period = float(n) / 23;
  for (bool into_noise : {false, true}) {
    Kokkos::View<float*, Mem> t("t", n), noise("noise", n);
    fill(t, uniform<float>(0, float(n)));
    fill(noise, uniform<float>(-3, 3));
    auto ht = to_host(t), hn = to_host(noise);
    unison::make_pulses(exec, t, noise, period, 100.f, into_noise ? noise : t);
    exec.fence();
    std::vector<double> expected(n);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = std::max(std::sin(ht[i] / period) - 0.3, 0.0) * 100.0 + hn[i];
    EXPECT_TRUE(close(to_host(into_noise ? noise : t), expected, 1e-5))
        << (into_noise ? "out = noise" : "out = t");
  }
}

template <class Exec>
void test_errors() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> a("a", 8), b("b", 7), out("out", 8);
  EXPECT_TRUE(throws_invalid([&] { unison::add(exec, a, b, out); }, "unison::add",
                             {"y is 7", "expected 8"}));
  EXPECT_TRUE(throws_invalid([&] { unison::hypot(exec, b, a, out); }, "unison::hypot",
                             {"x is 7", "expected 8"}));
  EXPECT_TRUE(throws_invalid([&] { unison::gaussian_pdf(exec, a, 0.f, b, out); },
                             "unison::gaussian_pdf", {"sigma is 7"}));
  EXPECT_TRUE(throws_invalid([&] { unison::polar_distance(exec, a, a, a, b, out); },
                             "unison::polar_distance", {"theta2 is 7"}));
  Kokkos::View<std::int16_t*, Mem> w16("w16", 7), o16("o16", 8);
  EXPECT_TRUE(throws_invalid([&] { unison::zero_suppress(exec, w16, std::int16_t(1), o16); },
                             "unison::zero_suppress", {"waveform is 7"}));
  EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, a, b, 1.f, 1.f, out); },
                             "unison::make_pulses", {"noise is 7", "out is 8"}));
  EXPECT_TRUE(throws_invalid([&] { unison::hidden_layer(exec, b, a, out); }, "unison::hidden_layer",
                             {"greyscales is 7", "out is 8"}));

  // Options out of range.
  for (float sigma :
       {0.f, -1.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
    EXPECT_TRUE(throws_invalid([&] { unison::gaussian_pdf(exec, a, 0.f, sigma, out); },
                               "unison::gaussian_pdf", {"sigma is"}));
  EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, a, a, 0.f, 1.f, out); },
                             "unison::make_pulses", {"period is 0"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::hidden_layer(exec, a, a, out, static_cast<unison::Fusion>(7)); },
                     "unison::hidden_layer", {"fusion"}));

  // An output that overlaps an input without being it: out shifted by one element.
  Kokkos::View<float*, Mem> buf("buf", 9);
  auto head = Kokkos::subview(buf, std::make_pair(0, 8));
  auto tail = Kokkos::subview(buf, std::make_pair(1, 9));
  EXPECT_TRUE(
      throws_invalid([&] { unison::add(exec, head, a, tail); }, "unison::add", {"overlaps x"}));
  EXPECT_TRUE(throws_invalid([&] { unison::hidden_layer(exec, a, head, tail); },
                             "unison::hidden_layer", {"overlaps weights"}));
  EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, tail, a, 1.f, 1.f, head); },
                             "unison::make_pulses", {"overlaps t"}));

  // The checks come before any launch: a refused call leaves out untouched.
  poison_fill(out);
  EXPECT_ANY_THROW(unison::add(exec, a, b, out));
  exec.fence();
  for (double v : to_host(out)) EXPECT_TRUE(std::isnan(v));

  // Views that exec cannot access must be contiguous (they are copied). Only GPU backends
  // have such Views; on host backends a strided host View is simply used in place.
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> h2("h2", 8, 2);
  auto strided = Kokkos::subview(h2, Kokkos::ALL, 0);
  Kokkos::View<float*, Kokkos::HostSpace> h1("h1", 8), hout("hout", 8);
  if constexpr (is_host_v<Exec>) {
    EXPECT_NO_THROW(unison::hidden_layer(exec, strided, h1, hout));
    EXPECT_NO_THROW(unison::make_pulses(exec, strided, h1, 1.f, 1.f, hout));
  } else {
    EXPECT_TRUE(throws_invalid([&] { unison::hidden_layer(exec, strided, h1, hout); },
                               "unison::hidden_layer", {"greyscales (8) is not contiguous"}));
    EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, h1, h1, 1.f, 1.f, strided); },
                               "unison::make_pulses", {"out (8) is not contiguous"}));
  }
}

// Empty Views, sized or default-constructed, are valid and do nothing.
template <class Exec>
void test_empty() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> none, zero("zero", 0);
  EXPECT_NO_THROW(unison::add(exec, none, zero, none));
  EXPECT_NO_THROW(unison::hypot(exec, zero, zero, zero));
  EXPECT_NO_THROW(unison::gaussian_pdf(exec, none, 0.f, 1.f, none));
  EXPECT_NO_THROW(unison::polar_distance(exec, none, none, none, none, none));
  EXPECT_NO_THROW(unison::make_pulses(exec, none, none, 1.f, 1.f, none));
  EXPECT_NO_THROW(unison::hidden_layer(exec, none, none, none));
  EXPECT_EQ(unison::hidden_layer(exec, none, none).extent(0), 0u);
  Kokkos::View<float**, Mem> none2, zero2("zero2", 0, 5);
  EXPECT_NO_THROW(unison::add(exec, zero2, 1.f, zero2));
  EXPECT_NO_THROW(unison::add(exec, none2, none2, none2));
  exec.fence();
}

template <class Exec>
struct Elementwise : ::testing::Test {};
TYPED_TEST_SUITE(Elementwise, Backends, BackendName);

TYPED_TEST(Elementwise, add) { test_add<TypeParam>(); }
TYPED_TEST(Elementwise, hypot) { test_hypot<TypeParam>(); }
TYPED_TEST(Elementwise, gaussian_pdf) { test_gaussian_pdf<TypeParam>(); }
TYPED_TEST(Elementwise, polar_distance) { test_polar_distance<TypeParam>(); }
TYPED_TEST(Elementwise, zero_suppress) { test_zero_suppress<TypeParam>(); }
TYPED_TEST(Elementwise, make_pulses) { test_make_pulses<TypeParam>(); }
TYPED_TEST(Elementwise, hidden_layer) { test_hidden_layer<TypeParam>(); }
TYPED_TEST(Elementwise, in_place) { test_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, hidden_layer_in_place) { test_hidden_layer_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, make_pulses_in_place) { test_make_pulses_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, errors) { test_errors<TypeParam>(); }
TYPED_TEST(Elementwise, empty) { test_empty<TypeParam>(); }

}  // namespace
