// The diffusion's bitwise promise under a consumer's flags. Unison's own tests build with
// -ffp-contract=off; this file builds as a project that uses Unison would build it (GCC's default
// -ffp-contract=fast, -march=native: fused multiply-adds where the CPU has them; see
// tests/CMakeLists.txt). On every enabled backend, on odd-sized random fields (values of order 1,
// and for float values among the subnormal numbers), every algorithm of diffuse (every step and
// final only, several steps per pass), diffusion_step and diffuse_history must give the bits of
// the plain kernel's steps: the field, the final Laplacian and every step's Laplacian. The plain
// result is also checked against a float64 host reference. Exits 1 on any mismatch.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <unison/backends/enabled.hpp>
#include <unison/diffusion.hpp>

namespace {

using unison::DiffusionOptions;
using unison::Laplacian;
using unison::StencilAlgorithm;

int failures = 0;

template <class Exec, class T, class Layout>
using Field = Kokkos::View<T**, Layout, typename Exec::memory_space>;

template <class V>
std::vector<typename V::non_const_value_type> host(const V& v) {
  using T = typename V::non_const_value_type;
  // Through a contiguous copy in v's own space: Kokkos copies between spaces only contiguous
  // Views of one layout (a plane of a LayoutLeft history is strided).
  Kokkos::View<T**, Kokkos::LayoutRight, typename V::memory_space> staged("staged", v.extent(0),
                                                                          v.extent(1));
  Kokkos::deep_copy(staged, v);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), staged);
  std::vector<T> out;
  for (std::size_t i = 0; i < v.extent(0); ++i)
    for (std::size_t j = 0; j < v.extent(1); ++j) out.push_back(h(i, j));
  return out;
}

// Counts the cells whose bits differ and reports the first.
template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  long differ = 0, first = -1;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && differ++ == 0) first = long(i);
  if (differ == 0) return;
  ++failures;
  std::printf(
      "MISMATCH %s: %ld of %zu cells differ from the plain kernel's bits; cell %ld: %a, "
      "plain %a\n",
      what.c_str(), differ, want.size(), first, double(got[std::size_t(first)]),
      double(want[std::size_t(first)]));
}

// `steps` steps in float64 on a row-major nx x ny field.
std::vector<double> reference(std::vector<double> f, long nx, long ny, int steps, double coeff) {
  std::vector<double> next(f.size());
  const auto at = [&](long i, long j) {
    return i < 0 || j < 0 || i >= nx || j >= ny ? 0.0 : f[std::size_t(i * ny + j)];
  };
  for (int s = 0; s < steps; ++s) {
    for (long i = 0; i < nx; ++i)
      for (long j = 0; j < ny; ++j) {
        const double l = 4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
        next[std::size_t(i * ny + j)] = at(i, j) - coeff * l;
      }
    f.swap(next);
  }
  return f;
}

template <class Exec, class T, class Layout>
void check(long nx, long ny, int steps, double coeff, bool subnormal, std::mt19937_64& rng) {
  Exec exec;
  const std::string where = std::string(Exec::name()) + ", " + std::to_string(nx) + "x" +
                            std::to_string(ny) + ", " + std::to_string(steps) + " steps, coeff " +
                            std::to_string(coeff) + (sizeof(T) == 4 ? ", float" : ", double") +
                            (std::is_same_v<Layout, Kokkos::LayoutLeft> ? ", LayoutLeft" : "") +
                            (subnormal ? ", subnormal values" : "");
  Field<Exec, T, Layout> f0("f0", nx, ny), f("f", nx, ny), g("g", nx, ny), lapl("lapl", nx, ny);
  {
    auto h = Kokkos::create_mirror_view(f0);
    const double scale = subnormal ? 4 * double(std::numeric_limits<T>::min()) : 1.0;
    std::uniform_real_distribution<double> u(-1, 1);
    for (long i = 0; i < nx; ++i)
      for (long j = 0; j < ny; ++j) {
        const double v = u(rng);
        h(i, j) = subnormal && std::abs(v) < 0.5 ? T(0) : T(v * scale);
      }
    Kokkos::deep_copy(f0, h);
  }

  // The plain kernel, step by step, keeping every step's Laplacian.
  std::vector<std::vector<T>> plain_lapls;
  Kokkos::deep_copy(f, f0);
  unison::diffuse(
      exec, f, steps, coeff, lapl,
      [&](std::int64_t, const auto&, const auto& l) {
        exec.fence();
        plain_lapls.push_back(host(l));
      },
      DiffusionOptions{StencilAlgorithm::plain});
  const std::vector<T> plain = host(f);
  if (!subnormal) {  // the plain kernel itself, against float64
    std::vector<double> start;
    for (T v : host(f0)) start.push_back(double(v));
    const std::vector<double> ref = reference(start, nx, ny, steps, coeff);
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-13;
    for (std::size_t i = 0; i < ref.size(); ++i)
      if (!(std::abs(double(plain[i]) - ref[i]) <= tol * (1 + std::abs(ref[i])))) {
        ++failures;
        std::printf("MISMATCH %s: plain cell %zu is %.17g, float64 reference %.17g\n",
                    where.c_str(), i, double(plain[i]), ref[i]);
        break;
      }
  }

  const auto run_diffuse = [&](const std::string& name, Laplacian which, DiffusionOptions o) {
    Kokkos::deep_copy(f, f0);
    unison::diffuse(exec, f, steps, coeff, lapl, which, o);
    exec.fence();
    expect_bits(host(f), plain, "diffuse " + name + ", " + where);
    expect_bits(host(lapl), plain_lapls.back(), "diffuse " + name + " lapl, " + where);
  };
  const std::pair<StencilAlgorithm, const char*> algorithms[] = {
      {StencilAlgorithm::plain, "plain"},
      {StencilAlgorithm::streaming, "streaming"},
      {StencilAlgorithm::tiled, "tiled"},
      {StencilAlgorithm::automatic, "automatic"}};
  for (auto [algorithm, name] : algorithms) {
    run_diffuse(std::string(name) + " every_step", Laplacian::every_step,
                DiffusionOptions{algorithm});
    run_diffuse(std::string(name) + " final_only", Laplacian::final_only,
                DiffusionOptions{algorithm});
    // diffusion_step, one step at a time.
    Kokkos::deep_copy(f, f0);
    for (int s = 0; s < steps; ++s) {
      unison::diffusion_step(exec, s % 2 ? g : f, s % 2 ? f : g, lapl, coeff, algorithm);
    }
    exec.fence();
    expect_bits(host(steps % 2 ? g : f), plain,
                std::string("diffusion_step ") + name + ", " + where);
    expect_bits(host(lapl), plain_lapls.back(),
                std::string("diffusion_step ") + name + " lapl, " + where);
  }
  // Several steps per pass: tiled (temporal blocking, odd tiles too) and streaming.
  for (int per_pass : {2, 3}) {
    DiffusionOptions o{StencilAlgorithm::tiled};
    o.steps_per_pass = per_pass;
    run_diffuse("tiled, " + std::to_string(per_pass) + " steps per pass", Laplacian::final_only, o);
    o.tile_rows = 7;
    o.tile_cols = 13;
    run_diffuse("tiled 7x13, " + std::to_string(per_pass) + " steps per pass",
                Laplacian::final_only, o);
  }
  {
    DiffusionOptions o{StencilAlgorithm::streaming};
    o.steps_per_pass = 2;
    run_diffuse("streaming, 2 steps per pass", Laplacian::final_only, o);
  }

  // diffuse_history: every plane against the plain kernel's Laplacian of its step.
  const int planes = 3;
  Kokkos::View<T***, Layout, typename Exec::memory_space> history("history", planes, nx, ny);
  const auto run_history = [&](const std::string& name, const DiffusionOptions& o) {
    Kokkos::deep_copy(f, f0);
    unison::diffuse_history(
        exec, f, steps, coeff, history,
        [&](std::int64_t first, std::int64_t count, const auto&, const auto& h) {
          exec.fence();
          for (std::int64_t k = 0; k < count; ++k)
            expect_bits(host(Kokkos::subview(h, k, Kokkos::ALL, Kokkos::ALL)),
                        plain_lapls[std::size_t(first - 1 + k)],
                        "diffuse_history " + name + ", step " + std::to_string(first + k) +
                            " lapl, " + where);
        },
        o);
    exec.fence();
    expect_bits(host(f), plain, "diffuse_history " + name + ", " + where);
  };
  for (auto [algorithm, name] : algorithms) run_history(name, DiffusionOptions{algorithm});
  if constexpr (unison::streaming_row_blocks_v<Exec>) {
    for (int per_pass : {2, 3}) {
      DiffusionOptions o{StencilAlgorithm::streaming};
      o.steps_per_pass = per_pass;
      run_history("streaming, " + std::to_string(per_pass) + " steps per pass", o);
    }
  }
}

template <class Exec>
void check_backend(std::mt19937_64& rng) {
  const long shapes[][2] = {{1, 37}, {37, 1}, {3, 5}, {13, 29}, {67, 131}, {130, 57}};
  for (auto& s : shapes) {
    check<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 5, 0.25, false, rng);
    check<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 7, 0.1, false, rng);
    check<Exec, float, Kokkos::LayoutLeft>(s[0], s[1], 5, 0.2, false, rng);
    check<Exec, double, Kokkos::LayoutRight>(s[0], s[1], 5, 0.1, false, rng);
    check<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 3, 0.1, true, rng);
    check<Exec, float, Kokkos::LayoutRight>(s[0], s[1], 2, -0.3, true, rng);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  unison::backends::for_each_enabled_space([&](auto tag) {
    using Exec = typename decltype(tag)::type;
    check_backend<Exec>(rng);
  });
#if defined(__FP_FAST_FMAF) || defined(__FMA__)
  const char* fma = "with";
#else
  const char* fma = "without";
#endif
  std::printf("diffusion under -ffp-contract=fast (%s FMA instructions): %s\n", fma,
              failures ? "MISMATCHES" : "every algorithm bitwise the plain kernel's");
  return failures ? 1 : 0;
}
