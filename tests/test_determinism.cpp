// Run-to-run determinism (issue 7), on every backend: each public function (each algorithm or
// method of those that have several) runs twice on the same backend with the same fresh random
// inputs, into two separately allocated outputs poisoned with different bit patterns (a quiet
// NaN and a negative NaN of another payload; for integers 0x5A... and 0xA5...), and the two
// results must be BITWISE equal: std::memcmp of host copies, so NaN payloads, the sign of zero
// and any element one run leaves unwritten all count. Sizes are odd and large enough that the
// OpenMP backend splits the work over its threads and the team kernels run several teams
// (tiles, blocks of rows, histogram blocks, chunks of taps), yet each test takes well under a
// second in a Debug+ASan build on two cores.
//
// The one exception is matmul_reduce's tiled method: each team adds its tile's column sums into
// out with a floating-point atomic, and the order of those additions (so the rounding) varies
// from run to run on a parallel backend, as its documentation says. Its two runs are compared
// within the float tolerance instead.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <unison/convolve.hpp>
#include <unison/diffusion.hpp>
#include <unison/elementwise.hpp>
#include <unison/examples.hpp>
#include <unison/field.hpp>
#include <unison/histogram.hpp>
#include <unison/matmul.hpp>
#include <unison/npy.hpp>
#include <unison/random.hpp>
#include <unison/rowwise.hpp>
#include <unison/transform.hpp>

#include "matmul_names.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::ConvolveAlgorithm;
using unison::ConvolveMode;
using unison::DiffusionOptions;
using unison::Laplacian;
using unison::MatmulMethod;
using unison::StencilAlgorithm;

// ---------------------------------------------------------------------------------------------
// Helpers: the second poison, host copies of any View, and the bitwise comparison.

template <class T, class Bits>
T from_bits(Bits bits) {
  static_assert(sizeof(T) == sizeof(Bits));
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Run 2's poison: unlike poison<T>() (run 1's) in every bit that matters.
template <class T>
T other_poison() {
  if constexpr (std::is_same_v<T, float>) return from_bits<float>(std::uint32_t(0xFFC0BEEFu));
  else if constexpr (std::is_same_v<T, double>)
    return from_bits<double>(std::uint64_t(0xFFF800000000BEEFull));
  else return static_cast<T>(0xA5A5A5A5A5A5A5A5ULL);
}

// a with run 1's poison, b with run 2's.
template <class A, class B>
void poison_pair(const A& a, const B& b) {
  Kokkos::deep_copy(a, poison<typename A::non_const_value_type>());
  Kokkos::deep_copy(b, other_poison<typename B::non_const_value_type>());
  Kokkos::fence("unison::test::poison_pair");
}

// The elements of a rank-1, -2 or -3 View of any layout and memory space, in row-major order, on
// the host, with their bits.
template <class V>
std::vector<typename V::non_const_value_type> host_values(const V& v) {
  using T = typename V::non_const_value_type;
  using Staging =
      Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, typename V::memory_space>;
  const std::string label = "unison::test::bits";
  Staging staged;
  if constexpr (V::rank() == 1) staged = Staging(label, v.extent(0));
  else if constexpr (V::rank() == 2) staged = Staging(label, v.extent(0), v.extent(1));
  else staged = Staging(label, v.extent(0), v.extent(1), v.extent(2));
  Kokkos::deep_copy(staged, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  return std::vector<T>(h.data(), h.data() + h.size());
}

template <class T>
std::string describe(const T& v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) s << std::setprecision(17) << v;
  else s << +v;
  s << " (bits 0x" << std::hex << bits << ")";
  return s.str();
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size();
  if (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0)
    return ::testing::AssertionSuccess();
  std::size_t differ = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0 && differ++ < 5)
      first << "\n  [" << i << "] run 1 " << describe(a[i]) << ", run 2 " << describe(b[i]);
  return ::testing::AssertionFailure()
         << differ << " of " << a.size() << " elements differ bitwise; the first:" << first.str();
}

// The two Views hold bitwise the same elements (same extents, any layouts and memory spaces).
template <class A, class B>
::testing::AssertionResult bitwise_equal(const A& a, const B& b) {
  static_assert(std::is_same_v<typename A::non_const_value_type, typename B::non_const_value_type>);
  return same_bits(host_values(a), host_values(b));
}

template <class T>
::testing::AssertionResult same_bits_scalar(T a, T b) {
  return same_bits(std::vector<T>{a}, std::vector<T>{b});
}

// Poisons a and b differently, runs run(a) then run(b), waits, and expects bitwise equal results.
template <class V, class Run>
void twice(const std::string& what, const V& a, const V& b, const Run& run) {
  poison_pair(a, b);
  run(a);
  run(b);
  Kokkos::fence("unison::test::twice");
  EXPECT_TRUE(bitwise_equal(a, b)) << what;
}

template <class Exec>
using Mem = typename Exec::memory_space;

// Elementwise inputs: enough elements for every OpenMP thread to take many.
constexpr long elements = 50021;
// Rank-2 elementwise shapes: odd, neither a multiple of the other.
constexpr long rows2 = 157, cols2 = 163;

template <class Exec>
struct Determinism : ::testing::Test {};
TYPED_TEST_SUITE(Determinism, Backends, BackendName);

// ---------------------------------------------------------------------------------------------
// transform and the element-wise family (one output per element: no arithmetic is shared
// between elements, so any split over threads gives the same bits).

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

// ---------------------------------------------------------------------------------------------
// convolve: each output's terms in a fixed order (ascending taps), whoever computes it.

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

// ---------------------------------------------------------------------------------------------
// Diffusion: every cell's arithmetic is fixed, whichever kernel and thread computes it.

template <class Exec, class T, class Layout>
using Field = Kokkos::View<T**, Layout, Mem<Exec>>;

constexpr int diffusion_steps = 5;
constexpr double diffusion_coeff = 0.25;

// The grid: 35 rows of 523 cells along the contiguous axis (LayoutRight 35 x 523, LayoutLeft
// 523 x 35): several tiles both ways (CPU tiles 16 x 512, blocked 32 x 512; GPU 32 x 256 and
// 24 x 120), a block of rows per OpenMP thread, strips cut by the bottom edge.
template <class Layout>
std::pair<long, long> grid() {
  return std::is_same_v<Layout, Kokkos::LayoutLeft> ? std::pair<long, long>{523, 35}
                                                    : std::pair<long, long>{35, 523};
}

template <class Exec, class T, class Layout>
void check_step(StencilAlgorithm algorithm) {
  Exec exec;
  const auto [nx, ny] = grid<Layout>();
  Field<Exec, T, Layout> f("f", nx, ny), n1("n1", nx, ny), n2("n2", nx, ny), l1("l1", nx, ny),
      l2("l2", nx, ny);
  fill(f, uniform<T>(-1, 1));
  poison_pair(n1, n2);
  poison_pair(l1, l2);
  unison::diffusion_step(exec, f, n1, l1, diffusion_coeff, algorithm);
  unison::diffusion_step(exec, f, n2, l2, diffusion_coeff, algorithm);
  exec.fence();
  const std::string where =
      std::string(sizeof(T) == 4 ? "float " : "double ") + typeid(Layout).name();
  EXPECT_TRUE(bitwise_equal(n1, n2)) << "f_next, " << where;
  EXPECT_TRUE(bitwise_equal(l1, l2)) << "lapl, " << where;
}

template <class Exec>
void test_step(StencilAlgorithm algorithm) {
  check_step<Exec, float, Kokkos::LayoutRight>(algorithm);
  check_step<Exec, double, Kokkos::LayoutLeft>(algorithm);
}

// diffuse in place from the same field twice; with_buffer: the caller's buffers, poisoned
// differently (their contents must not matter).
template <class Exec, class T, class Layout>
void check_diffuse(Laplacian which, const DiffusionOptions& options, bool with_buffer) {
  Exec exec;
  const auto [nx, ny] = grid<Layout>();
  Field<Exec, T, Layout> f0("f0", nx, ny), f1("f1", nx, ny), f2("f2", nx, ny), l1("l1", nx, ny),
      l2("l2", nx, ny);
  unison::DiffusionBuffer<Field<Exec, T, Layout>> b1("b1", nx, ny), b2("b2", nx, ny);
  fill(f0, uniform<T>(-1, 1));
  Kokkos::deep_copy(f1, f0);
  Kokkos::deep_copy(f2, f0);
  poison_pair(l1, l2);
  poison_pair(b1, b2);
  if (with_buffer) {
    unison::diffuse(exec, f1, b1, diffusion_steps, diffusion_coeff, l1, which, options);
    unison::diffuse(exec, f2, b2, diffusion_steps, diffusion_coeff, l2, which, options);
  } else {
    unison::diffuse(exec, f1, diffusion_steps, diffusion_coeff, l1, which, options);
    unison::diffuse(exec, f2, diffusion_steps, diffusion_coeff, l2, which, options);
  }
  exec.fence();
  const std::string where = std::string(sizeof(T) == 4 ? "float " : "double ") +
                            typeid(Layout).name() + ", steps_per_pass " +
                            std::to_string(options.steps_per_pass) + ", strip_rows " +
                            std::to_string(options.strip_rows);
  EXPECT_TRUE(bitwise_equal(f1, f2)) << "f, " << where;
  EXPECT_TRUE(bitwise_equal(l1, l2)) << "lapl, " << where;
}

template <class Exec>
void test_diffuse(StencilAlgorithm algorithm, Laplacian which) {
  DiffusionOptions options;
  options.algorithm = algorithm;
  const bool final_only = which == Laplacian::final_only;
  check_diffuse<Exec, float, Kokkos::LayoutRight>(which, options, final_only);
  check_diffuse<Exec, double, Kokkos::LayoutLeft>(which, options, false);
  if (final_only && algorithm == StencilAlgorithm::tiled) {
    options.steps_per_pass = 3;  // besides the backend's default (4): a pass of 3, then of 2
    check_diffuse<Exec, float, Kokkos::LayoutRight>(which, options, false);
  }
  if (algorithm == StencilAlgorithm::streaming) {
    // The strip form on every backend (a GPU's default), one and (final_only) two steps a pass.
    options.strip_rows = 8;
    options.steps_per_pass = final_only ? 2 : 0;
    check_diffuse<Exec, float, Kokkos::LayoutRight>(which, options, false);
  }
}

// diffuse with a per-step callback that records every step's field and Laplacian.
template <class Exec, class T, class Layout>
void check_callback(StencilAlgorithm algorithm) {
  Exec exec;
  const auto [nx, ny] = grid<Layout>();
  Field<Exec, T, Layout> f0("f0", nx, ny), f1("f1", nx, ny), f2("f2", nx, ny), l1("l1", nx, ny),
      l2("l2", nx, ny);
  using Record = Kokkos::View<T***, Kokkos::LayoutRight, Mem<Exec>>;
  Record fields1("fields1", diffusion_steps, nx, ny), fields2("fields2", diffusion_steps, nx, ny),
      laps1("laps1", diffusion_steps, nx, ny), laps2("laps2", diffusion_steps, nx, ny);
  fill(f0, uniform<T>(-1, 1));
  Kokkos::deep_copy(f1, f0);
  Kokkos::deep_copy(f2, f0);
  poison_pair(l1, l2);
  poison_pair(fields1, fields2);
  poison_pair(laps1, laps2);
  DiffusionOptions options;
  options.algorithm = algorithm;
  int calls1 = 0, calls2 = 0;
  const auto recorder = [&exec](const Record& fields, const Record& laps, int& calls) {
    return [&exec, fields, laps, &calls](std::int64_t step, const auto& field, const auto& lapl) {
      ++calls;
      Kokkos::deep_copy(exec, Kokkos::subview(fields, step - 1, Kokkos::ALL, Kokkos::ALL), field);
      Kokkos::deep_copy(exec, Kokkos::subview(laps, step - 1, Kokkos::ALL, Kokkos::ALL), lapl);
    };
  };
  unison::diffuse(exec, f1, diffusion_steps, diffusion_coeff, l1, recorder(fields1, laps1, calls1),
                  options);
  unison::diffuse(exec, f2, diffusion_steps, diffusion_coeff, l2, recorder(fields2, laps2, calls2),
                  options);
  exec.fence();
  EXPECT_EQ(calls1, diffusion_steps);
  EXPECT_EQ(calls2, diffusion_steps);
  EXPECT_TRUE(bitwise_equal(f1, f2)) << "f";
  EXPECT_TRUE(bitwise_equal(l1, l2)) << "lapl";
  EXPECT_TRUE(bitwise_equal(fields1, fields2)) << "every step's field";
  EXPECT_TRUE(bitwise_equal(laps1, laps2)) << "every step's Laplacian";
}

template <class Exec>
void test_callback(StencilAlgorithm algorithm) {
  check_callback<Exec, float, Kokkos::LayoutRight>(algorithm);
  check_callback<Exec, double, Kokkos::LayoutLeft>(algorithm);
}

// diffuse_history, 5 steps in groups of 2 planes; every group's planes recorded.
template <class Exec, class T, class Layout>
void check_history(const DiffusionOptions& options) {
  Exec exec;
  const auto [nx, ny] = grid<Layout>();
  constexpr int steps = 5, depth = 2;
  Field<Exec, T, Layout> f0("f0", nx, ny), f1("f1", nx, ny), f2("f2", nx, ny);
  using History = Kokkos::View<T***, Layout, Mem<Exec>>;
  using Record = Kokkos::View<T***, Kokkos::LayoutRight, Mem<Exec>>;
  History h1("h1", depth, nx, ny), h2("h2", depth, nx, ny);
  Record r1("r1", steps, nx, ny), r2("r2", steps, nx, ny);
  fill(f0, uniform<T>(-1, 1));
  Kokkos::deep_copy(f1, f0);
  Kokkos::deep_copy(f2, f0);
  poison_pair(h1, h2);
  poison_pair(r1, r2);
  const auto recorder = [&exec](const Record& record) {
    return [&exec, record](std::int64_t first, std::int64_t count, const auto&, const auto& h) {
      for (std::int64_t k = 0; k < count; ++k)
        Kokkos::deep_copy(exec, Kokkos::subview(record, first - 1 + k, Kokkos::ALL, Kokkos::ALL),
                          Kokkos::subview(h, k, Kokkos::ALL, Kokkos::ALL));
    };
  };
  unison::diffuse_history(exec, f1, steps, diffusion_coeff, h1, recorder(r1), options);
  unison::diffuse_history(exec, f2, steps, diffusion_coeff, h2, recorder(r2), options);
  exec.fence();
  const std::string where = std::string(sizeof(T) == 4 ? "float " : "double ") +
                            typeid(Layout).name() + ", steps_per_pass " +
                            std::to_string(options.steps_per_pass);
  EXPECT_TRUE(bitwise_equal(f1, f2)) << "f, " << where;
  EXPECT_TRUE(bitwise_equal(h1, h2)) << "history, " << where;
  EXPECT_TRUE(bitwise_equal(r1, r2)) << "every step's Laplacian, " << where;
}

template <class Exec>
void test_history(StencilAlgorithm algorithm) {
  DiffusionOptions options;
  options.algorithm = algorithm;
  check_history<Exec, float, Kokkos::LayoutRight>(options);
  check_history<Exec, double, Kokkos::LayoutLeft>(options);
  if (algorithm == StencilAlgorithm::streaming && unison::streaming_row_blocks_v<Exec>) {
    options.steps_per_pass = 2;  // the CPU form that runs several steps per pass
    check_history<Exec, float, Kokkos::LayoutRight>(options);
  }
}

// (One field: each call runs some 30 counting passes, each a parallel reduction and a fence.)
template <class Exec>
void test_jagged_field() {
  Exec exec;
  Field<Exec, float, Kokkos::LayoutRight> a("a", 67, 131), b("b", 67, 131);
  twice("float", a, b, [&](const auto& f) { unison::jagged_field(exec, f, 42); });
}

// ---------------------------------------------------------------------------------------------
// matmul_reduce.

// Twice into out and twice with a caller's workspace (poisoned differently each time): bitwise.
template <class Exec, class T, class Layout>
void check_matmul_bitwise(MatmulMethod method, long m, long k, long n) {
  Exec exec;
  Kokkos::View<T**, Layout, Mem<Exec>> A("A", m, k), B("B", k, n);
  fill(A, uniform<T>(-1, 1));
  fill(B, uniform<T>(-1, 1));
  Kokkos::View<T*, Mem<Exec>> a("a", n), b("b", n);
  const std::string where = std::string(name(method)) + ", " + std::to_string(m) + "x" +
                            std::to_string(k) + "x" + std::to_string(n);
  twice(where, a, b, [&](const auto& out) { unison::matmul_reduce(exec, A, B, out, method); });
  const auto size = unison::matmul_reduce_workspace_size<Exec>(m, k, n, method);
  Kokkos::View<T*, Mem<Exec>> w1("w1", size), w2("w2", size), c("c", n), d("d", n);
  poison_pair(w1, w2);
  poison_pair(c, d);
  unison::matmul_reduce(exec, A, B, c, method, w1);
  unison::matmul_reduce(exec, A, B, d, method, w2);
  exec.fence();
  EXPECT_TRUE(bitwise_equal(c, d)) << where << ", with a workspace";
  EXPECT_TRUE(bitwise_equal(a, c)) << where << ", with and without a workspace";
}

template <class Exec>
void test_matmul_reduce_gemm() {
  // More rows than one block of the column sums (1024 on a CPU, 64 on a GPU); LayoutLeft too.
  // (Small k and n: Kokkos Kernels' own gemm, which the Serial backend gets, is slow in a Debug
  // build.)
  check_matmul_bitwise<Exec, float, Kokkos::LayoutRight>(MatmulMethod::gemm, 1031, 7, 37);
  check_matmul_bitwise<Exec, double, Kokkos::LayoutLeft>(MatmulMethod::gemm, 67, 5, 21);
}

template <class Exec>
void test_matmul_reduce_reassociated() {
  // More rows of A, then of B, than one block of the column sums; automatic is reassociated.
  check_matmul_bitwise<Exec, float, Kokkos::LayoutRight>(MatmulMethod::reassociated, 1031, 37, 131);
  check_matmul_bitwise<Exec, double, Kokkos::LayoutLeft>(MatmulMethod::automatic, 67, 1031, 53);
}

// The tiled method cannot promise bitwise equal runs: each team adds its tile's column sums to
// out with Kokkos::atomic_add (MatmulReduceTiled), and on a parallel backend the teams of one
// column finish in a different order from run to run, so the float additions round differently
// (matmul.hpp: "The order of the atomic additions varies from run to run: so do the last bits").
// The two runs must agree within the float tolerance, and neither may leave an element unwritten
// (poisons are NaN).
template <class Exec, class T>
void check_matmul_tiled(long m, long k, long n) {
  Exec exec;
  Kokkos::View<T**, Kokkos::LayoutRight, Mem<Exec>> A("A", m, k), B("B", k, n);
  fill(A, uniform<T>(-1, 1));
  fill(B, uniform<T>(-1, 1));
  Kokkos::View<T*, Mem<Exec>> a("a", n), b("b", n);
  poison_pair(a, b);
  unison::matmul_reduce(exec, A, B, a, MatmulMethod::tiled);
  unison::matmul_reduce(exec, A, B, b, MatmulMethod::tiled);
  exec.fence();
  const auto ha = to_host(a), hb = to_host(b);
  for (std::size_t j = 0; j < ha.size(); ++j) {
    ASSERT_TRUE(std::isfinite(ha[j])) << "run 1, [" << j << "] " << ha[j];
    ASSERT_TRUE(std::isfinite(hb[j])) << "run 2, [" << j << "] " << hb[j];
  }
  EXPECT_TRUE(close(hb, ha, tolerance<T>())) << m << "x" << k << "x" << n;
}

template <class Exec>
void test_matmul_reduce_tiled() {
  // Several tiles along m (whose column sums meet in out's atomics) and n, and several slices of
  // k: 64 x 64 x 64 tiles on a CPU, 128 x 128 x 8 on a GPU.
  using Tuning = unison::backends::MatmulTuning<Exec>;
  check_matmul_tiled<Exec, float>(3 * Tuning::tile_m + 1, Tuning::tile_k + 7, Tuning::tile_n + 3);
}

// ---------------------------------------------------------------------------------------------
// The row-wise family.

template <class Exec>
void test_l2_norm() {
  Exec exec;
  // float rows, contiguous: several teams of rows (256 rows per CPU team).
  Kokkos::View<float**, Kokkos::LayoutRight, Mem<Exec>> v("v", 1031, 257);
  fill(v, uniform<float>(-10, 10));
  Kokkos::View<float*, Mem<Exec>> a("a", 1031), b("b", 1031);
  twice("float", a, b, [&](const auto& out) { unison::l2_norm(exec, v, out); });
  // double rows, strided (LayoutLeft), some huge or tiny: the rescaled second pass.
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem<Exec>> w("w", 1031, 129);
  fill(w, uniform<double>(-1, 1));
  auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  for (std::size_t i = 0; i < hw.extent(0); ++i)
    for (std::size_t j = 0; j < hw.extent(1); ++j)
      hw(i, j) *= i % 7 == 0 ? 1e200 : i % 11 == 0 ? 1e-170 : 1.0;
  Kokkos::deep_copy(w, hw);
  Kokkos::View<double*, Mem<Exec>> c("c", 1031), d("d", 1031);
  twice("double, rescaled rows", c, d, [&](const auto& out) { unison::l2_norm(exec, w, out); });
}

template <class Exec, class T, class Layout>
void check_matmul_core(long batch, long m, long n, long p) {
  Exec exec;
  using V = Kokkos::View<T***, Layout, Mem<Exec>>;
  V A("A", batch, m, n), B("B", batch, n, p), a("a", batch, m, p), b("b", batch, m, p);
  // fill() takes rank 1 and 2: fill the data through a rank-1 View of the same memory.
  Kokkos::View<T*, Mem<Exec>, Kokkos::MemoryTraits<Kokkos::Unmanaged>> fa(A.data(), A.size()),
      fb(B.data(), B.size());
  fill(fa, uniform<T>(-1, 1));
  fill(fb, uniform<T>(-1, 1));
  twice(typeid(Layout).name(), a, b, [&](const auto& C) { unison::matmul_core(exec, A, B, C); });
}

template <class Exec>
void test_matmul_core() {
  check_matmul_core<Exec, double, Kokkos::LayoutRight>(1001, 5, 7, 3);
  check_matmul_core<Exec, float, Kokkos::LayoutLeft>(1001, 4, 9, 5);  // batch fastest
}

// ---------------------------------------------------------------------------------------------
// Counting and the small examples: integer results (exact) or one value per element.

template <class Exec>
void test_histogram() {
  Exec exec;
  // Per-team histograms in scratch: several blocks of x.
  Kokkos::View<float*, Mem<Exec>> x("x", 300007);
  fill(x, uniform<float>(-3.5, 3.5));
  Kokkos::View<std::int32_t*, Mem<Exec>> a("a", 101), b("b", 101);
  twice("101 bins", a, b, [&](const auto& counts) { unison::histogram(exec, x, -3, 3, counts); });
  // Too many bins for a team's scratch: one global atomic per value.
  Kokkos::View<double*, Mem<Exec>> y("y", 200001);
  fill(y, uniform<double>(-3.5, 3.5));
  Kokkos::View<std::int64_t*, Mem<Exec>> c("c", 200003), d("d", 200003);
  twice("200003 bins", c, d,
        [&](const auto& counts) { unison::histogram(exec, y, -3, 3, counts); });
}

template <class Exec>
void test_atomic_counter() {
  Exec exec;
  const std::int64_t n = 1000003;
  const auto first = unison::atomic_counter(exec, n), second = unison::atomic_counter(exec, n);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, n);
}

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
  twice("uint8", a, b, [&](const auto& gray) { unison::rgb_to_grayscale(exec, rgb8, gray); });
  // float to float, LayoutLeft pixels.
  Kokkos::View<float*, Mem<Exec>> floats("floats", h * w * 3);
  fill(floats, uniform<float>(0, 1));
  Kokkos::View<float***, Kokkos::LayoutLeft, Mem<Exec>, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      rgbf(floats.data(), h, w, 3);
  Kokkos::View<float**, Mem<Exec>> c("c", h, w), d("d", h, w);
  twice("float", c, d, [&](const auto& gray) { unison::rgb_to_grayscale(exec, rgbf, gray); });
}

template <class Exec>
void test_loop_sum() {
  Exec exec;
  const double a = unison::loop_sum(exec, 3001), b = unison::loop_sum(exec, 3001);
  EXPECT_TRUE(same_bits_scalar(a, b));
}

template <class Exec>
void test_lucas() {
  Exec exec;
  Kokkos::View<std::int64_t*, Mem<Exec>> a("a", 91), b("b", 91);
  twice("int64", a, b, [&](const auto& out) { unison::lucas(exec, out); });
  Kokkos::View<double*, Mem<Exec>> c("c", 77), d("d", 77);
  twice("double", c, d, [&](const auto& out) { unison::lucas(exec, out); });
}

// ---------------------------------------------------------------------------------------------
// .npy: the same View written twice gives the same file, read back bit for bit (NaN payloads,
// -0.0, subnormals and infinities included).

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <class Exec, class T>
void check_npy() {
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem<Exec>> v("v", 37, 53);
  fill(v, uniform<T>(-1e3, 1e3));
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  h(0, 0) = T(-0.0);
  h(1, 0) = other_poison<T>();
  h(2, 0) = std::numeric_limits<T>::denorm_min();
  h(3, 0) = -std::numeric_limits<T>::infinity();
  h(4, 0) = poison<T>();
  Kokkos::deep_copy(v, h);
  const std::string base =
      ::testing::TempDir() + "unison_determinism_" + Exec::name() + "_" + std::to_string(sizeof(T));
  const std::string p1 = base + "_1.npy", p2 = base + "_2.npy";
  unison::write_npy(p1, v);
  unison::write_npy(p2, v);
  const std::string bytes1 = file_bytes(p1), bytes2 = file_bytes(p2);
  EXPECT_FALSE(bytes1.empty());
  EXPECT_TRUE(bytes1 == bytes2) << "the two files differ";
  const auto r1 = unison::read_npy<T>(p1), r2 = unison::read_npy<T>(p2);
  EXPECT_TRUE(bitwise_equal(r1, r2)) << "read back twice";
  EXPECT_TRUE(bitwise_equal(r1, v)) << "round trip";
  std::remove(p1.c_str());
  std::remove(p2.c_str());
}

template <class Exec>
void test_npy() {
  check_npy<Exec, float>();
  check_npy<Exec, double>();
}

// ---------------------------------------------------------------------------------------------

TYPED_TEST(Determinism, transform) { test_transform<TypeParam>(); }
TYPED_TEST(Determinism, add) { test_add<TypeParam>(); }
TYPED_TEST(Determinism, hypot) { test_hypot<TypeParam>(); }
TYPED_TEST(Determinism, gaussian_pdf) { test_gaussian_pdf<TypeParam>(); }
TYPED_TEST(Determinism, polar_distance) { test_polar_distance<TypeParam>(); }
TYPED_TEST(Determinism, zero_suppress) { test_zero_suppress<TypeParam>(); }
TYPED_TEST(Determinism, make_pulses) { test_make_pulses<TypeParam>(); }
TYPED_TEST(Determinism, hidden_layer_fused) {
  check_hidden_layer<TypeParam>(unison::Fusion::fused);
}
TYPED_TEST(Determinism, hidden_layer_separate) {
  check_hidden_layer<TypeParam>(unison::Fusion::separate);
}
TYPED_TEST(Determinism, convolve_direct) { test_convolve_direct<TypeParam>(); }
TYPED_TEST(Determinism, convolve_tiled) { test_convolve_tiled<TypeParam>(); }
TYPED_TEST(Determinism, convolve_automatic) { test_convolve_automatic<TypeParam>(); }
TYPED_TEST(Determinism, diffusion_step_plain) { test_step<TypeParam>(StencilAlgorithm::plain); }
TYPED_TEST(Determinism, diffusion_step_tiled) { test_step<TypeParam>(StencilAlgorithm::tiled); }
TYPED_TEST(Determinism, diffusion_step_streaming) {
  test_step<TypeParam>(StencilAlgorithm::streaming);
}
TYPED_TEST(Determinism, diffuse_every_step_plain) {
  test_diffuse<TypeParam>(StencilAlgorithm::plain, Laplacian::every_step);
}
TYPED_TEST(Determinism, diffuse_every_step_tiled) {
  test_diffuse<TypeParam>(StencilAlgorithm::tiled, Laplacian::every_step);
}
TYPED_TEST(Determinism, diffuse_every_step_streaming) {
  test_diffuse<TypeParam>(StencilAlgorithm::streaming, Laplacian::every_step);
}
TYPED_TEST(Determinism, diffuse_final_only_plain) {
  test_diffuse<TypeParam>(StencilAlgorithm::plain, Laplacian::final_only);
}
TYPED_TEST(Determinism, diffuse_final_only_tiled) {
  test_diffuse<TypeParam>(StencilAlgorithm::tiled, Laplacian::final_only);
}
TYPED_TEST(Determinism, diffuse_final_only_streaming) {
  test_diffuse<TypeParam>(StencilAlgorithm::streaming, Laplacian::final_only);
}
TYPED_TEST(Determinism, diffuse_callback_plain) {
  test_callback<TypeParam>(StencilAlgorithm::plain);
}
TYPED_TEST(Determinism, diffuse_callback_tiled) {
  test_callback<TypeParam>(StencilAlgorithm::tiled);
}
TYPED_TEST(Determinism, diffuse_callback_streaming) {
  test_callback<TypeParam>(StencilAlgorithm::streaming);
}
TYPED_TEST(Determinism, diffuse_history_plain) { test_history<TypeParam>(StencilAlgorithm::plain); }
TYPED_TEST(Determinism, diffuse_history_tiled) { test_history<TypeParam>(StencilAlgorithm::tiled); }
TYPED_TEST(Determinism, diffuse_history_streaming) {
  test_history<TypeParam>(StencilAlgorithm::streaming);
}
TYPED_TEST(Determinism, jagged_field) { test_jagged_field<TypeParam>(); }
TYPED_TEST(Determinism, matmul_reduce_tiled) { test_matmul_reduce_tiled<TypeParam>(); }
TYPED_TEST(Determinism, matmul_reduce_gemm) { test_matmul_reduce_gemm<TypeParam>(); }
TYPED_TEST(Determinism, matmul_reduce_reassociated) {
  test_matmul_reduce_reassociated<TypeParam>();
}
TYPED_TEST(Determinism, l2_norm) { test_l2_norm<TypeParam>(); }
TYPED_TEST(Determinism, matmul_core) { test_matmul_core<TypeParam>(); }
TYPED_TEST(Determinism, histogram) { test_histogram<TypeParam>(); }
TYPED_TEST(Determinism, atomic_counter) { test_atomic_counter<TypeParam>(); }
TYPED_TEST(Determinism, monte_carlo_pi) { test_monte_carlo_pi<TypeParam>(); }
TYPED_TEST(Determinism, rgb_to_grayscale) { test_rgb_to_grayscale<TypeParam>(); }
TYPED_TEST(Determinism, loop_sum) { test_loop_sum<TypeParam>(); }
TYPED_TEST(Determinism, lucas) { test_lucas<TypeParam>(); }
TYPED_TEST(Determinism, npy_round_trip) { test_npy<TypeParam>(); }

}  // namespace
