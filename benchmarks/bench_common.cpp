// What unison_bench and unison-bench share beyond the cases: the settings registrations obey,
// the floating-point mode of the CPU threads, and the context recorded in the JSON.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/core.hpp>

#include "bench_common.hpp"
#include "suite/suite.hpp"

namespace unison::bench {

namespace {
std::map<std::string, Registration>& registrations() {
  static std::map<std::string, Registration> r;
  return r;
}
}  // namespace

bool add_registration(const std::string& family, Registration registration) {
  registrations()[family] = registration;
  return true;
}

void register_workloads(const std::function<bool(const std::string&)>& wanted) {
  std::vector<Registration> done;
  for (const auto& w : unison::suite::workloads()) {
    if (!wanted(w.name)) continue;
    const auto it = registrations().find(w.name);
    if (it == registrations().end())
      throw std::logic_error("unison bench: the workload \"" + w.name +
                             "\" of the registry has no registration (bench_<family>.cpp)");
    if (std::find(done.begin(), done.end(), it->second) != done.end()) continue;
    it->second();
    done.push_back(it->second);
  }
}

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
