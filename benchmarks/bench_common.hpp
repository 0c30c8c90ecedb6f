#pragma once
// What every Unison benchmark shares: registration of one case on one backend, the timing
// method, counters and the context recorded in the JSON.
//
// Timing: data is allocated and filled (on the device, Kokkos' random pool) before timing; one
// warm-up call; then each iteration enqueues `batch` calls between two fences of the instance
// and reports the wall time over the batch as the time of one call (manual time). The batch is
// sized so that it lasts at least about a millisecond, which hides the fence and launch
// latency that a single sub-millisecond GPU call would otherwise carry. Each repetition times a
// fixed 3 batches (a minimum time would count per-call time and run thousands of batches);
// 5 repetitions give the median and its spread.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

namespace unison::bench {

// A case: setup(exec) allocates and fills its data and returns the call to time.
template <class Exec>
using Setup = std::function<std::function<void(const Exec&)>(const Exec&)>;

// `units`: what one call counts as (steps of a time loop, say); the reported time, bytes and
// flops are per unit.
template <class Exec>
void run_case(benchmark::State& state, const Setup<Exec>& setup, double bytes, double flops,
              double units = 1, double cells = 0, const char* cells_name = "Gcells/s") {
  Exec exec;
  auto call = setup(exec);
  call(exec);  // warm-up: first-touch, module load, allocations inside the call
  exec.fence();
  using clock = std::chrono::steady_clock;
  auto time_batch = [&](int batch) {
    exec.fence();
    auto t0 = clock::now();
    for (int b = 0; b < batch; ++b) call(exec);
    exec.fence();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  int batch = 1;
  for (double t = time_batch(1); t < 1e-3 && batch < (1 << 16);) {
    batch *= 2;
    t = time_batch(batch);
  }
  for (auto _ : state) state.SetIterationTime(time_batch(batch) / batch / units);
  state.counters["batch"] = batch;
  if (cells > 0)
    state.counters[cells_name] =
        benchmark::Counter(cells / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  if (bytes > 0)
    state.counters["GB/s"] =
        benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  if (flops > 0)
    state.counters["GFLOP/s"] =
        benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// What the program running the cases wants of every registration (unison_bench: everything;
// unison-bench: the suite's options).
struct Settings {
  bool probes = true;                 // register the exploration cases (names with "/probe/")
  std::function<bool(const std::string&)> keep;  // register only the names it keeps (if set)
  std::vector<std::string> backends;  // register only these backends (empty: every one)
  int repetitions = 0;                // repetitions of every case (0: each case's own)
  double scale = 1;                   // sizes: the seed sizes times this (0 < scale <= 1)
};
Settings& settings();

// A size n scaled by settings().scale, at least `least`; a side of a 2-D shape by its square
// root and of a 3-D one by its cube root, so that the work follows the scale.
inline std::int64_t scaled(std::int64_t n, std::int64_t least = 1, int dims = 1) {
  const double f = dims == 1 ? settings().scale : std::pow(settings().scale, 1.0 / dims);
  const auto v = std::int64_t(std::llround(double(n) * f));
  return v < least ? least : v;
}

// 100000000 -> "1e8" (the seed sizes are powers of ten); other sizes as they are.
inline std::string size_tag(std::int64_t n) {
  int e = 0;
  std::int64_t m = n;
  while (m >= 10 && m % 10 == 0) m /= 10, ++e;
  return m == 1 ? "1e" + std::to_string(e) : std::to_string(n);
}

// Registers "<name>/<backend>" with the common settings, unless settings() leave it out.
// (`batches` per repetition, `repetitions` of them: fewer for a case whose call lasts seconds.)
template <class Exec>
void add_case(const std::string& name, Setup<Exec> setup, double bytes, double flops = 0,
              double units = 1, double cells = 0,
              benchmark::TimeUnit unit = benchmark::kMillisecond, int batches = 3,
              int repetitions = 5, const char* cells_name = "Gcells/s") {
  const Settings& want = settings();
  if (!want.probes && name.find("/probe/") != std::string::npos) return;
  if (want.keep && !want.keep(name)) return;
  if (!want.backends.empty() &&
      std::find(want.backends.begin(), want.backends.end(), Exec::name()) == want.backends.end())
    return;
  if (want.repetitions > 0) repetitions = want.repetitions;
  benchmark::RegisterBenchmark(
      (name + "/" + Exec::name()).c_str(),
      [=](benchmark::State& s) { run_case<Exec>(s, setup, bytes, flops, units, cells, cells_name); })
      ->UseManualTime()
      ->Unit(unit)
      ->Iterations(batches)  // batches per repetition (each batch >= ~1 ms)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true);
}

// A View of n values uniform in [lo, hi), filled on exec's device.
// (Filled by Mem's default execution space, which can always write Mem.)
template <class T, class Mem>
Kokkos::View<T*, Mem> random_view(std::size_t n, double lo, double hi, const char* label) {
  Kokkos::View<T*, Mem> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  using FillExec = typename Mem::execution_space;
  Kokkos::Random_XorShift64_Pool<FillExec> pool(12345 + n);
  Kokkos::fill_random(FillExec{}, v, pool, T(lo), T(hi));
  Kokkos::fence();
  return v;
}

// Calls f(Backend<Exec>{}) for every enabled backend (Serial, OpenMP, Cuda), in that order: what
// each family's registration function does with its register_backend<Exec>.
template <class Exec>
struct Backend {
  using type = Exec;
};
template <class F>
void for_each_backend(const F& f) {
#ifdef KOKKOS_ENABLE_SERIAL
  f(Backend<Kokkos::Serial>{});
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  f(Backend<Kokkos::OpenMP>{});
#endif
#ifdef KOKKOS_ENABLE_CUDA
  f(Backend<Kokkos::Cuda>{});
#endif
}

// Sets FTZ and DAZ on this thread if UNISON_BENCH_FLUSH_SUBNORMALS=1 (call it before Kokkos
// starts its threads: they inherit the mode). Returns whether it did.
bool flush_subnormals_if_asked();

// Records the build and the machine in the JSON context.
void add_context(bool flushed);

// Each family's cases on every backend (bench_<family>.cpp).
void register_elementwise();
void register_copy();  // the elementwise family's copy case alone: each backend's memory ceiling
void register_stencil();
void register_matmul();
void register_rowwise();
void register_counting();
// Size sweeps for where the GPU overtakes the CPU, with the data on the device and with the
// host copies: "crossover/<workload>/<size>/(device|with_copies)".
void register_crossover_elementwise();  // gaussian_pdf, 1e3 to 1e8
void register_crossover_stencil();      // convolve valid f32 5 taps 1e3 to 1e8; diffusion 32^2 to 2000^2

}  // namespace unison::bench
