// unison-bench-cases: every Unison benchmark case on every enabled backend, side by side, in one
// binary, under Google Benchmark's own command line (an internal program for work on a kernel;
// the benchmark program is unison-bench, apps/unison-bench/).
// Google Benchmark's flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_out=FILE); Kokkos' flags too (--kokkos-num-threads=N).
//
// UNISON_BENCH_FLUSH_SUBNORMALS=1: the CPU threads run with subnormal numbers flushed to zero
// (x86 MXCSR FTZ and DAZ, what -ffast-math's start-up code and Intel's compilers set), to show
// what subnormal arithmetic costs; the JSON context records it. Unison itself never changes
// the floating-point environment: the default run is IEEE arithmetic.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <iostream>

#include "cases/common.hpp"

int main(int argc, char** argv) {
  const bool flushed = unison::bench::flush_subnormals_if_asked();  // before Kokkos' threads
  Kokkos::ScopeGuard kokkos(argc, argv);
  bool manifest = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--unison_manifest") == 0) {
      manifest = true;
      for (int j = i; j < argc; ++j) argv[j] = argv[j + 1];  // (argv[argc] is null)
      --argc;
      break;
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  unison::bench::add_context(flushed);
  unison::bench::register_copy();  // the peaks of the machine (cases/peak.cpp)
  unison::bench::register_workloads([](const std::string&) { return true; });
  if (manifest) {
    unison::bench::write_manifest_json(std::cout);
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
