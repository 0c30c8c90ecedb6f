// unison_bench: every Unison benchmark on every enabled backend, side by side, in one binary.
// Google Benchmark's flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_out=FILE); Kokkos' flags too (--kokkos-num-threads=N).
#include <sstream>

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/core.hpp>

#include "bench_common.hpp"

namespace unison::bench {

void register_elementwise();
void register_stencil();

void add_context() {
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
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  unison::bench::add_context();
  unison::bench::register_elementwise();
  unison::bench::register_stencil();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
