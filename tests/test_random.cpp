// docs/workloads.md section 6, random numbers, on every backend: monte_carlo_pi (statistics,
// reproducibility, the same estimate on every backend, the written-out generator) and every bad
// input's error. Beside them, the suites every family has: RandomPreconditions, RandomDeterminism,
// RandomLabels and RandomInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <unison/random.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec>
struct Random : ::testing::Test {};
TYPED_TEST_SUITE(Random, Backends, BackendName);

template <class Exec>
void test_monte_carlo() {
  Exec exec;
  const std::int64_t samples = 2000003;
  const double pi = 3.14159265358979323846;
  const double p = pi / 4, se = 4 * std::sqrt(p * (1 - p) / double(samples));
  const double a = unison::monte_carlo_pi(exec, samples, std::uint64_t(12345));
  EXPECT_LT(std::abs(a - pi), 5 * se) << a;
  EXPECT_EQ(a, unison::monte_carlo_pi(exec, samples, std::uint64_t(12345)));
  EXPECT_NE(a, unison::monte_carlo_pi(exec, samples, std::uint64_t(54321)));
  // The estimate is a function of the seed and the sample count alone: the same on the host's
  // default backend (another thread count) as here.
  Kokkos::DefaultHostExecutionSpace host;
  EXPECT_EQ(a, unison::monte_carlo_pi(host, samples, std::uint64_t(12345)));
  // A sequence advances by (samples + 1) / 2 values a call: two calls draw what one call of
  // their total draws (for an even first count), and the second call's points are new ones.
  unison::RandomSequence s(777), whole(777);
  const std::int64_t n1 = 100002, n2 = 100003;
  const double first = unison::monte_carlo_pi(exec, n1, s);
  EXPECT_EQ(s.position(), std::uint64_t(n1 / 2));
  const double second = unison::monte_carlo_pi(exec, n2, s);
  EXPECT_EQ(s.position(), std::uint64_t(n1 / 2 + (n2 + 1) / 2));
  EXPECT_NE(first, second);
  const double both = unison::monte_carlo_pi(exec, n1 + n2, whole);
  EXPECT_EQ(std::llround(first * n1 / 4) + std::llround(second * n2 / 4),
            std::llround(both * (n1 + n2) / 4));
  // Fewer samples than threads, and a single sample.
  EXPECT_TRUE(std::isfinite(unison::monte_carlo_pi(exec, 7, s)));
  const double single = unison::monte_carlo_pi(exec, 1, s);
  EXPECT_TRUE(single == 0 || single == 4) << single;
  // The points, against a float64 host reference from the sequence's documented values: two
  // points per value (high half first), each the centre of a cell of a 2^16 x 2^16 grid; an odd
  // count ends with a high half; from a position other than 0.
  for (const std::int64_t n : {1, 2, 5, 20001, 1 << 20}) {
    for (const std::uint64_t skip : {std::uint64_t(0), std::uint64_t(12345)}) {
      unison::RandomSequence seq(4242);
      seq.advance(skip);
      const std::uint64_t key = seq.key();
      std::int64_t inside = 0;
      for (std::int64_t p = 0; p < n; p += 2) {
        // SplitMix64, written out here: key + (i + 1) * golden-ratio increment, then the mix.
        std::uint64_t z = key + (skip + std::uint64_t(p / 2) + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        for (int h = 0; h < 2 && p + h < n; ++h) {
          const std::uint64_t half = h == 0 ? z >> 32 : z & 0xffffffffu;
          const double x = double(2 * (half >> 16) + 1) / 131072,
                       y = double(2 * (half & 0xffff) + 1) / 131072;
          inside += x * x + y * y < 1;  // exact: 34-bit integers over 2^34
        }
      }
      EXPECT_EQ(unison::monte_carlo_pi(exec, n, seq), 4.0 * double(inside) / double(n))
          << n << ", from " << skip;
    }
  }
  // The key is the mix of the seed (0 for seed 0): seed 0's sequence is SplitMix64's from state
  // 0, whose first value is the published 0xe220a8397b1dcdaf; seeds 0 and 1 are unrelated.
  EXPECT_EQ(unison::RandomSequence(0)[0], 0xe220a8397b1dcdafull);
  EXPECT_NE(unison::RandomSequence(0)[0], unison::RandomSequence(1)[0]);
  // The hash alone: SplitMix64's output function, its first value from state 0, and the key.
  EXPECT_EQ(unison::RandomSequence::mix(std::uint64_t(0x9e3779b97f4a7c15ull)),
            0xe220a8397b1dcdafull);
  EXPECT_EQ(unison::RandomSequence(777).key(), unison::RandomSequence::mix(std::uint64_t(777)));
  // Errors.
  EXPECT_TRUE(throws_invalid([&] { unison::monte_carlo_pi(exec, 0, std::uint64_t(1)); },
                             "unison::monte_carlo_pi", {"samples is 0"}));
  unison::RandomSequence errors(5);
  EXPECT_TRUE(throws_invalid([&] { unison::monte_carlo_pi(exec, -5, errors); },
                             "unison::monte_carlo_pi", {"samples is -5"}));
  EXPECT_EQ(errors.position(), 0u);  // a refused call draws nothing
}

// The grid of monte_carlo_pi's points is within 1.5e-8 of pi (relative), as documented: the
// centres of the 2^16 x 2^16 cells inside the quarter circle, counted row by row.
TEST(RandomGrid, monte_carlo_pi_grid_error) {
  const std::int64_t cells = 65536;
  std::int64_t inside = 0;
  for (std::int64_t a = 0; a < cells; ++a) {
    const std::int64_t left = (std::int64_t(1) << 34) - (2 * a + 1) * (2 * a + 1);
    // Rows b with (2b + 1)^2 < left: the largest odd o with o^2 < left, then (o + 1) / 2 rows.
    std::int64_t o = std::int64_t(std::sqrt(double(left)));
    while (o * o >= left) --o;
    while ((o + 1) * (o + 1) < left) ++o;
    if (o % 2 == 0) --o;
    inside += o > 0 ? (o + 1) / 2 : 0;
  }
  const double pi = 3.14159265358979323846, grid = 4.0 * double(inside) / double(cells * cells);
  EXPECT_LT(std::abs(grid - pi) / pi, 1.6e-8) << grid;
  EXPECT_GT(std::abs(grid - pi) / pi, 1.4e-8) << grid;  // the documented figure, not just a bound
}

TYPED_TEST(Random, monte_carlo_pi) { test_monte_carlo<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// Random sequences: any seed is valid (0 too); samples.
template <class Exec>
void test_random() {
  Exec exec;
  unison::RandomSequence zero(0), again(0);
  const double p0 = unison::monte_carlo_pi(exec, 1000, zero);
  EXPECT_EQ(p0, unison::monte_carlo_pi(exec, 1000, again));
  EXPECT_TRUE(p0 > 2 && p0 < 4);
  EXPECT_TRUE(throws_invalid(
      [&] {
        unison::monte_carlo_pi(exec, std::numeric_limits<std::int64_t>::min(), std::uint64_t(1));
      },
      "unison::monte_carlo_pi", {"expected at least 1"}));
  EXPECT_TRUE(throws_invalid([&] { unison::monte_carlo_pi(exec, 0, zero); },
                             "unison::monte_carlo_pi", {"expected at least 1"}));
}

}  // namespace preconditions

template <class Exec>
struct RandomPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(RandomPreconditions, Backends, BackendName);
TYPED_TEST(RandomPreconditions, random) { preconditions::test_random<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// One value per call.

namespace determinism {

template <class Exec>
void test_monte_carlo_pi() {
  Exec exec;
  // The same seed twice.
  const std::int64_t samples = 1000003;
  const double a = unison::monte_carlo_pi(exec, samples, std::uint64_t(2024));
  const double b = unison::monte_carlo_pi(exec, samples, std::uint64_t(2024));
  EXPECT_TRUE(same_bits_scalar(a, b)) << "seed 2024";
  // Two RandomSequences of one seed: the same estimates, call after call (they advance alike).
  unison::RandomSequence s1(99), s2(99);
  for (int call = 0; call < 2; ++call) {
    const double c = unison::monte_carlo_pi(exec, 300007, s1);
    const double d = unison::monte_carlo_pi(exec, 300007, s2);
    EXPECT_TRUE(same_bits_scalar(c, d)) << "sequences, call " << call;
  }
}

}  // namespace determinism

template <class Exec>
struct RandomDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(RandomDeterminism, Backends, BackendName);
TYPED_TEST(RandomDeterminism, monte_carlo_pi) { determinism::test_monte_carlo_pi<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  unison::RandomSequence sequence(5);
  exec.fence();
  auto seen = record([&] {
    unison::monte_carlo_pi(exec, 1000, sequence);
    exec.fence();
  });
  expect_on(exec, seen);
  expect_unison_labels(seen.labels);
  EXPECT_TRUE(has_label(seen, "kernel unison::random::monte_carlo_pi"));
  expect_calls(seen, {{"unison::monte_carlo_pi", {"unison::random::monte_carlo_pi"}}},
               {"unison::random::"});
}

}  // namespace labels

template <class Exec>
struct RandomLabels : ::testing::Test {};
TYPED_TEST_SUITE(RandomLabels, Backends, BackendName);
TYPED_TEST(RandomLabels, monte_carlo_pi) { labels::test_labels(TypeParam()); }

template <class Exec>
struct RandomInstance : ::testing::Test {};
TYPED_TEST_SUITE(RandomInstance, Backends, BackendName);
TYPED_TEST(RandomInstance, monte_carlo_pi) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
