// The generic transform: any device callable, rank 1 and 2, every layout, scalars in place of
// arrays; and its errors.
// Beside them, the suites every family has: TransformPreconditions, TransformDeterminism,
// TransformLabels and TransformInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <unison/transform.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

// out = a * x + y - c with a lambda of three inputs, one of them a scalar, on rank-2 Views of
// the given layouts (contiguous LayoutRight and LayoutLeft, and non-contiguous subviews).
template <class Exec, class Out, class X, class Y>
void check_axpy(const Out& out, const X& x, const Y& y) {
  Exec exec;
  fill(x, uniform<float>(-4, 4));
  fill(y, uniform<float>(-4, 4));
  poison_fill(out);
  const float c = 0.75f;
  unison::transform(
      exec, out, KOKKOS_LAMBDA(float a, float xv, float yv) { return a * xv + yv - c; }, 2.5f, x,
      y);
  exec.fence();
  auto hx = to_host(x), hy = to_host(y), ho = to_host(out);
  // Each element against the float64 value, within a few roundings of the terms' magnitude (the
  // sum may cancel: a relative bound on the result alone would fail on a small result).
  std::size_t off = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    const double expected = 2.5 * hx[i] + hy[i] - c;
    const double scale = 2.5 * std::abs(hx[i]) + std::abs(hy[i]) + c;
    off += !(std::abs(ho[i] - expected) <= 4 * std::numeric_limits<float>::epsilon() * scale);
  }
  EXPECT_EQ(off, 0u) << "elements off, " << out.extent(0) << "x" << out.extent(1) << " "
                     << typeid(Out).name();
}

template <class Exec>
void test_rank2_layouts() {
  using Mem = typename Exec::memory_space;
  for (auto [m, n] : {std::pair{0, 5}, {1, 1}, {37, 53}, {1000, 1001}}) {
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> r0("r0", m, n), r1("r1", m, n), r2("r2", m, n);
    check_axpy<Exec>(r0, r1, r2);
    Kokkos::View<float**, Kokkos::LayoutLeft, Mem> l0("l0", m, n), l1("l1", m, n);
    check_axpy<Exec>(l0, l1, r1);  // mixed layouts: the rank-2 launch
    // Every other column of a wider array: not contiguous.
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> wide("wide", m, 2 * n);
    auto strided = Kokkos::subview(wide, Kokkos::ALL, std::pair<int, int>(n, 2 * n));
    check_axpy<Exec>(strided, r1, r2);
  }
}

template <class Exec>
void test_rank1_strided_and_nullary() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const int n = 1001;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> m("m", n, 3);
  auto col = Kokkos::subview(m, Kokkos::ALL, 1);  // stride 3
  Kokkos::View<double*, Mem> x("x", n);
  fill(x, uniform<double>(-1, 1));
  unison::transform(
      exec, col, KOKKOS_LAMBDA(double v) { return Kokkos::exp(v); }, x);
  // No inputs at all: a constant fill through the same machinery.
  auto col0 = Kokkos::subview(m, Kokkos::ALL, 0);
  unison::transform(
      exec, col0, KOKKOS_LAMBDA() { return 42.0; });
  exec.fence();
  auto hx = to_host(x);
  std::vector<double> expected(n), fortytwo(n, 42.0);
  for (int i = 0; i < n; ++i) expected[i] = std::exp(hx[i]);
  EXPECT_TRUE(close(to_host(col), expected, 1e-14));
  EXPECT_TRUE(close(to_host(col0), fortytwo, 0));
}

template <class Exec>
void test_default_exec_overload() {
  Kokkos::View<int*, typename Exec::memory_space> out("out", 17);
  unison::transform(
      out, KOKKOS_LAMBDA(int v) { return v * 3; }, 5);
  Kokkos::fence();
  EXPECT_TRUE(close(to_host(out), std::vector<double>(17, 15.0), 0));
}

template <class Exec>
void test_transform_errors() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float**, Mem> a("a", 3, 4), b("b", 3, 5), out("out", 3, 4);
  auto f = KOKKOS_LAMBDA(float x, float y) { return x + y; };
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, out, f, a, b); }, "unison::transform",
                             {"input 1 is 3x5", "expected 3x4"}));
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, b, f, a, 1.f); }, "unison::transform",
                             {"input 0 is 3x4", "expected 3x5"}));
  // Overlap: out is the array shifted by one row.
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> buf("buf", 4, 4);
  auto top = Kokkos::subview(buf, std::pair<int, int>(0, 3), Kokkos::ALL);
  auto bottom = Kokkos::subview(buf, std::pair<int, int>(1, 4), Kokkos::ALL);
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, bottom, f, top, 1.f); },
                             "unison::transform", {"overlaps input 0"}));
  // The same array read as a transpose would also race: a LayoutLeft alias of the memory.
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem, Kokkos::MemoryUnmanaged> transposed(buf.data(), 4,
                                                                                     4);
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, buf, f, transposed, 1.f); },
                             "unison::transform", {"overlaps input 0"}));
}

// The chunked launches (K consecutive elements read at once, U chunks per work item; the GPU's
// default) on every backend, with sizes around multiples of K and of the 32-wide groups, on
// aligned arrays (wide accesses) and on arrays offset by one element (the per-element fallback).
template <class Exec, int K, int U>
void check_chunked() {
  Exec exec;
  for (std::size_t n : {1, 3, 31, 32, 95, 96, 97, 1000, 100003}) {
    for (int offset : {0, 1}) {
      Kokkos::View<float*, typename Exec::memory_space> xbuf("x", n + 1), obuf("out", n + 1);
      auto x = Kokkos::subview(xbuf, std::make_pair<std::size_t, std::size_t>(offset, n + offset));
      auto out =
          Kokkos::subview(obuf, std::make_pair<std::size_t, std::size_t>(offset, n + offset));
      fill(xbuf, uniform<float>(-3, 3));
      poison_fill(obuf);
      unison::transform(
          unison::TransformShape<K, U>{}, exec, out,
          KOKKOS_LAMBDA(float v, float c) { return 2 * v + c; }, x, 1.f);
      exec.fence();
      auto hx = to_host(x);
      for (auto& v : hx) v = 2 * v + 1;
      EXPECT_TRUE(close(to_host(out), hx, 1e-7))
          << "K " << K << ", U " << U << ", n = " << n << ", offset " << offset;
      auto ho = to_host(obuf);  // the element outside out is untouched
      EXPECT_TRUE(std::isnan(offset ? ho[0] : ho[n]));
    }
  }
}

template <class Exec>
void test_chunked() {
  check_chunked<Exec, 1, 1>();
  check_chunked<Exec, 1, 3>();
  check_chunked<Exec, 4, 1>();
  check_chunked<Exec, 4, 2>();
  check_chunked<Exec, 2, 3>();
  check_chunked<Exec, 8, 1>();
}

template <class Exec>
struct Transform : ::testing::Test {};
TYPED_TEST_SUITE(Transform, Backends, BackendName);

TYPED_TEST(Transform, rank2_layouts) { test_rank2_layouts<TypeParam>(); }
TYPED_TEST(Transform, rank1_strided_and_nullary) { test_rank1_strided_and_nullary<TypeParam>(); }
TYPED_TEST(Transform, default_exec_overload) { test_default_exec_overload<TypeParam>(); }
TYPED_TEST(Transform, errors) { test_transform_errors<TypeParam>(); }
TYPED_TEST(Transform, chunked) { test_chunked<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// transform: empty operands, more than eight inputs (named "an input"), scalars passed as-is.
template <class Exec>
void test_transform() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> a("a", 4), b("b", 3), none;
  auto f9 = KOKKOS_LAMBDA(float p, float, float, float, float, float, float, float, float q) {
    return p + q;
  };
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, a, f9, a, a, a, a, a, a, a, a, b); },
                             "unison::transform", {"an input is 3, expected 4"}));
  auto f1 = KOKKOS_LAMBDA(float p) { return p; };
  EXPECT_NO_THROW(unison::transform(exec, none, f1, none));
  EXPECT_TRUE(throws_invalid([&] { unison::transform(exec, none, f1, a); }, "unison::transform",
                             {"input 0 is 4, expected 0"}));
  exec.fence();
}

}  // namespace preconditions

template <class Exec>
struct TransformPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(TransformPreconditions, Backends, BackendName);
TYPED_TEST(TransformPreconditions, transform) { preconditions::test_transform<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// One output per element: no arithmetic is shared between elements, so any split over
// threads gives the same bits.

namespace determinism {

struct Axpy {
  template <class T>
  KOKKOS_FUNCTION T operator()(T a, T x, T y) const {
    return a * x + y - T(0.75);
  }
};

template <class Exec>
void test_transform() {
  Exec exec;
  Kokkos::View<float*, Mem<Exec>> x("x", elements), y("y", elements), a("a", elements),
      b("b", elements);
  fill(x, uniform<float>(-4, 4));
  fill(y, uniform<float>(-4, 4));
  twice("rank 1", a, b, [&](const auto& out) { unison::transform(exec, out, Axpy{}, 2.5f, x, y); });
  // Rank 2: contiguous (one flat launch), mixed layouts (the 2-D kernel), strided.
  Kokkos::View<double**, Kokkos::LayoutRight, Mem<Exec>> xr("xr", rows2, cols2),
      yr("yr", rows2, cols2), ar("ar", rows2, cols2), br("br", rows2, cols2);
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem<Exec>> al("al", rows2, cols2),
      bl("bl", rows2, cols2);
  fill(xr, uniform<double>(-4, 4));
  fill(yr, uniform<double>(-4, 4));
  twice("rank 2 contiguous", ar, br,
        [&](const auto& out) { unison::transform(exec, out, Axpy{}, 2.5, xr, yr); });
  twice("rank 2 mixed layouts", al, bl,
        [&](const auto& out) { unison::transform(exec, out, Axpy{}, 2.5, xr, yr); });
  Kokkos::View<double**, Kokkos::LayoutRight, Mem<Exec>> wa("wa", rows2, 2 * cols2),
      wb("wb", rows2, 2 * cols2);
  const std::pair<long, long> half(cols2, 2 * cols2);
  twice("rank 2 strided", Kokkos::subview(wa, Kokkos::ALL, half),
        Kokkos::subview(wb, Kokkos::ALL, half),
        [&](const auto& out) { unison::transform(exec, out, Axpy{}, 2.5, xr, yr); });
}

}  // namespace determinism

template <class Exec>
struct TransformDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(TransformDeterminism, Backends, BackendName);
TYPED_TEST(TransformDeterminism, transform) { determinism::test_transform<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  const int n = 100;
  Kokkos::View<float*, Mem> a("a", n), out("out", n);
  Kokkos::deep_copy(a, 1.f);
  exec.fence();
  auto seen = record([&] {
    unison::transform(
        exec, out, KOKKOS_LAMBDA(float x) { return x; }, a);
    exec.fence();
  });
  EXPECT_GE(seen.labels.size(), 1u);
  for (const auto& label : seen.labels) {
    auto name = label.substr(label.find(' ') + 1);
    EXPECT_EQ(name.rfind("unison::", 0), 0u) << label;
  }
  expect_on(exec, seen);
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  EXPECT_TRUE(has("kernel unison::elementwise::transform")) << "transform";
}

}  // namespace labels

template <class Exec>
struct TransformLabels : ::testing::Test {};
TYPED_TEST_SUITE(TransformLabels, Backends, BackendName);
TYPED_TEST(TransformLabels, transform) { labels::test_labels(TypeParam()); }

template <class Exec>
struct TransformInstance : ::testing::Test {};
TYPED_TEST_SUITE(TransformInstance, Backends, BackendName);
TYPED_TEST(TransformInstance, transform) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
