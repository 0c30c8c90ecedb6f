// What unison_bench and unison-bench share beyond the cases: the settings registrations obey,
// the floating-point mode of the CPU threads, and the context recorded in the JSON.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <benchmark/benchmark.h>

#include <unistd.h>

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
#ifdef KOKKOS_ENABLE_CUDA
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess &&
      cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    benchmark::AddCustomContext("cuda_versions", "driver API " + std::to_string(driver / 1000) +
                                                     "." + std::to_string(driver % 1000 / 10) +
                                                     ", runtime " + std::to_string(runtime / 1000) +
                                                     "." + std::to_string(runtime % 1000 / 10));
#endif
  for (const auto& info : unison::backends::enabled_backends()) {
    std::string levels;
    for (const auto& l : memory_levels(info.backend))
      if (std::isfinite(l.bytes))
        levels += (levels.empty() ? "" : ", ") + l.name + " " +
                  std::to_string(static_cast<long long>(l.bytes) >> 10) + " KiB";
    benchmark::AddCustomContext("memory_levels_" + info.backend, levels + ", then DRAM");
  }
  std::ostringstream config;
  Kokkos::print_configuration(config, false);
  benchmark::AddCustomContext("kokkos_configuration", config.str());
}

namespace {
// The size in bytes of this CPU's cache of `level` (a unified or data cache), as the first CPU
// sees it; 0 where neither sysfs nor the C library says.
double host_cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size");
    int l = 0;
    std::string type, size;
    if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size)) continue;
    if (l != level || type == "Instruction") continue;
    char* end = nullptr;
    const double v = std::strtod(size.c_str(), &end);
    const double unit = *end == 'K' ? 1024.0 : *end == 'M' ? 1024.0 * 1024 : 1;
    if (v > 0) return v * unit;
  }
  long bytes = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  bytes = sysconf(level == 2 ? _SC_LEVEL2_CACHE_SIZE : _SC_LEVEL3_CACHE_SIZE);
#endif
  return bytes > 0 ? double(bytes) : 0;
}
}  // namespace

std::vector<MemoryLevel> memory_levels(const std::string& backend) {
  std::vector<MemoryLevel> levels;
  for (const auto& info : unison::backends::enabled_backends()) {
    if (info.backend != backend) continue;
    if (info.l2_bytes > 0 || info.multiprocessors > 0) {  // a GPU
      if (info.l2_bytes > 0) levels.push_back({"L2", double(info.l2_bytes)});
    } else {  // a CPU backend: one L2 per thread it runs, the shared last-level cache
      const double l2 = host_cache_bytes(2), l3 = host_cache_bytes(3);
      if (l2 > 0) levels.push_back({"L2", l2 * info.concurrency});
      if (l3 > 0 && (levels.empty() || l3 > levels.back().bytes)) levels.push_back({"L3", l3});
    }
  }
  levels.push_back({"DRAM", std::numeric_limits<double>::infinity()});
  return levels;
}

}  // namespace unison::bench
