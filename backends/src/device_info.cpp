#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <unison/backends/device_info.hpp>
#include <unison/backends/enabled.hpp>

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

// A GPU backend's device: its name, multiprocessors, memory and L2 where the backend tells them.
template <class Exec>
DeviceInfo device(const Exec& exec) {
  return {Exec::name(), "unknown device", exec.concurrency(), 0, 0, 0};
}
#ifdef KOKKOS_ENABLE_CUDA
DeviceInfo device(const Kokkos::Cuda& exec) {
  const auto& prop = exec.cuda_device_prop();
  return {"Cuda",
          prop.name,
          exec.concurrency(),
          prop.multiProcessorCount,
          static_cast<long long>(prop.totalGlobalMem),
          static_cast<long long>(prop.l2CacheSize)};
}
#endif
#ifdef KOKKOS_ENABLE_HIP
DeviceInfo device(const Kokkos::HIP& exec) {
  const auto& prop = Kokkos::HIP::hip_device_prop();
  return {"HIP",
          prop.name,
          exec.concurrency(),
          prop.multiProcessorCount,
          static_cast<long long>(prop.totalGlobalMem),
          static_cast<long long>(prop.l2CacheSize)};
}
#endif

}  // namespace

std::vector<DeviceInfo> enabled_backends() {
  std::vector<DeviceInfo> out;
  for_each_enabled_space([&](auto tag) {
    using Exec = typename decltype(tag)::type;
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                             typename Exec::memory_space>::accessible) {
      out.push_back({Exec::name(), cpu_model(), Exec().concurrency(), 0, 0, 0});
    } else {
      out.push_back(device(Exec()));
    }
  });
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
#ifdef KOKKOS_ENABLE_HIP
  if (memory_space == "HIP") {
    std::size_t free = 0, total = 0;
    if (hipMemGetInfo(&free, &total) != hipSuccess) {
      (void)hipGetLastError();
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
