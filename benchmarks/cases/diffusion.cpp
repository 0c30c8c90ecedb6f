// Diffusion on every enabled backend at the seed size (docs/workloads.md section 4): 2000 x 2000
// float32 from the jagged field: the time reported is per step, from diffuse() calls of many steps,
// with a buffer allocated once (so a call does not block); `history` cases keep every step's
// Laplacian by diffuse_history, `seed_run` cases time the seed workload itself (10,000 steps from a
// fresh jagged field per call). GB/s counts the bytes a step moves at the least: f read and f_next
// written once a pass (8 bytes per cell over the steps of a pass: the final-only forms with
// temporal blocking run several), and each step's Laplacian written where every one is kept (4
// bytes per cell); Gcells/s counts cells updated. The working set is the two fields (8 bytes per
// cell); on a CPU backend the kernels other than `plain` write each step's Laplacian past the
// caches (non-temporal stores), which the suite's fractions of the peaks count against memory
// (Call::out_bytes). Checks: a case by its timed call (the same steps, the seed run's 10,000 or
// the "/steps<N>" its name states) from a fresh start field, against the float64 reference of
// those steps (the probes are not checked). On a GPU the cases (not the probes) also have a
// "with_copies" twin: the start field in from host memory and the field and Laplacian out,
// around every call's steps. The sweep past the caches (unison-bench --sizes,
// register_sizes_diffusion): "diffusion/sizes/<every_step|final_only>/<n>x<n>" from a uniform
// field at the sides of common.hpp, without a with_copies twin.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Random.hpp>

#include <unison/diffusion.hpp>
#include <unison/field.hpp>
#include <unison/npy.hpp>

#include "common.hpp"

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

// The seed run's steps: 10,000, or without settings().full, where a call of them would take
// more than settings().case_seconds on this backend (timed over 20 steps of the jagged field
// after 20 more, once per backend), the most of 100, 200, 500, 1000, 2000 and 5000 that fit (at
// least 100). The case's name then ends in "/steps<N>".
constexpr int seed_run_seed_steps = 10000;
template <class Exec>
int seed_run_steps(long n) {
  if (settings().full) return seed_run_seed_steps;
  static int chosen = 0;  // once per backend: both seed-run cases run the same steps
  if (chosen > 0) return chosen;
  using Mem = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
      Kokkos::view_alloc(exec, std::string("unison::bench::pilot_field")), n, n),
      lapl(Kokkos::view_alloc(exec, std::string("unison::bench::pilot_lapl")), n, n);
  unison::DiffusionBuffer<decltype(f)> buffer(
      Kokkos::view_alloc(exec, std::string("unison::bench::pilot_buffer")), n, n);
  unison::jagged_field(exec, f);
  constexpr int probe = 20;
  unison::diffuse(exec, f, buffer, probe, 0.25, lapl);
  exec.fence();
  const auto t0 = std::chrono::steady_clock::now();
  unison::diffuse(exec, f, buffer, probe, 0.25, lapl);
  exec.fence();
  const double per_step =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / probe;
  const double most = settings().case_seconds;
  chosen = 100;
  for (int s : {200, 500, 1000, 2000, 5000, seed_run_seed_steps})
    if (per_step * s <= most) chosen = s;
  return chosen;
}

// Probes of what the time depends on besides the kernel's shape.
struct Variant {
  // The start field: uniform in [0.5, 1) instead of the jagged field, whose zero regions fill
  // with subnormal numbers at the diffusion fronts (slow on some CPUs).
  bool dense = false;
  // Or a 2000 x 2000 float32 field read from this .npy file (the peers' field, say).
  std::string npy;
  // Every step's Laplacian by diffuse_history into this many planes (0: diffuse into one lapl).
  int history = 0;
  // The seed workload: each call starts from a fresh field and runs 10,000 steps (a few calls,
  // no repetitions of 100-step calls that continue one field).
  bool seed_run = false;
  // The sweep past the caches (--sizes): a field of this side (scaled) instead of 2000, uniform as
  // `dense`, named "diffusion/sizes/<name>/<n>x<n>", calls of sizes_steps steps.
  std::int64_t sizes_side = 0;
  // An exploration probe ("diffusion/probe/..."; unison_bench only), without a host-copies twin.
  bool probe = false;
  // The family's case in the headline.
  bool headline = false;
};

// The steps of a call of the sweep past the caches: the seed size's steps_per_call, fewer in
// proportion to the cells above 2000^2 (a call of milliseconds at every size), at least 20 on
// a GPU and 8 on a CPU, a multiple of 4 (whole passes of the temporally blocked kernels).
template <class Exec>
int sizes_steps(long n) {
  const int most = steps_per_call<Exec>(), least = is_gpu_v<Exec> ? 20 : 8;
  const double wanted = most * (2000.0 / double(n)) * (2000.0 / double(n));
  const int steps = std::clamp(int(std::lround(wanted)), least, most);
  return (steps + 3) / 4 * 4;
}

// The float64 reference of `steps` steps of docs/workloads.md section 4 from f0 (n x n): the field
// after them and the last step's Laplacian. Computed on the host's threads and kept for the
// next case with the same start field and steps (the cases of one size and backend share it).
struct DiffusionReference {
  std::vector<double> field, lapl;
};
template <class HF>
const DiffusionReference& diffusion_reference(const HF& f0, int steps, double coeff) {
  const std::int64_t nx = f0.extent(0), ny = f0.extent(1);
  static std::map<std::vector<double>, DiffusionReference> cache;  // by (steps, coeff, f0...)
  std::vector<double> key{double(steps), coeff};
  for (std::int64_t i = 0; i < nx; ++i)
    for (std::int64_t j = 0; j < ny; ++j) key.push_back(f0(i, j));
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  // (At most one field past 2000^2 kept: the sweep's reach gigabytes.)
  if (nx * ny > 2000 * 2000) cache.clear();
  std::vector<double> f(key.begin() + 2, key.end()), next(f.size()), lapl(f.size());
  for (int s = 0; s < steps; ++s) {
    Kokkos::parallel_for(
        "unison::bench::diffusion_reference",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0,
                                                                                                nx),
        [&](std::int64_t i) {
          const auto at = [&](std::int64_t r, std::int64_t c) {
            return r < 0 || r >= nx || c < 0 || c >= ny ? 0.0 : f[std::size_t(r * ny + c)];
          };
          for (std::int64_t j = 0; j < ny; ++j) {
            const double l =
                4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
            lapl[std::size_t(i * ny + j)] = l;
            next[std::size_t(i * ny + j)] = at(i, j) - coeff * l;
          }
        });
    std::swap(f, next);
  }
  if (cache.size() > 4) cache.clear();
  return cache[std::move(key)] = DiffusionReference{std::move(f), std::move(lapl)};
}

// The tolerance of a float32 diffusion of `steps` steps against the float64 reference: each step
// rounds the field and its Laplacian afresh and the roundings add up like a random walk. Measured
// from the jagged field at 2000 x 2000 on the H100 machine (the Laplacian's relative error, the
// larger of the two): 1.2e-5 after 10 steps, 5.0e-5 after 100, 1.7e-4 after 1000, 4.8e-4 after
// 10,000 (every backend alike): about 5e-6 sqrt(steps), half this bound.
inline double diffusion_tolerance(int steps) {
  return 1e-5 * std::max(1.0, std::sqrt(double(steps)));
}

template <class Exec>
void add_diffusion(const std::string& name, Laplacian which, DiffusionOptions options,
                   Variant variant = {}) {
  using Mem = typename Exec::memory_space;
  const bool sweep = variant.sizes_side > 0;
  const long n = long(scaled(sweep ? variant.sizes_side : 2000, 3, 2));
  const std::string full = std::string(sweep ? "diffusion/sizes/" : "diffusion/") + name + "/" +
                           std::to_string(n) + "x" + std::to_string(n);
  int steps = sweep ? sizes_steps<Exec>(n) : steps_per_call<Exec>();
  Case info("diffusion", "diffusion", full,
            variant.probe ? Kind::probe
            : sweep       ? Kind::sizes
                          : Kind::workload);
  const bool uniform = variant.dense || sweep;
  info.api = {variant.history > 0 ? "diffuse_history" : "diffuse"};
  info.headline = variant.headline;
  if (variant.seed_run && !uniform) info.api.push_back("jagged_field");
  if (variant.seed_run) {
    if (!registers<Exec>(info)) return;
    steps = seed_run_steps<Exec>(n);
    if (steps < seed_run_seed_steps) info.name += "/steps" + std::to_string(steps);
  }
  const double cells = double(n) * n;
  // The steps a pass runs, as diffuse and diffuse_history choose them (the library's own
  // schedule for this field and these options).
  const unison::DiffusionSchedule schedule = unison::diffusion_schedule(
      Exec(),
      Kokkos::View<float**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          nullptr, n, n),
      which, options, variant.history);
  const StencilAlgorithm algorithm = schedule.algorithm;
  // The resident form (a CUDA GPU, where the field fits) runs a whole call (diffuse_history: a
  // group of planes) in one pass.
  int per_pass = algorithm != StencilAlgorithm::resident ? schedule.steps_per_pass
                 : variant.history > 0                   ? std::min(steps, variant.history)
                                                         : steps;
  const double fields = 2 * cells * sizeof(float);  // f and the buffer: the working set
  const double lapl_bytes = which == Laplacian::every_step ? cells * sizeof(float) : 0;
  const double bytes = fields / per_pass + lapl_bytes;
  // (The CPU kernels but `plain` store each step's Laplacian past the caches.)
  const double out_bytes = !is_gpu_v<Exec> && algorithm != StencilAlgorithm::plain ? lapl_bytes : 0;
  const Setup<Exec> setup = [=](const Exec& exec) -> Call<Exec> {
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
        Kokkos::view_alloc(exec, std::string("unison::bench::field")), n, n),
        lapl(Kokkos::view_alloc(exec, std::string("unison::bench::lapl")), n, n);
    unison::DiffusionBuffer<decltype(f)> buffer(
        Kokkos::view_alloc(exec, std::string("unison::bench::buffer")), n, n);
    Kokkos::View<float***, Kokkos::LayoutRight, Mem> history(
        Kokkos::view_alloc(exec, std::string("unison::bench::history")), variant.history,
        variant.history > 0 ? n : 0, variant.history > 0 ? n : 0);
    // The start field of every checked call (and of the seed run's every call).
    std::function<void(const Exec&)> start = [f](const Exec& e) { unison::jagged_field(e, f); };
    if (uniform) {
      Kokkos::Random_XorShift64_Pool<Exec> pool(2024);
      start = [f, pool](const Exec& e) { Kokkos::fill_random(e, f, pool, 0.5f, 1.0f); };
    }
    if (!variant.npy.empty()) {
      const auto host = unison::read_npy<float>(variant.npy);
      if (host.extent(0) != std::size_t(n) || host.extent(1) != std::size_t(n))
        throw std::runtime_error("UNISON_BENCH_FIELD: " + variant.npy + " is not " +
                                 std::to_string(n) + " x " + std::to_string(n));
      Kokkos::deep_copy(exec, f, host);
    } else if (uniform) {
      start(exec);
    } else {
      unison::jagged_field(exec, f);
      // UNISON_BENCH_SAVE_FIELD=file.npy: the jagged field, for tools/probes/cpu-stencil-probe.cpp.
      if (const char* save = std::getenv("UNISON_BENCH_SAVE_FIELD"))
        unison::write_npy(save, Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f));
    }
    const auto run_steps = [=](const Exec& e, int count) {
      if (variant.seed_run) start(e);
      if (variant.history > 0)
        unison::diffuse_history(
            e, f, buffer, count, 0.25, history, [](auto...) {}, options);
      else unison::diffuse(e, f, buffer, count, 0.25, lapl, which, options);
    };
    const auto run = [=](const Exec& e) { run_steps(e, steps); };
    if (!variant.npy.empty() || variant.dense) return run;  // probes: not checked
    // The timed call from a fresh start field (restart), against the float64 reference of its
    // steps from that field.
    auto f0 = Kokkos::create_mirror(Kokkos::WithoutInitializing, Kokkos::HostSpace(), f);
    Call<Exec> call{run, [=](const Exec& e) {
                      e.fence();
                      const auto& ref = diffusion_reference(f0, steps, 0.25);
                      auto hf = host_copy(f);
                      Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> hl;
                      if (variant.history > 0)
                        hl = host_copy(Kokkos::subview(history, (steps - 1) % variant.history,
                                                       Kokkos::ALL, Kokkos::ALL));
                      else hl = host_copy(lapl);
                      const auto at = [n](const auto& v) {
                        return [&v, n](std::int64_t i) { return double(v(i / n, i % n)); };
                      };
                      const auto in = [n](const std::vector<double>& v) {
                        return [&v](std::int64_t i) { return v[std::size_t(i)]; };
                      };
                      Check c;
                      c.error = std::max(relative_error(std::int64_t(n) * n, at(hf), in(ref.field)),
                                         relative_error(std::int64_t(n) * n, at(hl), in(ref.lapl)));
                      c.tolerance = diffusion_tolerance(steps);
                      c.bytes = 3 * cells * sizeof(float);
                      c.save = [=](const std::filesystem::path& folder) {
                        save_npy(folder, "initial", f0);
                        save_npy(folder, "field", hf);
                        save_npy(folder, "laplacian", hl);
                      };
                      return c;
                    }};
    call.restart = [=](const Exec& e) {
      start(e);
      Kokkos::deep_copy(e, f0, f);
    };
    call.working_set_bytes = fields;
    call.out_bytes = out_bytes;
    // With copies: the start field in, the field and the Laplacian (or its planes) out.
    copy_in(call, f);
    copy_out(call, f);
    if (variant.history > 0) copy_out(call, history);
    else copy_out(call, lapl);
    return call;
  };
  info.sizes = {{"rows", double(n)}, {"cols", double(n)}, {"steps", double(steps)}};
  info.bytes = bytes;
  info.units = steps;
  info.cells = cells;
  info.time_unit = benchmark::kMicrosecond;
  info.batches = variant.seed_run ? 1 : 3;
  info.repetitions = variant.seed_run ? 3 : 5;
  if (!variant.probe && !sweep) add_case_and_copies<Exec>(info, setup);
  else add_case<Exec>(info, setup);
}

// An exploration probe of add_diffusion, "diffusion/probe/<name>/...".
template <class Exec>
void add_diffusion_probe(const std::string& name, Laplacian which, DiffusionOptions options,
                         Variant variant = {}) {
  variant.probe = true;
  add_diffusion<Exec>("probe/" + name, which, options, variant);
}

// Crossover sweep: the call with the data on the device, and with the host copies around it
// (the field in, and the field and Laplacian out after the call's steps). On a CPU backend the
// two are the same case and only "device" is registered.
template <class Exec>
void add_crossover_diffusion(std::int64_t side) {
  using Mem = typename Exec::memory_space;
  const long n = long(scaled(side, 3, 2));
  const int steps = 100;
  const std::string base =
      "crossover/diffusion_every_step/" + std::to_string(n) + "x" + std::to_string(n);
  for (const bool copies : {false, true}) {
    if (copies && std::is_same_v<Mem, Kokkos::HostSpace>) continue;
    Case info("diffusion", "diffusion", base + (copies ? "/with_copies" : "/device"),
              Kind::crossover);
    info.api = {"diffuse"};
    info.with_copies = copies;
    info.sizes = {{"rows", double(n)}, {"cols", double(n)}, {"steps", double(steps)}};
    info.bytes = double(n) * n * sizeof(float) * 3;
    info.units = steps;
    info.cells = double(n) * n;
    info.time_unit = benchmark::kMicrosecond;
    add_case<Exec>(info, [=](const Exec& exec) -> std::function<void(const Exec&)> {
      Kokkos::View<float**, Kokkos::LayoutRight, Mem> f(
          Kokkos::view_alloc(exec, std::string("unison::bench::field")), n, n),
          lapl(Kokkos::view_alloc(exec, std::string("unison::bench::lapl")), n, n);
      unison::DiffusionBuffer<decltype(f)> buffer(
          Kokkos::view_alloc(exec, std::string("unison::bench::buffer")), n, n);
      unison::jagged_field(exec, f);
      auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
      auto hl = Kokkos::create_mirror_view(lapl);
      return [=](const Exec& e) {
        if (copies) Kokkos::deep_copy(e, f, hf);
        unison::diffuse(e, f, buffer, steps, 0.25, lapl, Laplacian::every_step);
        if (copies) {
          Kokkos::deep_copy(e, hf, f);
          Kokkos::deep_copy(e, hl, lapl);
        }
      };
    });
  }
}

template <class Exec>
void register_backend() {
  DiffusionOptions tiled, streaming, plain, wavefront;
  tiled.algorithm = StencilAlgorithm::tiled;
  wavefront.algorithm = StencilAlgorithm::wavefront;
  streaming.algorithm = StencilAlgorithm::streaming;
  plain.algorithm = StencilAlgorithm::plain;
  add_diffusion<Exec>("every_step/tiled", Laplacian::every_step, tiled);
  Variant headline;  // the tutorial's step at its 2000 x 2000, every Laplacian kept
  headline.headline = true;
  add_diffusion<Exec>("every_step/streaming", Laplacian::every_step, streaming, headline);
  add_diffusion<Exec>("every_step/plain", Laplacian::every_step, plain);
  // Every step's Laplacian kept in 4 planes.
  Variant history;
  history.history = 4;
  add_diffusion<Exec>("every_step/history", Laplacian::every_step, {}, history);
  add_diffusion<Exec>("final_only/blocked", Laplacian::final_only, tiled);
  add_diffusion<Exec>("final_only/streaming", Laplacian::final_only, streaming);
  add_diffusion<Exec>("final_only/wavefront", Laplacian::final_only, wavefront);
  add_diffusion<Exec>("final_only/plain", Laplacian::final_only, plain);

  // Launch-shape probes (what DiffusionTuning is chosen from; not on Serial): rows per strip of
  // the GPU streaming kernel; tile shapes for every step's Laplacian; steps per pass with tile
  // shapes for the final one only.
#ifdef KOKKOS_ENABLE_SERIAL
  if constexpr (std::is_same_v<Exec, Kokkos::Serial>) return;
#endif
  std::vector<std::array<int, 2>> shapes = {{16, 128}, {64, 128}, {32, 256}, {8, 512}, {4, 510}};
  std::vector<std::array<int, 3>> blocked = {{2, 32, 124}, {4, 16, 120}, {4, 24, 120},
                                             {4, 8, 248},  {6, 16, 116}, {8, 16, 112}};
  if constexpr (!is_gpu_v<Exec>) {
    shapes = {{8, 512}, {16, 512}, {32, 1024}, {8, 2048}, {64, 256}};
    blocked = {{2, 32, 512}, {4, 32, 512}, {4, 64, 1024}, {8, 64, 512}, {8, 128, 1024}};
  }
  // The seed workload, 10,000 steps from the jagged field, per step (not on Serial: minutes).
  Variant seed = {}, seed_history = history;
  seed.seed_run = seed_history.seed_run = true;
  add_diffusion<Exec>("seed_run/every_step/automatic", Laplacian::every_step, {}, seed);
  add_diffusion<Exec>("seed_run/every_step/history", Laplacian::every_step, {}, seed_history);
  if constexpr (!is_gpu_v<Exec>) {
    // Steps per pass of the CPU history kernel (planes: as many).
    for (int per_pass : {1, 2, 3, 4, 6, 8}) {
      DiffusionOptions o;
      o.steps_per_pass = per_pass;
      Variant h;
      h.history = per_pass;
      add_diffusion_probe<Exec>("every_step/history/steps" + std::to_string(per_pass),
                                Laplacian::every_step, o, h);
    }
  } else {
    // Steps per pass of the strip kernels for the history (4 planes), by rows per strip.
    for (int strip : {8, 16, 32})
      for (int per_pass : {1, 2}) {
        DiffusionOptions o;
        o.steps_per_pass = per_pass;
        o.strip_rows = strip;
        add_diffusion_probe<Exec>("every_step/history/steps" + std::to_string(per_pass) + "/strip" +
                                      std::to_string(strip),
                                  Laplacian::every_step, o, history);
      }
  }
  Variant dense;
  dense.dense = true;
  add_diffusion_probe<Exec>("every_step/automatic/dense_field", Laplacian::every_step, {}, dense);
  // UNISON_BENCH_FIELD=file.npy: every step's Laplacian from that field (2000 x 2000 float32),
  // e.g. the one the peers start from (python3 benchmarks/peers/stencil_peers.py save FILE).
  if (const char* path = std::getenv("UNISON_BENCH_FIELD")) {
    Variant npy;
    npy.npy = path;
    add_diffusion_probe<Exec>("every_step/automatic/npy_field", Laplacian::every_step, {}, npy);
  }
  // wavefront at 8192^2 (past the caches): steps per pass, and rows a team walks (0: the
  // backend's choice).
  for (int per_pass : {2, 4, 6, 8})
    for (int rows : {0, 32, 64, 128, 256}) {
      if (per_pass > unison::backends::DiffusionTuning<Exec>::wavefront_steps) continue;
      DiffusionOptions o = wavefront;
      o.steps_per_pass = per_pass;
      o.tile_rows = rows;
      Variant large;
      large.sizes_side = 8192;
      add_diffusion_probe<Exec>(
          "final_only/wavefront/steps" + std::to_string(per_pass) + "/rows" + std::to_string(rows),
          Laplacian::final_only, o, large);
    }
  if constexpr (is_gpu_v<Exec>) {
    for (int strip : {4, 8, 16, 32}) {
      DiffusionOptions o;
      o.algorithm = StencilAlgorithm::streaming;
      o.strip_rows = strip;
      add_diffusion_probe<Exec>("every_step/streaming/strip" + std::to_string(strip),
                                Laplacian::every_step, o);
      for (int ahead : {1, 2, 3, 4}) {
        DiffusionOptions p = o;
        p.strip_prefetch = ahead;
        add_diffusion_probe<Exec>("every_step/streaming/strip" + std::to_string(strip) +
                                      "/prefetch" + std::to_string(ahead),
                                  Laplacian::every_step, p);
      }
      for (int per_pass : {1, 2}) {
        o.steps_per_pass = per_pass;
        add_diffusion_probe<Exec>("final_only/streaming/steps" + std::to_string(per_pass) +
                                      "/strip" + std::to_string(strip),
                                  Laplacian::final_only, o);
      }
    }
  }
  for (auto& s : shapes) {
    DiffusionOptions o;
    o.tile_rows = s[0];
    o.tile_cols = s[1];
    add_diffusion_probe<Exec>("every_step/tile" + std::to_string(s[0]) + "x" + std::to_string(s[1]),
                              Laplacian::every_step, o);
  }
  for (auto& b : blocked) {
    DiffusionOptions o;
    o.steps_per_pass = b[0];
    o.tile_rows = b[1];
    o.tile_cols = b[2];
    add_diffusion_probe<Exec>("final_only/steps" + std::to_string(b[0]) + "/tile" +
                                  std::to_string(b[1]) + "x" + std::to_string(b[2]),
                              Laplacian::final_only, o);
  }
}

}  // namespace

void register_crossover_diffusion() {
  for_each_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (std::int64_t side : {32, 100, 316, 1000, 2000}) add_crossover_diffusion<Exec>(side);
  });
}

void register_sizes_diffusion() {
  for_each_parallel_backend([](auto backend) {
    using Exec = typename decltype(backend)::type;
    for (const std::int64_t side : is_gpu_v<Exec> ? sizes_gpu_sides : sizes_cpu_sides) {
      Variant sweep;
      sweep.sizes_side = side;
      add_diffusion<Exec>("every_step", Laplacian::every_step, {}, sweep);
      add_diffusion<Exec>("final_only", Laplacian::final_only, {}, sweep);
      DiffusionOptions wavefront;
      wavefront.algorithm = StencilAlgorithm::wavefront;
      add_diffusion<Exec>("final_only/wavefront", Laplacian::final_only, wavefront, sweep);
      if (is_gpu_v<Exec> && side == sizes_gpu_sides[0]) {
        // The strips, beside the resident form that `automatic` takes where the field fits.
        DiffusionOptions strips;
        strips.algorithm = StencilAlgorithm::streaming;
        add_diffusion<Exec>("every_step/streaming", Laplacian::every_step, strips, sweep);
        add_diffusion<Exec>("final_only/streaming", Laplacian::final_only, strips, sweep);
      }
    }
  });
}

void register_diffusion() {
  for_each_backend([](auto backend) { register_backend<typename decltype(backend)::type>(); });
  register_overlap_diffusion();
  register_diffusion_step();
}

// This file's family in the workload registry (apps/unison-bench/workloads.cpp).
namespace {
[[maybe_unused]] const bool registered = add_registration("diffusion", register_diffusion);
}  // namespace

}  // namespace unison::bench
