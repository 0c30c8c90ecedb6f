#pragma once
/// \file unison/backends/device_info.hpp
/// What each backend runs on, in words and numbers, for benchmark contexts and reports. The
/// per-backend queries live in backends/src/device_info.cpp; the other calls into a backend's
/// runtime (streams, events, streaming stores) in that backend's folder, e.g.
/// unison/backends/cuda/.

#include <string>
#include <vector>

namespace unison::backends {

/// One enabled Kokkos backend and the hardware under it.
struct DeviceInfo {
  std::string backend;         ///< "Serial", "OpenMP", "Cuda" or "HIP"
  std::string device;          ///< e.g. "NVIDIA H100 80GB HBM3", or the CPU's model name
  int concurrency = 1;         ///< Kokkos' concurrency of the default instance
  int multiprocessors = 0;     ///< GPU multiprocessors (AMD: compute units; 0 on CPUs)
  long long memory_bytes = 0;  ///< device memory (GPUs), 0 if unknown
  long long l2_bytes = 0;      ///< last-level cache of the GPU, 0 if unknown
};

/// Every backend enabled in this build, in the order Serial, OpenMP, then the GPU's (Cuda or
/// HIP). Call after Kokkos::initialize.
std::vector<DeviceInfo> enabled_backends();

/// One line per backend, for logs and benchmark contexts.
std::string describe(const DeviceInfo& info);

/// Bytes that can be allocated now in the Kokkos memory space of that name (its `name()`):
/// "Host" (HostSpace) the host's available memory (MemAvailable), "Cuda" (CudaSpace) and "HIP"
/// (HIPSpace) the GPU's free memory; -1 for any other space, or where the system does not say.
long long free_memory_bytes(const std::string& memory_space);

/// The size from which a CPU kernel's arrays are taken not to stay in the caches between calls,
/// so that it writes its results with non-temporal stores (unison/backends/memory.hpp): half
/// the last-level cache that the C library reports (32 MiB where it does not say); the
/// environment variable UNISON_STREAMING_BYTES overrides it.
long long host_streaming_bytes();

/// Whether a CPU kernel whose arrays span `bytes` writes its results with non-temporal stores
/// (bytes >= host_streaming_bytes()).
inline bool host_streams(long long bytes) { return bytes >= host_streaming_bytes(); }

}  // namespace unison::backends
