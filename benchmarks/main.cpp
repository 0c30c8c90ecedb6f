// unison_bench: every Unison benchmark on every enabled backend, side by side, in one binary.
// Google Benchmark's flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_out=FILE); Kokkos' flags too (--kokkos-num-threads=N).
//
// UNISON_BENCH_FLUSH_SUBNORMALS=1: the CPU threads run with subnormal numbers flushed to zero
// (x86 MXCSR FTZ and DAZ, what -ffast-math's start-up code and Intel's compilers set), to show
// what subnormal arithmetic costs; the JSON context records it. Unison itself never changes
// the floating-point environment: the default run is IEEE arithmetic.
#include <cstdlib>
#include <sstream>
#include <string>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/core.hpp>

#include "bench_common.hpp"

namespace unison::bench {

// Sets FTZ and DAZ on this thread if UNISON_BENCH_FLUSH_SUBNORMALS=1; threads it starts
// afterwards (Kokkos' OpenMP pool) inherit the mode. Returns whether it did.
bool flush_subnormals_if_asked() {
  const char* env = std::getenv("UNISON_BENCH_FLUSH_SUBNORMALS");
  if (!env || std::string(env) != "1") return false;
#if defined(__SSE2__)
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
  return true;
#else
  return false;
#endif
}

void register_elementwise();
void register_stencil();
void register_matmul();
void register_rowwise();
void register_counting();

void add_context(bool flushed) {
  std::string mode = flushed ? "flushed to zero (FTZ, DAZ)" : "IEEE";
#if defined(KOKKOS_ENABLE_OPENMP) && defined(__SSE2__)
  // Whether every thread of the OpenMP pool runs in that mode (they inherit it when created).
  int flushing = 0;
  const int threads = Kokkos::OpenMP().concurrency();
  Kokkos::parallel_reduce(
      "unison::bench::mxcsr", Kokkos::RangePolicy<Kokkos::OpenMP, Kokkos::Schedule<Kokkos::Static>>(0, threads),
      [](int, int& n) { n += (_mm_getcsr() & 0x8040) == 0x8040; }, flushing);
  mode += ", " + std::to_string(flushing) + " of " + std::to_string(threads) + " OpenMP threads flush";
#endif
  benchmark::AddCustomContext("cpu_subnormals", mode);
  benchmark::AddCustomContext("unison_version", unison::version());
  benchmark::AddCustomContext("unison_git", UNISON_GIT_REVISION);
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  for (const auto& info : unison::backends::enabled_backends())
    benchmark::AddCustomContext("backend_" + info.backend, unison::backends::describe(info));
  std::ostringstream config;
  Kokkos::print_configuration(config, false);
  benchmark::AddCustomContext("kokkos_configuration", config.str());
}

}  // namespace unison::bench

int main(int argc, char** argv) {
  const bool flushed = unison::bench::flush_subnormals_if_asked();  // before Kokkos' threads
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  unison::bench::add_context(flushed);
  unison::bench::register_elementwise();
  unison::bench::register_stencil();
  unison::bench::register_matmul();
  unison::bench::register_rowwise();
  unison::bench::register_counting();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
