// Bad input, everywhere (docs/PRECONDITIONS.md): the rows of the preconditions table that no
// other test file checks, on every backend. Each refused call throws unison::invalid_argument
// naming the function and the offending value; a few representative calls are also shown to
// write nothing when refused (their outputs are filled with a marker value first), and empty
// Views to be valid where the table says so.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <unison/unison.hpp>

#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::ConvolveMode;
using unison::DiffusionOptions;
using unison::Laplacian;
using unison::MatmulMethod;
using unison::StencilAlgorithm;

constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_d = std::numeric_limits<double>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

// Every element of v equals `value` (v is fenced first by the caller's exec.fence()).
template <class V>
::testing::AssertionResult all_equal(const V& v, double value) {
  const auto h = to_host(v);
  for (std::size_t i = 0; i < h.size(); ++i)
    if (!(h[i] == value))
      return ::testing::AssertionFailure() << "element " << i << " is " << h[i] << ", expected "
                                           << value << " (the marker: nothing written)";
  return ::testing::AssertionSuccess();
}

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

// histogram: parameters, empty x, counts' type, and a refused call writes nothing.
template <class Exec>
void test_histogram() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* fn = "unison::histogram";
  Kokkos::View<float*, Mem> x("x", 10), empty("empty", 0);
  Kokkos::View<std::int32_t*, Mem> counts("counts", 4);
  for (const auto& range : {std::pair{nan_d, 1.0}, std::pair{0.0, inf_d}, std::pair{-inf_d, inf_d}})
    EXPECT_TRUE(
        throws_invalid([&] { unison::histogram(exec, x, range.first, range.second, counts); }, fn,
                       {"xmin and xmax must be finite"}));
  // xmax - xmin overflows double: the bin width is infinite.
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, x, -1e308, 1e308, counts); }, fn,
                             {"the bin width (xmax - xmin) / 4 is not a positive finite number"}));
  // 32-bit unsigned counts: x with 2^32 elements is one too many (an unmanaged View, never read).
  Kokkos::View<std::uint32_t*, Mem> ucounts("ucounts", 2);
  Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> huge(
      x.data(), std::size_t(std::numeric_limits<std::uint32_t>::max()) + 1);
  EXPECT_TRUE(throws_invalid([&] { unison::histogram(exec, huge, 0.0, 1.0, ucounts); }, fn,
                             {"x has 4294967296 elements", "more than counts' type can count"}));
  // Refused: counts untouched. Empty x: valid, counts zeroed.
  Kokkos::deep_copy(counts, 7);
  EXPECT_ANY_THROW(unison::histogram(exec, x, 1.0, nan_d, counts));
  EXPECT_ANY_THROW(unison::histogram(exec, x, 0.0, 1.0, Kokkos::subview(counts, std::pair(0, 0))));
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 7.0));
  unison::histogram(exec, empty, 0.0, 1.0, counts);
  exec.fence();
  EXPECT_TRUE(all_equal(counts, 0.0));
  EXPECT_TRUE(throws_invalid(
      [&] { unison::atomic_counter(exec, std::numeric_limits<std::int64_t>::min()); },
      "unison::atomic_counter", {"expected 0 or more"}));
}

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

// The small examples: empty Views, index and count limits, refused calls writing nothing.
template <class Exec>
void test_examples() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  // rgb_to_grayscale: an empty image is valid; a 0-channel one is not.
  Kokkos::View<float***, Mem> none("none", 0, 5, 3), no_channels("no_channels", 4, 5, 0),
      rgb("rgb", 4, 5, 3);
  Kokkos::View<float**, Mem> gray0("gray0", 0, 5), gray("gray", 4, 5), wrong("wrong", 4, 4);
  EXPECT_NO_THROW(unison::rgb_to_grayscale(exec, none, gray0));
  EXPECT_TRUE(throws_invalid([&] { unison::rgb_to_grayscale(exec, no_channels, gray); },
                             "unison::rgb_to_grayscale",
                             {"rgb is 4x5x0", "last extent must be 3"}));
  Kokkos::deep_copy(gray, 7.f);
  Kokkos::deep_copy(rgb, 1.f);
  EXPECT_ANY_THROW(unison::rgb_to_grayscale(exec, no_channels, gray));
  exec.fence();
  EXPECT_TRUE(all_equal(gray, 7.0));
  EXPECT_TRUE(throws_invalid([&] { unison::rgb_to_grayscale(exec, rgb, wrong); },
                             "unison::rgb_to_grayscale", {"gray is 4x4, expected 4x5"}));

  // loop_sum: 0 is valid; the extremes of int64 are refused.
  EXPECT_EQ(unison::loop_sum(exec, 0), 0.0);
  for (std::int64_t n :
       {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
    EXPECT_TRUE(throws_invalid([&] { unison::loop_sum(exec, n); }, "unison::loop_sum",
                               {"n is " + std::to_string(n), "expected 0 to 77936"}));

  // lucas: an empty out is valid; one element too many for the type is refused, unwritten.
  Kokkos::View<std::int64_t*, Mem> empty("empty", 0);
  EXPECT_NO_THROW(unison::lucas(exec, empty));
  const auto too_long = [&](auto zero, std::int64_t max) {
    Kokkos::View<decltype(zero)*, Mem> out("out", max + 2);
    Kokkos::deep_copy(out, decltype(zero)(7));
    EXPECT_TRUE(throws_invalid([&] { unison::lucas(exec, out); }, "unison::lucas",
                               {"out has " + std::to_string(max + 2) + " elements",
                                "largest exact index is " + std::to_string(max)}));
    exec.fence();
    EXPECT_TRUE(all_equal(out, 7.0));
  };
  too_long(std::int64_t(0), 90);
  too_long(std::uint64_t(0), 92);
  too_long(float(0), 34);
  too_long(double(0), 76);
  too_long(std::int8_t(0), unison::lucas_max_index<std::int8_t>());
  EXPECT_EQ(unison::lucas_max_index<std::int8_t>(), 10);  // L(10) = 123, L(11) = 199
}

// matmul_reduce: its workspace size's arguments, and a refused call writing nothing.
template <class Exec>
void test_matmul() {
  using Mem = typename Exec::memory_space;
  Exec exec;
  const char* ws = "unison::matmul_reduce_workspace_size";
  EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(-1, 2, 3); }, ws,
                             {"m, k, n are -1, 2, 3", "expected 0 or more"}));
  EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(1, 2, -3); }, ws,
                             {"expected 0 or more"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::matmul_reduce_workspace_size<Exec>(2, 2, 2, MatmulMethod(9)); },
                     ws, {"unknown method 9"}));
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce_workspace_size<Exec>(big, 1, big, MatmulMethod::gemm); }, ws,
      {"overflows a 64-bit count"}));
  EXPECT_EQ(unison::matmul_reduce_workspace_size<Exec>(big, 1, big, MatmulMethod::tiled), 0);
  EXPECT_EQ(unison::matmul_reduce_workspace_size<Exec>(0, 5, 4, MatmulMethod::gemm), 0);

  Kokkos::View<float**, Mem> A("A", 6, 5), B("B", 5, 4);
  Kokkos::View<float*, Mem> out("out", 4);
  Kokkos::deep_copy(out, 7.f);
  for (auto method : {MatmulMethod(7), MatmulMethod(-1)})
    EXPECT_TRUE(throws_invalid([&] { unison::matmul_reduce(exec, A, B, out, method); },
                               "unison::matmul_reduce", {"unknown method"}));
  Kokkos::View<float*, Mem> work("work", 1);
  EXPECT_ANY_THROW(unison::matmul_reduce(exec, A, B, out, MatmulMethod::gemm, work));
  exec.fence();
  EXPECT_TRUE(all_equal(out, 7.0));

  // The tiled method: more tiles of A.B than one launch holds (2^26 x 2^22, from Views whose
  // strides are 0, over one element each), refused with out unwritten.
  using Stride0 =
      Kokkos::View<float**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<float*, Mem> two("two", 2), wide_out("wide_out", std::int64_t(1) << 22);
  const Stride0 tall(two.data(), Kokkos::LayoutStride(std::int64_t(1) << 26, 0, 1, 0)),
      wide(two.data() + 1, Kokkos::LayoutStride(1, 0, std::int64_t(1) << 22, 0));
  Kokkos::deep_copy(wide_out, 7.f);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::matmul_reduce(exec, tall, wide, wide_out, MatmulMethod::tiled); },
      "unison::matmul_reduce",
      {"A.B (67108864x4194304) has", "more than 2^31 - 1 for one launch"}));
  exec.fence();
  EXPECT_TRUE(all_equal(wide_out, 7.0));
}

// Diffusion: empty fields, coefficients and options out of range, a refused step writing nothing.
template <class Exec>
void test_diffusion() {
  using Mem = typename Exec::memory_space;
  using F = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Exec exec;
  const char* step = "unison::diffusion_step";
  const char* dif = "unison::diffuse";
  const char* hist = "unison::diffuse_history";
  const auto none = [](auto...) {};
  // Empty fields: valid, nothing to do.
  F e0("e0", 0, 5), e1("e1", 0, 5), e2("e2", 0, 5);
  EXPECT_NO_THROW(unison::diffusion_step(exec, e0, e1, e2, 0.25));
  EXPECT_NO_THROW(unison::diffuse(exec, e0, 3, 0.25, e1));
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> eh("eh", 2, 0, 5);
  EXPECT_NO_THROW(unison::diffuse_history(exec, e0, 3, 0.25, eh, none));
  EXPECT_NO_THROW(unison::jagged_field(exec, e0));

  F f("f", 8, 9), g("g", 8, 9), lapl("lapl", 8, 9);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("history", 2, 8, 9);
  // coeff: finite, and finite in the field's value type, in every form.
  for (double bad : {-inf_d, 1e300})
    EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, 3, bad, lapl); }, dif, {"coeff"}))
        << bad;
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, nan_d, history, none); },
                             hist, {"coeff is nan"}));
  // Enum values cast from bad integers.
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, lapl, static_cast<Laplacian>(5)); },
                     dif, {"unknown Laplacian choice 5"}));
  DiffusionOptions bad_algorithm;
  bad_algorithm.algorithm = StencilAlgorithm(-3);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse_history(exec, f, 3, 0.25, history, none, bad_algorithm); }, hist,
      {"unknown algorithm -3"}));
  // Options: negative extents, strip rows and steps per pass.
  const auto negative = [&](auto set) {
    DiffusionOptions o;
    set(o);
    EXPECT_TRUE(
        throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, o); },
                       dif, {"must not be negative"}));
    EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, 0.25, history, none, o); },
                               hist, {"must not be negative"}));
  };
  negative([](DiffusionOptions& o) { o.tile_cols = -1; });
  negative([](DiffusionOptions& o) { o.steps_per_pass = -1; });
  negative([](DiffusionOptions& o) { o.strip_rows = -4; });
  // A tile the backend cannot hold, asked for with many steps per pass or a huge tile (up to
  // INT_MAX: its size must not overflow into a small number).
  DiffusionOptions deep;
  deep.algorithm = StencilAlgorithm::tiled;
  for (int s : {1 << 20, std::numeric_limits<int>::max()}) {
    deep.steps_per_pass = s;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, deep); }, dif,
        {"steps per pass needs", "bytes of team scratch"}))
        << s;
  }
  DiffusionOptions wide;
  wide.tile_rows = std::numeric_limits<int>::max();
  wide.tile_cols = std::numeric_limits<int>::max();
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::every_step, wide); },
                     dif, {"tile 2147483647x2147483647", "bytes of team scratch"}));
  // More tiles than one launch can hold: a 1x1 tile on a field of 2^32 cells (a View whose
  // strides are 0 shows one element as 65536 x 65536, so nothing large is allocated).
  Kokkos::View<float*, Mem> two("two", 2);
  using Stride0 =
      Kokkos::View<float**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Stride0 big(two.data(), Kokkos::LayoutStride(65536, 0, 65536, 0)),
      big_lapl(two.data() + 1, Kokkos::LayoutStride(65536, 0, 65536, 0));
  DiffusionOptions tiny;
  tiny.algorithm = StencilAlgorithm::tiled;
  tiny.tile_rows = tiny.tile_cols = 1;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, big, 3, 0.25, big_lapl, Laplacian::every_step, tiny); }, dif,
      {"tile 1x1 on a field of 65536x65536 makes more than 2^31 - 1 tiles"}));
  // jagged_field: zero_fraction must be a number in [0, 1].
  for (double z : {nan_d, -0.1, inf_d})
    EXPECT_TRUE(throws_invalid([&] { unison::jagged_field(exec, f, 1, z); }, "unison::jagged_field",
                               {"zero_fraction is", "must be in [0, 1]"}))
        << z;
  // Refused calls write nothing.
  Kokkos::deep_copy(f, 1.f);
  Kokkos::deep_copy(g, 7.f);
  Kokkos::deep_copy(lapl, 7.f);
  EXPECT_ANY_THROW(unison::diffusion_step(exec, f, g, lapl, nan_d));
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffusion_step(exec, f, g, lapl, 0.25, StencilAlgorithm(11)); },
                     step, {"unknown algorithm 11"}));
  EXPECT_ANY_THROW(unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, deep));
  EXPECT_ANY_THROW(unison::jagged_field(exec, g, 1, nan_d));
  exec.fence();
  EXPECT_TRUE(all_equal(f, 1.0));
  EXPECT_TRUE(all_equal(g, 7.0));
  EXPECT_TRUE(all_equal(lapl, 7.0));
}

// convolve and the row-wise functions: empty inputs (valid or refused, as the table says).
template <class Exec>
void test_convolve_rowwise() {
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
  // The tiled algorithm on 2^50 outputs (x and y: Views whose stride is 0): more tiles than one
  // launch holds.
  using Stride0 =
      Kokkos::View<float*, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<float*, Mem> two("two", 2);
  const std::int64_t huge = std::int64_t(1) << 50;
  const Stride0 hx(two.data(), Kokkos::LayoutStride(huge, 0)),
      hy(two.data() + 1, Kokkos::LayoutStride(huge, 0));
  EXPECT_TRUE(throws_invalid(
      [&] {
        unison::convolve(exec, hx, k, hy, ConvolveMode::same, unison::ConvolveAlgorithm::tiled);
      },
      "unison::convolve", {"y (1125899906842624) has", "more than 2^31 - 1 for one launch"}));
  // l2_norm of a matrix with no columns: zeros, like NumPy.
  Kokkos::View<float**, Mem> V("V", 3, 0);
  Kokkos::View<float*, Mem> norms("norms", 3);
  Kokkos::deep_copy(norms, 7.f);
  unison::l2_norm(exec, V, norms);
  exec.fence();
  EXPECT_TRUE(all_equal(norms, 0.0));
  // matmul_core with n = 0: C is zeros.
  Kokkos::View<float***, Mem> A("A", 2, 3, 0), B("B", 2, 0, 4), C("C", 2, 3, 4);
  Kokkos::deep_copy(C, 7.f);
  unison::matmul_core(exec, A, B, C);
  exec.fence();
  const auto c = to_host(
      Kokkos::View<float*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(C.data(), C.size()));
  for (double v : c) EXPECT_EQ(v, 0.0);
}

template <class Exec>
struct Preconditions : ::testing::Test {};
TYPED_TEST_SUITE(Preconditions, Backends, BackendName);

TYPED_TEST(Preconditions, elementwise_parameters) { test_elementwise_parameters<TypeParam>(); }
TYPED_TEST(Preconditions, elementwise_writes_nothing) {
  test_elementwise_writes_nothing<TypeParam>();
}
TYPED_TEST(Preconditions, transform) { test_transform<TypeParam>(); }
TYPED_TEST(Preconditions, histogram) { test_histogram<TypeParam>(); }
TYPED_TEST(Preconditions, random) { test_random<TypeParam>(); }
TYPED_TEST(Preconditions, examples) { test_examples<TypeParam>(); }
TYPED_TEST(Preconditions, matmul) { test_matmul<TypeParam>(); }
TYPED_TEST(Preconditions, diffusion) { test_diffusion<TypeParam>(); }
TYPED_TEST(Preconditions, convolve_rowwise) { test_convolve_rowwise<TypeParam>(); }

// .npy files: extents in the header that are negative or too large; an empty array round trip.
std::string npy_file(const std::string& name, const std::string& shape) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(char(header.size() & 0xff));
  bytes.push_back(char(header.size() >> 8));
  const std::string path = ::testing::TempDir() + "unison_preconditions_" + name + ".npy";
  std::ofstream(path, std::ios::binary) << bytes << header;
  return path;
}

TEST(PreconditionsHost, npy_extents) {
  const std::string fn = "unison::read_npy";
  const struct {
    const char* name;
    const char* shape;
    const char* message;
  } cases[] = {{"negative", "(-1, 3)", "malformed header"},  // the parser reads digits only
               {"extent", "(2251799813685249, 1)", "too large"},
               {"product", "(1125899906842624, 4)", "shape too large"}};
  for (const auto& c : cases) {
    const auto path = npy_file(c.name, c.shape);
    EXPECT_TRUE(throws_invalid([&] { unison::read_npy<float>(path); }, fn, {c.message})) << c.name;
    std::remove(path.c_str());
  }
  // An empty array is valid both ways.
  const std::string path = ::testing::TempDir() + "unison_preconditions_empty.npy";
  Kokkos::View<float**, Kokkos::HostSpace> empty("empty", 0, 3);
  unison::write_npy(path, empty);
  const auto back = unison::read_npy<float>(path);
  EXPECT_EQ(back.extent(0), 0u);
  EXPECT_EQ(back.extent(1), 3u);
  std::remove(path.c_str());
}

}  // namespace
