// Diffusion and convolution on every enabled backend at the seed sizes (WORKLOADS.md sections 3
// and 4).
//
// Diffusion, 2000 x 2000 float32 from the jagged field: the time reported is per step, from
// diffuse() calls of many steps, with a buffer allocated once (so a call does not block).
// GB/s counts the bytes one unblocked step must move: read f, write f_next, and write lapl when
// every step's Laplacian is kept (12 or 8 bytes per cell); Gcells/s counts cells updated.
// Convolution: GB/s counts x read once and y written once.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Random.hpp>

#include <unison/convolve.hpp>
#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/npy.hpp>

#include "bench_common.hpp"

namespace unison::bench {
namespace {

template <class Exec>
constexpr bool is_gpu_v =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

// Steps per timed call: enough that one call lasts milliseconds on each backend.
template <class Exec>
int steps_per_call() {
  if constexpr (is_gpu_v<Exec>) return 1000;
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return 10;
#endif
  return 100;
}

// Probes of what the time depends on besides the kernel's shape.
struct Variant {
  // The sweep order: diffuse() alternates the direction of its passes (impl::diffusion_pass's
  // `reverse`); this calls the internal pass itself, every step's Laplacian by the streaming
  // kernel, always forward.
  bool one_direction = false;
  // The start field: uniform in [0.5, 1) instead of the jagged field, whose zero regions fill
  // with subnormal numbers at the diffusion fronts (slow on some CPUs).
  bool dense = false;
  // Or a 2000 x 2000 float32 field read from this .npy file (the peers' field, say).
  std::string npy;
};

template <class Exec>
void add_diffusion(const std::string& name, Laplacian which, DiffusionOptions options,
                   Variant variant = {}) {
  using Mem = typename Exec::memory_space;
  const long n = 2000;
  const int steps = steps_per_call<Exec>();
  const double cells = double(n) * n;
  const double bytes = cells * sizeof(float) * (which == Laplacian::every_step ? 3 : 2);
  add_case<Exec>(
      "diffusion/" + name + "/2000x2000",
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
            Kokkos::view_alloc(exec, std::string("unison::bench::field")), n, n),
            lapl(Kokkos::view_alloc(exec, std::string("unison::bench::lapl")), n, n);
        unison::DiffusionBuffer<decltype(f)> buffer(
            Kokkos::view_alloc(exec, std::string("unison::bench::buffer")), n, n);
        if (!variant.npy.empty()) {
          const auto host = unison::read_npy<float>(variant.npy);
          if (host.extent(0) != std::size_t(n) || host.extent(1) != std::size_t(n))
            throw std::runtime_error("UNISON_BENCH_FIELD: " + variant.npy + " is not 2000 x 2000");
          Kokkos::deep_copy(exec, f, host);
        } else if (variant.dense) {
          Kokkos::Random_XorShift64_Pool<Exec> pool(2024);
          Kokkos::fill_random(exec, f, pool, 0.5f, 1.0f);
        } else {
          unison::jagged_field(exec, f);
        }
        if (variant.one_direction) {
          return [=](const Exec& e) {
            auto a = f, b = buffer;
            for (int s = 0; s < steps; ++s) {
              unison::impl::diffusion_pass(
                  e, StencilAlgorithm::streaming, {1, 1, 1},
                  Kokkos::View<const float**, Kokkos::LayoutRight, Mem>(a), b, lapl, 0.25f, true,
                  false);
              std::swap(a, b);
            }
          };
        }
        return [=](const Exec& e) {
          unison::diffuse(e, f, buffer, steps, 0.25, lapl, which, options);
        };
      },
      bytes, 0, steps, cells, benchmark::kMicrosecond);
}

template <class Exec, class T>
void add_convolve(const std::string& size, std::size_t n, int taps, ConvolveAlgorithm algorithm) {
  using Mem = typename Exec::memory_space;
  const std::size_t len = n - taps + 1;
  const std::string name = std::string("convolve/valid/") + (sizeof(T) == 4 ? "f32/" : "f64/") +
                           size + "/taps" + std::to_string(taps) + "/" +
                           (algorithm == ConvolveAlgorithm::direct ? "direct" : "tiled");
  add_case<Exec>(
      name,
      [=](const Exec& exec) -> std::function<void(const Exec&)> {
        auto x = random_view<T, Mem>(n, -1, 1, "unison::bench::x");
        auto k = random_view<T, Mem>(std::size_t(taps), -1, 1, "unison::bench::k");
        Kokkos::View<T*, Mem> y(Kokkos::view_alloc(exec, std::string("unison::bench::y")), len);
        return [=](const Exec& e) { unison::convolve(e, x, k, y, ConvolveMode::valid, algorithm); };
      },
      double(n + len) * sizeof(T), 2.0 * taps * len);
}

template <class Exec>
void register_backend() {
  DiffusionOptions tiled, streaming, plain;
  tiled.algorithm = StencilAlgorithm::tiled;
  streaming.algorithm = StencilAlgorithm::streaming;
  plain.algorithm = StencilAlgorithm::plain;
  add_diffusion<Exec>("every_step/tiled", Laplacian::every_step, tiled);
  add_diffusion<Exec>("every_step/streaming", Laplacian::every_step, streaming);
  add_diffusion<Exec>("every_step/plain", Laplacian::every_step, plain);
  add_diffusion<Exec>("final_only/blocked", Laplacian::final_only, tiled);
  add_diffusion<Exec>("final_only/streaming", Laplacian::final_only, streaming);
  add_diffusion<Exec>("final_only/plain", Laplacian::final_only, plain);

  for (auto algorithm : {ConvolveAlgorithm::direct, ConvolveAlgorithm::tiled}) {
    add_convolve<Exec, float>("1e8", 100000000, 5, algorithm);
    add_convolve<Exec, double>("1e6", 1000000, 5, algorithm);
    add_convolve<Exec, float>("1e7", 10000000, 33, algorithm);
    add_convolve<Exec, float>("1e7", 10000000, 257, algorithm);
  }

  // Launch-shape probes (what StencilTuning is chosen from; not on Serial): rows per strip of
  // the GPU streaming kernel; tile shapes for every step's Laplacian; steps per pass with tile
  // shapes for the final one only.
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return;
#endif
  std::vector<std::array<int, 2>> shapes = {{16, 128}, {64, 128}, {32, 256}, {8, 512},
                                            {4, 510}};
  std::vector<std::array<int, 3>> blocked = {{2, 32, 124}, {4, 16, 120}, {4, 24, 120},
                                             {4, 8, 248}, {6, 16, 116}, {8, 16, 112}};
  if constexpr (!is_gpu_v<Exec>) {
    shapes = {{8, 512}, {16, 512}, {32, 1024}, {8, 2048}, {64, 256}};
    blocked = {{2, 32, 512}, {4, 32, 512}, {4, 64, 1024}, {8, 64, 512}, {8, 128, 1024}};
  }
  Variant one_direction, dense;
  one_direction.one_direction = true;
  dense.dense = true;
  add_diffusion<Exec>("probe/every_step/streaming/one_direction", Laplacian::every_step, {},
                      one_direction);
  add_diffusion<Exec>("probe/every_step/automatic/dense_field", Laplacian::every_step, {}, dense);
  // UNISON_BENCH_FIELD=file.npy: every step's Laplacian from that field (2000 x 2000 float32),
  // e.g. the one the peers start from (python3 benchmarks/peers/stencil_peers.py save FILE).
  if (const char* path = std::getenv("UNISON_BENCH_FIELD")) {
    Variant npy;
    npy.npy = path;
    add_diffusion<Exec>("probe/every_step/automatic/npy_field", Laplacian::every_step, {}, npy);
  }
  if constexpr (is_gpu_v<Exec>) {
    for (int strip : {4, 8, 16}) {
      DiffusionOptions o;
      o.algorithm = StencilAlgorithm::streaming;
      o.strip_rows = strip;
      add_diffusion<Exec>("probe/every_step/streaming/strip" + std::to_string(strip),
                          Laplacian::every_step, o);
      for (int ahead : {1, 2, 3, 4}) {
        DiffusionOptions p = o;
        p.strip_prefetch = ahead;
        add_diffusion<Exec>("probe/every_step/streaming/strip" + std::to_string(strip) +
                                "/prefetch" + std::to_string(ahead),
                            Laplacian::every_step, p);
      }
      for (int per_pass : {1, 2}) {
        o.steps_per_pass = per_pass;
        add_diffusion<Exec>("probe/final_only/streaming/steps" + std::to_string(per_pass) +
                                "/strip" + std::to_string(strip),
                            Laplacian::final_only, o);
      }
    }
  }
  for (auto& s : shapes) {
    DiffusionOptions o;
    o.tile_rows = s[0];
    o.tile_cols = s[1];
    add_diffusion<Exec>("probe/every_step/tile" + std::to_string(s[0]) + "x" + std::to_string(s[1]),
                        Laplacian::every_step, o);
  }
  for (auto& b : blocked) {
    DiffusionOptions o;
    o.steps_per_pass = b[0];
    o.tile_rows = b[1];
    o.tile_cols = b[2];
    add_diffusion<Exec>("probe/final_only/steps" + std::to_string(b[0]) + "/tile" +
                            std::to_string(b[1]) + "x" + std::to_string(b[2]),
                        Laplacian::final_only, o);
  }
}

}  // namespace

void register_stencil() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
}

}  // namespace unison::bench
