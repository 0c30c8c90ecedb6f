// The small examples of docs/workloads.md section 6 on every backend: rgb_to_grayscale (against the
// documented formula, float and 8-bit pixels), loop_sum (exact sums, up to loop_sum_max_n) and
// lucas (every value type, up to its largest exact index), atomic_counter (the count is exact);
// run-to-run determinism, labels and
// instances, and every bad input's error.
// Beside them, the suites every family has: ExamplesPreconditions, ExamplesDeterminism,
// ExamplesLabels and ExamplesInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <unison/examples.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;

template <class Exec>
struct Examples : ::testing::Test {};
TYPED_TEST_SUITE(Examples, Backends, BackendName);

template <class Exec, class In, class Out>
void check_grayscale(long h, long w) {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<In*, Mem> flat("flat", h * w * 3);
  if constexpr (std::is_same_v<In, float>) fill(flat, uniform<float>(0, 1));
  else fill(flat, uniform<std::uint8_t>(0, 255));
  Kokkos::View<In***, Kokkos::LayoutRight, Mem> rgb(flat.data(), h, w, 3);
  Kokkos::View<Out**, Mem> gray("gray", h, w);
  poison_fill(gray);
  unison::examples::rgb_to_grayscale(exec, rgb, gray);
  exec.fence();
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rgb);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gray);
  int bad = 0;
  for (long i = 0; i < h; ++i)
    for (long j = 0; j < w; ++j) {
      const double want =
          0.299 * double(hr(i, j, 0)) + 0.587 * double(hr(i, j, 1)) + 0.114 * double(hr(i, j, 2));
      const double got = double(hg(i, j));
      // float: a few float roundings of values up to 255; uint8: the nearest integer, or the
      // other one when want is within float rounding of a half.
      const bool ok = std::is_floating_point_v<Out>
                          ? std::abs(got - want) <= 4e-7 * (std::abs(want) + 1)
                          : std::abs(got - want) <= 0.5 + 1e-4;
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << h << "x" << w << " (" << i << ", " << j << "): got " << got
                      << ", expected " << want;
      // On the CPU (8-bit pixels 64 at a time with AVX-512 VBMI, float ones 16 at a time with
      // AVX-512, else one by one): exactly the documented float arithmetic, in its order (this
      // file has no FMA contraction).
      if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
        const float v =
            0.299f * float(hr(i, j, 0)) + 0.587f * float(hr(i, j, 1)) + 0.114f * float(hr(i, j, 2));
        const Out exact = std::is_floating_point_v<Out> ? Out(v) : Out(v + 0.5f);
        if (hg(i, j) != exact && ++bad <= 5)
          ADD_FAILURE() << h << "x" << w << " (" << i << ", " << j << "): got " << got
                        << ", the float formula gives " << double(exact);
      }
    }
}

template <class Exec>
void test_grayscale() {
  // Widths whose last block of 64 pixels ends inside each quarter of 16 (1, 401, 100, 53), on
  // each edge between quarters (80, 96, 112) or at the block's end (64, 128).
  for (auto [h, w] : {std::pair<long, long>{1, 1},
                      {37, 53},
                      {300, 401},
                      {3, 64},
                      {2, 128},
                      {4, 100},
                      {5, 112},
                      {3, 80},
                      {2, 96}}) {
    check_grayscale<Exec, float, float>(h, w);
    check_grayscale<Exec, float, double>(h, w);
    check_grayscale<Exec, std::uint8_t, std::uint8_t>(h, w);
    check_grayscale<Exec, std::uint8_t, float>(h, w);
  }
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<float***, Mem> rgba("rgba", 4, 5, 4), rgb("rgb", 4, 5, 3);
  Kokkos::View<float**, Mem> gray("gray", 4, 5), wrong("wrong", 5, 4);
  EXPECT_TRUE(throws_invalid([&] { unison::examples::rgb_to_grayscale(exec, rgba, gray); },
                             "unison::examples::rgb_to_grayscale", {"last extent must be 3"}));
  EXPECT_TRUE(throws_invalid([&] { unison::examples::rgb_to_grayscale(exec, rgb, wrong); },
                             "unison::examples::rgb_to_grayscale", {"gray is 5x4, expected 4x5"}));
  Kokkos::View<float**, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> alias(rgb.data(), 4, 5);
  EXPECT_TRUE(throws_invalid([&] { unison::examples::rgb_to_grayscale(exec, rgb, alias); },
                             "unison::examples::rgb_to_grayscale", {"overlaps rgb"}));
}

template <class Exec>
void test_loop_sum() {
  Exec exec;
  EXPECT_EQ(unison::examples::loop_sum(exec, 10000), 249950002500000.0);
  for (std::int64_t n : {0, 1, 2, 3, 17, 1001}) {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) s += i * j;
    EXPECT_EQ(unison::examples::loop_sum(exec, n), double(s) * 0.1) << n;
  }
  const std::int64_t m = unison::examples::loop_sum_max_n, half = m * (m - 1) / 2;
  EXPECT_EQ(unison::examples::loop_sum(exec, m), double(half * half) * 0.1);
  EXPECT_TRUE(throws_invalid([&] { unison::examples::loop_sum(exec, m + 1); },
                             "unison::examples::loop_sum", {"overflows 64 bits"}));
  EXPECT_TRUE(throws_invalid([&] { unison::examples::loop_sum(exec, -1); },
                             "unison::examples::loop_sum", {"n is -1"}));
}

template <class Exec, class T>
void check_lucas(std::int64_t n) {
  Exec exec;
  Kokkos::View<T*, typename Exec::memory_space> out("out", n);
  unison::examples::lucas(exec, out);
  exec.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  unsigned long long a = 2, b = 1;  // L(i), L(i + 1): exact up to L(92)
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(h(i), T(a)) << i;
    const unsigned long long c = a + b;
    a = b;
    b = c;
  }
}

template <class Exec>
void test_lucas() {
  Exec exec;
  using Mem = typename Exec::memory_space;
  Kokkos::View<std::int32_t*, Mem> out41("out", 41);
  unison::examples::lucas(exec, out41);
  exec.fence();
  auto h41 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out41);
  EXPECT_EQ(h41(40), 228826127);
  check_lucas<Exec, std::int32_t>(45);  // up to L(44), the largest below 2^31
  check_lucas<Exec, std::uint32_t>(47);
  check_lucas<Exec, std::int64_t>(91);
  check_lucas<Exec, std::uint64_t>(93);
  check_lucas<Exec, float>(35);
  check_lucas<Exec, double>(77);
  check_lucas<Exec, std::int64_t>(0);
  check_lucas<Exec, std::int64_t>(1);
  const auto too_long = [&](auto zero, std::int64_t n, std::int64_t max) {
    Kokkos::View<decltype(zero)*, Mem> out("out", n);
    EXPECT_TRUE(throws_invalid([&] { unison::examples::lucas(exec, out); },
                               "unison::examples::lucas",
                               {"largest exact index is " + std::to_string(max)}))
        << n;
  };
  too_long(std::int32_t(0), 46, 44);
  too_long(std::int64_t(0), 92, 90);
  too_long(std::uint64_t(0), 94, 92);
  too_long(float(0), 36, 34);
  too_long(double(0), 78, 76);
}
template <class Exec>
void test_atomic_counter() {
  Exec exec;
  EXPECT_EQ(unison::examples::atomic_counter(exec, 1000003), 1000003);
  EXPECT_EQ(unison::examples::atomic_counter(exec, 1), 1);
  EXPECT_EQ(unison::examples::atomic_counter(exec, 0), 0);
  EXPECT_TRUE(throws_invalid([&] { unison::examples::atomic_counter(exec, -1); },
                             "unison::examples::atomic_counter", {"n is -1"}));
}

TYPED_TEST(Examples, rgb_to_grayscale) { test_grayscale<TypeParam>(); }
TYPED_TEST(Examples, loop_sum) { test_loop_sum<TypeParam>(); }
TYPED_TEST(Examples, lucas) { test_lucas<TypeParam>(); }
TYPED_TEST(Examples, atomic_counter) { test_atomic_counter<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

// The small examples: empty Views, index and count limits, refused calls writing nothing.
template <class Exec>
void test_examples() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  // rgb_to_grayscale: an empty image is valid; a 0-channel one is not.
  Kokkos::View<float***, Mem> none("none", 0, 5, 3), no_channels("no_channels", 4, 5, 0),
      rgb("rgb", 4, 5, 3);
  Kokkos::View<float**, Mem> gray0("gray0", 0, 5), gray("gray", 4, 5), wrong("wrong", 4, 4);
  EXPECT_NO_THROW(unison::examples::rgb_to_grayscale(exec, none, gray0));
  EXPECT_TRUE(throws_invalid([&] { unison::examples::rgb_to_grayscale(exec, no_channels, gray); },
                             "unison::examples::rgb_to_grayscale",
                             {"rgb is 4x5x0", "last extent must be 3"}));
  Kokkos::deep_copy(gray, 7.f);
  Kokkos::deep_copy(rgb, 1.f);
  EXPECT_ANY_THROW(unison::examples::rgb_to_grayscale(exec, no_channels, gray));
  exec.fence();
  EXPECT_TRUE(all_equal(gray, 7.0));
  EXPECT_TRUE(throws_invalid([&] { unison::examples::rgb_to_grayscale(exec, rgb, wrong); },
                             "unison::examples::rgb_to_grayscale", {"gray is 4x4, expected 4x5"}));

  // loop_sum: 0 is valid; the extremes of int64 are refused.
  EXPECT_EQ(unison::examples::loop_sum(exec, 0), 0.0);
  for (std::int64_t n :
       {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
    EXPECT_TRUE(throws_invalid([&] { unison::examples::loop_sum(exec, n); },
                               "unison::examples::loop_sum",
                               {"n is " + std::to_string(n), "expected 0 to 77936"}));

  // lucas: an empty out is valid; one element too many for the type is refused, unwritten.
  Kokkos::View<std::int64_t*, Mem> empty("empty", 0);
  EXPECT_NO_THROW(unison::examples::lucas(exec, empty));
  const auto too_long = [&](auto zero, std::int64_t max) {
    Kokkos::View<decltype(zero)*, Mem> out("out", max + 2);
    Kokkos::deep_copy(out, decltype(zero)(7));
    EXPECT_TRUE(throws_invalid([&] { unison::examples::lucas(exec, out); },
                               "unison::examples::lucas",
                               {"out has " + std::to_string(max + 2) + " elements",
                                "largest exact index is " + std::to_string(max)}));
    exec.fence();
    EXPECT_TRUE(all_equal(out, 7.0));
  };
  too_long(std::int64_t(0), 90);
  too_long(std::uint64_t(0), 92);
  too_long(float(0), 34);
  too_long(double(0), 76);
  too_long(std::int8_t(0), unison::examples::lucas_max_index<std::int8_t>());
  EXPECT_EQ(unison::examples::lucas_max_index<std::int8_t>(), 10);  // L(10) = 123, L(11) = 199
  EXPECT_TRUE(throws_invalid(
      [&] { unison::examples::atomic_counter(exec, std::numeric_limits<std::int64_t>::min()); },
      "unison::examples::atomic_counter", {"expected 0 or more"}));
}

}  // namespace preconditions

template <class Exec>
struct ExamplesPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(ExamplesPreconditions, Backends, BackendName);
TYPED_TEST(ExamplesPreconditions, examples) { preconditions::test_examples<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// Integer results (exact) or one value per element.

namespace determinism {

template <class Exec>
void test_rgb_to_grayscale() {
  Exec exec;
  const long h = 151, w = 203;
  // uint8 to uint8, LayoutRight pixels.
  Kokkos::View<std::uint8_t*, Mem<Exec>> bytes("bytes", h * w * 3);
  fill(bytes, uniform<std::uint8_t>(0, 255));
  Kokkos::View<std::uint8_t***, Kokkos::LayoutRight, Mem<Exec>,
               Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      rgb8(bytes.data(), h, w, 3);
  Kokkos::View<std::uint8_t**, Mem<Exec>> a("a", h, w), b("b", h, w);
  twice("uint8", a, b,
        [&](const auto& gray) { unison::examples::rgb_to_grayscale(exec, rgb8, gray); });
  // float to float, LayoutLeft pixels.
  Kokkos::View<float*, Mem<Exec>> floats("floats", h * w * 3);
  fill(floats, uniform<float>(0, 1));
  Kokkos::View<float***, Kokkos::LayoutLeft, Mem<Exec>, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      rgbf(floats.data(), h, w, 3);
  Kokkos::View<float**, Mem<Exec>> c("c", h, w), d("d", h, w);
  twice("float", c, d,
        [&](const auto& gray) { unison::examples::rgb_to_grayscale(exec, rgbf, gray); });
}

template <class Exec>
void test_loop_sum() {
  Exec exec;
  const double a = unison::examples::loop_sum(exec, 3001),
               b = unison::examples::loop_sum(exec, 3001);
  EXPECT_TRUE(same_bits_scalar(a, b));
}

template <class Exec>
void test_lucas() {
  Exec exec;
  Kokkos::View<std::int64_t*, Mem<Exec>> a("a", 91), b("b", 91);
  twice("int64", a, b, [&](const auto& out) { unison::examples::lucas(exec, out); });
  Kokkos::View<double*, Mem<Exec>> c("c", 77), d("d", 77);
  twice("double", c, d, [&](const auto& out) { unison::examples::lucas(exec, out); });
}

template <class Exec>
void test_atomic_counter() {
  Exec exec;
  const std::int64_t n = 1000003;
  const auto first = unison::examples::atomic_counter(exec, n),
             second = unison::examples::atomic_counter(exec, n);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, n);
}

}  // namespace determinism

template <class Exec>
struct ExamplesDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(ExamplesDeterminism, Backends, BackendName);
TYPED_TEST(ExamplesDeterminism, rgb_to_grayscale) {
  determinism::test_rgb_to_grayscale<TypeParam>();
}
TYPED_TEST(ExamplesDeterminism, loop_sum) { determinism::test_loop_sum<TypeParam>(); }
TYPED_TEST(ExamplesDeterminism, lucas) { determinism::test_lucas<TypeParam>(); }
TYPED_TEST(ExamplesDeterminism, atomic_counter) { determinism::test_atomic_counter<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  Kokkos::View<float***, Mem> rgb("rgb", 3, 4, 3);
  Kokkos::View<float**, Mem> gray("gray", 3, 4);
  Kokkos::View<std::int64_t*, Mem> lucas("lucas", 20);
  exec.fence();
  auto seen = record([&] {
    unison::examples::rgb_to_grayscale(exec, rgb, gray);
    unison::examples::loop_sum(exec, 100);
    unison::examples::lucas(exec, lucas);
    exec.fence();
  });
  expect_on(exec, seen);
  const std::string e = "unison::examples::";
  expect_calls(seen,
               {{e + "rgb_to_grayscale", {e + "rgb_to_grayscale"}},
                {e + "loop_sum", {e + "loop_sum"}},
                {e + "lucas", {e + "lucas"}}},
               {e});
  // atomic_counter allocates its counter (the first call after release_temporary_memory).
  unison::release_temporary_memory();
  const auto allocating = record([&] { unison::examples::atomic_counter(exec, 100); });
  expect_on(exec, allocating, Memory::allocated);
  expect_calls(allocating, {{e + "atomic_counter", {e + "atomic_counter"}}}, {e});
  seen.labels.insert(seen.labels.end(), allocating.labels.begin(), allocating.labels.end());
  expect_unison_labels(seen.labels);
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* k :
       {"kernel unison::examples::rgb_to_grayscale", "kernel unison::examples::loop_sum",
        "kernel unison::examples::lucas", "kernel unison::examples::atomic_counter",
        "allocation unison::examples::counter"})
    EXPECT_TRUE(has(k)) << k;
}

}  // namespace labels

template <class Exec>
struct ExamplesLabels : ::testing::Test {};
TYPED_TEST_SUITE(ExamplesLabels, Backends, BackendName);
TYPED_TEST(ExamplesLabels, examples) { labels::test_labels(TypeParam()); }

template <class Exec>
struct ExamplesInstance : ::testing::Test {};
TYPED_TEST_SUITE(ExamplesInstance, Backends, BackendName);
TYPED_TEST(ExamplesInstance, examples) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
