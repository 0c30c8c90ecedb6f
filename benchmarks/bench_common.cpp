// What unison_bench and unison-bench share beyond the cases: the settings registrations obey,
// the floating-point mode of the CPU threads, and the context recorded in the JSON.
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

Settings& settings() {
  static Settings s;
  return s;
}

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

void add_context(bool flushed) {
  std::string mode = flushed ? "flushed to zero (FTZ, DAZ)" : "IEEE";
#if defined(KOKKOS_ENABLE_OPENMP) && defined(__SSE2__)
  // Whether every thread of the OpenMP pool runs in that mode (they inherit it when created).
  int flushing = 0;
  const int threads = Kokkos::OpenMP().concurrency();
  Kokkos::parallel_reduce(
      "unison::bench::mxcsr",
      Kokkos::RangePolicy<Kokkos::OpenMP, Kokkos::Schedule<Kokkos::Static>>(0, threads),
      [](int, int& n) { n += (_mm_getcsr() & 0x8040) == 0x8040; }, flushing);
  mode +=
      ", " + std::to_string(flushing) + " of " + std::to_string(threads) + " OpenMP threads flush";
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
