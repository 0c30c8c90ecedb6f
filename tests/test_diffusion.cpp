// Diffusion against a float64 host reference, on every backend: odd sizes, both layouts, every
// tile shape and steps per pass the backends use, bitwise equality of every variant with the
// plain kernel, run-to-run determinism, the per-step callback, every error (the jagged field, the
// workload's start, has its own file: test_field.cpp).
// Beside them, the suites every family has: DiffusionPreconditions, DiffusionDeterminism,
// DiffusionLabels and DiffusionInstance (tests/preconditions.hpp, determinism.hpp, labels.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <unison/diffusion.hpp>
#include <unison/field.hpp>

#include "determinism.hpp"
#include "labels.hpp"
#include "preconditions.hpp"
#include "test_helpers.hpp"

namespace {

using namespace unison::test;
using unison::DiffusionOptions;
using unison::Laplacian;
using unison::StencilAlgorithm;

// `steps` steps of docs/workloads.md section 4 in float64, on a row-major nx x ny field; lapl gets
// the last step's Laplacian.
void reference(std::vector<double>& f, std::vector<double>& lapl, long nx, long ny, int steps,
               double coeff) {
  std::vector<double> next(f.size());
  lapl.assign(f.size(), 0.0);
  auto at = [&](long i, long j) {
    return i < 0 || j < 0 || i >= nx || j >= ny ? 0.0 : f[std::size_t(i * ny + j)];
  };
  for (int s = 0; s < steps; ++s) {
    for (long i = 0; i < nx; ++i)
      for (long j = 0; j < ny; ++j) {
        const double l = 4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
        lapl[std::size_t(i * ny + j)] = l;
        next[std::size_t(i * ny + j)] = at(i, j) - coeff * l;
      }
    f.swap(next);
  }
}

template <class Exec, class T, class Layout>
using Field = Kokkos::View<T**, Layout, typename Exec::memory_space>;

// Every tile shape a backend uses by default, and odd ones that leave partial tiles.
template <class Exec>
std::vector<std::pair<int, int>> tile_shapes() {
  using Tuning = unison::backends::DiffusionTuning<Exec>;
  return {{Tuning::tile_rows, Tuning::tile_cols},
          {Tuning::blocked_tile_rows, Tuning::blocked_tile_cols},
          {1, 1},
          {3, 5},
          {7, 33}};
}

template <class Exec>
std::vector<int> steps_per_pass() {
  return {1, 2, 3, unison::backends::DiffusionTuning<Exec>::steps_per_pass, 5};
}

template <class Exec, class T, class Layout>
void check_field(long nx, long ny, int steps) {
  Exec exec;
  const double coeff = 0.25;
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny);
  fill(f0, uniform<T>(-1, 1));
  std::vector<double> ref = to_host(f0), ref_lapl;
  reference(ref, ref_lapl, nx, ny, steps, coeff);
  const std::string where = std::to_string(nx) + "x" + std::to_string(ny) + ", " +
                            std::to_string(steps) + " steps, " + typeid(Layout).name() + ", " +
                            (sizeof(T) == 4 ? "float" : "double");

  // The plain kernel, one step at a time: the reference the variants must equal bitwise.
  Field<Exec, T, Layout> a("a", nx, ny), b("b", nx, ny);
  Kokkos::deep_copy(a, f0);
  for (int s = 0; s < steps; ++s) {
    poison_fill(b);
    poison_fill(lapl);
    unison::diffusion_step(exec, a, b, lapl, coeff, StencilAlgorithm::plain);
    std::swap(a, b);
  }
  exec.fence();
  const auto plain = to_host(a), plain_lapl = to_host(lapl);
  EXPECT_TRUE(close(plain, ref, tolerance<T>() * steps)) << where;
  EXPECT_TRUE(close(plain_lapl, ref_lapl, tolerance<T>() * steps)) << where;

  // diffusion_step with every other algorithm, chained by hand.
  for (auto algorithm : {StencilAlgorithm::automatic, StencilAlgorithm::tiled,
                         StencilAlgorithm::streaming, StencilAlgorithm::wavefront}) {
    Kokkos::deep_copy(a, f0);
    for (int s = 0; s < steps; ++s) {
      poison_fill(b);
      poison_fill(lapl);
      unison::diffusion_step(exec, a, b, lapl, coeff, algorithm);
      std::swap(a, b);
    }
    exec.fence();
    EXPECT_TRUE(close(to_host(a), plain, 0))
        << "diffusion_step " << int(algorithm) << ", " << where;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0))
        << "diffusion_step lapl " << int(algorithm) << ", " << where;
  }

  // diffuse: every step's Laplacian, each tile shape.
  for (auto [rows, cols] : tile_shapes<Exec>()) {
    DiffusionOptions options;
    options.tile_rows = rows;
    options.tile_cols = cols;
    Kokkos::deep_copy(f, f0);
    poison_fill(lapl);
    try {
      unison::diffuse(exec, f, steps, coeff, lapl, Laplacian::every_step, options);
    } catch (const unison::invalid_argument& e) {
      // As below: a tile too large for this backend's scratch in this value type is refused.
      EXPECT_NE(std::string(e.what()).find("bytes of team scratch"), std::string::npos) << e.what();
      continue;
    }
    EXPECT_TRUE(close(to_host(f), plain, 0))
        << "every_step, tile " << rows << "x" << cols << ", " << where;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0))
        << "every_step lapl, tile " << rows << "x" << cols << ", " << where;
    // final_only: every steps per pass with this tile.
    for (int per_pass : steps_per_pass<Exec>()) {
      options.steps_per_pass = per_pass;
      Kokkos::deep_copy(f, f0);
      poison_fill(lapl);
      try {
        unison::diffuse(exec, f, steps, coeff, lapl, Laplacian::final_only, options);
      } catch (const unison::invalid_argument& e) {
        // A tile given explicitly that the backend's scratch cannot hold for this value type
        // (a GPU's 40 KiB for double at 5 steps per pass) is refused, as documented.
        EXPECT_NE(std::string(e.what()).find("bytes of team scratch"), std::string::npos)
            << e.what();
        continue;
      }
      EXPECT_TRUE(close(to_host(f), plain, 0)) << "final_only, " << per_pass << " per pass, tile "
                                               << rows << "x" << cols << ", " << where;
      EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0))
          << "final_only lapl, " << per_pass << " per pass, tile " << rows << "x" << cols << ", "
          << where;
    }
  }
  // streaming, final_only, several steps a pass: CPU row blocks any number, GPU strips 1 or 2
  // (odd step counts end with a shorter pass).
  for (int per_pass : {1, 2, 3, 4, 5, 8}) {
    if (per_pass > 2 && !unison::streaming_row_blocks_v<Exec>) break;
    DiffusionOptions options;
    options.algorithm = StencilAlgorithm::streaming;
    options.steps_per_pass = per_pass;
    Kokkos::deep_copy(f, f0);
    poison_fill(lapl);
    unison::diffuse(exec, f, steps, coeff, lapl, Laplacian::final_only, options);
    EXPECT_TRUE(close(to_host(f), plain, 0)) << "streaming, " << per_pass << " per pass, " << where;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0))
        << "streaming lapl, " << per_pass << " per pass, " << where;
  }
  {  // The backend's steps per pass: more past streaming_large_field_bytes (the forms above).
    using Tuning = unison::backends::DiffusionTuning<Exec>;
    const auto chosen = [](std::int64_t bytes, std::int64_t row_bytes = 4096) {
      return unison::detail::diffusion::steps_per_pass<Exec>(
          StencilAlgorithm::streaming, Laplacian::final_only, {}, bytes, row_bytes);
    };
    EXPECT_EQ(chosen(Tuning::streaming_large_field_bytes), Tuning::streaming_steps_per_pass);
    EXPECT_EQ(chosen(Tuning::streaming_large_field_bytes + 1),
              Tuning::streaming_steps_per_pass_large);
    // Row blocks: no more steps than keep the ring of rows within streaming_ring_max_bytes (a
    // field of a few very long rows: one step a pass, no ring).
    // automatic: wavefront for the final Laplacian from wavefront_min_field_bytes on (never on a
    // backend whose bound is INT64_MAX), never for every Laplacian.
    const auto resolved = [](Laplacian which, std::int64_t bytes) {
      return unison::detail::diffusion::resolve_algorithm<Exec>(StencilAlgorithm::automatic, which,
                                                                {}, bytes);
    };
    const std::int64_t from = Tuning::wavefront_min_field_bytes;
    EXPECT_NE(resolved(Laplacian::final_only, from - 1), StencilAlgorithm::wavefront);
    EXPECT_NE(resolved(Laplacian::every_step, from), StencilAlgorithm::wavefront);
    EXPECT_EQ(resolved(Laplacian::final_only, from) == StencilAlgorithm::wavefront,
              from < std::numeric_limits<std::int64_t>::max());
    if (unison::streaming_row_blocks_v<Exec>) {
      const std::int64_t ring = Tuning::streaming_ring_max_bytes;
      EXPECT_EQ(chosen(Tuning::streaming_large_field_bytes + 1, ring / 3 + 1), 1);
      EXPECT_EQ(chosen(Tuning::streaming_large_field_bytes + 1, ring / 6), 3);
      EXPECT_EQ(chosen(std::int64_t(1) << 40, std::int64_t(1) << 30), 1);
    }
  }
  // With a caller's buffer (asynchronous: the fence below is the caller's).
  {
    unison::DiffusionBuffer<decltype(f)> buffer("buffer", nx, ny);
    Kokkos::deep_copy(f, f0);
    poison_fill(lapl);
    unison::diffuse(exec, f, buffer, steps, coeff, lapl, Laplacian::final_only);
    exec.fence();
    EXPECT_TRUE(close(to_host(f), plain, 0)) << "with a buffer, " << where;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << "with a buffer, " << where;
  }
  // The backend's own choices, and the plain algorithm through diffuse.
  for (auto which : {Laplacian::every_step, Laplacian::final_only}) {
    for (auto algorithm :
         {StencilAlgorithm::automatic, StencilAlgorithm::plain, StencilAlgorithm::tiled,
          StencilAlgorithm::streaming, StencilAlgorithm::wavefront}) {
      DiffusionOptions options;
      options.algorithm = algorithm;
      Kokkos::deep_copy(f, f0);
      poison_fill(lapl);
      unison::diffuse(exec, f, steps, coeff, lapl, which, options);
      EXPECT_TRUE(close(to_host(f), plain, 0))
          << "algorithm " << int(algorithm) << ", " << int(which) << ", " << where;
      EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0))
          << "algorithm " << int(algorithm) << " lapl, " << int(which) << ", " << where;
    }
  }
}

// The plain kernel one step at a time from f0 (`steps` steps): the field and the last Laplacian
// that every other form must match to the bit, checked here against the float64 reference.
struct PlainSteps {
  std::vector<double> field, lapl;
  std::string name;  // the field's size, steps, layout and type, for the messages
};
template <class Exec, class F>
PlainSteps plain_steps(const Exec& exec, const F& f0, int steps, double coeff) {
  using T = typename F::non_const_value_type;
  const long nx = long(f0.extent(0)), ny = long(f0.extent(1));
  F a("a", nx, ny), b("b", nx, ny), lapl("lapl", nx, ny);
  Kokkos::deep_copy(a, f0);
  for (int s = 0; s < steps; ++s) {
    unison::diffusion_step(exec, a, b, lapl, coeff, StencilAlgorithm::plain);
    std::swap(a, b);
  }
  exec.fence();
  PlainSteps p{to_host(a), to_host(lapl),
               std::to_string(nx) + "x" + std::to_string(ny) + ", " + std::to_string(steps) +
                   " steps, " + typeid(typename F::array_layout).name() + ", " +
                   (sizeof(T) == 4 ? "float" : "double")};
  std::vector<double> ref = to_host(f0), ref_lapl;
  reference(ref, ref_lapl, nx, ny, steps, coeff);
  EXPECT_TRUE(close(p.field, ref, tolerance<T>() * steps)) << p.name;
  return p;
}

// streaming in strips of each height (on every backend, though only GPUs take it by default):
// 16-byte chunks, partial chunks at the right edge, strips cut by the bottom edge.
template <class Exec, class T, class Layout>
void check_strips(long nx, long ny, int steps) {
  Exec exec;
  const double coeff = 0.25;
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny);
  fill(f0, uniform<T>(-1, 1));
  const PlainSteps p = plain_steps(exec, f0, steps, coeff);
  const auto &plain = p.field, &plain_lapl = p.lapl;
  // (final_only with 1 and 2 steps per pass; an odd step count ends with a one-step pass;
  // every prefetch depth with one step per pass.)
  for (int strip : {1, 3, 8, 1000}) {
    for (int variant : {0, 1, 2, 3, 4, 5}) {
      const int per_pass = variant < 3 ? variant : 0, prefetch = variant < 3 ? 0 : variant - 1;
      const auto which = per_pass == 0 ? Laplacian::every_step : Laplacian::final_only;
      DiffusionOptions options;
      options.algorithm = StencilAlgorithm::streaming;
      options.strip_rows = strip;
      options.steps_per_pass = per_pass;
      options.strip_prefetch = prefetch;
      Kokkos::deep_copy(f, f0);
      poison_fill(lapl);
      unison::diffuse(exec, f, steps, coeff, lapl, which, options);
      const std::string where =
          std::to_string(nx) + "x" + std::to_string(ny) + ", strips of " + std::to_string(strip) +
          ", " + typeid(Layout).name() + ", " + (sizeof(T) == 4 ? "float" : "double") + ", " +
          std::to_string(per_pass) + " per pass, prefetch " + std::to_string(prefetch);
      EXPECT_TRUE(close(to_host(f), plain, 0)) << where;
      EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << where;
    }
  }
}

// wavefront, final_only, on every backend: each depth up to the backend's bound (an uneven last
// pass), blocks of rows from 1 to more than the field (the backend's choice too), strips cut by
// the right edge, whole chunks and single cells (pitch not a multiple of a thread's cells).
template <class Exec, class T, class Layout>
void check_wavefront(long nx, long ny, int steps) {
  Exec exec;
  const double coeff = 0.2;
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny);
  fill(f0, uniform<T>(-1, 1));
  const PlainSteps p = plain_steps(exec, f0, steps, coeff);
  const auto &plain = p.field, &plain_lapl = p.lapl;
  const std::string& field = p.name;
  constexpr int deepest = unison::backends::DiffusionTuning<Exec>::wavefront_steps;
  for (int per_pass : {0, 1, 3, deepest})
    for (int rows : {0, 1, 5, 1000}) {
      DiffusionOptions options;
      options.algorithm = StencilAlgorithm::wavefront;
      options.steps_per_pass = per_pass;
      options.tile_rows = rows;
      Kokkos::deep_copy(f, f0);
      poison_fill(lapl);
      unison::diffuse(exec, f, steps, coeff, lapl, Laplacian::final_only, options);
      const std::string where = field + ", " + std::to_string(per_pass) + " per pass, blocks of " +
                                std::to_string(rows) + " rows";
      EXPECT_TRUE(close(to_host(f), plain, 0)) << where;
      EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << where;
    }
}

// resident (diffuse, CUDA GPUs): every step's Laplacian and the last one's, bitwise against the
// plain kernel one step at a time; fields smaller than a tile, odd sizes, several tiles down and
// across (a tile is 1024 columns wide), a Laplacian whose rows allow wide stores and one strided
// (every other column of a wider array, one cell at a time), a strided field (copied in and out),
// the caller's buffer, diffuse_history's planes, and `automatic` (which takes it where the field
// fits). Elsewhere: refused.
template <class Exec, class T, class Layout>
void check_resident(long nx, long ny, int steps) {
  Exec exec;
  const double coeff = 0.2;
  using Mem = typename Exec::memory_space;
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny);
  Kokkos::View<T*, Mem> wide("wide", std::size_t(nx) * std::size_t(ny) * 2);
  using Strided =
      Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Strided strided(wide.data(), Kokkos::LayoutStride(nx, 2 * ny, ny, 2));
  fill(f0, uniform<T>(-1, 1));
  const PlainSteps p = plain_steps(exec, f0, steps, coeff);
  const auto &plain = p.field, &plain_lapl = p.lapl;
  const std::string& field = p.name;
  DiffusionOptions resident;
  resident.algorithm = StencilAlgorithm::resident;
  if constexpr (!unison::detail::diffusion::resident_available_v<Exec>) {
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse(exec, f, steps, coeff, lapl, Laplacian::final_only, resident); },
        "unison::diffuse", {"the resident algorithm needs a CUDA GPU"}));
    return;
  }
  for (Laplacian which : {Laplacian::every_step, Laplacian::final_only}) {
    const std::string how = field + (which == Laplacian::every_step ? ", every step" : ", final");
    Kokkos::deep_copy(f, f0);
    poison_fill(lapl);
    unison::diffuse(exec, f, steps, coeff, lapl, which, resident);
    EXPECT_TRUE(close(to_host(f), plain, 0)) << how;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << how;
    // A strided Laplacian, the caller's buffer.
    unison::DiffusionBuffer<decltype(f)> buffer("buffer", nx, ny);
    Kokkos::deep_copy(f, f0);
    poison_fill(strided);
    unison::diffuse(exec, f, buffer, steps, coeff, strided, which, resident);
    EXPECT_TRUE(close(to_host(f), plain, 0)) << how << ", strided lapl";
    EXPECT_TRUE(close(to_host(strided), plain_lapl, 0)) << how << ", strided lapl";
    // A strided field, the Laplacian in a contiguous one.
    Kokkos::deep_copy(strided, f0);
    poison_fill(lapl);
    unison::diffuse(exec, strided, steps, coeff, lapl, which, resident);
    EXPECT_TRUE(close(to_host(strided), plain, 0)) << how << ", strided f";
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << how << ", strided f";
    if (which == Laplacian::every_step) {
      // diffuse_history: step k's Laplacian in plane (k - 1) % 3, groups of 3 steps (the last
      // shorter), each group's callback in order; against the plain kernel's history.
      Kokkos::View<T***, Layout, Mem> history("history", 3, nx, ny), want("want", 3, nx, ny);
      DiffusionOptions plain_options;
      plain_options.algorithm = StencilAlgorithm::plain;
      std::vector<std::pair<long, long>> groups, want_groups;
      Kokkos::deep_copy(f, f0);
      unison::diffuse_history(
          exec, f, steps, coeff, want,
          [&](std::int64_t first, std::int64_t count, const auto&, const auto&) {
            want_groups.emplace_back(first, count);
          },
          plain_options);
      exec.fence();
      const auto want_f = to_host(f);
      Kokkos::deep_copy(f, f0);
      poison_fill(Kokkos::subview(history, 0, Kokkos::ALL, Kokkos::ALL));
      unison::diffuse_history(
          exec, f, steps, coeff, history,
          [&](std::int64_t first, std::int64_t count, const auto&, const auto&) {
            groups.emplace_back(first, count);
          },
          resident);
      EXPECT_TRUE(close(to_host(f), want_f, 0)) << how << ", history";
      EXPECT_TRUE(close(want_f, plain, 0)) << how << ", history";
      EXPECT_EQ(groups, want_groups) << how << ", history";
      for (int k = 0; k < 3 && k < steps; ++k)
        EXPECT_TRUE(close(to_host(Kokkos::subview(history, k, Kokkos::ALL, Kokkos::ALL)),
                          to_host(Kokkos::subview(want, k, Kokkos::ALL, Kokkos::ALL)), 0))
            << how << ", history plane " << k;
      EXPECT_TRUE(
          close(to_host(Kokkos::subview(history, (steps - 1) % 3, Kokkos::ALL, Kokkos::ALL)),
                plain_lapl, 0))
          << how << ", history's last plane";
    }
    // automatic: the same bits, whichever kernel it takes.
    Kokkos::deep_copy(f, f0);
    poison_fill(lapl);
    unison::diffuse(exec, f, steps, coeff, lapl, which);
    EXPECT_TRUE(close(to_host(f), plain, 0)) << how << ", automatic";
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << how << ", automatic";
  }
}

template <class Exec>
void test_resident() {
  // A tile: 16 rows of float or 8 of double, 1024 columns.
  const long shapes[][2] = {{1, 1}, {3, 5}, {17, 1025}, {37, 2100}, {600, 41}, {250, 9}};
  for (auto& s : shapes)
    for (int steps : {1, 2, 7}) {
      check_resident<Exec, float, Kokkos::LayoutRight>(s[0], s[1], steps);
      check_resident<Exec, double, Kokkos::LayoutLeft>(s[0], s[1], steps);
      if (!unison::detail::diffusion::resident_available_v<Exec>) return;  // (refused: once)
    }
  check_resident<Exec, float, Kokkos::LayoutLeft>(1030, 20, 5);
  check_resident<Exec, double, Kokkos::LayoutRight>(65, 1100, 6);
}

template <class Exec>
void test_sizes() {
  const long shapes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 5}, {67, 131}, {130, 257}};
  for (auto& s : shapes) {
    if (sanitized && s[0] == 130) continue;  // (67 x 131 crosses the same edges)
    for (int steps : {1, 4, 7}) {
      check_field<Exec, float, Kokkos::LayoutRight>(s[0], s[1], steps);
      check_field<Exec, double, Kokkos::LayoutLeft>(s[0], s[1], steps);
    }
  }
  check_field<Exec, double, Kokkos::LayoutRight>(67, 131, 5);
  check_field<Exec, float, Kokkos::LayoutLeft>(67, 131, 5);
  const long strips[][2] = {{1, 1}, {1, 9}, {9, 1}, {17, 8}, {67, 131}, {130, 260}};
  for (auto& s : strips) {
    if (sanitized && s[0] == 130) continue;
    check_strips<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 3);
    check_strips<Exec, double, Kokkos::LayoutRight>(s[0], s[1], 4);
    check_strips<Exec, float, Kokkos::LayoutLeft>(s[0], s[1], 5);
  }
  // Wider than a strip of every backend (496 columns of float on a GPU, 240 on a CPU), 11 steps:
  // more than a pass of the backend's depth.
  const long waves[][2] = {{1, 1}, {3, 5}, {29, 1024}, {37, 601}, {601, 37}};
  for (auto& s : waves) {
    check_wavefront<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 11);
    check_wavefront<Exec, double, Kokkos::LayoutLeft>(s[0], s[1], 11);
  }
  check_wavefront<Exec, float, Kokkos::LayoutLeft>(1000, 29, 6);
}

// The seed size, a few steps: tiled and blocked against plain and the reference. (Sanitised: 67
// rows of 2051, wider than the CPU kernels' column tiles, as 2000 is wider than the blocked ones.)
template <class Exec>
void test_seed_size() {
  Exec exec;
  const long n = sanitized ? 67 : 2000, m = sanitized ? 2051 : 2000;
  const int steps = 3;
  Field<Exec, float, Kokkos::LayoutRight> f0("f0", n, m), f("f", n, m), lapl("lapl", n, m),
      b("b", n, m);
  unison::jagged_field(exec, f0);
  std::vector<double> ref = to_host(f0), ref_lapl;
  reference(ref, ref_lapl, n, m, steps, 0.25);
  Kokkos::deep_copy(f, f0);
  for (int s = 0; s < steps; ++s) {
    unison::diffusion_step(exec, f, b, lapl, 0.25, StencilAlgorithm::plain);
    std::swap(f, b);
  }
  exec.fence();
  const auto plain = to_host(f), plain_lapl = to_host(lapl);
  EXPECT_TRUE(close(plain, ref, 1e-5));
  EXPECT_TRUE(close(plain_lapl, ref_lapl, 1e-5));
  for (auto which : {Laplacian::every_step, Laplacian::final_only}) {
    Kokkos::deep_copy(f, f0);
    unison::diffuse(exec, f, steps, 0.25, lapl, which);
    EXPECT_TRUE(close(to_host(f), plain, 0)) << int(which);
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << int(which);
  }
}

// A field laid out by strides (what an array from Python becomes), in four layouts: rows one
// after another with unit columns (stepped where it lies: no copy of it is taken), columns one
// after another, padded rows and padded columns (copied into a contiguous buffer and back by
// diffuse's own kernels). Each gives the contiguous field's result bit for bit, for an odd and an
// even count of passes (the result last in the buffer or in the field), every algorithm.
template <class Exec>
void test_stride_layouts() {
  const Exec exec;
  using Mem = typename Exec::memory_space;
  const std::int64_t nx = 37, ny = 29;
  using Strided =
      Kokkos::View<float**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Field<Exec, float, Kokkos::LayoutRight> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny),
      lapl2("lapl2", nx, ny);
  Kokkos::View<float*, Mem> memory("memory", (nx + 5) * (ny + 5));
  fill(f0, uniform<float>(-1, 1));
  struct Case {
    const char* name;
    std::size_t s0, s1;
    bool in_place;
  };
  const Case cases[] = {{"rows", std::size_t(ny), 1, true},
                        {"columns", 1, std::size_t(nx), false},
                        {"padded rows", std::size_t(ny + 5), 1, false},
                        {"padded columns", 1, std::size_t(nx + 5), false}};
  for (const Case& c : cases)
    for (auto algorithm :
         {StencilAlgorithm::automatic, StencilAlgorithm::plain, StencilAlgorithm::tiled,
          StencilAlgorithm::streaming, StencilAlgorithm::wavefront})
      for (auto which : {Laplacian::every_step, Laplacian::final_only})
        for (int steps : {4, 5}) {
          DiffusionOptions options;
          options.algorithm = algorithm;
          Kokkos::deep_copy(f, f0);
          unison::diffuse(exec, f, steps, 0.2, lapl, which, options);
          Strided g(memory.data(), Kokkos::LayoutStride(nx, c.s0, ny, c.s1));
          Kokkos::deep_copy(memory, -7.0f);
          Kokkos::deep_copy(g, f0);
          unison::release_temporary_memory();
          const auto seen = record([&] {
            unison::diffuse(exec, g, steps, 0.2, lapl2, which, options);
            exec.fence();
          });
          const std::string what = std::string(c.name) + ", algorithm " +
                                   std::to_string(int(algorithm)) + ", " + std::to_string(steps) +
                                   " steps";
          EXPECT_TRUE(close(to_host(g), to_host(f), 0)) << what;
          EXPECT_TRUE(close(to_host(lapl2), to_host(lapl), 0)) << what;
          EXPECT_EQ(has_label(seen, "allocation unison::diffusion::field"), !c.in_place) << what;
          EXPECT_EQ(has_label(seen, "kernel unison::diffusion::copy_in"), !c.in_place) << what;
          EXPECT_EQ(has_label(seen, "kernel unison::diffusion::copy_out"), !c.in_place) << what;
          // The memory around the field is left as it was (no field value is -7).
          const auto all = to_host(memory);
          EXPECT_EQ(std::size_t(std::count(all.begin(), all.end(), -7.0)),
                    all.size() - std::size_t(nx * ny))
              << what;
        }
}

// The same inputs give the same outputs on every run; a strided field works.
template <class Exec>
void test_deterministic_and_strided() {
  Exec exec;
  const long nx = 301, ny = 203;
  using Mem = typename Exec::memory_space;
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> block("block", nx, 2, ny);
  auto f = Kokkos::subview(block, Kokkos::ALL, 1, Kokkos::ALL);  // LayoutStride
  Field<Exec, double, Kokkos::LayoutRight> f0("f0", nx, ny), lapl("lapl", nx, ny);
  fill(f0, uniform<double>(0, 1));
  std::vector<std::vector<double>> runs;
  for (int run = 0; run < 3; ++run) {
    Kokkos::deep_copy(f, f0);
    unison::diffuse(exec, f, 9, 0.2, lapl, Laplacian::final_only);
    runs.push_back(to_host(f));
  }
  EXPECT_TRUE(close(runs[1], runs[0], 0));
  EXPECT_TRUE(close(runs[2], runs[0], 0));
  std::vector<double> ref = to_host(f0), ref_lapl;
  reference(ref, ref_lapl, nx, ny, 9, 0.2);
  EXPECT_TRUE(close(runs[0], ref, 1e-12));
  EXPECT_TRUE(close(to_host(lapl), ref_lapl, 1e-12));
  // One tiled step from strided fields: rows apart in memory (read in place on a CPU) and
  // columns apart too (staged). (diffuse copies a strided field into a contiguous buffer.)
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> cells("cells", nx, ny, 2);
  auto g = Kokkos::subview(cells, Kokkos::ALL, Kokkos::ALL, 1);  // columns 2 apart
  // Each against the plain kernel bit for bit, and the plain kernel against the reference.
  Field<Exec, double, Kokkos::LayoutRight> next("next", nx, ny);
  std::vector<double> one = to_host(f0), one_lapl;
  reference(one, one_lapl, nx, ny, 1, 0.2);
  unison::diffusion_step(exec, f0, next, lapl, 0.2, StencilAlgorithm::plain);
  const auto plain = to_host(next), plain_lapl = to_host(lapl);
  EXPECT_TRUE(close(plain, one, 1e-12));
  EXPECT_TRUE(close(plain_lapl, one_lapl, 1e-12));
  Kokkos::deep_copy(f, f0);
  Kokkos::deep_copy(g, f0);
  poison_fill(next);
  poison_fill(lapl);
  unison::diffusion_step(exec, f, next, lapl, 0.2, StencilAlgorithm::tiled);
  EXPECT_TRUE(close(to_host(next), plain, 0)) << "rows apart";
  EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << "rows apart";
  poison_fill(next);
  poison_fill(lapl);
  unison::diffusion_step(exec, g, next, lapl, 0.2, StencilAlgorithm::tiled);
  EXPECT_TRUE(close(to_host(next), plain, 0)) << "columns apart";
  EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << "columns apart";
  // The plain kernel itself from the strided fields, into a strided next field.
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> outs("outs", nx, ny, 3);
  auto next_g = Kokkos::subview(outs, Kokkos::ALL, Kokkos::ALL, 2);  // columns 3 apart
  for (int k = 0; k < 2; ++k) {
    poison_fill(lapl);
    Kokkos::deep_copy(outs, -7.0);
    if (k == 0) unison::diffusion_step(exec, f, next_g, lapl, 0.2, StencilAlgorithm::plain);
    else unison::diffusion_step(exec, g, next_g, lapl, 0.2, StencilAlgorithm::plain);
    EXPECT_TRUE(close(to_host(next_g), plain, 0)) << "plain, strided, " << k;
    EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << "plain, strided, " << k;
    for (int beside : {0, 1})  // nothing written beside next_g
      EXPECT_TRUE(close(to_host(Kokkos::subview(outs, Kokkos::ALL, Kokkos::ALL, beside)),
                        std::vector<double>(nx * ny, -7.0), 0))
          << "plain, strided, " << k << ", beside " << beside;
  }
}

// The callback sees every step's field and Laplacian, in order.
template <class Exec>
void test_callback() {
  Exec exec;
  const long nx = 45, ny = 77;
  const int steps = 6;
  using Mem = typename Exec::memory_space;
  Field<Exec, float, Kokkos::LayoutRight> f0("f0", nx, ny), f("f", nx, ny), lapl("lapl", nx, ny);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> fields("fields", steps, nx, ny),
      lapls("lapls", steps, nx, ny);
  fill(f0, uniform<float>(-1, 1));
  Kokkos::deep_copy(f, f0);
  std::vector<std::int64_t> seen;
  unison::diffuse(
      exec, f, steps, 0.25, lapl, [&](std::int64_t step, const auto& field, const auto& l) {
        seen.push_back(step);
        Kokkos::deep_copy(exec, Kokkos::subview(fields, step - 1, Kokkos::ALL, Kokkos::ALL), field);
        Kokkos::deep_copy(exec, Kokkos::subview(lapls, step - 1, Kokkos::ALL, Kokkos::ALL), l);
      });
  ASSERT_EQ(seen.size(), std::size_t(steps));
  for (int s = 0; s < steps; ++s) EXPECT_EQ(seen[std::size_t(s)], s + 1);
  std::vector<double> ref = to_host(f0), ref_lapl;
  for (int s = 0; s < steps; ++s) {
    reference(ref, ref_lapl, nx, ny, 1, 0.25);
    EXPECT_TRUE(close(to_host(Kokkos::subview(fields, s, Kokkos::ALL, Kokkos::ALL)), ref, 1e-5))
        << "step " << s + 1;
    EXPECT_TRUE(close(to_host(Kokkos::subview(lapls, s, Kokkos::ALL, Kokkos::ALL)), ref_lapl, 1e-5))
        << "step " << s + 1;
  }
  EXPECT_TRUE(close(to_host(f), ref, 1e-5));
}

// diffuse_history: every step's Laplacian in its plane, a group of planes at a time, against
// the plain kernel's single steps (bitwise) and the float64 reference: every depth, steps per
// pass of the streaming kernels (with few rows per thread the halo spans other threads' rows; on
// a CPU the strip form too), algorithm, layout and the buffer form.
template <class Exec, class T, class Layout>
void check_history(long nx, long ny, int steps) {
  Exec exec;
  const double coeff = 0.25;
  using Mem = typename Exec::memory_space;
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), a("a", nx, ny), b("b", nx, ny),
      lapl("lapl", nx, ny);
  fill(f0, uniform<T>(-1, 1));
  // The plain kernel's field and Laplacian after each step.
  std::vector<std::vector<double>> fields, lapls;
  Kokkos::deep_copy(a, f0);
  std::vector<double> ref = to_host(f0), ref_lapl;
  for (int s = 0; s < steps; ++s) {
    unison::diffusion_step(exec, a, b, lapl, coeff, StencilAlgorithm::plain);
    std::swap(a, b);
    fields.push_back(to_host(a));
    lapls.push_back(to_host(lapl));
    reference(ref, ref_lapl, nx, ny, 1, coeff);
    EXPECT_TRUE(close(lapls.back(), ref_lapl, tolerance<T>() * (s + 1))) << "step " << s + 1;
  }
  EXPECT_TRUE(close(fields.back(), ref, tolerance<T>() * steps));
  const bool blocking = unison::streaming_row_blocks_v<Exec>;
  const std::vector<int> passes =
      blocking ? std::vector<int>{0, 1, 2, 3, 4, 8} : std::vector<int>{0, 1, 2};
  for (int depth : {1, 3, 4, 8}) {
    Kokkos::View<T***, Kokkos::LayoutRight, Mem> history("history", depth, nx, ny);
    for (auto algorithm : {StencilAlgorithm::automatic, StencilAlgorithm::streaming,
                           StencilAlgorithm::plain, StencilAlgorithm::tiled}) {
      // (Strips of 3 rows: a GPU's form with short strips; on a CPU the strip form.)
      for (int variant = 0; variant < int(passes.size()) + 2; ++variant) {
        const bool strip = variant >= int(passes.size());
        const int per_pass = strip ? variant - int(passes.size()) + 1 : passes[variant];
        const bool one_step =
            algorithm == StencilAlgorithm::plain || algorithm == StencilAlgorithm::tiled;
        if ((per_pass > 1 || strip) && one_step) continue;
        if (strip && algorithm != StencilAlgorithm::streaming) continue;
        DiffusionOptions options;
        options.algorithm = algorithm;
        options.steps_per_pass = per_pass;
        options.strip_rows = strip ? 3 : 0;
        const std::string where = std::to_string(nx) + "x" + std::to_string(ny) + ", " +
                                  std::to_string(steps) + " steps, depth " + std::to_string(depth) +
                                  ", algorithm " + std::to_string(int(algorithm)) + ", " +
                                  std::to_string(per_pass) + " per pass, strips of " +
                                  std::to_string(options.strip_rows) + ", " +
                                  typeid(Layout).name() + ", " + typeid(T).name();
        Kokkos::deep_copy(f, f0);
        poison_fill(history);
        std::int64_t next = 1;
        unison::diffuse_history(
            exec, f, steps, coeff, history,
            [&](std::int64_t first, std::int64_t count, const auto& field, const auto& h) {
              EXPECT_EQ(first, next) << where;
              EXPECT_EQ(count, std::min<std::int64_t>(depth, steps - first + 1)) << where;
              next = first + count;
              EXPECT_EQ(h.data(), history.data()) << where;
              for (std::int64_t k = 0; k < count; ++k)
                EXPECT_TRUE(close(to_host(Kokkos::subview(h, k, Kokkos::ALL, Kokkos::ALL)),
                                  lapls[std::size_t(first - 1 + k)], 0))
                    << where << ", plane " << k << " of the group from step " << first;
              EXPECT_TRUE(close(to_host(field), fields[std::size_t(first + count - 2)], 0))
                  << where << ", field after step " << first + count - 1;
            },
            options);
        EXPECT_EQ(next, steps + 1) << where;
        EXPECT_TRUE(close(to_host(f), fields.back(), 0)) << where;
      }
    }
  }
  // The buffer form, asynchronous: the fence is the caller's; a LayoutLeft history.
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> history("history", 2, nx, ny);
  unison::DiffusionBuffer<decltype(f)> buffer("buffer", nx, ny);
  Kokkos::deep_copy(f, f0);
  std::vector<std::vector<double>> seen{std::size_t(steps)};
  unison::diffuse_history(exec, f, buffer, steps, coeff, history,
                          [&](std::int64_t first, std::int64_t count, const auto&, const auto& h) {
                            for (std::int64_t k = 0; k < count; ++k)
                              seen[std::size_t(first - 1 + k)] =
                                  to_host(Kokkos::subview(h, k, Kokkos::ALL, Kokkos::ALL));
                          });
  exec.fence();
  EXPECT_TRUE(close(to_host(f), fields.back(), 0)) << "buffer form";
  for (int s = 0; s < steps; ++s)
    EXPECT_TRUE(close(seen[std::size_t(s)], lapls[std::size_t(s)], 0))
        << "buffer form, step " << s + 1;
}

template <class Exec>
void test_history() {
  const long shapes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 5}, {5, 3}, {67, 131}, {130, 257}};
  for (auto& s : shapes) {
    if (sanitized && s[0] == 130) continue;  // (67 x 131 crosses the same edges)
    check_history<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 11);
    check_history<Exec, double, Kokkos::LayoutLeft>(s[0], s[1], 5);
  }
  check_history<Exec, float, Kokkos::LayoutLeft>(67, 131, 1);
  // Zero steps: no call, nothing changes.
  Exec exec;
  Field<Exec, float, Kokkos::LayoutRight> f("f", 4, 5);
  Kokkos::View<float***, Kokkos::LayoutRight, typename Exec::memory_space> h("h", 2, 4, 5);
  Kokkos::deep_copy(f, 1.f);
  int calls = 0;
  unison::diffuse_history(exec, f, 0, 0.25, h, [&](auto...) { ++calls; });
  EXPECT_EQ(calls, 0);
  for (double v : to_host(f)) EXPECT_EQ(v, 1.0);
}

// A field whose values run through the subnormal numbers, as the jagged field's diffusion
// fronts do for thousands of steps: zeros and values up to 4 times the smallest normal
// number. On CPUs the kernels compute coeff * lap for these without a multiply
// (backends::ExactScale); every algorithm must still give the plain kernel's single steps
// bitwise, for several coefficients, and the check must have met subnormal values.
template <class Exec, class T>
void check_subnormal(long nx, long ny, int steps, double coeff) {
  Exec exec;
  using Layout = Kokkos::LayoutRight;
  const T small = std::numeric_limits<T>::min() * 4;
  Field<Exec, T, Layout> f0("f0", nx, ny), a("a", nx, ny), b("b", nx, ny), lapl("lapl", nx, ny);
  fill(f0, [&](std::mt19937_64& rng) {
    const double u = std::uniform_real_distribution<double>(-1, 1)(rng);
    return std::abs(u) < 0.5 ? T(0) : T(u * double(small));
  });
  const auto plain_steps = [&](StencilAlgorithm algorithm) {
    Kokkos::deep_copy(a, f0);
    for (int s = 0; s < steps; ++s) {
      unison::diffusion_step(exec, a, b, lapl, T(coeff), algorithm);
      std::swap(a, b);
    }
    exec.fence();
    return std::make_pair(to_host(a), to_host(lapl));
  };
  const auto [plain, plain_lapl] = plain_steps(StencilAlgorithm::plain);
  long subnormal = 0;
  for (double v : plain_lapl)
    subnormal += v != 0 && std::abs(v) < double(std::numeric_limits<T>::min());
  const std::string where = std::to_string(nx) + "x" + std::to_string(ny) + ", " +
                            std::to_string(steps) + " steps, coeff " + std::to_string(coeff) +
                            ", " + (sizeof(T) == 4 ? "float" : "double");
  EXPECT_GT(subnormal, nx * ny / 50) << where;
  for (auto algorithm : {StencilAlgorithm::streaming, StencilAlgorithm::tiled,
                         StencilAlgorithm::wavefront, StencilAlgorithm::automatic}) {
    const auto [got, got_lapl] = plain_steps(algorithm);
    EXPECT_TRUE(close(got, plain, 0)) << int(algorithm) << ", " << where;
    EXPECT_TRUE(close(got_lapl, plain_lapl, 0)) << int(algorithm) << ", " << where;
  }
  Field<Exec, T, Layout> f("f", nx, ny);
  Kokkos::deep_copy(f, f0);
  unison::diffuse(exec, f, steps, T(coeff), lapl, Laplacian::every_step);
  EXPECT_TRUE(close(to_host(f), plain, 0)) << "diffuse, " << where;
  EXPECT_TRUE(close(to_host(lapl), plain_lapl, 0)) << "diffuse lapl, " << where;
}

template <class Exec>
void test_subnormal() {
  // One step for each coefficient (its Laplacian, of the start field, holds the subnormals),
  // three for the workload's 0.25 (the fields then hold them too).
  for (auto [nx, ny] : {std::pair<long, long>{67, 131}, {9, 300}}) {
    for (double coeff : {0.25, 0.1, -0.3, 1.0, 2.5}) check_subnormal<Exec, float>(nx, ny, 1, coeff);
    check_subnormal<Exec, float>(nx, ny, 3, 0.25);
    check_subnormal<Exec, double>(nx, ny, 3, 0.25);
  }
}

template <class Exec>
void test_errors() {
  Exec exec;
  using F = Field<Exec, float, Kokkos::LayoutRight>;
  F f("f", 8, 9), g("g", 8, 9), lapl("lapl", 8, 9), small("small", 8, 8);
  const char* step = "unison::diffusion_step";
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, f, lapl, 0.25); }, step,
                             {"f_next (8x9) overlaps f (8x9)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, g, f, 0.25); }, step,
                             {"lapl (8x9) overlaps f (8x9)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, g, g, 0.25); }, step,
                             {"lapl (8x9) overlaps f_next (8x9)"}));
  // Disjoint parts of one array are fine; overlapping parts are not.
  auto top = Kokkos::subview(f, Kokkos::pair<int, int>(0, 4), Kokkos::ALL);
  auto bottom = Kokkos::subview(f, Kokkos::pair<int, int>(4, 8), Kokkos::ALL);
  auto middle = Kokkos::subview(f, Kokkos::pair<int, int>(2, 6), Kokkos::ALL);
  F l4("l4", 4, 9);
  EXPECT_NO_THROW(unison::diffusion_step(exec, top, bottom, l4, 0.25));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, top, middle, l4, 0.25); }, step,
                             {"f_next (4x9) overlaps f (4x9)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, small, lapl, 0.25); }, step,
                             {"f_next is 8x8, expected 8x9"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, g, small, 0.25); }, step,
                             {"lapl is 8x8, expected 8x9"}));
  for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL})
    EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, g, lapl, bad); }, step,
                               {"coeff is", "must be finite"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffusion_step(exec, f, g, lapl, 1e300); }, step,
                             {"not finite in the field's value type"}));

  const char* dif = "unison::diffuse";
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffuse(exec, f, -1, 0.25, lapl); }, dif, {"steps is -1"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, f); }, dif,
                             {"lapl (8x9) overlaps f (8x9)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, small); }, dif,
                             {"lapl is 8x8, expected 8x9"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, 3, std::nan(""), lapl); }, dif,
                             {"coeff is nan"}));
  unison::DiffusionBuffer<F> buffer("buffer", 8, 9), wrong("wrong", 9, 8);
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, wrong, 3, 0.25, lapl); }, dif,
                             {"buffer is 9x8, expected 8x9"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, f, 3, 0.25, lapl); }, dif,
                             {"buffer (8x9) overlaps f (8x9)"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse(exec, f, lapl, 3, 0.25, lapl); }, dif,
                             {"buffer (8x9) overlaps lapl (8x9)"}));
  DiffusionOptions blocked;
  blocked.steps_per_pass = 4;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::every_step, blocked); }, dif,
      {"steps_per_pass 4 needs Laplacian::final_only"}));
  blocked.algorithm = StencilAlgorithm::plain;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, blocked); }, dif,
      {"steps_per_pass 4 needs the tiled, streaming or wavefront algorithm"}));
  blocked.algorithm = StencilAlgorithm::streaming;
  if (unison::streaming_row_blocks_v<Exec>) {  // CPU row blocks: any number of steps a pass
    EXPECT_NO_THROW(unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, blocked));
  }
  blocked.strip_rows = 4;  // strips: 1 or 2
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, blocked); }, dif,
      {"steps_per_pass 4 with the streaming algorithm in strips: it runs 1 or 2"}));
  blocked.strip_rows = 0;
  {  // wavefront: at most the backend's depth; its strips have no tile_cols
    constexpr int deepest = unison::backends::DiffusionTuning<Exec>::wavefront_steps;
    DiffusionOptions deep;
    deep.algorithm = StencilAlgorithm::wavefront;
    deep.steps_per_pass = deepest + 1;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, deep); }, dif,
        {"steps_per_pass " + std::to_string(deepest + 1) +
         " with the wavefront algorithm: this backend runs at most " + std::to_string(deepest)}));
    deep.steps_per_pass = 0;
    deep.tile_cols = 64;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, deep); }, dif,
        {"tile_cols 64 does not apply to the wavefront algorithm"}));
  }
  {  // resident: diffuse's steps in one launch, no options, no callback; on a CUDA GPU only
    DiffusionOptions resident;
    resident.algorithm = StencilAlgorithm::resident;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffusion_step(exec, f, g, lapl, 0.25, StencilAlgorithm::resident); }, step,
        {"diffusion_step takes plain, tiled, streaming or wavefront"}));
    auto history = Kokkos::View<float***, typename Exec::memory_space>("history", 2, 8, 9);
    DiffusionOptions resident_deep = resident;
    resident_deep.steps_per_pass = 2;
    EXPECT_TRUE(throws_invalid(
        [&] {
          unison::diffuse_history(
              exec, f, 3, 0.25, history, [](auto...) {}, resident_deep);
        },
        "unison::diffuse_history", {"do not apply to the resident algorithm"}));
    EXPECT_TRUE(throws_invalid(
        [&] {
          unison::diffuse(
              exec, f, 3, 0.25, lapl, [](auto...) {}, resident);
        },
        dif, {"a callback after each step needs another algorithm"}));
    for (int which = 0; which < 5; ++which) {
      DiffusionOptions shaped = resident;
      int* const fields[] = {&shaped.tile_rows, &shaped.tile_cols, &shaped.steps_per_pass,
                             &shaped.strip_rows, &shaped.strip_prefetch};
      *fields[which] = 2;
      EXPECT_TRUE(throws_invalid(
          [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, shaped); }, dif,
          {"do not apply to the resident algorithm"}));
    }
    if constexpr (unison::detail::diffusion::resident_available_v<Exec>) {
      // More than any GPU holds in its registers (4096^2 floats, 64 MiB).
      Kokkos::View<float**, typename Exec::memory_space> big("big", 4096, 4096),
          big_lapl("big_lapl", 4096, 4096);
      EXPECT_TRUE(throws_invalid(
          [&] { unison::diffuse(exec, big, 3, 0.25, big_lapl, Laplacian::final_only, resident); },
          dif, {"a field of 4096x4096", "does not fit in this GPU's registers"}));
    } else {
      EXPECT_TRUE(throws_invalid(
          [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, resident); }, dif,
          {"the resident algorithm needs a CUDA GPU"}));
      EXPECT_TRUE(throws_invalid(
          [&] {
            unison::diffuse_history(
                exec, f, 3, 0.25, history, [](auto...) {}, resident);
          },
          "unison::diffuse_history", {"the resident algorithm needs a CUDA GPU"}));
    }
  }
  blocked.algorithm = StencilAlgorithm(9);
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, blocked); }, dif,
      {"unknown algorithm 9"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffusion_step(exec, f, g, lapl, 0.25, StencilAlgorithm(9)); },
                     step, {"unknown algorithm 9"}));
  DiffusionOptions huge;
  huge.tile_rows = 1 << 15;
  huge.tile_cols = 1 << 15;
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::every_step, huge); },
                     dif, {"tile 32768x32768", "bytes of team scratch"}));
  DiffusionOptions negative;
  negative.tile_rows = -2;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::every_step, negative); }, dif,
      {"must not be negative"}));
  for (int prefetch : {-1, 5}) {
    DiffusionOptions ahead;
    ahead.strip_prefetch = prefetch;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::every_step, ahead); }, dif,
        {"strip_prefetch is " + std::to_string(prefetch),
         "must be 0 (the backend's choice) to 4"}));
  }
  const char* hist = "unison::diffuse_history";
  using H = Kokkos::View<float***, Kokkos::LayoutRight, typename Exec::memory_space>;
  H history("history", 3, 8, 9), shallow("shallow", 0, 8, 9), skewed("skewed", 3, 9, 8);
  const auto none = [](auto...) {};
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, 0.25, shallow, none); },
                             hist,
                             {"history is 0x8x9, expected (planes)x8x9 with at least one plane"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, 0.25, skewed, none); }, hist,
                             {"history is 3x9x8, expected (planes)x8x9"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, -2, 0.25, history, none); },
                             hist, {"steps is -2"}));
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, HUGE_VAL, history, none); },
                             hist, {"coeff is inf"}));
  auto plane = Kokkos::subview(history, 1, Kokkos::ALL, Kokkos::ALL);
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, plane, 3, 0.25, history, none); },
                             hist, {"history (3x8x9) overlaps f (8x9)"}));
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffuse_history(exec, f, wrong, 3, 0.25, history, none); }, hist,
                     {"buffer is 9x8, expected 8x9"}));
  {
    unison::DiffusionBuffer<F> inside(history.data() + 8 * 9, 8, 9);  // plane 1 of history
    EXPECT_TRUE(
        throws_invalid([&] { unison::diffuse_history(exec, f, inside, 3, 0.25, history, none); },
                       hist, {"buffer (8x9) overlaps history (3x8x9)"}));
  }
  DiffusionOptions two;
  two.steps_per_pass = 2;
  two.algorithm = StencilAlgorithm::plain;
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, 0.25, history, none, two); },
                             hist, {"steps_per_pass 2 needs the streaming algorithm"}));
  two.algorithm = StencilAlgorithm::streaming;
  EXPECT_NO_THROW(unison::diffuse_history(exec, f, 3, 0.25, history, none, two));
  {
    DiffusionOptions three = two;  // strips run 1 or 2 steps a pass; CPU row blocks any number
    three.steps_per_pass = 3;
    three.strip_rows = 4;
    EXPECT_TRUE(throws_invalid(
        [&] { unison::diffuse_history(exec, f, 3, 0.25, history, none, three); }, hist,
        {"steps_per_pass 3 with the streaming algorithm in strips: it runs 1 or 2"}));
    if (unison::streaming_row_blocks_v<Exec>) {
      three.strip_rows = 0;
      EXPECT_NO_THROW(unison::diffuse_history(exec, f, 3, 0.25, history, none, three));
    }
  }
  two.strip_prefetch = 7;
  EXPECT_TRUE(throws_invalid([&] { unison::diffuse_history(exec, f, 3, 0.25, history, none, two); },
                             hist, {"strip_prefetch is 7"}));
  // A refused call writes nothing; zero steps change nothing.
  Kokkos::deep_copy(f, 1.f);
  Kokkos::deep_copy(lapl, 2.f);
  EXPECT_ANY_THROW(unison::diffuse(exec, f, 3, 0.25, small));
  EXPECT_ANY_THROW(unison::diffusion_step(exec, f, small, lapl, 0.25));
  unison::diffuse(exec, f, 0, 0.25, lapl);
  exec.fence();
  for (double v : to_host(f)) EXPECT_EQ(v, 1.0);
  for (double v : to_host(lapl)) EXPECT_EQ(v, 2.0);
}

template <class Exec>
struct Diffusion : ::testing::Test {};
TYPED_TEST_SUITE(Diffusion, Backends, BackendName);

TYPED_TEST(Diffusion, sizes_tiles_passes) { test_sizes<TypeParam>(); }
TYPED_TEST(Diffusion, seed_size) { test_seed_size<TypeParam>(); }
TYPED_TEST(Diffusion, resident) { test_resident<TypeParam>(); }
TYPED_TEST(Diffusion, deterministic_and_strided) { test_deterministic_and_strided<TypeParam>(); }
TYPED_TEST(Diffusion, stride_layouts) { test_stride_layouts<TypeParam>(); }
TYPED_TEST(Diffusion, callback) { test_callback<TypeParam>(); }
TYPED_TEST(Diffusion, history) { test_history<TypeParam>(); }
TYPED_TEST(Diffusion, subnormal_field) { test_subnormal<TypeParam>(); }
TYPED_TEST(Diffusion, errors) { test_errors<TypeParam>(); }

#if UNISON_BACKENDS_HOST_VECTORS
// The CPU kernels' host-vector step (detail::diffusion::VectorStep: 4 m by additions and coeff *
// lap by backends::ExactScale, without floating-point operations on subnormal numbers but
// additions) against the one-cell step, lane by lane, bit for bit: cells and neighbours drawn from
// every magnitude (subnormal, around the smallest normal numbers, up to 2^-96, ordinary, any bit
// pattern up to 1e30, zeros, sums that nearly cancel 4 x the cell), for coefficients inside
// and outside the range where ExactScale takes its exact route.
template <class T>
void check_vector_step(double coeff) {
  using Vec = typename unison::backends::HostVector<T>::type;
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr int lanes = int(sizeof(Vec) / sizeof(T));
  auto rng = engine();
  const auto draw = [&]() {
    const Bits b = Bits(rng());
    const int bits = int(8 * sizeof(T)), mantissa = std::numeric_limits<T>::digits - 1;
    const Bits sign = Bits(1) << (bits - 1);
    Bits v;
    switch (rng() % 7) {
      case 0:
        v = b & (sign | ((Bits(1) << mantissa) - 1));
        break;  // subnormal or 0
      case 1:
        v = b & (sign | ((Bits(1) << (mantissa + 2)) - 1));
        break;  // up to 4 x the least normal
      case 2:
        v = b & (sign | ((Bits(1) << (mantissa + 5)) - 1));
        break;  // up to 2^-96 (float)
      case 3:
        v = 0;
        break;
      case 4:
        v = b;
        break;  // any bits (above 1e30, and non-finite: 1, so no sum overflows)
      default: {
        const T u = T(std::uniform_real_distribution<double>(-1, 1)(rng));
        std::memcpy(&v, &u, sizeof v);
      }
    }
    T x;
    std::memcpy(&x, &v, sizeof x);
    return std::abs(x) <= T(1e30) ? x : T(1);
  };
  const unison::detail::diffusion::VectorStep<T> step{T(coeff)};
  long differ = 0;
  for (int it = 0; it < 20000; ++it) {
    Vec m, u, d, l, r;
    for (int e = 0; e < lanes; ++e) {
      m[e] = draw(), u[e] = draw(), d[e] = draw(), l[e] = draw(), r[e] = draw();
      if (it % 4 == 0) u[e] = 4 * m[e] - (d[e] + (l[e] + r[e]));  // sums that nearly cancel
    }
    Vec lap, next;
    step(m, (u + d) + (l + r), lap, next);
    for (int e = 0; e < lanes; ++e) {
      T one_lap, one_next;
      unison::detail::diffusion::stencil<T>(m[e], u[e], d[e], l[e], r[e], T(coeff), one_lap,
                                            one_next);
      const T lap_e = lap[e], next_e = next[e];  // (a vector's element has no address)
      if (std::memcmp(&one_lap, &lap_e, sizeof(T)) != 0 ||
          std::memcmp(&one_next, &next_e, sizeof(T)) != 0) {
        if (differ++ < 5)
          ADD_FAILURE() << "coeff " << coeff << ", cell " << double(m[e]) << ", neighbours "
                        << double(u[e]) << " " << double(d[e]) << " " << double(l[e]) << " "
                        << double(r[e]) << ": lap " << double(lap[e]) << " (one cell "
                        << double(one_lap) << "), next " << double(next[e]) << " (one cell "
                        << double(one_next) << ")";
      }
    }
  }
  EXPECT_EQ(differ, 0) << "coeff " << coeff << ", " << (sizeof(T) == 4 ? "float" : "double");
}

TEST(DiffusionHostVectors, vector_step_is_the_cell_step) {
  for (double coeff : {0.25, 0.1, -0.3, 1.0, 2.5, 0.2371, 1e-30, 3e30}) {
    check_vector_step<float>(coeff);
    check_vector_step<double>(coeff);
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// Preconditions (tests/preconditions.hpp, docs/PRECONDITIONS.md): bad input refused with its
// message, nothing written.

namespace preconditions {

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
  // More tiles than one launch can hold: a 1x1 tile on a field of 2^32 cells. Nothing large is
  // allocated: the field and its Laplacian are Views of 65536 x 65536 interleaved elements (every
  // other one, distinct and disjoint) laid over a small array, refused before any is touched.
  Kokkos::View<float*, Mem> two("two", 2);
  using Sparse =
      Kokkos::View<float**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Sparse big(two.data(), Kokkos::LayoutStride(65536, 2 * 65536, 65536, 2)),
      big_lapl(two.data() + 1, Kokkos::LayoutStride(65536, 2 * 65536, 65536, 2));
  DiffusionOptions tiny;
  tiny.algorithm = StencilAlgorithm::tiled;
  tiny.tile_rows = tiny.tile_cols = 1;
  EXPECT_TRUE(throws_invalid(
      [&] { unison::diffuse(exec, big, 3, 0.25, big_lapl, Laplacian::every_step, tiny); }, dif,
      {"tile 1x1 on a field of 65536x65536 makes more than 2^31 - 1 tiles"}));
  // Refused calls write nothing.
  Kokkos::deep_copy(f, 1.f);
  Kokkos::deep_copy(g, 7.f);
  Kokkos::deep_copy(lapl, 7.f);
  EXPECT_ANY_THROW(unison::diffusion_step(exec, f, g, lapl, nan_d));
  EXPECT_TRUE(
      throws_invalid([&] { unison::diffusion_step(exec, f, g, lapl, 0.25, StencilAlgorithm(11)); },
                     step, {"unknown algorithm 11"}));
  EXPECT_ANY_THROW(unison::diffuse(exec, f, 3, 0.25, lapl, Laplacian::final_only, deep));
  exec.fence();
  EXPECT_TRUE(all_equal(f, 1.0));
  EXPECT_TRUE(all_equal(g, 7.0));
  EXPECT_TRUE(all_equal(lapl, 7.0));
}

}  // namespace preconditions

template <class Exec>
struct DiffusionPreconditions : ::testing::Test {};
TYPED_TEST_SUITE(DiffusionPreconditions, Backends, BackendName);
TYPED_TEST(DiffusionPreconditions, diffusion) { preconditions::test_diffusion<TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Determinism (tests/determinism.hpp): each function run twice, the results compared bitwise.
// Every cell's arithmetic is fixed, whichever kernel and thread computes it.

namespace determinism {

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
  if (algorithm == StencilAlgorithm::streaming) {
    options.steps_per_pass = 2;  // several steps per pass (CPU row blocks, GPU strips)
    check_history<Exec, float, Kokkos::LayoutRight>(options);
    options.strip_rows = 8;  // the strip form on every backend
    check_history<Exec, float, Kokkos::LayoutRight>(options);
  }
}

}  // namespace determinism

template <class Exec>
struct DiffusionDeterminism : ::testing::Test {};
TYPED_TEST_SUITE(DiffusionDeterminism, Backends, BackendName);
TYPED_TEST(DiffusionDeterminism, diffusion_step_plain) {
  determinism::test_step<TypeParam>(StencilAlgorithm::plain);
}
TYPED_TEST(DiffusionDeterminism, diffusion_step_tiled) {
  determinism::test_step<TypeParam>(StencilAlgorithm::tiled);
}
TYPED_TEST(DiffusionDeterminism, diffusion_step_streaming) {
  determinism::test_step<TypeParam>(StencilAlgorithm::streaming);
}
TYPED_TEST(DiffusionDeterminism, diffusion_step_wavefront) {
  determinism::test_step<TypeParam>(StencilAlgorithm::wavefront);
}
TYPED_TEST(DiffusionDeterminism, diffuse_every_step_plain) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::plain, Laplacian::every_step);
}
TYPED_TEST(DiffusionDeterminism, diffuse_every_step_tiled) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::tiled, Laplacian::every_step);
}
TYPED_TEST(DiffusionDeterminism, diffuse_every_step_streaming) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::streaming, Laplacian::every_step);
}
TYPED_TEST(DiffusionDeterminism, diffuse_final_only_plain) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::plain, Laplacian::final_only);
}
TYPED_TEST(DiffusionDeterminism, diffuse_final_only_tiled) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::tiled, Laplacian::final_only);
}
TYPED_TEST(DiffusionDeterminism, diffuse_final_only_streaming) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::streaming, Laplacian::final_only);
}
TYPED_TEST(DiffusionDeterminism, diffuse_final_only_wavefront) {
  determinism::test_diffuse<TypeParam>(StencilAlgorithm::wavefront, Laplacian::final_only);
}
TYPED_TEST(DiffusionDeterminism, diffuse_callback_plain) {
  determinism::test_callback<TypeParam>(StencilAlgorithm::plain);
}
TYPED_TEST(DiffusionDeterminism, diffuse_callback_tiled) {
  determinism::test_callback<TypeParam>(StencilAlgorithm::tiled);
}
TYPED_TEST(DiffusionDeterminism, diffuse_callback_streaming) {
  determinism::test_callback<TypeParam>(StencilAlgorithm::streaming);
}
TYPED_TEST(DiffusionDeterminism, diffuse_history_plain) {
  determinism::test_history<TypeParam>(StencilAlgorithm::plain);
}
TYPED_TEST(DiffusionDeterminism, diffuse_history_tiled) {
  determinism::test_history<TypeParam>(StencilAlgorithm::tiled);
}
TYPED_TEST(DiffusionDeterminism, diffuse_history_streaming) {
  determinism::test_history<TypeParam>(StencilAlgorithm::streaming);
}

// ---------------------------------------------------------------------------------------------
// Labels and instances (tests/labels.hpp): every kernel and allocation labelled "unison::...",
// every kernel and fence on the instance given.

namespace labels {

// Every algorithm, diffuse with each Laplacian choice and a caller's buffer, diffuse_history.
template <class Exec>
void test_labels(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Field f("f", 37, 53), g("g", 37, 53), lapl("lapl", 37, 53);
  unison::DiffusionBuffer<Field> buffer("buffer", 37, 53);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("history", 3, 37, 53);
  exec.fence();
  using unison::StencilAlgorithm;
  // diffuse without a buffer allocates its own (the first call after release_temporary_memory).
  Kokkos::deep_copy(exec, f, 0.5f);
  exec.fence();
  unison::release_temporary_memory();
  const auto allocating =
      record([&] { unison::diffuse(exec, f, 5, 0.25, lapl, unison::Laplacian::every_step); });
  expect_on(exec, allocating, Memory::allocated);
  const std::string d = "unison::diffusion::";
  expect_calls(allocating, {{"unison::diffuse", {}}}, {d});
  auto seen = record([&] {
    for (auto a : {StencilAlgorithm::plain, StencilAlgorithm::tiled, StencilAlgorithm::streaming,
                   StencilAlgorithm::wavefront})
      unison::diffusion_step(exec, f, g, lapl, 0.25, a);
    unison::diffuse(exec, f, buffer, 5, 0.25, lapl, unison::Laplacian::every_step);
    unison::diffuse(exec, f, buffer, 5, 0.25, lapl, unison::Laplacian::final_only);
    unison::DiffusionOptions blocked;
    blocked.algorithm = StencilAlgorithm::tiled;
    blocked.steps_per_pass = 2;
    unison::diffuse(exec, f, buffer, 4, 0.25, lapl, unison::Laplacian::final_only, blocked);
    unison::diffuse_history(exec, f, buffer, 6, 0.25, history, [](auto...) {});
    exec.fence();
  });
  expect_on(exec, seen);
  expect_calls(seen,
               {{"unison::diffusion_step", {d + "plain"}},
                {"unison::diffusion_step", {d + "tiled"}},
                {"unison::diffusion_step", {}},
                {"unison::diffusion_step", {d + "wavefront"}},
                {"unison::diffuse", {}},
                {"unison::diffuse", {}},
                {"unison::diffuse", {d + "blocked"}},
                {"unison::diffuse_history", {}}},
               {d});
  seen.labels.insert(seen.labels.end(), allocating.labels.begin(), allocating.labels.end());
  expect_unison_labels(seen.labels);
  auto has = [&](const std::string& l) { return has_label(seen, l); };
  for (const char* name :
       {"kernel unison::diffusion::plain", "kernel unison::diffusion::tiled",
        "kernel unison::diffusion::blocked", "kernel unison::diffusion::wavefront"})
    EXPECT_TRUE(has(name)) << name;
  EXPECT_TRUE(has("kernel unison::diffusion::streaming") ||
              has("kernel unison::diffusion::streaming2"));
  // On CPUs diffuse_history runs its own kernel; on GPUs diffuse's single steps.
  if (is_host_v<Exec>) {
    EXPECT_TRUE(has("kernel unison::diffusion::history"));
  }
}

// diffusion_schedule reports what the calls do: two full passes of its steps_per_pass (one
// launch for resident) launch its kernel exactly twice (once), and nothing else of the family's.
template <class Exec>
void test_schedule(const Exec& exec) {
  using Mem = typename Exec::memory_space;
  using unison::DiffusionOptions;
  using unison::Laplacian;
  using unison::StencilAlgorithm;
  using Tuning = unison::backends::DiffusionTuning<Exec>;
  using Field = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  Field f("f", 37, 53), lapl("lapl", 37, 53);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> history("history", 4, 37, 53);
  Kokkos::deep_copy(exec, f, 0.5f);
  exec.fence();
  const auto with = [](StencilAlgorithm a, int per_pass = 0, int rows = 0, int cols = 0) {
    DiffusionOptions o;
    o.algorithm = a;
    o.steps_per_pass = per_pass;
    o.tile_rows = rows;
    o.tile_cols = cols;
    return o;
  };
  struct Case {
    Laplacian which;
    DiffusionOptions options;
    bool history;
  };
  const std::vector<Case> cases = {
      {Laplacian::every_step, {}, false},
      {Laplacian::final_only, {}, false},
      {Laplacian::every_step, with(StencilAlgorithm::plain), false},
      {Laplacian::final_only, with(StencilAlgorithm::tiled), false},
      {Laplacian::final_only, with(StencilAlgorithm::tiled, 3), false},
      {Laplacian::every_step, with(StencilAlgorithm::automatic, 0, 8, 16), false},
      {Laplacian::every_step, with(StencilAlgorithm::streaming), false},
      {Laplacian::final_only, with(StencilAlgorithm::streaming, 2), false},
      {Laplacian::final_only, with(StencilAlgorithm::wavefront), false},
      {Laplacian::final_only, with(StencilAlgorithm::wavefront, 3, 8), false},
      {Laplacian::every_step, {}, true},
      {Laplacian::every_step, with(StencilAlgorithm::tiled), true},
      {Laplacian::every_step, with(StencilAlgorithm::streaming, 2), true},
  };
  for (const Case& c : cases) {
    const unison::DiffusionSchedule s =
        unison::diffusion_schedule(exec, f, c.which, c.options, c.history ? 4 : 0);
    const std::string what = std::string(s.kernel) + ", algorithm " +
                             std::to_string(int(c.options.algorithm)) + ", steps_per_pass " +
                             std::to_string(c.options.steps_per_pass) +
                             (c.history ? ", history" : "");
    EXPECT_NE(s.algorithm, StencilAlgorithm::automatic) << what;
    if (c.options.algorithm != StencilAlgorithm::automatic) {
      EXPECT_EQ(s.algorithm, c.options.algorithm) << what;
    }
    const int passes = s.steps_per_pass > 0 ? 2 : 1;
    const int steps = s.steps_per_pass > 0 ? 2 * s.steps_per_pass : 4;
    const Events seen = record([&] {
      if (c.history)
        unison::diffuse_history(
            exec, f, steps, 0.1, history, [](auto...) {}, c.options);
      else unison::diffuse(exec, f, steps, 0.1, lapl, c.which, c.options);
      exec.fence();
    });
    int launched = 0, others = 0;
    for (const auto& k : seen.kernels) {
      if (k.first == s.kernel) ++launched;
      else if (k.first.rfind("unison::diffusion::", 0) == 0) ++others;
    }
    EXPECT_EQ(launched, passes) << what;
    EXPECT_EQ(others, 0) << what;
  }
  // Known decisions: a caller's tile as given, the backend's steps a pass and tiles otherwise.
  const auto tile = unison::diffusion_schedule(exec, f, Laplacian::every_step,
                                               with(StencilAlgorithm::automatic, 0, 8, 16));
  EXPECT_EQ(tile.algorithm, StencilAlgorithm::tiled);
  EXPECT_EQ(tile.tile_rows, 8);
  EXPECT_EQ(tile.tile_cols, 16);
  EXPECT_EQ(tile.steps_per_pass, 1);
  EXPECT_STREQ(tile.kernel, "unison::diffusion::tiled");
  const auto blocked =
      unison::diffusion_schedule(exec, f, Laplacian::final_only, with(StencilAlgorithm::tiled));
  EXPECT_EQ(blocked.steps_per_pass, Tuning::steps_per_pass);
  EXPECT_STREQ(blocked.kernel, Tuning::steps_per_pass > 1 ? "unison::diffusion::blocked"
                                                          : "unison::diffusion::tiled");
  EXPECT_LE(blocked.tile_rows, Tuning::blocked_tile_rows);
  EXPECT_EQ(blocked.tile_cols, Tuning::blocked_tile_cols);
  const auto wavefront = unison::diffusion_schedule(exec, f, Laplacian::final_only,
                                                    with(StencilAlgorithm::wavefront, 3, 8));
  EXPECT_EQ(wavefront.steps_per_pass, 3);
  EXPECT_EQ(wavefront.tile_rows, 8);
  EXPECT_EQ(wavefront.tile_cols, 0);
  const auto plain =
      unison::diffusion_schedule(exec, f, Laplacian::final_only, with(StencilAlgorithm::plain));
  EXPECT_EQ(plain.steps_per_pass, 1);
  EXPECT_EQ(plain.tile_rows, 0);
  EXPECT_EQ(plain.strip_rows, 0);
  if (unison::streaming_row_blocks_v<Exec>) {
    const auto rows = unison::diffusion_schedule(exec, f, Laplacian::final_only,
                                                 with(StencilAlgorithm::streaming, 5));
    EXPECT_EQ(rows.steps_per_pass, 5);
    EXPECT_EQ(rows.strip_rows, 0);
    const auto history = unison::diffusion_schedule(exec, f, Laplacian::every_step,
                                                    with(StencilAlgorithm::streaming, 3), 2);
    EXPECT_EQ(history.steps_per_pass, 2);  // at most the planes
    EXPECT_STREQ(history.kernel, "unison::diffusion::history");
  } else {
    const auto strips = unison::diffusion_schedule(exec, f, Laplacian::final_only,
                                                   with(StencilAlgorithm::streaming, 2));
    EXPECT_EQ(strips.steps_per_pass, 2);
    EXPECT_GT(strips.strip_rows, 0);
    EXPECT_STREQ(strips.kernel, "unison::diffusion::streaming2");
  }
  // It refuses what the calls refuse, and arguments of its own.
  EXPECT_THROW(
      unison::diffusion_schedule(exec, f, Laplacian::every_step, with(StencilAlgorithm::tiled, 2)),
      unison::invalid_argument);
  EXPECT_THROW(
      unison::diffusion_schedule(exec, f, Laplacian::final_only, with(StencilAlgorithm::plain, 2)),
      unison::invalid_argument);
  EXPECT_THROW(unison::diffusion_schedule(exec, f, Laplacian::every_step, {}, -1),
               unison::invalid_argument);
  EXPECT_THROW(unison::diffusion_schedule(exec, f, Laplacian::final_only, {}, 2),
               unison::invalid_argument);
}

}  // namespace labels

template <class Exec>
struct DiffusionLabels : ::testing::Test {};
TYPED_TEST_SUITE(DiffusionLabels, Backends, BackendName);
TYPED_TEST(DiffusionLabels, diffusion) { labels::test_labels(TypeParam()); }
TYPED_TEST(DiffusionLabels, schedule) { labels::test_schedule(TypeParam()); }

template <class Exec>
struct DiffusionInstance : ::testing::Test {};
TYPED_TEST_SUITE(DiffusionInstance, Backends, BackendName);
TYPED_TEST(DiffusionInstance, diffusion) { labels::test_labels(another_instance<TypeParam>()); }

}  // namespace
