#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>

namespace unison::backends {
namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

}  // namespace

std::vector<DeviceInfo> enabled_backends() {
  std::vector<DeviceInfo> out;
#ifdef KOKKOS_ENABLE_SERIAL
  out.push_back({"Serial", cpu_model(), Kokkos::Serial().concurrency(), 0, 0, 0});
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  out.push_back({"OpenMP", cpu_model(), Kokkos::OpenMP().concurrency(), 0, 0, 0});
#endif
#ifdef KOKKOS_ENABLE_CUDA
  {
    const auto& prop = Kokkos::Cuda().cuda_device_prop();
    out.push_back({"Cuda", prop.name, Kokkos::Cuda().concurrency(), prop.multiProcessorCount,
                   static_cast<long long>(prop.totalGlobalMem),
                   static_cast<long long>(prop.l2CacheSize)});
  }
#endif
  return out;
}

std::string describe(const DeviceInfo& info) {
  std::ostringstream s;
  s << info.backend << ": " << info.device << ", concurrency " << info.concurrency;
  if (info.multiprocessors) s << ", " << info.multiprocessors << " SMs";
  if (info.memory_bytes) s << ", " << (info.memory_bytes >> 20) << " MiB";
  if (info.l2_bytes) s << ", L2 " << (info.l2_bytes >> 20) << " MiB";
  return s.str();
}

long long free_memory_bytes(const std::string& memory_space) {
  if (memory_space == "Host") {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    long long kib = 0;
    while (meminfo >> key >> kib >> unit)
      if (key == "MemAvailable:") return kib * 1024;
    return -1;
  }
#ifdef KOKKOS_ENABLE_CUDA
  if (memory_space == "Cuda") {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    return static_cast<long long>(free);
  }
#endif
  return -1;
}

long long host_streaming_bytes() {
  static const long long bytes = [] {
    if (const char* env = std::getenv("UNISON_STREAMING_BYTES")) {
      char* end = nullptr;
      const long long v = std::strtoll(env, &end, 10);
      if (end != env && *end == '\0' && v > 0) return v;
    }
    long long cache = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return cache > 0 ? cache / 2 : 32LL << 20;
  }();
  return bytes;
}

}  // namespace unison::backends
