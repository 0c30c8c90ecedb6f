#pragma once
/// \file unison/backends/cuda/resident.hpp
/// What a persistent ("resident") CUDA kernel needs that Kokkos does not express: a launch whose
/// blocks are all on the GPU at once (a cooperative launch), how many blocks that can be, and
/// signals between blocks of one launch (a counter a block publishes, another waits for). The
/// diffusion's resident form (unison/detail/diffusion/resident.hpp) keeps its field in registers
/// for a whole call with these.

#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace unison::backends::cuda {

inline void check_resident(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("unison: the resident kernel: ") + what + ": " +
                             cudaGetErrorString(e));
}

/// Blocks of `threads` threads of `kernel` that exec's GPU holds at once (0 where the GPU has no
/// cooperative launch): the most a cooperative launch of it may take.
template <class Kernel>
std::int64_t resident_blocks(const Kokkos::Cuda& exec, Kernel kernel, int threads) {
  const int device = exec.cuda_device();
  int cooperative = 0, sms = 0, per_sm = 0;
  check_resident(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
                 "cudaDeviceGetAttribute");
  check_resident(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                 "cudaDeviceGetAttribute");
  if (!cooperative) return 0;
  int current = 0;
  check_resident(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) check_resident(cudaSetDevice(device), "cudaSetDevice");
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
  if (current != device) check_resident(cudaSetDevice(current), "cudaSetDevice");
  check_resident(e, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return std::int64_t(per_sm) * sms;
}

/// Launches kernel(args) as `blocks` blocks of `threads` threads on exec's stream, all resident
/// at once (cudaLaunchCooperativeKernel: the launch fails rather than runs if they cannot be),
/// reported to Kokkos Tools as a parallel_for named `label`.
template <class Kernel, class Args>
void launch_resident(const char* label, const Kokkos::Cuda& exec, Kernel kernel,
                     std::int64_t blocks, int threads, Args& args) {
  std::uint64_t id = 0;
  Kokkos::Profiling::beginParallelFor(label, Kokkos::Profiling::Experimental::device_id(exec), &id);
  const int device = exec.cuda_device();
  int current = 0;
  check_resident(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) check_resident(cudaSetDevice(device), "cudaSetDevice");
  void* params[] = {&args};
  const cudaError_t e =
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(unsigned(blocks)),
                                  dim3(unsigned(threads)), params, 0, exec.cuda_stream());
  if (current != device) cudaSetDevice(current);
  Kokkos::Profiling::endParallelFor(id);
  check_resident(e, label);
}

/// Zeroes `bytes` bytes at p in stream order on exec (the signals of a resident launch).
inline void zero_async(const Kokkos::Cuda& exec, void* p, std::size_t bytes) {
  check_resident(cudaMemsetAsync(p, 0, bytes, exec.cuda_stream()), "cudaMemsetAsync");
}

#if defined(__CUDACC__)
/// Device side: makes this block's writes so far visible to the whole GPU, then sets *signal to
/// `value` (called by every thread of the block; thread 0 writes).
__device__ inline void publish(int* signal, int value) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) *static_cast<volatile int*>(signal) = value;
}

/// Device side: waits until *signal >= value (one thread; the caller's barrier then orders the
/// block's reads after it). Reads made after it must bypass the L1 cache (load_shared_l2).
__device__ inline void wait_for(const int* signal, int value) {
  while (*static_cast<const volatile int*>(signal) < value) {
  }
  __threadfence();
}

/// Device side: a load from the L2 cache (not the multiprocessor's L1, which does not see other
/// multiprocessors' writes).
template <class T>
__device__ inline T load_shared_l2(const T* p) {
  return __ldcg(p);
}
#endif

}  // namespace unison::backends::cuda
#endif  // KOKKOS_ENABLE_CUDA
