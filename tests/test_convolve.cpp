// convolve against a float64 host reference (np.convolve's definition), on every backend: every
// mode, both algorithms, float and double, odd sizes, more taps than one scratch chunk, strided
// inputs, and every documented error.
// Beside them, the suites every family has: ConvolvePreconditions, ConvolveDeterminism,
// ConvolveLabels and ConvolveInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <unison/convolve.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::ConvolveAlgorithm;
using unison::ConvolveMode;

const ConvolveMode modes[] = {ConvolveMode::full, ConvolveMode::same, ConvolveMode::valid};
const ConvolveAlgorithm algorithms[] = {ConvolveAlgorithm::automatic, ConvolveAlgorithm::direct,
                                        ConvolveAlgorithm::tiled};

const char* name(ConvolveMode m) {
  return m == ConvolveMode::full ? "full" : m == ConvolveMode::same ? "same" : "valid";
}

// np.convolve(x, k, mode) in float64.
std::vector<double> reference(const std::vector<double>& x, const std::vector<double>& k,
                              ConvolveMode mode) {
  const long n = long(x.size()), m = long(k.size());
  std::vector<double> full(std::size_t(n + m - 1), 0.0);
  for (long t = 0; t < n + m - 1; ++t)
    for (long j = 0; j < m; ++j)
      if (t - j >= 0 && t - j < n)
        full[std::size_t(t)] += x[std::size_t(t - j)] * k[std::size_t(j)];
  const long offset = mode == ConvolveMode::full   ? 0
                      : mode == ConvolveMode::same ? (m - 1) / 2
                                                   : m - 1;
  const long len = unison::convolve_extent(n, m, mode);
  return std::vector<double>(full.begin() + offset, full.begin() + offset + len);
}

template <class Exec, class T>
void check_sizes(long n, long m) {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<T*, Mem> x("x", n), k("k", m);
  fill(x, uniform<T>(-1, 1));
  fill(k, uniform<T>(-1, 1));
  const auto hx = to_host(x), hk = to_host(k);
  // Longer sums in float lose more digits: allow sqrt(m) times the float32 tolerance.
  const double tol = tolerance<T>() * std::max(1.0, std::sqrt(double(m)));
  for (auto mode : modes) {
    if (m > n && mode == ConvolveMode::valid) continue;
    const auto expected = reference(hx, hk, mode);
    std::vector<double> direct;
    for (auto algorithm : algorithms) {
      Kokkos::View<T*, Mem> y("y", unison::convolve_extent(n, m, mode));
      poison_fill(y);  // NaN: a kernel that reads y before writing it fails
      unison::convolve(exec, x, k, y, mode, algorithm);
      exec.fence();
      const auto got = to_host(y);
      EXPECT_TRUE(close(got, expected, tol)) << "n = " << n << ", m = " << m << ", mode "
                                             << name(mode) << ", algorithm " << int(algorithm);
      // Both kernels add the terms in the same order: bitwise the same result.
      if (algorithm == ConvolveAlgorithm::direct) direct = got;
      if (algorithm == ConvolveAlgorithm::tiled) {
        EXPECT_TRUE(close(got, direct, 0))
            << "tiled differs from direct: n = " << n << ", m = " << m << ", mode " << name(mode);
      }
    }
  }
}

template <class Exec>
void test_modes() {
  // One tap, a kernel as long as the signal, odd and even tap counts, more taps than the
  // automatic choice's threshold, more taps than one scratch chunk, more outputs than a tile,
  // and on CPUs the direct kernel's broadcast form from its first tap count to its last and one
  // beyond (ConvolveTuning::broadcast_min_taps, broadcast_max_taps).
  const long cases[][2] = {{1, 1},       {7, 1},
                           {7, 3},       {7, 7},
                           {10, 4},      {1001, 5},
                           {1001, 4},    {5003, 33},
                           {3001, 1500}, {20011, 64},
                           {6007, 257},  {4099, 1024},
                           {4101, 1025}, {(1 << 20) + 3, 5}};
  for (auto& c : cases) {
    check_sizes<Exec, float>(c[0], c[1]);
    check_sizes<Exec, double>(c[0], c[1]);
  }
}

// x and y starting anywhere against a 16-byte boundary (subviews from offset 0 to 3), for
// every tap count up to one more than the GPU's windowed direct kernel takes: each alignment of
// its windows, and the outputs it leaves to the one-at-a-time path at both ends.
template <class Exec, class T>
void check_offsets(long n) {
  using Mem = typename Exec::memory_space;
  Exec exec;
  using Range = Kokkos::pair<long, long>;
  Kokkos::View<T*, Mem> xb("xb", n + 3), yb("yb", n + 12), k("k", 9);
  fill(xb, uniform<T>(-1, 1));
  for (long m = 1; m <= 9; ++m) {
    auto km = Kokkos::subview(k, Range(0, m));
    fill(km, uniform<T>(-1, 1));
    for (long ox = 0; ox < 4; ++ox) {
      auto x = Kokkos::subview(xb, Range(ox, ox + n));
      const auto hx = to_host(x), hk = to_host(km);
      for (auto mode : modes) {
        const auto expected = reference(hx, hk, mode);
        const long len = unison::convolve_extent(n, m, mode);
        for (long oy = 0; oy < 4; ++oy) {
          auto y = Kokkos::subview(yb, Range(oy, oy + len));
          std::vector<double> direct;
          for (auto algorithm : {ConvolveAlgorithm::direct, ConvolveAlgorithm::tiled}) {
            poison_fill(yb);
            unison::convolve(exec, x, km, y, mode, algorithm);
            exec.fence();
            const auto got = to_host(y), all = to_host(yb);
            const std::string where = "n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                                      ", x at +" + std::to_string(ox) + ", y at +" +
                                      std::to_string(oy) + ", mode " + name(mode);
            // Nothing outside y was written (it is still NaN).
            for (long i = 0; i < long(all.size()); ++i)
              if (i < oy || i >= oy + len) {
                EXPECT_TRUE(std::isnan(all[std::size_t(i)])) << i << ", " << where;
              }
            EXPECT_TRUE(close(got, expected, tolerance<T>() * 3)) << where;
            if (algorithm == ConvolveAlgorithm::direct) direct = got;
            else EXPECT_TRUE(close(got, direct, 0)) << "tiled differs from direct: " << where;
          }
        }
      }
    }
  }
}

template <class Exec>
void test_offsets() {
  for (long n : {9L, 23L, 1001L}) {
    check_offsets<Exec, float>(n);
    check_offsets<Exec, double>(n);
  }
}

// Strided inputs and output: column 0 of n x 2 row-major arrays (stride 2).
template <class Exec>
void test_strided() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const long n = 1003, m = 21;
  const auto mode = ConvolveMode::same;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> xb("xb", n, 2), kb("kb", m, 2), yb("yb", n, 2);
  auto x = Kokkos::subview(xb, Kokkos::ALL, 0);
  auto k = Kokkos::subview(kb, Kokkos::ALL, 0);
  auto y = Kokkos::subview(yb, Kokkos::ALL, 1);
  fill(x, uniform<double>(-1, 1));
  fill(k, uniform<double>(-1, 1));
  const auto expected = reference(to_host(x), to_host(k), mode);
  for (auto algorithm : algorithms) {
    poison_fill(y);
    unison::convolve(exec, x, k, y, mode, algorithm);
    exec.fence();
    EXPECT_TRUE(close(to_host(y), expected, tolerance<double>())) << "algorithm " << int(algorithm);
  }
}

template <class Exec>
void test_errors() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* fn = "unison::convolve";
  Kokkos::View<float*, Mem> x("x", 10), k("k", 3), y("y", 8), empty("empty", 0), big("big", 11);
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, empty, k, y, ConvolveMode::valid); }, fn,
                             {"x is empty"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, empty, y, ConvolveMode::valid); }, fn,
                             {"k is empty"}));
  for (auto mode : modes)
    EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, big, y, mode); }, fn,
                               {"k (11) is longer than x (10)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, y, ConvolveMode::full); }, fn,
                             {"y is 8, expected 12", "full"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, y, ConvolveMode::same); }, fn,
                             {"y is 8, expected 10", "same"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, x, ConvolveMode::same); }, fn,
                             {"y (10) overlaps x (10)"}));
  auto inside_x = Kokkos::subview(x, Kokkos::pair<int, int>(2, 10));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, inside_x, ConvolveMode::valid); },
                             fn, {"y (8) overlaps x (10)"}));
  Kokkos::View<float*, Mem> long_k("long_k", 12);
  auto k_in_y = Kokkos::subview(long_k, Kokkos::pair<int, int>(0, 3));
  auto y_in_k = Kokkos::subview(long_k, Kokkos::pair<int, int>(2, 10));
  EXPECT_TRUE(
      throws_invalid([&] { unison::convolve(exec, x, k_in_y, y_in_k, ConvolveMode::valid); }, fn,
                     {"y (8) overlaps k (3)"}));
  EXPECT_TRUE(throws_invalid(
      [&] { unison::convolve(exec, x, k, y, ConvolveMode::valid, ConvolveAlgorithm(7)); }, fn,
      {"unknown algorithm 7"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, y, ConvolveMode(9)); }, fn,
                             {"unknown mode 9"}));
  // A refused call writes nothing.
  Kokkos::deep_copy(y, 3.f);
  EXPECT_ANY_THROW(unison::convolve(exec, x, k, y, ConvolveMode::full));
  exec.fence();
  for (double v : to_host(y)) EXPECT_EQ(v, 3.0);
}

// An infinity in x reaches exactly the outputs whose window holds it (as inf, its sign that of
// the tap it meets), and no other: a kernel that multiplied it by a zero tap outside k (NaN)
// would fail. Every algorithm, few and many taps.
template <class Exec, class T>
void check_infinity(long n, long m, long at) {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<T*, Mem> x("x", n), k("k", m);
  fill(x, uniform<T>(-1, 1));
  fill(k, uniform<T>(0.5, 1));  // positive taps: each infinite output is +inf
  Kokkos::deep_copy(Kokkos::subview(x, at), std::numeric_limits<T>::infinity());
  const auto hx = to_host(x), hk = to_host(k);
  for (auto mode : modes) {
    const auto expected = reference(hx, hk, mode);
    const long len = unison::convolve_extent(n, m, mode);
    for (auto algorithm : algorithms) {
      Kokkos::View<T*, Mem> y("y", len);
      poison_fill(y);
      unison::convolve(exec, x, k, y, mode, algorithm);
      exec.fence();
      const auto got = to_host(y);
      long wrong = 0, first = -1;
      for (long i = 0; i < len; ++i) {
        const double e = expected[std::size_t(i)], g = got[std::size_t(i)];
        const bool ok = std::isinf(e)
                            ? g == e
                            : std::isfinite(g) && std::abs(g - e) <= 1e-3 * (std::abs(e) + 1);
        if (!ok && wrong++ == 0) first = i;
      }
      EXPECT_EQ(wrong, 0) << "n = " << n << ", m = " << m << ", inf at " << at << ", mode "
                          << name(mode) << ", algorithm " << int(algorithm) << ": first at "
                          << first;
    }
  }
}

template <class Exec>
void test_infinity() {
  for (long m : {5L, 100L, 300L}) {
    check_infinity<Exec, float>(4001, m, 2000);
    check_infinity<Exec, double>(4001, m, 2000);
  }
}

template <class Exec>
struct Convolve : ::testing::Test {};
TYPED_TEST_SUITE(Convolve, Backends, BackendName);

TYPED_TEST(Convolve, modes_algorithms_sizes) { test_modes<TypeParam>(); }
TYPED_TEST(Convolve, offsets) { test_offsets<TypeParam>(); }
TYPED_TEST(Convolve, strided) { test_strided<TypeParam>(); }
TYPED_TEST(Convolve, errors) { test_errors<TypeParam>(); }
TYPED_TEST(Convolve, infinity) { test_infinity<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// convolve: empty inputs refused, as the table says; an unknown algorithm; more tiles than
// one launch holds.
template <class Exec>
void test_convolve() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float*, Mem> empty("empty", 0), none;
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, none, none, none, ConvolveMode::full); },
                             "unison::convolve", {"x is empty"}));
  Kokkos::View<float*, Mem> x("x", 4), k("k", 2), y("y", 3);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::convolve(exec, x, k, y, ConvolveMode::valid, unison::ConvolveAlgorithm(-1)); },
      "unison::convolve", {"unknown algorithm -1"}));
  EXPECT_TRUE(throws_invalid([&] { unison::convolve(exec, x, k, empty, ConvolveMode::valid); },
                             "unison::convolve", {"y is 0, expected 3"}));
  // The tiled algorithm on 2^50 outputs: more tiles than one launch holds. x and y are Views of
  // every other element from a small array on (interleaved, disjoint), refused before any is read.
  // The taps come first in that array: any memory above it lies within y's span of bytes, which
  // the overlap check of y and k (Views of different strides) compares.
  using Strided =
      Kokkos::View<float*, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<float*, Mem> buf("buf", 4);
  const auto taps = Kokkos::subview(buf, Kokkos::pair<int, int>(0, 2));
  const std::int64_t huge = std::int64_t(1) << 50;
  const Strided hx(buf.data() + 2, Kokkos::LayoutStride(huge, 2)),
      hy(buf.data() + 3, Kokkos::LayoutStride(huge, 2));
  EXPECT_TRUE(throws_invalid(
      [&] {
        unison::convolve(exec, hx, taps, hy, ConvolveMode::same, unison::ConvolveAlgorithm::tiled);
      },
      "unison::convolve", {"y (1125899906842624) has", "more than 2^31 - 1 for one launch"}));
}

}  // namespace preconditions

template <class Exec>
struct ConvolvePreconditions : ::testing::Test {};
TYPED_TEST_SUITE(ConvolvePreconditions, Backends, BackendName);
TYPED_TEST(ConvolvePreconditions, convolve) { preconditions::test_convolve<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// Each output's terms in a fixed order (ascending taps), whoever computes it.

namespace determinism {

const std::vector<ConvolveMode> all_modes = {ConvolveMode::full, ConvolveMode::same,
                                             ConvolveMode::valid};

template <class Exec, class T>
void check_convolve(ConvolveAlgorithm algorithm, long n, long m,
                    const std::vector<ConvolveMode>& modes = all_modes) {
  Exec exec;
  Kokkos::View<T*, Mem<Exec>> x("x", n), k("k", m);
  fill(x, uniform<T>(-1, 1));
  fill(k, uniform<T>(-1, 1));
  for (auto mode : modes) {
    const long len = long(unison::convolve_extent(n, m, mode));
    Kokkos::View<T*, Mem<Exec>> a("a", len), b("b", len);
    twice("mode " + std::to_string(int(mode)) + ", " + std::to_string(n) + " x " +
              std::to_string(m) + " taps",
          a, b, [&](const auto& y) { unison::convolve(exec, x, k, y, mode, algorithm); });
  }
}

template <class Exec>
void test_convolve_direct() {
  // A few taps (the windowed form on a GPU) and more.
  check_convolve<Exec, float>(ConvolveAlgorithm::direct, 20011, 5);
  check_convolve<Exec, double>(ConvolveAlgorithm::direct, 10007, 33);
}

template <class Exec>
void test_convolve_tiled() {
  // Several tiles of outputs (a CPU tile is 4096 outputs, a GPU one 2048), and (separately, to
  // keep the work small) two chunks of taps (1024 a chunk).
  check_convolve<Exec, float>(ConvolveAlgorithm::tiled, 4501, 41, {ConvolveMode::full});
  check_convolve<Exec, double>(ConvolveAlgorithm::tiled, 4501, 77, {ConvolveMode::same});
  check_convolve<Exec, float>(ConvolveAlgorithm::tiled, 1500, 1031, {ConvolveMode::valid});
}

template <class Exec>
void test_convolve_automatic() {
  check_convolve<Exec, double>(ConvolveAlgorithm::automatic, 4001, 129);
}

}  // namespace determinism

template <class Exec>
struct ConvolveDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(ConvolveDeterminism, Backends, BackendName);
TYPED_TEST(ConvolveDeterminism, convolve_direct) { determinism::test_convolve_direct<TypeParam>(); }
TYPED_TEST(ConvolveDeterminism, convolve_tiled) { determinism::test_convolve_tiled<TypeParam>(); }
TYPED_TEST(ConvolveDeterminism, convolve_automatic) {
  determinism::test_convolve_automatic<TypeParam>();
}

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float*, Mem> x("x", 1000), k("k", 5), y("y", 996);
  exec.fence();
  auto seen = record([&] {
    unison::convolve(exec, x, k, y, unison::ConvolveMode::valid, unison::ConvolveAlgorithm::direct);
    unison::convolve(exec, x, k, y, unison::ConvolveMode::valid, unison::ConvolveAlgorithm::tiled);
    exec.fence();
  });
  expect_on(exec, seen);
  expect_unison_labels(seen.labels);
  expect_calls(seen,
               {{"unison::convolve", {"unison::convolve::direct"}},
                {"unison::convolve", {"unison::convolve::tiled"}}},
               {"unison::convolve::"});
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* name : {"kernel unison::convolve::direct", "kernel unison::convolve::tiled"})
    EXPECT_TRUE(has(name)) << name;
}

}  // namespace labels

template <class Exec>
struct ConvolveLabels : ::testing::Test {};
TYPED_TEST_SUITE(ConvolveLabels, Backends, BackendName);
TYPED_TEST(ConvolveLabels, convolve) { labels::test_labels(TypeParam()); }

template <class Exec>
struct ConvolveInstance : ::testing::Test {};
TYPED_TEST_SUITE(ConvolveInstance, Backends, BackendName);
TYPED_TEST(ConvolveInstance, convolve) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
