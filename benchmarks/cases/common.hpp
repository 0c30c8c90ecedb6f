#pragma once
// What every Unison benchmark shares: registration of one case on one backend, the timing
// method, counters and the context recorded in the JSON.
//
// Timing: data is allocated and filled (on the device, Kokkos' random pool) once per case,
// before its first repetition, and freed after its last; one warm-up call; then each iteration
// enqueues `batch` calls between two fences of the instance and reports the wall time over the
// batch as the time of one call (manual time). The batch is sized so that it lasts at least
// settings().min_sample_s (a millisecond by default), which hides the fence and launch latency
// that a single sub-millisecond GPU call would otherwise carry. With settings().full each
// repetition times a fixed 3 batches (a minimum time would count per-call time and run
// thousands of batches) and 5 repetitions give the median and its spread; without it (the
// suite's default, which must finish in minutes on a small machine) every case takes one batch
// of at least 10 ms per repetition, 3 repetitions, so that a case costs about four calls or
// 40 ms of calls, whichever is more.
//
// Checks: a case may come with a check of its result against a float64 host reference
// (docs/workloads.md), run once per case after its first repetition's timing. It judges the
// result of a timed call: the last one, or, for a case whose calls carry state such as a
// diffusion (Call::restart), the timed call made once more from the case's fresh start. The check
// itself makes no Unison call: the suite records it (call_trace.hpp), and a check that called
// Unison, which would judge a call the suite never timed (other steps, sizes or options), fails.
// It reports the counters "check_error", "check_tolerance" and "check_as_timed" (pass: error <=
// tolerance, as timed) and, on the backend settings().results_backend names, writes the case's
// inputs and result as .npy files under settings().results_dir.

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/enabled.hpp>
#include <unison/npy.hpp>

#include "../../testing/reference.hpp"
#include "../harness/call_trace.hpp"
#include "../harness/case.hpp"

namespace unison::bench {

// A case's result against its float64 host reference. `error` is in the case's own measure:
// the relative error ||out - ref|| / ||ref|| over every value unless the case documents
// another (matmul_reduce: each column's error over the size of its terms; histogram, counters
// and integer results: the count of values off; monte_carlo_pi: |estimate - pi| / pi against
// five standard deviations of the estimate). Pass: error <= tolerance. `save(folder)` writes the
// case's inputs and result as .npy files into folder (`bytes` of them; empty: nothing to save).
struct Check {
  double error = 0, tolerance = 0;
  double bytes = 0;
  std::function<void(const std::filesystem::path& folder)> save;
  // Whether the check judged the timed call, making no Unison call of its own (report_check
  // sets it).
  bool as_timed = true;
};

// An integer result against its exact value: the count of values off (pass: none).
inline Check check_exact(std::int64_t off) {
  Check c;
  c.error = double(off);
  return c;
}

// What setup returns: the call to time, the check of its result (empty: none), and the host
// copies a "with_copies" twin of the case makes around each call (add_case_and_copies): its
// inputs in from host memory before, its results out to host memory after. `restart`, for a
// case whose calls carry state (a diffusion continues its field): puts back the state the check's
// call starts from (and keeps what the check needs of it, the start field); the suite then makes
// the timed call once more, and the check judges its result.
template <class Exec>
struct Call {
  std::function<void(const Exec&)> run;
  std::function<Check(const Exec&)> check;
  std::function<void(const Exec&)> restart;
  std::vector<std::function<void(const Exec&)>> copy_in, copy_out;
  // Where the call's bytes live, for the suite's fractions of the peaks (0: not declared; per
  // unit, as the case's bytes): the arrays it reads again call after call, and the bytes its
  // kernel writes past the caches on this backend (non-temporal stores of results no later call
  // reads). Reported as the counters "working_set_bytes" and "out_bytes".
  double working_set_bytes = 0, out_bytes = 0;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Call> &&
                                              std::is_invocable_v<const F&, const Exec&>>>
  Call(F f) : run(std::move(f)) {}
  template <class F, class C>
  Call(F f, C c) : run(std::move(f)), check(std::move(c)) {}
};

// For Call::out_bytes: `out`, the bytes of a call's results, where Exec is a CPU backend and the
// call's arrays span `arrays` bytes or more (backends::host_streams: from that size unison's CPU
// kernels write their results with non-temporal stores); else 0.
template <class Exec>
double streamed_out(double arrays, double out) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename Exec::memory_space>::accessible)
    return unison::backends::host_streams(static_cast<long long>(arrays)) ? out : 0;
  else return 0;
}

// A case: setup(exec) allocates and fills its data and returns the call to time.
template <class Exec>
using Setup = std::function<Call<Exec>(const Exec&)>;

// Runs a case's check once (first call) and reports it as counters on every repetition.
template <class Exec>
void report_check(benchmark::State& state, const std::string& name, const Call<Exec>& call,
                  const Exec& exec, std::optional<Check>& memo) {
  if (!call.check || !settings().checks) return;
  if (!memo) {
    if (call.restart) {  // the timed call once more, from the case's fresh start
      call.restart(exec);
      call.run(exec);
    }
    exec.fence();
    // The check judges that call's result: it makes no Unison call of its own.
    const CallTrace own = trace_calls([&] { memo = call.check(exec); });
    memo->as_timed = own.calls.empty();
    if (!memo->as_timed)
      std::fprintf(stderr,
                   "unison-bench: %s/%s: the check made Unison calls of its own instead of judging "
                   "the timed call: %s\n",
                   name.c_str(), Exec::name(), describe(own).c_str());
    const Settings& want = settings();
    if (!want.results_dir.empty() && want.results_backend == Exec::name() && memo->save &&
        memo->bytes <= want.results_limit) {
      const auto folder = std::filesystem::path(want.results_dir) / name;
      try {
        std::filesystem::create_directories(folder);
        memo->save(folder);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "unison-bench: cannot save %s's results: %s\n", name.c_str(),
                     e.what());
        settings().results_failed = true;
      }
    }
    memo->save = nullptr;  // the inputs it holds are not needed any more
  }
  // A NaN or infinite error (a NaN in the result) is reported as the largest double: JSON has
  // no infinity.
  const double big = std::numeric_limits<double>::max();
  state.counters["check_error"] = std::isfinite(memo->error) ? memo->error : big;
  state.counters["check_tolerance"] = memo->tolerance;
  state.counters["check_as_timed"] = memo->as_timed ? 1 : 0;
}

// `units`: what one call counts as (steps of a time loop, say); the reported time, bytes and
// flops are per unit.
// What a case keeps from its first repetition to its last: its data and call, and how many
// calls a timed batch makes.
template <class Exec>
struct Prepared {
  std::optional<Call<Exec>> made;
  int batch = 1;
  int repetitions_left = 0;  // set at registration; the data is freed when it reaches 0
};

template <class Exec>
void run_case(benchmark::State& state, const std::string& name, const Setup<Exec>& setup,
              std::optional<Check>& check, Prepared<Exec>& prepared, double bytes, double flops,
              double units = 1, double cells = 0, const char* cells_name = "Gcells/s") {
  Exec exec;
  using clock = std::chrono::steady_clock;
  auto time_batch = [&](int batch) {
    exec.fence();
    auto t0 = clock::now();
    for (int b = 0; b < batch; ++b) prepared.made->run(exec);
    exec.fence();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  if (!prepared.made) {
    if (settings().on_start) settings().on_start(name + "/" + Exec::name());
    prepared.made = setup(exec);
    // The warm-up (first-touch, module load, allocations inside the call) tells a call that
    // lasts a batch on its own; shorter ones are timed again, in doubling batches.
    const double least = settings().min_sample_s;
    prepared.batch = 1;
    if (time_batch(1) < 4 * least)
      for (double t = time_batch(1); t < least && prepared.batch < (1 << 16);) {
        prepared.batch *= 2;
        t = time_batch(prepared.batch);
      }
  }
  const int batch = prepared.batch;
  for (auto _ : state) state.SetIterationTime(time_batch(batch) / batch / units);
  exec.fence();
  report_check(state, name, *prepared.made, exec, check);
  if (prepared.made->working_set_bytes > 0)
    state.counters["working_set_bytes"] = prepared.made->working_set_bytes;
  if (prepared.made->out_bytes > 0) state.counters["out_bytes"] = prepared.made->out_bytes;
  if (--prepared.repetitions_left <= 0) prepared.made.reset();  // frees the case's data
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

// Whether settings() keep the case `c` on Exec's backend.
template <class Exec>
bool registers(const Case& c) {
  const Settings& want = settings();
  if (!want.probes && c.kind == Kind::probe) return false;
  if (want.keep && !want.keep(c)) return false;
  if (want.keep_full && !want.keep_full(c, benchmark_name(c, Exec::name()))) return false;
  return want.backends.empty() ||
         std::find(want.backends.begin(), want.backends.end(), Exec::name()) != want.backends.end();
}

// The peaks (Kind::peak: the streams and the fma case): the fastest repetition of each is a
// peak, so they run at least `peak_repetitions`, whatever the run (they last milliseconds), that a
// moment of the machine's load does not lower a peak.
constexpr int peak_repetitions = 10;

// Registers "<c.name>/<backend>" with the common settings, unless settings() leave it out, and
// lists it in the manifest.
template <class Exec>
void add_case(Case c, Setup<Exec> setup) {
  const Settings& want = settings();
  if (!registers<Exec>(c)) return;
  if (!want.full) c.batches = 1, c.repetitions = 3;
  if (want.repetitions > 0) c.repetitions = want.repetitions;
  if (c.kind == Kind::peak) c.repetitions = std::max(c.repetitions, peak_repetitions);
  auto check = std::make_shared<std::optional<Check>>();  // shared by the repetitions
  auto prepared = std::make_shared<Prepared<Exec>>();
  prepared->repetitions_left = c.repetitions;
  ++settings().registered;
  add_to_manifest(c, Exec::name());
  benchmark::RegisterBenchmark(benchmark_name(c, Exec::name()).c_str(),
                               [=, name = c.name, bytes = c.bytes, flops = c.flops, units = c.units,
                                cells = c.cells, cells_name = c.cells_name](benchmark::State& s) {
                                 run_case<Exec>(s, name, setup, *check, *prepared, bytes, flops,
                                                units, cells, cells_name);
                               })
      ->UseManualTime()
      ->Unit(c.time_unit)
      ->Iterations(c.batches)  // batches per repetition (each batch >= ~1 ms)
      ->Repetitions(c.repetitions)
      ->ComputeStatistics(  // the fastest repetition: a peak is what the machine can reach
          "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ReportAggregatesOnly(true);
}

// Registers the case "<name>" and, on a backend whose memory the host cannot read, its twin
// "<name>/with_copies": the same call with its Call's host copies around it (copy_in and copy_out
// below; it is an error for such a case to have none). The twin's check is the case's own.
template <class Exec>
void add_case_and_copies(const Case& c, Setup<Exec> setup) {
  add_case<Exec>(c, setup);
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                            typename Exec::memory_space>::accessible) {
    add_case<Exec>(c.copies(), Setup<Exec>([=, name = c.name](const Exec& exec) {
                     Call<Exec> call = setup(exec);
                     if (call.copy_in.empty() && call.copy_out.empty())
                       throw std::logic_error("unison::bench: " + name + " has no host copies");
                     call.run = [run = call.run, in = call.copy_in,
                                 out = call.copy_out](const Exec& e) {
                       for (const auto& copy : in) copy(e);
                       run(e);
                       for (const auto& copy : out) copy(e);
                     };
                     return call;
                   }));
  }
}

// The host copies of an input v (from a host mirror holding v's values now) and of a result
// (into a host mirror), for a case's with_copies twin.
template <class Exec, class V>
void copy_in(Call<Exec>& call, const V& v) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  call.copy_in.push_back([=](const Exec& e) { Kokkos::deep_copy(e, v, host); });
}
template <class Exec, class V>
void copy_out(Call<Exec>& call, const V& v) {
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), v);
  call.copy_out.push_back([=](const Exec& e) { Kokkos::deep_copy(e, host, v); });
}

// A View of n values uniform in [lo, hi), filled on exec's device, from a seed of the label and
// n: Views of one size with different labels hold different values (the inputs x and y of a
// case are not the same array), and a case's inputs are the same on every backend and run.
// (Filled by Mem's default execution space, which can always write Mem.)
template <class T, class Mem>
Kokkos::View<T*, Mem> random_view(std::size_t n, double lo, double hi, const char* label) {
  Kokkos::View<T*, Mem> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
  using FillExec = typename Mem::execution_space;
  std::uint64_t seed = 12345 + n;
  for (const char* c = label; *c; ++c)
    seed = seed * 1099511628211u + std::uint8_t(*c);  // FNV-style
  Kokkos::Random_XorShift64_Pool<FillExec> pool(seed);
  Kokkos::fill_random(FillExec{}, v, pool, T(lo), T(hi));
  Kokkos::fence();
  return v;
}

// Whether the host can read the memory of Exec.
template <class Exec>
constexpr bool host_memory_v =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

// A host copy of v (v itself where the host can read it).
template <class V>
auto host_copy(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// The sums of squares of got(i) - ref(i) and of ref(i) (a functor, not a lambda: nvcc warns of
// a constexpr lambda called from Kokkos' host-device wrappers).
template <class Got, class Ref>
struct ErrorSums {
  const Got& got;
  const Ref& ref;
  void operator()(std::int64_t i, double& diff2, double& ref2) const {
    unison::reference::add_error_terms(got(i), ref(i), diff2, ref2);
  }
};

// ||got - ref|| / ||ref|| over i < n (||got - ref|| where ref is all zeros; infinite where got
// has a NaN that ref lacks), got(i) and ref(i) evaluated in double on the host's threads.
template <class Got, class Ref>
double relative_error(std::int64_t n, const Got& got, const Ref& ref) {
  double diff2 = 0, ref2 = 0;
  Kokkos::parallel_reduce(
      "unison::bench::relative_error",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, n),
      ErrorSums<Got, Ref>{got, ref}, diff2, ref2);
  return unison::reference::relative_error(diff2, ref2);
}

// The tolerance of docs/workloads.md for results of type T (the tests' too).
using unison::reference::tolerance;

// Writes a View of rank 1 to 3 as folder/<name>.npy.
template <class V>
void save_npy(const std::filesystem::path& folder, const std::string& name, const V& v) {
  unison::write_npy((folder / (name + ".npy")).string(), v);
}

// The check of an element-wise result: out against ref(a(i), b(i)) in double (b empty: a function
// of one input), within the tolerance for Out. With `save`, the inputs and the result are saved as
// a.npy, b.npy and out.npy (`bytes` of them).
template <class Out, class A, class B, class O, class Ref>
Check check_elementwise(const A& a, const B& b, const O& out, const Ref& ref, bool save = false,
                        double bytes = 0) {
  auto ha = host_copy(a);
  auto hb = host_copy(b);
  auto ho = host_copy(out);
  const bool two = b.extent(0) > 0;
  Check c;
  c.error = relative_error(
      std::int64_t(out.extent(0)), [&](std::int64_t i) { return double(ho(i)); },
      [&](std::int64_t i) { return ref(double(ha(i)), two ? double(hb(i)) : 0.0); });
  c.tolerance = tolerance<Out>();
  if (save) {
    c.bytes = bytes;
    c.save = [=](const std::filesystem::path& folder) {
      save_npy(folder, "a", ha);
      if (two) save_npy(folder, "b", hb);
      save_npy(folder, "out", ho);
    };
  }
  return c;
}

// Writes one number as a 1-element array folder/<name>.npy (a result that is a scalar).
template <class T>
void save_scalar(const std::filesystem::path& folder, const std::string& name, T value) {
  Kokkos::View<T*, Kokkos::HostSpace> v("unison::bench::scalar", 1);
  v(0) = value;
  save_npy(folder, name, v);
}

// Calls f(tag) for every enabled backend (unison/backends/enabled.hpp), in order, with
// `typename decltype(tag)::type` its execution space: what each family's registration function
// does with its register_backend<Exec>.
template <class F>
void for_each_backend(const F& f) {
  unison::backends::for_each_enabled_space(f);
}

// f(backend) for each enabled backend but Serial (the sweep past the caches: minutes there).
template <class F>
void for_each_parallel_backend(const F& f) {
  for_each_backend([&](auto backend) {
#ifdef KOKKOS_ENABLE_SERIAL
    if constexpr (std::is_same_v<typename decltype(backend)::type, Kokkos::Serial>) return;
#endif
    f(backend);
  });
}

// Sets FTZ and DAZ on this thread if UNISON_BENCH_FLUSH_SUBNORMALS=1 (call it before Kokkos
// starts its threads: they inherit the mode). Returns whether it did.
bool flush_subnormals_if_asked();

// Records the build and the machine in the JSON context.
void add_context(bool flushed);

/// The CPU vector instruction set the benchmark cases (and so the CPU backends' kernels) were
/// compiled for, and the CPU backends it applies to: "AVX-512 (...) for Serial, OpenMP".
std::string cpu_vectors();

// A level of the memory a backend's cases can live in, innermost first: "L2" (the L2 caches of
// the cores the backend's threads run on: one core's for Serial, one per thread for OpenMP up to
// the distinct L2s of its CPUs; the GPU's L2 for Cuda), "L3" (those L2s and the last-level caches
// of those CPUs: the last-level caches of today's x86 server CPUs do not keep copies of the L2s'
// lines, so data fit in them together) and "DRAM" (main or device memory, unbounded). `bytes`:
// the level's capacity; a case whose working set is at most that lives there. Read from
// /sys/devices/system/cpu/cpu<N>/cache of the CPUs this process may run on (else the C library's
// sysconf) and the GPU's properties; a level whose size is not known is left out.
struct MemoryLevel {
  std::string name;
  double bytes;
};
std::vector<MemoryLevel> memory_levels(const std::string& backend);

// Each family's cases on every backend (cases/<family>.cpp).
void register_elementwise();
// The elementwise family's copy cases alone: each backend's memory ceiling at each level of
// memory_levels (copy/L2/device, copy/L3/device, copy/1e8/device), and its fma case.
void register_copy();
// The streams of register_copy once more, named ".../again" (registered last: measured at the end
// of the run).
void register_streams_again();
void register_convolve();
void register_diffusion();
void register_matmul();
void register_rowwise();
void register_random();
void register_histogram();
void register_examples();
// N small problems on N instances at once against one instance (cases/overlap.cpp): diffusions
// (diffusion/overlap/..., registered by register_diffusion) and matmul-reduces
// (matmul_reduce/overlap/..., by register_matmul).
void register_overlap_diffusion();
void register_overlap_matmul();
// diffusion_step, one step a call (cases/diffusion_step.cpp; registered by register_diffusion): an
// exploration probe, in a file of its own so that diffusion.cpp's kernels compile as they do
// without it.
void register_diffusion_step();
// Size sweeps for where the GPU overtakes the CPU, with the data on the device and with the
// host copies: "crossover/<workload>/<size>/(device|with_copies)".
// gaussian_pdf, 1e3 to 1e8
void register_crossover_elementwise();
// convolve valid f32 5 taps, 1e3 to 1e8; diffusion, 32^2 to 2000^2
void register_crossover_convolve();
void register_crossover_diffusion();
// The sweep past the caches (unison-bench --sizes), each family's cases named
// "<family>/sizes/...", on every backend but Serial: the diffusion, every step and final only,
// from a uniform field, at the sides below (the GPUs' from inside the L2 to 16384^2, the CPU
// backends' from inside the cores' L2s to 8192^2), and convolve (valid, float32, 5 taps) and
// histogram (float32, 100 bins) at the counts below; each size scaled as the seed sizes are.
// The peers' sweeps (benchmarks/peers: plain_c.c, stencil_peers.py, cuda_c.cu) use the same.
inline constexpr std::array<std::int64_t, 4> sizes_gpu_sides{2000, 4096, 8192, 16384};
inline constexpr std::array<std::int64_t, 4> sizes_cpu_sides{1024, 2000, 4096, 8192};
inline constexpr std::array<std::int64_t, 4> sizes_counts{100000, 1000000, 10000000, 100000000};
void register_sizes_diffusion();
void register_sizes_convolve();
void register_sizes_histogram();

}  // namespace unison::bench
