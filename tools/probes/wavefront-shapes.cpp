// Lab probe (not in the tree): wavefront shapes timed at 8192^2, 16384^2 and 2000^2, float,
// final Laplacian only, each checked bitwise against the plain kernel one step at a time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include <Kokkos_Core.hpp>
#include <unison/diffusion.hpp>

using Exec = Kokkos::DefaultExecutionSpace;
using V2 = Kokkos::View<float**, Exec::memory_space>;
using C2 = Kokkos::View<const float**, Exec::memory_space>;
namespace d = unison::detail::diffusion;

static V2 random_field(int n, unsigned seed) {
  std::vector<float> h(std::size_t(n) * n);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (auto& x : h) x = u(g);
  V2 f("f", n, n);
  auto m = Kokkos::create_mirror_view(f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m(i, j) = h[std::size_t(i) * n + j];
  Kokkos::deep_copy(f, m);
  return f;
}

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <int S, int V, int NT, int MT>
void shape(const char* name, int n, const V2& f0, double copy_us, bool check, int rows = 0) {
  const float coeff = 0.1f;
  V2 a("a", n, n), b("b", n, n), lap("lap", n, n);
  if (check) {
    // plain, S steps
    V2 p("p", n, n), q("q", n, n), pl("pl", n, n);
    Kokkos::deep_copy(p, f0);
    for (int s = 0; s < S; ++s) {
      unison::diffusion_step(Exec(), C2(p), q, pl, coeff, unison::StencilAlgorithm::plain);
      std::swap(p, q);
    }
    Kokkos::deep_copy(a, f0);
    d::wavefront_pass_of<S, V, NT, MT>(Exec(), S, rows, C2(a), b, lap, coeff, true);
    Kokkos::fence();
    auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lap);
    auto hpl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pl);
    long bad = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        bad += hp(i, j) != hb(i, j) || hpl(i, j) != hl(i, j);
    std::printf("CHECK %-22s n=%d mismatches=%ld\n", name, n, bad);
    EXPECT_EQ(bad, 0);
  }
  Kokkos::deep_copy(a, f0);
  const int passes = (n >= 8192 ? 96 : 960) / S;
  double best = 1e30;
  for (int r = 0; r < 4; ++r) {
    Kokkos::fence();
    const double t0 = now();
    for (int k = 0; k < passes; ++k) {
      d::wavefront_pass_of<S, V, NT, MT>(Exec(), S, rows, C2(a), b, lap, coeff, false);
      std::swap(a, b);
    }
    Kokkos::fence();
    const double t = (now() - t0) / (passes * S) * 1e6;
    if (r > 0 && t < best) best = t;
  }
  std::printf("TIME %-22s n=%5d  %8.2f us/step  %.3f of a copy\n", name, n, best, best / copy_us);
}

static double copy_time(const V2& f0) {
  V2 c("c", f0.extent(0), f0.extent(1));
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    Kokkos::fence();
    const double t0 = now();
    for (int k = 0; k < 20; ++k) Kokkos::deep_copy(c, f0);
    Kokkos::fence();
    const double t = (now() - t0) / 20 * 1e6;
    if (r > 0 && t < best) best = t;
  }
  return best;
}

#define SHAPES(n, f0, cp, chk)                                  \
  shape<8, 4, 128, 0>("s8 v4 t128", n, f0, cp, chk);            \
  shape<8, 4, 128, 0>("s8 v4 t128 r256", n, f0, cp, chk, 256);  \
  shape<16, 4, 128, 0>("s16 v4 t128 r128", n, f0, cp, chk, 128); \
  shape<16, 4, 128, 0>("s16 v4 t128 r256", n, f0, cp, chk, 256); \
  shape<16, 2, 128, 0>("s16 v2 t128 r128", n, f0, cp, chk, 128); \
  shape<16, 2, 128, 0>("s16 v2 t128 r256", n, f0, cp, chk, 256); \
  shape<12, 4, 128, 0>("s12 v4 t128 r256", n, f0, cp, chk, 256); \
  shape<12, 2, 128, 0>("s12 v2 t128 r256", n, f0, cp, chk, 256); \
  shape<8, 2, 128, 0>("s8 v2 t128", n, f0, cp, chk);            \
  shape<8, 4, 64, 0>("s8 v4 t64", n, f0, cp, chk);              \
  shape<8, 2, 256, 3>("s8 v2 t256 m3", n, f0, cp, chk);

TEST(WavefrontProbe, shapes) {
  for (int n : {8192, 16384}) {
    const V2 f0 = random_field(n, 7u + n);
    const double cp = copy_time(f0);
    std::printf("COPY n=%5d %8.2f us (%.0f GB/s)\n", n, cp, 2.0 * n * n * 4 / cp / 1e3);
    SHAPES(n, f0, cp, n == 8192)
  }
}

// diffuse_history (4 planes) and diffuse (every step) at 2000^2 float: resident against the
// streaming strips (which automatic took for the history before), per step.
template <class Fn>
static double per_step(int steps, Fn&& call) {
  double best = 1e30;
  for (int r = 0; r < 6; ++r) {
    Kokkos::fence();
    const double t0 = now();
    call();
    Kokkos::fence();
    const double t = (now() - t0) / steps * 1e6;
    if (r > 0 && t < best) best = t;
  }
  return best;
}

TEST(HistoryProbe, resident_against_streaming) {
  using R2 = Kokkos::View<float**, Kokkos::LayoutRight, Exec::memory_space>;
  using R3 = Kokkos::View<float***, Kokkos::LayoutRight, Exec::memory_space>;
  const int n = 2000, steps = 200;
  R2 f("f", n, n), lapl("lapl", n, n);
  R3 history("history", 4, n, n);
  Kokkos::deep_copy(f, 0.5f);
  for (auto a : {unison::StencilAlgorithm::streaming, unison::StencilAlgorithm::resident,
                 unison::StencilAlgorithm::automatic}) {
    unison::DiffusionOptions o;
    o.algorithm = a;
    const double h = per_step(steps, [&] {
      unison::diffuse_history(Exec(), f, steps, 0.25, history, [](auto...) {}, o);
    });
    const double e = per_step(steps, [&] {
      unison::diffuse(Exec(), f, steps, 0.25, lapl, unison::Laplacian::every_step, o);
    });
    std::printf("HIST algorithm %d: diffuse_history %.2f us/step, diffuse every step %.2f us/step\n",
                int(a), h, e);
  }
}
