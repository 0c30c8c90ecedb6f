// Sizes past 2^31 elements (issue 7): element-wise functions, the histogram and the convolution
// on arrays longer than a 32-bit signed index can address. An index that wrapped at 2^31 would
// write elsewhere, fault, or leave the poisoned tail of an output untouched; every element of
// every output is checked.
//
// These tests need tens of GiB (3 arrays of n float32 at most, 36 GB for n = 3e9): they run only
// when UNISON_LARGE_TESTS=1 and skip otherwise. UNISON_LARGE_N sets n (default 2^31 + 4099).
// On the GPU machine: `UNISON_LARGE_TESTS=1 UNISON_LARGE_N=3000000001 unison_tests
// --gtest_filter='Large/Cuda.*'` (what tools/gpu-machine.sh large runs).
//
// The data are generated on the device from each element's index (no host copy of 12 GB), and
// the checks run there too, as reductions that count the mismatches and find the first:
//  - add: exact (one float rounding, the same on both sides);
//  - gaussian_pdf: against the formula in double, within 1e-5 relative (docs/workloads.md);
//  - histogram: exact, against counts from a plain reference kernel with 64-bit atomics;
//  - convolve: exact, because x and the taps are small integers whose sums float holds exactly.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include <unison/convolve.hpp>
#include <unison/elementwise.hpp>
#include <unison/histogram.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec>
struct Large : ::testing::Test {};
TYPED_TEST_SUITE(Large, Backends, BackendName);

bool large_enabled() {
  const char* on = std::getenv("UNISON_LARGE_TESTS");
  return on && std::string(on) == "1";
}

std::int64_t large_n() {
  const char* n = std::getenv("UNISON_LARGE_N");
  return n ? std::strtoll(n, nullptr, 10) : (std::int64_t(1) << 31) + 4099;
}

// A well-mixed 32-bit hash of an index, the same on host and device.
KOKKOS_INLINE_FUNCTION std::uint32_t mix(std::int64_t i) {
  std::uint64_t z = std::uint64_t(i) * 0x9E3779B97F4A7C15ULL;
  z ^= z >> 29;
  z *= 0xBF58476D1CE4E5B9ULL;
  return std::uint32_t(z >> 32);
}

// The number of i < n for which bad(i), and the first such i (n when none).
struct Mismatches {
  std::int64_t count = 0, first = 0;
};
template <class Bad>
struct CountBad {
  Bad bad;
  KOKKOS_FUNCTION void operator()(std::int64_t i, std::int64_t& count, std::int64_t& first) const {
    if (bad(i)) {
      ++count;
      if (i < first) first = i;
    }
  }
};
template <class Exec, class Bad>
Mismatches mismatches(const Exec& exec, std::int64_t n, const Bad& bad) {
  Mismatches m;
  Kokkos::parallel_reduce("unison::test::large::mismatches",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
                          CountBad<Bad>{bad}, Kokkos::Sum<std::int64_t>(m.count),
                          Kokkos::Min<std::int64_t>(m.first));
  exec.fence();
  if (m.count == 0) m.first = n;
  return m;
}

::testing::AssertionResult none(const Mismatches& m, std::int64_t n) {
  if (m.count == 0) return ::testing::AssertionSuccess() << n << " elements checked";
  return ::testing::AssertionFailure() << m.count << " of " << n << " elements wrong, the first at "
                                       << m.first << " (2^31 = " << (std::int64_t(1) << 31) << ")";
}

template <class Exec>
void test_elementwise(std::int64_t n) {
  using View = Kokkos::View<float*, typename Exec::memory_space>;
  Exec exec;
  View x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::x"), n);
  View y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::y"), n);
  View out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::out"), n);
  Kokkos::parallel_for(
      "unison::test::large::fill",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        x(i) = float(mix(i) >> 8) * (1.0f / 16777216.0f) * 8 - 4;  // [-4, 4), 24 bits
        y(i) = float(i % 1000003) * 0.001f;
      });
  Kokkos::deep_copy(exec, out, std::numeric_limits<float>::quiet_NaN());

  unison::add(exec, x, y, out);
  const auto add_wrong = KOKKOS_LAMBDA(std::int64_t i) { return !(out(i) == x(i) + y(i)); };
  EXPECT_TRUE(none(mismatches(exec, n, add_wrong), n)) << "add";

  Kokkos::deep_copy(exec, out, std::numeric_limits<float>::quiet_NaN());
  unison::gaussian_pdf(exec, x, 0.5f, 1.5f, out);
  const auto pdf_wrong = KOKKOS_LAMBDA(std::int64_t i) {
    const double z = (double(x(i)) - 0.5) / 1.5;
    const double ref = Kokkos::exp(-0.5 * z * z) / (1.5 * Kokkos::sqrt(2 * 3.14159265358979323846));
    return !(Kokkos::abs(double(out(i)) - ref) <= 1e-5 * ref);
  };
  EXPECT_TRUE(none(mismatches(exec, n, pdf_wrong), n)) << "gaussian_pdf";
}

template <class Exec>
void test_histogram(std::int64_t n) {
  Exec exec;
  const std::int64_t nbins = 97;
  const double xmin = -2, xmax = 3;
  Kokkos::View<float*, typename Exec::memory_space> x(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::x"), n);
  // Values spread over [-2.5, 3.5): some below xmin, some at or above xmax; every 1001st NaN.
  Kokkos::parallel_for(
      "unison::test::large::fill",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        x(i) = i % 1001 == 0 ? Kokkos::Experimental::quiet_NaN<float>::value
                             : float(mix(i) >> 8) * (1.0f / 16777216.0f) * 6 - 2.5f;
      });
  Kokkos::View<std::int64_t*, typename Exec::memory_space> counts("unison::test::large::counts",
                                                                  nbins),
      ref("unison::test::large::ref", nbins);
  Kokkos::deep_copy(exec, counts, -1);
  unison::histogram(exec, x, xmin, xmax, counts);
  // The reference: the bin of v is the k with e_k <= v < e_{k+1}, e_k = fma(k, w, xmin) (the
  // documented edges), found by a search in double.
  const double w = (xmax - xmin) / double(nbins);
  Kokkos::parallel_for(
      "unison::test::large::reference",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        const double v = x(i);
        if (!(v >= xmin && v < xmax)) return;
        std::int64_t k = std::int64_t((v - xmin) / w);
        if (k >= nbins) k = nbins - 1;
        while (k > 0 && v < Kokkos::fma(double(k), w, xmin)) --k;
        while (k + 1 < nbins && v >= Kokkos::fma(double(k + 1), w, xmin)) ++k;
        Kokkos::atomic_add(&ref(k), std::int64_t(1));
      });
  auto got = to_host(counts), want = to_host(ref);
  double total = 0;
  for (double c : want) total += c;
  EXPECT_GT(total, 0.5 * double(n));
  EXPECT_TRUE(close(got, want, 0)) << "histogram of " << n << " values";
}

template <class Exec>
void test_convolve(std::int64_t n, std::int64_t m, unison::ConvolveAlgorithm algorithm) {
  Exec exec;
  using View = Kokkos::View<float*, typename Exec::memory_space>;
  View x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::x"), n);
  View k(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::k"), m);
  const auto mode = unison::ConvolveMode::full;
  const std::int64_t len = unison::convolve_extent(n, m, mode);
  View y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "unison::test::large::y"), len);
  // Integers in [-8, 8] and taps in [-3, 3]: every partial sum is an integer below 2^24 in
  // magnitude, exact in float whatever the order of the terms.
  Kokkos::parallel_for(
      "unison::test::large::fill",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        x(i) = float(int(mix(i) % 17) - 8);
        if (i < m) k(i) = float(int(mix(i + 12345) % 7) - 3);
      });
  Kokkos::deep_copy(exec, y, std::numeric_limits<float>::quiet_NaN());
  unison::convolve(exec, x, k, y, mode, algorithm);
  const auto wrong = KOKKOS_LAMBDA(std::int64_t i) {
    double ref = 0;
    for (std::int64_t j = 0; j < m; ++j)
      if (i - j >= 0 && i - j < n) ref += double(x(i - j)) * double(k(j));
    return !(double(y(i)) == ref);
  };
  EXPECT_TRUE(none(mismatches(exec, len, wrong), len))
      << "convolve of " << n << " by " << m << " taps";
}

#define UNISON_LARGE_GUARD() \
  if (!large_enabled()) GTEST_SKIP() << "set UNISON_LARGE_TESTS=1 to run (tens of GiB)"

TYPED_TEST(Large, elementwise) {
  UNISON_LARGE_GUARD();
  test_elementwise<TypeParam>(large_n());
}
TYPED_TEST(Large, histogram) {
  UNISON_LARGE_GUARD();
  test_histogram<TypeParam>(large_n());
}
TYPED_TEST(Large, convolve_direct) {
  UNISON_LARGE_GUARD();
  test_convolve<TypeParam>(large_n(), 5, unison::ConvolveAlgorithm::direct);
}
TYPED_TEST(Large, convolve_tiled) {
  UNISON_LARGE_GUARD();
  test_convolve<TypeParam>(large_n(), 41, unison::ConvolveAlgorithm::tiled);
}

}  // namespace
