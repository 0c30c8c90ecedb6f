// The element-wise family against float64 host references, on every enabled backend.
// Beside them, the suites every family has: ElementwisePreconditions, ElementwiseDeterminism,
// ElementwiseLabels and ElementwiseInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <unison/elementwise.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"
#include "ulp.hpp"

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

// Views of every layout an element-wise call accepts, for the checks over layouts: a rows x cols
// grid of values (row by row) put into a View of the kind `kind` names. Rank 1 (the grid's
// values in a row): "contiguous", "stride 2" (every other element of a buffer twice as long);
// rank 2: "LayoutRight", "LayoutLeft", "stride 2" (every other column of a LayoutRight buffer).
template <class Exec, class T>
struct LayoutViews {
  using Mem = typename Exec::memory_space;
  using Strided1 = Kokkos::View<T*, Kokkos::LayoutStride, Mem>;
  using Strided2 = Kokkos::View<T**, Kokkos::LayoutStride, Mem>;
  long rows, cols;
  // The strided Views' buffers, kept alive as long as this object (a View made from a pointer
  // does not own it).
  mutable std::vector<Kokkos::View<T*, Mem>> buffers;

  template <class V>
  static V filled(V v, const std::vector<T>& values) {
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> h("unison::test::grid", 1,
                                                                values.size());
    for (std::size_t i = 0; i < values.size(); ++i) h(0, i) = values[i];
    const auto staged = Kokkos::create_mirror_view_and_copy(Mem(), h);
    if constexpr (V::rank() == 1) {
      Kokkos::deep_copy(v, Kokkos::subview(staged, 0, Kokkos::ALL));
    } else {
      // The grid row by row: staged reshaped as rows x cols, then copied into v's layout.
      Kokkos::View<T**, Kokkos::LayoutRight, Mem> grid(staged.data(), v.extent(0), v.extent(1));
      Kokkos::deep_copy(v, grid);
    }
    return v;
  }
  Strided1 rank1(const std::string& kind, const std::vector<T>& values) const {
    const std::size_t n = values.size();
    if (kind == "contiguous")
      return filled(Strided1(Kokkos::View<T*, Mem>("unison::test::a", n)), values);
    buffers.emplace_back("unison::test::buffer", 2 * n);
    return filled(Strided1(buffers.back().data(), Kokkos::LayoutStride(n, 2)), values);
  }
  Strided2 rank2(const std::string& kind, const std::vector<T>& values) const {
    if (kind == "LayoutRight")
      return filled(
          Strided2(Kokkos::View<T**, Kokkos::LayoutRight, Mem>("unison::test::a", rows, cols)),
          values);
    if (kind == "LayoutLeft")
      return filled(
          Strided2(Kokkos::View<T**, Kokkos::LayoutLeft, Mem>("unison::test::a", rows, cols)),
          values);
    buffers.emplace_back("unison::test::buffer", rows * 2 * cols);
    return filled(Strided2(buffers.back().data(), Kokkos::LayoutStride(rows, 2 * cols, cols, 2)),
                  values);
  }
};

// hypot's error in ULP (float) in every layout: its contiguous CPU path computes packs, its other
// paths (strided, broadcast, mixed layouts) and GPUs scalars; each must stay within the
// documented 1.25 ulp of the exact result. The pairs are hard ones: magnitudes spread over the
// exponent range (subnormals, and squares that leave the float range), the two legs within a few
// binades of each other, many of them in the same binade.
template <class Exec>
void test_hypot_ulp_in_every_layout() {
  Exec exec;
  const long rows = 131, cols = 257, n = rows * cols;
  const LayoutViews<Exec, float> make{rows, cols, {}};
  auto rng = engine();
  std::uniform_real_distribution<double> mantissa(1, 2);
  std::uniform_int_distribution<int> exponent(-150, 126), apart(0, 12);
  const auto near = [&](int e) {
    return float((rng() & 1 ? -1 : 1) * std::ldexp(mantissa(rng), e));
  };
  std::vector<float> xs(n), ys(n);
  for (long i = 0; i < n; ++i) {
    const int e = exponent(rng);
    xs[i] = near(e);
    ys[i] = near(e - apart(rng) * (i % 3 != 0));
  }
  const auto worst_of = [&](const auto& out, const std::vector<float>& x, const auto& y_at) {
    exec.fence();
    const auto got = to_host(out);
    double worst = 0;
    for (long i = 0; i < long(got.size()); ++i)
      worst = std::max(
          worst, unison::test::ulp_error(float(got[i]), std::hypot(double(x[i]), double(y_at(i)))));
    return worst;
  };
  const auto report = [&](const std::string& layout, double worst) {
    std::printf("hypot on %s, %s: largest error %.3f ulp\n", Exec::name(), layout.c_str(), worst);
    EXPECT_LE(worst, 1.25) << layout;
  };
  const auto y_of = [&](long i) { return ys[i]; };
  for (const std::string kx : {"contiguous", "stride 2"})
    for (const std::string ky : {"contiguous", "stride 2"}) {
      const auto out = make.rank1(kx == ky ? kx : "stride 2", std::vector<float>(n));
      unison::hypot(exec, make.rank1(kx, xs), make.rank1(ky, ys), out);
      report("rank 1, x " + kx + ", y " + ky, worst_of(out, xs, y_of));
    }
  for (const std::string kx : {"LayoutRight", "LayoutLeft", "stride 2"})
    for (const std::string ky : {"LayoutRight", "LayoutLeft", "stride 2"}) {
      const auto out = make.rank2(kx, std::vector<float>(n));
      unison::hypot(exec, make.rank2(kx, xs), make.rank2(ky, ys), out);
      report("rank 2, x " + kx + ", y " + ky + ", out " + kx, worst_of(out, xs, y_of));
    }
  // A scalar leg (broadcast), against x near its binade, in both rank-1 forms.
  double worst = 0;
  for (int call = 0; call < 16; ++call) {
    const int e = exponent(rng);
    const float y = near(e);
    std::vector<float> x(n);
    for (long i = 0; i < n; ++i) x[i] = near(e - apart(rng) * (i % 3 != 0));
    for (const std::string k : {"contiguous", "stride 2"}) {
      const auto out = make.rank1(k, std::vector<float>(n));
      unison::hypot(exec, make.rank1(k, x), y, out);
      worst = std::max(worst, worst_of(out, x, [&](long) { return y; }));
    }
  }
  report("rank 1, y a scalar", worst);
}

// A NaN in a bound gives NaN there, as NumPy's clip: scalar bounds, and View bounds with NaNs at
// random places, in every layout (the CPU's packs on contiguous Views, its scalar path on the
// others), for float and double.
template <class Exec, class T>
void check_clip_nan_bounds() {
  Exec exec;
  const long rows = 37, cols = 41, n = rows * cols;
  const LayoutViews<Exec, T> make{rows, cols, {}};
  const T nan = std::numeric_limits<T>::quiet_NaN();
  auto rng = engine();
  std::uniform_real_distribution<double> value(-3, 3);
  std::vector<T> x(n), lo(n), hi(n);
  for (long i = 0; i < n; ++i) {
    x[i] = i % 11 == 0 ? nan : T(value(rng));
    lo[i] = rng() % 4 == 0 ? nan : T(value(rng) - 1);
    hi[i] = rng() % 4 == 0 ? nan : T(value(rng) + 1);
  }
  // NumPy's minimum(maximum(x, lo), hi): a NaN anywhere gives NaN.
  const auto numpy = [](double v, double l, double h) {
    if (std::isnan(v) || std::isnan(l) || std::isnan(h))
      return std::numeric_limits<double>::quiet_NaN();
    return std::min(std::max(v, l), h);
  };
  const auto same = [&](const auto& out, const auto& want, const std::string& where) {
    exec.fence();
    const auto got = to_host(out);
    long wrong = 0, first = -1;
    for (long i = 0; i < n; ++i) {
      const double w = want(i);
      const bool ok = std::isnan(w) ? std::isnan(got[i]) : got[i] == w;
      if (!ok && wrong++ == 0) first = i;
    }
    EXPECT_EQ(wrong, 0) << where << ": first at " << first << ", x " << x[first] << ", lo "
                        << lo[first] << ", hi " << hi[first] << ", got " << got[first];
  };
  for (const std::string k : {"contiguous", "stride 2"}) {
    const auto out = make.rank1(k, std::vector<T>(n));
    unison::clip(exec, make.rank1(k, x), make.rank1(k, lo), make.rank1(k, hi), out);
    same(
        out, [&](long i) { return numpy(x[i], lo[i], hi[i]); }, "rank 1 " + k + ", View bounds");
    unison::clip(exec, make.rank1(k, x), nan, T(1), out);
    same(
        out, [&](long) { return numpy(0, NAN, 1); }, "rank 1 " + k + ", lo NaN");
    unison::clip(exec, make.rank1(k, x), T(-1), nan, out);
    same(
        out, [&](long) { return numpy(0, -1, NAN); }, "rank 1 " + k + ", hi NaN");
    unison::clip(exec, make.rank1(k, x), make.rank1(k, lo), T(1), out);
    same(
        out, [&](long i) { return numpy(x[i], lo[i], 1); }, "rank 1 " + k + ", View lo");
  }
  for (const std::string k : {"LayoutRight", "LayoutLeft", "stride 2"}) {
    const auto out = make.rank2(k, std::vector<T>(n));
    unison::clip(exec, make.rank2(k, x), make.rank2("LayoutLeft", lo), make.rank2(k, hi), out);
    same(
        out, [&](long i) { return numpy(x[i], lo[i], hi[i]); }, "rank 2 " + k + ", View bounds");
    unison::clip(exec, make.rank2(k, x), T(-1), make.rank2("stride 2", hi), out);
    same(
        out, [&](long i) { return numpy(x[i], -1, hi[i]); }, "rank 2 " + k + ", View hi");
  }
}

template <class Exec>
void test_clip_nan_bounds() {
  check_clip_nan_bounds<Exec, float>();
  check_clip_nan_bounds<Exec, double>();
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

template <class Exec>
void test_clip() {
  const auto ref = [](double x, double lo, double hi) { return std::min(std::max(x, lo), hi); };
  for (auto n : sizes) {
    // Scalar bounds, float, double and int16.
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& o) { unison::clip(e, x, -1.f, 1.f, o); },
        [&](double x) { return ref(x, -1, 1); }, uniform<float>(-3, 3));
    check_family<Exec, double>(
        n, [](auto& e, auto& x, auto& o) { unison::clip(e, x, 0.25, 0.5, o); },
        [&](double x) { return ref(x, 0.25, 0.5); }, uniform<double>(0, 1));
    check_family<Exec, std::int16_t>(
        n, [](auto& e, auto& x, auto& o) { unison::clip(e, x, -100, 300, o); },
        [&](double x) { return ref(x, -100, 300); }, uniform<std::int16_t>(-32768, 32767));
    // View bounds, some with lo > hi (then hi, as NumPy).
    check_family<Exec, float>(
        n, [](auto& e, auto& x, auto& lo, auto& hi, auto& o) { unison::clip(e, x, lo, hi, o); },
        ref, uniform<float>(-3, 3), uniform<float>(-2, 1), uniform<float>(-1, 2));
  }
  // NaN stays NaN; the bounds themselves and values between them are kept exactly.
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> x("x", 4), out("out", 4);
  auto hx = Kokkos::create_mirror_view(x);
  hx(0) = std::numeric_limits<float>::quiet_NaN();
  hx(1) = -1.f;
  hx(2) = 0.3f;
  hx(3) = -std::numeric_limits<float>::infinity();
  Kokkos::deep_copy(x, hx);
  unison::clip(exec, x, -1.f, 1.f, out);
  exec.fence();
  const auto ho = to_host(out);
  EXPECT_TRUE(std::isnan(ho[0]));
  EXPECT_EQ(ho[1], -1.f);
  EXPECT_EQ(ho[2], 0.3f);
  EXPECT_EQ(ho[3], -1.f);
  // Every bad input's error.
  Kokkos::View<float*, Mem> short_x("short", 3), bounds("bounds", 4);
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, short_x, -1.f, 1.f, out); }, "unison::clip",
                             {"x is 3", "expected 4"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, x, short_x, 1.f, out); }, "unison::clip",
                             {"lo is 3", "expected 4"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, x, bounds, short_x, out); }, "unison::clip",
                             {"hi is 3", "expected 4"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, x, 2.f, 1.f, out); }, "unison::clip",
                             {"lo (2) is greater than hi (1)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, x, 0.f, 1e300, out); }, "unison::clip",
                             {"hi is 1e+300"}));
  Kokkos::View<std::int16_t*, Mem> w16("w16", 4), o16("o16", 4);
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, w16, 0.5, 10, o16); }, "unison::clip",
                             {"lo is 0.5"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, w16, 0, 70000, o16); }, "unison::clip",
                             {"hi is 70000"}));
  // NaN is no value of an integer type (a float out takes it: NaN results, clip_nan_bounds).
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, w16, nan_f, 10, o16); }, "unison::clip",
                             {"lo is nan", "not a value of out's value type"}));
  EXPECT_TRUE(throws_invalid([&] { unison::clip(exec, w16, 0, double(nan_f), o16); },
                             "unison::clip", {"hi is nan"}));
  EXPECT_NO_THROW(unison::clip(exec, x, -1.f, 1.f, x));  // in place is allowed
  // A refused call writes nothing.
  Kokkos::deep_copy(out, 7.f);
  EXPECT_ANY_THROW(unison::clip(exec, x, 2.f, 1.f, out));
  exec.fence();
  EXPECT_TRUE(all_equal(out, 7.0));
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
TYPED_TEST(Elementwise, hypot_ulp_in_every_layout) { test_hypot_ulp_in_every_layout<TypeParam>(); }
TYPED_TEST(Elementwise, gaussian_pdf) { test_gaussian_pdf<TypeParam>(); }
TYPED_TEST(Elementwise, polar_distance) { test_polar_distance<TypeParam>(); }
TYPED_TEST(Elementwise, zero_suppress) { test_zero_suppress<TypeParam>(); }
TYPED_TEST(Elementwise, clip) { test_clip<TypeParam>(); }
TYPED_TEST(Elementwise, clip_nan_bounds) { test_clip_nan_bounds<TypeParam>(); }
TYPED_TEST(Elementwise, make_pulses) { test_make_pulses<TypeParam>(); }
TYPED_TEST(Elementwise, hidden_layer) { test_hidden_layer<TypeParam>(); }
TYPED_TEST(Elementwise, in_place) { test_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, hidden_layer_in_place) { test_hidden_layer_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, make_pulses_in_place) { test_make_pulses_in_place<TypeParam>(); }
TYPED_TEST(Elementwise, errors) { test_errors<TypeParam>(); }
TYPED_TEST(Elementwise, empty) { test_empty<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// Scalar parameters of the element-wise family: NaN, infinities and values out of out's range
// are refused where they would make the output meaningless; NaN data propagates.
template <class Exec>
void test_elementwise_parameters() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> a("a", 8), out("out", 8);
  Kokkos::deep_copy(a, 1.f);

  // gaussian_pdf: mean must be finite, sigma positive and finite, both in out's value type.
  for (double mean : {nan_d, inf_d, -inf_d, 1e300})
    EXPECT_TRUE(throws_invalid([&] { unison::gaussian_pdf(exec, a, mean, 1.f, out); },
                               "unison::gaussian_pdf", {"mean is", "expected a finite value"}))
        << mean;
  for (double sigma : {1e300, 1e-300, -0.0})
    EXPECT_TRUE(throws_invalid([&] { unison::gaussian_pdf(exec, a, 0.f, sigma, out); },
                               "unison::gaussian_pdf", {"sigma is", "positive finite value"}))
        << sigma;
  EXPECT_NO_THROW(unison::gaussian_pdf(exec, a, 0, 1, out));  // integer scalars are fine
  // A NaN in the data is not refused: it propagates to its own element only.
  Kokkos::View<float*, Mem> x("x", 2), y("y", 2);
  Kokkos::deep_copy(Kokkos::subview(x, 0), nan_f);
  Kokkos::deep_copy(Kokkos::subview(x, 1), 0.f);
  unison::gaussian_pdf(exec, x, 0.f, 1.f, y);
  exec.fence();
  const auto g = to_host(y);
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_NEAR(g[1], 0.3989422804, 1e-6);

  // zero_suppress: the threshold must be a value of out's type.
  EXPECT_TRUE(throws_invalid([&] { unison::zero_suppress(exec, a, nan_f, out); },
                             "unison::zero_suppress", {"threshold is nan", "not a value"}));
  Kokkos::View<std::int16_t*, Mem> w16("w16", 8), o16("o16", 8);
  for (double t : {2.5, 1e9, -1e9, inf_d, nan_d})
    EXPECT_TRUE(throws_invalid([&] { unison::zero_suppress(exec, w16, t, o16); },
                               "unison::zero_suppress", {"threshold is", "not a value"}))
        << t;
  EXPECT_TRUE(throws_invalid([&] { unison::zero_suppress(exec, w16, 70000, o16); },
                             "unison::zero_suppress", {"threshold is 70000"}));
  EXPECT_NO_THROW(unison::zero_suppress(exec, w16, 3.0, o16));  // a whole number converts exactly
  EXPECT_NO_THROW(unison::zero_suppress(exec, w16, -32768, o16));
  // An infinite threshold for a floating-point out means something: +inf suppresses all.
  unison::zero_suppress(exec, a, inf_f, out);
  exec.fence();
  EXPECT_TRUE(all_equal(out, 0.0));
  unison::zero_suppress(exec, a, -inf_f, out);
  exec.fence();
  EXPECT_TRUE(all_equal(out, 1.0));

  // make_pulses: period non-zero and finite, amplitude finite.
  for (float period : {nan_f, inf_f, -inf_f})
    EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, a, a, period, 1.f, out); },
                               "unison::make_pulses", {"period is", "non-zero finite"}))
        << period;
  for (float amplitude : {nan_f, inf_f, -inf_f})
    EXPECT_TRUE(throws_invalid([&] { unison::make_pulses(exec, a, a, 1.f, amplitude, out); },
                               "unison::make_pulses", {"amplitude is", "expected a finite value"}))
        << amplitude;

  // add: a scalar must be a value of out's type; NaN and infinities are data for a float out.
  Kokkos::View<std::int64_t*, Mem> i64("i64", 8), o64("o64", 8);
  for (double s : {0.5, nan_d, inf_d, 1e19})
    EXPECT_TRUE(throws_invalid([&] { unison::add(exec, i64, s, o64); }, "unison::add",
                               {"y is", "not a value of out's value type"}))
        << s;
  EXPECT_TRUE(throws_invalid([&] { unison::add(exec, 1e300, a, out); }, "unison::add",
                             {"x is 1e+300", "not a value of out's value type"}));
  Kokkos::View<std::uint16_t*, Mem> u16("u16", 8);
  EXPECT_TRUE(throws_invalid([&] { unison::add(exec, u16, -1, u16); }, "unison::add", {"y is -1"}));
  EXPECT_NO_THROW(unison::add(exec, i64, 2.0, o64));
  unison::add(exec, a, nan_f, out);
  exec.fence();
  for (double v : to_host(out)) EXPECT_TRUE(std::isnan(v));
}

// A refused element-wise call leaves its output as it was.
template <class Exec>
void test_elementwise_writes_nothing() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> a("a", 8), out("out", 8);
  Kokkos::deep_copy(a, 1.f);
  Kokkos::deep_copy(out, 7.f);
  EXPECT_ANY_THROW(unison::gaussian_pdf(exec, a, nan_f, 1.f, out));
  EXPECT_ANY_THROW(unison::make_pulses(exec, a, a, 1.f, inf_f, out));
  EXPECT_ANY_THROW(unison::zero_suppress(exec, a, nan_f, out));
  EXPECT_ANY_THROW(unison::hidden_layer(exec, a, a, out, static_cast<unison::Fusion>(3)));
  exec.fence();
  EXPECT_TRUE(all_equal(out, 7.0));
  Kokkos::View<std::int16_t*, Mem> w16("w16", 8), o16("o16", 8);
  Kokkos::deep_copy(o16, std::int16_t(7));
  EXPECT_ANY_THROW(unison::zero_suppress(exec, w16, 2.5, o16));
  exec.fence();
  EXPECT_TRUE(all_equal(o16, 7.0));
}

}  // namespace preconditions

template <class Exec>
struct ElementwisePreconditions : ::testing::Test {};
TYPED_TEST_SUITE(ElementwisePreconditions, Backends, BackendName);
TYPED_TEST(ElementwisePreconditions, elementwise_parameters) {
  preconditions::test_elementwise_parameters<TypeParam>();
}
TYPED_TEST(ElementwisePreconditions, elementwise_writes_nothing) {
  preconditions::test_elementwise_writes_nothing<TypeParam>();
}

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// One output per element: no arithmetic is shared between elements, so any split over
// threads gives the same bits.

namespace determinism {

template <class Exec>
void test_add() {
  Exec exec;
  Kokkos::View<std::int64_t*, Mem<Exec>> x("x", elements), y("y", elements), a("a", elements),
      b("b", elements);
  fill(x, uniform<std::int64_t>(-1e15, 1e15));
  fill(y, uniform<std::int64_t>(-1e15, 1e15));
  twice("int64", a, b, [&](const auto& out) { unison::add(exec, x, y, out); });
  Kokkos::View<float**, Kokkos::LayoutRight, Mem<Exec>> fx("fx", rows2, cols2),
      fy("fy", rows2, cols2), wa("wa", rows2, 2 * cols2), wb("wb", rows2, 2 * cols2);
  fill(fx, uniform<float>(-1e3, 1e3));
  fill(fy, uniform<float>(-1e3, 1e3));
  const std::pair<long, long> half(0, cols2);
  twice("float, rank 2 strided", Kokkos::subview(wa, Kokkos::ALL, half),
        Kokkos::subview(wb, Kokkos::ALL, half),
        [&](const auto& out) { unison::add(exec, fx, fy, out); });
}

template <class Exec>
void test_hypot() {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> x("x", elements), y("y", elements), a("a", elements),
      b("b", elements);
  fill(x, uniform<float>(-1e3, 1e3));
  fill(y, uniform<float>(-1e3, 1e3));
  twice("float", a, b, [&](const auto& out) { unison::hypot(exec, x, y, out); });
}

template <class Exec>
void test_gaussian_pdf() {
  Exec exec;
  Kokkos::View<double*, Mem<Exec>> x("x", elements), sigma("sigma", elements), a("a", elements),
      b("b", elements);
  fill(x, uniform<double>(-5, 5));
  fill(sigma, uniform<double>(0.5, 2));
  twice("double, scalar mean", a, b,
        [&](const auto& out) { unison::gaussian_pdf(exec, x, 0.25, sigma, out); });
}

template <class Exec>
void test_polar_distance() {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> r1("r1", elements), t1("t1", elements), r2("r2", elements),
      t2("t2", elements), a("a", elements), b("b", elements);
  fill(r1, uniform<float>(0, 10));
  fill(t1, uniform<float>(-3.2, 3.2));
  fill(r2, uniform<float>(0, 10));
  fill(t2, uniform<float>(-3.2, 3.2));
  twice("float", a, b, [&](const auto& out) { unison::polar_distance(exec, r1, t1, r2, t2, out); });
}

template <class Exec>
void test_zero_suppress() {
  Exec exec;
  Kokkos::View<std::int16_t*, Mem<Exec>> w("w", elements), a("a", elements), b("b", elements);
  fill(w, uniform<std::int16_t>(-2000, 2000));
  twice("int16", a, b,
        [&](const auto& out) { unison::zero_suppress(exec, w, std::int16_t(100), out); });
}

template <class Exec>
void test_clip() {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> x("x", elements), a("a", elements), b("b", elements);
  fill(x, uniform<float>(-3, 3));
  twice("float", a, b, [&](const auto& out) { unison::clip(exec, x, -1.f, 1.f, out); });
}

template <class Exec>
void test_make_pulses() {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> t("t", elements), noise("noise", elements), a("a", elements),
      b("b", elements);
  fill(t, uniform<float>(0, 1e4));
  fill(noise, uniform<float>(-3, 3));
  twice("float", a, b, [&](const auto& out) {
    unison::make_pulses(exec, t, noise, float(elements) / 23, 100.f, out);
  });
}

template <class Exec>
void check_hidden_layer(unison::Fusion fusion) {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> g("g", elements), w("w", elements), a("a", elements),
      b("b", elements);
  fill(g, [](std::mt19937_64& r) {
    return std::floor(float(std::uniform_real_distribution<double>(0, 255)(r)));
  });
  fill(w, uniform<float>(-2, 2));
  twice("into a View", a, b,
        [&](const auto& out) { unison::hidden_layer(exec, g, w, out, fusion); });
  // The overload that returns a new host View.
  const auto h1 = unison::hidden_layer(exec, g, w, fusion);
  const auto h2 = unison::hidden_layer(exec, g, w, fusion);
  EXPECT_TRUE(bitwise_equal(h1, h2)) << "returned host View";
}

}  // namespace determinism

template <class Exec>
struct ElementwiseDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(ElementwiseDeterminism, Backends, BackendName);
TYPED_TEST(ElementwiseDeterminism, add) { determinism::test_add<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, hypot) { determinism::test_hypot<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, gaussian_pdf) { determinism::test_gaussian_pdf<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, polar_distance) {
  determinism::test_polar_distance<TypeParam>();
}
TYPED_TEST(ElementwiseDeterminism, zero_suppress) { determinism::test_zero_suppress<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, clip) { determinism::test_clip<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, make_pulses) { determinism::test_make_pulses<TypeParam>(); }
TYPED_TEST(ElementwiseDeterminism, hidden_layer_fused) {
  determinism::check_hidden_layer<TypeParam>(unison::Fusion::fused);
}
TYPED_TEST(ElementwiseDeterminism, hidden_layer_separate) {
  determinism::check_hidden_layer<TypeParam>(unison::Fusion::separate);
}

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  const int n = 100;
  Kokkos::View<float*, Mem> a("a", n), b("b", n), out("out", n);
  Kokkos::View<float*, Kokkos::HostSpace> ha("ha", n), hb("hb", n), hout("hout", n);
  Kokkos::View<std::int16_t*, Mem> w("w", n);
  Kokkos::deep_copy(a, 1.f);
  Kokkos::deep_copy(b, 2.f);
  Kokkos::deep_copy(ha, 1.f);
  Kokkos::deep_copy(hb, 2.f);
  exec.fence();
  auto seen = record([&] {
    unison::add(exec, a, b, out);
    unison::hypot(exec, a, b, out);
    unison::gaussian_pdf(exec, a, 0.f, 1.f, out);
    unison::polar_distance(exec, a, b, a, b, out);
    unison::zero_suppress(exec, w, std::int16_t(3), w);
    unison::clip(exec, a, -1.f, 1.f, out);
    unison::make_pulses(exec, ha, hb, 3.f, 2.f, hout);
    unison::hidden_layer(exec, ha, hb, hout, unison::Fusion::separate);
    unison::hidden_layer(exec, a, b, out, unison::Fusion::fused);
    unison::transform(
        exec, out, KOKKOS_LAMBDA(float x) { return x + 1; }, a);
    exec.fence();
  });
  EXPECT_GE(seen.labels.size(), 12u);
  const std::string e = "unison::elementwise::";
  expect_calls(seen,
               {{"unison::add", {e + "add"}},
                {"unison::hypot", {e + "hypot"}},
                {"unison::gaussian_pdf", {e + "gaussian_pdf"}},
                {"unison::polar_distance", {e + "polar_distance"}},
                {"unison::zero_suppress", {e + "zero_suppress"}},
                {"unison::clip", {e + "clip"}},
                {"unison::make_pulses", {e + "make_pulses", e + "add"}},
                {"unison::hidden_layer", {e + "normalize", e + "weigh", e + "activate"}},
                {"unison::hidden_layer", {e + "hidden_layer"}},
                {"unison::transform", {e + "transform"}}},
               {e});
  for (const auto& label : seen.labels) {
    auto name = label.substr(label.find(' ') + 1);
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
  expect_on(exec, seen);
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* k : {"add", "hypot", "gaussian_pdf", "polar_distance", "zero_suppress", "clip",
                        "make_pulses", "normalize", "weigh", "activate", "hidden_layer"})
    EXPECT_TRUE(has(std::string("kernel unison::elementwise::") + k)) << k;
  // The form that returns a new host View (kept past the recording: its release is the test's).
  Kokkos::View<float*, Kokkos::HostSpace> result;
  seen = record([&] { result = unison::hidden_layer(exec, a, b, unison::Fusion::fused); });
  expect_on(exec, seen, Memory::allocated);
  expect_calls(seen, {{"unison::hidden_layer", {e + "hidden_layer"}}}, {e});
  EXPECT_TRUE(has("allocation unison::elementwise::hidden_layer::host"));
}

}  // namespace labels

template <class Exec>
struct ElementwiseLabels : ::testing::Test {};
TYPED_TEST_SUITE(ElementwiseLabels, Backends, BackendName);
TYPED_TEST(ElementwiseLabels, elementwise) { labels::test_labels(TypeParam()); }

template <class Exec>
struct ElementwiseInstance : ::testing::Test {};
TYPED_TEST_SUITE(ElementwiseInstance, Backends, BackendName);
TYPED_TEST(ElementwiseInstance, elementwise) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
