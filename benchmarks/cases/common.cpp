// What unison-bench and unison-bench-cases share beyond the cases: the settings registrations obey,
// the floating-point mode of the CPU threads, and the context recorded in the JSON.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <benchmark/benchmark.h>

#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/host/instruction_set.hpp>
#include <unison/core.hpp>

#include "common.hpp"

namespace unison::bench {

// The families' sweeps in the workload registry, by kind (Kind::crossover: --crossover;
// Kind::sizes: --sizes).
namespace {
[[maybe_unused]] const bool sweeps_registered =
    add_registration("elementwise", register_crossover_elementwise, Kind::crossover) &&
    add_registration("convolve", register_crossover_convolve, Kind::crossover) &&
    add_registration("diffusion", register_crossover_diffusion, Kind::crossover) &&
    add_registration("convolve", register_sizes_convolve, Kind::sizes) &&
    add_registration("diffusion", register_sizes_diffusion, Kind::sizes) &&
    add_registration("histogram", register_sizes_histogram, Kind::sizes);
}  // namespace

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

std::string cpu_vectors() {
  std::string backends;
  for (const auto& info : unison::backends::enabled_backends())
    if (info.backend != "Cuda") backends += (backends.empty() ? "" : ", ") + info.backend;
  return std::string(unison::backends::host_vector_isa) + " for " +
         (backends.empty() ? "no CPU backend" : backends);
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
  benchmark::AddCustomContext("cpu_vectors", cpu_vectors());
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
// The CPUs a CPU backend's threads run on: for OpenMP every OpenMP thread's affinity mask
// together (a runtime that binds its threads gives each one place, the first thread included);
// else the calling thread's.
cpu_set_t backend_cpus(const std::string& backend) {
  cpu_set_t all;
  CPU_ZERO(&all);
#if defined(_OPENMP)
  if (backend == "OpenMP") {
#pragma omp parallel
    {
      cpu_set_t mine;
      CPU_ZERO(&mine);
      if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
#pragma omp critical(unison_bench_backend_cpus)
        CPU_OR(&all, &all, &mine);
      }
    }
  }
#else
  (void)backend;
#endif
  if (CPU_COUNT(&all) == 0 && sched_getaffinity(0, sizeof all, &all) != 0) CPU_SET(0, &all);
  return all;
}

// The caches of `level` (unified or data caches) of the CPUs in `mask`: the size of one, and how
// many distinct ones (by the CPUs that share each); from sysfs, or the size the C library gives
// with a count of 0 where sysfs does not say.
struct HostCaches {
  double bytes = 0;
  int count = 0;
};
HostCaches host_caches(int level, const cpu_set_t& mask) {
  HostCaches caches;
  std::set<std::string> seen;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    for (int index = 0; index < 8; ++index) {
      const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" +
                              std::to_string(index);
      std::ifstream level_file(dir + "/level"), type_file(dir + "/type"), size_file(dir + "/size"),
          shared_file(dir + "/shared_cpu_list");
      int l = 0;
      std::string type, size, shared;
      if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size)) continue;
      if (l != level || type == "Instruction") continue;
      char* end = nullptr;
      const double v = std::strtod(size.c_str(), &end);
      const double unit = *end == 'K' ? 1024.0 : *end == 'M' ? 1024.0 * 1024 : 1;
      if (!(v > 0)) continue;
      caches.bytes = v * unit;
      seen.insert(shared_file >> shared ? shared : "cpu" + std::to_string(cpu));
    }
  }
  caches.count = int(seen.size());
  if (caches.bytes > 0) return caches;
  long bytes = -1;
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  bytes = sysconf(level == 2 ? _SC_LEVEL2_CACHE_SIZE : _SC_LEVEL3_CACHE_SIZE);
#endif
  return {bytes > 0 ? double(bytes) : 0, 0};
}
}  // namespace

std::vector<MemoryLevel> memory_levels(const std::string& backend) {
  std::vector<MemoryLevel> levels;
  for (const auto& info : unison::backends::enabled_backends()) {
    if (info.backend != backend) continue;
    if (info.l2_bytes > 0 || info.multiprocessors > 0) {  // a GPU
      if (info.l2_bytes > 0) levels.push_back({"L2", double(info.l2_bytes)});
    } else {
      // A CPU backend: the L2s of the cores its threads run on (one a thread, at most one a
      // distinct L2), then those and the last-level caches they share, which do not keep copies
      // of the L2s' lines on today's x86 server CPUs (at most one a thread, else one).
      const cpu_set_t cpus = backend_cpus(backend);
      const HostCaches l2 = host_caches(2, cpus), l3 = host_caches(3, cpus);
      const auto used = [&](const HostCaches& c, int unknown) {
        return double(std::min(info.concurrency, c.count > 0 ? c.count : unknown));
      };
      const double l2s = l2.bytes * used(l2, info.concurrency);
      if (l2s > 0) levels.push_back({"L2", l2s});
      if (l3.bytes > 0) levels.push_back({"L3", l2s + l3.bytes * used(l3, 1)});
    }
  }
  levels.push_back({"DRAM", std::numeric_limits<double>::infinity()});
  return levels;
}

}  // namespace unison::bench
